#!/usr/bin/env bash
# Tournaments at national size (issue 25, part 4): builds benches/tournament_scale.rs optimised
# (`cargo bench`'s profile) and runs it on SQLite, then on PostgreSQL when PG_URL (or
# TEST_DATABASE_URL) names a server: a Swiss tournament of PLAYERS over ROUNDS rounds built over
# the service's real code path (create, pair each round, enter every table's result by quick log,
# read the standings), RUNS times on fresh databases, printing each round's figures and the
# min / median / max over the runs of the last round's: one entry, the round's entries, pairing,
# standings.
# Usage: scripts/tournament-scale.sh                 (PLAYERS=256 ROUNDS=7 RUNS=3 SEATS=2)
#   PLAYERS=4096 scripts/tournament-scale.sh          a national open
#   SEATS=4 ...                                       Clubs at tables of four
#   PG_URL=postgres://postgres@127.0.0.1:5432/postgres scripts/tournament-scale.sh
# The "before" figures of docs/performance.md: the same bench file and Cargo.toml entry copied
# into a checkout of the commit before (it uses only the service's public calls).
. "$(dirname "$0")/lib.sh"
PLAYERS=${PLAYERS:-256}
ROUNDS=${ROUNDS:-7}
RUNS=${RUNS:-3}
SEATS=${SEATS:-2}
cargo bench -q --bench tournament_scale --no-run
run() {
  cargo bench -q --bench tournament_scale -- "$PLAYERS" "$ROUNDS" "$RUNS" "$SEATS"
}
echo "== SQLite"
DATABASE_URL= run
PG=${PG_URL:-${TEST_DATABASE_URL:-}}
if [ -n "$PG" ]; then
  echo "== PostgreSQL"
  DATABASE_URL=$PG run
fi

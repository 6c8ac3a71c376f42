#!/usr/bin/env bash
# Live streams under a flood (issue 20, part 4): what an idle stream costs, a write's latency with
# 1,000 streams watching its match, how long a stop takes with every stream open, and where one
# client is refused. Builds the release server (or takes CLUBROOM_BIN), then runs
# scripts/stream_flood.py (Python stdlib only) RUNS times on fresh SQLite files and prints each
# figure's min / median / max, then the limits probe once.
# Usage: scripts/stream-flood.sh            (RUNS=3 STREAMS=4096 WATCHERS=1000 IDLE=20 WRITES=200)
#   CLUBROOM_BIN=/path/to/clubroom scripts/stream-flood.sh   measures another build (e.g. main)
# The server is started with CLUBROOM_CREATES_PER_MINUTE=0 (one client creates the matches) and
# CLUBROOM_MAX_PUBLIC_STREAMS_PER_MATCH=$WATCHERS (1,000 tokenless watchers on one match, beyond
# the default of 128); the 4,096 streams come from 16 loopback addresses, 256 each (the default
# cap per client).
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-3}
if [ -z "${CLUBROOM_BIN:-}" ]; then
  cargo build --release -q --bin clubroom
  CLUBROOM_BIN=${CARGO_TARGET_DIR:-target}/release/clubroom
fi
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
python3 scripts/stream_flood.py --bin "$CLUBROOM_BIN" --runs "$RUNS" --streams "${STREAMS:-4096}" \
  --watchers "${WATCHERS:-1000}" --idle "${IDLE:-20}" --writes "${WRITES:-200}" | tee "$OUT"
echo "== $RUNS runs: min / median / max"
python3 - "$OUT" <<'PY'
import statistics, sys
figures = {}
for line in open(sys.argv[1]):
    if line.startswith("run "):
        name, value = line.split(":", 1)[1].split()
        figures.setdefault(name, []).append(value)
for name, values in figures.items():
    try:
        xs = sorted(float(v) for v in values)
        print(f"{name:40} {xs[0]:10.3f} {statistics.median(xs):10.3f} {xs[-1]:10.3f}")
    except ValueError:
        print(f"{name:40} {' '.join(values)}")
PY
echo "== limits (defaults)"
python3 scripts/stream_flood.py --bin "$CLUBROOM_BIN" --probe

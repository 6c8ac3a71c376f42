#!/usr/bin/env bash
# CI: many instances, one database (issue 3, item 4). Builds the debug server (`cargo build`),
# creates a throwaway PostgreSQL database on 127.0.0.1:5432 (user postgres), starts two server
# processes on it and has clients write to the same matches through both at once, with and without
# If-Match, reading each write back through the other instance (scripts/multi_check.py, Python
# stdlib only). Then the same against two processes sharing one SQLite file. Drops the database.
# Prints "multi check (postgres): PASS: ..." and "multi check (sqlite): PASS: ...".
# Env: CLUBROOM_BIN (use this binary, skip the build), MULTI_SECONDS (race length, default 15),
# MULTI_SEED, PGHOST (default 127.0.0.1).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${CLUBROOM_BIN:-$(scripts/build-debug.sh)}
PGHOST=${PGHOST:-127.0.0.1}
if ! pg_isready -h "$PGHOST" -p 5432 -q 2>/dev/null; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start
  for _ in $(seq 1 30); do pg_isready -h "$PGHOST" -p 5432 -q && break; sleep 1; done
fi
DB="clubroom_multi_$$"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clubroom-multi.XXXXXX")
PY=
cleanup() {
  local rc=$?
  set +e
  [ -n "$PY" ] && kill "$PY" 2>/dev/null && wait "$PY" 2>/dev/null
  # Backstop: servers the checker started (it stops them itself unless it was killed hard).
  for f in "$WORK"/*/*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
  psql -h "$PGHOST" -U postgres -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" postgres >/dev/null 2>&1
  if [ "$rc" = 0 ]; then rm -rf "$WORK"; else echo "multi check: logs kept in $WORK"; fi
  return 0
}
trap cleanup EXIT
trap 'exit 143' INT TERM
psql -h "$PGHOST" -U postgres -v ON_ERROR_STOP=1 -qc "CREATE DATABASE $DB" postgres

run() { # label url
  mkdir -p "$WORK/$1"
  python3 scripts/multi_check.py --bin "$BIN" --workdir "$WORK/$1" --database-url "$2" --label "$1" \
    --seconds "${MULTI_SECONDS:-15}" ${MULTI_SEED:+--seed "$MULTI_SEED"} &
  PY=$!
  wait "$PY"
  PY=
}
run postgres "postgres://postgres@$PGHOST:5432/$DB"
# Not a deployment goal (scale out on PostgreSQL), but the design allows it: one file, two processes.
run sqlite "sqlite://$WORK/sqlite/shared.db?mode=rwc"

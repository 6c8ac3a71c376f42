#!/usr/bin/env bash
# CI: many instances, one database (issue 3, item 4). Builds the debug server (`cargo build`),
# creates a throwaway PostgreSQL database on 127.0.0.1:5432 (user postgres), starts two server
# processes on it and has clients write to the same matches through both at once, with and without
# If-Match, reading each write back through the other instance (scripts/multi_check.py, Python
# stdlib only). Then the same against two processes sharing one SQLite file. Drops the database.
# Prints "multi check (postgres): PASS: ..." and "multi check (sqlite): PASS: ...".
# Env: CLUBROOM_BIN (use this binary, skip the build), MULTI_SECONDS (race length, default 15),
# MULTI_SEED, PGHOST (default 127.0.0.1).
. "$(dirname "$0")/lib.sh"
BIN=$(debug_bin)
PGHOST=${PGHOST:-127.0.0.1}
ensure_postgres "$PGHOST"
DB="clubroom_multi_$$"
on_exit() { psql -h "$PGHOST" -U postgres -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" postgres >/dev/null 2>&1; }
# Each run's servers write their pid files in a directory of their own.
checker_workdir multi "multi check" '*/*.pid'
psql -h "$PGHOST" -U postgres -v ON_ERROR_STOP=1 -qc "CREATE DATABASE $DB" postgres

run() { # label url
  mkdir -p "$WORK/$1"
  run_checker python3 scripts/multi_check.py --bin "$BIN" --workdir "$WORK/$1" --database-url "$2" \
    --label "$1" --seconds "${MULTI_SECONDS:-15}" ${MULTI_SEED:+--seed "$MULTI_SEED"}
}
run postgres "postgres://postgres@$PGHOST:5432/$DB"
# Not a deployment goal (scale out on PostgreSQL), but the design allows it: one file, two processes.
run sqlite "sqlite://$WORK/sqlite/shared.db?mode=rwc"

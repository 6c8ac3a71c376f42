#!/usr/bin/env bash
# CI: stalled connections (issue 10, item 7). Builds the debug server, starts it on a fresh SQLite
# file and opens 20,000 stalled requests (head sent, body never finished) at once, then 200 more
# that are no flood, while probing GET /healthz every 100 ms (scripts/stall_check.py, Python
# stdlib only). Prints "stall check: PASS: burst: ... few: ...".
# Env: CLUBROOM_BIN (use this binary, skip the build), STALL_BURST (default 20000).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${CLUBROOM_BIN:-$(scripts/build-debug.sh)}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clubroom-stall.XXXXXX")
PY=
cleanup() {
  local rc=$?
  set +e
  [ -n "$PY" ] && kill "$PY" 2>/dev/null && wait "$PY" 2>/dev/null
  for f in "$WORK"/*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
  if [ "$rc" = 0 ]; then rm -rf "$WORK"; else echo "stall check: logs kept in $WORK"; fi
  return 0
}
trap cleanup EXIT
trap 'exit 143' INT TERM
# Each attacker process holds 10,000 sockets: it needs an open-file limit above that.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
python3 scripts/stall_check.py --bin "$BIN" --workdir "$WORK" --burst "${STALL_BURST:-20000}" &
PY=$!
wait "$PY"

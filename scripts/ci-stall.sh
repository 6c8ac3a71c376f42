#!/usr/bin/env bash
# CI: stalled connections (issue 10, item 7). Builds the debug server, starts it on a fresh SQLite
# file and opens 20,000 stalled requests (head sent, body never finished) at once, then 200 more
# that are no flood, while probing GET /healthz every 100 ms (scripts/stall_check.py, Python
# stdlib only). Prints "stall check: PASS: burst: ... few: ...".
# Env: CLUBROOM_BIN (use this binary, skip the build), STALL_BURST (default 20000).
. "$(dirname "$0")/lib.sh"
BIN=$(debug_bin)
checker_workdir stall "stall check"
# Each attacker process holds 10,000 sockets: it needs an open-file limit above that.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
run_checker python3 scripts/stall_check.py --bin "$BIN" --workdir "$WORK" --burst "${STALL_BURST:-20000}"

#!/usr/bin/env bash
# CI: crash safety (issue 3, item 3). Builds the debug server (`cargo build`), starts it on a fresh
# SQLite file, drives concurrent idempotent writes from 8 client threads over 6 Dump matches,
# SIGKILLs and restarts it 25 times at random moments, then checks that every acknowledged action
# is in the log and replays its first answer, that nothing is half-recorded and that every match
# replays with score totals equal to its tallies (scripts/crash_check.py, Python stdlib only).
# Prints "crash check: PASS: kills=.. acknowledged=.. found=.. lost=0".
# Env: CLUBROOM_BIN (use this binary, skip the build), CRASH_KILLS (default 25), CRASH_SEED.
. "$(dirname "$0")/lib.sh"
BIN=$(debug_bin)
checker_workdir crash "crash check"
run_checker python3 scripts/crash_check.py --bin "$BIN" --workdir "$WORK" \
  --kills "${CRASH_KILLS:-25}" ${CRASH_SEED:+--seed "$CRASH_SEED"}

#!/usr/bin/env bash
# CI: webhooks survive crashes (issue 23). Builds the debug server (`cargo build`), starts it on a
# fresh SQLite file with a loopback receiver allowed (CLUBROOM_WEBHOOKS_ALLOW_PRIVATE=1), registers
# a webhook on each of 4 Dump matches, records tallies from 4 client threads while the server is
# SIGKILLed and restarted 12 times, then checks (scripts/webhook_check.py, Python stdlib only) that
# every event of every log was delivered at least once, signed, under one delivery id per event
# (a redelivery after a crash repeats the id), nothing delivered that the log does not hold, and
# the delivery logs all say `delivered`. Prints "webhook check: PASS: kills=.. events=.. lost=0".
# Env: CLUBROOM_BIN (use this binary, skip the build), WEBHOOK_KILLS (default 12), WEBHOOK_SEED.
. "$(dirname "$0")/lib.sh"
BIN=$(debug_bin)
checker_workdir webhooks "webhook check"
run_checker python3 scripts/webhook_check.py --bin "$BIN" --workdir "$WORK" \
  --kills "${WEBHOOK_KILLS:-12}" ${WEBHOOK_SEED:+--seed "$WEBHOOK_SEED"}

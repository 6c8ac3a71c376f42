#!/usr/bin/env bash
# CI: disk full on SQLite (issue 10, item 1). Builds the debug server (`cargo build`), mounts a
# small tmpfs (needs root), runs the server on a SQLite file there, writes concurrently until the
# disk is full, frees space, checks that writes recover without a restart, restarts the server and
# checks that no acknowledged write was lost and every refusal was 503 storage_unavailable
# (scripts/diskfull_check.py, Python stdlib only).
# Prints "diskfull: PASS acknowledged=.. found=.. lost=0 refused_503=..".
# Env: CLUBROOM_BIN (use this binary, skip the build).
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then
  echo "diskfull: needs root to mount a tmpfs" >&2
  exit 1
fi
BIN=$(debug_bin)
# The tmpfs the checker mounted, before WORK is removed.
on_exit() { mountpoint -q "$WORK/mnt" && umount -l "$WORK/mnt"; }
checker_workdir diskfull diskfull
run_checker python3 scripts/diskfull_check.py --bin "$BIN" --workdir "$WORK"

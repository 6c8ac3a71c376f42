#!/usr/bin/env bash
# CI: disk full on SQLite (issue 10, item 1). Builds the debug server (`cargo build`), mounts a
# small tmpfs (needs root), runs the server on a SQLite file there, writes concurrently until the
# disk is full, frees space, checks that writes recover without a restart, restarts the server and
# checks that no acknowledged write was lost and every refusal was 503 storage_unavailable
# (scripts/diskfull_check.py, Python stdlib only).
# Prints "diskfull: PASS acknowledged=.. found=.. lost=0 refused_503=..".
# Env: CLUBROOM_BIN (use this binary, skip the build).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
  echo "diskfull: needs root to mount a tmpfs" >&2
  exit 1
fi
BIN=${CLUBROOM_BIN:-$(scripts/build-debug.sh)}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clubroom-diskfull.XXXXXX")
PY=
cleanup() {
  local rc=$?
  set +e
  [ -n "$PY" ] && kill "$PY" 2>/dev/null && wait "$PY" 2>/dev/null
  for f in "$WORK"/*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
  mountpoint -q "$WORK/mnt" && umount -l "$WORK/mnt"
  if [ "$rc" = 0 ]; then rm -rf "$WORK"; else echo "diskfull: logs kept in $WORK"; fi
  return 0
}
trap cleanup EXIT
trap 'exit 143' INT TERM
python3 scripts/diskfull_check.py --bin "$BIN" --workdir "$WORK" &
PY=$!
wait "$PY"

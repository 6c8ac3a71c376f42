# The set-up the scripts under scripts/ share; sourced, never run: `. "$(dirname "$0")/lib.sh"`.
# Sourcing it turns on strict mode, moves to the repository's root (ROOT) and defines the helpers
# below. Each helper says which variables it sets.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

# free_port: a free TCP port on the loopback (bound to port 0, read back, closed: the server binds
# it next, so another process may take it in between; start_server retries).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# debug_bin: prints the server binary to test: CLUBROOM_BIN if set, else the debug build of
# `clubroom` made now (scripts/build-debug.sh, wherever CARGO_TARGET_DIR points).
debug_bin() {
  if [ -n "${CLUBROOM_BIN:-}" ]; then
    echo "$CLUBROOM_BIN"
  else
    echo "== cargo build (debug)" >&2
    scripts/build-debug.sh
  fi
}

# wait_healthy URL PID [TRIES] [PAUSE]: waits until URL/healthz answers (TRIES times PAUSE seconds
# at most, 100 x 0.2 s by default); fails at once if process PID has exited.
wait_healthy() {
  local url=$1 pid=$2 tries=${3:-100} pause=${4:-0.2}
  for _ in $(seq 1 "$tries"); do
    curl -sf "$url/healthz" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep "$pause"
  done
  return 1
}

# start_server LABEL DIR [NAME=VALUE ...]: starts `$BIN serve` on a free loopback port with a fresh
# SQLite file DIR/clubroom.db, the environment additions given and RUST_LOG=warn, its output in
# DIR/server.log; a port taken between choosing and binding gets another try (3 at most). Sets
# SERVER_PID and BASE (http://127.0.0.1:PORT); if it never answers, says so ("LABEL: the server
# did not start"), prints its log and fails.
# Pair it with `trap stop_server EXIT` (or call stop_server from the script's own trap).
start_server() {
  local label=$1 dir=$2 port
  shift 2
  BASE=
  SERVER_PID=
  for _ in 1 2 3; do
    port=$(free_port)
    rm -f "$dir"/clubroom.db*
    env "$@" RUST_LOG=warn "$BIN" serve --bind "127.0.0.1:$port" \
      --database-url "sqlite://$dir/clubroom.db?mode=rwc" >"$dir/server.log" 2>&1 &
    SERVER_PID=$!
    if wait_healthy "http://127.0.0.1:$port" "$SERVER_PID"; then
      BASE=http://127.0.0.1:$port
      return 0
    fi
    stop_server
  done
  echo "$label: the server did not start"
  cat "$dir/server.log"
  return 1
}

# stop_server: stops the server start_server started (SIGTERM, then waits for it), if any.
stop_server() {
  if [ -n "${SERVER_PID:-}" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
  fi
}

# ensure_postgres HOST: starts the local PostgreSQL cluster unless HOST:5432 already answers.
ensure_postgres() {
  if ! pg_isready -h "$1" -p 5432 -q 2>/dev/null; then
    echo "starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start
    for _ in $(seq 1 30); do pg_isready -h "$1" -p 5432 -q && break; sleep 1; done
  fi
}

# The CI checkers (ci-crash, ci-stall, ci-diskfull, ci-multi): a Python checker drives servers it
# starts itself in a work directory, writing each server's pid to a file there.
#
# checker_workdir NAME LABEL [PIDFILES]: WORK = a fresh directory $TMPDIR/clubroom-NAME.XXXXXX.
# At exit, whatever happens: the checker still running (run_checker) is stopped, every process
# named by a pid file WORK/PIDFILES (default *.pid) is killed (a checker killed hard leaves its
# servers behind), the script's own `on_exit` runs if it defines one, and WORK is removed if the
# script succeeded, else kept ("LABEL: logs kept in WORK"). SIGINT and SIGTERM exit 143.
checker_workdir() {
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/clubroom-$1.XXXXXX")
  CHECK_LABEL=$2
  CHECK_PIDFILES=${3:-*.pid}
  CHECKER=
  trap checker_cleanup EXIT
  trap 'exit 143' INT TERM
}

checker_cleanup() {
  local rc=$? f
  set +e
  [ -n "$CHECKER" ] && kill "$CHECKER" 2>/dev/null && wait "$CHECKER" 2>/dev/null
  # shellcheck disable=SC2086 # the pattern is meant to expand
  for f in "$WORK"/$CHECK_PIDFILES; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
  declare -F on_exit >/dev/null && on_exit
  if [ "$rc" = 0 ]; then rm -rf "$WORK"; else echo "$CHECK_LABEL: logs kept in $WORK"; fi
  return 0
}

# run_checker COMMAND...: runs the checker in the background (so a signal to this script reaches
# the cleanup at once) and waits for it; fails with its status.
run_checker() {
  "$@" &
  CHECKER=$!
  wait "$CHECKER"
  CHECKER=
}

#!/usr/bin/env bash
# The generated-client check (issues 3, 23): regenerates a Python client from
# openapi/openapi.json with openapi-python-client (pinned), builds the debug server, starts it on a
# random free port with a fresh SQLite file, and plays clients/python/play_all.py through the
# client (a full match of every game of the catalogue from `legal`, each action the very model
# `legal` returned, every view read through the game's own model), then
# clients/python/run_tournament.py (a small duplicate Swiss tournament of P.M., issue 12). The client is never
# hand-edited nor committed: it is generated anew on every run into clients/python/generated
# (git-ignored). Exits non-zero on any failure; the last line is the summary.
#
# The generator lives in a venv under ~/.cache/clubroom-ci (reused across runs; its name carries
# the pinned version). Set CLUBROOM_BIN to a built server to skip the cargo build.
. "$(dirname "$0")/lib.sh"

GENERATOR_VERSION=0.29.1
CACHE=${CLUBROOM_CI_CACHE:-$HOME/.cache/clubroom-ci}
VENV=$CACHE/openapi-python-client-$GENERATOR_VERSION
GEN_DIR=$ROOT/clients/python/generated
PKG=clubroom_client

WORK=$(mktemp -d)
cleanup() {
  stop_server
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "ci-client: FAILED: $*"; exit 1; }

echo "== generator: openapi-python-client $GENERATOR_VERSION ($VENV)"
if ! "$VENV/bin/openapi-python-client" --version 2>/dev/null | grep -qF "$GENERATOR_VERSION"; then
  rm -rf "$VENV"
  mkdir -p "$CACHE"
  python3 -m venv "$VENV"
  # The generator pulls httpx and attrs, which the generated client also needs at run time.
  "$VENV/bin/pip" install -q --disable-pip-version-check "openapi-python-client==$GENERATOR_VERSION" \
    || fail "pip could not install openapi-python-client==$GENERATOR_VERSION"
fi

echo "== generating $PKG from openapi/openapi.json into clients/python/generated"
rm -rf "$GEN_DIR"
mkdir -p "$GEN_DIR"
# --meta none: the bare package, no pyproject; ruff (installed with the generator) formats it.
# Any warning means the spec has parts the generator skipped: treat it as a failure.
if ! PATH="$VENV/bin:$PATH" "$VENV/bin/openapi-python-client" generate \
  --path openapi/openapi.json --meta none --output-path "$GEN_DIR/$PKG" > "$WORK/generate.log" 2>&1; then
  cat "$WORK/generate.log"
  fail "the generator refused the spec"
fi
if grep -qiE "warning|error|skipping|unable|not supported" "$WORK/generate.log"; then
  cat "$WORK/generate.log"
  fail "the generator warned about the spec (some of it would be missing from the client)"
fi
MODELS=$(find "$GEN_DIR/$PKG/models" -name '*.py' ! -name '__init__.py' | wc -l)
OPS=$(find "$GEN_DIR/$PKG/api" -name '*.py' ! -name '__init__.py' | wc -l)
echo "generated $OPS operations, $MODELS models"
"$VENV/bin/python" -c "import sys; sys.path.insert(0, '$GEN_DIR'); import $PKG.api.matches.record_action" \
  || fail "the generated client does not import"

BIN=$(debug_bin)
if [ -z "${CLUBROOM_BIN:-}" ]; then
  # A private copy: a shared target dir may be rebuilt by someone else while the server runs.
  cp "$BIN" "$WORK/clubroom"
  BIN=$WORK/clubroom
fi

start_server ci-client "$WORK" || fail "the server did not come up"
echo "== server on $BASE (fresh SQLite $WORK/clubroom.db)"

echo "== play_all.py through the generated client"
START=$(date +%s)
set +e
PYTHONPATH="$GEN_DIR" timeout 300 "$VENV/bin/python" -u clients/python/play_all.py --base-url "$BASE" \
  ${CLIENT_SEED:+--seed "$CLIENT_SEED"} | tee "$WORK/play.log"
RC=${PIPESTATUS[0]}
set -e
ELAPSED=$(( $(date +%s) - START ))
if [ "$RC" -ne 0 ]; then
  echo "-- server log (last 40 lines)"
  tail -n 40 "$WORK/server.log"
  fail "play_all.py exited $RC after ${ELAPSED}s"
fi
echo "== run_tournament.py through the generated client"
set +e
PYTHONPATH="$GEN_DIR" timeout 300 "$VENV/bin/python" -u clients/python/run_tournament.py --base-url "$BASE" \
  ${CLIENT_SEED:+--seed "$CLIENT_SEED"} | tee "$WORK/tournament.log"
RC=${PIPESTATUS[0]}
set -e
ELAPSED=$(( $(date +%s) - START ))
if [ "$RC" -ne 0 ]; then
  echo "-- server log (last 40 lines)"
  tail -n 40 "$WORK/server.log"
  fail "run_tournament.py exited $RC"
fi
echo "ci-client: passed: openapi-python-client $GENERATOR_VERSION generated $OPS operations and $MODELS models; $(grep -c ': finished in ' "$WORK/play.log") full matches and a tournament played through it in ${ELAPSED}s"

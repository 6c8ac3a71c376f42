#!/usr/bin/env bash
# The generated TypeScript client check (issue 23): generates the types of openapi/openapi.json
# with openapi-typescript, type-checks clients/typescript/play.ts against them with `tsc --strict
# --noEmit` (no cast, no `any`: each view narrowed to the game's own model by its `game`), compiles
# it, builds the debug server, starts it on a free port with a fresh SQLite file, and runs the
# compiled player with node: a full match of every game of the catalogue through openapi-fetch,
# each action the very object `legal` returned, then a small quick-log tournament whose
# results.json and bgstats.json are read through their typed models. The generated types are never committed
# (clients/typescript/generated, git-ignored) nor edited.
#
# The npm packages (pinned in clients/typescript/package.json) are installed once into
# ~/.cache/clubroom-npm/ts-<hash of package.json> (CLUBROOM_NPM_CACHE to move it) and linked as
# clients/typescript/node_modules. Set CLUBROOM_BIN to a built server to skip the cargo build.
. "$(dirname "$0")/lib.sh"

TS=$ROOT/clients/typescript
CACHE=${CLUBROOM_NPM_CACHE:-$HOME/.cache/clubroom-npm}
HASH=$(sha256sum "$TS/package.json" | cut -c1-12)
MODULES=$CACHE/ts-$HASH

WORK=$(mktemp -d)
cleanup() {
  stop_server
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "ci-client-ts: FAILED: $*"; exit 1; }

if [ ! -x "$MODULES/node_modules/.bin/tsc" ]; then
  echo "== npm install (pinned) into $MODULES"
  rm -rf "$MODULES"
  mkdir -p "$MODULES"
  cp "$TS/package.json" "$MODULES/"
  (cd "$MODULES" && npm install --no-audit --no-fund --silent --cache "$CACHE/npm-cache") \
    || fail "npm could not install the pinned packages"
fi
ln -sfn "$MODULES/node_modules" "$TS/node_modules"
BINS=$TS/node_modules/.bin

echo "== openapi-typescript $("$BINS/openapi-typescript" --version 2>/dev/null | tail -n1) -> clients/typescript/generated/schema.ts"
rm -rf "$TS/generated" "$TS/build"
mkdir -p "$TS/generated"
"$BINS/openapi-typescript" openapi/openapi.json --default-non-nullable false \
  -o "$TS/generated/schema.ts" > "$WORK/generate.log" 2>&1 || { cat "$WORK/generate.log"; fail "openapi-typescript refused the spec"; }
if grep -qiE "warn|error" "$WORK/generate.log"; then
  cat "$WORK/generate.log"
  fail "openapi-typescript warned about the spec"
fi

echo "== tsc --strict --noEmit ($("$BINS/tsc" --version))"
"$BINS/tsc" -p "$TS" --noEmit || fail "the player does not type-check against the generated types"
"$BINS/tsc" -p "$TS" || fail "tsc could not compile the player"

BIN=$(debug_bin)
if [ -z "${CLUBROOM_BIN:-}" ]; then
  cp "$BIN" "$WORK/clubroom"
  BIN=$WORK/clubroom
fi
start_server ci-client-ts "$WORK" || fail "the server did not come up"
echo "== server on $BASE (fresh SQLite $WORK/clubroom.db)"

echo "== play.ts (compiled) through openapi-fetch"
START=$(date +%s)
set +e
timeout 300 node "$TS/build/play.js" --base-url "$BASE" ${CLIENT_SEED:+--seed "$CLIENT_SEED"} | tee "$WORK/play.log"
RC=${PIPESTATUS[0]}
set -e
ELAPSED=$(( $(date +%s) - START ))
if [ "$RC" -ne 0 ]; then
  echo "-- server log (last 40 lines)"
  tail -n 40 "$WORK/server.log"
  fail "play.js exited $RC after ${ELAPSED}s"
fi
echo "ci-client-ts: passed: $(grep -c ': finished in ' "$WORK/play.log") full matches through the generated TypeScript client in ${ELAPSED}s"

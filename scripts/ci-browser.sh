#!/usr/bin/env bash
# CI: the table page in a real browser. Four phones (headless Chromium at 390x844, driven by
# playwright-core) play a service-dealt Clubs deal live on the page served by a debug build
# (tests/browser/clubs.mjs), then every game in both dealing modes is played for a few taps
# (tests/browser/games.mjs), and a page offers only what is legal at the version it shows, even
# when a legal list comes late or for a later version (tests/browser/versions.mjs), then tournaments: the organiser's page, the public page's live
# standings, a match page's Tournament panel (tests/browser/tournament.mjs), a director's club
# night: result rows, where to sit, the projector view (tests/browser/director.mjs), then what the page
# keeps on a phone, its Forget controls and the security headers (tests/browser/privacy.mjs).
# Then the others (tabletalk, reach, and pictures: Members Only, P.M. and By Hook or Crook in
# words and pictures at three screen sizes). Every page of every test is watched for
# Content-Security-Policy violations (lib.mjs). Then the page as an app on a throttled link:
# repeat-load bytes and paint, manifest, service worker, offline (tests/browser/load.mjs).
# Screenshots go to target/browser-artifacts/ (gitignored).
#
# Installs Debian's chromium if missing (apt-get), playwright-core and axe-core (both pinned) from
# npm into ~/.cache/clubroom-ci/{playwright-core,axe-core}-<version> (outside the repository); the
# accessibility test (tests/browser/a11y.mjs) runs axe-core on the page at three sizes. `npx playwright
# install` (Playwright's own browser download) is not used: the distribution's chromium is.
#
# Usage: scripts/ci-browser.sh
#   CLUBROOM_BIN  a server binary to use instead of `cargo build`'s target/debug/clubroom
#   CHROMIUM      the browser executable (default /usr/bin/chromium)
#   BROWSER_TESTS the tests to run, by name (default: all of tests/browser/*.mjs but lib)
#   BROWSER_LANES how many run at once (default 2; `load` always runs alone, last)
. "$(dirname "$0")/lib.sh"

PW_VERSION=1.65.1
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/clubroom-ci
PW_DIR=$CACHE/playwright-core-$PW_VERSION
AXE_VERSION=4.14.1
AXE_DIR=$CACHE/axe-core-$AXE_VERSION
ARTIFACTS=$ROOT/target/browser-artifacts

if [ ! -x "$CHROMIUM" ]; then
  echo "== installing chromium (apt-get)"
  SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get install -y chromium >/dev/null 2>&1 || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y chromium >/dev/null; }
fi
if [ ! -f "$PW_DIR/node_modules/playwright-core/package.json" ]; then
  echo "== installing playwright-core $PW_VERSION into $PW_DIR"
  mkdir -p "$PW_DIR"
  [ -f "$PW_DIR/package.json" ] || echo '{"private": true}' >"$PW_DIR/package.json"
  (cd "$PW_DIR" && npm install --no-audit --no-fund --silent "playwright-core@$PW_VERSION")
fi

if [ ! -f "$AXE_DIR/node_modules/axe-core/axe.min.js" ]; then
  echo "== installing axe-core $AXE_VERSION into $AXE_DIR"
  mkdir -p "$AXE_DIR"
  [ -f "$AXE_DIR/package.json" ] || echo '{"private": true}' >"$AXE_DIR/package.json"
  (cd "$AXE_DIR" && npm install --no-audit --no-fund --silent "axe-core@$AXE_VERSION")
fi
AXE_JS=$AXE_DIR/node_modules/axe-core/axe.min.js

BIN=$(debug_bin)

WORK=$(mktemp -d -t clubroom-browser.XXXXXX)
cleanup() {
  stop_server
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Two lanes by default (BROWSER_LANES): the tests share one server (each makes its own matches,
# players and tournaments), two run at a time, each taking the next from the list; their output is
# printed whole as each ends. `load` (it measures paint times on a throttled link) runs alone after
# the others. The create quota is raised: two lanes create faster than one table would.
start_server browser "$WORK" CLUBROOM_CREATES_PER_MINUTE=6000 CLUBROOM_CREATE_BURST=6000

rm -rf "$ARTIFACTS"
mkdir -p "$ARTIFACTS"
echo "== headless chromium against $BASE (screenshots in target/browser-artifacts/)"
export BASE PW_DIR CHROMIUM ARTIFACTS AXE_JS WORK
status=0
run_one() {
  local t=$1 started=$SECONDS rc=0
  timeout 600 node "tests/browser/$t.mjs" >"$WORK/$t.out" 2>&1 || rc=$?
  { cat "$WORK/$t.out"; echo "($t: $((SECONDS - started)) s, exit $rc)"; } | flock "$WORK/print.lock" cat
  [ "$rc" -eq 0 ] || touch "$WORK/failed"
}
export -f run_one
TESTS=${BROWSER_TESTS:-pictures scoreonly polish tablefeel games versions director tournament privacy clubs tabletalk reach a11y players player fouls clubnight load}
LANES=${BROWSER_LANES:-2}
rest=$(printf '%s\n' $TESTS | grep -vx load || true)
printf '%s\n' $rest | xargs -r -P "$LANES" -I{} bash -c 'run_one "$1"' _ {}
if printf '%s\n' $TESTS | grep -qx load; then run_one load; fi
[ -e "$WORK/failed" ] && status=1
if grep -q panicked "$WORK/server.log"; then
  echo "FAIL the server panicked"; grep -m3 -A5 panicked "$WORK/server.log"; status=1
fi
ok=$(cat "$WORK"/*.out | grep -c '^ok ' || true)
bad=$(cat "$WORK"/*.out | grep -c '^FAIL ' || true)
[ "$status" -ne 0 ] && [ "$bad" -eq 0 ] && bad=1 # a script that died before its checks
echo "browser: $ok passed, $bad failed"
exit "$status"

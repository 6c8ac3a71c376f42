#!/usr/bin/env bash
# Lints the checked-in spec (openapi/openapi.json) with Spectral (the `spectral:oas` ruleset) and
# Redocly (`redocly lint`, its `recommended` rules), as an integrator's tooling would (issue 23):
# any error fails; the warnings are counted and shown. Both tools are pinned below and installed
# once with npm into ~/.cache/clubroom-npm/lint-<versions> (CLUBROOM_NPM_CACHE to move it),
# never into the repository. Needs node >= 20.19 and npm.
. "$(dirname "$0")/lib.sh"

SPECTRAL_VERSION=6.16.3
REDOCLY_VERSION=2.77.0
CACHE=${CLUBROOM_NPM_CACHE:-$HOME/.cache/clubroom-npm}
TOOLS=$CACHE/lint-spectral-$SPECTRAL_VERSION-redocly-$REDOCLY_VERSION
SPEC=$ROOT/openapi/openapi.json
fail() { echo "ci-spec-lint: FAILED: $*"; exit 1; }

if [ ! -x "$TOOLS/node_modules/.bin/spectral" ] || [ ! -x "$TOOLS/node_modules/.bin/redocly" ]; then
  echo "== npm install @stoplight/spectral-cli@$SPECTRAL_VERSION @redocly/cli@$REDOCLY_VERSION into $TOOLS"
  rm -rf "$TOOLS"
  mkdir -p "$TOOLS"
  (cd "$TOOLS" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent --cache "$CACHE/npm-cache" \
    "@stoplight/spectral-cli@$SPECTRAL_VERSION" "@redocly/cli@$REDOCLY_VERSION") \
    || fail "npm could not install the linters"
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# Both run from an empty directory: no stray config file of the checkout changes their rules.
printf 'extends: ["spectral:oas"]\n' > "$WORK/.spectral.yaml"

echo "== spectral lint (spectral:oas) $SPECTRAL_VERSION"
(cd "$WORK" && "$TOOLS/node_modules/.bin/spectral" lint --ruleset .spectral.yaml -f json -o spectral.json "$SPEC" >/dev/null 2>&1) || true
[ -s "$WORK/spectral.json" ] || fail "spectral wrote no report"
read -r S_ERRORS S_WARNINGS < <(python3 - "$WORK/spectral.json" <<'PY'
import json, sys
rs = json.load(open(sys.argv[1]))
for r in rs:
    level = {0: "error", 1: "warning"}.get(r["severity"], "info")
    print(f"  spectral {level}: {r['code']} at {'/'.join(map(str, r['path']))}: {r['message'][:160]}", file=sys.stderr)
print(sum(r["severity"] == 0 for r in rs), sum(r["severity"] == 1 for r in rs))
PY
)

echo "== redocly lint (recommended) $REDOCLY_VERSION"
(cd "$WORK" && REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
  "$TOOLS/node_modules/.bin/redocly" lint "$SPEC" --format=json > redocly.json 2> redocly.log) || true
[ -s "$WORK/redocly.json" ] || { cat "$WORK/redocly.log"; fail "redocly wrote no report"; }
read -r R_ERRORS R_WARNINGS < <(python3 - "$WORK/redocly.json" <<'PY'
import json, sys
problems = json.load(open(sys.argv[1]))["problems"]
for p in problems:
    where = p["location"][0]["pointer"] if p.get("location") else ""
    print(f"  redocly {p['severity']}: {p['ruleId']} at {where}: {p['message'][:160]}", file=sys.stderr)
print(sum(p["severity"] == "error" for p in problems), sum(p["severity"] == "warn" for p in problems))
PY
)

echo "ci-spec-lint: spectral $S_ERRORS errors, $S_WARNINGS warnings; redocly $R_ERRORS errors, $R_WARNINGS warnings"
[ "$S_ERRORS" = 0 ] && [ "$R_ERRORS" = 0 ] || fail "the spec has lint errors"
echo "ci-spec-lint: passed"

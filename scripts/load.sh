#!/usr/bin/env bash
# HTTP load: builds the release server, starts it on a fresh SQLite file and drives
# POST /v1/matches/{id}/actions across N concurrent matches with wrk, printing actions/s, p50, p99.
# Usage: scripts/load.sh [matches=64] [seconds=15]
. "$(dirname "$0")/lib.sh"
MATCHES=${1:-64}
SECONDS_=${2:-15}
PORT=${PORT:-18181}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
cargo build --release -q
WORK=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
CLUBROOM_CREATES_PER_MINUTE=0 CLUBROOM_OPERATOR_TOKEN=load-operator DATABASE_URL="sqlite://$WORK/load.db?mode=rwc" RUST_LOG=warn ./target/release/clubroom serve --bind 127.0.0.1:$PORT &
SERVER=$!
wait_healthy "http://127.0.0.1:$PORT" "$SERVER" 50 0.1 || { echo "load: the server did not start" >&2; exit 1; }

# N two-player Dump matches with a target no load run reaches; each action is a whole-deal tally
# (a real action through the full path: token check, cache, rules, append).
: > "$WORK/matches.txt"
for _ in $(seq 1 "$MATCHES"); do
  curl -sf -XPOST "http://127.0.0.1:$PORT/v1/matches" -H 'content-type: application/json' \
    -d '{"game":"dump","players":[{"name":"A"},{"name":"B"}],"config":{"target":100000}}' |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["match"]["id"], d["host_token"])' >> "$WORK/matches.txt"
done

cat > "$WORK/actions.lua" <<LUA
local matches = {}
for line in io.lines("$WORK/matches.txt") do
  local id, token = line:match("(%S+) (%S+)")
  table.insert(matches, {id = id, token = token})
end
local counter = 0
request = function()
  counter = counter + 1
  local m = matches[(counter % #matches) + 1]
  return wrk.format("POST", "/v1/matches/" .. m.id .. "/actions",
    {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. m.token},
    '{"seat":null,"action":{"type":"tally","points":[100,60]}}')
end
local non2xx = 0
response = function(status, headers, body)
  if status ~= 201 then non2xx = non2xx + 1 end
end
done = function(summary, latency, requests)
  io.write(string.format("actions/s: %.0f\np50: %.2f ms\np99: %.2f ms\nrequests: %d, errors: %d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, summary.requests, summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
LUA
echo "== $MATCHES concurrent matches, ${SECONDS_}s, one connection per match (2 wrk threads)"
wrk -t2 -c"$MATCHES" -d"${SECONDS_}s" -s "$WORK/actions.lua" "http://127.0.0.1:$PORT" | tail -n 5
EVENTS=$(curl -sf -H "Authorization: Bearer load-operator" "http://127.0.0.1:$PORT/v1/matches?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["matches"][0]["seq"])')
echo "last match's recorded events: $EVENTS"

#!/usr/bin/env bash
# The club at national size (issue 24, part 5): on a fresh PostgreSQL database, PLAYERS registered
# players, TOURNAMENTS tournaments and MATCHES finished heads-up Dump matches, each with its club
# result, inserted in bulk by SQL (generate_series, into the service's own schema: players,
# matches with their events and seats, club results and their players' lines), their club
# ratings then computed by the service's own replay (`clubroom club-replay`: every result in the
# order it finished, as the server would have rated them one by one); then, through the running
# server, a SWISS-player Swiss tournament of SWISS_ROUNDS rounds among the first players (paired and
# entered over HTTP, each result rated as it is entered). Then it measures, over HTTP with one
# keep-alive connection, REQUESTS sequential requests each (after a warm-up) of
#   GET /v1/players/{id}/stats            (a random player, every request)
#   GET /v1/games/dump/leaderboard         (the first page, 20 rows)
#   GET /v1/tournaments/{swiss}/standings
# and prints p50 / p99 / max against the issue's targets (50 ms p99 for the first two, 100 ms for
# the standings), exiting non-zero when a target is missed.
#
# The server is a RELEASE build made here (`cargo build --release`), unless CLUBROOM_BIN names
# another binary (a debug one makes a quick check of the script at a small size, not a measure).
#
# Usage: scripts/club-scale.sh          (PLAYERS=10000 TOURNAMENTS=1000 MATCHES=100000 SWISS=512
#                                        SWISS_ROUNDS=9 REQUESTS=1000)
#   PLAYERS=200 TOURNAMENTS=20 MATCHES=2000 SWISS=16 SWISS_ROUNDS=4 REQUESTS=100 \
#     CLUBROOM_BIN=target/debug/clubroom scripts/club-scale.sh     (a check of the script)
#   PG_URL  the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres); a
#           database clubroom_scale_<random> is made on it and dropped at the end (KEEP_DB=1 keeps it)
. "$(dirname "$0")/lib.sh"
PLAYERS=${PLAYERS:-10000}
TOURNAMENTS=${TOURNAMENTS:-1000}
MATCHES=${MATCHES:-100000}
SWISS=${SWISS:-512}
SWISS_ROUNDS=${SWISS_ROUNDS:-9}
REQUESTS=${REQUESTS:-1000}
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
[ "$SWISS" -le "$PLAYERS" ] || { echo "SWISS ($SWISS) must not exceed PLAYERS ($PLAYERS)"; exit 2; }

if [ -n "${CLUBROOM_BIN:-}" ]; then
  BIN=$CLUBROOM_BIN
  echo "== using $BIN (not a release build: these figures are not the measure)"
else
  echo "== cargo build --release"
  cargo build --release --bin clubroom -q
  BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/clubroom
fi

DB=clubroom_scale_$(python3 -c 'import secrets; print(secrets.token_hex(4))')
ADMIN_URL=$PG_URL
DB_URL=${PG_URL%/*}/$DB
WORK=$(mktemp -d -t clubroom-club-scale.XXXXXX)
cleanup() {
  stop_server
  if [ -z "${KEEP_DB:-}" ]; then psql -q "$ADMIN_URL" -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
  else echo "database kept: $DB_URL"; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

psql -q "$ADMIN_URL" -c "CREATE DATABASE $DB" >/dev/null
"$BIN" migrate --database-url "$DB_URL" >/dev/null

# The server on the scale database (lib.sh's start_server makes a SQLite file: this is its twin).
serve() {
  local port
  port=$(free_port)
  RUST_LOG=warn CLUBROOM_CREATES_PER_MINUTE=100000 CLUBROOM_CREATE_BURST=100000 \
    "$BIN" serve --bind "127.0.0.1:$port" --database-url "$DB_URL" >>"$WORK/server.log" 2>&1 &
  SERVER_PID=$!
  wait_healthy "http://127.0.0.1:$port" "$SERVER_PID" 300 || { cat "$WORK/server.log"; exit 1; }
  BASE=http://127.0.0.1:$port
}

# Two finished score-only heads-up Dump matches made by the server (seat 0 wins 15–0; seat 1
# wins 20–0): the bulk matches copy their config and events, so that any of them read over the
# API replays to the finished state its club result says.
serve
template() {
  python3 - "$BASE" "$1" <<'EOF'
import json, sys, urllib.request
base, points = sys.argv[1], json.loads(sys.argv[2])
def call(method, path, body=None, token=None):
    req = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(req) as r:
        return json.load(r)
m = call("POST", "/v1/matches", {"game": "dump", "players": [{"name": "A"}, {"name": "B"}], "config": {"scores_only": True, "target": 10}})
r = call("POST", f"/v1/matches/{m['match']['id']}/actions", {"seat": None, "action": {"type": "tally", "points": points}}, m["host_token"])
assert r["match"]["status"] == "finished", r
print(m["match"]["id"])
EOF
}
T0=$(template '[95, 65]')
T1=$(template '[60, 100]')
stop_server

echo "== bulk insert: $PLAYERS players, $TOURNAMENTS tournaments, $MATCHES matches"
started=$SECONDS
psql -q -v ON_ERROR_STOP=1 "$DB_URL" \
  -v players="$PLAYERS" -v tournaments="$TOURNAMENTS" -v matches="$MATCHES" -v t0="$T0" -v t1="$T1" <<'EOF'
SELECT setseed(0.24) AS seeded \gset
-- Players: ids are 32 hex digits as the service makes them.
INSERT INTO players (id, name, name_key, created_at)
  SELECT md5('player:' || i), 'Player ' || i, 'player ' || i, '2026-01-01T00:00:00Z'
  FROM generate_series(1, :players) AS i;
-- Each match: two different random players; seat 0 or seat 1 wins (copying template t0 or t1).
CREATE TEMP TABLE gen AS
  SELECT i, md5('match:' || i) AS id, a, 1 + ((a - 1 + 1 + floor(random() * (:players - 1))::int) % :players) AS b,
         (random() < 0.5)::int AS t,
         to_char(timestamp '2026-01-01' + i * interval '1 minute', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at
  FROM (SELECT i, 1 + floor(random() * :players)::int AS a FROM generate_series(1, :matches) AS i) AS s;
INSERT INTO matches (id, game, players, config, dealing, status, created_at, player_ids, unrated)
  SELECT g.id, 'dump', json_build_array('Player ' || g.a, 'Player ' || g.b)::text, tm.config, tm.dealing, 'finished', g.at,
         json_build_array(md5('player:' || g.a), md5('player:' || g.b))::text, 0
  FROM gen g JOIN matches tm ON tm.id = CASE g.t WHEN 0 THEN :'t0' ELSE :'t1' END
  ORDER BY g.i;
INSERT INTO events (match_id, seq, kind, seat, action, seed, retracts, round, outcome, created_at)
  SELECT g.id, e.seq, e.kind, e.seat, e.action, e.seed, e.retracts, e.round, e.outcome, g.at
  FROM gen g JOIN events e ON e.match_id = CASE g.t WHEN 0 THEN :'t0' ELSE :'t1' END;
INSERT INTO match_players (player_id, match_num, seat)
  SELECT md5('player:' || g.a), m.num, 0 FROM gen g JOIN matches m ON m.id = g.id
  UNION ALL SELECT md5('player:' || g.b), m.num, 1 FROM gen g JOIN matches m ON m.id = g.id;
-- Their club results, in the order they finished (num follows i).
INSERT INTO club_results (source, game, rated, match_id, tournament, units, finished_at)
  SELECT 'match:' || g.id, 'dump', 1, g.id, NULL,
         json_build_array(json_build_object('players', json_build_array(md5('player:' || g.a)), 'total', CASE g.t WHEN 0 THEN 15 ELSE 0 END),
                          json_build_object('players', json_build_array(md5('player:' || g.b)), 'total', CASE g.t WHEN 0 THEN 0 ELSE 20 END))::text,
         g.at
  FROM gen g ORDER BY g.i;
INSERT INTO club_result_players (result_num, player_id, game, unit, total, place, won)
  SELECT r.num, md5('player:' || g.a), 'dump', 0, CASE g.t WHEN 0 THEN 15 ELSE 0 END, 1 + g.t, 1 - g.t
  FROM gen g JOIN club_results r ON r.source = 'match:' || g.id
  UNION ALL
  SELECT r.num, md5('player:' || g.b), 'dump', 1, CASE g.t WHEN 0 THEN 0 ELSE 20 END, 2 - g.t, g.t
  FROM gen g JOIN club_results r ON r.source = 'match:' || g.id;
EOF
echo "   ($((SECONDS - started)) s)"

# Tournaments: the server creates one (8 entrants, one round entered), the bulk copies it.
serve
python3 - "$BASE" "$TOURNAMENTS" >"$WORK/template-tournament" <<'EOF'
import json, sys, urllib.request
base = sys.argv[1]
def call(method, path, body=None, token=None):
    req = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(req) as r:
        return json.load(r)
t = call("POST", "/v1/tournaments", {"name": "Club night", "game": "dump", "format": "swiss", "rounds": 3, "table_size": 2,
                                     "record": "totals", "players": [{"name": f"Guest {i}"} for i in range(8)]})
print(t["tournament"]["id"])
EOF
stop_server
started=$SECONDS
psql -q -v ON_ERROR_STOP=1 "$DB_URL" -v tournaments="$TOURNAMENTS" -v tt="$(cat "$WORK/template-tournament")" <<'EOF'
INSERT INTO tournaments (id, organiser_hash, created_at, game)
  SELECT md5('tournament:' || i), t.organiser_hash, t.created_at, t.game
  FROM tournaments t, generate_series(2, :tournaments) AS i WHERE t.id = :'tt';
INSERT INTO tournament_specs (tournament_id, spec)
  SELECT md5('tournament:' || i), s.spec
  FROM tournament_specs s, generate_series(2, :tournaments) AS i WHERE s.tournament_id = :'tt';
INSERT INTO tournament_entrants (player_id, tournament_num)
  SELECT e.player_id, t.num FROM tournament_entrants e JOIN tournaments tt ON tt.num = e.tournament_num AND tt.id = :'tt',
         tournaments t WHERE t.id <> :'tt';
ANALYZE;
EOF
echo "   tournaments copied ($((SECONDS - started)) s)"

echo "== club ratings: the service's replay of every result in order"
started=$SECONDS
"$BIN" club-replay --database-url "$DB_URL"
psql -q "$DB_URL" -c ANALYZE
echo "   ($((SECONDS - started)) s)"

serve
echo "== a $SWISS-player Swiss of $SWISS_ROUNDS rounds over HTTP, then the measures ($REQUESTS requests each)"
python3 - "$BASE" "$SWISS" "$SWISS_ROUNDS" "$PLAYERS" "$REQUESTS" <<'EOF'
import hashlib, http.client, json, random, sys, time, urllib.parse
base, swiss, rounds, players, requests = sys.argv[1], *map(int, sys.argv[2:])
u = urllib.parse.urlparse(base)
conn = http.client.HTTPConnection(u.hostname, u.port)
def call(method, path, body=None, token=None):
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    r = conn.getresponse()
    data = r.read()
    if r.status >= 300:
        raise SystemExit(f"{method} {path}: {r.status} {data[:300]!r}")
    return json.loads(data)
pid = lambda i: hashlib.md5(f"player:{i}".encode()).hexdigest()
rng = random.Random(24)
started = time.time()
t = call("POST", "/v1/tournaments", {"name": "National open", "game": "dump", "format": "swiss", "rounds": rounds,
                                     "table_size": 2, "record": "totals",
                                     "players": [{"name": f"Player {i}", "player_id": pid(i)} for i in range(1, swiss + 1)]})
tid, org = t["tournament"]["id"], t["organiser_token"]
wins = ([[40, 0], [0, 20], [70, 0]], [[0, 40], [20, 0], [0, 70]])
for r in range(1, rounds + 1):
    rv = call("POST", f"/v1/tournaments/{tid}/rounds", {}, org)
    for table in rv["tables"]:
        call("PUT", f"/v1/tournaments/{tid}/rounds/{r}/tables/{table['table']}/result", {"deals": wins[rng.random() < 0.5]}, org)
st = call("GET", f"/v1/tournaments/{tid}/standings")
assert len(st["rows"]) == swiss, len(st["rows"])
assert all(row["played"] + row.get("byes", 0) == rounds for row in st["rows"]), "every entrant played every round"
print(f"   the Swiss: {swiss} players, {rounds} rounds paired and entered in {time.time() - started:.1f} s")
# A bulk match reads over the API as finished, with the totals its club result holds.
m = call("GET", "/v1/matches/" + hashlib.md5(b"match:1").hexdigest())
assert m["status"] == "finished" and sorted(m["scores"]["totals"]) in ([0, 15], [0, 20]), m["scores"]
board = call("GET", "/v1/games/dump/leaderboard?limit=20")
print(f"   the dump leaderboard: {board['total']} rated players, best {board['rows'][0]['rating']}")

def measure(label, paths, target_ms):
    for p in paths[:20]:
        call("GET", p)  # warm-up
    times = []
    for p in paths:
        t0 = time.perf_counter()
        call("GET", p)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    q = lambda f: times[min(len(times) - 1, int(round(f * (len(times) - 1))))]
    ok = q(0.99) < target_ms
    print(f"{label:<44} n={len(times):>5}  p50 {q(0.5):7.2f} ms  p99 {q(0.99):7.2f} ms  max {times[-1]:7.2f} ms  "
          f"(target p99 < {target_ms} ms: {'met' if ok else 'MISSED'})")
    return ok
results = [
    measure("GET /v1/players/{id}/stats", [f"/v1/players/{pid(rng.randint(1, players))}/stats" for _ in range(requests)], 50),
    measure("GET /v1/games/dump/leaderboard", ["/v1/games/dump/leaderboard"] * requests, 50),
    measure(f"GET /v1/tournaments/{{id}}/standings ({swiss}, {rounds} r)", [f"/v1/tournaments/{tid}/standings"] * requests, 100),
]
sys.exit(0 if all(results) else 1)
EOF

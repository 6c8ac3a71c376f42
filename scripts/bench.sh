#!/usr/bin/env bash
# The cost of a write (issue 3, item 6). Builds release, then, in one run on this machine:
#
#  1. Writes. Clubroom (`clubroom serve`) and the bare baseline (`append_baseline`: actix-web in
#     front of the append transaction alone, through the same Store and SQLite settings), each on
#     a fresh SQLite file of its own, are driven by the same wrk Lua script with the same bodies:
#     POST /v1/matches/{id}/actions across 16 and 64 concurrent matches, one connection per match
#     (one wrk thread per connection, so each connection plays its match's actions in order). Each
#     connection replays a legal 82-action cycle of two-player table-dealt Dump (deal, 40 cards,
#     deal, 40 cards), so every Clubroom request takes the whole path: token, cache, rules, the
#     rendered answer, the append. A second baseline, `append_baseline --one-statement`, is the
#     fairest we can write (issue 25): one autocommit `INSERT … SELECT COALESCE(MAX(seq),0)+1 …
#     RETURNING seq` per append through sqlx's native driver (on PostgreSQL a pool of 64
#     connections). A third, `append_baseline --no-database`, is the ceiling: the same actix-web
#     answering from memory with no database at all, the most writes/s any server can answer to
#     this client on this machine; the summary prints it as a multiple of the target's baseline,
#     and a target above that multiple is beyond the machine, whatever the code. The servers are
#     measured in turn, BENCH_ROUNDS times, each wrk run on freshly created matches; the medians
#     are reported with Clubroom's ratio to each baseline. Each run also reads, from /proc, the CPU
#     time each process spent per write: the server's, the database's (PostgreSQL's processes when
#     the server is on this machine; SQLite runs inside the server) and wrk's; the summary prints
#     their medians and how much CPU per write the target leaves on this machine's cores.
#  2. Reads. GET /v1/matches/{id} of a match with 10 events and of one with BENCH_LONG_EVENTS
#     (10,000) events whose view is the same (tally/undo pairs, then the same 10 events): the cost
#     must not grow with the log. For scale, also a match of BENCH_SHEET_ROUNDS (1,000) tallies,
#     whose view carries a 1,000-line score sheet: what grows there is the answer (every deal's
#     line is in the view, API.md), not the work of finding the state.
#
# Usage: scripts/bench.sh            (about 4 minutes; run it on an otherwise quiet machine)
# Settings (environment): BENCH_PROFILE=release (or debug), BENCH_SECONDS=10 per write run,
# BENCH_ROUNDS=3, BENCH_CONCURRENCY="16 64", BENCH_READ_SECONDS=5, BENCH_LONG_EVENTS=10000,
# BENCH_SHEET_ROUNDS=1000; BENCH_CLUBROOM_BIN=path benches another build of clubroom (e.g. an
# older commit's) against this baseline. Artifacts go to $CARGO_TARGET_DIR (default target/).
# Backend: fresh SQLite files by default; DATABASE_URL=postgres://user@host:port/db runs the same
# on that PostgreSQL server, each server on a fresh database of its own (created through that URL
# and dropped at exit). Targets (issue 25): Clubroom >= 5.0x the four-round-trip baseline's
# throughput on SQLite, >= 3.0x the one-statement baseline's on PostgreSQL (BENCH_TARGET
# overrides), with a p99 no worse; the summary prints both ratios at each concurrency. Exits non-zero if any request failed; BENCH_STRICT=1 also fails
# when a target is missed.
# CI smoke run (debug build, about a minute; checks that every request of both scripts succeeds,
# the figures mean nothing):
#   BENCH_PROFILE=debug BENCH_SECONDS=2 BENCH_ROUNDS=1 BENCH_READ_SECONDS=1 BENCH_LONG_EVENTS=200 \
#   BENCH_SHEET_ROUNDS=50 scripts/bench.sh
. "$(dirname "$0")/lib.sh"
SECS=${BENCH_SECONDS:-10}
ROUNDS=${BENCH_ROUNDS:-3}
CONCURRENCY=${BENCH_CONCURRENCY:-"16 64"}
READ_SECS=${BENCH_READ_SECONDS:-5}
LONG=${BENCH_LONG_EVENTS:-10000}
SHEET=${BENCH_SHEET_ROUNDS:-1000}

PROFILE=${BENCH_PROFILE:-release}
# The backend: SQLite files by default; DATABASE_URL=postgres://user@host:port/db benches on that
# PostgreSQL server instead (each server on a database of its own, created and dropped here).
BASE_URL=${DATABASE_URL:-}
case "$BASE_URL" in
  postgres:* | postgresql:*) BACKEND=postgres; TARGET=${BENCH_TARGET:-3.0}; TARGET_OF=baseline1 ;;
  "" | sqlite:*) BACKEND=sqlite; TARGET=${BENCH_TARGET:-5.0}; TARGET_OF=baseline ;;
  *) echo "bench: DATABASE_URL must be sqlite:... or postgres:..." >&2; exit 2 ;;
esac
unset DATABASE_URL

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
echo "== building $PROFILE (clubroom, append_baseline)"
# BENCH_CARGO_ARGS: extra cargo build arguments (words split on spaces), e.g. a --config.
# shellcheck disable=SC2086
if [ "$PROFILE" = release ]; then
  cargo build --release --bins -q ${BENCH_CARGO_ARGS:-}
else
  cargo build --bins -q ${BENCH_CARGO_ARGS:-}
fi
BIN="${CARGO_TARGET_DIR:-target}/$PROFILE"

WORK=$(mktemp -d)
PIDS=()
declare -A PID_OF
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  # fresh_database runs in a command substitution (a subshell), so it cannot note its databases
  # in a variable of this shell: they are found by their names, which end in this run's pid.
  if [ "$BACKEND" != sqlite ]; then
    for db in $(psql -At "$BASE_URL" -c "SELECT datname FROM pg_database WHERE datname LIKE 'clubroom\_bench\_%\_$$'" 2>/dev/null); do
      psql -q "$BASE_URL" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
    done
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# fresh_database NAME: the URL of an empty database for one server. SQLite (the default): a new
# file. With DATABASE_URL=postgres://...: a new database on that server (CREATE DATABASE through
# the URL's own database), dropped again on exit.
fresh_database() {
  if [ "$BACKEND" = sqlite ]; then
    echo "sqlite://$WORK/$1.db?mode=rwc"
    return
  fi
  local db
  db="clubroom_bench_$1_$$"
  psql -q "$BASE_URL" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
  python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$BASE_URL" "$db"
}

# start NAME COMMAND...: runs a server in the background on a fresh database (not in a subshell,
# so that cleanup knows its pid), waits until it answers and sets URL.
start() {
  local name=$1 port db
  shift
  port=$(free_port)
  db=$(fresh_database "$name")
  DATABASE_URL="$db" RUST_LOG=warn "$@" --bind "127.0.0.1:$port" \
    >"$WORK/$name.log" 2>&1 &
  PIDS+=($!)
  PID_OF[$name]=$!
  URL="http://127.0.0.1:$port"
  for _ in $(seq 1 100); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/" || true)" != 000 ] && return 0
    sleep 0.1
  done
  echo "bench: $name did not start within 10 s:" >&2
  cat "$WORK/$name.log" >&2
  exit 1
}
# One client creates a match per connection and run: no create limit (it is not what is timed).
start clubroom env CLUBROOM_CREATES_PER_MINUTE=0 "${BENCH_CLUBROOM_BIN:-$BIN/clubroom}" serve
CLUBROOM=$URL
start baseline "$BIN/append_baseline"
BASELINE=$URL
start baseline1 "$BIN/append_baseline" --one-statement
BASELINE1=$URL
start ceiling "$BIN/append_baseline" --no-database
CEILING=$URL
echo "baseline1 (one statement): $BASELINE1   ceiling (no database): $CEILING"
if [ "$BACKEND" = sqlite ]; then
  echo "clubroom: $CLUBROOM   baseline: $BASELINE   databases: fresh SQLite files (WAL, synchronous=FULL)"
else
  echo "clubroom: $CLUBROOM   baseline: $BASELINE   databases: a fresh PostgreSQL database each on $BASE_URL's server"
fi

# The write script: each wrk thread owns one connection and one match (given by setup from the
# file named by BENCH_MATCHES) and cycles through the same 82 bodies in order.
cat >"$WORK/write.lua" <<'LUA'
local matches, threads = {}, {}
for line in io.lines(os.getenv("BENCH_MATCHES")) do
  local id, token = line:match("(%S+) (%S+)")
  table.insert(matches, {id = id, token = token})
end

function setup(thread)
  local m = matches[#threads + 1]
  thread:set("match_id", m.id)
  thread:set("token", m.token)
  table.insert(threads, thread)
end

function init(args)
  bodies = {}
  local pairs_ = {{"3", "2"}, {"8", "7"}, {"T", "9"}, {"Q", "J"}, {"A", "K"}}
  for _, leader in ipairs({1, 0}) do
    table.insert(bodies, '{"seat":null,"action":{"type":"deal"}}')
    for _, suit in ipairs({"S", "H", "D", "C"}) do
      for _, p in ipairs(pairs_) do
        table.insert(bodies, string.format('{"seat":%d,"action":{"type":"play","card":"%s%s"}}', leader, p[1], suit))
        table.insert(bodies, string.format('{"seat":%d,"action":{"type":"play","card":"%s%s"}}', 1 - leader, p[2], suit))
      end
    end
  end
  path = "/v1/matches/" .. match_id .. "/actions"
  headers = {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token}
  local prefer = os.getenv("BENCH_PREFER") or ""
  if prefer ~= "" then headers["Prefer"] = prefer end
  n, failed, first_failure = 0, 0, ""
end

-- The cycle advances on each answer, not in request(): wrk calls request() once more on its first
-- thread to inspect the request, which must not skip an action.
function request()
  return wrk.format("POST", path, headers, bodies[n % #bodies + 1])
end

function response(status, hdrs, body)
  n = n + 1
  -- 201 with the whole match; 200 with `Prefer: return=minimal`.
  if status ~= 201 and status ~= 200 then
    failed = failed + 1
    if first_failure == "" then first_failure = status .. " " .. body:sub(1, 200) end
  end
end

function done(summary, latency, requests)
  local failed_total, first = 0, ""
  for _, t in ipairs(threads) do
    failed_total = failed_total + t:get("failed")
    if first == "" then first = t:get("first_failure") end
  end
  local e = summary.errors
  io.write(string.format("RESULT %.1f %.2f %.2f %d %d\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.requests,
    failed_total + e.connect + e.read + e.write + e.timeout))
  if first ~= "" then io.write("FIRST_FAILURE " .. first .. "\n") end
end
LUA

cat >"$WORK/read.lua" <<'LUA'
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %.1f %.2f %.2f %d %d\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.requests,
    e.status + e.connect + e.read + e.write + e.timeout))
end
LUA

# Where a write's CPU goes, per process (issue 25: "say where the time goes"): clock ticks of
# user + system time, read from /proc before and after each run. ticks PID...: "pid ticks" lines.
TICK_US=$((1000000 / $(getconf CLK_TCK)))
ticks() {
  local p
  for p in "$@"; do
    awk -v p="$p" '{print p, $14 + $15}' "/proc/$p/stat" 2>/dev/null || true
  done
}
# spent BEFORE AFTER: the ticks spent between two `ticks` readings, process by process (one
# started in between counts whole; one ended in between is lost, as its pid cannot be read).
spent() {
  awk 'NR == FNR { t0[$1] = $2; next } { s += $2 - ($1 in t0 ? t0[$1] : 0) } END { print s + 0 }' \
    <(echo "$1") <(echo "$2")
}
# The database's processes: on PostgreSQL, every process of the server's user when the server is
# on this machine (its backends, WAL writer, checkpointer...); none on SQLite, which runs inside
# the server's own process (its cost is in the server's figure) or on a remote server (unknown).
db_pids() {
  if [ "$BACKEND" = postgres ] && [ -n "$PG_LOCAL" ]; then pgrep -u "$PG_LOCAL" || true; fi
}
PG_LOCAL=
if [ "$BACKEND" = postgres ]; then
  case "$(python3 -c 'import sys, urllib.parse as u; print(u.urlsplit(sys.argv[1]).hostname or "")' "$BASE_URL")" in
    "" | 127.0.0.1 | localhost | ::1) PG_LOCAL=$(ps -o user= -p "$(pgrep -o -x postgres || pgrep -o postgres)" 2>/dev/null | tr -d ' ' || true) ;;
  esac
fi

# write_run NAME URL CONNECTIONS ROUND: one wrk run on fresh matches; appends to results.tsv:
# concurrency, name, round, req/s, p50, p99, failed, then CPU per write in microseconds of the
# server process, of the database's processes ("-": not measurable) and of wrk.
write_run() {
  local name=$1 url=$2 c=$3 round=$4 out pid=${PID_OF[$1]} s0 s1 d0 d1 w0 w1 n server db client
  python3 scripts/bench_client.py create "$url" "$c" "$WORK/matches.txt"
  # shellcheck disable=SC2046
  s0=$(ticks "$pid"); d0=$(ticks $(db_pids))
  w0=$(awk '{print $16 + $17}' /proc/$$/stat)
  out=$(BENCH_MATCHES="$WORK/matches.txt" wrk -t"$c" -c"$c" -d"${SECS}s" --timeout 10s \
    -s "$WORK/write.lua" "$url")
  # wrk's first: the readings below run processes of this shell's own, which would count as its.
  w1=$(awk '{print $16 + $17}' /proc/$$/stat)
  # shellcheck disable=SC2046
  s1=$(ticks "$pid"); d1=$(ticks $(db_pids))
  echo "$out" | grep FIRST_FAILURE || true
  # shellcheck disable=SC2086
  set -- $(echo "$out" | grep '^RESULT')
  # Per write: the run's ticks over its requests (the children's ticks of this shell between w0
  # and w1 are wrk's: the set-up client and the readings of s0 and d0 ended before w0 was read).
  n=${5:-0}
  n=$((n > 0 ? n : 1))
  server=$(( $(spent "$s0" "$s1") * TICK_US / n ))
  client=$(( (w1 - w0) * TICK_US / n ))
  db=-
  if [ -n "$PG_LOCAL" ] && [ "$name" != ceiling ]; then db=$(( $(spent "$d0" "$d1") * TICK_US / n )); fi
  if [ "$BACKEND" = sqlite ] || [ "$name" = ceiling ]; then db=0; fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$name" "$round" "$2" "$3" "$4" "$6" \
    "$server" "$db" "$client" >>"$WORK/results.tsv"
  printf '  %-9s c=%-3s round %s: %8.0f req/s  p50 %7.2f ms  p99 %7.2f ms  failed %s  CPU/write: server %s us, database %s us, wrk %s us\n' \
    "$name" "$c" "$round" "$2" "$3" "$4" "$6" "$server" "$db" "$client"
}

echo "== writes: POST /v1/matches/{id}/actions, ${SECS}s per run, $ROUNDS round(s), servers alternating"
: >"$WORK/results.tsv"
for round in $(seq 1 "$ROUNDS"); do
  for c in $CONCURRENCY; do
    write_run baseline "$BASELINE" "$c" "$round"
    write_run baseline1 "$BASELINE1" "$c" "$round"
    write_run ceiling "$CEILING" "$c" "$round"
    write_run clubroom "$CLUBROOM" "$c" "$round"
  done
done

echo "== reads: GET /v1/matches/{id} on Clubroom, ${READ_SECS}s per run, 2 threads, 8 connections, matches alternating (order reversed every other round)"
# label<TAB>id<TAB>view bytes, one line per read target
{
  printf '10 events\t%s\t%s\n' $(python3 scripts/bench_client.py short "$CLUBROOM")
  printf '%s events, same view\t%s\t%s\n' "$LONG" $(python3 scripts/bench_client.py long "$CLUBROOM" "$LONG")
  printf '%s tallies, %s-line sheet\t%s\t%s\n' "$SHEET" "$SHEET" $(python3 scripts/bench_client.py tallies "$CLUBROOM" "$SHEET")
} >"$WORK/targets.tsv"
: >"$WORK/reads.tsv"
for round in $(seq 1 "$ROUNDS"); do
  while IFS=$'\t' read -r label id bytes; do
    out=$(wrk -t2 -c8 -d"${READ_SECS}s" --timeout 10s -s "$WORK/read.lua" "$CLUBROOM/v1/matches/$id" </dev/null)
    # shellcheck disable=SC2086
    set -- $(echo "$out" | grep '^RESULT')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$bytes" "$2" "$3" "$4" "$6" >>"$WORK/reads.tsv"
    printf '  %-30s round %s: %8.0f req/s  p50 %7.2f ms  p99 %7.2f ms  failed %s\n' "$label" "$round" "$2" "$3" "$4" "$6"
  done < <(if [ $((round % 2)) = 1 ]; then cat "$WORK/targets.tsv"; else tac "$WORK/targets.tsv"; fi)
done

python3 - "$WORK/results.tsv" "$WORK/reads.tsv" "${BENCH_STRICT:-0}" "$PROFILE" "$BACKEND" "$TARGET" "$TARGET_OF" <<'PY'
import os, statistics as st, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
failed = sum(int(r[6]) for r in rows)
backend, target, target_of = sys.argv[5], float(sys.argv[6]), sys.argv[7]
names = ("baseline", "baseline1", "clubroom")
print(f"\n== writes on {backend} (median of rounds; baseline: four round trips, baseline1: one statement;"
      f" target: clubroom >= {target:.1f}x {target_of}, p99 no worse; ceiling: no database at all)")
print(f"{'matches':>7}  " + "   ".join(f"{n + ' req/s':>15} {'p50 ms':>7} {'p99 ms':>7}" for n in names)
      + "   vs baseline  vs baseline1  target   ceiling req/s  ceiling vs " + target_of)
missed = False
for c in dict.fromkeys(r[0] for r in rows):
    m = {}
    for name in names:
        rs = [r for r in rows if r[0] == c and r[1] == name]
        m[name] = [st.median(float(r[i]) for r in rs) for i in (3, 4, 5)]
    k = m["clubroom"]
    ratios = {n: k[0] / m[n][0] for n in names[:2]}
    ok = ratios[target_of] >= target and k[2] <= m[target_of][2]
    missed |= not ok
    ceiling = st.median(float(r[3]) for r in rows if r[0] == c and r[1] == "ceiling")
    reach = ceiling / m[target_of][0]
    print(f"{c:>7}  " + "   ".join(f"{m[n][0]:>15.0f} {m[n][1]:>7.2f} {m[n][2]:>7.2f}" for n in names)
          + f"   {ratios['baseline']:>10.2f}x {ratios['baseline1']:>11.2f}x  {'met' if ok else 'MISSED'}"
          + f"  {ceiling:>14.0f}  {reach:>6.2f}x" + ("" if reach >= target else "  (target beyond this machine)"))
# Where the CPU goes: per write, the server process, the database's processes (PostgreSQL on this
# machine; SQLite runs inside the server) and wrk, medians of rounds; then what the target allows.
cores = os.cpu_count() or 1
def cpu(c, name, i):
    xs = [float(r[i]) for r in rows if r[0] == c and r[1] == name and r[i] != "-"]
    return st.median(xs) if xs else None
def us(x):
    return f"{x:>6.0f}" if x is not None else f"{'-':>6}"
print(f"\n== CPU per write, microseconds (median of rounds): server / database / wrk = total;"
      f" database '-': not on this machine, 0: in the server's process (SQLite) or none")
print(f"{'matches':>7}  " + "  ".join(f"{n:>30}" for n in names + ("ceiling",)))
for c in dict.fromkeys(r[0] for r in rows):
    cells, total = [], {}
    for n in names + ("ceiling",):
        parts = [cpu(c, n, i) for i in (7, 8, 9)]
        total[n] = sum(parts) if None not in parts else None
        cells.append(f"{us(parts[0])} /{us(parts[1])} /{us(parts[2])} ={us(total[n])}")
    print(f"{c:>7}  " + "  ".join(f"{x:>30}" for x in cells))
    anchor = st.median(float(r[3]) for r in rows if r[0] == c and r[1] == target_of)
    goal = target * anchor
    allowed = cores * 1e6 / goal
    line = (f"{'':>7}  target {goal:.0f} writes/s on {cores} cores leaves at most {allowed:.0f} us of CPU"
            f" per write, all processes together")
    if total["clubroom"] is not None:
        line += (f"; clubroom spends {total['clubroom']:.0f} (its CPU alone allows"
                 f" {cores * 1e6 / total['clubroom']:.0f} writes/s)")
    print(line)
print("\n== reads: GET /v1/matches/{id} (median of rounds)")
print(f"{'match':<32} {'view bytes':>10} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7}")
reads = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()]
failed += sum(int(r[5]) for r in reads)
medians = []
for label in dict.fromkeys(r[0] for r in reads):
    rs = [r for r in reads if r[0] == label]
    rps, p50, p99 = (st.median(float(r[i]) for r in rs) for i in (2, 3, 4))
    print(f"{label:<32} {int(rs[0][1]):>10} {rps:>8.0f} {p50:>7.2f} {p99:>7.2f}")
    medians.append(rps)
print(f"long log / short log read throughput: {medians[1] / medians[0]:.2f}x (same view; 1.00x = no growth)")
note = "" if sys.argv[4] == "release" else f" ({sys.argv[4]} build: a smoke run, the figures mean nothing)"
print(f"\nbench: {failed} failed requests; write target {'missed' if missed else 'met'}{note}")
sys.exit(1 if failed or (missed and sys.argv[3] == "1") else 0)
PY

#!/usr/bin/env bash
# Live fan-out as watchers grow (issue 25, parts 2 and 5): per write, the time from the POST to
# each watcher's receipt (p50/p99), the POST's own time and the server's CPU, with 10 / 100 /
# 1,000 / 4,000 tokenless streams on one match or ten to a match; then the stop with every stream
# open. Builds the release server (or takes CLUBROOM_BIN) and runs scripts/stream_fanout.py
# (Python stdlib; psql for PostgreSQL) RUNS times, then prints each figure's min / median / max.
# Usage: scripts/stream-fanout.sh                       SQLite (RUNS=3 STREAMS=10,100,1000,4000)
#   PG=postgres://postgres@127.0.0.1:5432/postgres scripts/stream-fanout.sh    PostgreSQL
#   PG=... INSTANCES=2 scripts/stream-fanout.sh     two servers on one database, watchers split
#   CLUBROOM_BIN=/path/to/clubroom scripts/stream-fanout.sh    another build (a baseline)
#   CLUBROOM_BIN=target/release/fanout_baseline FANOUT_FRAME_BYTES=4170 scripts/stream-fanout.sh
#     the stack's floor (src/bin/fanout_baseline.rs: actix-web sending one shared frame of that
#     size to every stream, no database, no rules, no rendering); set the size from Clubroom's
#     bytes_per_watcher_per_write (less the chunk coding's ~8 bytes) for a fair comparison
#   FANOUT_RAW=1 CLUBROOM_BIN=target/release/fanout_baseline ...   the floor without actix-web:
#     bare tokio, one write of one shared buffer per stream
#   ACTION=play SCORES=changed scripts/stream-fanout.sh   a card at a time (table dealing: the
#     sheet changes once a deal), streams opened with ?scores=changed (ACTION=tally, the
#     default, scores a deal every write; SCORES=full, the default, sends the sheet every view);
#     SHEET=100: a match 100 deals old (tallied before the streams open)
#   FANOUT_PERF=/tmp/pf scripts/stream-fanout.sh   `perf record` of the servers over the writes
#     alone (not the streams' opening nor the stop), one file per run and case
#     (/tmp/pf.<run>.<layout>.<streams>); FANOUT_PERF_CALLS=dwarf for whole call chains (the
#     default, fp, stops at the first frame without a frame pointer). The CPU figures of a
#     profiled run include perf's own cost: compare them only with other profiled runs.
#   WARMUP=1 scripts/stream-fanout.sh   one run of every case first, printed as `warmup 1:` and
#     left out of the figures: the first run after the script starts is slower for every server,
#     the floors included (docs/performance.md, "Stop 57"); the default, 0, keeps every run
#   LAYOUTS=feed scripts/stream-fanout.sh   every stream on one tournament's feed, each write a
#     table's result entered (LAYOUTS=one,many,feed: all three)
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-3}
if [ -z "${CLUBROOM_BIN:-}" ]; then
  cargo build --release -q --bin clubroom --bin fanout_baseline
  CLUBROOM_BIN=${CARGO_TARGET_DIR:-target}/release/clubroom
fi
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
ARGS=(--bin "$CLUBROOM_BIN" --runs "$RUNS" --warmup "${WARMUP:-0}" --streams "${STREAMS:-10,100,1000,4000}"
  --layouts "${LAYOUTS:-one,many}" --writes "${WRITES:-50}" --instances "${INSTANCES:-1}"
  --action "${ACTION:-tally}" --scores "${SCORES:-full}" --sheet "${SHEET:-0}")
if [ -n "${PG:-}" ]; then ARGS+=(--pg "$PG"); fi
python3 scripts/stream_fanout.py "${ARGS[@]}" | tee "$OUT"
echo "== $RUNS runs: min / median / max"
python3 - "$OUT" <<'PY'
import statistics, sys
figures = {}
for line in open(sys.argv[1]):
    if line.startswith("run "):
        case, name, value = line.split(":", 1)[1].split()
        figures.setdefault((case, name), []).append(value)
for (case, name), values in figures.items():
    try:
        xs = sorted(float(v) for v in values)
        print(f"{case:22} {name:26} {xs[0]:10.2f} {statistics.median(xs):10.2f} {xs[-1]:10.2f}")
    except ValueError:
        print(f"{case:22} {name:26} {' '.join(values)}")
PY

#!/usr/bin/env python3
"""Live fan-out: what one write costs as its watchers grow (issue 25, parts 2 and 5).

Driven by scripts/stream-fanout.sh (Python stdlib only; `psql` for PostgreSQL). Per case
(--streams N, --layout one|many) and run, on a fresh database:

  - starts the server binary (--bin) on SQLite (a fresh file) or PostgreSQL (--pg URL of the
    server: a fresh database is created and dropped per run); with --instances 2 (PostgreSQL),
    a second server on the same database: the writes go to the first, the watchers are split
    between both (LISTEN/NOTIFY carries the writes across);
  - opens N tokenless streams from 32 loopback addresses (127.0.0.1 ..), on one match (`one`),
    spread ten to a match over N/10 matches (`many`), or on one tournament's feed (`feed`: a
    Swiss of Dump at --writes tables of two, its round 1 paired; each write enters the next
    table's result by the quick log, --action and --scores do not apply), and reads each to its
    first view (the feed: its events so far);
  - records --writes actions one after another (`many`: round-robin over the matches): Dump
    tallies (--action tally: every write scores a deal, the score sheet grows a line each time)
    or, at a table dealing its own cards, the deal and then each card (--action play: the sheet
    changes once a deal); the streams are opened with --scores (full: every view carries the
    sheet; changed: a view with the same sheet as the stream's last comes as `match_lite`), each
    sent on a keep-alive connection read in the same epoll loop as the streams: the latency of
    each watcher of the written match is the time from sending the POST to the poll that found
    that watcher's `event: match` for the new seq (the time that poll returned: an upper bound,
    the client shares the 2 cores with the server), and the next write goes once every watcher holds it;
  - reads the server's CPU (utime + stime, /proc/<pid>/stat, both servers with --instances 2)
    before and after the writes: CPU per write;
  - sends SIGTERM with every stream open and times the exit (and counts the streams told to
    reconnect by `event: reconnect` before they ended).

Prints one line per figure and run: `run K: <case> <figure> <value>`; the wrapper gives
min/median/max over the runs.
"""

import argparse
import json
import os
import re
import resource
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")
MATCH = re.compile(rb"id: (\d+)\nevent: (?:match(?:_lite)?|event)\n")
ADDRESSES = 32  # loopback addresses the streams come from (256 streams each at most by default)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_server(binary, database_url, workdir, watchers):
    port = free_port()
    env = dict(os.environ, RUST_LOG="warn", CLUBROOM_CREATES_PER_MINUTE="0",
               CLUBROOM_MAX_PUBLIC_STREAMS_PER_MATCH=str(max(128, watchers)))
    log = open(os.path.join(workdir, f"server-{port}.log"), "ab")
    proc = subprocess.Popen([binary, "serve", "--bind", f"127.0.0.1:{port}",
                             "--database-url", database_url], env=env, stdout=log, stderr=log)
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            if proc.poll() is not None:
                sys.exit(f"stream_fanout: the server exited; see {workdir}")
            time.sleep(0.05)
    proc.kill()
    sys.exit("stream_fanout: the server did not start")


def request(port, method, path, body=None, token=None):
    """One blocking request on its own connection: (status, JSON body)."""
    data = b"" if body is None else json.dumps(body).encode()
    head = f"{method} {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n" \
           f"content-length: {len(data)}\r\nconnection: close\r\n"
    if token:
        head += f"authorization: Bearer {token}\r\n"
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(head.encode() + b"\r\n" + data)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    head, _, payload = out.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(payload) if payload else None


def create_match(port):
    status, d = request(port, "POST", "/v1/matches", {
        "game": "dump", "players": [{"name": "A"}, {"name": "B"}],
        "dealing": "table",
        "config": {"target": 100000}})
    assert status == 201, (status, d)
    return d["match"]["id"], d["host_token"]


def create_tournament(port, tables):
    """A Swiss tournament of Dump at `tables` tables of two, by the quick log, its round 1
    paired: (id, organiser token, the feed's last seq)."""
    status, d = request(port, "POST", "/v1/tournaments", {
        "name": "fan-out", "game": "dump", "format": "swiss", "rounds": 3, "table_size": 2,
        "record": "totals", "players": [{"name": f"P{i}"} for i in range(2 * tables)]})
    assert status == 201, (status, d)
    tid, org = d["tournament"]["id"], d["organiser_token"]
    status, d = request(port, "POST", f"/v1/tournaments/{tid}/rounds", {}, org)
    assert status == 201, (status, d)
    status, d = request(port, "GET", f"/v1/tournaments/{tid}/events?limit=1000")
    assert status == 200, (status, d)
    return tid, org, d["events"][-1]["seq"]


TALLY = {"seat": None, "action": {"type": "tally", "points": [80, 80]}}
DEAL = {"seat": None, "action": {"type": "deal"}}


class Table:
    """The writes of one match: `tally` (score-only play: every write scores a deal, so the
    score sheet changes every time) or `play` (a table dealing its own cards records the deal,
    then each card: the sheet changes once a deal). The host token writes; the seat to act and
    the table's turn come from each write's answer."""

    def __init__(self, port, match, host, action):
        self.port, self.match, self.host, self.action = port, match, host, action
        self.view = None
        self.unplayed = []

    def next_body(self):
        if self.action == "tally":
            return TALLY
        v = self.view
        if v is None or v["table_to_act"]:
            return DEAL
        seat = v["to_act"][0]
        if not self.unplayed:
            # The deal's first card: the host's legal list is every card of the deck (the
            # table's hands are not known); each play then takes a card not yet down.
            status, legal = request(self.port, "GET",
                                    f"/v1/matches/{self.match}/legal?seat={seat}", None, self.host)
            assert status == 200, (status, legal)
            self.unplayed = [a["card"] for a in legal["actions"] if a["type"] == "play"]
        return {"seat": seat, "action": {"type": "play", "card": self.unplayed.pop(0)}}

    def answered(self, recorded, body):
        """The write's answer (`{event, match}`)."""
        if body is DEAL:
            self.unplayed = []
        self.view = recorded["match"]


class Watcher:
    __slots__ = ("sock", "match", "seq", "tail", "reconnect", "closed", "got")

    def __init__(self, sock, match):
        self.sock, self.match, self.seq, self.tail = sock, match, -1, b""
        self.reconnect = self.closed = False
        self.got = 0  # bytes received

    def feed(self, data):
        self.got += len(data)
        seen = self.tail + data
        for m in MATCH.finditer(seen):
            self.seq = max(self.seq, int(m.group(1)))
        if b"event: reconnect" in seen:
            self.reconnect = True
        self.tail = seen[-48:]


def open_streams(ports, matches, n, layout, scores):
    watchers = []
    for i in range(n):
        match = matches[0] if layout in ("one", "feed") else matches[i % len(matches)]
        port = ports[i % len(ports)]
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((f"127.0.0.{1 + i % ADDRESSES}", 0))
        s.connect(("127.0.0.1", port))
        path = (f"/v1/tournaments/{match}/stream" if layout == "feed"
                else f"/v1/matches/{match}/stream?scores={scores}")
        s.sendall(f"GET {path} HTTP/1.1\r\nhost: x\r\n\r\n".encode())
        s.setblocking(False)
        watchers.append(Watcher(s, match))
    return watchers


def pump(ep, by_fd, want, deadline, post=None, answered=None):
    """Reads until `want()` holds; returns the time of the poll that found each watcher's data
    (by fd) and the POST's answer when `post` (a socket) is given, and appends to `answered`
    the time of the poll that completed that answer (like the watchers' receipts: not the time
    this loop then took to read the watchers' data of the same poll)."""
    found = {}
    answer = b""
    while not want(found, answer):
        if time.monotonic() > deadline:
            return None, answer
        ready = ep.poll(1.0)
        # The time the poll returned: the data of every fd it reports had reached that
        # watcher's socket by then (the time this loop takes to read and parse the fds one by
        # one is the Python client's own, not the server's).
        t = time.monotonic()
        for fd, _ in ready:
            if post is not None and fd == post.fileno():
                answer += post.recv(65536)
                done = b"\r\n\r\n" in answer and complete(answer)
                if answered is not None and not answered and done:
                    answered.append(t)
                continue
            w = by_fd.get(fd)
            if w is None:
                continue
            try:
                data = w.sock.recv(262144)
            except BlockingIOError:
                continue
            except ConnectionError:
                data = b""
            if not data:
                w.closed = True
                ep.unregister(fd)
                continue
            before = w.seq
            w.feed(data)
            if w.seq > before:
                found.setdefault(fd, t)
    return found, answer


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def run_case(args, run, tag, n, layout, workdir):
    """One run of a case; its lines start with `tag` (`run K`, or `warmup K` for a run the
    wrapper leaves out of its figures)."""
    dbname = None
    if args.pg:
        dbname = f"fanout_{os.getpid()}_{run}_{n}_{layout}"
        subprocess.run(["psql", args.pg, "-qc", f"CREATE DATABASE {dbname}"], check=True)
        url = args.pg.rsplit("/", 1)[0] + "/" + dbname
    else:
        url = f"sqlite://{workdir}/fanout-{run}-{n}-{layout}.db?mode=rwc"
    procs = []
    try:
        proc, port = start_server(args.bin, url, workdir, n)
        procs.append((proc, port))
        if args.instances == 2:
            procs.append(start_server(args.bin, url, workdir, n))
        ports = [p for _, p in procs]
        if layout == "feed":
            # A tournament's feed: every watcher on it; each write enters the next table's
            # result (the last one also completes the round: one more event).
            tid, org, seq = create_tournament(port, args.writes)
            made, matches, seqs = [(tid, org)], [tid], {tid: seq}
        else:
            nmatches = 1 if layout == "one" else max(1, n // 10)
            made = [create_match(port) for _ in range(nmatches)]
            matches = [m for m, _ in made]
            seqs = {m: 0 for m in matches}
        hosts = dict(made)
        tables = {m: Table(port, m, h, args.action) for m, h in made}
        # Warm up: --sheet tallies (a score sheet of that many lines), then one write each.
        for m in matches if layout != "feed" else []:
            for _ in range(args.sheet):
                status, view = request(port, "POST", f"/v1/matches/{m}/actions", TALLY, hosts[m])
                assert status == 201, (status, view)
                tables[m].answered(view, TALLY)
                seqs[m] += 1
            body = tables[m].next_body()
            status, view = request(port, "POST", f"/v1/matches/{m}/actions", body, hosts[m])
            assert status == 201, (status, view)
            tables[m].answered(view, body)
            seqs[m] += 1
        watchers = open_streams(ports, matches, n, layout, args.scores)
        ep = select.epoll()
        by_fd = {}
        for w in watchers:
            ep.register(w.sock.fileno(), select.EPOLLIN)
            by_fd[w.sock.fileno()] = w
        found, _ = pump(ep, by_fd, lambda f, a: all(w.seq >= seqs[w.match] for w in watchers),
                        time.monotonic() + 120)
        if found is None:
            refused = sum(w.seq < 0 for w in watchers)
            sys.exit(f"stream_fanout: {refused} of {n} streams never got their first view")
        time.sleep(1)
        post = socket.create_connection(("127.0.0.1", port))
        post.setblocking(False)
        ep.register(post.fileno(), select.EPOLLIN)
        lat, post_ms = [], []
        pids = [p.pid for p, _ in procs]
        # FANOUT_PERF=<file>: `perf record` (with call chains) of the servers over the writes alone (the
        # streams' opening and the stop left out), one file per run and case.
        perf = None
        if os.environ.get("FANOUT_PERF"):
            perf = subprocess.Popen(
                ["perf", "record", "-q", "-F", "2999",
                 "--call-graph", os.environ.get("FANOUT_PERF_CALLS", "fp"),
                 "-p", ",".join(map(str, pids)),
                 "-o", f"{os.environ['FANOUT_PERF']}.{run}.{layout}.{n}"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
        c0 = sum(cpu_seconds(pid) for pid in pids)
        got0 = sum(w.got for w in watchers)
        for k in range(args.writes):
            m = matches[k % len(matches)]
            seq = seqs[m] + 1
            mine = [w for w in watchers if w.match == m]
            if layout == "feed":
                write, method, path = ({"totals": [100, 40]}, "PUT",
                                       f"/v1/tournaments/{m}/rounds/1/tables/{k + 1}/result")
            else:
                write, method, path = tables[m].next_body(), "POST", f"/v1/matches/{m}/actions"
            body = json.dumps(write).encode()
            req = (f"{method} {path} HTTP/1.1\r\nhost: x\r\n"
                   f"content-type: application/json\r\ncontent-length: {len(body)}\r\n"
                   f"authorization: Bearer {hosts[m]}\r\n\r\n").encode() + body
            t0 = time.monotonic()
            post.sendall(req)
            answered = []

            def want(f, a):
                return answered and all(w.seq >= seq for w in mine)

            found, answer = pump(ep, by_fd, want, time.monotonic() + 60, post, answered)
            if found is None:
                missing = sum(w.seq < seq for w in mine)
                sys.exit(f"stream_fanout: {missing} watchers never got seq {seq}")
            assert answer.startswith(b"HTTP/1.1 201" if layout != "feed" else b"HTTP/1.1 200"), \
                answer[:200]
            if layout != "feed":
                tables[m].answered(json.loads(answer.partition(b"\r\n\r\n")[2]), write)
            # (A write may add more than one event: the round's last result completes it.)
            seqs[m] = max([seq] + [w.seq for w in mine])
            post_ms.append((answered[0] - t0) * 1000)
            for w in mine:
                lat.append((found.get(w.sock.fileno(), t0) - t0) * 1000)
        cpu = (sum(cpu_seconds(pid) for pid in pids) - c0) / args.writes * 1000
        if perf:
            perf.send_signal(signal.SIGINT)
            perf.wait()
        # What each watcher of the written match received per write (the frame's size, chunked
        # transfer coding included): a baseline is fair when it sends frames of this size.
        frame = (sum(w.got for w in watchers) - got0) / (args.writes * len(watchers)
                                                          / len(matches))
        case = (f"{'pg' if args.pg else 'sqlite'}{'x2' if args.instances == 2 else ''}_{layout}_{n}"
                + ("" if layout == "feed" else f"_{args.action}_{args.scores}_sheet{args.sheet}"))
        print(f"{tag}: {case} receipt_p50_ms {pct(lat, 50):.2f}", flush=True)
        print(f"{tag}: {case} receipt_p99_ms {pct(lat, 99):.2f}", flush=True)
        print(f"{tag}: {case} post_p50_ms {pct(post_ms, 50):.2f}", flush=True)
        print(f"{tag}: {case} server_cpu_ms_per_write {cpu:.3f}", flush=True)
        print(f"{tag}: {case} bytes_per_watcher_per_write {frame:.0f}", flush=True)
        # The stop, every stream open.
        t = time.monotonic()
        for p, _ in procs:
            p.send_signal(signal.SIGTERM)
        gone = lambda f, a: all(w.closed for w in watchers)  # noqa: E731
        pump(ep, by_fd, gone, t + args.stop_limit)
        ended = time.monotonic() - t
        for p, _ in procs:
            try:
                p.wait(timeout=max(0.1, args.stop_limit - (time.monotonic() - t)))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        stopped = time.monotonic() - t
        print(f"{tag}: {case} stop_seconds {stopped:.2f}", flush=True)
        print(f"{tag}: {case} streams_ended_seconds {ended:.2f}", flush=True)
        told = sum(w.reconnect for w in watchers)
        print(f"{tag}: {case} told_to_reconnect {told}/{n}", flush=True)
        for w in watchers:
            w.sock.close()
        post.close()
        ep.close()
    finally:
        for p, _ in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        if dbname:
            subprocess.run(["psql", args.pg, "-qc", f"DROP DATABASE IF EXISTS {dbname}"],
                           check=False)


def complete(a):
    head, _, body = a.partition(b"\r\n\r\n")
    m = re.search(rb"(?i)content-length: *(\d+)", head)
    return m is not None and len(body) >= int(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--pg", default=None, help="a PostgreSQL server URL (a database per run)")
    ap.add_argument("--instances", type=int, default=1, choices=[1, 2])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=0,
                    help="runs of every case played first and left out of the figures")
    ap.add_argument("--streams", default="10,100,1000,4000")
    ap.add_argument("--layouts", default="one,many")
    ap.add_argument("--writes", type=int, default=50)
    ap.add_argument("--action", default="tally", choices=["tally", "play"],
                    help="tally: every write scores a deal; play: a card at a time")
    ap.add_argument("--scores", default="full", choices=["full", "changed"],
                    help="the streams' `scores` option")
    ap.add_argument("--sheet", type=int, default=0,
                    help="tallies before the streams open: a score sheet of that many lines")
    ap.add_argument("--stop-limit", type=float, default=60)
    args = ap.parse_args()
    if args.instances == 2 and not args.pg:
        sys.exit("stream_fanout: two instances share a PostgreSQL database (--pg)")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with tempfile.TemporaryDirectory() as tmp:
        runs = ([(f"w{k}", f"warmup {k}") for k in range(1, args.warmup + 1)]
                + [(k, f"run {k}") for k in range(1, args.runs + 1)])
        for run, tag in runs:
            for layout in args.layouts.split(","):
                for n in (int(x) for x in args.streams.split(",")):
                    run_case(args, run, tag, n, layout, tmp)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What live streams cost, and whether one client can lock a table out (issue 20, part 4).

Driven by scripts/stream-flood.sh (Python stdlib only). Starts the server binary given with
--bin on a fresh SQLite file and, per run:

  1. opens --streams idle streams (GET /v1/matches/{id}/stream, no token) from 16 loopback
     addresses (127.0.0.1 .. 127.0.0.16), --watchers of them on one match, the rest spread over
     other matches; reports the server's RSS per idle stream (VmRSS after minus before, over the
     count) and its CPU while they idle for --idle seconds (utime + stime from /proc);
  2. records --writes actions one after another on the watched match (a Dump tally, always
     legal), each timed from request to answer: p50 and p99 of the write's latency, the server's
     CPU per write, and how long after the last answer every watcher held that write;
  3. sends SIGTERM with every stream still open and times the process until it exits.

With --probe instead: the server's own limits, once: one address opens streams on a match (no
token) until refused, then on other matches until refused, and reports each count and the
answer; then a second address asks for a stream of the same match.

Prints one line per measure and run; the shell wrapper gives min/median/max.
"""

import argparse
import asyncio
import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Http:
    """One keep-alive HTTP/1.1 connection for JSON requests."""

    def __init__(self, port, local="127.0.0.1"):
        self.port, self.local = port, local
        self.r = self.w = None

    async def call(self, method, path, body=None, token=None):
        for _ in range(2):
            try:
                return await self._call(method, path, body, token)
            except (IndexError, ConnectionError):
                # The server closed the idle keep-alive connection: once more on a new one.
                self.close()
                self.w = None
        raise ConnectionError("the server closed the connection twice")

    async def _call(self, method, path, body, token):
        if self.w is None:
            self.r, self.w = await asyncio.open_connection(
                "127.0.0.1", self.port, local_addr=(self.local, 0))
        data = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n" \
               f"content-length: {len(data)}\r\n"
        if token:
            head += f"authorization: Bearer {token}\r\n"
        self.w.write(head.encode() + b"\r\n" + data)
        status = int((await self.r.readline()).split()[1])
        length = 0
        while True:
            line = await self.r.readline()
            if line in (b"\r\n", b""):
                break
            k, _, v = line.decode().partition(":")
            if k.lower() == "content-length":
                length = int(v)
        payload = await self.r.readexactly(length) if length else b""
        return status, payload

    def close(self):
        if self.w:
            self.w.close()


MATCH_MESSAGE = re.compile(rb"id: (\d+)\nevent: match\n")


class Stream(asyncio.Protocol):
    """An open stream: keeps the status and the seq of the last view received."""

    def __init__(self):
        self.status = None
        self.tail = b""
        self.seq = -1
        self.opened = asyncio.get_running_loop().create_future()
        self.closed = asyncio.get_running_loop().create_future()

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        seen = self.tail + data
        for m in MATCH_MESSAGE.finditer(seen):
            self.seq = max(self.seq, int(m.group(1)))
        # Enough to find a message header cut in two by the next read.
        self.tail = seen[-64:]
        if self.status is None and b"\r\n" in seen:
            self.status = int(seen.split(b" ", 2)[1])
            if not self.opened.done():
                self.opened.set_result(self.status)

    def connection_lost(self, exc):
        if not self.opened.done():
            self.opened.set_result(self.status or 0)
        if not self.closed.done():
            self.closed.set_result(time.monotonic())

    def holds(self, seq):
        return self.seq >= seq


async def open_stream(port, local, match_id, token=None):
    loop = asyncio.get_running_loop()
    _, proto = await loop.create_connection(
        Stream, "127.0.0.1", port, local_addr=(local, 0))
    auth = f"authorization: Bearer {token}\r\n" if token else ""
    proto.transport.write(
        f"GET /v1/matches/{match_id}/stream HTTP/1.1\r\nhost: x\r\n{auth}\r\n".encode())
    await asyncio.wait_for(proto.opened, 30)
    return proto


def start_server(binary, workdir, env_extra):
    port = free_port()
    env = dict(os.environ, RUST_LOG="warn", CLUBROOM_CREATES_PER_MINUTE="0", **env_extra)
    log = open(os.path.join(workdir, "server.log"), "ab")
    proc = subprocess.Popen(
        [binary, "serve", "--bind", f"127.0.0.1:{port}",
         "--database-url", f"sqlite://{workdir}/flood-{port}.db?mode=rwc"],
        env=env, stdout=log, stderr=log)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    sys.exit("stream_flood: the server did not start")


async def create_match(http):
    status, body = await http.call("POST", "/v1/matches", {
        "game": "dump", "players": [{"name": "A"}, {"name": "B"}], "config": {"target": 100000}})
    assert status == 201, (status, body[:200])
    d = json.loads(body)
    return d["match"]["id"], d["host_token"]


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


async def run_once(args, run):
    proc, port = start_server(args.bin, args.workdir, dict(
        CLUBROOM_MAX_PUBLIC_STREAMS_PER_MATCH=str(args.watchers)))
    try:
        await measure(args, run, proc, port)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def measure(args, run, proc, port):
    pid = proc.pid
    http = Http(port)
    watched, host = await create_match(http)
    others = [(await create_match(http))[0] for _ in range(args.matches)]
    # Warm up: a stream (one that ends by itself) and a write, so that lazily made state is not
    # counted.
    s = await open_stream(port, "127.0.0.1", f"{others[0]}?once=true")
    await asyncio.wait_for(s.closed, 10)
    await http.call("POST", f"/v1/matches/{watched}/actions",
                    {"seat": None, "action": {"type": "tally", "points": [80, 80]}}, host)
    await asyncio.sleep(1)
    rss0 = rss_kib(pid)
    t0 = time.monotonic()
    streams, batch = [], []
    for i in range(args.streams):
        local = f"127.0.0.{1 + i % 16}"
        target = watched if i < args.watchers else others[i % len(others)]
        batch.append(open_stream(port, local, target))
        if len(batch) == 256 or i == args.streams - 1:
            streams += await asyncio.gather(*batch)
            batch = []
    refused = [s.status for s in streams if s.status != 200]
    if refused:
        sys.exit(f"stream_flood: {len(refused)} streams refused, e.g. {refused[:3]}")
    opened_in = time.monotonic() - t0
    await asyncio.sleep(3)  # every stream's first catch-up done
    rss1 = rss_kib(pid)
    c0, w0 = cpu_seconds(pid), time.monotonic()
    await asyncio.sleep(args.idle)
    c1, w1 = cpu_seconds(pid), time.monotonic()
    idle_cpu = (c1 - c0) / (w1 - w0)  # cores
    print(f"run {run}: open_seconds {opened_in:.2f}")
    print(f"run {run}: rss_kib_per_idle_stream {(rss1 - rss0) / args.streams:.2f}")
    print(f"run {run}: idle_cpu_percent_of_a_core {idle_cpu * 100:.3f}")
    print(f"run {run}: idle_cpu_us_per_stream_per_s {idle_cpu * 1e6 / args.streams:.3f}")

    watchers = streams[:args.watchers]
    lat = []
    c0 = cpu_seconds(pid)
    for _ in range(args.writes):
        t = time.monotonic()
        status, body = await http.call(
            "POST", f"/v1/matches/{watched}/actions",
            {"seat": None, "action": {"type": "tally", "points": [80, 80]}}, host)
        lat.append(time.monotonic() - t)
        assert status == 201, (status, body[:200])
    answered = time.monotonic()
    last = json.loads(body)["match"]["seq"]
    while not all(w.holds(last) for w in watchers):
        if time.monotonic() - answered > 60:
            missing = sum(not w.holds(last) for w in watchers)
            sys.exit(f"stream_flood: {missing} watchers never got seq {last}")
        await asyncio.sleep(0.005)
    fanout = time.monotonic() - answered
    cpu_per_write = (cpu_seconds(pid) - c0) / args.writes
    print(f"run {run}: write_p50_ms {pct(lat, 50) * 1000:.2f}")
    print(f"run {run}: write_p99_ms {pct(lat, 99) * 1000:.2f}")
    print(f"run {run}: cpu_ms_per_write {cpu_per_write * 1000:.2f}")
    print(f"run {run}: last_write_reached_all_watchers_ms {fanout * 1000:.1f}")

    t = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    stopped = float("inf")
    while time.monotonic() - t < args.stop_limit:
        if proc.poll() is not None:
            stopped = time.monotonic() - t
            break
        await asyncio.sleep(0.01)
    else:
        proc.kill()
        proc.wait()
    await asyncio.sleep(0.2)  # the loop reads the last EOFs
    ended = [s.closed.result() - t for s in streams if s.closed.done()]
    print(f"run {run}: stop_seconds_with_streams_open {stopped:.2f}")
    print(f"run {run}: streams_ended_before_exit {sum(e <= stopped for e in ended)}/{len(streams)}")
    http.close()
    for s in streams:
        s.transport.close()


async def probe(args):
    proc, port = start_server(args.bin, args.workdir, {})
    try:
        http = Http(port)
        first, host = await create_match(http)
        held = []

        async def until_refused(local, match_ids, limit):
            n = 0
            while n < limit:
                s = await open_stream(port, local, match_ids[n % len(match_ids)])
                if s.status != 200:
                    return n, s.status
                held.append(s)
                n += 1
            return n, None

        n, status = await until_refused("127.0.0.1", [first], 5000)
        print(f"probe: one address, one match (no token): {n} streams, then {status}")
        more = [(await create_match(http))[0] for _ in range(40)]
        m, status = await until_refused("127.0.0.1", more, 5000)
        print(f"probe: the same address, other matches: {n + m} streams in all, then {status}")
        others = []
        for label, local, match_id in [("the first match", "127.0.0.2", first),
                                       ("a new match", "127.0.0.2", (await create_match(http))[0])]:
            s = await open_stream(port, local, match_id)
            print(f"probe: another address, {label} (no token): {s.status}")
            others.append(s)
        s = await open_stream(port, "127.0.0.3", first, host)
        print(f"probe: a third address, the first match with its host token: {s.status}")
        others.append(s)
        for s in held + others:
            s.transport.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--streams", type=int, default=4096)
    ap.add_argument("--watchers", type=int, default=1000)
    ap.add_argument("--matches", type=int, default=32, help="matches the other streams follow")
    ap.add_argument("--idle", type=float, default=20, help="seconds of idle CPU measured")
    ap.add_argument("--writes", type=int, default=200)
    ap.add_argument("--stop-limit", type=float, default=60)
    ap.add_argument("--probe", action="store_true")
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with tempfile.TemporaryDirectory() as tmp:
        args.workdir = args.workdir or tmp
        if args.probe:
            asyncio.run(probe(args))
            return
        for run in range(1, args.runs + 1):
            asyncio.run(run_once(args, run))


if __name__ == "__main__":
    main()

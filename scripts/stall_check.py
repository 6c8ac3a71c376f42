"""Stalled-connection check (issue 10, item 7): /healthz stays responsive under 20k stalled requests.

Starts `clubroom serve` on a fresh SQLite file, then attacker processes (each below the open-file
limit) open stalled requests: each sends a request head announcing a 1000-byte JSON body, a few
bytes of it, and stalls. Meanwhile this process asks GET /healthz every 100 ms on a fresh
connection and times the answer. Two phases:
- burst: 20,000 at once, more than the server may hold under its open-file limit (20,000 here):
  it sheds them at the short deadline of a flood while newcomers wait their turn in the queue;
- few: 200 (no flood): each waits out the normal body deadline, and /healthz never notices them.

PASS when every probe was answered 200 in time (3 s at worst in the burst, 1 s otherwise), the
attackers really opened their connections, the server answered the stalled bodies with 408
request_timeout, and it still records a normal write afterwards. Bounded: each phase stops by
itself after --seconds; everything runs on 127.0.0.1. Python standard library only.
"""

import argparse
import json
import os
import selectors
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ci_support import CheckFailed, Client, Server, check, exit_on_sigterm  # noqa: E402

HEAD = (b"POST /v1/matches HTTP/1.1\r\nHost: stall\r\nContent-Type: application/json\r\n"
        b"Content-Length: 1000\r\n\r\n{\"game\": ")


def attack(addr, count, seconds, reconnect):
    """Holds `count` stalled requests open for `seconds` (opening a new one for each the server
    closes, with `reconnect`); prints a JSON summary."""
    host, port = addr.split(":")
    sel = selectors.DefaultSelector()
    stats = {"opened": 0, "refused": 0, "closed_by_server": 0, "answered_408": 0, "peak_open": 0}
    open_now = 0

    def open_one():
        nonlocal open_now
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect((host, int(port)))
        except BlockingIOError:
            pass
        except OSError:
            stats["refused"] += 1
            s.close()
            return
        sel.register(s, selectors.EVENT_WRITE, "connecting")
        open_now += 1

    for _ in range(count):
        open_one()
    print("ready", flush=True)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for key, _ in sel.select(timeout=0.2):
            s = key.fileobj
            if key.data == "connecting":
                err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    stats["refused"] += 1
                    sel.unregister(s)
                    s.close()
                    open_now -= 1
                    open_one()
                    continue
                try:
                    s.send(HEAD)
                except OSError:
                    pass
                stats["opened"] += 1
                sel.modify(s, selectors.EVENT_READ, "stalled")
            else:
                try:
                    data = s.recv(4096)
                except OSError:
                    data = b""
                if data.startswith(b"HTTP/1.1 408"):
                    stats["answered_408"] += 1
                stats["closed_by_server"] += 1
                sel.unregister(s)
                s.close()
                open_now -= 1
                if reconnect and time.monotonic() < deadline:
                    open_one()
        stats["peak_open"] = max(stats["peak_open"], open_now)
    for key in list(sel.get_map().values()):
        key.fileobj.close()
    print(json.dumps(stats), flush=True)


def probe(addr, timeout):
    host, port = addr.split(":")
    started = time.monotonic()
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as s:
            s.settimeout(timeout)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n")
            data = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
        ok = data.startswith(b"HTTP/1.1 200")
    except OSError:
        ok = False
    return ok, time.monotonic() - started


def flood(addr, total, attackers, seconds, reconnect):
    """Runs the attackers while probing /healthz; returns (attacker stats, probe latencies, failed)."""
    per = total // attackers
    procs = [subprocess.Popen(
        [sys.executable, __file__, "--attacker-of", addr, "--count", str(per), "--seconds", str(seconds)]
        + (["--reconnect"] if reconnect else []),
        stdout=subprocess.PIPE, text=True) for _ in range(attackers)]
    try:
        latencies, failed = [], 0
        for a in procs:  # every attacker has sent its connection requests
            check(a.stdout.readline().strip() == "ready", "an attacker failed to start")
        end = time.monotonic() + seconds
        while time.monotonic() < end - 0.5:
            ok, took = probe(addr, timeout=10.0)
            latencies.append(took)
            failed += not ok
            time.sleep(0.1)
        stats = []
        for a in procs:
            out, _ = a.communicate(timeout=seconds + 60)
            stats.append(json.loads(out.strip().splitlines()[-1]))
        return stats, sorted(latencies), failed
    finally:
        for a in procs:
            if a.poll() is None:
                a.kill()


def phase(name, server, addr, total, attackers, seconds, reconnect, max_latency):
    stats, lat, failed = flood(addr, total, attackers, seconds, reconnect)
    opened = sum(s["opened"] for s in stats)
    answered = sum(s["answered_408"] for s in stats)
    p50, p99 = lat[len(lat) // 2], lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    line = (f"{name}: stalled={opened} answered_408={answered} probes={len(lat)} failed={failed} "
            f"healthz p50={p50 * 1000:.0f}ms p99={p99 * 1000:.0f}ms max={lat[-1] * 1000:.0f}ms")
    print(f"  {line}  attackers: {stats}", flush=True)
    check(server.proc.poll() is None, f"{name}: the server died under the attack")
    check(opened >= total, f"{name}: the attackers opened only {opened} of {total} connections")
    check(failed == 0, f"{name}: {failed} /healthz probes were not answered 200")
    check(lat[-1] <= max_latency, f"{name}: /healthz took {lat[-1]:.2f}s at worst (limit {max_latency}s)")
    check(answered >= total // 2, f"{name}: only {answered} stalled bodies were answered 408")
    return line


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin")
    p.add_argument("--workdir")
    p.add_argument("--burst", type=int, default=20000, help="stalled connections opened at once")
    p.add_argument("--few", type=int, default=200, help="stalled connections that are no flood")
    p.add_argument("--attackers", type=int, default=2)
    p.add_argument("--seconds", type=float, default=12.0)
    p.add_argument("--max-latency", type=float, default=3.0)
    p.add_argument("--attacker-of", help=argparse.SUPPRESS)
    p.add_argument("--count", type=int, help=argparse.SUPPRESS)
    p.add_argument("--reconnect", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.attacker_of:
        attack(args.attacker_of, args.count, args.seconds, args.reconnect)
        return 0
    exit_on_sigterm()
    server = Server(args.bin, f"sqlite://{os.path.join(args.workdir, 'stall.db')}?mode=rwc", args.workdir, "stall")
    try:
        addr = server.start()
        lines = [
            # More stalled connections than the server may hold (its open-file limit): it sheds them
            # at the short deadline while /healthz waits its turn in the listen queue.
            phase("burst", server, addr, args.burst, args.attackers, args.seconds, False, args.max_latency),
            # A few stalled bodies, no flood: each waits out the normal deadline (10 s), and /healthz
            # never notices them.
            time.sleep(2.0) or phase("few", server, addr, args.few, args.attackers, args.seconds, False, 1.0),
        ]
        # Still serving writes once the attack is over.
        client = Client(addr)
        created, _ = client.json("POST", "/v1/matches", {"game": "dump", "players": [{"name": "A"}, {"name": "B"}]},
                                 expect=(201,))
        check(created["match"]["seq"] == 0, "a match created after the attack reads back")
        print("stall check: PASS: " + "; ".join(lines))
        return 0
    except CheckFailed as e:
        print(f"stall check: FAIL: {e}")
        return 1
    finally:
        server.kill()


if __name__ == "__main__":
    sys.exit(main())

"""Shared helpers for the operator checks (scripts/crash_check.py, scripts/multi_check.py).

Python standard library only. A `Server` is one `clubroom serve` process bound to 127.0.0.1 on a
port the kernel picks (port 0; the address is read back from the server's log), with its output in
a log file of its own. `Client` is a small keep-alive HTTP client that reconnects after errors.
"""

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# The operator token the checks' servers run with: it lists every match (GET /v1/matches).
OPERATOR_TOKEN = "ci-operator-token"
LISTENING = re.compile(r"clubroom listening address=(127\.0\.0\.1:\d+)")


def exit_on_sigterm():
    """Turns SIGTERM into SystemExit, so `finally` blocks kill the servers this script started."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


class CheckFailed(Exception):
    """A check found something wrong."""


def check(cond, what):
    if not cond:
        raise CheckFailed(what)


class Server:
    """One `clubroom serve` process; `start()` may be called again after `kill()`."""

    def __init__(self, binary, database_url, workdir, name, prefix=()):
        self.prefix = list(prefix)  # e.g. an strace command line the server runs under
        self.binary = binary
        self.database_url = database_url
        self.workdir = workdir
        self.name = name
        self.proc = None
        self.addr = None
        self.starts = 0

    def start(self, timeout=60.0):
        self.starts += 1
        log = os.path.join(self.workdir, f"{self.name}-{self.starts}.log")
        env = dict(os.environ, RUST_LOG="warn,clubroom=info", NO_COLOR="1", CLUBROOM_OPERATOR_TOKEN=OPERATOR_TOKEN)
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(
                self.prefix + [self.binary, "serve", "--bind", "127.0.0.1:0", "--database-url", self.database_url],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            )
        # For the shell wrapper's trap, should this script itself be killed.
        with open(os.path.join(self.workdir, f"{self.name}.pid"), "w") as f:
            f.write(f"{self.proc.pid}\n")
        deadline = time.monotonic() + timeout
        self.addr = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise CheckFailed(f"{self.name} exited with {self.proc.returncode} at start; see {log}:\n"
                                  + open(log, errors="replace").read()[-2000:])
            if self.addr is None:
                m = LISTENING.search(ANSI.sub("", open(log, errors="replace").read()))
                if m:
                    self.addr = m.group(1)
            if self.addr is not None:
                # The socket is bound before the database is opened: wait for a real answer.
                try:
                    status, _, _ = Client(self.addr, timeout=2).request("GET", "/healthz")
                    if status == 200:
                        return self.addr
                except OSError:
                    pass
            time.sleep(0.02)
        raise CheckFailed(f"{self.name} did not become healthy within {timeout}s; see {log}")

    def kill(self):
        """SIGKILL: no shutdown code runs, exactly like a crash."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


class Client:
    """A keep-alive HTTP/1.1 client for one server address."""

    def __init__(self, addr, timeout=15.0):
        self.addr = addr
        self.timeout = timeout
        self.conn = None

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def request(self, method, path, body=None, headers=None, addr=None):
        """Returns (status, headers as a lower-cased dict, body text). Raises OSError (and
        http.client exceptions, which are turned into OSError) when no answer arrived."""
        if addr is not None and addr != self.addr:
            self.close()
            self.addr = addr
        h = {"accept": "application/json"}
        if body is not None:
            h["content-type"] = "application/json"
            if not isinstance(body, (bytes, str)):
                body = json.dumps(body)
        h.update(headers or {})
        try:
            if self.conn is None:
                host, port = self.addr.rsplit(":", 1)
                self.conn = http.client.HTTPConnection(host, int(port), timeout=self.timeout)
            self.conn.request(method, path, body=body, headers=h)
            r = self.conn.getresponse()
            data = r.read().decode()
            hdrs = {k.lower(): v for k, v in r.getheaders()}
            if hdrs.get("connection", "").lower() == "close":
                self.close()
            return r.status, hdrs, data
        except (OSError, http.client.HTTPException) as e:
            self.close()
            raise OSError(f"no answer from {self.addr}: {e!r}") from None

    def json(self, method, path, body=None, headers=None, expect=(200, 201)):
        status, hdrs, data = self.request(method, path, body, headers)
        check(status in expect, f"{method} {path} -> {status}: {data[:500]}")
        return json.loads(data), hdrs


def create_dump_match(client, players=2, target=100000):
    """A table-dealt Dump match no check will finish; returns (id, host token)."""
    body = {"game": "dump", "players": [{"name": f"P{i}"} for i in range(players)],
            "config": {"target": target}, "dealing": "table"}
    created, _ = client.json("POST", "/v1/matches", body, expect=(201,))
    return created["match"]["id"], created["host_token"]


def tally_body(points0):
    return {"seat": None, "action": {"type": "tally", "points": [points0, 160 - points0]}}


def dump_totals(points_list):
    """Dump's score for tallies [a, 160 - a]: the side over 80 scores the excess."""
    totals = [0, 0]
    for a in points_list:
        b = 160 - a
        totals[0] += max(a - 80, 0)
        totals[1] += max(b - 80, 0)
    return totals


def full_log(client, match_id, headers=None):
    """Every event of a match, paging with `after`."""
    events, after = [], 0
    for _ in range(100000):
        page, _ = client.json("GET", f"/v1/matches/{match_id}/events?after={after}&limit=1000",
                              headers=headers, expect=(200,))
        events.extend(page["events"])
        if page.get("next_after") is None or not page["events"]:
            return events
        after = page["next_after"]
    raise CheckFailed("event paging did not end")


def verify_log(client, match_id, claims):
    """Checks one match's log against what clients were told.

    `claims` maps seq -> expected tally points of side 0, from every 201 answer (acknowledged).
    Checks: the view and the whole log read back; seqs are exactly 1..N with no gap; every event
    is a complete tally whose points sum to 160; every claimed seq holds the claimed content;
    every event is claimed (nothing recorded that no 201 announced); the score totals equal the
    sum of the recorded tallies. Returns the number of events."""
    view, hdrs = client.json("GET", f"/v1/matches/{match_id}", expect=(200,))
    events = full_log(client, match_id)
    seqs = [e["seq"] for e in events]
    check(seqs == list(range(1, len(events) + 1)), f"{match_id}: seqs not contiguous from 1: {seqs[:20]}...")
    check(view["seq"] == len(events), f"{match_id}: view at seq {view['seq']} but the log has {len(events)}")
    check(hdrs.get("etag") == f'"{len(events)}"', f"{match_id}: ETag {hdrs.get('etag')} != log length")
    recorded = []
    for e in events:
        a = e.get("action") or {}
        pts = a.get("points")
        check(e["kind"] == "action" and a.get("type") == "tally" and isinstance(pts, list) and len(pts) == 2
              and sum(pts) == 160 and e.get("created_at"), f"{match_id}: incomplete event {e}")
        recorded.append(pts[0])
        if e["seq"] in claims:
            check(claims[e["seq"]] == pts[0],
                  f"{match_id}: seq {e['seq']} holds {pts} but its 201 said {claims[e['seq']]}")
    unclaimed = sorted(set(seqs) - set(claims))
    check(not unclaimed, f"{match_id}: events no 201 announced (doubled or phantom): {unclaimed[:20]}")
    missing = sorted(set(claims) - set(seqs))
    check(not missing, f"{match_id}: acknowledged seqs missing from the log: {missing[:20]}")
    expect = dump_totals(recorded)
    check(view["scores"]["totals"] == expect, f"{match_id}: totals {view['scores']['totals']} != tallies {expect}")
    sheet, _ = client.json("GET", f"/v1/matches/{match_id}/scores", expect=(200,))
    check(sheet["totals"] == expect, f"{match_id}: /scores totals {sheet['totals']} != {expect}")
    check(len(sheet["rounds"]) == len(events), f"{match_id}: {len(sheet['rounds'])} rounds for {len(events)} tallies")
    return len(events)

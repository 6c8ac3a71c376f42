#!/usr/bin/env python3
"""Set-up client of scripts/bench.sh (standard library only, one keep-alive connection).

  bench_client.py create BASE N OUT      N two-player table-dealt Dump matches (target 100000);
                                         writes "id host_token" lines to OUT (the baseline
                                         answers the same shape)
  bench_client.py short BASE             a match of 10 events: the deal and 9 cards
  bench_client.py long BASE N            a match of N events (N even, >= 10) whose view equals the
                                         short one's: (N - 10) / 2 pairs of a tally and its undo,
                                         then the deal and 9 cards; isolates the log's length
  bench_client.py tallies BASE N         a match of N tallies (80-80: nobody scores, the match never
                                         ends): N events and N lines on its score sheet
Each set-up command prints "id bytes", bytes being the size of the match view it built.
"""

import http.client
import json
import sys
import urllib.parse

PLAYERS = [{"name": "A"}, {"name": "B"}]


def cycle():
    """The write bench's action cycle (82 bodies), as in bench.sh's Lua script: a deal, then
    20 tricks in which the leader plays the higher card of a pair of one suit and the follower
    the lower, so the leader wins every trick and leads the next. The first deal's leader is
    seat 1 (dealer 0), the second's seat 0; then it repeats."""
    bodies = []
    for leader in (1, 0):
        bodies.append({"seat": None, "action": {"type": "deal"}})
        for suit in "SHDC":
            for high, low in (("3", "2"), ("8", "7"), ("T", "9"), ("Q", "J"), ("A", "K")):
                bodies.append({"seat": leader, "action": {"type": "play", "card": high + suit}})
                bodies.append({"seat": 1 - leader, "action": {"type": "play", "card": low + suit}})
    return bodies


class Client:
    def __init__(self, base):
        u = urllib.parse.urlsplit(base)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)

    def call(self, method, path, body=None, token=None, want=(200, 201)):
        headers = {"content-type": "application/json"}
        if token:
            headers["authorization"] = "Bearer " + token
        data = json.dumps(body) if body is not None else None
        self.conn.request(method, path, body=data, headers=headers)
        r = self.conn.getresponse()
        text = r.read()
        if r.status not in want:
            sys.exit(f"bench_client: {method} {path} {body} -> {r.status} {text[:300]!r}")
        return text

    def create(self):
        d = json.loads(self.call("POST", "/v1/matches", {
            "game": "dump", "players": PLAYERS, "dealing": "table", "config": {"target": 100000},
        }))
        return d["match"]["id"], d["host_token"]

    def act(self, mid, token, body):
        self.call("POST", f"/v1/matches/{mid}/actions", body, token)

    def undo(self, mid, token):
        self.call("POST", f"/v1/matches/{mid}/undo", None, token)

    def view_bytes(self, mid):
        return len(self.call("GET", f"/v1/matches/{mid}"))


def main():
    cmd, base = sys.argv[1], sys.argv[2]
    c = Client(base)
    if cmd == "create":
        n, out = int(sys.argv[3]), sys.argv[4]
        with open(out, "w") as f:
            for _ in range(n):
                f.write("%s %s\n" % c.create())
        return
    mid, token = c.create()
    if cmd == "long":
        n = int(sys.argv[3])
        for _ in range((n - 10) // 2):
            c.act(mid, token, {"seat": None, "action": {"type": "tally", "points": [80, 80]}})
            c.undo(mid, token)
    if cmd in ("short", "long"):
        for body in cycle()[:10]:
            c.act(mid, token, body)
    elif cmd == "tallies":
        for _ in range(int(sys.argv[3])):
            c.act(mid, token, {"seat": None, "action": {"type": "tally", "points": [80, 80]}})
    else:
        sys.exit(f"bench_client: unknown command {cmd}")
    print(mid, c.view_bytes(mid))


if __name__ == "__main__":
    main()

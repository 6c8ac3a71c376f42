#!/usr/bin/env python3
"""Webhooks survive crashes (issue 23). Python standard library only.

Starts `clubroom serve` on a fresh SQLite file (loopback receivers allowed, fast polling and
retries), and a receiver on 127.0.0.1 that checks every delivery's signature and answers 500 to
about one in ten at random (so retries happen too). Registers a webhook (`deal.scored`) on each of
several Dump matches, then records whole-deal tallies (each one event, each one `deal.scored`)
from several client threads, with an Idempotency-Key retried until answered, while the server is
SIGKILLed and restarted. Afterwards, from the logs as stored:

* every event of every match's log was delivered at least once (0 lost): a delivery whose `data`
  names that match and seq, correctly signed, reached the receiver;
* nothing was delivered that no log holds, and each event has exactly one delivery id (an event
  delivered again after a crash comes under the same id: the receiver deduplicates by it);
* every match webhook's delivery log lists one delivery per event, each `delivered`.

Prints the counts and exits non-zero on any failure.
"""

import argparse
import hashlib
import hmac
import json
import os
import random
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ci_support import CheckFailed, Client, Server, check, create_dump_match, exit_on_sigterm, full_log, tally_body  # noqa: E402


class Receiver:
    """Records every delivery (verifying its signature against the webhook's secret)."""

    def __init__(self, fail_rate, seed):
        self.lock = threading.Lock()
        self.secrets = {}        # match id -> secret
        self.got = []            # (delivery id, match id, seq, event)
        self.bad = []            # what failed a check
        self.failed = 0          # answered 500 on purpose
        self.rng = random.Random(seed)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                receiver.receive(self.headers, body)
                with receiver.lock:
                    fail = receiver.rng.random() < fail_rate
                    if fail:
                        receiver.failed += 1
                self.send_response(500 if fail else 204)
                self.send_header("content-length", "0")
                self.end_headers()

        # The worker posts a batch of 16 at once: a listen backlog of 5 (http.server's default)
        # drops the rest's SYNs, which the kernel resends a second later, past the attempt's
        # timeout (1 s here).
        class Server(ThreadingHTTPServer):
            request_queue_size = 128

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def receive(self, headers, body):
        try:
            payload = json.loads(body)
            data = payload["data"]
            secret = self.secrets[data["match_id"]]
            sig = dict(p.split("=", 1) for p in headers["clubroom-signature"].split(","))
            mac = hmac.new(secret.encode(), f"{sig['t']}.".encode() + body, hashlib.sha256).hexdigest()
            ok = (hmac.compare_digest(mac, sig["v1"]) and headers["clubroom-delivery"] == payload["id"]
                  and headers["clubroom-event"] == payload["type"] == "deal.scored")
            with self.lock:
                if not ok:
                    self.bad.append(f"bad signature or headers: {dict(headers)} {body[:200]!r}")
                self.got.append((payload["id"], data["match_id"], data["seq"], payload["type"]))
        except Exception as e:  # noqa: BLE001: anything malformed is a failure to report
            with self.lock:
                self.bad.append(f"malformed delivery {body[:200]!r}: {e!r}")


def writer(wid, shared, matches, seed, deadline):
    rng = random.Random(seed * 1000 + wid)
    client = Client(shared["addr"], timeout=10)
    n = 0
    while not shared["stop"].is_set() and time.monotonic() < deadline:
        n += 1
        match_id, token = rng.choice(matches)
        key = f"hook-{wid}-{n}"
        body = json.dumps(tally_body(rng.randint(0, 160)))
        headers = {"authorization": f"Bearer {token}", "idempotency-key": key}
        while True:  # the same request, the same key, until answered
            if time.monotonic() > deadline + 60:
                shared["errors"].append(f"{key}: never answered")
                return
            try:
                status, _, data = client.request("POST", f"/v1/matches/{match_id}/actions", body, headers,
                                                 addr=shared["addr"])
                break
            except OSError:
                time.sleep(0.02)
        if status != 201:
            shared["errors"].append(f"{key}: {status} {data[:300]}")
        else:
            shared["acks"] += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--kills", type=int, default=12)
    ap.add_argument("--matches", type=int, default=4)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--max-uptime", type=float, default=1.5, help="longest run between two kills (s)")
    ap.add_argument("--drain", type=float, default=150,
                    help="how long the deliveries may take to drain (s): retries back off, and a loaded machine is slow")
    args = ap.parse_args()
    exit_on_sigterm()
    rng = random.Random(args.seed)
    started = time.monotonic()
    os.environ.update({
        "CLUBROOM_WEBHOOKS_ALLOW_PRIVATE": "1",   # the receiver is on loopback
        "CLUBROOM_WEBHOOKS_POLL_MS": "50",
        "CLUBROOM_WEBHOOKS_RETRY_BASE_MS": "200",
        "CLUBROOM_WEBHOOKS_TIMEOUT_MS": "1000",   # a claim's lease: 3 s
    })
    receiver = Receiver(fail_rate=0.1, seed=args.seed)
    db = os.path.join(args.workdir, "hooks.db")
    server = Server(args.bin, f"sqlite://{db}?mode=rwc", args.workdir, "hooks")
    print(f"webhook check: seed {args.seed}, {args.kills} kills, {args.threads} writers, {args.matches} matches")
    try:
        addr = server.start()
        setup = Client(addr)
        matches, hooks = [], {}
        for _ in range(args.matches):
            m, token = create_dump_match(setup)
            created, _ = setup.json("POST", f"/v1/matches/{m}/webhooks",
                                    {"url": receiver.url, "events": ["deal.scored"]},
                                    {"authorization": f"Bearer {token}"}, expect=(201,))
            receiver.secrets[m] = created["secret"]
            hooks[m] = created["webhook"]["id"]
            matches.append((m, token))
        shared = {"addr": addr, "stop": threading.Event(), "errors": [], "acks": 0}
        deadline = time.monotonic() + 120
        threads = [threading.Thread(target=writer, args=(w, shared, matches, args.seed, deadline), daemon=True)
                   for w in range(args.threads)]
        for t in threads:
            t.start()
        kills = 0
        for _ in range(args.kills):
            time.sleep(rng.uniform(0.05, args.max_uptime))
            server.kill()
            kills += 1
            shared["addr"] = server.start()
            print(f"  kill {kills:2}: {shared['acks']} acknowledged, {len(receiver.got)} received so far", flush=True)
        shared["stop"].set()
        for t in threads:
            t.join(timeout=90)
        check(not any(t.is_alive() for t in threads), "a writer thread did not finish")
        check(not shared["errors"], f"writes answered other than 201: {shared['errors'][:5]}")
        client = Client(shared["addr"])

        # Every event of every log: delivered at least once, under one id.
        expected = set()
        for m, _ in matches:
            for e in full_log(client, m):
                expected.add((m, e["seq"]))
        drain_until = time.monotonic() + args.drain
        while True:
            with receiver.lock:
                got = list(receiver.got)
            delivered = {(m, s) for _, m, s, _ in got}
            missing = expected - delivered
            if not missing or time.monotonic() > drain_until:
                break
            time.sleep(0.2)
        check(not receiver.bad, f"{len(receiver.bad)} bad deliveries: {receiver.bad[:3]}")
        check(not missing, f"{len(missing)} events never delivered (lost): {sorted(missing)[:10]}")
        check(delivered <= expected, f"delivered events no log holds: {sorted(delivered - expected)[:10]}")
        ids = {}
        for did, m, s, _ in got:
            ids.setdefault((m, s), set()).add(did)
        several = {k: v for k, v in ids.items() if len(v) != 1}
        check(not several, f"events delivered under several ids: {list(several.items())[:5]}")
        check(len({did for did, _, _, _ in got}) == len(expected), "delivery ids and events do not pair one to one")
        repeats = len(got) - len(expected)

        # The delivery logs: one delivery per event, each delivered (the last 2xx may still be
        # being recorded: wait for it).
        for m, token in matches:
            want = sum(1 for mm, _ in expected if mm == m)
            for _ in range(100):
                states, cursor = [], None
                while True:
                    path = f"/v1/matches/{m}/webhooks/{hooks[m]}/deliveries?limit=100" + (f"&cursor={cursor}" if cursor else "")
                    try:
                        page, _ = client.json("GET", path, headers={"authorization": f"Bearer {token}"},
                                              expect=(200,))
                    except OSError:  # a keep-alive connection the server closed: ask again
                        page, _ = client.json("GET", path, headers={"authorization": f"Bearer {token}"},
                                              expect=(200,))
                    states += [d["state"] for d in page["deliveries"]]
                    cursor = page.get("next_cursor")
                    if not cursor:
                        break
                if states.count("delivered") == want:
                    break
                time.sleep(0.2)
            check(len(states) == want and states.count("delivered") == want,
                  f"{m}: the delivery log holds {len(states)} deliveries ({states.count('delivered')} delivered) for {want} events")
        server.kill()
        print(f"  {len(expected)} events, {len(got)} requests received ({repeats} repeated: answered 500 on purpose "
              f"{receiver.failed}, or redelivered after a kill), {shared['acks']} acknowledged writes")
        print(f"webhook check: PASS: kills={kills} events={len(expected)} delivered={len(expected)} lost=0 "
              f"({time.monotonic() - started:.0f} s)")
    except CheckFailed as e:
        server.kill()
        print(f"webhook check: FAIL: {e}")
        sys.exit(1)


if __name__ == "__main__":
    main()

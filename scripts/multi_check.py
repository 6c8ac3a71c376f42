#!/usr/bin/env python3
"""Many instances, one database (issue 3, item 4). Python standard library only.

Starts two `clubroom serve` processes on one database (both at once, so they also race to migrate
it), then:

1. race: client threads write whole-deal Dump tallies to the same matches through both instances
   at once, half of them with `If-Match` (a loser must get 412) and half without (the server must
   retry cleanly: 201). After every 201 through one instance, the match and the event just written
   are read through the other at once: it must see that seq (or later) with that content.
2. read-your-write: writes alternate between the instances on a match both have cached; a read
   through the other instance right after each write must equal the write's answer exactly
   (seq, ETag, scores, the whole view).
3. duels: on a card-play match, both instances are told at the same instant to play a different
   card for the seat that leads the trick, with and without `If-Match`: exactly one 201; the loser
   gets 412 (with) or 422 `not_your_turn` (without: re-judged on the fresh state).
4. idempotent twins: the same request with the same Idempotency-Key through both at the same
   instant: both answered 201 with the same body, recorded once.

Never a 500. Finally every match's log (read through each instance) is checked: seqs contiguous,
every 201's event present exactly once with its content, no event that no 201 announced, score
totals equal the sum of the tallies. Prints the counts; exits non-zero on any failure.
"""

import argparse
import json
import os
import random
import sys
import threading
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ci_support import (CheckFailed, Client, Server, check, create_dump_match, exit_on_sigterm,  # noqa: E402
                        full_log, tally_body, verify_log)


class Shared:
    def __init__(self):
        self.lock = threading.Lock()
        self.claims = {}          # match -> {seq: points} from every 201
        self.counts = Counter()
        self.errors = []

    def claim(self, match_id, seq, points, who):
        with self.lock:
            c = self.claims.setdefault(match_id, {})
            if seq in c:
                self.errors.append(f"{who}: seq {seq} of {match_id} announced twice")
            c[seq] = points

    def error(self, msg):
        with self.lock:
            self.errors.append(msg)

    def count(self, key, n=1):
        with self.lock:
            self.counts[key] += n


def racer(wid, shared, addrs, matches, use_if_match, deadline, max_ops, seed):
    """Phase 1: one client thread writing through instance `wid % 2`."""
    rng = random.Random(seed * 100 + wid)
    here, there = addrs[wid % 2], addrs[(wid + 1) % 2]
    mode = "if_match" if use_if_match else "plain"
    own, other = Client(here), Client(there)
    for n in range(max_ops):
        if time.monotonic() > deadline:
            return
        match_id, token = rng.choice(matches)
        points = rng.randint(0, 160)
        headers = {"authorization": f"Bearer {token}", "idempotency-key": f"race-{wid}-{n}"}
        try:
            if use_if_match:
                status, hdrs, _ = own.request("GET", f"/v1/matches/{match_id}")
                check(status == 200, f"GET -> {status}")
                headers["if-match"] = hdrs["etag"]
            for _attempt in range(20):
                status, hdrs, data = own.request("POST", f"/v1/matches/{match_id}/actions",
                                                 tally_body(points), headers)
                if status != 503:
                    break
                shared.count(f"{mode}_503")  # `busy`: retried with the same key
                time.sleep(0.01)
            if status == 412:
                check(use_if_match, f"412 without If-Match: {data[:300]}")
                check(json.loads(data).get("code") == "stale_version", f"412 body {data[:300]}")
                shared.count(f"{mode}_412")
                continue
            check(status == 201, f"{mode} write via {here} -> {status}: {data[:300]}")
            shared.count(f"{mode}_201")
            event = json.loads(data)["event"]
            seq = event["seq"]
            check(event["action"]["points"][0] == points, f"answer shows {event['action']}")
            if use_if_match:
                want = int(headers["if-match"].strip('"')) + 1
                check(seq == want, f"If-Match {headers['if-match']} recorded at seq {seq}")
            shared.claim(match_id, seq, points, headers["idempotency-key"])
            # Read through the other instance at once: it must see this write.
            status, hdrs, data = other.request("GET", f"/v1/matches/{match_id}")
            check(status == 200, f"GET via {there} -> {status}")
            seen = json.loads(data)["seq"]
            check(seen >= seq and hdrs["etag"] == f'"{seen}"',
                  f"stale read via {there}: seq {seen} (ETag {hdrs.get('etag')}) after seq {seq} was written via {here}")
            status, _, data = other.request("GET", f"/v1/matches/{match_id}/events?after={seq - 1}&limit=1")
            check(status == 200, f"GET events via {there} -> {status}")
            evs = json.loads(data)["events"]
            check(len(evs) == 1 and evs[0]["seq"] == seq and evs[0]["action"]["points"][0] == points,
                  f"via {there} the event at seq {seq} is {evs}, written via {here} as {points}")
            shared.count("read_after_write")
        except (CheckFailed, OSError, KeyError, ValueError) as e:
            shared.error(f"racer {wid} ({mode} via {here}): {e}")
            return


def read_your_write(shared, addrs, match_id, token, rounds, rng):
    """Phase 2: alternate writes between the instances; the other must answer exactly the new state."""
    clients = [Client(a) for a in addrs]
    for c in clients:  # both instances hold the match in their cache before the writes start
        c.json("GET", f"/v1/matches/{match_id}", expect=(200,))
    for n in range(rounds):
        w, r = clients[n % 2], clients[(n + 1) % 2]
        points = rng.randint(0, 160)
        answer, hdrs = w.json("POST", f"/v1/matches/{match_id}/actions", tally_body(points),
                              {"authorization": f"Bearer {token}", "idempotency-key": f"ryw-{n}"}, expect=(201,))
        seq = answer["event"]["seq"]
        shared.claim(match_id, seq, points, f"ryw-{n}")
        view, vh = r.json("GET", f"/v1/matches/{match_id}", expect=(200,))
        check(vh.get("etag") == hdrs.get("etag") == f'"{seq}"', f"ETag via reader {vh.get('etag')} after write {hdrs.get('etag')}")
        check(view == answer["match"], f"read via {r.addr} after a write via {w.addr} differs from the write's answer:\n"
                                       f"{json.dumps(view)[:400]}\n{json.dumps(answer['match'])[:400]}")
        sheet, _ = r.json("GET", f"/v1/matches/{match_id}/scores", expect=(200,))
        check(sheet == answer["match"]["scores"], "score sheet via the other instance differs")
        shared.count("read_your_write")


def post_at_once(requests):
    """Sends [(client, path, body, headers)] from one thread each, released together."""
    barrier = threading.Barrier(len(requests))
    out = [None] * len(requests)

    def go(i, c, path, body, headers):
        barrier.wait()
        try:
            out[i] = c.request("POST", path, body, headers)
        except OSError as e:
            out[i] = (0, {}, str(e))
    ts = [threading.Thread(target=go, args=(i, *r)) for i, r in enumerate(requests)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=60)
    return out


def duels(shared, addrs, rounds):
    """Phase 3: card plays raced through both instances. Returns (match id, claims {seq: (seat, action)})."""
    a, b = Client(addrs[0]), Client(addrs[1])
    match_id, token = create_dump_match(a)
    auth = {"authorization": f"Bearer {token}"}
    path = f"/v1/matches/{match_id}/actions"
    claims = {}

    def record(resp, seat, action, who):
        event = json.loads(resp)["event"]
        check(event["seq"] not in claims, f"{who}: seq {event['seq']} announced twice")
        check(event["seat"] == seat and event["action"]["type"] == action["type"], f"{who}: answer {event}")
        claims[event["seq"]] = (seat, action)
        return event["seq"]

    done = 0
    for step in range(rounds * 12):
        if done >= rounds:
            break
        view, hdrs = a.json("GET", f"/v1/matches/{match_id}", expect=(200,))
        if step % 7 == 6 and view["seq"] > 0:
            # An undo through B, read back through A at once: A must replay without the retracted
            # action (its cache holds the state before the undo).
            resp, _ = b.json("POST", f"/v1/matches/{match_id}/undo", None,
                             dict(auth, **{"if-match": hdrs["etag"]}), expect=(201,))
            event = resp["event"]
            check(event["kind"] == "undo" and event["seq"] not in claims, f"undo answer {event}")
            claims[event["seq"]] = ("undo", event["retracts"])
            after, _ = a.json("GET", f"/v1/matches/{match_id}", expect=(200,))
            check(after == resp["match"], "after an undo via B, A's view differs from the undo's answer")
            shared.count("undos")
            continue
        if view["table_to_act"]:
            action = {"type": "deal"}
            resp, _ = a.json("POST", path, {"seat": None, "action": action}, auth, expect=(201,))
            record(json.dumps(resp), None, action, "deal")
            continue
        seat = view["to_act"][0]
        legal, _ = a.json("GET", f"/v1/matches/{match_id}/legal?seat={seat}", headers=auth, expect=(200,))
        plays = [x for x in legal["actions"] if x["type"] == "play"]
        check(plays, f"no legal play for seat {seat}: {legal}")
        if view["table"]["trick"] or len(plays) < 2:
            # Not a lead (the same seat might legally play twice in a row) or no choice: advance.
            resp, _ = b.json("POST", path, {"seat": seat, "action": plays[0]}, auth, expect=(201,))
            record(json.dumps(resp), seat, plays[0], "advance")
            continue
        with_if_match = done % 2 == 0
        c1, c2 = random.sample(plays, 2)
        h = dict(auth, **({"if-match": hdrs["etag"]} if with_if_match else {}))
        out = post_at_once([(a, path, {"seat": seat, "action": c1}, h), (b, path, {"seat": seat, "action": c2}, h)])
        statuses = sorted(s for s, _, _ in out)
        loser = 412 if with_if_match else 422
        check(statuses == sorted([201, loser]),
              f"duel {done} ({'with' if with_if_match else 'without'} If-Match): {[(s, d[:200]) for s, _, d in out]}")
        for (s, _, d), act in zip(out, (c1, c2)):
            if s == 201:
                record(d, seat, act, f"duel {done}")
            elif not with_if_match:
                check(json.loads(d)["code"] == "not_your_turn", f"duel loser without If-Match: {d[:300]}")
        shared.count("duels_if_match" if with_if_match else "duels_plain")
        done += 1
    check(done >= rounds, f"only {done} duels in {rounds * 12} steps")
    return match_id, claims


def verify_duel_log(client, match_id, claims):
    client.json("GET", f"/v1/matches/{match_id}", expect=(200,))
    client.json("GET", f"/v1/matches/{match_id}/scores", expect=(200,))
    events = full_log(client, match_id)
    check([e["seq"] for e in events] == list(range(1, len(events) + 1)), "duel match: seqs not contiguous")
    check(len(events) == len(claims), f"duel match: {len(events)} events for {len(claims)} 201 answers")
    for e in events:
        seat, action = claims[e["seq"]]
        if seat == "undo":
            check(e["kind"] == "undo" and e["retracts"] == action, f"duel match seq {e['seq']}: {e}, want an undo")
            continue
        check(e["seat"] == seat and all(e["action"].get(k) == v for k, v in action.items()),
              f"duel match seq {e['seq']}: {e} but its 201 was {seat} {action}")
    return len(events)


def twins(shared, addrs, match_id, token, rounds, rng):
    """Phase 4: one request, one key, both instances at the same instant."""
    a, b = Client(addrs[0]), Client(addrs[1])
    path = f"/v1/matches/{match_id}/actions"
    for n in range(rounds):
        points = rng.randint(0, 160)
        h = {"authorization": f"Bearer {token}", "idempotency-key": f"twin-{n}"}
        out = post_at_once([(a, path, tally_body(points), h), (b, path, tally_body(points), h)])
        check(all(s == 201 for s, _, _ in out), f"twin {n}: {[(s, d[:200]) for s, _, d in out]}")
        check(out[0][2] == out[1][2], f"twin {n}: the two answers differ")
        replays = sum(1 for _, hd, _ in out if hd.get("idempotent-replayed") == "true")
        # Both may be replays when neither got there first... no: exactly one recorded it.
        check(replays == 1, f"twin {n}: {replays} answers marked as replays (want 1)")
        shared.claim(match_id, json.loads(out[0][2])["event"]["seq"], points, f"twin-{n}")
        shared.count("twins")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--database-url", required=True)
    ap.add_argument("--label", default="")
    ap.add_argument("--matches", type=int, default=3)
    ap.add_argument("--threads", type=int, default=8, help="racing client threads (a multiple of 4)")
    ap.add_argument("--seconds", type=float, default=15, help="length of the race phase")
    ap.add_argument("--ops", type=int, default=300, help="most writes per racing thread")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    args = ap.parse_args()
    exit_on_sigterm()
    label = args.label or args.database_url.split(":")[0]
    rng = random.Random(args.seed)
    random.seed(args.seed)
    started = time.monotonic()
    servers = [Server(args.bin, args.database_url, args.workdir, name) for name in ("a", "b")]
    shared = Shared()
    print(f"multi check ({label}): seed {args.seed}, 2 instances, {args.threads} racing clients, {args.matches} matches")
    try:
        # Start both at once: they also race to apply the migrations to the fresh database.
        failures = []

        def start(s):
            try:
                s.start()
            except CheckFailed as e:
                failures.append(str(e))
        starters = [threading.Thread(target=start, args=(s,)) for s in servers]
        for t in starters:
            t.start()
        for t in starters:
            t.join()
        check(not failures, f"an instance did not start: {failures}")
        addrs = [s.addr for s in servers]
        print(f"  instances on {addrs[0]} and {addrs[1]}")
        a = Client(addrs[0])
        matches = [create_dump_match(Client(addrs[i % 2])) for i in range(args.matches)]

        deadline = time.monotonic() + args.seconds
        threads = [threading.Thread(target=racer, args=(w, shared, addrs, matches, (w // 2) % 2 == 0,
                                                        deadline, args.ops, args.seed), daemon=True)
                   for w in range(args.threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=args.seconds + 120)
        check(not any(t.is_alive() for t in threads), "a racing client did not finish")
        check(not shared.errors, f"race: {shared.errors[:5]}")

        read_your_write(shared, addrs, *matches[0], 20, rng)
        duel_match, duel_claims = duels(shared, addrs, 20)
        twins(shared, addrs, *matches[-1], 20, rng)
        check(not shared.errors, f"{shared.errors[:5]}")

        events = 0
        for addr in addrs:
            c = Client(addr)
            events = sum(verify_log(c, m, shared.claims.get(m, {})) for m, _ in matches)
            duel_events = verify_duel_log(c, duel_match, duel_claims)
        c = shared.counts
        print(f"  race with If-Match: {c['if_match_201']} recorded, {c['if_match_412']} lost the race (412), "
              f"{c['if_match_503']} busy (503)")
        print(f"  race without If-Match: {c['plain_201']} recorded (retried inside the server), "
              f"{c['plain_503']} busy (503)")
        print(f"  reads through the other instance right after a write: {c['read_after_write']} in the race, "
              f"{c['read_your_write']} exact; stale: 0")
        print(f"  duels: {c['duels_if_match']} with If-Match (one 201, one 412), {c['duels_plain']} without "
              f"(one 201, one 422 not_your_turn), {c['undos']} undos via one read via the other; idempotent twins: {c['twins']} (recorded once each)")
        print(f"  logs: {events} tally events over {len(matches)} matches + {duel_events} on the duel match, "
              f"read through both instances: contiguous, none lost, none doubled; 500s: 0")
        print(f"multi check ({label}): PASS: written={sum(len(v) for v in shared.claims.values()) + len(duel_claims)} "
              f"lost=0 doubled=0 412={c['if_match_412'] + c['duels_if_match']} 500=0 "
              f"({time.monotonic() - started:.0f}s)")
        return 0
    except CheckFailed as e:
        print(f"multi check ({label}): FAIL: {e}")
        return 1
    finally:
        for s in servers:
            s.stop()


if __name__ == "__main__":
    sys.exit(main())

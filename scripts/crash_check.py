#!/usr/bin/env python3
"""Crash safety check (issue 3, item 3). Python standard library only.

Starts `clubroom serve` on a fresh SQLite file, drives concurrent writes (several client threads
over several Dump matches; every write is a legal whole-deal tally with an Idempotency-Key), kills
the server with SIGKILL at random moments, restarts it on the same file each time, and finally
checks against everything the clients were told:

* every action that got a 2xx answer is in the log, at the seq its answer named, with its content,
  and re-sending it with its Idempotency-Key replays the very same answer;
* nothing is half-recorded: the log of every match reads back complete (seqs 1..N, each a valid
  tally), each match replays in the engine (its view, log and score sheet answer 200) and its score
  totals equal the sum of the recorded tallies; the file passes `PRAGMA integrity_check`, and the
  keys stored in it are exactly the keys clients were answered for;
* a request in flight when the server died (no answer) is retried with its key until it is
  answered: it is either replayed (it was committed before the crash) or recorded then, once.

Prints the counts (acknowledged, found, lost) and exits non-zero on any failure.
"""

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ci_support import (OPERATOR_TOKEN, CheckFailed, Client, Server, check, create_dump_match, exit_on_sigterm,  # noqa: E402
                        tally_body, verify_log)


class Shared:
    def __init__(self):
        self.lock = threading.Lock()
        self.addr = None
        self.stop = threading.Event()
        self.acks = []          # one dict per 201 answer
        self.errors = []        # anything that is not a 201 or a missing answer
        self.failed_attempts = 0
        self.created = []       # (match id, host token) of creations answered 201 during the kills


def worker(wid, shared, matches, seed, deadline):
    rng = random.Random(seed * 1000 + wid)
    client = Client(shared.addr, timeout=10)
    n = 0
    while not shared.stop.is_set() and time.monotonic() < deadline:
        n += 1
        match_id, token = rng.choice(matches)
        key = f"crash-{wid}-{n}"
        points = rng.randint(0, 160)
        body = json.dumps(tally_body(points))
        headers = {"authorization": f"Bearer {token}", "idempotency-key": key}
        misses = 0
        # Retry the same request with the same key until it is answered, like a phone would.
        while True:
            if time.monotonic() > deadline + 60:
                with shared.lock:
                    shared.errors.append(f"{key}: never answered")
                return
            try:
                status, hdrs, data = client.request("POST", f"/v1/matches/{match_id}/actions", body,
                                                    headers, addr=shared.addr)
                break
            except OSError:
                misses += 1
                with shared.lock:
                    shared.failed_attempts += 1
                time.sleep(0.02)
        if status != 201:
            with shared.lock:
                shared.errors.append(f"{key}: {status} {data[:300]}")
            continue
        event = json.loads(data)["event"]
        with shared.lock:
            shared.acks.append({
                "match": match_id, "token": token, "key": key, "points": points, "body": body,
                "seq": event["seq"], "answer": data, "recorded": event["action"]["points"][0],
                "replayed": hdrs.get("idempotent-replayed") == "true", "in_flight": misses > 0,
            })


def creator(shared, deadline):
    """Creates a match now and then while the kills go on; remembers the ones answered 201."""
    client = Client(shared.addr, timeout=10)
    body = json.dumps({"game": "dump", "players": [{"name": "A"}, {"name": "B"}], "config": {"target": 100000}})
    while not shared.stop.is_set() and time.monotonic() < deadline:
        time.sleep(0.1)
        try:
            status, _, data = client.request("POST", "/v1/matches", body, addr=shared.addr)
        except OSError:
            continue  # unanswered: it may or may not exist; the final listing checks it is whole
        if status != 201:
            with shared.lock:
                shared.errors.append(f"create: {status} {data[:300]}")
            continue
        created = json.loads(data)
        with shared.lock:
            shared.created.append((created["match"]["id"], created["host_token"]))


def fsync_check(binary, workdir, writes=20):
    """Runs a fresh server under strace and counts fsync/fdatasync calls while `writes` actions are
    recorded one after another: with synchronous = FULL each commit syncs the WAL, so there must be
    at least one per write. (SIGKILL cannot tell FULL from NORMAL, a power cut could.) Returns the
    count, or None when strace is missing or may not trace here."""
    if not shutil.which("strace"):
        print("  fsync check skipped: no strace")
        return None
    trace = os.path.join(workdir, "fsync.strace")
    server = Server(binary, f"sqlite://{os.path.join(workdir, 'fsync.db')}?mode=rwc", workdir, "fsync",
                    prefix=["strace", "-f", "-qq", "-e", "trace=fsync,fdatasync", "-o", trace])
    child = None
    try:
        try:
            addr = server.start(timeout=60)
        except CheckFailed as e:
            print(f"  fsync check skipped: the server does not run under strace here ({str(e)[:200]})")
            return None
        with open(f"/proc/{server.proc.pid}/task/{server.proc.pid}/children") as f:
            child = int(f.read().split()[0])
        client = Client(addr)
        match_id, token = create_dump_match(client)

        def syncs():
            with open(trace, errors="replace") as f:
                return sum(1 for line in f if "fsync(" in line or "fdatasync(" in line)
        before = syncs()
        for n in range(writes):
            client.json("POST", f"/v1/matches/{match_id}/actions", tally_body(90),
                        {"authorization": f"Bearer {token}"}, expect=(201,))
        count = syncs() - before
        check(count >= writes, f"{count} fsync calls for {writes} acknowledged writes: commits are not synced")
        return count
    finally:
        if child is not None:
            os.kill(child, signal.SIGKILL)
        server.kill()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the clubroom binary")
    ap.add_argument("--workdir", required=True, help="a fresh directory for the database and logs")
    ap.add_argument("--kills", type=int, default=25)
    ap.add_argument("--matches", type=int, default=6)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--max-uptime", type=float, default=0.8, help="longest run between two kills (s)")
    ap.add_argument("--time-limit", type=float, default=240, help="overall bound on the write phase (s)")
    args = ap.parse_args()
    exit_on_sigterm()
    rng = random.Random(args.seed)
    started = time.monotonic()
    db = os.path.join(args.workdir, "crash.db")
    server = Server(args.bin, f"sqlite://{db}?mode=rwc", args.workdir, "crash")
    shared = Shared()
    print(f"crash check: seed {args.seed}, {args.kills} kills, {args.threads} writers, {args.matches} matches, db {db}")
    try:
        shared.addr = server.start()
        setup = Client(shared.addr)
        matches = [create_dump_match(setup) for _ in range(args.matches)]
        deadline = time.monotonic() + args.time_limit
        threads = [threading.Thread(target=worker, args=(w, shared, matches, args.seed, deadline), daemon=True)
                   for w in range(args.threads)]
        threads.append(threading.Thread(target=creator, args=(shared, deadline), daemon=True))
        for t in threads:
            t.start()
        kills = 0
        for _ in range(args.kills):
            if time.monotonic() > deadline:
                break
            time.sleep(rng.uniform(0.02, args.max_uptime))
            before = len(shared.acks)
            server.kill()
            kills += 1
            shared.addr = server.start()
            print(f"  kill {kills:2}: {before} acknowledged so far, restarted on {shared.addr}", flush=True)
        time.sleep(0.5)
        shared.stop.set()
        for t in threads:
            t.join(timeout=120)
        check(not any(t.is_alive() for t in threads), "a writer thread did not finish")
        # One more crash, so that everything below is read back from the file after a crash.
        server.kill()
        kills += 1
        addr = server.start()
        client = Client(addr)
        check(not shared.errors, f"{len(shared.errors)} writes answered other than 201: {shared.errors[:5]}")
        acks = shared.acks
        check(kills >= 20 or args.kills < 20, f"only {kills} kills within the time limit")

        # Each 201 named one (match, seq): no two answers may name the same one.
        claims = {m: {} for m, _ in matches}
        for a in acks:
            check(a["recorded"] == a["points"], f"{a['key']}: answer shows {a['recorded']}, sent {a['points']}")
            check(a["seq"] not in claims[a["match"]],
                  f"{a['key']}: seq {a['seq']} of {a['match']} was already announced to another request")
            claims[a["match"]][a["seq"]] = a["points"]
        events = sum(verify_log(client, m, claims[m]) for m, _ in matches)

        # Matches created during the kills: every answered one exists, empty, its host token valid;
        # every match listed (answered or not) loads, i.e. none is half-created.
        for m, token in shared.created:
            view, _ = client.json("GET", f"/v1/matches/{m}", headers={"authorization": f"Bearer {token}"}, expect=(200,))
            check(view["seq"] == 0 and len(view["players"]) == 2, f"created match {m} reads back as {view}")
        listed, cursor = 0, None
        for _ in range(1000):
            page, _ = client.json("GET", "/v1/matches?limit=100" + (f"&cursor={cursor}" if cursor else ""),
                                  headers={"authorization": f"Bearer {OPERATOR_TOKEN}"}, expect=(200,))
            for summary in page["matches"]:
                client.json("GET", f"/v1/matches/{summary['id']}", expect=(200,))
                client.json("GET", f"/v1/matches/{summary['id']}/events", expect=(200,))
            listed += len(page["matches"])
            cursor = page.get("next_cursor")
            if not cursor:
                break
        known = {m for m, _ in matches} | {m for m, _ in shared.created}
        check(listed >= len(known), f"{listed} matches listed, {len(known)} were answered 201")

        # Re-sending every acknowledged request with its key replays the first answer, byte for byte.
        found = 0
        for a in acks:
            status, hdrs, data = client.request(
                "POST", f"/v1/matches/{a['match']}/actions", a["body"],
                {"authorization": f"Bearer {a['token']}", "idempotency-key": a["key"]})
            if status == 201 and hdrs.get("idempotent-replayed") == "true" and data == a["answer"]:
                found += 1
            else:
                print(f"  LOST {a['key']}: re-send answered {status} {data[:200]}")
        lost = len(acks) - found
        in_flight = [a for a in acks if a["in_flight"]]
        committed_before = sum(1 for a in in_flight if a["replayed"])
        recorded_on_retry = len(in_flight) - committed_before
        server.kill()

        # The file itself: intact, WAL, and holding exactly the keys clients were answered for.
        con = sqlite3.connect(db)
        integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
        journal = con.execute("PRAGMA journal_mode").fetchone()[0]
        rows = con.execute("SELECT match_id, seq, idem_key, response_status, response IS NOT NULL FROM events").fetchall()
        con.close()
        check(integrity == "ok", f"integrity_check: {integrity}")
        check(journal == "wal", f"journal_mode is {journal}, not wal")
        stored = {(m, k) for m, _, k, _, _ in rows}
        answered = {(a["match"], a["key"]) for a in acks}
        check(len(rows) == events and len(stored) == len(rows), "rows and keys do not pair one to one")
        check(stored == answered, f"stored keys != answered keys: {len(stored - answered)} stored unanswered, "
                                  f"{len(answered - stored)} answered not stored")
        check(all(s == 201 and r for _, _, _, s, r in rows), "an event without its remembered answer")

        syncs = fsync_check(args.bin, args.workdir)
        if syncs is not None:
            print(f"  fsync check (strace): {syncs} fsync calls for 20 acknowledged writes (synchronous = FULL)")
        print(f"  in flight at a kill (no answer, retried with the same key): {len(in_flight)}: "
              f"{committed_before} had been committed (replayed), {recorded_on_retry} recorded on retry; "
              f"{shared.failed_attempts} attempts got no answer")
        print(f"  matches created during the kills: {len(shared.created)} answered 201, all found; "
              f"{listed - len(known)} more created but unanswered, all whole")
        print(f"  events in the log: {events} over {len(matches)} matches; integrity_check ok; journal_mode wal")
        print(f"crash check: {'PASS' if lost == 0 else 'FAIL'}: kills={kills} acknowledged={len(acks)} "
              f"found={found} lost={lost} ({time.monotonic() - started:.0f}s)")
        return 0 if lost == 0 else 1
    except CheckFailed as e:
        print(f"crash check: FAIL: {e}")
        return 1
    finally:
        shared.stop.set()
        server.kill()


if __name__ == "__main__":
    sys.exit(main())

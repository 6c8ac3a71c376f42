#!/usr/bin/env python3
"""Disk-full check (issue 10, item 1). Python standard library only. Needs root (mounts a tmpfs).

Mounts a small tmpfs, starts `clubroom serve` on a SQLite file there, creates a few Dump matches,
fills the rest of the tmpfs with a filler file (all but a little room), then drives concurrent
idempotent writes until every writer has been refused several times in a row. Checks:

* every answer is either 201 or 503 `storage_unavailable` with `Retry-After` (never a 500, never
  another code); a match creation on the full disk is refused the same way;
* once the filler is deleted (space is back), the service recovers by itself: every refused
  request, re-sent with its Idempotency-Key, is recorded (201), and new writes succeed;
* after a restart (SIGKILL, then a new process on the same file) every acknowledged write is in
  the log at the seq its answer named, with its content, and nothing else is (no refused write was
  recorded behind the client's back); the score totals equal the tallies; `PRAGMA
  integrity_check` is ok.

Prints `diskfull: PASS acknowledged=N found=N lost=0 refused_503=M` and exits non-zero on failure.
"""

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ci_support import (CheckFailed, Client, Server, check, create_dump_match, exit_on_sigterm,  # noqa: E402
                        tally_body, verify_log)


class Shared:
    def __init__(self):
        self.lock = threading.Lock()
        self.acks = []        # (match, seq, points, key) of every 201
        self.refused = []     # (match, token, key, points) of every 503 storage_unavailable
        self.errors = []      # anything else
        self.statuses = {}


def send(client, match_id, token, key, points):
    return client.request("POST", f"/v1/matches/{match_id}/actions", tally_body(points),
                          {"authorization": f"Bearer {token}", "idempotency-key": key})


def record(shared, match_id, token, key, points, status, hdrs, data):
    """Files one answer; returns True when it was a refusal."""
    with shared.lock:
        shared.statuses[status] = shared.statuses.get(status, 0) + 1
        if status == 201:
            event = json.loads(data)["event"]
            if event["action"]["points"][0] != points:
                shared.errors.append(f"{key}: answer shows {event['action']} for {points}")
            shared.acks.append((match_id, event["seq"], points, key))
            return False
        try:
            code = json.loads(data).get("code")
        except ValueError:
            code = None
        if status == 503 and code == "storage_unavailable" and hdrs.get("retry-after"):
            shared.refused.append((match_id, token, key, points))
        else:
            shared.errors.append(f"{key}: {status} {data[:300]} retry-after={hdrs.get('retry-after')}")
        return True


def writer(wid, shared, addr, matches, in_a_row, deadline):
    client = Client(addr, timeout=30)
    refusals, n = 0, 0
    while refusals < in_a_row and time.monotonic() < deadline:
        n += 1
        match_id, token = matches[(wid + n) % len(matches)]
        key = f"full-{wid}-{n}"
        points = (wid * 37 + n * 11) % 161
        status, hdrs, data = send(client, match_id, token, key, points)
        refusals = refusals + 1 if record(shared, match_id, token, key, points, status, hdrs, data) else 0


def statvfs_free(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the clubroom binary")
    ap.add_argument("--workdir", required=True, help="a fresh directory (the tmpfs is mounted in it)")
    ap.add_argument("--size-kib", type=int, default=8192, help="tmpfs size")
    ap.add_argument("--room-kib", type=int, default=1024, help="space left free next to the filler")
    ap.add_argument("--matches", type=int, default=6)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--in-a-row", type=int, default=5, help="refusals in a row that stop a writer")
    ap.add_argument("--time-limit", type=float, default=180)
    args = ap.parse_args()
    exit_on_sigterm()
    started = time.monotonic()
    mnt = os.path.join(args.workdir, "mnt")
    os.makedirs(mnt, exist_ok=True)
    subprocess.check_call(["mount", "-t", "tmpfs", "-o", f"size={args.size_kib}k", "tmpfs", mnt])
    db = os.path.join(mnt, "full.db")
    server = Server(args.bin, f"sqlite://{db}?mode=rwc", args.workdir, "diskfull")
    shared = Shared()
    try:
        addr = server.start()
        setup = Client(addr)
        matches = [create_dump_match(setup) for _ in range(args.matches)]
        filler = os.path.join(mnt, "filler")
        with open(filler, "wb") as f:
            f.write(b"\0" * max(statvfs_free(mnt) - args.room_kib * 1024, 0))
        print(f"diskfull: tmpfs {args.size_kib} KiB at {mnt}, {statvfs_free(mnt) // 1024} KiB left next to the filler")

        deadline = time.monotonic() + args.time_limit
        threads = [threading.Thread(target=writer, args=(w, shared, addr, matches, args.in_a_row, deadline), daemon=True)
                   for w in range(args.threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=args.time_limit + 60)
        check(not any(t.is_alive() for t in threads), "a writer thread did not finish")
        full_acks, full_refused = len(shared.acks), len(shared.refused)
        check(not shared.errors, f"{len(shared.errors)} answers other than 201 or 503 storage_unavailable "
                                 f"(statuses {shared.statuses}): {shared.errors[:3]}")
        check(full_refused > 0, f"the disk never filled up ({full_acks} writes acknowledged): are they committed?")
        # A creation on the full disk: 503 storage_unavailable as well (or 201 if its rows fit).
        body = {"game": "dump", "players": [{"name": "A"}, {"name": "B"}], "config": {"target": 100000}}
        created_on_full = 0
        for _ in range(20):
            status, hdrs, data = setup.request("POST", "/v1/matches", body)
            if status == 201:
                created_on_full += 1
                continue
            check(status == 503 and json.loads(data).get("code") == "storage_unavailable" and hdrs.get("retry-after"),
                  f"a creation on the full disk answered {status} {data[:300]}")
            break
        else:
            raise CheckFailed("20 creations fit on the full disk")
        # Reads still answer.
        setup.json("GET", f"/v1/matches/{matches[0][0]}", expect=(200,))
        print(f"  full: {full_acks} writes acknowledged, {full_refused} refused with 503 storage_unavailable, "
              f"statuses {shared.statuses}")

        # Space comes back; no restart. Every refused request is re-sent with its key: recorded once.
        os.remove(filler)
        client = Client(addr, timeout=30)
        recovered_at = None
        t0 = time.monotonic()
        for match_id, token, key, points in list(shared.refused):
            for attempt in range(50):
                status, hdrs, data = send(client, match_id, token, key, points)
                if status == 201:
                    if recovered_at is None:
                        recovered_at = time.monotonic() - t0
                    break
                time.sleep(0.1)
            check(status == 201, f"{key}: still {status} {data[:300]} after space came back")
            event = json.loads(data)["event"]
            with shared.lock:
                shared.acks.append((match_id, event["seq"], points, key))
        for i, (match_id, token) in enumerate(matches):
            status, hdrs, data = send(client, match_id, token, f"after-{i}", 80)
            check(status == 201, f"a new write after space came back: {status} {data[:300]}")
            shared.acks.append((match_id, json.loads(data)["event"]["seq"], 80, f"after-{i}"))

        # A crash and a restart: everything is read back from the file.
        server.kill()
        addr = server.start()
        client = Client(addr)
        claims = {m: {} for m, _ in matches}
        for m, seq, points, key in shared.acks:
            check(seq not in claims[m], f"{key}: seq {seq} of {m} announced twice")
            claims[m][seq] = points
        found = sum(verify_log(client, m, claims[m]) for m, _ in matches)
        server.kill()
        con = sqlite3.connect(db)
        integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
        keys = {(m, k) for m, k in con.execute("SELECT match_id, idem_key FROM events")}
        con.close()
        check(integrity == "ok", f"integrity_check: {integrity}")
        check(keys == {(m, k) for m, _, _, k in shared.acks}, "stored keys differ from the acknowledged ones")
        acknowledged = len(shared.acks)
        lost = acknowledged - found
        print(f"  space back: first refused write recorded after {recovered_at:.2f}s; all {full_refused} refused "
              f"writes recorded on retry with their keys; {created_on_full} creations fitted on the full disk")
        print(f"diskfull: {'PASS' if lost == 0 else 'FAIL'} acknowledged={acknowledged} found={found} lost={lost} "
              f"refused_503={full_refused} integrity=ok ({time.monotonic() - started:.0f}s)")
        return 0 if lost == 0 else 1
    except CheckFailed as e:
        print(f"diskfull: FAIL: {e}")
        return 1
    finally:
        server.kill()
        subprocess.run(["umount", "-l", mnt], check=False)


if __name__ == "__main__":
    sys.exit(main())

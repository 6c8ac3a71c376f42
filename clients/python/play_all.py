#!/usr/bin/env python3
"""Plays a full match of every game of the catalogue through the GENERATED Python client only.

The client (`clubroom_client`) is generated from `openapi/openapi.json` by openapi-python-client
(scripts/ci-client.sh). This file builds no URL, header or JSON body, and reads no raw JSON: every
request goes through the client's API functions, every answer is read through the model the
client parsed it into, and every action sent is exactly the model object `legal` returned (no
dict surgery). That is what the spec promises an integrator (issue 23): the per-game documents
are discriminated by `game`, so the client reads a P.M. legal play as a P.M. play (with its
`from`), never as Dump's.

For each game (`GET /v1/games`), with service dealing and a short configuration (Dump and
Bonus-Malus to a target of 1, P.M. one game a rubber), until the match is finished:
  * read the match view with the host token: the model is the game's own (`DumpMatchView`, ...),
    and so are its `table`, `config` and `scores`;
  * for the table (host token) or each seat to act (its own token): read `legal`, check it is the
    game's `...Legal` and every action one of the game's action models, pick one at random and
    send that very object back in an `ActionRequest`; the answer is `Recorded`, whose event and
    match are the game's models;
  * each seat's `you` is the game's seat model;
then read the log page by page (every event the game's `...EventView`, every action one of the
game's action or sealed models, every outcome one of the game's outcomes) and check each
published seed against its commitment, and the score sheet (the game's `...ScoreSheet`, each
round's detail the game's `...RoundDetail`): finished, totals are the sums of the rounds, the
winners hold the best total.

Usage: play_all.py --base-url http://127.0.0.1:PORT [--seed N] [--game ID ...]
Exits non-zero on the first failed check; prints one summary line per game.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys
import time
import traceback
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.join(HERE, "generated"))

import clubroom_client.models as models  # noqa: E402
from clubroom_client import AuthenticatedClient, Client  # noqa: E402
from clubroom_client.api.games import list_games  # noqa: E402
from clubroom_client.api.matches import create_match, get_match, legal, list_events, record_action, scores  # noqa: E402
from clubroom_client.models import ActionRequest, Created, Dealing, GameInfo, MatchStatus, NewPlayer, Problem, Recorded  # noqa: E402
from clubroom_client.types import UNSET, Response, Unset  # noqa: E402

MAX_ACTIONS = 3000  # per match: bounded loops everywhere
NAMES = ["Ada", "Ben", "Cy", "Di", "Eve"]


class CheckFailed(AssertionError):
    pass


def check(cond: bool, what: str) -> None:
    if not cond:
        raise CheckFailed(what)


def ok(resp: Response[Any], status: int, what: str) -> Any:
    """The parsed body of an answer that must have `status`; a problem answer is shown."""
    if resp.status_code != status:
        detail = resp.parsed.to_dict() if isinstance(resp.parsed, Problem) else resp.status_code
        raise CheckFailed(f"{what}: expected {status}, got {int(resp.status_code)}: {detail}")
    return resp.parsed


def prefix(game_id: str) -> str:
    """The prefix of a game's models: `bonus-malus` -> `BonusMalus`."""
    return "".join(w.capitalize() for w in game_id.split("-"))


def model(name: str) -> type:
    found = getattr(models, name, None)
    check(found is not None, f"the client has a model {name}")
    return found


def is_game_model(obj: Any, p: str) -> bool:
    """A model generated for game `p` (its class name starts with the game's prefix), not another
    game's (a P.M. play read as `DumpPlay` fails here)."""
    name = type(obj).__name__
    others = [q for q in PREFIXES if q != p and q.startswith(p)]
    return name.startswith(p) and not any(name.startswith(q) for q in others)


PREFIXES: list[str] = []


class Match:
    def __init__(self, base_url: str, info: GameInfo, rng: random.Random):
        self.info = info
        self.p = prefix(info.id)
        self.rng = rng
        self.public = Client(base_url=base_url, raise_on_unexpected_status=True)
        players = 4 if info.min_players <= 4 <= info.max_players else info.min_players
        if info.id == "by-hook-or-crook":
            players = 3
        self.players = players
        config = self.short_config()
        create = model(f"{self.p}CreateMatch")
        body = create(
            game=model(f"{self.p}CreateMatchGame")(info.id),
            players=[NewPlayer(name=n) for n in NAMES[:players]],
            config=config,
            dealing=Dealing.SERVICE,
        )
        created = ok(create_match.sync_detailed(client=self.public, body=body), 201, f"create a {info.id} match")
        check(isinstance(created, Created), "creation parses as Created")
        self.check_view(created.match)
        self.id = created.match.id

        def authed(token: str) -> AuthenticatedClient:
            return AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=True)

        self.host = authed(created.host_token)
        self.seats = [authed(t) for t in created.seat_tokens]
        check(len(self.seats) == players, "a token per seat")
        self.actions = 0

    def short_config(self) -> Any:
        """The game's own options model, set for a short match."""
        config = model(f"{self.p}Config")
        options = {
            "dump": {"target": 1},
            "bonus-malus": {"target": 1},
            "plus-minus": {"rubber_games": 1},
        }.get(self.info.id, {})
        return config(**options)

    def check_view(self, v: Any) -> None:
        p = self.p
        check(type(v).__name__ == f"{p}MatchView", f"the match view parses as {p}MatchView, not {type(v).__name__}")
        check(v.game == self.info.id, "the view names its game")
        check(type(v.table).__name__ == f"{p}Table", f"table is {p}Table, not {type(v.table).__name__}")
        check(type(v.config).__name__ == f"{p}Config", f"config is {p}Config, not {type(v.config).__name__}")
        check(type(v.scores).__name__ == f"{p}ScoreSheet", f"scores is {p}ScoreSheet, not {type(v.scores).__name__}")
        if v.you is not None and not isinstance(v.you, Unset):
            check(type(v.you).__name__ == f"{p}Seat", f"you is {p}Seat, not {type(v.you).__name__}")

    def view(self, client: Client | AuthenticatedClient) -> Any:
        v = ok(get_match.sync_detailed(self.id, client=client), 200, "GET match")
        self.check_view(v)
        return v

    def legal_for(self, client: AuthenticatedClient, seat: int | None) -> list[Any]:
        kwargs = {} if seat is None else {"seat": seat}
        page = ok(legal.sync_detailed(self.id, client=client, **kwargs), 200, f"legal for {seat}")
        check(type(page).__name__ == f"{self.p}Legal", f"legal parses as {self.p}Legal, not {type(page).__name__}")
        for a in page.actions:
            check(is_game_model(a, self.p), f"{self.info.id}: a legal action parsed as {type(a).__name__}")
        return page.actions

    def act(self, client: AuthenticatedClient, seat: int | None, action: Any) -> None:
        body = ActionRequest(seat=seat, action=action)  # the very object `legal` returned
        r = ok(
            record_action.sync_detailed(self.id, client=client, body=body),
            201,
            f"{self.info.id}: seat {seat} records {type(action).__name__}",
        )
        check(isinstance(r, Recorded), f"an action's answer parses as Recorded, not {type(r).__name__}")
        check(type(r.event).__name__ == f"{self.p}EventView", f"the event is {self.p}EventView")
        self.check_view(r.match)
        self.actions += 1

    def step(self) -> bool:
        """One round of actions: the table's, or each seat's to act. False once finished."""
        v = self.view(self.host)
        if v.status == MatchStatus.FINISHED:
            return False
        acted = False
        if v.table_to_act:
            actions = self.legal_for(self.host, None)
            if actions:
                self.act(self.host, None, self.rng.choice(actions))
                return True
        for seat in list(v.to_act):
            you = self.view(self.seats[seat])
            check(you.you is not None and not isinstance(you.you, Unset), f"seat {seat} sees its own state")
            actions = self.legal_for(self.seats[seat], seat)
            if actions:
                self.act(self.seats[seat], seat, self.rng.choice(actions))
                acted = True
        check(acted, f"{self.info.id}: someone may act (to_act {v.to_act}, table {v.table_to_act})")
        return True

    def play(self) -> None:
        while self.step():
            check(self.actions < MAX_ACTIONS, f"{self.info.id}: the match ends within {MAX_ACTIONS} actions")

    def check_log(self) -> int:
        events = 0
        after = 0
        while True:
            page = ok(list_events.sync_detailed(self.id, client=self.host, after=after), 200, "events")
            for e in page.events:
                check(type(e).__name__ == f"{self.p}EventView", f"an event parses as {self.p}EventView, not {type(e).__name__}")
                check(e.game == self.info.id, "an event names its game")
                if e.action is not None and not isinstance(e.action, Unset):
                    check(is_game_model(e.action, self.p), f"a logged action parsed as {type(e.action).__name__}")
                for o in e.outcome:
                    name = type(o).__name__
                    check(is_game_model(o, self.p) or name == "Retracted", f"an outcome parsed as {name}")
                if isinstance(e.seed, str) and isinstance(e.commitment, str):
                    digest = hashlib.sha256(bytes.fromhex(e.seed)).hexdigest()
                    check(digest == e.commitment, f"event {e.seq}: the seed matches its commitment")
                events += 1
            if page.next_after is None or isinstance(page.next_after, Unset):
                return events
            after = page.next_after

    def check_sheet(self) -> Any:
        sheet = ok(scores.sync_detailed(self.id, client=self.public), 200, "scores")
        p = self.p
        check(type(sheet).__name__ == f"{p}ScoreSheet", f"the sheet parses as {p}ScoreSheet, not {type(sheet).__name__}")
        check(sheet.finished, "the sheet says finished")
        sums = [0] * len(sheet.totals)
        for r in sheet.rounds:
            check(is_game_model(r.detail, p), f"a round detail parses as {p}'s ({p}RoundDetail), not {type(r.detail).__name__}")
            for i, pts in enumerate(r.points):
                sums[i] += pts
        if self.info.id != "members-only":  # its totals are not the sums of heats (TOTALS_NOT_DEAL_SUMS)
            check(sums == sheet.totals, f"totals {sheet.totals} are the sums of the rounds {sums}")
        best = max(sheet.totals)
        check(sheet.winners and all(sheet.totals[w] == best for w in sheet.winners), "the winners hold the best total")
        return sheet


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--game", action="append", default=[])
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    print(f"choice seed {seed}")
    public = Client(base_url=args.base_url, raise_on_unexpected_status=True)
    catalogue = ok(list_games.sync_detailed(client=public), 200, "GET /v1/games")
    PREFIXES.extend(prefix(g.id) for g in catalogue)
    played = 0
    for info in catalogue:
        if args.game and info.id not in args.game:
            continue
        rng = random.Random(f"{seed}:{info.id}")
        start = time.monotonic()
        try:
            m = Match(args.base_url, info, rng)
            m.play()
            events = m.check_log()
            sheet = m.check_sheet()
        except Exception:
            traceback.print_exc()
            print(f"{info.id}: FAILED (seed {seed})")
            return 1
        played += 1
        print(
            f"{info.id}: finished in {m.actions} actions, {len(sheet.rounds)} rounds, {events} events, "
            f"totals {sheet.totals}, winners {sheet.winners} ({time.monotonic() - start:.1f}s)"
        )
    check(played == len(catalogue) or bool(args.game), "every game played")
    print(f"played {played} games through the generated client's models")
    return 0


if __name__ == "__main__":
    sys.exit(main())

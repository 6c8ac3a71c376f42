#!/usr/bin/env python3
"""Plays Clubroom matches against a running server through the GENERATED Python client only.

The client (`clubroom_client`) is generated from `openapi/openapi.json` by openapi-python-client
(see scripts/ci-client.sh); this file never builds a URL, a header or a JSON body by hand: every
request goes through the client's API functions and every body through its models. That is the
point: it proves the spec is good enough for an integrator who only has the spec.

What it plays, all with service dealing (the service shuffles; each seat reads its own hand with
its own token):
  * a complete 4-player Dump match: deal after deal until the match is finished, every card
    played by the seat's own token, chosen at random among the seat's legal actions; then the
    final score sheet is checked (finished, winners hold the best total >= target, margin =
    winner - runner-up, totals = sum of the rounds, every deal's captured points sum to 160),
    and each deal's published seed is checked against its commitment and the hands dealt;
  * one deal of 4-player Clubs: the deal's points sum to -26 and follow the tally rules;
  * one deal of 4-player Bonus-Malus: suit values sum to 0 and only a plus total scores.

Usage: play_dump.py --base-url http://127.0.0.1:PORT [--seed N]
Exits non-zero on the first failed check; prints one summary line per game.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
# The generated package lives (git-ignored) beside this file unless PYTHONPATH already has it.
sys.path.append(os.path.join(HERE, "generated"))

from clubroom_client import AuthenticatedClient, Client  # noqa: E402
from clubroom_client.api.games import list_games  # noqa: E402
from clubroom_client.api.matches import (  # noqa: E402
    create_match,
    get_match,
    legal,
    list_events,
    record_action,
    scores,
    scores_csv,
    undo,
)
from clubroom_client.api.service import healthz  # noqa: E402
from clubroom_client.models import (  # noqa: E402
    ActionRequest,
    BonusMalusDeal,
    BonusMalusDealType,
    BonusMalusPlay,
    BonusMalusRoundDetail,
    BonusMalusSeat,
    BonusMalusTable,
    ClubsDeal,
    ClubsDealType,
    ClubsPlay,
    ClubsRoundDetail,
    ClubsSeat,
    ClubsTable,
    CreateMatch,
    Created,
    Dealing,
    DumpDeal,
    DumpDealType,
    DumpPlay,
    DumpRoundDetail,
    DumpSeat,
    DumpTable,
    EventView,
    Legal,
    MatchStatus,
    MatchView,
    NewPlayer,
    Problem,
    Recorded,
    ScoreSheet,
    Unit,
)
from clubroom_client.models.create_match_game import CreateMatchGame  # noqa: E402
from clubroom_client.types import UNSET, Response  # noqa: E402

MAX_STEPS_PER_DEAL = 200  # a trick deal has at most 52 plays; bounded loops everywhere
MAX_DEALS = 60  # a Dump match to 100 ends far sooner (each deal gives one side 0..80)


class CheckFailed(AssertionError):
    pass


def check(cond: bool, what: str) -> None:
    if not cond:
        raise CheckFailed(what)


def ok(resp: Response[Any], status: int, what: str) -> Any:
    """The parsed body of an answer that must have `status`; a problem+json answer is shown."""
    if resp.status_code != status:
        detail = resp.parsed.to_dict() if isinstance(resp.parsed, Problem) else resp.content[:500]
        raise CheckFailed(f"{what}: expected {status}, got {int(resp.status_code)}: {detail}")
    return resp.parsed


@dataclass
class Game:
    """How the client speaks one trick game: its deal and play models (generated), and the models
    its views parse as."""

    id: str
    deal: Callable[[], Any]
    play_model: Any
    cards_per_deal: int
    table_model: Any
    # The seat models `you` may parse as: Dump's and Bonus-Malus' seats have the same fields, so
    # a Bonus-Malus seat may come back as either.
    seat_models: tuple[Any, ...]
    detail_model: Any
    draws: bool = False  # Bonus-Malus: after each trick the seats draw from the stock


GAMES = {
    "dump": Game(
        "dump",
        lambda: DumpDeal(type_=DumpDealType.DEAL),
        DumpPlay,
        40,
        table_model=DumpTable,
        seat_models=(DumpSeat, BonusMalusSeat),
        detail_model=DumpRoundDetail,
    ),
    "clubs": Game(
        "clubs",
        lambda: ClubsDeal(type_=ClubsDealType.DEAL),
        ClubsPlay,
        52,
        table_model=ClubsTable,
        seat_models=(ClubsSeat,),
        detail_model=ClubsRoundDetail,
    ),
    # Service dealing: no `trump` (the service knows the stock).
    "bonus-malus": Game(
        "bonus-malus",
        lambda: BonusMalusDeal(type_=BonusMalusDealType.DEAL),
        BonusMalusPlay,
        52,
        table_model=BonusMalusTable,
        seat_models=(BonusMalusSeat, DumpSeat),
        detail_model=BonusMalusRoundDetail,
        draws=True,
    ),
}


@dataclass
class Table:
    """A match and the clients of everyone at it."""

    game: Game
    id: str
    public: Client
    host: AuthenticatedClient
    seats: list[AuthenticatedClient]
    rng: random.Random
    dealt_hands: dict[int, list[list[str]]] = field(default_factory=dict)  # round -> hands

    def view(self, client: Client | AuthenticatedClient | None = None) -> MatchView:
        # The token is optional here (`security: [{}, {bearer}]`); the generator types such
        # operations as needing an AuthenticatedClient, but a plain Client is what they take.
        v = ok(get_match.sync_detailed(self.id, client=client or self.public), 200, "GET match")
        check(isinstance(v, MatchView), "GET match parses as MatchView")
        return v

    def act(self, client: AuthenticatedClient, seat: int | None, action: Any, version: int) -> Recorded:
        body = ActionRequest(seat=seat, action=action)
        r = ok(
            record_action.sync_detailed(self.id, client=client, body=body, if_match=f'"{version}"'),
            201,
            f"{self.game.id}: seat {seat} records {action.to_dict()}",
        )
        check(isinstance(r, Recorded), "an action's answer parses as Recorded")
        check(r.match.seq == version + 1 and r.event.seq == version + 1, "the event is the next version")
        return r


def new_table(base_url: str, game: Game, rng: random.Random) -> Table:
    public = Client(base_url=base_url, raise_on_unexpected_status=True)
    body = CreateMatch(
        # The spec lists the implemented games as an enum: the client's CreateMatchGame.
        game=CreateMatchGame(game.id),
        players=[NewPlayer(name=n) for n in ("Ada", "Ben", "Cy", "Di")],
        dealing=Dealing.SERVICE,
    )
    created = ok(create_match.sync_detailed(client=public, body=body), 201, f"create a {game.id} match")
    check(isinstance(created, Created), "creation parses as Created")
    m = created.match
    check(m.game == game.id and m.status == MatchStatus.IN_PROGRESS and m.seq == 0, "a fresh match")
    check(m.dealing == Dealing.SERVICE, "service dealing recorded")
    check(len(created.seat_tokens) == 4 and len(set(created.seat_tokens)) == 4, "four distinct seat tokens")
    check(m.table_to_act and m.to_act == [], "the table deals first")

    def authed(token: str) -> AuthenticatedClient:
        return AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=True)

    return Table(game, m.id, public, authed(created.host_token), [authed(t) for t in created.seat_tokens], rng)


def hand_of(t: Table, seat: int) -> list[str]:
    """The seat's hand, read with the seat's own token."""
    v = t.view(t.seats[seat])
    you = v.you
    check(you is not None and you is not UNSET, f"seat {seat} sees its private state")
    models = t.game.seat_models
    check(isinstance(you, models), f"`you` parses as {models[0].__name__}, not {type(you).__name__}")
    check(you.seat == seat, f"`you` is seat {seat}")
    hand = you.hand
    check(isinstance(hand, list), f"seat {seat} has a hand")
    return hand


def play_deal(t: Table, undo_first_play: bool = False) -> dict[str, Any]:
    """Deals (host token) and plays the whole deal, each card by its seat's own token. With
    `undo_first_play` the host retracts the deal's first card (undo, no body) and it is played again."""
    before = t.view()
    rounds_before = len(before.scores.rounds)
    check(before.table_to_act, "a deal is expected")
    dealt = t.act(t.host, None, t.game.deal(), before.seq)
    round_no = dealt.event.round_
    check(dealt.event.commitment not in (None, UNSET), "a service deal publishes its commitment")
    check(dealt.event.seed in (None, UNSET), "the seed stays secret while the deal is played")

    hands = [hand_of(t, s) for s in range(4)]
    dealt_cards = [c for h in hands for c in h]
    check(len(set(dealt_cards)) == len(dealt_cards), "no card is dealt twice")
    t.dealt_hands[round_no] = [list(h) for h in hands]
    seen = set(dealt_cards)
    # A reader without a token sees no hand.
    check(t.view().you in (None, UNSET), "the public view shows no hand")

    plays = 0
    undone = 0
    for _ in range(MAX_STEPS_PER_DEAL):
        v = t.view()
        model = t.game.table_model
        check(isinstance(v.table, model), f"the table parses as {model.__name__}, not {type(v.table).__name__}")
        if len(v.scores.rounds) > rounds_before:
            break
        check(not v.table_to_act, "service dealing never waits for the table mid-deal")
        check(len(v.to_act) == 1, f"one seat to act, got {v.to_act}")
        seat = v.to_act[0]
        hand = hand_of(t, seat)
        if t.game.draws:
            check(set(hands[seat]) <= set(hand), f"seat {seat} still holds what it held")
            drawn = [c for c in hand if c not in hands[seat]]
            check(not set(drawn) & seen, f"seat {seat} drew cards never seen before: {drawn}")
            seen.update(drawn)
            hands[seat] = list(hand)
        else:
            check(sorted(hand) == sorted(hands[seat]), f"seat {seat}'s hand is what it was dealt less what it played")
        resp = legal.sync_detailed(t.id, client=t.seats[seat], seat=seat)
        lg = ok(resp, 200, f"legal for seat {seat}")
        check(isinstance(lg, Legal) and lg.seat == seat, "legal answers for the seat asked")
        # `actions` items are `GameAction`, the union of every game's actions: the generated client
        # takes the first model whose required fields are there and drops the others' optional
        # fields (a Clubs lead's `declare` would read as a DumpPlay without it). Knowing the game,
        # read each action with its own game's model.
        raw = json.loads(resp.content)["actions"]
        check(len(raw) == len(lg.actions), "every legal action parses")
        actions = [t.game.play_model.from_dict(a) for a in raw]
        check(len(actions) > 0, f"seat {seat} has a legal play")
        for a in actions:
            check(a.type_.value == "play", "only plays are legal mid-deal")
            check(a.card in hand, f"legal card {a.card} is in seat {seat}'s hand")
            extra = set(getattr(a, "additional_properties", {}))
            check(not extra, f"legal actions fit the typed play model (extra fields {extra})")
        choice = t.rng.choice(actions)
        rec = t.act(t.seats[seat], seat, choice, v.seq)
        hands[seat].remove(choice.card)
        plays += 1
        if undo_first_play and plays == 1 and not undone:
            # The host's undo, sent without a body (the spec's body is optional).
            u = ok(
                undo.sync_detailed(t.id, client=t.host, if_match=f'"{rec.match.seq}"'),
                201,
                "host undoes the first play",
            )
            check(isinstance(u, Recorded) and u.event.kind == "undo", "an undo is an event of its own")
            check(u.event.retracts == rec.event.seq, f"the undo retracts event {rec.event.seq}")
            check(u.match.to_act == [seat], f"seat {seat} is to play again")
            hands[seat].append(choice.card)
            check(sorted(hand_of(t, seat)) == sorted(hands[seat]), f"seat {seat} holds {choice.card} again")
            plays -= 1
            undone += 1
    else:
        raise CheckFailed(f"deal {round_no} did not end within {MAX_STEPS_PER_DEAL} steps")

    check(plays == t.game.cards_per_deal, f"{plays} plays in a deal of {t.game.cards_per_deal} cards")
    check(all(h == [] for h in hands), "every card held was played")
    check(undone == int(undo_first_play), "the first play was undone once")
    return {"round": round_no, "plays": plays, "undone": undone}


def events_of(t: Table) -> list[EventView]:
    out: list[EventView] = []
    after = 0
    for _ in range(1000):
        page = ok(list_events.sync_detailed(t.id, client=t.public, after=after, limit=100), 200, "events")
        out.extend(page.events)
        if page.next_after in (None, UNSET):
            return out
        after = page.next_after
    raise CheckFailed("the event log did not end")


def rederive(seed_hex: str, players: int, dealer: int, per_hand: int) -> list[list[str]]:
    """README's recipe: Fisher-Yates driven by SHA-256 over Dump's 40 cards in canonical order."""
    seed = bytes.fromhex(seed_hex)
    deck = [r + s for s in "SHDC" for r in "23456789TJQKA" if r not in "456"]
    for i in range(len(deck) - 1, 0, -1):
        j = int.from_bytes(hashlib.sha256(seed + i.to_bytes(4, "big")).digest()[:8], "big") % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    hands: list[list[str]] = [[] for _ in range(players)]
    for k, card in enumerate(deck[: players * per_hand]):
        hands[(dealer + 1 + k) % players].append(card)
    return hands


def sheet_of(t: Table) -> ScoreSheet:
    s = ok(scores.sync_detailed(t.id, client=t.public), 200, "GET scores")
    check(isinstance(s, ScoreSheet), "scores parse as ScoreSheet")
    check(s.to_dict() == t.view().scores.to_dict(), "the score sheet equals the view's")
    return s


def check_totals(s: ScoreSheet) -> None:
    n = len(s.totals)
    for i, r in enumerate(s.rounds):
        check(r.round_ == i + 1 and r.label == f"Deal {i + 1}", f"round {i + 1} is labelled")
        check(len(r.points) == n, f"round {i + 1} has a figure per column")
    sums = [sum(r.points[c] for r in s.rounds) for c in range(n)]
    check(s.totals == sums, f"totals {s.totals} are the sum of the rounds {sums}")


def play_dump_match(base_url: str, rng: random.Random) -> str:
    t = new_table(base_url, GAMES["dump"], rng)
    target = t.view().config["target"]
    catalogue = ok(list_games.sync_detailed(client=t.public), 200, "GET games")
    dump_info = next(g for g in catalogue if g.id == "dump")
    check(dump_info.default_config["target"] == target, "the match runs to the catalogue's default target")

    deals = 0
    total_plays = 0
    undos = 0
    for _ in range(MAX_DEALS):
        if t.view().status == MatchStatus.FINISHED:
            break
        played = play_deal(t, undo_first_play=deals == 0)
        total_plays += played["plays"]
        undos += played["undone"]
        deals += 1
    else:
        raise CheckFailed(f"the match did not finish within {MAX_DEALS} deals")

    v = t.view()
    s = sheet_of(t)
    check(v.status == MatchStatus.FINISHED and s.finished, "the match is finished")
    check(v.table_to_act is False and v.to_act == [], "nobody is to act in a finished match")
    check(s.unit == Unit.SIDE and s.sides == [[0, 2], [1, 3]], "4-player Dump is scored by sides")
    check(len(s.rounds) == deals, f"{deals} deals, {len(s.rounds)} rounds on the sheet")
    check_totals(s)
    for r in s.rounds:
        check(isinstance(r.detail, DumpRoundDetail), f"the round detail parses as DumpRoundDetail, not {type(r.detail).__name__}")
        captured = r.detail.captured
        check(sum(captured) == 160, f"deal {r.round_}: captured {captured} sums to 160")
        check(r.multiplier == 1, "Dump has no multiplier")
        check(r.points == [max(c - 80, 0) for c in captured], f"deal {r.round_}: points are card points over 80")
    best = max(s.totals)
    check(best >= target, f"the best total {best} reaches the target {target}")
    check(s.winners == [i for i, x in enumerate(s.totals) if x == best], f"winners {s.winners} hold the best total")
    runner_up = max((x for x in s.totals if x < best), default=best)
    check(s.margin == best - runner_up, f"margin {s.margin} = winner {best} - runner-up {runner_up}")
    # Before the last deal nobody had reached the target (the match ends after that deal).
    before_last = [x - p for x, p in zip(s.totals, s.rounds[-1].points)]
    check(max(before_last) < target, "the match ended with the first deal that reached the target")

    # The log: every deal's tricks carry its 160 card points; every seed is revealed afterwards,
    # matches its commitment, and re-derives the hands each seat read with its own token.
    evs = events_of(t)
    check(len(evs) == v.seq, "the log holds every event")
    trick_points: dict[int, int] = {}
    deals_seen = 0
    for e in evs:
        for o in (x.to_dict() for x in e.outcome):
            if o["type"] == "trick":
                trick_points[e.round_] = trick_points.get(e.round_, 0) + o["points"]
        if e.action not in (None, UNSET) and e.action.to_dict()["type"] == "deal":
            deals_seen += 1
            check(e.seed not in (None, UNSET), f"deal {e.round_}: the seed is revealed after the deal")
            check(hashlib.sha256(bytes.fromhex(e.seed)).hexdigest() == e.commitment, "seed matches commitment")
            dealer = (v.config["first_dealer"] + e.round_ - 1) % 4
            derived = rederive(e.seed, 4, dealer, 10)
            check(
                [sorted(h) for h in derived] == [sorted(h) for h in t.dealt_hands[e.round_]],
                f"deal {e.round_}: the seed re-derives the hands the seats were dealt",
            )
    check(deals_seen == deals, "one deal event per deal")
    undo_events = [e for e in evs if e.kind == "undo"]
    retracted = [e for e in evs if e.retracted_by not in (None, UNSET)]
    check(len(undo_events) == undos == 1 and len(retracted) == 1, "the log shows the one undo and what it retracted")
    check(retracted[0].retracted_by == undo_events[0].seq, "the retracted play names its undo")
    check(all(p == 160 for p in trick_points.values()) and len(trick_points) == deals, "tricks sum to 160 per deal")

    # The CSV sheet agrees (the client hands back the raw text).
    csv = scores_csv.sync_detailed(t.id, client=t.public)
    check(csv.status_code == 200, "GET scores.csv")
    lines = csv.content.decode().strip().splitlines()
    check(lines[-1] == "total,Total,," + ",".join(map(str, s.totals)), f"CSV total row {lines[-1]!r}")
    check(len(lines) == deals + 2, "CSV: header, one row per deal, total")

    return (
        f"dump: match {t.id} finished after {deals} deals, {total_plays} cards played ({undos} undone and replayed); "
        f"totals {s.totals}, winners {s.winners}, margin {s.margin}, target {target}"
    )


def clubs_points(taken: list[dict[str, Any]]) -> tuple[list[int], bool]:
    """The Clubs tally (docs/rules.md#clubs-tally): -1 a card, +3 a club except J♣, -10 more for J♣; if any tally is
    -26 or worse, everyone recounts: -3 a club except J♣, +10 for J♣."""
    normal = [-t["cards"] + 3 * t["clubs"] - 10 * int(t["jack"]) for t in taken]
    if any(p <= -26 for p in normal):
        return [-3 * t["clubs"] + 10 * int(t["jack"]) for t in taken], True
    return normal, False


def play_clubs_deal(base_url: str, rng: random.Random) -> str:
    t = new_table(base_url, GAMES["clubs"], rng)
    info = play_deal(t)
    s = sheet_of(t)
    check(s.unit == Unit.SEAT and len(s.rounds) == 1, "one Clubs deal scored per seat")
    check_totals(s)
    r = s.rounds[0]
    check(sum(r.points) == -26, f"the Clubs deal sums to -26: {r.points}")
    check(isinstance(r.detail, ClubsRoundDetail), f"the round detail parses as ClubsRoundDetail, not {type(r.detail).__name__}")
    detail = r.detail.to_dict()
    taken = detail["taken"]
    check(sum(x["cards"] for x in taken) == 52, "52 cards taken")
    check(sum(x["clubs"] for x in taken) == 12, "12 clubs besides J♣ taken")
    check(sum(int(x["jack"]) for x in taken) == 1, "one seat took J♣")
    expected, scrambled = clubs_points(taken)
    check(r.points == expected, f"points {r.points} follow the tally {expected}")
    check(detail["scrambled"] == scrambled, "the scrambling flag agrees")
    return (
        f"clubs: one deal, {info['plays']} cards played; points {r.points} (sum {sum(r.points)})"
        f"{', scrambled' if scrambled else ''}"
    )


SUIT_VALUE = {"S": 10, "H": 5, "D": -5, "C": -10}


def play_bonus_malus_deal(base_url: str, rng: random.Random) -> str:
    t = new_table(base_url, GAMES["bonus-malus"], rng)
    info = play_deal(t)
    s = sheet_of(t)
    check(s.unit == Unit.SIDE and len(s.rounds) == 1, "one Bonus-Malus deal scored per side")
    check_totals(s)
    r = s.rounds[0]
    check(r.multiplier == 1, "deal 1 counts once")
    check(
        isinstance(r.detail, BonusMalusRoundDetail),
        f"the round detail parses as BonusMalusRoundDetail, not {type(r.detail).__name__}",
    )
    detail = r.detail.to_dict()
    taken = detail["taken"]
    values = detail["values"]
    for suit in SUIT_VALUE:
        check(sum(x[suit] for x in taken) == 13, f"13 cards of {suit} taken")
    check(values == [sum(v * x[k] for k, v in SUIT_VALUE.items()) for x in taken], "values follow the suits")
    check(sum(values) == 0, f"the suit values sum to 0: {values}")
    check(r.points == [max(v, 0) * r.multiplier for v in values], f"only a plus total scores: {r.points}")
    return f"bonus-malus: one deal, {info['plays']} cards played; values {values}, points {r.points}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base-url", required=True)
    p.add_argument("--seed", type=int, default=None, help="the random choice of legal plays (default: random)")
    args = p.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    print(f"play_dump: base {args.base_url}, choice seed {seed} (rerun with --seed {seed})")
    rng = random.Random(seed)

    h = healthz.sync_detailed(client=Client(base_url=args.base_url))
    check(h.status_code == 200 and h.parsed.status == "ok", "the server is healthy")

    passed, failed = 0, 0
    for name, play in (
        ("dump match", play_dump_match),
        ("clubs deal", play_clubs_deal),
        ("bonus-malus deal", play_bonus_malus_deal),
    ):
        try:
            print(play(args.base_url, rng))
            passed += 1
        except CheckFailed as e:
            print(f"FAILED {name}: {e}")
            failed += 1
        except Exception:  # the client itself failed (e.g. a model that no longer fits)
            traceback.print_exc(file=sys.stdout)
            print(f"FAILED {name}: the generated client raised")
            failed += 1
    print(f"client: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

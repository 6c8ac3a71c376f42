#!/usr/bin/env python3
"""Runs a small Clubroom tournament through the GENERATED Python client only (issue 12).

Like play_all.py, this file never builds a URL, a header or a JSON body by hand: every request
goes through the client's API functions and every body through its models.

What it does:
  * registers a player and reads it back;
  * creates a Swiss tournament of P.M. (one game a match, to keep it short) for six entrants,
    one of them the registered player, with duplicate play and service dealing, two rounds;
  * pairs round 1 (two tables of three), checks that seat s holds the same hand at both tables
    after the deal, plays both matches to the end card by card (each seat with its own token,
    choosing among its legal actions), then checks the round is complete, its secret published,
    and SHA-256(SHA-256("<secret>:1")) equals the deal's commitment in a table's log;
  * pairs round 2 and settles it by the quick log, after one refused entry (exact problem code);
  * reads the standings (matchpoints sum to what the boards hand out, ranks follow matchpoints,
    the tournament is finished), the standings.csv export, and the results.json and bgstats.json
    exports through their typed models (ResultsExport, BgStatsExport).

Usage: run_tournament.py --base-url http://127.0.0.1:PORT [--seed N]
Exits non-zero on the first failed check; prints one summary line.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.join(HERE, "generated"))

from clubroom_client import AuthenticatedClient, Client  # noqa: E402
from clubroom_client.api.matches import get_match, legal, list_events, record_action  # noqa: E402
from clubroom_client.api.tournaments import (  # noqa: E402
    create_player,
    create_tournament,
    enter_result,
    export_bgstats_json,
    export_file,
    export_results_json,
    get_player,
    get_tournament,
    pair_round,
    standings,
)
from clubroom_client.models import (  # noqa: E402
    ActionRequest,
    BgStatsExport,
    CreatePlayer,
    CreatedTournament,
    Dealing,
    EnterResult,
    Format,
    MatchStatus,
    NewPlayer,
    Player,
    PlusMinusDeal,
    PlusMinusDealType,
    PlusMinusConfig,
    PlusMinusCreateTournament,
    PlusMinusCreateTournamentGame,
    PlusMinusLegal,
    PlusMinusMatchView,
    PlusMinusPlay,
    PlusMinusSeat,
    PlusMinusTournamentView,
    Problem,
    Record,
    ResultSource,
    ResultsExport,
    RoundWithTokens,
    Standings,
    TableView,
)
from clubroom_client.types import Response  # noqa: E402


class CheckFailed(AssertionError):
    pass


def check(cond: bool, what: str) -> None:
    if not cond:
        raise CheckFailed(what)


def ok(resp: Response[Any], status: int, what: str) -> Any:
    if resp.status_code != status:
        detail = resp.parsed.to_dict() if isinstance(resp.parsed, Problem) else resp.content[:500]
        raise CheckFailed(f"{what}: expected {status}, got {int(resp.status_code)}: {detail}")
    return resp.parsed


def play_out(base: str, public: Client, tokens: Any, rng: random.Random) -> PlusMinusMatchView:
    """Plays a table's match to the end: the host deals, each seat plays with its own token."""
    host = AuthenticatedClient(base_url=base, token=tokens.host_token)
    seats = [AuthenticatedClient(base_url=base, token=t) for t in tokens.seat_tokens]
    for _ in range(500):
        # The host's view: a duplicate table is not public while its round is played.
        v = ok(get_match.sync_detailed(tokens.match_id, client=host), 200, "GET match")
        check(isinstance(v, PlusMinusMatchView), f"the match view parses as P.M.'s, not {type(v).__name__}")
        if v.status == MatchStatus.FINISHED:
            return v
        if v.table_to_act:
            body = ActionRequest(seat=None, action=PlusMinusDeal(type_=PlusMinusDealType.DEAL))
            ok(record_action.sync_detailed(tokens.match_id, client=host, body=body), 201, "deal")
            continue
        seat = v.to_act[0]
        resp = legal.sync_detailed(tokens.match_id, client=seats[seat], seat=seat)
        lg = ok(resp, 200, "legal")
        # P.M.'s legal list (discriminated by `game`): each play is P.M.'s own model, its `from`
        # kept, and it goes back exactly as it came.
        check(isinstance(lg, PlusMinusLegal), f"legal parses as P.M.'s, not {type(lg).__name__}")
        check(all(isinstance(a, PlusMinusPlay) for a in lg.actions), "every legal action is a P.M. play")
        choice = rng.choice(lg.actions)
        body = ActionRequest(seat=seat, action=choice)
        ok(record_action.sync_detailed(tokens.match_id, client=seats[seat], body=body), 201, f"seat {seat} plays {choice.to_dict()}")
    raise CheckFailed("a match did not end")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--seed", type=int, default=12)
    args = ap.parse_args()
    base = args.base_url
    rng = random.Random(args.seed)
    public = Client(base_url=base, raise_on_unexpected_status=False)

    ada = ok(create_player.sync_detailed(client=public, body=CreatePlayer(name="Ada")), 201, "register a player")
    check(isinstance(ada, Player) and len(ada.id) == 32, "a player with an id")
    again = ok(get_player.sync_detailed(ada.id, client=public), 200, "read the player")
    check(again.name == "Ada", "the player reads back")

    entrants = [NewPlayer(name="Ada", player_id=ada.id)] + [NewPlayer(name=n) for n in ("Ben", "Cy", "Di", "Ed", "Flo")]
    body = PlusMinusCreateTournament(
        name="Client cup",
        game=PlusMinusCreateTournamentGame.PLUS_MINUS,
        format_=Format.SWISS,
        players=entrants,
        config=PlusMinusConfig(rubber_games=1),
        dealing=Dealing.SERVICE,
        rounds=2,
        table_size=3,
        duplicate=True,
        record=Record.MATCHES,
    )
    created = ok(create_tournament.sync_detailed(client=public, body=body), 201, "create the tournament")
    check(isinstance(created, CreatedTournament), "creation parses")
    tid = created.tournament.id
    check(created.tournament.players[0].player_id == ada.id, "the registered player is entrant 0")
    org = AuthenticatedClient(base_url=base, token=created.organiser_token)

    r1 = ok(pair_round.sync_detailed(tid, client=org), 201, "pair round 1")
    check(isinstance(r1, RoundWithTokens) and len(r1.tables) == 2 and len(r1.tokens) == 2, "two tables")
    # The same deal at both tables: deal, then compare each seat's hand.
    for t in r1.tokens:
        host = AuthenticatedClient(base_url=base, token=t.host_token)
        deal = ActionRequest(seat=None, action=PlusMinusDeal(type_=PlusMinusDealType.DEAL))
        ok(record_action.sync_detailed(t.match_id, client=host, body=deal), 201, "deal")
    for s in range(3):
        hands = []
        for t in r1.tokens:
            seat = AuthenticatedClient(base_url=base, token=t.seat_tokens[s])
            v = ok(get_match.sync_detailed(t.match_id, client=seat), 200, "a seat's view")
            check(isinstance(v.you, PlusMinusSeat), "a seat's view is P.M.'s seat model")
            hands.append(v.you.hand)
        check(len(hands[0]) == 11 and hands[0] == hands[1], f"seat {s} holds the same hand at both tables")
    hidden = get_match.sync_detailed(r1.tokens[0].match_id, client=public)
    check(hidden.status_code == 403 and hidden.parsed.code == "round_in_play",
          f"a duplicate table is not public while its round is played: {hidden.content[:200]}")
    finals = [play_out(base, public, t, rng) for t in r1.tokens]
    check(all(f.scores.finished for f in finals), "both matches finished")

    t = ok(get_tournament.sync_detailed(tid, client=public), 200, "read the tournament")
    check(isinstance(t, PlusMinusTournamentView), "the tournament parses as P.M.'s")
    rv = t.rounds[0]
    check(rv.complete and isinstance(rv.secret, str), "round 1 complete, its secret published")
    host0 = AuthenticatedClient(base_url=base, token=r1.tokens[0].host_token)
    events = ok(list_events.sync_detailed(r1.tokens[0].match_id, client=host0), 200, "the log").events
    commitment = next(e.commitment for e in events if isinstance(e.commitment, str))
    seed1 = hashlib.sha256(f"{rv.secret}:1".encode()).digest()
    check(hashlib.sha256(seed1).hexdigest() == commitment, "the published secret re-derives deal 1's commitment")
    # Board by board: each seat's game against the same seat's at the other table, 2 per win, 1 per tie.
    pts = [[f.scores.rounds[0].points[s] for s in range(3)] for f in finals]
    for ti, table in enumerate(rv.tables):
        expect = [2 if pts[ti][s] > pts[1 - ti][s] else 1 if pts[ti][s] == pts[1 - ti][s] else 0 for s in range(3)]
        check(table.result.matchpoints == expect, f"table {ti + 1}'s matchpoints {table.result.matchpoints} == {expect}")

    r2 = ok(pair_round.sync_detailed(tid, client=org), 201, "pair round 2")
    check(r2.round_ == 2, "round 2 paired")
    # The quick log: one game a seat from -80 to 200; a refused entry first. Round 2's matches
    # are still being played: an entry closes its match only when it says so.
    live = enter_result.sync_detailed(tid, 2, 1, client=org, body=EnterResult(deals=[[150, 12, -20]]))
    check(live.status_code == 409 and live.parsed.code == "match_in_progress", f"an entry for a table still playing is refused: {live.content[:200]}")
    bad = enter_result.sync_detailed(tid, 2, 1, client=org, body=EnterResult(deals=[[201, 0, 0]]))
    check(bad.status_code == 422 and bad.parsed.code == "result_impossible", f"an impossible P.M. game is refused: {bad.content[:200]}")
    twice = enter_result.sync_detailed(tid, 2, 1, client=org, body=EnterResult(deals=[[50, 0, 0], [0, 0, 0]]))
    check(twice.status_code == 422 and twice.parsed.code == "result_impossible", "two games in a one-game rubber are refused")
    for table, deals in ((1, [[150, 12, -20]]), (2, [[30, 12, 200]])):
        body = EnterResult(deals=deals, abandon_match=True)
        tv = ok(enter_result.sync_detailed(tid, 2, table, client=org, body=body), 200, f"enter table {table}")
        check(isinstance(tv, TableView) and tv.result.totals == deals[0], f"table {table}'s totals")

    st = ok(standings.sync_detailed(tid, client=public), 200, "standings")
    check(isinstance(st, Standings) and st.duplicate, "standings of a duplicate tournament")
    check(sum(r.matchpoints for r in st.rows) == 2 * 2 * 3, "2 matchpoints per board comparison, 3 seats, 2 rounds")
    mps = [r.matchpoints for r in st.rows]
    check(mps == sorted(mps, reverse=True), "ranked by matchpoints")
    t = ok(get_tournament.sync_detailed(tid, client=public), 200, "read the tournament")
    check(t.status == MatchStatus.FINISHED, "the tournament is finished")
    csv_resp = export_file.sync_detailed(tid, "standings.csv", client=public)
    check(csv_resp.status_code == 200, "standings.csv")
    lines = csv_resp.content.decode().strip().splitlines()
    check(len(lines) == 7 and lines[0].startswith("rank,player_id,name"), "standings.csv has a header and 6 rows")
    # The JSON exports through their own models (no json.loads).
    bg = ok(export_bgstats_json.sync_detailed(tid, client=public), 200, "bgstats.json")
    check(isinstance(bg, BgStatsExport), "bgstats.json is a BgStatsExport")
    check(len(bg.plays) == 4, "four plays exported (two rounds of two tables)")
    check(len(bg.players) == 6 and len(bg.games) == 1, "six players, one game")
    for play in bg.plays:
        check(len(play.player_scores) == 3, "three scores a play")
        check(sum(1 for s in play.player_scores if s.start_player) == 1, "one start player a play")
        check({s.player_ref_id for s in play.player_scores} <= {p.id for p in bg.players}, "scores name exported players")
    rx = ok(export_results_json.sync_detailed(tid, client=public), 200, "results.json")
    check(isinstance(rx, ResultsExport) and rx.duplicate, "results.json is a duplicate ResultsExport")
    check(len(rx.results) == 4, "four results exported")
    check([(r.round_, r.table) for r in rx.results] == [(1, 1), (1, 2), (2, 1), (2, 2)], "by round and table")
    check([r.source for r in rx.results] == [ResultSource.MATCH, ResultSource.MATCH, ResultSource.TOTALS, ResultSource.TOTALS],
          "round 1 from the matches, round 2 from the quick log")
    check(sum(s.matchpoints for r in rx.results for s in r.seats) == 2 * 2 * 3, "the export's matchpoints are the standings'")
    check(rx.results[2].totals == [150, 12, -20], "round 2 table 1's totals as entered")
    leader = st.rows[0]
    print(f"tournament: 6 players, 2 rounds (duplicate, matches then quick log), leader {leader.name} "
          f"with {leader.matchpoints}/{leader.max_matchpoints} matchpoints, rating {leader.rating}")


if __name__ == "__main__":
    try:
        main()
    except CheckFailed as e:
        print(f"tournament: FAILED: {e}")
        sys.exit(1)

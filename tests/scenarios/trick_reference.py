#!/usr/bin/env python3
"""An independent reference model of Clubs and Bonus-Malus (written from docs/rules.md#clubs and #bonus-malus, not from the
Rust engines) that generates the long full-deal scenario files under tests/scenarios/clubs/ and
tests/scenarios/bonus_malus/: the shuffle of service dealing (cards::shuffled), the deal, random
legal play, every trick's winner and the scores. The short scenarios are written by hand.

Run from the repository root: python3 tests/scenarios/trick_reference.py
"""

import hashlib
import json
import random

RANKS = "23456789TJQKA"
SUITS = "SHDC"
DECK = [r + s for s in SUITS for r in RANKS]  # canonical order: spades 2..A, hearts, diamonds, clubs


def rank(c):
    return RANKS.index(c[0]) + 2


def suit(c):
    return c[1]


def canon(cards):
    return sorted(cards, key=DECK.index)


def shuffled(items, seed_hex):
    """cards::shuffled: Fisher-Yates, j = first 8 bytes (BE) of SHA-256(seed || i as u32 BE) mod i+1."""
    items = list(items)
    seed = bytes.fromhex(seed_hex)
    for i in range(len(items) - 1, 0, -1):
        h = hashlib.sha256(seed + i.to_bytes(4, "big")).digest()
        j = int.from_bytes(h[:8], "big") % (i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def deal_from_seed(seed_hex, players, per_hand, dealer):
    order = shuffled(DECK, seed_hex)
    hands = [set() for _ in range(players)]
    dealt = players * per_hand
    for k, c in enumerate(order[:dealt]):
        hands[(dealer + 1 + k) % players].add(c)
    return hands, order[dealt:]


def seed_of(n):
    return hashlib.sha256(b"clubroom scenario %d" % n).hexdigest()


# ---------------------------------------------------------------- Clubs


def clubs_key(called, c):
    if suit(c) == "C":
        return rank(c) * 2 + 1
    if suit(c) == called:
        return rank(c) * 2
    return None


def clubs_legal(hand, called):
    """Cards `hand` may play to a trick with `called` suit (None: leading)."""
    if called is None:
        return canon(hand)
    group = {"C"} if called == "C" else {called, "C"}
    ok = [c for c in hand if suit(c) in group]
    return canon(ok) if ok else canon(hand)


def clubs_score(taken):
    normal = [-t["cards"] + 3 * t["clubs"] - (10 if t["jack"] else 0) for t in taken]
    if any(p <= -26 for p in normal):
        return [-3 * t["clubs"] + (10 if t["jack"] else 0) for t in taken], True
    return normal, False


def taken_of(cards):
    jack = "JC" in cards
    return {"cards": len(cards), "clubs": sum(1 for c in cards if suit(c) == "C") - int(jack), "jack": jack}


def clubs_deal(players, hands, face_down, policy, rng):
    """Plays a deal out; returns (steps, taken, points, scrambled, last_winner)."""
    hands = [set(h) for h in hands]
    opening = "3C" if face_down == "2C" else "2C"
    leader = next(s for s in range(players) if opening in hands[s])
    won = [[] for _ in range(players)]
    steps = []
    tricks = 52 // players
    for number in range(1, tricks + 1):
        plays, actions, called = [], [], None
        for k in range(players):
            seat = (leader + k) % players
            options = [opening] if number == 1 and k == 0 else clubs_legal(hands[seat], called)
            card = policy(seat, options, called, plays, rng)
            action = {"type": "play", "card": card}
            if k == 0:
                called = suit(card)
                if suit(card) == "C":
                    called = rng.choice("HSDC")
                    action["declare"] = called
            hands[seat].remove(card)
            plays.append((seat, card))
            actions.append(action)
        winner = max((p for p in plays if clubs_key(called, p[1]) is not None),
                     key=lambda p: clubs_key(called, p[1]))[0]
        won[winner] += [c for _, c in plays]
        step = {"trick": number, "actions": actions, "called": called, "winner": winner}
        steps.append(step)
        leader = winner
    if face_down:
        won[leader].append(face_down)
    taken = [taken_of(w) for w in won]
    points, scrambled = clubs_score(taken)
    assert sum(points) == -26
    return steps, taken, points, scrambled, leader


def random_policy(seat, options, called, plays, rng):
    return rng.choice(options)


def greedy_seat0_policy(seat, options, called, plays, rng):
    """Seat 0 plays its highest card, the others their lowest: seat 0 takes many tricks."""
    by = sorted(options, key=lambda c: (rank(c), c != "JC"))
    return by[-1] if seat == 0 else by[0]


def play_steps(steps, outcome_of):
    out = []
    for st in steps:
        acts = st["actions"]
        if all(set(a) == {"type", "card"} for a in acts):
            s = {"cards": [a["card"] for a in acts]}
        else:
            s = {"actions": acts}
        s["outcomes"] = outcome_of(st)
        out.append(s)
    return out


def clubs_service_file(name, description, players, seed_n, policy, pyseed, dealer=0, expect_face_down=None):
    seed = seed_of(seed_n)
    per = 52 // players
    hands, rest = deal_from_seed(seed, players, per, dealer)
    face_down = rest[0] if players == 3 else None
    if expect_face_down is not None:
        assert face_down == expect_face_down, (seed_n, face_down)
    rng = random.Random(pyseed)
    steps, taken, points, scrambled, last = clubs_deal(players, hands, face_down, policy, rng)
    opening = "3C" if face_down == "2C" else "2C"
    leader = next(s for s in range(players) if opening in hands[s])
    file_steps = [
        {"seat": None, "action": {"type": "deal"}, "seed": seed,
         "outcomes": [{"type": "dealt", "round": 1, "dealer": dealer, "leader": leader, "opening": [opening]}],
         "expect": {"to_act": {"seats": [leader], "table": False},
                    "table": {"opening": [opening], "face_down": "2C" if face_down == "2C" else None},
                    "you": {str(s): {"hand": canon(hands[s])} for s in range(players)}}},
    ]

    def outcome(st):
        o = [{"type": "trick", "number": st["trick"], "winner": st["winner"], "called": st["called"]}]
        if st["trick"] == 52 // players:
            if face_down:
                o.append({"type": "face_down", "card": face_down, "to": last})
            o.append({"type": "deal_scored", "round": 1, "taken": taken, "scrambled": scrambled,
                      "points": points, "totals": points})
        return o

    file_steps += play_steps(steps, outcome)
    file_steps.append({"expect": {
        "table": {"phase": "awaiting_deal", "next_dealer": (dealer + 1) % players, "trick": [], "revokes": []},
        "to_act": {"seats": [], "table": True},
        "scores": {"unit": "seat", "sides": None, "totals": points, "finished": False, "winners": [], "margin": None,
                   "rounds": [{"round": 1, "label": "Deal 1", "multiplier": 1, "points": points,
                               "detail": {"taken": taken, "scrambled": scrambled, "tallied": False, "revokes": 0,
                                          "face_down": {"card": face_down, "to": last} if face_down else None}}]}}})
    write("clubs", name, {"description": description, "game": "clubs", "players": players,
                          "dealing": "service", "config": {"first_dealer": dealer}, "steps": file_steps})
    return steps, taken, points, scrambled


def clubs_table_file(name, description, players, seed_n, pyseed, dealer=0):
    """A full deal in table dealing: the same cards, recorded play by play; the 3-player face-down
    card is the one never played."""
    seed = seed_of(seed_n)
    hands, rest = deal_from_seed(seed, players, 52 // players, dealer)
    face_down = rest[0] if players == 3 else None
    rng = random.Random(pyseed)
    steps, taken, points, scrambled, last = clubs_deal(players, hands, face_down, random_policy, rng)
    opening = steps[0]["actions"][0]["card"]
    leader0 = next(s for s in range(players) if opening in hands[s])
    file_steps = [
        {"seat": None, "action": {"type": "deal"},
         "outcomes": [{"type": "dealt", "round": 1, "dealer": dealer, "leader": None,
                       "opening": ["2C", "3C"] if players == 3 else ["2C"]}],
         "expect": {"to_act": {"seats": list(range(players)), "table": False},
                    "table": {"leader": None, "to_play": None}}},
        {"seat": leader0, "action": steps[0]["actions"][0],
         "expect": {"table": {"leader": leader0, "called_suit": steps[0]["called"],
                              "face_down": "2C" if opening == "3C" else None}}},
    ]
    first = dict(steps[0])
    first["actions"] = first["actions"][1:]

    def outcome(st):
        o = [{"type": "trick", "number": st["trick"], "winner": st["winner"], "called": st["called"]}]
        if st["trick"] == 52 // players:
            if face_down:
                o.append({"type": "face_down", "card": face_down, "to": last})
            o.append({"type": "deal_scored", "round": 1, "taken": taken, "scrambled": scrambled,
                      "points": points, "totals": points})
        return o

    file_steps += play_steps([first] + steps[1:], outcome)
    file_steps.append({"expect": {"scores": {"totals": points, "rounds": [
        {"round": 1, "multiplier": 1, "points": points,
         "detail": {"taken": taken, "scrambled": scrambled, "tallied": False, "revokes": 0,
                    "face_down": {"card": face_down, "to": last} if face_down else None}}]}}})
    write("clubs", name, {"description": description, "game": "clubs", "players": players,
                          "dealing": "table", "steps": file_steps})


# ---------------------------------------------------------------- Bonus-Malus

VALUE = {"S": 10, "H": 5, "D": -5, "C": -10}


def bm_legal(hand, led, trump):
    if led is None:
        return canon(hand)
    f = [c for c in hand if suit(c) == led]
    if f:
        return canon(f)
    t = [c for c in hand if trump and suit(c) == trump]
    return canon(t) if t else canon(hand)


def bm_key(led, trump, c):
    if trump and suit(c) == trump:
        return 100 + rank(c)
    if suit(c) == led:
        return rank(c)
    return None


def bm_deal(players, hands, stock, dealer, rng):
    """Plays a deal out; stock is top first. Returns per-trick records and the result."""
    hands = [set(h) for h in hands]
    stock = list(stock)
    leader = (dealer + 1) % players
    sides = 2 if players == 4 else players
    won = [[] for _ in range(sides)]
    set_aside = None
    tricks = []
    number = 0
    while any(hands):
        number += 1
        trump = suit(stock[0]) if stock else None
        plays, led = [], None
        for k in range(players):
            seat = (leader + k) % players
            card = rng.choice(bm_legal(hands[seat], led, trump))
            if led is None:
                led = suit(card)
            hands[seat].remove(card)
            plays.append((seat, card))
        winner = max((p for p in plays if bm_key(led, trump, p[1]) is not None),
                     key=lambda p: bm_key(led, trump, p[1]))[0]
        won[winner % sides] += [c for _, c in plays]
        rec = {"number": number, "cards": [c for _, c in plays], "winner": winner, "trump": trump,
               "value": sum(VALUE[suit(c)] for _, c in plays), "drew": None, "set_aside": False}
        if len(stock) >= players:
            order = [(winner + k) % players for k in range(players)]
            for s in order:
                hands[s].add(stock.pop(0))
            rec["drew"] = order
        if 0 < len(stock) < players:
            set_aside = stock.pop(0)
            rec["set_aside"] = True
        rec["stock"] = len(stock)
        rec["next_trump"] = suit(stock[0]) if stock else None
        tricks.append(rec)
        leader = winner
    counts = [{s: sum(1 for c in w if suit(c) == s) for s in SUITS} for w in won]
    values = [sum(VALUE[suit(c)] for c in w) for w in won]
    assert sum(values) + (VALUE[suit(set_aside)] if set_aside else 0) == 0
    return tricks, counts, values, set_aside


def bm_file(name, description, players, seed_n, pyseed, dealing, dealer=0, pre=None, round_no=1,
            totals_before=None, config=None, extra_end=None):
    seed = seed_of(seed_n)
    hands, stock = deal_from_seed(seed, players, 7, dealer)
    rng = random.Random(pyseed)
    tricks, counts, values, set_aside = bm_deal(players, hands, stock, dealer, rng)
    sides = 2 if players == 4 else players
    totals_before = totals_before or [0] * sides
    points = [max(v, 0) * round_no for v in values]
    totals = [a + b for a, b in zip(totals_before, points)]
    leader = (dealer + 1) % players
    steps = list(pre or [])
    if dealing == "service":
        steps.append({"seat": None, "action": {"type": "deal"}, "seed": seed,
                      "outcomes": [{"type": "dealt", "round": round_no, "dealer": dealer, "leader": leader,
                                    "trump": suit(stock[0]), "stock": 52 - 7 * players}],
                      "expect": {"table": {"trump": suit(stock[0]), "stock": 52 - 7 * players,
                                           "multiplier": round_no},
                                 "you": {str(s): {"hand": canon(hands[s])} for s in range(players)}}})
    else:
        steps.append({"seat": None, "action": {"type": "deal", "trump": suit(stock[0])},
                      "outcomes": [{"type": "dealt", "round": round_no, "dealer": dealer, "leader": leader,
                                    "trump": suit(stock[0]), "stock": 52 - 7 * players}],
                      "expect": {"table": {"trump": suit(stock[0]), "stock": 52 - 7 * players,
                                           "multiplier": round_no, "backs": None},
                                 "you": {"0": {"hand": None}}}})
    for t in tricks:
        o = [{"type": "trick", "number": t["number"], "winner": t["winner"], "trump": t["trump"],
              "value": t["value"]}]
        if t["drew"]:
            o.append({"type": "drawn", "order": t["drew"], "stock": t["stock"] + (1 if t["set_aside"] else 0)})
        if t["set_aside"]:
            o.append({"type": "set_aside"})
        last = t is tricks[-1]
        if last:
            sc = {"type": "deal_scored", "round": round_no, "multiplier": round_no, "taken": counts,
                  "values": values, "points": points, "totals": totals, "set_aside": set_aside}
            o.append(sc)
            if any(x >= (config or {}).get("target", 155) for x in totals):
                best = max(totals)
                winners = [i for i, x in enumerate(totals) if x == best]
                rest = [x for x in totals if x < best]
                o.append({"type": "match_finished", "winners": winners,
                          "margin": best - max(rest) if rest else 0})
        step = {"cards": t["cards"], "outcomes": o}
        if not last:
            if dealing == "service" or t["stock"] == 0:
                step["expect"] = {"table": {"trump": t["next_trump"], "stock": t["stock"],
                                            "leader": t["winner"], "phase": "playing"}}
            else:
                step["expect"] = {"table": {"trump": None, "stock": t["stock"], "phase": "awaiting_stock_top"},
                                  "to_act": {"seats": [], "table": True}}
        steps.append(step)
        if dealing == "table" and not last and t["stock"] > 0:
            steps.append({"actions": [{"type": "stock_top", "suit": t["next_trump"]}],
                          "outcomes": [{"type": "trump", "trump": t["next_trump"]}],
                          "expect": {"table": {"trump": t["next_trump"], "phase": "playing"},
                                     "to_act": {"seats": [t["winner"]], "table": False}}})
    if extra_end:
        steps += extra_end
    doc = {"description": description, "game": "bonus-malus", "players": players, "dealing": dealing,
           "config": dict({"first_dealer": (dealer - (round_no - 1)) % players}, **(config or {})),
           "steps": steps}
    write("bonus_malus", name, doc)
    return tricks, counts, values, set_aside, points, totals


# ---------------------------------------------------------------- output


def write(folder, name, doc):
    """Writes a scenario with one step per line, so the files stay readable."""
    head = {k: v for k, v in doc.items() if k != "steps"}
    lines = ["{"]
    for k, v in head.items():
        lines.append("  %s: %s," % (json.dumps(k), json.dumps(v, ensure_ascii=False)))
    lines.append('  "steps": [')
    steps = doc["steps"]
    for i, s in enumerate(steps):
        lines.append("    " + json.dumps(s, ensure_ascii=False) + ("," if i + 1 < len(steps) else ""))
    lines.append("  ]")
    lines.append("}")
    with open("tests/scenarios/%s/%s.json" % (folder, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def find_seed(pred, start=0):
    n = start
    while not pred(n):
        n += 1
    return n


def declares(steps):
    return {st["actions"][0].get("declare") for st in steps[1:]} - {None}


def main():
    # Clubs, 4 players, service dealing: a full deal with clubs-alone and declared-suit leads.
    def varied(py):
        hands, _ = deal_from_seed(seed_of(1), 4, 13, 0)
        st = clubs_deal(4, hands, None, random_policy, random.Random(py))[0]
        return "C" in declares(st) and len(declares(st)) >= 2
    py = find_seed(varied)
    clubs_service_file("full_deal_4p_service",
                       "Service dealing, 4 players: the deal derived from the seed, the holder of 2C leads it with a "
                       "declaration, every trick's winner under the called-suit rule (clubs-alone and declared-suit "
                       "leads among them), the tally -1 a card, +3 a club except JC, -10 more for JC, summing to -26.",
                       4, 1, random_policy, py)
    # Clubs, 3 players, service dealing, 2C face down: 3C leads; the face-down card goes to the
    # last trick's winner.
    n = find_seed(lambda n: deal_from_seed(seed_of(n), 3, 17, 0)[1][0] == "2C", 100)
    clubs_service_file("face_down_2c_3p_service",
                       "Service dealing, 3 players: 17 cards each and 2C is the face-down card, so the holder of 3C "
                       "leads it; the face-down card goes, counted, to the winner of the last trick.",
                       3, n, random_policy, 7, expect_face_down="2C")
    # Clubs, 4 players: a deal in which seat 0 takes so much that everyone recounts (scrambling).
    def scrambles(n):
        hands, _ = deal_from_seed(seed_of(n), 4, 13, 0)
        return clubs_deal(4, hands, None, greedy_seat0_policy, random.Random(3))[3]
    n = find_seed(scrambles, 1000)
    clubs_service_file("scrambling_4p_service",
                       "Service dealing, 4 players: seat 0 plays high and takes a tally of -26 or worse, so everyone "
                       "recounts: no per-card penalty, -3 a club except JC, +10 for JC; still -26 in all.",
                       4, n, greedy_seat0_policy, 3)
    # Clubs, 3 and 4 players, table dealing: the same kind of deal recorded play by play.
    clubs_table_file("full_deal_3p_table",
                     "Table dealing, 3 players: any seat may open with 2C (or 3C); the cards are learned as played; "
                     "the face-down card is the one card never played and goes to the last trick's winner.",
                     3, 2, 11)
    clubs_table_file("full_deal_4p_table",
                     "Table dealing, 4 players: the holder of 2C shows himself by leading it; a full deal recorded "
                     "play by play with exact trick winners and scores.",
                     4, 3, 12)

    # Bonus-Malus, service dealing, 4, 2 and 3 players.
    bm_file("full_deal_4p_service",
            "Service dealing, 4 players (partnerships 0+2, 1+3): the trump is the suit showing on top of the stock and "
            "changes trick by trick as the stock is drawn (winner first, then from his left); 6 tricks with trumps, "
            "then the last 7 at no trump; the side with a plus total scores it.",
            4, 20, 21, "service")
    bm_file("full_deal_2p_service",
            "Service dealing, 2 players: 19 tricks with trumps while the stock lasts, then 7 without.",
            2, 22, 23, "service", dealer=1)
    bm_file("full_deal_3p_service",
            "Service dealing, 3 players (house rule): each for himself; all three draw while the stock holds at least "
            "3 cards; the last card is set aside unseen and counts for nobody (10 tricks with trumps, 7 without).",
            3, 24, 25, "service", dealer=2)
    bm_file("full_deal_4p_table",
            "Table dealing, 4 players: the deal records the suit showing on the stock; after each trick's draws the "
            "engine asks the table for the stock's new top suit (stock_top) while cards remain; then 7 no-trump tricks.",
            4, 26, 27, "table")
    tallies = [
        {"seat": None, "action": {"type": "tally", "taken": [{"S": 13, "H": 13, "D": 3, "C": 7},
                                                             {"S": 0, "H": 0, "D": 10, "C": 6}]},
         "outcomes": [{"type": "deal_scored", "round": 1, "multiplier": 1, "values": [110, -110],
                       "points": [110, 0], "totals": [110, 0]}]},
        {"seat": None, "action": {"type": "tally", "taken": [{"S": 5, "H": 9, "D": 7, "C": 11},
                                                             {"S": 8, "H": 4, "D": 6, "C": 2}]},
         "outcomes": [{"type": "deal_scored", "round": 2, "multiplier": 2, "values": [-50, 50],
                       "points": [0, 100], "totals": [110, 100]}],
         "expect": {"scores": {"rounds": [{"round": 1, "multiplier": 1, "points": [110, 0]},
                                          {"round": 2, "multiplier": 2, "points": [0, 100]}],
                               "totals": [110, 100], "finished": False}}},
    ]
    def crosses(n):
        hands, stock = deal_from_seed(seed_of(n), 4, 7, 2)
        vals = bm_deal(4, hands, stock, 2, random.Random(29))[2]
        return max(vals) >= 20
    n = find_seed(crosses, 30)
    tricks, counts, values, _, points, totals = bm_file(
        "deal3_times_3_reaches_155",
        "Table dealing, 4 players: deals 1 and 2 recorded as tallies (x1, x2), deal 3 played out card by card and "
        "scored x3 (the multiplier on its score-sheet row); a side reaches 155 at the end of the deal and wins "
        "with the margin; nothing more can be recorded.",
        4, n, 29, "table", dealer=2, pre=tallies, round_no=3, totals_before=[110, 100],
        extra_end=[{"seat": None, "action": {"type": "deal", "trump": "S"}, "error": "match_finished"}])
    print("deal 3 values", values, "points", points, "totals", totals)


if __name__ == "__main__":
    main()

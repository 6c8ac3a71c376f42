//! Property tests of the Dump engine (issue 2 "Proof"): for 2 and 4 players, table and service
//! dealing, random legal playouts always end a deal, the captured card points sum to 160 every
//! deal, `legal_actions` lists exactly what `apply` accepts, a refused action leaves the state
//! untouched, and replaying the accepted actions into a fresh engine gives the live state.
//!
//! The expectations are computed here independently of the engine (our own record of the cards
//! played, the suits each seat showed out of, the hands, the card points), not read back from it.

use clubroom::rules::{
    cards::{deck_without_ranks, full_deck, Card, CardSet, Seed, Suit},
    dump::{Action, Dump, DumpConfig, DumpError, MAX_TARGET},
    outcomes_json, Actor, AnyGame, Dealing, Game, RuleError,
};
use proptest::prelude::*;
use serde_json::Value;

// The playouts' choices: one proptest-chosen `u64` stands for a whole playout.
use clubroom::rng::SplitMix64 as Rng;

/// Card points as docs/rules.md#dump-card-points states them: A = 1, 2 3 7 8 9 10 at face value, J Q K nothing.
fn points(c: Card) -> u32 {
    match c.rank() {
        14 => 1,
        r if r <= 10 => u32::from(r),
        _ => 0,
    }
}

fn dump_deck() -> CardSet {
    deck_without_ranks(&[4, 5, 6])
}

/// The whole state, every private field included (the engine's `Debug`).
fn state(g: &Dump) -> String {
    format!("{g:?}")
}

fn dealing_strategy() -> impl Strategy<Value = Dealing> {
    prop_oneof![Just(Dealing::Table), Just(Dealing::Service)]
}

fn players_strategy() -> impl Strategy<Value = usize> {
    prop_oneof![Just(2usize), Just(4usize)]
}

/// What the test knows about the deal in progress, kept from the accepted actions alone.
#[derive(Default)]
struct Shadow {
    played: CardSet,
    trick: Vec<(usize, Card)>,
    leader: usize,
    /// Per seat, per suit: the trick (1-based) in which the seat showed out of it (table dealing).
    voids: Vec<[Option<usize>; 4]>,
    tricks_done: usize,
    captured: [u32; 2],
    plays: usize,
}

impl Shadow {
    fn new_deal(players: usize, leader: usize) -> Shadow {
        Shadow {
            leader,
            voids: vec![[None; 4]; players],
            ..Shadow::default()
        }
    }

    fn to_play(&self, players: usize) -> usize {
        (self.leader + self.trick.len()) % players
    }

    /// Records an accepted play; returns the completed trick's (winner, points).
    fn record(&mut self, players: usize, seat: usize, card: Card) -> Option<(usize, u32)> {
        if let Some(&(_, lead)) = self.trick.first() {
            let led = lead.suit() as usize;
            if card.suit() != lead.suit() && self.voids[seat][led].is_none() {
                self.voids[seat][led] = Some(self.tricks_done + 1);
            }
        }
        self.played.insert(card);
        self.trick.push((seat, card));
        self.plays += 1;
        if self.trick.len() < players {
            return None;
        }
        let led = self.trick[0].1.suit();
        let (winner, _) = *self
            .trick
            .iter()
            .filter(|(_, c)| c.suit() == led)
            .max_by_key(|(_, c)| c.rank())
            .expect("the lead follows itself");
        let pts: u32 = self.trick.iter().map(|(_, c)| points(*c)).sum();
        self.captured[winner % 2] += pts;
        self.trick.clear();
        self.tricks_done += 1;
        self.leader = winner;
        Some((winner, pts))
    }
}

fn hand_of(g: &Dump, seat: usize) -> CardSet {
    g.seat_view(seat)["hand"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().unwrap().parse::<Card>().unwrap())
                .collect()
        })
        .unwrap_or_default()
}

fn plays_of(list: &[Action]) -> Vec<Card> {
    list.iter()
        .filter_map(|a| match a {
            Action::Play { card } => Some(*card),
            _ => None,
        })
        .collect()
}

/// Every actor worth asking: the table, each seat, and seats that do not exist.
fn actors(players: usize) -> Vec<Actor> {
    let mut v = vec![Actor::Table];
    v.extend((0..players + 2).map(Actor::Seat));
    v.push(Actor::Seat(usize::MAX));
    v
}

/// Checks, for every actor and every card of the 52-card pack (and the deal), that `apply`
/// accepts exactly what `legal_actions` lists, that a refusal leaves the state untouched, and
/// that the seat to act may play exactly the cards the rules allow (computed independently).
fn check_legal_is_accepted(
    g: &Dump,
    players: usize,
    dealing: Dealing,
    shadow: Option<&Shadow>,
    seed: &Seed,
) -> Result<(), TestCaseError> {
    let before = state(g);
    for actor in actors(players) {
        let legal = g.legal_actions(actor);
        let mut candidates: Vec<Action> = full_deck()
            .iter()
            .map(|card| Action::Play { card })
            .collect();
        candidates.push(Action::Deal {});
        for action in &candidates {
            let mut probe = g.clone();
            let s = (dealing == Dealing::Service).then_some(seed);
            let result = probe.apply(actor, action, s).map(|o| outcomes_json(&o));
            prop_assert_eq!(
                result.is_ok(),
                legal.contains(action),
                "{:?} by {:?}: apply says {:?}, legal lists {:?}",
                action,
                actor,
                result,
                legal
            );
            // (That a refusal leaves the state untouched is the property below that tries
            // arbitrary actions; comparing whole states here would make this test slow.)
            if let Ok(out) = result {
                // Table dealing: a card of a suit the seat showed out of is flagged.
                if let (Action::Play { card }, Actor::Seat(seat), Some(sh)) =
                    (action, actor, shadow)
                {
                    let flagged = out.iter().any(|o| o["type"] == "revoke");
                    let expected =
                        dealing == Dealing::Table && sh.voids[seat][card.suit() as usize].is_some();
                    prop_assert_eq!(flagged, expected, "revoke flag of {} by {}", card, seat);
                    if expected {
                        let trick = sh.voids[seat][card.suit() as usize].unwrap();
                        prop_assert!(out.iter().any(|o| o["type"] == "revoke"
                            && o["shown_out_in_trick"] == trick
                            && o["seat"] == seat));
                    }
                }
            }
        }
        // The seat to act may play exactly what the rules allow; nobody else may play.
        if let Actor::Seat(seat) = actor {
            let plays = plays_of(&legal);
            match shadow {
                Some(sh) if seat == sh.to_play(players) => {
                    let expected: Vec<Card> = match dealing {
                        // Table dealing: every card of the deck not yet played.
                        Dealing::Table => dump_deck()
                            .iter()
                            .filter(|c| !sh.played.contains(*c))
                            .collect(),
                        // Service dealing: the hand, restricted to the led suit when held.
                        Dealing::Service => {
                            let hand = hand_of(g, seat);
                            let led = sh.trick.first().map(|(_, c)| c.suit());
                            match led {
                                Some(s) if hand.has_suit(s) => {
                                    hand.iter().filter(|c| c.suit() == s).collect()
                                }
                                _ => hand.to_vec(),
                            }
                        }
                    };
                    prop_assert!(!expected.is_empty());
                    prop_assert_eq!(plays, expected, "legal plays of seat {}", seat);
                }
                _ => prop_assert!(plays.is_empty(), "seat {} may not play now", seat),
            }
        }
    }
    prop_assert_eq!(state(g), before);
    Ok(())
}

/// Plays one deal to its end by random legal choices; checks the plays, the trick outcomes and
/// the 160 card points against the shadow. Returns the deal's captured points.
fn play_random_deal(
    g: &mut Dump,
    players: usize,
    dealing: Dealing,
    rng: &mut Rng,
    log: &mut Vec<(Actor, Action, Option<Seed>)>,
    check_legal: bool,
) -> Result<[u32; 2], TestCaseError> {
    let seed = rng.seed();
    let deal_seed = (dealing == Dealing::Service).then_some(seed);
    let round = g.round() + 1;
    let dealer = g.dealer().expect("a dealer before the deal");
    if check_legal {
        check_legal_is_accepted(g, players, dealing, None, &seed)?;
    }
    let out = g
        .apply(Actor::Table, &Action::Deal {}, deal_seed.as_ref())
        .map(|o| outcomes_json(&o))
        .map_err(|e| TestCaseError::fail(format!("deal refused: {e}")))?;
    log.push((Actor::Table, Action::Deal {}, deal_seed));
    let leader = (dealer + 1) % players;
    prop_assert_eq!(out.len(), 1);
    prop_assert_eq!(&out[0]["leader"], &Value::from(leader));
    prop_assert_eq!(g.round(), round);
    if dealing == Dealing::Service {
        let mut all = CardSet::EMPTY;
        for s in 0..players {
            let h = hand_of(g, s);
            prop_assert_eq!(h.len(), 40 / players);
            all = h.iter().chain(all.iter()).collect();
        }
        prop_assert_eq!(all, dump_deck());
    }
    let mut sh = Shadow::new_deal(players, leader);
    let rounds_before = g.rounds_completed();
    loop {
        let to_act = g.to_act();
        if g.rounds_completed() > rounds_before {
            break;
        }
        let seat = sh.to_play(players);
        prop_assert_eq!(to_act.seats.as_slice(), &[seat][..]);
        prop_assert!(!to_act.table);
        prop_assert!(sh.plays < 40, "the deal must end after 40 cards");
        if check_legal {
            check_legal_is_accepted(g, players, dealing, Some(&sh), &seed)?;
        }
        let legal = g.legal_actions(Actor::Seat(seat));
        prop_assert!(!legal.is_empty(), "seat {} to play has no legal card", seat);
        let action = legal[rng.below(legal.len())].clone();
        let Action::Play { card } = action else {
            return Err(TestCaseError::fail("a seat may only play"));
        };
        let out = g
            .apply(Actor::Seat(seat), &action, None)
            .map(|o| outcomes_json(&o))
            .map_err(|e| TestCaseError::fail(format!("legal play refused: {e}")))?;
        log.push((Actor::Seat(seat), action, None));
        let trick_no = sh.tricks_done + 1;
        if let Some((winner, pts)) = sh.record(players, seat, card) {
            let t = out
                .iter()
                .find(|o| o["type"] == "trick")
                .expect("a trick outcome");
            prop_assert_eq!(&t["winner"], &Value::from(winner));
            prop_assert_eq!(&t["points"], &Value::from(pts));
            prop_assert_eq!(&t["number"], &Value::from(trick_no));
        } else {
            prop_assert!(out.iter().all(|o| o["type"] != "trick"));
        }
        if sh.plays < 40 {
            let view = g.table_view();
            prop_assert_eq!(&view["captured"], &serde_json::json!(sh.captured));
        }
    }
    prop_assert_eq!(sh.plays, 40, "a deal is 40 cards");
    prop_assert_eq!(sh.tricks_done, 40 / players);
    prop_assert_eq!(sh.captured[0] + sh.captured[1], 160);
    let sheet = g.score_sheet();
    let line = sheet.rounds.last().expect("the deal is on the sheet");
    prop_assert_eq!(&line.detail["captured"], &serde_json::json!(sh.captured));
    let expected: Vec<i64> = sh
        .captured
        .iter()
        .map(|&c| i64::from(c.saturating_sub(80)))
        .collect();
    prop_assert_eq!(&line.points, &expected);
    prop_assert_eq!(g.seat_view(0)["hand"].clone(), Value::Null);
    Ok(sh.captured)
}

/// Replays `log` into a fresh engine (typed, and through `AnyGame` as wire JSON) and compares.
fn check_replay(
    g: &Dump,
    config: &DumpConfig,
    players: usize,
    dealing: Dealing,
    log: &[(Actor, Action, Option<Seed>)],
) -> Result<(), TestCaseError> {
    let mut fresh = Dump::new(config.clone(), players, dealing).unwrap();
    let mut any = AnyGame::new(
        "dump",
        Some(serde_json::to_value(config).unwrap()),
        players,
        dealing,
    )
    .unwrap();
    for (actor, action, seed) in log {
        fresh
            .apply(*actor, action, seed.as_ref())
            .map_err(|e| TestCaseError::fail(format!("replay refused {action:?}: {e}")))?;
        any.apply(
            *actor,
            &serde_json::to_value(action).unwrap(),
            seed.as_ref(),
        )
        .map_err(|e| TestCaseError::fail(format!("wire replay refused {action:?}: {e}")))?;
    }
    prop_assert_eq!(state(&fresh), state(g));
    prop_assert_eq!(any.table_view(), g.table_view());
    // (The engine's own sheet names no game; the registry's names it.)
    prop_assert_eq!(
        any.score_sheet(),
        clubroom::rules::ScoreSheet {
            game: any.id(),
            ..g.score_sheet()
        }
    );
    prop_assert_eq!(any.to_act(), g.to_act());
    for s in 0..players {
        prop_assert_eq!(any.seat_view(s), g.seat_view(s));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random legal playouts always end a deal after 40 cards, the tricks are won by the highest
    /// card of the led suit, the captured points sum to 160 and the deal scores the excess over 80.
    #[test]
    fn random_legal_deals_end_and_capture_160(
        players in players_strategy(),
        dealing in dealing_strategy(),
        first_dealer in 0usize..4,
        choices in any::<u64>(),
    ) {
        let config = DumpConfig { target: MAX_TARGET, first_dealer: first_dealer % players, ..DumpConfig::default() };
        let mut g = Dump::new(config.clone(), players, dealing).unwrap();
        let mut rng = Rng::new(choices);
        let mut log = vec![];
        let mut totals = [0i64; 2];
        for deal in 0..3 {
            prop_assert_eq!(g.dealer(), Some((config.first_dealer + deal) % players));
            let captured = play_random_deal(&mut g, players, dealing, &mut rng, &mut log, false)?;
            for (t, c) in totals.iter_mut().zip(captured) {
                *t += i64::from(c.saturating_sub(80));
            }
            prop_assert_eq!(&g.score_sheet().totals, &totals.to_vec());
            prop_assert!(g.to_act().table);
        }
        check_replay(&g, &config, players, dealing, &log)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// At every step of a random legal deal, for every actor and each card of the 52-card pack
    /// (and the deal action), `apply` accepts exactly what `legal_actions` lists; in table
    /// dealing the seat to act may play every unplayed deck card and a card of a suit it showed
    /// out of is flagged as a revoke; in service dealing exactly the legal cards of its hand.
    #[test]
    fn legal_actions_list_exactly_what_apply_accepts(
        players in players_strategy(),
        dealing in dealing_strategy(),
        choices in any::<u64>(),
    ) {
        let config = DumpConfig::default();
        let mut g = Dump::new(config.clone(), players, dealing).unwrap();
        let mut rng = Rng::new(choices);
        let mut log = vec![];
        play_random_deal(&mut g, players, dealing, &mut rng, &mut log, true)?;
        // Between deals, too.
        check_legal_is_accepted(&g, players, dealing, None, &rng.seed())?;
        check_replay(&g, &config, players, dealing, &log)?;
    }
}

/// One random action: sometimes legal, mostly anything at all (any actor, any card, any tally,
/// a seed or none).
fn random_action(g: &Dump, players: usize, rng: &mut Rng) -> (Actor, Action, Option<Seed>) {
    let all = actors(players);
    if rng.below(2) == 0 {
        let t = g.to_act();
        let actor = if t.table {
            Actor::Table
        } else if let Some(&s) = t.seats.first() {
            Actor::Seat(s)
        } else {
            all[rng.below(all.len())]
        };
        let legal = g.legal_actions(actor);
        if !legal.is_empty() {
            let seed = rng.seed();
            return (actor, legal[rng.below(legal.len())].clone(), Some(seed));
        }
    }
    let actor = all[rng.below(all.len())];
    let action = match rng.below(4) {
        0 => Action::Deal {},
        1 => {
            let a = rng.below(161) as u32;
            Action::Tally {
                points: [a, 160 - a],
            }
        }
        2 => Action::Tally {
            points: [rng.next_u64() as u32, rng.next_u64() as u32],
        },
        _ => Action::Play {
            card: full_deck().to_vec()[rng.below(52)],
        },
    };
    let seed = (rng.below(2) == 0).then(|| rng.seed());
    (actor, action, seed)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any sequence of actions (legal or not, by anyone, with or without a seed): the engine never
    /// panics, a refused action leaves the whole state untouched, the views never fail for any
    /// seat, totals only ever grow by the excess over 80, and replaying the accepted actions into
    /// a fresh engine gives the live state.
    #[test]
    fn refused_actions_leave_the_state_untouched_and_the_log_replays(
        players in players_strategy(),
        dealing in dealing_strategy(),
        target in 1i64..120,
        choices in any::<u64>(),
    ) {
        let config = DumpConfig { target, ..DumpConfig::default() };
        let mut g = Dump::new(config.clone(), players, dealing).unwrap();
        let mut rng = Rng::new(choices);
        let mut log = vec![];
        for _ in 0..250 {
            let (actor, action, seed) = random_action(&g, players, &mut rng);
            let before = state(&g);
            let views = (g.table_view(), g.score_sheet(), g.to_act());
            match g.apply(actor, &action, seed.as_ref()) {
                Ok(_) => log.push((actor, action, seed)),
                Err(e) => {
                    prop_assert!(!e.code().is_empty());
                    prop_assert_eq!(state(&g), before, "{:?} by {:?} refused ({}) but changed the state", action, actor, e.code());
                    prop_assert_eq!((g.table_view(), g.score_sheet(), g.to_act()), views);
                }
            }
            for s in [0, 1, 2, 3, 4, 99, usize::MAX] {
                let v = g.seat_view(s);
                prop_assert!(v.is_object());
            }
            let sheet = g.score_sheet();
            prop_assert_eq!(sheet.finished, sheet.totals.iter().any(|&t| t >= target));
            for r in &sheet.rounds {
                let cap: Vec<i64> = r.detail["captured"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
                prop_assert_eq!(cap.iter().sum::<i64>(), 160);
                let pts: Vec<i64> = cap.iter().map(|&c| (c - 80).max(0)).collect();
                prop_assert_eq!(&r.points, &pts);
            }
        }
        check_replay(&g, &config, players, dealing, &log)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random legal matches to a low target always finish; the first side (or seat) to reach
    /// the target at the end of a deal wins by its total minus the other's, and from then on
    /// every action by anyone is refused with `match_finished`.
    #[test]
    fn random_legal_matches_finish_with_the_right_winner_and_margin(
        players in players_strategy(),
        dealing in dealing_strategy(),
        target in 1i64..40,
        choices in any::<u64>(),
    ) {
        let config = DumpConfig { target, ..DumpConfig::default() };
        let mut g = Dump::new(config.clone(), players, dealing).unwrap();
        let mut rng = Rng::new(choices);
        let mut log = vec![];
        let mut deals = 0;
        while !g.score_sheet().finished {
            prop_assert!(deals < 500, "the match should have ended");
            let before = g.score_sheet().totals;
            prop_assert!(before.iter().all(|&t| t < target));
            play_random_deal(&mut g, players, dealing, &mut rng, &mut log, false)?;
            deals += 1;
        }
        let sheet = g.score_sheet();
        let (w, l) = if sheet.totals[0] >= target { (0, 1) } else { (1, 0) };
        prop_assert!(sheet.totals[l] < target, "only one side can score in a deal");
        prop_assert_eq!(&sheet.winners, &vec![w]);
        prop_assert_eq!(sheet.margin, Some(sheet.totals[w] - sheet.totals[l]));
        prop_assert!(g.to_act().seats.is_empty() && !g.to_act().table);
        let finished = state(&g);
        for actor in actors(players) {
            prop_assert!(g.legal_actions(actor).is_empty());
            let mut attempts = vec![Action::Deal {}, Action::Tally { points: [80, 80] }];
            attempts.extend(full_deck().iter().map(|card| Action::Play { card }));
            for a in attempts {
                let err = g.apply(actor, &a, Some(&rng.seed())).unwrap_err();
                prop_assert_eq!(err.code(), "match_finished");
                let err = g.apply(actor, &a, None).unwrap_err();
                prop_assert_eq!(err.code(), "match_finished");
            }
        }
        prop_assert_eq!(state(&g), finished);
        check_replay(&g, &config, players, dealing, &log)?;
    }
}

/// Every error the engine can return, one value of each variant. The `match` below has no
/// wildcard, so a new variant fails to compile until it is added here (and to a scenario).
fn every_dump_error() -> Vec<DumpError> {
    let card: Card = "AS".parse().unwrap();
    let all = vec![
        DumpError::PlayerCount(3),
        DumpError::BadTarget(0),
        DumpError::BadDealer { max: 1, got: 2 },
        DumpError::MatchFinished,
        DumpError::DealExpected,
        DumpError::DealInProgress,
        DumpError::TableActionOnly("deal"),
        DumpError::SeatActionOnly,
        DumpError::NotYourTurn {
            expected: 0,
            got: 1,
        },
        DumpError::NoSuchCard(card),
        DumpError::CardAlreadyPlayed(card),
        DumpError::CardNotInHand { seat: 0, card },
        DumpError::MustFollowSuit {
            seat: 0,
            card,
            led: Suit::H,
            led_name: "hearts",
        },
        DumpError::TallyNeedsTableDealing,
        DumpError::TallyMidDeal,
        DumpError::TallySum(161),
        DumpError::SeedMissing,
        DumpError::SeedNotTaken,
    ];
    for e in &all {
        match e {
            DumpError::PlayerCount(_)
            | DumpError::BadTarget(_)
            | DumpError::BadDealer { .. }
            | DumpError::MatchFinished
            | DumpError::DealExpected
            | DumpError::DealInProgress
            | DumpError::TableActionOnly(_)
            | DumpError::SeatActionOnly
            | DumpError::NotYourTurn { .. }
            | DumpError::NoSuchCard(_)
            | DumpError::CardAlreadyPlayed(_)
            | DumpError::CardNotInHand { .. }
            | DumpError::MustFollowSuit { .. }
            | DumpError::TallyNeedsTableDealing
            | DumpError::TallyMidDeal
            | DumpError::TallySum(_)
            | DumpError::SeedMissing
            | DumpError::SeedNotTaken => {}
        }
    }
    all
}

/// Each error code of `DumpError` is the expected `error` (or `create_error`) of at least one
/// scenario under tests/scenarios/dump/ (the scenario runner proves it is really returned).
#[test]
fn every_dump_error_code_is_exercised_by_a_scenario() {
    fn walk(dir: &std::path::Path, text: &mut String) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                walk(&p, text);
            } else if p.extension().is_some_and(|e| e == "json") {
                text.push_str(&std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    let mut text = String::new();
    walk(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/dump"),
        &mut text,
    );
    let mut missing = vec![];
    for e in every_dump_error() {
        let code = e.code();
        if !text.contains(&format!("\"error\": \"{code}\""))
            && !text.contains(&format!("\"create_error\": \"{code}\""))
        {
            missing.push(code);
        }
        assert!(!e.to_string().is_empty());
    }
    assert!(missing.is_empty(), "no scenario expects {missing:?}");
}

//! Property tests for the P.M. engine: random legal rubbers for 2, 4 and 8 players (table and
//! service dealing) always end, never put two men of one player on one number below 25, accept
//! exactly what `legal_actions` lists, leave the state untouched when they refuse, keep the card
//! counts straight, and replay (also through the JSON wire form) to the same state.

use clubroom::rules::{
    plus_minus::{board_points, Action, PlusMinus, PlusMinusConfig, PmCard, HAND_SIZE},
    Actor, AnyGame, Dealing, Game, Seed,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// One recorded action with its actor and (service deal) seed.
type Logged = (Actor, Action, Option<Seed>);

// The playouts' dice, driven by the proptest input, so that every case is reproducible from
// its shrunk input.
use clubroom::rng::SplitMix64 as Dice;

fn seed_for(base: u64, round: u32) -> Seed {
    let mut b = [0u8; 32];
    b[..8].copy_from_slice(&base.to_be_bytes());
    b[8..12].copy_from_slice(&round.to_be_bytes());
    Seed(b)
}

/// Every board holds four men on 0..=25 and no two of them share a number below 25.
fn check_boards(g: &PlusMinus) -> Result<(), TestCaseError> {
    for (seat, b) in g.boards().iter().enumerate() {
        prop_assert!(b.iter().all(|&p| p <= 25), "seat {seat}: {b:?}");
        for i in 0..b.len() {
            for j in i + 1..b.len() {
                prop_assert!(
                    b[i] != b[j] || b[i] == 0 || b[i] == 25,
                    "seat {seat} has two men on {}: {b:?}",
                    b[i]
                );
            }
        }
    }
    Ok(())
}

/// Card bookkeeping: cards played plus cards left is eleven per seat, a service hand holds
/// exactly its cards left, and the rubber totals are the sum of the games' points.
fn check_counts(g: &PlusMinus, players: usize) -> Result<(), TestCaseError> {
    let t = g.table_view();
    if t["phase"] == "playing" {
        let left: Vec<u64> = t["cards_left"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let played = t["cards_played"].as_u64().unwrap();
        prop_assert_eq!(
            left.iter().sum::<u64>() + played,
            (HAND_SIZE * players) as u64
        );
        for seat in 0..players {
            if let Some(hand) = g.seat_view(seat)["hand"].as_array() {
                prop_assert_eq!(hand.len() as u64, left[seat]);
            }
        }
    }
    let sheet = g.score_sheet();
    for seat in 0..players {
        let sum: i64 = sheet.rounds.iter().map(|r| r.points[seat]).sum();
        prop_assert_eq!(sum, sheet.totals[seat]);
    }
    for r in &sheet.rounds {
        let boards: Vec<[u8; 4]> = serde_json::from_value(r.detail["boards"].clone()).unwrap();
        let pts: Vec<i64> = boards.iter().map(board_points).collect();
        prop_assert_eq!(&pts, &r.points);
        let all_home = boards.iter().filter(|b| b.iter().all(|&p| p == 25)).count();
        prop_assert!(all_home <= 1, "two players cannot both finish: {boards:?}");
    }
    Ok(())
}

/// `apply` accepts every listed action, and accepts an unlisted candidate never; a refusal leaves
/// the state untouched.
fn check_legal_iff_accepted(
    g: &PlusMinus,
    actor: Actor,
    seed: Option<&Seed>,
    dice: &mut Dice,
) -> Result<(), TestCaseError> {
    let legal = g.legal_actions(actor);
    // Every listed action (a sample when the list is long) is accepted.
    for _ in 0..legal.len().min(8) {
        let a = &legal[dice.below(legal.len())];
        let mut c = g.clone();
        prop_assert!(
            c.apply(actor, a, seed).is_ok(),
            "listed {a:?} refused for {actor:?}"
        );
    }
    // Random candidates: accepted exactly when listed; refused ones change nothing.
    let players = g.boards().len();
    let mut listed_for: Vec<Option<Vec<Action>>> = vec![None; players + 1];
    for _ in 0..16 {
        let who = if dice.below(4) == 0 {
            Actor::Seat(dice.below(players + 1))
        } else {
            actor
        };
        let card = PmCard(dice.below(30) as i32 - 13);
        let from = match dice.below(8) {
            0 => None,
            1 => Some(dice.below(40) as i64 - 5),
            _ => {
                let b = g.boards().get(who.seat().unwrap_or(0)).copied();
                b.map(|b| b[dice.below(4)] as i64)
            }
        };
        let a = Action::Play { card, from };
        let mut c = g.clone();
        let listed = match who {
            Actor::Seat(s) => listed_for[s]
                .get_or_insert_with(|| g.legal_actions(who))
                .contains(&a),
            Actor::Table => false,
        };
        match c.apply(who, &a, None) {
            Ok(_) => prop_assert!(listed, "{a:?} by {who:?} accepted but not listed"),
            Err(e) => {
                prop_assert!(!listed, "{a:?} by {who:?} listed but refused: {e}");
                prop_assert!(&c == g, "refused {a:?} changed the state");
            }
        }
    }
    Ok(())
}

/// Plays a random legal rubber; returns the final engine and the log.
fn random_rubber(
    players: usize,
    dealing: Dealing,
    config: PlusMinusConfig,
    base: u64,
) -> Result<(PlusMinus, Vec<Logged>), TestCaseError> {
    let mut g = PlusMinus::new(config.clone(), players, dealing).unwrap();
    let mut dice = Dice::new(base | 1);
    let mut log: Vec<Logged> = vec![];
    let bound = config.rubber_games as usize * (HAND_SIZE * players + 1);
    for _ in 0..=bound {
        check_boards(&g)?;
        check_counts(&g, players)?;
        let to_act = g.to_act();
        if to_act.seats.is_empty() && !to_act.table {
            prop_assert!(g.legal_actions(Actor::Table).is_empty());
            prop_assert!(g.score_sheet().finished);
            prop_assert_eq!(g.score_sheet().rounds.len(), config.rubber_games as usize);
            return Ok((g, log));
        }
        let actor = match to_act.seats.as_slice() {
            [s] => Actor::Seat(*s),
            [] => Actor::Table,
            more => return Err(TestCaseError::fail(format!("several to act: {more:?}"))),
        };
        let seed = (actor == Actor::Table && dealing == Dealing::Service)
            .then(|| seed_for(base, g.round() + 1));
        check_legal_iff_accepted(&g, actor, seed.as_ref(), &mut dice)?;
        // Table dealing: now and then a game is tallied instead of played.
        if actor == Actor::Table && dealing == Dealing::Table && dice.below(4) == 0 {
            let men: Vec<Vec<i64>> = (0..players)
                .map(|_| (0..4).map(|_| dice.below(26) as i64).collect())
                .collect();
            let tally = Action::Tally {
                men: Some(men),
                points: None,
            };
            let before = g.clone();
            match g.apply(actor, &tally, None) {
                Ok(_) => {
                    log.push((actor, tally, None));
                    continue;
                }
                Err(_) => prop_assert!(g == before, "refused tally changed the state"),
            }
        }
        let legal = g.legal_actions(actor);
        prop_assert!(!legal.is_empty(), "{actor:?} to act but nothing is legal");
        let a = legal[dice.below(legal.len())].clone();
        g.apply(actor, &a, seed.as_ref())
            .map_err(|e| TestCaseError::fail(format!("{a:?} refused: {e}")))?;
        log.push((actor, a, seed));
    }
    Err(TestCaseError::fail(format!(
        "the rubber did not end within {bound} actions"
    )))
}

/// Replaying the log into a fresh engine, directly and as wire JSON through `AnyGame`, gives the
/// same state.
fn check_replay(
    live: &PlusMinus,
    log: &[Logged],
    players: usize,
    dealing: Dealing,
    config: &PlusMinusConfig,
) -> Result<(), TestCaseError> {
    let mut g = PlusMinus::new(config.clone(), players, dealing).unwrap();
    let mut any = AnyGame::new(
        "plus-minus",
        Some(serde_json::to_value(config).unwrap()),
        players,
        dealing,
    )
    .unwrap();
    for (actor, action, seed) in log {
        g.apply(*actor, action, seed.as_ref()).unwrap();
        let wire: Value = serde_json::to_value(action).unwrap();
        any.apply(*actor, &wire, seed.as_ref()).unwrap();
    }
    prop_assert!(&g == live, "direct replay differs");
    prop_assert_eq!(any.table_view(), live.table_view());
    // (The engine's own sheet names no game; the registry's names it.)
    prop_assert_eq!(
        any.score_sheet(),
        clubroom::rules::ScoreSheet {
            game: any.id(),
            ..live.score_sheet()
        }
    );
    for s in 0..players {
        prop_assert_eq!(any.seat_view(s), live.seat_view(s));
    }
    Ok(())
}

fn short_rubber() -> PlusMinusConfig {
    PlusMinusConfig {
        rubber_games: 2,
        ..PlusMinusConfig::default()
    }
}

fn run(players: usize, service: bool, base: u64, first_dealer: usize) -> Result<(), TestCaseError> {
    let dealing = if service {
        Dealing::Service
    } else {
        Dealing::Table
    };
    let config = PlusMinusConfig {
        first_dealer: first_dealer % players,
        ..short_rubber()
    };
    let (g, log) = random_rubber(players, dealing, config.clone(), base)?;
    check_replay(&g, &log, players, dealing, &config)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_two_player_rubbers_end_legally_and_replay(base: u64, service: bool, dealer in 0usize..8) {
        run(2, service, base, dealer)?;
    }

    #[test]
    fn random_four_player_rubbers_end_legally_and_replay(base: u64, service: bool, dealer in 0usize..8) {
        run(4, service, base, dealer)?;
    }

    #[test]
    fn random_eight_player_rubbers_end_legally_and_replay(base: u64, service: bool, dealer in 0usize..8) {
        run(8, service, base, dealer)?;
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn odd_player_counts_and_full_rubbers_end_too(base: u64, players in 2usize..=8, service: bool) {
        let dealing = if service { Dealing::Service } else { Dealing::Table };
        let config = PlusMinusConfig::default();
        let (g, log) = random_rubber(players, dealing, config.clone(), base)?;
        prop_assert_eq!(g.score_sheet().rounds.len(), 5);
        check_replay(&g, &log, players, dealing, &config)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Whatever arrives, the engine answers without panicking and a refusal changes nothing.
    #[test]
    fn arbitrary_actions_never_panic(
        players in 2usize..=8,
        service: bool,
        base: u64,
        noise in proptest::collection::vec((0usize..10, -40i64..40, proptest::option::of(-3i64..30)), 1..60),
    ) {
        let dealing = if service { Dealing::Service } else { Dealing::Table };
        let mut g = PlusMinus::new(PlusMinusConfig::default(), players, dealing).unwrap();
        for (i, (who, card, from)) in noise.into_iter().enumerate() {
            let actor = if who == 9 { Actor::Table } else { Actor::Seat(who) };
            let action = match (who, card.rem_euclid(7)) {
                (9, 0) => Action::Tally { men: Some(vec![vec![card, 0, 25, from.unwrap_or(0)]; players]), points: None },
                (9, _) => Action::Deal {},
                _ => Action::Play { card: PmCard(card as i32), from },
            };
            let seed = (i % 2 == 0).then(|| seed_for(base, i as u32));
            let before = g.clone();
            if g.apply(actor, &action, seed.as_ref()).is_err() {
                prop_assert!(g == before);
            }
            let _ = (g.table_view(), g.seat_view(who), g.score_sheet(), g.legal_actions(actor));
            check_boards(&g)?;
        }
    }
}

#[test]
fn the_wire_form_of_a_play_is_card_and_from() {
    let a: Action = serde_json::from_value(json!({"type": "play", "card": -7, "from": 9})).unwrap();
    assert_eq!(
        a,
        Action::Play {
            card: PmCard(-7),
            from: Some(9)
        }
    );
    assert_eq!(
        serde_json::to_value(&a).unwrap(),
        json!({"type": "play", "card": -7, "from": 9})
    );
    let none: Action =
        serde_json::from_value(json!({"type": "play", "card": 3, "from": null})).unwrap();
    assert_eq!(serde_json::to_value(&none).unwrap()["from"], Value::Null);
    assert!(serde_json::from_value::<Action>(json!({"type": "play", "card": 3, "x": 1})).is_err());
}

/// Plays random legal games through the list and checks, at every step, that `legal_pick` at
/// each index is the listed action there (told the list's length), and picks nothing from an
/// empty list or past its end: the bit-set count and walk of `legal_pick` against the listing.
fn check_pick_against_list(
    players: usize,
    dealing: Dealing,
    config: PlusMinusConfig,
    base: u64,
) -> Result<(), TestCaseError> {
    let mut g = PlusMinus::new(config, players, dealing).unwrap();
    let mut dice = Dice::new(base | 1);
    for step in 0..400 {
        let to = g.to_act();
        let actors: Vec<Actor> = (0..players)
            .map(Actor::Seat)
            .chain([Actor::Table])
            .collect();
        for &actor in &actors {
            let legal = g.legal_actions(actor);
            for (k, a) in legal.iter().enumerate() {
                let mut told = None;
                let got = g.legal_pick(actor, |n| {
                    told = Some(n);
                    k
                });
                prop_assert_eq!(told, Some(legal.len()), "step {}: {:?}", step, actor);
                prop_assert_eq!(
                    got.as_ref(),
                    Some(a),
                    "step {}: {:?} pick {}",
                    step,
                    actor,
                    k
                );
            }
            prop_assert_eq!(g.legal_pick(actor, |n| n), None);
        }
        let actor = match to.seats.as_slice() {
            [s] => Actor::Seat(*s),
            [] if to.table => Actor::Table,
            _ => return Ok(()),
        };
        let legal = g.legal_actions(actor);
        prop_assert!(!legal.is_empty());
        let a = legal[dice.below(legal.len())].clone();
        let seed = g.needs_seed(&a).then(|| seed_for(base, step));
        g.apply(actor, &a, seed.as_ref())
            .map_err(|e| TestCaseError::fail(format!("{a:?} refused: {e}")))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Default packs and random packs (values up to ±25 in size, so totals reach ±50, busts
    /// from the stars and MINUS tops are common), both dealing modes.
    #[test]
    fn legal_pick_is_the_listed_play_at_every_index(
        players in 2usize..=8,
        service: bool,
        base: u64,
        plus in proptest::collection::vec(1i32..=25, 96),
        minus in proptest::collection::vec(-25i32..=-1, 0..=5),
        default_pack: bool,
    ) {
        let dealing = if service { Dealing::Service } else { Dealing::Table };
        let deck = if default_pack {
            PlusMinusConfig::default().deck
        } else {
            plus.into_iter().chain(minus).map(PmCard).collect()
        };
        let config = PlusMinusConfig { deck, rubber_games: 2, ..PlusMinusConfig::default() };
        check_pick_against_list(players, dealing, config, base)?;
    }
}

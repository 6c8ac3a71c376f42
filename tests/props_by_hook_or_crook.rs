//! Property tests for By Hook or Crook: random legal games end; a collection card is never in two
//! places; sealed choices never show in any view, log rendering, outcome or error message for
//! another seat before the reveal; legal ⇔ accepted; replaying the log equals the live state; a
//! table-dealt game recorded alongside a service-dealt one stays in step.

use std::collections::BTreeSet;

use clubroom::rules::{
    by_hook_or_crook::{
        items::{default_deck, is_set, Item},
        Action, ActionCard, BhocConfig, ByHookOrCrook, ByHookOrCrookOutcome, Place, TwoPlayer,
        LEGAL_SETS_CAP,
    },
    Actor, AnyGame, Dealing, Game, Seed,
};
use proptest::prelude::*;
use serde_json::{json, Value};

// The playouts' own dice, seeded by proptest.
use clubroom::rng::SplitMix64 as Dice;

/// Most actions a playout may take before it counts as stuck.
const MAX_ACTIONS: usize = 6000;

fn config(players: usize, two: TwoPlayer) -> BhocConfig {
    let mut c = BhocConfig::default();
    if players == 2 {
        c.two_player = two;
    }
    c
}

fn new_game(players: usize, two: TwoPlayer, dealing: Dealing) -> ByHookOrCrook {
    ByHookOrCrook::new(config(players, two), players, dealing).expect("valid")
}

/// A random legal action, leaning towards exhibits so that games move along.
fn pick(legal: &[Action], dice: &mut Dice) -> Action {
    let castle = legal.iter().find(|a| {
        matches!(
            a,
            Action::Location {
                place: Place::Castle
            }
        )
    });
    if let Some(a) = castle {
        if dice.chance(60) {
            return a.clone();
        }
    }
    let exhibit = legal.iter().find(|a| {
        matches!(
            a,
            Action::Choose {
                card: ActionCard::Exhibit
            }
        )
    });
    if let Some(a) = exhibit {
        if dice.chance(70) {
            return a.clone();
        }
    }
    legal[dice.below(legal.len())].clone()
}

fn actor_to_move(g: &ByHookOrCrook, dice: &mut Dice) -> Option<Actor> {
    let t = g.to_act();
    if t.table {
        Some(Actor::Table)
    } else if t.seats.is_empty() {
        None
    } else {
        Some(Actor::Seat(t.seats[dice.below(t.seats.len())]))
    }
}

/// No collection card in two places; with service dealing all 45 are placed exactly once.
fn check_cards(g: &ByHookOrCrook, dealing: Dealing) -> Result<(), TestCaseError> {
    let places = g.card_places();
    let mut seen = BTreeSet::new();
    for (c, place) in &places {
        prop_assert!(seen.insert(*c), "{c} is in two places (one is {place})");
    }
    if g.round() > 0 {
        prop_assert_eq!(g.cards_in_play(), 45);
        if dealing == Dealing::Service {
            let all: BTreeSet<Item> = default_deck().into_iter().collect();
            prop_assert_eq!(seen, all);
        }
    }
    Ok(())
}

fn check_sheet(g: &ByHookOrCrook) -> Result<(), TestCaseError> {
    let sheet = g.score_sheet();
    let mut sums = vec![0i64; g.positions().len()];
    for r in &sheet.rounds {
        for (s, p) in r.points.iter().enumerate() {
            sums[s] += p;
        }
    }
    prop_assert_eq!(&sums, &sheet.totals);
    let phase = g.table_view()["phase"].clone();
    if phase == "locations" || phase == "finished" || phase == "final_exhibition" {
        let pos: Vec<i64> = g.positions().iter().map(|&p| p as i64).collect();
        prop_assert_eq!(&pos, &sheet.totals);
    }
    Ok(())
}

/// Every view and list, for every viewer including seats that do not exist (must not panic).
fn look_everywhere(g: &ByHookOrCrook) {
    let _ = (
        g.table_view(),
        g.score_sheet(),
        g.to_act(),
        g.round(),
        g.dealer(),
    );
    for s in 0..8 {
        let _ = (g.seat_view(s), g.legal_actions(Actor::Seat(s)));
    }
    let _ = g.legal_actions(Actor::Table);
}

/// `legal_pick` (exhibits counted and unranked, not listed) agrees with the list: it is told
/// the list's length and gives the list's action at the index picked (the first and last few and
/// others spread over a long list), none past the end.
fn picks_agree(g: &ByHookOrCrook, actor: Actor, legal: &[Action]) -> Result<(), TestCaseError> {
    let n = legal.len();
    let step = (n / 24).max(1);
    let ks = (0..n.min(4))
        .chain((0..n).step_by(step))
        .chain(n.saturating_sub(4)..n);
    for k in ks {
        let mut told = None;
        let got = g.legal_pick(actor, |len| {
            told = Some(len);
            k
        });
        prop_assert_eq!(told, Some(n));
        prop_assert_eq!(
            got.as_ref(),
            Some(&legal[k]),
            "{:?} index {} of {}",
            actor,
            k,
            n
        );
    }
    prop_assert_eq!(g.legal_pick(actor, |len| len), None);
    Ok(())
}

/// Plays a random legal game; calls `each` before every action. Returns the log.
#[allow(clippy::type_complexity)]
fn playout(
    players: usize,
    two: TwoPlayer,
    seed: [u8; 32],
    dice_seed: u64,
    mut each: impl FnMut(&ByHookOrCrook, Actor, &Action, usize, &mut Dice) -> Result<(), TestCaseError>,
) -> Result<(ByHookOrCrook, Vec<(Actor, Action, Option<Seed>)>), TestCaseError> {
    let mut g = new_game(players, two, Dealing::Service);
    let mut dice = Dice::new(dice_seed);
    let mut log = Vec::new();
    look_everywhere(&g);
    let seed = Seed(seed);
    g.apply(
        Actor::Table,
        &Action::Deal { pile_sizes: None },
        Some(&seed),
    )
    .map_err(|e| TestCaseError::fail(format!("deal refused: {e}")))?;
    log.push((Actor::Table, Action::Deal { pile_sizes: None }, Some(seed)));
    while let Some(actor) = actor_to_move(&g, &mut dice) {
        prop_assert!(
            log.len() < MAX_ACTIONS,
            "no end after {MAX_ACTIONS} actions"
        );
        let legal = g.legal_actions(actor);
        prop_assert!(
            !legal.is_empty(),
            "{actor:?} must act but has nothing legal"
        );
        picks_agree(&g, actor, &legal)?;
        let action = pick(&legal, &mut dice);
        each(&g, actor, &action, log.len(), &mut dice)?;
        g.apply(actor, &action, None)
            .map_err(|e| TestCaseError::fail(format!("legal {action:?} refused: {e}")))?;
        log.push((actor, action, None));
        check_cards(&g, Dealing::Service)?;
        check_sheet(&g)?;
    }
    look_everywhere(&g);
    prop_assert!(g.is_finished());
    Ok((g, log))
}

fn replay(players: usize, two: TwoPlayer, log: &[(Actor, Action, Option<Seed>)]) -> ByHookOrCrook {
    let mut g = new_game(players, two, Dealing::Service);
    for (actor, action, seed) in log {
        g.apply(*actor, action, seed.as_ref()).expect("replay");
    }
    g
}

fn same_state(a: &ByHookOrCrook, b: &ByHookOrCrook, players: usize) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.table_view(), b.table_view());
    prop_assert_eq!(a.score_sheet(), b.score_sheet());
    prop_assert_eq!(a.to_act(), b.to_act());
    for s in 0..players {
        prop_assert_eq!(a.seat_view(s), b.seat_view(s));
    }
    Ok(())
}

fn players_and_variant() -> impl Strategy<Value = (usize, TwoPlayer)> {
    prop_oneof![
        Just((3, TwoPlayer::Combined)),
        Just((4, TwoPlayer::Combined)),
        Just((5, TwoPlayer::Combined)),
        Just((2, TwoPlayer::Combined)),
        Just((2, TwoPlayer::Alternate)),
    ]
}

/// Actions worth trying in any state: the whole vocabulary with the match's cards, plus bogus ones.
fn candidates(g: &ByHookOrCrook, seat: usize, dice: &mut Dice) -> Vec<Action> {
    let cfg = g.config();
    let players = g.positions().len();
    let mut out = vec![
        Action::Deal { pile_sizes: None },
        Action::Location {
            place: Place::Castle,
        },
        Action::Location {
            place: Place::Auction,
        },
        Action::Choose {
            card: ActionCard::Exhibit,
        },
        Action::Choose {
            card: ActionCard::Detective,
        },
        Action::Choose {
            card: ActionCard::Check(1),
        },
        Action::Choose {
            card: ActionCard::Thief(999),
        },
        Action::Buy { pile: 0 },
        Action::Buy { pile: 1 },
        Action::Buy { pile: 2 },
    ];
    for row in cfg.checks.iter().take(players) {
        out.extend(row.iter().map(|&v| Action::Choose {
            card: ActionCard::Check(v),
        }));
    }
    for pair in cfg.thieves.iter().take(players) {
        out.extend(pair.iter().map(|&n| Action::Choose {
            card: ActionCard::Thief(n),
        }));
    }
    let deck = default_deck();
    for from in 0..=players {
        for _ in 0..2 {
            out.push(Action::Steal {
                from,
                card: deck[dice.below(deck.len())],
            });
        }
    }
    // Steals of cards really on display.
    let table = g.table_view();
    for e in table["exhibits"].as_array().into_iter().flatten() {
        let from = e["seat"].as_u64().unwrap_or(0) as usize;
        for c in e["on_display"].as_array().into_iter().flatten() {
            if let Ok(card) = serde_json::from_value::<Item>(c.clone()) {
                out.push(Action::Steal { from, card });
            }
        }
    }
    // Exhibits: random subsets of the hand, with or without a stranger card.
    let hand: Vec<Item> =
        serde_json::from_value(g.seat_view(seat)["hand"].clone()).unwrap_or_default();
    for _ in 0..4 {
        let mut cards: Vec<Item> = hand.iter().copied().filter(|_| dice.chance(60)).collect();
        if dice.chance(20) {
            cards.push(deck[dice.below(deck.len())]);
        }
        if dice.chance(10) && !cards.is_empty() {
            cards.push(cards[0]);
        }
        out.push(Action::Exhibit {
            cards: cards.clone(),
        });
        out.push(Action::FinalExhibit { cards });
    }
    out.push(Action::FinalExhibit { cards: vec![] });
    out.push(Action::Exhibit {
        cards: hand.clone(),
    });
    out.push(Action::FinalExhibit { cards: hand });
    out
}

/// An action with its card list in canonical order (an exhibit may list its cards in any order).
fn normal(a: &Action) -> Action {
    match a {
        Action::Exhibit { cards } => {
            let mut cards = cards.clone();
            cards.sort();
            Action::Exhibit { cards }
        }
        Action::FinalExhibit { cards } => {
            let mut cards = cards.clone();
            cards.sort();
            Action::FinalExhibit { cards }
        }
        other => other.clone(),
    }
}

/// Every listed action is accepted; every candidate not listed is refused (state untouched).
fn legal_iff_accepted(g: &ByHookOrCrook, dice: &mut Dice) -> Result<(), TestCaseError> {
    let players = g.positions().len();
    // Those expected to act, one other seat, the table, a seat that does not exist.
    let t = g.to_act();
    let mut actors: Vec<Actor> = t.seats.iter().copied().map(Actor::Seat).collect();
    actors.push(Actor::Seat(dice.below(players)));
    actors.push(Actor::Table);
    actors.push(Actor::Seat(players + 3));
    let tries = candidates(g, t.seats.first().copied().unwrap_or(0), dice);
    for actor in actors {
        let legal = g.legal_actions(actor);
        let listed: Vec<Action> = legal.iter().map(normal).collect();
        // Every listed action (a sample of 40 when the list is long) is accepted.
        let step = legal.len().div_ceil(40).max(1);
        for a in legal.iter().skip(dice.below(step)).step_by(step) {
            let mut c = g.clone();
            prop_assert!(
                c.apply(actor, a, None).is_ok(),
                "legal {a:?} by {actor:?} refused"
            );
        }
        let capped = legal.len() >= LEGAL_SETS_CAP;
        for a in tries.iter().cloned() {
            if listed.contains(&normal(&a)) || capped {
                continue;
            }
            // A deal needs the service seed, which `legal` cannot carry.
            if matches!(a, Action::Deal { .. }) {
                continue;
            }
            let mut c = g.clone();
            let r = c.apply(actor, &a, None);
            prop_assert!(
                r.is_err(),
                "{a:?} by {actor:?} accepted but not listed as legal"
            );
            if dice.chance(10) {
                prop_assert_eq!(
                    g.table_view(),
                    c.table_view(),
                    "a refused action changed the state"
                );
            }
        }
    }
    Ok(())
}

fn is_sealed_outcome(out: &[ByHookOrCrookOutcome]) -> bool {
    matches!(out, [ByHookOrCrookOutcome::Sealed { .. }])
}

/// Everything another seat (or the public) can observe.
fn observed(g: &ByHookOrCrook, hidden_seat: usize, log: &[(usize, Actor, Action)]) -> Value {
    let players = g.positions().len();
    let t = g.to_act();
    let mut v = json!({
        "table": g.table_view(),
        "to_act": {"seats": t.seats, "table": t.table},
        "sheet": serde_json::to_value(g.score_sheet()).unwrap(),
    });
    for s in (0..players).filter(|&s| s != hidden_seat) {
        v[format!("seat{s}")] = g.seat_view(s);
        v[format!("legal{s}")] = json!(g.legal_actions(Actor::Seat(s)));
    }
    let mut renders = vec![];
    for (i, actor, action) in log {
        for viewer in
            std::iter::once(None).chain((0..players).filter(|&s| s != hidden_seat).map(Some))
        {
            renders.push(g.render_action(*i, action, *actor, viewer));
        }
    }
    v["log"] = json!(renders);
    v
}

/// Errors other seats get for a spread of actions.
fn others_errors(g: &ByHookOrCrook, hidden_seat: usize, dice_seed: u64) -> Vec<String> {
    let players = g.positions().len();
    let mut out = vec![];
    let mut dice = Dice::new(dice_seed);
    let others: Vec<usize> = (0..players).filter(|&s| s != hidden_seat).collect();
    let tries = candidates(g, others[dice.below(others.len())], &mut dice);
    for &s in &others {
        for a in &tries {
            let mut c = g.clone();
            if let Err(e) = c.apply(Actor::Seat(s), a, None) {
                out.push(format!("{s} {a:?}: {e}"));
            }
        }
    }
    out
}

/// From a state where `seat` is about to make a sealed choice: make two different legal choices
/// in two copies, carry both forward with the same actions of the others until the reveal, and
/// check that nobody else can tell the copies apart.
fn sealed_is_invisible(
    g: &ByHookOrCrook,
    seat: usize,
    index: usize,
    dice: &mut Dice,
) -> Result<(), TestCaseError> {
    let legal = g.legal_actions(Actor::Seat(seat));
    if legal.len() < 2 {
        return Ok(());
    }
    let i = dice.below(legal.len());
    let j = (i + 1 + dice.below(legal.len() - 1)) % legal.len();
    let (a, b) = (&legal[i], &legal[j]);
    let mut ga = g.clone();
    let mut gb = g.clone();
    let oa = ga.apply(Actor::Seat(seat), a, None).expect("legal");
    let ob = gb.apply(Actor::Seat(seat), b, None).expect("legal");
    if !is_sealed_outcome(&oa) {
        return Ok(()); // this choice completed the set and revealed everything
    }
    prop_assert_eq!(&oa, &ob);
    let mut log_a = vec![(index, Actor::Seat(seat), a.clone())];
    let mut log_b = vec![(index, Actor::Seat(seat), b.clone())];
    let mut next = index + 1;
    let err_seed = dice.next_u64();
    prop_assert_eq!(
        others_errors(&ga, seat, err_seed),
        others_errors(&gb, seat, err_seed)
    );
    loop {
        prop_assert_eq!(observed(&ga, seat, &log_a), observed(&gb, seat, &log_b));
        for (_, actor, action) in &log_a {
            let r = ga.render_action(index, action, *actor, None);
            prop_assert_eq!(r, json!({"type": action.type_name(), "sealed": true}));
        }
        let Some(actor) = actor_to_move(&ga, dice) else {
            break;
        };
        let (xa, xb) = if actor == Actor::Seat(seat) {
            // Two players combined: the same seat's action card follows its location.
            let la = ga.legal_actions(actor);
            let lb = gb.legal_actions(actor);
            (
                la[dice.below(la.len())].clone(),
                lb[dice.below(lb.len())].clone(),
            )
        } else {
            let la = ga.legal_actions(actor);
            let x = pick(&la, dice);
            (x.clone(), x)
        };
        let ra = ga.apply(actor, &xa, None).expect("legal");
        let rb = gb.apply(actor, &xb, None).expect("legal");
        if !is_sealed_outcome(&ra) {
            break; // the set is complete: everything is revealed
        }
        prop_assert_eq!(&ra, &rb);
        if actor == Actor::Seat(seat) {
            log_a.push((next, actor, xa));
            log_b.push((next, actor, xb));
        }
        next += 1;
    }
    Ok(())
}

fn sealed_phase(g: &ByHookOrCrook) -> bool {
    matches!(
        g.table_view()["phase"].as_str(),
        Some("locations" | "cards" | "exhibits" | "final_exhibition")
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn random_legal_games_end_and_replay_to_the_same_state(
        (players, two) in players_and_variant(),
        seed in any::<[u8; 32]>(),
        dice in any::<u64>(),
    ) {
        let (g, log) = playout(players, two, seed, dice, |_, _, _, _, _| Ok(()))?;
        prop_assert!(g.score_sheet().finished);
        prop_assert!(!g.score_sheet().winners.is_empty());
        same_state(&g, &replay(players, two, &log), players)?;
        // The wire form through AnyGame replays the same way.
        let mut any = AnyGame::new("by-hook-or-crook", Some(serde_json::to_value(config(players, two)).unwrap()), players, Dealing::Service).unwrap();
        for (actor, action, seed) in &log {
            any.apply(*actor, &serde_json::to_value(action).unwrap(), seed.as_ref()).expect("wire replay");
        }
        prop_assert_eq!(any.table_view(), g.table_view());
        // (The engine's own sheet names no game; the registry's names it.)
    prop_assert_eq!(
        any.score_sheet(),
        clubroom::rules::ScoreSheet { game: any.id(), ..g.score_sheet() }
    );
    }

    #[test]
    fn legal_actions_are_exactly_the_accepted_ones(
        (players, two) in players_and_variant(),
        seed in any::<[u8; 32]>(),
        dice in any::<u64>(),
    ) {
        playout(players, two, seed, dice, |g, _, _, n, dice| {
            if n % 31 == 0 { legal_iff_accepted(g, dice) } else { Ok(()) }
        })?;
    }

    #[test]
    fn sealed_choices_never_show_before_the_reveal(
        (players, two) in players_and_variant(),
        seed in any::<[u8; 32]>(),
        dice in any::<u64>(),
    ) {
        playout(players, two, seed, dice, |g, actor, _, n, dice| {
            match actor {
                Actor::Seat(s) if sealed_phase(g) && dice.chance(4) => sealed_is_invisible(g, s, n, dice),
                _ => Ok(()),
            }
        })?;
    }
}

/// A table-dealt match recorded alongside a service-dealt one (the "real cards"): every action
/// the service engine accepts is accepted in table dealing too, with each turned-up card recorded
/// by `reveal_pile`; the public states agree and no card is ever in two places.
fn table_follows_service(
    players: usize,
    two: TwoPlayer,
    seed: [u8; 32],
    dice_seed: u64,
) -> Result<(), TestCaseError> {
    let mut truth = new_game(players, two, Dealing::Service);
    let mut table = new_game(players, two, Dealing::Table);
    look_everywhere(&table);
    let mut dice = Dice::new(dice_seed);
    truth
        .apply(
            Actor::Table,
            &Action::Deal { pile_sizes: None },
            Some(&Seed(seed)),
        )
        .unwrap();
    table
        .apply(Actor::Table, &Action::Deal { pile_sizes: None }, None)
        .unwrap();
    let mut steps = 0;
    loop {
        // Record every face-up card the table does not know yet.
        while table.to_act().table {
            let tops = truth.table_view()["piles"].clone();
            let known = table.table_view()["piles"].clone();
            let pile = (0..2)
                .find(|&p| known[p]["top"].is_null() && !tops[p]["top"].is_null())
                .expect("a pile to reveal");
            let card: Item = serde_json::from_value(tops[pile]["top"].clone()).unwrap();
            // legal ⇔ accepted for the table: the true card is listed, listed cards are
            // accepted, and a card already placed is neither listed nor accepted.
            let legal = table.legal_actions(Actor::Table);
            let truth_card = Action::RevealPile { pile, card };
            prop_assert!(legal.contains(&truth_card), "{:?} not listed", truth_card);
            for a in legal.iter().step_by(7) {
                prop_assert!(table.clone().apply(Actor::Table, a, None).is_ok(), "{a:?}");
            }
            for (placed, _) in table.card_places() {
                let a = Action::RevealPile { pile, card: placed };
                prop_assert!(!legal.contains(&a));
                prop_assert!(table.clone().apply(Actor::Table, &a, None).is_err());
            }
            table
                .apply(Actor::Table, &Action::RevealPile { pile, card }, None)
                .map_err(|e| TestCaseError::fail(format!("reveal {card} refused: {e}")))?;
        }
        check_cards(&table, Dealing::Table)?;
        let Some(actor) = actor_to_move(&truth, &mut dice) else {
            break;
        };
        prop_assert_eq!(truth.to_act(), table.to_act());
        steps += 1;
        prop_assert!(steps < MAX_ACTIONS);
        let action = pick(&truth.legal_actions(actor), &mut dice);
        truth.apply(actor, &action, None).unwrap();
        table.apply(actor, &action, None).map_err(|e| {
            TestCaseError::fail(format!(
                "table dealing refused {action:?} by {actor:?}: {e}"
            ))
        })?;
        let (a, b) = (truth.table_view(), table.table_view());
        for key in [
            "positions",
            "prison",
            "checks",
            "thieves",
            "hand_sizes",
            "register",
            "exhibits",
            "phase",
            "winners",
        ] {
            if !(key == "phase" && b[key] == "reveal_pile") {
                prop_assert_eq!(&a[key], &b[key], "{} differs", key);
            }
        }
        // What the table knows of each hand is true.
        for s in 0..players {
            let real: BTreeSet<Item> =
                serde_json::from_value(truth.seat_view(s)["hand"].clone()).unwrap();
            let known: BTreeSet<Item> =
                serde_json::from_value(table.seat_view(s)["hand"].clone()).unwrap();
            prop_assert!(
                known.is_subset(&real),
                "seat {} known {:?} not in {:?}",
                s,
                known,
                real
            );
        }
    }
    prop_assert!(table.is_finished());
    prop_assert_eq!(truth.score_sheet(), table.score_sheet());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn table_dealing_stays_in_step_with_the_real_cards(
        (players, two) in players_and_variant(),
        seed in any::<[u8; 32]>(),
        dice in any::<u64>(),
    ) {
        table_follows_service(players, two, seed, dice)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Uniformly random play through `legal_pick` alone (as the engine bench plays), checked
    /// against the listing at every step: the hands grow big and their lists long.
    #[test]
    fn uniform_play_through_legal_pick_agrees_with_the_lists(
        players in 2usize..=5,
        seed in any::<[u8; 32]>(),
        dice_seed in any::<u64>(),
    ) {
        let mut g = new_game(players, TwoPlayer::Combined, Dealing::Service);
        let mut dice = Dice::new(dice_seed);
        g.apply(Actor::Table, &Action::Deal { pile_sizes: None }, Some(&Seed(seed))).unwrap();
        let mut steps = 0;
        while let Some(actor) = actor_to_move(&g, &mut dice) {
            prop_assert!(steps < MAX_ACTIONS, "no end after {} actions", MAX_ACTIONS);
            let legal = g.legal_actions(actor);
            picks_agree(&g, actor, &legal)?;
            let action = g
                .legal_pick(actor, |n| dice.below(n))
                .expect("something legal");
            g.apply(actor, &action, None)
                .map_err(|e| TestCaseError::fail(format!("picked {action:?} refused: {e}")))?;
            steps += 1;
        }
        prop_assert!(g.is_finished());
    }
}

#[test]
fn every_legal_exhibit_is_a_set() {
    let mut g = new_game(4, TwoPlayer::Combined, Dealing::Service);
    g.apply(
        Actor::Table,
        &Action::Deal { pile_sizes: None },
        Some(&Seed([7; 32])),
    )
    .unwrap();
    for s in 0..4 {
        for a in g.legal_actions(Actor::Seat(s)) {
            if let Action::Exhibit { cards } = a {
                assert!(is_set(&cards));
            }
        }
    }
}

//! One conformance suite that every game runs in one line (issue 13): random legal playouts in
//! both dealing modes, and at every step
//! - whoever is to act has a legal action, and every listed action is accepted;
//! - `legal_pick` at an index is the listed action there (told the list's length);
//! - legal ⇔ accepted over the actions any actor could take now: each is accepted for an actor
//!   exactly when that actor's list holds it (so nobody may take another's turn or choice);
//! - a refusal changes nothing observable (views, scores, legal lists);
//! - replaying the accepted actions into a fresh engine equals the live state, at the end;
//! - the score sheet changes only when a line is added to it or the match ends: two states of a
//!   playout with the same `sheet_lines()` and the same finished flag have the same sheet (the service writes the sheet's JSON once per such key, `SheetMemo` in `src/matches/cache.rs`).
//!
//! The per-game property tests (`props_*.rs`) go further with each game's whole vocabulary; this
//! suite is the floor a new game must pass, by adding its run below (its player counts and
//! playout lengths) and one line to `RUNS`: a game of the catalogue without a run fails
//! `every_game_of_the_catalogue_has_a_conformance_run`, which names it.

mod trick_props;

use std::collections::HashMap;

use clubroom::rules::{
    bonus_malus::BonusMalus, by_hook_or_crook::ByHookOrCrook, clubs::Clubs, dump::Dump,
    members_only::MembersOnly, plus_minus::PlusMinus, Actor, AnyGame, Dealing, Game, ScoreSheet,
};
use trick_props::{snapshot, Playout, Rng};

/// Plays `matches` random matches of `G` with `players` players in each dealing mode, up to
/// `max_steps` actions each, checking the properties above on every step (legal ⇔ accepted on
/// every `stride`-th step: it costs a clone and an apply per candidate action and actor). `table_lists_partial`:
/// the game cannot list every legal action in table dealing (By Hook or Crook's exhibits from
/// cards the service has not seen yet: README "Not done yet"); a playout there ends when the seat
/// to act has nothing listed.
fn conformance<G: Game>(
    players: usize,
    matches: u64,
    max_steps: usize,
    stride: usize,
    table_lists_partial: bool,
) where
    G::Action: PartialEq,
{
    for dealing in [Dealing::Service, Dealing::Table] {
        for m in 0..matches {
            let mut rng = Rng::new(0xC0FF_EE00 + m * 7919 + players as u64);
            let mut p: Playout<G> = Playout::new(G::Config::default(), players, dealing);
            let actors: Vec<Actor> = (0..players)
                .map(Actor::Seat)
                .chain([Actor::Table])
                .collect();
            let mut sheets: HashMap<(u32, bool), ScoreSheet> = HashMap::new();
            for step in 0..max_steps {
                // The sheet is a function of (sheet lines, finished) along the playout, the key
                // of the service's written sheet (`SheetMemo::key`: finished is nobody to act).
                let t = p.game.to_act();
                let key = (p.game.sheet_lines(), t.seats.is_empty() && !t.table);
                let sheet = p.game.score_sheet();
                let first = sheets.entry(key).or_insert_with(|| sheet.clone());
                assert_eq!(
                    *first,
                    sheet,
                    "{} {dealing:?} step {step}: the sheet changed with no line added",
                    G::ID
                );
                // Every action someone could take now, and who may.
                let lists: Vec<Vec<G::Action>> =
                    actors.iter().map(|&a| p.game.legal_actions(a)).collect();
                let t = p.game.to_act();
                if table_lists_partial
                    && dealing == Dealing::Table
                    && t.seats.iter().any(|&s| lists[s].is_empty())
                {
                    break;
                }
                if t.table {
                    assert!(
                        !lists[players].is_empty(),
                        "{} {dealing:?} step {step}: the table is to act with nothing legal",
                        G::ID
                    );
                }
                for &s in &t.seats {
                    assert!(
                        !lists[s].is_empty(),
                        "{} {dealing:?} step {step}: seat {s} is to act with nothing legal",
                        G::ID
                    );
                }
                // `legal_pick` is the list's action at the index picked, told the list's length.
                for (i, &actor) in actors.iter().enumerate() {
                    let n = lists[i].len();
                    for k in (0..n).step_by((n / 16).max(1)).chain(n.checked_sub(1)) {
                        let mut told = None;
                        let got = p.game.legal_pick(actor, |len| {
                            told = Some(len);
                            k
                        });
                        assert_eq!(told, Some(n), "{} {dealing:?} step {step}", G::ID);
                        assert_eq!(
                            got.as_ref(),
                            Some(&lists[i][k]),
                            "{} {dealing:?} step {step}: {actor:?}'s pick {k} of {n}",
                            G::ID
                        );
                    }
                    assert!(p.game.legal_pick(actor, |len| len).is_none());
                }
                // Legal ⇔ accepted.
                if step % stride == 0 {
                    let before = snapshot(&p.game, players);
                    let candidates: Vec<&G::Action> = lists.iter().flatten().collect();
                    for (i, &actor) in actors.iter().enumerate() {
                        for &a in &candidates {
                            let mut g = p.game.clone();
                            let seed = g.needs_seed(a).then(|| rng.seed());
                            let accepted = g.apply(actor, a, seed.as_ref()).is_ok();
                            assert_eq!(
                                accepted,
                                lists[i].contains(a),
                                "{} {dealing:?} step {step}: {a:?} by {actor:?}",
                                G::ID
                            );
                            if !accepted {
                                assert_eq!(
                                    snapshot(&g, players),
                                    before,
                                    "{} refused {a:?} by {actor:?} and changed the state",
                                    G::ID
                                );
                            }
                        }
                    }
                }
                if step % stride == 0 {
                    tally_form_agrees(&p.game, dealing, step);
                }
                if !p.step(&mut rng) {
                    break;
                }
            }
            p.assert_replay_equals_live();
        }
    }
}

/// `legal.tally` ⇔ accepted: whenever the game lists a tally form, a `points` tally built within
/// it (each entry from `min` up to `max`, on the step, summing to `sum`) is not refused for its
/// shape, range, step or sum, nor as out of turn; whenever none is listed, a tally is refused.
fn tally_form_agrees<G: Game>(game: &G, dealing: Dealing, step: usize) {
    use clubroom::rules::RuleError;
    let form = game.tally_form();
    let entries = form.as_ref().map_or(game_entries(game), |f| f.entries);
    let values: Vec<i64> = match &form {
        Some(f) if f.field == "points" => {
            let mut v = vec![f.min; f.entries];
            if let (Some(sum), Some(max)) = (f.sum, f.max) {
                let mut rest = sum - f.min * f.entries as i64;
                for x in v.iter_mut() {
                    let add = rest.min(max - f.min);
                    *x += add;
                    rest -= add;
                }
                assert_eq!(
                    rest,
                    0,
                    "{} step {step}: the form's sum is out of reach",
                    G::ID
                );
            }
            v
        }
        Some(_) => return,
        None => vec![0; entries],
    };
    let Ok(action) =
        serde_json::from_value::<G::Action>(serde_json::json!({"type": "tally", "points": values}))
    else {
        assert!(
            form.is_none(),
            "{} lists a points form it cannot parse",
            G::ID
        );
        return;
    };
    let mut g = game.clone();
    let r = g.apply(Actor::Table, &action, None);
    match (&form, r) {
        (Some(f), Err(e)) => assert!(
            !matches!(
                e.code(),
                "tally_shape"
                    | "tally_range"
                    | "tally_step"
                    | "tally_sum"
                    | "tally_not_allowed"
                    | "tally_mid_deal"
                    | "not_your_turn"
            ),
            "{} {dealing:?} step {step}: {values:?} within {f:?} refused: {e}",
            G::ID
        ),
        (None, Ok(_)) => panic!(
            "{} {dealing:?} step {step}: no tally form listed, but {values:?} was taken",
            G::ID
        ),
        _ => {}
    }
}

/// A tally's entry count where no form says it: one per seat (a refused tally's shape is moot).
fn game_entries<G: Game>(game: &G) -> usize {
    game.score_sheet().totals.len()
}

#[test]
fn dump_conforms() {
    conformance::<Dump>(4, 2, 400, 7, false);
    conformance::<Dump>(2, 2, 400, 7, false);
}

#[test]
fn clubs_conforms() {
    conformance::<Clubs>(4, 1, 300, 11, false);
    conformance::<Clubs>(3, 1, 300, 11, false);
}

#[test]
fn bonus_malus_conforms() {
    conformance::<BonusMalus>(4, 1, 400, 9, false);
    conformance::<BonusMalus>(3, 1, 400, 9, false);
}

#[test]
fn plus_minus_conforms() {
    conformance::<PlusMinus>(3, 2, 400, 7, false);
}

#[test]
fn members_only_conforms() {
    conformance::<MembersOnly>(4, 1, 120, 23, false);
}

#[test]
fn by_hook_or_crook_conforms() {
    conformance::<ByHookOrCrook>(3, 1, 200, 13, true);
}

/// Each game's run above, by id.
const RUNS: &[(&str, fn())] = &[
    (Dump::ID, dump_conforms),
    (Clubs::ID, clubs_conforms),
    (BonusMalus::ID, bonus_malus_conforms),
    (PlusMinus::ID, plus_minus_conforms),
    (MembersOnly::ID, members_only_conforms),
    (ByHookOrCrook::ID, by_hook_or_crook_conforms),
];

/// The runs cover the catalogue: a game added to the registry without a conformance run fails
/// here (a run needs the game's type, so it cannot be made from the catalogue alone).
#[test]
fn every_game_of_the_catalogue_has_a_conformance_run() {
    for game in AnyGame::catalogue() {
        assert!(
            RUNS.iter().any(|(id, _)| *id == game.id),
            "{} has no conformance run in tests/conformance.rs",
            game.id
        );
    }
}

//! The property-test harness shared by the trick games' property tests (`props_clubs.rs`,
//! `props_bonus_malus.rs`): random legal playouts driven by a small deterministic RNG (seeded by
//! proptest), the legal ⇔ accepted check over a game's whole action universe, and replaying the
//! accepted actions into a fresh engine.

#![allow(dead_code)]

use clubroom::rules::{Actor, Dealing, Game, RuleError, Seed};
use serde_json::{json, Value};

/// The playouts' choices, reproducible from one proptest-chosen number.
pub use clubroom::rng::SplitMix64 as Rng;

/// Everything observable about a game, for comparing two states.
pub fn snapshot<G: Game>(g: &G, players: usize) -> Value {
    let t = g.to_act();
    let legal = |a: Actor| serde_json::to_value(g.legal_actions(a)).unwrap();
    json!({
        "table": g.table_view(),
        "scores": serde_json::to_value(g.score_sheet()).unwrap(),
        "to_act": {"seats": t.seats, "table": t.table},
        "round": g.round(),
        "dealer": g.dealer(),
        "completed": g.rounds_completed(),
        "seats": (0..players).map(|s| g.seat_view(s)).collect::<Vec<_>>(),
        "legal": (0..players).map(|s| legal(Actor::Seat(s))).chain([legal(Actor::Table)]).collect::<Vec<_>>(),
    })
}

/// A match being played out, with the log of accepted actions.
pub struct Playout<G: Game> {
    pub game: G,
    pub log: Vec<(Actor, G::Action, Option<Seed>)>,
    pub config: G::Config,
    pub players: usize,
    pub dealing: Dealing,
}

impl<G: Game> Playout<G> {
    pub fn new(config: G::Config, players: usize, dealing: Dealing) -> Playout<G> {
        let game = G::new(config.clone(), players, dealing)
            .unwrap_or_else(|e| panic!("creating the match: {e}"));
        Playout {
            game,
            log: vec![],
            config,
            players,
            dealing,
        }
    }

    /// Who may act now (a seat of several, or the table), chosen at random.
    pub fn actor(&self, rng: &mut Rng) -> Option<Actor> {
        let t = self.game.to_act();
        if t.table {
            Some(Actor::Table)
        } else if t.seats.is_empty() {
            None
        } else {
            Some(Actor::Seat(t.seats[rng.below(t.seats.len())]))
        }
    }

    /// Applies an action that must be accepted, logging it.
    pub fn apply(&mut self, actor: Actor, action: G::Action, rng: &mut Rng) {
        let seed = self.game.needs_seed(&action).then(|| rng.seed());
        if let Err(e) = self.game.apply(actor, &action, seed.as_ref()) {
            panic!("{action:?} by {actor:?} refused: {} ({e})", e.code());
        }
        self.log.push((actor, action, seed));
    }

    /// One random legal action by whoever may act; false when the match is over.
    pub fn step(&mut self, rng: &mut Rng) -> bool {
        let Some(actor) = self.actor(rng) else {
            return false;
        };
        let legal = self.game.legal_actions(actor);
        assert!(
            !legal.is_empty(),
            "{actor:?} is to act but has no legal action: {}",
            self.game.table_view()
        );
        let action = legal[rng.below(legal.len())].clone();
        self.apply(actor, action, rng);
        true
    }

    /// Replaying the log into a fresh engine gives the same state.
    pub fn assert_replay_equals_live(&self) {
        let mut g = G::new(self.config.clone(), self.players, self.dealing).expect("created once");
        for (actor, action, seed) in &self.log {
            g.apply(*actor, action, seed.as_ref())
                .unwrap_or_else(|e| panic!("replay refused {action:?}: {e}"));
        }
        assert_eq!(
            snapshot(&g, self.players),
            snapshot(&self.game, self.players)
        );
    }

    /// Legal ⇔ accepted checked at the start, after `stop` random steps, and `tail` steps later
    /// (a random point of the first deal and one further on), then replay equals live.
    pub fn assert_legal_iff_accepted_along(
        &mut self,
        universe: &[G::Action],
        rng: &mut Rng,
        stop: usize,
        tail: usize,
    ) where
        G::Action: PartialEq,
    {
        self.assert_legal_iff_accepted(universe, rng, 9);
        for _ in 0..stop {
            self.step(rng);
        }
        self.assert_legal_iff_accepted(universe, rng, 9);
        for _ in 0..tail {
            self.step(rng);
        }
        self.assert_legal_iff_accepted(universe, rng, 9);
        self.assert_replay_equals_live();
    }

    /// Every action of `universe` (for every seat, one seat beyond the table, and the table) is
    /// accepted exactly when `legal_actions` lists it; a refusal leaves the state untouched
    /// (checked on a sample, every `sample`-th refusal).
    pub fn assert_legal_iff_accepted(&self, universe: &[G::Action], rng: &mut Rng, sample: usize)
    where
        G::Action: PartialEq,
    {
        let before = snapshot(&self.game, self.players);
        let mut refusals = 0usize;
        let actors = (0..=self.players)
            .map(Actor::Seat)
            .chain([Actor::Table])
            .collect::<Vec<_>>();
        for actor in actors {
            let legal = self.game.legal_actions(actor);
            for a in &legal {
                assert!(
                    universe.contains(a),
                    "{a:?} is listed but not in the universe"
                );
            }
            for a in universe {
                let seed = self.game.needs_seed(a).then(|| rng.seed());
                let mut g = self.game.clone();
                let result = g.apply(actor, a, seed.as_ref());
                let listed = legal.contains(a);
                assert_eq!(
                    result.is_ok(),
                    listed,
                    "{a:?} by {actor:?}: accepted={} listed={listed} ({:?})",
                    result.is_ok(),
                    result.as_ref().err().map(|e| e.to_string()),
                );
                if result.is_err() {
                    refusals += 1;
                    if refusals.is_multiple_of(sample) {
                        assert_eq!(
                            snapshot(&g, self.players),
                            before,
                            "refused {a:?} changed the state"
                        );
                    }
                }
            }
        }
    }
}

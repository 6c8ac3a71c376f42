//! Odd or Even: a throwaway eighth game, compiled only with the `test-game` cargo feature. It is
//! not a game anyone plays: it exists to show that a new game is its module and its line in the
//! registry (`with_test_game!` in `rules/mod.rs`, the feature's one extra registry line), and that
//! the catalogue, the spec's unions, match creation, tournaments and the page's game list then
//! take it with no other edit (`tests/eighth_game.rs`, run with `--features test-game`).
//!
//! Rules: each round the table deals (in service dealing the shuffle seed picks who calls
//! first), then every seat in turn calls 0 or 1; each seat whose call equals the parity of the
//! calls' sum scores 1. After `rounds` rounds the best total wins.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{
    entered::{self, Entered, EntryError},
    sheet::RoundScore,
    to_json, Actor, Dealing, Game, Produced, RuleError, ScoreSheet, Seed, ToAct,
};

/// Odd or Even's options.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct OddOrEvenConfig {
    /// Rounds in a match.
    #[schema(minimum = 1, maximum = 10, example = 2)]
    pub rounds: u32,
}

impl Default for OddOrEvenConfig {
    fn default() -> Self {
        OddOrEvenConfig { rounds: 2 }
    }
}

/// One action of Odd or Even.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = OddOrEvenAction)]
pub enum Action {
    /// Table action that starts a round.
    #[schema(title = "OddOrEvenDeal")]
    Deal {},
    /// A seat calls 0 or 1.
    #[schema(title = "OddOrEvenCall")]
    Call {
        /// 0 or 1.
        #[schema(minimum = 0, maximum = 1)]
        n: u8,
    },
}

/// Odd or Even's public state.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OddOrEvenTable {
    /// The round under way or last played (0 before the first deal).
    pub round: u32,
    /// The seat to call; null between rounds.
    #[schema(required = true)]
    pub to_call: Option<usize>,
    /// The calls of the round under way, in seat order from its first caller.
    pub calls: Vec<u8>,
    /// Running totals per seat.
    pub totals: Vec<i64>,
}

/// A seat's state (it holds nothing private).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OddOrEvenSeat {
    /// The seat.
    pub seat: usize,
}

/// What an Odd or Even action produced.
#[derive(Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OddOrEvenOutcome {
    /// A round started.
    #[schema(title = "OddOrEvenDealt")]
    Dealt {
        /// The round.
        round: u32,
        /// Who calls first.
        first: usize,
    },
    /// A round was scored.
    #[schema(title = "OddOrEvenScored")]
    Scored {
        /// Points per seat.
        points: Vec<i64>,
    },
    /// The match is over.
    #[schema(title = "OddOrEvenMatchFinished")]
    MatchFinished {
        /// The winning seats.
        winners: Vec<usize>,
    },
}

/// The raw figures of a scored round.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OddOrEvenRoundDetail {
    /// Each seat's call.
    pub calls: Vec<u8>,
}

/// Why Odd or Even refused an action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OddOrEvenError {
    /// A player count the game cannot seat, at creation (the count asked for).
    #[error("Odd or Even is played by 2 or 3 players, not {0}")]
    PlayerCount(usize),
    /// A `rounds` option outside 1 to 10, at creation (the rounds given).
    #[error("rounds must be from 1 to 10, not {0}")]
    BadRounds(u32),
    /// Any action once the match is over.
    #[error("{}", super::MATCH_FINISHED_DETAIL)]
    MatchFinished,
    /// A deal while a round is under way.
    #[error("a round is under way: every seat calls first")]
    RoundUnderWay,
    /// A call before the table has dealt the round.
    #[error("no round is under way: the table deals first")]
    DealExpected,
    /// A call by a seat whose turn it is not.
    #[error("it is seat {expected_1}'s turn, not seat {got_1}'s", expected_1 = expected + 1, got_1 = got + 1)]
    NotYourTurn {
        /// The seat to call.
        expected: usize,
        /// The seat that called.
        got: usize,
    },
    /// A call other than 0 or 1 (the call).
    #[error("a call is 0 or 1, not {0}")]
    BadCall(u8),
    /// A service deal without the service's shuffle seed.
    #[error("the service deals in service dealing and needs a seed")]
    SeedMissing,
    /// A seat sent an action only the table records (the action's type).
    #[error("{0} is an action of the table (seat: null, host token)")]
    TableAction(&'static str),
    /// The table sent a call: only a seat calls.
    #[error("a call is a seat's action")]
    SeatAction,
}

impl RuleError for OddOrEvenError {
    fn code(&self) -> &'static str {
        use OddOrEvenError::*;
        match self {
            PlayerCount(_) => "invalid_player_count",
            BadRounds(_) => "invalid_config",
            MatchFinished => super::MATCH_FINISHED,
            RoundUnderWay => "round_in_progress",
            DealExpected => "deal_expected",
            NotYourTurn { .. } => "not_your_turn",
            BadCall(_) => "invalid_call",
            SeedMissing => "seed_missing",
            TableAction(_) => "table_action",
            SeatAction => "seat_action",
        }
    }
}

/// A match of Odd or Even.
#[derive(Clone, Debug)]
pub struct OddOrEven {
    config: OddOrEvenConfig,
    players: usize,
    dealing: Dealing,
    /// The round under way's first caller and calls so far; None between rounds.
    current: Option<(usize, Vec<u8>)>,
    /// Each scored round's calls, in seat order.
    results: Vec<Vec<u8>>,
}

impl OddOrEven {
    fn finished(&self) -> bool {
        self.current.is_none() && self.results.len() as u32 >= self.config.rounds
    }

    fn to_call(&self) -> Option<usize> {
        self.current
            .as_ref()
            .map(|(first, calls)| (first + calls.len()) % self.players)
    }

    /// Points per seat of one round's calls (in seat order).
    fn points(calls: &[u8]) -> Vec<i64> {
        let parity = (calls.iter().map(|&c| u32::from(c)).sum::<u32>() % 2) as u8;
        calls.iter().map(|&c| i64::from(c == parity)).collect()
    }

    fn totals(&self) -> Vec<i64> {
        let mut totals = vec![0; self.players];
        for r in &self.results {
            for (t, p) in totals.iter_mut().zip(Self::points(r)) {
                *t += p;
            }
        }
        totals
    }
}

impl Game for OddOrEven {
    const ID: &'static str = "odd-or-even";
    const TITLE: &'static str = "Odd or Even (test game)";
    const MIN_PLAYERS: usize = 2;
    const MAX_PLAYERS: usize = 3;
    const DUPLICATE: bool = true;
    type Config = OddOrEvenConfig;
    type Action = Action;
    type Table = OddOrEvenTable;
    type Seat = OddOrEvenSeat;
    type Outcome = OddOrEvenOutcome;
    type RoundDetail = OddOrEvenRoundDetail;
    type Error = OddOrEvenError;

    /// A round scores 0 or 1 a seat; a match of `rounds` rounds totals 0 to `rounds` a seat.
    fn check_entered(e: &Entered<'_>) -> Result<(), EntryError> {
        let rounds = e.int("rounds", 2);
        if e.deals.iter().flatten().any(|&x| !(0..=1).contains(&x)) {
            return Err(entered::impossible(
                "an Odd or Even round scores 0 or 1 a seat",
            ));
        }
        if e.totals.iter().any(|&t| !(0..=rounds).contains(&t)) {
            return Err(entered::impossible(format!(
                "{rounds} rounds total 0 to {rounds} a seat"
            )));
        }
        Ok(())
    }

    fn new(config: OddOrEvenConfig, players: usize, dealing: Dealing) -> Result<Self, Self::Error> {
        if !(Self::MIN_PLAYERS..=Self::MAX_PLAYERS).contains(&players) {
            return Err(OddOrEvenError::PlayerCount(players));
        }
        if !(1..=10).contains(&config.rounds) {
            return Err(OddOrEvenError::BadRounds(config.rounds));
        }
        Ok(OddOrEven {
            config,
            players,
            dealing,
            current: None,
            results: vec![],
        })
    }

    fn config(&self) -> &OddOrEvenConfig {
        &self.config
    }

    fn to_act(&self) -> ToAct {
        match self.to_call() {
            Some(s) => ToAct::seat(s),
            None if self.finished() => ToAct::nobody(),
            None => ToAct::table(),
        }
    }

    fn legal_actions(&self, actor: Actor) -> Vec<Action> {
        match (actor, self.to_call()) {
            (Actor::Table, None) if !self.finished() => vec![Action::Deal {}],
            (Actor::Seat(s), Some(t)) if s == t => {
                vec![Action::Call { n: 0 }, Action::Call { n: 1 }]
            }
            _ => vec![],
        }
    }

    fn dealing(&self) -> Dealing {
        self.dealing
    }

    fn is_deal(action: &Action) -> bool {
        matches!(action, Action::Deal {})
    }

    fn apply(
        &mut self,
        actor: Actor,
        action: &Action,
        seed: Option<&Seed>,
    ) -> Result<Produced<OddOrEvenOutcome>, OddOrEvenError> {
        if self.finished() {
            return Err(OddOrEvenError::MatchFinished);
        }
        match action {
            Action::Deal {} => {
                if actor != Actor::Table {
                    return Err(OddOrEvenError::TableAction("deal"));
                }
                if self.current.is_some() {
                    return Err(OddOrEvenError::RoundUnderWay);
                }
                let first = match (self.dealing, seed) {
                    (Dealing::Service, Some(seed)) => usize::from(seed.0[0]) % self.players,
                    (Dealing::Service, None) => return Err(OddOrEvenError::SeedMissing),
                    (Dealing::Table, _) => self.results.len() % self.players,
                };
                self.current = Some((first, vec![]));
                Ok(smallvec::smallvec![OddOrEvenOutcome::Dealt {
                    round: self.results.len() as u32 + 1,
                    first,
                }])
            }
            Action::Call { n } => {
                let Actor::Seat(s) = actor else {
                    return Err(OddOrEvenError::SeatAction);
                };
                let Some(expected) = self.to_call() else {
                    return Err(OddOrEvenError::DealExpected);
                };
                if s != expected {
                    return Err(OddOrEvenError::NotYourTurn { expected, got: s });
                }
                if *n > 1 {
                    return Err(OddOrEvenError::BadCall(*n));
                }
                let (first, calls) = self.current.as_mut().expect("a round is under way");
                calls.push(*n);
                if calls.len() < self.players {
                    return Ok(Produced::new());
                }
                // In seat order: the first caller's call is at `first`.
                let mut in_seat_order = vec![0; self.players];
                for (k, c) in calls.iter().enumerate() {
                    in_seat_order[(*first + k) % self.players] = *c;
                }
                self.current = None;
                let points = Self::points(&in_seat_order);
                self.results.push(in_seat_order);
                let mut out: Produced<_> = smallvec::smallvec![OddOrEvenOutcome::Scored { points }];
                if self.finished() {
                    out.push(OddOrEvenOutcome::MatchFinished {
                        winners: self.score_sheet().winners,
                    });
                }
                Ok(out)
            }
        }
    }

    fn table(&self) -> OddOrEvenTable {
        OddOrEvenTable {
            round: self.round(),
            to_call: self.to_call(),
            calls: self
                .current
                .as_ref()
                .map(|(_, c)| c.clone())
                .unwrap_or_default(),
            totals: self.totals(),
        }
    }

    fn seat(&self, seat: usize) -> Option<OddOrEvenSeat> {
        (seat < self.players).then_some(OddOrEvenSeat { seat })
    }

    fn score_sheet(&self) -> ScoreSheet {
        let rounds = self
            .results
            .iter()
            .enumerate()
            .map(|(k, calls)| RoundScore {
                round: k as u32 + 1,
                label: format!("Round {}", k + 1),
                multiplier: 1,
                points: Self::points(calls),
                detail: to_json(&OddOrEvenRoundDetail {
                    calls: calls.clone(),
                }),
            })
            .collect();
        ScoreSheet::from_totals(false, rounds, self.totals(), self.finished())
    }

    fn round(&self) -> u32 {
        self.results.len() as u32 + u32::from(self.current.is_some())
    }

    fn dealer(&self) -> Option<usize> {
        None
    }

    fn rounds_completed(&self) -> u32 {
        self.results.len() as u32
    }
}

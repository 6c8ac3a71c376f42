//! The club's ratings, pure: one rated result moves the ratings of the players at its table
//! only ([`rate`]), so that a new result costs O(players at that table); [`replay`] runs a
//! sequence of results from given ratings (a correction replays from the corrected result).
//!
//! The system is fixed per game ([`ClubSystem::of_game`]): **Elo** when every table of the game
//! has exactly two units (seats or sides), **Weng-Lin** otherwise, with the parameters of the
//! tournaments' ratings (`skillratings` defaults, [`crate::tournaments::model::RatingParameters`]):
//! Elo K 32, start 1000, scale 400; Weng-Lin Bradley-Terry full pairing, beta 25/6,
//! kappa 0.000001, start 25 ± 25/3.

use std::{cmp::Ordering, collections::HashMap};

use serde::Serialize;
use skillratings::{
    elo::{elo, EloConfig, EloRating},
    weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating},
    MultiTeamOutcome, Outcomes,
};
use utoipa::ToSchema;

use crate::{
    rules::{AnyGame, Dealing},
    tournaments::model::{RatingParameters, RatingSystem},
};

/// The rating system of a game's club ratings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClubSystem {
    /// Every table has two units (seats or sides): Elo. Partners share their side's result: the
    /// side rates as the mean of its players' ratings and each partner moves by the side's change.
    Elo,
    /// Tables of more than two units: Weng-Lin, each unit a team, ranked by total.
    WengLin,
}

impl ClubSystem {
    /// The system of `game`: Elo when every table size the game allows scores two units.
    pub fn of_game(id: &str) -> ClubSystem {
        let two_units = AnyGame::player_counts(id).into_iter().flatten().all(|n| {
            AnyGame::new(id, None, n, Dealing::Table)
                .map(|g| g.score_sheet().totals.len() == 2)
                .unwrap_or(true)
        });
        if two_units {
            ClubSystem::Elo
        } else {
            ClubSystem::WengLin
        }
    }

    /// The parameters it rates with (the tournaments' own).
    pub fn parameters(self) -> RatingParameters {
        RatingParameters::of(match self {
            ClubSystem::Elo => RatingSystem::Elo,
            ClubSystem::WengLin => RatingSystem::WengLin,
        })
    }

    /// A player's rating before their first rated result.
    pub fn start(self) -> Rating {
        match self {
            ClubSystem::Elo => Rating {
                rating: EloRating::new().rating,
                uncertainty: None,
            },
            ClubSystem::WengLin => {
                let s = WengLinRating::new();
                Rating {
                    rating: s.rating,
                    uncertainty: Some(s.uncertainty),
                }
            }
        }
    }
}

/// A rating (Elo: no uncertainty).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// Elo rating, or Weng-Lin's mu.
    pub rating: f64,
    /// Weng-Lin's sigma.
    pub uncertainty: Option<f64>,
}

/// The ratings after one result: `units[u]` are the ratings of unit u's players before it,
/// `totals[u]` its total (higher is better; equal totals share a place). Units without
/// players, or fewer than two units with players, change nothing (the same ratings back).
pub fn rate(system: ClubSystem, units: &[Vec<Rating>], totals: &[i64]) -> Vec<Vec<Rating>> {
    let playing: Vec<usize> = (0..units.len()).filter(|&u| !units[u].is_empty()).collect();
    if playing.len() < 2 {
        return units.to_vec();
    }
    match system {
        ClubSystem::Elo => {
            if playing.len() != 2 {
                return units.to_vec();
            }
            let (a, b) = (playing[0], playing[1]);
            let mean =
                |u: usize| units[u].iter().map(|r| r.rating).sum::<f64>() / units[u].len() as f64;
            let (ra, rb) = (EloRating { rating: mean(a) }, EloRating { rating: mean(b) });
            let outcome = match totals[a].cmp(&totals[b]) {
                Ordering::Greater => Outcomes::WIN,
                Ordering::Equal => Outcomes::DRAW,
                Ordering::Less => Outcomes::LOSS,
            };
            let (na, nb) = elo(&ra, &rb, &outcome, &EloConfig::new());
            let mut out = units.to_vec();
            for (u, delta) in [(a, na.rating - ra.rating), (b, nb.rating - rb.rating)] {
                for r in &mut out[u] {
                    r.rating += delta;
                }
            }
            out
        }
        ClubSystem::WengLin => {
            let teams: Vec<Vec<WengLinRating>> = playing
                .iter()
                .map(|&u| {
                    units[u]
                        .iter()
                        .map(|r| WengLinRating {
                            rating: r.rating,
                            uncertainty: r.uncertainty.unwrap_or(WengLinRating::new().uncertainty),
                        })
                        .collect()
                })
                .collect();
            let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = playing
                .iter()
                .zip(&teams)
                .map(|(&u, t)| {
                    let better = playing.iter().filter(|&&v| totals[v] > totals[u]).count();
                    (t.as_slice(), MultiTeamOutcome::new(better + 1))
                })
                .collect();
            let after = weng_lin_multi_team(&input, &WengLinConfig::new());
            let mut out = units.to_vec();
            for (&u, t) in playing.iter().zip(after) {
                out[u] = t
                    .into_iter()
                    .map(|r| Rating {
                        rating: r.rating,
                        uncertainty: Some(r.uncertainty),
                    })
                    .collect();
            }
            out
        }
    }
}

/// One result as the ratings see it: each unit's players and total.
#[derive(Clone, Debug, PartialEq)]
pub struct Rated<P> {
    /// Per unit: its registered players.
    pub units: Vec<Vec<P>>,
    /// Per unit: its total.
    pub totals: Vec<i64>,
}

/// Per result, per unit, per player: (player, rating before, rating after).
pub type Moves<P> = Vec<Vec<Vec<(P, Rating, Rating)>>>;

/// Runs `results` in order from `ratings` (a player missing from it starts at the system's
/// start), updating `ratings`; each result's moves. Each result touches only its players.
pub fn replay<P: Clone + Eq + std::hash::Hash>(
    system: ClubSystem,
    ratings: &mut HashMap<P, Rating>,
    results: &[Rated<P>],
) -> Moves<P> {
    let mut out = Vec::with_capacity(results.len());
    for r in results {
        // A result rates only when it has two units with registered players (Elo: exactly
        // two): against nobody known, nobody's rating moves and nobody gets one.
        let playing = r.units.iter().filter(|u| !u.is_empty()).count();
        if playing < 2 || (system == ClubSystem::Elo && playing != 2) {
            out.push(vec![]);
            continue;
        }
        let before: Vec<Vec<Rating>> = r
            .units
            .iter()
            .map(|u| {
                u.iter()
                    .map(|p| *ratings.get(p).unwrap_or(&system.start()))
                    .collect()
            })
            .collect();
        let after = rate(system, &before, &r.totals);
        let mut moves = Vec::with_capacity(r.units.len());
        for ((players, b), a) in r.units.iter().zip(&before).zip(&after) {
            let mut unit = Vec::with_capacity(players.len());
            for ((p, &b), &a) in players.iter().zip(b).zip(a) {
                ratings.insert(p.clone(), a);
                unit.push((p.clone(), b, a));
            }
            moves.push(unit);
        }
        out.push(moves);
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The ratings just before result `n`, from the moves recorded for results 0..n: each
    /// player's last `after` (what the store reads back before replaying from a correction).
    fn as_of(system: ClubSystem, moves: &Moves<u8>, n: usize) -> HashMap<u8, Rating> {
        let _ = system;
        let mut m = HashMap::new();
        for result in &moves[..n] {
            for unit in result {
                for (p, _, a) in unit {
                    m.insert(*p, *a);
                }
            }
        }
        m
    }

    #[test]
    fn elo_one_win_from_level_is_1016_and_984() {
        let s = ClubSystem::Elo;
        let after = rate(s, &[vec![s.start()], vec![s.start()]], &[15, 0]);
        assert_eq!(after[0][0].rating, 1016.0);
        assert_eq!(after[1][0].rating, 984.0);
    }

    #[test]
    fn partners_move_by_their_sides_change() {
        let s = ClubSystem::Elo;
        let r = |x| Rating {
            rating: x,
            uncertainty: None,
        };
        // Side 0 rates 1000 (mean of 1100 and 900) against 1000: a win moves each by 16.
        let after = rate(
            s,
            &[vec![r(1100.0), r(900.0)], vec![r(1000.0), r(1000.0)]],
            &[2, 1],
        );
        assert_eq!(after[0], vec![r(1116.0), r(916.0)]);
        assert_eq!(after[1], vec![r(984.0), r(984.0)]);
    }

    fn results() -> impl Strategy<Value = Vec<Rated<u8>>> {
        // Tables of 2 to 4 units of one or two of 6 players (distinct at a table), totals 0..5.
        let table = (2usize..=4, 1usize..=2)
            .prop_flat_map(|(units, size)| {
                (
                    Just(units),
                    Just(size),
                    Just((0u8..8).collect::<Vec<u8>>()).prop_shuffle(),
                    proptest::collection::vec(0i64..5, units),
                )
            })
            .prop_map(|(units, size, players, totals)| Rated {
                units: (0..units)
                    .map(|u| players[u * size..(u + 1) * size].to_vec())
                    .collect(),
                totals,
            });
        proptest::collection::vec(table, 1..25)
    }

    proptest! {
        /// Results taken in one at a time (each from the ratings of its players only), with
        /// corrections replayed from the corrected result (from the ratings as recorded just
        /// before it), end at exactly the ratings of a full replay of the final results.
        #[test]
        fn incremental_with_corrections_equals_full_replay(
            results in results(),
            corrections in proptest::collection::vec((any::<prop::sample::Index>(), proptest::collection::vec(0i64..5, 4)), 0..5),
            wl in any::<bool>(),
        ) {
            let system = if wl { ClubSystem::WengLin } else { ClubSystem::Elo };
            let results: Vec<Rated<u8>> = if wl {
                results
            } else {
                results.into_iter().map(|mut r| { r.units.truncate(2); r.totals.truncate(2); r }).collect()
            };
            let mut current = HashMap::new();
            let mut log: Vec<Rated<u8>> = vec![];
            let mut moves: Moves<u8> = vec![];
            for r in &results {
                let m = replay(system, &mut current, std::slice::from_ref(r));
                log.push(r.clone());
                moves.extend(m);
            }
            for (at, totals) in corrections {
                let n = at.index(log.len());
                let units = log[n].units.len();
                log[n].totals = totals[..units].to_vec();
                // Replay from n: the ratings as of n for everyone, then the rest.
                let mut from = as_of(system, &moves, n);
                let tail = replay(system, &mut from, &log[n..]);
                moves.truncate(n);
                moves.extend(tail);
                current = from;
            }
            let mut full = HashMap::new();
            let full_moves = replay(system, &mut full, &log);
            prop_assert_eq!(&current, &full);
            prop_assert_eq!(&moves, &full_moves);
        }
    }
}

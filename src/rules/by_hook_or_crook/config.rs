//! The match options of By Hook or Crook (docs/rules.md#by-hook-or-crook names each in `code font`).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::error::BhocError;

/// Spaces the best set of the final exhibition advances (the second best: 4).
pub const FINAL_BEST: u32 = 8;

/// Most seats the game is played by; the per-seat option lists hold this many rows by default.
pub const MAX_SEATS: usize = 5;

/// Which collection cards exist.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Collection {
    /// The default deck of docs/rules.md#by-hook-or-crook-collection: A 8, B 7, C 8, D 7, E 8, F 7 cards, the k-th card of the i-th
    /// letter dated 1500 + 60k + 7i (A1500, A1560, …, B1507, …).
    #[default]
    Default,
    /// A table's own printed deck: any letter A–F with any year, each card unique within the match
    /// (table dealing only: the service cannot shuffle cards it does not know).
    Open,
}

/// How a detective's owner's standing is counted from the front.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DetectiveRanking {
    /// Players level share a place and the next place follows on: 1st, 2nd, 3rd, 3rd, 4th (the
    /// text's example).
    #[default]
    Dense,
    /// Players level share a place and the next place skips: 1st, 2nd, 3rd, 3rd, 5th.
    Competition,
}

/// How two players choose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TwoPlayer {
    /// Both choose location and action card at once, sealed, revealed together.
    #[default]
    Combined,
    /// The players choose their locations openly in turn (seat 0 first in odd turns, seat 1 first
    /// in even turns); the action cards are then chosen sealed as usual.
    Alternate,
}

/// One castle along the track.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Castle {
    /// How many track spaces belong to the castle.
    #[schema(minimum = 1, maximum = 100, example = 3)]
    pub spaces: u32,
    /// Spaces the best exhibit advances while the leading pawn stands here.
    #[schema(minimum = 0, maximum = 100, example = 4)]
    pub upper: u32,
    /// Spaces the second best exhibit advances while the leading pawn stands here.
    #[schema(minimum = 0, maximum = 100, example = 2)]
    pub lower: u32,
}

/// The board: the club room (space 0), then the castles along the track (from space 1), then the
/// pink spaces around the dinner table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Board {
    /// The castles in track order.
    pub castles: Vec<Castle>,
    /// The first pink space: a pawn entering it (or any space beyond) ends the game after the
    /// current turn. At most one past the last castle space.
    #[schema(minimum = 1, example = 37)]
    pub pink_from: u32,
}

impl Default for Board {
    /// docs/rules.md#by-hook-or-crook-board: twelve castles of three spaces over spaces 1–36, rewards 4|2 for castles 1–3,
    /// 3|2 for 4–6, 3|1 for 7–9, 2|1 for 10–12; every space from 37 on is pink.
    fn default() -> Board {
        let castles = (0..12)
            .map(|i| {
                let (upper, lower) = match i / 3 {
                    0 => (4, 2),
                    1 => (3, 2),
                    2 => (3, 1),
                    _ => (2, 1),
                };
                Castle {
                    spaces: 3,
                    upper,
                    lower,
                }
            })
            .collect();
        Board {
            castles,
            pink_from: 37,
        }
    }
}

impl Board {
    /// The castle (index) where a pawn on `space` stands: the first castle from the club room, the
    /// last beyond the track.
    pub fn castle_at(&self, space: u32) -> usize {
        let mut end = 0u32;
        for (i, c) in self.castles.iter().enumerate() {
            end = end.saturating_add(c.spaces);
            if space <= end {
                return i;
            }
        }
        self.castles.len().saturating_sub(1)
    }

    /// The furthest space a pawn can stand on at the game's end with `players` seats: every pawn
    /// is short of the pink spaces before the last turn, one turn advances a seat by one
    /// exhibit's reward (the biggest upper number) or one detective's standing (at most
    /// `players`), and the final exhibition adds 8 at most (docs/rules.md#by-hook-or-crook).
    pub fn last_space(&self, players: usize) -> u32 {
        let upper = self.castles.iter().map(|c| c.upper).max().unwrap_or(0);
        let turn = upper.max(players as u32);
        self.pink_from
            .saturating_sub(1)
            .saturating_add(turn)
            .saturating_add(FINAL_BEST)
    }

    /// The number of castle spaces on the track.
    pub fn track_len(&self) -> u32 {
        self.castles
            .iter()
            .fold(0u32, |a, c| a.saturating_add(c.spaces))
    }
}

/// By Hook or Crook's match options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = ByHookOrCrookConfig)]
pub struct BhocConfig {
    /// Check values, one row per seat (row p is seat p's; rows beyond the player count are unused).
    /// All checks in play must differ, so bids never tie. Default: seat p has 8000+100p,
    /// 11000+100p, 14000−100p, 17000−100p.
    #[schema(example = json!([[8000, 11000, 14000, 17000], [8100, 11100, 13900, 16900]]))]
    pub checks: Vec<Vec<u32>>,
    /// Thief numbers, one pair per seat (row p is seat p's). All must differ; the higher number
    /// steals first. Default: seat p has thieves p+1 and p+6.
    #[schema(example = json!([[1, 6], [2, 7], [3, 8]]))]
    pub thieves: Vec<[u32; 2]>,
    /// Which collection cards exist: `default` (the dated deck of docs/rules.md#by-hook-or-crook-collection) or `open`.
    pub collection: Collection,
    /// How a successful detective's standing is counted: `dense` (default) or `competition`.
    pub detective_ranking: DetectiveRanking,
    /// With two players: `combined` (default) or `alternate`.
    pub two_player: TwoPlayer,
    /// The board's castles and pink spaces.
    pub board: Board,
    /// Score-only play (default false): the table records the whole game's result with one
    /// `tally` (each pawn's space after the final exhibition; no `deal`, no seat actions). Needs
    /// `dealing: "table"` (real cards).
    pub scores_only: bool,
}

impl Default for BhocConfig {
    fn default() -> BhocConfig {
        let checks = (0..MAX_SEATS as u32)
            .map(|p| {
                vec![
                    8000 + 100 * p,
                    11000 + 100 * p,
                    14000 - 100 * p,
                    17000 - 100 * p,
                ]
            })
            .collect();
        let thieves = (0..MAX_SEATS as u32).map(|p| [p + 1, p + 6]).collect();
        BhocConfig {
            checks,
            thieves,
            collection: Collection::Default,
            detective_ranking: DetectiveRanking::Dense,
            two_player: TwoPlayer::Combined,
            board: Board::default(),
            scores_only: false,
        }
    }
}

/// Largest check value accepted.
pub const MAX_CHECK: u32 = 1_000_000_000;
/// Largest thief number accepted.
pub const MAX_THIEF: u32 = 1_000_000;
/// Most checks one seat may start with.
pub const MAX_CHECKS_PER_SEAT: usize = 20;
/// Most castles on a board.
pub const MAX_CASTLES: usize = 100;

impl BhocConfig {
    /// Checks the options for `players` seats.
    pub fn validate(&self, players: usize) -> Result<(), BhocError> {
        let bad = |m: String| Err(BhocError::InvalidConfig(m));
        if self.checks.len() < players {
            return bad(format!(
                "checks needs a row for each of the {players} seats, got {}",
                self.checks.len()
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for (p, row) in self.checks.iter().take(players).enumerate() {
            if row.is_empty() || row.len() > MAX_CHECKS_PER_SEAT {
                return bad(format!(
                    "checks[{p}] (seat {}) needs 1 to {MAX_CHECKS_PER_SEAT} checks (four in the box), got {}",
                    p + 1,
                    row.len()
                ));
            }
            for &v in row {
                if v == 0 || v > MAX_CHECK {
                    return bad(format!(
                        "checks[{p}] (seat {}): check {v} is outside 1..={MAX_CHECK}",
                        p + 1
                    ));
                }
                if !seen.insert(v) {
                    return bad(format!(
                        "checks: the value {v} appears twice; all checks must differ so that bids never tie"
                    ));
                }
            }
        }
        if self.thieves.len() < players {
            return bad(format!(
                "thieves needs a pair for each of the {players} seats, got {}",
                self.thieves.len()
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for (p, pair) in self.thieves.iter().take(players).enumerate() {
            for &n in pair {
                if n == 0 || n > MAX_THIEF {
                    return bad(format!(
                        "thieves[{p}] (seat {}): thief {n} is outside 1..={MAX_THIEF}",
                        p + 1
                    ));
                }
                if !seen.insert(n) {
                    return bad(format!(
                        "thieves: the number {n} appears twice; all thieves must differ"
                    ));
                }
            }
        }
        let b = &self.board;
        if b.castles.is_empty() || b.castles.len() > MAX_CASTLES {
            return bad(format!(
                "board.castles needs 1 to {MAX_CASTLES} castles, got {}",
                b.castles.len()
            ));
        }
        for (i, c) in b.castles.iter().enumerate() {
            if c.spaces == 0 || c.spaces > 100 || c.upper > 100 || c.lower > 100 {
                return bad(format!(
                    "board.castles[{i}]: spaces must be 1..=100 and upper, lower 0..=100"
                ));
            }
        }
        let last = b.track_len();
        if b.pink_from == 0 || b.pink_from > last + 1 {
            return bad(format!(
                "board.pink_from must be a space from 1 to {} (one past the last castle space), not {}",
                last + 1,
                b.pink_from
            ));
        }
        Ok(())
    }
}

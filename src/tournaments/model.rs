//! The plain facts a tournament's pure parts (pairing, standings, ratings, quick-log checks,
//! exports) work on. No storage, no HTTP: the service (`super`) loads them and renders the answers.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One entrant, by its index in the tournament's entrant list (registration order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Entrant {
    /// The player's stable id (`POST /v1/players`).
    pub player_id: String,
    /// The player's name.
    pub name: String,
}

/// One paired round: tables of entrant indices by seat, and who sits out.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// Each table's entrants (indices into the entrant list), seat 0 first.
    pub tables: Vec<Vec<usize>>,
    /// Entrants with no table this round (a bye).
    pub byes: Vec<usize>,
}

/// Where a table's result came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResultSource {
    /// The table's match, recorded card by card, is finished: its score sheet.
    Match,
    /// Final totals (and optionally per-deal points) entered by the organiser (quick log).
    Totals,
}

/// A table's final result, as standings, ratings and exports see it.
#[derive(Clone, Debug, PartialEq)]
pub struct TableResult {
    /// The tournament round, from 1.
    pub round: u32,
    /// The table within the round, from 1.
    pub table: u32,
    /// The entrants by seat (indices into the entrant list).
    pub seats: Vec<usize>,
    /// When scores are kept per side: the seats of each side (ScoreSheet.sides, e.g.
    /// `[[0, 2], [1, 3]]`). None: one unit per seat.
    pub sides: Option<Vec<Vec<usize>>>,
    /// Final totals per unit (seat, or side when `sides` is set). Higher is better in every game.
    pub totals: Vec<i64>,
    /// Per deal (heat, game): the points each unit scored in it, multiplier applied. Empty when
    /// only totals are known.
    pub deals: Vec<Vec<i64>>,
    /// The winning units (several on a shared win).
    pub winners: Vec<usize>,
    /// Where it came from.
    pub source: ResultSource,
    /// The table's match, if it has one.
    pub match_id: Option<String>,
    /// When the result stood (RFC 3339 UTC): the match's last event, or the entry time.
    pub at: String,
    /// Duplicate play with real cards: the plays of cards a seat was not dealt on the round's
    /// board (each fouls its board at this table). Empty otherwise.
    pub fouls: Vec<FouledPlay>,
}

/// A card a seat played that the round's board did not deal it (duplicate play with real cards).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct FouledPlay {
    /// The board (deal number, from 1).
    #[schema(example = 1)]
    pub board: u32,
    /// The seat that played it.
    #[schema(example = 2)]
    pub seat: usize,
    /// The card, as the game's actions write it (`KS`, a P.M. value such as `-7`, a Members
    /// Only card such as `hat:no`).
    #[schema(example = "KS")]
    pub card: String,
    /// Members Only: the card was recorded face up into the layout at the deal (`seat` is the
    /// dealer's). Absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub face_up: bool,
}

/// A fouled board in the standings: at which table, and the first card that fouled it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct FouledBoard {
    /// The tournament round.
    pub round: u32,
    /// The table within the round.
    pub table: u32,
    /// The board (deal number, from 1).
    pub board: u32,
    /// The seat that played (Members Only: revealed) a card it did not hold by the board (the
    /// first such on the board).
    pub seat: usize,
    /// That card, as the game's actions write it (`KS`, `-7`, `hat:no`).
    #[schema(example = "KS")]
    pub card: String,
    /// Members Only: that card was recorded face up into the layout at the deal (`seat` is the
    /// dealer's). Absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub face_up: bool,
}

/// What a table whose board is fouled scores on it (duplicate play with real cards). The board
/// is matchpointed among the tables that played it as dealt (WBF Laws of Duplicate Bridge 2017,
/// Law 87: the scores on the board in its correct form are rated as a group); a table that
/// played it fouled scores, on that board:
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FouledBoardRule {
    /// Half the top of the clean tables (Law 12C2's artificial "average", 50%): with C clean
    /// tables, C − 1 matchpoints out of 2 × (C − 1). The default.
    #[default]
    Average,
    /// Nothing: 0 out of 2 × (C − 1) (clubs that hold the table answerable for its wallet).
    Zero,
}

impl TableResult {
    /// Whether the table fouled board `board` (from 1).
    pub fn fouled(&self, board: u32) -> bool {
        self.fouls.iter().any(|f| f.board == board)
    }

    /// The unit (seat, or side) of `seat`.
    pub fn unit_of_seat(&self, seat: usize) -> usize {
        match &self.sides {
            Some(sides) => sides.iter().position(|s| s.contains(&seat)).unwrap_or(seat),
            None => seat,
        }
    }
}

/// Which rating system a tournament uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RatingSystem {
    /// Elo (skillratings, k = 32, start 1000): two players a table, no partnerships.
    Elo,
    /// Weng-Lin (skillratings, OpenSkill's Bayesian approximation, start 25 ± 25/3): several
    /// players or sides a table.
    WengLin,
}

/// The model of Weng-Lin ratings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum WengLinModel {
    /// Weng and Lin's Bradley-Terry model with full pairing (2011, algorithm 1): each unit is
    /// compared with every other unit of the table; a unit's rating and uncertainty are the sums
    /// of its players' (partners), and each player's share of the update is its share of the
    /// unit's variance. Gamma (the uncertainty update's damping) is the unit's uncertainty over
    /// the pair's `c`.
    BradleyTerryFull,
}

/// The parameters of the ratings: the `skillratings` crate's defaults, as the standings use them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, ToSchema)]
#[serde(tag = "system", rename_all = "snake_case")]
pub enum RatingParameters {
    /// Elo: after a table, each player's rating moves by `k × (score − expected)`, where score
    /// is 1 for the higher total, 0.5 for equal totals, 0 for the lower, and expected is
    /// `1 / (1 + 10^((opponent − own) / scale))`.
    Elo {
        /// The K-factor: the most a rating moves after one table.
        #[schema(example = 32.0)]
        k: f64,
        /// Every player's rating before their first table.
        #[schema(example = 1000.0)]
        start: f64,
        /// The rating difference at which the better player is expected to score 10 to 1.
        #[schema(example = 400.0)]
        scale: f64,
    },
    /// Weng-Lin (OpenSkill): a rating (mu) and an uncertainty (sigma) per player; the units of a
    /// table (players, or sides of partners) ranked by total, equal totals sharing a rank.
    WengLin {
        /// The model.
        model: WengLinModel,
        /// The skill-class width: the rating difference that gives about a 2 to 1 chance.
        #[schema(example = 4.1666666667)]
        beta: f64,
        /// The floor of the factor that shrinks an uncertainty's square after a table (kappa),
        /// so that it stays positive.
        #[schema(example = 0.000001)]
        uncertainty_tolerance: f64,
        /// Every player's rating (mu) before their first table.
        #[schema(example = 25.0)]
        start_rating: f64,
        /// Every player's uncertainty (sigma) before their first table.
        #[schema(example = 8.3333333333)]
        start_uncertainty: f64,
    },
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct StandingRow {
    /// The place, from 1; entrants equal on every tie-break share a place.
    pub rank: u32,
    /// The player's id.
    pub player_id: String,
    /// The player's name.
    pub name: String,
    /// Tables with a result that the player sat at.
    pub played: u32,
    /// Rounds the player sat out (a bye scores half the matchpoints of a table, nothing else).
    pub byes: u32,
    /// Tables the player won (a shared win counts).
    pub wins: u32,
    /// The sum of the player's final totals (a side's total counts for both partners).
    pub total: i64,
    /// Matchpoints: 2 for each result beaten, 1 for each tie (per board in duplicate play).
    pub matchpoints: i64,
    /// The most matchpoints the player could have had.
    pub max_matchpoints: i64,
    /// `matchpoints / max_matchpoints` in percent, two decimals (0 when nothing is played).
    pub percentage: f64,
    /// The sum of the matchpoints of every opponent the player sat with (each time; at a
    /// partnership table the other side's players, not the partner), the Buchholz-style
    /// tie-break.
    pub opponents_matchpoints: i64,
    /// The rating after the last result (Elo points, or Weng-Lin mu).
    pub rating: f64,
    /// Weng-Lin's sigma; null for Elo.
    pub rating_uncertainty: Option<f64>,
    /// Withdrawn by the organiser: never paired again; the results stand and count.
    pub withdrawn: bool,
}

/// The standings of a tournament.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct Standings {
    /// The order of the tie-breaks, first decides first.
    #[schema(example = json!(["matchpoints", "wins", "total", "opponents_matchpoints", "entry_order"]))]
    pub tie_breaks: Vec<String>,
    /// The rating system.
    pub rating_system: RatingSystem,
    /// The rating system's parameters, exactly as the ratings were computed with them.
    pub rating_parameters: RatingParameters,
    /// Whether matchpoints compare results on the same deals at every table (duplicate).
    pub duplicate: bool,
    /// Duplicate play with real cards: what a table that fouled a board scores on it.
    pub fouled_board: FouledBoardRule,
    /// Duplicate play with real cards: every fouled board of the complete rounds, by round,
    /// table and board.
    pub fouled_boards: Vec<FouledBoard>,
    /// Best first.
    pub rows: Vec<StandingRow>,
}

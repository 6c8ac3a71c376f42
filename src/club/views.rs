//! The wire types of the club: a player's statistics, leaderboards, seasons.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::rating::ClubSystem;
use crate::tournaments::model::RatingParameters;

/// A player's statistics across every finished match and tournament table that names them.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PlayerStats {
    /// The player (a merged record answers for the player it was merged into).
    pub player_id: String,
    /// The registered name.
    pub name: String,
    /// Records merged into this player (their history is this player's).
    pub merged: Vec<String>,
    /// Per game the player has a finished result in, by game id.
    pub games: Vec<GameStats>,
    /// The latest results, newest first (at most 10), every game.
    pub recent: Vec<ResultLine>,
}

/// A player's statistics in one game.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct GameStats {
    /// The game id.
    #[schema(example = "dump")]
    pub game: String,
    /// How the game's club rating is computed.
    pub rating_system: ClubSystem,
    /// Finished results (rated or not).
    pub played: i64,
    /// Results the player's seat or side won outright (a total higher than every other's).
    pub wins: i64,
    /// The mean of the player's seat or side's final totals.
    pub average_score: f64,
    /// The best final total.
    pub best_score: i64,
    /// The club rating now (null: no rated result yet). Weng-Lin: mu.
    pub rating: Option<f64>,
    /// Weng-Lin: sigma now; Elo: null.
    pub rating_uncertainty: Option<f64>,
    /// The rating after each rated result, oldest first.
    pub rating_history: Vec<RatingPoint>,
    /// Against each registered opponent (a player of another seat or side), most met first.
    pub head_to_head: Vec<HeadToHead>,
}

/// The rating after one result.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RatingPoint {
    /// When the result finished (RFC 3339 UTC).
    pub at: String,
    /// The rating after it.
    pub rating: f64,
    /// Weng-Lin's sigma after it.
    pub uncertainty: Option<f64>,
    /// The match it comes from (null: a result entered in a tournament's quick log).
    pub match_id: Option<String>,
    /// The tournament table, if any: `{"id", "round", "table"}`.
    #[schema(value_type = Option<Object>)]
    pub tournament: Option<Value>,
}

/// A player's record against one opponent.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct HeadToHead {
    /// The opponent.
    pub player_id: String,
    /// Their name.
    pub name: String,
    /// Results both played on different seats or sides.
    pub played: i64,
    /// Results where the player's total beat the opponent's.
    pub wins: i64,
    /// Results where the opponent's total beat the player's.
    pub losses: i64,
    /// Equal totals.
    pub draws: i64,
}

/// One finished result as a player sees it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ResultLine {
    /// The game id.
    pub game: String,
    /// When it finished (RFC 3339 UTC).
    pub finished_at: String,
    /// The match (`GET /v1/matches/{id}`), null for a tournament table's entered result.
    pub match_id: Option<String>,
    /// The tournament table, if any: `{"id", "round", "table"}`.
    #[schema(value_type = Option<Object>)]
    pub tournament: Option<Value>,
    /// The player's seat or side's total.
    pub total: i64,
    /// 1 + the number of seats or sides with a higher total.
    pub place: i64,
    /// How many seats or sides played.
    pub units: usize,
    /// Whether the player's seat or side won outright.
    pub won: bool,
    /// Whether the result moved ratings.
    pub rated: bool,
    /// The rating after it (null: unrated).
    pub rating_after: Option<f64>,
}

/// A page of a game's club leaderboard.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Leaderboard {
    /// The game id.
    pub game: String,
    /// How its ratings are computed, with exactly the parameters used.
    pub rating_system: ClubSystem,
    /// The parameters.
    pub rating_parameters: RatingParameters,
    /// Players with a rating.
    pub total: i64,
    /// Highest rating first (equal ratings by player id).
    pub rows: Vec<LeaderboardRow>,
    /// The `offset` of the next page (null: this is the last).
    pub next_offset: Option<i64>,
}

/// A player on a leaderboard.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct LeaderboardRow {
    /// 1 for the top.
    pub rank: i64,
    /// The player.
    pub player_id: String,
    /// Their name.
    pub name: String,
    /// The rating (Weng-Lin: mu).
    pub rating: f64,
    /// Weng-Lin: sigma; Elo: null.
    pub rating_uncertainty: Option<f64>,
    /// Rated results.
    pub rated_results: i64,
}

/// A new season (operator only).
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSeason {
    /// 1 to 64 characters.
    #[schema(example = "Spring 2026")]
    pub name: String,
    /// The first day (UTC), YYYY-MM-DD.
    #[schema(example = "2026-03-01")]
    pub starts: String,
    /// The last day (UTC), YYYY-MM-DD, inclusive; not before `starts`.
    #[schema(example = "2026-05-31")]
    pub ends: String,
}

/// A season: a named range of days.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Season {
    /// The season id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The first day (UTC).
    pub starts: String,
    /// The last day (UTC), inclusive.
    pub ends: String,
    /// RFC 3339.
    pub created_at: String,
}

/// A season's leaderboard in one game: the players with a rated result finished in the season,
/// by their club rating after their last result in it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeasonBoard {
    /// The season.
    pub season: Season,
    /// The game id.
    pub game: String,
    /// How its ratings are computed.
    pub rating_system: ClubSystem,
    /// Best first (equal ratings by player id).
    pub rows: Vec<SeasonRow>,
}

/// A player in a season.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeasonRow {
    /// 1 for the top.
    pub rank: i64,
    /// The player.
    pub player_id: String,
    /// Their name.
    pub name: String,
    /// Rated results finished in the season.
    pub played: i64,
    /// Of which won outright.
    pub wins: i64,
    /// The club rating after their last result in the season.
    pub rating: f64,
    /// Weng-Lin's sigma then; Elo: null.
    pub rating_uncertainty: Option<f64>,
    /// That rating minus the rating before their first result in the season.
    pub change: f64,
}

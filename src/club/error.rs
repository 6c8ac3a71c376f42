//! `ClubError`: the club service's refusals (`src/error.rs` maps them to statuses and codes).

use crate::store::StoreError;

/// What the club service refuses, or a storage failure.
#[derive(Debug, thiserror::Error)]
pub enum ClubError {
    /// No such player.
    #[error("no player has id {0}")]
    PlayerNotFound(String),
    /// No such game.
    #[error("no game '{0}' is implemented here; GET /v1/games lists the games")]
    UnknownGame(String),
    /// No such season.
    #[error("no season has id {0}")]
    SeasonNotFound(String),
    /// An operator's request without a token.
    #[error("this needs the operator's token (CLUBROOM_OPERATOR_TOKEN)")]
    OperatorTokenRequired,
    /// An operator's request with another token.
    #[error("only the operator (CLUBROOM_OPERATOR_TOKEN) may do this")]
    OperatorOnly,
    /// A player merged into itself.
    #[error("a player cannot be merged into itself")]
    MergeSelf,
    /// A player record already merged into another.
    #[error("player {0} was merged into another record; merge that one")]
    AlreadyMerged(String),
    /// The two records sat at the same match or entered the same tournament: two people.
    #[error(
        "players {0} and {1} played in the same match or tournament: they are not the same person"
    )]
    PlayersMet(String, String),
    /// A season's name is blank or longer than 64 characters.
    #[error("a season's name is 1 to 64 characters, not blank")]
    InvalidSeasonName,
    /// A season's dates.
    #[error("{0}")]
    InvalidSeasonDates(String),
    /// A query parameter out of range.
    #[error("{0}")]
    InvalidQuery(String),
    /// Storage.
    #[error(transparent)]
    Store(#[from] StoreError),
}

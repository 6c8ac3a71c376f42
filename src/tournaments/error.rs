//! Why the tournament service refused a request or failed: one variant per kind of refusal,
//! carrying what its message needs. The message (`Display`) is the problem's `detail`, word for
//! word; the HTTP status and the problem's `code` are decided in one place, `crate::error`.

use super::quicklog::QuickLogError;
use crate::{matches::MatchError, rules::SetupError, store::StoreError};

/// A refusal or failure of the tournament service.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    /// No tournament has this id.
    #[error("no tournament has id {0}")]
    NotFound(String),
    /// A list filter `.0` that is not an RFC 3339 time.
    #[error("{0} must be an RFC 3339 time, such as 2026-11-27T18:00:00Z")]
    InvalidTime(&'static str),
    /// No player has this id.
    #[error("no player has id {0}")]
    PlayerNotFound(String),
    /// Round `round` is not paired (`paired` rounds are).
    #[error("{}", if *.paired == 0 {
        format!("round {round} is not paired: no round is yet (POST .../rounds pairs the next)")
    } else {
        format!("round {round} is not paired: rounds 1 to {paired} are")
    })]
    RoundNotFound {
        /// The round asked for.
        round: u32,
        /// How many rounds are paired.
        paired: usize,
    },
    /// Round `round` has no such table (it has `tables`).
    #[error("round {round} has tables 1 to {tables}")]
    TableNotFound {
        /// The round asked for.
        round: u32,
        /// How many tables it has.
        tables: usize,
    },
    /// A blank or too long tournament name.
    #[error("the tournament's name must have 1 to 100 characters (not blank)")]
    InvalidName,
    /// Too few or too many entrants (at most `max`).
    #[error("a tournament has 2 to {max} players")]
    EntrantCount {
        /// The most entrants a tournament may have.
        max: usize,
    },
    /// The entrants cannot fill one table.
    #[error("{n} players cannot fill one {game} table of {table_size}")]
    EntrantsFillNoTable {
        /// How many entrants.
        n: usize,
        /// The game's id.
        game: String,
        /// The table size asked for.
        table_size: usize,
    },
    /// The options are accepted at no table size the game allows.
    #[error("no table size from 2 to 8 can play these options")]
    NoTableSize,
    /// A table size the game does not allow with these options.
    #[error("{game} tables seat {allowed:?} players here, not {asked}")]
    TableSize {
        /// The game's id.
        game: String,
        /// The table sizes the game allows with these options.
        allowed: Vec<usize>,
        /// The table size asked for.
        asked: usize,
    },
    /// Duplicate play of a game without shuffled deals (`games` are those with them).
    #[error("duplicate play repeats shuffled deals; {game} is not one of {games:?}")]
    DuplicateNotDealt {
        /// The game's id.
        game: String,
        /// The ids of the games that can be played in duplicate.
        games: Vec<&'static str>,
    },
    /// Duplicate play recorded by matches the service does not deal, in a game whose real-card
    /// boards the service does not check.
    #[error("duplicate play deals the same cards at every table: with results from matches the service must deal (dealing: service), or, in {games:?} only, the tables deal real cards from the printed boards (dealing: table)")]
    DuplicateNeedsServiceDealing {
        /// The games whose real-card boards are checked.
        games: Vec<&'static str>,
    },
    /// `fouled_board` outside duplicate play at tables that deal real cards.
    #[error("fouled_board applies only to duplicate play recorded by matches at tables that deal real cards (duplicate: true, dealing: table, record: matches)")]
    FouledBoardNotApplicable,
    /// Printed boards asked of a tournament whose tables do not deal real cards in duplicate.
    #[error("printed boards are for duplicate play at tables that deal real cards (duplicate: true, dealing: table, record: matches); this tournament has none")]
    NoPrintedBoards,
    /// Duplicate play with fewer than two tables.
    #[error("duplicate play compares tables: {n} players fill {tables} table(s) of {table_size}")]
    DuplicateNeedsTwoTables {
        /// How many entrants.
        n: usize,
        /// How many tables they fill.
        tables: usize,
        /// The table size.
        table_size: usize,
    },
    /// A Swiss tournament without a valid number of rounds (1 to `max`).
    #[error("a Swiss tournament needs `rounds`, 1 to {max}")]
    SwissRounds {
        /// The most rounds a Swiss tournament may have.
        max: u32,
    },
    /// A round robin given a number of rounds.
    #[error("a round robin's schedule fixes its rounds: omit `rounds`")]
    RoundRobinRounds,
    /// A round robin whose schedule is longer than `max` rounds.
    #[error("a round robin of {n} players at tables of {table_size} takes {rounds} rounds; at most {max} — use Swiss")]
    RoundRobinTooLong {
        /// How many entrants.
        n: usize,
        /// The table size.
        table_size: usize,
        /// How many rounds the schedule would take.
        rounds: usize,
        /// The most rounds a round robin may have.
        max: u32,
    },
    /// The organiser's token is needed, and none was sent.
    #[error("this needs the organiser's token: Authorization: Bearer <organiser_token>")]
    OrganiserTokenRequired,
    /// Another token than the organiser's.
    #[error("only the tournament's organiser token may do this")]
    OrganiserOnly,
    /// The last round still has tables without a result (`open`, from 1).
    #[error("round {round} is still being played (tables {} have no result); pair round {} once every table has one", .open.iter().map(usize::to_string).collect::<Vec<_>>().join(", "), .round + 1)]
    RoundInProgress {
        /// The last paired round.
        round: u32,
        /// Its tables without a result, from 1.
        open: Vec<usize>,
    },
    /// Round `next` was paired by a concurrent request.
    #[error("round {next} was just paired by another request: GET /v1/tournaments/{id}/rounds/{next} shows it")]
    RoundJustPaired {
        /// The tournament's id.
        id: String,
        /// The round the other request paired.
        next: u32,
    },
    /// Every round is paired and complete.
    #[error("all {rounds} rounds are paired and complete")]
    Finished {
        /// The tournament's number of rounds.
        rounds: u32,
    },
    /// The table's result is its finished match's score sheet.
    #[error("{}", if *.duplicate {
        format!("table {table}'s match is finished and its score sheet is the result (a finished duplicate table is never reopened)")
    } else {
        format!("table {table}'s match is finished and its score sheet is the result; correct it at the table (undo), not here")
    })]
    ResultFromMatch {
        /// The table, from 1.
        table: u32,
        /// Whether the tournament is played in duplicate.
        duplicate: bool,
    },
    /// The table's match is still being played, and the organiser did not ask to abandon it.
    #[error("table {table}'s match {match_id} is still being played, and its result will come from it when it ends; to settle the table by hand instead, send `\"abandon_match\": true` with the result: the match is then closed for good (nothing more can be recorded there)")]
    MatchInProgress {
        /// The table, from 1.
        table: u32,
        /// The id of the table's match.
        match_id: String,
    },
    /// A concurrent entry took the version of the table's result.
    #[error("table {table}'s result was just entered by another request; read the tournament and enter yours again if it still needs correcting")]
    ResultChanged {
        /// The table, from 1.
        table: u32,
    },
    /// The entered result breaks what the game fixes (the quick log's checks).
    #[error("{}", .0.message)]
    Result(QuickLogError),
    /// A late entry or a withdrawal in a round robin, whose schedule is fixed at creation.
    #[error("late entries and withdrawals are for Swiss tournaments: a round robin's schedule is fixed when it is created")]
    NotSwiss,
    /// A late entrant who is an entrant already (same player, or same name).
    #[error("{0} is an entrant already")]
    AlreadyEntered(String),
    /// No entrant is this player.
    #[error("no entrant of this tournament has player id {0}")]
    EntrantNotFound(String),
    /// Withdrawing an entrant who is withdrawn.
    #[error("{0} is withdrawn already (POST .../reinstate pairs them again)")]
    AlreadyWithdrawn(String),
    /// Reinstating an entrant who is not withdrawn.
    #[error("{0} is not withdrawn")]
    NotWithdrawn(String),
    /// Withdrawing an entrant whose table of the round in play has no result yet.
    #[error("{name} sits at table {table} of round {round}, which has no result yet: enter the table's result (or abandon its match with it) first, then withdraw them")]
    TableUnfinished {
        /// The entrant's name.
        name: String,
        /// The round in play.
        round: u32,
        /// Their table.
        table: u32,
    },
    /// The entrants left could not fill the next round's tables.
    #[error("{active} entrants would be left to pair, too few for {what}")]
    TooFewToPair {
        /// How many would be left.
        active: usize,
        /// What they cannot fill.
        what: String,
    },
    /// Archiving or deleting without the operator's consent.
    #[error("archiving or deleting a tournament needs its organiser's token (Authorization: Bearer) and the operator's consent: the operator's token in X-Operator-Token")]
    OperatorConsentRequired,
    /// A change to an archived tournament.
    #[error("the tournament is archived: it is read-only until the organiser takes it out of the archive (POST .../unarchive, with the operator's consent)")]
    Archived,
    /// Unarchiving a tournament that is not archived.
    #[error("the tournament is not archived")]
    NotArchived,
    /// A concurrent change took this change's place in the log.
    #[error("the tournament was just changed by another request; read it and try again")]
    ChangeConflict,
    /// The game or its options refused.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// A refusal or failure of a table's match (or of a seat's player).
    #[error(transparent)]
    Match(#[from] MatchError),
    /// The database failed (see `StoreError`).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The database became unreachable while a tournament was being created.
    #[error("the database became unreachable while the tournament was being created: its organiser token was never given to anyone; create it again once the database is back")]
    CreationOutcomeUnknown,
    /// A fault of the service itself: logged, and told to nobody.
    #[error("{0}")]
    Internal(String),
}

impl TournamentError {
    /// A fault of the service, with its cause (for the log only).
    pub fn internal(cause: impl std::fmt::Display) -> TournamentError {
        TournamentError::Internal(cause.to_string())
    }
}

//! Why the match service refused a request or failed: one variant per kind of refusal, carrying
//! what its message needs. The message (`Display`) is the problem's `detail`, word for word; the
//! HTTP status and the problem's `code` are decided in one place, `crate::error`.

use serde_json::Value;

use crate::{
    rules::{ProblemFields, Rejection, SetupError},
    store::StoreError,
};

/// A refusal or failure of the match service.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// No match has this id (or the id does not have the form of one).
    #[error("no match has the id '{0}'")]
    NotFound(String),
    /// A token this match never issued.
    #[error("this token is not valid for this match")]
    InvalidToken,
    /// A write without a token.
    #[error("recording needs a token: Authorization: Bearer <token>")]
    TokenRequired,
    /// A seat's legal list read without a token where it shows the seat's private state.
    #[error("a seat's legal actions show its private state here: send that seat's token")]
    SeatTokenRequired,
    /// The list of matches asked for without a token.
    #[error("listing matches needs a token: a match's host or seat token lists that match, the operator's token (CLUBROOM_OPERATOR_TOKEN) every match")]
    ListTokenRequired,
    /// The list of matches asked for with a token that is neither a match's nor the operator's.
    #[error("this token belongs to no match and is not the operator's")]
    ListTokenUnknown,
    /// An action other than the table's `tally` in a score-only match.
    #[error("this match records scores only: enter the round's tally")]
    ScoresOnly,
    /// A seat's token sent a table action (`seat: null`).
    #[error("table actions (seat: null) need the host token")]
    TableActionNeedsHost,
    /// A seat's token asked for an undo (or an abandonment).
    #[error("only the host token may undo")]
    HostOnly,
    /// A seat's token acted for another seat.
    #[error("this token acts for seat {token_1} only, not seat {seat_1}", seat_1 = seat + 1, token_1 = token + 1)]
    NotYourSeat {
        /// The seat the token belongs to.
        token: usize,
        /// The seat the action was sent for.
        seat: usize,
    },
    /// A seat's legal list asked for with another seat's token, where it shows the seat's
    /// private state.
    #[error("only seat {seat_1}'s token may see its legal actions", seat_1 = .0 + 1)]
    HandIsPrivate(usize),
    /// A duplicate table read without its tokens while its tournament round is played.
    #[error("this match is a duplicate table of tournament {tournament}, round {round}: the round's other tables are playing the same boards, so until every table has finished only this table's own tokens may read it")]
    RoundInPlay {
        /// The tournament's id.
        tournament: String,
        /// The tournament round the table belongs to.
        round: u32,
    },
    /// A seat this match does not have (it has `.0` seats).
    #[error("`seat` names no seat: this match has {n} seats (`seat` 0 to {max})", n = .0, max = .0 - 1)]
    NoSuchSeat(usize),
    /// An action that fits no game's vocabulary.
    #[error("{0}")]
    MalformedAction(String),
    /// An action of another game's vocabulary (the spec's action schema is the union of every
    /// game's, so it is well-formed, and refused like a rule).
    #[error("this action belongs to another game; GET /v1/games and the spec's GameAction list {game}'s actions ({message})")]
    NotInGame {
        /// The match's game id.
        game: &'static str,
        /// Why the game's own vocabulary refused the action.
        message: String,
    },
    /// The game's rules refuse the action, as the asker may be told.
    #[error(transparent)]
    Rule(RuleRefusal),
    /// An undo with no standing action left.
    #[error("no standing action is left to retract")]
    NothingToUndo,
    /// An undo that would reopen a finished duplicate table (its result may have completed its
    /// tournament round, which publishes every board).
    #[error("this duplicate table's match is finished: its result counts towards its tournament round, whose secret (it derives every board of the round) is published once every table has finished, so undo may not retract seq {seq} and reopen the match")]
    DuplicateFinished {
        /// The seq of the action the undo would retract.
        seq: i64,
    },
    /// An undo that would reopen a round whose shuffle seed is published.
    #[error("round {closed} is closed: its shuffle seed is published and re-derives every card dealt for it, so undo may not retract seq {seq} (round {round}), which would reopen round {closed} with every hand known to all")]
    RoundClosed {
        /// The round whose seed is published.
        closed: u32,
        /// The seq of the action the undo would retract.
        seq: i64,
        /// The round that action belongs to.
        round: u32,
    },
    /// An undo of the choice that revealed a set of sealed choices to everyone.
    #[error("undo may not retract seq {seq}: it completed a set of sealed choices and revealed the others (seq {}) to everyone; retracting it would let its seat choose again knowing them", .revealed.iter().map(i64::to_string).collect::<Vec<_>>().join(", "))]
    ChoicesRevealed {
        /// The seq of the choice the undo would retract.
        seq: i64,
        /// The seqs of the other choices it revealed.
        revealed: Vec<i64>,
    },
    /// A write to a match settled by hand.
    #[error("this match was abandoned: its tournament's organiser entered the table's result by hand, so nothing more can be recorded here")]
    Abandoned,
    /// An abandonment of a finished match.
    #[error("this match is finished: its score sheet is its result and it cannot be abandoned")]
    Finished,
    /// `If-Match` names another version.
    #[error("If-Match names version {expected} but the match is at version {actual}")]
    StaleVersion {
        /// The version `If-Match` named.
        expected: i64,
        /// The match's version now.
        actual: i64,
    },
    /// An `Idempotency-Key` already used with another request.
    #[error("this Idempotency-Key was already used for a different request on this match")]
    IdempotencyKeyReused,
    /// The write lost its race to other writers every time it tried.
    #[error("too many concurrent writers on this match; try again")]
    Busy,
    /// A blank or too long name (`what` names it in the message).
    #[error("{what} must have 1 to 64 characters (not blank)")]
    InvalidPlayerName {
        /// Which name, as the message says it (`player 0's name`, `the name`).
        what: String,
    },
    /// One registered player named at two seats.
    #[error("player {0} is named at two seats")]
    DuplicatePlayer(String),
    /// Seat `.0`'s `player_id` names no player.
    #[error("player {0}'s player_id names no player (POST /v1/players registers one)")]
    UnknownPlayer(usize),
    /// A seat token asked to rotate the host's token.
    #[error("only the host token may rotate the host's token")]
    RotateHostOnly,
    /// A tournament table's tokens derive from the organiser's: not rotated one by one.
    #[error("this match is a table of tournament {0}: its tokens derive from the organiser's token (GET /v1/tournaments/{0}/rounds/{{round}} gives them again), so they are not rotated one by one")]
    TableTokensDerived(String),
    /// Seat `seat` names registered player `id` under another name than the registered one: an
    /// entry's name never silently replaces the registered player's.
    #[error("player {seat}'s player_id names {id}, registered as {registered:?}, not {given:?}: send the registered name (GET /v1/players/{id})")]
    PlayerNameMismatch {
        /// The seat (entry index).
        seat: usize,
        /// The player id.
        id: String,
        /// The registered name.
        registered: String,
        /// The name sent.
        given: String,
    },
    /// More seats than any game has.
    #[error("at most 16 players")]
    TooManyPlayers,
    /// A list cursor that no page gave.
    #[error("cursor must be a next_cursor from an earlier page")]
    InvalidCursor,
    /// The game, its player count or its options refused at creation.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The database failed (see `StoreError`); nothing was recorded, or the write's outcome
    /// was checked.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The database became unreachable while a match was being created.
    #[error("the database became unreachable while the match was being created: it may or may not exist. If it does, its tokens were never given to anyone and nobody can use it: create the match again once the database is back")]
    CreationOutcomeUnknown,
    /// A fault of the service itself (stored data that does not read back, ...): logged, and
    /// told to nobody.
    #[error("{0}")]
    Internal(String),
}

impl MatchError {
    /// A fault of the service, with its cause (for the log only).
    pub fn internal(cause: impl std::fmt::Display) -> MatchError {
        MatchError::Internal(cause.to_string())
    }

    /// The refusal's structured facts (the problem's `seat`, `expected`, `got`...): a rule's
    /// as told to the asker, the service's own where it names a seat or a version.
    pub fn fields(&self) -> ProblemFields {
        match self {
            MatchError::Rule(r) => (*r.fields).clone(),
            MatchError::NotYourSeat { token, seat } => {
                ProblemFields::seat(*seat).with_compare(*token, *seat)
            }
            MatchError::HandIsPrivate(seat) => ProblemFields::seat(*seat),
            MatchError::StaleVersion { expected, actual } => {
                ProblemFields::compare(*actual, *expected)
            }
            _ => ProblemFields::none(),
        }
    }

    /// Whether the refusal was judged on the match's state (its rules, undo's limits), so that
    /// it may not stand once the state catches up with another instance's writes: the write
    /// path judges such a refusal again after catching up.
    pub fn judged_on_state(&self) -> bool {
        matches!(
            self,
            MatchError::Rule(_)
                | MatchError::NothingToUndo
                | MatchError::DuplicateFinished { .. }
                | MatchError::RoundClosed { .. }
                | MatchError::ChoicesRevealed { .. }
        )
    }
}

/// An action the game's rules refuse, as the asker is told it.
#[derive(Debug, thiserror::Error)]
#[error("{detail}")]
pub struct RuleRefusal {
    /// The rule's code, or `not_playable` for a refusal only the acting seat may hear of.
    pub code: &'static str,
    /// The rule's message, or the one `not_playable` detail.
    pub detail: String,
    /// What the seat could do instead, for an asker who may see it.
    pub legal: Option<Vec<Value>>,
    /// The refusal's structured facts, as the asker may be told them (the seat alone for
    /// `not_playable`).
    pub fields: Box<ProblemFields>,
}

impl RuleRefusal {
    /// `r`, a refusal of an action for `seat` (None: the table), told to an asker who may see
    /// the seat's private state (`holder`, with the seat's `legal` list) or not: a refusal the
    /// hidden hand decided is then the one `not_playable` answer ([`Rejection::told`]).
    pub fn told(
        r: &Rejection,
        seat: Option<usize>,
        holder: bool,
        legal: impl FnOnce() -> Vec<Value>,
    ) -> RuleRefusal {
        let told = r.told(seat, holder);
        RuleRefusal {
            code: told.code,
            detail: told.detail,
            legal: holder.then(legal),
            fields: Box::new(told.fields),
        }
    }

    /// `r` told in full, without a legal list.
    pub fn plain(r: Rejection) -> RuleRefusal {
        RuleRefusal {
            code: r.code,
            detail: r.message,
            legal: None,
            fields: r.fields,
        }
    }
}

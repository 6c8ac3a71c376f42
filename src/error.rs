//! The one error type at the edge: every failure leaves as RFC 9457 `application/problem+json`
//! with a stable machine `code`. A 500 logs the whole chain and tells the client nothing internal.
//!
//! The services return their own errors (`MatchError`, `TournamentError`): here, and only here,
//! each kind of refusal gets its HTTP status and problem code, in one `match` per service; the
//! error's message is the problem's `detail`.

use actix_web::{
    http::{header, StatusCode},
    HttpResponse, ResponseError,
};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::{
    matches::MatchError,
    rules::{
        by_hook_or_crook::actions::Place,
        cards::Suit,
        members_only::{Category, Space},
        ActionError, CardName, ProblemFields, SetupError,
    },
    store::StoreError,
    tournaments::TournamentError,
    webhooks::WebhookError,
};

/// An RFC 9457 problem document. Besides the standard members, a refusal carries the
/// structured facts it is about (`seat`, `card`, `suit`, `expected`, `got`, `category`, `space`,
/// `place`, `pile`), each present only when the refusal names it, so that a client can phrase it
/// in its own words. They are told exactly as the `detail` is: a refusal decided by a seat's
/// hidden hand or sealed choice tells them only to that seat's own token, and anyone else gets
/// `not_playable`, whose only fact is the acting seat (its detail names it too).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Problem {
    /// A URI naming the problem type: `urn:clubroom:problem:<code>`.
    #[schema(example = "urn:clubroom:problem:must_follow_suit")]
    #[serde(rename = "type")]
    pub type_: String,
    /// A short summary of the problem type.
    #[schema(example = "Illegal action")]
    pub title: String,
    /// The HTTP status.
    #[schema(example = 422)]
    pub status: u16,
    /// What exactly went wrong, naming the rule. Words for a person: seats are named 1-based, as
    /// the table page numbers them (the JSON's `seat` numbers stay 0-based).
    #[schema(example = "seat 3 holds hearts and must follow suit (H was led)")]
    pub detail: String,
    /// The stable machine code.
    #[schema(example = "must_follow_suit")]
    pub code: String,
    /// For a refused game action: what the seat could do instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Object>>)]
    pub legal: Option<Vec<Value>>,
    /// The seat the refusal is about, 0-based like every `seat` of the JSON (the `detail` says
    /// it 1-based): the seat that acted, whose turn, hand, board or pieces the rule judged; or
    /// the seat whose piece or exhibit the action named (`space_taken`, `card_not_in_exhibit`,
    /// `not_exhibiting`, `already_stolen_from`). `not_playable` carries the acting seat.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 15, example = 2)]
    pub seat: Option<usize>,
    /// The card the refusal is about, written as the game's actions write it: `QS` (Dump,
    /// Clubs, Bonus-Malus), `hat:no` (Members Only), `A1500` or `thief:3` (By Hook or Crook), or
    /// a P.M. card's signed value (`-7`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "QS")]
    pub card: Option<CardName>,
    /// The suit the rule names: the suit to follow (`must_follow_suit`: the led suit; in Clubs
    /// the called suit, `C` for clubs alone), the trump to play (`must_trump`), or a suit whose
    /// cards are all accounted for (`suit_exhausted`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suit: Option<Suit>,
    /// What the rule wanted, where the refusal compares numbers: the seat whose turn it is
    /// (`not_your_turn`), the token's own seat (`not_your_seat`), the match's current version
    /// (`stale_version`), the sum or count the rules fix (`tally_sum`, `tally_men`,
    /// `final_too_early`, `wrong_face_up_count`, `bad_pile_sizes`...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = 1)]
    pub expected: Option<i64>,
    /// What the request gave, beside `expected` or alone: the seat that acted, the version
    /// `If-Match` named, the sum, count, value or position entered (`tally_range`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = 2)]
    pub got: Option<i64>,
    /// Members Only: the category of the bet (`space_taken`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<Category>,
    /// Members Only: the betting space (`space_taken`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub space: Option<Space>,
    /// By Hook or Crook: the location (`nothing_to_play_there`, `card_not_allowed_here`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place: Option<Place>,
    /// By Hook or Crook: the auction pile, 0 or 1 (`pile_empty`, `no_such_pile`,
    /// `reveal_expected`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, example = 1)]
    pub pile: Option<usize>,
}

/// An error answered to the client.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{status} {code}: {detail}")]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Stable machine code.
    pub code: &'static str,
    /// Human detail.
    pub detail: String,
    /// Legal alternatives, for refused game actions.
    pub legal: Option<Vec<Value>>,
    /// The refusal's structured facts, as the asker may be told them (boxed: an error travels
    /// in `Result`s).
    pub fields: Box<ProblemFields>,
    /// Seconds for a `Retry-After` header (a 503 the client should simply retry).
    pub retry_after: Option<u32>,
}

/// How long a client is asked to wait before retrying after `storage_unavailable`.
pub const STORAGE_RETRY_AFTER_SECS: u32 = 2;

impl ApiError {
    /// A new error.
    pub fn new(status: StatusCode, code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            detail: detail.into(),
            legal: None,
            fields: Box::default(),
            retry_after: None,
        }
    }

    /// 503 `storage_unavailable`, with `Retry-After`: the database cannot be reached or cannot
    /// store right now. `detail` says whether something was recorded (see the callers).
    pub fn storage_unavailable(detail: impl Into<String>) -> ApiError {
        let mut e = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "storage_unavailable",
            detail,
        );
        e.retry_after = Some(STORAGE_RETRY_AFTER_SECS);
        e
    }

    /// 503 `storage_unavailable` for a write whose commit may or may not have happened.
    pub fn outcome_unknown() -> ApiError {
        ApiError::storage_unavailable(
            "the database became unreachable while this write was being committed: it may or may \
             not have been recorded. Retry with the same Idempotency-Key: if it was recorded the \
             retry replays its answer, otherwise it records it once (without a key, read the \
             match's log before retrying)",
        )
    }

    /// 400.
    pub fn bad_request(code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, detail)
    }

    /// 401.
    pub fn unauthorized(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", detail)
    }

    /// 403.
    pub fn forbidden(code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, code, detail)
    }

    /// 500: logs the cause, tells the client nothing internal.
    pub fn internal(cause: &dyn std::fmt::Display) -> ApiError {
        tracing::error!(error = %cause, "internal error");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
            "the server failed to answer; nothing was recorded",
        )
    }

    fn title(&self) -> &'static str {
        match self.status.as_u16() {
            400 => "Bad request",
            401 => "Unauthorized",
            403 => "Forbidden",
            404 => "Not found",
            405 => "Method not allowed",
            408 => "Request timeout",
            409 => "Conflict",
            412 => "Precondition failed",
            413 => "Payload too large",
            415 => "Unsupported media type",
            422 => "Illegal action",
            429 => "Too many requests",
            503 => "Service unavailable",
            _ => "Internal server error",
        }
    }

    /// The problem document.
    pub fn problem(&self) -> Problem {
        let f = (*self.fields).clone();
        Problem {
            type_: format!("urn:clubroom:problem:{}", self.code),
            title: self.title().to_string(),
            status: self.status.as_u16(),
            detail: self.detail.clone(),
            code: self.code.to_string(),
            legal: self.legal.clone(),
            seat: f.seat,
            card: f.card,
            suit: f.suit,
            expected: f.expected,
            got: f.got,
            category: f.category,
            space: f.space,
            place: f.place,
            pile: f.pile,
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let mut r = HttpResponse::build(self.status);
        r.insert_header((header::CONTENT_TYPE, "application/problem+json"));
        if let Some(secs) = self.retry_after {
            r.insert_header((header::RETRY_AFTER, secs.to_string()));
        }
        r.json(self.problem())
    }
}

impl From<StoreError> for ApiError {
    /// A storage fault is 503 `storage_unavailable` (logged); anything else a 500. Both say that
    /// nothing was recorded: a write whose outcome is unknown is checked before it is answered
    /// (`matches`), and an `OutcomeUnknown` that reaches here unchecked says so instead.
    fn from(e: StoreError) -> ApiError {
        match &e {
            StoreError::OutcomeUnknown(_) => {
                tracing::error!(error = %e, "storage fault; outcome unknown");
                ApiError::outcome_unknown()
            }
            StoreError::Unavailable(_) => {
                tracing::error!(error = %e, "storage unavailable");
                ApiError::storage_unavailable(
                    "the database is unavailable (unreachable, or out of space); nothing was \
                     recorded. Retry later",
                )
            }
            _ => ApiError::internal(&e),
        }
    }
}

impl From<SetupError> for ApiError {
    fn from(e: SetupError) -> ApiError {
        let code = match &e {
            SetupError::UnknownGame(_) => "unknown_game",
            SetupError::PlayerCount { .. } => "bad_player_count",
            SetupError::BadConfig(_) => "invalid_config",
            SetupError::Rule(code, _) => code,
        };
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, code, e.to_string())
    }
}

impl From<ActionError> for ApiError {
    fn from(e: ActionError) -> ApiError {
        match e {
            ActionError::Malformed(m) => ApiError::bad_request("invalid_action", m),
            ActionError::Illegal(r) => {
                let mut api = ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, r.code, r.message);
                api.fields = r.fields;
                api
            }
        }
    }
}

impl From<MatchError> for ApiError {
    fn from(e: MatchError) -> ApiError {
        use MatchError as E;
        let (status, code) = match &e {
            E::NotFound(_) => (StatusCode::NOT_FOUND, "match_not_found"),
            E::InvalidToken
            | E::TokenRequired
            | E::SeatTokenRequired
            | E::ListTokenRequired
            | E::ListTokenUnknown => (StatusCode::UNAUTHORIZED, "unauthorized"),
            E::TableActionNeedsHost | E::HostOnly | E::RotateHostOnly => {
                (StatusCode::FORBIDDEN, "host_only")
            }
            E::TableTokensDerived(_) => (StatusCode::CONFLICT, "table_tokens_derived"),
            E::NotYourSeat { .. } => (StatusCode::FORBIDDEN, "not_your_seat"),
            E::HandIsPrivate(_) => (StatusCode::FORBIDDEN, "hand_is_private"),
            E::RoundInPlay { .. } => (StatusCode::FORBIDDEN, "round_in_play"),
            E::ScoresOnly => (StatusCode::UNPROCESSABLE_ENTITY, "scores_only"),
            E::NoSuchSeat(_) => (StatusCode::UNPROCESSABLE_ENTITY, "no_such_seat"),
            E::MalformedAction(_) => (StatusCode::BAD_REQUEST, "invalid_action"),
            E::NotInGame { .. } => (StatusCode::UNPROCESSABLE_ENTITY, "action_not_in_game"),
            E::Rule(r) => (StatusCode::UNPROCESSABLE_ENTITY, r.code),
            E::NothingToUndo => (StatusCode::UNPROCESSABLE_ENTITY, "nothing_to_undo"),
            E::DuplicateFinished { .. } | E::RoundClosed { .. } => {
                (StatusCode::UNPROCESSABLE_ENTITY, "round_closed")
            }
            E::ChoicesRevealed { .. } => (StatusCode::UNPROCESSABLE_ENTITY, "choices_revealed"),
            E::Abandoned => (StatusCode::CONFLICT, "match_abandoned"),
            E::Finished => (StatusCode::CONFLICT, "match_finished"),
            E::StaleVersion { .. } => (StatusCode::PRECONDITION_FAILED, "stale_version"),
            E::IdempotencyKeyReused => (StatusCode::CONFLICT, "idempotency_key_reused"),
            E::Busy => (StatusCode::SERVICE_UNAVAILABLE, "busy"),
            E::InvalidPlayerName { .. } => (StatusCode::BAD_REQUEST, "invalid_player_name"),
            E::DuplicatePlayer(_) => (StatusCode::UNPROCESSABLE_ENTITY, "duplicate_player"),
            E::UnknownPlayer(_) => (StatusCode::UNPROCESSABLE_ENTITY, "unknown_player"),
            E::PlayerNameMismatch { .. } => {
                (StatusCode::UNPROCESSABLE_ENTITY, "player_name_mismatch")
            }
            E::TooManyPlayers => (StatusCode::BAD_REQUEST, "too_many_players"),
            E::InvalidCursor => (StatusCode::BAD_REQUEST, "invalid_cursor"),
            E::CreationOutcomeUnknown => return ApiError::storage_unavailable(e.to_string()),
            E::Setup(_) | E::Store(_) | E::Internal(_) => {
                return match e {
                    E::Setup(s) => s.into(),
                    E::Store(s) => s.into(),
                    other => ApiError::internal(&other),
                }
            }
        };
        let mut api = ApiError::new(status, code, e.to_string());
        api.fields = Box::new(e.fields());
        if let E::Rule(r) = e {
            api.legal = r.legal;
        }
        api
    }
}

impl From<TournamentError> for ApiError {
    fn from(e: TournamentError) -> ApiError {
        use TournamentError as E;
        let (status, code) = match &e {
            E::NotFound(_) => (StatusCode::NOT_FOUND, "tournament_not_found"),
            E::PlayerNotFound(_) => (StatusCode::NOT_FOUND, "player_not_found"),
            E::InvalidTime(_) => (StatusCode::BAD_REQUEST, "invalid_query"),
            E::RoundNotFound { .. } => (StatusCode::NOT_FOUND, "round_not_found"),
            E::TableNotFound { .. } => (StatusCode::NOT_FOUND, "table_not_found"),
            E::InvalidName => (StatusCode::BAD_REQUEST, "invalid_tournament_name"),
            E::EntrantCount { .. } => (StatusCode::BAD_REQUEST, "invalid_entrants"),
            E::EntrantsFillNoTable { .. } => (StatusCode::UNPROCESSABLE_ENTITY, "invalid_entrants"),
            E::NoTableSize => (StatusCode::UNPROCESSABLE_ENTITY, "invalid_config"),
            E::TableSize { .. } => (StatusCode::UNPROCESSABLE_ENTITY, "invalid_table_size"),
            E::DuplicateNotDealt { .. } => {
                (StatusCode::UNPROCESSABLE_ENTITY, "duplicate_not_dealt")
            }
            E::FouledBoardNotApplicable => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "fouled_board_not_applicable",
            ),
            E::NoPrintedBoards => (StatusCode::CONFLICT, "no_printed_boards"),
            E::DuplicateNeedsServiceDealing { .. } => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "duplicate_needs_service_dealing",
            ),
            E::DuplicateNeedsTwoTables { .. } => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "duplicate_needs_two_tables",
            ),
            E::SwissRounds { .. } | E::RoundRobinRounds | E::RoundRobinTooLong { .. } => {
                (StatusCode::UNPROCESSABLE_ENTITY, "invalid_rounds")
            }
            E::OrganiserTokenRequired => (StatusCode::UNAUTHORIZED, "unauthorized"),
            E::OrganiserOnly => (StatusCode::FORBIDDEN, "organiser_only"),
            E::RoundInProgress { .. } | E::RoundJustPaired { .. } => {
                (StatusCode::CONFLICT, "round_in_progress")
            }
            E::Finished { .. } => (StatusCode::CONFLICT, "tournament_finished"),
            E::ResultFromMatch { .. } => (StatusCode::CONFLICT, "result_from_match"),
            E::MatchInProgress { .. } => (StatusCode::CONFLICT, "match_in_progress"),
            E::ResultChanged { .. } => (StatusCode::CONFLICT, "result_changed"),
            E::Result(q) => (StatusCode::UNPROCESSABLE_ENTITY, q.code),
            E::NotSwiss => (StatusCode::UNPROCESSABLE_ENTITY, "swiss_only"),
            E::AlreadyEntered(_) => (StatusCode::CONFLICT, "already_entered"),
            E::EntrantNotFound(_) => (StatusCode::NOT_FOUND, "entrant_not_found"),
            E::AlreadyWithdrawn(_) => (StatusCode::CONFLICT, "entrant_withdrawn"),
            E::NotWithdrawn(_) => (StatusCode::CONFLICT, "entrant_not_withdrawn"),
            E::TableUnfinished { .. } => (StatusCode::CONFLICT, "table_unfinished"),
            E::TooFewToPair { .. } => (StatusCode::CONFLICT, "too_few_entrants"),
            E::OperatorConsentRequired => (StatusCode::FORBIDDEN, "operator_consent_required"),
            E::Archived => (StatusCode::CONFLICT, "tournament_archived"),
            E::NotArchived => (StatusCode::CONFLICT, "tournament_not_archived"),
            E::ChangeConflict => (StatusCode::CONFLICT, "tournament_changed"),
            E::CreationOutcomeUnknown => return ApiError::storage_unavailable(e.to_string()),
            E::Setup(_) | E::Match(_) | E::Store(_) | E::Internal(_) => {
                return match e {
                    E::Setup(s) => s.into(),
                    E::Match(m) => m.into(),
                    E::Store(s) => s.into(),
                    other => ApiError::internal(&other),
                }
            }
        };
        ApiError::new(status, code, e.to_string())
    }
}

// The club (issue 24).
impl From<crate::club::ClubError> for ApiError {
    fn from(e: crate::club::ClubError) -> ApiError {
        use crate::club::ClubError as E;
        let (status, code) = match &e {
            E::PlayerNotFound(_) => (StatusCode::NOT_FOUND, "player_not_found"),
            E::UnknownGame(_) => (StatusCode::NOT_FOUND, "unknown_game"),
            E::SeasonNotFound(_) => (StatusCode::NOT_FOUND, "season_not_found"),
            E::OperatorTokenRequired => (StatusCode::UNAUTHORIZED, "unauthorized"),
            E::OperatorOnly => (StatusCode::FORBIDDEN, "operator_only"),
            E::MergeSelf => (StatusCode::UNPROCESSABLE_ENTITY, "invalid_merge"),
            E::AlreadyMerged(_) => (StatusCode::CONFLICT, "player_merged"),
            E::PlayersMet(..) => (StatusCode::CONFLICT, "players_met"),
            E::InvalidSeasonName | E::InvalidSeasonDates(_) => {
                (StatusCode::BAD_REQUEST, "invalid_season")
            }
            E::InvalidQuery(_) => (StatusCode::BAD_REQUEST, "invalid_query"),
            E::Store(_) => {
                let E::Store(s) = e else { unreachable!() };
                return s.into();
            }
        };
        ApiError::new(status, code, e.to_string())
    }
}

impl From<WebhookError> for ApiError {
    fn from(e: WebhookError) -> ApiError {
        use WebhookError as E;
        let (status, code) = match &e {
            E::InvalidUrl(_) => (StatusCode::UNPROCESSABLE_ENTITY, "webhook_url_invalid"),
            E::ForbiddenAddress { .. } => {
                (StatusCode::UNPROCESSABLE_ENTITY, "webhook_url_forbidden")
            }
            E::Unresolvable(_) => (StatusCode::UNPROCESSABLE_ENTITY, "webhook_url_unresolvable"),
            E::NoEvents | E::EventNotForMatch(_) => {
                (StatusCode::UNPROCESSABLE_ENTITY, "webhook_events_invalid")
            }
            E::TooMany { .. } => (StatusCode::UNPROCESSABLE_ENTITY, "too_many_webhooks"),
            E::NotFound(_) => (StatusCode::NOT_FOUND, "webhook_not_found"),
            E::DeliveryNotFound(_) => (StatusCode::NOT_FOUND, "delivery_not_found"),
            E::InvalidCursor => (StatusCode::BAD_REQUEST, "invalid_query"),
            E::Match(_) | E::Tournament(_) | E::Store(_) | E::Internal(_) => {
                return match e {
                    E::Match(m) => m.into(),
                    E::Tournament(t) => t.into(),
                    E::Store(s) => s.into(),
                    other => ApiError::internal(&other),
                }
            }
        };
        ApiError::new(status, code, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{matches::RuleRefusal, tournaments::quicklog::QuickLogError};

    /// Each error answers its status, code and detail, and no legal list.
    fn assert_answers<E: Into<ApiError> + std::fmt::Debug>(cases: Vec<(E, u16, &str, &str)>) {
        for (e, status, code, detail) in cases {
            let shown = format!("{e:?}");
            let api: ApiError = e.into();
            assert_eq!(
                (api.status.as_u16(), api.code, api.detail.as_str()),
                (status, code, detail),
                "{shown}"
            );
            assert_eq!(api.legal, None, "{shown}");
        }
    }

    /// Each kind of refusal leaves with its status, code and detail, word for word as the
    /// services wrote them when they chose the status themselves (clients and tests compare
    /// them).
    #[test]
    fn every_match_refusal_keeps_its_status_code_and_detail() {
        use MatchError as E;
        let cases: Vec<(MatchError, u16, &str, &str)> = vec![
            (E::NotFound("x".into()), 404, "match_not_found", "no match has the id 'x'"),
            (E::InvalidToken, 401, "unauthorized", "this token is not valid for this match"),
            (E::TokenRequired, 401, "unauthorized", "recording needs a token: Authorization: Bearer <token>"),
            (E::SeatTokenRequired, 401, "unauthorized", "a seat's legal actions show its private state here: send that seat's token"),
            (E::ListTokenRequired, 401, "unauthorized", "listing matches needs a token: a match's host or seat token lists that match, the operator's token (CLUBROOM_OPERATOR_TOKEN) every match"),
            (E::ListTokenUnknown, 401, "unauthorized", "this token belongs to no match and is not the operator's"),
            (E::TableActionNeedsHost, 403, "host_only", "table actions (seat: null) need the host token"),
            (E::HostOnly, 403, "host_only", "only the host token may undo"),
            (E::RotateHostOnly, 403, "host_only", "only the host token may rotate the host's token"),
            (E::TableTokensDerived("t".into()), 409, "table_tokens_derived", "this match is a table of tournament t: its tokens derive from the organiser's token (GET /v1/tournaments/t/rounds/{round} gives them again), so they are not rotated one by one"),
            (E::NotYourSeat { token: 1, seat: 2 }, 403, "not_your_seat", "this token acts for seat 2 only, not seat 3"),
            (E::HandIsPrivate(3), 403, "hand_is_private", "only seat 4's token may see its legal actions"),
            (E::RoundInPlay { tournament: "t1".into(), round: 2 }, 403, "round_in_play", "this match is a duplicate table of tournament t1, round 2: the round's other tables are playing the same boards, so until every table has finished only this table's own tokens may read it"),
            (E::NoSuchSeat(4), 422, "no_such_seat", "`seat` names no seat: this match has 4 seats (`seat` 0 to 3)"),
            (E::MalformedAction("bad".into()), 400, "invalid_action", "bad"),
            (E::NotInGame { game: "dump", message: "m".into() }, 422, "action_not_in_game", "this action belongs to another game; GET /v1/games and the spec's GameAction list dump's actions (m)"),
            (E::NothingToUndo, 422, "nothing_to_undo", "no standing action is left to retract"),
            (E::DuplicateFinished { seq: 7 }, 422, "round_closed", "this duplicate table's match is finished: its result counts towards its tournament round, whose secret (it derives every board of the round) is published once every table has finished, so undo may not retract seq 7 and reopen the match"),
            (E::RoundClosed { closed: 1, seq: 41, round: 2 }, 422, "round_closed", "round 1 is closed: its shuffle seed is published and re-derives every card dealt for it, so undo may not retract seq 41 (round 2), which would reopen round 1 with every hand known to all"),
            (E::ChoicesRevealed { seq: 9, revealed: vec![5, 7] }, 422, "choices_revealed", "undo may not retract seq 9: it completed a set of sealed choices and revealed the others (seq 5, 7) to everyone; retracting it would let its seat choose again knowing them"),
            (E::Abandoned, 409, "match_abandoned", "this match was abandoned: its tournament's organiser entered the table's result by hand, so nothing more can be recorded here"),
            (E::Finished, 409, "match_finished", "this match is finished: its score sheet is its result and it cannot be abandoned"),
            (E::StaleVersion { expected: 3, actual: 5 }, 412, "stale_version", "If-Match names version 3 but the match is at version 5"),
            (E::IdempotencyKeyReused, 409, "idempotency_key_reused", "this Idempotency-Key was already used for a different request on this match"),
            (E::Busy, 503, "busy", "too many concurrent writers on this match; try again"),
            (E::InvalidPlayerName { what: "player 0's name".into() }, 400, "invalid_player_name", "player 0's name must have 1 to 64 characters (not blank)"),
            (E::DuplicatePlayer("p".into()), 422, "duplicate_player", "player p is named at two seats"),
            (E::UnknownPlayer(2), 422, "unknown_player", "player 2's player_id names no player (POST /v1/players registers one)"),
            (E::PlayerNameMismatch { seat: 1, id: "abc".into(), registered: "Ada".into(), given: "Ann".into() }, 422, "player_name_mismatch", "player 1's player_id names abc, registered as \"Ada\", not \"Ann\": send the registered name (GET /v1/players/abc)"),
            (E::TooManyPlayers, 400, "too_many_players", "at most 16 players"),
            (E::InvalidCursor, 400, "invalid_cursor", "cursor must be a next_cursor from an earlier page"),
            (E::CreationOutcomeUnknown, 503, "storage_unavailable", "the database became unreachable while the match was being created: it may or may not exist. If it does, its tokens were never given to anyone and nobody can use it: create the match again once the database is back"),
            (E::Setup(SetupError::UnknownGame("chess".into())), 422, "unknown_game", "no game 'chess' is implemented here; GET /v1/games lists the games"),
            (E::Store(StoreError::Unavailable("gone".into())), 503, "storage_unavailable", "the database is unavailable (unreachable, or out of space); nothing was recorded. Retry later"),
            (E::Store(StoreError::Corrupt("x".into())), 500, "internal_error", "the server failed to answer; nothing was recorded"),
            (E::internal("stored event 3 does not replay"), 500, "internal_error", "the server failed to answer; nothing was recorded"),
        ];
        assert_answers(cases);
        let storage = ApiError::from(MatchError::CreationOutcomeUnknown);
        assert_eq!(storage.retry_after, Some(STORAGE_RETRY_AFTER_SECS));
    }

    /// A rule's refusal is told by role: its code, message and legal list to whoever may see
    /// the seat's private state, the one `not_playable` answer and no list to anyone else.
    #[test]
    fn a_rule_refusal_is_told_as_the_asker_may_hear_it() {
        let ace: crate::rules::cards::Card = "AS".parse().unwrap();
        let hidden = crate::rules::Rejection {
            code: "card_not_in_hand",
            message: "seat 2 does not hold AS".into(),
            hidden: true,
            fields: Box::new(ProblemFields::seat(1).with_card(ace)),
        };
        let legal = || vec![serde_json::json!({"type": "play", "card": "9H"})];
        let own = ApiError::from(MatchError::Rule(RuleRefusal::told(
            &hidden,
            Some(1),
            true,
            legal,
        )));
        assert_eq!(
            (own.status.as_u16(), own.code, own.detail.as_str()),
            (422, "card_not_in_hand", "seat 2 does not hold AS")
        );
        assert_eq!(own.legal, Some(legal()));
        let other = ApiError::from(MatchError::Rule(RuleRefusal::told(
            &hidden,
            Some(1),
            false,
            legal,
        )));
        assert_eq!((other.status.as_u16(), other.code), (422, "not_playable"));
        assert_eq!(other.detail, crate::rules::not_playable_detail(1));
        assert!(
            other.detail.starts_with("seat 2 cannot do this:"),
            "{}",
            other.detail
        );
        assert_eq!(other.legal, None);
        assert!(MatchError::Rule(RuleRefusal::plain(hidden)).judged_on_state());
        assert!(MatchError::NothingToUndo.judged_on_state());
        assert!(!MatchError::Abandoned.judged_on_state());
        assert!(!MatchError::NoSuchSeat(2).judged_on_state());
    }

    #[test]
    fn every_tournament_refusal_keeps_its_status_code_and_detail() {
        use TournamentError as E;
        let cases: Vec<(TournamentError, u16, &str, &str)> = vec![
            (E::NotFound("t".into()), 404, "tournament_not_found", "no tournament has id t"),
            (E::PlayerNotFound("p".into()), 404, "player_not_found", "no player has id p"),
            (E::InvalidTime("created_after"), 400, "invalid_query", "created_after must be an RFC 3339 time, such as 2026-11-27T18:00:00Z"),
            (E::RoundNotFound { round: 2, paired: 0 }, 404, "round_not_found", "round 2 is not paired: no round is yet (POST .../rounds pairs the next)"),
            (E::RoundNotFound { round: 4, paired: 3 }, 404, "round_not_found", "round 4 is not paired: rounds 1 to 3 are"),
            (E::TableNotFound { round: 1, tables: 2 }, 404, "table_not_found", "round 1 has tables 1 to 2"),
            (E::InvalidName, 400, "invalid_tournament_name", "the tournament's name must have 1 to 100 characters (not blank)"),
            (E::EntrantCount { max: 256 }, 400, "invalid_entrants", "a tournament has 2 to 256 players"),
            (E::EntrantsFillNoTable { n: 3, game: "dump".into(), table_size: 4 }, 422, "invalid_entrants", "3 players cannot fill one dump table of 4"),
            (E::NoTableSize, 422, "invalid_config", "no table size from 2 to 8 can play these options"),
            (E::TableSize { game: "clubs".into(), allowed: vec![3, 4], asked: 5 }, 422, "invalid_table_size", "clubs tables seat [3, 4] players here, not 5"),
            (E::DuplicateNotDealt { game: "by-hook-or-crook".into(), games: vec!["dump", "clubs"] }, 422, "duplicate_not_dealt", "duplicate play repeats shuffled deals; by-hook-or-crook is not one of [\"dump\", \"clubs\"]"),
            (E::DuplicateNeedsServiceDealing { games: vec!["dump", "clubs"] }, 422, "duplicate_needs_service_dealing", "duplicate play deals the same cards at every table: with results from matches the service must deal (dealing: service), or, in [\"dump\", \"clubs\"] only, the tables deal real cards from the printed boards (dealing: table)"),
            (E::FouledBoardNotApplicable, 422, "fouled_board_not_applicable", "fouled_board applies only to duplicate play recorded by matches at tables that deal real cards (duplicate: true, dealing: table, record: matches)"),
            (E::NoPrintedBoards, 409, "no_printed_boards", "printed boards are for duplicate play at tables that deal real cards (duplicate: true, dealing: table, record: matches); this tournament has none"),
            (E::DuplicateNeedsTwoTables { n: 5, tables: 1, table_size: 4 }, 422, "duplicate_needs_two_tables", "duplicate play compares tables: 5 players fill 1 table(s) of 4"),
            (E::SwissRounds { max: 30 }, 422, "invalid_rounds", "a Swiss tournament needs `rounds`, 1 to 30"),
            (E::RoundRobinRounds, 422, "invalid_rounds", "a round robin's schedule fixes its rounds: omit `rounds`"),
            (E::RoundRobinTooLong { n: 90, table_size: 2, rounds: 89, max: 60 }, 422, "invalid_rounds", "a round robin of 90 players at tables of 2 takes 89 rounds; at most 60 — use Swiss"),
            (E::OrganiserTokenRequired, 401, "unauthorized", "this needs the organiser's token: Authorization: Bearer <organiser_token>"),
            (E::OrganiserOnly, 403, "organiser_only", "only the tournament's organiser token may do this"),
            (E::RoundInProgress { round: 1, open: vec![2, 3] }, 409, "round_in_progress", "round 1 is still being played (tables 2, 3 have no result); pair round 2 once every table has one"),
            (E::RoundJustPaired { id: "t".into(), next: 2 }, 409, "round_in_progress", "round 2 was just paired by another request: GET /v1/tournaments/t/rounds/2 shows it"),
            (E::Finished { rounds: 3 }, 409, "tournament_finished", "all 3 rounds are paired and complete"),
            (E::ResultFromMatch { table: 1, duplicate: true }, 409, "result_from_match", "table 1's match is finished and its score sheet is the result (a finished duplicate table is never reopened)"),
            (E::ResultFromMatch { table: 2, duplicate: false }, 409, "result_from_match", "table 2's match is finished and its score sheet is the result; correct it at the table (undo), not here"),
            (E::MatchInProgress { table: 1, match_id: "m".into() }, 409, "match_in_progress", "table 1's match m is still being played, and its result will come from it when it ends; to settle the table by hand instead, send `\"abandon_match\": true` with the result: the match is then closed for good (nothing more can be recorded there)"),
            (E::ResultChanged { table: 3 }, 409, "result_changed", "table 3's result was just entered by another request; read the tournament and enter yours again if it still needs correcting"),
            (E::Result(QuickLogError { code: "result_missing", message: "m".into() }), 422, "result_missing", "m"),
            (E::NotSwiss, 422, "swiss_only", "late entries and withdrawals are for Swiss tournaments: a round robin's schedule is fixed when it is created"),
            (E::AlreadyEntered("Hal".into()), 409, "already_entered", "Hal is an entrant already"),
            (E::EntrantNotFound("p".into()), 404, "entrant_not_found", "no entrant of this tournament has player id p"),
            (E::AlreadyWithdrawn("Hal".into()), 409, "entrant_withdrawn", "Hal is withdrawn already (POST .../reinstate pairs them again)"),
            (E::NotWithdrawn("Hal".into()), 409, "entrant_not_withdrawn", "Hal is not withdrawn"),
            (E::TableUnfinished { name: "Hal".into(), round: 2, table: 3 }, 409, "table_unfinished", "Hal sits at table 3 of round 2, which has no result yet: enter the table's result (or abandon its match with it) first, then withdraw them"),
            (E::TooFewToPair { active: 1, what: "one dump table".into() }, 409, "too_few_entrants", "1 entrants would be left to pair, too few for one dump table"),
            (E::OperatorConsentRequired, 403, "operator_consent_required", "archiving or deleting a tournament needs its organiser's token (Authorization: Bearer) and the operator's consent: the operator's token in X-Operator-Token"),
            (E::Archived, 409, "tournament_archived", "the tournament is archived: it is read-only until the organiser takes it out of the archive (POST .../unarchive, with the operator's consent)"),
            (E::NotArchived, 409, "tournament_not_archived", "the tournament is not archived"),
            (E::ChangeConflict, 409, "tournament_changed", "the tournament was just changed by another request; read it and try again"),
            (E::CreationOutcomeUnknown, 503, "storage_unavailable", "the database became unreachable while the tournament was being created: its organiser token was never given to anyone; create it again once the database is back"),
            (E::Match(MatchError::UnknownPlayer(1)), 422, "unknown_player", "player 1's player_id names no player (POST /v1/players registers one)"),
            (E::Setup(SetupError::BadConfig("x".into())), 422, "invalid_config", "config: x"),
            (E::internal("spec"), 500, "internal_error", "the server failed to answer; nothing was recorded"),
        ];
        assert_answers(cases);
    }
}

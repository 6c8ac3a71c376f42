//! The OpenAPI responses that several operations share, each written once: an operation names
//! them in its `responses(...)` beside its own (utoipa's `IntoResponses`). Each is documentation
//! only (the answers themselves are `ApiError`'s problem documents); the spec shows each exactly as
//! the operations used to spell it out, so naming one changes nothing in `openapi/openapi.json`.

use utoipa::IntoResponses;

use crate::error::Problem;

/// Declares responses whose body is a problem document: each its name, status and description,
/// and a header it carries, if any.
macro_rules! problem_responses {
    ($($(#[$doc:meta])* $name:ident, $status:tt, $description:tt $(, $header:tt = $header_doc:tt)?;)*) => {$(
        $(#[$doc])*
        #[derive(IntoResponses)]
        #[response(
            status = $status,
            description = $description,
            content_type = "application/problem+json"
            $(, headers(($header = String, description = $header_doc)))?
        )]
        pub struct $name(pub Problem);
    )*};
}

problem_responses! {
    /// 503 `storage_unavailable` (the wording of the match routes), with `Retry-After`.
    StorageUnavailable, 503, "`storage_unavailable`: the database cannot be reached or cannot store right now; the detail says whether anything was recorded",
    "Retry-After" = "Seconds to wait before retrying";
    /// 503 `storage_unavailable` (the wording of the players' and tournaments' routes), with
    /// `Retry-After`.
    StorageUnavailableBrief, 503, "`storage_unavailable`",
    "Retry-After" = "Seconds to wait before retrying";
    /// 503 of a write to a match: `busy` or `storage_unavailable`.
    WriteUnavailable, 503, "`busy`: too many concurrent writers on this match; `storage_unavailable`: the database cannot be reached or cannot store right now, the detail says whether anything was recorded (when unknown, retry with the same Idempotency-Key)",
    "Retry-After" = "Seconds to wait before retrying (`storage_unavailable`)";
    /// 404 for a match id that names no match.
    MatchNotFound, 404, "No such match";
    /// 401 of a read with a token the match never issued.
    InvalidMatchToken, 401, "A token not valid for this match";
    /// 401 of a write to a match.
    WriteUnauthorized, 401, "No token, or a token not valid for this match";
    /// 403 `round_in_play` of a read of a duplicate table.
    RoundInPlay, 403, "`round_in_play`: a duplicate tournament table read without a token while its round is being played (only the table's own tokens read it until every table of the round has finished)";
    /// 413 of a body over the limit.
    BodyTooLarge, 413, "Body too large";
    /// 415 of a body that is not JSON.
    NotJson, 415, "Not JSON";
    /// 429 `too_many_creates` of a tokenless create, with `Retry-After`.
    TooManyCreates, 429, "`too_many_creates`: this client created too many players, tournaments or matches without a token lately; nothing was recorded",
    "Retry-After" = "Seconds until the next create is allowed";
    /// 404 `tournament_not_found`.
    TournamentNotFound, 404, "`tournament_not_found`";
    /// 401 of an organiser's request without a token.
    OrganiserTokenMissing, 401, "No token";
    /// 403 `organiser_only`.
    OrganiserOnly, 403, "`organiser_only`";
}

/// 304 of a read of a match whose version the client holds.
#[derive(IntoResponses)]
#[response(
    status = 304,
    description = "Not modified: `If-None-Match` names the current version; no body",
    headers(("ETag" = String, description = "The version"))
)]
pub struct VersionNotModified;

/// 304 of a read whose content (its ETag) the client holds.
#[derive(IntoResponses)]
#[response(
    status = 304,
    description = "Not modified: `If-None-Match` names the current ETag"
)]
pub struct ContentNotModified;

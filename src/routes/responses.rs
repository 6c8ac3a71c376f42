//! The OpenAPI responses that several operations share, each written once: an operation names
//! them in its `responses(...)` beside its own (utoipa's `IntoResponses`). Each is documentation
//! only (the answers themselves are `ApiError`'s problem documents); the spec shows each exactly as
//! the operations used to spell it out, so naming one changes nothing in `openapi/openapi.json`.

use utoipa::IntoResponses;

use crate::error::Problem;

/// 503 `storage_unavailable` (the wording of the match routes), with `Retry-After`.
#[derive(IntoResponses)]
#[response(
    status = 503,
    description = "`storage_unavailable`: the database cannot be reached or cannot store right now; the detail says whether anything was recorded",
    content_type = "application/problem+json",
    headers(("Retry-After" = String, description = "Seconds to wait before retrying"))
)]
pub struct StorageUnavailable(pub Problem);

/// 503 `storage_unavailable` (the wording of the players' and tournaments' routes), with
/// `Retry-After`.
#[derive(IntoResponses)]
#[response(
    status = 503,
    description = "`storage_unavailable`",
    content_type = "application/problem+json",
    headers(("Retry-After" = String, description = "Seconds to wait before retrying"))
)]
pub struct StorageUnavailableBrief(pub Problem);

/// 503 of a write to a match: `busy` or `storage_unavailable`.
#[derive(IntoResponses)]
#[response(
    status = 503,
    description = "`busy`: too many concurrent writers on this match; `storage_unavailable`: the database cannot be reached or cannot store right now, the detail says whether anything was recorded (when unknown, retry with the same Idempotency-Key)",
    content_type = "application/problem+json",
    headers(("Retry-After" = String, description = "Seconds to wait before retrying (`storage_unavailable`)"))
)]
pub struct WriteUnavailable(pub Problem);

/// 404 for a match id that names no match.
#[derive(IntoResponses)]
#[response(
    status = 404,
    description = "No such match",
    content_type = "application/problem+json"
)]
pub struct MatchNotFound(pub Problem);

/// 401 of a read with a token the match never issued.
#[derive(IntoResponses)]
#[response(
    status = 401,
    description = "A token not valid for this match",
    content_type = "application/problem+json"
)]
pub struct InvalidMatchToken(pub Problem);

/// 401 of a write to a match.
#[derive(IntoResponses)]
#[response(
    status = 401,
    description = "No token, or a token not valid for this match",
    content_type = "application/problem+json"
)]
pub struct WriteUnauthorized(pub Problem);

/// 403 `round_in_play` of a read of a duplicate table.
#[derive(IntoResponses)]
#[response(
    status = 403,
    description = "`round_in_play`: a duplicate tournament table read without a token while its round is being played (only the table's own tokens read it until every table of the round has finished)",
    content_type = "application/problem+json"
)]
pub struct RoundInPlay(pub Problem);

/// 413 of a body over the limit.
#[derive(IntoResponses)]
#[response(
    status = 413,
    description = "Body too large",
    content_type = "application/problem+json"
)]
pub struct BodyTooLarge(pub Problem);

/// 415 of a body that is not JSON.
#[derive(IntoResponses)]
#[response(
    status = 415,
    description = "Not JSON",
    content_type = "application/problem+json"
)]
pub struct NotJson(pub Problem);

/// 429 `too_many_creates` of a tokenless create, with `Retry-After`.
#[derive(IntoResponses)]
#[response(
    status = 429,
    description = "`too_many_creates`: this client created too many players, tournaments or matches without a token lately; nothing was recorded",
    content_type = "application/problem+json",
    headers(("Retry-After" = String, description = "Seconds until the next create is allowed"))
)]
pub struct TooManyCreates(pub Problem);

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

/// 404 `tournament_not_found`.
#[derive(IntoResponses)]
#[response(
    status = 404,
    description = "`tournament_not_found`",
    content_type = "application/problem+json"
)]
pub struct TournamentNotFound(pub Problem);

/// 401 of an organiser's request without a token.
#[derive(IntoResponses)]
#[response(
    status = 401,
    description = "No token",
    content_type = "application/problem+json"
)]
pub struct OrganiserTokenMissing(pub Problem);

/// 403 `organiser_only`.
#[derive(IntoResponses)]
#[response(
    status = 403,
    description = "`organiser_only`",
    content_type = "application/problem+json"
)]
pub struct OrganiserOnly(pub Problem);

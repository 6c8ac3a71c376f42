//! `POST /v1/matches`, `GET /v1/matches`, `GET /v1/matches/{id}`.

use actix_web::{get, http::StatusCode, post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;

use super::idempotent::Created;
use super::{
    bearer, from_value, json_with_etag, normalize_integers,
    responses::{
        BodyTooLarge, MatchNotFound, NotJson, RoundInPlay, StorageUnavailable, TooManyCreates,
        VersionNotModified,
    },
};
use crate::{
    error::{ApiError, Problem},
    limits::Gate,
    matches::{
        views::{CreateMatch, MatchPage, MatchStatus, MatchView},
        Matches,
    },
};

/// Create a match.
///
/// Creates a match of a game for the given seats and answers it (201) with the host token and one
/// token per seat: they are shown once and stored only as hashes. Anyone may create a match (rate
/// limited per client); a seat may name a registered player by `player_id`. `Idempotency-Key`
/// makes a retry return the first answer.
#[utoipa::path(
    tag = "matches",
    request_body(content = CreateMatch, example = json!({"game": "dump", "players": [{"name": "Ada"}, {"name": "Ben"}, {"name": "Cy"}, {"name": "Di"}], "config": {"target": 100}, "dealing": "table"})),
    responses(
        (status = 201, description = "Created; `Location` names the match", body = crate::matches::views::Created,
         headers(("Location" = String, description = "/v1/matches/{id}"), ("ETag" = String, description = "The version, \"0\""))),
        (status = 400, description = "Malformed body, unknown field, wrong type, blank name", body = Problem, content_type = "application/problem+json"),
        BodyTooLarge,
        NotJson,
        (status = 422, description = "`unknown_game`, `bad_player_count`, `invalid_config`, `unknown_player`, `duplicate_player` or `player_name_mismatch` (a seat names a registered player under another name than the registered one)", body = Problem, content_type = "application/problem+json",
         example = json!({"type": "urn:clubroom:problem:unknown_game", "title": "Illegal action", "status": 422, "detail": "no game 'chess' is implemented here; GET /v1/games lists the games", "code": "unknown_game"})),
        TooManyCreates,
        StorageUnavailable,
    )
)]
#[post("/v1/matches")]
pub async fn create_match(
    svc: web::Data<Matches>,
    gate: web::Data<Gate>,
    http: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    gate.check_create(&http)?;
    let mut body = body.into_inner();
    normalize_integers(&mut body);
    super::idempotent::create(svc.store(), &http, None, &body, || async {
        let req: CreateMatch = from_value(body.clone())?;
        let created = svc.create(req).await?;
        Ok(Created::from(
            crate::matches::create::created_answer(&created).map_err(|e| ApiError::internal(&e))?,
        ))
    })
    .await
}

/// Filters and paging of the match list.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only matches of this game.
    pub game: Option<String>,
    /// Only matches in this status.
    pub status: Option<MatchStatus>,
    /// Page size, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page.
    #[param(pattern = "^[0-9]{1,18}$")]
    pub cursor: Option<String>,
}

/// List matches.
///
/// Lists matches, newest first and paged, as the token's bearer may see them: the operator's token
/// (`CLUBROOM_OPERATOR_TOKEN`) lists every match; a match's host or seat token lists that match
/// alone. The list needs a token: names and ids are not for everyone (an id opens a match's public
/// view).
#[utoipa::path(
    tag = "matches",
    params(ListQuery),
    responses(
        (status = 200, description = "A page of matches", body = MatchPage),
        (status = 400, description = "Bad filter, limit or cursor", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No token, or one that is neither a match's nor the operator's", body = Problem, content_type = "application/problem+json"),
        StorageUnavailable,
    ),
    security(("bearer" = []))
)]
#[get("/v1/matches")]
pub async fn list_matches(
    svc: web::Data<Matches>,
    q: web::Query<ListQuery>,
    req: HttpRequest,
) -> Result<web::Json<MatchPage>, ApiError> {
    let token = bearer(&req)?;
    let limit = q.limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::bad_request(
            "invalid_query",
            "limit must be 1 to 100",
        ));
    }
    Ok(web::Json(
        svc.list(
            token.as_deref(),
            q.game.as_deref(),
            q.status,
            q.cursor.as_deref(),
            limit,
        )
        .await?,
    ))
}

/// The match view.
///
/// Answers the match: its game, seats, status, version, the public table and whose turn it is.
/// Anyone with the id may read it; with a seat token, `you` holds that seat's private state (its
/// hand). `ETag` and `If-None-Match` save a transfer.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "The match id: 32 lowercase hex digits (any other id is 404)", pattern = "^[0-9a-f]{32}$"), ("If-None-Match" = Option<String>, Header, description = "A version the client holds (its `ETag`, e.g. `\"12\"`): 304 with no body while the match is still at it")),
    responses(
        (status = 200, description = "The match", body = MatchView, headers(("ETag" = String, description = "The version, e.g. \"12\""))),
        VersionNotModified,
        (status = 401, description = "A token that is not valid for this match", body = Problem, content_type = "application/problem+json"),
        RoundInPlay,
        MatchNotFound,
        StorageUnavailable,
    ),
    security((), ("bearer" = []))
)]
#[get("/v1/matches/{id}")]
pub async fn get_match(
    svc: web::Data<Matches>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?;
    let view = svc.view(&id, token.as_deref()).await?;
    Ok(json_with_etag(&req, StatusCode::OK, view.seq, &view))
}

/// `POST /v1/matches/{id}/tokens` body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RotateToken {
    /// Whose token: a seat (from 0), or null for the host's.
    #[schema(minimum = 0, maximum = 15)]
    pub seat: Option<usize>,
}

/// A new token.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct RotatedToken {
    /// Whose token: a seat, or null for the host's.
    pub seat: Option<usize>,
    /// The new token, shown once. The one it replaces is refused (401) from now on.
    pub token: String,
}

/// Rotate a match token.
///
/// Issues a new token for the host (`"seat": null`) or a seat and revokes the old one at once, on
/// every instance (a lost seat phone, a leaked host link); the answer holds the new token, shown
/// once. The host's token may rotate its own and any seat's; a seat's token its own seat's only. A
/// tournament table's tokens derive from the organiser's and are not rotated here (409
/// `table_tokens_derived`).
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "The match id", pattern = "^[0-9a-f]{32}$")),
    request_body(content = RotateToken, example = json!({"seat": 2})),
    responses(
        (status = 200, description = "The new token", body = RotatedToken),
        (status = 400, description = "Malformed body", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No token, or one this match does not hold (never issued, or rotated away)", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`host_only` (a seat's token asked for the host's), `not_your_seat` (a seat's token asked for another seat's)", body = Problem, content_type = "application/problem+json"),
        MatchNotFound,
        (status = 409, description = "`table_tokens_derived`: a tournament table's match", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`no_such_seat`", body = Problem, content_type = "application/problem+json"),
        BodyTooLarge,
        NotJson,
        StorageUnavailable,
    ),
    security(("bearer" = []))
)]
#[post("/v1/matches/{id}/tokens")]
pub async fn rotate_token(
    svc: web::Data<Matches>,
    id: web::Path<String>,
    req: HttpRequest,
    body: web::Json<Value>,
) -> Result<web::Json<RotatedToken>, ApiError> {
    let token = bearer(&req)?;
    let mut body = body.into_inner();
    normalize_integers(&mut body);
    let ask: RotateToken = from_value(body)?;
    let new = svc.rotate_token(&id, token.as_deref(), ask.seat).await?;
    Ok(web::Json(RotatedToken {
        seat: ask.seat,
        token: new,
    }))
}

/// Registers the routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_match)
        .service(list_matches)
        .service(get_match)
        .service(rotate_token);
}

//! `GET /v1/matches/{id}/events`: the log.

use actix_web::{get, web, HttpRequest};
use serde::Deserialize;
use utoipa::IntoParams;

use super::{
    bearer,
    responses::{InvalidMatchToken, MatchNotFound, RoundInPlay, StorageUnavailable},
};
use crate::{
    error::{ApiError, Problem},
    matches::{views::EventPage, Matches},
};

/// Paging of the log.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Only events with a greater seq (default 0: from the start).
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// Page size, 1 to 1000 (default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
}

/// The event log.
///
/// Answers the match's event log, oldest first, paged by `after` (a seq) and `limit`. Readable by
/// whoever may read the match; private payloads (a service deal's seed before the round ends, a
/// sealed choice) appear only to the token they belong to.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "The match id: 32 lowercase hex digits (any other id is 404)", pattern = "^[0-9a-f]{32}$"), EventsQuery),
    responses(
        (status = 200, description = "A page of the log", body = EventPage),
        (status = 400, description = "Bad paging", body = Problem, content_type = "application/problem+json"),
        InvalidMatchToken,
        RoundInPlay,
        MatchNotFound,
        StorageUnavailable,
    ),
    security((), ("bearer" = []))
)]
#[get("/v1/matches/{id}/events")]
pub async fn list_events(
    svc: web::Data<Matches>,
    id: web::Path<String>,
    q: web::Query<EventsQuery>,
    req: HttpRequest,
) -> Result<web::Json<EventPage>, ApiError> {
    let token = bearer(&req)?;
    let after = q.after.unwrap_or(0);
    let limit = q.limit.unwrap_or(100);
    if after < 0 || !(1..=1000).contains(&limit) {
        return Err(ApiError::bad_request(
            "invalid_query",
            "after must be >= 0 and limit 1 to 1000",
        ));
    }
    Ok(web::Json(
        svc.events(&id, token.as_deref(), after, limit).await?,
    ))
}

/// Registers the routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(list_events);
}

//! `GET /v1/matches/{id}/scores` (JSON, or CSV by `Accept: text/csv`) and `/scores.csv`.

use actix_web::{get, http::header, web, HttpRequest, HttpResponse};

use super::{
    bearer, etag,
    responses::{
        InvalidMatchToken, MatchNotFound, RoundInPlay, StorageUnavailable, VersionNotModified,
    },
};
use crate::{error::ApiError, matches::Matches, rules::ScoreSheet};

fn wants_csv(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::ACCEPT)
        .and_then(|a| a.to_str().ok())
        .is_some_and(|a| a.contains("text/csv") && !a.contains("application/json"))
}

/// The score sheet as CSV, its columns named by the players, read with the request's token.
async fn csv(svc: &Matches, id: &str, req: &HttpRequest) -> Result<HttpResponse, ApiError> {
    let token = bearer(req)?;
    let (sheet, seq) = svc.scores(id, token.as_deref()).await?;
    // The players' names come with the view, read with the same token (a second read; names
    // never change, so it cannot disagree with the sheet).
    let players: Vec<String> = svc
        .view(id, token.as_deref())
        .await?
        .players
        .into_iter()
        .map(|p| p.name)
        .collect();
    Ok(HttpResponse::Ok()
        .insert_header(etag(seq))
        .content_type("text/csv; charset=utf-8")
        .body(sheet.to_csv(&players)))
}

/// The score sheet.
///
/// Answers the match's score sheet: every round with each seat's (or side's) points, the totals,
/// the winners and the margin. Readable by whoever may read the match. `Accept: text/csv` gives
/// one row per round, as `/scores.csv` does.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "The match id: 32 lowercase hex digits (any other id is 404)", pattern = "^[0-9a-f]{32}$"), ("If-None-Match" = Option<String>, Header, description = "A version the client holds (its `ETag`, e.g. `\"12\"`): 304 with no body while the match is still at it")),
    responses(
        (status = 200, description = "The score sheet", content(
            (ScoreSheet = "application/json"),
            (String = "text/csv", example = "round,label,multiplier,Ada & Cy,Ben & Di\n1,Deal 1,1,15,0\ntotal,Total,,15,0\n"),
        ), headers(("ETag" = String, description = "The version"))),
        VersionNotModified,
        InvalidMatchToken,
        RoundInPlay,
        MatchNotFound,
        StorageUnavailable,
    ),
    security((), ("bearer" = []))
)]
#[get("/v1/matches/{id}/scores")]
pub async fn scores(
    svc: web::Data<Matches>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    if wants_csv(&req) {
        return csv(&svc, &id, &req).await;
    }
    let (sheet, seq) = svc.scores(&id, bearer(&req)?.as_deref()).await?;
    Ok(super::json_with_etag(
        &req,
        actix_web::http::StatusCode::OK,
        seq,
        &sheet,
    ))
}

/// The score sheet as CSV: a header, one row per round, a total row.
///
/// The score columns are named by the players: a seat's by its player's name, a side's by both
/// partners' (`Ada & Cy`); when two would read the same, each also says its seat or side
/// (`Ada (seat 0)`). A name a spreadsheet would run as a formula (starting with `=`, `+`, `-`,
/// `@`, tab, CR or LF) is written with a leading `'`, as in every CSV; numbers as numbers.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "The match id: 32 lowercase hex digits (any other id is 404)", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "The score sheet as CSV", content_type = "text/csv", body = String,
         example = "round,label,multiplier,Ada & Cy,Ben & Di\n1,Deal 1,1,15,0\ntotal,Total,,15,0\n"),
        InvalidMatchToken,
        RoundInPlay,
        MatchNotFound,
        StorageUnavailable,
    ),
    security((), ("bearer" = []))
)]
#[get("/v1/matches/{id}/scores.csv")]
pub async fn scores_csv(
    svc: web::Data<Matches>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    csv(&svc, &id, &req).await
}

/// Registers the routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    // scores.csv first: `/scores` must not swallow it.
    cfg.service(scores_csv).service(scores);
}

//! `GET /v1/matches/{id}/scores` (JSON, or CSV by `Accept: text/csv`) and `/scores.csv`.

use actix_web::{get, http::header, web, HttpRequest, HttpResponse};

use super::{bearer, etag};
use crate::{
    error::{ApiError, Problem},
    matches::Matches,
    rules::ScoreSheet,
};

fn wants_csv(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::ACCEPT)
        .and_then(|a| a.to_str().ok())
        .is_some_and(|a| a.contains("text/csv") && !a.contains("application/json"))
}

fn csv(sheet: &ScoreSheet, seq: i64) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(etag(seq))
        .content_type("text/csv; charset=utf-8")
        .body(sheet.to_csv())
}

/// The score sheet: every round, the totals, the winners and the margin. `Accept: text/csv` gives
/// one row per round.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "The match id: 32 lowercase hex digits (any other id is 404)", pattern = "^[0-9a-f]{32}$"), ("If-None-Match" = Option<String>, Header, description = "A version the client holds (its `ETag`, e.g. `\"12\"`): 304 with no body while the match is still at it")),
    responses(
        (status = 200, description = "The score sheet", content(
            (ScoreSheet = "application/json"),
            (String = "text/csv", example = "round,label,multiplier,side_0,side_1\n1,Deal 1,1,15,0\ntotal,Total,,15,0\n"),
        ), headers(("ETag" = String, description = "The version"))),
        (status = 304, description = "Not modified: `If-None-Match` names the current version; no body", headers(("ETag" = String, description = "The version"))),
        (status = 401, description = "A token not valid for this match", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`round_in_play`: a duplicate tournament table read without a token while its round is being played (only the table's own tokens read it until every table of the round has finished)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`storage_unavailable`: the database cannot be reached or cannot store right now; the detail says whether anything was recorded", body = Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait before retrying"))),
    ),
    security((), ("bearer" = []))
)]
#[get("/v1/matches/{id}/scores")]
pub async fn scores(
    svc: web::Data<Matches>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (sheet, seq) = svc.scores(&id, bearer(&req)?.as_deref()).await?;
    Ok(if wants_csv(&req) {
        csv(&sheet, seq)
    } else {
        super::json_with_etag(&req, actix_web::http::StatusCode::OK, seq, &sheet)
    })
}

/// The score sheet as CSV: a header, one row per round, a total row.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "The match id: 32 lowercase hex digits (any other id is 404)", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "The score sheet as CSV", content_type = "text/csv", body = String,
         example = "round,label,multiplier,side_0,side_1\n1,Deal 1,1,15,0\ntotal,Total,,15,0\n"),
        (status = 401, description = "A token not valid for this match", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`round_in_play`: a duplicate tournament table read without a token while its round is being played (only the table's own tokens read it until every table of the round has finished)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`storage_unavailable`: the database cannot be reached or cannot store right now; the detail says whether anything was recorded", body = Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait before retrying"))),
    ),
    security((), ("bearer" = []))
)]
#[get("/v1/matches/{id}/scores.csv")]
pub async fn scores_csv(
    svc: web::Data<Matches>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (sheet, seq) = svc.scores(&id, bearer(&req)?.as_deref()).await?;
    Ok(csv(&sheet, seq))
}

/// Registers the routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    // scores.csv first: `/scores` must not swallow it.
    cfg.service(scores_csv).service(scores);
}

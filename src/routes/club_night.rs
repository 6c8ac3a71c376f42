//! Tournaments that survive a club night (issue 24, part 3): late entry, withdrawal and
//! reinstatement, the change log, archiving and deleting with the operator's consent, and a
//! round's table assignments printed again (JSON and CSV).

use actix_web::{delete, get, http::header, post, web, HttpRequest, HttpResponse};
use serde_json::Value;

use super::{
    bearer, from_value,
    responses::{
        BodyTooLarge, NotJson, OrganiserOnly, OrganiserTokenMissing, StorageUnavailableBrief,
        TournamentNotFound,
    },
};
use crate::{
    error::{ApiError, Problem},
    tournaments::{
        changes::{
            assignments_csv, ArchiveState, Assignments, ChangeLog, EntrantStatus, LateEntry,
        },
        service::Tournaments,
    },
};

/// The operator's consent to archiving or deleting: the operator's token.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
pub struct OperatorConsent {
    /// The operator's token (`CLUBROOM_OPERATOR_TOKEN`): the operator consents. Without it (or
    /// with another) 403 `operator_consent_required`.
    #[param(rename = "X-Operator-Token")]
    pub operator: Option<String>,
}

/// The `X-Operator-Token` header, if readable.
fn operator_token(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get("x-operator-token")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// Adds an entrant after the tournament began (organiser; Swiss only): paired from the next
/// round on. The rounds already paired score as `missed_rounds` says: `zero` (default: nothing,
/// neither matchpoints nor the most possible) or `bye` (half a round's most, as a bye). An entry
/// named by name alone registers a new player. Refused once every round is paired (409
/// `tournament_finished`), for a player or a name (in any case) that is an entrant already
/// (409 `already_entered`), in a round robin (422 `swiss_only`).
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$")),
    request_body(content = LateEntry, example = json!({"name": "Hal", "missed_rounds": "zero"})),
    responses(
        (status = 201, description = "Entered", body = EntrantStatus, headers(("Location" = String, description = "/v1/tournaments/{id}"))),
        (status = 400, description = "`invalid_body`, `invalid_name`", body = Problem, content_type = "application/problem+json"),
        OrganiserTokenMissing,
        OrganiserOnly,
        TournamentNotFound,
        (status = 409, description = "`tournament_finished`, `already_entered`, `tournament_archived`, `tournament_changed` (a concurrent change)", body = Problem, content_type = "application/problem+json"),
        BodyTooLarge,
        NotJson,
        (status = 422, description = "`swiss_only`, `unknown_player`, `player_name_mismatch`, `invalid_entrants` (4,096 entrants already)", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[post("/v1/tournaments/{id}/entrants")]
pub async fn add_entrant(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
    body: web::Json<Value>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?;
    let entry: LateEntry = from_value(body.into_inner())?;
    let status = svc.add_entrant(&id, token.as_deref(), entry).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/v1/tournaments/{id}")))
        .json(status))
}

/// Withdraws an entrant (organiser; Swiss only): never paired again, their results kept and
/// counted, shown as `withdrawn` in the standings, `standings.csv` and the tournament. Refused
/// while the entrant's table of the round in play has no result (409 `table_unfinished`: enter
/// it, or abandon the match with it, first), and when those left could not fill the next
/// round's tables (409 `too_few_entrants`).
#[utoipa::path(
    tag = "tournaments",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        ("player_id" = String, Path, description = "The entrant's player id", pattern = "^[0-9a-f]{32}$"),
    ),
    responses(
        (status = 200, description = "Withdrawn", body = EntrantStatus),
        OrganiserTokenMissing,
        OrganiserOnly,
        (status = 404, description = "`tournament_not_found`, `entrant_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`entrant_withdrawn`, `table_unfinished`, `too_few_entrants`, `tournament_archived`, `tournament_changed`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`swiss_only`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[post("/v1/tournaments/{id}/entrants/{player_id}/withdraw")]
pub async fn withdraw(
    svc: web::Data<Tournaments>,
    path: web::Path<(String, String)>,
    req: HttpRequest,
) -> Result<web::Json<EntrantStatus>, ApiError> {
    let token = bearer(&req)?;
    let (id, player) = path.into_inner();
    Ok(web::Json(
        svc.withdraw(&id, &player, token.as_deref()).await?,
    ))
}

/// Reinstates a withdrawn entrant (organiser; Swiss only): paired again from the next round;
/// the rounds missed meanwhile score nothing.
#[utoipa::path(
    tag = "tournaments",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        ("player_id" = String, Path, description = "The entrant's player id", pattern = "^[0-9a-f]{32}$"),
    ),
    responses(
        (status = 200, description = "Reinstated", body = EntrantStatus),
        OrganiserTokenMissing,
        OrganiserOnly,
        (status = 404, description = "`tournament_not_found`, `entrant_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`entrant_not_withdrawn`, `tournament_finished`, `tournament_archived`, `tournament_changed`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`swiss_only`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[post("/v1/tournaments/{id}/entrants/{player_id}/reinstate")]
pub async fn reinstate(
    svc: web::Data<Tournaments>,
    path: web::Path<(String, String)>,
    req: HttpRequest,
) -> Result<web::Json<EntrantStatus>, ApiError> {
    let token = bearer(&req)?;
    let (id, player) = path.into_inner();
    Ok(web::Json(
        svc.reinstate(&id, &player, token.as_deref()).await?,
    ))
}

/// The change log, oldest first: late entries, withdrawals, reinstatements, corrections of
/// entered results (the old and the new figures), archiving; who asked and when. Readable by id;
/// in duplicate play a correction of a round still being played shows to the organiser only.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "The change log", body = ChangeLog),
        (status = 401, description = "A malformed Authorization header", body = Problem, content_type = "application/problem+json"),
        TournamentNotFound,
        StorageUnavailableBrief,
    ),
    security((), ("bearer" = []))
)]
#[get("/v1/tournaments/{id}/log")]
pub async fn change_log(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<web::Json<ChangeLog>, ApiError> {
    let token = bearer(&req)?;
    Ok(web::Json(svc.change_log(&id, token.as_deref()).await?))
}

/// Archives the tournament: its organiser's token, with the operator's consent
/// (`X-Operator-Token`). It leaves the default tournament list (`include_archived=true` shows
/// it), stays readable by id with its standings and exports, and is read-only (409
/// `tournament_archived` to pairing, results, entrants) until taken out of the archive.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"), OperatorConsent),
    responses(
        (status = 200, description = "Archived", body = ArchiveState),
        OrganiserTokenMissing,
        (status = 403, description = "`organiser_only`, `operator_consent_required`", body = Problem, content_type = "application/problem+json"),
        TournamentNotFound,
        (status = 409, description = "`tournament_archived` (already), `tournament_changed`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[post("/v1/tournaments/{id}/archive")]
pub async fn archive(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<web::Json<ArchiveState>, ApiError> {
    let token = bearer(&req)?;
    let operator = operator_token(&req);
    Ok(web::Json(
        svc.set_archived(&id, token.as_deref(), operator.as_deref(), true)
            .await?,
    ))
}

/// Takes the tournament out of the archive: its organiser's token, with the operator's consent.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"), OperatorConsent),
    responses(
        (status = 200, description = "Not archived any more", body = ArchiveState),
        OrganiserTokenMissing,
        (status = 403, description = "`organiser_only`, `operator_consent_required`", body = Problem, content_type = "application/problem+json"),
        TournamentNotFound,
        (status = 409, description = "`tournament_not_archived`, `tournament_changed`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[post("/v1/tournaments/{id}/unarchive")]
pub async fn unarchive(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<web::Json<ArchiveState>, ApiError> {
    let token = bearer(&req)?;
    let operator = operator_token(&req);
    Ok(web::Json(
        svc.set_archived(&id, token.as_deref(), operator.as_deref(), false)
            .await?,
    ))
}

/// Deletes the tournament: its organiser's token, with the operator's consent
/// (`X-Operator-Token`). From then on every read of it is 404 `tournament_not_found`; it leaves
/// every tournament list and its entrants' lists, its tables' matches leave their players' match
/// lists, and its results leave the club's memory (statistics, leaderboards, seasons), the
/// game's club ratings replayed without them. The tables' matches stay readable by their ids.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"), OperatorConsent),
    responses(
        (status = 204, description = "Deleted"),
        OrganiserTokenMissing,
        (status = 403, description = "`organiser_only`, `operator_consent_required`", body = Problem, content_type = "application/problem+json"),
        TournamentNotFound,
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[delete("/v1/tournaments/{id}")]
pub async fn delete_tournament(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?;
    let operator = operator_token(&req);
    svc.delete(&id, token.as_deref(), operator.as_deref())
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A round's table assignments again (organiser), at any time, identical to when it was paired:
/// each table's seats (North/East/South/West at tables of four, else 1 to n) and who sits out.
/// No match id, result or token: a slip to print and pin up.
#[utoipa::path(
    tag = "tournaments",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        ("round" = u32, Path, description = "The round, from 1", minimum = 1, maximum = 1000),
    ),
    responses(
        (status = 200, description = "The assignments", body = Assignments),
        (status = 400, description = "A round that is not a number", body = Problem, content_type = "application/problem+json"),
        OrganiserTokenMissing,
        OrganiserOnly,
        (status = 404, description = "`tournament_not_found`, `round_not_found`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[get("/v1/tournaments/{id}/rounds/{round}/assignments")]
pub async fn assignments(
    svc: web::Data<Tournaments>,
    path: web::Path<(String, u32)>,
    req: HttpRequest,
) -> Result<web::Json<Assignments>, ApiError> {
    let token = bearer(&req)?;
    let (id, round) = path.into_inner();
    Ok(web::Json(
        svc.assignments(&id, round, token.as_deref()).await?,
    ))
}

/// A round's table assignments as CSV (organiser), for a spreadsheet or a printer: one row per
/// seat (`round,table,seat,player_id,name`), then one per bye (`table` is `bye`).
#[utoipa::path(
    tag = "tournaments",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        ("round" = u32, Path, description = "The round, from 1", minimum = 1, maximum = 1000),
    ),
    responses(
        (status = 200, description = "The assignments as CSV", content_type = "text/csv", body = String, example = "round,table,seat,player_id,name\n1,1,1,0123456789abcdef0123456789abcdef,Ada\n"),
        (status = 400, description = "A round that is not a number", body = Problem, content_type = "application/problem+json"),
        OrganiserTokenMissing,
        OrganiserOnly,
        (status = 404, description = "`tournament_not_found`, `round_not_found`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[get("/v1/tournaments/{id}/rounds/{round}/assignments.csv")]
pub async fn assignments_as_csv(
    svc: web::Data<Tournaments>,
    path: web::Path<(String, u32)>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?;
    let (id, round) = path.into_inner();
    let a = svc.assignments(&id, round, token.as_deref()).await?;
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .body(assignments_csv(&a)))
}

/// Registers the routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(add_entrant)
        .service(withdraw)
        .service(reinstate)
        .service(change_log)
        .service(archive)
        .service(unarchive)
        .service(delete_tournament)
        .service(assignments_as_csv)
        .service(assignments);
}

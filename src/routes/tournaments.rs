//! Players and tournaments: `POST /v1/players`, `GET /v1/players/{id}`, `POST /v1/tournaments`,
//! `GET /v1/tournaments/{id}`, rounds, results, standings and exports.

use actix_web::{
    get,
    http::{header, StatusCode},
    post, put, web, HttpRequest, HttpResponse,
};
use serde_json::Value;

use super::{
    bearer, from_value,
    idempotent::Created,
    normalize_integers,
    responses::{
        BodyTooLarge, ContentNotModified, NotJson, OrganiserOnly, OrganiserTokenMissing,
        StorageUnavailableBrief, TooManyCreates, TournamentNotFound,
    },
};
use crate::{
    error::{ApiError, Problem},
    limits::Gate,
    matches::Matches,
    tournaments::{
        export,
        model::Standings,
        service::Tournaments,
        views::{
            CreatePlayer, CreateTournament, CreatedTournament, EnterResult, Player,
            RoundWithTokens, TableView, TournamentView,
        },
    },
};

/// A body with a strong ETag of its own bytes; 304 when `If-None-Match` names it (a page
/// polling unchanged standings downloads nothing).
fn with_content_etag(req: &HttpRequest, content_type: &str, body: String) -> HttpResponse {
    let tag = format!("\"{}\"", &crate::ids::sha256_hex(body.as_bytes())[..16]);
    let fresh = req
        .headers()
        .get_all(header::IF_NONE_MATCH)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == tag);
    if fresh {
        return HttpResponse::NotModified()
            .insert_header((header::ETAG, tag))
            .finish();
    }
    HttpResponse::Ok()
        .insert_header((header::ETAG, tag))
        .content_type(content_type)
        .body(body)
}

fn json_etag<T: serde::Serialize>(req: &HttpRequest, v: &T) -> Result<HttpResponse, ApiError> {
    let body = serde_json::to_string(v).map_err(|e| ApiError::internal(&e))?;
    Ok(with_content_etag(req, "application/json", body))
}

/// Registers a player: a stable id to name at match seats and in tournaments.
#[utoipa::path(
    tag = "tournaments",
    request_body(content = CreatePlayer, example = json!({"name": "Ada"})),
    responses(
        (status = 201, description = "Registered", body = Player, headers(("Location" = String, description = "/v1/players/{id}"))),
        (status = 400, description = "Malformed body, blank or too long name", body = Problem, content_type = "application/problem+json"),
        BodyTooLarge,
        NotJson,
        TooManyCreates,
        StorageUnavailableBrief,
    )
)]
#[post("/v1/players")]
pub async fn create_player(
    svc: web::Data<Tournaments>,
    matches: web::Data<Matches>,
    gate: web::Data<Gate>,
    http: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    gate.check_create(&http)?;
    let body = body.into_inner();
    super::idempotent::create(matches.store(), &http, None, &body, || async {
        let req: CreatePlayer = from_value(body.clone())?;
        let p = svc.create_player(req).await?;
        Created::new(format!("/v1/players/{}", p.id), &p)
    })
    .await
}

/// A registered player.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The player id", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "The player", body = Player),
        (status = 404, description = "`player_not_found`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    )
)]
#[get("/v1/players/{id}")]
pub async fn get_player(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
) -> Result<web::Json<Player>, ApiError> {
    Ok(web::Json(svc.player(&id).await?))
}

/// Creates a tournament. The answer holds the organiser's token, shown once: it pairs rounds,
/// enters results and gives every table's match tokens. Entrants given by name are registered
/// as new players.
#[utoipa::path(
    tag = "tournaments",
    request_body(content = CreateTournament, example = json!({"name": "Club night", "game": "clubs", "format": "swiss", "rounds": 3, "table_size": 4, "dealing": "service", "duplicate": true, "players": [{"name": "Ada"}, {"name": "Ben"}, {"name": "Cy"}, {"name": "Di"}, {"name": "Ed"}, {"name": "Flo"}, {"name": "Gus"}, {"name": "Hal"}]})),
    responses(
        (status = 201, description = "Created", body = CreatedTournament, headers(("Location" = String, description = "/v1/tournaments/{id}"))),
        (status = 400, description = "Malformed body, blank name, too few or too many entrants", body = Problem, content_type = "application/problem+json"),
        BodyTooLarge,
        NotJson,
        (status = 422, description = "`unknown_game`, `invalid_config`, `invalid_table_size`, `invalid_rounds`, `invalid_entrants`, `unknown_player`, `duplicate_player`, `duplicate_not_dealt`, `duplicate_needs_service_dealing`, `duplicate_needs_two_tables`", body = Problem, content_type = "application/problem+json"),
        TooManyCreates,
        StorageUnavailableBrief,
    )
)]
#[post("/v1/tournaments")]
pub async fn create_tournament(
    svc: web::Data<Tournaments>,
    matches: web::Data<Matches>,
    gate: web::Data<Gate>,
    http: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    gate.check_create(&http)?;
    let mut body = body.into_inner();
    normalize_integers(&mut body);
    super::idempotent::create(matches.store(), &http, None, &body, || async {
        let req: CreateTournament = from_value(body.clone())?;
        let created = svc.create_tournament(req).await?;
        Created::new(
            format!("/v1/tournaments/{}", created.tournament.id),
            &created,
        )
    })
    .await
}

/// The tournament: settings, entrants, every round's tables and results. Readable by id; while
/// a duplicate round is played, its tables' match ids show only to the organiser.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "The tournament", body = TournamentView, headers(("ETag" = String, description = "Changes with any change"))),
        ContentNotModified,
        (status = 401, description = "A malformed Authorization header", body = Problem, content_type = "application/problem+json"),
        TournamentNotFound,
        StorageUnavailableBrief,
    ),
    security((), ("bearer" = []))
)]
#[get("/v1/tournaments/{id}")]
pub async fn get_tournament(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?;
    json_etag(&req, &svc.tournament(&id, token.as_deref()).await?)
}

/// Pairs the next round (organiser): round robin by its schedule, Swiss by the standings so
/// far. Each table gets a match (record `matches`) whose seats name the players; the answer
/// holds every table's tokens. The previous round must be complete.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 201, description = "Paired", body = RoundWithTokens, headers(("Location" = String, description = "/v1/tournaments/{id}/rounds/{round}"))),
        OrganiserTokenMissing,
        OrganiserOnly,
        TournamentNotFound,
        (status = 409, description = "`round_in_progress` (a table of the last round has no result) or `tournament_finished`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[post("/v1/tournaments/{id}/rounds")]
pub async fn pair_round(
    svc: web::Data<Tournaments>,
    matches: web::Data<Matches>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?;
    // No body: the request is its path and its token.
    super::idempotent::create(
        matches.store(),
        &req,
        token.as_deref(),
        &Value::Null,
        || async {
            let round = svc.pair_round(&id, token.as_deref()).await?;
            Created::new(
                format!("/v1/tournaments/{id}/rounds/{}", round.round.round),
                &round,
            )
        },
    )
    .await
}

/// A round with its tables' match tokens (organiser): the tokens derive from the organiser's,
/// so asking again gives the same ones.
#[utoipa::path(
    tag = "tournaments",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        ("round" = u32, Path, description = "The round, from 1", minimum = 1, maximum = 1000),
    ),
    responses(
        (status = 200, description = "The round", body = RoundWithTokens),
        (status = 400, description = "A round that is not a number", body = Problem, content_type = "application/problem+json"),
        OrganiserTokenMissing,
        OrganiserOnly,
        (status = 404, description = "`tournament_not_found`, `round_not_found`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[get("/v1/tournaments/{id}/rounds/{round}")]
pub async fn get_round(
    svc: web::Data<Tournaments>,
    path: web::Path<(String, u32)>,
    req: HttpRequest,
) -> Result<web::Json<RoundWithTokens>, ApiError> {
    let token = bearer(&req)?;
    let (id, round) = path.into_inner();
    Ok(web::Json(
        svc.round_with_tokens(&id, round, token.as_deref()).await?,
    ))
}

/// Enters or corrects a table's final result (organiser): the quick log. Totals per unit (seat,
/// or side in partnership play), and/or points per deal; checked against the game's fixed sums
/// (a Clubs deal sums to −26, a Dump deal scores one side 1 to 80...). Each entry is kept; the
/// latest counts. A table whose match has finished takes its result from the match.
#[utoipa::path(
    tag = "tournaments",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        ("round" = u32, Path, description = "The round, from 1", minimum = 1, maximum = 1000),
        ("table" = u32, Path, description = "The table, from 1", minimum = 1, maximum = 1000),
    ),
    request_body(content = EnterResult, example = json!({"deals": [[-10, -6, -4, -6], [-2, -20, -3, -1]]})),
    responses(
        (status = 200, description = "The table with its result", body = TableView),
        (status = 400, description = "Malformed body or path", body = Problem, content_type = "application/problem+json"),
        OrganiserTokenMissing,
        OrganiserOnly,
        (status = 404, description = "`tournament_not_found`, `round_not_found`, `table_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`result_from_match` (the table's match is finished), `match_in_progress` (the table's match is still being played: send `abandon_match: true` to close it and enter the result in its place) or `result_changed` (a concurrent entry)", body = Problem, content_type = "application/problem+json"),
        BodyTooLarge,
        NotJson,
        (status = 422, description = "`result_missing`, `result_shape`, `points_out_of_range` (a number beyond ±1,000,000, entered or summed), `result_totals_mismatch`, `result_impossible`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[put("/v1/tournaments/{id}/rounds/{round}/tables/{table}/result")]
pub async fn enter_result(
    svc: web::Data<Tournaments>,
    path: web::Path<(String, u32, u32)>,
    body: web::Json<Value>,
    req: HttpRequest,
) -> Result<web::Json<TableView>, ApiError> {
    let token = bearer(&req)?;
    let (id, round, table) = path.into_inner();
    let mut body = body.into_inner();
    normalize_integers(&mut body);
    let result: EnterResult = from_value(body)?;
    Ok(web::Json(
        svc.enter_result(&id, round, table, token.as_deref(), result)
            .await?,
    ))
}

/// The standings, recomputed from every table's log and entered result: matchpoints, wins,
/// totals, the stated tie-breaks and the ratings.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "The standings", body = Standings, headers(("ETag" = String, description = "Changes with the standings"))),
        ContentNotModified,
        TournamentNotFound,
        StorageUnavailableBrief,
    )
)]
#[get("/v1/tournaments/{id}/standings")]
pub async fn standings(
    svc: web::Data<Tournaments>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    json_etag(&req, &svc.standings(&id).await?)
}

/// Exports: `standings.csv`, `results.csv` (one row per seat of every result), `results.json`
/// (the same as JSON) and `bgstats.json` (a BG Stats import file of every table's play).
#[utoipa::path(
    tag = "tournaments",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        ("file" = String, Path, description = "Which export", pattern = "^(standings\\.csv|results\\.csv|results\\.json|bgstats\\.json)$"),
    ),
    responses(
        (status = 200, description = "The export (CSV or JSON by its name)", content(
            (String = "text/csv", example = "rank,player_id,name,played,byes,wins,total,matchpoints,max_matchpoints,percentage,opponents_matchpoints,rating,rating_uncertainty\n"),
            (Object = "application/json"),
        )),
        (status = 404, description = "`tournament_not_found`, or no such export", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    )
)]
#[get("/v1/tournaments/{id}/export/{file}")]
pub async fn export_file(
    svc: web::Data<Tournaments>,
    path: web::Path<(String, String)>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, file) = path.into_inner();
    let known = [
        "standings.csv",
        "results.csv",
        "results.json",
        "bgstats.json",
    ];
    if !known.contains(&file.as_str()) {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "export_not_found",
            format!("the exports are {}", known.join(", ")),
        ));
    }
    let x = svc.exported(&id).await?;
    let resp = match file.as_str() {
        "standings.csv" => with_content_etag(
            &req,
            "text/csv; charset=utf-8",
            export::standings_csv(&x.standings),
        ),
        "results.csv" => with_content_etag(
            &req,
            "text/csv; charset=utf-8",
            export::results_csv(&x.entrants, &x.results, x.duplicate),
        ),
        "results.json" => json_etag(
            &req,
            &export::results_json(&x.entrants, &x.results, x.duplicate),
        )?,
        _ => json_etag(
            &req,
            &export::bgstats(&id, &x.name, &x.title, &x.entrants, &x.results),
        )?,
    };
    Ok(resp)
}

/// Registers the routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_player)
        .service(get_player)
        .service(create_tournament)
        .service(get_tournament)
        .service(pair_round)
        .service(get_round)
        .service(enter_result)
        .service(standings)
        .service(export_file);
}

//! The club (issue 24): `GET /v1/players/{id}/stats`, `POST /v1/players/{id}/merge`,
//! `GET /v1/games/{game}/leaderboard`, seasons and their leaderboards (JSON and CSV).

use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::{
    bearer, from_value,
    responses::{BodyTooLarge, NotJson, StorageUnavailableBrief},
};
use crate::{
    club::{
        season_csv,
        views::{CreateSeason, Leaderboard, PlayerStats, Season, SeasonBoard},
        Club, ClubError,
    },
    error::{ApiError, Problem},
    matches::Matches,
};

/// A player's statistics.
///
/// Answers a registered player's statistics per game: results played and won, average and best
/// total, the club rating now and after every rated result, head-to-head against each registered
/// opponent, and the latest results. Public. Every finished match whose seats name the player
/// (casual or at a tournament table) and every result entered for a tournament table the player
/// sat at count. A record merged into another answers for the one it was merged into.
#[utoipa::path(
    tag = "club",
    params(("id" = String, Path, description = "The player id", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "The player's statistics", body = PlayerStats),
        (status = 404, description = "`player_not_found`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    )
)]
#[get("/v1/players/{id}/stats")]
pub async fn player_stats(
    matches: web::Data<Matches>,
    id: web::Path<String>,
) -> Result<web::Json<PlayerStats>, ApiError> {
    Ok(web::Json(Club::new(matches.store()).stats(&id).await?))
}

/// The body of a merge.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MergePlayer {
    /// The record to merge into this one (the same person registered twice). Its results,
    /// match seats and tournament entries become this player's; it stays, marked as merged.
    #[schema(pattern = "^[0-9a-f]{32}$")]
    pub from: String,
}

/// Merge two player records.
///
/// Merges another player record into this one and answers the statistics of the player who stays
/// (operator only: `CLUBROOM_OPERATOR_TOKEN`). The other record's match seats and tournament
/// entries become this player's (it stays, marked as merged), and the ratings of every game it
/// played are replayed from its first result. Two records that played in the same match or
/// tournament are two people: 409 `players_met`.
#[utoipa::path(
    tag = "club",
    params(("id" = String, Path, description = "The player who stays", pattern = "^[0-9a-f]{32}$")),
    request_body = MergePlayer,
    responses(
        (status = 200, description = "Merged: the statistics of the player who stays", body = PlayerStats),
        (status = 400, description = "`invalid_body`", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "`unauthorized`: no token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`operator_only`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`player_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`players_met`, `player_merged`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_merge`: a player into itself", body = Problem, content_type = "application/problem+json"),
        BodyTooLarge,
        NotJson,
        StorageUnavailableBrief,
    )
)]
#[post("/v1/players/{id}/merge")]
pub async fn merge_player(
    matches: web::Data<Matches>,
    http: HttpRequest,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<web::Json<PlayerStats>, ApiError> {
    let token = bearer(&http)?;
    Club::operator(token.as_deref(), matches.is_operator(token.as_deref()))?;
    let req: MergePlayer = from_value(body.into_inner())?;
    Ok(web::Json(
        Club::new(matches.store()).merge(&req.from, &id).await?,
    ))
}

/// Paging of a leaderboard.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct BoardQuery {
    /// Page size, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
    /// Rows to skip (default 0, at most 1,000,000,000): `next_offset` of the previous page.
    #[param(minimum = 0, maximum = 1_000_000_000)]
    pub offset: Option<i64>,
}

/// A game's leaderboard.
///
/// Answers a game's club leaderboard: every player with a rated result in that game, highest
/// rating first, paged by `offset` and `limit`. Public.
#[utoipa::path(
    tag = "club",
    params(("game" = String, Path, description = "The game id", example = "dump"), BoardQuery),
    responses(
        (status = 200, description = "A page of the leaderboard", body = Leaderboard),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`unknown_game`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    )
)]
#[get("/v1/games/{game}/leaderboard")]
pub async fn leaderboard(
    matches: web::Data<Matches>,
    game: web::Path<String>,
    q: web::Query<BoardQuery>,
) -> Result<web::Json<Leaderboard>, ApiError> {
    let limit = q.limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(ClubError::InvalidQuery("limit must be 1 to 100".into()).into());
    }
    let offset = q.offset.unwrap_or(0);
    if !(0..=1_000_000_000).contains(&offset) {
        return Err(ClubError::InvalidQuery("offset must be 0 to 1000000000".into()).into());
    }
    Ok(web::Json(
        Club::new(matches.store())
            .leaderboard(&game, offset, limit)
            .await?,
    ))
}

/// Create a season.
///
/// Creates a season, a named range of UTC days whose leaderboards rank the results finished within
/// it, and answers it (201). Operator only (`CLUBROOM_OPERATOR_TOKEN`).
#[utoipa::path(
    tag = "club",
    request_body(content = CreateSeason, example = json!({"name": "Spring 2026", "starts": "2026-03-01", "ends": "2026-05-31"})),
    responses(
        (status = 201, description = "Created", body = Season),
        (status = 400, description = "`invalid_body`, `invalid_season`", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "`unauthorized`: no token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`operator_only`", body = Problem, content_type = "application/problem+json"),
        BodyTooLarge,
        NotJson,
        StorageUnavailableBrief,
    )
)]
#[post("/v1/seasons")]
pub async fn create_season(
    matches: web::Data<Matches>,
    http: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&http)?;
    Club::operator(token.as_deref(), matches.is_operator(token.as_deref()))?;
    let req: CreateSeason = from_value(body.into_inner())?;
    let s = Club::new(matches.store()).create_season(req).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/v1/seasons/{}", s.id)))
        .json(s))
}

/// List seasons.
///
/// Lists every season with its name and days, latest start first. Public.
#[utoipa::path(
    tag = "club",
    responses(
        (status = 200, description = "The seasons", body = Vec<Season>),
        StorageUnavailableBrief,
    )
)]
#[get("/v1/seasons")]
pub async fn list_seasons(matches: web::Data<Matches>) -> Result<web::Json<Vec<Season>>, ApiError> {
    Ok(web::Json(Club::new(matches.store()).seasons().await?))
}

/// The game of a season's leaderboard.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct SeasonQuery {
    /// The game id.
    #[param(example = "dump")]
    pub game: String,
}

/// A season's leaderboard.
///
/// Answers a season's leaderboard in one game: every player with a rated result finished in the
/// season (UTC days, `ends` inclusive), by their club rating after their last result in it, with
/// their results, wins and rating change in the season. Public; computed on each request.
#[utoipa::path(
    tag = "club",
    params(("id" = String, Path, description = "The season id", pattern = "^[0-9a-f]{32}$"), SeasonQuery),
    responses(
        (status = 200, description = "The season's leaderboard", body = SeasonBoard),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`season_not_found`, `unknown_game`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    )
)]
#[get("/v1/seasons/{id}/leaderboard")]
pub async fn season_board(
    matches: web::Data<Matches>,
    id: web::Path<String>,
    q: web::Query<SeasonQuery>,
) -> Result<web::Json<SeasonBoard>, ApiError> {
    Ok(web::Json(
        Club::new(matches.store())
            .season_board(&id, &q.game)
            .await?,
    ))
}

/// A season's leaderboard as CSV.
///
/// The same leaderboard as `GET /v1/seasons/{id}/leaderboard`, as CSV: a header and one row per
/// player, best first. Public. Text cells a spreadsheet would run as a formula get a leading `'`.
#[utoipa::path(
    tag = "club",
    params(("id" = String, Path, description = "The season id", pattern = "^[0-9a-f]{32}$"), SeasonQuery),
    responses(
        (status = 200, description = "The season's leaderboard", content(
            (String = "text/csv", example = "rank,player_id,name,played,wins,rating,rating_uncertainty,change\n1,0123456789abcdef0123456789abcdef,Ada,2,2,1031.267,,31.267\n"),
        )),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`season_not_found`, `unknown_game`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    )
)]
#[get("/v1/seasons/{id}/leaderboard.csv")]
pub async fn season_board_csv(
    matches: web::Data<Matches>,
    id: web::Path<String>,
    q: web::Query<SeasonQuery>,
) -> Result<HttpResponse, ApiError> {
    let b = Club::new(matches.store())
        .season_board(&id, &q.game)
        .await?;
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .body(season_csv(&b)))
}

/// Registers the club's routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(player_stats)
        .service(merge_player)
        .service(leaderboard)
        .service(create_season)
        .service(list_seasons)
        .service(season_board)
        .service(season_board_csv);
}

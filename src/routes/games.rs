//! `GET /v1/games`: the catalogue.

use actix_web::{get, web::Json};

use crate::rules::{AnyGame, GameInfo};

/// The games.
///
/// Lists the games implemented here, each with its id, title, player counts and default options
/// (the `config` a match may set). Public; the list changes only with the server's version.
#[utoipa::path(tag = "games", responses((status = 200, description = "The catalogue", body = Vec<GameInfo>)))]
#[get("/v1/games")]
pub async fn list_games() -> Json<Vec<GameInfo>> {
    Json(AnyGame::catalogue())
}

/// Registers the routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(list_games);
}

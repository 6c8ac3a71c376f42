//! `GET /v1/games`: the catalogue.

use actix_web::{get, web::Json};

use crate::rules::{AnyGame, GameInfo};

/// The games implemented here, with their player counts and default options.
#[utoipa::path(tag = "games", responses((status = 200, description = "The catalogue", body = Vec<GameInfo>)))]
#[get("/v1/games")]
pub async fn list_games() -> Json<Vec<GameInfo>> {
    Json(AnyGame::catalogue())
}

/// Registers the routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(list_games);
}

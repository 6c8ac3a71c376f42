//! `GET /healthz`.

use actix_web::{get, web::Json};
use serde::Serialize;
use utoipa::ToSchema;

/// Liveness.
#[derive(Serialize, ToSchema)]
pub struct Health {
    /// Always `ok` when the service answers.
    #[schema(example = "ok")]
    pub status: &'static str,
}

/// Liveness: the service is up.
#[utoipa::path(tag = "service", responses((status = 200, description = "The service is up", body = Health)))]
#[get("/healthz")]
pub async fn healthz() -> Json<Health> {
    Json(Health { status: "ok" })
}

/// Registers the routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(healthz);
}

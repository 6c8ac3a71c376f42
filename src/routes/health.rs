//! `GET /healthz`.

use std::time::Duration;

use actix_web::{get, http::header, web, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;

use crate::{error::STORAGE_RETRY_AFTER_SECS, matches::Matches};

/// How long `/healthz` waits for the database's answer to `SELECT 1`.
const PING_TIMEOUT: Duration = Duration::from_secs(2);

/// Health of the service and of its database.
#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok` when the service and its database answer; `degraded` when the database does not.
    #[schema(example = "ok")]
    pub status: &'static str,
    /// `ok`, or `unavailable` when the database did not answer `SELECT 1` within 2 s.
    #[schema(example = "ok")]
    pub database: &'static str,
}

/// Health.
///
/// Answers 200 when the service is up and its database answers a trivial query within a short
/// time, else 503 `storage_unavailable`. Public; meant for load balancers and monitors.
#[utoipa::path(
    tag = "service",
    responses(
        (status = 200, description = "The service and its database are up", body = Health),
        (status = 503, description = "The service is up but its database does not answer (`{\"status\": \"degraded\", \"database\": \"unavailable\"}`), with `Retry-After`", body = Health,
         headers(("Retry-After" = String, description = "Seconds to wait before retrying"))),
    )
)]
#[get("/healthz")]
pub async fn healthz(svc: web::Data<Matches>) -> HttpResponse {
    match svc.store().ping(PING_TIMEOUT).await {
        Ok(()) => HttpResponse::Ok().json(Health {
            status: "ok",
            database: "ok",
        }),
        Err(e) => {
            tracing::warn!(error = %e, "health check: the database does not answer");
            HttpResponse::ServiceUnavailable()
                .insert_header((header::RETRY_AFTER, STORAGE_RETRY_AFTER_SECS.to_string()))
                .json(Health {
                    status: "degraded",
                    database: "unavailable",
                })
        }
    }
}

/// Registers the routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(healthz);
}

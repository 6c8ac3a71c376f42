//! Webhooks (issue 23): a match's (host token) or a tournament's (organiser token) webhooks,
//! their delivery logs and redelivery. One resource under two owners: the handlers of
//! `/v1/matches/{id}/webhooks...` and `/v1/tournaments/{id}/webhooks...` differ only in whose
//! token they ask for.

use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;

use super::{
    bearer, from_value,
    responses::{
        BodyTooLarge, MatchNotFound, NotJson, OrganiserOnly, OrganiserTokenMissing,
        StorageUnavailableBrief, TournamentNotFound,
    },
};
use crate::{
    error::{ApiError, Problem},
    webhooks::{
        CreatedWebhook, Delivery, DeliveryPage, Owner, RegisterWebhook, WebhookList, Webhooks,
    },
};

/// The routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(register_match_webhook)
        .service(list_match_webhooks)
        .service(delete_match_webhook)
        .service(match_webhook_deliveries)
        .service(redeliver_match_webhook)
        .service(register_tournament_webhook)
        .service(list_tournament_webhooks)
        .service(delete_tournament_webhook)
        .service(tournament_webhook_deliveries)
        .service(redeliver_tournament_webhook);
}

/// A page of the delivery log.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DeliveryQuery {
    /// Page size, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page.
    #[param(pattern = "^[0-9]{1,18}$")]
    pub cursor: Option<String>,
}

fn limit(q: &DeliveryQuery) -> Result<i64, ApiError> {
    let limit = q.limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::bad_request(
            "invalid_query",
            "limit must be 1 to 100",
        ));
    }
    Ok(limit)
}

async fn register(
    svc: &Webhooks,
    owner: Owner,
    req: &HttpRequest,
    body: Value,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(req)?;
    let body: RegisterWebhook = from_value(body)?;
    let created = svc.register(&owner, token.as_deref(), body).await?;
    let base = match &owner {
        Owner::Match(id) => format!("/v1/matches/{id}"),
        Owner::Tournament(id) => format!("/v1/tournaments/{id}"),
    };
    Ok(HttpResponse::Created()
        .insert_header((
            actix_web::http::header::LOCATION,
            format!("{base}/webhooks/{}", created.webhook.id),
        ))
        .json(created))
}

/// Register a match webhook.
///
/// Registers a webhook on a match (host token) and answers it (201) with its signing secret, shown
/// once. `deal.scored` and `match.finished` events are posted to the URL, signed with the secret.
/// The URL must be `http`/`https` and lead to a public address (checked now and at every
/// delivery).
#[utoipa::path(
    tag = "webhooks",
    params(("id" = String, Path, description = "The match id", pattern = "^[0-9a-f]{32}$")),
    request_body(content = RegisterWebhook, example = json!({"url": "https://bot.example.org/clubroom", "events": ["deal.scored", "match.finished"]})),
    responses(
        (status = 201, description = "Registered; `secret` is shown only now", body = CreatedWebhook, headers(("Location" = String, description = "/v1/matches/{id}/webhooks/{webhook_id}"))),
        (status = 400, description = "Malformed body or unknown event kind", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No token, or a token not valid for this match", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`host_only`: a seat's token", body = Problem, content_type = "application/problem+json"),
        MatchNotFound,
        BodyTooLarge,
        NotJson,
        (status = 422, description = "`webhook_url_invalid`, `webhook_url_forbidden` (loopback, private, link-local... address), `webhook_url_unresolvable`, `webhook_events_invalid`, `too_many_webhooks`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[post("/v1/matches/{id}/webhooks")]
pub async fn register_match_webhook(
    svc: web::Data<Webhooks>,
    id: web::Path<String>,
    req: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    register(&svc, Owner::Match(id.into_inner()), &req, body.into_inner()).await
}

/// A match's webhooks.
///
/// Lists a match's registered webhooks with their URLs and events, never their secrets (host token
/// only).
#[utoipa::path(
    tag = "webhooks",
    params(("id" = String, Path, description = "The match id", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "The webhooks, oldest first", body = WebhookList),
        (status = 401, description = "No token, or a token not valid for this match", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`host_only`", body = Problem, content_type = "application/problem+json"),
        MatchNotFound,
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[get("/v1/matches/{id}/webhooks")]
pub async fn list_match_webhooks(
    svc: web::Data<Webhooks>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<web::Json<WebhookList>, ApiError> {
    let token = bearer(&req)?;
    Ok(web::Json(
        svc.list(&Owner::Match(id.into_inner()), token.as_deref())
            .await?,
    ))
}

/// Delete a match webhook.
///
/// Deletes a match's webhook (host token only) and answers 204: nothing more is delivered to it.
#[utoipa::path(
    tag = "webhooks",
    params(
        ("id" = String, Path, description = "The match id", pattern = "^[0-9a-f]{32}$"),
        ("webhook_id" = String, Path, description = "The webhook id", pattern = "^[0-9a-f]{32}$"),
    ),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "No token, or a token not valid for this match", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`host_only`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`match_not_found` or `webhook_not_found`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[delete("/v1/matches/{id}/webhooks/{webhook_id}")]
pub async fn delete_match_webhook(
    svc: web::Data<Webhooks>,
    path: web::Path<(String, String)>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?;
    let (id, hook) = path.into_inner();
    svc.delete(&Owner::Match(id), token.as_deref(), &hook)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A match webhook's deliveries.
///
/// Lists a match webhook's delivery log, newest first and paged (host token only): each delivery's
/// state, attempts, last answer and body.
#[utoipa::path(
    tag = "webhooks",
    params(
        ("id" = String, Path, description = "The match id", pattern = "^[0-9a-f]{32}$"),
        ("webhook_id" = String, Path, description = "The webhook id", pattern = "^[0-9a-f]{32}$"),
        DeliveryQuery,
    ),
    responses(
        (status = 200, description = "A page of deliveries", body = DeliveryPage),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No token, or a token not valid for this match", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`host_only`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`match_not_found` or `webhook_not_found`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[get("/v1/matches/{id}/webhooks/{webhook_id}/deliveries")]
pub async fn match_webhook_deliveries(
    svc: web::Data<Webhooks>,
    path: web::Path<(String, String)>,
    q: web::Query<DeliveryQuery>,
    req: HttpRequest,
) -> Result<web::Json<DeliveryPage>, ApiError> {
    let token = bearer(&req)?;
    let (id, hook) = path.into_inner();
    let limit = limit(&q)?;
    Ok(web::Json(
        svc.deliveries(
            &Owner::Match(id),
            token.as_deref(),
            &hook,
            q.cursor.as_deref(),
            limit,
        )
        .await?,
    ))
}

/// Redeliver (match).
///
/// Queues a match webhook's delivery to be sent again now (host token only) and answers the
/// delivery as it then stands (202): the same id and body, so the receiver can deduplicate,
/// retried for another day.
#[utoipa::path(
    tag = "webhooks",
    params(
        ("id" = String, Path, description = "The match id", pattern = "^[0-9a-f]{32}$"),
        ("webhook_id" = String, Path, description = "The webhook id", pattern = "^[0-9a-f]{32}$"),
        ("delivery_id" = String, Path, description = "The delivery id", pattern = "^[0-9a-f]{32}$"),
    ),
    responses(
        (status = 202, description = "Queued again: the delivery as it now stands", body = Delivery),
        (status = 401, description = "No token, or a token not valid for this match", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`host_only`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`match_not_found`, `webhook_not_found` or `delivery_not_found`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[post("/v1/matches/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver")]
pub async fn redeliver_match_webhook(
    svc: web::Data<Webhooks>,
    path: web::Path<(String, String, String)>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?;
    let (id, hook, delivery) = path.into_inner();
    let d = svc
        .redeliver(&Owner::Match(id), token.as_deref(), &hook, &delivery)
        .await?;
    Ok(HttpResponse::Accepted().json(d))
}

/// Register a tournament webhook.
///
/// Registers a webhook on a tournament (organiser token) and answers it (201) with its signing
/// secret, shown once. Any of `round.paired`, `result.entered`, `round.complete`, and its tables'
/// `deal.scored` and `match.finished` are posted to the URL, signed with the secret. The URL must
/// lead to a public address.
#[utoipa::path(
    tag = "webhooks",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$")),
    request_body(content = RegisterWebhook, example = json!({"url": "https://bot.example.org/clubroom", "events": ["round.paired", "result.entered", "round.complete"]})),
    responses(
        (status = 201, description = "Registered; `secret` is shown only now", body = CreatedWebhook, headers(("Location" = String, description = "/v1/tournaments/{id}/webhooks/{webhook_id}"))),
        (status = 400, description = "Malformed body or unknown event kind", body = Problem, content_type = "application/problem+json"),
        OrganiserTokenMissing,
        OrganiserOnly,
        TournamentNotFound,
        BodyTooLarge,
        NotJson,
        (status = 422, description = "`webhook_url_invalid`, `webhook_url_forbidden` (loopback, private, link-local... address), `webhook_url_unresolvable`, `webhook_events_invalid`, `too_many_webhooks`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[post("/v1/tournaments/{id}/webhooks")]
pub async fn register_tournament_webhook(
    svc: web::Data<Webhooks>,
    id: web::Path<String>,
    req: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    register(
        &svc,
        Owner::Tournament(id.into_inner()),
        &req,
        body.into_inner(),
    )
    .await
}

/// A tournament's webhooks.
///
/// Lists a tournament's registered webhooks with their URLs and events, never their secrets
/// (organiser token only).
#[utoipa::path(
    tag = "webhooks",
    params(("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$")),
    responses(
        (status = 200, description = "The webhooks, oldest first", body = WebhookList),
        OrganiserTokenMissing,
        OrganiserOnly,
        TournamentNotFound,
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[get("/v1/tournaments/{id}/webhooks")]
pub async fn list_tournament_webhooks(
    svc: web::Data<Webhooks>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<web::Json<WebhookList>, ApiError> {
    let token = bearer(&req)?;
    Ok(web::Json(
        svc.list(&Owner::Tournament(id.into_inner()), token.as_deref())
            .await?,
    ))
}

/// Delete a tournament webhook.
///
/// Deletes a tournament's webhook (organiser token only) and answers 204: nothing more is
/// delivered to it.
#[utoipa::path(
    tag = "webhooks",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        ("webhook_id" = String, Path, description = "The webhook id", pattern = "^[0-9a-f]{32}$"),
    ),
    responses(
        (status = 204, description = "Deleted"),
        OrganiserTokenMissing,
        OrganiserOnly,
        (status = 404, description = "`tournament_not_found` or `webhook_not_found`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[delete("/v1/tournaments/{id}/webhooks/{webhook_id}")]
pub async fn delete_tournament_webhook(
    svc: web::Data<Webhooks>,
    path: web::Path<(String, String)>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?;
    let (id, hook) = path.into_inner();
    svc.delete(&Owner::Tournament(id), token.as_deref(), &hook)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A tournament webhook's deliveries.
///
/// Lists a tournament webhook's delivery log, newest first and paged (organiser token only): each
/// delivery's state, attempts, last answer and body.
#[utoipa::path(
    tag = "webhooks",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        ("webhook_id" = String, Path, description = "The webhook id", pattern = "^[0-9a-f]{32}$"),
        DeliveryQuery,
    ),
    responses(
        (status = 200, description = "A page of deliveries", body = DeliveryPage),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        OrganiserTokenMissing,
        OrganiserOnly,
        (status = 404, description = "`tournament_not_found` or `webhook_not_found`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[get("/v1/tournaments/{id}/webhooks/{webhook_id}/deliveries")]
pub async fn tournament_webhook_deliveries(
    svc: web::Data<Webhooks>,
    path: web::Path<(String, String)>,
    q: web::Query<DeliveryQuery>,
    req: HttpRequest,
) -> Result<web::Json<DeliveryPage>, ApiError> {
    let token = bearer(&req)?;
    let (id, hook) = path.into_inner();
    let limit = limit(&q)?;
    Ok(web::Json(
        svc.deliveries(
            &Owner::Tournament(id),
            token.as_deref(),
            &hook,
            q.cursor.as_deref(),
            limit,
        )
        .await?,
    ))
}

/// Redeliver (tournament).
///
/// Queues a tournament webhook's delivery to be sent again now (organiser token only) and answers
/// the delivery as it then stands (202): the same id and body, so the receiver can deduplicate,
/// retried for another day.
#[utoipa::path(
    tag = "webhooks",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        ("webhook_id" = String, Path, description = "The webhook id", pattern = "^[0-9a-f]{32}$"),
        ("delivery_id" = String, Path, description = "The delivery id", pattern = "^[0-9a-f]{32}$"),
    ),
    responses(
        (status = 202, description = "Queued again: the delivery as it now stands", body = Delivery),
        OrganiserTokenMissing,
        OrganiserOnly,
        (status = 404, description = "`tournament_not_found`, `webhook_not_found` or `delivery_not_found`", body = Problem, content_type = "application/problem+json"),
        StorageUnavailableBrief,
    ),
    security(("bearer" = []))
)]
#[post("/v1/tournaments/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver")]
pub async fn redeliver_tournament_webhook(
    svc: web::Data<Webhooks>,
    path: web::Path<(String, String, String)>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let token = bearer(&req)?;
    let (id, hook, delivery) = path.into_inner();
    let d = svc
        .redeliver(&Owner::Tournament(id), token.as_deref(), &hook, &delivery)
        .await?;
    Ok(HttpResponse::Accepted().json(d))
}

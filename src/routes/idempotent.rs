//! `Idempotency-Key` on creates (`POST /v1/matches`, `/v1/players`, `/v1/tournaments`,
//! `/v1/tournaments/{id}/rounds`): the same contract as a write to a match (the request hash of
//! [`crate::matches::request_hash`]: the token's hash, the path and the body; a retry with the
//! same request replays the first answer verbatim with `Idempotent-Replayed: true`; the same key
//! with another request is 409 `idempotency_key_reused`), kept in `idempotent_creates` since a
//! create has no match whose events could hold it.
//!
//! **Scope.** A key belongs to its path (`/v1/players` and `/v1/matches` keys never meet) and is
//! answered only to the very same request: the same token (a round's organiser), the same body.
//! A create's answer may hold tokens (a match's host and seat tokens, a tournament's organiser
//! token), and a tokenless create has no credential to bind the key to: there the key itself is
//! the secret, so it must be at least [`TOKENLESS_MIN_KEY`] characters (a UUID), and whoever
//! does not know it cannot ask for the answer; guessing the body alone gets nothing.
//!
//! **Concurrency.** The key is claimed (a row inserted, the table's primary key deciding between
//! racers) before the create runs, and answered after: a retry that arrives while the first
//! request still runs waits for its answer (up to [`WAIT_FOR_FIRST`], then 409
//! `idempotency_key_in_flight`). A refused create (4xx, 5xx) releases its claim: nothing was
//! recorded and a retry is judged afresh. A claim left unanswered for [`STALE_CLAIM`] (its
//! server stopped mid-create) is taken over by the next retry.

use std::time::{Duration, Instant};

use actix_web::{http::StatusCode, HttpRequest, HttpResponse};
use serde_json::Value;

use super::idempotency_key;
use crate::{error::ApiError, matches::request_hash, store::Store};

/// The shortest key a tokenless create accepts (a UUID has 36 characters).
pub const TOKENLESS_MIN_KEY: usize = 16;

/// How long a retry waits for the first request's answer.
pub const WAIT_FOR_FIRST: Duration = Duration::from_secs(10);

/// How long a claim may stay unanswered before a retry takes it over.
pub const STALE_CLAIM: Duration = Duration::from_secs(60);

/// The answer of a create, before it is sent (and stored for a keyed one).
pub struct Created {
    status: StatusCode,
    headers: Vec<(String, String)>,
    body: String,
}

impl Created {
    /// 201 with `body` as JSON and a `Location`.
    pub fn new(location: String, body: &impl serde::Serialize) -> Result<Created, ApiError> {
        Ok(Created {
            status: StatusCode::CREATED,
            headers: vec![("Location".into(), location)],
            body: serde_json::to_string(body).map_err(|e| ApiError::internal(&e))?,
        })
    }

    /// With one more header.
    pub fn header(mut self, name: &str, value: String) -> Created {
        self.headers.push((name.into(), value));
        self
    }

    pub(crate) fn respond(&self, replayed: bool) -> HttpResponse {
        let mut r = HttpResponse::build(self.status);
        r.content_type("application/json");
        for (k, v) in &self.headers {
            r.insert_header((k.as_str(), v.as_str()));
        }
        if replayed {
            r.insert_header(("Idempotent-Replayed", "true"));
        }
        r.body(self.body.clone())
    }
}

/// Runs the create `make` once per `Idempotency-Key` (see the module documentation); without a
/// key, simply runs it. `token` is the request's credential, if any; `body` the request body as
/// parsed (`Value::Null` for none).
pub async fn create<F, Fut>(
    store: &Store,
    req: &HttpRequest,
    token: Option<&str>,
    body: &Value,
    make: F,
) -> Result<HttpResponse, ApiError>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Result<Created, ApiError>>,
{
    let Some(key) = idempotency_key(req)? else {
        return Ok(make().await?.respond(false));
    };
    if token.is_none() && key.len() < TOKENLESS_MIN_KEY {
        return Err(ApiError::bad_request(
            "invalid_idempotency_key",
            format!(
                "a create without a token takes an Idempotency-Key of at least \
                 {TOKENLESS_MIN_KEY} characters (a random UUID): the key alone guards its answer"
            ),
        ));
    }
    let scope = req.path();
    let hash = request_hash(token, scope, body);
    let waiting_since = Instant::now();
    loop {
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
        match store.create_key(scope, &key).await? {
            None => {
                if store.claim_create_key(scope, &key, &hash, &now).await? {
                    break;
                }
                continue;
            }
            Some(row) if row.request_hash != hash => {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "idempotency_key_reused",
                    format!(
                        "this Idempotency-Key was already used for a different request to \
                         POST {scope}"
                    ),
                ))
            }
            Some(row) => {
                if let (Some(status), Some(body)) = (row.response_status, row.response) {
                    let headers: Vec<(String, String)> = row
                        .response_headers
                        .as_deref()
                        .and_then(|h| serde_json::from_str(h).ok())
                        .unwrap_or_default();
                    let created = Created {
                        status: StatusCode::from_u16(status as u16).unwrap_or(StatusCode::CREATED),
                        headers,
                        body,
                    };
                    return Ok(created.respond(true));
                }
                let stale = chrono::DateTime::parse_from_rfc3339(&row.claimed_at)
                    .ok()
                    .and_then(|at| (chrono::Utc::now() - at.to_utc()).to_std().ok())
                    .is_some_and(|age| age >= STALE_CLAIM);
                if stale
                    && store
                        .take_over_create_key(scope, &key, &row.claimed_at, &now)
                        .await?
                {
                    break;
                }
                if waiting_since.elapsed() >= WAIT_FOR_FIRST {
                    let mut e = ApiError::new(
                        StatusCode::CONFLICT,
                        "idempotency_key_in_flight",
                        "a request with this Idempotency-Key is still being answered; retry \
                         in a moment to get its answer",
                    );
                    e.retry_after = Some(1);
                    return Err(e);
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
    match make().await {
        Ok(created) => {
            let headers = serde_json::to_string(&created.headers).unwrap_or_default();
            let stored = store
                .answer_create_key(
                    scope,
                    &key,
                    created.status.as_u16(),
                    &created.body,
                    &headers,
                )
                .await;
            if let Err(e) = stored {
                // The create is recorded; its answer is still the client's. A retry finds the
                // claim unanswered and, once stale, creates again: logged, not hidden.
                tracing::error!(error = %e, scope, "a create's idempotent answer could not be stored");
            }
            Ok(created.respond(false))
        }
        Err(err) => {
            if let Err(e) = store.release_create_key(scope, &key).await {
                tracing::warn!(error = %e, scope, "could not release a refused create's key");
            }
            Err(err)
        }
    }
}

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
//! **Atomicity.** The key and the answer to replay are written in the create's own transaction
//! (`store::idempotency`): the create is recorded with its key or not at all. A crash before
//! the commit leaves neither (a retry creates afresh); after it, both (a retry replays). A
//! refused create records no key.
//!
//! **Concurrency.** Two requests with the same key at once both run their create; the first to
//! commit records it, and the other finds the key taken inside its transaction (PostgreSQL
//! makes it wait there for the first's commit; SQLite has one writer), rolls back, and answers
//! the first's answer as a replay. A create refused because the first one changed the state
//! meanwhile (a round paired by it) is answered the same way, once the key is found recorded.

use std::sync::{atomic::Ordering, Arc};

use actix_web::{http::StatusCode, HttpRequest, HttpResponse};
use serde_json::Value;

use super::idempotency_key;
use crate::{
    error::ApiError,
    matches::request_hash,
    store::{
        idempotency::{CreateKeyRow, CreatedAnswer, KeyAnswer, KeyClaim, PENDING},
        Store,
    },
};

/// The shortest key a tokenless create accepts (a UUID has 36 characters).
pub const TOKENLESS_MIN_KEY: usize = 16;

/// The answer of a create, before it is sent (and stored for a keyed one).
pub struct Created {
    status: StatusCode,
    headers: Vec<(String, String)>,
    body: String,
}

impl Created {
    /// 201 with `body` as JSON and a `Location`.
    pub fn new(location: String, body: &impl serde::Serialize) -> Result<Created, ApiError> {
        Ok(Created::from(
            CreatedAnswer::new(location, body, &[]).map_err(|e| ApiError::internal(&e))?,
        ))
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

    fn answer(&self) -> CreatedAnswer {
        CreatedAnswer {
            status: self.status.as_u16(),
            headers: self.headers.clone(),
            body: self.body.clone(),
        }
    }

    /// The answer recorded for a key, replayed.
    fn recorded(row: CreateKeyRow) -> Option<Created> {
        let (Some(status), Some(body)) = (row.response_status, row.response) else {
            return None;
        };
        let headers: Vec<(String, String)> = row
            .response_headers
            .as_deref()
            .and_then(|h| serde_json::from_str(h).ok())
            .unwrap_or_default();
        Some(Created {
            status: StatusCode::from_u16(status as u16).unwrap_or(StatusCode::CREATED),
            headers,
            body,
        })
    }
}

impl From<CreatedAnswer> for Created {
    fn from(a: CreatedAnswer) -> Created {
        Created {
            status: StatusCode::from_u16(a.status).unwrap_or(StatusCode::CREATED),
            headers: a.headers,
            body: a.body,
        }
    }
}

/// How often a create whose key another request took meanwhile looks for that request's answer.
const READS_AFTER_TAKEN: usize = 3;

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
    let scope = req.path().to_string();
    let hash = request_hash(token, &scope, body);
    let reused = || {
        ApiError::new(
            StatusCode::CONFLICT,
            "idempotency_key_reused",
            format!(
                "this Idempotency-Key was already used for a different request to POST {scope}"
            ),
        )
    };
    // Answered already: replayed (or refused, for another request).
    let recorded = |row: Option<CreateKeyRow>| -> Result<Option<HttpResponse>, ApiError> {
        match row {
            Some(row) if row.request_hash != hash && row.response_status.is_some() => Err(reused()),
            Some(row) => Ok(Created::recorded(row).map(|c| c.respond(true))),
            None => Ok(None),
        }
    };
    if let Some(replay) = recorded(store.create_key(&scope, &key).await?)? {
        return Ok(replay);
    }
    let claim = KeyClaim {
        scope: scope.clone(),
        key: key.clone(),
        hash: hash.clone(),
        recorded: Arc::default(),
        taken: Arc::default(),
    };
    let outcome = PENDING.scope(claim.clone(), make()).await;
    match outcome {
        Ok(created) => {
            if !claim.recorded.load(Ordering::SeqCst) {
                // The create's transaction reported a fault, yet the create was found recorded:
                // its key goes in now, on its own (a crash just here would lose the key, not
                // the create).
                let late = KeyAnswer::new(&claim, &created.answer());
                match store.record_key_late(&late).await {
                    Ok(true) => {}
                    Ok(false) => {
                        if let Some(replay) = recorded(store.create_key(&scope, &key).await?)? {
                            return Ok(replay);
                        }
                    }
                    Err(e) => {
                        tracing::error!(error = %e, scope, "a create's idempotent answer could not be stored")
                    }
                }
            }
            Ok(created.respond(false))
        }
        Err(err) => {
            // Another request with this key may have committed first: its answer is ours (the
            // key was found taken in our transaction, or the state it changed refused ours).
            let tries = if claim.taken.load(Ordering::SeqCst) {
                READS_AFTER_TAKEN
            } else {
                1
            };
            for _ in 0..tries {
                if let Some(replay) = recorded(store.create_key(&scope, &key).await?)? {
                    return Ok(replay);
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            Err(err)
        }
    }
}

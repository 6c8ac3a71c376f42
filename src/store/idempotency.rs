//! The keys of idempotent creates (`idempotent_creates`): a create has no match to keep its
//! `Idempotency-Key` in, so the key and the answer to replay are kept here, written **in the
//! create's own transaction** (see `routes::idempotent`): a create is recorded with its key and
//! answer or not at all, so a crash can neither create twice nor leave a key for nothing.
//!
//! The key travels from the route to the create's transaction in a task-local ([`PENDING`]):
//! the route sets it around the create, the service turns its answer into a [`KeyAnswer`] with
//! [`keyed_answer`] before it writes, and the store writes it first in the transaction with
//! [`record_in`].

use std::sync::{
    atomic::{AtomicBool, Ordering},
    Arc,
};

use super::{Store, StoreError};

/// A claimed create key.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct CreateKeyRow {
    /// Hash of the request that claimed it.
    pub request_hash: String,
    /// Status of its answer (None only for a claim left by an older server version).
    pub response_status: Option<i64>,
    /// Body of its answer.
    pub response: Option<String>,
    /// Headers of its answer (JSON `[[name, value]...]`).
    pub response_headers: Option<String>,
    /// When it was claimed (RFC 3339).
    pub claimed_at: String,
}

/// The `Idempotency-Key` of the create this task is running (set by `routes::idempotent`).
#[derive(Clone, Debug)]
pub struct KeyClaim {
    /// The request path.
    pub scope: String,
    /// The key.
    pub key: String,
    /// The request's hash.
    pub hash: String,
    /// Set once the key and answer were written in the create's transaction.
    pub recorded: Arc<AtomicBool>,
    /// Set when the create's transaction found the key already recorded (another request with
    /// the same key committed first): the transaction was rolled back.
    pub taken: Arc<AtomicBool>,
}

tokio::task_local! {
    /// The key of the create being run by this task, if keyed.
    pub static PENDING: KeyClaim;
}

/// A create's key with the answer to replay, to be written in the create's transaction.
#[derive(Clone, Debug)]
pub struct KeyAnswer {
    claim: KeyClaim,
    status: u16,
    body: String,
    headers: String,
}

/// The answer of a create as it is sent and replayed: 201, `body` as JSON, a `Location` and
/// `extra` headers.
#[derive(Clone, Debug)]
pub struct CreatedAnswer {
    /// The status (201).
    pub status: u16,
    /// Headers: `Location` first.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: String,
}

impl CreatedAnswer {
    /// 201 with `body` serialized, `Location: location` and `extra`.
    pub fn new(
        location: String,
        body: &impl serde::Serialize,
        extra: &[(&str, String)],
    ) -> Result<CreatedAnswer, serde_json::Error> {
        let mut headers = vec![("Location".to_string(), location)];
        headers.extend(extra.iter().map(|(k, v)| (k.to_string(), v.clone())));
        Ok(CreatedAnswer {
            status: 201,
            headers,
            body: serde_json::to_string(body)?,
        })
    }
}

/// When this task runs a keyed create: the key with `answer` (the very answer the route will
/// send), for the create's transaction. None without a key.
pub fn keyed_answer(answer: &CreatedAnswer) -> Option<KeyAnswer> {
    PENDING.try_with(|claim| KeyAnswer::new(claim, answer)).ok()
}

impl KeyAnswer {
    /// `claim` with `answer`.
    pub fn new(claim: &KeyClaim, answer: &CreatedAnswer) -> KeyAnswer {
        KeyAnswer {
            claim: claim.clone(),
            status: answer.status,
            body: answer.body.clone(),
            headers: serde_json::to_string(&answer.headers).unwrap_or_default(),
        }
    }
}

/// Writes `answer`'s key on `conn`, inside the create's transaction (first, before the create's
/// rows: a concurrent create with the same key then waits here, on PostgreSQL, and finds it
/// taken). False when the key is already recorded with an answer (the caller rolls back); a
/// claim left unanswered by an older server version is taken over.
pub async fn record_in(
    conn: &mut sqlx::AnyConnection,
    answer: &KeyAnswer,
) -> Result<bool, sqlx::Error> {
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let done = sqlx::query(
        "INSERT INTO idempotent_creates \
         (scope, idem_key, request_hash, response_status, response, response_headers, claimed_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) \
         ON CONFLICT (scope, idem_key) DO UPDATE SET request_hash = excluded.request_hash, \
         response_status = excluded.response_status, response = excluded.response, \
         response_headers = excluded.response_headers, claimed_at = excluded.claimed_at \
         WHERE idempotent_creates.response_status IS NULL",
    )
    .bind(&answer.claim.scope)
    .bind(&answer.claim.key)
    .bind(&answer.claim.hash)
    .bind(i64::from(answer.status))
    .bind(&answer.body)
    .bind(&answer.headers)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() == 0 {
        answer.claim.taken.store(true, Ordering::SeqCst);
        return Ok(false);
    }
    Ok(true)
}

/// After the create's transaction committed: its key is recorded.
pub fn committed(answer: Option<&KeyAnswer>) {
    if let Some(a) = answer {
        a.claim.recorded.store(true, Ordering::SeqCst);
    }
}

impl Store {
    /// The key `key` of `scope`, if recorded.
    pub async fn create_key(
        &self,
        scope: &str,
        key: &str,
    ) -> Result<Option<CreateKeyRow>, StoreError> {
        // The writer's view: a key is read as soon as it is committed.
        let mut conn = self.writer.acquire().await?;
        Ok(sqlx::query_as(
            "SELECT request_hash, response_status, response, response_headers, claimed_at \
             FROM idempotent_creates WHERE scope = $1 AND idem_key = $2",
        )
        .bind(scope)
        .bind(key)
        .fetch_optional(&mut *conn)
        .await?)
    }

    /// Records `answer`'s key in a transaction of its own: only for a create whose own
    /// transaction could not (its commit reported a fault, yet the create was found recorded).
    /// False when the key was already recorded.
    pub async fn record_key_late(&self, answer: &KeyAnswer) -> Result<bool, StoreError> {
        let mut conn = self.writer.acquire().await?;
        match record_in(&mut conn, answer).await {
            Ok(done) => Ok(done),
            Err(e) => {
                super::discard(&mut conn, &e);
                Err(super::sent_write_error(e))
            }
        }
    }
}

//! The keys of idempotent creates (`idempotent_creates`): a create has no match to keep its
//! `Idempotency-Key` in, so the key is claimed here before the create runs and its answer stored
//! here once it has run (see `routes::idempotent`).

use super::{discard, sent_write_error, Store, StoreError};

/// A claimed create key.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct CreateKeyRow {
    /// Hash of the request that claimed it.
    pub request_hash: String,
    /// Status of its answer (None while the first request is being answered).
    pub response_status: Option<i64>,
    /// Body of its answer.
    pub response: Option<String>,
    /// Headers of its answer (JSON `[[name, value]...]`).
    pub response_headers: Option<String>,
    /// When it was claimed (RFC 3339).
    pub claimed_at: String,
}

impl Store {
    /// The key `key` of `scope`, if claimed.
    pub async fn create_key(
        &self,
        scope: &str,
        key: &str,
    ) -> Result<Option<CreateKeyRow>, StoreError> {
        // The writer's view: a claim or an answer is read as soon as it is committed.
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

    /// Claims `key` of `scope` for the request of hash `hash`; false if it was already claimed.
    pub async fn claim_create_key(
        &self,
        scope: &str,
        key: &str,
        hash: &str,
        now: &str,
    ) -> Result<bool, StoreError> {
        self.write_one(
            sqlx::query(
                "INSERT INTO idempotent_creates (scope, idem_key, request_hash, claimed_at) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            )
            .bind(scope)
            .bind(key)
            .bind(hash)
            .bind(now),
        )
        .await
    }

    /// Takes over a claim left unanswered since `claimed_at` (its request's server stopped
    /// before answering); false if another request took it over or answered it first.
    pub async fn take_over_create_key(
        &self,
        scope: &str,
        key: &str,
        claimed_at: &str,
        now: &str,
    ) -> Result<bool, StoreError> {
        self.write_one(
            sqlx::query(
                "UPDATE idempotent_creates SET claimed_at = $1 WHERE scope = $2 AND idem_key = $3 \
                 AND claimed_at = $4 AND response_status IS NULL",
            )
            .bind(now)
            .bind(scope)
            .bind(key)
            .bind(claimed_at),
        )
        .await
    }

    /// Stores the answer of the claimed `key` of `scope`.
    pub async fn answer_create_key(
        &self,
        scope: &str,
        key: &str,
        status: u16,
        body: &str,
        headers: &str,
    ) -> Result<(), StoreError> {
        self.write_one(
            sqlx::query(
                "UPDATE idempotent_creates SET response_status = $1, response = $2, \
                 response_headers = $3 WHERE scope = $4 AND idem_key = $5",
            )
            .bind(i64::from(status))
            .bind(body)
            .bind(headers)
            .bind(scope)
            .bind(key),
        )
        .await
        .map(drop)
    }

    /// Gives up the unanswered claim of `key` of `scope` (its create was refused: nothing was
    /// recorded, and a retry is judged afresh).
    pub async fn release_create_key(&self, scope: &str, key: &str) -> Result<(), StoreError> {
        self.write_one(
            sqlx::query(
                "DELETE FROM idempotent_creates WHERE scope = $1 AND idem_key = $2 \
                 AND response_status IS NULL",
            )
            .bind(scope)
            .bind(key),
        )
        .await
        .map(drop)
    }

    /// One statement on the writer: whether it changed a row.
    async fn write_one<'q>(
        &self,
        query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
    ) -> Result<bool, StoreError> {
        let mut conn = self.writer.acquire().await?;
        match query.execute(&mut *conn).await {
            Ok(done) => Ok(done.rows_affected() > 0),
            Err(e) => {
                discard(&mut conn, &e);
                Err(sent_write_error(e))
            }
        }
    }
}

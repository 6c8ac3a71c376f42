//! Live updates: every committed write is announced to the streams that follow its match
//! (`GET /v1/matches/{id}/stream`).
//!
//! In one process a `tokio::sync::broadcast` channel carries `(match id, seq)` after each commit.
//! Across instances on PostgreSQL, the writer also sends `NOTIFY clubroom_events, '<id> <seq>'`
//! after its commit and every instance `LISTEN`s on the same database and re-broadcasts what it
//! hears. An announcement only says "match `id` reached `seq`": a stream always reads the events
//! themselves from the log, as its viewer may see them, so a lost or doubled announcement costs a
//! delay or a query, never a wrong or doubled event. On SQLite a second process on the same file
//! is noticed by the streams' short poll of the match's version.

use std::{sync::OnceLock, time::Duration};

use sqlx::{
    postgres::{PgListener, PgPoolOptions},
    PgPool,
};
use tokio::sync::broadcast;

/// The PostgreSQL channel the instances announce writes on.
pub const CHANNEL: &str = "clubroom_events";
/// Announcements a slow stream may fall behind by before it is told it lagged (it then catches
/// up from the log: nothing is lost).
const CAPACITY: usize = 1024;

/// "Match `match_id` is now at version `seq`."
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The match id.
    pub match_id: String,
    /// Its version after the write.
    pub seq: i64,
}

/// The fan-out of one instance.
pub struct Hub {
    tx: broadcast::Sender<Change>,
    notify: OnceLock<PgPool>,
}

impl Default for Hub {
    fn default() -> Self {
        Hub::new()
    }
}

impl Hub {
    /// A hub for this process only (no cross-instance announcements yet).
    pub fn new() -> Hub {
        Hub {
            tx: broadcast::channel(CAPACITY).0,
            notify: OnceLock::new(),
        }
    }

    /// Follows the announcements of every match (filter by id).
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.tx.subscribe()
    }

    /// Whether announcements reach other instances (PostgreSQL `LISTEN/NOTIFY`).
    pub fn is_shared(&self) -> bool {
        self.notify.get().is_some()
    }

    /// Announces a committed write: to this process's streams at once, and to the other instances
    /// by `NOTIFY` (sent in the background; the write has already committed).
    pub fn published(&self, match_id: &str, seq: i64) {
        let _ = self.tx.send(Change {
            match_id: match_id.to_string(),
            seq,
        });
        if let Some(pool) = self.notify.get() {
            let pool = pool.clone();
            let payload = format!("{match_id} {seq}");
            tokio::spawn(async move {
                if let Err(e) = sqlx::query("SELECT pg_notify($1, $2)")
                    .bind(CHANNEL)
                    .bind(&payload)
                    .execute(&pool)
                    .await
                {
                    tracing::warn!(error = %e, "NOTIFY failed; other instances' streams will catch up by their poll");
                }
            });
        }
    }

    /// Joins the other instances on the PostgreSQL database at `url`: announces this instance's
    /// writes there and re-broadcasts theirs (and its own, harmlessly) here. The listener
    /// reconnects by itself after a lost connection.
    pub fn share_over_postgres(&self, url: &str) -> Result<(), sqlx::Error> {
        let pool = PgPoolOptions::new()
            .max_connections(2)
            .acquire_timeout(Duration::from_secs(10))
            .connect_lazy(url)?;
        if self.notify.set(pool).is_err() {
            return Ok(()); // already shared
        }
        let tx = self.tx.clone();
        let url = url.to_string();
        tokio::spawn(async move {
            loop {
                if let Err(e) = listen(&url, &tx).await {
                    tracing::warn!(error = %e, "LISTEN {CHANNEL} failed; retrying in 1 s");
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
        Ok(())
    }
}

async fn listen(url: &str, tx: &broadcast::Sender<Change>) -> Result<(), sqlx::Error> {
    let mut listener = PgListener::connect(url).await?;
    listener.listen(CHANNEL).await?;
    loop {
        let n = listener.recv().await?;
        if let Some((id, seq)) = n.payload().split_once(' ') {
            if let Ok(seq) = seq.parse() {
                let _ = tx.send(Change {
                    match_id: id.to_string(),
                    seq,
                });
            }
        }
    }
}

//! Live updates: every committed write is announced to the streams that follow its match
//! (`GET /v1/matches/{id}/stream`).
//!
//! In one process a `tokio::sync::broadcast` channel carries `(match id, seq)` after each commit.
//! Across instances on PostgreSQL, the statement that inserts a batch of events also notifies
//! `clubroom_events` with `<id> <seq>` per event, comma-separated (see
//! [`crate::store::ANNOUNCE_CHANNEL`]): the notification is delivered when, and only when, the
//! batch commits, and it costs no transaction of its own. Every instance `LISTEN`s on the same
//! database and re-broadcasts what it hears. An announcement only says "match `id` reached
//! `seq`": a stream always reads the events themselves from the log, as its viewer may see them,
//! so a lost or doubled announcement costs a delay or a query, never a wrong or doubled event. On SQLite a second process on the same file
//! is noticed by the streams' short poll of the match's version.

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::Duration,
};

use sqlx::postgres::PgListener;
use tokio::sync::broadcast;

use crate::store::ANNOUNCE_CHANNEL as CHANNEL;
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
    shared: AtomicBool,
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
            shared: AtomicBool::new(false),
        }
    }

    /// Follows the announcements of every match (filter by id).
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.tx.subscribe()
    }

    /// Whether announcements reach other instances (PostgreSQL `LISTEN/NOTIFY`).
    pub fn is_shared(&self) -> bool {
        self.shared.load(Ordering::Relaxed)
    }

    /// Announces a committed write to this process's streams. The other instances hear of it
    /// from the database (see the module documentation).
    pub fn published(&self, match_id: &str, seq: i64) {
        let _ = self.tx.send(Change {
            match_id: match_id.to_string(),
            seq,
        });
    }

    /// Joins the other instances on the PostgreSQL database at `url`: re-broadcasts here the
    /// writes every instance announces there (this one's too, harmlessly). The listener
    /// reconnects by itself after a lost connection.
    pub fn share_over_postgres(&self, url: &str) {
        if self.shared.swap(true, Ordering::Relaxed) {
            return; // already shared
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
    }
}

async fn listen(url: &str, tx: &broadcast::Sender<Change>) -> Result<(), sqlx::Error> {
    let mut listener = PgListener::connect(url).await?;
    listener.listen(CHANNEL).await?;
    loop {
        let n = listener.recv().await?;
        for change in parse_announcement(n.payload()) {
            let _ = tx.send(change);
        }
    }
}

/// The changes one notification announces: `<id> <seq>` entries separated by commas (anything
/// malformed is skipped: an announcement is only a hint, see the module documentation).
fn parse_announcement(payload: &str) -> impl Iterator<Item = Change> + '_ {
    payload.split(',').filter_map(|entry| {
        let (id, seq) = entry.split_once(' ')?;
        Some(Change {
            match_id: id.to_string(),
            seq: seq.parse().ok()?,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_announcement_lists_each_match_and_seq_and_skips_what_is_malformed() {
        let got: Vec<Change> = parse_announcement("aa 3,bb 12,cc,dd x, 4,ee 7").collect::<Vec<_>>();
        let want = [("aa", 3), ("bb", 12), ("", 4), ("ee", 7)].map(|(id, seq)| Change {
            match_id: id.to_string(),
            seq,
        });
        assert_eq!(got, want);
        assert_eq!(parse_announcement("").count(), 0);
    }
}

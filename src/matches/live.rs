//! Live updates: every committed write is announced to the streams that follow its match
//! (`GET /v1/matches/{id}/stream`).
//!
//! A match followed by at least one stream has a room: a `tokio::sync::watch` channel holding the
//! highest seq announced for it. A write wakes the streams of its own match and no others; a match
//! nobody follows has no room and an announcement for it costs a map lookup. An idle stream waits
//! on its room and costs no CPU: nothing polls.
//!
//! Across instances on PostgreSQL, the statement that inserts a batch of events also notifies
//! `clubroom_events` with `<id> <seq>` per event, comma-separated (see
//! [`crate::store::ANNOUNCE_CHANNEL`]): the notification is delivered when, and only when, the
//! batch commits, and it costs no transaction of its own. Every instance `LISTEN`s on the same
//! database and announces what it hears to its rooms. Notifications sent while the listener was
//! disconnected are lost, so after every (re)connection the listener reads the version of each
//! followed match once, one query per room, and announces it.
//!
//! On SQLite one process is the supported deployment: a second process writing the same file is
//! heard by no one here, and this process's streams learn of its writes only with the next write
//! made here. (Correctness is not at stake, the `(match_id, seq)` key still decides every race;
//! only live streams would lag. Scale out on PostgreSQL.)
//!
//! An announcement only says "match `id` reached `seq`": a stream always reads the events
//! themselves from the log, as its viewer may see them, so a lost or doubled announcement costs a
//! delay or a query, never a wrong or doubled event.

use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use sqlx::postgres::PgListener;
use tokio::sync::watch;

use crate::store::{Store, ANNOUNCE_CHANNEL as CHANNEL};

/// "Match `match_id` is now at version `seq`."
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The match id.
    pub match_id: String,
    /// Its version after the write.
    pub seq: i64,
}

type Rooms = Arc<Mutex<HashMap<String, watch::Sender<i64>>>>;

/// The fan-out of one instance.
#[derive(Default)]
pub struct Hub {
    rooms: Rooms,
    shared: AtomicBool,
}

/// A stream's place in its match's room: [`Room::changed`] resolves when a write is announced.
/// Leaving (drop) closes the room when it was the last one in it.
pub struct Room {
    rooms: Rooms,
    match_id: String,
    rx: Option<watch::Receiver<i64>>,
}

impl Room {
    /// The highest seq announced since the room opened (0: none yet).
    pub fn seq(&self) -> i64 {
        *self.rx.as_ref().expect("present until drop").borrow()
    }

    /// Waits for an announcement not yet seen and returns the highest seq announced.
    pub async fn changed(&mut self) -> i64 {
        let rx = self.rx.as_mut().expect("present until drop");
        // The sender lives in the map for as long as a receiver does: `changed` cannot fail.
        if rx.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
        *rx.borrow_and_update()
    }
}

impl Drop for Room {
    fn drop(&mut self) {
        let mut rooms = self.rooms.lock().unwrap_or_else(|p| p.into_inner());
        drop(self.rx.take());
        if rooms
            .get(&self.match_id)
            .is_some_and(|tx| tx.receiver_count() == 0)
        {
            rooms.remove(&self.match_id);
        }
    }
}

impl Hub {
    /// A hub for this process only (no cross-instance announcements yet).
    pub fn new() -> Hub {
        Hub::default()
    }

    /// Enters the room of `match_id`: its later announcements wake the returned [`Room`].
    pub fn watch(&self, match_id: &str) -> Room {
        let mut rooms = self.rooms.lock().unwrap_or_else(|p| p.into_inner());
        let rx = rooms
            .entry(match_id.to_string())
            .or_insert_with(|| watch::channel(0).0)
            .subscribe();
        Room {
            rooms: self.rooms.clone(),
            match_id: match_id.to_string(),
            rx: Some(rx),
        }
    }

    /// Matches followed now (rooms open).
    pub fn rooms(&self) -> usize {
        self.rooms.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether announcements reach other instances (PostgreSQL `LISTEN/NOTIFY`).
    pub fn is_shared(&self) -> bool {
        self.shared.load(Ordering::Relaxed)
    }

    /// Announces a committed write to this process's streams. The other instances hear of it
    /// from the database (see the module documentation).
    pub fn published(&self, match_id: &str, seq: i64) {
        announce(&self.rooms, match_id, seq);
    }

    /// Joins the other instances on the PostgreSQL database at `url`: announces here the writes
    /// every instance announces there (this one's too, harmlessly). The listener reconnects by
    /// itself after a lost connection, then reads from `store` what it may have missed.
    pub fn share_over_postgres(&self, url: &str, store: Store) {
        if self.shared.swap(true, Ordering::Relaxed) {
            return; // already shared
        }
        let rooms = self.rooms.clone();
        let url = url.to_string();
        tokio::spawn(async move {
            loop {
                if let Err(e) = listen(&url, &rooms, &store).await {
                    tracing::warn!(error = %e, "LISTEN {CHANNEL} failed; retrying in 1 s");
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
    }
}

/// Raises the room of `match_id` to `seq` (if anyone follows it and `seq` is news).
fn announce(rooms: &Mutex<HashMap<String, watch::Sender<i64>>>, match_id: &str, seq: i64) {
    let rooms = rooms.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(tx) = rooms.get(match_id) {
        tx.send_if_modified(|v| {
            let news = seq > *v;
            if news {
                *v = seq;
            }
            news
        });
    }
}

async fn listen(url: &str, rooms: &Rooms, store: &Store) -> Result<(), sqlx::Error> {
    let mut listener = PgListener::connect(url).await?;
    listener.listen(CHANNEL).await?;
    // Listening from here on: what was announced before is read from the database. `try_recv`
    // answers `None` once the connection was lost and is listening again (unlike `recv`, which
    // reconnects silently): what was announced meanwhile is read again.
    loop {
        catch_up(rooms, store).await;
        while let Some(n) = listener.try_recv().await? {
            for change in parse_announcement(n.payload()) {
                announce(rooms, &change.match_id, change.seq);
            }
        }
        tracing::warn!("LISTEN {CHANNEL}: connection lost; reconnecting");
    }
}

/// Announces the version of every followed match, read from the database (after the listener was
/// deaf for a while).
async fn catch_up(rooms: &Rooms, store: &Store) {
    let ids: Vec<String> = rooms
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .keys()
        .cloned()
        .collect();
    for id in ids {
        match store.version(&id).await {
            Ok(seq) => announce(rooms, &id, seq),
            Err(e) => tracing::warn!(error = %e, "reading a followed match's version failed"),
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

    #[tokio::test]
    async fn a_write_wakes_its_own_match_only_and_the_last_to_leave_closes_the_room() {
        let hub = Hub::new();
        let mut a1 = hub.watch("a");
        let mut a2 = hub.watch("a");
        let mut b = hub.watch("b");
        assert_eq!(hub.rooms(), 2);
        hub.published("a", 3);
        hub.published("a", 2); // late and older: no news
        hub.published("zz", 9); // nobody follows zz: no room made
        assert_eq!(hub.rooms(), 2);
        assert_eq!(a1.changed().await, 3);
        assert_eq!(a2.changed().await, 3);
        let quiet = tokio::time::timeout(Duration::from_millis(50), b.changed()).await;
        assert!(quiet.is_err(), "b heard a write of a");
        let quiet = tokio::time::timeout(Duration::from_millis(50), a1.changed()).await;
        assert!(quiet.is_err(), "an older seq woke a");
        drop(a1);
        assert_eq!(hub.rooms(), 2);
        drop(a2);
        assert_eq!(hub.rooms(), 1);
        drop(b);
        assert_eq!(hub.rooms(), 0);
    }
}

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
//! An announcement only says "match `id` reached `seq`": a stream always takes the events
//! themselves from the log, as its viewer may see them, so a lost or doubled announcement costs a
//! delay or a query, never a wrong or doubled event.
//!
//! The log's tail is kept in memory, per room: the last [`TAIL_LEN`] events of a followed match,
//! put there by this instance's write path as it commits them ([`Hub::recorded`]), and read from
//! the database once per room when the tail does not hold what a stream needs (a write made on
//! another instance, heard through `LISTEN`; a stream resuming from further back). A room's
//! streams then render their frames from the tail and the cached match ([`Matches::live_frame`]):
//! no query per stream, and none at all per viewer after a write made here.

use std::{
    collections::{HashMap, VecDeque},
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use sqlx::postgres::PgListener;
use tokio::sync::watch;

use super::{
    views::{EventView, MatchView},
    MatchError, Matches,
};
use crate::store::{EventRow, FeedRow, Store, ANNOUNCE_CHANNEL as CHANNEL};

/// How many of a followed match's last events its room keeps in memory.
pub const TAIL_LEN: usize = 256;

/// "Match `match_id` is now at version `seq`."
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The match id.
    pub match_id: String,
    /// Its version after the write.
    pub seq: i64,
}

/// A row of a log kept in a room's tail: a match's event, or a tournament feed's.
pub trait Logged: Clone {
    /// Its seq in its log (consecutive: 1, 2, 3...).
    fn seq(&self) -> i64;
}

impl Logged for EventRow {
    fn seq(&self) -> i64 {
        self.seq
    }
}

impl Logged for FeedRow {
    fn seq(&self) -> i64 {
        self.seq
    }
}

/// The last [`TAIL_LEN`] rows of a log, consecutive seqs, oldest first.
pub struct Tail<R>(Mutex<VecDeque<R>>);

impl<R> Default for Tail<R> {
    fn default() -> Self {
        Tail(Mutex::new(VecDeque::new()))
    }
}

impl<R: Logged> Tail<R> {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<R>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The rows with seq in `after + 1 ..= to` (at most `limit`), if the tail holds them all.
    fn rows(&self, after: i64, to: i64, limit: usize) -> Option<Vec<R>> {
        slice(&self.lock(), after, to, limit)
    }

    /// The rows after `after` up to the end of the tail or to `to`, whichever is later (at most
    /// `limit`), and that end, if the tail holds them all.
    fn page(&self, after: i64, to: i64, limit: usize) -> Option<(Vec<R>, i64)> {
        let tail = self.lock();
        let end = tail.back().map_or(to, |b| b.seq().max(to));
        slice(&tail, after, end, limit).map(|rows| (rows, end))
    }

    /// Adds rows read or written (oldest first) to the tail, keeping its seqs consecutive: rows
    /// that do not follow on from it replace it.
    fn extend(&self, rows: impl IntoIterator<Item = R>) {
        let mut tail = self.lock();
        for row in rows {
            match tail.back().map(Logged::seq) {
                Some(last) if row.seq() <= last => {
                    // Already held (read twice), or older than the tail: only a run that
                    // reaches up to the tail's start could join it; keep the tail as it is.
                    continue;
                }
                Some(last) if row.seq() != last + 1 => tail.clear(),
                _ => {}
            }
            tail.push_back(row);
            if tail.len() > TAIL_LEN {
                tail.pop_front();
            }
        }
    }
}

/// The rows of `tail` with seq in `after + 1 ..= to` (at most `limit`), if it holds them all.
fn slice<R: Logged>(tail: &VecDeque<R>, after: i64, to: i64, limit: usize) -> Option<Vec<R>> {
    if to <= after {
        return Some(vec![]);
    }
    let first = tail.front()?.seq();
    let last = tail.back()?.seq();
    if after + 1 < first || to > last {
        return None;
    }
    let start = usize::try_from(after + 1 - first).ok()?;
    let count = usize::try_from(to - after).ok()?.min(limit);
    Some(tail.iter().skip(start).take(count).cloned().collect())
}

/// What one followed match's (or tournament feed's) streams share: the highest seq announced,
/// and the log's tail.
pub struct RoomState {
    tx: watch::Sender<i64>,
    /// A match's last events (empty in a feed's room).
    tail: Tail<EventRow>,
    /// A tournament feed's last events (empty in a match's room).
    feed: Tail<FeedRow>,
    /// Held while the tail is read from the database: one reading per room at a time.
    reading: tokio::sync::Mutex<()>,
}

impl RoomState {
    fn new() -> RoomState {
        RoomState {
            tx: watch::channel(0).0,
            tail: Tail::default(),
            feed: Tail::default(),
            reading: tokio::sync::Mutex::new(()),
        }
    }
}

type Rooms = Arc<Mutex<HashMap<String, Arc<RoomState>>>>;

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
    state: Arc<RoomState>,
    rx: Option<watch::Receiver<i64>>,
}

impl Room {
    /// The match followed.
    pub fn match_id(&self) -> &str {
        &self.match_id
    }

    /// The highest seq announced since the room opened (0: none yet).
    pub fn seq(&self) -> i64 {
        *self.rx.as_ref().expect("present until drop").borrow()
    }

    /// A tournament feed's rows after `after` from this room's tail, up to the tail's end or
    /// `to`, whichever is later (at most `limit`), and that end; None when the tail does not
    /// hold them all (they are then read from the database, and kept: [`Room::keep_feed`]).
    pub fn feed_page(&self, after: i64, to: i64, limit: usize) -> Option<(Vec<FeedRow>, i64)> {
        self.state.feed.page(after, to, limit)
    }

    /// Keeps a feed's rows read from the database (oldest first) in this room's tail.
    pub fn keep_feed(&self, rows: impl IntoIterator<Item = FeedRow>) {
        self.state.feed.extend(rows);
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
            .is_some_and(|r| r.tx.receiver_count() == 0)
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
        let state = rooms
            .entry(match_id.to_string())
            .or_insert_with(|| Arc::new(RoomState::new()))
            .clone();
        Room {
            rooms: self.rooms.clone(),
            match_id: match_id.to_string(),
            rx: Some(state.tx.subscribe()),
            state,
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

    /// Keeps event `row`, committed by this instance's write path, in its room's tail (if anyone
    /// follows its match): its streams render it from memory. The returned [`Announcement`]
    /// wakes them; the write path sends it once it has released the match's lock (see there).
    #[must_use = "the event's streams hear of it only when the announcement is sent"]
    pub fn recorded(&self, row: &EventRow) -> Announcement {
        let room = room_of(&self.rooms, &row.match_id);
        Announcement(room.map(|room| {
            room.tail.extend([EventRow {
                // The idempotent answer stays out of memory: no stream shows it.
                idem_key: None,
                request_hash: None,
                response_status: None,
                response: None,
                ..row.clone()
            }]);
            (room, row.seq)
        }))
    }

    /// What the store calls after committing tournament feed events: wakes the streams of that
    /// tournament (its room is keyed [`crate::store::feed_key`]) and no others.
    ///
    /// The rows committed are kept in the room's tail first: the streams render them from
    /// memory, the first one to wake at once, and the others share its rendering without
    /// waiting (a reading from the database would make them wait, and wake them twice).
    pub fn feed_hook(&self) -> crate::store::FeedHookFn {
        let rooms = self.rooms.clone();
        Arc::new(move |tournament_id: &str, rows: &[FeedRow]| {
            let Some(seq) = rows.last().map(Logged::seq) else {
                return;
            };
            let room = room_of(&rooms, &crate::store::feed_key(tournament_id));
            Announcement(room.map(|room| {
                room.feed.extend(rows.iter().cloned());
                (room, seq)
            }))
            .send_soon();
        })
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

/// A committed event kept in its room's tail ([`Hub::recorded`]), announced to the room's
/// streams when sent (or dropped: an event is never left unannounced).
pub struct Announcement(Option<(Arc<RoomState>, i64)>);

impl Announcement {
    /// Wakes the streams of the event's match.
    pub fn send(self) {
        drop(self);
    }

    /// Wakes them from a task of its own, run once the caller's task yields (its answer goes out
    /// first); nothing is spawned for a match nobody follows.
    pub fn send_soon(self) {
        if self.0.is_some() {
            tokio::spawn(async move { self.send() });
        }
    }
}

impl Drop for Announcement {
    fn drop(&mut self) {
        if let Some((room, seq)) = self.0.take() {
            announce_to(&room, seq);
        }
    }
}

/// The room of `key` (a match id, or a feed's key), if anyone follows it.
fn room_of(rooms: &Rooms, key: &str) -> Option<Arc<RoomState>> {
    rooms
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(key)
        .cloned()
}

/// Raises the room of `match_id` to `seq` (if anyone follows it and `seq` is news).
fn announce(rooms: &Rooms, match_id: &str, seq: i64) {
    if let Some(room) = room_of(rooms, match_id) {
        announce_to(&room, seq);
    }
}

fn announce_to(room: &RoomState, seq: i64) {
    room.tx.send_if_modified(|v| {
        let news = seq > *v;
        if news {
            *v = seq;
        }
        news
    });
}

/// What takes one viewer of a match from a seq to a later one: the events after it (a page at
/// most) and, when they reach the match's version, the view there.
pub struct Frame {
    /// The seq the frame starts after.
    pub from: i64,
    /// The seq the client holds every event up to once it has the frame.
    pub to: i64,
    /// The events, as the viewer may see them.
    pub events: Vec<EventView>,
    /// The view at `to` (None: more events to come before it).
    pub view: Option<MatchView>,
}

impl Matches {
    /// The frame of `room`'s match for the bearer of `token` from seq `after`, at least to
    /// `wanted` (a seq announced): the events from the room's tail (read from the database
    /// once per room when it does not hold them), rendered on the cached match. The database is
    /// asked for the match's version only when the cache is behind `wanted` (another instance
    /// wrote). Refused as the match's reads are (a bad token, a duplicate table in play).
    pub async fn live_frame(
        &self,
        room: &Room,
        token: Option<&str>,
        after: i64,
        wanted: i64,
        page: usize,
    ) -> Result<Frame, MatchError> {
        let id = room.match_id();
        let entry = self.entry(id).await?;
        let mut e = entry.lock_owned().await;
        if e.seq < wanted && self.store.version(id).await? != e.seq {
            self.refresh(&mut e).await?;
        }
        let role = self.reader(&mut e, token).await?;
        // Its own table's tokens see the seeds once the round publishes its secret.
        self.round_published(&mut e).await?;
        let to = e.seq;
        let rows = match room.state.tail.rows(after, to, page) {
            Some(rows) => rows,
            None => {
                let _reading = room.state.reading.lock().await;
                match room.state.tail.rows(after, to, page) {
                    Some(rows) => rows, // another stream of the room read them meanwhile
                    None => {
                        let limit = i64::try_from(page).unwrap_or(i64::MAX);
                        let mut rows = self.store.events_after(id, after, limit).await?;
                        rows.retain(|r| r.seq <= to);
                        room.state.tail.extend(rows.iter().cloned());
                        rows
                    }
                }
            }
        };
        let fouls = e.shown_fouls();
        let events: Vec<EventView> = rows.iter().map(|r| e.event_view(r, role, &fouls)).collect();
        let reached = events.last().map_or(after, |ev| ev.seq);
        let view = (reached >= to).then(|| e.view(&e.game, e.seq, &e.updated_at, role));
        Ok(Frame {
            from: after,
            to: reached.max(after),
            events,
            view,
        })
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
        // A tournament's feed (`t:<id>`, see `crate::store::feed_key`): its last seq.
        if let Some(t) = id.strip_prefix("t:") {
            match store.feed_version(t).await {
                Ok(seq) => announce(rooms, &id, seq.unwrap_or(0)),
                Err(e) => tracing::warn!(error = %e, "reading a followed feed's version failed"),
            }
            continue;
        }
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

    fn row(seq: i64) -> EventRow {
        EventRow {
            match_id: "a".into(),
            seq,
            ..EventRow::default()
        }
    }

    fn seqs(rows: Option<Vec<EventRow>>) -> Option<Vec<i64>> {
        rows.map(|r| r.iter().map(|r| r.seq).collect())
    }

    #[test]
    fn the_tail_answers_only_what_it_holds_whole_and_stays_consecutive() {
        let room = Tail::default();
        assert_eq!(seqs(room.rows(0, 0, 10)), Some(vec![]));
        assert_eq!(seqs(room.rows(0, 1, 10)), None); // empty: nothing held
        room.extend((3..=5).map(row));
        assert_eq!(seqs(room.rows(2, 5, 10)), Some(vec![3, 4, 5]));
        assert_eq!(seqs(room.rows(3, 4, 10)), Some(vec![4]));
        assert_eq!(seqs(room.rows(2, 5, 2)), Some(vec![3, 4])); // a page
        assert_eq!(seqs(room.rows(1, 5, 10)), None); // seq 2 is not held
        assert_eq!(seqs(room.rows(4, 6, 10)), None); // seq 6 is not held
        room.extend([row(4), row(5), row(6)]); // read twice: kept once
        assert_eq!(seqs(room.rows(2, 6, 10)), Some(vec![3, 4, 5, 6]));
        room.extend([row(9)]); // a gap: the tail starts again
        assert_eq!(seqs(room.rows(8, 9, 10)), Some(vec![9]));
        assert_eq!(seqs(room.rows(5, 9, 10)), None);
        room.extend((10..10 + TAIL_LEN as i64).map(row));
        assert_eq!(room.lock().len(), TAIL_LEN);
        assert_eq!(room.lock().front().unwrap().seq, 10);
    }

    /// The write path keeps an event in its room's tail while it holds the match's lock, and
    /// announces it after: kept is not yet announced; sent (or dropped) is.
    #[test]
    fn a_recorded_event_is_kept_at_once_and_announced_when_sent_or_dropped() {
        let hub = Hub::new();
        let room = hub.watch("a");
        let kept = hub.recorded(&row(1));
        assert_eq!(seqs(room.state.tail.rows(0, 1, 10)), Some(vec![1]));
        assert_eq!(room.seq(), 0, "announced before it was sent");
        kept.send();
        assert_eq!(room.seq(), 1);
        drop(hub.recorded(&row(2)));
        assert_eq!(room.seq(), 2, "a dropped announcement is sent");
        assert_eq!(seqs(room.state.tail.rows(0, 2, 10)), Some(vec![1, 2]));
        // Nobody follows b: nothing kept, nothing to announce.
        let none = hub.recorded(&EventRow {
            match_id: "b".into(),
            seq: 1,
            ..EventRow::default()
        });
        assert!(none.0.is_none());
        assert_eq!(hub.rooms(), 1);
    }

    /// A tournament feed's committed rows are kept in its room's tail before its streams hear
    /// of them: a stream woken renders them from memory, without a query (that would make the
    /// other streams sharing its rendering wait, and wake them twice).
    #[tokio::test]
    async fn a_feed_write_is_kept_in_its_room_before_it_is_announced() {
        let hub = Hub::new();
        let hook = hub.feed_hook();
        let mut room = hub.watch(&crate::store::feed_key("x"));
        let feed_row = |seq: i64| FeedRow {
            seq,
            kind: "deal.scored".into(),
            data: format!("{{\"line\":{seq}}}"),
            created_at: "2026-11-30T05:00:00.000Z".into(),
        };
        let page = |room: &Room, after, to, limit| {
            room.feed_page(after, to, limit)
                .map(|(rows, end)| (rows.iter().map(|r| r.seq).collect::<Vec<_>>(), end))
        };
        hook("x", &[feed_row(1), feed_row(2)]);
        hook("y", &[feed_row(1)]); // nobody follows y: no room made
        hook("x", &[]); // nothing appended: nothing announced
        assert_eq!(room.changed().await, 2);
        assert_eq!(page(&room, 0, 2, 10), Some((vec![1, 2], 2)));
        let (rows, _) = room.feed_page(1, 2, 10).unwrap();
        assert_eq!(
            (rows[0].kind.as_str(), rows[0].data.as_str()),
            ("deal.scored", "{\"line\":2}")
        );
        assert_eq!(page(&room, 0, 2, 1), Some((vec![1], 2))); // a page: more to come
        assert_eq!(page(&room, 2, 2, 10), Some((vec![], 2))); // up to date
        hook("x", &[feed_row(3)]);
        assert_eq!(room.changed().await, 3);
        // From the tail to its end, even past what the stream was told of.
        assert_eq!(page(&room, 0, 1, 10), Some((vec![1, 2, 3], 3)));
        // Heard of but not held (another instance's write): read from the database.
        hub.published(&crate::store::feed_key("x"), 4);
        assert_eq!(room.changed().await, 4);
        assert_eq!(page(&room, 3, 4, 10), None);
        // Read from the database and kept, then written here: the tail goes on.
        room.keep_feed([feed_row(4)]);
        hook("x", &[feed_row(5)]);
        assert_eq!(room.changed().await, 5);
        assert_eq!(page(&room, 2, 5, 10), Some((vec![3, 4, 5], 5)));
        assert_eq!(hub.rooms(), 1);
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

//! Storage of the tournament-wide feed (issue 23, part 3): `tournament_events`.
//!
//! Every feed event is written by [`append_in`] on the connection, and inside the transaction, of
//! the change that causes it (a paired round, an entered result, a table's match write in the
//! group commit), so a change is recorded with its events or not at all, and the feed survives
//! restarts and reads the same from every instance on one database.
//!
//! Seqs are per tournament, 1, 2, 3...: the next one is taken by raising `tournaments.feed_seq`,
//! which locks the tournament's row until the change commits ([`lock_in`] takes that lock first
//! thing, before anything is read). So the events of one tournament commit in seq order, with any
//! number of instances on one PostgreSQL database: a reader that has seen seq `n` never later
//! finds a smaller seq appear (paging with `after` skips nothing). SQLite has one writer.

use serde_json::Value;

use super::{Backend, Store, StoreError};
use crate::ids::now;

/// One event of a tournament's feed, before it has its seq.
#[derive(Clone, Debug)]
pub struct FeedEvent {
    /// The tournament.
    pub tournament_id: String,
    /// `round.paired`, `table.started`, `deal.scored`, `table.finished`, `result.entered`,
    /// `round.complete`, `tournament.finished`, `table.reopened`.
    pub kind: &'static str,
    /// The public facts (no seq, type or time: added when it is read).
    pub data: Value,
}

/// A stored feed event.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct FeedRow {
    /// Its seq in its tournament's feed.
    pub seq: i64,
    /// The kind.
    pub kind: String,
    /// The JSON facts.
    pub data: String,
    /// When (RFC 3339).
    pub created_at: String,
}

/// What a committed write announces: each tournament whose feed it appended to, with the rows
/// appended (oldest first), which the live hub keeps in memory for the feed's streams.
pub type Announced = Vec<(String, Vec<FeedRow>)>;

/// Locks the rows of `tournaments` (sorted, once each) inside the caller's transaction: the
/// changes to one tournament's feed and round completions are then taken one after the other,
/// each seeing what the previous committed. On SQLite (one writer) a no-op.
pub async fn lock_in(
    conn: &mut sqlx::AnyConnection,
    backend: Backend,
    tournaments: &[&str],
) -> Result<(), sqlx::Error> {
    if backend != Backend::Postgres {
        return Ok(());
    }
    let mut ids: Vec<&str> = tournaments.to_vec();
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        sqlx::query("SELECT feed_seq FROM tournaments WHERE id = $1 FOR UPDATE")
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Appends `events` to their tournaments' feeds inside the caller's transaction and says what to
/// announce once it commits (on PostgreSQL the transaction itself notifies the other instances:
/// `t:<id> <seq>` on the announce channel, delivered at commit).
pub async fn append_in(
    conn: &mut sqlx::AnyConnection,
    backend: Backend,
    events: &[FeedEvent],
) -> Result<Announced, sqlx::Error> {
    let created_at = now();
    let mut announced: Announced = Vec::new();
    for (i, ev) in events.iter().enumerate() {
        if ev.kind == "table.reopened" {
            // A table of it plays again: the tournament is in progress until it finishes again.
            sqlx::query("UPDATE tournaments SET finished_at = NULL WHERE id = $1")
                .bind(&ev.tournament_id)
                .execute(&mut *conn)
                .await?;
        }
        let data = ev.data.to_string();
        if backend == Backend::Postgres {
            // One statement (issue 25, part 4: an entry waits on its round trips): the seq taken,
            // the event inserted and, for a tournament's last event of the write, the other
            // instances notified (`t:<id> <seq>`, delivered at commit).
            let last = !events[i + 1..]
                .iter()
                .any(|later| later.tournament_id == ev.tournament_id);
            let notify = if last {
                " CROSS JOIN LATERAL (SELECT pg_notify($5, $6 || e.seq::text)) n"
            } else {
                ""
            };
            let sql = format!(
                "WITH s AS (UPDATE tournaments SET feed_seq = feed_seq + 1 WHERE id = $1 RETURNING feed_seq), \
                 e AS (INSERT INTO tournament_events (tournament_id, seq, kind, data, created_at) \
                   SELECT $1, feed_seq, $2, $3, $4 FROM s RETURNING seq) \
                 SELECT e.seq FROM e{notify}"
            );
            let mut q = sqlx::query_scalar::<_, i64>(&sql)
                .bind(&ev.tournament_id)
                .bind(ev.kind)
                .bind(&data)
                .bind(&created_at);
            if last {
                q = q
                    .bind(super::ANNOUNCE_CHANNEL)
                    .bind(format!("{} ", feed_key(&ev.tournament_id)));
            }
            let Some(seq) = q.fetch_optional(&mut *conn).await? else {
                continue; // no such tournament (cannot happen: its id comes from its own rows)
            };
            announce(&mut announced, ev, seq, data, &created_at);
            continue;
        }
        let Some(seq) = sqlx::query_scalar::<_, i64>(
            "UPDATE tournaments SET feed_seq = feed_seq + 1 WHERE id = $1 RETURNING feed_seq",
        )
        .bind(&ev.tournament_id)
        .fetch_optional(&mut *conn)
        .await?
        else {
            continue; // no such tournament (cannot happen: its id comes from its own rows)
        };
        sqlx::query(
            "INSERT INTO tournament_events (tournament_id, seq, kind, data, created_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&ev.tournament_id)
        .bind(seq)
        .bind(ev.kind)
        .bind(&data)
        .bind(&created_at)
        .execute(&mut *conn)
        .await?;
        announce(&mut announced, ev, seq, data, &created_at);
    }
    Ok(announced)
}

/// Records that `ev` went into its tournament's feed as `seq`, with the text it was stored as.
fn announce(announced: &mut Announced, ev: &FeedEvent, seq: i64, data: String, created_at: &str) {
    let row = FeedRow {
        seq,
        kind: ev.kind.to_string(),
        data,
        created_at: created_at.to_string(),
    };
    match announced.iter_mut().find(|(t, _)| *t == ev.tournament_id) {
        Some((_, rows)) => rows.push(row),
        None => announced.push((ev.tournament_id.clone(), vec![row])),
    }
}

/// The key of a tournament's feed among the live rooms (match ids are 32 hex digits: never this).
pub fn feed_key(tournament_id: &str) -> String {
    format!("t:{tournament_id}")
}

/// Whether every round of `tournament_id` is paired and complete, and the tournament not yet
/// marked finished: then it is marked (`finished_at`), and `Some(rounds)` says so. Read inside
/// the caller's transaction, after [`lock_in`].
pub async fn finish_in(
    conn: &mut sqlx::AnyConnection,
    tournament_id: &str,
) -> Result<Option<i64>, sqlx::Error> {
    let Some((spec, finished_at)) = sqlx::query_as::<_, (String, Option<String>)>(
        "SELECT s.spec, t.finished_at FROM tournaments t \
         JOIN tournament_specs s ON s.tournament_id = t.id WHERE t.id = $1",
    )
    .bind(tournament_id)
    .fetch_optional(&mut *conn)
    .await?
    else {
        return Ok(None);
    };
    if finished_at.is_some() {
        return Ok(None);
    }
    let planned = serde_json::from_str::<Value>(&spec)
        .ok()
        .and_then(|s| s["rounds"].as_i64())
        .unwrap_or(i64::MAX);
    let rounds: Vec<i64> = sqlx::query_scalar(
        "SELECT round FROM tournament_rounds WHERE tournament_id = $1 ORDER BY round",
    )
    .bind(tournament_id)
    .fetch_all(&mut *conn)
    .await?;
    if (rounds.len() as i64) < planned {
        return Ok(None);
    }
    for r in rounds {
        // The row lock of `lock_in` already orders this tournament's writers: no round lock.
        if super::webhooks::round_state_in(&mut *conn, tournament_id, r)
            .await?
            .is_none()
        {
            return Ok(None);
        }
    }
    sqlx::query("UPDATE tournaments SET finished_at = $1 WHERE id = $2")
        .bind(now())
        .bind(tournament_id)
        .execute(&mut *conn)
        .await?;
    Ok(Some(planned))
}

impl Store {
    /// The feed of `tournament_id` after seq `after`, oldest first, at most `limit` events.
    pub async fn feed_after(
        &self,
        tournament_id: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<FeedRow>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT seq, kind, data, created_at FROM tournament_events \
             WHERE tournament_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
        )
        .bind(tournament_id)
        .bind(after)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?)
    }

    /// The last seq of `tournament_id`'s feed (None: no such tournament).
    pub async fn feed_version(&self, tournament_id: &str) -> Result<Option<i64>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT feed_seq FROM tournaments WHERE id = $1")
                .bind(tournament_id)
                .fetch_optional(&self.reader)
                .await?,
        )
    }

    /// Registers `f`, called with `(tournament id, rows appended)` after each commit that
    /// appended to a tournament's feed (this instance's writes; the others' come by `LISTEN`).
    pub fn on_feed(&self, f: FeedHookFn) {
        self.feed_hook
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(f);
    }

    /// Tells the registered hooks what a committed write appended.
    pub(super) fn feed_committed(&self, announced: &Announced) {
        self.feed_hook.call(announced);
    }
}

/// A feed hook: `(tournament id, the rows appended to its feed, oldest first)`.
pub type FeedHookFn = std::sync::Arc<dyn Fn(&str, &[FeedRow]) + Send + Sync>;

/// The hooks told of committed feed events (shared by a store's clones).
#[derive(Clone, Default)]
pub struct FeedHook(std::sync::Arc<std::sync::Mutex<Vec<FeedHookFn>>>);

impl FeedHook {
    /// Calls every hook for each announcement.
    pub fn call(&self, announced: &Announced) {
        if announced.is_empty() {
            return;
        }
        let hooks = self.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
        for (id, rows) in announced {
            for h in &hooks {
                h(id, rows);
            }
        }
    }
}

impl std::fmt::Debug for FeedHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FeedHook").finish_non_exhaustive()
    }
}

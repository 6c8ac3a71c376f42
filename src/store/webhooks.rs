//! Storage of webhooks and their deliveries: the outbox (issue 23).
//!
//! A delivery row is written by [`enqueue_in`] on the connection, and inside the transaction, of
//! the write that causes it (a match's group commit, a paired round, an entered result), so an
//! event is recorded with its deliveries or not at all: a crash between the two is impossible.
//! The worker (`crate::webhooks::worker`) claims due rows ([`Store::claim_deliveries`]): a claim
//! pushes the row's `next_attempt_at` ahead by a lease, so that a second instance on the same
//! PostgreSQL database skips it (`FOR UPDATE SKIP LOCKED` while claiming, the lease while
//! delivering), and a worker that dies mid-delivery leaves the row to be claimed again once the
//! lease is over: delivery is at least once, and `id` (the `Clubroom-Delivery` header) is the
//! same on every attempt.

use sqlx::Connection;

use super::{discard, sent_write_error, Backend, Store, StoreError};
use crate::ids::{new_id, now};

/// An event that webhooks may be told of, queued in the outbox with the write that causes it.
#[derive(Clone, Debug)]
pub struct OutboxEvent {
    /// Whose webhooks hear of it: `"match"` or `"tournament"`.
    pub owner_kind: &'static str,
    /// The match's or the tournament's id.
    pub owner_id: String,
    /// The kind, as webhooks name it (`deal.scored`...).
    pub kind: &'static str,
    /// The event's public facts (the payload's `data`).
    pub data: serde_json::Value,
}

/// What one write leaves in the outbox: its events, and perhaps a tournament round it may
/// complete.
#[derive(Clone, Debug, Default)]
pub struct Outbox {
    /// The events.
    pub events: Vec<OutboxEvent>,
    /// `(tournament id, round)`: `round.complete` is queued for the tournament's webhooks when,
    /// read inside the write's transaction, every table of the round has its result
    /// ([`round_complete_in`]). Set only by a write that settles a table that had none.
    pub round_check: Option<(String, i64)>,
    /// The tournament feed's events of the write (issue 23, part 3), public facts only; with
    /// `round.complete` and `tournament.finished` added by [`write_in`] when the round check
    /// finds them.
    pub feed: Vec<super::feed::FeedEvent>,
}

impl Outbox {
    /// Whether the write leaves nothing in the outbox.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty() && self.round_check.is_none() && self.feed.is_empty()
    }

    /// The tournament whose rows the write locks first (see [`super::feed::lock_in`]): the
    /// order group commits take them in.
    pub fn tournament(&self) -> Option<&str> {
        self.feed
            .first()
            .map(|f| f.tournament_id.as_str())
            .or(self.round_check.as_ref().map(|(t, _)| t.as_str()))
    }
}

/// Writes `outbox` on `conn`, inside the caller's transaction (after the write's own rows, so
/// that a round check sees them): the webhooks' deliveries, then the tournament feed's events
/// (with `round.complete` and `tournament.finished` when this write completes them). Says what
/// the feed announces once the transaction commits.
pub async fn write_in(
    conn: &mut sqlx::AnyConnection,
    backend: Backend,
    outbox: &Outbox,
) -> Result<super::feed::Announced, sqlx::Error> {
    write_held_in(conn, backend, outbox, None).await
}

/// [`write_in`] in a transaction that already holds tournament `held`'s row locked (on
/// PostgreSQL, by an `UPDATE` of it): that row is not locked again. (An `UPDATE`'s row lock
/// conflicts with every other transaction's `FOR UPDATE` and `FOR SHARE`, as the locks taken
/// here do.)
pub async fn write_held_in(
    conn: &mut sqlx::AnyConnection,
    backend: Backend,
    outbox: &Outbox,
    held: Option<&str>,
) -> Result<super::feed::Announced, sqlx::Error> {
    use super::feed::{self, FeedEvent};
    // The tournament's row first: its feed's seqs and its round completions, one writer at a time.
    let mut touched: Vec<&str> = outbox
        .feed
        .iter()
        .map(|e| e.tournament_id.as_str())
        .collect();
    if let Some((t, _)) = &outbox.round_check {
        touched.push(t);
    }
    touched.retain(|t| Some(*t) != held);
    feed::lock_in(&mut *conn, backend, &touched).await?;
    if backend == Backend::Postgres {
        // Then the owners' rows are locked (shared) before their webhooks are read: a
        // registration locks its owner's row for update first, so it either commits before this
        // read (and is seen) or waits for this transaction's end (and comes after the event).
        // SQLite has one writer: there every write transaction is already serialised. (A
        // tournament locked for update just above is already held.)
        let mut owners: Vec<(&str, &str)> = outbox
            .events
            .iter()
            .map(|e| (e.owner_kind, e.owner_id.as_str()))
            .chain(
                outbox
                    .round_check
                    .iter()
                    .map(|(t, _)| ("tournament", t.as_str())),
            )
            .collect();
        owners.sort();
        owners.dedup();
        // A tournament locked for update above (or held) is not locked again.
        owners.retain(|&(kind, id)| {
            kind != "tournament" || !(touched.contains(&id) || Some(id) == held)
        });
        for (kind, id) in owners {
            lock_owner_in(&mut *conn, kind, id, "FOR SHARE").await?;
        }
    }
    enqueue_in(&mut *conn, &outbox.events).await?;
    let mut events = outbox.feed.clone();
    if let Some((tournament, round)) = &outbox.round_check {
        if let Some(match_ids) = round_complete_in(&mut *conn, tournament, *round).await? {
            let event = OutboxEvent {
                owner_kind: "tournament",
                owner_id: tournament.clone(),
                kind: "round.complete",
                data: serde_json::json!({"tournament_id": tournament, "round": round}),
            };
            enqueue_in(&mut *conn, &[event]).await?;
            // The feed: the round's tables and matches, public now even in duplicate play.
            let tables: Vec<serde_json::Value> = match_ids
                .iter()
                .enumerate()
                .map(|(i, m)| serde_json::json!({"table": i + 1, "match_id": m}))
                .collect();
            events.push(FeedEvent {
                tournament_id: tournament.clone(),
                kind: "round.complete",
                data: serde_json::json!({"round": round, "tables": tables}),
            });
            if let Some(rounds) = feed::finish_in(&mut *conn, tournament).await? {
                events.push(FeedEvent {
                    tournament_id: tournament.clone(),
                    kind: "tournament.finished",
                    data: serde_json::json!({"rounds": rounds}),
                });
            }
        }
    }
    feed::append_in(&mut *conn, backend, &events).await
}

/// Locks (PostgreSQL) the row of a webhook owner: `kind` `"match"` or `"tournament"`, `mode`
/// `FOR SHARE` (an event) or `FOR UPDATE` (a registration).
async fn lock_owner_in(
    conn: &mut sqlx::AnyConnection,
    kind: &str,
    id: &str,
    mode: &str,
) -> Result<(), sqlx::Error> {
    let table = if kind == "match" {
        "matches"
    } else {
        "tournaments"
    };
    sqlx::query(&format!(
        "SELECT 1 AS one FROM {table} WHERE id = $1 {mode}"
    ))
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(())
}

/// A registered webhook.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct WebhookRow {
    /// Public id.
    pub id: String,
    /// `"match"` or `"tournament"`.
    pub owner_kind: String,
    /// The owner's id.
    pub owner_id: String,
    /// Where deliveries are posted.
    pub url: String,
    /// The kinds, each between commas.
    pub events: String,
    /// The signing key.
    pub secret: String,
    /// RFC 3339.
    pub created_at: String,
}

/// A delivery (a row of the outbox and of the delivery log).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct DeliveryRow {
    /// The log's order: the cursor.
    pub num: i64,
    /// The delivery id (`Clubroom-Delivery`).
    pub id: String,
    /// The webhook.
    pub webhook_id: String,
    /// The event kind.
    pub event: String,
    /// The JSON body sent.
    pub payload: String,
    /// RFC 3339.
    pub created_at: String,
    /// `pending` | `delivered` | `failed`.
    pub state: String,
    /// Attempts so far.
    pub attempts: i64,
    /// When the next attempt is due (pending), RFC 3339.
    pub next_attempt_at: String,
    /// Until when it is retried, RFC 3339.
    pub retry_until: String,
    /// When it was last attempted.
    pub last_attempt_at: Option<String>,
    /// The receiver's last HTTP status.
    pub last_status: Option<i64>,
    /// Why the last attempt failed.
    pub last_error: Option<String>,
    /// When it was delivered.
    pub delivered_at: Option<String>,
}

const WEBHOOK_COLUMNS: &str = "id, owner_kind, owner_id, url, events, secret, created_at";
const DELIVERY_COLUMNS: &str = "num, id, webhook_id, event, payload, created_at, state, attempts, \
     next_attempt_at, retry_until, last_attempt_at, last_status, last_error, delivered_at";

/// How long a delivery is retried after its event (or a redelivery): a day.
pub const RETRY_FOR: chrono::Duration = chrono::Duration::hours(24);

/// `t` as every stored time is written.
pub fn stamp(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Queues the deliveries of `events` on `conn`, inside the caller's transaction: one row per
/// registered webhook of the event's owner that asked for its kind. The body of each is the
/// JSON `{id, type, created_at, data}`, `id` the delivery's own.
pub async fn enqueue_in(
    conn: &mut sqlx::AnyConnection,
    events: &[OutboxEvent],
) -> Result<(), sqlx::Error> {
    let created_at = now();
    let until = stamp(chrono::Utc::now() + RETRY_FOR);
    for ev in events {
        let hooks: Vec<(String,)> = sqlx::query_as(
            "SELECT id FROM webhooks WHERE owner_kind = $1 AND owner_id = $2 \
             AND deleted_at IS NULL AND events LIKE $3 ORDER BY num",
        )
        .bind(ev.owner_kind)
        .bind(&ev.owner_id)
        .bind(format!("%,{},%", ev.kind))
        .fetch_all(&mut *conn)
        .await?;
        for (hook,) in hooks {
            let id = new_id();
            let body = serde_json::json!({
                "id": id,
                "type": ev.kind,
                "created_at": created_at,
                "data": ev.data,
            });
            sqlx::query(
                "INSERT INTO webhook_deliveries (id, webhook_id, event, payload, created_at, state, attempts, next_attempt_at, retry_until) \
                 VALUES ($1, $2, $3, $4, $5, 'pending', 0, $5, $6)",
            )
            .bind(&id)
            .bind(&hook)
            .bind(ev.kind)
            .bind(body.to_string())
            .bind(&created_at)
            .bind(&until)
            .execute(&mut *conn)
            .await?;
        }
    }
    Ok(())
}

/// Whether every table of round `round` of tournament `tournament_id` has its result (entered,
/// or its match finished), read on `conn` inside the caller's transaction: then the round's
/// match ids by table. The caller holds the tournament's row locked (on PostgreSQL: by an
/// earlier statement of the transaction, [`write_held_in`]'s `held` or `feed::lock_in`), as
/// every writer of a round's tables does before its round check. So two transactions completing
/// the round's last two tables at once are taken one after the other, and the second, its read
/// a statement after its lock (read committed: a statement's snapshot is taken when it starts),
/// sees the first's result: exactly one of them finds the round complete. No lock of the
/// round's own row is needed (issue 25, part 4: that lock was a round trip of its own). SQLite
/// has one writer.
pub async fn round_complete_in(
    conn: &mut sqlx::AnyConnection,
    tournament_id: &str,
    round: i64,
) -> Result<Option<Vec<Option<String>>>, sqlx::Error> {
    round_state_in(conn, tournament_id, round).await
}

/// [`round_complete_in`] without the caller's lock (a read): the round's match ids when it is
/// complete.
pub async fn round_state_in(
    conn: &mut sqlx::AnyConnection,
    tournament_id: &str,
    round: i64,
) -> Result<Option<Vec<Option<String>>>, sqlx::Error> {
    // Counted first: a round whose every table has an entry, or whose tables without one have no
    // match either (quick log), is settled without reading its entries (an entry at a national
    // open's 2,048 tables reads a number, not 2,048 rows). The round and its count are one
    // round trip (issue 25, part 4: an entry waits on its round trips).
    let Some((match_ids, entered)) = sqlx::query_as::<_, (String, i64)>(
        "SELECT match_ids, (SELECT COUNT(DISTINCT table_no) FROM tournament_results \
         WHERE tournament_id = $1 AND round = $2) FROM tournament_rounds \
         WHERE tournament_id = $1 AND round = $2",
    )
    .bind(tournament_id)
    .bind(round)
    .fetch_optional(&mut *conn)
    .await?
    else {
        return Ok(None);
    };
    let match_ids: Vec<Option<String>> =
        serde_json::from_str(&match_ids).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
    if usize::try_from(entered).is_ok_and(|n| n >= match_ids.len()) {
        return Ok(Some(match_ids));
    }
    if match_ids.iter().all(Option::is_none) {
        return Ok(None);
    }
    let mut has_entry = vec![false; match_ids.len()];
    let tables: Vec<(i64,)> = sqlx::query_as(
        "SELECT DISTINCT table_no FROM tournament_results WHERE tournament_id = $1 AND round = $2",
    )
    .bind(tournament_id)
    .bind(round)
    .fetch_all(&mut *conn)
    .await?;
    for (t,) in tables {
        if let Some(e) = usize::try_from(t - 1)
            .ok()
            .and_then(|i| has_entry.get_mut(i))
        {
            *e = true;
        }
    }
    for (m, _) in match_ids.iter().zip(&has_entry).filter(|(_, e)| !**e) {
        let Some(m) = m else { return Ok(None) };
        let status: Option<(String,)> = sqlx::query_as("SELECT status FROM matches WHERE id = $1")
            .bind(m)
            .fetch_optional(&mut *conn)
            .await?;
        if status.as_ref().map(|(s,)| s.as_str()) != Some("finished") {
            return Ok(None);
        }
    }
    Ok(Some(match_ids))
}

impl Store {
    /// Registers a webhook, unless its owner already has `max` (then `Ok(false)`).
    pub async fn insert_webhook(&self, w: &WebhookRow, max: i64) -> Result<bool, StoreError> {
        let mut conn = self.writer.acquire().await?;
        let backend = self.backend;
        let result = async {
            let mut tx = conn.begin().await?;
            if backend == Backend::Postgres {
                // Serialised with the owner's events (see `write_in`).
                lock_owner_in(&mut tx, &w.owner_kind, &w.owner_id, "FOR UPDATE").await?;
            }
            let (n,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) AS n FROM webhooks WHERE owner_kind = $1 AND owner_id = $2 AND deleted_at IS NULL",
            )
            .bind(&w.owner_kind)
            .bind(&w.owner_id)
            .fetch_one(&mut *tx)
            .await?;
            if n >= max {
                tx.rollback().await?;
                return Ok(false);
            }
            sqlx::query(
                "INSERT INTO webhooks (id, owner_kind, owner_id, url, events, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(&w.id)
            .bind(&w.owner_kind)
            .bind(&w.owner_id)
            .bind(&w.url)
            .bind(&w.events)
            .bind(&w.secret)
            .bind(&w.created_at)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(true)
        }
        .await;
        if let Err(err) = &result {
            discard(&mut conn, err);
        }
        result.map_err(sent_write_error)
    }

    /// The registered webhooks of an owner, oldest first.
    pub async fn webhooks_of(
        &self,
        owner_kind: &str,
        owner_id: &str,
    ) -> Result<Vec<WebhookRow>, StoreError> {
        Ok(sqlx::query_as(&format!(
            "SELECT {WEBHOOK_COLUMNS} FROM webhooks WHERE owner_kind = $1 AND owner_id = $2 \
             AND deleted_at IS NULL ORDER BY num"
        ))
        .bind(owner_kind)
        .bind(owner_id)
        .fetch_all(&self.reader)
        .await?)
    }

    /// A registered webhook of an owner (None: no such webhook, or deleted, or another owner's).
    pub async fn webhook(
        &self,
        owner_kind: &str,
        owner_id: &str,
        id: &str,
    ) -> Result<Option<WebhookRow>, StoreError> {
        Ok(sqlx::query_as(&format!(
            "SELECT {WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 AND owner_kind = $2 \
             AND owner_id = $3 AND deleted_at IS NULL"
        ))
        .bind(id)
        .bind(owner_kind)
        .bind(owner_id)
        .fetch_optional(&self.reader)
        .await?)
    }

    /// Deletes a webhook (its pending deliveries are not attempted again); whether it existed.
    pub async fn delete_webhook(
        &self,
        owner_kind: &str,
        owner_id: &str,
        id: &str,
    ) -> Result<bool, StoreError> {
        let mut conn = self.writer.acquire().await?;
        let result = sqlx::query(
            "UPDATE webhooks SET deleted_at = $1 WHERE id = $2 AND owner_kind = $3 AND owner_id = $4 AND deleted_at IS NULL",
        )
        .bind(now())
        .bind(id)
        .bind(owner_kind)
        .bind(owner_id)
        .execute(&mut *conn)
        .await;
        match result {
            Ok(r) => Ok(r.rows_affected() > 0),
            Err(e) => {
                discard(&mut conn, &e);
                Err(sent_write_error(e))
            }
        }
    }

    /// The deliveries of webhook `webhook_id`, newest first, before `cursor` (a `num`).
    pub async fn deliveries(
        &self,
        webhook_id: &str,
        cursor: Option<i64>,
        limit: i64,
    ) -> Result<Vec<DeliveryRow>, StoreError> {
        Ok(sqlx::query_as(&format!(
            "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND num < $2 \
             ORDER BY num DESC LIMIT $3"
        ))
        .bind(webhook_id)
        .bind(cursor.unwrap_or(i64::MAX))
        .bind(limit)
        .fetch_all(&self.reader)
        .await?)
    }

    /// Queues delivery `id` of webhook `webhook_id` again, due now and retried for another day
    /// (its id stays: the receiver may deduplicate it); the row as this update left it (`pending`),
    /// None when the webhook has no such delivery. One statement (`RETURNING`): read back by a
    /// second one, the row could already show the delivery worker's next attempt (`delivered`),
    /// as a CI run on PostgreSQL once saw.
    pub async fn redeliver(
        &self,
        webhook_id: &str,
        id: &str,
    ) -> Result<Option<DeliveryRow>, StoreError> {
        let mut conn = self.writer.acquire().await?;
        let at = now();
        let result = sqlx::query_as(&format!(
            "UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = $1, retry_until = $2 \
             WHERE id = $3 AND webhook_id = $4 RETURNING {DELIVERY_COLUMNS}"
        ))
        .bind(&at)
        .bind(stamp(chrono::Utc::now() + RETRY_FOR))
        .bind(id)
        .bind(webhook_id)
        .fetch_optional(&mut *conn)
        .await;
        drop(conn);
        result.map_err(sent_write_error)
    }

    /// Whether any delivery is due now (a read, so that an idle worker writes nothing).
    pub async fn deliveries_due(&self) -> Result<bool, StoreError> {
        Ok(sqlx::query(
            "SELECT 1 AS one FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= $1 LIMIT 1",
        )
        .bind(now())
        .fetch_optional(&self.reader)
        .await?
        .is_some())
    }

    /// Claims up to `limit` due deliveries with their webhooks: each claimed row's attempt is
    /// counted and its `next_attempt_at` pushed to `lease_until`, in one statement; on
    /// PostgreSQL rows another instance is claiming are skipped (`FOR UPDATE SKIP LOCKED`).
    /// Deliveries of a deleted webhook are skipped for good (`failed`).
    pub async fn claim_deliveries(
        &self,
        limit: i64,
        lease_until: &str,
    ) -> Result<Vec<(DeliveryRow, WebhookRow)>, StoreError> {
        let at = now();
        let skip_locked = match self.backend {
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let mut conn = self.writer.acquire().await?;
        let result = async {
            let mut tx = conn.begin().await?;
            sqlx::query(
                "UPDATE webhook_deliveries SET state = 'failed', last_error = 'the webhook was deleted' \
                 WHERE state = 'pending' AND webhook_id IN (SELECT id FROM webhooks WHERE deleted_at IS NOT NULL)",
            )
            .execute(&mut *tx)
            .await?;
            let claimed: Vec<DeliveryRow> = sqlx::query_as(&format!(
                "UPDATE webhook_deliveries SET next_attempt_at = $1, attempts = attempts + 1, last_attempt_at = $2 \
                 WHERE num IN (SELECT num FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= $2 \
                   ORDER BY next_attempt_at LIMIT $3{skip_locked}) \
                 RETURNING {DELIVERY_COLUMNS}"
            ))
            .bind(lease_until)
            .bind(&at)
            .bind(limit)
            .fetch_all(&mut *tx)
            .await?;
            let mut out = Vec::with_capacity(claimed.len());
            for d in claimed {
                let w: WebhookRow = sqlx::query_as(&format!(
                    "SELECT {WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1"
                ))
                .bind(&d.webhook_id)
                .fetch_one(&mut *tx)
                .await?;
                out.push((d, w));
            }
            tx.commit().await?;
            Ok::<_, sqlx::Error>(out)
        }
        .await;
        if let Err(err) = &result {
            discard(&mut conn, err);
        }
        result.map_err(sent_write_error)
    }

    /// Records the outcomes of a batch of attempts, in one transaction (one flush for the batch,
    /// not one per delivery): each delivered, due again at its `next` time, or failed.
    pub async fn finish_attempts(&self, outcomes: &[AttemptOutcome]) -> Result<(), StoreError> {
        if outcomes.is_empty() {
            return Ok(());
        }
        let at = now();
        let mut conn = self.writer.acquire().await?;
        let result = async {
            let mut tx = conn.begin().await?;
            for o in outcomes {
                let state = match (o.delivered, &o.next) {
                    (true, _) => "delivered",
                    (false, Some(_)) => "pending",
                    (false, None) => "failed",
                };
                sqlx::query(
                    "UPDATE webhook_deliveries SET state = $1, last_status = $2, last_error = $3, \
                     next_attempt_at = COALESCE($4, next_attempt_at), delivered_at = $5 WHERE id = $6",
                )
                .bind(state)
                .bind(o.status.map(i64::from))
                .bind(o.error.as_deref())
                .bind(o.next.as_deref())
                .bind(o.delivered.then_some(at.as_str()))
                .bind(&o.id)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await
        }
        .await;
        match result {
            Ok(()) => Ok(()),
            Err(e) => {
                discard(&mut conn, &e);
                Err(sent_write_error(e))
            }
        }
    }
}

/// The outcome of one delivery attempt, recorded by [`Store::finish_attempts`].
#[derive(Clone, Debug)]
pub struct AttemptOutcome {
    /// The delivery's id.
    pub id: String,
    /// A 2xx answer.
    pub delivered: bool,
    /// The receiver's status, if it answered.
    pub status: Option<u16>,
    /// Why the attempt failed.
    pub error: Option<String>,
    /// When a failed delivery is due again (None: failed for good, or delivered).
    pub next: Option<String>,
}

//! Storage: the match table, token hashes and the append-only event log, through sqlx's `Any`
//! driver so one code base serves SQLite (the embedded default) and PostgreSQL (by URL).
//!
//! SQLite runs in WAL mode with `synchronous = FULL`, so an acknowledged write has been fsynced
//! ("acknowledged means durable", even across power loss). All writes go through one writer
//! connection (SQLite allows one writer at a time; a single connection avoids busy-waiting),
//! reads through a small pool of their own. PostgreSQL uses one pool for both.
//!
//! Group commit (both backends): the appends of concurrent requests (to different matches) that
//! queue while a commit is under way are recorded together in the next transaction, usually one
//! multi-row `INSERT` statement, so that one fsync (one WAL flush and one round trip on
//! PostgreSQL) acknowledges all of them. Each append still succeeds or fails on its own (a taken seq fails
//! only its own insert), and none is answered before the transaction holding it has committed.
//!
//! Storage faults: a database that cannot be reached or cannot store (disk full, I/O error,
//! connection lost or refused, no connection free within the acquire timeout) is
//! [`StoreError::Unavailable`]. A write transaction that fails for any reason but a taken key is
//! rolled back by closing its connection (the pool opens a fresh one for the next write): after a
//! failed `COMMIT` SQLite keeps the transaction open, and sqlx's transaction depth would stay at 1,
//! so every later `begin()` would become a `SAVEPOINT` inside a transaction nobody commits.

use std::{
    str::FromStr,
    sync::{Arc, Mutex},
    time::Duration,
};

use futures_util::future::BoxFuture;
use sqlx::{
    any::{AnyConnectOptions, AnyPoolOptions},
    pool::{PoolConnection, PoolConnectionMetadata},
    Any, AnyPool, Connection, Executor, FromRow,
};
use tokio::sync::{oneshot, Semaphore};

mod club;
pub mod idempotency;
mod tournaments;
pub use club::{
    ClubGuard, ClubResult, MergeRefusal, PendingMark, PlayerResultRow, RatingRow, SeasonLineRow,
    SeasonRow,
};
mod webhooks;
// The tournament feed (issue 23, part 3), written in the transaction of the change it tells of.
mod feed;
pub use feed::{feed_key, FeedEvent, FeedHookFn, FeedRow};
pub use idempotency::CreateKeyRow;
pub use tournaments::{
    name_key, ChangeRow, ChangeWrite, NewMatch, PlayerListRow, PlayerRow, ResultRow, RoundRow,
    TournamentListFilter, TournamentListRow, TournamentRow,
};
// Webhooks (issue 23): the outbox, written in the transaction of the write that causes it.
pub use webhooks::{
    stamp, AttemptOutcome, DeliveryRow, Outbox, OutboxEvent, WebhookRow, RETRY_FOR,
};

/// Which database is behind the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// An embedded SQLite file.
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

/// Errors from the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another writer already recorded this sequence number (or this idempotency key).
    #[error("another writer got there first")]
    Conflict,
    /// The database cannot be reached or cannot store right now (disk full, I/O error, connection
    /// lost or refused, no connection within the acquire timeout). Nothing was recorded.
    #[error("the database is unavailable: {0}")]
    Unavailable(String),
    /// The connection failed while a commit was under way: the write may or may not have been
    /// recorded (the caller checks, see [`Store::event_at`]).
    #[error("the outcome of the commit is unknown: {0}")]
    OutcomeUnknown(String),
    /// Anything else the database said.
    #[error(transparent)]
    Db(sqlx::Error),
    /// Stored data that cannot be read back.
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    /// The group commit holding this append failed as a whole (nothing of it was recorded).
    #[error("the group commit failed: {0}")]
    GroupCommit(String),
    /// A create's `Idempotency-Key` was found recorded inside its transaction (another request
    /// with the key committed first): nothing was recorded.
    #[error("this idempotency key was recorded by another request")]
    KeyTaken,
    /// The credential the write was authorised with was replaced before it committed (an
    /// organiser token rotated meanwhile): nothing was recorded.
    #[error("the credential was revoked while the write ran")]
    Revoked,
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        if is_unavailable(&e) {
            StoreError::Unavailable(e.to_string())
        } else {
            StoreError::Db(e)
        }
    }
}

impl StoreError {
    /// Whether this is a storage fault (unavailable or unknown outcome) rather than a refusal.
    pub fn is_fault(&self) -> bool {
        matches!(
            self,
            StoreError::Unavailable(_) | StoreError::OutcomeUnknown(_) | StoreError::GroupCommit(_)
        )
    }
}

/// Whether `e` says the database cannot be reached or cannot store right now, as opposed to a
/// refusal of this statement (a constraint, a syntax error...): pool timeout or closed, I/O and
/// TLS errors, a lost connection; SQLite's disk full, I/O error, cannot open, read-only, busy,
/// out of memory; PostgreSQL's connection exceptions (class 08), insufficient resources (53:
/// disk full, out of memory, too many connections), shutdown and "cannot connect now" (57P0x),
/// system errors (58).
pub fn is_unavailable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(d) => {
            if d.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
                // Primary result codes (the low byte of an extended code): SQLITE_BUSY 5,
                // SQLITE_NOMEM 7, SQLITE_READONLY 8, SQLITE_IOERR 10, SQLITE_FULL 13,
                // SQLITE_CANTOPEN 14.
                let code = d.code().and_then(|c| c.parse::<i32>().ok()).unwrap_or(0);
                matches!(code & 0xff, 5 | 7 | 8 | 10 | 13 | 14)
            } else if let Some(p) = d.try_downcast_ref::<sqlx::postgres::PgDatabaseError>() {
                let code = p.code();
                ["08", "53", "57P01", "57P02", "57P03", "58"]
                    .iter()
                    .any(|prefix| code.starts_with(prefix))
            } else {
                false
            }
        }
        _ => false,
    }
}

/// Takes a writer connection out of service after a failed write transaction: it is closed
/// instead of going back to the pool (closing rolls back whatever it still had open), and the
/// pool opens a fresh one, with fresh sqlx transaction bookkeeping, for the next write.
fn discard(conn: &mut PoolConnection<Any>, err: &dyn std::fmt::Display) {
    tracing::warn!(error = %err, "write transaction failed; closing its connection");
    conn.close_on_drop();
}

/// Options of the store.
#[derive(Clone, Debug)]
pub struct StoreOptions {
    /// How long a request waits for a database connection (or for a new one to be opened)
    /// before it is answered 503 `storage_unavailable`.
    pub acquire_timeout: Duration,
    /// PostgreSQL only: how long start-up waits for its first connection (a new database's
    /// first connection reads its catalogue from disk, slow on a loaded machine). The
    /// migrations then run on that connection, so start-up never waits on the pool's
    /// `acquire_timeout`.
    pub connect_timeout: Duration,
    /// SQLite only: caps the database file at this many pages (`PRAGMA max_page_count`), for
    /// tests that need a full database without a full disk.
    pub sqlite_max_page_count: Option<u64>,
}

/// The default acquire timeout; `CLUBROOM_DB_ACQUIRE_TIMEOUT_MS` overrides it.
pub const DEFAULT_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

/// The default start-up connect timeout; `CLUBROOM_DB_CONNECT_TIMEOUT_MS` overrides it.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A duration in milliseconds from the environment variable `name`, if set to a positive number
/// (the store's timeouts, the webhooks' settings).
pub(crate) fn env_millis(name: &str) -> Option<Duration> {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|&ms| ms > 0)
        .map(Duration::from_millis)
}

impl Default for StoreOptions {
    /// The acquire timeout from `CLUBROOM_DB_ACQUIRE_TIMEOUT_MS` (milliseconds), else 3 s; the
    /// start-up connect timeout from `CLUBROOM_DB_CONNECT_TIMEOUT_MS`, else 10 s.
    fn default() -> StoreOptions {
        StoreOptions {
            acquire_timeout: env_millis("CLUBROOM_DB_ACQUIRE_TIMEOUT_MS")
                .unwrap_or(DEFAULT_ACQUIRE_TIMEOUT),
            connect_timeout: env_millis("CLUBROOM_DB_CONNECT_TIMEOUT_MS")
                .unwrap_or(DEFAULT_CONNECT_TIMEOUT),
            sqlite_max_page_count: None,
        }
    }
}

/// A match row (read by column name: [`MATCH_COLUMNS`]).
#[derive(Clone, Debug, Default, sqlx::FromRow)]
pub struct MatchRow {
    /// Listing order.
    pub num: i64,
    /// Public id.
    pub id: String,
    /// Game id.
    pub game: String,
    /// JSON array of names.
    pub players: String,
    /// JSON config.
    pub config: String,
    /// 'table' | 'service'.
    pub dealing: String,
    /// 'in_progress' | 'finished'.
    pub status: String,
    /// RFC 3339.
    pub created_at: String,
    /// JSON array by seat of player ids (or null); None when no seat names a player.
    pub player_ids: Option<String>,
    /// JSON `{"id", "round", "table"}` of the tournament table the match is played at.
    pub tournament: Option<String>,
    /// Duplicate play: the round secret (hex) the deals' seeds derive from.
    pub seed_key: Option<String>,
    /// 1: created with `rated: false` (the club's ratings leave it out). Written, not read back.
    #[sqlx(default)]
    pub unrated: i64,
}

/// A match row with its current version and last change, for listings.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct MatchSummaryRow {
    /// The match.
    #[sqlx(flatten)]
    pub row: MatchRow,
    /// The sequence number of its last event (0: none).
    pub seq: i64,
    /// When its last event was recorded (or its creation).
    pub updated_at: String,
}

/// An event row (read by column name: [`EVENT_COLUMNS`], and the idempotency columns where a
/// query selects them; a column not selected reads as None).
#[derive(Clone, Debug, Default, sqlx::FromRow)]
pub struct EventRow {
    /// The match.
    pub match_id: String,
    /// 1, 2, 3... per match.
    pub seq: i64,
    /// 'action' | 'undo'.
    pub kind: String,
    /// Acting seat (None = table).
    pub seat: Option<i64>,
    /// JSON action as recorded.
    pub action: Option<String>,
    /// Hex shuffle seed (service deals).
    pub seed: Option<String>,
    /// For an undo: the retracted seq.
    pub retracts: Option<i64>,
    /// Round the event belongs to.
    pub round: i64,
    /// JSON outcomes.
    pub outcome: String,
    /// RFC 3339.
    pub created_at: String,
    /// Idempotency key.
    #[sqlx(default)]
    pub idem_key: Option<String>,
    /// Hash of the request that recorded it.
    #[sqlx(default)]
    pub request_hash: Option<String>,
    /// Status of the first answer.
    #[sqlx(default)]
    pub response_status: Option<i64>,
    /// Body of the first answer.
    #[sqlx(default)]
    pub response: Option<String>,
}

/// A remembered answer to an idempotent request.
#[derive(Clone, Debug)]
pub struct IdempotentAnswer {
    /// Hash of the request that was answered.
    pub request_hash: String,
    /// HTTP status.
    pub status: u16,
    /// JSON body.
    pub body: String,
}

/// The database behind Clubroom.
#[derive(Clone, Debug)]
pub struct Store {
    writer: AnyPool,
    reader: AnyPool,
    backend: Backend,
    group: Arc<GroupCommit>,
    /// Told of every committed feed event (the live hub's tournament rooms).
    feed_hook: feed::FeedHook,
}

/// An append waiting for the next group commit, and where to send its result.
struct Pending {
    event: EventRow,
    new_status: Option<String>,
    /// Webhooks: the deliveries this append causes, written in its transaction.
    outbox: Outbox,
    /// The club (issue 24): this append changes the status of a match naming registered
    /// players: a `club_pending` marker goes in with it.
    club_mark: bool,
    /// The hash of the token the write was authorised with: the event goes in only if that
    /// token is still the match's (checked in the insert itself, see [`insert_sql`]), else the
    /// append fails with [`StoreError::Revoked`].
    holder: Option<String>,
    done: oneshot::Sender<Result<(), StoreError>>,
}

/// The group commit: a queue of appends, and the turns to commit them. Whoever holds a turn
/// takes the whole queue into one transaction and answers every append in it, then does the same
/// with what was queued meanwhile, and gives the turn up once the queue is empty; an append
/// whose request gets a turn finds its answer already there, its event still
/// queued, or (with several turns) its event taken by another turn's commit, whose answer it then
/// awaits. No task of its own: it runs in whatever runtime calls [`Store::append`].
///
/// SQLite has one turn (one writer connection). PostgreSQL has [`PG_COMMIT_TURNS`], one by
/// default: while a batch commits the next one gathers, and fewer, larger batches cost the
/// database less per append than several small ones in flight at once (measured with
/// `scripts/bench.sh` at 16 matches: 8.5k appends/s with one turn, 7.3k with two, 7.1k with
/// four). `CLUBROOM_PG_COMMIT_TURNS` allows more, for a server far enough away that its round
/// trip, not its work, is the limit.
struct GroupCommit {
    queue: Mutex<Vec<Pending>>,
    turns: Arc<Semaphore>,
}

/// The runtime SQLite's commits run on: a thread of its own, so that a commit's every step (the
/// statement's answer from the connection's thread, the next batch) runs at once, not behind
/// the requests queued on an HTTP worker. None if the thread could not be started (the commits
/// then run on the worker that queued them). SQLite's connections do their I/O on threads of
/// their own, so nothing of theirs is tied to one runtime (PostgreSQL's sockets are: its
/// commits stay on the workers).
fn sqlite_commits() -> Option<&'static tokio::runtime::Handle> {
    static COMMITS: std::sync::OnceLock<Option<tokio::runtime::Handle>> =
        std::sync::OnceLock::new();
    COMMITS
        .get_or_init(|| {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?;
            let handle = rt.handle().clone();
            std::thread::Builder::new()
                .name("clubroom-commits".into())
                .spawn(move || rt.block_on(std::future::pending::<()>()))
                .ok()?;
            Some(handle)
        })
        .as_ref()
}

/// Commits in flight at once on PostgreSQL (see [`GroupCommit`]), unless
/// `CLUBROOM_PG_COMMIT_TURNS` says otherwise (1 to 16).
pub const PG_COMMIT_TURNS: usize = 1;

fn pg_commit_turns() -> usize {
    std::env::var("CLUBROOM_PG_COMMIT_TURNS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|n| (1..=16).contains(n))
        .unwrap_or(PG_COMMIT_TURNS)
}

impl GroupCommit {
    fn new(turns: usize) -> Arc<GroupCommit> {
        Arc::new(GroupCommit {
            queue: Mutex::default(),
            turns: Arc::new(Semaphore::new(turns)),
        })
    }

    /// Everything queued so far, leaving the queue empty.
    fn take_queue(&self) -> Vec<Pending> {
        std::mem::take(&mut *self.queue.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl std::fmt::Debug for GroupCommit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupCommit").finish_non_exhaustive()
    }
}

const EVENT_COLUMNS: &str =
    "match_id, seq, kind, seat, action, seed, retracts, round, outcome, created_at";
const MATCH_COLUMNS: &str =
    "num, id, game, players, config, dealing, status, created_at, player_ids, tournament, seed_key";

/// The key of an event that went in (named by `RETURNING` on PostgreSQL, read back on SQLite).
#[derive(sqlx::FromRow)]
struct Inserted {
    match_id: String,
    seq: i64,
}

/// The idempotency columns of an event.
#[derive(sqlx::FromRow)]
struct Remembered {
    request_hash: Option<String>,
    response_status: Option<i64>,
    response: Option<String>,
}

/// Per-connection SQLite settings: WAL, fsync on every commit, wait (not fail) on a lock.
async fn sqlite_pragmas(
    conn: &mut sqlx::AnyConnection,
    query_only: bool,
    max_pages: Option<u64>,
) -> Result<(), sqlx::Error> {
    conn.execute("PRAGMA journal_mode = WAL").await?;
    conn.execute("PRAGMA synchronous = FULL").await?;
    conn.execute("PRAGMA busy_timeout = 5000").await?;
    conn.execute("PRAGMA foreign_keys = ON").await?;
    if query_only {
        conn.execute("PRAGMA query_only = ON").await?;
    }
    if let Some(n) = max_pages {
        conn.execute(&*format!("PRAGMA max_page_count = {n}"))
            .await?;
    }
    Ok(())
}

async fn writer_pragmas(
    conn: &mut sqlx::AnyConnection,
    max_pages: Option<u64>,
) -> Result<(), sqlx::Error> {
    sqlite_pragmas(conn, false, max_pages).await
}

fn reader_pragmas(
    conn: &mut sqlx::AnyConnection,
    _: PoolConnectionMetadata,
) -> BoxFuture<'_, Result<(), sqlx::Error>> {
    Box::pin(sqlite_pragmas(conn, true, None))
}

/// A PostgreSQL connection idle at least this long is pinged before it is handed out (see
/// [`ping_if_idle`]).
const PING_AFTER_IDLE: Duration = Duration::from_secs(1);

/// sqlx pings every pooled connection before handing it out, by default: a round trip to the
/// server (on SQLite, to the connection's worker thread) in front of every group commit and every
/// read. A SQLite connection cannot drop, so its pools never ping. A PostgreSQL connection can
/// (a server restart, a network cut, an idle timeout), but one used within the last second very
/// seldom has; so only a connection idle for [`PING_AFTER_IDLE`] or more is pinged, and closed
/// if the ping fails. A write that meets a connection lost anyway is read back before it is
/// answered (`OutcomeUnknown`), as any write cut short is.
fn ping_if_idle(
    conn: &mut sqlx::AnyConnection,
    meta: PoolConnectionMetadata,
) -> BoxFuture<'_, Result<bool, sqlx::Error>> {
    Box::pin(async move {
        if meta.idle_for >= PING_AFTER_IDLE {
            conn.ping().await?;
        }
        Ok(true)
    })
}

fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
}

/// The most events one `INSERT` statement carries; a bigger batch takes several, in one
/// transaction. 128 rows bind 1,920 parameters, far below SQLite's 32,766 and PostgreSQL's 65,535.
const MAX_ROWS_PER_INSERT: usize = 128;

/// The values one event binds in [`insert_sql`]: its 14 columns and the token that must hold.
const ROW_PARAMS: usize = 15;

/// The PostgreSQL channel on which every committed append is announced to every instance
/// (`LISTEN`, see `matches::live`): the payload is `<match id> <seq>` per inserted event, joined
/// by commas.
pub const ANNOUNCE_CHANNEL: &str = "clubroom_events";

/// The sizes of the multi-row insert: every size up to 16 rows, then every 8th up to
/// [`MAX_ROWS_PER_INSERT`] (30 in all). A batch is padded up to the next of them ([`padded`]).
/// Every padding row costs the database a token check and a key probe, and PostgreSQL its 15
/// parameters: padded up to the next power of two, as before, a batch of 9 appends (typical at 16
/// matches) ran 16 rows.
fn insert_sizes() -> impl Iterator<Item = usize> {
    (1..=16).chain((24..=MAX_ROWS_PER_INSERT).step_by(8))
}

/// The insert size a batch of `n` appends (1 to [`MAX_ROWS_PER_INSERT`]) is padded up to: the
/// first of [`insert_sizes`] that holds it. (A bigger batch is a caller's bug: it is cut into
/// chunks of at most [`MAX_ROWS_PER_INSERT`] first, see [`insert_batch`].)
fn padded(n: usize) -> usize {
    insert_sizes()
        .find(|&size| size >= n)
        .expect("a batch chunked to MAX_ROWS_PER_INSERT")
}

/// The multi-row insert of `rows` events (one of [`insert_sizes`]): one statement text per size
/// and backend, so that both drivers keep every size's prepared statement cached (30 of them,
/// within sqlx's cache of 100 per connection). `ON CONFLICT DO NOTHING` lets a row whose
/// `(match_id, seq)` (or idempotency key) is taken fail alone, silently. On PostgreSQL
/// `RETURNING` names the rows that went in, so the others are the conflicts or the revoked. On
/// SQLite the statement returns nothing: the count of rows it changed says whether every row
/// went in, and only when it falls short are the rows that did read back (see [`insert_chunk`]).
///
/// Each row's 15th value is the hash of the token its write was authorised with (NULL: none):
/// the row goes in only while `tokens` still holds that hash for its match. The write path
/// takes a token its cache knows on trust and lets this check it, in the same statement as the
/// write, so that a token rotated away by another instance (or process) records nothing, and a
/// write costs no read of its own (on SQLite a round trip to a reader connection's thread, about
/// a third of a write's CPU: stop 48 in docs/performance.md).
///
/// On PostgreSQL the same statement also announces the rows that went in on
/// [`ANNOUNCE_CHANNEL`] (`pg_notify` in the statement's own transaction): the other instances
/// hear of the writes when, and only when, they commit, with one notification per batch rather
/// than a transaction of its own per write. A payload holds at most 128 entries of at most 53
/// bytes (a 32-digit id, a space, a 19-digit seq, a comma): 6,784 bytes, below NOTIFY's 8,000.
fn insert_sql(rows: usize, backend: Backend) -> &'static str {
    static SQL: std::sync::OnceLock<[Vec<String>; 2]> = std::sync::OnceLock::new();
    let all = SQL.get_or_init(|| {
        let mut sqlite = Vec::new();
        let mut postgres = Vec::new();
        for n in insert_sizes() {
            // PostgreSQL numbers its parameters. SQLite is given anonymous ones (`?`, bound in
            // order, each used once): sqlx asks SQLite for every parameter's name, and for a
            // numbered one SQLite finds it by a walk through the statement's list of names, so
            // binding 480 numbered parameters cost about 115,000 steps, a fifth of the server's
            // CPU at 64 matches (stop 49 in docs/performance.md).
            let insert = |numbered: bool| {
                let values: Vec<String> = (0..n)
                    .map(|r| {
                        let params: Vec<String> = (1..=ROW_PARAMS)
                            .map(|c| match numbered {
                                true => format!("${}", r * ROW_PARAMS + c),
                                false => "?".to_string(),
                            })
                            .collect();
                        format!("({})", params.join(", "))
                    })
                    .collect();
                // A VALUES list's columns are column1, column2... on both databases.
                let columns: Vec<String> =
                    (1..ROW_PARAMS).map(|c| format!("v.column{c}")).collect();
                format!(
                    "INSERT INTO events (match_id, seq, kind, seat, action, seed, retracts, round, \
                     outcome, created_at, idem_key, request_hash, response_status, response) \
                     SELECT {} FROM (VALUES {}) AS v WHERE v.column{ROW_PARAMS} IS NULL OR EXISTS \
                     (SELECT 1 FROM tokens WHERE tokens.hash = v.column{ROW_PARAMS} \
                     AND tokens.match_id = v.column1) ON CONFLICT DO NOTHING",
                    columns.join(", "),
                    values.join(", ")
                )
            };
            postgres.push(format!(
                "WITH ins AS ({} RETURNING match_id, seq), \
                 announced AS (SELECT pg_notify('{ANNOUNCE_CHANNEL}', \
                 string_agg(match_id || ' ' || seq, ',')) FROM ins HAVING count(*) > 0) \
                 SELECT ins.match_id, ins.seq FROM ins CROSS JOIN announced",
                insert(true)
            ));
            sqlite.push(insert(false));
        }
        [sqlite, postgres]
    });
    let sizes = match backend {
        Backend::Sqlite => &all[0],
        Backend::Postgres => &all[1],
    };
    // The statements are in the order of `insert_sizes`.
    let at = insert_sizes().position(|size| size == rows);
    &sizes[at.expect("an insert size (see `padded`)")]
}

/// Inserts `appends` (at most [`MAX_ROWS_PER_INSERT`], in key order) in one statement and says,
/// for each, whether it went in (`false`: its seq or idempotency key was taken, or its holder's
/// token is gone). The rows are padded up to the next insert size ([`padded`]) with copies of the
/// last one, which conflict with it (or are left out for the reason it was) and so insert nothing.
///
/// On SQLite the statement has no `RETURNING`: sqlx's SQLite driver hands each returned row from
/// the connection's thread to the caller as a message of its own, so a commit of 26 appends cost
/// about 26 hand-offs between two threads, each waiting for a core (stop 49 in
/// docs/performance.md). The count of rows changed comes back in the one message that ends the
/// statement. When it is the number of appends, every one went in (a padding copy never does).
/// When it falls short (a seq taken by another process, an idempotency key replayed, a token
/// revoked: rare), the rows that did go in are read back by their rowids. SQLite gives the rows
/// one statement inserts consecutive rowids (each the table's largest plus one, while this
/// connection holds the write lock), the last of them `last_insert_rowid()`, and events are never
/// deleted.
async fn insert_chunk(
    conn: &mut sqlx::AnyConnection,
    backend: Backend,
    appends: &[Pending],
) -> Result<Vec<bool>, sqlx::Error> {
    let size = padded(appends.len());
    let mut query = sqlx::query(insert_sql(size, backend));
    for i in 0..size {
        let p = &appends[i.min(appends.len() - 1)];
        let e = &p.event;
        query = query
            .bind(&e.match_id)
            .bind(e.seq)
            .bind(&e.kind)
            .bind(e.seat)
            .bind(&e.action)
            .bind(&e.seed)
            .bind(e.retracts)
            .bind(e.round)
            .bind(&e.outcome)
            .bind(&e.created_at)
            .bind(&e.idem_key)
            .bind(&e.request_hash)
            .bind(e.response_status)
            .bind(&e.response)
            .bind(&p.holder);
    }
    let rows = match backend {
        Backend::Postgres => query.fetch_all(&mut *conn).await?,
        Backend::Sqlite => {
            let changed = query.execute(&mut *conn).await?.rows_affected();
            if changed == appends.len() as u64 {
                return Ok(vec![true; appends.len()]);
            }
            if changed == 0 {
                return Ok(vec![false; appends.len()]);
            }
            sqlx::query(
                "SELECT match_id, seq FROM events \
                 WHERE rowid > last_insert_rowid() - $1 AND rowid <= last_insert_rowid()",
            )
            .bind(changed as i64)
            .fetch_all(&mut *conn)
            .await?
        }
    };
    let mut inserted = vec![false; appends.len()];
    for row in &rows {
        let Inserted { match_id: id, seq } = Inserted::from_row(row)?;
        // `appends` is in key order (see `commit_batch`): the first event with this key is the
        // one that went in (a later one with the same key came after it in the statement; only
        // the padding repeats a key).
        let i = appends
            .partition_point(|p| (p.event.match_id.as_str(), p.event.seq) < (id.as_str(), seq));
        if appends
            .get(i)
            .is_some_and(|p| p.event.seq == seq && p.event.match_id == id)
        {
            inserted[i] = true;
        }
    }
    Ok(inserted)
}

/// The seat of match `match_id`'s token with hash `hash` (None inside: the host's), None if
/// the match has no such token; read through `executor` (a pool, or a commit's connection).
async fn token_seat_in<'e>(
    executor: impl sqlx::Executor<'e, Database = sqlx::Any>,
    match_id: &str,
    hash: &str,
) -> Result<Option<Option<i64>>, sqlx::Error> {
    let row: Option<(Option<i64>,)> =
        sqlx::query_as("SELECT seat FROM tokens WHERE hash = $1 AND match_id = $2")
            .bind(hash)
            .bind(match_id)
            .fetch_optional(executor)
            .await?;
    Ok(row.map(|(s,)| s))
}

/// What became of one append of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Went {
    /// Recorded.
    In,
    /// Its seq or idempotency key was taken.
    Conflict,
    /// The token it was authorised with is no longer its match's.
    Revoked,
}

/// Inserts every event of `batch` and updates the status of each match whose append changes it
/// and went in; says for each append what became of it. The caller makes this one transaction
/// when it is more than one statement.
async fn insert_batch(
    conn: &mut sqlx::AnyConnection,
    backend: Backend,
    batch: &[Pending],
) -> Result<(Vec<Went>, feed::Announced), sqlx::Error> {
    let mut inserted = Vec::with_capacity(batch.len());
    for chunk in batch.chunks(MAX_ROWS_PER_INSERT) {
        inserted.extend(insert_chunk(&mut *conn, backend, chunk).await?);
    }
    // An append left out whose holder's token is gone was revoked, not beaten to its seq (rare:
    // one primary-key read each).
    let mut went = Vec::with_capacity(batch.len());
    for (p, &went_in) in batch.iter().zip(&inserted) {
        went.push(match (&p.holder, went_in) {
            (_, true) => Went::In,
            (None, false) => Went::Conflict,
            (Some(hash), false) => {
                if token_seat_in(&mut *conn, &p.event.match_id, hash)
                    .await?
                    .is_some()
                {
                    Went::Conflict
                } else {
                    Went::Revoked
                }
            }
        });
    }
    for (p, &went_in) in batch.iter().zip(&inserted) {
        if let (Some(status), true) = (&p.new_status, went_in) {
            sqlx::query("UPDATE matches SET status = $1 WHERE id = $2")
                .bind(status)
                .bind(&p.event.match_id)
                .execute(&mut *conn)
                .await?;
        }
    }
    // The club's markers (issue 24) of the appends that went in and change a status.
    for (p, &went_in) in batch.iter().zip(&inserted) {
        if went_in && p.club_mark && p.new_status.is_some() {
            club::mark_in(
                &mut *conn,
                &format!("match:{}", p.event.match_id),
                &p.event.seq.to_string(),
                &p.event.created_at,
            )
            .await?;
        }
    }
    // Webhooks and the tournament feed: the outbox rows of the appends that went in, in the same
    // transaction, taken tournament by tournament (each locks its tournament's row first: in one
    // order, two batches in flight never wait for each other).
    let mut outboxes: Vec<&Outbox> = batch
        .iter()
        .zip(&inserted)
        .filter(|(p, &went_in)| went_in && !p.outbox.is_empty())
        .map(|(p, _)| &p.outbox)
        .collect();
    outboxes.sort_by_key(|o| o.tournament());
    let mut announced = Vec::new();
    for outbox in outboxes {
        announced.extend(webhooks::write_in(&mut *conn, backend, outbox).await?);
    }
    Ok((went, announced))
}

/// One transaction for a whole batch of appends, then every append's answer. An append whose seq
/// (or idempotency key) is taken fails alone with `Conflict` (see [`insert_sql`]; its status
/// update is skipped with it). A batch that is a single statement (no status change, at most
/// [`MAX_ROWS_PER_INSERT`] events) is that statement's own transaction: one round trip and one
/// WAL flush on PostgreSQL, one fsync on SQLite. Any other error rolls back the whole batch (the
/// connection is closed, see [`discard`]) and fails every append: `Unavailable` for a storage
/// fault such as a full disk, `OutcomeUnknown` when the commit itself was cut short.
async fn commit_batch(
    writer: &AnyPool,
    backend: Backend,
    hook: &feed::FeedHook,
    mut batch: Vec<Pending>,
) {
    if batch.is_empty() {
        return;
    }
    // Rows go in key order. On PostgreSQL an insert whose key another open transaction has just
    // inserted waits for that transaction; two batches in flight (two turns, or two instances)
    // that took two keys in opposite orders would wait for each other. In one order, one of them
    // always finishes first.
    batch.sort_by(|a, b| (&a.event.match_id, a.event.seq).cmp(&(&b.event.match_id, b.event.seq)));
    let one_statement = batch.len() <= MAX_ROWS_PER_INSERT
        && batch
            .iter()
            .all(|p| p.new_status.is_none() && p.outbox.is_empty());
    let mut attempt = 1;
    let outcome = loop {
        let outcome = async {
            let mut conn = writer.acquire().await.map_err(|e| (false, e))?;
            let result = async {
                if one_statement {
                    // The statement is the commit: an error may have struck after it took effect.
                    return insert_batch(&mut conn, backend, &batch)
                        .await
                        .map_err(|e| (true, e));
                }
                let mut tx = conn.begin().await.map_err(|e| (false, e))?;
                let inserted = insert_batch(&mut tx, backend, &batch)
                    .await
                    .map_err(|e| (false, e))?;
                tx.commit().await.map_err(|e| (true, e))?;
                Ok::<_, (bool, sqlx::Error)>(inserted)
            }
            .await;
            if let Err((_, err)) = &result {
                discard(&mut conn, err);
            }
            result
        }
        .await;
        match &outcome {
            // Rolled back by the server as a deadlock's victim (or a serialization failure):
            // nothing of it stands, so it is simply run again.
            Err((_, err)) if is_retryable(err) && attempt < 5 => {
                tracing::warn!(error = %err, attempt, "group commit rolled back by the database; retrying");
                attempt += 1;
            }
            _ => break outcome,
        }
    };
    match outcome {
        Ok((inserted, announced)) => {
            hook.call(&announced);
            for (p, went) in batch.into_iter().zip(inserted) {
                let _ = p.done.send(match went {
                    Went::In => Ok(()),
                    Went::Conflict => Err(StoreError::Conflict),
                    Went::Revoked => Err(StoreError::Revoked),
                });
            }
        }
        Err((at_commit, err)) => {
            tracing::error!(error = %err, appends = batch.len(), at_commit, "group commit failed");
            // A failed commit leaves nothing behind once the connection is closed, except when
            // the commit was cut short: SQLite's I/O error (a failed fsync: the WAL may hold the
            // whole transaction, which the next opening of the file would then recover), or a
            // connection lost while PostgreSQL was committing. The callers check.
            let unknown = at_commit && (is_sqlite_ioerr(&err) || is_lost_connection(&err));
            let unavailable = is_unavailable(&err);
            let detail = err.to_string();
            for p in batch {
                let _ = p.done.send(Err(if unknown {
                    StoreError::OutcomeUnknown(detail.clone())
                } else if unavailable {
                    StoreError::Unavailable(detail.clone())
                } else {
                    StoreError::GroupCommit(detail.clone())
                }));
            }
        }
    }
}

/// Whether `e` is PostgreSQL's deadlock (40P01) or serialization failure (40001): the server
/// rolled the transaction back, and running it again is safe.
pub(super) fn is_retryable(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d)
        if d.try_downcast_ref::<sqlx::postgres::PgDatabaseError>()
            .is_some_and(|p| p.code() == "40P01" || p.code() == "40001"))
}

/// Whether `e` is SQLite's I/O error (SQLITE_IOERR and its extended codes).
fn is_sqlite_ioerr(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d)
        if d.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some()
            && d.code().and_then(|c| c.parse::<i32>().ok()).is_some_and(|c| c & 0xff == 10))
}

/// Whether `e` is a lost connection: a statement sent on it may or may not have taken effect.
fn is_lost_connection(e: &sqlx::Error) -> bool {
    matches!(
        e,
        sqlx::Error::Io(_)
            | sqlx::Error::Protocol(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::WorkerCrashed
    )
}

/// The error of a write whose statements were sent: a lost connection leaves the outcome unknown.
fn sent_write_error(e: sqlx::Error) -> StoreError {
    if is_lost_connection(&e) {
        StoreError::OutcomeUnknown(e.to_string())
    } else {
        e.into()
    }
}

/// Fills `players.name_key` of the players registered before it existed (migration 0004): the
/// name folded by Rust's Unicode `to_lowercase`, so that search matches alike on both databases
/// (SQLite's own `LOWER` folds ASCII only).
async fn fill_name_keys(conn: &mut sqlx::AnyConnection) -> Result<(), StoreError> {
    let rows: Vec<(String, String)> =
        sqlx::query_as("SELECT id, name FROM players WHERE name_key IS NULL")
            .fetch_all(&mut *conn)
            .await?;
    for (id, name) in rows {
        sqlx::query("UPDATE players SET name_key = $1 WHERE id = $2")
            .bind(tournaments::name_key(&name))
            .bind(&id)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

impl Store {
    /// Connects to `url` (`sqlite://file.db?mode=rwc` or `postgres://...`) and applies the
    /// migrations of that backend.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        Store::connect_with(url, StoreOptions::default()).await
    }

    /// [`Store::connect`] with explicit options.
    pub async fn connect_with(url: &str, opts: StoreOptions) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres
        } else if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            return Err(StoreError::Corrupt(format!(
                "DATABASE_URL must start with sqlite: or postgres:, not {:?}",
                url.split(':').next().unwrap_or("")
            )));
        };
        let options = AnyConnectOptions::from_str(url)?;
        let max_pages = opts.sqlite_max_page_count;
        let store = match backend {
            Backend::Sqlite => {
                let writer = AnyPoolOptions::new()
                    .max_connections(1)
                    .test_before_acquire(false)
                    .acquire_timeout(opts.acquire_timeout)
                    .after_connect(move |conn, _| Box::pin(writer_pragmas(conn, max_pages)))
                    .connect_with(options.clone())
                    .await?;
                // Migrate before the readers connect, so they never see a half-built schema.
                // sqlx takes no lock around SQLite migrations (PostgreSQL's use an advisory
                // lock): two processes opening one fresh file at once both try to apply a
                // migration, and the one that waited fails ("table matches already exists")
                // when the other commits. Running the migrator again then finds the migration
                // applied and skips it, so a failed run is retried a few times before it counts.
                let mut attempt = 1;
                loop {
                    match sqlx::migrate!("migrations/sqlite").run(&writer).await {
                        Ok(()) => break,
                        Err(e) if attempt < 5 => {
                            tracing::warn!(attempt, error = %e, "migration failed; retrying (another process may be migrating)");
                            attempt += 1;
                            tokio::time::sleep(Duration::from_millis(100 * attempt)).await;
                        }
                        Err(e) => return Err(sqlx::Error::from(e).into()),
                    }
                }
                fill_name_keys(&mut *writer.acquire().await?).await?;
                let reader = AnyPoolOptions::new()
                    .max_connections(4)
                    .test_before_acquire(false)
                    .acquire_timeout(opts.acquire_timeout)
                    .after_connect(reader_pragmas)
                    .connect_with(options)
                    .await?;
                Store {
                    writer,
                    reader,
                    backend,
                    group: GroupCommit::new(1),
                    feed_hook: feed::FeedHook::default(),
                }
            }
            Backend::Postgres => {
                // One direct connection first, so that an unreachable server fails start-up at
                // once with its own error ("connection refused"), not a pool timeout; the
                // migrations run on it, and the pool connects lazily, so that a slow first
                // answer (a fresh database on a loaded machine) waits `connect_timeout`, never
                // the requests' `acquire_timeout`.
                let mut conn = match tokio::time::timeout(
                    opts.connect_timeout,
                    sqlx::AnyConnection::connect_with(&options),
                )
                .await
                {
                    Ok(Ok(conn)) => conn,
                    Ok(Err(e)) => {
                        return Err(StoreError::Unavailable(format!(
                            "cannot connect to PostgreSQL: {e}"
                        )))
                    }
                    Err(_) => {
                        return Err(StoreError::Unavailable(format!(
                            "cannot connect to PostgreSQL: no answer within {:?}",
                            opts.connect_timeout
                        )))
                    }
                };
                sqlx::migrate!("migrations/postgres")
                    .run(&mut conn)
                    .await
                    .map_err(sqlx::Error::from)?;
                fill_name_keys(&mut conn).await?;
                conn.close().await?;
                let pool = AnyPoolOptions::new()
                    .max_connections(16)
                    .test_before_acquire(false)
                    .before_acquire(ping_if_idle)
                    .acquire_timeout(opts.acquire_timeout)
                    .connect_lazy_with(options);
                Store {
                    writer: pool.clone(),
                    reader: pool,
                    backend,
                    group: GroupCommit::new(pg_commit_turns()),
                    feed_hook: feed::FeedHook::default(),
                }
            }
        };
        Ok(store)
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Records a new match and its token hashes in one transaction.
    pub async fn insert_match(
        &self,
        m: &MatchRow,
        tokens: &[(String, Option<i64>)],
    ) -> Result<(), StoreError> {
        self.insert_match_keyed(m, tokens, None).await
    }

    /// [`Store::insert_match`], with the create's `Idempotency-Key` and answer written first in
    /// its transaction ([`StoreError::KeyTaken`]: recorded by another request, nothing written).
    pub async fn insert_match_keyed(
        &self,
        m: &MatchRow,
        tokens: &[(String, Option<i64>)],
        key: Option<&idempotency::KeyAnswer>,
    ) -> Result<(), StoreError> {
        let mut conn = self.writer.acquire().await?;
        let result = Store::insert_match_on(&mut conn, m, tokens, key).await;
        if let Err(err) = &result {
            discard(&mut conn, err);
        }
        match result.map_err(sent_write_error)? {
            Some(refused) => Err(refused),
            None => {
                idempotency::committed(key);
                Ok(())
            }
        }
    }

    async fn insert_match_on(
        conn: &mut sqlx::AnyConnection,
        m: &MatchRow,
        tokens: &[(String, Option<i64>)],
        key: Option<&idempotency::KeyAnswer>,
    ) -> Result<Option<StoreError>, sqlx::Error> {
        let mut tx = conn.begin().await?;
        if let Some(key) = key {
            if !idempotency::record_in(&mut tx, key).await? {
                return Ok(Some(StoreError::KeyTaken));
            }
        }
        Store::insert_match_in(&mut tx, m, tokens).await?;
        tx.commit().await?;
        Ok(None)
    }

    /// Inserts a match and its token hashes on `conn` (inside the caller's transaction).
    async fn insert_match_in(
        conn: &mut sqlx::AnyConnection,
        m: &MatchRow,
        tokens: &[(String, Option<i64>)],
    ) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO matches (id, game, players, config, dealing, status, created_at, player_ids, tournament, seed_key, unrated) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        )
        .bind(&m.id)
        .bind(&m.game)
        .bind(&m.players)
        .bind(&m.config)
        .bind(&m.dealing)
        .bind(&m.status)
        .bind(&m.created_at)
        .bind(&m.player_ids)
        .bind(&m.tournament)
        .bind(&m.seed_key)
        .bind(m.unrated)
        .execute(&mut *conn)
        .await?;
        if let Some(ids) = &m.player_ids {
            // The seats that name a registered player, for `GET /v1/players/{id}/matches`.
            let ids: Vec<Option<String>> =
                serde_json::from_str(ids).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
            for (seat, id) in ids.iter().enumerate() {
                let Some(id) = id else { continue };
                sqlx::query(
                    "INSERT INTO match_players (player_id, match_num, seat) SELECT $1, num, $2 FROM matches WHERE id = $3",
                )
                .bind(id)
                .bind(seat as i64)
                .bind(&m.id)
                .execute(&mut *conn)
                .await?;
            }
        }
        for (hash, seat) in tokens {
            sqlx::query("INSERT INTO tokens (hash, match_id, seat) VALUES ($1, $2, $3)")
                .bind(hash)
                .bind(&m.id)
                .bind(*seat)
                .execute(&mut *conn)
                .await?;
        }
        Ok(())
    }

    /// Whether match `id` is recorded (after a creation whose outcome is unknown).
    pub async fn match_exists(&self, id: &str) -> Result<bool, StoreError> {
        Ok(sqlx::query("SELECT 1 AS one FROM matches WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.reader)
            .await?
            .is_some())
    }

    /// Event `seq` of match `id` as stored, with its idempotency columns (None: no such event).
    /// Used to learn whether an append whose commit failed was recorded after all.
    pub async fn event_at(&self, id: &str, seq: i64) -> Result<Option<EventRow>, StoreError> {
        Ok(sqlx::query_as(&format!(
            "SELECT {EVENT_COLUMNS}, idem_key, request_hash FROM events WHERE match_id = $1 AND seq = $2"
        ))
        .bind(id)
        .bind(seq)
        .fetch_optional(&self.reader)
        .await?)
    }

    /// Whether the database answers a trivial query within `timeout` (for `/healthz`).
    pub async fn ping(&self, timeout: Duration) -> Result<(), StoreError> {
        match tokio::time::timeout(timeout, sqlx::query("SELECT 1").execute(&self.reader)).await {
            Ok(r) => r.map(|_| ()).map_err(StoreError::from),
            Err(_) => Err(StoreError::Unavailable(format!(
                "no answer to SELECT 1 within {timeout:?}"
            ))),
        }
    }

    /// The match row, tokens and whole event log of match `id` (None: no such match).
    pub async fn load_match(
        &self,
        id: &str,
    ) -> Result<Option<(MatchRow, Vec<(String, Option<i64>)>, Vec<EventRow>)>, StoreError> {
        let Some(m) = sqlx::query_as(&format!(
            "SELECT {MATCH_COLUMNS} FROM matches WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.reader)
        .await?
        else {
            return Ok(None);
        };
        let tokens = sqlx::query_as("SELECT hash, seat FROM tokens WHERE match_id = $1")
            .bind(id)
            .fetch_all(&self.reader)
            .await?;
        let events = self.events_after(id, 0, i64::MAX).await?;
        Ok(Some((m, tokens, events)))
    }

    /// Events of match `id` with seq > `after`, oldest first, at most `limit`.
    pub async fn events_after(
        &self,
        id: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<EventRow>, StoreError> {
        Ok(sqlx::query_as(&format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE match_id = $1 AND seq > $2 ORDER BY seq LIMIT $3"
        ))
        .bind(id)
        .bind(after)
        .bind(limit)
        .fetch_all(&self.reader)
        .await?)
    }

    /// The current version of match `id`: the seq of its last event (0: none yet).
    pub async fn version(&self, id: &str) -> Result<i64, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) AS v FROM events WHERE match_id = $1")
                .bind(id)
                .fetch_one(&self.reader)
                .await?,
        )
    }

    /// The remembered answer to the request that used `key` on match `id`, if any.
    pub async fn idempotent_answer(
        &self,
        id: &str,
        key: &str,
    ) -> Result<Option<IdempotentAnswer>, StoreError> {
        let row: Option<Remembered> = sqlx::query_as(
            "SELECT request_hash, response_status, response FROM events WHERE match_id = $1 AND idem_key = $2",
        )
        .bind(id)
        .bind(key)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.map(|r| IdempotentAnswer {
            request_hash: r.request_hash.unwrap_or_default(),
            status: r.response_status.unwrap_or(201) as u16,
            body: r.response.unwrap_or_default(),
        }))
    }

    /// Appends one event; with `new_status`, also updates the match's status, atomically.
    /// Returns `Conflict` when the seq (or the idempotency key) is already taken. Returns only
    /// once the event is committed (durable). The append joins a group commit (see the module
    /// documentation): it is queued, then either receives its result from the request that
    /// committed it or takes a turn and commits the queue itself.
    pub async fn append(&self, e: &EventRow, new_status: Option<&str>) -> Result<(), StoreError> {
        self.append_with(e, new_status, Outbox::default(), false, None)
            .await
    }

    /// [`Store::append`], with the webhooks' deliveries the event causes (written in its
    /// transaction, only if it goes in), and, with `club_mark` and a `new_status`, the club's
    /// `club_pending` marker of the match (issue 24: see [`Store::club_pending`]). With `holder`
    /// (the hash of the token that authorised the write), the event goes in only if the match
    /// still has that token, checked in the insert itself: [`StoreError::Revoked`] otherwise.
    pub async fn append_with(
        &self,
        e: &EventRow,
        new_status: Option<&str>,
        outbox: Outbox,
        club_mark: bool,
        holder: Option<&str>,
    ) -> Result<(), StoreError> {
        let (done, mut result) = oneshot::channel();
        self.group
            .queue
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Pending {
                event: e.clone(),
                new_status: new_status.map(String::from),
                outbox,
                club_mark,
                holder: holder.map(String::from),
                done,
            });
        let abandoned =
            || StoreError::GroupCommit("the committing task ended without an answer".into());
        tokio::select! {
            biased;
            r = &mut result => return r.unwrap_or_else(|_| Err(abandoned())),
            turn = self.group.turns.clone().acquire_owned() => {
                let Ok(turn) = turn else { return Err(abandoned()) };
                // A holder answers all it took before giving up its turn: if ours was among them
                // the answer is here; otherwise our event is still queued, or in a batch that
                // another turn is committing (the queue may then be empty).
                if let Ok(r) = result.try_recv() {
                    return r;
                }
                let batch = self.group.take_queue();
                if !batch.is_empty() {
                    let (writer, backend) = (self.writer.clone(), self.backend);
                    let (hook, group) = (self.feed_hook.clone(), self.group.clone());
                    // The commit runs as a task of its own, holding the turn: it carries other
                    // requests' events and must finish even if this request is dropped meanwhile.
                    // It commits again at once what was queued meanwhile, and gives the turn up
                    // only when the queue is empty: handed to a waiting request instead, the
                    // next commit would first wait for that request's task to be run by its
                    // worker, behind the worker's other requests.
                    let commits = async move {
                        let mut batch = batch;
                        loop {
                            commit_batch(&writer, backend, &hook, batch).await;
                            batch = group.take_queue();
                            if batch.is_empty() {
                                break;
                            }
                        }
                        drop(turn);
                    };
                    match (self.backend, sqlite_commits()) {
                        (Backend::Sqlite, Some(rt)) => drop(rt.spawn(commits)),
                        _ => drop(tokio::spawn(commits)),
                    }
                }
            }
        }
        result.await.unwrap_or_else(|_| Err(abandoned()))
    }

    /// The bare append transaction, for the write-cost baseline (`src/bin/append_baseline.rs`,
    /// `scripts/bench.sh`): in one transaction on the writer connection, read match `id`'s
    /// version and insert `action` (stored verbatim, unparsed) as event `version + 1`. No cache,
    /// no rules, no idempotency; returns the new seq (`Conflict` if the seq was taken).
    pub async fn append_raw(&self, id: &str, action: &str) -> Result<i64, StoreError> {
        let mut conn = self.writer.acquire().await?;
        let result = Store::append_raw_on(&mut conn, id, action).await;
        match &result {
            Ok(_) | Err(StoreError::Conflict) => {}
            Err(err) => discard(&mut conn, err),
        }
        result
    }

    async fn append_raw_on(
        conn: &mut sqlx::AnyConnection,
        id: &str,
        action: &str,
    ) -> Result<i64, StoreError> {
        let mut tx = conn.begin().await?;
        let last: Option<i64> = sqlx::query_scalar(
            "SELECT seq FROM events WHERE match_id = $1 ORDER BY seq DESC LIMIT 1",
        )
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?;
        let seq = last.map_or(1, |s| s + 1);
        let created_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let inserted = sqlx::query(
            "INSERT INTO events (match_id, seq, kind, action, round, outcome, created_at) \
             VALUES ($1, $2, 'action', $3, 0, '[]', $4)",
        )
        .bind(id)
        .bind(seq)
        .bind(action)
        .bind(&created_at)
        .execute(&mut *tx)
        .await;
        match inserted {
            Ok(_) => {}
            Err(err) if is_unique_violation(&err) => return Err(StoreError::Conflict),
            Err(err) => return Err(err.into()),
        }
        tx.commit().await?;
        Ok(seq)
    }

    /// The seat of match `match_id`'s token with hash `hash` as stored now (`Some(None)`: the
    /// host's), or None when the match holds no such token (never issued, or rotated away).
    pub async fn token_seat(
        &self,
        match_id: &str,
        hash: &str,
    ) -> Result<Option<Option<i64>>, StoreError> {
        Ok(token_seat_in(&self.reader, match_id, hash).await?)
    }

    /// Replaces the token of match `match_id`'s `seat` (None: the host's) by the one with hash
    /// `new_hash`, in one transaction: the old one is gone when the new one exists.
    pub async fn replace_token(
        &self,
        match_id: &str,
        seat: Option<i64>,
        new_hash: &str,
    ) -> Result<(), StoreError> {
        let mut conn = self.writer.acquire().await?;
        let result = async {
            let mut tx = conn.begin().await?;
            match seat {
                Some(s) => {
                    sqlx::query("DELETE FROM tokens WHERE match_id = $1 AND seat = $2")
                        .bind(match_id)
                        .bind(s)
                        .execute(&mut *tx)
                        .await?
                }
                None => {
                    sqlx::query("DELETE FROM tokens WHERE match_id = $1 AND seat IS NULL")
                        .bind(match_id)
                        .execute(&mut *tx)
                        .await?
                }
            };
            sqlx::query("INSERT INTO tokens (hash, match_id, seat) VALUES ($1, $2, $3)")
                .bind(new_hash)
                .bind(match_id)
                .bind(seat)
                .execute(&mut *tx)
                .await?;
            tx.commit().await
        }
        .await;
        if let Err(err) = &result {
            discard(&mut conn, err);
        }
        result.map_err(sent_write_error)
    }

    /// Whether some match issued the token with this hash.
    pub async fn token_exists(&self, hash: &str) -> Result<bool, StoreError> {
        Ok(sqlx::query("SELECT 1 AS one FROM tokens WHERE hash = $1")
            .bind(hash)
            .fetch_optional(&self.reader)
            .await?
            .is_some())
    }

    /// Matches newest first, optionally only the one holding the token with hash `holder`, of
    /// one game and/or status, after `cursor` (a `num`).
    pub async fn list_matches(
        &self,
        holder: Option<&str>,
        game: Option<&str>,
        status: Option<&str>,
        cursor: Option<i64>,
        limit: i64,
    ) -> Result<Vec<MatchSummaryRow>, StoreError> {
        // Only the filters given enter the WHERE clause, so each query has an index to walk in
        // `num` order (`matches_by_game`, `matches_by_status`, `matches_by_game_status`; the
        // token's own primary key): a filter that matches nothing costs an index probe, not a
        // scan of every match.
        let mut filters = vec!["m.num < $1".to_string()];
        let mut binds: Vec<&str> = vec![];
        for (column, value) in [("m.game", game), ("m.status", status)] {
            if let Some(v) = value {
                binds.push(v);
                filters.push(format!("{column} = ${}", binds.len() + 2));
            }
        }
        if let Some(h) = holder {
            binds.push(h);
            filters.push(format!(
                "m.id = (SELECT t.match_id FROM tokens t WHERE t.hash = ${})",
                binds.len() + 2
            ));
        }
        let sql = format!(
            "SELECT {cols}, \
               COALESCE((SELECT MAX(e.seq) FROM events e WHERE e.match_id = m.id), 0) AS seq, \
               COALESCE((SELECT e.created_at FROM events e WHERE e.match_id = m.id ORDER BY e.seq DESC LIMIT 1), m.created_at) AS updated_at \
             FROM matches m WHERE {filters} ORDER BY m.num DESC LIMIT $2",
            cols = MATCH_COLUMNS.split(", ").map(|c| format!("m.{c}")).collect::<Vec<_>>().join(", "),
            filters = filters.join(" AND "),
        );
        let mut query = sqlx::query_as(&sql)
            .bind(cursor.unwrap_or(i64::MAX))
            .bind(limit);
        for b in binds {
            query = query.bind(b);
        }
        Ok(query.fetch_all(&self.reader).await?)
    }

    /// Closes the pools.
    pub async fn close(&self) {
        self.writer.close().await;
        self.reader.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every batch size has its statement, with exactly the rows it is padded up to, and no
    /// batch carries 8 or more padding rows.
    #[test]
    fn every_batch_size_is_padded_to_a_statement_of_its_own_size() {
        for n in 1..=MAX_ROWS_PER_INSERT {
            let size = padded(n);
            assert!((n..n + 8).contains(&size), "{n} appends padded to {size}");
            assert!(
                insert_sizes().any(|s| s == size),
                "{size} is no insert size"
            );
            let sqlite = insert_sql(size, Backend::Sqlite);
            assert_eq!(
                sqlite.matches('?').count(),
                size * ROW_PARAMS,
                "SQLite, {n}"
            );
            let postgres = insert_sql(size, Backend::Postgres);
            let last = format!("${}", size * ROW_PARAMS);
            assert!(postgres.contains(&format!("{last})")), "PostgreSQL, {n}");
            assert!(!postgres.contains(&format!("${}", size * ROW_PARAMS + 1)));
        }
        assert_eq!(insert_sizes().count(), 30);
    }
}

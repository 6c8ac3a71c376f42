//! The write-cost baseline of `scripts/bench.sh` (issue 3, "the cost of a write"): actix-web in
//! front of the bare append transaction and nothing else.
//!
//! `POST /v1/matches/{id}/actions` reads the match's version and inserts the body, verbatim, as
//! the next event ([`Store::append_raw`]) through the same [`Store`] as Clubroom: the same schema,
//! the same SQLite settings (WAL, `synchronous = FULL`, one writer connection). No token, no
//! rules, no cache, no JSON parsing or rendering: whatever Clubroom's full path costs beyond this
//! is the price of validation, auth and JSON.
//!
//! `POST /v1/matches` creates a bare match row (the events' foreign key needs one) and answers
//! `{"match": {"id": ...}, "host_token": "-"}`, the shape of Clubroom's answer, so that one bench
//! script sets up both servers alike. Not part of the product; not in the spec.
//!
//! `--one-statement` (issue 25, part 1) is the fairest baseline we can write: each append is ONE
//! autocommit statement, `INSERT … SELECT COALESCE(MAX(seq), 0) + 1 … RETURNING seq`, sent through
//! sqlx's native driver for the backend (`PgPool` / `SqlitePool`, prepared and cached), not the
//! store's `Any` pool; on PostgreSQL through a pool of up to 64 connections, so that the server's
//! own WAL flushing can group concurrent commits. The four-round-trip transaction above stays the
//! default, kept beside it so the two baselines can be compared.
//!
//! `--no-database` is the ceiling: the same two routes through the same actix-web, answering at
//! once from memory (a match id drawn, the next `seq` from a counter), with no database at all.
//! It is the most writes per second any server answering over HTTP can reach on the machine with
//! the bench's client, so a target above it (a ratio to a baseline) is beyond the machine, not the
//! code. Clubroom's answers are the whole match (about 4 KB), the ceiling's a few bytes: the
//! ceiling is generous.
//!
//! Usage: `append_baseline --bind 127.0.0.1:8081 --database-url sqlite://bench.db?mode=rwc
//! [--one-statement | --no-database]`.

use std::net::TcpListener;

use actix_web::{post, web, App, HttpResponse, HttpServer};
use clap::Parser;
use clubroom::{
    server::DEFAULT_DATABASE_URL,
    store::{MatchRow, Store, StoreError},
};

#[derive(Parser)]
#[command(
    name = "append_baseline",
    about = "Bare append baseline for the write-cost bench"
)]
struct Cli {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8081")]
    bind: String,
    /// Database: `sqlite://file.db?mode=rwc` or `postgres://user@host/db`.
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
    database_url: String,
    /// Append with one autocommit statement through the backend's native pool (see above).
    #[arg(long, conflicts_with = "no_database")]
    one_statement: bool,
    /// Answer from memory, with no database: the ceiling (see above).
    #[arg(long)]
    no_database: bool,
}

/// The ceiling's `seq`: one counter for every match (the answer's shape, not its meaning).
static SEQ: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(0);

/// The one-statement append: the version read and the insert in a single autocommit statement.
/// A unique violation (two appends of one match at once) answers 409, as the store's does.
const ONE_STATEMENT: &str = "INSERT INTO events (match_id, seq, kind, action, round, outcome, created_at) \
     SELECT $1, COALESCE(MAX(seq), 0) + 1, 'action', $2, 0, '[]', $3 FROM events WHERE match_id = $1 \
     RETURNING seq";

/// The native pool of `--one-statement`.
#[derive(Clone)]
enum Native {
    Postgres(sqlx::PgPool),
    Sqlite(sqlx::SqlitePool),
}

impl Native {
    async fn connect(url: &str) -> anyhow::Result<Native> {
        use std::str::FromStr;
        Ok(if url.starts_with("postgres") {
            Native::Postgres(
                sqlx::postgres::PgPoolOptions::new()
                    .max_connections(64)
                    .connect(url)
                    .await?,
            )
        } else {
            // The store's SQLite settings: WAL, synchronous = FULL, one writer connection.
            let options = sqlx::sqlite::SqliteConnectOptions::from_str(url)?
                .journal_mode(sqlx::sqlite::SqliteJournalMode::Wal)
                .synchronous(sqlx::sqlite::SqliteSynchronous::Full)
                .busy_timeout(std::time::Duration::from_secs(5));
            Native::Sqlite(
                sqlx::sqlite::SqlitePoolOptions::new()
                    .max_connections(1)
                    .connect_with(options)
                    .await?,
            )
        })
    }

    async fn append(&self, id: &str, body: &str) -> Result<i64, sqlx::Error> {
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        match self {
            Native::Postgres(pool) => {
                sqlx::query_scalar(ONE_STATEMENT)
                    .bind(id)
                    .bind(body)
                    .bind(now)
                    .fetch_one(pool)
                    .await
            }
            Native::Sqlite(pool) => {
                sqlx::query_scalar(ONE_STATEMENT)
                    .bind(id)
                    .bind(body)
                    .bind(now)
                    .fetch_one(pool)
                    .await
            }
        }
    }
}

/// Creates a bare match row (no players, no tokens).
#[post("/v1/matches")]
async fn create(store: web::Data<Option<Store>>) -> HttpResponse {
    let id = hex::encode(rand::random::<[u8; 16]>());
    let answer = format!(r#"{{"match":{{"id":"{id}"}},"host_token":"-"}}"#);
    let Some(store) = store.get_ref() else {
        return created(answer);
    };
    let row = MatchRow {
        num: 0,
        id: id.clone(),
        game: "dump".into(),
        players: "[]".into(),
        config: "{}".into(),
        dealing: "table".into(),
        status: "in_progress".into(),
        created_at: chrono::Utc::now().to_rfc3339(),
        ..MatchRow::default()
    };
    match store.insert_match(&row, &[]).await {
        Ok(()) => created(answer),
        Err(e) => HttpResponse::InternalServerError().body(e.to_string()),
    }
}

/// Reads the version and appends the body as the next event, in one transaction (or in one
/// statement, with `--one-statement`).
#[post("/v1/matches/{id}/actions")]
async fn append(
    store: web::Data<Option<Store>>,
    native: web::Data<Option<Native>>,
    id: web::Path<String>,
    body: String,
) -> HttpResponse {
    let Some(store) = store.get_ref() else {
        // The ceiling: the request read whole, as the others read it, and answered from memory.
        let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        return created(format!(r#"{{"seq":{seq},"bytes":{}}}"#, body.len()));
    };
    if let Some(native) = native.get_ref() {
        return match native.append(&id, &body).await {
            Ok(seq) => created(format!(r#"{{"seq":{seq}}}"#)),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                HttpResponse::Conflict().finish()
            }
            Err(e) => HttpResponse::InternalServerError().body(e.to_string()),
        };
    }
    match store.append_raw(&id, &body).await {
        Ok(seq) => created(format!(r#"{{"seq":{seq}}}"#)),
        Err(StoreError::Conflict) => HttpResponse::Conflict().finish(),
        Err(e) => HttpResponse::InternalServerError().body(e.to_string()),
    }
}

/// A 201 with a JSON body.
fn created(body: String) -> HttpResponse {
    HttpResponse::Created()
        .content_type("application/json")
        .body(body)
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    actix_web::rt::System::new().block_on(async move {
        let listener = TcpListener::bind(&cli.bind)?;
        // The store migrates the schema (and creates the match rows) in both database modes.
        let store = web::Data::new(if cli.no_database {
            None
        } else {
            Some(Store::connect(&cli.database_url).await?)
        });
        let native = web::Data::new(if cli.one_statement {
            Some(Native::connect(&cli.database_url).await?)
        } else {
            None
        });
        HttpServer::new(move || {
            App::new()
                .app_data(store.clone())
                .app_data(native.clone())
                .service(create)
                .service(append)
        })
        .listen(listener)?
        .run()
        .await?;
        Ok(())
    })
}

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
//! Usage: `append_baseline --bind 127.0.0.1:8081 --database-url sqlite://bench.db?mode=rwc`.

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
}

/// Creates a bare match row (no players, no tokens).
#[post("/v1/matches")]
async fn create(store: web::Data<Store>) -> HttpResponse {
    let id = hex::encode(rand::random::<[u8; 16]>());
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
        Ok(()) => HttpResponse::Created()
            .content_type("application/json")
            .body(format!(r#"{{"match":{{"id":"{id}"}},"host_token":"-"}}"#)),
        Err(e) => HttpResponse::InternalServerError().body(e.to_string()),
    }
}

/// Reads the version and appends the body as the next event, in one transaction.
#[post("/v1/matches/{id}/actions")]
async fn append(store: web::Data<Store>, id: web::Path<String>, body: String) -> HttpResponse {
    match store.append_raw(&id, &body).await {
        Ok(seq) => HttpResponse::Created()
            .content_type("application/json")
            .body(format!(r#"{{"seq":{seq}}}"#)),
        Err(StoreError::Conflict) => HttpResponse::Conflict().finish(),
        Err(e) => HttpResponse::InternalServerError().body(e.to_string()),
    }
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    actix_web::rt::System::new().block_on(async move {
        let listener = TcpListener::bind(&cli.bind)?;
        let store = web::Data::new(Store::connect(&cli.database_url).await?);
        HttpServer::new(move || {
            App::new()
                .app_data(store.clone())
                .service(create)
                .service(append)
        })
        .listen(listener)?
        .run()
        .await?;
        Ok(())
    })
}

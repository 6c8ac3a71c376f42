//! Starting the server: connect, migrate, bind, serve.

use std::net::TcpListener;

use actix_web::{web, HttpServer};

use crate::{
    app::build_app,
    matches::Matches,
    store::{Backend, Store},
};

/// The database used when `DATABASE_URL` is not set: a SQLite file in the working directory.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://clubroom.db?mode=rwc";

/// Connects to `database_url` and returns a running server on `listener` (not yet awaited).
pub async fn start(
    listener: TcpListener,
    database_url: &str,
) -> anyhow::Result<actix_web::dev::Server> {
    let store = Store::connect(database_url).await?;
    let postgres = store.backend() == Backend::Postgres;
    let svc = web::Data::new(Matches::new(store));
    if postgres {
        // Streams on every instance hear of every instance's writes (LISTEN/NOTIFY).
        svc.live().share_over_postgres(database_url)?;
    }
    let server = HttpServer::new(move || build_app(svc.clone()))
        .listen(listener)?
        .run();
    Ok(server)
}

//! Starting the server: connect, migrate, bind, serve.

use std::net::TcpListener;

use actix_web::{web, HttpServer};

use crate::{
    app::build_app,
    matches::Matches,
    store::{Store, StoreOptions},
};

/// The database used when `DATABASE_URL` is not set: a SQLite file in the working directory.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://clubroom.db?mode=rwc";

/// Connects to `database_url` and returns a running server on `listener` (not yet awaited).
pub async fn start(
    listener: TcpListener,
    database_url: &str,
) -> anyhow::Result<actix_web::dev::Server> {
    start_with(listener, database_url, StoreOptions::default()).await
}

/// [`start`] with explicit store options.
pub async fn start_with(
    listener: TcpListener,
    database_url: &str,
    options: StoreOptions,
) -> anyhow::Result<actix_web::dev::Server> {
    let store = Store::connect_with(database_url, options).await?;
    let svc = web::Data::new(Matches::new(store));
    let server = HttpServer::new(move || build_app(svc.clone()))
        .listen(listener)?
        .run();
    Ok(server)
}

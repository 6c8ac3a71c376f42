//! Starting the server: connect, migrate, bind, serve.

use std::{net::TcpListener, time::Duration};

use actix_web::{web, HttpServer};

use crate::{
    app::build_app_with,
    edge::{Edge, Limits},
    matches::Matches,
    store::{Backend, Store, StoreOptions},
};

/// The database used when `DATABASE_URL` is not set: a SQLite file in the working directory.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://clubroom.db?mode=rwc";

/// What `clubroom serve` (and `clubroom` alone) takes.
#[derive(Clone, Debug, clap::Args)]
pub struct ServeOptions {
    /// Address to listen on (`0.0.0.0:8080` for phones on the same network).
    #[arg(long, env = "CLUBROOM_BIND", default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// Database: `sqlite://file.db?mode=rwc` or `postgres://user@host/db`.
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
    pub database_url: String,
    /// The operator's token: with it, `GET /v1/matches` lists every match. Without one set, the
    /// list shows each caller only the match its token belongs to.
    #[arg(long, env = "CLUBROOM_OPERATOR_TOKEN", hide_env_values = true)]
    pub operator_token: Option<String>,
    /// Connection and request limits.
    #[command(flatten)]
    pub limits: Limits,
}

/// Files the process keeps for itself beyond its connections (database, log, listener...).
const RESERVED_FILES: u64 = 256;

/// Raises the open-file limit to its hard limit and returns how many connections fit under it.
fn connections_that_fit(wanted: usize) -> usize {
    let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap_or_else(|e| {
        tracing::warn!(error = %e, "could not read or raise the open-file limit");
        rlimit::getrlimit(rlimit::Resource::NOFILE).map_or(1024, |(soft, _)| soft)
    });
    let fit = limit.saturating_sub(RESERVED_FILES).max(64) as usize;
    if fit < wanted {
        tracing::info!(
            wanted,
            open_file_limit = limit,
            allowed = fit,
            "max connections lowered to fit the open-file limit"
        );
    }
    wanted.min(fit)
}

/// Connects to `database_url` and returns a running server on `listener` (not yet awaited), with
/// the default [`Limits`].
pub async fn start(
    listener: TcpListener,
    database_url: &str,
) -> anyhow::Result<actix_web::dev::Server> {
    start_with(listener, database_url, Limits::default(), None).await
}

/// Connects to `database_url` and returns a running server on `listener` (not yet awaited).
pub async fn start_with(
    listener: TcpListener,
    database_url: &str,
    limits: Limits,
    operator_token: Option<String>,
) -> anyhow::Result<actix_web::dev::Server> {
    start_with_store(
        listener,
        database_url,
        limits,
        operator_token,
        StoreOptions::default(),
    )
    .await
}

/// [`start_with`] with explicit store options (acquire timeout, test caps).
pub async fn start_with_store(
    listener: TcpListener,
    database_url: &str,
    limits: Limits,
    operator_token: Option<String>,
    store_options: StoreOptions,
) -> anyhow::Result<actix_web::dev::Server> {
    let store = Store::connect_with(database_url, store_options).await?;
    let postgres = store.backend() == Backend::Postgres;
    let svc = web::Data::new(Matches::new(store).with_operator_token(operator_token.as_deref()));
    if postgres {
        // Streams on every instance hear of every instance's writes (LISTEN/NOTIFY).
        svc.live().share_over_postgres(database_url);
    }
    let edge = Edge::new(limits);
    // A long queue of connections the kernel has accepted and the server not yet taken, so that
    // under a flood a newcomer (a probe of /healthz, a phone) waits its turn in the queue rather
    // than having its SYN dropped and retried a second or three later. The listener comes bound
    // with std's backlog of 128: listening again sets ours (the kernel caps it at somaxconn).
    socket2::SockRef::from(&listener).listen(limits.backlog.min(i32::MAX as u32) as i32)?;
    // HTTP worker threads: one per core unless CLUBROOM_WORKERS says otherwise (1 to 256).
    let workers = std::env::var("CLUBROOM_WORKERS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|n| (1..=256).contains(n))
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let per_worker = (connections_that_fit(limits.max_connections) / workers).max(1);
    let server = HttpServer::new(move || build_app_with(svc.clone(), edge.clone()))
        .workers(workers)
        .max_connections(per_worker)
        .client_request_timeout(Duration::from_secs(limits.head_timeout_secs))
        .client_disconnect_timeout(Duration::from_secs(1))
        .keep_alive(Duration::from_secs(limits.keep_alive_secs))
        .listen(listener)?
        .run();
    Ok(server)
}

//! Starting the server: connect, migrate, bind, serve.

use std::{net::TcpListener, sync::Arc, time::Duration};

use actix_web::{web, HttpServer};
use tokio::sync::watch;

use crate::{
    app::{build_app_with, Shared},
    edge::Limits,
    limits::Quotas,
    matches::Matches,
    routes::stream::Streams,
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
    /// Per-client limits: streams, unauthenticated creates, trusted proxies.
    #[command(flatten)]
    pub quotas: Quotas,
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
    let settings = Settings {
        limits,
        operator_token,
        store_options,
        ..Settings::new(database_url)
    };
    Ok(launch(listener, settings).await?.server)
}

/// Everything a server is started with besides its listener.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The database URL.
    pub database_url: String,
    /// Connection and request limits.
    pub limits: Limits,
    /// Per-client limits.
    pub quotas: Quotas,
    /// The operator's token (lists every match).
    pub operator_token: Option<String>,
    /// Store options.
    pub store_options: StoreOptions,
    /// Stop on SIGINT and SIGTERM (the binary); without, only [`Stopper::stop`] stops it.
    pub stop_on_signals: bool,
    /// Webhooks: the SSRF guard's allowance, retries, the worker (from the environment).
    pub webhooks: crate::webhooks::WebhookOptions,
}

impl Settings {
    /// The defaults, on `database_url`.
    pub fn new(database_url: &str) -> Settings {
        Settings {
            database_url: database_url.to_string(),
            limits: Limits::default(),
            quotas: Quotas::default(),
            operator_token: None,
            store_options: StoreOptions::default(),
            stop_on_signals: false,
            webhooks: crate::webhooks::WebhookOptions::default(),
        }
    }
}

/// A started server: the future to await, and the way to stop it.
pub struct Running {
    /// The actix server (await it: it ends when the server has stopped).
    pub server: actix_web::dev::Server,
    /// Stops it.
    pub stopper: Stopper,
}

/// Stops a server gracefully: every live stream ends at once (its client reconnects, to this
/// server's successor), the listener closes, requests in flight are answered (for up to
/// [`SHUTDOWN_TIMEOUT_SECS`]), idle connections close. A stream would otherwise hold its
/// connection, and the stop, for up to 30 minutes.
#[derive(Clone)]
pub struct Stopper {
    tx: Arc<watch::Sender<bool>>,
}

impl Stopper {
    /// Starts the stop (the server's future ends once it is done).
    pub fn stop(&self) {
        self.tx.send_replace(true);
    }
}

/// How long requests in flight may take to finish once a stop has begun (a write waits 3 s at
/// most for a database connection; streams end at once).
pub const SHUTDOWN_TIMEOUT_SECS: u64 = 10;

/// How long data sent on a connection may stay unacknowledged before the kernel closes it. A
/// phone that left without closing its stream is noticed at its next keep-alive comment plus
/// this, not after the kernel's default of about 15 minutes of retransmissions, and its stream
/// slot is freed.
const TCP_USER_TIMEOUT: Duration = Duration::from_secs(30);

/// Waits for SIGINT or SIGTERM.
async fn signalled() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) {
            (Ok(mut int), Ok(mut term)) => {
                tokio::select! {
                    _ = int.recv() => tracing::info!("SIGINT: stopping"),
                    _ = term.recv() => tracing::info!("SIGTERM: stopping"),
                }
            }
            _ => {
                tracing::warn!("could not listen for signals; stop with SIGKILL");
                std::future::pending::<()>().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Connects to the database and returns a running server on `listener` (not yet awaited).
pub async fn launch(listener: TcpListener, settings: Settings) -> anyhow::Result<Running> {
    let Settings {
        database_url,
        limits,
        quotas,
        operator_token,
        store_options,
        stop_on_signals,
        webhooks,
    } = settings;
    let database_url = database_url.as_str();
    // The table page's files are hashed and compressed once, beside the start-up.
    crate::routes::page::warm_up();
    let store = Store::connect_with(database_url, store_options).await?;
    let postgres = store.backend() == Backend::Postgres;
    let svc =
        web::Data::new(Matches::new(store.clone()).with_operator_token(operator_token.as_deref()));
    if postgres {
        // Streams on every instance hear of every instance's writes (LISTEN/NOTIFY).
        svc.live().share_over_postgres(database_url, store);
    }
    // The club (issue 24): results whose recording a crash (or a failure) left pending, taken
    // in before serving.
    let pending = crate::club::recover(
        &svc,
        &crate::tournaments::service::Tournaments::new(svc.clone().into_inner()),
    )
    .await;
    if pending > 0 {
        tracing::warn!(
            pending,
            "the club replayed results left pending by the last run"
        );
    }
    let mut shared = Shared::new(limits, &quotas);
    shared.webhooks = webhooks.clone();
    let streams: Arc<Streams> = shared.streams.clone().into_inner();
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
    let (tx, mut rx) = watch::channel(false);
    let stopper = Stopper { tx: Arc::new(tx) };
    // Webhooks: the delivery worker, stopped with the server.
    let (worker_stop, worker_stopped) = watch::channel(false);
    if webhooks.worker {
        crate::webhooks::worker::spawn(svc.store().clone(), webhooks, worker_stopped);
    }
    // The stop, by signal or by `Stopper::stop`: the streams end first, then actix stops
    // gracefully (its own signal handling is replaced by this future).
    let stop = async move {
        let asked = async {
            // Every `Stopper` dropped: only a signal stops the server now.
            if rx.wait_for(|stop| *stop).await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            _ = asked => {}
            _ = signalled(), if stop_on_signals => {}
        }
        let open = streams.open();
        streams.close_all();
        worker_stop.send_replace(true);
        tracing::info!(streams = open, "stopping: streams ended");
    };
    let server = HttpServer::new(move || build_app_with(svc.clone(), shared.clone()))
        .shutdown_signal(stop)
        .shutdown_timeout(SHUTDOWN_TIMEOUT_SECS)
        .on_connect(|conn, _| {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            if let Some(tcp) = conn.downcast_ref::<actix_web::rt::net::TcpStream>() {
                let _ = socket2::SockRef::from(tcp).set_tcp_user_timeout(Some(TCP_USER_TIMEOUT));
            }
        })
        .workers(workers)
        .max_connections(per_worker)
        .client_request_timeout(Duration::from_secs(limits.head_timeout_secs))
        .client_disconnect_timeout(Duration::from_secs(1))
        // A client that closes its connection is gone: its live stream ends (and frees its slot)
        // at once, not at the next keep-alive comment that fails. (actix's default keeps a
        // half-closed connection to answer it; no client of this API half-closes.)
        .h1_allow_half_closed(false)
        .keep_alive(Duration::from_secs(limits.keep_alive_secs))
        .listen(listener)?
        .run();
    Ok(Running { server, stopper })
}

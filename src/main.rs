//! The `clubroom` binary: `serve` (the default), `openapi`, `migrate`, `deal`.

use std::net::TcpListener;

use clap::{Parser, Subcommand};
use clubroom::{
    rules::{Actor, AnyGame, Dealing, Seed},
    server::{self, ServeOptions, DEFAULT_DATABASE_URL},
    store::Store,
};

#[derive(Parser)]
#[command(
    name = "clubroom",
    version,
    about = "A REST companion for a real card or board game table",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// With no subcommand, `clubroom` serves: the same options (and environment) as `serve`.
    #[command(flatten)]
    serve: ServeOptions,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the HTTP API (the default).
    Serve(ServeOptions),
    /// Print the OpenAPI document.
    Openapi,
    /// Apply the database migrations and exit.
    Migrate {
        /// Database URL.
        #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
        database_url: String,
    },
    /// Replay every game's club ratings from its first result (after results were imported
    /// in bulk, as `scripts/club-scale.sh` does) and exit.
    ClubReplay {
        /// Database URL.
        #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
        database_url: String,
    },
    /// Re-derive a service deal from its revealed seed and print every hand (to verify a deal).
    Deal {
        /// The game id, e.g. `dump`.
        #[arg(long)]
        game: String,
        /// Number of players.
        #[arg(long)]
        players: usize,
        /// The revealed seed (64 hex digits).
        #[arg(long)]
        seed: String,
        /// The match's config as JSON, with the option that names that deal's dealer
        /// (e.g. `{"first_dealer": 2}` for a Dump deal dealt by seat 2).
        #[arg(long, default_value = "{}")]
        config: String,
    },
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Serve(cli.serve)) {
        Command::Serve(opts) => actix_web::rt::System::new().block_on(async move {
            let listener = TcpListener::bind(&opts.bind)?;
            tracing::info!(address = %listener.local_addr()?, "clubroom listening");
            let settings = server::Settings {
                limits: opts.limits,
                quotas: opts.quotas,
                operator_token: opts.operator_token,
                stop_on_signals: true,
                ..server::Settings::new(&opts.database_url)
            };
            server::launch(listener, settings).await?.server.await?;
            Ok(())
        }),
        Command::Openapi => {
            print!("{}", clubroom::app::openapi_json());
            Ok(())
        }
        Command::Migrate { database_url } => actix_web::rt::System::new().block_on(async move {
            Store::connect(&database_url).await?.close().await;
            println!("migrations applied");
            Ok(())
        }),
        Command::ClubReplay { database_url } => actix_web::rt::System::new().block_on(async move {
            let store = Store::connect(&database_url).await?;
            let games = store.club_replay_all().await?;
            store.close().await;
            println!("club ratings replayed: {games:?}");
            Ok(())
        }),
        Command::Deal {
            game,
            players,
            seed,
            config,
        } => {
            let seed = Seed::from_hex(&seed)
                .ok_or_else(|| anyhow::anyhow!("the seed must be 64 hex digits"))?;
            let config: serde_json::Value = serde_json::from_str(&config)?;
            let mut g = AnyGame::new(&game, Some(config), players, Dealing::Service)?;
            g.apply(
                Actor::Table,
                &serde_json::json!({"type": "deal"}),
                Some(&seed),
            )?;
            let hands: Vec<serde_json::Value> = (0..players).map(|s| g.seat_view(s)).collect();
            let out = serde_json::json!({ "commitment": seed.commitment(), "dealer": g.dealer(), "seats": hands, "table": g.table_view() });
            println!("{}", serde_json::to_string_pretty(&out)?);
            Ok(())
        }
    }
}

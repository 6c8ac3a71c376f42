//! A Swiss tournament at national size, built over the service's real code path (the same calls
//! the routes make, on a real database): create it, then round after round pair it, enter every
//! table's result (quick log) and read the standings, timing each call. Run by
//! `scripts/tournament-scale.sh` (issue 25, part 4); by hand:
//!
//! ```text
//! cargo bench --bench tournament_scale -- [players] [rounds] [runs] [seats]
//! DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres cargo bench --bench tournament_scale
//! ```
//!
//! On PostgreSQL a fresh database is created on that server for each run and dropped after it;
//! otherwise a fresh SQLite file in a temporary directory. Results are Dump to 100 at tables of
//! two (`seats` 4: Clubs at tables of four): a random table's winner reaches the target, the
//! other a random lower total. It prints, per run, each round's pairing time, the median, 90th
//! percentile and largest of its entries, the round's entries in all and the standings after it;
//! then, over the runs, the min / median / max of the figures the issue's targets name.

use std::{sync::Arc, time::Instant};

use clubroom::{
    matches::Matches,
    rng::SplitMix64,
    store::Store,
    tournaments::{
        service::Tournaments,
        views::{CreateTournament, EnterResult},
    },
};
use serde_json::json;

/// One round's figures, in milliseconds.
struct Round {
    pair: f64,
    entries: Vec<f64>,
    standings: f64,
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// The `q` quantile of `xs` (nearest rank).
fn quantile(xs: &[f64], q: f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return 0.0;
    }
    v[((v.len() as f64 * q).ceil() as usize).clamp(1, v.len()) - 1]
}

/// A fresh database URL, and what to drop afterwards (the PostgreSQL database's name).
async fn fresh(
    admin: Option<&str>,
    run: usize,
) -> (String, Option<String>, Option<tempfile::TempDir>) {
    match admin {
        Some(admin) => {
            use sqlx::Connection;
            let name = format!("clubroom_scale_{}_{run}", std::process::id());
            let mut conn = sqlx::PgConnection::connect(admin).await.expect("connect");
            sqlx::query(&format!("CREATE DATABASE {name}"))
                .execute(&mut conn)
                .await
                .expect("create database");
            let base = admin.rsplit_once('/').map_or(admin, |(b, _)| b);
            (format!("{base}/{name}"), Some(name), None)
        }
        None => {
            let dir = tempfile::tempdir().expect("temp dir");
            let url = format!(
                "sqlite://{}?mode=rwc",
                dir.path().join("scale.db").display()
            );
            (url, None, Some(dir))
        }
    }
}

async fn drop_database(admin: &str, name: &str) {
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(admin).await.expect("connect");
    sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .execute(&mut conn)
        .await
        .expect("drop database");
}

/// One tournament of `n` players over `rounds` rounds at tables of `seats`.
async fn run(url: &str, n: usize, rounds: u32, seats: usize, seed: u64) -> Vec<Round> {
    let store = Store::connect(url).await.expect("store");
    let svc = Tournaments::new(Arc::new(Matches::new(store.clone())));
    let (game, config) = if seats == 4 {
        ("clubs", json!({}))
    } else {
        ("dump", json!({"target": 100}))
    };
    let players: Vec<_> = (0..n).map(|i| json!({"name": format!("P{i}")})).collect();
    let req: CreateTournament = serde_json::from_value(json!({
        "name": "National open",
        "game": game,
        "config": config,
        "format": "swiss",
        "rounds": rounds,
        "table_size": seats,
        "record": "totals",
        "players": players,
    }))
    .expect("request");
    let created = svc.create_tournament(req).await.expect("created");
    let (id, token) = (created.tournament.id, created.organiser_token);
    let mut rng = SplitMix64::new(seed);
    let mut out = vec![];
    for _ in 1..=rounds {
        let t = Instant::now();
        let paired = svc.pair_round(&id, Some(&token)).await.expect("paired");
        let pair = ms(t);
        let round = paired.round.round;
        let mut entries = Vec::with_capacity(paired.round.tables.len());
        for tb in &paired.round.tables {
            let units = tb.players.len();
            let totals: Vec<i64> = if seats == 4 {
                // Clubs: four deals of 26 penalty points, one player past 100.
                let mut t = vec![0; units];
                let (a, b) = (rng.below(units), rng.below(units));
                t[a] -= 101;
                t[b] -= 3;
                t
            } else {
                let mut t: Vec<i64> = (0..units).map(|_| rng.below(100) as i64).collect();
                t[rng.below(units)] = 100;
                t
            };
            let req: EnterResult =
                serde_json::from_value(json!({ "totals": totals })).expect("entry");
            let t = Instant::now();
            svc.enter_result(&id, round, tb.table, Some(&token), req)
                .await
                .expect("entered");
            entries.push(ms(t));
        }
        let t = Instant::now();
        let standings = svc.standings(&id).await.expect("standings");
        assert_eq!(standings.rows.len(), n);
        out.push(Round {
            pair,
            entries,
            standings: ms(t),
        });
    }
    store.close().await;
    out
}

fn spread(label: &str, xs: &[f64]) {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    println!(
        "{label}: min {:.3} / median {:.3} / max {:.3} ms",
        v[0],
        v[v.len() / 2],
        v[v.len() - 1]
    );
}

#[actix_web::main]
async fn main() {
    // `cargo bench` passes `--bench`; the numbers are ours.
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = args.first().copied().unwrap_or(256);
    let rounds = args.get(1).copied().unwrap_or(7) as u32;
    let runs = args.get(2).copied().unwrap_or(3);
    let seats = args.get(3).copied().unwrap_or(2);
    let admin = std::env::var("DATABASE_URL")
        .ok()
        .filter(|u| u.starts_with("postgres"));
    let db = if admin.is_some() {
        "PostgreSQL"
    } else {
        "SQLite"
    };
    println!("{n} players, {rounds} rounds, tables of {seats}, {db}, {runs} runs");
    let mut all = vec![];
    for r in 0..runs {
        let (url, name, _dir) = fresh(admin.as_deref(), r).await;
        let rounds_of = run(&url, n, rounds, seats, 0x5CA1E + r as u64).await;
        if let (Some(admin), Some(name)) = (&admin, &name) {
            drop_database(admin, name).await;
        }
        println!("run {}:", r + 1);
        for (i, x) in rounds_of.iter().enumerate() {
            println!(
                "  round {}: pair {:.1} ms; {} entries: median {:.3} p90 {:.3} max {:.3} ms, all {:.0} ms; standings {:.1} ms",
                i + 1,
                x.pair,
                x.entries.len(),
                quantile(&x.entries, 0.5),
                quantile(&x.entries, 0.9),
                quantile(&x.entries, 1.0),
                x.entries.iter().sum::<f64>(),
                x.standings
            );
        }
        all.push(rounds_of);
    }
    let last = rounds as usize - 1;
    let pick =
        |f: &dyn Fn(&Round) -> f64| -> Vec<f64> { all.iter().map(|r| f(&r[last])).collect() };
    println!("over {runs} runs, round {rounds}:");
    spread(
        "  one entry (median of the round)",
        &pick(&|x| quantile(&x.entries, 0.5)),
    );
    spread(
        "  one entry (90th percentile)",
        &pick(&|x| quantile(&x.entries, 0.9)),
    );
    spread(
        "  the round's entries in all",
        &pick(&|x| x.entries.iter().sum()),
    );
    spread("  pairing the round", &pick(&|x| x.pair));
    spread("  standings after it", &pick(&|x| x.standings));
}

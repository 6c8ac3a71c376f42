//! Criterion benches of the pure rules engines (issue 2 "Performance, measured not timed").
//!
//! `dump/random_legal_deal_4p_service`: whole Dump deals per second, from the `deal` (service
//! dealing, a different seed every iteration) through 40 random legal plays to the scored deal.
//! Each play is chosen by a cheap deterministic generator among the legal ones through
//! `Game::legal_pick` (the index into `legal_actions`' list, same order and cap; a game may count
//! and unrank instead of listing, as By Hook or Crook does its exhibits). Throughput is reported
//! in deals/s.
//!
//! `<game>/random_legal_round_4p_service`, for each of the six games: a new 4-player match in
//! service dealing, then random legal actions (the table's deal with a fresh seed, every seat's
//! choices, simultaneous ones in random order) until the first round (deal, rubber game, heat)
//! is scored. By Hook or Crook is one deal played to its end, so its "round" is a whole game
//! (about 50 turns and 490 actions of 4 players at random), and the comparison names its unit
//! `game`. Generic over [`Game`], an action picked through
//! `legal_pick` at every step. Throughput is reported in rounds/s.
//!
//! Then, when OpenSpiel's Python package is installed (`pip install open_spiel`, for the Python
//! in `PYTHON` or in the venv `~/.cache/clubroom-ci/openspiel`, else `python3`'s; skipped
//! otherwise, or with `ENGINE_OPENSPIEL=0`), the comparison the issue asks for (issue 25, item
//! 3): three alternating runs of OpenSpiel's hearts at random legal play
//! (`benches/openspiel_hearts.py`, whole deals through `pyspiel`) and of each game's random legal
//! round above, each run a fixed time on one core; prints min / median / max per second and each
//! game's median as a multiple of hearts' median, against the target of 20×.
//!
//! Run on a quiet machine: `cargo bench --bench engine` (one game: `cargo bench --bench engine
//! -- clubs`, which skips the comparison; only the comparison: `cargo bench --bench engine --
//! openspiel`). `ENGINE_COMPARE_SECONDS` (default 2) sets the length of one comparison run.
//! `ENGINE_FIXED_ROUNDS=N cargo bench --bench engine -- <game id>` plays exactly N rounds of one
//! game and exits (fixed work, for `valgrind --tool=callgrind` instructions per round).

use std::{
    hint::black_box,
    process::Command,
    time::{Duration, Instant},
};

use clubroom::rules::{
    bonus_malus::BonusMalus,
    by_hook_or_crook::ByHookOrCrook,
    clubs::Clubs,
    dump::{Action, Dump, DumpConfig, MAX_TARGET},
    members_only::MembersOnly,
    plus_minus::PlusMinus,
    Actor, Dealing, Game,
};
use criterion::{criterion_group, Criterion, Throughput};

// The deals' seeds and choices: deterministic, a few instructions per number.
use clubroom::rng::SplitMix64 as Rng;

/// One whole 4-player service-dealing deal, from the deal to the score, seeded by `n`.
fn random_dump_deal(n: u64) -> Dump {
    let config = DumpConfig {
        target: MAX_TARGET,
        first_dealer: (n % 4) as usize,
        ..DumpConfig::default()
    };
    let mut g = Dump::new(config, 4, Dealing::Service).expect("4 players, valid config");
    let mut rng = Rng::new(n);
    g.apply(Actor::Table, &Action::Deal {}, Some(&rng.seed()))
        .expect("the first deal");
    while let &[seat] = g.to_act().seats.as_slice() {
        let action = g
            .legal_pick(Actor::Seat(seat), |n| (rng.next_u64() % n as u64) as usize)
            .expect("a legal play");
        g.apply(Actor::Seat(seat), &action, None)
            .expect("a legal play");
    }
    debug_assert_eq!(g.rounds_completed(), 1);
    g
}

fn dump_deals(c: &mut Criterion) {
    let mut group = c.benchmark_group("dump");
    group.throughput(Throughput::Elements(1));
    let mut n = 0u64;
    group.bench_function("random_legal_deal_4p_service", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            black_box(random_dump_deal(black_box(n)))
        })
    });
    group.finish();
}

/// A new 4-player service-dealt match of `G` played at random, legally, to the end of its first
/// round.
fn random_round<G: Game>(n: u64) -> G {
    let mut g = G::new(G::Config::default(), 4, Dealing::Service).expect("4 players, defaults");
    let mut rng = Rng::new(n);
    while g.rounds_completed() == 0 {
        let to = g.to_act();
        let actor = match to.seats.as_slice() {
            [] if to.table => Actor::Table,
            [] => break, // finished
            seats => Actor::Seat(seats[(rng.next_u64() % seats.len() as u64) as usize]),
        };
        let action = g
            .legal_pick(actor, |n| (rng.next_u64() % n as u64) as usize)
            .expect("something legal");
        let seed = g.needs_seed(&action).then(|| rng.seed());
        g.apply(actor, &action, seed.as_ref())
            .expect("a legal action");
    }
    g
}

fn rounds<G: Game>(c: &mut Criterion) {
    let mut group = c.benchmark_group(G::ID);
    group.throughput(Throughput::Elements(1));
    let mut n = 0u64;
    group.bench_function("random_legal_round_4p_service", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            black_box(random_round::<G>(black_box(n)))
        })
    });
    group.finish();
}

/// Rounds per second of `play` over `seconds` (whole rounds, the last one finished).
fn rate(seconds: f64, mut play: impl FnMut(u64)) -> f64 {
    let start = Instant::now();
    let until = Duration::from_secs_f64(seconds);
    let mut n = 0u64;
    while start.elapsed() < until {
        n += 1;
        play(n);
    }
    n as f64 / start.elapsed().as_secs_f64()
}

/// OpenSpiel hearts' deals per second, None when pyspiel is missing (or Python fails).
fn hearts_rate(seconds: f64) -> Option<f64> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/openspiel_hearts.py");
    // `PYTHON`, else the venv `pip install open_spiel` went into (docs/performance.md), else
    // the system's python3.
    let venv = std::env::var("HOME")
        .map(|h| format!("{h}/.cache/clubroom-ci/openspiel/bin/python"))
        .ok()
        .filter(|p| std::path::Path::new(p).exists());
    let python = std::env::var("PYTHON")
        .ok()
        .or(venv)
        .unwrap_or_else(|| "python3".into());
    let out = Command::new(python)
        .arg(script)
        .arg(seconds.to_string())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

/// Min / median / max of three or more figures.
fn spread(mut xs: Vec<f64>) -> (f64, f64, f64) {
    xs.sort_by(f64::total_cmp);
    (xs[0], xs[xs.len() / 2], xs[xs.len() - 1])
}

/// The comparison with OpenSpiel's hearts (module docs).
fn compare_with_openspiel() {
    let seconds: f64 = std::env::var("ENGINE_COMPARE_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    type Play = fn(u64);
    let games: [(&str, &str, Play); 7] = [
        ("dump", "deal", |n| drop(black_box(random_dump_deal(n)))),
        ("dump", "round", |n| {
            drop(black_box(random_round::<Dump>(n)))
        }),
        ("clubs", "round", |n| {
            drop(black_box(random_round::<Clubs>(n)))
        }),
        ("bonus-malus", "round", |n| {
            drop(black_box(random_round::<BonusMalus>(n)))
        }),
        ("plus-minus", "round", |n| {
            drop(black_box(random_round::<PlusMinus>(n)))
        }),
        ("members-only", "round", |n| {
            drop(black_box(random_round::<MembersOnly>(n)))
        }),
        ("by-hook-or-crook", "game", |n| {
            drop(black_box(random_round::<ByHookOrCrook>(n)))
        }),
    ];
    let mut hearts = Vec::new();
    let mut ours: Vec<Vec<f64>> = vec![Vec::new(); games.len()];
    for run in 0..3 {
        let Some(h) = hearts_rate(seconds) else {
            println!(
                "openspiel: pyspiel is not installed (pip install open_spiel): comparison skipped"
            );
            return;
        };
        hearts.push(h);
        for (k, (_, _, play)) in games.iter().enumerate() {
            // A different stretch of seeds in each run.
            let base = (run as u64) << 40;
            ours[k].push(rate(seconds, |n| play(base + n)));
        }
    }
    let (hmin, hmed, hmax) = spread(hearts);
    println!(
        "openspiel hearts (pyspiel, random legal deals): {hmin:.0} / {hmed:.0} / {hmax:.0} deals/s (min / median / max of 3 runs of {seconds} s)"
    );
    for ((game, unit, _), rates) in games.iter().zip(ours) {
        let (min, med, max) = spread(rates);
        let ratio = med / hmed;
        println!(
            "{game:>17} {unit:<5} {min:>9.0} / {med:>9.0} / {max:>9.0} /s  = {ratio:6.1}x hearts {}",
            if ratio >= 20.0 { "(>= 20x)" } else { "(below the 20x target)" }
        );
    }
}

criterion_group!(
    benches,
    dump_deals,
    rounds::<Dump>,
    rounds::<Clubs>,
    rounds::<BonusMalus>,
    rounds::<PlusMinus>,
    rounds::<MembersOnly>,
    rounds::<ByHookOrCrook>
);
/// `ENGINE_FIXED_ROUNDS=N`: plays exactly rounds 1..=N of the game named by the filter (its
/// `ID`), for an instruction count per round (`valgrind --tool=callgrind`), nothing timed.
fn fixed_rounds(rounds: u64, game: &str) {
    fn play<G: Game>(rounds: u64) {
        for n in 1..=rounds {
            black_box(random_round::<G>(black_box(n)));
        }
    }
    match game {
        "dump" => play::<Dump>(rounds),
        "clubs" => play::<Clubs>(rounds),
        "bonus-malus" => play::<BonusMalus>(rounds),
        "plus-minus" => play::<PlusMinus>(rounds),
        "members-only" => play::<MembersOnly>(rounds),
        "by-hook-or-crook" => play::<ByHookOrCrook>(rounds),
        other => panic!("ENGINE_FIXED_ROUNDS: no game {other:?}"),
    }
}

fn main() {
    // Criterion's own arguments; a free one is a filter.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args.iter().find(|a| !a.starts_with('-'));
    if let Some(rounds) = std::env::var("ENGINE_FIXED_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        fixed_rounds(rounds, filter.map_or("dump", String::as_str));
        return;
    }
    let listing = args
        .iter()
        .any(|a| matches!(a.as_str(), "--list" | "--test" | "--profile-time"));
    let only_openspiel = filter.is_some_and(|f| f == "openspiel");
    if !only_openspiel {
        benches();
        Criterion::default().configure_from_args().final_summary();
    }
    let wanted = std::env::var("ENGINE_OPENSPIEL").map_or(true, |v| v != "0");
    if wanted && !listing && (filter.is_none() || only_openspiel) {
        compare_with_openspiel();
    }
}

//! Criterion benches of the pure rules engines (issue 2 "Performance, measured not timed").
//!
//! `dump/random_legal_deal_4p_service`: whole Dump deals per second, from the `deal` (service
//! dealing, a different seed every iteration) through 40 random legal plays to the scored deal.
//! Each play is chosen among `legal_actions` by a cheap deterministic generator, so the figure
//! includes listing the legal cards as a client would. Throughput is reported in deals/s.
//!
//! `<game>/random_legal_round_4p_service`, for each of the six games: a new 4-player match in
//! service dealing, then random legal actions (the table's deal with a fresh seed, every seat's
//! choices, simultaneous ones in random order) until the first round (deal, rubber game, heat,
//! By Hook or Crook's round) is scored. Generic over [`Game`], with legality listed at every
//! step. Throughput is reported in rounds/s.
//!
//! Run on a quiet machine: `cargo bench --bench engine` (one game: `cargo bench --bench engine
//! -- clubs`).

use std::hint::black_box;

use clubroom::rules::{
    bonus_malus::BonusMalus,
    by_hook_or_crook::ByHookOrCrook,
    clubs::Clubs,
    dump::{Action, Dump, DumpConfig, MAX_TARGET},
    members_only::MembersOnly,
    plus_minus::PlusMinus,
    Actor, Dealing, Game,
};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

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
        let legal = g.legal_actions(Actor::Seat(seat));
        let action = &legal[(rng.next_u64() % legal.len() as u64) as usize];
        g.apply(Actor::Seat(seat), action, None)
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
        let legal = g.legal_actions(actor);
        let action = &legal[(rng.next_u64() % legal.len() as u64) as usize];
        let seed = g.needs_seed(action).then(|| rng.seed());
        g.apply(actor, action, seed.as_ref())
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
criterion_main!(benches);

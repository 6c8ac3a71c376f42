//! Pairing at the largest field (256 entrants): a Swiss round at tables of two (the blossom
//! matching), at tables of four (the local search), and a round-robin schedule at tables of
//! three for 61 entrants (30 rounds, the most a round robin of threes may have).

use clubroom::tournaments::{
    model::Pairing,
    pairing::{self, History, Tables},
};
use criterion::{criterion_group, criterion_main, Criterion};

/// A field after `rounds` Swiss rounds with arbitrary results: standings order, scores, history.
fn field(n: usize, rounds: u32, tables: &Tables) -> (Vec<usize>, Vec<i64>, History) {
    let mut h = History::new(n);
    let mut score = vec![0i64; n];
    let mut rng = clubroom::rng::SplitMix64::new(7);
    for round in 1..=rounds {
        let mut ranked: Vec<usize> = (0..n).collect();
        ranked.sort_by_key(|&e| std::cmp::Reverse(score[e]));
        let p: Pairing = pairing::swiss(&ranked, &score, &h, round, tables);
        for t in &p.tables {
            score[*rng.pick(t)] += 2;
        }
        h.record(&p, tables);
    }
    let mut ranked: Vec<usize> = (0..n).collect();
    ranked.sort_by_key(|&e| std::cmp::Reverse(score[e]));
    (ranked, score, h)
}

fn pairing(c: &mut Criterion) {
    let mut g = c.benchmark_group("pairing");
    g.sample_size(10);
    let two = Tables::new(2, &[2], false, |_| None);
    let (ranked, score, h) = field(256, 8, &two);
    g.bench_function("swiss_256_tables_of_2_round_9", |b| {
        b.iter(|| pairing::swiss(&ranked, &score, &h, 9, &two))
    });
    let four = Tables::new(4, &[3, 4], false, |_| None);
    let (ranked, score, h) = field(256, 8, &four);
    g.bench_function("swiss_256_tables_of_4_round_9", |b| {
        b.iter(|| pairing::swiss(&ranked, &score, &h, 9, &four))
    });
    let three = Tables::new(3, &[3], false, |_| None);
    g.bench_function("round_robin_61_tables_of_3", |b| {
        b.iter(|| pairing::round_robin(61, &three))
    });
    g.finish();
}

criterion_group!(benches, pairing);
criterion_main!(benches);

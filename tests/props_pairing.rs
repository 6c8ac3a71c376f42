use clubroom::tournaments::{
    model::{Entrant, RatingSystem, ResultSource, TableResult},
    pairing,
    standings::standings,
};

#[test]
fn before_swiss_repeats_when_a_repeat_free_pairing_exists() {
    let mut met = vec![vec![0u32; 6]; 6];
    for (a, b) in [(0, 1), (4, 5)] {
        met[a][b] = 1;
        met[b][a] = 1;
    }
    let p = pairing::swiss(&[0, 1, 2, 3, 4, 5], &met, &[0; 6], 2, 2, &[2], false);
    let repeats = p.tables.iter().filter(|t| met[t[0]][t[1]] > 0).count();
    assert_eq!(repeats, 0, "{:?}", p.tables);
}

#[test]
fn before_round_robin_six_at_tables_of_three_meets_each_pair_at_most_twice() {
    let rounds = pairing::round_robin(6, 3, &[3, 4], false);
    let mut met = vec![vec![0u32; 6]; 6];
    for r in &rounds {
        for t in &r.tables {
            for &a in t {
                for &b in t {
                    if a != b {
                        met[a][b] += 1;
                    }
                }
            }
        }
    }
    let max = met.iter().flatten().max().copied().unwrap();
    assert_eq!((rounds.len(), max), (4, 2), "{rounds:?}");
}

#[test]
fn before_a_partner_is_not_an_opponent() {
    let entrants: Vec<Entrant> = (0..4)
        .map(|i| Entrant { player_id: format!("p{i}"), name: format!("P{i}") })
        .collect();
    let r = TableResult {
        round: 1,
        table: 1,
        seats: vec![0, 1, 2, 3],
        sides: Some(vec![vec![0, 2], vec![1, 3]]),
        totals: vec![40, 0],
        deals: vec![],
        winners: vec![0],
        source: ResultSource::Totals,
        match_id: None,
        at: "2026-11-22T20:00:00.000Z".into(),
    };
    let s = standings(&entrants, &[r], &[], false, RatingSystem::WengLin);
    let p0 = s.rows.iter().find(|x| x.player_id == "p0").unwrap();
    // p0's opponents are p1 and p3 (0 matchpoints each), not partner p2 (2).
    assert_eq!(p0.opponents_matchpoints, 0);
}

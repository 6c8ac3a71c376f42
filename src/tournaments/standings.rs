//! Matchpoints, standings and ratings, recomputed from the tables' results.

use std::{
    cmp::{Ordering, Reverse},
    collections::HashMap,
};

use skillratings::{
    elo::{elo, EloConfig, EloRating},
    weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating},
    MultiTeamOutcome, Outcomes,
};

use super::model::{
    Entrant, FouledBoard, FouledBoardRule, RatingParameters, RatingSystem, StandingRow, Standings,
    TableResult, WengLinModel,
};

/// The tie-breaks, in order (the answer states them).
pub const TIE_BREAKS: [&str; 5] = [
    "matchpoints",
    "wins",
    "total",
    "opponents_matchpoints",
    "entry_order",
];

/// 2 when `a` beats `b`, 1 for a tie, 0 when it loses.
fn points(a: i64, b: i64) -> i64 {
    match a.cmp(&b) {
        Ordering::Greater => 2,
        Ordering::Equal => 1,
        Ordering::Less => 0,
    }
}

/// The matchpoints of each unit of each result: per result, per unit, (matchpoints, most
/// possible). Without duplicate play, within the table: 2 for each other unit with a lower
/// total, 1 for each equal one. With duplicate play, board by board against the same unit at
/// every other table of the round (same number of units): deal k against deal k where both have
/// it; a result known by its totals only is compared by its totals, as one board.
///
/// A board a table fouled (duplicate play with real cards: a seat played a card the board did not
/// deal it) is left out of that board's column: the clean tables are compared among themselves,
/// and the fouled table scores `fouled` of the clean tables' top on it (with C clean tables,
/// average C − 1 or zero, out of 2 × (C − 1)).
///
/// Duplicate play counts with sorted columns (per round, number of units, unit and deal: the
/// values of every table), so a round of a thousand tables costs a sort, not a million
/// comparisons; the unit tests check it against the comparison of every pair of tables.
pub fn table_matchpoints(
    results: &[TableResult],
    duplicate: bool,
    fouled: FouledBoardRule,
) -> Vec<Vec<(i64, i64)>> {
    if !duplicate {
        return results
            .iter()
            .map(|r| {
                let units = r.totals.len();
                (0..units)
                    .map(|u| {
                        let mp = (0..units)
                            .filter(|&v| v != u)
                            .map(|v| points(r.totals[u], r.totals[v]))
                            .sum();
                        (mp, 2 * (units as i64 - 1))
                    })
                    .collect()
            })
            .collect();
    }
    let mut out: Vec<Vec<(i64, i64)>> = results
        .iter()
        .map(|r| vec![(0, 0); r.totals.len()])
        .collect();
    // The tables compared with each other: same round, same number of units.
    let mut groups: HashMap<(u32, usize), Vec<usize>> = HashMap::new();
    for (i, r) in results.iter().enumerate() {
        groups.entry((r.round, r.totals.len())).or_default().push(i);
    }
    // What `xs` (sorted) gives `a`: 2 for each value below it, 1 for each equal one.
    let against = |xs: &[i64], a: i64| -> i64 {
        let below = xs.partition_point(|&x| x < a);
        let upto = xs.partition_point(|&x| x <= a);
        2 * below as i64 + (upto - below) as i64
    };
    for ((_, units), members) in groups {
        let (with_deals, by_totals): (Vec<usize>, Vec<usize>) =
            members.iter().partition(|&&i| !results[i].deals.is_empty());
        let most_deals = with_deals
            .iter()
            .map(|&i| results[i].deals.len())
            .max()
            .unwrap_or(0);
        // `u` picks a column of every result of the group, not an element of one slice.
        #[allow(clippy::needless_range_loop)]
        for u in 0..units {
            let sorted = |it: &mut dyn Iterator<Item = i64>| {
                let mut v: Vec<i64> = it.collect();
                v.sort_unstable();
                v
            };
            let all_totals = sorted(&mut members.iter().map(|&i| results[i].totals[u]));
            let plain_totals = sorted(&mut by_totals.iter().map(|&i| results[i].totals[u]));
            // Per deal k: the unit's points at every table that has deal k (and the unit in it)
            // and did not foul board k.
            let boards: Vec<Vec<i64>> = (0..most_deals)
                .map(|k| {
                    sorted(&mut with_deals.iter().filter_map(|&i| {
                        let r = &results[i];
                        if r.fouled(k as u32 + 1) {
                            return None;
                        }
                        r.deals.get(k).and_then(|d| d.get(u)).copied()
                    }))
                })
                .collect();
            for &i in &by_totals {
                // Against every other table by totals (itself: one tie, taken off).
                let a = results[i].totals[u];
                out[i][u] = (against(&all_totals, a) - 1, 2 * (members.len() as i64 - 1));
            }
            for &i in &with_deals {
                let r = &results[i];
                let (mut mp, mut max) = (
                    against(&plain_totals, r.totals[u]),
                    2 * plain_totals.len() as i64,
                );
                for (k, board) in boards.iter().enumerate() {
                    let Some(&a) = r.deals.get(k).and_then(|d| d.get(u)) else {
                        continue;
                    };
                    if r.fouled(k as u32 + 1) {
                        // Compared with no one: the rule's share of the clean tables' top.
                        let top = 2 * (board.len() as i64 - 1).max(0);
                        mp += match fouled {
                            FouledBoardRule::Average => top / 2,
                            FouledBoardRule::Zero => 0,
                        };
                        max += top;
                    } else {
                        mp += against(board, a) - 1;
                        max += 2 * (board.len() as i64 - 1);
                    }
                }
                out[i][u] = (mp, max);
            }
        }
    }
    out
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

impl RatingParameters {
    /// The parameters `system` rates with: `skillratings`' defaults (Elo: K 32, start 1000;
    /// Weng-Lin: beta 25/6, kappa 0.000001, start 25 ± 25/3).
    pub fn of(system: RatingSystem) -> Self {
        match system {
            RatingSystem::Elo => RatingParameters::Elo {
                k: EloConfig::new().k,
                start: EloRating::new().rating,
                // skillratings' expected score uses the classical 400 (not configurable).
                scale: 400.0,
            },
            RatingSystem::WengLin => {
                let (config, start) = (WengLinConfig::new(), WengLinRating::new());
                RatingParameters::WengLin {
                    model: WengLinModel::BradleyTerryFull,
                    beta: config.beta,
                    uncertainty_tolerance: config.uncertainty_tolerance,
                    start_rating: start.rating,
                    start_uncertainty: start.uncertainty,
                }
            }
        }
    }
}

/// The ratings after every result, in (round, table) order, from `params`: Elo for a table
/// of two single players (higher total wins, equal totals draw; other tables are not rated by
/// Elo); Weng-Lin with the units as teams, ranked by total (equal totals share a rank).
fn ratings(n: usize, results: &[TableResult], params: RatingParameters) -> Vec<(f64, Option<f64>)> {
    let mut order: Vec<&TableResult> = results.iter().collect();
    order.sort_by_key(|r| (r.round, r.table));
    match params {
        RatingParameters::Elo { k, start, .. } => {
            let mut r = vec![EloRating { rating: start }; n];
            let config = EloConfig { k };
            for res in order {
                if res.totals.len() != 2 || res.seats.len() != 2 || res.sides.is_some() {
                    continue;
                }
                let (a, b) = (res.seats[0], res.seats[1]);
                let outcome = match res.totals[0].cmp(&res.totals[1]) {
                    Ordering::Greater => Outcomes::WIN,
                    Ordering::Equal => Outcomes::DRAW,
                    Ordering::Less => Outcomes::LOSS,
                };
                (r[a], r[b]) = elo(&r[a], &r[b], &outcome, &config);
            }
            r.iter().map(|x| (round3(x.rating), None)).collect()
        }
        RatingParameters::WengLin {
            beta,
            uncertainty_tolerance,
            start_rating,
            start_uncertainty,
            ..
        } => {
            let start = WengLinRating {
                rating: start_rating,
                uncertainty: start_uncertainty,
            };
            let mut r = vec![start; n];
            let config = WengLinConfig {
                beta,
                uncertainty_tolerance,
            };
            for res in order {
                let units = res.totals.len();
                let members: Vec<Vec<usize>> = (0..units)
                    .map(|u| {
                        (0..res.seats.len())
                            .filter(|&s| res.unit_of_seat(s) == u)
                            .map(|s| res.seats[s])
                            .collect()
                    })
                    .collect();
                if units < 2 || members.iter().any(Vec::is_empty) {
                    continue;
                }
                let teams: Vec<Vec<WengLinRating>> = members
                    .iter()
                    .map(|m| m.iter().map(|&e| r[e]).collect())
                    .collect();
                let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
                    .iter()
                    .enumerate()
                    .map(|(u, t)| {
                        let better = res.totals.iter().filter(|&&x| x > res.totals[u]).count();
                        (t.as_slice(), MultiTeamOutcome::new(better + 1))
                    })
                    .collect();
                let after = weng_lin_multi_team(&input, &config);
                for (m, t) in members.iter().zip(after) {
                    for (&e, rating) in m.iter().zip(t) {
                        r[e] = rating;
                    }
                }
            }
            r.iter()
                .map(|x| (round3(x.rating), Some(round3(x.uncertainty))))
                .collect()
        }
    }
}

/// The standings. `byes`: (round, entrant); a bye scores half the most matchpoints a unit could
/// have had at that round's tables (nothing when none has a result), in matchpoints and in the
/// maximum, and nothing else. Best first by [`TIE_BREAKS`]; entrants equal on all but entry
/// order share a rank.
pub fn standings(
    entrants: &[Entrant],
    results: &[TableResult],
    byes: &[(u32, usize)],
    duplicate: bool,
    fouled_board: FouledBoardRule,
    rating: RatingSystem,
) -> Standings {
    let n = entrants.len();
    let mps = table_matchpoints(results, duplicate, fouled_board);
    let mut rows: Vec<StandingRow> = entrants
        .iter()
        .map(|e| StandingRow {
            rank: 0,
            player_id: e.player_id.clone(),
            name: e.name.clone(),
            played: 0,
            byes: 0,
            wins: 0,
            total: 0,
            matchpoints: 0,
            max_matchpoints: 0,
            percentage: 0.0,
            opponents_matchpoints: 0,
            rating: 0.0,
            rating_uncertainty: None,
            withdrawn: false,
        })
        .collect();
    // Totals are summed wide. Entered totals keep within ±1,000,000 and the engines' far less,
    // but a result stored before that bound was enforced may hold any i64: its sum must neither
    // panic nor wrap (a wrapped total ranks a huge loss first). Beyond i64 it shows as i64's end.
    let mut totals = vec![0i128; n];
    for (r, mp) in results.iter().zip(&mps) {
        for (seat, &e) in r.seats.iter().enumerate() {
            let Some(row) = rows.get_mut(e) else { continue };
            let u = r.unit_of_seat(seat);
            row.played += 1;
            totals[e] += i128::from(r.totals.get(u).copied().unwrap_or(0));
            row.wins += u32::from(r.winners.contains(&u));
            if let Some(&(m, max)) = mp.get(u) {
                row.matchpoints += m;
                row.max_matchpoints += max;
            }
        }
    }
    for (row, &t) in rows.iter_mut().zip(&totals) {
        row.total = t.clamp(i64::MIN.into(), i64::MAX.into()) as i64;
    }
    for &(round, e) in byes {
        let Some(row) = rows.get_mut(e) else { continue };
        let full = results
            .iter()
            .zip(&mps)
            .filter(|(r, _)| r.round == round)
            .flat_map(|(_, mp)| mp.iter().map(|m| m.1))
            .max()
            .unwrap_or(0);
        row.byes += 1;
        row.matchpoints += full / 2;
        row.max_matchpoints += full;
    }
    let finals: Vec<i64> = rows.iter().map(|r| r.matchpoints).collect();
    for r in results {
        for (seat, &e) in r.seats.iter().enumerate() {
            // Opponents are the other units only: at a partnership table the partner (same
            // side) is no opponent.
            let unit = r.unit_of_seat(seat);
            let others: i64 = r
                .seats
                .iter()
                .enumerate()
                .filter(|&(s, _)| r.unit_of_seat(s) != unit)
                .filter_map(|(_, &o)| finals.get(o))
                .sum();
            if let Some(row) = rows.get_mut(e) {
                row.opponents_matchpoints += others;
            }
        }
    }
    let rating_parameters = RatingParameters::of(rating);
    for (row, (value, sigma)) in rows.iter_mut().zip(ratings(n, results, rating_parameters)) {
        row.rating = value;
        row.rating_uncertainty = sigma;
        row.percentage = if row.max_matchpoints > 0 {
            (row.matchpoints as f64 * 10000.0 / row.max_matchpoints as f64).round() / 100.0
        } else {
            0.0
        };
    }
    let key = |r: &StandingRow| {
        (
            Reverse(r.matchpoints),
            Reverse(r.wins),
            Reverse(r.total),
            Reverse(r.opponents_matchpoints),
        )
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (key(&rows[i]), i));
    let mut sorted: Vec<StandingRow> = Vec::with_capacity(n);
    for (place, &i) in order.iter().enumerate() {
        let mut row = rows[i].clone();
        row.rank = match sorted.last() {
            Some(prev) if key(prev) == key(&row) => prev.rank,
            _ => place as u32 + 1,
        };
        sorted.push(row);
    }
    Standings {
        tie_breaks: TIE_BREAKS.iter().map(|s| s.to_string()).collect(),
        rating_system: rating,
        rating_parameters,
        duplicate,
        fouled_board,
        fouled_boards: fouled_boards(results),
        rows: sorted,
    }
}

/// Every fouled board of `results` (the first card that fouled it), by round, table and board.
fn fouled_boards(results: &[TableResult]) -> Vec<FouledBoard> {
    let mut out: Vec<FouledBoard> = vec![];
    for r in results {
        for f in &r.fouls {
            if !out
                .iter()
                .any(|o| (o.round, o.table, o.board) == (r.round, r.table, f.board))
            {
                out.push(FouledBoard {
                    round: r.round,
                    table: r.table,
                    board: f.board,
                    seat: f.seat,
                    card: f.card.clone(),
                    face_up: f.face_up,
                });
            }
        }
    }
    out.sort_by_key(|f| (f.round, f.table, f.board));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournaments::model::{FouledPlay, ResultSource};

    fn entrants(n: usize) -> Vec<Entrant> {
        (0..n)
            .map(|i| Entrant {
                player_id: format!("p{i}"),
                name: format!("P{i}"),
            })
            .collect()
    }

    fn result(
        round: u32,
        table: u32,
        seats: Vec<usize>,
        totals: Vec<i64>,
        deals: Vec<Vec<i64>>,
    ) -> TableResult {
        let (winners, _) = crate::rules::sheet::winners_and_margin(&totals);
        TableResult {
            round,
            table,
            seats,
            sides: None,
            totals,
            deals,
            winners,
            source: ResultSource::Totals,
            match_id: None,
            at: "2026-11-22T20:00:00.000Z".into(),
            fouls: vec![],
        }
    }

    /// The matchpoints as first written: every table against every other one (the reference): per result, per unit, (matchpoints, most
    /// possible). Without duplicate play, within the table: 2 for each other unit with a lower
    /// total, 1 for each equal one. With duplicate play, board by board against the same unit at
    /// every other table of the round (same number of units): deal k against deal k where both have
    /// it; a result known by its totals only is compared by its totals, as one board.
    fn reference_matchpoints(results: &[TableResult], duplicate: bool) -> Vec<Vec<(i64, i64)>> {
        results
            .iter()
            .map(|r| {
                let units = r.totals.len();
                (0..units)
                    .map(|u| {
                        if !duplicate {
                            let mp = (0..units)
                                .filter(|&v| v != u)
                                .map(|v| points(r.totals[u], r.totals[v]))
                                .sum();
                            return (mp, 2 * (units as i64 - 1));
                        }
                        let (mut mp, mut max) = (0, 0);
                        for o in results.iter().filter(|o| {
                            o.round == r.round && o.table != r.table && o.totals.len() == units
                        }) {
                            if r.deals.is_empty() || o.deals.is_empty() {
                                mp += points(r.totals[u], o.totals[u]);
                                max += 2;
                            } else {
                                for (a, b) in r.deals.iter().zip(&o.deals) {
                                    if let (Some(&a), Some(&b)) = (a.get(u), b.get(u)) {
                                        mp += points(a, b);
                                        max += 2;
                                    }
                                }
                            }
                        }
                        (mp, max)
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn duplicate_matchpoints_by_sorted_columns_are_those_of_every_pair_compared() {
        let mut rng = crate::rng::SplitMix64::new(0x25);
        for case in 0..300 {
            let mut results = vec![];
            let rounds = 1 + rng.below(3) as u32;
            for round in 1..=rounds {
                for table in 1..=(1 + rng.below(7) as u32) {
                    // Mostly four units, sometimes three (a smaller table is its own group).
                    let units = if rng.chance(20) { 3 } else { 4 };
                    let deals: Vec<Vec<i64>> = if rng.chance(25) {
                        vec![]
                    } else {
                        (0..rng.below(5))
                            .map(|_| (0..units).map(|_| rng.below(4) as i64 - 1).collect())
                            .collect()
                    };
                    let totals = if deals.is_empty() || rng.chance(10) {
                        (0..units).map(|_| rng.below(6) as i64).collect()
                    } else {
                        (0..units)
                            .map(|u| deals.iter().map(|d| d[u]).sum())
                            .collect()
                    };
                    results.push(result(round, table, (0..units).collect(), totals, deals));
                }
            }
            assert_eq!(
                table_matchpoints(&results, true, FouledBoardRule::Average),
                reference_matchpoints(&results, true),
                "case {case}: {results:?}"
            );
            assert_eq!(
                table_matchpoints(&results, false, FouledBoardRule::Average),
                reference_matchpoints(&results, false),
                "case {case}"
            );
        }
    }

    #[test]
    fn matchpoints_within_a_table_count_results_beaten_and_ties() {
        let r = vec![result(1, 1, vec![0, 1, 2], vec![10, 5, 5], vec![])];
        assert_eq!(
            table_matchpoints(&r, false, FouledBoardRule::Average),
            vec![vec![(4, 4), (1, 4), (1, 4)]]
        );
        let s = standings(
            &entrants(3),
            &r,
            &[],
            false,
            FouledBoardRule::Average,
            RatingSystem::WengLin,
        );
        assert_eq!(s.rows[0].player_id, "p0");
        assert_eq!((s.rows[0].rank, s.rows[1].rank, s.rows[2].rank), (1, 2, 2));
        assert_eq!(s.rows[1].player_id, "p1");
        assert_eq!(s.rows[0].percentage, 100.0);
        assert_eq!(s.rows[1].percentage, 25.0);
        assert_eq!(s.rows[0].opponents_matchpoints, 2);
        assert!(s.rows[0].rating > 25.0 && s.rows[1].rating < 25.0);
        assert_eq!(s.rows[1].rating, s.rows[2].rating);
    }

    #[test]
    fn duplicate_matchpoints_compare_the_same_seat_deal_by_deal() {
        let r = vec![
            result(
                1,
                1,
                vec![0, 1],
                vec![30, 5],
                vec![vec![20, 0], vec![10, 5]],
            ),
            result(
                1,
                2,
                vec![2, 3],
                vec![25, 10],
                vec![vec![20, 0], vec![5, 10]],
            ),
        ];
        assert_eq!(
            table_matchpoints(&r, true, FouledBoardRule::Average),
            vec![vec![(3, 4), (1, 4)], vec![(1, 4), (3, 4)]]
        );
        // Another round's table is not compared.
        let mut more = r.clone();
        more.push(result(2, 1, vec![0, 2], vec![1, 0], vec![vec![1, 0]]));
        assert_eq!(
            table_matchpoints(&more, true, FouledBoardRule::Average)[2],
            vec![(0, 0), (0, 0)]
        );
    }

    /// Four tables; table 4 fouled board 1 (two of its plays), table 3 board 2. Board 1 is
    /// compared among tables 1–3, board 2 among tables 1, 2 and 4; the fouled table scores the
    /// rule's share of the clean top, 2 × (3 − 1) = 4: average 2, zero 0. The standings name each
    /// fouled board once, with its first fouling card.
    #[test]
    #[allow(clippy::identity_op)] // each sum is board 1's matchpoints + board 2's
    fn a_fouled_board_is_scored_among_the_clean_tables_and_the_rule_gives_the_rest() {
        let foul = |board: u32, seat: usize, card: &str| FouledPlay {
            board,
            seat,
            card: card.into(),
            face_up: false,
        };
        let mut r = vec![
            result(1, 1, vec![0, 1], vec![30, 0], vec![vec![30, 0], vec![0, 0]]),
            result(1, 2, vec![2, 3], vec![10, 5], vec![vec![10, 0], vec![0, 5]]),
            result(1, 3, vec![4, 5], vec![20, 9], vec![vec![20, 0], vec![0, 9]]),
            result(1, 4, vec![6, 7], vec![80, 1], vec![vec![80, 0], vec![0, 1]]),
        ];
        r[3].fouls = vec![foul(1, 0, "AS"), foul(1, 1, "KH")];
        r[2].fouls = vec![foul(2, 1, "7D")];
        // Board 1, unit 0 among 30, 10, 20: 4, 0, 2 of 4; unit 1 all 0: 2 each. Board 2 among
        // tables 1, 2, 4: unit 0 all 0: 2 each; unit 1 among 0, 5, 1: 0, 4, 2.
        assert_eq!(
            table_matchpoints(&r, true, FouledBoardRule::Average),
            vec![
                vec![(4 + 2, 8), (2 + 0, 8)],
                vec![(0 + 2, 8), (2 + 4, 8)],
                vec![(2 + 2, 8), (2 + 2, 8)],
                vec![(2 + 2, 8), (2 + 2, 8)],
            ]
        );
        assert_eq!(
            table_matchpoints(&r, true, FouledBoardRule::Zero),
            vec![
                vec![(4 + 2, 8), (2 + 0, 8)],
                vec![(0 + 2, 8), (2 + 4, 8)],
                vec![(2, 8), (2, 8)],
                vec![(2, 8), (2, 8)],
            ]
        );
        let s = standings(
            &entrants(8),
            &r,
            &[],
            true,
            FouledBoardRule::Zero,
            RatingSystem::WengLin,
        );
        assert_eq!(s.fouled_board, FouledBoardRule::Zero);
        assert_eq!(
            s.fouled_boards,
            vec![
                FouledBoard {
                    round: 1,
                    table: 3,
                    board: 2,
                    seat: 1,
                    card: "7D".into(),
                    face_up: false,
                },
                FouledBoard {
                    round: 1,
                    table: 4,
                    board: 1,
                    seat: 0,
                    card: "AS".into(),
                    face_up: false,
                },
            ]
        );
        // Without fouls every table is compared on both boards.
        for t in &mut r {
            t.fouls.clear();
        }
        assert_eq!(
            table_matchpoints(&r, true, FouledBoardRule::Zero)[3],
            vec![(6 + 3, 12), (3 + 2, 12)]
        );
    }

    #[test]
    fn partners_share_their_side_and_a_bye_scores_half() {
        let mut r = result(1, 1, vec![0, 1, 2, 3], vec![40, 0], vec![]);
        r.sides = Some(vec![vec![0, 2], vec![1, 3]]);
        let s = standings(
            &entrants(5),
            &[r],
            &[(1, 4)],
            false,
            FouledBoardRule::Average,
            RatingSystem::WengLin,
        );
        let get = |id: &str| s.rows.iter().find(|x| x.player_id == id).unwrap().clone();
        assert_eq!(
            (
                get("p0").total,
                get("p2").total,
                get("p0").wins,
                get("p2").wins
            ),
            (40, 40, 1, 1)
        );
        assert_eq!((get("p1").matchpoints, get("p0").matchpoints), (0, 2));
        assert_eq!(get("p0").rating, get("p2").rating);
        let bye = get("p4");
        assert_eq!(
            (bye.byes, bye.played, bye.matchpoints, bye.max_matchpoints),
            (1, 0, 1, 2)
        );
        assert_eq!(bye.rating, 25.0);
        assert_eq!(bye.rating_uncertainty, Some(8.333));
    }

    #[test]
    fn elo_after_one_win_from_level_ratings_is_1016_and_984() {
        let r = vec![result(1, 1, vec![1, 0], vec![110, 20], vec![])];
        let s = standings(
            &entrants(2),
            &r,
            &[],
            false,
            FouledBoardRule::Average,
            RatingSystem::Elo,
        );
        assert_eq!(s.rows[0].player_id, "p1");
        assert_eq!(s.rows[0].rating, 1016.0);
        assert_eq!(s.rows[1].rating, 984.0);
        assert_eq!(s.rows[1].rating_uncertainty, None);
        assert_eq!(s.tie_breaks, TIE_BREAKS.map(String::from).to_vec());
    }

    #[test]
    fn a_partner_is_no_opponent_at_a_partnership_table() {
        let mut r = result(1, 1, vec![0, 1, 2, 3], vec![40, 0], vec![]);
        r.sides = Some(vec![vec![0, 2], vec![1, 3]]);
        let s = standings(
            &entrants(4),
            &[r],
            &[],
            false,
            FouledBoardRule::Average,
            RatingSystem::WengLin,
        );
        let get = |id: &str| s.rows.iter().find(|x| x.player_id == id).unwrap().clone();
        // p0 and p2 (2 matchpoints each) faced p1 and p3 (0 each), and the other way round.
        assert_eq!(
            ["p0", "p1", "p2", "p3"].map(|p| get(p).opponents_matchpoints),
            [0, 4, 0, 4]
        );
    }

    #[test]
    fn the_elo_parameters_stated_are_the_ones_rated_with() {
        // 0 beats 1, then 1 and 2 draw, then 2 beats 0.
        let r = vec![
            result(1, 1, vec![0, 1], vec![110, 20], vec![]),
            result(2, 1, vec![1, 2], vec![50, 50], vec![]),
            result(3, 1, vec![2, 0], vec![90, 10], vec![]),
        ];
        let s = standings(
            &entrants(3),
            &r,
            &[],
            false,
            FouledBoardRule::Average,
            RatingSystem::Elo,
        );
        assert_eq!(
            s.rating_parameters,
            RatingParameters::Elo {
                k: 32.0,
                start: 1000.0,
                scale: 400.0
            }
        );
        let RatingParameters::Elo { k, start, scale } = s.rating_parameters else {
            unreachable!()
        };
        // By hand from the stated numbers.
        let expected = |own: f64, other: f64| 1.0 / (1.0 + 10f64.powf((other - own) / scale));
        let mut e = [start; 3];
        for (a, b, score) in [(0, 1, 1.0), (1, 2, 0.5), (2, 0, 1.0)] {
            let (ea, eb) = (expected(e[a], e[b]), expected(e[b], e[a]));
            e[a] += k * (score - ea);
            e[b] += k * (1.0 - score - eb);
        }
        for (i, want) in e.iter().enumerate() {
            let row = s
                .rows
                .iter()
                .find(|x| x.player_id == format!("p{i}"))
                .unwrap();
            assert_eq!(row.rating, round3(*want), "p{i}");
        }
        assert_eq!(
            serde_json::to_value(s.rating_parameters).unwrap(),
            serde_json::json!({"system": "elo", "k": 32.0, "start": 1000.0, "scale": 400.0})
        );
    }

    #[test]
    fn the_weng_lin_parameters_stated_are_the_ones_rated_with() {
        let r = vec![result(1, 1, vec![0, 1], vec![30, 10], vec![])];
        let s = standings(
            &entrants(2),
            &r,
            &[],
            false,
            FouledBoardRule::Average,
            RatingSystem::WengLin,
        );
        assert_eq!(
            s.rating_parameters,
            RatingParameters::WengLin {
                model: WengLinModel::BradleyTerryFull,
                beta: 25.0 / 6.0,
                uncertainty_tolerance: 0.000_001,
                start_rating: 25.0,
                start_uncertainty: 25.0 / 3.0,
            }
        );
        let RatingParameters::WengLin {
            beta,
            uncertainty_tolerance,
            start_rating: mu,
            start_uncertainty: sigma,
            ..
        } = s.rating_parameters
        else {
            unreachable!()
        };
        // Weng and Lin's algorithm 1 for one player against one, by hand from the stated
        // numbers: c² = σ² + σ² + 2β², p = 1/2 at equal ratings, μ ± σ²/c · (1 − p), σ'² =
        // σ² · max(1 − γ σ²/c² p (1 − p), κ) with γ = σ/c.
        let c = (2.0 * sigma * sigma + 2.0 * beta * beta).sqrt();
        let p = 0.5;
        let moved = sigma * sigma / c * (1.0 - p);
        let eta = sigma / c * sigma * sigma / (c * c) * p * (1.0 - p);
        let shrunk = (sigma * sigma * (1.0 - eta).max(uncertainty_tolerance)).sqrt();
        let get = |id: &str| s.rows.iter().find(|x| x.player_id == id).unwrap().clone();
        assert_eq!(get("p0").rating, round3(mu + moved));
        assert_eq!(get("p1").rating, round3(mu - moved));
        assert_eq!(get("p0").rating_uncertainty, Some(round3(shrunk)));
        assert_eq!(get("p1").rating_uncertainty, Some(round3(shrunk)));
        assert_eq!(
            serde_json::to_value(s.rating_parameters).unwrap()["model"],
            "bradley_terry_full"
        );
    }

    #[test]
    fn a_full_tie_shares_the_rank_and_entry_order_only_orders() {
        let r = vec![result(1, 1, vec![0, 1], vec![5, 5], vec![])];
        let s = standings(
            &entrants(2),
            &r,
            &[],
            false,
            FouledBoardRule::Average,
            RatingSystem::Elo,
        );
        assert_eq!((s.rows[0].player_id.as_str(), s.rows[0].rank), ("p0", 1));
        assert_eq!((s.rows[1].player_id.as_str(), s.rows[1].rank), ("p1", 1));
    }
}

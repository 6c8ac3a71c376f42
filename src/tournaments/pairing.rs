//! Who sits where: table sizes, round-robin schedules and Swiss rounds. Pure and deterministic:
//! the same standings give the same pairing.

use super::model::Pairing;

/// Table sizes for `n` entrants. `allowed`: the player counts the game accepts (ascending);
/// `target`: the organiser's table size. Each size is in `allowed` and at most `target`; as few
/// tables as possible, then as even as possible (largest first). With `equal` every table has
/// exactly `target` seats (duplicate play compares tables seat by seat). When `n` cannot be
/// split, the fewest entrants possible sit out: the answer is (sizes, byes).
pub fn table_sizes(n: usize, target: usize, allowed: &[usize], equal: bool) -> (Vec<usize>, usize) {
    if equal || target == 0 {
        let t = n.checked_div(target).unwrap_or(0);
        return (vec![target; t], n - t * target);
    }
    let mut sizes: Vec<usize> = allowed
        .iter()
        .copied()
        .filter(|&s| s <= target && s > 0)
        .collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes.dedup();
    let Some(&smallest) = sizes.last() else {
        return (vec![], n);
    };
    for byes in 0..=n {
        let m = n - byes;
        if m < smallest {
            break;
        }
        for tables in m.div_ceil(target)..=m / smallest {
            if let Some(split) = split_evenly(m, tables, &sizes) {
                return (split, byes);
            }
        }
    }
    (vec![], n)
}

/// `m` seats in exactly `tables` tables of the given sizes (descending), as even as possible.
fn split_evenly(m: usize, tables: usize, sizes: &[usize]) -> Option<Vec<usize>> {
    if tables == 0 {
        return None;
    }
    let (base, rem) = (m / tables, m % tables);
    let even: Vec<usize> = std::iter::repeat_n(base + 1, rem)
        .chain(std::iter::repeat_n(base, tables - rem))
        .collect();
    if even.iter().all(|s| sizes.contains(s)) {
        return Some(even);
    }
    // Not evenly: the first combination, largest sizes first.
    fn search(m: usize, tables: usize, sizes: &[usize], out: &mut Vec<usize>) -> bool {
        if tables == 0 {
            return m == 0;
        }
        for (i, &s) in sizes.iter().enumerate() {
            if s <= m && s * tables >= m {
                out.push(s);
                if search(m - s, tables - 1, &sizes[i..], out) {
                    return true;
                }
                out.pop();
            }
        }
        false
    }
    let mut out = vec![];
    search(m, tables, sizes, &mut out).then_some(out)
}

/// Seat order at a table: rotated by the round, so that seat 0 (the first dealer or leader in
/// most games) moves around.
fn rotated(mut table: Vec<usize>, round: u32) -> Vec<usize> {
    if !table.is_empty() {
        let k = round as usize % table.len();
        table.rotate_left(k);
    }
    table
}

/// The whole round-robin schedule, fixed up front. Two-seat tables: the circle method (Berger
/// tables), every pair meets exactly once in n−1 rounds (n rounds, one bye each, when n is odd).
/// Larger tables: greedy rounds, each filling its tables with the pairs that have not met yet,
/// until every pair has met at least once. Byes rotate: nobody sits out twice before everybody
/// sat out once, where the sizes allow.
pub fn round_robin(n: usize, target: usize, allowed: &[usize], equal: bool) -> Vec<Pairing> {
    if target == 2 && allowed.contains(&2) {
        return circle(n);
    }
    let mut met = vec![vec![false; n]; n];
    let mut unmet: usize = n * n.saturating_sub(1) / 2;
    let mut byes_had = vec![0u32; n];
    let mut rounds = vec![];
    let (sizes, byes) = table_sizes(n, target, allowed, equal);
    if sizes.is_empty() {
        return rounds;
    }
    // A round always seats an unmet pair together (see below), so this ends; the bound is a
    // guard only.
    while unmet > 0 && rounds.len() < 4 * n {
        let round = rounds.len() as u32 + 1;
        let unmet_of =
            |p: usize, met: &Vec<Vec<bool>>| (0..n).filter(|&q| q != p && !met[p][q]).count();
        // Byes: fewest byes first, then those with the fewest pairs still to meet, then the
        // highest index.
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&p| (byes_had[p], unmet_of(p, &met), std::cmp::Reverse(p)));
        let bye: Vec<usize> = order[..byes].to_vec();
        let mut free: Vec<usize> = (0..n).filter(|p| !bye.contains(p)).collect();
        let mut tables = vec![];
        for &size in &sizes {
            // Start with the player with the most pairs still to meet.
            let Some(start) = free
                .iter()
                .copied()
                .max_by_key(|&p| (unmet_of(p, &met), std::cmp::Reverse(p)))
            else {
                break;
            };
            let mut table = vec![start];
            free.retain(|&p| p != start);
            while table.len() < size {
                let Some(next) = free.iter().copied().max_by_key(|&c| {
                    let new = table.iter().filter(|&&m| !met[c][m]).count();
                    (new, std::cmp::Reverse(c))
                }) else {
                    break;
                };
                table.push(next);
                free.retain(|&p| p != next);
            }
            tables.push(table);
        }
        for t in &tables {
            for (i, &a) in t.iter().enumerate() {
                for &b in &t[i + 1..] {
                    if !met[a][b] {
                        met[a][b] = true;
                        met[b][a] = true;
                        unmet -= 1;
                    }
                }
            }
        }
        for &b in &bye {
            byes_had[b] += 1;
        }
        rounds.push(Pairing {
            tables: tables.into_iter().map(|t| rotated(t, round)).collect(),
            byes: bye,
        });
    }
    rounds
}

/// The circle method: entrant 0 stays, the others turn; with an odd count a dummy gives byes.
fn circle(n: usize) -> Vec<Pairing> {
    if n < 2 {
        return vec![];
    }
    let m = n + n % 2;
    let mut ring: Vec<usize> = (0..m).collect();
    let mut rounds = vec![];
    for r in 0..m - 1 {
        let mut p = Pairing::default();
        for i in 0..m / 2 {
            let (a, b) = (ring[i], ring[m - 1 - i]);
            if a >= n {
                p.byes.push(b);
            } else if b >= n {
                p.byes.push(a);
            } else if (r + i) % 2 == 0 {
                p.tables.push(vec![a, b]);
            } else {
                p.tables.push(vec![b, a]);
            }
        }
        rounds.push(p);
        ring[1..].rotate_right(1);
    }
    rounds
}

/// One Swiss round. `ranked`: every entrant, best first by the standings; `met[a][b]`: how often
/// a and b have sat at one table; `byes_had[a]`: a's byes so far. Byes go to the lowest-ranked
/// entrants with the fewest byes. Tables fill from the top: the best entrant not yet seated, then
/// the next-best who repeat the fewest meetings with those already at the table.
pub fn swiss(
    ranked: &[usize],
    met: &[Vec<u32>],
    byes_had: &[u32],
    round: u32,
    target: usize,
    allowed: &[usize],
    equal: bool,
) -> Pairing {
    let (sizes, byes) = table_sizes(ranked.len(), target, allowed, equal);
    // From the bottom of the standings, those with the fewest byes.
    let mut bottom_up: Vec<(usize, usize)> = ranked.iter().rev().copied().enumerate().collect();
    bottom_up.sort_by_key(|&(pos, p)| (byes_had.get(p).copied().unwrap_or(0), pos));
    let bye: Vec<usize> = bottom_up.iter().take(byes).map(|&(_, p)| p).collect();
    let mut free: Vec<usize> = ranked
        .iter()
        .copied()
        .filter(|p| !bye.contains(p))
        .collect();
    let meetings = |a: usize, b: usize| met.get(a).and_then(|r| r.get(b)).copied().unwrap_or(0);
    let mut tables = vec![];
    for &size in &sizes {
        if free.is_empty() {
            break;
        }
        let mut table = vec![free.remove(0)];
        while table.len() < size && !free.is_empty() {
            // The fewest repeat meetings; among equals the best ranked (earliest in `free`).
            let (pos, _) = free
                .iter()
                .enumerate()
                .min_by_key(|&(pos, &c)| (table.iter().map(|&m| meetings(c, m)).sum::<u32>(), pos))
                .expect("not empty");
            table.push(free.remove(pos));
        }
        tables.push(rotated(table, round));
    }
    Pairing { tables, byes: bye }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs_met(rounds: &[Pairing], n: usize) -> Vec<Vec<u32>> {
        let mut met = vec![vec![0; n]; n];
        for r in rounds {
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
        met
    }

    #[test]
    fn table_sizes_fill_the_fewest_tables_evenly_and_leave_the_fewest_byes() {
        assert_eq!(table_sizes(10, 4, &[3, 4], false), (vec![4, 3, 3], 0));
        assert_eq!(table_sizes(8, 4, &[3, 4], false), (vec![4, 4], 0));
        assert_eq!(table_sizes(5, 4, &[2, 4], false), (vec![4], 1));
        assert_eq!(table_sizes(6, 4, &[2, 4], false), (vec![4, 2], 0));
        assert_eq!(table_sizes(9, 4, &[3, 4], true), (vec![4, 4], 1));
        assert_eq!(table_sizes(7, 2, &[2, 4], false), (vec![2, 2, 2], 1));
        assert_eq!(table_sizes(2, 3, &[3, 4, 5], false), (vec![], 2));
        assert_eq!(table_sizes(5, 3, &[3, 4, 5], false), (vec![3], 2));
    }

    #[test]
    fn a_two_seat_round_robin_meets_every_pair_once() {
        let rounds = round_robin(4, 2, &[2, 4], false);
        assert_eq!(rounds.len(), 3);
        let met = pairs_met(&rounds, 4);
        assert!((0..4).all(|a| (0..4).all(|b| met[a][b] == u32::from(a != b))));
        let odd = round_robin(5, 2, &[2], false);
        assert_eq!(odd.len(), 5);
        let mut byes = [0; 5];
        for r in &odd {
            assert_eq!(r.byes.len(), 1);
            byes[r.byes[0]] += 1;
        }
        assert_eq!(byes, [1; 5]);
        let met = pairs_met(&odd, 5);
        assert!((0..5).all(|a| (0..5).all(|b| met[a][b] == u32::from(a != b))));
    }

    #[test]
    fn a_larger_table_round_robin_meets_every_pair_at_least_once() {
        let rounds = round_robin(9, 3, &[3, 4, 5], false);
        let met = pairs_met(&rounds, 9);
        assert!((0..9).all(|a| (0..9).all(|b| a == b || met[a][b] >= 1)));
        assert!(rounds.len() <= 6, "{} rounds", rounds.len());
        for r in &rounds {
            let mut seated: Vec<usize> =
                r.tables.iter().flatten().chain(&r.byes).copied().collect();
            seated.sort_unstable();
            assert_eq!(seated, (0..9).collect::<Vec<_>>());
        }
    }

    #[test]
    fn swiss_pairs_the_top_together_and_avoids_a_rematch() {
        let none = vec![vec![0; 8]; 8];
        let p = swiss(&[3, 1, 0, 2, 4, 5, 6, 7], &none, &[0; 8], 1, 2, &[2], false);
        assert_eq!(
            p.tables,
            vec![vec![1, 3], vec![2, 0], vec![5, 4], vec![7, 6]]
        );
        // 3 and 1 met: 3 meets 0 instead.
        let mut met = none.clone();
        met[3][1] = 1;
        met[1][3] = 1;
        let p = swiss(&[3, 1, 0, 2], &met, &[0; 4], 2, 2, &[2], false);
        assert_eq!(p.tables, vec![vec![3, 0], vec![1, 2]]);
        // Five at tables of two: the lowest ranked without a bye sits out.
        let p = swiss(
            &[0, 1, 2, 3, 4],
            &vec![vec![0; 5]; 5],
            &[0, 0, 0, 0, 1],
            2,
            2,
            &[2],
            false,
        );
        assert_eq!(p.byes, vec![3]);
    }
}

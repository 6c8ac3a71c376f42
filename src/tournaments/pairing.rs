//! Who sits where: table sizes, round-robin schedules and Swiss rounds. Pure and deterministic:
//! the same standings and the same earlier rounds give the same pairing, so an arbiter can
//! reproduce every round.

use std::{
    cmp::{Ordering, Reverse},
    ops::Add,
};

use integer_blossom::min_weight_perfect_matching;

use super::model::Pairing;
use crate::rng::SplitMix64;

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

/// The tables a tournament seats: the organiser's size, the sizes the game allows, whether every
/// table must seat exactly the target, and where partners score together.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tables {
    /// The organiser's table size.
    pub target: usize,
    /// The player counts the game accepts.
    pub allowed: Vec<usize>,
    /// Every table seats exactly `target` (duplicate play compares tables seat by seat).
    pub equal: bool,
    /// For each table size at which partners score together, the seats of each side (four-seat
    /// Dump and Bonus-Malus: `[[0, 2], [1, 3]]`).
    pub sides: Vec<(usize, Vec<Vec<usize>>)>,
}

impl Tables {
    /// `sides_of(size)`: the sides of a table of that size, as its score sheet keeps them (None
    /// when each seat scores alone).
    pub fn new(
        target: usize,
        allowed: &[usize],
        equal: bool,
        sides_of: impl Fn(usize) -> Option<Vec<Vec<usize>>>,
    ) -> Self {
        let sides = allowed
            .iter()
            .filter_map(|&s| {
                sides_of(s)
                    .filter(|sides| sides.iter().any(|side| side.len() > 1))
                    .map(|sides| (s, sides))
            })
            .collect();
        Self {
            target,
            allowed: allowed.to_vec(),
            equal,
            sides,
        }
    }

    /// Table sizes and byes for `n` entrants ([`table_sizes`]).
    pub fn sizes(&self, n: usize) -> (Vec<usize>, usize) {
        table_sizes(n, self.target, &self.allowed, self.equal)
    }

    fn sides_of(&self, size: usize) -> Option<&[Vec<usize>]> {
        self.sides
            .iter()
            .find(|(s, _)| *s == size)
            .map(|(_, sides)| sides.as_slice())
    }
}

/// How often each pair of entrants did something (sat at one table, partnered), kept sparse:
/// per entrant, the others it did it with (sorted) and how often. An entrant meets a few dozen
/// others in a tournament, so a field of 4,096 keeps kilobytes, not a 4,096 × 4,096 matrix.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PairCounts {
    rows: Vec<Vec<(usize, u32)>>,
}

impl PairCounts {
    /// Nothing counted, `n` entrants.
    pub fn new(n: usize) -> Self {
        Self {
            rows: vec![vec![]; n],
        }
    }

    /// How often `a` did it with `b` (0 out of range).
    pub fn get(&self, a: usize, b: usize) -> u32 {
        let Some(row) = self.rows.get(a) else {
            return 0;
        };
        row.binary_search_by_key(&b, |&(o, _)| o)
            .map_or(0, |i| row[i].1)
    }

    /// Counts one more for `a` with `b` (one way: count `b` with `a` too for a symmetric count).
    /// Out of range: nothing.
    pub fn add(&mut self, a: usize, b: usize) {
        if b >= self.rows.len() {
            return;
        }
        let Some(row) = self.rows.get_mut(a) else {
            return;
        };
        match row.binary_search_by_key(&b, |&(o, _)| o) {
            Ok(i) => row[i].1 += 1,
            Err(i) => row.insert(i, (b, 1)),
        }
    }

    /// The most any pair counts (0 when none).
    pub fn max(&self) -> u32 {
        self.rows
            .iter()
            .flatten()
            .map(|&(_, c)| c)
            .max()
            .unwrap_or(0)
    }

    /// Every entrant's row as a dense matrix (small fields, tests).
    pub fn dense(&self) -> Vec<Vec<u32>> {
        let n = self.rows.len();
        let mut m = vec![vec![0; n]; n];
        for (a, row) in self.rows.iter().enumerate() {
            for &(b, c) in row {
                m[a][b] = c;
            }
        }
        m
    }
}

/// What the earlier rounds did, as pairing weighs it. Entrants by index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    /// `met.get(a, b)`: rounds in which a and b sat at one table (as opponents or as partners).
    pub met: PairCounts,
    /// `partnered.get(a, b)`: rounds in which a and b sat on one side.
    pub partnered: PairCounts,
    /// Rounds each entrant sat out.
    pub byes: Vec<u32>,
    /// At two-seat tables: rounds in seat 0 (the first to deal or lead) minus rounds in seat 1.
    pub seat_balance: Vec<i32>,
}

impl History {
    /// Nothing played yet, `n` entrants.
    pub fn new(n: usize) -> Self {
        Self {
            met: PairCounts::new(n),
            partnered: PairCounts::new(n),
            byes: vec![0; n],
            seat_balance: vec![0; n],
        }
    }

    /// Adds one round: its tables (entrants by seat) and byes. Entrants out of range are skipped.
    pub fn record(&mut self, round: &Pairing, tables: &Tables) {
        let n = self.byes.len();
        for t in &round.tables {
            for (i, &a) in t.iter().enumerate() {
                for (j, &b) in t.iter().enumerate() {
                    if i != j && a != b && a < n && b < n {
                        self.met.add(a, b);
                    }
                }
            }
            for side in tables.sides_of(t.len()).unwrap_or_default() {
                for &i in side {
                    for &j in side {
                        if let (Some(&a), Some(&b)) = (t.get(i), t.get(j)) {
                            if i != j && a != b && a < n && b < n {
                                self.partnered.add(a, b);
                            }
                        }
                    }
                }
            }
            if let [a, b] = t[..] {
                if a < n && b < n {
                    self.seat_balance[a] += 1;
                    self.seat_balance[b] -= 1;
                }
            }
        }
        for &b in &round.byes {
            if let Some(x) = self.byes.get_mut(b) {
                *x += 1;
            }
        }
    }
}

/// The cost of a Swiss round. Lower is better, and the fields are compared in the order they are
/// declared: the first that differs decides (a lexicographic order, so no amount of a later
/// field outweighs one unit of an earlier one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SwissCost {
    /// The byes the round's byes' entrants already had: nobody sits out twice while someone has
    /// not sat out (FIDE C.04.1 "a player who has already received a bye shall not receive
    /// one again" while avoidable).
    pub earlier_byes: u64,
    /// The earlier meetings of the pairs seated together: no repeat while one can be avoided,
    /// then as few as can be.
    pub repeats: u64,
    /// The places, counted from the bottom (0 = last), of the round's byes: the bye to the
    /// lowest-ranked entrant who can take it.
    pub bye_height: u64,
    /// Pairs seated together whose score groups are two or more apart, each counted as the
    /// square of the distance: nobody crosses a whole score group while that can be avoided.
    pub far_pairs: u64,
    /// Pairs from adjacent score groups: as many pairs within their own group as can be.
    pub floats: u64,
    /// Two-seat tables whose two players are both due the same seat (both sat first more often
    /// than second, or both less).
    pub seat_clashes: u64,
    /// The squared difference of places of the pairs seated together: 1st with 2nd and 3rd with
    /// 4th rather than 1st with 3rd (closest in the standings, Monrad's way).
    pub place_spread: u64,
}

const TIERS: usize = 7;

impl SwissCost {
    fn parts(&self) -> [u64; TIERS] {
        [
            self.earlier_byes,
            self.repeats,
            self.bye_height,
            self.far_pairs,
            self.floats,
            self.seat_clashes,
            self.place_spread,
        ]
    }
}

impl Add for SwissCost {
    type Output = SwissCost;

    fn add(self, o: SwissCost) -> SwissCost {
        SwissCost {
            earlier_byes: self.earlier_byes + o.earlier_byes,
            repeats: self.repeats + o.repeats,
            bye_height: self.bye_height + o.bye_height,
            far_pairs: self.far_pairs + o.far_pairs,
            floats: self.floats + o.floats,
            seat_clashes: self.seat_clashes + o.seat_clashes,
            place_spread: self.place_spread + o.place_spread,
        }
    }
}

/// The entrants of a Swiss round as the cost sees them.
struct Field<'a> {
    history: &'a History,
    /// Each entrant's place in the standings (0 = first), by entrant index.
    place: Vec<usize>,
    /// Each entrant's score group (0 = the highest score), by entrant index.
    group: Vec<usize>,
    /// How many entrants are ranked.
    ranked: usize,
}

impl<'a> Field<'a> {
    /// The field and its entrants in standings order (each once).
    fn new(ranked: &[usize], score: &[i64], history: &'a History) -> (Self, Vec<usize>) {
        let n = ranked.iter().map(|&e| e + 1).max().unwrap_or(0);
        let mut players = Vec::with_capacity(ranked.len());
        let mut place = vec![usize::MAX; n];
        for &e in ranked {
            if place[e] == usize::MAX {
                place[e] = players.len();
                players.push(e);
            }
        }
        let score_of = |e: usize| score.get(e).copied().unwrap_or(0);
        let mut scores: Vec<i64> = players.iter().map(|&e| score_of(e)).collect();
        scores.sort_unstable_by(|a, b| b.cmp(a));
        scores.dedup();
        let mut group = vec![0; n];
        for &e in &players {
            group[e] = scores
                .iter()
                .position(|&s| s == score_of(e))
                .unwrap_or_default();
        }
        let field = Field {
            history,
            place,
            group,
            ranked: players.len(),
        };
        (field, players)
    }

    /// A pair seated together (the seat clash aside: it concerns two-seat tables only).
    fn pair(&self, a: usize, b: usize) -> SwissCost {
        let d = self.group[a].abs_diff(self.group[b]) as u64;
        let dp = self.place[a].abs_diff(self.place[b]) as u64;
        SwissCost {
            repeats: u64::from(self.history.met.get(a, b)),
            far_pairs: if d >= 2 { d * d } else { 0 },
            floats: u64::from(d == 1),
            place_spread: dp * dp,
            ..SwissCost::default()
        }
    }

    fn balance(&self, a: usize) -> i32 {
        self.history.seat_balance.get(a).copied().unwrap_or(0)
    }

    fn clash(&self, a: usize, b: usize) -> SwissCost {
        let (x, y) = (self.balance(a), self.balance(b));
        SwissCost {
            seat_clashes: u64::from((x > 0 && y > 0) || (x < 0 && y < 0)),
            ..SwissCost::default()
        }
    }

    fn bye(&self, a: usize) -> SwissCost {
        SwissCost {
            earlier_byes: u64::from(self.history.byes.get(a).copied().unwrap_or(0)),
            bye_height: (self.ranked - 1 - self.place[a]) as u64,
            ..SwissCost::default()
        }
    }

    fn table(&self, members: &[usize]) -> SwissCost {
        let mut c = SwissCost::default();
        for (i, &a) in members.iter().enumerate() {
            for &b in &members[i + 1..] {
                c = c + self.pair(a, b);
            }
        }
        if let [a, b] = members[..] {
            c = c + self.clash(a, b);
        }
        c
    }

    fn byes(&self, members: &[usize]) -> SwissCost {
        members
            .iter()
            .fold(SwissCost::default(), |c, &a| c + self.bye(a))
    }
}

/// The cost of a Swiss round `pairing` (tables and byes; seat order aside) after the standings
/// `ranked` (entrants best first), `score` (each entrant's matchpoints: equal scores make a
/// score group) and `history`. [`swiss`] answers a pairing of the least cost.
pub fn swiss_cost(
    pairing: &Pairing,
    ranked: &[usize],
    score: &[i64],
    history: &History,
) -> SwissCost {
    let (field, _) = Field::new(ranked, score, history);
    pairing
        .tables
        .iter()
        .fold(field.byes(&pairing.byes), |c, t| c + field.table(t))
}

/// Fields of at most this many entrants are grouped exactly (every grouping is weighed).
const EXACT_UP_TO: usize = 12;
/// The exact search's budget, in nodes (a count, not a time, so that the pairing is the same on
/// every machine): far more than a field of `EXACT_UP_TO` needs.
const EXACT_NODES: u64 = 5_000_000;
/// The local search's budget, in passes over every swap.
const SEARCH_PASSES: usize = 200;

/// One Swiss round: the pairing of the least [`SwissCost`] (its fields in order: fewest earlier
/// byes among the byes, fewest repeat meetings, the bye to the lowest-ranked, nobody across a
/// whole score group, the most pairs within their score group, seats due, closest places).
///
/// `ranked`: every entrant, best first by the standings; `score`: each entrant's matchpoints
/// (equal scores form a score group; groups are numbered from the top, and two groups are
/// adjacent when no score lies between them); `history`: the earlier rounds.
///
/// Tables of two are a minimum-cost perfect matching (the blossom algorithm of the
/// `integer-blossom` crate) on the complete graph of the entrants, plus one vertex for the bye
/// when their number is odd: an edge costs what its pair (or its bye) adds to the cost vector,
/// scaled into one integer so that each field outweighs every later one over a whole matching.
/// Tables of more seats (or of mixed sizes) are weighed group by group with the same costs
/// (every pair at a table counts): exactly, by a branch and bound over every grouping, up to
/// 12 entrants; above that by a local search (swap two entrants between tables, or between a
/// table and the byes, while that lowers the cost) from the standings order, which reaches a
/// grouping no single swap improves. Ties between pairings of equal cost are broken by the
/// algorithms' fixed order over the entrants in standings order: the same standings and history
/// give the same pairing.
///
/// Seats: at a table of two the player who sat first less often (seat 0 minus seat 1) sits
/// first; when equal, the better placed sits first in even rounds, second in odd ones. At
/// partnership tables partners are the entrants who partnered least before. Otherwise seat order
/// follows the standings, rotated by the round.
pub fn swiss(
    ranked: &[usize],
    score: &[i64],
    history: &History,
    round: u32,
    tables: &Tables,
) -> Pairing {
    let (field, players) = Field::new(ranked, score, history);
    let (sizes, byes) = tables.sizes(players.len());
    let matched = if sizes.iter().all(|&s| s == 2) && byes <= 1 {
        pair_in_windows(&field, &players, byes)
    } else {
        None
    };
    let (mut groups, mut bye) =
        matched.unwrap_or_else(|| group_by_search(&field, &players, &sizes, byes));
    for g in &mut groups {
        g.sort_by_key(|&e| field.place[e]);
    }
    groups.sort_by_key(|g| g.first().map(|&e| field.place[e]));
    bye.sort_by_key(|&e| field.place[e]);
    Pairing {
        tables: groups
            .into_iter()
            .map(|g| seat_swiss(&field, g, round, tables))
            .collect(),
        byes: bye,
    }
}

/// Fields of at most this many entrants are paired as a whole: one matching, or one search, over
/// every entrant. Larger fields (a national open of 4,096) are paired window by window.
const WHOLE_FIELD_UP_TO: usize = 256;
/// A larger field's window: this many entrants, consecutive in the standings (the last window
/// takes what is left when fewer than half a window would follow it, so every window has at
/// least `WINDOW / 2`).
const WINDOW: usize = 128;
/// A window of tables of more seats that repeats a meeting grows by one window at a time while
/// that is so, up to this many entrants.
const WINDOW_MAX: usize = 4 * WINDOW;

/// The windows of a larger field of `m` entrants: (start, end) in standings order.
fn windows(m: usize) -> Vec<(usize, usize)> {
    let mut out = vec![];
    let mut start = 0;
    while start < m {
        let mut end = (start + WINDOW).min(m);
        if m - end < WINDOW / 2 {
            end = m;
        }
        out.push((start, end));
        start = end;
    }
    out
}

/// Tables of two: the whole field's minimum-cost matching up to [`WHOLE_FIELD_UP_TO`] entrants;
/// above, each window's, in standings order, the bye (if any) taken in the last window.
///
/// Windows keep what the hard rules need. No repeat: in a window of w ≥ 64 entrants after at most
/// 30 rounds everyone has met at most 30 others, so in the graph of pairs that never met every
/// entrant has at least w − 31 ≥ w / 2 partners (with the bye's vertex, which meets everyone,
/// likewise), and by Dirac's theorem that graph has a Hamiltonian cycle, hence a perfect matching:
/// the window's least cost has no repeat. The bye to someone with the fewest byes: at most one
/// bye a round was ever given, at most 29 entrants have one, and the last window holds at least
/// 64. What windows change is the later tiers at a window's edge: a pair across the edge (say
/// 128th with 129th place) is never formed, so a score group split by an edge may float one
/// entrant more, and places spread a little more, than the whole field's optimum would.
fn pair_in_windows(
    field: &Field,
    players: &[usize],
    byes: usize,
) -> Option<(Vec<Vec<usize>>, Vec<usize>)> {
    if players.len() <= WHOLE_FIELD_UP_TO {
        return pair_by_matching(field, players, byes);
    }
    let ws = windows(players.len());
    let (mut tables, mut bye) = (vec![], vec![]);
    for (k, &(start, end)) in ws.iter().enumerate() {
        let last = k + 1 == ws.len();
        let (t, b) = pair_by_matching(field, &players[start..end], if last { byes } else { 0 })?;
        tables.extend(t);
        bye.extend(b);
    }
    Some((tables, bye))
}

/// Tables of two by a minimum-cost perfect matching. None when the costs cannot be scaled into
/// one integer (never within 256 entrants and 30 rounds; the search then pairs instead).
fn pair_by_matching(
    field: &Field,
    players: &[usize],
    byes: usize,
) -> Option<(Vec<Vec<usize>>, Vec<usize>)> {
    let m = players.len();
    // With a bye, vertex m stands for it: whoever is matched to it sits out.
    let v = m + byes;
    let mut parts = vec![[0; TIERS]; v * v];
    for i in 0..v {
        for j in i + 1..v {
            let c = if j == m {
                field.bye(players[i])
            } else {
                let (a, b) = (players[i], players[j]);
                field.pair(a, b) + field.clash(a, b)
            };
            parts[i * v + j] = c.parts();
        }
    }
    let cost = scalarize(&parts, (v / 2) as u64)?;
    let mate = min_weight_perfect_matching(&cost, v);
    let (mut tables, mut bye) = (vec![], vec![]);
    for (i, &j) in mate.iter().enumerate().take(m) {
        if j == m {
            bye.push(players[i]);
        } else if i < j {
            tables.push(vec![players[i], players[j]]);
        }
    }
    Some((tables, bye))
}

/// One integer per edge that orders perfect matchings as their summed cost vectors do: each
/// field is weighted by one more than the most that every later field can add up to over a
/// matching of `edges` edges. None when that does not fit in an `i128` with room for the
/// solver's arithmetic (it works with weights up to `i128::MAX / 4`).
fn scalarize(parts: &[[u64; TIERS]], edges: u64) -> Option<Vec<i128>> {
    let mut max = [0u64; TIERS];
    for p in parts {
        for (m, &x) in max.iter_mut().zip(p) {
            *m = (*m).max(x);
        }
    }
    let mut weight = [0i128; TIERS];
    let mut w: i128 = 1;
    for t in (0..TIERS).rev() {
        weight[t] = w;
        let span = i128::from(max[t])
            .checked_mul(i128::from(edges))?
            .checked_add(1)?;
        w = w.checked_mul(span)?;
    }
    if w > i128::MAX >> 8 {
        return None;
    }
    Some(
        parts
            .iter()
            .map(|p| {
                p.iter()
                    .zip(&weight)
                    .map(|(&x, &k)| i128::from(x) * k)
                    .sum()
            })
            .collect(),
    )
}

/// Tables of `sizes` and `byes` byes by search: a start in standings order (the byes to the
/// lowest-ranked among those with the fewest byes), the local search, and on small fields the
/// exact search. Answers (tables, byes).
fn group_by_search(
    field: &Field,
    players: &[usize],
    sizes: &[usize],
    byes: usize,
) -> (Vec<Vec<usize>>, Vec<usize>) {
    let mut by_bye: Vec<usize> = players.to_vec();
    by_bye.sort_by_key(|&e| (field.bye(e).earlier_byes, Reverse(field.place[e])));
    let bye: Vec<usize> = by_bye.into_iter().take(byes).collect();
    let mut rest = players.iter().copied().filter(|e| !bye.contains(e));
    let mut groups: Vec<Vec<usize>> = sizes
        .iter()
        .map(|&s| rest.by_ref().take(s).collect())
        .collect();
    // The last group is the byes.
    groups.push(bye);
    if players.len() <= WHOLE_FIELD_UP_TO {
        local_search(field, &mut groups, true);
    } else {
        search_in_windows(field, &mut groups);
    }
    if players.len() <= EXACT_UP_TO {
        exact_search(field, players, sizes, byes, &mut groups);
    }
    let bye = groups.pop().unwrap_or_default();
    (groups, bye)
}

/// The local search of a larger field, window by window: consecutive tables of about [`WINDOW`]
/// entrants in standings order (the last window with the byes). A window that still repeats a
/// meeting takes in the next window's tables and is searched again, up to [`WINDOW_MAX`]
/// entrants.
fn search_in_windows(field: &Field, groups: &mut [Vec<usize>]) {
    let tables = groups.len() - 1;
    // The table at which each window starts: whole tables of at least `WINDOW` entrants, the
    // last one taking the rest when fewer than half a window would follow.
    let m: usize = groups[..tables].iter().map(Vec::len).sum();
    let mut bounds = vec![0];
    let (mut acc, mut seated) = (0, 0);
    for (t, g) in groups[..tables].iter().enumerate() {
        acc += g.len();
        seated += g.len();
        if acc >= WINDOW && m - seated >= WINDOW / 2 {
            bounds.push(t + 1);
            acc = 0;
        }
    }
    if bounds.last() != Some(&tables) {
        bounds.push(tables);
    }
    let mut w = 0;
    while w + 1 < bounds.len() {
        let (start, mut end) = (bounds[w], bounds[w + 1]);
        let mut next = w + 1;
        loop {
            let last = end == tables;
            // The last window's groups include the byes (the last group).
            let stop = if last { groups.len() } else { end };
            local_search(field, &mut groups[start..stop], last);
            let repeats: u64 = groups[start..end]
                .iter()
                .map(|g| field.table(g).repeats)
                .sum();
            let size: usize = groups[start..end].iter().map(Vec::len).sum();
            if repeats == 0 || last || size >= WINDOW_MAX {
                break;
            }
            next += 1;
            end = bounds[next];
        }
        w = next;
    }
}

/// Swaps two entrants of different groups (with `byes_last`, the last group is the byes) while that lowers the
/// cost, scanning groups and seats in order, until no swap does (or the budget is spent).
fn local_search(field: &Field, groups: &mut [Vec<usize>], byes_last: bool) {
    let last = groups.len() - 1;
    let cost = |g: usize, m: &[usize]| {
        if byes_last && g == last {
            field.byes(m)
        } else {
            field.table(m)
        }
    };
    let mut costs: Vec<SwissCost> = groups.iter().enumerate().map(|(g, m)| cost(g, m)).collect();
    for _ in 0..SEARCH_PASSES {
        let mut improved = false;
        for a in 0..groups.len() {
            for b in a + 1..groups.len() {
                for i in 0..groups[a].len() {
                    for j in 0..groups[b].len() {
                        let (x, y) = (groups[a][i], groups[b][j]);
                        groups[a][i] = y;
                        groups[b][j] = x;
                        let (ca, cb) = (cost(a, &groups[a]), cost(b, &groups[b]));
                        if ca + cb < costs[a] + costs[b] {
                            (costs[a], costs[b]) = (ca, cb);
                            improved = true;
                        } else {
                            groups[a][i] = x;
                            groups[b][j] = y;
                        }
                    }
                }
            }
        }
        if !improved {
            break;
        }
    }
}

/// The exact grouping: a branch and bound over every choice of byes, then every split of the
/// rest into tables (each table opened by the best-placed entrant still free, so no grouping is
/// visited twice), cut as soon as a partial cost reaches the best known (costs only grow). It
/// replaces `groups` (the bound it starts from) only by a strictly cheaper grouping.
fn exact_search(
    field: &Field,
    players: &[usize],
    sizes: &[usize],
    byes: usize,
    groups: &mut Vec<Vec<usize>>,
) {
    struct Search<'s, 'f> {
        field: &'s Field<'f>,
        players: &'s [usize],
        /// (size, tables of that size still to open), largest first.
        open: Vec<(usize, usize)>,
        best: SwissCost,
        found: Option<Vec<Vec<usize>>>,
        current: Vec<Vec<usize>>,
        nodes: u64,
    }

    impl Search<'_, '_> {
        fn byes(&mut self, from: usize, left: usize, free: u32, chosen: &mut Vec<usize>) {
            if left == 0 {
                let c = self.field.byes(chosen);
                if c < self.best {
                    self.current.push(chosen.clone());
                    self.tables(free, c);
                    self.current.pop();
                }
                return;
            }
            for i in from..self.players.len() {
                chosen.push(self.players[i]);
                self.byes(i + 1, left - 1, free & !(1 << i), chosen);
                chosen.pop();
            }
        }

        fn tables(&mut self, free: u32, cost: SwissCost) {
            self.nodes += 1;
            if self.nodes > EXACT_NODES {
                return;
            }
            if free == 0 {
                // Reached only below the bound: strictly cheaper.
                self.best = cost;
                self.found = Some(self.current.clone());
                return;
            }
            let first = free.trailing_zeros() as usize;
            for k in 0..self.open.len() {
                let (size, left) = self.open[k];
                if left == 0 {
                    continue;
                }
                self.open[k].1 -= 1;
                let mut members = vec![self.players[first]];
                self.fill(size, first + 1, free & !(1 << first), &mut members, cost);
                self.open[k].1 += 1;
            }
        }

        fn fill(
            &mut self,
            size: usize,
            from: usize,
            free: u32,
            members: &mut Vec<usize>,
            cost: SwissCost,
        ) {
            if members.len() == size {
                let c = cost + self.field.table(members);
                if c < self.best {
                    self.current.push(members.clone());
                    self.tables(free, c);
                    self.current.pop();
                }
                return;
            }
            for i in from..self.players.len() {
                if free & (1 << i) != 0 {
                    members.push(self.players[i]);
                    self.fill(size, i + 1, free & !(1 << i), members, cost);
                    members.pop();
                }
            }
        }
    }

    let last = groups.len() - 1;
    let best = groups[..last]
        .iter()
        .fold(field.byes(&groups[last]), |c, t| c + field.table(t));
    let mut open: Vec<(usize, usize)> = vec![];
    for &s in sizes {
        match open.iter_mut().find(|(size, _)| *size == s) {
            Some(o) => o.1 += 1,
            None => open.push((s, 1)),
        }
    }
    open.sort_by_key(|&(s, _)| Reverse(s));
    let mut search = Search {
        field,
        players,
        open,
        best,
        found: None,
        current: vec![],
        nodes: 0,
    };
    let all = (1u32 << players.len()) - 1;
    search.byes(0, byes, all, &mut vec![]);
    if let Some(mut found) = search.found {
        // current[0] is the byes; the tables follow.
        let bye = found.remove(0);
        found.push(bye);
        *groups = found;
    }
}

/// Seat order at a Swiss table whose entrants are in standings order (see [`swiss`]).
fn seat_swiss(field: &Field, members: Vec<usize>, round: u32, tables: &Tables) -> Vec<usize> {
    if let [a, b] = members[..] {
        return match field.balance(a).cmp(&field.balance(b)) {
            Ordering::Less => vec![a, b],
            Ordering::Greater => vec![b, a],
            Ordering::Equal => rotated(members, round),
        };
    }
    seat_partners(members, round, tables, &field.history.partnered)
}

/// Seat order at a table of `members` (in their given order): at a partnership table the first
/// order (permutations in lexicographic order) whose partners partnered least before; then
/// rotated by the round (when the rotation keeps the sides, as it does for seats 0 & 2 against
/// 1 & 3).
fn seat_partners(
    members: Vec<usize>,
    round: u32,
    tables: &Tables,
    partnered: &PairCounts,
) -> Vec<usize> {
    let Some(sides) = tables.sides_of(members.len()) else {
        return rotated(members, round);
    };
    let k = members.len();
    // Partnership tables have four seats; the bound keeps the permutations few.
    if k > 8 {
        return rotated(members, round);
    }
    let partners = |order: &[usize]| -> u64 {
        sides
            .iter()
            .map(|side| {
                let mut c = 0;
                for (x, &i) in side.iter().enumerate() {
                    for &j in &side[x + 1..] {
                        if let (Some(&a), Some(&b)) = (order.get(i), order.get(j)) {
                            c += u64::from(partnered.get(a, b));
                        }
                    }
                }
                c
            })
            .sum()
    };
    let mut best: Option<(u64, Vec<usize>)> = None;
    for perm in permutations(k) {
        let order: Vec<usize> = perm.iter().map(|&i| members[i]).collect();
        let c = partners(&order);
        if best.as_ref().is_none_or(|(b, _)| c < *b) {
            best = Some((c, order));
        }
    }
    let order = best.map(|(_, o)| o).unwrap_or(members);
    let turned = rotated(order.clone(), round);
    let pairs = |o: &[usize]| {
        let mut p: Vec<(usize, usize)> = sides
            .iter()
            .flat_map(|side| {
                side.iter().flat_map(move |&i| {
                    side.iter()
                        .filter(move |&&j| i < j)
                        .filter_map(move |&j| Some((*o.get(i)?, *o.get(j)?)))
                })
            })
            .map(|(a, b)| (a.min(b), a.max(b)))
            .collect();
        p.sort_unstable();
        p
    };
    if pairs(&turned) == pairs(&order) {
        turned
    } else {
        order
    }
}

/// Every permutation of `0..k`, in lexicographic order.
fn permutations(k: usize) -> Vec<Vec<usize>> {
    fn go(k: usize, cur: &mut Vec<usize>, used: &mut Vec<bool>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in 0..k {
            if !used[i] {
                used[i] = true;
                cur.push(i);
                go(k, cur, used, out);
                cur.pop();
                used[i] = false;
            }
        }
    }
    let mut out = vec![];
    go(k, &mut vec![], &mut vec![false; k], &mut out);
    out
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

/// The local search's budget for a round-robin round, in swaps weighed (a count, not a time, so
/// the schedule is the same on every machine).
const SCHEDULE_SWAPS: u64 = 4_000_000;
/// The annealing's moves for a schedule: this many per round and entrant, within the bounds.
const ANNEAL_MOVES_PER_SEAT: u64 = 2_000;
const ANNEAL_MOVES_MIN: u64 = 100_000;
const ANNEAL_MOVES_MAX: u64 = 3_000_000;

/// The whole round-robin schedule, fixed up front. Two-seat tables: the circle method (Berger
/// tables), every pair meets exactly once in n−1 rounds (n rounds, one bye each, when n is odd).
///
/// Larger tables: every pair meets at least once, and meetings are spread as evenly as the
/// search finds. The schedule's "spread" orders schedules: first the pairs that never meet
/// (none, once done), then the pairs meeting the most times, then the pairs meeting one time
/// fewer, and so on, so that the most times any pair meets is as small as found, then as few
/// pairs as found meet that often.
///
/// 1. Rounds are added one at a time until every pair has met: each round's byes rotate (nobody
///    sits out twice before everybody sat out once, where the sizes allow; then the entrant with
///    the fewest pairs still to meet, then the highest index), its tables start from the
///    entrants with the most pairs still to meet, and swaps of two entrants between its tables
///    lower the spread while they can.
/// 2. A simulated annealing over swaps of two entrants between two tables of one round, with a
///    fixed seed and a fixed number of moves (so the same entrants give the same schedule),
///    minimises the sum over pairs of the square of their meetings (an unmet pair counts 4, as
///    if it met twice, so that the search may pass through schedules that leave a pair unmet):
///    with the number of meetings fixed by the rounds, that sum is least when meetings are as
///    even as they can be. The schedule of the best spread seen is kept.
/// 3. While the last round can go (the annealing covers every pair without it, and no pair then
///    meets more often than the most any pair meets with it), it goes; the byes stay balanced,
///    since every prefix of the rotation is. A shorter schedule is never bought with a worse
///    spread: seven players at tables of three meet at most twice in six rounds, but five rounds
///    would seat one pair together every round.
///
/// At partnership tables the partners are, round by round, the ones who partnered least
/// before, so partnerships rotate.
pub fn round_robin(n: usize, tables: &Tables) -> Vec<Pairing> {
    if tables.target == 2 && tables.allowed.contains(&2) {
        return circle(n);
    }
    let (sizes, byes) = tables.sizes(n);
    if sizes.is_empty() {
        return vec![];
    }
    let mut s = Schedule::new(n);
    // Each round's search seats unmet pairs together first (they come first in the spread), so
    // this ends; the bound is a guard only.
    while s.spread[0] > 0 && s.rounds.len() < 4 * n {
        s.add_round(&sizes, byes);
        let last = s.rounds.len() - 1;
        s.improve(last);
    }
    s.anneal();
    while s.rounds.len() > 1 {
        let mut fewer = s.clone();
        fewer.drop_last_round();
        fewer.anneal();
        if fewer.spread[0] > 0 || fewer.most_met() > s.most_met() {
            break;
        }
        s = fewer;
    }
    let mut partnered = PairCounts::new(n);
    let record = |order: &[usize], partnered: &mut PairCounts| {
        for side in tables.sides_of(order.len()).unwrap_or_default() {
            for &i in side {
                for &j in side {
                    if i != j {
                        partnered.add(order[i], order[j]);
                    }
                }
            }
        }
    };
    s.rounds
        .into_iter()
        .enumerate()
        .map(|(r, (groups, byes))| {
            let round = r as u32 + 1;
            let mut seated = vec![];
            for mut g in groups {
                g.sort_unstable();
                let order = seat_partners(g, round, tables, &partnered);
                record(&order, &mut partnered);
                seated.push(order);
            }
            seated.sort_by_key(|t| t.iter().min().copied());
            Pairing {
                tables: seated,
                byes,
            }
        })
        .collect()
}

/// The annealing's energy of a pair that meets `c` times.
fn pair_energy(c: usize) -> i64 {
    if c == 0 {
        4
    } else {
        (c * c) as i64
    }
}

/// A round-robin schedule being built: its rounds, how often each pair met, and the spread.
#[derive(Clone)]
struct Schedule {
    n: usize,
    met: Vec<Vec<u32>>,
    /// `spread[c]`: the pairs that meet `c` times.
    spread: Vec<u64>,
    /// The sum of [`pair_energy`] over the pairs.
    energy: i64,
    byes_had: Vec<u32>,
    /// Per round: its tables (entrants) and byes.
    rounds: Vec<(Vec<Vec<usize>>, Vec<usize>)>,
    /// Swaps weighed so far (the budget of `improve`).
    swaps: u64,
}

/// Orders two spreads: fewer pairs never met first, then fewer pairs at the highest count, then
/// at the next, down to two meetings (the pairs meeting once follow from the rest).
fn spread_cmp(a: &[u64], b: &[u64]) -> Ordering {
    let at = |s: &[u64], c: usize| s.get(c).copied().unwrap_or(0);
    at(a, 0).cmp(&at(b, 0)).then_with(|| {
        (2..a.len().max(b.len()))
            .rev()
            .map(|c| at(a, c).cmp(&at(b, c)))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    })
}

impl Schedule {
    fn new(n: usize) -> Self {
        Self {
            n,
            met: vec![vec![0; n]; n],
            spread: vec![(n * n.saturating_sub(1) / 2) as u64],
            energy: (n * n.saturating_sub(1) / 2) as i64 * pair_energy(0),
            byes_had: vec![0; n],
            rounds: vec![],
            swaps: 0,
        }
    }

    /// One more (`up`) or one fewer meeting of a and b.
    fn bump(&mut self, a: usize, b: usize, up: bool) {
        let c = self.met[a][b] as usize;
        let d = if up { c + 1 } else { c - 1 };
        self.spread[c] -= 1;
        if self.spread.len() <= d {
            self.spread.resize(d + 1, 0);
        }
        self.spread[d] += 1;
        self.energy += pair_energy(d) - pair_energy(c);
        self.met[a][b] = d as u32;
        self.met[b][a] = d as u32;
    }

    fn seat(&mut self, table: &[usize], up: bool) {
        for (i, &a) in table.iter().enumerate() {
            for &b in &table[i + 1..] {
                self.bump(a, b, up);
            }
        }
    }

    fn unmet_of(&self, p: usize) -> usize {
        (0..self.n)
            .filter(|&q| q != p && self.met[p][q] == 0)
            .count()
    }

    /// Adds a round: byes by rotation, then each table from the entrant with the most pairs
    /// still to meet, filled by the entrant who meets the most new ones at it.
    fn add_round(&mut self, sizes: &[usize], byes: usize) {
        let n = self.n;
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&p| (self.byes_had[p], self.unmet_of(p), Reverse(p)));
        let bye: Vec<usize> = order[..byes].to_vec();
        let mut free: Vec<usize> = (0..n).filter(|p| !bye.contains(p)).collect();
        let mut tables = vec![];
        for &size in sizes {
            let Some(start) = free
                .iter()
                .copied()
                .max_by_key(|&p| (self.unmet_of(p), Reverse(p)))
            else {
                break;
            };
            let mut table = vec![start];
            free.retain(|&p| p != start);
            while table.len() < size {
                let Some(next) = free.iter().copied().max_by_key(|&c| {
                    let new = table.iter().filter(|&&m| self.met[c][m] == 0).count();
                    (new, Reverse(c))
                }) else {
                    break;
                };
                table.push(next);
                free.retain(|&p| p != next);
            }
            tables.push(table);
        }
        for t in &tables {
            self.seat(t, true);
        }
        for &b in &bye {
            self.byes_had[b] += 1;
        }
        self.rounds.push((tables, bye));
    }

    /// Swaps two entrants between two tables of round `r` while that lowers the spread, until
    /// no swap does or the budget is spent.
    fn improve(&mut self, r: usize) {
        let mut before = vec![];
        loop {
            let mut improved = false;
            let tables = self.rounds[r].0.len();
            for a in 0..tables {
                for b in a + 1..tables {
                    for i in 0..self.rounds[r].0[a].len() {
                        for j in 0..self.rounds[r].0[b].len() {
                            if self.swaps >= SCHEDULE_SWAPS {
                                return;
                            }
                            self.swaps += 1;
                            before.clear();
                            before.extend_from_slice(&self.spread);
                            self.swap(r, (a, i), (b, j));
                            if spread_cmp(&self.spread, &before).is_lt() {
                                improved = true;
                            } else {
                                self.swap(r, (a, i), (b, j));
                            }
                        }
                    }
                }
            }
            if !improved {
                return;
            }
        }
    }

    /// The simulated annealing of step 2 (see [`round_robin`]); keeps the best spread seen.
    fn anneal(&mut self) {
        let rounds: Vec<usize> = (0..self.rounds.len())
            .filter(|&r| self.rounds[r].0.len() >= 2)
            .collect();
        if rounds.is_empty() {
            return;
        }
        let moves = (self.rounds.len() as u64 * self.n as u64 * ANNEAL_MOVES_PER_SEAT)
            .clamp(ANNEAL_MOVES_MIN, ANNEAL_MOVES_MAX);
        // A fixed seed: the schedule is the same every time (crate::rng says why it is ours).
        let mut rng = SplitMix64::new(0x5EED_C1AB_0000 ^ self.n as u64);
        let mut best = self.clone();
        // From a temperature at which a step of +4 energy is taken one time in three, down to
        // one at which a step of +1 is taken one time in a million, geometrically.
        let (hot, cold) = (4.0 / 3f64.ln(), 1.0 / 1e6f64.ln());
        for m in 0..moves {
            let t = hot * (cold / hot).powf(m as f64 / moves as f64);
            let r = rounds[rng.below(rounds.len())];
            let tables = self.rounds[r].0.len();
            let a = rng.below(tables);
            let b = (a + 1 + rng.below(tables - 1)) % tables;
            let i = rng.below(self.rounds[r].0[a].len());
            let j = rng.below(self.rounds[r].0[b].len());
            let before = self.energy;
            self.swap(r, (a, i), (b, j));
            let delta = self.energy - before;
            if delta <= 0 || rng.unit() < (-(delta as f64) / t).exp() {
                if spread_cmp(&self.spread, &best.spread).is_lt() {
                    best.clone_from(self);
                }
            } else {
                self.swap(r, (a, i), (b, j));
            }
        }
        *self = best;
    }

    /// The most times any pair meets.
    fn most_met(&self) -> usize {
        self.spread.iter().rposition(|&c| c > 0).unwrap_or(0)
    }

    /// Takes the last round out (step 3 of [`round_robin`]).
    fn drop_last_round(&mut self) {
        if let Some((tables, byes)) = self.rounds.pop() {
            for t in &tables {
                self.seat(t, false);
            }
            for b in byes {
                self.byes_had[b] -= 1;
            }
        }
    }

    /// Swaps the entrant at seat i of table a with the one at seat j of table b, in round r.
    fn swap(&mut self, r: usize, (a, i): (usize, usize), (b, j): (usize, usize)) {
        let x = self.rounds[r].0[a][i];
        let y = self.rounds[r].0[b][j];
        let ta = std::mem::take(&mut self.rounds[r].0[a]);
        let tb = std::mem::take(&mut self.rounds[r].0[b]);
        for &m in ta.iter().filter(|&&m| m != x) {
            self.bump(x, m, false);
            self.bump(y, m, true);
        }
        for &m in tb.iter().filter(|&&m| m != y) {
            self.bump(y, m, false);
            self.bump(x, m, true);
        }
        self.rounds[r].0[a] = ta;
        self.rounds[r].0[b] = tb;
        self.rounds[r].0[a][i] = y;
        self.rounds[r].0[b][j] = x;
    }
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
        let rounds = round_robin(4, &Tables::new(2, &[2, 4], false, |_| None));
        assert_eq!(rounds.len(), 3);
        let met = pairs_met(&rounds, 4);
        assert!((0..4).all(|a| (0..4).all(|b| met[a][b] == u32::from(a != b))));
        let odd = round_robin(5, &Tables::new(2, &[2], false, |_| None));
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
        let rounds = round_robin(9, &Tables::new(3, &[3, 4, 5], false, |_| None));
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

    fn two_seats() -> Tables {
        Tables::new(2, &[2], false, |_| None)
    }

    fn history_of(n: usize, met: &[(usize, usize)]) -> History {
        let mut h = History::new(n);
        for &(a, b) in met {
            h.met.add(a, b);
            h.met.add(b, a);
        }
        h
    }

    #[test]
    fn swiss_pairs_the_top_together_and_avoids_a_rematch() {
        let p = swiss(
            &[3, 1, 0, 2, 4, 5, 6, 7],
            &[0; 8],
            &History::new(8),
            1,
            &two_seats(),
        );
        assert_eq!(
            p.tables,
            vec![vec![1, 3], vec![2, 0], vec![5, 4], vec![7, 6]]
        );
        // 3 and 1 met: 3 meets 0 instead.
        let h = history_of(4, &[(3, 1)]);
        let p = swiss(&[3, 1, 0, 2], &[0; 4], &h, 2, &two_seats());
        assert_eq!(p.tables, vec![vec![3, 0], vec![1, 2]]);
        // Five at tables of two: the lowest ranked without a bye sits out.
        let mut h = History::new(5);
        h.byes[4] = 1;
        let p = swiss(&[0, 1, 2, 3, 4], &[0; 5], &h, 2, &two_seats());
        assert_eq!(p.byes, vec![3]);
    }

    #[test]
    fn swiss_avoids_the_repeat_that_pairing_from_the_top_walked_into() {
        // The greedy walk paired 0-2 and 1-3, leaving 4 and 5, who had met: [[0, 2], [1, 3],
        // [4, 5]]. 0-2, 1-4, 3-5 repeats nothing.
        let h = history_of(6, &[(0, 1), (4, 5)]);
        let p = swiss(&[0, 1, 2, 3, 4, 5], &[0; 6], &h, 2, &two_seats());
        assert_eq!(p.tables, vec![vec![0, 2], vec![1, 4], vec![3, 5]]);
        assert_eq!(swiss_cost(&p, &[0, 1, 2, 3, 4, 5], &[0; 6], &h).repeats, 0);
    }

    #[test]
    fn swiss_keeps_pairs_within_adjacent_score_groups() {
        // Groups {0, 1} 4 points, {2, 3} 2, {4, 5} 0. 0 met 1, 1 met 3: from the top, 0-2 left 1
        // only 4 or 5 (two groups down). 0-3, 1-2, 4-5 keeps every pair within adjacent groups.
        let h = history_of(6, &[(0, 1), (1, 3)]);
        let score = [4, 4, 2, 2, 0, 0];
        let p = swiss(&[0, 1, 2, 3, 4, 5], &score, &h, 2, &two_seats());
        assert_eq!(p.tables, vec![vec![0, 3], vec![1, 2], vec![4, 5]]);
        let c = swiss_cost(&p, &[0, 1, 2, 3, 4, 5], &score, &h);
        assert_eq!((c.repeats, c.far_pairs, c.floats), (0, 0, 2));
    }

    #[test]
    fn swiss_seats_first_the_player_who_sat_first_less_often() {
        let mut h = History::new(4);
        h.seat_balance = vec![1, -1, -1, 1];
        // 0 and 1 pair (no clash: 0 is due seat 1, 1 is due seat 0), 2 and 3 likewise.
        let p = swiss(&[0, 1, 2, 3], &[0; 4], &h, 2, &two_seats());
        assert_eq!(p.tables, vec![vec![1, 0], vec![2, 3]]);
        // 0 and 2 both sat first more often: pairing them would clash; 0-1, 2-3 does not, even
        // against closer places.
        h.seat_balance = vec![1, 1, -1, -1];
        let p = swiss(&[0, 1, 2, 3], &[0; 4], &h, 2, &two_seats());
        assert_eq!(p.tables, vec![vec![2, 0], vec![3, 1]]);
    }

    #[test]
    fn swiss_groups_avoid_repeats_and_rotate_partners() {
        let partnership = Tables::new(4, &[4], true, |s| {
            (s == 4).then(|| vec![vec![0, 2], vec![1, 3]])
        });
        let mut h = History::new(8);
        // Round 1: [0, 1, 2, 3] and [4, 5, 6, 7], 0 & 2 and 4 & 6 partners.
        h.record(
            &Pairing {
                tables: vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]],
                byes: vec![],
            },
            &partnership,
        );
        let ranked = [0, 1, 2, 3, 4, 5, 6, 7];
        let p = swiss(&ranked, &[0; 8], &h, 2, &partnership);
        // Each table meets two from each earlier table: 4 repeat pairs is the least possible.
        assert_eq!(swiss_cost(&p, &ranked, &[0; 8], &h).repeats, 4);
        // Nobody partners a partner of round 1.
        let mut again = h.clone();
        again.record(&p, &partnership);
        for a in 0..8 {
            for b in 0..8 {
                assert!(again.partnered.get(a, b) <= 1, "{a} {b}: {p:?}");
            }
        }
    }
}

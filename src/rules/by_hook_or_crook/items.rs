//! Collection cards (the 45 "items" in series A–F, each dated) and SETS.
//!
//! docs/rules.md#by-hook-or-crook-collection: a card is written letter plus year (`C1710`); the older card is
//! worth more in ties. The default deck dates the k-th card of the i-th letter 1500 + 60k + 7i.
//! A SET is at least three cards whose letters form one unbroken run ("AABB, CCD, EEE, DEF are
//! sets; AAC, BCF, DE, AAACE are not"); the biggest set wins, ties broken by the oldest card.

#[cfg(test)]
use std::collections::BTreeSet;
use std::{cmp::Ordering, fmt, str::FromStr};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The six series.
pub const LETTERS: [char; 6] = ['A', 'B', 'C', 'D', 'E', 'F'];

/// Cards of each letter in the default deck (A 8, B 7, C 8, D 7, E 8, F 7: 45 cards).
pub const DEFAULT_COUNTS: [u16; 6] = [8, 7, 8, 7, 8, 7];

/// Cards in a printed deck.
pub const DECK_SIZE: usize = 45;

/// Latest year a card may carry (four digits).
pub const MAX_YEAR: u16 = 9999;

/// One collection card: a series letter (A = 0 … F = 5) and the year it was made.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Item {
    letter: u8,
    year: u16,
}

/// The canonical order: by letter, then year (compared as one number, [`Item::key`]).
impl Ord for Item {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for Item {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Item {
    /// The card of series `letter` (0 = A … 5 = F) dated `year`; None when out of range.
    pub fn new(letter: u8, year: u16) -> Option<Item> {
        (letter < 6 && year <= MAX_YEAR).then_some(Item { letter, year })
    }

    /// The series, 0 = A … 5 = F.
    pub fn letter(self) -> u8 {
        self.letter
    }

    /// The year it was made (smaller = older = more valuable in ties).
    pub fn year(self) -> u16 {
        self.year
    }

    /// The series letter as a character.
    pub fn letter_char(self) -> char {
        LETTERS[self.letter as usize]
    }

    /// The canonical order's key: by letter, then year.
    #[inline]
    fn key(self) -> u32 {
        u32::from(self.letter) << 16 | u32::from(self.year)
    }

    /// Age order: older first, then by letter (only open decks can hold two cards of one year),
    /// as one number.
    #[inline]
    fn age_key(self) -> u32 {
        u32::from(self.year) << 8 | u32::from(self.letter)
    }
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.letter_char(), self.year)
    }
}

impl fmt::Debug for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a collection card could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a collection card: write the series letter A-F then the year (up to 4 digits), e.g. \"C1710\"")]
pub struct BadItem(pub String);

impl FromStr for Item {
    type Err = BadItem;

    fn from_str(s: &str) -> Result<Item, BadItem> {
        let bad = || BadItem(s.to_string());
        let t = s.trim();
        let mut chars = t.chars();
        let letter = chars.next().ok_or_else(bad)?.to_ascii_uppercase();
        let letter = LETTERS.iter().position(|&l| l == letter).ok_or_else(bad)? as u8;
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let year: u16 = digits.parse().map_err(|_| bad())?;
        Item::new(letter, year).ok_or_else(bad)
    }
}

impl Serialize for Item {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Item, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A set of collection cards in canonical order (by letter, then year), each card once: a sorted
/// vector, cheaper than a tree for the few cards a hand or an exhibit holds, with its cards
/// counted by letter as they come and go (so that [`CardSet::has_set`] reads six numbers).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct CardSet {
    cards: Vec<Item>,
    /// Cards of each letter (an open deck has at most 10,000 of one letter).
    letters: [u16; 6],
}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("CardSet").field(&self.cards).finish()
    }
}

impl CardSet {
    /// How many cards.
    pub fn len(&self) -> usize {
        self.cards.len()
    }

    /// Whether it holds no card.
    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }

    /// Whether `card` is in it.
    pub fn contains(&self, card: &Item) -> bool {
        self.cards.binary_search(card).is_ok()
    }

    /// Adds `card`; false when it was there already.
    pub fn insert(&mut self, card: Item) -> bool {
        match self.cards.binary_search(&card) {
            Ok(_) => false,
            Err(_) => {
                // The later cards moved up one by one from the end (a hand's few cards): no
                // call to `memmove`, and each move reads a card not yet written.
                self.cards.push(card);
                let cards = self.cards.as_mut_slice();
                let mut i = cards.len() - 1;
                while i > 0 && cards[i - 1] > card {
                    cards[i] = cards[i - 1];
                    i -= 1;
                }
                cards[i] = card;
                self.letters[usize::from(card.letter)] += 1;
                true
            }
        }
    }

    /// Takes `card` out; false when it was not there.
    pub fn remove(&mut self, card: &Item) -> bool {
        match self.cards.binary_search(card) {
            Ok(at) => {
                self.cards.remove(at);
                self.letters[usize::from(card.letter)] -= 1;
                true
            }
            Err(_) => false,
        }
    }

    /// The cards in canonical order.
    pub fn iter(&self) -> std::slice::Iter<'_, Item> {
        self.cards.iter()
    }

    /// Whether it holds a set: [`has_set`] from the counts kept by letter.
    pub fn has_set(&self) -> bool {
        let mut run = 0;
        for &count in &self.letters {
            run = if count == 0 {
                0
            } else {
                run + usize::from(count)
            };
            if run >= 3 {
                return true;
            }
        }
        false
    }
}

impl<'a> IntoIterator for &'a CardSet {
    type Item = &'a Item;
    type IntoIter = std::slice::Iter<'a, Item>;

    fn into_iter(self) -> Self::IntoIter {
        self.cards.iter()
    }
}

impl IntoIterator for CardSet {
    type Item = Item;
    type IntoIter = std::vec::IntoIter<Item>;

    fn into_iter(self) -> Self::IntoIter {
        self.cards.into_iter()
    }
}

impl FromIterator<Item> for CardSet {
    fn from_iter<I: IntoIterator<Item = Item>>(iter: I) -> Self {
        let mut cards: Vec<Item> = iter.into_iter().collect();
        cards.sort_unstable();
        cards.dedup();
        let mut letters = [0u16; 6];
        for c in &cards {
            letters[usize::from(c.letter)] += 1;
        }
        CardSet { cards, letters }
    }
}

/// The default deck in canonical order (A1500, A1560, …, F1847): the k-th card of the i-th letter
/// is dated 1500 + 60k + 7i.
pub fn default_deck() -> Vec<Item> {
    let mut deck = Vec::with_capacity(DECK_SIZE);
    for (i, &n) in DEFAULT_COUNTS.iter().enumerate() {
        for k in 0..n {
            deck.push(Item {
                letter: i as u8,
                year: 1500 + 60 * k + 7 * i as u16,
            });
        }
    }
    deck
}

/// Whether `card` is in the default deck ([`default_deck`] holds it), without building the deck.
pub fn in_default_deck(card: Item) -> bool {
    let letter = usize::from(card.letter);
    let offset = card.year.checked_sub(1500 + 7 * card.letter as u16);
    letter < 6 && offset.is_some_and(|o| o % 60 == 0 && o / 60 < DEFAULT_COUNTS[letter])
}

/// Cards per letter.
pub fn letter_counts<'a>(cards: impl IntoIterator<Item = &'a Item>) -> [usize; 6] {
    let mut counts = [0usize; 6];
    for c in cards {
        counts[c.letter as usize] += 1;
    }
    counts
}

/// Whether `cards` form a SET: at least three cards, and the letters present form one unbroken
/// run (then every card shares its letter with, or is next to, another card of the set).
pub fn is_set(cards: &[Item]) -> bool {
    if cards.len() < 3 {
        return false;
    }
    // The letters present as bits: one unbroken run when adding its lowest bit clears them all.
    let letters = cards.iter().fold(0u16, |acc, c| acc | 1 << c.letter);
    (letters + (letters & letters.wrapping_neg())) & letters == 0
}

/// How a set compares with another: bigger first, then the oldest card, then the next oldest and
/// so on (distinct cards always differ somewhere, so two exhibits never tie).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetValue {
    size: usize,
    /// Held inline up to a big exhibit's size: comparing exhibits allocates nothing.
    ages: smallvec::SmallVec<[u32; 16]>,
}

impl SetValue {
    /// The value of `cards` (any cards; an empty list is worth least).
    pub fn of<'a>(cards: impl IntoIterator<Item = &'a Item>) -> SetValue {
        let mut ages: smallvec::SmallVec<[u32; 16]> =
            cards.into_iter().map(|c| c.age_key()).collect();
        ages.sort_unstable();
        SetValue {
            size: ages.len(),
            ages,
        }
    }
}

impl Ord for SetValue {
    fn cmp(&self, other: &Self) -> Ordering {
        self.size
            .cmp(&other.size)
            // Older (smaller) years are worth more.
            .then_with(|| other.ages.cmp(&self.ages))
    }
}

impl PartialOrd for SetValue {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Whether `hand` holds a set: some unbroken run of letters present in it has three cards or
/// more (the whole run is then a set). Same answer as `best_set(hand).is_some()`, without building
/// a set.
pub fn has_set<'a>(hand: impl IntoIterator<Item = &'a Item>) -> bool {
    let counts = letter_counts(hand);
    let mut run = 0;
    for count in counts {
        run = if count == 0 { 0 } else { run + count };
        if run >= 3 {
            return true;
        }
    }
    false
}

/// The best set among `hand` (None when it holds no set). Every set lies inside one maximal run of
/// letters present in the hand, and the whole run is itself a set and bigger than any part of it,
/// so the best set is the best whole run.
pub fn best_set<'a, H>(hand: H) -> Option<Vec<Item>>
where
    H: IntoIterator<Item = &'a Item> + Copy,
{
    let counts = letter_counts(hand);
    let mut best: Option<Vec<Item>> = None;
    let mut l = 0;
    while l < 6 {
        if counts[l] == 0 {
            l += 1;
            continue;
        }
        let start = l;
        while l < 6 && counts[l] > 0 {
            l += 1;
        }
        let run: Vec<Item> = hand
            .into_iter()
            .copied()
            .filter(|c| (start..l).contains(&(c.letter as usize)))
            .collect();
        if run.len() >= 3
            && best
                .as_ref()
                .is_none_or(|b| SetValue::of(&run) > SetValue::of(b))
        {
            best = Some(run);
        }
    }
    best
}

/// Every set inside `hand`, best first, at most `cap` of them, each in hand order.
///
/// Cards are numbered by age (0 = oldest), so a set is a list of ranks and [`SetValue`]'s order
/// is: longer first, then the smaller list of ranks. A set takes every letter of an unbroken run
/// of letters present in the hand (an *interval*) and at least one card of each. For each size,
/// from the biggest down, every interval lists its sets of that size lazily in rank order (an
/// exact feasibility test makes each next set a few steps, never a dead end), and the intervals'
/// lists are merged; enumeration stops after `cap` sets. So a call costs about `cap` sets, never
/// the hand's subsets, and nothing is sorted. Equal to the exhaustive enumeration kept in the
/// tests (`all_sets_reference`, property-tested).
pub fn all_sets<'a>(hand: impl IntoIterator<Item = &'a Item>, cap: usize) -> Vec<Vec<Item>> {
    let mut out = Vec::new();
    let mut aged: Vec<Item> = hand.into_iter().copied().collect();
    if cap == 0 || aged.len() < 3 {
        return out;
    }
    let counts = letter_counts(&aged);
    aged.sort_unstable_by_key(|c| c.age_key());
    // Intervals of letters all present in the hand, with the ranks of their cards (ascending).
    let mut intervals: Vec<Interval> = Vec::new();
    for a in 0..6 {
        // Letters a, a+1, ... while each is in the hand.
        let present = counts[a..].iter().take_while(|&&n| n != 0).count();
        for b in a..a + present {
            intervals.push(Interval::new(&aged, a, b));
        }
    }
    let biggest = intervals.iter().map(|i| i.ranks.len()).max().unwrap_or(0);
    let mut lists: Vec<SetsOfSize> = Vec::with_capacity(intervals.len());
    for size in (3..=biggest).rev() {
        lists.clear();
        lists.extend(
            intervals
                .iter()
                .filter(|i| i.ranks.len() >= size && i.width() <= size)
                .filter_map(|i| SetsOfSize::first(i, size)),
        );
        // Merge: the list whose current set has the smaller ranks goes first.
        while out.len() < cap && !lists.is_empty() {
            let (k, _) = lists
                .iter()
                .enumerate()
                .min_by(|x, y| x.1.ranks().cmp(y.1.ranks()))
                .expect("not empty");
            out.push(lists[k].cards(&aged));
            if !lists[k].advance() {
                lists.swap_remove(k);
            }
        }
        if out.len() >= cap {
            break;
        }
    }
    out
}

/// `BINOMIAL[n][k]`: n choose k, for n up to a whole deck (45); every entry fits a u64.
static BINOMIAL: [[u64; DECK_SIZE + 1]; DECK_SIZE + 1] = {
    let mut t = [[0u64; DECK_SIZE + 1]; DECK_SIZE + 1];
    let mut n = 0;
    while n <= DECK_SIZE {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

#[cfg(test)]
fn choose(n: usize, k: usize) -> u64 {
    if k > n {
        0
    } else {
        BINOMIAL[n][k]
    }
}

/// The sets of a hand counted rather than built: how many [`all_sets`] lists, and its `k`-th
/// set, each at the cost of a few small polynomial products (no set is built but the one asked
/// for, and nothing is allocated but it). The order is [`all_sets`]'s: bigger first, then by the
/// ranks of the cards in age order (0 = oldest), compared as ascending lists. Property-tested
/// against [`all_sets`].
///
/// Counting: a set of size `s` inside the interval of letters `a..=b` takes at least one card of
/// each of those letters, so their number is the coefficient of `x^s` in the product over the
/// letters of `g = (1 + x)^c - 1` (`c` cards of the letter); summed over the intervals ending at
/// each letter `b` that is `S_b = (S_{b-1} + 1) g_b`, six polynomial products in all.
/// Unranking: the `k`-th set's cards are chosen in rank order, each the first rank whose
/// completions (the same sums over the cards after it, a letter already taken free to stay
/// empty, [`run_completions`]) reach `k`; the ranks tried over the whole set are at most the
/// hand's cards. A big set leaves out few of the cards after the one tried: those completions
/// are counted by the cards left out ([`kept_completions`]), in polynomials of a few terms.
pub struct SetCounter {
    /// The hand's cards, in its order and by age.
    aged: AgedHand<DECK_SIZE>,
    cards: usize,
    /// `after[r][l]`: the hand's cards of letter `l` with rank `r` or later.
    after: [[u8; 6]; DECK_SIZE + 1],
    /// Sets of each size (`by_size[s]`; exact: a hand of at most 45 cards has fewer than `2^45`
    /// subsets).
    by_size: [u64; DECK_SIZE + 1],
}

/// A polynomial's coefficients (degree up to a whole deck; only those up to its degree are read).
type Poly = [u64; DECK_SIZE + 1];

/// Fewer cards than this still to choose of a set being unranked are counted with polynomials
/// of this many coefficients (degrees below it), not a whole deck's, so that each
/// [`run_completions`] clears and walks a short array.
const SHORT_POLY: usize = 16;

/// The same for fewer cards still, the last ones of most sets picked.
const TINY_POLY: usize = 8;

/// `p *= (1 + x)^c`, or `p *= (1 + x)^c - 1` when the letter must be `taken` (at least one of its
/// `c` cards); `high` is `p`'s degree, updated; degrees above `top` are dropped. Exact for the
/// counts of a hand of at most 45 cards.
#[inline(always)]
fn times_letter<const N: usize>(
    p: &mut [u64; N],
    high: &mut usize,
    c: usize,
    taken: bool,
    top: usize,
) {
    let new_high = (*high + c).min(top);
    let old_high = *high;
    // A letter's cards are mostly one or two: their rows (1 1, 1 2 1) without the general loop.
    // Degrees are rewritten from the top down, so the lower ones read are still the old ones,
    // and a degree above the old one counts as 0.
    let old = |p: &[u64; N], i: usize| if i <= old_high { p[i] } else { 0 };
    match c {
        1 => {
            for deg in (1..=new_high).rev() {
                p[deg] = p[deg - 1] + if taken { 0 } else { old(p, deg) };
            }
            if taken {
                p[0] = 0;
            }
            *high = new_high;
            return;
        }
        2 => {
            for deg in (2..=new_high).rev() {
                p[deg] = p[deg - 2] + 2 * old(p, deg - 1) + if taken { 0 } else { old(p, deg) };
            }
            if new_high >= 1 {
                p[1] = 2 * p[0] + if taken { 0 } else { old(p, 1) };
            }
            if taken {
                p[0] = 0;
            }
            *high = new_high;
            return;
        }
        _ => {}
    }
    times_row(p, *high, new_high, c, usize::from(taken)..=c);
    *high = new_high;
}

/// `p *= ` the terms `terms` of `(1 + x)^c` (their coefficients, row `c` of Pascal's triangle),
/// `p` of degree `old_high`, written up to degree `new_high` from the top down (so that the lower
/// degrees read are still the old ones).
#[inline(always)]
fn times_row<const N: usize>(
    p: &mut [u64; N],
    old_high: usize,
    new_high: usize,
    c: usize,
    terms: std::ops::RangeInclusive<usize>,
) {
    let row = &BINOMIAL[c];
    for deg in (0..=new_high).rev() {
        let lo = deg.saturating_sub(old_high).max(*terms.start());
        let hi = deg.min(*terms.end());
        let mut sum = 0u64;
        for j in lo..=hi {
            sum += p[deg - j] * row[j];
        }
        p[deg] = sum;
    }
}

/// Whether the letters `l` (not empty) form one unbroken run.
#[inline(always)]
fn is_run(l: u8) -> bool {
    let l = u16::from(l);
    (l + (l & l.wrapping_neg())) & l == 0
}

/// [`run_completions`] for up to three cards still to take, in closed form: a few binomials
/// instead of polynomial products. None for more cards (the polynomials count those).
///
/// With `covered`'s span `lo..=hi`, its `gaps` (letters of the span not taken yet, one card each
/// at least) and `w` the cards of the span and of the letter on each side of it (`lo - 1`,
/// `hi + 1`), the letters taken stay a run when every gap gets a card and the cards reach at most
/// one letter past the span on each side, or further along a side only by also taking each
/// letter in between. So: the `top`-card choices among those `w` cards that miss no gap
/// (inclusion-exclusion over the gaps, at most three), plus, when cards are left over after the
/// gaps, those reaching two letters out on one side (a card of `lo - 2` and one of `lo - 1`, the
/// rest among the `w` cards of the window widened by `lo - 2`), plus three cards on `lo - 3`,
/// `lo - 2`, `lo - 1` (and the same above).
#[inline(always)]
fn few_completions(counts: &[u8; 6], covered: u8, top: usize) -> Option<u64> {
    if top > 3 {
        return None;
    }
    if top == 0 {
        // Nothing more taken: one way when the letters taken already form a run.
        return Some(u64::from(is_run(covered)));
    }
    // Cards of letter `l` (none outside A-F).
    let c = |l: isize| -> u64 {
        if (0..6).contains(&l) {
            u64::from(counts[l as usize])
        } else {
            0
        }
    };
    let lo = covered.trailing_zeros() as isize;
    let hi = 7 - covered.leading_zeros() as isize;
    // The span's letters not taken yet need a card each: their cards, at most `top` of them.
    let mut gap_cards = [0u64; 3];
    let mut gap_count = 0;
    for l in lo..=hi {
        if covered & (1 << l) == 0 {
            if gap_count == top {
                return Some(0);
            }
            gap_cards[gap_count] = c(l);
            gap_count += 1;
        }
    }
    let w: u64 = (lo - 1..=hi + 1).map(c).sum();
    // Choices of `top` among `n` cards (the gaps' cards among them) missing none of the gaps:
    // inclusion-exclusion over the gaps left out.
    #[inline(always)]
    fn missing_no_gap(n: u64, top: usize, gap_cards: &[u64]) -> u64 {
        let (mut plus, mut minus) = (0, 0);
        for left_out in 0u32..1 << gap_cards.len() {
            let out: u64 = (0..gap_cards.len())
                .filter(|&i| left_out & (1 << i) != 0)
                .map(|i| gap_cards[i])
                .sum();
            let ways = BINOMIAL[(n - out) as usize][top];
            // 0x96's bit `b` is the parity of `b` (b < 8).
            if 0x96 >> left_out & 1 == 0 {
                plus += ways;
            } else {
                minus += ways;
            }
        }
        plus - minus
    }
    let missing_no_gap = |n: u64| missing_no_gap(n, top, &gap_cards[..gap_count]);
    let mut ways = missing_no_gap(w);
    // Cards left after one per gap may reach two letters out on one side: at least one card of
    // each of `near` and `far`, the others among the window widened by `far`.
    let spare = top - gap_count;
    if spare >= 2 {
        for (near, far) in [(lo - 1, lo - 2), (hi + 1, hi + 2)] {
            let (a1, a2) = (c(near), c(far));
            let wide = w + a2;
            ways += missing_no_gap(wide) + missing_no_gap(wide - a1 - a2)
                - missing_no_gap(wide - a1)
                - missing_no_gap(wide - a2);
        }
    }
    if spare == 3 {
        // Three letters out: one card each.
        ways += c(lo - 1) * c(lo - 2) * c(lo - 3) + c(hi + 1) * c(hi + 2) * c(hi + 3);
    }
    Some(ways)
}

/// The ways to take `top` cards of `counts` (cards per letter) so that, with the letters
/// `covered` (not empty) already taken, the letters taken form an unbroken run: over every
/// interval holding `covered`'s span, the product of `(1 + x)^c` over its covered letters and
/// `(1 + x)^c - 1` over the others, the intervals below and above the span summed Horner-wise
/// (`1 + g_{lo-1} (1 + g_{lo-2} (...))`); the coefficient of `x^top`.
fn run_completions<const N: usize>(counts: &[u8; 6], covered: u8, top: usize) -> u64 {
    if top == 0 {
        // Nothing more taken: one way when the letters taken already form a run.
        let l = u16::from(covered);
        return u64::from((l + (l & l.wrapping_neg())) & l == 0);
    }
    let lo = covered.trailing_zeros() as usize;
    let hi = 7 - covered.leading_zeros() as usize;
    // The span's letters not taken yet need a card each: none when one has no card left, or
    // when they outnumber the cards still to take (the sums below would come to 0).
    let gaps = ((1u16 << (hi + 1)) - (1u16 << lo)) as u8 & !covered;
    let mut needed = 0;
    for (l, &count) in counts.iter().enumerate().take(hi + 1).skip(lo) {
        if gaps & (1 << l) != 0 {
            if count == 0 {
                return 0;
            }
            needed += 1;
        }
    }
    if needed > top {
        return 0;
    }
    let mut above = [0u64; N];
    above[0] = 1;
    let mut high = 0;
    let mut b = hi;
    while b < 5 && counts[b + 1] > 0 {
        b += 1;
    }
    for l in (hi + 1..=b).rev() {
        times_letter(&mut above, &mut high, usize::from(counts[l]), true, top);
        above[0] += 1;
    }
    for (l, &c) in counts.iter().enumerate().take(hi + 1).skip(lo) {
        let taken = covered & (1 << l) == 0;
        let c = usize::from(c);
        if taken && c == 0 {
            return 0;
        }
        times_letter(&mut above, &mut high, c, taken, top);
    }
    let mut below = [0u64; N];
    below[0] = 1;
    let mut below_high = 0;
    let mut a = lo;
    while a > 0 && counts[a - 1] > 0 {
        a -= 1;
    }
    for &c in &counts[a..lo] {
        times_letter(&mut below, &mut below_high, usize::from(c), true, top);
        below[0] += 1;
    }
    (0..=below_high.min(top))
        .filter(|&i| top - i <= high)
        .map(|i| below[i] * above[top - i])
        .sum()
}

/// `p *= (1 + x)^c`, or `p *= (1 + x)^c - x^c` when the letter must `keep` a card (not all of
/// its `c` cards left out; `c` > 0 then); `high` is `p`'s degree, updated; degrees above `top`
/// are dropped. [`kept_completions`]' products, in the degree of cards left out.
#[inline(always)]
fn times_left_out<const N: usize>(
    p: &mut [u64; N],
    high: &mut usize,
    c: usize,
    keep: bool,
    top: usize,
) {
    let old_high = *high;
    let new_high = (old_high + c).saturating_sub(usize::from(keep)).min(top);
    // Degrees are rewritten from the top down, so the lower ones read are still the old ones,
    // and a degree above the old one counts as 0.
    let old = |p: &[u64; N], i: usize| if i <= old_high { p[i] } else { 0 };
    match (c, keep) {
        (0, _) | (1, true) => return,
        // 1 + x
        (1, false) => {
            for deg in (1..=new_high).rev() {
                p[deg] = old(p, deg) + p[deg - 1];
            }
        }
        // 1 + 2x
        (2, true) => {
            for deg in (1..=new_high).rev() {
                p[deg] = old(p, deg) + 2 * p[deg - 1];
            }
        }
        // 1 + 2x + x^2
        (2, false) => {
            for deg in (1..=new_high).rev() {
                p[deg] = old(p, deg) + 2 * old(p, deg - 1) + if deg >= 2 { p[deg - 2] } else { 0 };
            }
        }
        // The top term (`x^c`) is left out when the letter keeps a card.
        _ => times_row(p, old_high, new_high, c, 0..=c - usize::from(keep)),
    }
    *high = new_high;
}

/// [`kept_completions`]' sum over the intervals reaching into `letters` (the letters beyond a
/// span, nearest last): each letter up to where an interval stops keeps a card, those past it
/// leave out all of theirs. Horner-wise from the farthest letter, `F = x^{cards so far} + g F`
/// with `g = (1 + x)^c - x^c`; the polynomial (degrees up to `omit`) and its degree.
#[inline(always)]
fn left_out_beyond<'a, const N: usize>(
    letters: impl Iterator<Item = &'a u8>,
    omit: usize,
) -> ([u64; N], usize) {
    let mut p = [0u64; N];
    p[0] = 1;
    let mut high = 0;
    // The cards of the letters walked so far.
    let mut out = 0usize;
    for &c in letters {
        let c = usize::from(c);
        out += c;
        if c == 0 {
            // No interval reaches past an empty letter: only the one stopping short of it.
            p[..=high].fill(0);
            high = 0;
        } else {
            times_left_out(&mut p, &mut high, c, true, omit);
        }
        if out <= omit {
            p[out] += 1;
            high = high.max(out);
        }
    }
    (p, high)
}

/// [`run_completions`] counted by the cards *left out* rather than those taken: the ways to take
/// all but `omit` of `counts`' cards so that, with the letters `covered` (not empty) already
/// taken, the letters taken form an unbroken run. A big set's last choices leave out few of the
/// cards after the one tried, so its polynomials have a few coefficients where
/// [`run_completions`]' have as many as the cards still taken.
///
/// Over every interval `a..=b` holding `covered`'s span: its covered letters leave out any of
/// their cards (`(1 + x)^c`), its other letters keep at least one (`(1 + x)^c - x^c`), and the
/// letters outside it leave out all of theirs (`x^c`); the intervals above the span summed
/// Horner-wise from the top letter (`F_l = x^{c_l + ... + c_5} + g_l F_{l+1}`), those below
/// from the bottom; the coefficient of `x^omit`.
fn kept_completions<const N: usize>(counts: &[u8; 6], covered: u8, omit: usize) -> u64 {
    let lo = covered.trailing_zeros() as usize;
    let hi = 7 - covered.leading_zeros() as usize;
    // Above the span, from the top letter down.
    let (mut above, mut high) = left_out_beyond::<N>(counts[hi + 1..].iter().rev(), omit);
    // The span: covered letters free, the others keep a card (none to keep: no way).
    for (l, &c) in counts.iter().enumerate().take(hi + 1).skip(lo) {
        let keep = covered & (1 << l) == 0;
        if keep && c == 0 {
            return 0;
        }
        times_left_out(&mut above, &mut high, usize::from(c), keep, omit);
    }
    if lo == 0 {
        return if omit <= high { above[omit] } else { 0 };
    }
    // Below the span, from the bottom letter up.
    let (below, below_high) = left_out_beyond::<N>(counts[..lo].iter(), omit);
    (0..=below_high.min(omit))
        .filter(|&i| omit - i <= high)
        .map(|i| below[i] * above[omit - i])
        .sum()
}

impl SetCounter {
    /// Counts the sets of `hand`; None for a hand of more cards than a printed deck has (only an
    /// open deck can deal one: list its sets with [`all_sets`]).
    pub fn new<'a>(hand: impl IntoIterator<Item = &'a Item>) -> Option<SetCounter> {
        let aged = AgedHand::new(hand)?;
        let n = aged.len;
        let mut after = [[0u8; 6]; DECK_SIZE + 1];
        for r in (0..n).rev() {
            after[r] = after[r + 1];
            after[r][aged.by_age(r).letter as usize] += 1;
        }
        let mut s = SetCounter {
            aged,
            cards: n,
            after,
            by_size: [0; DECK_SIZE + 1],
        };
        if n < 3 {
            return Some(s);
        }
        // S_b: the subsets whose letters are an interval ending at b, by size.
        let mut ending: Poly = [0; DECK_SIZE + 1];
        let mut high = 0;
        for &c in &after[0] {
            if c == 0 {
                high = 0;
                ending[0] = 0;
                continue;
            }
            ending[0] += 1;
            times_letter(&mut ending, &mut high, usize::from(c), true, n);
            for (total, &w) in s.by_size[..=high].iter_mut().zip(&ending[..=high]) {
                *total += w;
            }
        }
        s.by_size[..3].fill(0);
        Some(s)
    }

    /// How many sets the hand holds, at most `cap`: `all_sets(hand, cap).len()`.
    pub fn count(&self, cap: usize) -> usize {
        let total = self
            .by_size
            .iter()
            .fold(0u64, |acc, &c| acc.saturating_add(c));
        usize::try_from(total).unwrap_or(usize::MAX).min(cap)
    }

    /// The `k`-th set, best first (`all_sets(hand, usize::MAX)[k]`), in hand order; None past
    /// the last.
    pub fn nth(&self, k: usize) -> Option<Vec<Item>> {
        let mut k = k as u64;
        let size = (3..=self.cards).rev().find(|&s| {
            if k < self.by_size[s] {
                true
            } else {
                k -= self.by_size[s];
                false
            }
        })?;
        // The ranks picked, as bits.
        let mut picked = 0u64;
        let mut covered = 0u8;
        let mut from = 0;
        for left in (0..size).rev() {
            let mut chosen = None;
            for r in from..self.cards {
                let now = covered | (1 << self.aged.by_age(r).letter);
                // The cards after `r` the set leaves out. A big set leaves out fewer than it
                // still takes: its completions are counted by the cards left out. (With fewer
                // cards after `r` than `left`, `omit` wraps to a huge number, and the
                // polynomials below find no way.) Otherwise the polynomials need degrees up to
                // `left` only: the shortest that holds them (a big set's last cards are counted
                // with tiny ones).
                let omit = (self.cards - r - 1).wrapping_sub(left);
                let ways = if let Some(ways) = few_completions(&self.after[r + 1], now, left) {
                    ways
                } else if omit < TINY_POLY && omit < left {
                    kept_completions::<TINY_POLY>(&self.after[r + 1], now, omit)
                } else if left < TINY_POLY {
                    run_completions::<TINY_POLY>(&self.after[r + 1], now, left)
                } else if left < SHORT_POLY {
                    run_completions::<SHORT_POLY>(&self.after[r + 1], now, left)
                } else {
                    run_completions::<{ DECK_SIZE + 1 }>(&self.after[r + 1], now, left)
                };
                if k < ways {
                    chosen = Some(r);
                    covered = now;
                    break;
                }
                k -= ways;
            }
            let r = chosen?;
            picked |= 1 << r;
            from = r + 1;
        }
        Some(self.aged.cards_of(picked))
    }
}

/// Hands of at most this many cards have their sets counted and unranked by walking every subset
/// of the hand ([`SmallSets`], at most `2^SMALL_HAND` of them), bigger ones by [`SetCounter`].
pub const SMALL_HAND: usize = 6;

/// The sets of a hand of at most [`SMALL_HAND`] cards, counted by walking every subset: each
/// subset is a bit mask, the oldest card (rank 0) the highest bit, so that among sets of one size
/// [`all_sets`]' order (the smaller list of ranks first) is the masks' descending order: where two
/// such lists first differ, the one holding the smaller rank holds the highest bit of the two
/// masks' difference.
pub struct SmallSets {
    /// The hand's cards, in its order and by age (`cards` of them).
    aged: AgedHand<SMALL_HAND>,
    cards: usize,
    /// Sets of each size.
    by_size: [u32; SMALL_HAND + 1],
    /// Each subset's size when it is a set, else 0 (mask bit `cards - 1 - r` for rank `r`).
    set_size: [u8; 1 << SMALL_HAND],
}

impl SmallSets {
    /// Whether a subset of `size` cards with these letters is a set: three cards or more whose
    /// letters form one unbroken run.
    fn is_set(size: u32, letters: u8) -> bool {
        let l = u16::from(letters);
        size >= 3 && (l + (l & l.wrapping_neg())) & l == 0
    }

    /// Counts the sets of `hand`; None for a hand of more than [`SMALL_HAND`] cards.
    pub fn new<'a>(hand: impl IntoIterator<Item = &'a Item>) -> Option<SmallSets> {
        let aged = AgedHand::new(hand)?;
        let n = aged.len;
        let mut s = SmallSets {
            aged,
            cards: n,
            by_size: [0; SMALL_HAND + 1],
            set_size: [0; 1 << SMALL_HAND],
        };
        if n < 3 {
            return Some(s);
        }
        // Each subset's letters (as letter bits) and size from the subset without its lowest
        // card: one step per subset, no bit count (the default x86-64 target has no popcnt).
        let mut letters = [0u8; 1 << SMALL_HAND];
        let mut sizes = [0u8; 1 << SMALL_HAND];
        for m in 1usize..1 << n {
            let low = m.trailing_zeros() as usize;
            let rest = m & (m - 1);
            let l = letters[rest] | (1 << aged.by_age(n - 1 - low).letter);
            let size = sizes[rest] + 1;
            letters[m] = l;
            sizes[m] = size;
            if Self::is_set(u32::from(size), l) {
                s.set_size[m] = size;
                s.by_size[usize::from(size)] += 1;
            }
        }
        Some(s)
    }

    /// How many sets the hand holds, at most `cap`: `all_sets(hand, cap).len()`.
    pub fn count(&self, cap: usize) -> usize {
        let total: u32 = self.by_size.iter().sum();
        usize::try_from(total).unwrap_or(usize::MAX).min(cap)
    }

    /// The `k`-th set, best first (`all_sets(hand, usize::MAX)[k]`), in hand order; None past
    /// the last.
    pub fn nth(&self, k: usize) -> Option<Vec<Item>> {
        let n = self.cards;
        let mut k = u32::try_from(k).ok()?;
        let size = (3..=n).rev().find(|&s| {
            if k < self.by_size[s] {
                true
            } else {
                k -= self.by_size[s];
                false
            }
        })? as u32;
        let mask = (1usize..1 << n).rev().find(|&m| {
            if u32::from(self.set_size[m]) != size {
                return false;
            }
            if k == 0 {
                return true;
            }
            k -= 1;
            false
        })?;
        // The mask's bits are the ranks reversed.
        let ranks = (0..n)
            .filter(|&r| mask & (1 << (n - 1 - r)) != 0)
            .fold(0u64, |acc, r| acc | 1 << r);
        Some(self.aged.cards_of(ranks))
    }
}

/// A hand of at most `N` cards (`N` below 64) in its own order (canonical for a [`CardSet`] or a
/// tree) and by age (rank 0 = oldest). The ranks come from sorting plain numbers, each card's
/// [`Item::age_key`] with its place in the hand below it, and a set picked as ranks is given back
/// in the hand's order from a mask of places, without sorting cards.
#[derive(Clone, Copy)]
struct AgedHand<const N: usize> {
    /// The cards in the hand's order (`len` of them).
    cards: [Item; N],
    /// `place[r]`: where the card of rank `r` lies in `cards`.
    place: [u8; N],
    len: usize,
}

impl<const N: usize> AgedHand<N> {
    /// Bits of a card's place in a sort key (places below 64).
    const PLACE_BITS: u32 = 6;

    /// `hand` by age; None for more than `N` cards.
    #[inline]
    fn new<'a>(hand: impl IntoIterator<Item = &'a Item>) -> Option<Self> {
        let mut cards = [Item { letter: 0, year: 0 }; N];
        // An age key takes 22 bits (a year up to 9999, then the letter), its place 6 more.
        let mut keys = [0u32; N];
        let mut len = 0;
        for c in hand {
            if len == N {
                return None;
            }
            cards[len] = *c;
            keys[len] = c.age_key() << Self::PLACE_BITS | len as u32;
            len += 1;
        }
        keys[..len].sort_unstable();
        let mut place = [0u8; N];
        for (p, key) in place.iter_mut().zip(&keys[..len]) {
            *p = (key & ((1 << Self::PLACE_BITS) - 1)) as u8;
        }
        Some(AgedHand { cards, place, len })
    }

    /// The card of rank `r`.
    #[inline(always)]
    fn by_age(&self, r: usize) -> Item {
        self.cards[usize::from(self.place[r])]
    }

    /// The cards of `ranks` (bit `r` for rank `r`), in the hand's order.
    fn cards_of(&self, mut ranks: u64) -> Vec<Item> {
        let mut places = 0u64;
        while ranks != 0 {
            places |= 1 << self.place[ranks.trailing_zeros() as usize];
            ranks &= ranks - 1;
        }
        let mut picked = Vec::with_capacity(places.count_ones() as usize);
        while places != 0 {
            picked.push(self.cards[places.trailing_zeros() as usize]);
            places &= places - 1;
        }
        picked
    }
}

/// One set of `hand` chosen by index in [`all_sets`]' list (capped at `cap`), without listing:
/// `pick` gets the list's length (called only when it is not empty) and returns an index; None
/// when the hand has no set or the index is past the end. Counted by [`SmallSets`] or
/// [`SetCounter`], listed only for a hand bigger than a printed deck.
pub fn pick_set<'a, H>(hand: H, cap: usize, pick: impl FnOnce(usize) -> usize) -> Option<Vec<Item>>
where
    H: IntoIterator<Item = &'a Item> + Copy,
{
    if let Some(small) = SmallSets::new(hand) {
        let count = small.count(cap);
        if count == 0 {
            return None;
        }
        let k = pick(count);
        return (k < count).then(|| small.nth(k)).flatten();
    }
    if let Some(counter) = SetCounter::new(hand) {
        let count = counter.count(cap);
        if count == 0 {
            return None;
        }
        let k = pick(count);
        return (k < count).then(|| counter.nth(k)).flatten();
    }
    let mut sets = all_sets(hand, cap);
    if sets.is_empty() {
        return None;
    }
    let k = pick(sets.len());
    (k < sets.len()).then(|| sets.swap_remove(k))
}

/// An unbroken run of letters `first..=last`, each present in the hand, and its cards.
struct Interval {
    first: usize,
    last: usize,
    /// Ranks (positions in the age order) of the hand's cards of these letters, ascending.
    ranks: Vec<usize>,
    /// `letter[p]`: the letter bit (1 << letter) of `ranks[p]`.
    letter: Vec<u8>,
    /// `after[p]`: the letters of the cards at positions `p..` (one more entry than cards).
    after: Vec<u8>,
}

impl Interval {
    fn new(aged: &[Item], first: usize, last: usize) -> Self {
        let ranks: Vec<usize> = (0..aged.len())
            .filter(|&r| (first..=last).contains(&(aged[r].letter as usize)))
            .collect();
        let letter: Vec<u8> = ranks.iter().map(|&r| 1u8 << aged[r].letter).collect();
        let mut after = vec![0u8; ranks.len() + 1];
        for p in (0..ranks.len()).rev() {
            after[p] = after[p + 1] | letter[p];
        }
        Interval {
            first,
            last,
            ranks,
            letter,
            after,
        }
    }

    /// Letters in the run.
    fn width(&self) -> usize {
        self.last - self.first + 1
    }

    /// Every letter of the run, as bits.
    fn full(&self) -> u8 {
        ((1u16 << (self.last + 1)) - (1u16 << self.first)) as u8
    }
}

/// The sets of one size of one interval, in rank order: the current one (`picks`, positions in
/// the interval's cards) and the way to the next.
struct SetsOfSize<'i> {
    interval: &'i Interval,
    /// Positions of the current set's cards in `interval.ranks`, ascending.
    picks: Vec<usize>,
    /// The current set's ranks (`interval.ranks[picks[j]]`), compared in the merge.
    chosen: Vec<usize>,
    /// `covered[j]`: the letters of `picks[..j]` (one more entry than picks).
    covered: Vec<u8>,
}

impl<'i> SetsOfSize<'i> {
    /// The first set of `size` cards, None when the interval has none.
    fn first(interval: &'i Interval, size: usize) -> Option<Self> {
        let mut s = SetsOfSize {
            interval,
            picks: vec![0; size],
            chosen: vec![0; size],
            covered: vec![0; size + 1],
        };
        s.complete(0, 0).then_some(s)
    }

    fn ranks(&self) -> &[usize] {
        &self.chosen
    }

    /// Whether picking position `p` as the `depth`-th card (the earlier ones covering `covered`
    /// letters) still leaves a set to complete: every letter still missing has a card after `p`,
    /// and the cards after `p` fill the remaining places. Exact: the missing letters take one card
    /// each, any other cards after `p` the rest.
    fn can_pick(&self, depth: usize, p: usize, covered: u8) -> (bool, u8) {
        let i = self.interval;
        let now = covered | i.letter[p];
        let missing = i.full() & !now;
        let left = self.picks.len() - depth - 1;
        let fits = missing & !i.after[p + 1] == 0
            && missing.count_ones() as usize <= left
            && i.ranks.len() - p > left;
        (fits, now)
    }

    /// Fills `picks[depth..]` with the smallest completion whose first pick is at `from` or
    /// later; false when there is none.
    fn complete(&mut self, depth: usize, from: usize) -> bool {
        let n = self.interval.ranks.len();
        let mut from = from;
        for d in depth..self.picks.len() {
            let covered = self.covered[d];
            let Some((p, now)) = (from..n).find_map(|p| {
                let (fits, now) = self.can_pick(d, p, covered);
                fits.then_some((p, now))
            }) else {
                return false;
            };
            self.picks[d] = p;
            self.chosen[d] = self.interval.ranks[p];
            self.covered[d + 1] = now;
            from = p + 1;
        }
        true
    }

    /// Moves to the next set in rank order; false after the last.
    fn advance(&mut self) -> bool {
        // The deepest pick that can move on (with a completion after it) moves to its next place.
        for d in (0..self.picks.len()).rev() {
            if self.complete(d, self.picks[d] + 1) {
                return true;
            }
        }
        false
    }

    /// The current set's cards in hand order (by letter, then year: within a letter, age order).
    fn cards(&self, aged: &[Item]) -> Vec<Item> {
        let i = self.interval;
        let mut cards = Vec::with_capacity(self.picks.len());
        for l in i.first..=i.last {
            let bit = 1u8 << l;
            cards.extend(
                self.picks
                    .iter()
                    .filter(|&&p| i.letter[p] == bit)
                    .map(|&p| aged[i.ranks[p]]),
            );
        }
        cards
    }
}

/// Whether a hand of `size` cards of which `known` are known could hold a set, given how many
/// cards of each letter are still unaccounted for (`pool`; `usize::MAX` for an open deck). Any set
/// contains a three-card set (XXX, XXY, XYY or XYZ on consecutive letters), so only those are tried.
pub fn could_hold_set<'a>(
    known: impl IntoIterator<Item = &'a Item>,
    size: usize,
    pool: &[usize; 6],
) -> bool {
    let have = letter_counts(known);
    let unknown = size.saturating_sub(have.iter().sum());
    let patterns: [&[usize]; 4] = [&[3], &[2, 1], &[1, 2], &[1, 1, 1]];
    for start in 0..6 {
        for pat in patterns {
            if start + pat.len() > 6 {
                continue;
            }
            let mut need = 0usize;
            let mut ok = true;
            for (j, &c) in pat.iter().enumerate() {
                let l = start + j;
                let missing = c.saturating_sub(have[l]);
                if missing > pool[l] {
                    ok = false;
                }
                need += missing;
            }
            if ok && need <= unknown {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod reference {
    use super::*;

    /// The former enumeration (every set of each size from the biggest down, then sorted), kept as
    /// the reference the lazy [`all_sets`] is tested against.
    ///
    /// Every set inside `hand`, best first, at most `cap` of them, each in hand order. A set takes
    /// every letter of an unbroken run of letters present in the hand and at least one card of each,
    /// so the sets of each size are a run's cards less a few; sizes are built from the biggest down
    /// until `cap` sets are found (so a huge hand costs about `cap` sets, not all of its subsets).
    ///
    /// Cards are numbered by age (0 = oldest), so a set is a list of ranks and [`SetValue`]'s order
    /// is: longer first, then the smaller list of ranks. Only the drop choices that keep every letter
    /// of the run become a list; the others cost a few counter updates.
    pub(super) fn all_sets_reference(hand: &BTreeSet<Item>, cap: usize) -> Vec<Vec<Item>> {
        let mut aged: Vec<Item> = hand.iter().copied().collect();
        aged.sort_unstable_by_key(|c| c.age_key());
        let counts = letter_counts(hand);
        // Runs of letters all present in the hand: (first letter, last letter, ranks of its cards).
        let mut runs: Vec<(usize, usize, Vec<usize>)> = Vec::new();
        for a in 0..6 {
            for (b, &count) in counts.iter().enumerate().skip(a) {
                if count == 0 {
                    break;
                }
                let ranks = (0..aged.len())
                    .filter(|&r| (a..=b).contains(&(aged[r].letter as usize)))
                    .collect();
                runs.push((a, b, ranks));
            }
        }
        let biggest = runs.iter().map(|r| r.2.len()).max().unwrap_or(0);
        let mut sets: Vec<Vec<usize>> = Vec::new();
        for size in (3..=biggest).rev() {
            for (a, b, ranks) in runs.iter().filter(|r| r.2.len() >= size) {
                let letters = &counts[*a..=*b];
                drop_ranks(&aged, ranks, ranks.len() - size, letters, *a, &mut sets);
            }
            if sets.len() >= cap {
                break;
            }
        }
        // Within a size, the set whose ranks come first holds the older card where they differ.
        sets.sort_unstable_by(|x, y| y.len().cmp(&x.len()).then_with(|| x.cmp(y)));
        sets.truncate(cap);
        sets.into_iter()
            .map(|ranks| {
                let mut cards: Vec<Item> = ranks.into_iter().map(|r| aged[r]).collect();
                cards.sort_unstable();
                cards
            })
            .collect()
    }

    /// Pushes to `sets` every list of `ranks` less `count` of them that still holds a card of each
    /// letter of the run (`letters[l]` cards of letter `first + l` in it). Drop choices are walked as
    /// ascending index combinations, keeping per letter how many cards are dropped.
    fn drop_ranks(
        aged: &[Item],
        ranks: &[usize],
        count: usize,
        letters: &[usize],
        first: usize,
        sets: &mut Vec<Vec<usize>>,
    ) {
        let letter_of = |i: usize| aged[ranks[i]].letter as usize - first;
        let n = ranks.len();
        let mut dropped = vec![0usize; letters.len()];
        // The combination: `picks[j]` is the j-th dropped index, ascending.
        let mut picks: Vec<usize> = (0..count).collect();
        for &i in &picks {
            dropped[letter_of(i)] += 1;
        }
        loop {
            if dropped.iter().zip(letters).all(|(d, l)| d < l) {
                let mut kept = Vec::with_capacity(n - count);
                let mut next = picks.iter().peekable();
                for (i, &r) in ranks.iter().enumerate() {
                    if next.peek() == Some(&&i) {
                        next.next();
                    } else {
                        kept.push(r);
                    }
                }
                sets.push(kept);
            }
            // Next combination: move the last pick that can move, and reset the ones after it.
            let Some(j) = (0..count).rev().find(|&j| picks[j] < n - count + j) else {
                return;
            };
            for &i in &picks[j..] {
                dropped[letter_of(i)] -= 1;
            }
            picks[j] += 1;
            for k in j + 1..count {
                picks[k] = picks[k - 1] + 1;
            }
            for &i in &picks[j..] {
                dropped[letter_of(i)] += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{reference::all_sets_reference, *};

    fn cards(s: &str) -> Vec<Item> {
        // One card per letter, years made unique by position.
        s.chars()
            .enumerate()
            .map(|(i, l)| format!("{l}{}", 1500 + i).parse().unwrap())
            .collect()
    }

    #[test]
    fn the_texts_set_examples() {
        for good in ["AABB", "CCD", "EEE", "DEF"] {
            assert!(is_set(&cards(good)), "{good}");
        }
        for bad in ["AAC", "BCF", "DE", "AAACE"] {
            assert!(!is_set(&cards(bad)), "{bad}");
        }
    }

    #[test]
    fn the_default_deck_has_45_distinct_cards() {
        let d = default_deck();
        assert_eq!(d.len(), 45);
        let s: BTreeSet<Item> = d.iter().copied().collect();
        assert_eq!(s.len(), 45);
        assert_eq!(d[0].to_string(), "A1500");
        assert_eq!(d[1].to_string(), "A1560");
        assert_eq!(d[8].to_string(), "B1507");
        assert_eq!(d[44].to_string(), "F1895");
        let years: BTreeSet<u16> = d.iter().map(|c| c.year()).collect();
        assert_eq!(years.len(), 45, "years are unique in the default deck");
    }

    #[test]
    fn the_default_deck_is_recognised_without_building_it() {
        let deck = default_deck();
        for letter in 0..6u8 {
            for year in 1400..2000u16 {
                let c = Item::new(letter, year).unwrap();
                assert_eq!(in_default_deck(c), deck.contains(&c), "{c}");
            }
        }
        assert!(!in_default_deck(Item::new(0, 0).unwrap()));
        assert!(!in_default_deck(Item::new(5, MAX_YEAR).unwrap()));
    }

    #[test]
    fn cards_parse_and_print() {
        assert_eq!("c1710".parse::<Item>().unwrap().to_string(), "C1710");
        assert_eq!("A0".parse::<Item>().unwrap().to_string(), "A0");
        for bad in ["", "G1500", "A", "A12345", "A-1", "AA1500", "1500"] {
            assert!(bad.parse::<Item>().is_err(), "{bad}");
        }
    }

    #[test]
    fn bigger_sets_win_then_the_oldest_card() {
        let six = SetValue::of(&cards("AABBCC"));
        let four = SetValue::of(&cards("DDDE"));
        assert!(six > four);
        let old: Vec<Item> = ["A1500", "A1560", "B1567"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let young: Vec<Item> = ["B1507", "C1514", "D1521"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        assert!(SetValue::of(&old) > SetValue::of(&young));
    }

    #[test]
    fn best_set_takes_the_best_whole_run() {
        let hand: BTreeSet<Item> = ["A1500", "B1507", "D1521", "E1528", "F1535", "F1595"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let best = best_set(&hand).unwrap();
        assert_eq!(best.len(), 4);
        assert_eq!(best[0].to_string(), "D1521");
        let none: BTreeSet<Item> = ["A1500", "C1514", "E1528"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        assert!(best_set(&none).is_none());
        assert!(!has_set(&none));
        assert!(has_set(&hand));
        assert!(all_sets(&none, 100).is_empty());
        assert_eq!(all_sets(&hand, 100)[0], best);
    }

    #[test]
    fn a_set_is_possible_with_enough_unknown_cards() {
        let none = BTreeSet::new();
        let pool = [8, 7, 8, 7, 8, 7];
        assert!(!could_hold_set(&none, 2, &pool));
        assert!(could_hold_set(&none, 3, &pool));
        let known: BTreeSet<Item> = ["A1500", "C1514"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        assert!(could_hold_set(&known, 3, &pool), "A?C with a B");
        assert!(
            !could_hold_set(&known, 3, &[8, 0, 8, 7, 8, 7]),
            "no B left and one unknown"
        );
        assert!(!could_hold_set(&known, 2, &pool));
    }

    /// Every subset of `cards` that is a set, by brute force.
    fn every_set(cards: &[Item]) -> Vec<Vec<Item>> {
        (0u32..(1 << cards.len()))
            .map(|mask| {
                (0..cards.len())
                    .filter(|i| mask & (1 << i) != 0)
                    .map(|i| cards[i])
                    .collect::<Vec<Item>>()
            })
            .filter(|p| is_set(p))
            .collect()
    }

    #[test]
    fn all_sets_finds_exactly_the_sets_best_first() {
        let deck = default_deck();
        for (step, take) in [(5, 9), (4, 10), (7, 7), (2, 11), (1, 8)] {
            let hand: BTreeSet<Item> = deck.iter().copied().step_by(step).take(take).collect();
            let cards: Vec<Item> = hand.iter().copied().collect();
            let mut brute = every_set(&cards);
            let mut found = all_sets(&hand, usize::MAX);
            assert_eq!(found.first(), best_set(&hand).as_ref());
            assert!(
                found
                    .windows(2)
                    .all(|w| SetValue::of(&w[0]) > SetValue::of(&w[1])),
                "best first: {found:?}"
            );
            assert!(found.iter().all(|s| s.windows(2).all(|w| w[0] < w[1])));
            for s in found.iter_mut().chain(brute.iter_mut()) {
                s.sort();
            }
            found.sort();
            brute.sort();
            assert_eq!(found, brute, "hand {hand:?}");
        }
        let big: BTreeSet<Item> = deck.iter().copied().step_by(3).collect();
        let capped = all_sets(&big, 50);
        let cards: Vec<Item> = big.iter().copied().collect();
        let mut brute = every_set(&cards);
        brute.sort_by_cached_key(|s| std::cmp::Reverse(SetValue::of(s)));
        brute.truncate(50);
        assert_eq!(capped, brute, "the 50 best of {} cards", cards.len());
        assert_eq!(Some(&capped[0]), best_set(&big).as_ref());
    }

    /// Random hands: a subset of the printed deck (`mask` picks the cards), or of an open deck
    /// whose cards share years (only letter and year distinguish cards there).
    fn random_hand(mask: u64, open: bool, years: &[u16]) -> BTreeSet<Item> {
        if open {
            years
                .iter()
                .enumerate()
                .map(|(i, &y)| Item::new(((i + y as usize) % 6) as u8, y).expect("in range"))
                .collect()
        } else {
            default_deck()
                .into_iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, c)| c)
                .collect()
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

        /// The lazy enumeration lists exactly the sets the exhaustive one did, in the same order,
        /// under the same cap: on hands of the printed deck of every size (up to 22 cards: more
        /// run to millions of sets without a cap) and on open-deck hands with shared years.
        #[test]
        fn all_sets_equals_the_reference(
            mask in proptest::prelude::any::<u64>(),
            keep in 0u32..23,
            open in proptest::prelude::any::<bool>(),
            years in proptest::collection::vec(1490u16..1510, 0..16),
            cap in proptest::prop_oneof![1usize..5, 5usize..200, proptest::strategy::Just(LEGAL_CAP)],
        ) {
            // Keep `keep` of the mask's cards at most, so the uncapped reference stays small.
            let mut m = mask & ((1u64 << 45) - 1);
            while m.count_ones() > keep {
                m &= m - 1;
            }
            let hand = random_hand(m, open, &years);
            let lazy = all_sets(&hand, cap);
            let reference = all_sets_reference(&hand, cap);
            proptest::prop_assert_eq!(&lazy, &reference, "hand {:?}, cap {}", hand, cap);
            proptest::prop_assert_eq!(has_set(&hand), best_set(&hand).is_some());
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Counting and unranking agree with the listing: `count(cap)` is the capped list's
        /// length and `nth(k)` its `k`-th set, on printed-deck hands of every size up to 45 cards
        /// and on open-deck hands with shared years.
        #[test]
        fn counted_sets_equal_the_listing(
            mask in proptest::prelude::any::<u64>(),
            keep in 0u32..46,
            open in proptest::prelude::any::<bool>(),
            years in proptest::collection::vec(1490u16..1510, 0..20),
            cap in proptest::prop_oneof![1usize..5, 5usize..300, proptest::strategy::Just(LEGAL_CAP)],
        ) {
            let mut m = mask & ((1u64 << 45) - 1);
            while m.count_ones() > keep {
                m &= m - 1;
            }
            let hand = random_hand(m, open, &years);
            let listed = all_sets(&hand, cap);
            let counter = SetCounter::new(&hand).expect("at most 45 cards");
            proptest::prop_assert_eq!(counter.count(cap), listed.len());
            for (k, set) in listed.iter().enumerate() {
                let got = counter.nth(k);
                proptest::prop_assert_eq!(got.as_ref(), Some(set), "hand {:?}, k {}", hand, k);
            }
            if listed.len() < cap {
                proptest::prop_assert_eq!(counter.nth(listed.len()), None);
            }
        }
    }

    #[test]
    fn counted_sets_of_small_hands_are_exact() {
        // Uncapped: the count is the brute force's number of sets.
        let deck = default_deck();
        for (step, take) in [(5, 9), (4, 10), (7, 7), (2, 11), (1, 8), (1, 15)] {
            let hand: BTreeSet<Item> = deck.iter().copied().step_by(step).take(take).collect();
            let cards: Vec<Item> = hand.iter().copied().collect();
            let brute = every_set(&cards).len();
            let counter = SetCounter::new(&hand).unwrap();
            assert_eq!(counter.count(usize::MAX), brute, "hand {hand:?}");
            assert_eq!(counter.nth(0), best_set(&hand));
            assert_eq!(counter.nth(brute), None);
        }
        let whole: BTreeSet<Item> = deck.iter().copied().collect();
        let counter = SetCounter::new(&whole).unwrap();
        assert_eq!(counter.count(LEGAL_CAP), LEGAL_CAP);
        let listed = all_sets(&whole, LEGAL_CAP);
        for k in [0, 1, 44, 45, 46, 500, LEGAL_CAP - 1] {
            assert_eq!(counter.nth(k).as_ref(), Some(&listed[k]), "k {k}");
        }
        assert_eq!(counter.nth(0).unwrap().len(), 45);
        let big: BTreeSet<Item> = (0..46).map(|y| Item::new(0, y).unwrap()).collect();
        assert!(SetCounter::new(&big).is_none(), "an open deck's 46 cards");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Small hands counted by walking their subsets: the same count and the same `k`-th set
        /// as the listing, on printed-deck hands of up to SMALL_HAND cards and open-deck hands.
        #[test]
        fn small_hands_counted_equal_the_listing(
            mask in proptest::prelude::any::<u64>(),
            keep in 0u32..(SMALL_HAND as u32 + 1),
            open in proptest::prelude::any::<bool>(),
            years in proptest::collection::vec(1490u16..1510, 0..SMALL_HAND),
            cap in proptest::prop_oneof![1usize..5, 5usize..300, proptest::strategy::Just(LEGAL_CAP)],
        ) {
            let mut m = mask & ((1u64 << 45) - 1);
            while m.count_ones() > keep {
                m &= m - 1;
            }
            let hand = random_hand(m, open, &years);
            let cards: CardSet = hand.iter().copied().collect();
            let listed = all_sets(&hand, cap);
            let small = SmallSets::new(&cards).expect("a small hand");
            proptest::prop_assert_eq!(small.count(cap), listed.len());
            for (k, set) in listed.iter().enumerate() {
                let got = small.nth(k);
                proptest::prop_assert_eq!(got.as_ref(), Some(set), "hand {:?}, k {}", hand, k);
                let picked = pick_set(&cards, cap, |_| k);
                proptest::prop_assert_eq!(picked.as_ref(), Some(set));
            }
            if listed.len() < cap {
                proptest::prop_assert_eq!(small.nth(listed.len()), None);
            }
            proptest::prop_assert_eq!(pick_set(&cards, cap, |n| n), None);
            proptest::prop_assert_eq!(has_set(&cards), !listed.is_empty());
        }
    }

    /// Random insertions and removals keep a card set equal to a tree of the same cards, and
    /// its counts by letter give `has_set`'s answer.
    #[test]
    fn a_card_set_follows_a_tree_through_insertions_and_removals() {
        let deck = default_deck();
        let mut rng = crate::rng::SplitMix64::new(11);
        let mut set = CardSet::default();
        let mut tree = BTreeSet::new();
        for _ in 0..5000 {
            let card = deck[(rng.next_u64() % deck.len() as u64) as usize];
            if rng.next_u64() & 1 == 0 {
                assert_eq!(set.insert(card), tree.insert(card));
            } else {
                assert_eq!(set.remove(&card), tree.remove(&card));
            }
            assert!(set.iter().eq(tree.iter()));
            assert_eq!(set.has_set(), has_set(&tree), "{tree:?}");
        }
        let collected: CardSet = tree.iter().rev().copied().collect();
        assert_eq!(collected, set);
    }

    #[test]
    fn a_card_set_keeps_canonical_order_and_each_card_once() {
        let deck = default_deck();
        let mut set: CardSet = deck.iter().rev().step_by(4).copied().collect();
        let tree: BTreeSet<Item> = deck.iter().rev().step_by(4).copied().collect();
        assert!(set.iter().eq(tree.iter()));
        assert!(!set.insert(deck[0]));
        assert!(set.insert(deck[1]));
        assert!(set.contains(&deck[1]) && set.remove(&deck[1]) && !set.remove(&deck[1]));
        assert_eq!(set.len(), tree.len());
        assert!(SmallSets::new(&set).is_none(), "12 cards");
        // The polynomial sums (and the closed forms of few cards) equal a count over every way
        // to take cards letter by letter, for letters with no card inside the run or at its
        // ends, and for every letter holding one or two.
        for counts in [[3u8, 0, 2, 4, 1, 5], [1, 2, 1, 2, 2, 1], [0, 3, 1, 0, 2, 2]] {
            a_count_of_completions_is_the_brute_force(counts);
        }
        assert_eq!(pick_set(&set, LEGAL_CAP, |_| 0), all_sets(&tree, 1).pop());
    }

    /// [`a_card_set_keeps_canonical_order_and_each_card_once`]'s completion counts over `counts`.
    fn a_count_of_completions_is_the_brute_force(counts: [u8; 6]) {
        let ways: usize = counts.iter().map(|&c| usize::from(c) + 1).product();
        for covered in 1u8..64 {
            for top in 0..16 {
                let mut brute = 0u64;
                for code in 0..ways {
                    let mut rest = code;
                    let mut take = [0usize; 6];
                    for (l, t) in take.iter_mut().enumerate() {
                        let c = usize::from(counts[l]) + 1;
                        *t = rest % c;
                        rest /= c;
                    }
                    let letters = (0..6)
                        .filter(|&l| take[l] > 0)
                        .fold(u16::from(covered), |acc, l| acc | 1 << l);
                    let run = (letters + (letters & letters.wrapping_neg())) & letters == 0;
                    if run && take.iter().sum::<usize>() == top {
                        brute += (0..6)
                            .map(|l| choose(usize::from(counts[l]), take[l]))
                            .product::<u64>();
                    }
                }
                assert_eq!(
                    run_completions::<{ DECK_SIZE + 1 }>(&counts, covered, top),
                    brute,
                    "covered {covered:b}, {top} cards"
                );
                if let Some(few) = few_completions(&counts, covered, top) {
                    assert_eq!(
                        few, brute,
                        "counted directly: covered {covered:b}, {top} cards"
                    );
                }
                assert_eq!(
                    run_completions::<SHORT_POLY>(&counts, covered, top),
                    brute,
                    "short polynomials: covered {covered:b}, {top} cards"
                );
                let cards: usize = counts.iter().map(|&c| usize::from(c)).sum();
                if let Some(omit) = cards.checked_sub(top).filter(|&o| o < TINY_POLY) {
                    assert_eq!(
                        kept_completions::<TINY_POLY>(&counts, covered, omit),
                        brute,
                        "counted by the cards left out: covered {covered:b}, {top} cards"
                    );
                }
                if top < TINY_POLY {
                    assert_eq!(
                        run_completions::<TINY_POLY>(&counts, covered, top),
                        brute,
                        "tiny polynomials: covered {covered:b}, {top} cards"
                    );
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

        /// Completions counted by the cards left out equal those counted by the cards taken,
        /// for every covered run and every number left out that the tiny polynomials hold.
        #[test]
        fn completions_by_cards_left_out_equal_those_by_cards_taken(
            counts in proptest::array::uniform6(0u8..8),
        ) {
            let cards: usize = counts.iter().map(|&c| usize::from(c)).sum();
            for covered in 1u8..64 {
                for omit in 0..TINY_POLY.min(cards + 1) {
                    proptest::prop_assert_eq!(
                        kept_completions::<TINY_POLY>(&counts, covered, omit),
                        run_completions::<{ DECK_SIZE + 1 }>(&counts, covered, cards - omit),
                        "counts {:?}, covered {:b}, {} left out", counts, covered, omit
                    );
                }
            }
        }
    }

    /// The cap the legal lists use (mod.rs's `LEGAL_SETS_CAP`).
    const LEGAL_CAP: usize = super::super::LEGAL_SETS_CAP;

    #[test]
    fn all_sets_equals_the_reference_on_big_hands() {
        // Whole runs of the printed deck and the whole deck: the reference builds every set of
        // the biggest sizes until the cap is reached; the lazy one stops at the cap.
        let deck = default_deck();
        for take in [23, 30, 45] {
            for step in [1, 2] {
                let hand: BTreeSet<Item> = deck.iter().copied().step_by(step).take(take).collect();
                for cap in [1, 7, 100, LEGAL_CAP] {
                    assert_eq!(
                        all_sets(&hand, cap),
                        all_sets_reference(&hand, cap),
                        "{} cards, cap {cap}",
                        hand.len()
                    );
                }
            }
        }
    }
}

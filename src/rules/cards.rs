//! One card model for the three trick games (Clubs, Bonus-Malus, Dump): a standard 52-card pack,
//! written rank then suit (`TC` is the ten of clubs; `10C` is accepted as input), sets of cards as
//! bitmasks, deck builders, and the seeded shuffle used by service dealing.
//!
//! docs/rules.md#card-notation: ranks `2 3 4 5 6 7 8 9 T J Q K A`, suits `S H D C`.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{digest::generic_array::GenericArray, Digest, Sha256};

/// A suit. The order (S, H, D, C) is the canonical deck order.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
pub enum Suit {
    /// Spades (`S` or `♠` on the wire).
    #[serde(alias = "♠")]
    S,
    /// Hearts (`H` or `♥`).
    #[serde(alias = "♥")]
    H,
    /// Diamonds (`D` or `♦`).
    #[serde(alias = "♦")]
    D,
    /// Clubs (`C` or `♣`).
    #[serde(alias = "♣")]
    C,
}

impl Suit {
    /// All four suits in canonical order.
    pub const ALL: [Suit; 4] = [Suit::S, Suit::H, Suit::D, Suit::C];

    /// The suit's letter.
    pub fn letter(self) -> char {
        match self {
            Suit::S => 'S',
            Suit::H => 'H',
            Suit::D => 'D',
            Suit::C => 'C',
        }
    }

    /// The suit's English name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Suit::S => "spades",
            Suit::H => "hearts",
            Suit::D => "diamonds",
            Suit::C => "clubs",
        }
    }

    /// One card of the suit, for messages: "a heart".
    pub fn one(self) -> &'static str {
        match self {
            Suit::S => "a spade",
            Suit::H => "a heart",
            Suit::D => "a diamond",
            Suit::C => "a club",
        }
    }

    fn index(self) -> u8 {
        self as u8
    }

    fn from_letter(c: char) -> Option<Suit> {
        match c.to_ascii_uppercase() {
            'S' => Some(Suit::S),
            'H' => Some(Suit::H),
            'D' => Some(Suit::D),
            'C' => Some(Suit::C),
            _ => None,
        }
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A card of the standard pack. Rank 2..=14 (ace high).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card(u8);

impl Card {
    /// The card of `rank` (2..=14, 14 = ace) and `suit`.
    pub fn new(rank: u8, suit: Suit) -> Card {
        assert!((2..=14).contains(&rank), "rank out of range");
        Card(suit.index() * 13 + (rank - 2))
    }

    /// 2..=14, ace high.
    pub fn rank(self) -> u8 {
        self.0 % 13 + 2
    }

    /// The card's suit.
    pub fn suit(self) -> Suit {
        Suit::ALL[(self.0 / 13) as usize]
    }

    fn bit(self) -> u64 {
        1u64 << self.0
    }

    fn rank_char(self) -> char {
        b"23456789TJQKA"[(self.rank() - 2) as usize] as char
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank_char(), self.suit().letter())
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a card could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a card: write rank then suit, ranks 2-9 T J Q K A (10 accepted), suits S H D C or ♠ ♥ ♦ ♣, e.g. \"TC\" or \"10♣\"")]
pub struct BadCard(pub String);

impl Suit {
    /// A suit written as a letter (any case) or a symbol (`♠♥♦♣`).
    fn from_char(c: char) -> Option<Suit> {
        match c {
            '♠' => Some(Suit::S),
            '♥' => Some(Suit::H),
            '♦' => Some(Suit::D),
            '♣' => Some(Suit::C),
            c => Suit::from_letter(c),
        }
    }
}

impl FromStr for Card {
    type Err = BadCard;

    /// Reads `TC`, `10c`, `2♣`, `10♥`, `A♠` (and `A♠` with U+FE0F). Works on chars, never on
    /// byte offsets: any other string, in any script, is refused with [`BadCard`].
    fn from_str(s: &str) -> Result<Card, BadCard> {
        let bad = || BadCard(s.to_string());
        let t = s.trim();
        let t = t.strip_suffix('\u{FE0F}').unwrap_or(t);
        let mut chars = t.chars();
        let suit = chars
            .next_back()
            .and_then(Suit::from_char)
            .ok_or_else(bad)?;
        let rank = match chars.as_str() {
            "T" | "t" | "10" => 10,
            "J" | "j" => 11,
            "Q" | "q" => 12,
            "K" | "k" => 13,
            "A" | "a" => 14,
            r => match r.as_bytes() {
                [d @ b'2'..=b'9'] => d - b'0',
                _ => return Err(bad()),
            },
        };
        Ok(Card::new(rank, suit))
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A set of cards as a 52-bit mask: cheap to copy, compare and count.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CardSet(u64);

impl CardSet {
    /// The empty set.
    pub const EMPTY: CardSet = CardSet(0);

    /// Whether `card` is in the set.
    pub fn contains(self, card: Card) -> bool {
        self.0 & card.bit() != 0
    }

    /// Adds `card`; returns false if it was already there.
    pub fn insert(&mut self, card: Card) -> bool {
        let had = self.contains(card);
        self.0 |= card.bit();
        !had
    }

    /// Removes `card`; returns false if it was not there.
    pub fn remove(&mut self, card: Card) -> bool {
        let had = self.contains(card);
        self.0 &= !card.bit();
        had
    }

    /// How many cards.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether any card of `suit` is in the set.
    pub fn has_suit(self, suit: Suit) -> bool {
        self.0 & (0x1FFFu64 << (suit.index() * 13)) != 0
    }

    /// How many cards of `suit` are in the set.
    pub fn count_suit(self, suit: Suit) -> usize {
        (self.0 & (0x1FFFu64 << (suit.index() * 13))).count_ones() as usize
    }

    /// The first suit (canonical order) of `suits` that the set holds a card of.
    pub fn first_suit_of(self, suits: SuitSet) -> Option<Suit> {
        Suit::ALL
            .into_iter()
            .find(|s| suits.contains(*s) && self.has_suit(*s))
    }

    /// The cards in both sets.
    pub fn intersection(self, other: CardSet) -> CardSet {
        CardSet(self.0 & other.0)
    }

    /// The cards of this set that are not in `other`.
    pub fn difference(self, other: CardSet) -> CardSet {
        CardSet(self.0 & !other.0)
    }

    /// The card at the index `pick` chooses in [`CardSet::iter`]'s order (`pick` is told how
    /// many cards there are, never 0): a random legal card without a list (`Game::legal_pick`).
    /// None when the set is empty or the index is past its end.
    pub fn pick(self, pick: impl FnOnce(usize) -> usize) -> Option<Card> {
        if self.is_empty() {
            return None;
        }
        self.iter().nth(pick(self.len()))
    }

    /// The cards in canonical order (spades 2..A, hearts, diamonds, clubs).
    pub fn iter(self) -> impl Iterator<Item = Card> {
        // One step per card held (lowest bit first), not one per card of the deck.
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            Some(Card(i))
        })
    }

    /// The cards of the set in `suits`.
    pub fn of_suits(self, suits: SuitSet) -> CardSet {
        CardSet(self.0 & SUIT_MASKS[usize::from(suits.0 & 0xF)])
    }

    /// The cards in canonical order, as a vector.
    pub fn to_vec(self) -> Vec<Card> {
        self.iter().collect()
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> CardSet {
        let mut set = CardSet::EMPTY;
        for c in iter {
            set.insert(c);
        }
        set
    }
}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The cards of each set of suits (indexed by [`SuitSet`]'s bits): 13 bits per suit.
const SUIT_MASKS: [u64; 16] = {
    let mut masks = [0u64; 16];
    let mut set = 0;
    while set < 16 {
        let mut suit = 0;
        while suit < 4 {
            if set & (1 << suit) != 0 {
                masks[set] |= 0x1FFFu64 << (suit * 13);
            }
            suit += 1;
        }
        set += 1;
    }
    masks
};

/// A set of suits (used to remember which suits a player has shown out of).
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct SuitSet(u8);

impl SuitSet {
    /// The empty set.
    pub const EMPTY: SuitSet = SuitSet(0);

    /// The set of the given suits.
    pub fn of(suits: &[Suit]) -> SuitSet {
        let mut set = SuitSet::EMPTY;
        for s in suits {
            set.insert(*s);
        }
        set
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The suits of either set.
    pub fn union(self, other: SuitSet) -> SuitSet {
        SuitSet(self.0 | other.0)
    }

    /// Removes `suit`.
    pub fn remove(&mut self, suit: Suit) {
        self.0 &= !(1 << suit.index());
    }

    /// Whether `suit` is in the set.
    pub fn contains(self, suit: Suit) -> bool {
        self.0 & (1 << suit.index()) != 0
    }

    /// Adds `suit`.
    pub fn insert(&mut self, suit: Suit) {
        self.0 |= 1 << suit.index();
    }

    /// The suits' names joined with "or", for messages ("hearts or clubs").
    pub fn names(self) -> String {
        let names: Vec<&str> = self.to_vec().into_iter().map(Suit::name).collect();
        names.join(" or ")
    }

    /// The suits in canonical order.
    pub fn to_vec(self) -> Vec<Suit> {
        Suit::ALL
            .into_iter()
            .filter(|s| self.contains(*s))
            .collect()
    }
}

/// The full 52-card pack.
pub fn full_deck() -> CardSet {
    CardSet((1u64 << 52) - 1)
}

/// The pack with the given ranks removed (Dump removes 4, 5 and 6).
pub fn deck_without_ranks(ranks: &[u8]) -> CardSet {
    full_deck()
        .iter()
        .filter(|c| !ranks.contains(&c.rank()))
        .collect()
}

/// A shuffle seed: 32 bytes from the OS-seeded cryptographic RNG, drawn outside the rules engines
/// (which stay pure) and recorded with the deal. Its SHA-256 is published at the deal; the seed
/// itself is revealed when the round ends, so anyone can re-derive the deal with [`shuffled`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Seed(pub [u8; 32]);

impl Seed {
    /// The published commitment: lowercase hex SHA-256 of the 32 seed bytes.
    pub fn commitment(&self) -> String {
        hex::encode(Sha256::digest(self.0))
    }

    /// The seed as lowercase hex.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// Reads a seed written as 64 hex digits.
    pub fn from_hex(s: &str) -> Option<Seed> {
        let bytes = hex::decode(s).ok()?;
        Some(Seed(bytes.try_into().ok()?))
    }
}

/// A service deal's published commitment, hashed when it is written: the SHA-256 of the deal's
/// seed, as lowercase hex (what [`Seed::commitment`] returns). It keeps the seed and hashes it
/// only when shown (serialized, displayed), so a deal nobody looks at does not pay for the hash.
/// Every way of showing it shows only the hash, never the seed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Commitment(Seed);

impl Commitment {
    /// The commitment to `seed`.
    pub fn of(seed: &Seed) -> Commitment {
        Commitment(*seed)
    }
}

impl fmt::Display for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in Sha256::digest(self.0 .0) {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Commitment({self})")
    }
}

impl Serialize for Commitment {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl fmt::Debug for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Seed(..)")
    }
}

/// The order of a printed hand: by suit (♠ ♥ ♦ ♣), then the highest rank first.
pub fn sort_key(card: Card) -> (Suit, std::cmp::Reverse<u8>) {
    (card.suit(), std::cmp::Reverse(card.rank()))
}

/// `cards` as a printed hand writes them: sorted by [`sort_key`], rank then suit (`TS`).
pub fn printed(mut cards: Vec<Card>) -> Vec<String> {
    cards.sort_by_key(|c| sort_key(*c));
    cards.iter().map(ToString::to_string).collect()
}

/// Shuffles `items` deterministically from `seed`, so that a deal can be re-derived by anyone:
/// a Fisher–Yates shuffle where, for i = n-1 down to 1, j is the first 8 bytes (big-endian) of
/// SHA-256(seed ‖ i as 4 bytes big-endian) modulo i+1, and items i and j are swapped.
/// The README shows the same steps in a few lines of Python.
pub fn shuffled<T>(mut items: Vec<T>, seed: &Seed) -> Vec<T> {
    // Each step's message is the 32 seed bytes and 4 bytes of `i`: 36 bytes, one SHA-256 block
    // once padded. The block is laid out once (the seed, the padding's 0x80, the bit length 288)
    // and only `i` changes, so each step is one compression from the initial state, without the
    // hasher's buffering and finalization. Same digests as `Sha256::digest(seed ‖ i)`.
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(&seed.0);
    block[36] = 0x80;
    block[56..].copy_from_slice(&(36u64 * 8).to_be_bytes());
    let mut block = GenericArray::from(block);
    for i in (1..items.len()).rev() {
        block[32..36].copy_from_slice(&(i as u32).to_be_bytes());
        let mut state = SHA256_IV;
        sha2::compress256(&mut state, std::slice::from_ref(&block));
        // The digest's first 8 bytes, big-endian: its first two words.
        let word = (u64::from(state[0]) << 32) | u64::from(state[1]);
        let j = (word % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
    items
}

/// SHA-256's initial hash value (FIPS 180-4, 5.3.3).
const SHA256_IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// Deals `deck` (canonical order, then shuffled by `seed`) one card at a time to `players` hands
/// of `per_hand` cards, starting with the player left of `dealer`. Returns the hands (by seat) and
/// the undealt rest in shuffled order (top of the stock first).
pub fn deal_from_seed(
    deck: CardSet,
    seed: &Seed,
    players: usize,
    per_hand: usize,
    dealer: usize,
) -> (Vec<CardSet>, Vec<Card>) {
    let order = shuffled(deck.to_vec(), seed);
    let mut hands = vec![CardSet::EMPTY; players];
    let dealt = players * per_hand;
    for (k, card) in order.iter().take(dealt).enumerate() {
        hands[(dealer + 1 + k) % players].insert(*card);
    }
    (hands, order[dealt.min(order.len())..].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_round_trip_through_text() {
        for c in full_deck().iter() {
            assert_eq!(c.to_string().parse::<Card>().unwrap(), c);
        }
        assert_eq!("10c".parse::<Card>().unwrap().to_string(), "TC");
        assert_eq!("as".parse::<Card>().unwrap(), Card::new(14, Suit::S));
        for bad in ["", "1C", "11C", "ZZ", "T", "TX", "AAS"] {
            assert!(bad.parse::<Card>().is_err(), "{bad}");
        }
    }

    #[test]
    fn of_suits_keeps_the_cards_of_those_suits() {
        for bits in 0u8..16 {
            let suits = SuitSet(bits);
            let by_card: CardSet = full_deck()
                .iter()
                .filter(|c| suits.contains(c.suit()))
                .collect();
            assert_eq!(full_deck().of_suits(suits), by_card, "suits {bits:04b}");
        }
    }

    #[test]
    fn dump_deck_has_forty_cards_without_4_5_6() {
        let d = deck_without_ranks(&[4, 5, 6]);
        assert_eq!(d.len(), 40);
        assert!(!d.contains("5H".parse().unwrap()));
        assert!(d.contains("7H".parse().unwrap()));
    }

    #[test]
    fn a_commitment_shows_the_seeds_hash_only() {
        let seed = Seed([7; 32]);
        let c = Commitment::of(&seed);
        assert_eq!(c.to_string(), seed.commitment());
        assert_eq!(
            serde_json::to_value(c).unwrap(),
            serde_json::json!(seed.commitment())
        );
        assert_eq!(
            format!("{c:?}"),
            format!("Commitment({})", seed.commitment())
        );
        assert!(!format!("{c:?}{c}").contains(&seed.to_hex()));
    }

    /// The shuffle as its docs (and the README's Python) state it, with the hasher.
    fn shuffled_by_the_book<T>(mut items: Vec<T>, seed: &Seed) -> Vec<T> {
        for i in (1..items.len()).rev() {
            let mut h = Sha256::new();
            h.update(seed.0);
            h.update((i as u32).to_be_bytes());
            let digest = h.finalize();
            let word = u64::from_be_bytes(digest[..8].try_into().unwrap());
            items.swap(i, (word % (i as u64 + 1)) as usize);
        }
        items
    }

    /// `shuffled((0..52), [0; 32])[..8]`, from the README's Python steps.
    const FIRST_EIGHT_OF_SEED_ZERO: [u32; 8] = [3, 5, 22, 36, 47, 34, 6, 25];

    #[test]
    fn the_one_block_shuffle_is_the_documented_one() {
        for k in 0u8..40 {
            let seed = Seed(std::array::from_fn(|b| {
                (b as u8).wrapping_mul(37) ^ k.wrapping_mul(101)
            }));
            for n in [0usize, 1, 2, 40, 44, 52, 88, 104] {
                let items: Vec<usize> = (0..n).collect();
                assert_eq!(
                    shuffled(items.clone(), &seed),
                    shuffled_by_the_book(items, &seed),
                    "seed {k}, {n} items"
                );
            }
        }
        // A fixed deal, so that the mapping cannot drift with the reference above.
        let first: Vec<u32> = shuffled((0..52).collect(), &Seed([0; 32]))[..8].to_vec();
        assert_eq!(first, FIRST_EIGHT_OF_SEED_ZERO);
    }

    #[test]
    fn shuffle_is_a_permutation_and_depends_on_the_seed() {
        let a = shuffled((0..52).collect::<Vec<u32>>(), &Seed([1; 32]));
        let b = shuffled((0..52).collect::<Vec<u32>>(), &Seed([2; 32]));
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..52).collect::<Vec<u32>>());
        assert_ne!(a, b);
        assert_eq!(a, shuffled((0..52).collect::<Vec<u32>>(), &Seed([1; 32])));
    }
}

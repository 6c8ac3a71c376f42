//! Members Only's cards, categories, betting spaces and pieces, and the service deal.

use std::{borrow::Cow, fmt, str::FromStr};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::json;
use utoipa::{
    openapi::{
        schema::{ObjectBuilder, Schema, Type},
        RefOr,
    },
    PartialSchema, ToSchema,
};

use super::super::cards::{shuffled, Seed};

/// Normal cards per category (seed text: "13 cards each of the 5 categories: 11 normal and 2 'NO!'").
pub const NORMAL_PER_CATEGORY: u8 = 11;
/// NO! cards per category.
pub const NO_PER_CATEGORY: u8 = 2;
/// Cards in the deck.
pub const DECK_SIZE: usize = 65;
/// Single betting pieces per player (plus one double piece and one risk piece).
pub const SINGLE_PIECES: u8 = 4;
/// The top of every scoring track ("It is not possible to score more than 10 points in a category").
pub const TRACK_MAX: u8 = 10;
/// Markers from here up (the darker area, 5–10) count at the end; 1–4 count nothing.
pub const COUNTING_FROM: u8 = 5;
/// Cards left in every hand when betting stops (Rule Three).
pub const FINAL_HAND: u8 = 3;
/// Cards turned face up at the deal.
pub const FACE_UP: usize = 2;

/// Card kinds: five categories × (normal, NO!).
pub(super) const KINDS: usize = 10;

/// One of the five event categories (the five bets "typically British").
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[schema(as = MembersOnlyCategory)]
pub enum Category {
    /// Rain days in London.
    Umbrella,
    /// Royal scandals.
    Crown,
    /// Cups of tea spilled by the Premier.
    Teacup,
    /// Resignations (Big Ben).
    BigBen,
    /// Identical hats at Ascot.
    Hat,
}

impl Category {
    /// The five categories in board order.
    pub const ALL: [Category; 5] = [
        Category::Umbrella,
        Category::Crown,
        Category::Teacup,
        Category::BigBen,
        Category::Hat,
    ];

    /// The wire name, e.g. `big_ben`.
    pub fn name(self) -> &'static str {
        match self {
            Category::Umbrella => "umbrella",
            Category::Crown => "crown",
            Category::Teacup => "teacup",
            Category::BigBen => "big_ben",
            Category::Hat => "hat",
        }
    }

    /// The category in words, as the table page names it, e.g. `Big Ben`.
    pub fn words(self) -> &'static str {
        match self {
            Category::Umbrella => "Umbrella",
            Category::Crown => "Crown",
            Category::Teacup => "Teacup",
            Category::BigBen => "Big Ben",
            Category::Hat => "Hat",
        }
    }

    pub(super) fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A betting space of a category: `le1` = "1 or less" .. `ge8` = "8 or more".
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[schema(as = MembersOnlySpace)]
pub enum Space {
    /// 1 or less: 5 points.
    Le1,
    /// 2 or less: 3 points.
    Le2,
    /// 3 or less: 2 points.
    Le3,
    /// 4 or less: 1 point.
    Le4,
    /// 5 or more: 1 point.
    Ge5,
    /// 6 or more: 2 points.
    Ge6,
    /// 7 or more: 3 points.
    Ge7,
    /// 8 or more: 5 points.
    Ge8,
}

impl Space {
    /// The eight spaces in board order.
    pub const ALL: [Space; 8] = [
        Space::Le1,
        Space::Le2,
        Space::Le3,
        Space::Le4,
        Space::Ge5,
        Space::Ge6,
        Space::Ge7,
        Space::Ge8,
    ];

    /// The circled number on the printed board (docs/rules.md#members-only-spaces: 5 3 2 1 | 1 2 3 5).
    pub fn points(self) -> u32 {
        match self {
            Space::Le1 | Space::Ge8 => 5,
            Space::Le2 | Space::Ge7 => 3,
            Space::Le3 | Space::Ge6 => 2,
            Space::Le4 | Space::Ge5 => 1,
        }
    }

    /// Whether a category that counted `count` cards makes this space correct.
    pub fn is_correct(self, count: u8) -> bool {
        match self {
            Space::Le1 => count <= 1,
            Space::Le2 => count <= 2,
            Space::Le3 => count <= 3,
            Space::Le4 => count <= 4,
            Space::Ge5 => count >= 5,
            Space::Ge6 => count >= 6,
            Space::Ge7 => count >= 7,
            Space::Ge8 => count >= 8,
        }
    }

    /// The wire name, e.g. `le3`.
    pub fn name(self) -> &'static str {
        match self {
            Space::Le1 => "le1",
            Space::Le2 => "le2",
            Space::Le3 => "le3",
            Space::Le4 => "le4",
            Space::Ge5 => "ge5",
            Space::Ge6 => "ge6",
            Space::Ge7 => "ge7",
            Space::Ge8 => "ge8",
        }
    }

    /// The words printed on the board.
    pub fn words(self) -> &'static str {
        match self {
            Space::Le1 => "1 or less",
            Space::Le2 => "2 or less",
            Space::Le3 => "3 or less",
            Space::Le4 => "4 or less",
            Space::Ge5 => "5 or more",
            Space::Ge6 => "6 or more",
            Space::Ge7 => "7 or more",
            Space::Ge8 => "8 or more",
        }
    }
}

/// A betting piece a player places (the risk piece goes under it by itself in round 1).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[schema(as = MembersOnlyPiece)]
pub enum Piece {
    /// One of the four single pieces: points × 1 (× 2 on the risk piece).
    Single,
    /// The double-height piece: points × 2 (× 3 on the risk piece).
    Double,
}

impl Piece {
    pub(super) fn name(self) -> &'static str {
        match self {
            Piece::Single => "single",
            Piece::Double => "double",
        }
    }
}

/// The multiplier of a correct piece: single × 1, double × 2, single on risk × 2, double on risk × 3.
pub fn multiplier(piece: Piece, risk: bool) -> u32 {
    match (piece, risk) {
        (Piece::Single, false) => 1,
        (Piece::Single, true) | (Piece::Double, false) => 2,
        (Piece::Double, true) => 3,
    }
}

/// A Members Only card: a category, normal or NO!. Written `umbrella` or `umbrella:no`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card {
    /// The card's category.
    pub category: Category,
    /// Whether it is a NO! card (cancels one normal card of its category).
    pub no: bool,
}

impl Card {
    /// A normal card of `category`.
    pub fn normal(category: Category) -> Card {
        Card {
            category,
            no: false,
        }
    }

    /// The NO! card of `category`.
    pub fn no(category: Category) -> Card {
        Card { category, no: true }
    }

    pub(super) fn kind(self) -> usize {
        self.category.index() * 2 + usize::from(self.no)
    }

    pub(super) fn from_kind(k: usize) -> Card {
        Card {
            category: Category::ALL[(k / 2) % 5],
            no: k % 2 == 1,
        }
    }

    /// How many of this card the deck holds (11 normal, 2 NO!).
    pub fn copies(self) -> u8 {
        if self.no {
            NO_PER_CATEGORY
        } else {
            NORMAL_PER_CATEGORY
        }
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.no {
            write!(f, "{}:no", self.category.name())
        } else {
            f.write_str(self.category.name())
        }
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a Members Only card could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a Members Only card: write a category (umbrella, crown, teacup, big_ben, hat), with ':no' for a NO! card, e.g. \"umbrella\" or \"hat:no\"")]
pub struct BadCard(pub String);

impl FromStr for Card {
    type Err = BadCard;

    fn from_str(s: &str) -> Result<Card, BadCard> {
        let t = s.trim().to_ascii_lowercase();
        let (cat, no) = match t.strip_suffix(":no") {
            Some(c) => (c, true),
            None => (t.as_str(), false),
        };
        let category = Category::ALL
            .into_iter()
            .find(|c| c.name() == cat)
            .ok_or_else(|| BadCard(s.to_string()))?;
        Ok(Card { category, no })
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

impl PartialSchema for Card {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(
                "A Members Only card: its category, with `:no` for a NO! card.",
            ))
            .pattern(Some("^(umbrella|crown|teacup|big_ben|hat)(:no)?$"))
            .examples([json!("umbrella"), json!("hat:no")])
            .build()
            .into()
    }
}

impl ToSchema for Card {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("MembersOnlyCard")
    }
}

/// The 65 cards in canonical order (by category: 11 normal, then 2 NO!). A service deal shuffles
/// this list with [`shuffled`] and the deal's seed.
pub fn deck() -> Vec<Card> {
    let mut d = Vec::with_capacity(DECK_SIZE);
    for c in Category::ALL {
        d.extend(std::iter::repeat_n(
            Card::normal(c),
            NORMAL_PER_CATEGORY as usize,
        ));
        d.extend(std::iter::repeat_n(Card::no(c), NO_PER_CATEGORY as usize));
    }
    d
}

/// Cards dealt to each hand: 11 / 9 / 7 for 3 / 4 / 5 players (Rule One).
pub fn hand_size(players: usize) -> u8 {
    match players {
        3 => 11,
        4 => 9,
        _ => 7,
    }
}

/// A service deal re-derived from its seed: `shuffled(deck(), seed)`; the first players × hand
/// cards go one at a time to the seats, beginning with `starter` (the player left of the dealer);
/// the next two are turned face up; the rest stay out of the heat.
pub fn deal_from_seed(seed: &Seed, players: usize, starter: usize) -> ServiceDeal {
    let order = shuffled(deck(), seed);
    let per_hand = hand_size(players) as usize;
    let dealt = players * per_hand;
    let mut hands = vec![Vec::new(); players];
    for (k, card) in order.iter().take(dealt).enumerate() {
        hands[(starter + k) % players].push(*card);
    }
    for h in &mut hands {
        h.sort();
    }
    ServiceDeal {
        hands,
        face_up: [order[dealt], order[dealt + 1]],
        unused: order[dealt + FACE_UP..].to_vec(),
    }
}

/// A heat dealt by the service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceDeal {
    /// Each seat's hand, canonical order.
    pub hands: Vec<Vec<Card>>,
    /// The two cards turned face up.
    pub face_up: [Card; 2],
    /// The cards that stay out of the heat, in shuffled order.
    pub unused: Vec<Card>,
}

//! The structured facts of a refusal: what a client needs to phrase it in its own words (the
//! seat by its player's name, the card in pictures) without reading the `detail`. Each engine's
//! error fills them ([`super::RuleError::fields`]), the match service adds its own, and the
//! problem document (`crate::error::Problem`) carries them as optional members. They are told
//! exactly as the detail is: a refusal hidden from the asker ([`super::Rejection::told`]) carries
//! only the acting seat, which its `not_playable` detail names anyway.

use serde::Serialize;
use utoipa::ToSchema;

use super::{
    by_hook_or_crook::{actions::ActionCard, actions::Place, items::Item},
    cards::{Card, Suit},
    members_only::{self, Category, Space},
    plus_minus::PmCard,
};

/// A card as the API writes it in actions and views: a trick game's `QS`, a Members Only
/// `hat:no`, a By Hook or Crook collection card `A1500` or action card `thief:3`, or a P.M. card's
/// signed value (`-7`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(untagged)]
pub enum CardName {
    /// A card written as a string (every game but P.M.).
    Code(String),
    /// A P.M. card: its signed value (PLUS positive, MINUS negative).
    Value(i32),
}

impl From<Card> for CardName {
    fn from(c: Card) -> CardName {
        CardName::Code(c.to_string())
    }
}

impl From<members_only::Card> for CardName {
    fn from(c: members_only::Card) -> CardName {
        CardName::Code(c.to_string())
    }
}

impl From<Item> for CardName {
    fn from(c: Item) -> CardName {
        CardName::Code(c.to_string())
    }
}

impl From<ActionCard> for CardName {
    fn from(c: ActionCard) -> CardName {
        CardName::Code(c.to_string())
    }
}

impl From<PmCard> for CardName {
    fn from(c: PmCard) -> CardName {
        CardName::Value(c.value())
    }
}

/// The structured facts of a refusal, each present when the refusal is about it (see
/// `Problem` in the spec for their meanings). The `Display` of these types is their wire form
/// (checked by the tests below), so a card here is written as the actions write it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProblemFields {
    /// The seat the refusal is about (0-based).
    pub seat: Option<usize>,
    /// The card the refusal is about.
    pub card: Option<CardName>,
    /// The suit the rule names.
    pub suit: Option<Suit>,
    /// What the rule wanted, as a number.
    pub expected: Option<i64>,
    /// What the action gave, as a number.
    pub got: Option<i64>,
    /// Members Only: the category.
    pub category: Option<Category>,
    /// Members Only: the betting space.
    pub space: Option<Space>,
    /// By Hook or Crook: the location.
    pub place: Option<Place>,
    /// By Hook or Crook: the auction pile.
    pub pile: Option<usize>,
}

impl ProblemFields {
    /// No facts.
    pub fn none() -> ProblemFields {
        ProblemFields::default()
    }

    /// About `seat`.
    pub fn seat(seat: usize) -> ProblemFields {
        ProblemFields {
            seat: Some(seat),
            ..ProblemFields::default()
        }
    }

    /// About `card`.
    pub fn card(card: impl Into<CardName>) -> ProblemFields {
        ProblemFields::none().with_card(card)
    }

    /// A comparison: what the rule wanted and what was given.
    pub fn compare(expected: impl TryInto<i64>, got: impl TryInto<i64>) -> ProblemFields {
        ProblemFields::none().with_compare(expected, got)
    }

    /// `not_your_turn` and its kin: seat `got` acted where seat `expected` was to.
    pub fn turn(expected: usize, got: usize) -> ProblemFields {
        ProblemFields::seat(got).with_compare(expected, got)
    }

    /// The fields with `seat` only if it is a seat of a match of `players` seats: a seat an
    /// action named that the match does not have (a theft from seat 9) stays in the detail only,
    /// so that `seat` always names one of the match's players.
    pub fn within(mut self, players: usize) -> ProblemFields {
        self.seat = self.seat.filter(|s| *s < players);
        self
    }

    /// And `card`.
    pub fn with_card(mut self, card: impl Into<CardName>) -> ProblemFields {
        self.card = Some(card.into());
        self
    }

    /// And `suit`.
    pub fn with_suit(mut self, suit: Suit) -> ProblemFields {
        self.suit = Some(suit);
        self
    }

    /// And `expected` (a number that does not fit is left out).
    pub fn with_expected(mut self, expected: impl TryInto<i64>) -> ProblemFields {
        self.expected = expected.try_into().ok();
        self
    }

    /// And `got` (a number that does not fit is left out).
    pub fn with_got(mut self, got: impl TryInto<i64>) -> ProblemFields {
        self.got = got.try_into().ok();
        self
    }

    /// And `expected` and `got`.
    pub fn with_compare(
        self,
        expected: impl TryInto<i64>,
        got: impl TryInto<i64>,
    ) -> ProblemFields {
        self.with_expected(expected).with_got(got)
    }

    /// And `category`.
    pub fn with_category(mut self, category: Category) -> ProblemFields {
        self.category = Some(category);
        self
    }

    /// And `space`.
    pub fn with_space(mut self, space: Space) -> ProblemFields {
        self.space = Some(space);
        self
    }

    /// And `place`.
    pub fn with_place(mut self, place: Place) -> ProblemFields {
        self.place = Some(place);
        self
    }

    /// And `pile`.
    pub fn with_pile(mut self, pile: usize) -> ProblemFields {
        self.pile = Some(pile);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A card in the fields is written exactly as the actions write it (their serde form).
    #[test]
    fn a_card_is_written_as_the_actions_write_it() {
        let wire = |c: &CardName| serde_json::to_value(c).unwrap();
        let card: Card = "TC".parse().unwrap();
        assert_eq!(wire(&card.into()), serde_json::to_value(card).unwrap());
        let mo: members_only::Card = "hat:no".parse().unwrap();
        assert_eq!(wire(&mo.into()), serde_json::json!("hat:no"));
        let item: Item = "a1500".parse().unwrap();
        assert_eq!(wire(&item.into()), serde_json::to_value(item).unwrap());
        let thief = ActionCard::Thief(3);
        assert_eq!(wire(&thief.into()), serde_json::json!("thief:3"));
        assert_eq!(wire(&PmCard(-7).into()), serde_json::json!(-7));
        assert_eq!(
            ProblemFields::turn(2, 1),
            ProblemFields {
                seat: Some(1),
                expected: Some(2),
                got: Some(1),
                ..ProblemFields::none()
            }
        );
    }
}

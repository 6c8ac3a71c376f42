//! The action vocabulary of By Hook or Crook (API.md "Action vocabulary").

use std::{fmt, str::FromStr};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::ToSchema;

use super::items::Item;

/// A location card.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// The castle: exhibits, detectives and thieves.
    Castle,
    /// The auction house: checks and thieves.
    Auction,
}

impl Place {
    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            Place::Castle => "castle",
            Place::Auction => "auction",
        }
    }
}

/// An action card, written `check:<value>`, `thief:<n>`, `exhibit` or `detective`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ActionCard {
    /// A check of this value (auction house only).
    Check(u32),
    /// The thief with this number on his sack (either location).
    Thief(u32),
    /// The exhibit card (castle only; needs a set in hand).
    Exhibit,
    /// The detective (castle only).
    Detective,
}

impl ActionCard {
    /// Whether the card may be played at `place` (checks: auction only; exhibit, detective:
    /// castle only; thieves: both).
    pub fn allowed_at(self, place: Place) -> bool {
        match self {
            ActionCard::Check(_) => place == Place::Auction,
            ActionCard::Exhibit | ActionCard::Detective => place == Place::Castle,
            ActionCard::Thief(_) => true,
        }
    }

    /// Where the card may be played, for messages.
    pub fn allowed_text(self) -> &'static str {
        match self {
            ActionCard::Check(_) => "only at the auction house",
            ActionCard::Exhibit | ActionCard::Detective => "only at the castle",
            ActionCard::Thief(_) => "at either location",
        }
    }
}

impl fmt::Display for ActionCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionCard::Check(v) => write!(f, "check:{v}"),
            ActionCard::Thief(n) => write!(f, "thief:{n}"),
            ActionCard::Exhibit => f.write_str("exhibit"),
            ActionCard::Detective => f.write_str("detective"),
        }
    }
}

/// Why an action card could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not an action card: write \"check:<value>\", \"thief:<n>\", \"exhibit\" or \"detective\"")]
pub struct BadActionCard(pub String);

impl FromStr for ActionCard {
    type Err = BadActionCard;

    fn from_str(s: &str) -> Result<ActionCard, BadActionCard> {
        let bad = || BadActionCard(s.to_string());
        let t = s.trim().to_ascii_lowercase();
        let number = |rest: &str| -> Result<u32, BadActionCard> {
            if rest.is_empty() || rest.len() > 10 || !rest.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            rest.parse().map_err(|_| bad())
        };
        match t.as_str() {
            "exhibit" => Ok(ActionCard::Exhibit),
            "detective" => Ok(ActionCard::Detective),
            _ => {
                if let Some(rest) = t.strip_prefix("check:") {
                    Ok(ActionCard::Check(number(rest)?))
                } else if let Some(rest) = t.strip_prefix("thief:") {
                    Ok(ActionCard::Thief(number(rest)?))
                } else {
                    Err(bad())
                }
            }
        }
    }
}

impl Serialize for ActionCard {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ActionCard {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ActionCard, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// `deal.pile_sizes`: two card counts (any `u32`: the rules check the sum).
fn pile_sizes_schema() -> utoipa::openapi::schema::Array {
    use crate::rules::spec_shapes::{array, int};
    array(
        int(0, i64::from(u32::MAX)),
        Some(2),
        true,
        "Cards in auction piles 0 and 1 (face-up top included). Default: the rest of the deck \
         split evenly, pile 0 taking the odd card. With the default deck they must add up to 45 \
         minus four per player.",
        serde_json::json!([17, 16]),
    )
}

/// A collection card as the spec shows it: letter plus year (what `Item` parses).
const ITEM_PATTERN: &str = "^[A-Fa-f][0-9]{1,4}$";

/// `exhibit.cards`: a set of 3 to 45 collection cards (schema_with: the items need the pattern).
fn exhibit_schema() -> utoipa::openapi::schema::Array {
    use crate::rules::spec_shapes::{array, string};
    let mut a = array(
        string(ITEM_PATTERN),
        None,
        false,
        "The set: at least three cards whose letters form one unbroken run.",
        serde_json::json!(["A1500", "A1560", "B1507"]),
    );
    a.min_items = Some(3);
    a.max_items = Some(45);
    a
}

/// `final_exhibit.cards`: up to 45 collection cards.
fn final_exhibit_schema() -> utoipa::openapi::schema::Array {
    use crate::rules::spec_shapes::{array, string};
    let mut a = array(
        string(ITEM_PATTERN),
        None,
        false,
        "The set shown, or `[]` when the seat holds none.",
        serde_json::json!(["D1521", "E1528", "F1535"]),
    );
    a.max_items = Some(45);
    a
}

/// One action of By Hook or Crook.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = ByHookOrCrookAction)]
// Each variant's `title` names it in the spec, hence in generated clients (`ByHookOrCrookPlay`, ...):
// stable names whatever the variants' order; tests/openapi.rs checks every variant has one.
pub enum Action {
    /// Table action that starts the game: four collection cards to each player, the rest in two
    /// auction piles. In service dealing the service shuffles and deals (hands seen by their seats
    /// only, pile tops turned up); in table dealing the table then records each pile's face-up top
    /// with `reveal_pile`.
    #[schema(title = "ByHookOrCrookDeal")]
    Deal {
        /// Cards in auction piles 0 and 1 (face-up top included). Default: the rest of the deck
        /// split evenly, pile 0 taking the odd card. With the default deck they must add up to
        /// 45 minus four per player.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(schema_with = pile_sizes_schema)]
        pile_sizes: Option<[u32; 2]>,
    },
    /// Table dealing only, table action: the card just turned face up on an auction pile (at the
    /// start, and after each purchase from a pile that still has cards).
    #[schema(title = "ByHookOrCrookRevealPile")]
    RevealPile {
        /// The auction pile, 0 or 1.
        #[schema(minimum = 0, maximum = 1, example = 0)]
        pile: usize,
        /// The card now face up, letter plus year.
        #[schema(value_type = String, pattern = "^[A-Fa-f][0-9]{1,4}$", example = "C1710")]
        card: Item,
    },
    /// A seat's location card for this turn, sealed until every seat has chosen (with two players
    /// in `alternate`, chosen openly in turn).
    #[schema(title = "ByHookOrCrookLocation")]
    Location {
        /// `castle` or `auction`: the seat must be able to play an action card there.
        place: Place,
    },
    /// A seat's action card for this turn, sealed until every seat has chosen.
    #[schema(title = "ByHookOrCrookChoose")]
    Choose {
        /// `check:<value>` (auction), `thief:<n>` (either), `exhibit` or `detective` (castle).
        #[schema(value_type = String, pattern = "^(check:[0-9]{1,9}|thief:[0-9]{1,9}|exhibit|detective)$", example = "check:11000")]
        card: ActionCard,
    },
    /// The auction's winner takes the face-up card of one pile.
    #[schema(title = "ByHookOrCrookBuy")]
    Buy {
        /// The auction pile, 0 or 1 (it must still have cards).
        #[schema(minimum = 0, maximum = 1, example = 1)]
        pile: usize,
    },
    /// An exhibitor lays down one set at the castle, sealed among the exhibitors until all have.
    #[schema(title = "ByHookOrCrookExhibit")]
    Exhibit {
        /// The set: at least three cards whose letters form one unbroken run.
        #[schema(schema_with = exhibit_schema)]
        cards: Vec<Item>,
    },
    /// A thief's owner takes one card from one exhibit (thieves in descending number order, one
    /// card from each exhibit each).
    #[schema(title = "ByHookOrCrookSteal")]
    Steal {
        /// The exhibiting seat.
        #[schema(minimum = 0, maximum = 4, example = 2)]
        from: usize,
        /// The card taken from that exhibit.
        #[schema(value_type = String, pattern = "^[A-Fa-f][0-9]{1,4}$", example = "B1507")]
        card: Item,
    },
    /// At the end of the game every seat shows its best set (`[]` without one), sealed until all
    /// have; best +8, second +4.
    #[schema(title = "ByHookOrCrookFinalExhibit")]
    FinalExhibit {
        /// The set shown, or `[]` when the seat holds none.
        #[schema(schema_with = final_exhibit_schema)]
        cards: Vec<Item>,
    },
    /// Score-only play (`scores_only`), table action: the whole game's result, the final
    /// exhibition included, instead of any other action. The furthest pawn wins; a tie on the
    /// furthest space goes to the more valuable collection, which the table judges: `tiebreak`
    /// then lists exactly the tied seats, winner first. Refusals (422): `tally_not_allowed` (not a
    /// score-only match), `tally_shape`, `tally_range`, `tally_not_over` (no pawn on a pink
    /// space), `tally_tiebreak`; details name seats 1-based.
    #[schema(title = "ByHookOrCrookTally")]
    Tally {
        /// Each seat's pawn space after the final exhibition (0 is the club room), 0 to the
        /// furthest a pawn can reach (`table.last_space`); at least one on a pink space.
        #[schema(example = json!([41, 30, 41]))]
        positions: Vec<i64>,
        /// Only when two or more pawns share the furthest space: exactly those seats, the
        /// winner (the more valuable collection) first. Absent or empty otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(example = json!([2, 0]))]
        tiebreak: Option<Vec<usize>>,
    },
}

impl Action {
    /// The wire name of the action type.
    pub fn type_name(&self) -> &'static str {
        match self {
            Action::Deal { .. } => "deal",
            Action::RevealPile { .. } => "reveal_pile",
            Action::Location { .. } => "location",
            Action::Choose { .. } => "choose",
            Action::Buy { .. } => "buy",
            Action::Exhibit { .. } => "exhibit",
            Action::Steal { .. } => "steal",
            Action::FinalExhibit { .. } => "final_exhibit",
            Action::Tally { .. } => "tally",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_cards_round_trip() {
        for s in ["check:8000", "thief:3", "exhibit", "detective"] {
            assert_eq!(s.parse::<ActionCard>().unwrap().to_string(), s);
        }
        for bad in [
            "check:",
            "check:-1",
            "thief:x",
            "cheque:1",
            "",
            "check:99999999999",
        ] {
            assert!(bad.parse::<ActionCard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn actions_read_the_wire_form() {
        let a: Action = serde_json::from_str(r#"{"type":"choose","card":"check:11000"}"#).unwrap();
        assert_eq!(
            a,
            Action::Choose {
                card: ActionCard::Check(11000)
            }
        );
        let d: Action = serde_json::from_str(r#"{"type":"deal"}"#).unwrap();
        assert_eq!(d, Action::Deal { pile_sizes: None });
        assert_eq!(serde_json::to_string(&d).unwrap(), r#"{"type":"deal"}"#);
        assert!(serde_json::from_str::<Action>(r#"{"type":"buy","pile":0,"x":1}"#).is_err());
    }
}

#[cfg(test)]
mod schema_tests {
    use utoipa::PartialSchema;

    use super::Action;
    use crate::rules::by_hook_or_crook::BhocConfig;

    #[test]
    fn the_spec_describes_every_action_and_option() {
        let action = serde_json::to_string(&Action::schema()).unwrap();
        for word in [
            "reveal_pile",
            "final_exhibit",
            "pile_sizes",
            "check:<value>",
        ] {
            assert!(action.contains(word), "{word} missing from {action}");
        }
        let config = serde_json::to_string(&BhocConfig::schema()).unwrap();
        for word in [
            "checks",
            "thieves",
            "collection",
            "detective_ranking",
            "two_player",
            "board",
        ] {
            assert!(config.contains(word), "{word} missing from {config}");
        }
    }
}

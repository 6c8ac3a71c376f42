//! Why By Hook or Crook refused an action. Messages about a sealed choice speak only to (or for)
//! the seat that made it, and never name another seat's sealed choice.

use super::{
    actions::{ActionCard, Place},
    items::Item,
};
use crate::rules::RuleError;

/// An illegal action or option.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BhocError {
    #[error(
        "By Hook or Crook is played by 3 to 5 players (2 with the two-player variant), not {0}"
    )]
    PlayerCount(usize),
    #[error("config: {0}")]
    InvalidConfig(String),
    #[error("the match is finished; nothing more can be recorded")]
    MatchFinished,
    #[error("the collection cards are not dealt yet: the table records a deal first")]
    DealExpected,
    #[error("the collection cards were dealt at the start; the game has a single deal")]
    AlreadyDealt,
    #[error("{0} is an action of the table (seat: null, host token)")]
    TableActionOnly(&'static str),
    #[error("{0} is a player's action; say which seat acts")]
    SeatActionOnly(&'static str),
    #[error("there is no seat {seat}: seats are 0 to {max}")]
    NoSuchSeat { seat: usize, max: usize },
    #[error("a service deal needs the service's shuffle seed")]
    SeedMissing,
    #[error("in table dealing the cards are dealt at the table; no seed is taken")]
    SeedNotTaken,
    #[error("pile_sizes must add up to the {expected} cards left after dealing four to each player, not {got}")]
    BadPileSizes { expected: u64, got: u64 },
    #[error(
        "the table must first record the card turned face up on auction pile {0} (reveal_pile)"
    )]
    RevealExpected(usize),
    #[error("no auction pile is waiting for its face-up card: {0}")]
    NoRevealExpected(String),
    #[error("reveal_pile is for table dealing; the service turns the piles' cards itself")]
    TableDealingOnly,
    #[error("{action} is not possible now: {now}")]
    WrongPhase { action: &'static str, now: String },
    #[error("{0}")]
    NotYourTurn(String),
    #[error(
        "seat {0} has already made this choice; it stays face down until every seat has chosen"
    )]
    AlreadyChosen(usize),
    #[error("seat {0} must choose a location before its action card (two players, combined)")]
    LocationFirst(usize),
    #[error("seat {seat} cannot go to the {} with no card to play there: a player must be able to play a card at the location he picks (checks all spent, thieves in prison)", place.name())]
    NothingToPlayThere { seat: usize, place: Place },
    #[error("{card} can be played {}; seat {seat} is at the {}", card.allowed_text(), place.name())]
    CardNotAllowedHere {
        seat: usize,
        card: ActionCard,
        place: Place,
    },
    #[error("thief {thief} of seat {seat} is in prison and cannot be played until released")]
    ThiefInPrison { seat: usize, thief: u32 },
    #[error("seat {0} cannot exhibit: an exhibit needs a set of at least three collection cards in hand")]
    NoSetToExhibit(usize),
    #[error("check {0} has been spent: a check left in the cash register is out of the game")]
    CheckAlreadySpent(u32),
    #[error("{card} is not seat {seat}'s card")]
    NotYourCard { seat: usize, card: ActionCard },
    #[error("{0}")]
    NoSuchCard(String),
    #[error("there is no auction pile {0}: the piles are 0 and 1")]
    NoSuchPile(usize),
    #[error("auction pile {0} is empty: buy from the other pile")]
    PileEmpty(usize),
    #[error("{card} cannot be here: {place}")]
    CardElsewhere { card: Item, place: String },
    #[error("{0}")]
    CardNotInHand(String),
    #[error("{0} is listed twice")]
    DuplicateCard(Item),
    #[error("{0}")]
    NotASet(String),
    #[error("{0} also lies in another exhibit laid down this turn: a card cannot be in two places; one of the exhibits was recorded wrongly")]
    CardInTwoExhibits(Item),
    #[error("seat {0} has no exhibit on display at the castle")]
    NotExhibiting(usize),
    #[error("thief {thief} has already taken a card from seat {from}'s exhibit: one card from each exhibit")]
    AlreadyStolenFrom { thief: u32, from: usize },
    #[error("{card} is not in seat {from}'s exhibit (it shows {shows})")]
    CardNotInExhibit {
        card: Item,
        from: usize,
        shows: String,
    },
    #[error("{detail}")]
    NotBestSet { seat: usize, detail: String },
}

impl RuleError for BhocError {
    fn code(&self) -> &'static str {
        use BhocError::*;
        match self {
            PlayerCount(_) => "bad_player_count",
            InvalidConfig(_) => "invalid_config",
            MatchFinished => "match_finished",
            DealExpected => "deal_expected",
            AlreadyDealt => "already_dealt",
            TableActionOnly(_) => "table_action_only",
            SeatActionOnly(_) => "seat_action_only",
            NoSuchSeat { .. } => "no_such_seat",
            SeedMissing => "seed_missing",
            SeedNotTaken => "seed_not_taken",
            BadPileSizes { .. } => "bad_pile_sizes",
            RevealExpected(_) => "reveal_expected",
            NoRevealExpected(_) => "no_reveal_expected",
            TableDealingOnly => "table_dealing_only",
            WrongPhase { .. } => "wrong_phase",
            NotYourTurn(_) => "not_your_turn",
            AlreadyChosen(_) => "already_chosen",
            LocationFirst(_) => "location_first",
            NothingToPlayThere { .. } => "nothing_to_play_there",
            CardNotAllowedHere { .. } => "card_not_allowed_here",
            ThiefInPrison { .. } => "thief_in_prison",
            NoSetToExhibit(_) => "no_set_to_exhibit",
            CheckAlreadySpent(_) => "check_already_spent",
            NotYourCard { .. } => "not_your_card",
            NoSuchCard(_) => "no_such_card",
            NoSuchPile(_) => "no_such_pile",
            PileEmpty(_) => "pile_empty",
            CardElsewhere { .. } => "card_elsewhere",
            CardNotInHand(_) => "card_not_in_hand",
            DuplicateCard(_) => "duplicate_card",
            NotASet(_) => "not_a_set",
            CardInTwoExhibits(_) => "card_in_two_exhibits",
            NotExhibiting(_) => "not_exhibiting",
            AlreadyStolenFrom { .. } => "already_stolen_from",
            CardNotInExhibit { .. } => "card_not_in_exhibit",
            NotBestSet { .. } => "not_best_set",
        }
    }

    /// Service dealing: the best set names cards of the hidden hand; the location is the seat's
    /// sealed choice (the log shows it to nobody else before the reveal, the host included).
    fn public_message(&self) -> Option<String> {
        match self {
            BhocError::NotBestSet { seat, .. } => Some(format!(
                "every player shows his best set, and seat {seat} has a better one than this {}",
                crate::rules::holder_only(*seat)
            )),
            BhocError::CardNotAllowedHere { seat, card, .. } => Some(format!(
                "{card} can be played {}, and seat {seat}'s sealed location is not one of them (only seat {seat}'s own token is told its location)",
                card.allowed_text()
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_that_name_a_hidden_hand_or_a_sealed_location_have_a_public_message_without_it() {
        let best = BhocError::NotBestSet {
            seat: 2,
            detail: "every player shows his best set: seat 2 holds A1500, A1560, B1507, which is better than nothing".into(),
        };
        let public = best.public_message().unwrap();
        assert!(
            !public.contains("A1500") && !public.contains("B1507"),
            "{public}"
        );
        assert_eq!(best.code(), "not_best_set");
        let here = BhocError::CardNotAllowedHere {
            seat: 1,
            card: ActionCard::Check(8000),
            place: Place::Castle,
        };
        assert!(here.to_string().contains("castle"));
        let public = here.public_message().unwrap();
        assert!(!public.contains("castle"), "{public}");
        assert!(BhocError::NoSetToExhibit(1).public_message().is_none());
    }
}

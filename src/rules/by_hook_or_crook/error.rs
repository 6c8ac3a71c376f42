//! Why By Hook or Crook refused an action. Messages about a sealed choice speak only to (or for)
//! the seat that made it, and never name another seat's sealed choice.

use super::{
    actions::{ActionCard, Place},
    items::Item,
};
use crate::rules::{CardName, ProblemFields, RuleError};

/// An illegal action or option.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BhocError {
    /// A player count the game cannot seat, at creation (the count asked for).
    #[error(
        "By Hook or Crook is played by 3 to 5 players (2 with the two-player variant), not {0}"
    )]
    PlayerCount(usize),
    /// Options that do not read or cannot be played, at creation (why).
    #[error("config: {0}")]
    InvalidConfig(String),
    /// Any action once the match is over.
    #[error("{}", crate::rules::MATCH_FINISHED_DETAIL)]
    MatchFinished,
    /// An action before the table has recorded the deal.
    #[error("the collection cards are not dealt yet: the table records a deal first")]
    DealExpected,
    /// A second deal: the game has a single one.
    #[error("the collection cards were dealt at the start; the game has a single deal")]
    AlreadyDealt,
    /// A seat sent an action only the table records (the action's type).
    #[error("{0} is an action of the table (seat: null, host token)")]
    TableActionOnly(&'static str),
    /// The table sent a player's action (the action's type).
    #[error("{0} is a player's action; say which seat acts")]
    SeatActionOnly(&'static str),
    /// An action for a seat the match does not have.
    #[error("`seat` {seat} names no seat: this match has {n} seats (`seat` 0 to {max})", n = max + 1)]
    NoSuchSeat {
        /// The seat named.
        seat: usize,
        /// The highest seat of the match.
        max: usize,
    },
    /// A service deal without the service's shuffle seed.
    #[error("a service deal needs the service's shuffle seed")]
    SeedMissing,
    /// A seed sent with a deal in table dealing.
    #[error("in table dealing the cards are dealt at the table; no seed is taken")]
    SeedNotTaken,
    /// A deal whose `pile_sizes` do not add up to the cards left after dealing the hands.
    #[error("pile_sizes must add up to the {expected} cards left after dealing four to each player, not {got}")]
    BadPileSizes {
        /// The cards left after the deal.
        expected: u64,
        /// The sum of the sizes given.
        got: u64,
    },
    /// Table dealing: another action while an auction pile's face-up card is still to be
    /// recorded (the pile).
    #[error(
        "the table must first record the card turned face up on auction pile {0} (reveal_pile)"
    )]
    RevealExpected(usize),
    /// A `reveal_pile` when that pile waits for no face-up card (why not).
    #[error("no auction pile is waiting for its face-up card: {0}")]
    NoRevealExpected(String),
    /// A `reveal_pile` in service dealing, where the service turns the piles' cards itself.
    #[error("reveal_pile is for table dealing; the service turns the piles' cards itself")]
    TableDealingOnly,
    /// An action the current phase does not take.
    #[error("{action} is not possible now: {now}")]
    WrongPhase {
        /// The action's type.
        action: &'static str,
        /// What the game waits for now.
        now: String,
    },
    /// A seat acting out of turn.
    #[error("{message}")]
    NotYourTurn {
        /// The seat that acted.
        seat: usize,
        /// The one seat to act now, if one is.
        to_act: Option<usize>,
        /// Who acts now, in words.
        message: String,
    },
    /// A seat choosing again in a set of sealed choices it has already made its choice in
    /// (the seat).
    #[error(
        "seat {seat_1} has already made this choice; it stays face down until every seat has chosen",
        seat_1 = .0 + 1
    )]
    AlreadyChosen(usize),
    /// Two players, combined: an action card chosen before the seat's location (the seat).
    #[error("seat {seat_1} must choose a location before its action card (two players, combined)", seat_1 = .0 + 1)]
    LocationFirst(usize),
    /// A location where the seat has no action card it could play.
    #[error("seat {seat_1} cannot go to the {} with no card to play there: a player must be able to play a card at the location he picks (checks all spent, thieves in prison)", place.name(), seat_1 = seat + 1)]
    NothingToPlayThere {
        /// The seat choosing.
        seat: usize,
        /// The location it chose.
        place: Place,
    },
    /// An action card played at a location it cannot be played at.
    #[error("{card} can be played {}; seat {seat_1} is at the {}", card.allowed_text(), place.name(), seat_1 = seat + 1)]
    CardNotAllowedHere {
        /// The seat playing.
        seat: usize,
        /// The action card.
        card: ActionCard,
        /// The seat's location.
        place: Place,
        /// Whether the seat's location is still sealed (two players, combined: chosen with the
        /// card), so that the refusal tells it.
        sealed: bool,
    },
    /// A thief played while it is in prison.
    #[error("thief {thief} of seat {seat_1} is in prison and cannot be played until released", seat_1 = seat + 1)]
    ThiefInPrison {
        /// The seat owning the thief.
        seat: usize,
        /// The thief's number.
        thief: u32,
    },
    /// An exhibit card played by a seat without a set in hand (the seat).
    #[error("seat {seat_1} cannot exhibit: an exhibit needs a set of at least three collection cards in hand", seat_1 = .0 + 1)]
    NoSetToExhibit(usize),
    /// A check played that is already in the cash register (its value).
    #[error("check {0} has been spent: a check left in the cash register is out of the game")]
    CheckAlreadySpent(u32),
    /// An action card played by a seat that does not own it.
    #[error("{card} is not seat {seat_1}'s card", seat_1 = seat + 1)]
    NotYourCard {
        /// The seat playing.
        seat: usize,
        /// The action card.
        card: ActionCard,
    },
    /// A card, check or thief this match does not have.
    #[error("{message}")]
    NoSuchCard {
        /// The card named.
        card: CardName,
        /// Why it is not in the match, in words.
        message: String,
    },
    /// An auction pile other than 0 and 1 (the pile named).
    #[error("there is no auction pile {0}: the piles are 0 and 1")]
    NoSuchPile(usize),
    /// A purchase from an empty auction pile (the pile).
    #[error("auction pile {0} is empty: buy from the other pile")]
    PileEmpty(usize),
    /// A collection card named in an action while it is known to be somewhere else.
    #[error("{card} cannot be here: {place}")]
    CardElsewhere {
        /// The collection card.
        card: Item,
        /// Where it is known to be.
        place: String,
    },
    /// Collection cards the seat does not hold, or more than its hand can hold.
    #[error("{message}")]
    CardNotInHand {
        /// The seat showing them.
        seat: usize,
        /// The card, when one card is refused.
        card: Option<Item>,
        /// Which cards, and why, in words.
        message: String,
    },
    /// A collection card listed twice in one action.
    #[error("{0} is listed twice")]
    DuplicateCard(Item),
    /// Cards exhibited or shown that do not form a set (which).
    #[error("{0}")]
    NotASet(String),
    /// A collection card in two exhibits laid down in the same turn.
    #[error("{0} also lies in another exhibit laid down this turn: a card cannot be in two places; one of the exhibits was recorded wrongly")]
    CardInTwoExhibits(Item),
    /// A theft from a seat with no exhibit at the castle (that seat).
    #[error("seat {seat_1} has no exhibit on display at the castle", seat_1 = .0 + 1)]
    NotExhibiting(usize),
    /// A thief taking a second card from an exhibit it has already taken one from.
    #[error("thief {thief} has already taken a card from seat {from_1}'s exhibit: one card from each exhibit", from_1 = from + 1)]
    AlreadyStolenFrom {
        /// The thief's number.
        thief: u32,
        /// The seat whose exhibit it stole from.
        from: usize,
    },
    /// A theft of a card the exhibit does not show.
    #[error("{card} is not in seat {from_1}'s exhibit (it shows {shows})", from_1 = from + 1)]
    CardNotInExhibit {
        /// The card named.
        card: Item,
        /// The seat whose exhibit it is.
        from: usize,
        /// The cards the exhibit shows.
        shows: String,
    },
    /// A final exhibit weaker than the best set the seat holds.
    #[error("{detail}")]
    NotBestSet {
        /// The seat exhibiting.
        seat: usize,
        /// The message: the better set the seat holds.
        detail: String,
    },
    /// A tally outside score-only play, or after the deal (why).
    #[error("{0}")]
    TallyNotAllowed(&'static str),
    /// A tally without one position per seat (why).
    #[error("tally: {0}")]
    TallyShape(String),
    /// A position outside 0 to the furthest space a pawn can reach.
    #[error("seat {}: space {value} is outside 0 to {last}, where a pawn can stand at the game's end on this board (short of the pink spaces before the last turn, one turn's advance, +8 in the final exhibition)", seat + 1)]
    TallyRange {
        /// The seat (0-based; told 1-based).
        seat: usize,
        /// The space given.
        value: i64,
        /// The furthest space a pawn can reach.
        last: u32,
    },
    /// A tally with no pawn on a pink space: the game cannot have ended.
    #[error("no pawn is on a pink space (from space {pink_from} on): the game ends only after a pawn has entered one, so it cannot be over")]
    TallyNotOver {
        /// The first pink space.
        pink_from: u32,
    },
    /// A tiebreak missing for a tie on the furthest space, not listing exactly the tied seats,
    /// or given without a tie (why).
    #[error("tiebreak: {0}")]
    TallyTiebreak(String),
}

impl RuleError for BhocError {
    fn code(&self) -> &'static str {
        use BhocError::*;
        match self {
            PlayerCount(_) => "bad_player_count",
            InvalidConfig(_) => "invalid_config",
            MatchFinished => crate::rules::MATCH_FINISHED,
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
            NotYourTurn { .. } => "not_your_turn",
            AlreadyChosen(_) => "already_chosen",
            LocationFirst(_) => "location_first",
            NothingToPlayThere { .. } => "nothing_to_play_there",
            CardNotAllowedHere { .. } => "card_not_allowed_here",
            ThiefInPrison { .. } => "thief_in_prison",
            NoSetToExhibit(_) => "no_set_to_exhibit",
            CheckAlreadySpent(_) => "check_already_spent",
            NotYourCard { .. } => "not_your_card",
            NoSuchCard { .. } => "no_such_card",
            NoSuchPile(_) => "no_such_pile",
            PileEmpty(_) => "pile_empty",
            CardElsewhere { .. } => "card_elsewhere",
            CardNotInHand { .. } => "card_not_in_hand",
            DuplicateCard(_) => "duplicate_card",
            NotASet(_) => "not_a_set",
            CardInTwoExhibits(_) => "card_in_two_exhibits",
            NotExhibiting(_) => "not_exhibiting",
            AlreadyStolenFrom { .. } => "already_stolen_from",
            CardNotInExhibit { .. } => "card_not_in_exhibit",
            NotBestSet { .. } => "not_best_set",
            TallyNotAllowed(_) => "tally_not_allowed",
            TallyShape(_) => "tally_shape",
            TallyRange { .. } => "tally_range",
            TallyNotOver { .. } => "tally_not_over",
            TallyTiebreak(_) => "tally_tiebreak",
        }
    }

    /// Service dealing: the collection cards in the hand (a card not held, a better set, no set
    /// to exhibit), and a location still sealed (two players, combined), are the seat's secrets.
    /// The public facts of an action card (whose it is, spent, in prison) are judged first.
    fn hidden(&self) -> bool {
        match self {
            BhocError::CardNotInHand { .. }
            | BhocError::NotBestSet { .. }
            | BhocError::NoSetToExhibit(_) => true,
            BhocError::CardNotAllowedHere { sealed, .. } => *sealed,
            _ => false,
        }
    }

    /// The seat (the one acting, or the one whose exhibit a theft names), the card (a
    /// collection card, or an action card as `check:<value>`, `thief:<n>`), the location and
    /// the auction pile.
    fn fields(&self) -> ProblemFields {
        use BhocError::*;
        match self {
            BadPileSizes { expected, got } => ProblemFields::compare(*expected, *got),
            RevealExpected(pile) | NoSuchPile(pile) | PileEmpty(pile) => {
                ProblemFields::none().with_pile(*pile)
            }
            NotYourTurn {
                seat,
                to_act: Some(to_act),
                ..
            } => ProblemFields::turn(*to_act, *seat),
            NotYourTurn { seat, .. }
            | AlreadyChosen(seat)
            | LocationFirst(seat)
            | NoSetToExhibit(seat)
            | NotExhibiting(seat)
            | NotBestSet { seat, .. } => ProblemFields::seat(*seat),
            NothingToPlayThere { seat, place } => ProblemFields::seat(*seat).with_place(*place),
            CardNotAllowedHere {
                seat, card, place, ..
            } => ProblemFields::seat(*seat)
                .with_card(*card)
                .with_place(*place),
            ThiefInPrison { seat, thief } => {
                ProblemFields::seat(*seat).with_card(ActionCard::Thief(*thief))
            }
            CheckAlreadySpent(value) => ProblemFields::card(ActionCard::Check(*value)),
            NotYourCard { seat, card } => ProblemFields::seat(*seat).with_card(*card),
            NoSuchCard { card, .. } => ProblemFields::card(card.clone()),
            CardElsewhere { card, .. } => ProblemFields::card(*card),
            CardNotInHand { seat, card, .. } => {
                let fields = ProblemFields::seat(*seat);
                match card {
                    Some(card) => fields.with_card(*card),
                    None => fields,
                }
            }
            DuplicateCard(card) | CardInTwoExhibits(card) => ProblemFields::card(*card),
            AlreadyStolenFrom { thief, from } => {
                ProblemFields::seat(*from).with_card(ActionCard::Thief(*thief))
            }
            CardNotInExhibit { card, from, .. } => ProblemFields::seat(*from).with_card(*card),
            _ => ProblemFields::none(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_decided_by_the_hand_or_a_sealed_location_are_hidden_and_the_others_public() {
        let best = BhocError::NotBestSet {
            seat: 2,
            detail: "every player shows his best set: seat 2 holds A1500, A1560, B1507, which is better than nothing".into(),
        };
        assert_eq!((best.code(), best.hidden()), ("not_best_set", true));
        assert!(BhocError::NoSetToExhibit(1).hidden());
        assert!(BhocError::CardNotInHand {
            seat: 0,
            card: Some("A1500".parse().unwrap()),
            message: "seat 1 does not hold A1500".into()
        }
        .hidden());
        let here = |sealed| BhocError::CardNotAllowedHere {
            seat: 1,
            card: ActionCard::Check(8000),
            place: Place::Castle,
            sealed,
        };
        assert!(here(true).to_string().contains("castle"));
        assert!(
            here(true).hidden(),
            "a sealed location is the seat's secret"
        );
        assert!(!here(false).hidden(), "a revealed location is public");
        assert!(!BhocError::CheckAlreadySpent(8000).hidden());
        assert!(!BhocError::NotASet("A1500 is not a set".into()).hidden());
    }
}

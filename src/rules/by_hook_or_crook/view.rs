//! Views, the log as each viewer sees it, and the score sheet. Nothing sealed leaves here before
//! its reveal except to the seat that chose it.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::{
    actions::{Action, ActionCard, Place},
    items::{self, Item},
    ByHookOrCrook, FinalRecord, Phase,
};
use crate::rules::{
    cards::Commitment,
    sheet::{RoundScore, ScoreSheet, Unit},
    to_json, Actor, Dealing, SealedAction,
};

// ----- the models: what the views, outcomes and score sheet are built of ----------------------

/// Where a By Hook or Crook match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = ByHookOrCrookPhase)]
pub enum ViewPhase {
    /// Table dealing: the table records an auction pile's face-up card (`reveal_pile`).
    RevealPile,
    /// Before the deal.
    AwaitingDeal,
    /// The seats choose their locations.
    Locations,
    /// The seats choose their action cards.
    Cards,
    /// The auction's winner picks a pile.
    Buy,
    /// The exhibitors lay down their sets.
    Exhibits,
    /// The thieves' owners steal.
    Steals,
    /// Every seat shows its best set.
    FinalExhibition,
    /// The match is over.
    Finished,
}

/// An auction pile as the table sees it.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookPile {
    /// The face-up top card; null when the pile is empty or (table dealing) not recorded yet.
    #[schema(value_type = Option<String>, required = true)]
    pub(super) top: Option<Item>,
    /// Cards in the pile, face-up top included.
    pub(super) size: usize,
}

/// A thief in a prison cell.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookPrisoner {
    /// The thief's number.
    pub(super) thief: u32,
    /// The seat that owns the thief.
    #[schema(required = true)]
    pub(super) seat: Option<usize>,
}

/// The castle of the leading pawn: its rewards for the best and second exhibits.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookLeaderCastle {
    /// The castle, from 1.
    pub(super) castle: usize,
    /// Spaces for the best exhibit.
    pub(super) upper: u32,
    /// Spaces for the second exhibit.
    pub(super) lower: u32,
}

/// A check played at the auction.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookBid {
    /// Who played it.
    pub(super) seat: usize,
    /// Its value.
    pub(super) check: u32,
}

/// A thief played at a location.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookThiefPlayed {
    /// Who played it.
    pub(super) seat: usize,
    /// Its number.
    pub(super) thief: u32,
}

/// A purchase: the pile and the card taken from it.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookPurchase {
    /// The auction pile, 0 or 1.
    pub(super) pile: usize,
    /// The card bought.
    #[schema(value_type = String)]
    pub(super) card: Item,
}

/// What the auction did this turn.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookAuction {
    /// The checks played.
    pub(super) checks: Vec<ByHookOrCrookBid>,
    /// The thieves played at the auction house.
    pub(super) thieves: Vec<ByHookOrCrookThiefPlayed>,
    /// The winning seat; null when no check was played.
    #[schema(required = true)]
    pub(super) winner: Option<usize>,
    /// The winning check; null when no check was played.
    #[schema(required = true)]
    pub(super) check: Option<u32>,
    /// What the winner bought; null until (or unless) bought.
    #[schema(required = true)]
    pub(super) bought: Option<ByHookOrCrookPurchase>,
    /// The seat whose thief took the check; null when it went to the register (or none).
    #[schema(required = true)]
    pub(super) check_stolen_by: Option<usize>,
    /// The auction's result, in words (`won`, ...).
    pub(super) result: &'static str,
}

/// The most bytes [`ByHookOrCrookOutcome`] may take on a 64-bit target (checked when compiling).
const OUTCOME_BYTES: usize = 112;
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<ByHookOrCrookOutcome>() <= OUTCOME_BYTES);

/// An exhibit laid down at the castle.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookExhibitShown {
    /// The exhibitor.
    pub(super) seat: usize,
    /// The set shown.
    #[schema(value_type = Option<Vec<String>>, required = true)]
    pub(super) cards: Option<Vec<Item>>,
}

/// An exhibit on the table: the set shown and what is still on display.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookExhibitOnTable {
    /// The exhibitor.
    pub(super) seat: usize,
    /// The set shown.
    #[schema(value_type = Vec<String>)]
    pub(super) cards: Vec<Item>,
    /// The cards still on display (thieves take from it); null once gone home.
    #[schema(value_type = Option<Vec<String>>, required = true)]
    pub(super) on_display: Option<Vec<Item>>,
}

/// The thief stealing now.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookStealNow {
    /// The thief's number.
    pub(super) thief: u32,
    /// The seat that owns it (and acts).
    pub(super) seat: usize,
    /// The exhibits it may still take from.
    pub(super) from: Vec<usize>,
}

/// A theft from an exhibit.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookTheft {
    /// The thief's number.
    pub(super) thief: u32,
    /// The seat that owns the thief.
    pub(super) seat: usize,
    /// The exhibitor robbed.
    pub(super) from: usize,
    /// The card taken.
    #[schema(value_type = String)]
    pub(super) card: Item,
}

/// A successful detective's advance.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookDetectiveMove {
    /// The detective's seat.
    pub(super) seat: usize,
    /// Its standing, counted from the front (leader 1).
    pub(super) standing: u32,
    /// Spaces advanced (the standing).
    pub(super) spaces: u32,
}

/// A successful detective (`detail.detectives`).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookDetective {
    /// The detective's seat.
    pub(super) seat: usize,
    /// Its standing, counted from the front (leader 1): the spaces it advanced.
    pub(super) standing: u32,
}

/// A pawn's advance.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookAdvance {
    /// The seat.
    pub(super) seat: usize,
    /// Spaces advanced.
    pub(super) spaces: u32,
}

/// A finished turn in full (`table.last_turn`).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookTurnSummary {
    /// The turn, from 1.
    pub(super) turn: u32,
    /// Each seat's location.
    pub(super) locations: Vec<Option<Place>>,
    /// Each seat's action card.
    #[schema(value_type = Vec<Option<String>>)]
    pub(super) cards: Vec<Option<ActionCard>>,
    /// What the auction did; null when nobody went there.
    #[schema(required = true)]
    pub(super) auction: Option<ByHookOrCrookAuction>,
    /// The exhibits shown.
    pub(super) exhibits: Vec<ByHookOrCrookExhibitShown>,
    /// The exhibitors, best first.
    pub(super) ranking: Vec<usize>,
    /// The castle whose rewards applied (from 1); null without exhibits.
    #[schema(required = true)]
    pub(super) castle: Option<usize>,
    /// The thefts.
    pub(super) thefts: Vec<ByHookOrCrookTheft>,
    /// The thieves caught.
    pub(super) caught: Vec<u32>,
    /// The thieves released from prison.
    pub(super) released: Vec<u32>,
    /// The successful detectives.
    pub(super) detectives: Vec<ByHookOrCrookDetectiveMove>,
    /// Spaces each seat advanced.
    pub(super) advances: Vec<u32>,
}

/// The end of the game (`table.final`).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookFinal {
    /// Each seat's final exhibit (`[]` without a set).
    #[schema(value_type = Vec<Vec<String>>)]
    pub(super) exhibits: Vec<Vec<Item>>,
    /// The exhibitors, best first.
    pub(super) ranking: Vec<usize>,
    /// Spaces each seat advanced.
    pub(super) advances: Vec<u32>,
}

/// By Hook or Crook's public state (`table` in the match view). What is still sealed is null.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookTable {
    /// Where the match stands.
    pub(super) phase: ViewPhase,
    /// The turn, from 1 (0 before the deal).
    pub(super) turn: u32,
    /// Each seat's pawn position.
    pub(super) positions: Vec<u32>,
    /// The two auction piles.
    pub(super) piles: Vec<ByHookOrCrookPile>,
    /// The prison's cells, cell 1 first (null: empty).
    pub(super) prison: Vec<Option<ByHookOrCrookPrisoner>>,
    /// Checks in the cash register (out of the game).
    pub(super) register: Vec<u32>,
    /// Checks each seat holds.
    pub(super) checks: Vec<BTreeSet<u32>>,
    /// Each seat's thieves out of prison.
    pub(super) thieves: Vec<Vec<u32>>,
    /// Cards each seat holds.
    pub(super) hand_sizes: Vec<usize>,
    /// The cards every player has seen go into each hand.
    #[schema(value_type = Vec<Vec<String>>)]
    pub(super) known_cards: Vec<Vec<Item>>,
    /// The castle of the leading pawn.
    pub(super) leader_castle: ByHookOrCrookLeaderCastle,
    /// The first pink space (a pawn there ends the game).
    pub(super) pink_from: u32,
    /// The furthest space a pawn can stand on at the game's end (the bound of a score-only
    /// `tally`): the last space before the pink ones, one turn's biggest advance, and the final
    /// exhibition's 8.
    pub(super) last_space: u32,
    /// Whether a pawn has entered a pink space.
    pub(super) end_triggered: bool,
    /// The seats expected to act.
    pub(super) waiting_for: Vec<usize>,
    /// Each seat's location this turn; null while sealed (or between turns).
    pub(super) locations: Vec<Option<Place>>,
    /// Each seat's action card this turn; null while sealed (or between turns).
    #[schema(value_type = Vec<Option<String>>)]
    pub(super) cards: Vec<Option<ActionCard>>,
    /// What the auction did this turn; null before it.
    #[schema(required = true)]
    pub(super) auction: Option<ByHookOrCrookAuction>,
    /// The seats exhibiting this turn (once the cards are public).
    pub(super) exhibitors: Vec<usize>,
    /// The exhibits on the table.
    pub(super) exhibits: Vec<ByHookOrCrookExhibitOnTable>,
    /// The exhibitors, best first.
    pub(super) ranking: Vec<usize>,
    /// The thief stealing now; null otherwise.
    #[schema(required = true)]
    pub(super) steal: Option<ByHookOrCrookStealNow>,
    /// This turn's thefts.
    pub(super) thefts: Vec<ByHookOrCrookTheft>,
    /// The last finished turn; null before the first.
    #[schema(required = true)]
    pub(super) last_turn: Option<ByHookOrCrookTurnSummary>,
    /// The end of the game; null before it.
    #[schema(required = true)]
    pub(super) r#final: Option<ByHookOrCrookFinal>,
    /// The winning seats, once finished.
    pub(super) winners: Vec<usize>,
    /// The winner's lead over the runner-up, once finished; null before.
    #[schema(required = true)]
    pub(super) margin: Option<i64>,
    /// Who deals.
    pub(super) dealing: Dealing,
    /// Service dealing: SHA-256 (hex) of the shuffle seed; null otherwise.
    #[schema(value_type = Option<String>, required = true)]
    pub(super) commitment: Option<Commitment>,
}

/// A By Hook or Crook seat's private state (`you` in the match view).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookSeat {
    /// The seat.
    pub(super) seat: usize,
    /// The cards the seat holds (table dealing: those known so far).
    #[schema(value_type = Vec<String>)]
    pub(super) hand: Vec<Item>,
    /// How many cards the seat holds.
    pub(super) hand_size: usize,
    /// Cards of the hand the service does not know (table dealing).
    pub(super) unknown_cards: usize,
    /// The best set in the hand; null without one.
    #[schema(value_type = Option<Vec<String>>, required = true)]
    pub(super) best_set: Option<Vec<Item>>,
    /// Checks the seat holds.
    pub(super) checks: BTreeSet<u32>,
    /// The seat's thieves out of prison.
    pub(super) thieves: Vec<u32>,
    /// The seat's pawn position.
    pub(super) position: u32,
    /// The seat's location this turn; null before it chose.
    #[schema(required = true)]
    pub(super) location: Option<Place>,
    /// The seat's action card this turn; null before it chose.
    #[schema(value_type = Option<String>, required = true)]
    pub(super) card: Option<ActionCard>,
    /// The seat's exhibit this turn; null otherwise.
    #[schema(value_type = Option<Vec<String>>, required = true)]
    pub(super) exhibit: Option<Vec<Item>>,
    /// The seat's final exhibit; null otherwise.
    #[schema(value_type = Option<Vec<String>>, required = true)]
    pub(super) final_exhibit: Option<Vec<Item>>,
    /// Where the seat can play an action card this turn.
    pub(super) can_go: Vec<Place>,
    /// The action cards the seat may choose at its location; null when not choosing.
    #[schema(value_type = Option<Vec<String>>, required = true)]
    pub(super) playable: Option<Vec<ActionCard>>,
}

/// A sealed choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = ByHookOrCrookChoice)]
pub enum Choice {
    /// A location.
    Location,
    /// An action card.
    Card,
    /// An exhibit.
    Exhibit,
    /// A final exhibit.
    FinalExhibit,
}

/// Seats as a bit mask (bit `s` for seat `s`), serialised as the JSON list of their numbers in
/// seat order (the spec's `Vec<usize>`). A sealed choice's `waiting_for` is one, so that
/// recording the choice builds no list of seats and moves four bytes, not an eight-entry list,
/// through its answer (issue 25, item 3: 1.4 % fewer instructions a game; docs/performance.md
/// "Stop 60").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeatMask(pub u32);

impl SeatMask {
    /// The seats, in seat order.
    pub fn seats(self) -> impl Iterator<Item = usize> {
        let mut mask = self.0;
        std::iter::from_fn(move || {
            (mask != 0).then(|| {
                let s = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                s
            })
        })
    }
}

impl Serialize for SeatMask {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.seats())
    }
}

/// What a By Hook or Crook action produced (`outcome` in the log).
///
/// Its per-seat lists serialise as the JSON lists the spec names (`Vec`s there), but most are
/// held inline (issue 25, item 3): the lists of the outcomes of every turn (locations and cards
/// revealed, the auction's thieves, the exhibitors, the turn's advances and positions) as
/// [`super::PerSeat`], the rewards' lists with the few entries they mostly have, so that a turn
/// allocates for its outcomes only when they grow past that. The rare big outcomes keep `Vec`s
/// (the detectives' moves a boxed slice, the deal's commitment boxed), so that the whole enum
/// stays within 112 bytes ([`OUTCOME_BYTES`]) and an action's answer (the outcome list and its
/// `Result`, 128 bytes) is moved by a few vector moves, not by a call to `memcpy`: measured in
/// docs/performance.md ("Stop 59").
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ByHookOrCrookOutcome {
    /// The game was dealt.
    #[schema(title = "ByHookOrCrookDealt")]
    Dealt {
        /// Cards in each hand.
        hand_sizes: Vec<usize>,
        /// Each pile's face-up top; null in table dealing until recorded.
        #[schema(value_type = Vec<Option<String>>)]
        piles: Vec<Option<Item>>,
        /// Cards in each pile.
        pile_sizes: Vec<usize>,
        /// Service dealing: SHA-256 (hex) of the shuffle seed; null in table dealing.
        #[schema(value_type = Option<String>, required = true)]
        commitment: Option<Box<Commitment>>,
    },
    /// A card was turned face up on an auction pile.
    #[schema(title = "ByHookOrCrookPileTurned")]
    PileTurned {
        /// The pile.
        pile: usize,
        /// The card.
        #[schema(value_type = String)]
        card: Item,
    },
    /// An auction pile is empty.
    #[schema(title = "ByHookOrCrookPileEmpty")]
    PileEmpty {
        /// The pile.
        pile: usize,
    },
    /// Two players, `alternate`: a location chosen openly.
    #[schema(title = "ByHookOrCrookLocationChosen")]
    Location {
        /// The seat.
        seat: usize,
        /// The location.
        place: Place,
    },
    /// A sealed choice was recorded.
    #[schema(title = "ByHookOrCrookSealed")]
    Sealed {
        /// The seat.
        seat: usize,
        /// What it chose.
        choice: Choice,
        /// The seats still to choose.
        // A bit mask (the same JSON list): recording a sealed choice builds no list.
        #[schema(value_type = Vec<usize>)]
        waiting_for: SeatMask,
    },
    /// Every location is in.
    #[schema(title = "ByHookOrCrookLocationsRevealed")]
    LocationsRevealed {
        /// The turn.
        turn: u32,
        /// Each seat's location.
        #[schema(value_type = Vec<Option<Place>>)]
        locations: super::PerSeat<Option<Place>>,
    },
    /// Every action card is in.
    #[schema(title = "ByHookOrCrookCardsRevealed")]
    CardsRevealed {
        /// The turn.
        turn: u32,
        /// Each seat's location.
        #[schema(value_type = Vec<Option<Place>>)]
        locations: super::PerSeat<Option<Place>>,
        /// Each seat's action card.
        #[schema(value_type = Vec<Option<String>>)]
        cards: super::PerSeat<Option<ActionCard>>,
    },
    /// The auction was won: the winner picks a pile.
    #[schema(title = "ByHookOrCrookAuctionWon")]
    AuctionWon {
        /// The winner.
        seat: usize,
        /// The winning check.
        check: u32,
        /// The thieves at the auction house.
        #[schema(value_type = Vec<u32>)]
        thieves: super::PerSeat<u32>,
    },
    /// The auction did nothing.
    #[schema(title = "ByHookOrCrookAuctionVoid")]
    Auction {
        /// Why, in words.
        result: &'static str,
        /// The checks returned to their owners.
        #[schema(value_type = Vec<u32>)]
        checks_returned: super::PerSeat<u32>,
    },
    /// The winner bought a card.
    #[schema(title = "ByHookOrCrookBought")]
    Bought {
        /// The buyer.
        seat: usize,
        /// The pile.
        pile: usize,
        /// The card.
        #[schema(value_type = String)]
        card: Item,
        /// The check paid.
        check: u32,
        /// The seat whose thief took the check; null when it went to the register.
        #[schema(required = true)]
        check_stolen_by: Option<usize>,
        /// The thieves at the auction house.
        #[schema(value_type = Vec<u32>)]
        thieves: super::PerSeat<u32>,
    },
    /// The exhibitors lay down their sets.
    #[schema(title = "ByHookOrCrookExhibitsExpected")]
    ExhibitsExpected {
        /// The exhibitors.
        #[schema(value_type = Vec<usize>)]
        exhibitors: super::PerSeat<usize>,
        /// The thieves at the castle.
        #[schema(value_type = Vec<u32>)]
        thieves: super::PerSeat<u32>,
    },
    /// Every exhibit is in: the ranking and the rewards.
    #[schema(title = "ByHookOrCrookExhibitsRevealed")]
    ExhibitsRevealed {
        /// The exhibits.
        exhibits: Vec<ByHookOrCrookExhibitShown>,
        /// The exhibitors, best first.
        #[schema(value_type = Vec<usize>)]
        ranking: smallvec::SmallVec<[usize; 2]>,
        /// The castle whose rewards apply, from 1.
        castle: usize,
        /// The rewards.
        #[schema(value_type = Vec<ByHookOrCrookAdvance>)]
        advances: smallvec::SmallVec<[ByHookOrCrookAdvance; 1]>,
        /// Each seat's pawn position after them.
        #[schema(value_type = Vec<u32>)]
        positions: smallvec::SmallVec<[u32; 4]>,
    },
    /// A thief stole a card from an exhibit.
    #[schema(title = "ByHookOrCrookStolen")]
    Stolen {
        /// The thief's number.
        thief: u32,
        /// The seat that owns the thief.
        seat: usize,
        /// The exhibitor robbed.
        from: usize,
        /// The card.
        #[schema(value_type = String)]
        card: Item,
    },
    /// Detectives caught the thieves at the castle.
    #[schema(title = "ByHookOrCrookThievesCaught")]
    ThievesCaught {
        /// The thieves caught.
        thieves: Vec<u32>,
        /// The thieves pushed out of prison.
        released: Vec<u32>,
        /// The detectives' advances.
        #[schema(value_type = Vec<ByHookOrCrookDetectiveMove>)]
        detectives: Box<[ByHookOrCrookDetectiveMove]>,
        /// The prison's cells, cell 1 first.
        prison: Vec<u32>,
        /// Each seat's pawn position.
        positions: Vec<u32>,
    },
    /// A turn ended.
    #[schema(title = "ByHookOrCrookTurnOver")]
    TurnOver {
        /// The turn.
        turn: u32,
        /// Spaces each seat advanced.
        #[schema(value_type = Vec<u32>)]
        advances: super::PerSeat<u32>,
        /// Each seat's pawn position.
        #[schema(value_type = Vec<u32>)]
        positions: super::PerSeat<u32>,
    },
    /// A pawn entered a pink space: every seat shows its best set.
    #[schema(title = "ByHookOrCrookFinalExhibitionExpected")]
    FinalExhibitionExpected {
        /// Why, in words.
        reason: &'static str,
    },
    /// The final exhibition.
    #[schema(title = "ByHookOrCrookFinalExhibition")]
    FinalExhibition {
        /// Each seat's final exhibit.
        #[schema(value_type = Vec<Vec<String>>)]
        exhibits: Vec<Vec<Item>>,
        /// The exhibitors, best first.
        ranking: Vec<usize>,
        /// The rewards.
        advances: Vec<ByHookOrCrookAdvance>,
        /// Each seat's pawn position.
        positions: Vec<u32>,
    },
    /// Score-only play: the table entered the whole game's result.
    #[schema(title = "ByHookOrCrookTallied")]
    Tallied {
        /// Each seat's pawn space after the final exhibition.
        positions: Vec<u32>,
        /// The seats tied on the furthest space, winner first (`[]` without a tie).
        tiebreak: Vec<usize>,
    },
    /// The match is over.
    #[schema(title = "ByHookOrCrookMatchFinished")]
    MatchFinished {
        /// The winning seats.
        winners: Vec<usize>,
        /// The winner's lead over the runner-up.
        margin: i64,
    },
}

/// The raw figures of a finished turn (`detail` of a score sheet round).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookTurnDetail {
    /// The exhibits shown.
    pub(super) exhibits: Vec<ByHookOrCrookExhibitShown>,
    /// The exhibitors, best first.
    pub(super) ranking: Vec<usize>,
    /// The castle whose rewards applied (from 1); null without exhibits.
    #[schema(required = true)]
    pub(super) castle: Option<usize>,
    /// The successful detectives.
    pub(super) detectives: Vec<ByHookOrCrookDetective>,
    /// The thieves caught.
    pub(super) caught: Vec<u32>,
}

/// The raw figures of the final exhibition (`detail` of the sheet's last round).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookFinalDetail {
    /// Each seat's final exhibit (`[]` without a set).
    #[schema(value_type = Vec<Vec<String>>)]
    pub(super) exhibits: Vec<Vec<Item>>,
    /// The exhibitors, best first.
    pub(super) ranking: Vec<usize>,
}

/// The raw figures of a game entered by a table `tally` (score-only play; the sheet's one
/// round): what was exhibited is not known.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ByHookOrCrookTallyDetail {
    /// Always `true`: the game was tallied, not played.
    pub(super) tallied: bool,
    /// The seats tied on the furthest space, winner first (`[]` without a tie).
    pub(super) tiebreak: Vec<usize>,
}

/// The raw figures of a By Hook or Crook score sheet round: a turn, the final exhibition, or a
/// tallied game.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(untagged)]
pub enum ByHookOrCrookRoundDetail {
    /// A turn.
    Turn(ByHookOrCrookTurnDetail),
    /// The final exhibition.
    Final(ByHookOrCrookFinalDetail),
    /// A game entered by a table `tally` (score-only play).
    Tally(ByHookOrCrookTallyDetail),
}

fn sorted(cards: impl IntoIterator<Item = Item>) -> Vec<Item> {
    let mut v: Vec<Item> = cards.into_iter().collect();
    v.sort();
    v
}

impl ByHookOrCrook {
    fn view_phase(&self) -> ViewPhase {
        if self.pending_reveal().is_some() {
            return ViewPhase::RevealPile;
        }
        match self.phase {
            Phase::AwaitingDeal => ViewPhase::AwaitingDeal,
            Phase::Locations => ViewPhase::Locations,
            Phase::Cards => ViewPhase::Cards,
            Phase::Buy(_) => ViewPhase::Buy,
            Phase::Exhibits => ViewPhase::Exhibits,
            Phase::Steals => ViewPhase::Steals,
            Phase::FinalExhibition => ViewPhase::FinalExhibition,
            Phase::Finished => ViewPhase::Finished,
        }
    }

    pub(super) fn public_view(&self) -> ByHookOrCrookTable {
        let n = self.players;
        let t = &self.turn;
        let alternate_open = self.players == 2
            && self.config.two_player == super::TwoPlayer::Alternate
            && self.phase == Phase::Locations;
        let locations: Vec<Option<Place>> = if t.locations_public || alternate_open {
            t.locations.clone()
        } else {
            vec![None; n]
        };
        let cards = if t.cards_public {
            t.cards.clone()
        } else {
            vec![None; n]
        };
        let mut prison: Vec<Option<ByHookOrCrookPrisoner>> = self
            .prison
            .iter()
            .map(|&thief| {
                Some(ByHookOrCrookPrisoner {
                    thief,
                    seat: self.thief_owner(thief),
                })
            })
            .collect();
        prison.resize(n, None);
        let piles: Vec<ByHookOrCrookPile> = self
            .piles
            .iter()
            .map(|p| ByHookOrCrookPile {
                top: p.top,
                size: p.size,
            })
            .collect();
        let lead = self.positions.iter().copied().max().unwrap_or(0);
        let castle = self.config.board.castle_at(lead);
        let c = self.config.board.castles[castle];
        let exhibits: Vec<ByHookOrCrookExhibitOnTable> = (0..n)
            .filter_map(|s| {
                t.shown
                    .get(s)
                    .and_then(|x| x.as_ref())
                    .map(|shown| ByHookOrCrookExhibitOnTable {
                        seat: s,
                        cards: shown.clone(),
                        on_display: t
                            .display
                            .get(s)
                            .and_then(|d| d.as_ref())
                            .map(|d| sorted(d.iter().copied())),
                    })
            })
            .collect();
        let exhibitors: Vec<usize> = if t.cards_public {
            (0..n)
                .filter(|&s| {
                    t.locations[s] == Some(Place::Castle)
                        && t.cards[s] == Some(super::ActionCard::Exhibit)
                })
                .collect()
        } else {
            vec![]
        };
        let steal = match (self.phase, t.steal_queue.first()) {
            (Phase::Steals, Some(&(thief, seat))) => Some(ByHookOrCrookStealNow {
                thief,
                seat,
                from: self.owed_exhibits(),
            }),
            _ => None,
        };
        let auction = t.auction.as_ref().map(super::AuctionResult::view);
        let thefts: Vec<ByHookOrCrookTheft> = t.thefts.iter().map(super::Theft::view).collect();
        // A tallied game (score-only play) has no final exhibition to show.
        let final_view = self
            .final_record
            .as_ref()
            .filter(|f| f.tiebreak.is_none())
            .map(|f| ByHookOrCrookFinal {
                exhibits: f.shown.clone(),
                ranking: f.ranking.clone(),
                advances: f.advances.clone(),
            });
        let (winners, margin) = match &self.final_record {
            Some(f) => (f.winners.clone(), Some(f.margin)),
            None => (vec![], None),
        };
        let in_turn = !matches!(
            self.phase,
            Phase::AwaitingDeal | Phase::FinalExhibition | Phase::Finished
        );
        ByHookOrCrookTable {
            phase: self.view_phase(),
            turn: if self.phase == Phase::AwaitingDeal {
                0
            } else {
                t.number
            },
            positions: self.positions.clone(),
            piles,
            prison,
            register: self.register.clone(),
            checks: self.checks.clone(),
            thieves: (0..n).map(|s| self.free_thieves(s)).collect(),
            hand_sizes: self.hand_sizes.clone(),
            known_cards: self
                .public
                .iter()
                .map(|h| sorted(h.iter().copied()))
                .collect(),
            leader_castle: ByHookOrCrookLeaderCastle {
                castle: castle + 1,
                upper: c.upper,
                lower: c.lower,
            },
            pink_from: self.config.board.pink_from,
            last_space: self.config.board.last_space(n),
            end_triggered: self.end_triggered,
            waiting_for: self.expected().seats.into_vec(),
            locations: if in_turn { locations } else { vec![None; n] },
            cards: if in_turn { cards } else { vec![None; n] },
            auction,
            exhibitors,
            exhibits,
            ranking: t.ranking.to_vec(),
            steal,
            thefts,
            last_turn: self.records.last().map(|r| r.summary()),
            r#final: final_view,
            winners,
            margin,
            dealing: self.dealing,
            commitment: self.commitment,
        }
    }

    pub(super) fn private_view(&self, seat: usize) -> Option<ByHookOrCrookSeat> {
        if seat >= self.players {
            return None;
        }
        let t = &self.turn;
        let hand = sorted(self.hands[seat].iter().copied());
        let best = items::best_set(&self.hands[seat]);
        let can_go: Vec<Place> = if self.phase == Phase::AwaitingDeal {
            vec![]
        } else {
            [Place::Castle, Place::Auction]
                .into_iter()
                .filter(|&p| self.can_play_at(seat, p))
                .collect()
        };
        let location = t.locations.get(seat).copied().flatten();
        let playable = match (self.phase, location) {
            (Phase::Locations | Phase::Cards, Some(place)) => {
                Some(self.playable_cards(seat, place))
            }
            _ => None,
        };
        Some(ByHookOrCrookSeat {
            seat,
            hand,
            hand_size: self.hand_sizes[seat],
            unknown_cards: self.hand_sizes[seat].saturating_sub(self.hands[seat].len()),
            best_set: best,
            checks: self.checks[seat].clone(),
            thieves: self.free_thieves(seat),
            position: self.positions[seat],
            location,
            card: t.cards.get(seat).copied().flatten(),
            exhibit: t.exhibits.get(seat).cloned().flatten(),
            final_exhibit: self.final_shown.get(seat).cloned().flatten(),
            can_go,
            playable,
        })
    }

    pub(super) fn render(
        &self,
        index: usize,
        action: &Action,
        actor: Actor,
        viewer: Option<usize>,
    ) -> Value {
        if let Actor::Seat(s) = actor {
            if viewer != Some(s) && self.hidden.contains(&(index, s)) {
                return SealedAction::of(action.type_name());
            }
        }
        serde_json::to_value(action).unwrap_or(Value::Null)
    }

    pub(super) fn sheet(&self) -> ScoreSheet {
        let mut rounds: Vec<RoundScore> = self
            .records
            .iter()
            .map(|r| RoundScore {
                round: r.number,
                label: format!("Turn {}", r.number),
                multiplier: 1,
                points: r.advances().iter().map(|&a| a as i64).collect(),
                detail: to_json(&ByHookOrCrookRoundDetail::Turn(r.detail())),
            })
            .collect();
        if let Some(FinalRecord {
            tiebreak: Some(tiebreak),
            ..
        }) = self.final_record.as_deref()
        {
            // Score-only play: the whole game in one line, each pawn's space from the club room.
            rounds.push(RoundScore {
                round: 1,
                label: "Final positions".into(),
                multiplier: 1,
                points: self.positions.iter().map(|&p| i64::from(p)).collect(),
                detail: to_json(&ByHookOrCrookRoundDetail::Tally(ByHookOrCrookTallyDetail {
                    tallied: true,
                    tiebreak: tiebreak.clone(),
                })),
            });
        } else if let Some(f) = &self.final_record {
            rounds.push(RoundScore {
                round: self.records.len() as u32 + 1,
                label: "Final exhibition".into(),
                multiplier: 1,
                points: f.advances.iter().map(|&a| a as i64).collect(),
                detail: to_json(&ByHookOrCrookRoundDetail::Final(ByHookOrCrookFinalDetail {
                    exhibits: f.shown.clone(),
                    ranking: f.ranking.clone(),
                })),
            });
        }
        let finished = self.phase == Phase::Finished;
        // The sheet holds finished turns only; `table.positions` shows the pawns mid-turn.
        let totals: Vec<i64> = (0..self.players)
            .map(|s| rounds.iter().map(|r| r.points[s]).sum())
            .collect();
        let (winners, margin) = match &self.final_record {
            Some(f) => (f.winners.clone(), Some(f.margin)),
            None => (vec![], None),
        };
        ScoreSheet {
            game: "",
            unit: Unit::Seat,
            sides: None,
            rounds,
            totals,
            finished,
            winners,
            margin,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mask of seats is written as the list of its seats in seat order, the list the spec
    /// names: a sealed choice's `waiting_for` reads as it did when it was a list.
    #[test]
    fn a_seat_mask_is_written_as_its_seats_in_order() {
        let sealed = ByHookOrCrookOutcome::Sealed {
            seat: 0,
            choice: Choice::Location,
            waiting_for: SeatMask(0b10110),
        };
        assert_eq!(
            serde_json::to_value(&sealed).unwrap(),
            serde_json::json!({"type": "sealed", "seat": 0, "choice": "location", "waiting_for": [1, 2, 4]})
        );
        assert_eq!(
            serde_json::to_value(SeatMask(0)).unwrap(),
            serde_json::json!([])
        );
        assert_eq!(SeatMask(1 << 4 | 1).seats().collect::<Vec<_>>(), [0, 4]);
    }
}

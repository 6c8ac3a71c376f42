//! Members Only's options, actions and refusals.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::super::RuleError;
use super::*;

/// A bet: one piece on one vacant space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = MembersOnlyBet)]
pub struct Bet {
    /// The category bet on.
    #[schema(example = "umbrella")]
    pub category: Category,
    /// The space: `le1`..`le4` ("1 or less".."4 or less"), `ge5`..`ge8` ("5 or more".."8 or more").
    #[schema(example = "ge5")]
    pub space: Space,
    /// Which of the player's pieces: one of the 4 singles or the double.
    #[schema(example = "single")]
    pub piece: Piece,
}

/// Members Only's match options.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = MembersOnlyConfig)]
pub struct MembersOnlyConfig {
    // Rule: docs/rules.md#members-only-heat.
    /// The seat that begins heat 1 (RULES.md: 0). The starter of a heat deals the next one and
    /// the player on his left begins it, so the dealer of a heat is the seat right of its starter.
    #[schema(minimum = 0, maximum = 4, example = 0)]
    pub first_player: usize,
}

/// One action of Members Only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = MembersOnlyAction)]
// Each variant's `title` names it in the spec, hence in generated clients (`MembersOnlyPlay`, ...):
// stable names whatever the variants' order; tests/openapi.rs checks every variant has one.
pub enum Action {
    /// Table action that starts a heat: in table dealing it records the two cards turned face up;
    /// in service dealing the service shuffles, deals and turns them (send no `face_up`).
    #[schema(title = "MembersOnlyDeal")]
    Deal {
        /// Table dealing: the two cards turned face up into the layout. Omit in service dealing.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[schema(max_items = 2, example = json!(["umbrella", "crown:no"]))]
        face_up: Vec<Card>,
    },
    /// A seat's turn while betting is open: an optional bet, then the reveals (none in round 1 of
    /// a heat, exactly two in every later round).
    #[schema(title = "MembersOnlyTurn")]
    Turn {
        /// The piece placed this turn, or `null` for none. A piece placed in round 1 carries the
        /// player's risk piece.
        #[serde(default)]
        bet: Option<Bet>,
        /// The cards revealed: `[]` in round 1, exactly two afterwards.
        #[serde(default)]
        #[schema(max_items = 2, example = json!(["umbrella", "teacup:no"]))]
        reveal: Vec<Card>,
    },
    /// A seat's end of heat, once every hand holds 3 cards: one card discarded face down (never
    /// counted, never shown to others) and the other two revealed. Sealed until every seat's is in.
    /// Table dealing: `reveal` lists the two cards, `discard` may be named (kept private).
    /// Service dealing: `discard` is required; `reveal` may be omitted (the service reveals the
    /// other two) or must list exactly the other two.
    #[schema(title = "MembersOnlyFinal")]
    Final {
        /// The card discarded face down.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(example = "hat")]
        discard: Option<Card>,
        /// The two cards revealed.
        #[serde(default)]
        #[schema(max_items = 2, example = json!(["crown", "crown"]))]
        reveal: Vec<Card>,
    },
}

impl Action {
    pub(super) fn name(&self) -> &'static str {
        match self {
            Action::Deal { .. } => "deal",
            Action::Turn { .. } => "turn",
            Action::Final { .. } => "final",
        }
    }
}

/// Why a Members Only service seed is never published (shown in the log beside the commitment).
pub const SEED_WITHHELD: &str = "Members Only never publishes its shuffle seed: each heat's discards are face down and never revealed (Rule Three), and the seed would re-derive them; the commitment stays, so a seed disclosed privately later (to an arbiter, say) can still be checked against it";

/// Why Members Only refused an action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MembersOnlyError {
    #[error("Members Only is played by 3 to 5 players, not {0}")]
    PlayerCount(usize),
    #[error("first_player must be a seat, 0 to {max}, not {got}")]
    BadFirstPlayer { max: usize, got: usize },
    #[error("the game is over (every category had a marker at 5 or more after the last heat); nothing more can be recorded")]
    MatchFinished,
    #[error("there is no seat {seat}: this match has seats 0 to {max}")]
    NoSuchSeat { seat: usize, max: usize },
    #[error("no heat is in progress: the table records the deal of the next heat first")]
    DealExpected,
    #[error("heat {0} is in progress: it must be played out and scored before the next deal")]
    HeatInProgress(u32),
    #[error("{0} is an action of the table (seat: null, host token)")]
    TableActionOnly(&'static str),
    #[error("{0} is a player's action: say which seat takes it")]
    SeatActionOnly(&'static str),
    #[error("it is seat {expected}'s turn, not seat {got}'s (play proceeds clockwise from the heat's starter)")]
    NotYourTurn { expected: usize, got: usize },
    #[error("betting has ended: every hand holds 3 cards, so no further bets are placed and each player records a final discard and reveal (Rule Three)")]
    BettingClosed,
    #[error("a heat ends when every hand holds exactly 3 cards (Rule Three); seat {seat} still holds {held}, so it takes a turn instead")]
    FinalTooEarly { seat: usize, held: u8 },
    #[error("seat {0} has already recorded its discard and reveal for this heat")]
    FinalAlreadyRecorded(usize),
    #[error("the {category} space '{words}' ({space}) is already taken by seat {by}: pieces go on vacant spaces only, one piece per space (Rule One)")]
    SpaceTaken {
        category: Category,
        space: &'static str,
        words: &'static str,
        by: usize,
    },
    #[error("seat {seat} has no {piece} piece left to place ({reason})")]
    NoPieceLeft {
        seat: usize,
        piece: &'static str,
        reason: &'static str,
    },
    #[error("{rule}: seat {seat} must reveal {expected} cards, not {got}")]
    WrongRevealCount {
        seat: usize,
        expected: &'static str,
        got: usize,
        rule: &'static str,
    },
    #[error("seat {seat} does not hold {wanted} × {card} (holds {held})")]
    CardNotInHand {
        seat: usize,
        card: Card,
        wanted: u8,
        held: u8,
    },
    #[error("the deck holds only {copies} × {card} and {known} are already accounted for in this heat, so {wanted} more cannot be right")]
    CardCountExceeded {
        card: Card,
        copies: u8,
        known: u8,
        wanted: u8,
    },
    #[error("in service dealing seat {0} names the card it discards face down (Rule Three); the service reveals the other two")]
    DiscardRequired(usize),
    #[error("a table deal turns exactly two cards face up (Rule One): face_up must list 2 cards, not {0}")]
    WrongFaceUpCount(usize),
    #[error(
        "in service dealing the service turns the two cards face up; send the deal without face_up"
    )]
    FaceUpNotTaken,
    #[error("a service deal needs the service's shuffle seed")]
    SeedMissing,
    #[error("in table dealing the cards are dealt at the table; no seed is taken")]
    SeedNotTaken,
}

impl RuleError for MembersOnlyError {
    /// Service dealing: what the hand holds. A turn's bet and the number of cards revealed are
    /// checked first (public), the cards last (`check_turn`, `check_final`).
    fn hidden(&self) -> bool {
        matches!(self, MembersOnlyError::CardNotInHand { .. })
    }

    fn code(&self) -> &'static str {
        use MembersOnlyError::*;
        match self {
            PlayerCount(_) => "bad_player_count",
            BadFirstPlayer { .. } => "invalid_config",
            MatchFinished => crate::rules::MATCH_FINISHED,
            NoSuchSeat { .. } => "no_such_seat",
            DealExpected => "deal_expected",
            HeatInProgress(_) => "heat_in_progress",
            TableActionOnly(_) => "table_action_only",
            SeatActionOnly(_) => "seat_action_only",
            NotYourTurn { .. } => "not_your_turn",
            BettingClosed => "betting_closed",
            FinalTooEarly { .. } => "final_too_early",
            FinalAlreadyRecorded(_) => "final_already_recorded",
            SpaceTaken { .. } => "space_taken",
            NoPieceLeft { .. } => "no_piece_left",
            WrongRevealCount { .. } => "wrong_reveal_count",
            CardNotInHand { .. } => "card_not_in_hand",
            CardCountExceeded { .. } => "card_count_exceeded",
            DiscardRequired(_) => "discard_required",
            WrongFaceUpCount(_) => "wrong_face_up_count",
            FaceUpNotTaken => "face_up_not_taken",
            SeedMissing => "seed_missing",
            SeedNotTaken => "seed_not_taken",
        }
    }
}

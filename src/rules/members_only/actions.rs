//! Members Only's options, actions and refusals.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::super::{ProblemFields, RuleError};
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
    /// The seat that begins heat 1 (default 0; docs/rules.md#members-only-heat). The starter of a heat deals the next one and
    /// the player on his left begins it, so the dealer of a heat is the seat right of its starter.
    #[schema(minimum = 0, maximum = 4, example = 0)]
    pub first_player: usize,
    /// Score-only play (default false): the table records each heat's result with one `tally`
    /// (every seat's markers after the heat; no `deal`, no seat actions). Needs
    /// `dealing: "table"` (real cards).
    #[serde(default)]
    pub scores_only: bool,
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
    /// Score-only play (`scores_only`): a whole heat's result, the table's action between heats.
    /// Each seat's five markers after the heat, in track order (umbrella, crown, teacup, Big Ben,
    /// hat), 0 to 10; a marker never stands behind where it stood before the heat. Refusals (422):
    /// `tally_not_allowed` (not a score-only match), `tally_shape`, `tally_range`,
    /// `tally_marker_back`; details name seats 1-based.
    #[schema(title = "MembersOnlyTally")]
    Tally {
        /// Per seat, its markers `[umbrella, crown, teacup, big_ben, hat]` after the heat.
        #[schema(example = json!([[5, 0, 2, 0, 0], [0, 6, 0, 0, 1], [0, 0, 0, 5, 5]]))]
        markers: Vec<Vec<i64>>,
    },
}

impl Action {
    pub(super) fn name(&self) -> &'static str {
        match self {
            Action::Deal { .. } => "deal",
            Action::Turn { .. } => "turn",
            Action::Final { .. } => "final",
            Action::Tally { .. } => "tally",
        }
    }
}

/// Why a Members Only service seed is never published (shown in the log beside the commitment).
pub const SEED_WITHHELD: &str = "Members Only never publishes its shuffle seed: each heat's discards are face down and never revealed (Rule Three), and the seed would re-derive them; the commitment stays, so a seed disclosed privately later (to an arbiter, say) can still be checked against it";

/// Why Members Only refused an action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MembersOnlyError {
    /// A player count the game cannot seat, at creation (the count asked for).
    #[error("Members Only is played by 3 to 5 players, not {0}")]
    PlayerCount(usize),
    /// A `first_player` option that is not a seat, at creation.
    #[error("first_player must be a seat, 0 to {max}, not {got}")]
    BadFirstPlayer {
        /// The highest seat.
        max: usize,
        /// The seat asked for.
        got: usize,
    },
    /// Any action once the game is over.
    #[error("the game is over (every category had a marker at 5 or more after the last heat); nothing more can be recorded")]
    MatchFinished,
    /// An action for a seat the match does not have.
    #[error("`seat` {seat} names no seat: this match has {n} seats (`seat` 0 to {max})", n = max + 1)]
    NoSuchSeat {
        /// The seat named.
        seat: usize,
        /// The highest seat of the match.
        max: usize,
    },
    /// A turn or final while no heat is in progress (the table records the next deal first).
    #[error("no heat is in progress: the table records the deal of the next heat first")]
    DealExpected,
    /// A deal while a heat is still being played (the heat).
    #[error("heat {0} is in progress: it must be played out and scored before the next deal")]
    HeatInProgress(u32),
    /// A seat sent an action only the table records (the action's type).
    #[error("{0} is an action of the table (seat: null, host token)")]
    TableActionOnly(&'static str),
    /// The table sent a player's action (the action's type).
    #[error("{0} is a player's action: say which seat takes it")]
    SeatActionOnly(&'static str),
    /// A turn taken by a seat other than the one to play.
    #[error("it is seat {expected_1}'s turn, not seat {got_1}'s (play proceeds clockwise from the heat's starter)", expected_1 = expected + 1, got_1 = got + 1)]
    NotYourTurn {
        /// The seat to play.
        expected: usize,
        /// The seat that tried.
        got: usize,
    },
    /// A turn once every hand holds 3 cards and only the final discards and reveals remain.
    #[error("betting has ended: every hand holds 3 cards, so no further bets are placed and each player records a final discard and reveal (Rule Three)")]
    BettingClosed,
    /// A final discard and reveal from a seat whose hand does not yet hold 3 cards.
    #[error("a heat ends when every hand holds exactly 3 cards (Rule Three); seat {seat_1} still holds {held}, so it takes a turn instead", seat_1 = seat + 1)]
    FinalTooEarly {
        /// The seat recording its final.
        seat: usize,
        /// The cards its hand holds.
        held: u8,
    },
    /// A second final discard and reveal from the same seat in one heat (the seat).
    #[error("seat {seat_1} has already recorded its discard and reveal for this heat", seat_1 = .0 + 1)]
    FinalAlreadyRecorded(usize),
    /// A bet on a space that already holds a piece.
    #[error("the {category} space '{words}' ({space_name}) is already taken by seat {by_1}: pieces go on vacant spaces only, one piece per space (Rule One)", space_name = space.name(), by_1 = by + 1)]
    SpaceTaken {
        /// The category bet on.
        category: Category,
        /// The space.
        space: Space,
        /// The space in words.
        words: &'static str,
        /// The seat whose piece is there.
        by: usize,
    },
    /// A bet with a kind of piece the seat has no more of.
    #[error("seat {seat_1} has no {piece} piece left to place ({reason})", seat_1 = seat + 1)]
    NoPieceLeft {
        /// The seat betting.
        seat: usize,
        /// The kind of piece (`single` or `double`).
        piece: &'static str,
        /// Where its pieces of that kind are.
        reason: &'static str,
    },
    /// A turn or final revealing the wrong number of cards.
    #[error("{rule}: seat {seat_1} must reveal {expected} cards, not {got}", seat_1 = seat + 1)]
    WrongRevealCount {
        /// The seat revealing.
        seat: usize,
        /// How many cards it must reveal, in words.
        expected: &'static str,
        /// How many it revealed.
        got: usize,
        /// The rule that says so.
        rule: &'static str,
    },
    /// Cards revealed or discarded that the seat's hand does not hold (service dealing).
    #[error("seat {seat_1} does not hold {wanted} × {card} (holds {held})", seat_1 = seat + 1)]
    CardNotInHand {
        /// The seat acting.
        seat: usize,
        /// The card named.
        card: Card,
        /// How many of it the action needs.
        wanted: u8,
        /// How many of it the hand holds.
        held: u8,
    },
    /// Table dealing: more copies of a card recorded in a heat than the deck holds.
    #[error("the deck holds only {copies} × {card} and {known} are already accounted for in this heat, so {wanted} more cannot be right")]
    CardCountExceeded {
        /// The card named.
        card: Card,
        /// How many of it the deck holds.
        copies: u8,
        /// How many are already accounted for in this heat.
        known: u8,
        /// How many more the action names.
        wanted: u8,
    },
    /// Service dealing: a final without the discard named (the seat).
    #[error("in service dealing seat {seat_1} names the card it discards face down (Rule Three); the service reveals the other two", seat_1 = .0 + 1)]
    DiscardRequired(usize),
    /// A table deal turning up other than two cards (the number given).
    #[error("a table deal turns exactly two cards face up (Rule One): face_up must list 2 cards, not {0}")]
    WrongFaceUpCount(usize),
    /// A service deal that names the cards turned face up.
    #[error(
        "in service dealing the service turns the two cards face up; send the deal without face_up"
    )]
    FaceUpNotTaken,
    /// A service deal without the service's shuffle seed.
    #[error("a service deal needs the service's shuffle seed")]
    SeedMissing,
    /// A seed sent with a deal in table dealing.
    #[error("in table dealing the cards are dealt at the table; no seed is taken")]
    SeedNotTaken,
    /// A tally in a match that is not score-only: a played heat needs each seat's pieces, which
    /// a tallied heat does not say.
    #[error("a Members Only tally is for score-only matches (config scores_only, table dealing): a tallied heat does not say which betting pieces were lost, which the next played heat needs")]
    TallyNotAllowed,
    /// A tally without one row of five markers per seat (why).
    #[error("tally: {0}")]
    TallyShape(String),
    /// A marker outside the track, 0 to 10.
    #[error("seat {}: {} marker {value} is outside 0 to 10, the scoring track", seat + 1, category.words())]
    TallyRange {
        /// The seat (0-based; told 1-based).
        seat: usize,
        /// The marker's category.
        category: Category,
        /// The value given.
        value: i64,
    },
    /// A marker behind where it stood before the heat: markers only move forward.
    #[error("seat {}: {} marker {value} is behind where it stood ({was}): markers only move forward", seat + 1, category.words())]
    TallyMarkerBack {
        /// The seat (0-based; told 1-based).
        seat: usize,
        /// The marker's category.
        category: Category,
        /// The value given.
        value: i64,
        /// Where the marker stood before the heat.
        was: u8,
    },
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
            TallyNotAllowed => "tally_not_allowed",
            TallyShape(_) => "tally_shape",
            TallyRange { .. } => "tally_range",
            TallyMarkerBack { .. } => "tally_marker_back",
        }
    }

    /// The seat (the one acting, or the one whose piece holds the space), the card, the
    /// category and space bet on, and the counts the rules compare.
    fn fields(&self) -> ProblemFields {
        use MembersOnlyError::*;
        match *self {
            NotYourTurn { expected, got } => ProblemFields::turn(expected, got),
            FinalTooEarly { seat, held } => ProblemFields::seat(seat).with_compare(3, held),
            FinalAlreadyRecorded(seat) | DiscardRequired(seat) => ProblemFields::seat(seat),
            SpaceTaken {
                category,
                space,
                by,
                ..
            } => ProblemFields::seat(by)
                .with_category(category)
                .with_space(space),
            NoPieceLeft { seat, .. } => ProblemFields::seat(seat),
            WrongRevealCount { seat, got, .. } => ProblemFields::seat(seat).with_got(got),
            CardNotInHand {
                seat,
                card,
                wanted,
                held,
            } => ProblemFields::seat(seat)
                .with_card(card)
                .with_compare(wanted, held),
            CardCountExceeded { card, .. } => ProblemFields::card(card),
            WrongFaceUpCount(got) => ProblemFields::compare(2, got),
            _ => ProblemFields::none(),
        }
    }
}

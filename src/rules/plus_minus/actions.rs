//! P.M.'s cards and pack, options, actions and refusals.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use super::super::{ProblemFields, RuleError, SeedReveal};

/// Cards dealt to each player ("The Dealer ... deals ELEVEN Cards to each player").
pub const HAND_SIZE: usize = 11;
/// The home number.
pub const HOME: u8 = 25;
/// The stars at the top of the board, where men start (written position 0).
pub const STARS: u8 = 0;
/// Men per player.
pub const MEN: usize = 4;
/// Largest card value a configured deck may hold (a card above 25 can only bust).
pub const MAX_CARD: i32 = 25;
/// Most cards one configured pack may hold.
pub const MAX_PACK: usize = 200;

/// A P.M. card: a signed integer, PLUS cards (black) positive, MINUS cards (red) negative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PmCard(pub i32);

impl PmCard {
    /// Whether this is a red MINUS card.
    pub fn is_minus(self) -> bool {
        self.0 < 0
    }

    /// The signed value.
    pub fn value(self) -> i32 {
        self.0
    }
}

impl fmt::Display for PmCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 < 0 {
            write!(f, "MINUS {}", self.0.unsigned_abs())
        } else {
            write!(f, "PLUS {}", self.0)
        }
    }
}

/// The default pack of docs/rules.md#plus-minus-pack: PLUS 1–9 three times each, PLUS 10–15 twice each, MINUS 3, 5, 7,
/// 9, 11 (44 cards).
pub fn default_deck() -> Vec<PmCard> {
    let mut d = Vec::with_capacity(44);
    for v in 1..=9 {
        d.extend([PmCard(v); 3]);
    }
    for v in 10..=15 {
        d.extend([PmCard(v); 2]);
    }
    d.extend([-3, -5, -7, -9, -11].map(PmCard));
    d
}

/// P.M.'s match options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = PlusMinusConfig)]
pub struct PlusMinusConfig {
    /// One pack's cards as signed integers (PLUS positive, MINUS negative, 1..25 in size); 5–8
    /// players shuffle two such packs together. The default is the printed 44-card pack (docs/rules.md#plus-minus-pack). Needs at
    /// least 11 cards per player and at most 10 MINUS cards in play (so every hand holds a PLUS
    /// card for the lead).
    #[schema(value_type = Vec<i32>, example = json!([1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15, -3, -5, -7, -9, -11]))]
    pub deck: Vec<PmCard>,
    /// Games in a rubber (default 5; docs/rules.md#plus-minus-game-end); the match ends after the last one.
    #[schema(minimum = 1, maximum = 100, example = 5)]
    pub rubber_games: u32,
    /// The dealer of the first game; the deal passes to the left each game.
    #[schema(minimum = 0, maximum = 7, example = 0)]
    pub first_dealer: usize,
    /// When a service deal's shuffle seed is published: `round_end` (the default: once its game
    /// is over; undo cannot reopen a finished game) or `match_end` (undo stays open across
    /// games until the match is over).
    #[schema(example = "round_end")]
    pub seed_reveal: SeedReveal,
    /// Score-only play (default false): the table records each round's result with one `tally`
    /// (no `deal`, no seat actions). Needs `dealing: "table"` (real cards).
    #[serde(default)]
    pub scores_only: bool,
}

impl Default for PlusMinusConfig {
    fn default() -> Self {
        PlusMinusConfig {
            deck: default_deck(),
            rubber_games: 5,
            first_dealer: 0,
            seed_reveal: SeedReveal::default(),
            scores_only: false,
        }
    }
}

/// One action of P.M.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = PlusMinusAction)]
// Each variant's `title` names it in the spec, hence in generated clients (`PlusMinusPlay`, ...):
// stable names whatever the variants' order; tests/openapi.rs checks every variant has one.
pub enum Action {
    /// Table action that starts each game of the rubber. In service dealing the service shuffles
    /// and deals eleven cards to each player.
    #[schema(title = "PlusMinusDeal")]
    Deal {},
    /// A seat lays down a card and moves one man by the total (the card plus the top card).
    #[schema(title = "PlusMinusPlay")]
    Play {
        /// The card: a signed integer, PLUS cards positive, MINUS cards negative (`-7` is MINUS 7).
        #[schema(value_type = i32, minimum = -25, maximum = 25, example = 11)]
        card: PmCard,
        /// The position of the man moved (0 = the stars); `null` when no man can change position
        /// (total 0, no legal destination, or only a harmless bust from the stars, for which `0`
        /// is accepted too).
        #[schema(minimum = 0, maximum = 25, example = 17)]
        from: Option<i64>,
    },
    /// Table dealing only: a whole game's final positions without play-by-play, per seat the
    /// four men (0 = stars, 25 = home).
    #[schema(title = "PlusMinusTally")]
    Tally {
        /// Per seat, the four men's positions (this or `points`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(schema_with = men_schema)]
        men: Option<Vec<Vec<i64>>>,
        /// Per seat, the game's score (this or `men`): −80 to 200, and a score four men can make
        /// (50 a man on 25, −20 a man on the stars, the number of a man on 1 to 24, men on 1 to
        /// 24 on distinct numbers).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(example = json!([200, 37, -3, 12]))]
        points: Option<Vec<i64>>,
    },
}

/// `tally.men`: per seat, four positions from 0 (the stars) to 25 (home).
fn men_schema() -> utoipa::openapi::schema::Array {
    use super::super::spec_shapes::{array, int};
    let board = array(
        int(0, 25),
        Some(4),
        false,
        "One seat's four men.",
        json!([25, 25, 15, 0]),
    );
    array(
        board.into(),
        None,
        true,
        "Per seat, the four men's positions.",
        json!([[25, 25, 15, 0], [0, 3, 12, 25]]),
    )
}

/// The `from` values a move allows, for messages: `0, 17` or `null`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegalFrom(pub Vec<u8>);

impl fmt::Display for LegalFrom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("null (no man can move)");
        }
        let parts: Vec<String> = self.0.iter().map(|p| p.to_string()).collect();
        f.write_str(&parts.join(", "))
    }
}

/// The facts of a refused move: who, which card on which top card, the total, the legal `from`s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveFacts {
    /// The seat moving.
    pub seat: usize,
    /// The card played.
    pub card: PmCard,
    /// The total to move by.
    pub total: i32,
    /// The legal `from` values.
    pub legal: LegalFrom,
}

impl fmt::Display for MoveFacts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "seat {}'s {} makes a total of {}; legal `from`: {}",
            self.seat + 1,
            self.card,
            self.total,
            self.legal
        )
    }
}

/// Why P.M. refused an action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlusMinusError {
    /// A player count the game cannot seat, at creation (the count asked for).
    #[error("P.M. is played by 2 to 8 players, not {0}")]
    PlayerCount(usize),
    /// A `deck` option that is not a playable pack, at creation (why).
    #[error("deck: {0}")]
    BadDeck(String),
    /// A `rubber_games` option outside 1 to 100, at creation (the number asked for).
    #[error("rubber_games must be 1 to 100, not {0}")]
    BadRubber(u32),
    /// A `first_dealer` option that is not a seat, at creation.
    #[error("first_dealer must be a seat, 0 to {max}, not {got}")]
    BadDealer {
        /// The highest seat.
        max: usize,
        /// The seat asked for.
        got: usize,
    },
    /// Any action once the rubber is over.
    #[error("the rubber is finished; nothing more can be recorded")]
    MatchFinished,
    /// A card played while no game is in progress (the table records a deal first).
    #[error("no game is in progress: the table records a deal first")]
    DealExpected,
    /// A deal while a game is still being played.
    #[error("a game is in progress: finish it (or tally it before any card is played) first")]
    DealInProgress,
    /// A seat sent an action only the table records (the action's type).
    #[error("{0} is an action of the table (seat: null, host token)")]
    TableActionOnly(&'static str),
    /// The table sent a card play, which a seat makes.
    #[error("the table cannot play a card; say which seat plays it")]
    SeatActionOnly,
    /// A card played by a seat other than the one to play.
    #[error("it is seat {expected_1}'s turn to play, not seat {got_1}'s", expected_1 = expected + 1, got_1 = got + 1)]
    NotYourTurn {
        /// The seat to play.
        expected: usize,
        /// The seat that tried.
        got: usize,
    },
    /// A card the pack (or packs) in play does not hold.
    #[error("{card} is not in the pack{s} ({detail})", s = if *packs > 1 { "s" } else { "" })]
    NoSuchCard {
        /// The card named.
        card: PmCard,
        /// How many packs are in play.
        packs: usize,
        /// What the packs hold.
        detail: String,
    },
    /// Table dealing: a card of which every copy has already been played this game.
    #[error("all {count} {card} card{s} of the pack{p} have already been played this game", s = if *count == 1 { "" } else { "s" }, p = if *packs > 1 { "s" } else { "" })]
    CardAlreadyPlayed {
        /// The card named.
        card: PmCard,
        /// How many copies of it the packs hold.
        count: u32,
        /// How many packs are in play.
        packs: usize,
    },
    /// Service dealing: a card the seat does not hold.
    #[error("seat {seat_1} does not hold {card}", seat_1 = seat + 1)]
    CardNotInHand {
        /// The seat playing.
        seat: usize,
        /// The card named.
        card: PmCard,
    },
    /// A MINUS card led to start a game.
    #[error("MINUS cards must not be used by the leader to start the game: seat {seat_1} must lead a PLUS card, not {card}", seat_1 = seat + 1)]
    MinusCardLead {
        /// The leader.
        seat: usize,
        /// The MINUS card led.
        card: PmCard,
    },
    /// A card played without moving a man (`from: null`) while a move is possible (the
    /// move's facts).
    #[error("any possible move must be made, even a bust: `from` cannot be null here; {0}")]
    MoveRequired(MoveFacts),
    /// A move from a number where the seat has no man.
    #[error("seat {seat_1} has no man on {from} (board {board}); {facts}", seat_1 = seat + 1)]
    NoManThere {
        /// The seat moving.
        seat: usize,
        /// The number named in `from`.
        from: i64,
        /// The seat's board: where its men are.
        board: String,
        /// The move's facts.
        facts: MoveFacts,
    },
    /// A move of a man already home on 25 (the move's facts).
    #[error("men on 25 are home and never move; {0}")]
    ManHome(MoveFacts),
    /// A move by a total of 0, which moves nobody (the move's facts).
    #[error("a total of 0 moves nobody (red equal to black: neither forward nor back); {0}")]
    ZeroTotal(MoveFacts),
    /// A backward move of a man on the stars (the move's facts).
    #[error("a man on the stars cannot move backwards; {0}")]
    StarsBackward(MoveFacts),
    /// A move landing on a number where the seat already has a man.
    #[error("no player can have two men on the same number (except 25): the man on {from} would land on {to}, where seat {} already has a man; {facts}", facts.seat + 1)]
    NumberOccupied {
        /// Where the man stands.
        from: u8,
        /// Where it would land.
        to: u8,
        /// The move's facts.
        facts: MoveFacts,
    },
    /// A bust of a man from the stars while the seat has a man on 1 to 24 (the move's
    /// facts).
    #[error("a player cannot bust a man from the stars while he has a man on 1 to 24; {0}")]
    StarsBustForbidden(MoveFacts),
    /// A tally in service dealing, where every card is played.
    #[error("tally is for table dealing only; with service dealing every card is played")]
    TallyNeedsTableDealing,
    /// A tally after cards of the game have been played.
    #[error("a tally records a whole game: it cannot follow cards already played in this game")]
    TallyMidGame,
    /// A tally with other than one board per seat.
    #[error("a tally needs one board per seat ({expected}), not {got}")]
    TallySeats {
        /// The number of seats.
        expected: usize,
        /// The number of boards given.
        got: usize,
    },
    /// A tally board with other than four men.
    #[error("seat {seat_1}'s board in the tally must list its four men, not {got}", seat_1 = seat + 1)]
    TallyMen {
        /// The seat whose board it is.
        seat: usize,
        /// The number of men given.
        got: usize,
    },
    /// A tally board with a man outside 0 (the stars) to 25 (home).
    #[error("seat {seat_1}'s man on {position}: positions run from 0 (the stars) to 25 (home)", seat_1 = seat + 1)]
    TallyPosition {
        /// The seat whose board it is.
        seat: usize,
        /// The position given.
        position: i64,
    },
    /// A tally board with two men on the same number below 25.
    #[error("seat {seat_1} cannot have two men on {position}: no player can have two men on the same number (except 25)", seat_1 = seat + 1)]
    TallyOccupied {
        /// The seat whose board it is.
        seat: usize,
        /// The number held twice.
        position: i64,
    },
    /// A tally in which two seats have all four men home.
    #[error("seats {} and {} cannot both have four men on 25: the game ends at once when the first player's fourth man reaches 25", first + 1, second + 1)]
    TallyTwoFinished {
        /// One of the two seats (0-based; told 1-based).
        first: usize,
        /// The other.
        second: usize,
    },
    /// A tally with both or neither of `men` and `points`, or not one entry per seat.
    #[error("tally: {0}")]
    TallyShape(String),
    /// A `points` entry outside −80 to 200.
    #[error("seat {}: {value} is outside -80 to 200, what four men can score", seat + 1)]
    TallyRange {
        /// The seat (0-based; told 1-based).
        seat: usize,
        /// The value given.
        value: i64,
    },
    /// A `points` entry in range that no four men make.
    #[error("seat {}: no four men score {value}", seat + 1)]
    TallyUnachievable {
        /// The seat (0-based; told 1-based).
        seat: usize,
        /// The value given.
        value: i64,
    },
    /// A service deal without the service's shuffle seed.
    #[error("a service deal needs the service's shuffle seed")]
    SeedMissing,
    /// A seed sent with a deal in table dealing.
    #[error("in table dealing the cards are dealt at the table; no seed is taken")]
    SeedNotTaken,
}

impl RuleError for PlusMinusError {
    /// Service dealing: whether the seat holds the value. Every other refusal is judged on the
    /// public boards and top card first.
    fn hidden(&self) -> bool {
        matches!(self, PlusMinusError::CardNotInHand { .. })
    }

    fn code(&self) -> &'static str {
        use PlusMinusError::*;
        match self {
            PlayerCount(_) => "bad_player_count",
            BadDeck(_) | BadRubber(_) | BadDealer { .. } => "invalid_config",
            MatchFinished => crate::rules::MATCH_FINISHED,
            DealExpected => "deal_expected",
            DealInProgress => "deal_in_progress",
            TableActionOnly(_) => "table_action_only",
            SeatActionOnly => "seat_action_only",
            NotYourTurn { .. } => "not_your_turn",
            NoSuchCard { .. } => "no_such_card",
            CardAlreadyPlayed { .. } => "card_already_played",
            CardNotInHand { .. } => "card_not_in_hand",
            MinusCardLead { .. } => "minus_card_lead",
            MoveRequired(_) => "move_required",
            NoManThere { .. } => "no_man_there",
            ManHome(_) => "man_home",
            ZeroTotal(_) => "zero_total",
            StarsBackward(_) => "stars_backward",
            NumberOccupied { .. } => "number_occupied",
            StarsBustForbidden(_) => "stars_bust_forbidden",
            TallyNeedsTableDealing => "tally_not_allowed",
            TallyMidGame => "tally_mid_deal",
            TallySeats { .. } => "tally_seats",
            TallyMen { .. } => "tally_men",
            TallyPosition { .. } => "tally_position",
            TallyOccupied { .. } => "tally_occupied",
            TallyTwoFinished { .. } => "tally_two_finished",
            TallyShape(_) => "tally_shape",
            TallyRange { .. } => "tally_range",
            TallyUnachievable { .. } => "tally_unachievable",
            SeedMissing => "seed_missing",
            SeedNotTaken => "seed_not_taken",
        }
    }

    /// The seat and card (a move's refusals: the seat moving and the card played); a tally's
    /// board against what it must be.
    fn fields(&self) -> ProblemFields {
        use PlusMinusError::*;
        match self {
            NotYourTurn { expected, got } => ProblemFields::turn(*expected, *got),
            NoSuchCard { card, .. } | CardAlreadyPlayed { card, .. } => ProblemFields::card(*card),
            CardNotInHand { seat, card } | MinusCardLead { seat, card } => {
                ProblemFields::seat(*seat).with_card(*card)
            }
            MoveRequired(f)
            | ManHome(f)
            | ZeroTotal(f)
            | StarsBackward(f)
            | StarsBustForbidden(f)
            | NoManThere { facts: f, .. }
            | NumberOccupied { facts: f, .. } => ProblemFields::seat(f.seat).with_card(f.card),
            TallySeats { expected, got } => ProblemFields::compare(*expected, *got),
            TallyMen { seat, got } => ProblemFields::seat(*seat).with_compare(4, *got),
            TallyPosition { seat, position } | TallyOccupied { seat, position } => {
                ProblemFields::seat(*seat).with_got(*position)
            }
            TallyTwoFinished { second, .. } => ProblemFields::seat(*second),
            TallyRange { seat, value } | TallyUnachievable { seat, value } => {
                ProblemFields::seat(*seat).with_got(*value)
            }
            _ => ProblemFields::none(),
        }
    }
}

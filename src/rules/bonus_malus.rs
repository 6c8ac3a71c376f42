//! Bonus-Malus (Alex Randolph, "Indiscretion", 1987): tricks whose trump is the suit showing on
//! the back of the stock's top card.
//!
//! docs/rules.md#bonus-malus: 2–4 players (4 = partnerships: seats 0+2 against 1+3), 52 cards, ace
//! high, 7 each, the rest is the stock. The player left of the dealer leads; the trick winner leads
//! next. The trump of a trick is the suit showing on top of the stock (card backs show suits); with
//! the stock empty, no trump. Follow suit if able; else trump if able; else anything. After each
//! trick the winner draws first, then the others in turn from his left. ♠ +10, ♥ +5, ♦ −5, ♣ −10;
//! a plus total scores, the rest nothing; deal n counts n times; the first side to `target`
//! (155) at the end of a deal wins. 3 players (house rule): each for himself; all three draw
//! while the stock holds at least 3 cards; the last card is set aside unseen, counting for nobody.

use serde::{Deserialize, Serialize};

use utoipa::ToSchema;

use super::entered::{self, Entered, EntryError};
use super::{
    cards::{full_deck, Card, CardSet, Commitment, Seed, Suit, SuitSet},
    produced,
    sheet::{winners_and_margin, RoundScore, ScoreSheet},
    tally::{self, TallyFault, TallyForm, TallyUnit},
    to_json,
    trick::{service_deal, Duties, Play, PlayError, Revoke, SeedProblem, Trick, TrickPlay},
    Actor, Dealing, Game, ProblemFields, Produced, RuleError, SeedReveal, ToAct,
};

/// The largest `target` accepted.
pub const MAX_TARGET: i64 = 1_000_000;

/// Cards dealt to each hand, and held again after every draw while the stock lasts.
pub const HAND: usize = 7;

/// Bonus-Malus's match options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct BonusMalusConfig {
    /// The total a side (or, with 2 or 3 players, a player) must reach or exceed at the end of a
    /// deal to win (default 155; docs/rules.md#bonus-malus-target).
    #[schema(minimum = 1, maximum = 1000000, example = 155)]
    pub target: i64,
    /// The dealer of the first deal; the deal passes to the left each round.
    #[schema(minimum = 0, maximum = 3, example = 0)]
    pub first_dealer: usize,
    /// When a service deal's shuffle seed is published: `round_end` (the default: once its round
    /// is over; undo cannot reopen a finished round) or `match_end` (undo stays open across
    /// rounds until the match is over).
    #[schema(example = "round_end")]
    pub seed_reveal: SeedReveal,
    /// Score-only play (default false): the table records each round's result with one `tally`
    /// (no `deal`, no seat actions). Needs `dealing: "table"` (real cards).
    #[serde(default)]
    pub scores_only: bool,
}

impl Default for BonusMalusConfig {
    fn default() -> Self {
        BonusMalusConfig {
            target: 155,
            first_dealer: 0,
            seed_reveal: SeedReveal::default(),
            scores_only: false,
        }
    }
}

/// One action of Bonus-Malus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = BonusMalusAction)]
// Each variant's `title` names it in the spec, hence in generated clients (`BonusMalusPlay`, ...):
// stable names whatever the variants' order; tests/openapi.rs checks every variant has one.
pub enum Action {
    /// Table action that starts a deal. In service dealing the service shuffles and deals (no
    /// `trump`); in table dealing `trump` is the suit showing on the back of the stock's top card.
    #[schema(title = "BonusMalusDeal")]
    Deal {
        /// Table dealing only, and then required: the suit showing on top of the stock.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(value_type = Option<String>, pattern = "^[SHDC♠♥♦♣]$", example = "S")]
        trump: Option<Suit>,
    },
    /// A seat plays a card to the trick.
    #[schema(title = "BonusMalusPlay")]
    Play {
        /// The card, rank then suit (`10` accepted for `T`).
        #[schema(value_type = String, pattern = "^(10|[2-9TJQKAtjqka])[SHDCshdc♠♥♦♣]\u{FE0F}?$", example = "QS")]
        card: Card,
    },
    /// Table dealing only: after the draws of a trick, while cards remain in the stock, the suit
    /// now showing on its top card (the next trick's trump). The engine asks for it.
    #[schema(title = "BonusMalusStockTop")]
    StockTop {
        /// The suit showing on top of the stock.
        #[schema(value_type = String, pattern = "^[SHDC♠♥♦♣]$", example = "D")]
        suit: Suit,
    },
    /// Table dealing only: a whole deal's result without play-by-play: per side (seats 0+2 and
    /// 1+3; with 2 or 3 players, per seat) how many cards of each suit its tricks held. Checked
    /// against the deck: 13 of each suit (3 players: one card, set aside, is missing) and whole
    /// tricks per side.
    #[schema(title = "BonusMalusTally")]
    Tally {
        /// Cards taken of each suit, by side (this or `points`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(example = json!([{"S": 8, "H": 7, "D": 5, "C": 6}, {"S": 5, "H": 6, "D": 8, "C": 7}]))]
        taken: Option<Vec<SuitCounts>>,
        /// Each side's plus total of card values for the deal before the ×n multiplier, 0 for a
        /// side without one (this or `taken`): multiples of 5, 0 to 195; with two sides at most
        /// one nonzero. The service multiplies by the deal's number.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(example = json!([35, 0]))]
        points: Option<Vec<i64>>,
    },
}

/// Cards of each suit (a side's capture).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SuitCounts {
    /// Spades (black backs), +10 each.
    #[serde(rename = "S")]
    #[schema(minimum = 0, maximum = 13)]
    pub s: u32,
    /// Hearts (red backs), +5 each.
    #[serde(rename = "H")]
    #[schema(minimum = 0, maximum = 13)]
    pub h: u32,
    /// Diamonds (blue backs), −5 each.
    #[serde(rename = "D")]
    #[schema(minimum = 0, maximum = 13)]
    pub d: u32,
    /// Clubs (green backs), −10 each.
    #[serde(rename = "C")]
    #[schema(minimum = 0, maximum = 13)]
    pub c: u32,
}

/// `SuitCounts` as the views and outcomes show it, in the spec: the same object (`S`, `H`, `D`,
/// `C`), written as a map of exactly those four keys rather than as four properties. (A generated
/// Python client names each property's variable after it, and a property `D` becomes `d`, the
/// name of the dict it reads from: openapi-python-client 0.29's `from_dict` then fails. The
/// request side, `tally.taken`, is written by clients, never read, and keeps `SuitCounts`.)
pub struct BonusMalusSuitCounts;

impl utoipa::PartialSchema for BonusMalusSuitCounts {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some(
                "Cards of each suit: `S` (spades, +10 each), `H` (hearts, +5), `D` (diamonds, -5) and `C` (clubs, -10), each 0 to 13, all four present.",
            ))
            .property_names(Some(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some(["S", "H", "D", "C"])),
            ))
            .additional_properties(Some(AdditionalProperties::RefOr(
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(0))
                    .maximum(Some(13))
                    .build()
                    .into(),
            )))
            .min_properties(Some(4))
            .max_properties(Some(4))
            .examples([serde_json::json!({"S": 8, "H": 7, "D": 5, "C": 6})])
            .into()
    }
}

impl ToSchema for BonusMalusSuitCounts {}

impl SuitCounts {
    /// The counts of a set of cards.
    pub fn of(cards: CardSet) -> SuitCounts {
        let n = |s| cards.count_suit(s) as u32;
        SuitCounts {
            s: n(Suit::S),
            h: n(Suit::H),
            d: n(Suit::D),
            c: n(Suit::C),
        }
    }

    fn get(&self, suit: Suit) -> u32 {
        match suit {
            Suit::S => self.s,
            Suit::H => self.h,
            Suit::D => self.d,
            Suit::C => self.c,
        }
    }

    fn total(&self) -> u32 {
        Suit::ALL
            .into_iter()
            .fold(0u32, |a, s| a.saturating_add(self.get(s)))
    }

    /// The value: ♠ +10, ♥ +5, ♦ −5, ♣ −10.
    pub fn value(&self) -> i64 {
        Suit::ALL
            .into_iter()
            .map(|s| suit_value(s) * self.get(s) as i64)
            .sum()
    }
}

/// The value of one card of a suit: ♠ +10, ♥ +5, ♦ −5, ♣ −10 (the deck sums to 0).
pub fn suit_value(suit: Suit) -> i64 {
    match suit {
        Suit::S => 10,
        Suit::H => 5,
        Suit::D => -5,
        Suit::C => -10,
    }
}

/// Why Bonus-Malus refused an action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BonusMalusError {
    /// A player count the game cannot seat, at creation (the count asked for).
    #[error("Bonus-Malus is played by 2 to 4 players (4 as partnerships), not {0}")]
    PlayerCount(usize),
    /// A `target` option outside 1 to [`MAX_TARGET`], at creation (the target given).
    #[error("target must be 1 to {MAX_TARGET}, not {0}")]
    BadTarget(i64),
    /// A `first_dealer` option that is not a seat of the match, at creation.
    #[error("first_dealer must be a seat, 0 to {max}, not {got}")]
    BadDealer {
        /// The highest seat of the match.
        max: usize,
        /// The seat given.
        got: usize,
    },
    /// Any action once the match is over.
    #[error("{}", super::MATCH_FINISHED_DETAIL)]
    MatchFinished,
    /// A play before the table has recorded the deal.
    #[error("no deal is in progress: the table records a deal first")]
    DealExpected,
    /// A deal while the previous deal is still in progress.
    #[error("a deal is in progress: finish it (or tally it before any card is played) first")]
    DealInProgress,
    /// A seat sent an action only the table records (the action's type).
    #[error("{0} is an action of the table (seat: null, host token)")]
    TableActionOnly(&'static str),
    /// The table sent a play: only a seat plays a card.
    #[error("the table cannot play a card; say which seat plays it")]
    SeatActionOnly,
    /// A play refused by the shared trick bookkeeping (turn, deck, card played, hand).
    #[error(transparent)]
    Play(PlayError),
    /// Service dealing: a seat holding the led suit played another suit.
    #[error("seat {seat_1} holds {} and must follow suit ({led} was led)", led.one(), seat_1 = seat + 1)]
    MustFollowSuit {
        /// The seat that played.
        seat: usize,
        /// The card played.
        card: Card,
        /// The suit led to the trick.
        led: Suit,
    },
    /// Service dealing: a seat holding no card of the led suit but a trump played another suit.
    #[error("seat {seat_1} cannot follow {} but holds {}: must trump ({trump} is trump)", led.name(), trump.one(), seat_1 = seat + 1)]
    MustTrump {
        /// The seat that played.
        seat: usize,
        /// The card played.
        card: Card,
        /// The suit led to the trick.
        led: Suit,
        /// The trick's trump suit.
        trump: Suit,
    },
    /// Table dealing: a deal without `trump`, the suit showing on top of the stock.
    #[error(
        "in table dealing the deal records the suit showing on top of the stock: add \"trump\""
    )]
    TrumpRequired,
    /// Service dealing: a deal with a `trump`; the service knows the stock.
    #[error("in service dealing the service knows the stock; a deal takes no \"trump\"")]
    TrumpNotTaken,
    /// Table dealing: a play while the suit now on top of the stock is still to be recorded
    /// (after a trick's draws).
    #[error("the table records the suit now showing on top of the stock (stock_top) before the next lead")]
    StockTopExpected,
    /// A `stock_top` when no stock top is awaited (why not).
    #[error("{0}")]
    StockTopNotExpected(&'static str),
    /// A `stock_top` naming a suit whose 13 cards are all known to be outside the stock (the
    /// suit).
    #[error("no {} can be on top of the stock: all 13 are accounted for (played, or drawn with the suit showing)", .0.name())]
    SuitExhausted(Suit),
    /// A tally in service dealing, where every card is played.
    #[error("tally is for table dealing only; with service dealing every card is played")]
    TallyNeedsTableDealing,
    /// A tally after cards of the deal in progress have been played.
    #[error("a tally records a whole deal: it cannot follow cards already played in this deal")]
    TallyMidDeal,
    /// A tally whose counts do not add up: a suit's 13 cards, or the cards taken in a deal
    /// (why).
    #[error("tally: {0}")]
    TallySum(String),
    /// A tally with the wrong number of entries, or a count that is not whole tricks (why).
    #[error("tally: {0}")]
    TallyInconsistent(String),
    /// A tally with both or neither of `taken` and `points`, or not one entry per side.
    #[error("tally: {0}")]
    TallyShape(String),
    /// A `points` entry outside 0 to 195 (the most one side can capture: all ♠ and ♥).
    #[error("{who}: {value} is outside 0 to 195, the most one side can take (all ♠ and ♥)")]
    TallyRange {
        /// The side or seat, in words (1-based).
        who: String,
        /// The value given.
        value: i64,
    },
    /// A `points` entry that is not a multiple of 5 (every card is worth a multiple of 5).
    #[error("{who}: {value} is not a multiple of 5")]
    TallyStep {
        /// The side or seat, in words (1-based).
        who: String,
        /// The value given.
        value: i64,
    },
    /// Two sides both with a plus total (two sides' values sum to 0, so one at most is plus).
    #[error("with two sides at most one has a plus total; both were given one")]
    TallyTwoPlus,
    /// A service deal without the service's shuffle seed.
    #[error("a service deal needs the service's shuffle seed")]
    SeedMissing,
    /// A seed sent with a deal in table dealing.
    #[error("in table dealing the cards are dealt at the table; no seed is taken")]
    SeedNotTaken,
}

impl RuleError for BonusMalusError {
    /// Only whether the seat holds the card is hidden. Following and trumping are public:
    /// docs/rules.md#bonus-malus-backs: the backs show the suits, so everyone sees which suits a hand
    /// holds (`backs` in the table view), and `must_follow_suit` / `must_trump` tell nothing
    /// more; they are judged before the hand (see [`BonusMalus::check_play`]).
    fn hidden(&self) -> bool {
        matches!(self, BonusMalusError::Play(e) if e.hidden())
    }

    fn code(&self) -> &'static str {
        use BonusMalusError::*;
        match self {
            PlayerCount(_) => "bad_player_count",
            BadTarget(_) | BadDealer { .. } => "invalid_config",
            MatchFinished => super::MATCH_FINISHED,
            DealExpected => "deal_expected",
            DealInProgress => "deal_in_progress",
            TableActionOnly(_) => "table_action_only",
            SeatActionOnly => "seat_action_only",
            Play(e) => e.code(),
            MustFollowSuit { .. } => "must_follow_suit",
            MustTrump { .. } => "must_trump",
            TrumpRequired => "trump_required",
            TrumpNotTaken => "trump_not_taken",
            StockTopExpected => "stock_top_expected",
            StockTopNotExpected(_) => "stock_top_not_expected",
            SuitExhausted(_) => "suit_exhausted",
            TallyNeedsTableDealing => "tally_not_allowed",
            TallyMidDeal => "tally_mid_deal",
            TallySum(_) => "tally_sum",
            TallyInconsistent(_) => "tally_inconsistent",
            TallyShape(_) => "tally_shape",
            TallyRange { .. } => "tally_range",
            TallyStep { .. } => "tally_step",
            TallyTwoPlus => "tally_sum",
            SeedMissing => "seed_missing",
            SeedNotTaken => "seed_not_taken",
        }
    }

    /// The seat and card; the suit to follow (`must_follow_suit`), the trump to play
    /// (`must_trump`), or the suit whose cards are all accounted for (`suit_exhausted`).
    fn fields(&self) -> ProblemFields {
        use BonusMalusError::*;
        match self {
            Play(e) => e.fields(),
            MustFollowSuit { seat, card, led } => {
                ProblemFields::seat(*seat).with_card(*card).with_suit(*led)
            }
            MustTrump {
                seat, card, trump, ..
            } => ProblemFields::seat(*seat)
                .with_card(*card)
                .with_suit(*trump),
            SuitExhausted(suit) => ProblemFields::none().with_suit(*suit),
            _ => ProblemFields::none(),
        }
    }
}

/// What a completed trick records besides its plays and winner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct TrickNote {
    /// The trump of the trick (`null`: the stock was empty).
    #[schema(value_type = Option<String>, example = "S")]
    pub trump: Option<Suit>,
    /// The value of the trick's cards.
    pub value: i64,
}

/// Where a Bonus-Malus match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = BonusMalusPhase)]
pub enum Phase {
    /// Between deals: the table deals next.
    AwaitingDeal,
    /// Table dealing: the table says the suit of the new top card of the stock.
    AwaitingStockTop,
    /// A deal is being played.
    Playing,
    /// The match is over.
    Finished,
}

/// A completed trick of Bonus-Malus (`table.tricks`).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the spec's shape of a `TrickRecord<TrickNote>`
pub struct BonusMalusTrick {
    /// The cards in the order played.
    plays: Vec<Play>,
    /// The seat that won it (and leads next).
    winner: usize,
    /// The trump of the trick; null once the stock is empty.
    #[schema(value_type = Option<String>, required = true, example = "S")]
    trump: Option<Suit>,
    /// The trick's value (bonus suits plus, malus suits minus).
    value: i64,
}

/// Bonus-Malus' public state (`table` in the match view). The keys marked "during a deal" are
/// absent between deals.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BonusMalusTable {
    /// Between deals, waiting for the stock's top card, playing, or over.
    pub phase: Phase,
    /// The total a side must reach to win.
    pub target: i64,
    /// Between deals: who deals next (null during a deal and once finished).
    #[schema(required = true)]
    pub next_dealer: Option<usize>,
    /// The multiplier of the current (or next) deal: its number. Null once finished.
    #[schema(required = true)]
    pub multiplier: Option<u32>,
    /// During a deal: who led the trick in progress.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub leader: Option<usize>,
    /// During a deal: the seat to play; null while the table says the stock's top card.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<usize>)]
    pub to_play: Option<Option<usize>>,
    /// The trump (the suit of the stock's top card); null between deals and once the stock is
    /// empty.
    #[schema(value_type = Option<String>, required = true)]
    pub trump: Option<Suit>,
    /// Cards left in the stock; null between deals.
    #[schema(required = true)]
    pub stock: Option<usize>,
    /// During a deal: whether the stock's odd last card was set aside unseen (3 players).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub set_aside: Option<bool>,
    /// The trick in progress, its plays in order (empty between deals).
    pub trick: Vec<Play>,
    /// During a deal: the completed tricks of the deal.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Vec<BonusMalusTrick>, nullable = false)]
    pub tricks: Option<Vec<TrickRecord>>,
    /// During a deal: the value captured so far per side (or seat).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub captured: Option<Vec<i64>>,
    /// During a deal: how many cards each seat holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub cards_left: Option<Vec<usize>>,
    /// During a deal, service dealing: what each seat holds by suit (the backs show the suits);
    /// null in table dealing.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<BonusMalusSuitCounts>>)]
    pub backs: Option<Option<Vec<SuitCounts>>>,
    /// Revokes proven in the deal (table dealing; empty between deals).
    pub revokes: Vec<Revoke>,
    /// During a deal: the service deal's seed commitment (SHA-256 hex), null in table dealing.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub commitment: Option<Option<String>>,
}

/// A Bonus-Malus seat's private state (`you` in the match view).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BonusMalusSeat {
    /// The seat.
    pub seat: usize,
    /// Service dealing, during a deal: the cards the seat holds. Null otherwise.
    #[schema(value_type = Option<Vec<String>>, required = true)]
    pub hand: Option<Vec<Card>>,
    /// The seat's side (its seat without partnerships); null for a seat outside the match.
    #[schema(required = true)]
    pub side: Option<usize>,
}

/// What a Bonus-Malus action produced (`outcome` in the log).
#[derive(Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BonusMalusOutcome {
    /// A deal started.
    #[schema(title = "BonusMalusDealt")]
    Dealt {
        /// The round, from 1.
        round: u32,
        /// The dealer.
        dealer: usize,
        /// Who leads the first trick.
        leader: usize,
        /// The trump (the suit of the stock's top card).
        #[schema(value_type = Option<String>, required = true)]
        trump: Option<Suit>,
        /// Cards in the stock.
        stock: usize,
        /// Service dealing: SHA-256 (hex) of the shuffle seed; null in table dealing.
        #[schema(value_type = Option<String>, required = true)]
        commitment: Option<Commitment>,
    },
    /// Table dealing: the suit of the stock's new top card, the trump.
    #[schema(title = "BonusMalusTrump")]
    Trump {
        /// The trump.
        #[schema(value_type = String)]
        trump: Suit,
    },
    /// A play broke the following rule, proven by this card (table dealing).
    #[schema(title = "BonusMalusRevoke")]
    Revoke {
        /// Who revoked.
        seat: usize,
        /// The card that proved it.
        #[schema(value_type = String)]
        card: Card,
        /// The trick (from 1) in which the seat showed out of the suit.
        shown_out_in_trick: usize,
    },
    /// A trick was completed.
    #[schema(title = "BonusMalusTrickWon")]
    Trick {
        /// The trick number in the deal, from 1.
        number: usize,
        /// Who won it.
        winner: usize,
        /// The trick's trump; null once the stock is empty.
        #[schema(value_type = Option<String>, required = true)]
        trump: Option<Suit>,
        /// The trick's value.
        value: i64,
    },
    /// Each seat drew a card from the stock, the trick's winner first.
    #[schema(title = "BonusMalusDrawn")]
    Drawn {
        /// The seats in the order they drew.
        order: Vec<usize>,
        /// Cards left in the stock.
        stock: usize,
    },
    /// 3 players: the stock's odd last card was set aside unseen.
    #[schema(title = "BonusMalusSetAside")]
    SetAside {},
    /// A deal was scored.
    #[schema(title = "BonusMalusDealScored")]
    DealScored {
        /// The round.
        round: u32,
        /// The deal's multiplier (its number).
        multiplier: i64,
        /// What each side (or seat) captured, by suit.
        #[schema(value_type = Vec<BonusMalusSuitCounts>)]
        taken: Vec<SuitCounts>,
        /// The value of each capture.
        values: Vec<i64>,
        /// Points per side (or seat), multiplier applied.
        points: Vec<i64>,
        /// Running totals.
        totals: Vec<i64>,
        /// Service dealing, 3 players: the card set aside; null otherwise.
        #[schema(value_type = Option<String>, required = true)]
        set_aside: Option<Card>,
        /// 3 players: the suit of the card set aside; null otherwise.
        #[schema(value_type = Option<String>, required = true)]
        set_aside_suit: Option<Suit>,
    },
    /// The match is over.
    #[schema(title = "BonusMalusMatchFinished")]
    MatchFinished {
        /// The winning sides (or seats).
        winners: Vec<usize>,
        /// The winner's total minus the runner-up's.
        #[schema(required = true)]
        margin: Option<i64>,
    },
}

/// The raw figures of a scored Bonus-Malus deal (`detail` of a score sheet round).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BonusMalusRoundDetail {
    /// What each side (or seat) captured, by suit.
    #[schema(value_type = Vec<BonusMalusSuitCounts>)]
    pub taken: Vec<SuitCounts>,
    /// The value of each capture.
    pub values: Vec<i64>,
    /// Whether the deal was recorded as a tally (no play-by-play).
    pub tallied: bool,
    /// How many revokes were proven in the deal.
    pub revokes: usize,
    /// Service dealing, 3 players: the card set aside; null otherwise.
    #[schema(value_type = Option<String>, required = true)]
    pub set_aside: Option<Card>,
    /// 3 players: the suit of the card set aside; null otherwise.
    #[schema(value_type = Option<String>, required = true)]
    pub set_aside_suit: Option<Suit>,
}

/// A completed trick of Bonus-Malus: its plays, winner, trump and value.
type TrickRecord = super::trick::TrickRecord<TrickNote>;

#[derive(Clone, Debug)]
struct DealState {
    /// The shared trick bookkeeping: turn, hands or cards seen, tricks, revokes.
    tp: TrickPlay<TrickNote>,
    /// Service dealing: the stock, top card last.
    stock: Option<Vec<Card>>,
    /// Cards left in the stock.
    stock_left: usize,
    /// The trump of the trick in progress (`None`: stock empty, or not yet recorded).
    trump: Option<Suit>,
    /// Table dealing: the table must record the suit now on top of the stock.
    awaiting_stock_top: bool,
    /// 3 players: whether the last stock card has been set aside, and (service dealing) which.
    set_aside: bool,
    set_aside_card: Option<Card>,
    /// Cards each seat holds now.
    hand_sizes: Vec<usize>,
    /// Table dealing: per seat, cards of each suit drawn with the suit known (the trick's winner
    /// draws the card whose back made the trump) and cards of each suit played.
    drawn_known: Vec<[u32; 4]>,
    played_by: Vec<[u32; 4]>,
    commitment: Option<Commitment>,
}

#[derive(Clone, Debug)]
struct DealResult {
    taken: Vec<SuitCounts>,
    values: Vec<i64>,
    points: Vec<i64>,
    multiplier: i64,
    tallied: bool,
    revokes: usize,
    set_aside: Option<Card>,
    set_aside_suit: Option<Suit>,
}

/// The state of a Bonus-Malus match.
#[derive(Clone, Debug)]
pub struct BonusMalus {
    config: BonusMalusConfig,
    players: usize,
    dealing: Dealing,
    round: u32,
    deal: Option<DealState>,
    results: Vec<DealResult>,
    totals: Vec<i64>,
    finished: bool,
}

/// The ranking: the highest trump wins, else the highest of the led suit.
fn rank_key(led: Suit, trump: Option<Suit>, card: Card) -> Option<u32> {
    if Some(card.suit()) == trump {
        Some(100 + card.rank() as u32)
    } else if card.suit() == led {
        Some(card.rank() as u32)
    } else {
        None
    }
}

/// The following rule: follow suit if able; else trump if able; else anything.
fn duty(led: Option<Suit>, trump: Option<Suit>) -> Duties {
    let Some(led) = led else {
        return Duties::default();
    };
    let d = Duties::default().then(SuitSet::of(&[led]));
    match trump.filter(|t| *t != led) {
        Some(t) => d.then(SuitSet::of(&[t])),
        None => d,
    }
}

fn trick_value(t: &Trick) -> i64 {
    t.plays.iter().map(|p| suit_value(p.card.suit())).sum()
}

impl BonusMalus {
    /// Scores are kept per side with 4 players (seats 0+2, 1+3), per seat otherwise.
    fn sides(&self) -> usize {
        if self.players == 4 {
            2
        } else {
            self.players
        }
    }

    /// The `points` tally form (score-only contract) while the table may tally: table dealing,
    /// no card of the deal in progress played. RULES.md "Bonus-Malus": cards are worth
    /// multiples of 5, one side takes at most all ♠ and ♥ (130 + 65 = 195); the deal's number
    /// multiplies it; with two sides only one has a plus total.
    fn points_form(&self) -> Option<TallyForm> {
        let deal_number = match &self.deal {
            Some(d) if !d.tp.played().is_empty() => return None,
            Some(_) => self.round,
            None => self.round + 1,
        };
        let sides = self.sides();
        let unit = if self.players == 4 {
            TallyUnit::Side
        } else {
            TallyUnit::Seat
        };
        (self.dealing == Dealing::Table).then(|| TallyForm {
            step: 5,
            multiplier: Some(i64::from(deal_number)),
            nonzero_at_most: (sides == 2).then_some(1),
            ..TallyForm::points(unit, sides, 0, 195)
        })
    }

    fn side_of(&self, seat: usize) -> usize {
        seat % self.sides()
    }

    fn dealer_of(&self, round: u32) -> usize {
        super::dealer_of(self.config.first_dealer, round, self.players)
    }

    fn next_dealer(&self) -> usize {
        self.dealer_of(self.round + 1)
    }

    /// Cards played in a deal: 52, less the card set aside with 3 players.
    fn cards_in_play(&self) -> usize {
        if self.players == 3 {
            51
        } else {
            52
        }
    }

    fn to_play(&self) -> Option<usize> {
        let d = self.deal.as_ref()?;
        (!d.awaiting_stock_top).then(|| d.tp.to_play())
    }

    fn duty_of(d: &DealState) -> Duties {
        duty(d.tp.trick().lead().map(|c| c.suit()), d.trump)
    }

    /// Checks a play without changing anything; returns the revoke it proves, if any.
    fn check_play(&self, seat: usize, card: Card) -> Result<Option<Revoke>, BonusMalusError> {
        let d = self.deal.as_ref().ok_or(BonusMalusError::DealExpected)?;
        if d.awaiting_stock_top {
            return Err(BonusMalusError::StockTopExpected);
        }
        Self::check_play_in(d, seat, card, &Self::duty_of(d))
    }

    /// The cards of `candidates` that [`Self::check_play`] accepts for `seat` (the following
    /// rule worked out once, not once a card).
    fn legal_cards(&self, d: &DealState, seat: usize) -> CardSet {
        if d.awaiting_stock_top {
            return CardSet::EMPTY;
        }
        // `check_play_in` accepts exactly what the shared check does (the same three checks).
        d.tp.legal(seat, &Self::duty_of(d))
    }

    /// [`Self::check_play`] in a deal waiting for no stock top, under the trick's `duty`.
    fn check_play_in(
        d: &DealState,
        seat: usize,
        card: Card,
        duty: &[SuitSet],
    ) -> Result<Option<Revoke>, BonusMalusError> {
        // The public checks, then the following rule (public here: the backs show every hand's
        // suits), and only then whether the seat holds the card: a card it does not hold is
        // refused for following exactly as one it holds would be.
        d.tp.check_public(seat, card)
            .and_then(|()| d.tp.check_duty(seat, card, duty))
            .and_then(|()| d.tp.check_holding(seat, card))
            .map_err(|e| match e {
                PlayError::MustFollow {
                    seat,
                    card,
                    tier: 0,
                    holding,
                    ..
                } => BonusMalusError::MustFollowSuit {
                    seat,
                    card,
                    led: holding,
                },
                PlayError::MustFollow {
                    seat,
                    card,
                    holding,
                    ..
                } => BonusMalusError::MustTrump {
                    seat,
                    card,
                    led: d.tp.trick().lead().map_or(holding, |c| c.suit()),
                    trump: holding,
                },
                e => BonusMalusError::Play(e),
            })
    }

    fn play(
        &mut self,
        seat: usize,
        card: Card,
    ) -> Result<Produced<BonusMalusOutcome>, BonusMalusError> {
        let revoke = self.check_play(seat, card)?;
        let players = self.players;
        let cards_in_play = self.cards_in_play();
        let sides = self.sides();
        let mut out = Produced::new();
        let d = self.deal.as_mut().expect("checked");
        if let Some(r) = &revoke {
            out.push(BonusMalusOutcome::Revoke {
                seat: r.seat,
                card: r.card,
                shown_out_in_trick: r.shown_out_in_trick,
            });
        }
        let trick_no = d.tp.trick_number();
        let trump = d.trump;
        d.tp.record(seat, card, &Self::duty_of(d), revoke);
        d.hand_sizes[seat] -= 1;
        d.played_by[seat][card.suit() as usize] += 1;
        let led = d.tp.trick().lead().expect("just played").suit();
        let Some(t) = d.tp.complete(
            |c| rank_key(led, trump, c),
            |t, _| TrickNote {
                trump,
                value: trick_value(t),
            },
        ) else {
            return Ok(out);
        };
        let winner = t.winner;
        out.push(BonusMalusOutcome::Trick {
            number: trick_no,
            winner,
            trump,
            value: t.note.value,
        });
        // The draws: the winner first, then the others in turn from his left, while the stock
        // can serve everyone (docs/rules.md#bonus-malus-draws; with 3 players the odd last card is set aside).
        if d.stock_left >= players {
            let order: Vec<usize> = (0..players).map(|k| (winner + k) % players).collect();
            for &s in &order {
                if let Some(card) = d.stock.as_mut().and_then(|st| st.pop()) {
                    d.tp.give(s, card);
                } else if d.stock.is_none() {
                    // Table dealing: the winner's card is the one whose back made the trump;
                    // the suits of the others' cards are not recorded.
                    let known = if s == winner { trump } else { None };
                    d.tp.forget_shown_out(s, known);
                    if let Some(k) = known {
                        d.drawn_known[s][k as usize] += 1;
                    }
                }
                d.hand_sizes[s] += 1;
            }
            d.stock_left -= players;
            out.push(BonusMalusOutcome::Drawn {
                order,
                stock: d.stock_left,
            });
        }
        if d.stock_left > 0 && d.stock_left < players {
            // 3 players: the last card cannot serve all three; it is set aside unseen.
            d.set_aside = true;
            d.set_aside_card = d.stock.as_mut().and_then(|st| st.pop());
            d.stock_left = 0;
            out.push(BonusMalusOutcome::SetAside {});
        }
        d.trump = None;
        if d.stock_left > 0 {
            match &d.stock {
                Some(st) => d.trump = st.last().map(|c| c.suit()),
                None => d.awaiting_stock_top = true,
            }
        }
        if d.tp.played().len() == cards_in_play {
            let mut taken = vec![CardSet::EMPTY; sides];
            for (seat, cards) in d.tp.taken().into_iter().enumerate() {
                for c in cards.iter() {
                    taken[seat % sides].insert(c);
                }
            }
            // Table dealing, 3 players: the card set aside is the one card never played.
            let set_aside = if players == 3 {
                d.set_aside_card
                    .or_else(|| full_deck().difference(d.tp.played()).iter().next())
            } else {
                None
            };
            let revokes = d.tp.revokes().len();
            let taken = taken.into_iter().map(SuitCounts::of).collect();
            out.extend(self.score_deal(taken, false, revokes, set_aside));
        }
        Ok(out)
    }

    fn score_deal(
        &mut self,
        taken: Vec<SuitCounts>,
        tallied: bool,
        revokes: usize,
        set_aside: Option<Card>,
    ) -> Vec<BonusMalusOutcome> {
        let values: Vec<i64> = taken.iter().map(SuitCounts::value).collect();
        // 3 players: the suit of the card set aside is the one short of 13 in the captures.
        let set_aside_suit = (self.players == 3)
            .then(|| {
                Suit::ALL
                    .into_iter()
                    .find(|s| taken.iter().map(|t| t.get(*s)).sum::<u32>() < 13)
            })
            .flatten();
        debug_assert_eq!(
            set_aside_suit,
            set_aside.map(|c| c.suit()).or(set_aside_suit)
        );
        debug_assert_eq!(
            values.iter().sum::<i64>() + set_aside_suit.map_or(0, suit_value),
            0,
            "the deck sums to 0"
        );
        self.record_deal(taken, values, tallied, revokes, set_aside, set_aside_suit)
    }

    fn record_deal(
        &mut self,
        taken: Vec<SuitCounts>,
        values: Vec<i64>,
        tallied: bool,
        revokes: usize,
        set_aside: Option<Card>,
        set_aside_suit: Option<Suit>,
    ) -> Vec<BonusMalusOutcome> {
        let multiplier = self.round as i64;
        // Only a plus total scores (equal totals of two sides are 0 and score nothing); deal n
        // counts n times.
        let points: Vec<i64> = values.iter().map(|&v| v.max(0) * multiplier).collect();
        for (t, p) in self.totals.iter_mut().zip(&points) {
            *t += p;
        }
        let mut out = vec![BonusMalusOutcome::DealScored {
            round: self.round,
            multiplier,
            taken: taken.clone(),
            values: values.clone(),
            points: points.clone(),
            totals: self.totals.clone(),
            set_aside,
            set_aside_suit,
        }];
        self.results.push(DealResult {
            taken,
            values,
            points,
            multiplier,
            tallied,
            revokes,
            set_aside,
            set_aside_suit,
        });
        self.deal = None;
        if self.totals.iter().any(|&t| t >= self.config.target) {
            self.finished = true;
            let (winners, margin) = winners_and_margin(&self.totals);
            out.push(BonusMalusOutcome::MatchFinished { winners, margin });
        }
        out
    }

    fn start_deal(
        &mut self,
        trump: Option<Suit>,
        seed: Option<&Seed>,
    ) -> Result<Vec<BonusMalusOutcome>, BonusMalusError> {
        let round = self.round + 1;
        let dealer = self.dealer_of(round);
        let leader = (dealer + 1) % self.players;
        let dealt = service_deal(self.dealing, seed, full_deck(), self.players, HAND, dealer)
            .map_err(|p| match p {
                SeedProblem::Missing => BonusMalusError::SeedMissing,
                SeedProblem::NotTaken => BonusMalusError::SeedNotTaken,
            })?;
        match (self.dealing, trump) {
            (Dealing::Table, None) => return Err(BonusMalusError::TrumpRequired),
            (Dealing::Service, Some(_)) => return Err(BonusMalusError::TrumpNotTaken),
            _ => {}
        }
        let (hands, stock) = match dealt {
            Some((hands, mut rest)) => {
                rest.reverse();
                (Some(hands), Some(rest))
            }
            None => (None, None),
        };
        let trump = match &stock {
            Some(st) => st.last().map(|c| c.suit()),
            None => trump,
        };
        self.round = round;
        self.deal = Some(DealState {
            tp: TrickPlay::new(self.players, full_deck(), leader, hands),
            stock,
            stock_left: 52 - HAND * self.players,
            trump,
            awaiting_stock_top: false,
            set_aside: false,
            set_aside_card: None,
            hand_sizes: vec![HAND; self.players],
            drawn_known: vec![[0; 4]; self.players],
            played_by: vec![[0; 4]; self.players],
            commitment: seed.map(Commitment::of),
        });
        Ok(vec![BonusMalusOutcome::Dealt {
            round,
            dealer,
            leader,
            trump,
            stock: 52 - HAND * self.players,
            commitment: seed.map(Commitment::of),
        }])
    }

    /// Whether `suit` can be on top of the stock: not if all 13 of it are known to be outside
    /// it (per seat, at least as many as it played or drew with the suit showing).
    fn check_stock_top(&self, suit: Suit) -> Result<(), BonusMalusError> {
        let d = match &self.deal {
            Some(d) if self.dealing == Dealing::Table && d.awaiting_stock_top => d,
            Some(_) if self.dealing == Dealing::Table => {
                return Err(BonusMalusError::StockTopNotExpected(
                    "the stock's top suit is recorded after the draws of a trick, while cards remain in the stock; it is not awaited now",
                ))
            }
            None if self.dealing == Dealing::Table => {
                return Err(BonusMalusError::StockTopNotExpected(
                    "no deal is in progress; the deal itself records the first trump",
                ))
            }
            _ => {
                return Err(BonusMalusError::StockTopNotExpected(
                    "in service dealing the service knows the stock and shows its top suit",
                ))
            }
        };
        let i = suit as usize;
        let outside: u32 = (0..self.players)
            .map(|s| d.played_by[s][i].max(d.drawn_known[s][i]))
            .sum();
        if outside >= 13 {
            return Err(BonusMalusError::SuitExhausted(suit));
        }
        Ok(())
    }

    fn check_tally(&self, taken: &[SuitCounts]) -> Result<(), BonusMalusError> {
        if self.dealing == Dealing::Service {
            return Err(BonusMalusError::TallyNeedsTableDealing);
        }
        if self
            .deal
            .as_ref()
            .is_some_and(|d| !d.tp.played().is_empty())
        {
            return Err(BonusMalusError::TallyMidDeal);
        }
        let sides = self.sides();
        if taken.len() != sides {
            return Err(BonusMalusError::TallyInconsistent(format!(
                "one entry per {}: {sides} expected, {} given",
                if self.players == 4 { "side" } else { "seat" },
                taken.len()
            )));
        }
        for suit in Suit::ALL {
            let n = taken
                .iter()
                .fold(0u32, |a, t| a.saturating_add(t.get(suit)));
            if n > 13 || (self.players != 3 && n != 13) {
                return Err(BonusMalusError::TallySum(format!(
                    "the deck has 13 {}, not {n}",
                    suit.name()
                )));
            }
        }
        let total = taken.iter().fold(0u32, |a, t| a.saturating_add(t.total()));
        if total != self.cards_in_play() as u32 {
            return Err(BonusMalusError::TallySum(format!(
                "{} cards are taken in a deal (3 players: one is set aside), not {total}",
                self.cards_in_play()
            )));
        }
        // Tricks are taken whole: 4 players, a side's count is a multiple of 4, and so on.
        for (side, t) in taken.iter().enumerate() {
            if t.total() % self.players as u32 != 0 {
                return Err(BonusMalusError::TallyInconsistent(format!(
                    "{} {side} took {} cards, not a whole number of {}-card tricks",
                    if self.players == 4 { "side" } else { "seat" },
                    t.total(),
                    self.players
                )));
            }
        }
        Ok(())
    }

    /// A tally of plus totals per side (the score-only contract; RULES.md "Bonus-Malus": cards
    /// are worth multiples of 5, one side takes at most all ♠ and ♥, 130 + 65 = 195).
    fn tally_points(&mut self, points: &[i64]) -> Result<Vec<BonusMalusOutcome>, BonusMalusError> {
        if self.dealing == Dealing::Service {
            return Err(BonusMalusError::TallyNeedsTableDealing);
        }
        let Some(form) = self.points_form() else {
            return Err(BonusMalusError::TallyMidDeal);
        };
        let four = self.players == 4;
        let who = |i: usize| {
            if four {
                format!("side {} (seats {} and {})", i + 1, i + 1, i + 3)
            } else {
                format!("seat {}", i + 1)
            }
        };
        tally::check(
            &form,
            points,
            |f| match f {
                TallyFault::Entries { expected, got } => BonusMalusError::TallyShape(format!(
                    "one entry per {}: {expected} expected, {got} given",
                    form.unit.word()
                )),
                TallyFault::Range { entry, value } => BonusMalusError::TallyRange {
                    who: who(entry),
                    value,
                },
                TallyFault::Step { entry, value } => BonusMalusError::TallyStep {
                    who: who(entry),
                    value,
                },
                // The form sets no sum; two plus sides are the one non-zero limit.
                TallyFault::Sum { .. } | TallyFault::Nonzero => BonusMalusError::TallyTwoPlus,
            },
            |_, _| Ok(()),
        )?;
        if self.deal.is_none() {
            self.round += 1;
        }
        Ok(self.record_deal(Vec::new(), points.to_vec(), true, 0, None, None))
    }

    fn tally(&mut self, taken: &[SuitCounts]) -> Result<Vec<BonusMalusOutcome>, BonusMalusError> {
        self.check_tally(taken)?;
        if self.deal.is_none() {
            self.round += 1;
        }
        Ok(self.score_deal(taken.to_vec(), true, 0, None))
    }
}

impl Game for BonusMalus {
    const ID: &'static str = "bonus-malus";
    const TITLE: &'static str = "Bonus-Malus";
    const MIN_PLAYERS: usize = 2;
    const MAX_PLAYERS: usize = 4;
    type Config = BonusMalusConfig;
    type Action = Action;
    type Table = BonusMalusTable;
    type Seat = BonusMalusSeat;
    type Outcome = BonusMalusOutcome;
    type RoundDetail = BonusMalusRoundDetail;
    type Error = BonusMalusError;

    const DUPLICATE: bool = true;

    /// docs/rules.md#bonus-malus-values: a plus total scores, multiplied by the deal's number; cards are
    /// worth multiples of 5, at most 130 + 65 = 195 before the multiplier; with two sides only
    /// one can be plus.
    fn check_entered(e: &Entered<'_>) -> Result<(), EntryError> {
        // n is at most the quick log's 200 deals: 195 × n is far inside i64.
        for (k, d) in e.deals.iter().enumerate() {
            let n = k as i64 + 1;
            if d.iter().any(|&x| x < 0 || x % (5 * n) != 0 || x > 195 * n) {
                return Err(entered::impossible(format!(
                    "deal {n}: {d:?}; Bonus-Malus deal {n} scores 0 or a multiple of {} up to {}",
                    5 * n,
                    195 * n
                )));
            }
            if e.units == 2 && d.iter().filter(|&&x| x > 0).count() > 1 {
                return Err(entered::impossible(format!(
                    "deal {n}: {d:?}; with two sides only the one with a plus total scores"
                )));
            }
        }
        if e.totals.iter().any(|&t| t < 0 || t % 5 != 0) {
            return Err(entered::impossible(
                "Bonus-Malus totals are sums of multiples of 5, never negative",
            ));
        }
        e.reached_last(e.int("target", 155), "player or side")
    }

    fn new(
        config: BonusMalusConfig,
        players: usize,
        dealing: Dealing,
    ) -> Result<BonusMalus, BonusMalusError> {
        if !(Self::MIN_PLAYERS..=Self::MAX_PLAYERS).contains(&players) {
            return Err(BonusMalusError::PlayerCount(players));
        }
        if !(1..=MAX_TARGET).contains(&config.target) {
            return Err(BonusMalusError::BadTarget(config.target));
        }
        if config.first_dealer >= players {
            return Err(BonusMalusError::BadDealer {
                max: players - 1,
                got: config.first_dealer,
            });
        }
        let sides = if players == 4 { 2 } else { players };
        Ok(BonusMalus {
            config,
            players,
            dealing,
            round: 0,
            deal: None,
            results: Vec::new(),
            totals: vec![0; sides],
            finished: false,
        })
    }

    fn config(&self) -> &BonusMalusConfig {
        &self.config
    }

    fn seed_reveal(&self) -> SeedReveal {
        self.config.seed_reveal
    }

    fn to_act(&self) -> ToAct {
        if self.finished {
            ToAct::nobody()
        } else {
            self.to_play().map_or_else(ToAct::table, ToAct::seat)
        }
    }

    /// The table: `deal` (table dealing: once per suit that may show on the stock) and
    /// `stock_top` (each suit that may be on top); a seat: every card it may play (table
    /// dealing: every card not yet seen). The table's `tally` is not listed.
    /// The `points` tally while the table may send one (see `points_form`).
    fn tally_form(&self) -> Option<TallyForm> {
        self.points_form()
    }

    fn legal_actions(&self, actor: Actor) -> Vec<Action> {
        if self.finished {
            return vec![];
        }
        match (actor, &self.deal) {
            (Actor::Table, None) => match self.dealing {
                Dealing::Service => vec![Action::Deal { trump: None }],
                Dealing::Table => Suit::ALL
                    .into_iter()
                    .map(|s| Action::Deal { trump: Some(s) })
                    .collect(),
            },
            (Actor::Table, Some(_)) => Suit::ALL
                .into_iter()
                .filter(|s| self.check_stock_top(*s).is_ok())
                .map(|suit| Action::StockTop { suit })
                .collect(),
            (Actor::Seat(s), Some(d)) if Some(s) == self.to_play() => self
                .legal_cards(d, s)
                .iter()
                .map(|card| Action::Play { card })
                .collect(),
            _ => vec![],
        }
    }

    /// The seat to play is picked from its legal cards (a bitset, in the list's order) without
    /// the list; any other list is built.
    fn legal_pick(&self, actor: Actor, pick: impl FnOnce(usize) -> usize) -> Option<Action> {
        match (actor, &self.deal) {
            (Actor::Seat(s), Some(d)) if !self.finished && Some(s) == self.to_play() => self
                .legal_cards(d, s)
                .pick(pick)
                .map(|card| Action::Play { card }),
            _ => crate::rules::pick_listed(self, actor, pick),
        }
    }

    fn dealing(&self) -> Dealing {
        self.dealing
    }

    fn is_deal(action: &Action) -> bool {
        matches!(action, Action::Deal { .. })
    }

    /// Duplicate with real cards: deal `deal` as service dealing deals it (seven each from the
    /// dealer's left), each hand by suit (♠ ♥ ♦ ♣), highest first; the rest is the stock, in
    /// its order (top card first), for the wallet to hold stacked. With three players its last
    /// card is the one set aside unseen.
    fn board(&self, deal: u32, seed: &Seed) -> Option<super::Board> {
        let dealer = self.dealer_of(deal);
        let (hands, stock) =
            super::cards::deal_from_seed(full_deck(), seed, self.players, HAND, dealer);
        Some(super::Board {
            dealer,
            hands: hands
                .iter()
                .map(|h| super::cards::printed(h.to_vec()))
                .collect(),
            undealt: vec![],
            layout: vec![],
            stock: stock.iter().map(ToString::to_string).collect(),
        })
    }

    fn cards_shown(action: &Action) -> Vec<String> {
        match action {
            Action::Play { card } => vec![card.to_string()],
            _ => vec![],
        }
    }

    /// A seat holds its dealt hand and what it has drawn: the draws are not recorded card by
    /// card in table dealing, but the board fixes the stock's order and the log the order of
    /// the draws (after each trick the winner first, then the others from his left, while the
    /// stock serves everyone: docs/rules.md#bonus-malus-draws), the winner by the trumps the
    /// table recorded (`deal`'s `trump`, `stock_top`), as the engine judged the trick.
    fn board_fouls(board: &super::Board, actions: &[(Actor, Action)]) -> Vec<super::BoardFoul> {
        let players = board.hands.len();
        let mut held = super::Holdings::of(board);
        let mut stock = board.stock.iter();
        let mut stock_left = board.stock.len();
        let mut trump: Option<Suit> = None;
        let mut trick = Trick::default();
        let mut out = vec![];
        for (i, (actor, action)) in actions.iter().enumerate() {
            match (action, actor) {
                (Action::Deal { trump: t }, Actor::Table) => trump = *t,
                (Action::StockTop { suit }, Actor::Table) => trump = Some(*suit),
                (Action::Play { card }, Actor::Seat(seat)) => {
                    let seat = *seat;
                    if !held.take(seat, &card.to_string()) {
                        out.push(super::BoardFoul {
                            index: i,
                            seat,
                            card: card.to_string(),
                            face_up: false,
                        });
                    }
                    trick.plays.push(Play { seat, card: *card });
                    if trick.plays.len() < players {
                        continue;
                    }
                    let led = trick.lead().expect("a full trick").suit();
                    let winner = trick.winner_by(|c| rank_key(led, trump, c)).seat;
                    if stock_left >= players {
                        for k in 0..players {
                            if let Some(c) = stock.next() {
                                held.give((winner + k) % players, c);
                            }
                        }
                        stock_left -= players;
                    }
                    if stock_left < players {
                        // Three players: the odd last card is set aside unseen.
                        stock_left = 0;
                    }
                    trump = None;
                    trick.plays.clear();
                }
                _ => {}
            }
        }
        out
    }

    fn apply(
        &mut self,
        actor: Actor,
        action: &Action,
        seed: Option<&Seed>,
    ) -> Result<Produced<BonusMalusOutcome>, BonusMalusError> {
        if self.finished {
            return Err(BonusMalusError::MatchFinished);
        }
        match (action, actor) {
            (Action::Deal { .. }, Actor::Seat(_)) => Err(BonusMalusError::TableActionOnly("deal")),
            (Action::StockTop { .. }, Actor::Seat(_)) => {
                Err(BonusMalusError::TableActionOnly("stock_top"))
            }
            (Action::Tally { .. }, Actor::Seat(_)) => {
                Err(BonusMalusError::TableActionOnly("tally"))
            }
            (Action::Play { .. }, Actor::Table) => Err(BonusMalusError::SeatActionOnly),
            (Action::Deal { trump }, Actor::Table) => {
                if self.deal.is_some() {
                    return Err(BonusMalusError::DealInProgress);
                }
                produced(self.start_deal(*trump, seed))
            }
            (Action::StockTop { suit }, Actor::Table) => {
                self.check_stock_top(*suit)?;
                let d = self.deal.as_mut().expect("checked");
                d.awaiting_stock_top = false;
                d.trump = Some(*suit);
                Ok(smallvec::smallvec![BonusMalusOutcome::Trump {
                    trump: *suit
                }])
            }
            (Action::Tally { taken, points }, Actor::Table) => match (taken, points) {
                (Some(taken), None) => produced(self.tally(taken)),
                (None, Some(points)) => produced(self.tally_points(points)),
                _ => Err(BonusMalusError::TallyShape(
                    "give either `taken` or `points`, not both nor neither".into(),
                )),
            },
            (Action::Play { card }, Actor::Seat(s)) => self.play(s, *card),
        }
    }

    fn table(&self) -> BonusMalusTable {
        let phase = match &self.deal {
            _ if self.finished => Phase::Finished,
            None => Phase::AwaitingDeal,
            Some(d) if d.awaiting_stock_top => Phase::AwaitingStockTop,
            Some(_) => Phase::Playing,
        };
        let mut v = BonusMalusTable {
            phase,
            target: self.config.target,
            next_dealer: (self.deal.is_none() && !self.finished).then(|| self.next_dealer()),
            multiplier: match &self.deal {
                _ if self.finished => None,
                Some(_) => Some(self.round),
                None => Some(self.round + 1),
            },
            leader: None,
            to_play: None,
            trump: None,
            stock: None,
            set_aside: None,
            trick: vec![],
            tricks: None,
            captured: None,
            cards_left: None,
            backs: None,
            revokes: vec![],
            commitment: None,
        };
        if let Some(d) = &self.deal {
            let mut captured = vec![0i64; self.sides()];
            for t in d.tp.tricks() {
                captured[self.side_of(t.winner)] += t.note.value;
            }
            // The backs of the cards show their suits: what each seat holds, by suit, is public
            // at the table (service dealing; in table dealing the service does not know it).
            let backs: Option<Vec<SuitCounts>> =
                d.tp.hands()
                    .map(|h| h.iter().map(|h| SuitCounts::of(*h)).collect());
            v.leader = Some(d.tp.leader());
            v.to_play = Some(self.to_play());
            v.trump = d.trump;
            v.stock = Some(d.stock_left);
            v.set_aside = Some(d.set_aside);
            v.trick = d.tp.trick().plays.clone();
            v.tricks = Some(d.tp.tricks().to_vec());
            v.captured = Some(captured);
            v.cards_left = Some(d.hand_sizes.clone());
            v.backs = Some(backs);
            v.revokes = d.tp.revokes().to_vec();
            v.commitment = Some(d.commitment.map(|c| c.to_string()));
        }
        v
    }

    fn seat(&self, seat: usize) -> Option<BonusMalusSeat> {
        let hand = self
            .deal
            .as_ref()
            .and_then(|d| d.tp.hand(seat))
            .map(|h| h.to_vec());
        Some(BonusMalusSeat {
            seat,
            hand,
            side: (seat < self.players).then(|| self.side_of(seat)),
        })
    }

    fn score_sheet(&self) -> ScoreSheet {
        let rounds = self
            .results
            .iter()
            .enumerate()
            .map(|(i, r)| RoundScore {
                round: i as u32 + 1,
                label: format!("Deal {}", i + 1),
                multiplier: r.multiplier,
                points: r.points.clone(),
                detail: to_json(&BonusMalusRoundDetail {
                    taken: r.taken.clone(),
                    values: r.values.clone(),
                    tallied: r.tallied,
                    revokes: r.revokes,
                    set_aside: r.set_aside,
                    set_aside_suit: r.set_aside_suit,
                }),
            })
            .collect();
        ScoreSheet::from_totals(
            self.players == 4,
            rounds,
            self.totals.clone(),
            self.finished,
        )
    }

    fn round(&self) -> u32 {
        self.round
    }

    fn dealer(&self) -> Option<usize> {
        super::dealer_now(self.deal.is_some(), self.finished, self.round, |r| {
            self.dealer_of(r)
        })
    }

    fn rounds_completed(&self) -> u32 {
        self.results.len() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Card {
        s.parse().unwrap()
    }

    #[test]
    fn the_highest_trump_wins_else_the_highest_of_the_led_suit() {
        assert!(
            rank_key(Suit::H, Some(Suit::S), c("2S")) > rank_key(Suit::H, Some(Suit::S), c("AH"))
        );
        assert_eq!(rank_key(Suit::H, None, c("AS")), None);
        assert!(rank_key(Suit::H, None, c("3H")) > rank_key(Suit::H, None, c("2H")));
    }

    #[test]
    fn the_deck_sums_to_zero() {
        assert_eq!(SuitCounts::of(full_deck()).value(), 0);
    }
}

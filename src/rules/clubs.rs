//! Clubs (Alex Chen, James Cook, Patrick LaVictoire, 2004): tricks where clubs are a semi-trump.
//!
//! docs/rules.md#clubs: 3 or 4 players, 52 cards; 4 players get 13 each, 3 players 17 each and the last
//! card lies face down and goes, counted, to the winner of the last trick. The holder of 2♣ leads it
//! (3♣ when 2♣ is the face-down card). A club lead declares a suit or clubs alone; the **called
//! suit** (the led suit, or the declared one) governs following (called suit or a club; anything only
//! when out of both; after clubs alone, a club if able) and winning (only clubs and the called suit
//! win; each club ranks just above the same rank of the called suit). Tally: −1 a card, +3 a club
//! except J♣, −10 more for J♣; scrambling when any tally is −26 or worse (no per-card penalty, −3 a
//! club except J♣, +10 for J♣). Every deal sums to −26. The match ends after the deal in which a
//! total reaches −100 or below; the greatest total wins, equal totals share.

use serde::{Deserialize, Serialize};

use utoipa::ToSchema;

use super::entered::{self, Entered, EntryError};
use super::{
    cards::{full_deck, Card, CardSet, Commitment, Seed, Suit, SuitSet},
    produced,
    sheet::{winners_and_margin, RoundScore, ScoreSheet},
    tally::{self, TallyFault, TallyForm, TallyUnit},
    to_json,
    trick::{service_deal, Play, PlayError, Revoke, SeedProblem, TrickPlay},
    Actor, Dealing, Game, ProblemFields, Produced, RuleError, SeedReveal, ToAct,
};

/// What every deal's tallies sum to, under either formula (docs/rules.md#clubs-tally).
pub const DEAL_SUM: i64 = -26;
/// The match ends after the deal in which any total reaches this or below.
pub const END_AT: i64 = -100;

/// Clubs' match options.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ClubsConfig {
    /// The dealer of the first deal; the deal passes to the left each round. (The dealer matters
    /// for service dealing: the cards go out one at a time from his left, and with 3 players the
    /// last card is the face-down one.)
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

/// One action of Clubs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = ClubsAction)]
// Each variant's `title` names it in the spec, hence in generated clients (`ClubsPlay`, ...):
// stable names whatever the variants' order; tests/openapi.rs checks every variant has one.
pub enum Action {
    /// Table action that starts a deal. In service dealing the service shuffles and deals.
    #[schema(title = "ClubsDeal")]
    Deal {},
    /// A seat plays a card to the trick. Whoever leads a club declares the called suit.
    #[schema(title = "ClubsPlay")]
    Play {
        /// The card, rank then suit (`10` accepted for `T`).
        #[schema(value_type = String, pattern = "^(10|[2-9TJQKAtjqka])[SHDCshdc♠♥♦♣]\u{FE0F}?$", example = "2C")]
        card: Card,
        /// Only with a club lead, and then required: the called suit (`H`, `S`, `D`), or `C` for
        /// clubs alone.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(value_type = Option<String>, pattern = "^[SHDC♠♥♦♣]$", example = "H")]
        declare: Option<Suit>,
    },
    /// Table dealing only: a whole deal's result without play-by-play, per seat what its tricks
    /// held (the 3-player face-down card counted with the last trick's winner). Checked: the
    /// cards sum to 52, the clubs to 12, one seat took J♣, each seat took whole tricks.
    #[schema(title = "ClubsTally")]
    Tally {
        /// What each seat took, by seat (this or `points`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(example = json!([{"cards": 16, "clubs": 4, "jack": false}, {"cards": 12, "clubs": 2, "jack": true}, {"cards": 12, "clubs": 3, "jack": false}, {"cards": 12, "clubs": 3, "jack": false}]))]
        taken: Option<Vec<Taken>>,
        /// The deal's final tally per seat, after any recount (this or `taken`): sums to −26,
        /// each a score one seat can make (−36 to 24).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(example = json!([-4, -13, -6, -3]))]
        points: Option<Vec<i64>>,
    },
}

/// What one seat took in a deal's tricks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Taken {
    /// Cards taken, all suits, J♣ included.
    #[schema(minimum = 0, maximum = 52, example = 12)]
    pub cards: u32,
    /// Clubs taken, J♣ excluded.
    #[schema(minimum = 0, maximum = 12, example = 3)]
    pub clubs: u32,
    /// Whether the seat took J♣.
    pub jack: bool,
}

/// Why Clubs refused an action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClubsError {
    /// A player count the game cannot seat, at creation (the count asked for).
    #[error("Clubs is played by 3 or 4 players, not {0}")]
    PlayerCount(usize),
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
    /// Table dealing, the deal's opening lead: a seat the match does not have.
    #[error("`seat` {seat} names no seat: this table has {players} seats (`seat` 0 to {})", players - 1)]
    NoSuchSeat {
        /// The seat named.
        seat: usize,
        /// The number of players.
        players: usize,
    },
    /// A play refused by the shared trick bookkeeping (turn, deck, card played, hand).
    #[error(transparent)]
    Play(PlayError),
    /// A deal's first card other than its opening card (2♣, or 3♣ when 2♣ is face down).
    #[error("the holder of 2♣ leads it to the first trick{}", if *three_players { " (3♣ when 2♣ is the face-down card)" } else { "" })]
    MustLeadTwoOfClubs {
        /// Whether the match has 3 players (then 3♣ may open instead).
        three_players: bool,
    },
    /// A play of 2♣ when it is the face-down card (3 players: 3♣ opened, so everyone knows).
    #[error("{0} is the face-down card (3♣ opened the deal, so 2♣ was never dealt to a hand)")]
    CardFaceDown(Card),
    /// Service dealing: a seat holding a card of the called suit or a club played another suit.
    #[error("seat {seat_1} holds {} and must play {} ({} called)", holding.one(), called_rule(*called), called.name(), seat_1 = seat + 1)]
    MustFollowSuit {
        /// The seat that played.
        seat: usize,
        /// The card played.
        card: Card,
        /// The suit called for this trick (`C`: clubs alone).
        called: Suit,
        /// A suit the seat holds that it had to play.
        holding: Suit,
    },
    /// A club lead without a `declare`.
    #[error("whoever leads a club declares a suit (H, S, D) or clubs alone (C): add \"declare\"")]
    DeclarationRequired,
    /// A `declare` with a card that is not a club lead.
    #[error("only a club lead declares a suit; {card} {}", if *lead { "is not a club" } else { "is not a lead" })]
    DeclarationNotAllowed {
        /// The card played.
        card: Card,
        /// Whether the card led the trick (then it was not a club).
        lead: bool,
    },
    /// A tally in service dealing, where every card is played.
    #[error("tally is for table dealing only; with service dealing every card is played")]
    TallyNeedsTableDealing,
    /// A tally after cards of the deal in progress have been played.
    #[error("a tally records a whole deal: it cannot follow cards already played in this deal")]
    TallyMidDeal,
    /// A tally whose cards, clubs or jacks of clubs over the seats do not add up.
    #[error("a tally's {what} must sum to {want} over the seats, not {got}")]
    TallySum {
        /// What was summed (cards, clubs, jacks of clubs).
        what: &'static str,
        /// The sum a whole deal makes.
        want: u32,
        /// The sum of the entries given.
        got: u32,
    },
    /// A tally that cannot be a deal's result: wrong number of entries, more clubs than cards,
    /// or not whole tricks (why).
    #[error("tally: {0}")]
    TallyInconsistent(String),
    /// A tally with both or neither of `taken` and `points`, or not one entry per seat.
    #[error("tally: {0}")]
    TallyShape(String),
    /// A `points` tally that does not sum to −26 (its sum).
    #[error("a deal's tallies sum to -26, not {0}")]
    TallyPointsSum(i64),
    /// A `points` entry outside what one seat can score in a deal (−36 to 24).
    #[error("seat {}: {value} is outside -36 to 24, what one seat can score in a deal", seat + 1)]
    TallyRange {
        /// The seat (0-based; told 1-based).
        seat: usize,
        /// The value given.
        value: i64,
    },
    /// A `points` entry in range that no seat's cards can make.
    #[error("seat {}: no cards taken in whole tricks score {value}", seat + 1)]
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

fn called_rule(called: Suit) -> String {
    if called == Suit::C {
        "a club (clubs alone)".into()
    } else {
        format!("{} or a club", called.name())
    }
}

impl RuleError for ClubsError {
    /// Service dealing: whether the seat holds the card and whether it could follow the called
    /// suit are its hand's secrets (the opening card is not: its holder leads, by rule).
    fn hidden(&self) -> bool {
        match self {
            ClubsError::Play(e) => e.hidden(),
            ClubsError::MustFollowSuit { .. } => true,
            _ => false,
        }
    }

    fn code(&self) -> &'static str {
        use ClubsError::*;
        match self {
            PlayerCount(_) => "bad_player_count",
            BadDealer { .. } => "invalid_config",
            MatchFinished => super::MATCH_FINISHED,
            DealExpected => "deal_expected",
            DealInProgress => "deal_in_progress",
            TableActionOnly(_) => "table_action_only",
            SeatActionOnly => "seat_action_only",
            NoSuchSeat { .. } => "not_your_turn",
            Play(e) => e.code(),
            MustLeadTwoOfClubs { .. } => "must_lead_two_of_clubs",
            CardFaceDown(_) => "card_face_down",
            MustFollowSuit { .. } => "must_follow_suit",
            DeclarationRequired => "declaration_required",
            DeclarationNotAllowed { .. } => "declaration_not_allowed",
            TallyNeedsTableDealing => "tally_not_allowed",
            TallyMidDeal => "tally_mid_deal",
            TallySum { .. } => "tally_sum",
            TallyInconsistent(_) => "tally_inconsistent",
            TallyShape(_) => "tally_shape",
            TallyPointsSum(_) => "tally_sum",
            TallyRange { .. } => "tally_range",
            TallyUnachievable { .. } => "tally_unachievable",
            SeedMissing => "seed_missing",
            SeedNotTaken => "seed_not_taken",
        }
    }

    /// The seat and card; for `must_follow_suit` the suit called (the seat must play it or a
    /// club); a tally's sum or value against what a deal makes.
    fn fields(&self) -> ProblemFields {
        use ClubsError::*;
        match self {
            Play(e) => e.fields(),
            CardFaceDown(c) => ProblemFields::card(*c),
            DeclarationNotAllowed { card, .. } => ProblemFields::card(*card),
            MustFollowSuit {
                seat, card, called, ..
            } => ProblemFields::seat(*seat)
                .with_card(*card)
                .with_suit(*called),
            TallySum { want, got, .. } => ProblemFields::compare(*want, *got),
            TallyPointsSum(sum) => ProblemFields::compare(DEAL_SUM, *sum),
            TallyRange { seat, value } | TallyUnachievable { seat, value } => {
                ProblemFields::seat(*seat).with_got(*value)
            }
            _ => ProblemFields::none(),
        }
    }
}

/// What a completed trick records besides its plays and winner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct TrickNote {
    /// The called suit (`C`: clubs alone).
    #[schema(value_type = String, example = "H")]
    pub called: Suit,
}

/// Where a Clubs match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = ClubsPhase)]
pub enum Phase {
    /// Between deals: the table deals next.
    AwaitingDeal,
    /// A deal is being played.
    Playing,
    /// The match is over.
    Finished,
}

/// A completed trick of Clubs (`table.tricks`).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the spec's shape of a `TrickRecord<TrickNote>`
pub struct ClubsTrick {
    /// The cards in the order played.
    plays: Vec<Play>,
    /// The seat that won it (and leads next).
    winner: usize,
    /// The called suit (`C`: clubs alone).
    #[schema(value_type = String, example = "H")]
    called: Suit,
}

/// The face-down card (3 players) and who took it with the last trick.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClubsFaceDown {
    /// The card.
    #[schema(value_type = String, example = "2C")]
    pub card: Card,
    /// The seat that won the last trick and took it, counted.
    pub to: usize,
}

/// Clubs' public state (`table` in the match view). The keys marked "during a deal" are absent
/// between deals.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClubsTable {
    /// Between deals, playing, or over.
    pub phase: Phase,
    /// The total at or below which the match ends (-100).
    pub end_at: i64,
    /// Between deals: who deals next (null during a deal and once finished).
    #[schema(required = true)]
    pub next_dealer: Option<usize>,
    /// During a deal: who led the trick in progress; null while the opening card may come from
    /// any seat (table dealing).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<usize>)]
    pub leader: Option<Option<usize>>,
    /// During a deal: the seat to play; null while the opening card may come from any seat.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<usize>)]
    pub to_play: Option<Option<usize>>,
    /// During a deal, before the first card: the card(s) that may open it (2♣, or 3♣ when 2♣
    /// lies face down); null once it is opened.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<String>>)]
    pub opening: Option<Option<Vec<Card>>>,
    /// During a deal: the called suit of the trick in progress (`C`: clubs alone), null before
    /// its lead.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub called_suit: Option<Option<Suit>>,
    /// The trick in progress, its plays in order (empty between deals).
    pub trick: Vec<Play>,
    /// During a deal: the completed tricks of the deal.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Vec<ClubsTrick>, nullable = false)]
    pub tricks: Option<Vec<TrickRecord>>,
    /// During a deal: what each seat has taken so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub taken: Option<Vec<Taken>>,
    /// During a deal: how many cards each seat still holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub cards_left: Option<Vec<usize>>,
    /// During a deal: the face-down card once public (3♣ opened: it is 2♣), else null.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub face_down: Option<Option<Card>>,
    /// Revokes proven in the deal (table dealing; empty between deals).
    pub revokes: Vec<Revoke>,
    /// During a deal: the service deal's seed commitment (SHA-256 hex), null in table dealing.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub commitment: Option<Option<String>>,
}

/// A Clubs seat's private state (`you` in the match view).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClubsSeat {
    /// The seat.
    pub seat: usize,
    /// Service dealing, during a deal: the cards the seat holds. Null otherwise.
    #[schema(value_type = Option<Vec<String>>, required = true)]
    pub hand: Option<Vec<Card>>,
}

/// What a Clubs action produced (`outcome` in the log).
#[derive(Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClubsOutcome {
    /// A deal started.
    #[schema(title = "ClubsDealt")]
    Dealt {
        /// The round, from 1.
        round: u32,
        /// The dealer.
        dealer: usize,
        /// Service dealing: who holds the opening card and leads; null in table dealing.
        #[schema(required = true)]
        leader: Option<usize>,
        /// The card(s) that may open the deal.
        #[schema(value_type = Vec<String>)]
        opening: Vec<Card>,
        /// Service dealing: SHA-256 (hex) of the shuffle seed; null in table dealing.
        #[schema(value_type = Option<String>, required = true)]
        commitment: Option<Commitment>,
    },
    /// A play broke the following rule, proven by this card (table dealing).
    #[schema(title = "ClubsRevoke")]
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
    #[schema(title = "ClubsTrickWon")]
    Trick {
        /// The trick number in the deal, from 1.
        number: usize,
        /// Who won it.
        winner: usize,
        /// The called suit (`C`: clubs alone).
        #[schema(value_type = String)]
        called: Suit,
    },
    /// 3 players: the face-down card went, counted, to the winner of the last trick.
    #[schema(title = "ClubsFaceDownTaken")]
    FaceDown {
        /// The card.
        #[schema(value_type = String)]
        card: Card,
        /// Who took it.
        to: usize,
    },
    /// A deal was scored.
    #[schema(title = "ClubsDealScored")]
    DealScored {
        /// The round.
        round: u32,
        /// What each seat took.
        taken: Vec<Taken>,
        /// Whether the deal was scrambled (one seat took every club and J♣).
        scrambled: bool,
        /// Points per seat.
        points: Vec<i64>,
        /// Running totals.
        totals: Vec<i64>,
    },
    /// The match is over.
    #[schema(title = "ClubsMatchFinished")]
    MatchFinished {
        /// The winning seats.
        winners: Vec<usize>,
        /// The winner's total minus the runner-up's.
        #[schema(required = true)]
        margin: Option<i64>,
    },
}

/// The raw figures of a scored Clubs deal (`detail` of a score sheet round).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClubsRoundDetail {
    /// What each seat took (empty for a tally given as `points`).
    pub taken: Vec<Taken>,
    /// Whether the deal was scrambled.
    pub scrambled: bool,
    /// Whether the deal was recorded as a tally (no play-by-play).
    pub tallied: bool,
    /// How many revokes were proven in the deal.
    pub revokes: usize,
    /// 3 players: the face-down card and who took it; null otherwise (and for a tally).
    #[schema(required = true)]
    pub face_down: Option<ClubsFaceDown>,
}

/// A completed trick of Clubs: its plays, winner and called suit.
type TrickRecord = super::trick::TrickRecord<TrickNote>;

#[derive(Clone, Debug)]
struct DealState {
    /// The shared trick bookkeeping: turn, hands or cards seen, tricks, revokes.
    tp: TrickPlay<TrickNote>,
    /// The called suit of the trick in progress, once led.
    called: Option<Suit>,
    /// The card that opens the deal (2♣, or 3♣ when 2♣ lies face down); in 3-player table
    /// dealing either, until one is led. A set: canonical order is the lists' order (2♣, 3♣).
    opening: CardSet,
    /// 3 players: the face-down card. Service dealing: known from the deal (kept secret until
    /// the deal ends, unless 3♣ opening shows it is 2♣); table dealing: known once 3♣ opens.
    face_down: Option<Card>,
    /// Whether the face-down card is public (3♣ opened the deal).
    face_down_public: bool,
    commitment: Option<Commitment>,
}

#[derive(Clone, Debug)]
struct DealResult {
    taken: Vec<Taken>,
    points: Vec<i64>,
    scrambled: bool,
    tallied: bool,
    revokes: usize,
    face_down: Option<(Card, usize)>,
}

/// The state of a Clubs match.
#[derive(Clone, Debug)]
pub struct Clubs {
    config: ClubsConfig,
    players: usize,
    dealing: Dealing,
    round: u32,
    deal: Option<DealState>,
    results: Vec<DealResult>,
    totals: Vec<i64>,
    finished: bool,
}

fn two_of_clubs() -> Card {
    Card::new(2, Suit::C)
}

fn three_of_clubs() -> Card {
    Card::new(3, Suit::C)
}

fn jack_of_clubs() -> Card {
    Card::new(11, Suit::C)
}

/// The following rule for a trick with `called` suit: the called suit or a club; after clubs
/// alone, a club.
fn duty(called: Option<Suit>) -> Option<SuitSet> {
    match called {
        None => None,
        Some(Suit::C) => Some(SuitSet::of(&[Suit::C])),
        Some(s) => Some(SuitSet::of(&[s, Suit::C])),
    }
}

/// The ranking: only clubs and the called suit win; each club ranks just above the same rank of
/// the called suit (7♣ beats 7♦ but loses to 8♦).
pub fn rank_key(called: Suit, card: Card) -> Option<u32> {
    let r = card.rank() as u32;
    if card.suit() == Suit::C {
        Some(r * 2 + 1)
    } else if card.suit() == called {
        Some(r * 2)
    } else {
        None
    }
}

/// What a set of taken cards counts as a tally entry.
pub fn taken_of(cards: CardSet) -> Taken {
    let jack = cards.contains(jack_of_clubs());
    Taken {
        cards: cards.len() as u32,
        clubs: (cards.count_suit(Suit::C) - usize::from(jack)) as u32,
        jack,
    }
}

/// A deal's scores from what each seat took, and whether it was scrambled: −1 a card, +3 a club
/// except J♣, −10 more for J♣; if any tally is −26 or worse, everyone recounts: −3 a club except
/// J♣, +10 for J♣. Both formulas sum to −26 over the deck.
pub fn score(taken: &[Taken]) -> (Vec<i64>, bool) {
    let normal: Vec<i64> = taken
        .iter()
        .map(|t| -(t.cards as i64) + 3 * t.clubs as i64 - if t.jack { 10 } else { 0 })
        .collect();
    if normal.iter().any(|&p| p <= -26) {
        let scrambled = taken
            .iter()
            .map(|t| -3 * t.clubs as i64 + if t.jack { 10 } else { 0 })
            .collect();
        (scrambled, true)
    } else {
        (normal, false)
    }
}

/// The suits a club lead may declare, in the order the legal lists give them.
const CLUB_DECLARES: [Suit; 4] = [Suit::H, Suit::S, Suit::D, Suit::C];

impl Clubs {
    fn dealer_of(&self, round: u32) -> usize {
        super::dealer_of(self.config.first_dealer, round, self.players)
    }

    fn next_dealer(&self) -> usize {
        self.dealer_of(self.round + 1)
    }

    /// Cards in play in a deal: all 52, less the face-down card with 3 players.
    fn cards_in_play(&self) -> usize {
        if self.players == 3 {
            51
        } else {
            52
        }
    }

    /// Whether anyone may make the opening lead (table dealing: the holder of 2♣ shows himself).
    fn open_to_all(&self, d: &DealState) -> bool {
        self.dealing == Dealing::Table && d.tp.played().is_empty()
    }

    fn map_play_error(e: PlayError, called: Option<Suit>) -> ClubsError {
        match (e, called) {
            (
                PlayError::MustFollow {
                    seat,
                    card,
                    holding,
                    ..
                },
                Some(called),
            ) => ClubsError::MustFollowSuit {
                seat,
                card,
                called,
                holding,
            },
            (e, _) => ClubsError::Play(e),
        }
    }

    /// Checks a play without changing anything; returns the revoke it proves, if any. The public
    /// checks come first (the turn, the deck, a card played or the face-down card turned, the
    /// opening card, the declaration: the same whatever the hand), then the hand and the
    /// following rule (issue 20: a card the seat does not hold is refused as one it holds).
    fn check_play(
        &self,
        seat: usize,
        card: Card,
        declare: Option<Suit>,
    ) -> Result<Option<Revoke>, ClubsError> {
        let d = self.deal.as_ref().ok_or(ClubsError::DealExpected)?;
        // Table dealing: anyone may open the deal (the holder of 2♣ shows himself by leading it),
        // so the opening is checked as if that seat were to lead.
        let open = self.open_to_all(d);
        if open && seat >= self.players {
            return Err(ClubsError::NoSuchSeat {
                seat,
                players: self.players,
            });
        }
        let probe = open.then(|| {
            let mut p = d.tp.clone();
            p.set_leader(seat);
            p
        });
        let tp = probe.as_ref().unwrap_or(&d.tp);
        let play_error = |e| Self::map_play_error(e, d.called);
        tp.check_public(seat, card).map_err(play_error)?;
        if d.face_down_public && d.face_down == Some(card) {
            return Err(ClubsError::CardFaceDown(card));
        }
        // The opening card is public: the deal names it (and, in service dealing, its holder as
        // the leader).
        if d.tp.played().is_empty() && !d.opening.contains(card) {
            return Err(ClubsError::MustLeadTwoOfClubs {
                three_players: self.players == 3,
            });
        }
        let leading = d.tp.trick().plays.is_empty();
        match (leading && card.suit() == Suit::C, declare) {
            (true, None) => return Err(ClubsError::DeclarationRequired),
            (false, Some(_)) => {
                return Err(ClubsError::DeclarationNotAllowed {
                    card,
                    lead: leading,
                })
            }
            _ => {}
        }
        let revoke = tp.check_holding(seat, card).map_err(play_error)?;
        let following = if open { None } else { duty(d.called) };
        tp.check_duty(seat, card, following.as_slice())
            .map_err(play_error)?;
        Ok(revoke)
    }

    /// Seat `s`'s legal plays in service dealing, from its hand by set operations rather than by
    /// judging each card (this list is built at every step of a playout): the seat to play; the
    /// opening card first; after the lead the called suit or a club while the hand holds one
    /// (after clubs alone, a club); a club lead with each declaration. The same rules as
    /// [`Clubs::check_play`]; tests/props_clubs.rs and tests/conformance.rs check that the two
    /// agree (legal ⇔ accepted).
    fn service_legal(d: &DealState, s: usize, hand: CardSet) -> Vec<Action> {
        if d.tp.to_play() != s {
            return vec![];
        }
        let leading = d.tp.trick().plays.is_empty();
        let allowed = Self::service_allowed(d, hand);
        let mut out = Vec::with_capacity(allowed.len() + 3);
        for card in allowed.iter() {
            if leading && card.suit() == Suit::C {
                out.extend(CLUB_DECLARES.map(|x| Action::Play {
                    card,
                    declare: Some(x),
                }));
            } else {
                out.push(Action::Play {
                    card,
                    declare: None,
                });
            }
        }
        out
    }

    /// The action of [`Self::service_legal`] at the index `pick` chooses (told the list's
    /// length), counted and found without the list.
    fn service_pick(
        d: &DealState,
        s: usize,
        hand: CardSet,
        pick: impl FnOnce(usize) -> usize,
    ) -> Option<Action> {
        if d.tp.to_play() != s {
            return None;
        }
        let leading = d.tp.trick().plays.is_empty();
        let allowed = Self::service_allowed(d, hand);
        // A club lead is listed once per declared suit. Clubs come last in canonical order, so
        // the list is the other cards, then each club four times: counted, not walked.
        let clubs = if leading {
            allowed.of_suits(SuitSet::of(&[Suit::C]))
        } else {
            CardSet::EMPTY
        };
        let others = allowed.difference(clubs);
        let count = others.len() + CLUB_DECLARES.len() * clubs.len();
        if count == 0 {
            return None;
        }
        let k = pick(count);
        if k < others.len() {
            return others.iter().nth(k).map(|card| Action::Play {
                card,
                declare: None,
            });
        }
        let k = k - others.len();
        let card = clubs.iter().nth(k / CLUB_DECLARES.len())?;
        Some(Action::Play {
            card,
            declare: Some(CLUB_DECLARES[k % CLUB_DECLARES.len()]),
        })
    }

    /// The cards `service_legal` lists for the seat to play with `hand` (service dealing).
    fn service_allowed(d: &DealState, hand: CardSet) -> CardSet {
        let leading = d.tp.trick().plays.is_empty();
        let mut allowed = if d.tp.played().is_empty() {
            hand.intersection(d.opening)
        } else {
            let tier = if leading { None } else { duty(d.called) };
            match tier.map(|suits| hand.of_suits(suits)) {
                Some(follow) if !follow.is_empty() => follow,
                _ => hand,
            }
        };
        if let (true, Some(fd)) = (d.face_down_public, d.face_down) {
            allowed.remove(fd);
        }
        allowed
    }

    fn play(
        &mut self,
        seat: usize,
        card: Card,
        declare: Option<Suit>,
    ) -> Result<Produced<ClubsOutcome>, ClubsError> {
        let revoke = self.check_play(seat, card, declare)?;
        let open_to_all = self.deal.as_ref().is_some_and(|d| self.open_to_all(d));
        let players = self.players;
        let cards_in_play = self.cards_in_play();
        let mut out = Produced::new();
        let d = self.deal.as_mut().expect("checked");
        if open_to_all {
            d.tp.set_leader(seat);
        }
        if d.tp.played().is_empty() {
            // The opening: 3♣ shows that 2♣ is the face-down card.
            if card == three_of_clubs() {
                d.face_down = Some(two_of_clubs());
                d.face_down_public = true;
            }
            d.opening = CardSet::EMPTY;
            d.opening.insert(card);
        }
        if let Some(r) = &revoke {
            out.push(ClubsOutcome::Revoke {
                seat: r.seat,
                card: r.card,
                shown_out_in_trick: r.shown_out_in_trick,
            });
        }
        let trick_no = d.tp.trick_number();
        if d.tp.trick().plays.is_empty() {
            d.called = Some(declare.unwrap_or(card.suit()));
        }
        let called = d.called.expect("set at the lead");
        d.tp.record(seat, card, duty(Some(called)).as_slice(), revoke);
        let done =
            d.tp.complete(|c| rank_key(called, c), |_, _| TrickNote { called });
        if let Some(t) = done {
            out.push(ClubsOutcome::Trick {
                number: trick_no,
                winner: t.winner,
                called,
            });
            d.called = None;
            if d.tp.played().len() == cards_in_play {
                let last_winner = d.tp.leader();
                let mut taken = d.tp.taken();
                let face_down = if players == 3 {
                    // The face-down card goes, counted, to the winner of the last trick; in
                    // table dealing it is the one card never played.
                    let fd = d
                        .face_down
                        .or_else(|| full_deck().difference(d.tp.played()).iter().next());
                    if let Some(fd) = fd {
                        taken[last_winner].insert(fd);
                        out.push(ClubsOutcome::FaceDown {
                            card: fd,
                            to: last_winner,
                        });
                    }
                    fd.map(|c| (c, last_winner))
                } else {
                    None
                };
                let taken: Vec<Taken> = taken.into_iter().map(taken_of).collect();
                let revokes = d.tp.revokes().len();
                out.extend(self.score_deal(taken, false, revokes, face_down));
            }
        }
        Ok(out)
    }

    fn score_deal(
        &mut self,
        taken: Vec<Taken>,
        tallied: bool,
        revokes: usize,
        face_down: Option<(Card, usize)>,
    ) -> Vec<ClubsOutcome> {
        let (points, scrambled) = score(&taken);
        self.record_deal(taken, points, scrambled, tallied, revokes, face_down)
    }

    fn record_deal(
        &mut self,
        taken: Vec<Taken>,
        points: Vec<i64>,
        scrambled: bool,
        tallied: bool,
        revokes: usize,
        face_down: Option<(Card, usize)>,
    ) -> Vec<ClubsOutcome> {
        debug_assert_eq!(
            points.iter().sum::<i64>(),
            DEAL_SUM,
            "every deal sums to -26"
        );
        for (t, p) in self.totals.iter_mut().zip(&points) {
            *t += p;
        }
        let mut out = vec![ClubsOutcome::DealScored {
            round: self.round,
            taken: taken.clone(),
            scrambled,
            points: points.clone(),
            totals: self.totals.clone(),
        }];
        self.results.push(DealResult {
            taken,
            points,
            scrambled,
            tallied,
            revokes,
            face_down,
        });
        self.deal = None;
        if self.totals.iter().any(|&t| t <= END_AT) {
            self.finished = true;
            let (winners, margin) = winners_and_margin(&self.totals);
            out.push(ClubsOutcome::MatchFinished { winners, margin });
        }
        out
    }

    fn start_deal(&mut self, seed: Option<&Seed>) -> Result<Vec<ClubsOutcome>, ClubsError> {
        let round = self.round + 1;
        let dealer = self.dealer_of(round);
        let dealt = service_deal(
            self.dealing,
            seed,
            full_deck(),
            self.players,
            52 / self.players,
            dealer,
        )
        .map_err(|p| match p {
            SeedProblem::Missing => ClubsError::SeedMissing,
            SeedProblem::NotTaken => ClubsError::SeedNotTaken,
        })?;
        let (hands, face_down) = match dealt {
            Some((hands, rest)) => (Some(hands), rest.first().copied()),
            None => (None, None),
        };
        // The holder of 2♣ leads it; with 3 players 2♣ may be the face-down card: then 3♣.
        let (opening, leader) = match &hands {
            Some(h) => {
                let card = if face_down == Some(two_of_clubs()) {
                    three_of_clubs()
                } else {
                    two_of_clubs()
                };
                let leader = h.iter().position(|h| h.contains(card)).unwrap_or(0);
                (vec![card], Some(leader))
            }
            None if self.players == 3 => (vec![two_of_clubs(), three_of_clubs()], None),
            None => (vec![two_of_clubs()], None),
        };
        let face_down_public = face_down == Some(two_of_clubs());
        self.round = round;
        self.deal = Some(DealState {
            tp: TrickPlay::new(self.players, full_deck(), leader.unwrap_or(0), hands),
            called: None,
            opening: opening.iter().copied().collect(),
            face_down,
            face_down_public,
            commitment: seed.map(Commitment::of),
        });
        Ok(vec![ClubsOutcome::Dealt {
            round,
            dealer,
            leader,
            opening,
            commitment: seed.map(Commitment::of),
        }])
    }

    fn check_tally(&self, taken: &[Taken]) -> Result<(), ClubsError> {
        if self.dealing == Dealing::Service {
            return Err(ClubsError::TallyNeedsTableDealing);
        }
        if self
            .deal
            .as_ref()
            .is_some_and(|d| !d.tp.played().is_empty())
        {
            return Err(ClubsError::TallyMidDeal);
        }
        if taken.len() != self.players {
            return Err(ClubsError::TallyInconsistent(format!(
                "one entry per seat: {} expected, {} given",
                self.players,
                taken.len()
            )));
        }
        for (seat, t) in taken.iter().enumerate() {
            if t.clubs.saturating_add(u32::from(t.jack)) > t.cards {
                return Err(ClubsError::TallyInconsistent(format!(
                    "seat {} took {} cards but {} clubs{}",
                    seat + 1,
                    t.cards,
                    t.clubs,
                    if t.jack { " and J♣" } else { "" }
                )));
            }
            // Tricks are taken whole; with 3 players the last trick's winner adds the
            // face-down card.
            let rest = t.cards % self.players as u32;
            if rest != 0 && !(self.players == 3 && rest == 1) {
                return Err(ClubsError::TallyInconsistent(format!(
                    "seat {} took {} cards, not a whole number of {}-card tricks",
                    seat + 1,
                    t.cards,
                    self.players
                )));
            }
        }
        let sum = |f: fn(&Taken) -> u32| taken.iter().fold(0u32, |a, t| a.saturating_add(f(t)));
        for (what, want, got) in [
            ("cards", 52, sum(|t| t.cards)),
            ("clubs (J♣ excluded)", 12, sum(|t| t.clubs)),
            ("jacks of clubs", 1, sum(|t| u32::from(t.jack))),
        ] {
            if got != want {
                return Err(ClubsError::TallySum { what, want, got });
            }
        }
        Ok(())
    }

    fn tally(&mut self, taken: &[Taken]) -> Result<Vec<ClubsOutcome>, ClubsError> {
        self.check_tally(taken)?;
        if self.deal.is_none() {
            self.round += 1;
        }
        Ok(self.score_deal(taken.to_vec(), true, 0, None))
    }

    /// A tally of final points per seat (the score-only contract): one entry per seat, each a
    /// score one seat can make (RULES.md "Clubs": −1 a card, +3 a club, J♣ −11 net; the recount
    /// −3 a club, +10 for J♣), summing to −26.
    fn tally_points(&mut self, points: &[i64]) -> Result<Vec<ClubsOutcome>, ClubsError> {
        if self.dealing == Dealing::Service {
            return Err(ClubsError::TallyNeedsTableDealing);
        }
        let Some(form) = self.points_form() else {
            return Err(ClubsError::TallyMidDeal);
        };
        let possible = achievable_points(self.players);
        tally::check(
            &form,
            points,
            |f| match f {
                TallyFault::Entries { expected, got } => ClubsError::TallyShape(format!(
                    "one entry per seat: {expected} expected, {got} given"
                )),
                TallyFault::Range { entry, value } | TallyFault::Step { entry, value } => {
                    ClubsError::TallyRange { seat: entry, value }
                }
                TallyFault::Sum { got } => ClubsError::TallyPointsSum(got),
                // The form sets no non-zero limit.
                TallyFault::Nonzero => ClubsError::TallyPointsSum(points.iter().sum()),
            },
            |seat, value| match possible.contains(&value) {
                true => Ok(()),
                false => Err(ClubsError::TallyUnachievable { seat, value }),
            },
        )?;
        if self.deal.is_none() {
            self.round += 1;
        }
        // What each seat took is not known from its points: the detail's `taken` is empty and
        // `scrambled` false (the points are final, after any recount).
        Ok(self.record_deal(Vec::new(), points.to_vec(), false, true, 0, None))
    }
}

impl Clubs {
    /// The `points` tally form (score-only contract), while the table may tally: table dealing,
    /// no card of the deal in progress played. RULES.md "Clubs": −1 a card, +3 a club, J♣ −11
    /// net; the recount −3 a club, +10 for J♣: one seat scores −36 (every club but J♣,
    /// recounted) to +24 (every club but J♣ and nothing else); a deal sums to −26.
    fn points_form(&self) -> Option<TallyForm> {
        let fresh = self.deal.as_ref().is_none_or(|d| d.tp.played().is_empty());
        (self.dealing == Dealing::Table && fresh).then(|| TallyForm {
            sum: Some(DEAL_SUM),
            ..TallyForm::points(TallyUnit::Seat, self.players, -36, 24)
        })
    }
}

/// Every score one seat can make in a deal of `players` (whole tricks; with 3 players one seat
/// adds the face-down card): the normal count above −26, or the recount (RULES.md "Clubs").
fn achievable_points(players: usize) -> std::collections::BTreeSet<i64> {
    let mut out = std::collections::BTreeSet::new();
    for cards in 0..=52i64 {
        let rest = cards % players as i64;
        if rest != 0 && !(players == 3 && rest == 1) {
            continue;
        }
        for clubs in 0..=12i64 {
            for jack in [0i64, 1] {
                if clubs + jack > cards || cards - clubs - jack > 39 {
                    continue;
                }
                let normal = -cards + 3 * clubs - 10 * jack;
                if normal > -26 {
                    out.insert(normal);
                }
                out.insert(-3 * clubs + 10 * jack);
            }
        }
    }
    out
}

impl Game for Clubs {
    const ID: &'static str = "clubs";
    const TITLE: &'static str = "Clubs";
    const MIN_PLAYERS: usize = 3;
    const MAX_PLAYERS: usize = 4;
    type Config = ClubsConfig;
    type Action = Action;
    type Table = ClubsTable;
    type Seat = ClubsSeat;
    type Outcome = ClubsOutcome;
    type RoundDetail = ClubsRoundDetail;
    type Error = ClubsError;

    const DUPLICATE: bool = true;

    /// docs/rules.md#clubs-tally: either way a deal's tallies add up to −26, a check on every deal; the
    /// match ends after the deal in which any total reaches −100 or below.
    fn check_entered(e: &Entered<'_>) -> Result<(), EntryError> {
        for (k, d) in e.deals.iter().enumerate() {
            let s = entered::sum(d)?;
            if s != -26 {
                return Err(entered::impossible(format!(
                    "deal {}'s points sum to {s}; every Clubs deal sums to −26",
                    k + 1
                )));
            }
        }
        let s = entered::sum(e.totals)?;
        if s >= 0 || s % 26 != 0 {
            return Err(entered::impossible(format!(
                "the totals sum to {s}; every Clubs deal sums to −26, so the totals sum to −26 × the deals played"
            )));
        }
        if e.totals.iter().all(|&t| t > -100) {
            return Err(entered::impossible(
                "the match ends after the deal in which a total reaches −100 or below; no total has",
            ));
        }
        let mut running = vec![0; e.units];
        for (k, d) in e
            .deals
            .iter()
            .enumerate()
            .take(e.deals.len().saturating_sub(1))
        {
            for (r, x) in running.iter_mut().zip(d) {
                *r = entered::add(*r, *x)?;
            }
            if running.iter().any(|&r| r <= -100) {
                return Err(entered::impossible(format!(
                    "a total reached −100 after deal {}: the match ended there",
                    k + 1
                )));
            }
        }
        Ok(())
    }

    fn new(config: ClubsConfig, players: usize, dealing: Dealing) -> Result<Clubs, ClubsError> {
        if !(Self::MIN_PLAYERS..=Self::MAX_PLAYERS).contains(&players) {
            return Err(ClubsError::PlayerCount(players));
        }
        if config.first_dealer >= players {
            return Err(ClubsError::BadDealer {
                max: players - 1,
                got: config.first_dealer,
            });
        }
        Ok(Clubs {
            config,
            players,
            dealing,
            round: 0,
            deal: None,
            results: Vec::new(),
            totals: vec![0; players],
            finished: false,
        })
    }

    fn config(&self) -> &ClubsConfig {
        &self.config
    }

    fn seed_reveal(&self) -> SeedReveal {
        self.config.seed_reveal
    }

    fn to_act(&self) -> ToAct {
        match &self.deal {
            _ if self.finished => ToAct::nobody(),
            None => ToAct::table(),
            Some(d) if self.open_to_all(d) => ToAct {
                seats: (0..self.players).collect(),
                table: false,
            },
            Some(d) => ToAct::seat(d.tp.to_play()),
        }
    }

    /// Plays: every card the seat may play now (a club lead once per declaration). In table
    /// dealing the candidates are all cards not yet seen. The table's `tally` is not listed.
    /// The `points` tally while the table may send one (see `points_form`).
    fn tally_form(&self) -> Option<TallyForm> {
        self.points_form()
    }

    fn legal_actions(&self, actor: Actor) -> Vec<Action> {
        if self.finished {
            return vec![];
        }
        match (actor, &self.deal) {
            (Actor::Table, None) => vec![Action::Deal {}],
            (Actor::Seat(s), Some(d)) if s < self.players => {
                if let (Dealing::Service, Some(hand)) = (self.dealing, d.tp.hand(s)) {
                    return Self::service_legal(d, s, hand);
                }
                let leading = d.tp.trick().plays.is_empty();
                let mut out = Vec::with_capacity(16);
                for card in d.tp.candidates(s).iter() {
                    // A club lead declares; nothing else does (no allocation per card: this
                    // list is built at every step of a random playout).
                    let declares: &[Option<Suit>] = if leading && card.suit() == Suit::C {
                        &[Some(Suit::H), Some(Suit::S), Some(Suit::D), Some(Suit::C)]
                    } else {
                        &[None]
                    };
                    for &declare in declares {
                        if self.check_play(s, card, declare).is_ok() {
                            out.push(Action::Play { card, declare });
                        }
                    }
                }
                out
            }
            _ => vec![],
        }
    }

    /// Service dealing's seat to play is picked from its allowed cards without the list; any
    /// other list is built.
    fn legal_pick(&self, actor: Actor, pick: impl FnOnce(usize) -> usize) -> Option<Action> {
        if let (false, Actor::Seat(s), Some(d), Dealing::Service) =
            (self.finished, actor, &self.deal, self.dealing)
        {
            if let (true, Some(hand)) = (s < self.players, d.tp.hand(s)) {
                return Self::service_pick(d, s, hand, pick);
            }
        }
        crate::rules::pick_listed(self, actor, pick)
    }

    fn dealing(&self) -> Dealing {
        self.dealing
    }

    fn is_deal(action: &Action) -> bool {
        matches!(action, Action::Deal {})
    }

    fn board(&self, deal: u32, seed: &Seed) -> Option<super::Board> {
        Some(super::Board::dealt(
            full_deck(),
            seed,
            self.players,
            52 / self.players,
            self.dealer_of(deal),
        ))
    }

    fn cards_shown(action: &Action) -> Vec<String> {
        match action {
            Action::Play { card, .. } => vec![card.to_string()],
            _ => vec![],
        }
    }

    fn apply(
        &mut self,
        actor: Actor,
        action: &Action,
        seed: Option<&Seed>,
    ) -> Result<Produced<ClubsOutcome>, ClubsError> {
        if self.finished {
            return Err(ClubsError::MatchFinished);
        }
        match (action, actor) {
            (Action::Deal {}, Actor::Seat(_)) => Err(ClubsError::TableActionOnly("deal")),
            (Action::Tally { .. }, Actor::Seat(_)) => Err(ClubsError::TableActionOnly("tally")),
            (Action::Play { .. }, Actor::Table) => Err(ClubsError::SeatActionOnly),
            (Action::Deal {}, Actor::Table) => {
                if self.deal.is_some() {
                    return Err(ClubsError::DealInProgress);
                }
                produced(self.start_deal(seed))
            }
            (Action::Tally { taken, points }, Actor::Table) => match (taken, points) {
                (Some(taken), None) => produced(self.tally(taken)),
                (None, Some(points)) => produced(self.tally_points(points)),
                _ => Err(ClubsError::TallyShape(
                    "give either `taken` or `points`, not both nor neither".into(),
                )),
            },
            (Action::Play { card, declare }, Actor::Seat(s)) => self.play(s, *card, *declare),
        }
    }

    fn table(&self) -> ClubsTable {
        let phase = if self.finished {
            Phase::Finished
        } else if self.deal.is_some() {
            Phase::Playing
        } else {
            Phase::AwaitingDeal
        };
        let mut v = ClubsTable {
            phase,
            end_at: END_AT,
            next_dealer: (self.deal.is_none() && !self.finished).then(|| self.next_dealer()),
            leader: None,
            to_play: None,
            opening: None,
            called_suit: None,
            trick: vec![],
            tricks: None,
            taken: None,
            cards_left: None,
            face_down: None,
            revokes: vec![],
            commitment: None,
        };
        if let Some(d) = &self.deal {
            let open = self.open_to_all(d);
            let per_hand = 52 / self.players;
            let cards_left: Vec<usize> = (0..self.players)
                .map(|s| per_hand - d.tp.tricks().len() - usize::from(d.tp.trick().has_played(s)))
                .collect();
            let taken: Vec<Taken> = d.tp.taken().into_iter().map(taken_of).collect();
            v.leader = Some((!open).then(|| d.tp.leader()));
            v.to_play = Some((!open).then(|| d.tp.to_play()));
            v.opening = Some(d.tp.played().is_empty().then(|| d.opening.to_vec()));
            v.called_suit = Some(d.called);
            v.trick = d.tp.trick().plays.clone();
            v.tricks = Some(d.tp.tricks().to_vec());
            v.taken = Some(taken);
            v.cards_left = Some(cards_left);
            v.face_down = Some(if d.face_down_public {
                d.face_down
            } else {
                None
            });
            v.revokes = d.tp.revokes().to_vec();
            v.commitment = Some(d.commitment.map(|c| c.to_string()));
        }
        v
    }

    fn seat(&self, seat: usize) -> Option<ClubsSeat> {
        let hand = self
            .deal
            .as_ref()
            .and_then(|d| d.tp.hand(seat))
            .map(|h| h.to_vec());
        Some(ClubsSeat { seat, hand })
    }

    fn score_sheet(&self) -> ScoreSheet {
        let rounds = self
            .results
            .iter()
            .enumerate()
            .map(|(i, r)| RoundScore {
                round: i as u32 + 1,
                label: format!("Deal {}", i + 1),
                multiplier: 1,
                points: r.points.clone(),
                detail: to_json(&ClubsRoundDetail {
                    taken: r.taken.clone(),
                    scrambled: r.scrambled,
                    tallied: r.tallied,
                    revokes: r.revokes,
                    face_down: r.face_down.map(|(card, to)| ClubsFaceDown { card, to }),
                }),
            })
            .collect();
        ScoreSheet::from_totals(false, rounds, self.totals.clone(), self.finished)
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
    fn a_club_ranks_just_above_the_same_rank_of_the_called_suit() {
        let k = |s: &str| rank_key(Suit::D, c(s));
        assert!(k("7C") > k("7D"));
        assert!(k("8D") > k("7C"));
        assert_eq!(k("AS"), None);
        assert_eq!(rank_key(Suit::C, c("AH")), None);
    }

    #[test]
    fn both_formulas_sum_to_minus_26() {
        let deck: Vec<Card> = full_deck().to_vec();
        let taken: Vec<Taken> = deck
            .chunks(13)
            .map(|ch| taken_of(ch.iter().copied().collect()))
            .collect();
        let (p, scrambled) = score(&taken);
        assert!(!scrambled);
        assert_eq!(p.iter().sum::<i64>(), DEAL_SUM);
        assert_eq!(p, vec![-13, -13, -13, 13]);
        let all_but_clubs = Taken {
            cards: 40,
            clubs: 1,
            jack: false,
        };
        let clubs = Taken {
            cards: 12,
            clubs: 11,
            jack: true,
        };
        let (p, scrambled) = score(&[all_but_clubs, clubs, Taken::default()]);
        assert!(scrambled);
        assert_eq!(p, vec![-3, -23, 0]);
    }
}

//! Members Only (Reiner Knizia, 1996): bets on how many cards of five categories will be revealed
//! in a heat, scored on five tracks.
//!
//! docs/rules.md#members-only with the seed text: 3–5 players; 65 cards, five categories of 11 normal
//! and 2 NO! cards. A heat deals 11 / 9 / 7 cards to each of 3 / 4 / 5 players and turns two face up;
//! the rest sit out unseen. In turn each player may place one betting piece on a vacant space
//! (`le1`..`le4`, `ge5`..`ge8` per category) and then reveals two cards; round 1 reveals nothing and
//! a piece placed in it carries the risk piece. When every hand holds 3 cards betting stops and
//! every player discards one card face down and reveals the other two. A category counts its normal
//! cards minus its NO! cards, never below 0; correct pieces score the space's points × 1 / 2 / 3 on
//! a track capped at 10, wrong pieces are lost for the game. The game ends after a heat in which
//! every category has a marker at 5 or more; only markers at 5..10 count.

mod actions;
mod cards;

pub use actions::*;
pub use cards::*;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::entered::{self, Entered, EntryError};
use super::tally::{TallyForm, TallyUnit};

/// The five categories of a `markers` tally entry, in track order (umbrella, crown, teacup,
/// Big Ben, hat).
const TALLY_PARTS: [&str; 5] = ["umbrella", "crown", "teacup", "big_ben", "hat"];
use super::{
    cards::{shuffled, Commitment, Seed},
    produced,
    sheet::{winners_and_margin, RoundScore, ScoreSheet, Unit},
    spec_shapes, to_json, Actor, Dealing, Game, Produced, SealedAction, ToAct,
};

type Err = MembersOnlyError;

/// Card counts by kind (category × normal/NO!).
type Counts = [u8; KINDS];

fn counts_of(cards: &[Card]) -> Counts {
    let mut c = [0u8; KINDS];
    for card in cards {
        c[card.kind()] = c[card.kind()].saturating_add(1);
    }
    c
}

fn cards_of(counts: &Counts) -> Vec<Card> {
    (0..KINDS)
        .flat_map(|k| std::iter::repeat_n(Card::from_kind(k), counts[k] as usize))
        .collect()
}

fn add(a: &mut Counts, b: &Counts) {
    for k in 0..KINDS {
        a[k] = a[k].saturating_add(b[k]);
    }
}

/// The betting pieces in front of a player (not on the board, not lost).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stock {
    singles: u8,
    double: bool,
}

impl Stock {
    const FULL: Stock = Stock {
        singles: SINGLE_PIECES,
        double: true,
    };

    fn has(self, piece: Piece) -> bool {
        match piece {
            Piece::Single => self.singles > 0,
            Piece::Double => self.double,
        }
    }

    fn take(&mut self, piece: Piece) {
        match piece {
            Piece::Single => self.singles = self.singles.saturating_sub(1),
            Piece::Double => self.double = false,
        }
    }

    fn give_back(&mut self, piece: Piece) {
        match piece {
            Piece::Single => self.singles = (self.singles + 1).min(SINGLE_PIECES),
            Piece::Double => self.double = true,
        }
    }

    fn count(self) -> u8 {
        self.singles + u8::from(self.double)
    }
}

/// A piece on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PlacedBet {
    seat: usize,
    bet: Bet,
    /// Placed in round 1, with the risk piece under it.
    risk: bool,
}

impl PlacedBet {
    fn view(self) -> MembersOnlyPlacedBet {
        MembersOnlyPlacedBet {
            seat: self.seat,
            category: self.bet.category,
            space: self.bet.space,
            piece: self.bet.piece,
            risk: self.risk,
            points: self.bet.space.points(),
        }
    }
}

/// A seat's recorded end-of-heat choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FinalChoice {
    discard: Option<Card>,
    reveal: [Card; 2],
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// Betting rounds: `to_play` takes the next turn of round `betting_round` (1-based).
    Betting { to_play: usize, betting_round: u32 },
    /// Every hand holds 3 cards; the seats record their end-of-heat choices (sealed until all
    /// are in). `from_action` is the index of the first action of this phase (for the log).
    Final {
        from_action: usize,
        choices: Vec<Option<FinalChoice>>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Heat {
    starter: usize,
    dealer: usize,
    face_up: [Card; 2],
    /// Service dealing: the cards in each hand, by kind.
    hands: Option<Vec<Counts>>,
    hand_sizes: Vec<u8>,
    /// Open cards (face up, revealed, and the final reveals once all are in), by kind.
    layout: Counts,
    /// Cards revealed in turns (not counting the face-up pair or the final reveals).
    turn_reveals: usize,
    bets: Vec<PlacedBet>,
    risk_used: Vec<bool>,
    phase: Phase,
    commitment: Option<Commitment>,
}

impl Heat {
    /// Table dealing: the cards of each kind whose whereabouts are known (open, sealed in a final
    /// choice, or named as a discard). The deck bounds them.
    fn known(&self) -> Counts {
        let mut k = self.layout;
        if let Phase::Final { choices, .. } = &self.phase {
            for c in choices.iter().flatten() {
                add(&mut k, &counts_of(&c.reveal));
                if let Some(d) = c.discard {
                    add(&mut k, &counts_of(&[d]));
                }
            }
        }
        k
    }

    /// How many more of each kind `seat` can show: its hand (service) or what the deck leaves.
    fn available(&self, seat: usize) -> Counts {
        match &self.hands {
            Some(h) => h[seat],
            None => {
                let known = self.known();
                let mut a = [0u8; KINDS];
                for (k, slot) in a.iter_mut().enumerate() {
                    *slot = Card::from_kind(k).copies().saturating_sub(known[k]);
                }
                a
            }
        }
    }

    fn occupant(&self, category: Category, space: Space) -> Option<usize> {
        self.bets
            .iter()
            .find(|b| b.bet.category == category && b.bet.space == space)
            .map(|b| b.seat)
    }
}

/// What happened to one piece at the end of a heat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PieceFate {
    placed: PlacedBet,
    correct: bool,
    won: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct HeatResult {
    starter: usize,
    dealer: usize,
    /// The final layout; None for a tallied heat (score-only play), which does not say it.
    layout: Option<Counts>,
    fates: Vec<PieceFate>,
    /// Points won per seat and category, before the cap; None for a tallied heat.
    won: Option<Vec<[u32; 5]>>,
    /// Marker advances per seat and category, after the cap.
    advanced: Vec<[u8; 5]>,
    /// Whether the heat was entered by a table `tally` (score-only play).
    tallied: bool,
    /// The tracks after the heat.
    tracks: Vec<[u8; 5]>,
    restored: Vec<usize>,
    turn_reveals: usize,
    players: usize,
}

/// What a heat's ending knows besides the markers: all of it for a played heat, the seats and
/// the card counts for a tallied one.
struct HeatFacts {
    starter: usize,
    dealer: usize,
    layout: Option<Counts>,
    fates: Vec<PieceFate>,
    won: Option<Vec<[u32; 5]>>,
    turn_reveals: usize,
}

/// The state of a Members Only match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MembersOnly {
    config: MembersOnlyConfig,
    players: usize,
    dealing: Dealing,
    /// The current (or last) heat number; 0 before the first deal.
    round: u32,
    heat: Option<Heat>,
    stocks: Vec<Stock>,
    /// Markers per seat and category, 0..=10.
    tracks: Vec<[u8; 5]>,
    results: Vec<HeatResult>,
    finished: bool,
    /// Accepted actions so far (the index of the next one).
    applied: usize,
}

/// Calls `f` with each pair of cards `available` allows to reveal, by kind `a <= b` in kind
/// order (the order of the legal lists), until `f` returns false.
fn each_reveal(available: &Counts, mut f: impl FnMut(Card, Card) -> bool) {
    for a in 0..KINDS {
        if available[a] == 0 {
            continue;
        }
        for b in a..KINDS {
            let ok = if a == b {
                available[a] >= 2
            } else {
                available[b] >= 1
            };
            if ok && !f(Card::from_kind(a), Card::from_kind(b)) {
                return;
            }
        }
    }
}

/// Count per category: normal cards minus NO! cards, never below 0 (Rule Four).
fn category_count(layout: &Counts, c: Category) -> u8 {
    let normal = layout[Card::normal(c).kind()];
    let no = layout[Card::no(c).kind()];
    normal.saturating_sub(no)
}

fn counting_total(t: &[u8; 5]) -> i64 {
    t.iter()
        .filter(|&&m| (COUNTING_FROM..=TRACK_MAX).contains(&m))
        .map(|&m| i64::from(m))
        .sum()
}

/// One figure per category (`umbrella`, `crown`, `teacup`, `big_ben`, `hat`).
macro_rules! per_category {
    ($(#[$meta:meta])* $name:ident($t:ty)) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Serialize, ToSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// Rain days in London.
            umbrella: $t,
            /// Royal scandals.
            crown: $t,
            /// Cups of tea spilled by the Premier.
            teacup: $t,
            /// Resignations (Big Ben).
            big_ben: $t,
            /// Identical hats at Ascot.
            hat: $t,
        }

        impl $name {
            fn of(t: &[$t; 5]) -> $name {
                let at = |c: Category| t[c.index()];
                $name {
                    umbrella: at(Category::Umbrella),
                    crown: at(Category::Crown),
                    teacup: at(Category::Teacup),
                    big_ben: at(Category::BigBen),
                    hat: at(Category::Hat),
                }
            }
        }
    };
}

per_category!(
    /// A seat's markers on the five tracks, 0 to 10.
    MembersOnlyTracks(u8)
);
per_category!(
    /// A figure per category (counts of the layout, marker advances).
    MembersOnlyCounts(u8)
);
per_category!(
    /// Points won per category, before the cap.
    MembersOnlyWon(u32)
);

/// One category of the layout: its cards face up.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MembersOnlyLayoutCategory {
    /// Normal cards.
    normal: u8,
    /// NO! cards.
    no: u8,
    /// The count: normal cards minus NO! cards, never below 0.
    count: u8,
}

/// The layout: the cards face up, per category.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MembersOnlyLayout {
    /// Rain days in London.
    umbrella: MembersOnlyLayoutCategory,
    /// Royal scandals.
    crown: MembersOnlyLayoutCategory,
    /// Cups of tea spilled by the Premier.
    teacup: MembersOnlyLayoutCategory,
    /// Resignations (Big Ben).
    big_ben: MembersOnlyLayoutCategory,
    /// Identical hats at Ascot.
    hat: MembersOnlyLayoutCategory,
}

impl MembersOnlyLayout {
    fn of(layout: &Counts) -> MembersOnlyLayout {
        let at = |c: Category| MembersOnlyLayoutCategory {
            normal: layout[Card::normal(c).kind()],
            no: layout[Card::no(c).kind()],
            count: category_count(layout, c),
        };
        MembersOnlyLayout {
            umbrella: at(Category::Umbrella),
            crown: at(Category::Crown),
            teacup: at(Category::Teacup),
            big_ben: at(Category::BigBen),
            hat: at(Category::Hat),
        }
    }
}

/// The betting pieces a seat has left.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MembersOnlyPieces {
    /// Single pieces left.
    single: u8,
    /// The double piece: 1 if left, else 0.
    double: u8,
    /// The risk piece: 1 if still usable this heat, else 0.
    risk: u8,
}

/// A bet on the board.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MembersOnlyPlacedBet {
    /// Who placed it.
    seat: usize,
    /// The category.
    category: Category,
    /// The space.
    space: Space,
    /// The piece.
    piece: Piece,
    /// Whether the risk piece lies under it (placed in the first betting round).
    risk: bool,
    /// The space's points.
    points: u32,
}

/// A piece's fate at the end of a heat (`detail.pieces`).
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MembersOnlyPieceFate {
    /// Who placed it.
    seat: usize,
    /// The category.
    category: Category,
    /// The space.
    space: Space,
    /// The piece.
    piece: Piece,
    /// Whether the risk piece lay under it.
    risk: bool,
    /// The space's points.
    points: u32,
    /// The multiplier of the piece (single × 1, double × 2, risk + 1).
    multiplier: u32,
    /// Whether the bet was right.
    correct: bool,
    /// Points it won.
    won: u32,
    /// `returned` (right: the piece comes back) or `lost`.
    #[schema(value_type = MembersOnlyFateWord)]
    fate: &'static str,
}

/// What became of a piece.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)] // the spec's words of `fate`
pub enum MembersOnlyFateWord {
    /// The bet was right: the piece comes back.
    Returned,
    /// The bet was wrong: the piece is lost.
    Lost,
}

/// Where a Members Only match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = MembersOnlyPhase)]
pub enum ViewPhase {
    /// Between heats: the table deals next.
    AwaitingDeal,
    /// Betting rounds.
    Betting,
    /// The seats record their end-of-heat choices (sealed until all are in).
    Final,
    /// The match is over.
    Finished,
}

/// Members Only's public state (`table` in the match view). The keys marked "during a heat"
/// are absent between heats, those marked "between heats" absent during one (and once
/// finished).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MembersOnlyTable {
    /// Between heats, betting, final choices, or over.
    phase: ViewPhase,
    /// The current heat, from 1 (0 before the first).
    heat: u32,
    /// Each seat's markers.
    tracks: Vec<MembersOnlyTracks>,
    /// Each seat's counting total (markers from 5 up).
    totals: Vec<i64>,
    /// Each seat's pieces left.
    pieces: Vec<MembersOnlyPieces>,
    /// The cards face up, per category (all zero between heats).
    layout: MembersOnlyLayout,
    /// The bets on the board (none between heats).
    bets: Vec<MembersOnlyPlacedBet>,
    /// During a heat: who bets first.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    starter: Option<usize>,
    /// During a heat: its dealer.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    dealer: Option<usize>,
    /// During a heat: the betting round, from 1; null during the final choices.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<u32>)]
    betting_round: Option<Option<u32>>,
    /// During a heat: the seat to bet; null during the final choices.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<usize>)]
    to_play: Option<Option<usize>>,
    /// During a heat: the two cards dealt face up.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    face_up: Option<[Card; 2]>,
    /// During a heat: how many cards each seat holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    hand_sizes: Option<Vec<u8>>,
    /// During a heat: the seats whose final choice is in.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    finals_in: Option<Vec<usize>>,
    /// During a heat: the cards not dealt.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    unused: Option<usize>,
    /// During a heat: the service deal's seed commitment (SHA-256 hex), null in table dealing.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    commitment: Option<Option<String>>,
    /// Between heats: who bets first in the next heat.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    next_starter: Option<usize>,
    /// Between heats: who deals the next heat.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    next_dealer: Option<usize>,
}

/// A seat's recorded end-of-heat choice, shown to that seat.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MembersOnlyFinalChoice {
    /// The card discarded face down; null when the seat had none to discard.
    #[schema(required = true)]
    discard: Option<Card>,
    /// The two cards revealed.
    reveal: [Card; 2],
}

/// A Members Only seat's private state (`you` in the match view).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MembersOnlySeat {
    /// The seat.
    seat: usize,
    /// Service dealing, during a heat: the cards the seat holds. Null otherwise.
    #[schema(required = true)]
    hand: Option<Vec<Card>>,
    /// During a heat: how many cards the seat holds; null between heats.
    #[schema(required = true)]
    hand_size: Option<u8>,
    /// The seat's pieces left.
    pieces: MembersOnlyPieces,
    /// The seat's bets on the board.
    bets: Vec<MembersOnlyPlacedBet>,
    /// The seat's final choice once recorded this heat; null otherwise.
    #[schema(required = true)]
    r#final: Option<MembersOnlyFinalChoice>,
    /// The seat's markers.
    tracks: MembersOnlyTracks,
    /// The seat's counting total.
    total: i64,
}

/// What a Members Only action produced (`outcome` in the log).
#[derive(Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MembersOnlyOutcome {
    /// A heat was dealt.
    #[schema(title = "MembersOnlyDealt")]
    Dealt {
        /// The heat, from 1.
        round: u32,
        /// The dealer.
        dealer: usize,
        /// Who bets first.
        starter: usize,
        /// Cards dealt to each seat.
        hand_size: u8,
        /// The two cards dealt face up.
        face_up: [Card; 2],
        /// Service dealing: SHA-256 (hex) of the shuffle seed; null in table dealing.
        #[schema(value_type = Option<String>, required = true)]
        commitment: Option<Commitment>,
    },
    /// A bet was placed.
    #[schema(title = "MembersOnlyBetPlaced")]
    Bet {
        /// Who placed it.
        seat: usize,
        /// The category.
        category: Category,
        /// The space.
        space: Space,
        /// The piece.
        piece: Piece,
        /// Whether the risk piece lies under it.
        risk: bool,
        /// The space's points.
        points: u32,
    },
    /// A seat revealed cards to the layout.
    #[schema(title = "MembersOnlyRevealed")]
    Revealed {
        /// Who revealed them.
        seat: usize,
        /// The cards.
        cards: Vec<Card>,
    },
    /// Every hand holds three cards: no further bets.
    #[schema(title = "MembersOnlyBettingClosed")]
    BettingClosed {
        /// The heat.
        round: u32,
    },
    /// A seat's final choice is in (sealed until all are).
    #[schema(title = "MembersOnlyFinalRecorded")]
    FinalRecorded {
        /// The seat.
        seat: usize,
    },
    /// Every final choice is in: the reveals, in seat order.
    #[schema(title = "MembersOnlyFinalsRevealed")]
    FinalsRevealed {
        /// Each seat's two revealed cards.
        reveals: Vec<[Card; 2]>,
    },
    /// A heat was scored.
    #[schema(title = "MembersOnlyHeatScored")]
    HeatScored {
        /// The heat.
        round: u32,
        /// The count per category; null for a tallied heat (score-only play), which does not
        /// say it.
        #[schema(required = true)]
        counts: Option<MembersOnlyCounts>,
        /// Marker advances per seat.
        points: Vec<i64>,
        /// Each seat's markers after the heat.
        tracks: Vec<MembersOnlyTracks>,
        /// Each seat's counting total.
        totals: Vec<i64>,
    },
    /// Seats that had lost every piece got them back.
    #[schema(title = "MembersOnlyPiecesRestored")]
    PiecesRestored {
        /// The seats.
        seats: Vec<usize>,
    },
    /// The match is over.
    #[schema(title = "MembersOnlyMatchFinished")]
    MatchFinished {
        /// The winning seats.
        winners: Vec<usize>,
        /// The winner's total minus the runner-up's.
        #[schema(required = true)]
        margin: Option<i64>,
    },
}

/// A final choice as the log shows it, once revealed, to anyone but its seat: the discard withheld
/// (never shown but to its seat).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MembersOnlyFinalShown {
    /// `final`.
    #[serde(rename = "type")]
    #[schema(schema_with = final_word)]
    kind: &'static str,
    /// `hidden`: the card discarded face down.
    #[schema(schema_with = hidden_word)]
    discard: &'static str,
    /// The two cards revealed.
    reveal: Vec<Card>,
}

fn final_word() -> utoipa::openapi::schema::Schema {
    spec_shapes::word("final")
}

fn hidden_word() -> utoipa::openapi::schema::Schema {
    spec_shapes::word("hidden")
}

/// Where a heat's cards went (`detail.cards`).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MembersOnlyCardCounts {
    /// Dealt face up.
    face_up: usize,
    /// Revealed during the betting.
    revealed: usize,
    /// Revealed by the final choices.
    r#final: usize,
    /// Discarded face down, never counted.
    discarded: usize,
    /// Not dealt.
    unused: usize,
}

/// The raw figures of a scored Members Only heat (`detail` of a score sheet round).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MembersOnlyRoundDetail {
    /// Who bet first.
    starter: usize,
    /// The dealer.
    dealer: usize,
    /// Whether the heat was entered by a table `tally` (score-only play): then only the markers
    /// are known, and the layout, the pieces and the points before the cap are not.
    tallied: bool,
    /// The final layout; null for a tallied heat.
    #[schema(required = true)]
    layout: Option<MembersOnlyLayout>,
    /// Every piece on the board and its fate (none known for a tallied heat).
    pieces: Vec<MembersOnlyPieceFate>,
    /// Points won per seat and category, before the cap; null for a tallied heat.
    #[schema(required = true)]
    won: Option<Vec<MembersOnlyWon>>,
    /// Marker advances per seat and category, after the cap.
    advanced: Vec<MembersOnlyCounts>,
    /// Each seat's markers after the heat.
    tracks: Vec<MembersOnlyTracks>,
    /// Seats that got their pieces back.
    restored: Vec<usize>,
    /// Where the heat's cards went.
    cards: MembersOnlyCardCounts,
}

impl MembersOnly {
    fn starter_of(&self, heat: u32) -> usize {
        (self.config.first_player + heat.saturating_sub(1) as usize) % self.players
    }

    fn dealer_of(&self, heat: u32) -> usize {
        (self.starter_of(heat) + self.players - 1) % self.players
    }

    /// The marker totals that would count if the game ended now (markers at 5..10 only).
    fn totals(&self) -> Vec<i64> {
        self.tracks.iter().map(counting_total).collect()
    }

    fn check_seat(&self, actor: Actor) -> Result<(), Err> {
        match actor {
            Actor::Seat(s) if s >= self.players => Err(Err::NoSuchSeat {
                seat: s,
                max: self.players - 1,
            }),
            _ => Ok(()),
        }
    }

    /// Checks that `seat` can show `cards` (and discard `discard`) from its hand (service) or
    /// that the deck still has them (table).
    fn check_cards(
        &self,
        heat: &Heat,
        seat: usize,
        cards: &[Card],
        discard: Option<Card>,
    ) -> Result<(), Err> {
        let mut wanted = counts_of(cards);
        if let Some(d) = discard {
            add(&mut wanted, &counts_of(&[d]));
        }
        let available = heat.available(seat);
        let known = heat.known();
        for k in 0..KINDS {
            if wanted[k] > available[k] {
                let card = Card::from_kind(k);
                return Err(match &heat.hands {
                    Some(_) => Err::CardNotInHand {
                        seat,
                        card,
                        wanted: wanted[k],
                        held: available[k],
                    },
                    None => Err::CardCountExceeded {
                        card,
                        copies: card.copies(),
                        known: known[k],
                        wanted: wanted[k],
                    },
                });
            }
        }
        Ok(())
    }

    fn check_bet(&self, heat: &Heat, seat: usize, bet: &Bet) -> Result<(), Err> {
        if let Some(by) = heat.occupant(bet.category, bet.space) {
            return Err(Err::SpaceTaken {
                category: bet.category,
                space: bet.space,
                words: bet.space.words(),
                by,
            });
        }
        if !self.stocks[seat].has(bet.piece) {
            return Err(Err::NoPieceLeft {
                seat,
                piece: bet.piece.name(),
                reason: match bet.piece {
                    Piece::Single => "all four singles are on the board or lost",
                    Piece::Double => "the double piece is on the board or lost",
                },
            });
        }
        Ok(())
    }

    fn check_turn(&self, seat: usize, bet: Option<&Bet>, reveal: &[Card]) -> Result<(), Err> {
        let heat = self.heat.as_ref().ok_or(Err::DealExpected)?;
        let Phase::Betting {
            to_play,
            betting_round,
        } = heat.phase
        else {
            return Err(Err::BettingClosed);
        };
        if seat != to_play {
            return Err(Err::NotYourTurn {
                expected: to_play,
                got: seat,
            });
        }
        if let Some(bet) = bet {
            self.check_bet(heat, seat, bet)?;
        }
        let (expected, rule, want) = if betting_round == 1 {
            (
                "no",
                "no cards are revealed in the first round of a heat (Rule Two)",
                0,
            )
        } else {
            (
                "exactly two",
                "after the optional bet a player must reveal two of his cards (Rule One)",
                2,
            )
        };
        if reveal.len() != want {
            return Err(Err::WrongRevealCount {
                seat,
                expected,
                got: reveal.len(),
                rule,
            });
        }
        self.check_cards(heat, seat, reveal, None)
    }

    fn turn(
        &mut self,
        seat: usize,
        bet: Option<&Bet>,
        reveal: &[Card],
    ) -> Result<Produced<MembersOnlyOutcome>, Err> {
        self.check_turn(seat, bet, reveal)?;
        let players = self.players;
        let index = self.applied;
        let Some(heat) = self.heat.as_mut() else {
            return Err(Err::DealExpected);
        };
        let Phase::Betting {
            to_play,
            betting_round,
        } = heat.phase
        else {
            return Err(Err::BettingClosed);
        };
        let mut out = Produced::new();
        if let Some(bet) = bet {
            let risk = betting_round == 1 && !heat.risk_used[seat];
            if risk {
                heat.risk_used[seat] = true;
            }
            self.stocks[seat].take(bet.piece);
            let placed = PlacedBet {
                seat,
                bet: *bet,
                risk,
            };
            heat.bets.push(placed);
            let b = placed.view();
            out.push(MembersOnlyOutcome::Bet {
                seat: b.seat,
                category: b.category,
                space: b.space,
                piece: b.piece,
                risk: b.risk,
                points: b.points,
            });
        }
        if !reveal.is_empty() {
            let c = counts_of(reveal);
            add(&mut heat.layout, &c);
            if let Some(h) = heat.hands.as_mut() {
                for k in 0..KINDS {
                    h[seat][k] = h[seat][k].saturating_sub(c[k]);
                }
            }
            heat.hand_sizes[seat] = heat.hand_sizes[seat].saturating_sub(reveal.len() as u8);
            heat.turn_reveals += reveal.len();
            out.push(MembersOnlyOutcome::Revealed {
                seat,
                cards: reveal.to_vec(),
            });
        }
        let next = (to_play + 1) % players;
        let round = if next == heat.starter {
            betting_round + 1
        } else {
            betting_round
        };
        if next == heat.starter && heat.hand_sizes.iter().all(|&h| h == FINAL_HAND) {
            // Rule Three: all players hold exactly three cards; no further bets.
            heat.phase = Phase::Final {
                from_action: index + 1,
                choices: vec![None; players],
            };
            out.push(MembersOnlyOutcome::BettingClosed { round: self.round });
        } else {
            heat.phase = Phase::Betting {
                to_play: next,
                betting_round: round,
            };
        }
        Ok(out)
    }

    /// Validates a final choice; returns the two cards revealed.
    fn check_final(
        &self,
        seat: usize,
        discard: Option<Card>,
        reveal: &[Card],
    ) -> Result<[Card; 2], Err> {
        let heat = self.heat.as_ref().ok_or(Err::DealExpected)?;
        let Phase::Final { choices, .. } = &heat.phase else {
            return Err(Err::FinalTooEarly {
                seat,
                held: heat.hand_sizes[seat],
            });
        };
        if choices[seat].is_some() {
            return Err(Err::FinalAlreadyRecorded(seat));
        }
        let rule = "each player discards one of his three cards face down and the other two join the layout (Rule Three)";
        match &heat.hands {
            Some(hands) => {
                let Some(d) = discard else {
                    return Err(Err::DiscardRequired(seat));
                };
                if !reveal.is_empty() && reveal.len() != 2 {
                    return Err(Err::WrongRevealCount {
                        seat,
                        expected: "the other two (or no)",
                        got: reveal.len(),
                        rule,
                    });
                }
                self.check_cards(heat, seat, reveal, Some(d))?;
                let mut rest = hands[seat];
                let dk = d.kind();
                rest[dk] = rest[dk].saturating_sub(1);
                let rest = cards_of(&rest);
                match rest.as_slice() {
                    [a, b] => Ok([*a, *b]),
                    _ => Err(Err::FinalTooEarly {
                        seat,
                        held: heat.hand_sizes[seat],
                    }),
                }
            }
            None => {
                let [a, b] = reveal else {
                    return Err(Err::WrongRevealCount {
                        seat,
                        expected: "exactly two",
                        got: reveal.len(),
                        rule,
                    });
                };
                self.check_cards(heat, seat, reveal, discard)?;
                Ok([*a, *b])
            }
        }
    }

    fn record_final(
        &mut self,
        seat: usize,
        discard: Option<Card>,
        reveal: &[Card],
    ) -> Result<Produced<MembersOnlyOutcome>, Err> {
        let shown = self.check_final(seat, discard, reveal)?;
        let Some(heat) = self.heat.as_mut() else {
            return Err(Err::DealExpected);
        };
        if let Some(h) = heat.hands.as_mut() {
            h[seat] = [0; KINDS];
        }
        heat.hand_sizes[seat] = 0;
        let Phase::Final { choices, .. } = &mut heat.phase else {
            return Err(Err::FinalTooEarly { seat, held: 0 });
        };
        choices[seat] = Some(FinalChoice {
            discard,
            reveal: shown,
        });
        let mut out: Produced<_> = smallvec::smallvec![MembersOnlyOutcome::FinalRecorded { seat }];
        if choices.iter().all(Option::is_some) {
            let reveals: Vec<[Card; 2]> = choices.iter().flatten().map(|c| c.reveal).collect();
            for r in &reveals {
                add(&mut heat.layout, &counts_of(r));
            }
            out.push(MembersOnlyOutcome::FinalsRevealed { reveals });
            out.extend(self.score_heat());
        }
        Ok(out)
    }

    /// Rule Five: scores the heat, returns pieces, advances markers; Rule Six and the game end.
    fn score_heat(&mut self) -> Vec<MembersOnlyOutcome> {
        let Some(heat) = self.heat.take() else {
            return vec![];
        };
        let n = self.players;
        let mut won = vec![[0u32; 5]; n];
        let mut fates = Vec::with_capacity(heat.bets.len());
        for placed in &heat.bets {
            let count = category_count(&heat.layout, placed.bet.category);
            let correct = placed.bet.space.is_correct(count);
            let points = if correct {
                placed.bet.space.points() * multiplier(placed.bet.piece, placed.risk)
            } else {
                0
            };
            if correct {
                // Correct pieces come back; wrong ones are lost for the game. The risk piece
                // always comes back (it is simply available again next heat).
                self.stocks[placed.seat].give_back(placed.bet.piece);
            }
            won[placed.seat][placed.bet.category.index()] += points;
            fates.push(PieceFate {
                placed: *placed,
                correct,
                won: points,
            });
        }
        let tracks: Vec<[u8; 5]> = (0..n)
            .map(|s| {
                std::array::from_fn(|c| {
                    (u32::from(self.tracks[s][c]) + won[s][c]).min(u32::from(TRACK_MAX)) as u8
                })
            })
            .collect();
        self.close_heat(
            HeatFacts {
                starter: heat.starter,
                dealer: heat.dealer,
                layout: Some(heat.layout),
                fates,
                won: Some(won),
                turn_reveals: heat.turn_reveals,
            },
            tracks,
        )
    }

    /// Moves the markers to `tracks` (the heat's result, each marker at or past where it stood),
    /// records the heat and says so; Rule Six and the game's end (docs/rules.md#members-only):
    /// the one ending of a heat, played or tallied.
    fn close_heat(&mut self, facts: HeatFacts, tracks: Vec<[u8; 5]>) -> Vec<MembersOnlyOutcome> {
        let n = self.players;
        let advanced: Vec<[u8; 5]> = (0..n)
            .map(|s| std::array::from_fn(|c| tracks[s][c].saturating_sub(self.tracks[s][c])))
            .collect();
        self.tracks = tracks;
        let game_over = (0..5).all(|c| self.tracks.iter().any(|t| t[c] >= COUNTING_FROM));
        let mut restored = vec![];
        if !game_over {
            // Rule Six: a player left with one betting piece or none gets all five back.
            for (s, stock) in self.stocks.iter_mut().enumerate() {
                if stock.count() <= 1 {
                    *stock = Stock::FULL;
                    restored.push(s);
                }
            }
        }
        let result = HeatResult {
            starter: facts.starter,
            dealer: facts.dealer,
            layout: facts.layout,
            fates: facts.fates,
            won: facts.won,
            advanced,
            tallied: facts.layout.is_none(),
            tracks: self.tracks.clone(),
            restored: restored.clone(),
            turn_reveals: facts.turn_reveals,
            players: n,
        };
        let points: Vec<i64> = result
            .advanced
            .iter()
            .map(|a| a.iter().map(|&x| i64::from(x)).sum())
            .collect();
        let mut out = vec![MembersOnlyOutcome::HeatScored {
            round: self.round,
            counts: facts
                .layout
                .map(|l| MembersOnlyCounts::of(&Category::ALL.map(|c| category_count(&l, c)))),
            points,
            tracks: self.tracks.iter().map(MembersOnlyTracks::of).collect(),
            totals: self.totals(),
        }];
        if !restored.is_empty() {
            out.push(MembersOnlyOutcome::PiecesRestored { seats: restored });
        }
        self.results.push(result);
        if game_over {
            self.finished = true;
            let (winners, margin) = winners_and_margin(&self.totals());
            out.push(MembersOnlyOutcome::MatchFinished { winners, margin });
        }
        out
    }

    /// Score-only play: a heat's result as each seat's markers after it (`[umbrella, crown,
    /// teacup, big_ben, hat]`), checked for shape, the track (0 to 10) and that no marker moved
    /// back (docs/rules.md#members-only: markers only advance), then scored as a played heat
    /// ends ([`MembersOnly::close_heat`]). What the layout and the pieces were is not known:
    /// achievability by pieces is not checked.
    fn tally(&mut self, markers: &[Vec<i64>]) -> Result<Vec<MembersOnlyOutcome>, Err> {
        if !self.config.scores_only || self.dealing != Dealing::Table {
            return Err(Err::TallyNotAllowed);
        }
        if self.heat.is_some() {
            return Err(Err::HeatInProgress(self.round));
        }
        let n = self.players;
        if markers.len() != n {
            return Err(Err::TallyShape(format!(
                "one row of five markers (umbrella, crown, teacup, Big Ben, hat) per seat: {n} rows expected, {} given",
                markers.len()
            )));
        }
        if let Some((seat, row)) = markers.iter().enumerate().find(|(_, r)| r.len() != 5) {
            return Err(Err::TallyShape(format!(
                "seat {}: five markers expected (umbrella, crown, teacup, Big Ben, hat), {} given",
                seat + 1,
                row.len()
            )));
        }
        for (seat, row) in markers.iter().enumerate() {
            for (category, &value) in Category::ALL.into_iter().zip(row) {
                if !(0..=i64::from(TRACK_MAX)).contains(&value) {
                    return Err(Err::TallyRange {
                        seat,
                        category,
                        value,
                    });
                }
            }
        }
        for (seat, row) in markers.iter().enumerate() {
            for (category, &value) in Category::ALL.into_iter().zip(row) {
                let was = self.tracks[seat][category.index()];
                if value < i64::from(was) {
                    return Err(Err::TallyMarkerBack {
                        seat,
                        category,
                        value,
                        was,
                    });
                }
            }
        }
        let tracks: Vec<[u8; 5]> = markers
            .iter()
            .map(|row| std::array::from_fn(|c| row[c] as u8))
            .collect();
        self.round += 1;
        let facts = HeatFacts {
            starter: self.starter_of(self.round),
            dealer: self.dealer_of(self.round),
            layout: None,
            fates: vec![],
            won: None,
            // Every hand goes down to three cards in a heat (Rule Three), whoever plays it.
            turn_reveals: n * usize::from(hand_size(n) - FINAL_HAND),
        };
        Ok(self.close_heat(facts, tracks))
    }

    fn start_heat(
        &mut self,
        face_up: &[Card],
        seed: Option<&Seed>,
    ) -> Result<Vec<MembersOnlyOutcome>, Err> {
        if self.heat.is_some() {
            return Err(Err::HeatInProgress(self.round));
        }
        let number = self.round + 1;
        let starter = self.starter_of(number);
        let dealer = self.dealer_of(number);
        let n = self.players;
        let per_hand = hand_size(n);
        let (hands, face) = match (self.dealing, seed) {
            (Dealing::Service, _) if !face_up.is_empty() => return Err(Err::FaceUpNotTaken),
            (Dealing::Service, None) => return Err(Err::SeedMissing),
            (Dealing::Service, Some(seed)) => {
                // `deal_from_seed`'s deal, counted by kind as it is dealt (no hand lists).
                let order = shuffled(deck(), seed);
                let dealt = n * per_hand as usize;
                let mut hands = vec![[0u8; KINDS]; n];
                for (k, card) in order.iter().take(dealt).enumerate() {
                    let hand = &mut hands[(starter + k) % n][card.kind()];
                    *hand = hand.saturating_add(1);
                }
                (Some(hands), [order[dealt], order[dealt + 1]])
            }
            (Dealing::Table, Some(_)) => return Err(Err::SeedNotTaken),
            (Dealing::Table, None) => match face_up {
                [a, b] => (None, [*a, *b]),
                _ => return Err(Err::WrongFaceUpCount(face_up.len())),
            },
        };
        let commitment = seed.map(Commitment::of);
        self.round = number;
        self.heat = Some(Heat {
            starter,
            dealer,
            face_up: face,
            hands,
            hand_sizes: vec![per_hand; n],
            layout: counts_of(&face),
            turn_reveals: 0,
            // Every piece the seats have (none places more), reserved once.
            bets: Vec::with_capacity(n * (usize::from(SINGLE_PIECES) + 1)),
            risk_used: vec![false; n],
            phase: Phase::Betting {
                to_play: starter,
                betting_round: 1,
            },
            commitment,
        });
        Ok(vec![MembersOnlyOutcome::Dealt {
            round: number,
            dealer,
            starter,
            hand_size: per_hand,
            face_up: face,
            commitment,
        }])
    }

    fn reveal_options(&self, heat: &Heat, seat: usize) -> Vec<Vec<Card>> {
        let mut out = vec![];
        each_reveal(&heat.available(seat), |a, b| {
            out.push(vec![a, b]);
            true
        });
        out
    }

    /// The spaces taken on the board: bit `category * 8 + space`.
    fn taken(heat: &Heat) -> u64 {
        let mut taken = 0u64;
        for b in &heat.bets {
            taken |= 1 << (b.bet.category as usize * Space::ALL.len() + b.bet.space as usize);
        }
        taken
    }

    /// The `k`-th bet of [`Self::bet_options`] (same order), without the list; also returns
    /// how many there are.
    fn bet_at(&self, heat: &Heat, seat: usize, k: usize) -> (usize, Option<Bet>) {
        let taken = Self::taken(heat);
        // The pieces the seat holds, single first (each free space lists them in this order).
        let mut pieces = [Piece::Single; 2];
        let mut held = 0;
        for p in [Piece::Single, Piece::Double] {
            if self.stocks[seat].has(p) {
                pieces[held] = p;
                held += 1;
            }
        }
        let free = (Category::ALL.len() * Space::ALL.len()) - taken.count_ones() as usize;
        let count = free * held;
        if k >= count {
            return (count, None);
        }
        // The k-th free space in board order (bit category * 8 + space), then the piece.
        let (mut nth, piece) = (k / held, pieces[k % held]);
        let mut free = !taken & ((1u64 << (Category::ALL.len() * Space::ALL.len())) - 1);
        // Whole categories' free spaces skipped by count, then the spaces of the one it is in.
        let row = (1u64 << Space::ALL.len()) - 1;
        let mut base = 0;
        while ((free >> base) & row).count_ones() as usize <= nth {
            nth -= ((free >> base) & row).count_ones() as usize;
            base += Space::ALL.len();
        }
        free = (free >> base) & row;
        for _ in 0..nth {
            free &= free - 1;
        }
        let bit = base + free.trailing_zeros() as usize;
        let bet = Bet {
            category: Category::ALL[bit / Space::ALL.len()],
            space: Space::ALL[bit % Space::ALL.len()],
            piece,
        };
        (count, Some(bet))
    }

    /// The bets `check_bet` accepts, in board order: the spaces taken are marked once, not
    /// searched for each bet.
    fn bet_options(&self, heat: &Heat, seat: usize) -> Vec<Bet> {
        let taken = Self::taken(heat); // bit category * 8 + space
        let pieces = [Piece::Single, Piece::Double].map(|p| self.stocks[seat].has(p));
        let mut out = Vec::with_capacity(2 * Category::ALL.len() * Space::ALL.len());
        for category in Category::ALL {
            for space in Space::ALL {
                if taken & (1 << (category as usize * Space::ALL.len() + space as usize)) != 0 {
                    continue;
                }
                for (piece, has) in [Piece::Single, Piece::Double].into_iter().zip(pieces) {
                    if has {
                        out.push(Bet {
                            category,
                            space,
                            piece,
                        });
                    }
                }
            }
        }
        debug_assert!(out.iter().all(|b| self.check_bet(heat, seat, b).is_ok()));
        out
    }

    /// Service dealing's end-of-heat choice from `hand` discarding a card of `kind` (held): the
    /// other cards revealed.
    fn final_choice(hand: Counts, kind: usize) -> Action {
        let mut rest = hand;
        rest[kind] -= 1;
        Action::Final {
            discard: Some(Card::from_kind(kind)),
            reveal: cards_of(&rest),
        }
    }

    fn stock_view(&self, seat: usize) -> MembersOnlyPieces {
        let st = self.stocks[seat];
        let risk = match &self.heat {
            Some(h) => !h.risk_used[seat],
            None => true,
        };
        MembersOnlyPieces {
            single: st.singles,
            double: u8::from(st.double),
            risk: u8::from(risk),
        }
    }
}

impl Game for MembersOnly {
    const ID: &'static str = "members-only";
    const TITLE: &'static str = "Members Only";
    const MIN_PLAYERS: usize = 3;
    const MAX_PLAYERS: usize = 5;
    type Config = MembersOnlyConfig;
    type Action = Action;
    type Table = MembersOnlyTable;
    type Seat = MembersOnlySeat;
    type Outcome = MembersOnlyOutcome;
    type RoundDetail = MembersOnlyRoundDetail;
    type Error = MembersOnlyError;

    const DUPLICATE: bool = true;
    const TOTALS_NOT_DEAL_SUMS: Option<&'static str> = Some(
        "Members Only's final count is the markers standing at 5..10, not the heats' advances",
    );

    /// docs/rules.md#members-only-game-end: each player adds his markers standing at 5..10: 0 to 50.
    fn check_entered(e: &Entered<'_>) -> Result<(), EntryError> {
        if e.totals.iter().any(|&t| !(0..=50).contains(&t)) {
            return Err(entered::impossible(
                "a Members Only total is the sum of five markers counting 5 to 10 each (or 0): 0 to 50",
            ));
        }
        if e.deals.iter().flatten().any(|&x| !(0..=50).contains(&x)) {
            return Err(entered::impossible(
                "a heat advances a player's five markers by 0 to 10 each: 0 to 50",
            ));
        }
        Ok(())
    }

    fn new(
        config: MembersOnlyConfig,
        players: usize,
        dealing: Dealing,
    ) -> Result<MembersOnly, MembersOnlyError> {
        if !(Self::MIN_PLAYERS..=Self::MAX_PLAYERS).contains(&players) {
            return Err(Err::PlayerCount(players));
        }
        if config.first_player >= players {
            return Err(Err::BadFirstPlayer {
                max: players - 1,
                got: config.first_player,
            });
        }
        Ok(MembersOnly {
            config,
            players,
            dealing,
            round: 0,
            heat: None,
            stocks: vec![Stock::FULL; players],
            tracks: vec![[0; 5]; players],
            results: vec![],
            finished: false,
            applied: 0,
        })
    }

    fn config(&self) -> &MembersOnlyConfig {
        &self.config
    }

    fn to_act(&self) -> ToAct {
        if self.finished {
            return ToAct::nobody();
        }
        match &self.heat {
            None => ToAct::table(),
            Some(h) => match &h.phase {
                Phase::Betting { to_play, .. } => ToAct::seat(*to_play),
                Phase::Final { choices, .. } => ToAct {
                    seats: (0..self.players)
                        .filter(|&s| choices[s].is_none())
                        .collect(),
                    table: false,
                },
            },
        }
    }

    /// What `actor` may do now. A table deal in table dealing lists every pair of face-up cards
    /// (55). A turn's bet and reveal are independent, so instead of their product (up to 81 × 55)
    /// the list holds every possible bet (`null` included) with the first possible reveal, then
    /// every other possible reveal with no bet: any listed bet combines with any listed reveal.
    /// Reveals are listed in canonical order; `apply` takes them in any order. The end of a heat
    /// lists, in service dealing, each possible discard with the other two cards (`reveal` may also
    /// be omitted), and in table dealing every possible pair revealed without a named discard (a
    /// discard the deck allows is accepted too).
    /// In a score-only match (`scores_only`), the heat's `markers` tally: per seat the five
    /// markers after the heat, 0 to 10, none behind where it stands now (RULES.md "Members
    /// Only": markers only advance). The markers are public.
    fn tally_form(&self) -> Option<TallyForm> {
        (self.dealing == Dealing::Table && self.config.scores_only).then(|| TallyForm {
            field: "markers",
            per_entry: Some(TALLY_PARTS.to_vec()),
            floor: Some(
                self.tracks
                    .iter()
                    .map(|t| t.iter().map(|&m| i64::from(m)).collect())
                    .collect(),
            ),
            ..TallyForm::points(TallyUnit::Seat, self.tracks.len(), 0, 10)
        })
    }

    fn legal_actions(&self, actor: Actor) -> Vec<Action> {
        if self.finished || self.check_seat(actor).is_err() {
            return vec![];
        }
        let Some(heat) = &self.heat else {
            return match (actor, self.dealing) {
                (Actor::Table, Dealing::Service) => vec![Action::Deal { face_up: vec![] }],
                (Actor::Table, Dealing::Table) => (0..KINDS)
                    .flat_map(|a| (a..KINDS).map(move |b| (a, b)))
                    .filter(|&(a, b)| a != b || Card::from_kind(a).copies() >= 2)
                    .map(|(a, b)| Action::Deal {
                        face_up: vec![Card::from_kind(a), Card::from_kind(b)],
                    })
                    .collect(),
                _ => vec![],
            };
        };
        let Actor::Seat(seat) = actor else {
            return vec![];
        };
        match &heat.phase {
            Phase::Betting {
                to_play,
                betting_round,
            } if *to_play == seat => {
                let reveals = if *betting_round == 1 {
                    vec![vec![]]
                } else {
                    self.reveal_options(heat, seat)
                };
                let Some(first) = reveals.first() else {
                    return vec![];
                };
                let mut out: Vec<Action> = std::iter::once(None)
                    .chain(self.bet_options(heat, seat).into_iter().map(Some))
                    .map(|bet| Action::Turn {
                        bet,
                        reveal: first.clone(),
                    })
                    .collect();
                out.extend(reveals.iter().skip(1).map(|r| Action::Turn {
                    bet: None,
                    reveal: r.clone(),
                }));
                out
            }
            Phase::Final { choices, .. } if choices[seat].is_none() => match &heat.hands {
                Some(hands) => {
                    let hand = hands[seat];
                    (0..KINDS)
                        .filter(|&k| hand[k] > 0)
                        .map(|k| Self::final_choice(hand, k))
                        .collect()
                }
                None => self
                    .reveal_options(heat, seat)
                    .into_iter()
                    .map(|reveal| Action::Final {
                        discard: None,
                        reveal,
                    })
                    .collect(),
            },
            _ => vec![],
        }
    }

    /// A betting turn is picked without cloning its reveal into every bet's action (the list
    /// holds one per free space and piece); any other list is built.
    fn legal_pick(&self, actor: Actor, pick: impl FnOnce(usize) -> usize) -> Option<Action> {
        if let (false, Ok(()), Some(heat), Actor::Seat(seat)) =
            (self.finished, self.check_seat(actor), &self.heat, actor)
        {
            if let Phase::Betting {
                to_play,
                betting_round,
            } = heat.phase
            {
                if to_play == seat {
                    // The reveals counted (and the first one kept) without a list: none in
                    // round 1, else each pair the seat can show.
                    let available = heat.available(seat);
                    let (reveals, first) = if betting_round == 1 {
                        (1, None)
                    } else {
                        // `each_reveal`'s pairs counted, not walked: two different kinds the
                        // seat shows (one of each), or two of one kind it holds twice.
                        let one = available.iter().filter(|&&n| n >= 1).count();
                        let two = available.iter().filter(|&&n| n >= 2).count();
                        let mut first = None;
                        each_reveal(&available, |a, b| {
                            first = Some([a, b]);
                            false
                        });
                        (one * one.saturating_sub(1) / 2 + two, first)
                    };
                    if reveals == 0 {
                        return None;
                    }
                    let reveal_vec =
                        |pair: Option<[Card; 2]>| pair.map_or_else(Vec::new, Vec::from);
                    let (bets, _) = self.bet_at(heat, seat, usize::MAX);
                    // As listed: no bet, then each bet, with the first reveal; then the other
                    // reveals without a bet.
                    let count = 1 + bets + reveals - 1;
                    let k = pick(count);
                    return match k {
                        0 => Some(Action::Turn {
                            bet: None,
                            reveal: reveal_vec(first),
                        }),
                        k if k <= bets => Some(Action::Turn {
                            bet: self.bet_at(heat, seat, k - 1).1,
                            reveal: reveal_vec(first),
                        }),
                        k if k < count => {
                            let mut nth = k - bets;
                            let mut chosen = None;
                            each_reveal(&available, |a, b| {
                                if nth == 0 {
                                    chosen = Some([a, b]);
                                    return false;
                                }
                                nth -= 1;
                                true
                            });
                            chosen.map(|pair| Action::Turn {
                                bet: None,
                                reveal: Vec::from(pair),
                            })
                        }
                        _ => None,
                    };
                }
            }
            // Service dealing's end of the heat: the k-th kind held is the discard, without
            // building every other choice's reveal.
            if let (Phase::Final { choices, .. }, Some(hands)) = (&heat.phase, &heat.hands) {
                if choices[seat].is_none() {
                    let hand = hands[seat];
                    let held = hand.iter().filter(|&&n| n > 0).count();
                    if held == 0 {
                        return None;
                    }
                    let k = pick(held);
                    let kind = (0..KINDS).filter(|&k| hand[k] > 0).nth(k)?;
                    return Some(Self::final_choice(hand, kind));
                }
            }
        }
        crate::rules::pick_listed(self, actor, pick)
    }

    fn dealing(&self) -> Dealing {
        self.dealing
    }

    fn is_deal(action: &Action) -> bool {
        matches!(action, Action::Deal { .. })
    }

    /// Duplicate with real cards: heat `deal` as service dealing deals it (11 / 9 / 7 each from
    /// the starter on, the next two face up into the layout, the rest out of the heat unseen:
    /// docs/rules.md#members-only, Rule One), each list by category in track order, normal
    /// cards before NO! cards.
    fn board(&self, deal: u32, seed: &Seed) -> Option<super::Board> {
        let d = deal_from_seed(seed, self.players, self.starter_of(deal));
        let written = |mut cards: Vec<Card>| -> Vec<String> {
            cards.sort();
            cards.iter().map(ToString::to_string).collect()
        };
        Some(super::Board {
            dealer: self.dealer_of(deal),
            hands: d.hands.into_iter().map(written).collect(),
            undealt: written(d.unused),
            layout: written(d.face_up.to_vec()),
            stock: vec![],
        })
    }

    /// The two cards the table records face up at the deal are the board's layout: another card
    /// there fouls the board (named with the dealer's seat, who turned it). Then the seats'
    /// reveals, counted against their hands.
    fn board_fouls(board: &super::Board, actions: &[(Actor, Action)]) -> Vec<super::BoardFoul> {
        let mut out = vec![];
        for (index, (actor, action)) in actions.iter().enumerate() {
            if let (Actor::Table, Action::Deal { face_up }) = (actor, action) {
                let mut layout = board.layout.clone();
                for card in face_up.iter().map(ToString::to_string) {
                    match layout.iter().position(|c| *c == card) {
                        Some(i) => {
                            layout.remove(i);
                        }
                        None => out.push(super::BoardFoul {
                            index,
                            seat: board.dealer,
                            card,
                            face_up: true,
                        }),
                    }
                }
            }
        }
        out.extend(super::seat_fouls::<Self>(board, actions));
        out.sort_by_key(|f| f.index);
        out
    }

    /// The cards a seat reveals, in a turn or at the end of the heat. The discard is face down
    /// for good (Rule Three): it is not checked, so no foul ever tells anything of it.
    fn cards_shown(action: &Action) -> Vec<String> {
        match action {
            Action::Turn { reveal, .. } | Action::Final { reveal, .. } => {
                reveal.iter().map(ToString::to_string).collect()
            }
            _ => vec![],
        }
    }

    fn apply(
        &mut self,
        actor: Actor,
        action: &Action,
        seed: Option<&Seed>,
    ) -> Result<Produced<MembersOnlyOutcome>, MembersOnlyError> {
        if self.finished {
            return Err(Err::MatchFinished);
        }
        self.check_seat(actor)?;
        let out = match (action, actor) {
            (Action::Deal { .. } | Action::Tally { .. }, Actor::Seat(_)) => {
                Err(Err::TableActionOnly(action.name()))
            }
            (Action::Turn { .. } | Action::Final { .. }, Actor::Table) => {
                Err(Err::SeatActionOnly(action.name()))
            }
            (Action::Tally { markers }, Actor::Table) => produced(self.tally(markers)),
            (Action::Deal { face_up }, Actor::Table) => produced(self.start_heat(face_up, seed)),
            (Action::Turn { bet, reveal }, Actor::Seat(s)) => self.turn(s, bet.as_ref(), reveal),
            (Action::Final { discard, reveal }, Actor::Seat(s)) => {
                self.record_final(s, *discard, reveal)
            }
        }?;
        self.applied += 1;
        Ok(out)
    }

    fn table(&self) -> MembersOnlyTable {
        let phase = if self.finished {
            ViewPhase::Finished
        } else {
            match &self.heat {
                None => ViewPhase::AwaitingDeal,
                Some(h) => match h.phase {
                    Phase::Betting { .. } => ViewPhase::Betting,
                    Phase::Final { .. } => ViewPhase::Final,
                },
            }
        };
        let n = self.players;
        let mut v = MembersOnlyTable {
            phase,
            heat: self.round,
            tracks: self.tracks.iter().map(MembersOnlyTracks::of).collect(),
            totals: self.totals(),
            pieces: (0..n).map(|s| self.stock_view(s)).collect(),
            layout: MembersOnlyLayout::of(&[0; KINDS]),
            bets: vec![],
            starter: None,
            dealer: None,
            betting_round: None,
            to_play: None,
            face_up: None,
            hand_sizes: None,
            finals_in: None,
            unused: None,
            commitment: None,
            next_starter: None,
            next_dealer: None,
        };
        match &self.heat {
            Some(h) => {
                let (to_play, betting_round, finals_in) = match &h.phase {
                    Phase::Betting {
                        to_play,
                        betting_round,
                    } => (Some(*to_play), Some(*betting_round), vec![]),
                    Phase::Final { choices, .. } => (
                        None,
                        None,
                        (0..n).filter(|&s| choices[s].is_some()).collect(),
                    ),
                };
                let dealt = n * hand_size(n) as usize + FACE_UP;
                v.starter = Some(h.starter);
                v.dealer = Some(h.dealer);
                v.betting_round = Some(betting_round);
                v.to_play = Some(to_play);
                v.face_up = Some(h.face_up);
                v.layout = MembersOnlyLayout::of(&h.layout);
                v.bets = h.bets.iter().map(|b| b.view()).collect();
                v.hand_sizes = Some(h.hand_sizes.clone());
                v.finals_in = Some(finals_in);
                v.unused = Some(DECK_SIZE - dealt);
                v.commitment = Some(h.commitment.map(|c| c.to_string()));
            }
            None => {
                if !self.finished {
                    let next = self.round + 1;
                    v.next_starter = Some(self.starter_of(next));
                    v.next_dealer = Some(self.dealer_of(next));
                }
            }
        }
        v
    }

    fn seat(&self, seat: usize) -> Option<MembersOnlySeat> {
        if seat >= self.players {
            // Never on the wire (no seat token names a seat outside the match).
            return None;
        }
        let heat = self.heat.as_ref();
        let hand = heat
            .and_then(|h| h.hands.as_ref())
            .map(|hands| cards_of(&hands[seat]));
        let final_choice = heat.and_then(|h| match &h.phase {
            Phase::Final { choices, .. } => choices[seat].map(|c| MembersOnlyFinalChoice {
                discard: c.discard,
                reveal: c.reveal,
            }),
            Phase::Betting { .. } => None,
        });
        let bets: Vec<MembersOnlyPlacedBet> = heat
            .map(|h| {
                h.bets
                    .iter()
                    .filter(|b| b.seat == seat)
                    .map(|b| b.view())
                    .collect()
            })
            .unwrap_or_default();
        Some(MembersOnlySeat {
            seat,
            hand,
            hand_size: heat.map(|h| h.hand_sizes[seat]),
            pieces: self.stock_view(seat),
            bets,
            r#final: final_choice,
            tracks: MembersOnlyTracks::of(&self.tracks[seat]),
            total: counting_total(&self.tracks[seat]),
        })
    }

    fn score_sheet(&self) -> ScoreSheet {
        let rounds = self
            .results
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let pieces: Vec<MembersOnlyPieceFate> = r
                    .fates
                    .iter()
                    .map(|f| {
                        let b = f.placed.view();
                        MembersOnlyPieceFate {
                            seat: b.seat,
                            category: b.category,
                            space: b.space,
                            piece: b.piece,
                            risk: b.risk,
                            points: b.points,
                            multiplier: multiplier(f.placed.bet.piece, f.placed.risk),
                            correct: f.correct,
                            won: f.won,
                            fate: if f.correct { "returned" } else { "lost" },
                        }
                    })
                    .collect();
                RoundScore {
                    round: i as u32 + 1,
                    label: format!("Heat {}", i + 1),
                    multiplier: 1,
                    points: r
                        .advanced
                        .iter()
                        .map(|a| a.iter().map(|&x| i64::from(x)).sum())
                        .collect(),
                    detail: to_json(&MembersOnlyRoundDetail {
                        starter: r.starter,
                        dealer: r.dealer,
                        tallied: r.tallied,
                        layout: r.layout.as_ref().map(MembersOnlyLayout::of),
                        pieces,
                        won: r
                            .won
                            .as_ref()
                            .map(|w| w.iter().map(MembersOnlyWon::of).collect()),
                        advanced: r.advanced.iter().map(MembersOnlyCounts::of).collect(),
                        tracks: r.tracks.iter().map(MembersOnlyTracks::of).collect(),
                        restored: r.restored.clone(),
                        cards: MembersOnlyCardCounts {
                            face_up: FACE_UP,
                            revealed: r.turn_reveals,
                            r#final: 2 * r.players,
                            discarded: r.players,
                            unused: DECK_SIZE - r.players * hand_size(r.players) as usize - FACE_UP,
                        },
                    }),
                }
            })
            .collect();
        let totals = self.totals();
        let (winners, margin) = if self.finished {
            winners_and_margin(&totals)
        } else {
            (vec![], None)
        };
        ScoreSheet {
            game: "",
            unit: Unit::Seat,
            sides: None,
            rounds,
            totals,
            finished: self.finished,
            winners,
            margin,
        }
    }

    fn round(&self) -> u32 {
        self.round
    }

    fn dealer(&self) -> Option<usize> {
        super::dealer_now(self.heat.is_some(), self.finished, self.round, |r| {
            self.dealer_of(r)
        })
    }

    fn rounds_completed(&self) -> u32 {
        self.results.len() as u32
    }

    /// A final choice's discard is shown only to its own seat; while the heat's final choices are
    /// still coming in (sealed), the reveal is hidden from other viewers too.
    /// The end-of-heat discard and reveal are made "at once" and face down (docs/rules.md#members-only-end-of-heat, Rule Three).
    fn is_sealed(&self, action: &Action) -> bool {
        matches!(action, Action::Final { .. })
    }

    /// docs/rules.md#members-only-end-of-heat, Rule Three: each player discards one card face down, "never counted" and never
    /// revealed. The seed of a service deal re-derives every hand, and with the public reveals
    /// every discard, so it is never published: the commitment stays, binding the deal.
    fn seed_withheld(&self) -> Option<&'static str> {
        Some(SEED_WITHHELD)
    }

    fn render_action(
        &self,
        index: usize,
        action: &Action,
        actor: Actor,
        viewer: Option<usize>,
    ) -> Value {
        let full = serde_json::to_value(action).unwrap_or(Value::Null);
        let Action::Final { discard, .. } = action else {
            return full;
        };
        if actor.seat().is_some() && actor.seat() == viewer {
            return full;
        }
        let sealed = matches!(
            self.heat.as_ref().map(|h| &h.phase),
            Some(Phase::Final { from_action, .. }) if index >= *from_action
        );
        if sealed {
            return SealedAction::of("final");
        }
        match (discard, action) {
            (Some(_), Action::Final { reveal, .. }) => to_json(&MembersOnlyFinalShown {
                kind: "final",
                discard: "hidden",
                reveal: reveal.clone(),
            }),
            _ => full,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cards_read_and_write() {
        for k in 0..KINDS {
            let c = Card::from_kind(k);
            assert_eq!(c.to_string().parse::<Card>().unwrap(), c);
            assert_eq!(c.kind(), k);
        }
        assert_eq!(
            "Big_Ben:NO".parse::<Card>().unwrap(),
            Card::no(Category::BigBen)
        );
        for bad in ["", "rain", "umbrella:yes", ":no", "umbrella:no:no"] {
            assert!(bad.parse::<Card>().is_err(), "{bad}");
        }
    }

    #[test]
    fn deck_has_65_cards_13_per_category() {
        let d = deck();
        assert_eq!(d.len(), DECK_SIZE);
        let c = counts_of(&d);
        for cat in Category::ALL {
            assert_eq!(c[Card::normal(cat).kind()], 11);
            assert_eq!(c[Card::no(cat).kind()], 2);
        }
    }

    #[test]
    fn spaces_and_multipliers_follow_the_board() {
        let pts: Vec<u32> = Space::ALL.iter().map(|s| s.points()).collect();
        assert_eq!(pts, [5, 3, 2, 1, 1, 2, 3, 5]);
        assert!(Space::Le3.is_correct(3) && !Space::Le2.is_correct(3));
        assert!(Space::Ge5.is_correct(5) && !Space::Ge6.is_correct(5));
        assert!(Space::Le1.is_correct(0) && !Space::Ge5.is_correct(0));
        assert_eq!(multiplier(Piece::Double, false), 2);
        assert_eq!(multiplier(Piece::Single, true), 2);
        assert_eq!(multiplier(Piece::Double, true), 3);
    }

    #[test]
    fn counts_never_fall_below_zero() {
        let layout = counts_of(&[
            Card::normal(Category::Hat),
            Card::no(Category::Hat),
            Card::no(Category::Hat),
        ]);
        assert_eq!(category_count(&layout, Category::Hat), 0);
    }

    #[test]
    fn service_deal_deals_every_card_once() {
        for n in 3..=5 {
            let d = deal_from_seed(&Seed([7; 32]), n, 1);
            let mut all: Vec<Card> = d.hands.concat();
            assert!(d.hands.iter().all(|h| h.len() == hand_size(n) as usize));
            all.extend(d.face_up);
            all.extend(d.unused.iter().copied());
            assert_eq!(counts_of(&all), counts_of(&deck()));
        }
    }

    fn table_game(players: usize) -> MembersOnly {
        MembersOnly::new(MembersOnlyConfig::default(), players, Dealing::Table).unwrap()
    }

    fn turn(reveal: &[&str]) -> Action {
        Action::Turn {
            bet: None,
            reveal: reveal.iter().map(|c| c.parse().unwrap()).collect(),
        }
    }

    /// Plays a 5-player table heat up to the end-of-heat choices; returns the game.
    fn at_heat_end() -> MembersOnly {
        let mut g = table_game(5);
        let deal = Action::Deal {
            face_up: vec![Card::normal(Category::Hat), Card::no(Category::Hat)],
        };
        g.apply(Actor::Table, &deal, None).unwrap();
        for s in 0..5 {
            g.apply(Actor::Seat(s), &turn(&[]), None).unwrap();
        }
        for _ in 0..2 {
            for s in 0..5 {
                g.apply(Actor::Seat(s), &turn(&["crown", "teacup"]), None)
                    .unwrap();
            }
        }
        assert_eq!(g.to_act().seats.as_slice(), [0, 1, 2, 3, 4]);
        g
    }

    #[test]
    fn a_discard_shows_only_to_its_seat_and_reveals_stay_sealed_until_all_are_in() {
        let mut g = at_heat_end();
        let first_final = g.applied;
        let fin = Action::Final {
            discard: Some(Card::normal(Category::Umbrella)),
            reveal: vec![Card::normal(Category::BigBen), Card::no(Category::BigBen)],
        };
        g.apply(Actor::Seat(2), &fin, None).unwrap();
        let own = g.render_action(first_final, &fin, Actor::Seat(2), Some(2));
        assert_eq!(own["discard"], "umbrella");
        for viewer in [None, Some(0)] {
            let other = g.render_action(first_final, &fin, Actor::Seat(2), viewer);
            assert_eq!(other, json!({"type": "final", "sealed": true}));
        }
        // An earlier turn is never hidden.
        let t = turn(&["crown", "teacup"]);
        assert_eq!(
            g.render_action(first_final - 1, &t, Actor::Seat(4), None)["reveal"],
            json!(["crown", "teacup"])
        );
        for s in [0, 1, 3, 4] {
            let f = Action::Final {
                discard: None,
                reveal: vec![
                    Card::normal(Category::Umbrella),
                    Card::normal(Category::Hat),
                ],
            };
            g.apply(Actor::Seat(s), &f, None).unwrap();
        }
        assert_eq!(g.rounds_completed(), 1);
        let other = g.render_action(first_final, &fin, Actor::Seat(2), Some(0));
        assert_eq!(other["discard"], "hidden");
        assert_eq!(other["reveal"], json!(["big_ben", "big_ben:no"]));
    }

    #[test]
    fn legal_lists_every_bet_with_one_reveal_then_every_other_reveal() {
        let mut g = table_game(3);
        let deal = Action::Deal {
            face_up: vec![Card::normal(Category::Hat), Card::normal(Category::Crown)],
        };
        g.apply(Actor::Table, &deal, None).unwrap();
        // Round 1: no bet or any of 40 spaces x 2 pieces, no reveal.
        assert_eq!(g.legal_actions(Actor::Seat(0)).len(), 81);
        assert!(g.legal_actions(Actor::Seat(1)).is_empty());
        assert!(g.legal_actions(Actor::Table).is_empty());
        assert!(g.legal_actions(Actor::Seat(9)).is_empty());
        let bet = Action::Turn {
            bet: Some(Bet {
                category: Category::Hat,
                space: Space::Le1,
                piece: Piece::Double,
            }),
            reveal: vec![],
        };
        g.apply(Actor::Seat(0), &bet, None).unwrap();
        g.apply(Actor::Seat(1), &turn(&[]), None).unwrap();
        g.apply(Actor::Seat(2), &turn(&[]), None).unwrap();
        // Round 2, seat 0: 39 vacant spaces with singles only, plus no bet: 40 turns with the
        // first reveal; then the other 54 pairs of the ten card kinds, without a bet.
        let legal = g.legal_actions(Actor::Seat(0));
        assert_eq!(legal.len(), 40 + 54);
        assert!(legal.iter().all(|a| !matches!(
            a,
            Action::Turn { bet: Some(b), .. } if b.piece == Piece::Double
                || (b.category == Category::Hat && b.space == Space::Le1)
        )));
    }
}

#[cfg(test)]
mod schema_tests {
    use utoipa::{PartialSchema, ToSchema};

    use super::*;

    #[test]
    fn the_action_schema_references_the_card_schema() {
        let mut found = vec![];
        <Action as ToSchema>::schemas(&mut found);
        let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
        let schema = serde_json::to_string(&<Action as PartialSchema>::schema()).unwrap();
        assert!(names.contains(&"MembersOnlyCard"), "{names:?}");
        assert!(schema.contains("MembersOnlyCard"));
    }
}

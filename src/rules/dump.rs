//! Dump (Alex Randolph, "Indiscretion", 1987): tricks without trumps, 40 cards, card points.
//!
//! docs/rules.md#dump: 2 or 4 players (4 = partnerships: seats 0+2 against 1+3), the 4s, 5s and 6s
//! removed, ace high; 10 cards each with 4 players, 20 with 2. Follow suit if able, else anything;
//! the highest card of the led suit wins and the winner leads next. A = 1, 2 3 7 8 9 10 at face
//! value, J Q K nothing: 160 per deal. The side with 81 or more scores the amount over 80 (80-80
//! scores nothing); first side to `target` (default 100) at the end of a deal wins.

use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use super::entered::{self, Entered, EntryError};
use super::{
    cards::{deck_without_ranks, Card, CardSet, Commitment, Seed, Suit, SuitSet},
    produced,
    sheet::{winners_and_margin, RoundScore, ScoreSheet},
    tally::{self, TallyForm, TallyUnit},
    to_json,
    trick::{service_deal, Duties, Play, PlayError, SeedProblem, TrickPlay},
    Actor, Dealing, Game, ProblemFields, Produced, RuleError, SeedReveal, ToAct,
};

/// Card points in one deal, all 40 cards together.
pub const DEAL_POINTS: u32 = 160;

/// The highest `target` accepted (the schema's maximum; validated in `new` so that the published
/// contract and the engine agree).
pub const MAX_TARGET: i64 = 100_000;

/// Dump's match options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DumpConfig {
    /// The total a side must reach or exceed at the end of a deal to win (default 100; docs/rules.md#dump-scoring).
    #[schema(minimum = 1, maximum = 100000, example = 100)]
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

impl Default for DumpConfig {
    fn default() -> Self {
        DumpConfig {
            target: 100,
            first_dealer: 0,
            seed_reveal: SeedReveal::default(),
            scores_only: false,
        }
    }
}

/// One action of Dump.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = DumpAction)]
// Each variant's `title` names it in the spec, hence in generated clients (`DumpPlay`, ...):
// stable names whatever the variants' order; tests/openapi.rs checks every variant has one.
pub enum Action {
    /// Table action that starts a deal. In service dealing the service shuffles and deals.
    #[schema(title = "DumpDeal")]
    Deal {},
    /// A seat plays a card to the trick.
    #[schema(title = "DumpPlay")]
    Play {
        /// The card, rank then suit (`10` accepted for `T`).
        #[schema(value_type = String, pattern = "^(10|[2-9TJQKAtjqka])[SHDCshdc♠♥♦♣]\u{FE0F}?$", example = "QS")]
        card: Card,
    },
    /// Table dealing only: a whole deal's result without play-by-play, card points per side
    /// (seats 0+2, seats 1+3; with 2 players, per seat). Must sum to 160.
    #[schema(title = "DumpTally")]
    Tally {
        /// Card points captured by side 0 and side 1.
        #[schema(schema_with = points_schema)]
        points: [u32; 2],
    },
}

/// `tally.points`: two counts of card points, 0 to 160 each (a deal has 160).
fn points_schema() -> utoipa::openapi::schema::Array {
    use super::spec_shapes::{array, int};
    array(
        int(0, 160),
        Some(2),
        false,
        "Card points captured by side 0 and side 1.",
        json!([95, 65]),
    )
}

/// Why Dump refused an action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DumpError {
    /// A player count the game cannot seat, at creation (the count asked for).
    #[error("Dump is played by 2 or 4 players (4 as partnerships), not {0}")]
    PlayerCount(usize),
    /// A `target` option outside 1 to 100000, at creation (the target given).
    #[error("target must be from 1 to 100000, not {0}")]
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
    /// A play by a seat whose turn it is not (or by no such seat).
    #[error("it is seat {expected_1}'s turn to play, not seat {got_1}'s", expected_1 = expected + 1, got_1 = got + 1)]
    NotYourTurn {
        /// The seat to play.
        expected: usize,
        /// The seat that played.
        got: usize,
    },
    /// A play of a card the Dump deck does not have (the card).
    #[error("{0} is not in the Dump deck (the 4s, 5s and 6s are removed)")]
    NoSuchCard(Card),
    /// A play of a card already played in this deal (the card).
    #[error("{0} has already been played in this deal")]
    CardAlreadyPlayed(Card),
    /// Service dealing: a play of a card the seat was not dealt (or has played).
    #[error("seat {seat_1} does not hold {card}", seat_1 = seat + 1)]
    CardNotInHand {
        /// The seat that played.
        seat: usize,
        /// The card played.
        card: Card,
    },
    /// Service dealing: a seat holding the led suit played another suit.
    #[error("seat {seat_1} holds {led_name} and must follow suit ({led} was led)", seat_1 = seat + 1)]
    MustFollowSuit {
        /// The seat that played.
        seat: usize,
        /// The card played.
        card: Card,
        /// The suit led to the trick.
        led: Suit,
        /// The led suit's name, for the message.
        led_name: &'static str,
    },
    /// A tally in service dealing, where every card is played.
    #[error("tally is for table dealing only; with service dealing every card is played")]
    TallyNeedsTableDealing,
    /// A tally after cards of the deal in progress have been played.
    #[error("a tally records a whole deal: it cannot follow cards already played in this deal")]
    TallyMidDeal,
    /// A tally whose two sides' points do not sum to 160 (their sum).
    #[error("a tally's points must sum to 160 (the deck's card points), not {0}")]
    TallySum(u64),
    /// A service deal without the service's shuffle seed.
    #[error("a service deal needs the service's shuffle seed")]
    SeedMissing,
    /// A seed sent with a deal in table dealing.
    #[error("in table dealing the cards are dealt at the table; no seed is taken")]
    SeedNotTaken,
}

impl RuleError for DumpError {
    /// Service dealing: the hand decides whether the seat holds the card and whether it could
    /// follow suit; neither is told to anyone but the seat.
    fn hidden(&self) -> bool {
        matches!(
            self,
            DumpError::CardNotInHand { .. } | DumpError::MustFollowSuit { .. }
        )
    }

    fn code(&self) -> &'static str {
        use DumpError::*;
        match self {
            PlayerCount(_) => "bad_player_count",
            BadTarget(_) | BadDealer { .. } => "invalid_config",
            MatchFinished => super::MATCH_FINISHED,
            DealExpected => "deal_expected",
            DealInProgress => "deal_in_progress",
            TableActionOnly(_) => "table_action_only",
            SeatActionOnly => "seat_action_only",
            NotYourTurn { .. } => "not_your_turn",
            NoSuchCard(_) => "no_such_card",
            CardAlreadyPlayed(_) => "card_already_played",
            CardNotInHand { .. } => "card_not_in_hand",
            MustFollowSuit { .. } => "must_follow_suit",
            TallyNeedsTableDealing => "tally_not_allowed",
            TallyMidDeal => "tally_mid_deal",
            TallySum(_) => "tally_sum",
            SeedMissing => "seed_missing",
            SeedNotTaken => "seed_not_taken",
        }
    }

    fn fields(&self) -> ProblemFields {
        use DumpError::*;
        match *self {
            NotYourTurn { expected, got } => ProblemFields::turn(expected, got),
            NoSuchCard(c) | CardAlreadyPlayed(c) => ProblemFields::card(c),
            CardNotInHand { seat, card } => ProblemFields::seat(seat).with_card(card),
            MustFollowSuit {
                seat, card, led, ..
            } => ProblemFields::seat(seat).with_card(card).with_suit(led),
            TallySum(sum) => ProblemFields::compare(160, sum),
            _ => ProblemFields::none(),
        }
    }
}

pub use super::trick::Revoke;

/// A completed trick of Dump: its plays, winner and points.
pub type TrickRecord = super::trick::TrickRecord<TrickNote>;

/// What a completed trick records besides its plays and winner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct TrickNote {
    /// Card points in the trick.
    pub points: u32,
}

/// Where a Dump match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = DumpPhase)]
pub enum Phase {
    /// Between deals: the table deals next.
    AwaitingDeal,
    /// A deal is being played.
    Playing,
    /// The match is over.
    Finished,
}

/// A completed trick of Dump (`table.tricks`).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the spec's shape of a `TrickRecord<TrickNote>`
pub struct DumpTrick {
    /// The cards in the order played.
    plays: Vec<Play>,
    /// The seat that won it (and leads next).
    winner: usize,
    /// Card points in the trick.
    points: u32,
}

/// Dump's public state (`table` in the match view).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DumpTable {
    /// Between deals, playing, or over.
    pub phase: Phase,
    /// The total a side must reach to win.
    pub target: i64,
    /// Between deals: who deals next (null during a deal and once finished).
    #[schema(required = true)]
    pub next_dealer: Option<usize>,
    /// During a deal: who led the trick in progress. Absent between deals.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub leader: Option<usize>,
    /// During a deal: the seat to play. Absent between deals.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub to_play: Option<usize>,
    /// The trick in progress, its plays in order (empty between deals).
    pub trick: Vec<Play>,
    /// During a deal: the completed tricks of the deal. Absent between deals.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Vec<DumpTrick>, nullable = false)]
    pub tricks: Option<Vec<TrickRecord>>,
    /// During a deal: card points captured so far by side 0 and side 1. Absent between deals.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub captured: Option<[u32; 2]>,
    /// During a deal: how many cards each seat still holds. Absent between deals.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub cards_left: Option<Vec<usize>>,
    /// Revokes proven in the deal (table dealing; empty between deals).
    pub revokes: Vec<Revoke>,
    /// During a deal: the service deal's seed commitment (SHA-256 hex), null in table dealing.
    /// Absent between deals.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub commitment: Option<Option<String>>,
}

/// A Dump seat's private state (`you` in the match view).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DumpSeat {
    /// The seat.
    pub seat: usize,
    /// Service dealing, during a deal: the cards the seat holds. Null otherwise.
    #[schema(value_type = Option<Vec<String>>, required = true)]
    pub hand: Option<Vec<Card>>,
    /// The seat's side (seat mod 2).
    pub side: usize,
}

/// What a Dump action produced (`outcome` in the log).
#[derive(Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DumpOutcome {
    /// A deal started.
    #[schema(title = "DumpDealt")]
    Dealt {
        /// The round, from 1.
        round: u32,
        /// The dealer.
        dealer: usize,
        /// Who leads the first trick.
        leader: usize,
        /// Service dealing: SHA-256 (hex) of the shuffle seed; null in table dealing.
        #[schema(value_type = Option<String>, required = true)]
        commitment: Option<Commitment>,
    },
    /// A play broke the following rule, proven by this card (table dealing).
    #[schema(title = "DumpRevoke")]
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
    #[schema(title = "DumpTrickWon")]
    Trick {
        /// The trick number in the deal, from 1.
        number: usize,
        /// Who won it.
        winner: usize,
        /// Card points in it.
        points: u32,
    },
    /// A deal was scored.
    #[schema(title = "DumpDealScored")]
    DealScored {
        /// The round.
        round: u32,
        /// Card points captured by side 0 and side 1.
        captured: [u32; 2],
        /// Points scored by each side (the amount over 80).
        points: [i64; 2],
        /// Running totals.
        totals: [i64; 2],
    },
    /// The match is over.
    #[schema(title = "DumpMatchFinished")]
    MatchFinished {
        /// The winning sides (or seats).
        winners: Vec<usize>,
        /// The winner's total minus the runner-up's.
        #[schema(required = true)]
        margin: Option<i64>,
    },
}

/// The raw figures of a scored Dump deal (`detail` of a score sheet round).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DumpRoundDetail {
    /// Card points captured by side 0 and side 1.
    pub captured: [u32; 2],
    /// Whether the deal was recorded as a tally (no play-by-play).
    pub tallied: bool,
    /// How many revokes were proven in the deal.
    pub revokes: usize,
}

#[derive(Clone, Debug)]
struct DealState {
    /// The shared trick bookkeeping: turn, hands or cards seen, tricks, revokes.
    tp: TrickPlay<TrickNote>,
    captured: [u32; 2],
    commitment: Option<Commitment>,
}

#[derive(Clone, Debug)]
struct DealResult {
    captured: [u32; 2],
    points: [i64; 2],
    tallied: bool,
    revokes: usize,
}

/// The state of a Dump match.
#[derive(Clone, Debug)]
pub struct Dump {
    config: DumpConfig,
    players: usize,
    dealing: Dealing,
    round: u32,
    deal: Option<DealState>,
    results: Vec<DealResult>,
    totals: [i64; 2],
    finished: bool,
}

/// Card points: A = 1, 2 3 7 8 9 10 at face value, J Q K nothing.
pub fn card_points(c: Card) -> u32 {
    match c.rank() {
        14 => 1,
        r @ 2..=10 => r as u32,
        _ => 0,
    }
}

fn deck() -> CardSet {
    deck_without_ranks(&[4, 5, 6])
}

impl Dump {
    fn side(&self, seat: usize) -> usize {
        seat % 2
    }

    fn dealer_of(&self, round: u32) -> usize {
        super::dealer_of(self.config.first_dealer, round, self.players)
    }

    fn next_dealer(&self) -> usize {
        self.dealer_of(self.round + 1)
    }

    fn to_play(&self) -> Option<usize> {
        Some(self.deal.as_ref()?.tp.to_play())
    }

    /// The following rule: the led suit, if able (docs/rules.md#dump-play).
    fn duty(d: &DealState) -> Duties {
        d.tp.trick().lead().map_or_else(Duties::default, |c| {
            Duties::default().then(SuitSet::of(&[c.suit()]))
        })
    }

    /// Checks a play by `seat` without changing anything; returns whether it is a revoke.
    fn check_play(&self, seat: usize, card: Card) -> Result<Option<Revoke>, DumpError> {
        let d = self.deal.as_ref().ok_or(DumpError::DealExpected)?;
        Self::check_play_in(d, seat, card, &Self::duty(d))
    }

    /// The cards of `candidates` that [`Self::check_play`] accepts for `seat` (the following
    /// rule worked out once, not once a card).
    fn legal_cards(&self, d: &DealState, seat: usize) -> CardSet {
        // `check_play_in` is the shared check.
        d.tp.legal(seat, &Self::duty(d))
    }

    /// [`Self::check_play`] in the deal `d`, under the trick's `duty`.
    fn check_play_in(
        d: &DealState,
        seat: usize,
        card: Card,
        duty: &[SuitSet],
    ) -> Result<Option<Revoke>, DumpError> {
        d.tp.check(seat, card, duty).map_err(|e| match e {
            PlayError::NotYourTurn { expected, got } => DumpError::NotYourTurn { expected, got },
            PlayError::NoSuchCard(c) => DumpError::NoSuchCard(c),
            PlayError::CardAlreadyPlayed(c) => DumpError::CardAlreadyPlayed(c),
            PlayError::CardNotInHand { seat, card } => DumpError::CardNotInHand { seat, card },
            PlayError::MustFollow {
                seat,
                card,
                holding,
                ..
            } => DumpError::MustFollowSuit {
                seat,
                card,
                led: holding,
                led_name: holding.name(),
            },
        })
    }

    fn play(&mut self, seat: usize, card: Card) -> Result<Produced<DumpOutcome>, DumpError> {
        let revoke = self.check_play(seat, card)?;
        let mut out = Produced::new();
        let d = self.deal.as_mut().expect("checked");
        if let Some(r) = &revoke {
            out.push(DumpOutcome::Revoke {
                seat: r.seat,
                card: r.card,
                shown_out_in_trick: r.shown_out_in_trick,
            });
        }
        let duty = Self::duty(d);
        d.tp.record(seat, card, &duty, revoke);
        let trick_no = d.tp.trick_number();
        let led = d.tp.trick().lead().expect("just played").suit();
        let done = d.tp.complete(
            |c| (c.suit() == led).then_some(c.rank() as u32),
            |t, _| TrickNote {
                points: t.plays.iter().map(|p| card_points(p.card)).sum(),
            },
        );
        if let Some(t) = done {
            let (winner, points) = (t.winner, t.note.points);
            d.captured[winner % 2] += points;
            out.push(DumpOutcome::Trick {
                number: trick_no,
                winner,
                points,
            });
            if d.tp.played().len() == deck().len() {
                let captured = d.captured;
                let revokes = d.tp.revokes().len();
                out.extend(self.score_deal(captured, false, revokes));
            }
        }
        Ok(out)
    }

    fn score_deal(
        &mut self,
        captured: [u32; 2],
        tallied: bool,
        revokes: usize,
    ) -> Vec<DumpOutcome> {
        let mut points = [0i64; 2];
        for side in 0..2 {
            if captured[side] > 80 {
                points[side] = captured[side] as i64 - 80;
            }
        }
        self.totals[0] += points[0];
        self.totals[1] += points[1];
        self.results.push(DealResult {
            captured,
            points,
            tallied,
            revokes,
        });
        self.deal = None;
        let mut out = vec![DumpOutcome::DealScored {
            round: self.round,
            captured,
            points,
            totals: self.totals,
        }];
        if self.totals.iter().any(|&t| t >= self.config.target) {
            self.finished = true;
            let (winners, margin) = winners_and_margin(&self.totals);
            out.push(DumpOutcome::MatchFinished { winners, margin });
        }
        out
    }

    fn start_deal(&mut self, seed: Option<&Seed>) -> Result<Vec<DumpOutcome>, DumpError> {
        let round = self.round + 1;
        let dealer = self.dealer_of(round);
        let leader = (dealer + 1) % self.players;
        let hands = service_deal(
            self.dealing,
            seed,
            deck(),
            self.players,
            40 / self.players,
            dealer,
        )
        .map_err(|p| match p {
            SeedProblem::Missing => DumpError::SeedMissing,
            SeedProblem::NotTaken => DumpError::SeedNotTaken,
        })?
        .map(|(hands, _)| hands);
        let commitment = seed.map(Commitment::of);
        self.round = round;
        self.deal = Some(DealState {
            tp: TrickPlay::new(self.players, deck(), leader, hands),
            captured: [0, 0],
            commitment,
        });
        Ok(vec![DumpOutcome::Dealt {
            round,
            dealer,
            leader,
            commitment,
        }])
    }

    fn tally(&mut self, points: [u32; 2]) -> Result<Vec<DumpOutcome>, DumpError> {
        if self.dealing == Dealing::Service {
            return Err(DumpError::TallyNeedsTableDealing);
        }
        let Some(form) = self.points_form() else {
            return Err(DumpError::TallyMidDeal);
        };
        let sum = u64::from(points[0]) + u64::from(points[1]);
        // Each count is 0 or more (u32), so one past 160 makes the sum wrong too: told as the sum.
        tally::check(
            &form,
            &points.map(i64::from),
            |_| DumpError::TallySum(sum),
            |_, _| Ok(()),
        )?;
        if self.deal.is_none() {
            self.round += 1;
        }
        Ok(self.score_deal(points, true, 0))
    }
}

impl Dump {
    /// The `points` tally form (two counts of card points summing to the deck's 160) while the
    /// table may tally: table dealing, no card of the deal in progress played.
    fn points_form(&self) -> Option<TallyForm> {
        let fresh = self.deal.as_ref().is_none_or(|d| d.tp.played().is_empty());
        let unit = if self.players == 4 {
            TallyUnit::Side
        } else {
            TallyUnit::Seat
        };
        (self.dealing == Dealing::Table && fresh).then(|| TallyForm {
            sum: Some(i64::from(DEAL_POINTS)),
            ..TallyForm::points(unit, 2, 0, i64::from(DEAL_POINTS))
        })
    }
}

impl Game for Dump {
    const ID: &'static str = "dump";
    const TITLE: &'static str = "Dump";
    const MIN_PLAYERS: usize = 2;
    const MAX_PLAYERS: usize = 4;
    type Config = DumpConfig;
    type Action = Action;
    type Table = DumpTable;
    type Seat = DumpSeat;
    type Outcome = DumpOutcome;
    type RoundDetail = DumpRoundDetail;
    type Error = DumpError;

    const DUPLICATE: bool = true;

    /// docs/rules.md#dump-scoring: 160 card points a deal; the side with 81 or more scores the excess over
    /// 80, 80–80 scores nothing; first to `target` at the end of a deal wins.
    fn check_entered(e: &Entered<'_>) -> Result<(), EntryError> {
        for (k, d) in e.deals.iter().enumerate() {
            let scoring: Vec<i64> = d.iter().copied().filter(|&x| x != 0).collect();
            if scoring.len() > 1 || scoring.iter().any(|&x| !(1..=80).contains(&x)) {
                return Err(entered::impossible(format!(
                    "deal {}: {d:?}; in a Dump deal one side at most scores, 1 to 80 (what it took over 80 of 160)",
                    k + 1
                )));
            }
        }
        if e.totals.iter().any(|&t| t < 0) {
            return Err(entered::impossible("Dump totals are never negative"));
        }
        e.reached_last(e.int("target", 100), "side")
    }

    fn new(config: DumpConfig, players: usize, dealing: Dealing) -> Result<Dump, DumpError> {
        if players != 2 && players != 4 {
            return Err(DumpError::PlayerCount(players));
        }
        if !(1..=MAX_TARGET).contains(&config.target) {
            return Err(DumpError::BadTarget(config.target));
        }
        if config.first_dealer >= players {
            return Err(DumpError::BadDealer {
                max: players - 1,
                got: config.first_dealer,
            });
        }
        Ok(Dump {
            config,
            players,
            dealing,
            round: 0,
            deal: None,
            results: Vec::new(),
            totals: [0, 0],
            finished: false,
        })
    }

    fn config(&self) -> &DumpConfig {
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

    /// Lists `deal` and `play`. A `tally` is not listed: it records a result (161 possible
    /// splits) rather than a choice; `apply` accepts one whenever a deal could start or has been
    /// dealt without a card played (table dealing).
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
        matches!(action, Action::Deal {})
    }

    fn board(&self, deal: u32, seed: &Seed) -> Option<super::Board> {
        Some(super::Board::dealt(
            deck(),
            seed,
            self.players,
            40 / self.players,
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
    ) -> Result<Produced<DumpOutcome>, DumpError> {
        if self.finished {
            return Err(DumpError::MatchFinished);
        }
        match (action, actor) {
            (Action::Deal {}, Actor::Seat(_)) => Err(DumpError::TableActionOnly("deal")),
            (Action::Tally { .. }, Actor::Seat(_)) => Err(DumpError::TableActionOnly("tally")),
            (Action::Play { .. }, Actor::Table) => Err(DumpError::SeatActionOnly),
            (Action::Deal {}, Actor::Table) => {
                if self.deal.is_some() {
                    return Err(DumpError::DealInProgress);
                }
                produced(self.start_deal(seed))
            }
            (Action::Tally { points }, Actor::Table) => produced(self.tally(*points)),
            (Action::Play { card }, Actor::Seat(s)) => self.play(s, *card),
        }
    }

    fn table(&self) -> DumpTable {
        let phase = if self.finished {
            Phase::Finished
        } else if self.deal.is_some() {
            Phase::Playing
        } else {
            Phase::AwaitingDeal
        };
        let mut v = DumpTable {
            phase,
            target: self.config.target,
            next_dealer: (self.deal.is_none() && !self.finished).then(|| self.next_dealer()),
            leader: None,
            to_play: None,
            trick: vec![],
            tricks: None,
            captured: None,
            cards_left: None,
            revokes: vec![],
            commitment: None,
        };
        if let Some(d) = &self.deal {
            let per_hand = 40 / self.players;
            let cards_left: Vec<usize> = (0..self.players)
                .map(|s| per_hand - d.tp.tricks().len() - usize::from(d.tp.trick().has_played(s)))
                .collect();
            v.leader = Some(d.tp.leader());
            v.to_play = Some(d.tp.to_play());
            v.trick = d.tp.trick().plays.clone();
            v.tricks = Some(d.tp.tricks().to_vec());
            v.captured = Some(d.captured);
            v.cards_left = Some(cards_left);
            v.revokes = d.tp.revokes().to_vec();
            v.commitment = Some(d.commitment.map(|c| c.to_string()));
        }
        v
    }

    fn seat(&self, seat: usize) -> Option<DumpSeat> {
        let hand = self
            .deal
            .as_ref()
            .and_then(|d| d.tp.hand(seat))
            .map(|h| h.to_vec());
        Some(DumpSeat {
            seat,
            hand,
            side: self.side(seat),
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
                multiplier: 1,
                points: r.points.to_vec(),
                detail: to_json(&DumpRoundDetail {
                    captured: r.captured,
                    tallied: r.tallied,
                    revokes: r.revokes,
                }),
            })
            .collect();
        ScoreSheet::from_totals(
            self.players == 4,
            rounds,
            self.totals.to_vec(),
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
    use serde_json::Value;

    #[test]
    fn seat_view_of_a_seat_outside_the_match_has_no_hand() {
        let mut g = Dump::new(DumpConfig::default(), 2, Dealing::Service).unwrap();
        g.apply(Actor::Table, &Action::Deal {}, Some(&Seed([7; 32])))
            .unwrap();
        assert_eq!(g.seat_view(0)["hand"].as_array().map(Vec::len), Some(20));
        for seat in [2, 3, usize::MAX] {
            assert_eq!(g.seat_view(seat)["hand"], Value::Null);
        }
    }

    #[test]
    fn a_tally_sum_is_reported_without_overflow() {
        let mut g = Dump::new(DumpConfig::default(), 4, Dealing::Table).unwrap();
        let e = g
            .apply(
                Actor::Table,
                &Action::Tally {
                    points: [u32::MAX, 1],
                },
                None,
            )
            .unwrap_err();
        assert_eq!(e, DumpError::TallySum(4_294_967_296));
        assert!(e.to_string().contains("not 4294967296"), "{e}");
    }

    #[test]
    fn the_target_is_validated_against_the_schema_bounds() {
        for (target, ok) in [
            (0, false),
            (1, true),
            (MAX_TARGET, true),
            (MAX_TARGET + 1, false),
        ] {
            let config = DumpConfig {
                target,
                ..DumpConfig::default()
            };
            assert_eq!(Dump::new(config, 2, Dealing::Table).is_ok(), ok, "{target}");
        }
    }
}

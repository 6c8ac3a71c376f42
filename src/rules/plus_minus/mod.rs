//! P.M. — Plus and Minus (c. 1935): a race of four men from the stars to 25, driven by the sum of
//! the card you play and the card the previous player played.
//!
//! docs/rules.md#plus-minus: 2–8 players; a pack is 44 cards, 39 black PLUS and 5 red MINUS cards (the
//! default `deck`: PLUS 1–9 three times, PLUS 10–15 twice, MINUS 3 5 7 9 11); 5–8 players shuffle
//! two packs together. Eleven cards each, undealt cards stay hidden; the player left of the dealer
//! leads and must lead a PLUS card. Every card is added to the TOP card only (the previous player's
//! card, signed) and ONE man moves by the total. Men on 25 are home; a man driven past 25 busts back
//! to the stars; a man taken below 1 returns to the stars; no two men of a player share a number
//! below 25; any possible move must be made. The game ends at once when a player's fourth man
//! reaches 25, or when the last card has been played. 50 per man on 25, −20 per man on the stars,
//! the number for every other man; `rubber_games` (5) games make a rubber, highest total wins.
//!
//! Service dealing: the packs' cards in ascending order (MINUS 11 first, each value repeated as
//! often as the packs hold it) are shuffled with [`cards::shuffled`](super::cards::shuffled) and
//! dealt one at a time, eleven each, starting with the player left of the dealer; the rest stay
//! face down. Table dealing: the service knows only the packs' composition and refuses a card the
//! packs do not hold (a fourth PLUS 7 in one game of one pack).

mod actions;
mod board;

pub use actions::*;
pub use board::*;

use serde::Serialize;

use utoipa::ToSchema;

use super::entered::{self, Entered, EntryError};
use super::{
    cards::{shuffled, Commitment, Seed},
    produced,
    sheet::{winners_and_margin, RoundScore, ScoreSheet},
    tally::{self, TallyFault, TallyForm, TallyUnit},
    to_json, Actor, Dealing, Game, Produced, SeedReveal, ToAct,
};

/// How a game of the rubber ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    FourHome,
    LastCard,
    Tally,
}

impl Ending {
    fn word(self) -> &'static str {
        match self {
            Ending::FourHome => "four_home",
            Ending::LastCard => "last_card",
            Ending::Tally => "tally",
        }
    }
}

/// The last card laid down, for the view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = PlusMinusLastPlay)]
struct LastPlay {
    /// Who laid it.
    seat: usize,
    /// The card.
    #[schema(value_type = i32)]
    card: PmCard,
    /// The running total it made.
    total: i32,
    /// The position of the man moved; null when none moved.
    #[schema(required = true)]
    from: Option<u8>,
    /// Where the man landed; null when none moved.
    #[schema(required = true)]
    to: Option<u8>,
    /// What the move did.
    #[schema(value_type = PlusMinusResult)]
    result: &'static str,
}

/// What a move did to a man: `move` (to a number), `home` (25), `bust`, `stars`, or `none`
/// (no man could move by the total).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)] // the spec's words of `Landing::word` (and `none`)
pub enum PlusMinusResult {
    /// The man moved to a number.
    Move,
    /// The man reached home (25).
    Home,
    /// The man went bust.
    Bust,
    /// The man went back to the stars.
    Stars,
    /// No man could move by the total.
    None,
}

/// How a game of the rubber ended (`Ending::word`).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)] // the spec's words of `Ending::word`
pub enum PlusMinusEnding {
    /// A player moved his four men home.
    FourHome,
    /// The last player played his last card.
    LastCard,
    /// The game was recorded as a tally (table dealing).
    Tally,
}

/// Where a P.M. match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = PlusMinusPhase)]
pub enum Phase {
    /// Between games: the table deals next.
    AwaitingDeal,
    /// A game is being played.
    Playing,
    /// The rubber is over.
    Finished,
}

/// P.M.'s public state (`table` in the match view). The keys marked "during a game" are absent
/// between games.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlusMinusTable {
    /// Between games, playing, or over.
    phase: Phase,
    /// Games in the rubber.
    rubber_games: u32,
    /// Packs in play (1, or 2 from 5 players).
    packs: usize,
    /// Each seat's board: its four men's positions, ascending (the last game's once it is over).
    #[schema(value_type = Vec<Vec<u8>>)]
    boards: Vec<Board>,
    /// Between games: who deals next (null during a game and once finished).
    #[schema(required = true)]
    next_dealer: Option<usize>,
    /// During a game: its dealer.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    dealer: Option<usize>,
    /// During a game: who laid the first card.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    leader: Option<usize>,
    /// The seat to play; null between games.
    #[schema(required = true)]
    to_play: Option<usize>,
    /// The top card of the pile (only it is shown); null before the first card of a game.
    #[schema(value_type = Option<i32>, required = true)]
    top_card: Option<PmCard>,
    /// The last card laid and what it did; null before the first card of a game.
    #[schema(required = true)]
    last_play: Option<LastPlay>,
    /// During a game: cards laid so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    cards_played: Option<usize>,
    /// How many cards each seat still holds (zeros between games).
    cards_left: Vec<usize>,
    /// During a game: the service deal's seed commitment (SHA-256 hex), null in table dealing.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    commitment: Option<Option<String>>,
}

/// One way to move a man by a card's total (`moves[].options`).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlusMinusOption {
    /// The position of the man to move; null when no man can move.
    #[schema(required = true)]
    from: Option<u8>,
    /// Where it lands; null when no man can move.
    #[schema(required = true)]
    to: Option<u8>,
    /// What the move does.
    #[schema(value_type = PlusMinusResult)]
    result: &'static str,
}

/// A card the seat could lay now, its total and its moves (`you.moves`).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlusMinusMove {
    /// The card.
    #[schema(value_type = i32)]
    card: PmCard,
    /// The running total it would make.
    total: i32,
    /// Whether it may be laid.
    playable: bool,
    /// Why it may not (`minus_card_lead`: a minus card cannot open a game). Absent when
    /// playable.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    why: Option<&'static str>,
    /// Each legal move with it.
    options: Vec<PlusMinusOption>,
}

/// A P.M. seat's private state (`you` in the match view).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlusMinusSeat {
    /// The seat.
    seat: usize,
    /// Service dealing, during a game: the seat's cards, ascending. Null otherwise.
    #[schema(value_type = Option<Vec<i32>>, required = true)]
    hand: Option<Vec<PmCard>>,
    /// The seat's board; null for a seat outside the match.
    #[schema(value_type = Option<Vec<u8>>, required = true)]
    board: Option<Board>,
    /// Whether it is the seat's turn.
    your_turn: bool,
    /// While it is the seat's turn: each card it could lay (its hand, or in table dealing every
    /// card value the packs still hold) with its moves. Empty otherwise.
    moves: Vec<PlusMinusMove>,
}

/// What a P.M. action produced (`outcome` in the log).
#[derive(Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PlusMinusOutcome {
    /// A game started.
    #[schema(title = "PlusMinusDealt")]
    Dealt {
        /// The round (game), from 1.
        round: u32,
        /// The dealer.
        dealer: usize,
        /// Who lays the first card.
        leader: usize,
        /// Service dealing: SHA-256 (hex) of the shuffle seed; null in table dealing.
        #[schema(value_type = Option<String>, required = true)]
        commitment: Option<Commitment>,
    },
    /// A card was laid.
    #[schema(title = "PlusMinusPlayed")]
    Played {
        /// Who laid it.
        seat: usize,
        /// The card.
        #[schema(value_type = i32)]
        card: PmCard,
        /// The top card it was laid on; null for the first card.
        #[schema(value_type = Option<i32>, required = true)]
        top: Option<PmCard>,
        /// The running total it made.
        total: i32,
        /// The position of the man moved; null when none moved.
        #[schema(required = true)]
        from: Option<u8>,
        /// Where the man landed; null when none moved.
        #[schema(required = true)]
        to: Option<u8>,
        /// What the move did.
        #[schema(value_type = PlusMinusResult)]
        result: &'static str,
    },
    /// A game was scored.
    #[schema(title = "PlusMinusGameScored")]
    GameScored {
        /// The round (game).
        round: u32,
        /// How it ended.
        #[schema(value_type = PlusMinusEnding)]
        ended_by: &'static str,
        /// The seat that moved its four men home; null otherwise.
        #[schema(required = true)]
        home_seat: Option<usize>,
        /// Each seat's board at the end.
        #[schema(value_type = Vec<Vec<u8>>)]
        boards: Vec<Board>,
        /// Points per seat.
        points: Vec<i64>,
        /// Running totals.
        totals: Vec<i64>,
    },
    /// The match is over.
    #[schema(title = "PlusMinusMatchFinished")]
    MatchFinished {
        /// The winning seats.
        winners: Vec<usize>,
        /// The winner's total minus the runner-up's.
        #[schema(required = true)]
        margin: Option<i64>,
    },
}

/// The raw figures of a scored P.M. game (`detail` of a score sheet round).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlusMinusRoundDetail {
    /// Each seat's board at the end.
    #[schema(value_type = Vec<Vec<u8>>)]
    boards: Vec<Board>,
    /// How it ended.
    #[schema(value_type = PlusMinusEnding)]
    ended_by: &'static str,
    /// The seat that moved its four men home; null otherwise.
    #[schema(required = true)]
    home_seat: Option<usize>,
    /// Whether the game was recorded as a tally.
    tallied: bool,
}

/// Card values `-MAX_CARD..=MAX_CARD` as indices `0..SPAN` (index 0 is MINUS 25).
const SPAN: usize = 2 * MAX_CARD as usize + 1;

/// How many cards of each value (indexed by [`slot`]): the packs' stock, the cards played (at
/// most two packs of `MAX_PACK` cards: a u16 holds any count, and keeps the match small).
type ValueCounts = [u16; SPAN];

/// The index of `card`'s value in a [`ValueCounts`]; None for a value no pack can hold.
#[inline]
fn slot(card: PmCard) -> Option<usize> {
    let i = card.0.checked_add(MAX_CARD)?;
    usize::try_from(i).ok().filter(|&i| i < SPAN)
}

/// How many of `card` `counts` holds (0 for a value no pack can hold).
fn count_of(counts: &ValueCounts, card: PmCard) -> u32 {
    slot(card).map_or(0, |i| u32::from(counts[i]))
}

/// The card of index `i` of a [`ValueCounts`].
#[inline]
fn card_at(i: usize) -> PmCard {
    PmCard(i as i32 - MAX_CARD)
}

/// A seat's hand in service dealing: how many cards of each value it holds (by [`slot`]) and
/// the values it holds as bits (bit `slot(card)`). Its cards, ascending, are [`Hand::cards`].
#[derive(Clone, Debug, PartialEq, Eq)]
struct Hand {
    counts: [u8; SPAN],
    held: u64,
}

impl Hand {
    const EMPTY: Hand = Hand {
        counts: [0; SPAN],
        held: 0,
    };

    /// Adds one card (a value some pack holds).
    #[inline]
    fn add(&mut self, card: PmCard) {
        if let Some(i) = slot(card) {
            self.counts[i] = self.counts[i].saturating_add(1);
            self.held |= 1u64 << i;
        }
    }

    /// Whether the hand holds `card`.
    #[inline]
    fn contains(&self, card: PmCard) -> bool {
        slot(card).is_some_and(|i| self.held & (1u64 << i) != 0)
    }

    /// Removes one copy of `card` (none when the hand holds none).
    #[inline]
    fn remove(&mut self, card: PmCard) {
        if let Some(i) = slot(card) {
            if self.counts[i] > 0 {
                self.counts[i] -= 1;
                if self.counts[i] == 0 {
                    self.held &= !(1u64 << i);
                }
            }
        }
    }

    /// The cards, ascending (each value as often as held).
    fn cards(&self) -> Vec<PmCard> {
        let mut out = Vec::with_capacity(HAND_SIZE);
        for (i, &n) in self.counts.iter().enumerate() {
            out.extend(std::iter::repeat_n(card_at(i), usize::from(n)));
        }
        out
    }
}

/// `KTH_BIT[bits][k]`: the index of the `k`-th set bit (from 0, lowest first) of the four bits
/// `bits`; 0 where `bits` has no such bit.
const KTH_BIT: [[u8; MEN]; 1 << MEN] = {
    let mut t = [[0u8; MEN]; 1 << MEN];
    let mut bits = 0;
    while bits < 1 << MEN {
        let (mut i, mut k) = (0, 0);
        while i < MEN {
            if bits & (1 << i) != 0 {
                t[bits][k] = i as u8;
                k += 1;
            }
            i += 1;
        }
        bits += 1;
    }
    t
};

/// One game of the rubber in progress.
#[derive(Clone, Debug, PartialEq, Eq)]
struct GameState {
    dealer: usize,
    leader: usize,
    to_play: usize,
    boards: Vec<Board>,
    top: Option<PmCard>,
    plays: usize,
    played_by: Vec<usize>,
    /// Service dealing: each seat's remaining cards.
    hands: Option<Vec<Hand>>,
    /// Cards played this game, by value (table dealing checks them against the packs).
    played: ValueCounts,
    last: Option<LastPlay>,
    commitment: Option<Commitment>,
}

/// One finished (or tallied) game.
#[derive(Clone, Debug, PartialEq, Eq)]
struct GameResult {
    boards: Vec<Board>,
    points: Vec<i64>,
    ending: Ending,
    home_seat: Option<usize>,
}

/// A checked play, ready to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CheckedPlay {
    total: i32,
    moved: Option<(u8, Landing)>,
}

/// The state of a P.M. match (a rubber).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlusMinus {
    config: PlusMinusConfig,
    players: usize,
    dealing: Dealing,
    packs: usize,
    /// How many of each card the packs in use hold, by value.
    stock: ValueCounts,
    round: u32,
    game: Option<GameState>,
    /// The boards shown between games: the last game's final positions.
    last_boards: Vec<Board>,
    results: Vec<GameResult>,
    totals: Vec<i64>,
    finished: bool,
}

fn sorted(mut b: Board) -> Board {
    b.sort_unstable();
    b
}

impl PlusMinus {
    /// Packs in use for `players` players: one for 2–4, two for 5–8.
    pub fn packs_for(players: usize) -> usize {
        if players >= 5 {
            2
        } else {
            1
        }
    }

    fn dealer_of(&self, round: u32) -> usize {
        super::dealer_of(self.config.first_dealer, round, self.players)
    }

    fn next_dealer(&self) -> usize {
        self.dealer_of(self.round + 1)
    }

    fn to_play(&self) -> Option<usize> {
        self.game.as_ref().map(|g| g.to_play)
    }

    /// The seat currently to play, if a game is in progress.
    pub fn seat_to_play(&self) -> Option<usize> {
        self.to_play()
    }

    /// Every seat's board (the running game's, or the last game's final positions between games).
    pub fn boards(&self) -> &[Board] {
        self.game
            .as_ref()
            .map_or(&self.last_boards[..], |g| &g.boards[..])
    }

    fn packs_word(&self) -> &'static str {
        if self.packs > 1 {
            "two packs"
        } else {
            "one pack"
        }
    }

    /// The total `card` would make on the current top card.
    #[inline]
    fn total_with(g: &GameState, card: PmCard) -> i32 {
        g.top.map_or(0, |t| t.0).saturating_add(card.0)
    }

    /// What anyone at the table can check about the card: the packs hold it, (table dealing)
    /// not every copy has been played, and the leader does not lead a MINUS card.
    fn check_card(&self, g: &GameState, seat: usize, card: PmCard) -> Result<(), PlusMinusError> {
        let held = count_of(&self.stock, card);
        if held == 0 {
            let values: Vec<String> = (0..SPAN)
                .filter(|&i| self.stock[i] > 0)
                .map(|i| card_at(i).0.to_string())
                .collect();
            return Err(PlusMinusError::NoSuchCard {
                card,
                packs: self.packs,
                detail: format!("{} holds {}", self.packs_word(), values.join(" ")),
            });
        }
        if g.hands.is_none() && count_of(&g.played, card) >= held {
            return Err(PlusMinusError::CardAlreadyPlayed {
                card,
                count: held,
                packs: self.packs,
            });
        }
        if g.plays == 0 && card.is_minus() {
            return Err(PlusMinusError::MinusCardLead { seat, card });
        }
        Ok(())
    }

    /// Whether [`Self::check_card`] accepts `card` (without building its refusal).
    #[inline]
    fn card_ok(&self, g: &GameState, card: PmCard) -> bool {
        let held = count_of(&self.stock, card);
        held > 0
            && (g.hands.is_some() || count_of(&g.played, card) < held)
            && !(g.plays == 0 && card.is_minus())
    }

    /// Calls `f` with each `(card, from)` play `legal_actions` lists for `seat` (the seat to
    /// play in `g`), in its order: each candidate card `check_card` accepts, with each position
    /// (once) whose man can move by the total, or else `None` and, for a harmless bust from the
    /// stars, its `from: 0` alias.
    fn each_play(&self, g: &GameState, seat: usize, mut f: impl FnMut(PmCard, Option<i64>)) {
        let board = &g.boards[seat];
        self.each_candidate(g, seat, |card| {
            if !self.card_ok(g, card) {
                return;
            }
            let total = Self::total_with(g, card);
            // `legal_from` without its list: the board is sorted, so a position's repeats are
            // adjacent (and move alike).
            let men = movable(board, total);
            for (i, &p) in board.iter().enumerate() {
                if men & (1 << i) != 0 {
                    f(card, Some(p as i64));
                }
            }
            if men == 0 {
                f(card, None);
                if destination(board, total, STARS) == Err(MoveFault::StarsBustHarmless) {
                    f(card, Some(STARS as i64));
                }
            }
        });
    }

    /// Checks a play by `seat` without changing anything.
    fn check_play(
        &self,
        seat: usize,
        card: PmCard,
        from: Option<i64>,
    ) -> Result<CheckedPlay, PlusMinusError> {
        let g = self.game.as_ref().ok_or(PlusMinusError::DealExpected)?;
        if seat != g.to_play {
            return Err(PlusMinusError::NotYourTurn {
                expected: g.to_play,
                got: seat,
            });
        }
        self.check_card(g, seat, card)?;
        // The move is judged on the public board before the hand: a value the seat does not hold
        // is refused for its move exactly as one it holds would be (issue 20), and only a play
        // every public rule allows is then checked against the hand.
        let checked = self.check_move(g, seat, card, from)?;
        if let Some(hands) = &g.hands {
            if !hands[seat].contains(card) {
                return Err(PlusMinusError::CardNotInHand { seat, card });
            }
        }
        Ok(checked)
    }

    /// Checks the move a play of `card` by `seat` makes with the man on `from` (public facts
    /// only: the boards and the top card).
    fn check_move(
        &self,
        g: &GameState,
        seat: usize,
        card: PmCard,
        from: Option<i64>,
    ) -> Result<CheckedPlay, PlusMinusError> {
        let board = &g.boards[seat];
        let total = Self::total_with(g, card);
        // The list of legal positions is only built for a refusal.
        let facts = || MoveFacts {
            seat,
            card,
            total,
            legal: LegalFrom(legal_from(board, total)),
        };
        let Some(from) = from else {
            // "any possible move MUST be made even though it may 'bust' a man."
            return if !any_legal(board, total) {
                Ok(CheckedPlay { total, moved: None })
            } else {
                Err(PlusMinusError::MoveRequired(facts()))
            };
        };
        let p = match u8::try_from(from) {
            Ok(p) if holds(board, p) => p,
            _ => {
                return Err(PlusMinusError::NoManThere {
                    seat,
                    from,
                    board: board_text(board),
                    facts: facts(),
                })
            }
        };
        match destination(board, total, p) {
            Ok(l) => Ok(CheckedPlay {
                total,
                moved: Some((p, l)),
            }),
            // API.md: `from: 0` is accepted for a harmless bust from the stars (no move).
            Err(MoveFault::StarsBustHarmless) if !any_legal(board, total) => {
                Ok(CheckedPlay { total, moved: None })
            }
            Err(fault) => Err(match fault {
                MoveFault::ManHome => PlusMinusError::ManHome(facts()),
                MoveFault::ZeroTotal => PlusMinusError::ZeroTotal(facts()),
                MoveFault::StarsBackward => PlusMinusError::StarsBackward(facts()),
                MoveFault::Occupied(to) => PlusMinusError::NumberOccupied {
                    from: p,
                    to,
                    facts: facts(),
                },
                MoveFault::StarsBustForbidden | MoveFault::StarsBustHarmless => {
                    PlusMinusError::StarsBustForbidden(facts())
                }
                MoveFault::NoManThere => PlusMinusError::NoManThere {
                    seat,
                    from,
                    board: board_text(board),
                    facts: facts(),
                },
            }),
        }
    }

    fn play(
        &mut self,
        seat: usize,
        card: PmCard,
        from: Option<i64>,
    ) -> Result<Produced<PlusMinusOutcome>, PlusMinusError> {
        let checked = self.check_play(seat, card, from)?;
        let players = self.players;
        let g = self.game.as_mut().expect("checked");
        let top = g.top;
        if let Some(h) = g.hands.as_mut() {
            h[seat].remove(card);
        }
        if let Some(i) = slot(card) {
            g.played[i] = g.played[i].saturating_add(1);
        }
        g.top = Some(card);
        g.plays += 1;
        g.played_by[seat] += 1;
        let (from, to, result) = match checked.moved {
            Some((p, landing)) => {
                let board = &mut g.boards[seat];
                if let Some(i) = board.iter().position(|&x| x == p) {
                    board[i] = landing.position();
                    // Back in ascending order: only the moved man is out of place.
                    let mut i = i;
                    while i > 0 && board[i - 1] > board[i] {
                        board.swap(i - 1, i);
                        i -= 1;
                    }
                    while i + 1 < MEN && board[i] > board[i + 1] {
                        board.swap(i, i + 1);
                        i += 1;
                    }
                }
                (Some(p), Some(landing.position()), landing.word())
            }
            None => (None, None, "none"),
        };
        g.last = Some(LastPlay {
            seat,
            card,
            total: checked.total,
            from,
            to,
            result,
        });
        let mut out: Produced<_> = smallvec::smallvec![PlusMinusOutcome::Played {
            seat,
            card,
            top,
            total: checked.total,
            from,
            to,
            result,
        }];
        // "The FINISH of the Game is when one of the players has moved his FOUR men on to 25, or
        // ALTERNATIVELY when the last player has played his last card."
        let four_home = g.boards[seat].iter().all(|&p| p == HOME);
        if four_home {
            out.extend(self.end_game(Ending::FourHome, Some(seat)));
        } else if g.plays == HAND_SIZE * players {
            out.extend(self.end_game(Ending::LastCard, None));
        } else {
            // The next seat to the left (no division: a playout hot spot).
            g.to_play = if seat + 1 < players { seat + 1 } else { 0 };
        }
        Ok(out)
    }

    fn end_game(&mut self, ending: Ending, home_seat: Option<usize>) -> Vec<PlusMinusOutcome> {
        let boards = self
            .game
            .take()
            .map_or_else(|| self.last_boards.clone(), |g| g.boards);
        self.score_game(boards, ending, home_seat)
    }

    fn score_game(
        &mut self,
        boards: Vec<Board>,
        ending: Ending,
        home_seat: Option<usize>,
    ) -> Vec<PlusMinusOutcome> {
        let points: Vec<i64> = boards.iter().map(board_points).collect();
        self.record_game(boards, points, ending, home_seat)
    }

    /// Records a scored game: its boards (empty for a tally of points, when the last game's
    /// boards stay those shown between games) and points.
    fn record_game(
        &mut self,
        boards: Vec<Board>,
        points: Vec<i64>,
        ending: Ending,
        home_seat: Option<usize>,
    ) -> Vec<PlusMinusOutcome> {
        for (t, p) in self.totals.iter_mut().zip(&points) {
            *t += p;
        }
        self.results.push(GameResult {
            boards: boards.clone(),
            points: points.clone(),
            ending,
            home_seat,
        });
        if !boards.is_empty() {
            self.last_boards = boards.clone();
        }
        self.game = None;
        let mut out = vec![PlusMinusOutcome::GameScored {
            round: self.round,
            ended_by: ending.word(),
            home_seat,
            boards,
            points,
            totals: self.totals.clone(),
        }];
        if self.results.len() as u32 >= self.config.rubber_games {
            self.finished = true;
            let (winners, margin) = winners_and_margin(&self.totals);
            out.push(PlusMinusOutcome::MatchFinished { winners, margin });
        }
        out
    }

    /// The packs' cards in canonical (ascending) order, as service dealing shuffles them.
    pub fn canonical_cards(&self) -> Vec<PmCard> {
        let mut cards = Vec::with_capacity(self.stock.iter().map(|&n| usize::from(n)).sum());
        for (i, &n) in self.stock.iter().enumerate() {
            cards.extend(std::iter::repeat_n(card_at(i), n as usize));
        }
        cards
    }

    fn start_game(&mut self, seed: Option<&Seed>) -> Result<Vec<PlusMinusOutcome>, PlusMinusError> {
        let round = self.round + 1;
        let dealer = self.dealer_of(round);
        let leader = (dealer + 1) % self.players;
        let hands = match (self.dealing, seed) {
            (Dealing::Service, Some(seed)) => {
                let order = shuffled(self.canonical_cards(), seed);
                let mut hands = vec![Hand::EMPTY; self.players];
                // One card at a time from the leader on (the seat wraps without a division).
                let mut to = leader;
                for card in order.iter().take(HAND_SIZE * self.players) {
                    hands[to].add(*card);
                    to = if to + 1 < self.players { to + 1 } else { 0 };
                }
                Some(hands)
            }
            (Dealing::Service, None) => return Err(PlusMinusError::SeedMissing),
            (Dealing::Table, Some(_)) => return Err(PlusMinusError::SeedNotTaken),
            (Dealing::Table, None) => None,
        };
        let commitment = seed.map(Commitment::of);
        self.round = round;
        self.game = Some(GameState {
            dealer,
            leader,
            to_play: leader,
            boards: vec![[STARS; MEN]; self.players],
            top: None,
            plays: 0,
            played_by: vec![0; self.players],
            hands,
            played: [0; SPAN],
            last: None,
            commitment,
        });
        Ok(vec![PlusMinusOutcome::Dealt {
            round,
            dealer,
            leader,
            commitment,
        }])
    }

    fn check_tally(&self, men: &[Vec<i64>]) -> Result<Vec<Board>, PlusMinusError> {
        if self.dealing == Dealing::Service {
            return Err(PlusMinusError::TallyNeedsTableDealing);
        }
        if self.game.as_ref().is_some_and(|g| g.plays > 0) {
            return Err(PlusMinusError::TallyMidGame);
        }
        if men.len() != self.players {
            return Err(PlusMinusError::TallySeats {
                expected: self.players,
                got: men.len(),
            });
        }
        let mut boards = Vec::with_capacity(men.len());
        let mut finished_seat: Option<usize> = None;
        for (seat, b) in men.iter().enumerate() {
            if b.len() != MEN {
                return Err(PlusMinusError::TallyMen { seat, got: b.len() });
            }
            let mut board = [STARS; MEN];
            for (i, &p) in b.iter().enumerate() {
                if !(0..=HOME as i64).contains(&p) {
                    return Err(PlusMinusError::TallyPosition { seat, position: p });
                }
                board[i] = p as u8;
            }
            let board = sorted(board);
            for w in board.windows(2) {
                if w[0] == w[1] && w[0] != STARS && w[0] != HOME {
                    return Err(PlusMinusError::TallyOccupied {
                        seat,
                        position: w[0] as i64,
                    });
                }
            }
            if board.iter().all(|&p| p == HOME) {
                if let Some(first) = finished_seat {
                    return Err(PlusMinusError::TallyTwoFinished {
                        first,
                        second: seat,
                    });
                }
                finished_seat = Some(seat);
            }
            boards.push(board);
        }
        Ok(boards)
    }

    fn tally(&mut self, men: &[Vec<i64>]) -> Result<Vec<PlusMinusOutcome>, PlusMinusError> {
        let boards = self.check_tally(men)?;
        if self.game.is_none() {
            self.round += 1;
        }
        let home_seat = boards.iter().position(|b| b.iter().all(|&p| p == HOME));
        self.game = None;
        Ok(self.score_game(boards, Ending::Tally, home_seat))
    }

    /// The `points` tally form (score-only contract) while the table may tally: table dealing,
    /// no card of the game in progress played. RULES.md "P.M.": four men score −80 (all four on
    /// the stars, −20 each) to 200 (all home, 50 each); the seats' points are free of any sum.
    fn points_form(&self) -> Option<TallyForm> {
        let fresh = self.game.as_ref().is_none_or(|g| g.plays == 0);
        (self.dealing == Dealing::Table && fresh)
            .then(|| TallyForm::points(TallyUnit::Seat, self.players, -80, 200))
    }

    /// A tally of each seat's score (the score-only contract; RULES.md "P.M.": 50 a man home,
    /// −20 a man on the stars, the number of a man on 1 to 24, two men never on one number
    /// below 25; the game ends at once when a fourth man reaches 25, so one seat at most has
    /// 200). The round detail's `boards` is empty: the positions are not known.
    fn tally_points(&mut self, points: &[i64]) -> Result<Vec<PlusMinusOutcome>, PlusMinusError> {
        if self.dealing == Dealing::Service {
            return Err(PlusMinusError::TallyNeedsTableDealing);
        }
        let Some(form) = self.points_form() else {
            return Err(PlusMinusError::TallyMidGame);
        };
        tally::check(
            &form,
            points,
            |f| match f {
                TallyFault::Entries { expected, got } => PlusMinusError::TallyShape(format!(
                    "one entry per seat: {expected} expected, {got} given"
                )),
                // The form sets no step, sum or non-zero limit: only the range is generic.
                TallyFault::Range { entry, value } | TallyFault::Step { entry, value } => {
                    PlusMinusError::TallyRange { seat: entry, value }
                }
                TallyFault::Sum { .. } | TallyFault::Nonzero => {
                    PlusMinusError::TallyShape("a tally's points are free of any sum".into())
                }
            },
            |seat, value| match four_men_score(value) {
                true => Ok(()),
                false => Err(PlusMinusError::TallyUnachievable { seat, value }),
            },
        )?;
        let full: Vec<usize> = (0..points.len()).filter(|&s| points[s] == 200).collect();
        if let [first, second, ..] = full[..] {
            return Err(PlusMinusError::TallyTwoFinished { first, second });
        }
        if self.game.is_none() {
            self.round += 1;
        }
        self.game = None;
        let home_seat = full.first().copied();
        Ok(self.record_game(Vec::new(), points.to_vec(), Ending::Tally, home_seat))
    }

    /// The cards `seat` could lay now: its hand (service dealing) or every card the packs still
    /// hold (table dealing), each value once, ascending.
    fn candidate_cards(&self, g: &GameState, seat: usize) -> Vec<PmCard> {
        let mut cards = Vec::new();
        self.each_candidate(g, seat, |c| cards.push(c));
        cards
    }

    /// [`Self::candidate_cards`] one at a time, without a list.
    fn each_candidate(&self, g: &GameState, seat: usize, mut f: impl FnMut(PmCard)) {
        match &g.hands {
            Some(h) => {
                let mut held = h[seat].held;
                while held != 0 {
                    f(card_at(held.trailing_zeros() as usize));
                    held &= held - 1;
                }
            }
            None => {
                for (i, (&n, &played)) in self.stock.iter().zip(&g.played).enumerate() {
                    if played < n {
                        f(card_at(i));
                    }
                }
            }
        }
    }

    /// The cards [`Self::each_play`] tries for `seat` with [`Self::card_ok`] accepting them, as
    /// a bit set over the card values (bit `slot(card)`).
    #[inline]
    fn candidate_mask(&self, g: &GameState, seat: usize) -> u64 {
        let mut mask = match &g.hands {
            // Every card of a hand was dealt from the packs: the packs hold it.
            Some(h) => h[seat].held,
            None => (0..SPAN)
                .filter(|&i| g.played[i] < self.stock[i])
                .fold(0u64, |m, i| m | (1u64 << i)),
        };
        if g.plays == 0 {
            // No MINUS card leads: values -MAX_CARD..=-1 are slots 0..MAX_CARD.
            mask &= !((1u64 << MAX_CARD) - 1);
        }
        mask
    }

    /// The guide for a seat: for each card it could lay now, the total and every legal move.
    fn move_guide(&self, g: &GameState, seat: usize) -> Vec<PlusMinusMove> {
        let board = &g.boards[seat];
        self.candidate_cards(g, seat)
            .into_iter()
            .map(|card| {
                let total = Self::total_with(g, card);
                if g.plays == 0 && card.is_minus() {
                    return PlusMinusMove {
                        card,
                        total,
                        playable: false,
                        why: Some("minus_card_lead"),
                        options: vec![],
                    };
                }
                let legal = legal_from(board, total);
                let options: Vec<PlusMinusOption> = if legal.is_empty() {
                    vec![PlusMinusOption {
                        from: None,
                        to: None,
                        result: "none",
                    }]
                } else {
                    legal
                        .iter()
                        .filter_map(|&p| {
                            destination(board, total, p).ok().map(|l| PlusMinusOption {
                                from: Some(p),
                                to: Some(l.position()),
                                result: l.word(),
                            })
                        })
                        .collect()
                };
                PlusMinusMove {
                    card,
                    total,
                    playable: true,
                    why: None,
                    options,
                }
            })
            .collect()
    }
}

impl Game for PlusMinus {
    const ID: &'static str = "plus-minus";
    const TITLE: &'static str = "P.M. — Plus and Minus";
    const MIN_PLAYERS: usize = 2;
    const MAX_PLAYERS: usize = 8;
    type Config = PlusMinusConfig;
    type Action = Action;
    type Table = PlusMinusTable;
    type Seat = PlusMinusSeat;
    type Outcome = PlusMinusOutcome;
    type RoundDetail = PlusMinusRoundDetail;
    type Error = PlusMinusError;

    const DUPLICATE: bool = true;

    /// docs/rules.md#plus-minus-game-end: 50 for each man home, −20 for each on the stars, the number (1..24) for
    /// the others: a game scores −80 to 200 a seat; `rubber_games` games make the match.
    fn check_entered(e: &Entered<'_>) -> Result<(), EntryError> {
        let games = e.int("rubber_games", 5);
        for (k, d) in e.deals.iter().enumerate() {
            if d.iter().any(|&x| !(-80..=200).contains(&x)) {
                return Err(entered::impossible(format!(
                    "game {}: {d:?}; a P.M. game scores −80 to 200 a seat (four men)",
                    k + 1
                )));
            }
        }
        if !e.deals.is_empty() && e.deals.len() as i64 != games {
            return Err(entered::impossible(format!(
                "{} games entered; the rubber is {games} games",
                e.deals.len()
            )));
        }
        // `rubber_games` is the match's option (1 to 100 once the game has checked it);
        // this check takes any config, so its bounds are checked products.
        let (least, most) = (entered::mul(-80, games)?, entered::mul(200, games)?);
        if e.totals.iter().any(|&t| t < least || t > most) {
            return Err(entered::impossible(format!(
                "a P.M. rubber of {games} games totals {least} to {most} a seat"
            )));
        }
        Ok(())
    }

    fn new(
        config: PlusMinusConfig,
        players: usize,
        dealing: Dealing,
    ) -> Result<PlusMinus, PlusMinusError> {
        if !(Self::MIN_PLAYERS..=Self::MAX_PLAYERS).contains(&players) {
            return Err(PlusMinusError::PlayerCount(players));
        }
        if config.deck.len() > MAX_PACK {
            return Err(PlusMinusError::BadDeck(format!(
                "a pack may hold at most {MAX_PACK} cards, not {}",
                config.deck.len()
            )));
        }
        if let Some(c) = config
            .deck
            .iter()
            .find(|c| c.0 == 0 || c.0.abs() > MAX_CARD)
        {
            return Err(PlusMinusError::BadDeck(format!(
                "cards are PLUS 1..{MAX_CARD} (positive) or MINUS 1..{MAX_CARD} (negative), not {}",
                c.0
            )));
        }
        let packs = Self::packs_for(players);
        let needed = HAND_SIZE * players;
        if config.deck.len() * packs < needed {
            return Err(PlusMinusError::BadDeck(format!(
                "{players} players need {needed} cards ({HAND_SIZE} each) but {} pack{} of {} hold{} only {}",
                packs,
                if packs > 1 { "s" } else { "" },
                config.deck.len(),
                if packs > 1 { "" } else { "s" },
                config.deck.len() * packs
            )));
        }
        let minus = config.deck.iter().filter(|c| c.is_minus()).count() * packs;
        if minus >= HAND_SIZE {
            return Err(PlusMinusError::BadDeck(format!(
                "{minus} MINUS cards in play could fill a hand of {HAND_SIZE}, leaving the leader no PLUS card to lead; at most {} allowed",
                HAND_SIZE - 1
            )));
        }
        if !(1..=100).contains(&config.rubber_games) {
            return Err(PlusMinusError::BadRubber(config.rubber_games));
        }
        if config.first_dealer >= players {
            return Err(PlusMinusError::BadDealer {
                max: players - 1,
                got: config.first_dealer,
            });
        }
        let mut stock = [0; SPAN];
        for c in &config.deck {
            // Every value was checked to be 1..=MAX_CARD in size above.
            if let Some(i) = slot(*c) {
                stock[i] += packs as u16;
            }
        }
        Ok(PlusMinus {
            config,
            players,
            dealing,
            packs,
            stock,
            round: 0,
            game: None,
            last_boards: vec![[STARS; MEN]; players],
            results: Vec::new(),
            totals: vec![0; players],
            finished: false,
        })
    }

    fn config(&self) -> &PlusMinusConfig {
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

    /// A seat to play: every card it could lay (its hand, or in table dealing every card value
    /// the packs still hold) with every accepted `from`, including the `from: 0` alias of a
    /// harmless bust from the stars. The table: `deal` between games (a `tally` is not listed:
    /// its boards cannot be enumerated).
    /// The `points` tally while the table may send one (see `points_form`).
    fn tally_form(&self) -> Option<TallyForm> {
        self.points_form()
    }

    fn legal_actions(&self, actor: Actor) -> Vec<Action> {
        if self.finished {
            return vec![];
        }
        match (actor, &self.game) {
            (Actor::Table, None) => vec![Action::Deal {}],
            (Actor::Seat(s), Some(g)) if s == g.to_play => {
                let mut out = vec![];
                self.each_play(g, s, |card, from| out.push(Action::Play { card, from }));
                out
            }
            _ => vec![],
        }
    }

    /// A seat's play is picked by counting the listed plays, then walking to the chosen one:
    /// no list is built. The candidate cards are a bit set over the card values (bit
    /// `slot(card)`), and so is, per man, the set of cards whose total it can move by
    /// ([`Movers::by_card`]): the plays are counted with a few population counts.
    fn legal_pick(&self, actor: Actor, pick: impl FnOnce(usize) -> usize) -> Option<Action> {
        match (actor, &self.game) {
            (Actor::Seat(s), Some(g)) if !self.finished && s == g.to_play => {
                let board = &g.boards[s];
                let Some(masks) = card_masks(board, g.top.map_or(0, |t| t.0)) else {
                    return crate::rules::pick_listed(self, actor, pick);
                };
                // `each_play`'s plays, card by card, ascending: each movable man (board
                // order); else `None` and, for a harmless bust from the stars, the `0` alias.
                let hand = self.candidate_mask(g, s);
                let [m0, m1, m2, m3, harmless] = masks;
                let none = hand & !(m0 | m1 | m2 | m3);
                let alias = none & harmless;
                let count = [hand & m0, hand & m1, hand & m2, hand & m3, none, alias]
                    .iter()
                    .map(|m| m.count_ones() as usize)
                    .sum::<usize>();
                if count == 0 {
                    return None;
                }
                let mut k = pick(count);
                let mut rest = hand;
                while rest != 0 {
                    let b = rest.trailing_zeros();
                    rest &= rest - 1;
                    let men = ((m0 >> b) & 1)
                        | ((m1 >> b) & 1) << 1
                        | ((m2 >> b) & 1) << 2
                        | ((m3 >> b) & 1) << 3;
                    let listed = if men != 0 {
                        men.count_ones() as usize
                    } else {
                        1 + ((alias >> b) & 1) as usize
                    };
                    if k >= listed {
                        k -= listed;
                        continue;
                    }
                    let card = card_at(b as usize);
                    if men == 0 {
                        let from = (k == 1).then_some(STARS as i64);
                        return Some(Action::Play { card, from });
                    }
                    // The k-th movable man, in board order (a table: no loop to mispredict).
                    let man = KTH_BIT[men as usize][k.min(MEN - 1)];
                    let from = board[usize::from(man)];
                    return Some(Action::Play {
                        card,
                        from: Some(from as i64),
                    });
                }
                None
            }
            _ => crate::rules::pick_listed(self, actor, pick),
        }
    }

    fn dealing(&self) -> Dealing {
        self.dealing
    }

    fn is_deal(action: &Action) -> bool {
        matches!(action, Action::Deal {})
    }

    /// Duplicate with real cards: the packs shuffled and dealt as service dealing deals game
    /// `deal` (eleven each from the leader on), each hand by value, lowest first; the rest of
    /// the packs stays out of play unseen (docs/rules.md#plus-minus: "undealt cards stay
    /// hidden"). Cards are written as a play writes them: `11`, `-7` (MINUS 7).
    fn board(&self, deal: u32, seed: &Seed) -> Option<super::Board> {
        let dealer = self.dealer_of(deal);
        let leader = (dealer + 1) % self.players;
        let order = shuffled(self.canonical_cards(), seed);
        let dealt = HAND_SIZE * self.players;
        let mut hands = vec![Vec::with_capacity(HAND_SIZE); self.players];
        for (k, card) in order.iter().take(dealt).enumerate() {
            hands[(leader + k) % self.players].push(*card);
        }
        let mut undealt = order[dealt.min(order.len())..].to_vec();
        undealt.sort_unstable();
        let written = |mut cards: Vec<PmCard>| -> Vec<String> {
            cards.sort_unstable();
            cards.iter().map(|c| c.0.to_string()).collect()
        };
        Some(super::Board {
            dealer,
            hands: hands.into_iter().map(written).collect(),
            undealt: written(undealt),
            layout: vec![],
            stock: vec![],
        })
    }

    fn cards_shown(action: &Action) -> Vec<String> {
        match action {
            Action::Play { card, .. } => vec![card.0.to_string()],
            _ => vec![],
        }
    }

    fn apply(
        &mut self,
        actor: Actor,
        action: &Action,
        seed: Option<&Seed>,
    ) -> Result<Produced<PlusMinusOutcome>, PlusMinusError> {
        if self.finished {
            return Err(PlusMinusError::MatchFinished);
        }
        match (action, actor) {
            (Action::Deal {}, Actor::Seat(_)) => Err(PlusMinusError::TableActionOnly("deal")),
            (Action::Tally { .. }, Actor::Seat(_)) => Err(PlusMinusError::TableActionOnly("tally")),
            (Action::Play { .. }, Actor::Table) => Err(PlusMinusError::SeatActionOnly),
            (Action::Deal {}, Actor::Table) => {
                if self.game.is_some() {
                    return Err(PlusMinusError::DealInProgress);
                }
                produced(self.start_game(seed))
            }
            (Action::Tally { men, points }, Actor::Table) => match (men, points) {
                (Some(men), None) => produced(self.tally(men)),
                (None, Some(points)) => produced(self.tally_points(points)),
                _ => Err(PlusMinusError::TallyShape(
                    "give either `men` or `points`, not both nor neither".into(),
                )),
            },
            (Action::Play { card, from }, Actor::Seat(s)) => self.play(s, *card, *from),
        }
    }

    fn table(&self) -> PlusMinusTable {
        let phase = if self.finished {
            Phase::Finished
        } else if self.game.is_some() {
            Phase::Playing
        } else {
            Phase::AwaitingDeal
        };
        let mut v = PlusMinusTable {
            phase,
            rubber_games: self.config.rubber_games,
            packs: self.packs,
            boards: self.boards().to_vec(),
            next_dealer: (self.game.is_none() && !self.finished).then(|| self.next_dealer()),
            dealer: None,
            leader: None,
            to_play: None,
            top_card: None,
            last_play: None,
            cards_played: None,
            cards_left: vec![0; self.players],
            commitment: None,
        };
        // Only the top card is shown: "Reference MUST NOT be made to cards that are covered."
        if let Some(g) = &self.game {
            v.dealer = Some(g.dealer);
            v.leader = Some(g.leader);
            v.to_play = Some(g.to_play);
            v.top_card = g.top;
            v.last_play = g.last.clone();
            v.cards_played = Some(g.plays);
            v.cards_left = g.played_by.iter().map(|n| HAND_SIZE - n).collect();
            v.commitment = Some(g.commitment.map(|c| c.to_string()));
        }
        v
    }

    /// `hand` (service dealing; `null` in table dealing), `board`, `your_turn`, and while it is
    /// the seat's turn `moves`: for each card it could lay (its hand, or in table dealing every
    /// card value the packs still hold) the total, whether it may be played, and every legal
    /// `{from, to, result}` (`result`: move, home, bust, stars, or none when no man can move).
    fn seat(&self, seat: usize) -> Option<PlusMinusSeat> {
        if seat >= self.players {
            return Some(PlusMinusSeat {
                seat,
                hand: None,
                board: None,
                your_turn: false,
                moves: vec![],
            });
        }
        let hand = self
            .game
            .as_ref()
            .and_then(|g| g.hands.as_ref())
            .map(|h| h[seat].cards());
        let your_turn = !self.finished && self.to_play() == Some(seat);
        let moves = match &self.game {
            Some(g) if your_turn => self.move_guide(g, seat),
            _ => vec![],
        };
        Some(PlusMinusSeat {
            seat,
            hand,
            board: Some(self.boards()[seat]),
            your_turn,
            moves,
        })
    }

    fn score_sheet(&self) -> ScoreSheet {
        let rounds = self
            .results
            .iter()
            .enumerate()
            .map(|(i, r)| RoundScore {
                round: i as u32 + 1,
                label: format!("Game {}", i + 1),
                multiplier: 1,
                points: r.points.clone(),
                detail: to_json(&PlusMinusRoundDetail {
                    boards: r.boards.clone(),
                    ended_by: r.ending.word(),
                    home_seat: r.home_seat,
                    tallied: r.ending == Ending::Tally,
                }),
            })
            .collect();
        ScoreSheet::from_totals(false, rounds, self.totals.clone(), self.finished)
    }

    fn round(&self) -> u32 {
        self.round
    }

    fn dealer(&self) -> Option<usize> {
        if let Some(g) = &self.game {
            Some(g.dealer)
        } else if self.finished {
            None
        } else {
            Some(self.next_dealer())
        }
    }

    fn rounds_completed(&self) -> u32 {
        self.results.len() as u32
    }
}

/// Whether four men can score `value` (RULES.md "P.M."): `h` men home at 50, `s` on the stars at
/// −20, the rest on distinct numbers of 1 to 24, whose sums fill every integer between the
/// smallest and the largest.
fn four_men_score(value: i64) -> bool {
    (0..=4i64).any(|h| {
        (0..=4 - h).any(|s| {
            let m = 4 - h - s;
            let rest = value - 50 * h + 20 * s;
            let low = m * (m + 1) / 2;
            let high = m * 24 - m * (m - 1) / 2;
            (low..=high).contains(&rest)
        })
    })
}

#[cfg(test)]
mod tests {

    use serde_json::json;

    use super::super::RuleError;
    use super::*;

    #[test]
    fn kth_bit_is_the_kth_set_bit() {
        for (bits, row) in KTH_BIT.iter().enumerate() {
            let set: Vec<u8> = (0..MEN as u8).filter(|&i| bits & (1 << i) != 0).collect();
            for (k, &i) in set.iter().enumerate() {
                assert_eq!(row[k], i, "{bits:04b} {k}");
            }
        }
    }

    #[test]
    fn default_pack_is_44_cards_39_plus_5_minus() {
        let d = default_deck();
        assert_eq!(d.len(), 44);
        assert_eq!(d.iter().filter(|c| c.is_minus()).count(), 5);
        assert_eq!(d.iter().filter(|c| c.0 == 7).count(), 3);
        assert_eq!(d.iter().filter(|c| c.0 == 12).count(), 2);
    }

    #[test]
    fn the_texts_worked_minus_examples() {
        // Top +5, played −7: back 2. Top +5, played −3: forward 2. Top −3, played +3: no move.
        // Top −3, played −9: back 12.
        let b = [0, 0, 14, 20];
        assert_eq!(destination(&b, 5 - 7, 14), Ok(Landing::Number(12)));
        assert_eq!(destination(&b, 5 - 3, 14), Ok(Landing::Number(16)));
        assert_eq!(destination(&b, -3 + 3, 14), Err(MoveFault::ZeroTotal));
        assert!(legal_from(&b, 0).is_empty());
        assert_eq!(destination(&b, -3 - 9, 20), Ok(Landing::Number(8)));
        assert_eq!(destination(&b, -3 - 9, 14), Ok(Landing::Number(2)));
        assert_eq!(destination(&b, -12, 0), Err(MoveFault::StarsBackward));
    }

    #[test]
    fn the_texts_bust_example() {
        let b = [0, 17, 25, 25];
        assert_eq!(legal_from(&b, 26), vec![17]);
        assert_eq!(destination(&b, 26, 0), Err(MoveFault::StarsBustForbidden));
        assert_eq!(destination(&b, 26, 17), Ok(Landing::Bust));
        assert_eq!(destination(&b, 26, 25), Err(MoveFault::ManHome));
        // With no man on 1..24 the bust from the stars is harmless: no move.
        assert_eq!(
            destination(&[0, 0, 25, 25], 26, 0),
            Err(MoveFault::StarsBustHarmless)
        );
        assert!(legal_from(&[0, 0, 25, 25], 26).is_empty());
    }

    #[test]
    fn the_texts_score_of_95() {
        assert_eq!(board_points(&[0, 15, 25, 25]), 95);
        assert_eq!(board_points(&[25; 4]), 200);
        assert_eq!(board_points(&[0; 4]), -80);
    }

    #[test]
    fn a_large_minus_returns_a_man_to_the_stars() {
        assert_eq!(destination(&[0, 0, 0, 7], -12, 7), Ok(Landing::Stars));
        assert_eq!(destination(&[0, 0, 0, 7], -7, 7), Ok(Landing::Stars));
    }

    #[test]
    fn occupied_numbers_are_never_legal_and_some_move_always_exists_with_a_man_in_play() {
        assert_eq!(
            destination(&[0, 0, 10, 14], 4, 10),
            Err(MoveFault::Occupied(14))
        );
        assert_eq!(legal_from(&[0, 0, 10, 14], 4), vec![0, 14]);
        for a in 1..=24u8 {
            for b in 0..=25u8 {
                for t in (-26..=40).filter(|&t| t != 0) {
                    let board = sorted([0, a, b, 25]);
                    if b != a || b == 0 || b == 25 {
                        assert!(!legal_from(&board, t).is_empty(), "{board:?} {t}");
                    }
                }
            }
        }
    }

    #[test]
    fn movable_agrees_with_destination_on_every_board() {
        for board in board::every_sorted_board() {
            for total in -30..=40 {
                let bits = movable(&board, total);
                let got: Vec<u8> = (0..MEN)
                    .filter(|&i| bits & (1 << i) != 0)
                    .map(|i| board[i])
                    .collect();
                assert_eq!(got, legal_from(&board, total), "{board:?} {total}");
            }
        }
    }

    fn play(
        g: &mut PlusMinus,
        seat: usize,
        card: i32,
        from: Option<i64>,
    ) -> Result<Vec<PlusMinusOutcome>, PlusMinusError> {
        g.apply(
            Actor::Seat(seat),
            &Action::Play {
                card: PmCard(card),
                from,
            },
            None,
        )
        .map(smallvec::SmallVec::into_vec)
    }

    #[test]
    fn a_refused_move_names_the_rule_and_lists_the_legal_from_values() {
        let mut g = PlusMinus::new(PlusMinusConfig::default(), 2, Dealing::Table).unwrap();
        g.apply(Actor::Table, &Action::Deal {}, None).unwrap();
        for (seat, card, from) in [(1, 10, 0), (0, 4, 0), (1, 10, 0), (0, 1, 0)] {
            play(&mut g, seat, card, Some(from)).unwrap();
        }
        // Seat 1: men on 10 and 14, top PLUS 1, plays PLUS 3: total 4.
        let e = play(&mut g, 1, 3, Some(10)).unwrap_err();
        assert_eq!(e.code(), "number_occupied");
        assert_eq!(
            e.to_string(),
            "no player can have two men on the same number (except 25): the man on 10 would land \
             on 14, where seat 2 already has a man; seat 2's PLUS 3 makes a total of 4; legal \
             `from`: 0, 14"
        );
        let e = play(&mut g, 1, 3, None).unwrap_err();
        assert!(e.to_string().ends_with("legal `from`: 0, 14"), "{e}");
        let e = play(&mut g, 1, -3, Some(0)).unwrap_err();
        assert_eq!(e.code(), "stars_backward");
        assert!(
            e.to_string()
                .contains("MINUS 3 makes a total of -2; legal `from`: 10, 14"),
            "{e}"
        );
        let e = play(&mut g, 1, 7, Some(3)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "seat 2 has no man on 3 (board [0, 0, 10, 14]); seat 2's PLUS 7 makes a total of 8; \
             legal `from`: 0, 10, 14"
        );
    }

    #[test]
    fn the_seat_view_guides_each_card_with_its_moves() {
        let mut g = PlusMinus::new(PlusMinusConfig::default(), 2, Dealing::Service).unwrap();
        g.apply(Actor::Table, &Action::Deal {}, Some(&Seed([3; 32])))
            .unwrap();
        let v = g.seat_view(1);
        assert_eq!(v["your_turn"], true);
        let hand: Vec<i32> = serde_json::from_value(v["hand"].clone()).unwrap();
        assert_eq!(hand.len(), HAND_SIZE);
        let moves = v["moves"].as_array().unwrap();
        let mut distinct = hand.clone();
        distinct.dedup();
        assert_eq!(moves.len(), distinct.len());
        for m in moves {
            let card = m["card"].as_i64().unwrap();
            if card < 0 {
                assert_eq!(m["playable"], false);
            } else {
                assert_eq!(
                    m["options"],
                    json!([{"from": 0, "to": card, "result": "move"}])
                );
            }
        }
        assert_eq!(g.seat_view(0)["moves"], json!([]));
        assert_eq!(g.seat_view(0)["hand"].as_array().unwrap().len(), HAND_SIZE);
        // Nothing hidden in the public view.
        assert!(g.table_view().get("hands").is_none());
        assert!(!g.table_view().to_string().contains("hand"));
    }
}

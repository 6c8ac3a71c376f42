//! By Hook or Crook / Adel Verpflichtet (Klaus Teuber, 1990): sealed simultaneous choices, an
//! auction, exhibitions at castles, thieves, detectives and a prison.
//!
//! docs/rules.md#by-hook-or-crook and the seed text `004_ed924eb0498f4b83.txt`. A turn: every seat
//! chooses a location (sealed, revealed together), then an action card (sealed, revealed together);
//! the auction is resolved (`buy`), then the castle (`exhibit`, sealed among the exhibitors; `steal`
//! in descending thief order; detectives and prison). When a pawn enters a pink space the turn is
//! finished and every seat shows its best set (`final_exhibit`, sealed); the furthest pawn wins.
//!
//! Sealed choices: a seat's location, action card, exhibit and final exhibit are recorded as its
//! own action and stay invisible to everyone else (table view, other seats' views, the log as other
//! viewers see it, outcomes, error messages) until the action completing the set reveals them all.
//!
//! `legal_actions` lists everything `apply` accepts except what cannot be enumerated: exhibits and
//! final exhibits of a hand holding unknown cards (table dealing) and face-up cards of an `open`
//! collection are not listed (an empty list there does not mean nothing is allowed); a seat's sets
//! are listed best first, at most [`LEGAL_SETS_CAP`] of them.
//!
//! Files: [`items`] (collection cards and sets), [`config`], [`actions`], [`error`], `play`
//! (validation and resolution), `view` (views, log rendering, score sheet).

pub mod actions;
pub mod config;
pub mod error;
pub mod items;
mod play;
mod view;

pub use view::{
    ByHookOrCrookOutcome, ByHookOrCrookRoundDetail, ByHookOrCrookSeat, ByHookOrCrookTable,
};

use std::{collections::BTreeSet, sync::Arc};

use serde_json::Value;

pub use self::{
    actions::{Action, ActionCard, Place},
    config::{BhocConfig, Board, Castle, Collection, DetectiveRanking, TwoPlayer},
    error::BhocError,
    items::{CardSet, Item},
};
use super::cards::Commitment;
use super::entered::{self, Entered, EntryError};
use super::{
    tally::{TallyForm, TallyUnit},
    Actor, Dealing, Game, Produced, ScoreSheet, Seed, ToAct,
};

/// Most sets `legal_actions` lists for one exhibit (best first); bigger hands are rare.
pub const LEGAL_SETS_CAP: usize = 1000;

/// One auction pile.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Pile {
    /// Cards in the pile, face-up top included.
    size: usize,
    /// The face-up top: None when empty, or (table dealing) until the table records it.
    top: Option<Item>,
    /// Service dealing: the face-down cards under the top, next first.
    below: Vec<Item>,
}

/// Where the game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    AwaitingDeal,
    /// Every seat chooses a location (two players combined: and its action card).
    Locations,
    /// Every seat chooses an action card.
    Cards,
    /// The auction's winner picks a pile.
    Buy(usize),
    /// The exhibitors lay down their sets.
    Exhibits,
    /// Thieves at the castle take their loot.
    Steals,
    /// The game's end: every seat shows its best set.
    FinalExhibition,
    Finished,
}

/// What the auction did this turn.
#[derive(Clone, Debug, PartialEq, Eq)]
struct AuctionResult {
    bids: PerSeat<(usize, u32)>,
    thieves: PerSeat<(usize, u32)>,
    winner: Option<(usize, u32)>,
    bought: Option<(usize, Item)>,
    check_to: Option<usize>,
    note: &'static str,
}

impl AuctionResult {
    /// The auction as the views show it.
    fn view(&self) -> view::ByHookOrCrookAuction {
        view::ByHookOrCrookAuction {
            checks: self
                .bids
                .iter()
                .map(|b| view::ByHookOrCrookBid {
                    seat: b.0,
                    check: b.1,
                })
                .collect(),
            thieves: self
                .thieves
                .iter()
                .map(|b| view::ByHookOrCrookThiefPlayed {
                    seat: b.0,
                    thief: b.1,
                })
                .collect(),
            winner: self.winner.map(|w| w.0),
            check: self.winner.map(|w| w.1),
            bought: self.bought.map(|b| view::ByHookOrCrookPurchase {
                pile: b.0,
                card: b.1,
            }),
            check_stolen_by: self.check_to,
            result: self.note,
        }
    }
}

/// A thief's theft from an exhibit.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Theft {
    thief: u32,
    seat: usize,
    from: usize,
    card: Item,
}

impl Theft {
    /// The theft as the views show it.
    fn view(&self) -> view::ByHookOrCrookTheft {
        view::ByHookOrCrookTheft {
            thief: self.thief,
            seat: self.seat,
            from: self.from,
            card: self.card,
        }
    }
}

/// A successful detective.
#[derive(Clone, Debug, PartialEq, Eq)]
struct DetectiveAdvance {
    seat: usize,
    standing: u32,
}

/// The turn in progress.
#[derive(Clone, Debug, Default)]
struct Turn {
    number: u32,
    locations: Vec<Option<Place>>,
    cards: Vec<Option<ActionCard>>,
    /// Whether the locations (and, once the cards phase is over, the cards) are public.
    locations_public: bool,
    cards_public: bool,
    auction: Option<AuctionResult>,
    /// Sealed exhibits by seat (exhibitors only) until revealed.
    exhibits: Vec<Option<Vec<Item>>>,
    exhibits_public: bool,
    /// What each exhibit showed when revealed, by seat.
    shown: Vec<Option<Vec<Item>>>,
    /// Cards still on display, by seat.
    display: Vec<Option<CardSet>>,
    ranking: PerSeat<usize>,
    castle: Option<usize>,
    advances: Vec<u32>,
    /// Thieves still to steal, current first: (number, owner).
    steal_queue: Vec<(u32, usize)>,
    /// Exhibits the current thief has taken from.
    stolen_from: Vec<usize>,
    thefts: Vec<Theft>,
    caught: PerSeat<u32>,
    released: PerSeat<u32>,
    detectives: PerSeat<DetectiveAdvance>,
}

/// Most seats a match has ([`Game::MAX_PLAYERS`]): the per-seat rows of a [`TurnRecord`].
const SEATS: usize = 5;

/// A short per-seat list held inline (at most one entry per seat): the turn's temporaries and
/// the per-seat lists of an outcome, which serialise as the same JSON lists as a `Vec` would
/// (the spec names them `Vec`s) and cost no allocation when an action's outcome is built.
pub type PerSeat<T> = smallvec::SmallVec<[T; SEATS]>;

/// A finished turn, for the score sheet and `table.last_turn`: the turn's own lists moved in
/// when it ends (nothing copied), its views ([`Self::detail`], [`Self::summary`]) built only
/// when read.
#[derive(Clone, Debug, PartialEq)]
struct TurnRecord {
    number: u32,
    players: usize,
    locations: [Option<Place>; SEATS],
    cards: [Option<ActionCard>; SEATS],
    advances: [u32; SEATS],
    auction: Option<AuctionResult>,
    /// The exhibits shown, in seat order: (seat, cards).
    shown: Vec<(usize, Vec<Item>)>,
    ranking: PerSeat<usize>,
    castle: Option<usize>,
    thefts: Vec<Theft>,
    caught: PerSeat<u32>,
    released: PerSeat<u32>,
    detectives: PerSeat<DetectiveAdvance>,
}

impl TurnRecord {
    /// Spaces each seat advanced.
    fn advances(&self) -> &[u32] {
        &self.advances[..self.players]
    }

    fn exhibits(&self) -> Vec<view::ByHookOrCrookExhibitShown> {
        self.shown
            .iter()
            .map(|(seat, cards)| view::ByHookOrCrookExhibitShown {
                seat: *seat,
                cards: Some(cards.clone()),
            })
            .collect()
    }

    /// The score sheet's `detail`.
    fn detail(&self) -> view::ByHookOrCrookTurnDetail {
        view::ByHookOrCrookTurnDetail {
            exhibits: self.exhibits(),
            ranking: self.ranking.to_vec(),
            castle: self.castle.map(|c| c + 1),
            detectives: self
                .detectives
                .iter()
                .map(|d| view::ByHookOrCrookDetective {
                    seat: d.seat,
                    standing: d.standing,
                })
                .collect(),
            caught: self.caught.to_vec(),
        }
    }

    /// `table.last_turn`.
    fn summary(&self) -> view::ByHookOrCrookTurnSummary {
        let n = self.players;
        view::ByHookOrCrookTurnSummary {
            turn: self.number,
            locations: self.locations[..n].to_vec(),
            cards: self.cards[..n].to_vec(),
            auction: self.auction.as_ref().map(AuctionResult::view),
            exhibits: self.exhibits(),
            ranking: self.ranking.to_vec(),
            castle: self.castle.map(|c| c + 1),
            thefts: self.thefts.iter().map(Theft::view).collect(),
            caught: self.caught.to_vec(),
            released: self.released.to_vec(),
            detectives: self
                .detectives
                .iter()
                .map(|d| view::ByHookOrCrookDetectiveMove {
                    seat: d.seat,
                    standing: d.standing,
                    spaces: d.standing,
                })
                .collect(),
            advances: self.advances().to_vec(),
        }
    }
}

/// The end of the game.
#[derive(Clone, Debug, PartialEq)]
struct FinalRecord {
    shown: Vec<Vec<Item>>,
    ranking: Vec<usize>,
    advances: Vec<u32>,
    winners: Vec<usize>,
    margin: i64,
    /// Score-only play: the game was entered by a table `tally` (its tiebreak, `[]` without a
    /// tie); what was exhibited is then not known. None for a played game.
    tiebreak: Option<Vec<usize>>,
}

/// The state of a By Hook or Crook match.
#[derive(Clone, Debug)]
pub struct ByHookOrCrook {
    config: Box<BhocConfig>,
    players: usize,
    dealing: Dealing,
    phase: Phase,
    commitment: Option<Commitment>,
    positions: Vec<u32>,
    /// Cards known to be in each hand: all of them in service dealing, those learned so far in
    /// table dealing.
    hands: Vec<CardSet>,
    hand_sizes: Vec<usize>,
    /// Cards every player has seen go into each hand (bought, stolen, shown).
    public: Vec<CardSet>,
    piles: [Pile; 2],
    /// Checks each seat holds.
    checks: Vec<BTreeSet<u32>>,
    /// Checks left in the cash register: out of the game.
    register: Vec<u32>,
    /// Thieves in prison, cell 1 first.
    prison: Vec<u32>,
    turn: Box<Turn>,
    end_triggered: bool,
    /// Finished turns (shared: a clone of the state does not copy them).
    records: Vec<Arc<TurnRecord>>,
    final_shown: Vec<Option<Vec<Item>>>,
    final_record: Option<Box<FinalRecord>>,
    /// Standing actions applied so far (the index of the next one).
    applied: usize,
    /// Sealed actions not yet revealed: (action index, seat).
    hidden: Vec<(usize, usize)>,
    /// By seat, bit `j` when the seat's `j`-th thief is its own ([`Self::thief_owner`]: a thief
    /// number also dealt to an earlier seat is that seat's), worked out once from the config.
    thieves_owned: [u8; SEATS],
}

impl ByHookOrCrook {
    /// Every collection card the engine can place, with where it is: `hand:<seat>`,
    /// `pile:<p>:top`, `pile:<p>:below` or `display:<seat>`. In table dealing only the known cards
    /// are listed. A card is never listed twice (property-tested).
    pub fn card_places(&self) -> Vec<(Item, String)> {
        let mut out = Vec::new();
        for (s, h) in self.hands.iter().enumerate() {
            out.extend(h.iter().map(|c| (*c, format!("hand:{s}"))));
        }
        for (p, pile) in self.piles.iter().enumerate() {
            out.extend(pile.top.iter().map(|c| (*c, format!("pile:{p}:top"))));
            out.extend(pile.below.iter().map(|c| (*c, format!("pile:{p}:below"))));
        }
        for (s, d) in self.turn.display.iter().enumerate() {
            out.extend(d.iter().flatten().map(|c| (*c, format!("display:{s}"))));
        }
        out
    }

    /// How many collection cards are in play in all: hands, piles and displays (45 with a
    /// printed deck once dealt).
    pub fn cards_in_play(&self) -> usize {
        self.hand_sizes.iter().sum::<usize>()
            + self.piles.iter().map(|p| p.size).sum::<usize>()
            + self
                .turn
                .display
                .iter()
                .flatten()
                .map(|d| d.len())
                .sum::<usize>()
    }

    /// The seat that started with the check of value `v`.
    fn check_owner(&self, v: u32) -> Option<usize> {
        self.config
            .checks
            .iter()
            .take(self.players)
            .position(|row| row.contains(&v))
    }

    /// The seat whose thief carries number `n`.
    fn thief_owner(&self, n: u32) -> Option<usize> {
        self.config
            .thieves
            .iter()
            .take(self.players)
            .position(|pair| pair.contains(&n))
    }

    /// The default deck, or None for an open collection.
    fn deck(&self) -> Option<Vec<Item>> {
        (self.config.collection == Collection::Default).then(items::default_deck)
    }

    /// The pawns' spaces, by seat.
    pub fn positions(&self) -> &[u32] {
        &self.positions
    }

    /// Whether the game is over.
    pub fn is_finished(&self) -> bool {
        self.phase == Phase::Finished
    }
}

impl Game for ByHookOrCrook {
    const ID: &'static str = "by-hook-or-crook";
    const TITLE: &'static str = "By Hook or Crook";
    const MIN_PLAYERS: usize = 2;
    const MAX_PLAYERS: usize = SEATS;
    type Config = BhocConfig;
    type Action = Action;
    type Table = ByHookOrCrookTable;
    type Seat = ByHookOrCrookSeat;
    type Outcome = ByHookOrCrookOutcome;
    type RoundDetail = ByHookOrCrookRoundDetail;
    type Error = BhocError;

    /// docs/rules.md#duplicate-games: one deal of collection cards, and play not compared deal by
    /// deal: no duplicate play.
    const DUPLICATE: bool = false;
    /// A seat's legal list can show the choices it has sealed (a location, an action card, an
    /// exhibit), which the table does not see even when it deals its own cards.
    const LEGAL_LIST_PRIVATE: bool = true;

    /// By Hook or Crook: pawns only move forward.
    fn check_entered(e: &Entered<'_>) -> Result<(), EntryError> {
        if e.totals
            .iter()
            .chain(e.deals.iter().flatten())
            .any(|&x| x < 0)
        {
            return Err(entered::impossible(
                "pawns only move forward: no negative numbers",
            ));
        }
        Ok(())
    }

    fn new(config: BhocConfig, players: usize, dealing: Dealing) -> Result<Self, BhocError> {
        if !(Self::MIN_PLAYERS..=Self::MAX_PLAYERS).contains(&players) {
            return Err(BhocError::PlayerCount(players));
        }
        config.validate(players)?;
        if config.collection == Collection::Open && dealing == Dealing::Service {
            return Err(BhocError::InvalidConfig(
                "collection \"open\" is for table dealing: the service can only shuffle the default deck"
                    .into(),
            ));
        }
        let checks = config
            .checks
            .iter()
            .take(players)
            .map(|row| row.iter().copied().collect())
            .collect();
        let mut game = ByHookOrCrook {
            config: Box::new(config),
            players,
            dealing,
            phase: Phase::AwaitingDeal,
            commitment: None,
            positions: vec![0; players],
            hands: vec![CardSet::default(); players],
            hand_sizes: vec![0; players],
            public: vec![CardSet::default(); players],
            piles: Default::default(),
            checks,
            register: Vec::new(),
            prison: Vec::new(),
            turn: Box::default(),
            end_triggered: false,
            records: Vec::new(),
            final_shown: Vec::new(),
            final_record: None,
            applied: 0,
            hidden: Vec::new(),
            thieves_owned: [0; SEATS],
        };
        for seat in 0..players {
            for (j, &n) in game.config.thieves[seat].iter().enumerate() {
                if game.thief_owner(n) == Some(seat) {
                    game.thieves_owned[seat] |= 1 << j;
                }
            }
        }
        game.start_turn(0);
        Ok(game)
    }

    fn config(&self) -> &BhocConfig {
        &self.config
    }

    fn to_act(&self) -> ToAct {
        self.expected()
    }

    /// In a score-only match (`scores_only`), the game's one `positions` tally: per seat its
    /// pawn's space after the final exhibition, from 0 (the club room); no greatest space (the
    /// pink spaces run on around the table, RULES.md "By Hook or Crook"); a tie on the furthest
    /// space names its winner (`tiebreak`).
    fn tally_form(&self) -> Option<TallyForm> {
        (self.dealing == Dealing::Table && self.config.scores_only).then(|| {
            let last = self.config.board.last_space(self.positions.len());
            TallyForm {
                field: "positions",
                max: Some(i64::from(last)),
                tiebreak: true,
                ..TallyForm::points(TallyUnit::Seat, self.positions.len(), 0, 0)
            }
        })
    }

    fn legal_actions(&self, actor: Actor) -> Vec<Action> {
        self.legal(actor)
    }

    /// Exhibits are counted and unranked ([`items::pick_set`]), not listed, and the short lists
    /// are walked without being built: the same action as
    /// `legal_actions` at that index (property-tested, `tests/props_by_hook_or_crook.rs`).
    fn legal_pick(&self, actor: Actor, pick: impl FnOnce(usize) -> usize) -> Option<Action> {
        self.pick_legal(actor, pick)
    }

    fn dealing(&self) -> Dealing {
        self.dealing
    }

    fn is_deal(action: &Action) -> bool {
        matches!(action, Action::Deal { .. })
    }

    fn apply(
        &mut self,
        actor: Actor,
        action: &Action,
        seed: Option<&Seed>,
    ) -> Result<Produced<ByHookOrCrookOutcome>, BhocError> {
        // The answer passed through as it is (not unwrapped and wrapped again), so that the
        // outcome list is written once, in the caller's slot, not copied on the way out.
        let out = self.dispatch(actor, action, seed);
        self.applied += usize::from(out.is_ok());
        out
    }

    fn table(&self) -> ByHookOrCrookTable {
        self.public_view()
    }

    fn seat(&self, seat: usize) -> Option<ByHookOrCrookSeat> {
        self.private_view(seat)
    }

    fn score_sheet(&self) -> ScoreSheet {
        self.sheet()
    }

    /// The turn in progress (the final exhibition counts as one more); 0 before the deal.
    fn round(&self) -> u32 {
        match self.phase {
            Phase::AwaitingDeal => 0,
            Phase::Finished => self.records.len() as u32 + 1,
            _ => self.turn.number,
        }
    }

    /// The game has no dealer after the single deal.
    fn dealer(&self) -> Option<usize> {
        None
    }

    /// The whole game is one deal: the service's shuffle seed fixes every hand and the order of
    /// both auction piles, so no round counts as over (and the seed stays secret) until the match
    /// is finished; then every turn and the final exhibition are.
    fn rounds_completed(&self) -> u32 {
        if self.phase == Phase::Finished {
            self.records.len() as u32 + 1
        } else {
            0
        }
    }

    /// A line per finished turn, and the final exhibition's once it is over: the one seed is
    /// revealed only at the end, but the sheet grows turn by turn.
    fn sheet_lines(&self) -> u32 {
        self.records.len() as u32 + u32::from(self.final_record.is_some())
    }

    /// Locations, action cards, exhibits and final exhibits are sealed choices (docs/rules.md#by-hook-or-crook-turn: "sealed,
    /// revealed together"; exhibitors "each lay down one set" knowing only how many thieves are
    /// present).
    fn is_sealed(&self, action: &Action) -> bool {
        matches!(
            action,
            Action::Location { .. }
                | Action::Choose { .. }
                | Action::Exhibit { .. }
                | Action::FinalExhibit { .. }
        )
    }

    fn render_action(
        &self,
        index: usize,
        action: &Action,
        actor: Actor,
        viewer: Option<usize>,
    ) -> Value {
        self.render(index, action, actor, viewer)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::rules::RuleError;

    /// Applies `v` for `seat`; the outcomes as the log writes them.
    fn act(g: &mut ByHookOrCrook, seat: usize, v: Value) -> Value {
        let a: Action = serde_json::from_value(v).unwrap();
        serde_json::to_value(g.apply(Actor::Seat(seat), &a, None).unwrap()).unwrap()
    }

    #[test]
    fn a_sealed_location_shows_only_to_its_seat_until_all_are_in() {
        let mut g = ByHookOrCrook::new(BhocConfig::default(), 3, Dealing::Service).unwrap();
        g.apply(
            Actor::Table,
            &Action::Deal { pile_sizes: None },
            Some(&Seed([3; 32])),
        )
        .unwrap();
        let castle = json!({"type": "location", "place": "castle"});
        let auction = json!({"type": "location", "place": "auction"});
        act(&mut g, 1, castle.clone());
        let a: Action = serde_json::from_value(castle.clone()).unwrap();
        let sealed = json!({"type": "location", "sealed": true});
        assert_eq!(g.render_action(1, &a, Actor::Seat(1), None), sealed);
        assert_eq!(g.render_action(1, &a, Actor::Seat(1), Some(0)), sealed);
        assert_eq!(g.render_action(1, &a, Actor::Seat(1), Some(1)), castle);
        assert_eq!(g.seat_view(1)["location"], "castle");
        assert_eq!(g.seat_view(0)["location"], Value::Null);
        assert_eq!(g.table_view()["locations"], json!([null, null, null]));
        act(&mut g, 0, auction.clone());
        let out = act(&mut g, 2, auction);
        assert_eq!(out[0]["type"], "locations_revealed");
        assert_eq!(out[0]["locations"], json!(["auction", "castle", "auction"]));
        assert_eq!(g.render_action(1, &a, Actor::Seat(1), None), castle);
        assert_eq!(g.render_action(1, &a, Actor::Seat(1), Some(2)), castle);
    }

    /// The action cards the legal lists offer (`playable_cards`, checked by `check_card`) are
    /// exactly those `check_card` allows, for every seat, place and card (owned, someone
    /// else's, spent, in prison, unknown) at every step of random games, under the default
    /// options and others: two players combined and alternate, competition ranking, other
    /// checks and thieves, a short board.
    #[test]
    fn playable_cards_are_what_check_card_allows() {
        let mut configs = vec![(BhocConfig::default(), 0)];
        for two_player in [TwoPlayer::Combined, TwoPlayer::Alternate] {
            let c = BhocConfig {
                two_player,
                ..BhocConfig::default()
            };
            configs.push((c, 2));
        }
        configs.push((
            BhocConfig {
                detective_ranking: DetectiveRanking::Competition,
                checks: (0..5u32)
                    .map(|p| (1..=2 + p).map(|k| 100 * k + p).collect())
                    .collect(),
                thieves: (0..5u32).map(|p| [20 - p, 3 * p + 1]).collect(),
                board: Board {
                    pink_from: 12,
                    ..Board::default()
                },
                ..BhocConfig::default()
            },
            0,
        ));
        for (config, only) in configs {
            let mut cards: Vec<ActionCard> = (0..=21).map(ActionCard::Thief).collect();
            cards.extend([
                ActionCard::Exhibit,
                ActionCard::Detective,
                ActionCard::Check(1),
            ]);
            for row in &config.checks {
                cards.extend(row.iter().map(|&v| ActionCard::Check(v)));
            }
            for n in 0..24u64 {
                let players = if only > 0 { only } else { 2 + (n % 4) as usize };
                let mut g = ByHookOrCrook::new(config.clone(), players, Dealing::Service).unwrap();
                let mut rng = crate::rng::SplitMix64::new(n);
                g.apply(
                    Actor::Table,
                    &Action::Deal { pile_sizes: None },
                    Some(&rng.seed()),
                )
                .unwrap();
                while !g.is_finished() {
                    for seat in 0..players {
                        for place in [Place::Castle, Place::Auction] {
                            let playable = g.playable_cards(seat, place);
                            // Picked without the list: told its length, the same card at
                            // every index, nothing past the end or from an empty list.
                            for k in 0..=playable.len() {
                                let mut told = None;
                                let got = g.pick_playable(seat, place, |n| {
                                    told = Some(n);
                                    k
                                });
                                assert_eq!(got, playable.get(k).copied(), "pick {k}");
                                let len = (!playable.is_empty()).then_some(playable.len());
                                assert_eq!(told, len);
                            }
                            for &card in &cards {
                                assert_eq!(
                                    playable.contains(&card),
                                    g.check_card(seat, card, place).is_ok(),
                                    "seat {seat}, {card} at {place:?}"
                                );
                            }
                        }
                    }
                    let to = g.to_act();
                    let seat = to.seats[(rng.next_u64() % to.seats.len() as u64) as usize];
                    let a = g
                        .legal_pick(Actor::Seat(seat), |k| (rng.next_u64() % k as u64) as usize)
                        .unwrap();
                    g.apply(Actor::Seat(seat), &a, None).unwrap();
                }
            }
        }
    }

    /// A detective's dense standing counts the distinct spaces ahead without building a set:
    /// the same as the set of them (the former code) on random boards of up to five pawns, many
    /// of them level.
    #[test]
    fn dense_standing_counts_the_distinct_spaces_ahead() {
        let mut rng = crate::rng::SplitMix64::new(7);
        for players in 2..=5 {
            let mut g =
                ByHookOrCrook::new(BhocConfig::default(), players, Dealing::Service).unwrap();
            for _ in 0..2000 {
                for p in g.positions.iter_mut() {
                    *p = (rng.next_u64() % 6) as u32;
                }
                for s in 0..players {
                    let me = g.positions[s];
                    let ahead: BTreeSet<u32> =
                        g.positions.iter().copied().filter(|&p| p > me).collect();
                    assert_eq!(
                        g.standing(s),
                        ahead.len() as u32 + 1,
                        "{:?} seat {s}",
                        g.positions
                    );
                }
            }
        }
    }

    #[test]
    fn nothing_panics_on_odd_input() {
        let mut g = ByHookOrCrook::new(BhocConfig::default(), 5, Dealing::Table).unwrap();
        for seat in [0, 4, 5, usize::MAX] {
            let _ = (g.seat_view(seat), g.legal_actions(Actor::Seat(seat)));
            let a = Action::Steal {
                from: usize::MAX,
                card: "A1500".parse().unwrap(),
            };
            assert!(g.apply(Actor::Seat(seat), &a, None).is_err());
        }
        let big = Action::Deal {
            pile_sizes: Some([u32::MAX, u32::MAX]),
        };
        assert_eq!(
            g.apply(Actor::Table, &big, None).unwrap_err().code(),
            "bad_pile_sizes"
        );
        let huge = Action::Choose {
            card: ActionCard::Check(u32::MAX),
        };
        assert!(g.apply(Actor::Seat(0), &huge, None).is_err());
    }
}

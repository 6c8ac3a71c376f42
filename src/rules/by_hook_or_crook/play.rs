//! Validation and resolution: every handler checks everything first and only then changes the
//! state, so a refused action leaves it untouched.

use std::collections::BTreeSet;

use super::view::{
    ByHookOrCrookAdvance, ByHookOrCrookDetectiveMove, ByHookOrCrookExhibitShown,
    ByHookOrCrookOutcome as O, Choice, SeatMask,
};
use super::{
    actions::{Action, ActionCard, Place},
    config::{Collection, DetectiveRanking, TwoPlayer},
    error::BhocError,
    items::{self, Item, SetValue},
    AuctionResult, ByHookOrCrook, DetectiveAdvance, FinalRecord, PerSeat, Phase, Pile, Theft, Turn,
    TurnRecord, LEGAL_SETS_CAP, SEATS,
};
use crate::rules::{
    cards::{shuffled, Commitment},
    Actor, Dealing, Seats, Seed, ToAct,
};

type R<T> = Result<T, BhocError>;

/// What an action produced ([`crate::rules::Produced`]): a sealed choice's one outcome inline.
type Outs = crate::rules::Produced<O>;

/// `items` collected into an inline list by pushing each: for the few seats of a turn, cheaper
/// than `SmallVec`'s `Extend`, which reserves first and is not inlined.
fn inline<A: smallvec::Array>(items: impl IntoIterator<Item = A::Item>) -> smallvec::SmallVec<A> {
    let mut list = smallvec::SmallVec::new();
    for item in items {
        list.push(item);
    }
    list
}

/// Room for the most outcomes one action can produce (a buy: bought, pile turned, thieves caught,
/// turn over, final exhibition expected), so that a chain's list is allocated once (a list of
/// one is held inline).
const CHAIN: usize = 5;

/// Which sealed choice an action makes.
#[derive(Clone, Copy)]
enum Sealed {
    Location,
    Card,
}

fn list(cards: &[Item]) -> String {
    cards
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The card of a list of one (a refusal's `card` field), None for several.
fn one(cards: &[Item]) -> Option<Item> {
    match cards {
        [card] => Some(*card),
        _ => None,
    }
}

/// No card listed twice.
fn check_listed(cards: &[Item]) -> R<()> {
    if cards.windows(2).all(|w| w[0] < w[1]) {
        // In canonical order, as the legal lists give them: each card once.
        return Ok(());
    }
    if cards.len() <= 64 {
        // Short lists (every set of a printed deck): the first card listed before.
        return match (1..cards.len()).find(|&i| cards[..i].contains(&cards[i])) {
            Some(i) => Err(BhocError::DuplicateCard(cards[i])),
            None => Ok(()),
        };
    }
    let mut seen = BTreeSet::new();
    match cards.iter().find(|c| !seen.insert(**c)) {
        Some(&c) => Err(BhocError::DuplicateCard(c)),
        None => Ok(()),
    }
}

/// How many items a pick keeps on the stack while counting: a list this short is walked once.
const KEPT: usize = 16;

/// The visitor of [`pick_walked`]: counts the items, keeping the first [`KEPT`], or (asked for
/// `target`) finds the `target`-th.
struct Picker<T> {
    kept: [Option<T>; KEPT],
    count: usize,
    target: Option<usize>,
    found: Option<T>,
}

impl<T: Copy> Picker<T> {
    fn visit(&mut self, item: T) {
        match self.target {
            Some(k) if k == self.count => self.found = Some(item),
            Some(_) => {}
            None => {
                if let Some(slot) = self.kept.get_mut(self.count) {
                    *slot = Some(item);
                }
            }
        }
        self.count += 1;
    }
}

/// The `k`-th item `walk` shows its [`Picker`], `k` chosen by `pick` from their number (called
/// only when there is one or more): what `pick` would choose in the collected list. The first
/// ones are kept while counting, so that a short list is walked once; a longer one twice.
#[inline(always)]
fn pick_walked<T: Copy>(
    mut walk: impl FnMut(&mut Picker<T>),
    pick: impl FnOnce(usize) -> usize,
) -> Option<T> {
    let mut p = Picker {
        kept: [None; KEPT],
        count: 0,
        target: None,
        found: None,
    };
    walk(&mut p);
    if p.count == 0 {
        return None;
    }
    let k = pick(p.count);
    if p.count <= KEPT {
        return p.kept.get(k).copied().flatten();
    }
    p.count = 0;
    p.target = Some(k);
    walk(&mut p);
    p.found
}

/// [`pick_walked`] over `items`.
fn pick_in<T: Copy>(
    items: impl Iterator<Item = T> + Clone,
    pick: impl FnOnce(usize) -> usize,
) -> Option<T> {
    pick_walked(|p| items.clone().for_each(|item| p.visit(item)), pick)
}

/// [`pick_in`] for a list already built.
fn pick_from<T>(mut list: Vec<T>, pick: impl FnOnce(usize) -> usize) -> Option<T> {
    if list.is_empty() {
        return None;
    }
    let k = pick(list.len());
    (k < list.len()).then(|| list.swap_remove(k))
}

/// Who is to act ([`ByHookOrCrook::awaited`]).
enum Awaited {
    Table,
    /// Bit `s` for seat `s`.
    Seats(u32),
}

/// The seats of a bit mask, in seat order, laid into an inline list at once.
fn seats_of(mask: u32) -> Seats {
    let mut buf = [0usize; 8];
    let mut len = 0;
    for (slot, s) in buf.iter_mut().zip(SeatMask(mask).seats()) {
        *slot = s;
        len += 1;
    }
    Seats::from_buf_and_len(buf, len)
}

fn seats_text(seats: &[usize]) -> String {
    seats
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl ByHookOrCrook {
    // ----- helpers -------------------------------------------------------------------------

    fn is_combined(&self) -> bool {
        self.players == 2 && self.config.two_player == TwoPlayer::Combined
    }

    fn is_alternate(&self) -> bool {
        self.players == 2 && self.config.two_player == TwoPlayer::Alternate
    }

    /// Table dealing: the first pile with cards whose face-up top the table has not recorded.
    pub(super) fn pending_reveal(&self) -> Option<usize> {
        if self.dealing != Dealing::Table || self.phase == Phase::AwaitingDeal {
            return None;
        }
        (0..2).find(|&p| self.piles[p].size > 0 && self.piles[p].top.is_none())
    }

    /// Thieves of `seat` not in prison.
    pub(super) fn free_thieves(&self, seat: usize) -> Vec<u32> {
        self.config.thieves[seat]
            .iter()
            .copied()
            .filter(|n| !self.prison.contains(n))
            .collect()
    }

    /// Whether `seat` has a card it may play at `place` (the detective always goes to the castle).
    pub(super) fn can_play_at(&self, seat: usize, place: Place) -> bool {
        match place {
            Place::Castle => true,
            Place::Auction => {
                !self.checks[seat].is_empty()
                    || self.config.thieves[seat]
                        .iter()
                        .any(|n| !self.prison.contains(n))
            }
        }
    }

    /// Where a known card lies, if anywhere (hands, pile tops, displays).
    fn place_of(&self, card: Item) -> Option<String> {
        for (s, h) in self.hands.iter().enumerate() {
            if h.contains(&card) {
                return Some(format!("it is known to be in seat {}'s hand", s + 1));
            }
        }
        for (p, pile) in self.piles.iter().enumerate() {
            if pile.top == Some(card) || pile.below.contains(&card) {
                return Some(format!("it lies on auction pile {p}"));
            }
        }
        for (s, d) in self.turn.display.iter().enumerate() {
            if d.as_ref().is_some_and(|d| d.contains(&card)) {
                return Some(format!("it lies in seat {}'s exhibit", s + 1));
            }
        }
        None
    }

    fn check_exists(&self, card: Item) -> R<()> {
        match self.config.collection {
            Collection::Default if !items::in_default_deck(card) => Err(BhocError::NoSuchCard {
                card: card.into(),
                message: format!(
                    "{card} is not in the default collection (the k-th card of letter i is dated 1500 + 60k + 7i; use collection \"open\" for a table's own deck)"
                ),
            }),
            _ => Ok(()),
        }
    }

    /// Cards of each letter not yet accounted for (table dealing; an open deck never runs out).
    fn unplaced_per_letter(&self) -> [usize; 6] {
        let Some(deck) = self.deck() else {
            return [usize::MAX; 6];
        };
        let placed: BTreeSet<Item> = self.card_places().into_iter().map(|(c, _)| c).collect();
        items::letter_counts(deck.iter().filter(|c| !placed.contains(c)))
    }

    /// Whether `seat` holds (service) or may hold (table) a set.
    pub(super) fn may_hold_set(&self, seat: usize) -> bool {
        if self.hand_sizes[seat] == self.hands[seat].len() {
            return self.hands[seat].has_set();
        }
        items::could_hold_set(
            &self.hands[seat],
            self.hand_sizes[seat],
            &self.unplaced_per_letter(),
        )
    }

    /// Checks that `seat` can show `cards` (listed once each, see [`check_listed`]): every card
    /// exists and is (or may be) in the seat's hand.
    fn check_shown(&self, seat: usize, cards: &[Item]) -> R<()> {
        for &c in cards {
            self.check_exists(c)?;
        }
        let hand = &self.hands[seat];
        if cards.iter().all(|c| hand.contains(c)) {
            return Ok(());
        }
        let new: Vec<Item> = cards
            .iter()
            .copied()
            .filter(|c| !hand.contains(c))
            .collect();
        if new.is_empty() {
            return Ok(());
        }
        if self.hand_sizes[seat] == hand.len() {
            // Every card of the hand is known (service dealing, or all learned).
            return Err(BhocError::CardNotInHand {
                seat,
                card: one(&new),
                message: format!("seat {} does not hold {}", seat + 1, list(&new)),
            });
        }
        for &c in &new {
            if let Some(place) = self.place_of(c) {
                return Err(BhocError::CardElsewhere { card: c, place });
            }
        }
        if hand.len() + new.len() > self.hand_sizes[seat] {
            return Err(BhocError::CardNotInHand {
                seat,
                card: one(&new),
                message: format!(
                    "seat {} holds {} cards, {} of them known ({}): {} cannot all be in that hand",
                    seat + 1,
                    self.hand_sizes[seat],
                    hand.len(),
                    list(&hand.iter().copied().collect::<Vec<_>>()),
                    list(&new)
                ),
            });
        }
        Ok(())
    }

    /// Adds a card to a seat's hand (known and public).
    fn take_into_hand(&mut self, seat: usize, card: Item) {
        self.hands[seat].insert(card);
        self.public[seat].insert(card);
        self.hand_sizes[seat] += 1;
    }

    /// Takes a card out of a seat's hand (learning it, in table dealing).
    fn take_out_of_hand(&mut self, seat: usize, card: Item) {
        self.hands[seat].remove(&card);
        self.public[seat].remove(&card);
        self.hand_sizes[seat] = self.hand_sizes[seat].saturating_sub(1);
    }

    fn advance(&mut self, seat: usize, spaces: u32) {
        self.positions[seat] = self.positions[seat].saturating_add(spaces);
        self.turn.advances[seat] = self.turn.advances[seat].saturating_add(spaces);
        if self.positions[seat] >= self.config.board.pink_from {
            self.end_triggered = true;
        }
    }

    fn seat_of(&self, actor: Actor, action: &'static str) -> R<usize> {
        match actor {
            Actor::Table => Err(BhocError::SeatActionOnly(action)),
            Actor::Seat(s) if s >= self.players => Err(BhocError::NoSuchSeat {
                seat: s,
                max: self.players - 1,
            }),
            Actor::Seat(s) => Ok(s),
        }
    }

    fn phase_text(&self) -> String {
        match self.phase {
            Phase::AwaitingDeal => "the table deals first".into(),
            Phase::Locations if self.is_combined() => {
                "every player chooses a location and an action card".into()
            }
            Phase::Locations => "every player chooses a location".into(),
            Phase::Cards => "every player chooses an action card".into(),
            Phase::Buy(s) => format!("seat {} won the auction and picks a pile (buy)", s + 1),
            Phase::Exhibits => "the exhibitors lay down their sets (exhibit)".into(),
            Phase::Steals => "the thieves at the castle take their loot (steal)".into(),
            Phase::FinalExhibition => "every player shows his best set (final_exhibit)".into(),
            Phase::Finished => "the match is finished".into(),
        }
    }

    fn wrong_phase(&self, action: &'static str) -> BhocError {
        BhocError::WrongPhase {
            action,
            now: self.phase_text(),
        }
    }

    /// [`Self::expected`]'s seats, as a mask.
    fn waiting_for(&self) -> SeatMask {
        match self.awaited() {
            Awaited::Seats(mask) => SeatMask(mask),
            Awaited::Table => SeatMask::default(),
        }
    }

    // ----- dispatch ----------------------------------------------------------------------

    pub(super) fn dispatch(
        &mut self,
        actor: Actor,
        action: &Action,
        seed: Option<&Seed>,
    ) -> R<Outs> {
        if self.phase == Phase::Finished {
            return Err(BhocError::MatchFinished);
        }
        let name = action.type_name();
        match action {
            Action::Deal { pile_sizes } => {
                if actor != Actor::Table {
                    return Err(BhocError::TableActionOnly(name));
                }
                self.deal(*pile_sizes, seed)
            }
            Action::RevealPile { pile, card } => {
                if actor != Actor::Table {
                    return Err(BhocError::TableActionOnly(name));
                }
                self.reveal_pile(*pile, *card)
            }
            Action::Tally {
                positions,
                tiebreak,
            } => {
                if actor != Actor::Table {
                    return Err(BhocError::TableActionOnly(name));
                }
                self.tally(positions, tiebreak.as_deref().unwrap_or_default())
            }
            _ => {
                let seat = self.seat_of(actor, name)?;
                if self.phase == Phase::AwaitingDeal {
                    return Err(BhocError::DealExpected);
                }
                if let Some(p) = self.pending_reveal() {
                    return Err(BhocError::RevealExpected(p));
                }
                match action {
                    Action::Location { place } => self.location(seat, *place),
                    Action::Choose { card } => self.choose(seat, *card),
                    Action::Buy { pile } => self.buy(seat, *pile),
                    Action::Exhibit { cards } => self.exhibit(seat, cards),
                    Action::Steal { from, card } => self.steal(seat, *from, *card),
                    Action::FinalExhibit { cards } => self.final_exhibit(seat, cards),
                    Action::Deal { .. } | Action::RevealPile { .. } | Action::Tally { .. } => {
                        unreachable!("handled")
                    }
                }
            }
        }
    }

    // ----- the deal ----------------------------------------------------------------------

    fn deal(&mut self, pile_sizes: Option<[u32; 2]>, seed: Option<&Seed>) -> R<Outs> {
        if self.phase != Phase::AwaitingDeal {
            return Err(BhocError::AlreadyDealt);
        }
        let rest = (items::DECK_SIZE - 4 * self.players) as u64;
        let sizes = match pile_sizes {
            Some([a, b]) => {
                let got = a as u64 + b as u64;
                if self.config.collection == Collection::Default && got != rest {
                    return Err(BhocError::BadPileSizes {
                        expected: rest,
                        got,
                    });
                }
                if got > 10_000 {
                    return Err(BhocError::BadPileSizes {
                        expected: rest,
                        got,
                    });
                }
                [a as usize, b as usize]
            }
            None => [rest.div_ceil(2) as usize, (rest / 2) as usize],
        };
        let seed = match (self.dealing, seed) {
            (Dealing::Service, Some(s)) => Some(s),
            (Dealing::Service, None) => return Err(BhocError::SeedMissing),
            (Dealing::Table, Some(_)) => return Err(BhocError::SeedNotTaken),
            (Dealing::Table, None) => None,
        };
        self.hand_sizes = vec![4; self.players];
        if let Some(seed) = seed {
            // Service dealing: shuffle the default deck; card k goes to seat k mod n for the
            // first 4n cards, then pile 0 takes the next sizes[0] cards and pile 1 the rest (the
            // first card of each pile is its face-up top).
            let deck: Vec<Item> = items::default_deck();
            let order = shuffled(deck, seed);
            let dealt = 4 * self.players;
            for (k, c) in order.iter().take(dealt).enumerate() {
                self.hands[k % self.players].insert(*c);
            }
            let rest_cards = &order[dealt..];
            let (p0, p1) = rest_cards.split_at(sizes[0].min(rest_cards.len()));
            for (pile, cards) in self.piles.iter_mut().zip([p0, p1]) {
                *pile = Pile {
                    size: cards.len(),
                    top: cards.first().copied(),
                    below: cards.iter().skip(1).copied().collect(),
                };
            }
            self.commitment = Some(Commitment::of(seed));
        } else {
            for (pile, size) in self.piles.iter_mut().zip(sizes) {
                *pile = Pile {
                    size,
                    top: None,
                    below: Vec::new(),
                };
            }
        }
        self.phase = Phase::Locations;
        self.start_turn(1);
        Ok(smallvec::smallvec![O::Dealt {
            hand_sizes: self.hand_sizes.clone(),
            piles: self.piles.iter().map(|p| p.top).collect(),
            pile_sizes: self.piles.iter().map(|p| p.size).collect(),
            commitment: self.commitment.map(Box::new),
        }])
    }

    fn reveal_pile(&mut self, pile: usize, card: Item) -> R<Outs> {
        if self.dealing == Dealing::Service {
            return Err(BhocError::TableDealingOnly);
        }
        if self.phase == Phase::AwaitingDeal {
            return Err(BhocError::DealExpected);
        }
        if pile >= 2 {
            return Err(BhocError::NoSuchPile(pile));
        }
        match self.pending_reveal() {
            None => {
                return Err(BhocError::NoRevealExpected(
                    "both face-up cards are known (or the piles are empty)".into(),
                ))
            }
            Some(_) if self.piles[pile].size == 0 => {
                return Err(BhocError::NoRevealExpected(format!(
                    "auction pile {pile} is empty"
                )))
            }
            Some(_) if self.piles[pile].top.is_some() => {
                return Err(BhocError::NoRevealExpected(format!(
                    "auction pile {pile} already shows {}",
                    self.piles[pile].top.expect("some")
                )))
            }
            Some(_) => {}
        }
        self.check_exists(card)?;
        if let Some(place) = self.place_of(card) {
            return Err(BhocError::CardElsewhere { card, place });
        }
        self.piles[pile].top = Some(card);
        Ok(smallvec::smallvec![O::PileTurned { pile, card }])
    }

    /// Clears the turn's choices for turn `number` (0 before the deal), keeping the lists'
    /// room: every field as a new [`Turn`] for `number` has it.
    pub(super) fn start_turn(&mut self, number: u32) {
        let n = self.players;
        let Turn {
            number: turn_number,
            locations,
            cards,
            locations_public,
            cards_public,
            auction,
            exhibits,
            exhibits_public,
            shown,
            display,
            ranking,
            castle,
            advances,
            steal_queue,
            stolen_from,
            thefts,
            caught,
            released,
            detectives,
        } = &mut *self.turn;
        *turn_number = number;
        locations.clear();
        locations.resize(n, None);
        cards.clear();
        cards.resize(n, None);
        *locations_public = false;
        *cards_public = false;
        *auction = None;
        for list in [exhibits, shown] {
            list.clear();
            list.resize(n, None);
        }
        *exhibits_public = false;
        display.clear();
        display.resize(n, None);
        ranking.clear();
        *castle = None;
        advances.clear();
        advances.resize(n, 0);
        steal_queue.clear();
        stolen_from.clear();
        thefts.clear();
        caught.clear();
        released.clear();
        detectives.clear();
    }

    // ----- sealed choices ---------------------------------------------------------------

    /// In `alternate` (two players), the seat whose turn it is to pick a location openly.
    fn alternate_next(&self) -> Option<usize> {
        let first = ((self.turn.number.saturating_sub(1)) % 2) as usize;
        [first, 1 - first]
            .into_iter()
            .find(|&s| self.turn.locations[s].is_none())
    }

    fn location(&mut self, seat: usize, place: Place) -> R<Outs> {
        if self.phase != Phase::Locations {
            return Err(self.wrong_phase("location"));
        }
        if self.is_alternate() {
            match self.alternate_next() {
                Some(next) if next != seat => {
                    return Err(BhocError::NotYourTurn {
                        seat,
                        to_act: Some(next),
                        message: format!(
                        "the two players pick their locations openly in turn: seat {} picks now",
                        next + 1
                    ),
                    })
                }
                _ => {}
            }
        }
        if self.turn.locations[seat].is_some() {
            return Err(BhocError::AlreadyChosen(seat));
        }
        if !self.can_play_at(seat, place) {
            return Err(BhocError::NothingToPlayThere { seat, place });
        }
        self.turn.locations[seat] = Some(place);
        if self.is_alternate() {
            let mut out = smallvec::smallvec![O::Location { seat, place }];
            if self.turn.locations.iter().all(Option::is_some) {
                out.push(self.reveal_locations());
            }
            return Ok(out);
        }
        self.hidden.push((self.applied, seat));
        self.after_sealed(seat, Sealed::Location)
    }

    fn choose(&mut self, seat: usize, card: ActionCard) -> R<Outs> {
        let combined = self.is_combined();
        match self.phase {
            Phase::Cards => {}
            Phase::Locations if combined => {}
            _ => return Err(self.wrong_phase("choose")),
        }
        if self.turn.cards[seat].is_some() {
            return Err(BhocError::AlreadyChosen(seat));
        }
        let Some(place) = self.turn.locations[seat] else {
            return Err(BhocError::LocationFirst(seat));
        };
        self.check_card(seat, card, place)?;
        self.turn.cards[seat] = Some(card);
        self.hidden.push((self.applied, seat));
        self.after_sealed(seat, Sealed::Card)
    }

    /// Checks that `seat` may play `card` at `place`: first what anyone can check (the card is
    /// the seat's, not spent, not in prison), then the location (sealed until revealed, except in
    /// `alternate`) and the hand (an exhibit needs a set), so that a refusal on public grounds
    /// tells nothing of either (issue 20).
    pub(super) fn check_card(&self, seat: usize, card: ActionCard, place: Place) -> R<()> {
        match card {
            ActionCard::Check(v) if !self.checks[seat].contains(&v) => {
                return Err(if self.register.contains(&v) {
                    BhocError::CheckAlreadySpent(v)
                } else if self.check_owner(v).is_some() {
                    BhocError::NotYourCard { seat, card }
                } else {
                    BhocError::NoSuchCard {
                        card: card.into(),
                        message: format!("there is no check of {v} in this match"),
                    }
                });
            }
            ActionCard::Thief(n) => match self.thief_owner(n) {
                None => {
                    return Err(BhocError::NoSuchCard {
                        card: card.into(),
                        message: format!("there is no thief {n} in this match"),
                    })
                }
                Some(o) if o != seat => return Err(BhocError::NotYourCard { seat, card }),
                Some(_) if self.prison.contains(&n) => {
                    return Err(BhocError::ThiefInPrison { seat, thief: n })
                }
                Some(_) => {}
            },
            ActionCard::Check(_) | ActionCard::Exhibit | ActionCard::Detective => {}
        }
        if !card.allowed_at(place) {
            return Err(BhocError::CardNotAllowedHere {
                seat,
                card,
                place,
                sealed: !self.turn.locations_public && !self.is_alternate(),
            });
        }
        if card == ActionCard::Exhibit && !self.may_hold_set(seat) {
            return Err(BhocError::NoSetToExhibit(seat));
        }
        Ok(())
    }

    /// After a sealed location or card: reveal when the set is complete, else say who is awaited
    /// (never what was chosen).
    fn after_sealed(&mut self, seat: usize, what: Sealed) -> R<Outs> {
        let all_locations = self.turn.locations.iter().all(Option::is_some);
        let all_cards = self.turn.cards.iter().all(Option::is_some);
        let complete = if self.is_combined() {
            all_locations && all_cards
        } else {
            match what {
                Sealed::Location => all_locations,
                Sealed::Card => all_cards,
            }
        };
        if !complete {
            let choice = match what {
                Sealed::Location => Choice::Location,
                Sealed::Card => Choice::Card,
            };
            return Ok(smallvec::smallvec![O::Sealed {
                seat,
                choice,
                waiting_for: self.waiting_for(),
            }]);
        }
        self.hidden.clear();
        if matches!(what, Sealed::Location) {
            return Ok(smallvec::smallvec![self.reveal_locations()]);
        }
        self.turn.locations_public = true;
        self.turn.cards_public = true;
        let mut out = Outs::with_capacity(CHAIN);
        out.push(O::CardsRevealed {
            turn: self.turn.number,
            locations: PerSeat::from_slice(&self.turn.locations),
            cards: PerSeat::from_slice(&self.turn.cards),
        });
        self.resolve_auction(&mut out);
        Ok(out)
    }

    fn reveal_locations(&mut self) -> O {
        self.hidden.clear();
        self.turn.locations_public = true;
        self.phase = Phase::Cards;
        O::LocationsRevealed {
            turn: self.turn.number,
            locations: PerSeat::from_slice(&self.turn.locations),
        }
    }

    // ----- the auction ------------------------------------------------------------------

    fn played_at(&self, place: Place) -> impl Iterator<Item = (usize, ActionCard)> + '_ {
        let t = &self.turn;
        t.locations
            .iter()
            .zip(&t.cards)
            .take(self.players)
            .enumerate()
            .filter_map(move |(s, (l, c))| match (l, c) {
                (Some(l), Some(c)) if *l == place => Some((s, *c)),
                _ => None,
            })
    }

    fn thieves_at(&self, place: Place) -> PerSeat<(usize, u32)> {
        inline(self.played_at(place).filter_map(|(s, c)| match c {
            ActionCard::Thief(n) => Some((s, n)),
            _ => None,
        }))
    }

    fn resolve_auction(&mut self, out: &mut Outs) {
        let bids: PerSeat<(usize, u32)> =
            inline(self.played_at(Place::Auction).filter_map(|(s, c)| match c {
                ActionCard::Check(v) => Some((s, v)),
                _ => None,
            }));
        let thieves = self.thieves_at(Place::Auction);
        let winner = bids.iter().copied().max_by_key(|&(_, v)| v);
        let cards_left = self.piles.iter().any(|p| p.size > 0);
        let note = match (winner, cards_left) {
            (None, _) => "no check was played",
            (Some(_), false) => "no collection cards are left: the auction does nothing",
            (Some(_), true) => "won",
        };
        let mut result = AuctionResult {
            bids: bids.clone(),
            thieves: thieves.clone(),
            winner: None,
            bought: None,
            check_to: None,
            note,
        };
        if let (Some(w), true) = (winner, cards_left) {
            result.winner = Some(w);
            self.turn.auction = Some(result);
            self.phase = Phase::Buy(w.0);
            out.push(O::AuctionWon {
                seat: w.0,
                check: w.1,
                thieves: inline(thieves.iter().map(|t| t.1)),
            });
            return;
        }
        self.turn.auction = Some(result);
        if !bids.is_empty() || !thieves.is_empty() {
            out.push(O::Auction {
                result: note,
                checks_returned: inline(bids.iter().map(|b| b.1)),
            });
        }
        self.start_castle(out);
    }

    fn buy(&mut self, seat: usize, pile: usize) -> R<Outs> {
        let Phase::Buy(winner) = self.phase else {
            return Err(self.wrong_phase("buy"));
        };
        if seat != winner {
            return Err(BhocError::NotYourTurn {
                seat,
                to_act: Some(winner),
                message: format!("seat {} won the auction and picks the pile", winner + 1),
            });
        }
        if pile >= 2 {
            return Err(BhocError::NoSuchPile(pile));
        }
        if self.piles[pile].size == 0 {
            return Err(BhocError::PileEmpty(pile));
        }
        let Some(card) = self.piles[pile].top else {
            // Unreachable: a pending reveal is refused before any seat acts.
            return Err(BhocError::RevealExpected(pile));
        };
        let value = self
            .turn
            .auction
            .as_ref()
            .and_then(|a| a.winner)
            .map_or(0, |w| w.1);
        // The card goes to the winner; the next card of the pile is turned up.
        let p = &mut self.piles[pile];
        p.size -= 1;
        p.top = if p.below.is_empty() {
            None
        } else {
            Some(p.below.remove(0))
        };
        let new_top = p.top;
        let new_size = p.size;
        self.take_into_hand(seat, card);
        // The check goes to the register; exactly one thief at the auction takes it for his
        // owner, two or more get nothing.
        self.checks[seat].remove(&value);
        let thieves = self.thieves_at(Place::Auction);
        let check_to = match thieves.as_slice() {
            [(owner, _)] => {
                self.checks[*owner].insert(value);
                Some(*owner)
            }
            _ => {
                self.register.push(value);
                None
            }
        };
        if let Some(a) = self.turn.auction.as_mut() {
            a.bought = Some((pile, card));
            a.check_to = check_to;
        }
        let mut out = Outs::with_capacity(CHAIN);
        out.push(O::Bought {
            seat,
            pile,
            card,
            check: value,
            check_stolen_by: check_to,
            thieves: inline(thieves.iter().map(|t| t.1)),
        });
        if let Some(top) = new_top {
            out.push(O::PileTurned { pile, card: top });
        } else if new_size == 0 {
            out.push(O::PileEmpty { pile });
        }
        self.start_castle(&mut out);
        Ok(out)
    }

    // ----- the castle -------------------------------------------------------------------

    fn exhibitors(&self) -> PerSeat<usize> {
        inline(
            self.played_at(Place::Castle)
                .filter(|(_, c)| *c == ActionCard::Exhibit)
                .map(|(s, _)| s),
        )
    }

    fn start_castle(&mut self, out: &mut Outs) {
        let exhibitors = self.exhibitors();
        if exhibitors.is_empty() {
            self.finish_castle(out);
            return;
        }
        self.phase = Phase::Exhibits;
        out.push(O::ExhibitsExpected {
            exhibitors,
            thieves: inline(self.thieves_at(Place::Castle).iter().map(|t| t.1)),
        });
    }

    /// Whether every card of every hand is known (service dealing, or all learned).
    fn all_hands_known(&self) -> bool {
        (0..self.players).all(|s| self.hand_sizes[s] == self.hands[s].len())
    }

    /// Table dealing: a card that another sealed exhibit of this step also claims.
    fn conflict_with_sealed(
        &self,
        seat: usize,
        cards: &[Item],
        sealed: &[Option<Vec<Item>>],
    ) -> Option<Item> {
        if self.all_hands_known() {
            // Each sealed exhibit was checked to lie in its seat's hand ([`Self::check_shown`]),
            // no card has moved since, and a card lies in one hand only: no conflict.
            return None;
        }
        cards.iter().copied().find(|c| {
            sealed
                .iter()
                .enumerate()
                .any(|(s, e)| s != seat && e.as_ref().is_some_and(|e| e.contains(c)))
        })
    }

    fn exhibit(&mut self, seat: usize, cards: &[Item]) -> R<Outs> {
        if self.phase != Phase::Exhibits {
            return Err(self.wrong_phase("exhibit"));
        }
        let exhibitors = self.exhibitors();
        if !exhibitors.contains(&seat) {
            return Err(BhocError::NotYourTurn {
                seat,
                to_act: None,
                message: format!(
                    "only the seats that played an exhibit at the castle lay down sets: seats {}",
                    seats_text(&exhibitors)
                ),
            });
        }
        if self.turn.exhibits[seat].is_some() {
            return Err(BhocError::AlreadyChosen(seat));
        }
        check_listed(cards)?;
        if !items::is_set(cards) {
            return Err(BhocError::NotASet(format!(
                "{} is not a set: a set is at least three cards whose letters form one unbroken run (AABB, CCD, EEE, DEF are sets; AAC, BCF, DE, AAACE are not)",
                if cards.is_empty() { "nothing".to_string() } else { list(cards) }
            )));
        }
        self.check_shown(seat, cards)?;
        let last = exhibitors
            .iter()
            .all(|&s| s == seat || self.turn.exhibits[s].is_some());
        if last {
            if let Some(c) = self.conflict_with_sealed(seat, cards, &self.turn.exhibits) {
                return Err(BhocError::CardInTwoExhibits(c));
            }
        }
        self.turn.exhibits[seat] = Some(cards.to_vec());
        self.hidden.push((self.applied, seat));
        if !last {
            return Ok(smallvec::smallvec![O::Sealed {
                seat,
                choice: Choice::Exhibit,
                waiting_for: self.waiting_for(),
            }]);
        }
        let mut out = Outs::new();
        self.reveal_exhibits(&mut out);
        Ok(out)
    }

    fn reveal_exhibits(&mut self, out: &mut Outs) {
        self.hidden.clear();
        self.turn.exhibits_public = true;
        let exhibitors = self.exhibitors();
        for &s in &exhibitors {
            let cards = self.turn.exhibits[s].clone().unwrap_or_default();
            for &c in &cards {
                if self.hands[s].contains(&c) {
                    self.take_out_of_hand(s, c);
                } else {
                    // Table dealing: an unknown card of the hand, learned now.
                    self.hand_sizes[s] = self.hand_sizes[s].saturating_sub(1);
                }
            }
            self.turn.display[s] = Some(cards.iter().copied().collect());
            self.turn.shown[s] = Some(cards);
        }
        // Each exhibit valued once, then sorted stably (as the former cached-key sort) on the
        // stack.
        let mut valued: PerSeat<(std::cmp::Reverse<SetValue>, usize)> =
            inline(exhibitors.iter().map(|&s| {
                let value = SetValue::of(self.turn.shown[s].iter().flatten());
                (std::cmp::Reverse(value), s)
            }));
        valued.sort_by(|a, b| a.0.cmp(&b.0));
        let ranking: PerSeat<usize> = inline(valued.iter().map(|v| v.1));
        // Rewards come from the castle of the leading pawn, before anyone advances.
        let lead = self.positions.iter().copied().max().unwrap_or(0);
        let castle = self.config.board.castle_at(lead);
        let c = self.config.board.castles[castle];
        let mut advances = smallvec::SmallVec::new();
        for (place, spaces) in ranking.iter().zip([c.upper, c.lower]) {
            self.advance(*place, spaces);
            advances.push(ByHookOrCrookAdvance {
                seat: *place,
                spaces,
            });
        }
        self.turn.castle = Some(castle);
        let exhibits: Vec<ByHookOrCrookExhibitShown> = exhibitors
            .iter()
            .map(|&s| ByHookOrCrookExhibitShown {
                seat: s,
                cards: self.turn.shown[s].clone(),
            })
            .collect();
        out.push(O::ExhibitsRevealed {
            exhibits,
            ranking: smallvec::SmallVec::from_slice(&ranking),
            castle: castle + 1,
            advances,
            positions: smallvec::SmallVec::from_slice(&self.positions),
        });
        self.turn.ranking = ranking;
        // Thieves steal in descending number order, one card from each exhibit.
        let mut queue: Vec<(u32, usize)> = self
            .thieves_at(Place::Castle)
            .into_iter()
            .map(|(s, n)| (n, s))
            .collect();
        queue.sort_by_key(|&(n, _)| std::cmp::Reverse(n));
        self.turn.steal_queue = queue;
        self.turn.stolen_from.clear();
        self.next_thief(out);
    }

    /// Exhibits the current thief still takes from.
    pub(super) fn owed_exhibits(&self) -> Vec<usize> {
        (0..self.players)
            .filter(|&s| self.owes_exhibit(s))
            .collect()
    }

    /// Whether [`Self::owed_exhibits`] names any, without the list.
    fn any_owed(&self) -> bool {
        (0..self.players).any(|s| self.owes_exhibit(s))
    }

    /// Whether seat `s` is among [`Self::owed_exhibits`]: not stolen from yet, cards on display.
    fn owes_exhibit(&self, s: usize) -> bool {
        !self.turn.stolen_from.contains(&s)
            && self.turn.display[s].as_ref().is_some_and(|d| !d.is_empty())
    }

    /// Moves on to the first thief who still has something to take, or finishes the castle.
    fn next_thief(&mut self, out: &mut Outs) {
        while !self.turn.steal_queue.is_empty() {
            if self.any_owed() {
                self.phase = Phase::Steals;
                return;
            }
            self.turn.steal_queue.remove(0);
            self.turn.stolen_from.clear();
        }
        self.finish_castle(out)
    }

    fn steal(&mut self, seat: usize, from: usize, card: Item) -> R<Outs> {
        if self.phase != Phase::Steals {
            return Err(self.wrong_phase("steal"));
        }
        let Some(&(thief, owner)) = self.turn.steal_queue.first() else {
            return Err(self.wrong_phase("steal"));
        };
        if seat != owner {
            return Err(BhocError::NotYourTurn {
                seat,
                to_act: Some(owner),
                message: format!(
                    "thief {thief} of seat {} steals now (thieves steal in descending number order)",
                    owner + 1
                ),
            });
        }
        let Some(display) = self.turn.display.get(from).and_then(|d| d.as_ref()) else {
            return Err(BhocError::NotExhibiting(from));
        };
        if self.turn.stolen_from.contains(&from) {
            return Err(BhocError::AlreadyStolenFrom { thief, from });
        }
        if !display.contains(&card) {
            let shows: Vec<Item> = display.iter().copied().collect();
            return Err(BhocError::CardNotInExhibit {
                card,
                from,
                shows: if shows.is_empty() {
                    "nothing any more".into()
                } else {
                    list(&shows)
                },
            });
        }
        if let Some(d) = self.turn.display[from].as_mut() {
            d.remove(&card);
        }
        self.take_into_hand(owner, card);
        self.turn.stolen_from.push(from);
        self.turn.thefts.push(Theft {
            thief,
            seat: owner,
            from,
            card,
        });
        let mut out = Outs::new();
        out.push(O::Stolen {
            thief,
            seat: owner,
            from,
            card,
        });
        self.next_thief(&mut out);
        Ok(out)
    }

    /// Exhibits go home; detectives catch the thieves (after they delivered their loot) and
    /// advance by their standing; the turn ends.
    fn finish_castle(&mut self, out: &mut Outs) {
        // The turn's end follows (and perhaps the final exhibition's call): one allocation for
        // the chain, not one per outcome past the first.
        out.reserve(CHAIN);
        for s in 0..self.players {
            if let Some(d) = self.turn.display[s].take() {
                for c in d {
                    self.take_into_hand(s, c);
                }
            }
        }
        let thieves = self.thieves_at(Place::Castle);
        let detectives: PerSeat<usize> = inline(
            self.played_at(Place::Castle)
                .filter(|(_, c)| *c == ActionCard::Detective)
                .map(|(s, _)| s),
        );
        if !detectives.is_empty() && !thieves.is_empty() {
            // Standings after the just-completed exhibitions, all counted before anyone moves.
            let standings: PerSeat<u32> = inline(detectives.iter().map(|&s| self.standing(s)));
            let mut moves = Vec::with_capacity(detectives.len());
            for (&s, &standing) in detectives.iter().zip(&standings) {
                self.advance(s, standing);
                self.turn
                    .detectives
                    .push(DetectiveAdvance { seat: s, standing });
                moves.push(ByHookOrCrookDetectiveMove {
                    seat: s,
                    standing,
                    spaces: standing,
                });
            }
            // Prison: lowest number enters cell 1 first, pushing the others along; a thief
            // pushed out of the last cell goes home.
            let mut caught: PerSeat<u32> = inline(thieves.iter().map(|t| t.1));
            caught.sort_unstable();
            let mut released = PerSeat::new();
            for &n in &caught {
                self.prison.insert(0, n);
                if self.prison.len() > self.players {
                    released.extend(self.prison.pop());
                }
            }
            out.push(O::ThievesCaught {
                thieves: caught.to_vec(),
                released: released.to_vec(),
                detectives: moves.into_boxed_slice(),
                prison: self.prison.clone(),
                positions: self.positions.clone(),
            });
            self.turn.caught = caught;
            self.turn.released = released;
        }
        self.end_turn(out);
    }

    /// A seat's standing counted from the front (leader 1).
    pub(super) fn standing(&self, seat: usize) -> u32 {
        let me = self.positions[seat];
        match self.config.detective_ranking {
            DetectiveRanking::Dense => {
                // The distinct spaces ahead: each counted at its first seat, no set built.
                let p = &self.positions;
                let ahead = (0..p.len())
                    .filter(|&i| p[i] > me && !p[..i].contains(&p[i]))
                    .count();
                ahead as u32 + 1
            }
            DetectiveRanking::Competition => {
                self.positions.iter().filter(|&&p| p > me).count() as u32 + 1
            }
        }
    }

    fn end_turn(&mut self, out: &mut Outs) {
        let record = self.turn_record();
        let number = self.turn.number;
        self.records.push(std::sync::Arc::new(record));
        out.push(O::TurnOver {
            turn: number,
            advances: PerSeat::from_slice(&self.turn.advances),
            positions: PerSeat::from_slice(&self.positions),
        });
        if self.end_triggered {
            self.phase = Phase::FinalExhibition;
            self.final_shown = vec![None; self.players];
            self.start_turn(number);
            out.push(O::FinalExhibitionExpected {
                reason: "a pawn entered a pink space",
            });
        } else {
            self.phase = Phase::Locations;
            self.start_turn(number + 1);
        }
    }

    /// The finished turn's record: its lists moved out of the turn (which [`Self::start_turn`]
    /// clears next), its views built only when read.
    fn turn_record(&mut self) -> TurnRecord {
        let n = self.players;
        let t = &mut *self.turn;
        let mut locations = [None; SEATS];
        locations[..n].copy_from_slice(&t.locations);
        let mut cards = [None; SEATS];
        cards[..n].copy_from_slice(&t.cards);
        let mut advances = [0; SEATS];
        advances[..n].copy_from_slice(&t.advances);
        TurnRecord {
            number: t.number,
            players: n,
            locations,
            cards,
            advances,
            auction: t.auction.take(),
            shown: t
                .shown
                .iter_mut()
                .enumerate()
                .filter_map(|(s, c)| c.take().map(|c| (s, c)))
                .collect(),
            ranking: std::mem::take(&mut t.ranking),
            castle: t.castle,
            thefts: std::mem::take(&mut t.thefts),
            caught: std::mem::take(&mut t.caught),
            released: std::mem::take(&mut t.released),
            detectives: std::mem::take(&mut t.detectives),
        }
    }

    // ----- the end ----------------------------------------------------------------------

    fn final_exhibit(&mut self, seat: usize, cards: &[Item]) -> R<Outs> {
        if self.phase != Phase::FinalExhibition {
            return Err(self.wrong_phase("final_exhibit"));
        }
        if self.final_shown[seat].is_some() {
            return Err(BhocError::AlreadyChosen(seat));
        }
        check_listed(cards)?;
        if !cards.is_empty() && !items::is_set(cards) {
            return Err(BhocError::NotASet(format!(
                "{} is not a set: show at least three cards whose letters form one unbroken run, or [] without a set",
                list(cards)
            )));
        }
        self.check_shown(seat, cards)?;
        if let Some(best) = items::best_set(&self.hands[seat]) {
            if SetValue::of(cards) < SetValue::of(&best) {
                return Err(BhocError::NotBestSet {
                    seat,
                    detail: format!(
                        "every player shows his best set: seat {} holds {}, which is better than {}",
                        seat + 1,
                        list(&best),
                        if cards.is_empty() { "nothing".to_string() } else { list(cards) }
                    ),
                });
            }
        }
        let last = (0..self.players).all(|s| s == seat || self.final_shown[s].is_some());
        if last {
            if let Some(c) = self.conflict_with_sealed(seat, cards, &self.final_shown) {
                return Err(BhocError::CardInTwoExhibits(c));
            }
        }
        self.final_shown[seat] = Some(cards.to_vec());
        self.hidden.push((self.applied, seat));
        if !last {
            return Ok(smallvec::smallvec![O::Sealed {
                seat,
                choice: Choice::FinalExhibit,
                waiting_for: self.waiting_for(),
            }]);
        }
        Ok(self.score_final())
    }

    fn score_final(&mut self) -> Outs {
        self.hidden.clear();
        let shown: Vec<Vec<Item>> = self
            .final_shown
            .iter()
            .map(|s| s.clone().unwrap_or_default())
            .collect();
        // Shown cards are learned where they were unknown (table dealing).
        for (s, cards) in shown.iter().enumerate() {
            for &c in cards {
                self.hands[s].insert(c);
                self.public[s].insert(c);
            }
        }
        let mut ranking: Vec<usize> = (0..self.players)
            .filter(|&s| !shown[s].is_empty())
            .collect();
        ranking.sort_by_key(|&s| std::cmp::Reverse(SetValue::of(&shown[s])));
        let mut advances = vec![0u32; self.players];
        let mut moves = Vec::new();
        for (&s, spaces) in ranking.iter().zip([8u32, 4]) {
            self.positions[s] = self.positions[s].saturating_add(spaces);
            advances[s] = spaces;
            moves.push(ByHookOrCrookAdvance { seat: s, spaces });
        }
        // The furthest pawn wins; ties go to the more valuable collection.
        let far = self.positions.iter().copied().max().unwrap_or(0);
        let level: Vec<usize> = (0..self.players)
            .filter(|&s| self.positions[s] == far)
            .collect();
        let best_value = level
            .iter()
            .map(|&s| SetValue::of(&shown[s]))
            .max()
            .expect("someone is furthest");
        let winners: Vec<usize> = level
            .into_iter()
            .filter(|&s| SetValue::of(&shown[s]) == best_value)
            .collect();
        let runner_up = (0..self.players)
            .filter(|s| !winners.contains(s))
            .map(|s| self.positions[s])
            .max();
        let margin = runner_up.map_or(0, |r| far as i64 - r as i64);
        self.final_record = Some(Box::new(FinalRecord {
            shown: shown.clone(),
            ranking: ranking.clone(),
            advances,
            winners: winners.clone(),
            margin,
            tiebreak: None,
        }));
        self.phase = Phase::Finished;
        smallvec::smallvec![
            O::FinalExhibition {
                exhibits: shown,
                ranking,
                advances: moves,
                positions: self.positions.clone(),
            },
            O::MatchFinished { winners, margin },
        ]
    }

    /// Score-only play: the whole game's result, each pawn's space after the final exhibition.
    /// Checked: one space per seat, each 0 to [`Board::last_space`], a pawn on a pink space (the
    /// game ends only after one enters it), and a tie on the furthest space broken by the table
    /// (docs/rules.md#by-hook-or-crook: ties go to the more valuable collection, which a tally
    /// does not show). The furthest pawn (or `tiebreak[0]`) wins; the margin is counted as a
    /// played game's (the furthest minus the best of the others).
    ///
    /// [`Board::last_space`]: super::config::Board::last_space
    fn tally(&mut self, positions: &[i64], tiebreak: &[usize]) -> R<Outs> {
        if !self.config.scores_only || self.dealing != Dealing::Table {
            return Err(BhocError::TallyNotAllowed(
                "a By Hook or Crook tally is for score-only matches (config scores_only, table dealing)",
            ));
        }
        if self.phase != Phase::AwaitingDeal {
            return Err(BhocError::TallyNotAllowed(
                "a tally records the whole game: it cannot follow a deal already played",
            ));
        }
        let n = self.players;
        if positions.len() != n {
            return Err(BhocError::TallyShape(format!(
                "one pawn space per seat: {n} expected, {} given",
                positions.len()
            )));
        }
        let last = self.config.board.last_space(n);
        for (seat, &value) in positions.iter().enumerate() {
            if !(0..=i64::from(last)).contains(&value) {
                return Err(BhocError::TallyRange { seat, value, last });
            }
        }
        let positions: Vec<u32> = positions.iter().map(|&p| p as u32).collect();
        let pink_from = self.config.board.pink_from;
        let far = positions.iter().copied().max().unwrap_or(0);
        if far < pink_from {
            return Err(BhocError::TallyNotOver { pink_from });
        }
        let tied: Vec<usize> = (0..n).filter(|&s| positions[s] == far).collect();
        let seats = |list: &[usize]| -> String {
            let words: Vec<String> = list.iter().map(|s| (s + 1).to_string()).collect();
            match words.as_slice() {
                [] => "none".into(),
                [one] => format!("seat {one}"),
                [rest @ .., last] => format!("seats {} and {last}", rest.join(", ")),
            }
        };
        if tied.len() > 1 {
            let mut given = tiebreak.to_vec();
            given.sort_unstable();
            if given != tied {
                let said = if tiebreak.is_empty() {
                    "none is given".to_string()
                } else {
                    format!("{:?} ({}) is given", tiebreak, seats(tiebreak))
                };
                return Err(BhocError::TallyTiebreak(format!(
                    "{} share the furthest space ({far}): list exactly them, the winner (the more valuable collection) first; {said}",
                    seats(&tied)
                )));
            }
        } else if !tiebreak.is_empty() {
            return Err(BhocError::TallyTiebreak(format!(
                "{} alone is furthest (space {far}): a tiebreak is only for a tie on the furthest space, send none",
                seats(&tied)
            )));
        }
        let winner = tiebreak.first().copied().unwrap_or(tied[0]);
        let runner_up = (0..n).filter(|&s| s != winner).map(|s| positions[s]).max();
        let margin = runner_up.map_or(0, |r| i64::from(far) - i64::from(r));
        self.positions = positions.clone();
        self.end_triggered = true;
        self.final_record = Some(Box::new(FinalRecord {
            shown: vec![vec![]; n],
            ranking: vec![],
            advances: vec![0; n],
            winners: vec![winner],
            margin,
            tiebreak: Some(tiebreak.to_vec()),
        }));
        self.phase = Phase::Finished;
        Ok(smallvec::smallvec![
            O::Tallied {
                positions,
                tiebreak: tiebreak.to_vec(),
            },
            O::MatchFinished {
                winners: vec![winner],
                margin,
            },
        ])
    }

    // ----- who acts, what is legal --------------------------------------------------------

    pub(super) fn expected(&self) -> ToAct {
        // Asked twice at every step of a playout (`to_act`, and a sealed choice's
        // `waiting_for`): the seats are worked out as a bit mask, then laid into the answer's
        // inline list at once (seat order, as the mask's bits), not pushed one by one.
        let mut to = ToAct::nobody();
        match self.awaited() {
            Awaited::Table => to.table = true,
            Awaited::Seats(mask) => to.seats = seats_of(mask),
        }
        to
    }

    /// Who is to act: the table, or the seats of a bit mask (bit `s` for seat `s`; none when the
    /// match is finished). [`Self::expected`] and [`Self::awaits`] read it.
    fn awaited(&self) -> Awaited {
        if self.pending_reveal().is_some() {
            return Awaited::Table;
        }
        let t = &self.turn;
        // The seats still to choose: one bit per seat, without a branch per seat.
        fn unchosen<T>(list: &[T], missing: impl Fn(&T) -> bool) -> u32 {
            list.iter()
                .enumerate()
                .fold(0u32, |mask, (s, x)| mask | u32::from(missing(x)) << s)
        }
        Awaited::Seats(match self.phase {
            Phase::AwaitingDeal => return Awaited::Table,
            Phase::Finished => 0,
            Phase::Locations if self.is_alternate() => self.alternate_next().map_or(0, |s| 1 << s),
            Phase::Locations if self.is_combined() => {
                unchosen(&t.locations, Option::is_none) | unchosen(&t.cards, Option::is_none)
            }
            Phase::Locations => unchosen(&t.locations, Option::is_none),
            Phase::Cards => unchosen(&t.cards, Option::is_none),
            Phase::Buy(w) => 1 << w,
            Phase::Exhibits => {
                let castle = unchosen(&t.locations, |l| *l == Some(Place::Castle));
                let exhibit = unchosen(&t.cards, |c| *c == Some(ActionCard::Exhibit));
                castle & exhibit & unchosen(&t.exhibits, Option::is_none)
            }
            Phase::Steals => t.steal_queue.first().map_or(0, |t| 1 << t.1),
            Phase::FinalExhibition => unchosen(&self.final_shown, Option::is_none),
        })
    }

    /// Action cards `seat` may play at `place` now.
    pub(super) fn playable_cards(&self, seat: usize, place: Place) -> Vec<ActionCard> {
        let mut cards = Vec::new();
        self.each_playable(seat, place, |c| cards.push(c));
        cards
    }

    /// [`Self::playable_cards`] without the list, each card handed to `f` in the list's order:
    /// its checks in value order, its thieves not in prison, the exhibit and the detective, those
    /// `check_card` allows at `place`. `check_card`'s tests are applied directly, each once: a
    /// check of the seat's own is always its own and is allowed only at the auction; a thief is
    /// allowed when it is the seat's ([`Self::thief_owner`], which a thief number shared by two
    /// seats can deny) and not in prison; the exhibit and the detective only at the castle, the
    /// exhibit only with a set ([`Self::may_hold_set`], asked once). No refusal is built. Equal to
    /// filtering every card through `check_card` (`playable_cards_are_what_check_card_allows`).
    fn each_playable(&self, seat: usize, place: Place, mut f: impl FnMut(ActionCard)) {
        let castle = place == Place::Castle;
        if !castle {
            for &v in &self.checks[seat] {
                f(ActionCard::Check(v));
            }
        }
        for (j, &n) in self.config.thieves[seat].iter().enumerate() {
            if self.thieves_owned[seat] >> j & 1 == 1 && !self.prison.contains(&n) {
                f(ActionCard::Thief(n));
            }
        }
        if castle {
            if self.may_hold_set(seat) {
                f(ActionCard::Exhibit);
            }
            f(ActionCard::Detective);
        }
    }

    /// The `k`-th of [`Self::playable_cards`], `k` chosen by `pick` from their number (called
    /// only when there is one or more), without the list ([`pick_walked`]).
    pub(super) fn pick_playable(
        &self,
        seat: usize,
        place: Place,
        pick: impl FnOnce(usize) -> usize,
    ) -> Option<ActionCard> {
        pick_walked(|p| self.each_playable(seat, place, |c| p.visit(c)), pick)
    }

    /// Whether [`Self::expected`] names `seat`, without building its list.
    fn awaits(&self, s: usize) -> bool {
        s < self.players && matches!(self.awaited(), Awaited::Seats(mask) if mask >> s & 1 == 1)
    }

    /// Sets `seat` may show, when its whole hand is known (service dealing, or every card
    /// learned); None when the hand holds unknown cards (not enumerable).
    fn enumerable_sets(&self, seat: usize) -> Option<Vec<Vec<Item>>> {
        (self.hand_sizes[seat] == self.hands[seat].len())
            .then(|| items::all_sets(&self.hands[seat], LEGAL_SETS_CAP))
    }

    /// [`crate::rules::Game::legal_pick`]: the `k`-th action of [`Self::legal`]'s list without
    /// building it: short lists are walked (counted, then the one picked taken), an exhibit is
    /// picked by counting the hand's sets and building only the one picked
    /// ([`items::pick_set`]).
    pub(super) fn pick_legal(
        &self,
        actor: Actor,
        pick: impl FnOnce(usize) -> usize,
    ) -> Option<Action> {
        let Actor::Seat(s) = actor else {
            return pick_from(self.legal(actor), pick);
        };
        if !self.awaits(s) {
            return None;
        }
        match self.phase {
            Phase::Locations if self.turn.locations[s].is_none() => pick_in(
                [Place::Castle, Place::Auction]
                    .into_iter()
                    .filter(|&p| self.can_play_at(s, p)),
                pick,
            )
            .map(|place| Action::Location { place }),
            Phase::Locations | Phase::Cards => {
                let place = self.turn.locations[s]?;
                self.pick_playable(s, place, pick)
                    .map(|card| Action::Choose { card })
            }
            Phase::Buy(_) => pick_in((0..2).filter(|&p| self.piles[p].size > 0), pick)
                .map(|pile| Action::Buy { pile }),
            Phase::Exhibits => {
                if self.hand_sizes[s] != self.hands[s].len() {
                    return None;
                }
                items::pick_set(&self.hands[s], LEGAL_SETS_CAP, pick)
                    .map(|cards| Action::Exhibit { cards })
            }
            Phase::Steals => {
                let owed = |from: &usize| {
                    !self.turn.stolen_from.contains(from)
                        && self.turn.display[*from]
                            .as_ref()
                            .is_some_and(|d| !d.is_empty())
                };
                let steals = (0..self.players).filter(owed).flat_map(|from| {
                    self.turn.display[from]
                        .iter()
                        .flatten()
                        .map(move |&card| (from, card))
                });
                pick_in(steals, pick).map(|(from, card)| Action::Steal { from, card })
            }
            _ => pick_from(self.legal(actor), pick),
        }
    }

    pub(super) fn legal(&self, actor: Actor) -> Vec<Action> {
        match actor {
            Actor::Table => {
                if self.phase == Phase::AwaitingDeal {
                    return vec![Action::Deal { pile_sizes: None }];
                }
                let (Some(_), Some(deck)) = (self.pending_reveal(), self.deck()) else {
                    // An open collection's cards are not enumerable.
                    return vec![];
                };
                let placed: BTreeSet<Item> =
                    self.card_places().into_iter().map(|(c, _)| c).collect();
                (0..2)
                    .filter(|&p| self.piles[p].size > 0 && self.piles[p].top.is_none())
                    .flat_map(|pile| {
                        deck.iter()
                            .filter(|c| !placed.contains(c))
                            .map(move |&card| Action::RevealPile { pile, card })
                            .collect::<Vec<_>>()
                    })
                    .collect()
            }
            Actor::Seat(s) if self.awaits(s) => match self.phase {
                Phase::Locations if self.turn.locations[s].is_none() => {
                    [Place::Castle, Place::Auction]
                        .into_iter()
                        .filter(|&p| self.can_play_at(s, p))
                        .map(|place| Action::Location { place })
                        .collect()
                }
                Phase::Locations | Phase::Cards => match self.turn.locations[s] {
                    Some(place) => self
                        .playable_cards(s, place)
                        .into_iter()
                        .map(|card| Action::Choose { card })
                        .collect(),
                    None => vec![],
                },
                Phase::Buy(_) => (0..2)
                    .filter(|&p| self.piles[p].size > 0)
                    .map(|pile| Action::Buy { pile })
                    .collect(),
                Phase::Exhibits => self
                    .enumerable_sets(s)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|cards| Action::Exhibit { cards })
                    .collect(),
                Phase::Steals => self
                    .owed_exhibits()
                    .into_iter()
                    .flat_map(|from| {
                        self.turn.display[from]
                            .iter()
                            .flatten()
                            .map(move |&card| Action::Steal { from, card })
                            .collect::<Vec<_>>()
                    })
                    .collect(),
                Phase::FinalExhibition => {
                    if self.hand_sizes[s] == self.hands[s].len() {
                        vec![Action::FinalExhibit {
                            cards: items::best_set(&self.hands[s]).unwrap_or_default(),
                        }]
                    } else {
                        vec![]
                    }
                }
                Phase::AwaitingDeal | Phase::Finished => vec![],
            },
            Actor::Seat(_) => vec![],
        }
    }
}

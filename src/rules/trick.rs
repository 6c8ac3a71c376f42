//! The one trick engine shared by Clubs, Bonus-Malus and Dump. Each game supplies its ranking as a
//! key function (a card that cannot win the trick has no key; the highest key wins), its following
//! rule as a list of suit groups ([`Duty`]) and its scoring; everything else about playing out a
//! deal lives here once ([`TrickPlay`]): whose turn it is, the hands in service dealing, played-card
//! uniqueness in table dealing, the following check, void inference and revoke flagging, trick
//! completion and the record of tricks taken.

use serde::Serialize;
use utoipa::ToSchema;

use super::{
    cards::{deal_from_seed, Card, CardSet, Seed, Suit, SuitSet},
    Dealing, ProblemFields,
};

/// One card laid to a trick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct Play {
    /// The seat that played it.
    pub seat: usize,
    /// The card, canonical notation.
    #[schema(value_type = String, example = "QS")]
    pub card: Card,
}

/// A trick in progress or complete.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, ToSchema)]
pub struct Trick {
    /// The plays in order; the first is the lead.
    pub plays: Vec<Play>,
}

impl Trick {
    /// The led card, if any.
    pub fn lead(&self) -> Option<Card> {
        self.plays.first().map(|p| p.card)
    }

    /// Whether every one of `players` seats has played.
    pub fn is_complete(&self, players: usize) -> bool {
        self.plays.len() == players
    }

    /// The seat due to play next, given the number of players.
    pub fn next_seat(&self, leader: usize, players: usize) -> usize {
        (leader + self.plays.len()) % players
    }

    /// Whether `seat` has played to this trick.
    pub fn has_played(&self, seat: usize) -> bool {
        self.plays.iter().any(|p| p.seat == seat)
    }

    /// The winning play under `key` (None: the card cannot win; ties go to the earlier card,
    /// which never happens with distinct cards and a sane key). The lead always has a key.
    pub fn winner_by(&self, key: impl Fn(Card) -> Option<u32>) -> Play {
        let mut best: Option<(u32, Play)> = None;
        for p in &self.plays {
            if let Some(k) = key(p.card) {
                if best.is_none_or(|(bk, _)| k > bk) {
                    best = Some((k, *p));
                }
            }
        }
        best.map(|(_, p)| p)
            .expect("the lead can always win a trick")
    }
}

/// A trick's plays, held inline: every trick game seats at most 4 (the same JSON list as a
/// `Vec`), so recording a trick allocates nothing.
pub type Plays = smallvec::SmallVec<[Play; 4]>;

/// A completed trick with the game's note about it (Dump: its points; Clubs: the called suit;
/// Bonus-Malus: the trump), flattened into the same JSON object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TrickRecord<N> {
    /// The cards in the order played.
    pub plays: Plays,
    /// The seat that won it (and leads next).
    pub winner: usize,
    /// What the game notes about the trick.
    #[serde(flatten)]
    pub note: N,
}

/// A play that broke the following rule, proven after the fact (table dealing).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct Revoke {
    /// Who revoked.
    pub seat: usize,
    /// The card that proved it: of a suit the seat had shown out of.
    #[schema(value_type = String, example = "9H")]
    pub card: Card,
    /// The trick number (1-based) in which the seat showed out of that suit.
    pub shown_out_in_trick: usize,
}

/// A game's following rule for the trick in progress: groups of suits in order of duty. A player
/// holding any card of the first group must play one of them; holding none, he must play from the
/// second group if he holds any of it; and so on; holding none of any group, he may play anything.
/// Dump: `[led suit]`. Clubs: `[called suit + clubs]` (`[clubs]` after clubs alone). Bonus-Malus:
/// `[led suit, trump]`. The lead itself has no duty (`&[]`).
pub type Duty<'a> = &'a [SuitSet];

/// A [`Duty`] of at most two groups held without a list (Dump's and Bonus-Malus's: it is worked
/// out at every play); it derefs to the groups.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Duties {
    groups: [SuitSet; 2],
    len: usize,
}

impl Duties {
    /// The rule with `suits` as its next group (a third group is not kept: no game has one).
    pub fn then(mut self, suits: SuitSet) -> Duties {
        if let Some(g) = self.groups.get_mut(self.len) {
            *g = suits;
            self.len += 1;
        }
        self
    }
}

impl std::ops::Deref for Duties {
    type Target = [SuitSet];

    fn deref(&self) -> &[SuitSet] {
        &self.groups[..self.len]
    }
}

/// Why the shared bookkeeping refused a play. Each game maps `MustFollow` to its own error
/// (with its own code and message naming its rule); the others pass through.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// Not this seat's turn (or no such seat).
    #[error("it is seat {expected_1}'s turn to play, not seat {got_1}'s", expected_1 = expected + 1, got_1 = got + 1)]
    NotYourTurn {
        /// The seat to play.
        expected: usize,
        /// The seat that played.
        got: usize,
    },
    /// The card is not in this game's deck.
    #[error("{0} is not in this game's deck")]
    NoSuchCard(Card),
    /// The card was played earlier in this deal.
    #[error("{0} has already been played in this deal")]
    CardAlreadyPlayed(Card),
    /// Service dealing: the seat was not dealt the card (or has played it).
    #[error("seat {seat_1} does not hold {card}", seat_1 = seat + 1)]
    CardNotInHand {
        /// The seat that played.
        seat: usize,
        /// The card played.
        card: Card,
    },
    /// Service dealing: the seat holds a card of duty group `tier` and played outside it.
    #[error("seat {seat_1} holds {} and must play {}", holding.one(), suits.names(), seat_1 = seat + 1)]
    MustFollow {
        /// The seat that played.
        seat: usize,
        /// The card played.
        card: Card,
        /// Which group of the [`Duty`] was broken (0 = the first).
        tier: usize,
        /// That group's suits.
        suits: SuitSet,
        /// A suit of the group the seat holds.
        holding: Suit,
    },
}

impl PlayError {
    /// The stable machine code (`MustFollow` is normally mapped by the game first).
    pub fn code(&self) -> &'static str {
        match self {
            PlayError::NotYourTurn { .. } => "not_your_turn",
            PlayError::NoSuchCard(_) => "no_such_card",
            PlayError::CardAlreadyPlayed(_) => "card_already_played",
            PlayError::CardNotInHand { .. } => "card_not_in_hand",
            PlayError::MustFollow { .. } => "must_follow_suit",
        }
    }

    /// The refusal's structured facts (see [`super::RuleError::fields`]): the seat, the card;
    /// for `MustFollow`, the suit it holds and had to play.
    pub fn fields(&self) -> ProblemFields {
        match *self {
            PlayError::NotYourTurn { expected, got } => ProblemFields::turn(expected, got),
            PlayError::NoSuchCard(c) | PlayError::CardAlreadyPlayed(c) => ProblemFields::card(c),
            PlayError::CardNotInHand { seat, card } => ProblemFields::seat(seat).with_card(card),
            PlayError::MustFollow {
                seat,
                card,
                holding,
                ..
            } => ProblemFields::seat(seat).with_card(card).with_suit(holding),
        }
    }

    /// Whether the seat's hidden hand decided the refusal (see [`super::RuleError::hidden`]): a
    /// card it does not hold, or the following rule applied to its hand. A game whose hands'
    /// suits are public (Bonus-Malus: the backs show them) maps `MustFollow` to a public error.
    pub fn hidden(&self) -> bool {
        matches!(
            self,
            PlayError::CardNotInHand { .. } | PlayError::MustFollow { .. }
        )
    }
}

/// Why a deal could not take the seed it was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeedProblem {
    /// Service dealing needs the service's shuffle seed.
    Missing,
    /// Table dealing takes no seed.
    NotTaken,
}

/// A service deal: the hands by seat and the undealt rest, top first.
pub type ServiceDeal = (Vec<CardSet>, Vec<Card>);

/// A service deal (the hands by seat and the undealt rest, top first) from the seed, or `None`
/// in table dealing. `deck` is shuffled with [`crate::rules::cards::shuffled`] and dealt one at a
/// time from the seat left of `dealer`.
pub fn service_deal(
    dealing: Dealing,
    seed: Option<&Seed>,
    deck: CardSet,
    players: usize,
    per_hand: usize,
    dealer: usize,
) -> Result<Option<ServiceDeal>, SeedProblem> {
    match (dealing, seed) {
        (Dealing::Service, Some(seed)) => {
            Ok(Some(deal_from_seed(deck, seed, players, per_hand, dealer)))
        }
        (Dealing::Service, None) => Err(SeedProblem::Missing),
        (Dealing::Table, Some(_)) => Err(SeedProblem::NotTaken),
        (Dealing::Table, None) => Ok(None),
    }
}

/// The playing out of one deal, shared by the trick games: the turn, the hands (service dealing:
/// every play is checked against them) or the cards seen so far (table dealing: a card can be
/// seen once; showing out of a suit is remembered, and a later play of it is flagged as a
/// revoke), the trick in progress and the tricks taken.
#[derive(Clone, Debug)]
pub struct TrickPlay<N> {
    players: usize,
    deck: CardSet,
    leader: usize,
    hands: Option<Vec<CardSet>>,
    played: CardSet,
    trick: Trick,
    tricks: Vec<TrickRecord<N>>,
    /// Table dealing: per seat and suit, the trick (1-based) in which the seat showed out of it.
    shown_out: Vec<[Option<usize>; 4]>,
    revokes: Vec<Revoke>,
}

impl<N> TrickPlay<N> {
    /// A deal of `deck` among `players`, `leader` to lead; `hands` in service dealing.
    pub fn new(
        players: usize,
        deck: CardSet,
        leader: usize,
        hands: Option<Vec<CardSet>>,
    ) -> TrickPlay<N> {
        TrickPlay {
            players,
            deck,
            leader,
            hands,
            played: CardSet::EMPTY,
            trick: Trick::default(),
            // Every trick of the deal, reserved once.
            tricks: Vec::with_capacity(deck.len().div_ceil(players.max(1))),
            shown_out: vec![[None; 4]; players],
            revokes: Vec::new(),
        }
    }

    /// Who leads (or led) the trick in progress.
    pub fn leader(&self) -> usize {
        self.leader
    }

    /// Sets who leads the trick in progress; only before its lead (Clubs: in table dealing the
    /// holder of 2♣ shows himself by leading it).
    pub fn set_leader(&mut self, seat: usize) {
        if self.trick.plays.is_empty() && seat < self.players {
            self.leader = seat;
        }
    }

    /// The seat due to play.
    pub fn to_play(&self) -> usize {
        self.trick.next_seat(self.leader, self.players)
    }

    /// Whether the hands are known (service dealing).
    pub fn hands(&self) -> Option<&[CardSet]> {
        self.hands.as_deref()
    }

    /// The seat's hand, in service dealing.
    pub fn hand(&self, seat: usize) -> Option<CardSet> {
        self.hands.as_ref().and_then(|h| h.get(seat).copied())
    }

    /// Every card played so far in this deal.
    pub fn played(&self) -> CardSet {
        self.played
    }

    /// The deck of this deal.
    pub fn deck(&self) -> CardSet {
        self.deck
    }

    /// The trick in progress.
    pub fn trick(&self) -> &Trick {
        &self.trick
    }

    /// The completed tricks.
    pub fn tricks(&self) -> &[TrickRecord<N>] {
        &self.tricks
    }

    /// The number (1-based) of the trick in progress.
    pub fn trick_number(&self) -> usize {
        self.tricks.len() + 1
    }

    /// The revokes flagged so far (table dealing).
    pub fn revokes(&self) -> &[Revoke] {
        &self.revokes
    }

    /// The suit the seat is known to be out of (table dealing), by the trick it showed out in.
    pub fn shown_out(&self, seat: usize, suit: Suit) -> Option<usize> {
        self.shown_out.get(seat).and_then(|s| s[suit as usize])
    }

    /// The cards a seat could be holding: its hand (service dealing), or every card of the deck
    /// not yet seen (table dealing).
    pub fn candidates(&self, seat: usize) -> CardSet {
        match &self.hands {
            Some(h) => h.get(seat).copied().unwrap_or_default(),
            None => self.deck.difference(self.played),
        }
    }

    /// The cards of [`TrickPlay::candidates`] that [`TrickPlay::check`] accepts for `seat`
    /// under `duty`, worked out on the sets at once instead of card by card: nothing when it is
    /// not the seat's turn; else the unplayed cards of the deck it may hold, and in service
    /// dealing only those of the duty groups up to the first one its hand holds a suit of.
    pub fn legal(&self, seat: usize, duty: Duty) -> CardSet {
        if seat != self.to_play() {
            return CardSet::EMPTY;
        }
        let cards = self
            .candidates(seat)
            .intersection(self.deck)
            .difference(self.played);
        let Some(hands) = &self.hands else {
            return cards;
        };
        // `check_duty`: a card passes at the first group holding its suit, and fails at an
        // earlier group the hand holds a suit of.
        let hand = hands[seat];
        let mut allowed = SuitSet::EMPTY;
        for suits in duty {
            allowed = allowed.union(*suits);
            if !hand.of_suits(*suits).is_empty() {
                return cards.of_suits(allowed);
            }
        }
        cards
    }

    /// Checks a play by `seat` under `duty` without changing anything: the public checks
    /// ([`TrickPlay::check_public`]), then the hand or the revoke ([`TrickPlay::check_holding`]),
    /// then the following rule ([`TrickPlay::check_duty`]). Returns the revoke the play proves,
    /// if any (table dealing).
    pub fn check(&self, seat: usize, card: Card, duty: Duty) -> Result<Option<Revoke>, PlayError> {
        self.check_public(seat, card)?;
        let revoke = self.check_holding(seat, card)?;
        self.check_duty(seat, card, duty)?;
        Ok(revoke)
    }

    /// What anyone at the table can check: the turn, the deck, a card already played in this
    /// deal. A refusal here is the same whatever the seat's hand holds, so a game makes its own
    /// public checks after these and before [`TrickPlay::check_holding`] (issue 20: neither the
    /// code nor the order of the checks may tell anyone but the seat whether it holds a card).
    pub fn check_public(&self, seat: usize, card: Card) -> Result<(), PlayError> {
        let expected = self.to_play();
        if seat != expected {
            return Err(PlayError::NotYourTurn {
                expected,
                got: seat,
            });
        }
        if !self.deck.contains(card) {
            return Err(PlayError::NoSuchCard(card));
        }
        if self.played.contains(card) {
            return Err(PlayError::CardAlreadyPlayed(card));
        }
        Ok(())
    }

    /// Service dealing: the seat holds the card. Table dealing: the revoke the play proves, if
    /// any (a play of a suit the seat showed out of earlier, accepted as it happened at the table
    /// and flagged: API.md "Dealing").
    pub fn check_holding(&self, seat: usize, card: Card) -> Result<Option<Revoke>, PlayError> {
        match &self.hands {
            Some(hands) if !hands[seat].contains(card) => {
                Err(PlayError::CardNotInHand { seat, card })
            }
            Some(_) => Ok(None),
            None => Ok(
                self.shown_out[seat][card.suit() as usize].map(|trick| Revoke {
                    seat,
                    card,
                    shown_out_in_trick: trick,
                }),
            ),
        }
    }

    /// Service dealing: the following rule against the hand (holding a card of a duty group, the
    /// seat plays one of them). Table dealing checks nothing here: a broken duty is flagged as a
    /// revoke once proven.
    pub fn check_duty(&self, seat: usize, card: Card, duty: Duty) -> Result<(), PlayError> {
        let Some(hands) = &self.hands else {
            return Ok(());
        };
        for (tier, suits) in duty.iter().enumerate() {
            if suits.contains(card.suit()) {
                break;
            }
            // The first suit (canonical order) of the group the hand holds: its lowest card's.
            if let Some(held) = hands[seat].of_suits(*suits).iter().next() {
                let holding = held.suit();
                return Err(PlayError::MustFollow {
                    seat,
                    card,
                    tier,
                    suits: *suits,
                    holding,
                });
            }
        }
        Ok(())
    }

    /// Records a play that [`TrickPlay::check`] accepted (with the revoke it returned): in table
    /// dealing, a play outside a duty group shows the seat out of every suit of that group.
    pub fn record(&mut self, seat: usize, card: Card, duty: Duty, revoke: Option<Revoke>) {
        if self.hands.is_none() {
            let trick_no = self.trick_number();
            for suits in duty {
                if suits.contains(card.suit()) {
                    break;
                }
                for s in suits.to_vec() {
                    self.shown_out[seat][s as usize].get_or_insert(trick_no);
                }
            }
        }
        if let Some(r) = revoke {
            self.revokes.push(r);
        }
        if let Some(h) = self.hands.as_mut() {
            h[seat].remove(card);
        }
        self.played.insert(card);
        self.trick.plays.push(Play { seat, card });
    }

    /// When every seat has played to the trick in progress: resolves it under `key` (see
    /// [`Trick::winner_by`]), records it with the game's `note` and makes the winner the leader.
    pub fn complete(
        &mut self,
        key: impl Fn(Card) -> Option<u32>,
        note: impl FnOnce(&Trick, usize) -> N,
    ) -> Option<&TrickRecord<N>> {
        if !self.trick.is_complete(self.players) {
            return None;
        }
        let winner = self.trick.winner_by(key).seat;
        let note = note(&self.trick, winner);
        // The trick's list is kept (cleared) for the next trick, so neither allocates.
        let plays = Plays::from_slice(&self.trick.plays);
        self.trick.plays.clear();
        self.tricks.push(TrickRecord {
            plays,
            winner,
            note,
        });
        self.leader = winner;
        self.tricks.last()
    }

    /// Service dealing: `seat` takes `card` into his hand (Bonus-Malus draws).
    pub fn give(&mut self, seat: usize, card: Card) {
        if let Some(h) = self.hands.as_mut().and_then(|h| h.get_mut(seat)) {
            h.insert(card);
        }
    }

    /// Table dealing: `seat` took an unseen card, of `suit` if known, so what he showed out of
    /// may no longer hold (all of it when the suit is unknown).
    pub fn forget_shown_out(&mut self, seat: usize, suit: Option<Suit>) {
        if let Some(s) = self.shown_out.get_mut(seat) {
            match suit {
                Some(suit) => s[suit as usize] = None,
                None => *s = [None; 4],
            }
        }
    }

    /// The cards each seat has taken in its tricks.
    pub fn taken(&self) -> Vec<CardSet> {
        let mut taken = vec![CardSet::EMPTY; self.players];
        for t in &self.tricks {
            for p in &t.plays {
                taken[t.winner].insert(p.card);
            }
        }
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::cards::full_deck;

    fn trick(cards: &[&str]) -> Trick {
        Trick {
            plays: cards
                .iter()
                .enumerate()
                .map(|(i, c)| Play {
                    seat: i,
                    card: c.parse().unwrap(),
                })
                .collect(),
        }
    }

    fn card(s: &str) -> Card {
        s.parse().unwrap()
    }

    #[test]
    fn highest_of_the_led_suit_wins_without_trumps() {
        let t = trick(&["7H", "AS", "9H", "2H"]);
        let led = t.lead().unwrap().suit();
        let w = t.winner_by(|c| (c.suit() == led).then_some(c.rank() as u32));
        assert_eq!(w.seat, 2);
    }

    #[test]
    fn showing_out_of_a_duty_group_is_remembered_and_a_later_play_of_it_flagged() {
        let mut tp: TrickPlay<()> = TrickPlay::new(3, full_deck(), 0, None);
        let both = [SuitSet::of(&[Suit::H, Suit::C])];
        for (seat, c, duty) in [(0, "7H", &[][..]), (1, "2C", &both), (2, "3S", &both)] {
            let r = tp.check(seat, card(c), duty).unwrap();
            assert_eq!(r, None);
            tp.record(seat, card(c), duty, r);
        }
        assert!(tp.complete(|c| Some(c.rank() as u32), |_, _| ()).is_some());
        assert_eq!(tp.shown_out(2, Suit::H), Some(1));
        assert_eq!(tp.shown_out(2, Suit::C), Some(1));
        assert_eq!(tp.shown_out(1, Suit::H), None);
        assert_eq!(tp.to_play(), 0, "7H ranks highest under this key");
        assert_eq!(
            tp.check(0, card("7H"), &[]),
            Err(PlayError::CardAlreadyPlayed(card("7H")))
        );
        tp.record(0, card("8S"), &[], None);
        tp.record(1, card("9S"), &[SuitSet::of(&[Suit::S])], None);
        let r = tp.check(2, card("5C"), &[SuitSet::of(&[Suit::S])]).unwrap();
        assert_eq!(
            r,
            Some(Revoke {
                seat: 2,
                card: card("5C"),
                shown_out_in_trick: 1
            })
        );
        tp.forget_shown_out(2, Some(Suit::C));
        assert_eq!(tp.check(2, card("5C"), &[]).unwrap(), None);
    }

    #[test]
    fn the_legal_set_is_what_check_accepts_card_by_card() {
        use crate::rules::cards::Seed;
        let groups = [
            SuitSet::of(&[Suit::H]),
            SuitSet::of(&[Suit::S, Suit::C]),
            SuitSet::of(&[Suit::C]),
            SuitSet::of(&[Suit::D, Suit::H]),
        ];
        for k in 0u8..30 {
            let seed = Seed([k; 32]);
            for hands in [Some(deal_from_seed(full_deck(), &seed, 4, 13, 0).0), None] {
                let mut tp: TrickPlay<()> = TrickPlay::new(4, full_deck(), 0, hands);
                // A few cards played first, whatever the rule, so the sets are partial.
                for seat in 0..3 {
                    let card = tp.candidates(seat).iter().nth(usize::from(k) % 7).unwrap();
                    tp.record(seat, card, &[], None);
                }
                for duty in [
                    &[][..],
                    &groups[..1],
                    &groups[1..3],
                    &[groups[k as usize % 4], groups[(k as usize + 1) % 4]],
                ] {
                    for seat in 0..4 {
                        let by_card: CardSet = full_deck()
                            .iter()
                            .filter(|c| tp.check(seat, *c, duty).is_ok())
                            .collect();
                        assert_eq!(tp.legal(seat, duty), by_card, "seed {k}, seat {seat}");
                    }
                }
            }
        }
    }

    #[test]
    fn service_dealing_checks_the_hand_and_each_duty_group_in_order() {
        let hands = vec![
            ["2H", "3S"].iter().map(|c| card(c)).collect(),
            ["4H", "5D", "6S"].iter().map(|c| card(c)).collect(),
        ];
        let tp: TrickPlay<()> = TrickPlay::new(2, full_deck(), 0, Some(hands));
        assert_eq!(
            tp.check(1, card("4H"), &[]),
            Err(PlayError::NotYourTurn {
                expected: 0,
                got: 1
            })
        );
        assert_eq!(
            tp.check(0, card("AH"), &[]),
            Err(PlayError::CardNotInHand {
                seat: 0,
                card: card("AH")
            })
        );
        let mut tp = tp;
        tp.record(0, card("3S"), &[], None);
        let duty = [SuitSet::of(&[Suit::C]), SuitSet::of(&[Suit::S])];
        assert_eq!(
            tp.check(1, card("4H"), &duty).unwrap_err().to_string(),
            "seat 2 holds a spade and must play spades"
        );
        assert!(tp.check(1, card("6S"), &duty).is_ok());
    }
}

//! The one trick resolver shared by Clubs, Bonus-Malus and Dump. Each game supplies its ranking
//! as a key function (a card that cannot win the trick has no key; the highest key wins) and its
//! own following rule; everything else about a trick lives here once.

use serde::Serialize;
use utoipa::ToSchema;

use super::cards::Card;

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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn highest_of_the_led_suit_wins_without_trumps() {
        let t = trick(&["7H", "AS", "9H", "2H"]);
        let led = t.lead().unwrap().suit();
        let w = t.winner_by(|c| (c.suit() == led).then_some(c.rank() as u32));
        assert_eq!(w.seat, 2);
    }
}

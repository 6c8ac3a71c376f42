//! Views, the log as each viewer sees it, and the score sheet. Nothing sealed leaves here before
//! its reveal except to the seat that chose it.

use serde_json::{json, Value};

use super::{
    actions::{Action, Place},
    items::{self, Item},
    ByHookOrCrook, Phase,
};
use crate::rules::{
    sheet::{RoundScore, ScoreSheet, Unit},
    Actor,
};

fn sorted(cards: impl IntoIterator<Item = Item>) -> Vec<Item> {
    let mut v: Vec<Item> = cards.into_iter().collect();
    v.sort();
    v
}

impl ByHookOrCrook {
    fn phase_name(&self) -> &'static str {
        if self.pending_reveal().is_some() {
            return "reveal_pile";
        }
        match self.phase {
            Phase::AwaitingDeal => "awaiting_deal",
            Phase::Locations => "locations",
            Phase::Cards => "cards",
            Phase::Buy(_) => "buy",
            Phase::Exhibits => "exhibits",
            Phase::Steals => "steals",
            Phase::FinalExhibition => "final_exhibition",
            Phase::Finished => "finished",
        }
    }

    pub(super) fn public_view(&self) -> Value {
        let n = self.players;
        let t = &self.turn;
        let alternate_open = self.players == 2
            && self.config.two_player == super::TwoPlayer::Alternate
            && self.phase == Phase::Locations;
        let locations: Vec<Option<Place>> = if t.locations_public || alternate_open {
            t.locations.clone()
        } else {
            vec![None; n]
        };
        let cards = if t.cards_public {
            t.cards.clone()
        } else {
            vec![None; n]
        };
        let mut prison: Vec<Value> = self
            .prison
            .iter()
            .map(|&thief| json!({"thief": thief, "seat": self.thief_owner(thief)}))
            .collect();
        prison.resize(n, Value::Null);
        let piles: Vec<Value> = self
            .piles
            .iter()
            .map(|p| json!({"top": p.top, "size": p.size}))
            .collect();
        let lead = self.positions.iter().copied().max().unwrap_or(0);
        let castle = self.config.board.castle_at(lead);
        let c = self.config.board.castles[castle];
        let exhibits: Vec<Value> = (0..n)
            .filter_map(|s| {
                t.shown.get(s).and_then(|x| x.as_ref()).map(|shown| {
                    json!({
                        "seat": s,
                        "cards": shown,
                        "on_display": t.display.get(s).and_then(|d| d.as_ref()).map(|d| sorted(d.iter().copied())),
                    })
                })
            })
            .collect();
        let exhibitors: Vec<usize> = if t.cards_public {
            (0..n)
                .filter(|&s| {
                    t.locations[s] == Some(Place::Castle)
                        && t.cards[s] == Some(super::ActionCard::Exhibit)
                })
                .collect()
        } else {
            vec![]
        };
        let steal = match (self.phase, t.steal_queue.first()) {
            (Phase::Steals, Some(&(thief, seat))) => {
                json!({"thief": thief, "seat": seat, "from": self.owed_exhibits()})
            }
            _ => Value::Null,
        };
        let auction = t.auction.as_ref().map(|a| {
            json!({
                "checks": a.bids.iter().map(|b| json!({"seat": b.0, "check": b.1})).collect::<Vec<_>>(),
                "thieves": a.thieves.iter().map(|b| json!({"seat": b.0, "thief": b.1})).collect::<Vec<_>>(),
                "winner": a.winner.map(|w| w.0),
                "check": a.winner.map(|w| w.1),
                "bought": a.bought.map(|b| json!({"pile": b.0, "card": b.1})),
                "check_stolen_by": a.check_to,
                "result": a.note,
            })
        });
        let thefts: Vec<Value> = t
            .thefts
            .iter()
            .map(|x| json!({"thief": x.thief, "seat": x.seat, "from": x.from, "card": x.card}))
            .collect();
        let final_view = self.final_record.as_ref().map(|f| {
            json!({
                "exhibits": f.shown,
                "ranking": f.ranking,
                "advances": f.advances,
            })
        });
        let (winners, margin) = match &self.final_record {
            Some(f) => (f.winners.clone(), Some(f.margin)),
            None => (vec![], None),
        };
        let in_turn = !matches!(
            self.phase,
            Phase::AwaitingDeal | Phase::FinalExhibition | Phase::Finished
        );
        json!({
            "phase": self.phase_name(),
            "turn": if self.phase == Phase::AwaitingDeal { 0 } else { t.number },
            "positions": self.positions,
            "piles": piles,
            "prison": prison,
            "register": self.register,
            "checks": self.checks,
            "thieves": (0..n).map(|s| self.free_thieves(s)).collect::<Vec<_>>(),
            "hand_sizes": self.hand_sizes,
            "known_cards": self.public.iter().map(|h| sorted(h.iter().copied())).collect::<Vec<_>>(),
            "leader_castle": {"castle": castle + 1, "upper": c.upper, "lower": c.lower},
            "pink_from": self.config.board.pink_from,
            "end_triggered": self.end_triggered,
            "waiting_for": self.expected().seats,
            "locations": if in_turn { json!(locations) } else { json!(vec![Value::Null; n]) },
            "cards": if in_turn { json!(cards) } else { json!(vec![Value::Null; n]) },
            "auction": auction,
            "exhibitors": exhibitors,
            "exhibits": exhibits,
            "ranking": t.ranking,
            "steal": steal,
            "thefts": thefts,
            "last_turn": self.records.last().map(|r| r.summary.clone()),
            "final": final_view,
            "winners": winners,
            "margin": margin,
            "dealing": self.dealing,
            "commitment": self.commitment,
        })
    }

    pub(super) fn private_view(&self, seat: usize) -> Value {
        if seat >= self.players {
            return Value::Null;
        }
        let t = &self.turn;
        let hand = sorted(self.hands[seat].iter().copied());
        let best = items::best_set(&self.hands[seat]);
        let can_go: Vec<Place> = if self.phase == Phase::AwaitingDeal {
            vec![]
        } else {
            [Place::Castle, Place::Auction]
                .into_iter()
                .filter(|&p| self.can_play_at(seat, p))
                .collect()
        };
        let location = t.locations.get(seat).copied().flatten();
        let playable = match (self.phase, location) {
            (Phase::Locations | Phase::Cards, Some(place)) => {
                json!(self.playable_cards(seat, place))
            }
            _ => Value::Null,
        };
        json!({
            "hand": hand,
            "hand_size": self.hand_sizes[seat],
            "unknown_cards": self.hand_sizes[seat].saturating_sub(self.hands[seat].len()),
            "best_set": best,
            "checks": self.checks[seat],
            "thieves": self.free_thieves(seat),
            "position": self.positions[seat],
            "location": location,
            "card": t.cards.get(seat).copied().flatten(),
            "exhibit": t.exhibits.get(seat).cloned().flatten(),
            "final_exhibit": self.final_shown.get(seat).cloned().flatten(),
            "can_go": can_go,
            "playable": playable,
        })
    }

    pub(super) fn render(
        &self,
        index: usize,
        action: &Action,
        actor: Actor,
        viewer: Option<usize>,
    ) -> Value {
        if let Actor::Seat(s) = actor {
            if viewer != Some(s) && self.hidden.contains(&(index, s)) {
                return json!({"type": action.type_name(), "sealed": true});
            }
        }
        serde_json::to_value(action).unwrap_or(Value::Null)
    }

    pub(super) fn sheet(&self) -> ScoreSheet {
        let mut rounds: Vec<RoundScore> = self
            .records
            .iter()
            .map(|r| RoundScore {
                round: r.number,
                label: format!("Turn {}", r.number),
                multiplier: 1,
                points: r.advances.iter().map(|&a| a as i64).collect(),
                detail: r.detail.clone(),
            })
            .collect();
        if let Some(f) = &self.final_record {
            rounds.push(RoundScore {
                round: self.records.len() as u32 + 1,
                label: "Final exhibition".into(),
                multiplier: 1,
                points: f.advances.iter().map(|&a| a as i64).collect(),
                detail: json!({"exhibits": f.shown, "ranking": f.ranking}),
            });
        }
        let finished = self.phase == Phase::Finished;
        // The sheet holds finished turns only; `table.positions` shows the pawns mid-turn.
        let totals: Vec<i64> = (0..self.players)
            .map(|s| rounds.iter().map(|r| r.points[s]).sum())
            .collect();
        let (winners, margin) = match &self.final_record {
            Some(f) => (f.winners.clone(), Some(f.margin)),
            None => (vec![], None),
        };
        ScoreSheet {
            unit: Unit::Seat,
            sides: None,
            rounds,
            totals,
            finished,
            winners,
            margin,
        }
    }
}

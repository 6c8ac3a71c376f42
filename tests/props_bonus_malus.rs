//! Property tests for Bonus-Malus: random legal playouts of whole matches for 2, 3 and 4 players in
//! both dealing modes terminate, every deal's values sum to 0 (3 players: with the card set
//! aside), the cards are conserved, `legal_actions` ⇔ `apply` accepts, and replaying the accepted
//! actions gives the live state.

mod trick_props;

use clubroom::rules::{
    bonus_malus::{suit_value, Action, BonusMalus, BonusMalusConfig, SuitCounts},
    cards::{full_deck, Card, Suit},
    Actor, Dealing, Game,
};
use proptest::prelude::*;
use trick_props::{Playout, Rng};

/// Every action a seat or the table could send (tallies aside).
fn universe() -> Vec<Action> {
    let mut u = vec![Action::Deal { trump: None }];
    for s in Suit::ALL {
        u.push(Action::Deal { trump: Some(s) });
        u.push(Action::StockTop { suit: s });
    }
    for card in full_deck().iter() {
        u.push(Action::Play { card });
    }
    u
}

fn add(t: &mut SuitCounts, c: Card) {
    match c.suit() {
        Suit::S => t.s += 1,
        Suit::H => t.h += 1,
        Suit::D => t.d += 1,
        Suit::C => t.c += 1,
    }
}

/// A tally a table could record: the deck in whole tricks to random winners (3 players: the
/// odd card set aside).
fn random_tally(players: usize, rng: &mut Rng) -> Vec<SuitCounts> {
    let sides = if players == 4 { 2 } else { players };
    let mut taken = vec![SuitCounts::default(); sides];
    let mut cards: Vec<Card> = full_deck().to_vec();
    for i in (1..cards.len()).rev() {
        cards.swap(i, rng.below(i + 1));
    }
    for trick in cards.chunks(players).filter(|t| t.len() == players) {
        let side = rng.below(sides);
        for c in trick {
            add(&mut taken[side], *c);
        }
    }
    taken
}

/// The cards are conserved: in hands (or held, by count) + played + stock + set aside = 52.
fn assert_cards_conserved(p: &Playout<BonusMalus>) {
    let table = p.game.table_view();
    if table["phase"] == "awaiting_deal" || table["phase"] == "finished" {
        return;
    }
    let held: u64 = table["cards_left"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    let played = (table["tricks"].as_array().unwrap().len() * p.players
        + table["trick"].as_array().unwrap().len()) as u64;
    let stock = table["stock"].as_u64().unwrap();
    let set_aside = u64::from(table["set_aside"] == true);
    assert_eq!(held + played + stock + set_aside, 52, "{table}");
    if p.dealing == Dealing::Service {
        let in_hands: u64 = (0..p.players)
            .map(|s| p.game.seat_view(s)["hand"].as_array().unwrap().len() as u64)
            .sum();
        assert_eq!(in_hands, held);
        assert_eq!(table["trump"].is_null(), stock == 0);
    }
}

fn play_match(players: usize, dealing: Dealing, seed: u64, target: i64) {
    let mut rng = Rng::new(seed);
    let config = BonusMalusConfig {
        target,
        first_dealer: rng.below(players),
        ..BonusMalusConfig::default()
    };
    let mut p: Playout<BonusMalus> = Playout::new(config, players, dealing);
    let mut steps = 0;
    loop {
        if dealing == Dealing::Table
            && p.game.table_view()["phase"] == "awaiting_deal"
            && rng.below(4) == 0
        {
            let taken = random_tally(players, &mut rng);
            p.apply(
                Actor::Table,
                Action::Tally {
                    taken: Some(taken),
                    points: None,
                },
                &mut rng,
            );
            continue;
        }
        if !p.step(&mut rng) {
            break;
        }
        assert_cards_conserved(&p);
        steps += 1;
        assert!(steps < 50_000, "the match does not end");
    }
    let sheet = p.game.score_sheet();
    assert!(sheet.finished);
    for (i, r) in sheet.rounds.iter().enumerate() {
        assert_eq!(r.multiplier, i as i64 + 1);
        let values: Vec<i64> = r.detail["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        let set_aside = r.detail["set_aside_suit"].as_str().map_or(0, |s| {
            suit_value(format!("2{s}").parse::<Card>().unwrap().suit())
        });
        assert_eq!(
            values.iter().sum::<i64>() + set_aside,
            0,
            "round {}",
            r.round
        );
        if players == 3 {
            assert_ne!(r.detail["set_aside_suit"], serde_json::Value::Null);
            if r.detail["tallied"] == false {
                let card: Card = r.detail["set_aside"].as_str().unwrap().parse().unwrap();
                assert_eq!(r.detail["set_aside_suit"], card.suit().to_string());
            }
        }
        for (v, pts) in values.iter().zip(&r.points) {
            assert_eq!(*pts, (*v).max(0) * r.multiplier);
        }
    }
    assert!(sheet.totals.iter().any(|&t| t >= target));
    p.assert_replay_equals_live();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn random_matches_end_and_every_deal_sums_to_zero(
        players in 2usize..=4,
        service in any::<bool>(),
        seed in any::<u64>(),
        target in prop_oneof![Just(155i64), 1i64..400],
    ) {
        let dealing = if service { Dealing::Service } else { Dealing::Table };
        play_match(players, dealing, seed, target);
    }

    #[test]
    fn legal_actions_are_exactly_what_apply_accepts(
        players in 2usize..=4,
        service in any::<bool>(),
        seed in any::<u64>(),
        stop in 0usize..90,
    ) {
        let dealing = if service { Dealing::Service } else { Dealing::Table };
        let mut rng = Rng::new(seed);
        let mut p: Playout<BonusMalus> = Playout::new(BonusMalusConfig::default(), players, dealing);
        // Checked at the start, at a random point of the first deal, and a little further on.
        p.assert_legal_iff_accepted_along(&universe(), &mut rng, stop, (stop % 5) + 1);
    }
}

//! Property tests for Clubs: random legal playouts of whole matches for 3 and 4 players in both
//! dealing modes terminate, every deal sums to −26, the cards are conserved, `legal_actions` ⇔
//! `apply` accepts, and replaying the accepted actions gives the live state.

mod trick_props;

use clubroom::rules::{
    cards::{full_deck, Suit},
    clubs::{Action, Clubs, ClubsConfig, Taken, DEAL_SUM},
    Actor, Dealing, Game,
};
use proptest::prelude::*;
use serde_json::Value;
use trick_props::{Playout, Rng};

/// Every action a seat or the table could send (tallies aside).
fn universe() -> Vec<Action> {
    let mut u = vec![Action::Deal {}];
    for card in full_deck().iter() {
        u.push(Action::Play {
            card,
            declare: None,
        });
        for s in Suit::ALL {
            u.push(Action::Play {
                card,
                declare: Some(s),
            });
        }
    }
    u
}

/// A tally a table could record: the deck dealt out in whole tricks to random winners.
fn random_tally(players: usize, rng: &mut Rng) -> Vec<Taken> {
    let mut taken = vec![Taken::default(); players];
    let mut cards: Vec<_> = full_deck().to_vec();
    for i in (1..cards.len()).rev() {
        cards.swap(i, rng.below(i + 1));
    }
    // With 3 players the last chunk is the face-down card, going to the last trick's winner.
    let mut winner = 0;
    for trick in cards.chunks(players) {
        if trick.len() == players {
            winner = rng.below(players);
        }
        for c in trick {
            add(&mut taken[winner], *c);
        }
    }
    taken
}

fn add(t: &mut Taken, c: clubroom::rules::cards::Card) {
    t.cards += 1;
    if c.suit() == Suit::C {
        if c.rank() == 11 {
            t.jack = true;
        } else {
            t.clubs += 1;
        }
    }
}

/// The cards are conserved: hands (service dealing) plus cards played plus the face-down card.
fn assert_cards_conserved(p: &Playout<Clubs>) {
    let table = p.game.table_view();
    if table["phase"] != "playing" || p.dealing != Dealing::Service {
        return;
    }
    let in_hands: usize = (0..p.players)
        .map(|s| p.game.seat_view(s)["hand"].as_array().unwrap().len())
        .sum();
    let in_tricks: usize = table["tricks"].as_array().unwrap().len() * p.players
        + table["trick"].as_array().unwrap().len();
    let face_down = usize::from(p.players == 3);
    assert_eq!(in_hands + in_tricks + face_down, 52, "{table}");
    let left: usize = table["cards_left"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .sum();
    assert_eq!(left, in_hands);
}

fn play_match(players: usize, dealing: Dealing, seed: u64, tally_every: usize) {
    let mut rng = Rng::new(seed);
    let mut p: Playout<Clubs> = Playout::new(ClubsConfig::default(), players, dealing);
    let mut steps = 0;
    loop {
        // Now and then the table records a whole deal as a tally instead (table dealing).
        if dealing == Dealing::Table
            && tally_every > 0
            && p.game.to_act().table
            && rng.below(tally_every) == 0
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
        assert!(steps < 20_000, "the match does not end");
    }
    let sheet = p.game.score_sheet();
    assert!(sheet.finished);
    for r in &sheet.rounds {
        assert_eq!(r.points.iter().sum::<i64>(), DEAL_SUM, "round {}", r.round);
        let cards: u64 = r.detail["taken"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["cards"].as_u64().unwrap())
            .sum();
        assert_eq!(cards, 52);
    }
    let totals: Vec<i64> = sheet.totals.clone();
    assert!(totals.iter().any(|&t| t <= -100));
    // Before the last deal nobody was at −100 or below.
    let before: Vec<i64> = totals
        .iter()
        .zip(&sheet.rounds.last().unwrap().points)
        .map(|(t, p)| t - p)
        .collect();
    assert!(before.iter().all(|&t| t > -100));
    let best = *totals.iter().max().unwrap();
    assert!(sheet.winners.iter().all(|&w| totals[w] == best));
    assert!(p.game.legal_actions(Actor::Table).is_empty());
    assert_eq!(p.game.seat_view(players + 3)["hand"], Value::Null);
    p.assert_replay_equals_live();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_matches_end_and_every_deal_sums_to_minus_26(
        players in 3usize..=4,
        service in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let dealing = if service { Dealing::Service } else { Dealing::Table };
        play_match(players, dealing, seed, 4);
    }

    #[test]
    fn legal_actions_are_exactly_what_apply_accepts(
        players in 3usize..=4,
        service in any::<bool>(),
        seed in any::<u64>(),
        stop in 0usize..70,
    ) {
        let dealing = if service { Dealing::Service } else { Dealing::Table };
        let mut rng = Rng::new(seed);
        let mut p: Playout<Clubs> = Playout::new(ClubsConfig::default(), players, dealing);
        // Checked at the start, at a random point of the first deal, and a little further on.
        p.assert_legal_iff_accepted_along(&universe(), &mut rng, stop, (stop % 7) + 1);
    }
}

//! Property tests for Members Only: random legal heats for 3, 4 and 5 players in both dealing
//! modes always end, account for every card (revealed, discarded or unused), keep the tracks and
//! pieces within their bounds; `legal_actions` lists exactly what `apply` accepts (probed with
//! random, mostly illegal, actions); a refused action changes nothing; replaying the accepted
//! actions into a fresh engine gives the live state.

use std::collections::BTreeMap;

use clubroom::rules::{
    cards::shuffled,
    members_only::{
        deck, hand_size, Action, Bet, Card, Category, MembersOnly, MembersOnlyConfig, Piece, Space,
        DECK_SIZE, FINAL_HAND, TRACK_MAX,
    },
    Actor, Dealing, Game, Seed,
};
use proptest::prelude::*;
use serde_json::Value;

// The playout's choices, from one proptest-chosen number.
use clubroom::rng::SplitMix64 as Rng;

type Multiset = BTreeMap<Card, usize>;

fn multiset(cards: &[Card]) -> Multiset {
    let mut m = Multiset::new();
    for c in cards {
        *m.entry(*c).or_default() += 1;
    }
    m
}

fn sorted(cards: &[Card]) -> Vec<Card> {
    let mut v = cards.to_vec();
    v.sort();
    v
}

fn all_cards() -> Vec<Card> {
    Category::ALL
        .into_iter()
        .flat_map(|c| [Card::normal(c), Card::no(c)])
        .collect()
}

/// What the test itself knows about the heat in progress.
#[derive(Default, Clone)]
struct HeatLog {
    /// Service dealing: each seat's dealt hand, and the unused cards.
    dealt: Option<(Vec<Vec<Card>>, Vec<Card>)>,
    /// Every open card so far (face-up pair and turn reveals).
    open: Vec<Card>,
    /// Recorded final choices: reveal and discard.
    finals: Vec<Option<(Vec<Card>, Option<Card>)>>,
    /// What each seat revealed in turns.
    shown: Vec<Vec<Card>>,
    turns: usize,
}

impl HeatLog {
    /// Table dealing: the cards of each kind the deck still has room for.
    fn room(&self) -> Multiset {
        let mut known = self.open.clone();
        for (r, d) in self.finals.iter().flatten() {
            known.extend(r.iter().copied());
            known.extend(d.iter().copied());
        }
        let m = multiset(&known);
        all_cards()
            .into_iter()
            .map(|c| (c, usize::from(c.copies()) - m.get(&c).copied().unwrap_or(0)))
            .collect()
    }

    fn hand_now(&self, seat: usize) -> Option<Multiset> {
        let (hands, _) = self.dealt.as_ref()?;
        let mut h = multiset(&hands[seat]);
        let mut used = self.shown[seat].clone();
        if let Some(Some((r, d))) = self.finals.get(seat) {
            used.extend(r.iter().copied());
            used.extend(d.iter().copied());
        }
        for c in used {
            let e = h.get_mut(&c).expect("shown card was in the hand");
            *e -= 1;
            if *e == 0 {
                h.remove(&c);
            }
        }
        Some(h)
    }
}

fn fits(want: &[Card], room: &Multiset) -> bool {
    multiset(want)
        .iter()
        .all(|(c, k)| room.get(c).copied().unwrap_or(0) >= *k)
}

/// Whether `apply` should accept `action` by `actor`, judged from the legal list (and, for a
/// table-dealing final naming a discard, from the deck's composition).
fn predicted(g: &MembersOnly, log: &HeatLog, actor: Actor, action: &Action) -> bool {
    let legal = g.legal_actions(actor);
    match action {
        Action::Deal { .. } => legal.contains(&normalise(action)),
        Action::Turn { bet, reveal } => {
            let bet_ok = legal
                .iter()
                .any(|a| matches!(a, Action::Turn { bet: b, .. } if b == bet));
            let reveal_ok = legal
                .iter()
                .any(|a| matches!(a, Action::Turn { reveal: r, .. } if *r == sorted(reveal)));
            bet_ok && reveal_ok
        }
        Action::Final { discard, reveal } => match g.to_act().seats.contains(&actor_seat(actor)) {
            false => false,
            true if log.dealt.is_some() => {
                legal.contains(&normalise(action))
                    || (reveal.is_empty()
                        && legal
                            .iter()
                            .any(|a| matches!(a, Action::Final { discard: d, .. } if d == discard)))
            }
            true => {
                let in_list = legal.contains(&Action::Final {
                    discard: None,
                    reveal: sorted(reveal),
                });
                match discard {
                    None => in_list,
                    Some(d) => {
                        let mut want = reveal.clone();
                        want.push(*d);
                        in_list && fits(&want, &log.room())
                    }
                }
            }
        },
        // The matches here are played, not score-only: a tally is refused (`tally_not_allowed`).
        Action::Tally { .. } => false,
    }
}

fn actor_seat(actor: Actor) -> usize {
    actor.seat().unwrap_or(usize::MAX)
}

fn normalise(action: &Action) -> Action {
    match action {
        Action::Deal { face_up } => Action::Deal {
            face_up: sorted(face_up),
        },
        Action::Turn { bet, reveal } => Action::Turn {
            bet: *bet,
            reveal: sorted(reveal),
        },
        Action::Final { discard, reveal } => Action::Final {
            discard: *discard,
            reveal: sorted(reveal),
        },
        Action::Tally { .. } => action.clone(),
    }
}

fn random_cards(rng: &mut Rng, k: usize) -> Vec<Card> {
    let all = all_cards();
    (0..k).map(|_| *rng.pick(&all)).collect()
}

/// A random action, mostly illegal: any actor (the table, a seat, a seat out of range), any type.
fn random_probe(rng: &mut Rng, players: usize) -> (Actor, Action) {
    let actor = match rng.below(8) {
        0 => Actor::Table,
        1 => Actor::Seat(players + rng.below(3)),
        _ => Actor::Seat(rng.below(players)),
    };
    let len = [0, 1, 2, 2, 2, 3][rng.below(6)];
    let action = match rng.below(5) {
        0 => Action::Deal {
            face_up: random_cards(rng, len),
        },
        1 | 2 => Action::Turn {
            bet: (rng.below(3) > 0).then(|| Bet {
                category: *rng.pick(&Category::ALL),
                space: *rng.pick(&Space::ALL),
                piece: *rng.pick(&[Piece::Single, Piece::Double]),
            }),
            reveal: random_cards(rng, len),
        },
        _ => Action::Final {
            discard: (rng.below(2) == 0).then(|| random_cards(rng, 1)[0]),
            reveal: random_cards(rng, len),
        },
    };
    (actor, action)
}

/// A legal action for one of the actors due: a listed one, or a listed bet combined with a
/// listed reveal in shuffled order, or (service) a final with the reveal left to the service.
fn random_legal(rng: &mut Rng, g: &MembersOnly) -> (Actor, Action) {
    let to_act = g.to_act();
    let actor = if to_act.table {
        Actor::Table
    } else {
        Actor::Seat(*rng.pick(&to_act.seats))
    };
    let legal = g.legal_actions(actor);
    assert!(
        !legal.is_empty(),
        "{actor:?} is due to act but has no legal action"
    );
    let mut a = rng.pick(&legal).clone();
    match &mut a {
        Action::Turn { bet, reveal } => {
            if rng.below(2) == 0 {
                if let Action::Turn { bet: b, .. } = rng.pick(&legal) {
                    *bet = *b;
                }
            }
            if rng.below(2) == 0 {
                reveal.reverse();
            }
        }
        Action::Final { discard, reveal } if discard.is_some() && rng.below(3) == 0 => {
            reveal.clear();
        }
        _ => {}
    }
    (actor, a)
}

struct Playout {
    players: usize,
    dealing: Dealing,
    game: MembersOnly,
    accepted: Vec<(Actor, Action, Option<Seed>)>,
    heat: HeatLog,
    heats_checked: usize,
}

impl Playout {
    fn new(players: usize, dealing: Dealing) -> Playout {
        Playout {
            players,
            dealing,
            game: MembersOnly::new(MembersOnlyConfig::default(), players, dealing).unwrap(),
            accepted: vec![],
            heat: HeatLog::default(),
            heats_checked: 0,
        }
    }

    /// Applies a legal action and updates what the test knows.
    fn step(&mut self, rng: &mut Rng) {
        let (actor, action) = random_legal(rng, &self.game);
        let seed = (self.dealing == Dealing::Service && matches!(action, Action::Deal { .. }))
            .then(|| rng.seed());
        let before = self.game.rounds_completed();
        // The outcomes as the log writes them.
        let out = serde_json::to_value(
            self.game
                .apply(actor, &action, seed.as_ref())
                .unwrap_or_else(|e| panic!("legal {action:?} by {actor:?} refused: {e}")),
        )
        .expect("outcomes are JSON");
        self.accepted.push((actor, action.clone(), seed));
        let n = self.players;
        match (&action, actor) {
            (Action::Deal { face_up }, _) => {
                let starter = out[0]["starter"].as_u64().unwrap() as usize;
                let mut log = HeatLog {
                    finals: vec![None; n],
                    shown: vec![vec![]; n],
                    ..HeatLog::default()
                };
                match seed {
                    Some(seed) => {
                        // Re-derive the deal as anyone can: shuffle, deal one at a time from the
                        // starter, two face up, the rest unused.
                        let order = shuffled(deck(), &seed);
                        let per = hand_size(n) as usize;
                        let mut hands = vec![vec![]; n];
                        for (k, c) in order[..n * per].iter().enumerate() {
                            hands[(starter + k) % n].push(*c);
                        }
                        log.open = order[n * per..n * per + 2].to_vec();
                        log.dealt = Some((hands, order[n * per + 2..].to_vec()));
                    }
                    None => log.open = face_up.clone(),
                }
                let shown: Vec<Card> = serde_json::from_value(out[0]["face_up"].clone()).unwrap();
                assert_eq!(multiset(&shown), multiset(&log.open));
                self.heat = log;
            }
            (Action::Turn { reveal, .. }, Actor::Seat(s)) => {
                self.heat.open.extend(reveal.iter().copied());
                self.heat.shown[s].extend(reveal.iter().copied());
                self.heat.turns += 1;
            }
            (Action::Final { discard, reveal }, Actor::Seat(s)) => {
                let revealed = if reveal.is_empty() {
                    // Service dealing: the other two cards of the hand.
                    let mut h = self.heat.hand_now(s).unwrap();
                    let d = discard.unwrap();
                    *h.get_mut(&d).unwrap() -= 1;
                    h.iter()
                        .flat_map(|(c, k)| std::iter::repeat_n(*c, *k))
                        .collect()
                } else {
                    reveal.clone()
                };
                self.heat.finals[s] = Some((revealed, *discard));
            }
            _ => unreachable!("seat actions come from seats"),
        }
        if self.game.rounds_completed() > before {
            self.check_heat_end();
        }
        self.check_invariants();
    }

    /// Every card accounted for: revealed (face up, in turns, at the end), discarded or unused.
    fn check_heat_end(&mut self) {
        let n = self.players;
        let h = &self.heat;
        let rounds = 1 + (hand_size(n) - FINAL_HAND) as usize / 2;
        assert_eq!(h.turns, rounds * n, "a heat has {rounds} rounds");
        let mut open = h.open.clone();
        let mut discards = vec![];
        for (r, d) in h.finals.iter().map(|f| f.clone().expect("every final in")) {
            assert_eq!(r.len(), 2);
            open.extend(r);
            discards.extend(d);
        }
        let sheet = self.game.score_sheet();
        let detail = &sheet.rounds.last().unwrap().detail;
        let m = multiset(&open);
        for c in Category::ALL {
            let normal = m.get(&Card::normal(c)).copied().unwrap_or(0);
            let no = m.get(&Card::no(c)).copied().unwrap_or(0);
            let lay = &detail["layout"][c.name()];
            assert_eq!(lay["normal"], normal as u64);
            assert_eq!(lay["no"], no as u64);
            assert_eq!(lay["count"], normal.saturating_sub(no) as u64);
            assert!(normal <= 11 && no <= 2, "{c}: {normal} normal, {no} NO!");
        }
        let cards = &detail["cards"];
        let sum: u64 = ["face_up", "revealed", "final", "discarded", "unused"]
            .iter()
            .map(|k| cards[*k].as_u64().unwrap())
            .sum();
        assert_eq!(sum, DECK_SIZE as u64);
        assert_eq!(cards["revealed"], (open.len() - 2 - 2 * n) as u64);
        if let Some((hands, unused)) = &h.dealt {
            assert_eq!(discards.len(), n);
            for (s, hand) in hands.iter().enumerate() {
                let (r, d) = h.finals[s].clone().unwrap();
                let mut used = h.shown[s].clone();
                used.extend(r);
                used.extend(d);
                assert_eq!(multiset(&used), multiset(hand), "seat {s}'s hand");
            }
            let mut everything = open.clone();
            everything.extend(discards);
            everything.extend(unused.iter().copied());
            assert_eq!(multiset(&everything), multiset(&deck()));
            assert_eq!(cards["unused"], unused.len() as u64);
        }
        self.heats_checked += 1;
        self.check_sheet();
    }

    fn check_invariants(&self) {
        let g = &self.game;
        let t = g.table_view();
        for s in 0..self.players {
            let mut total = 0;
            for c in Category::ALL {
                let m = t["tracks"][s][c.name()].as_u64().unwrap();
                assert!(m <= u64::from(TRACK_MAX));
                if m >= 5 {
                    total += m;
                }
            }
            assert_eq!(t["totals"][s], total, "totals count markers at 5..10 only");
            let p = &t["pieces"][s];
            assert!(p["single"].as_u64().unwrap() <= 4 && p["double"].as_u64().unwrap() <= 1);
            let in_heat = t["phase"] == "betting" || t["phase"] == "final";
            if let Some(h) = self.heat.hand_now(s).filter(|_| in_heat) {
                let mine: Vec<Card> =
                    serde_json::from_value(g.seat_view(s)["hand"].clone()).unwrap();
                assert_eq!(multiset(&mine), h, "seat {s}'s hand in its view");
            }
        }
    }

    /// The sheet after a heat: totals as the view has them; heat points are marker advances.
    fn check_sheet(&self) {
        let t = self.game.table_view();
        let sheet = self.game.score_sheet();
        assert_eq!(serde_json::to_value(&sheet.totals).unwrap(), t["totals"]);
        let advanced: i64 = sheet.rounds.iter().flat_map(|r| r.points.iter()).sum();
        let on_tracks: u64 = (0..self.players)
            .flat_map(|s| Category::ALL.map(|c| t["tracks"][s][c.name()].as_u64().unwrap()))
            .sum();
        assert_eq!(
            advanced as u64, on_tracks,
            "heat points are marker advances"
        );
    }

    /// Random probes: accepted exactly when the legal list says so; a refusal changes nothing.
    fn probe(&mut self, rng: &mut Rng, count: usize) {
        for _ in 0..count {
            let (actor, action) = random_probe(rng, self.players);
            let expect = predicted(&self.game, &self.heat, actor, &action);
            let seed = matches!(action, Action::Deal { .. }).then(|| rng.seed());
            let seed = seed.filter(|_| self.dealing == Dealing::Service);
            let mut trial = self.game.clone();
            let got = trial.apply(actor, &action, seed.as_ref());
            assert_eq!(
                got.is_ok(),
                expect,
                "{action:?} by {actor:?}: apply says {got:?}, legal list says {expect}"
            );
            if got.is_err() {
                assert_eq!(trial, self.game, "a refused action changed the state");
            }
        }
    }

    fn check_replay(&self) {
        let mut g =
            MembersOnly::new(MembersOnlyConfig::default(), self.players, self.dealing).unwrap();
        for (actor, action, seed) in &self.accepted {
            g.apply(*actor, action, seed.as_ref()).unwrap();
        }
        assert_eq!(g, self.game, "replaying the log gives the live state");
        assert_eq!(g.table_view(), self.game.table_view());
        assert_eq!(g.score_sheet(), self.game.score_sheet());
        for s in 0..self.players {
            assert_eq!(g.seat_view(s), self.game.seat_view(s));
        }
    }
}

fn play(players: usize, service: bool, choice: u64, max_heats: usize, probes: usize) {
    let dealing = if service {
        Dealing::Service
    } else {
        Dealing::Table
    };
    let mut rng = Rng::new(choice);
    let mut p = Playout::new(players, dealing);
    let mut steps = 0;
    while !p.game.to_act().seats.is_empty() || p.game.to_act().table {
        if p.game.rounds_completed() as usize >= max_heats && p.game.to_act().table {
            break;
        }
        p.probe(&mut rng, probes);
        p.step(&mut rng);
        steps += 1;
        assert!(steps < 10_000, "a playout must end");
    }
    p.probe(&mut rng, probes);
    assert!(p.heats_checked >= 1 || p.game.rounds_completed() == 0);
    if p.game.to_act() == clubroom::rules::ToAct::nobody() {
        let sheet = p.game.score_sheet();
        assert!(sheet.finished && !sheet.winners.is_empty());
        let t = p.game.table_view();
        for c in Category::ALL {
            assert!(
                (0..players).any(|s| t["tracks"][s][c.name()].as_u64().unwrap() >= 5),
                "the game ends only when every category has a marker at 5+"
            );
        }
        assert_eq!(t["phase"], Value::from("finished"));
    }
    p.check_replay();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn three_player_heats_account_for_every_card(choice in any::<u64>(), service in any::<bool>()) {
        play(3, service, choice, 3, 2);
    }

    #[test]
    fn four_player_heats_account_for_every_card(choice in any::<u64>(), service in any::<bool>()) {
        play(4, service, choice, 3, 2);
    }

    #[test]
    fn five_player_heats_account_for_every_card(choice in any::<u64>(), service in any::<bool>()) {
        play(5, service, choice, 3, 2);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Whole games: random legal play reaches the end (every category with a marker at 5+).
    #[test]
    fn random_games_end(players in 3usize..=5, choice in any::<u64>(), service in any::<bool>()) {
        play(players, service, choice, usize::MAX, 0);
    }
}

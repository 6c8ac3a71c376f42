//! Duplicate play with real cards (issue 24, part 4) in P.M., Members Only and Bonus-Malus: the
//! organiser prints the round's boards (P.M.'s values and the cards out of play, Members Only's
//! categories with the two layout cards and the cards out of the heat, Bonus-Malus's stock in
//! its order), three tables play them from the wallets over HTTP, the third with two cards
//! swapped between two seats on board 1. Once the round is complete the log names each card a
//! seat showed that it did not hold by the board (dealt, or in Bonus-Malus drawn from the
//! board's stock in the order the tricks fix); while it is played nobody but the organiser sees
//! a foul (not the table's own host: the undo probe) or a board, and
//! the matchpoints are an independent calculation's under the `fouled_board` rule. Runs on
//! SQLite, and on PostgreSQL with `TEST_DATABASE_URL`.

mod common;

use std::collections::BTreeMap;

use common::{Match, TestApp};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

fn names(n: usize) -> Vec<Value> {
    (0..n).map(|i| json!({"name": format!("P{i}")})).collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("a list: {v}"))
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect()
}

/// A real-card duplicate tournament of `game` at three tables of `seats`, round 1 paired:
/// (id, organiser token, round, tables).
async fn real_card_round(
    app: &TestApp,
    game: &str,
    config: Value,
    seats: usize,
    rule: Option<&str>,
) -> (String, String, Value, Vec<Match>) {
    let mut body = json!({"name": "Wallets", "game": game, "config": config,
        "dealing": "table", "format": "swiss", "rounds": 1, "table_size": seats,
        "duplicate": true, "players": names(3 * seats)});
    if let Some(rule) = rule {
        body["fouled_board"] = json!(rule);
    }
    let round = common::tournament_round_one(app, body).await;
    assert_eq!(round.3.len(), 3);
    round
}

/// One printed board as the test reads the sheet.
#[derive(Clone, Debug)]
struct Printed {
    hands: Vec<Vec<String>>,
    layout: Vec<String>,
    stock: Vec<String>,
}

fn printed_of(boards: &Value) -> Vec<Printed> {
    boards["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| Printed {
            hands: b["hands"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| strings(&h["cards"]))
                .collect(),
            layout: b.get("layout").map(strings).unwrap_or_default(),
            stock: b.get("stock").map(strings).unwrap_or_default(),
        })
        .collect()
}

/// What each seat holds by the printed board (card → copies): the test's own count.
struct Holding(Vec<BTreeMap<String, u32>>);

impl Holding {
    fn of(hands: &[Vec<String>]) -> Holding {
        Holding(
            hands
                .iter()
                .map(|h| {
                    let mut m = BTreeMap::new();
                    for c in h {
                        *m.entry(c.clone()).or_insert(0) += 1;
                    }
                    m
                })
                .collect(),
        )
    }

    /// Whether `seat` held `card` (then it no longer does).
    fn take(&mut self, seat: usize, card: &str) -> bool {
        match self.0[seat].get_mut(card) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }

    fn give(&mut self, seat: usize, card: &str) {
        *self.0[seat].entry(card.to_string()).or_insert(0) += 1;
    }
}

/// One recorded seat action: its board, seat, the cards it showed, its seq, what its answer
/// flagged, and the foul the test expects (the first card shown that the seat did not hold).
#[derive(Clone, Debug)]
struct Shown {
    board: u32,
    seat: usize,
    seq: i64,
    answered: Value,
    expected: Option<String>,
    /// Members Only: a final choice whose answer showed it sealed (to the host that sent it).
    sealed: bool,
}

impl Shown {
    fn expected_json(&self) -> Option<Value> {
        self.expected.as_ref().map(
            |card| json!({"board": self.board, "seat": self.seat, "card": card, "seq": self.seq}),
        )
    }
}

fn suit(card: &str) -> char {
    card.chars().last().unwrap()
}

/// The state of one deal at a table: the wallet as the table holds it, the printed holding,
/// and Bonus-Malus's stock (the board's, in its order) and how far it has been drawn.
struct Deal {
    board: u32,
    wallet: Vec<Vec<String>>,
    printed: Holding,
    stock: Vec<String>,
    drawn: usize,
    /// Members Only: the category counts the heat will make (the driver reveals each hand in
    /// order and discards its last card).
    counts: BTreeMap<String, i64>,
}

const CATEGORIES: [&str; 5] = ["umbrella", "crown", "teacup", "big_ben", "hat"];

fn category(card: &str) -> (&str, bool) {
    match card.strip_suffix(":no") {
        Some(c) => (c, true),
        None => (card, false),
    }
}

/// Members Only: what each category will count once the heat is over, when every seat reveals
/// its cards in order and discards its last.
fn heat_counts(layout: &[String], wallet: &[Vec<String>]) -> BTreeMap<String, i64> {
    let mut net: BTreeMap<String, i64> = CATEGORIES.iter().map(|c| (c.to_string(), 0)).collect();
    let shown = wallet
        .iter()
        .flat_map(|h| h[..h.len() - 1].iter())
        .chain(layout.iter());
    for c in shown {
        let (cat, no) = category(c);
        *net.get_mut(cat).unwrap() += if no { -1 } else { 1 };
    }
    net.into_iter().map(|(c, n)| (c, n.max(0))).collect()
}

/// Members Only: the bet of `seat` now: on a category no marker has brought to 5 yet if it can,
/// the vacant space the heat's count makes correct that scores most, with the double piece if
/// it is left (every bet is right, so pieces come back).
fn mo_bet(table: &Value, seat: usize, counts: &BTreeMap<String, i64>) -> Value {
    let pieces = &table["pieces"][seat];
    let piece = if pieces["double"] == 1 {
        "double"
    } else if pieces["single"].as_u64().unwrap() > 0 {
        "single"
    } else {
        return Value::Null;
    };
    let spaces = [
        ("le1", 5, 1),
        ("ge8", 5, 8),
        ("le2", 3, 2),
        ("ge7", 3, 7),
        ("le3", 2, 3),
        ("ge6", 2, 6),
        ("le4", 1, 4),
        ("ge5", 1, 5),
    ];
    let taken = |cat: &str, space: &str| {
        table["bets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["category"] == cat && b["space"] == space)
    };
    let reached = |cat: &str| {
        table["tracks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t[cat].as_u64().unwrap() >= 5)
    };
    let mut order: Vec<&str> = CATEGORIES.to_vec();
    order.sort_by_key(|c| reached(c));
    for (space, _, bound) in spaces {
        for cat in &order {
            let n = counts[*cat];
            let right = if space.starts_with("le") {
                n <= bound
            } else {
                n >= bound
            };
            if right && !taken(cat, space) && !reached(cat) {
                return json!({"category": cat, "space": space, "piece": piece});
            }
        }
    }
    Value::Null
}

/// Plays table `m`'s match to its end from the printed boards, board 1 from `board1` (the
/// wallet as this table holds it). Answers every seat action that showed cards, in order.
async fn play_table(
    app: &TestApp,
    m: &Match,
    game: &str,
    printed: &[Printed],
    board1: &[Vec<String>],
) -> Vec<Shown> {
    let mut shown = vec![];
    let mut deal: Option<Deal> = None;
    for _ in 0..5000 {
        let v = app.view(m, Some(&m.host)).await;
        if v["status"] == "finished" {
            return shown;
        }
        let table = &v["table"];
        if v["table_to_act"] == true {
            let awaiting_deal = table["phase"] == "awaiting_deal";
            let action = if awaiting_deal {
                let k = v["round"].as_u64().unwrap() as u32 + 1;
                let p = &printed[k as usize - 1];
                let mut wallet = if k == 1 {
                    board1.to_vec()
                } else {
                    p.hands.clone()
                };
                if game == "members-only" {
                    for h in &mut wallet {
                        h.sort_by_key(|c| {
                            let (cat, no) = category(c);
                            (CATEGORIES.iter().position(|x| *x == cat), no)
                        });
                    }
                }
                let counts = if game == "members-only" {
                    heat_counts(&p.layout, &wallet)
                } else {
                    BTreeMap::new()
                };
                deal = Some(Deal {
                    board: k,
                    wallet,
                    printed: Holding::of(&p.hands),
                    stock: p.stock.clone(),
                    drawn: 0,
                    counts,
                });
                match game {
                    "bonus-malus" => {
                        json!({"type": "deal", "trump": suit(&p.stock[0]).to_string()})
                    }
                    "members-only" => json!({"type": "deal", "face_up": p.layout}),
                    _ => json!({"type": "deal"}),
                }
            } else {
                // Bonus-Malus: the suit now showing on top of the stock.
                let d = deal.as_ref().unwrap();
                json!({"type": "stock_top", "suit": suit(&d.stock[d.drawn]).to_string()})
            };
            let a = app.act(m, &m.host, None, action).await;
            assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
            continue;
        }
        let d = deal.as_mut().expect("a deal in play");
        let seat = v["to_act"][0].as_u64().expect("a seat to act") as usize;
        let hand = d.wallet[seat].clone();
        let (action, cards): (Value, Vec<String>) = match game {
            "plus-minus" => {
                // A game can end before every card is laid (four men home): a card the seat
                // was not dealt is laid at its first chance.
                let legal = app.legal(m, seat, Some(&m.host)).await;
                let in_wallet: Vec<Value> = legal
                    .into_iter()
                    .filter(|a| hand.contains(&a["card"].to_string()))
                    .collect();
                let not_dealt = |a: &&Value| {
                    d.printed.0[seat]
                        .get(&a["card"].to_string())
                        .is_none_or(|n| *n == 0)
                };
                let pick = in_wallet
                    .iter()
                    .find(not_dealt)
                    .or(in_wallet.first())
                    .expect("a legal card in the wallet")
                    .clone();
                let card = pick["card"].to_string();
                (pick, vec![card])
            }
            "bonus-malus" => {
                let led = table["trick"][0]["card"].as_str().map(suit);
                let trump = table["trump"].as_str().and_then(|t| t.chars().next());
                let of = |s: Option<char>| hand.iter().find(|c| Some(suit(c)) == s);
                let card = of(led).or(of(trump)).unwrap_or(&hand[0]).clone();
                (json!({"type": "play", "card": card}), vec![card])
            }
            _ => {
                let reveal: Vec<String> = if table["phase"] == "final" {
                    assert_eq!(hand.len(), 3);
                    hand[..2].to_vec()
                } else if table["betting_round"] == 1 {
                    vec![]
                } else {
                    hand[..2].to_vec()
                };
                let action = if table["phase"] == "final" {
                    json!({"type": "final", "reveal": reveal})
                } else {
                    json!({"type": "turn", "bet": mo_bet(table, seat, &d.counts), "reveal": reveal})
                };
                (action, reveal)
            }
        };
        let a = app.act(m, &m.host, Some(seat), action.clone()).await;
        assert_eq!(a.status, StatusCode::CREATED, "{action}: {}", a.text);
        let event = &a.body["event"];
        let mut expected = None;
        for c in &cards {
            let i = d.wallet[seat].iter().position(|x| x == c).unwrap();
            d.wallet[seat].remove(i);
            if !d.printed.take(seat, c) && expected.is_none() {
                expected = Some(c.clone());
            }
        }
        if game == "members-only" && table["phase"] == "final" {
            d.wallet[seat].clear(); // the discard
        }
        let sealed = event["action"]["sealed"] == true;
        let seq = event["seq"].as_i64().unwrap();
        if sealed && expected.is_some() {
            // A sealed final's foul would tell its reveal: the table's other seats do not see
            // it while the finals come in, nor does its own seat while the round is played (no
            // table token sees a foul then).
            let n = d.wallet.len();
            let of = |log: Vec<Value>| log.into_iter().find(|e| e["seq"] == seq).unwrap();
            let other = of(app.events(m, Some(&m.seats[(seat + 1) % n])).await);
            assert_eq!(other["action"], json!({"type": "final", "sealed": true}));
            assert!(other.get("fouled").is_none(), "{other}");
            let own = of(app.events(m, Some(&m.seats[seat])).await);
            assert_eq!(own["action"]["type"], "final", "{own}");
            assert!(own.get("fouled").is_none(), "{own}");
        }
        if !cards.is_empty() {
            shown.push(Shown {
                board: d.board,
                seat,
                seq,
                answered: event.get("fouled").cloned().unwrap_or(Value::Null),
                expected,
                sealed,
            });
        }
        // Bonus-Malus: the draws, in the order the service says, from the printed stock.
        for o in event["outcome"].as_array().unwrap() {
            if o["type"] == "drawn" {
                for s in o["order"].as_array().unwrap() {
                    let s = s.as_u64().unwrap() as usize;
                    let card = d.stock[d.drawn].clone();
                    d.drawn += 1;
                    d.wallet[s].push(card.clone());
                    d.printed.give(s, &card);
                }
            }
        }
    }
    panic!("{game}: the match did not end");
}

/// The matchpoints the stated rule gives, computed here from the tables' deals: per table and
/// unit, (matchpoints, most possible). Board k is compared among the tables that have deal k and
/// did not foul it (2 per result beaten, 1 per tie); a table that fouled it gets, with C clean
/// tables, C − 1 (`average`) or 0 (`zero`) out of 2 × (C − 1).
fn expected_matchpoints(
    deals: &[Vec<Vec<i64>>],
    units: usize,
    fouled: &[(usize, usize)],
    rule: &str,
) -> Vec<Vec<(i64, i64)>> {
    let most = deals.iter().map(Vec::len).max().unwrap();
    let mut out: Vec<Vec<(i64, i64)>> = deals.iter().map(|_| vec![(0, 0); units]).collect();
    for k in 0..most {
        let clean: Vec<usize> = (0..deals.len())
            .filter(|&t| deals[t].len() > k && !fouled.contains(&(t, k)))
            .collect();
        let c = clean.len() as i64;
        for t in 0..deals.len() {
            if deals[t].len() <= k {
                continue;
            }
            for u in 0..units {
                if fouled.contains(&(t, k)) {
                    let top = 2 * (c - 1).max(0);
                    out[t][u].0 += if rule == "average" { top / 2 } else { 0 };
                    out[t][u].1 += top;
                    continue;
                }
                for &o in clean.iter().filter(|&&o| o != t) {
                    out[t][u].0 += match deals[t][k][u].cmp(&deals[o][k][u]) {
                        std::cmp::Ordering::Greater => 2,
                        std::cmp::Ordering::Equal => 1,
                        std::cmp::Ordering::Less => 0,
                    };
                    out[t][u].1 += 2;
                }
            }
        }
    }
    out
}

/// Board 1 as table 3's wallet holds it: a card of one seat's that another seat was not dealt
/// swapped with one of the other's (in Members Only, not the last card of the receiving seat's
/// new hand, which the driver discards unseen): that seat shows a card it was not dealt.
fn swapped(game: &str, board: &Printed) -> Vec<Vec<String>> {
    let n = board.hands.len();
    let order = |c: &String| {
        let (cat, no) = category(c);
        (CATEGORIES.iter().position(|x| *x == cat), no)
    };
    for (r, g) in (0..n).flat_map(|r| (0..n).filter(move |&g| g != r).map(move |g| (r, g))) {
        let (a, b) = (&board.hands[r], &board.hands[g]);
        for x in b.iter().filter(|c| !a.contains(c)) {
            for y in a.iter().filter(|c| *c != x) {
                let mut w = board.hands.clone();
                let i = w[r].iter().position(|c| c == y).unwrap();
                let j = w[g].iter().position(|c| c == x).unwrap();
                w[r][i] = x.clone();
                w[g][j] = y.clone();
                if game == "members-only" && w[r].iter().max_by_key(|c| order(c)) == Some(x) {
                    continue;
                }
                return w;
            }
        }
    }
    panic!("no swap that fouls: {board:?}");
}

/// The sheet's shape for each game: hand sizes, the other cards, print order.
fn check_sheet(game: &str, seats: usize, b: &Value, printed: &[Printed]) {
    assert_eq!(b["game"], game);
    assert_eq!(b["seats"], seats);
    for (k, p) in printed.iter().enumerate() {
        let sheet = &b["boards"][k];
        assert_eq!(sheet["board"], k + 1);
        let undealt = strings(&sheet["undealt"]);
        let all: usize = p.hands.iter().map(Vec::len).sum::<usize>()
            + undealt.len()
            + p.layout.len()
            + p.stock.len();
        for (seat, h) in sheet["hands"].as_array().unwrap().iter().enumerate() {
            assert_eq!(h["seat"], seat);
            assert_eq!(h["seat_name"], format!("Seat {}", seat + 1));
        }
        match game {
            "plus-minus" => {
                // Eleven each, by value lowest first; the rest of the 44-card pack out of play.
                assert_eq!(all, 44);
                assert_eq!(undealt.len(), 44 - 11 * seats);
                for h in p.hands.iter().chain([&undealt]) {
                    let v: Vec<i64> = h.iter().map(|c| c.parse().unwrap()).collect();
                    assert!(v.windows(2).all(|w| w[0] <= w[1]), "{v:?}");
                }
                for h in p.hands.iter() {
                    assert_eq!(h.len(), 11);
                }
                assert!(sheet.get("layout").is_none() && sheet.get("stock").is_none());
                assert_eq!(sheet["hands"][0]["suits"], json!([]));
            }
            "members-only" => {
                // 11 each at three, two face up, the rest (30) out of the heat.
                assert_eq!(all, 65);
                assert_eq!(p.layout.len(), 2);
                assert_eq!(undealt.len(), 65 - 11 * seats - 2);
                for h in p.hands.iter() {
                    assert_eq!(h.len(), 11);
                    let order: Vec<(usize, bool)> = h
                        .iter()
                        .map(|c| {
                            let (cat, no) = category(c);
                            (CATEGORIES.iter().position(|x| *x == cat).unwrap(), no)
                        })
                        .collect();
                    assert!(order.windows(2).all(|w| w[0] <= w[1]), "{h:?}");
                }
                assert!(sheet.get("stock").is_none());
                assert_eq!(sheet["dealer"], (k + seats - 1) % seats);
            }
            _ => {
                // Seven each by suit, the stock (38 at two) in its order, no card undealt.
                assert_eq!(all, 52);
                assert_eq!(p.stock.len(), 52 - 7 * seats);
                assert!(undealt.is_empty() && sheet.get("layout").is_none());
                for (seat, h) in p.hands.iter().enumerate() {
                    assert_eq!(h.len(), 7);
                    let suits: Vec<String> = sheet["hands"][seat]["suits"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .flat_map(|s| {
                            let l = s["suit"].as_str().unwrap().to_string();
                            strings(&s["ranks"])
                                .into_iter()
                                .map(move |r| format!("{r}{l}"))
                        })
                        .collect();
                    assert_eq!(&suits, h);
                }
            }
        }
        if game != "members-only" {
            assert_eq!(sheet["dealer"], k % seats);
        }
    }
}

/// Two tables play the boards as printed, the third with board 1's wallet fouled (Bonus-Malus:
/// after the undo probe, which must tell its host nothing): while the round is played no answer
/// or log flags a foul at any table (the organiser reads them on the round) and nothing of the
/// boards shows to anyone but the organiser; once the round is complete each card table 3 showed
/// that its seat did not hold is named in its log, the standings name the fouled board, and
/// every unit's matchpoints are the rule's.
async fn fouled_wallet(game: &str, config: Value, seats: usize, rule: Option<&str>) {
    let app = TestApp::spawn().await;
    let (tid, org, round, tables) = real_card_round(&app, game, config, seats, rule).await;
    let rule = rule.unwrap_or("average");
    let b = app
        .get(
            &format!("/v1/tournaments/{tid}/rounds/1/boards?count=40"),
            Some(&org),
        )
        .await;
    assert_eq!(b.status, StatusCode::OK, "{}", b.text);
    let printed = printed_of(&b.body);
    check_sheet(game, seats, &b.body, &printed);

    let wallet3 = swapped(game, &printed[0]);
    let (t1, t2, t3) = (&tables[0], &tables[1], &tables[2]);
    if game == "bonus-malus" {
        // The undo probe first: table 3's host records for the seat to lead a card the other
        // seat was dealt, then one of its own; nothing it can read tells the two apart.
        let trump = suit(&printed[0].stock[0]).to_string();
        let d = app
            .act(t3, &t3.host, None, json!({"type": "deal", "trump": trump}))
            .await;
        assert_eq!(d.status, StatusCode::CREATED, "{}", d.text);
        let seat = app.view(t3, Some(&t3.host)).await["to_act"][0]
            .as_u64()
            .unwrap() as usize;
        let hands = &printed[0].hands;
        common::probe::undo_probe(
            &app,
            &tid,
            &org,
            3,
            t3,
            1,
            seat,
            |card| json!({"type": "play", "card": card}),
            &hands[(seat + 1) % seats][0],
            &hands[seat][0],
        )
        .await;
        assert_eq!(app.undo(t3, &t3.host).await.status, StatusCode::CREATED);
    }
    let p2 = play_table(&app, t2, game, &printed, &printed[0].hands).await;
    let p3 = play_table(&app, t3, game, &printed, &wallet3).await;
    let expected =
        |p: &[Shown]| -> Vec<Value> { p.iter().filter_map(Shown::expected_json).collect() };
    let answered = |p: &[Shown]| -> Vec<Value> {
        p.iter()
            .map(|s| s.answered.clone())
            .filter(|f| !f.is_null())
            .collect()
    };
    let fouls = expected(&p3);
    assert!(!fouls.is_empty(), "{game}: the swapped cards were shown");
    assert!(fouls.iter().all(|f| f["board"] == 1), "{fouls:?}");
    // No answer flags a foul (the host could probe a seat's board through undo), and no log of
    // table 3 shows one while the round is played, to its host or any seat.
    assert!(
        answered(&p3).is_empty() && answered(&p2).is_empty(),
        "{game}"
    );
    assert!(expected(&p2).is_empty());
    // Members Only's finals reach the host sealed (checked per foul in `play_table`).
    assert_eq!(
        game == "members-only",
        p3.iter().any(|s| s.sealed),
        "{game}"
    );
    let logged = |log: Vec<Value>| -> Vec<Value> {
        log.into_iter()
            .filter_map(|e| e.get("fouled").cloned())
            .collect()
    };
    for token in [&t3.seats[1], &t3.seats[0], &t3.host] {
        let log = app.events(t3, Some(token)).await;
        assert_eq!(logged(log), Vec::<Value>::new(), "{game}");
    }
    // The organiser reads them on the round (a sealed final's included).
    let organiser = app
        .get(&format!("/v1/tournaments/{tid}/rounds/1"), Some(&org))
        .await;
    assert_eq!(organiser.body["tokens"][2]["fouls"], json!(fouls), "{game}");
    assert!(organiser.body["tokens"][1].get("fouls").is_none());

    // Table 1 has not played yet: nothing of the foul, nor of the boards, reaches it (nor anyone
    // without a token).
    for token in [Some(t1.host.as_str()), Some(t1.seats[0].as_str()), None] {
        let a = app
            .get(&format!("/v1/matches/{}/events?after=0", t3.id), token)
            .await;
        let want = match token {
            Some(_) => (StatusCode::UNAUTHORIZED, "unauthorized"),
            None => (StatusCode::FORBIDDEN, "round_in_play"),
        };
        assert_eq!((a.status, a.code()), want, "{}", a.text);
        assert!(!a.text.contains("fouled"));
        let s = app
            .get(&format!("/v1/tournaments/{tid}/standings"), token)
            .await;
        assert_eq!(s.body["fouled_boards"], json!([]), "{}", s.text);
        let t = app.get(&format!("/v1/tournaments/{tid}"), token).await;
        assert!(!t.text.contains("fouled\""), "{}", t.text);
        assert_eq!(t.body["rounds"][0]["secret"], Value::Null);
        for path in ["boards", "boards.html", "boards?count=1&from=1"] {
            let a = app
                .get(&format!("/v1/tournaments/{tid}/rounds/1/{path}"), token)
                .await;
            let want = match token {
                Some(_) => (StatusCode::FORBIDDEN, "organiser_only"),
                None => (StatusCode::UNAUTHORIZED, "unauthorized"),
            };
            assert_eq!((a.status, a.code()), want, "{}", a.text);
            assert!(!a.text.contains(&printed[0].hands[0].join("\",\"")));
        }
    }
    // Nor does a seat of the fouled table read the boards.
    let a = app
        .get(
            &format!("/v1/tournaments/{tid}/rounds/1/boards"),
            Some(&t3.seats[0]),
        )
        .await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::FORBIDDEN, "organiser_only")
    );
    let p1 = play_table(&app, t1, game, &printed, &printed[0].hands).await;
    assert!(expected(&p1).is_empty() && answered(&p1).is_empty());

    // The round is complete.
    let public = app.get(&format!("/v1/tournaments/{tid}"), None).await;
    let r1 = &public.body["rounds"][0];
    assert_eq!(r1["complete"], true, "{}", public.text);
    if game == "members-only" {
        // The secret would re-derive every hand, hence the face-down discards: never published.
        assert_eq!(r1["secret"], Value::Null);
        assert!(r1["secret_withheld"].as_str().unwrap().contains("discard"));
    } else {
        assert!(r1["secret"].is_string());
    }
    let deals: Vec<Vec<Vec<i64>>> = (0..3)
        .map(|t| serde_json::from_value(r1["tables"][t]["result"]["deals"].clone()).unwrap())
        .collect();
    let units = r1["tables"][0]["result"]["matchpoints"]
        .as_array()
        .unwrap()
        .len();
    let want = expected_matchpoints(&deals, units, &[(2, 0)], rule);
    for (t, want) in want.iter().enumerate() {
        let result = &r1["tables"][t]["result"];
        let got: Vec<(i64, i64)> = (0..units)
            .map(|u| {
                (
                    result["matchpoints"][u].as_i64().unwrap(),
                    result["max_matchpoints"][u].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(&got, want, "{game} table {}: {}", t + 1, result);
    }
    // Board 1 for table 3: two clean tables, so 1 of 2 (average) or 0 of 2 (zero) a unit.
    if deals[2].len() == 1 {
        let b1 = if rule == "average" { 1 } else { 0 };
        assert_eq!(want[2], vec![(b1, 2); units]);
    }
    let standings = app
        .get(&format!("/v1/tournaments/{tid}/standings"), None)
        .await;
    assert_eq!(standings.body["fouled_board"], rule);
    let first = &fouls[0];
    assert_eq!(
        standings.body["fouled_boards"],
        json!([{"round": 1, "table": 3, "board": 1, "seat": first["seat"], "card": first["card"]}])
    );
    for (t, want) in want.iter().enumerate() {
        let players = round["tables"][t]["players"].as_array().unwrap();
        for (seat, p) in players.iter().enumerate() {
            let unit = if units == seats { seat } else { seat % units };
            let row = standings.body["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["player_id"] == p["player_id"])
                .unwrap();
            assert_eq!(
                (row["matchpoints"].as_i64(), row["max_matchpoints"].as_i64()),
                (Some(want[unit].0), Some(want[unit].1)),
                "{row}"
            );
        }
    }
    // The whole log is public now, fouls included, to the table's tokens as to anyone.
    for token in [None, Some(t3.host.as_str()), Some(t3.seats[0].as_str())] {
        assert_eq!(logged(app.events(t3, token).await), fouls, "{game}");
    }
}

#[actix_web::test]
async fn plus_minus_a_fouled_board_scores_average_among_the_clean_tables() {
    fouled_wallet("plus-minus", json!({"rubber_games": 2}), 3, None).await;
}

#[actix_web::test]
async fn plus_minus_a_fouled_board_scores_zero_when_the_club_says_so() {
    fouled_wallet("plus-minus", json!({"rubber_games": 1}), 3, Some("zero")).await;
}

#[actix_web::test]
async fn members_only_a_fouled_reveal_scores_the_board_average() {
    fouled_wallet("members-only", json!({}), 3, None).await;
}

#[actix_web::test]
async fn bonus_malus_a_card_neither_dealt_nor_drawn_fouls_the_board() {
    fouled_wallet("bonus-malus", json!({"target": 1}), 2, Some("zero")).await;
}

/// The print page shows each game's cards as the table knows them: P.M.'s PLUS and MINUS values
/// and the cards out of play; Members Only's categories, the layout and the cards out of the
/// heat; Bonus-Malus's stock in its order, top card first.
#[actix_web::test]
async fn the_print_page_shows_values_categories_the_layout_and_the_stock() {
    let app = TestApp::spawn().await;
    let page_of = |tid: String, org: String| {
        let app = &app;
        async move {
            let r = app
                .client
                .get(format!(
                    "{}/v1/tournaments/{tid}/rounds/1/boards.html?count=1",
                    app.base
                ))
                .bearer_auth(&org)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::OK);
            let b = app
                .get(
                    &format!("/v1/tournaments/{tid}/rounds/1/boards?count=1"),
                    Some(&org),
                )
                .await;
            (r.text().await.unwrap(), b.body)
        }
    };
    // P.M.: each hand's PLUS values, then its MINUS values (red); the rest out of play.
    let (tid, org, _, _) = real_card_round(&app, "plus-minus", json!({}), 3, None).await;
    let (page, b) = page_of(tid, org).await;
    let hand: Vec<i64> = strings(&b["boards"][0]["hands"][0]["cards"])
        .iter()
        .map(|c| c.parse().unwrap())
        .collect();
    let plus: Vec<String> = hand
        .iter()
        .filter(|v| **v > 0)
        .map(|v| v.to_string())
        .collect();
    let mut minus: Vec<i64> = hand.iter().filter(|v| **v < 0).map(|v| -v).collect();
    minus.sort_unstable();
    let minus: Vec<String> = minus.iter().map(|v| v.to_string()).collect();
    let or_dash = |v: Vec<String>| {
        if v.is_empty() {
            "—".to_string()
        } else {
            v.join(" ")
        }
    };
    assert!(page.contains(&format!(
        "<h3>Seat 1 (11 cards)</h3><div class=\"suit\">PLUS {}</div><div class=\"suit\"><span class=\"red\">MINUS</span> {}</div>",
        or_dash(plus),
        or_dash(minus)
    )), "{page}");
    assert!(
        page.contains("<p class=\"undealt\">Out of play (stay in the wallet face down, unseen): ")
    );
    assert_eq!(page.matches("<h1>Board 1 — deal sheet</h1>").count(), 1);

    // Members Only: categories with how many of each, the layout's two cards.
    let (tid, org, _, _) = real_card_round(&app, "members-only", json!({}), 3, None).await;
    let (page, b) = page_of(tid, org).await;
    let hand = strings(&b["boards"][0]["hands"][0]["cards"]);
    let n = hand.iter().filter(|c| *c == "umbrella").count();
    let no = hand.iter().filter(|c| *c == "umbrella:no").count();
    let held = match (n, no) {
        (0, 0) => "—".to_string(),
        (n, 0) => format!("× {n}"),
        (0, k) => format!("NO! × {k}"),
        (n, k) => format!("× {n}, NO! × {k}"),
    };
    assert!(
        page.contains(&format!("<div class=\"suit\">Umbrella {held}</div>")),
        "{page}"
    );
    let words = |c: &str| {
        let (cat, no) = category(c);
        let w = match cat {
            "big_ben" => "Big Ben".to_string(),
            c => format!("{}{}", c[..1].to_uppercase(), &c[1..]),
        };
        if no {
            format!("{w} NO!")
        } else {
            w
        }
    };
    let layout = strings(&b["boards"][0]["layout"]);
    assert!(
        page.contains(&format!(
            "<p class=\"layout\">Face up into the layout: {} · {}</p>",
            words(&layout[0]),
            words(&layout[1])
        )),
        "{page}"
    );
    assert!(page.contains("Out of the heat (stay in the wallet face down, unseen): "));

    // Bonus-Malus: the stock, numbered from its top card.
    let (tid, org, _, _) = real_card_round(&app, "bonus-malus", json!({}), 2, None).await;
    let (page, b) = page_of(tid, org).await;
    let stock = strings(&b["boards"][0]["stock"]);
    assert!(page.contains("<h3>Stock (38 cards), top card first</h3>"));
    let shown = |c: &str| {
        let rank = &c[..c.len() - 1];
        let rank = if rank == "T" { "10" } else { rank };
        match suit(c) {
            'S' => format!("{rank}♠"),
            'C' => format!("{rank}♣"),
            'H' => format!("{rank}<span class=\"red\">♥</span>"),
            _ => format!("{rank}<span class=\"red\">♦</span>"),
        }
    };
    let list: String = stock
        .iter()
        .map(|c| format!("<li>{}</li>", shown(c)))
        .collect();
    assert!(page.contains(&format!("<ol>{list}</ol>")), "{page}");
    assert!(page.contains("<h3>Seat 2 (7 cards)</h3>"));
}

#[actix_web::test]
async fn by_hook_or_crook_has_no_duplicate_play_at_all() {
    // One deal of collection cards, not compared deal by deal: no boards to print.
    let app = TestApp::spawn().await;
    let a = app
        .request(
            Method::POST,
            "/v1/tournaments",
            None,
            &[],
            Some(
                json!({"name": "B", "game": "by-hook-or-crook", "dealing": "table",
                "format": "swiss", "rounds": 1, "table_size": 2, "duplicate": true,
                "players": names(4)}),
            ),
        )
        .await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "duplicate_not_dealt"),
        "{}",
        a.text
    );
}

/// Members Only: the face-up pair a table records is checked against the board's layout: a card
/// that is not in it fouls the board, named with the dealer's seat and `face_up`, to the
/// organiser (on the round) alone while the round is played: not in the deal's answer, the
/// table's log or any other table's view.
#[actix_web::test]
async fn members_only_a_wrong_face_up_card_fouls_the_board() {
    let app = TestApp::spawn().await;
    let (tid, org, _, tables) = real_card_round(&app, "members-only", json!({}), 3, None).await;
    let b = app
        .get(
            &format!("/v1/tournaments/{tid}/rounds/1/boards?count=1"),
            Some(&org),
        )
        .await;
    let sheet = &b.body["boards"][0];
    let layout = strings(&sheet["layout"]);
    let dealer = sheet["dealer"].as_u64().unwrap();
    // One face-up card taken from the cards out of the heat, of another kind.
    let wrong = strings(&sheet["undealt"])
        .into_iter()
        .find(|c| !layout.contains(c))
        .unwrap();
    let (t1, t3) = (&tables[0], &tables[2]);
    let right = app
        .act(
            t1,
            &t1.host,
            None,
            json!({"type": "deal", "face_up": [layout[1], layout[0]]}),
        )
        .await;
    assert_eq!(right.status, StatusCode::CREATED, "{}", right.text);
    assert!(
        right.body["event"].get("fouled").is_none(),
        "{}",
        right.text
    );
    let a = app
        .act(
            t3,
            &t3.host,
            None,
            json!({"type": "deal", "face_up": [layout[0], wrong]}),
        )
        .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let seq = a.body["event"]["seq"].as_i64().unwrap();
    let foul = json!({"board": 1, "seat": dealer, "card": wrong, "seq": seq, "face_up": true});
    // Nobody at the table reads it while the round is played; the organiser does, on the round.
    assert!(a.body["event"].get("fouled").is_none(), "{}", a.text);
    for token in [&t3.host, &t3.seats[2]] {
        let log = app.events(t3, Some(token)).await;
        assert!(log.iter().all(|e| e.get("fouled").is_none()), "{log:?}");
    }
    let organiser = app
        .get(&format!("/v1/tournaments/{tid}/rounds/1"), Some(&org))
        .await;
    assert_eq!(organiser.body["tokens"][2]["fouls"], json!([foul]));
    assert!(organiser.body["tokens"][0].get("fouls").is_none());
    // Table 1 still plays: table 3's log is not its to read, and no standings name the foul.
    let other = app
        .get(
            &format!("/v1/matches/{}/events?after=0", t3.id),
            Some(&t1.host),
        )
        .await;
    assert_eq!(other.status, StatusCode::UNAUTHORIZED);
    let s = app
        .get(&format!("/v1/tournaments/{tid}/standings"), None)
        .await;
    assert_eq!(s.body["fouled_boards"], json!([]));
    assert!(!app
        .view(t1, Some(&t1.host))
        .await
        .to_string()
        .contains("fouled"));
}

//! Duplicate play with real cards (issue 24, part 4): the organiser prints the round's boards
//! (JSON and a print-ready page, organiser only), every table deals board 1 from the sheet and
//! records its plays card by card, one table's wallet is fouled (two cards swapped between its
//! seats): nothing a table reads tells a foul while the round is played (the undo probe), the
//! organiser reads them on the round, and once it is complete the log names each card a seat
//! was not dealt, the standings name the fouled board,
//! and the matchpoints are exactly the stated rule's (the board scored among the clean tables,
//! the fouled table `average` or `zero`). Runs on SQLite, and on PostgreSQL with
//! `TEST_DATABASE_URL`.

mod common;

use clubroom::rules::cards::{deal_from_seed, deck_without_ranks, sort_key, Card, Seed};
use common::{Match, TestApp};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

fn names(n: usize) -> Vec<Value> {
    (0..n).map(|i| json!({"name": format!("P{i}")})).collect()
}

/// A real-card duplicate Dump tournament (`target` 1: a deal that scores ends the match) of six
/// players at three tables of two, round 1 paired: (id, organiser token, round, tables).
async fn real_card_round(
    app: &TestApp,
    fouled_board: Option<&str>,
) -> (String, String, Value, Vec<Match>) {
    let mut body = json!({"name": "Wallets", "game": "dump", "config": {"target": 1},
        "dealing": "table", "format": "swiss", "rounds": 1, "table_size": 2,
        "duplicate": true, "players": names(6)});
    if let Some(rule) = fouled_board {
        body["fouled_board"] = json!(rule);
    }
    let round = common::tournament_round_one(app, body).await;
    assert_eq!(round.3.len(), 3);
    round
}

/// Each seat's cards on every board printed (board k at index k − 1), as the JSON sheet says.
fn hands_of(boards: &Value) -> Vec<Vec<Vec<String>>> {
    boards["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            b["hands"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| {
                    h["cards"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|c| c.as_str().unwrap().to_string())
                        .collect()
                })
                .collect()
        })
        .collect()
}

fn suit(card: &str) -> char {
    card.chars().last().unwrap()
}

/// Plays table `m`'s match to its end, deal k from the wallet `wallets(k)` (each seat's cards,
/// as the table holds them): the host deals, each seat follows the led suit when it can,
/// playing its highest card (`high`) or its lowest. Answers every play as (board, seat, card,
/// seq, the answer's `event.fouled` or null), in order.
async fn play_from_wallets(
    app: &TestApp,
    m: &Match,
    high: bool,
    wallets: impl Fn(u32) -> Vec<Vec<String>>,
) -> Vec<(u32, usize, String, i64, Value)> {
    let mut plays = vec![];
    for board in 1..=4u32 {
        let d = app.act(m, &m.host, None, json!({"type": "deal"})).await;
        assert_eq!(d.status, StatusCode::CREATED, "{}", d.text);
        let mut hands = wallets(board);
        let mut trick: Vec<String> = vec![];
        for _ in 0..40 {
            let v = app.view(m, Some(&m.host)).await;
            let seat = v["to_act"][0].as_u64().expect("a seat to act") as usize;
            let hand = &mut hands[seat];
            let led = trick.first().map(|c| suit(c));
            let follow: Vec<usize> = (0..hand.len())
                .filter(|&i| Some(suit(&hand[i])) == led)
                .collect();
            let choices: Vec<usize> = if follow.is_empty() {
                (0..hand.len()).collect()
            } else {
                follow
            };
            let pick = if high {
                choices[0]
            } else {
                *choices.last().unwrap()
            };
            let card = hand.remove(pick);
            let a = app
                .act(
                    m,
                    &m.host,
                    Some(seat),
                    json!({"type": "play", "card": card}),
                )
                .await;
            assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
            let event = &a.body["event"];
            plays.push((
                board,
                seat,
                card.clone(),
                event["seq"].as_i64().unwrap(),
                event.get("fouled").cloned().unwrap_or(Value::Null),
            ));
            trick.push(card);
            if trick.len() == 2 {
                trick.clear();
            }
        }
        assert!(hands.iter().all(Vec::is_empty));
        if app.view(m, Some(&m.host)).await["status"] == "finished" {
            return plays;
        }
    }
    panic!("the match did not end in four deals");
}

/// The matchpoints the stated rule gives, computed here from the tables' deals: per table and
/// unit, (matchpoints, most possible). Board k is compared among the tables that have deal k and
/// did not foul it (2 per result beaten, 1 per tie); a table that fouled it gets, with C clean
/// tables, C − 1 (`average`) or 0 (`zero`) out of 2 × (C − 1).
fn expected_matchpoints(
    deals: &[Vec<Vec<i64>>],
    fouled: &[(usize, usize)],
    rule: &str,
) -> Vec<Vec<(i64, i64)>> {
    let most = deals.iter().map(Vec::len).max().unwrap();
    let mut out: Vec<Vec<(i64, i64)>> = deals.iter().map(|_| vec![(0, 0); 2]).collect();
    for k in 0..most {
        let clean: Vec<usize> = (0..deals.len())
            .filter(|&t| deals[t].len() > k && !fouled.contains(&(t, k)))
            .collect();
        let c = clean.len() as i64;
        for t in 0..deals.len() {
            if deals[t].len() <= k {
                continue;
            }
            for u in 0..2 {
                if fouled.contains(&(t, k)) {
                    let top = 2 * (c - 1).max(0);
                    out[t][u].0 += if rule == "average" { top / 2 } else { 0 };
                    out[t][u].1 += top;
                    continue;
                }
                for &o in clean.iter().filter(|&&o| o != t) {
                    let (a, b) = (deals[t][k][u], deals[o][k][u]);
                    out[t][u].0 += match a.cmp(&b) {
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

/// Two tables play the boards as printed, the third swaps a card of seat 0's with one of seat
/// 1's before board 1 is played (after the undo probe: its host cannot learn a seat's board by
/// recording a card and undoing it): while the round is played the fouls show to the organiser
/// alone, on the round; once it is complete each swapped card it played is named in its log,
/// the standings name the board, and every unit's matchpoints are the rule's.
async fn fouled_wallet(rule: Option<&str>) {
    let app = TestApp::spawn().await;
    let (tid, org, round, tables) = real_card_round(&app, rule).await;
    let rule = rule.unwrap_or("average");
    let boards_url = format!("/v1/tournaments/{tid}/rounds/1/boards?count=4");
    let b = app.get(&boards_url, Some(&org)).await;
    assert_eq!(b.status, StatusCode::OK, "{}", b.text);
    assert_eq!(b.body["round"], 1);
    assert_eq!(b.body["game"], "dump");
    assert_eq!(b.body["seats"], 2);
    let printed = hands_of(&b.body);
    assert_eq!(printed.len(), 4);
    for (k, board) in printed.iter().enumerate() {
        let sheet = &b.body["boards"][k];
        assert_eq!(sheet["board"], k + 1);
        // Dump's first dealer is seat 0 and the deal passes left: board k's dealer.
        assert_eq!(sheet["dealer"], k % 2);
        assert_eq!(sheet["undealt"], json!([]));
        // Twenty cards each, the whole 40-card pack between them, sorted by suit (♠ ♥ ♦ ♣),
        // highest first, and the same cards suit by suit.
        let mut all: Vec<Card> = vec![];
        for (seat, hand) in board.iter().enumerate() {
            assert_eq!(hand.len(), 20);
            let cards: Vec<Card> = hand.iter().map(|c| c.parse().unwrap()).collect();
            let mut sorted = cards.clone();
            sorted.sort_by_key(|c| sort_key(*c));
            assert_eq!(cards, sorted);
            let h = &sheet["hands"][seat];
            assert_eq!(h["seat_name"], format!("Seat {}", seat + 1));
            let by_suit: Vec<String> = h["suits"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|s| {
                    let letter = s["suit"].as_str().unwrap().to_string();
                    s["ranks"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(move |r| format!("{}{letter}", r.as_str().unwrap()))
                        .collect::<Vec<_>>()
                })
                .collect();
            assert_eq!(&by_suit, hand);
            all.extend(cards);
        }
        all.sort_by_key(|c| sort_key(*c));
        all.dedup();
        assert_eq!(all.len(), 40);
    }
    // Board 1 as the same sheet from board 1 on, and board 3 alone.
    let again = app
        .get(
            &format!("/v1/tournaments/{tid}/rounds/1/boards?from=3&count=1"),
            Some(&org),
        )
        .await;
    assert_eq!(again.body["boards"][0]["board"], 3);
    assert_eq!(hands_of(&again.body)[0], printed[2]);

    // Table 3's wallet for board 1: seat 0's first card and seat 1's first card swapped.
    let swapped = {
        let mut w = printed[0].clone();
        let (a, b) = (w[0][0].clone(), w[1][0].clone());
        w[0][0] = b;
        w[1][0] = a;
        w
    };
    let (t1, t2, t3) = (&tables[0], &tables[1], &tables[2]);
    // The undo probe first: table 3's host records for the seat to lead a card the other seat
    // was dealt, then one of its own; nothing it can read tells the two apart.
    let d = app.act(t3, &t3.host, None, json!({"type": "deal"})).await;
    assert_eq!(d.status, StatusCode::CREATED, "{}", d.text);
    let seat = app.view(t3, Some(&t3.host)).await["to_act"][0]
        .as_u64()
        .unwrap() as usize;
    common::probe::undo_probe(
        &app,
        &tid,
        &org,
        3,
        t3,
        1,
        seat,
        |card| json!({"type": "play", "card": card}),
        &printed[0][1 - seat][0],
        &printed[0][seat][0],
    )
    .await;
    assert_eq!(app.undo(t3, &t3.host).await.status, StatusCode::CREATED);
    let p2 = play_from_wallets(&app, t2, false, |k| printed[k as usize - 1].clone()).await;
    let p3 = play_from_wallets(&app, t3, true, |k| {
        if k == 1 {
            swapped.clone()
        } else {
            printed[k as usize - 1].clone()
        }
    })
    .await;
    // The fouls: every play of a card its seat was not dealt on the board, in order.
    let fouls_of = |plays: &[(u32, usize, String, i64, Value)]| -> Vec<Value> {
        plays
            .iter()
            .filter(|(k, seat, card, _, _)| !printed[*k as usize - 1][*seat].contains(card))
            .map(|(k, seat, card, seq, _)| json!({"board": k, "seat": seat, "card": card, "seq": seq}))
            .collect()
    };
    // What each action's answer flagged.
    let answered = |plays: &[(u32, usize, String, i64, Value)]| -> Vec<Value> {
        plays
            .iter()
            .map(|p| p.4.clone())
            .filter(|f| !f.is_null())
            .collect()
    };
    let expected_fouls = fouls_of(&p3);
    assert_eq!(expected_fouls.len(), 2, "{expected_fouls:?}");
    // No answer flagged a foul (the host could probe a seat's board through undo), and no log
    // of table 3 shows one while the round is played, to its host or its seats.
    assert!(answered(&p3).is_empty() && answered(&p2).is_empty());
    assert!(fouls_of(&p2).is_empty());
    let logged = |log: Vec<Value>| -> Vec<Value> {
        log.into_iter()
            .filter_map(|e| e.get("fouled").cloned())
            .collect()
    };
    for token in [&t3.seats[0], &t3.seats[1], &t3.host] {
        assert_eq!(
            logged(app.events(t3, Some(token)).await),
            Vec::<Value>::new()
        );
    }
    // The organiser reads them on the round, table by table.
    let organiser = app
        .get(&format!("/v1/tournaments/{tid}/rounds/1"), Some(&org))
        .await;
    assert_eq!(organiser.body["tokens"][2]["fouls"], json!(expected_fouls));
    assert!(organiser.body["tokens"][1].get("fouls").is_none());

    // Table 1 has not played yet: the foul tells it nothing (nor anyone without a token).
    for token in [Some(t1.host.as_str()), Some(t1.seats[0].as_str()), None] {
        let a = app
            .get(&format!("/v1/matches/{}/events?after=0", t3.id), token)
            .await;
        let expected = match token {
            Some(_) => (StatusCode::UNAUTHORIZED, "unauthorized"),
            None => (StatusCode::FORBIDDEN, "round_in_play"),
        };
        assert_eq!((a.status, a.code()), expected, "{}", a.text);
        assert!(!a.text.contains("fouled"));
        let s = app
            .get(&format!("/v1/tournaments/{tid}/standings"), token)
            .await;
        assert_eq!(s.body["fouled_boards"], json!([]), "{}", s.text);
        // Nor do the boards, sheet or page.
        for path in ["boards", "boards.html"] {
            let a = app
                .get(&format!("/v1/tournaments/{tid}/rounds/1/{path}"), token)
                .await;
            let expected = match token {
                Some(_) => (StatusCode::FORBIDDEN, "organiser_only"),
                None => (StatusCode::UNAUTHORIZED, "unauthorized"),
            };
            assert_eq!((a.status, a.code()), expected, "{}", a.text);
        }
    }
    let p1 = play_from_wallets(&app, t1, true, |k| printed[k as usize - 1].clone()).await;
    assert!(fouls_of(&p1).is_empty());

    // The round is complete: its secret is out, and board k is what it derives (the documented
    // shuffle of seed k = SHA-256("<secret>:<k>"), dealt from the dealer's left).
    let public = app.get(&format!("/v1/tournaments/{tid}"), None).await;
    let r1 = &public.body["rounds"][0];
    assert_eq!(r1["complete"], true, "{}", public.text);
    let secret = r1["secret"].as_str().unwrap();
    for (k, board) in printed.iter().enumerate() {
        let seed = Seed(Sha256::digest(format!("{secret}:{}", k + 1).as_bytes()).into());
        let (hands, _) = deal_from_seed(deck_without_ranks(&[4, 5, 6]), &seed, 2, 20, k % 2);
        for (seat, hand) in hands.iter().enumerate() {
            let mut cards = hand.to_vec();
            cards.sort_by_key(|c| sort_key(*c));
            let text: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
            assert_eq!(&text, &board[seat], "board {} seat {seat}", k + 1);
        }
    }
    // The matchpoints: board 1 among tables 1 and 2; table 3 by the rule.
    let deals: Vec<Vec<Vec<i64>>> = (0..3)
        .map(|t| serde_json::from_value(r1["tables"][t]["result"]["deals"].clone()).unwrap())
        .collect();
    let expected = expected_matchpoints(&deals, &[(2, 0)], rule);
    for (t, want) in expected.iter().enumerate() {
        let result = &r1["tables"][t]["result"];
        let got: Vec<(i64, i64)> = (0..2)
            .map(|u| {
                (
                    result["matchpoints"][u].as_i64().unwrap(),
                    result["max_matchpoints"][u].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(&got, want, "table {}: {}", t + 1, result);
    }
    // Table 3 on board 1: with two clean tables, average is 1 of 2, zero 0 of 2.
    let board1_for_t3 = if rule == "average" { 1 } else { 0 };
    if deals[2].len() == 1 {
        assert_eq!(expected[2], vec![(board1_for_t3, 2), (board1_for_t3, 2)]);
    }
    let standings = app
        .get(&format!("/v1/tournaments/{tid}/standings"), None)
        .await;
    assert_eq!(standings.body["fouled_board"], rule);
    let first = &expected_fouls[0];
    assert_eq!(
        standings.body["fouled_boards"],
        json!([{"round": 1, "table": 3, "board": 1, "seat": first["seat"], "card": first["card"]}])
    );
    for (t, want) in expected.iter().enumerate() {
        for (seat, &(mp, max)) in want.iter().enumerate() {
            let player = &round["tables"][t]["players"][seat]["player_id"];
            let row = standings.body["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| &r["player_id"] == player)
                .unwrap();
            assert_eq!(
                (row["matchpoints"].as_i64(), row["max_matchpoints"].as_i64()),
                (Some(mp), Some(max)),
                "{row}"
            );
        }
    }
    // The whole log is public now, fouls included, to the table's tokens as to anyone.
    for token in [None, Some(t3.host.as_str()), Some(t3.seats[0].as_str())] {
        assert_eq!(logged(app.events(t3, token).await), expected_fouls);
    }
}

#[actix_web::test]
async fn a_fouled_board_scores_average_and_the_clean_tables_among_themselves() {
    fouled_wallet(None).await;
}

#[actix_web::test]
async fn a_fouled_board_scores_zero_when_the_club_says_so() {
    fouled_wallet(Some("zero")).await;
}

#[actix_web::test]
async fn the_print_page_is_the_organisers_a4_deal_sheet_and_curtain_cards() {
    let app = TestApp::spawn().await;
    let (tid, org, _, tables) = real_card_round(&app, None).await;
    let b = app
        .get(
            &format!("/v1/tournaments/{tid}/rounds/1/boards?count=2"),
            Some(&org),
        )
        .await;
    let printed = hands_of(&b.body);
    let r = app
        .client
        .get(format!(
            "{}/v1/tournaments/{tid}/rounds/1/boards.html?count=2",
            app.base
        ))
        .bearer_auth(&org)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let csp = r.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        csp.starts_with("default-src 'none'; style-src 'sha256-"),
        "{csp}"
    );
    assert_eq!(
        r.headers()["content-type"].to_str().unwrap(),
        "text/html; charset=utf-8"
    );
    assert_eq!(r.headers()["cache-control"].to_str().unwrap(), "no-store");
    let page = r.text().await.unwrap();
    // The style the policy allows is the page's one style element, by its hash.
    let style = page
        .split("<style>")
        .nth(1)
        .unwrap()
        .split("</style>")
        .next()
        .unwrap();
    use base64::Engine;
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(style.as_bytes()));
    assert!(csp.contains(&format!("'sha256-{hash}'")), "{csp}");
    assert!(style.contains("@page{size:A4"));
    assert!(!page.contains("<script"));
    // A deal sheet and curtain cards for each board, each seat's cards suit by suit.
    for (k, board) in printed.iter().enumerate() {
        let n = k + 1;
        assert_eq!(
            page.matches(&format!("<h1>Board {n} — deal sheet</h1>"))
                .count(),
            1
        );
        assert_eq!(
            page.matches(&format!("<h2>Board {n} — curtain cards</h2>"))
                .count(),
            1
        );
        for (seat, hand) in board.iter().enumerate() {
            let name = format!("Seat {}", seat + 1);
            assert!(page.contains(&format!("<h3>{name} (20 cards)</h3>")));
            assert!(page.contains(&format!("<h3>Board {n} · {name}</h3>")));
            // The spades line as printed: ♠ then the ranks, 10 for T, or — for a void.
            let spades: Vec<String> = hand
                .iter()
                .filter(|c| c.ends_with('S'))
                .map(|c| {
                    let r = &c[..c.len() - 1];
                    if r == "T" {
                        "10".to_string()
                    } else {
                        r.to_string()
                    }
                })
                .collect();
            let line = if spades.is_empty() {
                "—".to_string()
            } else {
                spades.join(" ")
            };
            assert!(
                page.contains(&format!(
                    "<div class=\"suit\"><span class=\"\">♠</span> {line}</div>"
                )),
                "board {n} {name}: {line}"
            );
        }
    }
    // A table's host and seat tokens: refused, the page's cards nowhere in the answer.
    for token in [&tables[0].host, &tables[0].seats[1]] {
        let a = app
            .get(
                &format!("/v1/tournaments/{tid}/rounds/1/boards.html"),
                Some(token),
            )
            .await;
        assert_eq!(
            (a.status, a.code()),
            (StatusCode::FORBIDDEN, "organiser_only")
        );
        assert!(!a.text.contains("deal sheet"));
    }
}

#[actix_web::test]
async fn real_card_duplicate_is_refused_where_boards_are_not_checked() {
    let app = TestApp::spawn().await;
    let create = |body: Value| {
        let app = &app;
        async move {
            app.request(Method::POST, "/v1/tournaments", None, &[], Some(body))
                .await
        }
    };
    // Every game that plays duplicate checks its boards card by card now (Bonus-Malus's draws
    // too: tests/api_duplicate_cards2.rs), so a table-dealt duplicate round is taken.
    for (game, seats) in [("bonus-malus", 4), ("plus-minus", 3), ("members-only", 3)] {
        let a = create(json!({"name": "R", "game": game, "dealing": "table",
            "format": "swiss", "rounds": 1, "table_size": seats, "duplicate": true,
            "players": names(2 * seats)}))
        .await;
        assert_eq!(a.status, StatusCode::CREATED, "{game}: {}", a.text);
    }
    // `fouled_board` outside real-card duplicate play.
    for (dealing, duplicate) in [("service", true), ("table", false)] {
        let a = create(json!({"name": "D", "game": "dump", "dealing": dealing,
            "format": "swiss", "rounds": 1, "table_size": 2, "duplicate": duplicate,
            "fouled_board": "zero", "players": names(4)}))
        .await;
        assert_eq!(a.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", a.text);
        assert_eq!(a.code(), "fouled_board_not_applicable");
    }
    let a = create(json!({"name": "D", "game": "dump", "dealing": "table",
        "format": "swiss", "rounds": 1, "table_size": 2, "duplicate": true,
        "fouled_board": "half", "players": names(4)}))
    .await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.text);
    // A service-dealt duplicate round has no printed boards (its boards are never shown).
    let a = create(json!({"name": "S", "game": "dump", "dealing": "service",
        "format": "swiss", "rounds": 1, "table_size": 2, "duplicate": true, "players": names(4)}))
    .await;
    let tid = a.body["tournament"]["id"].as_str().unwrap().to_string();
    let org = a.body["organiser_token"].as_str().unwrap().to_string();
    let url = format!("/v1/tournaments/{tid}/rounds/1/boards");
    let before = app.get(&url, Some(&org)).await;
    assert_eq!(
        (before.status, before.code()),
        (StatusCode::NOT_FOUND, "round_not_found")
    );
    let r = app
        .request(
            Method::POST,
            &format!("/v1/tournaments/{tid}/rounds"),
            Some(&org),
            &[],
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    let a = app.get(&url, Some(&org)).await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::CONFLICT, "no_printed_boards")
    );
    // Bad ranges.
    let (rid, rorg, _, _) = real_card_round(&app, None).await;
    for q in ["count=0", "count=65", "from=0", "count=x", "colour=red"] {
        let a = app
            .get(
                &format!("/v1/tournaments/{rid}/rounds/1/boards?{q}"),
                Some(&rorg),
            )
            .await;
        assert_eq!(
            (a.status, a.code()),
            (StatusCode::BAD_REQUEST, "invalid_query"),
            "{q}: {}",
            a.text
        );
    }
    let a = app
        .get(
            &format!("/v1/tournaments/{rid}/rounds/2/boards"),
            Some(&rorg),
        )
        .await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::NOT_FOUND, "round_not_found")
    );
}

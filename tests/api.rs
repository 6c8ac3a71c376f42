//! API tests: the real app on port 0 with a fresh database per test. Set `TEST_DATABASE_URL` to a
//! PostgreSQL URL to run the same suite against PostgreSQL.

mod common;

use clubroom::rules::{cards, Seed};
use common::{Match, TestApp, OPERATOR};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

/// Plays the current deal to its end with each seat's own token, choosing the first legal card.
async fn play_deal_with_seat_tokens(app: &TestApp, m: &Match) -> Value {
    loop {
        let v = app.view(m, None).await;
        let Some(seat) = v["to_act"]
            .as_array()
            .unwrap()
            .first()
            .and_then(Value::as_u64)
        else {
            return v;
        };
        let seat = seat as usize;
        let legal = app.legal(m, seat, Some(&m.seats[seat])).await;
        let a = app
            .act(m, &m.seats[seat], Some(seat), legal[0].clone())
            .await;
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
        if a.body["match"]["table_to_act"] == json!(true) || a.body["match"]["status"] == "finished"
        {
            return a.body["match"].clone();
        }
    }
}

#[actix_web::test]
async fn a_service_dealt_dump_match_is_played_to_the_finish_over_http() {
    let app = TestApp::spawn().await;
    let m = app
        .create("dump", 4, "service", json!({"target": 100}))
        .await;
    let mut deals = 0;
    loop {
        let a = app.act(&m, &m.host, None, json!({"type": "deal"})).await;
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
        deals += 1;
        let after = play_deal_with_seat_tokens(&app, &m).await;
        let sheet = &after["scores"];
        let last = sheet["rounds"].as_array().unwrap().last().unwrap().clone();
        let captured: Vec<i64> = last["detail"]["captured"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_i64().unwrap())
            .collect();
        assert_eq!(
            captured.iter().sum::<i64>(),
            160,
            "every deal's card points sum to 160"
        );
        let expected: Vec<i64> = captured
            .iter()
            .map(|&c| if c > 80 { c - 80 } else { 0 })
            .collect();
        assert_eq!(last["points"], json!(expected));
        if after["status"] == "finished" {
            break;
        }
        assert!(deals < 200, "a match to 100 ends");
    }
    let sheet = app
        .get(&format!("/v1/matches/{}/scores", m.id), None)
        .await
        .body;
    let totals: Vec<i64> = sheet["totals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_i64().unwrap())
        .collect();
    let sums: Vec<i64> = (0..2)
        .map(|side| {
            sheet["rounds"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["points"][side].as_i64().unwrap())
                .sum()
        })
        .collect();
    assert_eq!(totals, sums, "totals are the sum of the rounds");
    let winner = if totals[0] >= 100 { 0 } else { 1 };
    assert!(totals[winner] >= 100 && totals[1 - winner] < 100);
    assert_eq!(sheet["finished"], json!(true));
    assert_eq!(sheet["winners"], json!([winner]));
    assert_eq!(sheet["margin"], json!(totals[winner] - totals[1 - winner]));
    assert_eq!(sheet["unit"], "side");
    assert_eq!(sheet["sides"], json!([[0, 2], [1, 3]]));
    // Further actions are refused, and nothing is recorded.
    let seq = app.view(&m, None).await["seq"].clone();
    let a = app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "match_finished")
    );
    assert_eq!(app.view(&m, None).await["seq"], seq);
    // The list shows it finished.
    let list = app
        .get("/v1/matches?game=dump&status=finished", Some(OPERATOR))
        .await;
    assert_eq!(list.body["matches"][0]["id"], json!(m.id));
}

#[actix_web::test]
async fn a_table_dealt_deal_is_recorded_card_by_card_and_scored_exactly() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 4, "table", json!({})).await;
    app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    // Ten tricks, each led by the previous winner; the host records for every seat.
    // Seat 1 leads (left of dealer 0). Each trick: the four cards of one rank group by suit.
    let tricks: [[&str; 4]; 10] = [
        ["2S", "3S", "7S", "AS"], // seat 1 leads 2S; seat 0 (4th) AS wins: 2+3+7+1 = 13
        ["2H", "3H", "7H", "8H"], // seat 0 leads; seat 3 plays 8H and wins: 20
        ["2D", "3D", "7D", "8D"], // seat 3 leads; seat 2 wins: 20
        ["2C", "3C", "7C", "8C"], // seat 2 leads; seat 1 wins: 20
        ["8S", "9S", "TS", "JS"], // seat 1 leads; seat 0 wins (JS): 27
        ["9H", "TH", "JH", "QH"], // seat 0 leads; seat 3 wins (QH): 19
        ["9D", "TD", "JD", "QD"], // seat 3 leads; seat 2 wins: 19
        ["9C", "TC", "JC", "QC"], // seat 2 leads; seat 1 wins: 19
        ["QS", "KS", "KH", "KD"], // seat 1 leads QS; seat 2 KS wins; KH, KD discards: 0
        ["AH", "AD", "AC", "KC"], // seat 2 leads AH (wins); 1+1+1+0 = 3
    ];
    let winners = [0, 3, 2, 1, 0, 3, 2, 1, 2, 2];
    let points = [13, 20, 20, 20, 27, 19, 19, 19, 0, 3];
    let mut leader = 1;
    for (t, cards) in tricks.iter().enumerate() {
        for (k, card) in cards.iter().enumerate() {
            let seat = (leader + k) % 4;
            let a = app
                .act(
                    &m,
                    &m.host,
                    Some(seat),
                    json!({"type": "play", "card": card}),
                )
                .await;
            assert_eq!(
                a.status,
                StatusCode::CREATED,
                "trick {t} card {card}: {}",
                a.text
            );
            if k == 3 {
                let trick = a.body["event"]["outcome"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|o| o["type"] == "trick")
                    .unwrap()
                    .clone();
                assert_eq!(trick["winner"], json!(winners[t]), "trick {t}");
                assert_eq!(trick["points"], json!(points[t]), "trick {t}");
            }
        }
        leader = winners[t];
    }
    // Side 0 (seats 0, 2): 13+20+27+19+0+3 = 82; side 1: 20+19+20+19 = 78. Side 0 scores 2.
    let sheet = app
        .get(&format!("/v1/matches/{}/scores", m.id), None)
        .await
        .body;
    assert_eq!(sheet["rounds"][0]["detail"]["captured"], json!([82, 78]));
    assert_eq!(sheet["rounds"][0]["points"], json!([2, 0]));
    assert_eq!(sheet["totals"], json!([2, 0]));
    // Seats 3 and 0 showed out of spades in trick 9 and never played a spade again: no revoke.
    let view = app.view(&m, None).await;
    assert_eq!(view["table"]["revokes"], json!([]));
    assert_eq!(view["table_to_act"], json!(true));
    assert_eq!(view["dealer"], json!(1), "the deal passes to the left");
    // CSV: one row per round, a column per side named by its partners.
    let csv = app
        .request(
            Method::GET,
            &format!("/v1/matches/{}/scores", m.id),
            None,
            &[("accept", "text/csv")],
            None,
        )
        .await;
    assert!(csv.content_type.starts_with("text/csv"));
    assert_eq!(
        csv.text,
        "round,label,multiplier,Player 0 & Player 2,Player 1 & Player 3\n1,Deal 1,1,2,0\ntotal,Total,,2,0\n"
    );
    let csv2 = app
        .get(&format!("/v1/matches/{}/scores.csv", m.id), None)
        .await;
    assert_eq!(csv2.text, csv.text);
}

#[actix_web::test]
async fn the_sheet_in_every_answer_follows_undo_and_a_different_tally_in_its_place() {
    // The service writes a match's sheet once per line (`SheetMemo`): an undo, and a different
    // deal recorded at the same place on the sheet, must show in the very next answer.
    let app = TestApp::spawn().await;
    let m = app
        .create("dump", 2, "table", json!({"target": 1000}))
        .await;
    let tally = |points: [i64; 2]| json!({"type": "tally", "points": points});
    let sheet = |a: &common::Answer| a.body["match"]["scores"].clone();
    let scores = || async {
        app.get(&format!("/v1/matches/{}/scores", m.id), None)
            .await
            .body
    };
    let a = app.act(&m, &m.host, None, tally([100, 60])).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    assert_eq!(sheet(&a)["totals"], json!([20, 0]));
    assert_eq!(sheet(&a), scores().await);
    let a = app.act(&m, &m.host, None, tally([70, 90])).await;
    assert_eq!(sheet(&a)["totals"], json!([20, 10]));
    assert_eq!(sheet(&a)["rounds"].as_array().unwrap().len(), 2);
    let u = app.undo(&m, &m.host).await;
    assert_eq!(u.status, StatusCode::CREATED, "{}", u.text);
    assert_eq!(sheet(&u)["totals"], json!([20, 0]));
    assert_eq!(sheet(&u)["rounds"].as_array().unwrap().len(), 1);
    assert_eq!(sheet(&u), scores().await);
    // Deal 2 again, the other way: same number of lines as before the undo, other figures.
    let a = app.act(&m, &m.host, None, tally([95, 65])).await;
    assert_eq!(sheet(&a)["totals"], json!([35, 0]));
    assert_eq!(sheet(&a)["rounds"][1]["points"], json!([15, 0]));
    assert_eq!(sheet(&a), scores().await);
    assert_eq!(app.view(&m, None).await["scores"], scores().await);
    // A deal played card by card leaves the sheet as it is until the deal is tallied.
    let a = app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    assert_eq!(sheet(&a), scores().await);
    assert_eq!(sheet(&a)["totals"], json!([35, 0]));
}

#[actix_web::test]
async fn tallies_record_whole_deals_and_reaching_the_target_ends_the_match() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 2, "table", json!({"target": 30})).await;
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [80, 81]}),
        )
        .await;
    assert_eq!(a.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(a.code(), "tally_sum");
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [80, 80]}),
        )
        .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    assert_eq!(
        a.body["match"]["scores"]["rounds"][0]["points"],
        json!([0, 0]),
        "80-80 scores nothing"
    );
    app.act(
        &m,
        &m.host,
        None,
        json!({"type": "tally", "points": [100, 60]}),
    )
    .await;
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [65, 95]}),
        )
        .await;
    assert_eq!(a.body["match"]["status"], "in_progress");
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [91, 69]}),
        )
        .await;
    let s = &a.body["match"]["scores"];
    assert_eq!(s["totals"], json!([31, 15]));
    assert_eq!(
        (
            s["finished"].clone(),
            s["winners"].clone(),
            s["margin"].clone()
        ),
        (json!(true), json!([0]), json!(16))
    );
    assert_eq!(s["unit"], "seat");
    assert_eq!(a.body["match"]["status"], "finished");
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [80, 80]}),
        )
        .await;
    assert_eq!(a.code(), "match_finished");
}

#[actix_web::test]
async fn every_error_is_problem_json_with_the_right_status_and_code() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 4, "service", json!({})).await;
    let path = format!("/v1/matches/{}/actions", m.id);
    let deal = json!({"seat": null, "action": {"type": "deal"}});
    let check = |a: &common::Answer, status: u16, code: &str| {
        assert_eq!(a.status.as_u16(), status, "{}", a.text);
        assert_eq!(a.code(), code, "{}", a.text);
        assert_eq!(a.content_type, "application/problem+json");
        assert_eq!(a.body["status"], json!(status));
        assert!(a.body["detail"].as_str().is_some_and(|d| !d.is_empty()));
    };
    // 401: no token, unknown token, malformed header.
    check(
        &app.request(Method::POST, &path, None, &[], Some(deal.clone()))
            .await,
        401,
        "unauthorized",
    );
    check(
        &app.request(Method::POST, &path, Some("nope"), &[], Some(deal.clone()))
            .await,
        401,
        "unauthorized",
    );
    check(
        &app.request(
            Method::POST,
            &path,
            None,
            &[("authorization", "Basic x")],
            Some(deal.clone()),
        )
        .await,
        401,
        "unauthorized",
    );
    // A token of another match is not valid here.
    let other = app.create("dump", 2, "table", json!({})).await;
    check(
        &app.request(
            Method::POST,
            &path,
            Some(&other.host),
            &[],
            Some(deal.clone()),
        )
        .await,
        401,
        "unauthorized",
    );
    // 403: a seat token for the table, or for another seat.
    check(
        &app.act(&m, &m.seats[1], None, json!({"type": "deal"}))
            .await,
        403,
        "host_only",
    );
    app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    let legal1 = app.legal(&m, 1, Some(&m.seats[1])).await;
    check(
        &app.act(&m, &m.seats[2], Some(1), legal1[0].clone()).await,
        403,
        "not_your_seat",
    );
    check(&app.undo(&m, &m.seats[0]).await, 403, "host_only");
    // Service dealing: a seat's legal list needs its own token.
    check(
        &app.get(&format!("/v1/matches/{}/legal?seat=1", m.id), None)
            .await,
        401,
        "unauthorized",
    );
    check(
        &app.get(
            &format!("/v1/matches/{}/legal?seat=1", m.id),
            Some(&m.seats[2]),
        )
        .await,
        403,
        "hand_is_private",
    );
    // 404.
    check(
        &app.get("/v1/matches/0123456789abcdef0123456789abcdef", None)
            .await,
        404,
        "match_not_found",
    );
    check(
        &app.act(
            &Match {
                id: "nope".into(),
                host: m.host.clone(),
                seats: vec![],
                body: Value::Null,
            },
            &m.host,
            None,
            json!({"type": "deal"}),
        )
        .await,
        404,
        "match_not_found",
    );
    check(&app.get("/v2/nothing", None).await, 404, "not_found");
    let wrong_method = app
        .request(
            Method::DELETE,
            &format!("/v1/matches/{}", m.id),
            Some(&m.host),
            &[],
            None,
        )
        .await;
    check(&wrong_method, 405, "method_not_allowed");
    check(
        &app.request(Method::PUT, "/v1/matches", None, &[], None)
            .await,
        405,
        "method_not_allowed",
    );
    // 400: malformed JSON, unknown field, wrong type, unknown action type, bad card text.
    check(
        &app.post_raw(
            &path,
            Some(&m.host),
            "application/json",
            b"{\"seat\": 1,".to_vec(),
        )
        .await,
        400,
        "invalid_body",
    );
    check(
        &app.request(
            Method::POST,
            &path,
            Some(&m.host),
            &[],
            Some(json!({"seat": 1, "action": {"type": "play", "card": "7H"}, "extra": 1})),
        )
        .await,
        400,
        "invalid_body",
    );
    check(
        &app.request(
            Method::POST,
            &path,
            Some(&m.host),
            &[],
            Some(json!({"seat": "one", "action": {"type": "deal"}})),
        )
        .await,
        400,
        "invalid_body",
    );
    check(
        &app.act(&m, &m.host, Some(1), json!({"type": "fold"})).await,
        400,
        "invalid_action",
    );
    check(
        &app.act(&m, &m.host, Some(1), json!({"type": "play", "card": "ZZ"}))
            .await,
        400,
        "invalid_action",
    );
    check(
        &app.act(
            &m,
            &m.host,
            Some(1),
            json!({"type": "play", "card": "7H", "colour": "red"}),
        )
        .await,
        400,
        "invalid_action",
    );
    check(
        &app.get("/v1/matches?limit=0", None).await,
        400,
        "invalid_query",
    );
    check(
        &app.get("/v1/matches?bogus=1", None).await,
        400,
        "invalid_query",
    );
    // 415: not JSON.
    check(
        &app.post_raw(&path, Some(&m.host), "text/plain", b"hello".to_vec())
            .await,
        415,
        "unsupported_media_type",
    );
    // 413: too large.
    let big = json!({"seat": 1, "action": {"type": "play", "card": "x".repeat(100_000)}});
    check(
        &app.request(Method::POST, &path, Some(&m.host), &[], Some(big))
            .await,
        413,
        "payload_too_large",
    );
    // 412: stale If-Match.
    check(
        &app.act_with(
            &m,
            &m.host,
            Some(1),
            legal1[0].clone(),
            &[("if-match", "\"0\"")],
        )
        .await,
        412,
        "stale_version",
    );
    // 422: the rules, with the legal alternatives for the seat's own token.
    let not_held: Vec<&str> = [
        "2S", "3S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS", "2H", "3H",
    ]
    .into_iter()
    .filter(|c| !legal1.contains(&json!({"type": "play", "card": c})))
    .collect();
    let a = app
        .act(
            &m,
            &m.seats[1],
            Some(1),
            json!({"type": "play", "card": not_held[0]}),
        )
        .await;
    check(&a, 422, "card_not_in_hand");
    assert_eq!(a.body["legal"], json!(legal1));
    check(
        &app.act(
            &m,
            &m.seats[2],
            Some(2),
            json!({"type": "play", "card": "7H"}),
        )
        .await,
        422,
        "not_your_turn",
    );
    check(
        &app.act(&m, &m.host, Some(9), json!({"type": "play", "card": "7H"}))
            .await,
        422,
        "no_such_seat",
    );
    check(
        &app.act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [80, 80]}),
        )
        .await,
        422,
        "tally_not_allowed",
    );
    check(
        &app.request(
            Method::POST,
            "/v1/matches",
            None,
            &[],
            Some(json!({"game": "chess", "players": [{"name": "a"}, {"name": "b"}]})),
        )
        .await,
        422,
        "unknown_game",
    );
    check(
        &app.request(
            Method::POST,
            "/v1/matches",
            None,
            &[],
            Some(json!({"game": "dump", "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]})),
        )
        .await,
        422,
        "bad_player_count",
    );
    check(
        &app.request(Method::POST, "/v1/matches", None, &[], Some(json!({"game": "dump", "players": [{"name": "a"}, {"name": "b"}], "config": {"target": 0}}))).await,
        422,
        "invalid_config",
    );
    check(
        &app.request(Method::POST, "/v1/matches", None, &[], Some(json!({"game": "dump", "players": [{"name": "a"}, {"name": "b"}], "config": {"trumps": true}}))).await,
        422,
        "invalid_config",
    );
    check(
        &app.request(
            Method::POST,
            "/v1/matches",
            None,
            &[],
            Some(json!({"game": "dump", "players": [{"name": "  "}, {"name": "b"}]})),
        )
        .await,
        400,
        "invalid_player_name",
    );
    // Nothing above was recorded: only the deal.
    assert_eq!(app.view(&m, None).await["seq"], json!(1));
    assert_eq!(app.events(&m, None).await.len(), 1);
}

#[actix_web::test]
async fn an_idempotent_retry_records_one_event_and_replays_the_first_answer() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 4, "table", json!({})).await;
    let key = [("idempotency-key", "deal-1")];
    let first = app
        .act_with(&m, &m.host, None, json!({"type": "deal"}), &key)
        .await;
    assert_eq!(first.status, StatusCode::CREATED);
    // The same key and body, even with a now-stale If-Match, gets the first answer again.
    let again = app
        .act_with(
            &m,
            &m.host,
            None,
            json!({"type": "deal"}),
            &[("idempotency-key", "deal-1"), ("if-match", "\"0\"")],
        )
        .await;
    assert_eq!(again.status, StatusCode::CREATED);
    assert_eq!(again.body, first.body);
    // The same key with another body is a conflict.
    let other = app
        .act_with(
            &m,
            &m.host,
            Some(1),
            json!({"type": "play", "card": "7H"}),
            &key,
        )
        .await;
    assert_eq!(
        (other.status, other.code()),
        (StatusCode::CONFLICT, "idempotency_key_reused")
    );
    // The same key from another token is another request too.
    let seat = app
        .act_with(&m, &m.seats[1], None, json!({"type": "deal"}), &key)
        .await;
    assert_eq!(seat.status, StatusCode::CONFLICT);
    assert_eq!(app.events(&m, None).await.len(), 1);
    assert_eq!(app.view(&m, None).await["seq"], json!(1));
}

#[actix_web::test]
async fn if_match_guards_against_a_lost_update() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 4, "table", json!({})).await;
    let v = app.get(&format!("/v1/matches/{}", m.id), None).await;
    assert_eq!(v.etag.as_deref(), Some("\"0\""));
    let a = app
        .act_with(
            &m,
            &m.host,
            None,
            json!({"type": "deal"}),
            &[("if-match", "\"0\"")],
        )
        .await;
    assert_eq!(a.status, StatusCode::CREATED);
    assert_eq!(a.etag.as_deref(), Some("\"1\""));
    let b = app
        .act_with(
            &m,
            &m.host,
            Some(1),
            json!({"type": "play", "card": "7H"}),
            &[("if-match", "\"0\"")],
        )
        .await;
    assert_eq!(
        (b.status, b.code()),
        (StatusCode::PRECONDITION_FAILED, "stale_version")
    );
    let c = app
        .act_with(
            &m,
            &m.host,
            Some(1),
            json!({"type": "play", "card": "7H"}),
            &[("if-match", "\"1\"")],
        )
        .await;
    assert_eq!(c.status, StatusCode::CREATED);
}

#[actix_web::test]
async fn undo_retracts_the_last_standing_action_and_shows_in_the_log() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 4, "table", json!({})).await;
    let a = app.undo(&m, &m.host).await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "nothing_to_undo")
    );
    app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    app.act(&m, &m.host, Some(1), json!({"type": "play", "card": "7H"}))
        .await;
    app.act(&m, &m.host, Some(2), json!({"type": "play", "card": "8H"}))
        .await;
    let u = app.undo(&m, &m.host).await;
    assert_eq!(u.status, StatusCode::CREATED, "{}", u.text);
    assert_eq!(u.body["event"]["kind"], "undo");
    assert_eq!(u.body["event"]["retracts"], json!(3));
    assert_eq!(u.body["match"]["to_act"], json!([2]));
    assert_eq!(
        u.body["match"]["table"]["trick"],
        json!([{"seat": 1, "card": "7H"}])
    );
    // 8H is free again.
    let again = app
        .act(&m, &m.host, Some(2), json!({"type": "play", "card": "8H"}))
        .await;
    assert_eq!(again.status, StatusCode::CREATED);
    // Undo three times: the plays, then the deal itself (un-deal).
    for _ in 0..3 {
        assert_eq!(app.undo(&m, &m.host).await.status, StatusCode::CREATED);
    }
    let v = app.view(&m, None).await;
    assert_eq!(v["round"], json!(0));
    assert_eq!(v["table_to_act"], json!(true));
    assert_eq!(v["table"]["phase"], "awaiting_deal");
    let log = app.events(&m, None).await;
    assert_eq!(log.len(), 8);
    let kinds: Vec<&str> = log.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["action", "action", "action", "undo", "action", "undo", "undo", "undo"]
    );
    assert_eq!(log[2]["retracted_by"], json!(4));
    assert_eq!(log[0]["retracted_by"], json!(8));
    // A new app on the same database replays to the same state.
    let app2 = TestApp::on(&app.database_url).await;
    let v2 = app2.view(&m, None).await;
    assert_eq!(v2["seq"], json!(8));
    assert_eq!(v2["table"], v["table"]);
}

#[actix_web::test]
async fn a_hand_is_seen_only_by_its_own_seat_and_the_seed_is_revealed_when_the_deal_ends() {
    let app = TestApp::spawn().await;
    let m = app
        .create("dump", 4, "service", json!({"first_dealer": 2}))
        .await;
    let deal = app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    assert!(deal.body["match"]["you"].is_null(), "the host sees no hand");
    let commitment = deal.body["event"]["commitment"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(deal.body["event"]["seed"].is_null());
    let mut hands = vec![];
    for s in 0..4 {
        let v = app.view(&m, Some(&m.seats[s])).await;
        assert_eq!(v["you"]["seat"], json!(s));
        let hand = v["you"]["hand"].as_array().unwrap().clone();
        assert_eq!(hand.len(), 10);
        hands.push(hand);
    }
    // No other view, nor the public log, shows a hand or the seed.
    let public = app.view(&m, None).await;
    assert!(public["you"].is_null());
    let public_text = serde_json::to_string(&public).unwrap()
        + &serde_json::to_string(&app.events(&m, None).await).unwrap();
    let seat0_text = serde_json::to_string(&app.view(&m, Some(&m.seats[0])).await).unwrap();
    for card in hands[1].iter().map(|c| c.as_str().unwrap()) {
        assert!(
            !public_text.contains(&format!("\"{card}\"")),
            "{card} leaked publicly"
        );
        assert!(
            !seat0_text.contains(&format!("\"{card}\"")),
            "{card} leaked to seat 0"
        );
    }
    // Play the deal out; then the seed is revealed and re-derives every hand.
    let end = play_deal_with_seat_tokens(&app, &m).await;
    assert_eq!(end["table_to_act"], json!(true));
    let log = app.events(&m, None).await;
    let seed_hex = log[0]["seed"]
        .as_str()
        .expect("seed revealed after the deal")
        .to_string();
    let seed = Seed::from_hex(&seed_hex).unwrap();
    assert_eq!(seed.commitment(), commitment);
    let (derived, _) =
        cards::deal_from_seed(cards::deck_without_ranks(&[4, 5, 6]), &seed, 4, 10, 2);
    for s in 0..4 {
        let derived_hand: Vec<Value> = derived[s].iter().map(|c| json!(c.to_string())).collect();
        assert_eq!(derived_hand, hands[s], "seat {s}");
    }
}

#[actix_web::test]
async fn concurrent_writers_never_lose_or_double_an_event() {
    let app = TestApp::spawn().await;
    let m = app
        .create("dump", 2, "table", json!({"target": 100000}))
        .await;
    // 40 tallies from 8 concurrent clients: each is recorded exactly once.
    let mut tasks = vec![];
    for w in 0..8 {
        let base = app.base.clone();
        let id = m.id.clone();
        let host = m.host.clone();
        tasks.push(actix_web::rt::spawn(async move {
            let client = reqwest::Client::new();
            let mut ok = 0;
            for i in 0..5 {
                let r = client
                    .post(format!("{base}/v1/matches/{id}/actions"))
                    .bearer_auth(&host)
                    .header("idempotency-key", format!("w{w}-{i}"))
                    .json(&json!({"seat": null, "action": {"type": "tally", "points": [100, 60]}}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status(), StatusCode::CREATED);
                ok += 1;
            }
            ok
        }));
    }
    let mut acknowledged = 0;
    for t in tasks {
        acknowledged += t.await.unwrap();
    }
    assert_eq!(acknowledged, 40);
    let log = app.events(&m, None).await;
    let seqs: Vec<i64> = log.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(seqs, (1..=40).collect::<Vec<i64>>());
    let sheet = app
        .get(&format!("/v1/matches/{}/scores", m.id), None)
        .await
        .body;
    assert_eq!(sheet["totals"], json!([800, 0]));
}

#[actix_web::test]
async fn two_instances_on_one_database_see_each_others_writes() {
    let app = TestApp::spawn().await;
    let other = TestApp::on(&app.database_url).await;
    let m = app.create("dump", 4, "table", json!({})).await;
    // Both instances cache the match.
    app.view(&m, None).await;
    other.view(&m, None).await;
    app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    // The other instance sees the deal at once, and accepts the next play on top of it.
    assert_eq!(other.view(&m, None).await["seq"], json!(1));
    let a = other
        .act(&m, &m.host, Some(1), json!({"type": "play", "card": "7H"}))
        .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    // The first instance, still caching version 1, records the next play as seq 3.
    let b = app
        .act(&m, &m.host, Some(2), json!({"type": "play", "card": "8H"}))
        .await;
    assert_eq!(b.status, StatusCode::CREATED, "{}", b.text);
    assert_eq!(b.body["event"]["seq"], json!(3));
    // A card the other instance recorded is refused here too.
    let c = app
        .act(&m, &m.host, Some(3), json!({"type": "play", "card": "7H"}))
        .await;
    assert_eq!(c.code(), "card_already_played");
    let stale = other
        .act_with(
            &m,
            &m.host,
            Some(3),
            json!({"type": "play", "card": "9H"}),
            &[("if-match", "\"2\"")],
        )
        .await;
    assert_eq!(stale.status, StatusCode::PRECONDITION_FAILED);
}

/// Two instances started at the same moment on one fresh database both come up: they race to
/// apply the migrations (on SQLite sqlx takes no migration lock, so the loser must retry).
#[actix_web::test]
async fn two_stores_opened_at_once_on_a_fresh_database_both_migrate() {
    for _ in 0..3 {
        let (url, _dir) = common::fresh_database().await;
        let (a, b) = tokio::join!(
            clubroom::store::Store::connect_with(&url, common::store_options()),
            clubroom::store::Store::connect_with(&url, common::store_options())
        );
        let (a, b) = (a.expect("first store"), b.expect("second store"));
        assert_eq!(a.version("no-such-match").await.unwrap(), 0);
        assert_eq!(b.version("no-such-match").await.unwrap(), 0);
        a.close().await;
        b.close().await;
    }
}

#[actix_web::test]
async fn the_catalogue_lists_dump_and_the_list_pages_newest_first() {
    let app = TestApp::spawn().await;
    let games = app.get("/v1/games", None).await.body;
    let dump = games
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == "dump")
        .expect("dump listed")
        .clone();
    assert_eq!(dump["min_players"], json!(2));
    assert_eq!(dump["max_players"], json!(4));
    assert_eq!(
        dump["default_config"],
        json!({"target": 100, "first_dealer": 0, "seed_reveal": "round_end", "scores_only": false})
    );
    let mut ids = vec![];
    for _ in 0..5 {
        ids.push(app.create("dump", 2, "table", json!({})).await.id);
    }
    let p1 = app.get("/v1/matches?limit=2", Some(OPERATOR)).await.body;
    let got: Vec<&str> = p1["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(got, [ids[4].as_str(), ids[3].as_str()]);
    let cursor = p1["next_cursor"].as_str().unwrap();
    let p2 = app
        .get(
            &format!("/v1/matches?limit=2&cursor={cursor}"),
            Some(OPERATOR),
        )
        .await
        .body;
    let got: Vec<&str> = p2["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(got, [ids[2].as_str(), ids[1].as_str()]);
    let health = app.get("/healthz", None).await;
    // API.md's `{"status":"ok"}`, plus the database's state.
    assert_eq!(health.body, json!({"status": "ok", "database": "ok"}));
    let docs = app.get("/docs/", None).await;
    assert_eq!(docs.status, StatusCode::OK);
    assert!(docs.text.contains("swagger"), "docs page served offline");
    let spec = app.get("/openapi.json", None).await;
    assert_eq!(spec.body["info"]["title"], "Clubroom");
}

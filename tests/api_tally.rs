//! Score-only play over HTTP (the tally contract): a `scores_only` match played to its end by
//! table tallies alone, the exact score sheet; the refusals with their codes; undo of a tally.

mod common;

use common::TestApp;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// The score sheet of a match (public).
async fn sheet(app: &TestApp, id: &str) -> Value {
    let a = app.get(&format!("/v1/matches/{id}/scores"), None).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    a.body
}

/// Points per round of a sheet.
fn round_points(sheet: &Value) -> Vec<Vec<i64>> {
    sheet["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| serde_json::from_value(r["points"].clone()).unwrap())
        .collect()
}

#[actix_web::test]
async fn clubs_score_only_to_the_end_by_points_tallies() {
    let app = TestApp::spawn().await;
    let m = app
        .create("clubs", 4, "table", json!({"scores_only": true}))
        .await;
    let deals = [
        [-4, -13, -6, -3],
        [-26, 0, 0, 0], // a recount: seat 1 took every club and J♣ (−36 + 10)
        [2, -10, -10, -8],
        [-25, -1, 0, 0],
        [-26, 0, 0, 0],
    ];
    for d in deals {
        let a = app
            .act(&m, &m.host, None, json!({"type": "tally", "points": d}))
            .await;
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    }
    let s = sheet(&app, &m.id).await;
    assert_eq!(round_points(&s), deals.map(|d| d.to_vec()).to_vec());
    // −4 −26 +2 −25 −26 = −79 for seat 1 ... the match ends when a total reaches −100.
    assert_eq!(s["totals"], json!([-79, -24, -16, -11]));
    assert_eq!(s["finished"], json!(false));
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [-26, 0, 0, 0]}),
        )
        .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let s = sheet(&app, &m.id).await;
    assert_eq!(s["totals"], json!([-105, -24, -16, -11]));
    assert_eq!(s["finished"], json!(true));
    assert_eq!(s["winners"], json!([3]));
    assert_eq!(s["margin"], json!(5));
    assert_eq!(s["rounds"][0]["multiplier"], json!(1));
    assert_eq!(s["rounds"][0]["detail"]["tallied"], json!(true));
}

#[actix_web::test]
async fn clubs_points_tally_refusals() {
    let app = TestApp::spawn().await;
    let m = app
        .create("clubs", 4, "table", json!({"scores_only": true}))
        .await;
    for (points, code) in [
        (json!([-4, -13, -6, -2]), "tally_sum"),
        (json!([25, -13, -6, -32]), "tally_range"),
        (json!([-37, 11, 0, 0]), "tally_range"),
        // 23: no whole tricks make it (12 clubs in 3 tricks make 24; fewer clubs, at most 21).
        (json!([23, -13, -6, -30]), "tally_unachievable"),
        (json!([-13, -13]), "tally_shape"),
    ] {
        let a = app
            .act(
                &m,
                &m.host,
                None,
                json!({"type": "tally", "points": points}),
            )
            .await;
        assert_eq!(
            a.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{points}: {}",
            a.text
        );
        assert_eq!(a.code(), code, "{points}: {}", a.text);
    }
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [-26, 0, 0, 0], "taken": []}),
        )
        .await;
    assert_eq!(a.code(), "tally_shape", "{}", a.text);
    // A range refusal names the seat 1-based.
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [0, 0, 30, -56]}),
        )
        .await;
    assert_eq!(
        a.body["detail"],
        json!("seat 3: 30 is outside -36 to 24, what one seat can score in a deal")
    );
    // Nothing was recorded by the refusals.
    assert_eq!(sheet(&app, &m.id).await["rounds"], json!([]));
}

#[actix_web::test]
async fn a_score_only_match_takes_tallies_only() {
    let app = TestApp::spawn().await;
    let m = app
        .create("dump", 4, "table", json!({"scores_only": true}))
        .await;
    // No deal, no seat action: 422 `scores_only`.
    let a = app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    assert_eq!(a.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", a.text);
    assert_eq!(a.code(), "scores_only");
    assert_eq!(
        a.body["detail"],
        json!("this match records scores only: enter the round's tally")
    );
    let a = app
        .act(
            &m,
            &m.seats[1],
            Some(1),
            json!({"type": "play", "card": "AS"}),
        )
        .await;
    assert_eq!(a.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", a.text);
    assert_eq!(a.code(), "scores_only");
    // Dump's tally as it is: 95–65 scores 15 for side 0.
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [95, 65]}),
        )
        .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [100, 61]}),
        )
        .await;
    assert_eq!(a.code(), "tally_sum", "{}", a.text);
    assert_eq!(round_points(&sheet(&app, &m.id).await), vec![vec![15, 0]]);
    // Undo of a tally restores the sheet.
    let a = app.undo(&m, &m.host).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let s = sheet(&app, &m.id).await;
    assert_eq!(s["rounds"], json!([]));
    assert_eq!(s["totals"], json!([0, 0]));
}

#[actix_web::test]
async fn dump_score_only_to_the_end() {
    let app = TestApp::spawn().await;
    let m = app
        .create(
            "dump",
            2,
            "table",
            json!({"scores_only": true, "target": 30}),
        )
        .await;
    for p in [[95, 65], [60, 100], [100, 60]] {
        let a = app
            .act(&m, &m.host, None, json!({"type": "tally", "points": p}))
            .await;
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    }
    let s = sheet(&app, &m.id).await;
    assert_eq!(
        round_points(&s),
        vec![vec![15, 0], vec![0, 20], vec![20, 0]]
    );
    assert_eq!(s["totals"], json!([35, 20]));
    assert_eq!(s["finished"], json!(true));
    assert_eq!(s["winners"], json!([0]));
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [80, 80]}),
        )
        .await;
    assert_eq!(a.code(), "match_finished", "{}", a.text);
}

#[actix_web::test]
async fn scores_only_needs_table_dealing() {
    let app = TestApp::spawn().await;
    for game in ["dump", "clubs", "bonus-malus", "plus-minus"] {
        let a = app
            .request(
                reqwest::Method::POST,
                "/v1/matches",
                None,
                &[],
                Some(
                    json!({"game": game, "dealing": "service", "config": {"scores_only": true},
                    "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}]}),
                ),
            )
            .await;
        assert_eq!(
            a.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{game}: {}",
            a.text
        );
        assert_eq!(a.code(), "invalid_config", "{game}");
        assert_eq!(
            a.body["detail"],
            json!("scores_only needs real cards: a score-only match takes dealing \"table\"")
        );
    }
}

#[actix_web::test]
async fn a_tally_in_service_dealing_is_refused() {
    let app = TestApp::spawn().await;
    let m = app.create("clubs", 4, "service", json!({})).await;
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [-26, 0, 0, 0]}),
        )
        .await;
    assert_eq!(a.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", a.text);
    assert_eq!(a.code(), "tally_not_allowed");
}

#[actix_web::test]
async fn bonus_malus_score_only_to_the_end_by_points_tallies() {
    let app = TestApp::spawn().await;
    let m = app
        .create(
            "bonus-malus",
            4,
            "table",
            json!({"scores_only": true, "target": 100}),
        )
        .await;
    for (points, code) in [
        (json!([200, 0]), "tally_range"),
        (json!([33, 0]), "tally_step"),
        (json!([5, 5]), "tally_sum"),
        (json!([5]), "tally_shape"),
    ] {
        let a = app
            .act(
                &m,
                &m.host,
                None,
                json!({"type": "tally", "points": points}),
            )
            .await;
        assert_eq!(
            a.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{points}: {}",
            a.text
        );
        assert_eq!(a.code(), code, "{points}: {}", a.text);
    }
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [33, 0]}),
        )
        .await;
    assert_eq!(
        a.body["detail"],
        json!("side 1 (seats 1 and 3): 33 is not a multiple of 5")
    );
    // Deal n counts n times: 35×1, 20×2, 25×3.
    for p in [[35, 0], [0, 20], [25, 0]] {
        let a = app
            .act(&m, &m.host, None, json!({"type": "tally", "points": p}))
            .await;
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    }
    let s = sheet(&app, &m.id).await;
    assert_eq!(
        round_points(&s),
        vec![vec![35, 0], vec![0, 40], vec![75, 0]]
    );
    let multipliers: Vec<i64> = s["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["multiplier"].as_i64().unwrap())
        .collect();
    assert_eq!(multipliers, vec![1, 2, 3]);
    assert_eq!(s["totals"], json!([110, 40]));
    assert_eq!(s["finished"], json!(true));
    assert_eq!(s["winners"], json!([0]));
    assert_eq!(s["margin"], json!(70));
}

#[actix_web::test]
async fn plus_minus_score_only_rubber_by_points_tallies() {
    let app = TestApp::spawn().await;
    let m = app
        .create("plus-minus", 3, "table", json!({"scores_only": true}))
        .await;
    let rubber = app.view(&m, None).await["config"]["rubber_games"]
        .as_i64()
        .unwrap();
    for (points, code) in [
        (json!([205, 0, 0]), "tally_range"),
        (json!([-81, 0, 0]), "tally_range"),
        // 199: three men home make 150, the fourth would need 49 (24 at most, or 50).
        (json!([199, 0, 0]), "tally_unachievable"),
        (json!([200, 200, 0]), "tally_two_finished"),
        (json!([0, 0]), "tally_shape"),
    ] {
        let a = app
            .act(
                &m,
                &m.host,
                None,
                json!({"type": "tally", "points": points}),
            )
            .await;
        assert_eq!(
            a.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{points}: {}",
            a.text
        );
        assert_eq!(a.code(), code, "{points}: {}", a.text);
    }
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [205, 0, 0]}),
        )
        .await;
    assert_eq!(
        a.body["detail"],
        json!("seat 1: 205 is outside -80 to 200, what four men can score")
    );
    let game = [200, 37, -3];
    for _ in 0..rubber {
        let a = app
            .act(&m, &m.host, None, json!({"type": "tally", "points": game}))
            .await;
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    }
    let s = sheet(&app, &m.id).await;
    assert_eq!(round_points(&s), vec![game.to_vec(); rubber as usize]);
    assert_eq!(s["totals"], json!([200 * rubber, 37 * rubber, -3 * rubber]));
    assert_eq!(s["finished"], json!(true));
    assert_eq!(s["winners"], json!([0]));
    assert_eq!(s["margin"], json!(163 * rubber));
    // The seat views still show boards (the last ones known: the stars).
    let v = app.view(&m, Some(&m.seats[0])).await;
    assert_eq!(v["status"], json!("finished"), "{v}");
}

//! Score-only play over HTTP (the tally contract): a `scores_only` match played to its end by
//! table tallies alone, the exact score sheet; the refusals with their codes and details; undo of
//! a tally. Members Only and By Hook or Crook are also checked against a game played to its end:
//! the same markers (positions) give the same sheet, outcome and winners.

mod common;

use common::{Answer, Match, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// A score-only match of `game` (table dealing), `config` added to `scores_only: true`.
async fn score_only(app: &TestApp, game: &str, players: usize, config: Value) -> Match {
    let mut c = json!({"scores_only": true});
    if let Value::Object(extra) = config {
        c.as_object_mut().unwrap().extend(extra);
    }
    app.create(game, players, "table", c).await
}

/// The host records `{type: "tally", ...fields}` for the table.
async fn tally(app: &TestApp, m: &Match, fields: Value) -> Answer {
    let mut action = json!({"type": "tally"});
    action
        .as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    app.act(m, &m.host, None, action).await
}

/// A tally that must be recorded (201); its outcome.
async fn tallied(app: &TestApp, m: &Match, fields: Value) -> Value {
    let a = tally(app, m, fields.clone()).await;
    assert_eq!(a.status, StatusCode::CREATED, "{fields}: {}", a.text);
    a.body["event"]["outcome"].clone()
}

/// A tally that must be refused with 422, `code` and (when given) exactly `detail`.
async fn refused(app: &TestApp, m: &Match, fields: Value, code: &str, detail: Option<&str>) {
    let a = tally(app, m, fields.clone()).await;
    assert_eq!(
        a.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{fields}: {}",
        a.text
    );
    assert_eq!(a.code(), code, "{fields}: {}", a.text);
    if let Some(d) = detail {
        assert_eq!(a.body["detail"], json!(d), "{fields}");
    }
}

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

/// A field of every round of a sheet.
fn rounds_field(sheet: &Value, field: &str) -> Vec<Value> {
    sheet["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[field].clone())
        .collect()
}

#[actix_web::test]
async fn clubs_score_only_to_the_end_by_points_tallies() {
    let app = TestApp::spawn().await;
    let m = score_only(&app, "clubs", 4, json!({})).await;
    let deals = [
        [-4, -13, -6, -3],
        [-26, 0, 0, 0], // a recount: seat 1 took every club and J♣ (−36 + 10)
        [2, -10, -10, -8],
        [-25, -1, 0, 0],
        [-26, 0, 0, 0],
    ];
    for d in deals {
        tallied(&app, &m, json!({"points": d})).await;
    }
    let s = sheet(&app, &m.id).await;
    assert_eq!(round_points(&s), deals.map(|d| d.to_vec()).to_vec());
    // −4 −26 +2 −25 −26 = −79 for seat 1 ... the match ends when a total reaches −100.
    assert_eq!(s["totals"], json!([-79, -24, -16, -11]));
    assert_eq!(s["finished"], json!(false));
    tallied(&app, &m, json!({"points": [-26, 0, 0, 0]})).await;
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
    let m = score_only(&app, "clubs", 4, json!({})).await;
    for (points, code) in [
        (json!([-4, -13, -6, -2]), "tally_sum"),
        (json!([25, -13, -6, -32]), "tally_range"),
        (json!([-37, 11, 0, 0]), "tally_range"),
        // 23: no whole tricks make it (12 clubs in 3 tricks make 24; fewer clubs, at most 21).
        (json!([23, -13, -6, -30]), "tally_unachievable"),
        (json!([-13, -13]), "tally_shape"),
    ] {
        refused(&app, &m, json!({"points": points}), code, None).await;
    }
    refused(
        &app,
        &m,
        json!({"points": [-26, 0, 0, 0], "taken": []}),
        "tally_shape",
        None,
    )
    .await;
    // A range refusal names the seat 1-based.
    refused(
        &app,
        &m,
        json!({"points": [0, 0, 30, -56]}),
        "tally_range",
        Some("seat 3: 30 is outside -36 to 24, what one seat can score in a deal"),
    )
    .await;
    // Nothing was recorded by the refusals.
    assert_eq!(sheet(&app, &m.id).await["rounds"], json!([]));
}

#[actix_web::test]
async fn a_score_only_match_takes_tallies_only() {
    let app = TestApp::spawn().await;
    let m = score_only(&app, "dump", 4, json!({})).await;
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
    tallied(&app, &m, json!({"points": [95, 65]})).await;
    refused(&app, &m, json!({"points": [100, 61]}), "tally_sum", None).await;
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
    let m = score_only(&app, "dump", 2, json!({"target": 30})).await;
    for p in [[95, 65], [60, 100], [100, 60]] {
        tallied(&app, &m, json!({"points": p})).await;
    }
    let s = sheet(&app, &m.id).await;
    assert_eq!(
        round_points(&s),
        vec![vec![15, 0], vec![0, 20], vec![20, 0]]
    );
    assert_eq!(s["totals"], json!([35, 20]));
    assert_eq!(s["finished"], json!(true));
    assert_eq!(s["winners"], json!([0]));
    refused(
        &app,
        &m,
        json!({"points": [80, 80]}),
        "match_finished",
        None,
    )
    .await;
}

#[actix_web::test]
async fn scores_only_needs_table_dealing() {
    let app = TestApp::spawn().await;
    for game in [
        "dump",
        "clubs",
        "bonus-malus",
        "plus-minus",
        "members-only",
        "by-hook-or-crook",
    ] {
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
    // The option is listed, off, among every game's defaults (the page offers Scores only by it).
    let games = app.get("/v1/games", None).await.body;
    for g in games.as_array().unwrap() {
        assert_eq!(
            g["default_config"]["scores_only"],
            json!(false),
            "{}",
            g["id"]
        );
    }
}

#[actix_web::test]
async fn a_tally_in_service_dealing_is_refused() {
    let app = TestApp::spawn().await;
    let m = app.create("clubs", 4, "service", json!({})).await;
    refused(
        &app,
        &m,
        json!({"points": [-26, 0, 0, 0]}),
        "tally_not_allowed",
        None,
    )
    .await;
}

#[actix_web::test]
async fn bonus_malus_score_only_to_the_end_by_points_tallies() {
    let app = TestApp::spawn().await;
    let m = score_only(&app, "bonus-malus", 4, json!({"target": 100})).await;
    for (points, code) in [
        (json!([200, 0]), "tally_range"),
        (json!([33, 0]), "tally_step"),
        (json!([5, 5]), "tally_sum"),
        (json!([5]), "tally_shape"),
    ] {
        refused(&app, &m, json!({"points": points}), code, None).await;
    }
    refused(
        &app,
        &m,
        json!({"points": [33, 0]}),
        "tally_step",
        Some("side 1 (seats 1 and 3): 33 is not a multiple of 5"),
    )
    .await;
    // Deal n counts n times: 35×1, 20×2, 25×3.
    for p in [[35, 0], [0, 20], [25, 0]] {
        tallied(&app, &m, json!({"points": p})).await;
    }
    let s = sheet(&app, &m.id).await;
    assert_eq!(
        round_points(&s),
        vec![vec![35, 0], vec![0, 40], vec![75, 0]]
    );
    assert_eq!(
        rounds_field(&s, "multiplier"),
        vec![json!(1), json!(2), json!(3)]
    );
    assert_eq!(s["totals"], json!([110, 40]));
    assert_eq!(s["finished"], json!(true));
    assert_eq!(s["winners"], json!([0]));
    assert_eq!(s["margin"], json!(70));
}

#[actix_web::test]
async fn plus_minus_score_only_rubber_by_points_tallies() {
    let app = TestApp::spawn().await;
    let m = score_only(&app, "plus-minus", 3, json!({})).await;
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
        refused(&app, &m, json!({"points": points}), code, None).await;
    }
    refused(
        &app,
        &m,
        json!({"points": [205, 0, 0]}),
        "tally_range",
        Some("seat 1: 205 is outside -80 to 200, what four men can score"),
    )
    .await;
    let game = [200, 37, -3];
    for _ in 0..rubber {
        tallied(&app, &m, json!({"points": game})).await;
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

// ----- Members Only: one tally per heat, every seat's markers after it ----------------------

/// A seat's markers as the views write them (`{umbrella, crown, ...}`), in track order.
fn marker_row(tracks: &Value) -> Vec<i64> {
    ["umbrella", "crown", "teacup", "big_ben", "hat"]
        .iter()
        .map(|c| tracks[c].as_i64().unwrap())
        .collect()
}

#[actix_web::test]
async fn members_only_score_only_to_the_end_with_exact_totals() {
    let app = TestApp::spawn().await;
    let m = score_only(&app, "members-only", 3, json!({})).await;
    let heats = [
        json!([[5, 0, 2, 0, 0], [0, 6, 0, 0, 1], [0, 0, 0, 3, 4]]),
        // Teacup has no marker at 5 yet: the game goes on.
        json!([[5, 3, 2, 0, 0], [0, 6, 0, 0, 5], [1, 0, 0, 6, 4]]),
        // Every category has a marker at 5 or more: the game ends.
        json!([[7, 3, 5, 0, 0], [0, 8, 0, 0, 5], [1, 0, 5, 6, 4]]),
    ];
    tallied(&app, &m, json!({"markers": heats[0]})).await;
    let s = sheet(&app, &m.id).await;
    assert_eq!(s["totals"], json!([5, 6, 0]));
    assert_eq!(s["finished"], json!(false));
    // The table shows the markers, and the next heat's starter and dealer (heat 2: seat 1
    // begins, seat 0 deals).
    let t = &app.view(&m, None).await["table"];
    assert_eq!(t["phase"], json!("awaiting_deal"));
    assert_eq!(t["heat"], json!(1));
    assert_eq!(
        t["tracks"][1],
        json!({"umbrella": 0, "crown": 6, "teacup": 0, "big_ben": 0, "hat": 1})
    );
    assert_eq!(
        (t["next_starter"].clone(), t["next_dealer"].clone()),
        (json!(1), json!(0))
    );
    tallied(&app, &m, json!({"markers": heats[1]})).await;
    let last = tallied(&app, &m, json!({"markers": heats[2]})).await;
    let s = sheet(&app, &m.id).await;
    // Each heat's line is the markers' advance in it; the totals are the markers at 5..10:
    // 7 + 5, 8 + 5, 5 + 6.
    assert_eq!(
        round_points(&s),
        vec![vec![7, 7, 7], vec![3, 4, 4], vec![5, 2, 5]]
    );
    assert_eq!(
        rounds_field(&s, "label"),
        vec![json!("Heat 1"), json!("Heat 2"), json!("Heat 3")]
    );
    assert_eq!(s["totals"], json!([12, 13, 11]));
    assert_eq!(s["finished"], json!(true));
    assert_eq!(s["winners"], json!([1]));
    assert_eq!(s["margin"], json!(1));
    // The detail: what a played heat shows that a tally knows (starter, dealer, advances,
    // markers, where the cards went); the layout, the pieces and the points before the cap not.
    let d = &s["rounds"][2]["detail"];
    assert_eq!(d["tallied"], json!(true));
    assert_eq!(
        (d["starter"].clone(), d["dealer"].clone()),
        (json!(2), json!(1))
    );
    assert_eq!(d["layout"], Value::Null);
    assert_eq!(d["won"], Value::Null);
    assert_eq!(d["pieces"], json!([]));
    assert_eq!(d["restored"], json!([]));
    assert_eq!(
        d["advanced"][0],
        json!({"umbrella": 2, "crown": 0, "teacup": 3, "big_ben": 0, "hat": 0})
    );
    let rows: Vec<Vec<i64>> = d["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .map(marker_row)
        .collect();
    assert_eq!(json!(rows), heats[2]);
    // 3 players: 11 cards each, two face up, every hand down to three (8 revealed each).
    assert_eq!(
        d["cards"],
        json!({"face_up": 2, "revealed": 24, "final": 6, "discarded": 3, "unused": 30})
    );
    // The outcome, as a played heat's end.
    assert_eq!(
        last,
        json!([
            {"type": "heat_scored", "round": 3, "counts": null, "points": [5, 2, 5],
             "tracks": d["tracks"], "totals": [12, 13, 11]},
            {"type": "match_finished", "winners": [1], "margin": 1}
        ])
    );
    let v = app.view(&m, None).await;
    assert_eq!(v["status"], json!("finished"));
    assert_eq!(v["table"]["totals"], json!([12, 13, 11]));
    refused(
        &app,
        &m,
        json!({"markers": heats[2]}),
        "match_finished",
        Some("the game is over (every category had a marker at 5 or more after the last heat); nothing more can be recorded"),
    )
    .await;
}

#[actix_web::test]
async fn members_only_equal_totals_share_the_win() {
    let app = TestApp::spawn().await;
    let m = score_only(&app, "members-only", 4, json!({})).await;
    let out = tallied(
        &app,
        &m,
        json!({"markers": [[5, 5, 0, 0, 0], [0, 0, 5, 5, 0], [0, 0, 0, 0, 7], [4, 4, 4, 4, 4]]}),
    )
    .await;
    assert_eq!(
        out[1],
        json!({"type": "match_finished", "winners": [0, 1], "margin": 3})
    );
    let s = sheet(&app, &m.id).await;
    assert_eq!(s["totals"], json!([10, 10, 7, 0]));
    assert_eq!(s["winners"], json!([0, 1]));
    assert_eq!(s["margin"], json!(3));
    // 4 players: 9 cards each, 6 revealed each.
    assert_eq!(
        s["rounds"][0]["detail"]["cards"],
        json!({"face_up": 2, "revealed": 24, "final": 8, "discarded": 4, "unused": 27})
    );
}

#[actix_web::test]
async fn members_only_tally_refusals_and_undo() {
    let app = TestApp::spawn().await;
    let m = score_only(&app, "members-only", 3, json!({})).await;
    // Only the table's tally: no deal, no seat's turn.
    for (token, seat, action) in [
        (
            &m.host,
            None,
            json!({"type": "deal", "face_up": ["hat", "crown"]}),
        ),
        (
            &m.seats[0],
            Some(0),
            json!({"type": "turn", "bet": null, "reveal": []}),
        ),
        (
            &m.seats[0],
            Some(0),
            json!({"type": "tally", "markers": [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]}),
        ),
    ] {
        let a = app.act(&m, token, seat, action).await;
        assert_eq!(a.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", a.text);
        assert_eq!(a.code(), "scores_only");
        assert_eq!(
            a.body["detail"],
            json!("this match records scores only: enter the round's tally")
        );
    }
    for (markers, code, detail) in [
        (
            json!([[0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]),
            "tally_shape",
            "tally: one row of five markers (umbrella, crown, teacup, Big Ben, hat) per seat: 3 rows expected, 2 given",
        ),
        (
            json!([[0, 0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0, 0]]),
            "tally_shape",
            "tally: seat 2: five markers expected (umbrella, crown, teacup, Big Ben, hat), 4 given",
        ),
        (
            json!([[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 11]]),
            "tally_range",
            "seat 3: Hat marker 11 is outside 0 to 10, the scoring track",
        ),
        (
            json!([[0, -1, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]),
            "tally_range",
            "seat 1: Crown marker -1 is outside 0 to 10, the scoring track",
        ),
    ] {
        refused(&app, &m, json!({"markers": markers}), code, Some(detail)).await;
    }
    // Not an array of numbers: no game's vocabulary.
    let a = tally(&app, &m, json!({"markers": "5,0,0"})).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "{}", a.text);
    assert_eq!(a.code(), "invalid_action");
    assert_eq!(sheet(&app, &m.id).await["rounds"], json!([]));

    let heat1 = json!([[0, 0, 0, 0, 0], [0, 2, 0, 5, 0], [1, 0, 0, 0, 0]]);
    tallied(&app, &m, json!({"markers": heat1})).await;
    // A marker never goes back below where it stood before the heat.
    refused(
        &app,
        &m,
        json!({"markers": [[0, 0, 0, 0, 0], [0, 2, 0, 3, 0], [1, 0, 0, 0, 0]]}),
        "tally_marker_back",
        Some("seat 2: Big Ben marker 3 is behind where it stood (5): markers only move forward"),
    )
    .await;
    let heat2 = json!([[0, 0, 3, 0, 0], [0, 4, 0, 5, 0], [1, 0, 0, 0, 0]]);
    tallied(&app, &m, json!({"markers": heat2})).await;
    let s = sheet(&app, &m.id).await;
    assert_eq!(round_points(&s), vec![vec![0, 7, 1], vec![3, 2, 0]]);
    assert_eq!(s["totals"], json!([0, 5, 0]));
    // Undo of the second tally: the sheet and the markers as after heat 1, heat 2 due again.
    let a = app.undo(&m, &m.host).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let s = sheet(&app, &m.id).await;
    assert_eq!(round_points(&s), vec![vec![0, 7, 1]]);
    let t = &app.view(&m, None).await["table"];
    let rows: Vec<Vec<i64>> = t["tracks"]
        .as_array()
        .unwrap()
        .iter()
        .map(marker_row)
        .collect();
    assert_eq!(json!(rows), heat1);
    assert_eq!(t["heat"], json!(1));
    // Undo of the first: back to the start, where any marker may stand at 0 again.
    let a = app.undo(&m, &m.host).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let s = sheet(&app, &m.id).await;
    assert_eq!(s["rounds"], json!([]));
    assert_eq!(s["totals"], json!([0, 0, 0]));
    tallied(
        &app,
        &m,
        json!({"markers": [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]}),
    )
    .await;
    assert_eq!(round_points(&sheet(&app, &m.id).await), vec![vec![0, 0, 0]]);
}

#[actix_web::test]
async fn members_only_tally_only_in_score_only_play() {
    let app = TestApp::spawn().await;
    for dealing in ["table", "service"] {
        let m = app.create("members-only", 3, dealing, json!({})).await;
        refused(
            &app,
            &m,
            json!({"markers": [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]}),
            "tally_not_allowed",
            Some("a Members Only tally is for score-only matches (config scores_only, table dealing): a tallied heat does not say which betting pieces were lost, which the next played heat needs"),
        )
        .await;
    }
}

#[actix_web::test]
async fn members_only_tallies_score_as_the_played_game() {
    // A game played to its end (service dealing, random legal moves), then its heats' markers
    // tallied in a score-only match: the same lines, totals, winners and ending outcome.
    let app = TestApp::spawn().await;
    let played = app.create("members-only", 3, "service", json!({})).await;
    app.play(&played, 0x5eed_0001, None).await;
    let p = sheet(&app, &played.id).await;
    let m = score_only(&app, "members-only", 3, json!({})).await;
    let mut last = Value::Null;
    for r in p["rounds"].as_array().unwrap() {
        let rows: Vec<Vec<i64>> = r["detail"]["tracks"]
            .as_array()
            .unwrap()
            .iter()
            .map(marker_row)
            .collect();
        last = tallied(&app, &m, json!({"markers": rows})).await;
    }
    let s = sheet(&app, &m.id).await;
    for key in ["unit", "totals", "finished", "winners", "margin"] {
        assert_eq!(s[key], p[key], "{key}");
    }
    assert_eq!(s["finished"], json!(true));
    for key in ["round", "label", "multiplier", "points"] {
        assert_eq!(rounds_field(&s, key), rounds_field(&p, key), "{key}");
    }
    for (t, r) in s["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .zip(p["rounds"].as_array().unwrap())
    {
        for key in ["starter", "dealer", "advanced", "tracks", "cards"] {
            assert_eq!(t["detail"][key], r["detail"][key], "{key}");
        }
    }
    // The ending outcome as the played game's last action told it.
    let events = app.events(&played, None).await;
    let ended = events.last().unwrap()["outcome"]
        .as_array()
        .unwrap()
        .clone();
    let finished = |o: &[Value]| o.iter().find(|x| x["type"] == "match_finished").cloned();
    assert_eq!(finished(last.as_array().unwrap()), finished(&ended));
    assert!(finished(&ended).is_some());
    let (a, b) = (app.view(&m, None).await, app.view(&played, None).await);
    assert_eq!(a["table"]["tracks"], b["table"]["tracks"]);
    assert_eq!(a["table"]["totals"], b["table"]["totals"]);
}

// ----- By Hook or Crook: one tally for the whole game -----------------------------------------

#[actix_web::test]
async fn by_hook_or_crook_tally_without_a_tie() {
    let app = TestApp::spawn().await;
    let m = score_only(&app, "by-hook-or-crook", 3, json!({})).await;
    // The default board: pink from 37; a pawn ends at most on 36 + 4 (the biggest exhibit
    // reward; a detective's standing is 3 at most) + 8 = 48.
    let t = &app.view(&m, None).await["table"];
    assert_eq!(
        (t["pink_from"].clone(), t["last_space"].clone()),
        (json!(37), json!(48))
    );
    let out = tallied(&app, &m, json!({"positions": [41, 30, 38]})).await;
    assert_eq!(
        out,
        json!([
            {"type": "tallied", "positions": [41, 30, 38], "tiebreak": []},
            {"type": "match_finished", "winners": [0], "margin": 3}
        ])
    );
    let s = sheet(&app, &m.id).await;
    assert_eq!(round_points(&s), vec![vec![41, 30, 38]]);
    assert_eq!(rounds_field(&s, "label"), vec![json!("Final positions")]);
    assert_eq!(
        s["rounds"][0]["detail"],
        json!({"tallied": true, "tiebreak": []})
    );
    assert_eq!(s["totals"], json!([41, 30, 38]));
    assert_eq!(s["finished"], json!(true));
    assert_eq!(s["winners"], json!([0]));
    assert_eq!(s["margin"], json!(3));
    let v = app.view(&m, None).await;
    assert_eq!(v["status"], json!("finished"));
    assert_eq!(v["table"]["phase"], json!("finished"));
    assert_eq!(v["table"]["positions"], json!([41, 30, 38]));
    assert_eq!(v["table"]["winners"], json!([0]));
    assert_eq!(v["table"]["margin"], json!(3));
    // No final exhibition was seen.
    assert_eq!(v["table"]["final"], Value::Null);
    refused(
        &app,
        &m,
        json!({"positions": [41, 30, 38]}),
        "match_finished",
        Some("the match is finished; nothing more can be recorded"),
    )
    .await;
    // Undo of the tally: the game not played again, the sheet empty.
    let a = app.undo(&m, &m.host).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let s = sheet(&app, &m.id).await;
    assert_eq!(s["rounds"], json!([]));
    assert_eq!(s["totals"], json!([0, 0, 0]));
    assert_eq!(s["finished"], json!(false));
    let v = app.view(&m, None).await;
    assert_ne!(v["status"], json!("finished"));
    assert_eq!(v["table"]["positions"], json!([0, 0, 0]));
    assert_eq!(v["table"]["winners"], json!([]));
    tallied(&app, &m, json!({"positions": [30, 44, 0], "tiebreak": []})).await;
    assert_eq!(sheet(&app, &m.id).await["winners"], json!([1]));
}

#[actix_web::test]
async fn by_hook_or_crook_tally_with_a_tie() {
    let app = TestApp::spawn().await;
    let m = score_only(&app, "by-hook-or-crook", 4, json!({})).await;
    // Seats 1 and 2 (0 and 1) share space 40; the table says seat 2's collection was the more
    // valuable. As in a played game, the margin over the other pawn on 40 is 0.
    let out = tallied(
        &app,
        &m,
        json!({"positions": [40, 40, 12, 39], "tiebreak": [1, 0]}),
    )
    .await;
    assert_eq!(
        out,
        json!([
            {"type": "tallied", "positions": [40, 40, 12, 39], "tiebreak": [1, 0]},
            {"type": "match_finished", "winners": [1], "margin": 0}
        ])
    );
    let s = sheet(&app, &m.id).await;
    assert_eq!(s["totals"], json!([40, 40, 12, 39]));
    assert_eq!(s["winners"], json!([1]));
    assert_eq!(s["margin"], json!(0));
    assert_eq!(
        s["rounds"][0]["detail"],
        json!({"tallied": true, "tiebreak": [1, 0]})
    );
}

#[actix_web::test]
async fn by_hook_or_crook_tally_refusals() {
    let app = TestApp::spawn().await;
    let m = score_only(&app, "by-hook-or-crook", 3, json!({})).await;
    let a = app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    assert_eq!(a.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", a.text);
    assert_eq!(a.code(), "scores_only");
    let range = |seat: usize, value: i64| {
        format!("seat {seat}: space {value} is outside 0 to 48, where a pawn can stand at the game's end on this board (short of the pink spaces before the last turn, one turn's advance, +8 in the final exhibition)")
    };
    for (fields, code, detail) in [
        (
            json!({"positions": [40, 30]}),
            "tally_shape",
            "tally: one pawn space per seat: 3 expected, 2 given".to_string(),
        ),
        (json!({"positions": [40, 49, 0]}), "tally_range", range(2, 49)),
        (json!({"positions": [40, 0, -1]}), "tally_range", range(3, -1)),
        (
            json!({"positions": [36, 20, 0]}),
            "tally_not_over",
            "no pawn is on a pink space (from space 37 on): the game ends only after a pawn has entered one, so it cannot be over".to_string(),
        ),
        (
            json!({"positions": [40, 40, 3]}),
            "tally_tiebreak",
            "tiebreak: seats 1 and 2 share the furthest space (40): list exactly them, the winner (the more valuable collection) first; none is given".to_string(),
        ),
        (
            json!({"positions": [40, 40, 3], "tiebreak": [0, 2]}),
            "tally_tiebreak",
            "tiebreak: seats 1 and 2 share the furthest space (40): list exactly them, the winner (the more valuable collection) first; [0, 2] (seats 1 and 3) is given".to_string(),
        ),
        (
            json!({"positions": [40, 40, 40], "tiebreak": [1, 1, 0]}),
            "tally_tiebreak",
            "tiebreak: seats 1, 2 and 3 share the furthest space (40): list exactly them, the winner (the more valuable collection) first; [1, 1, 0] (seats 2, 2 and 1) is given".to_string(),
        ),
        (
            json!({"positions": [41, 40, 3], "tiebreak": [0]}),
            "tally_tiebreak",
            "tiebreak: seat 1 alone is furthest (space 41): a tiebreak is only for a tie on the furthest space, send none".to_string(),
        ),
    ] {
        refused(&app, &m, fields, code, Some(&detail)).await;
    }
    assert_eq!(sheet(&app, &m.id).await["rounds"], json!([]));
    // Outside score-only play the tally is refused.
    for dealing in ["table", "service"] {
        let m = app.create("by-hook-or-crook", 3, dealing, json!({})).await;
        refused(
            &app,
            &m,
            json!({"positions": [41, 30, 38]}),
            "tally_not_allowed",
            Some("a By Hook or Crook tally is for score-only matches (config scores_only, table dealing)"),
        )
        .await;
    }
}

#[actix_web::test]
async fn by_hook_or_crook_tally_scores_as_the_played_game() {
    // A game played to its end (service dealing, random legal moves), then its final positions
    // tallied (the tie, if any, broken as the collections broke it): the same totals, winners,
    // margin and ending outcome.
    let app = TestApp::spawn().await;
    let played = app
        .create("by-hook-or-crook", 3, "service", json!({}))
        .await;
    let end = app.play(&played, 0x5eed_0002, None).await;
    let p = sheet(&app, &played.id).await;
    let positions = end["table"]["positions"].clone();
    let far = positions
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .max()
        .unwrap();
    let tied: Vec<usize> = (0..3)
        .filter(|&s| positions[s].as_i64() == Some(far))
        .collect();
    let winner = p["winners"][0].as_u64().unwrap() as usize;
    let mut fields = json!({"positions": positions});
    if tied.len() > 1 {
        let mut tb = vec![winner];
        tb.extend(tied.iter().filter(|&&s| s != winner));
        fields["tiebreak"] = json!(tb);
    }
    let m = score_only(&app, "by-hook-or-crook", 3, json!({})).await;
    let out = tallied(&app, &m, fields).await;
    let s = sheet(&app, &m.id).await;
    for key in ["unit", "totals", "finished", "winners", "margin"] {
        assert_eq!(s[key], p[key], "{key}");
    }
    let events = app.events(&played, None).await;
    let ended = events.last().unwrap()["outcome"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(out.as_array().unwrap().last(), ended.last());
    assert_eq!(ended.last().unwrap()["type"], json!("match_finished"));
}

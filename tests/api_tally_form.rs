//! `legal.tally` over HTTP: the score-only form descriptor per game and dealing mode, with exact
//! values; listed for the table only, only while a tally would be taken (not finished, not after
//! a deal's first card, never in service dealing); and a tally built from it is taken.

mod common;

use common::{Match, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// The table's (host's) `legal.tally`.
async fn table_form(app: &TestApp, m: &Match) -> Value {
    let a = app
        .get(&format!("/v1/matches/{}/legal", m.id), Some(&m.host))
        .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    a.body["tally"].clone()
}

/// A seat's `legal.tally` asked with the host's token.
async fn seat_form(app: &TestApp, m: &Match, seat: usize) -> Value {
    let a = app
        .get(
            &format!("/v1/matches/{}/legal?seat={seat}", m.id),
            Some(&m.host),
        )
        .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert!(a.body.get("tally").is_some(), "{}", a.text);
    a.body["tally"].clone()
}

fn points(unit: &str, entries: usize, min: i64, max: i64) -> Value {
    json!({"field": "points", "unit": unit, "entries": entries, "min": min, "max": max,
        "step": 1, "sum": null, "multiplier": null, "nonzero_at_most": null,
        "per_entry": null, "floor": null, "tiebreak": false})
}

fn with(mut v: Value, extra: Value) -> Value {
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

#[actix_web::test]
async fn each_score_only_game_lists_its_exact_form_for_the_table_only() {
    let app = TestApp::spawn().await;
    let cases = [
        (
            "clubs",
            4,
            with(points("seat", 4, -36, 24), json!({"sum": -26})),
        ),
        (
            "dump",
            4,
            with(points("side", 2, 0, 160), json!({"sum": 160})),
        ),
        (
            "dump",
            2,
            with(points("seat", 2, 0, 160), json!({"sum": 160})),
        ),
        ("plus-minus", 3, points("seat", 3, -80, 200)),
        (
            "bonus-malus",
            3,
            with(
                points("seat", 3, 0, 195),
                json!({"step": 5, "multiplier": 1}),
            ),
        ),
    ];
    for (game, n, want) in cases {
        let m = app
            .create(game, n, "table", json!({"scores_only": true}))
            .await;
        assert_eq!(table_form(&app, &m).await, want, "{game} {n}");
        for s in 0..n {
            assert_eq!(seat_form(&app, &m, s).await, Value::Null, "{game} seat {s}");
        }
    }
}

#[actix_web::test]
async fn bonus_malus_multiplier_follows_the_deal_number() {
    let app = TestApp::spawn().await;
    let m = app
        .create("bonus-malus", 4, "table", json!({"scores_only": true}))
        .await;
    let base = with(
        points("side", 2, 0, 195),
        json!({"step": 5, "nonzero_at_most": 1}),
    );
    for (deal, tally) in [(1, [10, 0]), (2, [0, 5]), (3, [5, 0])] {
        let f = table_form(&app, &m).await;
        assert_eq!(f, with(base.clone(), json!({"multiplier": deal})));
        let a = app
            .act(&m, &m.host, None, json!({"type": "tally", "points": tally}))
            .await;
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    }
    assert_eq!(table_form(&app, &m).await["multiplier"], json!(4));
}

#[actix_web::test]
async fn no_form_once_finished() {
    let app = TestApp::spawn().await;
    let m = app
        .create(
            "dump",
            2,
            "table",
            json!({"scores_only": true, "target": 10}),
        )
        .await;
    assert_eq!(table_form(&app, &m).await["sum"], json!(160));
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [160, 0]}),
        )
        .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    assert_eq!(app.view(&m, None).await["status"], json!("finished"));
    assert_eq!(table_form(&app, &m).await, Value::Null);
}

#[actix_web::test]
async fn no_form_in_service_dealing() {
    let app = TestApp::spawn().await;
    for (game, n) in [
        ("clubs", 4),
        ("dump", 2),
        ("bonus-malus", 4),
        ("plus-minus", 3),
    ] {
        let m = app.create(game, n, "service", json!({})).await;
        assert_eq!(table_form(&app, &m).await, Value::Null, "{game}");
    }
}

#[actix_web::test]
async fn an_ordinary_dump_table_lists_the_form_until_the_first_card() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 2, "table", json!({})).await;
    let want = with(points("seat", 2, 0, 160), json!({"sum": 160}));
    assert_eq!(table_form(&app, &m).await, want);
    let a = app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    // Dealt, no card played yet: a tally is still taken.
    assert_eq!(table_form(&app, &m).await, want);
    // Play the first card from the legal list of the seat to act.
    let v = app.view(&m, Some(&m.host)).await;
    let s = v["to_act"][0].as_u64().unwrap() as usize;
    let legal = app.legal(&m, s, Some(&m.host)).await;
    let a = app.act(&m, &m.host, Some(s), legal[0].clone()).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    assert_eq!(table_form(&app, &m).await, Value::Null);
    // Absent, and indeed refused.
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [80, 80]}),
        )
        .await;
    assert_eq!(a.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", a.text);
    assert_eq!(a.code(), "tally_mid_deal");
}

/// Where the form is listed, a tally built within it (each entry at the least value the sum
/// allows) is taken: legal agrees with accepted.
#[actix_web::test]
async fn a_tally_built_from_the_form_is_taken() {
    let app = TestApp::spawn().await;
    for (game, n, vals) in [
        ("clubs", 3, json!([-26, 0, 0])),
        ("dump", 4, json!([160, 0])),
        ("plus-minus", 2, json!([-80, 200])),
        ("bonus-malus", 4, json!([195, 0])),
    ] {
        let m = app
            .create(game, n, "table", json!({"scores_only": true}))
            .await;
        let f = table_form(&app, &m).await;
        let v = vals.as_array().unwrap();
        assert_eq!(v.len() as u64, f["entries"].as_u64().unwrap(), "{game}");
        for x in v {
            let x = x.as_i64().unwrap();
            assert!(x >= f["min"].as_i64().unwrap() && x <= f["max"].as_i64().unwrap());
        }
        let a = app
            .act(&m, &m.host, None, json!({"type": "tally", "points": vals}))
            .await;
        assert_eq!(a.status, StatusCode::CREATED, "{game}: {}", a.text);
    }
}

#[actix_web::test]
async fn members_only_floors_follow_the_markers_and_by_hook_or_crook_is_bounded_by_the_board() {
    let app = TestApp::spawn().await;
    // Members Only: the five markers per seat, each at least where it stands now.
    let m = app
        .create("members-only", 3, "table", json!({"scores_only": true}))
        .await;
    let base = json!({"field": "markers", "unit": "seat", "entries": 3, "min": 0, "max": 10,
        "step": 1, "sum": null, "multiplier": null, "nonzero_at_most": null,
        "per_entry": ["umbrella", "crown", "teacup", "big_ben", "hat"],
        "floor": [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]], "tiebreak": false});
    assert_eq!(table_form(&app, &m).await, base);
    for s in 0..3 {
        assert_eq!(seat_form(&app, &m, s).await, Value::Null, "seat {s}");
    }
    let markers = json!([[2, 0, 5, 0, 1], [0, 3, 0, 0, 0], [0, 0, 0, 4, 0]]);
    let a = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "markers": markers}),
        )
        .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    assert_eq!(
        table_form(&app, &m).await,
        with(base.clone(), json!({ "floor": markers }))
    );
    // Not listed without scores_only (a played game's heat is not tallied).
    let played = app.create("members-only", 3, "table", json!({})).await;
    assert_eq!(table_form(&app, &played).await, Value::Null);

    // By Hook or Crook: one tally of final positions, up to the board's last space (default
    // board, 3 players: pink from 37, so 36 + 4 + 8 = 48), a tie named.
    let b = app
        .create("by-hook-or-crook", 3, "table", json!({"scores_only": true}))
        .await;
    let want = json!({"field": "positions", "unit": "seat", "entries": 3, "min": 0, "max": 48,
        "step": 1, "sum": null, "multiplier": null, "nonzero_at_most": null,
        "per_entry": null, "floor": null, "tiebreak": true});
    assert_eq!(table_form(&app, &b).await, want);
    assert_eq!(
        app.view(&b, None).await["table"]["last_space"],
        json!(48),
        "the form's max is the view's last space"
    );
    let a = app
        .act(
            &b,
            &b.host,
            None,
            json!({"type": "tally", "positions": [40, 12, 40], "tiebreak": [2, 0]}),
        )
        .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    assert_eq!(app.view(&b, None).await["status"], json!("finished"));
    assert_eq!(table_form(&app, &b).await, Value::Null);
}

//! The club's memory over HTTP (issue 24): a player's statistics across casual matches and
//! tournament tables, club ratings (Elo and Weng-Lin, recomputed independently here), corrections
//! replayed, unrated matches, merging two records of one person, seasons and their CSV.

mod common;

use common::{Match, TestApp, OPERATOR};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

async fn post(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> common::Answer {
    app.request(Method::POST, path, token, &[], Some(body))
        .await
}

async fn put(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> common::Answer {
    app.request(Method::PUT, path, token, &[], Some(body)).await
}

/// A 200 answer's body.
async fn ok(app: &TestApp, path: &str) -> Value {
    let a = app.get(path, None).await;
    assert_eq!(a.status, StatusCode::OK, "{path}: {}", a.text);
    a.body
}

/// Registers a player; its id.
async fn player(app: &TestApp, name: &str) -> String {
    let a = post(app, "/v1/players", None, json!({ "name": name })).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    a.body["id"].as_str().unwrap().to_string()
}

/// A score-only heads-up Dump match (target 10: one tally ends it) between registered players.
async fn dump(app: &TestApp, seats: &[(&str, &str)], rated: Option<bool>) -> Match {
    let players: Vec<Value> = seats
        .iter()
        .map(|(name, id)| json!({"name": name, "player_id": id}))
        .collect();
    let mut body = json!({"game": "dump", "players": players,
                          "config": {"scores_only": true, "target": 10}});
    if let Some(r) = rated {
        body["rated"] = json!(r);
    }
    app.create_with(body).await
}

/// Records a tally; panics unless 201.
async fn tally(app: &TestApp, m: &Match, fields: Value) {
    let mut action = json!({"type": "tally"});
    action
        .as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    let a = app.act(m, &m.host, None, action).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
}

/// Seat 0 wins 15–0 (95–65 card points).
async fn seat0_wins(app: &TestApp, m: &Match) {
    tally(app, m, json!({"points": [95, 65]})).await;
}

/// Seat 1 wins 20–0 (60–100).
async fn seat1_wins(app: &TestApp, m: &Match) {
    tally(app, m, json!({"points": [60, 100]})).await;
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Elo as stated (K 32, scale 400), written out here: the new ratings after `a` scores
/// `score` (1, 0.5, 0) against `b`.
fn elo(a: f64, b: f64, score: f64) -> (f64, f64) {
    let expected = 1.0 / (1.0 + 10f64.powf((b - a) / 400.0));
    (a + 32.0 * (score - expected), b - 32.0 * (score - expected))
}

/// The leaderboard of `game` as (player id, its row's `column` read by `read`), in its order.
async fn board_column<T>(
    app: &TestApp,
    game: &str,
    column: &str,
    read: impl Fn(&Value) -> Option<T>,
) -> Vec<(String, T)> {
    let b = ok(app, &format!("/v1/games/{game}/leaderboard")).await;
    b["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["player_id"].as_str().unwrap().to_string(),
                read(&r[column]).unwrap(),
            )
        })
        .collect()
}

/// The leaderboard of `game` as (player id, rating).
async fn board(app: &TestApp, game: &str) -> Vec<(String, f64)> {
    board_column(app, game, "rating", Value::as_f64).await
}

/// Each player's count of rated results, as game `game`'s leaderboard shows them (its order).
async fn rated_counts(app: &TestApp, game: &str) -> Vec<(String, i64)> {
    board_column(app, game, "rated_results", Value::as_i64).await
}

/// `expected` sorted as a leaderboard is: highest rating first, then player id.
fn sorted(mut expected: Vec<(String, f64)>) -> Vec<(String, f64)> {
    for e in &mut expected {
        e.1 = round3(e.1);
    }
    expected.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    expected
}

#[actix_web::test]
async fn heads_up_matches_rate_by_elo_in_the_order_they_finished_and_fill_the_stats() {
    let app = TestApp::spawn().await;
    let (ada, ben, cy) = (
        player(&app, "Ada").await,
        player(&app, "Ben").await,
        player(&app, "Cy").await,
    );
    let m1 = dump(&app, &[("Ada", &ada), ("Ben", &ben)], None).await;
    let m2 = dump(&app, &[("Cy", &cy), ("Ada", &ada)], None).await;
    seat0_wins(&app, &m1).await; // Ada 15, Ben 0
    seat0_wins(&app, &m2).await; // Cy 15, Ada 0
    let (a1, b1) = elo(1000.0, 1000.0, 1.0);
    assert_eq!((a1, b1), (1016.0, 984.0));
    let (c2, a2) = elo(1000.0, a1, 1.0);
    assert_eq!(
        board(&app, "dump").await,
        sorted(vec![(ada.clone(), a2), (ben.clone(), b1), (cy.clone(), c2)])
    );
    let b = ok(&app, "/v1/games/dump/leaderboard?limit=2").await;
    assert_eq!(b["rating_system"], "elo");
    assert_eq!(
        b["rating_parameters"],
        json!({"system": "elo", "k": 32.0, "start": 1000.0, "scale": 400.0})
    );
    assert_eq!(b["total"], 3);
    assert_eq!(b["next_offset"], 2);
    assert_eq!(b["rows"][0]["rank"], 1);
    let last = ok(&app, "/v1/games/dump/leaderboard?limit=2&offset=2").await;
    assert_eq!(last["rows"].as_array().unwrap().len(), 1);
    assert_eq!(last["rows"][0]["rank"], 3);
    assert_eq!(last["next_offset"], Value::Null);

    let s = ok(&app, &format!("/v1/players/{ada}/stats")).await;
    assert_eq!(s["player_id"], json!(ada));
    assert_eq!(s["name"], "Ada");
    let g = &s["games"][0];
    assert_eq!(s["games"].as_array().unwrap().len(), 1);
    assert_eq!(g["game"], "dump");
    assert_eq!(g["played"], 2);
    assert_eq!(g["wins"], 1);
    assert_eq!(g["average_score"], 7.5);
    assert_eq!(g["best_score"], 15);
    assert_eq!(g["rating"], json!(round3(a2)));
    assert_eq!(g["rating_uncertainty"], Value::Null);
    let history: Vec<(f64, String)> = g["rating_history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["rating"].as_f64().unwrap(),
                p["match_id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        history,
        vec![(1016.0, m1.id.clone()), (round3(a2), m2.id.clone())]
    );
    let mut h2h = g["head_to_head"].as_array().unwrap().clone();
    h2h.sort_by_key(|h| h["name"].as_str().unwrap().to_string());
    assert_eq!(
        h2h,
        vec![
            json!({"player_id": ben, "name": "Ben", "played": 1, "wins": 1, "losses": 0, "draws": 0}),
            json!({"player_id": cy, "name": "Cy", "played": 1, "wins": 0, "losses": 1, "draws": 0}),
        ]
    );
    let recent: Vec<(&str, i64, i64, bool)> = s["recent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["match_id"].as_str().unwrap(),
                r["total"].as_i64().unwrap(),
                r["place"].as_i64().unwrap(),
                r["won"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        recent,
        vec![(m2.id.as_str(), 0, 2, false), (m1.id.as_str(), 15, 1, true)]
    );
    // Unknown players and games.
    let a = app
        .get("/v1/players/00000000000000000000000000000000/stats", None)
        .await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::NOT_FOUND, "player_not_found")
    );
    let a = app.get("/v1/games/chess/leaderboard", None).await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::NOT_FOUND, "unknown_game")
    );
    let a = app.get("/v1/games/dump/leaderboard?limit=0", None).await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::BAD_REQUEST, "invalid_query")
    );
}

#[actix_web::test]
async fn an_unrated_match_counts_in_the_stats_only_and_a_casual_one_for_nobody() {
    let app = TestApp::spawn().await;
    let (ada, ben) = (player(&app, "Ada").await, player(&app, "Ben").await);
    let m = dump(&app, &[("Ada", &ada), ("Ben", &ben)], Some(false)).await;
    seat1_wins(&app, &m).await;
    // Names only: counts for nobody.
    let casual = app
        .create(
            "dump",
            2,
            "table",
            json!({"scores_only": true, "target": 10}),
        )
        .await;
    seat0_wins(&app, &casual).await;
    assert_eq!(board(&app, "dump").await, vec![]);
    let s = ok(&app, &format!("/v1/players/{ben}/stats")).await;
    let g = &s["games"][0];
    assert_eq!(
        (g["played"].clone(), g["wins"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(g["best_score"], 20);
    assert_eq!(g["rating"], Value::Null);
    assert_eq!(g["rating_history"], json!([]));
    assert_eq!(s["recent"][0]["rated"], false);
    assert_eq!(s["recent"][0]["rating_after"], Value::Null);
}

#[actix_web::test]
async fn an_undo_that_reopens_a_finished_match_takes_its_rating_back() {
    let app = TestApp::spawn().await;
    let (ada, ben) = (player(&app, "Ada").await, player(&app, "Ben").await);
    let m = dump(&app, &[("Ada", &ada), ("Ben", &ben)], None).await;
    seat0_wins(&app, &m).await;
    assert_eq!(
        board(&app, "dump").await,
        vec![(ada.clone(), 1016.0), (ben.clone(), 984.0)]
    );
    let a = app.undo(&m, &m.host).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    assert_eq!(board(&app, "dump").await, vec![]);
    assert_eq!(
        ok(&app, &format!("/v1/players/{ada}/stats")).await["games"],
        json!([])
    );
    seat1_wins(&app, &m).await;
    assert_eq!(
        board(&app, "dump").await,
        vec![(ben.clone(), 1016.0), (ada.clone(), 984.0)]
    );
}

#[actix_web::test]
async fn a_four_player_table_rates_by_weng_lin_with_shared_places() {
    use skillratings::{
        weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating},
        MultiTeamOutcome,
    };
    let app = TestApp::spawn().await;
    let mut ids = vec![];
    for n in ["Ada", "Ben", "Cy", "Di"] {
        ids.push(player(&app, n).await);
    }
    let players: Vec<Value> = ["Ada", "Ben", "Cy", "Di"]
        .iter()
        .zip(&ids)
        .map(|(n, id)| json!({"name": n, "player_id": id}))
        .collect();
    let m = app
        .create_with(json!({"game": "clubs", "players": players, "config": {"scores_only": true}}))
        .await;
    for _ in 0..3 {
        tally(&app, &m, json!({"points": [-26, 0, 0, 0]})).await;
    }
    tally(&app, &m, json!({"points": [-25, -1, 0, 0]})).await;
    // Totals −103, −1, 0, 0: Cy and Di share first place, Ben third, Ada fourth.
    let start = [WengLinRating::new()];
    let places = [4, 3, 1, 1];
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = places
        .iter()
        .map(|&p| (&start[..], MultiTeamOutcome::new(p)))
        .collect();
    let after = weng_lin_multi_team(&input, &WengLinConfig::new());
    let b = ok(&app, "/v1/games/clubs/leaderboard").await;
    assert_eq!(b["rating_system"], "weng_lin");
    let got: Vec<(String, f64, f64)> = b["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["player_id"].as_str().unwrap().to_string(),
                r["rating"].as_f64().unwrap(),
                r["rating_uncertainty"].as_f64().unwrap(),
            )
        })
        .collect();
    let mut expected: Vec<(String, f64, f64)> = ids
        .iter()
        .zip(&after)
        .map(|(id, t)| (id.clone(), round3(t[0].rating), round3(t[0].uncertainty)))
        .collect();
    expected.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    assert_eq!(got, expected);
    assert!(got[0].1 > 25.0 && got[3].1 < 25.0);
    let s = ok(&app, &format!("/v1/players/{}/stats", ids[2])).await;
    assert_eq!(
        s["games"][0]["wins"], 0,
        "a shared first place is not a win outright"
    );
    assert_eq!(s["recent"][0]["place"], 1);
    assert_eq!(s["recent"][0]["units"], 4);
}

#[actix_web::test]
async fn a_corrected_tournament_result_replays_the_ratings_from_its_place() {
    let app = TestApp::spawn().await;
    let players: Vec<Value> = (0..4).map(|i| json!({"name": format!("P{i}")})).collect();
    let a = post(
        &app,
        "/v1/tournaments",
        None,
        json!({"name": "Club night", "game": "dump", "format": "round_robin",
               "table_size": 2, "record": "totals", "players": players}),
    )
    .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let id = a.body["tournament"]["id"].as_str().unwrap().to_string();
    let org = a.body["organiser_token"].as_str().unwrap().to_string();
    let path = format!("/v1/tournaments/{id}/rounds");
    // Entries in order: (round, table, seat players, totals).
    let mut entries: Vec<(u32, usize, Vec<String>, [i64; 2])> = vec![];
    for round in 1..=2u32 {
        let r = post(&app, &path, Some(&org), json!({})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        for (ti, table) in r.body["tables"].as_array().unwrap().iter().enumerate() {
            let seats: Vec<String> = table["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["player_id"].as_str().unwrap().to_string())
                .collect();
            let deals = json!([[40, 0], [0, 20], [70, 0]]); // seat 0 wins 110–20
            let url = format!(
                "/v1/tournaments/{id}/rounds/{round}/tables/{}/result",
                ti + 1
            );
            let e = put(&app, &url, Some(&org), json!({"deals": deals})).await;
            assert_eq!(e.status, StatusCode::OK, "{}", e.text);
            entries.push((round, ti + 1, seats, [110, 20]));
        }
    }
    // Round 1 table 1 corrected after round 2: seat 1 won.
    let url = format!("/v1/tournaments/{id}/rounds/1/tables/1/result");
    let e = put(
        &app,
        &url,
        Some(&org),
        json!({"deals": [[0, 40], [20, 0], [0, 70]]}),
    )
    .await;
    assert_eq!(e.status, StatusCode::OK, "{}", e.text);
    entries[0].3 = [20, 110];
    // The replay, written out: the four results in the order first entered.
    let mut r: std::collections::HashMap<String, f64> = Default::default();
    for (_, _, seats, totals) in &entries {
        let (a, b) = (
            *r.get(&seats[0]).unwrap_or(&1000.0),
            *r.get(&seats[1]).unwrap_or(&1000.0),
        );
        let score = if totals[0] > totals[1] { 1.0 } else { 0.0 };
        let (na, nb) = elo(a, b, score);
        r.insert(seats[0].clone(), na);
        r.insert(seats[1].clone(), nb);
    }
    assert_eq!(board(&app, "dump").await, sorted(r.into_iter().collect()));
    // The stats link the tournament table.
    let loser = &entries[0].2[0];
    let s = ok(&app, &format!("/v1/players/{loser}/stats")).await;
    let first = s["recent"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        first["tournament"],
        json!({"id": id, "round": 1, "table": 1})
    );
    assert_eq!(first["match_id"], Value::Null);
    assert_eq!(
        (first["total"].clone(), first["won"].clone()),
        (json!(20), json!(false))
    );
}

#[actix_web::test]
async fn the_operator_merges_two_records_of_one_person_and_the_history_follows() {
    let app = TestApp::spawn().await;
    let (ada, ada2, ben, cy) = (
        player(&app, "Ada").await,
        player(&app, "Ada L.").await,
        player(&app, "Ben").await,
        player(&app, "Cy").await,
    );
    let m1 = dump(&app, &[("Ada", &ada), ("Ben", &ben)], None).await;
    seat0_wins(&app, &m1).await;
    let m2 = dump(&app, &[("Ada L.", &ada2), ("Cy", &cy)], None).await;
    seat0_wins(&app, &m2).await;
    let path = format!("/v1/players/{ada}/merge");
    let body = json!({ "from": ada2 });
    let a = post(&app, &path, None, body.clone()).await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );
    let a = post(&app, &path, Some(&m1.host), body.clone()).await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::FORBIDDEN, "operator_only")
    );
    let a = post(&app, &path, Some(OPERATOR), json!({ "from": ada })).await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "invalid_merge")
    );
    let a = post(&app, &path, Some(OPERATOR), json!({ "from": ben })).await;
    assert_eq!((a.status, a.code()), (StatusCode::CONFLICT, "players_met"));
    let a = post(
        &app,
        &path,
        Some(OPERATOR),
        json!({ "from": "0123456789abcdef0123456789abcdef" }),
    )
    .await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::NOT_FOUND, "player_not_found")
    );
    // Nothing changed so far.
    assert_eq!(
        board(&app, "dump").await,
        sorted(vec![
            (ada.clone(), 1016.0),
            (ada2.clone(), 1016.0),
            (ben.clone(), 984.0),
            (cy.clone(), 984.0)
        ])
    );
    let a = post(&app, &path, Some(OPERATOR), body.clone()).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert_eq!(a.body["player_id"], json!(ada));
    assert_eq!(a.body["merged"], json!([ada2]));
    // Replayed as one player: Ada 1016 after beating Ben, then beats Cy (1000).
    let (a2, c2) = elo(1016.0, 1000.0, 1.0);
    assert_eq!(
        board(&app, "dump").await,
        sorted(vec![
            (ada.clone(), a2),
            (ben.clone(), 984.0),
            (cy.clone(), c2)
        ])
    );
    let g = &a.body["games"][0];
    assert_eq!(
        (g["played"].clone(), g["wins"].clone()),
        (json!(2), json!(2))
    );
    assert_eq!(g["head_to_head"].as_array().unwrap().len(), 2);
    // The merged record answers for Ada; its matches list under Ada.
    let s = ok(&app, &format!("/v1/players/{ada2}/stats")).await;
    assert_eq!(s["player_id"], json!(ada));
    let listed = ok(&app, &format!("/v1/players/{ada}/matches")).await;
    let mut ids: Vec<&str> = listed["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    ids.sort();
    let mut want = vec![m1.id.as_str(), m2.id.as_str()];
    want.sort();
    assert_eq!(ids, want);
    // Merged once: again is 409 `player_merged`.
    let a = post(&app, &path, Some(OPERATOR), body).await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::CONFLICT, "player_merged")
    );
    // A new match naming the merged record counts for Ada, rated from Ada's rating: the
    // leaderboard is the one of a club where Ada played all three under one record.
    let m3 = dump(&app, &[("Ada L.", &ada2), ("Ben", &ben)], None).await;
    seat0_wins(&app, &m3).await;
    let s = ok(&app, &format!("/v1/players/{ada}/stats")).await;
    assert_eq!(s["games"][0]["played"], 3);
    let one = TestApp::spawn().await;
    let (o_ada, o_ben, o_cy) = (
        player(&one, "Ada").await,
        player(&one, "Ben").await,
        player(&one, "Cy").await,
    );
    for (p, q) in [(&o_ben, "Ben"), (&o_cy, "Cy"), (&o_ben, "Ben")] {
        let m = dump(&one, &[("Ada", &o_ada), (q, p)], None).await;
        seat0_wins(&one, &m).await;
    }
    let named = |b: Vec<(String, f64)>, ids: [&String; 3]| -> Vec<(usize, f64)> {
        b.into_iter()
            .map(|(p, r)| (ids.iter().position(|i| **i == p).unwrap(), round3(r)))
            .collect()
    };
    let merged_board = named(board(&app, "dump").await, [&ada, &ben, &cy]);
    assert_eq!(merged_board.len(), 3, "{merged_board:?}");
    assert_eq!(
        merged_board,
        named(board(&one, "dump").await, [&o_ada, &o_ben, &o_cy])
    );
    // Ada's three results, Ben's two, Cy's one: counted as each new one is written.
    for (club, ids) in [(&app, [&ada, &ben, &cy]), (&one, [&o_ada, &o_ben, &o_cy])] {
        let mut counts = rated_counts(club, "dump").await;
        counts.sort();
        let mut want: Vec<(String, i64)> = ids.iter().map(|i| (i.to_string(), 0)).collect();
        for (w, n) in want.iter_mut().zip([3, 2, 1]) {
            w.1 = n;
        }
        want.sort();
        assert_eq!(counts, want);
    }
}

#[actix_web::test]
async fn a_season_has_its_own_leaderboard_and_csv() {
    let app = TestApp::spawn().await;
    let (ada, ben) = (player(&app, "=Ada").await, player(&app, "Ben").await);
    let m = dump(&app, &[("=Ada", &ada), ("Ben", &ben)], None).await;
    seat0_wins(&app, &m).await;
    let today = chrono::Utc::now().date_naive();
    let body =
        json!({"name": "This season", "starts": today.to_string(), "ends": today.to_string()});
    let a = post(&app, "/v1/seasons", None, body.clone()).await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );
    let a = post(&app, "/v1/seasons", Some("nope"), body.clone()).await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::FORBIDDEN, "operator_only")
    );
    for bad in [
        json!({"name": " ", "starts": "2026-01-01", "ends": "2026-02-01"}),
        json!({"name": "S", "starts": "2026-02-01", "ends": "2026-01-01"}),
        json!({"name": "S", "starts": "1 March", "ends": "2026-01-01"}),
    ] {
        let a = post(&app, "/v1/seasons", Some(OPERATOR), bad.clone()).await;
        assert_eq!(
            (a.status, a.code()),
            (StatusCode::BAD_REQUEST, "invalid_season"),
            "{bad}"
        );
    }
    let a = post(&app, "/v1/seasons", Some(OPERATOR), body).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let season = a.body["id"].as_str().unwrap().to_string();
    let a = post(
        &app,
        "/v1/seasons",
        Some(OPERATOR),
        json!({"name": "Long ago", "starts": "2020-01-01", "ends": "2020-12-31"}),
    )
    .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let old = a.body["id"].as_str().unwrap().to_string();
    let list = ok(&app, "/v1/seasons").await;
    assert_eq!(list[0]["id"], json!(season));
    assert_eq!(list[1]["id"], json!(old));

    let b = ok(&app, &format!("/v1/seasons/{season}/leaderboard?game=dump")).await;
    assert_eq!(
        b["rows"],
        json!([
            {"rank": 1, "player_id": ada, "name": "=Ada", "played": 1, "wins": 1, "rating": 1016.0, "rating_uncertainty": null, "change": 16.0},
            {"rank": 2, "player_id": ben, "name": "Ben", "played": 1, "wins": 0, "rating": 984.0, "rating_uncertainty": null, "change": -16.0},
        ])
    );
    let csv = app
        .get(
            &format!("/v1/seasons/{season}/leaderboard.csv?game=dump"),
            None,
        )
        .await;
    assert_eq!(csv.status, StatusCode::OK);
    assert!(
        csv.content_type.starts_with("text/csv"),
        "{}",
        csv.content_type
    );
    assert_eq!(
        csv.text,
        format!(
            "rank,player_id,name,played,wins,rating,rating_uncertainty,change\n\
             1,{ada},'=Ada,1,1,1016.000,,16.000\n2,{ben},Ben,1,0,984.000,,-16.000\n"
        )
    );
    let b = ok(&app, &format!("/v1/seasons/{old}/leaderboard?game=dump")).await;
    assert_eq!(b["rows"], json!([]));
    let a = app
        .get(
            "/v1/seasons/0123456789abcdef0123456789abcdef/leaderboard?game=dump",
            None,
        )
        .await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::NOT_FOUND, "season_not_found")
    );
    let a = app
        .get(
            &format!("/v1/seasons/{season}/leaderboard?game=chess"),
            None,
        )
        .await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::NOT_FOUND, "unknown_game")
    );
}

#[actix_web::test]
async fn partners_share_their_sides_elo_change() {
    let app = TestApp::spawn().await;
    let mut ids = vec![];
    for n in ["Ada", "Ben", "Cy", "Di"] {
        ids.push(player(&app, n).await);
    }
    let seats: Vec<(&str, &str)> = ["Ada", "Ben", "Cy", "Di"]
        .iter()
        .zip(&ids)
        .map(|(n, id)| (*n, id.as_str()))
        .collect();
    let m = dump(&app, &seats, None).await;
    seat0_wins(&app, &m).await; // side 0 (seats 0 and 2) 15, side 1 (seats 1 and 3) 0
    assert_eq!(
        board(&app, "dump").await,
        sorted(vec![
            (ids[0].clone(), 1016.0),
            (ids[1].clone(), 984.0),
            (ids[2].clone(), 1016.0),
            (ids[3].clone(), 984.0)
        ])
    );
    let s = ok(&app, &format!("/v1/players/{}/stats", ids[0])).await;
    // Partners are not opponents.
    let mut h2h: Vec<&str> = s["games"][0]["head_to_head"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    h2h.sort(); // (listed most met first, then by player id: random ids)
    assert_eq!(h2h, vec!["Ben", "Di"]);
}

/// Makes the club's own writes fail (a trigger refusing any new result) or lets them through
/// again: the match or entry still commits, the club's recording after it fails.
async fn club_down(url: &str, down: bool) {
    use sqlx::Connection;
    let sqlite_up = "DROP TRIGGER club_down";
    let sqlite_down = "CREATE TRIGGER club_down BEFORE INSERT ON club_results \
                       BEGIN SELECT RAISE(ABORT, 'the club is down'); END";
    if url.starts_with("postgres") {
        let mut c = sqlx::PgConnection::connect(url).await.unwrap();
        let statements: &[&str] = if down {
            &[
                "CREATE FUNCTION club_down() RETURNS trigger LANGUAGE plpgsql AS \
                 $$ BEGIN RAISE EXCEPTION 'the club is down'; END $$",
                "CREATE TRIGGER club_down BEFORE INSERT ON club_results \
                 FOR EACH ROW EXECUTE FUNCTION club_down()",
            ]
        } else {
            &[
                "DROP TRIGGER club_down ON club_results",
                "DROP FUNCTION club_down()",
            ]
        };
        for s in statements {
            sqlx::query(s).execute(&mut c).await.unwrap();
        }
    } else {
        let mut c = sqlx::SqliteConnection::connect(url).await.unwrap();
        let s = if down { sqlite_down } else { sqlite_up };
        sqlx::query(s).execute(&mut c).await.unwrap();
    }
}

/// The markers of results the club has not taken in yet.
async fn pending_markers(url: &str) -> Vec<(String, String)> {
    use sqlx::Connection;
    let q = "SELECT source, mark FROM club_pending ORDER BY source";
    if url.starts_with("postgres") {
        let mut c = sqlx::PgConnection::connect(url).await.unwrap();
        sqlx::query_as(q).fetch_all(&mut c).await.unwrap()
    } else {
        let mut c = sqlx::SqliteConnection::connect(url).await.unwrap();
        sqlx::query_as(q).fetch_all(&mut c).await.unwrap()
    }
}

#[actix_web::test]
async fn a_result_the_club_failed_to_take_in_after_the_commit_is_taken_in_at_the_next_start() {
    let app = TestApp::spawn().await;
    let (ada, ben, cy) = (
        player(&app, "Ada").await,
        player(&app, "Ben").await,
        player(&app, "Cy").await,
    );
    let m1 = dump(&app, &[("Ada", &ada), ("Ben", &ben)], None).await;
    seat0_wins(&app, &m1).await; // Ada 1016, Ben 984
    assert_eq!(pending_markers(&app.database_url).await, vec![]);

    // The club's write fails after the match's finishing event is committed (as a crash
    // between the two would leave it): the match stands, the club does not know.
    club_down(&app.database_url, true).await;
    let m2 = dump(&app, &[("Cy", &cy), ("Ada", &ada)], None).await;
    seat0_wins(&app, &m2).await; // Cy beats Ada
    assert_eq!(app.view(&m2, None).await["status"], "finished");
    // A match finished and reopened by an undo while the club is down: nothing to take in.
    let m3 = dump(&app, &[("Ben", &ben), ("Cy", &cy)], None).await;
    seat0_wins(&app, &m3).await;
    let a = app.undo(&m3, &m3.host).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    assert_eq!(
        board(&app, "dump").await,
        vec![(ada.clone(), 1016.0), (ben.clone(), 984.0)]
    );
    assert_eq!(
        ok(&app, &format!("/v1/players/{cy}/stats")).await["games"],
        json!([])
    );
    let finished_seq = app.view(&m2, None).await["seq"].as_i64().unwrap();
    assert_eq!(
        pending_markers(&app.database_url).await,
        vec![(format!("match:{}", m2.id), finished_seq.to_string())]
    );
    club_down(&app.database_url, false).await;

    // The next start takes it in from the match's state: rated at once, at its finishing time.
    let restarted = TestApp::on(&app.database_url).await;
    let (c2, a2) = elo(1000.0, 1016.0, 1.0);
    assert_eq!(
        board(&restarted, "dump").await,
        sorted(vec![
            (ada.clone(), a2),
            (ben.clone(), 984.0),
            (cy.clone(), c2)
        ])
    );
    let s = ok(&restarted, &format!("/v1/players/{cy}/stats")).await;
    let g = &s["games"][0];
    assert_eq!(
        (g["played"].clone(), g["wins"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(g["rating_history"].as_array().unwrap().len(), 1);
    assert_eq!(g["rating_history"][0]["match_id"], json!(m2.id));
    assert_eq!(
        g["rating_history"][0]["at"],
        app.view(&m2, None).await["updated_at"]
    );
    assert_eq!(pending_markers(&app.database_url).await, vec![]);
    // A third start finds nothing left to do: the ratings stay as they are.
    let again = TestApp::on(&app.database_url).await;
    assert_eq!(
        board(&again, "dump").await,
        sorted(vec![
            (ada.clone(), a2),
            (ben.clone(), 984.0),
            (cy.clone(), c2)
        ])
    );
}

/// Runs `statements` on the database at `url` (either backend), as a tool outside the service.
async fn run_sql(url: &str, statements: &[String]) {
    use sqlx::Connection;
    if url.starts_with("postgres") {
        let mut c = sqlx::PgConnection::connect(url).await.unwrap();
        for s in statements {
            sqlx::query(s).execute(&mut c).await.unwrap();
        }
    } else {
        let mut c = sqlx::SqliteConnection::connect(url).await.unwrap();
        for s in statements {
            sqlx::query(s).execute(&mut c).await.unwrap();
        }
    }
}

/// A round-robin Dump tournament of two guests with its first round paired: (id, organiser
/// token, the seat players of its one table).
async fn heads_up_tournament(app: &TestApp) -> (String, String, Vec<String>) {
    let players: Vec<Value> = (0..2).map(|i| json!({"name": format!("P{i}")})).collect();
    let a = post(
        app,
        "/v1/tournaments",
        None,
        json!({"name": "Club night", "game": "dump", "format": "round_robin",
               "table_size": 2, "record": "totals", "players": players}),
    )
    .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let id = a.body["tournament"]["id"].as_str().unwrap().to_string();
    let org = a.body["organiser_token"].as_str().unwrap().to_string();
    let r = post(
        app,
        &format!("/v1/tournaments/{id}/rounds"),
        Some(&org),
        json!({}),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let seats: Vec<String> = r.body["tables"][0]["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["player_id"].as_str().unwrap().to_string())
        .collect();
    (id, org, seats)
}

#[actix_web::test]
async fn an_entered_result_and_its_rating_are_one_commit_refused_whole_when_the_club_fails() {
    let app = TestApp::spawn().await;
    let (id, org, seats) = heads_up_tournament(&app).await;
    let url = format!("/v1/tournaments/{id}/rounds/1/tables/1/result");
    let round = format!("/v1/tournaments/{id}/rounds/1");
    // The club's write fails inside the entry's transaction: nothing is recorded, neither the
    // entry nor a marker, and the organiser is told so.
    club_down(&app.database_url, true).await;
    let e = put(
        &app,
        &url,
        Some(&org),
        json!({"deals": [[40, 0], [0, 20], [70, 0]]}),
    )
    .await;
    assert_eq!(e.status, StatusCode::INTERNAL_SERVER_ERROR, "{}", e.text);
    assert_eq!(e.body["code"], "internal_error");
    let r = app.get(&round, Some(&org)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let r = r.body;
    assert_eq!(
        (
            r["tables"][0]["finished"].clone(),
            r["tables"][0]["result"].clone()
        ),
        (json!(false), Value::Null)
    );
    assert_eq!(board(&app, "dump").await, vec![]);
    assert_eq!(pending_markers(&app.database_url).await, vec![]);
    club_down(&app.database_url, false).await;
    // Entered again: the entry (version 1) and its rating, at once, with no marker; then a
    // correction (version 2), replayed at once.
    let e = put(
        &app,
        &url,
        Some(&org),
        json!({"deals": [[40, 0], [0, 20], [70, 0]]}),
    )
    .await;
    assert_eq!(e.status, StatusCode::OK, "{}", e.text);
    assert_eq!(e.body["result"]["totals"], json!([110, 20]));
    assert_eq!(
        board(&app, "dump").await,
        vec![(seats[0].clone(), 1016.0), (seats[1].clone(), 984.0)]
    );
    assert_eq!(pending_markers(&app.database_url).await, vec![]);
    let e = put(
        &app,
        &url,
        Some(&org),
        json!({"deals": [[0, 40], [20, 0], [0, 70]]}),
    )
    .await;
    assert_eq!(e.status, StatusCode::OK, "{}", e.text);
    assert_eq!(
        board(&app, "dump").await,
        vec![(seats[1].clone(), 1016.0), (seats[0].clone(), 984.0)]
    );
    assert_eq!(pending_markers(&app.database_url).await, vec![]);
    let s = ok(&app, &format!("/v1/players/{}/stats", seats[1])).await;
    assert_eq!(s["games"][0]["played"], 1);
    assert_eq!(s["recent"][0]["total"], 110);
}

#[actix_web::test]
async fn an_entry_clears_the_marker_an_earlier_version_left_for_its_table() {
    let app = TestApp::spawn().await;
    let (id, org, seats) = heads_up_tournament(&app).await;
    // A marker of the table, as an earlier version left it between its two commits (its entry's
    // row lost here): the next entry of the table records the club and leaves no marker.
    run_sql(
        &app.database_url,
        &[format!(
            "INSERT INTO club_pending (source, mark, at) VALUES ('table:{id}:1:1', '1', '2026-11-27T10:00:00Z')"
        )],
    )
    .await;
    assert_eq!(pending_markers(&app.database_url).await.len(), 1);
    let e = put(
        &app,
        &format!("/v1/tournaments/{id}/rounds/1/tables/1/result"),
        Some(&org),
        json!({"deals": [[40, 0], [0, 20], [70, 0]]}),
    )
    .await;
    assert_eq!(e.status, StatusCode::OK, "{}", e.text);
    assert_eq!(pending_markers(&app.database_url).await, vec![]);
    assert_eq!(
        board(&app, "dump").await,
        vec![(seats[0].clone(), 1016.0), (seats[1].clone(), 984.0)]
    );
    assert_eq!(
        rated_counts(&app, "dump").await,
        vec![(seats[0].clone(), 1), (seats[1].clone(), 1)]
    );
}

#[actix_web::test]
async fn a_table_marker_left_by_an_earlier_version_is_taken_in_at_the_next_start_as_last_corrected()
{
    let app = TestApp::spawn().await;
    let (id, _org, seats) = heads_up_tournament(&app).await;
    // What an earlier version (the entry's commit, then the club's in a second transaction)
    // left when it stopped between the two: two versions of the table's entry (seat 0 won,
    // then the correction: seat 1 won) and the marker of the latest; nothing in the club.
    let row = |version: i64, totals: [i64; 2], deals: &str, at: &str| {
        format!(
            "INSERT INTO tournament_results (tournament_id, round, table_no, version, result, entered_at) \
             VALUES ('{id}', 1, 1, {version}, '{{\"totals\": [{}, {}], \"deals\": {deals}, \"match_id\": null}}', '{at}')",
            totals[0], totals[1]
        )
    };
    run_sql(
        &app.database_url,
        &[
            row(
                1,
                [110, 20],
                "[[40, 0], [0, 20], [70, 0]]",
                "2026-11-27T10:00:00Z",
            ),
            row(
                2,
                [20, 110],
                "[[0, 40], [20, 0], [0, 70]]",
                "2026-11-27T10:05:00Z",
            ),
            format!(
                "INSERT INTO club_pending (source, mark, at) VALUES ('table:{id}:1:1', '2', '2026-11-27T10:05:00Z')"
            ),
        ],
    )
    .await;
    assert_eq!(board(&app, "dump").await, vec![]);
    let restarted = TestApp::on(&app.database_url).await;
    assert_eq!(
        board(&restarted, "dump").await,
        vec![(seats[1].clone(), 1016.0), (seats[0].clone(), 984.0)]
    );
    let s = ok(&restarted, &format!("/v1/players/{}/stats", seats[1])).await;
    assert_eq!(
        s["recent"][0]["tournament"],
        json!({"id": id, "round": 1, "table": 1})
    );
    assert_eq!(s["recent"][0]["total"], 110);
    assert_eq!(
        s["games"][0]["rating_history"][0]["at"],
        "2026-11-27T10:05:00Z"
    );
    assert_eq!(pending_markers(&app.database_url).await, vec![]);
}

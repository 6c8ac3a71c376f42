//! Players and tournaments over HTTP (issue 12): registration, seats naming players, Swiss and
//! round-robin rounds, duplicate deals, results from matches and from the quick log, standings,
//! ratings and exports. Runs on SQLite, and on PostgreSQL with `TEST_DATABASE_URL`.

mod common;

use common::{round_matches, TestApp};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

async fn post(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> common::Answer {
    app.request(Method::POST, path, token, &[], Some(body))
        .await
}

async fn put(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> common::Answer {
    app.request(Method::PUT, path, token, &[], Some(body)).await
}

/// Creates a tournament; panics unless 201. Returns (tournament id, organiser token, body).
async fn tournament(app: &TestApp, body: Value) -> (String, String, Value) {
    let a = post(app, "/v1/tournaments", None, body).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    (
        a.body["tournament"]["id"].as_str().unwrap().to_string(),
        a.body["organiser_token"].as_str().unwrap().to_string(),
        a.body,
    )
}

fn names(n: usize) -> Vec<Value> {
    (0..n).map(|i| json!({"name": format!("P{i}")})).collect()
}

#[actix_web::test]
async fn players_register_and_a_match_seat_names_one() {
    let app = TestApp::spawn().await;
    let a = post(&app, "/v1/players", None, json!({"name": "Ada"})).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let ada = a.body["id"].as_str().unwrap().to_string();
    assert_eq!(ada.len(), 32);
    let got = app.get(&format!("/v1/players/{ada}"), None).await;
    assert_eq!(got.status, StatusCode::OK);
    assert_eq!(got.body["name"], "Ada");

    let blank = post(&app, "/v1/players", None, json!({"name": "  "})).await;
    assert_eq!(blank.status, StatusCode::BAD_REQUEST);
    assert_eq!(blank.code(), "invalid_player_name");
    let missing = app
        .get("/v1/players/0123456789abcdef0123456789abcdef", None)
        .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.code(), "player_not_found");

    // A seat names a registered player; another is a name alone.
    let m = post(
        &app,
        "/v1/matches",
        None,
        json!({"game": "dump", "players": [{"name": "Ada", "player_id": ada}, {"name": "Ben"}]}),
    )
    .await;
    assert_eq!(m.status, StatusCode::CREATED, "{}", m.text);
    assert_eq!(
        m.body["match"]["players"],
        json!([{"seat": 0, "name": "Ada", "player_id": ada}, {"seat": 1, "name": "Ben", "player_id": null}])
    );
    assert_eq!(m.body["match"]["tournament"], Value::Null);

    let unknown = post(
        &app,
        "/v1/matches",
        None,
        json!({"game": "dump", "players": [{"name": "X", "player_id": "0123456789abcdef0123456789abcdef"}, {"name": "Ben"}]}),
    )
    .await;
    assert_eq!(unknown.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(unknown.code(), "unknown_player");
    let twice = post(
        &app,
        "/v1/matches",
        None,
        json!({"game": "dump", "players": [{"name": "A", "player_id": ada}, {"name": "B", "player_id": ada}]}),
    )
    .await;
    assert_eq!(twice.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(twice.code(), "duplicate_player");
    let neither = post(
        &app,
        "/v1/matches",
        None,
        json!({"game": "dump", "players": [{"player_id": ada}, {"name": "Ben"}]}),
    )
    .await;
    assert_eq!(neither.status, StatusCode::BAD_REQUEST);
    assert_eq!(neither.code(), "invalid_body");
}

#[actix_web::test]
async fn tournament_settings_are_checked() {
    let app = TestApp::spawn().await;
    let cases = [
        (
            json!({"name": "T", "game": "chess", "format": "swiss", "rounds": 2, "players": names(4)}),
            422,
            "unknown_game",
        ),
        (
            json!({"name": "T", "game": "clubs", "format": "swiss", "players": names(8)}),
            422,
            "invalid_rounds",
        ),
        (
            json!({"name": "T", "game": "clubs", "format": "round_robin", "rounds": 3, "players": names(8)}),
            422,
            "invalid_rounds",
        ),
        (
            json!({"name": "T", "game": "dump", "format": "swiss", "rounds": 2, "table_size": 3, "players": names(6)}),
            422,
            "invalid_table_size",
        ),
        (
            json!({"name": "T", "game": "by-hook-or-crook", "format": "swiss", "rounds": 2, "duplicate": true, "dealing": "service", "players": names(6)}),
            422,
            "duplicate_not_dealt",
        ),
        // Real cards in duplicate are taken in every duplicate game (their boards are checked card
        // by card): tests/api_duplicate_cards.rs.
        (
            json!({"name": "T", "game": "clubs", "format": "swiss", "rounds": 2, "duplicate": true, "dealing": "service", "table_size": 4, "players": names(6)}),
            422,
            "duplicate_needs_two_tables",
        ),
        (
            json!({"name": "T", "game": "clubs", "format": "swiss", "rounds": 2, "players": names(1)}),
            400,
            "invalid_entrants",
        ),
        (
            json!({"name": " ", "game": "clubs", "format": "swiss", "rounds": 2, "players": names(4)}),
            400,
            "invalid_tournament_name",
        ),
        (
            json!({"name": "T", "game": "clubs", "format": "knockout", "rounds": 2, "players": names(4)}),
            400,
            "invalid_body",
        ),
    ];
    for (body, status, code) in cases {
        let a = post(&app, "/v1/tournaments", None, body.clone()).await;
        assert_eq!(a.status.as_u16(), status, "{body}: {}", a.text);
        assert_eq!(a.code(), code, "{body}: {}", a.text);
    }
}

#[actix_web::test]
async fn a_duplicate_swiss_round_deals_the_same_cards_and_scores_by_matchpoints() {
    let app = TestApp::spawn().await;
    let (id, org, created) = tournament(
        &app,
        json!({"name": "P.M. pairs", "game": "plus-minus", "config": {"rubber_games": 2},
               "dealing": "service", "format": "swiss", "rounds": 2, "table_size": 3,
               "duplicate": true, "players": names(6)}),
    )
    .await;
    assert_eq!(created["tournament"]["rating_system"], "weng_lin");
    assert_eq!(created["tournament"]["rounds_planned"], 2);
    assert_eq!(created["tournament"]["status"], "in_progress");

    // Only the organiser pairs.
    let path = format!("/v1/tournaments/{id}/rounds");
    assert_eq!(
        post(&app, &path, None, json!({})).await.status,
        StatusCode::UNAUTHORIZED
    );
    let other = post(&app, &path, Some("not-the-organiser"), json!({})).await;
    assert_eq!(other.status, StatusCode::FORBIDDEN);
    assert_eq!(other.code(), "organiser_only");

    let r1 = post(&app, &path, Some(&org), json!({})).await;
    assert_eq!(r1.status, StatusCode::CREATED, "{}", r1.text);
    assert_eq!(r1.body["round"], 1);
    assert_eq!(r1.body["tables"].as_array().unwrap().len(), 2);
    assert_eq!(r1.body["secret"], Value::Null);
    let tables = round_matches(&r1.body);
    assert_eq!(tables.len(), 2);

    // Asking again gives the same tokens (they derive from the organiser's).
    let again = app.get(&format!("{path}/1"), Some(&org)).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.text);
    assert_eq!(again.body["tokens"], r1.body["tokens"]);
    // Pairing round 2 now is refused: round 1 is being played.
    let early = post(&app, &path, Some(&org), json!({})).await;
    assert_eq!(early.status, StatusCode::CONFLICT);
    assert_eq!(early.code(), "round_in_progress");

    // The public view hides the tables' matches while the duplicate round is played.
    let public = app.get(&format!("/v1/tournaments/{id}"), None).await;
    assert_eq!(
        public.body["rounds"][0]["tables"][0]["match_id"],
        Value::Null
    );

    // Each match names its players and its tournament table.
    let v0 = app.view(&tables[0], Some(&tables[0].seats[0])).await;
    assert_eq!(v0["tournament"], json!({"id": id, "round": 1, "table": 1}));
    assert_eq!(v0["duplicate"], true);
    let seat0 = r1.body["tables"][0]["players"][0].clone();
    assert_eq!(v0["players"][0]["player_id"], seat0["player_id"]);

    // The same deal at both tables: seat by seat, the same hand.
    for m in &tables {
        let d = app.act(m, &m.host, None, json!({"type": "deal"})).await;
        assert_eq!(d.status, StatusCode::CREATED, "{}", d.text);
    }
    for s in 0..3 {
        let a = app.view(&tables[0], Some(&tables[0].seats[s])).await;
        let b = app.view(&tables[1], Some(&tables[1].seats[s])).await;
        assert!(a["you"]["hand"].as_array().is_some_and(|h| h.len() == 11));
        assert_eq!(a["you"]["hand"], b["you"]["hand"], "seat {s}");
    }
    // (Each table reads its own log: a duplicate table is not public while its round is played.)
    let e0 = app.events(&tables[0], Some(&tables[0].host)).await;
    let e1 = app.events(&tables[1], Some(&tables[1].host)).await;
    assert_eq!(e0[0]["commitment"], e1[0]["commitment"]);

    // Play both tables out (different choices, the same cards).
    let f0 = app.play(&tables[0], 0x1234_5678_9abc_def1, None).await;
    let f1 = app.play(&tables[1], 0x0fed_cba9_8765_4321, None).await;
    // The round publishes its secret once complete, and the logs their seeds.
    let log = app.events(&tables[0], None).await;
    let deal = log.iter().find(|e| e["commitment"].is_string()).unwrap();
    assert_eq!(deal["seed_withheld"], Value::Null);
    let t = app.get(&format!("/v1/tournaments/{id}"), None).await;
    let round = &t.body["rounds"][0];
    assert_eq!(round["complete"], true);
    let secret = round["secret"].as_str().expect("published").to_string();
    let seed1 = Sha256::digest(format!("{secret}:1").as_bytes());
    assert_eq!(deal["seed"], json!(hex::encode(seed1)));
    assert_eq!(
        hex::encode(Sha256::digest(seed1)),
        deal["commitment"].as_str().unwrap()
    );

    // Matchpoints by board: for each game and seat, table 1 against table 2.
    let d0: Vec<Vec<i64>> = f0["scores"]["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| serde_json::from_value(r["points"].clone()).unwrap())
        .collect();
    let d1: Vec<Vec<i64>> = f1["scores"]["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| serde_json::from_value(r["points"].clone()).unwrap())
        .collect();
    assert_eq!(d0.len(), 2);
    assert_eq!(d1.len(), 2);
    let mut expected = [[0i64; 3]; 2];
    for k in 0..2 {
        for s in 0..3 {
            let (a, b) = (d0[k][s], d1[k][s]);
            expected[0][s] += if a > b {
                2
            } else if a == b {
                1
            } else {
                0
            };
            expected[1][s] += if b > a {
                2
            } else if a == b {
                1
            } else {
                0
            };
        }
    }
    for (ti, table) in round["tables"].as_array().unwrap().iter().enumerate() {
        assert_eq!(table["result"]["source"], "match");
        assert_eq!(
            table["result"]["matchpoints"],
            json!(expected[ti]),
            "table {}",
            ti + 1
        );
        assert_eq!(table["result"]["max_matchpoints"], json!([4, 4, 4]));
    }
    let st = app
        .get(&format!("/v1/tournaments/{id}/standings"), None)
        .await;
    assert_eq!(st.status, StatusCode::OK, "{}", st.text);
    assert_eq!(st.body["duplicate"], true);
    assert_eq!(
        st.body["rating_parameters"],
        json!({"system": "weng_lin", "model": "bradley_terry_full", "beta": 25.0 / 6.0,
               "uncertainty_tolerance": 0.000001, "start_rating": 25.0,
               "start_uncertainty": 25.0 / 3.0})
    );
    let rows = st.body["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    let total_mp: i64 = rows
        .iter()
        .map(|r| r["matchpoints"].as_i64().unwrap())
        .sum();
    assert_eq!(
        total_mp,
        2 * 2 * 3,
        "every board comparison hands out 2 matchpoints"
    );
    for table in round["tables"].as_array().unwrap() {
        for p in table["players"].as_array().unwrap() {
            let row = rows
                .iter()
                .find(|r| r["player_id"] == p["player_id"])
                .unwrap();
            let seat = p["seat"].as_u64().unwrap() as usize;
            assert_eq!(row["matchpoints"], table["result"]["matchpoints"][seat]);
            assert_eq!(row["max_matchpoints"], 4);
            assert_eq!(row["played"], 1);
        }
    }
    // Ranks are ordered by matchpoints.
    let mps: Vec<i64> = rows
        .iter()
        .map(|r| r["matchpoints"].as_i64().unwrap())
        .collect();
    assert!(mps.windows(2).all(|w| w[0] >= w[1]), "{mps:?}");

    // Round 2 pairs (Swiss) and the standings' ETag answers 304 while nothing changed.
    let r2 = post(&app, &path, Some(&org), json!({})).await;
    assert_eq!(r2.status, StatusCode::CREATED, "{}", r2.text);
    assert_eq!(r2.body["round"], 2);
    let tag = st.etag.clone().unwrap();
    let same = app
        .request(
            Method::GET,
            &format!("/v1/tournaments/{id}/standings"),
            None,
            &[("If-None-Match", &tag)],
            None,
        )
        .await;
    assert_eq!(same.status, StatusCode::NOT_MODIFIED);

    // A table whose match finished takes its result from it: no quick log over it.
    let over = put(
        &app,
        &format!("/v1/tournaments/{id}/rounds/1/tables/1/result"),
        Some(&org),
        json!({"totals": [0, 0, 0]}),
    )
    .await;
    assert_eq!(over.status, StatusCode::CONFLICT);
    assert_eq!(over.code(), "result_from_match");
}

#[actix_web::test]
async fn a_round_robin_by_quick_log_ranks_rates_and_exports() {
    let app = TestApp::spawn().await;
    let (id, org, created) = tournament(
        &app,
        json!({"name": "Dump, \"heads up\"", "game": "dump", "format": "round_robin",
               "table_size": 2, "record": "totals", "players": names(4)}),
    )
    .await;
    let t = &created["tournament"];
    assert_eq!(t["rounds_planned"], 3);
    assert_eq!(t["rating_system"], "elo");
    let ids: Vec<String> = t["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["player_id"].as_str().unwrap().to_string())
        .collect();
    let path = format!("/v1/tournaments/{id}/rounds");
    let mut met = std::collections::HashSet::new();
    for round in 1..=3u32 {
        let r = post(&app, &path, Some(&org), json!({})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        assert_eq!(r.body["tokens"], json!([]), "quick log: no matches");
        let tables = r.body["tables"].as_array().unwrap().clone();
        assert_eq!(tables.len(), 2);
        for (ti, table) in tables.iter().enumerate() {
            let seats: Vec<String> = table["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["player_id"].as_str().unwrap().to_string())
                .collect();
            let mut pair = seats.clone();
            pair.sort();
            assert!(met.insert(pair), "a pair met twice");
            // P0 beats everyone; otherwise seat 0 wins.
            let p0_at = seats.iter().position(|s| *s == ids[0]);
            let winner = p0_at.unwrap_or(0);
            let mut deals = vec![vec![0, 0], vec![0, 0], vec![0, 0]];
            deals[0][winner] = 40;
            deals[1][1 - winner] = 20;
            deals[2][winner] = 70;
            let url = format!(
                "/v1/tournaments/{id}/rounds/{round}/tables/{}/result",
                ti + 1
            );
            if round == 1 && ti == 0 {
                // Refusals first: each names the rule; nothing is recorded.
                let both = put(&app, &url, Some(&org), json!({"deals": [[40, 10]]})).await;
                assert_eq!(both.status, StatusCode::UNPROCESSABLE_ENTITY);
                assert_eq!(both.code(), "result_impossible");
                let sums = put(
                    &app,
                    &url,
                    Some(&org),
                    json!({"totals": [1, 2], "deals": deals}),
                )
                .await;
                assert_eq!(sums.status, StatusCode::UNPROCESSABLE_ENTITY);
                assert_eq!(sums.code(), "result_totals_mismatch");
                let shape = put(&app, &url, Some(&org), json!({"totals": [110, 0, 0]})).await;
                assert_eq!(shape.status, StatusCode::UNPROCESSABLE_ENTITY);
                assert_eq!(shape.code(), "result_shape");
                let nothing = put(&app, &url, Some(&org), json!({})).await;
                assert_eq!(nothing.status, StatusCode::UNPROCESSABLE_ENTITY);
                assert_eq!(nothing.code(), "result_missing");
                let stranger = put(&app, &url, Some("someone"), json!({"deals": deals})).await;
                assert_eq!(stranger.status, StatusCode::FORBIDDEN);
                // A wrong entry, then its correction: the latest counts.
                let mut wrong = deals.clone();
                wrong[2] = vec![0, 0];
                wrong[1] = vec![0, 0];
                wrong.push(vec![0, 0]);
                wrong[0] = if winner == 0 {
                    vec![0, 80]
                } else {
                    vec![80, 0]
                };
                wrong[3] = if winner == 0 {
                    vec![0, 30]
                } else {
                    vec![30, 0]
                };
                let w = put(&app, &url, Some(&org), json!({"deals": wrong})).await;
                assert_eq!(w.status, StatusCode::OK, "{}", w.text);
            }
            let ok = put(&app, &url, Some(&org), json!({"deals": deals})).await;
            assert_eq!(ok.status, StatusCode::OK, "{}", ok.text);
            let mut expect = vec![0, 0];
            expect[winner] = 110;
            expect[1 - winner] = 20;
            assert_eq!(ok.body["result"]["totals"], json!(expect));
            assert_eq!(ok.body["result"]["winners"], json!([winner]));
            assert_eq!(ok.body["result"]["source"], "totals");
        }
    }
    assert_eq!(met.len(), 6, "every pair met once");
    let done = post(&app, &path, Some(&org), json!({})).await;
    assert_eq!(done.status, StatusCode::CONFLICT);
    assert_eq!(done.code(), "tournament_finished");
    let view = app.get(&format!("/v1/tournaments/{id}"), None).await;
    assert_eq!(view.body["status"], "finished");

    let st = app
        .get(&format!("/v1/tournaments/{id}/standings"), None)
        .await;
    assert_eq!(st.status, StatusCode::OK);
    assert_eq!(st.body["rating_system"], "elo");
    assert_eq!(
        st.body["rating_parameters"],
        json!({"system": "elo", "k": 32.0, "start": 1000.0, "scale": 400.0})
    );
    assert_eq!(
        st.body["tie_breaks"],
        json!([
            "matchpoints",
            "wins",
            "total",
            "opponents_matchpoints",
            "entry_order"
        ])
    );
    let rows = st.body["rows"].as_array().unwrap();
    assert_eq!(rows[0]["player_id"], ids[0].as_str());
    assert_eq!(rows[0]["rank"], 1);
    assert_eq!(rows[0]["wins"], 3);
    assert_eq!(rows[0]["played"], 3);
    assert_eq!(rows[0]["matchpoints"], 6);
    assert_eq!(rows[0]["max_matchpoints"], 6);
    assert_eq!(rows[0]["percentage"], 100.0);
    assert_eq!(rows[0]["total"], 330);
    assert!(rows[0]["rating"].as_f64().unwrap() > 1040.0, "{}", rows[0]);
    assert_eq!(rows[0]["rating_uncertainty"], Value::Null);
    let wins: i64 = rows.iter().map(|r| r["wins"].as_i64().unwrap()).sum();
    assert_eq!(wins, 6, "one winner per table");
    let mp: i64 = rows
        .iter()
        .map(|r| r["matchpoints"].as_i64().unwrap())
        .sum();
    assert_eq!(mp, 12, "2 matchpoints per table");

    // Exports.
    let csv = app
        .get(&format!("/v1/tournaments/{id}/export/standings.csv"), None)
        .await;
    assert_eq!(csv.status, StatusCode::OK);
    assert!(csv.content_type.starts_with("text/csv"));
    let lines: Vec<&str> = csv.text.lines().collect();
    assert_eq!(lines.len(), 5);
    assert!(lines[0].starts_with("rank,player_id,name,"));
    assert!(
        lines[1].starts_with(&format!("1,{},P0,3,0,3,330,6,6,", ids[0])),
        "{}",
        lines[1]
    );
    let results = app
        .get(&format!("/v1/tournaments/{id}/export/results.csv"), None)
        .await;
    assert_eq!(results.text.lines().count(), 1 + 6 * 2);
    let rj = app
        .get(&format!("/v1/tournaments/{id}/export/results.json"), None)
        .await;
    assert_eq!(rj.status, StatusCode::OK);
    assert_eq!(rj.body["results"].as_array().unwrap().len(), 6);
    let bg = app
        .get(&format!("/v1/tournaments/{id}/export/bgstats.json"), None)
        .await;
    assert_eq!(bg.status, StatusCode::OK, "{}", bg.text);
    assert_eq!(bg.body["plays"].as_array().unwrap().len(), 6);
    assert_eq!(bg.body["players"].as_array().unwrap().len(), 4);
    assert_eq!(bg.body["games"][0]["name"], "Dump");
    let play = &bg.body["plays"][0];
    let winners: Vec<&Value> = play["playerScores"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["winner"] == true)
        .collect();
    assert_eq!(winners.len(), 1);
    assert_eq!(winners[0]["score"], "110");
    let again = app
        .get(&format!("/v1/tournaments/{id}/export/bgstats.json"), None)
        .await;
    assert_eq!(again.body, bg.body, "re-exporting gives the same file");
    let none = app
        .get(&format!("/v1/tournaments/{id}/export/other.txt"), None)
        .await;
    assert_eq!(none.status, StatusCode::NOT_FOUND);
    assert_eq!(none.code(), "export_not_found");
}

#[actix_web::test]
async fn two_organisers_pairing_at_once_make_one_round() {
    let app = TestApp::spawn().await;
    let (id, org, _) = tournament(
        &app,
        json!({"name": "Clubs night", "game": "clubs", "format": "swiss", "rounds": 3,
               "table_size": 4, "players": names(8)}),
    )
    .await;
    let path = format!("/v1/tournaments/{id}/rounds");
    let (a, b) = tokio::join!(
        post(&app, &path, Some(&org), json!({})),
        post(&app, &path, Some(&org), json!({}))
    );
    let mut statuses = [a.status.as_u16(), b.status.as_u16()];
    statuses.sort();
    assert_eq!(statuses, [201, 409], "{} / {}", a.text, b.text);
    let t = app.get(&format!("/v1/tournaments/{id}"), Some(&org)).await;
    assert_eq!(t.body["rounds"].as_array().unwrap().len(), 1);
    // Two tables of four; each table's match exists and names its players.
    let tables = t.body["rounds"][0]["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 2);
    let mut seen = std::collections::HashSet::new();
    for table in tables {
        let mid = table["match_id"].as_str().unwrap();
        let m = app.get(&format!("/v1/matches/{mid}"), None).await;
        assert_eq!(m.status, StatusCode::OK);
        assert_eq!(m.body["players"], table["players"]);
        for p in table["players"].as_array().unwrap() {
            assert!(seen.insert(p["player_id"].as_str().unwrap().to_string()));
        }
    }
    assert_eq!(seen.len(), 8);
    // A table whose match is unfinished may be settled by the quick log (Clubs: deals sum to −26).
    let url = format!("/v1/tournaments/{id}/rounds/1/tables/1/result");
    let bad = put(
        &app,
        &url,
        Some(&org),
        json!({"deals": [[-10, -6, -4, -5]]}),
    )
    .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(bad.code(), "result_impossible");
    let missing = put(
        &app,
        &format!("/v1/tournaments/{id}/rounds/1/tables/3/result"),
        Some(&org),
        json!({"totals": [1]}),
    )
    .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.code(), "table_not_found");
    let no_round = app
        .get(&format!("/v1/tournaments/{id}/rounds/2"), Some(&org))
        .await;
    assert_eq!(no_round.status, StatusCode::NOT_FOUND);
    assert_eq!(no_round.code(), "round_not_found");
    let unknown = app
        .get("/v1/tournaments/0123456789abcdef0123456789abcdef", None)
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert_eq!(unknown.code(), "tournament_not_found");
}

/// Pairing and entering a result answer from the tournament as the request loaded it plus what
/// it wrote (one load a request): the answer is what a fresh read shows, duplicate matchpoints
/// (which depend on the round's other tables) and a corrected entry included.
#[actix_web::test]
async fn pairing_and_entering_answer_what_a_fresh_read_shows() {
    let app = TestApp::spawn().await;
    let (id, org, _) = tournament(
        &app,
        json!({"name": "Boards", "game": "clubs", "format": "swiss", "rounds": 2,
               "table_size": 4, "duplicate": true, "record": "totals", "players": names(8)}),
    )
    .await;
    let path = format!("/v1/tournaments/{id}/rounds");
    let paired = post(&app, &path, Some(&org), json!({})).await;
    assert_eq!(paired.status, StatusCode::CREATED, "{}", paired.text);
    let read = app
        .get(&format!("/v1/tournaments/{id}/rounds/1"), Some(&org))
        .await;
    assert_eq!(read.status, StatusCode::OK);
    assert_eq!(paired.body, read.body);

    let table = |t: u32| format!("{path}/1/tables/{t}/result");
    let as_read = |t: &common::Answer, table: usize| t.body["rounds"][0]["tables"][table].clone();
    // Four deals of −26 each, all to one seat: the match ends when it reaches −104.
    let deals = |seat: usize| {
        let mut deal = vec![0; 4];
        deal[seat] = -26;
        json!({"deals": vec![deal; 4]})
    };
    let first = put(&app, &table(1), Some(&org), deals(0)).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text);
    assert_eq!(first.body["result"]["totals"], json!([-104, 0, 0, 0]));
    // Alone on the boards so far: nothing to beat.
    assert_eq!(first.body["result"]["matchpoints"], json!([0, 0, 0, 0]));
    assert_eq!(first.body["result"]["max_matchpoints"], json!([0, 0, 0, 0]));
    let t = app.get(&format!("/v1/tournaments/{id}"), Some(&org)).await;
    assert_eq!(first.body, as_read(&t, 0));

    // The second table's matchpoints compare it, seat by seat and board by board, with the
    // first table: 2 a board beaten, 1 a board tied.
    let second = put(&app, &table(2), Some(&org), deals(1)).await;
    assert_eq!(second.status, StatusCode::OK, "{}", second.text);
    assert_eq!(second.body["result"]["matchpoints"], json!([8, 0, 4, 4]));
    assert_eq!(
        second.body["result"]["max_matchpoints"],
        json!([8, 8, 8, 8])
    );
    let t = app.get(&format!("/v1/tournaments/{id}"), Some(&org)).await;
    assert_eq!(second.body, as_read(&t, 1));

    // A correction is the entry's next version: the latest counts, in the answer as in a read.
    let corrected = put(&app, &table(1), Some(&org), deals(2)).await;
    assert_eq!(corrected.status, StatusCode::OK, "{}", corrected.text);
    assert_eq!(corrected.body["result"]["matchpoints"], json!([4, 8, 0, 4]));
    let t = app.get(&format!("/v1/tournaments/{id}"), Some(&org)).await;
    assert_eq!(corrected.body, as_read(&t, 0));
    assert_eq!(t.body["rounds"][0]["complete"], true);

    let paired = post(&app, &path, Some(&org), json!({})).await;
    assert_eq!(paired.status, StatusCode::CREATED, "{}", paired.text);
    assert_eq!(paired.body["round"], 2);
    let read = app
        .get(&format!("/v1/tournaments/{id}/rounds/2"), Some(&org))
        .await;
    assert_eq!(paired.body, read.body);
}

/// Entering a result reads only its table (and, in duplicate play, its round): the answer must be
/// what a full read of the tournament shows for that table, entry after entry, corrections
/// included, on random tournaments; and the standings must add up what the whole tournament
/// shows.
#[actix_web::test]
async fn an_entry_answers_what_the_whole_tournament_shows_on_random_tournaments() {
    let app = TestApp::spawn().await;
    let mut rng = clubroom::rng::SplitMix64::new(0x25_0004);
    // (settings, entrants, rounds)
    let layouts = [
        (
            json!({"game": "dump", "config": {"target": 100}, "table_size": 2}),
            11,
            4,
        ),
        (
            json!({"game": "clubs", "table_size": 4, "duplicate": true}),
            13,
            3,
        ),
        (json!({"game": "clubs", "table_size": 4}), 10, 3),
    ];
    for (settings, n, rounds) in layouts {
        let mut body = settings.clone();
        body["name"] = json!("Random");
        body["format"] = json!("swiss");
        body["rounds"] = json!(rounds);
        body["record"] = json!("totals");
        body["players"] = json!(names(n));
        let (id, org, _) = tournament(&app, body).await;
        let path = format!("/v1/tournaments/{id}/rounds");
        let clubs = settings["game"] == "clubs";
        for round in 1..=rounds {
            let paired = post(&app, &path, Some(&org), json!({})).await;
            assert_eq!(paired.status, StatusCode::CREATED, "{}", paired.text);
            let tables = paired.body["tables"].as_array().unwrap().len();
            // Every table once, in a random order, and a few corrections.
            let mut order: Vec<usize> = (1..=tables).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i + 1));
            }
            let corrections = rng.below(3);
            for _ in 0..corrections {
                order.push(1 + rng.below(tables));
            }
            for t in order {
                let seats = paired.body["tables"][t - 1]["players"]
                    .as_array()
                    .unwrap()
                    .len();
                let entry = if clubs {
                    // Deals of −26 to a random seat until one seat reaches −100.
                    let mut sums = vec![0i64; seats];
                    let mut deals = vec![];
                    while sums.iter().all(|&x| x > -100) {
                        let taker = rng.below(seats);
                        let mut deal = vec![0i64; seats];
                        deal[taker] = -26;
                        sums[taker] -= 26;
                        deals.push(deal);
                    }
                    json!({ "deals": deals })
                } else {
                    let mut totals = vec![rng.below(100) as i64, rng.below(100) as i64];
                    totals[rng.below(2)] = 100;
                    json!({ "totals": totals })
                };
                let a = put(
                    &app,
                    &format!("{path}/{round}/tables/{t}/result"),
                    Some(&org),
                    entry,
                )
                .await;
                assert_eq!(a.status, StatusCode::OK, "{}", a.text);
                let whole = app.get(&format!("/v1/tournaments/{id}"), Some(&org)).await;
                assert_eq!(
                    a.body,
                    whole.body["rounds"][round - 1]["tables"][t - 1],
                    "round {round} table {t}"
                );
            }
            let standings = app
                .get(&format!("/v1/tournaments/{id}/standings"), None)
                .await;
            assert_eq!(standings.status, StatusCode::OK);
            // The standings add up what the whole tournament shows: each player's matchpoints
            // and totals at the tables, and half of the round's most for a bye.
            let whole = app.get(&format!("/v1/tournaments/{id}"), None).await;
            let mut want: std::collections::HashMap<String, (i64, i64, u64)> = Default::default();
            for r in whole.body["rounds"].as_array().unwrap() {
                let mut most = 0;
                for tb in r["tables"].as_array().unwrap() {
                    let res = &tb["result"];
                    for (seat, p) in tb["players"].as_array().unwrap().iter().enumerate() {
                        let e = want
                            .entry(p["player_id"].as_str().unwrap().into())
                            .or_default();
                        e.0 += res["matchpoints"][seat].as_i64().unwrap();
                        e.1 += res["totals"][seat].as_i64().unwrap();
                        e.2 += 1;
                        most = most.max(res["max_matchpoints"][seat].as_i64().unwrap());
                    }
                }
                for p in r["byes"].as_array().unwrap() {
                    let e = want
                        .entry(p["player_id"].as_str().unwrap().into())
                        .or_default();
                    e.0 += most / 2;
                }
            }
            for row in standings.body["rows"].as_array().unwrap() {
                let got = (
                    row["matchpoints"].as_i64().unwrap(),
                    row["total"].as_i64().unwrap(),
                    row["played"].as_u64().unwrap(),
                );
                let id = row["player_id"].as_str().unwrap();
                assert_eq!(got, want.get(id).copied().unwrap_or_default(), "{id}");
            }
        }
    }
}

/// A national open's entrant list (4,096 names of 60 characters: about 330 KB) is taken by
/// `POST /v1/tournaments` (its limit is 1 MiB, not the 64 KiB of other bodies); past 1 MiB the
/// answer is 413 `payload_too_large`, and a body that is not JSON 415, both problem+json.
#[actix_web::test]
async fn a_national_open_entrant_list_fits_and_a_larger_body_is_refused() {
    let app = TestApp::spawn().await;
    let players: Vec<Value> = (0..4096)
        .map(|i| json!({ "name": format!("Entrant {i:04} {}", "x".repeat(46)) }))
        .collect();
    let body = json!({"name": "National open", "game": "dump", "format": "swiss", "rounds": 9,
        "table_size": 2, "players": players});
    let bytes = serde_json::to_vec(&body).unwrap();
    assert!(
        bytes.len() > 64 * 1024 && bytes.len() < 1024 * 1024,
        "{}",
        bytes.len()
    );
    let a = app
        .post_raw("/v1/tournaments", None, "application/json", bytes)
        .await;
    assert_eq!(a.status.as_u16(), 201, "{}", a.body);
    assert_eq!(
        a.body["tournament"]["players"].as_array().unwrap().len(),
        4096
    );
    assert_eq!(
        a.body["tournament"]["players"][4095]["name"],
        format!("Entrant 4095 {}", "x".repeat(46))
    );

    let huge = json!({"name": "Too big", "game": "dump", "format": "swiss", "rounds": 3,
        "table_size": 2, "players": [{"name": "A"}, {"name": "B"}], "pad": "y".repeat(1024 * 1024)});
    let a = app
        .post_raw(
            "/v1/tournaments",
            None,
            "application/json",
            serde_json::to_vec(&huge).unwrap(),
        )
        .await;
    assert_eq!(
        (a.status.as_u16(), a.code()),
        (413, "payload_too_large"),
        "{}",
        a.body
    );
    assert_eq!(
        a.body["detail"],
        "the request body is larger than 1048576 bytes"
    );
    assert_eq!(a.content_type, "application/problem+json");

    let a = app
        .post_raw("/v1/tournaments", None, "text/plain", b"{}".to_vec())
        .await;
    assert_eq!(
        (a.status.as_u16(), a.code()),
        (415, "unsupported_media_type"),
        "{}",
        a.body
    );
    let a = app
        .post_raw(
            "/v1/tournaments",
            None,
            "application/json",
            b"{not json".to_vec(),
        )
        .await;
    assert_eq!(
        (a.status.as_u16(), a.code()),
        (400, "invalid_body"),
        "{}",
        a.body
    );
}

/// On PostgreSQL, an entry that the database rolls back as a deadlock's victim is run again
/// (`Store::insert_result`), not answered as a failure. The deadlock is made on demand: another
/// session holds the tournament's row, the entry takes the game's club lock and waits for the
/// row, then the session asks for the club lock. The entry's backend, waiting longer, finds
/// the cycle first (this session's `deadlock_timeout` is 30 s) and is the victim; the session
/// then commits and the entry, run again, goes in: recorded once, rated once.
#[actix_web::test]
async fn an_entry_rolled_back_as_a_deadlock_victim_is_run_again() {
    use sqlx::Connection;
    let app = TestApp::spawn().await;
    if !app.database_url.starts_with("postgres") {
        eprintln!("NOTE: skipped: the deadlock is PostgreSQL's (set TEST_DATABASE_URL)");
        return;
    }
    let (id, org, _) = tournament(
        &app,
        json!({"name": "Deadlock", "game": "dump", "config": {"target": 100},
               "format": "round_robin", "table_size": 2, "record": "totals",
               "players": names(2)}),
    )
    .await;
    let r = post(
        &app,
        &format!("/v1/tournaments/{id}/rounds"),
        Some(&org),
        json!({}),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let mut other = sqlx::PgConnection::connect(&app.database_url)
        .await
        .unwrap();
    sqlx::query("SET deadlock_timeout = '30s'")
        .execute(&mut other)
        .await
        .unwrap();
    sqlx::query("BEGIN").execute(&mut other).await.unwrap();
    sqlx::query("SELECT 1 FROM tournaments WHERE id = $1 FOR UPDATE")
        .bind(&id)
        .execute(&mut other)
        .await
        .unwrap();
    let entry = {
        let (base, org, id) = (app.base.clone(), org.clone(), id.clone());
        tokio::spawn(async move {
            let app = TestApp::at(&base, "");
            put(
                &app,
                &format!("/v1/tournaments/{id}/rounds/1/tables/1/result"),
                Some(&org),
                json!({"totals": [100, 40]}),
            )
            .await
        })
    };
    // The entry holds the club lock and waits for the row.
    let mut waiting = false;
    for _ in 0..200 {
        let (n,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM pg_locks WHERE NOT granted AND locktype = 'transactionid' \
             AND pid <> pg_backend_pid()",
        )
        .fetch_one(&mut other)
        .await
        .unwrap();
        if n > 0 {
            waiting = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    if !waiting {
        if entry.is_finished() {
            let a = entry.await.unwrap();
            panic!(
                "the entry was answered without waiting: {} {}",
                a.status, a.text
            );
        }
        let rows: Vec<(Option<String>, Option<String>, Option<String>)> = sqlx::query_as(
            "SELECT wait_event_type, state, query FROM pg_stat_activity WHERE datname = current_database()",
        )
        .fetch_all(&mut other)
        .await
        .unwrap();
        panic!("the entry never waited for the tournament's row: {rows:?}");
    }
    // The cycle: this session now waits for the club lock the entry holds. The entry is the
    // victim; this session gets the lock (an error here would mean it was the victim instead).
    sqlx::query(
        "SELECT 1 AS one FROM (SELECT pg_advisory_xact_lock(hashtext('clubroom-club:dump'))) AS l",
    )
    .execute(&mut other)
    .await
    .expect("the entry, not this session, is the deadlock's victim");
    sqlx::query("COMMIT").execute(&mut other).await.unwrap();
    let answer = entry.await.unwrap();
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    assert_eq!(answer.body["result"]["totals"], json!([100, 40]));
    // Recorded once: version 1, one club result, both players rated once.
    let (versions,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM tournament_results WHERE tournament_id = $1")
            .bind(&id)
            .fetch_one(&mut other)
            .await
            .unwrap();
    assert_eq!(versions, 1);
    let board = app.get("/v1/games/dump/leaderboard", None).await;
    assert_eq!(board.status, StatusCode::OK, "{}", board.text);
    let rows = board.body["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{}", board.text);
    assert_eq!(rows[0]["rating"], json!(1016.0));
    assert_eq!(rows[0]["rated_results"], json!(1));
    assert_eq!(rows[1]["rated_results"], json!(1));
    assert_eq!(rows[1]["rating"], json!(984.0));
}

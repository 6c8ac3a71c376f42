//! Tournaments that survive a club night (issue 24, part 3), over HTTP: a late entry, a
//! withdrawal, a correction of an earlier round after later ones are paired, archiving and
//! deleting with the operator's consent, and table assignments printed again. The standings are
//! checked exactly after each step.

mod common;

use common::{TestApp, OPERATOR};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

async fn post(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> common::Answer {
    app.request(Method::POST, path, token, &[], Some(body))
        .await
}

async fn post_empty(app: &TestApp, path: &str, token: Option<&str>) -> common::Answer {
    app.request(Method::POST, path, token, &[], None).await
}

async fn with_operator(
    app: &TestApp,
    method: Method,
    path: &str,
    token: Option<&str>,
    operator: Option<&str>,
) -> common::Answer {
    let headers: Vec<(&str, &str)> = operator
        .map(|o| vec![("x-operator-token", o)])
        .unwrap_or_default();
    app.request(method, path, token, &headers, None).await
}

async fn put(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> common::Answer {
    app.request(Method::PUT, path, token, &[], Some(body)).await
}

/// A 200 answer's body.
async fn ok(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    let a = app.get(path, token).await;
    assert_eq!(a.status, StatusCode::OK, "{path}: {}", a.text);
    a.body
}

/// A Swiss Dump tournament of `names` at tables of two, results by the quick log: (id,
/// organiser token, player ids by name).
async fn swiss(app: &TestApp, names: &[&str], rounds: u32) -> (String, String, Vec<String>) {
    let players: Vec<Value> = names.iter().map(|n| json!({ "name": n })).collect();
    let a = post(
        app,
        "/v1/tournaments",
        None,
        json!({"name": "Club night", "game": "dump", "format": "swiss", "rounds": rounds,
               "table_size": 2, "record": "totals", "players": players}),
    )
    .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let t = &a.body["tournament"];
    let ids = t["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["player_id"].as_str().unwrap().to_string())
        .collect();
    (
        t["id"].as_str().unwrap().to_string(),
        a.body["organiser_token"].as_str().unwrap().to_string(),
        ids,
    )
}

/// Pairs the next round; its tables as player names by seat, and its byes.
async fn pair(app: &TestApp, id: &str, org: &str) -> (Vec<Vec<String>>, Vec<String>) {
    let a = post_empty(app, &format!("/v1/tournaments/{id}/rounds"), Some(org)).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let r = &a.body["round"];
    let tables = r["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            t["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["name"].as_str().unwrap().to_string())
                .collect()
        })
        .collect();
    let byes = r["byes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    (tables, byes)
}

/// Enters table `table` of round `round`: `totals` by seat.
async fn enter(app: &TestApp, id: &str, org: &str, round: u32, table: u32, totals: [i64; 2]) {
    let a = put(
        app,
        &format!("/v1/tournaments/{id}/rounds/{round}/tables/{table}/result"),
        Some(org),
        json!({ "totals": totals }),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
}

/// The standings, a line per row: `rank name played byes wins total matchpoints/max
/// opponents_matchpoints` and ` withdrawn` when withdrawn.
async fn standings(app: &TestApp, id: &str) -> Vec<String> {
    let s = ok(app, &format!("/v1/tournaments/{id}/standings"), None).await;
    s["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{} {} {} {} {} {} {}/{} {}{}",
                r["rank"],
                r["name"].as_str().unwrap(),
                r["played"],
                r["byes"],
                r["wins"],
                r["total"],
                r["matchpoints"],
                r["max_matchpoints"],
                r["opponents_matchpoints"],
                if r["withdrawn"] == json!(true) {
                    " withdrawn"
                } else {
                    ""
                }
            )
        })
        .collect()
}

/// Each standings row's (player id, rating).
async fn ratings(app: &TestApp, id: &str) -> Vec<(String, f64)> {
    let s = ok(app, &format!("/v1/tournaments/{id}/standings"), None).await;
    s["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["player_id"].as_str().unwrap().to_string(),
                r["rating"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// A player's club rating in Dump (None: unrated).
async fn club_rating(app: &TestApp, player: &str) -> Option<f64> {
    let s = ok(app, &format!("/v1/players/{player}/stats"), None).await;
    s["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["game"] == "dump")
        .and_then(|g| g["rating"].as_f64())
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[tokio::test]
async fn a_swiss_club_night_takes_a_late_entry_a_withdrawal_and_a_correction_of_round_one() {
    let app = TestApp::spawn().await;
    let (id, org, ids) = swiss(&app, &["Ada", "Ben", "Cy", "Di", "Ed", "Flo", "Gus"], 3).await;

    // Round 1: three tables, Gus (last in entry order) sits out. Seat 0 wins each table.
    let (r1, byes) = pair(&app, &id, &org).await;
    assert_eq!(
        r1,
        vec![names(&["Ada", "Ben"]), names(&["Cy", "Di"]), names(&["Ed", "Flo"])]
    );
    assert_eq!(byes, names(&["Gus"]));
    let first_print = ok(
        &app,
        &format!("/v1/tournaments/{id}/rounds/1/assignments"),
        Some(&org),
    )
    .await;
    enter(&app, &id, &org, 1, 1, [100, 10]).await;
    enter(&app, &id, &org, 1, 2, [100, 20]).await;
    enter(&app, &id, &org, 1, 3, [100, 30]).await;
    assert_eq!(
        standings(&app, &id).await,
        [
            "1 Ada 1 0 1 100 2/2 0",
            "2 Cy 1 0 1 100 2/2 0",
            "3 Ed 1 0 1 100 2/2 0",
            "4 Gus 0 1 0 0 1/2 0",
            "5 Flo 1 0 0 30 0/2 2",
            "6 Di 1 0 0 20 0/2 2",
            "7 Ben 1 0 0 10 0/2 2",
        ]
    );

    // A late entry after round 1: Hal, missed round scoring zero (the default).
    let late = post(
        &app,
        &format!("/v1/tournaments/{id}/entrants"),
        Some(&org),
        json!({"name": "Hal"}),
    )
    .await;
    assert_eq!(late.status, StatusCode::CREATED, "{}", late.text);
    assert_eq!(late.body["name"], "Hal");
    assert_eq!(late.body["withdrawn"], false);
    assert_eq!(late.body["entered_for_round"], 2);
    assert_eq!(late.body["next_round"], 2);
    let hal = late.body["player_id"].as_str().unwrap().to_string();
    // A registered player, under the name registered.
    let registered = ok(&app, &format!("/v1/players/{hal}"), None).await;
    assert_eq!(registered["name"], "Hal");
    assert_eq!(
        standings(&app, &id).await,
        [
            "1 Ada 1 0 1 100 2/2 0",
            "2 Cy 1 0 1 100 2/2 0",
            "3 Ed 1 0 1 100 2/2 0",
            "4 Gus 0 1 0 0 1/2 0",
            "5 Flo 1 0 0 30 0/2 2",
            "6 Di 1 0 0 20 0/2 2",
            "7 Ben 1 0 0 10 0/2 2",
            "8 Hal 0 0 0 0 0/0 0",
        ]
    );
    // The same name again (in another case), or the same player: 409.
    for body in [json!({"name": "hal"}), json!({"name": "Hal", "player_id": hal})] {
        let again = post(&app, &format!("/v1/tournaments/{id}/entrants"), Some(&org), body).await;
        assert_eq!(
            (again.status, again.code()),
            (StatusCode::CONFLICT, "already_entered"),
            "{}",
            again.text
        );
    }

    // Round 2: eight players, four tables, no bye; Hal is paired.
    let (r2, byes) = pair(&app, &id, &org).await;
    assert_eq!(byes, Vec::<String>::new());
    assert_eq!(r2.len(), 4);
    assert!(r2.iter().any(|t| t.contains(&"Hal".to_string())), "{r2:?}");
    let round2_before = ok(&app, &format!("/v1/tournaments/{id}/rounds/2"), Some(&org)).await;

    // A correction of round 1 after round 2 is paired: Ben beat Ada after all.
    let ada_before = club_rating(&app, &ids[0]).await;
    assert_eq!(ada_before, Some(1016.0));
    enter(&app, &id, &org, 1, 1, [40, 100]).await;
    // The pairing made stands.
    let round2_after = ok(&app, &format!("/v1/tournaments/{id}/rounds/2"), Some(&org)).await;
    assert_eq!(round2_after["round"]["tables"], round2_before["round"]["tables"]);
    assert_eq!(
        standings(&app, &id).await,
        [
            "1 Ben 1 0 1 100 2/2 0",
            "2 Cy 1 0 1 100 2/2 0",
            "3 Ed 1 0 1 100 2/2 0",
            "4 Gus 0 1 0 0 1/2 0",
            "5 Ada 1 0 0 40 0/2 2",
            "6 Flo 1 0 0 30 0/2 2",
            "7 Di 1 0 0 20 0/2 2",
            "8 Hal 0 0 0 0 0/0 0",
        ]
    );
    // The club's ratings were replayed: Ada lost her first rated game.
    assert_eq!(club_rating(&app, &ids[0]).await, Some(984.0));
    assert_eq!(club_rating(&app, &ids[1]).await, Some(1016.0));
    // The correction is logged: who, when, the old and the new figures.
    let log = ok(&app, &format!("/v1/tournaments/{id}/log"), None).await;
    let changes = log["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 2, "{log}");
    assert_eq!(changes[0]["kind"], "late_entry");
    assert_eq!(changes[0]["player_id"], json!(hal));
    assert_eq!(changes[0]["round"], 2);
    assert_eq!(changes[0]["missed_rounds"], "zero");
    assert_eq!(changes[1]["seq"], 2);
    assert_eq!(changes[1]["kind"], "correction");
    assert_eq!(changes[1]["by"], "organiser");
    assert_eq!(changes[1]["round"], 1);
    assert_eq!(changes[1]["table"], 1);
    assert_eq!(changes[1]["old"], json!({"totals": [100, 10], "deals": []}));
    assert_eq!(changes[1]["new"], json!({"totals": [40, 100], "deals": []}));
    assert!(changes[1]["at"].as_str().unwrap().ends_with('Z'));

    // Round 2's results: seat 0 wins at every table.
    for (t, loser) in [(1, 50), (2, 60), (3, 70), (4, 80)] {
        enter(&app, &id, &org, 2, t, [100, loser]).await;
    }
    let after2 = standings(&app, &id).await;
    assert_eq!(after2.len(), 8);

    // A withdrawal after round 2: the first of round 2's table 4 (a winner) leaves.
    let leaver_name = r2[3][0].clone();
    let standing = ok(&app, &format!("/v1/tournaments/{id}"), None).await;
    let leaver = standing["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == json!(leaver_name))
        .unwrap()["player_id"]
        .as_str()
        .unwrap()
        .to_string();
    let w = post_empty(
        &app,
        &format!("/v1/tournaments/{id}/entrants/{leaver}/withdraw"),
        Some(&org),
    )
    .await;
    assert_eq!(w.status, StatusCode::OK, "{}", w.text);
    assert_eq!(w.body["withdrawn"], true);
    assert_eq!(w.body["next_round"], 3);
    let again = post_empty(
        &app,
        &format!("/v1/tournaments/{id}/entrants/{leaver}/withdraw"),
        Some(&org),
    )
    .await;
    assert_eq!(
        (again.status, again.code()),
        (StatusCode::CONFLICT, "entrant_withdrawn")
    );
    // Results kept, shown as withdrawn.
    let after_w = standings(&app, &id).await;
    assert_eq!(
        after_w
            .iter()
            .map(|l| l.trim_end_matches(" withdrawn"))
            .collect::<Vec<_>>(),
        after2.iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert_eq!(
        after_w
            .iter()
            .filter(|l| l.ends_with(" withdrawn"))
            .map(|l| l.split(' ').nth(1).unwrap())
            .collect::<Vec<_>>(),
        [leaver_name.as_str()]
    );
    let view = ok(&app, &format!("/v1/tournaments/{id}"), None).await;
    assert_eq!(view["withdrawn"], json!([leaver]));
    let csv = app
        .get(&format!("/v1/tournaments/{id}/export/standings.csv"), None)
        .await;
    let withdrawn_rows: Vec<&str> = csv
        .text
        .lines()
        .filter(|l| l.ends_with(",yes"))
        .collect();
    assert_eq!(withdrawn_rows.len(), 1, "{}", csv.text);
    assert!(withdrawn_rows[0].contains(&leaver), "{}", csv.text);
    assert!(csv.text.lines().next().unwrap().ends_with(",withdrawn"));

    // Round 3: seven left, three tables and a bye, the leaver nowhere.
    let (r3, byes) = pair(&app, &id, &org).await;
    assert_eq!(r3.len(), 3);
    assert_eq!(byes.len(), 1);
    assert!(
        !r3.iter().flatten().chain(&byes).any(|n| *n == leaver_name),
        "{r3:?} {byes:?}"
    );
    // The standings' ratings are the club's (Elo, the same parameters, the same order).
    for t in 1..=3 {
        enter(&app, &id, &org, 3, t, [100, 90]).await;
    }
    for (player, rating) in ratings(&app, &id).await {
        let club = club_rating(&app, &player).await;
        let played = ok(&app, &format!("/v1/players/{player}/stats"), None).await;
        if played["games"].as_array().unwrap().is_empty() {
            assert_eq!(rating, 1000.0);
        } else {
            let club = club.unwrap();
            assert!((club - rating).abs() < 0.001, "{player}: {club} v {rating}");
        }
    }

    // Round 1's assignments printed again, after the late entry, the correction and the
    // withdrawal: identical to the first print.
    let reprint = ok(
        &app,
        &format!("/v1/tournaments/{id}/rounds/1/assignments"),
        Some(&org),
    )
    .await;
    assert_eq!(reprint, first_print);
    assert_eq!(first_print["round"], 1);
    assert_eq!(
        first_print["tables"][0]["seats"],
        json!([
            {"seat": 0, "seat_name": "1", "player_id": ids[0], "name": "Ada"},
            {"seat": 1, "seat_name": "2", "player_id": ids[1], "name": "Ben"},
        ])
    );
    assert_eq!(
        first_print["byes"],
        json!([{"player_id": ids[6], "name": "Gus"}])
    );
    let csv = app
        .get(
            &format!("/v1/tournaments/{id}/rounds/1/assignments.csv"),
            Some(&org),
        )
        .await;
    assert_eq!(csv.status, StatusCode::OK);
    assert!(csv.content_type.starts_with("text/csv"));
    assert_eq!(
        csv.text,
        format!(
            "round,table,seat,player_id,name\n\
             1,1,1,{a},Ada\n1,1,2,{b},Ben\n1,2,1,{c},Cy\n1,2,2,{d},Di\n\
             1,3,1,{e},Ed\n1,3,2,{f},Flo\n1,bye,,{g},Gus\n",
            a = ids[0],
            b = ids[1],
            c = ids[2],
            d = ids[3],
            e = ids[4],
            f = ids[5],
            g = ids[6],
        )
    );

    // Finished: no more late entries, and the log holds every change in order.
    let too_late = post(
        &app,
        &format!("/v1/tournaments/{id}/entrants"),
        Some(&org),
        json!({"name": "Ivy"}),
    )
    .await;
    assert_eq!(
        (too_late.status, too_late.code()),
        (StatusCode::CONFLICT, "tournament_finished")
    );
    let log = ok(&app, &format!("/v1/tournaments/{id}/log"), None).await;
    let kinds: Vec<&str> = log["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["late_entry", "correction", "withdrawal"]);
    assert_eq!(log["changes"][2]["player_id"], json!(leaver));
    assert_eq!(log["changes"][2]["round"], 2);
}

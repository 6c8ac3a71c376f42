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

/// `POST /v1/tournaments/{id}/entrants/{player}/{action}` (`withdraw` or `reinstate`).
async fn entrant(app: &TestApp, id: &str, org: &str, player: &str, action: &str) -> common::Answer {
    let path = format!("/v1/tournaments/{id}/entrants/{player}/{action}");
    post_empty(app, &path, Some(org)).await
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
    let r = &a.body;
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

#[actix_web::test]
async fn a_swiss_club_night_takes_a_late_entry_a_withdrawal_and_a_correction_of_round_one() {
    let app = TestApp::spawn().await;
    let (id, org, ids) = swiss(&app, &["Ada", "Ben", "Cy", "Di", "Ed", "Flo", "Gus"], 3).await;

    // Round 1: three tables, 1st v 2nd, 3rd v 4th, 5th v 6th (the better placed sits second
    // in odd rounds), Gus (last in entry order) sits out. Seat 1 wins each table.
    let (r1, byes) = pair(&app, &id, &org).await;
    assert_eq!(
        r1,
        vec![
            names(&["Ben", "Ada"]),
            names(&["Di", "Cy"]),
            names(&["Flo", "Ed"])
        ]
    );
    assert_eq!(byes, names(&["Gus"]));
    let first_print = ok(
        &app,
        &format!("/v1/tournaments/{id}/rounds/1/assignments"),
        Some(&org),
    )
    .await;
    enter(&app, &id, &org, 1, 1, [10, 100]).await;
    enter(&app, &id, &org, 1, 2, [20, 110]).await;
    enter(&app, &id, &org, 1, 3, [30, 120]).await;
    assert_eq!(
        standings(&app, &id).await,
        [
            "1 Ed 1 0 1 120 2/2 0",
            "2 Cy 1 0 1 110 2/2 0",
            "3 Ada 1 0 1 100 2/2 0",
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
            "1 Ed 1 0 1 120 2/2 0",
            "2 Cy 1 0 1 110 2/2 0",
            "3 Ada 1 0 1 100 2/2 0",
            "4 Gus 0 1 0 0 1/2 0",
            "5 Flo 1 0 0 30 0/2 2",
            "6 Di 1 0 0 20 0/2 2",
            "7 Ben 1 0 0 10 0/2 2",
            "8 Hal 0 0 0 0 0/0 0",
        ]
    );
    // The same name again (in another case), or the same player: 409.
    for body in [
        json!({"name": "hal"}),
        json!({"name": "Hal", "player_id": hal}),
    ] {
        let again = post(
            &app,
            &format!("/v1/tournaments/{id}/entrants"),
            Some(&org),
            body,
        )
        .await;
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
    enter(&app, &id, &org, 1, 1, [100, 40]).await;
    // The pairing made stands.
    let round2_after = ok(&app, &format!("/v1/tournaments/{id}/rounds/2"), Some(&org)).await;
    assert_eq!(round2_after["tables"], round2_before["tables"]);
    assert_eq!(
        standings(&app, &id).await,
        [
            "1 Ed 1 0 1 120 2/2 0",
            "2 Cy 1 0 1 110 2/2 0",
            "3 Ben 1 0 1 100 2/2 0",
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
    assert_eq!(changes[1]["old"], json!({"totals": [10, 100], "deals": []}));
    assert_eq!(changes[1]["new"], json!({"totals": [100, 40], "deals": []}));
    assert!(changes[1]["at"].as_str().unwrap().ends_with('Z'));

    // Round 2's results: seat 0 wins at every table.
    for (t, loser) in [(1, 50), (2, 60), (3, 70), (4, 80)] {
        enter(&app, &id, &org, 2, t, [100, loser]).await;
    }
    // Round 2 was paired on the standings before the correction: Ed v Cy, Ada (2) floats
    // down to Gus (1), Flo v Di, Hal v Ben (Ben sat first in round 1).
    assert_eq!(
        r2,
        vec![
            names(&["Ed", "Cy"]),
            names(&["Ada", "Gus"]),
            names(&["Flo", "Di"]),
            names(&["Hal", "Ben"])
        ]
    );
    let after2 = standings(&app, &id).await;
    assert_eq!(
        after2,
        [
            "1 Ed 2 0 2 220 4/4 4",
            "2 Ben 2 0 1 180 2/4 4",
            "3 Cy 2 0 1 160 2/4 4",
            "4 Ada 2 0 1 140 2/4 3",
            "5 Flo 2 0 1 130 2/4 4",
            "6 Hal 1 0 1 100 2/2 2",
            "7 Gus 1 1 0 60 1/4 2",
            "8 Di 2 0 0 90 0/4 4",
        ]
    );

    // A withdrawal after round 2: Hal (round 2's table 4, seat 0, a winner) leaves.
    let leaver_name = r2[3][0].clone();
    assert_eq!(leaver_name, "Hal");
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
    let w = entrant(&app, &id, &org, &leaver, "withdraw").await;
    assert_eq!(w.status, StatusCode::OK, "{}", w.text);
    assert_eq!(w.body["withdrawn"], true);
    assert_eq!(w.body["next_round"], 3);
    let again = entrant(&app, &id, &org, &leaver, "withdraw").await;
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
    let withdrawn_rows: Vec<&str> = csv.text.lines().filter(|l| l.ends_with(",yes")).collect();
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
    assert_eq!(
        r3,
        vec![
            names(&["Ben", "Ed"]),
            names(&["Cy", "Ada"]),
            names(&["Gus", "Flo"])
        ]
    );
    assert_eq!(byes, names(&["Di"]));
    assert_eq!(
        standings(&app, &id).await,
        [
            "1 Ed 3 0 2 310 4/6 10",
            "2 Ben 3 0 2 280 4/6 8",
            "3 Cy 3 0 2 260 4/6 7",
            "4 Gus 2 1 1 160 3/6 4",
            "5 Ada 3 0 1 230 2/6 11",
            "6 Flo 3 0 1 220 2/6 8",
            "7 Hal 1 0 1 100 2/2 4 withdrawn",
            "8 Di 2 1 0 90 1/6 6",
        ]
    );
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
            {"seat": 0, "seat_name": "1", "player_id": ids[1], "name": "Ben"},
            {"seat": 1, "seat_name": "2", "player_id": ids[0], "name": "Ada"},
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
             1,1,1,{b},Ben\n1,1,2,{a},Ada\n1,2,1,{d},Di\n1,2,2,{c},Cy\n\
             1,3,1,{f},Flo\n1,3,2,{e},Ed\n1,bye,,{g},Gus\n",
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

#[actix_web::test]
async fn late_entry_and_withdrawal_refuse_what_a_club_night_cannot_do() {
    let app = TestApp::spawn().await;
    let (id, org, ids) = swiss(&app, &["Ada", "Ben", "Cy", "Di"], 2).await;
    let entrants = format!("/v1/tournaments/{id}/entrants");

    // Only the organiser.
    let none = post(&app, &entrants, None, json!({"name": "Ed"})).await;
    assert_eq!(
        (none.status, none.code()),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );
    let other = post(
        &app,
        &entrants,
        Some("not-the-organiser"),
        json!({"name": "Ed"}),
    )
    .await;
    assert_eq!(
        (other.status, other.code()),
        (StatusCode::FORBIDDEN, "organiser_only")
    );
    // A bad body, a blank name, an unknown player, a registered player under another name.
    let bad = post(
        &app,
        &entrants,
        Some(&org),
        json!({"name": "Ed", "seat": 1}),
    )
    .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST, "{}", bad.text);
    let blank = post(&app, &entrants, Some(&org), json!({"name": "  "})).await;
    assert_eq!(blank.status, StatusCode::BAD_REQUEST, "{}", blank.text);
    let unknown = post(
        &app,
        &entrants,
        Some(&org),
        json!({"name": "Ed", "player_id": "0123456789abcdef0123456789abcdef"}),
    )
    .await;
    assert_eq!(
        (unknown.status, unknown.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "unknown_player")
    );
    let ed = post(&app, "/v1/players", None, json!({"name": "Ed"})).await;
    let ed = ed.body["id"].as_str().unwrap().to_string();
    let mismatch = post(
        &app,
        &entrants,
        Some(&org),
        json!({"name": "Eddie", "player_id": ed}),
    )
    .await;
    assert_eq!(
        (mismatch.status, mismatch.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "player_name_mismatch")
    );
    // An entrant already, by player or by name.
    let ada = post(&app, &entrants, Some(&org), json!({"name": "ADA"})).await;
    assert_eq!(
        (ada.status, ada.code()),
        (StatusCode::CONFLICT, "already_entered")
    );
    // Nothing of these was recorded.
    let log = ok(&app, &format!("/v1/tournaments/{id}/log"), None).await;
    assert_eq!(log["changes"], json!([]));
    assert_eq!(
        ok(&app, &format!("/v1/tournaments/{id}"), None).await["players"]
            .as_array()
            .unwrap()
            .len(),
        4
    );

    // A registered player enters before round 1, with missed rounds as byes (none missed).
    let e = post(
        &app,
        &entrants,
        Some(&org),
        json!({"name": "Ed", "player_id": ed, "missed_rounds": "bye"}),
    )
    .await;
    assert_eq!(e.status, StatusCode::CREATED, "{}", e.text);
    assert_eq!(e.body["entered_for_round"], 1);

    // Round 1: five players, two tables and a bye.
    let (tables, byes) = pair(&app, &id, &org).await;
    assert_eq!(tables.len(), 2);
    assert_eq!(byes, names(&["Ed"]));
    // Withdrawing a player whose table has no result yet: refused.
    let t1 = ok(&app, &format!("/v1/tournaments/{id}"), None).await["rounds"][0]["tables"][0]
        ["players"][0]["player_id"]
        .as_str()
        .unwrap()
        .to_string();
    let w = entrant(&app, &id, &org, &t1, "withdraw").await;
    assert_eq!(
        (w.status, w.code()),
        (StatusCode::CONFLICT, "table_unfinished"),
        "{}",
        w.text
    );
    assert_eq!(
        w.body["detail"],
        format!("{} sits at table 1 of round 1, which has no result yet: enter the table's result (or abandon its match with it) first, then withdraw them", tables[0][0])
    );
    // Ed (the bye) may leave; an unknown entrant may not.
    let nobody = post_empty(
        &app,
        &format!("/v1/tournaments/{id}/entrants/0123456789abcdef0123456789abcdef/withdraw"),
        Some(&org),
    )
    .await;
    assert_eq!(
        (nobody.status, nobody.code()),
        (StatusCode::NOT_FOUND, "entrant_not_found")
    );
    let w = entrant(&app, &id, &org, &ed, "withdraw").await;
    assert_eq!(w.status, StatusCode::OK, "{}", w.text);
    // Four left: a late entrant joins for round 2, scoring round 1 as a bye.
    let fay = post(
        &app,
        &entrants,
        Some(&org),
        json!({"name": "Fay", "missed_rounds": "bye"}),
    )
    .await;
    assert_eq!(fay.status, StatusCode::CREATED, "{}", fay.text);
    assert_eq!(fay.body["entered_for_round"], 2);
    enter(&app, &id, &org, 1, 1, [100, 0]).await;
    enter(&app, &id, &org, 1, 2, [100, 0]).await;
    let s = standings(&app, &id).await;
    // Ed kept his bye; Fay's missed round counts as one.
    assert!(
        s.contains(&"3 Ed 0 1 0 0 1/2 0 withdrawn".to_string()),
        "{s:?}"
    );
    assert!(s.contains(&"3 Fay 0 1 0 0 1/2 0".to_string()), "{s:?}");
    // Withdrawing four more would leave one: too few for a table.
    for p in &ids[..3] {
        let w = entrant(&app, &id, &org, p, "withdraw").await;
        assert_eq!(w.status, StatusCode::OK, "{}", w.text);
    }
    let w = entrant(&app, &id, &org, &ids[3], "withdraw").await;
    assert_eq!(
        (w.status, w.code()),
        (StatusCode::CONFLICT, "too_few_entrants"),
        "{}",
        w.text
    );
    assert_eq!(
        w.body["detail"],
        "1 entrants would be left to pair, too few for one dump table"
    );
    // Reinstatement: Ada is paired again in round 2.
    let r = entrant(&app, &id, &org, &ids[0], "reinstate").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["withdrawn"], false);
    let again = entrant(&app, &id, &org, &ids[0], "reinstate").await;
    assert_eq!(
        (again.status, again.code()),
        (StatusCode::CONFLICT, "entrant_not_withdrawn")
    );
    let (tables, byes) = pair(&app, &id, &org).await;
    let mut seated: Vec<String> = tables.into_iter().flatten().chain(byes).collect();
    seated.sort();
    assert_eq!(seated, names(&["Ada", "Di", "Fay"]));
    let view = ok(&app, &format!("/v1/tournaments/{id}"), None).await;
    assert_eq!(view["withdrawn"], json!([ids[1], ids[2], ed]));
    // The list counts the late entrants.
    let listed = ok(&app, "/v1/tournaments", None).await;
    assert_eq!(listed["tournaments"][0]["id"], json!(id));
    assert_eq!(listed["tournaments"][0]["entrants"], 6);
}

#[actix_web::test]
async fn a_round_robin_takes_no_late_entry_nor_withdrawal() {
    let app = TestApp::spawn().await;
    let a = post(
        &app,
        "/v1/tournaments",
        None,
        json!({"name": "RR", "game": "dump", "format": "round_robin", "table_size": 2,
               "record": "totals", "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}]}),
    )
    .await;
    let id = a.body["tournament"]["id"].as_str().unwrap();
    let org = a.body["organiser_token"].as_str().unwrap();
    let p = a.body["tournament"]["players"][0]["player_id"]
        .as_str()
        .unwrap();
    let late = post(
        &app,
        &format!("/v1/tournaments/{id}/entrants"),
        Some(org),
        json!({"name": "E"}),
    )
    .await;
    assert_eq!(
        (late.status, late.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "swiss_only")
    );
    let w = entrant(&app, id, org, p, "withdraw").await;
    assert_eq!(
        (w.status, w.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "swiss_only")
    );
}

#[actix_web::test]
async fn archive_and_delete_need_the_organiser_and_the_operator_and_deleting_leaves_the_club() {
    let app = TestApp::spawn().await;
    let (keep, keep_org, _) = swiss(&app, &["Kim", "Lou"], 1).await;
    let (id, org, ids) = swiss(&app, &["Ada", "Ben"], 1).await;
    pair(&app, &id, &org).await;
    // Ben sits first (the better placed sits second in odd rounds) and wins.
    enter(&app, &id, &org, 1, 1, [100, 10]).await;
    assert_eq!(club_rating(&app, &ids[1]).await, Some(1016.0));
    let archive = format!("/v1/tournaments/{id}/archive");

    // The organiser alone, the operator alone, nobody: refused.
    let alone = with_operator(&app, Method::POST, &archive, Some(&org), None).await;
    assert_eq!(
        (alone.status, alone.code()),
        (StatusCode::FORBIDDEN, "operator_consent_required")
    );
    let wrong = with_operator(
        &app,
        Method::POST,
        &archive,
        Some(&org),
        Some("not-the-operator"),
    )
    .await;
    assert_eq!(
        (wrong.status, wrong.code()),
        (StatusCode::FORBIDDEN, "operator_consent_required")
    );
    let op = with_operator(&app, Method::POST, &archive, Some(OPERATOR), Some(OPERATOR)).await;
    assert_eq!(
        (op.status, op.code()),
        (StatusCode::FORBIDDEN, "organiser_only")
    );
    let nobody = with_operator(&app, Method::POST, &archive, None, Some(OPERATOR)).await;
    assert_eq!(
        (nobody.status, nobody.code()),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );

    // Archived: out of the default list, readable, read-only.
    let a = with_operator(&app, Method::POST, &archive, Some(&org), Some(OPERATOR)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    assert_eq!(a.body["id"], json!(id));
    let at = a.body["archived_at"].as_str().unwrap().to_string();
    let twice = with_operator(&app, Method::POST, &archive, Some(&org), Some(OPERATOR)).await;
    assert_eq!(
        (twice.status, twice.code()),
        (StatusCode::CONFLICT, "tournament_archived")
    );
    let listed = |body: &Value| -> Vec<String> {
        body["tournaments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        listed(&ok(&app, "/v1/tournaments", None).await),
        std::slice::from_ref(&keep)
    );
    let all = ok(&app, "/v1/tournaments?include_archived=true", None).await;
    assert_eq!(listed(&all), [id.clone(), keep.clone()]);
    assert_eq!(all["tournaments"][0]["archived_at"], json!(at));
    let view = ok(&app, &format!("/v1/tournaments/{id}"), None).await;
    assert_eq!(view["archived_at"], json!(at));
    ok(&app, &format!("/v1/tournaments/{id}/standings"), None).await;
    let late = post(
        &app,
        &format!("/v1/tournaments/{id}/entrants"),
        Some(&org),
        json!({"name": "Cy"}),
    )
    .await;
    assert_eq!(
        (late.status, late.code()),
        (StatusCode::CONFLICT, "tournament_archived")
    );
    let fix = put(
        &app,
        &format!("/v1/tournaments/{id}/rounds/1/tables/1/result"),
        Some(&org),
        json!({"totals": [100, 20]}),
    )
    .await;
    assert_eq!(
        (fix.status, fix.code()),
        (StatusCode::CONFLICT, "tournament_archived")
    );
    // Out of the archive and back in: logged, with who asked.
    let un = with_operator(
        &app,
        Method::POST,
        &format!("/v1/tournaments/{id}/unarchive"),
        Some(&org),
        Some(OPERATOR),
    )
    .await;
    assert_eq!(un.status, StatusCode::OK, "{}", un.text);
    assert_eq!(un.body["archived_at"], Value::Null);
    let un2 = with_operator(
        &app,
        Method::POST,
        &format!("/v1/tournaments/{id}/unarchive"),
        Some(&org),
        Some(OPERATOR),
    )
    .await;
    assert_eq!(
        (un2.status, un2.code()),
        (StatusCode::CONFLICT, "tournament_not_archived")
    );
    let log = ok(&app, &format!("/v1/tournaments/{id}/log"), None).await;
    let kinds: Vec<(&str, &str)> = log["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["kind"].as_str().unwrap(), c["by"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("archive", "organiser+operator"),
            ("unarchive", "organiser+operator")
        ]
    );

    // Deleted: gone from reads, lists, exports and the club.
    let path = format!("/v1/tournaments/{id}");
    let alone = with_operator(&app, Method::DELETE, &path, Some(&org), None).await;
    assert_eq!(
        (alone.status, alone.code()),
        (StatusCode::FORBIDDEN, "operator_consent_required")
    );
    assert_eq!(club_rating(&app, &ids[1]).await, Some(1016.0));
    let d = with_operator(&app, Method::DELETE, &path, Some(&org), Some(OPERATOR)).await;
    assert_eq!(d.status, StatusCode::NO_CONTENT, "{}", d.text);
    for p in [
        path.clone(),
        format!("{path}/standings"),
        format!("{path}/log"),
        format!("{path}/export/standings.csv"),
        format!("{path}/export/results.json"),
    ] {
        let a = app.get(&p, Some(&org)).await;
        assert_eq!(
            (a.status, a.code()),
            (StatusCode::NOT_FOUND, "tournament_not_found"),
            "{p}"
        );
    }
    let again = with_operator(&app, Method::DELETE, &path, Some(&org), Some(OPERATOR)).await;
    assert_eq!(
        (again.status, again.code()),
        (StatusCode::NOT_FOUND, "tournament_not_found")
    );
    assert_eq!(
        listed(&ok(&app, "/v1/tournaments?include_archived=true", None).await),
        std::slice::from_ref(&keep)
    );
    let theirs = ok(&app, &format!("/v1/players/{}/tournaments", ids[0]), None).await;
    assert_eq!(theirs["tournaments"], json!([]));
    // The club forgot the result: no Dump statistics, no rating, off the leaderboard.
    for p in &ids {
        let stats = ok(&app, &format!("/v1/players/{p}/stats"), None).await;
        assert_eq!(stats["games"], json!([]), "{stats}");
        assert_eq!(stats["recent"], json!([]), "{stats}");
    }
    let board = ok(&app, "/v1/games/dump/leaderboard", None).await;
    assert_eq!(board["rows"], json!([]), "{board}");
    // The other tournament is untouched.
    ok(&app, &format!("/v1/tournaments/{keep}"), Some(&keep_org)).await;
}

#[actix_web::test]
async fn assignments_are_the_organisers_and_name_no_match() {
    let app = TestApp::spawn().await;
    let a = post(
        &app,
        "/v1/tournaments",
        None,
        json!({"name": "Clubs", "game": "clubs", "format": "swiss", "rounds": 1, "table_size": 4,
               "dealing": "service", "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}, {"name": "E"}]}),
    )
    .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let id = a.body["tournament"]["id"].as_str().unwrap().to_string();
    let org = a.body["organiser_token"].as_str().unwrap().to_string();
    let paired = post_empty(&app, &format!("/v1/tournaments/{id}/rounds"), Some(&org)).await;
    let match_id = paired.body["tokens"][0]["match_id"]
        .as_str()
        .unwrap()
        .to_string();
    let host = paired.body["tokens"][0]["host_token"]
        .as_str()
        .unwrap()
        .to_string();
    let url = format!("/v1/tournaments/{id}/rounds/1/assignments");
    for u in [url.clone(), format!("{url}.csv")] {
        let none = app.get(&u, None).await;
        assert_eq!(
            (none.status, none.code()),
            (StatusCode::UNAUTHORIZED, "unauthorized")
        );
        let table = app.get(&u, Some(&host)).await;
        assert_eq!(
            (table.status, table.code()),
            (StatusCode::FORBIDDEN, "organiser_only")
        );
        let mine = app.get(&u, Some(&org)).await;
        assert_eq!(mine.status, StatusCode::OK);
        assert!(!mine.text.contains(&match_id), "{}", mine.text);
        assert!(!mine.text.contains(&host), "{}", mine.text);
    }
    let a = ok(&app, &url, Some(&org)).await;
    let seats: Vec<&str> = a["tables"][0]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["seat_name"].as_str().unwrap())
        .collect();
    assert_eq!(seats, ["North", "East", "South", "West"]);
    assert_eq!(a["byes"].as_array().unwrap().len(), 1);
    let missing = app
        .get(
            &format!("/v1/tournaments/{id}/rounds/2/assignments"),
            Some(&org),
        )
        .await;
    assert_eq!(
        (missing.status, missing.code()),
        (StatusCode::NOT_FOUND, "round_not_found")
    );
}

#[actix_web::test]
async fn a_correction_of_a_duplicate_round_in_play_shows_in_the_log_to_the_organiser_only() {
    let app = TestApp::spawn().await;
    let a = post(
        &app,
        "/v1/tournaments",
        None,
        json!({"name": "Dup", "game": "dump", "format": "swiss", "rounds": 1, "table_size": 2,
               "record": "totals", "duplicate": true,
               "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}]}),
    )
    .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let id = a.body["tournament"]["id"].as_str().unwrap().to_string();
    let org = a.body["organiser_token"].as_str().unwrap().to_string();
    pair(&app, &id, &org).await;
    let result = format!("/v1/tournaments/{id}/rounds/1/tables/1/result");
    for deals in [
        json!([[40, 0], [0, 20], [70, 0]]),
        json!([[30, 0], [0, 20], [75, 0]]),
    ] {
        let e = put(&app, &result, Some(&org), json!({ "deals": deals })).await;
        assert_eq!(e.status, StatusCode::OK, "{}", e.text);
    }
    // Table 2 still plays the boards: the correction's figures would tell of them.
    let public = app.get(&format!("/v1/tournaments/{id}/log"), None).await;
    assert_eq!(public.status, StatusCode::OK);
    assert_eq!(public.body["changes"], json!([]));
    assert!(!public.text.contains("75"));
    let director = ok(&app, &format!("/v1/tournaments/{id}/log"), Some(&org)).await;
    assert_eq!(director["changes"][0]["kind"], "correction");
    assert_eq!(director["changes"][0]["old"]["totals"], json!([110, 20]));
    assert_eq!(director["changes"][0]["new"]["totals"], json!([105, 20]));
    // Once the round is complete, everyone sees it.
    let e = put(
        &app,
        &format!("/v1/tournaments/{id}/rounds/1/tables/2/result"),
        Some(&org),
        json!({"deals": [[40, 0], [0, 20], [70, 0]]}),
    )
    .await;
    assert_eq!(e.status, StatusCode::OK, "{}", e.text);
    let public = ok(&app, &format!("/v1/tournaments/{id}/log"), None).await;
    assert_eq!(public, director);
}

/// Issue 25, part 4: a table's entry keeps the tournament's change log applied by the log's last
/// `seq` rather than reading it whole each time. Two instances on one database: what one
/// instance changes (a late entry, a correction) the other's next entry sees, its correction is
/// logged after the other's, and a table seating the late entrant is entered there.
#[actix_web::test]
async fn an_entry_sees_the_changes_another_instance_made() {
    let a = TestApp::spawn().await;
    let b = TestApp::on(&a.database_url).await;
    let (id, org, _) = swiss(&a, &["Ada", "Ben", "Cy", "Di", "Ed"], 3).await;
    let (r1, byes) = pair(&a, &id, &org).await;
    assert_eq!(r1, vec![names(&["Ben", "Ada"]), names(&["Di", "Cy"])]);
    assert_eq!(byes, names(&["Ed"]));
    // Instance a enters round 1 (and keeps the empty log).
    enter(&a, &id, &org, 1, 1, [10, 100]).await;
    enter(&a, &id, &org, 1, 2, [20, 110]).await;

    // Instance b: a late entry (seq 1) and a correction of table 1 (seq 2).
    let late = post(
        &b,
        &format!("/v1/tournaments/{id}/entrants"),
        Some(&org),
        json!({"name": "Hal"}),
    )
    .await;
    assert_eq!(late.status, StatusCode::CREATED, "{}", late.text);
    enter(&b, &id, &org, 1, 1, [100, 40]).await;

    // Instance a corrects the same table again: logged third, from b's figures.
    enter(&a, &id, &org, 1, 1, [60, 100]).await;
    let log = ok(&a, &format!("/v1/tournaments/{id}/log"), None).await;
    let changes = log["changes"].as_array().unwrap();
    let kinds: Vec<(i64, &str)> = changes
        .iter()
        .map(|c| (c["seq"].as_i64().unwrap(), c["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [(1, "late_entry"), (2, "correction"), (3, "correction")],
        "{log}"
    );
    assert_eq!(changes[2]["old"], json!({"totals": [100, 40], "deals": []}));
    assert_eq!(changes[2]["new"], json!({"totals": [60, 100], "deals": []}));

    // Round 2, paired by b, seats Hal; a enters Hal's table and names him.
    let (r2, byes) = pair(&b, &id, &org).await;
    assert_eq!(byes, Vec::<String>::new());
    let hal_table = r2
        .iter()
        .position(|t| t.contains(&"Hal".to_string()))
        .expect("Hal is paired") as u32
        + 1;
    let entered = put(
        &a,
        &format!("/v1/tournaments/{id}/rounds/2/tables/{hal_table}/result"),
        Some(&org),
        json!({ "totals": [100, 30] }),
    )
    .await;
    assert_eq!(entered.status, StatusCode::OK, "{}", entered.text);
    let seated: Vec<&str> = entered.body["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(seated, r2[hal_table as usize - 1], "{}", entered.text);
    assert!(seated.contains(&"Hal"));
    assert_eq!(
        entered.body["result"]["totals"],
        json!([100, 30]),
        "{}",
        entered.text
    );
}

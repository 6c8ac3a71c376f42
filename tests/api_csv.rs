//! Hostile names and points through every CSV and result entry over HTTP (issue 20, part 5).
//!
//! A name a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, tab, CR, LF first) comes
//! back from every CSV as text, with a leading `'` (OWASP, "CSV Injection"), while a number
//! column (a negative score) stays a number; the score sheet's columns are named by the players.
//! Entered points beyond ±1,000,000 (`i64::MIN`, whose `abs()` wraps, among them) are 422
//! `points_out_of_range` and record nothing. Runs on SQLite, and on PostgreSQL with
//! `TEST_DATABASE_URL`.

mod common;

use std::collections::HashMap;

use common::{Match, TestApp};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

/// Names that spreadsheets would take for formulas or control characters, and two plain ones.
const HOSTILE: [&str; 8] = [
    "=HYPERLINK(\"http://evil\")",
    "+1",
    "-2+3",
    "@SUM(A1)",
    "\tx",
    "\rx",
    "\nx",
    "Plain, \"quoted\"",
];

/// What a text cell holding `name` must read: OWASP's leading `'` before a formula's first
/// character. Written here on its own, not taken from the code under test.
fn defused(name: &str) -> String {
    match name.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r' | '\n') => format!("'{name}"),
        _ => name.to_string(),
    }
}

/// Parses a CSV answer with the `csv` crate: the header, then the records.
fn parse(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(text.as_bytes());
    let header = r
        .headers()
        .expect("a header")
        .iter()
        .map(String::from)
        .collect();
    let rows = r
        .records()
        .map(|x| x.expect("a CSV record").iter().map(String::from).collect())
        .collect();
    (header, rows)
}

/// The record's cell in column `name`.
fn cell<'a>(header: &[String], row: &'a [String], name: &str) -> &'a str {
    let i = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"));
    &row[i]
}

async fn put(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> common::Answer {
    app.request(Method::PUT, path, token, &[], Some(body)).await
}

/// A CSV export: 200 `text/csv`, parsed.
async fn csv_at(app: &TestApp, path: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let a = app.get(path, None).await;
    assert_eq!(a.status, StatusCode::OK, "{path}: {}", a.text);
    assert!(a.content_type.starts_with("text/csv"), "{}", a.content_type);
    parse(&a.text)
}

/// Creates a match of `game` with these seat names at the table (table dealing).
async fn match_named(app: &TestApp, game: &str, names: &[&str]) -> Match {
    let players: Vec<Value> = names.iter().map(|n| json!({"name": n})).collect();
    let a = app
        .request(
            Method::POST,
            "/v1/matches",
            None,
            &[],
            Some(json!({"game": game, "players": players, "dealing": "table"})),
        )
        .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    Match {
        id: a.body["match"]["id"].as_str().unwrap().to_string(),
        host: a.body["host_token"].as_str().unwrap().to_string(),
        seats: vec![],
        body: a.body,
    }
}

/// A Clubs deal tallied at the table: −4, −16, −3, −3 (−1 a card, +3 a club, −10 for J♣).
fn clubs_tally() -> Value {
    json!({"type": "tally", "taken": [
        {"cards": 16, "clubs": 4, "jack": false},
        {"cards": 12, "clubs": 2, "jack": true},
        {"cards": 12, "clubs": 3, "jack": false},
        {"cards": 12, "clubs": 3, "jack": false},
    ]})
}

/// A Swiss tournament of one round of Clubs at tables of 4, `record` as given, its round 1
/// paired: (tournament id, organiser token, the pairing answer).
async fn clubs_round(app: &TestApp, players: &[&str], record: &str) -> (String, String, Value) {
    let players: Vec<Value> = players.iter().map(|n| json!({"name": n})).collect();
    let created = app
        .request(
            Method::POST,
            "/v1/tournaments",
            None,
            &[],
            Some(
                json!({"name": "=cmd|' /C calc'!A0", "game": "clubs", "format": "swiss",
                "rounds": 1, "table_size": 4, "record": record, "players": players}),
            ),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.body["tournament"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let org = created.body["organiser_token"]
        .as_str()
        .unwrap()
        .to_string();
    let round = app
        .request(
            Method::POST,
            &format!("/v1/tournaments/{id}/rounds"),
            Some(&org),
            &[],
            None,
        )
        .await;
    assert_eq!(round.status, StatusCode::CREATED, "{}", round.text);
    (id, org, round.body)
}

#[actix_web::test]
async fn formula_names_are_text_in_standings_results_and_the_score_sheet_and_numbers_stay_numbers()
{
    let app = TestApp::spawn().await;
    // Results from the tables' matches (so they exist), or entered by hand.
    let (id, org, round) = clubs_round(&app, &HOSTILE, "matches").await;
    let tables = round["tables"].as_array().unwrap().clone();
    assert_eq!(tables.len(), 2);
    let seat_names = |t: usize| -> Vec<String> {
        tables[t]["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };

    // Table 1's match: one deal tallied; its score sheet names its columns by the players.
    let m = Match {
        id: round["tokens"][0]["match_id"].as_str().unwrap().to_string(),
        host: round["tokens"][0]["host_token"]
            .as_str()
            .unwrap()
            .to_string(),
        seats: vec![],
        body: Value::Null,
    };
    let t = app.act(&m, &m.host, None, clubs_tally()).await;
    assert_eq!(t.status, StatusCode::CREATED, "{}", t.text);
    let (header, rows) = csv_at(&app, &format!("/v1/matches/{}/scores.csv", m.id)).await;
    let mut expected = vec!["round".to_string(), "label".into(), "multiplier".into()];
    expected.extend(seat_names(0).iter().map(|n| defused(n)));
    assert_eq!(header, expected);
    // Table 1 seats formula names only (each column defused), so the header tests them all.
    assert!(
        header[3..].iter().all(|h| h.starts_with('\'')),
        "{header:?}"
    );
    let row = |r: &[&str]| -> Vec<String> { r.iter().map(|s| s.to_string()).collect() };
    assert_eq!(
        rows,
        vec![
            row(&["1", "Deal 1", "1", "-4", "-16", "-3", "-3"]),
            row(&["total", "Total", "", "-4", "-16", "-3", "-3"]),
        ]
    );
    // The same CSV by `Accept: text/csv`.
    let by_accept = app
        .request(
            Method::GET,
            &format!("/v1/matches/{}/scores", m.id),
            None,
            &[("accept", "text/csv")],
            None,
        )
        .await;
    assert_eq!(parse(&by_accept.text), (header, rows));

    // Both tables' results by the quick log, settled by hand (their matches are not finished).
    let entered = [vec![-104, 0, 0, 0], vec![-100, -4, 0, 0]];
    for (t, totals) in entered.iter().enumerate() {
        let a = put(
            &app,
            &format!("/v1/tournaments/{id}/rounds/1/tables/{}/result", t + 1),
            Some(&org),
            json!({ "totals": totals, "abandon_match": true }),
        )
        .await;
        assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    }
    // Each player's total, by name (the names are distinct).
    let total_of: HashMap<String, i64> = (0..2)
        .flat_map(|t| seat_names(t).into_iter().zip(entered[t].clone()))
        .collect();

    let (header, rows) = csv_at(&app, &format!("/v1/tournaments/{id}/export/standings.csv")).await;
    assert_eq!(
        header,
        [
            "rank",
            "player_id",
            "name",
            "played",
            "byes",
            "wins",
            "total",
            "matchpoints",
            "max_matchpoints",
            "percentage",
            "opponents_matchpoints",
            "rating",
            "rating_uncertainty",
            "withdrawn"
        ]
    );
    assert_eq!(rows.len(), HOSTILE.len());
    let mut seen = vec![];
    for r in &rows {
        let name = cell(&header, r, "name");
        let raw = HOSTILE
            .iter()
            .find(|n| defused(n) == name)
            .unwrap_or_else(|| panic!("standings.csv name {name:?} is no entrant's, defused"));
        seen.push(raw.to_string());
        // A negative total is a number, not text: no `'`.
        assert_eq!(cell(&header, r, "total"), total_of[*raw].to_string());
        assert_eq!(cell(&header, r, "played"), "1");
    }
    seen.sort();
    let mut all: Vec<String> = HOSTILE.iter().map(|s| s.to_string()).collect();
    all.sort();
    assert_eq!(seen, all, "every entrant once");
    // Last: no matchpoints, no win, and the lower total of the two such (−104 below −100).
    assert_eq!(rows.last().map(|r| cell(&header, r, "total")), Some("-104"));

    let (header, rows) = csv_at(&app, &format!("/v1/tournaments/{id}/export/results.csv")).await;
    assert_eq!(rows.len(), 8, "one row per seat of both tables");
    for r in &rows {
        let t: usize = cell(&header, r, "table").parse().unwrap();
        let seat: usize = cell(&header, r, "seat").parse().unwrap();
        let raw = &seat_names(t - 1)[seat];
        assert_eq!(cell(&header, r, "name"), defused(raw));
        assert_eq!(
            cell(&header, r, "total"),
            entered[t - 1][seat].to_string(),
            "table {t} seat {seat}"
        );
        assert_eq!(cell(&header, r, "source"), "totals");
    }
}

#[actix_web::test]
async fn a_partnership_sheet_names_each_side_by_both_partners() {
    // Seats 0 and 2 are side 0. Only a cell's first character makes a formula: `=Di` inside a
    // cell is plain text.
    let app = TestApp::spawn().await;
    let m = match_named(&app, "dump", &["@Ada", "-Ben", "Cy", "=Di"]).await;
    let t = app
        .act(
            &m,
            &m.host,
            None,
            json!({"type": "tally", "points": [100, 60]}),
        )
        .await;
    assert_eq!(t.status, StatusCode::CREATED, "{}", t.text);
    let a = app
        .get(&format!("/v1/matches/{}/scores.csv", m.id), None)
        .await;
    assert_eq!(
        a.text,
        "round,label,multiplier,'@Ada & Cy,'-Ben & =Di\n1,Deal 1,1,20,0\ntotal,Total,,20,0\n"
    );
}

#[actix_web::test]
async fn players_of_the_same_name_get_distinct_columns_that_say_their_seat() {
    let app = TestApp::spawn().await;
    let m = match_named(&app, "clubs", &["Ada", "Ada", "=x", "Cy"]).await;
    let t = app.act(&m, &m.host, None, clubs_tally()).await;
    assert_eq!(t.status, StatusCode::CREATED, "{}", t.text);
    let a = app
        .get(&format!("/v1/matches/{}/scores.csv", m.id), None)
        .await;
    let (header, _) = parse(&a.text);
    assert_eq!(
        header,
        [
            "round",
            "label",
            "multiplier",
            "Ada (seat 0)",
            "Ada (seat 1)",
            "'=x (seat 2)",
            "Cy (seat 3)"
        ]
    );
    // Sides whose partners' names coincide: the side's number tells them apart.
    let m = match_named(&app, "dump", &["Ada", "Ada", "Ben", "Ben"]).await;
    let a = app
        .get(&format!("/v1/matches/{}/scores.csv", m.id), None)
        .await;
    assert_eq!(
        a.text,
        "round,label,multiplier,Ada & Ben (side 0),Ada & Ben (side 1)\ntotal,Total,,0,0\n"
    );
}

#[actix_web::test]
async fn entered_points_beyond_a_million_are_422_points_out_of_range_and_record_nothing() {
    let app = TestApp::spawn().await;
    let (id, org, _) = clubs_round(&app, &["P0", "P1", "P2", "P3"], "totals").await;
    let url = format!("/v1/tournaments/{id}/rounds/1/tables/1/result");
    let standings_before = app
        .get(&format!("/v1/tournaments/{id}/standings"), None)
        .await
        .body;
    let (min, max) = (i64::MIN, i64::MAX);
    for (body, what, number) in [
        // i64::MIN's abs() wraps to itself: it passed an `abs() > bound` check.
        (json!({"totals": [min, 0, 0, 0]}), "totals", min),
        // Two of them wrapped the Clubs sum check back to −26: [MIN, MIN, 0, −26] summed to −26.
        (json!({"totals": [min, min, 0, -26]}), "totals", min),
        (json!({"totals": [max, 0, 0, -26]}), "totals", max),
        (
            json!({"totals": [-1_000_001, 0, 0, 0]}),
            "totals",
            -1_000_001,
        ),
        (json!({"totals": [0, 1_000_001, 0, 0]}), "totals", 1_000_001),
        (json!({"deals": [[min, 0, 0, 0]]}), "deal 1", min),
        (
            json!({"deals": [[-26, 0, 0, 0], [0, min, min, -26]]}),
            "deal 2",
            min,
        ),
        (
            json!({"totals": [-104, 0, 0, 0], "deals": [[max, max, 0, 0]]}),
            "deal 1",
            max,
        ),
    ] {
        let a = put(&app, &url, Some(&org), body.clone()).await;
        assert_eq!(
            a.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {}",
            a.text
        );
        assert_eq!(a.code(), "points_out_of_range", "{body}: {}", a.text);
        assert!(
            a.content_type.starts_with("application/problem+json"),
            "{}",
            a.content_type
        );
        let detail = a.body["detail"].as_str().unwrap_or_default();
        assert!(
            detail.starts_with(&format!("{what}: {number} ")),
            "{body}: {detail}"
        );
    }
    // Nothing was recorded: the table has no result, the standings are as before.
    let t = app.get(&format!("/v1/tournaments/{id}"), None).await;
    assert_eq!(t.body["rounds"][0]["tables"][0]["result"], Value::Null);
    let after = app
        .get(&format!("/v1/tournaments/{id}/standings"), None)
        .await
        .body;
    assert_eq!(after, standings_before);
    let (_, rows) = csv_at(&app, &format!("/v1/tournaments/{id}/export/results.csv")).await;
    assert!(rows.is_empty(), "{rows:?}");
    // The bound itself is accepted.
    let ok = put(
        &app,
        &url,
        Some(&org),
        json!({"totals": [-1_000_000, 999_974, 0, 0]}),
    )
    .await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text);
    assert_eq!(
        ok.body["result"]["totals"],
        json!([-1_000_000, 999_974, 0, 0])
    );
}

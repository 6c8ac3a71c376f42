//! Hostile input over HTTP: oversized bodies, huge player lists, odd names, wrong JSON types in
//! every field, deep nesting, numbers out of range, bad headers and paths. Every refusal must be
//! the exact status and `code` as problem+json (never a 500), and must record nothing: the match's
//! `seq` and log, and the match list, are unchanged afterwards.

mod common;

use common::{Answer, Match, TestApp, OPERATOR};
use reqwest::{header::HeaderValue, Method, StatusCode};
use serde_json::{json, Value};

/// Asserts a problem+json refusal with exactly this status and code.
#[track_caller]
fn refused(a: &Answer, status: u16, code: &str) {
    assert_eq!(
        a.status.as_u16(),
        status,
        "expected {status} {code}: {}",
        a.text
    );
    assert_eq!(a.code(), code, "{}", a.text);
    assert!(
        a.content_type.starts_with("application/problem+json"),
        "problem+json expected, got {:?}: {}",
        a.content_type,
        a.text
    );
    assert_eq!(a.body["status"], json!(status), "{}", a.text);
    assert_eq!(
        a.body["type"],
        json!(format!("urn:clubroom:problem:{code}")),
        "{}",
        a.text
    );
    assert!(
        a.body["detail"].as_str().is_some_and(|d| !d.is_empty()),
        "{}",
        a.text
    );
}

/// Reads an answer (as `common` does; its reader is private to it).
async fn answer(r: reqwest::Response) -> Answer {
    let status = r.status();
    let header = |name: &str| {
        r.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(String::from)
    };
    let etag = header("etag");
    let retry_after = header("retry-after");
    let content_type = header("content-type").unwrap_or_default();
    let text = r.text().await.unwrap_or_default();
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    Answer {
        status,
        etag,
        retry_after,
        content_type,
        body,
        text,
    }
}

/// A request with raw bytes: any body, any content type (none when `None`), any header bytes.
async fn raw(
    app: &TestApp,
    method: Method,
    path: &str,
    headers: &[(&str, &[u8])],
    content_type: Option<&str>,
    body: Vec<u8>,
) -> Answer {
    let mut rb = app.client.request(method, format!("{}{}", app.base, path));
    for (name, value) in headers {
        rb = rb.header(*name, HeaderValue::from_bytes(value).expect("header bytes"));
    }
    if let Some(ct) = content_type {
        rb = rb.header("content-type", ct);
    }
    answer(rb.body(body).send().await.expect("request sent")).await
}

/// POSTs `body` as application/json with these headers.
async fn post_with(
    app: &TestApp,
    path: &str,
    headers: Vec<(&'static str, Vec<u8>)>,
    body: Vec<u8>,
) -> Answer {
    let h: Vec<(&str, &[u8])> = headers.iter().map(|(n, v)| (*n, v.as_slice())).collect();
    raw(app, Method::POST, path, &h, Some("application/json"), body).await
}

/// POSTs a JSON text (which need not be valid JSON) as application/json.
async fn post_json_text(app: &TestApp, path: &str, token: Option<&str>, text: &[u8]) -> Answer {
    let auth = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &[u8])> = auth
        .iter()
        .map(|a| ("authorization", a.as_bytes()))
        .collect();
    raw(
        app,
        Method::POST,
        path,
        &headers,
        Some("application/json"),
        text.to_vec(),
    )
    .await
}

async fn create_raw(app: &TestApp, body: &Value) -> Answer {
    app.request(Method::POST, "/v1/matches", None, &[], Some(body.clone()))
        .await
}

/// How many matches exist.
async fn match_count(app: &TestApp) -> usize {
    let a = app.get("/v1/matches?limit=100", Some(OPERATOR)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.text);
    a.body["matches"].as_array().unwrap().len()
}

/// The match's version and the length of its log.
async fn recorded(app: &TestApp, m: &Match) -> (Value, usize) {
    let v = app.view(m, None).await;
    (v["seq"].clone(), app.events(m, None).await.len())
}

fn players(n: usize) -> Value {
    Value::Array((0..n).map(|i| json!({"name": format!("P{i}")})).collect())
}

/// JSON nested `depth` objects deep: `{"a":{"a":...1...}}`.
fn nested(depth: usize) -> String {
    format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth))
}

#[actix_web::test]
async fn create_refuses_every_wrong_type_with_400_and_creates_nothing() {
    let app = TestApp::spawn().await;
    let four = players(4);
    // Wrong JSON types in every field, unknown fields, structs sent as arrays.
    let bodies: Vec<Value> = vec![
        json!(null),
        json!([]),
        json!(["dump", [{"name": "a"}, {"name": "b"}]]),
        json!("dump"),
        json!(5),
        json!({}),
        json!({"players": four}),
        json!({"game": 5, "players": four}),
        json!({"game": null, "players": four}),
        json!({"game": ["dump"], "players": four}),
        json!({"game": {"id": "dump"}, "players": four}),
        json!({"game": true, "players": four}),
        json!({"game": "dump"}),
        json!({"game": "dump", "players": null}),
        json!({"game": "dump", "players": "Ada, Ben"}),
        json!({"game": "dump", "players": {"name": "Ada"}}),
        json!({"game": "dump", "players": 4}),
        json!({"game": "dump", "players": ["Ada", "Ben"]}),
        json!({"game": "dump", "players": [["Ada"], ["Ben"]]}),
        json!({"game": "dump", "players": [{}, {}]}),
        json!({"game": "dump", "players": [{"name": 5}, {"name": "b"}]}),
        json!({"game": "dump", "players": [{"name": null}, {"name": "b"}]}),
        json!({"game": "dump", "players": [{"name": ["a"]}, {"name": "b"}]}),
        json!({"game": "dump", "players": [{"name": "a", "age": 3}, {"name": "b"}]}),
        json!({"game": "dump", "players": four, "config": "target=100"}),
        json!({"game": "dump", "players": four, "config": 100}),
        json!({"game": "dump", "players": four, "config": [100]}),
        json!({"game": "dump", "players": four, "config": true}),
        json!({"game": "dump", "players": four, "dealing": 5}),
        json!({"game": "dump", "players": four, "dealing": "dealer"}),
        json!({"game": "dump", "players": four, "dealing": {"by": "table"}}),
        json!({"game": "dump", "players": four, "colour": "red"}),
    ];
    for body in &bodies {
        let a = create_raw(&app, body).await;
        assert_eq!(a.status.as_u16(), 400, "{body}: {}", a.text);
        refused(&a, 400, "invalid_body");
    }
    // Not JSON at all: empty, non-UTF-8, truncated, nested past the parser's limit (128).
    for text in [
        b"".to_vec(),
        b"   ".to_vec(),
        b"\xff\xfe{\"game\": \"dump\"}".to_vec(),
        b"{\"game\": \"du\xc3\x28mp\", \"players\": []}".to_vec(),
        b"{\"game\": \"dump\", \"players\": [".to_vec(),
        "[".repeat(5000).into_bytes(),
        format!(
            "{{\"game\": \"dump\", \"players\": {four}, \"config\": {}}}",
            nested(200)
        )
        .into_bytes(),
    ] {
        refused(
            &post_json_text(&app, "/v1/matches", None, &text).await,
            400,
            "invalid_body",
        );
    }
    // Deep but within the parser's limit: well-formed, then refused by the game's options.
    refused(
        &post_json_text(
            &app,
            "/v1/matches",
            None,
            format!(
                "{{\"game\": \"dump\", \"players\": {four}, \"config\": {}}}",
                nested(100)
            )
            .as_bytes(),
        )
        .await,
        422,
        "invalid_config",
    );
    // Not sent as JSON.
    let good = serde_json::to_vec(&json!({"game": "dump", "players": four})).unwrap();
    for ct in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        refused(
            &raw(&app, Method::POST, "/v1/matches", &[], ct, good.clone()).await,
            415,
            "unsupported_media_type",
        );
    }
    assert_eq!(match_count(&app).await, 0, "nothing was created");
}

#[actix_web::test]
async fn unknown_games_bad_configs_and_player_counts_are_clear_4xx() {
    let app = TestApp::spawn().await;
    let four = players(4);
    for game in [
        "chess",
        "",
        "DUMP",
        " dump",
        "dump\u{0}",
        &"x".repeat(10_000),
    ] {
        refused(
            &create_raw(&app, &json!({"game": game, "players": four})).await,
            422,
            "unknown_game",
        );
    }
    for config in [
        json!({"target": "100"}),
        json!({"target": -5}),
        json!({"target": 1e300}),
        json!({"target": null, "first_dealer": 9}),
        json!({"nope": 1}),
    ] {
        refused(
            &create_raw(
                &app,
                &json!({"game": "dump", "players": four, "config": config}),
            )
            .await,
            422,
            "invalid_config",
        );
    }
    refused(
        &create_raw(&app, &json!({"game": "dump", "players": []})).await,
        422,
        "bad_player_count",
    );
    refused(
        &create_raw(&app, &json!({"game": "dump", "players": players(3)})).await,
        422,
        "bad_player_count",
    );
    // Huge player lists: past 16 is refused before any game looks at it; past the body limit, 413.
    for n in [17, 3000] {
        refused(
            &create_raw(&app, &json!({"game": "dump", "players": players(n)})).await,
            400,
            "too_many_players",
        );
    }
    let many: Vec<Value> = (0..50_000).map(|_| json!({"name": "a"})).collect();
    refused(
        &create_raw(&app, &json!({"game": "dump", "players": many})).await,
        413,
        "payload_too_large",
    );
    assert_eq!(match_count(&app).await, 0, "nothing was created");
}

#[actix_web::test]
async fn a_body_over_the_limit_is_413_problem_json_on_every_write() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 4, "table", json!({})).await;
    let before = recorded(&app, &m).await;
    let big = "x".repeat(70_000);
    refused(
        &create_raw(
            &app,
            &json!({"game": "dump", "players": [{"name": big}, {"name": "b"}]}),
        )
        .await,
        413,
        "payload_too_large",
    );
    refused(
        &app.act(&m, &m.host, Some(1), json!({"type": "play", "card": big}))
            .await,
        413,
        "payload_too_large",
    );
    let undo_body = format!("{{\"note\": \"{big}\"}}").into_bytes();
    refused(
        &post_json_text(
            &app,
            &format!("/v1/matches/{}/undo", m.id),
            Some(&m.host),
            &undo_body,
        )
        .await,
        413,
        "payload_too_large",
    );
    assert_eq!(recorded(&app, &m).await, before, "nothing was recorded");
    assert_eq!(match_count(&app).await, 1, "no match was created");
}

#[actix_web::test]
async fn unicode_names_are_accepted_and_read_back_exactly() {
    let app = TestApp::spawn().await;
    let sets: Vec<[String; 4]> = vec![
        [
            "Zoë".into(),
            "渡辺 健".into(),
            "שלום".into(),
            "Ωμέγα".into(),
        ],
        [
            "e\u{301}lodie".into(), // combining accent, kept decomposed
            "👩\u{200d}👩\u{200d}👧".into(),
            "🂡".repeat(64),    // 64 code points, 256 bytes: the longest name
            "\u{200b}".into(), // zero-width space is not whitespace
        ],
        [
            " Ada ".into(), // kept as sent, spaces and all
            "Ada\tLovelace".into(),
            "a\u{0}b".into(),
            "<script>alert(1)</script>".into(),
        ],
    ];
    for names in &sets {
        let body = json!({"game": "dump", "players": names.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()});
        let a = create_raw(&app, &body).await;
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
        let id = a.body["match"]["id"].as_str().unwrap().to_string();
        let expected: Vec<Value> = names
            .iter()
            .enumerate()
            .map(|(seat, n)| json!({"seat": seat, "name": n, "player_id": null}))
            .collect();
        assert_eq!(
            a.body["match"]["players"],
            json!(expected),
            "creation answer"
        );
        let view = app.get(&format!("/v1/matches/{id}"), None).await;
        assert_eq!(view.body["players"], json!(expected), "match view");
        let list = app.get("/v1/matches?limit=100", Some(OPERATOR)).await;
        let line = list.body["matches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == json!(id))
            .unwrap()
            .clone();
        assert_eq!(line["players"], json!(expected), "match list");
    }
}

#[actix_web::test]
async fn blank_and_too_long_names_are_400_and_create_nothing() {
    let app = TestApp::spawn().await;
    // Every character the spec's pattern counts as blank (Unicode White_Space, U+001C..U+001F,
    // U+FEFF), alone and in runs.
    let mut blanks: Vec<String> = "\t\n\u{b}\u{c}\r \u{1c}\u{1d}\u{1e}\u{1f}\u{85}\u{a0}\u{1680}\u{2000}\u{2001}\u{2002}\u{2003}\u{2004}\u{2005}\u{2006}\u{2007}\u{2008}\u{2009}\u{200a}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}\u{feff}"
        .chars()
        .map(String::from)
        .collect();
    blanks.push(String::new());
    blanks.push("   ".into());
    blanks.push("\u{3000}\t \u{feff}".into());
    let too_long = [
        "x".repeat(65),
        "🂡".repeat(65),
        format!("{} ", "x".repeat(64)),
    ];
    for name in blanks.iter().chain(too_long.iter()) {
        let a = create_raw(
            &app,
            &json!({"game": "dump", "players": [{"name": "ok"}, {"name": name}]}),
        )
        .await;
        assert_eq!(a.status.as_u16(), 400, "{name:?}: {}", a.text);
        refused(&a, 400, "invalid_player_name");
    }
    assert_eq!(match_count(&app).await, 0, "nothing was created");
}

#[actix_web::test]
async fn action_bodies_with_wrong_types_or_out_of_range_numbers_are_refused_and_record_nothing() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 4, "table", json!({})).await;
    let a = app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let before = recorded(&app, &m).await;
    let play = json!({"type": "play", "card": "7H"});
    let cases: Vec<(Value, u16, &str)> = vec![
        // The envelope.
        (json!(null), 400, "invalid_body"),
        (json!([]), 400, "invalid_body"),
        (json!([1, play]), 400, "invalid_body"),
        (json!("play 7H"), 400, "invalid_body"),
        (json!({}), 400, "invalid_body"),
        (json!({"seat": 1}), 400, "invalid_body"),
        (
            json!({"seat": 1, "action": play, "extra": true}),
            400,
            "invalid_body",
        ),
        // `seat`: every wrong type, negative, fractional, past u64; 2^63 is a number but no seat.
        (json!({"seat": "1", "action": play}), 400, "invalid_body"),
        (json!({"seat": true, "action": play}), 400, "invalid_body"),
        (json!({"seat": [1], "action": play}), 400, "invalid_body"),
        (
            json!({"seat": {"n": 1}, "action": play}),
            400,
            "invalid_body",
        ),
        (json!({"seat": -1, "action": play}), 400, "invalid_body"),
        (json!({"seat": 1.5, "action": play}), 400, "invalid_body"),
        (
            json!({"seat": 18446744073709551616.0, "action": play}),
            400,
            "invalid_body",
        ),
        (
            json!({"seat": 9223372036854775808u64, "action": play}),
            422,
            "no_such_seat",
        ),
        (json!({"seat": 4, "action": play}), 422, "no_such_seat"),
        // `action`: every wrong type.
        (json!({"seat": 1, "action": null}), 400, "invalid_action"),
        (json!({"seat": 1, "action": "play"}), 400, "invalid_action"),
        (json!({"seat": 1, "action": 7}), 400, "invalid_action"),
        (
            json!({"seat": 1, "action": ["play", "7H"]}),
            400,
            "invalid_action",
        ),
        (json!({"seat": 1, "action": {}}), 400, "invalid_action"),
        // `action.type`.
        (
            json!({"seat": 1, "action": {"type": null, "card": "7H"}}),
            400,
            "invalid_action",
        ),
        (
            json!({"seat": 1, "action": {"type": 1, "card": "7H"}}),
            400,
            "invalid_action",
        ),
        (
            json!({"seat": 1, "action": {"type": ["play"], "card": "7H"}}),
            400,
            "invalid_action",
        ),
        (
            json!({"seat": 1, "action": {"type": "fold"}}),
            400,
            "invalid_action",
        ),
        (
            json!({"seat": 1, "action": {"type": "PLAY", "card": "7H"}}),
            400,
            "invalid_action",
        ),
        // `action.card`: a number is P.M.'s card (another game's action); the rest fit no game.
        (
            json!({"seat": 1, "action": {"type": "play", "card": 7}}),
            422,
            "action_not_in_game",
        ),
        (
            json!({"seat": 1, "action": {"type": "play", "card": 7.5}}),
            400,
            "invalid_action",
        ),
        (
            json!({"seat": 1, "action": {"type": "play", "card": true}}),
            400,
            "invalid_action",
        ),
        (
            json!({"seat": 1, "action": {"type": "play", "card": null}}),
            400,
            "invalid_action",
        ),
        (
            json!({"seat": 1, "action": {"type": "play", "card": ["7", "H"]}}),
            400,
            "invalid_action",
        ),
        (
            json!({"seat": 1, "action": {"type": "play", "card": {"rank": 7}}}),
            400,
            "invalid_action",
        ),
        (
            json!({"seat": 1, "action": {"type": "play", "card": "ZZ"}}),
            400,
            "invalid_action",
        ),
        (
            json!({"seat": 1, "action": {"type": "play"}}),
            400,
            "invalid_action",
        ),
        (
            json!({"seat": 1, "action": {"type": "play", "card": "7H", "x": 1}}),
            400,
            "invalid_action",
        ),
        // `action.points`: wrong types, lengths and ranges.
        (
            json!({"seat": null, "action": {"type": "tally", "points": "80,80"}}),
            400,
            "invalid_action",
        ),
        (
            json!({"seat": null, "action": {"type": "tally", "points": {"0": 80, "1": 80}}}),
            400,
            "invalid_action",
        ),
        (
            // A points tally of any length is well-formed for Clubs, Bonus-Malus and P.M.
            // (score-only play): not Dump's, so another game's action.
            json!({"seat": null, "action": {"type": "tally", "points": [160]}}),
            422,
            "action_not_in_game",
        ),
        (
            // A points tally of any length is well-formed for Clubs, Bonus-Malus and P.M.
            // (score-only play): not Dump's, so another game's action.
            json!({"seat": null, "action": {"type": "tally", "points": [80, 80, 0]}}),
            422,
            "action_not_in_game",
        ),
        (
            // Negative points: well-formed for Clubs and P.M. (another game's action).
            json!({"seat": null, "action": {"type": "tally", "points": [-1, 161]}}),
            422,
            "action_not_in_game",
        ),
        (
            json!({"seat": null, "action": {"type": "tally", "points": [80.5, 79.5]}}),
            400,
            "invalid_action",
        ),
        (
            // A points tally of any length is well-formed for Clubs, Bonus-Malus and P.M.
            // (score-only play): not Dump's, so another game's action.
            json!({"seat": null, "action": {"type": "tally", "points": [4294967296u64, 0]}}),
            422,
            "action_not_in_game",
        ),
        (
            json!({"seat": null, "action": {"type": "tally", "points": ["80", "80"]}}),
            400,
            "invalid_action",
        ),
        // Another game's actions are well-formed by the spec: 422.
        (
            json!({"seat": null, "action": {"type": "stock_top", "suit": "D"}}),
            422,
            "action_not_in_game",
        ),
        (
            json!({"seat": 1, "action": {"type": "steal", "from": 2, "card": "B1507"}}),
            422,
            "action_not_in_game",
        ),
        (
            json!({"seat": 1, "action": {"type": "turn", "bet": null, "reveal": []}}),
            422,
            "action_not_in_game",
        ),
    ];
    for (body, status, code) in &cases {
        let a = app
            .request(
                Method::POST,
                &format!("/v1/matches/{}/actions", m.id),
                Some(&m.host),
                &[],
                Some(body.clone()),
            )
            .await;
        assert_eq!(a.status.as_u16(), *status, "{body}: {}", a.text);
        refused(&a, *status, code);
    }
    // Bodies that are not JSON, or JSON past the parser's limits.
    let path = format!("/v1/matches/{}/actions", m.id);
    for text in [
        b"".to_vec(),
        b"null".to_vec(),
        b"\xff\xfe\xfd".to_vec(),
        b"{\"seat\": 1, \"action\": {\"type\": \"play\", \"card\": \"7\xffH\"}}".to_vec(),
        b"{\"seat\": 1, \"action\": {\"type\": \"play\", \"card\": \"7H\"}".to_vec(),
        b"{\"seat\": 1e400, \"action\": {\"type\": \"deal\"}}".to_vec(),
        b"{\"seat\": null, \"action\": {\"type\": \"tally\", \"points\": [1e400, 0]}}".to_vec(),
        format!("{{\"seat\": 1, \"action\": {}}}", nested(300)).into_bytes(),
        "[".repeat(60_000).into_bytes(),
    ] {
        let a = post_json_text(&app, &path, Some(&m.host), &text).await;
        assert_eq!(
            a.status.as_u16(),
            400,
            "{}: {}",
            String::from_utf8_lossy(&text[..text.len().min(80)]),
            a.text
        );
        refused(&a, 400, "invalid_body");
    }
    refused(
        &raw(
            &app,
            Method::POST,
            &path,
            &[("authorization", format!("Bearer {}", m.host).as_bytes())],
            Some("text/plain"),
            b"{\"seat\": 1, \"action\": {\"type\": \"play\", \"card\": \"7H\"}}".to_vec(),
        )
        .await,
        415,
        "unsupported_media_type",
    );
    assert_eq!(recorded(&app, &m).await, before, "nothing was recorded");
}

#[actix_web::test]
async fn a_struct_sent_as_an_array_is_400_not_read_field_by_field() {
    let app = TestApp::spawn().await;
    let m = app.create("clubs", 4, "table", json!({})).await;
    let before = recorded(&app, &m).await;
    // serde alone reads `[16, 4, false]` as `{"cards": 16, "clubs": 4, "jack": false}`.
    let tally = json!({"type": "tally", "taken": [[16, 4, false], [12, 2, true], [12, 3, false], [12, 3, false]]});
    refused(
        &app.act(&m, &m.host, None, tally).await,
        400,
        "invalid_action",
    );
    assert_eq!(recorded(&app, &m).await, before, "nothing was recorded");
}

#[actix_web::test]
async fn integral_floats_are_integers_as_json_schema_counts_them() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 4, "table", json!({})).await;
    let a = app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let a = app
        .request(
            Method::POST,
            &format!("/v1/matches/{}/actions", m.id),
            Some(&m.host),
            &[],
            Some(json!({"seat": 1.0, "action": {"type": "play", "card": "7H"}})),
        )
        .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    assert_eq!(a.body["event"]["seat"], json!(1));
}

#[actix_web::test]
async fn bad_headers_and_queries_are_clear_4xx_and_record_nothing() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 4, "table", json!({})).await;
    let path = format!("/v1/matches/{}/actions", m.id);
    let deal = br#"{"seat": null, "action": {"type": "deal"}}"#.to_vec();
    let host = ("authorization", format!("Bearer {}", m.host).into_bytes());
    let post = |headers: Vec<(&'static str, Vec<u8>)>, body: &[u8]| {
        post_with(&app, &path, headers, body.to_vec())
    };
    // Authorization: missing, another scheme, empty, unreadable bytes, a huge token.
    for auth in [
        None,
        Some(b"Basic YWRhOmFkYQ==".to_vec()),
        Some(b"Bearer".to_vec()),
        Some(b"Bearer    ".to_vec()),
        Some(b"Bearer \xe9\xff".to_vec()),
        Some(format!("Bearer {}", "t".repeat(8000)).into_bytes()),
        Some(format!("Bearer {}x", m.host).into_bytes()),
    ] {
        let headers = auth.map(|a| vec![("authorization", a)]).unwrap_or_default();
        refused(&post(headers, &deal).await, 401, "unauthorized");
    }
    // If-Match: anything but a version (or `*`) is malformed, never "stale".
    for tag in [
        b"".to_vec(),
        b"twelve".to_vec(),
        b"W/12".to_vec(),
        b"\"12".to_vec(),
        b"-1".to_vec(),
        b"\"1234567890123456789\"".to_vec(),
        b"\xe9".to_vec(),
    ] {
        refused(
            &post(vec![host.clone(), ("if-match", tag)], &deal).await,
            400,
            "invalid_if_match",
        );
    }
    // Idempotency-Key: too long, unreadable bytes.
    for key in ["k".repeat(256).into_bytes(), b"key-\xe9".to_vec()] {
        refused(
            &post(vec![host.clone(), ("idempotency-key", key)], &deal).await,
            400,
            "invalid_idempotency_key",
        );
    }
    // A malformed body or a seat the match lacks is refused as such even with a stale If-Match.
    let stale = ("if-match", b"\"7\"".to_vec());
    refused(
        &post(vec![host.clone(), stale.clone()], b"{\"seat\": \"x\"}").await,
        400,
        "invalid_body",
    );
    refused(
        &post(
            vec![host.clone(), stale.clone()],
            br#"{"seat": 12, "action": {"type": "play", "card": "7H"}}"#,
        )
        .await,
        422,
        "no_such_seat",
    );
    refused(
        &post(
            vec![
                (
                    "authorization",
                    format!("Bearer {}", m.seats[0]).into_bytes(),
                ),
                stale,
            ],
            &deal,
        )
        .await,
        403,
        "host_only",
    );
    // Queries.
    let id = &m.id;
    for (q, status, code) in [
        (
            format!("/v1/matches/{id}/legal?seat=-1"),
            400,
            "invalid_query",
        ),
        (
            format!("/v1/matches/{id}/legal?seat=abc"),
            400,
            "invalid_query",
        ),
        (
            format!("/v1/matches/{id}/legal?seat=1.5"),
            400,
            "invalid_query",
        ),
        (
            format!("/v1/matches/{id}/legal?seat=99999999999999999999999"),
            400,
            "invalid_query",
        ),
        (
            format!("/v1/matches/{id}/legal?seat=4"),
            422,
            "no_such_seat",
        ),
        (
            format!("/v1/matches/{id}/legal?seat=1&x=2"),
            400,
            "invalid_query",
        ),
        (
            format!("/v1/matches/{id}/events?after=-1"),
            400,
            "invalid_query",
        ),
        (
            format!("/v1/matches/{id}/events?limit=0"),
            400,
            "invalid_query",
        ),
        (
            format!("/v1/matches/{id}/events?limit=1001"),
            400,
            "invalid_query",
        ),
        (
            format!("/v1/matches/{id}/events?limit=%FF"),
            400,
            "invalid_query",
        ),
        ("/v1/matches?limit=-5".to_string(), 400, "invalid_query"),
        ("/v1/matches?status=done".to_string(), 400, "invalid_query"),
        ("/v1/matches?cursor=abc".to_string(), 400, "invalid_cursor"),
        ("/v1/matches?cursor=-5".to_string(), 400, "invalid_cursor"),
        ("/v1/matches?cursor=%2B5".to_string(), 400, "invalid_cursor"),
        (
            "/v1/matches?cursor=1234567890123456789".to_string(),
            400,
            "invalid_cursor",
        ),
    ] {
        refused(&app.get(&q, None).await, status, code);
    }
    // A filter no game can match (PostgreSQL would refuse the NUL): an empty page.
    let none = app.get("/v1/matches?game=du%00mp", Some(OPERATOR)).await;
    assert_eq!(none.status, StatusCode::OK, "{}", none.text);
    assert_eq!(none.body["matches"], json!([]));
    // Paths: ids that are no match, however odd.
    for p in [
        "/v1/matches/%FF".to_string(),
        "/v1/matches/%00/events".to_string(),
        format!("/v1/matches/{}%00", &m.id[..31]),
        format!("/v1/matches/{}", m.id.to_uppercase()),
        "/v1/matches/..%2F..%2Fetc%2Fpasswd".to_string(),
        format!("/v1/matches/{}", "x".repeat(10_000)),
    ] {
        refused(&app.get(&p, None).await, 404, "match_not_found");
    }
    let wrong = app
        .request(Method::DELETE, &path, Some(&m.host), &[], None)
        .await;
    refused(&wrong, 405, "method_not_allowed");
    assert_eq!(
        recorded(&app, &m).await,
        (json!(0), 0),
        "nothing was recorded"
    );
}

#[actix_web::test]
async fn undo_refuses_hostile_bodies_and_takes_no_body_as_a_plain_undo() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 4, "table", json!({})).await;
    let path = format!("/v1/matches/{}/undo", m.id);
    for text in [
        b"{\"x\": 1}".to_vec(),
        b"[]".to_vec(),
        b"\"undo\"".to_vec(),
        b"null".to_vec(),
        b"7".to_vec(),
        b"\xff\xfe".to_vec(),
        b"{".to_vec(),
    ] {
        refused(
            &post_json_text(&app, &path, Some(&m.host), &text).await,
            400,
            "invalid_body",
        );
    }
    // No body or `{}` asks for a plain undo: here there is nothing to undo. (`null` is not an
    // object, so the spec's optional body refuses it, above.)
    for text in [b"".to_vec(), b"{}".to_vec()] {
        refused(
            &post_json_text(&app, &path, Some(&m.host), &text).await,
            422,
            "nothing_to_undo",
        );
    }
    refused(
        &post_json_text(&app, &path, None, b"{}").await,
        401,
        "unauthorized",
    );
    refused(
        &post_json_text(&app, &path, Some(&m.seats[0]), b"{}").await,
        403,
        "host_only",
    );
    assert_eq!(
        recorded(&app, &m).await,
        (json!(0), 0),
        "nothing was recorded"
    );
}

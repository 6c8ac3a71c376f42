//! The edge of the service as an attacker or an operator meets it: who may list matches, cards
//! typed with suit symbols, stalled bodies, request ids, the access log, and the bind address
//! taken from the environment when `clubroom` runs with no subcommand.

mod common;

use std::{
    io::{Read, Write},
    net::{TcpListener, TcpStream},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use clubroom::edge::Limits;
use common::{TestApp, OPERATOR};
use reqwest::StatusCode;
use serde_json::{json, Value};

fn ids(list: &Value) -> Vec<String> {
    list["matches"]
        .as_array()
        .expect("a page of matches")
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

#[actix_web::test]
async fn the_match_list_shows_each_token_only_its_own_match_and_the_operator_all() {
    let app = TestApp::spawn().await;
    let a = app.create("dump", 4, "table", json!({})).await;
    let b = app.create("clubs", 4, "service", json!({})).await;

    let anonymous = app.get("/v1/matches", None).await;
    assert_eq!(
        anonymous.status,
        StatusCode::UNAUTHORIZED,
        "{}",
        anonymous.text
    );
    assert_eq!(anonymous.code(), "unauthorized");
    assert_eq!(anonymous.content_type, "application/problem+json");
    assert!(!anonymous.text.contains(&a.id) && !anonymous.text.contains("Player"));

    let by_seat = app.get("/v1/matches", Some(&a.seats[2])).await;
    assert_eq!(by_seat.status, StatusCode::OK, "{}", by_seat.text);
    assert_eq!(ids(&by_seat.body), [a.id.as_str()]);
    let by_host = app.get("/v1/matches", Some(&b.host)).await;
    assert_eq!(ids(&by_host.body), [b.id.as_str()]);
    // Filters still apply within what the token may see.
    let other_game = app.get("/v1/matches?game=clubs", Some(&a.host)).await;
    assert_eq!(ids(&other_game.body), Vec::<String>::new());

    let all = app.get("/v1/matches", Some(OPERATOR)).await;
    assert_eq!(ids(&all.body), [b.id.as_str(), a.id.as_str()]);

    let stranger = app
        .get("/v1/matches", Some("not-a-token-of-anything"))
        .await;
    assert_eq!(
        (stranger.status, stranger.code()),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );
}

#[actix_web::test]
async fn cards_typed_with_suit_symbols_are_recorded_and_anything_else_is_400() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 4, "table", json!({})).await;
    assert_eq!(
        app.act(&m, &m.host, None, json!({"type": "deal"}))
            .await
            .status,
        StatusCode::CREATED
    );
    let leader = app.view(&m, None).await["to_act"][0].as_u64().unwrap() as usize;
    let played = app
        .act(
            &m,
            &m.host,
            Some(leader),
            json!({"type": "play", "card": "10♥"}),
        )
        .await;
    assert_eq!(played.status, StatusCode::CREATED, "{}", played.text);
    assert_eq!(
        played.body["match"]["table"]["trick"],
        json!([{"seat": leader, "card": "TH"}])
    );
    let next = (leader + 1) % 4;
    for bad in ["2ſ", "1♣", "♣", "２♣", "A🂡", "10♥♥"] {
        let a = app
            .act(
                &m,
                &m.host,
                Some(next),
                json!({"type": "play", "card": bad}),
            )
            .await;
        assert_eq!(
            (a.status, a.code()),
            (StatusCode::BAD_REQUEST, "invalid_action"),
            "{bad}: {}",
            a.text
        );
    }
    let emoji = app
        .act(
            &m,
            &m.host,
            Some(next),
            json!({"type": "play", "card": "A♠\u{FE0F}"}),
        )
        .await;
    assert_eq!(emoji.status, StatusCode::CREATED, "{}", emoji.text);
    assert_eq!(app.view(&m, None).await["seq"], json!(3));
}

/// A server of its own with a short body deadline.
async fn app_with(limits: Limits) -> String {
    let (url, dir) = common::fresh_database().await;
    std::mem::forget(dir); // the temporary database outlives the server thread
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = clubroom::server::start_with(listener, &url, limits, None)
        .await
        .unwrap();
    actix_web::rt::spawn(server);
    format!("127.0.0.1:{port}")
}

/// Sends `head` and whatever body bytes, then reads until the server closes the connection or
/// 30 s pass: the answer, how long it took, and whether the server closed it (end of stream, not
/// the read timeout).
fn raw_exchange(addr: &str, request: &[u8]) -> (String, Duration, bool) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let started = Instant::now();
    s.write_all(request).unwrap();
    let mut got = Vec::new();
    let closed = s.read_to_end(&mut got).is_ok();
    (
        String::from_utf8_lossy(&got).into_owned(),
        started.elapsed(),
        closed,
    )
}

#[actix_web::test]
async fn a_stalled_body_gets_408_and_its_connection_closed() {
    let addr = app_with(Limits {
        body_timeout_secs: 1,
        ..Limits::default()
    })
    .await;
    let (answer, took, closed) = tokio::task::spawn_blocking(move || {
        raw_exchange(
            &addr,
            b"POST /v1/matches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"game\": \"dump\"",
        )
    })
    .await
    .unwrap();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("connection: close"), "{answer}");
    assert!(answer.contains("\"code\":\"request_timeout\""), "{answer}");
    // Answered once the 1 s deadline passed, never before it, and the connection closed by the
    // server (the read ended at the end of the stream, not at its 30 s timeout). The upper bound
    // is loose on purpose: CI's PostgreSQL pass runs this debug build beside other test binaries
    // and the npm and tsc steps on 2 cores, where it once took 5.03 s; a server that held the
    // connection open would reach neither the end of the stream nor a bound below the default
    // 10 s body deadline.
    assert!(closed, "the server did not close the connection in 30 s");
    assert!(took >= Duration::from_secs(1), "{took:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[actix_web::test]
async fn every_answer_carries_a_request_id_and_keeps_a_well_formed_one() {
    let app = TestApp::spawn().await;
    let mine = app
        .client
        .get(format!("{}/healthz", app.base))
        .header("X-Request-Id", "table-7.req_42")
        .send()
        .await
        .unwrap();
    assert_eq!(mine.headers()["x-request-id"], "table-7.req_42");
    let hostile = app
        .client
        .get(format!("{}/v1/matches/nope", app.base))
        .header("X-Request-Id", "a b\tc")
        .send()
        .await
        .unwrap();
    let id = hostile.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(id.len(), 16, "{id}");
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
}

/// The `clubroom` binary with no subcommand, its environment only, its output captured.
struct Served {
    child: Child,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn http(addr: &str, request: &str) -> Option<String> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(request.as_bytes()).ok()?;
    let mut got = String::new();
    s.read_to_string(&mut got).ok()?;
    Some(got)
}

#[test]
fn clubroom_with_no_subcommand_binds_clubroom_bind_and_logs_requests_without_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let log = dir.path().join("log.txt");
    let mut served = Served {
        child: Command::new(env!("CARGO_BIN_EXE_clubroom"))
            .env("CLUBROOM_BIND", &addr)
            .env(
                "DATABASE_URL",
                format!("sqlite://{}?mode=rwc", dir.path().join("c.db").display()),
            )
            .env("RUST_LOG", "info")
            .stdout(Stdio::from(std::fs::File::create(&log).unwrap()))
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    };
    let started = Instant::now();
    let health = loop {
        if let Some(h) = http(
            &addr,
            "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        ) {
            break h;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "nothing listens on CLUBROOM_BIND={addr}"
        );
        if let Some(status) = served.child.try_wait().unwrap() {
            panic!("clubroom exited: {status}");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    let secret = "0123456789abcdef-secret-token";
    let answer = http(
        &addr,
        &format!("GET /v1/matches/0123/events?token={secret}&after=0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {secret}\r\nX-Request-Id: log-check-1\r\nConnection: close\r\n\r\n"),
    )
    .unwrap();
    let status = &answer[9..12];
    assert!(answer.starts_with("HTTP/1.1 4"), "{answer}");
    std::thread::sleep(Duration::from_millis(300));
    drop(served);
    let text = std::fs::read_to_string(&log).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("log-check-1"))
        .unwrap_or_else(|| panic!("no access line for the request:\n{text}"));
    for field in [
        "method=GET",
        "path=/v1/matches/0123/events",
        &format!("status={status}"),
        "latency_us=",
    ] {
        assert!(line.contains(field), "{field} missing: {line}");
    }
    assert!(!text.contains(secret), "a token reached the log:\n{text}");
}

#[actix_web::test]
async fn a_reader_holding_the_current_version_gets_304_and_no_body() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 4, "table", json!({})).await;
    let base = format!("{}/v1/matches/{}", app.base, m.id);
    for path in ["", "/scores", "/legal?seat=1"] {
        let url = format!("{base}{path}");
        let fresh = app.client.get(&url).send().await.unwrap();
        assert_eq!(fresh.status(), StatusCode::OK, "{path}");
        let tag = fresh.headers()["etag"].to_str().unwrap().to_string();
        assert_eq!(tag, "\"0\"");
        for held in [tag.as_str(), "W/\"0\"", "\"7\", \"0\"", "*"] {
            let same = app
                .client
                .get(&url)
                .header("If-None-Match", held)
                .send()
                .await
                .unwrap();
            assert_eq!(same.status(), StatusCode::NOT_MODIFIED, "{path} {held}");
            assert_eq!(same.headers()["etag"], "\"0\"");
            assert!(same.bytes().await.unwrap().is_empty());
        }
    }
    // A write moves the version on: the old tag gets the new view.
    let dealt = app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    assert_eq!(dealt.status, StatusCode::CREATED);
    let moved = app
        .client
        .get(&base)
        .header("If-None-Match", "\"0\"")
        .send()
        .await
        .unwrap();
    assert_eq!(moved.status(), StatusCode::OK);
    assert_eq!(moved.headers()["etag"], "\"1\"");
    let view: Value = moved.json().await.unwrap();
    assert_eq!(view["seq"], json!(1));
}

#[actix_web::test]
async fn prefer_return_minimal_answers_the_event_and_what_changed() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 2, "table", json!({})).await;
    let send = |prefer: Option<&'static str>, key: &'static str| {
        let mut rb = app
            .client
            .post(format!("{}/v1/matches/{}/actions", app.base, m.id))
            .bearer_auth(&m.host)
            .header("Idempotency-Key", key)
            .json(&json!({"seat": null, "action": {"type": "deal"}}));
        if let Some(p) = prefer {
            rb = rb.header("Prefer", p);
        }
        rb.send()
    };
    let r = send(Some("handling=lenient, return=minimal"), "deal-1")
        .await
        .unwrap();
    // Its own status (200; the full answer is 201): a client tells the shapes apart by it.
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["preference-applied"], "return=minimal");
    assert_eq!(r.headers()["etag"], "\"1\"");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body.get("match"), None);
    assert_eq!(body["seq"], 1);
    assert_eq!(body["status"], "in_progress");
    assert_eq!(body["round"], 1);
    assert_eq!(body["event"]["seq"], 1);
    assert_eq!(body["event"]["action"], json!({"type": "deal"}));
    assert_eq!(body["to_act"], json!([1]));
    assert_eq!(body["table_to_act"], false);
    // The same request again replays the first answer, minimal as it was.
    let again = send(None, "deal-1").await.unwrap();
    assert_eq!(again.status(), StatusCode::OK);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(again.headers()["preference-applied"], "return=minimal");
    assert_eq!(again.headers()["etag"], "\"1\"");
    assert_eq!(again.json::<Value>().await.unwrap(), body);
    // Without the preference, the whole match.
    let full = app.undo(&m, &m.host).await;
    assert_eq!(full.status, StatusCode::CREATED);
    assert_eq!(full.body["match"]["seq"], 2);
    // An undo answered minimally: 200 too.
    let r = app
        .client
        .post(format!("{}/v1/matches/{}/actions", app.base, m.id))
        .bearer_auth(&m.host)
        .header("Prefer", "return=minimal")
        .json(&json!({"seat": null, "action": {"type": "deal"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = app
        .client
        .post(format!("{}/v1/matches/{}/undo", app.base, m.id))
        .bearer_auth(&m.host)
        .header("Prefer", "return=minimal")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["preference-applied"], "return=minimal");
    let body: Value = r.json().await.unwrap();
    assert_eq!((body["seq"].as_i64(), body.get("match")), (Some(4), None));
}

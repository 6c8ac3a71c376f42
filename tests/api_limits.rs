//! Per-client limits over HTTP: stream caps (per client, tokenless per match, per token), the
//! rate of unauthenticated creates, trusted proxies, and streams ending when the server stops.
//! Other clients come from other loopback addresses (127.0.0.2, ...: Linux routes all of
//! 127.0.0.0/8 to the loopback interface).

mod common;

use std::time::Duration;

use clubroom::{limits::Quotas, server::Stopper};
use common::{launch_with_quotas, TestApp};
use reqwest::{Client, Response, StatusCode};
use serde_json::{json, Value};

/// A server started with `quotas`, its stopper, and a client per loopback address.
struct Server {
    base: String,
    stopper: Stopper,
    done: tokio::sync::oneshot::Receiver<std::io::Result<()>>,
    _dir: Option<tempfile::TempDir>,
}

impl Server {
    async fn start(quotas: Quotas) -> Server {
        let l = launch_with_quotas(quotas).await;
        let (tx, done) = tokio::sync::oneshot::channel();
        let server = l.running.server;
        actix_web::rt::spawn(async move {
            let _ = tx.send(server.await);
        });
        Server {
            base: l.base,
            stopper: l.running.stopper,
            done,
            _dir: l.dir,
        }
    }
}

/// A client whose requests come from `127.0.0.<n>`.
fn client_from(n: u8) -> Client {
    Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, n]))
        .build()
        .unwrap()
}

/// Creates a 4-seat table-dealt Clubs match; returns (id, host token, seat tokens).
async fn create_match(c: &Client, base: &str) -> (String, String, Vec<String>) {
    let r = c
        .post(format!("{base}/v1/matches"))
        .json(&json!({"game": "clubs", "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let b: Value = r.json().await.unwrap();
    let seats = b["seat_tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    (
        b["match"]["id"].as_str().unwrap().to_string(),
        b["host_token"].as_str().unwrap().to_string(),
        seats,
    )
}

/// Opens a live stream of `id` (with `token`, if any).
async fn open(c: &Client, base: &str, id: &str, token: Option<&str>) -> Response {
    let mut rb = c.get(format!("{base}/v1/matches/{id}/stream"));
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    rb.send().await.unwrap()
}

/// Reads `r` until its text contains `needle`; false if the stream ended first.
async fn read_until(r: &mut Response, needle: &str) -> bool {
    let mut text = String::new();
    loop {
        let chunk = tokio::time::timeout(Duration::from_secs(10), r.chunk())
            .await
            .expect("a chunk or the end within 10 s");
        match chunk.expect("the stream reads") {
            Some(c) => {
                text.push_str(std::str::from_utf8(&c).unwrap());
                if text.contains(needle) {
                    return true;
                }
            }
            None => return false,
        }
    }
}

/// Reads `r` to its end (fails after 10 s without one).
async fn ends(r: &mut Response) -> bool {
    !read_until(r, "\u{0}never\u{0}").await
}

async fn problem(r: Response) -> (StatusCode, Option<String>, String, String) {
    let status = r.status();
    let retry = r
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    let ct = r.headers()["content-type"].to_str().unwrap().to_string();
    let b: Value = r.json().await.unwrap();
    (status, retry, b["code"].as_str().unwrap().to_string(), ct)
}

#[actix_web::test]
async fn one_client_past_the_default_stream_cap_gets_429_with_retry_after_while_another_client_still_streams(
) {
    let app = TestApp::spawn().await;
    let flooder = client_from(1);
    // Default caps: 256 streams a client, 128 tokenless ones a match; the flood spreads over
    // three matches so that the client's own cap is the one reached.
    let mut ids = vec![];
    for _ in 0..3 {
        ids.push(create_match(&flooder, &app.base).await.0);
    }
    let mut held = vec![];
    for i in 0..256 {
        let r = open(&flooder, &app.base, &ids[i % 3], None).await;
        assert_eq!(r.status(), StatusCode::OK, "stream {i}");
        held.push(r);
    }
    let (status, retry, code, ct) = problem(open(&flooder, &app.base, &ids[0], None).await).await;
    assert_eq!(
        (status, retry.as_deref(), code.as_str(), ct.as_str()),
        (
            StatusCode::TOO_MANY_REQUESTS,
            Some("5"),
            "too_many_streams",
            "application/problem+json"
        )
    );
    // Another client is served, on the same match.
    let mut other = open(&client_from(2), &app.base, &ids[0], None).await;
    assert_eq!(other.status(), StatusCode::OK);
    assert!(read_until(&mut other, "event: match").await);
    // A stream that ends frees its place at once: the flooder gets one again.
    let mut gone = held.pop().unwrap();
    drop(gone.chunk().await);
    drop(gone);
    let mut again = None;
    for _ in 0..100 {
        let r = open(&flooder, &app.base, &ids[0], None).await;
        if r.status() == StatusCode::OK {
            again = Some(r);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(again.is_some(), "a closed stream's place was not freed");
}

#[actix_web::test]
async fn tokenless_streams_of_one_match_are_capped_and_the_tables_own_tokens_are_still_served() {
    let app = TestApp::spawn().await;
    let c = client_from(1);
    let (id, host, seats) = create_match(&c, &app.base).await;
    let mut held = vec![];
    for i in 0..128 {
        let r = open(&c, &app.base, &id, None).await;
        assert_eq!(r.status(), StatusCode::OK, "stream {i}");
        held.push(r);
    }
    for from in [1, 3] {
        let (status, retry, code, _) =
            problem(open(&client_from(from), &app.base, &id, None).await).await;
        assert_eq!(
            (status, retry.as_deref(), code.as_str()),
            (StatusCode::TOO_MANY_REQUESTS, Some("5"), "too_many_streams"),
            "client 127.0.0.{from}"
        );
    }
    // The table's phones and host are served, and a write reaches them.
    let mut seat = open(&c, &app.base, &id, Some(&seats[2])).await;
    assert_eq!(seat.status(), StatusCode::OK);
    assert!(read_until(&mut seat, "event: match").await);
    let mut host_stream = open(&c, &app.base, &id, Some(&host)).await;
    assert_eq!(host_stream.status(), StatusCode::OK);
    assert!(read_until(&mut host_stream, "event: match").await);
    let deal = c
        .post(format!("{}/v1/matches/{id}/actions", app.base))
        .bearer_auth(&host)
        .json(&json!({"seat": null, "action": {"type": "deal"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(deal.status(), StatusCode::CREATED);
    assert!(read_until(&mut seat, "\"seq\":1").await);
    assert!(read_until(&mut host_stream, "\"seq\":1").await);
    assert!(read_until(&mut held[77], "\"seq\":1").await);
    // Another match's spectators are served.
    let (other, _, _) = create_match(&c, &app.base).await;
    assert_eq!(
        open(&c, &app.base, &other, None).await.status(),
        StatusCode::OK
    );
}

#[actix_web::test]
async fn unauthenticated_creates_past_the_default_burst_get_429_with_retry_after_and_write_nothing()
{
    let app = TestApp::spawn().await;
    let c = client_from(1);
    let started = std::time::Instant::now();
    // Players, tournaments (two entrants each, registered with it) and matches in turn, until
    // each kind has been refused once.
    let (mut created, mut refused) = ([0i64; 3], [0; 3]);
    let mut refused_names = vec![];
    let mut i = 0;
    while refused.contains(&0) {
        assert!(i < 400, "no 429 after {i} creates");
        let kind = i % 3;
        let name = format!("N{i}");
        let (path, body) = match kind {
            0 => ("/v1/players", json!({"name": name})),
            1 => (
                "/v1/tournaments",
                json!({"name": name, "game": "dump", "format": "round_robin",
                       "players": [{"name": format!("{name}a")}, {"name": format!("{name}b")}]}),
            ),
            _ => (
                "/v1/matches",
                json!({"game": "dump", "players": [{"name": "A"}, {"name": "B"}]}),
            ),
        };
        let r = c
            .post(format!("{}{path}", app.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        if r.status() == StatusCode::CREATED {
            created[kind] += 1;
        } else {
            let (status, retry, code, ct) = problem(r).await;
            assert_eq!(
                (status, code.as_str(), ct.as_str()),
                (
                    StatusCode::TOO_MANY_REQUESTS,
                    "too_many_creates",
                    "application/problem+json"
                ),
                "{path}"
            );
            // 60 a minute once the burst is spent: the next create is at most a second away.
            assert_eq!(retry.as_deref(), Some("1"), "{path}");
            refused[kind] += 1;
            refused_names.extend([name.clone(), format!("{name}a"), format!("{name}b")]);
        }
        i += 1;
    }
    // The burst of 120, and one more per second since.
    let total: i64 = created.iter().sum();
    let most = 120 + started.elapsed().as_secs() as i64 + 1;
    assert!((120..=most).contains(&total), "{total} creates allowed");
    // What was refused wrote nothing: the tables hold exactly what was created, and none of the
    // refused names (a refused tournament's entrants included).
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.database_url).await.unwrap();
    let count = |sql: String| {
        let pool = pool.clone();
        async move {
            sqlx::query_scalar::<_, i64>(&sql)
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    assert_eq!(
        count("SELECT COUNT(*) FROM players".into()).await,
        created[0] + 2 * created[1]
    );
    assert_eq!(
        count("SELECT COUNT(*) FROM tournaments".into()).await,
        created[1]
    );
    assert_eq!(
        count("SELECT COUNT(*) FROM matches".into()).await,
        created[2]
    );
    let listed = format!("'{}'", refused_names.join("','"));
    assert_eq!(
        count(format!(
            "SELECT COUNT(*) FROM players WHERE name IN ({listed})"
        ))
        .await,
        0
    );
    // Another client creates.
    let r = client_from(2)
        .post(format!("{}/v1/players", app.base))
        .json(&json!({"name": "Ada"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
}

#[actix_web::test]
async fn a_tokens_newest_stream_ends_its_oldest_past_the_cap_and_others_go_on() {
    let s = Server::start(Quotas {
        max_streams_per_token: 2,
        ..Quotas::default()
    })
    .await;
    let c = client_from(1);
    let (id, host, _) = create_match(&c, &s.base).await;
    let mut first = open(&c, &s.base, &id, Some(&host)).await;
    assert!(read_until(&mut first, "event: match").await);
    let mut second = open(&c, &s.base, &id, Some(&host)).await;
    assert!(read_until(&mut second, "event: match").await);
    let mut third = open(&c, &s.base, &id, Some(&host)).await;
    assert_eq!(third.status(), StatusCode::OK);
    assert!(read_until(&mut third, "event: match").await);
    assert!(
        ends(&mut first).await,
        "the oldest stream of the token ended"
    );
    let deal = c
        .post(format!("{}/v1/matches/{id}/actions", s.base))
        .bearer_auth(&host)
        .json(&json!({"seat": null, "action": {"type": "deal"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(deal.status(), StatusCode::CREATED);
    assert!(read_until(&mut second, "\"seq\":1").await);
    assert!(read_until(&mut third, "\"seq\":1").await);
}

#[actix_web::test]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_budget_and_no_one_else_can_pick_one(
) {
    let quotas = |trusted: &str| Quotas {
        creates_per_minute: 1,
        create_burst: 1,
        trusted_proxies: vec![trusted.parse().unwrap()],
        ..Quotas::default()
    };
    let create = |c: Client, base: String, xff: &'static str| async move {
        c.post(format!("{base}/v1/players"))
            .header("x-forwarded-for", xff)
            .json(&json!({"name": "Ada"}))
            .send()
            .await
            .unwrap()
            .status()
    };
    // The proxy is 127.0.0.1: the client is the hop it adds.
    let s = Server::start(quotas("127.0.0.1/32")).await;
    let proxy = client_from(1);
    let b = s.base.clone();
    assert_eq!(
        create(proxy.clone(), b.clone(), "203.0.113.1").await,
        StatusCode::CREATED
    );
    assert_eq!(
        create(proxy.clone(), b.clone(), "198.51.100.9, 203.0.113.1").await,
        StatusCode::TOO_MANY_REQUESTS
    );
    assert_eq!(
        create(proxy.clone(), b.clone(), "203.0.113.2").await,
        StatusCode::CREATED
    );
    // Not the proxy: its X-Forwarded-For is ignored, whatever it says.
    let direct = client_from(5);
    assert_eq!(
        create(direct.clone(), b.clone(), "203.0.113.3").await,
        StatusCode::CREATED
    );
    assert_eq!(
        create(direct.clone(), b.clone(), "203.0.113.4").await,
        StatusCode::TOO_MANY_REQUESTS
    );
}

#[actix_web::test]
async fn every_stream_ends_at_once_when_the_server_stops_and_the_server_stops() {
    let s = Server::start(Quotas::default()).await;
    let c = client_from(1);
    let (id, host, _) = create_match(&c, &s.base).await;
    let mut streams = vec![];
    for token in [None, Some(host.as_str())] {
        let mut r = open(&c, &s.base, &id, token).await;
        assert!(read_until(&mut r, "event: match").await);
        streams.push(r);
    }
    s.stopper.stop();
    for r in &mut streams {
        // Told to come back soon (to the server's successor), then ended.
        assert!(
            read_until(
                r,
                "retry: 500\nevent: reconnect\ndata: {\"code\":\"server_stopping\""
            )
            .await,
            "a stream was told to reconnect"
        );
        assert!(ends(r).await, "a stream ended when the server stopped");
    }
    let done = tokio::time::timeout(Duration::from_secs(10), s.done)
        .await
        .expect("the server stopped within 10 s");
    assert!(done.unwrap().is_ok());
    // Nothing listens any more.
    assert!(c.get(format!("{}/healthz", s.base)).send().await.is_err());
}

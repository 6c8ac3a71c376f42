//! Webhooks (issue 23) over HTTP, with a real receiver on loopback (allowed by the operator's
//! option, as `CLUBROOM_WEBHOOKS_ALLOW_PRIVATE=1` does): signed deliveries of every kind of
//! event with exact payloads, the signature checked here with its own HMAC, retries after a
//! failing receiver, redelivery under the same id, the delivery log, the SSRF refusals at
//! registration and at delivery, who may register, and no secret in any payload.

mod common;

use std::{
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use clubroom::webhooks::WebhookOptions;
use common::{Match, TestApp};
use hmac::{Hmac, Mac};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sha2::Sha256;

/// What the receiver got: the headers that matter and the raw body.
#[derive(Clone, Debug)]
struct Got {
    delivery: String,
    event: String,
    signature: String,
    body: String,
}

impl Got {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap()
    }
}

/// A webhook receiver on 127.0.0.1: records every request; answers 500 to the first `fail`.
struct Receiver {
    url: String,
    got: Arc<Mutex<Vec<Got>>>,
}

struct ReceiverState {
    got: Arc<Mutex<Vec<Got>>>,
    fail: AtomicUsize,
}

async fn receive(
    state: web::Data<ReceiverState>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string()
    };
    state.got.lock().unwrap().push(Got {
        delivery: header("clubroom-delivery"),
        event: header("clubroom-event"),
        signature: header("clubroom-signature"),
        body: String::from_utf8(body.to_vec()).unwrap(),
    });
    let failing = state
        .fail
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok();
    if failing {
        HttpResponse::InternalServerError().body("not now")
    } else {
        HttpResponse::NoContent().finish()
    }
}

impl Receiver {
    async fn start(fail: usize) -> Receiver {
        let got = Arc::new(Mutex::new(vec![]));
        let state = web::Data::new(ReceiverState {
            got: got.clone(),
            fail: AtomicUsize::new(fail),
        });
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .route("/hook", web::post().to(receive))
        })
        .workers(1)
        .listen(listener)
        .unwrap()
        .run();
        actix_web::rt::spawn(server);
        Receiver {
            url: format!("http://127.0.0.1:{port}/hook"),
            got,
        }
    }

    fn got(&self) -> Vec<Got> {
        self.got.lock().unwrap().clone()
    }

    /// Waits (up to 30 s) until the receiver holds at least `n` requests; returns them.
    async fn wait_for(&self, n: usize) -> Vec<Got> {
        for _ in 0..600 {
            let got = self.got();
            if got.len() >= n {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the receiver got {:?}, not {n} requests", self.got());
    }
}

/// The options of the tests: loopback allowed, fast polling and retries.
fn options(allow_private: bool) -> WebhookOptions {
    WebhookOptions {
        allow_private,
        retry_base: Duration::from_millis(100),
        retry_max: Duration::from_secs(1),
        poll: Duration::from_millis(50),
        timeout: Duration::from_secs(5),
        worker: true,
    }
}

/// The signature as a receiver checks it, written here independently of the service's code:
/// `t=<secs>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
fn signed_by(secret: &str, got: &Got) -> bool {
    let (t, v1) = got.signature.split_once(",v1=").expect("t=...,v1=... form");
    let t = t.strip_prefix("t=").expect("t= first");
    let now = chrono::Utc::now().timestamp();
    let age = now - t.parse::<i64>().unwrap();
    assert!((0..300).contains(&age), "timestamp {t} is not recent");
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.{}", got.body).as_bytes());
    mac.verify_slice(&hex::decode(v1).unwrap()).is_ok()
}

async fn register(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> common::Answer {
    app.request(Method::POST, path, token, &[], Some(body))
        .await
}

/// Registers a webhook; panics unless 201. Returns (webhook id, secret).
async fn registered(
    app: &TestApp,
    owner: &str,
    token: &str,
    url: &str,
    events: Value,
) -> (String, String) {
    let a = register(
        app,
        &format!("{owner}/webhooks"),
        Some(token),
        json!({"url": url, "events": events}),
    )
    .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    (
        a.body["webhook"]["id"].as_str().unwrap().to_string(),
        a.body["secret"].as_str().unwrap().to_string(),
    )
}

fn tally(points: [i64; 2]) -> Value {
    json!({"type": "tally", "points": points})
}

/// A Dump match to 30 played as two tallied deals of 100 to 60: the sheet gains two lines and
/// the match ends (totals 20 and 40 to 0).
async fn play_two_deals(app: &TestApp, m: &Match) -> Value {
    for _ in 0..2 {
        let a = app.act(m, &m.host, None, tally([100, 60])).await;
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    }
    app.get(&format!("/v1/matches/{}/scores", m.id), None)
        .await
        .body
}

#[actix_web::test]
async fn a_matchs_events_reach_a_loopback_receiver_signed_with_exact_payloads() {
    let app = TestApp::spawn_with_webhooks(options(true)).await;
    let rx = Receiver::start(0).await;
    let m = app.create("dump", 2, "table", json!({"target": 30})).await;
    let owner = format!("/v1/matches/{}", m.id);
    let (hook, secret) = registered(
        &app,
        &owner,
        &m.host,
        &rx.url,
        json!(["deal.scored", "match.finished", "deal.scored"]),
    )
    .await;
    assert!(
        secret.starts_with("whsec_") && secret.len() == 70,
        "{secret}"
    );
    let listed = app.get(&format!("{owner}/webhooks"), Some(&m.host)).await;
    assert_eq!(listed.status, StatusCode::OK);
    assert_eq!(
        listed.body["webhooks"],
        json!([{"id": hook, "url": rx.url, "events": ["deal.scored", "match.finished"],
                "created_at": listed.body["webhooks"][0]["created_at"]}]),
        "the secret is shown once, never in a list"
    );
    let sheet = play_two_deals(&app, &m).await;
    assert_eq!(sheet["totals"], json!([40, 0]));
    let got = rx.wait_for(3).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(rx.got().len(), 3, "one delivery per event: {:?}", rx.got());
    for g in &got {
        assert!(signed_by(&secret, g), "bad signature on {g:?}");
        assert!(!signed_by("whsec_another", g));
        let body = g.json();
        assert_eq!(
            body["id"],
            json!(g.delivery),
            "the body's id is the header's"
        );
        assert_eq!(body["type"], json!(g.event));
    }
    let mut bodies: Vec<Value> = got.iter().map(|g| g.json()).collect();
    bodies.sort_by_key(|b| {
        (
            b["data"]["seq"].as_i64(),
            b["type"].as_str().map(String::from),
        )
    });
    let data: Vec<(Value, Value)> = bodies
        .iter()
        .map(|b| (b["type"].clone(), b["data"].clone()))
        .collect();
    assert_eq!(
        data,
        vec![
            (
                json!("deal.scored"),
                json!({"match_id": m.id, "game": "dump", "seq": 1, "line": 1,
                   "label": sheet["rounds"][0]["label"], "points": [20, 0], "totals": [20, 0]})
            ),
            (
                json!("deal.scored"),
                json!({"match_id": m.id, "game": "dump", "seq": 2, "line": 2,
                   "label": sheet["rounds"][1]["label"], "points": [20, 0], "totals": [40, 0]})
            ),
            (
                json!("match.finished"),
                json!({"match_id": m.id, "game": "dump", "seq": 2,
                   "status": "finished", "totals": [40, 0], "winners": [0]})
            ),
        ]
    );
    let kinds: Vec<&str> = got.iter().map(|g| g.event.as_str()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "deal.scored").count(), 2);
    assert_eq!(kinds.iter().filter(|k| **k == "match.finished").count(), 1);
    // The delivery log: newest first, each delivered at the first attempt, paged.
    let log_path = format!("{owner}/webhooks/{hook}/deliveries");
    let mut log = vec![];
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("{log_path}?limit=2&cursor={c}"),
            None => format!("{log_path}?limit=2"),
        };
        let page = app.get(&path, Some(&m.host)).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.text);
        log.extend(page.body["deliveries"].as_array().unwrap().clone());
        match page.body["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(log.len(), 3);
    for d in &log {
        assert_eq!(d["state"], "delivered", "{d}");
        assert_eq!(d["attempts"], 1);
        assert_eq!(d["last_status"], 204);
        assert_eq!(d["next_attempt_at"], Value::Null);
        let g = got
            .iter()
            .find(|g| g.delivery == d["id"])
            .expect("delivered");
        assert_eq!(d["payload"], g.json());
    }
    let mut ids: Vec<&str> = got.iter().map(|g| g.delivery.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 3, "each delivery has its own id");
    // Redelivery: the same id and body again.
    let first = &log[2];
    let again = app
        .request(
            Method::POST,
            &format!("{log_path}/{}/redeliver", first["id"].as_str().unwrap()),
            Some(&m.host),
            &[],
            None,
        )
        .await;
    assert_eq!(again.status, StatusCode::ACCEPTED, "{}", again.text);
    assert_eq!(again.body["state"], "pending");
    let got = rx.wait_for(4).await;
    assert_eq!(got[3].delivery, first["id"].as_str().unwrap());
    assert_eq!(got[3].json(), first["payload"]);
    assert!(signed_by(&secret, &got[3]));
    // Deleted: nothing more is delivered, and it is gone from the list.
    let gone = app
        .request(
            Method::DELETE,
            &format!("{owner}/webhooks/{hook}"),
            Some(&m.host),
            &[],
            None,
        )
        .await;
    assert_eq!(gone.status, StatusCode::NO_CONTENT, "{}", gone.text);
    let listed = app.get(&format!("{owner}/webhooks"), Some(&m.host)).await;
    assert_eq!(listed.body["webhooks"], json!([]));
    let u = app.undo(&m, &m.host).await;
    assert_eq!(u.status, StatusCode::CREATED);
    let a = app.act(&m, &m.host, None, tally([100, 60])).await;
    assert_eq!(a.status, StatusCode::CREATED);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(rx.got().len(), 4, "nothing after deletion");
    let log = app.get(&log_path, Some(&m.host)).await;
    assert_eq!(log.status, StatusCode::NOT_FOUND);
    assert_eq!(log.code(), "webhook_not_found");
}

#[actix_web::test]
async fn a_receiver_that_fails_twice_gets_the_same_delivery_on_the_third_attempt() {
    let app = TestApp::spawn_with_webhooks(options(true)).await;
    let rx = Receiver::start(2).await;
    let m = app
        .create("dump", 2, "table", json!({"target": 1000}))
        .await;
    let owner = format!("/v1/matches/{}", m.id);
    let (hook, secret) = registered(&app, &owner, &m.host, &rx.url, json!(["deal.scored"])).await;
    let a = app.act(&m, &m.host, None, tally([100, 60])).await;
    assert_eq!(a.status, StatusCode::CREATED);
    let got = rx.wait_for(3).await;
    assert_eq!(got[0].delivery, got[1].delivery);
    assert_eq!(got[1].delivery, got[2].delivery);
    assert_eq!(got[0].body, got[2].body);
    assert!(got.iter().all(|g| signed_by(&secret, g)));
    // Recorded once the third attempt is answered.
    let mut d = Value::Null;
    for _ in 0..100 {
        let log = app
            .get(
                &format!("{owner}/webhooks/{hook}/deliveries"),
                Some(&m.host),
            )
            .await;
        d = log.body["deliveries"][0].clone();
        if d["state"] == "delivered" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(d["state"], "delivered", "{d}");
    assert_eq!(d["attempts"], 3);
    assert_eq!(d["last_status"], 204);
    assert_eq!(
        d["last_error"],
        Value::Null,
        "a delivered delivery has no error"
    );
    assert_eq!(rx.got().len(), 3);
}

#[actix_web::test]
async fn a_tournaments_rounds_results_and_completion_are_delivered_once_each() {
    let app = TestApp::spawn_with_webhooks(options(true)).await;
    let rx = Receiver::start(0).await;
    let names: Vec<Value> = (0..4).map(|i| json!({"name": format!("P{i}")})).collect();
    let t = app
        .request(
            Method::POST,
            "/v1/tournaments",
            None,
            &[],
            Some(
                json!({"name": "Hooks", "game": "dump", "format": "round_robin",
                        "table_size": 2, "record": "totals", "players": names}),
            ),
        )
        .await;
    assert_eq!(t.status, StatusCode::CREATED, "{}", t.text);
    let id = t.body["tournament"]["id"].as_str().unwrap().to_string();
    let org = t.body["organiser_token"].as_str().unwrap().to_string();
    let owner = format!("/v1/tournaments/{id}");
    let (_, secret) = registered(
        &app,
        &owner,
        &org,
        &rx.url,
        json!(["round.paired", "result.entered", "round.complete"]),
    )
    .await;
    let r = app
        .request(
            Method::POST,
            &format!("{owner}/rounds"),
            Some(&org),
            &[],
            Some(json!({})),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    for table in 1..=2 {
        let e = app
            .request(
                Method::PUT,
                &format!("{owner}/rounds/1/tables/{table}/result"),
                Some(&org),
                &[],
                Some(json!({"totals": [100, 60]})),
            )
            .await;
        assert_eq!(e.status, StatusCode::OK, "{}", e.text);
    }
    // A correction of a complete round's table: result.entered again, not round.complete.
    let e = app
        .request(
            Method::PUT,
            &format!("{owner}/rounds/1/tables/2/result"),
            Some(&org),
            &[],
            Some(json!({"totals": [60, 100]})),
        )
        .await;
    assert_eq!(e.status, StatusCode::OK, "{}", e.text);
    let got = rx.wait_for(5).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let got_all = rx.got();
    assert_eq!(got_all.len(), 5, "{got_all:?}");
    assert!(got.iter().all(|g| signed_by(&secret, g)));
    let mut data: Vec<(String, Value)> = got_all
        .iter()
        .map(|g| (g.event.clone(), g.json()["data"].clone()))
        .collect();
    data.sort_by_key(|(k, d)| (k.clone(), d["table"].as_i64(), d["version"].as_i64()));
    assert_eq!(
        data,
        vec![
            (
                "result.entered".into(),
                json!({"tournament_id": id, "round": 1, "table": 1, "version": 1, "totals": [100, 60]})
            ),
            (
                "result.entered".into(),
                json!({"tournament_id": id, "round": 1, "table": 2, "version": 1, "totals": [100, 60]})
            ),
            (
                "result.entered".into(),
                json!({"tournament_id": id, "round": 1, "table": 2, "version": 2, "totals": [60, 100]})
            ),
            (
                "round.complete".into(),
                json!({"tournament_id": id, "round": 1})
            ),
            (
                "round.paired".into(),
                json!({"tournament_id": id, "round": 1,
                "tables": [{"table": 1, "match_id": null}, {"table": 2, "match_id": null}]})
            ),
        ]
    );
}

#[actix_web::test]
async fn a_tournament_hears_of_its_tables_matches_and_the_round_they_complete() {
    let app = TestApp::spawn_with_webhooks(options(true)).await;
    let rx = Receiver::start(0).await;
    let names: Vec<Value> = (0..4).map(|i| json!({"name": format!("P{i}")})).collect();
    let t = app
        .request(
            Method::POST,
            "/v1/tournaments",
            None,
            &[],
            Some(
                json!({"name": "Tables", "game": "dump", "format": "round_robin",
                        "table_size": 2, "config": {"target": 1}, "players": names}),
            ),
        )
        .await;
    assert_eq!(t.status, StatusCode::CREATED, "{}", t.text);
    let id = t.body["tournament"]["id"].as_str().unwrap().to_string();
    let org = t.body["organiser_token"].as_str().unwrap().to_string();
    let owner = format!("/v1/tournaments/{id}");
    let (_, secret) = registered(
        &app,
        &owner,
        &org,
        &rx.url,
        json!(["match.finished", "round.complete"]),
    )
    .await;
    let r = app
        .request(
            Method::POST,
            &format!("{owner}/rounds"),
            Some(&org),
            &[],
            Some(json!({})),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let tokens = r.body["tokens"].as_array().unwrap().clone();
    assert_eq!(tokens.len(), 2);
    let mut match_ids = vec![];
    for tk in &tokens {
        let m = Match {
            id: tk["match_id"].as_str().unwrap().to_string(),
            host: tk["host_token"].as_str().unwrap().to_string(),
            seats: vec![],
            body: Value::Null,
        };
        let a = app.act(&m, &m.host, None, tally([100, 60])).await;
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
        assert_eq!(a.body["match"]["status"], "finished");
        match_ids.push(m.id);
    }
    rx.wait_for(3).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let got = rx.got();
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(got.iter().all(|g| signed_by(&secret, g)));
    let finished: Vec<Value> = got
        .iter()
        .filter(|g| g.event == "match.finished")
        .map(|g| g.json()["data"].clone())
        .collect();
    assert_eq!(finished.len(), 2);
    for (table, m) in match_ids.iter().enumerate() {
        let d = finished.iter().find(|d| d["match_id"] == json!(m)).unwrap();
        assert_eq!(
            *d,
            json!({"match_id": m, "game": "dump", "seq": 1, "status": "finished",
                   "totals": [20, 0], "winners": [0],
                   "tournament": {"id": id, "round": 1, "table": table + 1}})
        );
    }
    let complete: Vec<&Got> = got.iter().filter(|g| g.event == "round.complete").collect();
    assert_eq!(complete.len(), 1);
    assert_eq!(
        complete[0].json()["data"],
        json!({"tournament_id": id, "round": 1})
    );
}

#[actix_web::test]
async fn urls_reaching_the_servers_own_network_are_refused() {
    let app = TestApp::spawn_with_webhooks(options(false)).await;
    let m = app.create("dump", 2, "table", json!({})).await;
    let path = format!("/v1/matches/{}/webhooks", m.id);
    for url in [
        "http://127.0.0.1:8080/hook",
        "http://10.1.2.3/hook",
        "https://169.254.169.254/latest/meta-data/",
        "http://[::1]:8080/hook",
        "http://localhost:8080/hook",
        "http://0.0.0.0/",
        "http://100.64.0.1/",
        "http://[::ffff:127.0.0.1]/",
        "http://192.168.0.1/",
    ] {
        let a = register(
            &app,
            &path,
            Some(&m.host),
            json!({"url": url, "events": ["deal.scored"]}),
        )
        .await;
        assert_eq!(
            a.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{url}: {}",
            a.text
        );
        assert_eq!(a.code(), "webhook_url_forbidden", "{url}");
        assert!(
            !a.text.contains("127.0.0.1") || url.contains("127.0.0.1"),
            "{url}: the resolved address is not told: {}",
            a.text
        );
    }
    for (url, code) in [
        ("ftp://example.org/hook", "webhook_url_invalid"),
        ("file:///etc/passwd", "webhook_url_invalid"),
        ("https://user:pw@example.org/", "webhook_url_invalid"),
        ("not a url", "webhook_url_invalid"),
        (
            "http://no-such-host.invalid/hook",
            "webhook_url_unresolvable",
        ),
    ] {
        let a = register(
            &app,
            &path,
            Some(&m.host),
            json!({"url": url, "events": ["deal.scored"]}),
        )
        .await;
        assert_eq!(
            a.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{url}: {}",
            a.text
        );
        assert_eq!(a.code(), code, "{url}");
    }
    for (events, status, code) in [
        (json!([]), 422, "webhook_events_invalid"),
        (json!(["round.paired"]), 422, "webhook_events_invalid"),
        (json!(["deal.dealt"]), 400, "invalid_body"),
    ] {
        let a = register(
            &app,
            &path,
            Some(&m.host),
            json!({"url": "http://10.0.0.1/", "events": events}),
        )
        .await;
        assert_eq!(a.status.as_u16(), status, "{events}: {}", a.text);
        assert_eq!(a.code(), code, "{events}");
    }
    let listed = app.get(&path, Some(&m.host)).await;
    assert_eq!(listed.body["webhooks"], json!([]), "nothing registered");
}

#[actix_web::test]
async fn a_url_that_turned_private_is_checked_again_at_delivery() {
    // One instance allows loopback and registers; the delivering one does not: the receiver
    // gets nothing, and the log says why.
    let lenient = options(true);
    let registering = TestApp::spawn_with_webhooks(WebhookOptions {
        worker: false,
        ..lenient
    })
    .await;
    let strict = TestApp::on_with_webhooks(&registering.database_url, options(false)).await;
    let rx = Receiver::start(0).await;
    let m = registering
        .create("dump", 2, "table", json!({"target": 1000}))
        .await;
    let owner = format!("/v1/matches/{}", m.id);
    let (hook, _) = registered(
        &registering,
        &owner,
        &m.host,
        &rx.url,
        json!(["deal.scored"]),
    )
    .await;
    let a = strict.act(&m, &m.host, None, tally([100, 60])).await;
    assert_eq!(a.status, StatusCode::CREATED);
    let mut d = Value::Null;
    for _ in 0..200 {
        let log = strict
            .get(
                &format!("{owner}/webhooks/{hook}/deliveries"),
                Some(&m.host),
            )
            .await;
        d = log.body["deliveries"][0].clone();
        if d["attempts"].as_i64().unwrap_or(0) >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(d["attempts"].as_i64().unwrap() >= 2, "{d}");
    assert_eq!(d["state"], "pending");
    assert_eq!(d["last_status"], Value::Null);
    assert!(
        d["last_error"]
            .as_str()
            .unwrap()
            .contains("non-public address"),
        "{d}"
    );
    assert!(rx.got().is_empty(), "{:?}", rx.got());
}

#[actix_web::test]
async fn only_the_host_or_the_organiser_manages_webhooks() {
    let app = TestApp::spawn_with_webhooks(options(true)).await;
    let m = app.create("dump", 2, "table", json!({})).await;
    let other = app.create("dump", 2, "table", json!({})).await;
    let path = format!("/v1/matches/{}/webhooks", m.id);
    let body = json!({"url": "http://127.0.0.1:9/hook", "events": ["deal.scored"]});
    for (token, status, code) in [
        (None, 401, "unauthorized"),
        (Some(m.seats[0].as_str()), 403, "host_only"),
        (Some(other.host.as_str()), 401, "unauthorized"),
    ] {
        let a = register(&app, &path, token, body.clone()).await;
        assert_eq!(a.status.as_u16(), status, "{}", a.text);
        assert_eq!(a.code(), code);
        let l = app.get(&path, token).await;
        assert_eq!(l.status.as_u16(), status, "{}", l.text);
        assert_eq!(l.code(), code);
    }
    let (hook, _) = registered(
        &app,
        &format!("/v1/matches/{}", m.id),
        &m.host,
        "http://127.0.0.1:9/hook",
        json!(["deal.scored"]),
    )
    .await;
    // Another match's host cannot reach this match's webhook through its own match either.
    let cross = app
        .get(
            &format!("/v1/matches/{}/webhooks/{hook}/deliveries", other.id),
            Some(&other.host),
        )
        .await;
    assert_eq!(cross.status, StatusCode::NOT_FOUND);
    assert_eq!(cross.code(), "webhook_not_found");
    let seat_del = app
        .request(
            Method::DELETE,
            &format!("{path}/{hook}"),
            Some(&m.seats[1]),
            &[],
            None,
        )
        .await;
    assert_eq!(seat_del.status, StatusCode::FORBIDDEN);
    assert_eq!(seat_del.code(), "host_only");
    let t = app
        .request(
            Method::POST,
            "/v1/tournaments",
            None,
            &[],
            Some(
                json!({"name": "T", "game": "dump", "format": "round_robin", "table_size": 2,
                        "record": "totals", "players": [{"name": "A"}, {"name": "B"}]}),
            ),
        )
        .await;
    assert_eq!(t.status, StatusCode::CREATED, "{}", t.text);
    let tpath = format!(
        "/v1/tournaments/{}/webhooks",
        t.body["tournament"]["id"].as_str().unwrap()
    );
    for (token, status, code) in [
        (None, 401, "unauthorized"),
        (Some(m.host.as_str()), 403, "organiser_only"),
    ] {
        let a = register(
            &app,
            &tpath,
            token,
            json!({"url": "http://127.0.0.1:9/", "events": ["round.paired"]}),
        )
        .await;
        assert_eq!(a.status.as_u16(), status, "{}", a.text);
        assert_eq!(a.code(), code);
    }
    let missing = register(
        &app,
        "/v1/matches/0123456789abcdef0123456789abcdef/webhooks",
        Some(&m.host),
        body,
    )
    .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.code(), "match_not_found");
}

#[actix_web::test]
async fn payloads_carry_no_hand_seed_or_token_of_a_service_dealt_match() {
    let app = TestApp::spawn_with_webhooks(options(true)).await;
    let rx = Receiver::start(0).await;
    let m = app.create("clubs", 4, "service", json!({})).await;
    registered(
        &app,
        &format!("/v1/matches/{}", m.id),
        &m.host,
        &rx.url,
        json!(["deal.scored", "match.finished"]),
    )
    .await;
    // One whole deal, card by card.
    let mut lines = 0;
    for step in 0..200 {
        let sheet = app
            .get(&format!("/v1/matches/{}/scores", m.id), None)
            .await
            .body;
        lines = sheet["rounds"].as_array().unwrap().len();
        if lines >= 1 {
            break;
        }
        app.play(&m, 7 + step, Some(1)).await;
    }
    assert_eq!(lines, 1);
    let got = rx.wait_for(1).await;
    assert_eq!(got.len(), 1);
    let body = &got[0].body;
    for secret in m.seats.iter().chain([&m.host]) {
        assert!(!body.contains(secret.as_str()), "a token in {body}");
    }
    for word in ["seed", "hand", "token", "secret"] {
        assert!(!body.contains(word), "{word} in {body}");
    }
    let data = got[0].json()["data"].clone();
    let mut keys: Vec<&str> = data
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        vec!["game", "label", "line", "match_id", "points", "seq", "totals"]
    );
}

/// A registration still committing while an event is written: the event's transaction waits
/// for it and hears of the webhook. (The registration is played by a transaction of the test
/// on the database itself, held open while the event is sent: on PostgreSQL it holds the
/// match's row for update as a registration does; on SQLite it holds the one write lock.)
/// Before, whether a match had a webhook was read outside the event's transaction, and this
/// event was lost.
#[actix_web::test]
async fn a_webhook_registered_while_an_event_is_written_hears_of_it() {
    use sqlx::{Connection, Executor};
    let app = TestApp::spawn_with_webhooks(options(true)).await;
    let rx = Receiver::start(0).await;
    let m = app
        .create("dump", 2, "table", json!({"target": 1000}))
        .await;
    let insert = "INSERT INTO webhooks (id, owner_kind, owner_id, url, events, secret, created_at) \
                  VALUES ($1, 'match', $2, $3, ',deal.scored,', 'test-secret', '2026-11-27T00:00:00.000000Z')";
    let hook = "0123456789abcdef0123456789abcdef";
    let act = {
        let (base, id, host) = (app.base.clone(), m.id.clone(), m.host.clone());
        move || {
            let client = reqwest::Client::new();
            actix_web::rt::spawn(async move {
                client
                    .post(format!("{base}/v1/matches/{id}/actions"))
                    .bearer_auth(host)
                    .json(&json!({"seat": null, "action": tally([100, 60])}))
                    .send()
                    .await
                    .unwrap()
                    .status()
            })
        }
    };
    let sent = if app.database_url.starts_with("postgres") {
        let mut c = sqlx::PgConnection::connect(&app.database_url)
            .await
            .unwrap();
        let mut tx = c.begin().await.unwrap();
        tx.execute(sqlx::query("SELECT 1 FROM matches WHERE id = $1 FOR UPDATE").bind(&m.id))
            .await
            .unwrap();
        tx.execute(sqlx::query(insert).bind(hook).bind(&m.id).bind(&rx.url))
            .await
            .unwrap();
        let sent = act();
        tokio::time::sleep(Duration::from_millis(400)).await;
        tx.commit().await.unwrap();
        sent
    } else {
        let mut c = sqlx::SqliteConnection::connect(&app.database_url)
            .await
            .unwrap();
        c.execute("BEGIN IMMEDIATE").await.unwrap();
        c.execute(sqlx::query(insert).bind(hook).bind(&m.id).bind(&rx.url))
            .await
            .unwrap();
        let sent = act();
        tokio::time::sleep(Duration::from_millis(400)).await;
        c.execute("COMMIT").await.unwrap();
        sent
    };
    assert_eq!(sent.await.unwrap(), StatusCode::CREATED);
    let got = rx.wait_for(1).await;
    assert_eq!(got[0].event, "deal.scored");
    assert_eq!(got[0].json()["data"]["match_id"], m.id.as_str());
    // And the next event too, once.
    let a = app.act(&m, &m.host, None, tally([100, 60])).await;
    assert_eq!(a.status, StatusCode::CREATED);
    let got = rx.wait_for(2).await;
    assert_eq!(got.len(), 2);
}

//! The API test harness: the real app on port 0 over a fresh database per test (a temporary
//! SQLite file; or, when `TEST_DATABASE_URL` names a PostgreSQL server, a new database on it),
//! and typed helpers for each call.
#![allow(dead_code)]

pub mod probe;

use std::net::TcpListener;

use reqwest::{Client, Method, StatusCode};
use serde_json::{json, Value};

/// The operator token of every test app: it lists every match.
pub const OPERATOR: &str = "the-operator-token-of-the-tests";

/// A running app.
pub struct TestApp {
    pub base: String,
    pub client: Client,
    pub database_url: String,
    _dir: Option<tempfile::TempDir>,
}

/// A created match with its tokens.
pub struct Match {
    pub id: String,
    pub host: String,
    pub seats: Vec<String>,
    pub body: Value,
}

/// An answer: status, headers we care about, JSON body (or text).
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub etag: Option<String>,
    pub retry_after: Option<String>,
    pub content_type: String,
    pub body: Value,
    pub text: String,
}

impl Answer {
    /// The problem `code` of an error answer.
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or("")
    }
}

/// A fresh database URL for one test.
pub async fn fresh_database() -> (String, Option<tempfile::TempDir>) {
    match std::env::var("TEST_DATABASE_URL") {
        Ok(admin) if admin.starts_with("postgres") => {
            use sqlx::Connection;
            let name = format!("clubroom_t_{}", hex::encode(rand::random::<[u8; 6]>()));
            let mut conn = sqlx::PgConnection::connect(&admin)
                .await
                .expect("connect to TEST_DATABASE_URL");
            sqlx::query(&format!("CREATE DATABASE {name}"))
                .execute(&mut conn)
                .await
                .expect("create test database");
            let base = admin
                .rsplit_once('/')
                .map(|(b, _)| b.to_string())
                .unwrap_or(admin.clone());
            (format!("{base}/{name}"), None)
        }
        _ => {
            let dir = tempfile::tempdir().expect("temp dir");
            let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
            (url, Some(dir))
        }
    }
}

/// The store options of every test server: the defaults (a request waits 3 s for a connection,
/// as tests/api_storage.rs's outage tests rely on), but a generous start-up connect: a fresh
/// PostgreSQL database's first connection reads its catalogue from disk, and CI's PostgreSQL
/// pass runs reniced beside builds and browsers on two cores (a 3 s start-up bound failed there).
pub fn store_options() -> clubroom::store::StoreOptions {
    clubroom::store::StoreOptions {
        connect_timeout: std::time::Duration::from_secs(60),
        ..Default::default()
    }
}

/// A server launched on a fresh database with `quotas` (and the operator token [`OPERATOR`]).
pub struct Launched {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    /// Its database.
    pub url: String,
    /// The server (not yet spawned) and its stopper.
    pub running: clubroom::server::Running,
    /// The SQLite file's directory, kept while the test runs.
    pub dir: Option<tempfile::TempDir>,
}

/// Launches the server as `clubroom serve` would, with `quotas`, on a fresh database.
pub async fn launch_with_quotas(quotas: clubroom::limits::Quotas) -> Launched {
    let (url, dir) = fresh_database().await;
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind port 0");
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let running = clubroom::server::launch(
        listener,
        clubroom::server::Settings {
            quotas,
            operator_token: Some(OPERATOR.to_string()),
            store_options: store_options(),
            ..clubroom::server::Settings::new(&url)
        },
    )
    .await
    .expect("server starts");
    Launched {
        base,
        url,
        running,
        dir,
    }
}

impl TestApp {
    /// Starts the app on a fresh database.
    pub async fn spawn() -> TestApp {
        let (url, dir) = fresh_database().await;
        let mut app = TestApp::on(&url).await;
        app._dir = dir;
        app
    }

    /// A client of a server already running at `base` over `database_url` (started by the
    /// test itself, e.g. with [`launch_with_quotas`], to stop it).
    pub fn at(base: &str, database_url: &str) -> TestApp {
        TestApp {
            base: base.to_string(),
            client: Client::new(),
            database_url: database_url.to_string(),
            _dir: None,
        }
    }

    /// Starts (another) app on an existing database.
    pub async fn on(database_url: &str) -> TestApp {
        TestApp::on_with(database_url, store_options()).await
    }

    /// Starts (another) app on an existing database, with explicit store options.
    pub async fn on_with(database_url: &str, options: clubroom::store::StoreOptions) -> TestApp {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind port 0");
        let port = listener.local_addr().unwrap().port();
        let server = clubroom::server::start_with_store(
            listener,
            database_url,
            clubroom::edge::Limits::default(),
            Some(OPERATOR.to_string()),
            options,
        )
        .await
        .expect("server starts");
        actix_web::rt::spawn(server);
        TestApp {
            base: format!("http://127.0.0.1:{port}"),
            client: Client::new(),
            database_url: database_url.to_string(),
            _dir: None,
        }
    }

    /// Starts the app on a fresh database with these webhook options (tests/api_webhooks.rs).
    pub async fn spawn_with_webhooks(webhooks: clubroom::webhooks::WebhookOptions) -> TestApp {
        let (url, dir) = fresh_database().await;
        let mut app = TestApp::on_with_webhooks(&url, webhooks).await;
        app._dir = dir;
        app
    }

    /// Starts (another) app on an existing database with these webhook options.
    pub async fn on_with_webhooks(
        database_url: &str,
        webhooks: clubroom::webhooks::WebhookOptions,
    ) -> TestApp {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind port 0");
        let port = listener.local_addr().unwrap().port();
        let settings = clubroom::server::Settings {
            operator_token: Some(OPERATOR.to_string()),
            webhooks,
            // A second instance opening a SQLite file waits for the first one's locks: generous
            // on a loaded machine.
            store_options: clubroom::store::StoreOptions {
                acquire_timeout: std::time::Duration::from_secs(30),
                ..store_options()
            },
            ..clubroom::server::Settings::new(database_url)
        };
        let running = clubroom::server::launch(listener, settings)
            .await
            .expect("server starts");
        actix_web::rt::spawn(running.server);
        TestApp {
            base: format!("http://127.0.0.1:{port}"),
            client: Client::new(),
            database_url: database_url.to_string(),
            _dir: None,
        }
    }

    /// Any request.
    pub async fn request(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        headers: &[(&str, &str)],
        body: Option<Value>,
    ) -> Answer {
        let mut rb = self
            .client
            .request(method, format!("{}{}", self.base, path));
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        for (k, v) in headers {
            rb = rb.header(*k, *v);
        }
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        Answer::from(rb.send().await.expect("request sent")).await
    }

    /// A raw-body POST.
    pub async fn post_raw(
        &self,
        path: &str,
        token: Option<&str>,
        content_type: &str,
        body: Vec<u8>,
    ) -> Answer {
        let mut rb = self
            .client
            .post(format!("{}{}", self.base, path))
            .header("content-type", content_type)
            .body(body);
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        Answer::from(rb.send().await.expect("request sent")).await
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Answer {
        self.request(Method::GET, path, token, &[], None).await
    }

    /// Plays `m` with pseudo-random legal actions (SplitMix64 from `seed`), each seat through its
    /// own token, reading the host's view (a duplicate table is not public while its round is
    /// played): `steps` actions, or to its end when `steps` is None (panics if it never ends).
    /// The host's view at the end.
    pub async fn play(&self, m: &Match, seed: u64, steps: Option<usize>) -> Value {
        let mut rng = clubroom::rng::SplitMix64::new(seed);
        for _ in 0..steps.unwrap_or(20_000) {
            let v = self.view(m, Some(&m.host)).await;
            if v["status"] == "finished" {
                return v;
            }
            let (seat, token) = if v["table_to_act"] == json!(true) {
                (None, m.host.clone())
            } else {
                let s = v["to_act"][0].as_u64().unwrap() as usize;
                (Some(s), m.seats[s].clone())
            };
            let path = match seat {
                Some(s) => format!("/v1/matches/{}/legal?seat={s}", m.id),
                None => format!("/v1/matches/{}/legal", m.id),
            };
            let legal = self.get(&path, Some(&token)).await;
            assert_eq!(legal.status, StatusCode::OK, "{}", legal.text);
            let actions = legal.body["actions"].as_array().unwrap();
            assert!(!actions.is_empty(), "no legal action: {v}");
            let action = rng.pick(actions).clone();
            let r = self.act(m, &token, seat, action).await;
            assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        }
        let v = self.view(m, Some(&m.host)).await;
        assert!(steps.is_some(), "the match did not end: {v}");
        v
    }

    /// Creates a match; panics unless 201.
    pub async fn create(&self, game: &str, players: usize, dealing: &str, config: Value) -> Match {
        let names: Vec<Value> = (0..players)
            .map(|i| json!({"name": format!("Player {i}")}))
            .collect();
        self.create_with(
            json!({"game": game, "players": names, "dealing": dealing, "config": config}),
        )
        .await
    }

    /// Creates a match from a whole `POST /v1/matches` body; panics unless 201.
    pub async fn create_with(&self, body: Value) -> Match {
        let a = self
            .request(Method::POST, "/v1/matches", None, &[], Some(body))
            .await;
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
        Match {
            id: a.body["match"]["id"].as_str().unwrap().to_string(),
            host: a.body["host_token"].as_str().unwrap().to_string(),
            seats: a.body["seat_tokens"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap().to_string())
                .collect(),
            body: a.body,
        }
    }

    /// Records an action.
    pub async fn act(&self, m: &Match, token: &str, seat: Option<usize>, action: Value) -> Answer {
        self.act_with(m, token, seat, action, &[]).await
    }

    /// Records an action with extra headers (If-Match, Idempotency-Key).
    pub async fn act_with(
        &self,
        m: &Match,
        token: &str,
        seat: Option<usize>,
        action: Value,
        headers: &[(&str, &str)],
    ) -> Answer {
        self.request(
            Method::POST,
            &format!("/v1/matches/{}/actions", m.id),
            Some(token),
            headers,
            Some(json!({"seat": seat, "action": action})),
        )
        .await
    }

    /// The match view as `token` sees it.
    pub async fn view(&self, m: &Match, token: Option<&str>) -> Value {
        let a = self.get(&format!("/v1/matches/{}", m.id), token).await;
        assert_eq!(a.status, StatusCode::OK, "{}", a.text);
        a.body
    }

    /// The whole log as `token` sees it.
    pub async fn events(&self, m: &Match, token: Option<&str>) -> Vec<Value> {
        let mut out = vec![];
        let mut after = 0;
        loop {
            let a = self
                .get(
                    &format!("/v1/matches/{}/events?after={after}&limit=1000", m.id),
                    token,
                )
                .await;
            assert_eq!(a.status, StatusCode::OK, "{}", a.text);
            out.extend(a.body["events"].as_array().unwrap().iter().cloned());
            match a.body["next_after"].as_i64() {
                Some(n) => after = n,
                None => return out,
            }
        }
    }

    /// Legal actions of a seat.
    pub async fn legal(&self, m: &Match, seat: usize, token: Option<&str>) -> Vec<Value> {
        let a = self
            .get(&format!("/v1/matches/{}/legal?seat={seat}", m.id), token)
            .await;
        assert_eq!(a.status, StatusCode::OK, "{}", a.text);
        a.body["actions"].as_array().unwrap().clone()
    }

    /// Undo with the given token.
    pub async fn undo(&self, m: &Match, token: &str) -> Answer {
        self.request(
            Method::POST,
            &format!("/v1/matches/{}/undo", m.id),
            Some(token),
            &[],
            None,
        )
        .await
    }
}

impl Answer {
    async fn from(r: reqwest::Response) -> Answer {
        let status = r.status();
        let etag = r
            .headers()
            .get("etag")
            .and_then(|v| v.to_str().ok())
            .map(String::from);
        let retry_after = r
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .map(String::from);
        let content_type = r
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
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
}

/// One Server-Sent Events message: its `event:`, its `id:` (when it has one) and its JSON data.
#[derive(Debug, Clone)]
pub struct SseMsg {
    pub kind: String,
    pub id: Option<i64>,
    pub data: Value,
}

/// A Server-Sent Events stream being read (a match's or a tournament's).
pub struct Sse {
    resp: reqwest::Response,
    buf: String,
}

impl Sse {
    /// Opens `path` (with its query) with `headers`; asserts 200 and `text/event-stream`.
    pub async fn open(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> Sse {
        let mut rb = app.client.get(format!("{}{path}", app.base));
        for (k, v) in headers {
            rb = rb.header(*k, *v);
        }
        let resp = rb.send().await.expect("stream opens");
        assert_eq!(resp.status(), StatusCode::OK);
        assert!(resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream"));
        Sse {
            resp,
            buf: String::new(),
        }
    }

    /// The next message (comments and `retry:` skipped); None at the end of the stream. Panics
    /// when none comes within 10 s.
    pub async fn next(&mut self) -> Option<SseMsg> {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                let (mut kind, mut id, mut data) = (None, None, None);
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event: ") {
                        kind = Some(v.to_string());
                    } else if let Some(v) = line.strip_prefix("id: ") {
                        id = Some(v.parse().unwrap());
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        data = Some(serde_json::from_str(v).unwrap());
                    }
                }
                if let (Some(kind), Some(data)) = (kind, data) {
                    return Some(SseMsg { kind, id, data });
                }
                continue;
            }
            let chunk = tokio::time::timeout(std::time::Duration::from_secs(10), self.resp.chunk())
                .await
                .expect("a message within 10 s")
                .expect("the stream reads")?;
            self.buf.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// Everything until the stream ends (`once=true`).
    pub async fn all(&mut self) -> Vec<SseMsg> {
        let mut out = vec![];
        while let Some(m) = self.next().await {
            out.push(m);
        }
        out
    }
}

/// Creates the tournament `body` describes and pairs its round 1 with the organiser's token:
/// (tournament id, organiser token, the pairing's answer, each table's match with its tokens).
pub async fn tournament_round_one(
    app: &TestApp,
    body: Value,
) -> (String, String, Value, Vec<Match>) {
    let a = app
        .request(Method::POST, "/v1/tournaments", None, &[], Some(body))
        .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let id = a.body["tournament"]["id"].as_str().unwrap().to_string();
    let org = a.body["organiser_token"].as_str().unwrap().to_string();
    let path = format!("/v1/tournaments/{id}/rounds");
    let r = app
        .request(Method::POST, &path, Some(&org), &[], None)
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let tables = round_matches(&r.body);
    (id, org, r.body, tables)
}

/// The tables' matches of a paired round (the pairing's answer, or the round read with the
/// organiser's token), with their tokens.
pub fn round_matches(round: &Value) -> Vec<Match> {
    round["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| Match {
            id: t["match_id"].as_str().unwrap().to_string(),
            host: t["host_token"].as_str().unwrap().to_string(),
            seats: t["seat_tokens"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_string())
                .collect(),
            body: Value::Null,
        })
        .collect()
}

/// The 52 cards of a French pack as the engines write them (`"2S"` … `"AC"`), suit by suit.
pub fn deck52() -> Vec<String> {
    let mut out = vec![];
    for s in ["S", "H", "D", "C"] {
        for r in [
            "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A",
        ] {
            out.push(format!("{r}{s}"));
        }
    }
    out
}

/// The first card of `deck` of one of `suits` (a card's last letter) that a hand does not hold
/// (`holds`) and the public table does not show (`table`: the tokenless view's `table`, as JSON
/// text). None when there is no such card: with every card dealt (Dump for two), the other hands
/// may hold none of a suit.
pub fn card_elsewhere(
    deck: &[String],
    suits: &[String],
    holds: impl Fn(&str) -> bool,
    table: &str,
) -> Option<String> {
    deck.iter()
        .find(|c| {
            suits.iter().any(|s| c.ends_with(s.as_str()))
                && !holds(c)
                && !table.contains(&format!("\"{c}\""))
        })
        .cloned()
}

//! The API from a browser page on another origin and from a retrying client: CORS (preflight,
//! simple requests, the origins allowed by `CLUBROOM_CORS_ORIGINS`), `WWW-Authenticate` on 401,
//! the `RateLimit-*` headers and `Retry-After` of tokenless creates, and `Idempotency-Key` on
//! every create (match, player, tournament, round).

mod common;

use clubroom::limits::Quotas;
use common::{launch_with_quotas, OPERATOR};
use reqwest::{Client, RequestBuilder, Response, StatusCode};
use serde_json::{json, Value};

/// A server started with `quotas`.
struct Server {
    base: String,
    url: String,
    c: Client,
    _dir: Option<tempfile::TempDir>,
}

impl Server {
    async fn start(quotas: Quotas) -> Server {
        let l = launch_with_quotas(quotas).await;
        actix_web::rt::spawn(l.running.server);
        Server {
            base: l.base,
            url: l.url,
            c: Client::new(),
            _dir: l.dir,
        }
    }

    async fn with_origins(origins: &[&str]) -> Server {
        Server::start(Quotas {
            cors_origins: origins.iter().map(|o| o.to_string()).collect(),
            ..Quotas::default()
        })
        .await
    }

    fn post(&self, path: &str) -> RequestBuilder {
        self.c.post(format!("{}{path}", self.base))
    }

    fn get(&self, path: &str) -> RequestBuilder {
        self.c.get(format!("{}{path}", self.base))
    }

    fn options(&self, path: &str) -> RequestBuilder {
        self.c
            .request(reqwest::Method::OPTIONS, format!("{}{path}", self.base))
    }
}

fn header(r: &Response, name: &str) -> Option<String> {
    r.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_string())
}

/// The answer's status, its headers by name, and its JSON body.
async fn read(r: Response) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let status = r.status();
    let headers = r.headers().clone();
    let body = r.json().await.unwrap_or(Value::Null);
    (status, headers, body)
}

const ORIGIN: &str = "https://club.example";
const EXPOSED: &str = "etag, idempotent-replayed, location, preference-applied, ratelimit-limit, \
                       ratelimit-remaining, ratelimit-reset, retry-after, www-authenticate, \
                       x-request-id";

fn sorted_list(v: &str) -> Vec<String> {
    let mut l: Vec<String> = v
        .split(',')
        .map(|s| s.trim().to_ascii_lowercase())
        .collect();
    l.sort();
    l
}

#[actix_web::test]
async fn a_preflight_from_an_allowed_origin_is_answered_with_the_methods_and_headers_of_the_api() {
    let s = Server::with_origins(&[ORIGIN, "https://other.example/"]).await;
    let r = s
        .options("/v1/matches")
        .header("Origin", ORIGIN)
        .header("Access-Control-Request-Method", "POST")
        .header(
            "Access-Control-Request-Headers",
            "authorization, content-type, idempotency-key, if-match, prefer",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        header(&r, "access-control-allow-origin").as_deref(),
        Some(ORIGIN)
    );
    assert_eq!(
        sorted_list(&header(&r, "access-control-allow-methods").unwrap()),
        ["delete", "get", "options", "post", "put"]
    );
    assert_eq!(
        sorted_list(&header(&r, "access-control-allow-headers").unwrap()),
        [
            "authorization",
            "content-type",
            "idempotency-key",
            "if-match",
            "if-none-match",
            "prefer"
        ]
    );
    assert_eq!(
        header(&r, "access-control-max-age").as_deref(),
        Some("3600")
    );
    assert_eq!(header(&r, "access-control-allow-credentials"), None);
    // The second allowed origin, configured with a trailing slash, is its bare origin.
    let r = s
        .options("/v1/players")
        .header("Origin", "https://other.example")
        .header("Access-Control-Request-Method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        header(&r, "access-control-allow-origin").as_deref(),
        Some("https://other.example")
    );
}

#[actix_web::test]
async fn a_preflight_from_another_origin_is_refused_and_a_simple_request_from_it_gets_no_cors_headers(
) {
    let s = Server::with_origins(&[ORIGIN]).await;
    let r = s
        .options("/v1/matches")
        .header("Origin", "https://evil.example")
        .header("Access-Control-Request-Method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert_eq!(header(&r, "access-control-allow-origin"), None);
    assert_eq!(header(&r, "access-control-allow-methods"), None);
    let r = s
        .get("/v1/games")
        .header("Origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    // (actix-cors lists the exposed headers anyway: without Access-Control-Allow-Origin the
    // browser shows the page nothing of the answer.)
    assert_eq!(header(&r, "access-control-allow-origin"), None);
}

#[actix_web::test]
async fn a_simple_get_from_an_allowed_origin_may_read_the_headers_a_client_needs() {
    let s = Server::with_origins(&[ORIGIN]).await;
    let r = s
        .get("/v1/games")
        .header("Origin", ORIGIN)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        header(&r, "access-control-allow-origin").as_deref(),
        Some(ORIGIN)
    );
    assert_eq!(
        sorted_list(&header(&r, "access-control-expose-headers").unwrap()),
        sorted_list(EXPOSED)
    );
    assert_eq!(
        header(&r, "vary")
            .as_deref()
            .map(|v| v.contains("Origin") || v.contains("origin")),
        Some(true)
    );
    // The security headers are still there.
    assert_eq!(
        header(&r, "x-content-type-options").as_deref(),
        Some("nosniff")
    );
    // Without an Origin (the page itself, same origin): no CORS headers.
    let r = s.get("/v1/games").send().await.unwrap();
    assert_eq!(header(&r, "access-control-allow-origin"), None);
}

#[actix_web::test]
async fn any_origin_is_answered_with_a_wildcard_and_no_origin_configured_means_no_cors() {
    let s = Server::with_origins(&["*"]).await;
    let r = s
        .options("/v1/matches/0123456789abcdef0123456789abcdef/actions")
        .header("Origin", "https://anyone.example")
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", "authorization, if-match")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        header(&r, "access-control-allow-origin").as_deref(),
        Some("*")
    );
    let off = Server::start(Quotas::default()).await;
    let r = off
        .options("/v1/matches")
        .header("Origin", ORIGIN)
        .header("Access-Control-Request-Method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&r, "access-control-allow-origin"), None);
    let r = off
        .get("/v1/games")
        .header("Origin", ORIGIN)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(header(&r, "access-control-allow-origin"), None);
}

#[actix_web::test]
async fn every_401_says_how_to_authenticate() {
    let s = Server::with_origins(&[ORIGIN]).await;
    // No token.
    let r = s
        .get("/v1/matches")
        .header("Origin", ORIGIN)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        header(&r, "www-authenticate").as_deref(),
        Some(r#"Bearer realm="clubroom""#)
    );
    // A browser may read it.
    assert_eq!(
        header(&r, "access-control-allow-origin").as_deref(),
        Some(ORIGIN)
    );
    // A wrong token.
    let r = s
        .get("/v1/matches")
        .bearer_auth("wrong")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        header(&r, "www-authenticate").as_deref(),
        Some(r#"Bearer realm="clubroom", error="invalid_token""#)
    );
    // Another scheme.
    let r = s
        .get("/v1/matches")
        .header("Authorization", "Basic YTpi")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        header(&r, "www-authenticate").as_deref(),
        Some(r#"Bearer realm="clubroom", error="invalid_request""#)
    );
    // A write without a token.
    let r = s
        .post("/v1/matches/0123456789abcdef0123456789abcdef/undo")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        header(&r, "www-authenticate").as_deref(),
        Some(r#"Bearer realm="clubroom""#)
    );
}

#[actix_web::test]
async fn tokenless_creates_carry_their_rate_limit_and_the_one_over_it_is_429_with_retry_after() {
    // One create a minute once a burst of 2 is spent.
    let s = Server::start(Quotas {
        creates_per_minute: 1,
        create_burst: 2,
        ..Quotas::default()
    })
    .await;
    let mut seen = vec![];
    for name in ["Ada", "Ben", "Cy"] {
        let r = s
            .post("/v1/players")
            .json(&json!({"name": name}))
            .send()
            .await
            .unwrap();
        seen.push((
            r.status().as_u16(),
            header(&r, "ratelimit-limit"),
            header(&r, "ratelimit-remaining"),
            header(&r, "ratelimit-reset"),
            header(&r, "retry-after"),
        ));
    }
    let s2 = |v: &str| Some(v.to_string());
    assert_eq!(
        seen,
        [
            (201, s2("2"), s2("1"), s2("60"), None),
            (201, s2("2"), s2("0"), s2("120"), None),
            (429, s2("2"), s2("0"), s2("120"), s2("60")),
        ]
    );
    // Reads are not counted.
    let r = s.get("/v1/games").send().await.unwrap();
    assert_eq!(header(&r, "ratelimit-limit"), None);
}

/// Sends `body` to `path` with `key` (and `token`); the status, the body and the headers a
/// client reads.
async fn keyed(
    s: &Server,
    path: &str,
    key: &str,
    token: Option<&str>,
    body: &Value,
) -> (u16, Value, Option<String>, Option<String>, Option<String>) {
    let mut rb = s.post(path).header("Idempotency-Key", key).json(body);
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    let r = rb.send().await.unwrap();
    let location = header(&r, "location");
    let etag = header(&r, "etag");
    let replayed = header(&r, "idempotent-replayed");
    let (status, _, body) = read(r).await;
    (status.as_u16(), body, location, etag, replayed)
}

const KEY: &str = "7c0b2f0e-1d4a-4c8e-9a57-3b0f6f1a2c99";

async fn match_count(s: &Server) -> usize {
    let r = s
        .get("/v1/matches?limit=100")
        .bearer_auth(OPERATOR)
        .send()
        .await
        .unwrap();
    let (_, _, b) = read(r).await;
    b["matches"].as_array().map_or(0, Vec::len)
}

#[actix_web::test]
async fn a_retried_match_create_returns_the_first_answer_and_records_one_match() {
    let s = Server::start(Quotas::default()).await;
    let body = json!({"game": "clubs", "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}]});
    let first = keyed(&s, "/v1/matches", KEY, None, &body).await;
    assert_eq!(first.0, 201);
    assert_eq!(first.4, None);
    let id = first.1["match"]["id"].as_str().unwrap().to_string();
    assert_eq!(first.2, Some(format!("/v1/matches/{id}")));
    assert_eq!(first.3.as_deref(), Some("\"0\""));
    let again = keyed(&s, "/v1/matches", KEY, None, &body).await;
    assert_eq!(
        (again.0, &again.1, &again.2, &again.3),
        (201, &first.1, &first.2, &first.3)
    );
    assert_eq!(again.4.as_deref(), Some("true"));
    assert_eq!(match_count(&s).await, 1);
    // The same key with another body.
    let other = json!({"game": "clubs", "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "E"}]});
    let (status, problem, ..) = keyed(&s, "/v1/matches", KEY, None, &other).await;
    assert_eq!(status, 409);
    assert_eq!(problem["code"], "idempotency_key_reused");
    assert_eq!(
        problem["detail"],
        "this Idempotency-Key was already used for a different request to POST /v1/matches"
    );
    assert_eq!(match_count(&s).await, 1);
    // A short key would be the only guard of an answer holding tokens.
    let (status, problem, ..) = keyed(&s, "/v1/matches", "k1", None, &body).await;
    assert_eq!(
        (status, problem["code"].as_str()),
        (400, Some("invalid_idempotency_key"))
    );
    assert_eq!(match_count(&s).await, 1);
    // A refused create leaves its key free: fixed, the same key records it.
    let bad = json!({"game": "chess", "players": [{"name": "A"}, {"name": "B"}]});
    let key2 = "a2c6d1e0-0000-4000-8000-000000000002";
    let (status, problem, ..) = keyed(&s, "/v1/matches", key2, None, &bad).await;
    assert_eq!(
        (status, problem["code"].as_str()),
        (422, Some("unknown_game"))
    );
    let (status, ..) = keyed(&s, "/v1/matches", key2, None, &bad).await;
    assert_eq!(status, 422);
    assert_eq!(match_count(&s).await, 1);
}

#[actix_web::test]
async fn eight_concurrent_retries_of_one_create_record_one_match_and_all_get_its_answer() {
    let s = std::sync::Arc::new(Server::start(Quotas::default()).await);
    let body = json!({"game": "dump", "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}]});
    let mut tasks = vec![];
    for _ in 0..8 {
        let s = s.clone();
        let body = body.clone();
        tasks.push(actix_web::rt::spawn(async move {
            keyed(&s, "/v1/matches", KEY, None, &body).await
        }));
    }
    let mut answers = vec![];
    for t in tasks {
        answers.push(t.await.unwrap());
    }
    assert!(answers.iter().all(|a| a.0 == 201), "{answers:?}");
    assert!(answers
        .iter()
        .all(|a| a.1 == answers[0].1 && a.2 == answers[0].2));
    assert_eq!(answers.iter().filter(|a| a.4.is_none()).count(), 1);
    assert_eq!(match_count(&s).await, 1);
}

#[actix_web::test]
async fn a_retried_player_create_returns_the_same_player() {
    let s = Server::start(Quotas::default()).await;
    let body = json!({"name": "Ada"});
    let first = keyed(&s, "/v1/players", KEY, None, &body).await;
    assert_eq!(first.0, 201);
    let id = first.1["id"].as_str().unwrap().to_string();
    assert_eq!(first.2, Some(format!("/v1/players/{id}")));
    let again = keyed(&s, "/v1/players", KEY, None, &body).await;
    assert_eq!((again.0, &again.1, &again.2), (201, &first.1, &first.2));
    assert_eq!(again.4.as_deref(), Some("true"));
    let (status, problem, ..) = keyed(&s, "/v1/players", KEY, None, &json!({"name": "Ben"})).await;
    assert_eq!(
        (status, problem["code"].as_str()),
        (409, Some("idempotency_key_reused"))
    );
    // The same key on another path is another key.
    let m = json!({"game": "clubs", "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}]});
    assert_eq!(keyed(&s, "/v1/matches", KEY, None, &m).await.0, 201);
    // One player named Ada: the database holds the players.
    let r = s.get(&format!("/v1/players/{id}")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(players_in_db(&s).await, 1);
}

/// Players registered, counted in the database (the API has no player list yet).
async fn players_in_db(s: &Server) -> i64 {
    use sqlx::Connection;
    let sql = "SELECT count(*) FROM players";
    if s.url.starts_with("postgres") {
        let mut c = sqlx::PgConnection::connect(&s.url).await.unwrap();
        sqlx::query_scalar(sql).fetch_one(&mut c).await.unwrap()
    } else {
        let mut c = sqlx::SqliteConnection::connect(&s.url).await.unwrap();
        sqlx::query_scalar(sql).fetch_one(&mut c).await.unwrap()
    }
}

#[actix_web::test]
async fn a_retried_tournament_create_and_a_retried_pairing_return_their_first_answers() {
    let s = Server::start(Quotas::default()).await;
    let names: Vec<Value> = ["A", "B", "C", "D", "E", "F", "G", "H"]
        .iter()
        .map(|n| json!({"name": n}))
        .collect();
    let body = json!({"name": "Club night", "game": "clubs", "format": "swiss", "rounds": 2, "table_size": 4, "players": names});
    let first = keyed(&s, "/v1/tournaments", KEY, None, &body).await;
    assert_eq!(first.0, 201, "{:?}", first.1);
    let again = keyed(&s, "/v1/tournaments", KEY, None, &body).await;
    assert_eq!((again.0, &again.1, &again.2), (201, &first.1, &first.2));
    assert_eq!(again.4.as_deref(), Some("true"));
    let id = first.1["tournament"]["id"].as_str().unwrap().to_string();
    let organiser = first.1["organiser_token"].as_str().unwrap().to_string();
    // One match per table per round: none yet.
    assert_eq!(match_count(&s).await, 0);
    // Pairing: the retry does not pair round 2.
    let path = format!("/v1/tournaments/{id}/rounds");
    let p1 = keyed(&s, &path, "pair-1", Some(&organiser), &json!(null)).await;
    assert_eq!(p1.0, 201, "{:?}", p1.1);
    assert_eq!(p1.2, Some(format!("/v1/tournaments/{id}/rounds/1")));
    let p2 = keyed(&s, &path, "pair-1", Some(&organiser), &json!(null)).await;
    assert_eq!((p2.0, &p2.1, &p2.2), (201, &p1.1, &p1.2));
    assert_eq!(p2.4.as_deref(), Some("true"));
    let r = s
        .get(&format!("/v1/tournaments/{id}"))
        .send()
        .await
        .unwrap();
    let (_, _, t) = read(r).await;
    assert_eq!(t["rounds"].as_array().unwrap().len(), 1);
    assert_eq!(match_count(&s).await, 2);
    // Another token with the same key is another request: not the organiser's answer.
    let (status, problem, ..) =
        keyed(&s, &path, "pair-1", Some("not-the-organiser"), &json!(null)).await;
    assert_eq!(
        (status, problem["code"].as_str()),
        (409, Some("idempotency_key_reused"))
    );
}

/// Runs `sql` on the test database (setup of a fault; counts).
async fn exec(s: &Server, sql: &str) {
    use sqlx::Connection;
    if s.url.starts_with("postgres") {
        let mut c = sqlx::PgConnection::connect(&s.url).await.unwrap();
        sqlx::raw_sql(sql).execute(&mut c).await.unwrap();
    } else {
        let mut c = sqlx::SqliteConnection::connect(&s.url).await.unwrap();
        sqlx::raw_sql(sql).execute(&mut c).await.unwrap();
    }
}

async fn count(s: &Server, sql: &str) -> i64 {
    use sqlx::Connection;
    if s.url.starts_with("postgres") {
        let mut c = sqlx::PgConnection::connect(&s.url).await.unwrap();
        sqlx::query_scalar(sql).fetch_one(&mut c).await.unwrap()
    } else {
        let mut c = sqlx::SqliteConnection::connect(&s.url).await.unwrap();
        sqlx::query_scalar(sql).fetch_one(&mut c).await.unwrap()
    }
}

fn eight_names() -> Vec<Value> {
    ["A", "B", "C", "D", "E", "F", "G", "H"]
        .iter()
        .map(|n| json!({"name": n}))
        .collect()
}

#[actix_web::test]
async fn concurrent_keyed_tournament_creates_and_pairings_record_one_and_answer_alike() {
    let s = std::sync::Arc::new(Server::start(Quotas::default()).await);
    let body = json!({"name": "Club night", "game": "clubs", "format": "swiss", "rounds": 2,
                      "table_size": 4, "players": eight_names()});
    let mut tasks = vec![];
    for _ in 0..6 {
        let (s, body) = (s.clone(), body.clone());
        tasks.push(actix_web::rt::spawn(async move {
            keyed(&s, "/v1/tournaments", KEY, None, &body).await
        }));
    }
    let mut created = vec![];
    for t in tasks {
        created.push(t.await.unwrap());
    }
    assert!(created.iter().all(|a| a.0 == 201), "{created:?}");
    assert!(created
        .iter()
        .all(|a| a.1 == created[0].1 && a.2 == created[0].2));
    assert_eq!(created.iter().filter(|a| a.4.is_none()).count(), 1);
    assert_eq!(count(&s, "SELECT count(*) FROM tournaments").await, 1);
    assert_eq!(players_in_db(&s).await, 8);
    let id = created[0].1["tournament"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let organiser = created[0].1["organiser_token"]
        .as_str()
        .unwrap()
        .to_string();

    // Six pairings with one key at once: one round, two tables, one answer.
    let path = format!("/v1/tournaments/{id}/rounds");
    let mut tasks = vec![];
    for _ in 0..6 {
        let (s, path, organiser) = (s.clone(), path.clone(), organiser.clone());
        tasks.push(actix_web::rt::spawn(async move {
            keyed(&s, &path, "pair-once", Some(&organiser), &json!(null)).await
        }));
    }
    let mut paired = vec![];
    for t in tasks {
        paired.push(t.await.unwrap());
    }
    assert!(paired.iter().all(|a| a.0 == 201), "{paired:?}");
    assert!(paired
        .iter()
        .all(|a| a.1 == paired[0].1 && a.2 == paired[0].2));
    assert_eq!(paired[0].2, Some(format!("/v1/tournaments/{id}/rounds/1")));
    assert_eq!(paired.iter().filter(|a| a.4.is_none()).count(), 1);
    assert_eq!(count(&s, "SELECT count(*) FROM tournament_rounds").await, 1);
    assert_eq!(match_count(&s).await, 2);
    // Another body with the key: the documented 409, nothing recorded.
    let mut other = body.clone();
    other["name"] = json!("Another night");
    let (status, problem, ..) = keyed(&s, "/v1/tournaments", KEY, None, &other).await;
    assert_eq!(
        (status, problem["code"].as_str()),
        (409, Some("idempotency_key_reused"))
    );
    assert_eq!(count(&s, "SELECT count(*) FROM tournaments").await, 1);
}

#[actix_web::test]
async fn a_keyed_create_that_fails_mid_transaction_leaves_neither_the_create_nor_its_key() {
    let s = Server::start(Quotas::default()).await;
    // A fault injected after the key and the tournament rows are written, before the commit.
    if s.url.starts_with("postgres") {
        exec(
            &s,
            "CREATE FUNCTION fail_entrant() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected'; END $$ LANGUAGE plpgsql; \
             CREATE TRIGGER fail_entrant BEFORE INSERT ON tournament_entrants FOR EACH ROW EXECUTE FUNCTION fail_entrant();",
        )
        .await;
    } else {
        exec(
            &s,
            "CREATE TRIGGER fail_entrant BEFORE INSERT ON tournament_entrants \
             BEGIN SELECT RAISE(ABORT, 'injected'); END;",
        )
        .await;
    }
    let body = json!({"name": "Club night", "game": "clubs", "format": "swiss", "rounds": 2,
                      "table_size": 4, "players": eight_names()});
    let (status, problem, ..) = keyed(&s, "/v1/tournaments", KEY, None, &body).await;
    assert_eq!(status, 500, "{problem}");
    assert_eq!(
        count(&s, "SELECT count(*) FROM idempotent_creates").await,
        0
    );
    assert_eq!(count(&s, "SELECT count(*) FROM tournaments").await, 0);
    assert_eq!(players_in_db(&s).await, 0);
    // The fault gone, the same key creates it (it was not spent), once.
    if s.url.starts_with("postgres") {
        exec(&s, "DROP TRIGGER fail_entrant ON tournament_entrants").await;
    } else {
        exec(&s, "DROP TRIGGER fail_entrant").await;
    }
    let first = keyed(&s, "/v1/tournaments", KEY, None, &body).await;
    assert_eq!((first.0, first.4.as_deref()), (201, None), "{:?}", first.1);
    let again = keyed(&s, "/v1/tournaments", KEY, None, &body).await;
    assert_eq!(
        (again.0, &again.1, again.4.as_deref()),
        (201, &first.1, Some("true"))
    );
    assert_eq!(count(&s, "SELECT count(*) FROM tournaments").await, 1);
    // The key and the answer were recorded with it: the stored answer is the one sent.
    assert_eq!(
        count(
            &s,
            "SELECT count(*) FROM idempotent_creates WHERE response_status = 201"
        )
        .await,
        1
    );
}

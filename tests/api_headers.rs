//! The headers every answer carries (issue 20, part 6): the table page's strict
//! Content-Security-Policy, `/docs`'s own policy (Swagger UI), and on everything else — the API's
//! JSON, CSV and streams, errors, the page's files — `nosniff`, `no-referrer` and a policy that
//! allows nothing to load and no framing.

mod common;

use common::TestApp;
use reqwest::{header::HeaderMap, Method, StatusCode};
use serde_json::json;

/// The table page's policy, written out here rather than taken from the code: a change to it must
/// change this test too.
const PAGE: &str = "default-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; \
                    form-action 'self'; frame-ancestors 'none'";
/// Everything that is not a page: nothing may load from it, nobody may frame it.
const NOTHING: &str = "default-src 'none'; frame-ancestors 'none'";
/// Swagger UI (vendored): its scripts from `/docs/`, its pictures as data: URIs in its style sheet,
/// its logo's one `<style>` element by its hash, the spec fetched from `/openapi.json`.
const DOCS: &str = "default-src 'self'; img-src 'self' data:; \
                    style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='; \
                    connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
                    frame-ancestors 'none'";

async fn headers(
    app: &TestApp,
    method: Method,
    path: &str,
    body: Option<serde_json::Value>,
) -> (StatusCode, HeaderMap) {
    let mut rb = app.client.request(method, format!("{}{path}", app.base));
    if let Some(b) = body {
        rb = rb.json(&b);
    }
    let r = rb.send().await.expect("request sent");
    (r.status(), r.headers().clone())
}

/// The one value of header `name` (every one of them, to catch a header sent twice).
fn one(h: &HeaderMap, name: &str) -> Vec<String> {
    h.get_all(name)
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect()
}

fn assert_security_headers(path: &str, h: &HeaderMap, csp: &str) {
    assert_eq!(one(h, "content-security-policy"), [csp], "{path}");
    assert_eq!(one(h, "x-content-type-options"), ["nosniff"], "{path}");
    assert_eq!(one(h, "referrer-policy"), ["no-referrer"], "{path}");
}

#[actix_web::test]
async fn the_table_page_is_served_with_a_strict_content_security_policy() {
    let app = TestApp::spawn().await;
    let (status, h) = headers(&app, Method::GET, "/", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_security_headers("/", &h, PAGE);
    // No inline script and no inline style in the page itself: the policy would refuse them.
    let html = app.get("/", None).await.text;
    assert!(
        !html.contains("<script>") && !html.contains("style="),
        "{html}"
    );
    for tag in html.split("<script").skip(1) {
        assert!(
            tag.trim_start().starts_with("src=") || tag.contains(" src="),
            "inline script: {tag}"
        );
    }
}

#[actix_web::test]
async fn every_other_answer_says_nosniff_no_referrer_and_loads_nothing() {
    let app = TestApp::spawn().await;
    let (status, h) = headers(
        &app,
        Method::POST,
        "/v1/matches",
        Some(json!({"game": "dump", "players": [{"name": "A"}, {"name": "B"}]})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_security_headers("POST /v1/matches", &h, NOTHING);
    for (path, want) in [
        ("/v1/games", StatusCode::OK),
        ("/healthz", StatusCode::OK),
        ("/openapi.json", StatusCode::OK),
        (
            "/v1/matches/0123456789abcdef0123456789abcdef",
            StatusCode::NOT_FOUND,
        ),
        ("/nowhere", StatusCode::NOT_FOUND),
        // The page's files are not documents: they get the API's policy, not the page's.
        ("/web/app.js", StatusCode::OK),
        ("/web/style.css", StatusCode::OK),
        ("/web/nope.js", StatusCode::NOT_FOUND),
        ("/manifest.webmanifest", StatusCode::OK),
    ] {
        let (status, h) = headers(&app, Method::GET, path, None).await;
        assert_eq!(status, want, "{path}");
        assert_security_headers(path, &h, NOTHING);
    }
}

/// The service worker runs under its own script's policy: it may fetch from this origin (to fill
/// its cache and pass requests on) and load nothing else.
#[actix_web::test]
async fn the_service_worker_may_fetch_from_its_origin_only() {
    let app = TestApp::spawn().await;
    let (status, h) = headers(&app, Method::GET, "/sw.js", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_security_headers(
        "/sw.js",
        &h,
        "default-src 'none'; connect-src 'self'; frame-ancestors 'none'",
    );
}

#[actix_web::test]
async fn the_docs_get_a_policy_of_their_own_that_lets_swagger_ui_work() {
    let app = TestApp::spawn().await;
    for path in [
        "/docs/",
        "/docs/swagger-ui-bundle.js",
        "/docs/swagger-initializer.js",
    ] {
        let (status, h) = headers(&app, Method::GET, path, None).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_security_headers(path, &h, DOCS);
    }
    // `/docs` itself is a redirect to `/docs/`: the same policy.
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let r = client
        .get(format!("{}/docs", app.base))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_redirection(), "{}", r.status());
    assert_security_headers("/docs", r.headers(), DOCS);
}

//! The table page (`/`): static files embedded in the binary (`web/`), no build step. The page is
//! a client of the public API only; these routes are not part of the API and not in the spec.
//!
//! Also the security headers of every answer ([`security_headers`], applied in `app.rs`): the
//! page holds tokens (in its address and in the phone's storage), so it runs under a policy that
//! lets nothing but its own files run or load, and every other answer under one that lets
//! nothing load at all.

use actix_web::{
    http::header::{self, HeaderMap, HeaderValue},
    web, HttpResponse,
};

/// The page's Content-Security-Policy. Scripts, styles, images and fonts only from this origin
/// (`default-src 'self'`: no inline script, no `on*=` attribute, no `style="..."`, no `eval`; the
/// page sets styles through classes only); `fetch` and the match stream (`EventSource`) to this
/// origin; no plugins; no `<base>` to redirect the relative URLs; forms post only here; no other
/// site may frame the page (a framed page could be made to tap for its user). The QR codes are
/// SVG elements put in the page, not images: no `data:` is needed.
pub const PAGE_CSP: &str = "default-src 'self'; connect-src 'self'; object-src 'none'; \
                            base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// `/docs`: Swagger UI (vendored by utoipa-swagger-ui: swagger-ui 5.32.6), whose files are not
/// ours. It has no inline script (its `index.html` loads `swagger-initializer.js`) and sets its
/// inline styles through the DOM (which a policy allows); its style sheet draws its icons as
/// `data:` images; it fetches the spec and "Try it out" calls from this origin; and its logo is
/// an SVG with one inline `<style>` element, allowed by its hash (SHA-256 of
/// `.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}`). Another Swagger UI
/// may bring another style: the browser test then reports the violation with the new hash.
pub const DOCS_CSP: &str = "default-src 'self'; img-src 'self' data:; \
                            style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='; \
                            connect-src 'self'; object-src 'none'; base-uri 'none'; \
                            form-action 'self'; frame-ancestors 'none'";

/// Every other answer (the API's JSON, CSV and streams, errors, the page's own script and style
/// files): nothing in it may run or load anything, and nobody may frame it, should a browser
/// ever show it as a document.
pub const NOTHING_CSP: &str = "default-src 'none'; frame-ancestors 'none'";

/// Completes an answer's headers: `X-Content-Type-Options: nosniff` (a browser takes the content
/// type as given: a JSON answer echoing a player's name is never run as HTML or script),
/// `Referrer-Policy: no-referrer` (a link followed from a page tells the next site nothing), and
/// a Content-Security-Policy: the one the answer set itself (the page's), `/docs`'s for Swagger
/// UI, else [`NOTHING_CSP`].
pub fn security_headers(path: &str, headers: &mut HeaderMap) {
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    if path == "/docs" || path.starts_with("/docs/") {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(DOCS_CSP),
        );
    } else if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(NOTHING_CSP),
        );
    }
}

/// The embedded files: path under `/web/`, content type, content.
const FILES: &[(&str, &str, &str)] = &[
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/app.js"),
    ),
    (
        "keep.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/keep.js"),
    ),
    (
        "lib.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/lib.js"),
    ),
    (
        "games.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/games.js"),
    ),
    (
        "tally.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/tally.js"),
    ),
    (
        "tournament.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/tournament.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../../web/style.css"),
    ),
    (
        "vendor/qrcode.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/vendor/qrcode.js"),
    ),
];

const INDEX: &str = include_str!("../../web/index.html");

fn page(content_type: &str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        // Small files that change with the binary: revalidate each time (cheap on a LAN).
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .body(body)
}

/// `GET /`: the page, under its policy.
pub async fn index() -> HttpResponse {
    let mut res = page("text/html; charset=utf-8", INDEX);
    res.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(PAGE_CSP),
    );
    res
}

/// `GET /web/{file}`: its scripts, style sheet and the vendored QR encoder.
pub async fn asset(path: web::Path<String>) -> HttpResponse {
    match FILES.iter().find(|(name, _, _)| *name == path.as_str()) {
        Some((_, ct, body)) => page(ct, body),
        None => crate::routes::fallback_not_found(),
    }
}

/// Registers the page's routes (outside the spec: they are not the API).
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(index))
        .route("/web/{file:.*}", web::get().to(asset));
}

//! The table page (`/`): static files embedded in the binary (`web/`), no build step. The page is
//! a client of the public API only; these routes are not part of the API and not in the spec.

use actix_web::{http::header, web, HttpResponse};

/// The embedded files: path under `/web/`, content type, content.
const FILES: &[(&str, &str, &str)] = &[
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/app.js"),
    ),
    (
        "lib.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/lib.js"),
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
        .insert_header(("X-Content-Type-Options", "nosniff"))
        .body(body)
}

/// `GET /`: the page.
pub async fn index() -> HttpResponse {
    page("text/html; charset=utf-8", INDEX)
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

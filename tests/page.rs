//! The table page's files as an installable app (issue 22, part 5): content-hashed names that
//! the index and the modules use, `ETag` and 304, brotli and gzip prepared once (and never on the
//! API), the manifest and its icons, the service worker's list of what it keeps.

mod common;

use std::io::Read;

use common::TestApp;
use reqwest::{header::HeaderMap, StatusCode};

struct Got {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Got {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }
    fn text(&self) -> String {
        String::from_utf8(self.body.clone()).unwrap()
    }
}

async fn get(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> Got {
    let mut rb = app.client.get(format!("{}{path}", app.base));
    for (k, v) in headers {
        rb = rb.header(*k, *v);
    }
    let r = rb.send().await.expect("request sent");
    Got {
        status: r.status(),
        headers: r.headers().clone(),
        body: r.bytes().await.unwrap().to_vec(),
    }
}

/// Every `/web/…` URL the text names in double quotes.
fn web_urls(text: &str) -> Vec<String> {
    text.split('"')
        .filter(|s| s.starts_with("/web/"))
        .map(str::to_owned)
        .collect()
}

/// `/web/app.3f2a9c1e07.js` → Some(("/web/app", "3f2a9c1e07", "js")).
fn split_hashed(url: &str) -> Option<(&str, &str, &str)> {
    let (stem, ext) = url.rsplit_once('.')?;
    let (name, hash) = stem.rsplit_once('.')?;
    (hash.len() == 10 && hash.bytes().all(|b| b.is_ascii_hexdigit())).then_some((name, hash, ext))
}

const IMMUTABLE: &str = "public, max-age=31536000, immutable";

#[actix_web::test]
async fn the_index_and_the_modules_name_their_files_by_content_hash() {
    let app = TestApp::spawn().await;
    let index = get(&app, "/", &[]).await;
    assert_eq!(index.status, StatusCode::OK);
    assert_eq!(index.header("cache-control"), Some("no-cache"));
    let html = index.text();
    let urls = web_urls(&html);
    for plain in [
        "app",
        "lib",
        "keep",
        "tournament",
        "games",
        "tally",
        "club",
        "style",
        "icon",
    ] {
        assert!(
            urls.iter()
                .any(|u| split_hashed(u).is_some_and(|(n, _, _)| n == format!("/web/{plain}"))),
            "{plain} not named by hash in {urls:?}"
        );
    }
    // The QR encoder is not loaded by the page any more: lib.js loads it where a code is drawn.
    assert!(!html.contains("qrcode"), "{html}");
    for url in &urls {
        assert!(split_hashed(url).is_some(), "{url} is not a hashed name");
        let a = get(&app, url, &[]).await;
        assert_eq!(a.status, StatusCode::OK, "{url}");
        assert_eq!(a.header("cache-control"), Some(IMMUTABLE), "{url}");
        assert!(a.header("etag").is_some(), "{url}");
    }
    // app.js imports its modules by their hashed names, and lib.js names the QR encoder so.
    let app_url = urls.iter().find(|u| u.starts_with("/web/app.")).unwrap();
    let app_js = get(&app, app_url, &[]).await.text();
    let lib_url = urls.iter().find(|u| u.starts_with("/web/lib.")).unwrap();
    let lib_import = format!("\"./{}\"", lib_url.trim_start_matches("/web/"));
    assert!(app_js.contains(&lib_import), "app.js lacks {lib_import}");
    assert!(!app_js.contains("\"./lib.js\""));
    let lib_js = get(&app, lib_url, &[]).await.text();
    let qr: Vec<String> = web_urls(&lib_js)
        .into_iter()
        .filter(|u| u.contains("qrcode"))
        .collect();
    assert_eq!(qr.len(), 1, "{qr:?}");
    // Its fallback, the plain name, is left as it is.
    assert!(lib_js.contains("\"/web/vendor/\" + \"qrcode.js\""));
    let (name, _, ext) = split_hashed(&qr[0]).unwrap();
    assert_eq!((name, ext), ("/web/vendor/qrcode", "js"));
    let encoder = get(&app, &qr[0], &[]).await;
    assert_eq!(encoder.status, StatusCode::OK);
    assert!(encoder.text().contains("qrcode"));
    // The plain names still answer (revalidated each time), with the same content.
    let plain = get(&app, "/web/app.js", &[]).await;
    assert_eq!(plain.header("cache-control"), Some("no-cache"));
    assert_eq!(plain.text(), app_js);
    // A hash the binary does not have is not found.
    let old = get(&app, "/web/app.0123456789.js", &[]).await;
    assert_eq!(old.status, StatusCode::NOT_FOUND);
}

#[actix_web::test]
async fn a_known_etag_gets_a_304_without_a_body() {
    let app = TestApp::spawn().await;
    let html = get(&app, "/", &[]).await.text();
    let css = web_urls(&html)
        .into_iter()
        .find(|u| u.starts_with("/web/style."))
        .unwrap();
    for path in [
        "/",
        css.as_str(),
        "/web/lib.js",
        "/manifest.webmanifest",
        "/sw.js",
    ] {
        let first = get(&app, path, &[]).await;
        assert_eq!(first.status, StatusCode::OK, "{path}");
        let tag = first.header("etag").unwrap().to_owned();
        assert!(tag.starts_with('"') && tag.ends_with('"'), "{path}: {tag}");
        let again = get(&app, path, &[("if-none-match", &tag)]).await;
        assert_eq!(again.status, StatusCode::NOT_MODIFIED, "{path}");
        assert!(again.body.is_empty(), "{path}");
        assert_eq!(again.header("etag"), Some(tag.as_str()), "{path}");
        assert_eq!(again.header("cache-control"), first.header("cache-control"));
        // Among others, and the same content in another encoding: still not modified.
        let list = format!(
            "\"nope\", {}",
            tag.trim_end_matches('"').to_owned() + ".br\""
        );
        let br = get(
            &app,
            path,
            &[("if-none-match", &list), ("accept-encoding", "br")],
        )
        .await;
        assert_eq!(br.status, StatusCode::NOT_MODIFIED, "{path}");
        assert_eq!(
            br.header("etag").unwrap(),
            tag.trim_end_matches('"').to_owned() + ".br\"",
            "{path}"
        );
        let other = get(&app, path, &[("if-none-match", "\"0123456789\"")]).await;
        assert_eq!(other.status, StatusCode::OK, "{path}");
        assert_eq!(other.body, first.body, "{path}");
    }
    // The index's tag follows its content: the same on every answer.
    let a = get(&app, "/", &[]).await;
    let b = get(&app, "/", &[]).await;
    assert_eq!(a.header("etag"), b.header("etag"));
}

fn gunzip(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(b)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn unbrotli(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::Decompressor::new(b, 4096)
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[actix_web::test]
async fn the_page_files_come_compressed_as_the_browser_asks() {
    let app = TestApp::spawn().await;
    for path in [
        "/",
        "/web/app.js",
        "/web/style.css",
        "/web/vendor/qrcode.js",
        "/sw.js",
    ] {
        let plain = get(&app, path, &[]).await;
        assert_eq!(plain.header("content-encoding"), None, "{path}");
        assert_eq!(plain.header("vary"), Some("Accept-Encoding"), "{path}");
        let br = get(
            &app,
            path,
            &[("accept-encoding", "gzip, deflate, br, zstd")],
        )
        .await;
        assert_eq!(br.header("content-encoding"), Some("br"), "{path}");
        assert_eq!(br.header("vary"), Some("Accept-Encoding"), "{path}");
        assert_eq!(unbrotli(&br.body), plain.body, "{path}");
        assert!(
            br.body.len() * 2 < plain.body.len(),
            "{path}: {} of {}",
            br.body.len(),
            plain.body.len()
        );
        for ask in ["gzip", "br;q=0, gzip;q=0.5", "x-gzip"] {
            let gz = get(&app, path, &[("accept-encoding", ask)]).await;
            assert_eq!(gz.header("content-encoding"), Some("gzip"), "{path} {ask}");
            assert_eq!(gunzip(&gz.body), plain.body, "{path} {ask}");
        }
        let none = get(&app, path, &[("accept-encoding", "identity, br;q=0")]).await;
        assert_eq!(none.header("content-encoding"), None, "{path}");
        assert_eq!(none.body, plain.body, "{path}");
    }
    // A PNG is not compressed again.
    let png = get(
        &app,
        "/web/icon-192.png",
        &[("accept-encoding", "br, gzip")],
    )
    .await;
    assert_eq!(png.status, StatusCode::OK);
    assert_eq!(png.header("content-encoding"), None);
    assert_eq!(png.header("content-type"), Some("image/png"));
    assert_eq!(&png.body[..8], b"\x89PNG\r\n\x1a\n");
    // The API is never compressed (its stream must not be held back by an encoder).
    let api = get(&app, "/v1/games", &[("accept-encoding", "br, gzip")]).await;
    assert_eq!(api.status, StatusCode::OK);
    assert_eq!(api.header("content-encoding"), None);
    let m = app.create("dump", 2, "table", serde_json::json!({})).await;
    let r = app
        .client
        .get(format!(
            "{}/v1/matches/{}/stream?token={}",
            app.base, m.id, m.host
        ))
        .header("accept-encoding", "br, gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers().get("content-encoding"), None);
}

#[actix_web::test]
async fn the_manifest_makes_the_page_installable_and_its_icons_load() {
    let app = TestApp::spawn().await;
    let html = get(&app, "/", &[]).await.text();
    assert!(
        html.contains("<link rel=\"manifest\" href=\"/manifest.webmanifest\">"),
        "{html}"
    );
    let m = get(&app, "/manifest.webmanifest", &[]).await;
    assert_eq!(m.status, StatusCode::OK);
    assert_eq!(m.header("content-type"), Some("application/manifest+json"));
    let v: serde_json::Value = serde_json::from_slice(&m.body).unwrap();
    assert_eq!(v["start_url"], "/");
    assert_eq!(v["display"], "standalone");
    assert_eq!(v["name"], "Clubroom");
    assert_eq!(v["short_name"], "Clubroom");
    assert_eq!(v["theme_color"], "#0b5d3b");
    assert_eq!(v["background_color"], "#f4f2ec");
    let icons = v["icons"].as_array().unwrap();
    let mut seen = vec![];
    for icon in icons {
        let src = icon["src"].as_str().unwrap();
        assert!(split_hashed(src).is_some(), "{src}");
        let a = get(&app, src, &[]).await;
        assert_eq!(a.status, StatusCode::OK, "{src}");
        assert_eq!(a.header("content-type"), icon["type"].as_str(), "{src}");
        if icon["type"] == "image/png" {
            // The PNG's own width and height (IHDR) are what the manifest says.
            let w = u32::from_be_bytes(a.body[16..20].try_into().unwrap());
            let h = u32::from_be_bytes(a.body[20..24].try_into().unwrap());
            assert_eq!(icon["sizes"].as_str().unwrap(), format!("{w}x{h}"), "{src}");
        }
        seen.push((
            icon["sizes"].as_str().unwrap().to_owned(),
            icon["purpose"].as_str().unwrap().to_owned(),
        ));
    }
    for want in [
        ("192x192", "any"),
        ("512x512", "any"),
        ("512x512", "maskable"),
    ] {
        assert!(
            seen.iter().any(|(s, p)| (s.as_str(), p.as_str()) == want),
            "{want:?} in {seen:?}"
        );
    }
}

#[actix_web::test]
async fn the_service_worker_keeps_the_shell_and_nothing_of_the_api() {
    let app = TestApp::spawn().await;
    let sw = get(&app, "/sw.js", &[]).await;
    assert_eq!(sw.status, StatusCode::OK);
    assert_eq!(
        sw.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(sw.header("cache-control"), Some("no-cache"));
    let text = sw.text();
    let first = text.lines().next().unwrap();
    let build: serde_json::Value = serde_json::from_str(
        first
            .strip_prefix("const BUILD = ")
            .and_then(|l| l.strip_suffix(';'))
            .unwrap_or_else(|| panic!("{first}")),
    )
    .unwrap();
    let shell: Vec<&str> = build["shell"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap())
        .collect();
    assert!(
        shell.contains(&"/") && shell.contains(&"/manifest.webmanifest"),
        "{shell:?}"
    );
    // Every file the index names, and the QR encoder, by the same hashed names.
    let html = get(&app, "/", &[]).await.text();
    for url in web_urls(&html) {
        assert!(shell.contains(&url.as_str()), "{url} not in {shell:?}");
    }
    assert!(
        shell.iter().any(|u| u.starts_with("/web/vendor/qrcode.")),
        "{shell:?}"
    );
    assert!(
        shell
            .iter()
            .all(|u| !u.starts_with("/v1") && !u.contains("token")),
        "{shell:?}"
    );
    // The cache's name is the set's hash: the same on every answer of this binary.
    let version = build["version"].as_str().unwrap();
    assert_eq!(version.len(), 16);
    assert_eq!(get(&app, "/sw.js", &[]).await.text(), text);
    // The page registers it.
    let app_js = get(&app, "/web/app.js", &[]).await.text();
    assert!(app_js.contains("navigator.serviceWorker.register(\"/sw.js\")"));
}

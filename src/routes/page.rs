//! The table page (`/`): static files embedded in the binary (`web/`), no build step. The page is
//! a client of the public API only; these routes are not part of the API and not in the spec.
//!
//! The files are prepared once, at start-up ([`warm_up`]) or on the first request: each asset
//! gets a content-hashed name (`/web/app.3f2a9c1e07.js`), the index's links, the modules'
//! import specifiers and the manifest's icons are rewritten to those names, and every text file is
//! compressed with brotli and gzip. A hashed name is served `immutable` for a year; the index, the
//! service worker (`/sw.js`), the manifest and the plain names (`/web/app.js`) are served
//! `no-cache`. Every file carries a strong `ETag` (`If-None-Match` gets a 304) and
//! `Vary: Accept-Encoding`. Nothing here is compressed per request, and the API's answers and
//! streams are not compressed at all.
//!
//! Also the security headers of every answer ([`security_headers`], applied in `app.rs`): the
//! page holds tokens (in its address and in the phone's storage), so it runs under a policy that
//! lets nothing but its own files run or load, and every other answer under one that lets
//! nothing load at all.

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::sync::OnceLock;

use actix_web::{
    http::header::{self, HeaderMap, HeaderValue},
    web, HttpRequest, HttpResponse,
};
use sha2::{Digest, Sha256};

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

/// The service worker's (`/sw.js`) policy: a worker runs under the policy of its own script's
/// answer, and this one may fetch from this origin only (to fill its cache and to pass requests
/// on), and load nothing else.
pub const WORKER_CSP: &str = "default-src 'none'; connect-src 'self'; frame-ancestors 'none'";

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

/// A file of the page: path under `/web/`, content type, content.
type File<'a> = (&'a str, &'static str, &'a [u8]);

/// The embedded files.
const FILES: &[File<'static>] = &[
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/app.js"),
    ),
    (
        "keep.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/keep.js"),
    ),
    (
        "lib.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/lib.js"),
    ),
    (
        "games.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/games.js"),
    ),
    (
        "tally.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/tally.js"),
    ),
    (
        "tournament.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/tournament.js"),
    ),
    (
        "club.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/club.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_bytes!("../../web/style.css"),
    ),
    (
        "vendor/qrcode.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../web/vendor/qrcode.js"),
    ),
    (
        "icon.svg",
        "image/svg+xml",
        include_bytes!("../../web/icon.svg"),
    ),
    (
        "icon-192.png",
        "image/png",
        include_bytes!("../../web/icon-192.png"),
    ),
    (
        "icon-512.png",
        "image/png",
        include_bytes!("../../web/icon-512.png"),
    ),
    (
        "icon-maskable-512.png",
        "image/png",
        include_bytes!("../../web/icon-maskable-512.png"),
    ),
];

const INDEX: &str = include_str!("../../web/index.html");
const MANIFEST: &str = include_str!("../../web/manifest.webmanifest");
const SERVICE_WORKER: &str = include_str!("../../web/sw.js");

/// `Cache-Control` of a content-hashed name: its content never changes.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// `Cache-Control` of the index, the worker, the manifest and the plain names: ask each time
/// (an `If-None-Match` that still matches costs a 304 without a body).
const REVALIDATE: &str = "no-cache";

/// One prepared file: its body as served and compressed, and its strong validator.
pub struct Prepared {
    content_type: &'static str,
    identity: web::Bytes,
    gzip: Option<web::Bytes>,
    br: Option<web::Bytes>,
    /// The content hash (hex), quoted and suffixed per encoding to make the `ETag`.
    tag: String,
}

/// The page's files as served: built once ([`files`]).
pub struct Files {
    /// By path under `/web/`: both the plain name and the hashed one. The bool: hashed.
    assets: HashMap<String, (usize, bool)>,
    prepared: Vec<Prepared>,
    /// The hashed path (under `/web/`) of each file, in the order of the files given.
    hashed: Vec<String>,
    index: Prepared,
    manifest: Prepared,
    worker: Prepared,
    /// The hash of the whole set (the service worker's cache name).
    version: String,
}

impl Files {
    /// The hashed URL (`/web/app.3f2a9c1e07.js`) of a file of `web/` (`app.js`), if there is one.
    pub fn hashed_url(&self, name: &str) -> Option<String> {
        let (i, _) = self.assets.get(name)?;
        Some(format!("/web/{}", self.hashed[*i]))
    }

    /// The hash of the whole set of files: it names the service worker's cache.
    pub fn version(&self) -> &str {
        &self.version
    }
}

fn sha_hex(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    hex::encode(h.finalize())
}

/// `app.js` + hash → `app.<hash>.js` (the hash before the last extension).
fn hashed_name(name: &str, hash: &str) -> String {
    match name.rfind('.') {
        Some(dot) if !name[dot..].contains('/') => {
            format!("{}.{}{}", &name[..dot], hash, &name[dot..])
        }
        _ => format!("{name}.{hash}"),
    }
}

fn is_text(content_type: &str) -> bool {
    content_type.starts_with("text/")
        || content_type.starts_with("application/manifest+json")
        || content_type.starts_with("image/svg+xml")
}

/// How a text file in directory `dir` (`""` or `"vendor/"`) names `target` (a path under
/// `/web/`): the absolute URL and, for a file in the same directory or below, `./…`; each in
/// double and single quotes. The page's files name each other only so (import specifiers, the
/// index's links, the QR library's URL in lib.js, the manifest's icons).
fn spellings(dir: &str, target: &str) -> Vec<String> {
    let mut forms = vec![format!("/web/{target}")];
    if let Some(rel) = target.strip_prefix(dir) {
        forms.push(format!("./{rel}"));
    }
    forms
        .iter()
        .flat_map(|f| [format!("\"{f}\""), format!("'{f}'")])
        .collect()
}

fn dir_of(name: &str) -> &str {
    name.rfind('/').map_or("", |i| &name[..=i])
}

/// Rewrites every spelling of one of `files` in `text` (a file in `dir`) to its hashed name.
fn rewrite(text: &str, dir: &str, files: &[File], hashed: &[String]) -> String {
    let mut out = text.to_owned();
    for ((name, _, _), new) in files.iter().zip(hashed) {
        let new_forms = spellings(dir, new);
        for (old, new) in spellings(dir, name).iter().zip(new_forms) {
            if out.contains(old.as_str()) {
                out = out.replace(old.as_str(), &new);
            }
        }
    }
    out
}

fn compress(data: &[u8]) -> (Option<web::Bytes>, Option<web::Bytes>) {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let gzip = gz.write_all(data).and_then(|_| gz.finish()).ok();
    let mut br = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 22,
        ..Default::default()
    };
    let br = brotli::BrotliCompress(&mut &data[..], &mut br, &params)
        .ok()
        .map(|_| br);
    // Only where it saves something.
    let smaller = |c: Option<Vec<u8>>| c.filter(|c| c.len() < data.len()).map(web::Bytes::from);
    (smaller(gzip), smaller(br))
}

fn prepare(content_type: &'static str, body: Vec<u8>, hash: Option<String>) -> Prepared {
    let tag = hash.unwrap_or_else(|| sha_hex(&[&body])[..20].to_owned());
    let (gzip, br) = if is_text(content_type) {
        compress(&body)
    } else {
        (None, None)
    };
    Prepared {
        content_type,
        identity: body.into(),
        gzip,
        br,
        tag,
    }
}

fn build() -> Files {
    build_from(FILES, INDEX, MANIFEST, SERVICE_WORKER)
}

/// Prepares `files` and the index, manifest and worker that name them.
fn build_from(files: &[File], index: &str, manifest: &str, worker: &str) -> Files {
    let texts: Vec<Option<&str>> = files
        .iter()
        .map(|(_, ct, b)| is_text(ct).then(|| std::str::from_utf8(b).ok()).flatten())
        .collect();
    // Which files each file names (directly).
    let names: Vec<Vec<usize>> = files
        .iter()
        .enumerate()
        .map(|(i, (name, _, _))| {
            let Some(text) = texts[i] else { return vec![] };
            files
                .iter()
                .enumerate()
                .filter(|(j, (other, _, _))| {
                    *j != i
                        && spellings(dir_of(name), other)
                            .iter()
                            .any(|s| text.contains(s.as_str()))
                })
                .map(|(j, _)| j)
                .collect()
        })
        .collect();
    // A file's hash covers its own content and that of every file it reaches through the names
    // it holds: change any of them and its (rewritten) content, hence its name, changes too.
    let hashes: Vec<String> = (0..files.len())
        .map(|i| {
            let mut seen = BTreeSet::from([i]);
            let mut todo = vec![i];
            while let Some(f) = todo.pop() {
                for &n in &names[f] {
                    if seen.insert(n) {
                        todo.push(n);
                    }
                }
            }
            let parts: Vec<&[u8]> = seen
                .iter()
                .flat_map(|&f| [files[f].0.as_bytes(), files[f].2])
                .collect();
            sha_hex(&parts)[..10].to_owned()
        })
        .collect();
    let hashed: Vec<String> = files
        .iter()
        .zip(&hashes)
        .map(|((name, _, _), h)| hashed_name(name, h))
        .collect();
    let prepared: Vec<Prepared> = files
        .iter()
        .enumerate()
        .map(|(i, (name, ct, body))| {
            let body = match texts[i] {
                Some(text) if !names[i].is_empty() => {
                    rewrite(text, dir_of(name), files, &hashed).into_bytes()
                }
                _ => body.to_vec(),
            };
            prepare(ct, body, Some(hashes[i].clone()))
        })
        .collect();
    let mut assets = HashMap::new();
    for (i, (name, _, _)) in files.iter().enumerate() {
        assets.insert((*name).to_owned(), (i, false));
        assets.insert(hashed[i].clone(), (i, true));
    }
    let index = rewrite(index, "", files, &hashed);
    let manifest = rewrite(manifest, "", files, &hashed);
    let version = sha_hex(&[index.as_bytes(), manifest.as_bytes(), worker.as_bytes()])[..10]
        .to_owned()
        + &sha_hex(&hashed.iter().map(|h| h.as_bytes()).collect::<Vec<_>>())[..6];
    // The worker learns what to keep from a line the server puts before its script: the set's
    // hash (its cache's name) and every URL of the shell. A new binary with other files is a new
    // worker script, which the browser installs in place of the old one.
    let mut shell: Vec<String> = vec!["/".into(), "/manifest.webmanifest".into()];
    shell.extend(hashed.iter().map(|h| format!("/web/{h}")));
    let worker = format!(
        "const BUILD = {};\n{worker}",
        serde_json::json!({ "version": version, "shell": shell })
    );
    Files {
        assets,
        hashed,
        index: prepare("text/html; charset=utf-8", index.into_bytes(), None),
        manifest: prepare("application/manifest+json", manifest.into_bytes(), None),
        worker: prepare("text/javascript; charset=utf-8", worker.into_bytes(), None),
        prepared,
        version,
    }
}

static FILES_SERVED: OnceLock<Files> = OnceLock::new();

/// The page's files as served, prepared on first use (hashing, rewriting, compressing): by
/// [`warm_up`] as the server starts; a request that comes before they are ready waits for them
/// (measured: 1.5 s in a debug build).
pub fn files() -> &'static Files {
    FILES_SERVED.get_or_init(build)
}

/// Prepares the page's files on a thread of its own, so that the first phone does not wait for
/// the compression (the server calls this as it starts).
pub fn warm_up() {
    std::thread::spawn(|| {
        let started = std::time::Instant::now();
        let f = files();
        tracing::debug!(version = f.version(), elapsed = ?started.elapsed(), "page files ready");
    });
}

/// The encodings a request accepts (`Accept-Encoding`, with `q=0` meaning no): (brotli, gzip).
fn accepted(req: &HttpRequest) -> (bool, bool) {
    let mut br = false;
    let mut gzip = false;
    for value in req.headers().get_all(header::ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let refused = parts.any(|p| {
                let p = p.trim().to_ascii_lowercase();
                p.strip_prefix("q=")
                    .is_some_and(|q| q.trim().parse::<f32>().map_or(true, |q| q <= 0.0))
            });
            if refused {
                continue;
            }
            match coding.as_str() {
                "br" => br = true,
                "gzip" | "x-gzip" => gzip = true,
                _ => {}
            }
        }
    }
    (br, gzip)
}

/// Whether `If-None-Match` names this file's content (in any of its encodings), or is `*`.
fn not_modified(req: &HttpRequest, tag: &str) -> bool {
    req.headers()
        .get_all(header::IF_NONE_MATCH)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/").trim_matches('"'))
        .any(|t| t == "*" || t.split('.').next() == Some(tag))
}

/// Answers with a prepared file in the best encoding the request accepts, or a 304.
fn serve(req: &HttpRequest, file: &Prepared, cache_control: &'static str) -> HttpResponse {
    let (br, gzip) = accepted(req);
    let (body, encoding, suffix) = match (&file.br, &file.gzip) {
        (Some(b), _) if br => (b, Some("br"), ".br"),
        (_, Some(g)) if gzip => (g, Some("gzip"), ".gz"),
        _ => (&file.identity, None, ""),
    };
    let etag = format!("\"{}{suffix}\"", file.tag);
    let same = not_modified(req, &file.tag);
    let mut res = if same {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    res.insert_header((header::CACHE_CONTROL, cache_control))
        .insert_header((header::ETAG, etag))
        .insert_header((header::VARY, "Accept-Encoding"));
    if same {
        return res.finish();
    }
    res.content_type(file.content_type);
    if let Some(e) = encoding {
        res.insert_header((header::CONTENT_ENCODING, e));
    }
    res.body(body.clone())
}

/// `GET /`: the page, under its policy.
pub async fn index(req: HttpRequest) -> HttpResponse {
    let mut res = serve(&req, &files().index, REVALIDATE);
    res.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(PAGE_CSP),
    );
    res
}

/// `GET /sw.js`: the service worker (at the root, so that its scope is the whole page), under
/// [`WORKER_CSP`].
pub async fn service_worker(req: HttpRequest) -> HttpResponse {
    let mut res = serve(&req, &files().worker, REVALIDATE);
    res.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(WORKER_CSP),
    );
    res
}

/// `GET /manifest.webmanifest`: what a phone needs to install the page as an app.
pub async fn manifest(req: HttpRequest) -> HttpResponse {
    serve(&req, &files().manifest, REVALIDATE)
}

/// `GET /web/{file}`: its scripts, style sheet, icons and the vendored QR encoder, by their
/// hashed names (immutable) or their plain ones (revalidated).
pub async fn asset(req: HttpRequest, path: web::Path<String>) -> HttpResponse {
    let f = files();
    match f.assets.get(path.as_str()) {
        Some(&(i, hashed)) => serve(
            &req,
            &f.prepared[i],
            if hashed { IMMUTABLE } else { REVALIDATE },
        ),
        None => crate::routes::fallback_not_found(),
    }
}

/// Registers the page's routes (outside the spec: they are not the API).
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(index))
        .route("/sw.js", web::get().to(service_worker))
        .route("/manifest.webmanifest", web::get().to(manifest))
        .route("/web/{file:.*}", web::get().to(asset));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_names_keep_the_extension() {
        assert_eq!(hashed_name("app.js", "abc"), "app.abc.js");
        assert_eq!(
            hashed_name("vendor/qrcode.js", "abc"),
            "vendor/qrcode.abc.js"
        );
        assert_eq!(hashed_name("icon-192.png", "abc"), "icon-192.abc.png");
    }

    #[test]
    fn every_name_a_file_holds_is_rewritten_to_a_hashed_one() {
        let f = files();
        for (i, (name, ct, _)) in FILES.iter().enumerate() {
            if !is_text(ct) {
                continue;
            }
            let text = std::str::from_utf8(&f.prepared[i].identity).unwrap();
            for (other, _, _) in FILES {
                for s in spellings(dir_of(name), other) {
                    assert!(!text.contains(&s), "{name} still names {s}");
                }
            }
        }
        let index = std::str::from_utf8(&f.index.identity).unwrap();
        assert!(index.contains(&f.hashed_url("app.js").unwrap()), "{index}");
        assert!(!index.contains("\"/web/app.js\""), "{index}");
    }

    fn text(p: &Prepared) -> &str {
        std::str::from_utf8(&p.identity).unwrap()
    }

    #[test]
    fn a_changed_file_renames_itself_what_names_it_and_the_worker_cache() {
        const JS: &str = "text/javascript; charset=utf-8";
        let files = |qr: &'static [u8]| -> Vec<File<'static>> {
            vec![
                (
                    "app.js",
                    JS,
                    b"import { x } from './lib.js';\nimport './keep.js';",
                ),
                (
                    "lib.js",
                    JS,
                    b"export const x = 1; const QR = \"/web/vendor/q.js\";",
                ),
                ("keep.js", JS, b"export {};"),
                ("vendor/q.js", JS, qr),
            ]
        };
        let index = "<script type=\"module\" src=\"/web/app.js\"></script>";
        let before = build_from(&files(b"var q = 1;"), index, "{}", "// worker");
        let after = build_from(&files(b"var q = 2;"), index, "{}", "// worker");
        // The encoder, lib.js that names it and app.js that imports lib.js get new names;
        // keep.js, which reaches nothing that changed, keeps its own.
        for (i, name) in ["app.js", "lib.js", "", "vendor/q.js"].iter().enumerate() {
            if name.is_empty() {
                assert_eq!(before.hashed[i], after.hashed[i]);
            } else {
                assert_ne!(before.hashed[i], after.hashed[i], "{name}");
                assert!(after.hashed[i].ends_with(".js"), "{}", after.hashed[i]);
            }
        }
        assert_ne!(before.version, after.version);
        // Each body names the others by their new names, in the quotes it used.
        let app = text(&after.prepared[0]);
        assert!(app.contains(&format!("'./{}'", after.hashed[1])), "{app}");
        assert!(app.contains(&format!("'./{}'", after.hashed[2])), "{app}");
        let lib = text(&after.prepared[1]);
        assert!(
            lib.contains(&format!("\"/web/{}\"", after.hashed[3])),
            "{lib}"
        );
        let index = text(&after.index);
        assert!(
            index.contains(&format!("\"/web/{}\"", after.hashed[0])),
            "{index}"
        );
        // The worker's script changes with the set, so browsers install the new one.
        assert_ne!(text(&before.worker), text(&after.worker));
        assert!(text(&after.worker).contains(&after.version));
    }

    #[test]
    fn files_that_name_each_other_in_a_circle_get_names_too() {
        const JS: &str = "text/javascript; charset=utf-8";
        let a: &[File] = &[
            ("a.js", JS, b"import './b.js';"),
            ("b.js", JS, b"import './a.js';"),
        ];
        let f = build_from(a, "", "{}", "");
        assert!(text(&f.prepared[0]).contains(&f.hashed[1]));
        assert!(text(&f.prepared[1]).contains(&f.hashed[0]));
        assert_ne!(f.hashed[0], f.hashed[1]);
    }

    /// What compressing per request would cost (actix-web's `Compress` middleware: brotli at
    /// quality 3, gzip at level 6, on every answer) against the answers prepared once here (a
    /// reference count). `cargo test --lib routes::page -- --ignored --nocapture`; the figures
    /// are in docs/performance.md.
    #[test]
    #[ignore]
    fn per_request_compression_cost() {
        let f = files();
        let n = 50;
        let time = |label: &str, work: &dyn Fn(&Prepared) -> usize| {
            let started = std::time::Instant::now();
            let mut out = 0;
            for _ in 0..n {
                for p in &f.prepared {
                    out += work(p);
                }
            }
            let per = started.elapsed() / n;
            println!(
                "{label}: {per:?} per load of the {} files ({} bytes out)",
                f.prepared.len(),
                out / n as usize
            );
        };
        time("brotli q3 per request", &|p| {
            let mut out = Vec::new();
            let params = brotli::enc::BrotliEncoderParams {
                quality: 3,
                ..Default::default()
            };
            brotli::BrotliCompress(&mut &p.identity[..], &mut out, &params).unwrap();
            out.len()
        });
        time("gzip 6 per request", &|p| {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
            gz.write_all(&p.identity).unwrap();
            gz.finish().unwrap().len()
        });
        time("prepared once (br)", &|p| {
            p.br.clone().unwrap_or_else(|| p.identity.clone()).len()
        });
        let started = std::time::Instant::now();
        let _ = build();
        println!("preparing the whole set once: {:?}", started.elapsed());
    }
}

//! The fan-out baseline of `scripts/stream-fanout.sh` (issue 25, part 2): actix-web sending one
//! shared frame to every open stream, and nothing else.
//!
//! What a write costs a server that has no rules, no database, no tokens, no views and no
//! rendering, only the same HTTP stack (actix-web, the same worker count and connection
//! settings as `clubroom serve`) and the same stream body (a `futures` stream the connection
//! polls, woken by a `tokio::sync::watch` channel, handing out a reference-counted `Bytes`).
//! Whatever Clubroom's fan-out costs beyond this is the price of its own work; what this costs
//! is the floor of the stack: the connection's wake-up, the chunk's encoding and the socket's
//! `write` for each stream.
//!
//! The routes are the ones the script calls, with the shapes it reads:
//! - `POST /v1/matches` answers `{"match": {"id": ...}, "host_token": "-"}` (one match: every
//!   stream follows the same frames, whatever match it names);
//! - `GET /v1/matches/{id}/stream` sends `retry: 2000`, then the current frame, then each new
//!   one, as `text/event-stream` (closing the connection with the stream, as Clubroom does);
//! - `POST /v1/matches/{id}/actions` makes the next frame, `id: N` / `event: event` and `id: N` /
//!   `event: match` messages of `FANOUT_FRAME_BYTES` bytes in all (default 2,048: pass the size
//!   of Clubroom's frames, which the script prints, for a fair comparison), announces it, and
//!   answers 201 `{"event": {"seq": N}, "match": {"seq": N}}`.
//!
//! Not part of the product; not in the spec. Usage: `fanout_baseline serve --bind
//! 127.0.0.1:8082` (other arguments, such as the script's `--database-url`, are ignored).

use std::{net::TcpListener, time::Duration};

use actix_web::{get, http::header, post, web, App, HttpResponse, HttpServer};
use tokio::sync::watch;

/// The latest frame and its seq.
struct Frames {
    tx: watch::Sender<(i64, web::Bytes)>,
    size: usize,
}

impl Frames {
    /// The frame of seq `seq`: an event message and a match message, padded to `size` bytes.
    fn frame(&self, seq: i64) -> web::Bytes {
        let event = format!("id: {seq}\nevent: event\ndata: {{\"seq\":{seq}}}\n\n");
        let head = format!("id: {seq}\nevent: match\ndata: {{\"seq\":{seq},\"pad\":\"");
        let tail = "\"}\n\n";
        let pad = self
            .size
            .saturating_sub(event.len() + head.len() + tail.len());
        let mut out = String::with_capacity(self.size);
        out.push_str(&event);
        out.push_str(&head);
        out.extend(std::iter::repeat_n('x', pad));
        out.push_str(tail);
        web::Bytes::from(out)
    }
}

#[post("/v1/matches")]
async fn create() -> HttpResponse {
    HttpResponse::Created().json(serde_json::json!({
        "match": {"id": "0".repeat(32)},
        "host_token": "-",
    }))
}

#[post("/v1/matches/{id}/actions")]
async fn act(frames: web::Data<Frames>, _body: web::Bytes) -> HttpResponse {
    let seq = frames.tx.borrow().0 + 1;
    frames.tx.send_replace((seq, frames.frame(seq)));
    HttpResponse::Created().json(serde_json::json!({
        "event": {"seq": seq},
        "match": {"seq": seq},
    }))
}

#[get("/v1/matches/{id}/stream")]
async fn stream(frames: web::Data<Frames>) -> HttpResponse {
    let rx = frames.tx.subscribe();
    let first = web::Bytes::from_static(b"retry: 2000\n\n");
    // (receiver, whether the current frame is still to send)
    let body = futures_util::stream::once(async move { Ok(first) }).chain(
        futures_util::stream::unfold((rx, true), |(mut rx, current)| async move {
            if !current && rx.changed().await.is_err() {
                return None;
            }
            let bytes = rx.borrow_and_update().1.clone();
            Some((Ok::<_, std::convert::Infallible>(bytes), (rx, false)))
        }),
    );
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .force_close()
        .streaming(body)
}

use futures_util::StreamExt;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut bind = "127.0.0.1:8082".to_string();
    while let Some(a) = args.next() {
        if a == "--bind" {
            bind = args.next().unwrap_or(bind);
        }
    }
    let size = std::env::var("FANOUT_FRAME_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2048);
    let (tx, _) = watch::channel((0, web::Bytes::new()));
    let frames = web::Data::new(Frames { tx, size });
    frames.tx.send_replace((0, frames.frame(0)));
    // Clubroom's worker count (one per core) and stream-friendly settings.
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    actix_web::rt::System::new().block_on(async move {
        let listener = TcpListener::bind(&bind)?;
        HttpServer::new(move || {
            App::new()
                .app_data(frames.clone())
                .service(create)
                .service(act)
                .service(stream)
        })
        .workers(workers)
        .max_connections(25_000)
        .client_disconnect_timeout(Duration::from_secs(1))
        .h1_allow_half_closed(false)
        .shutdown_timeout(1)
        .listen(listener)?
        .run()
        .await
    })
}

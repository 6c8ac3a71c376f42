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
//! `FANOUT_RAW=1` drops actix-web too: a bare tokio server (two worker threads) that parses
//! just enough HTTP/1.1 for the script, encodes each frame as one chunk once per write, and
//! gives every stream's task that same buffer to `write_all`: one wake-up and one `write` per
//! stream, no per-stream copy or encoding. That is the floor of the kernel and the runtime.
//!
//! Not part of the product; not in the spec. Usage: `fanout_baseline serve --bind
//! 127.0.0.1:8082` (other arguments, such as the script's `--database-url`, are ignored).

use std::{net::TcpListener, time::Duration};

use actix_web::{get, http::header, post, web, App, HttpResponse, HttpServer};
use futures_util::StreamExt;
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

/// `FANOUT_RAW=1`: the bare tokio server (see the module's notes).
mod raw {
    use tokio::{
        io::{AsyncReadExt, AsyncWriteExt},
        net::{TcpListener, TcpStream},
        sync::watch,
    };

    use super::{web::Bytes, Frames};

    /// `frame` as one chunk of the chunked transfer coding.
    fn chunk(frame: &[u8]) -> Bytes {
        let mut out = format!("{:X}\r\n", frame.len()).into_bytes();
        out.extend_from_slice(frame);
        out.extend_from_slice(b"\r\n");
        Bytes::from(out)
    }

    /// Answers one connection's requests until it closes or becomes a stream.
    async fn serve(mut sock: TcpStream, frames: &Frames, chunks: watch::Receiver<Bytes>) {
        let mut buf = Vec::with_capacity(4096);
        loop {
            let head_end = loop {
                if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    break i + 4;
                }
                if !matches!(sock.read_buf(&mut buf).await, Ok(1..)) {
                    return;
                }
            };
            let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            while buf.len() < head_end + length {
                if !matches!(sock.read_buf(&mut buf).await, Ok(1..)) {
                    return;
                }
            }
            buf.drain(..head_end + length);
            let line = head.lines().next().unwrap_or_default().to_string();
            if line.starts_with("get ") && line.contains("/stream") {
                return stream(sock, chunks).await;
            }
            let body = if line.contains("/actions") {
                let seq = frames.tx.borrow().0 + 1;
                frames.tx.send_replace((seq, frames.frame(seq)));
                format!("{{\"event\":{{\"seq\":{seq}}},\"match\":{{\"seq\":{seq}}}}}")
            } else {
                format!(
                    "{{\"match\":{{\"id\":\"{}\"}},\"host_token\":\"-\"}}",
                    "0".repeat(32)
                )
            };
            let answer = format!(
                "HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
            if sock.write_all(answer.as_bytes()).await.is_err()
                || head.contains("connection: close")
            {
                return;
            }
        }
    }

    /// A stream: the head, `retry:`, the current frame, then each new one.
    async fn stream(mut sock: TcpStream, mut chunks: watch::Receiver<Bytes>) {
        let head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
        let mut first = head.to_vec();
        first.extend_from_slice(&chunk(b"retry: 2000\n\n"));
        first.extend_from_slice(&chunks.borrow_and_update());
        if sock.write_all(&first).await.is_err() {
            return;
        }
        while chunks.changed().await.is_ok() {
            let bytes = chunks.borrow_and_update().clone();
            if sock.write_all(&bytes).await.is_err() {
                return;
            }
        }
    }

    /// Runs the bare server on `listener` until the process is stopped.
    pub fn run(listener: std::net::TcpListener, frames: Frames) -> std::io::Result<()> {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?
            .block_on(async move {
                listener.set_nonblocking(true)?;
                let listener = TcpListener::from_std(listener)?;
                let frames: &'static Frames = Box::leak(Box::new(frames));
                // Each write's frame, chunk-encoded once for every stream.
                let (ctx, crx) = watch::channel(chunk(&frames.tx.borrow().1));
                let mut seqs = frames.tx.subscribe();
                tokio::spawn(async move {
                    while seqs.changed().await.is_ok() {
                        let frame = seqs.borrow_and_update().1.clone();
                        ctx.send_replace(chunk(&frame));
                    }
                });
                loop {
                    let (sock, _) = listener.accept().await?;
                    let _ = sock.set_nodelay(true);
                    let chunks = crx.clone();
                    tokio::spawn(async move { serve(sock, frames, chunks).await });
                }
            })
    }
}

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
    let frames = Frames { tx, size };
    frames.tx.send_replace((0, frames.frame(0)));
    if std::env::var("FANOUT_RAW").is_ok_and(|v| v == "1") {
        return raw::run(TcpListener::bind(&bind)?, frames);
    }
    let frames = web::Data::new(frames);
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

//! `GET /v1/matches/{id}/stream`: the match live, as Server-Sent Events.
//!
//! Each event of the log is sent as the viewer may see it (the same rendering as
//! `GET /v1/matches/{id}/events` for that token), then the viewer's match view. The SSE `id:` is
//! the seq up to which the client holds every event, so a reconnecting `EventSource` resumes with
//! `Last-Event-ID` and gets exactly the events it missed.

use std::{
    sync::atomic::{AtomicUsize, Ordering},
    time::Duration,
};

use actix_web::{
    get,
    http::{header, StatusCode},
    web::{self, Bytes},
    HttpRequest, HttpResponse,
};
use serde::Deserialize;
use tokio::sync::{broadcast::error::RecvError, mpsc};
use utoipa::IntoParams;

use super::bearer;
use crate::{
    error::{ApiError, Problem},
    matches::{live::Change, views::EventView, Matches},
    store::Backend,
};

/// Streams open at once in this process; more are answered 503.
const MAX_STREAMS: usize = 4096;
/// A stream ends after this long; the client reconnects with `Last-Event-ID` and loses nothing.
const MAX_LIFETIME: Duration = Duration::from_secs(30 * 60);
/// A comment line this often keeps proxies and phones from closing an idle stream.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How often a stream asks the database for the match's version, for writes announced by no one
/// it hears: another process on the same SQLite file (on PostgreSQL, NOTIFY tells it at once;
/// the poll is only a safety net there).
const POLL_SQLITE: Duration = Duration::from_secs(1);
const POLL_POSTGRES: Duration = Duration::from_secs(10);
/// Log page size while catching up.
const PAGE: i64 = 1000;

static OPEN: AtomicUsize = AtomicUsize::new(0);

/// Where the stream starts, and how it ends.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// The bearer token, for clients that cannot set headers (a browser's `EventSource`). The
    /// `Authorization` header is preferred when both are sent. A token in a URL can end up in
    /// proxy and access logs and in browser history: send the header where the client can.
    #[param(min_length = 1, max_length = 256)]
    pub token: Option<String>,
    /// Resume after this seq, as the `Last-Event-ID` header does (the header wins when both are
    /// sent). 0 sends the whole log.
    #[param(minimum = 0, maximum = 999_999_999_999_999_999_i64)]
    pub last_event_id: Option<i64>,
    /// `true`: send what is there now (the missed events and the view) and end the stream
    /// instead of following the match.
    pub once: Option<bool>,
}

/// The kinds of message on a stream.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "snake_case")]
#[allow(dead_code)] // documentation only: the messages are written by hand below
pub enum StreamMessageKind {
    /// One event of the log: `data` is an `EventView`.
    Event,
    /// The match view after the change: `data` is a `MatchView`.
    Match,
    /// The stream failed and ends: `data` is `{code, detail}`.
    Error,
}

/// One Server-Sent Events message of the stream (the fields of its `id:`, `event:` and `data:`
/// lines). Comment lines (`: keep-alive`) and `retry:` carry no message.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)] // documentation only
pub struct StreamMessage {
    /// The seq up to which the client now holds every event (what `Last-Event-ID` resumes
    /// from). Absent on `error`.
    #[schema(pattern = "^[0-9]{1,18}$", example = "12")]
    pub id: Option<String>,
    /// What `data` holds.
    pub event: StreamMessageKind,
    /// JSON text: an `EventView` (`event`), a `MatchView` (`match`) or `{code, detail}` (`error`).
    #[schema(content_media_type = "application/json")]
    pub data: String,
}

/// The headers of a stream request, as the spec shows them (read by [`last_event_id`]).
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
pub struct StreamHeaders {
    /// Resume after this seq: the `id:` of the last event received (an `EventSource` sends it
    /// when it reconnects). Without it (or `last_event_id`) the stream starts with the current
    /// view and no past events. Anything but 1 to 18 digits is 400 `invalid_last_event_id`.
    #[param(
        rename = "Last-Event-ID",
        required = false,
        pattern = "^[0-9]{1,18}$",
        example = "12"
    )]
    pub last_event_id: String,
}

fn last_event_id(req: &HttpRequest) -> Result<Option<i64>, ApiError> {
    let Some(h) = req.headers().get("last-event-id") else {
        return Ok(None);
    };
    let s = h.to_str().unwrap_or("").trim();
    if (1..=18).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()) {
        Ok(Some(s.parse().expect("18 digits fit an i64")))
    } else {
        Err(ApiError::bad_request(
            "invalid_last_event_id",
            "Last-Event-ID must be the id of an event of this stream (a seq, e.g. 12)",
        ))
    }
}

/// One SSE message.
fn message(kind: &str, id: i64, data: &str) -> Bytes {
    Bytes::from(format!("id: {id}\nevent: {kind}\ndata: {data}\n\n"))
}

/// Counts an open stream for as long as it lives.
struct Slot;

impl Slot {
    fn take() -> Option<Slot> {
        let n = OPEN.fetch_add(1, Ordering::SeqCst);
        if n >= MAX_STREAMS {
            OPEN.fetch_sub(1, Ordering::SeqCst);
            None
        } else {
            Some(Slot)
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        OPEN.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The match live, as Server-Sent Events (`text/event-stream`).
///
/// Two kinds of message, each with `id:` = the seq up to which the client now holds every event:
/// - `event: event`, `data:` one event of the log exactly as `GET /v1/matches/{id}/events` shows it
///   to this token (an `EventView`: a seat's secrets only to that seat, a service deal's seed only
///   once its round is over);
/// - `event: match`, `data:` this token's match view (a `MatchView`, as `GET /v1/matches/{id}`),
///   sent first and after every change.
///
/// Without `Last-Event-ID` the stream starts with the view (no past events); with it, the events
/// after that seq come first. Lines starting with `:` are keep-alive comments (every 15 s). A
/// stream ends after 30 minutes (`retry:` tells the client when to come back); an `EventSource`
/// then reconnects with `Last-Event-ID` and misses nothing. The token is the usual
/// `Authorization: Bearer`, or `?token=` for `EventSource`, which cannot set headers.
#[utoipa::path(
    tag = "matches",
    params(
        ("id" = String, Path, description = "The match id: 32 lowercase hex digits (any other id is 404)", pattern = "^[0-9a-f]{32}$"),
        StreamQuery,
        StreamHeaders,
    ),
    responses(
        (status = 200, description = "The stream (`once=true`: what is there now, then the end); each message is a `StreamMessage`", content_type = "text/event-stream", body = StreamMessage,
         example = "id: 3\nevent: event\ndata: {\"seq\":3,\"kind\":\"action\",\"seat\":1,\"action\":{\"type\":\"play\",\"card\":\"7H\"},\"round\":1,\"outcome\":[],\"created_at\":\"2026-01-01T00:00:00.000Z\"}\n\nid: 3\nevent: match\ndata: {\"id\":\"...\",\"seq\":3}\n\n"),
        (status = 400, description = "Bad `Last-Event-ID` or query", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A token not valid for this match", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "Too many open streams", body = Problem, content_type = "application/problem+json"),
    ),
    security((), ("bearer" = []))
)]
#[get("/v1/matches/{id}/stream")]
pub async fn stream(
    svc: web::Data<Matches>,
    id: web::Path<String>,
    q: web::Query<StreamQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let q = q.into_inner();
    // The query is judged whole, even where a header takes precedence over a part of it.
    if q.token
        .as_ref()
        .is_some_and(|t| !(1..=256).contains(&t.chars().count()))
    {
        return Err(ApiError::bad_request(
            "invalid_query",
            "token must have 1 to 256 characters",
        ));
    }
    if q.last_event_id
        .is_some_and(|a| !(0..=999_999_999_999_999_999).contains(&a))
    {
        return Err(ApiError::bad_request(
            "invalid_query",
            "last_event_id must be a seq: 0 to 999999999999999999",
        ));
    }
    let token = match bearer(&req)? {
        Some(t) => Some(t),
        None => q.token,
    };
    let after = match last_event_id(&req)? {
        Some(a) => Some(a),
        None => q.last_event_id,
    };
    // Refusals (404, 401) before the stream starts; subscribe first so that nothing committed
    // after this view is missed.
    let changes = svc.live().subscribe();
    let view = svc.view(&id, token.as_deref()).await?;
    let slot = Slot::take().ok_or_else(|| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy",
            "too many open streams; try again later",
        )
    })?;
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    let follower = Follower {
        svc: svc.into_inner(),
        id: id.into_inner(),
        token,
        cursor: after.map_or(view.seq, |a| a.min(view.seq)),
        once: q.once.unwrap_or(false),
        tx,
    };
    actix_web::rt::spawn(async move {
        let _slot = slot;
        follower.run(changes).await;
    });
    let body = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<_, std::convert::Infallible>(b), rx))
    });
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(body))
}

/// One open stream.
struct Follower {
    svc: std::sync::Arc<Matches>,
    id: String,
    token: Option<String>,
    /// The client holds every event up to this seq.
    cursor: i64,
    once: bool,
    tx: mpsc::Sender<Bytes>,
}

/// Why a stream stopped.
enum Stop {
    Gone,
    Failed(ApiError),
}

impl Follower {
    async fn send(&self, b: Bytes) -> Result<(), Stop> {
        self.tx.send(b).await.map_err(|_| Stop::Gone)
    }

    /// Sends the events after the cursor, then the view; again while the view is ahead of the
    /// events sent (a write landed in between).
    async fn catch_up(&mut self) -> Result<(), Stop> {
        // Each round sends what the log holds; another round only when writes keep landing.
        for _ in 0..64 {
            loop {
                let page = self
                    .svc
                    .events(&self.id, self.token.as_deref(), self.cursor, PAGE)
                    .await
                    .map_err(Stop::Failed)?;
                for ev in &page.events {
                    self.send_event(ev).await?;
                }
                if page.next_after.is_none() {
                    break;
                }
            }
            let view = self
                .svc
                .view(&self.id, self.token.as_deref())
                .await
                .map_err(Stop::Failed)?;
            if view.seq > self.cursor {
                continue;
            }
            let data =
                serde_json::to_string(&view).map_err(|e| Stop::Failed(ApiError::internal(&e)))?;
            return self.send(message("match", self.cursor, &data)).await;
        }
        // The match moves faster than this stream reads it: the next announcement or poll
        // brings the rest.
        Ok(())
    }

    async fn send_event(&mut self, ev: &EventView) -> Result<(), Stop> {
        let data = serde_json::to_string(ev).map_err(|e| Stop::Failed(ApiError::internal(&e)))?;
        self.send(message("event", ev.seq, &data)).await?;
        self.cursor = ev.seq;
        Ok(())
    }

    async fn run(mut self, mut changes: tokio::sync::broadcast::Receiver<Change>) {
        let r = self.follow(&mut changes).await;
        if let Err(Stop::Failed(e)) = r {
            let data = serde_json::json!({"code": e.code, "detail": e.detail}).to_string();
            let _ = self
                .send(Bytes::from(format!("event: error\ndata: {data}\n\n")))
                .await;
        }
    }

    async fn follow(
        &mut self,
        changes: &mut tokio::sync::broadcast::Receiver<Change>,
    ) -> Result<(), Stop> {
        self.send(Bytes::from_static(b"retry: 2000\n\n")).await?;
        self.catch_up().await?;
        if self.once {
            return Ok(());
        }
        let poll_every = match self.svc.store().backend() {
            Backend::Sqlite => POLL_SQLITE,
            Backend::Postgres => POLL_POSTGRES,
        };
        let start = tokio::time::Instant::now();
        let mut poll = tokio::time::interval_at(start + poll_every, poll_every);
        let mut keep_alive = tokio::time::interval_at(start + KEEP_ALIVE, KEEP_ALIVE);
        let end = tokio::time::sleep(MAX_LIFETIME);
        tokio::pin!(end);
        loop {
            tokio::select! {
                change = changes.recv() => match change {
                    Ok(c) if c.match_id == self.id && c.seq > self.cursor => self.catch_up().await?,
                    Ok(_) => {}
                    Err(RecvError::Lagged(_)) => self.catch_up().await?,
                    Err(RecvError::Closed) => return Ok(()),
                },
                _ = poll.tick() => {
                    let v = self.svc.store().version(&self.id).await.map_err(|e| Stop::Failed(e.into()))?;
                    if v > self.cursor {
                        self.catch_up().await?;
                    }
                }
                _ = keep_alive.tick() => self.send(Bytes::from_static(b": keep-alive\n\n")).await?,
                _ = self.tx.closed() => return Err(Stop::Gone),
                _ = &mut end => return Ok(()),
            }
        }
    }
}

/// Registers the routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(stream);
}

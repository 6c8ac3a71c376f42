//! `GET /v1/matches/{id}/stream`: the match live, as Server-Sent Events.
//!
//! Each event of the log is sent as the viewer may see it (the same rendering as
//! `GET /v1/matches/{id}/events` for that token), then the viewer's match view. The SSE `id:` is
//! the seq up to which the client holds every event, so a reconnecting `EventSource` resumes with
//! `Last-Event-ID` and gets exactly the events it missed.

use std::{
    collections::{HashMap, VecDeque},
    net::IpAddr,
    pin::Pin,
    sync::{Arc, Mutex, OnceLock},
    time::Duration,
};

use actix_web::{
    get,
    http::{header, StatusCode},
    web::{self, Bytes},
    HttpRequest, HttpResponse,
};
use serde::Deserialize;
use tokio::sync::oneshot;
use utoipa::IntoParams;

use super::{
    bearer,
    responses::{InvalidMatchToken, MatchNotFound, TournamentNotFound},
};
use crate::{
    error::{ApiError, Problem},
    limits::{too_many, Gate, Quotas, STREAM_RETRY_AFTER_SECS},
    matches::{live::Room, views::MatchView, Matches},
    tournaments::service::Tournaments,
};

/// A stream ends after this long; the client reconnects with `Last-Event-ID` and loses nothing.
const MAX_LIFETIME: Duration = Duration::from_secs(30 * 60);
/// A comment line this often keeps proxies and phones from closing an idle stream. It is the one
/// timer of an idle stream (the lifetime is checked when it fires): nothing polls the database.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// Log page size while catching up.
const PAGE: usize = 1000;

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
    /// `full` (the default): every view is a `match` message, score sheet included. `changed`:
    /// a view whose score sheet is the one this stream's previous view carried is sent as a
    /// `match_lite` message, the view without `scores` (the client keeps the sheet it has); the
    /// first view of a stream, and every one whose sheet changed, is a `match`. The sheet grows
    /// a line a round, and most actions (a card played, a bet) leave it as it was, so a client
    /// that keeps the sheet receives a fraction of the bytes. Any other value is 400
    /// `invalid_query`.
    #[param(inline)]
    pub scores: Option<ScoresMode>,
}

/// How a stream sends the score sheet (`scores` in [`StreamQuery`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScoresMode {
    /// In every view (`match` messages only).
    #[default]
    Full,
    /// Only when it changed (`match_lite` for a view whose sheet is unchanged).
    Changed,
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
    /// The match view after the change, on a stream opened with `scores=changed` when the score
    /// sheet is the one of the stream's previous view: `data` is a `MatchViewLite` (the view
    /// without `scores`).
    MatchLite,
    /// The stream failed and ends: `data` is `{code, detail}`.
    Error,
    /// The server is stopping: the stream ends, and the client reconnects (after the `retry:`
    /// sent with it, half a second) with `Last-Event-ID`; `data` is `{code, detail}` with
    /// `code` `server_stopping`.
    Reconnect,
}

/// One Server-Sent Events message of the stream (the fields of its `id:`, `event:` and `data:`
/// lines). Comment lines (`: keep-alive`) and `retry:` carry no message.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)] // documentation only
pub struct StreamMessage {
    /// The seq up to which the client now holds every event (what `Last-Event-ID` resumes
    /// from). Absent on `error` and `reconnect`.
    #[schema(pattern = "^[0-9]{1,18}$", example = "12")]
    pub id: Option<String>,
    /// What `data` holds.
    pub event: StreamMessageKind,
    /// JSON text: an `EventView` (`event`), a `MatchView` (`match`), a `MatchViewLite`
    /// (`match_lite`) or `{code, detail}` (`error`, `reconnect`).
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

/// The open streams of a server: their caps (see [`Quotas`]), what each viewer was last sent,
/// and the way to end them all at once when the server stops.
pub struct Streams {
    max_total: usize,
    max_per_client: usize,
    max_public_per_match: usize,
    max_per_token: usize,
    state: Mutex<Registry>,
}

#[derive(Default)]
struct Registry {
    /// Streams counted (every stream in `viewers`).
    open: usize,
    /// The server is stopping: no new stream.
    closing: bool,
    next_id: u64,
    per_client: HashMap<IpAddr, usize>,
    viewers: HashMap<Viewer, Watchers>,
}

/// Who a stream shows the match to: every stream of one match with one token (or none) is sent
/// the same bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Viewer {
    match_id: String,
    token: Option<String>,
}

/// The streams of one viewer, oldest first, and what they were last sent.
struct Watchers {
    feed: Arc<Feed>,
    held: VecDeque<Held>,
}

/// One counted stream. Dropping `end` ends it (evicted); sending on it tells it to reconnect (the
/// server is stopping).
struct Held {
    id: u64,
    client: IpAddr,
    end: oneshot::Sender<()>,
}

/// A stream's claim on its place in the registry, released when the stream ends.
struct Slot {
    streams: Arc<Streams>,
    viewer: Viewer,
    id: u64,
}

impl Streams {
    /// The streams of a server with these quotas.
    pub fn new(q: &Quotas) -> Streams {
        Streams {
            max_total: q.max_streams,
            max_per_client: q.max_streams_per_client,
            max_public_per_match: q.max_public_streams_per_match,
            max_per_token: q.max_streams_per_token.max(1),
            state: Mutex::default(),
        }
    }

    fn registry(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Streams open now.
    pub fn open(&self) -> usize {
        self.registry().open
    }

    /// Ends every open stream now and refuses new ones (the server is stopping): each ends its
    /// body, so its connection closes and the server's graceful stop does not wait for it.
    pub fn close_all(&self) {
        let mut r = self.registry();
        r.closing = true;
        r.open = 0;
        r.per_client.clear();
        // Each stream is told so: it tells its client to reconnect (to this server's successor)
        // and ends. (An evicted stream's `end` is dropped instead: it just ends.)
        for (_, w) in r.viewers.drain() {
            for held in w.held {
                let _ = held.end.send(());
            }
        }
    }

    /// Whether a new stream of `viewer` from `client` would be counted now: the answer of
    /// [`Streams::take`] before the match is read (a flood is refused without a query).
    fn check(&self, client: IpAddr, viewer: &Viewer) -> Result<(), ApiError> {
        self.admit(&self.registry(), client, viewer).map(|_| ())
    }

    /// Why a new stream of `viewer` from `client` cannot be counted; else whether it ends the
    /// oldest stream of its token.
    fn admit(&self, r: &Registry, client: IpAddr, viewer: &Viewer) -> Result<bool, ApiError> {
        if r.closing {
            let mut e = ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "server_stopping",
                "the server is stopping; connect again in a moment",
            );
            e.retry_after = Some(2);
            return Err(e);
        }
        let held = r.viewers.get(viewer).map_or(0, |w| w.held.len());
        // A token's newest stream ends its oldest past the cap: the newest is the phone that is
        // there now, the oldest most likely one that went away unnoticed. Only that token's
        // holder can do this, so it locks no one else out.
        let evict = match viewer.token {
            Some(_) if held >= self.max_per_token => r.viewers[viewer].held.front(),
            _ => None,
        };
        let freed_here = evict.is_some_and(|h| h.client == client);
        let open = r.open - usize::from(evict.is_some());
        let of_client = r.per_client.get(&client).copied().unwrap_or(0) - usize::from(freed_here);
        if open >= self.max_total {
            let mut e = ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "busy",
                "too many open streams on this server; try again later",
            );
            e.retry_after = Some(STREAM_RETRY_AFTER_SECS);
            return Err(e);
        }
        if of_client >= self.max_per_client {
            return Err(too_many(
                "too_many_streams",
                format!(
                    "this client has {of_client} streams open, the most allowed; close one or \
                     try again later"
                ),
                STREAM_RETRY_AFTER_SECS,
            ));
        }
        if viewer.token.is_none() && held >= self.max_public_per_match {
            if viewer.match_id.starts_with("t:") {
                return Err(too_many(
                    "too_many_streams",
                    format!(
                        "this tournament's feed has {held} streams open, the most allowed; try \
                         again later"
                    ),
                    STREAM_RETRY_AFTER_SECS,
                ));
            }
            return Err(too_many(
                "too_many_streams",
                format!(
                    "this match has {held} streams open without a token, the most allowed; \
                     try again later (streams with a seat's or the host's token do not count \
                     here)"
                ),
                STREAM_RETRY_AFTER_SECS,
            ));
        }
        Ok(evict.is_some())
    }

    /// Counts a new stream of `viewer` from `client`, or says why not.
    fn take(
        self: &Arc<Self>,
        client: IpAddr,
        viewer: Viewer,
    ) -> Result<(Slot, Arc<Feed>, oneshot::Receiver<()>), ApiError> {
        let mut r = self.registry();
        let evict = self.admit(&r, client, &viewer)?;
        if evict {
            let old = r
                .viewers
                .get_mut(&viewer)
                .and_then(|w| w.held.pop_front())
                .expect("checked above");
            r.release(old.client);
        }
        r.open += 1;
        *r.per_client.entry(client).or_default() += 1;
        r.next_id += 1;
        let id = r.next_id;
        let (end_tx, end_rx) = oneshot::channel();
        let w = r.viewers.entry(viewer.clone()).or_insert_with(|| Watchers {
            feed: Arc::default(),
            held: VecDeque::new(),
        });
        w.held.push_back(Held {
            id,
            client,
            end: end_tx,
        });
        let feed = w.feed.clone();
        let slot = Slot {
            streams: self.clone(),
            viewer,
            id,
        };
        Ok((slot, feed, end_rx))
    }
}

impl Registry {
    /// Uncounts one stream of `client`.
    fn release(&mut self, client: IpAddr) {
        self.open -= 1;
        if let Some(n) = self.per_client.get_mut(&client) {
            *n -= 1;
            if *n == 0 {
                self.per_client.remove(&client);
            }
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut r = self.streams.registry();
        let Some(w) = r.viewers.get_mut(&self.viewer) else {
            return; // already released (the server is stopping)
        };
        let Some(at) = w.held.iter().position(|h| h.id == self.id) else {
            return; // already released (evicted)
        };
        let held = w.held.remove(at).expect("found");
        if w.held.is_empty() {
            r.viewers.remove(&self.viewer);
        }
        r.release(held.client);
    }
}

/// What one viewer's streams are sent, rendered once for all of them: after a write, the first
/// of them to wake renders the frame from the room's tail, and the others wait for it (all woken
/// at once when it is there, not one after the other) and send the same bytes.
#[derive(Default)]
struct Feed {
    /// The latest renderings, newest last (a few: streams of one viewer may stand at different
    /// seqs for a moment, a new one joining).
    attempts: Mutex<VecDeque<Arc<Attempt>>>,
}

/// How many renderings a feed keeps.
const ATTEMPTS_KEPT: usize = 4;

/// One rendering of a viewer's frame from seq `from`, shared by the streams that need it.
struct Attempt {
    from: i64,
    wanted: i64,
    done: tokio::sync::OnceCell<Result<Arc<Rendered>, Failed>>,
}

/// A reading that failed (the database unavailable...): the streams that waited for it end with
/// the same error, rather than each trying again in turn (a thousand streams times a 3 s
/// connection timeout). Their clients reconnect and try again.
#[derive(Clone)]
struct Failed {
    at: tokio::time::Instant,
    error: ApiError,
}

/// How long a failed reading answers the streams that ask for the same one.
const FAILURE_SHARED_FOR: Duration = Duration::from_secs(1);

/// The messages that take a client from seq `from` to seq `to`.
struct Rendered {
    to: i64,
    bytes: Bytes,
    /// Ends with the view at `to` (else: only events, more to read).
    complete: bool,
    /// A complete match frame's view, for the `scores=changed` streams (None otherwise).
    view: Option<LiteView>,
}

/// The view of a rendered match frame as `scores=changed` streams need it: its sheet's
/// fingerprint and its `match_lite` form, each worked out by the first such stream that asks
/// (a viewer followed only by `scores=full` streams never pays for them).
struct LiteView {
    /// The length of the frame's events (the bytes before its `match` message).
    events: usize,
    view: MatchView,
    sheet: OnceLock<u64>,
    lite: OnceLock<Bytes>,
}

impl LiteView {
    /// A fingerprint of the view's score sheet: two views with equal fingerprints carry the
    /// same sheet (a 64-bit hash of its JSON text; a collision is as likely as a hardware fault).
    fn sheet(&self) -> u64 {
        *self.sheet.get_or_init(|| {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            self.view.scores.get().hash(&mut h);
            h.finish()
        })
    }

    /// The frame `r` with its view as `match_lite`: the view without `scores`.
    fn lite(&self, r: &Rendered) -> Bytes {
        self.lite
            .get_or_init(|| {
                let mut lite = r.bytes[..self.events].to_vec();
                match lite_view(&self.view) {
                    Ok(data) => lite.extend_from_slice(&message("match_lite", r.to, &data)),
                    Err(_) => return r.bytes.clone(), // the whole view, then
                }
                Bytes::from(lite)
            })
            .clone()
    }
}

impl Rendered {
    /// Whether these bytes serve a client that must reach `wanted`: the log only grows and a
    /// view at a seq never changes, so what took a client from `from` to `to` takes any other
    /// client there too.
    fn reaches(&self, from: i64, wanted: i64) -> bool {
        if self.complete {
            self.to >= wanted
        } else {
            self.to > from
        }
    }
}

impl Feed {
    /// The rendering from `from` to serve a client that must reach `wanted`: one under way or
    /// done that may serve it, else a new one.
    fn attempt(&self, from: i64, wanted: i64) -> Arc<Attempt> {
        let mut attempts = self.attempts.lock().unwrap_or_else(|p| p.into_inner());
        let usable = attempts.iter().rev().find(|a| {
            a.from == from
                && match a.done.get() {
                    None => a.wanted >= wanted,
                    Some(Ok(r)) => r.reaches(from, wanted),
                    Some(Err(f)) => a.wanted >= wanted && f.at.elapsed() < FAILURE_SHARED_FOR,
                }
        });
        if let Some(a) = usable {
            return a.clone();
        }
        let a = Arc::new(Attempt {
            from,
            wanted,
            done: tokio::sync::OnceCell::new(),
        });
        attempts.push_back(a.clone());
        if attempts.len() > ATTEMPTS_KEPT {
            attempts.pop_front();
        }
        a
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
/// stream ends after 30 minutes, or when the server stops (then with an `event: reconnect`
/// message, and `retry:` tells the client when to come back); an `EventSource` then reconnects
/// with `Last-Event-ID` and misses nothing. The token is
/// the usual `Authorization: Bearer`, or `?token=` for `EventSource`, which cannot set headers.
///
/// Streams are capped per client (IP address), tokenless ones per match, and per token (a
/// token's newest stream ends its oldest past the cap): over a cap, 429 `too_many_streams` with
/// `Retry-After`.
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
        InvalidMatchToken,
        MatchNotFound,
        (status = 429, description = "`too_many_streams`: this client holds as many streams as it may, or this match as many tokenless ones", body = Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait before retrying"))),
        (status = 503, description = "`busy`: too many open streams on this server; `server_stopping`: the server is restarting; `storage_unavailable`", body = Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait before retrying"))),
    ),
    security((), ("bearer" = []))
)]
#[get("/v1/matches/{id}/stream")]
pub async fn stream(
    svc: web::Data<Matches>,
    streams: web::Data<Streams>,
    gate: web::Data<Gate>,
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
    let id = id.into_inner();
    let viewer = Viewer {
        match_id: id.clone(),
        token: token.clone(),
    };
    let client = gate.client(&req);
    // Over a cap: refused before the match is read. Then the match's refusals (404, 401), then
    // the stream is counted (the caps again: other streams may have come meanwhile).
    streams.check(client, &viewer)?;
    let view = svc.view(&id, token.as_deref()).await?;
    let (slot, feed, end) = streams.into_inner().take(client, viewer)?;
    // In the room before the first read of the log: nothing committed after that read is missed.
    let room = svc.live().watch(&id);
    let beat = Box::pin(tokio::time::sleep(KEEP_ALIVE));
    let follower = Follower {
        source: Source::Match {
            svc: svc.into_inner(),
            token,
        },
        cursor: after.map_or(view.seq, |a| a.min(view.seq)),
        // The log's end as the request read it: the stream reaches it (see `Phase::Start`).
        wanted: view.seq,
        once: q.once.unwrap_or(false),
        scores: q.scores.unwrap_or_default(),
        sheet: None,
        feed,
        room,
        end,
        beat,
        until: tokio::time::Instant::now() + MAX_LIFETIME,
        rounds: 0,
        phase: Phase::Start,
        _slot: slot,
    };
    Ok(respond(follower))
}

/// The response whose body is `follower`.
fn respond(follower: Follower) -> HttpResponse {
    // The body is the follower itself, polled by the connection: a write wakes it once, and a
    // client gone (the connection closed) drops it, and so frees its slot, at once.
    let body = futures_util::stream::unfold(follower, |mut f| async move {
        f.next()
            .await
            .map(|b| (Ok::<_, std::convert::Infallible>(b), f))
    });
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        // The connection closes with the stream: a stream that ends (its time is up, the server
        // stops) leaves no idle connection behind for a stop to wait for.
        .force_close()
        .streaming(body)
}

/// What a stream follows.
enum Source {
    /// A match, as the bearer of `token` sees it.
    Match {
        svc: Arc<Matches>,
        token: Option<String>,
    },
    /// A tournament's feed (public: the same for everyone).
    Tournament { svc: Arc<Tournaments>, id: String },
}

/// What a stream sends when the server stops: come back (to its successor) in half a second,
/// with `Last-Event-ID`.
const RECONNECT: &[u8] = b"retry: 500\nevent: reconnect\ndata: {\"code\":\"server_stopping\",\"detail\":\"the server is restarting; reconnect with Last-Event-ID\"}\n\n";

/// Where a stream stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Nothing sent yet.
    Start,
    /// Sending what the client lacks, up to `wanted`.
    CatchUp,
    /// Waiting for a write.
    Follow,
    /// Ends after what is sent.
    Done,
}

/// One open stream: the body of its response.
struct Follower {
    source: Source,
    /// The client holds every event up to this seq.
    cursor: i64,
    /// A seq announced that the client must reach.
    wanted: i64,
    once: bool,
    /// How views carry the score sheet.
    scores: ScoresMode,
    /// `scores=changed`: the fingerprint of the sheet in the last view sent (None: no view yet).
    sheet: Option<u64>,
    feed: Arc<Feed>,
    room: Room,
    /// Resolves when the stream is evicted or the server stops.
    end: oneshot::Receiver<()>,
    beat: Pin<Box<tokio::time::Sleep>>,
    until: tokio::time::Instant,
    /// Frames sent in this catch-up.
    rounds: u32,
    phase: Phase,
    _slot: Slot,
}

impl Follower {
    /// The next bytes of the stream (None: it ends).
    async fn next(&mut self) -> Option<Bytes> {
        loop {
            match self.phase {
                Phase::Done => return None,
                Phase::Start => {
                    self.phase = Phase::CatchUp;
                    // What the room has heard of, and at least what the request read from the
                    // database (set at the open): another instance's write this instance has
                    // not heard of yet (its `LISTEN` still on the way; never, on SQLite) is not
                    // answered by a rendering shared from before it.
                    self.wanted = self.wanted.max(self.room.seq());
                    self.rounds = 0;
                    return Some(Bytes::from_static(b"retry: 2000\n\n"));
                }
                Phase::CatchUp => {
                    // Boxed: the rendering's database futures are large, and an idle stream
                    // should not carry their room in its own future.
                    let r = tokio::select! {
                        biased;
                        stop = &mut self.end => {
                            self.phase = Phase::Done;
                            // Told (the server stops): reconnect; dropped (evicted): just end.
                            return stop.ok().map(|()| Bytes::from_static(RECONNECT));
                        }
                        r = Box::pin(render(
                            &self.source,
                            &self.feed,
                            &self.room,
                            self.cursor,
                            self.wanted,
                        )) => r,
                    };
                    match r {
                        Err(e) => {
                            self.phase = Phase::Done;
                            let data =
                                serde_json::json!({"code": e.code, "detail": e.detail}).to_string();
                            return Some(Bytes::from(format!("event: error\ndata: {data}\n\n")));
                        }
                        Ok(r) => {
                            self.cursor = r.to;
                            self.rounds += 1;
                            // Each round sends what the log holds; another round only while
                            // writes keep landing, and at most 64: the next announcement brings
                            // the rest.
                            if r.complete || self.rounds >= 64 {
                                self.phase = if self.once {
                                    Phase::Done
                                } else {
                                    Phase::Follow
                                };
                            }
                            let bytes = match (&r.view, self.scores) {
                                (Some(v), ScoresMode::Changed) => {
                                    let sheet = Some(v.sheet());
                                    let same = std::mem::replace(&mut self.sheet, sheet) == sheet;
                                    if same {
                                        v.lite(&r)
                                    } else {
                                        r.bytes.clone()
                                    }
                                }
                                _ => r.bytes.clone(),
                            };
                            if !bytes.is_empty() {
                                return Some(bytes);
                            }
                        }
                    }
                }
                Phase::Follow => {
                    tokio::select! {
                        biased;
                        stop = &mut self.end => {
                            self.phase = Phase::Done;
                            // Told (the server stops): reconnect; dropped (evicted): just end.
                            return stop.ok().map(|()| Bytes::from_static(RECONNECT));
                        }
                        seq = self.room.changed() => if seq > self.cursor {
                            self.wanted = seq;
                            self.rounds = 0;
                            self.phase = Phase::CatchUp;
                        },
                        _ = &mut self.beat => {
                            let now = tokio::time::Instant::now();
                            if now >= self.until {
                                return None;
                            }
                            self.beat.as_mut().reset(now + KEEP_ALIVE);
                            return Some(Bytes::from_static(b": keep-alive\n\n"));
                        }
                    }
                }
            }
        }
    }
}

/// The messages from `cursor` on for the bearer of `token`: those another stream of this viewer
/// rendered (or is rendering) from the same cursor, when they reach `wanted`; else rendered now.
async fn render(
    source: &Source,
    feed: &Feed,
    room: &Room,
    cursor: i64,
    wanted: i64,
) -> Result<Arc<Rendered>, ApiError> {
    for _ in 0..4 {
        let a = feed.attempt(cursor, wanted);
        let got = a
            .done
            .get_or_init(|| async {
                match read(source, room, cursor, wanted).await {
                    Ok(r) => Ok(Arc::new(r)),
                    Err(error) => Err(Failed {
                        at: tokio::time::Instant::now(),
                        error,
                    }),
                }
            })
            .await;
        match got {
            Ok(r) if r.reaches(cursor, wanted) => return Ok(r.clone()),
            Ok(_) => continue, // rendered for less than this client needs: again
            Err(f) => return Err(f.error.clone()),
        }
    }
    // Renderings keep falling short (writes landing all the time): one of its own.
    read(source, room, cursor, wanted).await.map(Arc::new)
}

/// The frame from `cursor` of what `source` follows, as SSE messages.
async fn read(
    source: &Source,
    room: &Room,
    cursor: i64,
    wanted: i64,
) -> Result<Rendered, ApiError> {
    let (svc, token) = match source {
        Source::Match { svc, token } => (svc, token.as_deref()),
        Source::Tournament { svc, id } => return read_feed(svc, room, id, cursor, wanted).await,
    };
    let frame = svc.live_frame(room, token, cursor, wanted, PAGE).await?;
    let mut out = Vec::new();
    for ev in &frame.events {
        let data = serde_json::to_string(ev).map_err(|e| ApiError::internal(&e))?;
        out.extend_from_slice(&message("event", ev.seq, &data));
    }
    let Some(view) = frame.view else {
        return Ok(Rendered {
            to: frame.to,
            bytes: Bytes::from(out),
            complete: false,
            view: None,
        });
    };
    let data = serde_json::to_string(&view).map_err(|e| ApiError::internal(&e))?;
    let events = out.len();
    out.extend_from_slice(&message("match", frame.to, &data));
    Ok(Rendered {
        to: frame.to,
        bytes: Bytes::from(out),
        complete: true,
        view: Some(LiteView {
            events,
            view,
            sheet: OnceLock::new(),
            lite: OnceLock::new(),
        }),
    })
}

/// `view` without its score sheet, as JSON text (a `MatchViewLite`). The sheet is left out
/// before the view becomes a tree, so its text is never parsed.
fn lite_view(view: &MatchView) -> serde_json::Result<String> {
    let mut view = view.clone();
    view.scores = serde_json::value::RawValue::from_string("null".into())?;
    let mut lite = serde_json::to_value(&view)?;
    if let Some(fields) = lite.as_object_mut() {
        fields.remove("scores");
    }
    serde_json::to_string(&lite)
}

/// A tournament feed's events after `cursor` (a page at most, reaching at least `wanted`), as
/// SSE messages: complete when they reach the end of the feed as it was read (from the room's
/// tail, else from the database).
async fn read_feed(
    svc: &Tournaments,
    room: &Room,
    id: &str,
    cursor: i64,
    wanted: i64,
) -> Result<Rendered, ApiError> {
    let page = svc
        .live_events(room, id, cursor, wanted, PAGE as i64)
        .await?;
    let mut out = Vec::new();
    for ev in &page.events {
        let data = serde_json::to_string(ev).map_err(|e| ApiError::internal(&e))?;
        out.extend_from_slice(&message("event", ev.seq(), &data));
    }
    Ok(Rendered {
        to: page.events.last().map_or(cursor, |e| e.seq()),
        bytes: Bytes::from(out),
        complete: page.next_after.is_none(),
        view: None,
    })
}

/// Where a tournament stream starts, and how it ends.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct FeedStreamQuery {
    /// Resume after this seq, as the `Last-Event-ID` header does (the header wins when both are
    /// sent). Without either the stream starts at the feed's beginning (0).
    #[param(minimum = 0, maximum = 999_999_999_999_999_999_i64)]
    pub last_event_id: Option<i64>,
    /// `true`: send the events there are now and end the stream instead of following the
    /// tournament.
    pub once: Option<bool>,
}

/// One Server-Sent Events message of a tournament's stream (its `id:`, `event:` and `data:`
/// lines). Comment lines (`: keep-alive`) and `retry:` carry no message.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)] // documentation only
pub struct TournamentStreamMessage {
    /// The event's seq: the client holds every event of the feed up to it (what
    /// `Last-Event-ID` resumes from). Absent on `error` and `reconnect`.
    #[schema(pattern = "^[0-9]{1,18}$", example = "12")]
    pub id: Option<String>,
    /// `event` (a `TournamentEvent`), `error` or `reconnect` (`{code, detail}`).
    pub event: StreamMessageKind,
    /// JSON text: a `TournamentEvent` (`event`) or `{code, detail}` (`error`, `reconnect`).
    #[schema(content_media_type = "application/json")]
    pub data: String,
}

/// The tournament's feed live, as Server-Sent Events (`text/event-stream`): one connection
/// follows every table (a projector, a bot).
///
/// Each `event: event` message carries one `TournamentEvent`, exactly as
/// `GET /v1/tournaments/{id}/events` shows it, with `id:` its seq. The stream starts after
/// `Last-Event-ID` (or `?last_event_id=`), else at the feed's beginning, then follows the
/// tournament: a write to it (a round paired, a result entered, a table's match writing what
/// the feed tells of) wakes the tournament's streams and no others. Public and the same for
/// everyone: in duplicate play nothing of a board is told before its round is complete.
///
/// As match streams: keep-alive comments every 15 s; the stream ends after 30 minutes, or when
/// the server stops (an `event: reconnect` message and `retry:`), and the client resumes with
/// `Last-Event-ID`, missing nothing. Streams are capped per client (IP address) and per
/// tournament (the cap on tokenless streams of a match): over a cap, 429 `too_many_streams`
/// with `Retry-After`.
#[utoipa::path(
    tag = "tournaments",
    params(
        ("id" = String, Path, description = "The tournament id", pattern = "^[0-9a-f]{32}$"),
        FeedStreamQuery,
        StreamHeaders,
    ),
    responses(
        (status = 200, description = "The stream (`once=true`: the events there are now, then the end); each message is a `TournamentStreamMessage`", content_type = "text/event-stream", body = TournamentStreamMessage,
         example = "id: 2\nevent: event\ndata: {\"type\":\"table.started\",\"seq\":2,\"created_at\":\"2026-01-01T00:00:00.000Z\",\"round\":1,\"table\":1,\"match_id\":\"0c5e2f7a9b8d4c3e1f0a6b5c4d3e2f1a\"}\n\n"),
        (status = 400, description = "`invalid_last_event_id`, `invalid_query`", body = Problem, content_type = "application/problem+json"),
        TournamentNotFound,
        (status = 429, description = "`too_many_streams`: this client holds as many streams as it may, or this tournament as many as it may", body = Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait before retrying"))),
        (status = 503, description = "`busy`: too many open streams on this server; `server_stopping`: the server is restarting; `storage_unavailable`", body = Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait before retrying"))),
    )
)]
#[get("/v1/tournaments/{id}/stream")]
pub async fn tournament_stream(
    svc: web::Data<Tournaments>,
    streams: web::Data<Streams>,
    gate: web::Data<Gate>,
    id: web::Path<String>,
    q: web::Query<FeedStreamQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let q = q.into_inner();
    if q.last_event_id
        .is_some_and(|a| !(0..=999_999_999_999_999_999).contains(&a))
    {
        return Err(ApiError::bad_request(
            "invalid_query",
            "last_event_id must be a seq: 0 to 999999999999999999",
        ));
    }
    let after = match last_event_id(&req)? {
        Some(a) => Some(a),
        None => q.last_event_id,
    };
    let id = id.into_inner();
    let key = crate::store::feed_key(&id);
    let viewer = Viewer {
        match_id: key.clone(),
        token: None,
    };
    let client = gate.client(&req);
    streams.check(client, &viewer)?;
    let version = svc.feed_version(&id).await?;
    let (slot, feed, end) = streams.into_inner().take(client, viewer)?;
    // In the room before the first read of the feed: nothing committed after it is missed.
    let room = svc.live().watch(&key);
    let follower = Follower {
        source: Source::Tournament {
            svc: svc.into_inner(),
            id,
        },
        cursor: after.unwrap_or(0).min(version),
        // The feed's end as the request read it: the stream reaches it (see `Phase::Start`).
        wanted: version,
        once: q.once.unwrap_or(false),
        scores: ScoresMode::Full,
        sheet: None,
        feed,
        room,
        end,
        beat: Box::pin(tokio::time::sleep(KEEP_ALIVE)),
        until: tokio::time::Instant::now() + MAX_LIFETIME,
        rounds: 0,
        phase: Phase::Start,
        _slot: slot,
    };
    Ok(respond(follower))
}

/// Registers the routes.
pub fn config(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(stream).service(tournament_stream);
}

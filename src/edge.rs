//! What every request passes through at the edge, before any route: a request id, the access log,
//! and the body deadline.
//!
//! - **Request id**: the client's `X-Request-Id` when it is a short token (1 to 64 of
//!   `A-Z a-z 0-9 . _ -`), else a fresh random one; echoed in the answer's `X-Request-Id` and
//!   carried by every log line of the request (a tracing span).
//! - **Access log**: one line per request with method, path, status, latency and request id. The
//!   path only: never the query string (a client may carry a token there) nor any header value.
//! - **Body deadline**: a request body must arrive within `body_timeout`, or, while more than
//!   `busy_bodies` bodies are being read at once (a flood of stalled uploads), within
//!   `busy_body_timeout`. A body that misses it gets 408 `request_timeout` and its connection is
//!   closed. actix-web times out a request's head (`client_request_timeout`), never its body: a
//!   client that sends headers and then stalls would otherwise hold its connection for ever.

use std::{
    future::Future,
    io,
    pin::Pin,
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use actix_web::{
    body::{BoxBody, MessageBody},
    dev::{Payload, Service, ServiceRequest, ServiceResponse},
    error::PayloadError,
    http::{
        header::{self, HeaderName, HeaderValue},
        ConnectionType, StatusCode,
    },
    web::Bytes,
    HttpMessage, ResponseError,
};
use futures_util::{Stream, StreamExt};
use tracing::Instrument;

use crate::error::ApiError;

/// The connection and request limits of a server.
#[derive(Clone, Copy, Debug, clap::Args)]
pub struct Limits {
    /// Seconds a client has to send a request's line and headers (then 408 and the connection
    /// closes).
    #[arg(long, env = "CLUBROOM_HEAD_TIMEOUT", default_value_t = 5)]
    pub head_timeout_secs: u64,
    /// Seconds a client has to send a request's body once its headers are in (then 408).
    #[arg(long, env = "CLUBROOM_BODY_TIMEOUT", default_value_t = 10)]
    pub body_timeout_secs: u64,
    /// Milliseconds a body may take while the server is flooded with unfinished bodies.
    #[arg(long, env = "CLUBROOM_BUSY_BODY_TIMEOUT_MS", default_value_t = 1000)]
    pub busy_body_timeout_ms: u64,
    /// How many bodies read at once count as a flood.
    #[arg(long, env = "CLUBROOM_BUSY_BODIES", default_value_t = 256)]
    pub busy_bodies: usize,
    /// Seconds an idle keep-alive connection stays open.
    #[arg(long, env = "CLUBROOM_KEEP_ALIVE", default_value_t = 5)]
    pub keep_alive_secs: u64,
    /// Most connections open at once, all workers together (further ones wait in the listen
    /// backlog). Lowered at start to what the process's open-file limit allows.
    #[arg(long, env = "CLUBROOM_MAX_CONNECTIONS", default_value_t = 25000)]
    pub max_connections: usize,
    /// The listen backlog: connections the kernel queues while every slot is taken.
    #[arg(long, env = "CLUBROOM_BACKLOG", default_value_t = 4096)]
    pub backlog: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            head_timeout_secs: 5,
            body_timeout_secs: 10,
            busy_body_timeout_ms: 1000,
            busy_bodies: 256,
            keep_alive_secs: 5,
            max_connections: 25000,
            backlog: 4096,
        }
    }
}

/// The edge's shared state: the limits and how many bodies are being read right now.
#[derive(Clone, Debug, Default)]
pub struct Edge {
    limits: Limits,
    reading: Arc<AtomicUsize>,
}

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

impl Edge {
    /// The edge of a server with these limits.
    pub fn new(limits: Limits) -> Edge {
        Edge {
            limits,
            reading: Arc::default(),
        }
    }

    /// Runs `req` through `srv` with a request id, the body deadline and the access log.
    pub fn handle<S, B>(
        &self,
        mut req: ServiceRequest,
        srv: &S,
    ) -> impl Future<Output = Result<ServiceResponse<BoxBody>, actix_web::Error>> + 'static
    where
        S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error>,
        S::Future: 'static,
        B: MessageBody + 'static,
    {
        let started = Instant::now();
        let request_id = req
            .headers()
            .get(&REQUEST_ID)
            .and_then(|v| v.to_str().ok())
            .filter(|v| {
                (1..=64).contains(&v.len())
                    && v.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
            })
            .map(String::from)
            .unwrap_or_else(|| hex::encode(rand::random::<[u8; 8]>()));
        let method = req.method().clone();
        let path = req.path().to_string();
        let span = tracing::info_span!("request", id = %request_id);
        let timed_out = Arc::new(AtomicBool::new(false));
        if has_body(&req) {
            let body = Deadline::new(self.clone(), req.take_payload(), timed_out.clone());
            let boxed: Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>> = Box::pin(body);
            req.set_payload(Payload::from(boxed));
        }
        let call = {
            let _in_span = span.enter();
            srv.call(req)
        };
        async move {
            let result = call.instrument(span.clone()).await;
            let mut res = match result {
                Ok(res) if timed_out.load(Ordering::Relaxed) => {
                    // Whatever the handler made of the cut-off body, the answer is 408, and the
                    // connection (its body half read) is closed.
                    let err = ApiError::new(
                        StatusCode::REQUEST_TIMEOUT,
                        "request_timeout",
                        "the request body did not arrive in time; nothing was recorded",
                    );
                    let mut res = res.into_response(err.error_response());
                    res.response_mut()
                        .head_mut()
                        .set_connection_type(ConnectionType::Close);
                    res
                }
                Ok(res) => res.map_into_boxed_body(),
                Err(e) => return Err(e),
            };
            if let Ok(v) = HeaderValue::from_str(&request_id) {
                res.headers_mut().insert(REQUEST_ID, v);
            }
            let _in_span = span.enter();
            tracing::info!(
                target: "clubroom::access",
                %method,
                path = %path,
                status = res.status().as_u16(),
                latency_us = started.elapsed().as_micros() as u64,
                "request"
            );
            Ok(res)
        }
    }
}

/// Whether the request announces a body (a length above zero, or chunks).
fn has_body(req: &ServiceRequest) -> bool {
    let headers = req.headers();
    if headers.contains_key(header::TRANSFER_ENCODING) {
        return true;
    }
    headers
        .get(header::CONTENT_LENGTH)
        .is_some_and(|v| v.to_str().map_or(true, |v| v.trim() != "0"))
}

/// A request body that must arrive by its deadline; counts itself among the bodies being read
/// until it ends or is dropped.
struct Deadline {
    inner: Payload,
    edge: Edge,
    started: tokio::time::Instant,
    sleep: Pin<Box<tokio::time::Sleep>>,
    timed_out: Arc<AtomicBool>,
    counted: bool,
}

impl Deadline {
    fn new(edge: Edge, inner: Payload, timed_out: Arc<AtomicBool>) -> Deadline {
        edge.reading.fetch_add(1, Ordering::Relaxed);
        let started = tokio::time::Instant::now();
        Deadline {
            inner,
            edge,
            started,
            sleep: Box::pin(tokio::time::sleep(Duration::ZERO)),
            timed_out,
            counted: true,
        }
    }

    /// The deadline now: the normal one, or the short one while bodies flood in.
    fn deadline(&self) -> tokio::time::Instant {
        let l = &self.edge.limits;
        let busy = self.edge.reading.load(Ordering::Relaxed) > l.busy_bodies;
        self.started
            + if busy {
                Duration::from_millis(l.busy_body_timeout_ms)
            } else {
                Duration::from_secs(l.body_timeout_secs)
            }
    }

    fn uncount(&mut self) {
        if std::mem::take(&mut self.counted) {
            self.edge.reading.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        self.uncount();
    }
}

impl Stream for Deadline {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        if self.timed_out.load(Ordering::Relaxed) {
            return Poll::Ready(None);
        }
        if let Poll::Ready(item) = self.inner.poll_next_unpin(cx) {
            if item.is_none() {
                self.uncount();
            }
            return Poll::Ready(item);
        }
        loop {
            let deadline = self.deadline();
            let now = tokio::time::Instant::now();
            if now >= deadline {
                self.timed_out.store(true, Ordering::Relaxed);
                self.uncount();
                return Poll::Ready(Some(Err(PayloadError::Io(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the request body did not arrive in time",
                )))));
            }
            // A waiting body looks again once per short deadline: whether the server is flooded
            // now (then its time is up), or not (then it may wait on to the normal deadline).
            let recheck = Duration::from_millis(self.edge.limits.busy_body_timeout_ms.max(50));
            let wake = deadline.min(now + recheck);
            self.sleep.as_mut().reset(wake);
            if self.sleep.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
        }
    }
}

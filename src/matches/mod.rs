//! The match service: owns every read and write of a match.
//!
//! A write is: authorize the token → load the state (from a bounded in-memory cache keyed by match
//! id and version; replayed from the log on a miss or when the database is ahead) → apply in the
//! pure engine → append the event. The `(match_id, seq)` primary key is the final judge between
//! concurrent writers in one process or many: the loser reloads and retries, or gets 412 when it
//! sent `If-Match`. Nothing is lost or recorded twice.
//!
//! Its parts: `cache` (an entry: a match's fixed facts and its state, replayed from the log; the
//! LRU of entries, brought up to the database's version before use), `create`, `read` (the
//! reads, and who may read a duplicate table), `render` (the view and the log as a viewer sees
//! them), `write` (the write path, step by step), `prepare` (what a write records, judged on the
//! state), `tables` (all the tournament service asks of its tables' matches), `views` (the wire
//! types), `live` (the fan-out of committed writes).

mod cache;
pub mod create;
mod error;
pub mod live;
mod prepare;
mod read;
mod render;
pub mod tables;
pub mod views;
mod write;

use std::{
    num::NonZeroUsize,
    sync::{Arc, Mutex},
};

use lru::LruCache;
use tokio::sync::Mutex as AsyncMutex;

use self::cache::{Entry, CACHE_CAPACITY};
pub(crate) use self::create::check_name;
pub use self::{
    error::{MatchError, RuleRefusal},
    prepare::duplicate_seed,
    read::parse_cursor,
    write::{request_hash, WriteAnswer, WriteMeta},
};
use crate::{ids::sha256_hex, store::Store};

/// Who a token says the caller is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The host (scorer): any seat, the table, undo.
    Host,
    /// One seat.
    Seat(usize),
}

/// `v` as JSON text (a failure is the service's own fault).
fn to_json<T: serde::Serialize>(v: &T) -> Result<String, MatchError> {
    serde_json::to_string(v).map_err(MatchError::internal)
}

/// The match service.
pub struct Matches {
    store: Store,
    cache: Mutex<LruCache<String, Arc<AsyncMutex<Entry>>>>,
    /// SHA-256 of the operator's token, which lists every match.
    operator_hash: Option<String>,
    live: live::Hub,
}

impl Matches {
    /// A service over `store`.
    pub fn new(store: Store) -> Matches {
        let live = live::Hub::new();
        // The tournament feed's commits wake their tournament's streams (issue 23, part 3).
        store.on_feed(live.feed_hook());
        Matches {
            store,
            cache: Mutex::new(LruCache::new(
                NonZeroUsize::new(CACHE_CAPACITY).expect("nonzero"),
            )),
            operator_hash: None,
            live,
        }
    }

    /// The live fan-out: announcements of committed writes, for the streams.
    pub fn live(&self) -> &live::Hub {
        &self.live
    }

    /// The same service, with an operator token that lists every match (`None`: no operator).
    pub fn with_operator_token(mut self, token: Option<&str>) -> Matches {
        self.operator_hash = token
            .filter(|t| !t.trim().is_empty())
            .map(|t| sha256_hex(t.as_bytes()));
        self
    }

    /// Whether `token` is the operator's (`CLUBROOM_OPERATOR_TOKEN`).
    pub fn is_operator(&self, token: Option<&str>) -> bool {
        match (&self.operator_hash, token) {
            (Some(h), Some(t)) => *h == sha256_hex(t.as_bytes()),
            _ => false,
        }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }
}

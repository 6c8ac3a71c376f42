#![warn(missing_docs)]
//! Clubroom: a REST companion for a real card or board game table.

/// The one application builder shared by the server, the tests and the spec writer.
pub mod app;
/// The club's memory: players across every match and tournament, lasting ratings, seasons.
pub mod club;
/// Request ids, the access log and the body deadline, for every request.
pub mod edge;
/// The one error type at the edge (problem+json), and the one mapping of the services' errors to it.
pub mod error;
/// Ids, tokens and times: their one form for every resource.
pub mod ids;
/// Per-client limits: who a client is, its streams, its unauthenticated creates.
pub mod limits;
/// The match service: authorize, load, apply, append.
pub mod matches;
/// The one small deterministic generator (SplitMix64): the pairing's fixed-seed search, the tests'
/// and benches' playouts.
pub mod rng;
/// HTTP routes, one module per resource.
pub mod routes;
/// Pure rules engines, one per game, behind one trait.
pub mod rules;
/// Starting the server.
pub mod server;
/// The one CSV writer: text cells defused against spreadsheet formulas, numbers left numbers.
pub mod spreadsheet;
/// Storage: matches, token hashes, the append-only event log (SQLite or PostgreSQL).
pub mod store;
/// Tournaments: players, pairing, results, standings, ratings, exports.
pub mod tournaments;
/// Webhooks: registration, the outbox's deliveries, signing, the SSRF guard, the worker.
pub mod webhooks;

/// The allocator of every binary built on this crate (the server, the write-cost baseline, the
/// tests): mimalloc. A write allocates and frees many small strings and maps (the JSON of the
/// action, the event and the answer); with glibc's malloc that took about a fifth of the server's
/// CPU under load (`perf`, scripts/bench.sh on PostgreSQL). The baseline gets the same allocator,
/// so the ratio compares the work, not the allocators.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

//! Clubroom: a REST companion for a real card or board game table.

/// The one application builder shared by the server, the tests and the spec writer.
pub mod app;
/// Request ids, the access log and the body deadline, for every request.
pub mod edge;
/// The one error type at the edge (problem+json).
pub mod error;
/// The match service: authorize, load, apply, append.
pub mod matches;
/// HTTP routes, one module per resource.
pub mod routes;
/// Pure rules engines, one per game, behind one trait.
pub mod rules;
/// Starting the server.
pub mod server;
/// Storage: matches, token hashes, the append-only event log (SQLite or PostgreSQL).
pub mod store;
/// Tournaments: players, pairing, results, standings, ratings, exports.
pub mod tournaments;

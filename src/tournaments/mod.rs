//! Tournaments: players, rounds and tables, results, standings, ratings, exports (issue 12).

pub mod boards;
mod error;
pub mod export;
mod loaded;
pub mod model;
pub mod pairing;
pub mod quicklog;
pub mod service;
pub mod standings;
pub mod views;

pub use self::error::TournamentError;

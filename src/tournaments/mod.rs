//! Tournaments: players, rounds and tables, results, standings, ratings, exports (issue 12).

pub mod boards;
pub mod changes;
mod error;
pub mod export;
mod loaded;
pub mod model;
mod night;
pub mod pairing;
pub mod quicklog;
pub mod service;
pub mod standings;
pub mod views;

pub use self::error::TournamentError;

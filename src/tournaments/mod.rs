//! Tournaments: players, rounds and tables, results, standings, ratings, exports (issue 12).

pub mod export;
pub mod model;
pub mod pairing;
pub mod quicklog;
pub mod service;
pub mod standings;
pub mod views;

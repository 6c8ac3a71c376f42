//! Tournaments: players, rounds and tables, results, standings, ratings, exports (issue 12).

pub mod model;

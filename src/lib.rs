//! Clubroom: a REST companion for a real card or board game table.

/// Pure rules engines, one per game, behind one trait.
pub mod rules;

//! stub
#![allow(missing_docs, unused)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuickLogError { pub code: &'static str, pub message: String }
pub fn check(game: &str, config: &serde_json::Value, units: usize, totals: Option<Vec<i64>>, deals: Option<Vec<Vec<i64>>>, require_deals: bool) -> Result<(Vec<i64>, Vec<Vec<i64>>), QuickLogError> { todo!() }

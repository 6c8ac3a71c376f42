//! stub
#![allow(missing_docs, unused)]
use super::model::*;
pub fn table_matchpoints(results: &[TableResult], duplicate: bool) -> Vec<Vec<(i64, i64)>> { todo!() }
pub fn standings(entrants: &[Entrant], results: &[TableResult], byes: &[(u32, usize)], duplicate: bool, rating: RatingSystem) -> Standings { todo!() }

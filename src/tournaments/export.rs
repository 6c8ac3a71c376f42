//! stub
#![allow(missing_docs, unused)]
use super::model::*;
pub fn standings_csv(s: &Standings) -> String { todo!() }
pub fn results_csv(entrants: &[Entrant], results: &[TableResult], duplicate: bool) -> String { todo!() }
pub fn bgstats(tournament_id: &str, tournament_name: &str, game_title: &str, entrants: &[Entrant], results: &[TableResult]) -> serde_json::Value { todo!() }

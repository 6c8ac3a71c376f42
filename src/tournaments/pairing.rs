//! stub
#![allow(missing_docs, unused)]
use super::model::*;
pub fn table_sizes(n: usize, target: usize, allowed: &[usize], equal: bool) -> (Vec<usize>, usize) { todo!() }
pub fn round_robin(n: usize, target: usize, allowed: &[usize], equal: bool) -> Vec<Pairing> { todo!() }
pub fn swiss(ranked: &[usize], met: &[Vec<u32>], byes_had: &[u32], round: u32, target: usize, allowed: &[usize], equal: bool) -> Pairing { todo!() }

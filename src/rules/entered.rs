//! A result entered by hand (a tournament's quick log) as each game checks it
//! ([`super::Game::check_entered`]): the shared arithmetic and the one error type. The shape
//! (one number per score column, the bound on any number, totals against the deals' sums) is
//! checked before a game sees it, in `tournaments/quicklog.rs`; a game checks what its own rules
//! fix.

use serde_json::Value;

/// Why an entered result is refused (422; `code` is the problem's code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryError {
    /// `result_missing`, `result_shape`, `points_out_of_range`, `result_totals_mismatch` or
    /// `result_impossible`.
    pub code: &'static str,
    /// What is wrong, and what would be right.
    pub message: String,
}

/// An [`EntryError`] of `code`.
pub fn err(code: &'static str, message: impl Into<String>) -> EntryError {
    EntryError {
        code,
        message: message.into(),
    }
}

/// A result no play of the game can give.
pub fn impossible(message: impl Into<String>) -> EntryError {
    err("result_impossible", message)
}

/// A number beyond any score.
pub fn out_of_range(message: impl Into<String>) -> EntryError {
    err("points_out_of_range", message)
}

/// `a + b` of points. Within the quick log's bound (at most 200 deals of ±1,000,000) no sum
/// comes near i64's ends; checked all the same, so that no later bound can make a sum wrap or
/// panic.
pub fn add(a: i64, b: i64) -> Result<i64, EntryError> {
    a.checked_add(b)
        .ok_or_else(|| out_of_range(format!("{a} + {b} is beyond any score")))
}

/// The sum of `points`, checked as [`add`] is.
pub fn sum<'a>(points: impl IntoIterator<Item = &'a i64>) -> Result<i64, EntryError> {
    points.into_iter().try_fold(0, |s, &x| add(s, x))
}

/// `a × b` of a bound, checked as [`add`] is.
pub fn mul(a: i64, b: i64) -> Result<i64, EntryError> {
    a.checked_mul(b)
        .ok_or_else(|| out_of_range(format!("{a} × {b} is beyond any score")))
}

/// A finished table's result as entered, its shape already checked: one total per score column
/// (seats, or sides in partnership play) and one line per deal (possibly none).
#[derive(Debug, Clone, Copy)]
pub struct Entered<'a> {
    /// The match's options as stored (every default filled in); read leniently, a missing or
    /// odd option taking the game's default.
    pub config: &'a Value,
    /// The number of score columns.
    pub units: usize,
    /// The final totals.
    pub totals: &'a [i64],
    /// The deals' points, in order.
    pub deals: &'a [Vec<i64>],
}

impl Entered<'_> {
    /// The integer option `key`, or `default`.
    pub fn int(&self, key: &str, default: i64) -> i64 {
        self.config
            .get(key)
            .and_then(Value::as_i64)
            .unwrap_or(default)
    }

    /// Checks that some unit (a `what`: player, side) reached `target` only on the last deal: a
    /// match that ends at the end of the deal in which somebody reaches the target.
    pub fn reached_last(&self, target: i64, what: &str) -> Result<(), EntryError> {
        let (totals, deals) = (self.totals, self.deals);
        if totals.iter().all(|&t| t < target) {
            return Err(impossible(format!(
                "the match ends when a {what} reaches {target}; the best total is {}",
                totals.iter().max().unwrap_or(&0)
            )));
        }
        if !deals.is_empty() {
            let mut running = vec![0; self.units];
            for (k, d) in deals[..deals.len() - 1].iter().enumerate() {
                for (r, x) in running.iter_mut().zip(d) {
                    *r = add(*r, *x)?;
                }
                if running.iter().any(|&r| r >= target) {
                    return Err(impossible(format!(
                        "a {what} reached {target} after deal {}: the match ended there, not after deal {}",
                        k + 1,
                        deals.len()
                    )));
                }
            }
        }
        Ok(())
    }
}

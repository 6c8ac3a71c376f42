//! The quick log: checks a table's result entered as final totals and/or per-deal points against
//! what each game fixes (docs/rules.md, each game's scoring), so that a typo is refused rather than ranked.

use serde_json::Value;

/// Why entered totals are refused (422; `code` is the problem's code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuickLogError {
    /// `result_missing`, `result_shape`, `points_out_of_range`, `result_totals_mismatch` or
    /// `result_impossible`.
    pub code: &'static str,
    /// What is wrong, and what would be right.
    pub message: String,
}

fn err(code: &'static str, message: impl Into<String>) -> QuickLogError {
    QuickLogError {
        code,
        message: message.into(),
    }
}

fn impossible(message: impl Into<String>) -> QuickLogError {
    err("result_impossible", message)
}

fn out_of_range(message: impl Into<String>) -> QuickLogError {
    err("points_out_of_range", message)
}

/// The most deals a result may list.
const MAX_DEALS: usize = 200;
/// The largest number a result may hold, either way.
const MAX_POINTS: i64 = 1_000_000;

/// The first number of `line` beyond ±[`MAX_POINTS`]. A range, not `abs()`: `i64::MIN.abs()`
/// overflows (to itself in release builds, which passed an `abs() > MAX` test).
fn beyond_bound(line: &[i64]) -> Option<i64> {
    line.iter()
        .copied()
        .find(|x| !(-MAX_POINTS..=MAX_POINTS).contains(x))
}

/// `a + b` of points. Within the bound (at most 200 deals of ±1,000,000) no sum comes near
/// i64's ends; checked all the same, so that no later bound can make a sum wrap or panic.
fn add(a: i64, b: i64) -> Result<i64, QuickLogError> {
    a.checked_add(b)
        .ok_or_else(|| out_of_range(format!("{a} + {b} is beyond any score")))
}

/// The sum of `points`, checked as [`add`] is.
fn sum<'a>(points: impl IntoIterator<Item = &'a i64>) -> Result<i64, QuickLogError> {
    points.into_iter().try_fold(0, |s, &x| add(s, x))
}

/// `a × b` of a bound, checked as [`add`] is.
fn mul(a: i64, b: i64) -> Result<i64, QuickLogError> {
    a.checked_mul(b)
        .ok_or_else(|| out_of_range(format!("{a} × {b} is beyond any score")))
}

/// Checks a quick-logged result of `game` (service id) played with `config` (every default
/// filled in) with `units` score columns (seats, or sides in partnership play). Totals, deals or
/// both: with both, the totals must be the deals' sums (Members Only excepted: its final count is
/// the markers, not the heats' advances); with deals only, the totals are their sums. The match
/// is over, so the game's end must have been reached. Returns (totals, deals).
pub fn check(
    game: &str,
    config: &Value,
    units: usize,
    totals: Option<Vec<i64>>,
    deals: Option<Vec<Vec<i64>>>,
    require_deals: bool,
) -> Result<(Vec<i64>, Vec<Vec<i64>>), QuickLogError> {
    if totals.is_none() && deals.is_none() {
        return Err(err(
            "result_missing",
            "enter `totals` (one per seat or side), `deals` (one line per deal), or both",
        ));
    }
    if require_deals && deals.is_none() {
        return Err(err(
            "result_missing",
            "duplicate play compares tables deal by deal: enter `deals`, one line per deal",
        ));
    }
    let line = |what: &str, l: &[i64]| -> Result<(), QuickLogError> {
        if l.len() != units {
            return Err(err(
                "result_shape",
                format!("{what} has {} numbers; this table has {units} score columns (seats, or sides in partnership play)", l.len()),
            ));
        }
        if let Some(x) = beyond_bound(l) {
            return Err(out_of_range(format!(
                "{what}: {x} is out of range; entered points are −{MAX_POINTS} to {MAX_POINTS}"
            )));
        }
        Ok(())
    };
    if let Some(t) = &totals {
        line("totals", t)?;
    }
    let members_only = game == "members-only";
    let deals = deals.unwrap_or_default();
    if deals.len() > MAX_DEALS {
        return Err(err("result_shape", format!("at most {MAX_DEALS} deals")));
    }
    for (k, d) in deals.iter().enumerate() {
        line(&format!("deal {}", k + 1), d)?;
    }
    let sums = (0..units)
        .map(|u| sum(deals.iter().map(|d| &d[u])))
        .collect::<Result<Vec<i64>, _>>()?;
    let totals = match totals {
        Some(t) => {
            if !deals.is_empty() && !members_only && t != sums {
                return Err(err(
                    "result_totals_mismatch",
                    format!("the totals {t:?} are not the sums of the deals {sums:?}"),
                ));
            }
            t
        }
        None if members_only => {
            return Err(err(
                "result_missing",
                "Members Only's final count is the markers standing at 5..10, not the heats' advances: enter `totals`",
            ))
        }
        None => {
            // Totals taken from the deals keep the bound an entered total keeps.
            if let Some(x) = beyond_bound(&sums) {
                return Err(out_of_range(format!(
                    "the deals sum to {x}; a total is −{MAX_POINTS} to {MAX_POINTS}"
                )));
            }
            sums
        }
    };
    let int = |key: &str, default: i64| config.get(key).and_then(Value::as_i64).unwrap_or(default);
    // Whether some unit reached `target` only on the last deal (the match ends at the end of the
    // deal in which somebody reaches it).
    let reached_last = |target: i64, what: &str| -> Result<(), QuickLogError> {
        if totals.iter().all(|&t| t < target) {
            return Err(impossible(format!(
                "the match ends when a {what} reaches {target}; the best total is {}",
                totals.iter().max().unwrap_or(&0)
            )));
        }
        if !deals.is_empty() {
            let mut running = vec![0; units];
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
    };
    match game {
        // docs/rules.md#clubs-tally: either way a deal's tallies add up to −26, a check on every deal; the
        // match ends after the deal in which any total reaches −100 or below.
        "clubs" => {
            for (k, d) in deals.iter().enumerate() {
                let s = sum(d)?;
                if s != -26 {
                    return Err(impossible(format!(
                        "deal {}'s points sum to {s}; every Clubs deal sums to −26",
                        k + 1
                    )));
                }
            }
            let s = sum(&totals)?;
            if s >= 0 || s % 26 != 0 {
                return Err(impossible(format!(
                    "the totals sum to {s}; every Clubs deal sums to −26, so the totals sum to −26 × the deals played"
                )));
            }
            if totals.iter().all(|&t| t > -100) {
                return Err(impossible(
                    "the match ends after the deal in which a total reaches −100 or below; no total has",
                ));
            }
            let mut running = vec![0; units];
            for (k, d) in deals.iter().enumerate().take(deals.len().saturating_sub(1)) {
                for (r, x) in running.iter_mut().zip(d) {
                    *r = add(*r, *x)?;
                }
                if running.iter().any(|&r| r <= -100) {
                    return Err(impossible(format!(
                        "a total reached −100 after deal {}: the match ended there",
                        k + 1
                    )));
                }
            }
        }
        // docs/rules.md#dump-scoring: 160 card points a deal; the side with 81 or more scores the excess over
        // 80, 80–80 scores nothing; first to `target` at the end of a deal wins.
        "dump" => {
            for (k, d) in deals.iter().enumerate() {
                let scoring: Vec<i64> = d.iter().copied().filter(|&x| x != 0).collect();
                if scoring.len() > 1 || scoring.iter().any(|&x| !(1..=80).contains(&x)) {
                    return Err(impossible(format!(
                        "deal {}: {d:?}; in a Dump deal one side at most scores, 1 to 80 (what it took over 80 of 160)",
                        k + 1
                    )));
                }
            }
            if totals.iter().any(|&t| t < 0) {
                return Err(impossible("Dump totals are never negative"));
            }
            reached_last(int("target", 100), "side")?;
        }
        // docs/rules.md#bonus-malus-values: a plus total scores, multiplied by the deal's number; cards are
        // worth multiples of 5, at most 130 + 65 = 195 before the multiplier; with two sides only
        // one can be plus.
        "bonus-malus" => {
            // n is at most MAX_DEALS (200): 195 × n is far inside i64.
            for (k, d) in deals.iter().enumerate() {
                let n = k as i64 + 1;
                if d.iter().any(|&x| x < 0 || x % (5 * n) != 0 || x > 195 * n) {
                    return Err(impossible(format!(
                        "deal {n}: {d:?}; Bonus-Malus deal {n} scores 0 or a multiple of {} up to {}",
                        5 * n,
                        195 * n
                    )));
                }
                if units == 2 && d.iter().filter(|&&x| x > 0).count() > 1 {
                    return Err(impossible(format!(
                        "deal {n}: {d:?}; with two sides only the one with a plus total scores"
                    )));
                }
            }
            if totals.iter().any(|&t| t < 0 || t % 5 != 0) {
                return Err(impossible(
                    "Bonus-Malus totals are sums of multiples of 5, never negative",
                ));
            }
            reached_last(int("target", 155), "player or side")?;
        }
        // docs/rules.md#plus-minus-game-end: 50 for each man home, −20 for each on the stars, the number (1..24) for
        // the others: a game scores −80 to 200 a seat; `rubber_games` games make the match.
        "plus-minus" => {
            let games = int("rubber_games", 5);
            for (k, d) in deals.iter().enumerate() {
                if d.iter().any(|&x| !(-80..=200).contains(&x)) {
                    return Err(impossible(format!(
                        "game {}: {d:?}; a P.M. game scores −80 to 200 a seat (four men)",
                        k + 1
                    )));
                }
            }
            if !deals.is_empty() && deals.len() as i64 != games {
                return Err(impossible(format!(
                    "{} games entered; the rubber is {games} games",
                    deals.len()
                )));
            }
            // `rubber_games` is the match's option (1 to 100 once the game has checked it);
            // this check takes any config, so its bounds are checked products.
            let (least, most) = (mul(-80, games)?, mul(200, games)?);
            if totals.iter().any(|&t| t < least || t > most) {
                return Err(impossible(format!(
                    "a P.M. rubber of {games} games totals {least} to {most} a seat"
                )));
            }
        }
        // docs/rules.md#members-only-game-end: each player adds his markers standing at 5..10: 0 to 50.
        "members-only" => {
            if totals.iter().any(|&t| !(0..=50).contains(&t)) {
                return Err(impossible(
                    "a Members Only total is the sum of five markers counting 5 to 10 each (or 0): 0 to 50",
                ));
            }
            if deals.iter().flatten().any(|&x| !(0..=50).contains(&x)) {
                return Err(impossible(
                    "a heat advances a player's five markers by 0 to 10 each: 0 to 50",
                ));
            }
        }
        // By Hook or Crook: pawns only move forward.
        _ => {
            if totals.iter().chain(deals.iter().flatten()).any(|&x| x < 0) {
                return Err(impossible("pawns only move forward: no negative numbers"));
            }
        }
    }
    Ok((totals, deals))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn code(r: Result<(Vec<i64>, Vec<Vec<i64>>), QuickLogError>) -> &'static str {
        r.err().map_or("ok", |e| e.code)
    }

    #[test]
    fn shape_and_sums() {
        let c = json!({"target": 100});
        assert_eq!(
            code(check("dump", &c, 2, None, None, false)),
            "result_missing"
        );
        assert_eq!(
            code(check("dump", &c, 2, Some(vec![110, 0]), None, true)),
            "result_missing"
        );
        assert_eq!(
            code(check("dump", &c, 2, Some(vec![110, 0, 0]), None, false)),
            "result_shape"
        );
        assert_eq!(
            code(check("dump", &c, 2, None, Some(vec![vec![50]]), false)),
            "result_shape"
        );
        assert_eq!(
            code(check(
                "dump",
                &c,
                2,
                Some(vec![1, 2]),
                Some(vec![vec![60, 0], vec![50, 0]]),
                false
            )),
            "result_totals_mismatch"
        );
        assert_eq!(
            check(
                "dump",
                &c,
                2,
                None,
                Some(vec![vec![60, 0], vec![0, 0], vec![50, 0]]),
                false
            ),
            Ok((vec![110, 0], vec![vec![60, 0], vec![0, 0], vec![50, 0]]))
        );
    }

    #[test]
    fn numbers_beyond_a_million_are_out_of_range_and_never_wrap() {
        let c = json!({});
        let min = i64::MIN;
        // `i64::MIN.abs()` is i64::MIN again (release) or a panic (debug); and two of them summed
        // to 0, so [MIN, MIN, 0, −26] passed the Clubs check that totals sum to −26 × deals.
        for totals in [
            vec![min, min, 0, -26],
            vec![i64::MAX, 0, 0, 0],
            vec![-1_000_001, 0, 0, 0],
        ] {
            let e = check("clubs", &c, 4, Some(totals.clone()), None, false).unwrap_err();
            assert_eq!(e.code, "points_out_of_range", "{totals:?}");
            assert!(e.message.starts_with(&format!("totals: {} ", totals[0])));
        }
        let e = check(
            "clubs",
            &c,
            4,
            None,
            Some(vec![vec![-26, 0, 0, 0], vec![min, 0, 0, 0]]),
            false,
        )
        .unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("points_out_of_range", "deal 2: -9223372036854775808 is out of range; entered points are −1000000 to 1000000")
        );
        // Deals each within the bound whose sum is not.
        let e = check(
            "by-hook-or-crook",
            &c,
            2,
            None,
            Some(vec![vec![1_000_000, 0]; 2]),
            false,
        )
        .unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                "points_out_of_range",
                "the deals sum to 2000000; a total is −1000000 to 1000000"
            )
        );
        // The bound itself is a number like any other.
        assert_eq!(
            code(check(
                "clubs",
                &c,
                4,
                Some(vec![-1_000_000, 999_974, 0, 0]),
                None,
                false
            )),
            "ok"
        );
    }

    #[test]
    fn dump_one_side_scores_and_the_target_is_reached_last() {
        let c = json!({"target": 100});
        assert_eq!(
            code(check("dump", &c, 2, None, Some(vec![vec![60, 10]]), false)),
            "result_impossible"
        );
        assert_eq!(
            code(check(
                "dump",
                &c,
                2,
                None,
                Some(vec![vec![81, 0], vec![30, 0]]),
                false
            )),
            "result_impossible"
        );
        assert_eq!(
            code(check("dump", &c, 2, Some(vec![99, 0]), None, false)),
            "result_impossible"
        );
        assert_eq!(
            code(check(
                "dump",
                &c,
                2,
                None,
                Some(vec![vec![80, 0], vec![30, 0], vec![10, 0]]),
                false
            )),
            "result_impossible"
        );
        assert_eq!(
            code(check("dump", &c, 2, Some(vec![100, 7]), None, false)),
            "ok"
        );
    }

    #[test]
    fn clubs_deals_sum_to_minus_26() {
        let c = json!({});
        assert_eq!(
            code(check(
                "clubs",
                &c,
                4,
                None,
                Some(vec![vec![-10, -6, -4, -5]]),
                false
            )),
            "result_impossible"
        );
        let deals = vec![vec![-26, 0, 0, 0]; 4];
        assert_eq!(code(check("clubs", &c, 4, None, Some(deals), false)), "ok");
        assert_eq!(
            code(check(
                "clubs",
                &c,
                4,
                Some(vec![-100, -3, -2, 0]),
                None,
                false
            )),
            "result_impossible"
        );
        assert_eq!(
            code(check(
                "clubs",
                &c,
                4,
                Some(vec![-80, -10, -10, -4]),
                None,
                false
            )),
            "result_impossible"
        );
        assert_eq!(
            code(check(
                "clubs",
                &c,
                4,
                Some(vec![-101, -3, 0, 0]),
                None,
                false
            )),
            "ok"
        );
    }

    #[test]
    fn bonus_malus_plus_minus_members_only_and_by_hook_or_crook() {
        let bm = json!({"target": 155});
        assert_eq!(
            code(check(
                "bonus-malus",
                &bm,
                2,
                None,
                Some(vec![vec![15, 0], vec![15, 0]]),
                false
            )),
            "result_impossible"
        );
        assert_eq!(
            code(check(
                "bonus-malus",
                &bm,
                2,
                None,
                Some(vec![vec![15, 5]]),
                false
            )),
            "result_impossible"
        );
        assert_eq!(
            code(check(
                "bonus-malus",
                &bm,
                2,
                None,
                Some(vec![vec![95, 0], vec![70, 0]]),
                false
            )),
            "ok"
        );
        let pm = json!({"rubber_games": 2});
        assert_eq!(
            code(check(
                "plus-minus",
                &pm,
                3,
                None,
                Some(vec![vec![201, 0, 0], vec![0, 0, 0]]),
                false
            )),
            "result_impossible"
        );
        assert_eq!(
            code(check(
                "plus-minus",
                &pm,
                3,
                None,
                Some(vec![vec![200, -80, 12]]),
                false
            )),
            "result_impossible"
        );
        assert_eq!(
            code(check(
                "plus-minus",
                &pm,
                3,
                None,
                Some(vec![vec![200, -80, 12], vec![3, 4, 5]]),
                false
            )),
            "ok"
        );
        let mo = json!({});
        assert_eq!(
            code(check(
                "members-only",
                &mo,
                3,
                Some(vec![51, 0, 0]),
                None,
                false
            )),
            "result_impossible"
        );
        assert_eq!(
            code(check(
                "members-only",
                &mo,
                3,
                None,
                Some(vec![vec![1, 2, 3]]),
                false
            )),
            "result_missing"
        );
        assert_eq!(
            code(check(
                "members-only",
                &mo,
                3,
                Some(vec![17, 6, 0]),
                Some(vec![vec![3, 2, 1]]),
                false
            )),
            "ok"
        );
        assert_eq!(
            code(check(
                "by-hook-or-crook",
                &mo,
                3,
                Some(vec![40, -1, 3]),
                None,
                false
            )),
            "result_impossible"
        );
        assert_eq!(
            code(check(
                "by-hook-or-crook",
                &mo,
                3,
                Some(vec![40, 12, 3]),
                None,
                false
            )),
            "ok"
        );
    }
}

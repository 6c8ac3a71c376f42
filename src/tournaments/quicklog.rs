//! The quick log: checks a table's result entered as final totals and/or per-deal points against
//! what each game fixes (docs/rules.md, each game's scoring), so that a typo is refused rather than ranked.

use serde_json::Value;

use crate::rules::{
    entered::{err, out_of_range, sum, Entered},
    AnyGame,
};

/// Why entered totals are refused (422; `code` is the problem's code).
pub use crate::rules::entered::EntryError as QuickLogError;

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

/// Checks a quick-logged result of `game` (service id) played with `config` (every default
/// filled in) with `units` score columns (seats, or sides in partnership play). Totals, deals or
/// both: with both, the totals must be the deals' sums (unless the game's final count is something
/// else: `Game::TOTALS_NOT_DEAL_SUMS`, Members Only's markers); with deals only, the totals are
/// their sums. The match is over, so the game's end must have been reached: what else a result
/// must be is the game's own check (`Game::check_entered`). Returns (totals, deals).
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
    // Whether the game's final count is something other than the deals' sums (and why).
    let not_deal_sums = AnyGame::totals_not_deal_sums(game);
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
            if !deals.is_empty() && not_deal_sums.is_none() && t != sums {
                return Err(err(
                    "result_totals_mismatch",
                    format!("the totals {t:?} are not the sums of the deals {sums:?}"),
                ));
            }
            t
        }
        None => {
            if let Some(why) = not_deal_sums {
                return Err(err("result_missing", format!("{why}: enter `totals`")));
            }
            // Totals taken from the deals keep the bound an entered total keeps.
            if let Some(x) = beyond_bound(&sums) {
                return Err(out_of_range(format!(
                    "the deals sum to {x}; a total is −{MAX_POINTS} to {MAX_POINTS}"
                )));
            }
            sums
        }
    };
    // What the game's own rules fix (each game's `Game::check_entered`).
    let entered = Entered {
        config,
        units,
        totals: &totals,
        deals: &deals,
    };
    AnyGame::check_entered(game, &entered)
        .unwrap_or_else(|| Err(err("result_impossible", format!("no game '{game}'"))))?;
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

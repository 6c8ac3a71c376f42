//! Score-only play's form descriptor (`legal.tally`): what a round's `tally` holds and the
//! printed limits of each number, and the one check of a tally's numbers against it.
//!
//! A game describes its tally with [`TallyForm`] ([`super::Game::tally_form`]); the engine checks
//! a tally's generic shape (entry count, range, step, sum, how many entries may be non-zero)
//! with [`check`], from the same descriptor the API lists, and adds only its own checks (Clubs'
//! achievable scores, P.M.'s four men, …). The page (web/tally.js) draws its pad from it, so
//! the page and the API speak one vocabulary. A descriptor holds only public facts: the seat
//! count, the deal number, the printed limits, the markers on the board.

use serde::Serialize;
use utoipa::ToSchema;

/// Whether a tally's entries are per seat or per side (partnerships score by side).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TallyUnit {
    /// One entry per seat, in seat order.
    Seat,
    /// One entry per side: side i is seats i and i + 2 (four players in partnership).
    Side,
}

impl TallyUnit {
    /// The unit in words (`seat`, `side`).
    pub fn word(self) -> &'static str {
        match self {
            TallyUnit::Seat => "seat",
            TallyUnit::Side => "side",
        }
    }
}

/// The form of the `tally` the table may send now (score-only play): which field of the
/// `tally` action holds the numbers, how many entries, and the limits of each number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct TallyForm {
    /// The `tally` action's field that holds the numbers: `points`, `markers` (Members Only) or
    /// `positions` (By Hook or Crook).
    pub field: &'static str,
    /// Whether the entries are per seat or per side.
    pub unit: TallyUnit,
    /// How many entries the field holds (one per seat or side).
    pub entries: usize,
    /// The least value of one number.
    pub min: i64,
    /// The greatest value of one number; null where the rules set none. (By Hook or Crook's is
    /// the board's `table.last_space`: the furthest a pawn can stand at the end.)
    #[schema(required = true)]
    pub max: Option<i64>,
    /// Every number is a multiple of this (1: any whole number).
    pub step: i64,
    /// What the entries must sum to (a deal's fixed total: Clubs −26, Dump 160); null when free.
    #[schema(required = true)]
    pub sum: Option<i64>,
    /// What each entry is multiplied by on the sheet (Bonus-Malus: the deal's number); null for 1.
    #[schema(required = true)]
    pub multiplier: Option<i64>,
    /// At most this many entries may be non-zero (Bonus-Malus with two sides: one plus side);
    /// null when any may.
    #[schema(required = true)]
    pub nonzero_at_most: Option<usize>,
    /// Each entry's named parts, when an entry is a list rather than one number (Members Only:
    /// `umbrella`, `crown`, `teacup`, `big_ben`, `hat`, each from `min` to `max`); null otherwise.
    #[schema(required = true)]
    pub per_entry: Option<Vec<&'static str>>,
    /// Per entry and part, the least value it may take now (Members Only: where each marker
    /// stands before the heat; a marker never goes back); null when `min` is the only floor.
    #[schema(required = true)]
    pub floor: Option<Vec<Vec<i64>>>,
    /// Whether the tally must name who wins a tie for the furthest entry (`tiebreak`, By Hook or
    /// Crook: the seats tied on the furthest space, winner first).
    pub tiebreak: bool,
}

impl TallyForm {
    /// A `points` form of `entries` numbers from `min` to `max`, step 1, nothing else.
    pub fn points(unit: TallyUnit, entries: usize, min: i64, max: i64) -> TallyForm {
        TallyForm {
            field: "points",
            unit,
            entries,
            min,
            max: Some(max),
            step: 1,
            sum: None,
            multiplier: None,
            nonzero_at_most: None,
            per_entry: None,
            floor: None,
            tiebreak: false,
        }
    }
}

/// Why a tally's numbers do not fit their form (entries 0-based; each game words it, 1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TallyFault {
    /// Not one entry per seat (side): `expected` entries, `got` given.
    Entries {
        /// The form's entry count.
        expected: usize,
        /// The count given.
        got: usize,
    },
    /// Entry `entry` is outside `min` to `max`.
    Range {
        /// The entry (0-based).
        entry: usize,
        /// The value given.
        value: i64,
    },
    /// Entry `entry` is not a multiple of the step.
    Step {
        /// The entry (0-based).
        entry: usize,
        /// The value given.
        value: i64,
    },
    /// The entries sum to `got`, not the form's `sum`.
    Sum {
        /// The sum given (saturating).
        got: i64,
    },
    /// More entries are non-zero than the form allows.
    Nonzero,
}

/// Checks `values` against `form`, in this order: the entry count; per entry its range, its step
/// and then the game's own check `own(entry, value)`; the sum; the non-zero count. The first
/// failure is returned, a generic one through `fault` (the game's own wording and code).
pub fn check<E>(
    form: &TallyForm,
    values: &[i64],
    fault: impl Fn(TallyFault) -> E,
    mut own: impl FnMut(usize, i64) -> Result<(), E>,
) -> Result<(), E> {
    if values.len() != form.entries {
        return Err(fault(TallyFault::Entries {
            expected: form.entries,
            got: values.len(),
        }));
    }
    for (entry, &value) in values.iter().enumerate() {
        if value < form.min || form.max.is_some_and(|max| value > max) {
            return Err(fault(TallyFault::Range { entry, value }));
        }
        if form.step > 1 && value % form.step != 0 {
            return Err(fault(TallyFault::Step { entry, value }));
        }
        own(entry, value)?;
    }
    if let Some(want) = form.sum {
        let got = values.iter().fold(0i64, |a, &v| a.saturating_add(v));
        if got != want {
            return Err(fault(TallyFault::Sum { got }));
        }
    }
    if let Some(most) = form.nonzero_at_most {
        if values.iter().filter(|&&v| v != 0).count() > most {
            return Err(fault(TallyFault::Nonzero));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form() -> TallyForm {
        TallyForm {
            step: 5,
            sum: None,
            nonzero_at_most: Some(1),
            ..TallyForm::points(TallyUnit::Side, 2, 0, 195)
        }
    }

    fn run(f: &TallyForm, v: &[i64]) -> Result<(), TallyFault> {
        check(f, v, |x| x, |_, _| Ok(()))
    }

    #[test]
    fn each_generic_fault_is_found_in_order() {
        let f = form();
        assert_eq!(run(&f, &[5, 0]), Ok(()));
        assert_eq!(
            run(&f, &[5]),
            Err(TallyFault::Entries {
                expected: 2,
                got: 1
            })
        );
        assert_eq!(
            run(&f, &[0, 200]),
            Err(TallyFault::Range {
                entry: 1,
                value: 200
            })
        );
        assert_eq!(
            run(&f, &[-5, 0]),
            Err(TallyFault::Range {
                entry: 0,
                value: -5
            })
        );
        assert_eq!(
            run(&f, &[33, 0]),
            Err(TallyFault::Step {
                entry: 0,
                value: 33
            })
        );
        assert_eq!(run(&f, &[5, 5]), Err(TallyFault::Nonzero));
        let sum = TallyForm {
            sum: Some(-26),
            ..TallyForm::points(TallyUnit::Seat, 3, -36, 24)
        };
        assert_eq!(
            run(&sum, &[-10, -10, -10]),
            Err(TallyFault::Sum { got: -30 })
        );
        assert_eq!(run(&sum, &[-10, -10, -6]), Ok(()));
    }

    #[test]
    fn the_games_own_check_runs_per_entry_after_range_and_before_the_sum() {
        let f = TallyForm {
            sum: Some(0),
            ..TallyForm::points(TallyUnit::Seat, 2, -9, 9)
        };
        let r = check(&f, &[7, 20], Some, |e, v| {
            if v == 7 {
                Err(Some(TallyFault::Step { entry: e, value: v }))
            } else {
                Ok(())
            }
        });
        assert_eq!(r, Err(Some(TallyFault::Step { entry: 0, value: 7 })));
        let r = check(&f, &[20, 7], Some, |_, _| Err(None));
        assert_eq!(
            r,
            Err(Some(TallyFault::Range {
                entry: 0,
                value: 20
            }))
        );
        let r = check(&f, &[1, 1], Some, |_, _| Ok(()));
        assert_eq!(r, Err(Some(TallyFault::Sum { got: 2 })));
    }

    #[test]
    fn the_descriptor_serializes_in_the_pages_vocabulary() {
        let v = serde_json::to_value(form()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"field": "points", "unit": "side", "entries": 2, "min": 0,
                "max": 195, "step": 5, "sum": null, "multiplier": null, "nonzero_at_most": 1,
                "per_entry": null, "floor": null, "tiebreak": false})
        );
    }
}

#[cfg(test)]
mod games {
    use super::*;
    use crate::rules::{AnyGame, Dealing};
    use serde_json::json;

    fn form(id: &str, config: serde_json::Value, players: usize, d: Dealing) -> Option<TallyForm> {
        AnyGame::new(id, Some(config), players, d)
            .expect("a valid config")
            .tally_form()
    }

    /// Members Only and By Hook or Crook list their tally only in a score-only config. Whether
    /// their configs take `scores_only` yet depends on the engine (another branch adds it):
    /// with it the form is exact, without it (refused as unknown, or absent) none is listed.
    #[test]
    fn members_only_and_by_hook_or_crook_describe_their_tally_only_when_scores_only() {
        assert_eq!(form("members-only", json!({}), 3, Dealing::Table), None);
        assert_eq!(form("by-hook-or-crook", json!({}), 3, Dealing::Table), None);
        if let Ok(g) = AnyGame::new(
            "members-only",
            Some(json!({"scores_only": true})),
            3,
            Dealing::Table,
        ) {
            let f = g.tally_form().expect("listed in a score-only match");
            assert_eq!(f.field, "markers");
            assert_eq!(f.entries, 3);
            assert_eq!((f.min, f.max, f.step), (0, Some(10), 1));
            assert_eq!(
                f.per_entry,
                Some(vec!["umbrella", "crown", "teacup", "big_ben", "hat"])
            );
            assert_eq!(f.floor, Some(vec![vec![0; 5]; 3]));
        }
        if let Ok(g) = AnyGame::new(
            "by-hook-or-crook",
            Some(json!({"scores_only": true})),
            3,
            Dealing::Table,
        ) {
            let f = g.tally_form().expect("listed in a score-only match");
            assert_eq!(f.field, "positions");
            // The default board's last space with 3 players: pink from 37, 36 + 4 + 8.
            assert_eq!(
                (f.entries, f.min, f.max, f.tiebreak),
                (3, 0, Some(48), true)
            );
        }
    }

    #[test]
    fn each_points_game_describes_its_tally_in_table_dealing_only() {
        let clubs = form("clubs", json!({}), 4, Dealing::Table).unwrap();
        assert_eq!(
            clubs,
            TallyForm {
                sum: Some(-26),
                ..TallyForm::points(TallyUnit::Seat, 4, -36, 24)
            }
        );
        let bm = form("bonus-malus", json!({}), 4, Dealing::Table).unwrap();
        assert_eq!(
            bm,
            TallyForm {
                step: 5,
                multiplier: Some(1),
                nonzero_at_most: Some(1),
                ..TallyForm::points(TallyUnit::Side, 2, 0, 195)
            }
        );
        let bm3 = form("bonus-malus", json!({}), 3, Dealing::Table).unwrap();
        assert_eq!(
            (bm3.unit, bm3.entries, bm3.nonzero_at_most),
            (TallyUnit::Seat, 3, None)
        );
        let dump = form("dump", json!({}), 4, Dealing::Table).unwrap();
        assert_eq!(
            dump,
            TallyForm {
                sum: Some(160),
                ..TallyForm::points(TallyUnit::Side, 2, 0, 160)
            }
        );
        let pm = form("plus-minus", json!({}), 3, Dealing::Table).unwrap();
        assert_eq!(pm, TallyForm::points(TallyUnit::Seat, 3, -80, 200));
        for (id, n) in [
            ("clubs", 4),
            ("bonus-malus", 4),
            ("dump", 2),
            ("plus-minus", 3),
        ] {
            assert_eq!(form(id, json!({}), n, Dealing::Service), None, "{id}");
        }
    }
}

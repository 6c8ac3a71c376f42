//! The score sheet every game produces (API.md "Score sheet").

use std::{borrow::Cow, collections::HashSet};

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::spreadsheet::{self, Cell};

/// Whether scores are kept per seat or per partnership side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// One column per seat.
    Seat,
    /// One column per side (partnerships: seats 0 and 2 are side 0, seats 1 and 3 side 1).
    Side,
}

/// One round's line on the sheet.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct RoundScore {
    /// The round number, from 1.
    pub round: u32,
    /// What the round is called in the game (`Deal 3`, `Heat 2`, `Game 5`).
    #[schema(example = "Deal 1")]
    pub label: String,
    /// The multiplier applied to this round's points.
    pub multiplier: i64,
    /// What the round adds to the totals, per seat or side, multiplier applied.
    pub points: Vec<i64>,
    /// The raw figures behind the points: the game's round detail model.
    #[schema(value_type = crate::rules::spec::GameRoundDetail)]
    pub detail: Value,
}

/// The score sheet of a match.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct ScoreSheet {
    /// The game id (`GET /v1/games`): whose round details `rounds` holds (the union's
    /// discriminator in the spec). Filled in by [`crate::rules::AnyGame::score_sheet`].
    #[schema(example = "dump")]
    pub game: &'static str,
    /// Per seat or per side.
    pub unit: Unit,
    /// The sides' seats, when scores are kept per side.
    pub sides: Option<Vec<Vec<usize>>>,
    /// One line per scored round.
    pub rounds: Vec<RoundScore>,
    /// Running totals, per seat or side.
    pub totals: Vec<i64>,
    /// Whether the match is over.
    pub finished: bool,
    /// The winning seats or sides, once finished (several on a shared win).
    pub winners: Vec<usize>,
    /// The winner's total minus the runner-up's, once finished.
    pub margin: Option<i64>,
}

impl ScoreSheet {
    /// A sheet whose winners (all holders of the best total) and margin follow from the totals
    /// once the match is `finished`. With `partnerships` it is kept per side (seats 0 and 2 are
    /// side 0, seats 1 and 3 side 1: docs/rules.md#partnerships), else per seat.
    pub fn from_totals(
        partnerships: bool,
        rounds: Vec<RoundScore>,
        totals: Vec<i64>,
        finished: bool,
    ) -> ScoreSheet {
        let (winners, margin) = if finished {
            winners_and_margin(&totals)
        } else {
            (vec![], None)
        };
        ScoreSheet {
            game: "",
            unit: if partnerships { Unit::Side } else { Unit::Seat },
            sides: partnerships.then(|| vec![vec![0, 2], vec![1, 3]]),
            rounds,
            totals,
            finished,
            winners,
            margin,
        }
    }

    /// The names of the sheet's score columns, from the players' names in seat order: a seat's
    /// column is its player's name, a side's its partners' names joined by ` & ` (`Ada & Cy`).
    /// When two columns would show the same name (two players called Ada; or `=x` beside `'=x`,
    /// the same once defused), every column also says which it is: `Ada (seat 0)`, `Ada & Cy
    /// (side 0)`, distinct by their ends. Players' names never change, so neither does a
    /// match's header.
    pub fn columns(&self, players: &[String]) -> Vec<String> {
        let name = |seat: usize| {
            players
                .get(seat)
                .cloned()
                .unwrap_or_else(|| format!("seat {seat}"))
        };
        let (unit, plain): (&str, Vec<String>) = match (&self.unit, &self.sides) {
            (Unit::Side, Some(sides)) => (
                "side",
                sides
                    .iter()
                    .map(|s| s.iter().map(|&p| name(p)).collect::<Vec<_>>().join(" & "))
                    .collect(),
            ),
            _ => ("seat", (0..self.totals.len()).map(name).collect()),
        };
        let shown: HashSet<Cow<str>> = plain.iter().map(|n| spreadsheet::defuse(n)).collect();
        if shown.len() == plain.len() {
            return plain;
        }
        plain
            .into_iter()
            .enumerate()
            .map(|(i, n)| format!("{n} ({unit} {i})"))
            .collect()
    }

    /// The sheet as CSV: a header (`round`, `label`, `multiplier`, then the [`columns`] named
    /// by `players`, the players' names in seat order), one row per round, a `total` row.
    ///
    /// [`columns`]: ScoreSheet::columns
    pub fn to_csv(&self, players: &[String]) -> String {
        let mut header = spreadsheet::header(&["round", "label", "multiplier"]);
        header.extend(self.columns(players).into_iter().map(Cell::text));
        let rounds = self.rounds.iter().map(|r| {
            let mut row = vec![
                Cell::from(r.round),
                Cell::text(&r.label),
                Cell::from(r.multiplier),
            ];
            row.extend(r.points.iter().map(|&p| Cell::from(p)));
            row
        });
        let mut total = vec![Cell::text("total"), Cell::text("Total"), Cell::empty()];
        total.extend(self.totals.iter().map(|&t| Cell::from(t)));
        spreadsheet::write(
            std::iter::once(header)
                .chain(rounds)
                .chain(std::iter::once(total)),
        )
    }
}

/// The winners (all holders of the best total) and the margin over the best of the rest.
pub fn winners_and_margin(totals: &[i64]) -> (Vec<usize>, Option<i64>) {
    let Some(&best) = totals.iter().max() else {
        return (vec![], None);
    };
    let winners: Vec<usize> = (0..totals.len()).filter(|&i| totals[i] == best).collect();
    let runner_up = totals.iter().copied().filter(|&t| t < best).max();
    // Saturating: totals come from the engines and from entries within ±1,000,000, whose
    // difference always fits; a result stored before that bound was enforced must not panic a
    // read or wrap to a negative margin.
    let margin = Some(runner_up.map_or(0, |r| best.saturating_sub(r)));
    (winners, margin)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    fn sheet(partnerships: bool, totals: Vec<i64>) -> ScoreSheet {
        let rounds = vec![RoundScore {
            round: 1,
            label: "Deal 1".into(),
            multiplier: 1,
            points: totals.clone(),
            detail: Value::Null,
        }];
        ScoreSheet::from_totals(partnerships, rounds, totals, true)
    }

    #[test]
    fn columns_are_the_players_or_both_partners() {
        let s = sheet(false, vec![-4, -16, -3, -3]);
        assert_eq!(
            s.columns(&names(&["Ada", "Ben", "Cy", "Di"])),
            ["Ada", "Ben", "Cy", "Di"]
        );
        let s = sheet(true, vec![2, 0]);
        assert_eq!(
            s.columns(&names(&["Ada", "Ben", "Cy", "Di"])),
            ["Ada & Cy", "Ben & Di"]
        );
        // A seat with no name given keeps a name of its own.
        assert_eq!(
            sheet(false, vec![1, 0]).columns(&names(&["Ada"])),
            ["Ada", "seat 1"]
        );
    }

    #[test]
    fn columns_that_would_read_the_same_say_their_seat_or_side() {
        let s = sheet(false, vec![0, 0, 0]);
        assert_eq!(
            s.columns(&names(&["Ada", "Ben", "Ada"])),
            ["Ada (seat 0)", "Ben (seat 1)", "Ada (seat 2)"]
        );
        // `=x` is written `'=x`: beside a player really called `'=x` they would read the same.
        assert_eq!(
            s.columns(&names(&["=x", "'=x", "Cy"])),
            ["=x (seat 0)", "'=x (seat 1)", "Cy (seat 2)"]
        );
        let s = sheet(true, vec![0, 0]);
        assert_eq!(
            s.columns(&names(&["Ada", "Ada", "Ben", "Ben"])),
            ["Ada & Ben (side 0)", "Ada & Ben (side 1)"]
        );
    }

    #[test]
    fn the_csv_names_columns_defuses_text_and_keeps_negative_numbers() {
        let s = sheet(false, vec![-4, -16, -3, -3]);
        assert_eq!(
            s.to_csv(&names(&["=HYPERLINK(\"http://evil\")", "+1", "Cy", "Ada, \"A\""])),
            "round,label,multiplier,\"'=HYPERLINK(\"\"http://evil\"\")\",'+1,Cy,\"Ada, \"\"A\"\"\"\n\
             1,Deal 1,1,-4,-16,-3,-3\n\
             total,Total,,-4,-16,-3,-3\n"
        );
    }

    #[test]
    fn the_margin_of_extreme_totals_saturates() {
        assert_eq!(
            winners_and_margin(&[i64::MAX, i64::MIN]),
            (vec![0], Some(i64::MAX))
        );
        assert_eq!(winners_and_margin(&[5, -3, 5]), (vec![0, 2], Some(8)));
    }
}

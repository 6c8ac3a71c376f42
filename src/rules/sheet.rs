//! The score sheet every game produces (API.md "Score sheet").

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

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
    #[schema(value_type = crate::routes::spec::GameRoundDetail)]
    pub detail: Value,
}

/// The score sheet of a match.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct ScoreSheet {
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
    /// side 0, seats 1 and 3 side 1: RULES.md "Shared conventions"), else per seat.
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
            unit: if partnerships { Unit::Side } else { Unit::Seat },
            sides: partnerships.then(|| vec![vec![0, 2], vec![1, 3]]),
            rounds,
            totals,
            finished,
            winners,
            margin,
        }
    }

    /// The sheet as CSV: a header, then one row per round (round, label, multiplier, points...),
    /// then a `total` row.
    pub fn to_csv(&self) -> String {
        let col = match self.unit {
            Unit::Seat => "seat",
            Unit::Side => "side",
        };
        let n = self.totals.len();
        let mut out = String::from("round,label,multiplier");
        for i in 0..n {
            out.push_str(&format!(",{col}_{i}"));
        }
        out.push('\n');
        for r in &self.rounds {
            out.push_str(&format!(
                "{},{},{}",
                r.round,
                csv_field(&r.label),
                r.multiplier
            ));
            for p in &r.points {
                out.push_str(&format!(",{p}"));
            }
            out.push('\n');
        }
        out.push_str("total,Total,");
        for t in &self.totals {
            out.push_str(&format!(",{t}"));
        }
        out.push('\n');
        out
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The winners (all holders of the best total) and the margin over the best of the rest.
pub fn winners_and_margin(totals: &[i64]) -> (Vec<usize>, Option<i64>) {
    let Some(&best) = totals.iter().max() else {
        return (vec![], None);
    };
    let winners: Vec<usize> = (0..totals.len()).filter(|&i| totals[i] == best).collect();
    let runner_up = totals.iter().copied().filter(|&t| t < best).max();
    let margin = Some(runner_up.map_or(0, |r| best - r));
    (winners, margin)
}

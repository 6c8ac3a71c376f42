//! The one CSV writer of every CSV the service serves (a match's score sheet, a tournament's
//! standings and results).
//!
//! A spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` as a formula, and some strip a
//! leading tab or line break first: a player named `=HYPERLINK("http://evil")` would become a link
//! (or a DDE command) on the organiser's machine. So a text cell that starts with one of those is
//! written with a leading `'`, which spreadsheets show as text (OWASP, "CSV Injection"). A number
//! cell is written as it is, so that a negative score stays a number: which cell is text and
//! which a number follows from the type it was made from, never from its contents.

use std::borrow::Cow;

/// One cell of a CSV row.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell(Kind);

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Text(String),
    Number(String),
}

impl Cell {
    /// A text cell (a name, a label, an id): defused when a spreadsheet would run it.
    pub fn text(s: impl Into<String>) -> Cell {
        Cell(Kind::Text(s.into()))
    }

    /// A decimal number with `places` digits after the point.
    pub fn decimal(x: f64, places: usize) -> Cell {
        Cell(Kind::Number(format!("{x:.places$}")))
    }

    /// An empty cell.
    pub fn empty() -> Cell {
        Cell(Kind::Number(String::new()))
    }
}

impl From<i64> for Cell {
    fn from(n: i64) -> Cell {
        Cell(Kind::Number(n.to_string()))
    }
}

impl From<u32> for Cell {
    fn from(n: u32) -> Cell {
        Cell(Kind::Number(n.to_string()))
    }
}

impl From<usize> for Cell {
    fn from(n: usize) -> Cell {
        Cell(Kind::Number(n.to_string()))
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::text(s)
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::text(s)
    }
}

/// Whether a spreadsheet would take text starting like `s` for a formula: OWASP's `=`, `+`, `-`,
/// `@`, tab and carriage return, and a line feed too (stripped like a carriage return by some).
fn runs_as_formula(s: &str) -> bool {
    s.starts_with(['=', '+', '-', '@', '\t', '\r', '\n'])
}

/// `s` as a text cell shows it: with a leading `'` when a spreadsheet would run it. Defusing
/// twice changes nothing (a `'` starts no formula).
pub fn defuse(s: &str) -> Cow<'_, str> {
    if runs_as_formula(s) {
        Cow::Owned(format!("'{s}"))
    } else {
        Cow::Borrowed(s)
    }
}

/// A header row: every column name is text.
pub fn header(names: &[&str]) -> Vec<Cell> {
    names.iter().map(|&n| Cell::text(n)).collect()
}

/// The rows (the header first) as CSV: quoted by the `csv` crate where a cell holds a comma, a
/// quote or a line break, `\n` at each row's end.
pub fn write(rows: impl IntoIterator<Item = Vec<Cell>>) -> String {
    let mut w = csv::Writer::from_writer(vec![]);
    for row in rows {
        let cells: Vec<Cow<str>> = row
            .iter()
            .map(|c| match &c.0 {
                Kind::Text(s) => defuse(s),
                Kind::Number(s) => Cow::Borrowed(s.as_str()),
            })
            .collect();
        // Writing to memory cannot fail.
        w.write_record(cells.iter().map(|c| c.as_bytes()))
            .expect("csv to memory");
    }
    String::from_utf8(w.into_inner().expect("csv to memory")).expect("utf-8 in, utf-8 out")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_would_run_gets_a_quote_and_numbers_stay_numbers() {
        let csv = write([
            header(&["name", "total"]),
            vec![
                Cell::text("=HYPERLINK(\"http://evil\")"),
                Cell::from(-26i64),
            ],
            vec![Cell::text("+1"), Cell::from(0u32)],
            vec![Cell::text("-2+3"), Cell::decimal(-1.5, 2)],
            vec![Cell::text("@SUM(A1)"), Cell::empty()],
            vec![Cell::text("\tx"), Cell::from(3usize)],
            vec![Cell::text("\rx"), Cell::from(4i64)],
            vec![Cell::text("\nx"), Cell::from(5i64)],
            vec![Cell::text("Ada = Ben"), Cell::from(-0i64)],
            vec![Cell::text("'=x"), Cell::from(i64::MIN)],
        ]);
        assert_eq!(
            csv,
            "name,total\n\
             \"'=HYPERLINK(\"\"http://evil\"\")\",-26\n\
             '+1,0\n\
             '-2+3,-1.50\n\
             '@SUM(A1),\n\
             '\tx,3\n\
             \"'\rx\",4\n\
             \"'\nx\",5\n\
             Ada = Ben,0\n\
             '=x,-9223372036854775808\n"
        );
    }

    #[test]
    fn defusing_is_idempotent() {
        for s in ["=1", "'=1", "-", "x", ""] {
            assert_eq!(defuse(&defuse(s)), defuse(s));
        }
    }
}

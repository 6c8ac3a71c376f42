//! A club night's changes to a tournament (issue 24, part 3): late entries, withdrawals and
//! reinstatements, corrections of earlier results, archiving. Each is one entry of the
//! tournament's change log (`tournament_changes`, append-only); the entrants a request works
//! with are the settings' entrants plus the late ones, and who is withdrawn is read from the log
//! in order ([`Night::apply`]). The settings themselves never change (they stay cached).

use std::{collections::BTreeSet, sync::Arc};

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{loaded::Spec, model::Entrant, TournamentError};
use crate::store::ChangeRow;

/// What a late entrant scores for the rounds paired before they entered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MissedRounds {
    /// Nothing: the missed rounds count neither matchpoints nor the most possible, so the
    /// percentage is over the rounds played (the default: most clubs' and FIDE's practice).
    #[default]
    Zero,
    /// Each missed round counts as a bye: half the round's most matchpoints (of a table's
    /// maximum), shown in `byes`.
    Bye,
}

/// The kind of a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// An entrant added after the tournament began.
    LateEntry,
    /// An entrant withdrawn: never paired again, results kept.
    Withdrawal,
    /// A withdrawn entrant paired again from the next round.
    Reinstatement,
    /// An entered result replaced by another (the quick log, a table that already had one).
    Correction,
    /// Archived (operator's consent).
    Archive,
    /// Taken out of the archive (operator's consent).
    Unarchive,
}

impl ChangeKind {
    /// The stored name.
    pub fn name(self) -> &'static str {
        match self {
            ChangeKind::LateEntry => "late_entry",
            ChangeKind::Withdrawal => "withdrawal",
            ChangeKind::Reinstatement => "reinstatement",
            ChangeKind::Correction => "correction",
            ChangeKind::Archive => "archive",
            ChangeKind::Unarchive => "unarchive",
        }
    }

    fn parse(s: &str) -> Option<ChangeKind> {
        [
            ChangeKind::LateEntry,
            ChangeKind::Withdrawal,
            ChangeKind::Reinstatement,
            ChangeKind::Correction,
            ChangeKind::Archive,
            ChangeKind::Unarchive,
        ]
        .into_iter()
        .find(|k| k.name() == s)
    }
}

/// A result's figures, as a correction logs the old and the new one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Figures {
    /// Final totals per unit (seat, or side).
    pub totals: Vec<i64>,
    /// Per deal, each unit's points (empty when only totals were entered).
    pub deals: Vec<Vec<i64>>,
}

/// What a change records (stored as JSON; the fields its kind needs).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct Detail {
    /// The entrant (index in entry order) of a late entry, withdrawal or reinstatement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entrant: Option<usize>,
    /// Late entry: the entrant's player id and name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Late entry, reinstatement: the first round the entrant may be paired in. Withdrawal:
    /// the last round paired when they withdrew. Correction: the corrected table's round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// Correction: the table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<u32>,
    /// Late entry: what the missed rounds score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missed_rounds: Option<MissedRounds>,
    /// Correction: the result before and after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<Figures>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<Figures>,
}

/// A late entrant.
#[derive(Clone, Debug)]
pub(super) struct Late {
    /// Index in entry order.
    pub entrant: usize,
    /// The first round they could be paired in.
    pub round: u32,
    pub missed: MissedRounds,
}

/// The log applied: who entered late, who is withdrawn now.
#[derive(Clone, Debug, Default)]
pub(super) struct Night {
    pub late: Vec<Late>,
    /// Entrants withdrawn now (indices).
    pub withdrawn: BTreeSet<usize>,
    /// The log, oldest first, each with its kind and detail parsed.
    pub log: Vec<(ChangeRow, ChangeKind, Detail)>,
}

impl Night {
    /// Applies `rows` (oldest first) to the settings `spec`: the settings with the late
    /// entrants added (the same `Arc` when there are none), and the night's state.
    pub fn apply(
        spec: Arc<Spec>,
        rows: Vec<ChangeRow>,
    ) -> Result<(Arc<Spec>, Night), TournamentError> {
        let mut night = Night::default();
        let mut extra: Vec<Entrant> = vec![];
        for row in rows {
            let kind = ChangeKind::parse(&row.kind)
                .ok_or_else(|| TournamentError::internal(format!("change kind {}", row.kind)))?;
            let detail: Detail =
                serde_json::from_str(&row.detail).map_err(TournamentError::internal)?;
            match kind {
                ChangeKind::LateEntry => {
                    let (Some(player_id), Some(name), Some(round)) =
                        (&detail.player_id, &detail.name, detail.round)
                    else {
                        return Err(TournamentError::internal("late entry without its entrant"));
                    };
                    night.late.push(Late {
                        entrant: spec.entrants.len() + extra.len(),
                        round,
                        missed: detail.missed_rounds.unwrap_or_default(),
                    });
                    extra.push(Entrant {
                        player_id: player_id.clone(),
                        name: name.clone(),
                    });
                }
                ChangeKind::Withdrawal => {
                    night.withdrawn.extend(detail.entrant);
                }
                ChangeKind::Reinstatement => {
                    if let Some(e) = detail.entrant {
                        night.withdrawn.remove(&e);
                    }
                }
                ChangeKind::Correction | ChangeKind::Archive | ChangeKind::Unarchive => {}
            }
            night.log.push((row, kind, detail));
        }
        let spec = if extra.is_empty() {
            spec
        } else {
            let mut s = (*spec).clone();
            s.entrants.extend(extra);
            Arc::new(s)
        };
        Ok((spec, night))
    }

    /// The next change's sequence number.
    pub fn next_seq(&self) -> i64 {
        self.log.last().map_or(1, |(r, ..)| r.seq + 1)
    }

    /// The byes late entrants who chose [`MissedRounds::Bye`] are given: (round, entrant) for
    /// each round paired before they entered.
    pub fn late_byes(&self) -> Vec<(u32, usize)> {
        self.late
            .iter()
            .filter(|l| l.missed == MissedRounds::Bye)
            .flat_map(|l| (1..l.round).map(move |r| (r, l.entrant)))
            .collect()
    }

    /// When entrant `e` entered late: the first round they could be paired in.
    pub fn late_round(&self, e: usize) -> Option<u32> {
        self.late.iter().find(|l| l.entrant == e).map(|l| l.round)
    }
}

/// The body of a late entry.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LateEntry {
    /// The entrant's name (registered as a new player unless `player_id` is given; then it must
    /// be the registered name).
    #[schema(min_length = 1, max_length = 64, example = "Hal")]
    pub name: String,
    /// A registered player's id.
    #[schema(pattern = "^[0-9a-f]{32}$")]
    pub player_id: Option<String>,
    /// What the rounds paired before the entry score: `zero` (default) or `bye` (half a round's
    /// most matchpoints each, as a bye).
    pub missed_rounds: Option<MissedRounds>,
}

/// An entrant's standing in the field after a late entry, a withdrawal or a reinstatement.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EntrantStatus {
    /// The player's id.
    pub player_id: String,
    /// The player's name.
    pub name: String,
    /// Withdrawn now: never paired again (until reinstated); results kept.
    pub withdrawn: bool,
    /// A late entrant: the first round they could be paired in (null: entered at creation).
    pub entered_for_round: Option<u32>,
    /// The round the next pairing makes; null when every round is paired.
    pub next_round: Option<u32>,
}

/// One entry of the change log.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ChangeView {
    /// 1, 2, 3... in the order the changes were made.
    pub seq: i64,
    /// What changed.
    pub kind: ChangeKind,
    /// Who asked: `organiser`, or `organiser+operator` (archiving, which needs the operator's
    /// consent).
    #[schema(example = "organiser")]
    pub by: String,
    /// When (RFC 3339 UTC).
    #[schema(format = DateTime)]
    pub at: String,
    /// The entrant (late entry, withdrawal, reinstatement).
    pub player_id: Option<String>,
    /// The entrant's name.
    pub name: Option<String>,
    /// Late entry, reinstatement: the first round they may be paired in; withdrawal: the last
    /// round paired when they withdrew; correction: the corrected table's round.
    pub round: Option<u32>,
    /// Correction: the table.
    pub table: Option<u32>,
    /// Late entry: what the missed rounds score.
    pub missed_rounds: Option<MissedRounds>,
    /// Correction: the result it replaced.
    pub old: Option<Figures>,
    /// Correction: the result that counts now.
    pub new: Option<Figures>,
}

/// A tournament's change log, oldest first.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ChangeLog {
    /// The changes. In duplicate play a correction of a round still being played shows to the
    /// organiser only (its figures tell of the boards).
    pub changes: Vec<ChangeView>,
}

/// Archived or not.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ArchiveState {
    /// The tournament.
    pub id: String,
    /// When it was archived; null when it is not.
    #[schema(format = DateTime)]
    pub archived_at: Option<String>,
}

/// One seat of a table assignment.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct SeatAssignment {
    /// The seat, 0-based clockwise.
    pub seat: usize,
    /// The seat's name on the slip: North, East, South, West at a table of four (seat 0 North),
    /// else `1` to `n`.
    #[schema(example = "North")]
    pub seat_name: String,
    /// The player's id.
    pub player_id: String,
    /// The player's name.
    pub name: String,
}

/// One table of a round's assignments.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct TableAssignment {
    /// The table, from 1.
    pub table: u32,
    /// Its seats.
    pub seats: Vec<SeatAssignment>,
}

/// A round's table assignments, as printed when it was paired: who sits where (never a match
/// id, a result or a token: a slip on the wall shows nothing of the boards).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct Assignments {
    /// The tournament.
    pub tournament_id: String,
    /// Its name.
    pub name: String,
    /// The round.
    pub round: u32,
    /// When it was paired (RFC 3339 UTC).
    #[schema(format = DateTime)]
    pub paired_at: String,
    /// The tables.
    pub tables: Vec<TableAssignment>,
    /// Who sits out (a bye).
    pub byes: Vec<Entrant>,
}

/// The seat names of a table of `n`.
pub fn seat_name(n: usize, seat: usize) -> String {
    match (n, seat) {
        (4, 0) => "North".into(),
        (4, 1) => "East".into(),
        (4, 2) => "South".into(),
        (4, 3) => "West".into(),
        _ => (seat + 1).to_string(),
    }
}

/// The assignments as CSV: one row per seat (`table` `bye` for those sitting out).
pub fn assignments_csv(a: &Assignments) -> String {
    use crate::spreadsheet::{self, Cell};
    let header = spreadsheet::header(&["round", "table", "seat", "player_id", "name"]);
    let rows = a
        .tables
        .iter()
        .flat_map(|t| {
            t.seats.iter().map(move |s| {
                vec![
                    Cell::from(a.round),
                    Cell::from(t.table),
                    Cell::text(&s.seat_name),
                    Cell::text(&s.player_id),
                    Cell::text(&s.name),
                ]
            })
        })
        .chain(a.byes.iter().map(|e| {
            vec![
                Cell::from(a.round),
                Cell::text("bye"),
                Cell::empty(),
                Cell::text(&e.player_id),
                Cell::text(&e.name),
            ]
        }));
    spreadsheet::write(std::iter::once(header).chain(rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{rules::Dealing, tournaments::model::RatingSystem};

    fn spec(n: usize) -> Arc<Spec> {
        Arc::new(Spec {
            name: "t".into(),
            game: "dump".into(),
            config: serde_json::json!({}),
            dealing: Dealing::Table,
            format: crate::tournaments::views::Format::Swiss,
            table_size: 2,
            allowed: vec![2],
            rounds: 5,
            duplicate: false,
            record: crate::tournaments::views::Record::Totals,
            rating_system: RatingSystem::Elo,
            fouled_board: Default::default(),
            entrants: (0..n)
                .map(|i| Entrant {
                    player_id: format!("p{i}"),
                    name: format!("P{i}"),
                })
                .collect(),
            schedule: None,
        })
    }

    fn row(seq: i64, kind: ChangeKind, detail: Detail) -> ChangeRow {
        ChangeRow {
            seq,
            kind: kind.name().into(),
            detail: serde_json::to_string(&detail).unwrap(),
            by_whom: "organiser".into(),
            at: "2026-11-27T20:00:00.000Z".into(),
        }
    }

    #[test]
    fn the_log_adds_late_entrants_and_folds_withdrawals_in_order() {
        let base = spec(3);
        let late = |name: &str, round, missed| Detail {
            entrant: Some(3),
            player_id: Some(format!("id-{name}")),
            name: Some(name.into()),
            round: Some(round),
            missed_rounds: Some(missed),
            ..Detail::default()
        };
        let who = |e| Detail {
            entrant: Some(e),
            ..Detail::default()
        };
        let rows = vec![
            row(1, ChangeKind::LateEntry, late("Hal", 3, MissedRounds::Bye)),
            row(2, ChangeKind::Withdrawal, who(1)),
            row(3, ChangeKind::LateEntry, late("Ivy", 4, MissedRounds::Zero)),
            row(4, ChangeKind::Withdrawal, who(3)),
            row(5, ChangeKind::Reinstatement, who(1)),
            row(6, ChangeKind::Correction, Detail::default()),
        ];
        let (s, night) = Night::apply(base.clone(), rows).unwrap();
        let names: Vec<&str> = s.entrants.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["P0", "P1", "P2", "Hal", "Ivy"]);
        assert_eq!(s.entrants[4].player_id, "id-Ivy");
        // The cached settings are untouched.
        assert_eq!(base.entrants.len(), 3);
        assert_eq!(night.withdrawn.iter().copied().collect::<Vec<_>>(), [3]);
        // Hal missed rounds 1 and 2 as byes; Ivy's missed rounds score nothing.
        assert_eq!(night.late_byes(), [(1, 3), (2, 3)]);
        assert_eq!(night.late_round(4), Some(4));
        assert_eq!(night.late_round(0), None);
        assert_eq!(night.next_seq(), 7);
    }

    #[test]
    fn no_log_keeps_the_same_settings_and_an_unknown_kind_is_a_fault() {
        let base = spec(2);
        let (s, night) = Night::apply(base.clone(), vec![]).unwrap();
        assert!(Arc::ptr_eq(&s, &base));
        assert_eq!(night.next_seq(), 1);
        let mut bad = row(1, ChangeKind::Archive, Detail::default());
        bad.kind = "rename".into();
        assert!(matches!(
            Night::apply(base, vec![bad]),
            Err(TournamentError::Internal(_))
        ));
    }

    #[test]
    fn seats_are_named_by_compass_at_four_and_by_number_elsewhere() {
        let four: Vec<String> = (0..4).map(|s| seat_name(4, s)).collect();
        assert_eq!(four, ["North", "East", "South", "West"]);
        let three: Vec<String> = (0..3).map(|s| seat_name(3, s)).collect();
        assert_eq!(three, ["1", "2", "3"]);
    }
}

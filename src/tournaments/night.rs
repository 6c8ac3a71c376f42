//! A club night's changes over the service (issue 24, part 3): late entry, withdrawal and
//! reinstatement, the change log, archiving and deleting (the operator consenting), and a
//! round's table assignments printed again. Each change is one transaction: its log entry with
//! what it writes besides ([`crate::store::Store::insert_change`]); a correction's log entry is
//! written with the corrected result ([`correction`]).

use super::{
    changes::{
        ArchiveState, Assignments, ChangeKind, ChangeLog, ChangeView, Detail, EntrantStatus,
        Figures, LateEntry, Night, SeatAssignment, TableAssignment,
    },
    loaded::Loaded,
    model::TableResult,
    pairing,
    service::{to_json, Tournaments},
    views::Format,
    TournamentError,
};
use crate::{
    ids::{new_id, now},
    matches::views::NewPlayer,
    store::{ChangeRow, ChangeWrite, PlayerRow, StoreError},
};

/// The most entrants a tournament takes, late ones included.
const MAX_ENTRANTS: usize = 4096;

/// Who asked for a change the organiser makes alone.
const ORGANISER: &str = "organiser";
/// Who asked for archiving and deleting.
const WITH_OPERATOR: &str = "organiser+operator";

impl Loaded {
    /// Refuses a change to an archived tournament (409 `tournament_archived`).
    pub fn writable(&self) -> Result<(), TournamentError> {
        match self.row.archived_at {
            Some(_) => Err(TournamentError::Archived),
            None => Ok(()),
        }
    }

    /// The entrant (index) who is player `player_id`.
    fn entrant_of(&self, player_id: &str) -> Result<usize, TournamentError> {
        self.spec
            .entrants
            .iter()
            .position(|e| e.player_id == player_id)
            .ok_or_else(|| TournamentError::EntrantNotFound(player_id.to_string()))
    }

    /// The round the next pairing makes, if any is left.
    fn next_round(&self) -> Option<u32> {
        let next = self.rounds.len() as u32 + 1;
        (next <= self.spec.rounds).then_some(next)
    }

    /// Entrant `e`'s status, with `withdrawn` as it is after the change being made.
    fn status(&self, e: usize, withdrawn: bool, entered_for_round: Option<u32>) -> EntrantStatus {
        let en = &self.spec.entrants[e];
        EntrantStatus {
            player_id: en.player_id.clone(),
            name: en.name.clone(),
            withdrawn,
            entered_for_round: entered_for_round.or_else(|| self.night.late_round(e)),
            next_round: self.next_round(),
        }
    }

    /// Late entries and withdrawals change who is paired: a Swiss tournament's (a round robin's
    /// schedule is fixed at creation).
    fn swiss_only(&self) -> Result<(), TournamentError> {
        match self.spec.format {
            Format::Swiss => Ok(()),
            Format::RoundRobin => Err(TournamentError::NotSwiss),
        }
    }

    /// Whether `active` entrants can still fill the next round's tables.
    fn check_field(&self, active: usize) -> Result<(), TournamentError> {
        let (sizes, _) = pairing::table_sizes(
            active,
            self.spec.table_size,
            &self.spec.allowed,
            self.spec.duplicate,
        );
        let least = if self.spec.duplicate { 2 } else { 1 };
        if sizes.len() < least {
            return Err(TournamentError::TooFewToPair {
                active,
                what: if self.spec.duplicate {
                    format!(
                        "two duplicate tables of {} (duplicate play compares tables)",
                        self.spec.table_size
                    )
                } else {
                    format!("one {} table", self.spec.game)
                },
            });
        }
        Ok(())
    }
}

/// A correction's log entry: table `table` of round `round` had `old`, now `totals` and
/// `deals`, entered `at` by the organiser.
pub(super) fn correction(
    night: &Night,
    round: u32,
    table: u32,
    old: &TableResult,
    totals: &[i64],
    deals: &[Vec<i64>],
    at: &str,
) -> Result<ChangeRow, TournamentError> {
    let detail = Detail {
        round: Some(round),
        table: Some(table),
        old: Some(Figures {
            totals: old.totals.clone(),
            deals: old.deals.clone(),
        }),
        new: Some(Figures {
            totals: totals.to_vec(),
            deals: deals.to_vec(),
        }),
        ..Detail::default()
    };
    Ok(ChangeRow {
        seq: night.next_seq(),
        kind: ChangeKind::Correction.name().to_string(),
        detail: to_json(&detail)?,
        by_whom: ORGANISER.to_string(),
        at: at.to_string(),
    })
}

/// A change's store error: a concurrent change took its place in the log (409).
fn change_error(e: StoreError) -> TournamentError {
    match e {
        StoreError::Conflict => TournamentError::ChangeConflict,
        other => other.into(),
    }
}

impl Tournaments {
    /// Adds an entrant after the tournament began (organiser, Swiss): paired from the next
    /// round on; the rounds already paired score as `missed_rounds` says.
    pub async fn add_entrant(
        &self,
        id: &str,
        token: Option<&str>,
        req: LateEntry,
    ) -> Result<EntrantStatus, TournamentError> {
        let t = self.load(id).await?;
        t.organiser(token)?;
        t.writable()?;
        t.swiss_only()?;
        let Some(next) = t.next_round() else {
            return Err(TournamentError::Finished {
                rounds: t.spec.rounds,
            });
        };
        if t.spec.entrants.len() >= MAX_ENTRANTS {
            return Err(TournamentError::EntrantCount { max: MAX_ENTRANTS });
        }
        // The name and a registered player's id are checked as at creation.
        let (name, player_id) = self
            .matches
            .resolve_players(&[NewPlayer {
                name: req.name,
                player_id: req.player_id,
            }])
            .await?
            .pop()
            .ok_or_else(|| TournamentError::internal("no seat resolved"))?;
        let key = crate::store::name_key(&name);
        if t.spec.entrants.iter().any(|e| {
            Some(&e.player_id) == player_id.as_ref() || crate::store::name_key(&e.name) == key
        }) {
            return Err(TournamentError::AlreadyEntered(name));
        }
        let at = now();
        let (new_player, player_id) = match player_id {
            Some(p) => (None, p),
            None => {
                let p = PlayerRow {
                    id: new_id(),
                    name: name.clone(),
                    created_at: at.clone(),
                };
                let id = p.id.clone();
                (Some(p), id)
            }
        };
        let e = t.spec.entrants.len();
        let detail = Detail {
            entrant: Some(e),
            player_id: Some(player_id.clone()),
            name: Some(name.clone()),
            round: Some(next),
            missed_rounds: Some(req.missed_rounds.unwrap_or_default()),
            ..Detail::default()
        };
        let row = ChangeRow {
            seq: t.night.next_seq(),
            kind: ChangeKind::LateEntry.name().to_string(),
            detail: to_json(&detail)?,
            by_whom: ORGANISER.to_string(),
            at,
        };
        self.store
            .insert_change(
                id,
                &row,
                &ChangeWrite::Entrant(new_player, player_id.clone()),
            )
            .await
            .map_err(change_error)?;
        Ok(EntrantStatus {
            player_id,
            name,
            withdrawn: false,
            entered_for_round: Some(next),
            next_round: Some(next),
        })
    }

    /// Withdraws an entrant (organiser, Swiss): never paired again, their results kept. Refused
    /// while their table of the round in play has no result (409 `table_unfinished`), and when
    /// those left could not fill the next round's tables (409 `too_few_entrants`).
    pub async fn withdraw(
        &self,
        id: &str,
        player_id: &str,
        token: Option<&str>,
    ) -> Result<EntrantStatus, TournamentError> {
        let t = self.load(id).await?;
        t.organiser(token)?;
        t.writable()?;
        t.swiss_only()?;
        let e = t.entrant_of(player_id)?;
        let name = t.spec.entrants[e].name.clone();
        if t.is_withdrawn(e) {
            return Err(TournamentError::AlreadyWithdrawn(name));
        }
        if let Some(last) = t.rounds.last() {
            if let Some(i) = last
                .tables
                .iter()
                .position(|tb| tb.seats.contains(&e) && tb.result.is_none())
            {
                return Err(TournamentError::TableUnfinished {
                    name,
                    round: last.round,
                    table: i as u32 + 1,
                });
            }
        }
        if t.next_round().is_some() {
            t.check_field(t.spec.entrants.len() - t.night.withdrawn.len() - 1)?;
        }
        let detail = Detail {
            entrant: Some(e),
            round: Some(t.rounds.len() as u32),
            ..Detail::default()
        };
        self.log_change(&t, ChangeKind::Withdrawal, detail).await?;
        Ok(t.status(e, true, None))
    }

    /// Reinstates a withdrawn entrant (organiser): paired again from the next round.
    pub async fn reinstate(
        &self,
        id: &str,
        player_id: &str,
        token: Option<&str>,
    ) -> Result<EntrantStatus, TournamentError> {
        let t = self.load(id).await?;
        t.organiser(token)?;
        t.writable()?;
        t.swiss_only()?;
        let e = t.entrant_of(player_id)?;
        if !t.is_withdrawn(e) {
            return Err(TournamentError::NotWithdrawn(
                t.spec.entrants[e].name.clone(),
            ));
        }
        let Some(next) = t.next_round() else {
            return Err(TournamentError::Finished {
                rounds: t.spec.rounds,
            });
        };
        let detail = Detail {
            entrant: Some(e),
            round: Some(next),
            ..Detail::default()
        };
        self.log_change(&t, ChangeKind::Reinstatement, detail)
            .await?;
        Ok(t.status(e, false, None))
    }

    /// Appends a change that writes nothing else.
    async fn log_change(
        &self,
        t: &Loaded,
        kind: ChangeKind,
        detail: Detail,
    ) -> Result<(), TournamentError> {
        let row = ChangeRow {
            seq: t.night.next_seq(),
            kind: kind.name().to_string(),
            detail: to_json(&detail)?,
            by_whom: ORGANISER.to_string(),
            at: now(),
        };
        self.store
            .insert_change(&t.row.id, &row, &ChangeWrite::None)
            .await
            .map_err(change_error)
    }

    /// The change log. Anyone may read it (results and entrants are public); in duplicate play
    /// a correction of a round still being played shows to the organiser only.
    pub async fn change_log(
        &self,
        id: &str,
        token: Option<&str>,
    ) -> Result<ChangeLog, TournamentError> {
        let t = self.load(id).await?;
        let organiser = t.is_organiser(token);
        let changes = t
            .night
            .log
            .iter()
            .filter(|(_, kind, d)| {
                organiser
                    || *kind != ChangeKind::Correction
                    || d.round
                        .and_then(|r| t.round(r).ok())
                        .is_some_and(|r| t.shown(r))
            })
            .map(|(row, kind, d)| {
                let entrant = d.entrant.and_then(|e| t.spec.entrants.get(e));
                ChangeView {
                    seq: row.seq,
                    kind: *kind,
                    by: row.by_whom.clone(),
                    at: row.at.clone(),
                    player_id: entrant.map(|e| e.player_id.clone()),
                    name: entrant.map(|e| e.name.clone()),
                    round: d.round,
                    table: d.table,
                    missed_rounds: d.missed_rounds,
                    old: d.old.clone(),
                    new: d.new.clone(),
                }
            })
            .collect();
        Ok(ChangeLog { changes })
    }

    /// Archives (`archive`) or takes out of the archive a tournament: its organiser, with the
    /// operator's consent (`operator`: the operator's token).
    pub async fn set_archived(
        &self,
        id: &str,
        token: Option<&str>,
        operator: Option<&str>,
        archive: bool,
    ) -> Result<ArchiveState, TournamentError> {
        let t = self.load(id).await?;
        t.organiser(token)?;
        if !self.matches.is_operator(operator) {
            return Err(TournamentError::OperatorConsentRequired);
        }
        match (archive, t.row.archived_at.is_some()) {
            (true, true) => return Err(TournamentError::Archived),
            (false, false) => return Err(TournamentError::NotArchived),
            _ => {}
        }
        let at = now();
        let row = ChangeRow {
            seq: t.night.next_seq(),
            kind: if archive {
                ChangeKind::Archive
            } else {
                ChangeKind::Unarchive
            }
            .name()
            .to_string(),
            detail: "{}".to_string(),
            by_whom: WITH_OPERATOR.to_string(),
            at: at.clone(),
        };
        let archived_at = archive.then_some(at);
        self.store
            .insert_change(id, &row, &ChangeWrite::Archive(archived_at.clone()))
            .await
            .map_err(change_error)?;
        Ok(ArchiveState {
            id: id.to_string(),
            archived_at,
        })
    }

    /// Deletes a tournament: its organiser, with the operator's consent. Gone from every read,
    /// list and export; its results leave the club's memory (ratings replayed).
    pub async fn delete(
        &self,
        id: &str,
        token: Option<&str>,
        operator: Option<&str>,
    ) -> Result<(), TournamentError> {
        let t = self.load(id).await?;
        t.organiser(token)?;
        if !self.matches.is_operator(operator) {
            return Err(TournamentError::OperatorConsentRequired);
        }
        let mut match_ids = vec![];
        let mut sources = vec![];
        for r in &t.rounds {
            for (i, tb) in r.tables.iter().enumerate() {
                sources.push(format!("table:{id}:{}:{}", r.round, i + 1));
                if let Some(m) = &tb.match_id {
                    sources.push(format!("match:{m}"));
                    match_ids.push(m.clone());
                }
            }
        }
        let deleted = self
            .store
            .delete_tournament(id, &t.spec.game, &match_ids, &sources, &now())
            .await?;
        if !deleted {
            return Err(TournamentError::NotFound(id.to_string()));
        }
        Ok(())
    }

    /// Round `round`'s table assignments (organiser), as when it was paired: they are read
    /// from the stored pairing, which nothing changes.
    pub async fn assignments(
        &self,
        id: &str,
        round: u32,
        token: Option<&str>,
    ) -> Result<Assignments, TournamentError> {
        let t = self.load_part(id, round, Some(1)).await?;
        t.organiser(token)?;
        let r = t.round(round)?;
        let entrants = &t.spec.entrants;
        Ok(Assignments {
            tournament_id: t.row.id.clone(),
            name: t.spec.name.clone(),
            round,
            paired_at: r.created_at.clone(),
            tables: r
                .tables
                .iter()
                .enumerate()
                .map(|(i, tb)| TableAssignment {
                    table: i as u32 + 1,
                    seats: tb
                        .seats
                        .iter()
                        .enumerate()
                        .map(|(seat, &e)| SeatAssignment {
                            seat,
                            seat_name: super::changes::seat_name(tb.seats.len(), seat),
                            player_id: entrants[e].player_id.clone(),
                            name: entrants[e].name.clone(),
                        })
                        .collect(),
                })
                .collect(),
            byes: r.byes.iter().map(|&b| entrants[b].clone()).collect(),
        })
    }
}

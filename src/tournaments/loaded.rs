//! A tournament as one request loads it (its settings, rounds, tables and their results) and
//! everything rendered from it: the view, a round's view, the standings. Loaded once per request
//! ([`super::service::Tournaments`]); what the request then writes is added to it, not read back.

use std::{collections::HashMap, sync::Arc};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    changes::Night,
    model::{
        Entrant, FouledBoardRule, Pairing, RatingSystem, ResultSource, Standings, TableResult,
    },
    standings,
    views::{Format, Record, RoundView, TableResultView, TableView, TournamentView},
    TournamentError,
};
use crate::{
    ids::sha256_hex,
    matches::views::{MatchStatus, PlayerView},
    rules::{AnyGame, Dealing},
    store::{ResultRow, RoundRow, TournamentRow},
};

/// A tournament's fixed settings, as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Spec {
    pub name: String,
    pub game: String,
    pub config: Value,
    pub dealing: Dealing,
    pub format: Format,
    pub table_size: usize,
    pub allowed: Vec<usize>,
    pub rounds: u32,
    pub duplicate: bool,
    pub record: Record,
    /// Duplicate play with real cards: what a table that fouled a board scores on it.
    #[serde(default)]
    pub fouled_board: FouledBoardRule,
    pub rating_system: RatingSystem,
    pub entrants: Vec<Entrant>,
    /// Round robin: every round's pairing, fixed at creation.
    pub schedule: Option<Vec<Pairing>>,
}

impl Spec {
    /// The sides of a table of `seats` seats, as its matches keep them (None: per seat).
    pub fn table_sides(&self, seats: usize) -> Option<Vec<Vec<usize>>> {
        AnyGame::new(&self.game, Some(self.config.clone()), seats, self.dealing)
            .ok()
            .and_then(|g| g.score_sheet().sides)
    }

    /// An entered result (the latest version of a table's quick log) as standings see it.
    pub fn entered_result(
        &self,
        round: u32,
        table: u32,
        seats: &[usize],
        e: &ResultRow,
    ) -> Result<TableResult, TournamentError> {
        self.entered_result_sided(round, table, seats, e, self.table_sides(seats.len()))
    }

    /// [`Spec::entered_result`] with the table's sides already known.
    pub fn entered_result_sided(
        &self,
        round: u32,
        table: u32,
        seats: &[usize],
        e: &ResultRow,
        sides: Option<Vec<Vec<usize>>>,
    ) -> Result<TableResult, TournamentError> {
        #[derive(Deserialize)]
        struct Stored {
            totals: Vec<i64>,
            deals: Vec<Vec<i64>>,
            match_id: Option<String>,
        }
        let s: Stored = serde_json::from_str(&e.result).map_err(TournamentError::internal)?;
        let (winners, _) = crate::rules::sheet::winners_and_margin(&s.totals);
        Ok(TableResult {
            round,
            table,
            seats: seats.to_vec(),
            sides,
            totals: s.totals,
            deals: s.deals,
            winners,
            source: ResultSource::Totals,
            match_id: s.match_id,
            at: e.entered_at.clone(),
            fouls: vec![],
        })
    }
}

/// One table as loaded: where it sits, its match, its result.
pub(super) struct LoadedTable {
    /// Shared with the kept parse of its round ([`super::service::Tournaments`]' round cache).
    pub seats: Arc<[usize]>,
    pub match_id: Option<String>,
    pub result: Option<TableResult>,
    /// The version of its latest entered result (0: none was entered); the next entry is one
    /// more.
    pub entered_version: i64,
}

/// One round as loaded.
pub(super) struct LoadedRound {
    pub round: u32,
    pub secret: String,
    pub byes: Vec<usize>,
    pub tables: Vec<LoadedTable>,
    pub created_at: String,
}

impl LoadedRound {
    /// A round just paired (`row`, its `pairing` and its tables' `match_ids`): no table has a
    /// result yet.
    pub fn paired(row: RoundRow, pairing: Pairing, match_ids: Vec<Option<String>>) -> LoadedRound {
        LoadedRound {
            round: row.round as u32,
            secret: row.secret,
            byes: pairing.byes,
            tables: pairing
                .tables
                .into_iter()
                .zip(match_ids)
                .map(|(seats, match_id)| LoadedTable {
                    seats: seats.into(),
                    match_id,
                    result: None,
                    entered_version: 0,
                })
                .collect(),
            created_at: row.created_at,
        }
    }

    pub fn complete(&self) -> bool {
        self.tables.iter().all(|t| t.result.is_some())
    }

    /// Table `table` (from 1).
    pub fn table(&self, table: u32) -> Result<&LoadedTable, TournamentError> {
        (table as usize)
            .checked_sub(1)
            .and_then(|i| self.tables.get(i))
            .ok_or(TournamentError::TableNotFound {
                round: self.round,
                tables: self.tables.len(),
            })
    }
}

/// A tournament as loaded, its results read from the tables' matches and the entries.
pub(super) struct Loaded {
    pub row: TournamentRow,
    /// The settings, shared with the service's cache of them (with the late entrants added:
    /// then a copy).
    pub spec: std::sync::Arc<Spec>,
    pub rounds: Vec<LoadedRound>,
    /// The change log applied: late entrants, who is withdrawn (issue 24, part 3).
    pub night: Night,
}

impl Loaded {
    /// Every result so far, those of a duplicate round still being played included (the
    /// organiser's view).
    fn results(&self) -> Vec<TableResult> {
        self.rounds
            .iter()
            .flat_map(|r| r.tables.iter().filter_map(|t| t.result.clone()))
            .collect()
    }

    /// Whether round `r`'s results may be shown to anyone: in duplicate play only once the round
    /// is complete (a finished table's per-deal points, totals and match tell of the boards the
    /// round's other tables still play).
    pub fn shown(&self, r: &LoadedRound) -> bool {
        !self.spec.duplicate || r.complete()
    }

    /// The results anyone may see: the standings, the exports and the public view count these.
    pub fn public_results(&self) -> Vec<TableResult> {
        self.rounds
            .iter()
            .filter(|r| self.shown(r))
            .flat_map(|r| r.tables.iter().filter_map(|t| t.result.clone()))
            .collect()
    }

    /// Why a complete duplicate round's secret is not published: the game withholds its seeds
    /// for good (Members Only: the secret would re-derive every hand, hence the face-down
    /// discards, which are never public). None when it is published.
    fn secret_withheld(&self) -> Option<&'static str> {
        AnyGame::new(
            &self.spec.game,
            Some(self.spec.config.clone()),
            self.spec.table_size,
            self.spec.dealing,
        )
        .ok()
        .and_then(|g| g.seed_withheld())
    }

    /// The byes: those of the pairings, and a late entrant's missed rounds when they count as
    /// byes ([`super::changes::MissedRounds::Bye`]).
    fn byes(&self) -> Vec<(u32, usize)> {
        self.rounds
            .iter()
            .flat_map(|r| r.byes.iter().map(move |&b| (r.round, b)))
            .chain(self.night.late_byes())
            .collect()
    }

    pub fn standings(&self) -> Standings {
        let mut s = standings::standings(
            &self.spec.entrants,
            &self.public_results(),
            &self.byes(),
            self.spec.duplicate,
            self.spec.fouled_board,
            self.spec.rating_system,
        );
        let withdrawn: std::collections::HashSet<&str> = self
            .night
            .withdrawn
            .iter()
            .filter_map(|&e| self.spec.entrants.get(e))
            .map(|e| e.player_id.as_str())
            .collect();
        for row in &mut s.rows {
            row.withdrawn = withdrawn.contains(row.player_id.as_str());
        }
        s
    }

    /// Whether entrant `e` is withdrawn now.
    pub fn is_withdrawn(&self, e: usize) -> bool {
        self.night.withdrawn.contains(&e)
    }

    pub fn finished(&self) -> bool {
        self.rounds.len() as u32 >= self.spec.rounds && self.rounds.iter().all(|r| r.complete())
    }

    /// Whether `token` is the organiser's.
    pub fn is_organiser(&self, token: Option<&str>) -> bool {
        token.is_some_and(|tok| sha256_hex(tok.as_bytes()) == self.row.organiser_hash)
    }

    /// The organiser's token, checked (401 without a token, 403 with another one).
    pub fn organiser<'t>(&self, token: Option<&'t str>) -> Result<&'t str, TournamentError> {
        match token {
            None => Err(TournamentError::OrganiserTokenRequired),
            Some(tok) if self.is_organiser(Some(tok)) => Ok(tok),
            Some(_) => Err(TournamentError::OrganiserOnly),
        }
    }

    /// The view (`organiser`: the organiser is asking).
    pub fn render(&self, organiser: bool) -> TournamentView {
        let marks = Marks::of(self, None);
        TournamentView {
            id: self.row.id.clone(),
            name: self.spec.name.clone(),
            game: self.spec.game.clone(),
            config: self.spec.config.clone(),
            dealing: self.spec.dealing,
            format: self.spec.format,
            table_size: self.spec.table_size,
            duplicate: self.spec.duplicate,
            record: self.spec.record,
            rating_system: self.spec.rating_system,
            rounds_planned: self.spec.rounds,
            status: if self.finished() {
                MatchStatus::Finished
            } else {
                MatchStatus::InProgress
            },
            players: self.spec.entrants.clone(),
            withdrawn: self
                .night
                .withdrawn
                .iter()
                .filter_map(|&e| self.spec.entrants.get(e))
                .map(|e| e.player_id.clone())
                .collect(),
            archived_at: self.row.archived_at.clone(),
            rounds: self
                .rounds
                .iter()
                .map(|r| self.render_round(r, organiser, &marks))
                .collect(),
            created_at: self.row.created_at.clone(),
        }
    }

    /// Round `round` (from 1), paired.
    pub fn round(&self, round: u32) -> Result<&LoadedRound, TournamentError> {
        self.rounds
            .iter()
            .find(|r| r.round == round)
            .ok_or(TournamentError::RoundNotFound {
                round,
                paired: self.rounds.len(),
            })
    }

    /// Round `round`'s view as the organiser sees it.
    pub fn round_view(&self, round: u32) -> Result<RoundView, TournamentError> {
        let r = self.round(round)?;
        Ok(self.render_round(r, true, &Marks::of(self, Some(r))))
    }

    /// Table `table` of round `round` as the organiser sees it.
    pub fn table_view(&self, round: u32, table: u32) -> Result<TableView, TournamentError> {
        let r = self.round(round)?;
        let i = r.table(table).map(|_| table as usize - 1)?;
        Ok(self.render_table(r, i, &r.tables[i], true, &Marks::of(self, Some(r))))
    }

    fn render_round(&self, r: &LoadedRound, organiser: bool, marks: &Marks) -> RoundView {
        let complete = r.complete();
        let withheld = marks.withheld;
        RoundView {
            round: r.round,
            complete,
            secret: (self.spec.duplicate && complete && withheld.is_none())
                .then(|| r.secret.clone()),
            secret_withheld: withheld
                .filter(|_| self.spec.duplicate)
                .map(|w| format!("the round's secret is never published: {w}")),
            tables: r
                .tables
                .iter()
                .enumerate()
                .map(|(i, tb)| self.render_table(r, i, tb, organiser, marks))
                .collect(),
            byes: r
                .byes
                .iter()
                .map(|&b| self.spec.entrants[b].clone())
                .collect(),
            created_at: r.created_at.clone(),
        }
    }

    fn render_table(
        &self,
        r: &LoadedRound,
        i: usize,
        tb: &LoadedTable,
        organiser: bool,
        marks: &Marks,
    ) -> TableView {
        let table = i as u32 + 1;
        // Duplicate play: while the round is played, a table's match and result show to the
        // organiser only.
        let shown = organiser || self.shown(r);
        TableView {
            table,
            players: tb
                .seats
                .iter()
                .enumerate()
                .map(|(seat, &e)| PlayerView {
                    seat,
                    name: self.spec.entrants[e].name.clone(),
                    player_id: Some(self.spec.entrants[e].player_id.clone()),
                })
                .collect(),
            match_id: tb.match_id.clone().filter(|_| shown),
            finished: tb.result.is_some(),
            result: tb.result.as_ref().filter(|_| shown).map(|res| {
                let mp = marks.of_table(r.round, table);
                TableResultView {
                    source: res.source,
                    totals: res.totals.clone(),
                    deals: res.deals.clone(),
                    sides: res.sides.clone(),
                    winners: res.winners.clone(),
                    matchpoints: mp.iter().map(|m| m.0).collect(),
                    max_matchpoints: mp.iter().map(|m| m.1).collect(),
                    at: res.at.clone(),
                }
            }),
        }
    }
}

/// What rendering a tournament's rounds takes from the whole of it, worked out once: every
/// result's matchpoints (the organiser's view counts them all; in duplicate play a table's
/// depend on the round's other tables, never on another round's) and why the rounds' secrets are
/// withheld.
struct Marks {
    at: HashMap<(u32, u32), usize>,
    points: Vec<Vec<(i64, i64)>>,
    withheld: Option<&'static str>,
}

impl Marks {
    /// The marks of round `only`'s results, or of every round's.
    fn of(t: &Loaded, only: Option<&LoadedRound>) -> Marks {
        let all: Vec<TableResult> = match only {
            Some(r) => r.tables.iter().filter_map(|t| t.result.clone()).collect(),
            None => t.results(),
        };
        Marks {
            at: all
                .iter()
                .enumerate()
                .map(|(i, r)| ((r.round, r.table), i))
                .collect(),
            points: standings::table_matchpoints(&all, t.spec.duplicate, t.spec.fouled_board),
            withheld: t.secret_withheld(),
        }
    }

    /// Each unit's (matchpoints, most possible) at table `table` of round `round`.
    fn of_table(&self, round: u32, table: u32) -> Vec<(i64, i64)> {
        self.at
            .get(&(round, table))
            .map(|&i| self.points[i].clone())
            .unwrap_or_default()
    }
}

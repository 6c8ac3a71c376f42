//! The club's memory (issue 24): every finished result that names registered players, across
//! casual matches and tournament tables; per player and game statistics; club ratings per game
//! that last ([`rating`]); leaderboards, seasons, merging two records of one person.
//!
//! Results come in two ways. A match's, through the hook [`match_status_changed`] (from the
//! match write path, when a match finishes or an undo reopens it), run after the event is
//! committed together with a durable marker (`club_pending`); the hook deletes the marker once
//! the club has taken the result in. A marker left behind (a crash between the two, or a
//! failure of the club's write, logged) is replayed at the next start ([`recover`]). A
//! tournament table's entered (or corrected) result, in the entry's own transaction: the
//! tournament service builds it ([`table_result`]) and `Store::insert_result` records and rates
//! it with the entry, one durable commit (issue 25, part 4), so no marker is needed; markers of
//! tables left by an earlier version are still replayed ([`table_entered`]).

mod error;
pub mod rating;
pub mod views;

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;
use serde::Deserialize;

pub use self::error::ClubError;
use self::{
    rating::ClubSystem,
    views::{
        CreateSeason, GameStats, HeadToHead, Leaderboard, LeaderboardRow, PlayerStats, RatingPoint,
        ResultLine, Season, SeasonBoard, SeasonRow,
    },
};
use crate::{
    ids::{is_id, new_id, now},
    matches::views::TournamentLink,
    rules::{
        sheet::{ScoreSheet, Unit},
        AnyGame,
    },
    spreadsheet::{self, Cell},
    store::{ClubGuard, ClubResult, MergeRefusal, SeasonRow as StoredSeason, Store},
};

/// How many results `recent` lists.
const RECENT: usize = 10;

/// A match whose status changed, as the write path knows it.
pub struct MatchChange<'a> {
    /// The match id.
    pub id: &'a str,
    /// The game id.
    pub game: &'a str,
    /// The registered player of each seat.
    pub player_ids: &'a [Option<String>],
    /// Its tournament table.
    pub tournament: Option<&'a TournamentLink>,
    /// Its score sheet now.
    pub sheet: &'a ScoreSheet,
    /// "finished", "in_progress" (an undo reopened it) or "abandoned".
    pub status: &'a str,
    /// Duplicate play (a round's tables play the same boards).
    pub duplicate: bool,
    /// The seq of the event that changed the status (the match's version now).
    pub seq: i64,
    /// When that event was recorded (RFC 3339): the result's `finished_at`.
    pub at: &'a str,
}

/// Releases the held results of a duplicate round once every table has its result.
async fn release(
    store: &Store,
    tournament_id: &str,
    round: u32,
    key: &str,
) -> Result<(), crate::store::StoreError> {
    if store.round_complete(tournament_id, round).await? {
        store.club_release(key).await?;
    }
    Ok(())
}

/// Hook of the match write path (`src/matches/write.rs`), run after the event is committed with
/// its `club_pending` marker, and at start-up for a marker left behind ([`recover`]): a
/// finished match naming registered players is recorded (rated unless created with
/// `rated: false`) if it is still at that version; a match reopened by an undo (or abandoned)
/// is taken out again (its game's ratings replayed from its place) if it is not finished now.
/// Done, the marker goes; on a failure it stays for the next start (logged).
pub async fn match_status_changed(store: &Store, m: MatchChange<'_>) {
    let source = format!("match:{}", m.id);
    // A deleted tournament's tables are out of the club's memory for good (issue 24, part 3):
    // a table match that finishes (again) after the deletion is not recorded.
    if let Some(t) = m.tournament {
        match store.tournament_deleted(&t.id).await {
            Ok(false) => {}
            Ok(true) => return,
            Err(e) => {
                tracing::error!(error = %e, match_id = %m.id, "the club could not read the match's tournament");
                return;
            }
        }
    }
    let done = match m.status {
        "finished" => {
            if m.player_ids.iter().all(Option::is_none) {
                return;
            }
            let units = units_of(m.sheet, m.player_ids);
            // A duplicate round's table is held until the round is complete: its boards are
            // secret while another table plays them.
            let hold_key = m
                .tournament
                .filter(|_| m.duplicate)
                .map(|t| format!("{}:{}", t.id, t.round));
            match store.club_match_unrated(m.id).await {
                Ok(unrated) => {
                    let recorded = store
                        .club_record(
                            ClubResult {
                                source: source.clone(),
                                game: m.game.to_string(),
                                rated: !unrated,
                                match_id: Some(m.id.to_string()),
                                tournament: m
                                    .tournament
                                    .and_then(|t| serde_json::to_string(t).ok()),
                                units,
                                finished_at: m.at.to_string(),
                                hold_key: hold_key.clone(),
                            },
                            ClubGuard::MatchAt {
                                id: m.id.to_string(),
                                seq: m.seq,
                            },
                        )
                        .await;
                    match (recorded, m.tournament, hold_key) {
                        (Ok(true), Some(t), Some(key)) => {
                            release(store, &t.id, t.round, &key).await
                        }
                        (other, ..) => other.map(|_| ()),
                    }
                }
                Err(e) => Err(e),
            }
        }
        _ => {
            store
                .club_remove(
                    &source,
                    ClubGuard::MatchNotFinished {
                        id: m.id.to_string(),
                    },
                )
                .await
        }
    };
    let done = match done {
        Ok(()) => store.club_unmark(&source, &m.seq.to_string()).await,
        Err(e) => Err(e),
    };
    if let Err(e) = done {
        tracing::error!(error = %e, match_id = %m.id, "the club could not record the match's result (its marker stays: recorded at the next start)");
    }
}

/// Per unit (seat, or side when the sheet has sides): its players and total.
fn units_of(sheet: &ScoreSheet, player_ids: &[Option<String>]) -> Vec<(Vec<Option<String>>, i64)> {
    sheet
        .totals
        .iter()
        .enumerate()
        .map(|(u, &total)| {
            let seats: Vec<usize> = match (&sheet.unit, &sheet.sides) {
                (Unit::Side, Some(sides)) => sides.get(u).cloned().unwrap_or_default(),
                _ => vec![u],
            };
            let players = seats
                .iter()
                .map(|&s| player_ids.get(s).cloned().flatten())
                .collect();
            (players, total)
        })
        .collect()
}

/// A tournament table's entered result, as the tournament service knows it.
pub struct TableEntry<'a> {
    /// The tournament.
    pub tournament_id: &'a str,
    /// Its game.
    pub game: &'a str,
    /// The round.
    pub round: u32,
    /// The table.
    pub table: u32,
    /// The entry's version (a correction is the next one).
    pub version: i64,
    /// When it was entered (RFC 3339).
    pub at: &'a str,
    /// The registered player of each seat.
    pub seat_players: &'a [String],
    /// The seats of each side, when the game scores sides.
    pub sides: Option<&'a [Vec<usize>]>,
    /// The totals per unit.
    pub totals: &'a [i64],
    /// Duplicate play.
    pub duplicate: bool,
}

/// A tournament table's entered result (or its correction: the same `source` again) as the
/// club records it: rated, its units' registered players and totals; a duplicate round's table
/// held until the round is complete.
pub fn table_result(e: &TableEntry<'_>) -> ClubResult {
    let units = e
        .totals
        .iter()
        .enumerate()
        .map(|(u, &t)| {
            let seats: Vec<usize> = match e.sides {
                Some(s) => s.get(u).cloned().unwrap_or_default(),
                None => vec![u],
            };
            (
                seats
                    .iter()
                    .map(|&s| e.seat_players.get(s).cloned())
                    .collect(),
                t,
            )
        })
        .collect();
    let link = TournamentLink {
        id: e.tournament_id.to_string(),
        round: e.round,
        table: e.table,
    };
    ClubResult {
        source: format!("table:{}:{}:{}", e.tournament_id, e.round, e.table),
        game: e.game.to_string(),
        rated: true,
        match_id: None,
        tournament: serde_json::to_string(&link).ok(),
        units,
        finished_at: e.at.to_string(),
        hold_key: e
            .duplicate
            .then(|| format!("{}:{}", e.tournament_id, e.round)),
    }
}

/// A `club_pending` marker of a table left by an earlier version of the service (which
/// recorded an entry in a second transaction after the entry's; an entry is now recorded in
/// its own transaction, `Store::insert_result`), replayed at start-up ([`recover`]): the
/// table's latest entered result is recorded, rated, if it is still the table's latest entry.
/// Done, the marker goes; on a failure it stays for the next start (logged).
pub async fn table_entered(store: &Store, e: TableEntry<'_>) {
    let r = table_result(&e);
    let TableEntry {
        tournament_id,
        round,
        table,
        version,
        duplicate,
        ..
    } = e;
    let source = r.source.clone();
    let guard = ClubGuard::EntryAt {
        tournament: tournament_id.to_string(),
        round: i64::from(round),
        table: i64::from(table),
        version,
    };
    let recorded = match store.club_record(r, guard).await {
        Ok(true) if duplicate => {
            release(
                store,
                tournament_id,
                round,
                &format!("{tournament_id}:{round}"),
            )
            .await
        }
        other => other.map(|_| ()),
    };
    let done = match recorded {
        Ok(()) => store.club_unmark(&source, &version.to_string()).await,
        Err(e) => Err(e),
    };
    if let Err(e) = done {
        tracing::error!(error = %e, tournament_id, round, table, "the club could not record the table's result (its marker stays: recorded at the next start)");
    }
}

/// At start-up: every `club_pending` marker left behind (a crash between a write's commit and
/// the club's recording, or a failure of the latter) is replayed from the match's or the
/// entry's current state, oldest first, through the same hooks. Returns how many were found.
pub async fn recover(
    matches: &crate::matches::Matches,
    tournaments: &crate::tournaments::service::Tournaments,
) -> usize {
    let store = matches.store();
    let pending = match store.club_pending().await {
        Ok(p) => p,
        Err(e) => {
            tracing::error!(error = %e, "the club's pending results could not be read");
            return 0;
        }
    };
    for p in &pending {
        let outcome = if let Some(id) = p.source.strip_prefix("match:") {
            matches
                .club_replay(id, &p.at)
                .await
                .map_err(|e| e.to_string())
        } else if let Some(rest) = p.source.strip_prefix("table:") {
            let parts: Vec<&str> = rest.split(':').collect();
            match parts.as_slice() {
                [t, r, n] => match (r.parse::<u32>(), n.parse::<u32>()) {
                    (Ok(r), Ok(n)) => tournaments
                        .club_replay(t, r, n)
                        .await
                        .map_err(|e| e.to_string()),
                    _ => Err("malformed marker".to_string()),
                },
                _ => Err("malformed marker".to_string()),
            }
        } else {
            Err("malformed marker".to_string())
        };
        match outcome {
            Ok(()) => tracing::info!(source = %p.source, "the club took in a result left pending"),
            Err(e) => {
                tracing::error!(error = %e, source = %p.source, "the club could not take in a result left pending")
            }
        }
    }
    pending.len()
}

/// The club service: reads and the operator's changes.
pub struct Club<'a> {
    store: &'a Store,
}

#[derive(Deserialize)]
struct StoredUnit {
    players: Vec<Option<String>>,
    total: i64,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn check_game(game: &str) -> Result<(), ClubError> {
    if AnyGame::player_counts(game).is_none() {
        return Err(ClubError::UnknownGame(game.to_string()));
    }
    Ok(())
}

impl<'a> Club<'a> {
    /// The service over `store`.
    pub fn new(store: &'a Store) -> Club<'a> {
        Club { store }
    }

    /// The operator check: `operator` is whether `token` is the operator's.
    pub fn operator(token: Option<&str>, operator: bool) -> Result<(), ClubError> {
        match (token, operator) {
            (_, true) => Ok(()),
            (None, _) => Err(ClubError::OperatorTokenRequired),
            (Some(_), false) => Err(ClubError::OperatorOnly),
        }
    }

    /// The player `id` answers for: itself, or the record it was merged into.
    async fn current(&self, id: &str) -> Result<(String, String), ClubError> {
        let not_found = || ClubError::PlayerNotFound(id.to_string());
        if !is_id(id) {
            return Err(not_found());
        }
        let into = self.store.club_merged(id).await?;
        let id = into.as_deref().unwrap_or(id).to_string();
        let name = self
            .store
            .club_names(std::slice::from_ref(&id))
            .await?
            .remove(&id)
            .ok_or_else(not_found)?;
        Ok((id, name))
    }

    /// A player's statistics.
    pub async fn stats(&self, id: &str) -> Result<PlayerStats, ClubError> {
        let (id, name) = self.current(id).await?;
        let lines = self.store.club_player_results(&id).await?;
        let ratings: HashMap<String, (f64, Option<f64>)> = self
            .store
            .club_player_ratings(&id)
            .await?
            .into_iter()
            .map(|(g, r, u)| (g, (r, u)))
            .collect();
        let mut per_game: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, l) in lines.iter().enumerate() {
            per_game.entry(l.game.clone()).or_default().push(i);
        }
        let mut units_of: Vec<Vec<StoredUnit>> = Vec::with_capacity(lines.len());
        for l in &lines {
            units_of.push(serde_json::from_str(&l.units).unwrap_or_default());
        }
        // Opponents: (game, player) → (played, wins, losses, draws).
        let mut opponents: Vec<String> = vec![];
        let mut games = vec![];
        for (game, idx) in &per_game {
            let mut h2h: BTreeMap<String, [i64; 4]> = BTreeMap::new();
            for &i in idx {
                let l = &lines[i];
                for (u, unit) in units_of[i].iter().enumerate() {
                    if u as i64 == l.unit {
                        continue;
                    }
                    for p in unit.players.iter().flatten() {
                        let e = h2h.entry(p.clone()).or_default();
                        e[0] += 1;
                        match l.total.cmp(&unit.total) {
                            std::cmp::Ordering::Greater => e[1] += 1,
                            std::cmp::Ordering::Less => e[2] += 1,
                            std::cmp::Ordering::Equal => e[3] += 1,
                        }
                    }
                }
            }
            opponents.extend(h2h.keys().cloned());
            let played = idx.len() as i64;
            let (rating, rating_uncertainty) = match ratings.get(game) {
                Some(&(r, u)) => (Some(round3(r)), u.map(round3)),
                None => (None, None),
            };
            let mut head_to_head: Vec<HeadToHead> = h2h
                .into_iter()
                .map(|(p, [played, wins, losses, draws])| HeadToHead {
                    player_id: p,
                    name: String::new(),
                    played,
                    wins,
                    losses,
                    draws,
                })
                .collect();
            head_to_head
                .sort_by(|a, b| b.played.cmp(&a.played).then(a.player_id.cmp(&b.player_id)));
            games.push(GameStats {
                game: game.clone(),
                rating_system: ClubSystem::of_game(game),
                played,
                wins: idx.iter().filter(|&&i| lines[i].won != 0).count() as i64,
                average_score: round3(
                    idx.iter().map(|&i| lines[i].total as f64).sum::<f64>() / played as f64,
                ),
                best_score: idx.iter().map(|&i| lines[i].total).max().unwrap_or(0),
                rating,
                rating_uncertainty,
                rating_history: idx
                    .iter()
                    .filter_map(|&i| {
                        let l = &lines[i];
                        l.rating_after.map(|r| RatingPoint {
                            at: l.finished_at.clone(),
                            rating: round3(r),
                            uncertainty: l.uncertainty_after.map(round3),
                            match_id: l.match_id.clone(),
                            tournament: l
                                .tournament
                                .as_deref()
                                .and_then(|t| serde_json::from_str(t).ok()),
                        })
                    })
                    .collect(),
                head_to_head,
            });
        }
        opponents.sort();
        opponents.dedup();
        let names = self.store.club_names(&opponents).await?;
        for g in &mut games {
            for h in &mut g.head_to_head {
                h.name = names.get(&h.player_id).cloned().unwrap_or_default();
            }
        }
        let recent = lines
            .iter()
            .zip(&units_of)
            .rev()
            .take(RECENT)
            .map(|(l, units)| ResultLine {
                game: l.game.clone(),
                finished_at: l.finished_at.clone(),
                match_id: l.match_id.clone(),
                tournament: l
                    .tournament
                    .as_deref()
                    .and_then(|t| serde_json::from_str(t).ok()),
                total: l.total,
                place: l.place,
                units: units.len(),
                won: l.won != 0,
                rated: l.rated != 0,
                rating_after: l.rating_after.map(round3),
            })
            .collect();
        Ok(PlayerStats {
            merged: self.store.club_merged_into(&id).await?,
            player_id: id,
            name,
            games,
            recent,
        })
    }

    /// Merges player `from` into `into` (operator only).
    pub async fn merge(&self, from: &str, into: &str) -> Result<PlayerStats, ClubError> {
        if from == into {
            return Err(ClubError::MergeSelf);
        }
        for id in [from, into] {
            if !is_id(id) {
                return Err(ClubError::PlayerNotFound(id.to_string()));
            }
            if self.store.club_merged(id).await?.is_some() {
                return Err(ClubError::AlreadyMerged(id.to_string()));
            }
        }
        match self.store.club_merge(from, into, &now()).await? {
            Ok(()) => self.stats(into).await,
            Err(MergeRefusal::Unknown(id)) => Err(ClubError::PlayerNotFound(id)),
            Err(MergeRefusal::Met) => Err(ClubError::PlayersMet(from.into(), into.into())),
        }
    }

    /// A page of `game`'s leaderboard.
    pub async fn leaderboard(
        &self,
        game: &str,
        offset: i64,
        limit: i64,
    ) -> Result<Leaderboard, ClubError> {
        check_game(game)?;
        let rows = self.store.club_leaderboard(game, offset, limit).await?;
        let total = self.store.club_leaderboard_size(game).await?;
        let system = ClubSystem::of_game(game);
        let next = offset + rows.len() as i64;
        Ok(Leaderboard {
            game: game.to_string(),
            rating_system: system,
            rating_parameters: system.parameters(),
            total,
            rows: rows
                .into_iter()
                .enumerate()
                .map(|(i, r)| LeaderboardRow {
                    rank: offset + i as i64 + 1,
                    player_id: r.player_id,
                    name: r.name,
                    rating: round3(r.rating),
                    rating_uncertainty: r.uncertainty.map(round3),
                    rated_results: r.rated,
                })
                .collect(),
            next_offset: (next < total).then_some(next),
        })
    }

    /// Creates a season (operator only).
    pub async fn create_season(&self, req: CreateSeason) -> Result<Season, ClubError> {
        if req.name.trim().is_empty() || req.name.chars().count() > 64 {
            return Err(ClubError::InvalidSeasonName);
        }
        let day = |s: &str, what: &str| {
            NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|_| {
                ClubError::InvalidSeasonDates(format!(
                    "{what} must be a day, YYYY-MM-DD, not {s:?}"
                ))
            })
        };
        let (starts, ends) = (day(&req.starts, "starts")?, day(&req.ends, "ends")?);
        if ends < starts {
            return Err(ClubError::InvalidSeasonDates(
                "ends must not be before starts".into(),
            ));
        }
        let row = StoredSeason {
            id: new_id(),
            name: req.name,
            starts: starts.to_string(),
            ends: ends.to_string(),
            created_at: now(),
        };
        self.store.club_insert_season(&row).await?;
        Ok(season(row))
    }

    /// Every season, latest start first.
    pub async fn seasons(&self) -> Result<Vec<Season>, ClubError> {
        Ok(self
            .store
            .club_seasons()
            .await?
            .into_iter()
            .map(season)
            .collect())
    }

    /// Season `id`'s leaderboard in `game`.
    pub async fn season_board(&self, id: &str, game: &str) -> Result<SeasonBoard, ClubError> {
        check_game(game)?;
        let s = match is_id(id) {
            true => self.store.club_season(id).await?,
            false => None,
        }
        .ok_or_else(|| ClubError::SeasonNotFound(id.to_string()))?;
        let until = NaiveDate::parse_from_str(&s.ends, "%Y-%m-%d")
            .ok()
            .and_then(|d| d.succ_opt())
            .map(|d| d.to_string())
            .unwrap_or_else(|| s.ends.clone());
        let lines = self
            .store
            .club_season_lines(game, &s.starts, &until)
            .await?;
        let mut per: HashMap<String, SeasonTally> = HashMap::new();
        for l in lines {
            let (Some(before), Some(after)) = (l.rating_before, l.rating_after) else {
                continue;
            };
            let e = per.entry(l.player_id).or_insert(SeasonTally {
                name: l.name,
                played: 0,
                wins: 0,
                first_before: before,
                last_after: after,
                last_sigma: None,
            });
            e.played += 1;
            e.wins += l.won;
            e.last_after = after;
            e.last_sigma = l.uncertainty_after;
        }
        let mut rows: Vec<SeasonRow> = per
            .into_iter()
            .map(|(p, t)| SeasonRow {
                rank: 0,
                player_id: p,
                name: t.name,
                played: t.played,
                wins: t.wins,
                rating: round3(t.last_after),
                rating_uncertainty: t.last_sigma.map(round3),
                change: round3(t.last_after - t.first_before),
            })
            .collect();
        rows.sort_by(|a, b| {
            b.rating
                .total_cmp(&a.rating)
                .then(a.player_id.cmp(&b.player_id))
        });
        for (i, r) in rows.iter_mut().enumerate() {
            r.rank = i as i64 + 1;
        }
        Ok(SeasonBoard {
            season: season(s),
            game: game.to_string(),
            rating_system: ClubSystem::of_game(game),
            rows,
        })
    }
}

/// A player's rated results in a season.
struct SeasonTally {
    name: String,
    played: i64,
    wins: i64,
    /// The rating before the first of them.
    first_before: f64,
    /// After the last.
    last_after: f64,
    last_sigma: Option<f64>,
}

fn season(s: StoredSeason) -> Season {
    Season {
        id: s.id,
        name: s.name,
        starts: s.starts,
        ends: s.ends,
        created_at: s.created_at,
    }
}

/// A season board as CSV: one row per player, best first.
pub fn season_csv(b: &SeasonBoard) -> String {
    let header = spreadsheet::header(&[
        "rank",
        "player_id",
        "name",
        "played",
        "wins",
        "rating",
        "rating_uncertainty",
        "change",
    ]);
    let rows = b.rows.iter().map(|r| {
        vec![
            Cell::from(r.rank),
            Cell::text(r.player_id.clone()),
            Cell::text(r.name.clone()),
            Cell::from(r.played),
            Cell::from(r.wins),
            Cell::decimal(r.rating, 3),
            r.rating_uncertainty
                .map(|u| Cell::decimal(u, 3))
                .unwrap_or_else(Cell::empty),
            Cell::decimal(r.change, 3),
        ]
    });
    spreadsheet::write(std::iter::once(header).chain(rows))
}

//! The tournament service: players, tournaments, pairing rounds (creating each table's match),
//! entering results, and everything computed from them (standings, ratings, exports). Standings
//! are never stored: they are recomputed from the tables' match logs and the entered results on
//! every read, so an undo at a table or a corrected entry shows at once.

use actix_web::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    model::{Entrant, Pairing, RatingSystem, ResultSource, Standings, TableResult},
    pairing, quicklog, standings,
    views::{
        CreatePlayer, CreateTournament, CreatedTournament, EnterResult, Format, Player, Record,
        RoundView, RoundWithTokens, TableResultView, TableTokens, TableView, TournamentView,
    },
};
use crate::{
    error::ApiError,
    matches::{
        check_name, internal, is_id, new_match, new_token, now, sha256_hex, to_json,
        views::{MatchStatus, PlayerView, TournamentLink},
        Matches,
    },
    rules::{AnyGame, Dealing},
    store::{PlayerRow, ResultRow, RoundRow, StoreError, TournamentRow},
};

/// The most entrants a tournament takes.
const MAX_ENTRANTS: usize = 256;
/// The most Swiss rounds.
const MAX_ROUNDS: u32 = 30;
/// The games whose deals duplicate play can repeat (By Hook or Crook has no shuffled deal to
/// repeat: RULES.md deals collection cards, but its play is not compared deal by deal).
const DUPLICATE_GAMES: [&str; 5] = ["dump", "clubs", "bonus-malus", "plus-minus", "members-only"];

/// A tournament's fixed settings, as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Spec {
    name: String,
    game: String,
    config: Value,
    dealing: Dealing,
    format: Format,
    table_size: usize,
    allowed: Vec<usize>,
    rounds: u32,
    duplicate: bool,
    record: Record,
    rating_system: RatingSystem,
    entrants: Vec<Entrant>,
    /// Round robin: every round's pairing, fixed at creation.
    schedule: Option<Vec<Pairing>>,
}

/// One table as loaded: where it sits, its match, its result.
struct LoadedTable {
    seats: Vec<usize>,
    match_id: Option<String>,
    result: Option<TableResult>,
}

/// One round as loaded.
struct LoadedRound {
    round: u32,
    secret: String,
    byes: Vec<usize>,
    tables: Vec<LoadedTable>,
    created_at: String,
}

impl LoadedRound {
    fn complete(&self) -> bool {
        self.tables.iter().all(|t| t.result.is_some())
    }
}

/// A tournament as loaded, its results read from the tables' matches and the entries.
struct Loaded {
    row: TournamentRow,
    spec: Spec,
    rounds: Vec<LoadedRound>,
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
    fn shown(&self, r: &LoadedRound) -> bool {
        !self.spec.duplicate || r.complete()
    }

    /// The results anyone may see: the standings, the exports and the public view count these.
    fn public_results(&self) -> Vec<TableResult> {
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

    fn byes(&self) -> Vec<(u32, usize)> {
        self.rounds
            .iter()
            .flat_map(|r| r.byes.iter().map(move |&b| (r.round, b)))
            .collect()
    }

    fn standings(&self) -> Standings {
        standings::standings(
            &self.spec.entrants,
            &self.public_results(),
            &self.byes(),
            self.spec.duplicate,
            self.spec.rating_system,
        )
    }

    fn finished(&self) -> bool {
        self.rounds.len() as u32 >= self.spec.rounds && self.rounds.iter().all(|r| r.complete())
    }
}

fn tournament_not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "tournament_not_found",
        format!("no tournament has id {id}"),
    )
}

fn player_not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "player_not_found",
        format!("no player has id {id}"),
    )
}

fn unprocessable(code: &'static str, detail: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, code, detail)
}

fn conflict(code: &'static str, detail: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::CONFLICT, code, detail)
}

/// A table's match token, derived from the organiser's token so that the organiser can ask for
/// it again (the service keeps only hashes): SHA-256 of `clubroom-table:<organiser token>:<match
/// id>:<host|seat n>`.
fn table_token(organiser_token: &str, match_id: &str, seat: Option<usize>) -> String {
    let role = seat.map_or("host".to_string(), |s| format!("seat {s}"));
    sha256_hex(format!("clubroom-table:{organiser_token}:{match_id}:{role}").as_bytes())
}

/// The player counts `game` accepts with `config` and `dealing`, from 2 to 8.
fn allowed_sizes(game: &str, config: &Value, dealing: Dealing) -> Vec<usize> {
    (2..=8)
        .filter(|&n| AnyGame::new(game, Some(config.clone()), n, dealing).is_ok())
        .collect()
}

impl Matches {
    /// Registers a player.
    pub async fn create_player(&self, req: CreatePlayer) -> Result<Player, ApiError> {
        check_name(&req.name, "the name")?;
        let row = PlayerRow {
            id: hex::encode(rand::random::<[u8; 16]>()),
            name: req.name,
            created_at: now(),
        };
        self.store().insert_player(&row).await?;
        Ok(Player {
            id: row.id,
            name: row.name,
            created_at: row.created_at,
        })
    }

    /// A registered player.
    pub async fn player(&self, id: &str) -> Result<Player, ApiError> {
        if !is_id(id) {
            return Err(player_not_found(id));
        }
        let row = self
            .store()
            .players(&[id.to_string()])
            .await?
            .pop()
            .ok_or_else(|| player_not_found(id))?;
        Ok(Player {
            id: row.id,
            name: row.name,
            created_at: row.created_at,
        })
    }

    /// Creates a tournament: checks the settings, registers the entrants given by name, fixes a
    /// round robin's schedule.
    pub async fn create_tournament(
        &self,
        req: CreateTournament,
    ) -> Result<CreatedTournament, ApiError> {
        check_tournament_name(&req.name)?;
        if req.players.len() < 2 || req.players.len() > MAX_ENTRANTS {
            return Err(ApiError::bad_request(
                "invalid_entrants",
                format!("a tournament has 2 to {MAX_ENTRANTS} players"),
            ));
        }
        let dealing = req.dealing.unwrap_or_default();
        // The options as every table will play them (unknown game, bad options: refused here).
        let probe = (2..=8).find_map(|n| {
            AnyGame::new(&req.game, req.config.clone().map(Value::Object), n, dealing).ok()
        });
        let Some(probe) = probe else {
            // No player count works: report the game's own refusal at its smallest count.
            let min = AnyGame::catalogue()
                .iter()
                .find(|g| g.id == req.game)
                .map_or(2, |g| g.min_players);
            return Err(
                AnyGame::new(&req.game, req.config.map(Value::Object), min, dealing)
                    .err()
                    .map(ApiError::from)
                    .unwrap_or_else(|| {
                        unprocessable(
                            "invalid_config",
                            "no table size from 2 to 8 can play these options",
                        )
                    }),
            );
        };
        let game = probe.id().to_string();
        let config = probe.config_json();
        let allowed = allowed_sizes(&game, &config, dealing);
        let table_size = match req.table_size {
            Some(s) if allowed.contains(&s) => s,
            Some(s) => {
                return Err(unprocessable(
                    "invalid_table_size",
                    format!("{game} tables seat {allowed:?} players here, not {s}"),
                ))
            }
            None => allowed
                .iter()
                .copied()
                .filter(|&s| s <= 4)
                .max()
                .unwrap_or(allowed[0]),
        };
        let duplicate = req.duplicate.unwrap_or(false);
        let record = req.record.unwrap_or_default();
        let n = req.players.len();
        if duplicate {
            if !DUPLICATE_GAMES.contains(&game.as_str()) {
                return Err(unprocessable(
                    "duplicate_not_dealt",
                    format!("duplicate play repeats shuffled deals; {game} is not one of {DUPLICATE_GAMES:?}"),
                ));
            }
            if record == Record::Matches && dealing != Dealing::Service {
                return Err(unprocessable(
                    "duplicate_needs_service_dealing",
                    "duplicate play deals the same cards at every table: with results from matches the service must deal (dealing: service)",
                ));
            }
            if n / table_size < 2 {
                return Err(unprocessable(
                    "duplicate_needs_two_tables",
                    format!("duplicate play compares tables: {n} players fill {} table(s) of {table_size}", n / table_size),
                ));
            }
        }
        let (sizes, _) = pairing::table_sizes(n, table_size, &allowed, duplicate);
        if sizes.is_empty() {
            return Err(unprocessable(
                "invalid_entrants",
                format!("{n} players cannot fill one {game} table of {table_size}"),
            ));
        }
        let (rounds, schedule) = match (req.format, req.rounds) {
            (Format::Swiss, Some(r)) if (1..=MAX_ROUNDS).contains(&r) => (r, None),
            (Format::Swiss, _) => {
                return Err(unprocessable(
                    "invalid_rounds",
                    format!("a Swiss tournament needs `rounds`, 1 to {MAX_ROUNDS}"),
                ))
            }
            (Format::RoundRobin, Some(_)) => {
                return Err(unprocessable(
                    "invalid_rounds",
                    "a round robin's schedule fixes its rounds: omit `rounds`",
                ))
            }
            (Format::RoundRobin, None) => {
                let tables = pairing::Tables::new(table_size, &allowed, duplicate, |size| {
                    AnyGame::new(&game, Some(config.clone()), size, dealing)
                        .ok()
                        .and_then(|g| g.score_sheet().sides)
                });
                // The schedule's search takes up to about 2 s at 60 entrants: off the
                // request's worker thread, on the blocking pool.
                let s = actix_web::web::block(move || pairing::round_robin(n, &tables))
                    .await
                    .map_err(internal)?;
                if s.len() as u32 > 2 * MAX_ROUNDS {
                    return Err(unprocessable(
                        "invalid_rounds",
                        format!("a round robin of {n} players at tables of {table_size} takes {} rounds; at most {} — use Swiss", s.len(), 2 * MAX_ROUNDS),
                    ));
                }
                (s.len() as u32, Some(s))
            }
        };
        let seats = self.resolve_players(&req.players).await?;
        let created_at = now();
        let mut new_players = vec![];
        let entrants: Vec<Entrant> = seats
            .into_iter()
            .map(|(name, id)| match id {
                Some(player_id) => Entrant { player_id, name },
                None => {
                    let p = PlayerRow {
                        id: hex::encode(rand::random::<[u8; 16]>()),
                        name: name.clone(),
                        created_at: created_at.clone(),
                    };
                    let player_id = p.id.clone();
                    new_players.push(p);
                    Entrant { player_id, name }
                }
            })
            .collect();
        // Elo for one-against-one tables, Weng-Lin for several players or sides.
        let two_alone = sizes.iter().all(|&s| s == 2)
            && AnyGame::new(&game, Some(config.clone()), 2, dealing)
                .map(|g| g.score_sheet().sides.is_none())
                .unwrap_or(false);
        let spec = Spec {
            name: req.name,
            game,
            config,
            dealing,
            format: req.format,
            table_size,
            allowed,
            rounds,
            duplicate,
            record,
            rating_system: if two_alone {
                RatingSystem::Elo
            } else {
                RatingSystem::WengLin
            },
            entrants,
            schedule,
        };
        let organiser_token = new_token();
        let row = TournamentRow {
            id: hex::encode(rand::random::<[u8; 16]>()),
            organiser_hash: sha256_hex(organiser_token.as_bytes()),
            spec: to_json(&spec)?,
            created_at,
        };
        self.store()
            .insert_tournament(&row, &new_players)
            .await
            .map_err(|e| match e {
                StoreError::OutcomeUnknown(_) => ApiError::storage_unavailable(
                    "the database became unreachable while the tournament was being created: its organiser token was never given to anyone; create it again once the database is back",
                ),
                other => other.into(),
            })?;
        let loaded = Loaded {
            row,
            spec,
            rounds: vec![],
        };
        Ok(CreatedTournament {
            tournament: self.render(&loaded, true),
            organiser_token,
        })
    }

    /// Loads tournament `id` and reads each table's result.
    async fn load_tournament(&self, id: &str) -> Result<Loaded, ApiError> {
        if !is_id(id) {
            return Err(tournament_not_found(id));
        }
        let (row, round_rows, entered) = self
            .store()
            .load_tournament(id)
            .await?
            .ok_or_else(|| tournament_not_found(id))?;
        let spec: Spec = serde_json::from_str(&row.spec).map_err(internal)?;
        let mut rounds = Vec::with_capacity(round_rows.len());
        for r in round_rows {
            let pairing: Pairing = serde_json::from_str(&r.pairing).map_err(internal)?;
            let match_ids: Vec<Option<String>> =
                serde_json::from_str(&r.match_ids).map_err(internal)?;
            let round = r.round as u32;
            let mut tables = Vec::with_capacity(pairing.tables.len());
            for (i, seats) in pairing.tables.into_iter().enumerate() {
                let table = i as u32 + 1;
                let match_id = match_ids.get(i).cloned().flatten();
                let entry = entered
                    .iter()
                    .find(|e| e.round == r.round && e.table_no == i64::from(table));
                let result = match (entry, &match_id) {
                    (Some(e), _) => self.entered_result(&spec, round, table, &seats, e)?,
                    (None, Some(m)) => {
                        let (sheet, at) = self.sheet_and_time(m).await?;
                        sheet.finished.then(|| TableResult {
                            round,
                            table,
                            seats: seats.clone(),
                            sides: sheet.sides.clone(),
                            totals: sheet.totals.clone(),
                            deals: sheet.rounds.iter().map(|r| r.points.clone()).collect(),
                            winners: sheet.winners.clone(),
                            source: ResultSource::Match,
                            match_id: Some(m.clone()),
                            at,
                        })
                    }
                    (None, None) => None,
                };
                tables.push(LoadedTable {
                    seats,
                    match_id,
                    result,
                });
            }
            rounds.push(LoadedRound {
                round,
                secret: r.secret,
                byes: pairing.byes,
                tables,
                created_at: r.created_at,
            });
        }
        Ok(Loaded { row, spec, rounds })
    }

    /// An entered result as standings see it.
    fn entered_result(
        &self,
        spec: &Spec,
        round: u32,
        table: u32,
        seats: &[usize],
        e: &ResultRow,
    ) -> Result<Option<TableResult>, ApiError> {
        #[derive(Deserialize)]
        struct Stored {
            totals: Vec<i64>,
            deals: Vec<Vec<i64>>,
            match_id: Option<String>,
        }
        let s: Stored = serde_json::from_str(&e.result).map_err(internal)?;
        let sides = table_sides(spec, seats.len());
        let (winners, _) = crate::rules::sheet::winners_and_margin(&s.totals);
        Ok(Some(TableResult {
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
        }))
    }

    /// Renders a loaded tournament (`organiser`: the organiser is asking).
    fn render(&self, t: &Loaded, organiser: bool) -> TournamentView {
        let all = t.results();
        let mps = standings::table_matchpoints(&all, t.spec.duplicate);
        let mp_of = |round: u32, table: u32| {
            all.iter()
                .position(|r| r.round == round && r.table == table)
                .map(|i| &mps[i])
        };
        let entrant = |i: usize| t.spec.entrants[i].clone();
        let withheld = t.secret_withheld();
        let rounds = t
            .rounds
            .iter()
            .map(|r| {
                let complete = r.complete();
                // Duplicate play: while the round is played, a table's match and result show
                // to the organiser only.
                let shown = organiser || t.shown(r);
                RoundView {
                    round: r.round,
                    complete,
                    secret: (t.spec.duplicate && complete && withheld.is_none())
                        .then(|| r.secret.clone()),
                    secret_withheld: withheld
                        .filter(|_| t.spec.duplicate)
                        .map(|w| format!("the round's secret is never published: {w}")),
                    tables: r
                        .tables
                        .iter()
                        .enumerate()
                        .map(|(i, tb)| {
                            let table = i as u32 + 1;
                            TableView {
                                table,
                                players: tb
                                    .seats
                                    .iter()
                                    .enumerate()
                                    .map(|(seat, &e)| PlayerView {
                                        seat,
                                        name: t.spec.entrants[e].name.clone(),
                                        player_id: Some(t.spec.entrants[e].player_id.clone()),
                                    })
                                    .collect(),
                                match_id: tb.match_id.clone().filter(|_| shown),
                                finished: tb.result.is_some(),
                                result: tb.result.as_ref().filter(|_| shown).map(|res| {
                                    let mp = mp_of(r.round, table).cloned().unwrap_or_default();
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
                        })
                        .collect(),
                    byes: r.byes.iter().map(|&b| entrant(b)).collect(),
                    created_at: r.created_at.clone(),
                }
            })
            .collect();
        TournamentView {
            id: t.row.id.clone(),
            name: t.spec.name.clone(),
            game: t.spec.game.clone(),
            config: t.spec.config.clone(),
            dealing: t.spec.dealing,
            format: t.spec.format,
            table_size: t.spec.table_size,
            duplicate: t.spec.duplicate,
            record: t.spec.record,
            rating_system: t.spec.rating_system,
            rounds_planned: t.spec.rounds,
            status: if t.finished() {
                MatchStatus::Finished
            } else {
                MatchStatus::InProgress
            },
            players: t.spec.entrants.clone(),
            rounds,
            created_at: t.row.created_at.clone(),
        }
    }

    /// Whether `token` is the organiser's (401 without a token, 403 with another one).
    fn organiser(t: &Loaded, token: Option<&str>) -> Result<(), ApiError> {
        match token {
            None => Err(ApiError::unauthorized(
                "this needs the organiser's token: Authorization: Bearer <organiser_token>",
            )),
            Some(tok) if sha256_hex(tok.as_bytes()) == t.row.organiser_hash => Ok(()),
            Some(_) => Err(ApiError::forbidden(
                "organiser_only",
                "only the tournament's organiser token may do this",
            )),
        }
    }

    fn is_organiser(t: &Loaded, token: Option<&str>) -> bool {
        token.is_some_and(|tok| sha256_hex(tok.as_bytes()) == t.row.organiser_hash)
    }

    /// The tournament (match ids of a duplicate round in play only to the organiser).
    pub async fn tournament(
        &self,
        id: &str,
        token: Option<&str>,
    ) -> Result<TournamentView, ApiError> {
        let t = self.load_tournament(id).await?;
        Ok(self.render(&t, Self::is_organiser(&t, token)))
    }

    /// The standings.
    pub async fn standings(&self, id: &str) -> Result<Standings, ApiError> {
        Ok(self.load_tournament(id).await?.standings())
    }

    /// The standings and the tables' results for the exports.
    pub async fn tournament_export(
        &self,
        id: &str,
    ) -> Result<
        (
            String,
            String,
            Vec<Entrant>,
            Vec<TableResult>,
            Standings,
            bool,
        ),
        ApiError,
    > {
        let t = self.load_tournament(id).await?;
        let title = AnyGame::catalogue()
            .iter()
            .find(|g| g.id == t.spec.game)
            .map_or(t.spec.game.clone(), |g| g.title.to_string());
        let standings = t.standings();
        let results = t.public_results();
        Ok((
            t.spec.name.clone(),
            title,
            t.spec.entrants.clone(),
            results,
            standings,
            t.spec.duplicate,
        ))
    }

    /// Pairs the next round (organiser): creates each table's match (record `matches`) with
    /// tokens derived from the organiser's, and answers them.
    pub async fn pair_round(
        &self,
        id: &str,
        token: Option<&str>,
    ) -> Result<RoundWithTokens, ApiError> {
        let t = self.load_tournament(id).await?;
        Self::organiser(&t, token)?;
        let next = t.rounds.len() as u32 + 1;
        if let Some(last) = t.rounds.last() {
            if !last.complete() {
                let open: Vec<String> = last
                    .tables
                    .iter()
                    .enumerate()
                    .filter(|(_, tb)| tb.result.is_none())
                    .map(|(i, _)| (i + 1).to_string())
                    .collect();
                return Err(conflict(
                    "round_in_progress",
                    format!(
                        "round {} is still being played (tables {} have no result); pair round {next} once every table has one",
                        last.round,
                        open.join(", ")
                    ),
                ));
            }
        }
        if next > t.spec.rounds {
            return Err(conflict(
                "tournament_finished",
                format!("all {} rounds are paired and complete", t.spec.rounds),
            ));
        }
        let pairing = match &t.spec.schedule {
            Some(schedule) => schedule[next as usize - 1].clone(),
            None => self.swiss_pairing(&t, next),
        };
        let secret = hex::encode(rand::random::<[u8; 32]>());
        let organiser_token = token.expect("checked");
        let mut matches = vec![];
        let mut match_ids = vec![];
        for (i, seats) in pairing.tables.iter().enumerate() {
            if t.spec.record == Record::Totals {
                match_ids.push(None);
                continue;
            }
            let names: Vec<(String, Option<String>)> = seats
                .iter()
                .map(|&e| {
                    let en = &t.spec.entrants[e];
                    (en.name.clone(), Some(en.player_id.clone()))
                })
                .collect();
            let link = TournamentLink {
                id: t.row.id.clone(),
                round: next,
                table: i as u32 + 1,
            };
            let (row, _) = new_match(
                &t.spec.game,
                Some(t.spec.config.clone()),
                &names,
                t.spec.dealing,
                Some(&link),
                t.spec.duplicate.then_some(secret.as_str()),
            )?;
            let mut hashes = vec![(
                sha256_hex(table_token(organiser_token, &row.id, None).as_bytes()),
                None,
            )];
            hashes.extend((0..seats.len()).map(|s| {
                (
                    sha256_hex(table_token(organiser_token, &row.id, Some(s)).as_bytes()),
                    Some(s as i64),
                )
            }));
            match_ids.push(Some(row.id.clone()));
            matches.push((row, hashes));
        }
        let round_row = RoundRow {
            round: i64::from(next),
            secret,
            pairing: to_json(&pairing)?,
            match_ids: to_json(&match_ids)?,
            created_at: now(),
        };
        match self.store().insert_round(id, &round_row, &matches).await {
            Ok(()) => {}
            Err(StoreError::Conflict) => {
                return Err(conflict(
                    "round_in_progress",
                    format!("round {next} was just paired by another request: GET /v1/tournaments/{id}/rounds/{next} shows it"),
                ))
            }
            Err(e) if e.is_fault() => {
                // The round may be recorded after all: its tokens derive from the organiser's,
                // so reading the round back gives them.
                let again = self.load_tournament(id).await;
                if again.is_ok_and(|a| a.rounds.len() as u32 >= next) {
                    return self.round_with_tokens(id, next, token).await;
                }
                return Err(e.into());
            }
            Err(e) => return Err(e.into()),
        }
        self.round_with_tokens(id, next, token).await
    }

    /// The Swiss pairing of round `next` after the results so far: the standings' order and
    /// matchpoints (the score groups), and who met, partnered, sat out and sat first before.
    fn swiss_pairing(&self, t: &Loaded, next: u32) -> Pairing {
        let n = t.spec.entrants.len();
        let standings = t.standings();
        let mut ranked = Vec::with_capacity(n);
        let mut score = vec![0; n];
        for row in &standings.rows {
            if let Some(e) = t
                .spec
                .entrants
                .iter()
                .position(|e| e.player_id == row.player_id)
            {
                ranked.push(e);
                score[e] = row.matchpoints;
            }
        }
        let tables = pairing::Tables::new(
            t.spec.table_size,
            &t.spec.allowed,
            t.spec.duplicate,
            |size| table_sides(&t.spec, size),
        );
        let mut history = pairing::History::new(n);
        for r in &t.rounds {
            let round = Pairing {
                tables: r.tables.iter().map(|tb| tb.seats.clone()).collect(),
                byes: r.byes.clone(),
            };
            history.record(&round, &tables);
        }
        pairing::swiss(&ranked, &score, &history, next, &tables)
    }

    /// Round `round` with its tables' tokens (organiser).
    pub async fn round_with_tokens(
        &self,
        id: &str,
        round: u32,
        token: Option<&str>,
    ) -> Result<RoundWithTokens, ApiError> {
        let t = self.load_tournament(id).await?;
        Self::organiser(&t, token)?;
        let organiser_token = token.expect("checked");
        let mut view = self.render(&t, true);
        let index = (round as usize)
            .checked_sub(1)
            .filter(|&i| i < view.rounds.len())
            .ok_or_else(|| round_not_found(round, view.rounds.len()))?;
        let round_view = view.rounds.swap_remove(index);
        let tokens = round_view
            .tables
            .iter()
            .filter_map(|tb| {
                tb.match_id.as_ref().map(|m| TableTokens {
                    table: tb.table,
                    match_id: m.clone(),
                    host_token: table_token(organiser_token, m, None),
                    seat_tokens: (0..tb.players.len())
                        .map(|s| table_token(organiser_token, m, Some(s)))
                        .collect(),
                })
            })
            .collect();
        Ok(RoundWithTokens {
            round: round_view,
            tokens,
        })
    }

    /// Enters (or corrects) a table's final result: the quick log (organiser).
    pub async fn enter_result(
        &self,
        id: &str,
        round: u32,
        table: u32,
        token: Option<&str>,
        req: EnterResult,
    ) -> Result<TableView, ApiError> {
        let t = self.load_tournament(id).await?;
        Self::organiser(&t, token)?;
        let r = (round as usize)
            .checked_sub(1)
            .and_then(|i| t.rounds.get(i))
            .ok_or_else(|| round_not_found(round, t.rounds.len()))?;
        let tb = (table as usize)
            .checked_sub(1)
            .and_then(|i| r.tables.get(i))
            .ok_or_else(|| {
                ApiError::new(
                    StatusCode::NOT_FOUND,
                    "table_not_found",
                    format!("round {round} has tables 1 to {}", r.tables.len()),
                )
            })?;
        if let Some(res) = &tb.result {
            if res.source == ResultSource::Match {
                return Err(conflict(
                    "result_from_match",
                    if t.spec.duplicate {
                        format!("table {table}'s match is finished and its score sheet is the result (a finished duplicate table is never reopened)")
                    } else {
                        format!("table {table}'s match is finished and its score sheet is the result; correct it at the table (undo), not here")
                    },
                ));
            }
        }
        let units = {
            let g = AnyGame::new(
                &t.spec.game,
                Some(t.spec.config.clone()),
                tb.seats.len(),
                t.spec.dealing,
            )
            .map_err(internal)?;
            g.score_sheet().totals.len()
        };
        let (totals, deals) = quicklog::check(
            &t.spec.game,
            &t.spec.config,
            units,
            req.totals,
            req.deals,
            t.spec.duplicate,
        )
        .map_err(|e| unprocessable(e.code, e.message))?;
        // A table whose match is still being played is settled by hand only by closing the
        // match for good (`abandon_match`): a result entered while the table plays on would
        // count (and, in duplicate play, could complete the round and publish the boards the
        // table still holds).
        let organiser_token = token.expect("checked");
        let abandon = match &tb.match_id {
            Some(m) => {
                let host = table_token(organiser_token, m, None);
                match self.view(m, Some(&host)).await?.status {
                    MatchStatus::InProgress if !req.abandon_match => {
                        return Err(conflict(
                            "match_in_progress",
                            format!(
                                "table {table}'s match {m} is still being played, and its result will come from it when it ends; to settle the table by hand instead, send `\"abandon_match\": true` with the result: the match is then closed for good (nothing more can be recorded there)"
                            ),
                        ))
                    }
                    MatchStatus::InProgress => Some((m.clone(), host)),
                    MatchStatus::Finished => {
                        return Err(conflict(
                            "result_from_match",
                            format!("table {table}'s match is finished and its score sheet is the result; correct it at the table (undo), not here"),
                        ))
                    }
                    MatchStatus::Abandoned => None,
                }
            }
            None => None,
        };
        // The entry is checked: now the match is closed (then the entry is stored; should that
        // fail, the match stays abandoned and the same request entered again completes it).
        if let Some((m, host)) = abandon {
            self.abandon(&m, &host).await?;
        }
        let stored = serde_json::json!({
            "totals": totals,
            "deals": deals,
            "match_id": tb.match_id,
        });
        let (_, _, entered) = self
            .store()
            .load_tournament(id)
            .await?
            .ok_or_else(|| tournament_not_found(id))?;
        let version = entered
            .iter()
            .find(|e| e.round == i64::from(round) && e.table_no == i64::from(table))
            .map_or(1, |e| e.version + 1);
        let row = ResultRow {
            round: i64::from(round),
            table_no: i64::from(table),
            version,
            result: stored.to_string(),
            entered_at: now(),
        };
        match self.store().insert_result(id, &row).await {
            Ok(()) => {}
            Err(StoreError::Conflict) => {
                return Err(conflict(
                    "result_changed",
                    format!("table {table}'s result was just entered by another request; read the tournament and enter yours again if it still needs correcting"),
                ))
            }
            Err(e) => return Err(e.into()),
        }
        let t = self.load_tournament(id).await?;
        let mut view = self.render(&t, true);
        Ok(view
            .rounds
            .swap_remove(round as usize - 1)
            .tables
            .swap_remove(table as usize - 1))
    }
}

fn round_not_found(round: u32, paired: usize) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "round_not_found",
        if paired == 0 {
            format!("round {round} is not paired: no round is yet (POST .../rounds pairs the next)")
        } else {
            format!("round {round} is not paired: rounds 1 to {paired} are")
        },
    )
}

/// The sides of a table of `seats` seats, as its matches keep them (None: per seat).
fn table_sides(spec: &Spec, seats: usize) -> Option<Vec<Vec<usize>>> {
    AnyGame::new(&spec.game, Some(spec.config.clone()), seats, spec.dealing)
        .ok()
        .and_then(|g| g.score_sheet().sides)
}

fn check_tournament_name(name: &str) -> Result<(), ApiError> {
    if name.chars().all(crate::matches::views::is_blank) || name.chars().count() > 100 {
        return Err(ApiError::bad_request(
            "invalid_tournament_name",
            "the tournament's name must have 1 to 100 characters (not blank)",
        ));
    }
    Ok(())
}

/// Every table's result as JSON (the `results.json` export): per result its round, table,
/// source, match, time, sides, totals, deals, winners, and per seat the player and matchpoints.
pub fn results_json(entrants: &[Entrant], results: &[TableResult], duplicate: bool) -> Value {
    let mps = standings::table_matchpoints(results, duplicate);
    let rows: Vec<Value> = results
        .iter()
        .zip(&mps)
        .map(|(r, mp)| {
            let seats: Vec<Value> = r
                .seats
                .iter()
                .enumerate()
                .map(|(seat, &e)| {
                    let unit = r.unit_of_seat(seat);
                    serde_json::json!({
                        "seat": seat,
                        "unit": unit,
                        "player_id": entrants[e].player_id,
                        "name": entrants[e].name,
                        "total": r.totals.get(unit),
                        "matchpoints": mp.get(unit).map(|m| m.0),
                        "max_matchpoints": mp.get(unit).map(|m| m.1),
                        "winner": r.winners.contains(&unit),
                    })
                })
                .collect();
            serde_json::json!({
                "round": r.round,
                "table": r.table,
                "source": r.source,
                "match_id": r.match_id,
                "at": r.at,
                "sides": r.sides,
                "totals": r.totals,
                "deals": r.deals,
                "winners": r.winners,
                "seats": seats,
            })
        })
        .collect();
    serde_json::json!({ "duplicate": duplicate, "results": rows })
}

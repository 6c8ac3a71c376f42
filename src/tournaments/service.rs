//! The tournament service: players, tournaments, pairing rounds (creating each table's match),
//! entering results, and everything computed from them (standings, ratings, exports). Standings
//! are never stored: they are recomputed from the tables' match logs and the entered results on
//! every read, so an undo at a table or a corrected entry shows at once.
//!
//! It holds the match service and asks it only through its tables' API
//! ([`crate::matches::tables`]): a table's new match, its result, its status, abandoning it.

use crate::store::idempotency::{CreatedAnswer, KeyAnswer};
use std::{
    collections::HashMap,
    num::NonZeroUsize,
    sync::{Arc, Mutex},
};

use lru::LruCache;

use serde_json::Value;

use super::{
    boards::{self, RoundBoards},
    changes::Night,
    export::Exported,
    loaded::{Loaded, LoadedRound, LoadedTable, Spec},
    model::{Entrant, FouledPlay, Pairing, RatingSystem, ResultSource, Standings, TableResult},
    pairing, quicklog,
    views::{
        CreatePlayer, CreateTournament, CreatedTournament, EnterResult, FeedTable, Format, Player,
        PlayerPage, Record, RoundWithTokens, TableTokens, TableView, TournamentEvent,
        TournamentEventPage, TournamentPage, TournamentStatus, TournamentSummary, TournamentView,
    },
    TournamentError,
};
use crate::{
    ids::{is_id, new_id, new_token, now, sha256_hex},
    matches::{
        check_name, parse_cursor,
        tables::TableMatch,
        views::{MatchPage, MatchStatus, PlayerView, TournamentLink},
        MatchError, Matches,
    },
    rules::{AnyGame, Dealing},
    store::{NewMatch, PlayerRow, ResultRow, RoundRow, Store, StoreError, TournamentRow},
};

/// The most entrants a tournament takes.
const MAX_ENTRANTS: usize = 4096;
/// The most Swiss rounds.
const MAX_ROUNDS: u32 = 30;

/// The sides of each table size, as a load meets them: the game is built once per size, not
/// once per table.
#[derive(Default)]
struct Sides(Vec<(usize, Option<Vec<Vec<usize>>>)>);

impl Sides {
    fn of(&mut self, spec: &Spec, seats: usize) -> Option<Vec<Vec<usize>>> {
        if let Some((_, s)) = self.0.iter().find(|(n, _)| *n == seats) {
            return s.clone();
        }
        let s = spec.table_sides(seats);
        self.0.push((seats, s.clone()));
        s
    }
}

/// The filters of the tournament list.
#[derive(Clone, Debug, Default)]
pub struct TournamentFilter<'a> {
    /// Only tournaments of this game.
    pub game: Option<&'a str>,
    /// Created at or after this RFC 3339 time.
    pub created_after: Option<&'a str>,
    /// Created before this RFC 3339 time.
    pub created_before: Option<&'a str>,
    /// Only those this player entered.
    pub player: Option<&'a str>,
    /// Only those with this status.
    pub status: Option<TournamentStatus>,
    /// Archived ones too.
    pub archived: bool,
}

/// How many tournaments' settings are kept parsed (a national open's entrant list is a few
/// hundred kilobytes of JSON).
const SPECS_CACHED: usize = 32;

/// How many paired rounds are kept parsed ([`Tournaments::parsed_round`]): a round of a
/// 4,096-player open is some 90 KB of JSON, its tables and their matches.
const ROUNDS_CACHED: usize = 256;

/// A paired round's tables and their matches, parsed from its row.
pub(super) struct ParsedRound {
    /// Each table's seats, shared with every load of the round (a load hands out its tables'
    /// seats without copying them: O(1) a table, not a list each).
    tables: Vec<Arc<[usize]>>,
    byes: Vec<usize>,
    match_ids: Vec<Option<String>>,
}

/// A tournament's change log applied ([`Tournaments::night`]): the log's last `seq`, the settings
/// it was applied to, and the settings with the late entrants and the night's state.
type KeptNight = (i64, Arc<Spec>, (Arc<Spec>, Night));

/// The tournament service.
pub struct Tournaments {
    pub(super) matches: Arc<Matches>,
    pub(super) store: Store,
    /// Tournaments' settings and entrants, parsed: they never change once created (only the
    /// organiser's token hash does, and that is read every time), so every instance may keep
    /// them.
    specs: Mutex<LruCache<String, Arc<Spec>>>,
    /// Tournaments' change logs applied to their settings, by the log's last `seq`: the log is
    /// append-only and its `seq`s have no gaps once committed (each is the one after the log its
    /// writer read), so a log read with the same last `seq` is the same log. An entry then reads
    /// one number, not the whole log, which grows with every correction (issue 25, part 4).
    nights: Mutex<LruCache<String, KeptNight>>,
    /// Paired rounds, parsed, by tournament and round: a round's row is written once, when it is
    /// paired, and never changed (only its tables' results, which are rows of their own, come
    /// later), so every instance may keep it. An entry then neither reads nor parses its round's
    /// every table (O(round) per entry at 4,096 players, issue 25 part 4).
    rounds: Mutex<LruCache<(String, u32), Arc<ParsedRound>>>,
}

/// `v` as JSON text (a failure is the service's own fault).
pub(super) fn to_json<T: serde::Serialize>(v: &T) -> Result<String, TournamentError> {
    serde_json::to_string(v).map_err(TournamentError::internal)
}

/// A table's match token, derived from the organiser's token so that the organiser can ask for
/// it again (the service keeps only hashes): SHA-256 of `clubroom-table:<organiser token>:<match
/// id>:<host|seat n>`.
fn table_token(organiser_token: &str, match_id: &str, seat: Option<usize>) -> String {
    let role = seat.map_or("host".to_string(), |s| format!("seat {s}"));
    sha256_hex(format!("clubroom-table:{organiser_token}:{match_id}:{role}").as_bytes())
}

/// The player counts `game` accepts with `config` and `dealing`: those of the game's own range
/// its options allow.
fn allowed_sizes(game: &str, config: &Value, dealing: Dealing) -> Vec<usize> {
    AnyGame::player_counts(game)
        .into_iter()
        .flatten()
        .filter(|&n| AnyGame::new(game, Some(config.clone()), n, dealing).is_ok())
        .collect()
}

fn check_tournament_name(name: &str) -> Result<(), TournamentError> {
    if name.chars().all(crate::matches::views::is_blank) || name.chars().count() > 100 {
        return Err(TournamentError::InvalidName);
    }
    Ok(())
}

/// The game a new tournament's tables play, as every table will play it: its id, its options
/// with the defaults filled in, and the table sizes those allow (unknown game, bad options:
/// refused here).
fn settle_game(
    req: &CreateTournament,
    dealing: Dealing,
) -> Result<(String, Value), TournamentError> {
    let counts = AnyGame::player_counts(&req.game);
    let probe = counts.clone().into_iter().flatten().find_map(|n| {
        AnyGame::new(&req.game, req.config.clone().map(Value::Object), n, dealing).ok()
    });
    let Some(probe) = probe else {
        // No player count works: report the game's own refusal at its smallest count (an
        // unknown game is refused whatever the count).
        let min = counts.map_or(2, |c| *c.start());
        return Err(AnyGame::new(
            &req.game,
            req.config.clone().map(Value::Object),
            min,
            dealing,
        )
        .err()
        .map_or(TournamentError::NoTableSize, TournamentError::from));
    };
    Ok((probe.id().to_string(), probe.config_json()))
}

/// The seats per table: the one asked for, if the game allows it; else the game's largest
/// player count up to 4.
fn settle_table_size(
    game: &str,
    asked: Option<usize>,
    allowed: &[usize],
) -> Result<usize, TournamentError> {
    match asked {
        Some(s) if allowed.contains(&s) => Ok(s),
        Some(s) => Err(TournamentError::TableSize {
            game: game.to_string(),
            allowed: allowed.to_vec(),
            asked: s,
        }),
        None => Ok(allowed
            .iter()
            .copied()
            .filter(|&s| s <= 4)
            .max()
            .unwrap_or(allowed[0])),
    }
}

/// Duplicate play's conditions: a shuffled game, dealt by the service when matches record the
/// results (or by the tables from the printed boards, in a game whose boards the service checks
/// card by card: every game that plays duplicate), and at least two tables to compare.
fn check_duplicate(
    game: &str,
    config: &Value,
    record: Record,
    dealing: Dealing,
    n: usize,
    table_size: usize,
) -> Result<(), TournamentError> {
    let games = AnyGame::duplicate_games();
    if !games.contains(&game) {
        return Err(TournamentError::DuplicateNotDealt {
            game: game.to_string(),
            games,
        });
    }
    if record == Record::Matches
        && dealing != Dealing::Service
        && !AnyGame::checks_boards(game, Some(config.clone()), table_size)
    {
        return Err(TournamentError::DuplicateNeedsServiceDealing {
            games: games
                .iter()
                .copied()
                .filter(|g| {
                    AnyGame::player_counts(g)
                        .is_some_and(|c| c.into_iter().any(|n| AnyGame::checks_boards(g, None, n)))
                })
                .collect(),
        });
    }
    if n / table_size < 2 {
        return Err(TournamentError::DuplicateNeedsTwoTables {
            n,
            tables: n / table_size,
            table_size,
        });
    }
    Ok(())
}

/// Elo for one-against-one tables, Weng-Lin for several players or sides.
fn rating_system(game: &str, config: &Value, dealing: Dealing, sizes: &[usize]) -> RatingSystem {
    let two_alone = sizes.iter().all(|&s| s == 2)
        && AnyGame::new(game, Some(config.clone()), 2, dealing)
            .map(|g| g.score_sheet().sides.is_none())
            .unwrap_or(false);
    if two_alone {
        RatingSystem::Elo
    } else {
        RatingSystem::WengLin
    }
}

/// The entrants of a new tournament, and the players to register for those given by name.
fn enrol(seats: Vec<(String, Option<String>)>, created_at: &str) -> (Vec<Entrant>, Vec<PlayerRow>) {
    let mut new_players = vec![];
    let entrants = seats
        .into_iter()
        .map(|(name, id)| match id {
            Some(player_id) => Entrant { player_id, name },
            None => {
                let p = PlayerRow {
                    id: new_id(),
                    name: name.clone(),
                    created_at: created_at.to_string(),
                };
                let player_id = p.id.clone();
                new_players.push(p);
                Entrant { player_id, name }
            }
        })
        .collect();
    (entrants, new_players)
}

impl Tournaments {
    /// A service over `matches` (and its store).
    pub fn new(matches: Arc<Matches>) -> Tournaments {
        let store = matches.store().clone();
        Tournaments {
            matches,
            store,
            specs: Mutex::new(LruCache::new(
                NonZeroUsize::new(SPECS_CACHED).unwrap_or(NonZeroUsize::MIN),
            )),
            nights: Mutex::new(LruCache::new(
                NonZeroUsize::new(SPECS_CACHED).unwrap_or(NonZeroUsize::MIN),
            )),
            rounds: Mutex::new(LruCache::new(
                NonZeroUsize::new(ROUNDS_CACHED).unwrap_or(NonZeroUsize::MIN),
            )),
        }
    }

    /// Tournament `id`'s settings, if parsed before.
    fn cached_spec(&self, id: &str) -> Option<Arc<Spec>> {
        self.specs.lock().ok()?.get(id).cloned()
    }

    /// Tournament `id`'s settings from their stored text (`text`), parsed once.
    fn spec(&self, id: &str, text: &str) -> Result<Arc<Spec>, TournamentError> {
        if let Some(s) = self.cached_spec(id) {
            return Ok(s);
        }
        let spec: Arc<Spec> =
            Arc::new(serde_json::from_str(text).map_err(TournamentError::internal)?);
        if let Ok(mut specs) = self.specs.lock() {
            specs.put(id.to_string(), spec.clone());
        }
        Ok(spec)
    }

    /// Round `round` of tournament `id`, if parsed before.
    fn cached_round(&self, id: &str, round: u32) -> Option<Arc<ParsedRound>> {
        self.rounds
            .lock()
            .ok()?
            .get(&(id.to_string(), round))
            .cloned()
    }

    /// Round row `r` of tournament `id`, parsed once: `kept` when the caller holds it (then `r`'s
    /// text was not read, and an eviction since cannot leave it to parse), else from the cache.
    fn parsed_round(
        &self,
        id: &str,
        r: &RoundRow,
        kept: Option<Arc<ParsedRound>>,
    ) -> Result<Arc<ParsedRound>, TournamentError> {
        let round = r.round as u32;
        if let Some(p) = kept.or_else(|| self.cached_round(id, round)) {
            return Ok(p);
        }
        let pairing: Pairing =
            serde_json::from_str(&r.pairing).map_err(TournamentError::internal)?;
        let parsed = Arc::new(ParsedRound {
            tables: pairing.tables.into_iter().map(Arc::from).collect(),
            byes: pairing.byes,
            match_ids: serde_json::from_str(&r.match_ids).map_err(TournamentError::internal)?,
        });
        if let Ok(mut rounds) = self.rounds.lock() {
            rounds.put((id.to_string(), round), parsed.clone());
        }
        Ok(parsed)
    }

    /// Registers a player.
    pub async fn create_player(&self, req: CreatePlayer) -> Result<Player, TournamentError> {
        check_name(&req.name, "the name")?;
        let row = PlayerRow {
            id: new_id(),
            name: req.name,
            created_at: now(),
        };
        let player = Player {
            id: row.id.clone(),
            name: row.name.clone(),
            created_at: row.created_at.clone(),
        };
        let key = keyed(player_answer(&player))?;
        self.store.insert_player(&row, key.as_ref()).await?;
        Ok(player)
    }

    /// A registered player.
    pub async fn player(&self, id: &str) -> Result<Player, TournamentError> {
        if !is_id(id) {
            return Err(TournamentError::PlayerNotFound(id.to_string()));
        }
        let row = self
            .store
            .players(&[id.to_string()])
            .await?
            .pop()
            .ok_or_else(|| TournamentError::PlayerNotFound(id.to_string()))?;
        Ok(Player {
            id: row.id,
            name: row.name,
            created_at: row.created_at,
        })
    }

    /// Players in registration order, those whose name contains `q` (case folded by Unicode
    /// lower case), paged by `cursor`.
    pub async fn list_players(
        &self,
        q: Option<&str>,
        cursor: Option<&str>,
        limit: i64,
    ) -> Result<PlayerPage, TournamentError> {
        let cursor = parse_cursor(cursor).ok_or(MatchError::InvalidCursor)?;
        if q.is_some_and(|q| q.contains('\0')) {
            // No name holds a NUL (PostgreSQL refuses one in text): nothing matches.
            return Ok(PlayerPage {
                players: vec![],
                next_cursor: None,
            });
        }
        let rows = self.store.list_players(q, cursor, limit + 1).await?;
        let next_cursor =
            (rows.len() as i64 > limit).then(|| rows[limit as usize - 1].num.to_string());
        Ok(PlayerPage {
            players: rows
                .into_iter()
                .take(limit as usize)
                .map(|r| Player {
                    id: r.id,
                    name: r.name,
                    created_at: r.created_at,
                })
                .collect(),
            next_cursor,
        })
    }

    /// Tournaments newest first, filtered by game, creation time (`after` inclusive, `before`
    /// exclusive: RFC 3339 times) and entrant, paged by `cursor`.
    pub async fn list_tournaments(
        &self,
        filter: &TournamentFilter<'_>,
        cursor: Option<&str>,
        limit: i64,
    ) -> Result<TournamentPage, TournamentError> {
        let cursor = parse_cursor(cursor).ok_or(MatchError::InvalidCursor)?;
        let time = |t: Option<&str>, which: &'static str| {
            t.map(|t| {
                chrono::DateTime::parse_from_rfc3339(t)
                    .map(|t| {
                        t.with_timezone(&chrono::Utc)
                            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
                    })
                    .map_err(|_| TournamentError::InvalidTime(which))
            })
            .transpose()
        };
        let after = time(filter.created_after, "created_after")?;
        let before = time(filter.created_before, "created_before")?;
        if filter.game.is_some_and(|g| g.contains('\0')) {
            return Ok(TournamentPage {
                tournaments: vec![],
                next_cursor: None,
            });
        }
        let rows = self
            .store
            .list_tournaments(
                &crate::store::TournamentListFilter {
                    game: filter.game,
                    after: after.as_deref(),
                    before: before.as_deref(),
                    player: filter.player,
                    finished: filter.status.map(|s| s == TournamentStatus::Finished),
                    archived: filter.archived,
                },
                cursor,
                limit + 1,
            )
            .await?;
        let next_cursor =
            (rows.len() as i64 > limit).then(|| rows[limit as usize - 1].num.to_string());
        let mut tournaments = Vec::with_capacity(rows.len());
        for r in rows.into_iter().take(limit as usize) {
            let spec = self.spec(&r.id, &r.spec)?;
            tournaments.push(TournamentSummary {
                id: r.id,
                name: spec.name.clone(),
                game: spec.game.clone(),
                format: spec.format,
                duplicate: spec.duplicate,
                rounds: spec.rounds,
                rounds_paired: r.rounds_paired as u32,
                entrants: spec.entrants.len() + r.late_entries as usize,
                status: if r.finished_at.is_some() {
                    TournamentStatus::Finished
                } else {
                    TournamentStatus::InProgress
                },
                created_at: r.created_at,
                archived_at: r.archived_at,
            });
        }
        Ok(TournamentPage {
            tournaments,
            next_cursor,
        })
    }

    /// The matches a seat of which names player `id` (see [`Matches::player_matches`]).
    pub async fn player_matches(
        &self,
        id: &str,
        cursor: Option<&str>,
        limit: i64,
    ) -> Result<MatchPage, TournamentError> {
        self.player(id).await?;
        Ok(self.matches.player_matches(id, cursor, limit).await?)
    }

    /// The tournaments player `id` entered, newest first.
    pub async fn player_tournaments(
        &self,
        id: &str,
        cursor: Option<&str>,
        limit: i64,
    ) -> Result<TournamentPage, TournamentError> {
        self.player(id).await?;
        let filter = TournamentFilter {
            player: Some(id),
            ..TournamentFilter::default()
        };
        self.list_tournaments(&filter, cursor, limit).await
    }

    /// Issues a new organiser token for tournament `id` and revokes the old one, with every
    /// table's match tokens (they derive from it: a leaked organiser token gave them all). Asked
    /// by the organiser, or by the operator (`CLUBROOM_OPERATOR_TOKEN`) for an organiser who
    /// lost the token. The new token, shown once.
    pub async fn rotate_organiser(
        &self,
        id: &str,
        token: Option<&str>,
    ) -> Result<String, TournamentError> {
        // A round paired meanwhile (its tables' tokens would be left out) makes the store refuse
        // the rotation: loaded again, and tried again.
        for _ in 0..ROTATE_ATTEMPTS {
            let t = self.load(id).await?;
            if !self.matches.is_operator(token) {
                t.organiser(token)?;
            }
            match self.rotate_loaded(&t).await {
                Err(TournamentError::Store(StoreError::Conflict)) => continue,
                other => return other,
            }
        }
        Err(TournamentError::Store(StoreError::Conflict))
    }

    /// Rotates the organiser token of `t` as loaded (see [`Tournaments::rotate_organiser`]).
    async fn rotate_loaded(&self, t: &Loaded) -> Result<String, TournamentError> {
        let id = t.row.id.as_str();
        let new = new_token();
        let mut tables = vec![];
        for r in &t.rounds {
            for table in &r.tables {
                let Some(m) = &table.match_id else { continue };
                let tokens = std::iter::once(None)
                    .chain((0..table.seats.len()).map(Some))
                    .map(|seat| {
                        (
                            sha256_hex(table_token(&new, m, seat).as_bytes()),
                            seat.map(|s| s as i64),
                        )
                    })
                    .collect();
                tables.push((m.clone(), tokens));
            }
        }
        self.store
            .rotate_organiser(
                id,
                &t.row.organiser_hash,
                &sha256_hex(new.as_bytes()),
                &tables,
            )
            .await?;
        Ok(new)
    }

    /// Creates a tournament: checks the settings, registers the entrants given by name, fixes a
    /// round robin's schedule.
    pub async fn create_tournament(
        &self,
        req: CreateTournament,
    ) -> Result<CreatedTournament, TournamentError> {
        check_tournament_name(&req.name)?;
        if req.players.len() < 2 || req.players.len() > MAX_ENTRANTS {
            return Err(TournamentError::EntrantCount { max: MAX_ENTRANTS });
        }
        let dealing = req.dealing.unwrap_or_default();
        let (game, config) = settle_game(&req, dealing)?;
        let allowed = allowed_sizes(&game, &config, dealing);
        let table_size = settle_table_size(&game, req.table_size, &allowed)?;
        let duplicate = req.duplicate.unwrap_or(false);
        let record = req.record.unwrap_or_default();
        let n = req.players.len();
        if duplicate {
            check_duplicate(&game, &config, record, dealing, n, table_size)?;
        }
        let real_cards = duplicate && record == Record::Matches && dealing == Dealing::Table;
        if req.fouled_board.is_some() && !real_cards {
            return Err(TournamentError::FouledBoardNotApplicable);
        }
        let (sizes, _) = pairing::table_sizes(n, table_size, &allowed, duplicate);
        if sizes.is_empty() {
            return Err(TournamentError::EntrantsFillNoTable {
                n,
                game,
                table_size,
            });
        }
        // The rounds and the entrants are filled in below.
        let mut spec = Spec {
            rating_system: rating_system(&game, &config, dealing, &sizes),
            name: req.name,
            game,
            config,
            dealing,
            format: req.format,
            table_size,
            allowed,
            rounds: 0,
            duplicate,
            record,
            fouled_board: req.fouled_board.unwrap_or_default(),
            entrants: vec![],
            schedule: None,
        };
        (spec.rounds, spec.schedule) = plan_rounds(&spec, n, req.rounds).await?;
        let seats = self.matches.resolve_players(&req.players).await?;
        let created_at = now();
        let new_players;
        (spec.entrants, new_players) = enrol(seats, &created_at);
        let organiser_token = new_token();
        let row = TournamentRow {
            id: new_id(),
            organiser_hash: sha256_hex(organiser_token.as_bytes()),
            spec: to_json(&spec)?,
            created_at,
            archived_at: None,
        };
        let entrant_ids: Vec<String> = spec.entrants.iter().map(|e| e.player_id.clone()).collect();
        let game = spec.game.clone();
        let loaded = Loaded {
            row,
            spec: Arc::new(spec),
            rounds: vec![],
            night: Night::default(),
        };
        let created = CreatedTournament {
            tournament: loaded.render(true),
            organiser_token,
        };
        let key = keyed(tournament_answer(&created))?;
        self.store
            .insert_tournament(&loaded.row, &game, &new_players, &entrant_ids, key.as_ref())
            .await
            .map_err(|e| match e {
                StoreError::OutcomeUnknown(_) => TournamentError::CreationOutcomeUnknown,
                other => other.into(),
            })?;
        Ok(created)
    }

    /// Loads tournament `id` and reads each table's result: an entered one (the latest
    /// version), or its match's finished score sheet.
    pub(super) async fn load(&self, id: &str) -> Result<Loaded, TournamentError> {
        if !is_id(id) {
            return Err(TournamentError::NotFound(id.to_string()));
        }
        let (row, round_rows, entered) = self
            .store
            .load_tournament(id)
            .await?
            .ok_or_else(|| TournamentError::NotFound(id.to_string()))?;
        let spec = self.spec(id, &row.spec)?;
        // Late entrants are added to the entrants (issue 24, part 3).
        let (spec, night) = Night::apply(spec, self.store.tournament_changes(id).await?)?;
        let entered: HashMap<(i64, i64), &ResultRow> =
            entered.iter().map(|e| ((e.round, e.table_no), e)).collect();
        let mut sides = Sides::default();
        let mut rounds = Vec::with_capacity(round_rows.len());
        for r in round_rows {
            rounds.push(
                self.load_round_row(id, &spec, &mut sides, r, None, &entered, |_| true)
                    .await?,
            );
        }
        Ok(Loaded {
            row,
            spec,
            rounds,
            night,
        })
    }

    /// Tournament `id`'s settings `spec` with its change log applied, the log's last `seq` being
    /// `seq`: kept from an earlier read of the same log, else read and kept.
    async fn night(
        &self,
        id: &str,
        spec: Arc<Spec>,
        seq: i64,
    ) -> Result<(Arc<Spec>, Night), TournamentError> {
        let kept = self.nights.lock().ok().and_then(|mut n| {
            n.get(id)
                .filter(|(s, base, _)| *s == seq && Arc::ptr_eq(base, &spec))
                .map(|(_, _, applied)| applied.clone())
        });
        if let Some(applied) = kept {
            return Ok(applied);
        }
        let rows = self.store.tournament_changes(id).await?;
        // The log read may be newer than `seq` (a change committed in between): keep it by its
        // own last `seq`.
        let read_seq = rows.last().map_or(0, |r| r.seq);
        let applied = Night::apply(spec.clone(), rows)?;
        if let Ok(mut n) = self.nights.lock() {
            n.put(id.to_string(), (read_seq, spec, applied.clone()));
        }
        Ok(applied)
    }

    /// What table `table` of round `round` of tournament `id` shows, and no more: the tournament
    /// with that round only, and of it the table's result (every table's in duplicate play, where
    /// a table's matchpoints compare it with the round's other tables). A table's view rendered
    /// from it is the one a full load renders (tests/api_tournaments.rs compares them).
    async fn load_table(
        &self,
        id: &str,
        round: u32,
        table: u32,
    ) -> Result<Loaded, TournamentError> {
        self.load_part(id, round, Some(table)).await
    }

    /// Tournament `id` with round `round` only: the table `only`'s result (the round's in
    /// duplicate play, see [`Tournaments::load_table`]), or, without `only`, every table's.
    pub(super) async fn load_part(
        &self,
        id: &str,
        round: u32,
        only: Option<u32>,
    ) -> Result<Loaded, TournamentError> {
        if !is_id(id) {
            return Err(TournamentError::NotFound(id.to_string()));
        }
        // Which results the view needs is known once the settings are read; ask for the table's,
        // and for the round's when the spec turns out to be a duplicate one.
        // The settings' text is read only when they are not parsed already.
        let cached = self.cached_spec(id);
        // Nor the round's tables when they are parsed already.
        // The copy is held from here: the text is not read, so it must not be looked up again.
        let round_kept = self.cached_round(id, round);
        let (row, round_row, mut entered, changes_seq) = self
            .store
            .load_tournament_round(id, round, only, cached.is_none(), round_kept.is_none())
            .await?
            .ok_or_else(|| TournamentError::NotFound(id.to_string()))?;
        let spec = match cached {
            Some(s) => s,
            None => self.spec(id, &row.spec)?,
        };
        // A table may seat a late entrant: the entrants are the settings' and the late ones.
        let (spec, night) = self.night(id, spec, changes_seq).await?;
        let round_row = round_row.map_err(|paired| TournamentError::RoundNotFound {
            round,
            paired: paired as usize,
        })?;
        if spec.duplicate && only.is_some() {
            entered = self.store.latest_results(id, round, None).await?;
        }
        let entered: HashMap<(i64, i64), &ResultRow> =
            entered.iter().map(|e| ((e.round, e.table_no), e)).collect();
        let duplicate = spec.duplicate;
        let r = self
            .load_round_row(
                id,
                &spec,
                &mut Sides::default(),
                round_row,
                round_kept,
                &entered,
                |t| duplicate || only.is_none_or(|o| o == t),
            )
            .await?;
        Ok(Loaded {
            row,
            spec,
            rounds: vec![r],
            night,
        })
    }

    /// Round `r` of tournament `id` as loaded: its tables and the results of those `wanted` (by
    /// number, from 1): the latest entry (`entered`, by round and table), or else the match's
    /// finished sheet. `kept`: its tables, parsed, when the caller holds them.
    #[allow(clippy::too_many_arguments)]
    async fn load_round_row(
        &self,
        id: &str,
        spec: &Spec,
        sides: &mut Sides,
        r: RoundRow,
        kept: Option<Arc<ParsedRound>>,
        entered: &HashMap<(i64, i64), &ResultRow>,
        wanted: impl Fn(u32) -> bool,
    ) -> Result<LoadedRound, TournamentError> {
        let parsed = self.parsed_round(id, &r, kept)?;
        let match_ids = &parsed.match_ids;
        let round = r.round as u32;
        let mut tables = Vec::with_capacity(parsed.tables.len());
        for (i, seats) in parsed.tables.iter().enumerate() {
            let seats = Arc::clone(seats);
            let table = i as u32 + 1;
            let match_id = match_ids.get(i).cloned().flatten();
            let entry = entered.get(&(r.round, i64::from(table))).copied();
            let result = match (entry, &match_id) {
                _ if !wanted(table) => None,
                (Some(e), _) => Some(spec.entered_result_sided(
                    round,
                    table,
                    &seats,
                    e,
                    sides.of(spec, seats.len()),
                )?),
                (None, Some(m)) => self.match_result(round, table, &seats, m).await?,
                (None, None) => None,
            };
            tables.push(LoadedTable {
                seats,
                match_id,
                result,
                entered_version: entry.map_or(0, |e| e.version),
            });
        }
        Ok(LoadedRound {
            round,
            secret: r.secret,
            byes: parsed.byes.clone(),
            tables,
            created_at: r.created_at,
        })
    }

    /// The result of the table whose match is `m`: its score sheet once it is finished.
    async fn match_result(
        &self,
        round: u32,
        table: u32,
        seats: &[usize],
        m: &str,
    ) -> Result<Option<TableResult>, TournamentError> {
        let (sheet, at) = self.matches.sheet_and_time(m).await?;
        if !sheet.finished {
            return Ok(None);
        }
        let fouls = self
            .matches
            .fouls(m)
            .await?
            .into_iter()
            .map(|f| FouledPlay {
                board: f.board,
                seat: f.seat,
                card: f.card.to_string(),
                face_up: f.face_up,
            })
            .collect();
        Ok(Some(TableResult {
            round,
            table,
            seats: seats.to_vec(),
            sides: sheet.sides.clone(),
            totals: sheet.totals.clone(),
            deals: sheet.rounds.iter().map(|r| r.points.clone()).collect(),
            winners: sheet.winners.clone(),
            source: ResultSource::Match,
            match_id: Some(m.to_string()),
            at,
            fouls,
        }))
    }

    /// The tournament (match ids of a duplicate round in play only to the organiser).
    pub async fn tournament(
        &self,
        id: &str,
        token: Option<&str>,
    ) -> Result<TournamentView, TournamentError> {
        let t = self.load(id).await?;
        Ok(t.render(t.is_organiser(token)))
    }

    /// The standings.
    pub async fn standings(&self, id: &str) -> Result<Standings, TournamentError> {
        Ok(self.load(id).await?.standings())
    }

    /// What the exports show: the standings and the results anyone may see.
    pub async fn exported(&self, id: &str) -> Result<Exported, TournamentError> {
        let t = self.load(id).await?;
        let title = AnyGame::catalogue()
            .iter()
            .find(|g| g.id == t.spec.game)
            .map_or(t.spec.game.clone(), |g| g.title.to_string());
        Ok(Exported {
            standings: t.standings(),
            results: t.public_results(),
            name: t.spec.name.clone(),
            title,
            entrants: t.spec.entrants.clone(),
            duplicate: t.spec.duplicate,
            fouled_board: t.spec.fouled_board,
        })
    }

    /// The tournament feed (issue 23, part 3): the events after seq `after`, at most `limit`.
    /// Public: the feed holds public facts only.
    pub async fn events(
        &self,
        id: &str,
        after: i64,
        limit: i64,
    ) -> Result<TournamentEventPage, TournamentError> {
        let (rows, more) = self.feed_rows(id, after, limit).await?;
        event_page(rows, after, more)
    }

    /// [`Tournaments::events`] for the streams of tournament `id`'s feed, in `room`: the events
    /// after `after` from the room's tail, reaching at least seq `wanted` (announced), else read
    /// from the database and kept in the tail. A write made here puts its events in the tail
    /// before it announces them: its streams render them without a query.
    pub async fn live_events(
        &self,
        room: &crate::matches::live::Room,
        id: &str,
        after: i64,
        wanted: i64,
        limit: i64,
    ) -> Result<TournamentEventPage, TournamentError> {
        let page = usize::try_from(limit).unwrap_or(0);
        if let Some((rows, end)) = room.feed_page(after, wanted, page) {
            let more = rows.last().map_or(after, |r| r.seq) < end;
            return event_page(rows, after, more);
        }
        let (rows, more) = self.feed_rows(id, after, limit).await?;
        room.keep_feed(rows.iter().cloned());
        event_page(rows, after, more)
    }

    /// The stored events of tournament `id`'s feed after `after` (at most `limit`), and whether
    /// more follow (404 for an unknown tournament).
    async fn feed_rows(
        &self,
        id: &str,
        after: i64,
        limit: i64,
    ) -> Result<(Vec<crate::store::FeedRow>, bool), TournamentError> {
        if self.store.feed_version(id).await?.is_none() {
            return Err(TournamentError::NotFound(id.to_string()));
        }
        let mut rows = self.store.feed_after(id, after, limit + 1).await?;
        let more = rows.len() as i64 > limit;
        rows.truncate(usize::try_from(limit).unwrap_or(0));
        Ok((rows, more))
    }

    /// The last seq of tournament `id`'s feed (404 for an unknown tournament).
    pub async fn feed_version(&self, id: &str) -> Result<i64, TournamentError> {
        self.store
            .feed_version(id)
            .await?
            .ok_or_else(|| TournamentError::NotFound(id.to_string()))
    }

    /// The live hub (the tournament streams' rooms are its rooms).
    pub fn live(&self) -> &crate::matches::live::Hub {
        self.matches.live()
    }

    /// Webhooks (issue 23): whether `token` is tournament `id`'s organiser's.
    pub async fn authorize_organiser(
        &self,
        id: &str,
        token: Option<&str>,
    ) -> Result<(), TournamentError> {
        self.load(id).await?.organiser(token).map(|_| ())
    }

    /// Pairs the next round (organiser): creates each table's match (record `matches`) with
    /// tokens derived from the organiser's, and answers them.
    pub async fn pair_round(
        &self,
        id: &str,
        token: Option<&str>,
    ) -> Result<RoundWithTokens, TournamentError> {
        let mut t = self.load(id).await?;
        let organiser_token = t.organiser(token)?;
        t.writable()?;
        let next = t.rounds.len() as u32 + 1;
        check_pairable(&t, next)?;
        let pairing = match &t.spec.schedule {
            Some(schedule) => schedule[next as usize - 1].clone(),
            None => swiss_pairing(&t, next),
        };
        let secret = hex::encode(rand::random::<[u8; 32]>());
        let (matches, match_ids) =
            self.table_matches(&t, next, &pairing, &secret, organiser_token)?;
        let round_row = RoundRow {
            round: i64::from(next),
            secret,
            pairing: to_json(&pairing)?,
            match_ids: to_json(&match_ids)?,
            created_at: now(),
        };
        // Webhooks and the feed: `round.paired`, queued in the round's transaction.
        let feed = feed_round_paired(&t, next, &pairing, &match_ids);
        let outbox = crate::webhooks::events::round_paired(id, next, &match_ids, feed);
        // The answer, from what is about to be written (the new round's tables have no result
        // yet): a keyed pairing records it in the round's transaction.
        t.rounds
            .push(LoadedRound::paired(round_row.clone(), pairing, match_ids));
        let answer = with_tokens(&t, next, organiser_token)?;
        let key = keyed(round_answer(id, &answer))?;
        let organiser_hash = sha256_hex(organiser_token.as_bytes());
        match self
            .store
            .insert_round(
                id,
                &round_row,
                &matches,
                &outbox,
                &organiser_hash,
                key.as_ref(),
            )
            .await
        {
            Ok(()) => Ok(answer),
            // The token was rotated after it was checked: refused as a request made after.
            Err(StoreError::Revoked) => Err(TournamentError::OrganiserOnly),
            Err(StoreError::Conflict) => Err(TournamentError::RoundJustPaired {
                id: id.to_string(),
                next,
            }),
            Err(e) if e.is_fault() => {
                // The round may be recorded after all: its tokens derive from the organiser's,
                // so reading the round back gives them.
                match self.load(id).await {
                    Ok(again) if again.rounds.len() as u32 >= next => {
                        with_tokens(&again, next, organiser_token)
                    }
                    _ => Err(e.into()),
                }
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The matches of round `next`'s tables (none when results are entered as totals), not yet
    /// recorded, and each table's match id.
    fn table_matches(
        &self,
        t: &Loaded,
        next: u32,
        pairing: &Pairing,
        secret: &str,
        organiser_token: &str,
    ) -> Result<(Vec<NewMatch>, Vec<Option<String>>), TournamentError> {
        if t.spec.record == Record::Totals {
            return Ok((vec![], vec![None; pairing.tables.len()]));
        }
        let mut matches = Vec::with_capacity(pairing.tables.len());
        for (i, seats) in pairing.tables.iter().enumerate() {
            let table = TableMatch {
                game: &t.spec.game,
                config: &t.spec.config,
                dealing: t.spec.dealing,
                seats: seats
                    .iter()
                    .map(|&e| {
                        let en = &t.spec.entrants[e];
                        (en.name.clone(), Some(en.player_id.clone()))
                    })
                    .collect(),
                link: TournamentLink {
                    id: t.row.id.clone(),
                    round: next,
                    table: i as u32 + 1,
                },
                seed_key: t.spec.duplicate.then_some(secret),
            };
            matches.push(
                self.matches
                    .table_match(table, |m, seat| table_token(organiser_token, m, seat))?,
            );
        }
        let ids = matches
            .iter()
            .map(|(row, _)| Some(row.id.clone()))
            .collect();
        Ok((matches, ids))
    }

    /// Round `round` with its tables' tokens (organiser).
    pub async fn round_with_tokens(
        &self,
        id: &str,
        round: u32,
        token: Option<&str>,
    ) -> Result<RoundWithTokens, TournamentError> {
        // The round only: its view and tokens need nothing of the others.
        let t = self.load_part(id, round, None).await?;
        let organiser_token = t.organiser(token)?;
        let mut answer = with_tokens(&t, round, organiser_token)?;
        // Duplicate play with real cards: the fouls recorded so far, to the organiser alone
        // while the round is played (a table's own tokens see none: `Entry::shown_fouls`).
        let spec = &t.spec;
        if spec.duplicate && spec.dealing == Dealing::Table && spec.record == Record::Matches {
            for tb in &mut answer.tokens {
                tb.fouls = self.matches.fouls(&tb.match_id).await?;
            }
        }
        Ok(answer)
    }

    /// Boards `from` to `from + count - 1` of round `round` (organiser only), for duplicate play
    /// at tables that deal real cards: board k is what service dealing would deal as deal k
    /// from the round's secret, at any table of the round.
    pub async fn boards(
        &self,
        id: &str,
        round: u32,
        token: Option<&str>,
        from: u32,
        count: u32,
    ) -> Result<RoundBoards, TournamentError> {
        let t = self.load_part(id, round, Some(1)).await?;
        t.organiser(token)?;
        let spec = &t.spec;
        if !(spec.duplicate && spec.dealing == Dealing::Table && spec.record == Record::Matches) {
            return Err(TournamentError::NoPrintedBoards);
        }
        let r = t.round(round)?;
        let seats = r
            .tables
            .first()
            .map_or(spec.table_size, |tb| tb.seats.len());
        let game = AnyGame::new(&spec.game, Some(spec.config.clone()), seats, Dealing::Table)
            .map_err(TournamentError::internal)?;
        let boards = boards::boards(&game, from, count, |k| {
            crate::matches::duplicate_seed(&r.secret, k as usize)
        })
        .ok_or(TournamentError::NoPrintedBoards)?;
        Ok(RoundBoards {
            tournament_id: id.to_string(),
            round,
            game: spec.game.clone(),
            seats,
            boards,
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
    ) -> Result<TableView, TournamentError> {
        // The table and what its answer shows, not the whole tournament (issue 25).
        let mut t = self.load_table(id, round, table).await?;
        let organiser_token = t.organiser(token)?;
        t.writable()?;
        let tb = t.round(round)?.table(table)?;
        if tb
            .result
            .as_ref()
            .is_some_and(|r| r.source == ResultSource::Match)
        {
            return Err(TournamentError::ResultFromMatch {
                table,
                duplicate: t.spec.duplicate,
            });
        }
        let units = AnyGame::new(
            &t.spec.game,
            Some(t.spec.config.clone()),
            tb.seats.len(),
            t.spec.dealing,
        )
        .map_err(TournamentError::internal)?
        .score_sheet()
        .totals
        .len();
        let (totals, deals) = quicklog::check(
            &t.spec.game,
            &t.spec.config,
            units,
            req.totals,
            req.deals,
            t.spec.duplicate,
        )
        .map_err(TournamentError::Result)?;
        // A table whose match is still being played is settled by hand only by closing the
        // match for good (`abandon_match`): a result entered while the table plays on would
        // count (and, in duplicate play, could complete the round and publish the boards the
        // table still holds). The entry is checked: now the match is closed (then the entry is
        // stored; should that fail, the match stays abandoned and the same request entered
        // again completes it).
        if let Some(m) = &tb.match_id {
            self.settle_match(
                m,
                table,
                t.spec.duplicate,
                organiser_token,
                req.abandon_match,
            )
            .await?;
        }
        let stored = serde_json::json!({
            "totals": totals,
            "deals": deals,
            "match_id": tb.match_id,
        });
        let row = ResultRow {
            round: i64::from(round),
            table_no: i64::from(table),
            version: tb.entered_version + 1,
            result: stored.to_string(),
            entered_at: now(),
        };
        // Webhooks: `result.entered` (and `round.complete` when this completes the round),
        // queued in the result's transaction.
        let outbox = crate::webhooks::events::result_entered(
            id,
            round,
            table,
            row.version,
            (!t.spec.duplicate).then_some(totals.as_slice()),
            tb.result.is_none(),
        );
        // A correction (the table had an entered result) is logged with the old and the new
        // figures, in the result's transaction (issue 24, part 3).
        let change = match (&tb.result, tb.entered_version) {
            (Some(old), v) if v > 0 => Some(super::night::correction(
                &t.night,
                round,
                table,
                old,
                &totals,
                &deals,
                &row.entered_at,
            )?),
            _ => None,
        };
        let organiser_hash = sha256_hex(organiser_token.as_bytes());
        // Answered from what was loaded and the entry to be stored.
        let result = t.spec.entered_result(round, table, &tb.seats, &row)?;
        // The club (issue 24): the entered (or corrected) result, recorded and rated in the
        // entry's own transaction (issue 25, part 4: one durable commit).
        let seat_players: Vec<String> = result
            .seats
            .iter()
            .map(|&e| t.spec.entrants[e].player_id.clone())
            .collect();
        let club = crate::club::table_result(&crate::club::TableEntry {
            tournament_id: id,
            game: &t.spec.game,
            round,
            table,
            version: row.version,
            at: &row.entered_at,
            seat_players: &seat_players,
            sides: result.sides.as_deref(),
            totals: &result.totals,
            duplicate: t.spec.duplicate,
        });
        match self
            .store
            .insert_result(id, &row, &outbox, &organiser_hash, change.as_ref(), &club)
            .await
        {
            Ok(()) => {}
            // The token was rotated after it was checked: refused as a request made after.
            Err(StoreError::Revoked) => return Err(TournamentError::OrganiserOnly),
            Err(StoreError::Conflict) => return Err(TournamentError::ResultChanged { table }),
            Err(e) => return Err(e.into()),
        }
        // (The table was found above: its round and number are in range; the round is the only
        // one loaded.)
        let tb = &mut t.rounds[0].tables[table as usize - 1];
        tb.result = Some(result);
        tb.entered_version = row.version;
        t.table_view(round, table)
    }

    /// At start-up (`club::recover`): the `club_pending` marker of table `table` of round
    /// `round`, replayed from its latest entered result (none left: nothing to record).
    pub async fn club_replay(
        &self,
        id: &str,
        round: u32,
        table: u32,
    ) -> Result<(), TournamentError> {
        let t = self.load_table(id, round, table).await?;
        let tb = t.round(round)?.table(table)?;
        let Some(result) = tb
            .result
            .as_ref()
            .filter(|r| r.source == ResultSource::Totals)
        else {
            return Ok(());
        };
        let seat_players: Vec<String> = result
            .seats
            .iter()
            .map(|&e| t.spec.entrants[e].player_id.clone())
            .collect();
        crate::club::table_entered(
            &self.store,
            crate::club::TableEntry {
                tournament_id: id,
                game: &t.spec.game,
                round,
                table,
                version: tb.entered_version,
                at: &result.at,
                seat_players: &seat_players,
                sides: result.sides.as_deref(),
                totals: &result.totals,
                duplicate: t.spec.duplicate,
            },
        )
        .await;
        Ok(())
    }

    /// Before a result is entered at a table whose match is `m`: a match still being played is
    /// closed for good when the organiser asks so (`abandon`, else 409 `match_in_progress`); a
    /// finished one's sheet is the result (409 `result_from_match`).
    async fn settle_match(
        &self,
        m: &str,
        table: u32,
        duplicate: bool,
        organiser_token: &str,
        abandon: bool,
    ) -> Result<(), TournamentError> {
        match self.matches.status(m).await? {
            MatchStatus::InProgress if !abandon => Err(TournamentError::MatchInProgress {
                table,
                match_id: m.to_string(),
            }),
            MatchStatus::InProgress => {
                let host = table_token(organiser_token, m, None);
                Ok(self.matches.abandon(m, &host).await?)
            }
            // Finished since the tournament was loaded: its sheet is the result after all.
            MatchStatus::Finished => Err(TournamentError::ResultFromMatch { table, duplicate }),
            MatchStatus::Abandoned => Ok(()),
        }
    }
}

/// How many rounds a new tournament has, and a round robin's schedule, fixed now.
async fn plan_rounds(
    spec: &Spec,
    n: usize,
    asked: Option<u32>,
) -> Result<(u32, Option<Vec<Pairing>>), TournamentError> {
    match (spec.format, asked) {
        (Format::Swiss, Some(r)) if (1..=MAX_ROUNDS).contains(&r) => Ok((r, None)),
        (Format::Swiss, _) => Err(TournamentError::SwissRounds { max: MAX_ROUNDS }),
        (Format::RoundRobin, Some(_)) => Err(TournamentError::RoundRobinRounds),
        (Format::RoundRobin, None) => {
            let table_size = spec.table_size;
            // Each round seats an entrant with at most `table_size - 1` others, and every pair
            // meets: at least this many rounds. Refused before any schedule is searched (a
            // field of thousands would be searched for nothing).
            let least = if table_size == 2 {
                // The circle method's exact length.
                n - 1 + n % 2
            } else {
                (n - 1).div_ceil(table_size.saturating_sub(1).max(1))
            };
            if least as u32 > 2 * MAX_ROUNDS {
                return Err(TournamentError::RoundRobinTooLong {
                    n,
                    table_size,
                    rounds: least,
                    max: 2 * MAX_ROUNDS,
                });
            }
            let tables = pairing::Tables::new(table_size, &spec.allowed, spec.duplicate, |size| {
                spec.table_sides(size)
            });
            // The schedule's search takes up to about 2 s at 60 entrants: off the request's
            // worker thread, on the blocking pool.
            let s = actix_web::web::block(move || pairing::round_robin(n, &tables))
                .await
                .map_err(TournamentError::internal)?;
            if s.len() as u32 > 2 * MAX_ROUNDS {
                return Err(TournamentError::RoundRobinTooLong {
                    n,
                    table_size,
                    rounds: s.len(),
                    max: 2 * MAX_ROUNDS,
                });
            }
            Ok((s.len() as u32, Some(s)))
        }
    }
}

/// Whether round `next` may be paired: the last one is complete and the tournament has more.
fn check_pairable(t: &Loaded, next: u32) -> Result<(), TournamentError> {
    if let Some(last) = t.rounds.last() {
        if !last.complete() {
            return Err(TournamentError::RoundInProgress {
                round: last.round,
                open: last
                    .tables
                    .iter()
                    .enumerate()
                    .filter(|(_, tb)| tb.result.is_none())
                    .map(|(i, _)| i + 1)
                    .collect(),
            });
        }
    }
    if next > t.spec.rounds {
        return Err(TournamentError::Finished {
            rounds: t.spec.rounds,
        });
    }
    Ok(())
}

/// The Swiss pairing of round `next` after the results so far: the standings' order and
/// matchpoints (the score groups), and who met, partnered, sat out and sat first before.
fn swiss_pairing(t: &Loaded, next: u32) -> Pairing {
    let n = t.spec.entrants.len();
    let standings = t.standings();
    let mut ranked = Vec::with_capacity(n);
    let mut score = vec![0; n];
    let index: HashMap<&str, usize> = t
        .spec
        .entrants
        .iter()
        .enumerate()
        .map(|(i, e)| (e.player_id.as_str(), i))
        .collect();
    for row in &standings.rows {
        if let Some(&e) = index.get(row.player_id.as_str()) {
            score[e] = row.matchpoints;
            // A withdrawn entrant is never paired again (issue 24, part 3).
            if !t.is_withdrawn(e) {
                ranked.push(e);
            }
        }
    }
    let tables = pairing::Tables::new(
        t.spec.table_size,
        &t.spec.allowed,
        t.spec.duplicate,
        |size| t.spec.table_sides(size),
    );
    let mut history = pairing::History::new(n);
    for r in &t.rounds {
        let round = Pairing {
            tables: r.tables.iter().map(|tb| tb.seats.to_vec()).collect(),
            byes: r.byes.clone(),
        };
        history.record(&round, &tables);
    }
    pairing::swiss(&ranked, &score, &history, next, &tables)
}

/// Round `round` of `t` as the organiser sees it, with its tables' tokens.
fn with_tokens(
    t: &Loaded,
    round: u32,
    organiser_token: &str,
) -> Result<RoundWithTokens, TournamentError> {
    let round_view = t.round_view(round)?;
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
                fouls: vec![],
            })
        })
        .collect();
    Ok(RoundWithTokens {
        round: round_view,
        tokens,
    })
}

/// How often a rotation of the organiser token is tried while rounds are paired meanwhile.
const ROTATE_ATTEMPTS: usize = 5;

/// The key of the keyed create this task runs, if any, with its `answer`.
fn keyed(
    answer: Result<CreatedAnswer, serde_json::Error>,
) -> Result<Option<KeyAnswer>, TournamentError> {
    answer
        .map(|a| crate::store::idempotency::keyed_answer(&a))
        .map_err(TournamentError::internal)
}

/// The answer to `POST /v1/players`: 201, the player, `Location`.
pub fn player_answer(p: &Player) -> Result<CreatedAnswer, serde_json::Error> {
    CreatedAnswer::new(format!("/v1/players/{}", p.id), p, &[])
}

/// The answer to `POST /v1/tournaments`: 201, the tournament with its organiser token,
/// `Location`.
pub fn tournament_answer(c: &CreatedTournament) -> Result<CreatedAnswer, serde_json::Error> {
    CreatedAnswer::new(format!("/v1/tournaments/{}", c.tournament.id), c, &[])
}

/// The answer to `POST /v1/tournaments/{id}/rounds`: 201, the round with its tables' tokens,
/// `Location`.
pub fn round_answer(id: &str, r: &RoundWithTokens) -> Result<CreatedAnswer, serde_json::Error> {
    CreatedAnswer::new(
        format!("/v1/tournaments/{id}/rounds/{}", r.round.round),
        r,
        &[],
    )
}

/// A page of the feed from its stored rows (after `after`; `more`: others follow them).
fn event_page(
    rows: Vec<crate::store::FeedRow>,
    after: i64,
    more: bool,
) -> Result<TournamentEventPage, TournamentError> {
    let events = rows
        .into_iter()
        .map(feed_event)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(TournamentEventPage {
        next_after: more.then(|| events.last().map_or(after, TournamentEvent::seq)),
        events,
    })
}

/// A stored feed event as the wire shows it: its facts with its seq, type and time.
pub(crate) fn feed_event(row: crate::store::FeedRow) -> Result<TournamentEvent, TournamentError> {
    let mut v: serde_json::Value = serde_json::from_str(&row.data)
        .map_err(|e| StoreError::Corrupt(format!("feed event {}: {e}", row.seq)))?;
    let o = v
        .as_object_mut()
        .ok_or_else(|| StoreError::Corrupt(format!("feed event {}: not an object", row.seq)))?;
    o.insert("seq".into(), row.seq.into());
    o.insert("type".into(), row.kind.into());
    o.insert("created_at".into(), row.created_at.into());
    Ok(serde_json::from_value(v)
        .map_err(|e| StoreError::Corrupt(format!("feed event {}: {e}", row.seq)))?)
}

/// The feed's `round.paired`: each table's players by seat, its match (not in duplicate play,
/// where the table's match stays the organiser's while the round is played), the byes.
fn feed_round_paired(
    t: &Loaded,
    round: u32,
    pairing: &Pairing,
    match_ids: &[Option<String>],
) -> serde_json::Value {
    let tables: Vec<FeedTable> = pairing
        .tables
        .iter()
        .zip(match_ids)
        .enumerate()
        .map(|(i, (seats, m))| FeedTable {
            table: i as u32 + 1,
            match_id: m.clone().filter(|_| !t.spec.duplicate),
            players: seats
                .iter()
                .enumerate()
                .map(|(seat, &e)| PlayerView {
                    seat,
                    name: t.spec.entrants[e].name.clone(),
                    player_id: Some(t.spec.entrants[e].player_id.clone()),
                })
                .collect(),
        })
        .collect();
    let byes: Vec<&Entrant> = pairing.byes.iter().map(|&b| &t.spec.entrants[b]).collect();
    serde_json::json!({"round": round, "tables": tables, "byes": byes})
}

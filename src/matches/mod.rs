//! The match service: owns every read and write of a match.
//!
//! A write is: authorize the token → load the state (from a bounded in-memory cache keyed by match
//! id and version; replayed from the log on a miss or when the database is ahead) → apply in the
//! pure engine → append the event. The `(match_id, seq)` primary key is the final judge between
//! concurrent writers in one process or many: the loser reloads and retries, or gets 412 when it
//! sent `If-Match`. Nothing is lost or recorded twice.

pub mod live;
pub mod tables;
pub mod views;

use std::{
    collections::HashMap,
    num::NonZeroUsize,
    sync::{Arc, Mutex},
};

use actix_web::http::StatusCode;
use lru::LruCache;
use serde_json::{value::RawValue, Value};
use sha2::{Digest, Sha256};
use tokio::sync::Mutex as AsyncMutex;

use self::views::{
    ActionRequest, CreateMatch, Created, EventPage, EventView, Legal, MatchPage, MatchStatus,
    MatchSummary, MatchView, PlayerView, Recorded, RecordedMinimal, TournamentLink,
};
use crate::{
    error::ApiError,
    ids::{is_id, new_id, new_token, now, sha256_hex},
    rules::{raw_json, ActionError, Actor, AnyGame, Dealing, ScoreSheet, Seed},
    store::{EventRow, MatchRow, Store, StoreError},
};

/// How many matches the cache keeps (least recently used are dropped first).
const CACHE_CAPACITY: usize = 2048;
/// How often a write is retried after losing a race to another writer.
const MAX_ATTEMPTS: usize = 16;
/// How long a write whose connection was lost during its commit waits before it reads its event
/// back (the server may still be finishing the statement).
const OUTCOME_CHECK_DELAY: std::time::Duration = std::time::Duration::from_millis(200);

/// Who a token says the caller is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The host (scorer): any seat, the table, undo.
    Host,
    /// One seat.
    Seat(usize),
}

/// A standing (not retracted) action.
#[derive(Clone, Debug)]
struct Standing {
    seq: i64,
    /// The round the event belongs to (the engine's round after it).
    round: u32,
    actor: Actor,
    action: Value,
    seed: Option<Seed>,
}

/// One match as the cache holds it: its fixed facts and its state at version `seq`.
struct Entry {
    row: MatchRow,
    players: Vec<String>,
    /// The registered player of each seat (None: a name only).
    player_ids: Vec<Option<String>>,
    /// The tournament table the match is played at.
    tournament: Option<TournamentLink>,
    /// Duplicate play: the round secret the deals' seeds derive from.
    seed_key: Option<String>,
    /// Duplicate play: the round is complete, so its secret is published (every table has its
    /// result; a finished duplicate match cannot be reopened, so once true it stays true).
    round_published: bool,
    /// The tournament's organiser settled the table by hand: nothing more is recorded.
    abandoned: bool,
    dealing: Dealing,
    tokens: Vec<(String, Option<i64>)>,
    game: AnyGame,
    seq: i64,
    updated_at: String,
    standing: Vec<Standing>,
    retracted: HashMap<i64, i64>,
    /// The options in force as JSON text: fixed for the match's life, written once.
    config_text: Box<RawValue>,
    /// The score sheet of `game` as JSON text, written when it changes, not on every answer.
    sheet: SheetMemo,
}

/// A score sheet written as JSON text, with the key of the state it was written for.
///
/// A game's sheet changes only when a line is added to it or the match ends: two states of one
/// line of play (one reached from the other by actions, no undo between them) with the same
/// number of sheet lines ([`AnyGame::sheet_lines`]) and the same finished flag have the same
/// sheet. `tests/conformance.rs` checks this of every game at every step of its random
/// playouts. So the text written for the entry's (committed) state also serves a state one
/// action on with the same key, and a recorded undo or events taken in from the log write the
/// sheet anew. Only a recorded state's sheet is kept: an answer rendered for an append that then
/// fails leaves the memo as it was.
struct SheetMemo {
    key: (u32, bool),
    text: Box<RawValue>,
}

impl SheetMemo {
    fn key(game: &AnyGame) -> (u32, bool) {
        (game.sheet_lines(), game.is_finished())
    }

    fn of(game: &AnyGame) -> SheetMemo {
        SheetMemo {
            key: SheetMemo::key(game),
            text: raw_json(&game.score_sheet()),
        }
    }

    /// The sheet of `game`, a state of the same line of play as the one written here.
    fn sheet_of(&self, game: &AnyGame) -> Box<RawValue> {
        if SheetMemo::key(game) == self.key {
            self.text.clone()
        } else {
            raw_json(&game.score_sheet())
        }
    }
}

/// What a write does.
enum WriteOp {
    Act(ActionRequest),
    Undo,
    /// Close the match for good: its tournament table was settled by hand (the host's token).
    Abandon,
}

/// A write request's envelope.
pub struct WriteMeta<'a> {
    /// The bearer token, if any.
    pub token: Option<&'a str>,
    /// `If-Match` version, if any.
    pub if_match: Option<i64>,
    /// `Idempotency-Key`, if any.
    pub idempotency_key: Option<String>,
    /// SHA-256 of the canonical request body (see [`request_hash`]).
    pub body: &'a Value,
    /// `Prefer: return=minimal`: answer the event and what it changed, not the whole match.
    pub minimal: bool,
}

/// The answer to a write: the status and the exact JSON body (replayed verbatim for a repeated
/// idempotency key).
pub struct WriteAnswer {
    /// 201 normally.
    pub status: StatusCode,
    /// JSON body.
    pub body: String,
    /// The match version after the write (for the ETag).
    pub seq: i64,
    /// Whether this answer is a replay of an earlier one.
    pub replayed: bool,
    /// Whether the body is the minimal answer (`Prefer: return=minimal`).
    pub minimal: bool,
}

pub(crate) fn internal(e: impl std::fmt::Display) -> ApiError {
    ApiError::internal(&e)
}

pub(crate) fn to_json<T: serde::Serialize>(v: &T) -> Result<String, ApiError> {
    serde_json::to_string(v).map_err(internal)
}

impl Entry {
    /// Rebuilds the entry from the stored match, tokens and log.
    fn build(
        row: MatchRow,
        tokens: Vec<(String, Option<i64>)>,
        events: Vec<EventRow>,
    ) -> Result<Entry, ApiError> {
        let players: Vec<String> = serde_json::from_str(&row.players).map_err(internal)?;
        let dealing = match row.dealing.as_str() {
            "service" => Dealing::Service,
            _ => Dealing::Table,
        };
        let config: Value = serde_json::from_str(&row.config).map_err(internal)?;
        let game =
            AnyGame::new(&row.game, Some(config), players.len(), dealing).map_err(internal)?;
        let updated_at = row.created_at.clone();
        let config_text = raw_json(&game.config_json());
        let (player_ids, tournament, seed_key) = match_extras(&row, players.len())?;
        let sheet = SheetMemo::of(&game);
        let mut entry = Entry {
            row,
            players,
            player_ids,
            tournament,
            seed_key,
            round_published: false,
            abandoned: false,
            dealing,
            tokens,
            game,
            seq: 0,
            updated_at,
            standing: vec![],
            retracted: HashMap::new(),
            config_text,
            sheet,
        };
        entry.absorb(events, true)?;
        Ok(entry)
    }

    /// Takes in events newer than `seq` (in order); replays from scratch when one is an undo or
    /// when `rebuild` is set.
    fn absorb(&mut self, events: Vec<EventRow>, mut rebuild: bool) -> Result<(), ApiError> {
        let before = self.seq;
        for e in events {
            if e.seq <= self.seq {
                continue;
            }
            match e.kind.as_str() {
                "undo" => {
                    if let Some(s) = self.standing.pop() {
                        self.retracted.insert(s.seq, e.seq);
                    }
                    rebuild = true;
                }
                ABANDON => self.abandoned = true,
                _ => {
                    let action: Value = serde_json::from_str(e.action.as_deref().unwrap_or("null"))
                        .map_err(internal)?;
                    let seed = match &e.seed {
                        Some(h) => {
                            Some(Seed::from_hex(h).ok_or_else(|| internal("bad stored seed"))?)
                        }
                        None => None,
                    };
                    let actor = Actor::from_seat(e.seat.map(|s| s as usize));
                    if !rebuild {
                        self.game
                            .apply(actor, &action, seed.as_ref())
                            .map_err(|err| {
                                internal(format!("stored event {} does not replay: {err}", e.seq))
                            })?;
                    }
                    self.standing.push(Standing {
                        seq: e.seq,
                        round: e.round as u32,
                        actor,
                        action,
                        seed,
                    });
                }
            }
            self.seq = e.seq;
            self.updated_at = e.created_at;
        }
        if rebuild {
            self.game = self.replay(self.standing.len())?;
        }
        if rebuild || self.seq != before {
            self.sheet = SheetMemo::of(&self.game);
        }
        Ok(())
    }

    /// The state after the first `n` standing actions.
    fn replay(&self, n: usize) -> Result<AnyGame, ApiError> {
        let config: Value = serde_json::from_str(&self.row.config).map_err(internal)?;
        let mut g = AnyGame::new(
            &self.row.game,
            Some(config),
            self.players.len(),
            self.dealing,
        )
        .map_err(internal)?;
        for s in &self.standing[..n] {
            g.apply(s.actor, &s.action, s.seed.as_ref())
                .map_err(|err| {
                    internal(format!("stored event {} does not replay: {err}", s.seq))
                })?;
        }
        Ok(g)
    }

    /// The role of a presented token: None for no token; 401 for one this match never issued.
    fn role(&self, token: Option<&str>) -> Result<Option<Role>, ApiError> {
        let Some(token) = token else { return Ok(None) };
        let hash = sha256_hex(token.as_bytes());
        match self.tokens.iter().find(|(h, _)| *h == hash) {
            Some((_, None)) => Ok(Some(Role::Host)),
            Some((_, Some(s))) => Ok(Some(Role::Seat(*s as usize))),
            None => Err(ApiError::unauthorized(
                "this token is not valid for this match",
            )),
        }
    }

    /// The status of `game`, a state of this match (abandoned: settled by hand, for good).
    fn status(&self, game: &AnyGame) -> MatchStatus {
        if self.abandoned {
            MatchStatus::Abandoned
        } else if game.is_finished() {
            MatchStatus::Finished
        } else {
            MatchStatus::InProgress
        }
    }

    fn view(&self, game: &AnyGame, seq: i64, updated_at: &str, role: Option<Role>) -> MatchView {
        let mut to_act = game.to_act();
        if self.abandoned {
            // Settled by hand: nobody is expected to act any more.
            to_act.seats.clear();
            to_act.table = false;
        }
        // Every game's seat model carries its `seat`.
        let you = match role {
            Some(Role::Seat(s)) => Some(game.seat_json(s)),
            _ => None,
        };
        MatchView {
            id: self.row.id.clone(),
            game: self.row.game.clone(),
            status: self.status(game),
            seq,
            created_at: self.row.created_at.clone(),
            updated_at: updated_at.to_string(),
            players: self.player_views(),
            config: self.config_text.clone(),
            dealing: self.dealing,
            round: game.round(),
            dealer: game.dealer(),
            to_act: to_act.seats,
            table_to_act: to_act.table,
            table: game.table_json(),
            you,
            scores: self.sheet.sheet_of(game),
            tournament: self.tournament.clone(),
            duplicate: self.seed_key.is_some(),
        }
    }

    fn player_views(&self) -> Vec<PlayerView> {
        self.players
            .iter()
            .zip(&self.player_ids)
            .enumerate()
            .map(|(seat, (name, player_id))| PlayerView {
                seat,
                name: name.clone(),
                player_id: player_id.clone(),
            })
            .collect()
    }

    /// How event `row` appears to `role`, judged by the current state.
    fn event_view(&self, row: &EventRow, role: Option<Role>) -> EventView {
        let index = self.standing.binary_search_by_key(&row.seq, |s| s.seq).ok();
        render_event(
            &self.game,
            row,
            index,
            self.retracted.get(&row.seq).copied(),
            role,
            self.seeds(),
        )
    }

    /// How this match's seeds are published.
    fn seeds(&self) -> Seeds {
        match self.seed_key {
            Some(_) => Seeds::Duplicate {
                published: self.round_published,
            },
            None => Seeds::Own,
        }
    }

    /// Takes in an event just recorded, with the state after it and, for an action, the action
    /// as parsed from the request (the same JSON as `row.action`, not read back from it).
    fn record(&mut self, game: AnyGame, row: EventRow, action: Option<&Value>) {
        if row.kind == "undo" || SheetMemo::key(&game) != self.sheet.key {
            self.sheet = SheetMemo::of(&game);
        }
        if row.kind == ABANDON {
            self.abandoned = true;
        } else if row.kind == "undo" {
            if let Some(s) = self.standing.pop() {
                self.retracted.insert(s.seq, row.seq);
            }
        } else {
            let action = match action {
                Some(a) => a.clone(),
                None => row
                    .action
                    .as_deref()
                    .and_then(|a| serde_json::from_str(a).ok())
                    .unwrap_or(Value::Null),
            };
            self.standing.push(Standing {
                seq: row.seq,
                round: row.round as u32,
                actor: Actor::from_seat(row.seat.map(|s| s as usize)),
                action,
                seed: row.seed.as_deref().and_then(Seed::from_hex),
            });
        }
        self.game = game;
        self.seq = row.seq;
        self.updated_at = row.created_at;
    }
}

/// The kind of the event that closes a match settled by hand (a tournament table whose result the
/// organiser entered instead of finishing the match).
const ABANDON: &str = "abandon";

/// How a match's service shuffle seeds are published.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seeds {
    /// An ordinary match: by its game's rule (`seeds_published_through`, `seed_withheld`).
    Own,
    /// Duplicate play: the same seeds deal the same cards at the round's other tables, which may
    /// still be playing them. Nothing is shown, not even a retracted deal's seed (the re-deal is
    /// the same board), until the tournament round is complete and publishes its secret; then
    /// every seed is shown (the secret derives them all), unless the game withholds its seeds
    /// for good (Members Only: the round's secret is never published either).
    Duplicate { published: bool },
}

/// How event `row` appears to `role`, given the state `game` it is judged by, the action's index
/// among the standing actions (None: an undo, or retracted) and the undo that retracted it.
fn render_event(
    game: &AnyGame,
    row: &EventRow,
    index: Option<usize>,
    retracted_by: Option<i64>,
    role: Option<Role>,
    seeds: Seeds,
) -> EventView {
    let viewer = match role {
        Some(Role::Seat(s)) => Some(s),
        _ => None,
    };
    let action = row
        .action
        .as_deref()
        .and_then(|a| serde_json::from_str::<Value>(a).ok())
        .map(|a| {
            let actor = Actor::from_seat(row.seat.map(|s| s as usize));
            match (retracted_by, index) {
                (Some(_), _) => game.render_retracted(&a, actor, viewer),
                (None, index) => game.render_action(index.unwrap_or(usize::MAX), &a, actor, viewer),
            }
        });
    let seed = row.seed.as_deref().and_then(Seed::from_hex);
    // A service seed is revealed once its round is over (with `seed_reveal: match_end`, once the
    // match is over), unless the game keeps some dealt card secret for ever (Members Only's
    // discards). A retracted deal is void: its seed re-derives cards that are no longer in play
    // (every action after it was retracted first), so it is revealed at once. Undo cannot reopen
    // a round whose seed is revealed (`prepare_undo`).
    // Duplicate play: see `Seeds::Duplicate`.
    let (withheld, reveal) = match (seeds, game.seed_withheld()) {
        (Seeds::Own, withheld) => (
            withheld,
            retracted_by.is_some()
                || (withheld.is_none() && row.round as u32 <= game.seeds_published_through()),
        ),
        (Seeds::Duplicate { .. }, Some(withheld)) => (Some(withheld), false),
        (Seeds::Duplicate { published: true }, None) => (None, true),
        (Seeds::Duplicate { published: false }, None) => (Some(DUPLICATE_WITHHELD), false),
    };
    EventView {
        seq: row.seq,
        kind: row.kind.clone(),
        seat: row.seat.map(|s| s as usize),
        action,
        retracts: row.retracts,
        retracted_by,
        round: row.round as u32,
        outcome: serde_json::from_str(&row.outcome).unwrap_or(Value::Array(vec![])),
        commitment: seed.map(|s| s.commitment()),
        seed: seed.filter(|_| reveal).map(|s| s.to_hex()),
        seed_withheld: seed.and(withheld).filter(|_| !reveal).map(String::from),
        created_at: row.created_at.clone(),
    }
}

/// Checks a name (the spec's `NewPlayer.name`: 1 to 64 code points, not blank).
pub(crate) fn check_name(name: &str, what: &str) -> Result<(), ApiError> {
    if name.chars().all(views::is_blank) || name.chars().count() > 64 {
        return Err(ApiError::bad_request(
            "invalid_player_name",
            format!("{what} must have 1 to 64 characters (not blank)"),
        ));
    }
    Ok(())
}

/// A new match's row and state (not yet stored): game and options checked, a fresh id.
pub(crate) fn new_match(
    game_id: &str,
    config: Option<Value>,
    seats: &[(String, Option<String>)],
    dealing: Dealing,
    tournament: Option<&TournamentLink>,
    seed_key: Option<&str>,
) -> Result<(MatchRow, AnyGame), ApiError> {
    let game = AnyGame::new(game_id, config, seats.len(), dealing)?;
    let players: Vec<&String> = seats.iter().map(|(n, _)| n).collect();
    let player_ids: Vec<&Option<String>> = seats.iter().map(|(_, p)| p).collect();
    let row = MatchRow {
        num: 0,
        id: new_id(),
        game: game.id().to_string(),
        players: to_json(&players)?,
        config: to_json(&game.config_json())?,
        dealing: match dealing {
            Dealing::Table => "table".into(),
            Dealing::Service => "service".into(),
        },
        status: MatchStatus::InProgress.as_str().into(),
        created_at: now(),
        player_ids: if player_ids.iter().any(|p| p.is_some()) {
            Some(to_json(&player_ids)?)
        } else {
            None
        },
        tournament: tournament.map(to_json).transpose()?,
        seed_key: seed_key.map(String::from),
    };
    Ok((row, game))
}

/// Why a duplicate-play match does not publish its seeds.
const DUPLICATE_WITHHELD: &str = "duplicate play: the same deal is in play at the round's other tables; the tournament round publishes its secret (seed of deal k = SHA-256 of \"<secret>:<k>\") once every table has finished";

/// The seed of deal `k` (from 1) of a duplicate-play round: SHA-256 of the text `<secret>:<k>`.
pub fn duplicate_seed(secret: &str, k: usize) -> Seed {
    Seed(Sha256::digest(format!("{secret}:{k}").as_bytes()).into())
}

/// A stored match's seat players, tournament table and duplicate secret.
#[allow(clippy::type_complexity)]
fn match_extras(
    row: &MatchRow,
    seats: usize,
) -> Result<(Vec<Option<String>>, Option<TournamentLink>, Option<String>), ApiError> {
    let player_ids = match &row.player_ids {
        Some(j) => serde_json::from_str(j).map_err(internal)?,
        None => vec![None; seats],
    };
    let tournament = match &row.tournament {
        Some(j) => Some(serde_json::from_str(j).map_err(internal)?),
        None => None,
    };
    Ok((player_ids, tournament, row.seed_key.clone()))
}

/// The canonical hash of a write request: who sent it (token hash), where, and the body.
pub fn request_hash(token: Option<&str>, path: &str, body: &Value) -> String {
    let who = token.map(|t| sha256_hex(t.as_bytes())).unwrap_or_default();
    sha256_hex(format!("{who}\n{path}\n{body}").as_bytes())
}

/// The match service.
pub struct Matches {
    store: Store,
    cache: Mutex<LruCache<String, Arc<AsyncMutex<Entry>>>>,
    /// SHA-256 of the operator's token, which lists every match.
    operator_hash: Option<String>,
    live: live::Hub,
}

impl Matches {
    /// A service over `store`.
    pub fn new(store: Store) -> Matches {
        Matches {
            store,
            cache: Mutex::new(LruCache::new(
                NonZeroUsize::new(CACHE_CAPACITY).expect("nonzero"),
            )),
            operator_hash: None,
            live: live::Hub::new(),
        }
    }

    /// The live fan-out: announcements of committed writes, for the streams.
    pub fn live(&self) -> &live::Hub {
        &self.live
    }

    /// The same service, with an operator token that lists every match (`None`: no operator).
    pub fn with_operator_token(mut self, token: Option<&str>) -> Matches {
        self.operator_hash = token
            .filter(|t| !t.trim().is_empty())
            .map(|t| sha256_hex(t.as_bytes()));
        self
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    fn cached(&self, id: &str) -> Option<Arc<AsyncMutex<Entry>>> {
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
    }

    /// The cache entry of match `id`, loading it on a miss (404 when there is no such match).
    async fn entry(&self, id: &str) -> Result<Arc<AsyncMutex<Entry>>, ApiError> {
        if let Some(e) = self.cached(id) {
            return Ok(e);
        }
        // Ids are 32 lowercase hex digits (`create`); anything else names no match and never
        // reaches the database (PostgreSQL refuses a NUL in text: that would be a 500).
        if !is_id(id) {
            return Err(ApiError::match_not_found(id));
        }
        let (row, tokens, events) = self
            .store
            .load_match(id)
            .await?
            .ok_or_else(|| ApiError::match_not_found(id))?;
        let entry = Arc::new(AsyncMutex::new(Entry::build(row, tokens, events)?));
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(existing) = cache.get(id) {
            return Ok(existing.clone());
        }
        cache.put(id.to_string(), entry.clone());
        Ok(entry)
    }

    /// Brings the entry up to the database's version (another instance may have written).
    async fn refresh(&self, e: &mut Entry) -> Result<(), ApiError> {
        let newer = self.store.events_after(&e.row.id, e.seq, i64::MAX).await?;
        if !newer.is_empty() {
            e.absorb(newer, false)?;
        }
        Ok(())
    }

    /// The entry locked and current: one cheap version query, events read only when behind.
    async fn fresh(&self, id: &str) -> Result<tokio::sync::OwnedMutexGuard<Entry>, ApiError> {
        let entry = self.entry(id).await?;
        let mut e = entry.lock_owned().await;
        if self.store.version(id).await? != e.seq {
            self.refresh(&mut e).await?;
        }
        Ok(e)
    }

    /// The seats' names and players: each name checked (1 to 64 characters, not blank), each
    /// player id looked up (422 `unknown_player`).
    pub(crate) async fn resolve_players(
        &self,
        players: &[views::NewPlayer],
    ) -> Result<Vec<(String, Option<String>)>, ApiError> {
        let ids: Vec<String> = players.iter().filter_map(|p| p.player_id.clone()).collect();
        for (i, id) in ids.iter().enumerate() {
            if ids[..i].contains(id) {
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "duplicate_player",
                    format!("player {id} is named at two seats"),
                ));
            }
        }
        let known = if ids.iter().all(|id| is_id(id)) {
            self.store.players(&ids).await?
        } else {
            vec![]
        };
        let mut out = Vec::with_capacity(players.len());
        for (i, p) in players.iter().enumerate() {
            if let Some(id) = &p.player_id {
                if !known.iter().any(|k| &k.id == id) {
                    return Err(ApiError::new(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "unknown_player",
                        format!("player {i}'s player_id names no player (POST /v1/players registers one)"),
                    ));
                }
            }
            let name = p.name.clone();
            check_name(&name, &format!("player {i}'s name"))?;
            out.push((name, p.player_id.clone()));
        }
        Ok(out)
    }

    /// Creates a match.
    pub async fn create(&self, req: CreateMatch) -> Result<Created, ApiError> {
        if req.players.len() > 16 {
            return Err(ApiError::bad_request(
                "too_many_players",
                "at most 16 players",
            ));
        }
        let seats = self.resolve_players(&req.players).await?;
        let dealing = req.dealing.unwrap_or_default();
        let (row, game) = new_match(
            &req.game,
            req.config.map(Value::Object),
            &seats,
            dealing,
            None,
            None,
        )?;
        let id = row.id.clone();
        let created_at = row.created_at.clone();
        let players: Vec<String> = seats.iter().map(|(n, _)| n.clone()).collect();
        let host_token = new_token();
        let seat_tokens: Vec<String> = players.iter().map(|_| new_token()).collect();
        let mut hashes = vec![(sha256_hex(host_token.as_bytes()), None)];
        hashes.extend(
            seat_tokens
                .iter()
                .enumerate()
                .map(|(s, t)| (sha256_hex(t.as_bytes()), Some(s as i64))),
        );
        if let Err(err) = self.store.insert_match(&row, &hashes).await {
            // A storage fault may have struck after the commit reached the database: the id is
            // fresh and random, so the match exists only if this creation was recorded.
            let recorded = err.is_fault() && self.store.match_exists(&id).await.unwrap_or(false);
            if !recorded {
                return Err(match err {
                    StoreError::OutcomeUnknown(_) => {
                        tracing::error!(error = %err, "match creation: outcome unknown");
                        ApiError::storage_unavailable(
                            "the database became unreachable while the match was being created: \
                             it may or may not exist. If it does, its tokens were never given to \
                             anyone and nobody can use it: create the match again once the \
                             database is back",
                        )
                    }
                    other => other.into(),
                });
            }
            tracing::warn!(error = %err, match_id = %id, "the creation's commit reported an error but the match is recorded");
        }
        let (player_ids, tournament, seed_key) = match_extras(&row, players.len())?;
        let entry = Entry {
            row,
            players,
            player_ids,
            tournament,
            seed_key,
            round_published: false,
            abandoned: false,
            dealing,
            tokens: hashes,
            config_text: raw_json(&game.config_json()),
            sheet: SheetMemo::of(&game),
            game,
            seq: 0,
            updated_at: created_at.clone(),
            standing: vec![],
            retracted: HashMap::new(),
        };
        let view = entry.view(&entry.game, 0, &created_at, Some(Role::Host));
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .put(id, Arc::new(AsyncMutex::new(entry)));
        Ok(Created {
            match_: view,
            host_token,
            seat_tokens,
        })
    }

    /// Whether the tournament round of duplicate match `e` is complete (its secret published),
    /// asked of the store while it is not known to be: it can be only once this match is over,
    /// and once it is, it stays so (see `prepare_undo`).
    async fn round_published(&self, e: &mut Entry) -> Result<bool, ApiError> {
        if e.seed_key.is_none() || e.round_published {
            return Ok(e.round_published);
        }
        let over = e.abandoned || e.game.is_finished();
        if let (true, Some(t)) = (over, &e.tournament) {
            e.round_published = self.store.round_complete(&t.id, t.round).await?;
        }
        Ok(e.round_published)
    }

    /// The role of `token` at the match, refusing a reader without one while the match is a
    /// duplicate table whose round is still being played: its log, view and score sheet show
    /// cards and results of the boards the round's other tables still play. Its own table's
    /// tokens (host and seats) read it as any match.
    async fn reader(&self, e: &mut Entry, token: Option<&str>) -> Result<Option<Role>, ApiError> {
        let role = e.role(token)?;
        if role.is_none() && e.seed_key.is_some() && !self.round_published(e).await? {
            let (t, r) = e
                .tournament
                .as_ref()
                .map_or((String::new(), 0), |t| (t.id.clone(), t.round));
            return Err(ApiError::forbidden(
                "round_in_play",
                format!(
                    "this match is a duplicate table of tournament {t}, round {r}: the round's other tables are playing the same boards, so until every table has finished only this table's own tokens may read it"
                ),
            ));
        }
        Ok(role)
    }

    /// The match view for the bearer of `token` (public without one).
    pub async fn view(&self, id: &str, token: Option<&str>) -> Result<MatchView, ApiError> {
        let mut e = self.fresh(id).await?;
        let role = self.reader(&mut e, token).await?;
        Ok(e.view(&e.game, e.seq, &e.updated_at, role))
    }

    /// The score sheet and the version.
    pub async fn scores(
        &self,
        id: &str,
        token: Option<&str>,
    ) -> Result<(ScoreSheet, i64), ApiError> {
        let mut e = self.fresh(id).await?;
        self.reader(&mut e, token).await?;
        Ok((e.game.score_sheet(), e.seq))
    }

    /// What `seat` (or the table) may do now. In service dealing a seat's list reveals its hand,
    /// so it takes that seat's token (or the host's).
    pub async fn legal(
        &self,
        id: &str,
        token: Option<&str>,
        seat: Option<usize>,
    ) -> Result<(Legal, i64), ApiError> {
        let mut e = self.fresh(id).await?;
        let role = self.reader(&mut e, token).await?;
        if let Some(s) = seat {
            if s >= e.players.len() {
                // 422 as for an action naming that seat: the seat is well-formed (0 to 15, the
                // spec's range), this match just has fewer.
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "no_such_seat",
                    format!("this match has seats 0 to {}", e.players.len() - 1),
                ));
            }
            // In service dealing a seat's legal list shows its hand (its own token only); in By
            // Hook or Crook it can show the seat's sealed choices (its own token or the host's).
            let private = e.dealing == Dealing::Service || e.row.game == "by-hook-or-crook";
            let allowed = role == Some(Role::Seat(s))
                || (e.dealing == Dealing::Table && role == Some(Role::Host));
            if private && !allowed {
                return Err(match role {
                    None => ApiError::unauthorized("a seat's legal actions show its private state here: send that seat's token"),
                    Some(_) => ApiError::forbidden("hand_is_private", format!("only seat {s}'s token may see its legal actions")),
                });
            }
        }
        // An abandoned match records nothing more.
        let actions = if e.abandoned {
            vec![]
        } else {
            e.game.legal_actions(Actor::from_seat(seat))
        };
        Ok((Legal { seat, actions }, e.seq))
    }

    /// A page of the log as `token`'s bearer may see it.
    pub async fn events(
        &self,
        id: &str,
        token: Option<&str>,
        after: i64,
        limit: i64,
    ) -> Result<EventPage, ApiError> {
        let mut e = self.fresh(id).await?;
        let role = self.reader(&mut e, token).await?;
        // Its own table's tokens see the seeds once the round publishes its secret.
        self.round_published(&mut e).await?;
        let rows = self.store.events_after(id, after, limit).await?;
        let events: Vec<EventView> = rows
            .iter()
            .filter(|r| r.seq <= e.seq)
            .map(|r| e.event_view(r, role))
            .collect();
        let next_after = events.last().map(|ev| ev.seq).filter(|&s| s < e.seq);
        Ok(EventPage { events, next_after })
    }

    /// Matches, newest first, as `token`'s bearer may list them: the operator's token lists every
    /// match, a match's token (host or seat) that match alone. Without a token, 401: the list
    /// would give away who plays where, and ids that let anyone read a match.
    pub async fn list(
        &self,
        token: Option<&str>,
        game: Option<&str>,
        status: Option<MatchStatus>,
        cursor: Option<&str>,
        limit: i64,
    ) -> Result<MatchPage, ApiError> {
        let cursor = match cursor {
            // 1 to 18 digits, the spec's pattern (`parse` alone would take `-5` and `+5` too).
            Some(c) if (1..=18).contains(&c.len()) && c.bytes().all(|b| b.is_ascii_digit()) => {
                Some(c.parse::<i64>().expect("18 digits fit an i64"))
            }
            Some(_) => {
                return Err(ApiError::bad_request(
                    "invalid_cursor",
                    "cursor must be a next_cursor from an earlier page",
                ))
            }
            None => None,
        };
        let Some(token) = token else {
            return Err(ApiError::unauthorized(
                "listing matches needs a token: a match's host or seat token lists that match, the operator's token (CLUBROOM_OPERATOR_TOKEN) every match",
            ));
        };
        let hash = sha256_hex(token.as_bytes());
        let holder = if self.operator_hash.as_deref() == Some(hash.as_str()) {
            None
        } else if self.store.token_exists(&hash).await? {
            Some(hash.as_str())
        } else {
            return Err(ApiError::unauthorized(
                "this token belongs to no match and is not the operator's",
            ));
        };
        if game.is_some_and(|g| g.contains('\0')) {
            // No game id holds a NUL, and PostgreSQL refuses one in text (a 500): nothing matches.
            return Ok(MatchPage {
                matches: vec![],
                next_cursor: None,
            });
        }
        let rows = self
            .store
            .list_matches(holder, game, status.map(|s| s.as_str()), cursor, limit + 1)
            .await?;
        let more = rows.len() as i64 > limit;
        let mut matches = Vec::new();
        for r in rows.iter().take(limit as usize) {
            let names: Vec<String> = serde_json::from_str(&r.row.players).map_err(internal)?;
            let (player_ids, _, _) = match_extras(&r.row, names.len())?;
            matches.push(MatchSummary {
                id: r.row.id.clone(),
                game: r.row.game.clone(),
                status: match r.row.status.as_str() {
                    "finished" => MatchStatus::Finished,
                    "abandoned" => MatchStatus::Abandoned,
                    _ => MatchStatus::InProgress,
                },
                seq: r.seq,
                players: names
                    .into_iter()
                    .zip(player_ids)
                    .enumerate()
                    .map(|(seat, (name, player_id))| PlayerView {
                        seat,
                        name,
                        player_id,
                    })
                    .collect(),
                dealing: if r.row.dealing == "service" {
                    Dealing::Service
                } else {
                    Dealing::Table
                },
                created_at: r.row.created_at.clone(),
                updated_at: r.updated_at.clone(),
            });
        }
        let next_cursor = if more {
            rows.get(limit as usize - 1).map(|r| r.row.num.to_string())
        } else {
            None
        };
        Ok(MatchPage {
            matches,
            next_cursor,
        })
    }

    /// Records one action.
    pub async fn act(
        &self,
        id: &str,
        req: ActionRequest,
        meta: WriteMeta<'_>,
    ) -> Result<WriteAnswer, ApiError> {
        self.write(id, WriteOp::Act(req), meta, "actions").await
    }

    /// Retracts the last standing action (host only).
    pub async fn undo(&self, id: &str, meta: WriteMeta<'_>) -> Result<WriteAnswer, ApiError> {
        self.write(id, WriteOp::Undo, meta, "undo").await
    }

    async fn replay_answer(
        &self,
        id: &str,
        key: &str,
        hash: &str,
    ) -> Result<Option<WriteAnswer>, ApiError> {
        match self.store.idempotent_answer(id, key).await? {
            None => Ok(None),
            Some(a) if a.request_hash == hash => {
                let v = serde_json::from_str::<Value>(&a.body).unwrap_or_default();
                let minimal = v.get("match").is_none();
                let seq = v["match"]["seq"]
                    .as_i64()
                    .or_else(|| v["seq"].as_i64())
                    .unwrap_or(0);
                Ok(Some(WriteAnswer {
                    status: StatusCode::from_u16(a.status).unwrap_or(StatusCode::CREATED),
                    body: a.body,
                    seq,
                    replayed: true,
                    minimal,
                }))
            }
            Some(_) => Err(ApiError::new(
                StatusCode::CONFLICT,
                "idempotency_key_reused",
                "this Idempotency-Key was already used for a different request on this match",
            )),
        }
    }

    /// After a storage fault on an append: whether `row` is recorded after all (`Some(true)`),
    /// is not (`Some(false)`: its seq is free or holds another event), or cannot be known now.
    async fn recorded_after_fault(&self, row: &EventRow) -> Option<bool> {
        match self.store.event_at(&row.match_id, row.seq).await {
            Ok(Some(stored)) => Some(
                stored.kind == row.kind
                    && stored.seat == row.seat
                    && stored.action == row.action
                    && stored.seed == row.seed
                    && stored.retracts == row.retracts
                    && stored.created_at == row.created_at
                    && stored.idem_key == row.idem_key
                    && stored.request_hash == row.request_hash,
            ),
            Ok(None) => Some(false),
            Err(check) => {
                tracing::warn!(error = %check, "cannot check whether a failed append was recorded");
                None
            }
        }
    }

    async fn write(
        &self,
        id: &str,
        op: WriteOp,
        meta: WriteMeta<'_>,
        path: &str,
    ) -> Result<WriteAnswer, ApiError> {
        let entry = self.entry(id).await?;
        let mut e = entry.lock().await;
        let role = e.role(meta.token)?.ok_or_else(|| {
            ApiError::unauthorized("recording needs a token: Authorization: Bearer <token>")
        })?;
        // The request's hash matters only to an idempotent retry: without a key it is not made.
        let keyed = meta.idempotency_key.as_ref().map(|key| {
            let hash = request_hash(meta.token, &format!("/v1/matches/{id}/{path}"), meta.body);
            (key, hash)
        });
        if let Some((key, hash)) = &keyed {
            if let Some(answer) = self.replay_answer(id, key, hash).await? {
                return Ok(answer);
            }
        }
        match &op {
            WriteOp::Act(req) => check_action(&e, role, req)?,
            WriteOp::Undo | WriteOp::Abandon if role != Role::Host => {
                return Err(ApiError::forbidden(
                    "host_only",
                    "only the host token may undo",
                ))
            }
            WriteOp::Undo | WriteOp::Abandon => {}
        }
        check_open(&e)?;
        let mut refreshed = false;
        for _ in 0..MAX_ATTEMPTS {
            if let Some(v) = meta.if_match {
                if v != e.seq && !refreshed {
                    self.refresh(&mut e).await?;
                    refreshed = true;
                }
                if v != e.seq {
                    return Err(ApiError::new(
                        StatusCode::PRECONDITION_FAILED,
                        "stale_version",
                        format!(
                            "If-Match names version {v} but the match is at version {}",
                            e.seq
                        ),
                    ));
                }
            }
            let prepared = match &op {
                WriteOp::Act(req) => prepare_action(&e, role, req),
                WriteOp::Undo => prepare_undo(&e, role),
                WriteOp::Abandon => prepare_abandon(&e),
            };
            let (next, mut row) = match prepared {
                Ok(p) => p,
                // A refusal judged on a state another instance has moved past is re-judged.
                Err(err) if err.status == StatusCode::UNPROCESSABLE_ENTITY && !refreshed => {
                    refreshed = true;
                    if self.store.version(id).await? != e.seq {
                        self.refresh(&mut e).await?;
                        continue;
                    }
                    return Err(err);
                }
                Err(err) => return Err(err),
            };
            row.seq = e.seq + 1;
            row.match_id = id.to_string();
            row.created_at = now();
            row.round = i64::from(next.round());
            // Render the answer as it will stand once recorded.
            let index = (row.kind == "action").then_some(e.standing.len());
            let event = render_event(&next, &row, index, None, Some(role), e.seeds());
            let next_status = match op {
                WriteOp::Abandon => MatchStatus::Abandoned,
                _ => e.status(&next),
            };
            let body = if meta.minimal {
                let to_act = next.to_act();
                to_json(&RecordedMinimal {
                    event,
                    seq: row.seq,
                    status: next_status,
                    round: next.round(),
                    to_act: to_act.seats,
                    table_to_act: to_act.table,
                })?
            } else {
                to_json(&Recorded {
                    event,
                    match_: e.view(&next, row.seq, &row.created_at, Some(role)),
                })?
            };
            if let Some((key, hash)) = &keyed {
                row.idem_key = Some((*key).clone());
                row.request_hash = Some(hash.clone());
                row.response_status = Some(201);
                row.response = Some(body.clone());
            }
            let status_change = (next_status != e.status(&e.game)).then(|| next_status.as_str());
            let sent_action = match &op {
                WriteOp::Act(req) => Some(&req.action),
                WriteOp::Undo | WriteOp::Abandon => None,
            };
            match self.store.append(&row, status_change).await {
                Ok(()) => {
                    e.record(next, row, sent_action);
                    self.live.published(id, e.seq);
                    return Ok(WriteAnswer {
                        status: StatusCode::CREATED,
                        body,
                        seq: e.seq,
                        replayed: false,
                        minimal: meta.minimal,
                    });
                }
                Err(StoreError::Conflict) => {
                    if let Some((key, hash)) = &keyed {
                        if let Some(answer) = self.replay_answer(id, key, hash).await? {
                            return Ok(answer);
                        }
                    }
                    self.refresh(&mut e).await?;
                    refreshed = true;
                }
                Err(err) if err.is_fault() => {
                    // The commit failed, but a lost connection (or a failed fsync) can strike
                    // after the database recorded it: read the seq back before answering. After
                    // a lost connection the server may still be finishing the statement: wait a
                    // moment first, and even then absence is not proof (see below).
                    let unknown = matches!(err, StoreError::OutcomeUnknown(_));
                    if unknown {
                        tokio::time::sleep(OUTCOME_CHECK_DELAY).await;
                    }
                    match self.recorded_after_fault(&row).await {
                        Some(true) => {
                            tracing::warn!(error = %err, match_id = %id, seq = row.seq, "the append's commit reported an error but the event is recorded");
                            e.record(next, row, sent_action);
                            return Ok(WriteAnswer {
                                status: StatusCode::CREATED,
                                body,
                                seq: e.seq,
                                replayed: false,
                                minimal: meta.minimal,
                            });
                        }
                        // Not there: certain for a commit the database refused (nothing was
                        // recorded); after a lost connection still unknown.
                        Some(false) | None => return Err(err.into()),
                    }
                }
                Err(other) => return Err(other.into()),
            }
        }
        Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy",
            "too many concurrent writers on this match; try again",
        ))
    }
}

/// The refusals of an action that do not depend on the match's version: a seat the match does
/// not have, a token that may not act for the seat, an action outside the game's vocabulary. They
/// are judged before `If-Match`: a request that fails anyway is not judged on its precondition
/// (RFC 9110, 13.2.1), so a malformed request is 400 even when its `If-Match` is stale.
fn check_action(e: &Entry, role: Role, req: &ActionRequest) -> Result<(), ApiError> {
    let players = e.players.len();
    match (req.seat, role) {
        (Some(s), _) if s >= players => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "no_such_seat",
                format!("this match has seats 0 to {}", players - 1),
            ))
        }
        (None, Role::Seat(_)) => {
            return Err(ApiError::forbidden(
                "host_only",
                "table actions (seat: null) need the host token",
            ))
        }
        (Some(s), Role::Seat(t)) if s != t => {
            return Err(ApiError::forbidden(
                "not_your_seat",
                format!("this token acts for seat {t} only, not seat {s}"),
            ))
        }
        _ => {}
    }
    e.game
        .needs_seed(&req.action)
        .map(|_| ())
        .map_err(|err| action_error(&e.game, &req.action, err))
}

/// Checks and applies an action on a copy of the state; the event row to record.
fn prepare_action(
    e: &Entry,
    role: Role,
    req: &ActionRequest,
) -> Result<(AnyGame, EventRow), ApiError> {
    check_open(e)?;
    check_action(e, role, req)?;
    let actor = Actor::from_seat(req.seat);
    let seed = if e
        .game
        .needs_seed(&req.action)
        .map_err(|err| action_error(&e.game, &req.action, err))?
    {
        Some(match &e.seed_key {
            // Duplicate play: deal k of every table of the round gets the same seed (a retracted
            // deal dealt again is the same board).
            Some(secret) => duplicate_seed(
                secret,
                e.standing.iter().filter(|s| s.seed.is_some()).count() + 1,
            ),
            None => Seed(rand::random()),
        })
    } else {
        None
    };
    let mut next = e.game.clone();
    match next.apply(actor, &req.action, seed.as_ref()) {
        Ok(outcome) => Ok((
            next,
            EventRow {
                kind: "action".into(),
                seat: req.seat.map(|s| s as i64),
                action: Some(to_json(&req.action)?),
                seed: seed.map(|s| s.to_hex()),
                outcome: to_json(&outcome)?,
                ..EventRow::default()
            },
        )),
        Err(err) => {
            // Who may see the acting seat's private state in a refusal: its own token; in table
            // dealing anyone who may act for it (the service holds no hidden hand there, and the
            // host may see a seat's legal list, as `legal` shows it). In service dealing the host
            // acting for a seat gets no legal list, and a refusal decided by the seat's hidden
            // hand (or sealed choice) is the one `not_playable` answer, whichever card or rule
            // refused it (`Rejection::told`; the engines judge public facts first).
            let own = matches!((role, req.seat), (Role::Seat(t), Some(s)) if t == s);
            let privileged = own || e.dealing == Dealing::Table;
            let mut api = action_error(&e.game, &req.action, err.clone());
            if let ActionError::Illegal(r) = &err {
                (api.code, api.detail) = r.told(req.seat, privileged);
                api.legal = privileged.then(|| e.game.legal_actions(actor));
            }
            Err(api)
        }
    }
}

/// The answer to a refused action. An action that fits no game's vocabulary is malformed (400
/// `invalid_action`); one that fits another game's is well-formed by the spec, whose action schema
/// is the union of every game's, so it is refused like a rule (422 `action_not_in_game`).
fn action_error(game: &AnyGame, action: &Value, err: ActionError) -> ApiError {
    match err {
        ActionError::Malformed(m) if AnyGame::in_some_vocabulary(action) => ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "action_not_in_game",
            format!(
                "this action belongs to another game; GET /v1/games and the spec's GameAction list {}'s actions ({m})",
                game.id()
            ),
        ),
        other => other.into(),
    }
}

/// The round of a published seed that retracting the last standing action would bring back into
/// play (`next` is the state without it): a seed is published once its round is over (see
/// [`render_event`]), so undo may not go back across it. Nothing is published in table dealing,
/// nor in a game that withholds its seeds, and undo stays open there.
fn closed_by_published_seed(e: &Entry, next: &AnyGame) -> Option<u32> {
    if e.game.seed_withheld().is_some() || e.seed_key.is_some() {
        return None;
    }
    let (now, after) = (
        e.game.seeds_published_through(),
        next.seeds_published_through(),
    );
    e.standing
        .iter()
        .filter(|s| s.seed.is_some())
        .map(|s| s.round)
        .find(|&r| r <= now && r > after)
}

/// The earlier sealed choices that the last standing action revealed to everyone: rendered in
/// clear to the public now, sealed again in `next` (the state without that action).
fn revealed_by_last(e: &Entry, next: &AnyGame) -> Vec<i64> {
    let earlier = &e.standing[..e.standing.len().saturating_sub(1)];
    earlier
        .iter()
        .enumerate()
        .filter(|(i, s)| {
            let after = next.render_action(*i, &s.action, s.actor, None);
            after.get("sealed") == Some(&Value::Bool(true))
                && e.game.render_action(*i, &s.action, s.actor, None) != after
        })
        .map(|(_, s)| s.seq)
        .collect()
}

/// Checks an undo; the state without the last standing action and the event row to record.
fn prepare_undo(e: &Entry, role: Role) -> Result<(AnyGame, EventRow), ApiError> {
    if role != Role::Host {
        return Err(ApiError::forbidden(
            "host_only",
            "only the host token may undo",
        ));
    }
    check_open(e)?;
    let Some(last) = e.standing.last() else {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "nothing_to_undo",
            "no standing action is left to retract",
        ));
    };
    // A finished duplicate table's result may be the one that completes its round, and the
    // complete round publishes its secret, which derives every board the round's tables played:
    // the match may never be reopened (an ordinary service-dealt match cannot be either: its
    // last round's seed is out once it ends). So a round's completeness, once reached, stays.
    if e.seed_key.is_some() && e.game.is_finished() {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "round_closed",
            format!(
                "this duplicate table's match is finished: its result counts towards its tournament round, whose secret (it derives every board of the round) is published once every table has finished, so undo may not retract seq {} and reopen the match",
                last.seq
            ),
        ));
    }
    let next = e.replay(e.standing.len() - 1)?;
    if let Some(closed) = closed_by_published_seed(e, &next) {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "round_closed",
            format!(
                "round {closed} is closed: its shuffle seed is published and re-derives every card dealt for it, so undo may not retract seq {} (round {}), which would reopen round {closed} with every hand known to all",
                last.seq, last.round
            ),
        ));
    }
    // The choice that completed a set of sealed choices (By Hook or Crook's locations, action
    // cards and exhibits, Members Only's finals) revealed the others to everyone. Undoing it would
    // seal them again in the view, though all have seen them, and let the retracted seat choose
    // again knowing them: refused, as `round_closed` refuses to reopen a round whose cards are
    // known.
    let revealed = revealed_by_last(e, &next);
    if !revealed.is_empty() {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "choices_revealed",
            format!(
                "undo may not retract seq {}: it completed a set of sealed choices and revealed the others (seq {}) to everyone; retracting it would let its seat choose again knowing them",
                last.seq,
                revealed.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    let outcome = serde_json::json!([views::UndoOutcome::Retracted { seq: last.seq }]);
    Ok((
        next,
        EventRow {
            kind: "undo".into(),
            retracts: Some(last.seq),
            outcome: outcome.to_string(),
            ..EventRow::default()
        },
    ))
}

/// Refuses any write to a match settled by hand (409 `match_abandoned`).
fn check_open(e: &Entry) -> Result<(), ApiError> {
    if e.abandoned {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "match_abandoned",
            "this match was abandoned: its tournament's organiser entered the table's result by hand, so nothing more can be recorded here",
        ));
    }
    Ok(())
}

/// Checks an abandonment: only a match still being played is abandoned; a finished one's score
/// sheet is its result (409 `match_finished`).
fn prepare_abandon(e: &Entry) -> Result<(AnyGame, EventRow), ApiError> {
    check_open(e)?;
    if e.game.is_finished() {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "match_finished",
            "this match is finished: its score sheet is its result and it cannot be abandoned",
        ));
    }
    Ok((
        e.game.clone(),
        EventRow {
            kind: ABANDON.into(),
            outcome: "[]".into(),
            ..EventRow::default()
        },
    ))
}

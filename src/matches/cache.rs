//! The cache of matches: each entry is a match's fixed facts and its state at a version, rebuilt
//! from the log on a miss and brought up to the database's version before it is trusted (another
//! instance may have written); the least recently used are dropped first.

use std::{collections::HashMap, sync::Arc};

use serde_json::{value::RawValue, Value};
use tokio::sync::Mutex as AsyncMutex;

use super::{views::TournamentLink, MatchError, Matches, Role};
use crate::{
    ids::{is_id, sha256_hex},
    rules::{raw_json, Actor, AnyGame, Dealing, Seed},
    store::{EventRow, MatchRow},
};

/// How many matches the cache keeps (least recently used are dropped first).
pub(super) const CACHE_CAPACITY: usize = 2048;

/// A standing (not retracted) action.
#[derive(Clone, Debug)]
pub(super) struct Standing {
    pub(super) seq: i64,
    /// The round the event belongs to (the engine's round after it).
    pub(super) round: u32,
    pub(super) actor: Actor,
    pub(super) action: Value,
    pub(super) seed: Option<Seed>,
}

/// One match as the cache holds it: its fixed facts and its state at version `seq`.
pub(super) struct Entry {
    pub(super) row: MatchRow,
    pub(super) players: Vec<String>,
    /// The registered player of each seat (None: a name only).
    pub(super) player_ids: Vec<Option<String>>,
    /// The tournament table the match is played at.
    pub(super) tournament: Option<TournamentLink>,
    /// Duplicate play: the round secret the deals' seeds derive from.
    pub(super) seed_key: Option<String>,
    /// Duplicate play: the round is complete, so its secret is published (every table has its
    /// result; a finished duplicate match cannot be reopened, so once true it stays true).
    pub(super) round_published: bool,
    /// The tournament's organiser settled the table by hand: nothing more is recorded.
    pub(super) abandoned: bool,
    pub(super) dealing: Dealing,
    pub(super) tokens: Vec<(String, Option<i64>)>,
    pub(super) game: AnyGame,
    pub(super) seq: i64,
    pub(super) updated_at: String,
    pub(super) standing: Vec<Standing>,
    pub(super) retracted: HashMap<i64, i64>,
    /// The options in force as JSON text: fixed for the match's life, written once.
    pub(super) config_text: Box<RawValue>,
    /// The score sheet of `game` as JSON text, written when it changes, not on every answer.
    pub(super) sheet: SheetMemo,
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
pub(super) struct SheetMemo {
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
    pub(super) fn sheet_of(&self, game: &AnyGame) -> Box<RawValue> {
        if SheetMemo::key(game) == self.key {
            self.text.clone()
        } else {
            raw_json(&game.score_sheet())
        }
    }
}

impl Entry {
    /// The entry of a match at version 0 (before any event): its row, seat names, dealing,
    /// token hashes and new game.
    pub(super) fn new(
        row: MatchRow,
        players: Vec<String>,
        dealing: Dealing,
        tokens: Vec<(String, Option<i64>)>,
        game: AnyGame,
    ) -> Result<Entry, MatchError> {
        let (player_ids, tournament, seed_key) = match_extras(&row, players.len())?;
        Ok(Entry {
            updated_at: row.created_at.clone(),
            row,
            players,
            player_ids,
            tournament,
            seed_key,
            round_published: false,
            abandoned: false,
            dealing,
            tokens,
            config_text: raw_json(&game.config_json()),
            sheet: SheetMemo::of(&game),
            game,
            seq: 0,
            standing: vec![],
            retracted: HashMap::new(),
        })
    }

    /// Rebuilds the entry from the stored match, tokens and log.
    fn build(
        row: MatchRow,
        tokens: Vec<(String, Option<i64>)>,
        events: Vec<EventRow>,
    ) -> Result<Entry, MatchError> {
        let players: Vec<String> =
            serde_json::from_str(&row.players).map_err(MatchError::internal)?;
        let dealing = match row.dealing.as_str() {
            "service" => Dealing::Service,
            _ => Dealing::Table,
        };
        let config: Value = serde_json::from_str(&row.config).map_err(MatchError::internal)?;
        let game = AnyGame::new(&row.game, Some(config), players.len(), dealing)
            .map_err(MatchError::internal)?;
        let mut entry = Entry::new(row, players, dealing, tokens, game)?;
        entry.absorb(events, true)?;
        Ok(entry)
    }

    /// Takes in events newer than `seq` (in order); replays from scratch when one is an undo or
    /// when `rebuild` is set.
    fn absorb(&mut self, events: Vec<EventRow>, mut rebuild: bool) -> Result<(), MatchError> {
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
                        .map_err(MatchError::internal)?;
                    let seed = match &e.seed {
                        Some(h) => Some(
                            Seed::from_hex(h)
                                .ok_or_else(|| MatchError::internal("bad stored seed"))?,
                        ),
                        None => None,
                    };
                    let actor = Actor::from_seat(e.seat.map(|s| s as usize));
                    if !rebuild {
                        self.game
                            .apply(actor, &action, seed.as_ref())
                            .map_err(|err| {
                                MatchError::internal(format!(
                                    "stored event {} does not replay: {err}",
                                    e.seq
                                ))
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
    pub(super) fn replay(&self, n: usize) -> Result<AnyGame, MatchError> {
        let config: Value = serde_json::from_str(&self.row.config).map_err(MatchError::internal)?;
        let mut g = AnyGame::new(
            &self.row.game,
            Some(config),
            self.players.len(),
            self.dealing,
        )
        .map_err(MatchError::internal)?;
        for s in &self.standing[..n] {
            g.apply(s.actor, &s.action, s.seed.as_ref())
                .map_err(|err| {
                    MatchError::internal(format!("stored event {} does not replay: {err}", s.seq))
                })?;
        }
        Ok(g)
    }

    /// The role of a presented token: None for no token; 401 for one this match never issued.
    pub(super) fn role(&self, token: Option<&str>) -> Result<Option<Role>, MatchError> {
        let Some(token) = token else { return Ok(None) };
        self.role_of_hash(&sha256_hex(token.as_bytes()))
    }

    /// The role of the token whose hash is `hash`, as this entry knows the tokens.
    fn role_of_hash(&self, hash: &str) -> Result<Option<Role>, MatchError> {
        match self.tokens.iter().find(|(h, _)| *h == hash) {
            Some((_, None)) => Ok(Some(Role::Host)),
            Some((_, Some(s))) => Ok(Some(Role::Seat(*s as usize))),
            None => Err(MatchError::InvalidToken),
        }
    }

    /// Takes in an event just recorded, with the state after it and, for an action, the action
    /// as parsed from the request (the same JSON as `row.action`, not read back from it).
    pub(super) fn record(&mut self, game: AnyGame, row: EventRow, action: Option<&Value>) {
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
pub(super) const ABANDON: &str = "abandon";

/// A stored match's seat players, tournament table and duplicate secret.
#[allow(clippy::type_complexity)]
pub(super) fn match_extras(
    row: &MatchRow,
    seats: usize,
) -> Result<(Vec<Option<String>>, Option<TournamentLink>, Option<String>), MatchError> {
    let player_ids = match &row.player_ids {
        Some(j) => serde_json::from_str(j).map_err(MatchError::internal)?,
        None => vec![None; seats],
    };
    let tournament = match &row.tournament {
        Some(j) => Some(serde_json::from_str(j).map_err(MatchError::internal)?),
        None => None,
    };
    Ok((player_ids, tournament, row.seed_key.clone()))
}

impl Matches {
    fn cached(&self, id: &str) -> Option<Arc<AsyncMutex<Entry>>> {
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
    }

    /// The cache entry of match `id`, loading it on a miss (404 when there is no such match).
    pub(super) async fn entry(&self, id: &str) -> Result<Arc<AsyncMutex<Entry>>, MatchError> {
        if let Some(e) = self.cached(id) {
            return Ok(e);
        }
        // Ids are 32 lowercase hex digits (`create`); anything else names no match and never
        // reaches the database (PostgreSQL refuses a NUL in text: that would be a 500).
        if !is_id(id) {
            return Err(MatchError::NotFound(id.to_string()));
        }
        let (row, tokens, events) = self
            .store
            .load_match(id)
            .await?
            .ok_or_else(|| MatchError::NotFound(id.to_string()))?;
        let entry = Arc::new(AsyncMutex::new(Entry::build(row, tokens, events)?));
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(existing) = cache.get(id) {
            return Ok(existing.clone());
        }
        cache.put(id.to_string(), entry.clone());
        Ok(entry)
    }

    /// The role of a presented token as the database holds it now: a token rotated away by
    /// another instance is 401 here at once, and one it issued is known here (the entry's copy
    /// is brought in line). One primary-key lookup per request that carries a token.
    pub(super) async fn checked_role(
        &self,
        e: &mut Entry,
        token: Option<&str>,
    ) -> Result<Option<Role>, MatchError> {
        let Some(token) = token else { return Ok(None) };
        let hash = sha256_hex(token.as_bytes());
        match self.store.token_seat(&e.row.id, &hash).await? {
            None => {
                e.tokens.retain(|(h, _)| *h != hash);
                Err(MatchError::InvalidToken)
            }
            Some(seat) => {
                if !e.tokens.iter().any(|(h, _)| *h == hash) {
                    // Issued by another instance's rotation: the seat's old token is gone.
                    e.tokens.retain(|(_, s)| *s != seat);
                    e.tokens.push((hash, seat));
                }
                e.role(Some(token))
            }
        }
    }

    /// The role of a write's token, the token's hash, which the append checks in its own
    /// insert (`Store::append_with`'s `holder`): a token this entry knows is taken on trust
    /// here, since a write it authorised goes in only if the database still holds it. A token
    /// the entry does not know (issued by another instance) is looked up as [`Matches::checked_role`]
    /// does; so is any token of a request with an `Idempotency-Key`, whose recorded answer may be
    /// replayed before anything is appended. The flag says whether the role was taken on trust
    /// (a refusal must then check the token before it is told, see `Matches::write`).
    pub(super) async fn write_role(
        &self,
        e: &mut Entry,
        token: Option<&str>,
        keyed: bool,
    ) -> Result<(Role, String, bool), MatchError> {
        let token = token.ok_or(MatchError::TokenRequired)?;
        let hash = sha256_hex(token.as_bytes());
        let known = if keyed {
            None
        } else {
            e.role_of_hash(&hash).ok().flatten()
        };
        let (role, trusted) = match known {
            Some(role) => (role, true),
            None => (
                self.checked_role(e, Some(token))
                    .await?
                    .ok_or(MatchError::TokenRequired)?,
                false,
            ),
        };
        Ok((role, hash, trusted))
    }

    /// Issues a new token for `seat` (None: the host) of match `id` and invalidates the old
    /// one at once, on every instance (the tokens are checked against the database on each
    /// request): the host's token may rotate its own and any seat's (a lost phone, a leaked
    /// link), a seat's token its own seat's. The new token, shown once.
    pub async fn rotate_token(
        &self,
        id: &str,
        token: Option<&str>,
        seat: Option<usize>,
    ) -> Result<String, MatchError> {
        let entry = self.entry(id).await?;
        let mut e = entry.lock().await;
        let role = self
            .checked_role(&mut e, token)
            .await?
            .ok_or(MatchError::TokenRequired)?;
        match (role, seat) {
            (Role::Host, _) => {}
            (Role::Seat(s), Some(t)) if s == t => {}
            (Role::Seat(_), None) => return Err(MatchError::RotateHostOnly),
            (Role::Seat(s), Some(t)) => return Err(MatchError::NotYourSeat { token: s, seat: t }),
        }
        if let Some(t) = seat {
            if t >= e.players.len() {
                return Err(MatchError::NoSuchSeat(e.players.len()));
            }
        }
        if let Some(t) = &e.tournament {
            return Err(MatchError::TableTokensDerived(t.id.clone()));
        }
        let new = crate::ids::new_token();
        let hash = sha256_hex(new.as_bytes());
        let seat = seat.map(|s| s as i64);
        self.store.replace_token(&e.row.id, seat, &hash).await?;
        e.tokens.retain(|(_, s)| *s != seat);
        e.tokens.push((hash, seat));
        Ok(new)
    }

    /// Brings the entry up to the database's version (another instance may have written).
    pub(super) async fn refresh(&self, e: &mut Entry) -> Result<(), MatchError> {
        let newer = self.store.events_after(&e.row.id, e.seq, i64::MAX).await?;
        if !newer.is_empty() {
            e.absorb(newer, false)?;
        }
        Ok(())
    }

    /// The entry locked and current: one cheap version query, events read only when behind.
    pub(super) async fn fresh(
        &self,
        id: &str,
    ) -> Result<tokio::sync::OwnedMutexGuard<Entry>, MatchError> {
        let entry = self.entry(id).await?;
        let mut e = entry.lock_owned().await;
        if self.store.version(id).await? != e.seq {
            self.refresh(&mut e).await?;
        }
        Ok(e)
    }
}

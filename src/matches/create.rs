//! Creating a match: the players checked and looked up, the game and options checked, the
//! tokens issued (shown once, stored as hashes).

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::Mutex as AsyncMutex;

use super::{
    cache::Entry,
    to_json,
    views::{self, CreateMatch, Created, MatchStatus, TournamentLink},
    MatchError, Matches, Role,
};
use crate::{
    ids::{is_id, new_id, new_token, now, sha256_hex},
    rules::{AnyGame, Dealing},
    store::{MatchRow, StoreError},
};

/// Checks a name (the spec's `NewPlayer.name`: 1 to 64 code points, not blank).
pub(crate) fn check_name(name: &str, what: &str) -> Result<(), MatchError> {
    if name.chars().all(views::is_blank) || name.chars().count() > 64 {
        return Err(MatchError::InvalidPlayerName {
            what: what.to_string(),
        });
    }
    Ok(())
}

/// A new match's row and state (not yet stored): game and options checked, a fresh id.
pub(super) fn new_match(
    game_id: &str,
    config: Option<Value>,
    seats: &[(String, Option<String>)],
    dealing: Dealing,
    tournament: Option<&TournamentLink>,
    seed_key: Option<&str>,
) -> Result<(MatchRow, AnyGame), MatchError> {
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
        unrated: 0,
    };
    Ok((row, game))
}

impl Matches {
    /// The seats' names and players: each name checked (1 to 64 characters, not blank), each
    /// player id looked up (422 `unknown_player`).
    pub(crate) async fn resolve_players(
        &self,
        players: &[views::NewPlayer],
    ) -> Result<Vec<(String, Option<String>)>, MatchError> {
        let ids: Vec<String> = players.iter().filter_map(|p| p.player_id.clone()).collect();
        for (i, id) in ids.iter().enumerate() {
            if ids[..i].contains(id) {
                return Err(MatchError::DuplicatePlayer(id.clone()));
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
                let Some(k) = known.iter().find(|k| &k.id == id) else {
                    return Err(MatchError::UnknownPlayer(i));
                };
                // The registered name is the player's: a seat or an entry that names the
                // player under another is refused, never taken in its place (issue 23).
                if k.name != p.name {
                    return Err(MatchError::PlayerNameMismatch {
                        seat: i,
                        id: id.clone(),
                        registered: k.name.clone(),
                        given: p.name.clone(),
                    });
                }
            }
            let name = p.name.clone();
            check_name(&name, &format!("player {i}'s name"))?;
            out.push((name, p.player_id.clone()));
        }
        Ok(out)
    }

    /// Creates a match.
    pub async fn create(&self, req: CreateMatch) -> Result<Created, MatchError> {
        if req.players.len() > 16 {
            return Err(MatchError::TooManyPlayers);
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
        let mut row = row;
        row.unrated = i64::from(req.rated == Some(false));
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
        // The answer is known before the write: a keyed create records it in its transaction.
        let entry = Entry::new(row.clone(), players, dealing, hashes.clone(), game)?;
        let created = Created {
            match_: entry.view(&entry.game, 0, &created_at, Some(Role::Host)),
            host_token,
            seat_tokens,
        };
        let key = match created_answer(&created) {
            Ok(answer) => crate::store::idempotency::keyed_answer(&answer),
            Err(e) => return Err(MatchError::internal(e)),
        };
        if let Err(err) = self
            .store
            .insert_match_keyed(&row, &hashes, key.as_ref())
            .await
        {
            // A storage fault may have struck after the commit reached the database: the id is
            // fresh and random, so the match exists only if this creation was recorded.
            let recorded = err.is_fault() && self.store.match_exists(&id).await.unwrap_or(false);
            if !recorded {
                return Err(match err {
                    StoreError::OutcomeUnknown(_) => {
                        tracing::error!(error = %err, "match creation: outcome unknown");
                        MatchError::CreationOutcomeUnknown
                    }
                    other => other.into(),
                });
            }
            tracing::warn!(error = %err, match_id = %id, "the creation's commit reported an error but the match is recorded");
        }
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .put(id, Arc::new(AsyncMutex::new(entry)));
        Ok(created)
    }
}

/// The answer to `POST /v1/matches`: 201, the match with its tokens, `Location` and `ETag`
/// (version 0). Sent, and recorded for an `Idempotency-Key`, from here.
pub fn created_answer(
    c: &Created,
) -> Result<crate::store::idempotency::CreatedAnswer, serde_json::Error> {
    crate::store::idempotency::CreatedAnswer::new(
        format!("/v1/matches/{}", c.match_.id),
        c,
        &[("etag", "\"0\"".to_string())],
    )
}

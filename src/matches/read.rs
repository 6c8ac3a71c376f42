//! The reads of a match: its view, score sheet, legal actions, log, and the list of matches. Each
//! reads the entry brought up to date with the database, and refuses a reader a duplicate table's
//! secrets while its round is played.

use super::{
    cache::{match_extras, Entry},
    views::{
        EventPage, EventView, Legal, MatchPage, MatchStatus, MatchSummary, MatchView, PlayerView,
    },
    MatchError, Matches, Role,
};
use crate::{
    ids::sha256_hex,
    rules::{Actor, Dealing, ScoreSheet},
};

impl Matches {
    /// Whether the tournament round of duplicate match `e` is complete (its secret published),
    /// asked of the store while it is not known to be: it can be only once this match is over,
    /// and once it is, it stays so (see `prepare_undo`).
    pub(super) async fn round_published(&self, e: &mut Entry) -> Result<bool, MatchError> {
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
    pub(super) async fn reader(
        &self,
        e: &mut Entry,
        token: Option<&str>,
    ) -> Result<Option<Role>, MatchError> {
        let role = self.checked_role(e, token).await?;
        if role.is_none() && e.seed_key.is_some() && !self.round_published(e).await? {
            let (tournament, round) = e
                .tournament
                .as_ref()
                .map_or((String::new(), 0), |t| (t.id.clone(), t.round));
            return Err(MatchError::RoundInPlay { tournament, round });
        }
        Ok(role)
    }

    /// The match view for the bearer of `token` (public without one).
    pub async fn view(&self, id: &str, token: Option<&str>) -> Result<MatchView, MatchError> {
        let mut e = self.fresh(id).await?;
        let role = self.reader(&mut e, token).await?;
        Ok(e.view(&e.game, e.seq, &e.updated_at, role))
    }

    /// The score sheet and the version.
    pub async fn scores(
        &self,
        id: &str,
        token: Option<&str>,
    ) -> Result<(ScoreSheet, i64), MatchError> {
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
    ) -> Result<(Legal, i64), MatchError> {
        let mut e = self.fresh(id).await?;
        let role = self.reader(&mut e, token).await?;
        if let Some(s) = seat {
            if s >= e.players.len() {
                // 422 as for an action naming that seat: the seat is well-formed (0 to 15, the
                // spec's range), this match just has fewer.
                return Err(MatchError::NoSuchSeat(e.players.len()));
            }
            // In service dealing a seat's legal list shows its hand (its own token only); in some
            // games it can show the seat's sealed choices (its own token or the host's).
            let private = e.dealing == Dealing::Service || e.game.legal_list_private();
            let allowed = role == Some(Role::Seat(s))
                || (e.dealing == Dealing::Table && role == Some(Role::Host));
            if private && !allowed {
                return Err(match role {
                    None => MatchError::SeatTokenRequired,
                    Some(_) => MatchError::HandIsPrivate(s),
                });
            }
        }
        // An abandoned match records nothing more.
        let actions = if e.abandoned {
            vec![]
        } else {
            e.game.legal_actions(Actor::from_seat(seat))
        };
        // The tally is the table's action only.
        let tally = match (e.abandoned, seat) {
            (false, None) => e.game.tally_form(),
            _ => None,
        };
        Ok((
            Legal {
                game: e.game.id(),
                seat,
                actions,
                tally,
            },
            e.seq,
        ))
    }

    /// A page of the log as `token`'s bearer may see it.
    pub async fn events(
        &self,
        id: &str,
        token: Option<&str>,
        after: i64,
        limit: i64,
    ) -> Result<EventPage, MatchError> {
        let mut e = self.fresh(id).await?;
        let role = self.reader(&mut e, token).await?;
        // Its own table's tokens see the seeds once the round publishes its secret.
        self.round_published(&mut e).await?;
        let rows = self.store.events_after(id, after, limit).await?;
        let fouls = e.shown_fouls();
        let events: Vec<EventView> = rows
            .iter()
            .filter(|r| r.seq <= e.seq)
            .map(|r| e.event_view(r, role, &fouls))
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
    ) -> Result<MatchPage, MatchError> {
        let cursor = parse_cursor(cursor).ok_or(MatchError::InvalidCursor)?;
        let Some(token) = token else {
            return Err(MatchError::ListTokenRequired);
        };
        let hash = sha256_hex(token.as_bytes());
        let holder = if self.operator_hash.as_deref() == Some(hash.as_str()) {
            None
        } else if self.store.token_exists(&hash).await? {
            Some(hash.as_str())
        } else {
            return Err(MatchError::ListTokenUnknown);
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
            matches.push(summary(r)?);
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

    /// The matches a seat of which names registered player `player`, newest first: those
    /// finished or abandoned (an id of a match in progress would let anyone follow a table the
    /// player may not want followed), and of a duplicate round only once the round is complete
    /// (its tables play the same cards). Paged as [`Matches::list`].
    pub async fn player_matches(
        &self,
        player: &str,
        cursor: Option<&str>,
        limit: i64,
    ) -> Result<MatchPage, MatchError> {
        let cursor = parse_cursor(cursor).ok_or(MatchError::InvalidCursor)?;
        let rows = self.store.player_matches(player, cursor, limit + 1).await?;
        let more = rows.len() as i64 > limit;
        let mut matches = Vec::new();
        for r in rows.iter().take(limit as usize) {
            if r.row.seed_key.is_some() {
                let (_, tournament, _) = match_extras(&r.row, 0)?;
                if let Some(t) = tournament {
                    if !self.store.round_complete(&t.id, t.round).await? {
                        continue;
                    }
                }
            }
            matches.push(summary(r)?);
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
}

/// A list cursor: none, or 1 to 18 digits, the spec's pattern (`parse` alone would take `-5` and
/// `+5` too); `None` for anything else.
#[allow(clippy::option_option)]
pub fn parse_cursor(cursor: Option<&str>) -> Option<Option<i64>> {
    match cursor {
        Some(c) if (1..=18).contains(&c.len()) && c.bytes().all(|b| b.is_ascii_digit()) => {
            Some(Some(c.parse::<i64>().expect("18 digits fit an i64")))
        }
        Some(_) => None,
        None => Some(None),
    }
}

/// A listed match.
fn summary(r: &crate::store::MatchSummaryRow) -> Result<MatchSummary, MatchError> {
    let names: Vec<String> = serde_json::from_str(&r.row.players).map_err(MatchError::internal)?;
    let (player_ids, _, _) = match_extras(&r.row, names.len())?;
    Ok(MatchSummary {
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
    })
}

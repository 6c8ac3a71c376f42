//! Storage of the club's memory (migration 0007): finished results that name registered
//! players, each player's rating before and after each rated result, the current ratings per
//! game, seasons and merged players.
//!
//! Every change to a game's ratings runs in one transaction, one at a time per game (SQLite has
//! one writer; PostgreSQL takes a transaction-scoped advisory lock on the game), so results are
//! rated in the order of their `num`. A new result is rated from its players' current ratings
//! (O(players at the table)); a corrected or removed one replays the game's rated results from
//! its `num`, starting from each player's rating as recorded just before it.

use std::collections::{HashMap, HashSet};

use sqlx::{AnyConnection, Connection, Row};

use super::{discard, sent_write_error, Backend, Store, StoreError};
use crate::club::rating::{replay, ClubSystem, Rated, Rating};

/// A finished result to record (or to record anew: same `source`).
#[derive(Clone, Debug)]
pub struct ClubResult {
    /// `match:<id>` or `table:<tournament>:<round>:<table>`: one result per source.
    pub source: String,
    /// The game id.
    pub game: String,
    /// Whether it moves ratings.
    pub rated: bool,
    /// The match it comes from.
    pub match_id: Option<String>,
    /// JSON `{"id", "round", "table"}` of its tournament table.
    pub tournament: Option<String>,
    /// Per unit: its players (registered ones by id) and its total.
    pub units: Vec<(Vec<Option<String>>, i64)>,
    /// RFC 3339.
    pub finished_at: String,
    /// A duplicate round's table: `<tournament>:<round>`, held (not counted, not shown) until
    /// [`Store::club_release`].
    pub hold_key: Option<String>,
}

/// What must still hold, inside the club's transaction, for a hook's change to apply: the
/// write that caused it is still the latest. A superseded change is skipped (the later write's
/// own hook, or its marker, brings the club up to date).
#[derive(Clone, Debug)]
pub enum ClubGuard {
    /// Nothing to check.
    None,
    /// Match `id` is still at version `seq` (a finished match: nothing but an undo follows).
    MatchAt {
        /// The match.
        id: String,
        /// The finishing event's seq.
        seq: i64,
    },
    /// Match `id` is not finished now (its result is to be taken out).
    MatchNotFinished {
        /// The match.
        id: String,
    },
    /// The latest entered result of a tournament table is still `version`.
    EntryAt {
        /// The tournament.
        tournament: String,
        /// The round.
        round: i64,
        /// The table.
        table: i64,
        /// The entry's version.
        version: i64,
    },
}

/// A `club_pending` marker: a write whose club recording is not known to be done.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PendingMark {
    /// `match:<id>` or `table:<tournament>:<round>:<table>`.
    pub source: String,
    /// The event's seq or the entry's version.
    pub mark: String,
    /// When that write was made (RFC 3339).
    pub at: String,
}

/// Writes (or moves on) the marker of `source` inside the caller's transaction.
pub(super) async fn mark_in(
    c: &mut AnyConnection,
    source: &str,
    mark: &str,
    at: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO club_pending (source, mark, at) VALUES ($1, $2, $3) \
         ON CONFLICT (source) DO UPDATE SET mark = excluded.mark, at = excluded.at",
    )
    .bind(source)
    .bind(mark)
    .bind(at)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// On PostgreSQL, takes the transaction-scoped advisory lock of each of `games`, in sorted
/// order (SQLite has one writer: nothing to take). Taken first in a transaction, before any row
/// lock, as every transaction that changes the club takes it.
pub(super) async fn lock_games_in(
    c: &mut AnyConnection,
    backend: Backend,
    games: &[String],
) -> Result<(), sqlx::Error> {
    if backend == Backend::Postgres {
        let mut games = games.to_vec();
        games.sort();
        for g in games {
            sqlx::query("SELECT 1 AS one FROM (SELECT pg_advisory_xact_lock(hashtext($1))) AS l")
                .bind(game_lock_key(&g))
                .execute(&mut *c)
                .await?;
        }
    }
    Ok(())
}

/// The name (hashed by `hashtext`) of game `game`'s advisory lock on PostgreSQL: every writer of
/// the game's ratings takes it first ([`lock_games_in`], or in the first statement of a
/// tournament's result entry).
pub(super) fn game_lock_key(game: &str) -> String {
    format!("clubroom-club:{game}")
}

/// Records a tournament table's entered (or corrected) result `r` inside the entry's own
/// transaction (issue 25, part 4: one durable commit for the entry and the club's ratings), the
/// game's lock already taken ([`lock_games_in`]): the entry just written is the table's latest,
/// so no guard is read. The caller leaves a deleted tournament's results out. A
/// duplicate round's table is held; the entry that completes the round releases the round's
/// results, rated from the first of them (as [`Store::club_release`] does), in the same
/// transaction. Any leftover marker of the table (an earlier version's) goes: the club is up to
/// date with the table once this commits.
pub(super) async fn record_entry_in(
    c: &mut AnyConnection,
    backend: Backend,
    r: &ClubResult,
    tournament_id: &str,
    round: u32,
) -> Result<(), sqlx::Error> {
    record(c, backend, r.clone(), true).await?;
    let Some(key) = &r.hold_key else {
        return Ok(());
    };
    if !super::tournaments::round_complete_in(c, tournament_id, round).await? {
        return Ok(());
    }
    let first: Option<(i64,)> = sqlx::query_as(
        "SELECT MIN(num) AS first FROM club_results WHERE hold_key = $1 AND game = $2 HAVING COUNT(*) > 0",
    )
    .bind(key)
    .bind(&r.game)
    .fetch_optional(&mut *c)
    .await?;
    let Some((first,)) = first else {
        return Ok(());
    };
    sqlx::query("UPDATE club_results SET hold_key = NULL WHERE hold_key = $1 AND game = $2")
        .bind(key)
        .bind(&r.game)
        .execute(&mut *c)
        .await?;
    replay_from(c, &r.game, first, &[]).await
}

/// Whether `guard` still holds (read in the club's transaction).
async fn holds(c: &mut AnyConnection, guard: &ClubGuard) -> Result<bool, sqlx::Error> {
    match guard {
        ClubGuard::None => Ok(true),
        ClubGuard::MatchAt { id, seq } => {
            let (v,): (Option<i64>,) =
                sqlx::query_as("SELECT MAX(seq) FROM events WHERE match_id = $1")
                    .bind(id)
                    .fetch_one(&mut *c)
                    .await?;
            Ok(v == Some(*seq))
        }
        ClubGuard::MatchNotFinished { id } => {
            let status: Option<(String,)> =
                sqlx::query_as("SELECT status FROM matches WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut *c)
                    .await?;
            Ok(status.is_none_or(|(s,)| s != "finished"))
        }
        ClubGuard::EntryAt {
            tournament,
            round,
            table,
            version,
        } => {
            let (v,): (Option<i64>,) = sqlx::query_as(
                "SELECT MAX(version) FROM tournament_results \
                 WHERE tournament_id = $1 AND round = $2 AND table_no = $3",
            )
            .bind(tournament)
            .bind(*round)
            .bind(*table)
            .fetch_one(&mut *c)
            .await?;
            Ok(v == Some(*version))
        }
    }
}

/// A player's line of one result (a stats query's row).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PlayerResultRow {
    /// The order results finished in.
    pub result_num: i64,
    /// The game.
    pub game: String,
    /// The player's unit.
    pub unit: i64,
    /// Its total.
    pub total: i64,
    /// 1 + units with a higher total.
    pub place: i64,
    /// 1 when the unit beat every other unit.
    pub won: i64,
    /// Rating before and after (None: unrated).
    pub rating_before: Option<f64>,
    /// Rating after.
    pub rating_after: Option<f64>,
    /// Weng-Lin's sigma after.
    pub uncertainty_after: Option<f64>,
    /// The result's units (JSON).
    pub units: String,
    /// Whether the result is rated.
    pub rated: i64,
    /// The match.
    pub match_id: Option<String>,
    /// The tournament table (JSON).
    pub tournament: Option<String>,
    /// RFC 3339.
    pub finished_at: String,
}

/// A leaderboard row.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct RatingRow {
    /// The player.
    pub player_id: String,
    /// Their name.
    pub name: String,
    /// Rating (Weng-Lin: mu).
    pub rating: f64,
    /// Weng-Lin: sigma.
    pub uncertainty: Option<f64>,
    /// Rated results.
    pub rated: i64,
}

/// A season row.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SeasonRow {
    /// Public id.
    pub id: String,
    /// Name.
    pub name: String,
    /// YYYY-MM-DD.
    pub starts: String,
    /// YYYY-MM-DD, inclusive.
    pub ends: String,
    /// RFC 3339.
    pub created_at: String,
}

/// A player's rated line in a season (season leaderboards).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SeasonLineRow {
    /// The player.
    pub player_id: String,
    /// Their name.
    pub name: String,
    /// 1 when the unit won.
    pub won: i64,
    /// Before the result.
    pub rating_before: Option<f64>,
    /// After it.
    pub rating_after: Option<f64>,
    /// Weng-Lin's sigma after.
    pub uncertainty_after: Option<f64>,
}

/// Why a merge was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum MergeRefusal {
    /// One of the two is not a (current) player.
    Unknown(String),
    /// The two records sat at the same match or entered the same tournament.
    Met,
}

#[derive(sqlx::FromRow)]
struct UnitPlayer {
    result_num: i64,
    player_id: String,
    unit: i64,
}

#[derive(sqlx::FromRow)]
struct NumTotals {
    num: i64,
    units: String,
}

fn decode(e: impl std::error::Error + Send + Sync + 'static) -> sqlx::Error {
    sqlx::Error::Decode(Box::new(e))
}

impl Store {
    /// Runs `f` in one write transaction; on PostgreSQL holding the advisory lock of `game`
    /// (several games: each, in sorted order).
    async fn club_tx<T, F>(&self, games: &[String], f: F) -> Result<T, StoreError>
    where
        F: for<'c> FnOnce(
            &'c mut AnyConnection,
        ) -> std::pin::Pin<
            Box<dyn std::future::Future<Output = Result<T, sqlx::Error>> + Send + 'c>,
        >,
    {
        let mut conn = self.writer.acquire().await?;
        let backend = self.backend;
        let result = async {
            let mut tx = conn.begin().await?;
            lock_games_in(&mut tx, backend, games).await?;
            let out = f(&mut tx).await?;
            tx.commit().await?;
            Ok(out)
        }
        .await;
        if let Err(err) = &result {
            discard(&mut conn, err);
        }
        result.map_err(sent_write_error)
    }

    /// Records result `r` (a new source: rated now from its players' ratings; a known one: a
    /// correction, replayed from its place), if `guard` still holds (false: skipped). Merged
    /// player ids are read as the player they were merged into.
    pub async fn club_record(&self, r: ClubResult, guard: ClubGuard) -> Result<bool, StoreError> {
        let games = [r.game.clone()];
        let backend = self.backend;
        self.club_tx(&games, move |c| {
            Box::pin(async move {
                if !holds(c, &guard).await? {
                    return Ok(false);
                }
                record(c, backend, r, false).await.map(|()| true)
            })
        })
        .await
    }

    /// Replays every game's ratings from its first result (results imported in bulk); the
    /// games, each with how many results it has.
    pub async fn club_replay_all(&self) -> Result<Vec<(String, i64)>, StoreError> {
        let games: Vec<(String, i64)> = sqlx::query_as(
            "SELECT game, COUNT(*) AS n FROM club_results GROUP BY game ORDER BY game",
        )
        .fetch_all(&self.reader)
        .await?;
        for (game, _) in &games {
            let g = game.clone();
            self.club_tx(std::slice::from_ref(game), move |c| {
                Box::pin(async move { replay_from(c, &g, 0, &[]).await })
            })
            .await?;
        }
        Ok(games)
    }

    /// The markers of writes whose club recording is not known to be done, oldest first.
    pub async fn club_pending(&self) -> Result<Vec<PendingMark>, StoreError> {
        Ok(
            sqlx::query_as("SELECT source, mark, at FROM club_pending ORDER BY at, source")
                .fetch_all(&self.reader)
                .await?,
        )
    }

    /// The club's recording of `source` at `mark` is done: its marker goes (unless a later
    /// write has moved it on).
    pub async fn club_unmark(&self, source: &str, mark: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM club_pending WHERE source = $1 AND mark = $2")
            .bind(source)
            .bind(mark)
            .execute(&self.writer)
            .await
            .map_err(sent_write_error)?;
        Ok(())
    }

    /// Removes the result of `source` (a match reopened by an undo), replaying its game from it,
    /// if `guard` still holds.
    pub async fn club_remove(&self, source: &str, guard: ClubGuard) -> Result<(), StoreError> {
        let game: Option<(String,)> =
            sqlx::query_as("SELECT game FROM club_results WHERE source = $1")
                .bind(source)
                .fetch_optional(&self.reader)
                .await?;
        let Some((game,)) = game else { return Ok(()) };
        let source = source.to_string();
        let locked = game.clone();
        self.club_tx(std::slice::from_ref(&locked), move |c| {
            Box::pin(async move {
                if !holds(c, &guard).await? {
                    return Ok(());
                }
                let num: Option<(i64,)> =
                    sqlx::query_as("SELECT num FROM club_results WHERE source = $1")
                        .bind(&source)
                        .fetch_optional(&mut *c)
                        .await?;
                let Some((num,)) = num else { return Ok(()) };
                let old = players_of(c, num).await?;
                sqlx::query("DELETE FROM club_result_players WHERE result_num = $1")
                    .bind(num)
                    .execute(&mut *c)
                    .await?;
                sqlx::query("DELETE FROM club_results WHERE num = $1")
                    .bind(num)
                    .execute(&mut *c)
                    .await?;
                replay_from(c, &game, num, &old).await
            })
        })
        .await
    }

    /// Counts the held results of `hold_key` (a duplicate round now complete): rated from
    /// their place, as a correction is.
    pub async fn club_release(&self, hold_key: &str) -> Result<(), StoreError> {
        let held: Vec<(String, i64)> = sqlx::query_as(
            "SELECT game, MIN(num) AS first FROM club_results WHERE hold_key = $1 GROUP BY game",
        )
        .bind(hold_key)
        .fetch_all(&self.reader)
        .await?;
        for (game, first) in held {
            let key = hold_key.to_string();
            let locked = game.clone();
            self.club_tx(std::slice::from_ref(&locked), move |c| {
                Box::pin(async move {
                    sqlx::query(
                        "UPDATE club_results SET hold_key = NULL WHERE hold_key = $1 AND game = $2",
                    )
                    .bind(&key)
                    .bind(&game)
                    .execute(&mut *c)
                    .await?;
                    replay_from(c, &game, first, &[]).await
                })
            })
            .await?;
        }
        Ok(())
    }

    /// Merges player `from` into `into`: every result, match seat and tournament entry of
    /// `from` becomes `into`'s, `from` is marked merged (it stays, for the record), and the
    /// ratings of every game `from` played are replayed from `from`'s first result.
    pub async fn club_merge(
        &self,
        from: &str,
        into: &str,
        at: &str,
    ) -> Result<Result<(), MergeRefusal>, StoreError> {
        let games: Vec<(String,)> = sqlx::query_as(
            "SELECT DISTINCT game FROM club_result_players WHERE player_id = $1 OR player_id = $2",
        )
        .bind(from)
        .bind(into)
        .fetch_all(&self.reader)
        .await?;
        let games: Vec<String> = games.into_iter().map(|(g,)| g).collect();
        let (from, into, at) = (from.to_string(), into.to_string(), at.to_string());
        let locked = games.clone();
        self.club_tx(&locked, move |c| {
            Box::pin(async move {
                for id in [&from, &into] {
                    let row: Option<(Option<String>,)> =
                        sqlx::query_as("SELECT merged_into FROM players WHERE id = $1")
                            .bind(id)
                            .fetch_optional(&mut *c)
                            .await?;
                    if !matches!(row, Some((None,))) {
                        return Ok(Err(MergeRefusal::Unknown(id.clone())));
                    }
                }
                let met: Option<(i64,)> = sqlx::query_as(
                    "SELECT 1 FROM match_players a JOIN match_players b ON a.match_num = b.match_num \
                     WHERE a.player_id = $1 AND b.player_id = $2 \
                     UNION ALL SELECT 1 FROM tournament_entrants a JOIN tournament_entrants b \
                     ON a.tournament_num = b.tournament_num WHERE a.player_id = $1 AND b.player_id = $2 \
                     UNION ALL SELECT 1 FROM club_result_players a JOIN club_result_players b \
                     ON a.result_num = b.result_num WHERE a.player_id = $1 AND b.player_id = $2",
                )
                .bind(&from)
                .bind(&into)
                .fetch_optional(&mut *c)
                .await?;
                if met.is_some() {
                    return Ok(Err(MergeRefusal::Met));
                }
                let firsts: Vec<(String, i64)> = sqlx::query_as(
                    "SELECT game, MIN(result_num) AS first FROM club_result_players \
                     WHERE player_id = $1 GROUP BY game",
                )
                .bind(&from)
                .fetch_all(&mut *c)
                .await?;
                for q in [
                    "UPDATE club_result_players SET player_id = $2 WHERE player_id = $1",
                    "UPDATE match_players SET player_id = $2 WHERE player_id = $1",
                    "UPDATE tournament_entrants SET player_id = $2 WHERE player_id = $1",
                    "UPDATE players SET merged_into = $2 WHERE id = $1",
                    "UPDATE players SET merged_into = $2 WHERE merged_into = $1",
                    "UPDATE player_merges SET into_id = $2 WHERE into_id = $1",
                ] {
                    sqlx::query(q).bind(&from).bind(&into).execute(&mut *c).await?;
                }
                sqlx::query("INSERT INTO player_merges (from_id, into_id, merged_at) VALUES ($1, $2, $3)")
                    .bind(&from)
                    .bind(&into)
                    .bind(&at)
                    .execute(&mut *c)
                    .await?;
                for (game, first) in firsts {
                    sqlx::query("DELETE FROM club_ratings WHERE game = $1 AND player_id = $2")
                        .bind(&game)
                        .bind(&from)
                        .execute(&mut *c)
                        .await?;
                    replay_from(c, &game, first, &[from.clone(), into.clone()]).await?;
                }
                Ok(Ok(()))
            })
        })
        .await
    }

    /// The player records merged into `id`.
    pub async fn club_merged_into(&self, id: &str) -> Result<Vec<String>, StoreError> {
        let rows: Vec<(String,)> =
            sqlx::query_as("SELECT from_id FROM player_merges WHERE into_id = $1 ORDER BY from_id")
                .bind(id)
                .fetch_all(&self.reader)
                .await?;
        Ok(rows.into_iter().map(|(x,)| x).collect())
    }

    /// The player `id` was merged into, if it was.
    pub async fn club_merged(&self, id: &str) -> Result<Option<String>, StoreError> {
        let row: Option<(Option<String>,)> =
            sqlx::query_as("SELECT merged_into FROM players WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.reader)
                .await?;
        Ok(row.and_then(|(m,)| m))
    }

    /// Every result line of player `id`, in the order the results finished.
    pub async fn club_player_results(&self, id: &str) -> Result<Vec<PlayerResultRow>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT p.result_num, p.game, p.unit, p.total, p.place, p.won, p.rating_before, \
             p.rating_after, p.uncertainty_after, r.units, r.rated, r.match_id, r.tournament, \
             r.finished_at FROM club_result_players p JOIN club_results r ON r.num = p.result_num \
             WHERE p.player_id = $1 AND r.hold_key IS NULL ORDER BY p.result_num",
        )
        .bind(id)
        .fetch_all(&self.reader)
        .await?)
    }

    /// The current ratings of player `id`: (game, rating, uncertainty).
    pub async fn club_player_ratings(
        &self,
        id: &str,
    ) -> Result<Vec<(String, f64, Option<f64>)>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT game, rating, uncertainty FROM club_ratings WHERE player_id = $1 ORDER BY game",
        )
        .bind(id)
        .fetch_all(&self.reader)
        .await?)
    }

    /// The names of players `ids`.
    pub async fn club_names(&self, ids: &[String]) -> Result<HashMap<String, String>, StoreError> {
        let mut out = HashMap::new();
        for chunk in ids.chunks(500) {
            let marks: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
            let sql = format!(
                "SELECT id, name FROM players WHERE id IN ({})",
                marks.join(", ")
            );
            let mut q = sqlx::query_as::<_, (String, String)>(&sql);
            for id in chunk {
                q = q.bind(id);
            }
            out.extend(q.fetch_all(&self.reader).await?);
        }
        Ok(out)
    }

    /// A page of `game`'s leaderboard: highest rating first (equal ratings by player id).
    pub async fn club_leaderboard(
        &self,
        game: &str,
        offset: i64,
        limit: i64,
    ) -> Result<Vec<RatingRow>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT r.player_id, p.name, r.rating, r.uncertainty, r.rated FROM club_ratings r \
             JOIN players p ON p.id = r.player_id WHERE r.game = $1 \
             ORDER BY r.rating DESC, r.player_id LIMIT $2 OFFSET $3",
        )
        .bind(game)
        .bind(limit)
        .bind(offset)
        .fetch_all(&self.reader)
        .await?)
    }

    /// How many players `game`'s leaderboard has.
    pub async fn club_leaderboard_size(&self, game: &str) -> Result<i64, StoreError> {
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM club_ratings WHERE game = $1")
            .bind(game)
            .fetch_one(&self.reader)
            .await?;
        Ok(n)
    }

    /// Creates a season.
    pub async fn club_insert_season(&self, s: &SeasonRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO seasons (id, name, starts, ends, created_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&s.id)
        .bind(&s.name)
        .bind(&s.starts)
        .bind(&s.ends)
        .bind(&s.created_at)
        .execute(&self.writer)
        .await
        .map_err(sent_write_error)?;
        Ok(())
    }

    /// Every season, latest start first.
    pub async fn club_seasons(&self) -> Result<Vec<SeasonRow>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, name, starts, ends, created_at FROM seasons ORDER BY starts DESC, num DESC",
        )
        .fetch_all(&self.reader)
        .await?)
    }

    /// Season `id`.
    pub async fn club_season(&self, id: &str) -> Result<Option<SeasonRow>, StoreError> {
        Ok(
            sqlx::query_as("SELECT id, name, starts, ends, created_at FROM seasons WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.reader)
                .await?,
        )
    }

    /// The rated lines of `game` whose results finished in [`from`, `until`), in order.
    pub async fn club_season_lines(
        &self,
        game: &str,
        from: &str,
        until: &str,
    ) -> Result<Vec<SeasonLineRow>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT p.player_id, pl.name, p.won, p.rating_before, p.rating_after, p.uncertainty_after \
             FROM club_results r JOIN club_result_players p ON p.result_num = r.num \
             JOIN players pl ON pl.id = p.player_id \
             WHERE r.game = $1 AND r.finished_at >= $2 AND r.finished_at < $3 AND r.rated = 1 \
             AND r.hold_key IS NULL \
             ORDER BY r.num",
        )
        .bind(game)
        .bind(from)
        .bind(until)
        .fetch_all(&self.reader)
        .await?)
    }

    /// Whether the match `id` was created unrated.
    pub async fn club_match_unrated(&self, id: &str) -> Result<bool, StoreError> {
        let row: Option<(i64,)> = sqlx::query_as("SELECT unrated FROM matches WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.reader)
            .await?;
        Ok(row.is_some_and(|(u,)| u != 0))
    }
}

/// 1 + the number of units with a higher total.
fn place(totals: &[i64], u: usize) -> i64 {
    1 + totals.iter().filter(|&&t| t > totals[u]).count() as i64
}

/// Whether unit `u` beat every other unit.
fn won(totals: &[i64], u: usize) -> bool {
    totals
        .iter()
        .enumerate()
        .all(|(v, &t)| v == u || totals[u] > t)
}

/// The registered players of result `num`.
async fn players_of(c: &mut AnyConnection, num: i64) -> Result<Vec<String>, sqlx::Error> {
    let rows: Vec<(String,)> =
        sqlx::query_as("SELECT player_id FROM club_result_players WHERE result_num = $1")
            .bind(num)
            .fetch_all(&mut *c)
            .await?;
    Ok(rows.into_iter().map(|(p,)| p).collect())
}

/// What the club reads of a result's players before recording it, in one statement (issue 25,
/// part 4: an entry waits on its round trips): whom each player id was merged into, and each
/// (merged) player's current rating in `game`. With `pending` on PostgreSQL the statement also
/// deletes that source's `club_pending` marker (a data-modifying `WITH`, which SQLite has not),
/// and says whether that source is recorded already (`Some`; else `None`).
async fn players_now(
    c: &mut AnyConnection,
    game: &str,
    ids: &[String],
    pending: Option<&str>,
) -> Result<PlayersNow, sqlx::Error> {
    let n = ids.len();
    let (clear, known) = if pending.is_some() {
        (
            format!(
                "WITH cleared AS (DELETE FROM club_pending WHERE source = ${}) ",
                n + 2
            ),
            format!(
                ", EXISTS (SELECT 1 FROM club_results WHERE source = ${}) AS known",
                n + 2
            ),
        )
    } else {
        (String::new(), String::new())
    };
    // `VALUES`' column is `column1` on both databases; an id with no player row is not merged
    // (as when each was read by its own query). The players are found by their ids (`IN`) and
    // each rating by its key (a subquery each): joined plainly, PostgreSQL's generic plan
    // scanned every player and every rating of the game (0.34 ms at 256 players).
    let params = (2..n + 2).map(|k| format!("${k}")).collect::<Vec<_>>();
    let rating = |col: &str| {
        format!(
            "(SELECT r.{col} FROM club_ratings r \
             WHERE r.game = $1 AND r.player_id = COALESCE(p.merged_into, v.column1))"
        )
    };
    let sql = format!(
        "{clear}SELECT v.column1, p.merged_into, {}, {}{known} \
         FROM (VALUES ({})) AS v \
         LEFT JOIN players p ON p.id = v.column1 AND p.id IN ({})",
        rating("rating"),
        rating("uncertainty"),
        params.join("), ("),
        params.join(", ")
    );
    let mut q = sqlx::query(&sql).bind(game);
    for id in ids {
        q = q.bind(id);
    }
    if let Some(source) = pending {
        q = q.bind(source);
    }
    let mut merged = HashMap::new();
    let mut ratings = HashMap::new();
    let mut recorded = None;
    for row in q.fetch_all(&mut *c).await? {
        let id: String = row.try_get(0)?;
        let into: Option<String> = row.try_get(1)?;
        let rating: Option<f64> = row.try_get(2)?;
        let uncertainty: Option<f64> = row.try_get(3)?;
        if pending.is_some() {
            recorded = Some(row.try_get::<bool, _>(4)?);
        }
        let now = into.clone().unwrap_or_else(|| id.clone());
        if let Some(rating) = rating {
            ratings.insert(
                now,
                Rating {
                    rating,
                    uncertainty,
                },
            );
        }
        if let Some(into) = into {
            merged.insert(id, into);
        }
    }
    Ok(PlayersNow {
        merged,
        ratings,
        recorded,
    })
}

/// [`players_now`]' answer.
#[derive(Default)]
struct PlayersNow {
    /// Merged ids, each with the player it was merged into.
    merged: HashMap<String, String>,
    /// Each (merged) player's current rating in the game.
    ratings: HashMap<String, Rating>,
    /// Whether the result's source is recorded already, when read (see [`players_now`]).
    recorded: Option<bool>,
}

/// Records `r` (see [`Store::club_record`]) on a database of `backend`; with `clear_pending`,
/// its source's `club_pending` marker is deleted first (in the players' read on PostgreSQL).
async fn record(
    c: &mut AnyConnection,
    backend: Backend,
    mut r: ClubResult,
    clear_pending: bool,
) -> Result<(), sqlx::Error> {
    let ids: Vec<String> = r
        .units
        .iter()
        .flat_map(|(p, _)| p.iter().flatten().cloned())
        .collect();
    let fold = clear_pending && backend == Backend::Postgres && !ids.is_empty();
    if clear_pending && !fold {
        sqlx::query("DELETE FROM club_pending WHERE source = $1")
            .bind(&r.source)
            .execute(&mut *c)
            .await?;
    }
    let PlayersNow {
        merged,
        ratings: current,
        recorded,
    } = if ids.is_empty() {
        Default::default()
    } else {
        players_now(c, &r.game, &ids, fold.then_some(r.source.as_str())).await?
    };
    // Merged player ids are read as the player they were merged into.
    for p in r.units.iter_mut().flat_map(|(p, _)| p.iter_mut().flatten()) {
        if let Some(into) = merged.get(p.as_str()) {
            p.clone_from(into);
        }
    }
    let units_json = serde_json::to_string(
        &r.units
            .iter()
            .map(|(p, t)| serde_json::json!({"players": p, "total": t}))
            .collect::<Vec<_>>(),
    )
    .map_err(decode)?;
    // A new source (the usual case) whose players' read said so (PostgreSQL, with the game's
    // lock held: no other writer can record it meanwhile): its row is inserted in the statement
    // that writes its players and ratings (issue 25, part 4).
    if recorded == Some(false) {
        return record_new(c, backend, &r, NewResult::Insert(&units_json), current).await;
    }
    // New (the usual case): inserted, its number returned. A source already recorded (a
    // correction) returns no row and is rewritten in place below.
    let sql = format!("{RESULT_INSERT} ON CONFLICT (source) DO NOTHING RETURNING num");
    let inserted = bind_result(sqlx::query(&sql), &r, &units_json)
        .fetch_optional(&mut *c)
        .await?;
    if let Some(num) = inserted.map(|row| row.try_get::<i64, _>(0)).transpose()? {
        return record_new(c, backend, &r, NewResult::Num(num), current).await;
    }
    let (num,): (i64,) = sqlx::query_as("SELECT num FROM club_results WHERE source = $1")
        .bind(&r.source)
        .fetch_one(&mut *c)
        .await?;
    let old = players_of(c, num).await?;
    sqlx::query("DELETE FROM club_result_players WHERE result_num = $1")
        .bind(num)
        .execute(&mut *c)
        .await?;
    sqlx::query("UPDATE club_results SET rated = $1, units = $2, hold_key = $3 WHERE num = $4")
        .bind(i64::from(r.rated))
        .bind(&units_json)
        .bind(&r.hold_key)
        .bind(num)
        .execute(&mut *c)
        .await?;
    insert_players(c, &r, num, &HashMap::new()).await?;
    // A correction: replay from its place.
    replay_from(c, &r.game, num, &old).await
}

/// A club result row's insert, its [`RESULT_VALUES`] values `$1`…`$8` bound by
/// [`bind_result`] (source, game, rated, match, tournament, units, finished, hold key).
const RESULT_INSERT: &str =
    "INSERT INTO club_results (source, game, rated, match_id, tournament, units, finished_at, hold_key) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";

/// How many values [`RESULT_INSERT`] takes: a statement that starts with it numbers its own
/// from the next.
const RESULT_VALUES: usize = 8;

/// A new result for [`record_new`]: its number, or (PostgreSQL, a source known to be new) its
/// units' JSON, its row to be inserted by the statement writing its players.
#[derive(Clone, Copy)]
enum NewResult<'a> {
    Num(i64),
    Insert(&'a str),
}

/// Binds [`RESULT_INSERT`]'s values: `r`'s, with its units' JSON `units`.
fn bind_result<'q>(q: AnyQuery<'q>, r: &'q ClubResult, units: &'q str) -> AnyQuery<'q> {
    q.bind(&r.source)
        .bind(&r.game)
        .bind(i64::from(r.rated))
        .bind(&r.match_id)
        .bind(&r.tournament)
        .bind(units)
        .bind(&r.finished_at)
        .bind(&r.hold_key)
}

/// A new result's number: the one given, or its row inserted now.
async fn result_num(
    c: &mut AnyConnection,
    r: &ClubResult,
    new: NewResult<'_>,
) -> Result<i64, sqlx::Error> {
    match new {
        NewResult::Num(num) => Ok(num),
        NewResult::Insert(units) => {
            let sql = format!("{RESULT_INSERT} RETURNING num");
            bind_result(sqlx::query(&sql), r, units)
                .fetch_one(&mut *c)
                .await?
                .try_get(0)
        }
    }
}

/// A new result `num` (hence the last): its player rows, and when it is rated (and not held)
/// the moves of its players' current ratings (`current`, read with the players: see
/// [`players_now`]), written with them.
async fn record_new(
    c: &mut AnyConnection,
    backend: Backend,
    r: &ClubResult,
    new: NewResult<'_>,
    mut current: HashMap<String, Rating>,
) -> Result<(), sqlx::Error> {
    if !r.rated || r.hold_key.is_some() {
        let num = result_num(c, r, new).await?;
        return insert_players(c, r, num, &HashMap::new()).await;
    }
    let rated = vec![Rated {
        units: r
            .units
            .iter()
            .map(|(p, _)| p.iter().flatten().cloned().collect())
            .collect(),
        totals: r.units.iter().map(|(_, t)| *t).collect(),
    }];
    let moves = replay(ClubSystem::of_game(&r.game), &mut current, &rated);
    let by_player: HashMap<&str, (Rating, Rating)> = moves
        .iter()
        .flatten()
        .flatten()
        .map(|(p, before, after)| (p.as_str(), (*before, *after)))
        .collect();
    let mut after: Vec<(&str, Rating)> = by_player.iter().map(|(p, (_, a))| (*p, *a)).collect();
    after.sort_unstable_by_key(|(p, _)| *p);
    // On PostgreSQL the player rows and the ratings are one statement (issue 25, part 4): the
    // rows a data-modifying `WITH`, which the upsert's counts cannot read, so each of its
    // players counts its own new row (+ 1: every player with a move has one, rated). A source
    // known to be new has its result row inserted by the same statement (a first `WITH`, whose
    // number the rows read). SQLite has no such `WITH`, and runs its statements in the process.
    if backend == Backend::Postgres && !after.is_empty() {
        // The result row's insert (its `WITH`, and the values it binds first) when this
        // statement makes it, and the number the player rows take: given, or read from it.
        let (insert, base, num, units) = match new {
            NewResult::Num(num) => (String::new(), 0, Some(num), None),
            NewResult::Insert(units) => (
                format!("ins AS ({RESULT_INSERT} RETURNING num), "),
                RESULT_VALUES,
                None,
                Some(units),
            ),
        };
        let num_sql = units.map(|_| "(SELECT num FROM ins)");
        if let Some((rows, last)) = players_insert_sql(r, &by_player, base, num_sql) {
            let sql = format!(
                "WITH {insert}written AS ({rows}) {}",
                ratings_upsert_sql(&after, last, " + 1")
            );
            let mut q = sqlx::query(&sql);
            if let Some(units) = units {
                q = bind_result(q, r, units);
            }
            let q = bind_players(q, r, num, &by_player);
            bind_ratings(q, &r.game, &after).execute(&mut *c).await?;
            return Ok(());
        }
    }
    let num = result_num(c, r, new).await?;
    insert_players(c, r, num, &by_player).await?;
    upsert_ratings(c, &r.game, &after).await
}

/// A statement being built with its values: `sqlx::query` on the Any driver.
type AnyQuery<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>;

/// The players' current ratings `after` (in its order) upserted in one statement (issue 25,
/// part 4: a result entry waits on its round trips).
async fn upsert_ratings(
    c: &mut AnyConnection,
    game: &str,
    after: &[(&str, Rating)],
) -> Result<(), sqlx::Error> {
    if after.is_empty() {
        return Ok(());
    }
    let sql = ratings_upsert_sql(after, 0, "");
    bind_ratings(sqlx::query(&sql), game, after)
        .execute(&mut *c)
        .await?;
    Ok(())
}

/// The text of [`upsert_ratings`]' statement, its values numbered from `$base+1` (the game,
/// then each player's) in [`bind_ratings`]' order. Each row's count of rated results is its own
/// subquery, plus `plus` (SQL: the rows the same statement writes, which it cannot read).
fn ratings_upsert_sql(after: &[(&str, Rating)], base: usize, plus: &str) -> String {
    // `VALUES`' columns are `column1`... on both databases; a missing uncertainty is a typed
    // literal NULL, never a bound `None::<f64>` (see `write_moves`). SQLite needs the SELECT's
    // WHERE to read the upsert's ON CONFLICT unambiguously.
    let game = base + 1;
    let mut rows = Vec::with_capacity(after.len());
    let mut n = game;
    for (_, r) in after {
        let sigma = if r.uncertainty.is_some() {
            format!("${}", n + 3)
        } else {
            "CAST(NULL AS DOUBLE PRECISION)".to_owned()
        };
        rows.push(format!("(${}, ${}, {sigma})", n + 1, n + 2));
        n += if r.uncertainty.is_some() { 3 } else { 2 };
    }
    format!(
        "INSERT INTO club_ratings (game, player_id, rating, uncertainty, rated) \
         SELECT ${game}, v.column1, v.column2, v.column3, \
         (SELECT COUNT(*) FROM club_result_players x \
          WHERE x.game = ${game} AND x.player_id = v.column1 AND x.rating_after IS NOT NULL){plus} \
         FROM (VALUES {}) AS v WHERE true \
         ON CONFLICT (game, player_id) DO UPDATE SET rating = excluded.rating, \
         uncertainty = excluded.uncertainty, rated = excluded.rated",
        rows.join(", ")
    )
}

/// Binds [`ratings_upsert_sql`]'s values.
fn bind_ratings<'q>(
    mut q: AnyQuery<'q>,
    game: &'q str,
    after: &[(&'q str, Rating)],
) -> AnyQuery<'q> {
    q = q.bind(game);
    for (p, r) in after {
        q = q.bind(*p).bind(r.rating);
        if let Some(u) = r.uncertainty {
            q = q.bind(u);
        }
    }
    q
}

/// Writes result `num`'s player rows in one statement, each with its rating move when `moves`
/// has one (else none: unrated).
async fn insert_players(
    c: &mut AnyConnection,
    r: &ClubResult,
    num: i64,
    moves: &HashMap<&str, (Rating, Rating)>,
) -> Result<(), sqlx::Error> {
    let Some((sql, _)) = players_insert_sql(r, moves, 0, None) else {
        return Ok(());
    };
    bind_players(sqlx::query(&sql), r, Some(num), moves)
        .execute(&mut *c)
        .await?;
    Ok(())
}

/// Result `r`'s players: each with its unit (in the result's order).
fn player_rows(r: &ClubResult) -> impl Iterator<Item = (usize, &String)> {
    r.units
        .iter()
        .enumerate()
        .flat_map(|(u, (players, _))| players.iter().flatten().map(move |p| (u, p)))
}

/// The text of [`insert_players`]' statement (none when the result names no player), its values
/// numbered from `$base+1` (the result's number unless `num_sql` gives it, its game, then each
/// row's) in [`bind_players`]' order; and the last number it takes.
fn players_insert_sql(
    r: &ClubResult,
    moves: &HashMap<&str, (Rating, Rating)>,
    base: usize,
    num_sql: Option<&str>,
) -> Option<(String, usize)> {
    // A missing rating or uncertainty is a literal NULL, never a bound `None::<f64>` (see
    // `write_moves`).
    let (num, game) = match num_sql {
        Some(sql) => (sql.to_owned(), base + 1),
        None => (format!("${}", base + 1), base + 2),
    };
    let mut sql = String::from(
        "INSERT INTO club_result_players (result_num, player_id, game, unit, total, place, won, \
         rating_before, rating_after, uncertainty_after) VALUES ",
    );
    let mut n = game;
    for (i, (_, p)) in player_rows(r).enumerate() {
        let mut slot = || {
            n += 1;
            format!("${n}")
        };
        let (player, unit, total, place, won) = (slot(), slot(), slot(), slot(), slot());
        let (before, after, sigma) = match moves.get(p.as_str()) {
            Some((_, after)) => (
                slot(),
                slot(),
                after
                    .uncertainty
                    .map_or_else(|| "NULL".to_owned(), |_| slot()),
            ),
            None => ("NULL".to_owned(), "NULL".to_owned(), "NULL".to_owned()),
        };
        if i > 0 {
            sql.push_str(", ");
        }
        sql.push_str(&format!(
            "({num}, {player}, ${game}, {unit}, {total}, {place}, {won}, {before}, {after}, {sigma})"
        ));
    }
    (n > game).then_some((sql, n))
}

/// Binds [`players_insert_sql`]'s values.
fn bind_players<'q>(
    mut q: AnyQuery<'q>,
    r: &'q ClubResult,
    num: Option<i64>,
    moves: &HashMap<&str, (Rating, Rating)>,
) -> AnyQuery<'q> {
    let totals: Vec<i64> = r.units.iter().map(|(_, t)| *t).collect();
    if let Some(num) = num {
        q = q.bind(num);
    }
    q = q.bind(&r.game);
    for (u, p) in player_rows(r) {
        q = q
            .bind(p)
            .bind(u as i64)
            .bind(totals[u])
            .bind(place(&totals, u))
            .bind(i64::from(won(&totals, u)));
        if let Some((before, after)) = moves.get(p.as_str()) {
            q = q.bind(before.rating).bind(after.rating);
            if let Some(sigma) = after.uncertainty {
                q = q.bind(sigma);
            }
        }
    }
    q
}

/// Writes each result's moves on its player rows and the players' current ratings.
async fn write_moves(
    c: &mut AnyConnection,
    game: &str,
    nums: &[i64],
    moves: &crate::club::rating::Moves<String>,
) -> Result<(), sqlx::Error> {
    let mut last: HashMap<&String, Rating> = HashMap::new();
    for (num, result) in nums.iter().zip(moves) {
        for (p, before, after) in result.iter().flatten() {
            // No uncertainty (Elo) is a literal NULL, never a bound `None::<f64>`: sqlx 0.8.6's
            // Any driver binds that as a FLOAT4 null on PostgreSQL (`AnyTypeInfoKind::Double`
            // → `Option::<f32>::None`, sqlx-core's any/arguments.rs), the statement is cached on
            // the connection with that type, and a later Weng-Lin FLOAT8 value on the same
            // connection is refused ("incorrect binary data format in bind parameter 3").
            let q = match after.uncertainty {
                Some(u) => sqlx::query(
                    "UPDATE club_result_players SET rating_before = $1, rating_after = $2, uncertainty_after = $3 \
                     WHERE result_num = $4 AND player_id = $5",
                )
                .bind(before.rating)
                .bind(after.rating)
                .bind(u),
                None => sqlx::query(
                    "UPDATE club_result_players SET rating_before = $1, rating_after = $2, uncertainty_after = NULL \
                     WHERE result_num = $3 AND player_id = $4",
                )
                .bind(before.rating)
                .bind(after.rating),
            };
            q.bind(*num).bind(p).execute(&mut *c).await?;
            last.insert(p, *after);
        }
    }
    for (p, r) in last {
        upsert_rating(c, game, p, Some(r)).await?;
    }
    Ok(())
}

/// Sets player `p`'s current rating in `game` (None: no rated result left: no rating), with
/// the count of rated results.
async fn upsert_rating(
    c: &mut AnyConnection,
    game: &str,
    p: &str,
    r: Option<Rating>,
) -> Result<(), sqlx::Error> {
    let Some(r) = r else {
        sqlx::query("DELETE FROM club_ratings WHERE game = $1 AND player_id = $2")
            .bind(game)
            .bind(p)
            .execute(&mut *c)
            .await?;
        return Ok(());
    };
    // With the count of their rated results, in the same statement. (SQLite needs the SELECT's
    // WHERE to read the upsert's ON CONFLICT unambiguously; it has one.)
    let q = match r.uncertainty {
        Some(u) => sqlx::query(
            "INSERT INTO club_ratings (game, player_id, rating, uncertainty, rated) \
             SELECT $1, $2, $3, $4, COUNT(*) FROM club_result_players \
             WHERE game = $1 AND player_id = $2 AND rating_after IS NOT NULL \
             ON CONFLICT (game, player_id) DO UPDATE SET rating = excluded.rating, \
             uncertainty = excluded.uncertainty, rated = excluded.rated",
        )
        .bind(game)
        .bind(p)
        .bind(r.rating)
        .bind(u),
        None => sqlx::query(
            "INSERT INTO club_ratings (game, player_id, rating, uncertainty, rated) \
             SELECT $1, $2, $3, NULL, COUNT(*) FROM club_result_players \
             WHERE game = $1 AND player_id = $2 AND rating_after IS NOT NULL \
             ON CONFLICT (game, player_id) DO UPDATE SET rating = excluded.rating, \
             uncertainty = excluded.uncertainty, rated = excluded.rated",
        )
        .bind(game)
        .bind(p)
        .bind(r.rating),
    };
    q.execute(&mut *c).await?;
    Ok(())
}

/// Replays `game`'s rated results from `num` on, from each player's rating as recorded just
/// before `num`; `also` are players who may have left the results from `num` on (their
/// current rating is then their last one before `num`, or none).
async fn replay_from(
    c: &mut AnyConnection,
    game: &str,
    num: i64,
    also: &[String],
) -> Result<(), sqlx::Error> {
    let system = ClubSystem::of_game(game);
    let before: Vec<(String, f64, Option<f64>)> = sqlx::query_as(
        "SELECT p.player_id, p.rating_after, p.uncertainty_after FROM club_result_players p \
         WHERE p.game = $1 AND p.result_num < $2 AND p.rating_after IS NOT NULL AND p.result_num = \
         (SELECT MAX(q.result_num) FROM club_result_players q WHERE q.game = $1 AND \
          q.player_id = p.player_id AND q.result_num < $2 AND q.rating_after IS NOT NULL)",
    )
    .bind(game)
    .bind(num)
    .fetch_all(&mut *c)
    .await?;
    let mut ratings: HashMap<String, Rating> = before
        .into_iter()
        .map(|(p, rating, uncertainty)| {
            (
                p,
                Rating {
                    rating,
                    uncertainty,
                },
            )
        })
        .collect();
    let results: Vec<NumTotals> = sqlx::query_as(
        "SELECT num, units FROM club_results WHERE game = $1 AND num >= $2 ORDER BY num",
    )
    .bind(game)
    .bind(num)
    .fetch_all(&mut *c)
    .await?;
    let rated_nums: HashSet<i64> = sqlx::query_as::<_, (i64,)>(
        "SELECT num FROM club_results WHERE game = $1 AND num >= $2 AND rated = 1 AND hold_key IS NULL",
    )
    .bind(game)
    .bind(num)
    .fetch_all(&mut *c)
    .await?
    .into_iter()
    .map(|(n,)| n)
    .collect();
    let lines: Vec<UnitPlayer> = sqlx::query_as(
        "SELECT result_num, player_id, unit FROM club_result_players WHERE game = $1 AND result_num >= $2",
    )
    .bind(game)
    .bind(num)
    .fetch_all(&mut *c)
    .await?;
    sqlx::query(
        "UPDATE club_result_players SET rating_before = NULL, rating_after = NULL, uncertainty_after = NULL \
         WHERE game = $1 AND result_num >= $2",
    )
    .bind(game)
    .bind(num)
    .execute(&mut *c)
    .await?;
    let mut by_result: HashMap<i64, Vec<&UnitPlayer>> = HashMap::new();
    for l in &lines {
        by_result.entry(l.result_num).or_default().push(l);
    }
    let mut nums = vec![];
    let mut rated = vec![];
    for r in results.iter().filter(|r| rated_nums.contains(&r.num)) {
        #[derive(serde::Deserialize)]
        struct Unit {
            total: i64,
        }
        let units: Vec<Unit> = serde_json::from_str(&r.units).map_err(decode)?;
        let mut members = vec![vec![]; units.len()];
        for l in by_result.get(&r.num).into_iter().flatten() {
            if let Some(m) = members.get_mut(l.unit as usize) {
                m.push(l.player_id.clone());
            }
        }
        nums.push(r.num);
        rated.push(Rated {
            units: members,
            totals: units.iter().map(|u| u.total).collect(),
        });
    }
    let touched: HashSet<String> = lines
        .iter()
        .map(|l| l.player_id.clone())
        .chain(also.iter().cloned())
        .collect();
    let moves = replay(system, &mut ratings, &rated);
    write_moves(c, game, &nums, &moves).await?;
    // Players of the tail who have no rated result any more lose their rating; the others
    // were written by `write_moves` or keep their rating before `num`.
    for p in touched {
        upsert_rating(c, game, &p, ratings.get(&p).copied()).await?;
    }
    Ok(())
}

impl Store {
    /// Deletes tournament `id` of `game` (issue 24, part 3), in one transaction: marks it
    /// deleted (every read of it answers "not found" from now on), takes it out of its
    /// entrants' tournament lists and its tables' matches (`match_ids`) out of their players'
    /// match lists, and removes its results (`sources`: its tables' entered results and its
    /// matches) from the club's memory, the game's ratings replayed from the first of them.
    /// False when it was deleted already (by a concurrent request).
    pub async fn delete_tournament(
        &self,
        id: &str,
        game: &str,
        match_ids: &[String],
        sources: &[String],
        at: &str,
    ) -> Result<bool, StoreError> {
        let (id, game, match_ids, sources, at) = (
            id.to_string(),
            game.to_string(),
            match_ids.to_vec(),
            sources.to_vec(),
            at.to_string(),
        );
        let locked = game.clone();
        self.club_tx(std::slice::from_ref(&locked), move |c| {
            Box::pin(async move {
                let done = sqlx::query(
                    "UPDATE tournaments SET deleted_at = $1 WHERE id = $2 AND deleted_at IS NULL",
                )
                .bind(&at)
                .bind(&id)
                .execute(&mut *c)
                .await?;
                if done.rows_affected() == 0 {
                    return Ok(false);
                }
                sqlx::query(
                    "DELETE FROM tournament_entrants WHERE tournament_num = (SELECT num FROM tournaments WHERE id = $1)",
                )
                .bind(&id)
                .execute(&mut *c)
                .await?;
                for m in &match_ids {
                    sqlx::query(
                        "DELETE FROM match_players WHERE match_num = (SELECT num FROM matches WHERE id = $1)",
                    )
                    .bind(m)
                    .execute(&mut *c)
                    .await?;
                }
                let mut first: Option<i64> = None;
                let mut old: Vec<String> = vec![];
                for s in &sources {
                    let num: Option<(i64, String)> =
                        sqlx::query_as("SELECT num, game FROM club_results WHERE source = $1")
                            .bind(s)
                            .fetch_optional(&mut *c)
                            .await?;
                    // A result of another game (never: a tournament has one game) is left.
                    let Some((num, g)) = num.filter(|(_, g)| *g == game) else {
                        continue;
                    };
                    debug_assert_eq!(g, game);
                    old.extend(players_of(c, num).await?);
                    sqlx::query("DELETE FROM club_result_players WHERE result_num = $1")
                        .bind(num)
                        .execute(&mut *c)
                        .await?;
                    sqlx::query("DELETE FROM club_results WHERE num = $1")
                        .bind(num)
                        .execute(&mut *c)
                        .await?;
                    first = Some(first.map_or(num, |f: i64| f.min(num)));
                }
                if let Some(first) = first {
                    old.sort();
                    old.dedup();
                    replay_from(c, &game, first, &old).await?;
                }
                Ok(true)
            })
        })
        .await
    }
}

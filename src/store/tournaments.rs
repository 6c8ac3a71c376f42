//! Storage of players, tournaments, their rounds (with the tables' matches) and entered results.

use sqlx::Connection;

use super::{
    discard,
    idempotency::{self, KeyAnswer},
    is_unique_violation, sent_write_error, MatchRow, Store, StoreError,
};

/// Inside a write the organiser authorised: whether tournament `id`'s organiser token is still
/// the one of hash `organiser_hash`. The row is written (to itself), so that the write and a
/// rotation of the token are serialised: on PostgreSQL the rotation waits for this transaction
/// (or this one for the rotation, then finds the hash changed); SQLite has one writer.
async fn still_organiser_in(
    conn: &mut sqlx::AnyConnection,
    id: &str,
    organiser_hash: &str,
) -> Result<bool, sqlx::Error> {
    Ok(organiser_row_in(conn, id, organiser_hash).await?.is_some())
}

/// [`still_organiser_in`], saying also (when it is) whether the tournament is deleted: read in
/// the same statement, with the row locked from then on.
async fn organiser_row_in(
    conn: &mut sqlx::AnyConnection,
    id: &str,
    organiser_hash: &str,
) -> Result<Option<bool>, sqlx::Error> {
    let row: Option<(Option<String>,)> = sqlx::query_as(
        "UPDATE tournaments SET organiser_hash = organiser_hash WHERE id = $1 AND organiser_hash = $2 \
         RETURNING deleted_at",
    )
    .bind(id)
    .bind(organiser_hash)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(row.map(|(deleted_at,)| deleted_at.is_some()))
}

/// The start of a result's entry, one statement on each database (issue 25, part 4: an entry
/// waits on its round trips): the organiser's hash checked (`None`: refused, nothing written)
/// and result row `r` inserted. On PostgreSQL the statement is [`organiser_row_in`]'s `UPDATE`
/// with game `game`'s club lock (`club::lock_games_in`) as its last condition, so the lock is
/// taken on the tournament's row (found by its id and hash) before that row is locked, the
/// order every club writer keeps (game, then rows); the insert is a data-modifying `WITH` of
/// the same hash check. On SQLite (one writer: no lock to take) it is the insert alone, where
/// the hash holds. (A refused hash may leave the lock untaken or the row inserted: the caller
/// then rolls the transaction back.)
async fn organiser_and_result_in(
    conn: &mut sqlx::AnyConnection,
    backend: super::Backend,
    id: &str,
    organiser_hash: &str,
    game: &str,
    r: &ResultRow,
) -> Result<Option<bool>, sqlx::Error> {
    if backend != super::Backend::Postgres {
        // SQLite has one writer (no lock to take, no row to lock): one statement too, the result
        // inserted where the hash holds and the tournament's deletion read back (no row: refused).
        let row: Option<(Option<String>,)> = sqlx::query_as(
            "INSERT INTO tournament_results (tournament_id, round, table_no, version, result, entered_at) \
             SELECT $1, $3, $4, $5, $6, $7 FROM tournaments WHERE id = $1 AND organiser_hash = $2 \
             RETURNING (SELECT deleted_at FROM tournaments WHERE id = $1)",
        )
        .bind(id)
        .bind(organiser_hash)
        .bind(r.round)
        .bind(r.table_no)
        .bind(r.version)
        .bind(&r.result)
        .bind(&r.entered_at)
        .fetch_optional(&mut *conn)
        .await?;
        return Ok(row.map(|(deleted_at,)| deleted_at.is_some()));
    }
    let row: Option<(Option<String>,)> = sqlx::query_as(
        "WITH entered AS (INSERT INTO tournament_results \
         (tournament_id, round, table_no, version, result, entered_at) \
         SELECT $1, $4, $5, $6, $7, $8 FROM tournaments WHERE id = $1 AND organiser_hash = $2) \
         UPDATE tournaments SET organiser_hash = organiser_hash WHERE id = $1 AND organiser_hash = $2 \
         AND pg_advisory_xact_lock(hashtext($3)) IS NOT NULL RETURNING deleted_at",
    )
    .bind(id)
    .bind(organiser_hash)
    .bind(super::club::game_lock_key(game))
    .bind(r.round)
    .bind(r.table_no)
    .bind(r.version)
    .bind(&r.result)
    .bind(&r.entered_at)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(row.map(|(deleted_at,)| deleted_at.is_some()))
}

/// Ends a keyed write: the transaction's refusal, or its commit recorded (the key's answer
/// stands).
fn finish(
    result: Result<Option<StoreError>, sqlx::Error>,
    conn: &mut sqlx::pool::PoolConnection<sqlx::Any>,
    key: Option<&KeyAnswer>,
) -> Result<(), StoreError> {
    match result {
        Ok(Some(refused)) => Err(refused),
        Ok(None) => {
            idempotency::committed(key);
            Ok(())
        }
        Err(e) => {
            discard(conn, &e);
            if is_unique_violation(&e) {
                Err(StoreError::Conflict)
            } else {
                Err(sent_write_error(e))
            }
        }
    }
}

impl Store {
    /// [`finish`] for a write that also appends to a tournament's feed: the feed's live hub is
    /// told of what the transaction `announced` once it has committed.
    fn finish_announced(
        &self,
        result: Result<Result<super::feed::Announced, StoreError>, sqlx::Error>,
        conn: &mut sqlx::pool::PoolConnection<sqlx::Any>,
        key: Option<&KeyAnswer>,
    ) -> Result<(), StoreError> {
        let (result, announced) = match result {
            Ok(Ok(announced)) => (Ok(None), Some(announced)),
            Ok(Err(refused)) => (Ok(Some(refused)), None),
            Err(e) => (Err(e), None),
        };
        finish(result, conn, key)?;
        if let Some(announced) = announced {
            self.feed_committed(&announced);
        }
        Ok(())
    }
}

/// Writes `key` first in a create's transaction: false when another request recorded it.
async fn key_in(
    conn: &mut sqlx::AnyConnection,
    key: Option<&KeyAnswer>,
) -> Result<bool, sqlx::Error> {
    match key {
        Some(key) => idempotency::record_in(conn, key).await,
        None => Ok(true),
    }
}

/// A player row.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PlayerRow {
    /// Public id.
    pub id: String,
    /// Name.
    pub name: String,
    /// RFC 3339.
    pub created_at: String,
}

/// A player in a listing, with its listing key.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PlayerListRow {
    /// Registration order: the cursor.
    pub num: i64,
    /// Public id.
    pub id: String,
    /// Name.
    pub name: String,
    /// RFC 3339.
    pub created_at: String,
}

/// The filters of [`Store::list_tournaments`] (each `None`: no filter).
#[derive(Clone, Copy, Debug, Default)]
pub struct TournamentListFilter<'a> {
    /// Only this game.
    pub game: Option<&'a str>,
    /// Created at or after this stored time.
    pub after: Option<&'a str>,
    /// Created before this stored time.
    pub before: Option<&'a str>,
    /// Only those this player entered.
    pub player: Option<&'a str>,
    /// `Some(true)`: only finished ones; `Some(false)`: only those in progress.
    pub finished: Option<bool>,
    /// Archived ones too.
    pub archived: bool,
}

/// A tournament in a listing.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TournamentListRow {
    /// Creation order: the cursor.
    pub num: i64,
    /// Public id.
    pub id: String,
    /// JSON settings and entrants.
    pub spec: String,
    /// RFC 3339.
    pub created_at: String,
    /// Rounds paired so far.
    pub rounds_paired: i64,
    /// When its last round was complete (None: in progress).
    pub finished_at: Option<String>,
    /// When it was archived.
    pub archived_at: Option<String>,
    /// Entrants added after creation.
    pub late_entries: i64,
}

/// A player's name as search compares it: folded by Unicode lower case (the same on every
/// database).
pub fn name_key(name: &str) -> String {
    name.to_lowercase()
}

/// `q` as a `LIKE ... ESCAPE '\'` pattern matching any name key that contains it.
fn contains_pattern(q: &str) -> String {
    let mut p = String::from("%");
    for c in name_key(q).chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

/// A tournament row.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TournamentRow {
    /// Public id.
    pub id: String,
    /// SHA-256 (hex) of the organiser's token.
    pub organiser_hash: String,
    /// JSON settings and entrants.
    pub spec: String,
    /// RFC 3339.
    pub created_at: String,
    /// When it was archived (None: it is not).
    pub archived_at: Option<String>,
}

/// One entry of a tournament's change log (migration 0009).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ChangeRow {
    /// 1, 2, 3... per tournament.
    pub seq: i64,
    /// `late_entry`, `withdrawal`, `reinstatement`, `correction`, `archive`, `unarchive`.
    pub kind: String,
    /// JSON, by kind.
    pub detail: String,
    /// `organiser` or `organiser+operator`.
    pub by_whom: String,
    /// RFC 3339.
    pub at: String,
}

/// What a change writes besides its log entry, in the same transaction.
#[derive(Clone, Debug)]
pub enum ChangeWrite {
    /// Nothing else (a withdrawal, a reinstatement).
    None,
    /// A late entrant: a new player to register (if not registered) and its id, for the
    /// tournament's entrant index.
    Entrant(Option<PlayerRow>, String),
    /// Archive (Some: the time) or unarchive (None).
    Archive(Option<String>),
}

/// A paired round.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct RoundRow {
    /// From 1.
    pub round: i64,
    /// Hex secret.
    pub secret: String,
    /// JSON pairing.
    pub pairing: String,
    /// JSON array of match ids (or null) by table.
    pub match_ids: String,
    /// RFC 3339.
    pub created_at: String,
}

/// An entered result (one version of one table's).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ResultRow {
    /// Round.
    pub round: i64,
    /// Table, from 1.
    pub table_no: i64,
    /// 1, 2, 3... per table; the highest counts.
    pub version: i64,
    /// JSON result.
    pub result: String,
    /// RFC 3339.
    pub entered_at: String,
}

/// A tournament, one of its rounds (or how many are paired, when that one is not) and entered
/// results ([`Store::load_tournament_round`]).
pub type RoundLoad = (TournamentRow, Result<RoundRow, i64>, Vec<ResultRow>, i64);

/// A tournament's row with one of its rounds' (`LEFT JOIN`: the round's columns are NULL when the
/// round is not paired): [`Store::load_tournament_round`].
#[derive(sqlx::FromRow)]
struct TournamentRoundRow {
    id: String,
    organiser_hash: String,
    spec: String,
    created_at: String,
    archived_at: Option<String>,
    round: Option<i64>,
    secret: Option<String>,
    pairing: Option<String>,
    match_ids: Option<String>,
    round_created_at: Option<String>,
    changes_seq: i64,
    /// The latest entered result of the table asked for (NULL: none, or no table asked for).
    result_version: Option<i64>,
    result: Option<String>,
    entered_at: Option<String>,
}

/// A match of a round, with its token hashes.
pub type NewMatch = (MatchRow, Vec<(String, Option<i64>)>);

impl Store {
    /// Records a new player.
    pub async fn insert_player(
        &self,
        p: &PlayerRow,
        key: Option<&KeyAnswer>,
    ) -> Result<(), StoreError> {
        let mut conn = self.writer.acquire().await?;
        let result = async {
            let mut tx = conn.begin().await?;
            if !key_in(&mut tx, key).await? {
                return Ok(Some(StoreError::KeyTaken));
            }
            sqlx::query(
                "INSERT INTO players (id, name, created_at, name_key) VALUES ($1, $2, $3, $4)",
            )
            .bind(&p.id)
            .bind(&p.name)
            .bind(&p.created_at)
            .bind(name_key(&p.name))
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(None)
        }
        .await;
        finish(result, &mut conn, key)
    }

    /// The players with these ids (those that exist).
    pub async fn players(&self, ids: &[String]) -> Result<Vec<PlayerRow>, StoreError> {
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(p) =
                sqlx::query_as("SELECT id, name, created_at FROM players WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.reader)
                    .await?
            {
                out.push(p);
            }
        }
        Ok(out)
    }

    /// Records a new tournament of `game`, its players (new ones) and its entrants' ids (each
    /// once) in one transaction.
    pub async fn insert_tournament(
        &self,
        t: &TournamentRow,
        game: &str,
        new_players: &[PlayerRow],
        entrants: &[String],
        key: Option<&KeyAnswer>,
    ) -> Result<(), StoreError> {
        let mut conn = self.writer.acquire().await?;
        let result = async {
            let mut tx = conn.begin().await?;
            if !key_in(&mut tx, key).await? {
                return Ok(Some(StoreError::KeyTaken));
            }
            for p in new_players {
                sqlx::query(
                    "INSERT INTO players (id, name, created_at, name_key) VALUES ($1, $2, $3, $4)",
                )
                .bind(&p.id)
                .bind(&p.name)
                .bind(&p.created_at)
                .bind(name_key(&p.name))
                .execute(&mut *tx)
                .await?;
            }
            sqlx::query(
                "INSERT INTO tournaments (id, organiser_hash, created_at, game) VALUES ($1, $2, $3, $4)",
            )
            .bind(&t.id)
            .bind(&t.organiser_hash)
            .bind(&t.created_at)
            .bind(game)
            .execute(&mut *tx)
            .await?;
            // The settings in their own table (migration 0011): the tournament's row, written at
            // every entry, stays small.
            sqlx::query("INSERT INTO tournament_specs (tournament_id, spec) VALUES ($1, $2)")
                .bind(&t.id)
                .bind(&t.spec)
                .execute(&mut *tx)
                .await?;
            for player_id in entrants {
                sqlx::query(
                    "INSERT INTO tournament_entrants (player_id, tournament_num) SELECT $1, num FROM tournaments WHERE id = $2",
                )
                .bind(player_id)
                .bind(&t.id)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
            Ok(None)
        }
        .await;
        // (A unique violation here is not a conflict: ids are fresh.)
        match result {
            Err(e) => {
                discard(&mut conn, &e);
                Err(sent_write_error(e))
            }
            ok => finish(ok, &mut conn, key),
        }
    }

    /// Players in registration order after `cursor` (a `num`), those whose name key contains
    /// `q`'s (any, without `q`).
    pub async fn list_players(
        &self,
        q: Option<&str>,
        cursor: Option<i64>,
        limit: i64,
    ) -> Result<Vec<PlayerListRow>, StoreError> {
        // Walks the primary key in `num` order; the name test is a filter (a substring cannot
        // use an index).
        let base = "SELECT num, id, name, created_at FROM players WHERE num > $1";
        let rows = match q {
            Some(q) => {
                sqlx::query_as(&format!(
                    "{base} AND name_key LIKE $3 ESCAPE '\\' ORDER BY num LIMIT $2"
                ))
                .bind(cursor.unwrap_or(0))
                .bind(limit)
                .bind(contains_pattern(q))
                .fetch_all(&self.reader)
                .await?
            }
            None => {
                sqlx::query_as(&format!("{base} ORDER BY num LIMIT $2"))
                    .bind(cursor.unwrap_or(0))
                    .bind(limit)
                    .fetch_all(&self.reader)
                    .await?
            }
        };
        Ok(rows)
    }

    /// Tournaments newest first before `cursor` (a `num`): of `game`, created at or after
    /// `after` and before `before` (RFC 3339 texts in the stored form), and, with `player`, those
    /// that player entered; archived ones only when `archived`, deleted ones never.
    pub async fn list_tournaments(
        &self,
        filter: &TournamentListFilter<'_>,
        cursor: Option<i64>,
        limit: i64,
    ) -> Result<Vec<TournamentListRow>, StoreError> {
        let TournamentListFilter {
            game,
            after,
            before,
            player,
            finished,
            archived,
        } = *filter;
        let mut filters = vec!["t.num < $1".to_string(), "t.deleted_at IS NULL".to_string()];
        if !archived {
            filters.push("t.archived_at IS NULL".to_string());
        }
        match finished {
            Some(true) => filters.push("t.finished_at IS NOT NULL".into()),
            Some(false) => filters.push("t.finished_at IS NULL".into()),
            None => {}
        }
        let mut binds: Vec<&str> = vec![];
        for (test, value) in [
            ("t.game = ", game),
            ("t.created_at >= ", after),
            ("t.created_at < ", before),
        ] {
            if let Some(v) = value {
                binds.push(v);
                filters.push(format!("{test}${}", binds.len() + 2));
            }
        }
        if let Some(p) = player {
            binds.push(p);
            filters.push(format!(
                "t.num IN (SELECT e.tournament_num FROM tournament_entrants e WHERE e.player_id = ${})",
                binds.len() + 2
            ));
        }
        let sql = format!(
            "SELECT t.num, t.id, s.spec, t.created_at, t.finished_at, t.archived_at, \
               (SELECT COUNT(*) FROM tournament_changes c WHERE c.tournament_id = t.id AND c.kind = 'late_entry') AS late_entries, \
               (SELECT COUNT(*) FROM tournament_rounds r WHERE r.tournament_id = t.id) AS rounds_paired \
             FROM tournaments t JOIN tournament_specs s ON s.tournament_id = t.id \
             WHERE {} ORDER BY t.num DESC LIMIT $2",
            filters.join(" AND ")
        );
        let mut query = sqlx::query_as(&sql)
            .bind(cursor.unwrap_or(i64::MAX))
            .bind(limit);
        for b in binds {
            query = query.bind(b);
        }
        Ok(query.fetch_all(&self.reader).await?)
    }

    /// The matches a seat of which names `player`, newest first before `cursor` (a `num`), not
    /// those in progress.
    pub async fn player_matches(
        &self,
        player: &str,
        cursor: Option<i64>,
        limit: i64,
    ) -> Result<Vec<super::MatchSummaryRow>, StoreError> {
        let sql = format!(
            "SELECT {cols}, \
               COALESCE((SELECT MAX(e.seq) FROM events e WHERE e.match_id = m.id), 0) AS seq, \
               COALESCE((SELECT e.created_at FROM events e WHERE e.match_id = m.id ORDER BY e.seq DESC LIMIT 1), m.created_at) AS updated_at \
             FROM matches m WHERE m.num < $1 AND m.status <> 'in_progress' \
               AND m.num IN (SELECT p.match_num FROM match_players p WHERE p.player_id = $3) \
             ORDER BY m.num DESC LIMIT $2",
            cols = super::MATCH_COLUMNS
                .split(", ")
                .map(|c| format!("m.{c}"))
                .collect::<Vec<_>>()
                .join(", "),
        );
        Ok(sqlx::query_as(&sql)
            .bind(cursor.unwrap_or(i64::MAX))
            .bind(limit)
            .bind(player)
            .fetch_all(&self.reader)
            .await?)
    }

    /// Replaces tournament `id`'s organiser token hash `old_hash` by `organiser_hash`, and every
    /// table match's token hashes (they derive from the organiser's token), in one transaction.
    /// `tables`: per match id, its new token hashes with their seats (`None`: the host's), for
    /// every table of every round paired so far. [`StoreError::Conflict`] (nothing written) when
    /// the token was rotated meanwhile, or a round was paired meanwhile (its tables are not in
    /// `tables`): the caller loads again.
    pub async fn rotate_organiser(
        &self,
        id: &str,
        old_hash: &str,
        organiser_hash: &str,
        tables: &[(String, TableTokens)],
    ) -> Result<(), StoreError> {
        let mut conn = self.writer.acquire().await?;
        let result = async {
            let mut tx = conn.begin().await?;
            // First the row: a pairing or a result entry under the old token either committed
            // before (and is seen below) or waits, then finds the token changed.
            let done = sqlx::query(
                "UPDATE tournaments SET organiser_hash = $1 WHERE id = $2 AND organiser_hash = $3",
            )
            .bind(organiser_hash)
            .bind(id)
            .bind(old_hash)
            .execute(&mut *tx)
            .await?;
            if done.rows_affected() == 0 {
                return Ok(Some(StoreError::Conflict));
            }
            let rounds: Vec<(String,)> =
                sqlx::query_as("SELECT match_ids FROM tournament_rounds WHERE tournament_id = $1")
                    .bind(id)
                    .fetch_all(&mut *tx)
                    .await?;
            let mut paired = vec![];
            for (ids,) in rounds {
                let ids: Vec<Option<String>> =
                    serde_json::from_str(&ids).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
                paired.extend(ids.into_iter().flatten());
            }
            paired.sort();
            let mut known: Vec<&String> = tables.iter().map(|(m, _)| m).collect();
            known.sort();
            if paired.iter().collect::<Vec<_>>() != known {
                return Ok(Some(StoreError::Conflict));
            }
            for (match_id, tokens) in tables {
                sqlx::query("DELETE FROM tokens WHERE match_id = $1")
                    .bind(match_id)
                    .execute(&mut *tx)
                    .await?;
                for (hash, seat) in tokens {
                    sqlx::query("INSERT INTO tokens (hash, match_id, seat) VALUES ($1, $2, $3)")
                        .bind(hash)
                        .bind(match_id)
                        .bind(*seat)
                        .execute(&mut *tx)
                        .await?;
                }
            }
            tx.commit().await?;
            Ok(None)
        }
        .await;
        match result {
            Err(e) => {
                discard(&mut conn, &e);
                Err(sent_write_error(e))
            }
            ok => finish(ok, &mut conn, None),
        }
    }

    /// The tournament `id`, its rounds (in order) and the latest version of each entered result.
    pub async fn load_tournament(
        &self,
        id: &str,
    ) -> Result<Option<(TournamentRow, Vec<RoundRow>, Vec<ResultRow>)>, StoreError> {
        let Some(t) = sqlx::query_as(
            "SELECT t.id, t.organiser_hash, s.spec, t.created_at, t.archived_at FROM tournaments t \
             JOIN tournament_specs s ON s.tournament_id = t.id WHERE t.id = $1 AND t.deleted_at IS NULL",
        )
        .bind(id)
        .fetch_optional(&self.reader)
        .await?
        else {
            return Ok(None);
        };
        let rounds = sqlx::query_as(
            "SELECT round, secret, pairing, match_ids, created_at FROM tournament_rounds WHERE tournament_id = $1 ORDER BY round",
        )
        .bind(id)
        .fetch_all(&self.reader)
        .await?;
        // Every version, the latest of each table kept here: one scan of the primary key's range
        // (corrections are few). A correlated `MAX(version)` per row cost 4–9 ms of PostgreSQL's
        // time at 2,304 entries (scripts/club-scale.sh's 512-player Swiss of 9 rounds, EXPLAIN
        // ANALYZE), this 1.6 ms. They come as one JSON array, one row: a 4,096-player open's
        // 14,336 entries were as many rows, each handed over on its own by the driver (sqlx's
        // SQLite worker, the Any driver's conversion), which cost more than the standings.
        let agg = match self.backend {
            super::Backend::Sqlite => {
                "SELECT json_group_array(json_array(round, table_no, version, result, entered_at)) \
                 FROM tournament_results WHERE tournament_id = $1"
            }
            super::Backend::Postgres => {
                "SELECT COALESCE(json_agg(json_build_array(round, table_no, version, result, entered_at))::text, '[]') \
                 FROM tournament_results WHERE tournament_id = $1"
            }
        };
        let text: String = sqlx::query_scalar(agg)
            .bind(id)
            .fetch_one(&self.reader)
            .await?;
        let mut all: Vec<(i64, i64, i64, String, String)> =
            serde_json::from_str(&text).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
        // An aggregate's order is not the scan's by contract: sorted here.
        all.sort_unstable_by_key(|r| (r.0, r.1, r.2));
        let all = all
            .into_iter()
            .map(|(round, table_no, version, result, entered_at)| ResultRow {
                round,
                table_no,
                version,
                result,
                entered_at,
            });
        let mut results: Vec<ResultRow> = Vec::with_capacity(all.len());
        for r in all {
            match results.last_mut() {
                Some(last) if (last.round, last.table_no) == (r.round, r.table_no) => *last = r,
                _ => results.push(r),
            }
        }
        Ok(Some((t, rounds, results)))
    }

    /// What one table's view needs of tournament `id`: the tournament (its settings' text only
    /// `with_spec`), round `round` (its tables' text only `with_round`; else empty) (or, when
    /// it is not paired, how many rounds are) and the latest version of each entered result of
    /// that round, of table `table` only when given, and the last `seq` of its change log (0: none;
    /// the log is append-only, so the caller may keep it by that number). A few rows, whatever the
    /// tournament's size:
    /// entering a result costs its table, not the tournament (issue 25).
    pub async fn load_tournament_round(
        &self,
        id: &str,
        round: u32,
        table: Option<u32>,
        with_spec: bool,
        with_round: bool,
    ) -> Result<Option<RoundLoad>, StoreError> {
        // Without `with_spec` (the caller keeps it parsed) the settings come back empty.
        let spec = if with_spec {
            "(SELECT s.spec FROM tournament_specs s WHERE s.tournament_id = t.id) AS spec"
        } else {
            "'' AS spec"
        };
        // Nor the round's tables when the caller keeps them parsed (a round never changes once
        // paired).
        let tables = if with_round {
            "r.pairing, r.match_ids"
        } else {
            "CASE WHEN r.round IS NULL THEN NULL ELSE '' END AS pairing, \
             CASE WHEN r.round IS NULL THEN NULL ELSE '' END AS match_ids"
        };
        // The tournament, its round, the last seq of its change log and the table's latest result
        // in one round trip (issue 25, part 4: an entry waits on its round trips); the round's
        // columns are NULL when it is not paired.
        let Some(j) = sqlx::query_as::<_, TournamentRoundRow>(&format!(
            "SELECT t.id, t.organiser_hash, {spec}, t.created_at, t.archived_at, \
             r.round, r.secret, {tables}, r.created_at AS round_created_at, \
             COALESCE((SELECT MAX(c.seq) FROM tournament_changes c WHERE c.tournament_id = t.id), 0) AS changes_seq, \
             x.version AS result_version, x.result, x.entered_at \
             FROM tournaments t LEFT JOIN tournament_rounds r ON r.tournament_id = t.id AND r.round = $2 \
             LEFT JOIN tournament_results x ON x.tournament_id = t.id AND x.round = $2 AND x.table_no = $3 \
               AND x.version = (SELECT MAX(y.version) FROM tournament_results y \
                 WHERE y.tournament_id = t.id AND y.round = $2 AND y.table_no = $3) \
             WHERE t.id = $1 AND t.deleted_at IS NULL"
        ))
        .bind(id)
        .bind(i64::from(round))
        // No table: no result joins (table 0 does not exist); the round's are read below.
        .bind(table.map_or(0, i64::from))
        .fetch_optional(&self.reader)
        .await?
        else {
            return Ok(None);
        };
        let t = TournamentRow {
            id: j.id,
            organiser_hash: j.organiser_hash,
            spec: j.spec,
            created_at: j.created_at,
            archived_at: j.archived_at,
        };
        let row = match (
            j.round,
            j.secret,
            j.pairing,
            j.match_ids,
            j.round_created_at,
        ) {
            (Some(round), Some(secret), Some(pairing), Some(match_ids), Some(created_at)) => {
                Some(RoundRow {
                    round,
                    secret,
                    pairing,
                    match_ids,
                    created_at,
                })
            }
            _ => None,
        };
        let Some(row) = row else {
            let paired: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM tournament_rounds WHERE tournament_id = $1",
            )
            .bind(id)
            .fetch_one(&self.reader)
            .await?;
            return Ok(Some((t, Err(paired), vec![], j.changes_seq)));
        };
        let results = match (table, j.result_version, j.result, j.entered_at) {
            (None, ..) => self.latest_results(id, round, None).await?,
            (Some(tb), Some(version), Some(result), Some(entered_at)) => vec![ResultRow {
                round: i64::from(round),
                table_no: i64::from(tb),
                version,
                result,
                entered_at,
            }],
            (Some(_), ..) => vec![],
        };
        Ok(Some((t, Ok(row), results, j.changes_seq)))
    }

    /// The latest version of each entered result of round `round` of tournament `id` (of table
    /// `table` only, when given), by table.
    pub async fn latest_results(
        &self,
        id: &str,
        round: u32,
        table: Option<u32>,
    ) -> Result<Vec<ResultRow>, StoreError> {
        let latest = "SELECT r.round, r.table_no, r.version, r.result, r.entered_at FROM tournament_results r \
             WHERE r.tournament_id = $1 AND r.round = $2 AND r.version = (SELECT MAX(x.version) FROM tournament_results x \
               WHERE x.tournament_id = r.tournament_id AND x.round = r.round AND x.table_no = r.table_no)";
        Ok(match table {
            Some(tb) => {
                sqlx::query_as(&format!("{latest} AND r.table_no = $3"))
                    .bind(id)
                    .bind(i64::from(round))
                    .bind(i64::from(tb))
                    .fetch_all(&self.reader)
                    .await?
            }
            None => {
                sqlx::query_as(&format!("{latest} ORDER BY r.table_no"))
                    .bind(id)
                    .bind(i64::from(round))
                    .fetch_all(&self.reader)
                    .await?
            }
        })
    }

    /// Records a paired round and its tables' matches in one transaction; [`StoreError::Conflict`]
    /// when the round is already paired (another organiser request got there first).
    pub async fn insert_round(
        &self,
        tournament_id: &str,
        round: &RoundRow,
        matches: &[NewMatch],
        outbox: &super::Outbox,
        organiser_hash: &str,
        key: Option<&KeyAnswer>,
    ) -> Result<(), StoreError> {
        let mut conn = self.writer.acquire().await?;
        let result = async {
            let mut tx = conn.begin().await?;
            // The key first: a concurrent request with it waits here, then finds it taken.
            if !key_in(&mut tx, key).await? {
                return Ok(Err(StoreError::KeyTaken));
            }
            if !still_organiser_in(&mut tx, tournament_id, organiser_hash).await? {
                return Ok(Err(StoreError::Revoked));
            }
            sqlx::query(
                "INSERT INTO tournament_rounds (tournament_id, round, secret, pairing, match_ids, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(tournament_id)
            .bind(round.round)
            .bind(&round.secret)
            .bind(&round.pairing)
            .bind(&round.match_ids)
            .bind(&round.created_at)
            .execute(&mut *tx)
            .await?;
            for (m, tokens) in matches {
                Store::insert_match_in(&mut tx, m, tokens).await?;
            }
            // Webhooks and the feed: `round.paired`, in the round's transaction.
            let announced = super::webhooks::write_in(&mut tx, self.backend, outbox).await?;
            tx.commit().await?;
            Ok(Ok(announced))
        }
        .await;
        self.finish_announced(result, &mut conn, key)
    }

    /// Records one version of a table's entered result and, in the same transaction, the
    /// club's recording of it (`club`: see `club::record_entry_in`); [`StoreError::Conflict`]
    /// when that version is taken (a concurrent entry). Should the club's part fail, nothing is
    /// recorded.
    pub async fn insert_result(
        &self,
        tournament_id: &str,
        r: &ResultRow,
        outbox: &super::Outbox,
        organiser_hash: &str,
        change: Option<&ChangeRow>,
        club: &super::ClubResult,
    ) -> Result<(), StoreError> {
        let mut conn = self.writer.acquire().await?;
        let backend = self.backend;
        let mut attempt = 1;
        let result = loop {
            let result = async {
                // Webhooks: the result and its outbox rows (`result.entered`, perhaps
                // `round.complete`) are one transaction; so is the club's recording of it (issue 25,
                // part 4: one durable commit per entry), its game's lock taken first.
                let mut tx = conn.begin().await?;
                // The game's lock first, then the tournament's row, locked from here on, then the
                // result (on PostgreSQL, one statement): the feed and the webhooks below do not lock
                // the row again.
                let Some(deleted) = organiser_and_result_in(
                    &mut tx,
                    backend,
                    tournament_id,
                    organiser_hash,
                    &club.game,
                    r,
                )
                .await?
                else {
                    return Ok(Err(StoreError::Revoked));
                };
                // A correction's log entry, in the result's transaction.
                if let Some(c) = change {
                    insert_change_in(&mut tx, tournament_id, c).await?;
                }
                let announced =
                    super::webhooks::write_held_in(&mut tx, backend, outbox, Some(tournament_id))
                        .await?;
                // The club (issue 24): the entry recorded and rated, in its transaction; a deleted
                // tournament's results stay out of the club's memory.
                let round = u32::try_from(r.round).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
                if !deleted {
                    super::club::record_entry_in(&mut tx, backend, club, tournament_id, round)
                        .await?;
                }
                tx.commit().await?;
                Ok(Ok(announced))
            }
            .await;
            match &result {
                // Rolled back by PostgreSQL as a deadlock's victim (or a serialization failure):
                // nothing of it stands, so it is run again (as the group commit does).
                Err(e) if super::is_retryable(e) && attempt < 5 => {
                    tracing::warn!(error = %e, attempt, "result entry rolled back by the database; retrying");
                    attempt += 1;
                }
                _ => break result,
            }
        };
        self.finish_announced(result, &mut conn, None)
    }
    /// Whether every table of round `round` of tournament `tournament_id` has its result: an
    /// entered one, or its match finished. (A match is settled by hand only once abandoned, and
    /// a finished duplicate match cannot be reopened, so once true this stays true.)
    pub async fn round_complete(
        &self,
        tournament_id: &str,
        round: u32,
    ) -> Result<bool, StoreError> {
        let mut c = self.reader.acquire().await?;
        Ok(round_complete_in(&mut c, tournament_id, round).await?)
    }
}

/// [`Store::round_complete`], read on `c` (inside a write's transaction: what it has written
/// counts).
pub(super) async fn round_complete_in(
    c: &mut sqlx::AnyConnection,
    tournament_id: &str,
    round: u32,
) -> Result<bool, sqlx::Error> {
    Ok(
        super::webhooks::round_state_in(c, tournament_id, i64::from(round))
            .await?
            .is_some(),
    )
}

/// Appends `c` to tournament `id`'s change log.
async fn insert_change_in(
    c: &mut sqlx::AnyConnection,
    id: &str,
    ch: &ChangeRow,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO tournament_changes (tournament_id, seq, kind, detail, by_whom, at) VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(id)
    .bind(ch.seq)
    .bind(&ch.kind)
    .bind(&ch.detail)
    .bind(&ch.by_whom)
    .bind(&ch.at)
    .execute(&mut *c)
    .await?;
    Ok(())
}

impl Store {
    /// Tournament `id`'s change log, oldest first.
    pub async fn tournament_changes(&self, id: &str) -> Result<Vec<ChangeRow>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT seq, kind, detail, by_whom, at FROM tournament_changes WHERE tournament_id = $1 ORDER BY seq",
        )
        .bind(id)
        .fetch_all(&self.reader)
        .await?)
    }

    /// Appends change `c` to tournament `id`'s log, with what it writes besides (`write`), in
    /// one transaction; [`StoreError::Conflict`] when its `seq` is taken (a concurrent change).
    pub async fn insert_change(
        &self,
        id: &str,
        c: &ChangeRow,
        write: &ChangeWrite,
    ) -> Result<(), StoreError> {
        let mut conn = self.writer.acquire().await?;
        let result = async {
            let mut tx = conn.begin().await?;
            insert_change_in(&mut tx, id, c).await?;
            match write {
                ChangeWrite::None => {}
                ChangeWrite::Entrant(new_player, player_id) => {
                    if let Some(p) = new_player {
                        sqlx::query(
                            "INSERT INTO players (id, name, created_at, name_key) VALUES ($1, $2, $3, $4)",
                        )
                        .bind(&p.id)
                        .bind(&p.name)
                        .bind(&p.created_at)
                        .bind(name_key(&p.name))
                        .execute(&mut *tx)
                        .await?;
                    }
                    sqlx::query(
                        "INSERT INTO tournament_entrants (player_id, tournament_num) SELECT $1, num FROM tournaments WHERE id = $2",
                    )
                    .bind(player_id)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                }
                ChangeWrite::Archive(at) => {
                    sqlx::query("UPDATE tournaments SET archived_at = $1 WHERE id = $2")
                        .bind(at.as_deref())
                        .bind(id)
                        .execute(&mut *tx)
                        .await?;
                }
            }
            tx.commit().await
        }
        .await;
        match result {
            Ok(()) => Ok(()),
            Err(e) => {
                discard(&mut conn, &e);
                if is_unique_violation(&e) {
                    Err(StoreError::Conflict)
                } else {
                    Err(sent_write_error(e))
                }
            }
        }
    }

    /// Whether tournament `id` was deleted.
    pub async fn tournament_deleted(&self, id: &str) -> Result<bool, StoreError> {
        let at: Option<Option<String>> =
            sqlx::query_scalar("SELECT deleted_at FROM tournaments WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.reader)
                .await?;
        Ok(at.flatten().is_some())
    }
}

/// A table match's token hashes with their seats (`None`: the host's).
pub type TableTokens = Vec<(String, Option<i64>)>;

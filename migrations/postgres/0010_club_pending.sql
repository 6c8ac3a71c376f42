-- The club's memory, made recoverable (issue 24): a durable marker written in the same
-- transaction as the event that finishes (or reopens, or abandons) a match naming registered
-- players, or as a tournament table's entered result. The club's recording runs after that
-- commit; once it is done the marker is deleted. A marker still here (a crash, or a failure of
-- the club's write) is replayed at the next start, from the match's or the entry's current state.
-- Keep in step with the other flavour's 0008_club_pending.sql.
CREATE TABLE club_pending (
    source TEXT NOT NULL PRIMARY KEY,   -- 'match:<id>' | 'table:<tournament>:<round>:<table>'
    mark   TEXT NOT NULL,               -- the event's seq, or the entry's version: the latest write
    at     TEXT NOT NULL                -- RFC 3339: when that write was made (the result's time)
);

-- Issue 24 part 5 (scripts/club-scale.sh, checked with EXPLAIN): a player's current ratings
-- (`GET /v1/players/{id}/stats`) by player, the records merged into a player, and a
-- leaderboard's order (rating down, player id up) read straight from an index.
CREATE INDEX club_ratings_by_player ON club_ratings (player_id);
CREATE INDEX player_merges_by_into ON player_merges (into_id);
CREATE INDEX club_ratings_leaderboard ON club_ratings (game, rating DESC, player_id);

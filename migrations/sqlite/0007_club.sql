-- The club's memory (issue 24): every finished result that names a registered player, in the
-- order results finished, each player's rating after it, the current rating per game, seasons,
-- merged player records. Keep in step with the other flavour's 0007_club.sql.

-- A match created with `rated: false` counts in its players' statistics but moves no rating.
ALTER TABLE matches ADD COLUMN unrated INTEGER NOT NULL DEFAULT 0;

-- A player record merged into another (the same person): its history now belongs to `merged_into`.
ALTER TABLE players ADD COLUMN merged_into TEXT;

-- One row per finished result: a match's score sheet, or a tournament table's entered result.
-- `num` is the order results finished in: the order ratings are computed in. A correction
-- rewrites a result in place (same `num`) and the game's ratings are replayed from it.
CREATE TABLE club_results (
    num           INTEGER PRIMARY KEY AUTOINCREMENT,
    source        TEXT    NOT NULL UNIQUE,   -- 'match:<id>' | 'table:<tournament>:<round>:<table>'
    game          TEXT    NOT NULL,
    rated         INTEGER NOT NULL,          -- 1: moves ratings; 0: counts in statistics only
    match_id      TEXT,                      -- the match the result comes from (NULL: entered)
    tournament    TEXT,                      -- JSON {"id", "round", "table"} or NULL
    units         TEXT    NOT NULL,          -- JSON [{"players": [player id or null...], "total": n}]
    finished_at   TEXT    NOT NULL,          -- RFC 3339 UTC
    -- A duplicate round's table, held until every table of the round has its result (its boards
    -- are secret while another table plays them): '<tournament>:<round>'; NULL = counted.
    hold_key      TEXT
);
CREATE INDEX club_results_held ON club_results (hold_key);
CREATE INDEX club_results_by_game ON club_results (game, num);
CREATE INDEX club_results_by_time ON club_results (game, finished_at);

-- Each registered player of a result: their unit, its total and place, and their rating
-- before and after it (NULL when the result is unrated).
CREATE TABLE club_result_players (
    result_num         INTEGER NOT NULL,
    player_id          TEXT    NOT NULL,
    game               TEXT    NOT NULL,
    unit               INTEGER NOT NULL,
    total              INTEGER NOT NULL,
    place              INTEGER NOT NULL,   -- 1 + the number of units with a higher total
    won                INTEGER NOT NULL,   -- 1: the unit's total beat every other unit's
    rating_before      REAL,
    rating_after       REAL,
    uncertainty_after  REAL,
    PRIMARY KEY (result_num, player_id)
);
CREATE INDEX club_result_players_by_player ON club_result_players (player_id, game, result_num);
CREATE INDEX club_result_players_by_game ON club_result_players (game, result_num);

-- The current rating of each player in each game (the last rated result's `rating_after`).
CREATE TABLE club_ratings (
    game        TEXT    NOT NULL,
    player_id   TEXT    NOT NULL,
    rating      REAL    NOT NULL,
    uncertainty REAL,
    rated       INTEGER NOT NULL,   -- how many rated results
    PRIMARY KEY (game, player_id)
);
CREATE INDEX club_ratings_board ON club_ratings (game, rating, player_id);

-- A season: a named range of days (UTC), `ends` inclusive.
CREATE TABLE seasons (
    num        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT    NOT NULL UNIQUE,
    name       TEXT    NOT NULL,
    starts     TEXT    NOT NULL,   -- YYYY-MM-DD
    ends       TEXT    NOT NULL,   -- YYYY-MM-DD, inclusive
    created_at TEXT    NOT NULL
);

-- Merges, for the record: `from_id` now reads as `into_id`.
CREATE TABLE player_merges (
    from_id   TEXT NOT NULL PRIMARY KEY,
    into_id   TEXT NOT NULL,
    merged_at TEXT NOT NULL
);

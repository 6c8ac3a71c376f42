-- Lists that last (issue 23): players searchable by name, tournaments by game, a player's matches
-- and tournaments by player id. Keep in step with the other flavour's 0004_identity.sql.

-- The name folded to lower case by the service (Rust's Unicode `to_lowercase`, the same on both
-- databases); search is a substring of it. Rows older than this column get it at start-up.
ALTER TABLE players ADD COLUMN name_key TEXT;

-- A tournament's game, copied out of its JSON settings so that the list can filter on it.
ALTER TABLE tournaments ADD COLUMN game TEXT;
UPDATE tournaments SET game = json_extract(spec, '$.game');
CREATE INDEX tournaments_by_game ON tournaments (game, num);

-- Which match seats name a registered player (written with the match, in its transaction).
CREATE TABLE match_players (
    player_id TEXT    NOT NULL,
    match_num INTEGER NOT NULL,
    seat      INTEGER NOT NULL,
    PRIMARY KEY (player_id, match_num, seat)
);
INSERT INTO match_players (player_id, match_num, seat)
    SELECT j.value, m.num, j.key FROM matches m, json_each(m.player_ids) j
    WHERE m.player_ids IS NOT NULL AND j.type = 'text';

-- Which tournaments a registered player entered (written with the tournament).
CREATE TABLE tournament_entrants (
    player_id      TEXT    NOT NULL,
    tournament_num INTEGER NOT NULL,
    PRIMARY KEY (player_id, tournament_num)
);
INSERT OR IGNORE INTO tournament_entrants (player_id, tournament_num)
    SELECT json_extract(j.value, '$.player_id'), t.num FROM tournaments t, json_each(t.spec, '$.entrants') j;

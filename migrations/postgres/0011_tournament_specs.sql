-- A tournament's settings in a table of their own (issue 25, part 4: an entry costs its table,
-- not its tournament). The settings hold the entrants: about 70 bytes each, some 290 KB at a
-- national open's 4,096. (PostgreSQL keeps such a value out of line, so an update of the row's
-- small columns does not copy it; SQLite rewrote it at every entry.)
-- Keep in step with the other flavour's 0011_tournament_specs.sql.
CREATE TABLE tournament_specs (
    tournament_id TEXT NOT NULL PRIMARY KEY REFERENCES tournaments (id),
    spec          TEXT NOT NULL   -- JSON: name, game, config, dealing, format, table size, entrants...
);
INSERT INTO tournament_specs (tournament_id, spec) SELECT id, spec FROM tournaments;
ALTER TABLE tournaments DROP COLUMN spec;

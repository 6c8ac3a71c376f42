-- A tournament's settings in a table of their own (issue 25, part 4: an entry costs its table,
-- not its tournament). The settings hold the entrants: about 70 bytes each, some 290 KB at a
-- national open's 4,096. In the tournament's row they were rewritten, overflow pages and all,
-- by every write of the row's small columns (SQLite rewrites a whole row), and the feed's seq is
-- written at every entry; a read of a column stored after them walked their overflow pages.
-- Keep in step with the other flavour's 0011_tournament_specs.sql.
CREATE TABLE tournament_specs (
    tournament_id TEXT NOT NULL PRIMARY KEY REFERENCES tournaments (id),
    spec          TEXT NOT NULL   -- JSON: name, game, config, dealing, format, table size, entrants...
);
INSERT INTO tournament_specs (tournament_id, spec) SELECT id, spec FROM tournaments;
ALTER TABLE tournaments DROP COLUMN spec;

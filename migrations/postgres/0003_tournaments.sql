-- Players, tournaments, their rounds and entered results (issue 12). Keep in step with the other
-- flavour's 0003_tournaments.sql.

-- A match seat may name a player; a tournament table's match knows its tournament, round and table;
-- a duplicate-play match derives its deals' seeds from its round's secret (seed of deal k =
-- SHA-256 of the text "<secret hex>:<k>"), so every table of the round plays the same cards.
ALTER TABLE matches ADD COLUMN player_ids TEXT;   -- JSON array by seat: player id or null; NULL = none
ALTER TABLE matches ADD COLUMN tournament TEXT;   -- JSON {"id", "round", "table"}; NULL = none
ALTER TABLE matches ADD COLUMN seed_key   TEXT;   -- duplicate play: the round secret (hex); NULL = random seeds

-- Players: stable ids and names across matches and tournaments.
CREATE TABLE players (
    num        BIGSERIAL PRIMARY KEY,
    id         TEXT    NOT NULL UNIQUE,   -- public (128 random bits, hex)
    name       TEXT    NOT NULL,
    created_at TEXT    NOT NULL
);

-- A tournament: its fixed settings and entrants (JSON), the hash of its organiser's token.
CREATE TABLE tournaments (
    num            BIGSERIAL PRIMARY KEY,
    id             TEXT    NOT NULL UNIQUE,
    organiser_hash TEXT    NOT NULL,
    spec           TEXT    NOT NULL,       -- JSON: name, game, config, dealing, format, table size, entrants...
    created_at     TEXT    NOT NULL
);

-- A paired round. (tournament_id, round) is the judge between two organisers pairing at once.
CREATE TABLE tournament_rounds (
    tournament_id TEXT    NOT NULL REFERENCES tournaments (id),
    round         BIGINT NOT NULL,
    secret        TEXT    NOT NULL,        -- hex; duplicate play derives the deals from it
    pairing       TEXT    NOT NULL,        -- JSON: {"tables": [[entrant...]...], "byes": [...]}
    match_ids     TEXT    NOT NULL,        -- JSON array by table: match id or null (quick log)
    created_at    TEXT    NOT NULL,
    PRIMARY KEY (tournament_id, round)
);

-- Results entered by the organiser (quick log), append-only: the highest version of a table counts;
-- a correction is a new version, the old one stays in the log.
CREATE TABLE tournament_results (
    tournament_id TEXT    NOT NULL REFERENCES tournaments (id),
    round         BIGINT NOT NULL,
    table_no      BIGINT NOT NULL,
    version       BIGINT NOT NULL,
    result        TEXT    NOT NULL,        -- JSON: {"totals": [...], "deals": [[...]...]} or {"void": true}
    entered_at    TEXT    NOT NULL,
    PRIMARY KEY (tournament_id, round, table_no, version)
);

-- Clubroom schema, SQLite flavour (keep in step with ../postgres/0001_init.sql).

-- One row per match. The event log is the only truth about play; `status` is a denormalised copy
-- (kept in the same transaction as the event that changes it) so that listings can filter on it.
CREATE TABLE matches (
    num        INTEGER PRIMARY KEY AUTOINCREMENT,  -- listing order and cursor
    id         TEXT    NOT NULL UNIQUE,            -- public, unguessable (128 random bits, hex)
    game       TEXT    NOT NULL,
    players    TEXT    NOT NULL,                   -- JSON array of names, by seat
    config     TEXT    NOT NULL,                   -- JSON, every default filled in
    dealing    TEXT    NOT NULL,                   -- 'table' | 'service'
    status     TEXT    NOT NULL,                   -- 'in_progress' | 'finished'
    created_at TEXT    NOT NULL                    -- RFC 3339 UTC
);
CREATE INDEX matches_by_game_status ON matches (game, status, num);
CREATE INDEX matches_by_status ON matches (status, num);

-- Tokens are stored only as SHA-256 hashes. seat NULL = the host token.
CREATE TABLE tokens (
    hash     TEXT    PRIMARY KEY,
    match_id TEXT    NOT NULL REFERENCES matches (id),
    seat     INTEGER
);
CREATE INDEX tokens_by_match ON tokens (match_id);

-- The append-only event log. (match_id, seq) is the primary key: the final judge between two
-- writers. An undo is an event of its own that retracts an earlier one.
CREATE TABLE events (
    match_id        TEXT    NOT NULL REFERENCES matches (id),
    seq             INTEGER NOT NULL,
    kind            TEXT    NOT NULL,   -- 'action' | 'undo'
    seat            INTEGER,            -- acting seat; NULL = the table
    action          TEXT,               -- JSON as recorded (kind = 'action')
    seed            TEXT,               -- service dealing: the shuffle seed, secret until the round ends
    retracts        INTEGER,            -- kind = 'undo': the seq it retracts
    round           INTEGER NOT NULL,   -- the round the event belongs to
    outcome         TEXT    NOT NULL,   -- JSON array: what the action produced
    created_at      TEXT    NOT NULL,
    idem_key        TEXT,               -- Idempotency-Key of the request that recorded it
    request_hash    TEXT,               -- SHA-256 of (token, path, body) of that request
    response_status INTEGER,            -- the answer to replay to the same request
    response        TEXT,
    PRIMARY KEY (match_id, seq)
);
CREATE UNIQUE INDEX events_idempotency ON events (match_id, idem_key) WHERE idem_key IS NOT NULL;

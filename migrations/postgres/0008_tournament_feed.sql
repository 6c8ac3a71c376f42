-- The tournament-wide feed (issue 23, part 3): every public thing that happens in a tournament, in
-- order, each written in the transaction of the change that causes it (a paired round, an entered
-- result, a table's match write). Keep in step with the other flavour's 0008_tournament_feed.sql.

-- The feed's last seq: taking the next one locks the tournament's row until the change commits,
-- so a tournament's events commit in seq order (on PostgreSQL too, with several instances), and
-- a reader paging with `after` never skips one committed later with a smaller seq.
ALTER TABLE tournaments ADD COLUMN feed_seq BIGINT NOT NULL DEFAULT 0;

-- When the last round was complete (`tournament.finished` in the feed): the list's status filter.
-- NULL: in progress. (Tournaments finished before this migration stay NULL until their next
-- completing write.)
ALTER TABLE tournaments ADD COLUMN finished_at TEXT;

CREATE TABLE tournament_events (
    tournament_id TEXT    NOT NULL REFERENCES tournaments (id),
    seq           BIGINT NOT NULL,          -- 1, 2, 3... per tournament: the SSE id and `after` cursor
    kind          TEXT    NOT NULL,          -- 'round.paired' | 'table.started' | 'deal.scored' | ...
    data          TEXT    NOT NULL,          -- JSON: the event's public facts (no seq, type or time)
    created_at    TEXT    NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);

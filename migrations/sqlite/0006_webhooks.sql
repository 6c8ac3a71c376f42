-- Webhooks (issue 23): a match host or a tournament organiser registers a URL for some kinds of
-- event; each event of those kinds leaves a delivery row in the outbox, written in the same
-- transaction as the event itself, and a background worker delivers it (signed, retried with
-- exponential backoff for a day). Keep in step with the other flavour's 0006_webhooks.sql.

CREATE TABLE webhooks (
    num        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT    NOT NULL UNIQUE,   -- public (128 random bits, hex)
    owner_kind TEXT    NOT NULL,          -- 'match' | 'tournament'
    owner_id   TEXT    NOT NULL,          -- the match's or the tournament's id
    url        TEXT    NOT NULL,
    events     TEXT    NOT NULL,          -- the kinds, each between commas: ',match.finished,deal.scored,'
    secret     TEXT    NOT NULL,          -- the signing key (shown once, at registration)
    created_at TEXT    NOT NULL,
    deleted_at TEXT                       -- NULL while registered; pending deliveries stop once set
);
CREATE INDEX webhooks_by_owner ON webhooks (owner_kind, owner_id);

-- The outbox and the delivery log at once: one row per (webhook, event).
CREATE TABLE webhook_deliveries (
    num             INTEGER PRIMARY KEY AUTOINCREMENT,  -- the log's order and cursor
    id              TEXT    NOT NULL UNIQUE,            -- Clubroom-Delivery: the same on every attempt
    webhook_id      TEXT    NOT NULL REFERENCES webhooks (id),
    event           TEXT    NOT NULL,                   -- the kind: 'deal.scored'...
    payload         TEXT    NOT NULL,                   -- the JSON body sent (public facts only)
    created_at      TEXT    NOT NULL,
    state           TEXT    NOT NULL,                   -- 'pending' | 'delivered' | 'failed'
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT    NOT NULL,                   -- RFC 3339 UTC; a claim pushes it ahead (the lease)
    retry_until     TEXT    NOT NULL,                   -- retried until then (a day after the event or a redelivery)
    last_attempt_at TEXT,
    last_status     INTEGER,                            -- the receiver's HTTP status, NULL: none
    last_error      TEXT,                               -- why the last attempt failed
    delivered_at    TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, num);

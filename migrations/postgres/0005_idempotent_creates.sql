-- Idempotency-Key on creates (POST /v1/matches, /v1/players, /v1/tournaments,
-- /v1/tournaments/{id}/rounds). Writes to a match keep their key in the event row
-- (events.idem_key); a create has no match yet, so its key, the hash of the request that first
-- came with it and the answer to replay live here. Keep in step with the other flavour.
CREATE TABLE idempotent_creates (
    scope            TEXT    NOT NULL,   -- the request path: /v1/players, /v1/tournaments/{id}/rounds...
    idem_key         TEXT    NOT NULL,   -- the Idempotency-Key
    request_hash     TEXT    NOT NULL,   -- SHA-256 of (token hash, path, body), as for actions
    response_status  INTEGER,            -- NULL while the first request is being answered
    response         TEXT,               -- the answer's body (JSON)
    response_headers TEXT,               -- JSON [[name, value]...]: Location, ETag
    claimed_at       TEXT    NOT NULL,   -- RFC 3339 UTC: when the first request claimed the key
    PRIMARY KEY (scope, idem_key)
);

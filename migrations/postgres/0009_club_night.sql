-- Tournaments that survive a club night (issue 24, part 3): late entries, withdrawals and
-- reinstatements, corrections of earlier rounds, archiving and deleting. Keep in step with the
-- other flavour's 0008_club_night.sql.

-- Archived: left out of the default tournament list, still readable by id. Deleted: gone (every
-- read answers 404 `tournament_not_found`), its results out of the club's memory.
ALTER TABLE tournaments ADD COLUMN archived_at TEXT;
ALTER TABLE tournaments ADD COLUMN deleted_at  TEXT;

-- The tournament's change log, append-only: what changed its entrants or an earlier result, who
-- asked and when. (tournament_id, seq) is the judge between two changes at once.
CREATE TABLE tournament_changes (
    tournament_id TEXT    NOT NULL REFERENCES tournaments (id),
    seq           BIGINT NOT NULL,          -- 1, 2, 3... per tournament
    kind          TEXT    NOT NULL,          -- late_entry | withdrawal | reinstatement | correction | archive | unarchive
    detail        TEXT    NOT NULL,          -- JSON, by kind (see src/tournaments/changes.rs)
    by_whom       TEXT    NOT NULL,          -- organiser | organiser+operator
    at            TEXT    NOT NULL,          -- RFC 3339 UTC
    PRIMARY KEY (tournament_id, seq)
);

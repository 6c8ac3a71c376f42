-- The match list filtered by game alone, newest first: walks this index in `num` order (the
-- (game, status, num) index serves only a game and a status together).
CREATE INDEX matches_by_game ON matches (game, num);

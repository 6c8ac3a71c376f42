//! What each event tells a webhook: the public facts only (ids, seq, round, public scores),
//! never a hand, a sealed choice, a seed, a token or the scores of a duplicate board other tables
//! may still be playing. Each builder makes the outbox of one write; the write puts it in its
//! own transaction.

use serde_json::{json, Value};

use crate::store::{FeedEvent, Outbox, OutboxEvent};

/// A match's facts as a write leaves them (built by the match write path).
pub struct MatchFacts<'a> {
    /// The match id.
    pub match_id: &'a str,
    /// The game id.
    pub game: &'a str,
    /// The event's seq (the match's version after it).
    pub seq: i64,
    /// The tournament table the match is played at: `(tournament id, round, table)`.
    pub tournament: Option<(&'a str, u32, u32)>,
    /// Duplicate play: the match's scores stay out of every payload (the round's other tables may
    /// still play the same boards); the receiver reads them once the round is complete.
    pub duplicate: bool,
    /// The score sheet's lines before the write and after it.
    pub lines_before: u32,
    /// After the write.
    pub lines_after: u32,
    /// The sheet's last line after the write: `(label, points)`.
    pub last_line: Option<(String, Vec<i64>)>,
    /// The sheet's totals after the write.
    pub totals: Vec<i64>,
    /// The winners (seats or sides) once finished.
    pub winners: Vec<usize>,
    /// The write finished the match.
    pub finished_now: bool,
    /// The write is the match's first event (the table started playing).
    pub started_now: bool,
    /// The write (an undo) reopened the finished match.
    pub reopened_now: bool,
}

/// The outbox of a match write: `deal.scored` when the sheet gained a line, `match.finished`
/// when the match ended; each to the match's webhooks and, at a tournament table, to the
/// tournament's; and at a tournament table that finished, the round's completion check.
///
/// The tournament feed (public, so nothing of a duplicate board while its round is played: no
/// `deal.scored` at all, and no match id, totals or winners in `table.started` and
/// `table.finished`; `round.complete` tells the match ids once the round is over).
pub fn match_events(f: &MatchFacts<'_>) -> Outbox {
    let mut out = Outbox::default();
    if let Some((id, round, table)) = f.tournament {
        let match_id = (!f.duplicate).then_some(f.match_id);
        let mut feed = |kind: &'static str, data: Value| {
            out.feed.push(FeedEvent {
                tournament_id: id.to_string(),
                kind,
                data,
            })
        };
        if f.started_now {
            feed(
                "table.started",
                json!({"round": round, "table": table, "match_id": match_id}),
            );
        }
        if f.lines_after > f.lines_before && !f.duplicate {
            if let Some((label, points)) = &f.last_line {
                feed(
                    "deal.scored",
                    json!({"round": round, "table": table, "match_id": f.match_id,
                           "line": f.lines_after, "label": label, "points": points,
                           "totals": f.totals}),
                );
            }
        }
        if f.lines_after < f.lines_before && !f.duplicate {
            feed(
                "deal.undone",
                json!({"round": round, "table": table, "match_id": f.match_id,
                       "lines": f.lines_after, "totals": f.totals}),
            );
        }
        if f.reopened_now {
            feed(
                "table.reopened",
                json!({"round": round, "table": table, "match_id": match_id}),
            );
        }
        if f.finished_now {
            let (totals, winners) = if f.duplicate {
                (None, None)
            } else {
                (Some(&f.totals), Some(&f.winners))
            };
            feed(
                "table.finished",
                json!({"round": round, "table": table, "match_id": match_id,
                       "totals": totals, "winners": winners}),
            );
        }
    }
    let tournament = f
        .tournament
        .map(|(id, round, table)| json!({"id": id, "round": round, "table": table}));
    let mut data = |kind: &'static str, mut data: Value| {
        if let Some(t) = &tournament {
            data["tournament"] = t.clone();
        }
        if f.duplicate {
            data["scores_withheld"] = json!(true);
        }
        out.events.push(OutboxEvent {
            owner_kind: "match",
            owner_id: f.match_id.to_string(),
            kind,
            data: data.clone(),
        });
        if let Some((id, _, _)) = f.tournament {
            out.events.push(OutboxEvent {
                owner_kind: "tournament",
                owner_id: id.to_string(),
                kind,
                data,
            });
        }
    };
    if f.lines_after > f.lines_before {
        let mut d = json!({
            "match_id": f.match_id,
            "game": f.game,
            "seq": f.seq,
            "line": f.lines_after,
        });
        if !f.duplicate {
            if let Some((label, points)) = &f.last_line {
                d["label"] = json!(label);
                d["points"] = json!(points);
            }
            d["totals"] = json!(f.totals);
        }
        data("deal.scored", d);
    }
    if f.finished_now {
        let mut d = json!({
            "match_id": f.match_id,
            "game": f.game,
            "seq": f.seq,
            "status": "finished",
        });
        if !f.duplicate {
            d["totals"] = json!(f.totals);
            d["winners"] = json!(f.winners);
        }
        data("match.finished", d);
        if let Some((id, round, _)) = f.tournament {
            out.round_check = Some((id.to_string(), i64::from(round)));
        }
    }
    out
}

/// The outbox of a paired round: `round.paired` with each table's number and match id (none
/// when results are entered as totals); `feed` is the feed's `round.paired` (its public facts).
pub fn round_paired(
    tournament_id: &str,
    round: u32,
    match_ids: &[Option<String>],
    feed: Value,
) -> Outbox {
    let tables: Vec<Value> = match_ids
        .iter()
        .enumerate()
        .map(|(i, m)| json!({"table": i + 1, "match_id": m}))
        .collect();
    Outbox {
        events: vec![OutboxEvent {
            owner_kind: "tournament",
            owner_id: tournament_id.to_string(),
            kind: "round.paired",
            data: json!({"tournament_id": tournament_id, "round": round, "tables": tables}),
        }],
        round_check: None,
        feed: vec![FeedEvent {
            tournament_id: tournament_id.to_string(),
            kind: "round.paired",
            data: feed,
        }],
    }
}

/// The outbox of a result entered by the organiser: `result.entered` (the totals, except in
/// duplicate play), and, when the table had no result before, the round's completion check.
pub fn result_entered(
    tournament_id: &str,
    round: u32,
    table: u32,
    version: i64,
    totals: Option<&[i64]>,
    first_result: bool,
) -> Outbox {
    let mut data = json!({
        "tournament_id": tournament_id,
        "round": round,
        "table": table,
        "version": version,
    });
    match totals {
        Some(t) => data["totals"] = json!(t),
        None => data["scores_withheld"] = json!(true),
    }
    let feed = FeedEvent {
        tournament_id: tournament_id.to_string(),
        kind: "result.entered",
        data: json!({"round": round, "table": table, "version": version,
                     "corrected": !first_result, "totals": totals}),
    };
    Outbox {
        feed: vec![feed],
        events: vec![OutboxEvent {
            owner_kind: "tournament",
            owner_id: tournament_id.to_string(),
            kind: "result.entered",
            data,
        }],
        round_check: first_result.then(|| (tournament_id.to_string(), i64::from(round))),
    }
}

//! The undo probe of a real-card duplicate table (the attack the house rule asks to be written
//! first): the table's host, who records every seat's plays, records for a seat a card the seat
//! was not dealt on the round's board, reads everything it (or any seat of its table, or anyone
//! without a token) can read, undoes it, records a card the seat was dealt, reads everything
//! again and undoes that too. Apart from the card itself and the seqs and times, the two
//! readings must be the same bytes: no difference may tell the host that the first card fouled
//! the board. The organiser alone reads the foul meanwhile, on the round.

use reqwest::StatusCode;
use serde_json::{json, Value};

use super::{Match, TestApp};

/// One reading: what was asked, the status, and the body as compared (normalised).
type Reading = (String, u16, Value);

/// What `path` answers `token`, normalised (`card` hidden): JSON bodies as values, event
/// streams as their messages, anything else (CSV, HTML) as text.
/// `probed`: both cards tried; a legal list that offers the one not recorded is the card itself,
/// so neither is compared there.
async fn read(
    app: &TestApp,
    path: &str,
    token: Option<&str>,
    card: &str,
    probed: [&str; 2],
) -> Reading {
    let mut a = app.get(path, token).await;
    if let Some(actions) = a.body.get_mut("actions").and_then(Value::as_array_mut) {
        actions.retain(|x| !probed.iter().any(|c| x["card"] == *c));
    }
    let body = if a.content_type.starts_with("text/event-stream") {
        Value::Array(
            a.text
                .split("\n\n")
                .filter(|m| !m.trim().is_empty())
                .filter_map(|m| {
                    let mut kind = Value::Null;
                    let mut data = Value::Null;
                    for line in m.lines() {
                        if let Some(k) = line.strip_prefix("event: ") {
                            kind = json!(k);
                        } else if let Some(d) = line.strip_prefix("data: ") {
                            data = serde_json::from_str(d).unwrap_or_else(|_| json!(d));
                        }
                        // `id:` is a seq, `:` lines keep-alives: neither is compared.
                    }
                    // The retracted play and its undo are the attacker's own doing.
                    (!retracted_or_undo(&data)).then(|| json!({"event": kind, "data": data}))
                })
                .collect(),
        )
    } else if a.body.is_null() {
        json!(a.text.replace(card, "<card>"))
    } else {
        a.body.clone()
    };
    (
        format!("{path} as {token:?}"),
        a.status.as_u16(),
        normalise(body, card),
    )
}

/// An event retracted, or an undo.
fn retracted_or_undo(v: &Value) -> bool {
    v.get("kind") == Some(&json!("undo")) || v.get("retracted_by").is_some_and(|r| !r.is_null())
}

/// `v` with `card` hidden wherever it is a string, the seqs and times blanked, and retracted
/// events and undos left out of every list.
fn normalise(v: Value, card: &str) -> Value {
    match v {
        Value::String(s) if s == card => json!("<card>"),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .filter(|i| !retracted_or_undo(i))
                .map(|i| normalise(i, card))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| {
                    let blank = matches!(
                        k.as_str(),
                        "seq"
                            | "created_at"
                            | "updated_at"
                            | "at"
                            | "next_after"
                            | "retracts"
                            | "retracted_by"
                    );
                    let v = if blank {
                        json!("<blank>")
                    } else {
                        normalise(v, card)
                    };
                    (k, v)
                })
                .collect(),
        ),
        other => other,
    }
}

/// Everything the host of `m`, its seats and anyone without a token can read of the match and
/// of tournament `tid` (whose round `m` plays), normalised with `card` hidden.
async fn readings(
    app: &TestApp,
    tid: &str,
    m: &Match,
    card: &str,
    probed: [&str; 2],
) -> Vec<Reading> {
    let mut tokens: Vec<Option<&str>> = vec![Some(m.host.as_str()), None];
    tokens.extend(m.seats.iter().map(|s| Some(s.as_str())));
    let id = &m.id;
    let mut paths = vec![
        format!("/v1/matches/{id}"),
        format!("/v1/matches/{id}/events?after=0&limit=1000"),
        format!("/v1/matches/{id}/stream?once=true&last_event_id=0"),
        format!("/v1/matches/{id}/scores"),
        format!("/v1/matches/{id}/scores.csv"),
        format!("/v1/matches/{id}/legal"),
        "/v1/matches".to_string(),
        format!("/v1/tournaments/{tid}"),
        format!("/v1/tournaments/{tid}/standings"),
        format!("/v1/tournaments/{tid}/events?after=0"),
        format!("/v1/tournaments/{tid}/stream?once=true&last_event_id=0"),
        format!("/v1/tournaments/{tid}/log"),
        format!("/v1/tournaments/{tid}/export/results.json"),
        format!("/v1/tournaments/{tid}/export/bgstats.json"),
        format!("/v1/tournaments/{tid}/export/standings.csv"),
        format!("/v1/tournaments/{tid}/export/results.csv"),
        format!("/v1/tournaments/{tid}/rounds/1"),
        format!("/v1/tournaments/{tid}/rounds/1/assignments"),
    ];
    paths.extend((0..m.seats.len()).map(|s| format!("/v1/matches/{id}/legal?seat={s}")));
    let mut out = vec![];
    for token in tokens {
        for path in &paths {
            out.push(read(app, path, token, card, probed).await);
        }
    }
    out
}

/// The organiser's round: the fouls listed for table `table` (from 1).
async fn organiser_fouls(app: &TestApp, tid: &str, org: &str, table: usize) -> Value {
    let r = app
        .get(&format!("/v1/tournaments/{tid}/rounds/1"), Some(org))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let t = &r.body["tokens"][table - 1];
    assert_eq!(t["table"], table);
    t.get("fouls").cloned().unwrap_or(json!([]))
}

/// Records `action` for `seat` with the host's token (with `Prefer: return=minimal` when
/// `minimal`); 200/201.
async fn record(app: &TestApp, m: &Match, seat: usize, action: &Value, minimal: bool) -> Value {
    let headers: &[(&str, &str)] = if minimal {
        &[("Prefer", "return=minimal")]
    } else {
        &[]
    };
    let a = app
        .act_with(m, &m.host, Some(seat), action.clone(), headers)
        .await;
    let want = if minimal {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    assert_eq!(a.status, want, "{action}: {}", a.text);
    a.body
}

/// The probe at table `table` (from 1) of round 1 of tournament `tid`, match `m`, where `seat`
/// is to act: `play(card)` is the action that shows `card`; `bad` is a card the seat was not
/// dealt on board `board`, `good` one it was. Leaves the match as it found it (both plays
/// undone).
#[allow(clippy::too_many_arguments)]
pub async fn undo_probe(
    app: &TestApp,
    tid: &str,
    org: &str,
    table: usize,
    m: &Match,
    board: u32,
    seat: usize,
    play: impl Fn(&str) -> Value,
    bad: &str,
    good: &str,
) {
    let before = app.view(m, Some(&m.host)).await;
    assert_eq!(before["to_act"], json!([seat]), "{before}");
    let mut answers = vec![];
    let mut seen = vec![];
    let mut organiser = vec![];
    for (card, fouls) in [(bad, true), (good, false)] {
        let answer = record(app, m, seat, &play(card), false).await;
        let seq = answer["event"]["seq"].as_i64().unwrap();
        let reading = readings(app, tid, m, card, [bad, good]).await;
        // The play itself is there to read (the normalising hides the card, not the play).
        let host_log = &reading[1];
        assert_eq!(host_log.1, 200, "{host_log:?}");
        assert!(
            host_log.2["events"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["action"]["card"] == "<card>"),
            "{host_log:?}"
        );
        // The organiser reads the foul meanwhile, and only it.
        let want = if fouls {
            json!([{"board": board, "seat": seat, "card": card, "seq": seq}])
        } else {
            json!([])
        };
        organiser.push((organiser_fouls(app, tid, org, table).await, want));
        let undo = app.undo(m, &m.host).await;
        assert_eq!(undo.status, StatusCode::CREATED, "{}", undo.text);
        // The same again with the minimal answer.
        let minimal = record(app, m, seat, &play(card), true).await;
        let undo_minimal = app.undo(m, &m.host).await;
        assert_eq!(undo_minimal.status, StatusCode::CREATED);
        answers.push([answer, undo.body, minimal, undo_minimal.body].map(|a| normalise(a, card)));
        seen.push(reading);
    }
    // Nothing the host or anyone else read tells the two plays apart.
    assert_eq!(answers[0], answers[1], "the answers tell the foul");
    assert_eq!(seen[0].len(), seen[1].len());
    for (b, g) in seen[0].iter().zip(&seen[1]) {
        assert_eq!(b, g, "a reading tells the foul");
    }
    for (got, want) in organiser {
        assert_eq!(got, want);
    }
    assert_eq!(organiser_fouls(app, tid, org, table).await, json!([]));
    let after = app.view(m, Some(&m.host)).await;
    assert_eq!(after["to_act"], json!([seat]));
    assert_eq!(after["table"], before["table"]);
}

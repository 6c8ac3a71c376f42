//! `GET /v1/matches/{id}/stream`: Server-Sent Events over HTTP, on a fresh app (port 0) per test.
//! Set `TEST_DATABASE_URL` to a PostgreSQL URL to run them against PostgreSQL (the second-instance
//! test then goes through LISTEN/NOTIFY).

mod common;

use std::time::Duration;

use common::{Match, Sse, SseMsg as Msg, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// A match's stream: `GET /v1/matches/{id}/stream{query}` with `headers`.
async fn open(app: &TestApp, m: &Match, query: &str, headers: &[(&str, &str)]) -> Sse {
    Sse::open(app, &format!("/v1/matches/{}/stream{query}", m.id), headers).await
}

/// Messages until the next `match` one (included).
async fn until_match(s: &mut Sse) -> Vec<Msg> {
    let mut out = vec![];
    loop {
        let m = s.next().await.expect("a match message");
        let done = m.kind == "match";
        out.push(m);
        if done {
            return out;
        }
    }
}

fn events_of(msgs: &[Msg]) -> Vec<Value> {
    msgs.iter()
        .filter(|m| m.kind == "event")
        .map(|m| m.data.clone())
        .collect()
}

/// Plays `n` legal actions with each seat's own token.
async fn play(app: &TestApp, m: &Match, n: usize) {
    for _ in 0..n {
        let v = app.view(m, None).await;
        let seat = v["to_act"][0].as_u64().expect("a seat to act") as usize;
        let legal = app.legal(m, seat, Some(&m.seats[seat])).await;
        let a = app
            .act(m, &m.seats[seat], Some(seat), legal[0].clone())
            .await;
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    }
}

async fn service_clubs(app: &TestApp) -> Match {
    let m = app.create("clubs", 4, "service", json!({})).await;
    let a = app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    m
}

#[actix_web::test]
async fn each_seat_stream_shows_its_own_hand_and_the_log_as_get_events_renders_it() {
    let app = TestApp::spawn().await;
    let m = service_clubs(&app).await;
    play(&app, &m, 3).await;
    for seat in 0..4 {
        let token = &m.seats[seat];
        let mut s = open(
            &app,
            &m,
            "?last_event_id=0&once=true",
            &[("authorization", &format!("Bearer {token}"))],
        )
        .await;
        let msgs = s.all().await;
        assert_eq!(events_of(&msgs), app.events(&m, Some(token)).await);
        let last = msgs.last().unwrap();
        assert_eq!(last.kind, "match");
        assert_eq!(last.id, Some(4));
        assert_eq!(last.data, app.view(&m, Some(token)).await);
        assert_eq!(last.data["you"]["seat"], json!(seat));
        // The other hands appear nowhere in this seat's stream.
        let text =
            serde_json::to_string(&msgs.iter().map(|m| &m.data).collect::<Vec<_>>()).unwrap();
        for other in (0..4).filter(|&o| o != seat) {
            let hand = app.view(&m, Some(&m.seats[other])).await["you"]["hand"].clone();
            for card in hand.as_array().unwrap() {
                assert!(
                    !text.contains(&format!("\"{}\"", card.as_str().unwrap())),
                    "seat {seat}'s stream shows seat {other}'s {card}"
                );
            }
        }
    }
    // The token may come by query (EventSource cannot set headers); without one, no hand.
    let mut s = open(&app, &m, &format!("?once=true&token={}", m.seats[2]), &[]).await;
    assert_eq!(s.all().await.last().unwrap().data["you"]["seat"], json!(2));
    let mut s = open(&app, &m, "?once=true", &[]).await;
    assert_eq!(s.all().await.last().unwrap().data["you"], Value::Null);
}

#[actix_web::test]
async fn a_stream_resumed_after_last_event_id_gets_exactly_the_missing_events() {
    let app = TestApp::spawn().await;
    let m = service_clubs(&app).await;
    play(&app, &m, 6).await; // seq 7
    let auth = format!("Bearer {}", m.seats[1]);
    let mut s = open(
        &app,
        &m,
        "",
        &[("authorization", &auth), ("last-event-id", "4")],
    )
    .await;
    let msgs = until_match(&mut s).await;
    let seqs: Vec<i64> = events_of(&msgs)
        .iter()
        .map(|e| e["seq"].as_i64().unwrap())
        .collect();
    assert_eq!(seqs, vec![5, 6, 7]);
    assert_eq!(msgs.last().unwrap().id, Some(7));
    // The query parameter does the same for clients that cannot set headers.
    let mut s = open(
        &app,
        &m,
        &format!("?token={}&last_event_id=6&once=true", m.seats[1]),
        &[],
    )
    .await;
    let seqs: Vec<i64> = events_of(&s.all().await)
        .iter()
        .map(|e| e["seq"].as_i64().unwrap())
        .collect();
    assert_eq!(seqs, vec![7]);
}

#[actix_web::test]
async fn a_live_stream_gets_each_write_then_the_new_view_and_an_undo_too() {
    let app = TestApp::spawn().await;
    let m = service_clubs(&app).await;
    let auth = format!("Bearer {}", m.seats[0]);
    let mut s = open(&app, &m, "", &[("authorization", &auth)]).await;
    let first = until_match(&mut s).await;
    assert_eq!(first.len(), 1, "no past events without Last-Event-ID");
    assert_eq!(first[0].id, Some(1));
    play(&app, &m, 2).await;
    let mut got = vec![];
    while got.len() < 2 {
        got.extend(events_of(&until_match(&mut s).await));
    }
    assert_eq!(got, app.events(&m, Some(&m.seats[0])).await[1..].to_vec());
    assert_eq!(app.undo(&m, &m.host).await.status, StatusCode::CREATED);
    let msgs = until_match(&mut s).await;
    assert_eq!(events_of(&msgs)[0]["kind"], "undo");
    assert_eq!(msgs.last().unwrap().data["seq"], json!(4));
}

#[actix_web::test]
async fn many_streams_of_each_viewer_each_get_exactly_what_that_viewer_may_see() {
    let app = TestApp::spawn().await;
    let m = service_clubs(&app).await;
    // Per viewer (no token, the host, each seat) three live streams and one resumed from the
    // start: the same viewer at different places in the log.
    let mut viewers: Vec<Option<String>> = vec![None, Some(m.host.clone())];
    viewers.extend(m.seats.iter().cloned().map(Some));
    let mut streams = vec![];
    for token in &viewers {
        for resumed in [false, false, false, true] {
            let mut headers = vec![];
            let auth = token.as_ref().map(|t| format!("Bearer {t}"));
            if let Some(a) = &auth {
                headers.push(("authorization", a.as_str()));
            }
            if resumed {
                headers.push(("last-event-id", "0"));
            }
            let mut s = open(&app, &m, "", &headers).await;
            let first = until_match(&mut s).await;
            streams.push((token.clone(), resumed, s, first));
        }
    }
    play(&app, &m, 4).await; // seq 5
    for (token, resumed, s, first) in &mut streams {
        let mut msgs = first.clone();
        while msgs.last().unwrap().id != Some(5) {
            msgs.extend(until_match(s).await);
        }
        let all = app.events(&m, token.as_deref()).await;
        let want = if *resumed { &all[..] } else { &all[1..] };
        assert_eq!(events_of(&msgs), want, "{token:?} resumed {resumed}");
        assert_eq!(
            msgs.last().unwrap().data,
            app.view(&m, token.as_deref()).await,
            "{token:?}"
        );
    }
}

#[actix_web::test]
async fn a_write_on_a_second_instance_reaches_a_stream_on_the_first() {
    let app = TestApp::spawn().await;
    let other = TestApp::on(&app.database_url).await;
    let m = service_clubs(&app).await;
    let mut s = open(&app, &m, "", &[]).await;
    until_match(&mut s).await;
    play(&other, &m, 1).await;
    if app.database_url.starts_with("postgres") {
        // LISTEN/NOTIFY: at once.
        let msgs = tokio::time::timeout(Duration::from_secs(5), until_match(&mut s))
            .await
            .expect("the other instance's write arrives within 5 s");
        assert_eq!(events_of(&msgs)[0]["seq"], json!(2));
        assert_eq!(msgs.last().unwrap().data["seq"], json!(2));
    } else {
        // SQLite: one process is the supported deployment and nothing polls the file (an idle
        // stream costs nothing); another process's write reaches this one's streams with the
        // next write made here, in order, each event once.
        play(&app, &m, 1).await;
        let mut got = vec![];
        while got.len() < 2 {
            got.extend(events_of(&until_match(&mut s).await));
        }
        let seqs: Vec<&Value> = got.iter().map(|e| &e["seq"]).collect();
        assert_eq!(seqs, [&json!(2), &json!(3)]);
    }
}

/// A stream opened after another instance's write sends it, though this instance has not heard
/// of the write (on SQLite it never does; on PostgreSQL its `LISTEN` may come after the
/// request) and a stream of the same viewer here shared a rendering from the same place before
/// it: the stream reaches the log's end the request read from the database.
#[actix_web::test]
async fn a_stream_opened_after_another_instances_write_sends_it() {
    let app = TestApp::spawn().await;
    let other = TestApp::on(&app.database_url).await;
    let m = service_clubs(&app).await;
    // Tokenless streams from seq 1 on this instance: "nothing after 1, and the view at 1",
    // rendered once and shared while `s` lives.
    let mut s = open(&app, &m, "", &[("Last-Event-ID", "1")]).await;
    let first = until_match(&mut s).await;
    assert_eq!(events_of(&first), Vec::<Value>::new());
    assert_eq!(first.last().unwrap().data["seq"], json!(1));
    let mut probe = open(&app, &m, "?once=true", &[("Last-Event-ID", "1")]).await;
    let got = probe.all().await;
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].data["seq"], json!(1));
    play(&other, &m, 1).await;
    let mut once = open(&app, &m, "?once=true", &[("Last-Event-ID", "1")]).await;
    let got = once.all().await;
    let seqs: Vec<(&str, &Value)> = got
        .iter()
        .map(|m| (m.kind.as_str(), &m.data["seq"]))
        .collect();
    assert_eq!(
        seqs,
        [("event", &json!(2)), ("match", &json!(2))],
        "{got:?}"
    );
    drop(s);
}

#[actix_web::test]
async fn on_postgresql_a_write_made_while_the_listener_was_cut_off_still_reaches_the_stream() {
    let app = TestApp::spawn().await;
    if !app.database_url.starts_with("postgres") {
        eprintln!("NOTE: skipped: PostgreSQL only (set TEST_DATABASE_URL)");
        return;
    }
    let other = TestApp::on(&app.database_url).await;
    let m = service_clubs(&app).await;
    let mut s = open(&app, &m, "", &[]).await;
    until_match(&mut s).await;
    // Cut every LISTEN session on this database (both instances'): what is announced before
    // they listen again is never delivered; the listener reads the followed matches' versions
    // once it is back.
    sqlx::any::install_default_drivers();
    let db = app.database_url.rsplit('/').next().unwrap().to_string();
    let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&app.database_url)
        .await
        .unwrap();
    let cut: i64 = sqlx::query_scalar(
        "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity \
         WHERE datname = $1 AND query LIKE 'LISTEN%'",
    )
    .bind(&db)
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert!(cut >= 1, "no LISTEN session to cut");
    play(&other, &m, 1).await;
    let msgs = tokio::time::timeout(Duration::from_secs(5), until_match(&mut s))
        .await
        .expect("the write arrives within 5 s");
    assert_eq!(events_of(&msgs)[0]["seq"], json!(2));
    assert_eq!(msgs.last().unwrap().data["seq"], json!(2));
}

#[actix_web::test]
async fn a_stream_refuses_a_bad_token_an_unknown_match_and_a_bad_last_event_id() {
    let app = TestApp::spawn().await;
    let m = service_clubs(&app).await;
    let a = app
        .get(&format!("/v1/matches/{}/stream?token=nope", m.id), None)
        .await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );
    let a = app
        .get(&format!("/v1/matches/{}/stream", "0".repeat(32)), None)
        .await;
    assert_eq!(a.status, StatusCode::NOT_FOUND);
    let a = app
        .request(
            reqwest::Method::GET,
            &format!("/v1/matches/{}/stream", m.id),
            None,
            &[("last-event-id", "x1")],
            None,
        )
        .await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::BAD_REQUEST, "invalid_last_event_id")
    );
}

#[actix_web::test]
async fn the_table_page_and_its_files_are_served_by_the_binary() {
    let app = TestApp::spawn().await;
    let a = app.get("/", None).await;
    assert_eq!(a.status, StatusCode::OK);
    assert!(
        a.content_type.starts_with("text/html"),
        "{}",
        a.content_type
    );
    // The index names its files by their content-hashed names (tests/page.rs).
    assert!(a.text.contains("/web/app."));
    for (path, ct) in [
        ("/web/app.js", "text/javascript"),
        ("/web/style.css", "text/css"),
        ("/web/vendor/qrcode.js", "text/javascript"),
    ] {
        let a = app.get(path, None).await;
        assert_eq!(a.status, StatusCode::OK, "{path}");
        assert!(a.content_type.starts_with(ct), "{path}: {}", a.content_type);
    }
    assert_eq!(
        app.get("/web/nope.js", None).await.status,
        StatusCode::NOT_FOUND
    );
    // The page uses the stream with the token in the query (EventSource cannot set headers),
    // opened from the last event of the log it has read, and keeps the score sheet between
    // views that leave it as it was.
    let js = app.get("/web/app.js", None).await.text;
    assert!(js.contains("/stream?scores=changed&last_event_id=${after}&token="));
    assert!(js.contains("\"match_lite\""));
}

/// Opens live streams of `m`: `per` of each viewer (no token, the host, each seat), the last of
/// each resumed from the start (another place in the log), each read to its first view.
async fn live_streams(
    app: &TestApp,
    m: &Match,
    per: usize,
) -> Vec<(Option<String>, Sse, Vec<Msg>)> {
    let mut viewers: Vec<Option<String>> = vec![None, Some(m.host.clone())];
    viewers.extend(m.seats.iter().cloned().map(Some));
    let mut out = vec![];
    for token in viewers {
        for i in 0..per {
            let auth = token.as_ref().map(|t| format!("Bearer {t}"));
            let mut headers = vec![];
            if let Some(a) = &auth {
                headers.push(("authorization", a.as_str()));
            }
            if i + 1 == per {
                headers.push(("last-event-id", "0"));
            }
            let mut s = open(app, m, "", &headers).await;
            let first = until_match(&mut s).await;
            out.push((token.clone(), s, first));
        }
    }
    out
}

/// Reads each stream on until its view reaches `seq`: every message each received so far.
async fn read_to(streams: &mut [(Option<String>, Sse, Vec<Msg>)], seq: i64) {
    for (_, s, msgs) in streams.iter_mut() {
        while msgs.last().unwrap().id != Some(seq) {
            msgs.extend(until_match(s).await);
        }
    }
}

// Attack: the frames a room's streams share in memory (rendered once per viewer) must never
// reach another viewer: seats watching live, several streams each, never see another seat's
// hand, and each stream is exactly what that token's own reads show.
#[actix_web::test]
async fn shared_live_frames_never_carry_another_seats_hand() {
    let app = TestApp::spawn().await;
    let m = service_clubs(&app).await;
    let mut streams = live_streams(&app, &m, 3).await;
    play(&app, &m, 6).await; // seq 7
    read_to(&mut streams, 7).await;
    let mut hands = vec![];
    for seat in 0..4 {
        let hand = app.view(&m, Some(&m.seats[seat])).await["you"]["hand"].clone();
        let hand: Vec<String> = hand
            .as_array()
            .unwrap()
            .iter()
            .map(|c| format!("\"{}\"", c.as_str().unwrap()))
            .collect();
        assert!(!hand.is_empty());
        hands.push(hand);
    }
    for (token, _, msgs) in &streams {
        let seat = m.seats.iter().position(|t| Some(t) == token.as_ref());
        let text =
            serde_json::to_string(&msgs.iter().map(|m| &m.data).collect::<Vec<_>>()).unwrap();
        for (other, hand) in hands.iter().enumerate() {
            if Some(other) == seat {
                continue;
            }
            for card in hand {
                assert!(
                    !text.contains(card),
                    "{token:?}'s stream shows seat {other}'s {card}"
                );
            }
        }
        let all = app.events(&m, token.as_deref()).await;
        let resumed = msgs[0].kind == "event";
        let want = if resumed { &all[..] } else { &all[1..] };
        assert_eq!(events_of(msgs), want, "{token:?}");
        assert_eq!(
            msgs.last().unwrap().data,
            app.view(&m, token.as_deref()).await
        );
        assert_eq!(msgs.last().unwrap().data["you"]["seat"], json!(seat));
    }
}

// Attack: a sealed choice made while every viewer watches reaches only its own seat (and those
// the match's own reads show it to) until the choices are revealed.
#[actix_web::test]
async fn a_sealed_choice_reaches_no_other_seats_live_stream_before_the_reveal() {
    let app = TestApp::spawn().await;
    let m = app
        .create("by-hook-or-crook", 3, "service", json!({}))
        .await;
    let a = app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    let mut streams = live_streams(&app, &m, 2).await;
    for (s, place) in [(1, "castle"), (0, "auction")] {
        let r = app
            .act(
                &m,
                &m.seats[s],
                Some(s),
                json!({"type": "location", "place": place}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    read_to(&mut streams, 3).await;
    for (token, _, msgs) in &streams {
        let all = app.events(&m, token.as_deref()).await;
        let resumed = msgs[0].kind == "event";
        let want = if resumed { &all[..] } else { &all[1..] };
        let got = events_of(msgs);
        assert_eq!(got, want, "{token:?}");
        assert_eq!(
            msgs.last().unwrap().data,
            app.view(&m, token.as_deref()).await
        );
        let seq2 = got.iter().find(|e| e["seq"] == 2).unwrap();
        let seq3 = got.iter().find(|e| e["seq"] == 3).unwrap();
        let sealed = json!({"type": "location", "sealed": true});
        if token.as_deref() != Some(m.seats[1].as_str()) {
            assert_eq!(
                seq2["action"], sealed,
                "{token:?} sees seat 1's sealed choice"
            );
        } else {
            assert_eq!(seq2["action"]["place"], "castle");
        }
        if token.as_deref() != Some(m.seats[0].as_str()) {
            assert_eq!(
                seq3["action"], sealed,
                "{token:?} sees seat 0's sealed choice"
            );
        }
    }
}

/// Messages until the next view (`match` or `match_lite`, included).
async fn until_view(s: &mut Sse) -> Vec<Msg> {
    let mut out = vec![];
    loop {
        let m = s.next().await.expect("a view");
        let done = m.kind == "match" || m.kind == "match_lite";
        out.push(m);
        if done {
            return out;
        }
    }
}

/// `view` without its score sheet: what a `match_lite` message carries.
fn without_scores(mut view: Value) -> Value {
    view.as_object_mut().unwrap().remove("scores");
    view
}

#[actix_web::test]
async fn with_scores_changed_a_view_carries_the_sheet_only_when_it_changed() {
    let app = TestApp::spawn().await;
    let m = service_clubs(&app).await;
    let seat0 = format!("Bearer {}", m.seats[0]);
    let mut lite = open(&app, &m, "?scores=changed", &[("authorization", &seat0)]).await;
    let mut full = open(&app, &m, "", &[("authorization", &seat0)]).await;
    // The first view of a stream always carries the sheet.
    let first = until_view(&mut lite).await;
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].kind, "match");
    assert_eq!(first[0].data, app.view(&m, Some(&m.seats[0])).await);
    assert_eq!(until_view(&mut full).await[0].kind, "match");
    let mut sheet = first[0].data["scores"].clone();
    let (mut lites, mut fulls) = (0, 0);
    // A whole deal (52 cards), the next deal and a card of it: the sheet changes once.
    for _ in 0..54 {
        let v = app.view(&m, None).await;
        let a = if v["table_to_act"] == json!(true) {
            app.act(&m, &m.host, None, json!({"type": "deal"})).await
        } else {
            let seat = v["to_act"][0].as_u64().expect("a seat to act") as usize;
            let legal = app.legal(&m, seat, Some(&m.seats[seat])).await;
            app.act(&m, &m.seats[seat], Some(seat), legal[0].clone())
                .await
        };
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
        let now = app.view(&m, Some(&m.seats[0])).await;
        let msgs = until_view(&mut lite).await;
        let view = msgs.last().unwrap();
        assert_eq!(view.id, now["seq"].as_i64());
        let log = app.events(&m, Some(&m.seats[0])).await;
        assert_eq!(events_of(&msgs), log[log.len() - 1..].to_vec());
        if now["scores"] == sheet {
            assert_eq!(view.kind, "match_lite", "the sheet did not change");
            assert_eq!(view.data, without_scores(now.clone()));
            lites += 1;
        } else {
            assert_eq!(view.kind, "match", "the sheet changed");
            assert_eq!(view.data, now);
            sheet = now["scores"].clone();
            fulls += 1;
        }
    }
    assert_eq!(fulls, 1, "the deal scored once");
    assert_eq!(lites, 53);
    assert_eq!(sheet["rounds"].as_array().unwrap().len(), 1);
    // Without the option every view is a whole `match`.
    let last = app.view(&m, None).await["seq"].as_i64();
    loop {
        let msgs = until_view(&mut full).await;
        assert!(msgs.iter().all(|m| m.kind != "match_lite"));
        if msgs.last().unwrap().id == last {
            break;
        }
    }
    // A resumed stream starts with the sheet again (it keeps nothing of an earlier one).
    let mut again = open(
        &app,
        &m,
        "?scores=changed&once=true&last_event_id=50",
        &[("authorization", &seat0)],
    )
    .await;
    let msgs = again.all().await;
    assert_eq!(msgs.last().unwrap().kind, "match");
    assert_eq!(
        msgs.iter().filter(|m| m.kind.starts_with("match")).count(),
        1
    );
    // Anything but `full` or `changed` is refused.
    let r = app
        .client
        .get(format!(
            "{}/v1/matches/{}/stream?scores=some",
            app.base, m.id
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let p: Value = r.json().await.unwrap();
    assert_eq!(p["code"], "invalid_query");
}

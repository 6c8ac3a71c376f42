//! The store's append under concurrency, below the HTTP layer: concurrent appends are committed
//! in groups (one multi-row statement, one fsync or WAL flush), and each append must still succeed
//! or fail on its own. On SQLite, or on PostgreSQL when `TEST_DATABASE_URL` names a server.

mod common;

use std::collections::HashMap;

use clubroom::store::{EventRow, MatchRow, Store, StoreError};

fn match_row(id: &str) -> MatchRow {
    MatchRow {
        num: 0,
        id: id.into(),
        game: "dump".into(),
        players: r#"["A","B"]"#.into(),
        config: r#"{"target":100,"first_dealer":0}"#.into(),
        dealing: "table".into(),
        status: "in_progress".into(),
        created_at: "2025-01-01T00:00:00.000Z".into(),
        ..MatchRow::default()
    }
}

/// A store on a fresh database holding `count` new matches named `prefix` and a number, the
/// database's URL, and (on SQLite) the guard that keeps the file's directory alive.
async fn store_with_matches(
    prefix: &str,
    count: usize,
) -> (Store, Vec<String>, String, Option<tempfile::TempDir>) {
    let (url, dir) = common::fresh_database().await;
    let store = Store::connect_with(&url, common::store_options())
        .await
        .unwrap();
    let matches: Vec<String> = (0..count).map(|i| format!("{prefix}{i:02}")).collect();
    for m in &matches {
        store.insert_match(&match_row(m), &[]).await.unwrap();
    }
    (store, matches, url, dir)
}

fn event(match_id: &str, seq: i64, writer: usize) -> EventRow {
    EventRow {
        match_id: match_id.into(),
        seq,
        kind: "action".into(),
        action: Some(format!(r#"{{"writer":{writer}}}"#)),
        outcome: "[]".into(),
        created_at: "2025-01-01T00:00:00.000Z".into(),
        ..EventRow::default()
    }
}

/// `writers` writers race, all at once, for every seq of `seqs` of every match, writer `w`'s
/// append at `seq` carrying the status `status(seq, w)`. Each append must win or lose its seq
/// (`Conflict`), nothing else, and no seq may have two winners. Returns the winner of each
/// `(match, seq)`.
async fn race_for_every_seq(
    store: &Store,
    matches: &[String],
    seqs: std::ops::RangeInclusive<i64>,
    writers: usize,
    status: fn(i64, usize) -> Option<&'static str>,
) -> HashMap<(String, i64), usize> {
    let mut tasks = vec![];
    for seq in seqs {
        for m in matches {
            for writer in 0..writers {
                let (store, m) = (store.clone(), m.clone());
                tasks.push(tokio::spawn(async move {
                    let r = store
                        .append(&event(&m, seq, writer), status(seq, writer))
                        .await;
                    (m, seq, writer, r)
                }));
            }
        }
    }
    let mut winners = HashMap::new();
    for t in tasks {
        let (m, seq, writer, r) = t.await.unwrap();
        match r {
            Ok(()) => assert!(
                winners.insert((m.clone(), seq), writer).is_none(),
                "two writers won {m} seq {seq}"
            ),
            Err(StoreError::Conflict) => {}
            Err(other) => panic!("{m} seq {seq}: unexpected {other}"),
        }
    }
    winners
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_appends_each_win_or_lose_their_own_seq_and_nothing_else() {
    // 48 matches x 3 writers: up to 144 appends queue at once, more than one insert statement
    // carries (128), so a batch also spans several statements in one transaction.
    let (store, matches, _url, _dir) = store_with_matches("m", 48).await;
    // Three writers race for every seq 1..=10 of every match. At seq 10 writers 1 and 2 also mark
    // the match finished (a status update in the same append) and writer 0 does not: the status
    // must follow whoever won.
    let winners = race_for_every_seq(&store, &matches, 1..=10, 3, |seq, writer| {
        (seq == 10 && writer > 0).then_some("finished")
    })
    .await;
    assert_eq!(
        winners.len(),
        48 * 10,
        "every seq of every match has one winner"
    );
    for m in &matches {
        let events = store.events_after(m, 0, 100).await.unwrap();
        let seqs: Vec<i64> = events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (1..=10).collect::<Vec<_>>(), "{m}'s log");
        for e in &events {
            let writer = winners[&(m.clone(), e.seq)];
            assert_eq!(
                e.action.as_deref(),
                Some(&*format!(r#"{{"writer":{writer}}}"#))
            );
        }
    }
    let finished = store
        .list_matches(None, None, Some("finished"), None, 100)
        .await
        .unwrap();
    let mut ids: Vec<&str> = finished.iter().map(|r| r.row.id.as_str()).collect();
    ids.sort();
    let expected: Vec<&str> = matches
        .iter()
        .filter(|m| winners[&((*m).clone(), 10)] > 0)
        .map(String::as_str)
        .collect();
    assert_eq!(ids, expected, "only the appends that won changed a status");
}

/// Three writers per match, each appending seq 1, 2, 3... in turn (as three service instances
/// writing to one match would), across many matches at once: the batches in flight keep taking
/// the same keys, in every order. Every seq of every match ends with exactly one writer's event,
/// and no append fails for any other reason (no deadlock between batches on PostgreSQL).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_writers_on_every_match_never_deadlock_and_each_seq_has_one_winner() {
    let (store, matches, _url, _dir) = store_with_matches("r", 32).await;
    const SEQS: i64 = 15;
    let mut tasks = vec![];
    for m in &matches {
        for writer in 0..3 {
            let (store, m) = (store.clone(), m.clone());
            tasks.push(tokio::spawn(async move {
                let mut won = vec![];
                for seq in 1..=SEQS {
                    match store.append(&event(&m, seq, writer), None).await {
                        Ok(()) => won.push(seq),
                        Err(StoreError::Conflict) => {}
                        Err(other) => panic!("{m} seq {seq} writer {writer}: unexpected {other}"),
                    }
                }
                (m, writer, won)
            }));
        }
    }
    let mut winners = HashMap::new();
    for t in tasks {
        let (m, writer, won) = t.await.unwrap();
        for seq in won {
            assert!(
                winners.insert((m.clone(), seq), writer).is_none(),
                "two writers won {m} seq {seq}"
            );
        }
    }
    for m in &matches {
        let events = store.events_after(m, 0, 100).await.unwrap();
        let seqs: Vec<i64> = events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (1..=SEQS).collect::<Vec<_>>(), "{m}'s log");
        for e in &events {
            let writer = winners[&(m.clone(), e.seq)];
            assert_eq!(
                e.action.as_deref(),
                Some(&*format!(r#"{{"writer":{writer}}}"#))
            );
        }
    }
}

/// Appends that go in, lose their seq and carry a token rotated away, all queued at once across
/// many matches so that they share batches (and, past 128, a batch's several statements): each
/// is told its own fate, and the log holds exactly those that went in. On SQLite the insert
/// returns no rows, only a count, and the rows that went in are read back when the count falls
/// short: this is the test of that reading.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn each_append_of_a_mixed_batch_learns_whether_it_went_in_lost_its_seq_or_its_token() {
    let (url, _dir) = common::fresh_database().await;
    let store = Store::connect_with(&url, common::store_options())
        .await
        .unwrap();
    let matches: Vec<String> = (0..90).map(|i| format!("x{i:02}")).collect();
    for m in &matches {
        let tokens = [(format!("held-{m}"), Some(0))];
        store.insert_match(&match_row(m), &tokens).await.unwrap();
    }
    // Every third match already has its seq 1 (writer 9's).
    let taken: Vec<&String> = matches.iter().step_by(3).collect();
    for m in &taken {
        store.append(&event(m, 1, 9), None).await.unwrap();
    }
    // Per match: seq 1 and seq 3 by its token, seq 2 by a token it never held (or no longer
    // holds): 270 appends at once.
    let mut tasks = vec![];
    for m in &matches {
        for (seq, holder) in [
            (1, format!("held-{m}")),
            (2, format!("gone-{m}")),
            (3, format!("held-{m}")),
        ] {
            let (store, m) = (store.clone(), m.clone());
            tasks.push(tokio::spawn(async move {
                let r = store
                    .append_with(
                        &event(&m, seq, 1),
                        None,
                        Default::default(),
                        false,
                        Some(&holder),
                    )
                    .await;
                (m, seq, r)
            }));
        }
    }
    for t in tasks {
        let (m, seq, r) = t.await.unwrap();
        let already = taken.contains(&&m);
        match (seq, r) {
            (1, Ok(())) if !already => {}
            (1, Err(StoreError::Conflict)) if already => {}
            (2, Err(StoreError::Revoked)) => {}
            (3, Ok(())) => {}
            (seq, r) => panic!("{m} seq {seq} (seq 1 taken before: {already}): {r:?}"),
        }
    }
    for m in &matches {
        let events = store.events_after(m, 0, 100).await.unwrap();
        let log: Vec<(i64, Option<&str>)> = events
            .iter()
            .map(|e| (e.seq, e.action.as_deref()))
            .collect();
        let first = if taken.contains(&m) {
            r#"{"writer":9}"#
        } else {
            r#"{"writer":1}"#
        };
        assert_eq!(
            log,
            vec![(1, Some(first)), (3, Some(r#"{"writer":1}"#))],
            "{m}'s log"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_postgresql_each_commit_announces_exactly_the_appends_that_went_in() {
    let (store, matches, url, dir) = store_with_matches("n", 12).await;
    if dir.is_some() {
        eprintln!("NOTE: skipped: announcements are PostgreSQL's (set TEST_DATABASE_URL)");
        return;
    }
    let mut listener = sqlx::postgres::PgListener::connect(&url).await.unwrap();
    listener
        .listen(clubroom::store::ANNOUNCE_CHANNEL)
        .await
        .unwrap();
    // Two writers race for seqs 1..=4 of every match: batches of several rows, half of which
    // lose their seq. Only the winners may be announced, each once.
    let winners = race_for_every_seq(&store, &matches, 1..=4, 2, |_, _| None).await;
    assert_eq!(winners.len(), 12 * 4);
    let mut announced = vec![];
    let mut notifications = 0;
    while announced.len() < winners.len() {
        let n = tokio::time::timeout(std::time::Duration::from_secs(5), listener.recv())
            .await
            .expect("every append announced within 5 s")
            .unwrap();
        notifications += 1;
        for entry in n.payload().split(',') {
            let (id, seq) = entry.split_once(' ').expect("<id> <seq>");
            announced.push((id.to_string(), seq.parse::<i64>().unwrap()));
        }
    }
    // Nothing more comes: no loser, no second announcement.
    let extra = tokio::time::timeout(std::time::Duration::from_millis(500), listener.recv()).await;
    assert!(extra.is_err(), "an extra announcement: {extra:?}");
    let mut winners: Vec<(String, i64)> = winners.into_keys().collect();
    winners.sort();
    announced.sort();
    assert_eq!(announced, winners);
    println!(
        "{} appends announced in {notifications} notifications",
        winners.len()
    );
}

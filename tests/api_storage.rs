//! Storage faults over HTTP: a full SQLite database and an unreachable PostgreSQL server. A write
//! the database could not store is refused with 503 `storage_unavailable` (and `Retry-After`),
//! never acknowledged and then lost; the service recovers by itself once the database is back.
//! The real-disk version of the SQLite test is `scripts/ci-diskfull.sh` (a full tmpfs).

mod common;

use std::{
    collections::BTreeMap,
    str::FromStr,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use clubroom::store::{Store, StoreOptions};
use common::{Match, TestApp};
use reqwest::StatusCode;
use serde_json::json;
use sqlx::{Connection, Executor, Row};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
    task::JoinHandle,
};

/// Records a Dump tally with an idempotency key.
async fn tally(app: &TestApp, m: &Match, points0: i64, key: &str) -> common::Answer {
    app.act_with(
        m,
        &m.host,
        None,
        json!({"type": "tally", "points": [points0, 160 - points0]}),
        &[("Idempotency-Key", key)],
    )
    .await
}

/// Asserts that `a` is the storage refusal: 503 `storage_unavailable` with `Retry-After`.
fn assert_storage_unavailable(a: &common::Answer, what: &str) {
    assert_eq!(
        a.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{what}: {}",
        a.text
    );
    assert_eq!(a.code(), "storage_unavailable", "{what}: {}", a.text);
    assert!(a.retry_after.is_some(), "{what}: 503 without Retry-After");
}

/// Every acknowledged tally (seq -> points of side 0) of every match is in the log, and nothing
/// else is.
async fn assert_log_is_exactly(
    app: &TestApp,
    matches: &[Match],
    acks: &BTreeMap<(usize, i64), i64>,
) {
    for (i, m) in matches.iter().enumerate() {
        let events = app.events(m, None).await;
        let recorded: BTreeMap<i64, i64> = events
            .iter()
            .map(|e| {
                (
                    e["seq"].as_i64().unwrap(),
                    e["action"]["points"][0].as_i64().unwrap(),
                )
            })
            .collect();
        let acked: BTreeMap<i64, i64> = acks
            .iter()
            .filter(|((mi, _), _)| *mi == i)
            .map(|((_, seq), p)| (*seq, *p))
            .collect();
        assert_eq!(
            recorded, acked,
            "match {i}: the log holds exactly the acknowledged tallies"
        );
    }
}

/// The disk-full scenario on `app` (its database full or about to be): concurrent writers until
/// each is refused several times in a row (every refusal must be 503 `storage_unavailable`), a
/// creation refused the same way, then `free_space`, then a write to every match must succeed
/// without a restart, and a fresh instance on the same file must read back exactly the
/// acknowledged writes; the file passes `PRAGMA integrity_check`.
async fn full_then_freed(
    url: &str,
    app: &TestApp,
    matches: &[Match],
    free_space: impl AsyncFnOnce(),
) {
    // Concurrent writers until every one of them has been refused a few times in a row.
    let acks = Arc::new(Mutex::new(BTreeMap::new()));
    let refused = Arc::new(Mutex::new(0));
    let writers = (0..4).map(|w| {
        let (app, matches, acks, refused) = (&app, &matches, acks.clone(), refused.clone());
        async move {
            let mut in_a_row = 0;
            for n in 0..400 {
                let i = (w + n) % matches.len();
                let points = (w * 7 + n) as i64 % 161;
                let a = tally(app, &matches[i], points, &format!("full-{w}-{n}")).await;
                if a.status == StatusCode::CREATED {
                    in_a_row = 0;
                    let seq = a.body["event"]["seq"].as_i64().unwrap();
                    acks.lock().unwrap().insert((i, seq), points);
                } else {
                    assert_storage_unavailable(&a, "a write to a full database");
                    *refused.lock().unwrap() += 1;
                    in_a_row += 1;
                    if in_a_row == 5 {
                        return;
                    }
                }
            }
            panic!("writer {w}: the database never filled up (are the acknowledged writes committed at all?)");
        }
    });
    futures_util::future::join_all(writers).await;
    let full_acks = acks.lock().unwrap().len();
    assert!(
        full_acks > 0,
        "some writes fit before the database was full"
    );
    assert!(*refused.lock().unwrap() >= 20);
    // Reads still work, and creations are refused the same way once their rows no longer fit.
    assert_eq!(
        app.get(&format!("/v1/matches/{}", matches[0].id), None)
            .await
            .status,
        StatusCode::OK
    );
    let mut creation_refused = false;
    for _ in 0..100 {
        let c = app
            .request(
                reqwest::Method::POST,
                "/v1/matches",
                None,
                &[],
                Some(json!({"game": "dump", "players": [{"name": "A"}, {"name": "B"}]})),
            )
            .await;
        if c.status != StatusCode::CREATED {
            assert_storage_unavailable(&c, "a creation in a full database");
            creation_refused = true;
            break;
        }
    }
    assert!(creation_refused, "creations filled the database up too");

    // Space comes back: the service recovers by itself, with no restart.
    free_space().await;
    for (i, m) in matches.iter().enumerate() {
        let a = tally(app, m, 100, &format!("after-{i}")).await;
        assert_eq!(
            a.status,
            StatusCode::CREATED,
            "a write once space is back: {}",
            a.text
        );
        acks.lock()
            .unwrap()
            .insert((i, a.body["event"]["seq"].as_i64().unwrap()), 100);
    }
    println!(
        "full database: {full_acks} writes acknowledged before it was full, {} refused",
        *refused.lock().unwrap()
    );

    // A fresh instance (a restart) reads every acknowledged write back, and nothing else.
    let restarted = TestApp::on(url).await;
    let acks = acks.lock().unwrap().clone();
    assert_log_is_exactly(&restarted, matches, &acks).await;
    let mut conn = sqlx::SqliteConnection::connect(url).await.unwrap();
    let ok: String = sqlx::query("PRAGMA integrity_check")
        .fetch_one(&mut conn)
        .await
        .unwrap()
        .get(0);
    assert_eq!(ok, "ok");
}

#[actix_web::test]
async fn a_full_sqlite_database_refuses_writes_with_503_loses_no_acknowledged_one_and_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("full.db").display());
    // An uncapped instance creates the matches; a second instance on the same file is capped at
    // a few pages above the file's size (SQLite's `max_page_count`: SQLITE_FULL as a page is
    // allocated, like a full disk but at the INSERT rather than at the COMMIT).
    let setup = TestApp::on(&url).await;
    let matches: Vec<Match> = futures_util::future::join_all(
        (0..4).map(|_| setup.create("dump", 2, "table", json!({"target": 100000}))),
    )
    .await;
    let mut admin = sqlx::SqliteConnection::connect(&url).await.unwrap();
    admin
        .execute("CREATE TABLE filler (b BLOB); INSERT INTO filler VALUES (zeroblob(400000))")
        .await
        .unwrap();
    let pages: i64 = sqlx::query("PRAGMA page_count")
        .fetch_one(&mut admin)
        .await
        .unwrap()
        .get(0);
    let app = TestApp::on_with(
        &url,
        StoreOptions {
            sqlite_max_page_count: Some(pages as u64 + 6),
            ..StoreOptions::default()
        },
    )
    .await;
    full_then_freed(&url, &app, &matches, async || {
        admin.execute("DELETE FROM filler").await.unwrap();
        admin.close().await.unwrap();
    })
    .await;
}

/// A small tmpfs, unmounted on drop.
struct Tmpfs(tempfile::TempDir);

impl Tmpfs {
    /// Mounts a tmpfs of `kib` KiB (None when this process may not mount: not root).
    fn mount(kib: u64) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(Tmpfs(dir))
    }

    fn free_bytes(&self) -> u64 {
        let out = std::process::Command::new("df")
            .args(["--output=avail", "-B1"])
            .arg(self.0.path())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .last()
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(self.0.path())
            .status();
    }
}

#[actix_web::test]
async fn a_full_disk_under_sqlite_refuses_writes_with_503_loses_no_acknowledged_one_and_recovers() {
    // The real fault: the disk fills up and the COMMIT (the WAL write) fails. Needs root to
    // mount a tmpfs; `scripts/ci-diskfull.sh` does the same with the server binary.
    let Some(fs) = Tmpfs::mount(2048) else {
        eprintln!("NOTE: skipped: cannot mount a tmpfs here (not root?)");
        return;
    };
    let url = format!(
        "sqlite://{}?mode=rwc",
        fs.0.path().join("full.db").display()
    );
    let app = TestApp::on(&url).await;
    let matches: Vec<Match> = futures_util::future::join_all(
        (0..4).map(|_| app.create("dump", 2, "table", json!({"target": 100000}))),
    )
    .await;
    let filler = fs.0.path().join("filler");
    let room = fs.free_bytes().saturating_sub(96 * 1024);
    std::fs::write(&filler, vec![0u8; room as usize]).unwrap();
    full_then_freed(&url, &app, &matches, async || {
        std::fs::remove_file(&filler).unwrap();
    })
    .await;
}

#[actix_web::test]
async fn a_postgresql_server_that_cannot_be_reached_fails_start_up_fast_with_a_clear_error() {
    let started = Instant::now();
    let err = Store::connect("postgres://postgres@127.0.0.1:1/x")
        .await
        .expect_err("nothing listens on port 1");
    let elapsed = started.elapsed();
    let text = err.to_string();
    println!("closed port: {elapsed:?}: {text}");
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    assert!(text.contains("cannot connect to PostgreSQL"), "{text}");
    assert!(text.to_lowercase().contains("refused"), "{text}");
}

/// A TCP proxy to PostgreSQL that the test can cut (every connection at once) and restore, or
/// arm to cut one connection right after it forwarded a message holding given bytes.
struct Proxy {
    port: u16,
    target: String,
    tasks: Arc<Mutex<Vec<JoinHandle<()>>>>,
    trap: Arc<Mutex<Option<Vec<u8>>>>,
}

/// Forwards one connection; cuts it after forwarding a client chunk that holds the armed bytes.
async fn pipe(client: TcpStream, server: TcpStream, trap: Arc<Mutex<Option<Vec<u8>>>>) {
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    let down = tokio::spawn(async move {
        let _ = tokio::io::copy(&mut server_read, &mut client_write).await;
    });
    let mut buf = vec![0u8; 1 << 16];
    while let Ok(n) = client_read.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let hit = {
            let mut trap = trap.lock().unwrap();
            let hit = trap
                .as_ref()
                .is_some_and(|t| buf[..n].windows(t.len()).any(|w| w == t.as_slice()));
            if hit {
                *trap = None;
            }
            hit
        };
        if server_write.write_all(&buf[..n]).await.is_err() || hit {
            break;
        }
    }
    down.abort();
}

impl Proxy {
    async fn start(port: u16, target: &str) -> Proxy {
        let listener = TcpListener::bind(("127.0.0.1", port)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let tasks: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let trap: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
        let (target_addr, list, armed) = (target.to_string(), tasks.clone(), trap.clone());
        let accept = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let (target_addr, armed) = (target_addr.clone(), armed.clone());
                let conn = tokio::spawn(async move {
                    if let Ok(server) = TcpStream::connect(&target_addr).await {
                        pipe(client, server, armed).await;
                    }
                });
                list.lock().unwrap().push(conn);
            }
        });
        tasks.lock().unwrap().push(accept);
        Proxy {
            port,
            target: target.to_string(),
            tasks,
            trap,
        }
    }

    /// Cuts the next connection that sends `bytes`, right after forwarding them.
    fn arm(&self, bytes: &[u8]) {
        *self.trap.lock().unwrap() = Some(bytes.to_vec());
    }

    /// Stops listening and drops every proxied connection (both sockets close).
    fn cut(&self) {
        for t in self.tasks.lock().unwrap().drain(..) {
            t.abort();
        }
    }

    async fn restore(&self) -> Proxy {
        Proxy::start(self.port, &self.target).await
    }
}

/// The PostgreSQL server of `TEST_DATABASE_URL` (or 127.0.0.1:5432): an admin URL and host:port.
async fn reachable_postgres() -> Option<(String, String)> {
    let admin = std::env::var("TEST_DATABASE_URL")
        .ok()
        .filter(|u| u.starts_with("postgres"))
        .unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let opts = sqlx::postgres::PgConnectOptions::from_str(&admin).ok()?;
    let addr = format!("{}:{}", opts.get_host(), opts.get_port());
    match tokio::time::timeout(Duration::from_secs(3), sqlx::PgConnection::connect(&admin)).await {
        Ok(Ok(c)) => {
            c.close().await.ok();
            Some((admin, addr))
        }
        _ => None,
    }
}

/// Retries `f` until it gives `want` (at most `within`); returns how long that took.
async fn until<F, Fut>(within: Duration, mut f: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    loop {
        if f().await {
            return started.elapsed();
        }
        assert!(started.elapsed() < within, "no recovery within {within:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[actix_web::test]
async fn when_postgresql_becomes_unreachable_reads_writes_and_healthz_answer_503_fast_then_recover()
{
    let Some((admin, pg_addr)) = reachable_postgres().await else {
        eprintln!("NOTE: skipped: no PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432");
        return;
    };
    let name = format!("clubroom_t_{}", hex::encode(rand::random::<[u8; 6]>()));
    let mut conn = sqlx::PgConnection::connect(&admin).await.unwrap();
    conn.execute(&*format!("CREATE DATABASE {name}"))
        .await
        .unwrap();
    let proxy = Proxy::start(0, &pg_addr).await;
    let url = format!("postgres://postgres@127.0.0.1:{}/{name}", proxy.port);
    let app = TestApp::on(&url).await;
    let m = app
        .create("dump", 2, "table", json!({"target": 100000}))
        .await;
    let mut acks = BTreeMap::new();
    let a = tally(&app, &m, 90, "pg-1").await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    acks.insert((0, 1), 90);
    let h = app.get("/healthz", None).await;
    assert_eq!(
        (h.status, h.body.clone()),
        (StatusCode::OK, json!({"status": "ok", "database": "ok"}))
    );

    // The connection dies right after it sent the INSERT of an append (the bytes of its action
    // are in its Bind message). A tally scores a deal, so its append is a transaction (its
    // webhooks are looked up inside it): no COMMIT went out, the server rolls it back, and the
    // answer says nothing was recorded; a retry with the same key records it once.
    proxy.arm(b"[77,83]");
    let t = tally(&app, &m, 77, "pg-trap").await;
    assert!(
        proxy.trap.lock().unwrap().is_none(),
        "the append's connection was cut"
    );
    assert_storage_unavailable(&t, "a write whose connection died inside its transaction");
    assert!(t.text.contains("nothing was recorded"), "{}", t.text);
    let again = tally(&app, &m, 77, "pg-trap").await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.text);
    assert_eq!(again.body["event"]["seq"], 2);
    acks.insert((0, 2), 77);
    assert_log_is_exactly(&app, std::slice::from_ref(&m), &acks).await;

    proxy.cut();
    let started = Instant::now();
    let view = app.get(&format!("/v1/matches/{}", m.id), None).await;
    let read_latency = started.elapsed();
    assert_storage_unavailable(&view, "a read while PostgreSQL is unreachable");
    let started = Instant::now();
    let w = tally(&app, &m, 70, "pg-2").await;
    let write_latency = started.elapsed();
    assert_storage_unavailable(&w, "a write while PostgreSQL is unreachable");
    assert!(w.text.contains("nothing was recorded"), "{}", w.text);
    let started = Instant::now();
    let h = app.get("/healthz", None).await;
    let health_latency = started.elapsed();
    assert_eq!(h.status, StatusCode::SERVICE_UNAVAILABLE, "{}", h.text);
    assert_eq!(
        h.body,
        json!({"status": "degraded", "database": "unavailable"})
    );
    let c = app
        .request(
            reqwest::Method::POST,
            "/v1/matches",
            None,
            &[],
            Some(json!({"game": "dump", "players": [{"name": "A"}, {"name": "B"}]})),
        )
        .await;
    assert_storage_unavailable(&c, "a creation while PostgreSQL is unreachable");
    println!("PostgreSQL cut: read 503 in {read_latency:?}, write 503 in {write_latency:?}, /healthz 503 in {health_latency:?}");
    for (what, t) in [
        ("read", read_latency),
        ("write", write_latency),
        ("healthz", health_latency),
    ] {
        assert!(t < Duration::from_secs(6), "{what} took {t:?}");
    }

    let _restored = proxy.restore().await;
    let recovery = until(Duration::from_secs(20), || async {
        app.get("/healthz", None).await.status == StatusCode::OK
    })
    .await;
    println!("PostgreSQL back: /healthz 200 after {recovery:?}");
    // The refused write is retried with its key and recorded once.
    let w = tally(&app, &m, 70, "pg-2").await;
    assert_eq!(w.status, StatusCode::CREATED, "{}", w.text);
    assert_eq!(w.body["event"]["seq"], 3);
    acks.insert((0, 3), 70);
    assert_log_is_exactly(&app, std::slice::from_ref(&m), &acks).await;
}

#[actix_web::test]
async fn a_postgresql_shutdown_error_through_the_any_driver_counts_as_unavailable() {
    let Some((admin, _)) = reachable_postgres().await else {
        eprintln!("NOTE: skipped: no PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432");
        return;
    };
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(&admin).await.unwrap();
    // The server ends this very session: FATAL 57P01 (admin_shutdown), as in a server restart.
    let err = sqlx::query("SELECT pg_terminate_backend(pg_backend_pid())")
        .execute(&mut conn)
        .await
        .expect_err("the session is terminated");
    println!("terminated session: {err}");
    assert!(clubroom::store::is_unavailable(&err), "{err:?}");
    let syntax = sqlx::query("SELEC 1")
        .execute(&mut sqlx::AnyConnection::connect(&admin).await.unwrap())
        .await
        .expect_err("a syntax error");
    assert!(!clubroom::store::is_unavailable(&syntax), "{syntax:?}");
}

#[actix_web::test]
async fn a_write_whose_connection_dies_mid_commit_is_checked_and_one_cut_before_commit_records_nothing(
) {
    let Some((admin, pg_addr)) = reachable_postgres().await else {
        eprintln!("NOTE: skipped: no PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432");
        return;
    };
    let name = format!("clubroom_t_{}", hex::encode(rand::random::<[u8; 6]>()));
    let mut conn = sqlx::PgConnection::connect(&admin).await.unwrap();
    conn.execute(&*format!("CREATE DATABASE {name}"))
        .await
        .unwrap();
    let proxy = Proxy::start(0, &pg_addr).await;
    let url = format!("postgres://postgres@127.0.0.1:{}/{name}", proxy.port);
    let app = TestApp::on(&url).await;
    // 0. A deal scores nothing and causes no webhook event: its append is one INSERT statement,
    // its own transaction. The connection dies right after the statement went out, so the server
    // may have committed it. The service reads the seq back: recorded is 201; not (yet) seen is
    // 503 "may or may not". Either way the retry with the same key records it exactly once.
    let dealt = app.create("dump", 2, "table", json!({})).await;
    let (app_ref, dealt_ref) = (&app, &dealt);
    let deal = move |key: &'static str| async move {
        app_ref
            .act_with(
                dealt_ref,
                &dealt_ref.host,
                None,
                json!({"type": "deal"}),
                &[("Idempotency-Key", key)],
            )
            .await
    };
    proxy.arm(b"\"type\":\"deal\"");
    let t = deal("deal").await;
    assert!(
        proxy.trap.lock().unwrap().is_none(),
        "the append's connection was cut"
    );
    if t.status == StatusCode::CREATED {
        assert_eq!(t.body["event"]["seq"], 1, "{}", t.text);
    } else {
        assert_storage_unavailable(&t, "a write whose connection died during its commit");
        assert!(t.text.contains("may or may not"), "{}", t.text);
    }
    let a = deal("deal").await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    assert_eq!(a.body["event"]["seq"], 1);
    assert_eq!(app.events(&dealt, Some(&dealt.host)).await.len(), 1);

    let m = app.create("dump", 2, "table", json!({"target": 100})).await;
    // 1. A tally scores a deal (a `deal.scored` event): its append is a transaction, in which
    // the match's webhooks are looked up. The connection dies right after the INSERT went out,
    // before any COMMIT: nothing was recorded, and the answer says so.
    proxy.arm(b"\"points\":[159,1]");
    let t = tally(&app, &m, 159, "first").await;
    assert!(
        proxy.trap.lock().unwrap().is_none(),
        "the append's connection was cut"
    );
    assert_storage_unavailable(&t, "a write whose connection died inside its transaction");
    assert!(t.text.contains("nothing was recorded"), "{}", t.text);
    let a = tally(&app, &m, 159, "first").await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    assert_eq!(a.body["event"]["seq"], 1);
    // 2. Target 100: the second tally of [159, 1] ends the match, so its append is a transaction
    // (the event and the match's status). The connection dies right after the INSERT went out,
    // before any COMMIT: the server rolls the open transaction back, so nothing was recorded, and
    // the answer says so.
    proxy.arm(b"\"points\":[159,1]");
    let t = tally(&app, &m, 159, "second").await;
    assert!(
        proxy.trap.lock().unwrap().is_none(),
        "the append's connection was cut"
    );
    assert_storage_unavailable(&t, "a write whose connection died inside its transaction");
    assert!(t.text.contains("nothing was recorded"), "{}", t.text);
    // The retry with the same key records it once, and the match is finished.
    let again = tally(&app, &m, 159, "second").await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.text);
    assert_eq!(again.body["event"]["seq"], 2);
    assert_eq!(again.body["match"]["status"], "finished");
    let acks = BTreeMap::from([((0, 1), 159), ((0, 2), 159)]);
    assert_log_is_exactly(&app, std::slice::from_ref(&m), &acks).await;
    assert_eq!(app.view(&m, None).await["status"], "finished");
}

//! Duplicate boards stay secret while a round is played (issue 20, part 1): a player at one
//! table, or anyone without a token, learns nothing of another table that plays the same boards
//! until every table of the round has its result — through no endpoint, export, stream, error
//! or undo. Runs on SQLite, and on PostgreSQL with `TEST_DATABASE_URL`.

mod common;

use common::{Match, TestApp};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

async fn put(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> common::Answer {
    app.request(Method::PUT, path, token, &[], Some(body)).await
}

fn names(n: usize) -> Vec<Value> {
    (0..n).map(|i| json!({"name": format!("P{i}")})).collect()
}

/// A duplicate Swiss tournament of `game` (service dealing, one round), round 1 paired:
/// (tournament id, organiser token, the round as paired, its tables' matches).
async fn duplicate_round(
    app: &TestApp,
    game: &str,
    config: Value,
    players: usize,
    table_size: usize,
) -> (String, String, Value, Vec<Match>) {
    duplicate_round_dealt(app, game, config, players, table_size, "service").await
}

/// [`duplicate_round`] with the tables' `dealing` (`table`: real cards from printed boards).
async fn duplicate_round_dealt(
    app: &TestApp,
    game: &str,
    config: Value,
    players: usize,
    table_size: usize,
    dealing: &str,
) -> (String, String, Value, Vec<Match>) {
    common::tournament_round_one(
        app,
        json!({"name": "Duplicate night", "game": game, "config": config,
                "dealing": dealing, "format": "swiss", "rounds": 1,
                "table_size": table_size, "duplicate": true, "players": names(players)}),
    )
    .await
}

/// The messages of a stream opened with `?once=true&last_event_id=0`: (status, data of each
/// `event: event` message).
async fn stream_events(app: &TestApp, m: &Match, token: Option<&str>) -> (StatusCode, Vec<Value>) {
    let mut req = app.client.get(format!(
        "{}/v1/matches/{}/stream?once=true&last_event_id=0",
        app.base, m.id
    ));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let r = req.send().await.unwrap();
    let status = r.status();
    let text = r.text().await.unwrap();
    let mut events = vec![];
    let mut kind = "";
    for line in text.lines() {
        if let Some(k) = line.strip_prefix("event: ") {
            kind = if k == "event" { "event" } else { "other" };
        } else if let Some(d) = line.strip_prefix("data: ") {
            if kind == "event" {
                events.push(serde_json::from_str(d).unwrap());
            }
        }
    }
    (status, events)
}

/// The events of a tournament feed's answer: a page (`events`) or a stream's `data:` lines.
fn feed_of(a: &common::Answer) -> Vec<Value> {
    if let Some(events) = a.body["events"].as_array() {
        return events.clone();
    }
    a.text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

/// Every GET operation of the spec, its path filled in to aim at table 1 of the tournament:
/// the match routes at table 1's match, the tournament routes at the tournament (round 1,
/// table 1, every export), the player route at a player of table 1.
async fn every_get(app: &TestApp, tournament: &str, t1: &Match, player: &str) -> Vec<String> {
    let spec = app.get("/openapi.json", None).await.body;
    let t = app
        .get(&format!("/v1/tournaments/{tournament}"), None)
        .await;
    let game = t.body["game"]
        .as_str()
        .expect("the tournament's game")
        .to_string();
    let mut urls = vec![];
    for (path, ops) in spec["paths"].as_object().unwrap() {
        if ops.get("get").is_none() {
            continue;
        }
        let base = if path.starts_with("/v1/matches/{id}") {
            path.replace("{id}", &t1.id)
        } else if path.starts_with("/v1/tournaments/{id}") {
            path.replace("{id}", tournament)
                .replace("{round}", "1")
                .replace("{table}", "1")
        } else if path.starts_with("/v1/players/{id}") {
            path.replace("{id}", player)
        } else if path.starts_with("/v1/games/{game}") {
            path.replace("{game}", &game)
        } else if path.starts_with("/v1/seasons/{id}") {
            // (No season: the board's answer is 404; the game's leaderboard is above.)
            path.replace("{id}", "0123456789abcdef0123456789abcdef")
        } else {
            path.clone()
        };
        // A webhook or delivery nobody registered: the owner's routes answer 401/404 to these
        // viewers (table 2's tokens are not table 1's host's), never table 1's facts.
        let base = base
            .replace("{webhook_id}", "0123456789abcdef0123456789abcdef")
            .replace("{delivery_id}", "0123456789abcdef0123456789abcdef");
        if base.contains("{file}") {
            for f in [
                "standings.csv",
                "results.csv",
                "results.json",
                "bgstats.json",
            ] {
                urls.push(base.replace("{file}", f));
            }
            continue;
        }
        assert!(
            !base.contains('{'),
            "a path parameter left unfilled: {base}"
        );
        let query = if base.ends_with("/legal") {
            "?seat=0"
        } else if base.ends_with("/stream") {
            "?once=true&last_event_id=0"
        } else if base.ends_with("/events") {
            "?after=0"
        } else if base.contains("/leaderboard") && base.starts_with("/v1/seasons") {
            "?game=clubs"
        } else {
            ""
        };
        urls.push(format!("{base}{query}"));
    }
    assert!(urls.len() >= 15, "{urls:?}");
    for read in ["/log", "/rounds/1/assignments", "/rounds/1/assignments.csv"] {
        assert!(
            urls.contains(&format!("/v1/tournaments/{tournament}{read}")),
            "{read} is attacked too: {urls:?}"
        );
    }
    urls
}

/// The attack: table 1 has finished the round's boards while table 2 still plays them. Anyone
/// without a token, and every token of table 2, tries every GET of the API: nothing names table
/// 1's match, shows its points, or publishes a seed; its own reads are refused. Once table 2 is
/// done, everything is public and checkable.
async fn hidden_bar(game: &str, config: Value, players: usize, table_size: usize, steps: usize) {
    hidden_bar_dealt(game, config, players, table_size, steps, "service").await
}

/// [`hidden_bar`] with the tables' `dealing`: with real cards (`table`) the round's printed
/// boards are the organiser's alone too.
async fn hidden_bar_dealt(
    game: &str,
    config: Value,
    players: usize,
    table_size: usize,
    steps: usize,
    dealing: &str,
) {
    let real_cards = dealing == "table";
    let app = TestApp::spawn().await;
    let (tid, org, round, tables) =
        duplicate_round_dealt(&app, game, config, players, table_size, dealing).await;
    let (t1, t2) = (&tables[0], &tables[1]);
    let t1_player = round["tables"][0]["players"][0]["player_id"]
        .as_str()
        .unwrap()
        .to_string();
    for m in [t1, t2] {
        let d = app.act(m, &m.host, None, json!({"type": "deal"})).await;
        assert_eq!(d.status, StatusCode::CREATED, "{}", d.text);
    }
    let done = app.play(t1, 0x9e37_79b9_7f4a_7c15, None).await;
    assert_eq!(done["status"], "finished");
    app.play(t2, 0x2545_f491_4f6c_dd1d, Some(steps)).await;
    assert_eq!(app.view(t2, Some(&t2.host)).await["status"], "in_progress");

    // The organiser sees table 1's result (and its match): it is the director.
    let director = app.get(&format!("/v1/tournaments/{tid}"), Some(&org)).await;
    let t1_result = &director.body["rounds"][0]["tables"][0]["result"];
    assert_eq!(t1_result["source"], "match", "{}", director.text);
    assert_eq!(
        director.body["rounds"][0]["tables"][0]["match_id"],
        json!(t1.id)
    );

    let mut viewers: Vec<(String, Option<&str>)> = vec![("no token".into(), None)];
    viewers.push(("table 2's host".into(), Some(t2.host.as_str())));
    for (s, tok) in t2.seats.iter().enumerate() {
        viewers.push((format!("table 2's seat {s}"), Some(tok.as_str())));
    }
    let urls = every_get(&app, &tid, t1, &t1_player).await;
    for (who, token) in &viewers {
        for url in &urls {
            let a = app.get(url, *token).await;
            let ctx = format!("{who}: GET {url} -> {} {}", a.status, a.text);
            assert!(a.status != StatusCode::INTERNAL_SERVER_ERROR, "{ctx}");
            if url.starts_with(&format!("/v1/matches/{}", t1.id)) {
                // Table 1's match itself: refused (no token: the round is in play; another
                // table's token is not valid for it).
                // Its webhooks are the host's alone: 401 to everyone else, token or not.
                let expected = if token.is_none() && !url.contains("/webhooks") {
                    (StatusCode::FORBIDDEN, "round_in_play")
                } else {
                    (StatusCode::UNAUTHORIZED, "unauthorized")
                };
                assert_eq!((a.status, a.code()), expected, "{ctx}");
                continue;
            }
            assert!(!a.text.contains(&t1.id), "names table 1's match: {ctx}");
            if url.contains("/boards") {
                // The printed boards: the organiser's alone, in every dealing.
                let expected = match token {
                    None => (StatusCode::UNAUTHORIZED, "unauthorized"),
                    Some(_) => (StatusCode::FORBIDDEN, "organiser_only"),
                };
                assert_eq!((a.status, a.code()), expected, "{ctx}");
                assert!(!a.text.contains("\"hands\""), "{ctx}");
                continue;
            }
            assert!(!a.text.contains("\"seed\":\""), "a seed: {ctx}");
            if url == &format!("/v1/tournaments/{tid}") {
                assert_eq!(a.status, StatusCode::OK, "{ctx}");
                let r1 = &a.body["rounds"][0];
                assert_eq!(r1["complete"], false, "{ctx}");
                assert_eq!(r1["secret"], Value::Null, "{ctx}");
                assert_eq!(r1["tables"][0]["finished"], true, "{ctx}");
                for t in r1["tables"].as_array().unwrap() {
                    assert_eq!(t["result"], Value::Null, "{ctx}");
                    assert_eq!(t["match_id"], Value::Null, "{ctx}");
                }
            }
            if url.ends_with("/standings") {
                assert_eq!(a.status, StatusCode::OK, "{ctx}");
                for row in a.body["rows"].as_array().unwrap() {
                    assert_eq!(row["played"], 0, "{ctx}");
                    assert_eq!(row["total"], 0, "{ctx}");
                    assert_eq!(row["matchpoints"], 0, "{ctx}");
                }
            }
            if url.ends_with("/results.json") {
                assert_eq!(a.body["results"], json!([]), "{ctx}");
            }
            // The tournament feed (issue 23, part 3), paged and streamed: that the tables
            // started and table 1 finished, nothing of a board (no deal, match, totals,
            // winners).
            if url.starts_with(&format!("/v1/tournaments/{tid}/events"))
                || url.starts_with(&format!("/v1/tournaments/{tid}/stream"))
            {
                assert_eq!(a.status, StatusCode::OK, "{ctx}");
                let feed = feed_of(&a);
                let kinds: Vec<&str> = feed.iter().map(|e| e["type"].as_str().unwrap()).collect();
                assert_eq!(
                    kinds,
                    [
                        "round.paired",
                        "table.started",
                        "table.started",
                        "table.finished"
                    ],
                    "{ctx}"
                );
                for t in feed[0]["tables"].as_array().unwrap() {
                    assert_eq!(t["match_id"], Value::Null, "{ctx}");
                }
                for (e, table) in feed[1..].iter().zip([1, 2, 1]) {
                    assert_eq!(e["table"], table, "{ctx}");
                    assert_eq!(e["match_id"], Value::Null, "{ctx}");
                }
                assert_eq!(feed[3]["totals"], Value::Null, "{ctx}");
                assert_eq!(feed[3]["winners"], Value::Null, "{ctx}");
                assert!(!a.text.contains("\"points\""), "{ctx}");
            }
            // The club night's reads (issue 24, part 3): the assignments are the organiser's
            // (401 without a token, 403 to a table's); the change log holds no correction of a
            // round in play (there is none here: it is empty, and says nothing).
            if url.contains("/assignments") {
                let expected = if token.is_none() {
                    (StatusCode::UNAUTHORIZED, "unauthorized")
                } else {
                    (StatusCode::FORBIDDEN, "organiser_only")
                };
                assert_eq!((a.status, a.code()), expected, "{ctx}");
            }
            if url.ends_with("/log") {
                assert_eq!(a.status, StatusCode::OK, "{ctx}");
                assert_eq!(a.body, json!({"changes": []}), "{ctx}");
            }
            if url.ends_with("/results.csv") {
                assert_eq!(a.text.lines().count(), 1, "only the header: {ctx}");
            }
            if url.ends_with("/bgstats.json") {
                assert!(!a.text.contains("\"playDate\""), "a play of round 1: {ctx}");
            }
            // The club holds the round's results until it is complete (docs/club.md).
            if url.ends_with("/stats") {
                assert_eq!(a.body["games"], json!([]), "{ctx}");
                assert_eq!(a.body["recent"], json!([]), "{ctx}");
            }
            if url.starts_with("/v1/games/") && url.ends_with("/leaderboard") {
                assert_eq!(a.body["rows"], json!([]), "{ctx}");
            }
        }
    }
    // Writes aimed at table 1 by another table's tokens tell nothing either.
    for (who, token) in viewers.iter().filter(|(_, t)| t.is_some()) {
        let token = token.unwrap();
        let act = app.act(t1, token, Some(0), json!({"type": "deal"})).await;
        assert_eq!(act.status, StatusCode::UNAUTHORIZED, "{who}: {}", act.text);
        let undo = app.undo(t1, token).await;
        assert_eq!(
            undo.status,
            StatusCode::UNAUTHORIZED,
            "{who}: {}",
            undo.text
        );
        let entry = put(
            &app,
            &format!("/v1/tournaments/{tid}/rounds/1/tables/1/result"),
            Some(token),
            json!({"totals": [0]}),
        )
        .await;
        assert_eq!(entry.status, StatusCode::FORBIDDEN, "{who}: {}", entry.text);
        assert!(!entry.text.contains(&t1.id));
    }
    // The round's tables are not listed to another table's tokens either.
    let listed = app.get("/v1/matches", Some(&t2.seats[0])).await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.text);
    assert_eq!(listed.body["matches"].as_array().unwrap().len(), 1);
    assert_eq!(listed.body["matches"][0]["id"], json!(t2.id));

    // Table 1's own seats read their own log: its seeds are withheld, and say why.
    let own = app.events(t1, Some(&t1.seats[0])).await;
    if real_cards {
        // No seed at all: the table dealt its own cards from the printed board.
        assert!(own
            .iter()
            .all(|e| e["seed"].is_null() && e["commitment"].is_null()));
        // The organiser has the boards all along.
        let b = app
            .get(
                &format!("/v1/tournaments/{tid}/rounds/1/boards?count=1"),
                Some(&org),
            )
            .await;
        assert_eq!(b.status, StatusCode::OK, "{}", b.text);
        assert_eq!(b.body["boards"][0]["board"], 1);
    } else {
        let deal = own.iter().find(|e| e["commitment"].is_string()).unwrap();
        assert_eq!(deal["seed"], Value::Null);
        assert!(deal["seed_withheld"]
            .as_str()
            .unwrap()
            .contains("in play at the round's other tables"));
    }

    // Table 2 finishes: the round is complete, and everything can be checked.
    app.play(t2, 0x2545_f491_4f6c_dd1d, None).await;
    let public = app.get(&format!("/v1/tournaments/{tid}"), None).await;
    let r1 = &public.body["rounds"][0];
    assert_eq!(r1["complete"], true, "{}", public.text);
    assert_eq!(r1["tables"][0]["match_id"], json!(t1.id));
    for field in ["source", "totals", "deals", "winners", "at"] {
        assert_eq!(
            r1["tables"][0]["result"][field], t1_result[field],
            "{field}"
        );
    }
    let secret = r1["secret"].as_str().expect("the secret is published");
    // The feed tells of the round's end, and names its matches now.
    let feed = app
        .get(&format!("/v1/tournaments/{tid}/events?after=4"), None)
        .await;
    let feed = feed_of(&feed);
    let kinds: Vec<&str> = feed.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["table.finished", "round.complete", "tournament.finished"]
    );
    assert_eq!(feed[0]["table"], 2);
    assert_eq!(
        feed[1]["tables"],
        json!([{"table": 1, "match_id": t1.id}, {"table": 2, "match_id": t2.id}])
    );
    // The club counts the round now: table 1's player has its match in their results.
    let stats = app
        .get(&format!("/v1/players/{t1_player}/stats"), None)
        .await;
    assert_eq!(
        stats.body["recent"][0]["match_id"],
        json!(t1.id),
        "{}",
        stats.text
    );
    let log = app.events(t1, None).await;
    let deals: Vec<&Value> = log.iter().filter(|e| e["commitment"].is_string()).collect();
    assert_eq!(deals.is_empty(), real_cards);
    for (k, d) in deals.iter().enumerate() {
        // The note about the other tables is gone: the seed is there, and it is the secret's.
        assert_eq!(d["seed_withheld"], Value::Null, "{d}");
        let seed = Sha256::digest(format!("{secret}:{}", k + 1).as_bytes());
        assert_eq!(d["seed"], json!(hex::encode(seed)), "{d}");
        assert_eq!(d["commitment"], json!(hex::encode(Sha256::digest(seed))));
    }
    let csv = app
        .get(&format!("/v1/tournaments/{tid}/export/results.csv"), None)
        .await;
    assert!(csv.text.contains(&t1.id), "{}", csv.text);
    if real_cards {
        // Random plays from the legal list are mostly cards the seat was not dealt: each play
        // is flagged exactly when the printed board did not deal its card to its seat.
        let most = log
            .iter()
            .filter_map(|e| e["round"].as_u64())
            .max()
            .unwrap();
        let b = app
            .get(
                &format!("/v1/tournaments/{tid}/rounds/1/boards?count={most}"),
                Some(&org),
            )
            .await;
        assert_eq!(b.status, StatusCode::OK, "{}", b.text);
        let mut fouls = 0;
        for e in &log {
            let a = &e["action"];
            if a["type"] != "play" || !e["retracted_by"].is_null() {
                assert!(e.get("fouled").is_none(), "{e}");
                continue;
            }
            let k = e["round"].as_u64().unwrap() as usize;
            let seat = e["seat"].as_u64().unwrap() as usize;
            let dealt = b.body["boards"][k - 1]["hands"][seat]["cards"]
                .as_array()
                .unwrap()
                .contains(&a["card"]);
            if dealt {
                assert!(e.get("fouled").is_none(), "{e}");
            } else {
                let want = json!({"board": k, "seat": seat, "card": a["card"], "seq": e["seq"]});
                assert_eq!(e["fouled"], want);
                fouls += 1;
            }
        }
        assert!(fouls > 0);
        let s = app
            .get(&format!("/v1/tournaments/{tid}/standings"), None)
            .await;
        assert!(!s.body["fouled_boards"].as_array().unwrap().is_empty());
    }
}

#[actix_web::test]
async fn a_plus_minus_duplicate_round_in_play_tells_no_one_of_a_finished_table() {
    hidden_bar("plus-minus", json!({"rubber_games": 1}), 4, 2, 5).await;
}

#[actix_web::test]
async fn a_clubs_duplicate_round_in_play_tells_no_one_of_a_finished_table() {
    hidden_bar("clubs", json!({}), 8, 4, 30).await;
}

#[actix_web::test]
async fn a_real_card_clubs_duplicate_round_in_play_tells_no_one_of_a_finished_table_or_its_boards()
{
    hidden_bar_dealt("clubs", json!({}), 8, 4, 30, "table").await;
}

#[actix_web::test]
async fn a_real_card_dump_duplicate_round_in_play_tells_no_one_of_a_finished_table_or_its_boards() {
    hidden_bar_dealt("dump", json!({"target": 1}), 4, 2, 7, "table").await;
}

#[actix_web::test]
async fn an_undone_duplicate_deal_publishes_no_seed_and_is_dealt_again_the_same() {
    let app = TestApp::spawn().await;
    let (_, _, _, tables) = duplicate_round(&app, "clubs", json!({}), 8, 4).await;
    let m = &tables[0];
    let d = app.act(m, &m.host, None, json!({"type": "deal"})).await;
    assert_eq!(d.status, StatusCode::CREATED, "{}", d.text);
    let commitment = d.body["event"]["commitment"].clone();
    let hand = app.view(m, Some(&m.seats[1])).await["you"]["hand"].clone();
    assert_eq!(hand.as_array().unwrap().len(), 13);
    let u = app.undo(m, &m.host).await;
    assert_eq!(u.status, StatusCode::CREATED, "{}", u.text);
    // The retracted deal's seed would give away the board the other table plays: it stays
    // withheld from everyone at the table, host and seats alike, in the log and on a stream.
    for token in [&m.host, &m.seats[0], &m.seats[3]] {
        let log = app.events(m, Some(token)).await;
        assert_eq!(log[0]["retracted_by"], json!(2));
        assert_eq!(log[0]["seed"], Value::Null, "{}", log[0]);
        assert!(log[0]["seed_withheld"].is_string());
        let (status, streamed) = stream_events(&app, m, Some(token)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(streamed.len(), 2);
        assert!(streamed.iter().all(|e| e["seed"].is_null()), "{streamed:?}");
    }
    // Dealt again: the same board (it is the tournament's, not the table's).
    let again = app.act(m, &m.host, None, json!({"type": "deal"})).await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.text);
    assert_eq!(again.body["event"]["commitment"], commitment);
    assert_eq!(app.view(m, Some(&m.seats[1])).await["you"]["hand"], hand);
}

#[actix_web::test]
async fn a_result_is_entered_for_a_table_still_playing_only_by_abandoning_its_match() {
    let app = TestApp::spawn().await;
    let (tid, org, _, tables) =
        duplicate_round(&app, "plus-minus", json!({"rubber_games": 1}), 4, 2).await;
    for m in &tables {
        let d = app.act(m, &m.host, None, json!({"type": "deal"})).await;
        assert_eq!(d.status, StatusCode::CREATED, "{}", d.text);
    }
    let (t1, t2) = (&tables[0], &tables[1]);
    let url = |t: u32| format!("/v1/tournaments/{tid}/rounds/1/tables/{t}/result");
    let entry = json!({"deals": [[40, 12]]});

    // Table 1 plays on: an entry would count while it does. Refused, nothing recorded.
    let refused = put(&app, &url(1), Some(&org), entry.clone()).await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.text);
    assert_eq!(refused.code(), "match_in_progress");
    assert!(refused.body["detail"]
        .as_str()
        .unwrap()
        .contains("abandon_match"));
    let t = app.get(&format!("/v1/tournaments/{tid}"), Some(&org)).await;
    assert_eq!(t.body["rounds"][0]["tables"][0]["result"], Value::Null);
    assert_eq!(t.body["rounds"][0]["tables"][0]["finished"], false);
    let seq = app.view(t1, Some(&t1.host)).await["seq"].clone();
    assert_eq!(seq, 1);
    // A bad entry with the flag is refused before anything happens to the match.
    let bad = put(
        &app,
        &url(1),
        Some(&org),
        json!({"deals": [[400, 12]], "abandon_match": true}),
    )
    .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", bad.text);
    assert_eq!(app.view(t1, Some(&t1.host)).await["status"], "in_progress");

    let turn = app.view(t1, Some(&t1.host)).await["to_act"][0]
        .as_u64()
        .unwrap() as usize;
    let was_legal = app.legal(t1, turn, Some(&t1.seats[turn])).await;
    assert!(!was_legal.is_empty());

    // With `abandon_match` the match is closed for good and the entry stands.
    let mut abandon = entry.clone();
    abandon["abandon_match"] = json!(true);
    let ok = put(&app, &url(1), Some(&org), abandon).await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text);
    assert_eq!(ok.body["result"]["source"], "totals");
    assert_eq!(ok.body["result"]["totals"], json!([40, 12]));
    let v = app.view(t1, Some(&t1.host)).await;
    assert_eq!(v["status"], "abandoned");
    assert_eq!(v["seq"], 2);
    assert_eq!(v["to_act"], json!([]));
    assert_eq!(v["table_to_act"], false);
    let log = app.events(t1, Some(&t1.host)).await;
    assert_eq!(log.last().unwrap()["kind"], "abandon");
    let listed = app
        .get("/v1/matches?status=abandoned", Some(&t1.host))
        .await;
    assert_eq!(
        listed.body["matches"][0]["status"], "abandoned",
        "{}",
        listed.text
    );
    // Nothing is legal any more; what was is refused.
    assert_eq!(
        app.legal(t1, turn, Some(&t1.seats[turn])).await,
        Vec::<Value>::new()
    );
    let act = app
        .act(t1, &t1.seats[turn], Some(turn), was_legal[0].clone())
        .await;
    assert_eq!(act.status, StatusCode::CONFLICT, "{}", act.text);
    assert_eq!(act.code(), "match_abandoned");
    let undo = app.undo(t1, &t1.host).await;
    assert_eq!(undo.status, StatusCode::CONFLICT, "{}", undo.text);
    assert_eq!(undo.code(), "match_abandoned");
    assert_eq!(app.view(t1, Some(&t1.host)).await["seq"], 2);
    // A correction needs no flag now, and the round is still in play (table 2 has no result):
    // its secret is not out, table 1's match and result are not public.
    let fix = put(&app, &url(1), Some(&org), json!({"deals": [[41, 12]]})).await;
    assert_eq!(fix.status, StatusCode::OK, "{}", fix.text);
    let public = app.get(&format!("/v1/tournaments/{tid}"), None).await;
    assert_eq!(public.body["rounds"][0]["secret"], Value::Null);
    assert_eq!(public.body["rounds"][0]["tables"][0]["result"], Value::Null);
    assert_eq!(
        app.get(&format!("/v1/matches/{}", t1.id), None)
            .await
            .code(),
        "round_in_play"
    );

    // Table 2 settled the same way: the round is complete, its secret out, every log public.
    let mut abandon = json!({"deals": [[7, 30]], "abandon_match": true});
    let ok = put(&app, &url(2), Some(&org), abandon.take()).await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text);
    let public = app.get(&format!("/v1/tournaments/{tid}"), None).await;
    let secret = public.body["rounds"][0]["secret"].as_str().unwrap();
    assert_eq!(
        public.body["rounds"][0]["tables"][0]["result"]["totals"],
        json!([41, 12])
    );
    let log = app.events(t2, None).await;
    assert_eq!(
        log[0]["seed"],
        json!(hex::encode(Sha256::digest(
            format!("{secret}:1").as_bytes()
        )))
    );
}

#[actix_web::test]
async fn a_finished_duplicate_table_cannot_be_reopened_by_undo() {
    let app = TestApp::spawn().await;
    let (tid, _, _, tables) =
        duplicate_round(&app, "plus-minus", json!({"rubber_games": 1}), 4, 2).await;
    for (i, m) in tables.iter().enumerate() {
        let d = app.act(m, &m.host, None, json!({"type": "deal"})).await;
        assert_eq!(d.status, StatusCode::CREATED, "{}", d.text);
        // Within the match, undo is open as usual (no seed is published).
        if i == 0 {
            let legal = app.legal(m, 1, Some(&m.seats[1])).await;
            let p = app.act(m, &m.seats[1], Some(1), legal[0].clone()).await;
            assert_eq!(p.status, StatusCode::CREATED, "{}", p.text);
            assert_eq!(app.undo(m, &m.host).await.status, StatusCode::CREATED);
        }
    }
    let end = app.play(&tables[0], 7, None).await;
    let seq = end["seq"].clone();
    // Table 1 is finished, table 2 plays on: no reopening (its result may complete the round).
    let undo = app.undo(&tables[0], &tables[0].host).await;
    assert_eq!(
        undo.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        undo.text
    );
    assert_eq!(undo.code(), "round_closed");
    app.play(&tables[1], 11, None).await;
    let public = app.get(&format!("/v1/tournaments/{tid}"), None).await;
    assert!(public.body["rounds"][0]["secret"].is_string());
    // The secret is out: still no reopening.
    let undo = app.undo(&tables[0], &tables[0].host).await;
    assert_eq!(
        undo.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        undo.text
    );
    assert_eq!(undo.code(), "round_closed");
    assert_eq!(app.view(&tables[0], None).await["seq"], seq);
}

#[actix_web::test]
async fn a_members_only_duplicate_round_never_publishes_its_secret() {
    let app = TestApp::spawn().await;
    let (tid, org, _, tables) = duplicate_round(&app, "members-only", json!({}), 6, 3).await;
    for m in &tables {
        let d = app.act(m, &m.host, None, json!({"type": "deal"})).await;
        assert_eq!(d.status, StatusCode::CREATED, "{}", d.text);
    }
    for t in 1..=2 {
        let ok = put(
            &app,
            &format!("/v1/tournaments/{tid}/rounds/1/tables/{t}/result"),
            Some(&org),
            json!({"totals": [10, 5, 0], "deals": [[10, 5, 0]], "abandon_match": true}),
        )
        .await;
        assert_eq!(ok.status, StatusCode::OK, "{}", ok.text);
    }
    let public = app.get(&format!("/v1/tournaments/{tid}"), None).await;
    let r1 = &public.body["rounds"][0];
    assert_eq!(r1["complete"], true);
    // The secret would re-derive every hand, hence the discards, which are never public.
    assert_eq!(r1["secret"], Value::Null);
    assert!(r1["secret_withheld"]
        .as_str()
        .unwrap()
        .contains("never published"));
    for m in &tables {
        let log = app.events(m, None).await;
        assert!(log[0]["commitment"].is_string());
        assert_eq!(log[0]["seed"], Value::Null);
        assert!(log[0]["seed_withheld"].is_string());
    }
    // Another game's complete duplicate round says nothing of the kind.
    let (tid, org, _, _) =
        duplicate_round(&app, "plus-minus", json!({"rubber_games": 1}), 4, 2).await;
    let t = app.get(&format!("/v1/tournaments/{tid}"), Some(&org)).await;
    assert_eq!(t.body["rounds"][0]["secret_withheld"], Value::Null);
}

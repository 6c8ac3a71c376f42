//! Identity and lists that last (issue 23 part 4) over HTTP: the player list and its search, the
//! tournament list and its filters, a player's matches and tournaments, and the rule that an
//! entry's name never replaces the registered player's. Runs on SQLite, and on PostgreSQL with
//! `TEST_DATABASE_URL`.

mod common;

use std::collections::HashSet;

use common::TestApp;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

async fn post(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> common::Answer {
    app.request(Method::POST, path, token, &[], Some(body))
        .await
}

/// Registers a player; its id.
async fn player(app: &TestApp, name: &str) -> String {
    let a = post(app, "/v1/players", None, json!({ "name": name })).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    a.body["id"].as_str().unwrap().to_string()
}

/// Creates a tournament; (id, organiser token, body).
async fn tournament(app: &TestApp, body: Value) -> (String, String, Value) {
    let a = post(app, "/v1/tournaments", None, body).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    (
        a.body["tournament"]["id"].as_str().unwrap().to_string(),
        a.body["organiser_token"].as_str().unwrap().to_string(),
        a.body,
    )
}

fn ids_of(list: &Value, key: &str) -> Vec<String> {
    list[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect()
}

fn names_of(list: &Value) -> Vec<String> {
    list["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

async fn ok(app: &TestApp, path: &str) -> Value {
    let a = app.get(path, None).await;
    assert_eq!(a.status, StatusCode::OK, "{path}: {}", a.text);
    a.body
}

async fn refused(app: &TestApp, path: &str, status: StatusCode, code: &str) -> String {
    let a = app.get(path, None).await;
    assert_eq!(a.status, status, "{path}: {}", a.text);
    assert_eq!(a.code(), code, "{path}: {}", a.text);
    a.body["detail"].as_str().unwrap().to_string()
}

#[actix_web::test]
async fn the_player_list_pages_without_gaps_or_repeats_while_players_register() {
    let app = TestApp::spawn().await;
    let mut registered = vec![];
    for i in 0..12 {
        registered.push(player(&app, &format!("P{i:02}")).await);
    }
    // Page by 5, registering a player between pages: registration order, oldest first, so each
    // new player comes after every page already read and is read at the end.
    let mut seen = vec![];
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &cursor {
            Some(c) => format!("/v1/players?limit=5&cursor={c}"),
            None => "/v1/players?limit=5".to_string(),
        };
        let page = ok(&app, &path).await;
        assert!(page["players"].as_array().unwrap().len() <= 5);
        seen.extend(ids_of(&page, "players"));
        pages += 1;
        if pages <= 2 {
            registered.push(player(&app, &format!("Late{pages}")).await);
        }
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(seen, registered, "every player once, in registration order");
    assert_eq!(pages, 3);
    // Each entry is what GET /v1/players/{id} shows.
    let first = ok(&app, "/v1/players?limit=1").await;
    let one = ok(&app, &format!("/v1/players/{}", registered[0])).await;
    assert_eq!(first["players"], json!([one]));
    assert_eq!(
        first["players"][0]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["created_at", "id", "name"]
    );
}

#[actix_web::test]
async fn the_player_list_searches_names_by_substring_in_any_case() {
    let app = TestApp::spawn().await;
    for name in ["Ada", "ADAM", "Dan", "Brad", "Élodie", "100%_x", "Zoë"] {
        player(&app, name).await;
    }
    let search = |q: &'static str| {
        let app = &app;
        async move { names_of(&ok(app, &format!("/v1/players?q={q}")).await) }
    };
    assert_eq!(search("ad").await, ["Ada", "ADAM", "Brad"]);
    assert_eq!(search("AD").await, ["Ada", "ADAM", "Brad"]);
    assert_eq!(search("da").await, ["Ada", "ADAM", "Dan"]);
    // Unicode case folding, the same on SQLite and PostgreSQL.
    assert_eq!(search("%C3%A9LO").await, ["Élodie"]);
    assert_eq!(search("ZO%C3%8B").await, ["Zoë"]);
    // LIKE's wildcards are plain characters here.
    assert_eq!(search("%25").await, ["100%_x"]);
    assert_eq!(search("_").await, ["100%_x"]);
    assert_eq!(search("%5C").await, Vec::<String>::new());
    assert_eq!(search("nobody").await, Vec::<String>::new());
    // Paging a search.
    let p1 = ok(&app, "/v1/players?q=a&limit=2").await;
    assert_eq!(names_of(&p1), ["Ada", "ADAM"]);
    let c = p1["next_cursor"].as_str().unwrap();
    let p2 = ok(&app, &format!("/v1/players?q=a&limit=2&cursor={c}")).await;
    assert_eq!(names_of(&p2), ["Dan", "Brad"]);
    // The last page says so: no cursor after it.
    assert_eq!(p2["next_cursor"], Value::Null);

    // Bad queries.
    let long = "x".repeat(65);
    assert_eq!(
        refused(
            &app,
            &format!("/v1/players?q={long}"),
            StatusCode::BAD_REQUEST,
            "invalid_query"
        )
        .await,
        "q must have at most 64 characters (a name has at most 64)"
    );
    assert_eq!(
        refused(
            &app,
            "/v1/players?limit=0",
            StatusCode::BAD_REQUEST,
            "invalid_query"
        )
        .await,
        "limit must be 1 to 100"
    );
    refused(
        &app,
        "/v1/players?limit=101",
        StatusCode::BAD_REQUEST,
        "invalid_query",
    )
    .await;
    assert_eq!(
        refused(
            &app,
            "/v1/players?cursor=-5",
            StatusCode::BAD_REQUEST,
            "invalid_cursor"
        )
        .await,
        "cursor must be a next_cursor from an earlier page"
    );
    refused(
        &app,
        "/v1/players?name=Ada",
        StatusCode::BAD_REQUEST,
        "invalid_query",
    )
    .await;
}

#[actix_web::test]
async fn the_tournament_list_filters_by_game_and_time_and_pages_newest_first() {
    let app = TestApp::spawn().await;
    let four = |n: &str| {
        (0..4)
            .map(|i| json!({"name": format!("{n}{i}")}))
            .collect::<Vec<_>>()
    };
    let (t1, org1, _) = tournament(&app, json!({"name": "Monday", "game": "clubs", "format": "swiss", "rounds": 2, "players": four("M")})).await;
    let (t2, _, b2) = tournament(&app, json!({"name": "Tuesday", "game": "dump", "format": "swiss", "rounds": 3, "table_size": 2, "players": four("T")})).await;
    let (t3, _, _) = tournament(&app, json!({"name": "Wednesday", "game": "clubs", "format": "swiss", "rounds": 1, "players": four("W")})).await;
    let r = post(
        &app,
        &format!("/v1/tournaments/{t1}/rounds"),
        Some(&org1),
        json!({}),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);

    let all = ok(&app, "/v1/tournaments").await;
    assert_eq!(
        ids_of(&all, "tournaments"),
        [t3.clone(), t2.clone(), t1.clone()]
    );
    let monday = &all["tournaments"][2];
    assert_eq!(monday["name"], "Monday");
    assert_eq!(monday["game"], "clubs");
    assert_eq!(monday["format"], "swiss");
    assert_eq!(monday["duplicate"], false);
    assert_eq!(monday["rounds"], 2);
    assert_eq!(monday["rounds_paired"], 1);
    assert_eq!(monday["entrants"], 4);
    assert!(
        !all.to_string().contains(&org1),
        "no organiser token in the list"
    );
    assert!(all["tournaments"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t.get("organiser_token").is_none()));

    let clubs = ok(&app, "/v1/tournaments?game=clubs").await;
    assert_eq!(ids_of(&clubs, "tournaments"), [t3.clone(), t1.clone()]);
    assert_eq!(
        ids_of(&ok(&app, "/v1/tournaments?game=chess").await, "tournaments"),
        Vec::<String>::new()
    );

    // By creation time: `created_after` inclusive, `created_before` exclusive, any offset.
    let at2 = b2["tournament"]["created_at"].as_str().unwrap().to_string();
    let enc = |t: &str| t.replace('+', "%2B");
    let after = ok(
        &app,
        &format!("/v1/tournaments?created_after={}", enc(&at2)),
    )
    .await;
    let expect_after: Vec<String> = ids_of(&all, "tournaments")
        .into_iter()
        .zip(all["tournaments"].as_array().unwrap().iter())
        .filter(|(_, t)| t["created_at"].as_str().unwrap() >= at2.as_str())
        .map(|(id, _)| id)
        .collect();
    assert!(expect_after.contains(&t2) && expect_after.contains(&t3));
    assert_eq!(ids_of(&after, "tournaments"), expect_after);
    let before = ok(
        &app,
        &format!("/v1/tournaments?created_before={}", enc(&at2)),
    )
    .await;
    let expect_before: Vec<String> = all["tournaments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["created_at"].as_str().unwrap() < at2.as_str())
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect();
    assert!(!expect_before.contains(&t2));
    assert_eq!(ids_of(&before, "tournaments"), expect_before);
    let far = ok(
        &app,
        "/v1/tournaments?created_after=2999-01-01T00:00:00%2B02:00",
    )
    .await;
    assert_eq!(far["tournaments"], json!([]));
    let old = ok(&app, "/v1/tournaments?created_after=2000-01-01T00:00:00Z&created_before=2999-01-01T00:00:00Z&game=dump").await;
    assert_eq!(ids_of(&old, "tournaments"), std::slice::from_ref(&t2));
    assert_eq!(
        refused(
            &app,
            "/v1/tournaments?created_after=yesterday",
            StatusCode::BAD_REQUEST,
            "invalid_query"
        )
        .await,
        "created_after must be an RFC 3339 time, such as 2026-11-27T18:00:00Z"
    );

    // Newest first by 1, a tournament created between pages: it comes before the cursor, so the
    // pages go on with no repeat and no gap among those that were there.
    let p1 = ok(&app, "/v1/tournaments?limit=1").await;
    assert_eq!(ids_of(&p1, "tournaments"), std::slice::from_ref(&t3));
    tournament(&app, json!({"name": "Late", "game": "clubs", "format": "swiss", "rounds": 1, "players": four("L")})).await;
    let c = p1["next_cursor"].as_str().unwrap();
    let p2 = ok(&app, &format!("/v1/tournaments?limit=2&cursor={c}")).await;
    assert_eq!(ids_of(&p2, "tournaments"), [t2.clone(), t1.clone()]);
    assert_eq!(p2["next_cursor"], Value::Null);
    refused(
        &app,
        "/v1/tournaments?limit=500",
        StatusCode::BAD_REQUEST,
        "invalid_query",
    )
    .await;
    refused(
        &app,
        "/v1/tournaments?cursor=x",
        StatusCode::BAD_REQUEST,
        "invalid_cursor",
    )
    .await;
}

#[actix_web::test]
async fn a_player_lists_the_matches_and_tournaments_that_name_them() {
    let app = TestApp::spawn().await;
    let ada = player(&app, "Ada").await;
    let ben = player(&app, "Ben").await;
    let nobody = player(&app, "Nobody").await;
    // A casual match seats Ada by id, Cy by name alone.
    let casual = post(
        &app,
        "/v1/matches",
        None,
        json!({"game": "dump", "players": [{"name": "Ada", "player_id": ada}, {"name": "Cy"}]}),
    )
    .await;
    assert_eq!(casual.status, StatusCode::CREATED, "{}", casual.text);
    // A tournament Ada and Ben enter; another without them.
    let (t1, org, _) = tournament(&app, json!({"name": "Club night", "game": "clubs", "format": "swiss", "rounds": 1,
        "players": [{"name": "Ada", "player_id": ada}, {"name": "Ben", "player_id": ben}, {"name": "Di"}, {"name": "Ed"}]})).await;
    let (_t2, _, _) = tournament(
        &app,
        json!({"name": "Other", "game": "clubs", "format": "swiss", "rounds": 1,
        "players": [{"name": "W"}, {"name": "X"}, {"name": "Y"}, {"name": "Z"}]}),
    )
    .await;

    let ts = ok(&app, &format!("/v1/players/{ada}/tournaments")).await;
    assert_eq!(ids_of(&ts, "tournaments"), std::slice::from_ref(&t1));
    assert_eq!(ts["tournaments"][0]["name"], "Club night");
    assert_eq!(
        ok(&app, &format!("/v1/players/{nobody}/tournaments")).await["tournaments"],
        json!([])
    );

    // Matches in progress are not listed: not the casual one, not the tournament table.
    assert_eq!(
        ok(&app, &format!("/v1/players/{ada}/matches")).await["matches"],
        json!([])
    );
    let round = post(
        &app,
        &format!("/v1/tournaments/{t1}/rounds"),
        Some(&org),
        json!({}),
    )
    .await;
    assert_eq!(round.status, StatusCode::CREATED, "{}", round.text);
    let table_match = round.body["tokens"][0]["match_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        ok(&app, &format!("/v1/players/{ada}/matches")).await["matches"],
        json!([])
    );
    // Once the table is settled (abandoned, its result entered), its match is listed for both.
    let put = app
        .request(
            Method::PUT,
            &format!("/v1/tournaments/{t1}/rounds/1/tables/1/result"),
            Some(&org),
            &[],
            Some(json!({"totals": [-104, 0, 0, 0], "abandon_match": true})),
        )
        .await;
    assert_eq!(put.status, StatusCode::OK, "{}", put.text);
    for p in [&ada, &ben] {
        let ms = ok(&app, &format!("/v1/players/{p}/matches")).await;
        assert_eq!(ids_of(&ms, "matches"), std::slice::from_ref(&table_match));
        assert_eq!(ms["matches"][0]["status"], "abandoned");
        let seats: HashSet<String> = ms["matches"][0]["players"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["player_id"].as_str().map(String::from))
            .collect();
        assert!(seats.contains(p.as_str()));
    }
    assert_eq!(
        ok(&app, &format!("/v1/players/{nobody}/matches")).await["matches"],
        json!([])
    );

    let unknown = "0123456789abcdef0123456789abcdef";
    assert_eq!(
        refused(
            &app,
            &format!("/v1/players/{unknown}/matches"),
            StatusCode::NOT_FOUND,
            "player_not_found"
        )
        .await,
        format!("no player has id {unknown}")
    );
    refused(
        &app,
        &format!("/v1/players/{unknown}/tournaments"),
        StatusCode::NOT_FOUND,
        "player_not_found",
    )
    .await;
    refused(
        &app,
        &format!("/v1/players/{ada}/matches?limit=0"),
        StatusCode::BAD_REQUEST,
        "invalid_query",
    )
    .await;
}

#[actix_web::test]
async fn an_entry_never_renames_the_registered_player() {
    let app = TestApp::spawn().await;
    let ada = player(&app, "Ada").await;
    let a = post(
        &app,
        "/v1/matches",
        None,
        json!({"game": "dump", "players": [{"name": "Ben"}, {"name": "Ann", "player_id": ada}]}),
    )
    .await;
    assert_eq!(a.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", a.text);
    assert_eq!(a.code(), "player_name_mismatch");
    assert_eq!(
        a.body["detail"],
        format!("player 1's player_id names {ada}, registered as \"Ada\", not \"Ann\": send the registered name (GET /v1/players/{ada})")
    );
    // Case counts: a different spelling is another name.
    let a = post(
        &app,
        "/v1/matches",
        None,
        json!({"game": "dump", "players": [{"name": "ada", "player_id": ada}, {"name": "Ben"}]}),
    )
    .await;
    assert_eq!(a.code(), "player_name_mismatch");
    // A tournament entry likewise; nothing is created.
    let t = post(&app, "/v1/tournaments", None, json!({"name": "T", "game": "clubs", "format": "swiss", "rounds": 1,
        "players": [{"name": "Ada!", "player_id": ada}, {"name": "B"}, {"name": "C"}, {"name": "D"}]})).await;
    assert_eq!(t.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", t.text);
    assert_eq!(t.code(), "player_name_mismatch");
    assert_eq!(ok(&app, "/v1/tournaments").await["tournaments"], json!([]));
    assert_eq!(names_of(&ok(&app, "/v1/players").await), ["Ada"]);
    // The registered name is taken.
    let a = post(
        &app,
        "/v1/matches",
        None,
        json!({"game": "dump", "players": [{"name": "Ada", "player_id": ada}, {"name": "Ben"}]}),
    )
    .await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    assert_eq!(
        a.body["match"]["players"][0],
        json!({"seat": 0, "name": "Ada", "player_id": ada})
    );
}

async fn rotate(app: &TestApp, id: &str, token: Option<&str>, seat: Value) -> common::Answer {
    post(
        app,
        &format!("/v1/matches/{id}/tokens"),
        token,
        json!({ "seat": seat }),
    )
    .await
}

#[actix_web::test]
async fn rotating_a_token_revokes_the_old_one_at_once_on_every_instance() {
    let app = TestApp::spawn().await;
    let other = TestApp::on(&app.database_url).await;
    let m = app.create("dump", 2, "table", json!({})).await;
    let view = format!("/v1/matches/{}", m.id);
    // The other instance has the match in its cache, old tokens and all.
    for t in [&m.host, &m.seats[0], &m.seats[1]] {
        assert_eq!(other.get(&view, Some(t)).await.status, StatusCode::OK);
    }

    // The host rotates seat 1's token (a lost phone).
    let r = rotate(&app, &m.id, Some(&m.host), json!(1)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["seat"], 1);
    let seat1 = r.body["token"].as_str().unwrap().to_string();
    assert_eq!(seat1.len(), m.seats[1].len());
    assert_ne!(seat1, m.seats[1]);
    for a in [&app, &other] {
        let old = a.get(&view, Some(&m.seats[1])).await;
        assert_eq!(old.status, StatusCode::UNAUTHORIZED, "{}", old.text);
        assert_eq!(old.code(), "unauthorized");
        assert_eq!(old.body["detail"], "this token is not valid for this match");
        let new = a.get(&view, Some(&seat1)).await;
        assert_eq!(new.status, StatusCode::OK, "{}", new.text);
        assert_eq!(new.body["you"]["seat"], 1, "{}", new.text);
    }

    // A seat rotates only its own.
    let r = rotate(&app, &m.id, Some(&m.seats[0]), json!(1)).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    assert_eq!(r.code(), "not_your_seat");
    assert_eq!(
        r.body["detail"],
        "this token acts for seat 1 only, not seat 2"
    );
    let r = rotate(&app, &m.id, Some(&m.seats[0]), Value::Null).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    assert_eq!(r.code(), "host_only");
    assert_eq!(
        r.body["detail"],
        "only the host token may rotate the host's token"
    );
    let r = rotate(&other, &m.id, Some(&m.seats[0]), json!(0)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let seat0 = r.body["token"].as_str().unwrap().to_string();
    assert_eq!(
        app.get(&view, Some(&m.seats[0])).await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(app.get(&view, Some(&seat0)).await.body["you"]["seat"], 0);
    // The revoked token rotates nothing.
    let r = rotate(&app, &m.id, Some(&m.seats[0]), json!(0)).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.text);
    assert_eq!(r.code(), "unauthorized");

    // The host rotates its own (a leaked link): the old one records nothing, anywhere.
    let r = rotate(&app, &m.id, Some(&m.host), Value::Null).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.body["seat"], Value::Null);
    let host = r.body["token"].as_str().unwrap().to_string();
    for a in [&app, &other] {
        let undo = a.undo(&m, &m.host).await;
        assert_eq!(undo.status, StatusCode::UNAUTHORIZED, "{}", undo.text);
        assert_eq!(
            undo.body["detail"],
            "this token is not valid for this match"
        );
        let undo = a.undo(&m, &host).await;
        assert_eq!(
            undo.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}",
            undo.text
        );
        assert_eq!(undo.code(), "nothing_to_undo");
    }

    // Other refusals.
    let r = rotate(&app, &m.id, None, json!(0)).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.text);
    assert_eq!(r.code(), "unauthorized");
    let r = rotate(&app, &m.id, Some(&host), json!(2)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text);
    assert_eq!(r.code(), "no_such_seat");
    let r = post(
        &app,
        &format!("/v1/matches/{}/tokens", m.id),
        Some(&host),
        json!({"seat": 0, "who": 1}),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    let r = rotate(
        &app,
        "0123456789abcdef0123456789abcdef",
        Some(&host),
        json!(0),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.text);
    assert_eq!(r.code(), "match_not_found");

    // A tournament table's tokens derive from the organiser's: refused, unchanged.
    let (t, org, _) = tournament(
        &app,
        json!({"name": "T", "game": "clubs", "format": "swiss", "rounds": 1,
        "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}]}),
    )
    .await;
    let round = post(
        &app,
        &format!("/v1/tournaments/{t}/rounds"),
        Some(&org),
        json!({}),
    )
    .await;
    let tm = round.body["tokens"][0]["match_id"].as_str().unwrap();
    let th = round.body["tokens"][0]["host_token"].as_str().unwrap();
    let r = rotate(&app, tm, Some(th), Value::Null).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.text);
    assert_eq!(r.code(), "table_tokens_derived");
    assert_eq!(
        app.get(&format!("/v1/matches/{tm}"), Some(th)).await.status,
        StatusCode::OK
    );
}

#[actix_web::test]
async fn the_organiser_or_the_operator_rotates_the_organiser_token_and_its_tables() {
    let app = TestApp::spawn().await;
    let other = TestApp::on(&app.database_url).await;
    let (t, org, _) = tournament(
        &app,
        json!({"name": "T", "game": "clubs", "format": "swiss", "rounds": 2,
        "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}]}),
    )
    .await;
    let round = post(
        &app,
        &format!("/v1/tournaments/{t}/rounds"),
        Some(&org),
        json!({}),
    )
    .await;
    assert_eq!(round.status, StatusCode::CREATED, "{}", round.text);
    let tm = round.body["tokens"][0]["match_id"]
        .as_str()
        .unwrap()
        .to_string();
    let old_host = round.body["tokens"][0]["host_token"]
        .as_str()
        .unwrap()
        .to_string();
    let old_seat = round.body["tokens"][0]["seat_tokens"][2]
        .as_str()
        .unwrap()
        .to_string();
    let view = format!("/v1/matches/{tm}");
    assert_eq!(
        other.get(&view, Some(&old_seat)).await.status,
        StatusCode::OK
    );
    let path = format!("/v1/tournaments/{t}/organiser-token");

    // Refused without the organiser's or the operator's token.
    let r = post(&app, &path, None, json!({})).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::UNAUTHORIZED, "unauthorized"),
        "{}",
        r.text
    );
    let r = post(&app, &path, Some(&old_host), json!({})).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::FORBIDDEN, "organiser_only"),
        "{}",
        r.text
    );
    assert_eq!(
        r.body["detail"],
        "only the tournament's organiser token may do this"
    );

    // The organiser rotates: the old token and the tables' old tokens are refused everywhere.
    let r = post(&app, &path, Some(&org), json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let org2 = r.body["organiser_token"].as_str().unwrap().to_string();
    assert_ne!(org2, org);
    let round1 = format!("/v1/tournaments/{t}/rounds/1");
    for a in [&app, &other] {
        let old = a.get(&round1, Some(&org)).await;
        assert_eq!(
            (old.status, old.code()),
            (StatusCode::FORBIDDEN, "organiser_only"),
            "{}",
            old.text
        );
        for tok in [&old_host, &old_seat] {
            let old = a.get(&view, Some(tok)).await;
            assert_eq!(old.status, StatusCode::UNAUTHORIZED, "{}", old.text);
            assert_eq!(old.body["detail"], "this token is not valid for this match");
        }
    }
    // The round gives the tables' new tokens, and they work.
    let fresh = other.get(&round1, Some(&org2)).await;
    assert_eq!(fresh.status, StatusCode::OK, "{}", fresh.text);
    let new_seat = fresh.body["tokens"][0]["seat_tokens"][2].as_str().unwrap();
    assert_ne!(new_seat, old_seat);
    assert_eq!(app.get(&view, Some(new_seat)).await.body["you"]["seat"], 2);

    // The operator recovers a lost organiser token.
    let r = post(&other, &path, Some(common::OPERATOR), json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let org3 = r.body["organiser_token"].as_str().unwrap().to_string();
    assert_eq!(app.get(&round1, Some(&org2)).await.code(), "organiser_only");
    assert_eq!(app.get(&round1, Some(&org3)).await.status, StatusCode::OK);
    let r = post(
        &app,
        "/v1/tournaments/0123456789abcdef0123456789abcdef/organiser-token",
        Some(common::OPERATOR),
        json!({}),
    )
    .await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::NOT_FOUND, "tournament_not_found"),
        "{}",
        r.text
    );
}

/// A quick-log Dump tournament of four (two tables of two); (id, organiser token).
async fn quick_log_four(app: &TestApp) -> (String, String) {
    let (t, org, _) = tournament(
        app,
        json!({"name": "Race", "game": "dump", "format": "swiss", "rounds": 3, "table_size": 2,
               "record": "totals", "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}]}),
    )
    .await;
    (t, org)
}

#[actix_web::test]
async fn a_pairing_racing_a_rotation_completes_before_it_or_is_refused_whole() {
    let app = TestApp::spawn().await;
    let other = TestApp::on(&app.database_url).await;
    let (mut before, mut refused) = (0, 0);
    for _ in 0..12 {
        // Matches at the tables: a pairing that got in must have its tables' tokens rotated.
        let (t, org, _) = tournament(
            &app,
            json!({"name": "T", "game": "clubs", "format": "swiss", "rounds": 2,
                   "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}]}),
        )
        .await;
        let (rounds_path, rotate_path) = (
            format!("/v1/tournaments/{t}/rounds"),
            format!("/v1/tournaments/{t}/organiser-token"),
        );
        let pair = post(&app, &rounds_path, Some(&org), json!({}));
        let rotate = post(&other, &rotate_path, Some(&org), json!({}));
        let (pair, rotated) = tokio::join!(pair, rotate);
        assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.text);
        let org2 = rotated.body["organiser_token"].as_str().unwrap();
        let view = app.get(&format!("/v1/tournaments/{t}"), None).await;
        let rounds = view.body["rounds"].as_array().unwrap().len();
        match pair.status {
            StatusCode::CREATED => {
                before += 1;
                assert_eq!(rounds, 1);
                // Paired before the rotation: the rotation re-derived its table's tokens, so
                // the ones the pairing answered are refused and the new ones work.
                let m = pair.body["tokens"][0]["match_id"].as_str().unwrap();
                for old in [
                    pair.body["tokens"][0]["host_token"].as_str().unwrap(),
                    pair.body["tokens"][0]["seat_tokens"][0].as_str().unwrap(),
                ] {
                    let r = app.get(&format!("/v1/matches/{m}"), Some(old)).await;
                    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.text);
                }
                let fresh = app
                    .get(&format!("/v1/tournaments/{t}/rounds/1"), Some(org2))
                    .await;
                assert_eq!(fresh.status, StatusCode::OK, "{}", fresh.text);
                let host = fresh.body["tokens"][0]["host_token"].as_str().unwrap();
                let r = app.get(&format!("/v1/matches/{m}"), Some(host)).await;
                assert_eq!(r.status, StatusCode::OK, "{}", r.text);
            }
            StatusCode::FORBIDDEN => {
                refused += 1;
                assert_eq!(pair.code(), "organiser_only", "{}", pair.text);
                assert_eq!(rounds, 0, "a refused pairing left a round");
            }
            s => panic!("pairing answered {s}: {}", pair.text),
        }
        // Whatever the order, the old token is refused from now on.
        let late = post(
            &app,
            &format!("/v1/tournaments/{t}/rounds"),
            Some(&org),
            json!({}),
        )
        .await;
        assert_eq!(
            (late.status, late.code()),
            (StatusCode::FORBIDDEN, "organiser_only"),
            "{}",
            late.text
        );
    }
    assert_eq!(before + refused, 12);
}

#[actix_web::test]
async fn a_result_entry_racing_a_rotation_is_recorded_before_it_or_refused_whole() {
    let app = TestApp::spawn().await;
    let other = TestApp::on(&app.database_url).await;
    for _ in 0..12 {
        let (t, org) = quick_log_four(&app).await;
        let r = post(
            &app,
            &format!("/v1/tournaments/{t}/rounds"),
            Some(&org),
            json!({}),
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        let url = format!("/v1/tournaments/{t}/rounds/1/tables/1/result");
        let entry = app.request(
            Method::PUT,
            &url,
            Some(&org),
            &[],
            Some(json!({"deals": [[40, 0], [0, 20], [70, 0]]})),
        );
        let rotate_path = format!("/v1/tournaments/{t}/organiser-token");
        let rotate = post(&other, &rotate_path, Some(&org), json!({}));
        let (entry, rotated) = tokio::join!(entry, rotate);
        assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.text);
        let view = app.get(&format!("/v1/tournaments/{t}"), None).await;
        let result = &view.body["rounds"][0]["tables"][0]["result"];
        match entry.status {
            StatusCode::OK => assert_eq!(result["totals"], json!([110, 20]), "{}", view.text),
            StatusCode::FORBIDDEN => {
                assert_eq!(entry.code(), "organiser_only", "{}", entry.text);
                assert!(result.is_null(), "a refused entry left a result: {result}");
            }
            s => panic!("the entry answered {s}: {}", entry.text),
        }
        let late = app
            .request(
                Method::PUT,
                &url,
                Some(&org),
                &[],
                Some(json!({"deals": [[40, 0], [0, 20], [70, 0]]})),
            )
            .await;
        assert_eq!(late.code(), "organiser_only", "{}", late.text);
    }
}

/// The attack: a seat's token is rotated away on one instance (a lost phone, now in an
/// opponent's pocket) while another instance still has the old token in its cache. Through that
/// instance the old token records nothing, and its refusals tell nothing: a card it does not
/// hold is refused as any revoked token is (401), not as `card_not_in_hand`, which would let it
/// read the hand card by card.
#[actix_web::test]
async fn a_rotated_token_records_and_learns_nothing_where_it_is_still_cached() {
    let app = TestApp::spawn().await;
    let (other, third) = (
        TestApp::on(&app.database_url).await,
        TestApp::on(&app.database_url).await,
    );
    let m = app.create("dump", 2, "service", json!({})).await;
    let dealt = app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.text);
    // The seat to lead, its hand (every card of it is a legal lead) and a card it does not hold.
    let mut leader = None;
    for s in 0..2 {
        let cards: Vec<String> = app
            .legal(&m, s, Some(&m.seats[s]))
            .await
            .iter()
            .filter_map(|a| a["card"].as_str().map(String::from))
            .collect();
        if !cards.is_empty() {
            leader = Some((s, cards));
        }
    }
    let (seat, hand) = leader.expect("a seat to lead");
    let absent = ["2", "3", "7", "8", "9", "T", "J", "Q", "K", "A"]
        .iter()
        .flat_map(|r| ["S", "H", "D", "C"].map(|s| format!("{r}{s}")))
        .find(|c| !hand.contains(c))
        .expect("a card the leader does not hold");
    let play = |card: &str| json!({"type": "play", "card": card});
    // While the token holds, the other instances (whose caches now hold it) refuse the absent
    // card for what it is: the probe the attacker would run.
    for a in [&other, &third] {
        assert_eq!(a.view(&m, Some(&m.seats[seat])).await["you"]["seat"], seat);
        let probe = a.act(&m, &m.seats[seat], Some(seat), play(&absent)).await;
        assert_eq!(
            probe.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}",
            probe.text
        );
        assert_eq!(probe.code(), "card_not_in_hand");
    }

    // The host rotates the seat's token on the first instance.
    let r = rotate(&app, &m.id, Some(&m.host), json!(seat)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let fresh = r.body["token"].as_str().unwrap().to_string();

    // Through the instances that still cache it, the old token now gets 401 for a card it
    // holds (refused by the append, which checks the token in its insert) and for the absent
    // card (a refusal is told only once the token is checked) alike, and records nothing.
    for (a, card) in [
        (&other, &hand[0]),
        (&third, &absent),
        (&other, &absent),
        (&third, &hand[0]),
    ] {
        let a = a.act(&m, &m.seats[seat], Some(seat), play(card)).await;
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{card}: {}", a.text);
        assert_eq!(a.code(), "unauthorized");
        assert_eq!(a.body["detail"], "this token is not valid for this match");
    }
    for a in [&app, &other, &third] {
        assert_eq!(a.view(&m, None).await["seq"], 1);
        assert_eq!(a.events(&m, Some(&m.host)).await.len(), 1);
    }
    // The new token plays through either instance.
    let a = other.act(&m, &fresh, Some(seat), play(&hand[0])).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    assert_eq!(app.view(&m, None).await["seq"], 2);
}

//! The eighth-game proof (issue 21): with the `test-game` feature the game registry has one more
//! line, a throwaway game (`src/rules/odd_or_even.rs`), and nothing else in the service names it.
//! This file shows the rest of the service takes it all the same: the catalogue and the page's
//! game list (`GET /v1/games`, from which the page builds its create and tournament forms), the
//! spec's unions and `CreateMatch.game`, the views' schemas (typed views), the conformance
//! properties through the generic engine, matches over HTTP, and tournaments (table sizes from
//! its player counts, duplicate play from its `DUPLICATE`, entered results checked by its own
//! `check_entered`).
//!
//! Run alone: `cargo test --features test-game --test eighth_game`. The feature changes the spec,
//! so the other suites (the drift test first) run without it.
#![cfg(feature = "test-game")]

mod common;

use clubroom::rules::{odd_or_even::OddOrEven, Actor, AnyGame, Dealing, Game, Seed};
use common::TestApp;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const ID: &str = "odd-or-even";

fn spec() -> Value {
    serde_json::from_str(&clubroom::app::openapi_json()).unwrap()
}

/// A validator of the spec's component `name`.
fn component(spec: &Value, name: &str) -> jsonschema::Validator {
    let mut root = json!({"$ref": format!("#/components/schemas/{name}")});
    root["components"] = spec["components"].clone();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&root)
        .unwrap_or_else(|e| panic!("{name} compiles: {e}"))
}

#[test]
fn the_catalogue_and_the_spec_list_the_eighth_game() {
    let catalogue = AnyGame::catalogue();
    assert_eq!(catalogue.len(), 7);
    let last = catalogue.last().unwrap();
    assert_eq!((last.id, last.title), (ID, OddOrEven::TITLE));
    assert_eq!((last.min_players, last.max_players), (2, 3));
    assert_eq!(last.default_config, json!({"rounds": 2}));
    assert!(AnyGame::duplicate_games().contains(&ID));
    assert_eq!(AnyGame::player_counts(ID), Some(2..=3));

    let spec = spec();
    let schemas = &spec["components"]["schemas"];
    // The request's union of every game's actions, and each per-game document's union
    // (discriminated by `game`) with the game's own model, whose parts are the game's models.
    for (union, model) in [
        ("GameAction", "OddOrEvenAction"),
        ("MatchView", "OddOrEvenMatchView"),
        ("Legal", "OddOrEvenLegal"),
        ("EventView", "OddOrEvenEventView"),
        ("ScoreSheet", "OddOrEvenScoreSheet"),
        ("CreateMatch", "OddOrEvenCreateMatch"),
    ] {
        let refs: Vec<&str> = schemas[union]["anyOf"]
            .as_array()
            .or(schemas[union]["oneOf"].as_array())
            .unwrap()
            .iter()
            .filter_map(|b| b["$ref"].as_str())
            .collect();
        assert!(
            refs.contains(&format!("#/components/schemas/{model}").as_str()),
            "{union} has {model}: {refs:?}"
        );
        assert!(schemas[model].is_object(), "{model} is in the spec");
    }
    for model in [
        "OddOrEvenTable",
        "OddOrEvenSeat",
        "OddOrEvenEventOutcome",
        "OddOrEvenRoundDetail",
    ] {
        assert!(schemas[model].is_object(), "{model} is in the spec");
    }
    assert!(schemas["OddOrEvenConfig"].is_object());
    assert_eq!(
        schemas["CreateMatch"]["discriminator"]["mapping"][ID],
        json!("#/components/schemas/OddOrEvenCreateMatch")
    );
}

/// A small xorshift generator: the playouts are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn seed(&mut self) -> Seed {
        let mut s = [0u8; 32];
        for chunk in s.chunks_mut(8) {
            chunk.copy_from_slice(&self.next().to_le_bytes());
        }
        Seed(s)
    }
}

/// Conformance and typed views through the generic engine (`AnyGame`, as the service plays it):
/// random playouts in both dealing modes where whoever is to act has a legal action, every
/// listed action is accepted and every action of the vocabulary not listed for an actor is
/// refused without a change, every view, outcome and round detail fits the spec's schema, and a
/// replay of the accepted actions equals the live state.
#[test]
fn the_eighth_game_conforms_and_its_views_fit_the_spec() {
    let spec = spec();
    let table = component(&spec, "OddOrEvenTable");
    let seat = component(&spec, "OddOrEvenSeat");
    let outcome = component(&spec, "OddOrEvenEventOutcome");
    let action_schema = component(&spec, "GameAction");
    let sheet = component(&spec, "ScoreSheet");
    let fits = |v: &jsonschema::Validator, value: &Value, what: &str| {
        assert!(v.is_valid(value), "{what} fits its schema: {value}");
    };
    let universe = [
        json!({"type": "deal"}),
        json!({"type": "call", "n": 0}),
        json!({"type": "call", "n": 1}),
    ];
    let snapshot = |g: &AnyGame, n: usize| {
        json!({
            "table": g.table_view(),
            "scores": serde_json::to_value(g.score_sheet()).unwrap(),
            "seats": (0..n).map(|s| g.seat_view(s)).collect::<Vec<_>>(),
            "legal": (0..n).map(|s| g.legal_actions(Actor::Seat(s))).collect::<Vec<_>>(),
            "round": g.round(),
        })
    };
    for dealing in [Dealing::Service, Dealing::Table] {
        for players in 2..=3 {
            let mut rng = Rng(0x5EED_0000 + players as u64);
            let mut g = AnyGame::new(ID, None, players, dealing).unwrap();
            let mut log: Vec<(Actor, Value, Option<Seed>)> = vec![];
            let actors: Vec<Actor> = (0..players)
                .map(Actor::Seat)
                .chain([Actor::Table])
                .collect();
            while !g.is_finished() {
                assert!(log.len() < 100, "the match ends");
                fits(&table, &g.table_view(), "table");
                for s in 0..players {
                    fits(&seat, &g.seat_view(s), "seat");
                }
                let before = snapshot(&g, players);
                for &actor in &actors {
                    let legal = g.legal_actions(actor);
                    for a in &universe {
                        let seed = g.needs_seed(a).unwrap().then(|| rng.seed());
                        let mut probe = g.clone();
                        let accepted = probe.apply(actor, a, seed.as_ref()).is_ok();
                        assert_eq!(accepted, legal.contains(a), "{a} by {actor:?}");
                        if !accepted {
                            assert_eq!(snapshot(&probe, players), before, "a refusal changed");
                        }
                    }
                }
                let to_act = g.to_act();
                let actor = if to_act.table {
                    Actor::Table
                } else {
                    Actor::Seat(to_act.seats[rng.below(to_act.seats.len())])
                };
                let legal = g.legal_actions(actor);
                assert!(
                    !legal.is_empty(),
                    "{actor:?} is to act and has a legal action"
                );
                let a = legal[rng.below(legal.len())].clone();
                fits(&action_schema, &a, "action");
                let seed = g.needs_seed(&a).unwrap().then(|| rng.seed());
                for o in g.apply(actor, &a, seed.as_ref()).unwrap() {
                    fits(&outcome, &o, "outcome");
                }
                log.push((actor, a, seed));
            }
            let scores = serde_json::to_value(g.score_sheet()).unwrap();
            fits(&sheet, &scores, "score sheet");
            assert_eq!(scores["rounds"].as_array().unwrap().len(), 2);
            let mut replay = AnyGame::new(ID, None, players, dealing).unwrap();
            for (actor, a, seed) in &log {
                replay.apply(*actor, a, seed.as_ref()).unwrap();
            }
            assert_eq!(snapshot(&replay, players), snapshot(&g, players));
        }
    }
}

#[actix_web::test]
async fn the_service_plays_it_and_tournaments_take_it() {
    let app = TestApp::spawn().await;
    // The page's game list: the create and tournament forms are built from `GET /v1/games`.
    let games = app.get("/v1/games", None).await;
    assert_eq!(games.status, StatusCode::OK);
    assert!(games.body.as_array().unwrap().iter().any(|g| g["id"] == ID));

    // A match, played to its end over HTTP; its legal lists are public in table dealing.
    let m = app.create(ID, 3, "table", json!(null)).await;
    let legal = app
        .get(&format!("/v1/matches/{}/legal?seat=1", m.id), None)
        .await;
    assert_eq!(legal.status, StatusCode::OK, "{}", legal.text);
    let end = app.play(&m, 7, None).await;
    assert_eq!(end["status"], "finished");

    // A round-robin tournament of tables of two, results entered by hand: the game's own check
    // refuses a total no match of two rounds can give.
    let post = |path: &str, token: Option<String>, body: Value| {
        let path = path.to_string();
        let app = &app;
        async move {
            app.request(Method::POST, &path, token.as_deref(), &[], Some(body))
                .await
        }
    };
    let players: Vec<Value> = (0..4).map(|i| json!({"name": format!("P{i}")})).collect();
    let t = post(
        "/v1/tournaments",
        None,
        json!({"name": "Eighth", "game": ID, "format": "round_robin", "record": "totals",
               "players": players}),
    )
    .await;
    assert_eq!(t.status, StatusCode::CREATED, "{}", t.text);
    let id = t.body["tournament"]["id"].as_str().unwrap().to_string();
    let org = t.body["organiser_token"].as_str().unwrap().to_string();
    let r = post(
        &format!("/v1/tournaments/{id}/rounds"),
        Some(org.clone()),
        json!({}),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let tables = r.body["tables"].as_array().unwrap();
    // Tables seat the game's largest player count up to 4 (3), smaller ones where it allows.
    assert!(!tables.is_empty());
    let seats = tables[0]["players"].as_array().unwrap().len();
    let url = format!("/v1/tournaments/{id}/rounds/1/tables/1/result");
    let put = |body: Value| {
        let (app, url, org) = (&app, url.clone(), org.clone());
        async move {
            app.request(Method::PUT, &url, Some(&org), &[], Some(body))
                .await
        }
    };
    let bad = put(json!({"totals": vec![5; seats]})).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", bad.text);
    assert_eq!(bad.code(), "result_impossible");
    assert!(bad.body["detail"].as_str().unwrap().contains("0 to 2"));
    let mut good = vec![0; seats];
    good[0] = 2;
    let ok = put(json!({"totals": good})).await;
    assert!(ok.status.is_success(), "{}", ok.text);

    // Duplicate play: the game says its deals can be repeated.
    let players: Vec<Value> = (0..4).map(|i| json!({"name": format!("D{i}")})).collect();
    let d = post(
        "/v1/tournaments",
        None,
        json!({"name": "Eighth, duplicate", "game": ID, "format": "swiss", "rounds": 1,
               "table_size": 2, "dealing": "service", "duplicate": true, "players": players}),
    )
    .await;
    assert_eq!(d.status, StatusCode::CREATED, "{}", d.text);
}

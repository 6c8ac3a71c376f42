//! Nothing hidden ever leaks (issue 10): sealed choices stay sealed once retracted, a published
//! shuffle seed closes its round to undo (and Members Only never publishes its seed), and refusals
//! never describe a hidden hand to anyone but its holder. Issue 20: nor do their codes or the
//! order of the checks: to the host, a refusal of a card the seat does not hold looks exactly
//! like one of a card it holds, in every game.

mod common;

use clubroom::rules::{AnyGame, Dealing};
use common::{card_elsewhere, deck52, Match, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// The seats expected to act.
fn to_act(v: &Value) -> Vec<usize> {
    v["to_act"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap() as usize)
        .collect()
}

/// Records one action (the first legal one) for whoever is to act: the table by the host, a seat
/// by its own token. Returns false when the match is finished.
async fn step(app: &TestApp, m: &Match) -> bool {
    let v = app.view(m, None).await;
    if v["status"] == "finished" {
        return false;
    }
    let (token, seat) = if v["table_to_act"] == json!(true) {
        (&m.host, None)
    } else {
        let s = to_act(&v)[0];
        (&m.seats[s], Some(s))
    };
    let legal = match seat {
        Some(s) => app.legal(m, s, Some(token)).await,
        None => {
            let a = app
                .get(&format!("/v1/matches/{}/legal", m.id), Some(&m.host))
                .await;
            a.body["actions"].as_array().unwrap().clone()
        }
    };
    // A pseudo-random choice by version: always the first can loop for ever.
    let seq = v["seq"].as_u64().unwrap();
    let pick = clubroom::rng::SplitMix64::new(seq).below(legal.len());
    let action = legal
        .get(pick)
        .cloned()
        .unwrap_or_else(|| panic!("no legal action for {seat:?}: {v}"));
    let r = app.act(m, token, seat, action.clone()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{action}: {}", r.text);
    true
}

/// The public log's events carrying a published seed.
async fn published_seeds(app: &TestApp, m: &Match) -> Vec<Value> {
    app.events(m, None)
        .await
        .into_iter()
        .filter(|e| e["seed"].is_string())
        .collect()
}

/// Plays with each seat's own token until some seed is published (or the match ends).
async fn play_until_a_seed_is_published(app: &TestApp, m: &Match) {
    let mut checked = 0;
    for _ in 0..5000 {
        let last = app.view(m, None).await;
        let rounds = last["scores"]["rounds"].as_array().map_or(0, Vec::len);
        // Reading the log is dear: only when a round has just ended.
        if (rounds > checked || last["status"] == "finished")
            && !published_seeds(app, m).await.is_empty()
        {
            return;
        }
        checked = rounds;
        assert!(step(app, m).await, "the match ended with no seed published");
    }
    panic!("no seed was published");
}

// ---------------------------------------------------------------------------------------------
// Item 3: a retracted sealed choice stays sealed.

#[actix_web::test]
async fn a_retracted_sealed_location_stays_sealed_to_everyone_but_its_seat() {
    let app = TestApp::spawn().await;
    let m = app
        .create("by-hook-or-crook", 3, "service", json!({}))
        .await;
    assert_eq!(
        app.act(&m, &m.host, None, json!({"type": "deal"}))
            .await
            .status,
        StatusCode::CREATED
    );
    let castle = json!({"type": "location", "place": "castle"});
    let r = app.act(&m, &m.seats[1], Some(1), castle.clone()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let seq = r.body["event"]["seq"].as_i64().unwrap();
    assert_eq!(app.undo(&m, &m.host).await.status, StatusCode::CREATED);
    // Later turns go on; the retracted choice must not come out when the choices are revealed.
    for s in 0..3 {
        let r = app
            .act(
                &m,
                &m.seats[s],
                Some(s),
                json!({"type": "location", "place": "auction"}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    let sealed = json!({"type": "location", "sealed": true});
    for (who, token) in [
        ("the public", None),
        ("the host", Some(m.host.as_str())),
        ("seat 0", Some(m.seats[0].as_str())),
        ("seat 2", Some(m.seats[2].as_str())),
    ] {
        let log = app.events(&m, token).await;
        let e = log.iter().find(|e| e["seq"] == seq).unwrap();
        assert_eq!(e["retracted_by"], json!(seq + 1));
        assert_eq!(e["action"], sealed, "{who} sees a retracted sealed choice");
    }
    let log = app.events(&m, Some(&m.seats[1])).await;
    let e = log.iter().find(|e| e["seq"] == seq).unwrap();
    assert_eq!(e["action"], castle, "the seat that made it still sees it");
}

#[actix_web::test]
async fn a_retracted_sealed_action_card_stays_sealed_after_the_turn_is_revealed() {
    let app = TestApp::spawn().await;
    let m = app.create("by-hook-or-crook", 3, "table", json!({})).await;
    for a in [
        json!({"type": "deal"}),
        json!({"type": "reveal_pile", "pile": 0, "card": "A1500"}),
        json!({"type": "reveal_pile", "pile": 1, "card": "B1507"}),
    ] {
        let r = app.act(&m, &m.host, None, a).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    for s in 0..3 {
        let r = app
            .act(
                &m,
                &m.seats[s],
                Some(s),
                json!({"type": "location", "place": "auction"}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    let thief = json!({"type": "choose", "card": "thief:1"});
    let r = app.act(&m, &m.seats[0], Some(0), thief.clone()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let seq = r.body["event"]["seq"].as_i64().unwrap();
    assert_eq!(app.undo(&m, &m.host).await.status, StatusCode::CREATED);
    for (s, card) in [(0, "check:17000"), (1, "check:16900"), (2, "thief:3")] {
        let r = app
            .act(
                &m,
                &m.seats[s],
                Some(s),
                json!({"type": "choose", "card": card}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    }
    for token in [None, Some(m.host.as_str()), Some(m.seats[1].as_str())] {
        let log = app.events(&m, token).await;
        let e = log.iter().find(|e| e["seq"] == seq).unwrap();
        assert_eq!(e["action"], json!({"type": "choose", "sealed": true}));
    }
    let log = app.events(&m, Some(&m.seats[0])).await;
    assert_eq!(
        log.iter().find(|e| e["seq"] == seq).unwrap()["action"],
        thief
    );
}

#[actix_web::test]
async fn a_retracted_members_only_final_stays_sealed_after_the_heat() {
    let app = TestApp::spawn().await;
    let m = app.create("members-only", 3, "service", json!({})).await;
    // Play to the heat's final choices.
    let seat = loop {
        let v = app.view(&m, None).await;
        let seats = to_act(&v);
        if seats.len() > 1 {
            break seats[0];
        }
        assert!(step(&app, &m).await);
    };
    let legal = app.legal(&m, seat, Some(&m.seats[seat])).await;
    let first = legal[0].clone();
    let r = app.act(&m, &m.seats[seat], Some(seat), first.clone()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let seq = r.body["event"]["seq"].as_i64().unwrap();
    assert_eq!(app.undo(&m, &m.host).await.status, StatusCode::CREATED);
    // Another choice stands, and the heat ends.
    let last = legal.last().unwrap().clone();
    let r = app.act(&m, &m.seats[seat], Some(seat), last).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    while to_act(&app.view(&m, None).await).len() > 1 || app.view(&m, None).await["round"] == 1 {
        if app.view(&m, None).await["table_to_act"] == json!(true) {
            break;
        }
        assert!(step(&app, &m).await);
    }
    for token in [
        None,
        Some(m.host.as_str()),
        Some(m.seats[(seat + 1) % 3].as_str()),
    ] {
        let log = app.events(&m, token).await;
        let e = log.iter().find(|e| e["seq"] == seq).unwrap();
        assert_eq!(
            e["action"],
            json!({"type": "final", "sealed": true}),
            "a retracted final shows its cards"
        );
    }
    let log = app.events(&m, Some(&m.seats[seat])).await;
    assert_eq!(
        log.iter().find(|e| e["seq"] == seq).unwrap()["action"],
        first
    );
}

// ---------------------------------------------------------------------------------------------
// Item 4: a published seed closes its round.

async fn undo_is_refused_once_the_seed_is_published(game: &str, players: usize) {
    let app = TestApp::spawn().await;
    let m = app.create(game, players, "service", json!({})).await;
    play_until_a_seed_is_published(&app, &m).await;
    let a = app.undo(&m, &m.host).await;
    assert_eq!(
        (a.status, a.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "round_closed"),
        "{game}: {}",
        a.text
    );
    assert!(
        a.body["detail"].as_str().unwrap().contains("seed"),
        "{}",
        a.text
    );
    // Nothing was recorded, and the seed stays the only one published.
    assert_eq!(published_seeds(&app, &m).await.len(), 1);
}

/// Every game of the catalogue that publishes its seeds (Members Only withholds them: tested
/// below), with its fewest players.
#[actix_web::test]
async fn undo_cannot_reopen_a_round_whose_seed_is_published_in_any_game() {
    for game in AnyGame::catalogue() {
        let players = game.min_players;
        let engine = AnyGame::new(game.id, None, players, Dealing::Service).unwrap();
        if engine.seed_withheld().is_none() {
            undo_is_refused_once_the_seed_is_published(game.id, players).await;
        }
    }
}

#[actix_web::test]
async fn undo_works_within_a_deal_and_a_retracted_deal_shows_its_void_seed() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 2, "service", json!({})).await;
    assert!(step(&app, &m).await); // the deal
    assert!(step(&app, &m).await); // a lead
    assert_eq!(app.undo(&m, &m.host).await.status, StatusCode::CREATED);
    assert_eq!(app.undo(&m, &m.host).await.status, StatusCode::CREATED);
    // The retracted deal is void: its seed shows, and the next deal has a seed of its own.
    let seeds = published_seeds(&app, &m).await;
    assert_eq!(seeds.len(), 1);
    assert!(step(&app, &m).await);
    let log = app.events(&m, None).await;
    let deal = log.last().unwrap();
    assert!(deal["commitment"].is_string() && deal["seed"].is_null());
    assert_ne!(deal["commitment"], seeds[0]["commitment"]);
}

/// Plays until the score sheet has `rounds` rounds or the match is over.
async fn play_rounds(app: &TestApp, m: &Match, rounds: usize) -> Value {
    loop {
        let v = app.view(m, None).await;
        if v["scores"]["rounds"].as_array().map_or(0, Vec::len) >= rounds
            || v["status"] == "finished"
        {
            return v;
        }
        assert!(step(app, m).await);
    }
}

#[actix_web::test]
async fn with_seed_reveal_match_end_undo_stays_open_across_deals_until_the_match_is_over() {
    let app = TestApp::spawn().await;
    let m = app
        .create("dump", 2, "service", json!({"seed_reveal": "match_end"}))
        .await;
    let v = play_rounds(&app, &m, 1).await;
    assert_eq!(v["status"], "in_progress");
    assert!(published_seeds(&app, &m).await.is_empty());
    // The deal is over but its seed is not out: undo may reopen it.
    let a = app.undo(&m, &m.host).await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
    assert!(app.view(&m, None).await["scores"]["rounds"]
        .as_array()
        .unwrap()
        .is_empty());
    // At the match's end every seed is published, and undo is closed.
    let m = app
        .create(
            "dump",
            2,
            "service",
            json!({"seed_reveal": "match_end", "target": 1}),
        )
        .await;
    loop {
        let v = play_rounds(&app, &m, usize::MAX).await;
        if v["status"] == "finished" {
            break;
        }
    }
    let deals = app
        .events(&m, None)
        .await
        .into_iter()
        .filter(|e| e["commitment"].is_string() && e["retracted_by"].is_null())
        .collect::<Vec<_>>();
    assert!(deals.iter().all(|d| d["seed"].is_string()), "{deals:?}");
    let a = app.undo(&m, &m.host).await;
    assert_eq!(a.code(), "round_closed", "{}", a.text);
}

#[actix_web::test]
async fn a_members_only_seed_is_never_published_because_discards_stay_secret() {
    let app = TestApp::spawn().await;
    let m = app.create("members-only", 3, "service", json!({})).await;
    // Play heat 1 to its end and the deal of heat 2.
    loop {
        let v = app.view(&m, None).await;
        if v["scores"]["rounds"].as_array().map_or(0, Vec::len) >= 1 {
            break;
        }
        assert!(step(&app, &m).await);
    }
    for token in [None, Some(m.host.as_str()), Some(m.seats[0].as_str())] {
        let log = app.events(&m, token).await;
        let deal = log.iter().find(|e| e["commitment"].is_string()).unwrap();
        assert!(deal["seed"].is_null(), "{deal}");
        assert!(
            deal["seed_withheld"]
                .as_str()
                .is_some_and(|w| w.contains("discard")),
            "{deal}"
        );
    }
    // Nothing published, so no round is closed; but the last final revealed the others' finals,
    // so it may not be retracted (`choices_revealed`, not `round_closed`).
    let undo = app.undo(&m, &m.host).await;
    assert_eq!(
        (undo.status, undo.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "choices_revealed"),
        "{}",
        undo.text
    );
}

// ---------------------------------------------------------------------------------------------
// Item 5: refusals describe a hidden hand to its holder only.

/// The words of `text` (runs of letters, digits, `:` and `-`).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == ':' || c == '-'))
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

/// The seat's hand, as the strings the engine writes.
async fn hand_of(app: &TestApp, m: &Match, seat: usize) -> Vec<String> {
    let v = app.view(m, Some(&m.seats[seat])).await;
    v["you"]["hand"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| match c {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

/// Sends each of `probes` for `seat` with the host token. A refusal must not describe the seat's
/// hand: no card of it but those the request itself names, no "holds" (but where the hand's
/// suits are public: `suits_public`) and no `legal` list. An accepted probe is undone. Returns
/// the refusal codes seen.
async fn probe_as_host(
    app: &TestApp,
    m: &Match,
    seat: usize,
    probes: &[Value],
    suits_public: bool,
) -> Vec<String> {
    let hand = hand_of(app, m, seat).await;
    let mut codes = vec![];
    for p in probes {
        let r = app.act(m, &m.host, Some(seat), p.clone()).await;
        if r.status == StatusCode::CREATED {
            assert_eq!(app.undo(m, &m.host).await.status, StatusCode::CREATED);
            continue;
        }
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{p}: {}",
            r.text
        );
        let detail = r.body["detail"].as_str().unwrap().to_string();
        let named = words(&p.to_string());
        for w in words(&detail) {
            assert!(
                named.contains(&w) || !hand.contains(&w) || w.parse::<i64>().is_ok(),
                "{p}: the host is told seat {seat} holds {w}: {detail}"
            );
        }
        for tell in [
            format!("seat {seat} holds"),
            "but holds".into(),
            "(holds".into(),
        ] {
            assert!(
                suits_public || !detail.contains(&tell),
                "{p}: the host is told about seat {seat}'s hand: {detail}"
            );
        }
        assert!(r.body.get("legal").is_none(), "{p}: {}", r.text);
        // Nor do the problem's fields: a card only if the request named it, no suit the hand
        // holds.
        if let Some(c) = r.body.get("card") {
            let c = c.as_str().map_or_else(|| c.to_string(), String::from);
            // The card the request itself named (P.M.'s cards are numbers: `-11`).
            let asked = p
                .get("card")
                .map(|v| v.as_str().map_or_else(|| v.to_string(), String::from));
            assert!(
                named.contains(&c) || asked.as_deref() == Some(c.as_str()),
                "{p}: the host is told of {c}: {}",
                r.text
            );
        }
        assert!(
            suits_public || r.body.get("suit").is_none(),
            "{p}: {}",
            r.text
        );
        codes.push(r.code().to_string());
    }
    codes
}

fn plays(cards: &[String]) -> Vec<Value> {
    cards
        .iter()
        .map(|c| json!({"type": "play", "card": c}))
        .collect()
}

/// Deals, lets the first seat lead with its own token, and returns the seat to follow, its first
/// legal card, and a card of `deck` it does not hold that it could play if it held it: of that
/// card's suit, unplayed. With every card dealt (Dump for two), the other hand may hold none of
/// that suit: the lead and the deal are then taken back and the table deals again.
async fn deal_and_lead(app: &TestApp, m: &Match, deck: &[String]) -> (usize, Value, Value) {
    for _ in 0..40 {
        assert!(step(app, m).await);
        assert!(step(app, m).await);
        let seat = to_act(&app.view(m, None).await)[0];
        let hand = hand_of(app, m, seat).await;
        let held = app.legal(m, seat, Some(&m.seats[seat])).await[0].clone();
        let card = held["card"].as_str().unwrap();
        let suit = card[card.len() - 1..].to_string();
        let table = app.view(m, None).await["table"].to_string();
        if let Some(c) = card_elsewhere(deck, &[suit], |c| hand.iter().any(|h| h == c), &table) {
            return (seat, held, json!({"type": "play", "card": c}));
        }
        for _ in 0..2 {
            assert_eq!(app.undo(m, &m.host).await.status, StatusCode::CREATED);
        }
    }
    panic!("no deal left a card of the follower's suit elsewhere");
}

/// The refusals the seat's own token gets for `probes` (code and detail), each with its `legal`
/// list. An accepted probe is undone.
async fn told_to_the_holder(
    app: &TestApp,
    m: &Match,
    seat: usize,
    probes: &[Value],
) -> Vec<(String, String)> {
    let mut out = vec![];
    for p in probes {
        let r = app.act(m, &m.seats[seat], Some(seat), p.clone()).await;
        if r.status == StatusCode::CREATED {
            assert_eq!(app.undo(m, &m.host).await.status, StatusCode::CREATED);
            continue;
        }
        assert!(r.body["legal"].is_array(), "{p}: {}", r.text);
        out.push((
            r.code().to_string(),
            r.body["detail"].as_str().unwrap().to_string(),
        ));
    }
    out
}

/// The codes of the refusals a hidden hand decides: the seat's own token is told them, anyone
/// else `not_playable`.
const HIDDEN_CODES: [&str; 5] = [
    "card_not_in_hand",
    "must_follow_suit",
    "must_trump",
    "not_best_set",
    "no_set_to_exhibit",
];

async fn trick_game_refusals_hide_the_hand(game: &str, players: usize, deck: Vec<String>) {
    let app = TestApp::spawn().await;
    let m = app.create(game, players, "service", json!({})).await;
    let (seat, held, not_held) = deal_and_lead(&app, &m, &deck).await;
    let probes = plays(&deck);
    // Bonus-Malus: the backs show every hand's suits, so following and trumping are public.
    let suits_public = game == "bonus-malus";
    let codes = probe_as_host(&app, &m, seat, &probes, suits_public).await;
    assert!(codes.iter().any(|c| c == "not_playable"), "{codes:?}");
    for c in &codes {
        let public = suits_public && c.starts_with("must_");
        assert!(
            public || !HIDDEN_CODES.contains(&c.as_str()),
            "the host is told {c}"
        );
    }
    // Nor do the other paths tell the host the hand: the seat's legal list is refused to it; a
    // stale If-Match is refused before the card is looked at; a refused request leaves its
    // Idempotency-Key unused, and the same refusal comes again.
    let legal = app
        .get(
            &format!("/v1/matches/{}/legal?seat={seat}", m.id),
            Some(&m.host),
        )
        .await;
    assert_eq!(
        (legal.status, legal.code()),
        (StatusCode::FORBIDDEN, "hand_is_private")
    );
    // `held` and `not_held` (of its suit, elsewhere): see deal_and_lead.
    let stale = [("if-match", "\"1\"")];
    let a = app
        .act_with(&m, &m.host, Some(seat), held.clone(), &stale)
        .await;
    let b = app
        .act_with(&m, &m.host, Some(seat), not_held.clone(), &stale)
        .await;
    assert_eq!(
        (a.status, &a.body),
        (StatusCode::PRECONDITION_FAILED, &b.body)
    );
    let key = [("idempotency-key", "the-same-key")];
    let first = app
        .act_with(&m, &m.host, Some(seat), not_held.clone(), &key)
        .await;
    let again = app.act_with(&m, &m.host, Some(seat), not_held, &key).await;
    assert_eq!(first.code(), "not_playable", "{}", first.text);
    assert_eq!((first.status, &first.body), (again.status, &again.body));
    let recorded = app.act_with(&m, &m.host, Some(seat), held, &key).await;
    assert_eq!(recorded.status, StatusCode::CREATED, "{}", recorded.text);
    assert_eq!(app.undo(&m, &m.host).await.status, StatusCode::CREATED);
    // The seat's own token is told which rule refused the card, its own hand named.
    let told = told_to_the_holder(&app, &m, seat, &probes).await;
    assert!(
        told.iter().any(|(c, _)| c == "card_not_in_hand"),
        "{told:?}"
    );
    assert!(told.iter().all(|(c, _)| c != "not_playable"), "{told:?}");
    for (code, detail) in told.iter().filter(|(c, _)| c.starts_with("must_")) {
        assert!(detail.contains("holds"), "{code}: {detail}");
    }
}

#[actix_web::test]
async fn dump_refusals_to_the_host_name_no_card_of_the_hidden_hand() {
    let deck: Vec<String> = deck52()
        .into_iter()
        .filter(|c| !c.starts_with(['4', '5', '6']))
        .collect();
    trick_game_refusals_hide_the_hand("dump", 2, deck).await;
}

#[actix_web::test]
async fn clubs_refusals_to_the_host_name_no_card_of_the_hidden_hand() {
    trick_game_refusals_hide_the_hand("clubs", 4, deck52()).await;
}

#[actix_web::test]
async fn bonus_malus_refusals_to_the_host_name_no_card_of_the_hidden_hand() {
    trick_game_refusals_hide_the_hand("bonus-malus", 2, deck52()).await;
}

#[actix_web::test]
async fn plus_minus_refusals_to_the_host_name_no_card_of_the_hidden_hand() {
    let app = TestApp::spawn().await;
    let m = app.create("plus-minus", 2, "service", json!({})).await;
    assert!(step(&app, &m).await);
    let mut probes = vec![];
    for card in (-11..=15).filter(|c| *c != 0) {
        for from in [json!(null), json!(0), json!(1)] {
            probes.push(json!({"type": "play", "card": card, "from": from}));
        }
    }
    let leader = to_act(&app.view(&m, None).await)[0];
    let codes = probe_as_host(&app, &m, leader, &probes, false).await;
    assert!(codes.iter().any(|c| c == "not_playable"), "{codes:?}");
    assert!(!codes.iter().any(|c| c == "card_not_in_hand"), "{codes:?}");
    // The leader's own token: a MINUS lead is refused as such (public), a value not held as not
    // held.
    let told = told_to_the_holder(&app, &m, leader, &probes).await;
    assert!(
        told.iter().any(|(c, _)| c == "card_not_in_hand"),
        "{told:?}"
    );
    assert!(told.iter().any(|(c, _)| c == "minus_card_lead"), "{told:?}");
    assert!(step(&app, &m).await);
    let next = to_act(&app.view(&m, None).await)[0];
    probe_as_host(&app, &m, next, &probes, false).await;
}

#[actix_web::test]
async fn members_only_refusals_to_the_host_give_no_count_of_the_hidden_hand() {
    let app = TestApp::spawn().await;
    let m = app.create("members-only", 3, "service", json!({})).await;
    // The deal and round 1 (no reveals).
    for _ in 0..4 {
        assert!(step(&app, &m).await);
    }
    let seat = to_act(&app.view(&m, None).await)[0];
    let kinds: Vec<String> = ["umbrella", "crown", "teacup", "big_ben", "hat"]
        .iter()
        .flat_map(|c| [c.to_string(), format!("{c}:no")])
        .collect();
    let probes: Vec<Value> = kinds
        .iter()
        .map(|k| json!({"type": "turn", "bet": null, "reveal": [k, k]}))
        .collect();
    let codes = probe_as_host(&app, &m, seat, &probes, false).await;
    assert!(codes.iter().any(|c| c == "not_playable"), "{codes:?}");
    assert!(!codes.iter().any(|c| c == "card_not_in_hand"), "{codes:?}");
    // The seat's own token is told how many it holds.
    let told = told_to_the_holder(&app, &m, seat, &probes).await;
    assert!(
        told.iter()
            .any(|(c, d)| c == "card_not_in_hand" && d.contains("holds")),
        "{told:?}"
    );
}

#[actix_web::test]
async fn undo_may_not_retract_the_choice_that_revealed_the_others() {
    let app = TestApp::spawn().await;
    let m = app
        .create("by-hook-or-crook", 3, "service", json!({}))
        .await;
    assert_eq!(
        app.act(&m, &m.host, None, json!({"type": "deal"}))
            .await
            .status,
        StatusCode::CREATED
    );
    let mut seqs = vec![];
    for (s, place) in [(0, "castle"), (1, "auction"), (2, "auction")] {
        let r = app
            .act(
                &m,
                &m.seats[s],
                Some(s),
                json!({"type": "location", "place": place}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        seqs.push(r.body["event"]["seq"].as_i64().unwrap());
    }
    // Seat 2's choice completed the set: everyone now sees the three locations.
    let public = app.events(&m, None).await;
    let first = public.iter().find(|e| e["seq"] == seqs[0]).unwrap();
    assert_eq!(
        first["action"],
        json!({"type": "location", "place": "castle"})
    );
    let before = app.view(&m, None).await;
    let refused = app.undo(&m, &m.host).await;
    assert_eq!(
        (refused.status, refused.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "choices_revealed"),
        "{}",
        refused.text
    );
    assert!(
        refused.body["detail"]
            .as_str()
            .unwrap()
            .contains(&format!("seq {}, {}", seqs[0], seqs[1])),
        "{}",
        refused.text
    );
    assert_eq!(app.view(&m, None).await, before, "nothing was recorded");
}

// ---------------------------------------------------------------------------------------------
// Issue 20, part 2: a refusal's code, detail and the order of the checks tell the host (anyone
// but the seat's own token) nothing of a hidden hand. The host's refusal of a card the seat does
// not hold must look exactly like its refusal of a card the seat holds, in every game.

/// The host's answer to one probe: None when it was accepted (and undone at once), else the
/// status and the whole problem document.
type Refusal = Option<(u16, Value)>;

/// Sends each probe for `seat` with the host token as a careful client does, with `If-Match` on
/// the current version and an `Idempotency-Key` of its own (so a refusal takes those paths too).
/// An accepted probe is undone at once. A refusal is a 422 without a `legal` list.
async fn host_answers(app: &TestApp, m: &Match, seat: usize, probes: &[Value]) -> Vec<Refusal> {
    let mut version = app.view(m, None).await["seq"].as_i64().unwrap();
    let mut out = vec![];
    for p in probes {
        let etag = format!("\"{version}\"");
        let key = format!("probe-{}", rand::random::<u64>());
        let headers = [
            ("if-match", etag.as_str()),
            ("idempotency-key", key.as_str()),
        ];
        let r = app
            .act_with(m, &m.host, Some(seat), p.clone(), &headers)
            .await;
        if r.status == StatusCode::CREATED {
            let u = app.undo(m, &m.host).await;
            assert_eq!(u.status, StatusCode::CREATED, "{}", u.text);
            version += 2;
            out.push(None);
            continue;
        }
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{p}: {}",
            r.text
        );
        assert!(r.body.get("legal").is_none(), "{p}: {}", r.text);
        out.push(Some((r.status.as_u16(), r.body)));
    }
    out
}

/// The cards (or values) a probe names, as the view writes them.
fn named(probe: &Value) -> Vec<String> {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut out = vec![];
    for field in ["card", "discard"] {
        if let Some(c) = probe.get(field).filter(|c| !c.is_null()) {
            out.push(text(c));
        }
    }
    for field in ["reveal", "cards"] {
        if let Some(cs) = probe.get(field).and_then(Value::as_array) {
            out.extend(cs.iter().map(text));
        }
    }
    out
}

/// A refusal with the cards the probe itself names written `<card>` in its detail and its `card`
/// member: naming the card a request names tells nothing, so two refusals equal but for that are
/// the same answer.
fn normalized(probe: &Value, refusal: &(u16, Value)) -> (u16, Value) {
    let (status, mut body) = refusal.clone();
    if let Some(card) = body.get("card") {
        let card = match card {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        if named(probe).contains(&card) {
            body["card"] = json!("<card>");
        }
    }
    if let Some(detail) = body["detail"].as_str() {
        let mut d = detail.to_string();
        let mut cards = named(probe);
        // Longer names first, so that `umbrella:no` is not written `<card>:no`.
        cards.sort_by_key(|c| std::cmp::Reverse(c.len()));
        for c in cards {
            d = replace_name(&d, &c);
        }
        body["detail"] = json!(d);
    }
    (status, body)
}

/// `text` with every whole occurrence of `name` (not inside a longer word: `hat` in `what`)
/// written `<card>`.
fn replace_name(text: &str, name: &str) -> String {
    let part = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || "_:-".contains(c));
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(name) {
        // The character before the match: in `rest`, or (at its start) the last one written.
        let before = rest[..i].chars().last().or_else(|| out.chars().last());
        let after = rest[i + name.len()..].chars().next();
        out.push_str(&rest[..i]);
        if part(before) || part(after) {
            out.push_str(name);
        } else {
            out.push_str("<card>");
        }
        rest = &rest[i + name.len()..];
    }
    out.push_str(rest);
    out
}

/// Whether the hand holds every card the probe names (with repeats: `[hat, hat]` needs two).
fn holds_all(hand: &[String], probe: &Value) -> bool {
    let mut left = hand.to_vec();
    named(probe)
        .iter()
        .all(|c| match left.iter().position(|h| h == c) {
            Some(i) => {
                left.remove(i);
                true
            }
            None => false,
        })
}

/// Whether the hand holds some card the probe names.
fn holds_some(hand: &[String], probe: &Value) -> bool {
    named(probe).iter().any(|c| hand.contains(c))
}

/// The probes grouped by what the public can tell them apart by (`class`), each group's refusals
/// normalized: within a group the host must get one answer whether the seat holds the cards or
/// not. Panics naming both answers otherwise; returns how many groups had a refusal of a probe
/// naming a card the seat holds and of one naming none it holds (the comparisons that could
/// have told a held card from another).
fn assert_one_answer_per_group(
    situation: &str,
    hand: &[String],
    probes: &[Value],
    answers: &[Refusal],
    class: impl Fn(&Value) -> String,
) -> usize {
    use std::collections::BTreeMap;
    // Per group: the first refusal seen, with its probe; whether a held / not-held one was seen.
    let mut groups: BTreeMap<String, ((u16, Value), Value, bool, bool)> = BTreeMap::new();
    for (p, a) in probes.iter().zip(answers) {
        let Some(a) = a else { continue };
        let n = normalized(p, a);
        let held = holds_some(hand, p);
        let g = groups
            .entry(class(p))
            .or_insert_with(|| (n.clone(), p.clone(), false, false));
        assert_eq!(
            n, g.0,
            "{situation}: the host tells {p} (held: {held}) from {} (held: {}) by its refusal; hand {hand:?}",
            g.1,
            holds_some(hand, &g.1)
        );
        g.2 |= held;
        g.3 |= !held;
    }
    groups.values().filter(|g| g.2 && g.3).count()
}

/// What the public can tell about a trick game's probe: whether it declares, and its card itself
/// when the public view names it (played, the opening card, a face-down card turned), else only
/// its suit.
fn trick_class(public: &str, probe: &Value) -> String {
    let card = probe["card"].as_str().unwrap();
    let shape = if probe.get("declare").is_some() {
        "declaring"
    } else {
        "plain"
    };
    if public.contains(&format!("\"{card}\"")) {
        format!("{shape} {card}")
    } else {
        format!("{shape} suit {}", &card[card.len() - 1..])
    }
}

/// Plays a trick game's deal with each seat's own token and, at each of the first `turns` turns,
/// probes the seat to play with every card of `deck` (plain, and declaring `declare` where set)
/// as the host. Returns the count of [`assert_one_answer_per_group`] over the turns.
async fn trick_refusals_are_one_answer_per_public_class(
    game: &str,
    players: usize,
    deck: Vec<String>,
    declare: Option<&str>,
    turns: usize,
) -> usize {
    let app = TestApp::spawn().await;
    let m = app.create(game, players, "service", json!({})).await;
    assert!(step(&app, &m).await, "the deal");
    let mut probes = plays(&deck);
    if let Some(d) = declare {
        probes.extend(
            deck.iter()
                .map(|c| json!({"type": "play", "card": c, "declare": d})),
        );
    }
    let mut compared = 0;
    for turn in 0..turns {
        let v = app.view(&m, None).await;
        let seat = to_act(&v)[0];
        let public = v["table"].to_string();
        let hand = hand_of(&app, &m, seat).await;
        let answers = host_answers(&app, &m, seat, &probes).await;
        compared += assert_one_answer_per_group(
            &format!("{game}, turn {turn}, seat {seat}"),
            &hand,
            &probes,
            &answers,
            |p| trick_class(&public, p),
        );
        assert!(step(&app, &m).await);
    }
    compared
}

fn dump_deck() -> Vec<String> {
    deck52()
        .into_iter()
        .filter(|c| !c.starts_with(['4', '5', '6']))
        .collect()
}

#[actix_web::test]
async fn dump_refusals_to_the_host_look_the_same_for_a_held_card_and_one_not_held() {
    // Seat 1 leads, seat 0 follows, and so on: a follower holding the led suit refuses its other
    // cards (must_follow_suit to its own token) as it refuses cards it does not hold.
    let compared =
        trick_refusals_are_one_answer_per_public_class("dump", 2, dump_deck(), None, 6).await;
    assert!(compared > 0, "no held card was refused: nothing compared");
}

#[actix_web::test]
async fn clubs_refusals_to_the_host_look_the_same_for_a_held_card_and_one_not_held() {
    // The opening lead (only 2♣: must_lead_two_of_clubs, declaration_required), the following
    // rule, and declarations on a lead and off it.
    let compared =
        trick_refusals_are_one_answer_per_public_class("clubs", 4, deck52(), Some("D"), 6).await;
    assert!(compared > 0, "no held card was refused: nothing compared");
}

#[actix_web::test]
async fn bonus_malus_refusals_to_the_host_look_the_same_for_a_held_card_and_one_not_held() {
    // The backs show every hand's suits, so following and trumping are public; which card of a
    // suit a hand holds is not.
    let mut compared = 0;
    for _ in 0..3 {
        compared +=
            trick_refusals_are_one_answer_per_public_class("bonus-malus", 2, deck52(), None, 8)
                .await;
    }
    assert!(compared > 0, "no held card was refused: nothing compared");
}

/// P.M.: a value's refusal names the total it makes, so two values never compare. Instead the
/// same request is compared across deals: the table deals, `prefix` is played (each action by
/// the seat to act, with its own token), and the host probes the seat then to act. A deal whose
/// hands cannot play the prefix, or whose public view then differs from the first kept deal's
/// (but for the seed's commitment), is undone and dealt again. Returns per kept deal the probed
/// seat's hand and the host's answers.
async fn redealt(
    app: &TestApp,
    m: &Match,
    prefix: &[Value],
    probes: &[Value],
    deals: usize,
) -> Vec<(Vec<String>, Vec<Refusal>)> {
    let mut reference: Option<Value> = None;
    let mut kept = vec![];
    for _ in 0..400 {
        let deal = app.act(m, &m.host, None, json!({"type": "deal"})).await;
        assert_eq!(deal.status, StatusCode::CREATED, "{}", deal.text);
        let mut recorded = 1;
        for a in prefix {
            let seat = to_act(&app.view(m, None).await)[0];
            if app
                .act(m, &m.seats[seat], Some(seat), a.clone())
                .await
                .status
                != StatusCode::CREATED
            {
                break;
            }
            recorded += 1;
        }
        if recorded == prefix.len() + 1 {
            let v = app.view(m, None).await;
            let mut table = v["table"].clone();
            table.as_object_mut().unwrap().remove("commitment");
            let public = json!([table, v["to_act"]]);
            if *reference.get_or_insert_with(|| public.clone()) == public {
                let seat = to_act(&v)[0];
                let hand = hand_of(app, m, seat).await;
                kept.push((hand, host_answers(app, m, seat, probes).await));
            }
        }
        for _ in 0..recorded {
            let u = app.undo(m, &m.host).await;
            assert_eq!(u.status, StatusCode::CREATED, "{}", u.text);
        }
        if kept.len() == deals {
            return kept;
        }
    }
    panic!(
        "the prefix {prefix:?} was played in only {} deals",
        kept.len()
    );
}

/// Each probe refused in several deals got one answer in all of them, whether the seat held its
/// value or not. Returns how many probes were refused both with the value held and without.
fn assert_same_answer_in_every_deal(
    situation: &str,
    probes: &[Value],
    deals: &[(Vec<String>, Vec<Refusal>)],
) -> usize {
    let mut compared = 0;
    for (i, p) in probes.iter().enumerate() {
        let refused: Vec<(bool, &(u16, Value))> = deals
            .iter()
            .filter_map(|(hand, answers)| answers[i].as_ref().map(|a| (holds_all(hand, p), a)))
            .collect();
        for (held, a) in &refused {
            assert_eq!(
                *a, refused[0].1,
                "{situation}: the host tells {p} held ({held}) from held ({}) by its refusal",
                refused[0].0
            );
        }
        if refused.iter().any(|r| r.0) && refused.iter().any(|r| !r.0) {
            compared += 1;
        }
    }
    compared
}

#[actix_web::test]
async fn plus_minus_refusals_to_the_host_are_the_same_whether_the_value_is_held_or_not() {
    let app = TestApp::spawn().await;
    let m = app.create("plus-minus", 2, "service", json!({})).await;
    let values = [
        -11, -9, -7, -5, -3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    ];
    let probes = |froms: &[Value]| -> Vec<Value> {
        values
            .iter()
            .flat_map(|v| {
                froms
                    .iter()
                    .map(move |f| json!({"type": "play", "card": v, "from": f}))
            })
            .collect()
    };
    let nine = json!({"type": "play", "card": 9, "from": 0});
    let five = json!({"type": "play", "card": 5, "from": 0});
    let mut compared = 0;
    for (situation, prefix, froms) in [
        // The lead: a PLUS card, a man from the stars.
        ("the lead", vec![], vec![json!(null), json!(0), json!(1)]),
        // The second card, on top of 9.
        (
            "after 9",
            vec![nine.clone()],
            vec![json!(null), json!(0), json!(9)],
        ),
        // The leader again: a man on 9, top 5 (the second card took a man to 14).
        (
            "after 9, 5",
            vec![nine, five],
            vec![json!(null), json!(0), json!(9), json!(14)],
        ),
    ] {
        let probes = probes(&froms);
        let deals = redealt(&app, &m, &prefix, &probes, 5).await;
        compared += assert_same_answer_in_every_deal(situation, &probes, &deals);
    }
    assert!(compared > 0, "no value was refused both held and not held");
}

/// Every pair of Members Only cards (kinds), as a turn's reveal without a bet.
fn reveal_pairs() -> Vec<Value> {
    let kinds: Vec<String> = ["umbrella", "crown", "teacup", "big_ben", "hat"]
        .iter()
        .flat_map(|c| [c.to_string(), format!("{c}:no")])
        .collect();
    let mut out = vec![];
    for (i, a) in kinds.iter().enumerate() {
        for b in &kinds[i..] {
            out.push(json!({"type": "turn", "bet": null, "reveal": [a, b]}));
        }
    }
    out
}

#[actix_web::test]
async fn members_only_refusals_to_the_host_are_one_answer_whatever_the_hand_holds() {
    let app = TestApp::spawn().await;
    let m = app.create("members-only", 3, "service", json!({})).await;
    // The deal and round 1 (no reveals).
    for _ in 0..4 {
        assert!(step(&app, &m).await);
    }
    let mut compared = 0;
    let probes = reveal_pairs();
    for turn in 0..3 {
        let seat = to_act(&app.view(&m, None).await)[0];
        let hand = hand_of(&app, &m, seat).await;
        let answers = host_answers(&app, &m, seat, &probes).await;
        compared += assert_one_answer_per_group(
            &format!("round 2, turn {turn}, seat {seat}"),
            &hand,
            &probes,
            &answers,
            |_| "a turn revealing two cards".into(),
        );
        assert!(step(&app, &m).await);
    }
    // The end of the heat: each seat discards one card face down and shows the other two.
    let seats = loop {
        let v = app.view(&m, None).await;
        if to_act(&v).len() > 1 {
            break to_act(&v);
        }
        assert!(step(&app, &m).await);
    };
    for seat in seats {
        let hand = hand_of(&app, &m, seat).await;
        let kinds: Vec<String> = ["umbrella", "crown", "teacup", "big_ben", "hat"]
            .iter()
            .flat_map(|c| [c.to_string(), format!("{c}:no")])
            .collect();
        let mut probes: Vec<Value> = kinds
            .iter()
            .map(|k| json!({"type": "final", "discard": k, "reveal": []}))
            .collect();
        // The discard named with the other two, right or wrong.
        for k in &kinds {
            probes.push(json!({"type": "final", "discard": hand[0], "reveal": [hand[1], k]}));
        }
        let answers = host_answers(&app, &m, seat, &probes).await;
        compared += assert_one_answer_per_group(
            &format!("the heat's end, seat {seat}"),
            &hand,
            &probes,
            &answers,
            |_| "a final choice".into(),
        );
    }
    assert!(compared > 0, "no refusal of a held card was compared");
}

/// Every card of By Hook or Crook's default collection (docs/rules.md#by-hook-or-crook-collection: the k-th card of letter i is
/// dated 1500 + 60k + 7i; A 8, B 7, C 8, D 7, E 8, F 7 cards).
fn collection() -> Vec<String> {
    let mut out = vec![];
    for (i, (letter, n)) in [('A', 8), ('B', 7), ('C', 8), ('D', 7), ('E', 8), ('F', 7)]
        .into_iter()
        .enumerate()
    {
        for k in 0..n {
            out.push(format!("{letter}{}", 1500 + 60 * k + 7 * i));
        }
    }
    out
}

/// docs/rules.md#by-hook-or-crook-sets: a set is at least three cards whose letters form one unbroken run.
fn is_set(cards: &[&String]) -> bool {
    let mut letters: Vec<u8> = cards.iter().map(|c| c.as_bytes()[0]).collect();
    letters.sort();
    letters.dedup();
    cards.len() >= 3 && letters.windows(2).all(|w| w[1] == w[0] + 1)
}

#[actix_web::test]
async fn by_hook_or_crook_final_exhibits_refused_to_the_host_are_one_answer_whatever_the_hand() {
    // A short board: the first pawn to advance ends the game, and the final exhibition follows.
    let config =
        json!({"board": {"castles": [{"spaces": 2, "upper": 2, "lower": 1}], "pink_from": 2}});
    let mut compared = 0;
    for _ in 0..20 {
        let app = TestApp::spawn().await;
        let m = app
            .create("by-hook-or-crook", 3, "service", config.clone())
            .await;
        while app.view(&m, None).await["table"]["phase"] != "final_exhibition" {
            assert!(
                step(&app, &m).await,
                "the game ended without a final exhibition"
            );
        }
        for seat in 0..3 {
            let hand = hand_of(&app, &m, seat).await;
            // Sets of three from the hand and a few cards of every letter it does not hold.
            let mut pool = hand.clone();
            for letter in ['A', 'B', 'C', 'D', 'E', 'F'] {
                pool.extend(
                    collection()
                        .into_iter()
                        .filter(|c| c.starts_with(letter) && !hand.contains(c))
                        .take(2),
                );
            }
            let mut probes = vec![json!({"type": "final_exhibit", "cards": []})];
            for (i, a) in pool.iter().enumerate() {
                for (j, b) in pool.iter().enumerate().skip(i + 1) {
                    for c in pool.iter().skip(j + 1) {
                        if is_set(&[a, b, c]) {
                            probes.push(json!({"type": "final_exhibit", "cards": [a, b, c]}));
                        }
                    }
                }
            }
            let answers = host_answers(&app, &m, seat, &probes).await;
            compared += assert_one_answer_per_group(
                &format!("the final exhibition, seat {seat}"),
                &hand,
                &probes,
                &answers,
                |_| "a set".into(),
            );
        }
        if compared > 0 {
            return;
        }
    }
    panic!("no seat held a set at the final exhibition in 20 games: nothing compared");
}

#[actix_web::test]
async fn by_hook_or_crook_refusals_to_the_host_do_not_tell_a_sealed_location() {
    // Two players, combined: each seat picks its location and its action card at once, sealed.
    // Seat 0 picks with its own token; the host, recording seat 0's card, must not learn where
    // seat 0 went from how a card is refused (a check is for the auction, the detective and the
    // exhibit for the castle, and the exhibit needs a set in the hand).
    let app = TestApp::spawn().await;
    let m = app
        .create("by-hook-or-crook", 2, "service", json!({}))
        .await;
    let deal = app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    assert_eq!(deal.status, StatusCode::CREATED, "{}", deal.text);
    // docs/rules.md#by-hook-or-crook-cards-per-player defaults: seat p has checks 8000+100p, 11000+100p, 14000-100p, 17000-100p and
    // thieves p+1, p+6.
    let own = [
        "check:8000",
        "check:11000",
        "check:14000",
        "check:17000",
        "thief:1",
        "thief:6",
        "exhibit",
        "detective",
    ];
    let others = ["check:8100", "check:16900", "thief:2", "thief:7"];
    let probes: Vec<Value> = own
        .iter()
        .chain(&others)
        .map(|c| json!({"type": "choose", "card": c}))
        .collect();
    let mut by_place = vec![];
    for place in ["castle", "auction"] {
        let r = app
            .act(
                &m,
                &m.seats[0],
                Some(0),
                json!({"type": "location", "place": place}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        by_place.push(host_answers(&app, &m, 0, &probes).await);
        assert_eq!(app.undo(&m, &m.host).await.status, StatusCode::CREATED);
    }
    // Another seat's card is refused as such wherever seat 0 stands (public: the cards are dealt
    // by the config).
    for answers in &by_place {
        for a in &answers[own.len()..] {
            let (status, body) = a.as_ref().expect("another seat's card is refused");
            assert_eq!(
                (*status, body["code"].as_str()),
                (422, Some("not_your_card"))
            );
        }
    }
    // Every refusal of one of seat 0's own cards, at either place, is one and the same answer.
    let refused: Vec<(&str, &str, &(u16, Value))> = ["castle", "auction"]
        .iter()
        .zip(&by_place)
        .flat_map(|(place, answers)| {
            own.iter()
                .zip(answers)
                .filter_map(move |(card, a)| a.as_ref().map(|a| (*place, *card, a)))
        })
        .collect();
    assert!(
        refused.iter().any(|r| r.0 == "castle") && refused.iter().any(|r| r.0 == "auction"),
        "{refused:?}"
    );
    for (place, card, a) in &refused {
        assert_eq!(
            *a, refused[0].2,
            "the host tells {card} refused at the {place} from {} refused at the {}",
            refused[0].1, refused[0].0
        );
        assert_eq!(a.1["code"], "not_playable", "{card} at the {place}");
    }
}

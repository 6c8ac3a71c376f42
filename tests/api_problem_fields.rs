//! Problem bodies carry structured fields (issue 22 part 3): `seat`, `card`, `suit`, `expected`,
//! `got`, `category`, `space`, `place`, `pile`, each present when the refusal names it, so that a
//! client can phrase a refusal in its own words. Exact bodies (status, code, detail, fields) for
//! a sample of refusals of every game over HTTP, each checked against the spec's `Problem`
//! schema (closed: a member it does not list fails).
//!
//! And secrecy first: the fields are told exactly as the detail is. A refusal decided by a hidden
//! hand or a sealed choice tells its facts (the card, the suit, the place) to that seat's own
//! token only; the host acting for the seat gets the one `not_playable` body whose only field is
//! the seat its detail names, another seat's token and a caller without one are refused before
//! the rules are asked. Every body is compared whole.

mod common;

use std::sync::OnceLock;

use clubroom::rules::not_playable_detail;
use common::{card_elsewhere, deck52, Answer, Match, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// The served spec.
fn spec() -> &'static Value {
    static SPEC: OnceLock<Value> = OnceLock::new();
    SPEC.get_or_init(|| serde_json::from_str(&clubroom::app::openapi_json()).unwrap())
}

/// Panics unless `body` fits the spec's `Problem` schema.
fn assert_problem_schema(body: &Value) {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    let v = V.get_or_init(|| {
        let mut root = json!({"$ref": "#/components/schemas/Problem"});
        root["components"] = spec()["components"].clone();
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&root)
            .expect("the schema compiles")
    });
    let errors: Vec<String> = v.iter_errors(body).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{body} does not fit Problem: {errors:?}");
}

/// The problem document of `status` and `code` with `detail` and the members of `extra`.
fn problem(status: u16, code: &str, detail: &str, extra: Value) -> Value {
    let title = match status {
        401 => "Unauthorized",
        403 => "Forbidden",
        412 => "Precondition failed",
        422 => "Illegal action",
        other => panic!("no title for {other} here"),
    };
    let mut body = json!({
        "type": format!("urn:clubroom:problem:{code}"),
        "title": title,
        "status": status,
        "detail": detail,
        "code": code,
    });
    for (k, v) in extra.as_object().expect("an object") {
        body[k] = v.clone();
    }
    body
}

/// Asserts `a` is exactly `want` (status and whole body) and fits the spec.
fn assert_body(a: &Answer, want: &Value) {
    assert_eq!(
        a.status.as_u16(),
        want["status"].as_u64().unwrap() as u16,
        "{}",
        a.text
    );
    assert_eq!(&a.body, want, "{}", a.text);
    assert_eq!(a.content_type, "application/problem+json");
    assert_problem_schema(&a.body);
}

/// The seats expected to act.
fn to_act(v: &Value) -> Vec<usize> {
    v["to_act"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap() as usize)
        .collect()
}

/// The seat's hand, as the view writes it.
async fn hand_of(app: &TestApp, m: &Match, seat: usize) -> Vec<Value> {
    app.view(m, Some(&m.seats[seat])).await["you"]["hand"]
        .as_array()
        .unwrap()
        .clone()
}

/// The version of the match.
async fn version(app: &TestApp, m: &Match) -> i64 {
    app.view(m, None).await["seq"].as_i64().unwrap()
}

/// The table deals (host token).
async fn deal(app: &TestApp, m: &Match) {
    let r = app.act(m, &m.host, None, json!({"type": "deal"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
}

/// What a seat's own token, the host, another seat's token and a caller without a token are told
/// when `action` is sent for `seat`, a refusal decided by the seat's hidden hand (or sealed
/// choice): the holder gets `holder` (with its legal list), the host the one `not_playable` body
/// naming the seat only, the other seat `not_your_seat`, nobody `unauthorized`. Nothing is
/// recorded.
async fn assert_told_only_to_the_holder(
    app: &TestApp,
    m: &Match,
    seat: usize,
    action: Value,
    holder: Value,
) {
    let before = version(app, m).await;
    let mut want = holder;
    want["legal"] = json!(app.legal(m, seat, Some(&m.seats[seat])).await);
    let own = app.act(m, &m.seats[seat], Some(seat), action.clone()).await;
    assert_body(&own, &want);
    let host = app.act(m, &m.host, Some(seat), action.clone()).await;
    assert_body(
        &host,
        &problem(
            422,
            "not_playable",
            &not_playable_detail(seat),
            json!({"seat": seat}),
        ),
    );
    let other = (seat + 1) % m.seats.len();
    let by_other = app
        .act(m, &m.seats[other], Some(seat), action.clone())
        .await;
    assert_body(
        &by_other,
        &problem(
            403,
            "not_your_seat",
            &format!(
                "this token acts for seat {} only, not seat {}",
                other + 1,
                seat + 1
            ),
            json!({"seat": seat, "expected": other, "got": seat}),
        ),
    );
    let nobody = app
        .request(
            reqwest::Method::POST,
            &format!("/v1/matches/{}/actions", m.id),
            None,
            &[],
            Some(json!({"seat": seat, "action": action})),
        )
        .await;
    assert_body(
        &nobody,
        &problem(
            401,
            "unauthorized",
            "recording needs a token: Authorization: Bearer <token>",
            json!({}),
        ),
    );
    assert_eq!(version(app, m).await, before, "nothing was recorded");
}

/// A card of `deck` of one of `suits` that `seat` does not hold and the public table does not
/// show: refused for the hand alone, whatever the following rule's order. None when there is no
/// such card ([`card_elsewhere`]).
async fn a_card_elsewhere(
    app: &TestApp,
    m: &Match,
    seat: usize,
    deck: &[String],
    suits: &[String],
) -> Option<String> {
    let hand = hand_of(app, m, seat).await;
    let table = app.view(m, None).await["table"].to_string();
    card_elsewhere(deck, suits, |c| hand.contains(&json!(c)), &table)
}

fn suit_of(card: &str) -> String {
    card[card.len() - 1..].to_string()
}

/// Deals and leads (each seat by its own token) until seat `follower`, to play next, holds a
/// card of `duty` (suits) and one outside it; returns (follower, a card outside the duty it
/// holds), and another hand holds a card of the duty (so `a_card_elsewhere` finds one). `duty` is
/// computed from the lead by the caller's rule; `deck` is the game's pack.
async fn deal_until_a_follower_can_break(
    app: &TestApp,
    m: &Match,
    deck: &[String],
    duty: impl Fn(&Value) -> Vec<String>,
) -> (usize, String, Value) {
    for _ in 0..40 {
        deal(app, m).await;
        let leader = to_act(&app.view(m, None).await)[0];
        let lead = app.legal(m, leader, Some(&m.seats[leader])).await[0].clone();
        let r = app
            .act(m, &m.seats[leader], Some(leader), lead.clone())
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        let follower = to_act(&app.view(m, None).await)[0];
        let suits = duty(&lead);
        let hand: Vec<String> = hand_of(app, m, follower)
            .await
            .iter()
            .map(|c| c.as_str().unwrap().to_string())
            .collect();
        let holds_duty = hand.iter().any(|c| suits.contains(&suit_of(c)));
        let off = hand.iter().find(|c| !suits.contains(&suit_of(c)));
        if let (true, Some(off)) = (holds_duty, off) {
            // The public table is read only for a follower who could break the rule.
            let table = app.view(m, None).await["table"].to_string();
            if card_elsewhere(deck, &suits, |c| hand.iter().any(|h| h == c), &table).is_some() {
                return (follower, off.clone(), lead);
            }
        }
        for _ in 0..2 {
            assert_eq!(app.undo(m, &m.host).await.status, StatusCode::CREATED);
        }
    }
    panic!("no deal let the follower break the following rule");
}

// ---------------------------------------------------------------------------------------------
// Secrecy: a hidden hand's facts go to its holder only.

#[actix_web::test]
async fn dump_a_card_not_held_and_a_broken_follow_are_told_with_their_card_to_the_holder_only() {
    let app = TestApp::spawn().await;
    let m = app.create("dump", 2, "service", json!({})).await;
    let dump_deck: Vec<String> = deck52()
        .into_iter()
        .filter(|c| !c.starts_with(['4', '5', '6']))
        .collect();
    let (follower, off, lead) = deal_until_a_follower_can_break(&app, &m, &dump_deck, |lead| {
        vec![suit_of(lead["card"].as_str().unwrap())]
    })
    .await;
    let led = suit_of(lead["card"].as_str().unwrap());
    let suit_names = [
        ("S", "spades"),
        ("H", "hearts"),
        ("D", "diamonds"),
        ("C", "clubs"),
    ];
    let led_name = suit_names.iter().find(|(l, _)| *l == led).unwrap().1;
    assert_told_only_to_the_holder(
        &app,
        &m,
        follower,
        json!({"type": "play", "card": off}),
        problem(
            422,
            "must_follow_suit",
            &format!(
                "seat {} holds {led_name} and must follow suit ({led} was led)",
                follower + 1
            ),
            json!({"seat": follower, "card": off, "suit": led}),
        ),
    )
    .await;
    let x = a_card_elsewhere(&app, &m, follower, &dump_deck, std::slice::from_ref(&led))
        .await
        .expect("a card elsewhere");
    assert_told_only_to_the_holder(
        &app,
        &m,
        follower,
        json!({"type": "play", "card": x}),
        problem(
            422,
            "card_not_in_hand",
            &format!("seat {} does not hold {x}", follower + 1),
            json!({"seat": follower, "card": x}),
        ),
    )
    .await;
    // Public refusals tell everyone the same facts: the card led is played (whoever holds it).
    let played = lead["card"].as_str().unwrap();
    let want = problem(
        422,
        "card_already_played",
        &format!("{played} has already been played in this deal"),
        json!({"card": played}),
    );
    let host = app
        .act(
            &m,
            &m.host,
            Some(follower),
            json!({"type": "play", "card": played}),
        )
        .await;
    assert_body(&host, &want);
    // Not the follower's turn for the leader; the seat named is the one that tried.
    let leader = 1 - follower;
    let turn = app
        .act(
            &m,
            &m.host,
            Some(leader),
            json!({"type": "play", "card": x}),
        )
        .await;
    assert_body(
        &turn,
        &problem(
            422,
            "not_your_turn",
            &format!(
                "it is seat {}'s turn to play, not seat {}'s",
                follower + 1,
                leader + 1
            ),
            json!({"seat": leader, "expected": follower, "got": leader}),
        ),
    );
    // A stale If-Match: the match's version expected, the one named got.
    let now = version(&app, &m).await;
    let stale = app
        .act_with(
            &m,
            &m.host,
            Some(follower),
            json!({"type": "play", "card": off}),
            &[("if-match", "\"1\"")],
        )
        .await;
    assert_body(
        &stale,
        &problem(
            412,
            "stale_version",
            &format!("If-Match names version 1 but the match is at version {now}"),
            json!({"expected": now, "got": 1}),
        ),
    );
}

#[actix_web::test]
async fn clubs_a_broken_follow_names_the_called_suit_to_the_holder_only() {
    let app = TestApp::spawn().await;
    let m = app.create("clubs", 4, "service", json!({})).await;
    // The called suit and clubs: a club lead declares the suit (C: clubs alone).
    let (follower, off, lead) = deal_until_a_follower_can_break(&app, &m, &deck52(), |lead| {
        let led = suit_of(lead["card"].as_str().unwrap());
        let called = lead["declare"].as_str().map_or(led, String::from);
        vec![called, "C".into()]
    })
    .await;
    let led = suit_of(lead["card"].as_str().unwrap());
    let called = lead["declare"].as_str().map_or(led, String::from);
    let hand: Vec<Value> = hand_of(&app, &m, follower).await;
    let names = [
        ("S", "spades", "a spade"),
        ("H", "hearts", "a heart"),
        ("D", "diamonds", "a diamond"),
        ("C", "clubs", "a club"),
    ];
    // The message names the first duty suit the hand holds: the called suit, else clubs.
    let holding = if hand.iter().any(|c| suit_of(c.as_str().unwrap()) == called) {
        called.clone()
    } else {
        "C".into()
    };
    let one = names.iter().find(|n| n.0 == holding).unwrap().2;
    let (called_name, rule) = match names.iter().find(|n| n.0 == called).unwrap() {
        ("C", name, _) => (*name, "a club (clubs alone)".to_string()),
        (_, name, _) => (*name, format!("{name} or a club")),
    };
    assert_told_only_to_the_holder(
        &app,
        &m,
        follower,
        json!({"type": "play", "card": off}),
        problem(
            422,
            "must_follow_suit",
            &format!(
                "seat {} holds {one} and must play {rule} ({called_name} called)",
                follower + 1
            ),
            json!({"seat": follower, "card": off, "suit": called}),
        ),
    )
    .await;
    let x = a_card_elsewhere(&app, &m, follower, &deck52(), &[called.clone(), "C".into()])
        .await
        .expect("a card elsewhere");
    assert_told_only_to_the_holder(
        &app,
        &m,
        follower,
        json!({"type": "play", "card": x}),
        problem(
            422,
            "card_not_in_hand",
            &format!("seat {} does not hold {x}", follower + 1),
            json!({"seat": follower, "card": x}),
        ),
    )
    .await;
}

#[actix_web::test]
async fn bonus_malus_following_is_public_and_names_the_led_suit_to_everyone() {
    // docs/rules.md#bonus-malus-backs: the backs show every hand's suits, so the following rule
    // is public; which card of a suit a hand holds is not.
    let app = TestApp::spawn().await;
    let m = app.create("bonus-malus", 2, "service", json!({})).await;
    let (follower, off, lead) = deal_until_a_follower_can_break(&app, &m, &deck52(), |lead| {
        vec![suit_of(lead["card"].as_str().unwrap())]
    })
    .await;
    let led = suit_of(lead["card"].as_str().unwrap());
    let one = [
        ("S", "a spade"),
        ("H", "a heart"),
        ("D", "a diamond"),
        ("C", "a club"),
    ]
    .iter()
    .find(|n| n.0 == led)
    .unwrap()
    .1;
    let want = problem(
        422,
        "must_follow_suit",
        &format!(
            "seat {} holds {one} and must follow suit ({led} was led)",
            follower + 1
        ),
        json!({"seat": follower, "card": off, "suit": led}),
    );
    let host = app
        .act(
            &m,
            &m.host,
            Some(follower),
            json!({"type": "play", "card": off}),
        )
        .await;
    assert_body(&host, &want);
    let mut own = want.clone();
    own["legal"] = json!(app.legal(&m, follower, Some(&m.seats[follower])).await);
    let told = app
        .act(
            &m,
            &m.seats[follower],
            Some(follower),
            json!({"type": "play", "card": off}),
        )
        .await;
    assert_body(&told, &own);
    // A card of the led suit it does not hold is the hand's secret.
    let x = a_card_elsewhere(&app, &m, follower, &deck52(), std::slice::from_ref(&led))
        .await
        .expect("a card elsewhere");
    assert_told_only_to_the_holder(
        &app,
        &m,
        follower,
        json!({"type": "play", "card": x}),
        problem(
            422,
            "card_not_in_hand",
            &format!("seat {} does not hold {x}", follower + 1),
            json!({"seat": follower, "card": x}),
        ),
    )
    .await;
}

#[actix_web::test]
async fn plus_minus_a_value_not_held_is_told_as_a_number_to_the_holder_only() {
    let app = TestApp::spawn().await;
    let m = app.create("plus-minus", 2, "service", json!({})).await;
    deal(&app, &m).await;
    let leader = to_act(&app.view(&m, None).await)[0];
    let hand = hand_of(&app, &m, leader).await;
    let value = (1..=15)
        .find(|v| !hand.contains(&json!(v)))
        .expect("a PLUS value the leader does not hold");
    assert_told_only_to_the_holder(
        &app,
        &m,
        leader,
        json!({"type": "play", "card": value, "from": 0}),
        problem(
            422,
            "card_not_in_hand",
            &format!("seat {} does not hold PLUS {value}", leader + 1),
            json!({"seat": leader, "card": value}),
        ),
    )
    .await;
    // A MINUS lead is refused on public grounds, with its value, to the host too.
    let minus = app
        .act(
            &m,
            &m.host,
            Some(leader),
            json!({"type": "play", "card": -7, "from": 0}),
        )
        .await;
    assert_body(
        &minus,
        &problem(
            422,
            "minus_card_lead",
            &format!(
                "MINUS cards must not be used by the leader to start the game: seat {} must lead a PLUS card, not MINUS 7",
                leader + 1
            ),
            json!({"seat": leader, "card": -7}),
        ),
    );
}

#[actix_web::test]
async fn members_only_a_reveal_not_held_is_told_with_its_counts_to_the_holder_only() {
    let app = TestApp::spawn().await;
    let m = app.create("members-only", 3, "service", json!({})).await;
    deal(&app, &m).await;
    // Heat 1's first turn: the seat to act bets (a legal bet) and reveals nothing.
    let first = to_act(&app.view(&m, None).await)[0];
    let bet_turn = app
        .legal(&m, first, Some(&m.seats[first]))
        .await
        .into_iter()
        .find(|a| a["bet"].is_object())
        .expect("a turn with a bet");
    let r = app
        .act(&m, &m.seats[first], Some(first), bet_turn.clone())
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let next = to_act(&app.view(&m, None).await)[0];
    // The same space again: taken, by the first seat (public: the board shows it).
    let mut taken = app
        .legal(&m, next, Some(&m.seats[next]))
        .await
        .into_iter()
        .find(|a| a["bet"].is_object())
        .expect("a turn with a bet");
    taken["bet"]["category"] = bet_turn["bet"]["category"].clone();
    taken["bet"]["space"] = bet_turn["bet"]["space"].clone();
    let category = bet_turn["bet"]["category"].as_str().unwrap();
    let space = bet_turn["bet"]["space"].as_str().unwrap();
    let words = serde_json::from_value::<clubroom::rules::members_only::Space>(json!(space))
        .unwrap()
        .words();
    let host = app.act(&m, &m.host, Some(next), taken).await;
    assert_body(
        &host,
        &problem(
            422,
            "space_taken",
            &format!(
                "the {category} space '{words}' ({space}) is already taken by seat {}: pieces go on vacant spaces only, one piece per space (Rule One)",
                first + 1
            ),
            json!({"seat": first, "category": category, "space": space}),
        ),
    );
    // Out of turn: the seat that tried, and the seat to act.
    let other = (next + 1) % 3;
    let turn = app
        .act(
            &m,
            &m.host,
            Some(other),
            json!({"type": "turn", "bet": null, "reveal": []}),
        )
        .await;
    assert_body(
        &turn,
        &problem(
            422,
            "not_your_turn",
            &format!(
                "it is seat {}'s turn, not seat {}'s (play proceeds clockwise from the heat's starter)",
                next + 1,
                other + 1
            ),
            json!({"seat": other, "expected": next, "got": other}),
        ),
    );
    // Heat 1's turns reveal nothing; play on to a turn that reveals two cards.
    let seat = loop {
        let v = app.view(&m, None).await;
        let s = to_act(&v)[0];
        let legal = app.legal(&m, s, Some(&m.seats[s])).await;
        if legal
            .iter()
            .any(|a| a["reveal"].as_array().is_some_and(|r| r.len() == 2))
        {
            break s;
        }
        let r = app.act(&m, &m.seats[s], Some(s), legal[0].clone()).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    };
    let hand = hand_of(&app, &m, seat).await;
    let kinds = ["umbrella", "crown", "teacup", "big_ben", "hat"]
        .iter()
        .flat_map(|c| [c.to_string(), format!("{c}:no")]);
    let (kind, held) = kinds
        .map(|k| {
            let n = hand.iter().filter(|c| **c == json!(k)).count();
            (k, n)
        })
        .find(|(_, n)| *n < 2)
        .expect("a kind the hand holds fewer than two of");
    assert_told_only_to_the_holder(
        &app,
        &m,
        seat,
        json!({"type": "turn", "bet": null, "reveal": [kind, kind]}),
        problem(
            422,
            "card_not_in_hand",
            &format!("seat {} does not hold 2 × {kind} (holds {held})", seat + 1),
            json!({"seat": seat, "card": kind, "expected": 2, "got": held}),
        ),
    )
    .await;
}

#[actix_web::test]
async fn by_hook_or_crook_a_sealed_location_is_named_to_its_seat_only() {
    // Two players, combined: each seat picks its location and its action card at once, sealed.
    let app = TestApp::spawn().await;
    let m = app
        .create("by-hook-or-crook", 2, "service", json!({}))
        .await;
    deal(&app, &m).await;
    let r = app
        .act(
            &m,
            &m.seats[0],
            Some(0),
            json!({"type": "location", "place": "castle"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    // docs/rules.md#by-hook-or-crook-cards-per-player: seat 0 has check 8000 (auction only).
    assert_told_only_to_the_holder(
        &app,
        &m,
        0,
        json!({"type": "choose", "card": "check:8000"}),
        problem(
            422,
            "card_not_allowed_here",
            "check:8000 can be played only at the auction house; seat 1 is at the castle",
            json!({"seat": 0, "card": "check:8000", "place": "castle"}),
        ),
    )
    .await;
    // Whose a card is, is public: seat 1's check, refused alike to the host.
    let host = app
        .act(
            &m,
            &m.host,
            Some(0),
            json!({"type": "choose", "card": "check:8100"}),
        )
        .await;
    assert_body(
        &host,
        &problem(
            422,
            "not_your_card",
            "check:8100 is not seat 1's card",
            json!({"seat": 0, "card": "check:8100"}),
        ),
    );
    let none = app
        .act(
            &m,
            &m.host,
            Some(0),
            json!({"type": "choose", "card": "thief:9"}),
        )
        .await;
    assert_body(
        &none,
        &problem(
            422,
            "no_such_card",
            "there is no thief 9 in this match",
            json!({"card": "thief:9"}),
        ),
    );
}

/// Every member a problem can carry fits the schema; one it does not list does not.
#[test]
fn every_problem_field_fits_the_problem_schema_and_nothing_else_does() {
    use clubroom::{
        error::ApiError,
        rules::{by_hook_or_crook::actions::Place, cards::Suit, members_only, ProblemFields},
    };
    let mut e = ApiError::new(
        actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
        "space_taken",
        "d",
    );
    *e.fields = ProblemFields {
        seat: Some(15),
        card: Some(clubroom::rules::CardName::Value(-7)),
        suit: Some(Suit::C),
        expected: Some(-26),
        got: Some(i64::MAX),
        category: Some(members_only::Category::BigBen),
        space: Some(members_only::Space::Ge8),
        place: Some(Place::Auction),
        pile: Some(1),
    };
    e.legal = Some(vec![json!({"type": "play", "card": "QS"})]);
    let body = serde_json::to_value(e.problem()).unwrap();
    assert_eq!(
        body,
        json!({
            "type": "urn:clubroom:problem:space_taken", "title": "Illegal action", "status": 422,
            "detail": "d", "code": "space_taken", "legal": [{"type": "play", "card": "QS"}],
            "seat": 15, "card": -7, "suit": "C", "expected": -26, "got": i64::MAX,
            "category": "big_ben", "space": "ge8", "place": "auction", "pile": 1
        })
    );
    assert_problem_schema(&body);
    e.fields.card = Some(clubroom::rules::CardName::Code("hat:no".into()));
    assert_problem_schema(&serde_json::to_value(e.problem()).unwrap());
    let mut extra = body.clone();
    extra["hand"] = json!(["QS"]);
    assert!(
        !jsonschema_ok(&extra),
        "a member the schema does not list is refused"
    );
    let mut bad = body;
    bad["suit"] = json!("X");
    assert!(!jsonschema_ok(&bad));
}

fn jsonschema_ok(body: &Value) -> bool {
    std::panic::catch_unwind(|| assert_problem_schema(body)).is_ok()
}

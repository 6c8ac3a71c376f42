//! Complete matches of every game over HTTP, in both dealing modes, each seat acting through its
//! own token (service dealing) or the host recording for the table (table dealing).

mod common;

use common::{Match, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// Plays `m` to its end choosing the first legal action each time; returns the final view.
/// In service dealing, right after every deal, checks that no seat's hand shows anywhere but in
/// its own view (`card_pattern` finds a hand's cards in a JSON text).
async fn play_to_the_end(
    app: &TestApp,
    m: &Match,
    service: bool,
    mut check_privacy: bool,
) -> Value {
    // A fixed pseudo-random choice among the legal actions: always the first one can loop forever
    // (every Bonus-Malus deal a tie, say).
    let mut pick = clubroom::rng::SplitMix64::new(0x2545_f491_4f6c_dd1d);
    let mut choose = |n: usize| pick.below(n);
    for _ in 0..20_000 {
        let v = app.view(m, None).await;
        if v["status"] == "finished" {
            return v;
        }
        if v["table_to_act"] == json!(true) {
            let a = app
                .get(&format!("/v1/matches/{}/legal", m.id), Some(&m.host))
                .await;
            let actions = a.body["actions"].as_array().unwrap().clone();
            assert!(
                !actions.is_empty(),
                "the table is to act but has no legal action: {}",
                v["table"]
            );
            let action = actions[choose(actions.len())].clone();
            let r = app.act(m, &m.host, None, action.clone()).await;
            assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
            // Only the first deal: later deals hold cards the log shows from earlier deals.
            if service && check_privacy && action["type"] == "deal" {
                assert_hands_private(app, m).await;
                check_privacy = false;
            }
            continue;
        }
        let seats: Vec<usize> = v["to_act"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_u64().unwrap() as usize)
            .collect();
        assert!(!seats.is_empty(), "nobody to act in an unfinished match");
        let seat = seats[0];
        let token = if service { &m.seats[seat] } else { &m.host };
        let legal = app.legal(m, seat, Some(token)).await;
        assert!(
            !legal.is_empty(),
            "seat {seat} is to act but has no legal action"
        );
        let action = legal[choose(legal.len())].clone();
        let r = app.act(m, token, Some(seat), action.clone()).await;
        assert_eq!(
            r.status,
            StatusCode::CREATED,
            "seat {seat} {action}: {}",
            r.text
        );
    }
    panic!("the match did not end");
}

/// Right after a deal: each seat's hand is in its own view only.
async fn assert_hands_private(app: &TestApp, m: &Match) {
    let public = serde_json::to_string(&app.view(m, None).await).unwrap()
        + &serde_json::to_string(&app.events(m, None).await).unwrap()
        + &serde_json::to_string(&app.view(m, Some(&m.host)).await).unwrap();
    for (s, token) in m.seats.iter().enumerate() {
        let mine = app.view(m, Some(token)).await;
        let hand: Vec<String> = mine["you"]["hand"]
            .as_array()
            .expect("a seat sees its hand")
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert!(!hand.is_empty());
        let other =
            serde_json::to_string(&app.view(m, Some(&m.seats[(s + 1) % m.seats.len()])).await)
                .unwrap();
        for card in &hand {
            // Clubs names its opening card publicly (the holder of 2♣ leads it): not a leak.
            if card == "\"2C\"" || card == "\"3C\"" {
                continue;
            }
            assert!(
                !public.contains(card.as_str()),
                "seat {s}'s {card} is visible publicly"
            );
            assert!(
                !other.contains(card.as_str()),
                "seat {s}'s {card} is visible to another seat"
            );
        }
    }
}

/// Totals are the sums of the rounds (Members Only: of the markers at 5..10 on the tracks), and
/// the winners hold the best total.
fn assert_sheet_consistent(sheet: &Value, end: &Value) {
    let totals: Vec<i64> = sheet["totals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_i64().unwrap())
        .collect();
    if end["game"] == "members-only" {
        for (i, t) in totals.iter().enumerate() {
            let counted: i64 = end["table"]["tracks"][i]
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.as_i64().unwrap())
                .filter(|v| (5..=10).contains(v))
                .sum();
            assert_eq!(counted, *t, "seat {i}: only markers at 5..10 count");
        }
    }
    for (i, t) in totals
        .iter()
        .enumerate()
        .filter(|_| end["game"] != "members-only")
    {
        let sum: i64 = sheet["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["points"][i].as_i64().unwrap())
            .sum();
        assert_eq!(sum, *t, "column {i}: the rounds add up to the total");
    }
    let best = *totals.iter().max().unwrap();
    assert_eq!(sheet["finished"], json!(true));
    for w in sheet["winners"].as_array().unwrap() {
        assert_eq!(totals[w.as_u64().unwrap() as usize], best);
    }
    // The runner-up is the best of the seats that did not win (By Hook or Crook breaks a tie on
    // the track by the collections, so a sole winner can have a margin of 0).
    let winners: Vec<usize> = sheet["winners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_u64().unwrap() as usize)
        .collect();
    let runner_up = (0..totals.len())
        .filter(|i| !winners.contains(i))
        .map(|i| totals[i])
        .max()
        .unwrap_or(best);
    assert_eq!(sheet["margin"], json!(best - runner_up));
}

async fn complete_match(game: &str, players: usize, dealing: &str, config: Value) -> Value {
    let app = TestApp::spawn().await;
    let m = app.create(game, players, dealing, config).await;
    // Trick games' hands are cards named once per deck; Members Only's are categories, two of
    // which are face up for all to see, so its privacy is checked by its engine's tests.
    let trick_game = ["clubs", "bonus-malus", "dump"].contains(&game);
    let end = play_to_the_end(&app, &m, dealing == "service", trick_game).await;
    let sheet = app
        .get(&format!("/v1/matches/{}/scores", m.id), None)
        .await
        .body;
    assert_sheet_consistent(&sheet, &end);
    // A second app on the same database replays the log to the same finished state.
    let again = TestApp::on(&app.database_url).await.view(&m, None).await;
    assert_eq!(again["scores"], end["scores"]);
    assert_eq!(again["table"], end["table"]);
    end
}

/// Every game `GET /v1/games` lists, with its fewest players and its default options, is played
/// to its end in service dealing (where every legal action is listed, so the random legal choices
/// of `play_to_the_end` finish any game), each seat through its own token. The tests below add
/// each game's own checks, and table dealing.
#[actix_web::test]
async fn every_game_of_the_catalogue_is_played_to_its_end_over_http() {
    let games = TestApp::spawn().await.get("/v1/games", None).await.body;
    let games = games.as_array().expect("the catalogue is a list");
    assert!(!games.is_empty());
    for g in games {
        let (id, players) = (
            g["id"].as_str().unwrap(),
            g["min_players"].as_u64().unwrap(),
        );
        let end = complete_match(id, players as usize, "service", json!({})).await;
        assert_eq!(end["status"], "finished", "{id}");
    }
}

#[actix_web::test]
async fn a_complete_clubs_match_is_played_over_http_with_service_dealing() {
    let end = complete_match("clubs", 4, "service", json!({})).await;
    let totals: Vec<i64> = end["scores"]["totals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_i64().unwrap())
        .collect();
    assert!(
        totals.iter().any(|&t| t <= -100),
        "Clubs ends when a total reaches -100: {totals:?}"
    );
    for r in end["scores"]["rounds"].as_array().unwrap() {
        assert_eq!(
            r["points"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_i64().unwrap())
                .sum::<i64>(),
            -26,
            "every deal sums to -26"
        );
    }
}

#[actix_web::test]
async fn a_complete_three_player_clubs_match_is_played_over_http_with_table_dealing() {
    let end = complete_match("clubs", 3, "table", json!({})).await;
    for r in end["scores"]["rounds"].as_array().unwrap() {
        assert_eq!(
            r["points"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_i64().unwrap())
                .sum::<i64>(),
            -26
        );
    }
}

#[actix_web::test]
async fn a_complete_bonus_malus_match_is_played_over_http_with_service_dealing() {
    let end = complete_match("bonus-malus", 4, "service", json!({})).await;
    let rounds = end["scores"]["rounds"].as_array().unwrap();
    for (i, r) in rounds.iter().enumerate() {
        assert_eq!(r["multiplier"], json!(i + 1), "deal n counts n times");
    }
    assert!(end["scores"]["totals"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t.as_i64().unwrap() >= 155));
}

#[actix_web::test]
async fn a_complete_bonus_malus_match_is_played_over_http_with_table_dealing() {
    complete_match("bonus-malus", 2, "table", json!({})).await;
}

#[actix_web::test]
async fn a_complete_members_only_game_is_played_over_http_with_service_dealing() {
    let end = complete_match("members-only", 4, "service", json!({})).await;
    assert_eq!(end["status"], "finished");
}

#[actix_web::test]
async fn a_complete_members_only_game_is_played_over_http_with_table_dealing() {
    complete_match("members-only", 3, "table", json!({})).await;
}

#[actix_web::test]
async fn a_complete_plus_minus_rubber_is_played_over_http_with_service_dealing() {
    let end = complete_match("plus-minus", 3, "service", json!({})).await;
    let rounds = end["scores"]["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 5, "five games make a rubber");
}

#[actix_web::test]
async fn a_complete_plus_minus_rubber_is_played_over_http_with_table_dealing() {
    let end = complete_match("plus-minus", 2, "table", json!({"rubber_games": 2})).await;
    assert_eq!(end["scores"]["rounds"].as_array().unwrap().len(), 2);
}

#[actix_web::test]
async fn a_complete_by_hook_or_crook_game_is_played_over_http_with_every_seat_choosing_by_its_own_token(
) {
    let app = TestApp::spawn().await;
    let m = app
        .create("by-hook-or-crook", 4, "service", json!({}))
        .await;
    app.act(&m, &m.host, None, json!({"type": "deal"})).await;
    // Sealed choices: after seat 0 chooses its location, nobody else can tell which it chose.
    let v = app.view(&m, None).await;
    assert_eq!(v["to_act"], json!([0, 1, 2, 3]), "all four choose at once");
    let legal0 = app.legal(&m, 0, Some(&m.seats[0])).await;
    let choice = legal0[0].clone();
    let r = app.act(&m, &m.seats[0], Some(0), choice.clone()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let place = choice["place"].as_str().unwrap();
    let public = serde_json::to_string(&app.view(&m, None).await).unwrap()
        + &serde_json::to_string(&app.events(&m, None).await).unwrap()
        + &serde_json::to_string(&app.view(&m, Some(&m.seats[1])).await).unwrap()
        + &serde_json::to_string(&app.events(&m, Some(&m.seats[1])).await).unwrap();
    assert!(
        !public.contains(&format!("\"place\":\"{place}\"")),
        "seat 0's sealed location leaked: {public}"
    );
    let own = serde_json::to_string(&app.events(&m, Some(&m.seats[0])).await).unwrap();
    assert!(
        own.contains(&format!("\"place\":\"{place}\"")),
        "a seat sees its own sealed choice in the log"
    );
    // Another seat's token cannot read seat 0's legal list.
    let a = app
        .get(
            &format!("/v1/matches/{}/legal?seat=0", m.id),
            Some(&m.seats[1]),
        )
        .await;
    assert_eq!(a.status, StatusCode::FORBIDDEN);
    let end = play_to_the_end(&app, &m, true, false).await;
    let sheet = app
        .get(&format!("/v1/matches/{}/scores", m.id), None)
        .await
        .body;
    assert_sheet_consistent(&sheet, &end);
    let again = TestApp::on(&app.database_url).await.view(&m, None).await;
    assert_eq!(again["table"], end["table"]);
}

#[actix_web::test]
async fn the_host_records_a_by_hook_or_crook_auction_turn_after_a_physical_reveal() {
    let app = TestApp::spawn().await;
    let m = app.create("by-hook-or-crook", 3, "table", json!({})).await;
    let host = |seat: Option<usize>, action: Value| {
        let (app, m) = (&app, &m);
        async move {
            let r = app.act(m, &m.host, seat, action).await;
            assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
            r.body
        }
    };
    host(None, json!({"type": "deal"})).await;
    host(
        None,
        json!({"type": "reveal_pile", "pile": 0, "card": "A1500"}),
    )
    .await;
    host(
        None,
        json!({"type": "reveal_pile", "pile": 1, "card": "B1507"}),
    )
    .await;
    for s in 0..3 {
        host(Some(s), json!({"type": "location", "place": "auction"})).await;
    }
    host(Some(0), json!({"type": "choose", "card": "check:17000"})).await;
    host(Some(1), json!({"type": "choose", "card": "check:16900"})).await;
    // Until the last choice is in, the public log shows the recorded choices sealed.
    let public = serde_json::to_string(&app.events(&m, None).await).unwrap();
    assert!(
        !public.contains("check:17000") && !public.contains("check:16900"),
        "sealed choices leaked: {public}"
    );
    let done = host(Some(2), json!({"type": "choose", "card": "thief:3"})).await;
    let outcome = &done["event"]["outcome"];
    assert_eq!(outcome[0]["type"], "cards_revealed");
    assert_eq!(
        outcome[0]["cards"],
        json!(["check:17000", "check:16900", "thief:3"])
    );
    assert_eq!(
        outcome[0]["locations"],
        json!(["auction", "auction", "auction"])
    );
    assert_eq!(
        outcome[1],
        json!({"type": "auction_won", "seat": 0, "check": 17000, "thieves": [3]})
    );
    assert_eq!(done["match"]["to_act"], json!([0]));
    let bought = host(Some(0), json!({"type": "buy", "pile": 1})).await;
    assert_eq!(
        bought["event"]["outcome"][0]["check_stolen_by"],
        json!(2),
        "the single thief takes the winning check"
    );
    // Now every choice of the turn is public in the log.
    let public = serde_json::to_string(&app.events(&m, None).await).unwrap();
    assert!(public.contains("check:17000"));
}

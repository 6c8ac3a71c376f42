//! Hostile input against every engine: random, mostly illegal, often malformed JSON actions from
//! random actors. No panic; every refusal is a typed error (`Malformed` or a coded `Illegal`);
//! the state is untouched after a refusal; whatever was accepted replays to the same state.

use clubroom::rules::{ActionError, Actor, AnyGame, Dealing, Seed};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Every game of the catalogue with its fewest and most players, so a new game is attacked here
/// without a line of this file changing.
fn games() -> Vec<(&'static str, usize, usize)> {
    AnyGame::catalogue()
        .into_iter()
        .map(|g| (g.id, g.min_players, g.max_players))
        .collect()
}

const TYPES: [&str; 16] = [
    "deal",
    "play",
    "tally",
    "stock_top",
    "turn",
    "final",
    "location",
    "choose",
    "buy",
    "reveal_pile",
    "exhibit",
    "steal",
    "final_exhibit",
    "fold",
    "",
    "PLAY",
];

/// A JSON scalar of any kind, with a bias to values the games use.
fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-30i64..60).prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop::sample::select(vec![
            "7H",
            "2C",
            "AS",
            "10D",
            "ZZ",
            "",
            "S",
            "H",
            "C",
            "D",
            "auction",
            "castle",
            "umbrella",
            "umbrella:no",
            "crown",
            "le3",
            "ge5",
            "single",
            "double",
            "risk",
            "check:17000",
            "thief:3",
            "exhibit",
            "detective",
            "A1500",
            "B1507",
            "\u{1F0A1}",
            "x\u{0}y",
        ])
        .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ]
}

/// A JSON value nested a little.
fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "card", "from", "points", "suit", "trump", "face_up", "bet", "reveal",
                    "discard", "place", "pile", "cards", "category", "space", "piece", "declare",
                    "taken", "men", "x"
                ]),
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

/// An action-shaped object: a type from the vocabularies plus random fields.
fn action() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => (prop::sample::select(TYPES.to_vec()), prop::collection::btree_map(
                prop::sample::select(vec!["card", "from", "points", "suit", "trump", "face_up", "bet", "reveal", "discard", "place", "pile", "cards", "declare", "taken", "men"]),
                value(),
                0..3,
            ))
            .prop_map(|(t, fields)| {
                let mut o = serde_json::Map::new();
                o.insert("type".into(), json!(t));
                for (k, v) in fields {
                    o.insert(k.to_string(), v);
                }
                Value::Object(o)
            }),
        1 => value(),
    ]
}

/// Whether `body` fits the spec's `Problem` schema (closed: no member it does not list).
fn fits_problem(body: &Value) -> bool {
    static V: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    V.get_or_init(|| {
        let spec: Value = serde_json::from_str(&clubroom::app::openapi_json()).unwrap();
        let mut root = json!({"$ref": "#/components/schemas/Problem"});
        root["components"] = spec["components"].clone();
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&root)
            .expect("the schema compiles")
    })
    .is_valid(body)
}

/// The problem body of refusal `r` of an action by `actor`, told to the seat's holder or not,
/// as the match service writes it.
fn told_body(r: &clubroom::rules::Rejection, actor: Actor, holder: bool, players: usize) -> Value {
    use clubroom::{
        error::ApiError,
        matches::{MatchError, RuleRefusal},
    };
    let mut refusal = RuleRefusal::told(r, actor.seat(), holder, Vec::new);
    *refusal.fields = refusal.fields.clone().within(players);
    serde_json::to_value(ApiError::from(MatchError::Rule(refusal)).problem()).unwrap()
}

fn snapshot(g: &AnyGame, players: usize) -> Value {
    json!({
        "table": g.table_view(),
        "scores": serde_json::to_value(g.score_sheet()).unwrap(),
        "seats": (0..players + 1).map(|s| g.seat_view(s)).collect::<Vec<_>>(),
        "round": g.round(),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn random_hostile_actions_never_panic_and_refusals_change_nothing(
        game in any::<prop::sample::Index>(),
        extra_players in 0usize..8,
        service in any::<bool>(),
        steps in prop::collection::vec((0usize..10, action(), any::<[u8; 32]>(), 0u8..4), 1..120),
    ) {
        let games = games();
        let (id, min, max) = games[game.index(games.len())];
        // Dump takes 2 or 4: a 3 becomes a 4.
        let players = min + extra_players % (max - min + 1) + usize::from(id == "dump" && min + extra_players % (max - min + 1) == 3);
        let dealing = if service { Dealing::Service } else { Dealing::Table };
        let mut g = AnyGame::new(id, None, players, dealing).unwrap();
        let mut log: Vec<(Actor, Value, Option<Seed>)> = vec![];
        for (who, mut action, seed, mode) in steps {
            // Now and then, a legal action, so that play gets somewhere.
            let t = g.to_act();
            let actor = if who >= players + 2 { Actor::Table } else { Actor::Seat(who) };
            if mode == 0 {
                let real = if t.table { Actor::Table } else { t.seats.first().map_or(Actor::Table, |s| Actor::Seat(*s)) };
                if let Some(a) = g.legal_actions(real).first() {
                    action = a.clone();
                    let seed = g.needs_seed(&action).unwrap_or(false).then_some(Seed(seed));
                    let out = g.apply(real, &action, seed.as_ref());
                    prop_assert!(out.is_ok(), "a listed legal action was refused: {action} {out:?}");
                    log.push((real, action, seed));
                    continue;
                }
            }
            let seed = (mode == 1).then_some(Seed(seed));
            let before = snapshot(&g, players);
            match g.apply(actor, &action, seed.as_ref()) {
                Ok(_) => log.push((actor, action, seed)),
                Err(ActionError::Malformed(m)) => {
                    prop_assert!(!m.is_empty());
                    prop_assert_eq!(&snapshot(&g, players), &before);
                }
                Err(ActionError::Illegal(r)) => {
                    prop_assert!(!r.code.is_empty() && r.code.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "code {}", r.code);
                    prop_assert!(!r.message.is_empty());
                    prop_assert_eq!(&snapshot(&g, players), &before, "{} changed the state", r.code);
                    // Its problem body fits the spec told to anyone; a hidden refusal tells
                    // anyone but the holder no field but the seat.
                    for holder in [true, false] {
                        let body = told_body(&r, actor, holder, players);
                        prop_assert!(fits_problem(&body), "{}", body);
                        if let (Actor::Seat(s), true, false) = (actor, r.hidden, holder) {
                            let facts: Vec<&String> = body.as_object().unwrap().keys()
                                .filter(|k| !["type", "title", "status", "detail", "code"].contains(&k.as_str()))
                                .collect();
                            let want: Vec<&str> = if s < players { vec!["seat"] } else { vec![] };
                            prop_assert_eq!(facts, want, "{}", body);
                        }
                    }
                }
            }
        }
        let mut again = AnyGame::new(id, None, players, dealing).unwrap();
        for (actor, action, seed) in &log {
            prop_assert!(again.apply(*actor, action, seed.as_ref()).is_ok(), "replay refused {}", action);
        }
        prop_assert_eq!(snapshot(&again, players), snapshot(&g, players));
    }
}

/// A number an organiser might type, with a bias to the edges: i64's ends (`i64::MIN.abs()`
/// wraps), the entry bound and one past it, anything at all, and everyday scores.
fn points() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(i64::MIN),
        Just(i64::MIN + 1),
        Just(i64::MAX),
        Just(1_000_000i64),
        Just(-1_000_000i64),
        Just(1_000_001i64),
        Just(-1_000_001i64),
        any::<i64>(),
        -200i64..200,
    ]
}

/// The largest number an entered result may hold (`quicklog`'s bound, as the API states it).
const BOUND: i64 = 1_000_000;

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    /// The quick log's check with extreme numbers, many deals, any game: never a panic (a debug
    /// build panics on overflow), out-of-range numbers refused as `points_out_of_range`, and
    /// what it accepts holds only numbers within the bound. Lines are everyday scores with, in
    /// most cases, one number spoiled by an extreme; now and then a line of the wrong length.
    #[test]
    fn the_quick_log_refuses_out_of_range_points_and_never_overflows(
        (game, units, totals, deals, spoil, misshape, long_rubber, require_deals) in (2usize..6).prop_flat_map(|units| (
            prop::sample::select(games().into_iter().map(|g| g.0).collect::<Vec<_>>()),
            Just(units),
            prop::option::of(prop::collection::vec(-200i64..200, units)),
            prop::option::of(prop::collection::vec(prop::collection::vec(-200i64..200, units), 0..230)),
            prop::option::weighted(0.8, (any::<prop::sample::Index>(), points())),
            prop::option::weighted(0.1, any::<prop::sample::Index>()),
            any::<bool>(),
            any::<bool>(),
        )),
    ) {
        use clubroom::tournaments::quicklog::check;
        let (mut totals, mut deals) = (totals, deals);
        if let Some((at, x)) = spoil {
            let mut cells: Vec<&mut i64> = totals.iter_mut().chain(deals.iter_mut().flatten()).flatten().collect();
            if !cells.is_empty() {
                let i = at.index(cells.len());
                *cells[i] = x;
            }
        }
        if let (Some(at), Some(d)) = (misshape, deals.as_mut().filter(|d| !d.is_empty())) {
            let i = at.index(d.len());
            d[i].push(0);
        }
        let config = if long_rubber { json!({"rubber_games": 100, "target": 1_000_000}) } else { json!({}) };
        let shaped = totals.iter().chain(deals.iter().flatten()).all(|l| l.len() == units)
            && deals.as_ref().is_none_or(|d| d.len() <= 200)
            && (totals.is_some() || deals.is_some())
            && (!require_deals || deals.is_some());
        let beyond = totals.iter().chain(deals.iter().flatten()).flatten().any(|x| !(-BOUND..=BOUND).contains(x));
        match check(game, &config, units, totals.clone(), deals.clone(), require_deals) {
            Ok((t, d)) => {
                prop_assert!(shaped && !beyond, "accepted {totals:?} {deals:?}");
                prop_assert!(t.iter().chain(d.iter().flatten()).all(|x| (-BOUND..=BOUND).contains(x)));
            }
            Err(e) => {
                if shaped && beyond {
                    prop_assert_eq!(e.code, "points_out_of_range", "{}", e.message);
                }
                // Also refused when the deals' sums leave the bound, every number within it.
                if e.code == "points_out_of_range" && !beyond {
                    prop_assert!(e.message.starts_with("the deals sum to"), "{}", e.message);
                }
                prop_assert!(!e.message.is_empty());
            }
        }
    }

    /// Many deals at the bound: their sums (200 × 1,000,000) are checked, exact, and compared
    /// with the totals without a wrap.
    #[test]
    fn deals_at_the_bound_sum_exactly(
        n in 1usize..=200,
        sign in prop::sample::select(vec![-1i64, 1]),
        mismatch in any::<bool>(),
    ) {
        use clubroom::tournaments::quicklog::check;
        let deals = vec![vec![sign * BOUND, 0, 0]; n];
        let sum = sign * BOUND * n as i64;
        // A wrong total is one nearer zero (still within the bound).
        let totals = (sum.abs() <= BOUND).then(|| vec![sum - sign * i64::from(mismatch), 0, 0]);
        let got = check("by-hook-or-crook", &json!({}), 3, totals.clone(), Some(deals), false);
        match totals {
            // The sums go past the bound, which an entered total keeps: refused, not wrapped.
            None => prop_assert_eq!(got.err().map(|e| e.code), Some("points_out_of_range")),
            Some(_) if mismatch => prop_assert_eq!(got.err().map(|e| e.code), Some("result_totals_mismatch")),
            // By Hook or Crook's pawns only move forward.
            Some(_) if sign < 0 => prop_assert_eq!(got.err().map(|e| e.code), Some("result_impossible")),
            Some(_) => prop_assert_eq!(got.map(|r| r.0), Ok(vec![sum, 0, 0])),
        }
    }

    /// Standings over results holding any numbers at all (a result stored before the entry bound
    /// was enforced): never a panic or a wrap; each total is the exact sum where it fits an i64,
    /// else the nearest i64.
    #[test]
    fn standings_add_extreme_totals_without_a_wrap(
        entrants in 2usize..6,
        results in prop::collection::vec((prop::collection::vec(points(), 2), any::<bool>()), 1..12),
        elo in any::<bool>(),
    ) {
        use clubroom::tournaments::{model::{Entrant, RatingSystem, ResultSource, TableResult}, standings::standings};
        let people: Vec<Entrant> = (0..entrants).map(|i| Entrant { player_id: format!("p{i}"), name: format!("P{i}") }).collect();
        let table: Vec<TableResult> = results.iter().enumerate().map(|(k, (totals, swap))| {
            let (a, b) = (k % entrants, (k + 1) % entrants);
            let (winners, margin) = clubroom::rules::sheet::winners_and_margin(totals);
            if let Some(m) = margin {
                prop_assert!(m >= 0, "margin {m} of {totals:?}");
            }
            Ok(TableResult {
                round: k as u32 + 1,
                table: 1,
                seats: if *swap { vec![b, a] } else { vec![a, b] },
                sides: None,
                totals: totals.clone(),
                deals: vec![totals.clone()],
                winners,
                source: ResultSource::Totals,
                match_id: None,
                at: "2026-11-22T20:00:00.000Z".into(),
                fouls: vec![],
            })
        }).collect::<Result<_, TestCaseError>>()?;
        let rating = if elo { RatingSystem::Elo } else { RatingSystem::WengLin };
        let s = standings(&people, &table, &[], false, clubroom::tournaments::model::FouledBoardRule::Average, rating);
        for row in &s.rows {
            let e: usize = row.player_id[1..].parse().unwrap();
            let exact: i128 = table.iter().flat_map(|r| r.seats.iter().zip(&r.totals).filter(|(s, _)| **s == e).map(|(_, t)| i128::from(*t))).sum();
            let want = i64::try_from(exact).unwrap_or(if exact < 0 { i64::MIN } else { i64::MAX });
            prop_assert_eq!(row.total, want, "P{}", e);
        }
        // Ranked by matchpoints, wins, total: never an order a wrap would invert.
        for w in s.rows.windows(2) {
            let key = |r: &clubroom::tournaments::model::StandingRow| (r.matchpoints, r.wins, r.total);
            prop_assert!(key(&w[0]) >= key(&w[1]));
        }
    }
}

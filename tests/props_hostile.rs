//! Hostile input against every engine: random, mostly illegal, often malformed JSON actions from
//! random actors. No panic; every refusal is a typed error (`Malformed` or a coded `Illegal`);
//! the state is untouched after a refusal; whatever was accepted replays to the same state.

use clubroom::rules::{ActionError, Actor, AnyGame, Dealing, Seed};
use proptest::prelude::*;
use serde_json::{json, Value};

const GAMES: [(&str, usize, usize); 6] = [
    ("dump", 2, 4),
    ("clubs", 3, 4),
    ("bonus-malus", 2, 4),
    ("plus-minus", 2, 8),
    ("members-only", 3, 5),
    ("by-hook-or-crook", 3, 5),
];

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
        game in 0usize..6,
        extra_players in 0usize..8,
        service in any::<bool>(),
        steps in prop::collection::vec((0usize..10, action(), any::<[u8; 32]>(), 0u8..4), 1..120),
    ) {
        let (id, min, max) = GAMES[game];
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

//! Every string parser of the rules against arbitrary unicode: no panic (a panic in a parser kills
//! the worker and the client gets no answer), a refusal is the parser's typed error, and whatever
//! is read writes back to a string that reads as the same value. Plus the card forms a phone
//! keyboard produces (`2♣`, `10♥`, `A♠` with the emoji variation selector).

use std::str::FromStr;

use clubroom::rules::{
    by_hook_or_crook::{actions::ActionCard, items::Item},
    cards::{Card, Suit},
    members_only, Actor, AnyGame, Dealing, Seed,
};
use proptest::prelude::*;
use serde_json::json;

/// Strings near the card forms (ranks, suit letters and symbols, the variation selector,
/// multi-byte look-alikes) and strings of any unicode at all.
fn card_like() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9TJQKAtjqkaSHDCshdc♠♥♦♣♤♡♢♧\u{FE0F}\u{200D} 1]{0,5}",
        "\\PC{0,6}",
        any::<String>(),
    ]
}

/// Reads `s` as `T`; when it reads, the value must write back to a string that reads the same.
fn round_trips<T>(s: &str) -> Result<(), TestCaseError>
where
    T: FromStr + ToString + PartialEq + std::fmt::Debug,
{
    if let Ok(v) = s.parse::<T>() {
        let again = v.to_string().parse::<T>();
        prop_assert!(
            again.as_ref().is_ok_and(|a| *a == v),
            "{s:?} read as {v:?}, wrote {:?}",
            v.to_string()
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn no_string_parser_panics_on_any_unicode(s in card_like()) {
        round_trips::<Card>(&s)?;
        round_trips::<members_only::Card>(&s)?;
        round_trips::<ActionCard>(&s)?;
        round_trips::<Item>(&s)?;
        let _ = Seed::from_hex(&s);
        let _ = serde_json::from_value::<Suit>(json!(s));
    }

    /// The same strings as cards inside actions, through every trick engine, both dealings.
    #[test]
    fn engines_refuse_any_unicode_card_without_panicking(s in card_like(), which in 0usize..3, service in any::<bool>()) {
        let (game, players) = [("dump", 4), ("clubs", 4), ("bonus-malus", 2)][which];
        let dealing = if service { Dealing::Service } else { Dealing::Table };
        let mut g = AnyGame::new(game, None, players, dealing).expect("a valid match");
        let deal = if game == "bonus-malus" && !service { json!({"type": "deal", "trump": "S"}) } else { json!({"type": "deal"}) };
        let seed = Seed([7; 32]);
        g.apply(Actor::Table, &deal, service.then_some(&seed)).expect("the deal is legal");
        for seat in 0..players {
            let before = format!("{:?}", g.table_view());
            if g.apply(Actor::Seat(seat), &json!({"type": "play", "card": s}), None).is_err() {
                prop_assert_eq!(format!("{:?}", g.table_view()), before);
            }
        }
    }
}

#[test]
fn suit_symbols_and_ten_read_as_cards() {
    for (text, rank, suit) in [
        ("2♣", 2, Suit::C),
        ("10♥", 10, Suit::H),
        ("A♠", 14, Suit::S),
        ("k♦", 13, Suit::D),
        ("A♠\u{FE0F}", 14, Suit::S),
        ("10c", 10, Suit::C),
        ("TC", 10, Suit::C),
        (" 9h ", 9, Suit::H),
    ] {
        assert_eq!(text.parse::<Card>(), Ok(Card::new(rank, suit)), "{text:?}");
    }
    for bad in [
        "",
        "♣",
        "1♣",
        "11♣",
        "10",
        "1O♣",
        "2♣♣",
        "♣2",
        "２♣",
        "2\u{FE0F}",
        "é♣",
        "2ſ",
        "ＡS",
        "A🂡",
    ] {
        assert!(bad.parse::<Card>().is_err(), "{bad:?} must be refused");
    }
    assert_eq!(serde_json::from_value::<Suit>(json!("♦")).unwrap(), Suit::D);
    assert!(serde_json::from_value::<Suit>(json!("d")).is_err());
}

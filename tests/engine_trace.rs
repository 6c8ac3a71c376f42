//! Behaviour pinned by digest: random whole matches of Clubs, Bonus-Malus, Members Only and By
//! Hook or Crook in both dealing modes, each step hashed (SHA-256) with everything observable: the state snapshot
//! (table, seats, score sheet, every actor's legal list), the action `legal_pick` chooses at a
//! random index, its outcomes as JSON, and the answers (outcomes, or the error's code, message
//! and fields) to a few other actions by random actors, legal or not. The digests were recorded
//! on the code before the engines' fast paths (branch engines3; By Hook or Crook's at 6b8ae64,
//! before stop 37's): a speed-up that changes a legal
//! list, its order, a pick, an outcome, a score, a view or a refusal changes a digest.

mod trick_props;

use clubroom::rules::{
    bonus_malus::BonusMalus, by_hook_or_crook::ByHookOrCrook, clubs::Clubs,
    members_only::MembersOnly, Actor, Dealing, Game, Produced, RuleError,
};
use sha2::{Digest, Sha256};
use trick_props::{snapshot, Rng};

/// The digest of `matches` random matches of `G` per player count and dealing mode, each
/// played to its end or `max_steps` actions.
fn trace<G: Game>(matches: u64, max_steps: usize) -> String {
    let mut h = Sha256::new();
    let mut put = |s: &str| {
        h.update(s.as_bytes());
        h.update([0]);
    };
    for players in G::MIN_PLAYERS..=G::MAX_PLAYERS {
        for dealing in [Dealing::Service, Dealing::Table] {
            for m in 0..matches {
                let mut rng = Rng::new(0x7ACE_0000 + m * 104_729 + players as u64 * 31);
                let mut g = G::new(G::Config::default(), players, dealing).expect("defaults");
                // Actions seen listed so far, tried by random actors at later steps.
                let mut pool: Vec<G::Action> = Vec::new();
                for _ in 0..max_steps {
                    put(&snapshot(&g, players).to_string());
                    for actor in (0..players).map(Actor::Seat).chain([Actor::Table]) {
                        let legal = g.legal_actions(actor);
                        if !legal.is_empty() && pool.len() < 4096 {
                            pool.push(legal[rng.below(legal.len())].clone());
                        }
                    }
                    for _ in 0..3 {
                        if pool.is_empty() {
                            break;
                        }
                        let a = pool[rng.below(pool.len())].clone();
                        let actor = match rng.below(players + 2) {
                            s if s <= players => Actor::Seat(s),
                            _ => Actor::Table,
                        };
                        let mut probe = g.clone();
                        let seed = probe.needs_seed(&a).then(|| rng.seed());
                        put(&serde_json::to_string(&a).unwrap());
                        put(&answer(probe.apply(actor, &a, seed.as_ref())));
                    }
                    let to = g.to_act();
                    let actor = match to.seats.as_slice() {
                        [] if to.table => Actor::Table,
                        [] => break,
                        seats => Actor::Seat(seats[rng.below(seats.len())]),
                    };
                    // None only where the actor's choices are not enumerable (By Hook or Crook's
                    // exhibit from a hand holding unknown cards, in table dealing): the match ends.
                    let Some(action) = g.legal_pick(actor, |n| rng.below(n)) else {
                        break;
                    };
                    put(&serde_json::to_string(&action).unwrap());
                    let seed = g.needs_seed(&action).then(|| rng.seed());
                    let out = g.apply(actor, &action, seed.as_ref());
                    assert!(out.is_ok(), "{action:?} by {actor:?} refused");
                    put(&answer(out));
                }
                put(&snapshot(&g, players).to_string());
            }
        }
    }
    hex::encode(h.finalize())
}

/// An action's answer as text: its outcomes as JSON, or the refusal's code, message and fields.
fn answer<O: serde::Serialize, E: RuleError>(r: Result<Produced<O>, E>) -> String {
    match r {
        Ok(out) => serde_json::to_string(&out).unwrap(),
        Err(e) => format!("{} {} {e} {:?}", e.code(), e.hidden(), e.fields()),
    }
}

#[test]
fn clubs_is_unchanged() {
    assert_eq!(
        trace::<Clubs>(3, 800),
        "8e32027a53df8f4bb6665fb9ebf81af764186033861ccd3b761d82857c943cac"
    );
}

#[test]
fn bonus_malus_is_unchanged() {
    assert_eq!(
        trace::<BonusMalus>(3, 800),
        "c5626b0dc0403ab5e12efa4ab09f117cf430ff7b5eefa5577c281d66f5b78eb7"
    );
}

#[test]
fn members_only_is_unchanged() {
    assert_eq!(
        trace::<MembersOnly>(3, 600),
        "737907fe85135a0024ede33076e7b58ba945dc979a5d1691625bf17c14a2e7f6"
    );
}

#[test]
fn by_hook_or_crook_is_unchanged() {
    assert_eq!(
        trace::<ByHookOrCrook>(2, 700),
        "8507dc6f63348466fe4e2bae40ff8605d26af4b8f8f5c136d25a5e6f2af1068b"
    );
}

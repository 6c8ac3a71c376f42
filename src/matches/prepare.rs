//! What a write records, judged on the entry's state: the checks and the event of an action, an
//! undo or an abandonment, and the state after it (on a copy: a refusal changes nothing).

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{
    cache::{Entry, ABANDON},
    to_json,
    views::{self, ActionRequest},
    MatchError, Role, RuleRefusal,
};
use crate::{
    rules::{ActionError, Actor, AnyGame, Dealing, Seed},
    store::EventRow,
};

/// The seed of deal `k` (from 1) of a duplicate-play round: SHA-256 of the text `<secret>:<k>`.
pub fn duplicate_seed(secret: &str, k: usize) -> Seed {
    Seed(Sha256::digest(format!("{secret}:{k}").as_bytes()).into())
}

/// The refusals of an action that do not depend on the match's version: a seat the match does
/// not have, a token that may not act for the seat, an action outside the game's vocabulary. They
/// are judged before `If-Match`: a request that fails anyway is not judged on its precondition
/// (RFC 9110, 13.2.1), so a malformed request is 400 even when its `If-Match` is stale.
pub(super) fn check_action(e: &Entry, role: Role, req: &ActionRequest) -> Result<(), MatchError> {
    let players = e.players.len();
    match (req.seat, role) {
        (Some(s), _) if s >= players => return Err(MatchError::NoSuchSeat(players)),
        (None, Role::Seat(_)) => return Err(MatchError::TableActionNeedsHost),
        (Some(s), Role::Seat(t)) if s != t => {
            return Err(MatchError::NotYourSeat { token: t, seat: s })
        }
        _ => {}
    }
    e.game
        .needs_seed(&req.action)
        .map(|_| ())
        .map_err(|err| action_error(&e.game, &req.action, err))
}

/// Checks and applies an action on a copy of the state; the event row to record.
pub(super) fn prepare_action(
    e: &Entry,
    role: Role,
    req: &ActionRequest,
) -> Result<(AnyGame, EventRow), MatchError> {
    check_open(e)?;
    check_action(e, role, req)?;
    // Score-only play (tally contract): the table's tally is the only action, for every game,
    // so it is judged here once rather than in each engine.
    if e.game.scores_only()
        && (req.seat.is_some() || req.action.get("type").and_then(Value::as_str) != Some("tally"))
    {
        return Err(MatchError::ScoresOnly);
    }
    let actor = Actor::from_seat(req.seat);
    let seed = if e
        .game
        .needs_seed(&req.action)
        .map_err(|err| action_error(&e.game, &req.action, err))?
    {
        Some(match &e.seed_key {
            // Duplicate play: deal k of every table of the round gets the same seed (a retracted
            // deal dealt again is the same board).
            Some(secret) => duplicate_seed(
                secret,
                e.standing.iter().filter(|s| s.seed.is_some()).count() + 1,
            ),
            None => Seed(rand::random()),
        })
    } else {
        None
    };
    let mut next = e.game.clone();
    match next.apply(actor, &req.action, seed.as_ref()) {
        Ok(outcome) => Ok((
            next,
            EventRow {
                kind: "action".into(),
                seat: req.seat.map(|s| s as i64),
                action: Some(to_json(&req.action)?),
                seed: seed.map(|s| s.to_hex()),
                outcome: to_json(&outcome)?,
                ..EventRow::default()
            },
        )),
        Err(err) => {
            // Who may see the acting seat's private state in a refusal: its own token; in table
            // dealing anyone who may act for it (the service holds no hidden hand there, and the
            // host may see a seat's legal list, as `legal` shows it). In service dealing the host
            // acting for a seat gets no legal list, and a refusal decided by the seat's hidden
            // hand (or sealed choice) is the one `not_playable` answer, whichever card or rule
            // refused it (`Rejection::told`; the engines judge public facts first).
            let own = matches!((role, req.seat), (Role::Seat(t), Some(s)) if t == s);
            let privileged = own || e.dealing == Dealing::Table;
            Err(match err {
                ActionError::Illegal(r) => {
                    let mut refusal =
                        RuleRefusal::told(&r, req.seat, privileged, || e.game.legal_actions(actor));
                    *refusal.fields = refusal.fields.clone().within(e.players.len());
                    MatchError::Rule(refusal)
                }
                malformed => action_error(&e.game, &req.action, malformed),
            })
        }
    }
}

/// The answer to a refused action. An action that fits no game's vocabulary is malformed (400
/// `invalid_action`); one that fits another game's is well-formed by the spec, whose action schema
/// is the union of every game's, so it is refused like a rule (422 `action_not_in_game`).
fn action_error(game: &AnyGame, action: &Value, err: ActionError) -> MatchError {
    match err {
        ActionError::Malformed(message) if AnyGame::in_some_vocabulary(action) => {
            MatchError::NotInGame {
                game: game.id(),
                message,
            }
        }
        ActionError::Malformed(m) => MatchError::MalformedAction(m),
        ActionError::Illegal(r) => MatchError::Rule(RuleRefusal::plain(r)),
    }
}

/// The round of a published seed that retracting the last standing action would bring back into
/// play (`next` is the state without it): a seed is published once its round is over (see
/// [`render_event`]), so undo may not go back across it. Nothing is published in table dealing,
/// nor in a game that withholds its seeds, and undo stays open there.
fn closed_by_published_seed(e: &Entry, next: &AnyGame) -> Option<u32> {
    if e.game.seed_withheld().is_some() || e.seed_key.is_some() {
        return None;
    }
    let (now, after) = (
        e.game.seeds_published_through(),
        next.seeds_published_through(),
    );
    e.standing
        .iter()
        .filter(|s| s.seed.is_some())
        .map(|s| s.round)
        .find(|&r| r <= now && r > after)
}

/// The earlier sealed choices that the last standing action revealed to everyone: rendered in
/// clear to the public now, sealed again in `next` (the state without that action).
fn revealed_by_last(e: &Entry, next: &AnyGame) -> Vec<i64> {
    let earlier = &e.standing[..e.standing.len().saturating_sub(1)];
    earlier
        .iter()
        .enumerate()
        .filter(|(i, s)| {
            let after = next.render_action(*i, &s.action, s.actor, None);
            after.get("sealed") == Some(&Value::Bool(true))
                && e.game.render_action(*i, &s.action, s.actor, None) != after
        })
        .map(|(_, s)| s.seq)
        .collect()
}

/// Checks an undo; the state without the last standing action and the event row to record.
pub(super) fn prepare_undo(e: &Entry, role: Role) -> Result<(AnyGame, EventRow), MatchError> {
    if role != Role::Host {
        return Err(MatchError::HostOnly);
    }
    check_open(e)?;
    let Some(last) = e.standing.last() else {
        return Err(MatchError::NothingToUndo);
    };
    // A finished duplicate table's result may be the one that completes its round, and the
    // complete round publishes its secret, which derives every board the round's tables played:
    // the match may never be reopened (an ordinary service-dealt match cannot be either: its
    // last round's seed is out once it ends). So a round's completeness, once reached, stays.
    if e.seed_key.is_some() && e.game.is_finished() {
        return Err(MatchError::DuplicateFinished { seq: last.seq });
    }
    let next = e.replay(e.standing.len() - 1)?;
    if let Some(closed) = closed_by_published_seed(e, &next) {
        return Err(MatchError::RoundClosed {
            closed,
            seq: last.seq,
            round: last.round,
        });
    }
    // The choice that completed a set of sealed choices (By Hook or Crook's locations, action
    // cards and exhibits, Members Only's finals) revealed the others to everyone. Undoing it would
    // seal them again in the view, though all have seen them, and let the retracted seat choose
    // again knowing them: refused, as `round_closed` refuses to reopen a round whose cards are
    // known.
    let revealed = revealed_by_last(e, &next);
    if !revealed.is_empty() {
        return Err(MatchError::ChoicesRevealed {
            seq: last.seq,
            revealed,
        });
    }
    let outcome = serde_json::json!([views::UndoOutcome::Retracted { seq: last.seq }]);
    Ok((
        next,
        EventRow {
            kind: "undo".into(),
            retracts: Some(last.seq),
            outcome: outcome.to_string(),
            ..EventRow::default()
        },
    ))
}

/// Refuses any write to a match settled by hand (409 `match_abandoned`).
pub(super) fn check_open(e: &Entry) -> Result<(), MatchError> {
    if e.abandoned {
        return Err(MatchError::Abandoned);
    }
    Ok(())
}

/// Checks an abandonment: only a match still being played is abandoned; a finished one's score
/// sheet is its result (409 `match_finished`).
pub(super) fn prepare_abandon(e: &Entry) -> Result<(AnyGame, EventRow), MatchError> {
    check_open(e)?;
    if e.game.is_finished() {
        return Err(MatchError::Finished);
    }
    Ok((
        e.game.clone(),
        EventRow {
            kind: ABANDON.into(),
            outcome: "[]".into(),
            ..EventRow::default()
        },
    ))
}

//! How a match shows to whoever asks: its view and its log, rendered for the viewer's role
//! (private state to its own seat, seeds only once they are published).

use serde_json::Value;

use super::{
    cache::Entry,
    prepare::duplicate_seed,
    views::{EventView, Foul, MatchStatus, MatchView, PlayerView},
    Role,
};
use crate::{
    rules::{Actor, AnyGame, Board, Dealing, Seed},
    store::EventRow,
};

impl Entry {
    /// The status of `game`, a state of this match (abandoned: settled by hand, for good).
    pub(super) fn status(&self, game: &AnyGame) -> MatchStatus {
        if self.abandoned {
            MatchStatus::Abandoned
        } else if game.is_finished() {
            MatchStatus::Finished
        } else {
            MatchStatus::InProgress
        }
    }

    /// The view of `game`, this match's state at version `seq` (last written at `updated_at`),
    /// for `role`.
    pub(super) fn view(
        &self,
        game: &AnyGame,
        seq: i64,
        updated_at: &str,
        role: Option<Role>,
    ) -> MatchView {
        let mut to_act = game.to_act();
        if self.abandoned {
            // Settled by hand: nobody is expected to act any more.
            to_act.seats.clear();
            to_act.table = false;
        }
        // Every game's seat model carries its `seat`.
        let you = match role {
            Some(Role::Seat(s)) => Some(game.seat_json(s)),
            _ => None,
        };
        MatchView {
            id: self.row.id.clone(),
            game: self.row.game.clone(),
            status: self.status(game),
            seq,
            created_at: self.row.created_at.clone(),
            updated_at: updated_at.to_string(),
            players: self.player_views(),
            config: self.config_text.clone(),
            dealing: self.dealing,
            round: game.round(),
            dealer: game.dealer(),
            to_act: to_act.seats,
            table_to_act: to_act.table,
            table: game.table_json(),
            you,
            scores: self.sheet.sheet_of(game),
            tournament: self.tournament.clone(),
            duplicate: self.seed_key.is_some(),
        }
    }

    fn player_views(&self) -> Vec<PlayerView> {
        self.players
            .iter()
            .zip(&self.player_ids)
            .enumerate()
            .map(|(seat, (name, player_id))| PlayerView {
                seat,
                name: name.clone(),
                player_id: player_id.clone(),
            })
            .collect()
    }

    /// How event `row` appears to `role`, judged by the current state.
    pub(super) fn event_view(&self, row: &EventRow, role: Option<Role>) -> EventView {
        let index = self.standing.binary_search_by_key(&row.seq, |s| s.seq).ok();
        render_event(
            &self.game,
            row,
            index,
            self.retracted.get(&row.seq).copied(),
            role,
            self.seeds(),
            self.board_secret(),
        )
    }

    /// Duplicate play at a table that deals its own cards: the round's secret, from which the
    /// board every recorded card is checked against derives.
    pub(super) fn board_secret(&self) -> Option<&str> {
        self.seed_key
            .as_deref()
            .filter(|_| self.dealing == Dealing::Table)
    }

    /// Every standing play of a card the seat was not dealt on the round's board, in order.
    pub(super) fn fouls(&self) -> Vec<Foul> {
        let Some(secret) = self.board_secret() else {
            return vec![];
        };
        let mut board: Option<(u32, Option<Board>)> = None;
        let mut out = vec![];
        for s in &self.standing {
            let (Some(seat), Some(card)) = (s.actor.seat(), self.game.card_shown(&s.action)) else {
                continue;
            };
            if board.as_ref().is_none_or(|(k, _)| *k != s.round) {
                board = Some((s.round, board_of(&self.game, secret, s.round)));
            }
            if let Some((_, Some(b))) = &board {
                if b.hands.get(seat).is_some_and(|h| !h.contains(card)) {
                    out.push(Foul {
                        board: s.round,
                        seat,
                        card,
                        seq: s.seq,
                    });
                }
            }
        }
        out
    }

    /// How this match's seeds are published.
    pub(super) fn seeds(&self) -> Seeds {
        match self.seed_key {
            Some(_) => Seeds::Duplicate {
                published: self.round_published,
            },
            None => Seeds::Own,
        }
    }
}

/// How a match's service shuffle seeds are published.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Seeds {
    /// An ordinary match: by its game's rule (`seeds_published_through`, `seed_withheld`).
    Own,
    /// Duplicate play: the same seeds deal the same cards at the round's other tables, which may
    /// still be playing them. Nothing is shown, not even a retracted deal's seed (the re-deal is
    /// the same board), until the tournament round is complete and publishes its secret; then
    /// every seed is shown (the secret derives them all), unless the game withholds its seeds
    /// for good (Members Only: the round's secret is never published either).
    Duplicate { published: bool },
}

/// How event `row` appears to `role`, given the state `game` it is judged by, the action's index
/// among the standing actions (None: an undo, or retracted) and the undo that retracted it.
pub(super) fn render_event(
    game: &AnyGame,
    row: &EventRow,
    index: Option<usize>,
    retracted_by: Option<i64>,
    role: Option<Role>,
    seeds: Seeds,
    board_secret: Option<&str>,
) -> EventView {
    let viewer = match role {
        Some(Role::Seat(s)) => Some(s),
        _ => None,
    };
    let action = row
        .action
        .as_deref()
        .and_then(|a| serde_json::from_str::<Value>(a).ok())
        .map(|a| {
            let actor = Actor::from_seat(row.seat.map(|s| s as usize));
            match (retracted_by, index) {
                (Some(_), _) => game.render_retracted(&a, actor, viewer),
                (None, index) => game.render_action(index.unwrap_or(usize::MAX), &a, actor, viewer),
            }
        });
    let fouled = match (board_secret, retracted_by, index) {
        (Some(secret), None, Some(_)) => row
            .action
            .as_deref()
            .and_then(|a| serde_json::from_str::<Value>(a).ok())
            .and_then(|a| foul_of(game, secret, row, &a)),
        _ => None,
    };
    let seed = row.seed.as_deref().and_then(Seed::from_hex);
    // A service seed is revealed once its round is over (with `seed_reveal: match_end`, once the
    // match is over), unless the game keeps some dealt card secret for ever (Members Only's
    // discards). A retracted deal is void: its seed re-derives cards that are no longer in play
    // (every action after it was retracted first), so it is revealed at once. Undo cannot reopen
    // a round whose seed is revealed (`prepare_undo`).
    // Duplicate play: see `Seeds::Duplicate`.
    let (withheld, reveal) = match (seeds, game.seed_withheld()) {
        (Seeds::Own, withheld) => (
            withheld,
            retracted_by.is_some()
                || (withheld.is_none() && row.round as u32 <= game.seeds_published_through()),
        ),
        (Seeds::Duplicate { .. }, Some(withheld)) => (Some(withheld), false),
        (Seeds::Duplicate { published: true }, None) => (None, true),
        (Seeds::Duplicate { published: false }, None) => (Some(DUPLICATE_WITHHELD), false),
    };
    EventView {
        game: game.id(),
        seq: row.seq,
        kind: row.kind.clone(),
        seat: row.seat.map(|s| s as usize),
        action,
        retracts: row.retracts,
        retracted_by,
        round: row.round as u32,
        outcome: serde_json::from_str(&row.outcome).unwrap_or(Value::Array(vec![])),
        commitment: seed.map(|s| s.commitment()),
        seed: seed.filter(|_| reveal).map(|s| s.to_hex()),
        seed_withheld: seed.and(withheld).filter(|_| !reveal).map(String::from),
        created_at: row.created_at.clone(),
        fouled,
    }
}

/// Board `deal` of a duplicate round with secret `secret`, as `game` deals it.
fn board_of(game: &AnyGame, secret: &str, deal: u32) -> Option<Board> {
    game.board(deal, &duplicate_seed(secret, deal as usize))
}

/// Whether a standing play recorded a card its seat was not dealt on the board.
fn foul_of(game: &AnyGame, secret: &str, row: &EventRow, action: &Value) -> Option<Foul> {
    let seat = row.seat? as usize;
    let card = game.card_shown(action)?;
    let board = board_of(game, secret, row.round as u32)?;
    (!board.hands.get(seat)?.contains(card)).then_some(Foul {
        board: row.round as u32,
        seat,
        card,
        seq: row.seq,
    })
}

/// Why a duplicate-play match does not publish its seeds.
const DUPLICATE_WITHHELD: &str = "duplicate play: the same deal is in play at the round's other tables; the tournament round publishes its secret (seed of deal k = SHA-256 of \"<secret>:<k>\") once every table has finished";

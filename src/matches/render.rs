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
            to_act: to_act.seats.into_vec(),
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
    /// `fouls` are the match's ([`Entry::fouls`]).
    pub(super) fn event_view(
        &self,
        row: &EventRow,
        role: Option<Role>,
        fouls: &[Foul],
    ) -> EventView {
        let index = self.standing.binary_search_by_key(&row.seq, |s| s.seq).ok();
        render_event(
            &self.game,
            row,
            index,
            self.retracted.get(&row.seq).copied(),
            role,
            self.seeds(),
            fouls.iter().find(|f| f.seq == row.seq).cloned(),
        )
    }

    /// Duplicate play at a table that deals its own cards: the round's secret, from which the
    /// board every recorded card is checked against derives.
    pub(super) fn board_secret(&self) -> Option<&str> {
        self.seed_key
            .as_deref()
            .filter(|_| self.dealing == Dealing::Table)
    }

    /// Every standing action that showed a card its seat did not hold by the round's board
    /// (dealt, or drawn as the board's stock and the log fix), in order: a fouled board.
    pub(super) fn fouls(&self) -> Vec<Foul> {
        fouls_in(
            &self.game,
            self.board_secret(),
            self.standing
                .iter()
                .map(|s| (s.seq, s.round, s.actor, &s.action)),
        )
    }

    /// The fouls a reader of the match's log (its own table's tokens, or anyone once the round
    /// is public) may see: none while the tournament round is played (until its
    /// `round.complete`), every one after. A flag shown at once would let the host, who records
    /// every seat's plays, probe a seat's board: record a guessed card, read whether it is
    /// flagged, undo, try again. Meanwhile the organiser reads them on the round
    /// (`GET /v1/tournaments/{id}/rounds/{round}`'s `tokens[].fouls`). Known (`round_published`)
    /// once asked of the store ([`super::Matches::round_published`]).
    pub(super) fn shown_fouls(&self) -> Vec<Foul> {
        if self.round_published {
            self.fouls()
        } else {
            vec![]
        }
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
    fouled: Option<Foul>,
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
    // A foul names a card the action showed: not while the action is sealed to this viewer
    // (Members Only's end-of-heat reveal), and never for a retracted action.
    let sealed = action
        .as_ref()
        .is_some_and(|a| a.get("sealed") == Some(&Value::Bool(true)));
    let fouled = fouled.filter(|_| retracted_by.is_none() && index.is_some() && !sealed);
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

/// The fouls of `standing` (seq, round, actor, action; in order), each round's actions judged
/// together against its board. None without a board secret (not real-card duplicate play).
fn fouls_in<'a>(
    game: &AnyGame,
    secret: Option<&str>,
    standing: impl Iterator<Item = (i64, u32, Actor, &'a Value)>,
) -> Vec<Foul> {
    let Some(secret) = secret else {
        return vec![];
    };
    let mut out = vec![];
    let mut deal: Vec<(i64, Actor, &Value)> = vec![];
    let mut round = 0;
    let judge = |round: u32, deal: &[(i64, Actor, &Value)], out: &mut Vec<Foul>| {
        if round == 0 || deal.is_empty() {
            return;
        }
        let Some(board) = board_of(game, secret, round) else {
            return;
        };
        let actions: Vec<(Actor, &Value)> = deal.iter().map(|(_, a, v)| (*a, *v)).collect();
        for f in game.board_fouls(&board, &actions) {
            out.push(Foul {
                board: round,
                seat: f.seat,
                card: f.card,
                seq: deal[f.index].0,
                face_up: f.face_up,
            });
        }
    };
    for (seq, r, actor, action) in standing {
        if r != round {
            judge(round, &deal, &mut out);
            deal.clear();
            round = r;
        }
        deal.push((seq, actor, action));
    }
    judge(round, &deal, &mut out);
    out
}

/// Why a duplicate-play match does not publish its seeds.
const DUPLICATE_WITHHELD: &str = "duplicate play: the same deal is in play at the round's other tables; the tournament round publishes its secret (seed of deal k = SHA-256 of \"<secret>:<k>\") once every table has finished";

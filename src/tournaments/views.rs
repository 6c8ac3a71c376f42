//! The wire types of players and tournaments.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::model::{Entrant, RatingSystem, ResultSource};
use crate::{
    matches::views::{NewPlayer, PlayerView},
    rules::Dealing,
};

/// `POST /v1/players` body.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatePlayer {
    /// The player's name: 1 to 64 characters (code points), not all whitespace.
    #[schema(
        min_length = 1,
        max_length = 64,
        pattern = r"[^\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]",
        example = "Ada"
    )]
    pub name: String,
}

/// A registered player.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Player {
    /// The stable id: name this player at a match seat (`players[].player_id`) or in a tournament.
    #[schema(example = "0c5e2f7a9b8d4c3e1f0a6b5c4d3e2f1a")]
    pub id: String,
    /// The name.
    pub name: String,
    /// When the player was registered (RFC 3339 UTC).
    pub created_at: String,
}

/// How the tables of each round are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Every pair of entrants meets at least once (2-seat tables: exactly once, by the circle
    /// method); the whole schedule is fixed at creation.
    RoundRobin,
    /// Each round pairs entrants of similar standing who have not met (or met least), after
    /// the previous round's results.
    Swiss,
}

/// How results reach the tournament.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Record {
    /// Every table plays a match recorded card by card; its finished score sheet is the result.
    /// The organiser may still enter totals for a table whose match cannot be finished.
    #[default]
    Matches,
    /// No matches: the organiser enters each table's final totals (and optionally per-deal
    /// points) — the quick log, for games not recorded card by card.
    Totals,
}

/// `POST /v1/tournaments` body.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTournament {
    /// The tournament's name: 1 to 100 characters, not blank.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"[^\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]",
        example = "Club night"
    )]
    pub name: String,
    /// The game id from `GET /v1/games`.
    #[schema(example = "clubs")]
    pub game: String,
    /// Match options for every table (omitted ones take the game's defaults).
    #[schema(value_type = Option<Object>)]
    pub config: Option<serde_json::Map<String, Value>>,
    /// Who deals at the tables: `table` (default) or `service`. In duplicate play recorded by
    /// matches, `table` means the tables deal real cards from the printed boards (`GET
    /// .../rounds/{round}/boards`), and the service checks every card a seat shows against them.
    pub dealing: Option<Dealing>,
    /// Round robin or Swiss.
    pub format: Format,
    /// Swiss: how many rounds (1 to 30; required). Round robin: fixed by the schedule (omit).
    #[schema(minimum = 1, maximum = 30)]
    pub rounds: Option<u32>,
    /// Seats per table (2 to 8, a player count the game allows). Default: the game's largest
    /// player count up to 4. Entrants that do not fill a table sit at smaller tables where the
    /// game allows, else sit out (a bye).
    #[schema(minimum = 2, maximum = 8)]
    pub table_size: Option<usize>,
    /// Duplicate play (Dump, Clubs, Bonus-Malus, P.M., Members Only): every table of a round is
    /// dealt the same cards, and each result is compared with the same seat's at the other
    /// tables. Every table then has exactly `table_size` seats. Default false.
    pub duplicate: Option<bool>,
    /// Where results come from (default `matches`).
    pub record: Option<Record>,
    /// Duplicate play at tables that deal real cards (`duplicate`, `dealing: table`, `record:
    /// matches`): what a table that fouled a board (a seat played or revealed a card the printed
    /// board did not give it) scores on that board. Default `average`. Anywhere else 422
    /// `fouled_board_not_applicable`.
    pub fouled_board: Option<crate::tournaments::model::FouledBoardRule>,
    /// The entrants, in entry order (the last tie-break): names (registered as new players) or
    /// registered players' ids. 2 to 4,096.
    #[schema(min_items = 2, max_items = 4096)]
    pub players: Vec<NewPlayer>,
}

/// A table's result.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TableResultView {
    /// Where it came from.
    pub source: ResultSource,
    /// Final totals per unit (seat, or side when `sides` is set).
    pub totals: Vec<i64>,
    /// Points per deal (heat, game) per unit, multiplier applied; empty when only totals are
    /// known.
    pub deals: Vec<Vec<i64>>,
    /// The seats of each side, when scores are kept per side.
    pub sides: Option<Vec<Vec<usize>>>,
    /// The winning units.
    pub winners: Vec<usize>,
    /// Matchpoints per unit (2 per result beaten, 1 per tie; per board in duplicate play).
    pub matchpoints: Vec<i64>,
    /// The most matchpoints each unit could have had.
    pub max_matchpoints: Vec<i64>,
    /// When the result stood (RFC 3339 UTC).
    pub at: String,
}

/// A table of a round.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TableView {
    /// The table number, from 1.
    pub table: u32,
    /// The players by seat.
    pub players: Vec<PlayerView>,
    /// The table's match (record `matches`). Hidden (null) to all but the organiser while a
    /// duplicate round is being played: the other tables play the same cards.
    pub match_id: Option<String>,
    /// Whether the table has its result (its match finished, or its result entered).
    pub finished: bool,
    /// The result, once there is one (the match finished, or totals entered). In duplicate play
    /// it shows to all but the organiser only once the round is complete (`finished` tells
    /// before): its points tell of the boards the round's other tables are still playing.
    pub result: Option<TableResultView>,
}

/// A round of a tournament.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RoundView {
    /// The round number, from 1.
    pub round: u32,
    /// Whether every table has a result.
    pub complete: bool,
    /// Duplicate play: the round's secret, published once the round is complete (the seed of
    /// deal k at every table is SHA-256 of the text `<secret>:<k>`, its commitment in each
    /// match's log). Null before, and without duplicate play, and in a game that never
    /// publishes its seeds (`secret_withheld` says why).
    pub secret: Option<String>,
    /// Duplicate play in a game that never publishes its seeds (Members Only: the secret would
    /// re-derive the face-down discards, which are never public): why the secret stays
    /// unpublished. Each match's log keeps the commitment of each deal's seed.
    pub secret_withheld: Option<String>,
    /// The tables.
    pub tables: Vec<TableView>,
    /// Entrants who sit this round out.
    pub byes: Vec<Entrant>,
    /// When the round was paired.
    pub created_at: String,
}

/// A tournament.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentView {
    /// The id (unguessable).
    pub id: String,
    /// The name.
    pub name: String,
    /// The game id.
    pub game: String,
    /// Every table's match options, defaults filled in.
    #[schema(value_type = Object)]
    pub config: Value,
    /// Who deals at the tables.
    pub dealing: Dealing,
    /// Round robin or Swiss.
    pub format: Format,
    /// Seats per table.
    pub table_size: usize,
    /// Duplicate play.
    pub duplicate: bool,
    /// Where results come from.
    pub record: Record,
    /// The rating system of the standings.
    pub rating_system: RatingSystem,
    /// How many rounds the tournament has.
    pub rounds_planned: u32,
    /// `in_progress` until the last round is complete, then `finished`.
    pub status: crate::matches::views::MatchStatus,
    /// The entrants in entry order (late entrants last, in the order they entered).
    pub players: Vec<Entrant>,
    /// The player ids of the entrants withdrawn now: never paired again, their results kept.
    pub withdrawn: Vec<String>,
    /// When the tournament was archived (left out of the default list); null when it is not.
    #[schema(format = DateTime)]
    pub archived_at: Option<String>,
    /// The rounds paired so far.
    pub rounds: Vec<RoundView>,
    /// When it was created.
    pub created_at: String,
}

/// `POST /v1/tournaments` answer. The organiser's token is shown once and never again.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CreatedTournament {
    /// The new tournament.
    pub tournament: TournamentView,
    /// The organiser's token: pairs rounds, enters results, sees every table's tokens.
    pub organiser_token: String,
}

/// A table's match tokens, for the organiser to hand out.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TableTokens {
    /// The table number.
    pub table: u32,
    /// The match.
    pub match_id: String,
    /// The host (scorer) token of the table's match.
    pub host_token: String,
    /// One token per seat, in seat order.
    pub seat_tokens: Vec<String>,
    /// Duplicate play with real cards (`GET /v1/tournaments/{id}/rounds/{round}` only): every
    /// standing play at this table so far that showed a card its seat did not hold by the
    /// round's board, in order (docs/tournaments.md#duplicate-with-real-cards). The organiser
    /// reads them here while the round is played; nobody else sees a foul until the round is
    /// complete (then in the table's log and the standings' `fouled_boards`). Absent when there
    /// are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fouls: Vec<crate::matches::views::Foul>,
}

/// A round with its tables' tokens (organiser only). The tokens derive from the organiser's
/// token: asking again gives the same ones.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RoundWithTokens {
    /// The round.
    #[serde(flatten)]
    pub round: RoundView,
    /// Per table with a match: its tokens.
    pub tokens: Vec<TableTokens>,
}

/// `PUT /v1/tournaments/{id}/rounds/{round}/tables/{table}/result` body: the quick log.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EnterResult {
    /// Final totals per unit (seat, or side in partnership play). Optional when `deals` is given
    /// (the totals are their sums); when both are given they must agree.
    pub totals: Option<Vec<i64>>,
    /// Points per deal (heat, game) per unit, multiplier applied. Required in duplicate play
    /// (boards are compared deal by deal).
    pub deals: Option<Vec<Vec<i64>>>,
    /// The table's match is still being played: `true` closes it for good (status
    /// `abandoned`, nothing more recorded there) and this result stands in its place. Without
    /// it such an entry is refused (409 `match_in_progress`), so that a result is never entered
    /// (in duplicate play, completing the round and publishing its boards) while the table
    /// plays on.
    #[serde(default)]
    pub abandon_match: bool,
}

/// A page of players, in registration order.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PlayerPage {
    /// The players.
    pub players: Vec<Player>,
    /// Pass as `cursor` for the next page; null at the end.
    pub next_cursor: Option<String>,
}

/// A tournament in a list: its settings at a glance (`GET /v1/tournaments/{id}` for the rest).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentSummary {
    /// The tournament id.
    #[schema(example = "9d1c0b7a6e5f4d3c2b1a0f9e8d7c6b5a")]
    pub id: String,
    /// Its name.
    pub name: String,
    /// The game id.
    pub game: String,
    /// How rounds are drawn.
    pub format: Format,
    /// Every table plays the same deals.
    pub duplicate: bool,
    /// The rounds planned.
    pub rounds: u32,
    /// The rounds paired so far.
    pub rounds_paired: u32,
    /// How many entrants (late entrants included, withdrawn ones too).
    pub entrants: usize,
    /// `in_progress` until the last round is complete, then `finished` (as the tournament's
    /// view says).
    pub status: TournamentStatus,
    /// When it was created (RFC 3339 UTC).
    #[schema(format = DateTime)]
    pub created_at: String,
    /// When it was archived; null when it is not (the default list shows none archived).
    #[schema(format = DateTime)]
    pub archived_at: Option<String>,
}

/// Where a tournament stands: the statuses its view has (`GET /v1/tournaments?status=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TournamentStatus {
    /// Rounds to pair or tables to finish.
    InProgress,
    /// The last round is complete.
    Finished,
}

/// A page of tournaments, newest first.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentPage {
    /// The tournaments.
    pub tournaments: Vec<TournamentSummary>,
    /// Pass as `cursor` for the next page; null at the end.
    pub next_cursor: Option<String>,
}

/// A table as the feed's `round.paired` tells of it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct FeedTable {
    /// The table number, from 1.
    pub table: u32,
    /// The table's match: null when results are entered as totals, and in duplicate play (the
    /// round's `round.complete` tells it once every table has its result).
    pub match_id: Option<String>,
    /// The players by seat.
    pub players: Vec<PlayerView>,
}

/// A table's match at the end of a round (`round.complete`).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct FeedTableMatch {
    /// The table number, from 1.
    pub table: u32,
    /// The table's match (null: results entered as totals).
    pub match_id: Option<String>,
}

/// One event of a tournament's feed (`GET /v1/tournaments/{id}/events` and `/stream`): every
/// public thing that happens in the tournament, in order. `seq` is 1, 2, 3... per tournament and
/// never changes; `type` says which. Public facts only: in duplicate play nothing of a board
/// (no `deal.scored`, no totals, no match id) is told before the round is complete.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", deny_unknown_fields)]
pub enum TournamentEvent {
    /// A round was paired: its tables (with their matches, except in duplicate play) and byes.
    #[serde(rename = "round.paired")]
    #[schema(title = "RoundPairedEvent")]
    RoundPaired {
        /// The event's place in the feed, from 1.
        seq: i64,
        /// When it was recorded (RFC 3339 UTC).
        created_at: String,
        /// The round, from 1.
        round: u32,
        /// The tables.
        tables: Vec<FeedTable>,
        /// Entrants who sit this round out.
        byes: Vec<Entrant>,
    },
    /// A table's match recorded its first event.
    #[serde(rename = "table.started")]
    #[schema(title = "TableStartedEvent")]
    TableStarted {
        /// The event's place in the feed, from 1.
        seq: i64,
        /// When it was recorded (RFC 3339 UTC).
        created_at: String,
        /// The round.
        round: u32,
        /// The table.
        table: u32,
        /// The table's match (null in duplicate play).
        match_id: Option<String>,
    },
    /// A deal (heat, game) was scored at a table: its score sheet gained line `line`. Never
    /// sent in duplicate play.
    #[serde(rename = "deal.scored")]
    #[schema(title = "DealScoredEvent")]
    DealScored {
        /// The event's place in the feed, from 1.
        seq: i64,
        /// When it was recorded (RFC 3339 UTC).
        created_at: String,
        /// The round.
        round: u32,
        /// The table.
        table: u32,
        /// The table's match.
        match_id: String,
        /// The sheet's line number, from 1.
        line: u32,
        /// The line's label (as the match's score sheet names it).
        label: String,
        /// The line's points per unit (seat or side).
        points: Vec<i64>,
        /// The totals per unit after it.
        totals: Vec<i64>,
    },
    /// An undo took back a table's scored deal: its score sheet has `lines` lines now (the
    /// deals after that are scored again). Never sent in duplicate play.
    #[serde(rename = "deal.undone")]
    #[schema(title = "DealUndoneEvent")]
    DealUndone {
        /// The event's place in the feed, from 1.
        seq: i64,
        /// When it was recorded (RFC 3339 UTC).
        created_at: String,
        /// The round.
        round: u32,
        /// The table.
        table: u32,
        /// The table's match.
        match_id: String,
        /// The sheet's lines now.
        lines: u32,
        /// The totals per unit now.
        totals: Vec<i64>,
    },
    /// A table's match finished: the table has its result.
    #[serde(rename = "table.finished")]
    #[schema(title = "TableFinishedEvent")]
    TableFinished {
        /// The event's place in the feed, from 1.
        seq: i64,
        /// When it was recorded (RFC 3339 UTC).
        created_at: String,
        /// The round.
        round: u32,
        /// The table.
        table: u32,
        /// The table's match (null in duplicate play).
        match_id: Option<String>,
        /// Final totals per unit (null in duplicate play).
        totals: Option<Vec<i64>>,
        /// The winning units (null in duplicate play).
        winners: Option<Vec<usize>>,
    },
    /// An undo reopened a table's finished match: the table has no result until it finishes
    /// again (then `table.finished`, and `round.complete` and `tournament.finished` again when
    /// it completes them). Never at a duplicate table, which cannot be reopened.
    #[serde(rename = "table.reopened")]
    #[schema(title = "TableReopenedEvent")]
    TableReopened {
        /// The event's place in the feed, from 1.
        seq: i64,
        /// When it was recorded (RFC 3339 UTC).
        created_at: String,
        /// The round.
        round: u32,
        /// The table.
        table: u32,
        /// The table's match.
        match_id: Option<String>,
    },
    /// The organiser entered a table's result (`corrected`: the table had one already).
    #[serde(rename = "result.entered")]
    #[schema(title = "ResultEnteredEvent")]
    ResultEntered {
        /// The event's place in the feed, from 1.
        seq: i64,
        /// When it was recorded (RFC 3339 UTC).
        created_at: String,
        /// The round.
        round: u32,
        /// The table.
        table: u32,
        /// The entry's version at the table, from 1.
        version: i64,
        /// Whether it replaces an earlier result of the table.
        corrected: bool,
        /// Totals per unit (null in duplicate play).
        totals: Option<Vec<i64>>,
    },
    /// Every table of the round has its result: its standings count now (in duplicate play its
    /// results, matches and secret are public from here on).
    #[serde(rename = "round.complete")]
    #[schema(title = "RoundCompleteEvent")]
    RoundComplete {
        /// The event's place in the feed, from 1.
        seq: i64,
        /// When it was recorded (RFC 3339 UTC).
        created_at: String,
        /// The round.
        round: u32,
        /// Each table's match.
        tables: Vec<FeedTableMatch>,
    },
    /// The last round is complete: the standings are final.
    #[serde(rename = "tournament.finished")]
    #[schema(title = "TournamentFinishedEvent")]
    TournamentFinished {
        /// The event's place in the feed, from 1.
        seq: i64,
        /// When it was recorded (RFC 3339 UTC).
        created_at: String,
        /// How many rounds were played.
        rounds: u32,
    },
}

impl TournamentEvent {
    /// The event's seq.
    pub fn seq(&self) -> i64 {
        match self {
            TournamentEvent::RoundPaired { seq, .. }
            | TournamentEvent::TableStarted { seq, .. }
            | TournamentEvent::DealScored { seq, .. }
            | TournamentEvent::TableFinished { seq, .. }
            | TournamentEvent::TableReopened { seq, .. }
            | TournamentEvent::DealUndone { seq, .. }
            | TournamentEvent::ResultEntered { seq, .. }
            | TournamentEvent::RoundComplete { seq, .. }
            | TournamentEvent::TournamentFinished { seq, .. } => *seq,
        }
    }
}

/// A page of a tournament's feed, oldest first.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentEventPage {
    /// The events.
    pub events: Vec<TournamentEvent>,
    /// Pass as `after` for the next page; null when this is the end of the feed (so far).
    pub next_after: Option<i64>,
}

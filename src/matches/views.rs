//! The wire types of matches: what clients send and what they get back (API.md).

use serde::{Deserialize, Serialize};
use serde_json::{value::RawValue, Value};
use utoipa::ToSchema;

use crate::rules::{Dealing, ScoreSheet};

/// A player at creation: the name shown at the table and, optionally, the registered player
/// (`POST /v1/players`) who sits there, for standings, ratings and exports.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, try_from = "serde_json::Map<String, Value>")]
pub struct NewPlayer {
    /// The player's name as shown at the table, kept exactly as sent: any Unicode, 1 to 64
    /// characters (code points), not all of them whitespace.
    #[schema(
        min_length = 1,
        max_length = 64,
        pattern = r"[^\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]",
        example = "Ada"
    )]
    pub name: String,
    /// A registered player's id (`POST /v1/players`): the seat is that player's in standings,
    /// ratings and exports. An id that names no player is 422 `unknown_player`; `name` must then
    /// be the registered name, exactly (422 `player_name_mismatch` otherwise: an entry's name
    /// never replaces the registered player's).
    #[schema(example = "0c5e2f7a9b8d4c3e1f0a6b5c4d3e2f1a")]
    pub player_id: Option<String>,
}

/// Only from a JSON object: serde alone would also take `["Ada"]` (the fields in order).
impl TryFrom<serde_json::Map<String, Value>> for NewPlayer {
    type Error = serde_json::Error;

    fn try_from(fields: serde_json::Map<String, Value>) -> Result<Self, Self::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Fields {
            name: String,
            player_id: Option<String>,
        }
        let f: Fields = serde_json::from_value(Value::Object(fields))?;
        Ok(NewPlayer {
            name: f.name,
            player_id: f.player_id,
        })
    }
}

/// The characters that do not make a name: whitespace by Unicode (Rust's `char::is_whitespace`),
/// by ECMA-262's `\s` (adds U+FEFF) and by Python's `str.isspace` (adds U+001C..U+001F), so that
/// every client's notion of "blank" agrees with the server's. The spec says the same as a pattern
/// on `NewPlayer.name`: the name has a character outside this set.
pub fn is_blank(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{1c}'..='\u{1f}' | '\u{feff}')
}

/// `POST /v1/matches` body.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateMatch {
    /// The game id from `GET /v1/games`.
    #[schema(example = "dump")]
    pub game: String,
    /// The players in seat order (seat 0 first, clockwise).
    #[schema(min_items = 1, max_items = 16)]
    pub players: Vec<NewPlayer>,
    /// Match options; omitted ones take the game's defaults (`GET /v1/games` lists them). An
    /// object: anything else is 400 `invalid_body`, options the game does not know or values out
    /// of range 422 `invalid_config`.
    #[schema(value_type = Option<Object>, example = json!({"target": 100}))]
    pub config: Option<serde_json::Map<String, Value>>,
    /// Who deals: `table` (default) or `service`.
    pub dealing: Option<Dealing>,
    /// Whether the finished match moves its registered players' club ratings (default true;
    /// `false`: it still counts in their statistics). See docs/club.md.
    pub rated: Option<bool>,
}

/// A seat and its player.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PlayerView {
    /// The seat, 0-based, clockwise.
    pub seat: usize,
    /// The name.
    pub name: String,
    /// The registered player at this seat (`POST /v1/players`), or null.
    pub player_id: Option<String>,
}

/// The tournament table a match is played at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TournamentLink {
    /// The tournament id (`GET /v1/tournaments/{id}`, its standings).
    pub id: String,
    /// The tournament round, from 1.
    pub round: u32,
    /// The table within the round, from 1.
    pub table: u32,
}

/// Whether the match is still being played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    /// Being played.
    InProgress,
    /// Over: nothing more can be recorded.
    Finished,
    /// A tournament table settled by hand before its match was over (the organiser entered its
    /// result and closed the match): nothing more can be recorded.
    Abandoned,
}

impl MatchStatus {
    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchStatus::InProgress => "in_progress",
            MatchStatus::Finished => "finished",
            MatchStatus::Abandoned => "abandoned",
        }
    }
}

/// The match view (API.md "Match view").
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchView {
    /// The match id (unguessable).
    #[schema(example = "4f9c2a1e8b7d6c5a4f3e2d1c0b9a8f7e")]
    pub id: String,
    /// The game id.
    #[schema(example = "dump")]
    pub game: String,
    /// Being played or over.
    pub status: MatchStatus,
    /// The version: the sequence number of the last event (0: none yet). Also the `ETag`.
    pub seq: i64,
    /// When the match was created (RFC 3339 UTC).
    pub created_at: String,
    /// When the last event was recorded.
    pub updated_at: String,
    /// The players by seat.
    pub players: Vec<PlayerView>,
    /// The options in force, every default filled in.
    #[schema(value_type = Object)]
    pub config: Box<RawValue>,
    /// Who deals.
    pub dealing: Dealing,
    /// The current round (deal, heat or game), from 1; 0 before the first deal.
    pub round: u32,
    /// The dealer of the current or next round (null when finished).
    pub dealer: Option<usize>,
    /// The seats expected to act (several at once for sealed simultaneous choices).
    pub to_act: Vec<usize>,
    /// Whether the table (the host token, `seat: null`) is expected to act.
    pub table_to_act: bool,
    /// The game's public state (`trick`, `leader`, `revokes`, ...): the game's table model.
    #[schema(value_type = crate::rules::spec::GameTable)]
    pub table: Box<RawValue>,
    /// With a seat token: that seat's private state (`seat`, `hand`, ...), the game's seat
    /// model. Otherwise null.
    #[schema(value_type = Option<crate::rules::spec::GameSeat>)]
    pub you: Option<Box<RawValue>>,
    /// The score sheet.
    #[schema(value_type = ScoreSheet)]
    pub scores: Box<RawValue>,
    /// The tournament table this match is played at, or null.
    pub tournament: Option<TournamentLink>,
    /// Duplicate play: every table of this tournament round is dealt the same cards. The deals'
    /// seeds stay secret until every table of the round has finished, when the tournament round
    /// publishes its secret (the seed of deal k is SHA-256 of the text `<secret>:<k>`).
    pub duplicate: bool,
}

/// `POST /v1/matches` answer. The tokens are shown once and never again.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Created {
    /// The new match.
    #[serde(rename = "match")]
    pub match_: MatchView,
    /// The host (scorer) token: acts for any seat and for the table, may undo.
    pub host_token: String,
    /// One token per seat, in seat order: acts for that seat only, sees its hidden cards.
    pub seat_tokens: Vec<String>,
}

/// `POST /v1/matches/{id}/actions` body.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionRequest {
    /// The acting seat (0-based), or null for a table action (deals, facts only the table sees;
    /// host token).
    #[schema(minimum = 0, maximum = 15)]
    pub seat: Option<usize>,
    /// The action, `{type, ...}`, from the match's game vocabulary.
    #[schema(value_type = crate::rules::spec::GameAction)]
    pub action: Value,
}

/// One entry of the event log.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EventView {
    /// The match's game id: whose actions and outcomes the event holds (the union's
    /// discriminator in the spec).
    #[schema(example = "dump")]
    pub game: &'static str,
    /// The sequence number (1, 2, 3...).
    pub seq: i64,
    /// `action`, `undo`, or `abandon` (the organiser settled the tournament table by hand and
    /// closed the match).
    #[schema(example = "action")]
    pub kind: String,
    /// The acting seat; null for the table (and for undo).
    pub seat: Option<usize>,
    /// The action as recorded (private parts shown only to whom they belong: a sealed choice is
    /// `{type, sealed: true}` to the others until revealed, a Members Only discard `hidden`); null
    /// for an undo.
    #[schema(value_type = Option<crate::rules::spec::LoggedAction>)]
    pub action: Option<Value>,
    /// For an undo: the seq of the retracted event.
    pub retracts: Option<i64>,
    /// For a retracted event: the seq of the undo that retracted it.
    pub retracted_by: Option<i64>,
    /// The round the event belongs to.
    pub round: u32,
    /// What it produced (trick won, revoke spotted, round scored...): the game's outcomes, or
    /// for an undo the `retracted` outcome.
    #[schema(value_type = Vec<crate::rules::spec::GameOutcome>)]
    pub outcome: Value,
    /// Service dealing: SHA-256 (hex) of the shuffle seed, published with the deal.
    pub commitment: Option<String>,
    /// Service dealing: the shuffle seed (hex), revealed once the round is over (and undo can
    /// no longer reopen it), or at once when the deal is retracted (void).
    pub seed: Option<String>,
    /// Service dealing in a game that never publishes its seeds: why (Members Only: the seed
    /// would re-derive the face-down discards). Null otherwise.
    #[schema(example = json!(null))]
    pub seed_withheld: Option<String>,
    /// When it was recorded (RFC 3339 UTC).
    pub created_at: String,
    /// Duplicate play with real cards (a tournament table that deals its own cards): the card
    /// this play recorded was not dealt to the seat on the round's board, so the board is fouled
    /// at this table (docs/tournaments.md#duplicate-with-real-cards). Shown only once the
    /// tournament round is complete (`round.complete`), to whoever may read the log then: while
    /// the round is played no table token (host or seat) and no action's answer or stream frame
    /// shows one (the host, recording every seat's plays, could otherwise probe a seat's board
    /// through undo); the organiser reads them meanwhile on the round
    /// (`GET /v1/tournaments/{id}/rounds/{round}`, `tokens[].fouls`). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fouled: Option<Foul>,
}

/// A fouled board: a card recorded from a seat that did not hold it by the round's board (was
/// not dealt it, nor, in Bonus-Malus, drew it from the board's stock).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct Foul {
    /// The board: the match's deal number, from 1 (board k is deal k at every table).
    #[schema(example = 1)]
    pub board: u32,
    /// The seat that played the card.
    #[schema(example = 2)]
    pub seat: usize,
    /// The card played (or, in Members Only, revealed), as the game's actions write it: rank
    /// then suit (`KS`); a P.M. value (`-7` is MINUS 7); a Members Only card (`hat:no`).
    #[schema(example = "KS")]
    pub card: String,
    /// The event that recorded it.
    #[schema(example = 17)]
    pub seq: i64,
    /// Members Only: true when the card was recorded turned face up into the layout at the deal
    /// (`deal`'s `face_up`) and the board's layout does not hold it; `seat` is then the dealer's.
    /// Absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub face_up: bool,
}

/// An event with the match after it (answer to an action or an undo).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Recorded {
    /// The event just recorded.
    pub event: EventView,
    /// The match after it.
    #[serde(rename = "match")]
    pub match_: MatchView,
}

/// The answer to an action or an undo sent with `Prefer: return=minimal`: the event and what it
/// changed, without the whole match view (read it with `GET /v1/matches/{id}` when needed).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RecordedMinimal {
    /// The event just recorded.
    pub event: EventView,
    /// The match's version after it (also the `ETag`).
    pub seq: i64,
    /// Being played or over.
    pub status: MatchStatus,
    /// The current round.
    pub round: u32,
    /// The seats expected to act now.
    pub to_act: Vec<usize>,
    /// Whether the table (host token) is expected to act now.
    pub table_to_act: bool,
}

/// A page of the event log.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EventPage {
    /// Events, oldest first.
    pub events: Vec<EventView>,
    /// Pass as `after` to get the next page; null when this is the end of the log.
    pub next_after: Option<i64>,
}

/// What a seat (or the table) may do now.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Legal {
    /// The match's game id: whose vocabulary `actions` holds (the union's discriminator in the
    /// spec).
    #[schema(example = "dump")]
    pub game: &'static str,
    /// The seat asked about, or null for the table.
    pub seat: Option<usize>,
    /// Each action `apply` would accept now (enumerable actions; tallies are not listed), from
    /// the match's game vocabulary.
    #[schema(value_type = Vec<crate::rules::spec::GameAction>)]
    pub actions: Vec<Value>,
    /// The form of the `tally` the table may send now (score-only play; a real-card table
    /// before its deal's first card): listed for the table (`seat` null) exactly when the
    /// engine would take a tally within it, else null; never for a seat.
    #[schema(required = true)]
    pub tally: Option<crate::rules::tally::TallyForm>,
}

/// What an undo produced (`outcome` of an `undo` event).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum UndoOutcome {
    /// The event retracted.
    #[schema(title = "Retracted")]
    Retracted {
        /// The seq of the retracted event.
        seq: i64,
    },
}

/// One line of the match list.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchSummary {
    /// The match id.
    pub id: String,
    /// The game id.
    pub game: String,
    /// Being played or over.
    pub status: MatchStatus,
    /// The version.
    pub seq: i64,
    /// The players by seat.
    pub players: Vec<PlayerView>,
    /// Who deals.
    pub dealing: Dealing,
    /// Creation time.
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
}

/// A page of matches, newest first.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MatchPage {
    /// The matches.
    pub matches: Vec<MatchSummary>,
    /// Pass as `cursor` for the next page; null at the end.
    pub next_cursor: Option<String>,
}

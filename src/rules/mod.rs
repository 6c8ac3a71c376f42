//! The rules engines: pure functions of (config, players, recorded actions). No I/O, no clock, no
//! randomness (a shuffle enters as the [`cards::Seed`] of a deal). Every game implements [`Game`];
//! [`AnyGame`] dispatches over them by game id.

pub mod bonus_malus;
pub mod by_hook_or_crook;
pub mod cards;
pub mod clubs;
pub mod dump;
pub mod entered;
pub mod fields;
pub mod members_only;
#[cfg(feature = "test-game")]
pub mod odd_or_even;
pub mod plus_minus;
pub mod sheet;
pub mod spec;
pub mod tally;
pub mod trick;

use std::{
    collections::BTreeMap,
    fmt::{Debug, Display},
    ops::RangeInclusive,
};

use serde::{de::DeserializeOwned, Deserialize, Serialize};
use serde_json::{value::RawValue, Value};
use utoipa::ToSchema;

pub use self::{
    cards::Seed,
    entered::{Entered, EntryError},
    fields::{CardName, ProblemFields},
    sheet::ScoreSheet,
};

/// Spec shapes the derive macros cannot express on a field: bounded array items and fixed-size
/// arrays (`[u32; 2]` is an array of any length to utoipa). Used with `#[schema(schema_with = ..)]`
/// so that every value the spec allows is one serde takes (else a schema-valid request gets 400).
pub(crate) mod spec_shapes {
    use utoipa::openapi::schema::{Array, ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type};

    /// An integer from `min` to `max`.
    pub fn int(min: i64, max: i64) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(min))
            .maximum(Some(max))
            .into()
    }

    /// `true`, the only value (`SealedAction.sealed`).
    pub fn always_true() -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::Boolean)
            .enum_values(Some([true]))
            .description(Some("Always `true`: the choice is sealed."))
            .into()
    }

    /// The string `word`, the only value.
    pub fn word(word: &str) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some([word]))
            .into()
    }

    /// A string matching `pattern`.
    pub fn string(pattern: &str) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(pattern))
            .into()
    }

    /// An array of `items` with `len` items (any number when `None`); `null` too when
    /// `nullable` (an `Option` field).
    pub fn array(
        items: Schema,
        len: Option<usize>,
        nullable: bool,
        description: &str,
        example: serde_json::Value,
    ) -> Array {
        let mut b = ArrayBuilder::new()
            .items(utoipa::openapi::RefOr::T(items))
            .min_items(len)
            .max_items(len)
            .description(Some(description))
            .examples([example]);
        if nullable {
            b = b.schema_type(SchemaType::from_iter([Type::Array, Type::Null]));
        }
        b.build()
    }
}

/// Who deals the cards: the real table (cards are learned as they are recorded) or the service
/// (it shuffles and deals, and checks every play against the hand).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Dealing {
    /// Real cards shuffled at the table; the service learns them as they are recorded.
    #[default]
    Table,
    /// The service shuffles and deals; each seat sees only its own hand.
    Service,
}

/// When the shuffle seed of a service deal is published (a match option of the games dealt round
/// by round: Dump, Clubs, Bonus-Malus, P.M.). API.md: "the seed is revealed when the round ends",
/// the default. A published seed re-derives every card of its round, so undo may never reopen a
/// round whose seed is out (422 `round_closed`): a table that wants undo open across rounds
/// (to fix a mistake found a deal later) takes `match_end`, and its seeds wait until then.
/// Members Only never publishes its seeds, By Hook or Crook (one deal) only at the match's end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeedReveal {
    /// Each seed once its round is over; undo cannot go back into a finished round.
    #[default]
    RoundEnd,
    /// Every seed once the match is over; undo stays open across rounds until then.
    MatchEnd,
}

/// Who performs an action: a seat, or the table (deals and facts only the table sees).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Actor {
    /// The player in this seat (0-based).
    Seat(usize),
    /// The table as a whole (the host records it).
    Table,
}

impl Actor {
    /// From the wire form (`seat: null` is the table).
    pub fn from_seat(seat: Option<usize>) -> Actor {
        seat.map_or(Actor::Table, Actor::Seat)
    }

    /// The seat, or None for the table.
    pub fn seat(self) -> Option<usize> {
        match self {
            Actor::Seat(s) => Some(s),
            Actor::Table => None,
        }
    }
}

/// Who is expected to act next.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToAct {
    /// Seats expected to act (several at once for sealed simultaneous choices).
    pub seats: Seats,
    /// Whether the table (the host) is expected to act.
    pub table: bool,
}

impl ToAct {
    /// One seat to act.
    pub fn seat(s: usize) -> ToAct {
        ToAct {
            seats: smallvec::smallvec![s],
            table: false,
        }
    }

    /// The table to act.
    pub fn table() -> ToAct {
        ToAct {
            seats: Seats::default(),
            table: true,
        }
    }

    /// Nobody: the match is finished.
    pub fn nobody() -> ToAct {
        ToAct::default()
    }
}

/// The seats of a [`ToAct`], held inline up to 8 (no game seats more), so that `to_act`,
/// asked at every step of a playout, never allocates. Written (Debug, JSON) as the list of seats.
pub type Seats = smallvec::SmallVec<[usize; 8]>;

/// An illegal action as the engine reports it: every game's error enum implements this.
///
/// The code and message (`Display`) are told to the acting seat's own token. A refusal decided by
/// what only that seat knows ([`RuleError::hidden`]: its hidden hand, a choice it has sealed) is
/// told to everyone else as the one [`NOT_PLAYABLE`] answer: the engines are pure and do not know
/// who asks; the match service picks the answer by role. For that answer to tell nothing, an
/// engine judges an action on public facts first (the turn, the phase, the card's existence and
/// public history, the move's shape on the public board) and only then against the hand, so that
/// a refusal on public grounds is the same whatever the hand holds, and any other is hidden.
pub trait RuleError: Display + Debug {
    /// Stable snake_case machine code, e.g. `must_follow_suit`.
    fn code(&self) -> &'static str;
    /// Whether the refusal was decided by what only the acting seat knows: its hidden hand in
    /// service dealing (a card it does not hold, a following duty its cards impose, a better set
    /// it holds) or a choice of its own still sealed. Every public check has passed by then.
    fn hidden(&self) -> bool {
        false
    }
    /// The refusal's structured facts (the seat, the card, what was expected and got...), for a
    /// client to phrase it in its own words: the problem document carries them beside the
    /// message. They are told exactly as the message is ([`Rejection::told`]), so a hidden
    /// refusal's fields may name the hand's cards.
    fn fields(&self) -> ProblemFields {
        ProblemFields::none()
    }
}

/// The code anyone but the acting seat's own token is told for a [`RuleError::hidden`] refusal.
pub const NOT_PLAYABLE: &str = "not_playable";

/// The detail of a [`NOT_PLAYABLE`] refusal: the same for every hidden refusal of the seat, so
/// that it tells nothing of which card, or which rule, refused the action.
pub fn not_playable_detail(seat: usize) -> String {
    let seat = seat + 1; // a detail names seats 1-based, as the page does
    format!(
        "seat {seat} cannot do this: the reason lies in what only seat {seat} knows (its hidden hand or a choice it has sealed: a card it does not hold, a rule its cards impose), so only seat {seat}'s own token is told it"
    )
}

/// A rejected action in game-independent form: code, message naming the rule, and its
/// structured facts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Rejection {
    /// Stable machine code.
    pub code: &'static str,
    /// Human message naming the rule, for the acting seat's own token.
    pub message: String,
    /// Whether the refusal was decided by the acting seat's private state ([`RuleError::hidden`]).
    pub hidden: bool,
    /// The refusal's structured facts ([`RuleError::fields`]), for the acting seat's own token
    /// like the message (boxed: a refusal travels in `Result`s).
    pub fields: Box<ProblemFields>,
}

impl Rejection {
    /// Builds a rejection from any game's error.
    pub fn from_rule<E: RuleError>(e: E) -> Rejection {
        Rejection {
            code: e.code(),
            message: e.to_string(),
            hidden: e.hidden(),
            fields: Box::new(e.fields()),
        }
    }

    /// The code, message and fields for a refusal of an action by `seat` (None: the table), told
    /// to the seat's own token or anyone else who may see its private state (`holder`), or to
    /// anyone else: a hidden refusal is then [`NOT_PLAYABLE`], the same answer for every such
    /// refusal, whose only field is the acting seat (which its detail names).
    pub fn told(&self, seat: Option<usize>, holder: bool) -> Told {
        match seat {
            Some(s) if self.hidden && !holder => Told {
                code: NOT_PLAYABLE,
                detail: not_playable_detail(s),
                fields: ProblemFields::seat(s),
            },
            _ => Told {
                code: self.code,
                detail: self.message.clone(),
                fields: (*self.fields).clone(),
            },
        }
    }
}

/// A refusal as one asker is told it ([`Rejection::told`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Told {
    /// The code.
    pub code: &'static str,
    /// The detail.
    pub detail: String,
    /// The structured facts.
    pub fields: ProblemFields,
}

impl Told {
    /// The code and detail.
    pub fn words(&self) -> (&'static str, String) {
        (self.code, self.detail.clone())
    }
}

/// What one applied action produced, for the log (trick won, revoke spotted, round scored...).
/// Each entry is one of the game's typed outcomes (`DumpOutcome`, ...) as JSON.
pub type Outcomes = Vec<Value>;

/// What one action produced, in order ([`Game::apply`]'s list): most actions produce one outcome
/// or none, so one is held inline and only a chain (a trick won and the deal scored, a buy that
/// ends the turn) allocates. Written (JSON) as the list it is. Measured 2026-11-30
/// (docs/performance.md, "Stop 46"): P.M., whose every card produced a list of one, plays 9 %
/// faster; the other engines moved by under 5 %.
pub type Produced<O> = smallvec::SmallVec<[O; 1]>;

/// A list built as a `Vec` (a deal, a tally: once a round) as [`Produced`].
pub(crate) fn produced<O, E>(list: Result<Vec<O>, E>) -> Result<Produced<O>, E> {
    list.map(Produced::from_vec)
}

/// A game's typed outcomes (what [`Game::apply`] returns) as the log writes them.
pub fn outcomes_json<O: Serialize>(outcomes: &[O]) -> Outcomes {
    outcomes.iter().map(to_json).collect()
}

/// A sealed choice as the log shows it to anyone but the seat that made it, until it is revealed
/// (and for ever once retracted): only its type.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SealedAction {
    /// The action's type.
    #[serde(rename = "type")]
    #[schema(value_type = SealedKind)]
    pub kind: Value,
    /// Always `true`: the choice is sealed.
    #[schema(schema_with = spec_shapes::always_true)]
    pub sealed: bool,
}

impl SealedAction {
    /// The stub of a sealed action of type `kind`, as JSON.
    pub fn of(kind: impl Into<Value>) -> Value {
        to_json(&SealedAction {
            kind: kind.into(),
            sealed: true,
        })
    }
}

/// The types of the sealed choices (By Hook or Crook: `location`, `choose`, `exhibit`,
/// `final_exhibit`; Members Only: `final`).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)] // the spec's words of `SealedAction.type`
pub enum SealedKind {
    /// By Hook or Crook: a location.
    Location,
    /// By Hook or Crook: an action card.
    Choose,
    /// By Hook or Crook: an exhibit.
    Exhibit,
    /// By Hook or Crook: a final exhibit.
    FinalExhibit,
    /// Members Only: an end-of-heat choice.
    Final,
}

/// A view model (table, seat, outcome, score detail) as the JSON the engine hands out: the
/// views are built as typed models, so the spec's schemas and the wire agree by construction.
pub(crate) fn to_json<T: Serialize>(model: &T) -> Value {
    serde_json::to_value(model).unwrap_or(Value::Null)
}

/// A model as JSON text (`null` if it cannot be written, like [`to_json`]).
pub(crate) fn raw_json<T: Serialize + ?Sized>(model: &T) -> Box<RawValue> {
    serde_json::value::to_raw_value(model)
        .unwrap_or_else(|_| serde_json::value::to_raw_value(&Value::Null).expect("null"))
}

/// [`Game::legal_pick`] by building the list and taking its entry: the default, and what a
/// game's own `legal_pick` falls back on where it has no shortcut.
pub fn pick_listed<G: Game>(
    g: &G,
    actor: Actor,
    pick: impl FnOnce(usize) -> usize,
) -> Option<G::Action> {
    let mut legal = g.legal_actions(actor);
    if legal.is_empty() {
        return None;
    }
    let k = pick(legal.len());
    (k < legal.len()).then(|| legal.swap_remove(k))
}

/// One game's rules. `apply` validates and applies in one step and leaves the state untouched
/// when it refuses.
pub trait Game: Clone + Send + Sync + Sized + 'static {
    /// The game's service id, e.g. `dump`.
    const ID: &'static str;
    /// The game's human name (`title` in `GET /v1/games`; the page shows it), e.g.
    /// `By Hook or Crook`.
    const TITLE: &'static str;
    /// Fewest players: [`Game::new`] is tried from this count to [`Game::MAX_PLAYERS`] (a
    /// tournament's table sizes are those counts the options allow), any other is refused.
    const MIN_PLAYERS: usize;
    /// Most players.
    const MAX_PLAYERS: usize;
    /// Whether duplicate play can repeat the game's deals at several tables of a tournament round
    /// (a service deal derived from a seed, compared deal by deal).
    const DUPLICATE: bool;
    /// Whether a seat's legal list is private to that seat's token (and the host's in table
    /// dealing) even when the table deals its own cards: the list shows something of the seat's
    /// own that the table does not see (By Hook or Crook's sealed choices). In service dealing
    /// every seat's list is private anyway (it shows the hand).
    const LEGAL_LIST_PRIVATE: bool = false;
    /// Why a result entered by hand (a tournament's quick log) does not have totals equal to the
    /// sums of its deals, so that totals must be entered (Members Only: the final count is the
    /// markers, not the heats' advances). None: the totals are the deals' sums.
    const TOTALS_NOT_DEAL_SUMS: Option<&'static str> = None;

    /// Match options (defaults from docs/rules.md#match-options); unknown fields are refused.
    type Config: Serialize + DeserializeOwned + Default + Clone + Debug + utoipa::ToSchema;
    /// One action of the game's vocabulary (`{type, ...}`); unknown fields are refused.
    type Action: Serialize + DeserializeOwned + Clone + Debug + utoipa::ToSchema;
    /// The model of [`Game::table_view`]; the spec's `GameTable` lists every game's (built from
    /// the registry, `rules/spec.rs`), and so for the three below. It has a required `phase`
    /// field, the stage of play clients show (checked for every game by `tests/typed_views.rs`).
    type Table: Serialize + utoipa::ToSchema;
    /// The model of [`Game::seat_view`]. It has a required `seat` field, the seat it shows: the
    /// table page tells a seat's view from the host's by it (checked by `tests/typed_views.rs`).
    type Seat: Serialize + utoipa::ToSchema;
    /// The model of one outcome of an action (the log's `outcome` entries, written as JSON by
    /// the service; a random playout never writes them).
    type Outcome: Serialize + Debug + utoipa::ToSchema;
    /// The model of a scored round's `detail` in the score sheet.
    type RoundDetail: utoipa::ToSchema;
    /// The game's illegal-action enum.
    type Error: RuleError;

    /// Checks a finished table's result entered by hand (a tournament's quick log) against what
    /// the game's rules fix: how a deal can score, how the match ends (a 422 `result_impossible`
    /// otherwise). Its shape is checked before (one number per score column, within bounds, the
    /// totals the deals' sums unless [`Game::TOTALS_NOT_DEAL_SUMS`]).
    fn check_entered(entered: &Entered<'_>) -> Result<(), EntryError>;

    /// A new match; refuses a player count or option the game cannot play.
    fn new(config: Self::Config, players: usize, dealing: Dealing) -> Result<Self, Self::Error>;
    /// The options in force (with every default filled in).
    fn config(&self) -> &Self::Config;
    /// Who must act now.
    fn to_act(&self) -> ToAct;
    /// What `actor` may do now (`apply` accepts exactly these, for enumerable games).
    fn legal_actions(&self, actor: Actor) -> Vec<Self::Action>;
    /// One of [`Game::legal_actions`] chosen by its index, without building the whole list where
    /// the game can help it: `pick` is told how many actions the list holds (never 0) and returns
    /// an index below that; the answer is the list's action at that index (same order, same cap).
    /// None when the list is empty (`pick` is not called) or the index is past its end. For
    /// random play (the engine bench, simulations); a game whose lists can be long (By Hook or
    /// Crook's exhibits) counts and unranks instead of listing.
    fn legal_pick(&self, actor: Actor, pick: impl FnOnce(usize) -> usize) -> Option<Self::Action> {
        pick_listed(self, actor, pick)
    }
    /// The form of the `tally` the table may send now (score-only play, `legal.tally`), or None
    /// when the engine would refuse any tally now. Only public facts (see [`tally::TallyForm`]).
    fn tally_form(&self) -> Option<tally::TallyForm> {
        None
    }
    /// Who deals the match's cards.
    fn dealing(&self) -> Dealing;
    /// Whether `action` is a deal: the action the service shuffles for in service dealing.
    fn is_deal(action: &Self::Action) -> bool;
    /// Whether `action` needs a service shuffle seed: a deal in service dealing, in every game.
    fn needs_seed(&self, action: &Self::Action) -> bool {
        self.dealing() == Dealing::Service && Self::is_deal(action)
    }
    /// Validates and applies `action` by `actor`; on error the state is untouched.
    fn apply(
        &mut self,
        actor: Actor,
        action: &Self::Action,
        seed: Option<&Seed>,
    ) -> Result<Produced<Self::Outcome>, Self::Error>;
    /// The public state (`table` in the match view).
    fn table(&self) -> Self::Table;
    /// The private state of `seat` (`you` in the match view), `seat` included; None for a seat
    /// the match does not have where the game has nothing to show it.
    fn seat(&self, seat: usize) -> Option<Self::Seat>;
    /// [`Game::table`] as JSON.
    fn table_view(&self) -> Value {
        to_json(&self.table())
    }
    /// [`Game::seat`] as JSON (null for None).
    fn seat_view(&self, seat: usize) -> Value {
        to_json(&self.seat(seat))
    }
    /// The score sheet so far.
    fn score_sheet(&self) -> ScoreSheet;
    /// The current round, numbered from 1 (0 before the first deal).
    fn round(&self) -> u32;
    /// The dealer of the current (or next) round.
    fn dealer(&self) -> Option<usize>;
    /// How many rounds are over (a service seed of round r is revealed once this is >= r).
    fn rounds_completed(&self) -> u32;
    /// How many lines the score sheet has. The sheet changes only when this or the finished
    /// flag does (checked for every game by `tests/conformance.rs`), so the service writes it
    /// anew only then. By default [`Game::rounds_completed`].
    fn sheet_lines(&self) -> u32 {
        self.rounds_completed()
    }
    /// Whether `action` is a sealed choice: made face down, shown to the others only when the
    /// set it belongs to is revealed. A retracted sealed choice is never revealed: the log shows
    /// it only to the seat that made it (see [`AnyGame::render_retracted`]).
    fn is_sealed(&self, _action: &Self::Action) -> bool {
        false
    }
    /// Why the game never publishes its service shuffle seeds (None: a seed is published once
    /// its round is over). A game whose rules keep some dealt card secret for ever (Members
    /// Only's face-down discards) must not publish the seed that would re-derive it.
    fn seed_withheld(&self) -> Option<&'static str> {
        None
    }
    /// When the game's service seeds are published (the `seed_reveal` option where it has one).
    fn seed_reveal(&self) -> SeedReveal {
        SeedReveal::RoundEnd
    }
    /// Duplicate play with real cards (table dealing): the board of deal `deal` (from 1) dealt
    /// from `seed`, each seat's cards as service dealing would deal them (and the cards that go
    /// to no seat: the layout, the stock in its order, the cards out of play), every card
    /// written as the game's actions write it. None: the game's boards are not checked
    /// (duplicate play needs service dealing).
    fn board(&self, _deal: u32, _seed: &Seed) -> Option<Board> {
        None
    }
    /// The cards `action` shows from the acting seat's hand, written as [`Game::board`] writes
    /// them (a play; Members Only's reveals). A card a seat shows face down to nobody (Members
    /// Only's discard) is not listed: checking it would tell the others something of it.
    fn cards_shown(_action: &Self::Action) -> Vec<String> {
        vec![]
    }
    /// The fouls of one deal played from `board`: of its standing actions, in order, each card
    /// a seat showed that it did not hold (by the board, less what it has shown before). A seat
    /// holds its dealt hand ([`seat_fouls`]); a game whose seats take cards during a deal
    /// (Bonus-Malus's draws) adds them, one whose table records dealt cards (Members Only's
    /// face-up pair) checks those too.
    fn board_fouls(board: &Board, actions: &[(Actor, Self::Action)]) -> Vec<BoardFoul> {
        seat_fouls::<Self>(board, actions)
    }
    /// How a recorded action appears to `viewer` in the log (a seat sees its own private
    /// payloads). `index` is the action's position among the standing actions.
    fn render_action(
        &self,
        _index: usize,
        action: &Self::Action,
        _actor: Actor,
        _viewer: Option<usize>,
    ) -> Value {
        serde_json::to_value(action).unwrap_or(Value::Null)
    }
}

/// One board of duplicate play with real cards: who deals, what each seat is dealt and where
/// the other cards go. Every card is written as the game's actions write it (`QS`; a P.M. value
/// such as `-7`; a Members Only card such as `hat:no`), each list in the order a person
/// pre-dealing the wallet wants it (by suit then rank, by value, by category) except the stock,
/// which is in its order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    /// The dealer's seat.
    pub dealer: usize,
    /// Each seat's cards, by seat.
    pub hands: Vec<Vec<String>>,
    /// The cards dealt to no seat that stay out of play unseen (Clubs at three: the face-down
    /// card; P.M.: the rest of the packs; Members Only: the cards out of the heat).
    pub undealt: Vec<String>,
    /// Members Only: the two cards turned face up into the layout. Empty otherwise.
    pub layout: Vec<String>,
    /// Bonus-Malus: the stock, top card first. Empty otherwise.
    pub stock: Vec<String>,
}

impl Board {
    /// The board dealt from `seed` as [`cards::deal_from_seed`] deals it, the rest undealt.
    pub fn dealt(
        deck: cards::CardSet,
        seed: &Seed,
        players: usize,
        per_hand: usize,
        dealer: usize,
    ) -> Board {
        let (hands, mut undealt) = cards::deal_from_seed(deck, seed, players, per_hand, dealer);
        undealt.sort_by_key(|c| cards::sort_key(*c));
        Board {
            dealer,
            hands: hands.iter().map(|h| cards::printed(h.to_vec())).collect(),
            undealt: undealt.iter().map(ToString::to_string).collect(),
            layout: vec![],
            stock: vec![],
        }
    }
}

/// A card recorded in a deal that the board did not put there (see [`Game::board_fouls`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardFoul {
    /// The action's index among the deal's standing actions.
    pub index: usize,
    /// The seat that showed the card (a card turned face up at the deal: the dealer).
    pub seat: usize,
    /// The card, as the board writes it.
    pub card: String,
    /// Members Only: the card was recorded turned face up into the layout at the deal.
    pub face_up: bool,
}

/// [`Game::board_fouls`]'s rule for a game whose seats hold exactly what they were dealt:
/// each card a seat shows that it does not hold by the board, less what it has shown before.
pub fn seat_fouls<G: Game>(board: &Board, actions: &[(Actor, G::Action)]) -> Vec<BoardFoul> {
    let mut held = Holdings::of(board);
    let mut out = vec![];
    for (index, (actor, action)) in actions.iter().enumerate() {
        let Some(seat) = actor.seat() else { continue };
        for card in G::cards_shown(action) {
            if !held.take(seat, &card) {
                out.push(BoardFoul {
                    index,
                    seat,
                    card,
                    face_up: false,
                });
            }
        }
    }
    out
}

/// What each seat holds of a board while it is played: its dealt hand, less what it has shown,
/// plus what it has drawn (counted by card, for packs that hold a card more than once).
#[derive(Clone, Debug)]
pub struct Holdings(Vec<BTreeMap<String, u32>>);

impl Holdings {
    /// Each seat's dealt hand.
    pub fn of(board: &Board) -> Holdings {
        Holdings(
            board
                .hands
                .iter()
                .map(|h| {
                    let mut m = BTreeMap::new();
                    for c in h {
                        *m.entry(c.clone()).or_insert(0) += 1;
                    }
                    m
                })
                .collect(),
        )
    }

    /// `seat` shows `card`: false when it does not hold it (a foul; nothing is taken).
    pub fn take(&mut self, seat: usize, card: &str) -> bool {
        match self.0.get_mut(seat).and_then(|m| m.get_mut(card)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }

    /// `seat` takes `card` into its hand (a draw).
    pub fn give(&mut self, seat: usize, card: &str) {
        if let Some(m) = self.0.get_mut(seat) {
            *m.entry(card.to_string()).or_insert(0) += 1;
        }
    }
}

/// The dealer of `round` (from 1): docs/rules.md#rounds-and-dealers: the dealer of round 1 is
/// `first_dealer` and the deal passes to the left (seat + 1) each round.
pub fn dealer_of(first_dealer: usize, round: u32, players: usize) -> usize {
    (first_dealer + round.saturating_sub(1) as usize) % players.max(1)
}

/// [`Game::dealer`] of a game dealt round by round from a first dealer: the dealer of the deal
/// under way (`round`, from 1), or between deals the next one's; none once the match is over.
/// `dealer_of` gives the dealer of a round.
pub fn dealer_now(
    deal_under_way: bool,
    finished: bool,
    round: u32,
    dealer_of: impl Fn(u32) -> usize,
) -> Option<usize> {
    if deal_under_way {
        Some(dealer_of(round))
    } else if finished {
        None
    } else {
        Some(dealer_of(round + 1))
    }
}

/// The code of every game's refusal of an action once the match is over.
pub const MATCH_FINISHED: &str = "match_finished";
/// The detail of that refusal, in the games that have no word of their own for the match's end.
pub const MATCH_FINISHED_DETAIL: &str = "the match is finished; nothing more can be recorded";

/// A game's catalogue entry.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct GameInfo {
    /// The service id, used in `POST /v1/matches`.
    #[schema(example = "dump")]
    pub id: &'static str,
    /// The title.
    #[schema(example = "Dump")]
    pub title: &'static str,
    /// Fewest players.
    pub min_players: usize,
    /// Most players.
    pub max_players: usize,
    /// Every option with its default.
    #[schema(value_type = Object)]
    pub default_config: Value,
}

fn info<G: Game>() -> GameInfo {
    GameInfo {
        id: G::ID,
        title: G::TITLE,
        min_players: G::MIN_PLAYERS,
        max_players: G::MAX_PLAYERS,
        default_config: serde_json::to_value(G::Config::default()).unwrap_or(Value::Null),
    }
}

/// Why a match could not be created or an action not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// No game by that id is implemented.
    #[error("no game '{0}' is implemented here; GET /v1/games lists the games")]
    UnknownGame(String),
    /// The player count is outside the game's range.
    #[error("{game} is played by {min} to {max} players, not {got}")]
    PlayerCount {
        /// The game's title.
        game: &'static str,
        /// The fewest players the game seats.
        min: usize,
        /// The most players the game seats.
        max: usize,
        /// The count asked for.
        got: usize,
    },
    /// The options are malformed (wrong field, wrong type).
    #[error("config: {0}")]
    BadConfig(String),
    /// The options are well-formed but not playable.
    #[error("{1}")]
    Rule(&'static str, String),
}

/// The game registry: the one list of implemented games, in catalogue order. Everything in the
/// engine that enumerates games expands it (`AnyGame`, its dispatch, the catalogue, creation by
/// id, the union vocabulary), and so does the spec (`spec.rs`: the unions of the games'
/// actions, views, outcomes and round details, from the models each game names in its `Game`
/// impl, and the option schemas), so a new game is one line here. `$m` is called with
/// `{ $args }` then the list, each entry `Variant(module::Type)`.
macro_rules! with_games {
    ($m:ident! { $($args:tt)* }) => {
        $crate::rules::with_test_game! {
            $m! { $($args)* }
            Dump(dump::Dump),
            MembersOnly(members_only::MembersOnly),
            Clubs(clubs::Clubs),
            BonusMalus(bonus_malus::BonusMalus),
            PlusMinus(plus_minus::PlusMinus),
            ByHookOrCrook(by_hook_or_crook::ByHookOrCrook),
        }
    };
}

/// The end of the registry: calls `$m` with `{ $args }` then the games. With the `test-game`
/// feature (tests only: `tests/eighth_game.rs`) the throwaway eighth game is the registry's last
/// line, and nothing else in the service names it.
#[cfg(not(feature = "test-game"))]
macro_rules! with_test_game {
    ($m:ident! { $($args:tt)* } $($games:tt)*) => {
        $m! { { $($args)* } $($games)* }
    };
}

#[cfg(feature = "test-game")]
macro_rules! with_test_game {
    ($m:ident! { $($args:tt)* } $($games:tt)*) => {
        $m! { { $($args)* } $($games)* OddOrEven(odd_or_even::OddOrEven), }
    };
}

pub(crate) use {with_games, with_test_game};

/// Defines [`AnyGame`] from the registry.
macro_rules! define_any_game {
    ({} $($variant:ident($ty:ty),)*) => {
        /// The games implemented here, dispatched by id. Each variant holds that game's live
        /// state.
        #[derive(Clone, Debug)]
        pub enum AnyGame {
            $(
                #[doc = concat!("The game `", stringify!($variant), "`.")]
                $variant($ty),
            )*
        }
    };
}
with_games!(define_any_game! {});

/// `match $self` over every registered game, binding `$g` to the inner game.
macro_rules! dispatch {
    ({ $self:expr, $g:ident, $body:expr } $($variant:ident($ty:ty),)*) => {
        match $self {
            $( AnyGame::$variant($g) => $body, )*
        }
    };
}

/// Runs `$body` with `$g` bound to the inner game of every variant.
macro_rules! each_game {
    ($self:expr, $g:ident => $body:expr) => {
        with_games!(dispatch! { $self, $g, $body })
    };
}

/// The registry's games as a list of `$f::<Game>(args)` results.
macro_rules! map_games {
    ({ $f:ident() } $($variant:ident($ty:ty),)*) => {
        vec![ $( $f::<$ty>(), )* ]
    };
    ({ $f:ident($arg:expr) } $($variant:ident($ty:ty),)*) => {
        vec![ $( $f::<$ty>($arg), )* ]
    };
}

/// The game of id `$id`, created by `create::<Game>($args)`.
macro_rules! create_by_id {
    ({ $id:expr, $config:expr, $players:expr, $dealing:expr } $($variant:ident($ty:ty),)*) => {{
        let id: &str = $id;
        $(
            if id == <$ty as Game>::ID {
                return Ok(AnyGame::$variant(create::<$ty>($config, $players, $dealing)?));
            }
        )*
        Err(SetupError::UnknownGame(id.to_string()))
    }};
}

/// `Some($f::<Game>(args))` for the registered game of id `$id`, None for an unknown id.
macro_rules! on_id {
    ({ $id:expr, $f:ident() } $($variant:ident($ty:ty),)*) => {{
        let id: &str = $id;
        $( if id == <$ty as Game>::ID { Some($f::<$ty>()) } else )* { None }
    }};
    ({ $id:expr, $f:ident($arg:expr) } $($variant:ident($ty:ty),)*) => {{
        let id: &str = $id;
        $( if id == <$ty as Game>::ID { Some($f::<$ty>($arg)) } else )* { None }
    }};
}

/// Builds one game from its wire config.
fn create<G: Game>(
    config: Option<Value>,
    players: usize,
    dealing: Dealing,
) -> Result<G, SetupError> {
    if players < G::MIN_PLAYERS || players > G::MAX_PLAYERS {
        return Err(SetupError::PlayerCount {
            game: G::TITLE,
            min: G::MIN_PLAYERS,
            max: G::MAX_PLAYERS,
            got: players,
        });
    }
    let config: G::Config = match config {
        None | Some(Value::Null) => G::Config::default(),
        Some(v) => serde_json::from_value(v).map_err(|e| SetupError::BadConfig(e.to_string()))?,
    };
    // Score-only play records results from real cards (the tally contract): a service deal
    // would shuffle cards nobody plays.
    let scores_only = serde_json::to_value(&config)
        .ok()
        .and_then(|v| v.get("scores_only").and_then(Value::as_bool))
        .unwrap_or(false);
    if scores_only && dealing == Dealing::Service {
        return Err(SetupError::Rule(
            "invalid_config",
            "scores_only needs real cards: a score-only match takes dealing \"table\"".into(),
        ));
    }
    G::new(config, players, dealing).map_err(|e| SetupError::Rule(e.code(), e.to_string()))
}

fn apply_json<G: Game>(
    g: &mut G,
    actor: Actor,
    action: &Value,
    seed: Option<&Seed>,
) -> Result<Outcomes, ActionError> {
    let a: G::Action = parse_action::<G>(action)?;
    g.apply(actor, &a, seed)
        .map(|outcomes| outcomes_json(&outcomes))
        .map_err(|e| ActionError::Illegal(Rejection::from_rule(e)))
}

fn parse_action<G: Game>(action: &Value) -> Result<G::Action, ActionError> {
    let parsed =
        G::Action::deserialize(action).map_err(|e| ActionError::Malformed(e.to_string()))?;
    // serde builds a struct out of an array of its fields in order too (`[3, 1, true]` for
    // `{"cards": 3, "clubs": 1, "jack": true}`); the vocabulary (and the spec) has objects only.
    // An action sent with no array in it cannot have done that (most actions: a type and a card).
    if !has_array(action) {
        return Ok(parsed);
    }
    match serde_json::to_value(&parsed) {
        Ok(written) if !same_shape(action, &written) => Err(ActionError::Malformed(
            "an object of the action was sent as an array".into(),
        )),
        _ => Ok(parsed),
    }
}

/// Whether `v` holds an array anywhere.
fn has_array(v: &Value) -> bool {
    match v {
        Value::Array(_) => true,
        Value::Object(m) => m.values().any(has_array),
        _ => false,
    }
}

/// False where `written` (the action as serialized) has an object and `sent` an array.
fn same_shape(sent: &Value, written: &Value) -> bool {
    match (sent, written) {
        (Value::Array(_), Value::Object(_)) => false,
        (Value::Object(s), Value::Object(w)) => w
            .iter()
            .all(|(k, w)| s.get(k).is_none_or(|s| same_shape(s, w))),
        (Value::Array(s), Value::Array(w)) => s.iter().zip(w).all(|(s, w)| same_shape(s, w)),
        _ => true,
    }
}

/// Why an action was not applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    /// The action does not fit the game's vocabulary (400).
    #[error("action: {0}")]
    Malformed(String),
    /// The action breaks a rule (422).
    #[error("{0}")]
    Illegal(Rejection),
}

impl AnyGame {
    /// The catalogue of implemented games.
    pub fn catalogue() -> Vec<GameInfo> {
        with_games!(map_games! { info() })
    }

    /// The player counts game `id` is played by (None: no such game). Its options may refuse
    /// some of them (a partnership option, say).
    pub fn player_counts(id: &str) -> Option<RangeInclusive<usize>> {
        fn counts<G: Game>() -> RangeInclusive<usize> {
            G::MIN_PLAYERS..=G::MAX_PLAYERS
        }
        with_games!(on_id! { id, counts() })
    }

    /// The games duplicate play can deal ([`Game::DUPLICATE`]), in catalogue order.
    pub fn duplicate_games() -> Vec<&'static str> {
        fn duplicate<G: Game>() -> Option<&'static str> {
            G::DUPLICATE.then_some(G::ID)
        }
        let games: Vec<Option<&'static str>> = with_games!(map_games! { duplicate() });
        games.into_iter().flatten().collect()
    }

    /// Checks a result of game `id` entered by hand ([`Game::check_entered`]); None: no such
    /// game.
    pub fn check_entered(id: &str, entered: &Entered<'_>) -> Option<Result<(), EntryError>> {
        fn check<G: Game>(entered: &Entered<'_>) -> Result<(), EntryError> {
            G::check_entered(entered)
        }
        with_games!(on_id! { id, check(entered) })
    }

    /// Why an entered result of game `id` has totals other than its deals' sums
    /// ([`Game::TOTALS_NOT_DEAL_SUMS`]); None for a game whose totals are the sums, or no game.
    pub fn totals_not_deal_sums(id: &str) -> Option<&'static str> {
        fn why<G: Game>() -> Option<&'static str> {
            G::TOTALS_NOT_DEAL_SUMS
        }
        with_games!(on_id! { id, why() }).flatten()
    }

    /// The board of deal `deal` dealt from `seed`, when the game checks real-card duplicate
    /// boards ([`Game::board`]).
    pub fn board(&self, deal: u32, seed: &Seed) -> Option<Board> {
        fn f<G: Game>(g: &G, deal: u32, seed: &Seed) -> Option<Board> {
            g.board(deal, seed)
        }
        each_game!(self, g => f(g, deal, seed))
    }

    /// Whether game `id` (with its default options, `players` seats) checks real-card boards:
    /// duplicate play at tables that deal their own cards.
    pub fn checks_boards(id: &str, config: Option<Value>, players: usize) -> bool {
        AnyGame::new(id, config, players, Dealing::Table)
            .ok()
            .and_then(|g| g.board(1, &Seed([0; 32])))
            .is_some()
    }

    /// The fouls of one deal's standing actions played from `board` ([`Game::board_fouls`]),
    /// each by its index into `actions`. An action the game cannot read shows no card.
    pub fn board_fouls(&self, board: &Board, actions: &[(Actor, &Value)]) -> Vec<BoardFoul> {
        fn f<G: Game>(_: &G, board: &Board, actions: &[(Actor, &Value)]) -> Vec<BoardFoul> {
            // Indices are kept: an unreadable action (never recorded, but the log is data) is
            // skipped, not shifted.
            let read: Vec<(usize, Actor, G::Action)> = actions
                .iter()
                .enumerate()
                .filter_map(|(i, (actor, a))| {
                    serde_json::from_value::<G::Action>((*a).clone())
                        .ok()
                        .map(|a| (i, *actor, a))
                })
                .collect();
            let list: Vec<(Actor, G::Action)> = read
                .iter()
                .map(|(_, actor, a)| (*actor, a.clone()))
                .collect();
            G::board_fouls(board, &list)
                .into_iter()
                .map(|f| BoardFoul {
                    index: read[f.index].0,
                    ..f
                })
                .collect()
        }
        each_game!(self, g => f(g, board, actions))
    }

    /// Whether a seat's legal list is private even in table dealing
    /// ([`Game::LEGAL_LIST_PRIVATE`]).
    pub fn legal_list_private(&self) -> bool {
        fn private<G: Game>(_: &G) -> bool {
            G::LEGAL_LIST_PRIVATE
        }
        each_game!(self, g => private(g))
    }

    /// A new match of game `id`.
    pub fn new(
        id: &str,
        config: Option<Value>,
        players: usize,
        dealing: Dealing,
    ) -> Result<AnyGame, SetupError> {
        with_games!(create_by_id! { id, config.clone(), players, dealing })
    }

    /// The game id.
    pub fn id(&self) -> &'static str {
        fn id<G: Game>(_: &G) -> &'static str {
            G::ID
        }
        each_game!(self, g => id(g))
    }

    /// The options in force, as JSON.
    pub fn config_json(&self) -> Value {
        each_game!(self, g => serde_json::to_value(g.config()).unwrap_or(Value::Null))
    }

    /// Whether the match records scores only (the `scores_only` option of its config): every
    /// round is one table `tally`, and no other action is taken.
    pub fn scores_only(&self) -> bool {
        self.config_json()
            .get("scores_only")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// Who must act now.
    pub fn to_act(&self) -> ToAct {
        each_game!(self, g => g.to_act())
    }

    /// Whether the match is over.
    pub fn is_finished(&self) -> bool {
        let t = self.to_act();
        t.seats.is_empty() && !t.table
    }

    /// What `actor` may do now, as wire JSON.
    pub fn legal_actions(&self, actor: Actor) -> Vec<Value> {
        each_game!(self, g => g
            .legal_actions(actor)
            .iter()
            .map(|a| serde_json::to_value(a).unwrap_or(Value::Null))
            .collect())
    }

    /// The form of the `tally` the table may send now ([`Game::tally_form`]); None once the
    /// match is over.
    pub fn tally_form(&self) -> Option<tally::TallyForm> {
        if self.is_finished() {
            return None;
        }
        each_game!(self, g => g.tally_form())
    }

    /// Checks that `action` is well-formed for this game (400 otherwise) and says whether it is a
    /// deal that needs a service shuffle seed.
    pub fn needs_seed(&self, action: &Value) -> Result<bool, ActionError> {
        fn f<G: Game>(g: &G, action: &Value) -> Result<bool, ActionError> {
            Ok(g.needs_seed(&parse_action::<G>(action)?))
        }
        each_game!(self, g => f(g, action))
    }

    /// Whether `action` is in the vocabulary of some implemented game: the spec's `GameAction`,
    /// the union of them all. Tells an action of another game (422) from a malformed one (400).
    pub fn in_some_vocabulary(action: &Value) -> bool {
        fn parses<G: Game>(action: &Value) -> bool {
            parse_action::<G>(action).is_ok()
        }
        let parsed: Vec<bool> = with_games!(map_games! { parses(action) });
        parsed.into_iter().any(|p| p)
    }

    /// Validates and applies a wire action; on error the state is untouched.
    pub fn apply(
        &mut self,
        actor: Actor,
        action: &Value,
        seed: Option<&Seed>,
    ) -> Result<Outcomes, ActionError> {
        each_game!(self, g => apply_json(g, actor, action, seed))
    }

    /// The public state.
    pub fn table_view(&self) -> Value {
        each_game!(self, g => g.table_view())
    }

    /// The private state of `seat`.
    pub fn seat_view(&self, seat: usize) -> Value {
        each_game!(self, g => g.seat_view(seat))
    }

    /// The public state as JSON text, written straight from the game's model (the match view's
    /// `table`; no `Value` tree on the way, which is most of an answer's cost).
    pub fn table_json(&self) -> Box<RawValue> {
        each_game!(self, g => raw_json(&g.table()))
    }

    /// The private state of `seat` as JSON text (the match view's `you`).
    pub fn seat_json(&self, seat: usize) -> Box<RawValue> {
        each_game!(self, g => raw_json(&g.seat(seat)))
    }

    /// The score sheet.
    pub fn score_sheet(&self) -> ScoreSheet {
        ScoreSheet {
            game: self.id(),
            ..each_game!(self, g => g.score_sheet())
        }
    }

    /// The current round (0 before the first deal).
    pub fn round(&self) -> u32 {
        each_game!(self, g => g.round())
    }

    /// The dealer of the current or next round.
    pub fn dealer(&self) -> Option<usize> {
        each_game!(self, g => g.dealer())
    }

    /// How many rounds are over.
    pub fn rounds_completed(&self) -> u32 {
        each_game!(self, g => g.rounds_completed())
    }

    /// How many lines the score sheet has ([`Game::sheet_lines`]).
    pub fn sheet_lines(&self) -> u32 {
        each_game!(self, g => g.sheet_lines())
    }

    /// Service seeds of rounds up to this one are published (0: none yet): the rounds over, or
    /// with `seed_reveal: match_end` none until the match is over.
    pub fn seeds_published_through(&self) -> u32 {
        match each_game!(self, g => g.seed_reveal()) {
            SeedReveal::MatchEnd if !self.is_finished() => 0,
            _ => self.rounds_completed(),
        }
    }

    /// Why this game never publishes its service shuffle seeds (None: it does, round by round).
    pub fn seed_withheld(&self) -> Option<&'static str> {
        each_game!(self, g => g.seed_withheld())
    }

    /// How a retracted action appears to `viewer` in the log: a sealed choice stays sealed for
    /// ever to everyone but the seat that made it (docs/rules.md#sealed-choices: sealed choices are "revealed
    /// together"; a retracted one never was). The host, though it may record for any seat, is
    /// not that seat: it sees the stub too, as it does for a sealed choice still standing.
    pub fn render_retracted(&self, action: &Value, actor: Actor, viewer: Option<usize>) -> Value {
        fn sealed<G: Game>(g: &G, action: &Value) -> bool {
            serde_json::from_value::<G::Action>(action.clone()).is_ok_and(|a| g.is_sealed(&a))
        }
        let own = actor.seat().is_some() && actor.seat() == viewer;
        if !own && each_game!(self, g => sealed(g, action)) {
            return SealedAction::of(action.get("type").cloned().unwrap_or(Value::Null));
        }
        self.render_action(usize::MAX, action, actor, viewer)
    }

    /// How a recorded action appears to `viewer` in the log.
    pub fn render_action(
        &self,
        index: usize,
        action: &Value,
        actor: Actor,
        viewer: Option<usize>,
    ) -> Value {
        fn f<G: Game>(
            g: &G,
            index: usize,
            action: &Value,
            actor: Actor,
            viewer: Option<usize>,
        ) -> Value {
            match serde_json::from_value::<G::Action>(action.clone()) {
                Ok(a) => g.render_action(index, &a, actor, viewer),
                Err(_) => Value::Null,
            }
        }
        each_game!(self, g => f(g, index, action, actor, viewer))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A real-card board is what service dealing deals: board k of a match whose first dealer is
    /// f is deal 1 of a service-dealt match whose first dealer (Members Only: first player) is
    /// the one of deal k; each hand in print order, every card of the packs somewhere.
    #[test]
    fn a_printed_board_is_the_service_deal_of_the_same_seed_and_dealer() {
        let games: [(&str, &[usize], &str); 5] = [
            ("dump", &[2, 4], "first_dealer"),
            ("clubs", &[3, 4], "first_dealer"),
            ("bonus-malus", &[2, 3, 4], "first_dealer"),
            ("plus-minus", &[2, 4, 5, 8], "first_dealer"),
            ("members-only", &[3, 4, 5], "first_player"),
        ];
        for (id, counts, first) in games {
            for &n in counts {
                for k in 1..=5u32 {
                    let seed = Seed([k as u8 * 37 + n as u8; 32]);
                    let table = AnyGame::new(id, None, n, Dealing::Table).unwrap();
                    let board = table.board(k, &seed).unwrap();
                    // Members Only: heat k's starter is seat k − 1, its dealer the seat on his
                    // right; the others: deal k's dealer is seat k − 1.
                    let first_seat = (k as usize - 1) % n;
                    let dealer = if id == "members-only" {
                        (first_seat + n - 1) % n
                    } else {
                        first_seat
                    };
                    assert_eq!(board.dealer, dealer, "{id} {n} board {k}");
                    let mut service =
                        AnyGame::new(id, Some(json!({ first: first_seat })), n, Dealing::Service)
                            .unwrap();
                    service
                        .apply(Actor::Table, &json!({"type": "deal"}), Some(&seed))
                        .unwrap();
                    for seat in 0..n {
                        let mut hand: Vec<String> = service.seat_view(seat)["hand"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|c| match c {
                                Value::String(s) => s.clone(),
                                other => other.to_string(),
                            })
                            .collect();
                        if matches!(id, "dump" | "clubs" | "bonus-malus") {
                            hand =
                                cards::printed(hand.iter().map(|c| c.parse().unwrap()).collect());
                        }
                        assert_eq!(board.hands[seat], hand, "{id} {n} board {k} seat {seat}");
                    }
                    let dealt: usize = board.hands.iter().map(Vec::len).sum();
                    let rest = board.undealt.len() + board.layout.len() + board.stock.len();
                    let pack = match id {
                        "dump" => 40,
                        "members-only" => 65,
                        "plus-minus" if n >= 5 => 88,
                        "plus-minus" => 44,
                        _ => 52,
                    };
                    assert_eq!(dealt + rest, pack, "{id} {n}");
                    let t = service.table_view();
                    match id {
                        // The stock's top card shows the first trump.
                        "bonus-malus" => {
                            assert_eq!(board.stock.len(), 52 - 7 * n);
                            let top: cards::Card = board.stock[0].parse().unwrap();
                            assert_eq!(t["trump"], top.suit().letter().to_string());
                        }
                        "members-only" => {
                            let mut face: Vec<String> = t["face_up"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(|c| c.as_str().unwrap().to_string())
                                .collect();
                            face.sort_by_key(|c| c.parse::<members_only::Card>().unwrap());
                            assert_eq!(board.layout, face);
                        }
                        _ => assert!(board.layout.is_empty() && board.stock.is_empty()),
                    }
                }
            }
        }
        for id in ["dump", "clubs", "bonus-malus", "plus-minus", "members-only"] {
            assert!(AnyGame::checks_boards(id, None, 4), "{id}");
        }
        assert!(!AnyGame::checks_boards("by-hook-or-crook", None, 4));
        // P.M. values by value, lowest (MINUS) first; Members Only by category, NO! after.
        let pm = AnyGame::new("plus-minus", None, 3, Dealing::Table)
            .unwrap()
            .board(1, &Seed([9; 32]))
            .unwrap();
        for h in pm.hands.iter().chain([&pm.undealt]) {
            let v: Vec<i32> = h.iter().map(|c| c.parse().unwrap()).collect();
            assert!(v.windows(2).all(|w| w[0] <= w[1]), "{v:?}");
        }
        let clubs = AnyGame::new("clubs", None, 4, Dealing::Table).unwrap();
        let board = clubs.board(1, &Seed([1; 32])).unwrap();
        let card = board.hands[0][0].clone();
        let play = |c: &str| json!({"type": "play", "card": c});
        let other = board.hands[1][0].clone();
        assert_eq!(
            clubs.board_fouls(
                &board,
                &[
                    (Actor::Seat(0), &play(&card)),
                    (Actor::Table, &json!({"type": "deal"})),
                    (Actor::Seat(0), &play(&other))
                ]
            ),
            vec![BoardFoul {
                index: 2,
                seat: 0,
                card: other,
                face_up: false
            }]
        );
    }

    /// Members Only: the face-up pair the table records is the board's layout, in any order; a
    /// card that is not fouls the board in the dealer's name; reveals are counted.
    #[test]
    fn members_only_checks_the_face_up_pair_and_counts_the_reveals() {
        let mo = AnyGame::new("members-only", None, 3, Dealing::Table).unwrap();
        let board = mo.board(2, &Seed([5; 32])).unwrap();
        let (a, b) = (board.layout[0].clone(), board.layout[1].clone());
        let other = ["umbrella", "crown", "teacup", "big_ben", "hat"]
            .into_iter()
            .find(|c| *c != a && *c != b)
            .unwrap();
        let deal = |x: &str, y: &str| json!({"type": "deal", "face_up": [x, y]});
        assert_eq!(
            mo.board_fouls(&board, &[(Actor::Table, &deal(&b, &a))]),
            vec![]
        );
        assert_eq!(
            mo.board_fouls(&board, &[(Actor::Table, &deal(&a, other))]),
            vec![BoardFoul {
                index: 0,
                seat: board.dealer,
                card: other.to_string(),
                face_up: true
            }]
        );
        // A seat reveals every copy of a card it holds, and one more: the extra one fouls.
        let seat = (board.dealer + 1) % 3;
        let card = board.hands[seat][0].clone();
        let held = board.hands[seat].iter().filter(|c| **c == card).count();
        let turns: Vec<Value> = (0..=held / 2)
            .map(|_| json!({"type": "turn", "reveal": [card, card]}))
            .collect();
        let actions: Vec<(Actor, &Value)> = turns.iter().map(|t| (Actor::Seat(seat), t)).collect();
        let fouls = mo.board_fouls(&board, &actions);
        assert_eq!(fouls.len(), (held / 2 + 1) * 2 - held);
        assert!(fouls
            .iter()
            .all(|f| f.seat == seat && f.card == card && f.index == held / 2 && !f.face_up));
    }

    /// Bonus-Malus: a seat holds what it was dealt and what it drew, the draws fixed by the
    /// board's stock and the tricks' winners. A service-dealt match's plays, recorded at a table
    /// (its trumps as the table sees them), show no foul; a card drawn by another seat does.
    #[test]
    fn bonus_malus_draws_from_the_boards_stock() {
        for n in [2usize, 3, 4] {
            let seed = Seed([n as u8 * 11; 32]);
            let table = AnyGame::new("bonus-malus", None, n, Dealing::Table).unwrap();
            let board = table.board(1, &seed).unwrap();
            let mut service = AnyGame::new("bonus-malus", None, n, Dealing::Service).unwrap();
            let mut log: Vec<(Actor, Value)> = vec![];
            service
                .apply(Actor::Table, &json!({"type": "deal"}), Some(&seed))
                .unwrap();
            log.push((
                Actor::Table,
                json!({"type": "deal", "trump": service.table_view()["trump"]}),
            ));
            while service.rounds_completed() == 0 {
                let seat = service.to_act().seats[0];
                let action = service.legal_actions(Actor::Seat(seat))[0].clone();
                let tricks = service.table_view()["tricks"]
                    .as_array()
                    .map_or(0, Vec::len);
                service.apply(Actor::Seat(seat), &action, None).unwrap();
                log.push((Actor::Seat(seat), action.clone()));
                let t = service.table_view();
                let done = t["tricks"].as_array().map_or(0, Vec::len) > tricks;
                if done && t["stock"].as_u64().is_some_and(|s| s > 0) {
                    // The trick's draws are made and the stock still serves: the table records
                    // the suit now on top.
                    log.push((
                        Actor::Table,
                        json!({"type": "stock_top", "suit": t["trump"]}),
                    ));
                }
            }
            let actions: Vec<(Actor, &Value)> = log.iter().map(|(a, v)| (*a, v)).collect();
            assert_eq!(table.board_fouls(&board, &actions), vec![], "{n} players");
            // The stock's first card goes to the first trick's winner: played by anyone else, a
            // foul.
            let first = board.stock[0].clone();
            let winner_plays: Vec<usize> = log
                .iter()
                .enumerate()
                .filter(|(_, (_, a))| a["card"] == first.as_str())
                .map(|(i, _)| i)
                .collect();
            assert_eq!(winner_plays.len(), 1, "{first} played once");
            let i = winner_plays[0];
            let Actor::Seat(holder) = log[i].0 else {
                panic!()
            };
            let mut forged = log.clone();
            forged[i].0 = Actor::Seat((holder + 1) % n);
            let actions: Vec<(Actor, &Value)> = forged.iter().map(|(a, v)| (*a, v)).collect();
            let fouls = table.board_fouls(&board, &actions);
            assert_eq!(
                fouls.first(),
                Some(&BoardFoul {
                    index: i,
                    seat: (holder + 1) % n,
                    card: first.clone(),
                    face_up: false
                }),
                "{n}"
            );
        }
    }

    #[test]
    fn the_games_facts_come_from_each_game() {
        // Duplicate play deals every game but By Hook or Crook (one deal of collection cards,
        // not compared deal by deal), in catalogue order.
        // (With the `test-game` feature, the eighth-game proof's throwaway game, "odd-or-even",
        // follows the six games in every list: tests/eighth_game.rs checks its facts.)
        let test_game = |id: &str| id == "odd-or-even";
        let six = |ids: Vec<&'static str>| -> Vec<&'static str> {
            ids.into_iter().filter(|&id| !test_game(id)).collect()
        };
        assert_eq!(
            six(AnyGame::duplicate_games()),
            ["dump", "members-only", "clubs", "bonus-malus", "plus-minus"]
        );
        // docs/rules.md's player counts, as a new match with the default options takes them (Dump: 2
        // or 4; By Hook or Crook: 2 with its two-player variant, on by default), and no other count.
        let rules: [(&str, &[usize]); 6] = [
            ("dump", &[2, 4]),
            ("members-only", &[3, 4, 5]),
            ("clubs", &[3, 4]),
            ("bonus-malus", &[2, 3, 4]),
            ("plus-minus", &[2, 3, 4, 5, 6, 7, 8]),
            ("by-hook-or-crook", &[2, 3, 4, 5]),
        ];
        let ids: Vec<&str> = AnyGame::catalogue().iter().map(|g| g.id).collect();
        assert_eq!(six(ids), rules.map(|(id, _)| id));
        for (id, counts) in rules {
            let range = AnyGame::player_counts(id).unwrap();
            let taken: Vec<usize> = (0..=20)
                .filter(|&n| AnyGame::new(id, None, n, Dealing::Table).is_ok())
                .collect();
            assert_eq!(taken, counts, "{id}");
            assert!(taken.iter().all(|n| range.contains(n)), "{id}");
        }
        assert_eq!(AnyGame::player_counts("chess"), None);
        // Only By Hook or Crook's legal lists show sealed choices; only Members Only's entered
        // totals are not its deals' sums.
        for g in AnyGame::catalogue().iter().filter(|g| !test_game(g.id)) {
            let n = AnyGame::player_counts(g.id).unwrap().max().unwrap();
            let game = AnyGame::new(g.id, None, n, Dealing::Table).unwrap();
            assert_eq!(game.legal_list_private(), g.id == "by-hook-or-crook");
            assert_eq!(
                AnyGame::totals_not_deal_sums(g.id).is_some(),
                g.id == "members-only"
            );
        }
        assert_eq!(
            AnyGame::check_entered(
                "chess",
                &Entered {
                    config: &Value::Null,
                    units: 2,
                    totals: &[1, 2],
                    deals: &[]
                }
            ),
            None
        );
    }

    #[test]
    fn a_hidden_refusal_is_one_not_playable_answer_to_anyone_but_the_seat() {
        let ace: cards::Card = "AS".parse().unwrap();
        let not_held = Rejection::from_rule(dump::DumpError::CardNotInHand { seat: 1, card: ace });
        let follow = Rejection::from_rule(dump::DumpError::MustFollowSuit {
            seat: 1,
            card: ace,
            led: cards::Suit::H,
            led_name: "hearts",
        });
        let turn = Rejection::from_rule(dump::DumpError::NotYourTurn {
            expected: 0,
            got: 1,
        });
        // The seat's own token (or anyone in table dealing) is told the rule, and its facts.
        assert_eq!(
            not_held.told(Some(1), true),
            Told {
                code: "card_not_in_hand",
                detail: "seat 2 does not hold AS".to_string(),
                fields: ProblemFields::seat(1).with_card(ace),
            }
        );
        assert_eq!(
            follow.told(Some(1), true),
            Told {
                code: "must_follow_suit",
                detail: "seat 2 holds hearts and must follow suit (H was led)".to_string(),
                fields: ProblemFields::seat(1)
                    .with_card(ace)
                    .with_suit(cards::Suit::H),
            }
        );
        // Anyone else: one answer for both, naming neither the card nor the rule; its only
        // fact is the seat its detail names.
        let hidden = Told {
            code: NOT_PLAYABLE,
            detail: not_playable_detail(1),
            fields: ProblemFields::seat(1),
        };
        assert_eq!(not_held.told(Some(1), false), hidden);
        assert_eq!(follow.told(Some(1), false), hidden);
        assert!(!hidden.detail.contains("AS") && !hidden.detail.contains("heart"));
        // A public refusal is the same for everyone.
        assert_eq!(turn.told(Some(1), false), turn.told(Some(1), true));
        assert_eq!(turn.told(Some(1), false).code, "not_your_turn");
        assert_eq!(*turn.fields, ProblemFields::turn(0, 1));
        // Details name seats 1-based, as the table page does (the JSON's `seat` stays 0-based).
        assert_eq!(turn.message, "it is seat 1's turn to play, not seat 2's");
        assert!(
            hidden.detail.starts_with("seat 2 cannot do this: "),
            "{}",
            hidden.detail
        );
    }

    #[test]
    fn a_retracted_sealed_choice_shows_only_to_its_seat_and_a_public_action_to_all() {
        let bhoc = AnyGame::new("by-hook-or-crook", None, 3, Dealing::Service).unwrap();
        for action in [
            json!({"type": "location", "place": "castle"}),
            json!({"type": "choose", "card": "exhibit"}),
            json!({"type": "exhibit", "cards": ["A1500", "A1560", "B1507"]}),
            json!({"type": "final_exhibit", "cards": ["A1500", "A1560", "B1507"]}),
        ] {
            let stub = json!({"type": action["type"], "sealed": true});
            for viewer in [None, Some(0), Some(2)] {
                assert_eq!(bhoc.render_retracted(&action, Actor::Seat(1), viewer), stub);
            }
            assert_eq!(
                bhoc.render_retracted(&action, Actor::Seat(1), Some(1)),
                action
            );
        }
        let buy = json!({"type": "buy", "pile": 0});
        assert_eq!(bhoc.render_retracted(&buy, Actor::Seat(1), None), buy);
        let mo = AnyGame::new("members-only", None, 3, Dealing::Service).unwrap();
        let fin = json!({"type": "final", "discard": "hat", "reveal": ["crown", "hat:no"]});
        assert_eq!(
            mo.render_retracted(&fin, Actor::Seat(0), Some(1)),
            json!({"type": "final", "sealed": true})
        );
        assert_eq!(
            mo.seed_withheld().map(|w| w.contains("discard")),
            Some(true)
        );
        let dump = AnyGame::new("dump", None, 2, Dealing::Service).unwrap();
        let play = json!({"type": "play", "card": "AS"});
        assert_eq!(dump.render_retracted(&play, Actor::Seat(0), None), play);
        assert_eq!(dump.seed_withheld(), None);
    }
}

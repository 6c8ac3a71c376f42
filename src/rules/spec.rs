//! The spec's unions of the registered games' models (`GameAction`, `GameTable`, `GameSeat`,
//! `GameOutcome`, `GameRoundDetail`, `LoggedAction`) and the option schemas, expanded from the
//! game registry (`with_games!`) next to it, so that the engines and the match service name them
//! without reaching into the HTTP layer. `routes/spec.rs` registers them in the document and
//! settles their branches' order.

use serde::Serialize;
use utoipa::{
    openapi::{
        schema::{AnyOf, Ref, Schema},
        RefOr,
    },
    ToSchema,
};

use super::{members_only, with_games, Game};

/// Defines a union of one model per registered game (`with_games!`): a marker type whose schema
/// is the `anyOf` of every game's `Game::$model` (references; the models themselves, and what they
/// refer to, are registered with it), plus `$extra` models. The order of the branches is settled
/// in [`finish`] (see [`order_union`]).
macro_rules! game_union {
    ({ $name:ident, $model:ident, [$($extra:ty),*], $doc:literal }
     $($variant:ident($module:ident :: $game:ident),)*) => {
        #[doc = $doc]
        #[derive(Serialize)]
        pub struct $name;

        impl utoipa::PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                let mut any = AnyOf::new();
                $(any.items.push(RefOr::Ref({
                    let mut r = Ref::from_schema_name(
                        <<crate::rules::$module::$game as Game>::$model as ToSchema>::name(),
                    );
                    r.description = <crate::rules::$module::$game as Game>::TITLE.into();
                    r
                }));)*
                $(any.items.push(RefOr::Ref(Ref::from_schema_name(<$extra as ToSchema>::name())));)*
                any.description = Some($doc.into());
                Schema::AnyOf(any).into()
            }
        }

        impl ToSchema for $name {
            fn schemas(out: &mut Vec<(String, RefOr<Schema>)>) {
                $(register::<<crate::rules::$module::$game as Game>::$model>(out);)*
                $(register::<$extra>(out);)*
            }
        }
    };
}

/// Adds `T`'s schema, and those it refers to, to `out`.
fn register<T: ToSchema>(out: &mut Vec<(String, RefOr<Schema>)>) {
    out.push((T::name().into_owned(), T::schema()));
    T::schemas(out);
}

with_games!(game_union! {
    GameAction, Action, [],
    "An action of the match's game: `{type, ...}`, one of the actions of that game's vocabulary (`GET /v1/games` lists the games)."
});
with_games!(game_union! {
    GameTable, Table, [],
    "A game's public state (`table` in the match view): one model per game."
});
with_games!(game_union! {
    GameSeat, Seat, [],
    "A seat's private state (`you` in the match view): one model per game."
});
with_games!(game_union! {
    GameOutcome, Outcome, [crate::matches::views::UndoOutcome],
    "One thing an event produced (`outcome` in the log): the game's outcomes, or an undo's."
});
with_games!(game_union! {
    GameRoundDetail, RoundDetail, [],
    "The raw figures of a scored round (`detail` of a score sheet round): one model per game."
});

/// The options of a game (`config` of a new match), one model per game: registered so that the
/// spec documents each game's options (a new match's `config` is checked by its game: 422
/// `invalid_config`).
macro_rules! game_configs {
    ({} $($variant:ident($module:ident :: $game:ident),)*) => {
        pub(crate) fn game_configs(out: &mut Vec<(String, RefOr<Schema>)>) {
            $(register::<<crate::rules::$module::$game as Game>::Config>(out);)*
        }
    };
}
with_games!(game_configs! {});

/// An action as the log shows it to one viewer (`EventView.action`): the action as recorded, or,
/// where it is private to its seat, what this viewer may see of it.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum LoggedAction {
    /// A sealed choice not revealed to this viewer (By Hook or Crook's locations, cards and
    /// exhibits, Members Only's final choices; a retracted one for ever): only its type. (First:
    /// Members Only's `final` action has no required field but its type.)
    Sealed(crate::rules::SealedAction),
    /// Members Only: a final choice once revealed, to anyone but its seat: the discard withheld.
    MembersOnlyFinal(members_only::MembersOnlyFinalShown),
    /// The action as recorded (every public action, and a seat's own actions to that seat).
    Action(GameAction),
}

/// The unions of one model per game (`game_union!`), whose order [`order_union`] settles.
pub(crate) const GAME_UNIONS: &[&str] = &[
    "GameAction",
    "GameTable",
    "GameSeat",
    "GameOutcome",
    "GameRoundDetail",
];

//! The OpenAPI document: its `info`, the bearer scheme, and the union of every game's action
//! vocabulary (so the spec shows each game's actions).

use serde::Serialize;
use utoipa::{
    openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme},
    Modify, OpenApi, ToSchema,
};

use crate::rules::{bonus_malus, by_hook_or_crook, clubs, dump, members_only, plus_minus};

/// An action of the match's game: `{type, ...}`. Which variants apply depends on the game.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum GameAction {
    /// Dump: `deal`, `play {card}`, `tally {points}`.
    Dump(dump::Action),
    /// Clubs: `deal`, `play {card, declare?}`, `tally {taken}`.
    Clubs(clubs::Action),
    /// Bonus-Malus: `deal {trump?}`, `stock_top {suit}`, `play {card}`, `tally {taken}`.
    BonusMalus(bonus_malus::Action),
    /// Members Only: `deal {face_up?}`, `turn {bet, reveal}`, `final {discard?, reveal}`.
    MembersOnly(members_only::Action),
    /// P.M.: `deal`, `play {card, from}`, `tally {men}`.
    PlusMinus(plus_minus::Action),
    /// By Hook or Crook: `deal`, `location`, `choose`, `buy`, `reveal_pile`, `exhibit`, `steal`,
    /// `final_exhibit`.
    ByHookOrCrook(by_hook_or_crook::actions::Action),
}

struct BearerScheme;

impl Modify for BearerScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("A match's host token or one of its seat tokens, as returned once at creation"))
                    .build(),
            ),
        );
    }
}

/// The document's fixed parts; the paths are collected from the routes.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Clubroom",
        version = "1.0.0",
        description = "A companion for a real card or board game table: record each deal, bet, card and reveal; Clubroom checks every action against the game's rules, keeps the score across rounds and keeps a complete, undoable log.\n\nErrors are RFC 9457 `application/problem+json` with a stable `code`.",
        license(name = "MIT", identifier = "MIT")
    ),
    modifiers(&BearerScheme),
    components(schemas(
        GameAction,
        crate::error::Problem,
        dump::DumpConfig,
        clubs::ClubsConfig,
        bonus_malus::BonusMalusConfig,
        members_only::MembersOnlyConfig,
        plus_minus::PlusMinusConfig,
        by_hook_or_crook::config::BhocConfig
    )),
    tags(
        (name = "matches", description = "Matches, their actions, log and scores"),
        (name = "games", description = "The game catalogue"),
        (name = "service", description = "Service health")
    )
)]
pub struct ApiDoc;

/// The parts of the document that the derive macros cannot express, applied once the routes have
/// added their paths (so after `ApiDoc`'s own modifiers).
pub fn finish(api: &mut utoipa::openapi::OpenApi) {
    optional_bodies_without_null(api);
}

/// utoipa writes an optional request body (`Option<T>`, the undo's) as `oneOf: [T, null]`, not
/// required. The absence of a body is already what `required: false` says; the extra `null`
/// only misleads generated clients: openapi-python-client 0.29 sends the "unset" marker as the
/// JSON body when the body is left out (`TypeError: Object of type Unset is not JSON
/// serializable`). An optional body is `T` when present.
fn optional_bodies_without_null(api: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::{schema::Schema, RefOr, Required};
    let is_null = |s: &RefOr<Schema>| {
        serde_json::to_value(s).ok() == Some(serde_json::json!({"type": "null"}))
    };
    for item in api.paths.paths.values_mut() {
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ];
        for op in operations.into_iter().flatten() {
            let Some(RefOr::T(body)) = op.request_body.as_mut() else {
                continue;
            };
            if body.required == Some(Required::True) {
                continue;
            }
            for content in body.content.values_mut() {
                let RefOr::T(content) = content else { continue };
                let Some(RefOr::T(Schema::OneOf(one))) = &content.schema else {
                    continue;
                };
                if let [a, b] = one.items.as_slice() {
                    let present = match (is_null(a), is_null(b)) {
                        (false, true) => a.clone(),
                        (true, false) => b.clone(),
                        _ => continue,
                    };
                    content.schema = Some(present);
                }
            }
        }
    }
}

//! The OpenAPI document: its `info`, the bearer scheme, links, and the finishing touches the
//! derive macros cannot express. The unions of the games' models it lists are built next to the
//! game registry (`rules::spec`).

use utoipa::{
    openapi::{
        link::Link,
        schema::{AdditionalProperties, AnyOf, Schema},
        security::{HttpAuthScheme, HttpBuilder, SecurityScheme},
        RefOr,
    },
    Modify, OpenApi,
};

use crate::rules::spec::{
    game_configs, GameAction, GameOutcome, GameRoundDetail, GameSeat, GameTable, LoggedAction,
    GAME_UNIONS,
};

/// The derived unions that utoipa writes `oneOf` and the spec writes `anyOf` (see [`finish`]); the
/// game unions (`game_union!`) are built `anyOf`.
const DERIVED_UNIONS: &[&str] = &["LoggedAction"];

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
        GameTable,
        GameSeat,
        GameOutcome,
        GameRoundDetail,
        LoggedAction,
        crate::error::Problem
    )),
    tags(
        (name = "matches", description = "Matches, their actions, log and scores"),
        (name = "games", description = "The game catalogue"),
        (name = "tournaments", description = "Players, tournaments, rounds and tables, results, standings, ratings and exports"),
        (name = "club", description = "The club's memory: a player's statistics across every match and tournament, club ratings per game, leaderboards, seasons, merging records"),
        (name = "service", description = "Service health"),
        (name = "webhooks", description = "Webhooks of a match or a tournament: signed deliveries of its events, the delivery log, redelivery")
    )
)]
pub struct ApiDoc;

/// The operations a new match leads to: `links` of `POST /v1/matches` 201, for clients and for
/// stateful testers (schemathesis follows them: create a match, then act on it). The match id
/// comes from the answer's body; the operations that need a token take the answer's `host_token`
/// as `Authorization: Bearer <host_token>` (the bearer scheme, not a parameter, so it is named in
/// each link's description).
/// What a created tournament links to.
const TOURNAMENT_LINKS: &[(&str, &str, &str)] = &[
    ("GetTournament", "get_tournament", "The tournament"),
    (
        "PairRound",
        "pair_round",
        "Pair the next round (Authorization: Bearer <organiser_token>)",
    ),
    ("Standings", "standings", "The standings"),
    ("Export", "export_file", "An export"),
];

const MATCH_LINKS: &[(&str, &str, &str)] = &[
    ("GetMatch", "get_match", "The match view"),
    (
        "RecordAction",
        "record_action",
        "Record an action (Authorization: Bearer <host_token>)",
    ),
    ("Legal", "legal", "What may be done now"),
    ("Events", "list_events", "The log"),
    ("Scores", "scores", "The score sheet"),
    ("ScoresCsv", "scores_csv", "The score sheet as CSV"),
    (
        "Undo",
        "undo",
        "Retract the last action (Authorization: Bearer <host_token>)",
    ),
];

/// The parts of the document that the derive macros cannot express, applied once the routes have
/// added their paths (so after `ApiDoc`'s own modifiers):
/// - `GameAction` is the union of every game's vocabulary, and a `deal` belongs to several games:
///   `anyOf`, not `oneOf` (an action valid for two games is still valid). The same for the unions
///   of the games' views (`GameTable`, `GameSeat`, `GameOutcome`, `GameRoundDetail`): a value is
///   one game's model, and may fit another game's too.
/// - Each game's action variants reject unknown fields (`deny_unknown_fields`), which utoipa does
///   not carry over to internally tagged enum variants: `additionalProperties: false` on each.
///   Each outcome variant is a closed object too (what the engine writes, nothing more).
/// - `CreateMatch.game` lists the implemented games (`GET /v1/games`); another id is 422
///   `unknown_game`.
/// - The `links` from a created match, tournament or player to the operations on it.
pub fn finish(api: &mut utoipa::openapi::OpenApi) {
    optional_bodies_without_null(api);
    if let Some(components) = api.components.as_mut() {
        let mut configs = Vec::new();
        game_configs(&mut configs);
        components.schemas.extend(configs);
        for (name, schema) in components.schemas.iter_mut() {
            let RefOr::T(schema) = schema else { continue };
            if DERIVED_UNIONS.contains(&name.as_str()) {
                if let Schema::OneOf(one) = schema {
                    let mut any = AnyOf::new();
                    any.items = std::mem::take(&mut one.items);
                    any.description = one.description.take();
                    *schema = Schema::AnyOf(any);
                }
            } else if name == "CreateMatch" {
                // The implemented games, from the catalogue itself (a new game joins the enum).
                if let Schema::Object(create) = schema {
                    if let Some(RefOr::T(Schema::Object(game))) = create.properties.get_mut("game")
                    {
                        game.enum_values = Some(
                            crate::rules::AnyGame::catalogue()
                                .into_iter()
                                .map(|g| g.id.into())
                                .collect(),
                        );
                    }
                }
            } else if name.ends_with("Action") || name.ends_with("Outcome") {
                if let Schema::OneOf(one) = schema {
                    for variant in &mut one.items {
                        if let RefOr::T(Schema::Object(object)) = variant {
                            object.additional_properties =
                                Some(Box::new(AdditionalProperties::FreeForm(false)));
                        }
                    }
                }
            }
        }
    }
    if let Some(components) = api.components.as_mut() {
        let all = serde_json::to_value(&components.schemas).unwrap_or_default();
        for name in GAME_UNIONS {
            if let Some(RefOr::T(Schema::AnyOf(any))) = components.schemas.get_mut(*name) {
                let order =
                    order_union(&all, &serde_json::to_value(&any.items).unwrap_or_default());
                let mut items: Vec<Option<RefOr<Schema>>> = std::mem::take(&mut any.items)
                    .into_iter()
                    .map(Some)
                    .collect();
                any.items = order.into_iter().filter_map(|i| items[i].take()).collect();
            }
        }
    }
    add_links(api, "/v1/matches", "$response.body#/match/id", MATCH_LINKS);
    add_links(
        api,
        "/v1/tournaments",
        "$response.body#/tournament/id",
        TOURNAMENT_LINKS,
    );
    add_links(
        api,
        "/v1/players",
        "$response.body#/id",
        &[("GetPlayer", "get_player", "The player")],
    );
    browser_headers(api);
}

/// The creates whose answer an `Idempotency-Key` replays; the first three need no token and
/// are rate-limited per client (`crate::limits`).
const CREATES: [&str; 4] = [
    "/v1/matches",
    "/v1/players",
    "/v1/tournaments",
    "/v1/tournaments/{id}/rounds",
];

/// The headers the app adds around the handlers (`crate::app`), documented on every operation
/// that answers them: `WWW-Authenticate` on every 401; on the creates the `Idempotency-Key`
/// parameter, `Idempotent-Replayed`, the 409s of a key, and on the tokenless ones the
/// `RateLimit-*` headers (201 and 429) and `Retry-After` (429).
fn browser_headers(api: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::{
        header::HeaderBuilder,
        path::{ParameterBuilder, ParameterIn},
        schema::{ObjectBuilder, Type},
        Required, ResponseBuilder,
    };
    let string = || ObjectBuilder::new().schema_type(Type::String).build();
    let integer = || {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(0))
            .build()
    };
    let header = |schema: utoipa::openapi::schema::Object, description: &str| {
        RefOr::T(
            HeaderBuilder::new()
                .schema(Some(schema))
                .description(Some(description))
                .build(),
        )
    };
    let rate_limit = [
        ("RateLimit-Limit", "Tokenless creates this client may make at once (its burst; draft-ietf-httpapi-ratelimit-headers-06)"),
        ("RateLimit-Remaining", "Tokenless creates it may still make at once"),
        ("RateLimit-Reset", "Seconds until its whole burst is back"),
    ];
    for (path, item) in api.paths.paths.iter_mut() {
        let create = CREATES.contains(&path.as_str());
        let tokenless = create && path != "/v1/tournaments/{id}/rounds";
        let ops = [
            item.get.as_mut(),
            item.put.as_mut(),
            item.post.as_mut(),
            item.delete.as_mut(),
        ];
        for op in ops.into_iter().flatten() {
            for (status, response) in op.responses.responses.iter_mut() {
                let RefOr::T(response) = response else {
                    continue;
                };
                if status == "401" {
                    response.headers.insert(
                        "WWW-Authenticate".into(),
                        header(string(), "`Bearer realm=\"clubroom\"`; with `error=\"invalid_token\"` when the bearer token sent is not valid here, `error=\"invalid_request\"` when the Authorization header is not a bearer token (RFC 6750)"),
                    );
                }
                if tokenless && (status == "201" || status == "429") {
                    for (name, description) in rate_limit {
                        response
                            .headers
                            .insert(name.into(), header(integer(), description));
                    }
                }
                if create && status == "201" {
                    response.headers.insert(
                        "Idempotent-Replayed".into(),
                        header(string(), "`true` when this is the stored answer to an earlier request with the same Idempotency-Key"),
                    );
                }
            }
        }
        if !create {
            continue;
        }
        let Some(op) = item.post.as_mut() else {
            continue;
        };
        let (min, description) = if tokenless {
            (
                crate::routes::idempotent::TOKENLESS_MIN_KEY,
                "A retry with the same key and the same body gets the first answer again (same status, body and `Location`, `Idempotent-Replayed: true`), and nothing is created twice; the same key with another body is 409 `idempotency_key_reused`. This create needs no token, so the key alone guards its answer (which may hold tokens): 16 to 255 visible ASCII characters, a random UUID (shorter: 400 `invalid_idempotency_key`)",
            )
        } else {
            (
                1,
                "A retry with the same key and the same token gets the first answer again (`Idempotent-Replayed: true`) and pairs nothing more; the same key with another token is 409 `idempotency_key_reused`. 1 to 255 visible ASCII characters (else 400 `invalid_idempotency_key`)",
            )
        };
        op.parameters.get_or_insert_with(Vec::new).push(RefOr::T(
            ParameterBuilder::new()
                .name("Idempotency-Key")
                .parameter_in(ParameterIn::Header)
                .required(Required::False)
                .description(Some(description))
                .schema(Some(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .min_length(Some(min))
                        .max_length(Some(255))
                        .pattern(Some("^[!-~]([ -~]*[!-~])?$"))
                        .build(),
                ))
                .build(),
        ));
        let problem = || {
            utoipa::openapi::ContentBuilder::new()
                .schema(Some(utoipa::openapi::Ref::from_schema_name("Problem")))
                .build()
        };
        op.responses.responses.entry("409".into()).or_insert_with(|| {
            RefOr::T(
                ResponseBuilder::new()
                    .description("`idempotency_key_reused`: the Idempotency-Key was used with another request; `idempotency_key_in_flight`: the first request with it is still being answered (with `Retry-After`)")
                    .content("application/problem+json", problem())
                    .build(),
            )
        });
        if let Some(RefOr::T(conflict)) = op.responses.responses.get_mut("409") {
            if !conflict.description.contains("idempotency_key_reused") {
                conflict.description.push_str("; `idempotency_key_reused`: the Idempotency-Key was used with another request; `idempotency_key_in_flight`: the first request with it is still being answered");
            }
        }
        let bad_key = "`invalid_idempotency_key`";
        match op.responses.responses.get_mut("400") {
            Some(RefOr::T(bad)) => {
                if !bad.description.contains(bad_key) {
                    bad.description.push_str(&format!("; {bad_key}"));
                }
            }
            _ => {
                op.responses.responses.insert(
                    "400".into(),
                    RefOr::T(
                        ResponseBuilder::new()
                            .description(bad_key)
                            .content("application/problem+json", problem())
                            .build(),
                    ),
                );
            }
        }
    }
}

/// The order of a union's branches (indices into `branches`, a JSON array of schemas or
/// references into `components`) for generated clients that take the first model whose required
/// fields are present (openapi-python-client does, ignoring `additionalProperties`): a branch
/// comes before another when one of its models requires all that one of the other's requires and
/// more (and their `type`s can be the same), so that the more specific model is tried first.
/// Otherwise the registry's order stands. JSON Schema's `anyOf` does not depend on it. Shapes that
/// are the same in two games (Dump's and Bonus-Malus' seats; a `revoke`, a `match_finished`;
/// P.M.'s and Dump's `dealt`) cannot be told apart by any client: the match's `game` says which
/// game's model it is. `tests/typed_views.rs` checks the outcome.
fn order_union(components: &serde_json::Value, branches: &serde_json::Value) -> Vec<usize> {
    use serde_json::Value;
    use std::collections::BTreeSet;
    fn resolve<'a>(components: &'a Value, s: &'a Value) -> &'a Value {
        match s["$ref"].as_str() {
            Some(r) => &components[r.trim_start_matches("#/components/schemas/")],
            None => s,
        }
    }
    fn leaves<'a>(components: &'a Value, s: &'a Value, out: &mut Vec<&'a Value>) {
        let s = resolve(components, s);
        match s["oneOf"].as_array().or(s["anyOf"].as_array()) {
            Some(items) => items.iter().for_each(|i| leaves(components, i, out)),
            None => out.push(s),
        }
    }
    let required = |s: &Value| -> BTreeSet<String> {
        serde_json::from_value(s["required"].clone()).unwrap_or_default()
    };
    let tags = |s: &Value| -> Option<Vec<Value>> {
        resolve(components, &s["properties"]["type"])["enum"]
            .as_array()
            .cloned()
    };
    let branches: Vec<Vec<&Value>> = branches
        .as_array()
        .map(|b| {
            b.iter()
                .map(|s| {
                    let mut out = Vec::new();
                    leaves(components, s, &mut out);
                    out
                })
                .collect()
        })
        .unwrap_or_default();
    // first[y][x]: branch y must come before branch x.
    let n = branches.len();
    let mut first = vec![vec![false; n]; n];
    for (y, ys) in branches.iter().enumerate() {
        for (x, xs) in branches.iter().enumerate() {
            first[y][x] = x != y
                && ys.iter().any(|b| {
                    xs.iter().any(|a| {
                        let disjoint = matches!((tags(a), tags(b)),
                            (Some(ta), Some(tb)) if !ta.iter().any(|t| tb.contains(t)));
                        let (ra, rb) = (required(a), required(b));
                        !disjoint && ra.is_subset(&rb) && ra != rb
                    })
                });
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut placed = vec![false; n];
    while order.len() < n {
        let ready = (0..n).find(|&x| !placed[x] && (0..n).all(|y| placed[y] || !first[y][x]));
        // A cycle (no order serves every client) leaves the rest in the registry's order.
        let next = ready.unwrap_or_else(|| (0..n).find(|&x| !placed[x]).unwrap_or(0));
        placed[next] = true;
        order.push(next);
    }
    order
}

/// Links from the 201 answer of `POST path` to the operations on what it created, whose `id`
/// is at `id` in the answer.
fn add_links(
    api: &mut utoipa::openapi::OpenApi,
    path: &str,
    id: &str,
    links: &[(&str, &str, &str)],
) {
    let created = api
        .paths
        .paths
        .get_mut(path)
        .and_then(|item| item.post.as_mut())
        .and_then(|op| op.responses.responses.get_mut("201"));
    if let Some(RefOr::T(response)) = created {
        for (name, operation, description) in links {
            let link = Link::builder()
                .operation_id(*operation)
                .parameter("path.id", id)
                .description(*description)
                .build();
            response.links.insert((*name).to_string(), link.into());
        }
    }
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

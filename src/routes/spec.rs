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

use serde_json::{json, Value};

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
///
/// The document is the same for every worker of a process: it is finished once (the per-game
/// unions are a few hundred schemas) and each worker gets a copy.
pub fn finish(api: &mut utoipa::openapi::OpenApi) {
    static FINISHED: std::sync::OnceLock<utoipa::openapi::OpenApi> = std::sync::OnceLock::new();
    *api = FINISHED
        .get_or_init(|| {
            let mut finished = api.clone();
            finish_once(&mut finished);
            finished
        })
        .clone();
}

fn finish_once(api: &mut utoipa::openapi::OpenApi) {
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
    // The rest works on the document as JSON, whose maps sort their keys: the order of each
    // answer's media types (the first is what generated clients expect: CSV for an export)
    // is put back afterwards.
    let orders = media_type_orders(api);
    let mut doc = serde_json::to_value(&*api).expect("the spec serializes");
    lite_view(&mut doc);
    typed_unions(&mut doc);
    // The tournament feed's events: one model per `type`, discriminated.
    hoist_variants(obj(&mut doc["components"]["schemas"]), "TournamentEvent");
    problem_codes(&mut doc);
    timestamps(&mut doc);
    operations(&mut doc);
    *api = serde_json::from_value(doc).expect("the finished spec is an OpenAPI document");
    let orders: std::collections::HashMap<AnswerKey, Vec<String>> = orders.into_iter().collect();
    for (path, item) in api.paths.paths.iter_mut() {
        for (i, op) in operations_of(item).into_iter().enumerate() {
            let Some(op) = op else { continue };
            for (status, response) in op.responses.responses.iter_mut() {
                let (RefOr::T(r), Some(order)) =
                    (response, orders.get(&(path.clone(), i, status.clone())))
                else {
                    continue;
                };
                for media in order.iter().rev() {
                    if let Some(c) = r.content.shift_remove(media) {
                        r.content.shift_insert(0, media.clone(), c);
                    }
                }
            }
        }
    }
}

/// Where an answer is: its path, its method's index (get, put, post, delete, patch), its status.
type AnswerKey = (String, usize, String);

fn operations_of(
    item: &mut utoipa::openapi::path::PathItem,
) -> [Option<&mut utoipa::openapi::path::Operation>; 5] {
    [
        item.get.as_mut(),
        item.put.as_mut(),
        item.post.as_mut(),
        item.delete.as_mut(),
        item.patch.as_mut(),
    ]
}

/// The media types of every answer with more than one, in order.
fn media_type_orders(api: &mut utoipa::openapi::OpenApi) -> Vec<(AnswerKey, Vec<String>)> {
    let mut out = Vec::new();
    for (path, item) in api.paths.paths.iter_mut() {
        for (i, op) in operations_of(item).into_iter().enumerate() {
            let Some(op) = op else { continue };
            for (status, response) in &op.responses.responses {
                if let RefOr::T(r) = response {
                    if r.content.len() > 1 {
                        out.push((
                            (path.clone(), i, status.clone()),
                            r.content.keys().cloned().collect(),
                        ));
                    }
                }
            }
        }
    }
    out
}

/// Every stable `code` a problem document may carry: `Problem.code`'s `enum`. Each error type
/// (`MatchError`, `TournamentError`, `SetupError`, `StoreError`, every game's refusals, the
/// routes' and the edge's own answers) names its codes in the source, and
/// `tests/problem_codes.rs` reads them there: a code sent but not listed here, or listed but no
/// longer sent, fails it (the list cannot drift from the error types).
pub const PROBLEM_CODES: &[&str] = &[
    "action_not_in_game",
    "already_chosen",
    "already_dealt",
    "already_entered",
    "already_stolen_from",
    "bad_pile_sizes",
    "bad_player_count",
    "betting_closed",
    "busy",
    "card_already_played",
    "card_count_exceeded",
    "card_elsewhere",
    "card_face_down",
    "card_in_two_exhibits",
    "card_not_allowed_here",
    "card_not_in_exhibit",
    "card_not_in_hand",
    "check_already_spent",
    "choices_revealed",
    "deal_expected",
    "deal_in_progress",
    "declaration_not_allowed",
    "declaration_required",
    "delivery_not_found",
    "discard_required",
    "duplicate_card",
    "duplicate_needs_service_dealing",
    "duplicate_needs_two_tables",
    "duplicate_not_dealt",
    "duplicate_player",
    "entrant_not_found",
    "entrant_not_withdrawn",
    "entrant_withdrawn",
    "export_not_found",
    "face_up_not_taken",
    "final_already_recorded",
    "final_too_early",
    "fouled_board_not_applicable",
    "hand_is_private",
    "heat_in_progress",
    "host_only",
    "idempotency_key_reused",
    "internal_error",
    "invalid_action",
    "invalid_body",
    "invalid_config",
    "invalid_cursor",
    "invalid_entrants",
    "invalid_idempotency_key",
    "invalid_if_match",
    "invalid_last_event_id",
    "invalid_merge",
    "invalid_path",
    "invalid_player_name",
    "invalid_query",
    "invalid_rounds",
    "invalid_season",
    "invalid_table_size",
    "invalid_tournament_name",
    "location_first",
    "man_home",
    "match_abandoned",
    "match_finished",
    "match_in_progress",
    "match_not_found",
    "method_not_allowed",
    "minus_card_lead",
    "move_required",
    "must_follow_suit",
    "must_lead_two_of_clubs",
    "must_trump",
    "no_man_there",
    "no_piece_left",
    "no_printed_boards",
    "no_reveal_expected",
    "no_set_to_exhibit",
    "no_such_card",
    "no_such_pile",
    "no_such_seat",
    "not_a_set",
    "not_best_set",
    "not_exhibiting",
    "not_found",
    "not_playable",
    "not_your_card",
    "not_your_seat",
    "not_your_turn",
    "nothing_to_play_there",
    "nothing_to_undo",
    "number_occupied",
    "operator_consent_required",
    "operator_only",
    "organiser_only",
    "payload_too_large",
    "pile_empty",
    "player_merged",
    "player_name_mismatch",
    "player_not_found",
    "players_met",
    "points_out_of_range",
    "request_timeout",
    "result_changed",
    "result_from_match",
    "result_impossible",
    "result_missing",
    "result_shape",
    "result_totals_mismatch",
    "reveal_expected",
    "round_closed",
    "round_in_play",
    "round_in_progress",
    "round_not_found",
    "scores_only",
    "season_not_found",
    "seat_action_only",
    "seed_missing",
    "seed_not_taken",
    "server_stopping",
    "space_taken",
    "stale_version",
    "stars_backward",
    "stars_bust_forbidden",
    "stock_top_expected",
    "stock_top_not_expected",
    "storage_unavailable",
    "suit_exhausted",
    "swiss_only",
    "table_action_only",
    "table_dealing_only",
    "table_not_found",
    "table_tokens_derived",
    "table_unfinished",
    "tally_inconsistent",
    "tally_marker_back",
    "tally_men",
    "tally_mid_deal",
    "tally_not_allowed",
    "tally_not_over",
    "tally_occupied",
    "tally_position",
    "tally_range",
    "tally_seats",
    "tally_shape",
    "tally_step",
    "tally_sum",
    "tally_tiebreak",
    "tally_two_finished",
    "tally_unachievable",
    "thief_in_prison",
    "too_few_entrants",
    "too_many_creates",
    "too_many_players",
    "too_many_streams",
    "too_many_webhooks",
    "tournament_archived",
    "tournament_changed",
    "tournament_finished",
    "tournament_not_archived",
    "tournament_not_found",
    "trump_not_taken",
    "trump_required",
    "unauthorized",
    "unknown_game",
    "unknown_player",
    "unsupported_media_type",
    "webhook_events_invalid",
    "webhook_not_found",
    "webhook_url_forbidden",
    "webhook_url_invalid",
    "webhook_url_unresolvable",
    "wrong_face_up_count",
    "wrong_phase",
    "wrong_reveal_count",
    "zero_total",
];

/// `Problem.code`: one of [`PROBLEM_CODES`].
fn problem_codes(doc: &mut Value) {
    if let Some(code) = doc.pointer_mut("/components/schemas/Problem/properties/code") {
        code["enum"] = json!(PROBLEM_CODES);
    }
}

/// Every timestamp of the API (`created_at`, `updated_at`, `finished_at`, ...: RFC 3339 UTC) is
/// a `date-time` string.
fn timestamps(doc: &mut Value) {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(map) => {
                if let Some(Value::Object(props)) = map.get_mut("properties") {
                    for (name, prop) in props.iter_mut() {
                        let string = prop["type"] == "string"
                            || prop["type"]
                                .as_array()
                                .is_some_and(|t| t.contains(&json!("string")));
                        if name.ends_with("_at") && string && prop.get("format").is_none() {
                            prop["format"] = json!("date-time");
                        }
                    }
                }
                map.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut doc["components"]["schemas"]);
}

/// The document's operations as a newcomer meets them: the server is this one (`servers`, so
/// that `/docs` calls the service it is served by); an operation no token is needed for says so
/// (`security: []`); every operation has a description (its summary when it has no more to
/// say).
fn operations(doc: &mut Value) {
    doc["servers"] = json!([{
        "url": "/",
        "description": "The service this document is served by"
    }]);
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for item in paths.values_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (method, op) in item.iter_mut() {
            if !["get", "put", "post", "delete", "patch"].contains(&method.as_str()) {
                continue;
            }
            let op = obj(op);
            op.entry("security").or_insert_with(|| json!([]));
            try_it_out_headers(op);
            stream_example(op);
            problem_examples(op);
            if op.get("description").is_none() {
                let summary = op.get("summary").cloned().unwrap_or_default();
                op.insert("description".into(), summary);
            }
        }
    }
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
                    .description("`idempotency_key_reused`: the Idempotency-Key was used with another request")
                    .content("application/problem+json", problem())
                    .build(),
            )
        });
        if let Some(RefOr::T(conflict)) = op.responses.responses.get_mut("409") {
            if !conflict.description.contains("idempotency_key_reused") {
                conflict.description.push_str(
                    "; `idempotency_key_reused`: the Idempotency-Key was used with another request",
                );
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

/// A JSON object of the document.
fn obj(v: &mut Value) -> &mut serde_json::Map<String, Value> {
    if !v.is_object() {
        *v = Value::Object(Default::default());
    }
    v.as_object_mut().expect("an object")
}

/// `#/components/schemas/<name>`.
fn schema_ref(name: &str) -> String {
    format!("#/components/schemas/{name}")
}

/// A game as the spec names it: its id (the discriminator's value) and the prefix of its models
/// (`Dump` of `DumpTable`, `DumpAction`, ...).
struct SpecGame {
    id: &'static str,
    prefix: String,
}

/// The registered games, in the catalogue's order, with the prefix of their models: the model
/// `GameTable` lists under the game's title.
fn spec_games(schemas: &serde_json::Map<String, Value>) -> Vec<SpecGame> {
    crate::rules::AnyGame::catalogue()
        .into_iter()
        .filter_map(|g| {
            let model = schemas["GameTable"]["anyOf"]
                .as_array()?
                .iter()
                .find(|m| m["description"] == g.title)?["$ref"]
                .as_str()?
                .trim_start_matches("#/components/schemas/")
                .trim_end_matches("Table")
                .to_string();
            Some(SpecGame {
                id: g.id,
                prefix: model,
            })
        })
        .collect()
}

/// Moves the inline variants of the internally tagged union `name` (`{type: ..., ...}` objects
/// with a `title`) into components named by their titles, and discriminates the union by
/// `type`. Returns the union's mapping (tag → schema name).
fn hoist_variants(
    schemas: &mut serde_json::Map<String, Value>,
    name: &str,
) -> Vec<(String, String)> {
    let Some(items) = schemas
        .get_mut(name)
        .and_then(|u| u.get_mut("oneOf"))
        .and_then(Value::as_array_mut)
    else {
        return Vec::new();
    };
    let mut hoisted = Vec::new();
    let mut mapping = Vec::new();
    for item in items.iter_mut() {
        if item.get("$ref").is_some() {
            let target = item["$ref"].as_str().unwrap_or_default().to_string();
            mapping.push((String::new(), target));
            continue;
        }
        let title = item["title"].as_str().unwrap_or_default().to_string();
        let tag = item["properties"]["type"]["enum"][0]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            !title.is_empty() && !tag.is_empty(),
            "{name}: every variant has a title and a `type`"
        );
        let variant = std::mem::replace(item, json!({ "$ref": schema_ref(&title) }));
        hoisted.push((title.clone(), variant));
        mapping.push((tag, title));
    }
    let mut out = Vec::new();
    for (tag, target) in mapping {
        if tag.is_empty() {
            // A variant that is a reference already (none today): its tag from its schema.
            let target = target
                .trim_start_matches("#/components/schemas/")
                .to_string();
            let tag = schemas[&target]["properties"]["type"]["enum"][0]
                .as_str()
                .unwrap_or_default()
                .to_string();
            out.push((tag, target));
        } else {
            out.push((tag, target));
        }
    }
    for (title, variant) in hoisted {
        assert!(
            !schemas.contains_key(&title),
            "{name}: the variant title {title} is a schema name already"
        );
        schemas.insert(title, variant);
    }
    let union = obj(schemas.get_mut(name).expect("the union"));
    union.insert("discriminator".into(), discriminator("type", &out));
    out
}

/// A discriminator object over `property` with `mapping` (value → schema name).
fn discriminator(property: &str, mapping: &[(String, String)]) -> Value {
    let mapping: serde_json::Map<String, Value> = mapping
        .iter()
        .map(|(tag, name)| (tag.clone(), Value::String(schema_ref(name))))
        .collect();
    json!({ "propertyName": property, "mapping": mapping })
}

/// Replaces every reference to `from` under `v` by one to `to` (a sibling `description` stays).
fn retarget(v: &mut Value, replace: &[(&str, String)]) {
    match v {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get_mut("$ref") {
                if let Some((_, to)) = replace
                    .iter()
                    .find(|(from, _)| r.as_str() == schema_ref(from))
                {
                    *r = schema_ref(to);
                }
            }
            map.values_mut().for_each(|v| retarget(v, replace));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| retarget(v, replace)),
        _ => {}
    }
}

/// The request headers whose example, pre-filled by `/docs`' Try-it-out, would make a
/// newcomer's first call fail (an `If-Match` of another version is 412, an `Idempotency-Key`
/// reused with another body 409, `Prefer: return=minimal` a different answer than the one
/// documented first): their example moves into the description, and the field starts empty.
const NOT_PREFILLED: &[&str] = &[
    "If-Match",
    "If-None-Match",
    "Idempotency-Key",
    "Prefer",
    "Last-Event-ID",
];

fn try_it_out_headers(op: &mut serde_json::Map<String, Value>) {
    let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) else {
        return;
    };
    for p in params.iter_mut() {
        let header = p["in"] == "header"
            && p["name"]
                .as_str()
                .is_some_and(|n| NOT_PREFILLED.iter().any(|h| h.eq_ignore_ascii_case(n)));
        if !header {
            continue;
        }
        let p = obj(p);
        let example = p
            .remove("example")
            .or_else(|| p.get_mut("schema").and_then(|s| obj(s).remove("example")));
        if let Some(example) = example {
            let text = example
                .as_str()
                .map(String::from)
                .unwrap_or(example.to_string());
            let description = p
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .trim_end()
                .to_string();
            p.insert(
                "description".into(),
                json!(format!(
                    "{description} (for example `{text}`; optional: leave it out on a first call)"
                )),
            );
        }
    }
}

/// An example for each problem answer that has none, true for the operation: the first stable
/// code its description names (every 401 is `unauthorized`), with the clause of the description
/// about it as the detail, made by the server's own `ApiError` (so its `type`, `title` and
/// `status` are what the server sends).
fn problem_examples(op: &mut serde_json::Map<String, Value>) {
    let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
        return;
    };
    for (status, response) in responses.iter_mut() {
        let description = response["description"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let Some(content) = response.pointer_mut("/content/application~1problem+json") else {
            continue;
        };
        if content.get("example").is_some() {
            continue;
        }
        let Some(status) = status
            .parse::<u16>()
            .ok()
            .and_then(|s| actix_web::http::StatusCode::from_u16(s).ok())
        else {
            continue;
        };
        let named = description
            .split('`')
            .skip(1)
            .step_by(2)
            .find_map(|w| PROBLEM_CODES.iter().find(|c| **c == w));
        let code = match (status.as_u16(), named) {
            (401, _) => "unauthorized",
            (_, Some(code)) => code,
            _ => continue,
        };
        let marker = format!("`{code}`");
        let clause = description
            .split_once(&marker)
            .map(|(_, rest)| rest.trim_start_matches([':', ' ']))
            .and_then(|rest| rest.split(';').next())
            .map(str::trim)
            .filter(|c| c.len() > 3 && !c.starts_with(['(', ',']))
            .unwrap_or(&description);
        let problem = crate::error::ApiError::new(status, code, clause).problem();
        content["example"] = serde_json::to_value(problem).unwrap_or_default();
    }
}

/// The event stream's example is SSE text; its schema (`StreamMessage`) describes one message as
/// an object of its `id`, `event` and `data` lines: the example becomes the first message of that
/// text, as such an object (so that it matches its schema), the text staying in the
/// description.
fn stream_example(op: &mut serde_json::Map<String, Value>) {
    let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
        return;
    };
    for response in responses.values_mut() {
        let Some(content) = response.pointer_mut("/content/text~1event-stream") else {
            continue;
        };
        let Some(text) = content
            .get("example")
            .and_then(Value::as_str)
            .map(String::from)
        else {
            continue;
        };
        let mut message = serde_json::Map::new();
        for line in text.split("\n\n").next().unwrap_or_default().lines() {
            if let Some((field, value)) = line.split_once(": ") {
                message.insert(field.to_string(), json!(value));
            }
        }
        content["example"] = Value::Object(message);
        if let Some(d) = response.get_mut("description") {
            let described = format!(
                "{}. On the wire, for example:\n\n```\n{text}```",
                d.as_str().unwrap_or_default().trim_end_matches('.')
            );
            *d = json!(described);
        }
    }
}

/// The per-game envelopes: the documents whose game-specific parts depend on the match's game
/// carry its id in `game`, and each becomes a `oneOf` of one model per game, discriminated by
/// `game` (`DumpMatchView`, `ClubsMatchView`, ...), whose parts are that game's own models
/// (its table, seat, actions, outcomes, round details and options). The JSON the server sends
/// is the same whichever model a client reads it with; a generated client picks the model by
/// `game` (a `const` in each, for clients that try each model in turn) and so never reads one
/// game's action or view as another's.
fn typed_unions(doc: &mut Value) {
    let schemas = obj(&mut doc["components"]["schemas"]);
    let games = spec_games(schemas);
    assert_eq!(
        games.len(),
        crate::rules::AnyGame::catalogue().len(),
        "every game's models are named in GameTable"
    );
    let sealed_kinds: Vec<Value> = schemas["SealedKind"]["enum"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let undo = hoist_variants(schemas, "UndoOutcome");
    for g in &games {
        let p = &g.prefix;
        let actions = hoist_variants(schemas, &format!("{p}Action"));
        let outcomes = hoist_variants(schemas, &format!("{p}Outcome"));
        // The outcomes of an event of this game: its own, or an undo's.
        let mut event_outcomes = outcomes.clone();
        for (tag, name) in &undo {
            assert!(
                !outcomes.iter().any(|(t, _)| t == tag),
                "{p}Outcome has a `{tag}` too"
            );
            event_outcomes.push((tag.clone(), name.clone()));
        }
        schemas.insert(
            format!("{p}EventOutcome"),
            json!({
                "description": format!("One thing an event of {} produced (`outcome` in the log): one of the game's outcomes, or an undo's `retracted`.", g.id),
                "oneOf": event_outcomes.iter().map(|(_, n)| json!({"$ref": schema_ref(n)})).collect::<Vec<_>>(),
                "discriminator": discriminator("type", &event_outcomes),
            }),
        );
        // The log's actions: as recorded, or as a viewer other than their seat sees them.
        let sealed: Vec<Value> = sealed_kinds
            .iter()
            .filter(|k| actions.iter().any(|(t, _)| Some(t.as_str()) == k.as_str()))
            .cloned()
            .collect();
        let mut logged = Vec::new();
        if !sealed.is_empty() {
            let mut model = schemas["SealedAction"].clone();
            model["properties"]["type"] = json!({
                "type": "string",
                "enum": sealed,
                "description": "The action's type.",
            });
            model["description"] = json!(format!(
                "A sealed choice of {} as the log shows it to anyone but the seat that made it, until it is revealed (and for ever once retracted): only its type.",
                g.id
            ));
            let name = format!("{p}SealedAction");
            schemas.insert(name.clone(), model);
            logged.push(json!({"$ref": schema_ref(&name)}));
            let shown: Vec<String> = schemas
                .keys()
                .filter(|k| k.starts_with(p.as_str()) && k.ends_with("Shown"))
                .cloned()
                .collect();
            logged.extend(shown.iter().map(|n| json!({"$ref": schema_ref(n)})));
        }
        let action_union = format!("{p}Action");
        let logged_name = if logged.is_empty() {
            action_union.clone()
        } else {
            logged.push(json!({"$ref": schema_ref(&action_union)}));
            let name = format!("{p}LoggedAction");
            schemas.insert(
                name.clone(),
                json!({
                    "description": format!("An action of {} as the log shows it to one viewer: as recorded, or, where it is private to its seat and this viewer is not that seat, only what the viewer may see of it (a sealed choice: its type; ...). The models exclude one another (`sealed` is present on a sealed choice alone).", g.id),
                    "oneOf": logged,
                }),
            );
            name
        };
        let replace = [
            ("GameTable", format!("{p}Table")),
            ("GameSeat", format!("{p}Seat")),
            ("GameAction", action_union.clone()),
            ("LoggedAction", logged_name),
            ("GameOutcome", format!("{p}EventOutcome")),
            ("GameRoundDetail", format!("{p}RoundDetail")),
            ("RoundScore", format!("{p}RoundScore")),
            ("ScoreSheet", format!("{p}ScoreSheet")),
            ("EventView", format!("{p}EventView")),
        ];
        let config = schema_ref(&format!("{p}Config"));
        for base in ENVELOPES {
            let mut model = schemas[*base].clone();
            retarget(&mut model, &replace);
            if let Some(props) = model.get_mut("properties").and_then(Value::as_object_mut) {
                if let Some(game) = props.get_mut("game") {
                    let description = game["description"].clone();
                    *game = json!({"type": "string", "enum": [g.id], "description": description});
                    let required = obj(&mut model)
                        .entry("required")
                        .or_insert_with(|| json!([]));
                    if !required
                        .as_array()
                        .is_some_and(|r| r.contains(&json!("game")))
                    {
                        if let Some(r) = required.as_array_mut() {
                            r.insert(0, json!("game"));
                        }
                    }
                }
            }
            if let Some(c) = model.pointer_mut("/properties/config") {
                let description = c["description"].clone();
                let nullable = c["type"]
                    .as_array()
                    .is_some_and(|t| t.contains(&json!("null")));
                *c = if nullable {
                    json!({"oneOf": [{"$ref": config, "description": description}, {"type": "null"}]})
                } else {
                    json!({"$ref": config, "description": description})
                };
            }
            if let Some(d) = model.get_mut("description") {
                *d = json!(format!(
                    "{} ({})",
                    d.as_str().unwrap_or_default().trim_end_matches('.'),
                    g.id
                ));
            }
            schemas.insert(format!("{p}{base}"), model);
        }
    }
    for base in ENVELOPES {
        let tagged = schemas[*base]["properties"]["game"].is_object();
        let description = schemas[*base]["description"].clone();
        let mapping: Vec<(String, String)> = games
            .iter()
            .map(|g| (g.id.to_string(), format!("{}{base}", g.prefix)))
            .collect();
        let mut union = json!({
            "description": description,
            "oneOf": mapping.iter().map(|(_, n)| json!({"$ref": schema_ref(n)})).collect::<Vec<_>>(),
        });
        if tagged {
            union["discriminator"] = discriminator("game", &mapping);
            schemas.insert((*base).to_string(), union);
        } else {
            // A part of a tagged document (a score sheet's line): only the games' own models.
            schemas.remove(*base);
        }
    }
    // The game-wide unions are replaced by each game's own models (`GameAction` stays: the
    // request body of an action takes any game's action, the match's game judges it).
    // So are the games' outcome unions, and the undo's: an event's outcomes are one union per
    // game (`DumpEventOutcome`) of the game's outcomes and the undo's `Retracted`.
    for name in [
        "GameTable",
        "GameSeat",
        "GameOutcome",
        "GameRoundDetail",
        "LoggedAction",
        "SealedAction",
        "SealedKind",
        "UndoOutcome",
    ] {
        schemas.remove(name);
    }
    for g in &games {
        schemas.remove(&format!("{}Outcome", g.prefix));
    }
}

/// `MatchViewLite`, a stream's `match_lite` message (`scores=changed`): the match view without
/// `scores`, derived here from `MatchView` so the two cannot drift apart (and split per game
/// with it, [`ENVELOPES`]).
fn lite_view(doc: &mut Value) {
    let schemas = obj(&mut doc["components"]["schemas"]);
    let mut lite = schemas["MatchView"].clone();
    if let Some(props) = lite.get_mut("properties").and_then(Value::as_object_mut) {
        props.remove("scores");
    }
    if let Some(required) = lite.get_mut("required").and_then(Value::as_array_mut) {
        required.retain(|r| r != "scores");
    }
    lite["description"] = json!("The match view without its score sheet (`scores`): a stream's `match_lite` message (`scores=changed`), sent when the sheet is the one of the stream's previous view.");
    schemas.insert("MatchViewLite".into(), lite);
    // What a stream message's `data` text holds, by its `event:` (anyOf: a whole view is also a
    // lite one with a field more).
    if let Some(data) = schemas
        .get_mut("StreamMessage")
        .and_then(|m| m.pointer_mut("/properties/data"))
    {
        data["contentSchema"] = json!({"anyOf": [
            {"$ref": schema_ref("EventView")},
            {"$ref": schema_ref("MatchView")},
            {"$ref": schema_ref("MatchViewLite")},
            {"type": "object", "description": "`error`, `reconnect`: `{code, detail}`.", "required": ["code", "detail"], "properties": {"code": {"type": "string"}, "detail": {"type": "string"}}},
        ]});
    }
}

/// The documents split per game by [`typed_unions`]: each has a `game` (the discriminator),
/// but `RoundScore`, a line of a `ScoreSheet`, which has only the games' own models.
const ENVELOPES: &[&str] = &[
    "MatchView",
    "MatchViewLite",
    "Legal",
    "EventView",
    "RoundScore",
    "ScoreSheet",
    "CreateMatch",
    "CreateTournament",
    "TournamentView",
];

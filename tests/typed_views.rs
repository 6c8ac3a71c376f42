//! The spec types every game's views (issue 13): the table view, the seat view, each outcome,
//! the legal action lists, the log's actions (as each viewer sees them, sealed or not) and the
//! score sheet's round detail are real models, and what the engines produce fits them. Random
//! legal playouts of every game (in both dealing modes where the game has them) and the scenario
//! corpus (`tests/scenarios`), validating every value produced against its schema from the served
//! spec (`clubroom::app::openapi_json()`), with `#/components/schemas/...` references resolved: a
//! view that gains a field its schema lacks (the models are closed: `additionalProperties:
//! false`) or loses a required one fails here. Also: the models are models (required fields,
//! closed), and each union lists its models in an order a first-match generated client can use.

mod trick_props;

use clubroom::rules::{
    bonus_malus::BonusMalus, by_hook_or_crook::ByHookOrCrook, clubs::Clubs, dump::Dump,
    members_only::MembersOnly, plus_minus::PlusMinus, Actor, AnyGame, Dealing, Game,
};
use serde_json::{json, Value};
use std::sync::OnceLock;
use trick_props::{Playout, Rng};

/// The served spec.
fn spec() -> &'static Value {
    static SPEC: OnceLock<Value> = OnceLock::new();
    SPEC.get_or_init(|| serde_json::from_str(&clubroom::app::openapi_json()).unwrap())
}

/// The component schema `name`.
fn schema(name: &str) -> &'static Value {
    let s = &spec()["components"]["schemas"][name];
    assert!(s.is_object(), "the spec has a schema {name}");
    s
}

/// A validator of `schema` (a schema of the spec, whose references point into its components).
fn validator(schema: &Value) -> jsonschema::Validator {
    let mut root = schema.clone();
    root["components"] = spec()["components"].clone();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&root)
        .unwrap_or_else(|e| panic!("the schema compiles: {e}"))
}

/// A validator of the component schema `name`.
fn component(name: &str) -> jsonschema::Validator {
    validator(&json!({"$ref": format!("#/components/schemas/{name}")}))
}

/// The prefix of game `id`'s models in the spec (`DumpTable`, `DumpAction`, ...): the model the
/// `GameAction` union lists under the game's title.
fn prefix(id: &str) -> String {
    let title = AnyGame::catalogue()
        .into_iter()
        .find(|g| g.id == id)
        .unwrap_or_else(|| panic!("a scenario of an unknown game {id}"))
        .title;
    let union = schema("GameAction")["anyOf"].as_array().unwrap();
    let model = union
        .iter()
        .find(|m| m["description"] == title)
        .and_then(|m| m["$ref"].as_str())
        .unwrap_or_else(|| panic!("GameAction lists no model titled {title:?} ({id})"));
    model
        .trim_start_matches("#/components/schemas/")
        .trim_end_matches("Action")
        .to_string()
}

/// The schemas a game's values must fit: its own models, and the unions the API declares.
struct Schemas {
    game: String,
    /// The game's id (the `game` of its documents).
    id: String,
    table: jsonschema::Validator,
    seat: jsonschema::Validator,
    outcome: jsonschema::Validator,
    action: jsonschema::Validator,
    detail: jsonschema::Validator,
    match_table: jsonschema::Validator,
    match_you: jsonschema::Validator,
    event_outcome: jsonschema::Validator,
    legal_actions: jsonschema::Validator,
    score_sheet: jsonschema::Validator,
    event_action: jsonschema::Validator,
    /// Values checked, by kind, to show the playouts reached them.
    counts: [usize; 6],
    /// Logged actions seen sealed (`{type, sealed: true}`) and with a `hidden` discard.
    redacted: [usize; 2],
}

impl Schemas {
    fn new(game: &str) -> Schemas {
        let id = AnyGame::catalogue()
            .into_iter()
            .find(|g| prefix(g.id) == game)
            .map(|g| g.id.to_string())
            .unwrap_or_else(|| panic!("{game} is a game's prefix"));
        let property = |model: &str, field: &str| {
            let p = &schema(model)["properties"][field];
            assert!(p.is_object(), "{model}.{field} in the spec");
            validator(p)
        };
        let envelope = |base: &str| format!("{game}{base}");
        Schemas {
            game: game.to_string(),
            id,
            table: component(&format!("{game}Table")),
            seat: component(&format!("{game}Seat")),
            outcome: component(&format!("{game}EventOutcome")),
            action: component(&format!("{game}Action")),
            detail: component(&format!("{game}RoundDetail")),
            match_table: property(&envelope("MatchView"), "table"),
            match_you: property(&envelope("MatchView"), "you"),
            event_outcome: property(&envelope("EventView"), "outcome"),
            legal_actions: property(&envelope("Legal"), "actions"),
            score_sheet: component("ScoreSheet"),
            event_action: property(&envelope("EventView"), "action"),
            counts: [0; 6],
            redacted: [0; 2],
        }
    }

    fn check(&self, v: &jsonschema::Validator, value: &Value, what: &str) {
        let errors: Vec<String> = v
            .iter_errors(value)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{} {what} does not fit its schema: {errors:?}\n{value:#}",
            self.game
        );
    }

    /// Every view of `g` now: table, seats, legal lists, score sheet.
    fn check_state<G: Game>(&mut self, g: &G, players: usize) {
        let table = g.table_view();
        self.check(&self.table, &table, "table view");
        self.check(&self.match_table, &table, "table view (MatchView.table)");
        self.counts[0] += 1;
        for s in 0..players {
            let you = g.seat_view(s);
            self.check(&self.seat, &you, "seat view");
            self.check(&self.match_you, &you, "seat view (MatchView.you)");
            self.counts[1] += 1;
        }
        for actor in (0..players).map(Actor::Seat).chain([Actor::Table]) {
            let legal: Vec<Value> = g
                .legal_actions(actor)
                .iter()
                .map(|a| serde_json::to_value(a).unwrap())
                .collect();
            for a in &legal {
                self.check(&self.action, a, "legal action");
            }
            self.check(&self.legal_actions, &Value::from(legal), "legal list");
            self.counts[2] += 1;
        }
        let mut sheet = serde_json::to_value(g.score_sheet()).unwrap();
        self.sheet_game(&mut sheet);
        self.check(&self.score_sheet, &sheet, "score sheet");
        for round in sheet["rounds"].as_array().unwrap() {
            self.check(&self.detail, &round["detail"], "round detail");
        }
        self.counts[3] += 1;
    }

    /// A game's own sheet has no `game` (the match service's `AnyGame` fills it in); the one
    /// `AnyGame` gives must name its game.
    fn sheet_game(&self, sheet: &mut Value) {
        match sheet["game"].as_str() {
            Some("") => sheet["game"] = json!(self.id),
            other => assert_eq!(other, Some(self.id.as_str()), "the sheet names its game"),
        }
    }

    /// `outcomes` as the log writes them (JSON) against the spec's schemas.
    fn check_outcomes<O: serde::Serialize>(&mut self, outcomes: &[O]) {
        let outcomes: Vec<Value> = outcomes
            .iter()
            .map(|o| serde_json::to_value(o).expect("an outcome is JSON"))
            .collect();
        for o in &outcomes {
            self.check(&self.outcome, o, "outcome");
        }
        self.check(
            &self.event_outcome,
            &Value::from(outcomes.clone()),
            "outcome list",
        );
        self.counts[4] += outcomes.len();
    }
}

impl Schemas {
    /// The log as each viewer (the host, each seat) sees it: the standing actions `log[from..]`
    /// rendered by `g`, and each of them as it would show once retracted.
    fn check_log<G: Game>(
        &mut self,
        g: &G,
        any: &AnyGame,
        log: &[(Actor, G::Action)],
        from: usize,
        players: usize,
    ) {
        for (i, (actor, a)) in log.iter().enumerate().skip(from) {
            let recorded = serde_json::to_value(a).unwrap();
            for viewer in [None].into_iter().chain((0..players).map(Some)) {
                let shown = g.render_action(i, a, *actor, viewer);
                self.check(&self.event_action, &shown, "logged action");
                let retracted = any.render_retracted(&recorded, *actor, viewer);
                self.check(&self.event_action, &retracted, "retracted action");
                for v in [&shown, &retracted] {
                    self.redacted[0] += usize::from(v["sealed"] == json!(true));
                    self.redacted[1] += usize::from(v["discard"] == json!("hidden"));
                }
                self.counts[5] += 1;
            }
        }
    }
}

/// Plays `matches` random matches of `G` with `players` players in each of `dealings`, up to
/// `max_steps` actions each, validating every view, outcome, legal list and score sheet.
fn typed<G: Game>(
    schemas: &mut Schemas,
    players: usize,
    dealings: &[Dealing],
    matches: u64,
    max_steps: usize,
) {
    for &dealing in dealings {
        for m in 0..matches {
            let mut rng = Rng::new(0x7E57_0000 + m * 6151 + players as u64);
            let mut p: Playout<G> = Playout::new(G::Config::default(), players, dealing);
            let any = AnyGame::new(G::ID, None, players, dealing).unwrap();
            let mut log: Vec<(Actor, G::Action)> = Vec::new();
            schemas.check_state(&p.game, players);
            for step in 0..max_steps {
                let Some(actor) = p.actor(&mut rng) else {
                    break;
                };
                let legal = p.game.legal_actions(actor);
                if legal.is_empty() {
                    break; // By Hook or Crook in table dealing: not every exhibit is listed
                }
                let action = legal[rng.below(legal.len())].clone();
                let seed = p.game.needs_seed(&action).then(|| rng.seed());
                let outcomes = p
                    .game
                    .apply(actor, &action, seed.as_ref())
                    .unwrap_or_else(|e| panic!("{action:?} by {actor:?} refused: {e}"));
                log.push((actor, action));
                schemas.check_outcomes(&outcomes);
                schemas.check_state(&p.game, players);
                // The recent actions at every step (a sealed choice shows until revealed), the
                // whole log now and then.
                let from = if step % 25 == 0 {
                    0
                } else {
                    log.len().saturating_sub(6)
                };
                schemas.check_log(&p.game, &any, &log, from, players);
            }
        }
    }
    let [tables, seats, lists, sheets, outcomes, logged] = schemas.counts;
    assert!(
        tables > 0 && seats > 0 && lists > 0 && sheets > 0 && outcomes > 0 && logged > 0,
        "{}: {:?}",
        schemas.game,
        schemas.counts
    );
}

const BOTH: &[Dealing] = &[Dealing::Service, Dealing::Table];

#[test]
fn dump_views_fit_their_schemas() {
    let mut s = Schemas::new(&prefix(Dump::ID));
    typed::<Dump>(&mut s, 4, BOTH, 3, 400);
    typed::<Dump>(&mut s, 2, BOTH, 3, 400);
}

#[test]
fn clubs_views_fit_their_schemas() {
    let mut s = Schemas::new(&prefix(Clubs::ID));
    typed::<Clubs>(&mut s, 4, BOTH, 2, 300);
    typed::<Clubs>(&mut s, 3, BOTH, 2, 300);
}

#[test]
fn bonus_malus_views_fit_their_schemas() {
    let mut s = Schemas::new(&prefix(BonusMalus::ID));
    typed::<BonusMalus>(&mut s, 4, BOTH, 2, 400);
    typed::<BonusMalus>(&mut s, 3, BOTH, 2, 400);
    typed::<BonusMalus>(&mut s, 2, BOTH, 1, 400);
}

#[test]
fn plus_minus_views_fit_their_schemas() {
    let mut s = Schemas::new(&prefix(PlusMinus::ID));
    typed::<PlusMinus>(&mut s, 3, BOTH, 2, 400);
    typed::<PlusMinus>(&mut s, 5, BOTH, 1, 400);
}

#[test]
fn members_only_views_fit_their_schemas() {
    let mut s = Schemas::new(&prefix(MembersOnly::ID));
    typed::<MembersOnly>(&mut s, 4, BOTH, 2, 200);
    typed::<MembersOnly>(&mut s, 3, BOTH, 2, 200);
    assert!(s.redacted[0] > 0 && s.redacted[1] > 0, "{:?}", s.redacted);
}

#[test]
fn by_hook_or_crook_views_fit_their_schemas() {
    let mut s = Schemas::new(&prefix(ByHookOrCrook::ID));
    typed::<ByHookOrCrook>(&mut s, 3, BOTH, 2, 300);
    typed::<ByHookOrCrook>(&mut s, 2, BOTH, 2, 300);
    typed::<ByHookOrCrook>(&mut s, 5, &[Dealing::Service], 1, 300);
    assert!(s.redacted[0] > 0, "{:?}", s.redacted);
}

/// Each game's playouts above, by id.
const RUNS: &[(&str, fn())] = &[
    (Dump::ID, dump_views_fit_their_schemas),
    (Clubs::ID, clubs_views_fit_their_schemas),
    (BonusMalus::ID, bonus_malus_views_fit_their_schemas),
    (PlusMinus::ID, plus_minus_views_fit_their_schemas),
    (MembersOnly::ID, members_only_views_fit_their_schemas),
    (ByHookOrCrook::ID, by_hook_or_crook_views_fit_their_schemas),
];

/// The playouts cover the catalogue: a game added to the registry without playouts here fails
/// (they need the game's type and its player counts, so they cannot come from the catalogue).
#[test]
fn every_game_of_the_catalogue_has_typed_playouts() {
    for game in AnyGame::catalogue() {
        assert!(
            RUNS.iter().any(|(id, _)| *id == game.id),
            "{} has no playouts in tests/typed_views.rs",
            game.id
        );
    }
}

/// A closed object model (`additionalProperties: false`), or a union of them.
fn assert_closed(s: &Value, name: &str) {
    if let Some(r) = s["$ref"].as_str() {
        let target = r.trim_start_matches("#/components/schemas/");
        return assert_closed(schema(target), target);
    }
    match s["oneOf"].as_array().or(s["anyOf"].as_array()) {
        Some(items) => items.iter().for_each(|i| assert_closed(i, name)),
        None => assert_eq!(s["additionalProperties"], json!(false), "{name} is closed"),
    }
}

/// The models are models, not `object`: each has its required fields and is closed.
#[test]
fn the_view_schemas_are_typed_models() {
    let required = |name: &str| -> Vec<String> {
        serde_json::from_value(schema(name)["required"].clone())
            .unwrap_or_else(|_| panic!("{name} lists its required fields"))
    };
    let games = AnyGame::catalogue();
    for game in games.iter().map(|g| prefix(g.id)) {
        let game = game.as_str();
        let table = format!("{game}Table");
        // The view contract of the `Game` trait (`Game::Table`, `Game::Seat`).
        assert!(
            required(&table).contains(&"phase".to_string()),
            "{table} requires `phase`"
        );
        let seat = format!("{game}Seat");
        assert!(
            required(&seat).contains(&"seat".to_string()),
            "{seat} requires `seat`"
        );
        for name in [table, seat, format!("{game}RoundDetail")] {
            assert_closed(schema(&name), &name);
        }
        let outcome = format!("{game}EventOutcome");
        let variants = schema(&outcome)["oneOf"].as_array().unwrap();
        for v in variants {
            let name = v["$ref"]
                .as_str()
                .expect("each outcome is a model of its own")
                .trim_start_matches("#/components/schemas/");
            let v = schema(name);
            assert_eq!(v["title"].as_str(), Some(name), "{v}");
            assert!(name.starts_with(game) || name == "Retracted", "{name}");
            assert_eq!(v["additionalProperties"], json!(false), "{v}");
            assert!(v["required"].as_array().unwrap().contains(&json!("type")));
        }
        // The match view of this game: its own table, seat, options and score sheet.
        let view = &schema(&format!("{game}MatchView"))["properties"];
        let r = |name: &str| json!(format!("#/components/schemas/{name}"));
        assert_eq!(view["table"]["$ref"], r(&format!("{game}Table")));
        assert_eq!(view["config"]["$ref"], r(&format!("{game}Config")));
        assert_eq!(view["scores"]["$ref"], r(&format!("{game}ScoreSheet")));
        assert_eq!(view["you"]["oneOf"][0]["$ref"], r(&format!("{game}Seat")));
        assert_eq!(view["you"]["oneOf"][1], json!({"type": "null"}));
        assert_eq!(
            schema(&format!("{game}Legal"))["properties"]["actions"]["items"],
            json!({"$ref": format!("#/components/schemas/{game}Action")})
        );
        assert_eq!(
            schema(&format!("{game}RoundScore"))["properties"]["detail"]["$ref"],
            r(&format!("{game}RoundDetail"))
        );
    }
    // The game-wide unions are gone from the views: each game's document names its own models.
    for gone in [
        "GameTable",
        "GameSeat",
        "GameOutcome",
        "GameRoundDetail",
        "LoggedAction",
        "DumpOutcome",
        "UndoOutcome",
    ] {
        assert!(
            spec()["components"]["schemas"].get(gone).is_none(),
            "{gone}"
        );
    }
}

/// Every union the server answers with is discriminated (`oneOf` + `discriminator`): the match
/// view, the legal list, the log's events and the score sheet by their `game` (a `const` in each
/// game's model), each game's actions and outcomes by their `type`; the mapping names every
/// branch, and each branch requires its tag with exactly the mapped value.
#[test]
fn the_unions_are_discriminated() {
    let tag_values = |s: &Value, property: &str| -> Vec<Value> {
        let p = &s["properties"][property];
        match (&p["const"], p["enum"].as_array()) {
            (Value::Null, Some(e)) => e.clone(),
            (c, _) if !c.is_null() => vec![c.clone()],
            _ => panic!("{property} is a tag: {s}"),
        }
    };
    let mut checked = 0;
    let games = AnyGame::catalogue();
    let mut unions: Vec<String> = [
        "MatchView",
        "Legal",
        "EventView",
        "ScoreSheet",
        "CreateMatch",
        "CreateTournament",
        "TournamentView",
    ]
    .map(String::from)
    .to_vec();
    for g in &games {
        let p = prefix(g.id);
        unions.extend([format!("{p}Action"), format!("{p}EventOutcome")]);
    }
    for name in &unions {
        let u = schema(name);
        let branches = u["oneOf"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} is a oneOf"));
        let property = u["discriminator"]["propertyName"]
            .as_str()
            .unwrap_or_else(|| panic!("{name} has a discriminator"));
        let mapping = u["discriminator"]["mapping"].as_object().unwrap();
        assert_eq!(mapping.len(), branches.len(), "{name}: a value per branch");
        for b in branches {
            let target = b["$ref"]
                .as_str()
                .unwrap_or_else(|| panic!("{name}: a model"));
            let model = schema(target.trim_start_matches("#/components/schemas/"));
            assert!(
                model["required"]
                    .as_array()
                    .unwrap()
                    .contains(&json!(property)),
                "{target} requires {property}"
            );
            let values = tag_values(model, property);
            assert_eq!(values.len(), 1, "{target}: one {property}");
            assert_eq!(
                mapping[values[0].as_str().unwrap()],
                json!(target),
                "{name}"
            );
            checked += 1;
        }
        if ["MatchView", "Legal", "EventView", "ScoreSheet"].contains(&name.as_str()) {
            assert_eq!(property, "game");
            assert_eq!(branches.len(), games.len(), "{name}: one model per game");
        }
    }
    assert!(checked > 100, "{checked}");
}

/// The models a union lists, in order, each with the index of the union's branch it comes from
/// (references resolved, nested unions flattened).
fn leaves(s: &'static Value, branch: usize, out: &mut Vec<(usize, &'static Value)>) {
    if let Some(r) = s["$ref"].as_str() {
        return leaves(
            schema(r.trim_start_matches("#/components/schemas/")),
            branch,
            out,
        );
    }
    match s["oneOf"].as_array().or(s["anyOf"].as_array()) {
        Some(items) => items.iter().for_each(|i| leaves(i, branch, out)),
        None => out.push((branch, s)),
    }
}

/// The values a model's `type` may take (None: any).
fn type_tag(s: &Value) -> Option<Vec<Value>> {
    let t = &s["properties"]["type"];
    let t = match t["$ref"].as_str() {
        Some(r) => schema(r.trim_start_matches("#/components/schemas/")),
        None => t,
    };
    t["enum"].as_array().cloned()
}

/// A generated client that takes the first model of a union whose required fields are present
/// (openapi-python-client does: it ignores `additionalProperties`) picks the right one only if no
/// model comes before another whose required fields include all of its own (and more). Models
/// with the very same required fields (Dump's and Bonus-Malus' seats) cannot be told apart by any
/// client; the match's `game` says which it is.
#[test]
fn each_union_lists_a_model_before_any_that_requires_more() {
    for union in [
        "GameAction",
        "MembersOnlyLoggedAction",
        "ByHookOrCrookLoggedAction",
    ] {
        let u = schema(union);
        let mut models = Vec::new();
        for (b, item) in u["anyOf"]
            .as_array()
            .or(u["oneOf"].as_array())
            .unwrap()
            .iter()
            .enumerate()
        {
            leaves(item, b, &mut models);
        }
        let required = |s: &Value| -> std::collections::BTreeSet<String> {
            serde_json::from_value(s["required"].clone()).unwrap_or_default()
        };
        for (i, &(bi, a)) in models.iter().enumerate() {
            for &(bj, b) in &models[i + 1..] {
                if bi == bj {
                    continue; // one game's own models: told apart by their `type`
                }
                if let (Some(ta), Some(tb)) = (type_tag(a), type_tag(b)) {
                    if !ta.iter().any(|t| tb.contains(t)) {
                        continue;
                    }
                }
                let (ra, rb) = (required(a), required(b));
                assert!(
                    !(ra.is_subset(&rb) && ra != rb),
                    "{union}: {} comes before {}, which requires all it does and more",
                    a["title"].as_str().unwrap_or(&a["description"].to_string()),
                    b["title"].as_str().unwrap_or(&b["description"].to_string()),
                );
            }
        }
    }
}

impl Schemas {
    /// Every view of a match driven through `AnyGame` now.
    fn check_any(&mut self, g: &AnyGame, players: usize) {
        // The text the match view carries (written straight from the model) is the view.
        let table: Value = serde_json::from_str(g.table_json().get()).expect("table text");
        assert_eq!(table, g.table_view(), "{} table text", self.game);
        self.check(&self.table, &table, "table view");
        self.check(&self.match_table, &table, "table view (MatchView.table)");
        for s in 0..players {
            let you: Value = serde_json::from_str(g.seat_json(s).get()).expect("seat text");
            assert_eq!(you, g.seat_view(s), "{} seat {s} text", self.game);
            self.check(&self.seat, &you, "seat view");
            self.check(&self.match_you, &you, "seat view (MatchView.you)");
        }
        for actor in (0..players).map(Actor::Seat).chain([Actor::Table]) {
            let legal = g.legal_actions(actor);
            for a in &legal {
                self.check(&self.action, a, "legal action");
            }
            self.check(&self.legal_actions, &Value::from(legal), "legal list");
        }
        let mut sheet = serde_json::to_value(g.score_sheet()).unwrap();
        self.sheet_game(&mut sheet);
        self.check(&self.score_sheet, &sheet, "score sheet");
        for round in sheet["rounds"].as_array().unwrap() {
            self.check(&self.detail, &round["detail"], "round detail");
        }
    }
}

/// The hand-written scenarios of every game (`tests/scenarios`, the rules runner's corpus: table
/// and service dealing, tallies, options such as two-player `alternate`, refusals), replayed
/// through `AnyGame`: every accepted action's outcomes and the views after it fit their schemas.
/// (Refused steps are skipped; `tests/scenarios.rs` checks them.)
#[test]
fn the_scenarios_views_fit_their_schemas() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut files = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        if dir.is_dir() {
            for f in std::fs::read_dir(&dir).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "json") {
                    files.push(f);
                }
            }
        }
    }
    files.sort();
    let mut accepted = 0;
    let mut games_played = std::collections::BTreeSet::new();
    for path in &files {
        let sc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        if sc.get("create_error").is_some() {
            continue;
        }
        let id = sc["game"].as_str().unwrap();
        let players = sc["players"].as_u64().unwrap() as usize;
        let dealing: Dealing =
            serde_json::from_value(sc.get("dealing").cloned().unwrap_or(json!("table"))).unwrap();
        let config = sc.get("config").cloned();
        let mut g = AnyGame::new(id, config, players, dealing).unwrap();
        let mut s = Schemas::new(&prefix(id));
        let sole = |g: &AnyGame| {
            let t = g.to_act();
            match (t.seats.as_slice(), t.table) {
                ([s], false) => Some(Actor::Seat(*s)),
                ([], true) => Some(Actor::Table),
                _ => None,
            }
        };
        for step in sc["steps"].as_array().into_iter().flatten() {
            if step.get("error").is_some() {
                continue;
            }
            let seed = step["seed"]
                .as_str()
                .and_then(clubroom::rules::Seed::from_hex);
            let mut todo: Vec<(Option<Actor>, Value, Option<clubroom::rules::Seed>)> = vec![];
            if let Some(a) = step.get("action") {
                let actor = step
                    .get("seat")
                    .map(|s| Actor::from_seat(s.as_u64().map(|s| s as usize)));
                todo.push((actor, a.clone(), seed));
            }
            for a in step["actions"].as_array().into_iter().flatten() {
                todo.push((None, a.clone(), None));
            }
            for c in step["cards"].as_array().into_iter().flatten() {
                todo.push((None, json!({"type": "play", "card": c}), None));
            }
            for (actor, action, seed) in todo {
                let Some(actor) = actor.or_else(|| sole(&g)) else {
                    break;
                };
                let Ok(outcomes) = g.apply(actor, &action, seed.as_ref()) else {
                    break;
                };
                accepted += 1;
                games_played.insert(id.to_string());
                s.check_outcomes(&outcomes);
                s.check_any(&g, players);
            }
        }
    }
    assert!(
        files.len() > 20 && accepted > 500,
        "{} files, {accepted} actions",
        files.len()
    );
    for game in AnyGame::catalogue() {
        assert!(
            games_played.contains(game.id),
            "{}: no scenario in tests/scenarios has an action accepted",
            game.id
        );
    }
}

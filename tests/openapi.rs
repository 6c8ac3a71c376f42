//! The checked-in spec (`openapi/openapi.json`) must be what the code serves. After a deliberate
//! change, regenerate it with `UPDATE_OPENAPI=1 cargo test --test openapi` (or `cargo run -- openapi`).

use serde_json::Value;

#[test]
fn the_checked_in_spec_matches_the_code() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi/openapi.json");
    let generated = clubroom::app::openapi_json();
    if std::env::var("UPDATE_OPENAPI").is_ok() {
        std::fs::write(&path, &generated).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).expect("openapi/openapi.json exists");
    assert!(
        on_disk == generated,
        "openapi/openapi.json is out of date: run UPDATE_OPENAPI=1 cargo test --test openapi"
    );
}

#[test]
fn every_operation_documents_its_errors_with_examples_and_every_action_type_is_in_the_spec() {
    let spec: Value = serde_json::from_str(&clubroom::app::openapi_json()).unwrap();
    let post = &spec["paths"]["/v1/matches/{id}/actions"]["post"];
    for status in [
        "201", "400", "401", "403", "404", "409", "412", "413", "422",
    ] {
        assert!(
            post["responses"][status].is_object(),
            "actions: {status} documented"
        );
    }
    assert!(post["responses"]["422"]["content"]["application/problem+json"]["example"].is_object());
    let text = spec.to_string();
    for t in ["\"deal\"", "\"play\"", "\"tally\""] {
        assert!(text.contains(t), "action type {t} in the spec");
    }
    assert!(spec["components"]["schemas"]["DumpAction"].is_object());
    assert!(spec["components"]["securitySchemes"]["bearer"].is_object());
}

/// Generated clients name a union's variants after their `title` (openapi-python-client makes
/// `DumpPlay` of it; without a title, `DumpActionType1`, which changes when a variant is added
/// before it). Every game's action variants carry one, unique across the document.
#[test]
fn every_action_variant_has_a_title_of_its_own_for_generated_clients() {
    let spec: Value = serde_json::from_str(&clubroom::app::openapi_json()).unwrap();
    let schemas = spec["components"]["schemas"].as_object().unwrap();
    let mut names: Vec<String> = schemas.keys().cloned().collect();
    // Every game of the catalogue: its actions are the model `GameAction` lists under its title.
    for game in clubroom::rules::AnyGame::catalogue() {
        let model = schemas["GameAction"]["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["description"] == game.title)
            .and_then(|m| m["$ref"].as_str())
            .unwrap_or_else(|| {
                panic!(
                    "{}: GameAction lists no model titled {:?}",
                    game.id, game.title
                )
            })
            .trim_start_matches("#/components/schemas/");
        let game = model.trim_end_matches("Action");
        let union = &schemas[model];
        let variants = union["oneOf"]
            .as_array()
            .expect("a game's actions are a oneOf");
        for v in variants {
            // Each variant is a model of its own (`DumpPlay`), named by its title.
            let name = v["$ref"]
                .as_str()
                .expect("a variant is a reference to its model")
                .trim_start_matches("#/components/schemas/");
            let v = &schemas[name];
            assert_eq!(v["title"].as_str(), Some(name));
            let kind = v["properties"]["type"]["enum"][0].as_str().unwrap();
            let title = v["title"]
                .as_str()
                .unwrap_or_else(|| panic!("{game}Action `{kind}` has no title"));
            let expected: String = kind
                .split('_')
                .map(|w| w[..1].to_uppercase() + &w[1..])
                .collect();
            assert_eq!(title, format!("{game}{expected}"), "{game}Action `{kind}`");
        }
    }
    // Schema names are unique by construction (a map); each title names its own schema.
    names.sort();
    assert!(names.binary_search(&"DumpPlay".to_string()).is_ok());
}

/// An optional request body is said by `required: false` alone: no `null` alternative, which
/// generated clients would send or choke on (openapi-python-client sends its "unset" marker).
#[test]
fn the_undo_body_is_optional_and_not_nullable() {
    let spec: Value = serde_json::from_str(&clubroom::app::openapi_json()).unwrap();
    let body = &spec["paths"]["/v1/matches/{id}/undo"]["post"]["requestBody"];
    assert_ne!(
        body["required"],
        Value::Bool(true),
        "the body may be left out"
    );
    assert_eq!(
        body["content"]["application/json"]["schema"],
        serde_json::json!({"$ref": "#/components/schemas/UndoRequest"})
    );
}

/// `Prefer: return=minimal` is its own documented response: 200 with `RecordedMinimal`, beside
/// the default 201 with `Recorded`, on both writes; no untagged union a client cannot tell apart.
#[test]
fn the_minimal_write_answer_is_a_response_of_its_own() {
    let spec: Value = serde_json::from_str(&clubroom::app::openapi_json()).unwrap();
    for path in ["/v1/matches/{id}/actions", "/v1/matches/{id}/undo"] {
        let r = &spec["paths"][path]["post"]["responses"];
        let schema = |status: &str| {
            r[status]["content"]["application/json"]["schema"]["$ref"]
                .as_str()
                .unwrap_or("")
                .to_string()
        };
        assert_eq!(schema("201"), "#/components/schemas/Recorded", "{path}");
        assert_eq!(
            schema("200"),
            "#/components/schemas/RecordedMinimal",
            "{path}"
        );
        assert!(
            r["200"]["headers"]["Preference-Applied"].is_object(),
            "{path}"
        );
        assert!(
            r["201"]["headers"]["Preference-Applied"].is_null(),
            "{path}"
        );
    }
    assert!(spec["components"]["schemas"]["RecordedAnswer"].is_null());
}

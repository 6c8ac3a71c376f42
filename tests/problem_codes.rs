//! `Problem.code` is an `enum` of every stable code the server sends (issue 23): the codes are
//! read from the error types in the source, where each names its own (a `fn code` of a game's
//! refusals, a `(StatusCode, "code")` arm of `src/error.rs`, an `ApiError::new(status, "code", ..)`
//! or `bad_request("code", ..)` of a route, a `code: "..."` of a quick-log error, a documented
//! `const` code), and must be exactly the spec's list: a new code not in the spec fails, and so
//! does a listed code that nothing sends any more.

use regex::Regex;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// Every `.rs` file under `dir`, but the throwaway eighth game (compiled only with the
/// `test-game` feature, whose spec is another).
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "odd_or_even.rs")
        {
            out.push(path);
        }
    }
}

/// The codes the error types of `text` (a source file, its unit tests left out) name.
fn codes_in(text: &str, out: &mut BTreeSet<String>) {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    let code = r#""([a-z][a-z0-9_]*)""#;
    let patterns = [
        format!(r"StatusCode::[A-Z_]+\s*,\s*{code}"),
        format!(r"\b(?:bad_request|forbidden|err|too_many)\(\s*{code}"),
        format!(r"\bcode:\s*{code}"),
        format!(r"Rule\(\s*{code}"),
        format!(
            r"code[^\n]*\n(?:\s*///[^\n]*\n)*\s*(?:pub(?:\([a-z]+\))? )?const [A-Z_]+: &str = {code}"
        ),
    ];
    for p in patterns {
        for c in Regex::new(&p).unwrap().captures_iter(text) {
            out.insert(c[1].to_string());
        }
    }
    // The bodies of `fn code(&self) -> &'static str` and of `let code = match ... { }`: every
    // literal they return.
    let literal = Regex::new(code).unwrap();
    let starts = ["fn code(&self) -> &'static str {", "let code = match "]
        .iter()
        .flat_map(|marker| text.match_indices(marker).map(|(i, _)| i))
        .collect::<Vec<_>>();
    for start in starts {
        let body = &text[start..];
        let open = body.find('{').unwrap();
        let mut depth = 0;
        let mut end = body.len();
        for (i, ch) in body[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        for c in literal.captures_iter(&body[open..end]) {
            out.insert(c[1].to_string());
        }
    }
}

fn source_codes() -> BTreeSet<String> {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut codes = BTreeSet::new();
    for f in files {
        codes_in(&std::fs::read_to_string(&f).unwrap(), &mut codes);
    }
    codes
}

#[test]
fn problem_code_is_an_enum_of_exactly_the_codes_the_error_types_send() {
    let spec: Value = serde_json::from_str(&clubroom::app::openapi_json()).unwrap();
    let listed: BTreeSet<String> = spec["components"]["schemas"]["Problem"]["properties"]["code"]
        ["enum"]
        .as_array()
        .expect("Problem.code is an enum")
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    let sent = source_codes();
    let missing: Vec<_> = sent.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&sent).collect();
    assert!(
        missing.is_empty(),
        "codes the server sends but Problem.code does not list (add them to routes::spec::PROBLEM_CODES): {missing:?}"
    );
    assert!(
        stale.is_empty(),
        "codes Problem.code lists but nothing sends (remove them from routes::spec::PROBLEM_CODES): {stale:?}"
    );
    // The scan reads every kind of site: a game's refusal, a service error, a route's, the
    // edge's, a quick-log error, the hidden refusal.
    for c in [
        "must_follow_suit",
        "move_required",
        "match_not_found",
        "invalid_body",
        "request_timeout",
        "result_missing",
        "not_playable",
        "too_many_creates",
        "unknown_game",
    ] {
        assert!(sent.contains(c), "the scan finds {c}");
    }
}

/// The scan itself: each kind of site yields its code, and nothing else does.
#[test]
fn the_scan_reads_each_kind_of_site() {
    let text = r#"
        fn code(&self) -> &'static str {
            match self { A => "alpha_one", B => { "beta_two" } }
        }
        let (s, c) = match e { X => (StatusCode::CONFLICT, "gamma_three") };
        ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "delta_four",
            "not a code, a detail",
        );
        bad_request("epsilon_five", "detail words");
        QuickLogError { code: "zeta_six", message: m };
        let code = match &e {
            Setup::Unknown(_) => "theta_eight",
            Setup::Rule(code, _) => code,
        };
        /// The code told to anyone else.
        pub const HIDDEN: &str = "eta_seven";
        pub const NOT_A_CODE: &str = "some_table";
        let label = "not_a_code_either";
        #[cfg(test)]
        bad_request("in_a_test", "x");
    "#;
    let mut codes = BTreeSet::new();
    codes_in(text, &mut codes);
    let expected: BTreeSet<String> = [
        "alpha_one",
        "beta_two",
        "gamma_three",
        "delta_four",
        "epsilon_five",
        "zeta_six",
        "eta_seven",
        "theta_eight",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(codes, expected);
}

//! The generic rules runner: every `tests/scenarios/<game>/*.json` file is a scenario (a match, the
//! actions recorded, the expected outcomes, states, scores or error codes), run against the pure
//! engine through `AnyGame`. See `tests/scenarios/README.md` for the format.

use std::path::{Path, PathBuf};

use clubroom::rules::{Actor, AnyGame, Dealing, Seed};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    #[allow(dead_code)]
    description: Option<String>,
    game: String,
    players: usize,
    #[serde(default)]
    dealing: Dealing,
    config: Option<Value>,
    /// When set, creating the match must fail with this code.
    create_error: Option<String>,
    #[serde(default)]
    steps: Vec<Step>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Step {
    /// The acting seat (`null` = the table). Omitted: whoever `to_act` names alone.
    #[serde(default, deserialize_with = "some_option")]
    seat: Option<Option<usize>>,
    action: Option<Value>,
    /// Several actions, each by whoever is alone to act.
    actions: Option<Vec<Value>>,
    /// Shorthand: `play {card}` for each card, by whoever is alone to act.
    cards: Option<Vec<String>>,
    /// Service dealing: the shuffle seed (64 hex digits) of a deal.
    seed: Option<String>,
    /// The action must be refused with this code (state unchanged).
    error: Option<String>,
    /// The outcomes of the (last) action must match these (subset match, same length).
    outcomes: Option<Value>,
    /// State checks after the step: `table`, `scores`, `to_act`, `you` ({seat: view}), `legal` ({seat|"table": [...]}).
    expect: Option<Value>,
}

fn some_option<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<usize>>, D::Error> {
    Ok(Some(Option::deserialize(d)?))
}

/// `actual` matches `expected` when every key of an expected object matches, arrays match
/// element by element with the same length, and scalars are equal.
fn matches(expected: &Value, actual: &Value, path: &str) -> Result<(), String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                let av = a
                    .get(k)
                    .ok_or_else(|| format!("{path}.{k}: missing in {actual}"))?;
                matches(ev, av, &format!("{path}.{k}"))?;
            }
            Ok(())
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                return Err(format!(
                    "{path}: expected {} items, got {}: {actual}",
                    e.len(),
                    a.len()
                ));
            }
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                matches(ev, av, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        _ if expected == actual => Ok(()),
        _ => Err(format!("{path}: expected {expected}, got {actual}")),
    }
}

struct Run {
    game: AnyGame,
    log: Vec<(Actor, Value, Option<Seed>)>,
    template: (String, Option<Value>, usize, Dealing),
}

impl Run {
    fn sole_actor(&self) -> Result<Actor, String> {
        let t = self.game.to_act();
        match (t.seats.as_slice(), t.table) {
            ([s], false) => Ok(Actor::Seat(*s)),
            ([], true) => Ok(Actor::Table),
            _ => Err(format!("no single actor to act: {t:?}")),
        }
    }

    fn act(
        &mut self,
        actor: Actor,
        action: Value,
        seed: Option<Seed>,
        error: Option<&str>,
    ) -> Result<Value, String> {
        let before = (self.game.table_view(), self.game.score_sheet());
        let result = self.game.apply(actor, &action, seed.as_ref());
        match (result, error) {
            (Ok(out), None) => {
                self.log.push((actor, action, seed));
                Ok(Value::Array(out))
            }
            (Ok(_), Some(code)) => Err(format!(
                "{action} by {actor:?} was accepted; expected error {code}"
            )),
            (Err(e), None) => Err(format!("{action} by {actor:?} refused: {e:?}")),
            (Err(e), Some(code)) => {
                let got = match &e {
                    clubroom::rules::ActionError::Illegal(r) => r.code,
                    clubroom::rules::ActionError::Malformed(_) => "malformed",
                };
                if got != code {
                    return Err(format!(
                        "{action} by {actor:?}: expected error {code}, got {e:?}"
                    ));
                }
                if (self.game.table_view(), self.game.score_sheet()) != before {
                    return Err(format!("{action}: state changed by a refused action"));
                }
                Ok(Value::Null)
            }
        }
    }

    fn check(&self, expect: &Value) -> Result<(), String> {
        let obj = expect.as_object().ok_or("expect must be an object")?;
        for (k, v) in obj {
            match k.as_str() {
                "table" => matches(v, &self.game.table_view(), "table")?,
                "scores" => matches(
                    v,
                    &serde_json::to_value(self.game.score_sheet()).unwrap(),
                    "scores",
                )?,
                "to_act" => {
                    let t = self.game.to_act();
                    matches(
                        v,
                        &serde_json::json!({"seats": t.seats, "table": t.table}),
                        "to_act",
                    )?
                }
                "round" => matches(v, &Value::from(self.game.round()), "round")?,
                "you" => {
                    for (seat, view) in v.as_object().ok_or("you: {seat: view}")? {
                        let s: usize = seat.parse().map_err(|_| "you: seat keys are numbers")?;
                        matches(view, &self.game.seat_view(s), &format!("you[{s}]"))?;
                    }
                }
                "legal" => {
                    for (who, list) in v.as_object().ok_or("legal: {seat|table: [...]}")? {
                        let actor = if who == "table" {
                            Actor::Table
                        } else {
                            Actor::Seat(who.parse().map_err(|_| "legal: bad seat")?)
                        };
                        matches(
                            list,
                            &Value::Array(self.game.legal_actions(actor)),
                            &format!("legal[{who}]"),
                        )?;
                    }
                }
                other => return Err(format!("unknown expectation '{other}'")),
            }
        }
        Ok(())
    }

    /// Replaying the accepted actions from scratch gives the same state.
    fn check_replay(&self) -> Result<(), String> {
        let (id, config, players, dealing) = &self.template;
        let mut g =
            AnyGame::new(id, config.clone(), *players, *dealing).map_err(|e| e.to_string())?;
        for (actor, action, seed) in &self.log {
            g.apply(*actor, action, seed.as_ref())
                .map_err(|e| format!("replay refused {action}: {e}"))?;
        }
        if g.table_view() != self.game.table_view() || g.score_sheet() != self.game.score_sheet() {
            return Err("replaying the log gives a different state".into());
        }
        Ok(())
    }
}

fn run_scenario(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let sc: Scenario =
        serde_json::from_str(&text).map_err(|e| format!("bad scenario file: {e}"))?;
    let created = AnyGame::new(&sc.game, sc.config.clone(), sc.players, sc.dealing);
    let game = match (created, &sc.create_error) {
        (Ok(g), None) => g,
        (Err(e), Some(code)) => {
            let got = match &e {
                clubroom::rules::SetupError::Rule(c, _) => c,
                clubroom::rules::SetupError::PlayerCount { .. } => "bad_player_count",
                clubroom::rules::SetupError::BadConfig(_) => "invalid_config",
                clubroom::rules::SetupError::UnknownGame(_) => "unknown_game",
            };
            return if got == code {
                Ok(())
            } else {
                Err(format!("create: expected {code}, got {e:?}"))
            };
        }
        (Ok(_), Some(code)) => return Err(format!("create succeeded; expected {code}")),
        (Err(e), None) => return Err(format!("create failed: {e}")),
    };
    let mut run = Run {
        game,
        log: vec![],
        template: (sc.game.clone(), sc.config.clone(), sc.players, sc.dealing),
    };
    for (i, step) in sc.steps.iter().enumerate() {
        let ctx = |e: String| format!("step {i}: {e}");
        let seed = match &step.seed {
            Some(h) => {
                Some(Seed::from_hex(h).ok_or_else(|| ctx("seed must be 64 hex digits".into()))?)
            }
            None => None,
        };
        let mut outcomes = Value::Null;
        if let Some(action) = &step.action {
            let actor = match step.seat {
                Some(s) => Actor::from_seat(s),
                None => run.sole_actor().map_err(ctx)?,
            };
            outcomes = run
                .act(actor, action.clone(), seed, step.error.as_deref())
                .map_err(ctx)?;
        }
        let mut batch: Vec<Value> = step.actions.clone().unwrap_or_default();
        for c in step.cards.iter().flatten() {
            batch.push(serde_json::json!({"type": "play", "card": c}));
        }
        for (j, a) in batch.into_iter().enumerate() {
            let actor = run
                .sole_actor()
                .map_err(|e| ctx(format!("action {j}: {e}")))?;
            outcomes = run
                .act(actor, a, None, None)
                .map_err(|e| ctx(format!("action {j}: {e}")))?;
        }
        if let Some(expected) = &step.outcomes {
            matches(expected, &outcomes, "outcomes").map_err(ctx)?;
        }
        if let Some(expect) = &step.expect {
            run.check(expect).map_err(ctx)?;
        }
    }
    run.check_replay()
}

fn scenario_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir)
        .expect("tests/scenarios exists")
        .flatten()
    {
        let p = entry.path();
        if p.is_dir() {
            scenario_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "json") {
            out.push(p);
        }
    }
}

#[test]
fn every_scenario_file_plays_out_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut files = vec![];
    scenario_files(&root, &mut files);
    files.sort();
    assert!(!files.is_empty(), "expected scenario files under {root:?}");
    // Every game of the catalogue has its scenarios, in its directory (its id, `_` for `-`).
    for game in AnyGame::catalogue() {
        let dir = root.join(game.id.replace('-', "_"));
        assert!(
            files.iter().any(|f| f.starts_with(&dir)),
            "{}: no scenario file in {}",
            game.id,
            dir.display()
        );
    }
    let only = std::env::var("SCENARIO").ok();
    let mut failures = vec![];
    let mut ran = 0;
    for f in &files {
        let name = f.strip_prefix(&root).unwrap().display().to_string();
        if only.as_ref().is_some_and(|o| !name.contains(o.as_str())) {
            continue;
        }
        ran += 1;
        if let Err(e) = run_scenario(f) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} scenarios failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{ran} scenarios passed");
}

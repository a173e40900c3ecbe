//! Seed 003's casting delivery kept in the state (003-M17) and the state versions around it: a state
//! of version 1 (no delivery recorded) loads upgraded, and a log written by version 1 replays to the
//! results and states it recorded.
//! Seed 003: a test named `m17_…` covers 003-M17.

use std::path::PathBuf;

use omen_core::{Limits, ScriptedDice};
use omen_rules::stateful::{self, Applied, Game};
use serde_json::{Value, json};

fn hprpg() -> &'static dyn Game {
    stateful::game("hprpg").expect("hprpg keeps state")
}

fn apply(state: &Value, action: Value, dice: &[i64]) -> Applied {
    let mut source = ScriptedDice::new(dice.to_vec());
    let applied = hprpg()
        .apply(state, &action, &mut source, &Limits::default())
        .unwrap_or_else(|e| panic!("{action}: {e}"));
    assert!(source.remaining().is_empty(), "{action}: dice left over");
    applied
}

fn refusal(state: &Value, action: Value) -> String {
    let mut source = ScriptedDice::new(Vec::new());
    match hprpg().apply(state, &action, &mut source, &Limits::default()) {
        Err(error) => error.to_string(),
        Ok(applied) => panic!("{action}: expected a refusal, got {}", applied.summary),
    }
}

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/state")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Jane (003-M22): WILLPOWER 4, ELEMENTAL 3.
fn jane() -> Value {
    hprpg()
        .new_character(&json!({ "sheet": {
            "aspects": { "FITNESS": 1, "CHARM": 1, "INTELLIGENCE": 1, "PRECISION": 1,
                         "DECEPTION": 1, "WILLPOWER": 4, "VITALITY": 1, "INSIGHT": 1,
                         "PERCEPTION": 1 },
            "affinities": { "ELEMENTAL": 3 },
            "fortitude": { "current": 3, "max": 3 },
            "health": { "current": 5, "max": 5 }
        }}))
        .unwrap()
}

/// A TRIA casting of Jane's (DV 8 + 3 − 3 = 8, WILLPOWER 4 + ELEMENTAL 3 = 7 dice) delivered as
/// `delivery` says; 1-4-5-8-8-9-11 scores 4 successes and 1 catastrophe: net 3.
fn jane_short_of(delivery: Value) -> Value {
    let mut cast = json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 3 });
    for (key, value) in delivery.as_object().unwrap() {
        cast[key] = value.clone();
    }
    let short = apply(&jane(), cast, &[1, 4, 5, 8, 8, 9, 11]);
    assert_eq!(short.result["net"], 3);
    assert_eq!(short.result["outcome"], "short");
    short.state
}

/// 003-M17: a reduction keeps the kind of spell. Each of these was allowed while the waiting
/// casting kept only its requirement: RANGED to 3 targets (6 required) → WANDTIP to 1 (1 required)
/// or MASS at 4; MASS at 6 → RANGED to 1 (2 required).
#[test]
fn m17_a_waiting_casting_records_its_delivery_and_refuses_another() {
    let ranged = jane_short_of(json!({ "delivery": "ranged", "targets": 3 }));
    assert_eq!(ranged["casting"]["delivery"], "ranged");
    assert_eq!(ranged["casting"]["progress"]["required"], 6);
    for (asked, name) in [
        (json!({ "delivery": "wandtip", "targets": 1 }), "WANDTIP"),
        (json!({ "delivery": "mass", "required": 4 }), "MASS"),
    ] {
        let mut action = asked;
        action["action"] = json!("reduce-casting");
        let message = refusal(&ranged, action);
        assert!(message.contains("(003-M17)"), "{message}");
        assert!(
            message.contains(&format!("delivered by RANGED, not {name}")),
            "{message}"
        );
    }
    let mass = jane_short_of(json!({ "delivery": "mass", "required": 6 }));
    assert_eq!(mass["casting"]["delivery"], "mass");
    let message = refusal(
        &mass,
        json!({ "action": "reduce-casting", "delivery": "ranged", "targets": 1 }),
    );
    assert!(
        message.contains("delivered by MASS, not RANGED"),
        "{message}"
    );
    // Within its delivery the reduction goes ahead: RANGED to 1 target requires 2, 3 are gathered,
    // so the spell takes effect with 1 success to spare.
    let reduced = apply(
        &ranged,
        json!({ "action": "reduce-casting", "delivery": "ranged", "targets": 1 }),
        &[],
    );
    assert_eq!(reduced.result["outcome"], "cast");
    assert_eq!(reduced.result["spell"]["unused"], 1);
}

/// A new character is written at version 2, in the state itself (a logged action records its state
/// but no version); a version the build does not know is a problem of the state.
#[test]
fn m17_new_states_say_their_version_and_unknown_versions_are_refused() {
    assert_eq!(hprpg().state_version(), 2);
    let state = jane();
    assert_eq!(state["version"], 2);
    assert_eq!(hprpg().load(2, &state).unwrap(), state);
    for version in [0, 3] {
        let mut odd = state.clone();
        odd["version"] = json!(version);
        let message = hprpg().load(2, &odd).unwrap_err().to_string();
        assert!(
            message.contains(&format!("says version {version}")),
            "{message}"
        );
    }
}

/// A state saved by version 1 loads as version 2 with nothing else changed; its waiting casting has
/// no delivery, so a reduction is checked against the requirement alone, as version 1 checked it
/// (the fixture's requirement 2 could be WANDTIP to 2 targets or RANGED to 1).
#[test]
fn m17_a_version_one_state_loads_with_its_casting_delivery_unknown() {
    let saved = fixture("hprpg-v1.json");
    assert!(saved.get("version").is_none());
    let loaded = hprpg().load(1, &saved).unwrap();
    let mut expected = saved.clone();
    expected["version"] = json!(2);
    assert_eq!(loaded, expected);
    assert!(loaded["casting"].get("delivery").is_none());
    // WANDTIP to 1 target requires 1; the fixture gathered 1: the spell takes effect.
    let reduced = apply(
        &loaded,
        json!({ "action": "reduce-casting", "delivery": "wandtip", "targets": 1 }),
        &[],
    );
    assert_eq!(reduced.result["outcome"], "cast");
    // Loading it again (the store loads a row at the version it was written) changes nothing.
    assert_eq!(hprpg().load(2, &loaded).unwrap(), loaded);
}

/// A log written by version 1 (`hprpg-v1-log.json`: a create, a RANGED casting left short, a
/// game-master edit, a reduction to WANDTIP that version 1 allowed, two more casts) replays as the
/// store replays it: each action applied again to its recorded state with its recorded dice gives
/// the recorded result and state, since a state without a version acts as version 1 did; the states
/// a create or an edit recorded are this build's own once upgraded.
#[test]
fn m17_a_log_written_by_version_one_still_replays() {
    let log = fixture("hprpg-v1-log.json");
    let entries = log.as_array().unwrap();
    assert_eq!(entries.len(), 6);
    let mut actions = 0;
    for entry in entries {
        let after = &entry["state_after"];
        assert!(after.get("version").is_none(), "written by version 1");
        match entry["kind"].as_str().unwrap() {
            "create" => {
                let state = hprpg().new_character(&entry["sheet"]).unwrap();
                assert_eq!(hprpg().load(1, after).unwrap(), state);
            }
            "edit" => {
                let version = u32::try_from(entry["state_version"].as_u64().unwrap()).unwrap();
                assert_eq!(version, 1);
                let state = hprpg().load(version, &entry["state"]).unwrap();
                assert_eq!(hprpg().load(version, after).unwrap(), state);
            }
            "action" => {
                let dice: Vec<i64> = serde_json::from_value(entry["dice"].clone()).unwrap();
                let applied = apply(&entry["state_before"], entry["action"].clone(), &dice);
                assert_eq!(applied.result, entry["result"], "{}", entry["sequence"]);
                assert_eq!(applied.state, *after, "{}", entry["sequence"]);
                actions += 1;
            }
            other => panic!("unexpected entry kind {other}"),
        }
    }
    assert_eq!(actions, 4);
    // The reduction version 1 allowed (RANGED to 2 targets → WANDTIP to 1) is refused once the
    // state is upgraded and cast again: the casting now records RANGED.
    let cast = &entries[1];
    let upgraded = hprpg().load(1, &cast["state_before"]).unwrap();
    let dice: Vec<i64> = serde_json::from_value(cast["dice"].clone()).unwrap();
    let short = apply(&upgraded, cast["action"].clone(), &dice);
    assert_eq!(short.state["casting"]["delivery"], "ranged");
    let message = refusal(&short.state, entries[3]["action"].clone());
    assert!(
        message.contains("delivered by RANGED, not WANDTIP"),
        "{message}"
    );
}

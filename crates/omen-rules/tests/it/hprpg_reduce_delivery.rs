//! Seed 003: a reduction of a waiting casting keeps its delivery (003-M17), so the delivery the
//! casting recorded when it was cast is the reduction's own; the action need not name it again.

use omen_core::{Limits, ScriptedDice};
use omen_rules::stateful::{self, Applied, Game};
use serde_json::{Value, json};

fn hprpg() -> &'static dyn Game {
    stateful::game("hprpg").expect("hprpg keeps state")
}

fn apply(state: &Value, action: Value, dice: &[i64]) -> Result<Applied, String> {
    hprpg()
        .apply(
            state,
            &action,
            &mut ScriptedDice::new(dice.to_vec()),
            &Limits::default(),
        )
        .map_err(|e| e.to_string())
}

/// Jane (003-M22): Affinity 3 in ELEMENTAL with WILLPOWER 4, 7 dice at DV 8 + 3 − 3 = 8 rolling
/// 1-4-5-8-8-9-11: 4 successes less 1 catastrophe, net 3, short of RANGED at 3 targets (6).
fn jane_waiting_on_three_ranged_targets() -> Value {
    let jane = hprpg()
        .new_character(&json!({ "sheet": {
            "aspects": { "WILLPOWER": 4, "CHARM": 1, "INTELLIGENCE": 1, "PRECISION": 1,
                         "DECEPTION": 1, "FITNESS": 1, "VITALITY": 1, "INSIGHT": 1,
                         "PERCEPTION": 1 },
            "affinities": { "ELEMENTAL": 3 }
        }}))
        .expect("a valid sheet");
    let cast = json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 3,
                       "aspect": "WILLPOWER", "delivery": "ranged", "targets": 3,
                       "optional": { "overpower": 1 } });
    let short = apply(&jane, cast, &[1, 4, 5, 8, 8, 9, 11]).expect("cast");
    assert_eq!(short.result["outcome"], "short", "{}", short.result);
    assert_eq!(short.state["casting"]["delivery"], "ranged");
    short.state
}

#[test]
fn m17_a_reduction_without_a_delivery_keeps_the_one_the_casting_recorded() {
    // Regression: reduce-casting required `delivery` although the waiting casting records it and
    // a reduction may not change it.
    let waiting = jane_waiting_on_three_ranged_targets();
    // 2 targets: RANGED requires 4, more than the 3 gathered: still waiting, still RANGED.
    let two = apply(
        &waiting,
        json!({ "action": "reduce-casting", "targets": 2 }),
        &[],
    )
    .expect("a reduction");
    assert_eq!(two.result["outcome"], "short");
    assert_eq!(two.state["casting"]["delivery"], "ranged");
    assert_eq!(two.state["casting"]["progress"]["required"], 4);
    // 1 target: 2 required of the 3 gathered, so it takes effect with 1 optional success, spent
    // on the OVERPOWER asked at the cast: POWER 3 + 1 = 4, as the seed's Jane.
    let one = apply(
        &waiting,
        json!({ "action": "reduce-casting", "targets": 1 }),
        &[],
    )
    .expect("a reduction");
    assert_eq!(one.result["outcome"], "cast");
    assert_eq!(one.result["spell"]["power"], 4);
    // Naming the recorded delivery is the same; naming another is still refused.
    let named = apply(
        &waiting,
        json!({ "action": "reduce-casting", "delivery": "ranged", "targets": 1 }),
        &[],
    )
    .expect("a reduction");
    assert_eq!(named.result, one.result);
    let other = apply(
        &waiting,
        json!({ "action": "reduce-casting", "delivery": "mass", "required": 4 }),
        &[],
    )
    .expect_err("another delivery");
    assert!(other.contains("delivered by RANGED, not MASS"), "{other}");
}

#[test]
fn m17_a_casting_that_records_no_delivery_needs_the_reduction_to_name_it() {
    // A casting left waiting by state version 1 has no delivery: the reduction must say which.
    let mut waiting = jane_waiting_on_three_ranged_targets();
    waiting["casting"]
        .as_object_mut()
        .expect("a casting")
        .remove("delivery");
    let message = apply(
        &waiting,
        json!({ "action": "reduce-casting", "targets": 1 }),
        &[],
    )
    .expect_err("no delivery to keep");
    assert!(message.contains("name it: delivery"), "{message}");
    let named = apply(
        &waiting,
        json!({ "action": "reduce-casting", "delivery": "ranged", "targets": 1 }),
        &[],
    )
    .expect("named");
    assert_eq!(named.result["outcome"], "cast");
}

#[test]
fn m17_the_reduce_casting_schema_does_not_require_a_delivery() {
    let schema = hprpg().schemas()["action"].clone();
    let variants = schema["oneOf"].as_array().expect("a tagged union");
    let reduce = variants
        .iter()
        .find(|v| v["properties"]["action"]["const"] == "reduce-casting")
        .expect("reduce-casting");
    let required = reduce["required"].as_array().expect("required");
    assert!(!required.contains(&json!("delivery")), "{reduce}");
    assert!(
        reduce["properties"]["delivery"]["description"]
            .as_str()
            .is_some_and(|d| d.contains("recorded")),
        "{reduce}"
    );
}

//! Spending a T13 test's levels (004-M5, M6, M7) and opposed tests in which both sides roll
//! (004-M3, A7), through the game's JSON boundary. Expected values are worked out by hand from the
//! seed's table: R in (kD, (k+1)D] gives k success levels, k − 2 of them extra.
//! Seed 004: a test named `m1_…` covers 004-M1.

use omen_core::{Limits, ScriptedDice};
use omen_rules::stateful::{self, Applied, Game};
use serde_json::{Value, json};

fn t13() -> &'static dyn Game {
    stateful::game("t13").expect("t13 keeps state")
}

fn apply(state: &Value, action: Value, dice: &[i64]) -> Applied {
    let mut source = ScriptedDice::new(dice.to_vec());
    let applied = t13()
        .apply(state, &action, &mut source, &Limits::default())
        .unwrap_or_else(|e| panic!("{action}: {e}"));
    assert!(source.remaining().is_empty(), "{action}: dice left over");
    applied
}

fn refused(state: &Value, action: Value) -> String {
    t13()
        .apply(
            state,
            &action,
            &mut ScriptedDice::new(vec![]),
            &Limits::default(),
        )
        .expect_err("refused")
        .to_string()
}

fn spend(effects: Value) -> Value {
    json!({ "action": "spend-levels", "effects": effects })
}

#[test]
fn m5_a_grunt_spends_its_capped_extra_levels_on_its_own_tier_only() {
    let grunt = t13()
        .new_character(&json!({ "character_type": "grunt", "sway": 1 }))
        .unwrap();
    // A d20 of 20 against 4: 20 in (4·4, 5·4] is 4 levels, the grunt's cap; 2 of them extra.
    let test = apply(
        &grunt,
        json!({ "action": "test", "boon": 20, "difficulty": 4 }),
        &[20],
    );
    assert_eq!(test.result["level"], "superior-success");
    assert_eq!(
        test.result["to_spend"],
        json!({ "success": 2, "failure": 0 })
    );
    assert!(
        test.summary.contains("(4 success levels)"),
        "{}",
        test.summary
    );
    let state = test.state;
    assert!(refused(&state, spend(json!([{ "effect": "gain-chi" }]))).contains("tier 2"));
    assert!(refused(&state, spend(json!([{ "effect": "cause-terror" }]))).contains("tier 2"));
    let three = spend(json!([{ "effect": "set-tone" }, { "effect": "cause-fear" },
                              { "effect": "ordeal-card" }]));
    assert!(refused(&state, three).contains("no extra success level left"));
    let spent = apply(
        &state,
        spend(json!([{ "effect": "gain-sway", "amount": 3 }, { "effect": "cause-fear" }])),
        &[],
    );
    assert_eq!(spent.state["sway"], 4);
    assert_eq!(spent.state.get("levels"), None);
    assert!(
        refused(&spent.state, spend(json!([{ "effect": "set-tone" }]))).contains("roll a test")
    );
}

#[test]
fn m5_a_solo_gains_yarn_and_a_mercari_chi() {
    let solo = t13()
        .new_character(&json!({ "character_type": "solo" }))
        .unwrap();
    // 20 against 2: (18, 20] is 9 levels, 7 extra.
    let test = apply(
        &solo,
        json!({ "action": "test", "boon": 20, "difficulty": 2 }),
        &[20],
    );
    assert_eq!(test.result["to_spend"]["success"], 7);
    let spent = apply(
        &test.state,
        spend(
            json!([{ "effect": "gain-yarn", "amount": 2 }, { "effect": "gain-chi" },
                     { "effect": "yarn-event-card" }]),
        ),
        &[],
    );
    assert_eq!(
        (spent.state["yarn"].clone(), spent.state["chi"].clone()),
        (json!(2), json!(1))
    );
    assert_eq!(spent.state["levels"]["success"], 4);
    let mercari = t13()
        .new_character(&json!({ "character_type": "mercari" }))
        .unwrap();
    // Capped at 7 levels: 5 extra.
    let test = apply(
        &mercari,
        json!({ "action": "test", "boon": 20, "difficulty": 2 }),
        &[20],
    );
    assert_eq!(test.result["to_spend"]["success"], 5);
    assert!(refused(&test.state, spend(json!([{ "effect": "gain-yarn" }]))).contains("tier 3"));
}

#[test]
fn m6_failure_inversions_lose_balances_for_any_type() {
    let grunt = t13()
        .new_character(&json!({ "character_type": "grunt", "sway": 5, "chi": 2 }))
        .unwrap();
    // A d6 of 1 with a −10 handicap against 3: R = −9 is a Serious Failure; R in [−3·3, −2·3)
    // gives 3 + 2 = 5 failure levels, 3 of them inversions.
    let test = apply(
        &grunt,
        json!({ "action": "test", "boon": 6, "modifier": -10, "difficulty": 3 }),
        &[1],
    );
    assert_eq!(test.result["level"], "serious-failure");
    assert_eq!(test.result["failure_levels"], 5);
    assert_eq!(
        test.result["to_spend"],
        json!({ "success": 0, "failure": 3 })
    );
    // Inversions ignore the tier: a grunt loses Chi.
    let spent = apply(
        &test.state,
        spend(
            json!([{ "effect": "lose-chi", "amount": 2 }, { "effect": "lose-sway" },
                     { "effect": "suffer-terror" }]),
        ),
        &[],
    );
    assert_eq!(
        (spent.state["sway"].clone(), spent.state["chi"].clone()),
        (json!(4), json!(0))
    );
    assert!(
        refused(&test.state, spend(json!([{ "effect": "gain-sway" }])))
            .contains("no extra success level left")
    );
}

#[test]
fn m7_a_crisis_gives_both_sides_and_they_never_cancel() {
    let solo = t13()
        .new_character(&json!({ "proficiency": 1, "sway": 2, "chi": 2 }))
        .unwrap();
    // The d8 shows 8 against 2: 8 in (3·2, 4·2] is 3 levels, Superior, 1 extra; the crisis adds a
    // Serious Failure of 3 levels, 1 inversion.
    let test = apply(&solo, json!({ "action": "test", "difficulty": 2 }), &[8]);
    assert_eq!(
        test.result["crisis_opposite"],
        json!({ "level": "serious-failure", "levels": 3 })
    );
    assert_eq!(
        test.result["to_spend"],
        json!({ "success": 1, "failure": 1 })
    );
    assert!(
        test.summary
            .contains("Superior Success (3 success levels), Proficiency Crisis: also Serious Failure (3 failure levels)"),
        "{}",
        test.summary
    );
    let cancel = spend(json!([{ "effect": "gain-sway" }, { "effect": "lose-sway" }]));
    assert!(refused(&test.state, cancel).contains("must not cancel"));
    let spent = apply(
        &test.state,
        spend(json!([{ "effect": "gain-sway" }, { "effect": "lose-chi" }])),
        &[],
    );
    assert_eq!(
        (spent.state["sway"].clone(), spent.state["chi"].clone()),
        (json!(3), json!(1))
    );
}

#[test]
fn a7_both_sides_roll_with_exact_odds() {
    let solo = t13().new_character(&json!({})).unwrap();
    let action = json!({ "action": "test", "boon": 6, "opponent_dice": [6] });
    // d6 against d6, 36 pairs counted by hand: stalemate 6, success 15 (R > T), of which Superior
    // (R > 3T) 3 (T = 1, R = 4..6) and Complete (2T < R ≤ 3T) 3 (T = 1, R = 3; T = 2, R = 5, 6).
    let odds = t13().odds(&solo, &action, &Limits::default()).unwrap();
    assert_eq!(odds["borderline"]["fraction"], "1/6");
    assert_eq!(odds["success"]["fraction"], "5/12");
    let levels = odds["levels"].as_array().unwrap();
    let of = |name: &str| {
        levels
            .iter()
            .find(|l| l["outcome"] == name)
            .map(|l| l["fraction"].clone())
    };
    assert_eq!(of("superior-success"), Some(json!("1/12")));
    assert_eq!(of("complete-success"), Some(json!("1/12")));
    // Rolled: yours first, then the opponent's.
    let test = apply(&solo, action, &[5, 2]);
    assert_eq!(test.result["opponent_dice"], json!([2]));
    assert_eq!(test.result["level"], "complete-success");
    let both = json!({ "action": "test", "boon": 6, "opponent_dice": [6], "difficulty": 3 });
    assert!(refused(&solo, both).contains("not both"));
}

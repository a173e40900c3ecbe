//! Harry Potter RPG characters as a stateful game (003-S1, S2, S3, M2, M13, M15, M18, M20, M21,
//! M22..M25, A13, A20): the seed's worked examples replayed through the JSON boundary with given dice,
//! resources spent and refused, catch-casting kept in the state, feats with exact distributions
//! checked against brute-force enumeration, saved state of version 1 and state missing optional
//! fields.
//! Seed 003: a test named `m1_…` covers 003-M1.

use std::collections::BTreeMap;
use std::path::PathBuf;

use omen_core::{Distribution, Limits, Probability, ScriptedDice, Weight};
use omen_rules::hprpg::resources::{
    self, Attempts, CheckAdjustment, FEATS, FeatEffect, ResourceError, apply_feats, feat_data,
    keep_better_distribution, rage_damage, reroll_distribution_given, rerolled_distribution,
};
use omen_rules::hprpg::{
    self, Check, DIFFICULTY_GUIDE, Feat, HprpgOptions, SPELL_LEVELS, completion_probability,
};
use omen_rules::stateful::{self, ActionError, Applied, Game};
use serde_json::{Value, json};

fn limits() -> Limits {
    Limits::default()
}

fn hprpg() -> &'static dyn Game {
    stateful::game("hprpg").expect("hprpg keeps state")
}

fn check(dice: u64, difficulty: i64, range: i64) -> Check {
    Check::new(
        dice,
        difficulty,
        range,
        0,
        &HprpgOptions::default(),
        &limits(),
    )
    .unwrap()
}

fn apply(state: &Value, action: Value, dice: &[i64]) -> Applied {
    let mut source = ScriptedDice::new(dice.to_vec());
    let applied = hprpg()
        .apply(state, &action, &mut source, &limits())
        .unwrap_or_else(|e| panic!("{action}: {e}"));
    assert!(source.remaining().is_empty(), "{action}: dice left over");
    applied
}

fn refused(state: &Value, action: Value) -> ActionError {
    let before = state.clone();
    let mut source = ScriptedDice::new(vec![6; 40]);
    let error = hprpg()
        .apply(state, &action, &mut source, &limits())
        .expect_err("refused");
    assert_eq!(*state, before);
    error
}

fn problems(state: &Value, action: Value) -> Vec<String> {
    match refused(state, action.clone()) {
        ActionError::Invalid(problems) => problems.0,
        other => panic!("{action}: expected a list of problems, got {other:?}"),
    }
}

fn fraction(p: &Probability) -> Value {
    json!(format!("{}/{}", p.numer(), p.denom()))
}

fn odds(state: &Value, action: Value) -> Value {
    hprpg()
        .odds(state, &action, &limits())
        .unwrap_or_else(|e| panic!("{action}: {e}"))
}

fn aspects(changes: &[(&str, u32)]) -> Value {
    let mut all: BTreeMap<&str, u32> = [
        "FITNESS",
        "CHARM",
        "INTELLIGENCE",
        "PRECISION",
        "DECEPTION",
        "WILLPOWER",
        "VITALITY",
        "INSIGHT",
        "PERCEPTION",
    ]
    .into_iter()
    .map(|a| (a, 1))
    .collect();
    for &(name, dots) in changes {
        all.insert(name, dots);
    }
    json!(all)
}

/// A character who can play every worked example: Jane's WILLPOWER 4 and ELEMENTAL 3, Michael's
/// INTELLIGENCE 3 and CURSES 3, the partner's DODGE 3, the Willow's VITALITY 6 and BLOCK 5.
fn character() -> Value {
    hprpg()
        .new_character(&json!({ "sheet": {
            "aspects": aspects(&[("WILLPOWER", 4), ("INTELLIGENCE", 3), ("VITALITY", 6)]),
            "abilities": { "ALERTNESS": 2, "RAGE": 2 },
            "custom_abilities": {
                "DODGE": { "type": "INNATE", "dots": 3 },
                "BLOCK": { "type": "INNATE", "dots": 5 }
            },
            "affinities": { "ELEMENTAL": 3, "CURSES": 3 },
            "fortitude": { "current": 3, "max": 3 },
            "health": { "current": 5, "max": 5 },
            "feats": ["RAPID REFLEXES", "UNWAVERING FOCUS", "ORGANIC REPOSE", "DUELIST",
                      "FURIOUS SPELLCASTER"]
        }}))
        .unwrap()
}

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/state")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn game_is_registered_and_its_actions_name_listed_spec_items() {
    let game = hprpg();
    assert_eq!(game.state_version(), 2);
    let spec_items = omen_rules::find("hprpg").unwrap().spec_items();
    for action in game.actions() {
        assert!(!action.spec_items.is_empty(), "{}", action.name);
        for item in action.spec_items {
            assert!(spec_items.contains(item), "{}: {item}", action.name);
        }
    }
    let names: Vec<&str> = game.actions().iter().map(|a| a.name).collect();
    for name in [
        "check",
        "cast",
        "catch-cast",
        "resist",
        "spend-fortitude",
        "regain-fortitude",
        "take-harm",
        "heal",
        "sustain",
        "end-sustain",
        "rage-turn",
        "calm-turn",
        "new-day",
    ] {
        assert!(names.contains(&name), "{name}");
    }
}

// ---------------------------------------------------------------------------------------------------
// The worked examples (003-M22).

#[test]
fn m22_janes_fire_bolt_has_power_four_through_the_game() {
    let state = character();
    let cast = json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 3,
                       "delivery": "ranged", "optional": { "overpower": 1 } });
    let applied = apply(&state, cast.clone(), &[1, 4, 5, 8, 8, 9, 11]);
    let result = &applied.result;
    assert_eq!(result["aspect"], "WILLPOWER");
    assert_eq!(
        (result["pool"].clone(), result["difficulty"].clone()),
        (json!(7), json!(8))
    );
    assert_eq!(result["required"], 2);
    assert_eq!(result["net"], 3);
    assert_eq!(result["outcome"], "cast");
    assert_eq!(
        result["spell"],
        json!({ "level": 3, "spent": { "overpower": 1, "defy": 0, "extend": 0 }, "unused": 0,
                "power": 4, "defy": 0 })
    );
    assert_eq!(result["damage"], 4);
    assert_eq!(result["fortitude_spent"], 0);
    assert_eq!(applied.state, state);
    assert_eq!(
        applied.summary,
        "ELEMENTAL TRIA: 7d12 vs DV 8: 1-4-5-8-8-9-11 → 4 successes, 1 catastrophe, net 3 \
         (GOOD); cast with POWER 4"
    );
    // The odds of the same cast are the module's exact distribution.
    let odds = odds(&state, cast);
    let nets = check(7, 8, 1).net_distribution(&limits()).unwrap();
    assert_eq!(odds["net"], stateful::distribution_json(&nets));
    let takes_effect = completion_probability(&check(7, 8, 1), 2, &limits()).unwrap();
    assert_eq!(
        odds["takes_effect_with_catch_casting"]["fraction"],
        fraction(&takes_effect)
    );
    let cast_outright = nets.probability_where(|&n| n >= 2);
    let short = nets.probability(&1);
    let rows = odds["outcome"].as_array().unwrap();
    assert_eq!(rows[2]["outcome"], "short");
    assert_eq!(rows[2]["fraction"], fraction(&short));
    assert_eq!(rows[3]["outcome"], "cast");
    assert_eq!(rows[3]["fraction"], fraction(&cast_outright));
}

#[test]
fn m18_michaels_stupefy_and_m20_his_partners_dodge() {
    let state = character();
    // CURSES 3 + INTELLIGENCE 3, PRIMUS: DV 6; 2-3-7-8-9-11 is 4 successes; 1 for WANDTIP, then 2
    // DEFY (the cap for PRIMUS) and 1 OVERPOWER: POWER 2.
    let cast = apply(
        &state,
        json!({ "action": "cast", "discipline": "curses", "level": 1, "delivery": "wandtip",
                "optional": { "overpower": 1, "defy": 2 } }),
        &[2, 3, 7, 8, 9, 11],
    );
    assert_eq!(cast.result["difficulty"], 6);
    assert_eq!(cast.result["net"], 4);
    assert_eq!(cast.result["spell"]["power"], 2);
    assert_eq!(cast.result["spell"]["defy"], 2);
    // The partner: FITNESS 1 + DODGE 3 = 4 dice against 8 + 1 + 2 − 3 = 8; 3-5-6-10 → POWER 1.
    let resist = apply(
        &state,
        json!({ "action": "resist", "aspect": "FITNESS", "ability": "DODGE", "level": 1,
                "defy": 2, "power": 2 }),
        &[3, 5, 6, 10],
    );
    assert_eq!(
        (
            resist.result["pool"].clone(),
            resist.result["difficulty"].clone(),
            resist.result["net"].clone(),
            resist.result["power"].clone()
        ),
        (json!(4), json!(8), json!(1), json!(1))
    );
    assert_eq!(resist.result["nullified"], false);
    // A third DEFY is over PRIMUS's cap of 2: refused before any die is rolled.
    let listed = problems(
        &state,
        json!({ "action": "cast", "discipline": "CURSES", "level": 1, "delivery": "wandtip",
                "optional": { "defy": 3 } }),
    );
    assert_eq!(
        listed,
        [
            "defy of 3 asked for, above its cap of 2 for a level-1 spell (2 × level, 1 for NIHIL); \
          ask for at most 2"
        ]
    );
    // Fewer optional successes than asked for fill OVERPOWER first, then DEFY, then EXTEND.
    let fewer = apply(
        &state,
        json!({ "action": "cast", "discipline": "CURSES", "level": 1, "delivery": "wandtip",
                "optional": { "overpower": 2, "defy": 2, "extend": 1 } }),
        &[2, 3, 4, 8, 9, 11],
    );
    assert_eq!(
        fewer.result["spell"]["spent"],
        json!({ "overpower": 2, "defy": 0, "extend": 0 })
    );
}

#[test]
fn m20_the_whomping_willow_resists_janes_bolt_to_power_zero() {
    let state = character();
    // BLOCK 5 + VITALITY 6 = 11 dice against 8 + 3 − 5 = 6: 8 successes, 1 botch, net 7 ≥ 4.
    let action = json!({ "action": "resist", "aspect": "VITALITY", "ability": "block",
                         "level": 3, "power": 4 });
    let resist = apply(
        &state,
        action.clone(),
        &[1, 2, 4, 6, 6, 7, 8, 9, 10, 11, 12],
    );
    assert_eq!(resist.result["pool"], 11);
    assert_eq!(resist.result["difficulty"], 6);
    assert_eq!(resist.result["resist_ability"], "BLOCK");
    assert_eq!(
        (
            resist.result["roll"]["successes"].clone(),
            resist.result["roll"]["catastrophes"].clone()
        ),
        (json!(8), json!(1))
    );
    assert_eq!(resist.result["power"], 0);
    assert_eq!(resist.result["nullified"], true);
    // The odds of the POWER left are the resist check's nets mapped through the rule.
    let odds = odds(&state, action);
    let nets = check(11, 6, 1).net_distribution(&limits()).unwrap();
    let left = nets.map(|&n| hprpg::resisted_power(4, n));
    assert_eq!(odds["power"], stateful::distribution_json(&left));
}

#[test]
fn m22_neha_loses_a_die_per_sustained_spell() {
    let state = character();
    let one = apply(
        &state,
        json!({ "action": "sustain", "spell": "Shield" }),
        &[],
    );
    let two = apply(
        &one.state,
        json!({ "action": "sustain", "spell": "Lumos", "discipline": "ELEMENTAL", "level": 0 }),
        &[],
    );
    assert_eq!(
        two.state["sheet"]["sustained_spells"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let cast = json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 1 });
    let odds = odds(&two.state, cast.clone());
    assert_eq!(
        (odds["pool"].clone(), odds["concentration_penalty"].clone()),
        (json!(5), json!(2))
    );
    let ended = apply(
        &two.state,
        json!({ "action": "end-sustain", "spell": "Shield" }),
        &[],
    );
    assert_eq!(self::odds(&ended.state, cast)["pool"], 6);
    // A spell cast to be sustained joins the list when it takes effect.
    let kept = apply(
        &state,
        json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 1, "sustain": "Flame" }),
        &[1, 12, 12, 3, 3, 3, 3],
    );
    assert_eq!(
        kept.state["sheet"]["sustained_spells"],
        json!([{ "name": "Flame", "discipline": "ELEMENTAL", "level": 1 }])
    );
    assert_eq!(
        problems(
            &two.state,
            json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 1, "sustain": "Lumos" })
        ),
        ["a spell called `Lumos` is already sustained; give the new one another name"]
    );
    match refused(
        &ended.state,
        json!({ "action": "end-sustain", "spell": "Shield" }),
    ) {
        ActionError::Rules(error) => assert_eq!(
            error.to_string(),
            "no sustained spell called `Shield`; the sustained spells are: Lumos"
        ),
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------------
// Checks (003-M2, M6, M13, M21, A13).

#[test]
fn m2_difficulty_guide_and_the_clamp_through_a_check() {
    assert_eq!(
        DIFFICULTY_GUIDE,
        [
            ("VERY EASY", 4),
            ("EASY", 6),
            ("STANDARD", 8),
            ("HARD", 10),
            ("VERY HARD", 12)
        ]
    );
    let state = character();
    let at = |difficulty: i64, option: &str| {
        let odds = odds(
            &state,
            json!({ "action": "check", "aspect": "PERCEPTION", "ability": "ALERTNESS",
                    "difficulty": difficulty, "difficulty_above_twelve": option }),
        );
        (odds["difficulty"].clone(), odds["intractability"].clone())
    };
    assert_eq!(at(7, "clamp"), (json!(7), json!(0)));
    assert_eq!(at(2, "clamp"), (json!(2), json!(0)));
    // Above 12 a given DV can be right (a Passive Perception of 14); below 2 it is a mistake.
    assert_eq!(at(14, "clamp"), (json!(12), json!(0)));
    for difficulty in [1, 0, -3] {
        let refused = refused(
            &state,
            json!({ "action": "check", "aspect": "PERCEPTION", "ability": "ALERTNESS",
                    "difficulty": difficulty }),
        );
        assert_eq!(
            refused.to_string(),
            format!(
                "DV {difficulty} is below 2; the lowest DV is 2, and a DV of 4 is VERY EASY (an \
                 automatic success may suit a trivial task)"
            )
        );
    }
    assert_eq!(at(14, "intractability"), (json!(12), json!(2)));
}

#[test]
fn m6_zero_dots_knowledge_is_refused_practical_costs_two_innate_nothing() {
    let state = character();
    match refused(
        &state,
        json!({ "action": "check", "aspect": "INTELLIGENCE", "ability": "HISTORY",
                "difficulty": 6 }),
    ) {
        ActionError::Invalid(problems) => assert_eq!(
            problems.0,
            [
                "HISTORY is a KNOWLEDGE ability with 0 dots, so the check is impossible (003-M6); \
              set aspect_only_knowledge if the GM allows an aspect-only roll"
            ]
        ),
        other => panic!("{other:?}"),
    }
    let allowed = odds(
        &state,
        json!({ "action": "check", "aspect": "INTELLIGENCE", "ability": "HISTORY",
                "difficulty": 6, "aspect_only_knowledge": true }),
    );
    assert_eq!(
        (allowed["pool"].clone(), allowed["difficulty"].clone()),
        (json!(3), json!(6))
    );
    let practical = odds(
        &state,
        json!({ "action": "check", "aspect": "PRECISION", "ability": "craft", "difficulty": 6 }),
    );
    assert_eq!(practical["difficulty"], 8);
    assert_eq!(practical["zero_dot_rule"], "practical-plus-two");
    let innate = odds(
        &state,
        json!({ "action": "check", "aspect": "CHARM", "ability": "KINDNESS", "difficulty": 6 }),
    );
    assert_eq!(innate["difficulty"], 6);
    // A zero pool rolls two dice and scores the lower.
    let zero = apply(
        &state,
        json!({ "action": "check", "ability": "KINDNESS", "difficulty": 6 }),
        &[9, 7],
    );
    assert_eq!(zero.result["roll"]["scored"], json!([7]));
    assert_eq!(zero.result["net"], 1);
}

#[test]
fn m13_a_repeat_is_the_callers_decision_and_attempts_are_a_finite_resource() {
    let state = character();
    let action = json!({ "action": "check", "aspect": "PERCEPTION", "ability": "ALERTNESS",
                         "difficulty": 8 });
    // The check is a pure function: the same state and dice give the same result, and nothing in
    // the rules stops or penalises a repeat.
    let first = apply(&state, action.clone(), &[8, 1, 3]);
    let again = apply(&first.state, action.clone(), &[8, 1, 3]);
    assert_eq!(first.result, again.result);
    assert_eq!(first.state, again.state);
    assert_eq!(first.result["net"], 0);
    // Three lockpicks: three attempts, then none until circumstances change.
    let mut picks = Attempts { remaining: 3 };
    for left in [2, 1, 0] {
        picks = picks.attempt().unwrap();
        assert_eq!(picks.remaining, left);
    }
    assert_eq!(picks.attempt(), Err(ResourceError::NoAttemptsLeft));
}

#[test]
fn m21_ritual_successes_join_the_dice_like_fortitude_without_its_cost() {
    let state = character();
    let base = json!({ "action": "check", "aspect": "PERCEPTION", "ability": "ALERTNESS",
                       "difficulty": 10 });
    let mut ritual = base.clone();
    ritual["ritual_successes"] = json!(2);
    let mut fortitude = base.clone();
    fortitude["fortitude_successes"] = json!(2);
    let by_ritual = odds(&state, ritual.clone());
    let by_fortitude = odds(&state, fortitude.clone());
    let expected = check(3, 10, 1)
        .with_automatic_successes(resources::granted_successes(0, 2, 0))
        .net_distribution(&limits())
        .unwrap();
    assert_eq!(by_ritual["net"], stateful::distribution_json(&expected));
    assert_eq!(by_ritual["net"], by_fortitude["net"]);
    assert_eq!(by_ritual["automatic_successes"], 2);
    let rolled = apply(&state, ritual, &[1, 2, 10]);
    assert_eq!(rolled.result["net"], 2);
    assert_eq!(rolled.result["fortitude_spent"], 0);
    assert_eq!(rolled.state["sheet"]["fortitude"]["current"], 3);
    let paid = apply(&state, fortitude, &[1, 2, 10]);
    assert_eq!(paid.result["net"], 2);
    assert_eq!(paid.state["sheet"]["fortitude"]["current"], 1);
}

#[test]
fn a13_one_fortitude_point_buys_one_automatic_success() {
    let state = character();
    let spent = apply(
        &state,
        json!({ "action": "check", "aspect": "FITNESS", "difficulty": 12,
                "fortitude_successes": 3 }),
        &[5],
    );
    assert_eq!(spent.result["automatic_successes"], 3);
    assert_eq!(spent.result["fortitude_spent"], 3);
    assert_eq!(spent.result["net"], 3);
    assert_eq!(spent.state["sheet"]["fortitude"]["current"], 0);
    let listed = problems(
        &spent.state,
        json!({ "action": "check", "aspect": "FITNESS", "difficulty": 12,
                "fortitude_successes": 1 }),
    );
    assert_eq!(
        listed,
        ["not enough fortitude: 1 needed, 0 left; spend less or regain fortitude first"]
    );
}

// ---------------------------------------------------------------------------------------------------
// Resources (003-M23, M24, M25, S3, A14).

#[test]
fn m23_fortitude_pays_for_levels_above_affinity_extra_actions_and_comes_back() {
    let state = character();
    // QUINTA with ELEMENTAL 3: two levels above, 2 FORTITUDE; DV 8 + 5 − 3 = 10.
    let cast = apply(
        &state,
        json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 5 }),
        &[10, 10, 3, 3, 3, 3, 3],
    );
    assert_eq!(cast.result["fortitude_spent"], 2);
    assert_eq!(cast.result["difficulty"], 10);
    assert_eq!(cast.state["sheet"]["fortitude"]["current"], 1);
    // SUMNUS would need 4; with 3 left, refused and nothing spent.
    let listed = problems(
        &state,
        json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 7 }),
    );
    assert_eq!(
        listed,
        ["not enough fortitude: 4 needed, 3 left; spend less or regain fortitude first"]
    );
    let spent = apply(
        &state,
        json!({ "action": "spend-fortitude", "spend": "extra-action" }),
        &[],
    );
    assert_eq!(spent.result["spent"], 1);
    let regained = apply(
        &spent.state,
        json!({ "action": "regain-fortitude", "points": 5 }),
        &[],
    );
    assert_eq!(regained.result["regained"], 1);
    assert_eq!(
        regained.state["sheet"]["fortitude"],
        json!({ "current": 3, "max": 3 })
    );
}

#[test]
fn m24_rage_costs_a_resist_die_per_turn_and_resets_after_a_calm_turn() {
    assert_eq!(rage_damage(3), 6);
    assert_eq!(rage_damage(-1), 0);
    let state = character();
    let resist = json!({ "action": "resist", "aspect": "FITNESS", "ability": "DODGE",
                         "level": 1, "power": 2 });
    let pool = |state: &Value| odds(state, resist.clone())["pool"].clone();
    assert_eq!(pool(&state), 4);
    let once = apply(&state, json!({ "action": "rage-turn" }), &[]);
    let twice = apply(&once.state, json!({ "action": "rage-turn" }), &[]);
    assert_eq!(
        twice.result,
        json!({ "rage_turns": 2, "resist_penalty": 2 })
    );
    assert_eq!(pool(&once.state), 3);
    assert_eq!(pool(&twice.state), 2);
    assert_eq!(odds(&twice.state, resist.clone())["rage_penalty"], 2);
    let calm = apply(&twice.state, json!({ "action": "calm-turn" }), &[]);
    assert_eq!(pool(&calm.state), 4);
}

#[test]
fn s3_the_rage_counter_lives_in_the_sheet_and_survives_a_save() {
    let state = character();
    assert_eq!(state["sheet"]["rage_turns"], 0);
    let raging = apply(&state, json!({ "action": "rage-turn" }), &[]);
    assert_eq!(raging.state["sheet"]["rage_turns"], 1);
    let saved = hprpg().load(1, &raging.state).unwrap();
    assert_eq!(saved["sheet"]["rage_turns"], 1);
    assert_eq!(resources::rage_turn(4), 5);
    assert_eq!(resources::calm_turn(4), 0);
    assert_eq!(resources::rage_resist_penalty(3), 3);
}

#[test]
fn a14_harm_and_healing_stay_within_zero_and_the_maximum() {
    let state = character();
    let hurt = apply(&state, json!({ "action": "take-harm", "levels": 7 }), &[]);
    assert_eq!(
        hurt.result,
        json!({ "health": { "current": 0, "max": 5 }, "unabsorbed": 2, "down": true })
    );
    let healed = apply(&hurt.state, json!({ "action": "heal", "levels": 9 }), &[]);
    assert_eq!(
        healed.state["sheet"]["health"],
        json!({ "current": 5, "max": 5 })
    );
}

#[test]
fn m25_feats_are_data_applied_to_a_check() {
    let numbers: Vec<(Feat, FeatEffect, Option<u32>, u32)> = FEATS
        .iter()
        .map(|f| (f.feat, f.effect, f.per_day, f.fortitude))
        .collect();
    assert_eq!(numbers.len(), Feat::ALL.len());
    for (feat, data) in Feat::ALL.iter().zip(&FEATS) {
        assert_eq!(*feat, data.feat);
    }
    assert_eq!(
        feat_data(Feat::Ambush).effect,
        FeatEffect::BonusDice { dice: 2 }
    );
    assert_eq!(
        feat_data(Feat::ColdCases).effect,
        FeatEffect::DifficultyChange { change: -2 }
    );
    assert_eq!(
        feat_data(Feat::StudentOfWar).effect,
        FeatEffect::DifficultyChange { change: -1 }
    );
    assert_eq!(
        (
            feat_data(Feat::UnwaveringFocus).per_day,
            feat_data(Feat::UnwaveringFocus).fortitude
        ),
        (Some(1), 1)
    );
    assert_eq!(feat_data(Feat::FuriousSpellcaster).per_day, Some(3));
    assert_eq!(
        feat_data(Feat::DryadsEmbrace).effect,
        FeatEffect::Growth {
            difficulty: 8,
            ability: "NURTURE",
            centimetres_per_success: 30
        }
    );
    assert_eq!(
        feat_data(Feat::OrganicRepose).effect,
        FeatEffect::Heal { health: 3 }
    );
    assert_eq!(
        apply_feats(&[
            Feat::Ambush,
            Feat::FamiliarTerrain,
            Feat::NaturesCloak,
            Feat::Duelist,
            Feat::SavageAttacker,
            Feat::NymphsFury,
            Feat::Bloodlust
        ]),
        Ok(CheckAdjustment {
            bonus_dice: 3,
            penalty_dice: 2,
            difficulty_change: -2,
            fixed_difficulty: None,
            automatic_successes: 1,
            keep_better_of_two: false,
            extra_damage: 2,
            growth_per_success: None,
        })
    );
    assert_eq!(
        apply_feats(&[Feat::LieDetector]),
        Err(ResourceError::NotACheckFeat(Feat::LieDetector))
    );
    assert_eq!(resources::galleons_gained(5, true), 6);
    assert_eq!(resources::galleons_gained(5, false), 5);

    // Through the game: DUELIST is one automatic success; a feat not taken or without a check
    // effect is refused, every problem listed.
    let state = character();
    let duel = apply(
        &state,
        json!({ "action": "check", "aspect": "FITNESS", "ability": "ALERTNESS", "difficulty": 8,
                "feats": ["duelist"] }),
        &[2, 3, 4],
    );
    assert_eq!(duel.result["net"], 1);
    let listed = problems(
        &state,
        json!({ "action": "check", "aspect": "FITNESS", "ability": "ALERTNESS", "difficulty": 8,
                "feats": ["AMBUSH", "LIE DETECTOR"], "fortitude_successes": 4 }),
    );
    assert_eq!(
        listed,
        [
            "the character has not taken the feat AMBUSH; add it to the sheet's feats first",
            "LIE DETECTOR does not change a check's dice or difficulty; leave it out of the \
             check's feats",
            "the character has not taken the feat LIE DETECTOR; add it to the sheet's feats first",
            "not enough fortitude: 4 needed, 3 left; spend less or regain fortitude first",
        ]
    );
}

#[test]
fn m25_daily_feats_run_out_and_a_new_day_resets_them() {
    let state = character();
    let hurt = apply(&state, json!({ "action": "take-harm", "levels": 4 }), &[]);
    let rested = apply(&hurt.state, json!({ "action": "organic-repose" }), &[]);
    assert_eq!(rested.state["sheet"]["health"]["current"], 4);
    assert_eq!(rested.state["sheet"]["fortitude"]["current"], 2);
    assert_eq!(
        rested.state["sheet"]["feat_uses"],
        json!({ "ORGANIC REPOSE": 1 })
    );
    match refused(&rested.state, json!({ "action": "organic-repose" })) {
        ActionError::Rules(error) => assert_eq!(
            error.to_string(),
            "ORGANIC REPOSE is used up today (1 a day); wait for a new day (the new-day action \
             resets daily uses)"
        ),
        other => panic!("{other:?}"),
    }
    let morning = apply(&rested.state, json!({ "action": "new-day" }), &[]);
    assert_eq!(morning.state["sheet"]["feat_uses"], json!({}));
    apply(&morning.state, json!({ "action": "organic-repose" }), &[]);
    // FURIOUS SPELLCASTER: RAGE 2 replaces ELEMENTAL 3 in the pool, three times a day.
    let furious = json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 1,
                          "furious": true });
    assert_eq!(odds(&state, furious.clone())["pool"], 6);
    assert_eq!(odds(&state, furious.clone())["difficulty"], 6);
    let mut current = state.clone();
    for _ in 0..3 {
        current = apply(&current, furious.clone(), &[12, 3, 3, 3, 3, 3]).state;
    }
    assert_eq!(current["sheet"]["feat_uses"]["FURIOUS SPELLCASTER"], 3);
    assert_eq!(
        problems(&current, furious),
        [
            "FURIOUS SPELLCASTER is used up today (3 a day); wait for a new day (the new-day \
          action resets daily uses)"
        ]
    );
}

/// Every way to roll `n` d12 (n ≤ 3), as face lists.
fn faces(n: usize) -> Vec<Vec<i64>> {
    let mut all = vec![Vec::new()];
    for _ in 0..n {
        all = all
            .into_iter()
            .flat_map(|prefix: Vec<i64>| {
                (1..=12).map(move |face| {
                    let mut next = prefix.clone();
                    next.push(face);
                    next
                })
            })
            .collect();
    }
    all
}

/// The net of given rolled dice, written from the rules (003-M3, M6) without the module.
fn net_by_hand(rolled: &[i64], dice: usize, difficulty: i64, range: i64) -> i64 {
    let scored: Vec<i64> = if dice == 0 {
        vec![*rolled.iter().min().unwrap()]
    } else {
        rolled.to_vec()
    };
    scored.iter().filter(|&&d| d >= difficulty).count() as i64
        - scored.iter().filter(|&&d| d <= range).count() as i64
}

fn to_distribution(counts: BTreeMap<i64, u64>) -> Distribution<i64> {
    Distribution::from_weights(counts.into_iter().map(|(n, w)| (n, Weight::from(w)))).unwrap()
}

#[test]
fn a20_rapid_reflexes_keeps_the_higher_net_exactly() {
    for (dice, difficulty, range) in [(0, 8, 1), (1, 6, 2), (2, 8, 1), (2, 12, 3), (3, 10, 1)] {
        let rolled = if dice == 0 { 2 } else { dice };
        let single: Vec<i64> = faces(rolled)
            .iter()
            .map(|f| net_by_hand(f, dice, difficulty, range))
            .collect();
        let mut counts = BTreeMap::new();
        for &a in &single {
            for &b in &single {
                *counts.entry(a.max(b)).or_insert(0u64) += 1;
            }
        }
        let exact =
            keep_better_distribution(&check(dice as u64, difficulty, range), &limits()).unwrap();
        assert_eq!(
            exact,
            to_distribution(counts),
            "{dice} dice, DV {difficulty}, 1-{range}"
        );
    }
    // One die against DV 12: 1 − (11/12)² succeeds.
    let one = keep_better_distribution(&check(1, 12, 1), &limits()).unwrap();
    assert_eq!(
        one.probability(&1),
        Probability::new(Weight::from(23u32), Weight::from(144u32))
    );
    // The roll keeps the second throw when it is better, the first on a tie.
    let rolls =
        resources::roll_keep_better(&check(2, 8, 1), &mut ScriptedDice::new(vec![1, 9, 8, 9]))
            .unwrap();
    assert_eq!((rolls.first.net, rolls.second.net, rolls.kept), (0, 2, 1));
    // Through the game: both throws are shown and the odds are the kept distribution.
    let state = character();
    let reflex = json!({ "action": "resist", "aspect": "FITNESS", "ability": "DODGE", "level": 1,
                         "power": 2, "feats": ["RAPID REFLEXES"] });
    let rolled = apply(&state, reflex.clone(), &[1, 2, 3, 4, 9, 9, 9, 1]);
    assert_eq!(rolled.result["rolls"]["kept"], 1);
    assert_eq!(rolled.result["net"], 2);
    assert_eq!(rolled.result["power"], 0);
    let kept = keep_better_distribution(&check(4, 6, 1), &limits()).unwrap();
    assert_eq!(
        odds(&state, reflex)["net"],
        stateful::distribution_json(&kept)
    );
}

#[test]
fn m25_unwavering_focus_rerolls_every_catastrophe_die_exactly() {
    for (dice, difficulty, range) in [(0, 8, 1), (1, 6, 2), (2, 8, 1), (2, 12, 3), (3, 9, 2)] {
        let rolled = if dice == 0 { 2 } else { dice };
        // Each rolled die: a face above the range stays; a face in it is rerolled (12 faces).
        let mut counts = BTreeMap::new();
        for first in faces(rolled) {
            let choices: Vec<Vec<i64>> = first
                .iter()
                .map(|&f| {
                    if f <= range {
                        (1..=12).collect()
                    } else {
                        vec![f]
                    }
                })
                .collect();
            let weight: u64 = 12u64.pow(first.iter().filter(|&&f| f > range).count() as u32);
            let mut finals = vec![Vec::new()];
            for options in &choices {
                finals = finals
                    .into_iter()
                    .flat_map(|prefix: Vec<i64>| {
                        options.iter().map(move |&face| {
                            let mut next = prefix.clone();
                            next.push(face);
                            next
                        })
                    })
                    .collect();
            }
            for last in finals {
                *counts
                    .entry(net_by_hand(&last, dice, difficulty, range))
                    .or_insert(0u64) += weight;
            }
        }
        let exact =
            rerolled_distribution(&check(dice as u64, difficulty, range), &limits()).unwrap();
        assert_eq!(
            exact,
            to_distribution(counts),
            "{dice} dice, DV {difficulty}, 1-{range}"
        );
    }
    // Through the game: the last check's 1 is rerolled into a 12, for 1 FORTITUDE, once a day.
    let state = character();
    let rolled = apply(
        &state,
        json!({ "action": "check", "aspect": "PERCEPTION", "ability": "ALERTNESS",
                "difficulty": 8 }),
        &[1, 7, 9],
    );
    assert_eq!(rolled.result["net"], 0);
    let focus_odds = odds(&rolled.state, json!({ "action": "unwavering-focus" }));
    let given = reroll_distribution_given(
        &check(3, 8, 1),
        &check(3, 8, 1).replay(&[1, 7, 9]).unwrap(),
        &limits(),
    )
    .unwrap();
    assert_eq!(focus_odds["net"], stateful::distribution_json(&given));
    // The 9 stays a success; the rerolled die adds a success on 8..12 and a catastrophe on 1.
    let twelfths = |n: u32| Probability::new(Weight::from(n), Weight::from(12u32));
    assert_eq!(
        [0, 1, 2].map(|net| given.probability(&net)),
        [twelfths(1), twelfths(6), twelfths(5)]
    );
    let focused = apply(
        &rolled.state,
        json!({ "action": "unwavering-focus" }),
        &[12],
    );
    assert_eq!(focused.result["roll"]["dice"], json!([12, 7, 9]));
    assert_eq!(focused.result["net"], 2);
    assert_eq!(focused.state["sheet"]["fortitude"]["current"], 2);
    assert_eq!(focused.state["sheet"]["feat_uses"]["UNWAVERING FOCUS"], 1);
    match refused(&focused.state, json!({ "action": "unwavering-focus" })) {
        ActionError::Rules(error) => {
            assert_eq!(
                error.to_string(),
                "the last check was already rerolled; roll a new check first"
            )
        }
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------------
// Catch-casting kept in the state (003-S2, M19).

#[test]
fn s2_a_short_casting_waits_in_the_state_until_catch_casts_complete_it() {
    let state = character();
    // ELEMENTAL 3 + WILLPOWER 4 = 7 dice for a RANGED PRIMUS at two targets: 4 required, DV 6.
    let cast = apply(
        &state,
        json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 1, "delivery": "ranged",
                "targets": 2, "optional": { "overpower": 1 } }),
        &[6, 7, 2, 3, 4, 5, 5],
    );
    assert_eq!(cast.result["outcome"], "short");
    assert_eq!(
        cast.result["catch_casting"],
        json!({ "accumulated": 2, "required": 4, "catch_casts": 0 })
    );
    let pending = &cast.state["casting"];
    assert_eq!(pending["progress"]["accumulated"], 2);
    assert_eq!(pending["casting"]["dice"], 7);
    // Another cast waits for this one to be resolved.
    match refused(
        &cast.state,
        json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 1 }),
    ) {
        ActionError::Invalid(problems) => assert_eq!(
            problems.0,
            ["a casting is waiting for its catch-cast; catch-cast or abandon-casting first"]
        ),
        other => panic!("{other:?}"),
    }
    // The odds of completing from here are the module's recursion.
    let waiting = odds(&cast.state, json!({ "action": "catch-cast" }));
    let progress = hprpg::CatchCasting::after(2, 4).unwrap();
    let p = progress
        .completion_probability(&check(7, 6, 1), &limits())
        .unwrap();
    assert_eq!(waiting["takes_effect"]["fraction"], fraction(&p));
    assert_eq!(waiting["dice"], 6);
    // First catch-cast at once for 1 FORTITUDE: 6 dice, net 1 → 3 of 4.
    let first = apply(
        &cast.state,
        json!({ "action": "catch-cast", "extra_action": true }),
        &[6, 2, 3, 4, 5, 5],
    );
    assert_eq!(first.result["fortitude_spent"], 1);
    assert_eq!(first.result["outcome"], "short");
    assert_eq!(first.state["casting"]["progress"]["catch_casts"], 1);
    assert_eq!(first.state["sheet"]["fortitude"]["current"], 2);
    // Second: 5 dice, net 3 → 6 of 4, two optional successes, OVERPOWER 1 as asked.
    let second = apply(
        &first.state,
        json!({ "action": "catch-cast" }),
        &[6, 7, 8, 2, 3],
    );
    assert_eq!(second.result["outcome"], "cast");
    assert_eq!(second.result["spell"]["power"], 2);
    assert_eq!(second.result["spell"]["unused"], 1);
    assert_eq!(second.state["casting"], Value::Null);
    match refused(&second.state, json!({ "action": "catch-cast" })) {
        ActionError::Rules(error) => assert_eq!(
            error.to_string(),
            "no casting is waiting for a catch-cast; cast a spell first"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn s2_a_failed_catch_cast_or_abandoning_ends_the_casting() {
    let state = character();
    let cast = apply(
        &state,
        json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 1, "delivery": "ranged" }),
        &[6, 2, 3, 4, 5, 5, 5],
    );
    assert_eq!(cast.result["outcome"], "short");
    let failed = apply(
        &cast.state,
        json!({ "action": "catch-cast" }),
        &[1, 2, 3, 4, 5, 5],
    );
    assert_eq!(failed.result["outcome"], "catastrophe");
    assert_eq!(failed.state["casting"], Value::Null);
    let abandoned = apply(&cast.state, json!({ "action": "abandon-casting" }), &[]);
    assert_eq!(abandoned.state["casting"], Value::Null);
    assert_eq!(abandoned.state["sheet"], cast.state["sheet"]);
}

// ---------------------------------------------------------------------------------------------------
// Spell levels (003-M15).

#[test]
fn m15_spell_levels_are_named_nihil_to_sumnus() {
    assert_eq!(
        SPELL_LEVELS,
        [
            "NIHIL", "PRIMUS", "DUA", "TRIA", "QUARTUM", "QUINTA", "SEXTUS", "SUMNUS"
        ]
    );
    let state = character();
    let nihil = apply(
        &state,
        json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 0 }),
        &[3, 3, 3, 3, 3, 3, 4],
    );
    // NIHIL with Affinity 3: 8 + 0 − 3 = 5.
    assert_eq!(nihil.result["difficulty"], 5);
    assert!(
        nihil.summary.starts_with("ELEMENTAL NIHIL:"),
        "{}",
        nihil.summary
    );
    match refused(
        &state,
        json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 8 }),
    ) {
        ActionError::Rules(error) => {
            assert_eq!(
                error.to_string(),
                "spell level 8 is above SUMNUS (7); use 0 (NIHIL) to 7"
            )
        }
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------------
// Sheets and saved state (003-S1).

#[test]
fn s1_creation_choices_make_a_character_or_list_every_problem() {
    let created = hprpg()
        .new_character(&json!({ "create": {
            "personality": "CAREGIVER", "archetype": "AUROR", "species": "Muggleborn",
            "aspect_ranking": ["SOCIAL", "MENTAL", "PHYSICAL"],
            "aspects": { "INSIGHT": 3, "CHARM": 2, "DECEPTION": 2, "PERCEPTION": 3,
                         "INTELLIGENCE": 2, "FITNESS": 3 },
            "ability_ranking": ["KNOWLEDGE", "INNATE", "PRACTICAL"],
            "abilities": { "INVESTIGATION": 3, "HISTORY": 3, "MEDICINE": 3, "ARCANE": 3,
                           "ALERTNESS": 3, "KINDNESS": 3, "LOGIC": 2, "COVERT": 2, "BRAWL": 2 },
            "archetype_abilities": { "INTUITION": 1, "TRACKING": 2 },
            "capability_choices": ["WARDING", "HEXES"],
            "fortitude": 3, "health": 5, "advancement_cap": 5
        }}))
        .unwrap();
    assert_eq!(created["advancement_cap"], 5);
    assert_eq!(created["sheet"]["house"], "HUFFLEPUFF");
    assert_eq!(created["sheet"]["aspects"]["INSIGHT"], 1 + 3 + 2 + 1);
    assert_eq!(created["sheet"]["abilities"]["INVESTIGATION"], 3 + 2);
    assert_eq!(
        created["sheet"]["affinities"],
        json!({ "WARDING": 2, "HEXES": 1 })
    );
    match hprpg().new_character(&json!({ "create": {
        "personality": "CAREGIVER", "archetype": "AUROR",
        "aspect_ranking": ["SOCIAL"], "ability_ranking": ["KNOWLEDGE", "INNATE", "PRACTICAL"],
        "aspects": { "INSIGHT": 5 }, "fortitude": 3, "health": 5
    }})) {
        Err(ActionError::Invalid(problems)) => assert_eq!(
            problems.0,
            [
                "aspect_ranking must rank each of PHYSICAL, SOCIAL, MENTAL exactly once, most \
                 important first",
                "aspect INSIGHT: 5 dots spent, above the 3 allowed on one aspect at creation; \
                 spend at most 3",
                "AUROR needs 2 capability choice(s), 0 given; give one per row in order: HEXES OR \
                 WARDING; WARDING OR HEXES",
                "aspect INSIGHT has 9 dots, above the highest rating 7 (Ascendant); lower it to \
                 at most 7",
            ]
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn s1_a_version_one_state_loads_and_missing_optional_fields_take_defaults() {
    let saved = fixture("hprpg-v1.json");
    let loaded = hprpg().load(1, &saved).unwrap();
    // Upgraded to version 2, which says so in the state and changes nothing else.
    let mut upgraded = saved.clone();
    upgraded["version"] = json!(2);
    assert_eq!(loaded, upgraded);
    // The fixture waits for its first catch-cast: 5 dice of the original 6.
    let waiting = odds(&saved, json!({ "action": "catch-cast" }));
    assert_eq!(waiting["dice"], 5);
    // FORTITUDE comes back when the REBEL's Nourishment is met (003-M23).
    let nourished = apply(
        &saved,
        json!({ "action": "regain-fortitude", "points": 1 }),
        &[],
    );
    assert_eq!(
        nourished.result["nourishment"],
        "you defy authority in some meaningful fashion"
    );
    assert_eq!(nourished.state["sheet"]["fortitude"]["current"], 3);
    let sparse = hprpg()
        .load(1, &json!({ "sheet": { "aspects": aspects(&[]) } }))
        .unwrap();
    assert_eq!(sparse["casting"], Value::Null);
    assert_eq!(sparse["last_check"], Value::Null);
    assert_eq!(sparse["advancement_cap"], 7);
    assert_eq!(
        sparse["sheet"]["fortitude"],
        json!({ "current": 0, "max": 0 })
    );
    assert_eq!(sparse["sheet"]["feats"], json!([]));
    assert_eq!(sparse["sheet"]["rage_turns"], 0);
    assert!(matches!(
        hprpg().load(3, &saved),
        Err(ActionError::Malformed { .. })
    ));
    match hprpg().load(
        1,
        &json!({ "sheet": { "aspects": aspects(&[("FITNESS", 9)]),
                            "health": { "current": 3, "max": 2 } } }),
    ) {
        Err(ActionError::Invalid(problems)) => assert_eq!(problems.0.len(), 2, "{problems}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn invalid_actions_leave_the_state_untouched() {
    let state = character();
    let listed = problems(
        &state,
        json!({ "action": "check", "aspect": "CHARM", "ability": "JUGLING", "difficulty": 8,
                "catastrophe_range": 12, "fortitude_successes": 9 }),
    );
    assert_eq!(listed.len(), 3, "{listed:#?}");
    assert!(
        listed[0].starts_with("unknown ability `JUGLING`; use one of: ALERTNESS, BRAVERY"),
        "{listed:?}"
    );
    assert!(listed[0].ends_with("TACTICS, BLOCK, DODGE"), "{listed:?}");
    assert_eq!(
        listed[1..],
        [
            "not enough fortitude: 9 needed, 3 left; spend less or regain fortitude first",
            "catastrophe range 1..12 is outside 0..11; use 1 for the usual range (0: no \
             catastrophes, 11 at most, so a d12 can still succeed)",
        ]
    );
    let unknown = hprpg().apply(
        &state,
        &json!({ "action": "apparate" }),
        &mut ScriptedDice::new(vec![]),
        &limits(),
    );
    assert!(matches!(unknown, Err(ActionError::UnknownAction { .. })));
    assert!(matches!(
        refused(&state, json!({ "action": "check", "difficulty": 8 })),
        ActionError::Rules(_)
    ));
    assert!(matches!(
        refused(
            &state,
            json!({ "action": "check", "aspect": "CHARM", "difficulty": 8, "dv": 3 })
        ),
        ActionError::Malformed { .. }
    ));
    // Dice that run out are the source's error; nothing changes.
    assert!(matches!(
        hprpg().apply(
            &state,
            &json!({ "action": "check", "aspect": "CHARM", "difficulty": 8 }),
            &mut ScriptedDice::new(vec![]),
            &limits()
        ),
        Err(ActionError::Dice(_))
    ));
    assert!(matches!(
        hprpg().odds(&state, &json!({ "action": "new-day" }), &limits()),
        Err(ActionError::Malformed { .. })
    ));
}

#[test]
fn a19_a_nihil_spell_is_nullified_only_by_a_resist_with_net_of_at_least_one() {
    let state = character();
    // FITNESS 1 + DODGE 3 = 4 dice against 8 + 0 − 3 = 5 for a NIHIL spell (POWER 0).
    let action = json!({ "action": "resist", "aspect": "FITNESS", "ability": "DODGE", "level": 0,
                         "power": 0 });
    let failed = apply(&state, action.clone(), &[1, 2, 3, 4]);
    assert_eq!(
        (failed.result["net"].clone(), failed.result["power"].clone()),
        (json!(-1), json!(0))
    );
    assert_eq!(failed.result["nullified"], false);
    assert!(!failed.summary.contains("nullified"), "{}", failed.summary);
    let even = apply(&state, action.clone(), &[2, 3, 4, 4]);
    assert_eq!(even.result["nullified"], false);
    let resisted = apply(&state, action.clone(), &[5, 2, 3, 4]);
    assert_eq!(resisted.result["net"], 1);
    assert_eq!(resisted.result["nullified"], true);
    assert!(
        resisted.summary.ends_with("nullified"),
        "{}",
        resisted.summary
    );
    // P(net ≥ 1) with 4d12, successes 5..12 and catastrophe 1: counted by hand over 12⁴ rolls.
    let odds = odds(&state, action);
    assert_eq!(odds["nullified"]["fraction"], "197/216");
    // A PRIMUS spell of POWER 2 (resist DV 8 + 1 − 3 = 6) is nullified by a net of 2, not of 1.
    let strong = json!({ "action": "resist", "aspect": "FITNESS", "ability": "DODGE", "level": 1,
                         "power": 2 });
    assert_eq!(
        apply(&state, strong.clone(), &[6, 7, 2, 3]).result["nullified"],
        true
    );
    assert_eq!(
        apply(&state, strong, &[6, 2, 3, 4]).result["nullified"],
        false
    );
}

#[test]
fn m24_a_rage_attack_reports_its_damage_and_is_the_turns_use_of_rage() {
    let state = character();
    // VITALITY 6 + ALERTNESS 2 = 8 dice against 8: 8, 9, 10 are 3 successes, no 1: net 3, 2 × 3 = 6.
    let attack = apply(
        &state,
        json!({ "action": "check", "aspect": "VITALITY", "ability": "ALERTNESS", "difficulty": 8,
                "rage_attack": true }),
        &[8, 9, 10, 2, 3, 4, 5, 6],
    );
    assert_eq!(attack.result["net"], 3);
    assert_eq!(attack.result["rage_damage"], 6);
    assert_eq!(attack.state["sheet"]["rage_turns"], 1);
    assert!(
        attack.summary.contains("RAGE attack: 6 damage"),
        "{}",
        attack.summary
    );
    // A failed attack deals nothing but still uses RAGE.
    let missed = apply(
        &attack.state,
        json!({ "action": "check", "aspect": "VITALITY", "ability": "ALERTNESS", "difficulty": 8,
                "rage_attack": true }),
        &[1, 2, 3, 4, 5, 6, 7, 2],
    );
    assert_eq!(missed.result["rage_damage"], 0);
    assert_eq!(missed.state["sheet"]["rage_turns"], 2);
    // A plain check leaves RAGE alone.
    let plain = apply(
        &state,
        json!({ "action": "check", "aspect": "VITALITY", "ability": "ALERTNESS", "difficulty": 8 }),
        &[8, 9, 10, 2, 3, 4, 5, 6],
    );
    assert_eq!(plain.result["rage_damage"], Value::Null);
    assert_eq!(plain.state["sheet"]["rage_turns"], 0);
    // A FURIOUS SPELLCASTER cast counts as the turn's RAGE too: RAGE 2 + WILLPOWER 4 = 6 dice
    // against 8 + 1 − 3 = 6.
    let furious = apply(
        &state,
        json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 1, "furious": true }),
        &[6, 7, 2, 3, 4, 5],
    );
    assert_eq!(furious.result["pool"], 6);
    assert_eq!(furious.state["sheet"]["rage_turns"], 1);
}

/// A MASS delivery requires 4 or more successes (003-M17): a smaller requirement is refused with a
/// message instead of being raised to 4 behind the player's back; 4 itself is cast as asked.
#[test]
fn m17_a_mass_requirement_below_four_is_refused_not_raised() {
    let state = character();
    let low = json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 3,
                      "delivery": "mass", "required": 3 });
    let message = refused(&state, low).to_string();
    assert!(message.contains("at least 4"), "{message}");
    assert!(message.contains("not 3"), "{message}");
    let four = json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 3,
                       "delivery": "mass", "required": 4 });
    let applied = apply(&state, four, &[1, 4, 5, 8, 8, 9, 11]);
    assert_eq!(applied.result["required"], 4);
}

/// Jane's 7 dice at DV 8 rolling 1-4-5-8-8-9-11 net 3 (003-M22), short of a RANGED casting at 3
/// targets (6 required).
fn jane_short_of(delivery: Value) -> Value {
    let mut cast = json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 3,
                           "aspect": "WILLPOWER", "optional": { "overpower": 1 } });
    for (key, value) in delivery.as_object().unwrap() {
        cast[key] = value.clone();
    }
    let cast_delivery = cast["delivery"].clone();
    let short = apply(&character(), cast, &[1, 4, 5, 8, 8, 9, 11]);
    assert_eq!(short.result["outcome"], "short");
    // The casting records its delivery, which a reduction must keep (003-M17).
    assert_eq!(short.state["casting"]["delivery"], cast_delivery);
    short.state
}

/// 003-M17: a casting short of its requirement may keep fewer targets; with 3 gathered, RANGED at
/// 1 target (2 required) takes effect at once with 1 optional success (OVERPOWER: POWER 4), at 2
/// targets (4 required) it still waits. The odds of it then taking effect: the first catch-cast (6
/// dice at DV 8) must net at least 1, P = 1252265/1492992, summed here from the multinomial
/// 6!/(s! c! b!) 5^s 1^c 6^b / 12^6 over s > c.
#[test]
fn m17_reducing_targets_takes_effect_when_the_gathered_successes_suffice() {
    let state = jane_short_of(json!({ "delivery": "ranged", "targets": 3 }));
    let one = apply(
        &state,
        json!({ "action": "reduce-casting", "delivery": "ranged", "targets": 1 }),
        &[],
    );
    assert_eq!(one.result["outcome"], "cast");
    assert_eq!(one.result["required"], 2);
    assert_eq!(one.result["spell"]["power"], 4);
    assert_eq!(one.result["spell"]["unused"], 0);
    assert!(one.state["casting"].is_null());
    let reduce_to_two = json!({ "action": "reduce-casting", "delivery": "ranged", "targets": 2 });
    let odds_two = odds(&state, reduce_to_two.clone());
    assert_eq!(odds_two["takes_effect"]["fraction"], "1252265/1492992");
    assert_eq!(odds_two["required"], 4);
    let two = apply(&state, reduce_to_two, &[]);
    assert_eq!(two.result["outcome"], "short");
    assert_eq!(two.state["casting"]["progress"]["required"], 4);
    assert_eq!(two.state["casting"]["delivery"], "ranged");
    // The next catch-cast rolls 6 dice; 8 nets 1: 3 + 1 meets the 4 now required.
    let caught = apply(
        &two.state,
        json!({ "action": "catch-cast" }),
        &[8, 2, 3, 4, 5, 6],
    );
    assert_eq!(caught.result["outcome"], "cast");
    assert_eq!(caught.result["spell"]["power"], 3);
    // At once it is certain.
    let odds_one = odds(
        &state,
        json!({ "action": "reduce-casting", "delivery": "ranged", "targets": 1 }),
    );
    assert_eq!(odds_one["takes_effect"]["fraction"], "1");
}

/// 003-M17 for an area: a MASS casting of 6 required, 3 gathered, reduced to 5 waits for 2 more:
/// the first catch-cast (6 dice) nets 2 or more, or nets exactly 1 and the second (5 dice) nets at
/// least 1: P = 1374041375/1719926784 (the same multinomial sums, by hand).
#[test]
fn m17_reducing_an_area_keeps_mass_at_four_or_more() {
    let state = jane_short_of(json!({ "delivery": "mass", "required": 6 }));
    let five = json!({ "action": "reduce-casting", "delivery": "mass", "required": 5 });
    assert_eq!(
        odds(&state, five.clone())["takes_effect"]["fraction"],
        "1374041375/1719926784"
    );
    let four = json!({ "action": "reduce-casting", "delivery": "mass", "required": 4 });
    assert_eq!(
        odds(&state, four)["takes_effect"]["fraction"],
        "1252265/1492992"
    );
    let reduced = apply(&state, five, &[]);
    assert_eq!(reduced.state["casting"]["progress"]["required"], 5);
    let message = refused(
        &reduced.state,
        json!({ "action": "reduce-casting", "delivery": "mass", "required": 3 }),
    )
    .to_string();
    assert!(message.contains("at least 4"), "{message}");
    // Once reduced as MASS, the casting cannot become RANGED (003-M17: not the kind of spell).
    let message = refused(
        &reduced.state,
        json!({ "action": "reduce-casting", "delivery": "ranged", "targets": 1 }),
    )
    .to_string();
    assert!(
        message.contains("delivered by MASS, not RANGED"),
        "{message}"
    );
}

/// 003-M17's refusals: nothing waiting, SELF, no targets, no reduction, a delivery that could not
/// have asked for the requirement (an odd requirement is no RANGED one).
#[test]
fn m17_a_reduction_that_is_none_or_changes_the_spell_is_refused() {
    let none = refused(
        &character(),
        json!({ "action": "reduce-casting", "delivery": "ranged", "targets": 1 }),
    );
    assert!(none.to_string().contains("no casting is waiting"), "{none}");
    let state = jane_short_of(json!({ "delivery": "ranged", "targets": 3 }));
    for (action, says) in [
        (json!({ "delivery": "self" }), "nothing to reduce"),
        (
            json!({ "delivery": "ranged", "targets": 0 }),
            "at least 1 target",
        ),
        (
            json!({ "delivery": "ranged", "targets": 3 }),
            "fewer successes than the casting's 6",
        ),
    ] {
        let mut action = action;
        action["action"] = json!("reduce-casting");
        let message = refused(&state, action).to_string();
        assert!(message.contains(says), "{message}");
    }
    let wandtip = jane_short_of(json!({ "delivery": "wandtip", "targets": 5 }));
    let to_ranged = json!({ "action": "reduce-casting", "delivery": "ranged", "targets": 1 });
    let message = refused(&wandtip, to_ranged.clone()).to_string();
    assert!(
        message.contains("delivered by WANDTIP, not RANGED"),
        "{message}"
    );
    // A casting left waiting by state version 1 records no delivery: its requirement alone says
    // which deliveries it could be.
    let mut unrecorded = wandtip.clone();
    unrecorded["casting"]
        .as_object_mut()
        .unwrap()
        .remove("delivery");
    let message = refused(&unrecorded, to_ranged).to_string();
    assert!(message.contains("requires 5 successes"), "{message}");
    let four = apply(
        &wandtip,
        json!({ "action": "reduce-casting", "delivery": "wandtip", "targets": 3 }),
        &[],
    );
    assert_eq!(four.result["outcome"], "cast");
    assert_eq!(four.result["spell"]["unused"], 0);
    assert_eq!(four.result["spell"]["power"], 3);
}

/// DRYAD'S EMBRACE (003-M25): a NURTURE check at DV 8 whatever DV is given, once a day, and the
/// plant grows 30 cm per net success. 8, 9 and 10 all meet DV 8 and none is a catastrophe: net 3,
/// so 90 cm; 2, 3 and 4 meet nothing: net 0, no growth.
#[test]
fn m25_dryads_embrace_reports_thirty_centimetres_of_growth_per_success() {
    let state = hprpg()
        .new_character(&json!({ "sheet": {
            "aspects": aspects(&[("INSIGHT", 2)]),
            "abilities": { "NURTURE": 1 },
            "feats": ["DRYAD'S EMBRACE"]
        }}))
        .unwrap();
    let embrace = json!({ "action": "check", "aspect": "INSIGHT", "ability": "NURTURE",
                          "difficulty": 3, "feats": ["DRYAD'S EMBRACE"] });
    let grown = apply(&state, embrace.clone(), &[8, 9, 10]);
    assert_eq!(grown.result["difficulty"], 8);
    assert_eq!(grown.result["net"], 3);
    assert_eq!(grown.result["growth_centimetres"], 90);
    assert!(
        grown.summary.contains("DRYAD'S EMBRACE: 90 cm of growth"),
        "{}",
        grown.summary
    );
    let withered = apply(&state, embrace.clone(), &[2, 3, 4]);
    assert_eq!(withered.result["growth_centimetres"], 0);
    // Once a day: the same character cannot embrace again before a new day.
    assert!(!problems(&grown.state, embrace).is_empty());
    // A check without the feat reports no growth at all, and keeps the result's old shape.
    let plain = apply(
        &state,
        json!({ "action": "check", "aspect": "INSIGHT", "ability": "NURTURE", "difficulty": 8 }),
        &[8, 9, 10],
    );
    assert!(plain.result.get("growth_centimetres").is_none());
    assert!(plain.result.get("growth_per_success").is_none());
}

/// A SOPHISTICATE with MESMERISING PRESENCE (one of the archetype's feats) and DUELIST (a WARRIOR
/// feat), SPEED 2.
fn sophisticate() -> Value {
    hprpg()
        .new_character(&json!({ "sheet": {
            "archetype": "SOPHISTICATE",
            "aspects": aspects(&[("CHARM", 3)]),
            "abilities": { "SPEED": 2, "ELOQUENCE": 2 },
            "fortitude": { "current": 1, "max": 1 },
            "health": { "current": 5, "max": 5 },
            "feats": ["MESMERISING PRESENCE", "DUELIST"]
        }}))
        .unwrap()
}

/// MESMERISING PRESENCE is once a day (003-M25): the use is kept in the state's daily uses, a
/// second use the same day is refused saying how to get it back, and a new day does.
#[test]
fn m25_mesmerising_presence_is_recorded_once_a_day() {
    let state = sophisticate();
    let use_it = json!({ "action": "use-feat", "feat": "MESMERISING PRESENCE" });
    let used = apply(&state, use_it.clone(), &[]);
    assert_eq!(used.result["uses_today"], 1);
    assert_eq!(used.result["per_day"], 1);
    assert_eq!(used.state["sheet"]["feat_uses"]["MESMERISING PRESENCE"], 1);
    assert!(
        used.summary.contains("used 1 of 1 today"),
        "{}",
        used.summary
    );
    let again = refused(&used.state, use_it.clone()).to_string();
    assert!(
        again.contains("MESMERISING PRESENCE is used up today (1 a day)"),
        "{again}"
    );
    assert!(again.contains("new-day"), "{again}");
    let next_day = apply(&used.state, json!({ "action": "new-day" }), &[]);
    assert_eq!(apply(&next_day.state, use_it, &[]).result["uses_today"], 1);
    // A feat with numbers goes through the action it changes.
    let duelist = refused(&state, json!({ "action": "use-feat", "feat": "DUELIST" })).to_string();
    assert!(duelist.contains("check or cast"), "{duelist}");
    // A feat not taken is refused as before.
    let vow = refused(
        &state,
        json!({ "action": "use-feat", "feat": "UNBREAKABLE VOW" }),
    );
    assert!(vow.to_string().contains("has not taken"), "{vow}");
}

/// A feat outside the character's archetype (003-D4) still applies, with a warning in the summary
/// and in the sheet's validation; the result's JSON is unchanged.
#[test]
fn m25_a_feat_outside_the_archetype_warns() {
    let state = sophisticate();
    let check = json!({ "action": "check", "aspect": "CHARM", "ability": "ELOQUENCE",
                        "difficulty": 8, "feats": ["DUELIST"] });
    let applied = apply(&state, check, &[8, 2, 3, 4, 5]);
    // DUELIST's automatic success: 1 die at 8 plus 1 = net 2.
    assert_eq!(applied.result["net"], 2);
    assert!(
        applied
            .summary
            .contains("warning: DUELIST is not a SOPHISTICATE feat (003-D4)"),
        "{}",
        applied.summary
    );
    assert!(applied.result.get("warnings").is_none());
    let sheet: omen_rules::hprpg::character::CharacterSheet =
        serde_json::from_value(state["sheet"].clone()).unwrap();
    let report = omen_rules::hprpg::character::validate(&sheet, 5);
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(
        report.warnings,
        ["feat DUELIST is not a SOPHISTICATE feat (003-D4); keep it only if the GM allowed it"]
    );
    // The archetype's own feat draws no warning.
    let own = apply(
        &state,
        json!({ "action": "use-feat", "feat": "MESMERISING PRESENCE" }),
        &[],
    );
    assert!(!own.summary.contains("warning"), "{}", own.summary);
}

/// SPEED (003-M25): 1 m of extra movement per dot per combat round; no dice, no change.
#[test]
fn m25_speed_gives_a_metre_of_movement_per_dot() {
    let state = sophisticate();
    let moved = apply(&state, json!({ "action": "movement" }), &[]);
    assert_eq!(moved.result["speed"], 2);
    assert_eq!(moved.result["extra_metres_per_round"], 2);
    assert_eq!(moved.state, state);
    let still = apply(&character(), json!({ "action": "movement" }), &[]);
    assert_eq!(still.result["extra_metres_per_round"], 0);
}

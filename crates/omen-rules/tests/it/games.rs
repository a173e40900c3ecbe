//! The ritual (000), spelldice (001) and t13 (004) characters as stateful games behind the JSON
//! boundary: actions replayed with given dice, refused actions listing every problem, saved state of
//! version 1 and state missing optional fields, and odds equal to the modules' own exact functions.

use std::path::PathBuf;

use omen_core::{Distribution, Limits, Probability, ScriptedDice};
use omen_rules::ritual::{
    Difficulty as RitualDifficulty, EssenceCheck, LoreCheck, LoreModifiers, RitualOptions,
    RitualState,
};
use omen_rules::spelldice::{
    self, CastRequest, Caster, SpellDiceOptions, SpellLevel, cast_odds, single_cast_distribution,
};
use omen_rules::stateful::{self, ActionError, Applied, Game};
use omen_rules::t13::{self, DiceSpec, Difficulty, T13Options, TestDice};
use serde_json::{Value, json};

use crate::support::ratio;

fn limits() -> Limits {
    Limits::default()
}

fn game(name: &str) -> &'static dyn Game {
    stateful::game(name).unwrap_or_else(|| panic!("{name} keeps state"))
}

fn apply(game: &dyn Game, state: &Value, action: Value, dice: &[i64]) -> Applied {
    let mut source = ScriptedDice::new(dice.to_vec());
    let applied = game
        .apply(state, &action, &mut source, &limits())
        .unwrap_or_else(|e| panic!("{action}: {e}"));
    assert!(source.remaining().is_empty(), "{action}: dice left over");
    applied
}

/// The problems of a refused action; panics unless the action was refused as invalid.
fn problems(game: &dyn Game, state: &Value, action: Value) -> Vec<String> {
    let mut source = ScriptedDice::new(Vec::new());
    match game.apply(state, &action, &mut source, &limits()) {
        Err(ActionError::Invalid(problems)) => problems.0,
        other => panic!("{action}: expected a refusal, got {other:?}"),
    }
}

/// As `omen prob` writes a probability: lowest terms, a whole number without a denominator.
fn fraction(p: &Probability) -> Value {
    if *p.denom() == 1u32.into() {
        json!(p.numer().to_string())
    } else {
        json!(format!("{}/{}", p.numer(), p.denom()))
    }
}

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/state")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn contains_all(problems: &[String], needles: &[&str]) {
    for needle in needles {
        assert!(
            problems.iter().any(|p| p.contains(needle)),
            "no problem mentions {needle:?}: {problems:#?}"
        );
    }
}

#[test]
fn the_three_games_are_registered_in_seed_order() {
    let names: Vec<&str> = stateful::games().iter().map(|g| g.name()).collect();
    let position = |name: &str| names.iter().position(|n| *n == name);
    let order = ["ritual", "spelldice", "luck", "t13"].map(|n| position(n).expect(n));
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{names:?}");
    for name in ["ritual", "spelldice", "t13"] {
        let game = game(name);
        assert_eq!(game.state_version(), 1);
        assert!(omen_rules::find(name).is_some());
        let spec_items: Vec<&str> = omen_rules::find(name).unwrap().spec_items().to_vec();
        for action in game.actions() {
            assert!(!action.spec_items.is_empty(), "{name} {}", action.name);
            for item in action.spec_items {
                assert!(spec_items.contains(item), "{name} {}: {item}", action.name);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Ritual (000).

#[test]
fn ritual_game_replays_a_ritualists_sessions() {
    let ritual = game("ritual");
    let state = ritual.new_character(&json!({ "lore": 1 })).unwrap();
    assert_eq!(state["lore"], 1);
    assert_eq!(state["known"], json!([]));

    // Lore 1 deciphering a difficulty-4 ritual rolls one die: a 2 fails (000-M6).
    let failed = apply(
        ritual,
        &state,
        json!({ "action": "decipher", "ritual": "Ward", "difficulty": 4 }),
        &[2],
    );
    assert_eq!(
        failed.result,
        json!({ "ritual": "Ward", "pool": 1, "difficulty": 4, "dice": [2], "result": 2,
                "success": false, "list": "unknown" })
    );
    assert_eq!(failed.state["unknown"], json!(["Ward"]));
    assert_eq!(
        failed.state["session_checks"],
        json!([{ "ritual": "Ward", "purpose": "decipher", "difficulty": 4, "pool": 1 }])
    );

    // A difficulty-1 Lore check needs no dice but is logged (000-M3, M7).
    let checked = apply(
        ritual,
        &failed.state,
        json!({ "action": "lore-check", "ritual": "Candle", "difficulty": 1 }),
        &[],
    );
    assert_eq!(checked.result["success"], true);
    assert_eq!(checked.result["dice"], json!([]));
    assert_eq!(checked.state["session_checks"][1]["purpose"], "check");

    // The session re-roll repeats the difficulty-4 check; failing it again raises Lore (000-M7, A5).
    let ended = apply(
        ritual,
        &checked.state,
        json!({ "action": "end-session" }),
        &[3],
    );
    assert_eq!(ended.result["lore_gained"], true);
    assert_eq!(ended.result["rerolled"]["ritual"], "Ward");
    assert_eq!(ended.state["lore"], 2);
    assert_eq!(ended.state["unknown"], json!([]));
    assert_eq!(ended.state["session_checks"], json!([]));

    // With Lore 2 the ritual can be tried again: two dice, the highest counts.
    let known = apply(
        ritual,
        &ended.state,
        json!({ "action": "decipher", "ritual": "Ward", "difficulty": 4 }),
        &[5, 1],
    );
    assert_eq!(known.result["success"], true);
    assert_eq!(known.state["known"], json!(["Ward"]));

    // The first ritual memorised is free (000-M8).
    let memorised = apply(
        ritual,
        &known.state,
        json!({ "action": "memorise", "ritual": "Ward", "difficulty": 4 }),
        &[],
    );
    assert_eq!(memorised.result["free"], true);
    assert_eq!(memorised.state["memorised"], json!(["Ward"]));

    // Leader 3 + assistant 2 = 5 dice; 20 reaches the higher threshold (000-M9, M10).
    let essence = json!({ "action": "essence", "ritual": "Ward", "leader": 3, "assistants": [2],
                          "thresholds": [9, 15] });
    let performed = apply(ritual, &memorised.state, essence.clone(), &[6, 5, 4, 3, 2]);
    assert_eq!(performed.result["pool"], 5);
    assert_eq!(performed.result["total"], 20);
    assert_eq!(performed.result["outcome"], json!({ "reached": 15 }));
    assert_eq!(performed.state["used"], json!(["Ward"]));
    assert_eq!(performed.state["attempts"], json!({ "Ward": 1 }));

    // The repeated attempt loses a die until everyone sleeps (000-S2).
    let again = apply(ritual, &performed.state, essence.clone(), &[1, 1, 1, 1]);
    assert_eq!(again.result["pool"], 4);
    assert_eq!(again.result["repeated_attempts"], 1);
    assert_eq!(again.result["outcome"], "failed");
    assert_eq!(again.state["attempts"], json!({ "Ward": 2 }));
    let slept = apply(ritual, &again.state, json!({ "action": "sleep" }), &[]);
    assert_eq!(slept.state["attempts"], json!({}));
    let rested = apply(ritual, &slept.state, essence, &[1, 1, 1, 1, 1]);
    assert_eq!(rested.result["pool"], 5);
}

#[test]
fn ritual_game_pairs_for_seven_declined_rerolls_and_a_second_memorised_ritual() {
    let ritual = game("ritual");
    let state = ritual
        .new_character(&json!({ "lore": 1, "known": ["Ward", "Gate"], "memorised": ["Ward"] }))
        .unwrap();
    // 12 dice, 3 pairs for 21, 6 dice rolled (000-M11).
    let paired = apply(
        ritual,
        &state,
        json!({ "action": "essence", "ritual": "Gate", "leader": 12, "thresholds": [21, 35],
                "pairs": 3 }),
        &[1, 2, 3, 4, 5, 6],
    );
    assert_eq!(paired.result["pairs"], 3);
    assert_eq!(paired.result["total"], 42);
    assert_eq!(paired.result["outcome"], json!({ "reached": 35 }));
    // 6 dice with one pair leave 4 to roll, and 7 alone does not reach 35 (000-A10).
    let listed = problems(
        ritual,
        &state,
        json!({ "action": "essence", "ritual": "Gate", "leader": 6, "thresholds": [21, 35],
                "pairs": 1 }),
    );
    contains_all(&listed, &["leaves 4 dice to roll"]);
    // Unless 7 per pair reaches the desired threshold (000-A9).
    let odds = ritual
        .odds(
            &state,
            &json!({ "action": "essence", "ritual": "Gate", "leader": 6, "thresholds": [21, 35],
                    "pairs": 3, "desired_threshold": 21 }),
            &limits(),
        )
        .unwrap();
    assert_eq!(odds["rolled_dice"], 0);
    assert_eq!(
        odds["outcomes"],
        json!([{ "outcome": { "reached": 21 }, "fraction": "1", "percent": 100.0 }])
    );

    // A second ritual to memorise takes a Lore check: Lore 1 + 1 (deciphered) = 2 dice (000-A7).
    let odds = ritual
        .odds(
            &state,
            &json!({ "action": "memorise", "ritual": "Gate", "difficulty": 4 }),
            &limits(),
        )
        .unwrap();
    assert_eq!(odds["pool"], 2);
    assert_eq!(odds["success"]["fraction"], fraction(&ratio(3, 4)));
    let forgot = apply(
        ritual,
        &state,
        json!({ "action": "memorise", "ritual": "Gate", "difficulty": 4 }),
        &[3, 2],
    );
    assert_eq!(forgot.result["memorised"], false);
    assert_eq!(forgot.state["memorised"], json!(["Ward"]));
    assert_eq!(forgot.state["session_checks"][0]["purpose"], "memorise");

    // Declining the session's re-roll rolls nothing and gains nothing, but the log resets (000-A6).
    let declined = apply(
        ritual,
        &forgot.state,
        json!({ "action": "end-session", "choice": "decline" }),
        &[],
    );
    assert_eq!(
        declined.result,
        json!({ "rerolled": null, "lore_gained": false, "lore": 1 })
    );
    assert_eq!(declined.state["session_checks"], json!([]));
    let odds = ritual
        .odds(
            &forgot.state,
            &json!({ "action": "end-session", "choice": "decline" }),
            &limits(),
        )
        .unwrap();
    assert_eq!(odds["lore_gain"]["fraction"], "0");
}

#[test]
fn ritual_game_refuses_an_unknown_ritual_listing_every_problem() {
    let ritual = game("ritual");
    let state = ritual
        .new_character(&json!({ "lore": 1, "unknown": ["Ward"] }))
        .unwrap();
    let before = state.clone();
    let listed = problems(
        ritual,
        &state,
        json!({ "action": "decipher", "ritual": "Ward", "difficulty": 9 }),
    );
    assert_eq!(listed.len(), 2, "{listed:#?}");
    contains_all(
        &listed,
        &["difficulty 9", "unknown rituals until lore increases"],
    );
    assert_eq!(state, before);

    let listed = problems(
        ritual,
        &state,
        json!({ "action": "essence", "ritual": " ", "leader": 2, "assistants": [-1],
                "other_penalties": -2, "thresholds": [] }),
    );
    contains_all(
        &listed,
        &[
            "needs a name",
            "assistant's essence -1",
            "penalty -2",
            "at least one essence threshold",
        ],
    );
    let listed = problems(
        ritual,
        &state,
        json!({ "action": "memorise", "ritual": "Candle", "difficulty": 3 }),
    );
    contains_all(&listed, &["not among the known rituals"]);
    let listed = problems(
        ritual,
        &state,
        json!({ "action": "essence", "ritual": "Ward", "thresholds": [9] }),
    );
    contains_all(&listed, &["leader's essence is unknown"]);
    let unknown = ritual.apply(
        &state,
        &json!({ "action": "banish" }),
        &mut ScriptedDice::new(vec![]),
        &limits(),
    );
    assert!(matches!(unknown, Err(ActionError::UnknownAction { .. })));
}

#[test]
fn ritual_game_loads_version_one_state_and_fills_missing_fields() {
    let ritual = game("ritual");
    let saved = fixture("ritual-v1.json");
    let loaded = ritual.load(1, &saved).unwrap();
    assert_eq!(loaded, saved);
    let state: RitualState = serde_json::from_value(loaded).unwrap();
    assert_eq!(state.lore, 2);
    assert_eq!(state.essence, Some(3));
    assert_eq!(
        state.repeated_attempts("Ward of Salt", Default::default()),
        1
    );
    // The fixture's essence check: leader 3 from the state, one repeated attempt.
    let odds = ritual
        .odds(
            &saved,
            &json!({ "action": "essence", "ritual": "Ward of Salt", "thresholds": [6] }),
            &limits(),
        )
        .unwrap();
    assert_eq!(
        (odds["pool"].clone(), odds["repeated_attempts"].clone()),
        (json!(2), json!(1))
    );

    let sparse = ritual.load(1, &json!({ "lore": 2 })).unwrap();
    assert_eq!(sparse, ritual.new_character(&json!({ "lore": 2 })).unwrap());
    assert_eq!(sparse["session_checks"], json!([]));
    assert!(matches!(
        ritual.load(2, &saved),
        Err(ActionError::Malformed { .. })
    ));
    let broken = json!({ "lore": -1, "memorised": ["Nothing"], "essence": -2 });
    match ritual.load(1, &broken) {
        Err(ActionError::Invalid(problems)) => assert_eq!(problems.0.len(), 3, "{problems}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn ritual_game_odds_are_the_modules_exact_values() {
    let ritual = game("ritual");
    let state = ritual
        .new_character(&json!({ "lore": 2, "known": ["Ward"] }))
        .unwrap();
    let options = RitualOptions::default();
    // Deciphered before: +1, so 3 dice against difficulty 5: 1 − (4/6)³ = 19/27.
    let odds = ritual
        .odds(
            &state,
            &json!({ "action": "decipher", "ritual": "Ward", "difficulty": 5 }),
            &limits(),
        )
        .unwrap();
    let modifiers = LoreModifiers {
        deciphered_before: true,
        ..LoreModifiers::default()
    };
    let check = LoreCheck::new(
        2,
        RitualDifficulty::new(5).unwrap(),
        &modifiers,
        &options,
        &limits(),
    )
    .unwrap();
    let success = check.success_probability(&limits()).unwrap();
    assert_eq!(success, ratio(19, 27));
    assert_eq!(odds["success"]["fraction"], fraction(&success));
    assert_eq!(odds["pool"], 3);
    let results = check.result_distribution(&limits()).unwrap().unwrap();
    assert_eq!(odds["results"], stateful::distribution_json(&results));

    // A lore check with all six modifiers given: 2 − 2 − 1 − 1 − 1 + 1 + 2 = 0, two dice keep lower.
    let odds = ritual
        .odds(
            &state,
            &json!({ "action": "lore-check", "ritual": "New", "difficulty": 3, "inventing": true,
                    "modifying": true, "unfamiliar_language": true, "foreign_tradition": true,
                    "deciphered_before": true, "performed_before": true }),
            &limits(),
        )
        .unwrap();
    assert_eq!(odds["pool"], 0);
    assert_eq!(odds["rule"], "lower-of-two");
    assert_eq!(odds["dice_rolled"], 2);
    assert_eq!(odds["success"]["fraction"], fraction(&ratio(4, 9)));

    // Essence: 5 dice against 9 and 15, exactly as the module's check.
    let odds = ritual
        .odds(
            &state,
            &json!({ "action": "essence", "ritual": "Ward", "leader": 3, "assistants": [2],
                    "thresholds": [15, 9] }),
            &limits(),
        )
        .unwrap();
    let essence = EssenceCheck::from_pool(5, &[9, 15], &limits()).unwrap();
    for (row, (threshold, p)) in essence
        .threshold_probabilities(&limits())
        .unwrap()
        .iter()
        .enumerate()
    {
        assert_eq!(odds["thresholds"][row]["threshold"], json!(threshold));
        assert_eq!(odds["thresholds"][row]["fraction"], fraction(p));
    }
    let outcomes = essence.outcome_distribution(&limits()).unwrap();
    assert_eq!(odds["outcomes"], stateful::distribution_json(&outcomes));

    // The end of a session: P(Lore gain) of the state's own calculation.
    let logged = apply(
        ritual,
        &state,
        json!({ "action": "decipher", "ritual": "Gate", "difficulty": 6 }),
        &[6, 2],
    );
    let odds = ritual
        .odds(
            &logged.state,
            &json!({ "action": "end-session" }),
            &limits(),
        )
        .unwrap();
    let typed: RitualState = serde_json::from_value(logged.state.clone()).unwrap();
    let gain = typed.lore_gain_probability(&limits()).unwrap();
    assert_eq!(gain, ratio(25, 36));
    assert_eq!(odds["lore_gain"]["fraction"], fraction(&gain));
    assert!(matches!(
        ritual.odds(&state, &json!({ "action": "sleep" }), &limits()),
        Err(ActionError::Malformed { .. })
    ));
}

// ---------------------------------------------------------------------------------------------------
// Spell dice (001).

#[test]
fn spelldice_game_replays_the_seeds_example_and_a_day() {
    let spells = game("spelldice");
    let state = spells.new_character(&json!({ "level": 3 })).unwrap();
    assert_eq!(state["pool"], 5);
    // The seed: 2, 4, 5 against 9 succeeds and the 2 is lost.
    let cast = apply(
        spells,
        &state,
        json!({ "action": "cast", "spell_level": 2, "spell_dice": 3 }),
        &[2, 4, 5],
    );
    assert_eq!(
        cast.result,
        json!({ "spell_dice": [2, 4, 5], "life_dice": [], "total": 11, "target": 9,
                "result": "success", "removed": 1, "life_damage": 0, "pool": 4, "can_reach": true })
    );
    assert_eq!(cast.state["pool"], 4);
    // The author's variant for one cast: a plain failure keeps its 1 and 2 (001-M6).
    let kept = apply(
        spells,
        &cast.state,
        json!({ "action": "cast", "spell_dice": 2, "removal_timing": "success-or-catastrophe" }),
        &[1, 2],
    );
    assert_eq!(
        (
            kept.result["result"].clone(),
            kept.result["removed"].clone()
        ),
        (json!("failure"), json!(0))
    );
    // Under the seed's rule they go.
    let lost = apply(
        spells,
        &cast.state,
        json!({ "action": "cast", "spell_dice": 2 }),
        &[1, 2],
    );
    assert_eq!(lost.state["pool"], 2);
    let slept = apply(spells, &lost.state, json!({ "action": "sleep" }), &[]);
    assert_eq!(slept.state["pool"], 5);
    assert_eq!(slept.result, json!({ "recovered": 3, "pool": 5 }));

    // Armour worn counts against every cast (001-M7).
    let armoured = spells
        .new_character(&json!({ "level": 1, "penalties": { "armour": 2 } }))
        .unwrap();
    let heavy = apply(
        spells,
        &armoured,
        json!({ "action": "cast", "spell_dice": 2 }),
        &[4, 5],
    );
    assert_eq!(
        (
            heavy.result["total"].clone(),
            heavy.result["result"].clone()
        ),
        (json!(7), json!("failure"))
    );
}

#[test]
fn spelldice_game_life_energy_hurts_and_heals() {
    let spells = game("spelldice");
    let drained = spells
        .new_character(&json!({ "level": 2, "pool": 0 }))
        .unwrap();
    let cast = apply(
        spells,
        &drained,
        json!({ "action": "cast", "life_dice": 2 }),
        &[3, 6],
    );
    assert_eq!(cast.result["result"], "success");
    assert_eq!(cast.result["life_damage"], 9);
    assert_eq!(cast.state["life_damage_taken"], 9);
    let healed = apply(
        spells,
        &cast.state,
        json!({ "action": "heal", "amount": 4 }),
        &[],
    );
    assert_eq!(healed.state["life_damage_taken"], 5);
    let whole = apply(spells, &healed.state, json!({ "action": "heal" }), &[]);
    assert_eq!(whole.state["life_damage_taken"], 0);
}

#[test]
fn spelldice_game_refuses_an_impossible_cast_listing_every_problem() {
    let spells = game("spelldice");
    let state = spells.new_character(&json!({ "level": 1 })).unwrap();
    let before = state.clone();
    let listed = problems(
        spells,
        &state,
        json!({ "action": "cast", "spell_level": 10, "spell_dice": 4, "life_dice": 2,
                "removal_faces": 7 }),
    );
    assert_eq!(listed.len(), 5, "{listed:#?}");
    contains_all(
        &listed,
        &[
            "spell level 10",
            "removal faces 1..=7",
            "cannot commit 4 spell dice from a pool of 3",
            "2 life-energy dice exceed the magic-user level 1",
            "only once the spell pool is empty",
        ],
    );
    assert_eq!(state, before);
    let listed = problems(spells, &state, json!({ "action": "cast" }));
    contains_all(&listed, &["at least one die"]);
    match spells.new_character(&json!({ "level": 1, "pool": 4 })) {
        Err(ActionError::Invalid(problems)) => {
            assert!(problems.0[0].contains("at most 3 spell dice"), "{problems}")
        }
        other => panic!("{other:?}"),
    }
    // The typed caster refuses the same pool when read.
    assert!(serde_json::from_value::<Caster>(json!({ "level": 1, "pool": 4 })).is_err());
    let caster: Caster = serde_json::from_value(json!({ "level": 1, "pool": 3 })).unwrap();
    assert_eq!(
        serde_json::to_value(caster).unwrap(),
        json!({ "level": 1, "pool": 3 })
    );
}

#[test]
fn spelldice_game_loads_version_one_state_and_fills_missing_fields() {
    let spells = game("spelldice");
    let saved = fixture("spelldice-v1.json");
    assert_eq!(spells.load(1, &saved).unwrap(), saved);
    // The fixture plays the author's variant with 1 armour: 1 + 1 against 8 fails and keeps its dice.
    let cast = apply(
        spells,
        &saved,
        json!({ "action": "cast", "spell_dice": 2 }),
        &[1, 1],
    );
    assert_eq!(cast.result["result"], "catastrophe");
    assert_eq!(cast.state["pool"], 2);

    let sparse = spells.load(1, &json!({ "level": 3, "pool": 5 })).unwrap();
    assert_eq!(
        sparse,
        spells.new_character(&json!({ "level": 3 })).unwrap()
    );
    assert_eq!(sparse["rules"]["removal_faces"], 2);
    assert_eq!(sparse["rules"]["removal_timing"], "always");
    match spells.load(
        1,
        &json!({ "level": 0, "pool": 0, "life_damage_taken": -1 }),
    ) {
        Err(ActionError::Invalid(problems)) => assert_eq!(problems.0.len(), 2, "{problems}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn spelldice_game_odds_are_the_modules_exact_values() {
    let spells = game("spelldice");
    let state = spells.new_character(&json!({ "level": 3 })).unwrap();
    for dice in 1..=5usize {
        let odds = spells
            .odds(
                &state,
                &json!({ "action": "cast", "spell_level": 2, "spell_dice": dice }),
                &limits(),
            )
            .unwrap();
        let spell = SpellLevel::new(2).unwrap();
        let exact = cast_odds(spell, dice, 0, &limits()).unwrap();
        assert_eq!(odds["success"]["fraction"], fraction(&exact.success));
        assert_eq!(
            odds["catastrophe"]["fraction"],
            fraction(&exact.catastrophe)
        );
        assert_eq!(odds["empowered"]["fraction"], fraction(&exact.empowered));
        let single =
            single_cast_distribution(spell, dice, 0, &SpellDiceOptions::default(), &limits())
                .unwrap();
        let removed: Distribution<usize> = single.map(|o| o.removed);
        assert_eq!(odds["removed"], stateful::distribution_json(&removed));
    }

    // Life-energy dice, counted here over the 36 rolls of 2d6 against 8.
    let drained = spells
        .new_character(&json!({ "level": 2, "pool": 0 }))
        .unwrap();
    let odds = spells
        .odds(
            &drained,
            &json!({ "action": "cast", "life_dice": 2 }),
            &limits(),
        )
        .unwrap();
    let mut counts = [0u64; 4];
    for a in 1..=6 {
        for b in 1..=6 {
            let success = a + b >= 8;
            let snake_eyes = a == 1 && b == 1;
            counts[0] += u64::from(success);
            counts[1] += u64::from(!success && snake_eyes);
            counts[2] += u64::from(success && a == 6 && b == 6);
            counts[3] += u64::from(!(success || snake_eyes));
        }
    }
    for (key, count) in ["success", "catastrophe", "empowered", "failure"]
        .iter()
        .zip(counts)
    {
        assert_eq!(odds[*key]["fraction"], fraction(&ratio(count, 36)), "{key}");
    }
    assert_eq!(
        odds["removed"],
        json!([{ "outcome": 0, "fraction": "1", "percent": 100.0 }])
    );
    assert_eq!(odds["life_damage"].as_array().unwrap().len(), 11);

    // The module's own joint distribution agrees with the cast it describes.
    let caster = Caster::with_pool(2, 0, &limits()).unwrap();
    let request = CastRequest {
        life_dice: 2,
        ..CastRequest::new(SpellLevel::AGNOSTIC, 0)
    };
    let joint =
        spelldice::cast_distribution(&caster, &request, &SpellDiceOptions::default(), &limits())
            .unwrap();
    assert_eq!(odds["outcomes"], stateful::distribution_json(&joint));
    assert!(matches!(
        spells.odds(&state, &json!({ "action": "sleep" }), &limits()),
        Err(ActionError::Malformed { .. })
    ));
}

// ---------------------------------------------------------------------------------------------------
// T13 (004).

#[test]
fn t13_game_replays_tests_and_pays_for_bought_dice() {
    let t13 = game("t13");
    let state = t13
        .new_character(
            &json!({ "character_type": "grunt", "sway": 10, "chi": 1, "proficiency": 2 }),
        )
        .unwrap();
    // The module's example: Boon d6, Descendant d10, 2d8 against 6; 4 + 7 + 3 + 5 = 19.
    let plain = apply(
        t13,
        &state,
        json!({ "action": "test", "boon": 6, "descendant": 10, "difficulty": 6 }),
        &[4, 7, 3, 5],
    );
    assert_eq!(plain.result["total"], 19);
    assert_eq!(plain.result["level"], "superior-success");
    assert_eq!(plain.result["success_levels"], 3);
    assert_eq!(plain.result["extra_success_levels"], 1);
    assert_eq!(plain.result["crisis"], false);
    // Nothing paid; the extra level waits to be spent (004-M5).
    let mut unspent = plain.state.clone();
    assert_eq!(
        unspent.as_object_mut().unwrap().remove("levels"),
        Some(json!({ "success": 1, "failure": 0, "crisis": false, "gained": [], "lost": [] }))
    );
    assert_eq!(unspent, state);

    // A bought Skill d6 costs 4 Sway (004-M2, D1); the grunt caps at 4 success levels (004-M5).
    let bought = apply(
        t13,
        &state,
        json!({ "action": "test", "boon": 6, "descendant": 10, "difficulty": 3,
                "bought": [{ "kind": "skill", "sides": 6 }] }),
        &[6, 10, 2, 7, 6],
    );
    assert_eq!(bought.result["bought"], json!([6]));
    assert_eq!(bought.result["total"], 31);
    assert_eq!(bought.result["success_levels"], 10);
    assert_eq!(bought.result["capped_success_levels"], 4);
    assert_eq!(
        bought.result["paid"],
        json!({ "sway": 4, "chi": 0, "yarn": 0 })
    );
    assert_eq!(bought.state["sway"], 6);

    // A proficiency d8 at 8 is a crisis: a moderate success also takes a moderate failure (004-M7).
    let crisis = apply(
        t13,
        &state,
        json!({ "action": "test", "difficulty": 10, "proficiency": 2 }),
        &[8, 4],
    );
    assert_eq!(crisis.result["level"], "moderate-success");
    assert_eq!(
        crisis.result["crisis_opposite"],
        json!({ "level": "moderate-failure", "levels": 1 })
    );

    // Against an opponent's 20, a 10 is a moderate failure whose level the opponent's success
    // level replaces (004-M6, A7).
    let opposed = apply(
        t13,
        &state,
        json!({ "action": "test", "opponent_total": 20, "boon": 6 }),
        &[2, 3, 5],
    );
    assert_eq!(opposed.result["level"], "moderate-failure");
    assert_eq!(opposed.result["failure_levels"], 1);
    assert_eq!(opposed.result["opponent_success_levels"], 1);
    assert_eq!(opposed.result["failure_levels_suffered"], 0);
    assert_eq!(
        opposed.result["opposition"],
        json!({ "opponent_total": 20 })
    );
}

#[test]
fn t13_game_refuses_dice_the_character_cannot_pay_for_listing_every_problem() {
    let t13 = game("t13");
    let state = t13.new_character(&json!({ "sway": 1 })).unwrap();
    let before = state.clone();
    let listed = problems(
        t13,
        &state,
        json!({ "action": "test", "proficiency": 1,
                "bought": [{ "kind": "skill", "sides": 6 },
                           { "kind": "talent", "sides": 8, "currency": "chi" },
                           { "kind": "dragon", "sides": 6 }] }),
    );
    assert_eq!(listed.len(), 5, "{listed:#?}");
    contains_all(
        &listed,
        &[
            "has 0 proficiency dice, not 1",
            "unknown purchase kind \"dragon\"",
            "needs a difficulty or an opponent's total",
            "cost 4 sway but the character has 1 (short 3)",
            "cost 5 chi but the character has 0 (short 5)",
        ],
    );
    assert_eq!(state, before);
    let listed = problems(
        t13,
        &state,
        json!({ "action": "test", "difficulty": 0, "opponent_total": 4 }),
    );
    contains_all(&listed, &["not both"]);
}

#[test]
fn t13_game_gains_and_spends_never_below_zero() {
    let t13 = game("t13");
    let state = t13
        .new_character(&json!({ "sway": 6, "yarn": 1, "proficiency": 2 }))
        .unwrap();
    let gained = apply(
        t13,
        &state,
        json!({ "action": "gain", "sway": 4, "chi": 2 }),
        &[],
    );
    assert_eq!(gained.result, json!({ "sway": 10, "chi": 2, "yarn": 1 }));
    let listed = problems(
        t13,
        &gained.state,
        json!({ "action": "spend", "sway": 14, "yarn": 3 }),
    );
    assert_eq!(listed.len(), 3, "{listed:#?}");
    contains_all(
        &listed,
        &[
            "spending 14 sway but the character has 10 (short 4)",
            "spending 3 yarn but the character has 1",
            "lost-proficiencies",
        ],
    );
    let spent = apply(
        t13,
        &gained.state,
        json!({ "action": "spend", "sway": 14, "shortfall_paid_as": "lost-proficiencies" }),
        &[],
    );
    assert_eq!(spent.result["shortfall"], json!({ "sway": 4 }));
    assert_eq!(spent.state["sway"], 0);
    assert_eq!(spent.state["proficiency"], 1);
    let within = apply(
        t13,
        &gained.state,
        json!({ "action": "spend", "chi": 2 }),
        &[],
    );
    assert_eq!(within.state["chi"], 0);
    assert_eq!(within.result["shortfall"], json!({}));
    assert_eq!(within.result["shortfall_paid_as"], Value::Null);
}

#[test]
fn t13_game_loads_version_one_state_and_fills_missing_fields() {
    let t13 = game("t13");
    let saved = fixture("t13-v1.json");
    assert_eq!(t13.load(1, &saved).unwrap(), saved);
    let state: t13::T13State = serde_json::from_value(saved).unwrap();
    assert_eq!(state.character_type, t13::CharacterType::Mercari);
    assert_eq!(state.proficiency, 3);
    let empty = t13.load(1, &json!({})).unwrap();
    assert_eq!(
        empty,
        json!({ "character_type": "solo", "sway": 0, "chi": 0, "yarn": 0, "proficiency": 0 })
    );
    match t13.load(1, &json!({ "proficiency": 5 })) {
        Err(ActionError::Invalid(problems)) => assert!(problems.0[0].contains("at most 4")),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        t13.load(1, &json!({ "sway": -1 })),
        Err(ActionError::Malformed { .. })
    ));
}

#[test]
fn t13_game_odds_are_the_modules_exact_values() {
    let t13 = game("t13");
    let state = t13
        .new_character(&json!({ "sway": 4, "proficiency": 2 }))
        .unwrap();
    let odds = t13
        .odds(
            &state,
            &json!({ "action": "test", "boon": 6, "descendant": 10, "difficulty": 9,
                    "bought": [{ "kind": "skill", "sides": 4 }] }),
            &limits(),
        )
        .unwrap();
    let spec = DiceSpec {
        boon: Some(6),
        descendant: Some(10),
        proficiency: 2,
        bought: vec![t13::BoughtDie::from_names("skill", 4, "sway").unwrap()],
        modifier: 0,
    };
    let dice = TestDice::new(spec, &limits()).unwrap();
    let difficulty = Difficulty::new(9).unwrap();
    let levels = dice.level_distribution(difficulty, &limits()).unwrap();
    assert_eq!(odds["levels"], stateful::distribution_json(&levels));
    let crisis = dice
        .crisis_probability(&T13Options::default(), &limits())
        .unwrap();
    assert_eq!(crisis, ratio(7, 16));
    assert_eq!(odds["crisis"]["fraction"], fraction(&crisis));
    assert_eq!(odds["cost"], json!({ "sway": 4, "chi": 0, "yarn": 0 }));
    let success = levels.probability_where(|l| l.is_success());
    assert_eq!(odds["success"]["fraction"], fraction(&success));
    assert!(matches!(
        t13.odds(&state, &json!({ "action": "gain", "sway": 1 }), &limits()),
        Err(ActionError::Malformed { .. })
    ));
}

/// 000-M8's optional rule of recording and memorising, with the option on: a known ritual copied
/// into the notes is performed from them with no Lore check; a failed remembering check leaves a
/// ritual out of memory, so reading it from there is refused (the notes, or the source after a new
/// decipher check, remain); the source needs a decipher check this session. With the option off,
/// `read_from` is refused, and results keep their shape.
#[test]
fn ritual_000_m8_notes_memory_and_the_source() {
    let ritual = game("ritual");
    let state = ritual
        .new_character(&json!({ "lore": 2, "essence": 3, "known": ["Ward", "Binding"] }))
        .unwrap();
    assert!(state.get("notes").is_none(), "{state}");
    let recorded = apply(
        ritual,
        &state,
        json!({ "action": "record", "ritual": "Ward" }),
        &[],
    );
    assert_eq!(recorded.state["notes"], json!(["Ward"]));
    let again = ritual
        .apply(
            &recorded.state,
            &json!({ "action": "record", "ritual": "Ward" }),
            &mut ScriptedDice::new(vec![]),
            &limits(),
        )
        .unwrap_err();
    assert!(
        again.to_string().contains("already in the notes"),
        "{again}"
    );
    let stranger = ritual
        .apply(
            &state,
            &json!({ "action": "record", "ritual": "Moon" }),
            &mut ScriptedDice::new(vec![]),
            &limits(),
        )
        .unwrap_err();
    assert!(stranger.to_string().contains("decipher it"), "{stranger}");
    // The first memorised ritual is free; the second takes a Lore check: Lore 2 + 1 (deciphered
    // before) = 3 dice against 4, and 1, 2, 3 fail.
    let ward = apply(
        ritual,
        &recorded.state,
        json!({ "action": "memorise", "ritual": "Ward", "difficulty": 4 }),
        &[],
    );
    let forgot = apply(
        ritual,
        &ward.state,
        json!({ "action": "memorise", "ritual": "Binding", "difficulty": 4 }),
        &[1, 2, 3],
    );
    assert_eq!(forgot.result["memorised"], false);
    let perform = |ritual_name: &str, read_from: Option<&str>, on: bool| {
        let mut action = json!({ "action": "essence", "ritual": ritual_name, "thresholds": [9] });
        if on {
            action["recording_and_memorising"] = json!("on");
        }
        if let Some(from) = read_from {
            action["read_from"] = json!(from);
        }
        action
    };
    let from_memory = problems(
        ritual,
        &forgot.state,
        perform("Binding", Some("memory"), true),
    );
    assert!(
        from_memory[0].contains("is not memorised"),
        "{from_memory:?}"
    );
    assert!(
        from_memory[0].contains("notes (no check)"),
        "{from_memory:?}"
    );
    let from_notes = problems(
        ritual,
        &forgot.state,
        perform("Binding", Some("notes"), true),
    );
    assert!(from_notes[0].contains("not in the notes"), "{from_notes:?}");
    // Copied, it is performed from the notes: only the 3 Essence dice roll, 4 + 4 + 4 = 12 ≥ 9.
    let copied = apply(
        ritual,
        &forgot.state,
        json!({ "action": "record", "ritual": "Binding" }),
        &[],
    );
    let performed = apply(
        ritual,
        &copied.state,
        perform("Binding", Some("notes"), true),
        &[4, 4, 4],
    );
    assert_eq!(performed.result["read_from"], "notes");
    assert_eq!(performed.result["total"], 12);
    assert_eq!(performed.result["performed"], true);
    // Ward is memorised, so memory holds it; the source needs a decipher check this session.
    apply(
        ritual,
        &copied.state,
        perform("Ward", Some("memory"), true),
        &[6, 6, 6],
    );
    let from_source = problems(ritual, &copied.state, perform("Ward", Some("source"), true));
    assert!(
        from_source[0].contains("decipher it again"),
        "{from_source:?}"
    );
    let deciphered = apply(
        ritual,
        &copied.state,
        json!({ "action": "decipher", "ritual": "Ward", "difficulty": 4 }),
        &[5, 1, 1],
    );
    let sourced = apply(
        ritual,
        &deciphered.state,
        perform("Ward", Some("source"), true),
        &[6, 6, 6],
    );
    assert_eq!(sourced.result["read_from"], "source");
    // With the option on, where it is read from must be said; with it off, it may not be.
    let unsaid = problems(ritual, &copied.state, perform("Ward", None, true));
    assert!(unsaid[0].contains("memory, notes or source"), "{unsaid:?}");
    let off = problems(ritual, &copied.state, perform("Ward", Some("notes"), false));
    assert!(off[0].contains("recording-and-memorising=on"), "{off:?}");
    let plain = apply(
        ritual,
        &copied.state,
        perform("Ward", None, false),
        &[6, 6, 6],
    );
    assert!(plain.result.get("read_from").is_none());
}

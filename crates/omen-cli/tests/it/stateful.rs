//! Game actions that keep a character's state: the `--state FILE` and one-off forms, `--odds`, and
//! what happens to the file when an action fails.

use crate::{json, omen, omen_ok, scratch_dir};

/// The seed's 13-step karmic example (002-M5), one `omen luck roll` per step against one state file:
/// (event modifier, die, outcome, karmic modifier used by the roll).
#[test]
fn luck_replays_the_seeds_thirteen_steps_through_a_state_file() {
    let dir = scratch_dir("luck_thirteen_steps");
    let state = dir.join("ayla.json");
    let state = state.to_str().unwrap();
    let steps: [(i64, i64, &str, i64); 13] = [
        (0, 50, "good", 0),
        (0, 50, "good", 0),
        (0, 50, "good", -1),
        (0, 1, "bad", -2),
        (0, 25, "neutral", 0),
        (0, 1, "bad", 0),
        (0, 1, "bad", 0),
        (0, 1, "bad", 1),
        (0, 1, "bad", 2),
        (0, 1, "bad", 4),
        (0, 1, "bad", 7),
        (-1, 1, "bad", 10),
        (0, 25, "neutral", 10),
    ];
    for (step, (event, die, outcome, karmic)) in steps.into_iter().enumerate() {
        let (event, die) = (event.to_string(), die.to_string());
        let run = omen_ok(&[
            "luck",
            "roll",
            "--state",
            state,
            "--event-modifier",
            &event,
            "--dice",
            &die,
            "--format",
            "json",
        ]);
        let report = json(&run);
        assert_eq!(report["result"]["outcome"], outcome, "step {}", step + 1);
        assert_eq!(
            report["result"]["karmic_modifier"],
            karmic,
            "step {}",
            step + 1
        );
    }
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(state).unwrap()).unwrap();
    assert_eq!(file["rules"], "luck");
    assert_eq!(file["version"], 1);
    assert_eq!(file["state"]["history"], serde_json::Value::Null);
}

#[test]
fn odds_come_from_the_current_state_and_roll_nothing() {
    let dir = scratch_dir("luck_odds_from_state");
    let state = dir.join("b.json");
    let state = state.to_str().unwrap();
    // Two good rolls: karmic −1, so the ranges of modifier −1: bad 1..11, good 42..50.
    for die in ["50", "50"] {
        omen_ok(&["luck", "roll", "--state", state, "--dice", die]);
    }
    let before = std::fs::read_to_string(state).unwrap();
    let odds = json(&omen_ok(&[
        "luck", "roll", "--state", state, "--odds", "--format", "json",
    ]));
    assert_eq!(odds["odds"]["karmic_modifier"], -1);
    let outcomes = odds["odds"]["outcomes"].as_array().unwrap();
    let fractions: Vec<&str> = outcomes
        .iter()
        .map(|o| o["fraction"].as_str().unwrap())
        .collect();
    assert_eq!(fractions, ["11/50", "3/5", "9/50"]);
    assert_eq!(std::fs::read_to_string(state).unwrap(), before);
}

#[test]
fn a_failed_action_leaves_the_state_file_as_it_was() {
    let dir = scratch_dir("luck_failed_action");
    let state = dir.join("c.json");
    let state = state.to_str().unwrap();
    omen_ok(&[
        "luck",
        "add-modifier",
        "--state",
        state,
        "--source",
        "halfling",
        "--value",
        "2",
    ]);
    let before = std::fs::read_to_string(state).unwrap();
    // 60 is not a face of a d50; an event modifier of 51 is out of range; a missing source.
    for args in [
        &["--dice", "60"][..],
        &["--event-modifier", "51", "--dice", "3"][..],
    ] {
        let mut all = vec!["luck", "roll", "--state", state];
        all.extend_from_slice(args);
        let run = omen(&all);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    }
    let run = omen(&[
        "luck",
        "remove-modifier",
        "--state",
        state,
        "--source",
        "blessing",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("no intrinsic modifier comes from `blessing`")
    );
    assert_eq!(std::fs::read_to_string(state).unwrap(), before);
    // No temporary file is left behind: only the state and its lock file.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[0].ends_with(".lock"), "{names:?}");
}

#[test]
fn a_state_file_of_another_game_is_refused() {
    let dir = scratch_dir("luck_wrong_game");
    let state = dir.join("d.json");
    std::fs::write(&state, r#"{"rules":"t13","version":1,"state":{}}"#).unwrap();
    let run = omen(&[
        "luck",
        "roll",
        "--state",
        state.to_str().unwrap(),
        "--dice",
        "3",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("holds a `t13` character"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_one_off_character_comes_from_its_sheet() {
    // A halfling's +2 turns a 40 into good luck (good from 39 at +2).
    let run = omen_ok(&[
        "luck",
        "roll",
        "--sheet",
        r#"{"intrinsic":[{"source":"halfling","value":2}]}"#,
        "--dice",
        "40",
        "--format",
        "json",
    ]);
    let report = json(&run);
    assert_eq!(report["result"]["modifier"], 2);
    assert_eq!(report["result"]["outcome"], "good");
    let bad_sheet = omen(&["luck", "roll", "--sheet", r#"{"intrinsic":[{"value":2}]}"#]);
    assert_eq!(bad_sheet.code, 2);
    assert!(
        bad_sheet.stderr.contains("invalid sheet"),
        "{}",
        bad_sheet.stderr
    );
}

#[test]
fn seeded_actions_show_their_seed_and_dice() {
    let first = omen_ok(&["luck", "roll", "--seed", "42"]);
    let again = omen_ok(&["luck", "roll", "--seed", "42"]);
    assert_eq!(first.stdout, again.stdout);
    assert!(first.stdout.contains("seed: 42"), "{}", first.stdout);
    assert!(first.stdout.contains("dice: ["), "{}", first.stdout);
}

#[test]
fn spelldice_extremes_give_the_seeds_numbers_as_two_or_more_ones() {
    // 001-A2: the seed's 1/36, 16/216, 171/1296 are P(two or more 1s) for 2, 3, 4 dice.
    let report = json(&omen_ok(&[
        "spelldice",
        "extremes",
        "--max-dice",
        "4",
        "--format",
        "json",
    ]));
    let cell = |dice: &str, column: &str| {
        let text = crate::table_cell(&report, "Snake eyes", dice, column);
        crate::fraction_of(&text).to_string()
    };
    let snake: Vec<String> = ["1", "2", "3", "4"]
        .iter()
        .map(|dice| cell(dice, "snake eyes"))
        .collect();
    assert_eq!(snake, ["0", "1/36", "2/27", "19/144"]);
    assert_eq!(cell("2", "either"), "1/18");
    assert_eq!(cell("4", "both"), "1/216");
}

#[test]
fn spelldice_odds_by_spell_level_are_exact() {
    let report = json(&omen_ok(&[
        "spelldice",
        "odds",
        "--spell-level",
        "1",
        "--max-dice",
        "2",
        "--format",
        "json",
    ]));
    let two = |column: &str| {
        let text = crate::table_cell(&report, "Spell level 1", "2", column);
        crate::fraction_of(&text).to_string()
    };
    // Target 8 on 2d6: 15/36 reach it; snake eyes 1/36 is a catastrophe; boxcars 1/36 empowered.
    assert_eq!(two("success"), "5/12");
    assert_eq!(two("catastrophe"), "1/36");
    assert_eq!(two("empowered"), "1/36");
    let run = omen(&["spelldice", "odds", "--max-dice", "0"]);
    assert_eq!(run.code, 2);
}

#[test]
fn omen_rules_lists_each_stateful_games_actions() {
    let games = json(&omen_ok(&["rules", "--format", "json"]));
    for game in games.as_array().unwrap() {
        let name = game["name"].as_str().unwrap();
        let listed: Vec<&str> = game["actions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["name"].as_str().unwrap())
            .collect();
        let expected: Vec<&str> = omen_rules::stateful::game(name)
            .map(|g| g.actions().iter().map(|a| a.name).collect())
            .unwrap_or_default();
        assert_eq!(listed, expected, "{name}");
    }
    let luck = games
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "luck")
        .unwrap();
    assert_eq!(luck["state_version"], 1);
    assert!(
        omen_ok(&["rules"])
            .stdout
            .contains("  action roll: a d50 luck roll")
    );
}

#[test]
fn omen_act_takes_any_action_as_json_and_names_what_is_wrong() {
    let run = omen_ok(&[
        "act",
        "luck",
        r#"{"action":"roll","event_modifier":-5}"#,
        "--dice",
        "5",
        "--format",
        "json",
    ]);
    assert_eq!(json(&run)["result"]["outcome"], "bad");
    for (args, message) in [
        (
            ["act", "luck", r#"{"action":"fly"}"#],
            "luck has no action `fly`; its actions are: roll, add-modifier, remove-modifier",
        ),
        (
            ["act", "luck", r#"{"action":"roll","event_modifer":1}"#],
            "unknown field `event_modifer`",
        ),
        (["act", "luck", "{roll"], "is not valid JSON"),
        (
            ["act", "lucky", "{}"],
            "no game `lucky` keeps character state",
        ),
    ] {
        let run = omen(&args);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
    }
}

/// Game odds print as aligned tables with a sentence, not as a dump of JSON keys. At modifier -5 the
/// bad band of the d50 grows to 1-15 and the good band shrinks to 46-50 (002-M1): 3/10, 3/5, 1/10.
#[test]
fn game_odds_print_as_an_aligned_table_with_a_sentence() {
    let run = omen_ok(&[
        "luck",
        "roll",
        "--sheet",
        r#"{"intrinsic":[]}"#,
        "--event-modifier",
        "-5",
        "--odds",
    ]);
    let expected = "\
odds of roll:
  karmic_modifier  0
  modifier         -5

  outcomes     P        %
  bad       3/10   30.00%
  neutral    3/5   60.00%
  good      1/10   10.00%
  most likely: neutral (60.00%)
";
    assert_eq!(run.stdout, expected);
}

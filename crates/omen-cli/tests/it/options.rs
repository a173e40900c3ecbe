//! Every rule option of `omen rules` set on the game subcommands through one repeatable
//! `--option NAME=VALUE`, checked against the rule set's list; expected values worked out by hand
//! from the spec's readings.

use crate::{json, omen, omen_ok};

fn check_net(options: &[&str]) -> i64 {
    // 4d12 against DV 12 with intractability 2: 12-1-5-5 is 1 success and 1 catastrophe.
    let sheet = crate::hprpg_sheet("FITNESS", 2, Some(("SPEED", 2)));
    let mut args = vec![
        "hprpg",
        "check",
        "--aspect",
        "FITNESS",
        "--ability",
        "SPEED",
        "--sheet",
        &sheet,
        "--dv",
        "12",
        "--intractability",
        "2",
        "--dice",
        "12,1,5,5",
        "--format",
        "json",
    ];
    args.extend(options);
    json(&omen_ok(&args))["result"]["net"].as_i64().unwrap()
}

#[test]
fn a5_intractability_floor_is_an_option_of_hprpg_check() {
    // 003-M7: max(1 − 2, 0) − 1 = −1; 003-A5's other reading: 1 − 2 − 1 = −2.
    assert_eq!(check_net(&[]), -1);
    assert_eq!(check_net(&["--option", "intractability-floor=floor"]), -1);
    assert_eq!(
        check_net(&["--option", "intractability-floor=no-floor"]),
        -2
    );
}

#[test]
fn a4_difficulty_above_twelve_is_an_option_of_hprpg_resist() {
    // Resist DV 8 + 7 + 0 − 0 = 15 for SUMNUS: clamped to 12, or 12 with 3 points of intractability.
    let sheet = r#"{"sheet": {"aspects": {"FITNESS": 1, "CHARM": 1, "INTELLIGENCE": 1,
        "PRECISION": 1, "DECEPTION": 1, "WILLPOWER": 1, "VITALITY": 1, "INSIGHT": 1,
        "PERCEPTION": 1}, "custom_abilities": {"DODGE": {"type": "INNATE", "dots": 0}}}}"#;
    let resist = |options: &[&str]| {
        let mut args = vec![
            "hprpg",
            "resist",
            "--aspect",
            "FITNESS",
            "--ability",
            "DODGE",
            "--level",
            "7",
            "--power",
            "7",
            "--sheet",
            sheet,
            "--dice",
            "12",
            "--format",
            "json",
        ];
        args.extend(options);
        json(&omen_ok(&args))["result"].clone()
    };
    let clamped = resist(&[]);
    assert_eq!(
        (clamped["difficulty"].clone(), clamped["net"].clone()),
        (12.into(), 1.into())
    );
    let converted = resist(&["--option", "difficulty-above-twelve=intractability"]);
    assert_eq!(converted["intractability"], 3);
    assert_eq!(converted["net"], 0);
}

#[test]
fn a4_spelldice_removal_timing_is_an_option_of_cast() {
    // Level 1, 2 dice 1-2 against 8: a failure without snake eyes. The seed removes both dice; the
    // author's variant (001-M6) removes nothing on a plain failure.
    let cast = |options: &[&str]| {
        let mut args = vec![
            "spelldice",
            "cast",
            "--sheet",
            r#"{"level": 1}"#,
            "--spell-dice",
            "2",
            "--dice",
            "1,2",
            "--format",
            "json",
        ];
        args.extend(options);
        json(&omen_ok(&args))["state_after"]["pool"].clone()
    };
    assert_eq!(cast(&[]), 1);
    assert_eq!(
        cast(&["--option", "removal-timing=success-or-catastrophe"]),
        3
    );
    // A numeric option is a number in the action.
    assert_eq!(cast(&["--option", "removal-faces=1"]), 2);
}

#[test]
fn a6_contest_nets_is_an_option_of_hprpg_contest() {
    // One die each against DV 6: 8 is a success (net 1), 1 a catastrophe (net −1).
    let margin = |options: &[&str]| {
        let mut args = vec![
            "hprpg",
            "contest",
            "--pool",
            "1",
            "--resistor-pool",
            "1",
            "--dv",
            "6",
            "--dice",
            "8,1",
            "--format",
            "json",
        ];
        args.extend(options);
        let answer = json(&omen_ok(&args));
        crate::table_cell(&answer, "The dice as rolled", "margin", "net")
    };
    // An analysis takes its rule options as flags of their own, as its inputs name them.
    assert_eq!(margin(&[]), "1");
    assert_eq!(margin(&["--contest-nets", "signed"]), "2");
}

#[test]
fn a2_familiarity_bonuses_is_a_flag_of_ritual_lore() {
    // Lore 0, deciphered (+1) and performed (+2) before, difficulty 4 (p = 1/2): stacked 3 dice,
    // 1 − (1/2)³ = 7/8; the larger only: 2 dice, 3/4.
    let lore = |options: &[&str], dice: &str| {
        let mut args = vec![
            "ritual",
            "lore",
            "--lore",
            "0",
            "--difficulty",
            "4",
            "--deciphered-before",
            "--performed-before",
            "--dice",
            dice,
            "--format",
            "json",
        ];
        args.extend(options);
        json(&omen_ok(&args))
    };
    let stacked = lore(&[], "3,4,1");
    assert_eq!(
        (stacked["pool"].clone(), stacked["probability"].clone()),
        (3.into(), "7/8".into())
    );
    let larger = lore(&["--familiarity-bonuses", "larger-only"], "3,4");
    assert_eq!(
        (larger["pool"].clone(), larger["probability"].clone()),
        (2.into(), "3/4".into())
    );
}

#[test]
fn a9_shortcut_threshold_is_a_flag_of_ritual_essence() {
    // Leader 4, one pair replaced by 7 against a threshold of 7: 7 meets it, so the 2 dice left may
    // be rolled (total 7 + 3 + 3); with 000-A9's other reading 7 does not exceed 7, so rolling fewer
    // than 5 dice is refused.
    let essence = |options: &[&str]| {
        let mut args = vec![
            "ritual",
            "essence",
            "--leader",
            "4",
            "--threshold",
            "7",
            "--pairs",
            "1",
            "--dice",
            "3,3",
            "--format",
            "json",
        ];
        args.extend(options);
        omen(&args)
    };
    let meets = essence(&[]);
    assert_eq!(meets.code, 0, "{}", meets.stderr);
    assert_eq!(json(&meets)["total"], 13);
    let exceeds = essence(&["--shortcut-threshold", "exceeds"]);
    assert_eq!(exceeds.code, 2);
    // Repeat counting is the ritualist's (omen ritual perform): this check takes the attempts.
    let refused = essence(&["--repeat-counting", "global"]);
    assert_eq!(refused.code, 2);
    assert!(
        refused
            .stderr
            .contains("unexpected argument '--repeat-counting'"),
        "{}",
        refused.stderr
    );
}

#[test]
fn an_option_is_checked_against_the_rule_sets_list() {
    let base = [
        "hprpg", "check", "--aspect", "FITNESS", "--dv", "8", "--odds", "--option",
    ];
    let refused = |option: &str| {
        let mut args = base.to_vec();
        args.push(option);
        let run = omen(&args);
        assert_eq!(run.code, 2, "{option}");
        // Compared as words: a long message wraps to the terminal.
        format!("{}\n", crate::words(&run.stderr))
    };
    assert_eq!(
        refused("nope=1"),
        "error: hprpg has no option `nope`; its options are: difficulty-above-twelve, \
         intractability-floor, contest-nets\n"
    );
    assert_eq!(
        refused("intractability-floor=maybe"),
        "error: option `intractability-floor` cannot be `maybe`; choose one of: floor, no-floor\n"
    );
    assert_eq!(
        refused("contest-nets=signed"),
        "error: option `contest-nets` does not apply to `check`; it applies to: contest\n"
    );
    assert!(refused("intractability-floor").contains("is not NAME=VALUE"));
    // Through `omen act` as well: one mechanism for every action.
    let act = omen(&[
        "act",
        "luck",
        r#"{"action": "roll"}"#,
        "--option",
        "missing-outcome=sometimes",
    ]);
    assert_eq!(act.code, 2);
    assert!(
        act.stderr.contains("resets-history, keeps-history"),
        "{}",
        act.stderr
    );
}

#[test]
fn omen_rules_lists_every_option_with_where_it_applies() {
    let rules = json(&omen_ok(&["rules", "--format", "json"]));
    let mut listed = Vec::new();
    for game in rules.as_array().unwrap() {
        for option in game["options"].as_array().unwrap() {
            assert!(
                !option["actions"].as_array().unwrap().is_empty(),
                "{option}"
            );
            listed.push(option["spec_item"].as_str().unwrap().to_string());
        }
    }
    for item in ["000-A2", "000-A8", "000-A9", "003-A4", "003-A5", "003-A6"] {
        assert!(listed.iter().any(|l| l == item), "{item} not listed");
    }
    let text = omen_ok(&["rules"]).stdout;
    assert!(
        text.contains("--option contest-nets=VALUE on contest"),
        "{text}"
    );
}

#[test]
fn m8_exhaust_offers_the_most_casts_strategy_and_takes_the_removal_options() {
    let most = json(&omen_ok(&[
        "spelldice",
        "exhaust",
        "--level",
        "2",
        "--strategy",
        "most-casts",
        "--format",
        "json",
    ]));
    let expected = |answer: &serde_json::Value| {
        let cell = crate::table_cell(
            answer,
            "A day of casting",
            "expected successful casts in the day",
            "value",
        );
        crate::fraction_of(&cell).to_string()
    };
    assert_eq!(expected(&most), "7159/2888");
    let optimal = json(&omen_ok(&[
        "spelldice",
        "exhaust",
        "--level",
        "2",
        "--strategy",
        "optimal",
        "--format",
        "json",
    ]));
    assert_eq!(expected(&optimal), "45623/19760");
    // E001-5: the author's variant, commit all, level 1: 13/194, by --variant or by the option.
    for how in [
        &["--variant"][..],
        &["--removal-timing", "success-or-catastrophe"][..],
    ] {
        let mut args = vec!["spelldice", "exhaust", "--level", "1", "--format", "json"];
        args.extend(how);
        let answer = json(&omen_ok(&args));
        let first = "P(no successful cast before the pool can no longer reach the target)";
        let cell = crate::table_cell(&answer, "A day of casting", first, "value");
        assert_eq!(crate::fraction_of(&cell), "13/194", "{how:?}");
    }
}

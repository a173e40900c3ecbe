//! The seed games' remaining analyses from the command line: 002-M6's stationary history, 001-D1's
//! table and 003-M8's automatic success. Expected values are derived here by hand.

use serde_json::json;

use crate::{json, omen, omen_ok};

#[test]
fn m6_luck_stationary_prints_the_history_distribution_and_run_lengths() {
    // Without karma every roll is bad 1/5, neutral 3/5, good 1/5 independently: the history is Bk
    // when the last k rolls were bad and the one before was not (k < 6): (1/5)^k · 4/5; B6 collects
    // every run of 6 or more: (1/5)^6. P(run ≥ k) = 2 · (1/5)^k.
    let plain = json(&omen_ok(&[
        "luck",
        "stationary",
        "--no-karma",
        "--format",
        "json",
    ]));
    assert_eq!(plain["histories"]["empty"], "3/5");
    assert_eq!(plain["histories"]["B1"], "4/25");
    assert_eq!(plain["histories"]["G3"], "4/625");
    assert_eq!(plain["histories"]["B6"], "1/15625");
    assert_eq!(plain["run_at_least"]["2"], "2/25");
    assert_eq!(plain["run_at_least"]["6"], "2/15625");
    // With karma, the spec's figure (002-M6).
    let karma = json(&omen_ok(&["luck", "stationary", "--format", "json"]));
    assert_eq!(karma["run_at_least"]["2"], "1894474/24267435");
    assert_eq!(karma["histories"]["empty"], "3/5");
    let text = omen_ok(&["luck", "stationary"]).stdout;
    assert!(text.contains("  G6 "), "{text}");
    assert!(text.contains("k = 2    1894474/24267435"), "{text}");
}

#[test]
fn d1_courtneys_table_has_a_command() {
    let table = omen_ok(&["spelldice", "courtney"]).stdout;
    assert_eq!(table.lines().count(), 5, "{table}");
    assert!(table.contains("|    1-5 | spell goes off at the end of the round, lose the spell |"));
    let seven = json(&omen_ok(&[
        "spelldice",
        "courtney",
        "--result",
        "7",
        "--format",
        "json",
    ]));
    assert_eq!(
        seven,
        json!({ "results": [6, 8], "timing": "end-of-round", "spell_lost": false,
                "text": "spell goes off at the end of the round" })
    );
    assert_eq!(
        omen_ok(&["spelldice", "courtney", "--result", "12"]).stdout,
        "12: spell goes off instantly\n"
    );
    assert_eq!(omen(&["spelldice", "courtney", "--result", "13"]).code, 2);
}

#[test]
fn m8_a_check_whose_pool_exceeds_its_dv_says_the_gm_may_skip_the_roll() {
    let check = |dots: &str, extra: &[&str]| {
        let sheet = crate::hprpg_sheet("FITNESS", 5, Some(("SPEED", dots.parse().unwrap())));
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
            "8",
        ];
        args.extend(extra);
        omen_ok(&args)
    };
    // 5 + 4 = 9 dice > DV 8.
    let nine = check("4", &["--dice", "1,2,3,4,5,6,7,8,9"]);
    assert!(
        nine.stdout
            .contains("the GM may grant the success without a roll")
    );
    let report = json(&check(
        "4",
        &["--dice", "1,2,3,4,5,6,7,8,9", "--format", "json"],
    ));
    assert!(
        report["result"]["automatic_success"]
            .as_str()
            .unwrap()
            .contains("pool 9 > DV 8")
    );
    let odds = json(&check("4", &["--odds", "--format", "json"]));
    assert!(odds["odds"]["automatic_success"].is_string());
    // 5 + 3 = 8 dice: not more than the DV.
    let eight = json(&check("3", &["--odds", "--format", "json"]));
    assert!(eight["odds"]["automatic_success"].is_null());
}

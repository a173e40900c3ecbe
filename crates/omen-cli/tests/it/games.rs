//! `omen spelldice exhaust` and `omen luck ranges|stationary`: exact answers as JSON fractions.

use crate::omen;

fn json(args: &[&str]) -> serde_json::Value {
    let r = omen(args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

#[test]
fn exhaustion_matches_the_errata_for_every_strategy_and_rule() {
    // Seed errata E001-5: level 1, target 8.
    for (strategy, variant, probability) in [
        ("all", false, "185/1188"),
        ("minimum", false, "128/363"),
        ("all", true, "13/194"),
        ("minimum", true, "1/16"),
    ] {
        let mut args = vec![
            "spelldice",
            "exhaust",
            "--level",
            "1",
            "--spell-level",
            "1",
            "--strategy",
            strategy,
            "--format",
            "json",
        ];
        if variant {
            args.push("--variant");
        }
        let v = json(&args);
        let first = "P(no successful cast before the pool can no longer reach the target)";
        let cell = crate::table_cell(&v, "A day of casting", first, "value");
        assert_eq!(
            crate::fraction_of(&cell),
            probability,
            "{strategy} variant={variant}"
        );
        let expected = "expected successful casts in the day";
        assert!(!crate::table_cell(&v, "A day of casting", expected, "value").is_empty());
    }
}

#[test]
fn luck_ranges_follow_the_seeds_calculator() {
    // Modifier −2: bad 1–12, good 43–50 (seed 002); +45 leaves only good luck.
    let v = json(&["luck", "ranges", "--modifier", "-2", "--format", "json"]);
    assert_eq!(v["bad"]["range"], "1-12");
    assert_eq!(v["bad"]["probability"], "6/25");
    assert_eq!(v["good"]["range"], "43-50");
    let v = json(&["luck", "ranges", "--modifier", "45", "--format", "json"]);
    assert_eq!(v["good"]["probability"], "1");
    assert_eq!(v["bad"]["range"], "none");
}

#[test]
fn the_karmic_long_run_at_base_zero_is_one_fifth_three_fifths_one_fifth() {
    let v = json(&["luck", "stationary", "--modifier", "0", "--format", "json"]);
    assert_eq!(
        (&v["bad"], &v["neutral"], &v["good"]),
        (&"1/5".into(), &"3/5".into(), &"1/5".into())
    );
    // Without karma, base +5: bad 5 faces of 50, good 15.
    let v = json(&[
        "luck",
        "stationary",
        "--modifier",
        "5",
        "--no-karma",
        "--format",
        "json",
    ]);
    assert_eq!(v["bad"], "1/10");
    assert_eq!(v["good"], "3/10");
}

#[test]
fn a_bad_strategy_is_exit_2() {
    let r = omen(&[
        "spelldice",
        "exhaust",
        "--level",
        "1",
        "--strategy",
        "bogus",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("strategy"), "{}", r.stderr);
}

#[test]
fn a_t13_test_gives_exact_levels_crisis_odds_and_a_replay() {
    // Two proficiency d8: P(crisis) = 1 − (6/8)² = 7/16 (004-A4); four: 175/256. A test without a
    // stored character is the action on a one-off character: its sheet holds the proficiency.
    let test = |sheet: &str, extra: &[&str]| {
        let mut args = vec![
            "t13",
            "test",
            "--sheet",
            sheet,
            "--boon",
            "6",
            "--descendant",
            "8",
            "--proficiency",
            "2",
            "--difficulty",
            "10",
            "--format",
            "json",
        ];
        args.extend(extra);
        json(&args)
    };
    let odds = test(r#"{"proficiency":2}"#, &["--odds"]);
    assert_eq!(odds["odds"]["crisis"]["fraction"], "7/16");
    let v = test(r#"{"proficiency":2}"#, &["--dice", "6,8,8,1"]);
    assert_eq!(v["result"]["total"], 23);
    // 23 against 10: above 2D, at most 3D — Complete Success (004-M4); the 1 and 8 are a crisis.
    assert_eq!(v["result"]["level"], "complete-success");
    assert_eq!(v["result"]["crisis"], true);
    let v = json(&[
        "t13",
        "test",
        "--sheet",
        r#"{"proficiency":4,"sway":4}"#,
        "--proficiency",
        "4",
        "--buy",
        "skill:6:sway",
        "--difficulty",
        "12",
        "--odds",
        "--format",
        "json",
    ]);
    assert_eq!(v["odds"]["crisis"]["fraction"], "175/256");
    assert_eq!(v["odds"]["cost"]["sway"], 4);
    let r = omen(&["t13", "test", "--proficiency", "5", "--difficulty", "3"]);
    assert_eq!(r.code, 2);
}

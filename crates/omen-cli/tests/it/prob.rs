//! `omen prob`: exact fractions checked against counting, and the renderings as snapshots.

use num_bigint::BigUint;

use crate::{json, omen_ok, reduced};

/// Weights of each total of `count` dice with `sides` sides, by enumerating every roll.
fn counted(count: u32, sides: u64) -> (Vec<(u64, u64)>, u64) {
    let mut weights = std::collections::BTreeMap::new();
    let rolls = sides.pow(count);
    for mut roll in 0..rolls {
        let mut total = 0;
        for _ in 0..count {
            total += roll % sides + 1;
            roll /= sides;
        }
        *weights.entry(total).or_insert(0) += 1;
    }
    (weights.into_iter().collect(), rolls)
}

#[test]
fn two_d6_json_has_exact_reduced_fractions() {
    let v = json(&omen_ok(&["prob", "2d6", "--format", "json"]));
    let (weights, total) = counted(2, 6);
    let outcomes = v["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), 11);
    let mut below = 0;
    for ((outcome, weight), row) in weights.iter().zip(outcomes) {
        assert_eq!(row["outcome"], *outcome);
        assert_eq!(row["probability"], reduced(*weight, total));
        assert_eq!(row["at_least"], reduced(total - below, total));
        below += weight;
        assert_eq!(row["at_most"], reduced(below, total));
    }
    assert_eq!(v["expression"], "2d6");
    assert_eq!(v["mean"], "7");
    assert_eq!(v["variance"], "35/6");
    assert_eq!(v["median"], 7);
    assert_eq!(v["mode"], serde_json::json!([7]));
    assert_eq!(v["depth_limit_probability"], "0");
    let sd = v["standard_deviation"].as_f64().unwrap();
    assert!((sd - (35.0f64 / 6.0).sqrt()).abs() < 1e-12);
}

#[test]
fn true_false_json_lists_false_then_true() {
    let v = json(&omen_ok(&["prob", "(3d6)>=10", "--format", "json"]));
    let (weights, total) = counted(3, 6);
    let hits: u64 = weights
        .iter()
        .filter(|(t, _)| *t >= 10)
        .map(|(_, w)| w)
        .sum();
    let outcomes = v["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), 2);
    assert_eq!(outcomes[0]["outcome"], false);
    assert_eq!(outcomes[0]["probability"], reduced(total - hits, total));
    assert_eq!(outcomes[1]["outcome"], true);
    assert_eq!(outcomes[1]["probability"], reduced(hits, total));
    // Counting true as 1, the mean is P(true).
    assert_eq!(v["mean"], reduced(hits, total));
}

#[test]
fn four_d6_keep_highest_three_table() {
    insta::assert_snapshot!(omen_ok(&["prob", "4d6kh3"]).stdout);
}

#[test]
fn two_d6_markdown() {
    insta::assert_snapshot!(omen_ok(&["prob", "2d6", "--format", "markdown"]).stdout);
}

#[test]
fn two_d6_csv() {
    insta::assert_snapshot!(omen_ok(&["prob", "2d6", "--format", "csv"]).stdout);
}

#[test]
fn depth_limit_is_reported_in_the_table() {
    let run = omen_ok(&["prob", "1d6!", "--explode-depth", "2"]);
    // A die stops exploding after two extra dice: all three rolls were sixes.
    assert!(
        run.stdout
            .contains("depth limit reached  1/216 (0.46%): dice stop exploding after 2 extra"),
        "{}",
        run.stdout
    );
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn depth_limit_goes_to_stderr_for_csv() {
    let run = omen_ok(&["prob", "1d6!", "--explode-depth", "2", "--format", "csv"]);
    assert!(run.stderr.contains("1/216"), "{}", run.stderr);
    let json = json(&omen_ok(&[
        "prob",
        "1d6!",
        "--explode-depth",
        "2",
        "--format",
        "json",
    ]));
    assert_eq!(json["depth_limit_probability"], "1/216");
}

#[test]
fn thousand_d6_prints_every_outcome_exactly() {
    let v = json(&omen_ok(&["prob", "1000d6", "--format", "json"]));
    let outcomes = v["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), 5001);
    let all = BigUint::from(6u32).pow(1000);
    assert_eq!(outcomes[0]["outcome"], 1000);
    assert_eq!(outcomes[0]["probability"], format!("1/{all}"));
    assert_eq!(outcomes[5000]["at_most"], "1");
    assert_eq!(v["mean"], "3500");
    assert_eq!(v["variance"], "8750/3");
}

#[test]
fn parameters_reach_the_script() {
    let v = json(&omen_ok(&[
        "prob",
        "param n = 2; (n)d6",
        "--param",
        "n=3",
        "--format",
        "json",
    ]));
    assert_eq!(v["outcomes"].as_array().unwrap().len(), 16);
    assert_eq!(v["mean"], "21/2");
}

/// Roll20's critical marks: `omen prob` reports P(critical success) and P(critical failure) exactly,
/// and `omen roll` marks the dice (`^`, `_`) without changing the total.
#[test]
fn critical_marks_have_exact_probabilities_and_show_in_the_roll() {
    let run = crate::omen(&[
        "prob",
        "--dialect",
        "roll20",
        "1d20cs>18cf<2",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = crate::json(&run);
    assert_eq!(report["critical_success_probability"], "3/20");
    assert_eq!(report["critical_failure_probability"], "1/10");
    let text = crate::omen(&["prob", "--dialect", "roll20", "1d20cs>18cf<2"]);
    assert!(
        text.stdout.contains("P(critical success)"),
        "{}",
        text.stdout
    );
    let rolled = crate::omen(&[
        "roll",
        "--dialect",
        "roll20",
        "3d20cs>18cf<2sd",
        "--dice",
        "2,19,7",
    ]);
    assert_eq!(rolled.code, 0, "{}", rolled.stderr);
    assert!(rolled.stdout.contains("[19^, 7, 2_]"), "{}", rolled.stdout);
    assert!(rolled.stdout.contains("total: 28"), "{}", rolled.stdout);
}

/// Roll20's `/` keeps the fraction: `omen prob` lists exact fractions with exact statistics, and
/// `omen roll` shows the fraction it rolled.
#[test]
fn a_division_that_keeps_the_fraction_has_exact_fractional_outcomes() {
    let run = crate::omen(&["prob", "--dialect", "roll20", "1d6/2", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = crate::json(&run);
    assert_eq!(report["reading"], "div(1d6, 2)");
    let outcomes: Vec<String> = report["outcomes"]
        .as_array()
        .expect("outcomes")
        .iter()
        .map(|row| row["outcome"].to_string())
        .collect();
    assert_eq!(outcomes, ["\"1/2\"", "1", "\"3/2\"", "2", "\"5/2\"", "3"]);
    assert_eq!(report["mean"], "7/4");
    assert_eq!(report["variance"], "35/48");
    assert_eq!(report["median"], "3/2");
    let text = crate::omen(&["prob", "--dialect", "roll20", "1d6/2"]);
    assert!(text.stdout.contains("5/2"), "{}", text.stdout);
    assert!(text.stdout.contains("7/4"), "{}", text.stdout);
    let rolled = crate::omen(&["roll", "--dialect", "roll20", "1d6/2", "--dice", "5"]);
    assert_eq!(rolled.code, 0, "{}", rolled.stderr);
    assert!(rolled.stdout.contains("5/2"), "{}", rolled.stdout);
}

/// Critical marks inside a branch have no P(critical): the output says so and why, in text and JSON.
#[test]
fn a_critical_mark_inside_a_branch_says_why_it_has_no_probability() {
    let source = "if 1d2 = 1 then 1d20cs else 0";
    let text = crate::omen(&["prob", source]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        crate::words(&text.stdout).contains("P(critical) not computed: the marked dice are inside"),
        "{}",
        text.stdout
    );
    let report = crate::json(&crate::omen(&["prob", source, "--format", "json"]));
    assert!(
        report["critical_probability_not_computed"]
            .as_str()
            .is_some_and(|why| why.contains("branch")),
        "{report}"
    );
    assert!(report["critical_success_probability"].is_null());
}

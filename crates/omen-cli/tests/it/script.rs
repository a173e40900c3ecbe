//! Scripts read with `-f`/`--file` (or `-f -` for stdin): the seed games' examples, diagnostics that
//! name the file, and files that cannot be read.

use crate::{example, json, omen, omen_ok, omen_with, scratch_dir};

/// The examples folder holds one script per mechanic of the seed games.
const ALL_EXAMPLES: [&str; 11] = [
    "000_essence_check.omen",
    "000_lore_check.omen",
    "001_cast.omen",
    "001_exhaustion.omen",
    "002_karma_20th_roll.omen",
    "002_karma_long_run.omen",
    "002_luck_roll.omen",
    "003_catch_casting.omen",
    "003_check.omen",
    "003_contest.omen",
    "004_dice_test.omen",
];

/// The probability of `outcome` in `omen prob --format json` output.
fn probability_of<'v>(v: &'v serde_json::Value, outcome: &serde_json::Value) -> &'v str {
    v["outcomes"]
        .as_array()
        .expect("outcomes")
        .iter()
        .find(|row| row["outcome"] == *outcome)
        .unwrap_or_else(|| panic!("no outcome {outcome} in {v}"))["probability"]
        .as_str()
        .expect("a fraction string")
}

#[test]
fn exhaustion_matches_the_seed_errata() {
    let file = example("001_exhaustion.omen");
    let v = json(&omen_ok(&["prob", "-f", &file, "--format", "json"]));
    assert_eq!(probability_of(&v, &"exhausted".into()), "185/1188");
    assert_eq!(probability_of(&v, &"cast".into()), "1003/1188");
    assert_eq!(v["expected_steps"], "67/66");
    assert!(v["mean"].is_null(), "labels have no mean: {v}");
}

#[test]
fn expected_steps_are_shown_under_the_table_and_in_markdown() {
    let file = example("001_exhaustion.omen");
    let table = omen_ok(&["prob", "-f", &file]).stdout;
    let line = table.lines().find(|l| l.starts_with("expected steps"));
    assert_eq!(
        line.map(|l| l.split_whitespace().collect::<Vec<_>>()),
        Some(vec!["expected", "steps", "67/66", "≈", "1.0152"]),
        "{table}"
    );
    let markdown = omen_ok(&["prob", "--file", &file, "--format", "markdown"]).stdout;
    assert!(
        markdown.contains("\n- expected steps: 67/66 ≈ 1.0152\n"),
        "{markdown}"
    );
    // Not a distribution, so not a number in the JSON of one that has none.
    let v = json(&omen_ok(&["prob", "2d6", "--format", "json"]));
    assert!(v.get("expected_steps").is_none(), "{v}");
}

#[test]
fn lore_with_an_empty_pool_keeps_the_lower_of_two_dice() {
    let file = example("000_lore_check.omen");
    let v = json(&omen_ok(&[
        "prob",
        "-f",
        &file,
        "--param",
        "lore=0",
        "--param",
        "difficulty=6",
        "--format",
        "json",
    ]));
    // Both dice must show 6.
    assert_eq!(probability_of(&v, &true.into()), "1/36");
    assert_eq!(probability_of(&v, &false.into()), "35/36");
    assert_eq!(v["mean"], "1/36");
}

#[test]
fn a_seeded_script_roll_replays() {
    let file = example("003_check.omen");
    let first = omen_ok(&["roll", "-f", &file, "--seed", "3"]);
    let second = omen_ok(&["roll", "-f", &file, "--seed", "3"]);
    assert_eq!(first.stdout, second.stdout);
    assert!(first.stdout.starts_with("seed: 3\n"), "{}", first.stdout);
    assert!(first.stdout.contains("\ntotal: "), "{}", first.stdout);
}

#[test]
fn a_stationary_distribution_cannot_be_rolled() {
    let file = example("002_karma_long_run.omen");
    let run = omen(&["roll", "-f", &file]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(
        run.stderr.contains("002_karma_long_run.omen:18:1"),
        "{}",
        run.stderr
    );
    let run = omen(&["roll", "-f", &file, "--format", "json"]);
    assert_eq!(run.code, 2);
    let v: serde_json::Value = serde_json::from_str(&run.stderr).expect("stderr is JSON");
    assert_eq!(v["errors"][0]["kind"], "cannot-roll");
}

#[test]
fn every_example_runs_in_every_format() {
    for name in ALL_EXAMPLES {
        let file = example(name);
        for format in ["table", "markdown", "csv", "json"] {
            let run = omen_ok(&["prob", "-f", &file, "--format", format]);
            assert!(run.stderr.is_empty(), "{name} {format}: {}", run.stderr);
            if format == "json" {
                let v = json(&run);
                assert!(
                    v["outcomes"].as_array().expect("outcomes").len() >= 2,
                    "{v}"
                );
            } else {
                assert!(run.stdout.lines().count() >= 3, "{name} {format}");
            }
        }
        if name != "002_karma_long_run.omen" {
            omen_ok(&["roll", "-f", &file, "--seed", "1"]);
        }
    }
}

#[test]
fn labels_table() {
    let run = omen_ok(&["prob", "-f", &example("002_luck_roll.omen")]);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn labels_are_json_strings_and_csv_fields() {
    let file = example("002_luck_roll.omen");
    let v = json(&omen_ok(&["prob", "-f", &file, "--format", "json"]));
    let outcomes: Vec<&serde_json::Value> = v["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| &row["outcome"])
        .collect();
    // In the order the script writes them; labels have no order for P(≥) and P(≤) to follow.
    assert_eq!(outcomes, ["bad", "good", "neutral"]);
    assert_eq!(v["outcomes"][1]["probability"], "1/5");
    assert!(v["outcomes"][1].get("at_least").is_none(), "{v}");
    assert_eq!(v["mode"], serde_json::json!(["neutral"]));
    let csv = omen_ok(&["prob", "-f", &file, "--format", "csv"]).stdout;
    assert!(csv.contains("\nneutral,3/5,60\n"), "{csv}");
}

#[test]
fn tuples_are_json_arrays() {
    let file = example("001_cast.omen");
    let v = json(&omen_ok(&["prob", "-f", &file, "--format", "json"]));
    let outcomes = v["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), 10);
    assert_eq!(
        outcomes[0]["outcome"],
        serde_json::json!([false, false, false, 1])
    );
    assert_eq!(
        probability_of(&v, &serde_json::json!([true, false, false, 1])),
        "29/72"
    );
    assert_eq!(outcomes[9]["at_most"], "1");
    assert_eq!(v["mode"], serde_json::json!([[true, false, false, 1]]));
    // A tuple holds commas, so CSV quotes it.
    let csv = omen_ok(&["prob", "-f", &file, "--format", "csv"]).stdout;
    assert!(
        csv.contains("\n\"(true, false, false, 1)\",29/72,"),
        "{csv}"
    );
}

#[test]
fn a_script_error_names_the_file_and_its_line() {
    let dir = scratch_dir("a_script_error_names_the_file_and_its_line");
    let script = "param n = 2;\nlet x = (n)d6;\nx + y\n";
    std::fs::write(dir.join("check.omen"), script).unwrap();
    let run = omen_with(&["prob", "-f", "check.omen"], Some(&dir), None);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr.contains(" --> check.omen:3:5\n"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("3 | x + y\n  |     ^\n"),
        "{}",
        run.stderr
    );
    insta::assert_snapshot!(run.stderr);
    // JSON keeps its byte spans, into the file's text.
    let run = omen_with(
        &["roll", "-f", "check.omen", "--format", "json"],
        Some(&dir),
        None,
    );
    assert_eq!(run.code, 2);
    let v: serde_json::Value = serde_json::from_str(&run.stderr).expect("stderr is JSON");
    assert_eq!(v["errors"][0]["span"]["start"], script.find('y').unwrap());
}

#[test]
fn a_missing_file_is_bad_input() {
    for command in ["prob", "roll"] {
        let run = omen(&[command, "-f", "no/such/script.omen"]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stdout.is_empty());
        assert!(
            run.stderr
                .starts_with("error: cannot read `no/such/script.omen`: no such file\n"),
            "{}",
            run.stderr
        );
    }
    let run = omen(&["prob", "-f", "no/such/script.omen", "--format", "json"]);
    assert_eq!(run.code, 2);
    let v: serde_json::Value = serde_json::from_str(&run.stderr).expect("stderr is JSON");
    assert_eq!(v["errors"][0]["kind"], "unreadable-file");
}

#[test]
fn a_directory_or_a_file_that_is_not_text_is_bad_input() {
    let dir = scratch_dir("a_directory_or_a_file_that_is_not_text_is_bad_input");
    let run = omen_with(&["prob", "-f", "."], Some(&dir), None);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("it is a directory"), "{}", run.stderr);
    std::fs::write(dir.join("latin1.omen"), b"2d6 # caf\xe9\n").unwrap();
    let run = omen_with(&["prob", "-f", "latin1.omen"], Some(&dir), None);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("`latin1.omen` is not UTF-8 text: invalid byte at offset 9"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_endless_input_is_refused_at_the_length_limit() {
    let text = "1 + ".repeat(30_000) + "1";
    let run = omen_with(&["prob", "-f", "-"], None, Some(&text));
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("`<stdin>` is too long: more than 100000 bytes"),
        "{}",
        run.stderr
    );
}

#[test]
fn expression_and_file_together_or_neither_is_a_usage_error() {
    for args in [
        &["prob", "2d6", "-f", "check.omen"][..],
        &["roll", "--file", "check.omen", "2d6"],
        &["prob"],
        &["roll", "--seed", "3"],
    ] {
        let run = omen(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty());
        assert!(
            run.stderr.contains("<EXPR|--file <FILE>>"),
            "{args:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_script_from_stdin() {
    let script = "param n = 2;\n(n)d6\n";
    let run = omen_with(
        &["prob", "-f", "-", "--param", "n=3", "--format", "json"],
        None,
        Some(script),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = json(&run);
    assert_eq!(v["mean"], "21/2");
    let run = omen_with(&["roll", "-f", "-", "--dice", "1,2"], None, Some(script));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.ends_with("total: 3\n"), "{}", run.stdout);
    let run = omen_with(&["prob", "-f", "-"], None, Some("2d\n"));
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains(" --> <stdin>:1:3\n"), "{}", run.stderr);
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let run = omen_with(
        &["prob", "-f", "-", "--format", "csv"],
        None,
        Some("\u{feff}1d2\n"),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("\n2,1/2,"), "{}", run.stdout);
}

#[test]
fn the_chain_state_limit_reaches_the_engine() {
    let file = example("001_exhaustion.omen");
    let run = omen(&["prob", "-f", &file, "--max-chain-states", "2"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--max-chain-states"), "{}", run.stderr);
    assert!(
        run.stderr.contains("001_exhaustion.omen:22:1"),
        "{}",
        run.stderr
    );
    omen_ok(&["prob", "-f", &file, "--max-chain-states", "10"]);
}

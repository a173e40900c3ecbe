//! `omen roll`: seeds that replay, given dice, the transcript and its JSON.

use crate::{json, omen, omen_ok};

/// The sum of the kept dice in a dice node of the JSON tree.
fn kept_sum(node: &serde_json::Value) -> i64 {
    node["dice"]
        .as_array()
        .expect("a dice node")
        .iter()
        .filter(|d| {
            let marks = d["marks"].as_array().unwrap();
            !marks.iter().any(|m| m == "dropped" || m == "rerolled")
        })
        .map(|d| d["value"].as_i64().unwrap())
        .sum()
}

#[test]
fn a_seed_replays_the_same_roll() {
    let first = omen_ok(&["roll", "4d6kh3", "--seed", "42"]);
    let second = omen_ok(&["roll", "4d6kh3", "--seed", "42"]);
    assert_eq!(first.stdout, second.stdout);
    assert!(first.stdout.starts_with("seed: 42\n"), "{}", first.stdout);
}

#[test]
fn json_total_is_the_sum_of_the_kept_dice() {
    let v = json(&omen_ok(&[
        "roll", "4d6kh3", "--seed", "42", "--format", "json",
    ]));
    assert_eq!(v["expression"], "4d6kh3");
    assert_eq!(v["seed"], 42);
    assert_eq!(v["tree"]["node"], "dice");
    assert_eq!(v["tree"]["dice"].as_array().unwrap().len(), 4);
    assert_eq!(v["result"].as_i64().unwrap(), kept_sum(&v["tree"]));
}

#[test]
fn without_a_seed_one_is_shown_and_replays() {
    let run = omen_ok(&["roll", "10d20"]);
    let seed = run
        .stdout
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("seed: "))
        .expect("the first line shows the seed");
    let replay = omen_ok(&["roll", "10d20", "--seed", seed]);
    assert_eq!(run.stdout, replay.stdout);
    let v = json(&omen_ok(&["roll", "1d6", "--format", "json"]));
    assert!(v["seed"].is_u64(), "{v}");
}

#[test]
fn given_dice_drop_the_lowest() {
    let run = omen_ok(&["roll", "4d6kh3", "--dice", "6,1,5,6"]);
    assert_eq!(
        run.stdout,
        "reading: 4d6kh3\n4d6kh3 → [6, ~1~, 5, 6] = 17\ntotal: 17\n"
    );
    let v = json(&omen_ok(&[
        "roll", "4d6kh3", "--dice", "6,1,5,6", "--format", "json",
    ]));
    assert_eq!(v["result"], 17);
    assert!(v.get("seed").is_none());
    assert_eq!(v["tree"]["dice"][1]["value"], 1);
    assert_eq!(
        v["tree"]["dice"][1]["marks"],
        serde_json::json!(["dropped"])
    );
}

#[test]
fn transcript_of_a_mixed_expression() {
    let run = omen_ok(&[
        "roll",
        "{2d20, 1d20+5}kh1 + 3d6![fire] + 2d6ro1 - 10d12>=8f1",
        "--dice",
        "12,11,4,6,6,2,3,4,1,4,3,1,4,5,8,8,9,11,12,2,3",
    ]);
    assert_eq!(run.stderr, "", "every given die is used");
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn transcript_of_a_script() {
    let run = omen_ok(&[
        "roll",
        "let x = 2d6; fn bonus(n) = (n)d4; if x >= 7 then x + bonus(2) else -x",
        "--dice",
        "3,5,4,1",
    ]);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn transcript_of_a_comparison() {
    let run = omen_ok(&["roll", "(3d6)>=10", "--dice", "4,2,6"]);
    assert_eq!(
        run.stdout,
        "reading: (3d6) >= 10\n3d6 → [4, 2, 6] = 12\n12 >= 10 → true\nresult: true\n"
    );
}

#[test]
fn given_dice_may_be_negative() {
    let run = omen_ok(&["roll", "4dF", "--dice", "-1,0,1,-1"]);
    assert!(run.stdout.ends_with("total: -1\n"), "{}", run.stdout);
}

#[test]
fn unused_dice_are_a_warning() {
    let run = omen_ok(&["roll", "1d6", "--dice", "3,4"]);
    assert_eq!(run.stdout, "reading: 1d6\n1d6 → [3] = 3\ntotal: 3\n");
    assert!(
        run.stderr
            .contains("warning: 1 given dice value(s) left unused: 4")
    );
}

#[test]
fn too_few_dice_is_bad_input() {
    let run = omen(&["roll", "3d6", "--dice", "1,2"]);
    assert_eq!(run.code, 2);
    assert!(run.stdout.is_empty());
    assert!(run.stderr.contains("ran out"), "{}", run.stderr);
}

#[test]
fn the_reading_says_how_the_input_was_read() {
    // Whitespace ends a dice term: two totals compared, never a count of dice above 2.
    let run = omen_ok(&["roll", "3d6 > 2d10", "--dice", "1,2,3,4,5"]);
    assert!(
        run.stdout.starts_with("reading: (3d6) > (2d10)\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.ends_with("result: false\n"), "{}", run.stdout);
    let v = json(&omen_ok(&[
        "roll",
        "3d6 > 2d10",
        "--seed",
        "1",
        "--format",
        "json",
    ]));
    assert_eq!(v["reading"], "(3d6) > (2d10)");
}

#[test]
fn a_dialect_reads_with_its_own_meanings() {
    // Roll20's `>3` includes 3: the dice 3, 4 and 1 give two successes.
    let run = omen_ok(&["roll", "3d6>3", "--dialect", "roll20", "--dice", "3,4,1"]);
    assert!(
        run.stdout.starts_with("reading: 3d6>=3\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.ends_with("total: 2\n"), "{}", run.stdout);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    // In Omen's notation `>3` is strict, with a warning naming Roll20's reading.
    let run = omen_ok(&["roll", "3d6>3", "--dice", "3,4,1"]);
    assert!(run.stdout.ends_with("total: 1\n"), "{}", run.stdout);
    assert!(run.stderr.contains("in Roll20"), "{}", run.stderr);
    // Foundry's bare `r` rerolls once: the 1 is rerolled to a 1 and kept.
    let run = omen_ok(&["roll", "1d20r1", "--dialect", "foundry", "--dice", "1,1"]);
    assert!(
        run.stdout.starts_with("reading: 1d20ro=1\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.ends_with("total: 1\n"), "{}", run.stdout);
}

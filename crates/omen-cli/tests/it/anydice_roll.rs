//! `omen roll --dialect anydice` with dice given (`--dice`) and with `--approximate`.
//!
//! `--dice` once read its values as faces of the 65,536-sided die the seeded path draws a
//! distribution's weight with (`output 3d6 --dice 3,5,2` rolled 4). The given dice are now the
//! dice of each output's Omen spelling, in order, each checked against its die's faces; an output
//! with no spelling is refused with why.

use crate::{omen, omen_ok, words};

fn roll(args: &[&str]) -> crate::Run {
    let mut all = vec!["roll", "--dialect", "anydice"];
    all.extend(args);
    omen(&all)
}

fn roll_ok(args: &[&str]) -> String {
    let mut all = vec!["roll", "--dialect", "anydice"];
    all.extend(args);
    omen_ok(&all).stdout
}

#[test]
fn given_dice_were_read_as_faces_of_a_65536_sided_die() {
    // By hand: 3 + 5 + 2 = 10 (the bug rolled 4, the weight drawn from face 3 of d65536).
    assert_eq!(
        roll_ok(&["--dice", "3,5,2", "output 3d6"]),
        "output 1: 10\n"
    );
    // The outputs take the dice in program order: 3d6 takes 3, 5, 2; the highest 2 of 3d6 takes
    // 6, 1, 4 and keeps 6 + 4; the highest of 2d20 takes 17, 5.
    let program =
        "output 3d6\noutput [highest 2 of 3d6] named \"best\"\noutput [highest 1 of 2d20]";
    assert_eq!(
        roll_ok(&["--dice", "3,5,2,6,1,4,17,5", program]),
        "output 1: 10\nbest: 10\noutput 3: 17\n"
    );
    // Every use of a die-valued variable is a new roll in AnyDice: X + X takes two dice, 2 and 5.
    assert_eq!(
        roll_ok(&["--dice", "2,5", "X: d6\noutput X + X named \"twice\""]),
        "twice: 7\n"
    );
    // Listed faces: 2d{-1,0,1} takes -1 twice (given with `=`, as a value with a minus must be).
    assert_eq!(
        roll_ok(&["--dice=-1,-1", "output 2d{-1,0,1} * 10"]),
        "output 1: -20\n"
    );
}

#[test]
fn given_dice_that_do_not_fit_are_refused_at_the_output() {
    let not_a_face = roll(&["--dice", "3,9,2", "output 1d4\noutput 2d6 named \"two\""]);
    assert_eq!(not_a_face.code, 2);
    let message = words(&not_a_face.stderr);
    assert!(
        message.contains(
            "`two` (rolled as `2d6`): the scripted die 2 shows 9, which is not a face of d6"
        ),
        "{message}"
    );
    let too_few = roll(&["--dice", "3,5", "output 3d6"]);
    assert_eq!(too_few.code, 2);
    assert!(
        too_few.stderr.contains("ran out after 2 dice"),
        "{}",
        too_few.stderr
    );
    // Too many: the roll stands, and the values left over are named.
    let too_many = roll(&["--dice", "3,5,2,1", "output 3d6"]);
    assert_eq!(
        (too_many.code, too_many.stdout.as_str()),
        (0, "output 1: 10\n")
    );
    assert!(
        too_many
            .stderr
            .contains("1 given dice value(s) left unused: 1"),
        "{}",
        too_many.stderr
    );
}

#[test]
fn given_dice_are_refused_for_an_output_without_an_omen_spelling() {
    for (program, why) in [
        (
            "function: twice X:n { result: 2 * X }\noutput [twice d6]",
            "only [highest N of D] and [lowest N of D] translate",
        ),
        ("output 3d6 >= 10", "comparisons"),
        ("loop N over {1..2} { output d6 }", "loops and branches"),
    ] {
        let run = roll(&["--dice", "4", program]);
        assert_eq!(run.code, 2, "{program}: {}", run.stdout);
        let message = words(&run.stderr);
        assert!(message.contains("has no Omen spelling"), "{message}");
        assert!(message.contains(why), "{program}: {message}");
        assert!(message.contains("drop --dice"), "{message}");
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
    // The empty die takes no dice: it has no value to roll, and no spelling is needed.
    assert_eq!(
        roll_ok(&["--dice", "6", "output d{}\noutput d6"]),
        "output 1: (empty)\noutput 2: 6\n"
    );
}

#[test]
fn given_dice_as_json_have_no_seed() {
    let program = "output 3d6 named \"three\"\noutput d{}\noutput [highest 1 of 2d20]";
    let out = roll_ok(&["--format", "json", "--dice", "2,3,4,17,5", program]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let expected = serde_json::json!({
        "expression": program,
        "outputs": [
            {"label": "three", "result": 9, "reading": "three = 3d6"},
            {"label": "output 2", "result": null, "reading": "output 2"},
            {"label": "output 3", "result": 17, "reading": "output 3 = 2d20kh1"},
        ],
    });
    assert_eq!(json, expected, "{out}");
}

/// `D` after 40 rounds of keeping the higher of two copies of itself: the highest of 2^40 d6.
/// Exactly, its total is 6^(2^40): a number whose digits double each round.
const DOUBLING: &str = "D: d6\nloop I over {1..40} { D: [highest of D and D] }\noutput D";

#[test]
fn roll_draws_from_the_approximate_distribution_and_says_so() {
    // P(D < 6) = (5/6)^(2^40), far below 10^-20: to 20 digits D is 6, so every seed rolls 6.
    for seed in ["1", "2"] {
        let run = omen_ok(&[
            "roll",
            "--dialect",
            "anydice",
            "--approximate",
            "20",
            "--seed",
            seed,
            DOUBLING,
        ]);
        assert_eq!(run.stdout, format!("seed: {seed}\noutput 1: 6\n"));
        let warning = words(&run.stderr);
        assert!(
            warning.contains("the answer is approximate")
                && warning.contains("20 significant digits"),
            "{warning}"
        );
    }
    let json = roll_ok(&[
        "--approximate",
        "20",
        "--seed",
        "1",
        "--format",
        "json",
        DOUBLING,
    ]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["outputs"][0]["result"], 6);
    assert_eq!(json["outputs"][0]["approximate"], true, "{json}");
    // A program that is not rounded is not marked.
    let small = roll_ok(&[
        "--approximate",
        "20",
        "--seed",
        "1",
        "--format",
        "json",
        "output d6",
    ]);
    let small: serde_json::Value = serde_json::from_str(&small).unwrap();
    assert!(small["outputs"][0].get("approximate").is_none(), "{small}");
}

#[test]
fn roll_without_approximate_refuses_runaway_weights_and_names_the_mode() {
    let run = omen(&[
        "roll",
        "--dialect",
        "anydice",
        "--seed",
        "1",
        "--work-budget",
        "20000000",
        DOUBLING,
    ]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let message = words(&run.stderr);
    assert!(
        message.contains("the exact weights have grown to about"),
        "{message}"
    );
    assert!(message.contains("--approximate DIGITS"), "{message}");
    // The same refusal from `omen prob`.
    let prob = omen(&[
        "prob",
        "--dialect",
        "anydice",
        "--work-budget",
        "20000000",
        DOUBLING,
    ]);
    assert_eq!(prob.code, 2);
    assert_eq!(words(&prob.stderr), message);
    // Omen's notation is always exact: --approximate without the dialect is refused.
    let refused = omen(&["roll", "--approximate", "20", "3d6"]);
    assert_eq!(refused.code, 2);
    assert!(
        refused
            .stderr
            .contains("--approximate is for AnyDice programs"),
        "{}",
        refused.stderr
    );
}

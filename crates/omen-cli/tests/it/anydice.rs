//! `--dialect anydice`: a whole AnyDice program through `omen prob`, `omen plot` and `omen roll`, one
//! column per output, labelled as AnyDice labels them.

use crate::{omen, omen_ok, omen_with};

#[test]
fn each_output_is_a_column_labelled_as_anydice_labels_it() {
    let program = "output d4\noutput 2d4 named \"two [X]\"\nX: 3\noutput d4 + X named \"plus [X]\"";
    let run = omen(&["prob", "--dialect", "anydice", "--format", "csv", program]);
    // `[X]` is not set for the second output yet: AnyDice's calculation error, with a caret.
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("I cannot find a variable named X"),
        "{}",
        run.stderr
    );

    let program = "X: 3\noutput d4\noutput 2d4 named \"two\"\noutput d4 + X named \"plus [X]\"";
    let csv = omen_ok(&["prob", "--dialect", "anydice", "--format", "csv", program]).stdout;
    // Counted by hand: P(d4 = 1) = 1/4, P(2d4 = 2) = 1/16, P(d4 + 3 = 4) = 1/4.
    assert!(csv.starts_with("outcome,output 1,two,plus 3\n"), "{csv}");
    let row = |outcome: &str| {
        csv.lines()
            .find(|l| l.starts_with(&format!("{outcome},")))
            .unwrap_or_else(|| panic!("no row {outcome} in {csv}"))
            .to_string()
    };
    assert_eq!(row("2"), "2,1/4,1/16,0");
    assert_eq!(row("5"), "5,0,1/4,1/4");
}

#[test]
fn a_program_file_or_stdin_with_one_output_is_one_table() {
    let program = "function: double X:n { result: X * 2 }\noutput [double d6] named \"doubled\"";
    let dir = std::env::temp_dir().join(format!("omen-anydice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("program.txt");
    std::fs::write(&path, program).unwrap();
    let from_file = omen_ok(&[
        "prob",
        "--dialect",
        "anydice",
        "--format",
        "json",
        "-f",
        path.to_str().unwrap(),
    ])
    .stdout;
    let from_stdin = omen_with(
        &[
            "prob",
            "--dialect",
            "anydice",
            "--format",
            "json",
            "-f",
            "-",
        ],
        None,
        Some(program),
    );
    assert_eq!(from_stdin.code, 0, "{}", from_stdin.stderr);
    assert_eq!(from_file, from_stdin.stdout);
    let json: serde_json::Value = serde_json::from_str(&from_file).unwrap();
    assert_eq!(json["reading"], "doubled");
    assert_eq!(json["mean"], "7");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_syntax_error_is_anydices_class_with_a_caret() {
    let run = omen(&["prob", "--dialect", "anydice", "output [higest 1 of 2d20]"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("calculation error"), "{}", run.stderr);
    assert!(run.stderr.contains("[highest ? of ?]"), "{}", run.stderr);
    assert!(run.stderr.contains('^'), "{}", run.stderr);
}

#[test]
fn the_explode_depth_cut_is_a_warning() {
    let run = omen_ok(&["prob", "--dialect", "anydice", "output [explode d6]"]);
    assert!(run.stderr.contains("1/216"), "{}", run.stderr);
}

#[test]
fn plot_draws_every_output_and_roll_rolls_each_once() {
    let svg = omen_ok(&[
        "plot",
        "--dialect",
        "anydice",
        "output 3d6\noutput 2d6 named \"two\"",
    ])
    .stdout;
    assert!(svg.contains("<svg") && svg.contains("two"), "{svg}");
    let rolled = omen_ok(&[
        "roll",
        "--dialect",
        "anydice",
        "--seed",
        "7",
        "output 1d6 named \"one\"\noutput d{5}",
    ])
    .stdout;
    let lines: Vec<&str> = rolled.lines().collect();
    assert_eq!(lines.len(), 3, "{rolled}");
    // The seed first, as an Omen roll prints it, so the roll can be replayed.
    assert_eq!(lines[0], "seed: 7");
    let one: i64 = lines[1].strip_prefix("one: ").unwrap().parse().unwrap();
    assert!((1..=6).contains(&one), "{rolled}");
    assert_eq!(lines[2], "output 2: 5");
}

#[test]
fn roll_as_json_has_one_entry_per_output_with_its_label_value_and_reading() {
    let program = "output 3d6 named \"three\"\noutput d{}\noutput 2d6 / 2";
    // Given dice (`--dice`) are in anydice_roll.rs: they are each output's own dice.
    // Seeded: the seed is given back, and the values are the text roll's.
    let args = |format: &'static str| {
        omen_ok(&[
            "roll",
            "--dialect",
            "anydice",
            "--format",
            format,
            "--seed",
            "11",
            program,
        ])
        .stdout
    };
    let json: serde_json::Value = serde_json::from_str(&args("json")).unwrap();
    assert_eq!(json["seed"], 11);
    assert_eq!(json["expression"], program);
    let shape: Vec<(String, String, bool)> = json["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let label = o["label"].as_str().unwrap().to_string();
            (
                label,
                o["reading"].as_str().unwrap().to_string(),
                o["result"].is_null(),
            )
        })
        .collect();
    let owned = |l: &str, r: &str, null| (l.to_string(), r.to_string(), null);
    assert_eq!(
        shape,
        [
            owned("three", "three = 3d6", false),
            owned("output 2", "output 2", true),
            owned("output 3", "output 3", false),
        ]
    );
    // Each value is an outcome of its output: 3d6 from 3 to 18, 2d6 / 2 from 1 to 6.
    let value = |i: usize| json["outputs"][i]["result"].as_i64().unwrap();
    assert!(
        (3..=18).contains(&value(0)) && (1..=6).contains(&value(2)),
        "{json}"
    );
    let text = args("text");
    let from_json: Vec<String> = json["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let value = match &o["result"] {
                serde_json::Value::Null => "(empty)".to_string(),
                v => v.to_string(),
            };
            format!("{}: {value}", o["label"].as_str().unwrap())
        })
        .collect();
    assert_eq!(text, format!("seed: 11\n{}\n", from_json.join("\n")));
}

#[test]
fn roll_as_json_reports_an_error_as_json() {
    let run = omen(&[
        "roll",
        "--dialect",
        "anydice",
        "--format",
        "json",
        "output [higest 1 of 2d20]",
    ]);
    assert_eq!(run.code, 2);
    let json: serde_json::Value = serde_json::from_str(&run.stderr).unwrap();
    let error = &json["errors"][0];
    assert_eq!(error["kind"], "calculation-error", "{}", run.stderr);
    assert_eq!(
        error["help"], "the closest function is [highest ? of ?]",
        "{}",
        run.stderr
    );
}

#[test]
fn a_single_output_shows_its_reading_with_omens_spelling() {
    // As `omen translate --from anydice` spells it.
    let spelled = omen_ok(&["translate", "--from", "anydice", "output 3d6"]).stdout;
    assert_eq!(spelled, "output 1: 3d6\n");
    let text = omen_ok(&["prob", "--dialect", "anydice", "output 3d6"]).stdout;
    assert_eq!(
        text.lines().next(),
        Some("reading: output 1 = 3d6"),
        "{text}"
    );
    let markdown = omen_ok(&[
        "prob",
        "--dialect",
        "anydice",
        "--format",
        "markdown",
        "output [highest 1 of 2d20] named \"advantage\"",
    ])
    .stdout;
    assert_eq!(
        markdown.lines().next(),
        Some("reading: advantage = 2d20kh1"),
        "{markdown}"
    );
    // Without a spelling, the reading is the label alone.
    let text = omen_ok(&[
        "prob",
        "--dialect",
        "anydice",
        "output 3d6 / 2 named \"half\"",
    ])
    .stdout;
    assert_eq!(text.lines().next(), Some("reading: half"), "{text}");
}

#[test]
fn translate_prints_omens_notation_or_why_there_is_none() {
    let run = omen_ok(&[
        "translate",
        "--from",
        "anydice",
        "X: d6\noutput [highest 3 of 4d6] named \"stat\"\noutput X + X\noutput 3d6 / 2",
    ]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], "stat: 4d6kh3");
    // Every use of X is a new roll: written out, not bound once.
    assert_eq!(lines[1], "output 2: 1d6 + 1d6");
    assert!(
        lines[2].starts_with("output 3: no Omen spelling"),
        "{}",
        run.stdout
    );
    let bad = omen(&["translate", "--from", "anydice", "output ["]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("syntax error"), "{}", bad.stderr);
}

#[test]
fn approximate_answers_a_runaway_program_and_says_it_is_approximate() {
    // The highest of 2^40 d6: exactly, its total has 6^(2^40) digits; to 20 digits, D is 6 with
    // probability 1 − (5/6)^(2^40), which is 1 to far more digits than asked for.
    let program = "D: d6\nloop I over {1..40} { D: [highest of D and D] }\noutput D";
    let run = omen_ok(&[
        "prob",
        "--dialect",
        "anydice",
        "--approximate",
        "20",
        "--format",
        "csv",
        program,
    ]);
    // One row: 6, with probability 1 (and 100% at least and at most).
    let rows: Vec<&str> = run.stdout.lines().skip(1).collect();
    assert_eq!(rows, ["6,1,100,1,100,1,100"], "{}", run.stdout);
    assert!(run.stderr.contains("approximate"), "{}", run.stderr);
    assert!(
        run.stderr.contains("20 significant digits"),
        "{}",
        run.stderr
    );

    // A small program is exact either way, and unwarned.
    let small = omen_ok(&[
        "prob",
        "--dialect",
        "anydice",
        "--approximate",
        "20",
        "--format",
        "csv",
        "output 2d6",
    ]);
    assert!(small.stdout.contains("\n7,1/6,"), "{}", small.stdout);
    assert!(small.stderr.is_empty(), "{}", small.stderr);

    // Omen's notation is always exact: --approximate without the dialect is refused.
    let refused = omen(&["prob", "--approximate", "20", "2d6"]);
    assert_eq!(refused.code, 2);
    assert!(
        refused
            .stderr
            .contains("--approximate is for AnyDice programs"),
        "{}",
        refused.stderr
    );
}

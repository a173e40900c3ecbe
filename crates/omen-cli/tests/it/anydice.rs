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
    assert_eq!(lines.len(), 2, "{rolled}");
    let one: i64 = lines[0].strip_prefix("one: ").unwrap().parse().unwrap();
    assert!((1..=6).contains(&one), "{rolled}");
    assert_eq!(lines[1], "output 2: 5");
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

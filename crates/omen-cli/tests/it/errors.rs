//! Bad input: exit code 2, nothing on stdout, a caret and a hint (or JSON) on stderr.

use crate::{omen, omen_ok};

/// Runs a command that must fail as bad input, and returns its stderr.
fn bad_input(args: &[&str]) -> String {
    let run = omen(args);
    assert_eq!(run.code, 2, "omen {args:?}:\n{}", run.stderr);
    assert!(run.stdout.is_empty(), "stdout: {}", run.stdout);
    run.stderr
}

#[test]
fn a_parse_error_draws_a_caret_and_a_hint() {
    let stderr = bad_input(&["prob", "2d"]);
    assert!(stderr.contains('^'), "{stderr}");
    assert!(stderr.contains("help"), "{stderr}");
    insta::assert_snapshot!(stderr);
}

#[test]
fn json_errors_are_json() {
    let stderr = bad_input(&["prob", "2d", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stderr).expect("stderr is JSON");
    let error = &v["errors"][0];
    assert_eq!(error["kind"], "expected-sides");
    assert_eq!(error["severity"], "error");
    assert_eq!(error["span"]["start"], 2);
    assert!(error["message"].is_string() && error["help"].is_string());
    let stderr = bad_input(&["roll", "d0", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stderr).expect("stderr is JSON");
    assert_eq!(v["errors"][0]["kind"], "no-sides");
}

#[test]
fn every_recoverable_error_is_reported() {
    let stderr = bad_input(&["prob", "2d + 3d6kh?"]);
    assert_eq!(stderr.matches("error:").count(), 2, "{stderr}");
}

#[test]
fn too_many_dice() {
    let stderr = bad_input(&["prob", "1000000000d6"]);
    assert!(stderr.contains("too many dice"), "{stderr}");
    assert!(stderr.contains("--max-dice"), "{stderr}");
    let stderr = bad_input(&["roll", "999999d999999kh3"]);
    assert!(stderr.contains("too many dice"), "{stderr}");
}

#[test]
fn a_die_without_sides() {
    let stderr = bad_input(&["prob", "d0"]);
    assert!(stderr.contains("at least one side"), "{stderr}");
}

#[test]
fn nesting_ten_thousand_deep() {
    let expression = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    let stderr = bad_input(&["prob", &expression]);
    assert!(stderr.contains("nested too deeply"), "{}", &stderr[..200]);
}

#[test]
fn explode_depth_over_its_cap() {
    for command in ["prob", "roll"] {
        let stderr = bad_input(&[command, "1d6!", "--explode-depth", "1000000000"]);
        assert!(
            stderr.contains("--explode-depth") && stderr.contains("0..=1000"),
            "{stderr}"
        );
    }
}

#[test]
fn a_work_budget_too_small() {
    let stderr = bad_input(&["prob", "100d6", "--work-budget", "10"]);
    assert!(stderr.contains("--work-budget"), "{stderr}");
}

#[test]
fn bad_flags_exit_two() {
    bad_input(&["prob", "2d6", "--no-such-flag"]);
    bad_input(&["prob", "2d6", "--format", "yaml"]);
    bad_input(&["roll", "2d6", "--seed", "-3"]);
    bad_input(&["roll", "2d6", "--seed", "1", "--dice", "3,4"]);
    bad_input(&["roll", "2d6", "--dice", "3,x"]);
    bad_input(&["prob", "2d6", "--param", "no-equals-sign"]);
}

#[test]
fn a_warning_does_not_fail_the_command() {
    let run = omen_ok(&["prob", "3d6>=10"]);
    assert!(run.stderr.starts_with("warning:"), "{}", run.stderr);
    assert!(
        run.stderr.contains("put spaces around `>=`"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("mean"), "{}", run.stdout);
    let run = omen_ok(&["prob", "3d6>=10", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&run.stderr).expect("stderr is JSON");
    assert_eq!(v["warnings"][0]["severity"], "warning");
}

/// 20 KB of `)` once printed every one of its 20,000 errors, each with the whole 20 KB line: hundreds
/// of MB on stderr. Now the first 20 are drawn, each with a window of the line, and the rest counted.
#[test]
fn twenty_kilobytes_of_close_brackets_do_not_print_hundreds_of_megabytes() {
    let brackets = ")".repeat(20_000);
    let stderr = bad_input(&["prob", &brackets]);
    assert!(stderr.len() < 20_000, "{} bytes on stderr", stderr.len());
    assert_eq!(stderr.matches("error: ").count(), 20, "{stderr}");
    assert!(
        stderr.contains("more errors (the first 20 are shown)"),
        "{stderr}"
    );
    assert!(stderr.lines().all(|l| l.chars().count() < 200), "{stderr}");
    let json = bad_input(&["prob", &brackets, "--format", "json"]);
    assert!(json.len() < 20_000, "{} bytes of JSON", json.len());
}

#[test]
fn colour_is_asked_for_and_off_otherwise() {
    let coloured = bad_input(&["prob", "2d", "--color", "always"]);
    assert!(coloured.contains('\u{1b}'), "{coloured:?}");
    // Not a terminal: no colour unless asked.
    let plain = bad_input(&["prob", "2d"]);
    assert!(!plain.contains('\u{1b}'), "{plain:?}");
    let never = bad_input(&["prob", "2d", "--color", "NEVER"]);
    assert_eq!(never, plain);
}

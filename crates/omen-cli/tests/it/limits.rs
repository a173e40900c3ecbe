//! Every request is bounded: one test per input that once crashed `omen`, hung it or grew without
//! bound, named after the defect. Each asserts on the outcome (exit code, empty stdout on an error,
//! bounded stderr) and on the limit named, never on wall time. `the_hostile_corpus_stays_under_a_memory_cap`
//! runs them all again under an address-space limit, so a regression that allocates gigabytes fails.

use crate::{Run, omen, omen_with, scratch_dir};

/// Refused with exit 2, nothing on stdout, a short error that names `needle` (a flag or a limit).
fn refused(run: &Run, needle: &str) {
    assert_eq!(
        run.code, 2,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(run.stdout.is_empty(), "stdout on an error: {}", run.stdout);
    assert!(
        run.stderr.len() < 4_096,
        "stderr too long: {}",
        run.stderr.len()
    );
    assert!(
        run.stderr.contains(needle),
        "expected `{needle}` in:\n{}",
        run.stderr
    );
}

/// Answered (exit 0) or refused by a limit (exit 2, naming one of `limits`).
fn answered_or_refused(run: &Run, limits: &[&str]) {
    match run.code {
        0 => assert!(!run.stdout.is_empty()),
        2 => {
            assert!(run.stdout.is_empty());
            assert!(run.stderr.len() < 4_096);
            assert!(
                limits.iter().any(|l| run.stderr.contains(l)),
                "expected one of {limits:?} in:\n{}",
                run.stderr
            );
        }
        code => panic!("exit {code}: {}", run.stderr),
    }
}

const DOUBLING: &str = "fn f(n) = if n <= 0 then d6 else f(n-1) + f(n-1); f(24)";

fn unary_recursion() -> String {
    format!(
        "fn f(n) = if n <= 0 then 0 else {}f(n - 1); f(199)",
        "-".repeat(20)
    )
}

fn many_lets(n: usize) -> String {
    (0..n)
        .map(|i| format!("let a{i} = {i};"))
        .collect::<String>()
        + " a0 + a1"
}

#[test]
fn roll_has_a_work_budget() {
    refused(
        &omen(&["roll", DOUBLING, "--seed", "1", "--work-budget", "1000000"]),
        "--work-budget",
    );
}

/// Rolled, `f(24)` kept every node of its tree until the budget ran out: over 600 MB for `f(20)`.
/// The tree is the transcript, so it stops growing where the transcript would pass `--max-output`.
#[test]
fn a_doubly_recursive_roll_held_its_whole_tree_until_the_budget_ran_out() {
    let run = omen(&["roll", DOUBLING, "--seed", "1", "--max-output", "1000000"]);
    refused(&run, "--max-output");
    assert!(run.stderr.contains("1000000 bytes"), "{}", run.stderr);
}

#[test]
fn roll_of_exploding_rerolled_dice_pays_for_every_die() {
    refused(
        &omen(&[
            "roll",
            "10000d6rr1!>=2",
            "--explode-depth",
            "1000",
            "--seed",
            "1",
        ]),
        "--work-budget",
    );
}

#[test]
fn roll_of_a_long_process_names_its_step_limit() {
    let run = omen(&[
        "roll",
        "fn s(x) = x + d6; after(s, 0, 9223372036854775807)",
        "--seed",
        "1",
    ]);
    refused(&run, "--max-process-steps");
    let run = omen(&["roll", "fn s(x) = 1 - x; absorb(s, 0)", "--seed", "1"]);
    refused(&run, "--max-process-steps");
    // Raised, the limit lets a longer process through.
    let run = omen(&[
        "roll",
        "fn s(x) = x + 1; after(s, 0, 150000)",
        "--seed",
        "1",
        "--max-process-steps",
        "200000",
        "--max-output",
        "1000000000",
        "--format",
        "json",
    ]);
    answered_or_refused(&run, &["--work-budget"]);
}

#[test]
fn unary_minus_recursion_does_not_overflow_the_stack() {
    let source = unary_recursion();
    for args in [&["prob", &source][..], &["roll", &source, "--seed", "1"]] {
        let run = omen(args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    }
}

#[test]
fn thousands_of_top_level_lets_do_not_overflow_the_stack() {
    let dir = scratch_dir("thousands_of_lets");
    let file = dir.join("lets.omen");
    std::fs::write(&file, many_lets(2_700)).unwrap();
    let file = file.to_str().unwrap();
    let run = omen(&["prob", "-f", file]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains('1'));
    let run = omen(&["roll", "-f", file, "--seed", "1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The most `let`s the length limit admits are refused by the nesting limit, not by the stack.
    std::fs::write(dir.join("more.omen"), many_lets(9_000)).unwrap();
    let more = dir.join("more.omen");
    let more = more.to_str().unwrap();
    answered_or_refused(
        &omen(&["prob", "-f", more]),
        &["nests more than", "too long"],
    );
    answered_or_refused(
        &omen(&["roll", "-f", more, "--seed", "1"]),
        &["nests more than", "too long"],
    );
}

#[test]
fn the_deepest_admitted_walks_fit_the_stack() {
    // At the ceiling of --max-call-depth, recursion stops at the nesting limit with an error, on
    // both interpreters and in both roll formats.
    let source = "fn f(n) = if n <= 0 then 0 else 1 + f(n-1); f(9999)";
    for args in [
        &["prob", source][..],
        &["roll", source, "--seed", "1"],
        &["roll", source, "--seed", "1", "--format", "json"],
    ] {
        let mut args = args.to_vec();
        args.extend(["--max-call-depth", "10000"]);
        refused(&omen(&args), "nests more than");
    }
    // Just inside the nesting limit, both answer.
    let source = "fn f(n) = if n <= 0 then 0 else 1 + f(n-1); f(3000)";
    for args in [
        &["prob", source][..],
        &["roll", source, "--seed", "1", "--max-output", "1000000000"],
    ] {
        let mut args = args.to_vec();
        args.extend(["--max-call-depth", "10000"]);
        let run = omen(&args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    }
}

#[test]
fn after_in_prob_pays_chain_states_and_work() {
    refused(
        &omen(&["prob", "fn s(x) = x + d2; after(s, 0, 9223372036854775807)"]),
        "--max-chain-states",
    );
    refused(
        &omen(&["prob", "fn s(x) = 1 - x; after(s, 0, 9223372036854775807)"]),
        "--work-budget",
    );
}

#[test]
fn work_budget_charges_every_path() {
    let nine_lets = "let x1 = d6; let x2 = d6; let x3 = d6; let x4 = d6; let x5 = d6; let x6 = d6; \
                     let x7 = d6; let x8 = d6; let x9 = d6; x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9";
    let min_args = format!("min({})", vec!["d6"; 20_000].join(", "));
    for args in [
        vec!["prob", nine_lets],
        vec!["prob", "(d10000)d(d10000)"],
        vec!["prob", "{10000d6, 10000d6}", "--format", "csv"],
        vec!["prob", &min_args],
        vec!["prob", "10000d6!", "--explode-depth", "1000"],
    ] {
        answered_or_refused(
            &omen(&args),
            &[
                "--work-budget",
                "--max-outcomes",
                "--max-states",
                "--max-output",
            ],
        );
    }
}

/// Unique rerolls (`u`, `uo`) and matching sets (`m`, `mt`) walk states that multiply with the dice and
/// the faces: once these ran past 20 s and 600 MB, or were refused only after 11 s. Each step pays for
/// its size now and states count as they appear, so each is refused by a limit; small pools are still
/// answered.
const SET_WALKS: [&str; 6] = [
    "60d60u",
    "200d1000uo",
    "10000d1000u",
    "10000d1000000mt",
    "10000d6m2",
    "1000d100mt",
];

#[test]
fn unique_rerolls_and_matching_sets_pay_for_every_state() {
    for source in SET_WALKS {
        let run = omen(&["prob", source]);
        assert_eq!(run.code, 2, "{source}: {}", run.stderr);
        assert!(
            run.stderr.contains("--work-budget") || run.stderr.contains("--max-states"),
            "{source}: {}",
            run.stderr
        );
        assert!(
            run.stdout.is_empty() && run.stderr.len() < 4_096,
            "{source}"
        );
    }
    // The highest outcome and its probability, by hand: four distinct faces of six are one of C(6,4)
    // sets; ten distinct faces of ten are all of them; four pairs among 8d6 are C(6,4)·8!/2!⁴ rolls of
    // 6⁸.
    for (source, want) in [
        ("4d6u", "18,1/15,"),
        ("10d10u", "55,1,"),
        ("8d6mt", "4,175/7776,"),
    ] {
        let run = omen(&["prob", source, "--format", "csv"]);
        assert_eq!(run.code, 0, "{source}: {}", run.stderr);
        let last = run.stdout.lines().last().unwrap_or_default();
        assert!(last.starts_with(want), "{source}: {last}");
    }
}

/// Pricing the walk that drops a few dice listed the faces beyond every face: quadratic in the faces,
/// so `100d1000000dl3` ran for minutes before any limit was checked. Each is refused by a limit.
#[test]
fn dropping_dice_of_a_million_faces_is_priced_before_the_work() {
    for source in ["100d1000000dl3", "10000d1000000dh2", "10000d100000dl3"] {
        refused(&omen(&["prob", source]), "--work-budget");
    }
}

/// Keeping or dropping among group members added one member at a time into a map of states that was
/// counted only after each member and charged as if it stayed in the cache: `{100d6,99d6,100d6,100d6}dl3`
/// took 15 s and 2.6 GB. It is refused by a limit; members that are all alike are a pool and answered.
#[test]
fn keeping_among_unlike_group_members_pays_for_its_states() {
    refused(
        &omen(&["prob", "{100d6,99d6,100d6,100d6}dl3"]),
        "--work-budget",
    );
    // Dropping the lowest three of four alike members keeps the highest: the same table as the
    // maximum of four sums, which the engine computes another way (sums, then a maximum).
    let run = omen(&["prob", "{100d6,100d6,100d6,100d6}dl3", "--format", "csv"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let max = omen(&["prob", "max(100d6, 100d6, 100d6, 100d6)", "--format", "csv"]);
    assert_eq!(max.code, 0, "{}", max.stderr);
    assert_eq!(run.stdout, max.stdout);
    assert_eq!(
        run.stdout.lines().count(),
        502,
        "outcomes 100 to 600 and a header"
    );
}

/// A name as long as a script allows was repeated whole in every message about it (125 KB of
/// errors for `aaaa… + 1`, 207 KB of warnings for `3d6!>aaaa…`): messages now cut long words, and
/// the source line is shown through a window, so each stays a few hundred bytes.
#[test]
fn long_names_are_not_echoed_whole() {
    let dir = scratch_dir("long_names");
    let name = "a".repeat(40_000);
    for (script, code) in [
        (format!("{name} + 1"), 2),
        (format!("fn {name}(x) = x; {name}(1, 2)"), 2),
        (format!("param {name} = 2; 0+d4!>{name}"), 0),
        (format!("param {name} = 2; 0+d4!<>{name}"), 0),
    ] {
        let path = dir.join("long.omen");
        std::fs::write(&path, &script).unwrap();
        let run = omen(&["prob", "-f", path.to_str().unwrap()]);
        assert_eq!(
            run.code,
            code,
            "{}",
            &run.stderr[..run.stderr.len().min(500)]
        );
        assert!(
            run.stderr.len() < 2_048,
            "{} bytes of diagnostics for `{}…`",
            run.stderr.len(),
            &script[script.len() - 20..]
        );
        assert!(run.stderr.contains('…'), "{}", run.stderr);
    }
}

#[test]
fn output_is_bounded_and_refused_before_rendering() {
    let run = omen(&["prob", "3000d6", "--format", "json"]);
    refused(&run, "--max-output");
    assert!(run.stderr.contains("narrower question"));
    // Raised, the same request is answered.
    let run = omen(&["prob", "200d6", "--max-output", "1000"]);
    refused(&run, "--max-output");
    let run = omen(&["prob", "200d6", "--format", "csv"]);
    assert_eq!(run.code, 0);
    // A roll's transcript is capped too, without being built whole.
    refused(
        &omen(&["roll", "1000d6", "--seed", "1", "--max-output", "100"]),
        "--max-output",
    );
}

#[test]
fn limit_flags_have_ceilings() {
    for (flag, value) in [
        ("--max-dice", "18446744073709551615"),
        ("--max-sides", "100000000000"),
        ("--max-outcomes", "100000000000"),
        ("--max-states", "100000000000"),
        ("--max-chain-states", "1000000"),
        ("--max-call-depth", "1000000"),
        ("--work-budget", "18446744073709551615"),
        ("--max-process-steps", "18446744073709551615"),
        ("--max-output", "18446744073709551615"),
        ("--explode-depth", "1001"),
    ] {
        for command in ["prob", "roll"] {
            let run = omen(&[command, "1d6", flag, value]);
            refused(&run, flag);
        }
    }
    // At its ceiling, --max-dice allocates nothing up front.
    let run = omen(&["roll", "1d6", "--max-dice", "1000000", "--seed", "1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn param_values_beyond_64_bits_are_an_error() {
    for value in ["99999999999999999999", "-99999999999999999999"] {
        let run = omen(&["prob", "param n = 1; n", "--param", &format!("n={value}")]);
        refused(&run, "64-bit");
    }
}

#[test]
fn json_inputs_have_a_size_limit() {
    let run = omen(&["import", "/dev/zero"]);
    refused(&run, "--max-input");
    let run = omen(&["act", "luck", "@/dev/zero"]);
    refused(&run, "larger than");
    let run = omen(&[
        "act",
        "luck",
        "{\"action\":\"roll\"}",
        "--sheet",
        "@/dev/zero",
    ]);
    refused(&run, "larger than");
    // Nesting past serde_json's limit of 128 is refused, not recursed into.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let run = omen_with(&["import", "-"], None, Some(&deep));
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.len() < 4_096);
}

/// Whole processes under an address-space cap: the stack reservation plus a few hundred megabytes.
/// A regression that allocates gigabytes is killed by the cap and fails here.
#[cfg(unix)]
#[test]
fn the_hostile_corpus_stays_under_a_memory_cap() {
    let cap_kib = (omen_lang::STACK_BYTES / 1024) + 1024 * 1024;
    let unary = unary_recursion();
    let dir = scratch_dir("memory_cap");
    let lets = dir.join("lets.omen");
    std::fs::write(&lets, many_lets(2_700)).unwrap();
    let lets = format!("-f {}", lets.display());
    let corpus: Vec<String> = vec![
        format!("roll '{DOUBLING}' --seed 1"),
        "roll '10000d6rr1!>=2' --explode-depth 1000 --seed 1".to_string(),
        "prob 'fn s(x) = x + d2; after(s, 0, 9223372036854775807)'".to_string(),
        "prob '(d10000)d(d10000)'".to_string(),
        "prob '{10000d6, 10000d6}'".to_string(),
        "prob '10000d6!' --explode-depth 1000".to_string(),
        "prob 10000d6".to_string(),
        "roll 1d6 --max-dice 1000000 --seed 1".to_string(),
        format!("prob '{unary}'"),
        format!("prob {lets}"),
        format!("roll {lets} --seed 1"),
        "import /dev/zero".to_string(),
        "act luck @/dev/zero".to_string(),
    ];
    let corpus: Vec<String> = corpus
        .into_iter()
        .chain(SET_WALKS.iter().map(|s| format!("prob {s}")))
        .chain(["prob 100d1000000dl3".to_string()])
        .chain(["prob '{100d6,99d6,100d6,100d6}dl3'".to_string()])
        .collect();
    let omen = env!("CARGO_BIN_EXE_omen");
    for args in corpus {
        let output = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v {cap_kib}; exec {omen} {args}"))
            .env("OMEN_DB", dir.join("omen.db"))
            .output()
            .expect("sh runs");
        let code = output.status.code();
        assert!(
            matches!(code, Some(0 | 2)),
            "`omen {args}` under a {cap_kib} KiB cap ended with {:?}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            output.stderr.len() < 4_096,
            "`omen {args}`: stderr too long"
        );
    }
}

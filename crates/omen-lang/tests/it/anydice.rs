//! AnyDice programs run by Omen: documentation-style programs against expectations computed here
//! independently (by hand or by enumerating every roll), AnyDice's rules one by one, its errors.

use std::collections::BTreeMap;

use omen_core::{Limits, Probability};
use omen_lang::anydice::{self, Output};

/// Runs a program on a thread with room for deep recursion.
pub fn run(source: &str) -> anydice::Run {
    run_with(source, Limits::default()).unwrap_or_else(|d| {
        panic!(
            "{source} fails:\n{}",
            omen_lang::diagnostic::render(source, &d)
        )
    })
}

pub fn run_with(source: &str, limits: Limits) -> Result<anydice::Run, Vec<omen_lang::Diagnostic>> {
    let source = source.to_string();
    std::thread::Builder::new()
        .stack_size(omen_lang::STACK_BYTES)
        .spawn(move || anydice::run(&source, &limits))
        .unwrap()
        .join()
        .unwrap()
}

/// The first error's message and kind.
pub fn error(source: &str) -> omen_lang::Diagnostic {
    match run_with(source, Limits::default()) {
        Ok(_) => panic!("{source} runs, but should fail"),
        Err(mut d) => d.remove(0),
    }
}

/// An output as probabilities per outcome.
pub fn table(output: &Output) -> BTreeMap<i64, Probability> {
    let d = output.distribution.as_ref().expect("a non-empty output");
    d.entries()
        .iter()
        .map(|(o, w)| (*o, Probability::new(w.clone(), d.total().clone())))
        .collect()
}

/// The only output of a program, as probabilities.
pub fn only(source: &str) -> BTreeMap<i64, Probability> {
    let run = run(source);
    assert_eq!(run.outputs.len(), 1, "{source}");
    table(&run.outputs[0])
}

pub fn p(n: u64, d: u64) -> Probability {
    Probability::new(n.into(), d.into())
}

/// Every roll of `count` dice with faces `faces`, each as a vector in rolling order, equally likely.
pub fn every_roll(count: usize, faces: &[i64]) -> Vec<Vec<i64>> {
    let mut rolls = vec![Vec::new()];
    for _ in 0..count {
        rolls = rolls
            .into_iter()
            .flat_map(|r| {
                faces.iter().map(move |f| {
                    let mut next = r.clone();
                    next.push(*f);
                    next
                })
            })
            .collect();
    }
    rolls
}

/// The distribution of `f` over every roll, by counting.
pub fn enumerate(
    count: usize,
    faces: &[i64],
    f: impl Fn(&[i64]) -> Option<i64>,
) -> BTreeMap<i64, Probability> {
    let mut counts: BTreeMap<i64, u64> = BTreeMap::new();
    let mut total = 0;
    for roll in every_roll(count, faces) {
        if let Some(v) = f(&roll) {
            *counts.entry(v).or_default() += 1;
            total += 1;
        }
    }
    counts.into_iter().map(|(v, c)| (v, p(c, total))).collect()
}

fn uniform(outcomes: &[i64]) -> BTreeMap<i64, Probability> {
    let n = outcomes.len() as u64;
    let mut out: BTreeMap<i64, Probability> = BTreeMap::new();
    for o in outcomes {
        *out.entry(*o).or_insert_with(|| p(0, 1)) += p(1, n);
    }
    out
}

fn sorted_desc(roll: &[i64]) -> Vec<i64> {
    let mut r = roll.to_vec();
    r.sort_unstable_by(|a, b| b.cmp(a));
    r
}

#[test]
fn three_d6_is_every_roll_summed() {
    let d6: Vec<i64> = (1..=6).collect();
    assert_eq!(
        only("output 3d6"),
        enumerate(3, &d6, |r| Some(r.iter().sum()))
    );
}

#[test]
fn advantage_is_the_highest_of_two_d20() {
    let t = only("output [highest 1 of 2d20] named \"advantage\"");
    // 20 shows on at least one of two d20: 1 - (19/20)^2.
    assert_eq!(t[&20], p(39, 400));
    assert_eq!(t[&1], p(1, 400));
}

#[test]
fn highest_lowest_and_middle_select_sorted_positions() {
    let d6: Vec<i64> = (1..=6).collect();
    let top2 = enumerate(4, &d6, |r| Some(sorted_desc(r)[..2].iter().sum()));
    assert_eq!(only("output [highest 2 of 4d6]"), top2);
    let low2 = enumerate(4, &d6, |r| Some(sorted_desc(r)[2..].iter().sum()));
    assert_eq!(only("output [lowest 2 of 4d6]"), low2);
    // Middle 1 of 4 is the second highest: the dice left out split with the odd one on top.
    let middle = enumerate(4, &d6, |r| Some(sorted_desc(r)[1]));
    assert_eq!(only("output [middle 1 of 4d6]"), middle);
    let middle2 = enumerate(4, &d6, |r| Some(sorted_desc(r)[1] + sorted_desc(r)[2]));
    assert_eq!(only("output [middle 2 of 4d6]"), middle2);
}

#[test]
fn positions_of_a_collection_follow_the_position_order() {
    let d4: Vec<i64> = (1..=4).collect();
    let second = enumerate(3, &d4, |r| Some(sorted_desc(r)[1]));
    assert_eq!(only("output 2@3d4"), second);
    let ends = enumerate(3, &d4, |r| Some(sorted_desc(r)[0] + 2 * sorted_desc(r)[2]));
    assert_eq!(only("output {1,3,3}@3d4"), ends);
    let lowest = enumerate(3, &d4, |r| Some(*r.iter().min().unwrap()));
    assert_eq!(
        only("set \"position order\" to \"lowest first\"\noutput 1@3d4"),
        lowest
    );
    // Out of range positions count 0; one die is a collection of one.
    assert_eq!(only("output 2@d6"), uniform(&[0]));
}

#[test]
fn a_number_parameter_expands_a_die_over_its_outcomes() {
    let t = only("function: double X:n { result: X * 2 }\noutput [double d6]");
    assert_eq!(t, uniform(&[2, 4, 6, 8, 10, 12]));
    // Passed whole (no type), the die is the die: d4 + 1.
    let t = only("function: add A to B { result: A + B }\noutput [add d4 to 1]");
    assert_eq!(t, uniform(&[2, 3, 4, 5]));
}

#[test]
fn an_empty_result_is_dropped_and_the_rest_renormalised() {
    let t = only(
        "function: odd X:n { if X = 1 | X = 3 | X = 5 { result: X } result: d{} }\noutput [odd d6]",
    );
    assert_eq!(t, uniform(&[1, 3, 5]));
    // A body that ends without `result:` gives the empty die too.
    let t = only("function: low X:n { if X <= 2 { result: X } }\noutput [low d6]");
    assert_eq!(t, uniform(&[1, 2]));
}

#[test]
fn a_sequence_parameter_expands_a_collection_over_its_sorted_rolls() {
    let d4: Vec<i64> = (1..=4).collect();
    let t = only("function: top S:s { result: 1@S + 3@S }\noutput [top 3d4]");
    let e = enumerate(3, &d4, |r| Some(sorted_desc(r)[0] + sorted_desc(r)[2]));
    assert_eq!(t, e);
    // Counting matches: a sequence against a number counts the matching elements.
    let t = only("function: hits S:s { result: S >= 3 }\noutput [hits 4d4]");
    let e = enumerate(4, &d4, |r| {
        Some(r.iter().filter(|x| **x >= 3).count() as i64)
    });
    assert_eq!(t, e);
}

#[test]
fn the_sorted_rolls_come_highest_first_and_in_anydice_order() {
    // The frame is shared: the first roll handed over is {3,3}, so FIRST is 6 for every later one.
    let program = "function: f S:s { if !FIRST_SET { FIRST: 1@S + 2@S FIRST_SET: 1 } result: FIRST }\nFIRST_SET: 0\noutput [f 2d3]";
    assert_eq!(only(program), uniform(&[6]));
}

#[test]
fn variables_are_dynamically_scoped() {
    let program = "AC: 100\nfunction: see { result: AC }\nfunction: with AC:n { result: [see] }\noutput [with 3]";
    assert_eq!(only(program), uniform(&[3]));
}

#[test]
fn the_iterations_of_an_expanded_call_share_one_frame() {
    // SEEN is written while handling outcome 1 and still there for outcome 2.
    let program = "function: f X:n { if X = 1 { SEEN: 7 result: 0 } result: SEEN }\noutput [f d2]";
    assert_eq!(only(program), uniform(&[0, 7]));
}

#[test]
fn past_the_maximum_function_depth_a_call_gives_the_empty_die() {
    let depth = run("function: depth { result: 1 + [depth] }\noutput [depth]");
    assert_eq!(table(&depth.outputs[0]), uniform(&[10]));
    let warning = depth
        .warnings
        .iter()
        .find(|w| w.kind == "function-depth")
        .unwrap();
    assert!(
        warning.message.contains("at most 1 of"),
        "{}",
        warning.message
    );
    // A recursion through an expanded parameter: only the rolls that reach the tenth level are
    // changed by the cut, (1/6)^10 of them.
    let boom = run(
        "function: boom X:n { if X = 6 { result: X + [boom d6] } result: X }\noutput [boom d6]",
    );
    let warning = boom
        .warnings
        .iter()
        .find(|w| w.kind == "function-depth")
        .unwrap();
    assert!(
        warning.message.contains("at most 1/60466176 of"),
        "{}",
        warning.message
    );
    let deeper = only(
        "set \"maximum function depth\" to 20\nfunction: depth { result: 1 + [depth] }\noutput [depth]",
    );
    assert_eq!(deeper, uniform(&[20]));
}

#[test]
fn explode_rolls_again_on_the_highest_face_twice_by_default() {
    let run = run("output [explode d6]");
    let t = table(&run.outputs[0]);
    let mut e = BTreeMap::new();
    for x in 1..=5 {
        e.insert(x, p(1, 6));
        e.insert(6 + x, p(1, 36));
    }
    for x in 1..=6 {
        e.insert(12 + x, p(1, 216));
    }
    assert_eq!(t, e);
    // The cut is reported: the last roll showed a 6 with probability 1/216.
    let warning = &run.warnings[0];
    assert_eq!(warning.kind, "explode-depth-cut");
    assert!(warning.message.contains("1/216"), "{}", warning.message);
    let deeper = only("set \"explode depth\" to 1\noutput [explode d4]");
    let mut e = BTreeMap::new();
    for x in 1..=3 {
        e.insert(x, p(1, 4));
    }
    for x in 1..=4 {
        e.insert(4 + x, p(1, 16));
    }
    assert_eq!(deeper, e);
}

#[test]
fn outputs_are_labelled_as_anydice_labels_them() {
    let run = run(
        "output 1\noutput 2 named \"second\"\noutput 3\nloop N over {1..2} { output Nd6 named \"[N]d6 and [N]\" }\nX: 2d4\noutput X named \"[X]\"\nY: d{1,2}\noutput Y named \"[Y] [Z\"\nS: {1,2}\noutput S named \"[S]\"",
    );
    let labels: Vec<&str> = run.outputs.iter().map(|o| o.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "output 1",
            "second",
            "output 3",
            "1d6 and 1",
            "2d6 and 2",
            "2d4",
            "d{?} [Z",
            "{?}"
        ]
    );
}

#[test]
fn sequences_repeat_range_flatten_and_take_a_dies_outcomes() {
    assert_eq!(only("output {1..3:2}"), uniform(&[1, 2, 3, 1, 2, 3]));
    assert_eq!(only("output {1:4, 2, 3}"), uniform(&[1, 1, 1, 1, 2, 3]));
    assert_eq!(
        only("output {{1,2,4}:2, 5}"),
        uniform(&[1, 2, 4, 1, 2, 4, 5])
    );
    assert_eq!(only("output {d4}"), uniform(&[1, 2, 3, 4]));
    assert_eq!(only("output {1, \\ a comment \\ 2}"), uniform(&[1, 2]));
    assert!(run("output {4..1}").outputs[0].distribution.is_none());
    assert!(run("output d{}").outputs[0].distribution.is_none());
}

#[test]
fn operators_follow_anydices_rules() {
    let cases: [(&str, i64); 14] = [
        ("{1,2,3} >= 2", 2),
        ("6 = {1,2,3}", 0),
        ("{1,2} < {1,3}", 1),
        ("9/2^2", 2),
        ("-7/2", -3),
        ("5/0", 0),
        ("1@-456", -4),
        ("2@{7,8,9}", 8),
        ("{1,3}@{7,8,9}", 16),
        ("#12345", 5),
        ("#{1,2,3}", 3),
        ("!{1,-1}", 1),
        ("-{1,2}", -3),
        ("1 + d{}", 1),
    ];
    for (expr, want) in cases {
        assert_eq!(only(&format!("output {expr}")), uniform(&[want]), "{expr}");
    }
    // `#3d6` is (#3)d6, one die.
    assert_eq!(only("output #3d6"), uniform(&[1, 2, 3, 4, 5, 6]));
    // Comparisons bind tighter than `&`.
    assert_eq!(only("X: 3\noutput X >= 2 & (X = 3) > 0"), uniform(&[1]));
}

#[test]
fn a_position_at_the_lowest_integer_is_out_of_range_not_an_overflow() {
    assert_eq!(only("output (-9223372036854775807 - 1)@{7}"), uniform(&[0]));
    assert_eq!(only("output (-9223372036854775807 - 1)@123"), uniform(&[0]));
    assert_eq!(
        error("output [absolute -9223372036854775807 - 1]").kind,
        "overflow"
    );
}

#[test]
fn the_d_operator_is_left_associative_and_mixes_a_die_count() {
    assert_eq!(only("output 2d(2d2)"), only("output 4d2"));
    // (1d2)d4: one or two d4, each with probability 1/2.
    let mut e: BTreeMap<i64, Probability> = BTreeMap::new();
    for x in 1..=4 {
        *e.entry(x).or_insert(p(0, 1)) += p(1, 8);
    }
    for a in 1..=4 {
        for b in 1..=4 {
            *e.entry(a + b).or_insert(p(0, 1)) += p(1, 32);
        }
    }
    assert_eq!(only("output 1d2d4"), e);
    assert_eq!(only("output 0d6"), uniform(&[0]));
    assert_eq!(only("output d-3"), uniform(&[-3, -2, -1]));
    assert_eq!(only("output -2d2"), only("output 2d{-1,-2}"));
}

#[test]
fn library_functions_on_numbers_and_sequences() {
    let cases: [(&str, &[i64]); 7] = [
        ("[absolute -4]", &[4]),
        ("[{1,2,3} contains 2]", &[1]),
        ("[count {1,2} in {1,1,2,5}]", &[3]),
        ("[highest of 3 and 5]", &[5]),
        ("[lowest of 3 and 5]", &[3]),
        ("[maximum of 3d6]", &[18]),
        ("1@[reverse {1,2,3}]", &[3]),
    ];
    for (expr, want) in cases {
        assert_eq!(only(&format!("output {expr}")), uniform(want), "{expr}");
    }
    assert_eq!(only("output [sort {2,9,4}]"), uniform(&[2, 4, 9]));
    assert_eq!(only("output 1@[sort {2,9,4}]"), uniform(&[9]));
}

#[test]
fn a_program_definition_replaces_the_librarys() {
    let program = "function: explode N:n { result: N }\noutput [explode d6]";
    assert_eq!(only(program), uniform(&[1, 2, 3, 4, 5, 6]));
}

#[test]
fn if_wants_a_number_and_names_what_it_got() {
    let e = error("X: d6\nif X > 3 { output 1 }");
    assert_eq!(e.kind, "calculation-error");
    assert!(
        e.message.contains("Boolean values can only be numbers") && e.message.contains("d{?}"),
        "{}",
        e.message
    );
}

#[test]
fn errors_carry_anydices_class_a_span_and_a_hint() {
    let source = "output [higest 1 of 2d20]";
    let e = error(source);
    assert_eq!(e.kind, "calculation-error");
    assert!(e.message.contains("[higest ? of ?]"), "{}", e.message);
    assert_eq!(
        e.help.as_deref(),
        Some("the closest function is [highest ? of ?]")
    );
    assert_eq!(&source[e.span.start..e.span.end], "[higest 1 of 2d20]");

    let e = error("output 1 \\ open comment");
    assert_eq!(e.kind, "syntax-error");
    assert!(e.message.contains("backslash"), "{}", e.message);
    let e = error("output");
    assert!(e.message.contains("I expect a value"), "{}", e.message);
    let e = error("legacy\noutput 1");
    assert!(e.message.contains("legacy"), "{}", e.message);
    let e = error("function: f { output 1 }");
    assert_eq!(e.kind, "syntax-error");
    let e = error("output X");
    assert!(
        e.message.contains("I cannot find a variable named X"),
        "{}",
        e.message
    );
    let e = error("set \"explode depth\" to 0");
    assert!(e.message.contains("positive integer"), "{}", e.message);
    let e = error("loop N over {1..3} { output N ");
    assert!(e.message.contains("\"}\""), "{}", e.message);
}

#[test]
fn hostile_programs_are_refused_quickly() {
    let limits = Limits {
        work_budget: 10_000_000,
        ..Limits::default()
    };
    // A call expanded over 30 d10s' sorted rolls (a body with a loop, which is not read as a
    // pool): refused before it runs.
    let e = run_with(
        "function: f S:s { loop I over {1} { } result: 1 }\noutput [f 30d10]",
        limits.clone(),
    )
    .unwrap_err();
    assert!(!e.is_empty());
    // Runaway recursion through expanded calls stops at the function depth.
    let r = run_with(
        "function: f X:n { result: X + [f d2] }\noutput [f d2]",
        limits.clone(),
    );
    assert!(r.is_ok() || r.unwrap_err()[0].kind == "work-budget");
    // A deep expression is refused by the parser.
    let deep = format!("output {}1{}", "(".repeat(5000), ")".repeat(5000));
    assert_eq!(error(&deep).kind, "syntax-error");
    // A loop cannot pile up outputs, nor long names.
    let e = run_with("loop N over {1..100000} { output N }", limits.clone()).unwrap_err();
    assert!(
        e[0].message.contains("more than 1000 outputs"),
        "{}",
        e[0].message
    );
    let long = "x".repeat(100_000);
    let small_output = Limits {
        max_output: 1_000_000,
        ..limits.clone()
    };
    let program = format!("loop N over {{1..500}} {{ output N named \"{long}\" }}");
    let e = run_with(&program, small_output).unwrap_err();
    assert!(e[0].message.contains("names pass"), "{}", e[0].message);
    // A huge sequence is refused before it is built.
    let e = run_with("output {1..1000000000}", limits).unwrap_err();
    assert!(!e.is_empty());
}

#[test]
fn the_deepest_recursion_is_refused_before_the_stack_runs_out() {
    // 100 levels of calls, each nesting its expression 150 deep: past the walk depth, refused.
    let nested = format!("{}[f X - 1]{}", "0 + (".repeat(150), ")".repeat(150));
    let program = format!(
        "set \"maximum function depth\" to 100\nfunction: f X:n {{ if X = 0 {{ result: 0 }} result: 1 + {nested} }}\noutput [f 100]"
    );
    let e = error(&program);
    assert_eq!(e.kind, "calculation-error");
    assert!(e.message.contains("nests more than"), "{}", e.message);
    // Within the depth it answers: 100 levels of 1 + ….
    let shallow = "set \"maximum function depth\" to 100\nfunction: f X:n { if X = 0 { result: 0 } result: 1 + [f X - 1] }\noutput [f 99]";
    assert_eq!(only(shallow), uniform(&[99]));
}

#[test]
fn heavy_pools_are_read_without_enumerating_rolls() {
    let run = run("output [highest 8 of 16d10]\noutput 300@(1000d100)");
    let top = run.outputs[0].distribution.as_ref().unwrap();
    assert_eq!((*top.min_outcome(), *top.max_outcome()), (8, 80));
    let order = run.outputs[1].distribution.as_ref().unwrap();
    // The 300th highest of 1000 d100: about the 70th percentile, never at the ends in practice.
    let mean = omen_core::ratio_to_f64(&order.statistics().mean);
    assert!((69.0..72.0).contains(&mean), "{mean}");
}

/// The programs that time out on anydice.com, timed: run with
/// `cargo test --release -p omen-lang --test it anydice::heavy -- --ignored --nocapture`.
#[test]
#[ignore = "a timing, for release builds"]
fn heavy_programs_timing() {
    for program in [
        "output [highest 8 of 16d10]",
        "output 300@(1000d100)",
        "output [highest 5 of 10d[explode d10]]",
        "output [highest 3 of 10d20]",
        "function: top S:s { result: 1@S + 2@S } output [top 10d10]",
        "output 100d100",
    ] {
        let started = std::time::Instant::now();
        let run = run(program);
        let elapsed = started.elapsed();
        let d = run.outputs[0].distribution.as_ref().unwrap();
        println!("{elapsed:>12.3?}  {} outcomes  {program}", d.len());
    }
}

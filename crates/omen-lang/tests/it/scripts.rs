//! Scripts: parameters, bindings, functions, labels and tuples, control flow, processes, and their
//! errors. Exact values here are worked out by hand or by independent counting in the test.

use omen_core::{ChaChaDice, Probability, ScriptedDice};
use omen_lang::{Options, Value, compile, exact, sample};

use crate::support::{brute_force, exact_map, program};

fn p(n: u64, d: u64) -> Probability {
    Probability::new(n.into(), d.into())
}

fn errors(source: &str, options: &Options) -> Vec<omen_lang::Diagnostic> {
    match compile(source, options) {
        Err(d) => d,
        Ok(c) => vec![exact(&c.program, &options.limits).expect_err("an error")],
    }
}

fn kinds(source: &str) -> Vec<&'static str> {
    errors(source, &Options::default())
        .iter()
        .map(|d| d.kind)
        .collect()
}

#[test]
fn bindings_are_rolled_once_in_the_exact_engine() {
    let options = Options::default();
    let twice = exact_map(&program("let x = d6; x + x", &options), &options);
    // 2·d6: six even outcomes, each 1/6.
    assert_eq!(twice.len(), 6);
    assert_eq!(twice[&Value::Int(12)], p(1, 6));
    let two_dice = exact_map(&program("d6 + d6", &options), &options);
    assert_eq!(two_dice.len(), 11);
    // x - x is always 0; x = x always true.
    let zero = exact_map(&program("let x = 3d6!; x - x", &options), &options);
    assert_eq!(zero.len(), 1);
    let same = exact_map(&program("let x = 1d20; x = x", &options), &options);
    assert_eq!(same[&Value::Bool(true)], p(1, 1));
}

#[test]
fn bindings_are_rolled_once_in_the_roller() {
    let options = Options::default();
    let prog = program("let x = d6; (x, x, d6)", &options);
    for seed in 0..50 {
        let roll = sample(&prog, &options.limits, &mut ChaChaDice::from_seed(seed)).unwrap();
        let Value::Tuple(items) = roll.result else {
            panic!()
        };
        assert_eq!(items[0], items[1]);
    }
    // With given dice, the one binding takes one die.
    let roll = sample(&prog, &options.limits, &mut ScriptedDice::new(vec![4, 2])).unwrap();
    assert_eq!(roll.result.to_string(), "(4, 4, 2)");
}

#[test]
fn function_arguments_are_rolled_once() {
    let options = Options::default();
    let d = exact_map(
        &program("fn double(a) = a + a; double(d6)", &options),
        &options,
    );
    assert_eq!(d.len(), 6);
    // A recursive sum: n dice one at a time equals nd6.
    let rec = exact_map(
        &program(
            "fn sum(n) = if n <= 0 then 0 else d6 + sum(n - 1); sum(4)",
            &options,
        ),
        &options,
    );
    assert_eq!(rec, exact_map(&program("4d6", &options), &options));
}

#[test]
fn parameters_take_defaults_and_given_values() {
    let source = "param dv = 8; param n = 3; (n)d12>=dv";
    let options = Options::default();
    let default = exact_map(&program(source, &options), &options);
    assert_eq!(default, exact_map(&program("3d12>=8", &options), &options));
    let given = Options {
        params: vec![("dv".into(), Value::Int(10)), ("n".into(), Value::Int(5))],
        ..Options::default()
    };
    let set = exact_map(&program(source, &given), &given);
    assert_eq!(set, exact_map(&program("5d12>=10", &options), &options));
}

#[test]
fn a_missing_parameter_is_named() {
    let e = errors("param dv; 3d12>=dv", &Options::default());
    assert_eq!(e[0].kind, "missing-parameter");
    assert!(e[0].message.contains("`dv`"));
    let unknown = Options {
        params: vec![("nope".into(), Value::Int(1))],
        ..Options::default()
    };
    let e = errors("param dv = 1; dv", &unknown);
    assert_eq!(e[0].kind, "unknown-parameter");
}

#[test]
fn labels_and_match_over_ranges() {
    let options = Options::default();
    let d = exact_map(
        &program(
            r#"let r = d50; match r { ..=10 => "bad", 41.. => "good", _ => "neutral" }"#,
            &options,
        ),
        &options,
    );
    assert_eq!(d[&Value::text("bad")], p(1, 5));
    assert_eq!(d[&Value::text("neutral")], p(3, 5));
    assert_eq!(d[&Value::text("good")], p(1, 5));
}

#[test]
fn tuples_compare_and_index() {
    let options = Options::default();
    let d = exact_map(&program("let t = (d6, d4); t.0 > t.1", &options), &options);
    // P(d6 > d4) = (0+1+2+3+4+4... ) counted: Σ_{a} #{b < a} / 24 = (0+1+2+3+4+4)/24 = 14/24.
    assert_eq!(d[&Value::Bool(true)], p(7, 12));
    let order = exact_map(&program("(1, 2) < (1, 3)", &options), &options);
    assert_eq!(order[&Value::Bool(true)], p(1, 1));
}

#[test]
fn if_with_a_random_condition_weights_its_branches() {
    let options = Options::default();
    let d = exact_map(&program("if d6 = 6 then 10 else 0", &options), &options);
    assert_eq!(d[&Value::Int(10)], p(1, 6));
    let logic = exact_map(&program("(d6 = 6) or (d6 = 6)", &options), &options);
    assert_eq!(logic[&Value::Bool(true)], p(11, 36));
    let not = exact_map(&program("not (d4 = 1) and true", &options), &options);
    assert_eq!(not[&Value::Bool(true)], p(3, 4));
}

#[test]
fn pools_whose_size_is_an_expression() {
    let options = Options::default();
    let d = exact_map(&program("param n = 3; (n - 1)d6kh1", &options), &options);
    assert_eq!(d, exact_map(&program("2d6kh1", &options), &options));
    let zero = exact_map(&program("param n = 0; (n)d6", &options), &options);
    assert_eq!(zero[&Value::Int(0)], p(1, 1));
    assert_eq!(kinds("param n = 0; (n - 1)d6"), vec!["negative-dice"]);
}

#[test]
fn scripts_match_brute_force() {
    let options = crate::support::options_with_depth(2);
    for source in [
        "let x = d4; x * x + d4",
        "let a = 2d4; let b = d4; if a > b then a - b else b - a",
        "fn f(n) = if n = 0 then 0 else d3 + f(n - 1); f(d3)",
        r#"let r = d10; match r { 1 | 2 => "low", 3..=7 => "mid", _ => "high" }"#,
        "let t = (d4, d4); max(t.0, t.1) - min(t.0, t.1)",
        "fn g(a, b) = (a + b, a * b); let r = g(d3, d3); r.0 + r.1",
        "let n = d3 in (n)d4kh1",
    ] {
        let prog = program(source, &options);
        let brute = brute_force(&prog, &options.limits, 100_000).expect("small enough");
        assert_eq!(exact_map(&prog, &options), brute, "{source}");
    }
}

#[test]
fn a_gamblers_ruin_absorbs_exactly() {
    let options = Options::default();
    let source = "fn step(s) = if s = 0 or s = 4 then s else s + (if d2 = 1 then -1 else 1); absorb(step, 1)";
    let c = compile(source, &options).unwrap();
    let r = exact(&c.program, &options.limits).unwrap();
    let d = r.distribution.values();
    assert_eq!(d.probability(&Value::Int(4)), p(1, 4));
    assert_eq!(d.probability(&Value::Int(0)), p(3, 4));
    // Expected duration from 1 of 0..4 with a fair coin: 1·(4 − 1) = 3 steps.
    assert_eq!(r.expected_steps.unwrap().to_string(), "3");
    // Rolling it runs steps until it stops in 0 or 4.
    let roll = sample(&c.program, &options.limits, &mut ChaChaDice::from_seed(3)).unwrap();
    assert!(matches!(roll.result, Value::Int(0 | 4)));
}

#[test]
fn after_and_stationary() {
    let options = Options::default();
    // A walk on 0..=2 that moves to a uniformly random state each step.
    let after = exact_map(
        &program("fn step(s) = d3 - 1; after(step, 0, 5)", &options),
        &options,
    );
    assert_eq!(after[&Value::Int(2)], p(1, 3));
    let zero_steps = exact_map(
        &program("fn step(s) = d3 - 1; after(step, 0, 0)", &options),
        &options,
    );
    assert_eq!(zero_steps[&Value::Int(0)], p(1, 1));
    // Flip from 0 with 1/3, from 1 with 1/2: long run (3/5, 2/5).
    let flip = "fn step(s) = if s = 0 then (if d3 = 1 then 1 else 0) else (if d2 = 1 then 0 else 1); stationary(step, 0)";
    let st = exact_map(&program(flip, &options), &options);
    assert_eq!(st[&Value::Int(0)], p(3, 5));
    assert_eq!(
        kinds(&flip.replace("stationary", "absorb")),
        vec!["never-absorbs"]
    );
}

#[test]
fn a_chain_with_too_many_states_is_refused_with_a_reason() {
    // `after` only visits the states reachable in its steps, so an unbounded walk is fine there…
    let options = Options::default();
    let walk = exact_map(
        &program("fn step(s) = s + d2; after(step, 0, 3)", &options),
        &options,
    );
    assert_eq!(walk, exact_map(&program("3d2", &options), &options));
    // …but absorbing needs every reachable state.
    let e = errors("fn step(s) = s + 1; absorb(step, 0)", &Options::default());
    assert_eq!(e[0].kind, "too-many-chain-states");
    assert!(e[0].message.contains("500"));
}

#[test]
fn runaway_recursion_stops_with_a_message() {
    assert_eq!(kinds("fn f(n) = f(n + 1); f(0)"), vec!["recursion-limit"]);
    assert_eq!(
        kinds("fn f() = if d6 = 6 then 1 + f() else 0; f()"),
        vec!["recursion-limit"]
    );
}

#[test]
fn type_errors_name_both_sides() {
    let e = errors(r#""bad" + 1"#, &Options::default());
    assert_eq!(e[0].kind, "type-mismatch");
    assert!(
        e[0].message.contains("a label") && e[0].message.contains("a number"),
        "{}",
        e[0].message
    );
    // Known only at run time: still names both sides and the value.
    let e = errors(r#"fn f(x) = x + 1; f("bad")"#, &Options::default());
    assert_eq!(e[0].kind, "type-mismatch");
    assert!(e[0].message.contains("label"), "{}", e[0].message);
    let e = errors(r#"(1, 2) < "a""#, &Options::default());
    assert_eq!(e[0].kind, "type-mismatch");
}

#[test]
fn name_errors_point_at_the_name() {
    let source = "let a = 1; b + a";
    let e = errors(source, &Options::default());
    assert_eq!(e[0].kind, "unknown-name");
    assert_eq!(&source[e[0].span.start..e[0].span.end], "b");
    assert_eq!(kinds("fn f(x) = x; f(1, 2)"), vec!["wrong-arguments"]);
    assert_eq!(kinds("nope(1)"), vec!["unknown-function"]);
    assert_eq!(kinds(r#"match d4 { 1 => "a" }"#), vec!["no-match"]);
}

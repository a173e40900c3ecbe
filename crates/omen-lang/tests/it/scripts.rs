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

/// Three bindings kept in the middle: the joint roll with sorted combinations against counting all
/// 8,000 rolls of three d20 by hand, and against keeping the middle die of `3d20`.
#[test]
fn keep_middle_written_with_three_bindings_counts_every_roll() {
    let options = Options::default();
    let source = "let a = d20; let b = d20; let c = d20; a + b + c - max(a, b, c) - min(a, b, c)";
    let got = exact_map(&program(source, &options), &options);
    let mut counts = [0u64; 21];
    for a in 1..=20i64 {
        for b in 1..=20 {
            for c in 1..=20 {
                let mut v = [a, b, c];
                v.sort_unstable();
                counts[v[1] as usize] += 1;
            }
        }
    }
    let want: std::collections::BTreeMap<Value, Probability> = (1..=20)
        .map(|m| (Value::Int(m), p(counts[m as usize], 8000)))
        .collect();
    assert_eq!(got, want);
    assert_eq!(got, exact_map(&program("3d20km1", &options), &options));
}

/// Bindings the rest does not read symmetrically (different distributions, an order that matters, a
/// product) are rolled jointly without sorting, and still match every roll.
#[test]
fn joint_bindings_that_are_not_exchangeable_match_brute_force() {
    let options = Options::default();
    for source in [
        "let a = d4; let b = d4; a - b",
        "let a = d4; let b = d3; let c = d4; max(a, b) + c",
        "let a = d3; let b = d3; let c = d3; a * b + c",
        "let a = d3; let b = d3; if a > b then a else 0",
        "let a = d3; let b = d3; (a, b)",
        r#"let a = d4; let b = d4; let s = a + b; if s >= 5 then "hit" else "miss""#,
        "let a = d3; let b = d3; a = b or a + b = 4",
        "let a = 2d3; let b = d6; let c = 2d3; a + c - 2 * b",
        "let a = d3; let b = a + d3; a + b",
        "let a = d3 - 2; let b = d3 - 2; abs(a) + abs(b) + -a",
        "let a = d3; let b = d3; let c = d3; div(a + b + c, 2) - min(a, b, c)",
    ] {
        let prog = program(source, &options);
        let brute = brute_force(&prog, &options.limits, 100_000).expect("small enough");
        assert_eq!(exact_map(&prog, &options), brute, "{source}");
    }
}

/// An error on some combinations of the bindings is reported as it is without them.
#[test]
fn joint_bindings_report_errors_of_the_rest() {
    assert_eq!(
        kinds("let a = d3; let b = d3 - 1; a / b"),
        vec!["division-by-zero"]
    );
    // A mix of kinds is a value like any other until something computes with it.
    let options = Options::default();
    let mixed = exact_map(
        &program(
            "let a = d3; let b = d3; if a = b then a else true",
            &options,
        ),
        &options,
    );
    assert_eq!(mixed.get(&Value::Bool(true)), Some(&p(2, 3)));
    assert_eq!(
        kinds("let a = d3; let b = d3; (if a = b then a else true) + 1"),
        vec!["type-mismatch"]
    );
    assert_eq!(
        kinds("let a = d3; let b = d3; match a + b { 2..=5 => 1 }"),
        vec!["no-match"]
    );
}

mod joint_bindings {
    use proptest::prelude::*;

    use crate::support::{brute_force, exact_map, program};

    /// A value for a binding: dice small enough to enumerate, some the same so that they may be
    /// exchangeable.
    fn binding() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec!["d3", "d3", "d4", "2d2", "d3 - 2", "d2 + 3", "dF"])
    }

    fn expression(vars: usize) -> impl Strategy<Value = String> {
        let var = (0..vars).prop_map(|i| format!("v{i}"));
        let leaf = prop_oneof![3 => var, 1 => (-3i64..4).prop_map(|c| format!("({c})"))];
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} + {b})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} - {b})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} * {b})")),
                prop::collection::vec(inner.clone(), 1..4)
                    .prop_map(|xs| format!("max({})", xs.join(", "))),
                prop::collection::vec(inner.clone(), 1..4)
                    .prop_map(|xs| format!("min({})", xs.join(", "))),
                inner.clone().prop_map(|a| format!("abs({a})")),
                inner.clone().prop_map(|a| format!("-({a})")),
                (inner.clone(), inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(a, b, c, d)| format!("(if {a} >= {b} then {c} else {d})")),
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(a, b, c)| format!("(if {a} = {b} or {b} != {c} then 1 else 0)")),
            ]
        })
    }

    /// A symmetric rest: the sum of all the bindings less their extremes, or a count of those over
    /// a bar, written in a random order.
    fn symmetric(vars: usize) -> impl Strategy<Value = String> {
        (
            Just(vars),
            any::<bool>(),
            Just((0..vars).collect::<Vec<usize>>()).prop_shuffle(),
        )
            .prop_map(|(vars, count, order)| {
                let names: Vec<String> = order.iter().map(|i| format!("v{i}")).collect();
                if count {
                    names
                        .iter()
                        .map(|n| format!("(if {n} >= 2 then 1 else 0)"))
                        .collect::<Vec<_>>()
                        .join(" + ")
                } else {
                    let mut reversed = names.clone();
                    reversed.reverse();
                    format!(
                        "{} - max({}) - min({})",
                        names.join(" + "),
                        reversed.join(", "),
                        names.join(", ")
                    )
                }
                .replace("max(v0)", "v0")
                .replace("min(v0)", "v0")
                    + &" + 0".repeat(vars % 2)
            })
    }

    fn script() -> impl Strategy<Value = String> {
        (1usize..5).prop_flat_map(|vars| {
            (
                prop::collection::vec(binding(), vars),
                prop_oneof![expression(vars), symmetric(vars)],
            )
                .prop_map(|(values, rest)| {
                    let lets: String = values
                        .iter()
                        .enumerate()
                        .map(|(i, v)| format!("let v{i} = {v}; "))
                        .collect();
                    format!("{lets}{rest}")
                })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// Bindings rolled jointly (sorted where exchangeable) against running the roller on every
        /// sequence of dice.
        #[test]
        fn joint_bindings_match_brute_force(source in script()) {
            let options = omen_lang::Options::default();
            let prog = program(&source, &options);
            let brute = brute_force(&prog, &options.limits, 200_000).expect("small enough");
            prop_assert_eq!(exact_map(&prog, &options), brute, "{}", source);
        }
    }
}

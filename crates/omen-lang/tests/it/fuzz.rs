//! The fuzz harness: generated programs through the parser, the checker and both interpreters, under
//! small limits so that every case is quick. Nothing may panic; every error must be a diagnostic with
//! a span inside the source; and when both interpreters answer, the rolled value must be an outcome
//! the exact distribution gives a positive probability. The number of cases is bounded so it runs in
//! CI (set PROPTEST_CASES to run more).

use omen_core::{ChaChaDice, Limits};
use omen_lang::{Options, ParseLimits, compile, exact, sample};
use proptest::prelude::*;

/// Limits small enough that any generated program finishes in milliseconds.
fn small_options() -> Options {
    Options {
        limits: Limits {
            max_dice: 40,
            max_sides: 100,
            explode_depth: 3,
            max_outcomes: 20_000,
            max_states: 200_000,
            max_chain_states: 50,
            max_call_depth: 30,
            work_budget: 20_000_000,
            max_process_steps: 1_000,
            ..Limits::default()
        },
        parse: ParseLimits::default(),
        ..Options::default()
    }
}

/// The small limits, reading `dialect`.
fn in_dialect(dialect: &str) -> Options {
    Options {
        dialect: omen_lang::syntax::Dialect::named(dialect).expect("a dialect"),
        ..small_options()
    }
}

const DICE: &[&str] = &[
    "d6",
    "2d6",
    "3d4",
    "4d6kh3",
    "5d10kl2",
    "3d6dl1",
    "3d6dh1",
    "2d20kh1",
    "d%",
    "dF",
    "4dF",
    "3d6!",
    "2d6!!",
    "3d6rr1",
    "2d6r<2",
    "4d10>=7",
    "5d10>=8f1",
    "3d6min2",
    "3d6max5",
    "d{1,3,5}",
    "2d8!>=7",
    "6d6kh1",
    "10d20kl1",
    "0d6",
    "(d4)d6",
    "2d(d6)",
    "{d6, d8, 3}kh2",
    "{2d6, d10}",
    "{d4, d4}>=3",
];

/// Foundry terms as players write them: a count and sides written or rolled (in brackets), Fate
/// dice, and modifiers in any order (some run in turn, some Fate dice ignore, one unknown).
fn foundry_term() -> impl Strategy<Value = String> {
    let count = prop::sample::select(vec!["", "2", "(d3)", "(d3-1)", "(2d2-3)"]);
    let sides = prop::sample::select(vec!["4", "F", "f", "(d3+1)", "(d2-1)"]);
    let modifier = prop::sample::select(vec![
        "r", "rr1", "r1=1", "r<1", "x", "xo", "x2>=3", "x>=1", "kh", "dl", "min2", "max3", "cs>=3",
        "df", "sf<2", "ms>=4", "even", "zz",
    ]);
    (count, sides, prop::collection::vec(modifier, 0..4))
        .prop_map(|(c, s, m)| format!("{c}d{s}{}", m.concat()))
}

/// Avrae's terms whose operations run in turn: keeps, drops, rerolls, explosions and clamps with
/// every kind of selector, in any order.
fn d20_term() -> impl Strategy<Value = String> {
    let count = prop::sample::select(vec!["", "1", "3", "4"]);
    let sides = prop::sample::select(vec!["2", "3", "4", "%"]);
    let operation = prop::sample::select(vec![
        "kh1", "kl2", "k>2", "ph1", "pl1", "p<2", "rr1", "ro1", "ro<2", "ra1", "e3", "e>2", "eh1",
        "mi2", "ma3", "rol1", "roh1", "k2",
    ]);
    (count, sides, prop::collection::vec(operation, 0..4))
        .prop_map(|(c, s, m)| format!("{c}d{s}{}", m.concat()))
}

/// A dialect's terms: a count and sides, then words from `words` in any order, `joiner` between.
fn dialect_term(
    counts: Vec<&'static str>,
    sides: Vec<&'static str>,
    words: Vec<&'static str>,
    joiner: &'static str,
) -> impl Strategy<Value = String> {
    let count = prop::sample::select(counts);
    let side = prop::sample::select(sides);
    (
        count,
        side,
        prop::collection::vec(prop::sample::select(words), 0..4),
    )
        .prop_map(move |(c, s, m)| format!("{c}d{s}{joiner}{}", m.join(joiner)))
}

/// Expressions from a small grammar over dice, numbers, operators, calls, `if` and `let … in`.
fn expression() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        prop::sample::select(DICE).prop_map(str::to_string),
        (-3i64..20).prop_map(|n| n.to_string()),
        Just("true".to_string()),
        Just("x".to_string()),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            (
                inner.clone(),
                prop::sample::select(&["+", "-", "*", "/", ">=", "<", "=", "and", "or"][..]),
                inner.clone()
            )
                .prop_map(|(a, op, b)| format!("({a} {op} {b})")),
            prop::collection::vec(inner.clone(), 1..4)
                .prop_map(|args| format!("max({})", args.join(", "))),
            prop::collection::vec(inner.clone(), 1..4)
                .prop_map(|args| format!("min({})", args.join(", "))),
            inner.clone().prop_map(|a| format!("-{a}")),
            inner.clone().prop_map(|a| format!("abs({a})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("(if {c} then {a} else {b})")),
            (inner.clone(), inner.clone()).prop_map(|(v, b)| format!("(let x = {v} in {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}, {b}).0")),
        ]
    })
}

/// A script: a few `let`s and functions (one recursive, one a process step), then an expression.
fn script() -> impl Strategy<Value = String> {
    (
        expression(),
        expression(),
        prop::sample::select(
            &[
                "",
                "fn f(n) = if n <= 0 then d4 else f(n - 1) + 1;",
                "fn s(t) = if t >= 6 then t else t + d3;",
                "fn s(t) = if t >= 6 then t else t + d3; let a = absorb(s, 0);",
                "fn s(t) = min(t + d2, 5); let a = after(s, 0, 4);",
                "fn f(n) = if n <= 0 then 0 else -f(n - 1);",
            ][..],
        ),
        prop::sample::select(&["x", "f(3)", "a", "x + 1"][..]),
    )
        .prop_map(|(bound, body, prelude, tail)| {
            format!("let x = {bound}; {prelude} ({body}) + 0 * 0; {tail}")
        })
}

fn run_both(source: &str) -> Result<(), TestCaseError> {
    run_both_with(source, &small_options())
}

fn run_both_with(source: &str, options: &Options) -> Result<(), TestCaseError> {
    let compiled = match compile(source, options) {
        Ok(c) => c,
        Err(errors) => {
            prop_assert!(!errors.is_empty());
            for e in &errors {
                prop_assert!(e.span.start <= e.span.end && e.span.end <= source.len());
            }
            return Ok(());
        }
    };
    let exact = exact(&compiled.program, &options.limits);
    if let Err(e) = &exact {
        prop_assert!(e.span.end <= source.len(), "{e:?}");
    }
    for seed in 0..3 {
        let rolled = sample(
            &compiled.program,
            &options.limits,
            &mut ChaChaDice::from_seed(seed),
        );
        match (&exact, rolled) {
            (Ok(exact), Ok(roll)) => {
                let d = exact.distribution.values();
                prop_assert!(
                    d.outcomes().any(|v| *v == roll.result),
                    "`{source}` rolled {} which the exact distribution cannot give",
                    roll.result
                );
            }
            (_, Err(e)) => prop_assert!(e.span.end <= source.len(), "{e:?}"),
            (Err(_), Ok(_)) => {}
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn generated_expressions_run_on_both_interpreters(source in expression()) {
        run_both(&source)?;
    }

    #[test]
    fn generated_foundry_terms_run_on_both_interpreters(source in foundry_term()) {
        run_both_with(&source, &in_dialect("foundry"))?;
    }

    #[test]
    fn generated_roll20_terms_run_on_both_interpreters(source in dialect_term(
        vec!["", "3", "(d3)"],
        vec!["4", "6", "F", "(d3+1)"],
        vec!["r1", "r<2", "ro1", "!", "!!", "!p", "!>3", "kh2", "dl1", "k1", ">3", "<2", "f1", "cs4", "cf1", "s", "sd", "m", "mt"],
        "",
    )) {
        run_both_with(&source, &in_dialect("roll20"))?;
    }

    #[test]
    fn generated_dice_roller_terms_run_on_both_interpreters(source in dialect_term(
        vec!["", "3", "(d3)"],
        vec!["4", "6", "F", "%"],
        vec!["r", "ro<2", "u", "!", "!!", "!p", "kh2", "dl1", "d1", ">3", "f<2", "min2", "max3", "s", "sd", "cs>3"],
        "",
    )) {
        run_both_with(&source, &in_dialect("rpg-dice-roller"))?;
    }

    #[test]
    fn generated_dice_maiden_terms_run_on_both_interpreters(source in dialect_term(
        vec!["", "3", "4"],
        vec!["4", "6", "10"],
        vec!["e", "e6", "ie", "ie5", "k2", "kl1", "d1", "r1", "ir2", "t4", "t5", "f1", "b1", "ds6", "adv1", "dis1", "+1", "tl3"],
        " ",
    )) {
        run_both_with(&source, &in_dialect("dice-maiden"))?;
    }

    #[test]
    fn generated_d20_terms_run_on_both_interpreters(source in d20_term()) {
        run_both_with(&source, &in_dialect("avrae"))?;
    }

    #[test]
    fn generated_scripts_run_on_both_interpreters(source in script()) {
        run_both(&source)?;
    }
}

/// Every hostile input the limits must hold against, from the issue that found them: each either
/// answers or is refused with a named limit, under the default limits. (The CLI's tests run the same
/// inputs as whole processes under a memory cap.)
#[test]
fn the_hostile_corpus_is_answered_or_refused() {
    // Deep inputs need the stack the language asks its callers for.
    std::thread::Builder::new()
        .stack_size(omen_lang::STACK_BYTES)
        .spawn(hostile_corpus)
        .expect("a thread")
        .join()
        .expect("no panic");
}

fn hostile_corpus() {
    let options = Options::default();
    let lets = (0..2_700)
        .map(|i| format!("let a{i} = 1;"))
        .collect::<String>()
        + " a0";
    let unary = format!(
        "fn f(n) = if n <= 0 then 0 else {}f(n - 1); f(199)",
        "-".repeat(20)
    );
    let corpus = [
        "fn f(n) = if n <= 0 then d6 else f(n-1) + f(n-1); f(24)",
        "fn s(x) = x + d2; after(s, 0, 9223372036854775807)",
        "fn s(x) = 1 - x; after(s, 0, 9223372036854775807)",
        "let x1 = d6; let x2 = d6; let x3 = d6; let x4 = d6; let x5 = d6; let x6 = d6; let x7 = d6; let x8 = d6; let x9 = d6; x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9",
        "(d10000)d(d10000)",
        "10000d6rr1!",
        "1000d20kh1",
        "60d60u",
        "10000d1000000mt",
        "100d1000000dl3",
        "{100d6,99d6,100d6,100d6}dl3",
        &lets,
        &unary,
    ];
    for source in corpus {
        let compiled = compile(source, &options).expect("compiles");
        if let Err(e) = exact(&compiled.program, &options.limits) {
            assert!(
                [
                    "work-budget",
                    "too-many-chain-states",
                    "too-many-outcomes",
                    "too-many-states"
                ]
                .contains(&e.kind),
                "`{}`: {e:?}",
                &source[..source.len().min(60)]
            );
        }
        if let Err(e) = sample(
            &compiled.program,
            &options.limits,
            &mut ChaChaDice::from_seed(1),
        ) {
            assert!(
                ["work-budget", "too-many-steps", "too-much-output"].contains(&e.kind),
                "`{}`: {e:?}",
                &source[..source.len().min(60)]
            );
        }
    }
}

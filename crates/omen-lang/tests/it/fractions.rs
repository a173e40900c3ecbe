//! Real division and exact fractions: `div(a, b)` in Omen's notation, `/` and decimals in the
//! dialects that keep the fraction. The exact engine against expectations worked out here and against
//! brute-force enumeration of the roller; the roller's outcomes always lie in the exact support.

use num_bigint::BigInt;
use num_rational::Ratio;
use num_traits::Zero;
use omen_core::{ChaChaDice, Probability};
use omen_lang::syntax::Dialect;
use omen_lang::{Options, Value, compile, exact, sample};
use proptest::prelude::*;

use crate::support::{brute_force, exact_map, program};

fn r(n: i128, d: i128) -> Value {
    Value::ratio(n, d).expect("fits")
}

fn p(n: u32, d: u32) -> Probability {
    Probability::new(n.into(), d.into())
}

fn dialect(name: &str) -> Options {
    Options {
        dialect: Dialect::named(name).expect("a dialect"),
        ..Options::default()
    }
}

#[test]
fn half_a_d6_in_roll20_is_six_fractions_of_one_sixth_each() {
    let options = dialect("roll20");
    let checked = compile("1d6/2", &options).expect("compiles");
    assert_eq!(checked.reading, "div(1d6, 2)");
    let got = exact_map(&checked.program, &options);
    let want = (1..=6).map(|n| (r(n, 2), p(1, 6))).collect();
    assert_eq!(got, want);
    let result = exact(&checked.program, &options.limits).expect("exact");
    let stats = result.distribution.number_statistics().expect("numbers");
    assert_eq!(stats.mean, Ratio::new(BigInt::from(7), BigInt::from(4)));
    // Var(X/2) = Var(X)/4 = (35/12)/4
    assert_eq!(
        stats.variance,
        Ratio::new(BigInt::from(35), BigInt::from(48))
    );
    assert_eq!(stats.median, r(3, 2));
}

#[test]
fn fractions_compare_and_round_exactly() {
    // (source in Omen's notation, value, probability)
    let cases: &[(&str, &[(Value, Probability)])] = &[
        // 1d4/3 ≥ 1 when the die shows 3 or 4.
        (
            "div(1d4, 3) >= 1",
            &[(Value::Bool(false), p(1, 2)), (Value::Bool(true), p(1, 2))],
        ),
        // (x − 2)/2 for x = 1..4: −1/2, 0, 1/2, 1; rounded halves up: 0, 0, 1, 1.
        (
            "round(div(1d4 - 2, 2))",
            &[(r(0, 1), p(1, 2)), (r(1, 1), p(1, 2))],
        ),
        // d2 − 5 over 2 is −2 or −3/2; −3/2 rounds to −1 (halves up; away from zero would be −2).
        (
            "round(div(1d2 - 5, 2))",
            &[(r(-2, 1), p(1, 2)), (r(-1, 1), p(1, 2))],
        ),
        ("floor(div(1d2 - 5, 2))", &[(r(-2, 1), p(1, 1))]),
        (
            "ceil(div(1d2 - 5, 2))",
            &[(r(-2, 1), p(1, 2)), (r(-1, 1), p(1, 2))],
        ),
        (
            "sign(div(1d2 - 2, 3))",
            &[(r(-1, 1), p(1, 2)), (r(0, 1), p(1, 2))],
        ),
        // A fraction added to a fraction can be whole again: 1/2 + 1/2 = 1.
        (
            "div(1d2, 2) + div(1, 2)",
            &[(r(1, 1), p(1, 2)), (r(3, 2), p(1, 2))],
        ),
        // Omen's `/` on a fraction still rounds down; `%` is its remainder.
        ("div(7, 2) / 1", &[(r(3, 1), p(1, 1))]),
        ("div(7, 2) % 2", &[(r(3, 2), p(1, 1))]),
        (
            "max(div(1d2, 3), div(1, 2))",
            &[(r(1, 2), p(1, 2)), (r(2, 3), p(1, 2))],
        ),
        ("abs(div(-3, 4))", &[(r(3, 4), p(1, 1))]),
        ("div(1, 2) ^ 2", &[(r(1, 4), p(1, 1))]),
        (
            "match div(1d4, 2) { ..=1 => \"low\", _ => \"high\" }",
            &[
                (Value::text("high"), p(1, 2)),
                (Value::text("low"), p(1, 2)),
            ],
        ),
    ];
    let options = Options::default();
    for (source, want) in cases {
        let got = exact_map(&program(source, &options), &options);
        let want = want.iter().cloned().collect();
        assert_eq!(got, want, "{source}");
    }
}

#[test]
fn decimals_are_exact_fractions_where_the_dialect_allows_them() {
    for (name, source, reading) in [
        ("roll20", "1d20*1.5", "(1d20) * div(3, 2)"),
        ("foundry", "2.0*1d4", "2 * (1d4)"),
        ("avrae", "1d4+0.25", "(1d4) + div(1, 4)"),
        ("rpg-dice-roller", "1d4*0.125", "(1d4) * div(1, 8)"),
    ] {
        let options = dialect(name);
        let checked = compile(source, &options).expect("compiles");
        assert_eq!(checked.reading, reading, "{name}: {source}");
    }
    // In Omen's notation and Dice Maiden's a decimal is still an error with a hint.
    for name in ["omen", "dice-maiden"] {
        assert!(compile("1d20*1.5", &dialect(name)).is_err(), "{name}");
    }
    // Too many digits to hold exactly: an error, not a rounded value.
    let Err(errors) = compile("1.00000000000000000000001", &dialect("roll20")) else {
        panic!("too long to be held exactly");
    };
    assert_eq!(errors[0].kind, "number-too-large");
}

#[test]
fn division_by_zero_is_an_error_at_the_divisor_in_both_interpreters() {
    let options = Options::default();
    let Err(errors) = compile("div(1d6, 0)", &options) else {
        panic!("a constant zero divisor compiles");
    };
    assert_eq!(errors[0].kind, "division-by-zero");
    let source = "div(1d6, 1d2 - 1)";
    let checked = compile(source, &options).expect("compiles");
    let e = exact(&checked.program, &options.limits).expect_err("can be zero");
    assert_eq!(e.kind, "division-by-zero");
    assert_eq!(&source[e.span.start..e.span.end], "1d2 - 1");
    // The roller fails only on the roll that divides by zero, at the same span.
    let mut dice = omen_core::ScriptedDice::new(vec![3, 1]);
    let e = sample(&checked.program, &options.limits, &mut dice).expect_err("divides by 0");
    assert_eq!(e.kind, "division-by-zero");
    assert_eq!(&source[e.span.start..e.span.end], "1d2 - 1");
    let mut dice = omen_core::ScriptedDice::new(vec![3, 2]);
    let roll = sample(&checked.program, &options.limits, &mut dice).expect("divides by 1");
    assert_eq!(roll.result, Value::Int(3));
}

#[test]
fn a_fraction_where_a_whole_number_belongs_is_an_error() {
    let options = Options::default();
    for source in ["(div(3, 2))d6", "1d(div(13, 2))", "{div(1, 2), 1}>=1"] {
        let checked = compile(source, &options).expect("compiles");
        let e = exact(&checked.program, &options.limits).expect_err("a fraction");
        assert_eq!(e.kind, "type-mismatch", "{source}");
        assert!(
            e.message.contains("whole number"),
            "{source}: {}",
            e.message
        );
    }
    let e = compile("pow(2, div(1, 2))", &options)
        .map(|c| exact(&c.program, &options.limits))
        .expect("compiles")
        .expect_err("a fractional exponent");
    assert_eq!(e.kind, "fractional-exponent");
}

/// Small expressions in Roll20's notation with `/`, decimals and rounding.
fn fraction_expression() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        3 => (1..3u32, prop::sample::select(vec![2, 3, 4, 6])).prop_map(|(n, s)| format!("{n}d{s}")),
        1 => (1..9i64).prop_map(|n| n.to_string()),
        1 => prop::sample::select(vec!["0.5", "1.5", "2.25"]).prop_map(str::to_string),
    ];
    leaf.prop_recursive(3, 6, 2, |inner| {
        prop_oneof![
            (
                inner.clone(),
                prop::sample::select(vec!["+", "-", "*", "/"]),
                inner.clone()
            )
                .prop_map(|(a, op, b)| format!("({a}){op}({b})")),
            (
                prop::sample::select(vec!["floor", "ceil", "round", "abs"]),
                inner
            )
                .prop_map(|(f, a)| format!("{f}({a})")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    /// The exact distribution of a fraction-valued expression equals the roller's, enumerated over
    /// every sequence of dice; and seeded rolls only ever give outcomes in its support.
    #[test]
    fn exact_fractions_match_brute_force_and_the_roller(source in fraction_expression(), seed in 0..1000u64) {
        let options = dialect("roll20");
        let Ok(checked) = compile(&source, &options) else { return Ok(()) };
        let Ok(result) = exact(&checked.program, &options.limits) else {
            // Only a divisor that can be 0 has no distribution.
            prop_assert!(source.contains('/'), "{source}");
            return Ok(());
        };
        let d = result.distribution.values();
        let Some(brute) = brute_force(&checked.program, &options.limits, 5_000) else { return Ok(()) };
        prop_assert_eq!(&exact_map(&checked.program, &options), &brute, "{}", source);
        let mut dice = ChaChaDice::from_seed(seed);
        for _ in 0..20 {
            let roll = sample(&checked.program, &options.limits, &mut dice).expect("rolls");
            prop_assert!(!d.weight(&roll.result).is_zero(), "{source}: {} is impossible", roll.result);
        }
    }
}

/// Scripts whose bindings are rolled jointly compute their rest outcome by outcome: fractions there
/// agree with enumerating the roller.
#[test]
fn fractions_in_scripts_of_bindings_match_brute_force() {
    let options = Options::default();
    for source in [
        "let a = d4; let b = d4; div(a, 2) + div(b, 2)",
        "let a = d6; let b = d6; round(div(a + b, 4)) - min(a, b)",
        "let a = d4; let b = d4; let c = d4; max(div(a, b), div(c, 2))",
        "let a = d4; let b = d4; if div(a, b) > 1 then floor(div(a, b)) else ceil(div(b, a))",
    ] {
        let p = program(source, &options);
        let brute = brute_force(&p, &options.limits, 5_000).expect("few paths");
        assert_eq!(exact_map(&p, &options), brute, "{source}");
    }
    // Division by zero in the rest: the same error, at the divisor.
    let source = "let a = d4; let b = d2; div(a, b - 1)";
    let checked = compile(source, &options).expect("compiles");
    let e = exact(&checked.program, &options.limits).expect_err("can be zero");
    assert_eq!(e.kind, "division-by-zero");
    assert_eq!(&source[e.span.start..e.span.end], "b - 1");
}

/// Scripts whose bindings are evaluated jointly (the shared-work path for `let`s) do the same
/// fraction arithmetic as the general interpreter: checked against enumerating every roll.
#[test]
fn fractions_in_scripts_with_bindings_match_brute_force() {
    for source in [
        "let a = d4; let b = d4; div(a, 2) + b",
        "let a = d6; let b = d6; let c = d6; round(div(a + b + c - max(a, b, c), 3))",
        "let a = d4; let b = d3; min(div(a, 3), div(b, 2)) - -div(a, b)",
        "let a = d4; let b = d4; ceil(div(a, b)) * floor(div(b, a))",
    ] {
        let options = Options::default();
        let checked = compile(source, &options).expect(source);
        assert_eq!(
            exact_map(&checked.program, &options),
            brute_force(&checked.program, &options.limits, 100_000).expect("few enough rolls"),
            "{source}"
        );
    }
}

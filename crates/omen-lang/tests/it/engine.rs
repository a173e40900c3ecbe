//! The exact engine against brute-force enumeration of the sampler, on many small expressions.

use proptest::prelude::*;

use crate::support::{brute_force, exact_map, options_with_depth, program};

fn check(source: &str) {
    let options = options_with_depth(2);
    let p = program(source, &options);
    let Some(brute) = brute_force(&p, &options.limits, 20_000) else {
        return;
    };
    let exact = exact_map(&p, &options);
    assert_eq!(exact, brute, "exact and brute force disagree on `{source}`");
}

#[test]
fn fixed_expressions_match_brute_force() {
    for source in [
        "4d6kh3",
        "4d6dl1",
        "5d4km2",
        "4d4km1ro1",
        "4d6kh3dh1",
        "5d4kl4kh2",
        "4d4dh1dl1>=2",
        "4d6d1",
        "3d6kl2",
        "4d4dh2",
        "3d6!",
        "2d6!!",
        "2d4!>=3",
        "3d4!kh2",
        "3d4!dl1",
        "2d4!!kh1",
        "2d6ro1",
        "3d6ro<=2kh2",
        "2d6min2max5",
        "5d6>=5",
        "6d6>=5f1",
        "4d6>=5f<=2",
        "4d6kh2>=4",
        "3d4!>=4",
        "2d6!ro1",
        "2d4!min2",
        "2d4!p",
        "2d4!p>=3ro1",
        "3d4!p>=4",
        "2d4!!p>=3kh1",
        "2d4!p>=3>=3f1",
        "dF",
        "4dF",
        "3d{1,1,2,3}",
        "2d{-1..1,5}kh1",
        "(1d4)d6",
        "1d(1d4+1)",
        "(1d3)d4kh1",
        "{2d4, 1d4+2}kh1",
        "{1d6, 1d8, 1d4}kl2",
        "{3d4, 2d6}>=6",
        "{1d6, 1d6}d1",
        "{2d4, 2d4, 2d4}kh2",
        "{2d4, 2d4, 2d4}dl1",
        "{1d4-1, 1d4-1, 1d4-1, 1d4-1}kl3",
        "2d6+1d4-3",
        "1d6*1d4",
        "3d6/2",
        "-1d6/2",
        "1d10/1d3",
        "min(1d6, 1d6)",
        "max(1d8, 1d6, 3)",
        "abs(1d6-1d6)",
        "(2d6)>=7",
        "1d6 > 1d6",
        "(1d4)=(1d4)",
        "2d6[fire]+1d4[cold]",
        "0d6+2",
        "4d6kh0",
        "2d6kh5",
    ] {
        check(source);
    }
}

/// A small random dice term in the notation.
fn dice_term() -> impl Strategy<Value = String> {
    let count = prop_oneof![Just(String::new()), (0u8..=3).prop_map(|n| n.to_string())];
    let sides = prop_oneof![
        (1u8..=6).prop_map(|s| s.to_string()),
        Just("F".to_string()),
        Just("{1,1,3}".to_string()),
        Just("{-1..1,4}".to_string()),
    ];
    let step = prop_oneof![
        Just(String::new()),
        Just("ro1".to_string()),
        Just("ro<=2".to_string()),
        Just("min2".to_string()),
        Just("max3".to_string()),
    ];
    let explode = prop_oneof![
        3 => Just(String::new()),
        1 => Just("!".to_string()),
        1 => Just("!!".to_string()),
        1 => Just("!>=3".to_string()),
        1 => Just("!!p".to_string()),
    ];
    let keep = prop_oneof![
        Just(String::new()),
        (0u8..=3).prop_map(|n| format!("kh{n}")),
        (0u8..=3).prop_map(|n| format!("kl{n}")),
        (0u8..=3).prop_map(|n| format!("dh{n}")),
        (0u8..=3).prop_map(|n| format!("d{n}")),
    ];
    let count_mod = prop_oneof![
        2 => Just(String::new()),
        1 => Just(">=3".to_string()),
        1 => Just(">2f1".to_string()),
        1 => Just("<=1".to_string()),
    ];
    (count, sides, step, explode, keep, count_mod).prop_map(|(c, s, st, e, k, cm)| {
        // After a bare `!` (or `!!p`) a compare point is the explosion's own condition, not a count.
        let cm = if (e.ends_with('!') || e.ends_with('p')) && k.is_empty() {
            ""
        } else {
            &cm
        };
        format!("{c}d{s}{st}{e}{k}{cm}")
    })
}

fn expression() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        3 => dice_term(),
        1 => (-3i8..=3).prop_map(|n| n.to_string()),
    ];
    leaf.prop_recursive(2, 4, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}+{b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}-({b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a})*({b})")),
            inner.clone().prop_map(|a| format!("({a})/2")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("max({a},{b})")),
            inner.clone().prop_map(|a| format!("abs({a})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{{{a},{b}}}kh1")),
        ]
    })
}

/// A number, or (sometimes) a true/false comparison of two numbers at the top.
fn program_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => expression(),
        1 => (expression(), expression()).prop_map(|(a, b)| format!("({a})>=({b})")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_expressions_match_brute_force(source in program_text()) {
        check(&source);
    }
}

//! `:s` calls answered as readings of the pool: a body that reads its collection only through a
//! count, a position, the sum or the length gives, without enumerating rolls, exactly what running
//! it once per sorted roll gives. Each program is checked against itself with an empty loop put
//! first in the body (which the reading path does not take, so that copy is enumerated), and
//! against rolls enumerated here or a formula worked by hand.

use std::collections::BTreeMap;

use omen_core::{Limits, Probability};
use proptest::prelude::*;

use crate::anydice::{enumerate, only, run_with};

/// The same program with an empty loop first in the (first) function's body: the loop changes
/// nothing the body computes, and sends the call down the enumerating path.
pub fn enumerated(program: &str) -> String {
    assert!(program.starts_with("function:"), "{program}");
    let brace = program.find('{').expect("a body");
    format!(
        "{}{{ loop ENUMERATED over {{0}} {{ }}\n{}",
        &program[..brace],
        &program[brace + 1..]
    )
}

/// Both paths agree, and the answer is returned.
fn agreed(program: &str) -> BTreeMap<i64, Probability> {
    let read = only(program);
    assert_eq!(read, only(&enumerated(program)), "{program}");
    read
}

fn d(sides: i64) -> Vec<i64> {
    (1..=sides).collect()
}

fn sorted_desc(roll: &[i64]) -> Vec<i64> {
    let mut r = roll.to_vec();
    r.sort_unstable_by(|a, b| b.cmp(a));
    r
}

#[test]
fn a_count_of_a_value() {
    let t = agreed("function: sixes S:s { result: [count 6 in S] }\noutput [sixes 4d6]");
    assert_eq!(
        t,
        enumerate(4, &d(6), |r| Some(
            r.iter().filter(|&&x| x == 6).count() as i64
        ))
    );
}

#[test]
fn successes_minus_ones_against_a_fixed_target() {
    // A target from a number parameter: hits at or over it, less the ones.
    let program =
        "function: hits S:s over T:n { result: (S >= T) - (S = 1) }\noutput [hits 5d6 over 4]";
    assert_eq!(
        agreed(program),
        enumerate(5, &d(6), |r| Some(
            r.iter().filter(|&&x| x >= 4).count() as i64
                - r.iter().filter(|&&x| x == 1).count() as i64
        ))
    );
    // The number on the left counts the dice it beats: 3 < S is S > 3.
    let program = "function: f S:s { result: 3 < S }\noutput [f 4d6]";
    assert_eq!(
        agreed(program),
        enumerate(4, &d(6), |r| Some(
            r.iter().filter(|&&x| x > 3).count() as i64
        ))
    );
    let program = "function: f S:s { result: (S != 2) * 10 + (S <= 2) }\noutput [f 3d4]";
    assert_eq!(
        agreed(program),
        enumerate(3, &d(4), |r| Some(
            r.iter().filter(|&&x| x != 2).count() as i64 * 10
                + r.iter().filter(|&&x| x <= 2).count() as i64
        ))
    );
}

#[test]
fn positions_branches_and_the_position_order() {
    // Doubles on the two highest dice score their sum, else the highest die.
    let program =
        "function: f S:s { if 1@S = 2@S { result: 1@S + 2@S } result: 1@S }\noutput [f 3d6]";
    let expected = enumerate(3, &d(6), |r| {
        let s = sorted_desc(r);
        Some(if s[0] == s[1] { s[0] + s[1] } else { s[0] })
    });
    assert_eq!(agreed(program), expected);
    // Lowest first, position 1 is the lowest die.
    let program = "set \"position order\" to \"lowest first\"\nfunction: f S:s { result: 1@S * 10 + 3@S }\noutput [f 3d4]";
    let expected = enumerate(3, &d(4), |r| {
        let s = sorted_desc(r);
        Some(s[2] * 10 + s[0])
    });
    let read = only(program);
    let forced = only(&program.replacen("S:s {", "S:s { loop E over {0} { }\n", 1));
    assert_eq!(read, forced);
    assert_eq!(read, expected);
    // A position past the dice is 0; a position list from a variable is summed.
    let program = "function: f S:s { result: 4@S + P@S }\nP: {1, 3, 3}\noutput [f 3d4]";
    let expected = enumerate(3, &d(4), |r| {
        let s = sorted_desc(r);
        Some(s[0] + 2 * s[2])
    });
    assert_eq!(agreed(program), expected);
}

#[test]
fn the_empty_die_and_a_body_without_result_drop_the_roll() {
    // Rolls with a 1 are dropped (d{} or no result), the rest renormalised: the sum of 2d4 given
    // no die shows 1 is the sum of 2d{2,3,4}.
    for body in [
        "if [S contains 1] { result: d{} } result: S",
        "if !(S = 1) { result: S }",
    ] {
        let program = format!("function: f S:s {{ {body} }}\noutput [f 2d4]");
        let expected = enumerate(2, &[2, 3, 4], |r| Some(r.iter().sum()));
        assert_eq!(agreed(&program), expected, "{body}");
    }
}

#[test]
fn numbers_from_the_callers_frame_and_the_length() {
    // Dynamic scope: T is the caller's variable when the call runs; #S is the number of dice.
    let program = "function: f S:s { result: [count V in S] * #S + T + -S + !S }\nT: 5\nV: {6, 6, 1}\noutput [f 3d6]";
    let expected = enumerate(3, &d(6), |r| {
        let count = |v: i64| r.iter().filter(|&&x| x == v).count() as i64;
        let sum: i64 = r.iter().sum();
        Some((2 * count(6) + count(1)) * 3 + 5 - sum)
    });
    assert_eq!(agreed(program), expected);
}

#[test]
fn twenty_d20_counts_its_twenties_without_enumerating() {
    // 20d20 has C(39, 19) = 68,923,264,410 sorted rolls, past --max-states: only the reading
    // path answers. P(k twenties) = C(20, k) · 19^(20 − k) / 20^20, by the binomial law.
    let program = "function: crits S:s { result: [count 20 in S] }\noutput [crits 20d20]";
    let t = only(program);
    let mut choose = 1u128;
    for k in 0..=20u32 {
        let n = choose * 19u128.pow(20 - k);
        let expected = Probability::new(n.into(), 20u128.pow(20).into());
        assert_eq!(t[&i64::from(k)], expected, "P({k} twenties)");
        choose = choose * u128::from(20 - k) / u128::from(k + 1);
    }
    let refused = run_with(&enumerated(program), Limits::default());
    assert!(refused.is_err(), "the enumerating path refuses 20d20");
}

#[test]
fn variables_assigned_at_the_top_of_the_body() {
    let program = "function: f S:s { N: [count 6 in S] H: 1@S if N >= 2 { result: H * 10 + N } result: H }\noutput [f 4d6]";
    let expected = enumerate(4, &d(6), |r| {
        let sixes = r.iter().filter(|&&x| x == 6).count() as i64;
        let high = *r.iter().max().unwrap();
        Some(if sixes >= 2 { high * 10 + sixes } else { high })
    });
    assert_eq!(agreed(program), expected);
    // Read by the pool: 40d6 has 1,221,759 sorted rolls, past the limit on a call's runs.
    let big = only(&program.replace("4d6", "40d6"));
    // Only forty 1s give 1 (no six, the highest a 1): 6^-40.
    let all_ones = Probability::new(
        1u8.into(),
        num_traits::pow(omen_core::Weight::from(6u8), 40),
    );
    assert_eq!(big[&1], all_ones);
    // A variable read before the body assigns it sees, in AnyDice's shared frame, what the
    // previous roll left: that body is enumerated, in AnyDice's order.
    let program =
        "function: f S:s { if N = 4 { result: 100 } N: 1@S result: N }\nN: 0\noutput [f 2d4]";
    assert_eq!(only(program), only(&enumerated(program)));
    // So is one assigned in a branch, which not every roll runs.
    let program = "function: f S:s { if 1@S > 2 { N: 1 } result: N }\nN: 0\noutput [f 2d4]";
    assert_eq!(only(program), only(&enumerated(program)));
}

#[test]
fn a_body_that_needs_each_roll_is_still_enumerated() {
    // A loop over the roll: not a reading, so enumerated, and still right.
    let program =
        "function: f S:s { N: 0 loop X over S { if X > N { N: X } } result: N }\noutput [f 3d4]";
    let expected = enumerate(3, &d(4), |r| r.iter().max().copied());
    assert_eq!(only(program), expected);
    // A comparison with a number that varies with the roll: enumerated.
    let program = "function: f S:s { result: S > 1@S }\noutput [f 3d4]";
    let expected = enumerate(3, &d(4), |r| {
        let top = *r.iter().max().unwrap();
        Some(r.iter().filter(|&&x| x > top).count() as i64)
    });
    assert_eq!(only(program), expected);
}

/// A number the body computes from its collection `S`, the caller's `T` and small numbers.
pub fn body_expression() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("S".to_string()),
        (1i64..4).prop_map(|p| format!("{p}@S")),
        Just("#S".to_string()),
        (1i64..5).prop_map(|v| format!("[count {v} in S]")),
        (1i64..5).prop_map(|v| format!("[S contains {v}]")),
        (1i64..5, 0usize..6).prop_map(|(v, op)| {
            let op = ["=", "!=", "<", ">", "<=", ">="][op];
            format!("(S {op} {v})")
        }),
        (1i64..5).prop_map(|v| format!("({v} < S)")),
        (0i64..4).prop_map(|n| n.to_string()),
        Just("T".to_string()),
        Just("N".to_string()),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone(), 0usize..8).prop_map(|(a, b, op)| {
                let op = ["+", "-", "*", "/", ">", "=", "&", "|"][op];
                format!("({a} {op} {b})")
            }),
            inner.clone().prop_map(|a| format!("!{a}")),
            inner.prop_map(|a| format!("-{a}")),
        ]
    })
}

/// The program's only output, or `None` for the empty die; errors as their messages.
pub fn outcome(program: &str) -> Result<Option<omen_core::Distribution<i64>>, String> {
    match run_with(program, Limits::default()) {
        Ok(mut run) => Ok(run.outputs.remove(0).distribution),
        Err(errors) => Err(errors[0].message.clone()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_read_body_agrees_with_its_enumeration(
        assigned in body_expression(),
        condition in body_expression(),
        value in body_expression(),
        otherwise in body_expression(),
        drop in any::<bool>(),
        count in 1usize..5,
        sides in 2i64..6,
        lowest_first in any::<bool>(),
    ) {
        let branch = if drop { "d{}".to_string() } else { value };
        let order = if lowest_first { "set \"position order\" to \"lowest first\"\n" } else { "" };
        let program = format!(
            "function: f S:s {{ N: {assigned} if {condition} {{ result: {branch} }} result: {otherwise} }}\nT: 2\nN: 1\n{order}output [f {count}d{sides}]"
        );
        prop_assert_eq!(outcome(&program), outcome(&enumerated(&program)), "{}", program);
    }
}

//! A `:s` call with a second expanded argument, a `:n` parameter given a die: answered by one
//! reading of the pool per outcome of that die (so a comparison or a position may vary with it),
//! exactly as running the body once per combination of the number's outcomes and the pool's
//! sorted rolls. Each program is checked against every roll enumerated here (the number's die and
//! the pool's dice rolled together, all combinations equally likely) and against its own
//! enumerating path.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use omen_core::{Limits, Probability, Weight};
use proptest::prelude::*;

use crate::anydice::{every_roll, only, p, run_with};
use crate::anydice_pool_call::{body_expression, enumerated, outcome};

/// Every roll of the number's dice (`number_count` dice with `number_faces`, summed, as a `:n`
/// parameter sums a pool) with every roll of the collection's `count` dice, equally likely, the
/// body `f(number, roll sorted highest first)` giving a value or dropping the combination.
fn enumerate_both(
    number_count: usize,
    number_faces: &[i64],
    count: usize,
    faces: &[i64],
    f: impl Fn(i64, &[i64]) -> Option<i64>,
) -> BTreeMap<i64, Probability> {
    let mut counts: BTreeMap<i64, u64> = BTreeMap::new();
    let mut total = 0;
    for number in every_roll(number_count, number_faces) {
        let number: i64 = number.iter().sum();
        for roll in every_roll(count, faces) {
            let mut sorted = roll.clone();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            if let Some(v) = f(number, &sorted) {
                *counts.entry(v).or_default() += 1;
                total += 1;
            }
        }
    }
    counts.into_iter().map(|(v, c)| (v, p(c, total))).collect()
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

fn at_least(roll: &[i64], target: i64) -> i64 {
    roll.iter().filter(|&&x| x >= target).count() as i64
}

#[test]
fn a_target_rolled_on_a_die_varies_the_comparison() {
    let program = "function: hits S:s over T:n { result: S >= T }\noutput [hits 3d6 over d4]";
    let expected = enumerate_both(1, &d(4), 3, &d(6), |t, r| Some(at_least(r, t)));
    assert_eq!(agreed(program), expected);
    // The number on the left, and a count of the value rolled.
    let program = "function: f S:s with T:n { result: (T < S) * 10 + [count T in S] }\noutput [f 3d4 with d3]";
    let expected = enumerate_both(1, &d(3), 3, &d(4), |t, r| {
        let above = r.iter().filter(|&&x| x > t).count() as i64;
        Some(above * 10 + r.iter().filter(|&&x| x == t).count() as i64)
    });
    assert_eq!(agreed(program), expected);
}

#[test]
fn a_position_rolled_on_a_die() {
    // P@S with P rolled: the P-th highest die; the order setting flips it to the P-th lowest.
    let program = "function: pick P:n of S:s { result: P@S }\noutput [pick d4 of 4d6]";
    let expected = enumerate_both(1, &d(4), 4, &d(6), |p, r| Some(r[p as usize - 1]));
    assert_eq!(agreed(program), expected);
    let lowest = program.replace(
        "\noutput",
        "\nset \"position order\" to \"lowest first\"\noutput",
    );
    let expected = enumerate_both(1, &d(4), 4, &d(6), |p, r| Some(r[r.len() - p as usize]));
    assert_eq!(agreed(&lowest), expected);
}

#[test]
fn an_empty_result_drops_the_combination_over_every_outcome_together() {
    // With T = 1 the roll is dropped: the rest are renormalised over all of T's other outcomes
    // and the rolls together, not within each T.
    let program = "function: f S:s with T:n { if T = 1 & 1@S < 3 { result: d{} } result: [count T in S] }\noutput [f 3d4 with d3]";
    let expected = enumerate_both(1, &d(3), 3, &d(4), |t, r| {
        (!(t == 1 && r[0] < 3)).then(|| r.iter().filter(|&&x| x == t).count() as i64)
    });
    assert_eq!(agreed(program), expected);
}

#[test]
fn a_pool_for_the_number_is_its_sum_and_uneven_faces_weigh() {
    // 2d2 for T: 2, 3, 4 with weights 1, 2, 1, as the enumeration rolls both dice.
    let program = "function: hits S:s over T:n { result: S >= T }\noutput [hits 3d4 over 2d2]";
    let expected = enumerate_both(2, &d(2), 3, &d(4), |t, r| Some(at_least(r, t)));
    assert_eq!(agreed(program), expected);
    // d{1,1,3}: 1 twice as likely as 3.
    let program = "function: hits S:s over T:n { result: S >= T }\noutput [hits 2d4 over d{1,1,3}]";
    let expected = enumerate_both(1, &[1, 1, 3], 2, &d(4), |t, r| Some(at_least(r, t)));
    assert_eq!(agreed(program), expected);
}

#[test]
fn twenty_d20_against_a_d20_target_without_enumerating() {
    // 20d20 has 68,923,264,410 sorted rolls: the enumerating path refuses it, the reading path
    // walks it once per target. By the binomial law, for a target t each die hits with
    // q = (21 − t)/20, so P(k hits) = Σ_t 1/20 · C(20, k) q^k (1 − q)^(20 − k).
    let program = "function: hits S:s over T:n { result: S >= T }\noutput [hits 20d20 over d20]";
    let started = Instant::now();
    let answer = only(program);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    let mut expected: BTreeMap<i64, Probability> = BTreeMap::new();
    for t in 1..=20u64 {
        let q = Probability::new((21 - t).into(), 20u8.into());
        let miss = Probability::new(1u8.into(), 1u8.into()) - &q;
        let mut choose = Weight::from(1u8);
        for k in 0..=20u64 {
            let term = Probability::new(choose.clone(), 20u8.into())
                * num_traits::pow(q.clone(), k as usize)
                * num_traits::pow(miss.clone(), (20 - k) as usize);
            let entry = expected
                .entry(k as i64)
                .or_insert_with(|| Probability::new(0u8.into(), 1u8.into()));
            *entry = &*entry + &term;
            choose = choose * Weight::from(20 - k) / Weight::from(k + 1);
        }
    }
    expected.retain(|_, v| *v != Probability::new(0u8.into(), 1u8.into()));
    assert_eq!(answer, expected);
    assert!(run_with(&enumerated(program), Limits::default()).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_read_body_with_an_expanded_number_agrees_with_its_enumeration(
        assigned in body_expression(),
        condition in body_expression(),
        value in body_expression(),
        otherwise in body_expression(),
        drop in any::<bool>(),
        count in 1usize..4,
        sides in 2i64..5,
        number_sides in 1i64..4,
        lowest_first in any::<bool>(),
    ) {
        let branch = if drop { "d{}".to_string() } else { value };
        let order = if lowest_first { "set \"position order\" to \"lowest first\"\n" } else { "" };
        let program = format!(
            "function: f S:s with T:n {{ N: {assigned} if {condition} {{ result: {branch} }} result: {otherwise} }}\nN: 1\n{order}output [f {count}d{sides} with d{number_sides}]"
        );
        let read = outcome(&program);
        // The iterations of one expanded call share its frame (AnyDice's own rule), so a body that
        // writes `N: #S * N` multiplies N once per roll of the pool: 3d4's 64 rolls pass 64 bits.
        // Then both paths must refuse alike; any other refusal is a defect.
        let overflowed = read.as_ref().is_err_and(|e| e.contains("overflow"));
        prop_assert!(read.is_ok() || overflowed, "{}: {:?}", program, read);
        prop_assert_eq!(read, outcome(&enumerated(&program)), "{}", program);
    }
}

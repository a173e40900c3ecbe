//! What the seed's Appendix C and D programs print, kept in `tests/golden/*.txt` (the figures only, not
//! the programs): the Rust tables must match that output byte for byte (000-M5, M12, M13).

use num_integer::Integer;
use num_traits::Zero;
use omen_core::{Probability, Weight};
use omen_rules::ritual::{essence_table, lore_table};

use crate::support::{d6_sum_at_least, one, ratio};

/// The first line where two texts differ, for a readable failure.
fn first_difference(expected: &str, actual: &str) -> String {
    let mismatch = expected
        .split_inclusive('\n')
        .zip(actual.split_inclusive('\n'))
        .enumerate()
        .find(|(_, (e, a))| e != a);
    match mismatch {
        Some((i, (e, a))) => format!("line {}:\nexpected {e:?}\n  actual {a:?}", i + 1),
        None => format!(
            "lengths differ: expected {} bytes, got {}",
            expected.len(),
            actual.len()
        ),
    }
}

fn assert_same(expected: &str, actual: &str) {
    assert!(expected == actual, "{}", first_difference(expected, actual));
}

#[test]
fn m5_lore_table_matches_appendix_c_output() {
    let golden = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/lore_table.txt"
    ));
    assert_eq!(golden.lines().count(), 15);
    assert_same(golden, &lore_table());
}

#[test]
fn m12_m13_essence_table_matches_appendix_d_output() {
    let golden = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/essence_table.txt"
    ));
    // Three pages (a blank line, a header, a bar) and the 63 rows of E000-3.
    assert_eq!(golden.lines().count(), 72);
    assert_eq!(golden.lines().filter(|l| l.is_empty()).count(), 3);
    assert_eq!(golden.lines().filter(|l| l.starts_with("| TN ")).count(), 3);
    assert_same(golden, &essence_table());
}

/// Distance of `p` × 10⁴ from the nearest rounding boundary of `%.2f` on `p` × 100, in units of the
/// last printed digit (0 for an exact tie).
fn distance_to_boundary(p: &Probability) -> Probability {
    let scaled = p * Probability::from_integer(Weight::from(10_000u32));
    let fraction = scaled.fract();
    let half = ratio(1, 2);
    if fraction >= half {
        fraction - half
    } else {
        half - fraction
    }
}

/// The programs round doubles, Omen rounds exact fractions: they agree unless a value lies within the
/// doubles' error (far below 10⁻¹⁰ of a digit here) of a rounding boundary. Only one cell of either
/// table is that close, an exact tie: 5 dice against difficulty 4, 31/32 = 96.875 %, which the double
/// holds exactly (1 − 0.5⁵) and both round to even, 96.88 %.
#[test]
fn m13_no_printed_value_is_near_a_rounding_boundary() {
    let margin = ratio(1, 1_000_000);
    let mut ties = Vec::new();
    let mut check = |what: String, p: Probability| {
        let distance = distance_to_boundary(&p);
        if distance.is_zero() {
            ties.push((what, p));
        } else {
            assert!(
                distance > margin,
                "{what} = {p} is near a rounding boundary"
            );
        }
    };
    for pool in 0..=12u32 {
        for difficulty in 2..=6u64 {
            let p = ratio(7 - difficulty, 6);
            let success = if pool == 0 {
                &p * &p
            } else {
                one() - num_traits::pow(one() - p, pool as usize)
            };
            check(format!("lore {pool}d vs {difficulty}"), success);
        }
    }
    for dice in 1..=24 {
        for target in (3..=144).step_by(3) {
            check(
                format!("essence {dice}D vs {target}"),
                d6_sum_at_least(dice, target),
            );
        }
    }
    assert_eq!(ties, vec![("lore 5d vs 4".to_string(), ratio(31, 32))]);
    assert!(ratio(31, 32).denom().is_even());
    assert!(lore_table().contains("  5d |  99.99% |  99.59% |  96.88% |"));
}

/// Appendix D skips a row when |P(first dice ≥ TN) − 1| < 1e-4 or P(last dice ≥ TN) < 1e-4 in doubles;
/// Omen decides exactly. No value is within 10⁻¹⁰ of the cut, so the decisions coincide.
#[test]
fn m13_row_rule_is_never_a_close_call() {
    let cut = ratio(1, 10_000);
    let close = ratio(1, 10_000_000_000);
    for dice in 1..=24 {
        for target in (3..=144).step_by(3) {
            let p = d6_sum_at_least(dice, target);
            for value in [one() - &p, p] {
                let gap = if value >= cut {
                    &value - &cut
                } else {
                    &cut - &value
                };
                assert!(gap > close, "{dice}D vs {target}");
            }
        }
    }
}

/// E000-1: "100.00%" cells are rounded, not certain.
#[test]
fn e000_1_hundred_percent_cells_are_rounded() {
    let p = omen_rules::ritual::LoreCheck::from_pool(
        6,
        omen_rules::ritual::Difficulty::new(2).unwrap(),
        &omen_core::Limits::default(),
    )
    .unwrap()
    .success_probability(&omen_core::Limits::default())
    .unwrap();
    assert_eq!(p, ratio(46655, 46656));
    assert!(lore_table().contains("  6d | 100.00% |"));
}

/// E000-2: a cell is blank exactly when TN > 6N (probability exactly 0), e.g. 1D vs TN 9.
#[test]
fn e000_2_blank_cells_are_impossible_totals() {
    let table = essence_table();
    let row = table.lines().find(|l| l.starts_with("|   9 ")).unwrap();
    assert_eq!(
        row,
        "|   9 |         |  27.78% |  74.07% |  94.60% |  99.28% |  99.94% | 100.00% | 100.00% |"
    );
    assert!(d6_sum_at_least(1, 9).is_zero());
    assert!(!d6_sum_at_least(2, 9).is_zero());
}

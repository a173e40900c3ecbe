//! Helpers shared by the test modules: exact fractions built independently of the code under test.

use std::path::PathBuf;

use omen_core::{Probability, Weight};

pub fn ratio(numerator: u64, denominator: u64) -> Probability {
    Probability::new(Weight::from(numerator), Weight::from(denominator))
}

pub fn one() -> Probability {
    ratio(1, 1)
}

/// A figures file of this crate's `tests/fixtures` directory: numbers and names the tests compare
/// against, taken from the seeds and the spec without their prose.
pub fn read_fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Ways to roll each sum with `dice` d6, by direct convolution in machine integers (6^24 < 2^63, so
/// u128 never overflows here): index = sum.
pub fn d6_sum_counts(dice: usize) -> Vec<u128> {
    let mut counts = vec![1u128];
    for _ in 0..dice {
        let mut next = vec![0u128; counts.len() + 6];
        for (sum, &ways) in counts.iter().enumerate() {
            for face in 1..=6 {
                next[sum + face] += ways;
            }
        }
        counts = next;
    }
    counts
}

/// P(sum of `dice` d6 ≥ `target`) from [`d6_sum_counts`].
pub fn d6_sum_at_least(dice: usize, target: i64) -> Probability {
    let counts = d6_sum_counts(dice);
    let total: u128 = counts.iter().sum();
    let from = usize::try_from(target.max(0)).unwrap();
    let ways: u128 = counts.iter().skip(from).sum();
    Probability::new(Weight::from(ways), Weight::from(total))
}

//! The approximate mode, asked for by name (`omen prob --dialect anydice --approximate DIGITS`):
//! for programs whose exact weights run away (a die mixed with itself each round squares its
//! total, so its digits double), weights are rounded to a fixed number of significant bits where a
//! value is kept (an assignment, a `result:`, an expanded call's answer, an output), and the run
//! warns that its answer is approximate and where it was first rounded. Without it every answer is
//! exact; AnyDice's floats do the same rounding silently.

use num_traits::Zero;
use omen_core::{CoreError, Distribution, Weight};

/// How a program's probabilities are kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// Exact fractions (the default).
    #[default]
    Exact,
    /// About this many significant decimal digits: weights rounded where a value is kept.
    Digits(u32),
}

/// The most digits the approximate mode keeps: past it, ask for exact answers.
pub const MAX_DIGITS: u32 = 1_000;

impl Precision {
    /// The significant bits kept: the digits' bits and 8 more, so that rounding at many places
    /// still leaves the digits asked for on ordinary programs.
    pub fn bits(self) -> Option<u64> {
        match self {
            Precision::Exact => None,
            // log2(10) < 3.33: 10 bits for every 3 digits, and 8 to spare.
            Precision::Digits(d) => Some(u64::from(d.min(MAX_DIGITS)) * 10 / 3 + 8),
        }
    }
}

/// `d` with its weights rounded to `bits` significant bits of its total, or `None` when the total
/// already fits. Each weight is rounded to the nearest multiple of a power of two, then divided by
/// it; an outcome whose weight rounds to nothing is dropped (its probability is below the
/// precision).
pub fn round(d: &Distribution<i64>, bits: u64) -> Result<Option<Distribution<i64>>, CoreError> {
    let total_bits = d.total().bits();
    if total_bits <= bits {
        return Ok(None);
    }
    let shift = total_bits - bits;
    let half = Weight::from(1u8) << (shift - 1);
    let entries: Vec<(i64, Weight)> = d
        .entries()
        .iter()
        .map(|(o, w)| (*o, (w + &half) >> shift))
        .filter(|(_, w)| !w.is_zero())
        .collect();
    if entries.is_empty() {
        return Ok(None);
    }
    Distribution::from_weights(entries).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_keeps_the_leading_bits_and_drops_what_falls_below() {
        // Weights 1, 2^20 and 3·2^20 (total 2^22 + 1, 23 bits) to 4 bits: shift 19, so
        // 1 → 0 (dropped), 2^20 → 2, 3·2^20 → 6.
        let d = Distribution::from_weights([
            (1, Weight::from(1u8)),
            (2, Weight::from(1u32 << 20)),
            (3, Weight::from(3u32 << 20)),
        ])
        .unwrap();
        let r = round(&d, 4).unwrap().unwrap();
        assert_eq!(
            r.entries(),
            &[(2, Weight::from(2u8)), (3, Weight::from(6u8))]
        );
        assert!(round(&r, 4).unwrap().is_none(), "a small total is kept");
    }

    #[test]
    fn digits_become_bits_with_room_to_spare() {
        assert_eq!(Precision::Exact.bits(), None);
        assert_eq!(Precision::Digits(30).bits(), Some(108));
        assert!(Precision::Digits(30).bits().unwrap() as f64 >= 30.0 * 10f64.log2());
    }
}

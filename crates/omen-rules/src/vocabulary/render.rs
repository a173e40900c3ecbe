//! Rendering exact values the way the seeds' programs print their floating-point ones.
//!
//! The seeds' tables come from programs that compute with doubles and print with C's `printf`
//! (`%6.2f`). Omen renders the exact fraction instead and rounds it the way `printf` rounds: to the
//! nearest, ties to even (glibc rounds the binary value exactly in the default rounding mode). That
//! reproduces the printed text whenever the double and the exact value round alike, which holds when
//! the exact value is not within the double's error of a rounding boundary; the golden tests pin this
//! for every printed cell.

use num_integer::Integer;
use num_traits::{One, Zero};
use omen_core::{Probability, Weight};

/// `value` rounded to `decimals` places, as `printf("%.*f", decimals, value)` prints it: to the
/// nearest, exact ties to the even last digit; no padding.
pub fn fixed_decimal(value: &Probability, decimals: usize) -> String {
    let scaled = value * Probability::from_integer(num_traits::pow(Weight::from(10u32), decimals));
    let (mut rounded, remainder) = scaled.numer().div_rem(scaled.denom());
    let twice = remainder * 2u32;
    let round_up = match twice.cmp(scaled.denom()) {
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Equal => rounded.is_odd(),
    };
    if round_up {
        rounded += Weight::one();
    }
    let digits = format!("{rounded:0>width$}", width = decimals + 1);
    let (whole, fraction) = digits.split_at(digits.len() - decimals);
    if decimals == 0 {
        whole.to_string()
    } else {
        format!("{whole}.{fraction}")
    }
}

/// A probability as a percentage with two decimals, `printf(" %6.2f%% ", p * 100)`, or nine spaces
/// for a probability of exactly 0 (the seeds' programs leave impossible cells blank).
pub fn percent_cell(p: &Probability) -> String {
    if p.is_zero() {
        return " ".repeat(9);
    }
    let percent = p * Probability::from_integer(Weight::from(100u32));
    format!(" {:>6}% ", fixed_decimal(&percent, 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ratio(n: u64, d: u64) -> Probability {
        Probability::new(Weight::from(n), Weight::from(d))
    }

    #[test]
    fn rounds_to_nearest_with_ties_to_even() {
        assert_eq!(fixed_decimal(&ratio(96875, 1000), 2), "96.88");
        assert_eq!(fixed_decimal(&ratio(96865, 1000), 2), "96.86");
        assert_eq!(fixed_decimal(&ratio(1, 3), 2), "0.33");
        assert_eq!(fixed_decimal(&ratio(2, 3), 2), "0.67");
        assert_eq!(fixed_decimal(&ratio(5, 2), 0), "2");
        assert_eq!(fixed_decimal(&ratio(7, 2), 0), "4");
        assert_eq!(fixed_decimal(&ratio(0, 1), 2), "0.00");
        assert_eq!(fixed_decimal(&ratio(99999, 1000), 2), "100.00");
    }

    #[test]
    fn percent_cells_are_nine_wide() {
        assert_eq!(percent_cell(&ratio(1, 1)), " 100.00% ");
        assert_eq!(percent_cell(&ratio(1, 36)), "   2.78% ");
        assert_eq!(percent_cell(&ratio(1, 1_000_000)), "   0.00% ");
        assert_eq!(percent_cell(&ratio(0, 1)), "         ");
    }
}

//! Floats for display from exact ratios of any size: the conversion is omen-core's
//! `ratio_to_f64`, which keeps each side's own leading bits, so a huge value over a small
//! denominator (the variance of `1d6*10000000000`) is finite.

use num_bigint::BigInt;
use num_rational::Ratio;
pub use omen_core::ratio_to_f64;

/// `value` to `places` decimals; past 10¹⁵ in scientific notation, since a float has no more
/// digits to show (`2.9167e20`, not `291666666666666655744.0000`).
pub fn approximate(value: f64, places: usize) -> String {
    if value.is_finite() && value.abs() >= 1e15 {
        format!("{value:.places$e}")
    } else {
        format!("{value:.places$}")
    }
}

/// A positive fraction `num/den` too small for a float, in scientific notation from the leading digits
/// of each side.
pub fn tiny(fraction: &str, places: usize) -> String {
    let Some((numerator, denominator)) = fraction.split_once('/') else {
        return fraction.to_string();
    };
    let lead = |digits: &str| -> (f64, i64) {
        let kept = &digits[..digits.len().min(17)];
        let value: f64 = kept.parse().unwrap_or(f64::NAN);
        (value, (digits.len() - kept.len()) as i64)
    };
    let (n, n_shift) = lead(numerator);
    let (d, d_shift) = lead(denominator);
    let ratio = n / d;
    let mut exponent = n_shift - d_shift + ratio.log10().floor() as i64;
    let mut mantissa = ratio / 10f64.powi(ratio.log10().floor() as i32);
    if format!("{mantissa:.*}", places - 1).starts_with("10") {
        mantissa /= 10.0;
        exponent += 1;
    }
    format!("{mantissa:.*}e{exponent}", places - 1)
}

/// The standard deviation from an exact variance.
pub fn standard_deviation(variance: &Ratio<BigInt>) -> f64 {
    ratio_to_f64(variance).max(0.0).sqrt()
}

/// A percentage with two decimals for a probability given as its exact fraction (`"0"`, `"1"`,
/// `"3/8"`) and its percentage: only an impossible outcome reads `0%` and only a certain one
/// `100%`; a possible one never rounds to either.
pub fn percent(fraction: &str, percent: f64) -> String {
    match fraction {
        "0" => return "0%".to_string(),
        "1" => return "100.00%".to_string(),
        _ => {}
    }
    match format!("{percent:.2}").as_str() {
        "0.00" => "<0.01%".to_string(),
        "100.00" => ">99.99%".to_string(),
        text => format!("{text}%"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_and_tiny_percentages_differ() {
        assert_eq!(percent("0", 0.0), "0%");
        assert_eq!(percent("1/1000000", 0.0001), "<0.01%");
        assert_eq!(percent("999999/1000000", 99.9999), ">99.99%");
        assert_eq!(percent("1", 100.0), "100.00%");
        assert_eq!(percent("3/8", 37.5), "37.50%");
    }

    fn ratio(n: &str, d: &str) -> Ratio<BigInt> {
        Ratio::new(n.parse().unwrap(), d.parse().unwrap())
    }

    #[test]
    fn a_huge_value_over_a_small_denominator_is_finite() {
        // 1d6 × 10¹⁰: variance 35/12 × 10²⁰.
        let variance = ratio("3500000000000000000000", "12");
        let value = ratio_to_f64(&variance);
        assert!(
            (value / 2.916_666_666_666_667e20 - 1.0).abs() < 1e-15,
            "{value}"
        );
        let sd = standard_deviation(&variance);
        assert!((sd / 17_078_251_276.599_33 - 1.0).abs() < 1e-12, "{sd}");
    }

    #[test]
    fn huge_approximations_are_scientific() {
        assert_eq!(approximate(2.916_666_666_666_667e20, 4), "2.9167e20");
        assert_eq!(approximate(17_078_251_276.599_33, 4), "17078251276.5993");
        assert_eq!(approximate(-3.5, 2), "-3.50");
    }

    #[test]
    fn small_negative_and_huge_ratios() {
        assert_eq!(ratio_to_f64(&ratio("35", "12")), 35.0 / 12.0);
        assert_eq!(ratio_to_f64(&ratio("-7", "2")), -3.5);
        let tiny = ratio("1", &format!("1{}", "0".repeat(40)));
        assert!((ratio_to_f64(&tiny) / 1e-40 - 1.0).abs() < 1e-15);
        let beyond = ratio(&format!("1{}", "0".repeat(400)), "3");
        assert_eq!(ratio_to_f64(&beyond), f64::INFINITY);
    }
}

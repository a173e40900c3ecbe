//! Many probabilities over one total, reduced to lowest terms for display, fast.
//!
//! A binary GCD of two numbers thousands of bits long costs tens of microseconds, and a table needs three
//! per outcome: 1000d6 spent most of a second there. Dice totals are products of small numbers (sides,
//! face counts), so the total is factored once by trial division; then gcd(weight, total) is the product
//! of each small prime to the smaller of its two multiplicities, found with one pass over the weight's
//! digits per prime. Whatever of the total is not small primes falls back to a general GCD.
//!
//! The remainders and the decimal digits come from [`crate::decimal`]: a division by one limb with a
//! precomputed reciprocal, writing into a reused buffer.

use std::collections::HashMap;

use num_bigint::BigUint;
use num_rational::Ratio;
use num_traits::{One, ToPrimitive, Zero};

use crate::decimal::{DecimalWriter, Divisor};

/// Trial division of the total stops at this bound; larger prime factors go to the general GCD.
const TRIAL_DIVISION_BOUND: u64 = 1 << 16;

/// Denominator texts kept for reuse; a table usually needs a handful.
const DENOMINATOR_CACHE: usize = 1024;

/// Reduces `weight / total` for one fixed total.
pub struct Fractions {
    total: BigUint,
    /// The total's prime factors below [`TRIAL_DIVISION_BOUND`], with their multiplicities.
    small_primes: Vec<(u64, u64)>,
    /// For each of them, the largest power of it in a limb, to divide by.
    prime_powers: Vec<PrimePower>,
    /// The total divided by its small prime factors: 1 for every total made of dice with fewer than
    /// 65,536 sides.
    rest: BigUint,
    /// The reduced denominator's text, by the common factor removed.
    denominators: HashMap<BigUint, String>,
    /// The total's text, the denominator of every weight prime to it.
    total_text: String,
    decimal: DecimalWriter,
    /// Powers of the small primes already computed.
    powers: std::cell::RefCell<HashMap<(u64, u64), BigUint>>,
    /// The total shifted down to 64 significant bits, and the shift, for floats.
    float_shift: u64,
    float_total: f64,
}

impl Fractions {
    /// # Panics
    /// On a zero total, which no distribution has.
    pub fn over(total: &BigUint) -> Self {
        assert!(!total.is_zero(), "a distribution's total is positive");
        let mut rest = total.clone();
        let mut small_primes = Vec::new();
        for p in trial_divisors(TRIAL_DIVISION_BOUND) {
            if rest.is_one() {
                break;
            }
            // What is left is 1 or a prime once no divisor up to its square root remains.
            if let Some(r) = rest.to_u64()
                && p.saturating_mul(p) > r
            {
                if r < TRIAL_DIVISION_BOUND {
                    small_primes.push((r, 1));
                    rest = BigUint::one();
                }
                break;
            }
            let multiplicity = valuation(&rest, &PrimePower::of(p), u64::MAX);
            if multiplicity > 0 {
                rest /= BigUint::from(p).pow(multiplicity as u32);
                small_primes.push((p, multiplicity));
            }
        }
        let float_shift = total.bits().saturating_sub(64);
        let float_total = (total >> float_shift).to_f64().unwrap_or(f64::NAN);
        let prime_powers = small_primes
            .iter()
            .map(|&(p, _)| PrimePower::of(p))
            .collect();
        let mut decimal = DecimalWriter::default();
        let mut total_text = Vec::new();
        decimal.write(total, &mut total_text);
        Fractions {
            total: total.clone(),
            small_primes,
            prime_powers,
            total_text: String::from_utf8(total_text).expect("digits are ASCII"),
            decimal,
            rest,
            denominators: HashMap::new(),
            powers: std::cell::RefCell::new(HashMap::new()),
            float_shift,
            float_total,
        }
    }

    /// `weight / total` in lowest terms: `num/den`, or `num` alone when the denominator is 1.
    pub fn text(&mut self, weight: &BigUint) -> String {
        let mut out = Vec::new();
        self.write(weight, &mut out);
        String::from_utf8(out).expect("digits are ASCII")
    }

    /// Appends [`Fractions::text`] to `out`.
    pub fn write(&mut self, weight: &BigUint, out: &mut Vec<u8>) {
        if weight.is_zero() {
            out.push(b'0');
            return;
        }
        let common = self.common_factor(weight);
        if common.is_one() {
            self.decimal.write(weight, out);
            if !self.total.is_one() {
                out.push(b'/');
                out.extend_from_slice(self.total_text.as_bytes());
            }
            return;
        }
        self.decimal.write(&(weight / &common), out);
        if common == self.total {
            return;
        }
        out.push(b'/');
        match self.denominators.get(&common) {
            Some(text) => out.extend_from_slice(text.as_bytes()),
            None => {
                let mut text = Vec::new();
                self.decimal.write(&(&self.total / &common), &mut text);
                out.extend_from_slice(&text);
                if self.denominators.len() < DENOMINATOR_CACHE {
                    let text = String::from_utf8(text).expect("digits are ASCII");
                    self.denominators.insert(common, text);
                }
            }
        }
    }

    /// `weight / total` as a float, for display: accurate however long the numbers are.
    pub fn float(&self, weight: &BigUint) -> f64 {
        (weight >> self.float_shift).to_f64().unwrap_or(f64::NAN) / self.float_total
    }

    /// p^e, remembered: a table asks for the same few powers of the same primes over and over.
    fn power(&self, p: u64, e: u64) -> BigUint {
        let mut cache = self.powers.borrow_mut();
        cache
            .entry((p, e))
            .or_insert_with(|| BigUint::from(p).pow(e as u32))
            .clone()
    }

    /// gcd(weight, total).
    fn common_factor(&self, weight: &BigUint) -> BigUint {
        let mut common = BigUint::one();
        for (&(p, multiplicity), power) in self.small_primes.iter().zip(&self.prime_powers) {
            let shared = valuation(weight, power, multiplicity);
            if shared > 0 {
                if p == 2 {
                    common <<= shared;
                } else {
                    common *= self.power(p, shared);
                }
            }
        }
        if !self.rest.is_one() {
            // gcd(w, r) = r / (denominator of (w mod r)/r in lowest terms), without a gcd import.
            let reduced = Ratio::new(weight % &self.rest, self.rest.clone());
            common *= &self.rest / reduced.denom();
        }
        common
    }
}

/// A small prime and the largest power of it in a limb, ready to divide by.
struct PrimePower {
    p: u64,
    /// p^per_pass ≤ u64::MAX < p^(per_pass + 1).
    power: u64,
    per_pass: u64,
    divisor: Divisor,
}

impl PrimePower {
    fn of(p: u64) -> Self {
        let mut power = p;
        let mut per_pass = 1;
        while let Some(next) = power.checked_mul(p) {
            power = next;
            per_pass += 1;
        }
        PrimePower {
            p,
            power,
            per_pass,
            divisor: Divisor::new(power),
        }
    }
}

/// How many times `p` divides `n` (n > 0), counting no further than `cap`.
fn valuation(n: &BigUint, prime: &PrimePower, cap: u64) -> u64 {
    let p = prime.p;
    if p == 2 {
        return n.trailing_zeros().unwrap_or(0).min(cap);
    }
    // One pass over n's digits settles up to `per_pass` factors.
    let mut found = 0;
    let mut quotient: Option<BigUint> = None;
    while found < cap {
        let current = quotient.as_ref().unwrap_or(n);
        let mut r = prime.divisor.remainder(current.iter_u64_digits());
        if r != 0 {
            // n ≡ r (mod p^k) with r ≠ 0, so p divides n exactly as often as it divides r.
            while r.is_multiple_of(p) && found < cap {
                r /= p;
                found += 1;
            }
            return found;
        }
        found = (found + prime.per_pass).min(cap);
        quotient = Some(current / prime.power);
    }
    found
}

/// Candidate divisors for trial division: 2, then the odd numbers below `bound`. Composites among
/// them never divide what is left once their prime factors are removed, so no sieve is needed, and
/// the caller stops as soon as nothing is left: a sieve up to the bound cost most of a millisecond
/// of start-up for every table, even `omen prob 1`.
fn trial_divisors(bound: u64) -> impl Iterator<Item = u64> {
    std::iter::once(2).chain((3..bound).step_by(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(weight: u64, total: u64) -> String {
        Fractions::over(&BigUint::from(total)).text(&BigUint::from(weight))
    }

    #[test]
    fn reduces_to_lowest_terms() {
        assert_eq!(text(6, 36), "1/6");
        assert_eq!(text(36, 36), "1");
        assert_eq!(text(35, 36), "35/36");
        assert_eq!(text(0, 36), "0");
        assert_eq!(text(72, 36), "2");
    }

    #[test]
    fn large_prime_factors_take_the_general_path() {
        // 999983 is prime and above the trial-division bound.
        let total = 999_983u64 * 999_983 * 12;
        assert_eq!(text(999_983 * 4, total), "1/2999949");
        assert_eq!(text(7, total), format!("7/{total}"));
    }

    #[test]
    fn agrees_with_ratio_on_huge_numbers() {
        let total = BigUint::from(6u32).pow(1000);
        let mut fractions = Fractions::over(&total);
        for weight in [
            BigUint::from(3u32).pow(700) * 5u32 * BigUint::from(2u32).pow(999),
            BigUint::from(6u32).pow(1000) - 1u32,
            BigUint::from(3u32).pow(1000),
            BigUint::from(123_456_789u64) * BigUint::from(3u32).pow(50),
        ] {
            let r = Ratio::new(weight.clone(), total.clone());
            let expected = if r.denom().is_one() {
                r.numer().to_string()
            } else {
                format!("{}/{}", r.numer(), r.denom())
            };
            assert_eq!(fractions.text(&weight), expected);
        }
    }

    #[test]
    fn valuation_stops_at_the_cap() {
        let n = BigUint::from(3u32).pow(100);
        let (two, three) = (PrimePower::of(2), PrimePower::of(3));
        assert_eq!(valuation(&n, &three, u64::MAX), 100);
        assert_eq!(valuation(&n, &three, 41), 41);
        assert_eq!(valuation(&(n * 2u32), &two, 5), 1);
        assert_eq!(valuation(&BigUint::from(10u32), &three, 9), 0);
        let n = BigUint::from(5u32).pow(60) * 7u32;
        assert_eq!(valuation(&n, &PrimePower::of(5), u64::MAX), 60);
        assert_eq!(valuation(&n, &PrimePower::of(7), u64::MAX), 1);
    }

    #[test]
    fn floats_survive_huge_totals() {
        let total = BigUint::from(6u32).pow(1000);
        let fractions = Fractions::over(&total);
        assert_eq!(fractions.float(&(&total / 4u32)), 0.25);
    }

    #[test]
    fn totals_factor_into_their_primes() {
        let d: Vec<u64> = trial_divisors(12).collect();
        assert_eq!(d, [2, 3, 5, 7, 9, 11]);
        // 12^5 · 13 · 65521 (a prime below the bound) · 65537 (one above it).
        let total = BigUint::from(12u32).pow(5) * 13u32 * 65521u32 * 65537u32;
        let f = Fractions::over(&total);
        assert_eq!(f.small_primes, [(2, 10), (3, 5), (13, 1), (65521, 1)]);
        assert_eq!(f.rest, BigUint::from(65537u32));
        // The leftover prime still reduces through the general GCD.
        let mut f = f;
        assert_eq!(f.text(&(&total / 65537u32)), "1/65537");
        let small = Fractions::over(&BigUint::from(7u32 * 7));
        assert_eq!(small.small_primes, [(7, 2)]);
    }
}

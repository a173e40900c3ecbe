//! Arithmetic on the language's numbers, whole numbers and exact fractions alike, shared by both
//! interpreters so that a roll and a distribution can never disagree on a value.
//!
//! Every operation works on numerators and denominators in `i128` (a product of two `i64`s always
//! fits) and reduces the result to its one representation ([`Value::ratio`]); a result whose reduced
//! parts do not fit in an `i64` is an overflow, never a wrapped or rounded value.

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::Ratio;
use num_traits::Zero;
use omen_core::{CoreError, Distribution};

use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::BinOp;
use crate::value::Value;

// The rounding functions are part of the program's vocabulary (the checker and the program name them
// without doing arithmetic); the path stays.
pub use crate::program::Rounding;

/// Why an operation on numbers has no result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NumberError {
    /// The left (`false`) or right (`true`) operand is not a number.
    NotNumber {
        right: bool,
        got: Value,
    },
    Core(CoreError),
    /// A power whose exponent is a fraction.
    FractionalExponent(Value),
}

impl From<CoreError> for NumberError {
    fn from(e: CoreError) -> Self {
        NumberError::Core(e)
    }
}

impl NumberError {
    /// The error as a diagnostic: at the operand it is about, or at the whole operation.
    pub(crate) fn diagnostic(self, what: &str, left: Span, right: Span, whole: Span) -> Diagnostic {
        match self {
            NumberError::NotNumber { right: r, got } => crate::diagnostic::kind_error(
                if r { right } else { left },
                &format!("the {} side of {what}", if r { "right" } else { "left" }),
                "a number",
                &got,
            ),
            NumberError::Core(CoreError::DivisionByZero) => {
                crate::diagnostic::core_diagnostic(&CoreError::DivisionByZero, right)
            }
            NumberError::Core(e) => crate::diagnostic::core_diagnostic(&e, whole),
            NumberError::FractionalExponent(v) => Diagnostic::error(
                "fractional-exponent",
                right,
                format!("the exponent must be a whole number, but it can be {v}"),
            )
            .with_help("round it first, e.g. `pow(a, floor(b))`"),
        }
    }
}

fn fraction(v: &Value, right: bool) -> Result<(i128, i128), NumberError> {
    v.as_fraction().ok_or_else(|| NumberError::NotNumber {
        right,
        got: v.clone(),
    })
}

fn reduced(numer: Option<i128>, denom: Option<i128>) -> Result<Value, NumberError> {
    numer
        .zip(denom)
        .and_then(|(n, d)| Value::ratio(n, d))
        .ok_or(NumberError::Core(CoreError::Overflow))
}

/// `a op b` on numbers. `/` divides rounding down (towards −∞) and `%` is its remainder, for fractions
/// as for whole numbers; `div` (`BinOp::Quotient`) keeps the fraction; `^` needs a whole exponent of
/// 0 or more.
///
/// # Errors
/// An operand that is not a number, division by zero, a fractional or negative exponent, overflow.
pub(crate) fn binary(op: BinOp, a: &Value, b: &Value) -> Result<Value, NumberError> {
    let (an, ad) = fraction(a, false)?;
    let (bn, bd) = fraction(b, true)?;
    if let (Value::Int(x), Value::Int(y)) = (a, b)
        && op != BinOp::Quotient
    {
        return Ok(Value::Int(op.apply_extra(*x, *y)?));
    }
    let over = NumberError::Core(CoreError::Overflow);
    match op {
        BinOp::Add | BinOp::Sub => {
            let right = (bn * ad).checked_mul(if op == BinOp::Add { 1 } else { -1 });
            reduced(
                right.and_then(|r| (an * bd).checked_add(r)),
                ad.checked_mul(bd),
            )
        }
        BinOp::Mul => reduced(an.checked_mul(bn), ad.checked_mul(bd)),
        BinOp::Quotient | BinOp::Div | BinOp::Mod if bn == 0 => {
            Err(CoreError::DivisionByZero.into())
        }
        BinOp::Quotient => reduced(Some(an * bd), Some(ad * bn)),
        BinOp::Div => {
            let q = Integer::div_floor(&(an * bd), &(ad * bn));
            i64::try_from(q).map(Value::Int).map_err(|_| over)
        }
        BinOp::Mod => {
            // a − b·⌊a/b⌋, over the common denominator ad·bd.
            let q = Integer::div_floor(&(an * bd), &(ad * bn));
            let taken = (bn * ad).checked_mul(q);
            reduced(
                taken.and_then(|t| (an * bd).checked_sub(t)),
                ad.checked_mul(bd),
            )
        }
        BinOp::Pow => {
            let Value::Int(e) = b else {
                return Err(NumberError::FractionalExponent(b.clone()));
            };
            let e = u32::try_from(*e).map_err(|_| {
                if *e < 0 {
                    CoreError::NegativeExponent(*e)
                } else {
                    CoreError::Overflow
                }
            })?;
            // A fraction's denominator is at least 2, so past 127 the power cannot fit anyway.
            if e > 127 {
                return Err(over);
            }
            reduced(an.checked_pow(e), ad.checked_pow(e))
        }
    }
}

/// `-x`, or `abs(x)` when `abs`.
///
/// # Errors
/// `x` is not a number, or overflow.
pub(crate) fn negate(x: &Value, abs: bool) -> Result<Value, NumberError> {
    let (n, d) = fraction(x, false)?;
    let n = if abs && n >= 0 { n } else { -n };
    reduced(Some(n), Some(d))
}

/// `floor`, `ceil`, `round` or `sign` of `x`: always a whole number.
///
/// # Errors
/// `x` is not a number.
pub(crate) fn round(how: Rounding, x: &Value) -> Result<Value, NumberError> {
    let (n, d) = fraction(x, false)?;
    let whole = match how {
        Rounding::Floor => Integer::div_floor(&n, &d),
        Rounding::Ceil => -Integer::div_floor(&-n, &d),
        // ⌊x + 1/2⌋ = ⌊(2n + d) / 2d⌋
        Rounding::Nearest => Integer::div_floor(&(2 * n + d), &(2 * d)),
        Rounding::Sign => n.signum(),
    };
    // Rounding a fraction of i64s towards a whole number stays within i64's range.
    i64::try_from(whole)
        .map(Value::Int)
        .map_err(|_| CoreError::Overflow.into())
}

/// The mean, variance and median of a distribution of numbers, exact; `None` when an outcome is not a
/// number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumberStatistics {
    pub mean: Ratio<BigInt>,
    pub variance: Ratio<BigInt>,
    /// The smallest outcome x with P(X ≤ x) ≥ 1/2.
    pub median: Value,
}

impl NumberStatistics {
    /// The statistics of `d`, or `None` when one of its outcomes is not a number.
    pub fn of(d: &Distribution<Value>) -> Option<NumberStatistics> {
        let total = BigInt::from(d.total().clone());
        let mut sum = Ratio::<BigInt>::zero();
        let mut sum_sq = Ratio::<BigInt>::zero();
        for (v, w) in d.entries() {
            let (n, den) = v.as_fraction()?;
            let x = Ratio::new(BigInt::from(n), BigInt::from(den));
            let w = BigInt::from(w.clone());
            sum_sq += &x * &x * &w;
            sum += x * w;
        }
        let mean = &sum / &total;
        // Var = E[X²] − E[X]², exact.
        let variance = sum_sq / &total - &mean * &mean;
        let mut cumulative = omen_core::Weight::zero();
        let mut median = d.min_outcome().clone();
        for (v, w) in d.entries() {
            cumulative += w;
            if &cumulative * 2u32 >= *d.total() {
                median = v.clone();
                break;
            }
        }
        Some(NumberStatistics {
            mean,
            variance,
            median,
        })
    }

    /// The standard deviation, only ever for display.
    pub fn standard_deviation(&self) -> f64 {
        omen_core::ratio_to_f64(&self.variance).max(0.0).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i128, d: i128) -> Value {
        Value::ratio(n, d).expect("fits")
    }

    #[test]
    fn fractions_add_multiply_and_divide_exactly() {
        let cases = [
            (BinOp::Add, r(1, 2), r(1, 3), r(5, 6)),
            (BinOp::Add, r(1, 2), r(1, 2), Value::Int(1)),
            (BinOp::Sub, Value::Int(1), r(3, 2), r(-1, 2)),
            (BinOp::Mul, r(3, 2), Value::Int(4), Value::Int(6)),
            (BinOp::Quotient, Value::Int(7), Value::Int(2), r(7, 2)),
            (BinOp::Quotient, Value::Int(-7), Value::Int(-14), r(1, 2)),
            (BinOp::Quotient, r(1, 2), r(-1, 4), Value::Int(-2)),
            (BinOp::Div, r(7, 2), Value::Int(1), Value::Int(3)),
            (BinOp::Div, r(-7, 2), Value::Int(1), Value::Int(-4)),
            (BinOp::Mod, r(7, 2), Value::Int(2), r(3, 2)),
            (BinOp::Mod, r(-1, 2), Value::Int(2), r(3, 2)),
            (BinOp::Pow, r(-1, 2), Value::Int(3), r(-1, 8)),
            (BinOp::Pow, r(2, 3), Value::Int(0), Value::Int(1)),
            (BinOp::Div, Value::Int(-7), Value::Int(2), Value::Int(-4)),
        ];
        for (op, a, b, want) in cases {
            assert_eq!(binary(op, &a, &b), Ok(want), "{a} {op:?} {b}");
        }
    }

    #[test]
    fn what_has_no_result_is_an_error() {
        let zero = Value::Int(0);
        for op in [BinOp::Quotient, BinOp::Div, BinOp::Mod] {
            assert_eq!(
                binary(op, &r(1, 2), &zero),
                Err(NumberError::Core(CoreError::DivisionByZero))
            );
        }
        assert_eq!(
            binary(BinOp::Quotient, &Value::Int(1), &zero),
            Err(NumberError::Core(CoreError::DivisionByZero))
        );
        assert_eq!(
            binary(BinOp::Pow, &Value::Int(4), &r(1, 2)),
            Err(NumberError::FractionalExponent(r(1, 2)))
        );
        assert_eq!(
            binary(BinOp::Quotient, &Value::Int(1), &Value::Int(i64::MIN)),
            Err(NumberError::Core(CoreError::Overflow))
        );
        assert_eq!(
            binary(BinOp::Quotient, &Value::Int(i64::MIN), &Value::Int(-1)),
            Err(NumberError::Core(CoreError::Overflow))
        );
        assert_eq!(
            binary(BinOp::Mul, &r(i128::from(i64::MAX), 2), &Value::Int(3)),
            Err(NumberError::Core(CoreError::Overflow))
        );
        assert_eq!(
            binary(BinOp::Pow, &r(1, 2), &Value::Int(200)),
            Err(NumberError::Core(CoreError::Overflow))
        );
        assert!(matches!(
            binary(BinOp::Add, &Value::Bool(true), &Value::Int(1)),
            Err(NumberError::NotNumber { right: false, .. })
        ));
        assert_eq!(
            negate(&Value::Int(i64::MIN), false),
            Err(NumberError::Core(CoreError::Overflow))
        );
    }

    #[test]
    fn rounding_of_halves_and_negative_halves() {
        // (value, floor, ceil, round, sign)
        let cases = [
            (r(5, 2), 2, 3, 3, 1),
            (r(-5, 2), -3, -2, -2, -1),
            (r(-7, 2), -4, -3, -3, -1),
            (r(7, 4), 1, 2, 2, 1),
            (r(-7, 4), -2, -1, -2, -1),
            (r(1, 3), 0, 1, 0, 1),
            (Value::Int(-4), -4, -4, -4, -1),
            (Value::Int(0), 0, 0, 0, 0),
        ];
        for (x, floor, ceil, nearest, sign) in cases {
            let got = [
                Rounding::Floor,
                Rounding::Ceil,
                Rounding::Nearest,
                Rounding::Sign,
            ]
            .map(|how| round(how, &x));
            let want = [floor, ceil, nearest, sign].map(|n| Ok(Value::Int(n)));
            assert_eq!(got, want, "{x}");
        }
        assert_eq!(negate(&r(-1, 2), true), Ok(r(1, 2)));
        assert_eq!(negate(&r(-1, 2), false), Ok(r(1, 2)));
    }

    #[test]
    fn statistics_of_half_a_d6() {
        let d =
            Distribution::from_weights((1..=6).map(|n| (r(n, 2), omen_core::Weight::from(1u32))))
                .expect("weights");
        let s = NumberStatistics::of(&d).expect("numbers");
        assert_eq!(s.mean, Ratio::new(BigInt::from(7), BigInt::from(4)));
        // Var(X/2) = Var(X)/4 = 35/48
        assert_eq!(s.variance, Ratio::new(BigInt::from(35), BigInt::from(48)));
        assert_eq!(s.median, r(3, 2));
    }
}

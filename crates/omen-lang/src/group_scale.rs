//! Fractions as group members (rpg-dice-roller's `{4d6/2, 3d4+3}`): a group keeps and adds whole
//! numbers, so its members are scaled by the least common multiple of their denominators, kept and
//! added as whole numbers, and the total scaled back. Scaling by a positive number keeps every
//! member's rank, so keeping the highest or lowest picks the same members. Counting successes
//! compares values with whole points and is left to whole members.

use num_integer::Integer;

use crate::value::Value;

/// The least common multiple of the denominators of `values` (1 when all are whole), or `None` when
/// it does not fit in 64 bits.
pub(crate) fn common_denominator<'v>(values: impl IntoIterator<Item = &'v Value>) -> Option<i64> {
    let mut scale: i64 = 1;
    for v in values {
        if let Value::Ratio(r) = v {
            let d = *r.denom();
            let g = scale.gcd(&d);
            scale = scale.checked_mul(d / g)?;
        }
    }
    Some(scale)
}

/// `value · scale` as a whole number, or `None` when it is not a number or does not fit.
pub(crate) fn scaled(value: &Value, scale: i64) -> Option<i64> {
    match value {
        Value::Int(x) => x.checked_mul(scale),
        // `scale` is a multiple of the denominator, so the product is whole.
        Value::Ratio(r) => r.numer().checked_mul(scale / r.denom()),
        _ => None,
    }
}

/// `x / scale` in lowest terms.
pub(crate) fn unscaled(x: i64, scale: i64) -> Value {
    Value::ratio(i128::from(x), i128::from(scale)).unwrap_or(Value::Int(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ratio(n: i128, d: i128) -> Value {
        Value::ratio(n, d).expect("fits")
    }

    #[test]
    fn the_scale_is_the_least_common_multiple_of_the_denominators() {
        let values = [ratio(1, 2), Value::Int(3), ratio(2, 3), ratio(5, 4)];
        assert_eq!(common_denominator(&values), Some(12));
        assert_eq!(common_denominator(&[Value::Int(1)]), Some(1));
        assert_eq!(scaled(&ratio(5, 4), 12), Some(15));
        assert_eq!(unscaled(15, 12), ratio(5, 4));
        assert_eq!(unscaled(24, 12), Value::Int(2));
    }
}

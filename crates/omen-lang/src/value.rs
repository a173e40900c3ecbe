//! The values a program produces: numbers (whole or fractions), true/false, labels and tuples.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use num_rational::Ratio;
use serde::{Serialize, Serializer};

/// One outcome of a program. Ordered (numbers, then true/false, then labels, then tuples) so that
/// distributions can hold any mix; whole numbers and fractions order by their value, so that a
/// distribution of numbers lists them from least to greatest. Comparisons in the language only ever
/// compare numbers with numbers, or values of one kind.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum Value {
    Int(i64),
    /// A number that is not whole (`7/4`), from real division (`div(a, b)`, a dialect's `/`) or a
    /// decimal literal: always in lowest terms with a denominator of 2 or more, so that every number
    /// has one representation (a whole one is always `Int`). Build one with [`Value::ratio`].
    /// Serialised as its text, e.g. `"7/4"`, so that it stays exact in JSON.
    Ratio(#[serde(serialize_with = "ratio_text")] Ratio<i64>),
    Bool(bool),
    /// A label such as `"bad"`.
    Text(Arc<str>),
    Tuple(Arc<[Value]>),
}

fn ratio_text<S: Serializer>(r: &Ratio<i64>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(r)
}

impl Value {
    pub fn text(s: &str) -> Self {
        Value::Text(Arc::from(s))
    }

    /// The number `numer / denom` in its one representation: `Int` when whole, else `Ratio` in lowest
    /// terms with a positive denominator. `None` when `denom` is 0 or the reduced parts do not fit in
    /// an `i64`.
    pub fn ratio(numer: i128, denom: i128) -> Option<Value> {
        if denom == 0 {
            return None;
        }
        let g = gcd(numer.unsigned_abs(), denom.unsigned_abs());
        // g ≥ 1 since denom ≠ 0; both quotients fit in i128 unless g = 1 and a part is i128::MIN, which
        // the callers' products of i64s never reach.
        let g = i128::try_from(g).ok()?;
        let (mut n, mut d) = (numer / g, denom / g);
        if d < 0 {
            n = n.checked_neg()?;
            d = d.checked_neg()?;
        }
        let n = i64::try_from(n).ok()?;
        let d = i64::try_from(d).ok()?;
        Some(if d == 1 {
            Value::Int(n)
        } else {
            Value::Ratio(Ratio::new_raw(n, d))
        })
    }

    /// A number's numerator and (positive) denominator; `None` for values that are not numbers.
    pub fn as_fraction(&self) -> Option<(i128, i128)> {
        match self {
            Value::Int(n) => Some((i128::from(*n), 1)),
            Value::Ratio(r) => Some((i128::from(*r.numer()), i128::from(*r.denom()))),
            _ => None,
        }
    }

    /// Whether this is a number, whole or not.
    pub fn is_number(&self) -> bool {
        matches!(self, Value::Int(_) | Value::Ratio(_))
    }

    /// How the kind of this value reads in an error message.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Int(_) => "a number",
            Value::Ratio(_) => "a fraction",
            Value::Bool(_) => "true/false",
            Value::Text(_) => "a label",
            Value::Tuple(_) => "a tuple",
        }
    }

    /// Whether `<`, `>` and friends may compare the two (numbers, or the same kind, tuples of the same
    /// length).
    pub fn comparable(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Bool(_), Value::Bool(_)) | (Value::Text(_), Value::Text(_)) => true,
            (Value::Tuple(a), Value::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.comparable(y))
            }
            (a, b) => a.is_number() && b.is_number(),
        }
    }

    /// The rank of the value's kind in the order of values.
    fn rank(&self) -> u8 {
        match self {
            Value::Int(_) | Value::Ratio(_) => 0,
            Value::Bool(_) => 1,
            Value::Text(_) => 2,
            Value::Tuple(_) => 3,
        }
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Ord for Value {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Text(a), Value::Text(b)) => a.cmp(b),
            (Value::Tuple(a), Value::Tuple(b)) => a.iter().cmp(b.iter()),
            (a, b) => match (a.as_fraction(), b.as_fraction()) {
                // Cross-multiplied in i128: each product of two i64s fits. Denominators are positive,
                // so the order is kept; equal values are the same representation, so `Equal` here
                // agrees with `==`.
                (Some((an, ad)), Some((bn, bd))) => (an * bd).cmp(&(bn * ad)),
                _ => a.rank().cmp(&b.rank()),
            },
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Ratio(r) => write!(f, "{r}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Text(s) => write!(f, "{s}"),
            Value::Tuple(items) => {
                write!(f, "(")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    match v {
                        Value::Text(s) => write!(f, "\"{s}\"")?,
                        other => write!(f, "{other}")?,
                    }
                }
                if items.len() == 1 {
                    write!(f, ",")?;
                }
                write!(f, ")")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i128, d: i128) -> Value {
        Value::ratio(n, d).expect("fits")
    }

    #[test]
    fn a_ratio_has_one_representation() {
        assert_eq!(r(4, 2), Value::Int(2));
        assert_eq!(r(-6, -4), r(3, 2));
        assert_eq!(r(3, -6), Value::Ratio(Ratio::new_raw(-1, 2)));
        assert_eq!(r(0, -5), Value::Int(0));
        assert_eq!(Value::ratio(1, 0), None);
        assert_eq!(Value::ratio(1 << 64, 3), None);
        assert_eq!(r(i128::from(i64::MIN), 1), Value::Int(i64::MIN));
        assert_eq!(Value::ratio(i128::from(i64::MIN), -1), None);
    }

    #[test]
    fn numbers_order_by_value_whatever_their_kind() {
        let mut values = vec![
            Value::Bool(false),
            r(7, 2),
            Value::Int(3),
            r(-1, 2),
            Value::Int(4),
            Value::Int(-1),
            r(i128::from(i64::MAX), 2),
            Value::Int(i64::MAX),
        ];
        values.sort();
        assert_eq!(
            values,
            vec![
                Value::Int(-1),
                r(-1, 2),
                Value::Int(3),
                r(7, 2),
                Value::Int(4),
                r(i128::from(i64::MAX), 2),
                Value::Int(i64::MAX),
                Value::Bool(false),
            ]
        );
        assert!(Value::Int(1).comparable(&r(1, 2)));
        assert!(!Value::Int(1).comparable(&Value::Bool(true)));
    }

    #[test]
    fn a_fraction_shows_as_numerator_over_denominator() {
        assert_eq!(r(-7, 4).to_string(), "-7/4");
        assert_eq!(
            Value::Tuple(vec![r(1, 2), Value::Int(1)].into()).to_string(),
            "(1/2, 1)"
        );
    }
}

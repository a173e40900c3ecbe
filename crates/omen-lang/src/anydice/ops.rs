//! AnyDice's operators over its values: arithmetic (a lone empty die counts as 0 in `+` and `-`,
//! and propagates everywhere else), comparisons (a sequence against a number counts the matching
//! elements), booleans, unary operators, `#`, and the `d` operator.

use std::rc::Rc;

use omen_core::{CoreError, Distribution};

use super::ast::{Binary, Unary};
use super::value::{Dist, Fault, Outcome, Val, Work, die_of_faces, standard_die, sum};

/// `a op b` for two numbers, AnyDice's way: division rounds toward zero and `x/0` is 0.
pub fn number_op(op: Binary, a: i64, b: i64) -> Outcome<i64> {
    let overflow = || Fault::Core(CoreError::Overflow);
    Ok(match op {
        Binary::Plus => a.checked_add(b).ok_or_else(overflow)?,
        Binary::Minus => a.checked_sub(b).ok_or_else(overflow)?,
        Binary::Times => a.checked_mul(b).ok_or_else(overflow)?,
        Binary::Divide if b == 0 => 0,
        Binary::Divide => a.checked_div(b).ok_or_else(overflow)?,
        Binary::Power => power(a, b)?,
        Binary::Equal => (a == b) as i64,
        Binary::NotEqual => (a != b) as i64,
        Binary::Less => (a < b) as i64,
        Binary::Greater => (a > b) as i64,
        Binary::AtMost => (a <= b) as i64,
        Binary::AtLeast => (a >= b) as i64,
        Binary::And => (a != 0 && b != 0) as i64,
        Binary::Or => (a != 0 || b != 0) as i64,
        Binary::Dice | Binary::At => unreachable!("not a number operator"),
    })
}

fn power(a: i64, b: i64) -> Outcome<i64> {
    if b < 0 {
        return Err(Fault::calculation(format!(
            "a negative exponent ({b}) has no whole-number power"
        ))
        .with_help("AnyDice's `^` takes an exponent of 0 or more"));
    }
    let exponent = u32::try_from(b).map_err(|_| Fault::Core(CoreError::Overflow))?;
    a.checked_pow(exponent)
        .ok_or(Fault::Core(CoreError::Overflow))
}

fn is_comparison(op: Binary) -> bool {
    matches!(
        op,
        Binary::Equal
            | Binary::NotEqual
            | Binary::Less
            | Binary::Greater
            | Binary::AtMost
            | Binary::AtLeast
    )
}

/// A binary operator other than `d` and `@`.
pub fn binary(op: Binary, a: Val, b: Val, work: &mut Work) -> Outcome<Val> {
    if is_comparison(op)
        && let Some(v) = sequence_comparison(op, &a, &b, work)?
    {
        return Ok(v);
    }
    if let (Some(x), Some(y)) = (a.as_number()?, b.as_number()?) {
        return Ok(Val::Number(number_op(op, x, y)?));
    }
    let additive = matches!(op, Binary::Plus | Binary::Minus);
    let (da, db) = (a.to_die(work)?, b.to_die(work)?);
    let (da, db) = match (da, db) {
        (Some(x), Some(y)) => (x, y),
        // A lone empty die counts as 0 in `+` and `-`; two empty dice stay empty.
        (Some(x), None) if additive => return Ok(Val::Die(x, None)),
        (None, Some(y)) if additive && op == Binary::Plus => return Ok(Val::Die(y, None)),
        (None, Some(y)) if additive => return Ok(Val::die(y.negate())),
        _ => return Ok(Val::Empty),
    };
    let result = match op {
        Binary::Plus => da.add(&db, &work.limits, &mut work.budget)?,
        Binary::Minus => da.add(&db.negate(), &work.limits, &mut work.budget)?,
        _ => {
            // A power or a product can leave the outcomes far apart: bound them by the pairs.
            work.limits
                .check_outcomes(da.len() as u128 * db.len() as u128)
                .or_else(|e| {
                    let distinct = da.len().max(db.len()) as u128;
                    work.limits.check_outcomes(distinct).map_err(|_| e)
                })?;
            da.combine(&db, &mut work.budget, |x, y| {
                number_op(op, *x, *y).map_err(|f| match f {
                    Fault::Core(e) => e,
                    Fault::Calculation { .. } => CoreError::NegativeExponent(*y),
                })
            })?
        }
    };
    Ok(Val::die(result))
}

/// Comparisons that involve a sequence: against a number, the count of matching elements (on
/// either side); against a sequence, element by element from the left; against a die, its sum.
fn sequence_comparison(op: Binary, a: &Val, b: &Val, work: &mut Work) -> Outcome<Option<Val>> {
    Ok(Some(match (a, b) {
        (Val::Sequence(s), Val::Number(n)) => {
            work.pay(s.len())?;
            let mut count = 0;
            for &x in s.iter() {
                count += number_op(op, x, *n)?;
            }
            Val::Number(count)
        }
        (Val::Number(n), Val::Sequence(s)) => {
            work.pay(s.len())?;
            let mut count = 0;
            for &x in s.iter() {
                count += number_op(op, *n, x)?;
            }
            Val::Number(count)
        }
        (Val::Sequence(x), Val::Sequence(y)) => {
            work.pay(x.len().min(y.len()))?;
            // The first difference decides; a sequence that runs out first is the smaller.
            let ordering = x.as_slice().cmp(y.as_slice());
            let (l, r) = match ordering {
                std::cmp::Ordering::Less => (0, 1),
                std::cmp::Ordering::Equal => (0, 0),
                std::cmp::Ordering::Greater => (1, 0),
            };
            Val::Number(number_op(op, l, r)?)
        }
        _ => return Ok(None),
    }))
}

/// A unary operator other than `d`.
pub fn unary(op: Unary, v: Val, work: &mut Work) -> Outcome<Val> {
    Ok(match (op, v) {
        (Unary::Plus, v) => v,
        (Unary::Length, v) => Val::Number(length(&v)?),
        (Unary::Minus, Val::Number(n)) => {
            Val::Number(n.checked_neg().ok_or(Fault::Core(CoreError::Overflow))?)
        }
        (Unary::Minus, Val::Sequence(s)) => Val::Number(
            sum(&s)?
                .checked_neg()
                .ok_or(Fault::Core(CoreError::Overflow))?,
        ),
        (Unary::Minus, Val::Die(d, _)) => Val::die(d.negate()),
        (Unary::Minus, Val::Pool { count, die, .. }) => Val::Pool {
            count,
            die: Rc::new(die.negate()),
            shape: None,
        },
        (Unary::Not, v) => match v.as_number()? {
            Some(n) => Val::Number((n == 0) as i64),
            None => match v.to_die(work)? {
                Some(d) => Val::die(d.map(|x| (*x == 0) as i64)),
                None => Val::Empty,
            },
        },
        (_, Val::Empty) => Val::Empty,
        (Unary::Die, v) => dice(Val::Number(1), v, work)?,
    })
}

/// `#X`: a sequence's length, a collection's dice, 1 for a die, the digits of a number.
fn length(v: &Val) -> Outcome<i64> {
    Ok(match v {
        Val::Sequence(s) => s.len() as i64,
        Val::Pool { count, .. } => *count as i64,
        Val::Die(..) | Val::Empty => 1,
        Val::Number(n) => n
            .unsigned_abs()
            .checked_ilog10()
            .map_or(1, |d| d as i64 + 1),
    })
}

/// The faces `X` gives to `N d X`: a number is a standard die, a sequence one face per element.
fn faces(x: Val, work: &mut Work) -> Outcome<Val> {
    match x {
        Val::Number(n) => standard_die(n, work),
        Val::Sequence(s) => die_of_faces(&s, work),
        other => other.summed(work),
    }
}

/// `N d X`.
pub fn dice(n: Val, x: Val, work: &mut Work) -> Outcome<Val> {
    let faces = faces(x, work)?;
    let Val::Die(die, shape) = faces else {
        return Ok(Val::Empty);
    };
    match n.as_number()? {
        Some(count) => dice_count(count, die, shape, work),
        None => {
            // A die for the count: the sum of n dice for every outcome n, mixed by n's weight.
            let Some(counts) = n.to_die(work)? else {
                return Ok(Val::Empty);
            };
            let mut parts = Vec::with_capacity(counts.len());
            for (count, weight) in counts.entries() {
                let part = dice_count(*count, die.clone(), None, work)?;
                let Some(d) = part.to_die(work)? else {
                    return Ok(Val::Empty);
                };
                parts.push((weight.clone(), (*d).clone()));
            }
            Ok(Val::die(Distribution::mixture(parts, &mut work.budget)?))
        }
    }
}

fn dice_count(count: i64, die: Dist, shape: super::value::Shape, work: &mut Work) -> Outcome<Val> {
    let dice = work
        .limits
        .check_dice(count.checked_abs().unwrap_or(i64::MAX))?;
    let (die, shape) = if count < 0 {
        (Rc::new(die.negate()), None)
    } else {
        (die, shape)
    };
    let shape = shape.map(|(_, sides)| (dice as u64, sides));
    Ok(match dice {
        0 => Val::die(Distribution::constant(0)),
        1 => Val::Die(die, shape),
        _ => Val::Pool {
            count: dice,
            die,
            shape,
        },
    })
}

/// Truth as AnyDice tests it in `if`: a number (a sequence is summed); a die is an error.
pub fn truth(v: &Val) -> Outcome<bool> {
    match v.as_number()? {
        Some(n) => Ok(n != 0),
        None => Err(Fault::calculation(format!(
            "Boolean values can only be numbers, but you provided \"{}\". Depending on what you want, you might need to create a function",
            v.render()
        ))
        .with_help("pass the die to a function with a `:n` parameter to branch on each outcome")),
    }
}

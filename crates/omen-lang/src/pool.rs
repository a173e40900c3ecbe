//! Pools in the lowered program: dice rolled once and read many ways.
//!
//! `let p = pool 8d6;` binds a pool; every reading of `p` in the script (`count(p, >=5)`,
//! `sum(p)`, `highest(p, 2)`, …) becomes one member of the pool node's value, a tuple, and each use
//! takes its member. Both interpreters then see an ordinary binding of a tuple: the roller rolls
//! the dice once and reads them every way; the exact engine computes the readings' joint
//! distribution in one walk over the pool's sorted outcomes (`omen_core::multiset`), so the
//! readings stay exactly as dependent as they are on the table.

use crate::program::{ReadingKind, ReadingNode};
use crate::syntax::ast::CompareOp;
use crate::value::Value;

/// A pool bound by `let`, while the checker checks the rest of its scope: where it is, whether it
/// holds symbol dice, and the readings taken of it so far.
pub(crate) struct PoolBinding {
    pub slot: usize,
    pub symbols: bool,
    /// One die of the pool when it holds one kind of die: what `reroll` rolls again.
    pub die: Option<crate::program::Node>,
    pub readings: Vec<ReadingNode>,
}

/// The readings by name, with how many arguments each takes after the pool (at least, at most).
pub const READINGS: [(&str, ReadingKind, usize, usize); 15] = [
    ("count", ReadingKind::Count(CompareOp::Eq), 1, 1),
    ("sum", ReadingKind::Sum, 0, 0),
    ("highest", ReadingKind::Highest, 0, 1),
    ("lowest", ReadingKind::Lowest, 0, 1),
    ("nth", ReadingKind::Nth, 1, 1),
    ("nth_lowest", ReadingKind::NthLowest, 1, 1),
    ("highest_count", ReadingKind::HighestCount, 0, 0),
    ("distinct", ReadingKind::Distinct, 0, 0),
    ("width", ReadingKind::Width, 0, 0),
    ("height", ReadingKind::Height, 0, 0),
    ("run", ReadingKind::Run, 0, 0),
    ("raises", ReadingKind::Raises, 1, 1),
    ("symbols", ReadingKind::Symbols, 0, 0),
    // The function indices are filled in by the checker from the arguments.
    (
        "fold",
        ReadingKind::Fold {
            step: 0,
            finish: None,
        },
        2,
        3,
    ),
    ("score", ReadingKind::Score(0), 1, 1),
];

/// The faces from `low` to `high` that a count's point takes, for a point of `op` against `value`;
/// `None` when no face can meet it.
pub fn point_range(op: CompareOp, value: i64) -> Option<(i64, i64)> {
    match op {
        CompareOp::Ge => Some((value, i64::MAX)),
        CompareOp::Gt => value.checked_add(1).map(|v| (v, i64::MAX)),
        CompareOp::Le => Some((i64::MIN, value)),
        CompareOp::Lt => value.checked_sub(1).map(|v| (i64::MIN, v)),
        CompareOp::Eq | CompareOp::Ne => Some((value, value)),
    }
}

/// One reading of the dice `sorted` ascending, from the dice themselves: what the roller shows,
/// and what the exact engine uses where a reading needs the whole multiset (raises). `args` are
/// the reading's arguments, already numbers; `raises` solves a grouping.
///
/// # Errors
/// What `raises` returns, and overflow of a sum.
pub fn read_dice(
    kind: ReadingKind,
    args: &[i64],
    sorted: &[i64],
    raises: &mut dyn FnMut(i64) -> Result<i64, omen_core::CoreError>,
) -> Result<i64, omen_core::CoreError> {
    let arg = |i: usize, default: i64| args.get(i).copied().unwrap_or(default);
    let rank = |k: i64| usize::try_from(k).ok().filter(|&k| k >= 1);
    let faces = faces_with_counts(sorted);
    Ok(match kind {
        ReadingKind::Count(op) => match point_range(op, arg(0, 0)) {
            Some((low, high)) => sorted.iter().filter(|x| (low..=high).contains(x)).count() as i64,
            None => 0,
        },
        ReadingKind::Sum => checked_sum(sorted.iter())?,
        ReadingKind::Highest => {
            let k = usize::try_from(arg(0, 1)).unwrap_or(0);
            checked_sum(sorted.iter().rev().take(k))?
        }
        ReadingKind::Lowest => {
            let k = usize::try_from(arg(0, 1)).unwrap_or(0);
            checked_sum(sorted.iter().take(k))?
        }
        ReadingKind::Nth => rank(arg(0, 1))
            .and_then(|k| sorted.iter().rev().nth(k - 1).copied())
            .unwrap_or(0),
        ReadingKind::NthLowest => rank(arg(0, 1))
            .and_then(|k| sorted.get(k - 1).copied())
            .unwrap_or(0),
        ReadingKind::HighestCount => faces.last().map_or(0, |&(_, c)| c),
        ReadingKind::Distinct => faces.len() as i64,
        ReadingKind::Width => faces.iter().map(|&(_, c)| c).max().unwrap_or(0),
        ReadingKind::Height => {
            let width = faces.iter().map(|&(_, c)| c).max().unwrap_or(0);
            faces
                .iter()
                .filter(|&&(_, c)| c == width)
                .map(|&(x, _)| x)
                .max()
                .unwrap_or(0)
        }
        ReadingKind::Run => {
            let (mut best, mut run) = (0i64, 0i64);
            for (i, &(x, _)) in faces.iter().enumerate() {
                let follows = i > 0 && faces[i - 1].0.checked_add(1) == Some(x);
                run = if follows { run + 1 } else { 1 };
                best = best.max(run);
            }
            best
        }
        ReadingKind::Raises => raises(arg(0, 10))?,
        // A symbol pool is read by its own engine; numbers have no symbols. A fold calls the
        // script's functions, which each interpreter does itself.
        ReadingKind::Symbols
        | ReadingKind::Fold { .. }
        | ReadingKind::Score(_)
        | ReadingKind::Kept(_) => 0,
    })
}

fn checked_sum<'a>(dice: impl Iterator<Item = &'a i64>) -> Result<i64, omen_core::CoreError> {
    dice.into_iter().try_fold(0i64, |acc, &x| {
        acc.checked_add(x).ok_or(omen_core::CoreError::Overflow)
    })
}

/// The faces shown, ascending, each with how many dice show it.
pub fn faces_with_counts(sorted: &[i64]) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = Vec::new();
    for &x in sorted {
        match out.last_mut() {
            Some((y, c)) if *y == x => *c += 1,
            _ => out.push((x, 1)),
        }
    }
    out
}

/// What [`ReadingKind::Kept`] starts from: no face kept, none rerolled.
pub fn kept_start() -> Value {
    Value::Tuple(vec![Value::Tuple(Vec::new().into()), Value::Int(0)].into())
}

/// [`ReadingKind::Kept`]'s state after `count` dice show `outcome`: kept (appended, the faces
/// coming in ascending order) or counted as rerolled.
pub fn kept_next(state: &Value, outcome: i64, count: usize, again: bool) -> Value {
    let (mut faces, mut rerolled) = (Vec::new(), 0i64);
    if let Value::Tuple(parts) = state
        && let [Value::Tuple(kept), Value::Int(n)] = &parts[..]
    {
        faces = kept.to_vec();
        rerolled = *n;
    }
    if again {
        rerolled = rerolled.saturating_add(count as i64);
    } else {
        faces.extend(std::iter::repeat_n(Value::Int(outcome), count));
    }
    Value::Tuple(vec![Value::Tuple(faces.into()), Value::Int(rerolled)].into())
}

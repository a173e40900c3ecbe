//! Pools in the lowered program: dice rolled once and read many ways.
//!
//! `let p = pool 8d6;` binds a pool; every reading of `p` in the script (`count(p, >=5)`,
//! `sum(p)`, `highest(p, 2)`, …) becomes one member of the pool node's value, a tuple, and each use
//! takes its member. Both interpreters then see an ordinary binding of a tuple: the roller rolls
//! the dice once and reads them every way; the exact engine computes the readings' joint
//! distribution in one walk over the pool's sorted outcomes (`omen_core::multiset`), so the
//! readings stay exactly as dependent as they are on the table.

use omen_core::multiset::Builtin;

use crate::program::{Node, NodeKind, ReadingKind, ReadingNode, SidesNode};
use crate::syntax::ast::CompareOp;
use crate::value::Value;

/// A pool bound by `let`, while the checker checks the rest of its scope: where it is, whether it
/// holds symbol dice, and the readings taken of it so far.
pub(crate) struct PoolBinding {
    pub slot: usize,
    pub symbols: bool,
    /// One die of each kind the pool holds, when `reroll` can roll its dice again.
    pub dice: Option<Vec<Node>>,
    /// Whether every die of the pool has a size, for `effect`.
    pub sized: bool,
    pub readings: Vec<ReadingNode>,
}

/// The readings by name, with how many arguments each takes after the pool (at least, at most).
pub const READINGS: [(&str, ReadingKind, usize, usize); 16] = [
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
    ("effect", ReadingKind::Effect, 1, 1),
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
        | ReadingKind::Kept(_)
        | ReadingKind::Effect => 0,
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

/// The size of a die of a pool, its number of faces (d4 = 4, `d{0,1,1,2}` = 4): what Cortex
/// Prime's effect die is read by. Known for a die written as one (`d8`, `3d8`, `d10!`, `1 x d8`);
/// `None` for a roll such as `4d6kh3` or `(d6 + d4)`, which is one die of the pool with no size.
pub fn kind_size(node: &Node) -> Option<u64> {
    let NodeKind::Dice(dice) = &node.kind else {
        return None;
    };
    let SidesNode::Fixed(die) = &dice.sides else {
        return None;
    };
    let whole = dice.keep == omen_core::Keep::All
        && dice.ends.is_none()
        && dice.success.is_none()
        && dice.failure.is_none()
        && dice.unique.is_none();
    whole.then(|| die.face_count())
}

/// The size of a pool member's dice ([`kind_size`]): a repeat's roll has one when it is one die.
pub fn member_size(member: &crate::program::PoolMember) -> Option<u64> {
    match member {
        crate::program::PoolMember::Dice(term) => kind_size(term),
        crate::program::PoolMember::Repeat { roll, .. } => die_size(roll),
    }
}

/// The size of one die of a pool ([`kind_size`]): `d8` has one, a roll of several dice (`3d6` as one
/// die of the pool) none.
pub fn die_size(node: &Node) -> Option<u64> {
    let one = matches!(&node.kind, NodeKind::Dice(d)
        if matches!(d.count.kind, NodeKind::Const(crate::value::Value::Int(1))));
    kind_size(node).filter(|_| one)
}

/// The order in which a capped reroll takes dice of one face from the kinds: the larger dice
/// first (they have the more to gain), then the kinds as written.
pub fn reroll_order(sizes: &[Option<u64>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&k| (std::cmp::Reverse(sizes[k].unwrap_or(0)), k));
    order
}

/// What `reroll(p, f)` and `reroll(p, f, n)` read of `p`, built face by face from the lowest: the
/// dice kept, each (face, kind), ascending; how many dice of each kind are rolled again; and how
/// many in all. Kinds are numbered as the pool's members are written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Kept {
    pub kept: Vec<(i64, usize)>,
    pub again: Vec<usize>,
}

impl Kept {
    pub fn new(kinds: usize) -> Self {
        Kept {
            kept: Vec::new(),
            again: vec![0; kinds],
        }
    }

    /// After `shown[k]` dice of kind `k` show `face`: all kept when `f(face)` is false; otherwise
    /// rolled again while fewer than `cap` are, the kinds taken in `order`, the rest kept.
    pub fn next(&mut self, face: i64, shown: &[usize], again: bool, cap: usize, order: &[usize]) {
        let mut rolled: usize = self.again.iter().sum();
        let mut keep = shown.to_vec();
        if again {
            for &k in order {
                let take = keep[k].min(cap.saturating_sub(rolled));
                keep[k] -= take;
                self.again[k] += take;
                rolled += take;
            }
        }
        for (k, &n) in keep.iter().enumerate() {
            self.kept.extend(std::iter::repeat_n((face, k), n));
        }
    }

    /// The reading's value: ((face, kind) kept…), (rerolled of each kind…)).
    pub fn to_value(&self) -> Value {
        let kept = self
            .kept
            .iter()
            .map(|&(x, k)| Value::Tuple(vec![Value::Int(x), Value::Int(k as i64)].into()))
            .collect();
        let again = self.again.iter().map(|&n| Value::Int(n as i64)).collect();
        Value::Tuple(vec![Value::Tuple(kept), Value::Tuple(again)].into())
    }

    /// The reading back from its value, for the pool rerolled from it.
    pub fn from_value(value: &Value) -> Self {
        let mut out = Kept::new(0);
        let Value::Tuple(parts) = value else {
            return out;
        };
        let [Value::Tuple(kept), Value::Tuple(again)] = &parts[..] else {
            return out;
        };
        for die in kept.iter() {
            if let Value::Tuple(pair) = die
                && let [Value::Int(x), Value::Int(k)] = &pair[..]
            {
                out.kept.push((*x, usize::try_from(*k).unwrap_or(0)));
            }
        }
        out.again = again
            .iter()
            .map(|n| match n {
                Value::Int(n) => usize::try_from(*n).unwrap_or(0),
                _ => 0,
            })
            .collect();
        out
    }
}

/// The effect die when no die is left for it: Cortex Prime's default, a d4.
pub const EFFECT_DEFAULT: i64 = 4;

/// Cortex Prime's effect die of dice (face, size): the `k` highest faces are taken for the total,
/// among equal faces the smaller dice first; of the dice left, those showing more than 1 (a 1 is a
/// hitch, chosen for neither), the largest size; [`EFFECT_DEFAULT`] when none is left.
pub fn effect(dice: &[(i64, u64)], k: i64) -> i64 {
    let mut sorted = dice.to_vec();
    sorted.sort_by_key(|&(x, size)| (std::cmp::Reverse(x), size));
    let taken = usize::try_from(k).unwrap_or(0);
    sorted
        .iter()
        .skip(taken)
        .filter(|&&(x, _)| x != 1)
        .map(|&(_, size)| i64::try_from(size).unwrap_or(i64::MAX))
        .max()
        .unwrap_or(EFFECT_DEFAULT)
}

/// The most dice `reroll(p, f, n)` rolls again, from its arguments: every die chosen without `n`.
///
/// # Errors
/// `n` is negative.
pub fn reroll_cap(
    args: &[i64],
    span: crate::span::Span,
) -> Result<usize, crate::diagnostic::Diagnostic> {
    match args.first() {
        None => Ok(usize::MAX),
        Some(&n) => usize::try_from(n).map_err(|_| {
            crate::diagnostic::Diagnostic::error(
                "bad-reroll",
                span,
                format!("`reroll` cannot roll again {n} dice"),
            )
            .with_help("give the most dice to roll again as 0 or more, e.g. `reroll(p, f, 2)`")
        }),
    }
}

/// The core's fold for one reading with its arguments.
pub(crate) fn builtin(reading: &ReadingNode, args: &[i64]) -> Builtin {
    let k = |default: i64| usize::try_from(args.first().copied().unwrap_or(default)).unwrap_or(0);
    match reading.kind {
        ReadingKind::Count(op) => match point_range(op, args[0]) {
            Some((low, high)) => Builtin::Count { low, high },
            // No face meets it: a range no outcome is in.
            None => Builtin::Count { low: 1, high: 0 },
        },
        ReadingKind::Sum => Builtin::Sum,
        ReadingKind::Highest if args.is_empty() => Builtin::Highest,
        ReadingKind::Highest => Builtin::SumHighest(k(1)),
        ReadingKind::Lowest => Builtin::SumLowest(k(1)),
        ReadingKind::Nth => Builtin::NthHighest(k(1)),
        ReadingKind::NthLowest => Builtin::NthLowest(k(1)),
        ReadingKind::HighestCount => Builtin::HighestCount,
        ReadingKind::Distinct => Builtin::Distinct,
        ReadingKind::Width => Builtin::SetWidth,
        ReadingKind::Height => Builtin::SetHeight,
        ReadingKind::Run => Builtin::LongestRun,
        // Read through the whole multiset, the symbol engine or the fold's table, never here.
        ReadingKind::Raises
        | ReadingKind::Symbols
        | ReadingKind::Fold { .. }
        | ReadingKind::Score(_)
        | ReadingKind::Kept(_)
        | ReadingKind::Effect => Builtin::Sum,
    }
}

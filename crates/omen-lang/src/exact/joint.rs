//! Scripts whose bindings are rolled once and then only computed with: `let a = d20; let b = d20;
//! let c = d20; a + b + c - max(a, b, c) - min(a, b, c)`.
//!
//! Branching binding by binding evaluates the rest as distributions once per combination, which
//! costs a few microseconds each. Here a chain of bindings whose values do not depend on one another
//! is rolled jointly instead: each value's distribution is computed once, the rest (which rolls no
//! dice) is run as plain arithmetic on every combination, and the results are added up with the
//! combinations' weights. Bindings with the same distribution that the rest uses symmetrically (it
//! reads the same whatever order they are put in) are exchangeable: only their sorted combinations are
//! run, each weighted by the number of orders it stands for (1,540 instead of 8,000 for three d20s).

use std::collections::BTreeMap;

use num_bigint::BigUint;
use num_traits::Zero;
use omen_core::{Compare, CoreError, Distribution, Probability, Weight};

use super::{Eval, Evaluator, either};
use crate::check::core_diagnostic;
use crate::diagnostic::Diagnostic;
use crate::program::{Node, NodeKind};
use crate::syntax::ast::BinOp;
use crate::value::Value;

mod compiled;
mod fields;
mod single;

/// What running the rest once costs from the work budget, per node of it: a value computed and
/// dropped, about as long as this many limb multiply-adds.
const SCALAR_NODE_COST: u64 = 8;

/// What one combination costs besides running the rest: setting the bindings, its weight, adding
/// it to the result.
const COMBINATION_COST: u64 = 40;

/// The largest magnitude of a number for which the symmetry of the rest is trusted: sums and
/// differences of such numbers over any program the limits admit stay far from overflowing, so every
/// order of the bindings gives the same value and the same errors.
const SYMMETRY_MAGNITUDE: i64 = 1 << 40;

/// Whether `node` rolls no dice and calls nothing: given its variables, it has one value.
fn computes_only(node: &Node) -> bool {
    match &node.kind {
        NodeKind::Const(_) | NodeKind::Var(..) => true,
        NodeKind::Dice(_)
        | NodeKind::Group(_)
        | NodeKind::Call(..)
        | NodeKind::Process { .. }
        | NodeKind::Pool(_)
        | NodeKind::InTurn(_)
        | NodeKind::InTurnSet(_)
        | NodeKind::FoundryRolled(_) => false,
        NodeKind::Let { value, body, .. } => computes_only(value) && computes_only(body),
        NodeKind::Neg(x)
        | NodeKind::Abs(x)
        | NodeKind::Round(_, x)
        | NodeKind::Label(_, x)
        | NodeKind::Field(x, _)
        | NodeKind::Not(x) => computes_only(x),
        NodeKind::Binary(_, a, b)
        | NodeKind::Compare(_, a, b)
        | NodeKind::And(a, b)
        | NodeKind::Or(a, b) => computes_only(a) && computes_only(b),
        NodeKind::Min(xs) | NodeKind::Max(xs) | NodeKind::Tuple(xs) => xs.iter().all(computes_only),
        NodeKind::If(c, a, b) => computes_only(c) && computes_only(a) && computes_only(b),
        NodeKind::Match(x, arms) => computes_only(x) && arms.iter().all(|(_, n)| computes_only(n)),
    }
}

/// Whether `node` may read one of `slots` of the current frame. A call or a process may read the
/// frame's globals, so it counts as reading everything.
fn reads_any(node: &Node, slots: &[usize]) -> bool {
    match &node.kind {
        NodeKind::Const(_) | NodeKind::InTurn(_) => false,
        NodeKind::Var(slot, _) => slots.contains(slot),
        NodeKind::Call(..) | NodeKind::Process { .. } => true,
        NodeKind::Dice(d) => {
            reads_any(&d.count, slots)
                || matches!(&d.sides, crate::program::SidesNode::Random(n) if reads_any(n, slots))
                || d.points.iter().any(|(_, n)| reads_any(n, slots))
        }
        NodeKind::Group(g) => {
            g.members.iter().any(|n| reads_any(n, slots))
                || g.points.iter().any(|(_, n)| reads_any(n, slots))
        }
        NodeKind::Pool(p) => p.operands().into_iter().any(|n| reads_any(n, slots)),
        NodeKind::InTurnSet(s) => s.members.iter().any(|n| reads_any(n, slots)),
        NodeKind::FoundryRolled(t) => {
            reads_any(&t.count, slots) || t.sides.iter().any(|n| reads_any(n, slots))
        }
        NodeKind::Let { value, body, .. } => reads_any(value, slots) || reads_any(body, slots),
        NodeKind::Neg(x)
        | NodeKind::Abs(x)
        | NodeKind::Round(_, x)
        | NodeKind::Label(_, x)
        | NodeKind::Field(x, _)
        | NodeKind::Not(x) => reads_any(x, slots),
        NodeKind::Binary(_, a, b)
        | NodeKind::Compare(_, a, b)
        | NodeKind::And(a, b)
        | NodeKind::Or(a, b) => reads_any(a, slots) || reads_any(b, slots),
        NodeKind::Min(xs) | NodeKind::Max(xs) | NodeKind::Tuple(xs) => {
            xs.iter().any(|n| reads_any(n, slots))
        }
        NodeKind::If(c, a, b) => reads_any(c, slots) || reads_any(a, slots) || reads_any(b, slots),
        NodeKind::Match(x, arms) => {
            reads_any(x, slots) || arms.iter().any(|(_, n)| reads_any(n, slots))
        }
    }
}

/// The shape of a computation up to the order of the operands of commutative operations, with the
/// variables renamed by a permutation: two nodes with equal shapes compute the same value from the
/// same variables.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Shape {
    Const(Value),
    Var(usize),
    /// Signed terms of a chain of `+` and `-` (and unary minus inside it), sorted.
    Sum(Vec<(bool, Shape)>),
    /// Sorted operands of nested `min` (true) or `max` (false).
    Extreme(bool, Vec<Shape>),
    /// Sorted operands of nested `and` (true) or `or` (false).
    Logic(bool, Vec<Shape>),
    /// `==` (true) or `!=` (false) with sorted operands.
    Equality(bool, Vec<Shape>),
    /// Any other operation, operands in order; the tag tells the operations apart.
    Op(String, Vec<Shape>),
}

/// The shape of `node` with variable `v` read as `rename(v)`; `None` when it holds something the
/// symmetry test does not trust (a product or a power, which can overflow in one order of the
/// bindings and not another, or a number too large).
fn shape(node: &Node, rename: &dyn Fn(usize) -> usize) -> Option<Shape> {
    let all =
        |xs: &[&Node]| -> Option<Vec<Shape>> { xs.iter().map(|x| shape(x, rename)).collect() };
    Some(match &node.kind {
        NodeKind::Const(v) => {
            // Sums of fractions can overflow in one order of the bindings and not another: a
            // fraction is not trusted.
            if matches!(v, Value::Int(x) if x.unsigned_abs() > SYMMETRY_MAGNITUDE as u64)
                || matches!(v, Value::Ratio(_))
            {
                return None;
            }
            Shape::Const(v.clone())
        }
        NodeKind::Var(slot, _) => Shape::Var(rename(*slot)),
        NodeKind::Binary(BinOp::Add | BinOp::Sub, ..) | NodeKind::Neg(_) => {
            let mut terms = Vec::new();
            sum_terms(node, true, rename, &mut terms)?;
            terms.sort();
            Shape::Sum(terms)
        }
        NodeKind::Binary(BinOp::Mul | BinOp::Pow | BinOp::Quotient, ..) => return None,
        NodeKind::Binary(op, a, b) => Shape::Op(format!("{op:?}"), all(&[a, b])?),
        NodeKind::Min(_) | NodeKind::Max(_) => {
            let is_min = matches!(node.kind, NodeKind::Min(_));
            let mut items = Vec::new();
            extreme_operands(node, is_min, rename, &mut items)?;
            items.sort();
            Shape::Extreme(is_min, items)
        }
        NodeKind::And(..) | NodeKind::Or(..) => {
            let is_and = matches!(node.kind, NodeKind::And(..));
            let mut items = Vec::new();
            logic_operands(node, is_and, rename, &mut items)?;
            items.sort();
            Shape::Logic(is_and, items)
        }
        NodeKind::Compare(op @ (Compare::Eq | Compare::Ne), a, b) => {
            let mut items = all(&[a, b])?;
            items.sort();
            Shape::Equality(*op == Compare::Eq, items)
        }
        // `a >= b` is `b <= a`.
        NodeKind::Compare(Compare::Ge, a, b) => Shape::Op("<=".into(), all(&[b, a])?),
        NodeKind::Compare(Compare::Gt, a, b) => Shape::Op("<".into(), all(&[b, a])?),
        NodeKind::Compare(Compare::Le, a, b) => Shape::Op("<=".into(), all(&[a, b])?),
        NodeKind::Compare(Compare::Lt, a, b) => Shape::Op("<".into(), all(&[a, b])?),
        // A set point is not symmetric in its operands.
        NodeKind::Compare(Compare::Among(mask), a, b) => {
            Shape::Op(format!("among {mask}"), all(&[a, b])?)
        }
        NodeKind::Abs(x) => Shape::Op("abs".into(), all(&[x])?),
        NodeKind::Round(how, x) => Shape::Op(how.name().to_string(), all(&[x])?),
        NodeKind::Not(x) => Shape::Op("not".into(), all(&[x])?),
        NodeKind::Label(text, x) => Shape::Op(format!("label {text:?}"), all(&[x])?),
        NodeKind::Field(x, i) => Shape::Op(format!("field {i}"), all(&[x])?),
        NodeKind::Tuple(xs) => Shape::Op("tuple".into(), all(&xs.iter().collect::<Vec<_>>())?),
        NodeKind::If(c, a, b) => Shape::Op("if".into(), all(&[c, a, b])?),
        NodeKind::Match(x, arms) => {
            let mut parts = vec![shape(x, rename)?];
            let mut tag = String::from("match");
            for (pattern, arm) in arms {
                tag.push_str(&format!(" {pattern:?}"));
                parts.push(shape(arm, rename)?);
            }
            Shape::Op(tag, parts)
        }
        // A binding inside the rest: its slot is its own, never one of the renamed ones.
        NodeKind::Let {
            slot, value, body, ..
        } => Shape::Op(format!("let {slot}"), all(&[value, body])?),
        NodeKind::Dice(_)
        | NodeKind::Group(_)
        | NodeKind::Call(..)
        | NodeKind::Process { .. }
        | NodeKind::Pool(_)
        | NodeKind::InTurn(_)
        | NodeKind::InTurnSet(_)
        | NodeKind::FoundryRolled(_) => {
            return None;
        }
    })
}

fn sum_terms(
    node: &Node,
    positive: bool,
    rename: &dyn Fn(usize) -> usize,
    out: &mut Vec<(bool, Shape)>,
) -> Option<()> {
    match &node.kind {
        NodeKind::Binary(BinOp::Add, a, b) => {
            sum_terms(a, positive, rename, out)?;
            sum_terms(b, positive, rename, out)
        }
        NodeKind::Binary(BinOp::Sub, a, b) => {
            sum_terms(a, positive, rename, out)?;
            sum_terms(b, !positive, rename, out)
        }
        NodeKind::Neg(x) => sum_terms(x, !positive, rename, out),
        _ => {
            out.push((positive, shape(node, rename)?));
            Some(())
        }
    }
}

fn extreme_operands(
    node: &Node,
    is_min: bool,
    rename: &dyn Fn(usize) -> usize,
    out: &mut Vec<Shape>,
) -> Option<()> {
    match &node.kind {
        NodeKind::Min(xs) if is_min => xs
            .iter()
            .try_for_each(|x| extreme_operands(x, is_min, rename, out)),
        NodeKind::Max(xs) if !is_min => xs
            .iter()
            .try_for_each(|x| extreme_operands(x, is_min, rename, out)),
        _ => {
            out.push(shape(node, rename)?);
            Some(())
        }
    }
}

fn logic_operands(
    node: &Node,
    is_and: bool,
    rename: &dyn Fn(usize) -> usize,
    out: &mut Vec<Shape>,
) -> Option<()> {
    match &node.kind {
        NodeKind::And(a, b) if is_and => {
            logic_operands(a, is_and, rename, out)?;
            logic_operands(b, is_and, rename, out)
        }
        NodeKind::Or(a, b) if !is_and => {
            logic_operands(a, is_and, rename, out)?;
            logic_operands(b, is_and, rename, out)
        }
        _ => {
            out.push(shape(node, rename)?);
            Some(())
        }
    }
}

/// Whether swapping the variables in slots `a` and `b` leaves `rest` computing the same.
fn symmetric_in(rest: &Node, a: usize, b: usize) -> bool {
    let same = shape(rest, &|s| s);
    let swapped = shape(rest, &|s| {
        if s == a {
            b
        } else if s == b {
            a
        } else {
            s
        }
    });
    same.is_some() && same == swapped
}

/// Whether every number a distribution holds is small enough for the symmetry test.
fn small_numbers(d: &Distribution<Value>) -> bool {
    d.outcomes().all(|v| match v {
        Value::Int(x) => x.unsigned_abs() <= SYMMETRY_MAGNITUDE as u64,
        Value::Ratio(_) => false,
        _ => true,
    })
}

/// The combinations of one class of exchangeable bindings: sorted indices into the class's outcomes,
/// each with the weight of every order it stands for.
struct Class {
    slots: Vec<usize>,
    outcomes: Vec<Value>,
    /// `slots.len()` indices per combination, one after the other.
    picks: Vec<usize>,
    weights: Weights,
}

/// The combinations' weights, in machine words while they fit.
enum Weights {
    Words(Vec<u128>),
    Big(Vec<Weight>),
}

impl Class {
    fn len(&self) -> usize {
        match &self.weights {
            Weights::Words(w) => w.len(),
            Weights::Big(w) => w.len(),
        }
    }

    fn picks(&self, k: usize) -> &[usize] {
        let m = self.slots.len();
        &self.picks[k * m..(k + 1) * m]
    }

    fn weight(&self, k: usize) -> Weight {
        match &self.weights {
            Weights::Words(w) => Weight::from(w[k]),
            Weights::Big(w) => w[k].clone(),
        }
    }

    /// Bits of the largest weight.
    fn bits(&self) -> u64 {
        match &self.weights {
            Weights::Words(w) => w.iter().map(|x| 128 - u64::from(x.leading_zeros())).max(),
            Weights::Big(w) => w.iter().map(Weight::bits).max(),
        }
        .unwrap_or(0)
    }
}

/// How many sorted combinations of `m` out of `r` outcomes there are: C(r + m − 1, m), or `None`
/// past `u128`.
fn multisets(r: usize, m: usize) -> Option<u128> {
    let mut c: u128 = 1;
    for i in 0..m as u128 {
        c = c.checked_mul(r as u128 + i)? / (i + 1);
    }
    Some(c)
}

impl Class {
    /// Every sorted combination of `slots.len()` draws from `d`, weighted by the product of the
    /// draws' weights times the number of distinct orders (the multinomial coefficient).
    fn new(slots: Vec<usize>, d: &Distribution<Value>) -> Self {
        let m = slots.len();
        let weights: Vec<&Weight> = d.entries().iter().map(|(_, w)| w).collect();
        let small: Option<Vec<u128>> = weights
            .iter()
            .map(|w| u64::try_from(*w).ok().map(u128::from))
            .collect();
        let count = multisets(weights.len(), m).map_or(0, |c| c as usize);
        let mut picks = Vec::with_capacity(count * m);
        let mut weights_out = Weights::Words(Vec::with_capacity(count));
        // k! for every k whose factorial fits in a machine word (up to 34).
        let mut factorials: Vec<u128> = vec![1];
        while let Some(next) = factorials
            .last()
            .and_then(|f| f.checked_mul(factorials.len() as u128))
        {
            factorials.push(next);
        }
        let mut pick = vec![0usize; m];
        loop {
            // The number of distinct orders: m! / Π(run length)! over the runs of equal picks.
            let mut orders = BigUint::from(1u32);
            let mut orders_word: Option<u128> = factorials.get(m).copied();
            let mut start = 0;
            for i in 1..=m {
                if i == m || pick[i] != pick[start] {
                    orders_word = orders_word.map(|o| o / factorials[i - start]);
                    start = i;
                }
            }
            if orders_word.is_none() {
                let factorial =
                    |k: usize| -> BigUint { (1..=k as u64).map(BigUint::from).product() };
                orders = factorial(m);
                let mut start = 0;
                for i in 1..=m {
                    if i == m || pick[i] != pick[start] {
                        orders /= factorial(i - start);
                        start = i;
                    }
                }
            }
            let word = match (&small, orders_word) {
                (Some(small), Some(o)) => {
                    pick.iter().try_fold(o, |acc, &i| acc.checked_mul(small[i]))
                }
                _ => None,
            };
            match (&mut weights_out, word) {
                (Weights::Words(words), Some(w)) => words.push(w),
                (out, word) => {
                    let w = word.map_or_else(
                        || {
                            let o = orders_word.map_or(orders, BigUint::from);
                            pick.iter().map(|&i| weights[i]).product::<Weight>() * o
                        },
                        Weight::from,
                    );
                    if let Weights::Words(words) = out {
                        *out = Weights::Big(words.iter().map(|&x| Weight::from(x)).collect());
                    }
                    if let Weights::Big(big) = out {
                        big.push(w);
                    }
                }
            }
            picks.extend_from_slice(&pick);
            // The next non-decreasing sequence.
            let Some(i) = (0..m).rev().find(|&i| pick[i] + 1 < weights.len()) else {
                break;
            };
            let next = pick[i] + 1;
            pick[i..].iter_mut().for_each(|p| *p = next);
        }
        Class {
            slots,
            outcomes: d.outcomes().cloned().collect(),
            picks,
            weights: weights_out,
        }
    }
}

/// The sum of weights for one outcome, in a machine word until it overflows.
#[derive(Default)]
struct Accumulator {
    small: u128,
    big: BigUint,
}

impl Accumulator {
    fn add(&mut self, w: u128) {
        match self.small.checked_add(w) {
            Some(s) => self.small = s,
            None => {
                self.big += self.small;
                self.small = w;
            }
        }
    }

    fn add_all(&mut self, other: Accumulator) {
        self.add(other.small);
        self.big += other.big;
    }

    fn total(self) -> BigUint {
        self.big + self.small
    }
}

/// The rest compiled for numbers and true/false only (true/false held as 1/0): a tree of machine-word
/// operations, a few instructions per node instead of evaluating distributions. Anything it cannot
/// run (labels, tuples, fractions, a branch, a value of the wrong kind) is left to the evaluator,
/// and so is any combination on which it meets an error, so that the error is the evaluator's.
#[derive(Debug)]
enum Op {
    Const(i64),
    Load(usize),
    /// Binds the first in the slot, then runs the second.
    Let(usize, Box<Op>, Box<Op>),
    Neg(Box<Op>),
    Abs(Box<Op>),
    Binary(BinOp, Box<Op>, Box<Op>),
    /// `min` (true) or `max` (false).
    Extreme(bool, Vec<Op>),
    Compare(Compare, Box<Op>, Box<Op>),
    And(Box<Op>, Box<Op>),
    Or(Box<Op>, Box<Op>),
    Not(Box<Op>),
    /// The second when the first is true, else the third; only the one taken is run.
    If(Box<Op>, Box<Op>, Box<Op>),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Word {
    Int,
    Bool,
}

struct Machine {
    root: Op,
    result: Word,
}

impl Machine {
    /// `kinds[slot]`: what a slot holds when the machine starts (`None`: not a number or true/false).
    fn compile(node: &Node, kinds: &mut Kinds) -> Option<Machine> {
        let (root, result) = Self::emit(node, kinds)?;
        Some(Machine { root, result })
    }

    fn emit(node: &Node, kinds: &mut Kinds) -> Option<(Op, Word)> {
        let int = |(op, w): (Op, Word)| (w == Word::Int).then_some(Box::new(op));
        let boolean = |(op, w): (Op, Word)| (w == Word::Bool).then_some(Box::new(op));
        Some(match &node.kind {
            NodeKind::Const(Value::Int(x)) => (Op::Const(*x), Word::Int),
            NodeKind::Const(Value::Bool(b)) => (Op::Const(i64::from(*b)), Word::Bool),
            NodeKind::Var(slot, _) => (Op::Load(*slot), (*kinds.get(*slot)?)?),
            NodeKind::Let {
                slot, value, body, ..
            } => {
                let (value, kind) = Self::emit(value, kinds)?;
                if kinds.len() <= *slot {
                    kinds.resize(*slot + 1, None);
                }
                kinds[*slot] = Some(kind);
                let (body, word) = Self::emit(body, kinds)?;
                (Op::Let(*slot, Box::new(value), Box::new(body)), word)
            }
            NodeKind::Label(_, x) => Self::emit(x, kinds)?,
            NodeKind::Neg(x) => (Op::Neg(int(Self::emit(x, kinds)?)?), Word::Int),
            NodeKind::Abs(x) => (Op::Abs(int(Self::emit(x, kinds)?)?), Word::Int),
            // Real division can make a fraction: left to the evaluator.
            NodeKind::Binary(BinOp::Quotient, ..) => return None,
            NodeKind::Binary(op, a, b) => (
                Op::Binary(
                    *op,
                    int(Self::emit(a, kinds)?)?,
                    int(Self::emit(b, kinds)?)?,
                ),
                Word::Int,
            ),
            NodeKind::Min(xs) | NodeKind::Max(xs) => {
                let items = xs
                    .iter()
                    .map(|x| int(Self::emit(x, kinds)?).map(|b| *b))
                    .collect::<Option<Vec<Op>>>()?;
                (
                    Op::Extreme(matches!(node.kind, NodeKind::Min(_)), items),
                    Word::Int,
                )
            }
            NodeKind::Compare(op, a, b) => {
                let (left, lw) = Self::emit(a, kinds)?;
                let (right, rw) = Self::emit(b, kinds)?;
                // Ordering true/false is allowed (false < true), as for values.
                (lw == rw).then_some(())?;
                (
                    Op::Compare(*op, Box::new(left), Box::new(right)),
                    Word::Bool,
                )
            }
            NodeKind::And(a, b) => (
                Op::And(
                    boolean(Self::emit(a, kinds)?)?,
                    boolean(Self::emit(b, kinds)?)?,
                ),
                Word::Bool,
            ),
            NodeKind::Or(a, b) => (
                Op::Or(
                    boolean(Self::emit(a, kinds)?)?,
                    boolean(Self::emit(b, kinds)?)?,
                ),
                Word::Bool,
            ),
            NodeKind::Not(x) => (Op::Not(boolean(Self::emit(x, kinds)?)?), Word::Bool),
            NodeKind::If(c, a, b) => {
                let condition = boolean(Self::emit(c, kinds)?)?;
                let (then, word) = Self::emit(a, kinds)?;
                let (otherwise, other) = Self::emit(b, kinds)?;
                (word == other).then_some(())?;
                (Op::If(condition, Box::new(then), Box::new(otherwise)), word)
            }
            // A field of a bound tuple of numbers: its own register.
            NodeKind::Field(x, i) => match x.kind {
                NodeKind::Var(slot, _) => {
                    let &(_, first, arity) = kinds.fields.iter().find(|f| f.0 == slot)?;
                    (*i < arity).then_some(())?;
                    (Op::Load(first + i), (*kinds.get(first + i)?)?)
                }
                _ => return None,
            },
            _ => return None,
        })
    }

    /// The rest's value with `registers` holding the slots; `None` on any error.
    fn run(&self, registers: &mut [i64]) -> Option<i64> {
        Self::eval(&self.root, registers)
    }

    fn eval(op: &Op, registers: &mut [i64]) -> Option<i64> {
        Some(match op {
            Op::Const(x) => *x,
            Op::Load(slot) => registers[*slot],
            Op::Let(slot, value, body) => {
                registers[*slot] = Self::eval(value, registers)?;
                Self::eval(body, registers)?
            }
            Op::Neg(x) => Self::eval(x, registers)?.checked_neg()?,
            Op::Abs(x) => Self::eval(x, registers)?.checked_abs()?,
            Op::Binary(op, a, b) => {
                let x = Self::eval(a, registers)?;
                let y = Self::eval(b, registers)?;
                match op {
                    BinOp::Add => x.checked_add(y)?,
                    BinOp::Sub => x.checked_sub(y)?,
                    BinOp::Mul => x.checked_mul(y)?,
                    _ => op.apply_extra(x, y).ok()?,
                }
            }
            Op::Extreme(is_min, items) => {
                let mut acc = Self::eval(&items[0], registers)?;
                for item in &items[1..] {
                    let x = Self::eval(item, registers)?;
                    acc = if *is_min { acc.min(x) } else { acc.max(x) };
                }
                acc
            }
            Op::Compare(c, a, b) => {
                let x = Self::eval(a, registers)?;
                let y = Self::eval(b, registers)?;
                i64::from(c.holds(x, y))
            }
            Op::And(a, b) => Self::eval(a, registers)? & Self::eval(b, registers)?,
            Op::Or(a, b) => Self::eval(a, registers)? | Self::eval(b, registers)?,
            Op::Not(x) => 1 - Self::eval(x, registers)?,
            Op::If(c, a, b) => {
                if Self::eval(c, registers)? != 0 {
                    Self::eval(a, registers)?
                } else {
                    Self::eval(b, registers)?
                }
            }
        })
    }

    fn value(&self, word: i64) -> Value {
        match self.result {
            Word::Int => Value::Int(word),
            Word::Bool => Value::Bool(word != 0),
        }
    }
}

impl Evaluator<'_> {
    /// A chain of `let`s at `node` rolled jointly, when its values do not depend on one another and
    /// what follows them rolls no dice; `None` when it does not apply (the caller branches instead).
    pub(super) fn joint_bindings(&mut self, node: &Node) -> Option<Result<Eval, Diagnostic>> {
        let mut chain: Vec<(usize, &Node)> = Vec::new();
        let mut slots: Vec<usize> = Vec::new();
        let mut rest = node;
        while let NodeKind::Let {
            slot, value, body, ..
        } = &rest.kind
        {
            if reads_any(value, &slots) {
                break;
            }
            chain.push((*slot, value));
            slots.push(*slot);
            rest = body;
        }
        if chain.is_empty() || !computes_only(rest) {
            return None;
        }
        Some(self.joint(node, &chain, rest))
    }

    /// The distributions of a chain's bound values, each evaluated as at its place in the chain
    /// (its own bindings after it), and the mass their explosions cut.
    fn chain_values(
        &mut self,
        chain: &[(usize, &Node)],
    ) -> Result<(Vec<Distribution<Value>>, Probability), Diagnostic> {
        let first = chain[0].0;
        let mut truncated = Probability::zero();
        let mut values: Vec<Distribution<Value>> = Vec::with_capacity(chain.len());
        for &(slot, value) in chain {
            self.env.resize(slot, Value::Int(0));
            let e = self.eval(value);
            self.env.truncate(first);
            let e = e?;
            truncated = either(&truncated, &e.truncated);
            values.push(e.dist);
        }
        Ok((values, truncated))
    }

    fn joint(
        &mut self,
        node: &Node,
        chain: &[(usize, &Node)],
        rest: &Node,
    ) -> Result<Eval, Diagnostic> {
        let span = node.span;
        let at = |e: CoreError| core_diagnostic(&e, span);
        let first = chain[0].0;
        let (values, truncated) = self.chain_values(chain)?;
        let members = exchangeable(chain, &values, rest);
        // Refused before any combination is built when there are too many to run.
        self.budget
            .spend_estimate(combinations_cost(&members, &values, rest))
            .map_err(at)?;
        let classes: Vec<Class> = members
            .into_iter()
            .map(|(i, class)| Class::new(class, &values[i]))
            .collect();
        let words = word_weights(&classes);
        let mut sums: BTreeMap<Value, Accumulator> = BTreeMap::new();
        let mut big_sums: BTreeMap<Value, Weight> = BTreeMap::new();
        let top = chain.iter().map(|(s, _)| *s).max().expect("a chain") + 1;
        self.env.resize(top, Value::Int(0));
        let (mut kinds, mut registers) = machine_frame(&self.env, &classes, rest);
        let machine = Machine::compile(rest, &mut kinds);
        registers.resize(kinds.len().max(top), 0);
        let words_of: Vec<Vec<i64>> = classes
            .iter()
            .map(|c| c.outcomes.iter().map(register_of).collect())
            .collect();
        if let (Some(machine), Some([weights]), [class]) =
            (&machine, words.as_deref(), &classes[..])
            && let Some(dist) =
                machine.run_each(class, weights, &kinds, &mut registers, self.budget)
        {
            self.env.truncate(first);
            return Ok(Eval::plain(dist.map_err(at)?.normalized(), truncated));
        }
        let mut word_sums: BTreeMap<i64, Accumulator> = BTreeMap::new();
        let mut odometer = vec![0usize; classes.len()];
        let mut rounds = 0u32;
        let result = (|| -> Result<(), Diagnostic> {
            loop {
                // Paid up front; a cancelled computation still stops within a few thousand.
                rounds = rounds.wrapping_add(1);
                if rounds.is_multiple_of(4096) {
                    self.budget.check().map_err(at)?;
                }
                if sums.len() + word_sums.len() + big_sums.len() > self.limits.max_outcomes as usize
                {
                    self.limits
                        .check_outcomes(self.limits.max_outcomes as u128 + 1)
                        .map_err(at)?;
                }
                if let (Some(machine), Some(words)) = (&machine, &words) {
                    for ((class, &k), outcomes) in classes.iter().zip(&odometer).zip(&words_of) {
                        for (slot, &i) in class.slots.iter().zip(class.picks(k)) {
                            registers[*slot] = outcomes[i];
                            kinds.load_fields(*slot, &class.outcomes[i], &mut registers);
                        }
                    }
                    if let Some(x) = machine.run(&mut registers) {
                        let w = words.iter().zip(&odometer).map(|(w, &k)| w[k]).product();
                        word_sums.entry(x).or_default().add(w);
                        if !advance(&mut odometer, &classes) {
                            return Ok(());
                        }
                        continue;
                    }
                }
                for (class, &k) in classes.iter().zip(&odometer) {
                    for (slot, &i) in class.slots.iter().zip(class.picks(k)) {
                        self.env[*slot] = class.outcomes[i].clone();
                    }
                }
                self.env.truncate(top);
                // The rest rolls no dice: its distribution is its one value.
                let v = self.eval(rest)?.dist.min_outcome().clone();
                match &words {
                    Some(words) => {
                        let w = words.iter().zip(&odometer).map(|(w, &k)| w[k]).product();
                        sums.entry(v).or_default().add(w);
                    }
                    None => {
                        let w: Weight = classes
                            .iter()
                            .zip(&odometer)
                            .map(|(c, &k)| c.weight(k))
                            .product();
                        *big_sums.entry(v).or_default() += w;
                    }
                }
                if !advance(&mut odometer, &classes) {
                    return Ok(());
                }
            }
        })();
        self.env.truncate(first);
        result?;
        let pairs = gathered(machine.as_ref(), words.is_some(), sums, word_sums, big_sums);
        self.limits
            .check_outcomes(pairs.len() as u128)
            .map_err(at)?;
        let dist = Distribution::from_weights(pairs).map_err(at)?;
        Ok(Eval::plain(dist.normalized(), truncated))
    }
}

/// The outcomes the odometer's run added up, with their weights: from the machine's words, the
/// map keyed by values, or the big weights' map.
fn gathered(
    machine: Option<&Machine>,
    small: bool,
    mut sums: BTreeMap<Value, Accumulator>,
    mut word_sums: BTreeMap<i64, Accumulator>,
    big_sums: BTreeMap<Value, Weight>,
) -> Vec<(Value, Weight)> {
    // Every combination ran on the machine and its result is a number: the words are the
    // outcomes, already in order, so they skip the map keyed by values (a fifth of the work
    // of `let r = symbols(…); r.0 * 1000000 + …` over eight Genesys dice' 508 outcomes).
    let direct = small && sums.is_empty() && machine.is_some_and(|m| m.result == Word::Int);
    if let (Some(machine), false) = (machine, direct) {
        for (x, a) in std::mem::take(&mut word_sums) {
            sums.entry(machine.value(x)).or_default().add_all(a);
        }
    }
    if direct {
        (word_sums.into_iter())
            .map(|(x, a)| (Value::Int(x), a.total()))
            .collect()
    } else if small {
        sums.into_iter().map(|(v, a)| (v, a.total())).collect()
    } else {
        big_sums.into_iter().collect()
    }
}

/// Moves the odometer to the next combination; `false` after the last.
fn advance(odometer: &mut [usize], classes: &[Class]) -> bool {
    let Some(i) = (0..classes.len())
        .rev()
        .find(|&i| odometer[i] + 1 < classes[i].len())
    else {
        return false;
    };
    odometer[i] += 1;
    odometer[i + 1..].iter_mut().for_each(|k| *k = 0);
    true
}

fn count_nodes(node: &Node) -> u64 {
    match &node.kind {
        NodeKind::Dice(_)
        | NodeKind::Group(_)
        | NodeKind::Call(..)
        | NodeKind::Process { .. }
        | NodeKind::Pool(_)
        | NodeKind::InTurn(_)
        | NodeKind::InTurnSet(_)
        | NodeKind::FoundryRolled(_) => 1,
        _ => {
            let mut count = 1;
            node.each_operand(&mut |n| count += count_nodes(n));
            count
        }
    }
}

/// Exchangeable classes: bindings of one distribution that `rest` reads symmetrically, each as the
/// index of its first binding in the chain and the slots of all its members.
fn exchangeable(
    chain: &[(usize, &Node)],
    values: &[Distribution<Value>],
    rest: &Node,
) -> Vec<(usize, Vec<usize>)> {
    let mut members: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut assigned = vec![false; chain.len()];
    for i in 0..chain.len() {
        if assigned[i] {
            continue;
        }
        assigned[i] = true;
        let mut class = vec![chain[i].0];
        if small_numbers(&values[i]) {
            for j in i + 1..chain.len() {
                let last = *class.last().expect("one member");
                if !assigned[j] && values[j] == values[i] && symmetric_in(rest, last, chain[j].0) {
                    assigned[j] = true;
                    class.push(chain[j].0);
                }
            }
        }
        members.push((i, class));
    }
    members
}

/// What running `rest` once for every combination of the classes' members costs (saturating).
fn combinations_cost(
    members: &[(usize, Vec<usize>)],
    values: &[Distribution<Value>],
    rest: &Node,
) -> u128 {
    let combinations = members.iter().try_fold(1u128, |acc, (i, class)| {
        acc.checked_mul(multisets(values[*i].len(), class.len())?)
    });
    let per_combination =
        count_nodes(rest) as u128 * SCALAR_NODE_COST as u128 + COMBINATION_COST as u128;
    combinations.map_or(u128::MAX, |c| c.saturating_mul(per_combination))
}

/// The classes' weights in machine words, when every product of one combination from each class
/// fits in one.
fn word_weights(classes: &[Class]) -> Option<Vec<&[u128]>> {
    let bits: u64 = classes.iter().map(Class::bits).sum();
    if bits > 127 {
        return None;
    }
    classes
        .iter()
        .map(|c| match &c.weights {
            Weights::Words(w) => Some(w.as_slice()),
            Weights::Big(_) => None,
        })
        .collect()
}

/// The kind of machine word a value is: the machine sees numbers and true/false only.
fn word_of(v: &Value) -> Option<Word> {
    match v {
        Value::Int(_) => Some(Word::Int),
        Value::Bool(_) => Some(Word::Bool),
        _ => None,
    }
}

/// A value as a machine register (true/false as 1/0; anything else never reaches the machine).
fn register_of(v: &Value) -> i64 {
    match v {
        Value::Int(x) => *x,
        Value::Bool(b) => i64::from(*b),
        _ => 0,
    }
}

/// What each register holds when the machine starts (`None`: not a number or true/false), and the
/// slots holding tuples of numbers whose fields the machine reads: (slot, first register, arity).
struct Kinds {
    words: Vec<Option<Word>>,
    fields: Vec<(usize, usize, usize)>,
}

impl std::ops::Deref for Kinds {
    type Target = Vec<Option<Word>>;
    fn deref(&self) -> &Self::Target {
        &self.words
    }
}

impl std::ops::DerefMut for Kinds {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.words
    }
}

/// The machine's view of the frame: each slot's word kind (a class's slots take the kind all its
/// outcomes share, if they share one) and the registers holding the outer frame's values. A class
/// of tuples of numbers of one arity (`let r = symbols(p)`, read as `r.0`, `r.1`) has registers for
/// its fields, after every slot `rest` binds; so has each tuple the frame holds (see
/// `Kinds::frame_fields`), its fields loaded here.
fn machine_frame(env: &[Value], classes: &[Class], rest: &Node) -> (Kinds, Vec<i64>) {
    let mut kinds = Kinds {
        words: env.iter().map(word_of).collect(),
        fields: Vec::new(),
    };
    let mut registers: Vec<i64> = env.iter().map(register_of).collect();
    let loads = kinds.fields_for(classes, env, rest);
    registers.resize(kinds.len().max(registers.len()), 0);
    for (register, value) in loads {
        registers[register] = value;
    }
    for class in classes {
        let kind = class
            .outcomes
            .iter()
            .map(word_of)
            .reduce(|a, b| if a == b { a } else { None })
            .flatten();
        for &slot in &class.slots {
            kinds[slot] = kind;
        }
    }
    (kinds, registers)
}

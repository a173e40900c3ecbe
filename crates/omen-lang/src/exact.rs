//! The exact interpreter: a program's whole distribution, as integer weights.

use num_integer::Integer;
use num_traits::{One, Zero};
use omen_core::{
    Budget, Compare, CoreError, DiceSpec, Die, Distribution, Exact, Explosion, Limits, PoolSpec,
    Probability, Unit, Weight, sequential_keep_sum,
};

use crate::check::core_diagnostic;
use crate::diagnostic::Diagnostic;
use crate::program::{DiceNode, GroupNode, Node, NodeKind, Program, SidesNode};
use crate::span::Span;
use crate::syntax::ast::BinOp;

/// A distribution over the values a program can produce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueDistribution {
    Int(Distribution<i64>),
    Bool(Distribution<bool>),
}

/// The exact result of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactResult {
    pub distribution: ValueDistribution,
    /// P(some die reached the explosion depth limit while still meeting its explode condition).
    pub truncated: Probability,
}

/// Computes the exact distribution of a checked program.
///
/// # Errors
/// A diagnostic at the node that failed: a limit (outcomes, work budget), an overflow, a division by a
/// value that can be zero, a random dice count that can be negative or too large.
pub fn exact(program: &Program, limits: &Limits) -> Result<ExactResult, Diagnostic> {
    let mut budget = limits.budget();
    let mut ev = Evaluator {
        limits,
        budget: &mut budget,
    };
    let (distribution, truncated) = ev.value(&program.root)?;
    Ok(ExactResult {
        distribution,
        truncated,
    })
}

struct Evaluator<'a> {
    limits: &'a Limits,
    budget: &'a mut Budget,
}

/// P(A or B) for independent A and B.
fn either(a: &Probability, b: &Probability) -> Probability {
    if a.is_zero() {
        return b.clone();
    }
    if b.is_zero() {
        return a.clone();
    }
    Probability::one() - (Probability::one() - a) * (Probability::one() - b)
}

type Traced<T> = Result<(Distribution<T>, Probability), Diagnostic>;

impl Evaluator<'_> {
    fn value(&mut self, node: &Node) -> Result<(ValueDistribution, Probability), Diagnostic> {
        if let NodeKind::Compare(op, l, r) = &node.kind {
            let (d, t) = self.compare(node.span, *op, l, r)?;
            return Ok((ValueDistribution::Bool(d), t));
        }
        if let NodeKind::Label(_, inner) = &node.kind {
            return self.value(inner);
        }
        let (d, t) = self.int(node)?;
        Ok((ValueDistribution::Int(d), t))
    }

    fn compare(&mut self, span: Span, op: Compare, l: &Node, r: &Node) -> Traced<bool> {
        let (lv, lt) = self.value(l)?;
        let (rv, rt) = self.value(r)?;
        let at = |e: CoreError| core_diagnostic(&e, span);
        let d = match (lv, rv) {
            (ValueDistribution::Int(a), ValueDistribution::Int(b)) => a
                .combine(&b, self.budget, |x, y| Ok(op.holds(*x, *y)))
                .map_err(at)?,
            (ValueDistribution::Bool(a), ValueDistribution::Bool(b)) => {
                a.combine(&b, self.budget, |x, y| Ok(x == y)).map_err(at)?
            }
            _ => unreachable!("the checker rejects comparisons across types"),
        };
        Ok((d, either(&lt, &rt)))
    }

    fn int(&mut self, node: &Node) -> Traced<i64> {
        let span = node.span;
        let at = |e: CoreError| core_diagnostic(&e, span);
        match &node.kind {
            NodeKind::Const(n) => Ok((Distribution::constant(*n), Probability::zero())),
            NodeKind::Label(_, inner) => self.int(inner),
            NodeKind::Neg(inner) => {
                let (d, t) = self.int(inner)?;
                let d = d
                    .try_map(|x| x.checked_neg().ok_or(CoreError::Overflow))
                    .map_err(at)?;
                Ok((d, t))
            }
            NodeKind::Abs(inner) => {
                let (d, t) = self.int(inner)?;
                let d = d
                    .try_map(|x| x.checked_abs().ok_or(CoreError::Overflow))
                    .map_err(at)?;
                Ok((d, t))
            }
            NodeKind::Binary(op, l, r) => {
                let (a, ta) = self.int(l)?;
                let (b, tb) = self.int(r)?;
                let d = match op {
                    BinOp::Add => a.add(&b, self.limits, self.budget),
                    BinOp::Sub => b
                        .try_map(|x| x.checked_neg().ok_or(CoreError::Overflow))
                        .and_then(|nb| a.add(&nb, self.limits, self.budget)),
                    BinOp::Mul => a.combine(&b, self.budget, |x, y| {
                        x.checked_mul(*y).ok_or(CoreError::Overflow)
                    }),
                    BinOp::Div => {
                        if !b.weight(&0).is_zero() {
                            return Err(core_diagnostic(&CoreError::DivisionByZero, r.span));
                        }
                        a.combine(&b, self.budget, |x, y| {
                            if *x == i64::MIN && *y == -1 {
                                return Err(CoreError::Overflow);
                            }
                            Ok(Integer::div_floor(x, y))
                        })
                    }
                }
                .map_err(at)?;
                self.limits.check_outcomes(d.len() as u128).map_err(at)?;
                Ok((d, either(&ta, &tb)))
            }
            NodeKind::Min(args) | NodeKind::Max(args) => {
                let is_min = matches!(node.kind, NodeKind::Min(_));
                let mut iter = args.iter();
                let (mut acc, mut t) = self.int(iter.next().expect("checked: at least one"))?;
                for a in iter {
                    let (d, ta) = self.int(a)?;
                    acc = acc
                        .combine(&d, self.budget, |x, y| {
                            Ok(if is_min { *x.min(y) } else { *x.max(y) })
                        })
                        .map_err(at)?;
                    t = either(&t, &ta);
                }
                Ok((acc, t))
            }
            NodeKind::Dice(dice) => self.dice(span, dice),
            NodeKind::Group(group) => self.group(span, group),
            NodeKind::Compare(..) => unreachable!("the checker types comparisons as true/false"),
        }
    }

    /// Mixes `f(k)` over the outcomes k of `d`, weighting each by P(k).
    fn mix_over(
        &mut self,
        d: &Distribution<i64>,
        mut f: impl FnMut(&mut Self, i64) -> Result<Exact<i64>, Diagnostic>,
    ) -> Traced<i64> {
        if d.len() == 1 {
            let e = f(self, *d.min_outcome())?;
            return Ok((e.distribution, e.truncated));
        }
        let mut parts = Vec::with_capacity(d.len());
        let mut truncated = Probability::zero();
        for (k, w) in d.entries() {
            let e = f(self, *k)?;
            truncated += Probability::new(w.clone(), d.total().clone()) * e.truncated;
            parts.push((w.clone(), e.distribution));
        }
        let mixed =
            Distribution::mixture(parts).map_err(|e| core_diagnostic(&e, Span::default()))?;
        Ok((mixed, truncated))
    }

    fn dice(&mut self, span: Span, dice: &DiceNode) -> Traced<i64> {
        let (count, count_t) = self.int(&dice.count)?;
        let count_span = dice.count.span;
        let limits = self.limits;
        // Sides first (a mixture over dice), then the count (a mixture over pool sizes).
        let (dist, t) = match &dice.sides {
            SidesNode::Fixed(die) => {
                let die = die.clone();
                self.mix_over(&count, |ev, k| {
                    ev.pool(span, count_span, dice, die.clone(), k)
                })?
            }
            SidesNode::Random(sides_node) => {
                let (sides, sides_t) = self.int(sides_node)?;
                let sides_span = sides_node.span;
                let (d, t) = self.mix_over(&sides, |ev, s| {
                    let die =
                        Die::standard(s, limits).map_err(|e| core_diagnostic(&e, sides_span))?;
                    let (d, t) = ev.mix_over(&count, |ev, k| {
                        ev.pool(span, count_span, dice, die.clone(), k)
                    })?;
                    Ok(Exact {
                        distribution: d,
                        truncated: t,
                    })
                })?;
                (d, either(&t, &sides_t))
            }
        };
        Ok((dist, either(&t, &count_t)))
    }

    fn pool(
        &mut self,
        span: Span,
        count_span: Span,
        dice: &DiceNode,
        die: Die,
        count: i64,
    ) -> Result<Exact<i64>, Diagnostic> {
        let spec = pool_spec(dice, die, count, self.limits, count_span)?;
        spec.exact(self.limits, self.budget)
            .map_err(|e| core_diagnostic(&e, span))
    }

    fn group(&mut self, span: Span, group: &GroupNode) -> Traced<i64> {
        let mut units = Vec::with_capacity(group.members.len());
        let mut truncated = Probability::zero();
        for m in &group.members {
            let (d, t) = self.int(m)?;
            truncated = either(&truncated, &t);
            units.push(Unit::single(&d));
        }
        let d = sequential_keep_sum(
            &units,
            group.keep,
            &|x| group.score(x),
            self.limits,
            self.budget,
        )
        .map_err(|e| core_diagnostic(&e, span))?;
        Ok((d, truncated))
    }
}

/// The core pool for a dice term with a known die and count.
///
/// # Errors
/// The count is negative or over the limit; the die's steps reroll every face.
pub fn pool_spec(
    dice: &DiceNode,
    die: Die,
    count: i64,
    limits: &Limits,
    count_span: Span,
) -> Result<PoolSpec, Diagnostic> {
    let count = limits
        .check_dice(count)
        .map_err(|e| core_diagnostic(&e, count_span))?;
    let depth = limits
        .check_explode_depth()
        .map_err(|e| core_diagnostic(&e, count_span))?;
    let mut spec = DiceSpec {
        die,
        before: dice.before.clone(),
        explosion: None,
        after: dice.after.clone(),
    };
    if let Some((compound, condition)) = dice.explosion {
        let condition = match condition {
            Some(c) => c,
            None => omen_core::Condition::new(
                Compare::Eq,
                spec.highest_face()
                    .map_err(|e| core_diagnostic(&e, count_span))?,
            ),
        };
        spec.explosion = Some(Explosion {
            condition,
            compound,
        });
    }
    Ok(PoolSpec {
        count,
        dice: spec,
        keep: dice.keep,
        success: dice.success,
        failure: dice.failure,
        depth,
    })
}

impl ValueDistribution {
    /// The total weight.
    pub fn total(&self) -> &Weight {
        match self {
            ValueDistribution::Int(d) => d.total(),
            ValueDistribution::Bool(d) => d.total(),
        }
    }
}

//! The exact interpreter: a program's whole distribution, as integer weights.
//!
//! Bindings are exact: a `let` (or a function argument) is rolled once by branching over its outcomes
//! and evaluating the rest once per outcome, so every use sees the same roll (`let x = d6; x + x` is
//! 2·d6). Everything else that is random is independent by construction, so it combines by
//! convolution and products. Function calls are memoised on their arguments.

use std::collections::BTreeMap;

mod calls;
mod criticals;
mod dice;
mod joint;
mod operators;
mod pool;
mod pool_explode;
mod pool_fold;
mod pool_kept_counts;
mod pool_kinds;
mod pool_kinds_eval;
mod pool_spec;
mod product;
mod statistics;

pub(crate) use calls::call_distribution;
pub(crate) use calls::recursion_error;
pub use criticals::Criticals;
use criticals::criticals;
pub use pool_spec::pool_spec;

use num_bigint::BigInt;
use num_rational::Ratio;
use num_traits::Zero;
use omen_core::distribution::either;
use omen_core::{Budget, Compare, CoreError, Distribution, Limits, Probability, Weight};

use crate::diagnostic::{Diagnostic, core_diagnostic, kind_error};
use crate::number::{self, NumberError};
use crate::program::{Node, NodeKind, PoolSource, Program};
use crate::span::Span;
use crate::syntax::ast::BinOp;
use crate::value::Value;

/// A distribution over the values a program can produce: numbers and true/false get their own
/// variants (most programs produce one of those); anything else (labels, tuples, mixes) is `Values`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueDistribution {
    Int(Distribution<i64>),
    Bool(Distribution<bool>),
    Values(Distribution<Value>),
}

impl ValueDistribution {
    /// The total weight.
    pub fn total(&self) -> &Weight {
        match self {
            ValueDistribution::Int(d) => d.total(),
            ValueDistribution::Bool(d) => d.total(),
            ValueDistribution::Values(d) => d.total(),
        }
    }

    /// The same distribution over `Value`s.
    pub fn values(&self) -> Distribution<Value> {
        match self {
            ValueDistribution::Int(d) => d.map(|&x| Value::Int(x)),
            ValueDistribution::Bool(d) => d.map(|&b| Value::Bool(b)),
            ValueDistribution::Values(d) => d.clone(),
        }
    }

    fn classify(d: Distribution<Value>) -> Self {
        if d.outcomes().all(|v| matches!(v, Value::Int(_))) {
            ValueDistribution::Int(d.map(|v| match v {
                Value::Int(x) => *x,
                _ => unreachable!("checked: all numbers"),
            }))
        } else if d.outcomes().all(|v| matches!(v, Value::Bool(_))) {
            ValueDistribution::Bool(d.map(|v| matches!(v, Value::Bool(true))))
        } else {
            ValueDistribution::Values(d)
        }
    }
}

/// The exact result of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactResult {
    pub distribution: ValueDistribution,
    /// P(some die reached the explosion depth limit while still meeting its explode condition).
    /// Exact for independent terms; where a `let`-bound value that explodes is branched on, its
    /// limit and the rest's are combined as if independent.
    pub truncated: Probability,
    /// For a program whose result is an `absorb(…)` query: the exact expected number of steps.
    pub expected_steps: Option<Ratio<BigInt>>,
    /// P(the roll shows a critical success, a critical failure): for programs whose dice marked with
    /// `cs`/`cf` are each rolled exactly once, with a count and a die known before rolling.
    pub criticals: Criticals,
    /// The labels the program writes, in the order it first writes them ([`Program::labels`]): the
    /// order to list labelled outcomes in, which the distribution's sorted values do not keep.
    pub labels: Vec<Value>,
}

/// Computes the exact distribution of a checked program.
///
/// # Errors
/// A diagnostic at the node that failed: a limit (outcomes, states, work budget, recursion), an
/// overflow, a division by a value that can be zero, a random dice count that can be negative or too
/// large, a value of the wrong kind.
pub fn exact(program: &Program, limits: &Limits) -> Result<ExactResult, Diagnostic> {
    exact_with_budget(program, limits, &mut limits.budget())
}

/// [`exact`], spending from a budget the caller holds: several computations (a report over many
/// expressions) can share one budget, and the caller can read what each spent.
///
/// # Errors
/// As [`exact`]; the work budget is the one given.
pub fn exact_with_budget(
    program: &Program,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<ExactResult, Diagnostic> {
    let mut ev = Evaluator {
        program,
        limits,
        budget,
        env: Vec::new(),
        depth: 0,
        nesting: 0,
        memo: BTreeMap::new(),
    };
    let r = ev.eval(&program.root)?;
    let criticals = criticals(program, limits, budget)?;
    Ok(ExactResult {
        distribution: ValueDistribution::classify(r.dist),
        truncated: r.truncated,
        expected_steps: r.expected_steps,
        criticals,
        labels: program.labels.clone(),
    })
}

#[derive(Clone, Debug)]
struct Eval {
    dist: Distribution<Value>,
    truncated: Probability,
    expected_steps: Option<Ratio<BigInt>>,
}

impl Eval {
    fn plain(dist: Distribution<Value>, truncated: Probability) -> Self {
        Eval {
            dist,
            truncated,
            expected_steps: None,
        }
    }
}

struct Evaluator<'a> {
    program: &'a Program,
    limits: &'a Limits,
    budget: &'a mut Budget,
    env: Vec<Value>,
    depth: usize,
    /// Nodes on the evaluation's path (every call's body included), against [`crate::MAX_NESTING`].
    nesting: usize,
    /// Ordered rather than hashed: no random hash keys to fetch from the system on the first call,
    /// and no hash collisions for a hostile script to aim at.
    memo: BTreeMap<(usize, Vec<Value>), Eval>,
}

/// What evaluating one node costs from the work budget besides the arithmetic it does: the
/// bookkeeping of a node (a clone, a small map) takes about as long as this many limb multiply-adds.
const NODE_COST: u64 = 200;

/// What copying one outcome of a remembered call's result costs besides its weight's limbs.
const ENTRY_COPY_COST: u64 = 16;

/// What one branch of a mixture costs besides its own evaluation: the rest is run again for it, and
/// its result kept until the parts are mixed.
const BRANCH_COST: u64 = 1_000;

/// What one outcome of a branch's result costs to hold, convert and mix (allocations, ordered maps of
/// values), besides the arithmetic the mixture pays for.
const ENTRY_COST: u64 = 500;

fn ints(d: &Distribution<Value>, span: Span, what: &str) -> Result<Distribution<i64>, Diagnostic> {
    ints_named(d, span, || what.to_owned())
}

/// [`ints`] with the name of the operand made only for the error.
fn ints_named(
    d: &Distribution<Value>,
    span: Span,
    what: impl Fn() -> String,
) -> Result<Distribution<i64>, Diagnostic> {
    d.try_map(|v| match v {
        Value::Int(x) => Ok(*x),
        other => Err(kind_error(span, &what(), "a whole number", other)),
    })
}

/// The distribution of `f(X)` for a function of one number (`-x`, `abs`, `floor`, …).
fn map_number(
    d: &Distribution<Value>,
    operand: Span,
    what: &str,
    whole: Span,
    f: impl Fn(&Value) -> Result<Value, NumberError>,
) -> Result<Distribution<Value>, Diagnostic> {
    d.try_map(|v| {
        f(v).map_err(|e| match e {
            NumberError::NotNumber { got, .. } => kind_error(operand, what, "a number", &got),
            e => e.diagnostic(what, operand, operand, whole),
        })
    })
}

fn bools(
    d: &Distribution<Value>,
    span: Span,
    what: &str,
) -> Result<Distribution<bool>, Diagnostic> {
    d.try_map(|v| match v {
        Value::Bool(b) => Ok(*b),
        other => Err(kind_error(span, what, "true/false", other)),
    })
}

fn from_ints(d: Distribution<i64>) -> Distribution<Value> {
    d.map_into(Value::Int)
}

/// Compares two values with `op`; ordering needs values of one kind.
pub(crate) fn compare_values(
    op: Compare,
    a: &Value,
    b: &Value,
    span: Span,
) -> Result<bool, Diagnostic> {
    match op {
        Compare::Eq => return Ok(a == b),
        Compare::Ne => return Ok(a != b),
        // Sets are points of dice rerolls only; a total compared with one holds when it is a member.
        Compare::Among(_) => {
            return Ok(matches!((a, b), (Value::Int(x), Value::Int(y)) if op.holds(*x, *y)));
        }
        _ => {}
    }
    if !a.comparable(b) {
        return Err(Diagnostic::error(
            "type-mismatch",
            span,
            format!(
                "cannot order {} ({a}) against {} ({b})",
                a.kind_name(),
                b.kind_name()
            ),
        ));
    }
    let ord = a.cmp(b);
    Ok(match op {
        Compare::Ge => ord.is_ge(),
        Compare::Gt => ord.is_gt(),
        Compare::Le => ord.is_le(),
        Compare::Lt => ord.is_lt(),
        Compare::Eq | Compare::Ne | Compare::Among(_) => unreachable!("handled above"),
    })
}

impl Evaluator<'_> {
    fn core(&self, span: Span) -> impl Fn(CoreError) -> Diagnostic {
        move |e| core_diagnostic(&e, span)
    }

    /// Mixes the results of `f` over the outcomes of `d`, weighting each by its probability.
    fn branch<T: Clone + Ord>(
        &mut self,
        d: &Distribution<T>,
        span: Span,
        mut f: impl FnMut(&mut Self, &T) -> Result<Eval, Diagnostic>,
    ) -> Result<Eval, Diagnostic> {
        if d.len() == 1 {
            return f(self, d.min_outcome());
        }
        let mut parts = Vec::with_capacity(d.len());
        let mut truncated = Probability::zero();
        let mut expected: Option<Ratio<BigInt>> = Some(Ratio::zero());
        for (v, w) in d.entries() {
            self.budget.spend(BRANCH_COST).map_err(self.core(span))?;
            let e = f(self, v)?;
            // Every part is held until the mix, and every outcome of it converted and mixed.
            self.budget
                .spend((e.dist.len() as u64).saturating_mul(ENTRY_COST))
                .map_err(self.core(span))?;
            // The branch's probability (a reduction by a gcd) only where something needs it.
            let p = || Probability::new(w.clone(), d.total().clone());
            if !e.truncated.is_zero() {
                truncated += &p() * &e.truncated;
            }
            expected = match (expected, e.expected_steps) {
                (Some(acc), Some(x)) => {
                    let p = p();
                    Some(
                        acc + Ratio::new(
                            BigInt::from(p.numer().clone()),
                            BigInt::from(p.denom().clone()),
                        ) * x,
                    )
                }
                _ => None,
            };
            parts.push((w.clone(), e.dist));
        }
        let dist = Distribution::mixture(parts, self.budget).map_err(self.core(span))?;
        self.limits
            .check_outcomes(dist.len() as u128)
            .map_err(self.core(span))?;
        Ok(Eval {
            dist,
            truncated,
            expected_steps: expected,
        })
    }

    /// `l op r` where an operand can be a fraction, or for real division: outcome by outcome, with
    /// the arithmetic of [`number`].
    fn fractions(
        &mut self,
        op: BinOp,
        (a, l): (&Eval, &Node),
        (b, r): (&Eval, &Node),
        span: Span,
    ) -> Result<Eval, Diagnostic> {
        if matches!(op, BinOp::Quotient | BinOp::Div | BinOp::Mod)
            && !b.dist.weight(&Value::Int(0)).is_zero()
        {
            return Err(core_diagnostic(&CoreError::DivisionByZero, r.span));
        }
        let mut err = None;
        let d = a
            .dist
            .combine(&b.dist, self.budget, |x, y| {
                Ok(number::binary(op, x, y).unwrap_or_else(|e| {
                    err.get_or_insert(e);
                    Value::Int(0)
                }))
            })
            .map_err(|e| core_diagnostic(&e, span))?;
        if let Some(e) = err {
            return Err(e.diagnostic(&format!("`{}`", op.symbol()), l.span, r.span, span));
        }
        self.limits
            .check_outcomes(d.len() as u128)
            .map_err(|e| core_diagnostic(&e, span))?;
        Ok(Eval::plain(d, either(&a.truncated, &b.truncated)))
    }

    fn eval(&mut self, node: &Node) -> Result<Eval, Diagnostic> {
        if self.nesting >= crate::MAX_NESTING {
            return Err(crate::nesting_error(node.span));
        }
        self.budget
            .spend(NODE_COST)
            .map_err(|e| core_diagnostic(&e, node.span))?;
        self.nesting += 1;
        let r = self.eval_node(node);
        self.nesting -= 1;
        r
    }

    fn eval_node(&mut self, node: &Node) -> Result<Eval, Diagnostic> {
        let span = node.span;
        let at = |e: CoreError| core_diagnostic(&e, span);
        match &node.kind {
            NodeKind::Const(v) => Ok(constant(v.clone())),
            NodeKind::Var(slot, _) => Ok(constant(self.env[*slot].clone())),
            NodeKind::Let {
                slot, value, body, ..
            } => self.binding(node, *slot, value, body),
            NodeKind::Label(_, inner) => self.eval(inner),
            NodeKind::Neg(inner) | NodeKind::Abs(inner) => {
                let e = self.eval(inner)?;
                let abs = matches!(node.kind, NodeKind::Abs(_));
                let d = map_number(&e.dist, inner.span, "the operand", span, |x| {
                    number::negate(x, abs)
                })?;
                Ok(Eval::plain(d, e.truncated))
            }
            NodeKind::Round(how, inner) => {
                let e = self.eval(inner)?;
                let what = format!("the argument of `{}`", how.name());
                let d = map_number(&e.dist, inner.span, &what, span, |x| number::round(*how, x))?;
                Ok(Eval::plain(d, e.truncated))
            }
            NodeKind::Binary(op, l, r) => self.binary(*op, l, r, span),
            NodeKind::Min(args) | NodeKind::Max(args) => {
                self.min_max(matches!(node.kind, NodeKind::Min(_)), args, span)
            }
            NodeKind::Compare(op, l, r) => self.compare(*op, l, r, span),
            NodeKind::And(l, r) | NodeKind::Or(l, r) => {
                let is_and = matches!(node.kind, NodeKind::And(..));
                let a = self.eval(l)?;
                let b = self.eval(r)?;
                let x = bools(&a.dist, l.span, "each side")?;
                let y = bools(&b.dist, r.span, "each side")?;
                let d = x
                    .combine(&y, self.budget, |p, q| {
                        Ok(if is_and { *p && *q } else { *p || *q })
                    })
                    .map_err(at)?;
                Ok(Eval::plain(
                    d.map(|&b| Value::Bool(b)),
                    either(&a.truncated, &b.truncated),
                ))
            }
            NodeKind::Not(inner) => {
                let e = self.eval(inner)?;
                let d = bools(&e.dist, inner.span, "the operand of `not`")?;
                Ok(Eval::plain(d.map(|&b| Value::Bool(!b)), e.truncated))
            }
            NodeKind::Tuple(items) => self.tuple(items, span),
            NodeKind::Field(inner, index) => {
                if let NodeKind::Pool(pool) = &inner.kind
                    && let PoolSource::Symbols(dice) = &pool.source
                    && pool.readings.len() == 1
                {
                    // Its one reading read in place: no tuple of readings to build and take apart.
                    return self.symbol_pool(inner.span, dice, None);
                }
                let e = self.eval(inner)?;
                let single = |v: &Value| matches!(v, Value::Tuple(items) if items.len() == 1);
                if matches!(&inner.kind, NodeKind::Pool(_)) && e.dist.outcomes().all(single) {
                    // The tuple of a pool's one reading: taking its member keeps the order.
                    let d = e.dist.map_increasing_into(|v| match &v {
                        Value::Tuple(items) => items[0].clone(),
                        _ => v,
                    });
                    return Ok(Eval::plain(d, e.truncated));
                }
                let d = e.dist.try_map(|v| field(v, *index, span))?;
                Ok(Eval::plain(d, e.truncated))
            }
            NodeKind::If(c, a, b) => {
                let cond = self.eval(c)?;
                let d = bools(&cond.dist, c.span, "the condition of `if`")?;
                let mut r =
                    self.branch(&d, span, |ev, &which| ev.eval(if which { a } else { b }))?;
                r.truncated = either(&cond.truncated, &r.truncated);
                Ok(r)
            }
            NodeKind::Match(x, arms) => self.match_arms(x, arms, span),
            NodeKind::Call(f, args) => {
                // Every combination of argument values, each rolled once for the whole call.
                let (combos, t) = self.product(args, span)?;
                let mut r = self.branch(&combos, span, |ev, args| ev.call(*f, args, span))?;
                r.truncated = either(&t, &r.truncated);
                Ok(r)
            }
            NodeKind::Process {
                query,
                function,
                start,
                steps,
            } => self.process(span, *query, *function, start, steps.as_deref()),
            NodeKind::Dice(dice) => self.dice(span, dice),
            NodeKind::Group(group) => self.group(span, group),
            NodeKind::Pool(pool) => self.pool_readings(span, pool),
            NodeKind::InTurn(term) => self.in_turn(span, term),
            NodeKind::InTurnSet(set) => self.in_turn_set(span, set),
            NodeKind::FoundryRolled(term) => self.foundry_rolled(span, term),
        }
    }
}

impl Evaluator<'_> {
    /// A term run in turn: its procedure's own walk.
    fn in_turn(
        &mut self,
        span: Span,
        term: &crate::program::InTurnNode,
    ) -> Result<Eval, Diagnostic> {
        let (dist, truncated) = term
            .term
            .distribution(self.limits, self.budget)
            .map_err(|e| core_diagnostic(&e, span))?;
        Ok(Eval::plain(dist.map_increasing_into(Value::Int), truncated))
    }

    /// A Foundry term with a rolled count or sides: the term run in turn for each count and sides
    /// they can show, mixed by their chances.
    fn foundry_rolled(
        &mut self,
        span: Span,
        term: &crate::program::FoundryRolledNode,
    ) -> Result<Eval, Diagnostic> {
        let count = self.eval(&term.count)?;
        let counts = ints(&count.dist, term.count.span, "the number of dice")?;
        let (sides_d, sides_cut) = match &term.sides {
            Some(node) => {
                let sides = self.eval(node)?;
                let d = ints(&sides.dist, node.span, "the number of sides")?;
                (d.map_increasing_into(Some), sides.truncated)
            }
            None => (Distribution::constant(None), Probability::zero()),
        };
        let limits = self.limits;
        let mut r = self.branch(&sides_d, span, |ev, &s| {
            ev.branch(&counts, span, |ev, &k| {
                let built = term
                    .term(k, s, span, limits)
                    .map_err(|(at, e)| core_diagnostic(&e, at))?;
                let (dist, truncated) = built
                    .distribution(limits, ev.budget)
                    .map_err(|e| core_diagnostic(&e, span))?;
                Ok(Eval::plain(dist.map_increasing_into(Value::Int), truncated))
            })
        })?;
        r.truncated = either(&r.truncated, &either(&count.truncated, &sides_cut));
        Ok(r)
    }

    /// A d20 set's keeps and drops in turn: every combination of its members' values.
    fn in_turn_set(
        &mut self,
        span: Span,
        set: &crate::program::InTurnSetNode,
    ) -> Result<Eval, Diagnostic> {
        let (combos, truncated) = self.product(&set.members, span)?;
        let dist = combos
            .try_map(|values| set.total(values).map(|(total, _)| Value::Int(total)))
            .map_err(|e| core_diagnostic(&e, span))?;
        Ok(Eval::plain(dist.normalized(), truncated))
    }
}

/// A value known before any roll.
fn constant(v: Value) -> Eval {
    Eval::plain(Distribution::constant(v), Probability::zero())
}

fn op_symbol(op: BinOp) -> &'static str {
    op.symbol()
}

/// Member `index` of a tuple value.
pub(crate) fn field(v: &Value, index: usize, span: Span) -> Result<Value, Diagnostic> {
    match v {
        Value::Tuple(items) => items.get(index).cloned().ok_or_else(|| {
            Diagnostic::error(
                "no-such-field",
                span,
                format!(
                    "{v} has {} members; `.{index}` is past the end",
                    items.len()
                ),
            )
            .with_help("members count from 0")
        }),
        other => Err(kind_error(
            span,
            &format!("the value before `.{index}`"),
            "a tuple",
            other,
        )),
    }
}

//! The exact interpreter: a program's whole distribution, as integer weights.
//!
//! Bindings are exact: a `let` (or a function argument) is rolled once by branching over its outcomes
//! and evaluating the rest once per outcome, so every use sees the same roll (`let x = d6; x + x` is
//! 2·d6). Everything else that is random is independent by construction, so it combines by
//! convolution and products. Function calls are memoised on their arguments.

use std::collections::BTreeMap;

mod joint;
mod pool;
mod product;
mod statistics;

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::Ratio;
use num_traits::{One, Zero};
use omen_core::{
    Budget, Chain, Compare, CoreError, DiceSpec, Die, Distribution, Exact, Explosion, Keep, Limits,
    PoolSpec, Probability, Unit, Weight, keep_sum, sequential_keep_sum,
};

use crate::diagnostic::{Diagnostic, core_diagnostic, kind_error};
use crate::group_scale;
use crate::number::{self, NumberError};
use crate::program::{
    DiceNode, GroupNode, Node, NodeKind, PointTarget, ProcessQuery, Program, SidesNode,
};
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

/// The probabilities of the critical marks (`cs`, `cf`) a roll's transcript can show: `None` where the
/// program has no such mark, or one this computation does not cover (a mark inside a function, a
/// branch or a `let`, or on dice whose count or sides are rolled); then `not_computed` says why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Criticals {
    pub success: Option<Probability>,
    pub failure: Option<Probability>,
    /// P(some set of matching dice) for dice marked with `m` or `mt`.
    pub matched: Option<Probability>,
    /// Why the program's critical marks have no probability here, for the output to say so.
    pub not_computed: Option<&'static str>,
}

impl Criticals {
    fn not_computed(reason: &'static str) -> Self {
        Criticals {
            not_computed: Some(reason),
            ..Criticals::default()
        }
    }
}

/// The marks are somewhere a roll may reach any number of times, or not at all.
const MARKS_IN_BRANCHES: &str = "the marked dice are inside a function, a branch of `if` or `match`, \
    or a process, where a roll may roll them several times or not at all; P(critical) is given for \
    marked dice that every roll rolls once";

fn marked(dice: &DiceNode) -> bool {
    dice.critical_success.is_some() || dice.critical_failure.is_some() || dice.matching.is_some()
}

/// Whether a dice term under `node` carries a critical mark.
fn any_marked(node: &Node) -> bool {
    match &node.kind {
        NodeKind::Dice(d) => marked(d) || any_marked(&d.count),
        _ => node.operands().into_iter().any(any_marked),
    }
}

/// The marked dice terms under `node`, each rolled exactly once per run of the program; `false` when
/// a marked term may be rolled any other number of times (in a branch, a function, a process). Both
/// interpreters evaluate both sides of `and`/`or` and a binding's value once.
fn marked_once<'n>(node: &'n Node, out: &mut Vec<&'n DiceNode>) -> bool {
    match &node.kind {
        NodeKind::Dice(d) => {
            if marked(d) {
                out.push(d);
            }
            !any_marked(&d.count)
        }
        // The condition is rolled once; a branch only sometimes.
        NodeKind::If(c, a, b) => marked_once(c, out) && !any_marked(a) && !any_marked(b),
        NodeKind::Match(x, arms) => marked_once(x, out) && !arms.iter().any(|(_, n)| any_marked(n)),
        // A function's body or a process's step may run any number of times.
        NodeKind::Call(..) | NodeKind::Process { .. } => !any_marked(node),
        // A binding's value is rolled once per run, whatever the body does with it; every other
        // operand once.
        _ => node.operands().into_iter().all(|c| marked_once(c, out)),
    }
}

/// P(some die marked `cs` (or `cf`) shows a critical), and P(some set of matching dice) for terms
/// marked `m`/`mt`: the marked terms are each rolled once and independently, so P(none) is the
/// product of each term's P(none).
fn criticals(
    program: &Program,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Criticals, Diagnostic> {
    let mut terms = Vec::new();
    if program.functions.iter().any(|f| any_marked(&f.body))
        || !marked_once(&program.root, &mut terms)
    {
        return Ok(Criticals::not_computed(MARKS_IN_BRANCHES));
    }
    let one = || Probability::from_integer(1u32.into());
    let mut none: [Option<Probability>; 2] = [None, None];
    let mut no_set: Option<Probability> = None;
    for dice in terms {
        let (NodeKind::Const(Value::Int(count)), SidesNode::Fixed(die)) =
            (&dice.count.kind, &dice.sides)
        else {
            return Ok(Criticals::not_computed(
                "the number or the sides of the marked dice are rolled; P(critical) is given for \
                 marked dice whose count and sides are known before rolling",
            ));
        };
        if !dice.points.is_empty() {
            return Ok(Criticals::not_computed(
                "a point of the marked dice is a name, known only when the program runs",
            ));
        }
        let spec = pool_spec(dice, die.clone(), *count, limits, dice.count.span)?;
        let faces = die.distribution();
        let points = [
            (dice.critical_success, *faces.max_outcome()),
            (dice.critical_failure, *faces.min_outcome()),
        ];
        for (slot, (point, face)) in none.iter_mut().zip(points) {
            let Some(point) = point else { continue };
            let c = point.unwrap_or(omen_core::Condition::new(Compare::Eq, face));
            let hit = spec
                .any_die_meets(c, limits, budget)
                .map_err(|e| core_diagnostic(&e, dice.count.span))?;
            let before = slot.take().unwrap_or_else(one);
            *slot = Some(before * (one() - hit));
        }
        if let Some(matching) = dice.matching {
            let hit = spec
                .any_match(matching, limits, budget)
                .map_err(|e| core_diagnostic(&e, dice.count.span))?;
            no_set = Some(no_set.unwrap_or_else(one) * (one() - hit));
        }
    }
    let [success, failure] = none;
    Ok(Criticals {
        success: success.map(|p| one() - p),
        failure: failure.map(|p| one() - p),
        matched: no_set.map(|p| one() - p),
        not_computed: None,
    })
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
            NodeKind::Const(v) => Ok(Eval::plain(
                Distribution::constant(v.clone()),
                Probability::zero(),
            )),
            NodeKind::Var(slot, _) => Ok(Eval::plain(
                Distribution::constant(self.env[*slot].clone()),
                Probability::zero(),
            )),
            NodeKind::Let {
                slot, value, body, ..
            } => {
                if let Some(r) = self.joint_bindings(node) {
                    return r;
                }
                let v = self.eval(value)?;
                let mut r = self.branch(&v.dist, span, |ev, x| {
                    ev.env.truncate(*slot);
                    ev.env.push(x.clone());
                    let r = ev.eval(body);
                    ev.env.truncate(*slot);
                    r
                })?;
                r.truncated = either(&v.truncated, &r.truncated);
                Ok(r)
            }
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
            NodeKind::Binary(op, l, r) => {
                let a = self.eval(l)?;
                let b = self.eval(r)?;
                let side =
                    |e: &Eval, n: &Node, side: &str| -> Result<Distribution<i64>, Diagnostic> {
                        ints_named(&e.dist, n.span, || {
                            format!("the {side} side of `{}`", op_symbol(*op))
                        })
                    };
                let whole =
                    |d: &Distribution<Value>| d.outcomes().all(|v| matches!(v, Value::Int(_)));
                if *op == BinOp::Quotient || !whole(&a.dist) || !whole(&b.dist) {
                    return self.fractions(*op, (&a, l), (&b, r), span);
                }
                let (x, y) = (side(&a, l, "left")?, side(&b, r, "right")?);
                let d = match op {
                    BinOp::Add => x.add(&y, self.limits, self.budget),
                    BinOp::Sub => y
                        .try_map(|v| v.checked_neg().ok_or(CoreError::Overflow))
                        .and_then(|ny| x.add(&ny, self.limits, self.budget)),
                    BinOp::Mul => x.combine(&y, self.budget, |p, q| {
                        p.checked_mul(*q).ok_or(CoreError::Overflow)
                    }),
                    BinOp::Div => {
                        if !y.weight(&0).is_zero() {
                            return Err(core_diagnostic(&CoreError::DivisionByZero, r.span));
                        }
                        x.combine(&y, self.budget, |p, q| {
                            if *p == i64::MIN && *q == -1 {
                                return Err(CoreError::Overflow);
                            }
                            Ok(Integer::div_floor(p, q))
                        })
                    }
                    BinOp::Mod | BinOp::Pow | BinOp::Quotient => {
                        x.combine(&y, self.budget, |p, q| op.apply_extra(*p, *q))
                    }
                }
                .map_err(at)?;
                self.limits.check_outcomes(d.len() as u128).map_err(at)?;
                Ok(Eval::plain(
                    from_ints(d),
                    either(&a.truncated, &b.truncated),
                ))
            }
            NodeKind::Min(args) | NodeKind::Max(args) => {
                let is_min = matches!(node.kind, NodeKind::Min(_));
                let mut acc: Option<(Distribution<Value>, Probability)> = None;
                for a in args {
                    let e = self.eval(a)?;
                    let d = map_number(&e.dist, a.span, "an argument", span, |v| Ok(v.clone()))?;
                    acc = Some(match acc {
                        None => (d, e.truncated),
                        Some((acc, t)) => (
                            acc.combine(&d, self.budget, |x, y| {
                                Ok(if is_min { x.min(y) } else { x.max(y) }.clone())
                            })
                            .map_err(at)?,
                            either(&t, &e.truncated),
                        ),
                    });
                }
                let (d, t) = acc.expect("checked: at least one argument");
                Ok(Eval::plain(d, t))
            }
            NodeKind::Compare(op, l, r) => {
                let a = self.eval(l)?;
                let b = self.eval(r)?;
                let mut err = None;
                let d = a
                    .dist
                    .combine(&b.dist, self.budget, |x, y| {
                        Ok(compare_values(*op, x, y, span).unwrap_or_else(|e| {
                            err.get_or_insert(e);
                            false
                        }))
                    })
                    .map_err(at)?;
                if let Some(e) = err {
                    return Err(e);
                }
                Ok(Eval::plain(
                    d.map(|&b| Value::Bool(b)),
                    either(&a.truncated, &b.truncated),
                ))
            }
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
                let e = self.eval(inner)?;
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
            NodeKind::Match(x, arms) => {
                let e = self.eval(x)?;
                // Which arm each outcome takes; the arms' bodies then mix by those weights.
                let mut err = None;
                let chosen: Distribution<usize> = e.dist.map(|v| {
                    arms.iter()
                        .position(|(p, _)| p.matches(v))
                        .unwrap_or_else(|| {
                            err.get_or_insert_with(|| {
                                Diagnostic::error(
                                    "no-match",
                                    span,
                                    format!("no arm of this `match` matches {v}"),
                                )
                                .with_help("add a last arm `_ => …` for everything else")
                            });
                            0
                        })
                });
                if let Some(err) = err {
                    return Err(err);
                }
                let mut r = self.branch(&chosen, span, |ev, &i| ev.eval(&arms[i].1))?;
                r.truncated = either(&e.truncated, &r.truncated);
                Ok(r)
            }
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
        }
    }

    /// Calls user function `f` with argument values, in a fresh frame of the globals it sees.
    fn call(&mut self, f: usize, args: &[Value], span: Span) -> Result<Eval, Diagnostic> {
        let function = &self.program.functions[f];
        let mut frame: Vec<Value> = self.env[..function.globals].to_vec();
        frame.extend_from_slice(args);
        let key = (f, frame);
        if let Some(hit) = self.memo.get(&key) {
            // A remembered result is copied whole: `f(n - 1) + f(n - 1)` copies a distribution as
            // big as the call's, every outcome and every limb of its weight.
            let limbs = hit.dist.total().bits() / 64 + 1;
            let copy =
                (hit.dist.len() as u64).saturating_mul(limbs.saturating_add(ENTRY_COPY_COST));
            self.budget
                .spend(copy)
                .map_err(|e| core_diagnostic(&e, span))?;
            return Ok(hit.clone());
        }
        if self.depth as u64 >= self.limits.max_call_depth {
            return Err(recursion_error(
                span,
                &function.name,
                self.limits.max_call_depth,
            ));
        }
        self.depth += 1;
        let saved = std::mem::replace(&mut self.env, key.1.clone());
        let r = self.eval(&function.body);
        self.env = saved;
        self.depth -= 1;
        let r = r?;
        self.memo.insert(key, r.clone());
        Ok(r)
    }

    fn process(
        &mut self,
        span: Span,
        query: ProcessQuery,
        function: usize,
        start: &Node,
        steps: Option<&Node>,
    ) -> Result<Eval, Diagnostic> {
        let s = self.eval(start)?;
        if query == ProcessQuery::After {
            // Walk forward step by step: only the states reachable in n steps are ever visited.
            let n_node = steps.expect("checked: after has a step count");
            let n = self.eval(n_node)?;
            let n = ints(&n.dist, n_node.span, "the number of steps")?;
            let mut r = self.branch(&n, span, |ev, &k| {
                if k < 0 {
                    return Err(Diagnostic::error(
                        "negative-steps",
                        n_node.span,
                        format!("cannot take {k} steps"),
                    ));
                }
                let mut state = Eval::plain(s.dist.clone(), s.truncated.clone());
                for _ in 0..k {
                    // Each step visits every state (a memoised call, a mixture): it pays for them,
                    // so a huge n is refused by the budget instead of looping, and the states it
                    // may hold are those of any other process.
                    let states = state.dist.len() as u64;
                    ev.budget
                        .spend(NODE_COST.saturating_mul(states))
                        .map_err(|e| core_diagnostic(&e, span))?;
                    let next = ev.branch(&state.dist, span, |ev, x| {
                        ev.call(function, std::slice::from_ref(x), span)
                    })?;
                    if next.dist.len() as u64 > ev.limits.max_chain_states {
                        return Err(core_diagnostic(
                            &CoreError::TooManyChainStates {
                                limit: ev.limits.max_chain_states,
                            },
                            span,
                        ));
                    }
                    let settled = next.dist == state.dist;
                    state = Eval::plain(next.dist, either(&state.truncated, &next.truncated));
                    if settled {
                        break; // a fixed point: every further step gives the same distribution
                    }
                }
                Ok(state)
            })?;
            r.expected_steps = None;
            return Ok(r);
        }
        let limits = self.limits;
        let mut step_truncated = Probability::zero();
        // Exploring spends its own bookkeeping budget; the steps themselves spend the evaluation's.
        let mut explore_budget = limits.budget();
        let chain = Chain::explore(
            &s.dist,
            limits,
            &mut explore_budget,
            |e| core_diagnostic(&e, span),
            |state| {
                let r = self.call(function, std::slice::from_ref(state), span)?;
                if r.truncated > step_truncated {
                    step_truncated = r.truncated.clone();
                }
                Ok(r.dist)
            },
        )?;
        let truncated = either(&s.truncated, &step_truncated);
        if query == ProcessQuery::Absorb {
            let a = chain
                .absorption(self.budget)
                .map_err(|e| process_error(&e, span, &chain))?;
            return Ok(Eval {
                dist: a.distribution,
                truncated,
                expected_steps: Some(a.expected_steps),
            });
        }
        let d = chain
            .stationary(self.budget)
            .map_err(|e| process_error(&e, span, &chain))?;
        Ok(Eval::plain(d, truncated))
    }

    /// The joint values of a term's named compare points (usually one constant each).
    fn point_values(
        &mut self,
        points: &[(PointTarget, Node)],
        span: Span,
    ) -> Result<Distribution<Vec<i64>>, Diagnostic> {
        let mut combos: Distribution<Vec<i64>> = Distribution::constant(Vec::new());
        for (_, node) in points {
            let e = self.eval(node)?;
            let d = ints(&e.dist, node.span, "a compare point")?;
            combos = combos
                .combine(&d, self.budget, |prefix, v| {
                    let mut next = prefix.clone();
                    next.push(*v);
                    Ok(next)
                })
                .map_err(|e| core_diagnostic(&e, span))?;
        }
        Ok(combos)
    }

    fn dice(&mut self, span: Span, dice: &DiceNode) -> Result<Eval, Diagnostic> {
        if !dice.points.is_empty() {
            let combos = self.point_values(&dice.points, span)?;
            return self.branch(&combos, span, |ev, values| {
                ev.dice(span, &dice.resolved(values))
            });
        }
        let count = self.eval(&dice.count)?;
        let counts = ints(&count.dist, dice.count.span, "the number of dice")?;
        let count_span = dice.count.span;
        let mut r = match &dice.sides {
            SidesNode::Fixed(die) => self.branch(&counts, span, |ev, &k| {
                ev.pool(span, count_span, dice, die.clone(), k)
            })?,
            SidesNode::Random(sides_node) => {
                let sides = self.eval(sides_node)?;
                let sides_d = ints(&sides.dist, sides_node.span, "the number of sides")?;
                let limits = self.limits;
                let mut r = self.branch(&sides_d, span, |ev, &s| {
                    let die = Die::standard(s, limits)
                        .map_err(|e| core_diagnostic(&e, sides_node.span))?;
                    ev.branch(&counts, span, |ev, &k| {
                        ev.pool(span, count_span, dice, die.clone(), k)
                    })
                })?;
                r.truncated = either(&r.truncated, &sides.truncated);
                r
            }
        };
        r.truncated = either(&r.truncated, &count.truncated);
        Ok(r)
    }

    fn pool(
        &mut self,
        span: Span,
        count_span: Span,
        dice: &DiceNode,
        die: Die,
        count: i64,
    ) -> Result<Eval, Diagnostic> {
        let spec = pool_spec(dice, die, count, self.limits, count_span)?;
        if let Some(ends) = dice.ends {
            let d = crate::keep_ends::pool_exact(&spec, ends, self.limits, self.budget)
                .map_err(|e| core_diagnostic(&e, span))?;
            return Ok(Eval::plain(from_ints(d), omen_core::Probability::zero()));
        }
        let Exact {
            distribution,
            truncated,
        } = spec
            .exact(self.limits, self.budget)
            .map_err(|e| core_diagnostic(&e, span))?;
        // Stopping after one extra die is what `!o` means, not mass cut off by the limit.
        let truncated = if dice.explode_once && spec.depth >= 1 {
            omen_core::Probability::zero()
        } else {
            truncated
        };
        Ok(Eval::plain(from_ints(distribution), truncated))
    }

    fn group(&mut self, span: Span, group: &GroupNode) -> Result<Eval, Diagnostic> {
        if !group.points.is_empty() {
            let combos = self.point_values(&group.points, span)?;
            return self.branch(&combos, span, |ev, values| {
                ev.group(span, &group.resolved(values))
            });
        }
        let mut members = Vec::with_capacity(group.members.len());
        let mut truncated = Probability::zero();
        let mut sum: Option<Distribution<i64>> = None;
        let evals = (group.members.iter())
            .map(|m| self.eval(m))
            .collect::<Result<Vec<_>, _>>()?;
        let scale = group_scale_of(group, &evals);
        let finish = |d: Distribution<i64>| match scale {
            1 => from_ints(d),
            scale => d.map_into(|x| group_scale::unscaled(x, scale)),
        };
        for (m, e) in group.members.iter().zip(&evals) {
            truncated = either(&truncated, &e.truncated);
            let member = match scale {
                1 => ints(&e.dist, m.span, "a group member")?,
                scale => e.dist.try_map(|v| {
                    group_scale::scaled(v, scale)
                        .ok_or_else(|| core_diagnostic(&omen_core::CoreError::Overflow, m.span))
                })?,
            };
            if group.keep == Keep::All {
                // Every member counts: the scores add up, by convolution, member by member.
                let scored = member.map(|&x| group.score(x));
                sum = Some(match sum {
                    None => scored,
                    Some(acc) => acc
                        .add(&scored, self.limits, self.budget)
                        .map_err(|e| core_diagnostic(&e, span))?,
                });
                continue;
            }
            members.push(member);
        }
        if let Some(sum) = sum {
            return Ok(Eval::plain(finish(sum), truncated));
        }
        let score = |x: i64| group.score(x);
        // Members that are all alike (`{3d6, 3d6, 3d6}kh2`, `{d20, d20}kh1`) are a pool of that
        // member: the pool walks over faces, far faster than adding one member at a time, and they
        // take middle runs too.
        let d = match members.split_first() {
            Some((first, rest)) if rest.iter().all(|m| m == first) => keep_sum(
                first,
                members.len(),
                group.keep,
                &score,
                self.limits,
                self.budget,
            ),
            // Middle runs of different members: one walk over the pool's sorted outcomes.
            _ if matches!(
                group.keep,
                Keep::Middle(_) | Keep::Slice { .. } | Keep::DropBoth { .. }
            ) =>
            {
                self.kept_window(&members, group.keep, &score)
            }
            _ => {
                let units: Vec<Unit> = members.iter().map(Unit::single).collect();
                sequential_keep_sum(&units, group.keep, &score, self.limits, self.budget)
            }
        }
        .map_err(|e| core_diagnostic(&e, span))?;
        Ok(Eval::plain(finish(d), truncated))
    }
}

/// The scale that makes the members of `group` whole (see [`group_scale`]): 1 when they are, or
/// when the group counts successes, whose points compare whole values.
fn group_scale_of(group: &GroupNode, members: &[Eval]) -> i64 {
    if group.success.is_some() || group.failure.is_some() {
        return 1;
    }
    let values = members
        .iter()
        .flat_map(|e| e.dist.entries().iter().map(|(v, _)| v));
    group_scale::common_denominator(values).unwrap_or(1)
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

pub(crate) fn recursion_error(span: Span, name: &str, limit: u64) -> Diagnostic {
    Diagnostic::error(
        "recursion-limit",
        span,
        format!("`{name}` recursed more than {limit} calls deep; raise --max-call-depth if it must"),
    )
    .with_help("make sure the recursion ends; for a random number of repeated steps use a process: `absorb(step, start)`")
}

fn process_error<S: Ord + Clone + std::fmt::Display>(
    e: &CoreError,
    span: Span,
    chain: &Chain<S>,
) -> Diagnostic {
    match e {
        CoreError::NeverAbsorbs { state } => Diagnostic::error(
            "never-absorbs",
            span,
            format!(
                "from the state {} the process can never reach a state it stays in for good",
                chain.states[*state]
            ),
        )
        .with_help("a state is absorbing when its step returns it unchanged; for a chain that never stops use `stationary(step, start)`"),
        other => core_diagnostic(other, span),
    }
}

/// The exact distribution of one call of user function `f` in a frame of `globals` and `args`: what
/// the sampler uses to recognise an absorbing state.
///
/// # Errors
/// As for `exact`.
#[allow(clippy::too_many_arguments)] // the sampler's whole context: budget, nesting, frame, call
pub(crate) fn call_distribution(
    program: &Program,
    limits: &Limits,
    budget: &mut Budget,
    nesting: usize,
    globals: &[Value],
    f: usize,
    args: &[Value],
    span: Span,
) -> Result<Distribution<Value>, Diagnostic> {
    // `nesting` continues the caller's count: this evaluation runs on top of the sampler's stack.
    let mut ev = Evaluator {
        program,
        limits,
        budget,
        env: globals.to_vec(),
        depth: 0,
        nesting,
        memo: BTreeMap::new(),
    };
    Ok(ev.call(f, args, span)?.dist)
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
    let depth = if dice.explode_once {
        depth.min(1)
    } else {
        depth
    };
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
            penetrate: dice.penetrate,
        });
    }
    Ok(PoolSpec {
        count,
        dice: spec,
        keep: dice.keep,
        success: dice.success,
        failure: dice.failure,
        depth,
        matching: dice.matching,
        unique: dice.unique,
    })
}

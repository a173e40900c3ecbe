//! The operators and branches of the exact interpreter: bindings, arithmetic, comparisons,
//! `min`/`max` and `match`, each mixing or combining its operands' distributions.

use num_integer::Integer;
use num_traits::Zero;
use omen_core::{Compare, CoreError, Distribution, Probability};

use super::{
    Eval, Evaluator, compare_values, either, from_ints, ints_named, map_number, op_symbol,
};
use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::program::{Node, Pattern};
use crate::span::Span;
use crate::syntax::ast::BinOp;
use crate::value::Value;

impl Evaluator<'_> {
    /// `let` bound to `slot`: the body evaluated once per outcome of the value, mixed by its weights.
    pub(super) fn binding(
        &mut self,
        node: &Node,
        slot: usize,
        value: &Node,
        body: &Node,
    ) -> Result<Eval, Diagnostic> {
        let span = node.span;
        let slot = &slot;
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

    /// An arithmetic operator: in whole numbers where both sides are, else in fractions.
    pub(super) fn binary(
        &mut self,
        op: BinOp,
        l: &Node,
        r: &Node,
        span: Span,
    ) -> Result<Eval, Diagnostic> {
        let op = &op;
        let at = |e: CoreError| core_diagnostic(&e, span);
        let a = self.eval(l)?;
        let b = self.eval(r)?;
        let side = |e: &Eval, n: &Node, side: &str| -> Result<Distribution<i64>, Diagnostic> {
            ints_named(&e.dist, n.span, || {
                format!("the {side} side of `{}`", op_symbol(*op))
            })
        };
        let whole = |d: &Distribution<Value>| d.outcomes().all(|v| matches!(v, Value::Int(_)));
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

    /// `min(…)` or `max(…)` of any number of arguments.
    pub(super) fn min_max(
        &mut self,
        is_min: bool,
        args: &[Node],
        span: Span,
    ) -> Result<Eval, Diagnostic> {
        let at = |e: CoreError| core_diagnostic(&e, span);
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

    /// A comparison of two values; ordering needs values of one kind.
    pub(super) fn compare(
        &mut self,
        op: Compare,
        l: &Node,
        r: &Node,
        span: Span,
    ) -> Result<Eval, Diagnostic> {
        let op = &op;
        let at = |e: CoreError| core_diagnostic(&e, span);
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

    /// `match`: which arm each outcome takes, then the arms' bodies mixed by those weights.
    pub(super) fn match_arms(
        &mut self,
        x: &Node,
        arms: &[(Pattern, Node)],
        span: Span,
    ) -> Result<Eval, Diagnostic> {
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
}

//! The sampler's operators and branches: bindings, arithmetic, `and`/`or`, `min`/`max` and `match`,
//! each rolling its operands and recording them in the roll's tree.

use super::{RollKind, RollNode, Sampler, boolean, unary_error};
use omen_core::Compare;

use crate::diagnostic::{Diagnostic, kind_error};
use crate::exact::compare_values;
use crate::number;
use crate::program::{Node, Pattern, Rounding};
use crate::span::Span;
use crate::syntax::ast::BinOp;
use crate::value::Value;

impl Sampler<'_> {
    /// `let`: the value rolled once, bound to `slot` while the body is rolled.
    pub(super) fn binding(
        &mut self,
        slot: usize,
        name: &str,
        value: &Node,
        body: &Node,
    ) -> Result<(Value, RollKind), Diagnostic> {
        let slot = &slot;
        let bound = self.node(value)?;
        self.env.truncate(*slot);
        self.env.push(bound.value.clone());
        let body = self.node(body);
        self.env.truncate(*slot);
        let body = body?;
        Ok((
            body.value.clone(),
            RollKind::Let {
                name: name.to_owned(),
                bound: Box::new(bound),
                body: Box::new(body),
            },
        ))
    }

    /// `-x` (`neg`) or `abs(x)`.
    pub(super) fn negate(
        &mut self,
        neg: bool,
        inner: &Node,
        span: Span,
    ) -> Result<(Value, RollKind), Diagnostic> {
        let inner = self.node(inner)?;
        let v = number::negate(&inner.value, !neg)
            .map_err(|e| unary_error(e, &inner, "the operand", span))?;
        Ok((
            v,
            if neg {
                RollKind::Unary {
                    op: "-",
                    operand: Box::new(inner),
                }
            } else {
                RollKind::Call {
                    function: "abs",
                    args: vec![inner],
                }
            },
        ))
    }

    /// An arithmetic operator.
    pub(super) fn binary(
        &mut self,
        op: BinOp,
        l: &Node,
        r: &Node,
        span: Span,
    ) -> Result<(Value, RollKind), Diagnostic> {
        let op = &op;
        let l = self.node(l)?;
        let r = self.node(r)?;
        let sym = op.symbol();
        let v = number::binary(*op, &l.value, &r.value)
            .map_err(|e| e.diagnostic(&format!("`{sym}`"), l.span, r.span, span))?;
        Ok((
            v,
            RollKind::Binary {
                op: sym,
                left: Box::new(l),
                right: Box::new(r),
            },
        ))
    }

    /// `and` (`is_and`) or `or`: both sides rolled, as the exact interpreter evaluates both.
    pub(super) fn and_or(
        &mut self,
        is_and: bool,
        l: &Node,
        r: &Node,
    ) -> Result<(Value, RollKind), Diagnostic> {
        let l = self.node(l)?;
        let r = self.node(r)?;
        let (a, b) = (boolean(&l, "each side")?, boolean(&r, "each side")?);
        Ok((
            Value::Bool(if is_and { a && b } else { a || b }),
            RollKind::Binary {
                op: if is_and { "and" } else { "or" },
                left: Box::new(l),
                right: Box::new(r),
            },
        ))
    }

    /// `min(…)` (`is_min`) or `max(…)`.
    pub(super) fn min_max(
        &mut self,
        is_min: bool,
        args: &[Node],
    ) -> Result<(Value, RollKind), Diagnostic> {
        let args: Vec<RollNode> = args
            .iter()
            .map(|a| self.node(a))
            .collect::<Result<_, _>>()?;
        for a in &args {
            if !a.value.is_number() {
                return Err(kind_error(a.span, "an argument", "a number", &a.value));
            }
        }
        let values = args.iter().map(|a| &a.value);
        let v = if is_min { values.min() } else { values.max() };
        Ok((
            v.expect("checked: at least one argument").clone(),
            RollKind::Call {
                function: if is_min { "min" } else { "max" },
                args,
            },
        ))
    }

    /// `match`: the first arm whose pattern matches the rolled value.
    pub(super) fn match_arm(
        &mut self,
        x: &Node,
        arms: &[(Pattern, Node)],
        span: Span,
    ) -> Result<(Value, RollKind), Diagnostic> {
        let scrutinee = self.node(x)?;
        let arm = arms
            .iter()
            .position(|(p, _)| p.matches(&scrutinee.value))
            .ok_or_else(|| {
                Diagnostic::error(
                    "no-match",
                    span,
                    format!("no arm of this `match` matches {}", scrutinee.value),
                )
                .with_help("add a last arm `_ => …` for everything else")
            })?;
        let body = self.node(&arms[arm].1)?;
        Ok((
            body.value.clone(),
            RollKind::Match {
                scrutinee: Box::new(scrutinee),
                arm,
                body: Box::new(body),
            },
        ))
    }

    /// `floor`, `ceil`, `round` or `trunc` of a number.
    pub(super) fn round(
        &mut self,
        how: Rounding,
        inner: &Node,
        span: Span,
    ) -> Result<(Value, RollKind), Diagnostic> {
        let how = &how;
        let inner = self.node(inner)?;
        let what = format!("the argument of `{}`", how.name());
        let v =
            number::round(*how, &inner.value).map_err(|e| unary_error(e, &inner, &what, span))?;
        Ok((
            v,
            RollKind::Call {
                function: how.name(),
                args: vec![inner],
            },
        ))
    }

    /// A comparison of two rolled values.
    pub(super) fn compare(
        &mut self,
        op: Compare,
        l: &Node,
        r: &Node,
        span: Span,
    ) -> Result<(Value, RollKind), Diagnostic> {
        let op = &op;
        let l = self.node(l)?;
        let r = self.node(r)?;
        let v = compare_values(*op, &l.value, &r.value, span)?;
        Ok((
            Value::Bool(v),
            RollKind::Binary {
                op: op.symbol(),
                left: Box::new(l),
                right: Box::new(r),
            },
        ))
    }

    /// `if`: the condition rolled, then only the branch it takes.
    pub(super) fn branch(
        &mut self,
        c: &Node,
        a: &Node,
        b: &Node,
    ) -> Result<(Value, RollKind), Diagnostic> {
        let condition = self.node(c)?;
        let which = boolean(&condition, "the condition of `if`")?;
        let branch = self.node(if which { a } else { b })?;
        Ok((
            branch.value.clone(),
            RollKind::If {
                condition: Box::new(condition),
                branch: Box::new(branch),
            },
        ))
    }

    /// A call of the program's function `f`: the arguments rolled, then the body.
    pub(super) fn apply(
        &mut self,
        f: usize,
        args: &[Node],
        span: Span,
    ) -> Result<(Value, RollKind), Diagnostic> {
        let f = &f;
        let args: Vec<RollNode> = args
            .iter()
            .map(|a| self.node(a))
            .collect::<Result<_, _>>()?;
        let values: Vec<Value> = args.iter().map(|a| a.value.clone()).collect();
        let body = self.call(*f, &values, span)?;
        Ok((
            body.value.clone(),
            RollKind::Apply {
                function: self.program.functions[*f].name.clone(),
                args,
                body: Box::new(body),
            },
        ))
    }
}

//! Checking operators: negation, arithmetic, comparisons and the logic of `and`, `or`, `not`.

use omen_core::CoreError;

use super::{Checker, compare};
use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::program::{Node, NodeKind, Type};
use crate::span::Span;
use crate::syntax::ast::{BinOp, CompareOp, Expr};
use crate::value::Value;

fn op_word(op: BinOp) -> String {
    format!("`{}`", op.symbol())
}

impl Checker<'_> {
    /// `-x`; the negation of a number is folded into one constant.
    pub(super) fn negation(&mut self, span: Span, inner: &Expr) -> Option<Node> {
        let node = self.expr(inner)?;
        if !self.expect_int(&node, "the operand of `-`") {
            return None;
        }
        if let NodeKind::Const(Value::Int(n)) = node.kind {
            return match n.checked_neg() {
                Some(v) => Self::node(span, Type::Int, NodeKind::Const(Value::Int(v))),
                None => self.error(core_diagnostic(&CoreError::Overflow, span)),
            };
        }
        Self::node(span, Type::Int, NodeKind::Neg(Box::new(node)))
    }

    pub(super) fn binary(&mut self, span: Span, op: BinOp, l: &Expr, r: &Expr) -> Option<Node> {
        let l = self.expr(l);
        let r = self.expr(r);
        let (l, r) = (l?, r?);
        if !l.ty.may_be_int() || !r.ty.may_be_int() {
            return self.error(
                Diagnostic::error(
                    "type-mismatch",
                    span,
                    format!(
                        "{} needs two numbers, but the left side is {} and the right side is {}",
                        op_word(op),
                        l.ty.describe(),
                        r.ty.describe()
                    ),
                )
                .with_help("arithmetic works on numbers only"),
            );
        }
        if matches!(op, BinOp::Div | BinOp::Mod | BinOp::Quotient)
            && matches!(r.kind, NodeKind::Const(Value::Int(0)))
        {
            return self.error(core_diagnostic(&CoreError::DivisionByZero, r.span));
        }
        Self::node(
            span,
            Type::Int,
            NodeKind::Binary(op, Box::new(l), Box::new(r)),
        )
    }

    pub(super) fn comparison(
        &mut self,
        span: Span,
        op: CompareOp,
        l: &Expr,
        r: &Expr,
    ) -> Option<Node> {
        let l = self.expr(l);
        let r = self.expr(r);
        let (l, r) = (l?, r?);
        let known = l.ty != Type::Any && r.ty != Type::Any;
        let ordering = !matches!(op, CompareOp::Eq | CompareOp::Ne);
        if known && (l.ty != r.ty || (ordering && l.ty == Type::Bool)) {
            return self.error(Diagnostic::error(
                "type-mismatch",
                span,
                format!(
                    "cannot compare {} with {}",
                    l.ty.describe(),
                    r.ty.describe()
                ),
            ));
        }
        Self::node(
            span,
            Type::Bool,
            NodeKind::Compare(compare(op), Box::new(l), Box::new(r)),
        )
    }

    /// `l and r` when `is_and`, `l or r` otherwise.
    pub(super) fn and_or(&mut self, span: Span, is_and: bool, l: &Expr, r: &Expr) -> Option<Node> {
        let word = if is_and { "`and`" } else { "`or`" };
        let l = self.expr(l);
        let r = self.expr(r);
        let (l, r) = (l?, r?);
        let what = format!("each side of {word}");
        let (l, r) = (self.condition(l, &what), self.condition(r, &what));
        let (l, r) = (l?, r?);
        let kind = if is_and {
            NodeKind::And(Box::new(l), Box::new(r))
        } else {
            NodeKind::Or(Box::new(l), Box::new(r))
        };
        Self::node(span, Type::Bool, kind)
    }

    pub(super) fn not(&mut self, span: Span, inner: &Expr) -> Option<Node> {
        let node = self.expr(inner)?;
        let node = self.condition(node, "the operand of `not`")?;
        Self::node(span, Type::Bool, NodeKind::Not(Box::new(node)))
    }
}

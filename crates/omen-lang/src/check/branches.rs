//! Checking branches: `if … then … else …` and `match`.

use super::Checker;
use crate::program::{Node, NodeKind, Type};
use crate::span::Span;
use crate::syntax::ast::{Expr, MatchArm};

impl Checker<'_> {
    /// Both branches are checked even when the condition has errors, so every error is reported.
    pub(super) fn if_else(&mut self, span: Span, c: &Expr, a: &Expr, b: &Expr) -> Option<Node> {
        let c = self.expr(c);
        let a = self.expr(a);
        let b = self.expr(b);
        let (c, a, b) = (c?, a?, b?);
        let c = self.condition(c, "the condition of `if`")?;
        let ty = if a.ty == b.ty { a.ty } else { Type::Any };
        Self::node(
            span,
            ty,
            NodeKind::If(Box::new(c), Box::new(a), Box::new(b)),
        )
    }

    pub(super) fn match_arms(&mut self, span: Span, x: &Expr, arms: &[MatchArm]) -> Option<Node> {
        let x = self.expr(x);
        let mut checked = Vec::with_capacity(arms.len());
        let mut ok = true;
        for arm in arms {
            let p = self.pattern(&arm.pattern);
            let b = self.expr(&arm.body);
            match (p, b) {
                (Some(p), Some(b)) => checked.push((p, b)),
                _ => ok = false,
            }
        }
        let x = x?;
        if !ok {
            return None;
        }
        let first = checked[0].1.ty;
        let ty = if checked.iter().all(|(_, b)| b.ty == first) {
            first
        } else {
            Type::Any
        };
        Self::node(span, ty, NodeKind::Match(Box::new(x), checked))
    }
}

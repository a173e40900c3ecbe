//! Checking tuples and their members: `(a, b, …)` and `x.0`.

use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::program::{Node, NodeKind, Type};
use crate::span::Span;
use crate::syntax::ast::{Expr, Spanned};

impl Checker<'_> {
    pub(super) fn tuple(&mut self, span: Span, items: &[Expr]) -> Option<Node> {
        let nodes: Vec<Option<Node>> = items.iter().map(|i| self.expr(i)).collect();
        let nodes: Vec<Node> = nodes.into_iter().collect::<Option<_>>()?;
        Self::node(span, Type::Tuple, NodeKind::Tuple(nodes))
    }

    /// `x.0`: a member of a tuple, refused past the end when the tuple is written out.
    pub(super) fn field(
        &mut self,
        span: Span,
        inner: &Expr,
        index: &Spanned<usize>,
    ) -> Option<Node> {
        let node = self.expr(inner)?;
        if !matches!(node.ty, Type::Tuple | Type::Any) {
            return self.error(Diagnostic::error(
                "type-mismatch",
                index.span,
                format!(
                    "`.{}` needs a tuple, but this is {}",
                    index.node,
                    node.ty.describe()
                ),
            ));
        }
        if let NodeKind::Tuple(items) = &node.kind
            && index.node >= items.len()
        {
            return self.error(
                Diagnostic::error(
                    "no-such-field",
                    index.span,
                    format!(
                        "the tuple has {} members; `.{}` is past the end",
                        items.len(),
                        index.node
                    ),
                )
                .with_help("members count from 0"),
            );
        }
        let ty = match &node.kind {
            NodeKind::Tuple(items) => items[index.node].ty,
            _ => Type::Any,
        };
        Self::node(span, ty, NodeKind::Field(Box::new(node), index.node))
    }
}

//! Checking names and the scopes they live in: a name's use and `let … in …`.

use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::program::{Node, NodeKind, Type};
use crate::span::Span;
use crate::syntax::ast::{Expr, Spanned};

impl Checker<'_> {
    /// A name used as a value: a pool can only be read, and a function only called.
    pub(super) fn variable(&mut self, span: Span, name: &str) -> Option<Node> {
        match self.lookup(name) {
            Some(slot) if self.pool_at(slot) => self.pool_used_as_value(span, name),
            Some(slot) => Self::node(span, Type::Any, NodeKind::Var(slot, name.to_string())),
            None => {
                let help = if self.function_index(name).is_some() {
                    format!("`{name}` is a function; call it, e.g. `{name}(…)`")
                } else {
                    format!("declare it first, e.g. `let {name} = 3d6;` or `param {name} = 3;`")
                };
                self.error(
                    Diagnostic::error("unknown-name", span, format!("unknown name `{name}`"))
                        .with_help(help),
                )
            }
        }
    }

    /// `let name = value in body`: the name is visible in the body only, and its slot is free
    /// again after it.
    pub(super) fn let_in(
        &mut self,
        span: Span,
        name: &Spanned<String>,
        value: &Expr,
        body: &Expr,
    ) -> Option<Node> {
        let mut value = self.let_value(value);
        let saved = (self.scope.len(), self.next_slot);
        let slot = self.bind(&name.node);
        self.bind_pool(slot, &value);
        let body = self.expr(body);
        self.finish_pool(slot, &mut value);
        self.scope.truncate(saved.0);
        self.next_slot = saved.1;
        let (value, body) = (value?, body?);
        Self::node(
            span,
            body.ty,
            NodeKind::Let {
                slot,
                name: name.node.clone(),
                value: Box::new(value),
                body: Box::new(body),
            },
        )
    }
}

//! Checking a script's parameters against the values the caller gave for them.

use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::program::{Node, NodeKind, Type};
use crate::span::Span;
use crate::syntax::ast::{Expr, Spanned};
use crate::value::Value;

impl Checker<'_> {
    /// A parameter's value: the caller's, else its default; an error when it has neither.
    pub(super) fn param_value(
        &mut self,
        name: &Spanned<String>,
        default: Option<&Expr>,
        params: &[(String, Value)],
    ) -> Option<Node> {
        let given = params.iter().find(|(n, _)| *n == name.node);
        match (given, default) {
            (Some((_, v)), _) => Some(Node {
                span: name.span,
                ty: Type::of(v),
                kind: NodeKind::Const(v.clone()),
            }),
            (None, Some(e)) => self.expr(e),
            (None, None) => {
                self.errors.push(
                    Diagnostic::error(
                        "missing-parameter",
                        name.span,
                        format!(
                            "the parameter `{}` has no default and no value was given",
                            name.node
                        ),
                    )
                    .with_help(format!(
                        "give it a value, e.g. `--param {}=3`, or a default: `param {} = 3;`",
                        name.node, name.node
                    )),
                );
                None
            }
        }
    }

    /// A value given for a parameter the script does not declare is an error: a misspelt name
    /// would otherwise leave the parameter at its default without a word.
    pub(super) fn refuse_unknown_params(
        &mut self,
        params: &[(String, Value)],
        declared: &[String],
    ) {
        for (name, _) in params {
            if !declared.contains(name) {
                self.errors.push(
                    Diagnostic::error(
                        "unknown-parameter",
                        Span::new(0, 0),
                        format!("the script has no parameter named `{name}`"),
                    )
                    .with_help(if declared.is_empty() {
                        "the script declares no parameters".to_string()
                    } else {
                        format!("its parameters are: {}", declared.join(", "))
                    }),
                );
            }
        }
    }
}

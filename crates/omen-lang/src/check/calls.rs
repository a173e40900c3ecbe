//! Checking calls: the built-in functions, the numeric ones, processes and `match` patterns.

use omen_core::CoreError;

use super::{BUILTINS, Checker};
use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::program::{Node, NodeKind, Pattern, ProcessQuery, Rounding, Type};
use crate::span::Span;
use crate::syntax::ast::{self, BinOp, Expr, ExprKind, Spanned};
use crate::value::Value;

impl Checker<'_> {
    pub(super) fn call(
        &mut self,
        span: Span,
        name: &Spanned<String>,
        args: &[Expr],
    ) -> Option<Node> {
        if let Some(reading) = self.reading_call(span, name, args) {
            return reading;
        }
        let f = name.node.as_str();
        if let Some((index, arity)) = self.function_index(f) {
            let nodes: Vec<Option<Node>> = args.iter().map(|a| self.expr(a)).collect();
            let nodes: Vec<Node> = nodes.into_iter().collect::<Option<_>>()?;
            if nodes.len() != arity {
                return self.error(Diagnostic::error(
                    "wrong-arguments",
                    span,
                    format!("`{f}` takes {arity} argument(s), got {}", nodes.len()),
                ));
            }
            return Self::node(span, Type::Any, NodeKind::Call(index, nodes));
        }
        let Some(&(_, arity)) = BUILTINS.iter().find(|(b, _)| *b == f) else {
            let known: Vec<&str> = BUILTINS.iter().map(|(b, _)| *b).collect();
            return self.error(
                Diagnostic::error(
                    "unknown-function",
                    name.span,
                    format!("unknown function `{f}`"),
                )
                .with_help(format!(
                    "the builtins are {}; declare your own with `fn {f}(x) = …;`",
                    known.join(", ")
                )),
            );
        };
        let ok_count = match arity {
            Some(n) => args.len() == n,
            None => !args.is_empty(),
        };
        if !ok_count {
            let want = match arity {
                Some(n) => format!("exactly {n}"),
                None => "at least one".to_string(),
            };
            return self.error(Diagnostic::error(
                "wrong-arguments",
                span,
                format!("`{f}` takes {want} argument(s), got {}", args.len()),
            ));
        }
        if f == "avrae" {
            return self.in_turn_call(span, &args[0]);
        }
        if f == "foundry" {
            return match args {
                [term] => self.foundry_call(span, term),
                [count, sides, modifiers] => {
                    self.foundry_rolled_call(span, count, sides, modifiers)
                }
                _ => self.error(
                    Diagnostic::error(
                        "wrong-arguments",
                        span,
                        format!("`foundry` takes 1 or 3 arguments, got {}", args.len()),
                    )
                    .with_help(
                        "`foundry(\"3d6xkh2\")`, or with a rolled count or sides \
                         `foundry(1d4, 6, \"xkh2\")`",
                    ),
                ),
            };
        }
        if f == "avrae_set" {
            return self.in_turn_set_call(span, &args[0], &args[1]);
        }
        if matches!(f, "after" | "absorb" | "stationary") {
            return self.process(span, f, args);
        }
        if matches!(f, "floor" | "ceil" | "round" | "sign" | "pow" | "div") {
            return self.numeric_call(span, f, args);
        }
        let nodes: Vec<Option<Node>> = args.iter().map(|a| self.expr(a)).collect();
        let nodes: Vec<Node> = nodes.into_iter().collect::<Option<_>>()?;
        for n in &nodes {
            if !self.expect_int(n, &format!("an argument of `{f}`")) {
                return None;
            }
        }
        let kind = match f {
            "abs" => NodeKind::Abs(Box::new(nodes.into_iter().next().expect("one"))),
            "min" => NodeKind::Min(nodes),
            _ => NodeKind::Max(nodes),
        };
        Self::node(span, Type::Int, kind)
    }

    /// `floor`, `ceil`, `round`, `sign`, `pow` and `div`. Of a division written with `/` (which rounds
    /// down), `ceil(a / b)` and `round(a / b)` say how its fraction goes, lowered to arithmetic on whole
    /// numbers; of anything else they round the number, a fraction from `div` included. `round` rounds
    /// halves up (towards +∞), as JavaScript's `Math.round` behind Roll20's and Foundry's does.
    pub(super) fn numeric_call(&mut self, span: Span, f: &str, args: &[Expr]) -> Option<Node> {
        let int = |n: i64| Node {
            span,
            ty: Type::Int,
            kind: NodeKind::Const(Value::Int(n)),
        };
        let binary = |op: BinOp, l: Node, r: Node| Node {
            span,
            ty: Type::Int,
            kind: NodeKind::Binary(op, Box::new(l), Box::new(r)),
        };
        let neg = |x: Node| Node {
            span,
            ty: Type::Int,
            kind: NodeKind::Neg(Box::new(x)),
        };
        let mut inner = &args[0];
        while let ExprKind::Paren(i) = &inner.node {
            inner = i;
        }
        if let (true, ExprKind::Binary(BinOp::Div, a, b)) =
            (matches!(f, "ceil" | "round"), &inner.node)
        {
            let a = self.expr(a);
            let b = self.expr(b);
            let (a, b) = (a?, b?);
            if !self.expect_int(&a, &format!("the argument of `{f}`"))
                || !self.expect_int(&b, &format!("the argument of `{f}`"))
            {
                return None;
            }
            if f == "ceil" {
                // ⌈a/b⌉ = −⌊−a/b⌋
                return Some(neg(binary(BinOp::Div, neg(a), b)));
            }
            let divisor = match b.kind {
                NodeKind::Const(Value::Int(d)) if d != 0 => d,
                _ => {
                    return self.error(
                        Diagnostic::error(
                            "round-needs-number",
                            b.span,
                            "`round` of a division needs the divisor written as a number other than 0",
                        )
                        .with_help("e.g. `round(1d20 / 2)`; or round down with `/` alone"),
                    );
                }
            };
            // round(a/d) = ⌊(2a + d) / 2d⌋ for d > 0; a negative d flips both signs first.
            let (a, d) = if divisor < 0 {
                (neg(a), divisor.checked_neg())
            } else {
                (a, Some(divisor))
            };
            let Some(twice) = d.and_then(|d| d.checked_mul(2)) else {
                return self.error(core_diagnostic(&CoreError::Overflow, span));
            };
            let d = d.unwrap_or(1);
            let top = binary(BinOp::Add, binary(BinOp::Mul, int(2), a), int(d));
            return Some(binary(BinOp::Div, top, int(twice)));
        }
        let nodes: Vec<Option<Node>> = args.iter().map(|a| self.expr(a)).collect();
        let nodes: Vec<Node> = nodes.into_iter().collect::<Option<_>>()?;
        for n in &nodes {
            if !self.expect_int(n, &format!("an argument of `{f}`")) {
                return None;
            }
        }
        let mut nodes = nodes.into_iter();
        let x = nodes.next().expect("one argument");
        let how = match f {
            "pow" | "div" => {
                let op = if f == "pow" {
                    BinOp::Pow
                } else {
                    BinOp::Quotient
                };
                let y = nodes.next().expect("two arguments");
                if op == BinOp::Quotient && matches!(y.kind, NodeKind::Const(Value::Int(0))) {
                    return self.error(core_diagnostic(&CoreError::DivisionByZero, y.span));
                }
                return Some(binary(op, x, y));
            }
            "sign" => Rounding::Sign,
            "floor" => Rounding::Floor,
            "ceil" => Rounding::Ceil,
            _ => Rounding::Nearest,
        };
        Some(match x.kind {
            // A whole number is its own floor, ceiling and rounding.
            NodeKind::Const(Value::Int(n)) if how != Rounding::Sign => int(n),
            _ => Node {
                span,
                ty: Type::Int,
                kind: NodeKind::Round(how, Box::new(x)),
            },
        })
    }

    /// `after(step, start, n)`, `absorb(step, start)`, `stationary(step, start)`.
    pub(super) fn process(&mut self, span: Span, f: &str, args: &[Expr]) -> Option<Node> {
        let function = match &args[0].node {
            ExprKind::Var(name) => match self.function_index(name) {
                Some((index, 1)) => Some(index),
                Some((_, n)) => self
                    .error(Diagnostic::error(
                        "wrong-arguments",
                        args[0].span,
                        format!(
                            "a step function takes one argument (the state); `{name}` takes {n}"
                        ),
                    ))
                    .map(|_| 0),
                None => self
                    .error(
                        Diagnostic::error(
                            "unknown-function",
                            args[0].span,
                            format!("`{name}` is not a function"),
                        )
                        .with_help("declare the step first, e.g. `fn step(s) = …;`"),
                    )
                    .map(|_| 0),
            },
            _ => self
                .error(
                    Diagnostic::error(
                        "expected-function",
                        args[0].span,
                        format!("the first argument of `{f}` is the name of a step function"),
                    )
                    .with_help(format!(
                        "e.g. `fn step(s) = s + d6; {f}(step, 0{})`",
                        if f == "after" { ", 10" } else { "" }
                    )),
                )
                .map(|_| 0),
        };
        let start = self.expr(&args[1]);
        let steps = if f == "after" {
            let n = self.expr(&args[2]);
            match n {
                Some(n) if self.expect_int(&n, "the number of steps") => Some(Some(Box::new(n))),
                _ => None,
            }
        } else {
            Some(None)
        };
        let (function, start, steps) = (function?, start?, steps?);
        let query = match f {
            "after" => ProcessQuery::After,
            "absorb" => ProcessQuery::Absorb,
            _ => ProcessQuery::Stationary,
        };
        Self::node(
            span,
            Type::Any,
            NodeKind::Process {
                query,
                function,
                start: Box::new(start),
                steps,
            },
        )
    }

    pub(super) fn pattern(&mut self, p: &Spanned<ast::Pattern>) -> Option<Pattern> {
        Some(match &p.node {
            ast::Pattern::Wildcard => Pattern::Any,
            ast::Pattern::Int(n) => Pattern::Value(Value::Int(*n)),
            ast::Pattern::Bool(b) => Pattern::Value(Value::Bool(*b)),
            ast::Pattern::Text(t) => Pattern::Value(Value::text(t)),
            ast::Pattern::Range {
                lo,
                hi,
                hi_inclusive,
            } => {
                let hi = match (hi, hi_inclusive) {
                    (Some(h), false) => Some(h.checked_sub(1)?),
                    (h, _) => *h,
                };
                if let (Some(l), Some(h)) = (lo, hi)
                    && *l > h
                {
                    self.warnings.push(Diagnostic::warning(
                        "empty-range",
                        p.span,
                        "this range matches nothing",
                    ));
                }
                Pattern::Range(*lo, hi)
            }
            ast::Pattern::Tuple(items) => {
                let ps: Vec<Option<Pattern>> = items.iter().map(|i| self.pattern(i)).collect();
                Pattern::Tuple(ps.into_iter().collect::<Option<_>>()?)
            }
            ast::Pattern::Or(items) => {
                let ps: Vec<Option<Pattern>> = items.iter().map(|i| self.pattern(i)).collect();
                Pattern::Or(ps.into_iter().collect::<Option<_>>()?)
            }
        })
    }
}

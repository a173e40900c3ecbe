//! avrae/d20's grammar for numbers, where it reads differently from Omen's: a unary `+`, a decimal
//! without its leading digit, comparisons that count 1 or 0 in arithmetic, the tens die `d%`, and a
//! tuple as a set whose value is its total. Switched on by [`Dialect::d20_numbers`].

use super::Parser;
use super::rescore::{Rescore, Selection};
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, FaceItem, GroupExpr, Sides, Spanned};
use crate::syntax::lexer::TokenKind;

#[cfg(doc)]
use crate::syntax::dialect::Dialect;

impl Parser<'_> {
    /// d20's `+X`, which "does nothing": the operand alone. Only where the dialect has it.
    pub(super) fn parse_unary_plus(&mut self) -> Expr {
        let plus = self.bump();
        if !self.enter(plus.span) {
            return Expr::new(ExprKind::Error, plus.span);
        }
        let operand = self.parse_operand(plus, Self::parse_unary);
        self.depth -= 1;
        operand
    }

    /// Whether the current token starts a decimal without its leading digit, `.5`, glued together.
    pub(super) fn at_bare_decimal(&self) -> bool {
        let dot = self.peek();
        self.dialect.d20_numbers
            && dot.kind == TokenKind::Dot
            && self
                .tokens
                .get(self.pos + 1)
                .is_some_and(|n| n.kind == TokenKind::Number && n.span.start == dot.span.end)
    }

    /// `.5` in d20 (Python's `DECIMAL`): the exact fraction, read as Omen's `div(1, 2)`.
    pub(super) fn parse_bare_decimal(&mut self) -> Expr {
        let dot = self.bump();
        let digits = self.bump();
        let span = dot.span.to(digits.span);
        let places = u32::try_from(digits.span.end - digits.span.start).unwrap_or(u32::MAX);
        let value = self
            .text(digits.span)
            .parse::<i128>()
            .ok()
            .zip(10i128.checked_pow(places))
            .and_then(|(n, d)| crate::value::Value::ratio(n, d));
        self.decimal_node(value, span)
    }

    /// d20 counts a comparison as 1 or 0 (`int(l == r)`), so one standing in arithmetic becomes the
    /// number Omen's `if` gives: `1 + (2 == 2)` is 2. Elsewhere it stays true/false.
    pub(super) fn counted_comparison(&self, expr: Expr) -> Expr {
        let mut inner = &expr;
        while let ExprKind::Paren(e) = &inner.node {
            inner = e;
        }
        if !self.dialect.d20_numbers || !matches!(inner.node, ExprKind::Compare(..)) {
            return expr;
        }
        let span = expr.span;
        let number = |n| Box::new(Expr::new(ExprKind::Number(n), span));
        let choice = Expr::new(ExprKind::If(Box::new(expr), number(1), number(0)), span);
        Expr::new(ExprKind::Paren(Box::new(choice)), span)
    }

    /// d20's `d%`: one die showing 0, 10, …, 90 (`randrange(10) * 10`), the tens of a percentile roll.
    pub(super) fn tens_die(&self, at: Span) -> Spanned<Sides> {
        let faces = (0..10)
            .map(|n| Spanned::new(FaceItem::Face(n * 10), at))
            .collect();
        Spanned::new(Sides::Custom(faces), at)
    }

    /// A d20 set without operations, `(1, 2, 3)` or `(1,)`: its value is its total, as a group's is.
    pub(super) fn set_without_operations(&self, tuple: Expr) -> Expr {
        match tuple.node {
            ExprKind::Tuple(members) if self.dialect.d20_numbers => Expr::new(
                ExprKind::Group(Box::new(GroupExpr {
                    members,
                    modifiers: Vec::new(),
                })),
                tuple.span,
            ),
            node => Expr::new(node, tuple.span),
        }
    }
}

impl Parser<'_> {
    /// d20's `k` and `p` with a value selector on a set without other operations: `(1, 2, 3)k1` keeps
    /// the members whose value is 1 and counts the rest 0 (`p` the other way round). A number is scored
    /// here; any other member is rolled once and scored as it lands,
    /// `let member = 1d4 + 1 in if member = 3 then member else 0`.
    pub(super) fn score_set_members(
        &mut self,
        members: Vec<Expr>,
        rescore: Rescore,
        at: Span,
    ) -> Vec<Expr> {
        let Rescore::Values(selections) = &rescore else {
            // Only Avrae's `k` and `p` score a set; anything else is left for the refusal.
            self.rescore = Some((rescore, at));
            return members;
        };
        members
            .into_iter()
            .map(|member| {
                let span = member.span;
                let number = |n| Box::new(Expr::new(ExprKind::Number(n), span));
                if let ExprKind::Number(n) = member.node {
                    return Expr::new(ExprKind::Number(rescore.score(n).unwrap_or(0)), span);
                }
                let name = || Box::new(Expr::new(ExprKind::Var(SET_MEMBER.to_string()), span));
                let passes = |selection: &Selection| {
                    let compares = selection.selectors.iter().map(|&(op, point)| {
                        Expr::new(ExprKind::Compare(op, name(), number(point)), span)
                    });
                    let any = join(compares, span, ExprKind::Or);
                    if selection.keep {
                        any
                    } else {
                        Expr::new(ExprKind::Not(Box::new(any)), span)
                    }
                };
                let meets = join(selections.iter().map(passes), span, ExprKind::And);
                let scored = Expr::new(ExprKind::If(Box::new(meets), name(), number(0)), span);
                Expr::new(
                    ExprKind::LetIn(
                        Spanned::new(SET_MEMBER.to_string(), span),
                        Box::new(member),
                        Box::new(scored),
                    ),
                    span,
                )
            })
            .collect()
    }
}

/// `a or b or …` (`a and b and …`) of conditions, at least one, as a balanced tree so that a long run
/// of selectors costs little depth in the walks that follow.
fn join(
    conditions: impl Iterator<Item = Expr>,
    span: Span,
    op: fn(Box<Expr>, Box<Expr>) -> ExprKind,
) -> Expr {
    let mut level: Vec<Expr> = conditions.collect();
    while level.len() > 1 {
        let mut next = Vec::with_capacity(level.len().div_ceil(2));
        let mut items = level.into_iter();
        while let Some(a) = items.next() {
            next.push(match items.next() {
                Some(b) => Expr::new(op(Box::new(a), Box::new(b)), span),
                None => a,
            });
        }
        level = next;
    }
    level
        .pop()
        .unwrap_or_else(|| Expr::new(ExprKind::Bool(true), span))
}

/// The name a scored set member is bound to; Avrae's notation has no names, so it cannot clash.
const SET_MEMBER: &str = "member";

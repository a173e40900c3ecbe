//! Operators, loosest first: `or`, `and`, `not`, comparisons, `+ -`, `* /`, powers, unary minus, and the
//! postfix labels and field accesses.

use super::pieces::{binary_op, shorten};
use super::{Keyword, Parser};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{BinOp, CompareOp, Expr, ExprKind, Spanned};
use crate::syntax::lexer::{Token, TokenKind};

impl<'s> Parser<'s> {
    pub(super) fn parse_expr(&mut self) -> Expr {
        let at = self.peek().span;
        if !self.enter(at) {
            return Expr::new(ExprKind::Error, at);
        }
        let expr = self.parse_logic();
        self.depth -= 1;
        expr
    }

    /// `or`s of `and`s of `not`s of comparisons, in one frame: the parser recurses once per nesting level,
    /// and each frame on that path costs stack.
    pub(super) fn parse_logic(&mut self) -> Expr {
        let first = self.parse_not();
        if matches!(self.keyword(self.peek()), Some(Keyword::And | Keyword::Or)) {
            self.parse_logic_rest(first)
        } else {
            first
        }
    }

    /// The `and`s and `or`s after `first`. Apart from [`Self::parse_logic`] so that the common path, without
    /// them, keeps a small frame.
    #[inline(never)]
    pub(super) fn parse_logic_rest(&mut self, first: Expr) -> Expr {
        let mut levels = 0;
        // The `or` chain so far, waiting for its right operand: the `and` chain being built.
        let mut ors: Option<Expr> = None;
        let mut ands = first;
        while let Some(keyword @ (Keyword::And | Keyword::Or)) = self.keyword(self.peek()) {
            let op_token = self.bump();
            // As for arithmetic chains: each operator puts the chain so far one level deeper.
            if !self.enter(op_token.span) {
                break;
            }
            levels += 1;
            let right = self.parse_operand(op_token, Self::parse_not);
            if keyword == Keyword::And {
                let span = ands.span.to(right.span);
                ands = Expr::new(ExprKind::And(Box::new(ands), Box::new(right)), span);
            } else {
                let left = match ors.take() {
                    Some(ors) => {
                        let span = ors.span.to(ands.span);
                        Expr::new(ExprKind::Or(Box::new(ors), Box::new(ands)), span)
                    }
                    None => ands,
                };
                ors = Some(left);
                ands = right;
            }
        }
        self.depth -= levels;
        match ors {
            Some(ors) => {
                let span = ors.span.to(ands.span);
                Expr::new(ExprKind::Or(Box::new(ors), Box::new(ands)), span)
            }
            None => ands,
        }
    }

    pub(super) fn parse_not(&mut self) -> Expr {
        if self.at_keyword(Keyword::Not) {
            self.parse_nots()
        } else {
            self.parse_comparison()
        }
    }

    /// A comparison after one or more `not`s, without recursing per `not`.
    #[inline(never)]
    pub(super) fn parse_nots(&mut self) -> Expr {
        let mut nots = Vec::new();
        while self.at_keyword(Keyword::Not) {
            let not = self.bump();
            if !self.enter(not.span) {
                self.depth -= nots.len();
                return Expr::new(ExprKind::Error, not.span);
            }
            nots.push(not);
        }
        let Some(&last) = nots.last() else {
            return Expr::new(ExprKind::Error, self.peek().span);
        };
        let mut expr = self.parse_operand(last, Self::parse_comparison);
        self.depth -= nots.len();
        for not in nots.into_iter().rev() {
            let span = not.span.to(expr.span);
            expr = Expr::new(ExprKind::Not(Box::new(expr)), span);
        }
        expr
    }

    /// Takes the comparison operator at the current token (one or two tokens), returning its span.
    pub(super) fn bump_compare(&mut self, tokens: usize) -> Token {
        let first = self.bump();
        if tokens == 2 {
            self.bump();
        }
        Token {
            kind: first.kind,
            span: Span::new(first.span.start, self.prev_end),
        }
    }

    pub(super) fn parse_comparison(&mut self) -> Expr {
        let left = self.parse_additive();
        match self.peek_compare() {
            Some((op, tokens)) => self.parse_comparison_rest(left, op, tokens),
            None => left,
        }
    }

    /// The comparison operator after `left` and what follows it. Apart from [`Self::parse_comparison`] so
    /// that the common path, without a comparison, keeps a small frame.
    #[inline(never)]
    pub(super) fn parse_comparison_rest(
        &mut self,
        left: Expr,
        op: CompareOp,
        tokens: usize,
    ) -> Expr {
        let op_token = self.bump_compare(tokens);
        let glued = op_token.span.start == left.span.end || !self.dialect.whitespace_ends_dice;
        if op == CompareOp::Ne
            && glued
            && matches!(left.node, ExprKind::Dice(_) | ExprKind::Group(_))
        {
            let left_text = shorten(self.text(left.span));
            let op_text = self.text(op_token.span);
            self.report(
                Diagnostic::error(
                    "inequality-after-dice",
                    op_token.span,
                    format!("`{op_text}` straight after dice: `{left_text}` is not a total to compare"),
                )
                .with_help(format!(
                    "a compare point after dice counts dice and cannot be `{op_text}`; to compare the \
                     total, wrap the dice in parentheses, e.g. `({left_text}) {op_text} …`"
                )),
            );
        }
        let right = self.parse_operand(op_token, Self::parse_additive);
        let span = left.span.to(right.span);
        let expr = Expr::new(ExprKind::Compare(op, Box::new(left), Box::new(right)), span);
        while let Some((_, tokens)) = self.peek_compare() {
            let extra = self.bump_compare(tokens);
            self.report(
                Diagnostic::error(
                    "chained-comparison",
                    extra.span,
                    format!(
                        "comparisons cannot be chained: found `{}` after a comparison",
                        self.text(extra.span)
                    ),
                )
                .with_help("a comparison is true or false; compare two values at a time"),
            );
            self.parse_operand(extra, Self::parse_additive);
        }
        expr
    }

    pub(super) fn parse_additive(&mut self) -> Expr {
        if self.dialect.left_to_right {
            return self.parse_chain(Self::parse_unary_operand, binary_op);
        }
        self.parse_chain(Self::parse_multiplicative, |kind| match kind {
            TokenKind::Plus => Some(BinOp::Add),
            TokenKind::Minus => Some(BinOp::Sub),
            _ => None,
        })
    }

    pub(super) fn parse_multiplicative(&mut self) -> Expr {
        self.parse_chain(Self::parse_unary_operand, |kind| match kind {
            TokenKind::Star => Some(BinOp::Mul),
            TokenKind::Slash | TokenKind::SlashSlash => Some(BinOp::Div),
            TokenKind::Percent => Some(BinOp::Mod),
            _ => None,
        })
    }

    /// A left-associative chain of `operand`s joined by the operators `op` recognises.
    pub(super) fn parse_chain(
        &mut self,
        operand: fn(&mut Self) -> Expr,
        op: fn(TokenKind) -> Option<BinOp>,
    ) -> Expr {
        let first = operand(self);
        if op(self.peek().kind).is_some() {
            self.parse_chain_rest(first, operand, op)
        } else {
            first
        }
    }

    /// The operators after `first` in a chain and their operands. Apart from [`Self::parse_chain`] so that the
    /// common path, without operators, keeps a small frame.
    #[inline(never)]
    pub(super) fn parse_chain_rest(
        &mut self,
        first: Expr,
        operand: fn(&mut Self) -> Expr,
        op: fn(TokenKind) -> Option<BinOp>,
    ) -> Expr {
        let mut left = first;
        let mut levels = 0;
        while let Some(bin_op) = op(self.peek().kind) {
            let op_token = self.bump();
            self.warn_spaced_sign_die(op_token);
            if op_token.kind == TokenKind::Slash && self.rounding == 0 {
                self.division_reading(op_token.span);
            }
            // Each operator puts the chain so far one level deeper in the (left-leaning) tree; counting it
            // keeps `1+1+…+1` from building a tree too deep for the recursive passes after the parser.
            if !self.enter(op_token.span) {
                break;
            }
            levels += 1;
            let right = self.parse_operand(op_token, operand);
            let (left_operand, right) = (
                self.counted_comparison(left),
                self.counted_comparison(right),
            );
            left = left_operand;
            let span = left.span.to(right.span);
            let node = if op_token.kind == TokenKind::Slash && self.dialect.keeps_fractions {
                // The dialect's `/` keeps the fraction: Omen's `div(a, b)`, which the reading shows.
                ExprKind::Call(
                    Spanned::new("div".to_string(), op_token.span),
                    vec![left, right],
                )
            } else {
                ExprKind::Binary(bin_op, Box::new(left), Box::new(right))
            };
            left = Expr::new(node, span);
        }
        self.depth -= levels;
        left
    }

    /// A `/` outside `floor`, `ceil` and `round` in Omen's notation, where it rounds down: it warns,
    /// since Roll20, Foundry, Avrae and rpg-dice-roller keep the fraction.
    pub(super) fn division_reading(&mut self, at: Span) {
        if !self.dialect.keeps_fractions && self.dialect.warn_other_readings {
            self.warnings.push(
                Diagnostic::warning(
                    "division-differs-in-roll20",
                    at,
                    "`/` rounds down to a whole number; Roll20, Foundry, Avrae and rpg-dice-roller keep the \
                     fraction",
                )
                .with_help(
                    "to keep the fraction write `div(a, b)`; to round down say so with `floor(a / b)`, or \
                     write `ceil(a / b)` or `round(a / b)`",
                ),
            );
        }
    }

    /// A unary operand followed by whatever stray tokens need skipping before the next operator, and a
    /// power if `^` or `**` follows.
    pub(super) fn parse_unary_operand(&mut self) -> Expr {
        let expr = self.parse_unary();
        self.skip_stray_tokens(&expr);
        match self.power_operator() {
            Some(tokens) => self.parse_power_rest(expr, tokens),
            None => expr,
        }
    }

    /// How many tokens the power operator at the current token takes: `^` one, `**` two.
    pub(super) fn power_operator(&self) -> Option<usize> {
        let token = self.peek();
        match token.kind {
            TokenKind::Caret => Some(1),
            TokenKind::Star => {
                let next = self.tokens.get(self.pos + 1)?;
                (next.kind == TokenKind::Star && next.span.start == token.span.end).then_some(2)
            }
            _ => None,
        }
    }

    /// `base ^ exponent`, right-associative and tighter than `*`.
    #[inline(never)]
    pub(super) fn parse_power_rest(&mut self, base: Expr, tokens: usize) -> Expr {
        let op = self.bump_compare(tokens);
        if !self.enter(op.span) {
            return base;
        }
        let exponent = self.parse_operand(op, Self::parse_unary_operand);
        self.depth -= 1;
        let span = base.span.to(exponent.span);
        Expr::new(
            ExprKind::Binary(BinOp::Pow, Box::new(base), Box::new(exponent)),
            span,
        )
    }

    /// Parses an operand after the operator `op`, or reports that none is there (consuming nothing).
    pub(super) fn parse_operand(&mut self, op: Token, operand: fn(&mut Self) -> Expr) -> Expr {
        if self.at_operand_start() {
            operand(self)
        } else {
            self.missing_operand(op)
        }
    }

    #[cold]
    pub(super) fn missing_operand(&mut self, op: Token) -> Expr {
        let token = self.peek();
        let expected = format!("an expression after `{}`", self.text(op.span));
        let diagnostic = self.unexpected(token, &expected);
        self.report(diagnostic);
        Expr::new(
            ExprKind::Error,
            Span::new(token.span.start, token.span.start),
        )
    }

    pub(super) fn parse_unary(&mut self) -> Expr {
        if let Some(alias) = self.advantage_alias() {
            return alias;
        }
        if self.peek().kind == TokenKind::Plus && self.dialect.d20_numbers {
            return self.parse_unary_plus();
        }
        if self.peek().kind != TokenKind::Minus {
            return self.parse_postfix();
        }
        let minus = self.bump();
        if !self.enter(minus.span) {
            return Expr::new(ExprKind::Error, minus.span);
        }
        let operand = self.parse_operand(minus, Self::parse_unary);
        let operand = self.counted_comparison(operand);
        self.depth -= 1;
        let span = minus.span.to(operand.span);
        Expr::new(ExprKind::Neg(Box::new(operand)), span)
    }

    pub(super) fn parse_postfix(&mut self) -> Expr {
        let expr = self.parse_primary();
        match self.peek().kind {
            TokenKind::Label { .. } | TokenKind::Dot => self.parse_postfix_rest(expr),
            _ => expr,
        }
    }

    /// The labels and fields after `expr`. Apart from [`Self::parse_postfix`] so that the common path,
    /// without them, keeps a small frame.
    #[inline(never)]
    pub(super) fn parse_postfix_rest(&mut self, mut expr: Expr) -> Expr {
        let mut levels = 0;
        loop {
            let token = self.peek();
            match token.kind {
                TokenKind::Label { .. } | TokenKind::Dot => {}
                _ => break,
            }
            if token.kind == TokenKind::Dot && matches!(expr.node, ExprKind::Number(_)) {
                // `1.5`: a number has no members, so this is a decimal.
                let diagnostic = self.unexpected(token, "an operator");
                self.report(Diagnostic {
                    kind: "unexpected-character",
                    ..diagnostic
                });
                self.bump();
                self.skip_to_follow();
                break;
            }
            // Labels and fields nest to the left like an operator chain.
            if !self.enter(token.span) {
                break;
            }
            levels += 1;
            self.bump();
            let start = expr.span.start;
            let node = match token.kind {
                TokenKind::Label { closed } => {
                    let label = self.label_text(token, closed);
                    ExprKind::Label(Box::new(expr), label)
                }
                _ => match self.parse_field_index() {
                    Some(index) => ExprKind::Field(Box::new(expr), index),
                    None => {
                        expr = Expr::new(ExprKind::Error, Span::new(start, self.prev_end));
                        break;
                    }
                },
            };
            expr = Expr::new(node, Span::new(start, self.prev_end));
        }
        self.depth -= levels;
        expr
    }

    pub(super) fn label_text(&mut self, token: Token, closed: bool) -> Spanned<String> {
        let inner_start = token.span.start + 1;
        let inner_end = if closed {
            token.span.end - 1
        } else {
            token.span.end
        };
        let raw = &self.source[inner_start..inner_end];
        let text = raw.trim();
        let text_start = inner_start + (raw.len() - raw.trim_start().len());
        let text_span = Span::new(text_start, text_start + text.len());
        if !closed {
            self.report(
                Diagnostic::error(
                    "unclosed-label",
                    token.span,
                    "unclosed label: expected `]`, found the end of the input",
                )
                .with_help("close the label with `]`, e.g. `3d6[fire]`"),
            );
        } else if text.is_empty() {
            self.report(
                Diagnostic::error(
                    "empty-label",
                    token.span,
                    "empty label: no text between `[` and `]`",
                )
                .with_help(
                    "write the label's text between the brackets, e.g. `3d6[fire]`, or remove them",
                ),
            );
        }
        Spanned::new(text.to_string(), text_span)
    }

    /// The member number after `.`, or `None` when it is missing (reported).
    pub(super) fn parse_field_index(&mut self) -> Option<Spanned<usize>> {
        let token = self.peek();
        if token.kind != TokenKind::Number {
            let mut diagnostic = self.unexpected(token, "a member number after `.`");
            diagnostic.kind = "expected-field";
            self.report(
                diagnostic.with_help("tuple members are numbered from 0, e.g. `t.0`, `t.1`"),
            );
            return None;
        }
        self.bump();
        let value = self.int_value(token.span, false, token.span)?;
        // Not every i64 is a usize on every target; such a member number is far past any tuple anyway.
        Some(Spanned::new(
            usize::try_from(value).unwrap_or(usize::MAX),
            token.span,
        ))
    }
}

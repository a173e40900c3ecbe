//! `match` and its patterns.

use super::pieces::{binary_op, shorten};
use super::{Keyword, MATCH_HELP, PATTERN_KINDS, Parser, Stop};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, MatchArm, Pattern, Spanned};
use crate::syntax::lexer::{Token, TokenKind};

impl Parser<'_> {
    #[inline(never)]
    pub(super) fn parse_match(&mut self) -> Expr {
        let keyword = self.bump();
        let outer_awaiting = self.awaiting.replace("`{`");
        let scrutinee = self.parse_operand(keyword, Self::parse_expr);
        self.awaiting = outer_awaiting;
        let scrutinee_text = shorten(self.text(scrutinee.span).trim());
        let Some(open) = self.eat(TokenKind::LBrace) else {
            let expected = format!("`{{` after `match {scrutinee_text}`");
            self.report_missing("expected-brace", &expected, MATCH_HELP);
            let span = Span::new(keyword.span.start, self.prev_end);
            return Expr::new(ExprKind::Error, span);
        };
        self.brackets += 1;
        let outer_awaiting = self.awaiting.replace("`,` or `}`");
        let mut arms = Vec::new();
        let mut attempted = false;
        loop {
            let token = self.peek();
            if token.kind == TokenKind::RBrace {
                self.bump();
                break;
            }
            if token.kind == TokenKind::Eof || self.at_hard_stop() {
                self.report_unclosed(open);
                break;
            }
            attempted = true;
            arms.extend(self.parse_arm(&scrutinee_text));
            let token = self.peek();
            match token.kind {
                TokenKind::Comma => {
                    self.bump();
                }
                TokenKind::RBrace => {
                    self.bump();
                    break;
                }
                _ if token.kind == TokenKind::Eof || self.at_hard_stop() => {
                    self.report_unclosed(open);
                    break;
                }
                _ => {
                    let diagnostic = self.unexpected(token, "`,` or `}` after a `match` arm");
                    self.report(diagnostic);
                    match self.skip_to(TokenKind::RBrace, true) {
                        Stop::Comma => {
                            self.bump();
                        }
                        Stop::Closed | Stop::Elsewhere => break,
                    }
                }
            }
        }
        self.awaiting = outer_awaiting;
        self.brackets -= 1;
        let span = Span::new(keyword.span.start, self.prev_end);
        if !attempted {
            self.report(
                Diagnostic::error(
                    "empty-match",
                    Span::new(open.span.start, self.prev_end),
                    "empty match: no arms between `{` and `}`",
                )
                .with_help("add at least one arm, e.g. `_ => 0`; every value must match some arm"),
            );
        }
        Expr::new(ExprKind::Match(Box::new(scrutinee), arms), span)
    }

    /// `pattern => value`, or `None` when the pattern is broken (reported; the value is parsed for its
    /// errors when there is a `=>`).
    pub(super) fn parse_arm(&mut self, scrutinee: &str) -> Option<MatchArm> {
        let mut pattern = self.parse_pattern();
        if let Some(written) = &pattern
            && self.at_pattern_junk()
        {
            let start = self.peek().span.start;
            self.skip_pattern_junk();
            let junk = Span::new(start, self.prev_end);
            let example = self.if_example(scrutinee, written, junk);
            self.report(
                Diagnostic::error(
                    "pattern-not-literal",
                    junk,
                    format!(
                        "a pattern is a literal value, not an expression: found `{}` after `{}`",
                        shorten(self.text(junk)),
                        shorten(self.text(written.span))
                    ),
                )
                .with_help(format!(
                    "{PATTERN_KINDS}; to compare with a value worked out from names, use `if`, e.g. {example}"
                )),
            );
            pattern = None;
        }
        if pattern.is_none() {
            self.skip_pattern_junk();
        }
        let Some(arrow) = self.eat(TokenKind::FatArrow) else {
            if let Some(written) = &pattern {
                let expected = format!(
                    "`=>` after the pattern `{}`",
                    shorten(self.text(written.span))
                );
                self.report_missing(
                    "expected-arrow",
                    &expected,
                    "write each arm as `pattern => value`, e.g. `1 => \"one\"`",
                );
            }
            self.skip_pattern_junk();
            let arrow = self.eat(TokenKind::FatArrow)?;
            self.parse_operand(arrow, Self::parse_expr);
            return None;
        };
        let body = self.parse_operand(arrow, Self::parse_expr);
        Some(MatchArm {
            pattern: pattern?,
            body,
        })
    }

    /// An `if` that does what a pattern followed by `junk` tried to, for the help of `pattern-not-literal`.
    pub(super) fn if_example(
        &self,
        scrutinee: &str,
        pattern: &Spanned<Pattern>,
        junk: Span,
    ) -> String {
        let op_and_bound = match &pattern.node {
            Pattern::Int(_) => Some(("=", pattern.span)),
            Pattern::Range {
                lo: None,
                hi: Some(_),
                hi_inclusive,
            } => {
                let op = if *hi_inclusive { "<=" } else { "<" };
                // The bound is what follows `..` or `..=`.
                let written = self.text(pattern.span);
                let skip = written.find(|c: char| c != '.' && c != '=').unwrap_or(0);
                Some((op, Span::new(pattern.span.start + skip, pattern.span.end)))
            }
            _ => None,
        };
        match op_and_bound {
            Some((op, bound)) => format!(
                "`if {scrutinee} {op} {} {} then … else …`",
                self.text(bound).trim(),
                shorten(self.text(junk))
            ),
            None => format!("`if {scrutinee} = … then … else …`"),
        }
    }

    /// Whether the current token, after a complete pattern, shows that an expression was written instead.
    pub(super) fn at_pattern_junk(&self) -> bool {
        let token = self.peek();
        binary_op(token.kind).is_some()
            || self.peek_compare().is_some()
            || matches!(
                token.kind,
                TokenKind::Dot | TokenKind::Bang | TokenKind::Label { .. } | TokenKind::LParen
            )
            || (token.kind == TokenKind::Word && self.keyword(token).is_none())
    }

    /// Skips up to the `=>`, `,` or `}` that ends a broken pattern (not consumed), bracketed runs whole.
    pub(super) fn skip_pattern_junk(&mut self) {
        let mut nesting = 0usize;
        loop {
            let token = self.peek();
            if token.kind == TokenKind::Eof || self.at_hard_stop() {
                return;
            }
            match token.kind {
                TokenKind::FatArrow | TokenKind::Comma | TokenKind::RBrace if nesting == 0 => {
                    return;
                }
                TokenKind::RParen if nesting == 0 => return,
                TokenKind::LParen | TokenKind::LBrace => nesting += 1,
                TokenKind::RParen | TokenKind::RBrace => nesting -= 1,
                _ => {}
            }
            self.bump();
        }
    }

    /// A pattern with its alternatives, or `None` when it is broken (reported).
    pub(super) fn parse_pattern(&mut self) -> Option<Spanned<Pattern>> {
        let start = self.peek().span.start;
        let first = self.parse_pattern_alternative()?;
        if self.peek().kind != TokenKind::Pipe {
            return Some(first);
        }
        let mut alternatives = vec![first];
        while self.eat(TokenKind::Pipe).is_some() {
            alternatives.push(self.parse_pattern_alternative()?);
        }
        Some(Spanned::new(
            Pattern::Or(alternatives),
            Span::new(start, self.prev_end),
        ))
    }

    pub(super) fn parse_pattern_alternative(&mut self) -> Option<Spanned<Pattern>> {
        let token = self.peek();
        let start = token.span.start;
        let pattern = match token.kind {
            TokenKind::Word if self.text(token.span) == "_" && !self.digits_follow(token) => {
                self.bump();
                Pattern::Wildcard
            }
            TokenKind::Word
                if matches!(self.keyword(token), Some(Keyword::True | Keyword::False)) =>
            {
                self.bump();
                Pattern::Bool(self.keyword(token) == Some(Keyword::True))
            }
            TokenKind::Text { closed } => {
                self.bump();
                Pattern::Text(self.string_text(token, closed))
            }
            TokenKind::LParen => return self.parse_tuple_pattern(),
            TokenKind::Minus | TokenKind::Number | TokenKind::DotDot | TokenKind::DotDotEq => {
                self.parse_number_pattern()?
            }
            _ => {
                let mut diagnostic = self.unexpected(token, "a pattern");
                diagnostic.kind = "expected-pattern";
                let help = if token.kind == TokenKind::Word {
                    format!(
                        "{PATTERN_KINDS}; a name cannot be matched against: to compare with `{}`, use `if`",
                        shorten(self.text(token.span))
                    )
                } else {
                    PATTERN_KINDS.to_string()
                };
                self.report(diagnostic.with_help(help));
                return None;
            }
        };
        Some(Spanned::new(pattern, Span::new(start, self.prev_end)))
    }

    /// `(p)`, which is `p`, or a tuple pattern `(p, …)`.
    pub(super) fn parse_tuple_pattern(&mut self) -> Option<Spanned<Pattern>> {
        let open = self.bump();
        if !self.enter(open.span) {
            return None;
        }
        let pattern = self.parse_tuple_pattern_inside(open);
        self.depth -= 1;
        pattern
    }

    pub(super) fn parse_tuple_pattern_inside(&mut self, open: Token) -> Option<Spanned<Pattern>> {
        if let Some(close) = self.eat(TokenKind::RParen) {
            self.report(
                Diagnostic::error(
                    "empty-parens",
                    open.span.to(close.span),
                    "empty parentheses: no pattern between `(` and `)`",
                )
                .with_help("a tuple pattern needs members, e.g. `(1, _)`"),
            );
            return None;
        }
        self.brackets += 1;
        let outer_awaiting = self.awaiting.take();
        let first = self.parse_pattern();
        let result = match self.peek().kind {
            TokenKind::RParen => {
                self.bump();
                first.map(|p| Spanned::new(p.node, Span::new(open.span.start, self.prev_end)))
            }
            TokenKind::Comma => {
                self.bump();
                let rest = self.parse_list(open, TokenKind::RParen, Self::parse_pattern, true);
                let closed = self.source[..self.prev_end].ends_with(')');
                let mut members = vec![first];
                members.extend(rest);
                let members: Option<Vec<_>> = members.into_iter().collect();
                members.filter(|_| closed).map(|members| {
                    Spanned::new(
                        Pattern::Tuple(members),
                        Span::new(open.span.start, self.prev_end),
                    )
                })
            }
            _ => {
                if first.is_some() {
                    let diagnostic = self.unexpected(self.peek(), "`,` or `)` in a tuple pattern");
                    self.report(diagnostic);
                }
                self.skip_to(TokenKind::RParen, false);
                None
            }
        };
        self.awaiting = outer_awaiting;
        self.brackets -= 1;
        result
    }

    /// An integer pattern or a range.
    pub(super) fn parse_number_pattern(&mut self) -> Option<Pattern> {
        let start = self.peek().span.start;
        let lo = match self.peek().kind {
            TokenKind::DotDot | TokenKind::DotDotEq => None,
            _ => Some(self.parse_int("a number", Some(PATTERN_KINDS))?),
        };
        let hi_inclusive = match self.peek().kind {
            TokenKind::DotDot => false,
            TokenKind::DotDotEq => true,
            _ => return lo.map(Pattern::Int),
        };
        let dots = self.bump();
        let dots_text = self.text(dots.span);
        let hi = if matches!(self.peek().kind, TokenKind::Minus | TokenKind::Number) {
            Some(self.parse_int(&format!("a number after `{dots_text}`"), None)?)
        } else {
            None
        };
        if hi.is_none() && (hi_inclusive || lo.is_none()) {
            let mut diagnostic =
                self.unexpected(self.peek(), &format!("a number after `{dots_text}`"));
            diagnostic.kind = "expected-number";
            let help = if lo.is_none() {
                "write the bound, e.g. `..=10`; to match every value use `_`"
            } else {
                "write the last value, e.g. `1..=6`, or leave the range open with `..`, e.g. `41..`"
            };
            self.report(diagnostic.with_help(help));
            return None;
        }
        if let (Some(lo), Some(hi)) = (lo, hi)
            && (lo > hi || (lo == hi && !hi_inclusive))
        {
            let span = Span::new(start, self.prev_end);
            let written = self.text(span).to_string();
            self.report(
                Diagnostic::error(
                    "empty-range",
                    span,
                    format!("empty range `{}`: no number lies in it", shorten(&written)),
                )
                .with_help(
                    "write the lower bound first; `lo..hi` leaves `hi` out and `lo..=hi` keeps it in",
                ),
            );
        }
        Some(Pattern::Range {
            lo,
            hi,
            hi_inclusive,
        })
    }
}

//! Numbers: integers with their bounds, and decimals read as exact fractions.

use super::Parser;
use super::pieces::shorten;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, Spanned};
use crate::syntax::lexer::TokenKind;

impl<'s> Parser<'s> {
    /// A decimal such as `1.5` where the dialect keeps fractions: the exact fraction, read as Omen's
    /// `div(3, 2)` (a whole one, `2.0`, as `2`). `None`, consuming nothing, anywhere else.
    pub(super) fn parse_decimal(&mut self) -> Option<Expr> {
        let whole = self.peek();
        let (dot, digits) = (
            self.tokens.get(self.pos + 1)?,
            self.tokens.get(self.pos + 2)?,
        );
        if !self.dialect.keeps_fractions
            || dot.kind != TokenKind::Dot
            || dot.span.start != whole.span.end
            || digits.kind != TokenKind::Number
            || digits.span.start != dot.span.end
        {
            return None;
        }
        let digits = *digits;
        let span = whole.span.to(digits.span);
        for _ in 0..3 {
            self.bump();
        }
        let text = format!("{}{}", self.text(whole.span), self.text(digits.span));
        let places = u32::try_from(digits.span.end - digits.span.start).unwrap_or(u32::MAX);
        let value = text
            .parse::<i128>()
            .ok()
            .zip(10i128.checked_pow(places))
            .and_then(|(n, d)| crate::value::Value::ratio(n, d));
        Some(self.decimal_node(value, span))
    }

    /// The node of a decimal whose exact value is `value` (`None` when it does not fit).
    pub(super) fn decimal_node(&mut self, value: Option<crate::value::Value>, span: Span) -> Expr {
        let node = match value {
            Some(crate::value::Value::Int(n)) => ExprKind::Number(n),
            Some(crate::value::Value::Ratio(r)) => {
                let number = |n: i64| Expr::new(ExprKind::Number(n), span);
                ExprKind::Call(
                    Spanned::new("div".to_string(), span),
                    vec![number(*r.numer()), number(*r.denom())],
                )
            }
            _ => {
                self.report(
                    Diagnostic::error(
                        "number-too-large",
                        span,
                        format!(
                            "`{}` has too many digits to be held exactly",
                            shorten(self.text(span))
                        ),
                    )
                    .with_help("numerator and denominator in lowest terms must fit in 64 bits"),
                );
                ExprKind::Error
            }
        };
        Expr::new(node, span)
    }

    pub(super) fn parse_number(&mut self) -> Expr {
        let token = self.bump();
        let node = match self.int_value(token.span, false, token.span) {
            Some(value) => ExprKind::Number(value),
            None => ExprKind::Error,
        };
        Expr::new(node, token.span)
    }

    /// The value of the digits under `digits`, negated if `negative`; reports (at `whole`) when it does not
    /// fit in an `i64`.
    pub(super) fn int_value(&mut self, digits: Span, negative: bool, whole: Span) -> Option<i64> {
        let mut magnitude: i128 = 0;
        for digit in self.text(digits).bytes() {
            magnitude = magnitude * 10 + i128::from(digit - b'0');
            if magnitude > 1 << 63 {
                break;
            }
        }
        let value = if negative { -magnitude } else { magnitude };
        match i64::try_from(value) {
            Ok(value) => Some(value),
            Err(_) => {
                self.report(
                    Diagnostic::error(
                        "number-too-large",
                        whole,
                        format!(
                            "number too large: `{}` does not fit in 64 bits",
                            shorten(self.text(whole))
                        ),
                    )
                    .with_help(format!(
                        "numbers must lie between {} and {}",
                        i64::MIN,
                        i64::MAX
                    )),
                );
                None
            }
        }
    }

    /// An integer with an optional `-`, for modifier values, faces and patterns. `expected` names it for the
    /// error when there is none.
    pub(super) fn parse_int(&mut self, expected: &str, help: Option<&str>) -> Option<i64> {
        let start = self.peek().span.start;
        let minus = self.eat(TokenKind::Minus);
        let token = self.peek();
        if token.kind != TokenKind::Number {
            let expected = match minus {
                Some(_) => "a number after `-`",
                None => expected,
            };
            let mut diagnostic = self.unexpected(token, expected);
            diagnostic.kind = "expected-number";
            let name_help;
            let help = match (help, self.name_at_current()) {
                (Some(help), _) => Some(help),
                (None, Some(name)) => {
                    name_help =
                        format!("write the number itself here, not a name such as `{name}`");
                    Some(name_help.as_str())
                }
                (None, None) => None,
            };
            if let Some(help) = help {
                diagnostic = diagnostic.with_help(help);
            }
            self.report(diagnostic);
            return None;
        }
        self.bump();
        self.int_value(
            token.span,
            minus.is_some(),
            Span::new(start, token.span.end),
        )
    }
}

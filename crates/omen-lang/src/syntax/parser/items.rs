//! A script's items (`let`, `param`, `fn`) and its result, and what may follow the result.

use super::pieces::{binary_op, shorten};
use super::{Keyword, NAME_HELP, Parser, SEMICOLON_HELP, TopLet};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, Item, Script, Spanned};
use crate::syntax::lexer::TokenKind;

impl<'s> Parser<'s> {
    pub(super) fn parse_script(&mut self) -> Script {
        self.skip_chat_command();
        let mut items = Vec::new();
        let body = loop {
            let token = self.peek();
            match self.keyword(token) {
                Some(Keyword::Param | Keyword::Fn) => items.extend(self.parse_item()),
                Some(Keyword::Let) => match self.parse_top_let() {
                    TopLet::Item(item) => items.extend(item),
                    TopLet::Result(expr) => break expr,
                },
                _ if token.kind == TokenKind::Eof && !items.is_empty() => {
                    let at = self.missing_at(token);
                    self.report(
                        Diagnostic::error(
                            "missing-result",
                            at,
                            "expected the script's result after its items, found the end of the input",
                        )
                        .with_help(
                            "end the script with the expression to roll, without `;`, e.g. `2d6 + bonus`",
                        ),
                    );
                    break Expr::new(ExprKind::Error, at);
                }
                _ => break self.parse_roll(),
            }
        };
        self.parse_after_result();
        Script { items, body }
    }

    /// Reports what follows the result, parsing it (and dropping it) so that its errors are reported too.
    pub(super) fn parse_after_result(&mut self) {
        loop {
            // The operator loops take every operator and skip stray tokens after operands, so mostly a closing
            // bracket, a comma, a `;` or an item ends the result early.
            let token = self.peek();
            let stray = |kind: &'static str, message: String, help: &str| {
                Diagnostic::error(kind, token.span, message).with_help(help)
            };
            let keyword = self.keyword(token);
            let diagnostic = match token.kind {
                TokenKind::Eof => break,
                TokenKind::RParen => stray(
                    "unexpected-token",
                    "unexpected `)`: no `(` is open".to_string(),
                    "remove it, or add the `(` it closes",
                ),
                TokenKind::RBrace => stray(
                    "unexpected-token",
                    "unexpected `}`: no `{` is open".to_string(),
                    "remove it, or add the `{` it closes",
                ),
                TokenKind::Comma => stray(
                    "unexpected-token",
                    "unexpected `,` outside a group, tuple or call".to_string(),
                    "to roll several things side by side, make a tuple such as `(1d20, 1d20+5)`; to \
                     keep or count among them, a group with a modifier such as `{1d20, 1d20+5}kh1` (a \
                     group alone adds them up), or a call such as `max(1d20, 1d20+5)`",
                ),
                TokenKind::Semicolon => stray(
                    "unexpected-semicolon",
                    "unexpected `;` after the script's result".to_string(),
                    "only `let`, `param` and `fn` items end with `;`; a script ends with one expression, \
                     its result",
                ),
                _ if keyword.is_some_and(Keyword::starts_item) => stray(
                    "item-after-result",
                    format!(
                        "`{}` after the script's result",
                        self.text(token.span).to_ascii_lowercase()
                    ),
                    "put the `let`, `param` and `fn` items first; the script ends with one expression, its \
                     result",
                ),
                // Only after an operand that was missing, which is reported at this same token already.
                _ => self.unexpected(token, "an operator"),
            };
            self.report(diagnostic);
            if keyword.is_some_and(Keyword::starts_item) {
                self.parse_item_after_result();
                continue;
            }
            self.bump();
            let next = self.peek();
            if next.kind == TokenKind::Eof || self.keyword(next).is_some_and(Keyword::starts_item) {
                continue;
            }
            if (binary_op(next.kind).is_some() && next.kind != TokenKind::Minus)
                || self.peek_compare().is_some()
            {
                let op = self.bump();
                if let Some((_, 2)) = self.peek_compare() {
                    self.bump();
                }
                self.parse_operand(op, Self::parse_expr);
            } else {
                self.parse_expr();
            }
        }
    }

    /// An item after the result (already reported), parsed for its errors.
    pub(super) fn parse_item_after_result(&mut self) {
        if self.at_keyword(Keyword::Let) {
            self.parse_top_let();
        } else {
            self.parse_item();
        }
    }

    /// A `param` or `fn` item.
    pub(super) fn parse_item(&mut self) -> Option<Spanned<Item>> {
        self.in_item = true;
        let item = if self.at_keyword(Keyword::Param) {
            self.parse_param()
        } else {
            self.parse_fn()
        };
        self.in_item = false;
        item
    }

    pub(super) fn parse_param(&mut self) -> Option<Spanned<Item>> {
        let keyword = self.bump();
        let Some(name) = self.parse_name("a name after `param`") else {
            self.skip_item();
            return None;
        };
        let default = match self.peek().kind {
            TokenKind::Eq => {
                let eq = self.bump();
                Some(self.awaiting(Some("`;`"), |parser| {
                    parser.parse_operand(eq, Self::parse_expr)
                }))
            }
            TokenKind::Semicolon => None,
            _ => {
                let expected = format!("`=` or `;` after `param {}`", name.node);
                self.report_missing(
                    "expected-equals",
                    &expected,
                    "give a default with `=`, e.g. `param bonus = 2;`, or none: `param bonus;`",
                );
                self.skip_item();
                return None;
            }
        };
        self.end_item("param", &name.node);
        Some(Spanned::new(
            Item::Param { name, default },
            Span::new(keyword.span.start, self.prev_end),
        ))
    }

    pub(super) fn parse_fn(&mut self) -> Option<Spanned<Item>> {
        let keyword = self.bump();
        let Some(name) = self.parse_name("a function name after `fn`") else {
            self.skip_item();
            return None;
        };
        let Some(open) = self.eat(TokenKind::LParen) else {
            let expected = format!("`(` after `fn {}`", name.node);
            self.report_missing(
                "expected-params",
                &expected,
                "a function lists its parameters in parentheses, even when it has none, e.g. \
                 `fn twice(x) = x * 2;`, `fn roll() = 2d6;`",
            );
            self.skip_item();
            return None;
        };
        let params = self.parse_list(
            open,
            TokenKind::RParen,
            |parser| parser.parse_name("a parameter name"),
            true,
        );
        let params = params.into_iter().flatten().collect();
        if self.eat(TokenKind::Eq).is_none() {
            let expected = format!("`=` after the parameters of `{}`", name.node);
            self.report_missing(
                "expected-equals",
                &expected,
                "write the function's value after `=`, e.g. `fn twice(x) = x * 2;`",
            );
            if !self.at_operand_start() || self.line_break_before(self.peek()) {
                self.skip_item();
                return None;
            }
        }
        let body = self.awaiting(Some("`;`"), Self::parse_expr);
        self.end_item("fn", &name.node);
        Some(Spanned::new(
            Item::Fn { name, params, body },
            Span::new(keyword.span.start, self.prev_end),
        ))
    }

    /// A `let` at the top of a script: an item when `;` follows its value, the result when `in` does.
    pub(super) fn parse_top_let(&mut self) -> TopLet {
        let keyword = self.bump();
        self.in_item = true;
        let head = self.awaiting(Some("`;`"), Self::parse_let_head);
        self.in_item = false;
        let Some((name, value)) = head else {
            self.skip_item();
            return TopLet::Item(None);
        };
        if let Some(in_token) = self.at_keyword(Keyword::In).then(|| self.bump()) {
            let body = self.parse_operand(in_token, Self::parse_expr);
            let span = keyword.span.to(body.span);
            return TopLet::Result(Expr::new(
                ExprKind::LetIn(name, Box::new(value), Box::new(body)),
                span,
            ));
        }
        self.end_item("let", &name.node);
        TopLet::Item(Some(Spanned::new(
            Item::Let { name, value },
            Span::new(keyword.span.start, self.prev_end),
        )))
    }

    /// `name = value` after `let`, or `None` when the name or `=` is missing (reported).
    pub(super) fn parse_let_head(&mut self) -> Option<(Spanned<String>, Expr)> {
        let name = self.parse_name("a name after `let`")?;
        let value = match self.eat(TokenKind::Eq) {
            Some(eq) => self.parse_operand(eq, Self::parse_expr),
            None => {
                let expected = format!("`=` after `let {}`", name.node);
                self.report_missing(
                    "expected-equals",
                    &expected,
                    "give the value after `=`, e.g. `let bonus = 2;`",
                );
                if !self.at_operand_start() || self.line_break_before(self.peek()) {
                    return None;
                }
                self.parse_expr()
            }
        };
        Some((name, value))
    }

    /// After an item's value: its `;`, or a report that it is missing. A missing `;` before a new line or a
    /// new item is only reported; otherwise the rest of the item is skipped.
    pub(super) fn end_item(&mut self, keyword: &str, name: &str) {
        if self.eat(TokenKind::Semicolon).is_some() {
            return;
        }
        let token = self.peek();
        let missing_only = token.kind == TokenKind::Eof
            || self.line_break_before(token)
            || self.keyword(token).is_some_and(Keyword::starts_item);
        let expected = format!("`;` to end `{keyword} {name}`");
        self.report_missing("expected-semicolon", &expected, SEMICOLON_HELP);
        if !missing_only {
            self.skip_item();
        }
    }

    /// A name being bound, or `None` (reported, nothing consumed) when there is no word here. Keywords and
    /// words that read as dice are reported but taken, so that parsing goes on.
    pub(super) fn parse_name(&mut self, expected: &str) -> Option<Spanned<String>> {
        let token = self.peek();
        if token.kind != TokenKind::Word {
            let mut diagnostic = self.unexpected(token, expected).with_help(NAME_HELP);
            diagnostic.kind = "expected-name";
            self.report(diagnostic);
            return None;
        }
        if self.keyword(token).is_some() {
            self.bump();
            let word = self.text(token.span).to_ascii_lowercase();
            self.report(
                Diagnostic::error(
                    "reserved-word",
                    token.span,
                    format!("`{word}` is a keyword and cannot be a name"),
                )
                .with_help(
                    "choose another name; the keywords are `let` `param` `fn` `if` `then` `else` `match` \
                     `and` `or` `not` `true` `false` `in`",
                ),
            );
            return Some(Spanned::new(word, token.span));
        }
        let reads_as_dice = self.is_dice_start(token);
        let name = self.take_name();
        if reads_as_dice {
            self.report(
                Diagnostic::error(
                    "dice-like-name",
                    name.span,
                    format!("`{}` reads as dice and cannot be a name", shorten(&name.node)),
                )
                .with_help(
                    "a name cannot be `d` alone, start with `d` and a digit, or be `dF` followed by \
                     modifiers; choose another name, e.g. `damage`",
                ),
            );
        }
        Some(name)
    }

    // Expressions, loosest first.
}

//! Primary operands: numbers, names and calls, strings, `if`, `let … in`, and keywords where an operand
//! belongs.

use super::{Keyword, Parser};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind};
use crate::syntax::lexer::{Token, TokenKind};

impl Parser<'_> {
    pub(super) fn parse_primary(&mut self) -> Expr {
        self.skip_leading_flags();
        if let Some(alias) = self.word_alias() {
            return alias;
        }
        let token = self.peek();
        match token.kind {
            TokenKind::Number => {
                if let Some(decimal) = self.parse_decimal() {
                    return decimal;
                }
                let number = self.parse_number();
                self.parse_dice_after(number)
            }
            TokenKind::LParen => {
                let paren = self.parse_paren();
                if matches!(paren.node, ExprKind::Tuple(_)) {
                    self.paren_set(paren)
                } else {
                    self.parse_dice_after(paren)
                }
            }
            TokenKind::LBrace => self.parse_group(),
            TokenKind::Dot if self.at_bare_decimal() => self.parse_bare_decimal(),
            TokenKind::Text { closed } => {
                self.bump();
                let text = self.string_text(token, closed);
                Expr::new(ExprKind::Text(text), token.span)
            }
            TokenKind::Word if self.is_dice_start(token) => self.parse_dice(None),
            TokenKind::Word if self.at_pool() => self.parse_pool(),
            TokenKind::Word => match self.keyword(token) {
                None => self.parse_name_or_call(),
                Some(Keyword::True | Keyword::False) => {
                    self.bump();
                    let value = self.keyword(token) == Some(Keyword::True);
                    Expr::new(ExprKind::Bool(value), token.span)
                }
                Some(Keyword::If) => self.parse_if(),
                Some(Keyword::Match) => self.parse_match(),
                Some(Keyword::Let) => self.parse_let_in(),
                Some(keyword) => self.keyword_as_operand(token, keyword),
            },
            _ => {
                let diagnostic = self.unexpected(token, "an expression");
                self.report(diagnostic);
                Expr::new(
                    ExprKind::Error,
                    Span::new(token.span.start, token.span.start),
                )
            }
        }
    }

    /// Reports a keyword that cannot start an operand, e.g. `then`, standing an error node in for it.
    pub(super) fn keyword_as_operand(&mut self, token: Token, keyword: Keyword) -> Expr {
        let mut diagnostic = self.unexpected(token, "an expression");
        let help = match keyword {
            Keyword::Not => Some(
                "`not` applies to a whole comparison; inside arithmetic or a comparison, wrap it in \
                 parentheses: `(not …)`",
            ),
            Keyword::Param | Keyword::Fn => {
                Some("`param` and `fn` items come first in a script, each ending with `;`")
            }
            _ => None,
        };
        if let Some(help) = help {
            diagnostic = diagnostic.with_help(help);
        }
        self.report(diagnostic);
        Expr::new(
            ExprKind::Error,
            Span::new(token.span.start, token.span.start),
        )
    }

    /// The text of a string token, reporting it if it is not closed.
    pub(super) fn string_text(&mut self, token: Token, closed: bool) -> String {
        let end = if closed {
            token.span.end - 1
        } else {
            token.span.end
        };
        if !closed {
            let at_line_end = self.source[token.span.end..].starts_with('\n');
            let found = if at_line_end {
                "the end of the line"
            } else {
                "the end of the input"
            };
            self.report(
                Diagnostic::error(
                    "unclosed-string",
                    token.span,
                    format!("unclosed string: expected `\"`, found {found}"),
                )
                .with_help("close the text with `\"` on the same line, e.g. `\"bad\"`"),
            );
        }
        self.source[token.span.start + 1..end].to_string()
    }

    /// A variable, or a call when `(` follows the name.
    #[inline(never)]
    pub(super) fn parse_name_or_call(&mut self) -> Expr {
        let name = self.take_name();
        let Some(open) = self.eat(TokenKind::LParen) else {
            let span = name.span;
            return Expr::new(ExprKind::Var(name.node), span);
        };
        let rounds = matches!(name.node.as_str(), "floor" | "ceil" | "round");
        self.rounding += usize::from(rounds);
        let arguments = self.parse_list(open, TokenKind::RParen, Self::parse_argument, false);
        self.rounding -= usize::from(rounds);
        let span = Span::new(name.span.start, self.prev_end);
        Expr::new(ExprKind::Call(name, arguments), span)
    }

    #[inline(never)]
    pub(super) fn parse_if(&mut self) -> Expr {
        let keyword = self.bump();
        // Not through `Self::awaiting`: this is on the path the parser recurses along, where frames cost.
        let outer_awaiting = self.awaiting.replace("`then`");
        let condition = self.parse_operand(keyword, Self::parse_expr);
        self.awaiting = outer_awaiting;
        let error_here =
            |parser: &Self| Expr::new(ExprKind::Error, Span::new(parser.prev_end, parser.prev_end));
        let then_branch = match self.expect_keyword(
            Keyword::Then,
            "expected-then",
            "`then` after the condition of `if`",
            "write `if condition then value else other`, e.g. `if pool <= 0 then 0 else (pool)d6`",
        ) {
            Some(then) => {
                let outer_awaiting = self.awaiting.replace("`else`");
                let then_branch = self.parse_operand(then, Self::parse_expr);
                self.awaiting = outer_awaiting;
                then_branch
            }
            None if self.at_keyword(Keyword::Else) => error_here(self),
            None => {
                let span = Span::new(keyword.span.start, self.prev_end);
                return Expr::new(ExprKind::Error, span);
            }
        };
        let else_branch = match self.expect_keyword(
            Keyword::Else,
            "expected-else",
            "`else` after the `then` value",
            "every `if` needs an `else`, e.g. `if x > 3 then 1 else 0`",
        ) {
            Some(else_token) => self.parse_operand(else_token, Self::parse_expr),
            None => error_here(self),
        };
        let span = Span::new(keyword.span.start, self.prev_end);
        Expr::new(
            ExprKind::If(
                Box::new(condition),
                Box::new(then_branch),
                Box::new(else_branch),
            ),
            span,
        )
    }

    /// `let x = value in body` inside an expression.
    #[inline(never)]
    pub(super) fn parse_let_in(&mut self) -> Expr {
        let keyword = self.bump();
        let outer_awaiting = self.awaiting.replace("`in`");
        let head = self.parse_let_head();
        self.awaiting = outer_awaiting;
        let Some((name, value)) = head else {
            return Expr::new(
                ExprKind::Error,
                Span::new(keyword.span.start, self.prev_end),
            );
        };
        let expected = format!("`in` after the value of `let {}`", name.node);
        let Some(in_token) = self.expect_keyword(
            Keyword::In,
            "expected-in",
            &expected,
            "inside an expression write `let x = value in body`; only at the top of a script does `let` end \
             with `;`",
        ) else {
            // `let y = …; y * 2` inside an expression: `in` was meant, so read on as if it were there.
            if let Some(semicolon) = self.take_semicolon_before_operand() {
                let body = self.parse_operand(semicolon, Self::parse_expr);
                let span = keyword.span.to(body.span);
                return Expr::new(ExprKind::LetIn(name, Box::new(value), Box::new(body)), span);
            }
            let span = Span::new(keyword.span.start, self.prev_end);
            return Expr::new(ExprKind::Error, span);
        };
        let body = self.parse_operand(in_token, Self::parse_expr);
        let span = keyword.span.to(body.span);
        Expr::new(ExprKind::LetIn(name, Box::new(value), Box::new(body)), span)
    }

    /// Consumes a `;` when an operand (not an item) follows it.
    pub(super) fn take_semicolon_before_operand(&mut self) -> Option<Token> {
        if self.peek().kind != TokenKind::Semicolon {
            return None;
        }
        let (pos, prev_end) = (self.pos, self.prev_end);
        let semicolon = self.bump();
        // At the top of an item, a `let` after the `;` is more likely the next item.
        let next_item = self.at_keyword(Keyword::Let) && self.in_item && self.brackets == 0;
        if self.at_operand_start() && !next_item {
            return Some(semicolon);
        }
        (self.pos, self.prev_end) = (pos, prev_end);
        None
    }
}

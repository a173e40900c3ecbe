//! Pools: `pool 8d6`, `pool {d10, d8, d6}`, `pool {6 x (4d6kh3)}`, `pool {3 ability, 2 difficulty}`,
//! `pool draw 5 from d{…}`, and the compare points their readings take as arguments (`count(p, >=5)`).
//!
//! `pool` is a keyword only where a pool follows it (a number, `{`, a dice term, `draw`, or `(`
//! after a space: `pool (n)d6`, where `pool(n)` calls a function), so a script that names something
//! `pool` keeps working; `x`, `draw` and `from` are words only inside a
//! pool, and the Genesys dice's names (`ability`, `difficulty`, …) name dice only as pool members.

use super::Parser;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{CompareOp, Expr, ExprKind, PoolExpr, PoolMember, Spanned};
use crate::syntax::lexer::{Token, TokenKind};

/// The symbol dice a pool member may name.
const SYMBOL_DICE: [&str; 6] = [
    "boost",
    "setback",
    "ability",
    "difficulty",
    "proficiency",
    "challenge",
];

const POOL_HELP: &str = "a pool is `pool 8d6`, `pool {d10, d8, d6}`, `pool {6 x (4d6kh3)}`, \
    `pool {3 ability, 2 difficulty}` or `pool draw 5 from d{1..52}`";

impl Parser<'_> {
    /// Whether `token` is a whole word, as written, with no digits glued to it.
    fn is_word(&self, token: Token, word: &str) -> bool {
        token.kind == TokenKind::Word
            && !self.digits_follow(token)
            && self.text(token.span).eq_ignore_ascii_case(word)
    }

    fn token_at(&self, at: usize) -> Token {
        self.tokens
            .get(at)
            .copied()
            .unwrap_or_else(|| self.end_token())
    }

    /// Whether the current token is `pool` starting a pool.
    pub(super) fn at_pool(&self) -> bool {
        let token = self.peek();
        if !self.is_word(token, "pool") {
            return false;
        }
        let next = self.token_at(self.pos + 1);
        // `pool (n)d6` with a space; `pool(n)` touching is a call of a function named `pool`.
        let spaced_paren = next.kind == TokenKind::LParen && next.span.start > token.span.end;
        matches!(next.kind, TokenKind::Number | TokenKind::LBrace)
            || spaced_paren
            || self.is_word(next, "draw")
            || self.is_dice_start(next)
    }

    /// `pool …`, the current token being `pool`.
    #[inline(never)]
    pub(super) fn parse_pool(&mut self) -> Expr {
        let keyword = self.bump();
        if !self.enter(keyword.span) {
            return Expr::new(ExprKind::Error, keyword.span);
        }
        let pool = if self.is_word(self.peek(), "draw") {
            self.parse_draw()
        } else if self.peek().kind == TokenKind::LBrace {
            let open = self.bump();
            let members = self.parse_list(open, TokenKind::RBrace, |p| p.parse_member(true), false);
            if members.is_empty() {
                self.report(
                    Diagnostic::error(
                        "empty-group",
                        Span::new(open.span.start, self.prev_end),
                        "empty pool: no dice between `{` and `}`",
                    )
                    .with_help(POOL_HELP),
                );
            }
            Some(PoolExpr::Dice(members))
        } else {
            Some(PoolExpr::Dice(vec![self.parse_member(false)]))
        };
        self.depth -= 1;
        let span = Span::new(keyword.span.start, self.prev_end);
        match pool {
            Some(pool) => Expr::new(ExprKind::Pool(Box::new(pool)), span),
            None => Expr::new(ExprKind::Error, span),
        }
    }

    /// `draw N from deck`, the current token being `draw`.
    fn parse_draw(&mut self) -> Option<PoolExpr> {
        self.bump();
        let count = self.parse_postfix();
        if !self.is_word(self.peek(), "from") {
            let diagnostic = self
                .unexpected(
                    self.peek(),
                    "`from` and the deck, e.g. `draw 5 from d{1..52}`",
                )
                .with_help(POOL_HELP);
            self.report(diagnostic);
            return None;
        }
        self.bump();
        let deck = self.parse_postfix();
        Some(PoolExpr::Draw { count, deck })
    }

    /// One member: `3 ability`, `ability`, `6 x (4d6kh3)`, or a roll. Inside braces a roll is any
    /// expression; after a bare `pool` it is one operand, so that `pool 8d6 + 1` does not make one
    /// die of `8d6 + 1`.
    fn parse_member(&mut self, braced: bool) -> Spanned<PoolMember> {
        let start = self.peek().span.start;
        let first = self.peek();
        let second = self.token_at(self.pos + 1);
        let symbol = |p: &Self, t: Token| {
            SYMBOL_DICE.iter().any(|name| p.is_word(t, name))
                && p.token_at(p.pos + 2).kind != TokenKind::LParen
        };
        let member = if first.kind == TokenKind::Number && symbol(self, second) {
            let count = self.parse_int("a number of dice", None).unwrap_or(0);
            let name = self.take_name();
            PoolMember::Symbol { count, name }
        } else if SYMBOL_DICE.iter().any(|name| self.is_word(first, name))
            && second.kind != TokenKind::LParen
        {
            let name = self.take_name();
            PoolMember::Symbol { count: 1, name }
        } else if self.repeat_follows() {
            let count = self.parse_postfix();
            self.bump(); // `x`
            let roll = self.parse_postfix();
            PoolMember::Repeat { count, roll }
        } else if braced {
            PoolMember::Roll(self.parse_expr())
        } else {
            PoolMember::Roll(self.parse_postfix())
        };
        Spanned::new(member, Span::new(start, self.prev_end))
    }

    /// Whether a repeat's count comes next, then `x`: a number, or a bracketed expression.
    fn repeat_follows(&self) -> bool {
        let first = self.peek();
        let after = match first.kind {
            TokenKind::Number => self.pos + 1,
            TokenKind::LParen => {
                let mut depth = 0usize;
                let mut at = self.pos;
                loop {
                    match self.token_at(at).kind {
                        TokenKind::LParen => depth += 1,
                        TokenKind::RParen => {
                            depth -= 1;
                            if depth == 0 {
                                break at + 1;
                            }
                        }
                        TokenKind::Eof => return false,
                        _ => {}
                    }
                    at += 1;
                }
            }
            _ => return false,
        };
        self.is_word(self.token_at(after), "x")
    }

    /// A call's argument: an expression, or a compare point such as `>=5` (for a pool's reading).
    pub(super) fn parse_argument(&mut self) -> Expr {
        let Some((op, tokens)) = self.peek_compare() else {
            return self.parse_expr();
        };
        let start = self.peek().span.start;
        for _ in 0..tokens {
            self.bump();
        }
        let value = self.parse_unary();
        let span = Span::new(start, self.prev_end);
        let op = if op == CompareOp::Ne {
            self.report(
                Diagnostic::error(
                    "bad-point",
                    span,
                    "a reading counts the dice meeting one point or range; `!=` is not one",
                )
                .with_help("count the others as two points, e.g. `count(p, <1) + count(p, >1)`"),
            );
            CompareOp::Eq
        } else {
            op
        };
        Expr::new(ExprKind::Point(op, Box::new(value)), span)
    }
}

//! Reporting and recovery: errors with their spans, what may follow an operand, and skipping stray tokens
//! so that one mistake is one error.

use super::pieces::{binary_op, compare_op, look_alike, shorten};
use super::{Keyword, Parser, Stop};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{CompareOp, Expr, ExprKind};
use crate::syntax::lexer::{Token, TokenKind};

impl<'s> Parser<'s> {
    pub(super) fn report(&mut self, diagnostic: Diagnostic) {
        if self.too_deep {
            return;
        }
        // One error per place: recovery often meets the same bad token again on the way out.
        if self
            .diagnostics
            .last()
            .is_some_and(|last| last.span.start == diagnostic.span.start)
        {
            return;
        }
        self.diagnostics.push(diagnostic);
    }

    /// How a token is named in messages: its text in backticks, shortened if long.
    pub(super) fn describe(&self, token: Token) -> String {
        match token.kind {
            TokenKind::Eof => "the end of the input".to_string(),
            _ => format!("`{}`", shorten(self.text(token.span))),
        }
    }

    /// "expected …, found …" at `token`, of a kind saying what was found.
    pub(super) fn unexpected(&self, token: Token, expected: &str) -> Diagnostic {
        let kind = match token.kind {
            TokenKind::Eof => "unexpected-end",
            TokenKind::Unknown => "unexpected-character",
            _ => "unexpected-token",
        };
        let diagnostic = Diagnostic::error(
            kind,
            token.span,
            format!("expected {expected}, found {}", self.describe(token)),
        );
        let help = match token.kind {
            TokenKind::Dot => {
                Some("dice notation has whole numbers only; `/` divides rounding down")
            }
            TokenKind::DotDot | TokenKind::DotDotEq => Some(
                "ranges belong in `match` patterns (`1..5`, `..=10`) and in dice faces (`d{1..6}`)",
            ),
            TokenKind::FatArrow => {
                Some("`=>` goes between a pattern and its value inside `match x { … }`")
            }
            TokenKind::Pipe => Some(
                "`|` separates alternative patterns in a `match` arm; to combine conditions use `or`",
            ),
            TokenKind::Bang => {
                Some("`!` explodes dice, e.g. `3d6!`; to negate a condition use `not`")
            }
            TokenKind::Unknown => look_alike(self.text(token.span)),
            _ => None,
        };
        match help {
            Some(help) => diagnostic.with_help(help),
            None => diagnostic,
        }
    }

    /// Reports `expected` missing before the current token, unless an error was reported there already.
    pub(super) fn report_missing(&mut self, kind: &'static str, expected: &str, help: &str) {
        if self.reported_here() {
            return;
        }
        let token = self.peek();
        let message = format!("expected {expected}, found {}", self.describe(token));
        self.report(Diagnostic::error(kind, self.missing_at(token), message).with_help(help));
    }

    /// Consumes `keyword`, or reports it missing and returns `None`.
    pub(super) fn expect_keyword(
        &mut self,
        keyword: Keyword,
        kind: &'static str,
        expected: &str,
        help: &str,
    ) -> Option<Token> {
        if self.at_keyword(keyword) {
            return Some(self.bump());
        }
        self.report_missing(kind, expected, help);
        None
    }

    pub(super) fn report_unclosed(&mut self, open: Token) {
        let (kind, close) = match open.kind {
            TokenKind::LBrace => ("unclosed-brace", "}"),
            _ => ("unclosed-paren", ")"),
        };
        let open_text = self.text(open.span);
        let found = self.describe(self.peek());
        self.report(
            Diagnostic::error(
                kind,
                open.span,
                format!("unclosed `{open_text}`: expected `{close}`, found {found}"),
            )
            .with_help(format!("add `{close}` to close it")),
        );
    }

    /// The comparison operator at the current token and how many tokens it takes: `!=` is `!` then `=`.
    pub(super) fn peek_compare(&self) -> Option<(CompareOp, usize)> {
        let token = self.peek();
        if let Some(op) = compare_op(token.kind) {
            return Some((op, 1));
        }
        match token.kind {
            TokenKind::Ne => Some((CompareOp::Ne, 1)),
            TokenKind::Bang => {
                let next = self.tokens.get(self.pos + 1)?;
                (next.kind == TokenKind::Eq && next.span.start == token.span.end)
                    .then_some((CompareOp::Ne, 2))
            }
            _ => None,
        }
    }

    /// Whether the current token can come straight after a whole operand.
    pub(super) fn at_operand_end(&self) -> bool {
        let token = self.peek();
        binary_op(token.kind).is_some()
            || self.peek_compare().is_some()
            || matches!(
                token.kind,
                TokenKind::RParen
                    | TokenKind::RBrace
                    // `match x {`
                    | TokenKind::LBrace
                    | TokenKind::Comma
                    | TokenKind::Semicolon
                    | TokenKind::Eof
            )
            || self.keyword(token).is_some_and(Keyword::ends_operand)
    }

    /// Whether the current token can start an operand.
    pub(super) fn at_operand_start(&self) -> bool {
        let token = self.peek();
        match token.kind {
            TokenKind::Number
            | TokenKind::LParen
            | TokenKind::LBrace
            | TokenKind::Minus
            | TokenKind::Text { .. } => true,
            TokenKind::Plus => self.dialect.d20_numbers,
            TokenKind::Dot => self.at_bare_decimal(),
            TokenKind::Word => self
                .keyword(token)
                .is_none_or(|keyword| !keyword.ends_operand() || keyword == Keyword::Let),
            _ => false,
        }
    }

    /// Whether skipping must stop at the current token whatever the nesting: it ends the item being parsed or
    /// starts another. (In the result, a `;` is only junk, skipped like any other.)
    pub(super) fn at_hard_stop(&self) -> bool {
        let token = self.peek();
        (token.kind == TokenKind::Semicolon && self.in_item)
            || matches!(self.keyword(token), Some(Keyword::Param | Keyword::Fn))
    }

    /// After an operand, skips tokens that cannot follow one (reporting the first), so that the operator
    /// loops carry on at the next operator.
    pub(super) fn skip_stray_tokens(&mut self, operand: &Expr) {
        let token = self.peek();
        if self.at_operand_end() || self.ends_item_here(token) {
            return;
        }
        if self.at_trailing_text(token) {
            self.end_input_here();
            return;
        }
        let mut innermost = operand;
        while let ExprKind::Neg(inner) = &innermost.node {
            innermost = inner;
        }
        let dice = matches!(innermost.node, ExprKind::Dice(_) | ExprKind::Group(_));
        let expected = match (dice, self.awaiting) {
            (true, None) => "a dice modifier or an operator".to_string(),
            (false, None) => "an operator".to_string(),
            // "`,` or `)`" is a list already.
            (true, Some(awaiting)) if awaiting.contains(" or ") => {
                format!("a dice modifier, an operator, {awaiting}")
            }
            (true, Some(awaiting)) => format!("a dice modifier, an operator or {awaiting}"),
            (false, Some(awaiting)) if awaiting.contains(" or ") => {
                format!("an operator, {awaiting}")
            }
            (false, Some(awaiting)) => format!("an operator or {awaiting}"),
        };
        let mut diagnostic = self.unexpected(token, &expected);
        if let ExprKind::Call(name, _) = &innermost.node
            && name.node == "pool"
            && token.span.start == self.prev_end
        {
            // `pool(3)d6`: the brackets touching the word make a call of a function `pool`.
            diagnostic = diagnostic.with_help(
                "a pool of a computed count needs a space after `pool`: `pool (3)d6`; \
                 `pool(…)` touching is a call of a function named `pool`",
            );
        }
        self.report(diagnostic);
        self.skip_to_follow();
        self.recovered_at = Some(self.prev_end);
    }

    /// Skips tokens, bracketed runs whole, up to one that can follow an operand.
    pub(super) fn skip_to_follow(&mut self) {
        let mut nesting = 0usize;
        loop {
            let token = self.peek();
            if token.kind == TokenKind::Eof || self.at_hard_stop() {
                return;
            }
            if nesting == 0 && (self.at_operand_end() || self.ends_item_here(token)) {
                return;
            }
            match token.kind {
                TokenKind::LParen | TokenKind::LBrace => nesting += 1,
                TokenKind::RParen | TokenKind::RBrace => nesting = nesting.saturating_sub(1),
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips to the `close` bracket ending the current one (consuming it), or to a `,` at the same nesting
    /// when `stop_at_comma`.
    pub(super) fn skip_to(&mut self, close: TokenKind, stop_at_comma: bool) -> Stop {
        let mut nesting = 0usize;
        loop {
            let token = self.peek();
            if token.kind == TokenKind::Eof || self.at_hard_stop() {
                return Stop::Elsewhere;
            }
            match token.kind {
                TokenKind::LParen | TokenKind::LBrace => nesting += 1,
                TokenKind::RParen | TokenKind::RBrace if nesting > 0 => nesting -= 1,
                kind if kind == close => {
                    self.bump();
                    return Stop::Closed;
                }
                TokenKind::RParen | TokenKind::RBrace => return Stop::Elsewhere,
                // A `match` arm's arrow: what follows is its value, worth parsing.
                TokenKind::FatArrow => return Stop::Elsewhere,
                TokenKind::Comma if stop_at_comma && nesting == 0 => return Stop::Comma,
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips the rest of a broken item: past its `;`, or up to the next item or the end.
    pub(super) fn skip_item(&mut self) {
        loop {
            let token = self.peek();
            if token.kind == TokenKind::Eof || self.keyword(token).is_some_and(Keyword::starts_item)
            {
                return;
            }
            self.bump();
            if token.kind == TokenKind::Semicolon {
                return;
            }
        }
    }

    /// In Omen's notation, warns about a `//` comment after code on its line that starts like a divisor:
    /// Avrae reads `1d20 // 2` as division rounding down.
    pub(super) fn warn_slash_comments(&mut self, comments: &[Span]) {
        for &comment in comments {
            let text = self.text(comment);
            let Some(after) = text.strip_prefix("//") else {
                continue;
            };
            let line_start = self.source[..comment.start]
                .rfind('\n')
                .map_or(0, |i| i + 1);
            let code_before = !self.source[line_start..comment.start].trim().is_empty();
            let divisor_like = after
                .trim_start()
                .starts_with(|c: char| c.is_ascii_digit() || c == '(');
            if code_before && divisor_like {
                self.warnings.push(
                    Diagnostic::warning(
                        "comment-divides-in-avrae",
                        Span::new(comment.start, comment.start + 2),
                        "`//` starts a comment here, so what follows it is ignored; in Avrae `//` divides \
                         rounding down",
                    )
                    .with_help("to divide rounding down write `/`; to keep the comment, start it with `#`"),
                );
            }
        }
    }

    /// In a dialect with trailing text (`1d20+5 Roll for Initiative`), whether `token` starts it: a word
    /// after whitespace, outside brackets and items. The rest of the input is then a comment.
    pub(super) fn at_trailing_text(&self, token: Token) -> bool {
        self.dialect.trailing_text
            && token.kind == TokenKind::Word
            && token.span.start != self.prev_end
            && self.brackets == 0
            && !self.in_item
            && self.keyword(token).is_none()
    }

    /// Ends the input at the current token: what follows is a comment.
    pub(super) fn end_input_here(&mut self) {
        self.tokens.truncate(self.pos);
        self.tokens.push(Token {
            kind: TokenKind::Eof,
            span: Span::new(self.source.len(), self.source.len()),
        });
    }

    // Scripts and items.
}

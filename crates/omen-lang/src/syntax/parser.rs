//! The parser: tokens to the syntax tree, reporting every error it can recover from.
//!
//! Recursive descent over this grammar, loosest first (words and keywords ignore case):
//!
//! ```text
//! expr           = additive [compare-op additive]        a second compare-op is an error
//! additive       = multiplicative {("+" | "-") multiplicative}
//! multiplicative = unary {("*" | "/") unary}
//! unary          = "-" unary | postfix
//! postfix        = primary {"[" label "]"}
//! primary        = number [dice] | "(" expr ")" [dice] | dice | group | call
//! dice           = "d" sides {modifier}
//! sides          = number | "%" | "F" | "{" face {"," face} "}" | "(" expr ")"
//! face           = int [".." int]
//! group          = "{" expr {"," expr} "}" {modifier}
//! call           = ("min" | "max" | "abs") "(" expr {"," expr} ")"
//! modifier       = ("kh" | "kl" | "dh" | "dl" | "k" | "d") [number]
//!                | "!" ["!"] [point]
//!                | ("ro" | "rr" | "r" | "f") point
//!                | ("min" | "max") int
//!                | compare-op int                          a success point
//! point          = compare-op int | number                a bare number means `=`
//! int            = ["-"] number
//! ```
//!
//! A compare operator straight after a dice term or group is therefore always a success point (`3d6>=10`);
//! a comparison of totals needs something else on the left (`(3d6)>=10`, `3d6+1>=10`).
//!
//! Recovery: an error is recorded and parsing goes on. Where an operand was expected an
//! [`ExprKind::Error`] node stands in; stray tokens after an operand are skipped up to the next token that
//! can follow one (an operator, `,`, a closing bracket or the end), skipping bracketed runs whole; inside
//! brackets the parser skips to the next `,` or the closing bracket. At most one error is kept per position,
//! so one mistake does not cascade.

use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{
    BinOp, CompareOp, ComparePoint, DiceExpr, Expr, ExprKind, FaceItem, GroupExpr, KeepWhich,
    Modifier, Sides, Spanned,
};
use crate::syntax::lexer::{self, ModifierKeyword, Token, TokenKind};

/// Bounds on what [`parse`] accepts, so that hostile input costs little time and no stack.
#[derive(Clone, Debug)]
pub struct ParseLimits {
    /// The deepest nesting accepted. Each parenthesis, group, call, unary minus and each operator in a chain
    /// (`1+1+1` is a tree two levels deep) counts one level, so every later pass may walk the tree
    /// recursively. The parser itself recurses this deep: raising the limit far needs a larger stack.
    /// Default 128.
    pub max_depth: usize,
    /// The longest input accepted, in bytes. Default 100 000.
    pub max_len: usize,
}

impl Default for ParseLimits {
    fn default() -> Self {
        ParseLimits {
            max_depth: 128,
            max_len: 100_000,
        }
    }
}

/// Parses dice notation such as `4d6kh3 + 2` or `{2d20, 1d20+5}kh1 >= 15` into its syntax tree.
///
/// ```
/// use omen_lang::syntax::ast::ExprKind;
/// use omen_lang::syntax::{ParseLimits, parse};
///
/// let expr = parse("4d6kh3 + 2", &ParseLimits::default()).unwrap();
/// assert!(matches!(expr.node, ExprKind::Binary(..)));
///
/// let errors = parse("2d + 3d6kh?", &ParseLimits::default()).unwrap_err();
/// let kinds: Vec<_> = errors.iter().map(|e| e.kind).collect();
/// assert_eq!(kinds, ["expected-sides", "unexpected-character"]);
/// ```
///
/// # Errors
///
/// Returns every error found (each a [`Diagnostic`] of severity error, with a span into `source`), in source
/// order, when the input is not valid notation: at least one, never a partial tree. Input longer than
/// `limits.max_len` gives one `input-too-long` error without being parsed; nesting deeper than
/// `limits.max_depth` gives one `nested-too-deeply` error (and the errors found before it).
pub fn parse(source: &str, limits: &ParseLimits) -> Result<Expr, Vec<Diagnostic>> {
    if source.len() > limits.max_len {
        let start = source.floor_char_boundary(limits.max_len);
        return Err(vec![
            Diagnostic::error(
                "input-too-long",
                Span::new(start, source.len()),
                format!(
                    "input too long: {} bytes (limit {})",
                    source.len(),
                    limits.max_len
                ),
            )
            .with_help("shorten the expression or raise the length limit"),
        ]);
    }
    let mut parser = Parser {
        source,
        tokens: lexer::tokenize(source),
        pos: 0,
        prev_end: 0,
        depth: 0,
        max_depth: limits.max_depth,
        too_deep: false,
        diagnostics: Vec::new(),
    };
    let expr = parser.parse_top();
    if parser.diagnostics.is_empty() {
        Ok(expr)
    } else {
        // Errors found while closing a bracket point back at its opening; report in reading order.
        parser.diagnostics.sort_by_key(|d| d.span.start);
        Err(parser.diagnostics)
    }
}

const MODIFIER_HELP: &str = "the dice modifiers are `kh` `kl` `dh` `dl` `k` `d` (keep and drop), `!` `!!` \
    (explode), `ro` `rr` `r` (reroll), `min` `max` (clamp), `f` (failures) and compare points such as `>=8` \
    (successes); to name a roll, label it, e.g. `3d6[fire]`";

const SIDES_HELP: &str = "write the number of sides after `d`, e.g. `2d6`";

const SUCCESS_HELP: &str = "a compare point after dice needs a number; to compare the total, wrap the dice in parentheses, \
     e.g. `(3d6) >= 10`";

/// Where [`Parser::skip_to`] stopped.
enum Stop {
    /// At a `,` at the same nesting, not consumed.
    Comma,
    /// After consuming the closing bracket sought.
    Closed,
    /// At the end of the input or at a closing bracket belonging to an enclosing one.
    Elsewhere,
}

/// A compare point after a modifier keyword, or why there is none.
enum Point {
    Absent,
    Present(ComparePoint),
    /// Started but malformed; already reported.
    Invalid,
}

struct Parser<'s> {
    source: &'s str,
    tokens: Vec<Token>,
    pos: usize,
    /// The end of the last token (or part of a word) consumed: where the node being built ends.
    prev_end: usize,
    depth: usize,
    max_depth: usize,
    /// Set once nesting passes the limit. From then on the parser sees only the end of the input and reports
    /// nothing more, so it unwinds at once and leaves one diagnostic.
    too_deep: bool,
    diagnostics: Vec<Diagnostic>,
}

impl<'s> Parser<'s> {
    fn end_token(&self) -> Token {
        Token {
            kind: TokenKind::Eof,
            span: Span::new(self.source.len(), self.source.len()),
        }
    }

    fn peek(&self) -> Token {
        if self.too_deep {
            return self.end_token();
        }
        self.tokens[self.pos]
    }

    fn bump(&mut self) -> Token {
        let token = self.peek();
        if token.kind != TokenKind::Eof {
            self.pos += 1;
            self.prev_end = token.span.end;
        }
        token
    }

    fn eat(&mut self, kind: TokenKind) -> Option<Token> {
        (self.peek().kind == kind).then(|| self.bump())
    }

    fn text(&self, span: Span) -> &'s str {
        &self.source[span.start..span.end]
    }

    /// Whether `token` is a word whose first letter is `letter` (lower case), ignoring case.
    fn word_starts_with(&self, token: Token, letter: u8) -> bool {
        token.kind == TokenKind::Word
            && self.source.as_bytes()[token.span.start].to_ascii_lowercase() == letter
    }

    /// Consumes the first `len` bytes of the current word, which must be a word, leaving the rest of it as
    /// the current token.
    fn take_word_prefix(&mut self, len: usize) -> Span {
        let token = &mut self.tokens[self.pos];
        debug_assert_eq!(token.kind, TokenKind::Word);
        let end = (token.span.start + len).min(token.span.end);
        let taken = Span::new(token.span.start, end);
        if end == token.span.end {
            self.pos += 1;
        } else {
            token.span.start = end;
        }
        self.prev_end = end;
        taken
    }

    fn report(&mut self, diagnostic: Diagnostic) {
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
    fn describe(&self, token: Token) -> String {
        match token.kind {
            TokenKind::Eof => "the end of the input".to_string(),
            _ => format!("`{}`", shorten(self.text(token.span))),
        }
    }

    /// "expected …, found …" at `token`, of a kind saying what was found.
    fn unexpected(&self, token: Token, expected: &str) -> Diagnostic {
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
        if token.kind == TokenKind::Unknown && self.text(token.span).starts_with('.') {
            diagnostic.with_help("dice notation has whole numbers only; `/` divides rounding down")
        } else {
            diagnostic
        }
    }

    fn report_unclosed(&mut self, open: Token) {
        let (kind, close) = match open.kind {
            TokenKind::LBrace => ("unclosed-brace", "}"),
            _ => ("unclosed-paren", ")"),
        };
        let open_text = self.text(open.span);
        self.report(
            Diagnostic::error(
                kind,
                open.span,
                format!("unclosed `{open_text}`: expected `{close}`, found the end of the input"),
            )
            .with_help(format!("add `{close}` to close it")),
        );
    }

    /// Counts one level of nesting, or reports that there are too many. The caller undoes it with
    /// `self.depth -= 1` when it returns `true`.
    fn enter(&mut self, at: Span) -> bool {
        if self.too_deep {
            return false;
        }
        if self.depth >= self.max_depth {
            self.diagnostics.push(
                Diagnostic::error(
                    "nested-too-deeply",
                    at,
                    format!(
                        "expression nested too deeply: more than {} levels",
                        self.max_depth
                    ),
                )
                .with_help(
                    "each parenthesis, group, call, minus sign and operator in a chain is a level; \
                     simplify the expression or split it",
                ),
            );
            self.too_deep = true;
            return false;
        }
        self.depth += 1;
        true
    }

    /// After an operand, skips tokens that cannot follow one (reporting the first), so that the operator
    /// loops carry on at the next operator.
    fn skip_stray_tokens(&mut self, operand: &Expr) {
        let token = self.peek();
        if can_follow_operand(token.kind) {
            return;
        }
        let mut innermost = operand;
        while let ExprKind::Neg(inner) = &innermost.node {
            innermost = inner;
        }
        let expected = match innermost.node {
            ExprKind::Dice(_) | ExprKind::Group(_) => "a dice modifier or an operator",
            _ => "an operator",
        };
        let diagnostic = self.unexpected(token, expected);
        self.report(diagnostic);
        self.skip_to_follow();
    }

    /// Skips tokens, bracketed runs whole, up to one that can follow an operand.
    fn skip_to_follow(&mut self) {
        let mut nesting = 0usize;
        loop {
            let token = self.peek();
            match token.kind {
                TokenKind::Eof => return,
                TokenKind::LParen | TokenKind::LBrace => nesting += 1,
                TokenKind::RParen | TokenKind::RBrace if nesting > 0 => nesting -= 1,
                kind if nesting == 0 && can_follow_operand(kind) => return,
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips to the `close` bracket ending the current one (consuming it), or to a `,` at the same nesting
    /// when `stop_at_comma`.
    fn skip_to(&mut self, close: TokenKind, stop_at_comma: bool) -> Stop {
        let mut nesting = 0usize;
        loop {
            let token = self.peek();
            match token.kind {
                TokenKind::Eof => return Stop::Elsewhere,
                TokenKind::LParen | TokenKind::LBrace => nesting += 1,
                TokenKind::RParen | TokenKind::RBrace if nesting > 0 => nesting -= 1,
                kind if kind == close => {
                    self.bump();
                    return Stop::Closed;
                }
                TokenKind::RParen | TokenKind::RBrace => return Stop::Elsewhere,
                TokenKind::Comma if stop_at_comma && nesting == 0 => return Stop::Comma,
                _ => {}
            }
            self.bump();
        }
    }

    fn parse_top(&mut self) -> Expr {
        let expr = self.parse_expr();
        loop {
            // The operator loops take every operator and skip stray tokens after operands, so mostly a closing
            // bracket or a comma ends the expression early.
            let token = self.peek();
            let stray = |message, help| {
                Diagnostic::error("unexpected-token", token.span, message).with_help(help)
            };
            let diagnostic = match token.kind {
                TokenKind::Eof => break,
                TokenKind::RParen => stray(
                    "unexpected `)`: no `(` is open",
                    "remove it, or add the `(` it closes",
                ),
                TokenKind::RBrace => stray(
                    "unexpected `}`: no `{` is open",
                    "remove it, or add the `{` it closes",
                ),
                TokenKind::Comma => stray(
                    "unexpected `,` outside a group or call",
                    "to list several rolls, make a group such as `{1d20, 1d20+5}` or call a function such \
                     as `max(1d20, 1d20+5)`",
                ),
                // Only after an operand that was missing, which is reported at this same token already.
                _ => self.unexpected(token, "an operator"),
            };
            self.report(diagnostic);
            self.bump();
            // Parse what follows (and drop it) so that its errors are reported too.
            let next = self.peek();
            match next.kind {
                TokenKind::Eof => break,
                kind if binary_op(kind).is_some() && kind != TokenKind::Minus => {
                    let op = self.bump();
                    self.parse_operand(op, Self::parse_expr);
                }
                kind if compare_op(kind).is_some() => {
                    let op = self.bump();
                    self.parse_operand(op, Self::parse_expr);
                }
                _ => {
                    self.parse_expr();
                }
            }
        }
        expr
    }

    fn parse_expr(&mut self) -> Expr {
        let at = self.peek().span;
        if !self.enter(at) {
            return Expr::new(ExprKind::Error, at);
        }
        let expr = self.parse_comparison();
        self.depth -= 1;
        expr
    }

    fn parse_comparison(&mut self) -> Expr {
        let left = self.parse_additive();
        let Some(op) = compare_op(self.peek().kind) else {
            return left;
        };
        let op_token = self.bump();
        let right = self.parse_operand(op_token, Self::parse_additive);
        let span = left.span.to(right.span);
        let expr = Expr::new(ExprKind::Compare(op, Box::new(left), Box::new(right)), span);
        while compare_op(self.peek().kind).is_some() {
            let extra = self.bump();
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

    fn parse_additive(&mut self) -> Expr {
        self.parse_chain(Self::parse_multiplicative, |kind| match kind {
            TokenKind::Plus => Some(BinOp::Add),
            TokenKind::Minus => Some(BinOp::Sub),
            _ => None,
        })
    }

    fn parse_multiplicative(&mut self) -> Expr {
        self.parse_chain(Self::parse_unary_operand, |kind| match kind {
            TokenKind::Star => Some(BinOp::Mul),
            TokenKind::Slash => Some(BinOp::Div),
            _ => None,
        })
    }

    /// A left-associative chain of `operand`s joined by the operators `op` recognises.
    fn parse_chain(
        &mut self,
        operand: fn(&mut Self) -> Expr,
        op: fn(TokenKind) -> Option<BinOp>,
    ) -> Expr {
        let mut left = operand(self);
        let mut levels = 0;
        while let Some(bin_op) = op(self.peek().kind) {
            let op_token = self.bump();
            // Each operator puts the chain so far one level deeper in the (left-leaning) tree; counting it
            // keeps `1+1+…+1` from building a tree too deep for the recursive passes after the parser.
            if !self.enter(op_token.span) {
                break;
            }
            levels += 1;
            let right = self.parse_operand(op_token, operand);
            let span = left.span.to(right.span);
            left = Expr::new(
                ExprKind::Binary(bin_op, Box::new(left), Box::new(right)),
                span,
            );
        }
        self.depth -= levels;
        left
    }

    /// A unary operand followed by whatever stray tokens need skipping before the next operator.
    fn parse_unary_operand(&mut self) -> Expr {
        let expr = self.parse_unary();
        self.skip_stray_tokens(&expr);
        expr
    }

    /// Parses an operand after the operator `op`, or reports that none is there (consuming nothing).
    fn parse_operand(&mut self, op: Token, operand: fn(&mut Self) -> Expr) -> Expr {
        let token = self.peek();
        if can_start_operand(token.kind) {
            return operand(self);
        }
        let expected = format!("an expression after `{}`", self.text(op.span));
        let diagnostic = self.unexpected(token, &expected);
        self.report(diagnostic);
        Expr::new(
            ExprKind::Error,
            Span::new(token.span.start, token.span.start),
        )
    }

    fn parse_unary(&mut self) -> Expr {
        if self.peek().kind != TokenKind::Minus {
            return self.parse_postfix();
        }
        let minus = self.bump();
        if !self.enter(minus.span) {
            return Expr::new(ExprKind::Error, minus.span);
        }
        let operand = self.parse_operand(minus, Self::parse_unary);
        self.depth -= 1;
        let span = minus.span.to(operand.span);
        Expr::new(ExprKind::Neg(Box::new(operand)), span)
    }

    fn parse_postfix(&mut self) -> Expr {
        let mut expr = self.parse_primary();
        while let TokenKind::Label { closed } = self.peek().kind {
            let token = self.bump();
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
                    Diagnostic::error("empty-label", token.span, "empty label: no text between `[` and `]`")
                        .with_help("write the label's text between the brackets, e.g. `3d6[fire]`, or remove them"),
                );
            }
            let span = expr.span.to(token.span);
            expr = Expr::new(
                ExprKind::Label(Box::new(expr), Spanned::new(text.to_string(), text_span)),
                span,
            );
        }
        expr
    }

    fn parse_primary(&mut self) -> Expr {
        let token = self.peek();
        match token.kind {
            TokenKind::Number => {
                let number = self.parse_number();
                self.parse_dice_after(number)
            }
            TokenKind::LParen => {
                let paren = self.parse_paren();
                self.parse_dice_after(paren)
            }
            TokenKind::LBrace => self.parse_group(),
            TokenKind::Word if self.word_starts_with(token, b'd') => self.parse_dice(None),
            TokenKind::Word => self.parse_call(),
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

    fn parse_number(&mut self) -> Expr {
        let token = self.bump();
        let node = match self.int_value(token.span, false, token.span) {
            Some(value) => ExprKind::Number(value),
            None => ExprKind::Error,
        };
        Expr::new(node, token.span)
    }

    /// The value of the digits under `digits`, negated if `negative`; reports (at `whole`) when it does not
    /// fit in an `i64`.
    fn int_value(&mut self, digits: Span, negative: bool, whole: Span) -> Option<i64> {
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

    /// An integer with an optional `-`, for modifier values and faces. `expected` names it for the error when
    /// there is none.
    fn parse_int(&mut self, expected: &str, help: Option<&str>) -> Option<i64> {
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

    fn parse_paren(&mut self) -> Expr {
        let open = self.bump();
        let inner = self.parse_expr();
        let token = self.peek();
        match token.kind {
            TokenKind::RParen => {
                self.bump();
            }
            TokenKind::Eof => self.report_unclosed(open),
            _ => {
                let mut diagnostic = self.unexpected(token, "`)`");
                if token.kind == TokenKind::Comma {
                    diagnostic = diagnostic.with_help(
                        "to list several rolls, make a group such as `{1d20, 1d20+5}` or call a function \
                         such as `max(1d20, 1d20+5)`",
                    );
                }
                self.report(diagnostic);
                self.skip_to(TokenKind::RParen, false);
            }
        }
        Expr::new(
            ExprKind::Paren(Box::new(inner)),
            Span::new(open.span.start, self.prev_end),
        )
    }

    /// Parses `item {"," item}` and the `close` bracket, `open` having been consumed. `open close` gives no
    /// items.
    fn parse_list<T>(
        &mut self,
        open: Token,
        close: TokenKind,
        mut item: impl FnMut(&mut Self) -> T,
    ) -> Vec<T> {
        let mut items = Vec::new();
        if self.eat(close).is_some() {
            return items;
        }
        loop {
            items.push(item(self));
            let token = self.peek();
            match token.kind {
                TokenKind::Comma => {
                    self.bump();
                }
                kind if kind == close => {
                    self.bump();
                    return items;
                }
                TokenKind::Eof => {
                    self.report_unclosed(open);
                    return items;
                }
                _ => {
                    let close_text = if close == TokenKind::RBrace { "}" } else { ")" };
                    let diagnostic = self.unexpected(token, &format!("`,` or `{close_text}`"));
                    self.report(diagnostic);
                    match self.skip_to(close, true) {
                        Stop::Comma => {
                            self.bump();
                        }
                        Stop::Closed | Stop::Elsewhere => return items,
                    }
                }
            }
        }
    }

    fn parse_group(&mut self) -> Expr {
        let open = self.bump();
        let members = self.parse_list(open, TokenKind::RBrace, Self::parse_expr);
        if members.is_empty() {
            self.report(
                Diagnostic::error(
                    "empty-group",
                    Span::new(open.span.start, self.prev_end),
                    "empty group: no expressions between `{` and `}`",
                )
                .with_help("write the rolls to group between the braces, e.g. `{2d20, 1d20+5}kh1`"),
            );
        }
        let modifiers = self.parse_modifiers();
        Expr::new(
            ExprKind::Group(Box::new(GroupExpr { members, modifiers })),
            Span::new(open.span.start, self.prev_end),
        )
    }

    fn parse_call(&mut self) -> Expr {
        let name_token = self.bump();
        let written = self.text(name_token.span);
        let name = written.to_ascii_lowercase();
        let known = matches!(name.as_str(), "min" | "max" | "abs");
        let next = self.peek();
        if next.kind != TokenKind::LParen {
            let diagnostic = if known {
                self.unexpected(next, &format!("`(` after `{written}`"))
                    .with_help(format!("call it like `{name}(1d6, 3)`"))
            } else {
                self.unexpected(name_token, "an expression").with_help(
                    "words are dice (`d6`), modifiers right after dice (`4d6kh3`) and the functions \
                     `min`, `max` and `abs`; to name a roll, label it, e.g. `2d6[fire]`",
                )
            };
            self.report(diagnostic);
            // Skip what follows the word too: `kh3` is one mistake, not a word and then a stray number.
            self.skip_to_follow();
            return Expr::new(ExprKind::Error, name_token.span);
        }
        if !known {
            self.report(
                Diagnostic::error(
                    "unknown-function",
                    name_token.span,
                    format!("unknown function `{}`", shorten(written)),
                )
                .with_help("the functions are `min`, `max` and `abs`"),
            );
        }
        let open = self.bump();
        let arguments = self.parse_list(open, TokenKind::RParen, Self::parse_expr);
        let span = Span::new(name_token.span.start, self.prev_end);
        if !known {
            return Expr::new(ExprKind::Error, span);
        }
        let arity_error = match (name.as_str(), arguments.len()) {
            ("abs", 1) => None,
            ("abs", n) => Some(format!("`abs` takes one argument, found {n}")),
            (_, 0) => Some(format!("`{name}` takes at least one argument, found none")),
            _ => None,
        };
        if let Some(message) = arity_error {
            self.report(
                Diagnostic::error("wrong-argument-count", span, message)
                    .with_help("e.g. `abs(1d6-4)`, `max(1d20, 1d20)`, `min(2d6, 10)`"),
            );
        }
        Expr::new(
            ExprKind::Call(Spanned::new(name, name_token.span), arguments),
            span,
        )
    }

    /// `count` followed by a dice term if a `d` follows, else `count` itself.
    fn parse_dice_after(&mut self, count: Expr) -> Expr {
        if self.word_starts_with(self.peek(), b'd') {
            self.parse_dice(Some(count))
        } else {
            count
        }
    }

    /// A dice term from its `d`, which starts the current word.
    fn parse_dice(&mut self, count: Option<Expr>) -> Expr {
        let d = self.take_word_prefix(1);
        let start = count.as_ref().map_or(d.start, |count| count.span.start);
        let sides = self.parse_sides(d);
        let modifiers = self.parse_modifiers();
        Expr::new(
            ExprKind::Dice(Box::new(DiceExpr {
                count,
                sides,
                modifiers,
            })),
            Span::new(start, self.prev_end),
        )
    }

    fn parse_sides(&mut self, d: Span) -> Spanned<Sides> {
        let token = self.peek();
        match token.kind {
            TokenKind::Number => Spanned::new(Sides::Number(self.parse_number()), token.span),
            TokenKind::Percent => {
                self.bump();
                Spanned::new(Sides::Percent, token.span)
            }
            TokenKind::Word if self.word_starts_with(token, b'f') => {
                Spanned::new(Sides::Fudge, self.take_word_prefix(1))
            }
            TokenKind::LBrace => self.parse_faces(),
            TokenKind::LParen => {
                let paren = self.parse_paren();
                let span = paren.span;
                Spanned::new(Sides::Number(paren), span)
            }
            _ => {
                let mut diagnostic = self.unexpected(token, "the number of sides after `d`");
                diagnostic.kind = "expected-sides";
                self.report(diagnostic.with_help(SIDES_HELP));
                let at = Span::new(d.end, d.end);
                Spanned::new(Sides::Number(Expr::new(ExprKind::Error, at)), at)
            }
        }
    }

    fn parse_faces(&mut self) -> Spanned<Sides> {
        let open = self.bump();
        let items = self.parse_list(open, TokenKind::RBrace, Self::parse_face);
        let span = Span::new(open.span.start, self.prev_end);
        if items.is_empty() {
            self.report(
                Diagnostic::error(
                    "empty-faces",
                    span,
                    "a die needs at least one face: `{}` has none",
                )
                .with_help("list the faces, e.g. `d{1,1,2,3}` or `d{-1..1}`"),
            );
        }
        Spanned::new(Sides::Custom(items.into_iter().flatten().collect()), span)
    }

    fn parse_face(&mut self) -> Option<Spanned<FaceItem>> {
        let start = self.peek().span.start;
        let low = self.parse_int(
            "a face (a number such as `3` or a range such as `1..6`)",
            None,
        )?;
        if self.eat(TokenKind::DotDot).is_none() {
            return Some(Spanned::new(
                FaceItem::Face(low),
                Span::new(start, self.prev_end),
            ));
        }
        let high = self.parse_int("a number after `..`", None)?;
        let span = Span::new(start, self.prev_end);
        if low > high {
            self.report(
                Diagnostic::error(
                    "bad-face-range",
                    span,
                    format!(
                        "empty face range `{low}..{high}`: the first face is greater than the last"
                    ),
                )
                .with_help(format!("write the lower face first: `{high}..{low}`")),
            );
        }
        Some(Spanned::new(FaceItem::Range(low, high), span))
    }

    /// Modifiers after a dice term or group, in the order written. Each step consumes at least one token (or
    /// part of a word), so the loop ends.
    fn parse_modifiers(&mut self) -> Vec<Spanned<Modifier>> {
        let mut modifiers = Vec::new();
        loop {
            let token = self.peek();
            let start = token.span.start;
            let modifier = match token.kind {
                TokenKind::Bang => self.parse_explode(),
                TokenKind::Word => self.parse_word_modifier(),
                kind => match compare_op(kind) {
                    Some(op) => {
                        self.bump();
                        let expected = format!("a number after `{}`", self.text(token.span));
                        self.parse_int(&expected, Some(SUCCESS_HELP))
                            .map(|value| Modifier::Success(ComparePoint { op, value }))
                    }
                    None => return modifiers,
                },
            };
            if let Some(modifier) = modifier {
                modifiers.push(Spanned::new(modifier, Span::new(start, self.prev_end)));
            }
        }
    }

    fn parse_explode(&mut self) -> Option<Modifier> {
        self.bump();
        let compound = self.eat(TokenKind::Bang).is_some();
        let point = match self.parse_point() {
            Point::Absent => None,
            Point::Present(point) => Some(point),
            Point::Invalid => return None,
        };
        Some(Modifier::Explode { compound, point })
    }

    /// A compare point (`>=5`, or a bare `5` meaning `=5`) if one starts here.
    fn parse_point(&mut self) -> Point {
        let token = self.peek();
        if let Some(op) = compare_op(token.kind) {
            self.bump();
            let expected = format!("a number after `{}`", self.text(token.span));
            return match self.parse_int(&expected, None) {
                Some(value) => Point::Present(ComparePoint { op, value }),
                None => Point::Invalid,
            };
        }
        if token.kind == TokenKind::Number {
            self.bump();
            return match self.int_value(token.span, false, token.span) {
                Some(value) => Point::Present(ComparePoint {
                    op: CompareOp::Eq,
                    value,
                }),
                None => Point::Invalid,
            };
        }
        Point::Absent
    }

    /// A compare point that must follow `keyword` (`ro`, `rr`, `r`, `f`).
    fn parse_required_point(&mut self, keyword: Span) -> Option<ComparePoint> {
        match self.parse_point() {
            Point::Present(point) => Some(point),
            Point::Invalid => None,
            Point::Absent => {
                let written = self.text(keyword);
                let expected = format!("a number or a compare point after `{written}`");
                let mut diagnostic = self.unexpected(self.peek(), &expected);
                diagnostic.kind = "expected-number";
                self.report(
                    diagnostic
                        .with_help(format!("e.g. `{written}1` (equal to 1) or `{written}<=2`")),
                );
                None
            }
        }
    }

    /// A modifier starting with a keyword at the start of the current word, e.g. the `kh3` of `kh3ro1`.
    fn parse_word_modifier(&mut self) -> Option<Modifier> {
        let token = self.peek();
        let word = self.text(token.span);
        // Check the whole run first, so that a misspelling is reported as the word written (`fire`), not as
        // a keyword followed by nonsense (`f` then `ire`).
        let keyword = lexer::modifier_keyword(word).filter(|_| lexer::is_modifier_run(word));
        let Some((keyword, len)) = keyword else {
            self.bump();
            self.report(
                Diagnostic::error(
                    "unknown-modifier",
                    token.span,
                    format!("unknown dice modifier `{}`", shorten(word)),
                )
                .with_help(MODIFIER_HELP),
            );
            return None;
        };
        let keyword_span = self.take_word_prefix(len);
        let written = self.text(keyword_span);
        let value_expected = format!("a number after `{written}`");
        match keyword {
            ModifierKeyword::KeepHighest => {
                self.parse_keep_count(KeepWhich::KeepHighest, keyword_span)
            }
            ModifierKeyword::KeepLowest => {
                self.parse_keep_count(KeepWhich::KeepLowest, keyword_span)
            }
            ModifierKeyword::DropHighest => {
                self.parse_keep_count(KeepWhich::DropHighest, keyword_span)
            }
            ModifierKeyword::DropLowest => {
                self.parse_keep_count(KeepWhich::DropLowest, keyword_span)
            }
            ModifierKeyword::RerollOnce => self
                .parse_required_point(keyword_span)
                .map(Modifier::RerollOnce),
            ModifierKeyword::RerollRecursive => self
                .parse_required_point(keyword_span)
                .map(Modifier::RerollRecursive),
            ModifierKeyword::Failure => self
                .parse_required_point(keyword_span)
                .map(Modifier::Failure),
            ModifierKeyword::ClampMin => self
                .parse_int(&value_expected, None)
                .map(Modifier::ClampMin),
            ModifierKeyword::ClampMax => self
                .parse_int(&value_expected, None)
                .map(Modifier::ClampMax),
        }
    }

    /// The count after a keep/drop keyword: a number, or 1 when left out.
    fn parse_keep_count(&mut self, which: KeepWhich, keyword: Span) -> Option<Modifier> {
        let token = self.peek();
        if token.kind == TokenKind::Number {
            self.bump();
            let count = self.int_value(token.span, false, token.span)?;
            return Some(Modifier::Keep { which, count });
        }
        if token.kind == TokenKind::Word && token.span.start == keyword.end {
            // `4d6khk` reads as a slip more likely than as two keeps; letters glued on need the count written.
            let written = self.text(keyword);
            let mut diagnostic = self.unexpected(token, &format!("a number after `{written}`"));
            diagnostic.kind = "expected-number";
            self.report(diagnostic.with_help(format!(
                "write how many dice `{written}` keeps or drops, e.g. `{written}1`; the count may be left \
                 out only when no letter follows"
            )));
        }
        Some(Modifier::Keep { which, count: 1 })
    }
}

fn compare_op(kind: TokenKind) -> Option<CompareOp> {
    match kind {
        TokenKind::Ge => Some(CompareOp::Ge),
        TokenKind::Gt => Some(CompareOp::Gt),
        TokenKind::Le => Some(CompareOp::Le),
        TokenKind::Lt => Some(CompareOp::Lt),
        TokenKind::Eq => Some(CompareOp::Eq),
        _ => None,
    }
}

fn binary_op(kind: TokenKind) -> Option<BinOp> {
    match kind {
        TokenKind::Plus => Some(BinOp::Add),
        TokenKind::Minus => Some(BinOp::Sub),
        TokenKind::Star => Some(BinOp::Mul),
        TokenKind::Slash => Some(BinOp::Div),
        _ => None,
    }
}

fn can_start_operand(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Number
            | TokenKind::Word
            | TokenKind::LParen
            | TokenKind::LBrace
            | TokenKind::Minus
    )
}

fn can_follow_operand(kind: TokenKind) -> bool {
    binary_op(kind).is_some()
        || compare_op(kind).is_some()
        || matches!(
            kind,
            TokenKind::RParen | TokenKind::RBrace | TokenKind::Comma | TokenKind::Eof
        )
}

/// `text`, cut to a length that reads well in a message.
fn shorten(text: &str) -> String {
    const MAX_CHARS: usize = 24;
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

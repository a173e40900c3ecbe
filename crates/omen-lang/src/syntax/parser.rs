//! The parser: tokens to the syntax tree, reporting every error it can recover from.
//!
//! Recursive descent over this grammar, loosest first (words and keywords ignore case):
//!
//! ```text
//! script         = {item} expr
//! item           = "param" name ["=" expr] ";"
//!                | "let" name "=" expr ";"
//!                | "fn" name "(" [name {"," name} [","]] ")" "=" expr ";"
//! expr           = or
//! or             = and {"or" and}
//! and            = not {"and" not}
//! not            = "not" not | comparison
//! comparison     = additive [compare-op additive]        a second compare-op is an error
//! additive       = multiplicative {("+" | "-") multiplicative}
//! multiplicative = unary {("*" | "/") unary}
//! unary          = "-" unary | postfix
//! postfix        = primary {"[" label "]" | "." number}
//! primary        = number [dice] | "(" expr ")" [dice] | tuple | dice | group
//!                | name | name "(" [expr {"," expr}] ")" | "true" | "false" | string
//!                | "if" expr "then" expr "else" expr      the prefix forms reach as far right as they can
//!                | "match" expr "{" arm {"," arm} [","] "}"
//!                | "let" name "=" expr "in" expr
//! tuple          = "(" expr "," [expr {"," expr} [","]] ")"
//! arm            = pattern "=>" expr
//! pattern        = alternative {"|" alternative}
//! alternative    = "_" | "true" | "false" | string | int | int ".." [int] | int "..=" int | ".." int
//!                | "..=" int | "(" pattern ")" | "(" pattern "," [pattern {"," pattern} [","]] ")"
//! dice           = "d" sides {modifier}
//! sides          = number | "%" | "F" | "{" face {"," face} "}" | "(" expr ")"
//! face           = int [(".." | "..=") int]
//! group          = "{" expr {"," expr} "}" {modifier}
//! modifier       = ("kh" | "kl" | "dh" | "dl" | "k" | "d") [number]
//!                | "!" ["!"] [point]
//!                | ("ro" | "rr" | "r" | "f") point
//!                | ("min" | "max") int
//!                | point-op (int | name)                   a success point
//! point          = point-op (int | name) | number         a bare number means `=`
//! point-op       = ">=" | ">" | "<=" | "<" | "=" | "=="
//! compare-op     = point-op | "!=" | "<>"
//! int            = ["-"] number
//! ```
//!
//! A compare operator straight after a dice term or group is therefore always a success point (`3d6>=10`);
//! a comparison of totals needs something else on the left (`(3d6)>=10`, `3d6+1>=10`). `!=` is never a point:
//! after dice, `!=4` explodes on 4, and `<>` right after dice is an error.
//!
//! Names and dice share their letters. In operand position a word starts dice when it is `d` alone (`d6`,
//! `d 6`, `d%`, `d{…}`, `d(…)`, and a bare `d` is dice missing its sides) or `dF` followed only by modifier
//! keywords (`dF`, `dFkh`); any other word is a keyword or a name. A name is glued back together from the word
//! and the digits and words touching it (`t2`, `dice_lost`), lower-cased. After a count (`4d6`, `(n)d6`) a
//! word starting with `d` is dice, as in plain notation; right after dice, words are modifiers.
//!
//! Recovery: an error is recorded and parsing goes on. Where an operand was expected an
//! [`ExprKind::Error`] node stands in; stray tokens after an operand are skipped up to the next token that
//! can follow one (an operator, `,`, `;`, a closing bracket, a keyword such as `then`, or the end), skipping
//! bracketed runs whole; inside brackets the parser skips to the next `,` or the closing bracket. An item with
//! an error is skipped to its `;`; a missing `;` before a new line or a new item is reported once and parsing
//! goes on with that line. At most one error is kept per position, so one mistake does not cascade.

use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{
    BinOp, CompareOp, ComparePoint, DiceExpr, Expr, ExprKind, FaceItem, GroupExpr, Item, KeepWhich,
    MatchArm, Modifier, Pattern, PointValue, Script, Sides, Spanned,
};
use crate::syntax::dialect::{Dialect, GroupOfOne, SlashSlash, Word};
use crate::syntax::lexer::{self, Comments, Token, TokenKind};

mod d20;
mod dice_maiden;
mod dice_maiden_aliases;
mod notation;
mod pieces;
mod pool;
mod rescore;
mod roll20;
mod runs;
mod term_state;

use pieces::{Point, TermState, add_dice, compare_op, highest_face, shorten};
use rescore::{Rescore, rescored_faces};

/// Bounds on what [`parse`] accepts, so that hostile input costs little time and no stack.
#[derive(Clone, Debug)]
pub struct ParseLimits {
    /// The deepest nesting accepted. Each parenthesis, tuple, group, call, unary minus, `not`, `if`, `match`,
    /// `let … in`, label and field access, each tuple pattern, and each operator in a chain (`1+1+1` is a tree
    /// two levels deep) counts one level, so every later pass may walk the tree recursively. An item's value
    /// starts again at the top. The parser itself recurses this deep: raising the limit far needs a larger
    /// stack. Default 128.
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

/// Parses a script, or plain dice notation such as `4d6kh3 + 2`, into its syntax tree.
///
/// A script is `let`, `param` and `fn` items, each ending with `;`, then one expression: the result. Plain
/// notation is a script with no items.
///
/// ```
/// use omen_lang::syntax::ast::{ExprKind, Item};
/// use omen_lang::syntax::{ParseLimits, parse};
///
/// let script = parse("4d6kh3 + 2", &ParseLimits::default()).unwrap();
/// assert!(script.items.is_empty());
/// assert!(matches!(script.body.node, ExprKind::Binary(..)));
///
/// let script = parse("param bonus = 2;\nlet roll = 1d20;\nroll + bonus >= 15", &ParseLimits::default()).unwrap();
/// assert!(matches!(script.items[0].node, Item::Param { .. }));
/// assert!(matches!(script.body.node, ExprKind::Compare(..)));
///
/// let errors = parse("2d + 3d6kh? + (4", &ParseLimits::default()).unwrap_err();
/// let kinds: Vec<_> = errors.iter().map(|e| e.kind).collect();
/// assert_eq!(kinds, ["expected-sides", "unexpected-character", "unclosed-paren"]);
/// ```
///
/// # Errors
///
/// Returns every error found (each a [`Diagnostic`] of severity error, with a span into `source`), in source
/// order, when the input is not a valid script: at least one, never a partial tree. Input longer than
/// `limits.max_len` gives one `input-too-long` error without being parsed; nesting deeper than
/// `limits.max_depth` gives one `nested-too-deeply` error (and the errors found before it). Names are not
/// resolved here: unknown names and functions, and wrong argument counts, are the checker's to report.
pub fn parse(source: &str, limits: &ParseLimits) -> Result<Script, Vec<Diagnostic>> {
    parse_with(source, limits, &crate::syntax::dialect::OMEN).map(|parsed| parsed.script)
}

/// A script parsed in a dialect, with the warnings the parser found.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub script: Script,
    /// Where the input could be meant another way: each names the other reading and the unambiguous
    /// spelling.
    pub warnings: Vec<Diagnostic>,
}

/// [`parse`] in `dialect`: the same tree type, with the dialect's meanings.
///
/// ```
/// use omen_lang::syntax::{ParseLimits, dialect, parse_with, render};
///
/// // Roll20's `>3` includes 3; the tree is Omen's `>=3`.
/// let parsed = parse_with("3d6>3", &ParseLimits::default(), &dialect::ROLL20).unwrap();
/// assert_eq!(render::script(&parsed.script), "3d6>=3");
/// // In Omen's own notation whitespace ends a dice term: this compares two totals.
/// let parsed = parse_with("3d6 > 2d10", &ParseLimits::default(), &dialect::OMEN).unwrap();
/// assert_eq!(render::script(&parsed.script), "(3d6) > (2d10)");
/// ```
///
/// # Errors
/// As for [`parse`].
pub fn parse_with(
    source: &str,
    limits: &ParseLimits,
    dialect: &'static Dialect,
) -> Result<Parsed, Vec<Diagnostic>> {
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
    let (tokens, comments) = lexer::tokenize_with(
        source,
        Comments {
            slash_slash: dialect.slash_slash == SlashSlash::Comment,
            bang_space: dialect.bang_comment,
            block: dialect.block_comments,
            inline_rolls: dialect.inline_rolls,
        },
    );
    let mut parser = Parser {
        source,
        tokens,
        dialect,
        warnings: Vec::new(),
        lowest_face: None,
        highest_face: None,
        margin: None,
        rescore: None,
        advantage: None,
        rounding: 0,
        after_name_point: false,
        spaced_modifier: false,
        pos: 0,
        prev_end: 0,
        depth: 0,
        max_depth: limits.max_depth,
        too_deep: false,
        in_item: false,
        brackets: 0,
        awaiting: None,
        recovered_at: None,
        diagnostics: Vec::new(),
        runs: runs::RunMemo::default(),
        term: TermState::default(),
    };
    let script = parser.parse_script();
    if parser.diagnostics.is_empty() {
        if dialect.warn_other_readings {
            parser.warn_slash_comments(&comments);
        }
        parser.warnings.sort_by_key(|d| d.span.start);
        Ok(Parsed {
            script,
            warnings: parser.warnings,
        })
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

const SEMICOLON_HELP: &str = "end each `let`, `param` and `fn` with `;`";

const NAME_HELP: &str =
    "a name starts with a letter or `_` and goes on with letters, digits and `_`, e.g. `bonus`";

const PATTERN_KINDS: &str = "a pattern is a number, a range such as `..=10`, `1..5` or `41..`, `true`, `false`, a \
    label such as `\"bad\"`, a tuple of patterns or `_`";

const MATCH_HELP: &str =
    "write the arms in braces, e.g. `match r { ..=10 => \"bad\", _ => \"good\" }`";

/// The words that cannot be names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keyword {
    Let,
    Param,
    Fn,
    If,
    Then,
    Else,
    Match,
    And,
    Or,
    Not,
    True,
    False,
    In,
}

const KEYWORDS: [(&str, Keyword); 13] = [
    ("let", Keyword::Let),
    ("param", Keyword::Param),
    ("fn", Keyword::Fn),
    ("if", Keyword::If),
    ("then", Keyword::Then),
    ("else", Keyword::Else),
    ("match", Keyword::Match),
    ("and", Keyword::And),
    ("or", Keyword::Or),
    ("not", Keyword::Not),
    ("true", Keyword::True),
    ("false", Keyword::False),
    ("in", Keyword::In),
];

impl Keyword {
    /// Whether the keyword may come straight after a whole operand, ending it.
    fn ends_operand(self) -> bool {
        matches!(
            self,
            Keyword::Then
                | Keyword::Else
                | Keyword::In
                | Keyword::And
                | Keyword::Or
                | Keyword::Let
                | Keyword::Param
                | Keyword::Fn
        )
    }

    fn starts_item(self) -> bool {
        matches!(self, Keyword::Let | Keyword::Param | Keyword::Fn)
    }
}

/// Where [`Parser::skip_to`] stopped.
enum Stop {
    /// At a `,` at the same nesting, not consumed.
    Comma,
    /// After consuming the closing bracket sought.
    Closed,
    /// At the end of the input, at a `;` or an item keyword, or at a closing bracket belonging to an enclosing
    /// one.
    Elsewhere,
}

/// A `let` at the top of a script: an item, or the result when `in` follows its value.
enum TopLet {
    Item(Option<Spanned<Item>>),
    Result(Expr),
}

struct Parser<'s> {
    source: &'s str,
    tokens: Vec<Token>,
    dialect: &'static Dialect,
    /// Where another dialect reads the input differently (only in dialects that warn).
    warnings: Vec<Diagnostic>,
    /// The lowest face of the dice term whose modifiers are being read, when known: a bare `r` or `ro`
    /// rerolls it.
    lowest_face: Option<i64>,
    /// The highest face of that dice term, when known: Foundry's bare `cs` counts it.
    highest_face: Option<i64>,
    /// Foundry's `ms` read after the dice term being parsed: the term becomes its margin of success.
    margin: Option<(ComparePoint, Span)>,
    /// A per-die score read after the dice term being parsed (Avrae's `k3`/`p3`, Foundry's `sf`, `even`,
    /// `odd`): the term's die is relabelled with each face's score.
    rescore: Option<(Rescore, Span)>,
    /// Dice Maiden's `adv`/`dis` read after the dice term being parsed: extra dice (advantage above 0,
    /// disadvantage below) discarded before anything else.
    advantage: Option<(i64, Span)>,
    /// How many `floor(…)`, `ceil(…)` and `round(…)` calls are open: a division inside one says how its
    /// fraction is rounded.
    rounding: usize,
    /// Whether the last token consumed ended a compare point written with a name.
    after_name_point: bool,
    /// Whether the modifier being read stood apart from its dice (reported): its count may too.
    spaced_modifier: bool,
    pos: usize,
    /// The end of the last token (or part of a word) consumed: where the node being built ends.
    prev_end: usize,
    depth: usize,
    max_depth: usize,
    /// Set once nesting passes the limit. From then on the parser sees only the end of the input and reports
    /// nothing more, so it unwinds at once and leaves one diagnostic.
    too_deep: bool,
    /// Whether an item's value is being parsed, which a `;` must end.
    in_item: bool,
    /// Brackets open around the current token. Outside brackets in an item, a stray token on a new line is a
    /// missing `;` rather than junk inside the expression.
    brackets: usize,
    /// What ends the expression being parsed outside brackets, e.g. "`then`", named in the error for a stray
    /// token after an operand.
    awaiting: Option<&'static str>,
    /// Where the last skip over stray tokens ended: a missing keyword or `;` there is part of the same mistake.
    recovered_at: Option<usize>,
    diagnostics: Vec<Diagnostic>,
    /// Which parts of the current word split into modifier words (asked once per modifier taken).
    runs: runs::RunMemo,
    /// What the modifiers read so far leave for the dice term or group being parsed as a whole.
    term: TermState,
}

// The parser recurses once per level of nesting, through a dozen functions per level, so their frames bound
// how deep `max_depth` may go on a given stack. Those functions are kept small: the rare parts (`…_rest`, error
// reports) live apart, and the big ones are `#[inline(never)]` so that their locals do not swell every frame on
// the path. At the default depth the worst case (nested `d(…)` sides) needs about 330 KiB of stack in a release
// build and 800 KiB unoptimised; the `if`, `match`, tuple and pattern paths need less.
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

    /// Whether the text of `span`, from its start after skipping `skip` bytes, splits into modifier
    /// words (remembered per word, so that a long run of modifiers is read in linear time).
    fn is_modifier_run(&self, span: Span, skip: usize) -> bool {
        let span = Span::new((span.start + skip).min(span.end), span.end);
        self.runs.is_modifier_run(self.dialect, self.source, span)
    }

    /// Whether `token` is a word whose first letter is `letter` (lower case), ignoring case.
    fn word_starts_with(&self, token: Token, letter: u8) -> bool {
        token.kind == TokenKind::Word
            && self.source.as_bytes()[token.span.start].to_ascii_lowercase() == letter
    }

    /// Whether digits touch the end of `token`, making a word part of a longer name (`then2`).
    fn digits_follow(&self, token: Token) -> bool {
        self.source
            .as_bytes()
            .get(token.span.end)
            .is_some_and(u8::is_ascii_digit)
    }

    /// The keyword `token` is, if it is one.
    fn keyword(&self, token: Token) -> Option<Keyword> {
        if token.kind != TokenKind::Word || self.digits_follow(token) {
            return None;
        }
        let text = self.text(token.span);
        KEYWORDS
            .iter()
            .find(|(word, _)| word.eq_ignore_ascii_case(text))
            .map(|&(_, keyword)| keyword)
    }

    fn at_keyword(&self, keyword: Keyword) -> bool {
        self.keyword(self.peek()) == Some(keyword)
    }

    /// Whether `token`, in operand position, starts a dice term rather than a name: `d` alone, or `dF`
    /// followed only by modifier keywords.
    fn is_dice_start(&self, token: Token) -> bool {
        if token.kind != TokenKind::Word {
            return false;
        }
        let word = self.text(token.span);
        let letter = |letter: &str| {
            word.get(..2)
                .is_some_and(|start| start.eq_ignore_ascii_case(letter))
                && self.is_modifier_run(token.span, 2)
        };
        word.eq_ignore_ascii_case("d") || letter("df") || (self.dialect.coin && letter("dc"))
    }

    /// The current token as written, shortened, if it is a word that is no keyword (a name, mostly).
    fn name_at_current(&self) -> Option<String> {
        let token = self.peek();
        (token.kind == TokenKind::Word && self.keyword(token).is_none())
            .then(|| shorten(self.text(token.span)))
    }

    /// Whether a line break lies between the last token consumed and `token`.
    fn line_break_before(&self, token: Token) -> bool {
        self.source
            .get(self.prev_end..token.span.start)
            .is_some_and(|gap| gap.contains('\n'))
    }

    /// Where to point when something expected is missing before `token`: just after the last token when
    /// `token` is on a later line (or is the end), else at `token`.
    fn missing_at(&self, token: Token) -> Span {
        if token.kind == TokenKind::Eof || self.line_break_before(token) {
            Span::new(self.prev_end, self.prev_end)
        } else {
            token.span
        }
    }

    /// Whether an error was already reported at or after the end of the last token consumed, or stray tokens
    /// were skipped up to here, or a string or label left open ran up to here: then a missing `;` or keyword
    /// here is the same mistake seen again.
    fn reported_here(&self) -> bool {
        self.recovered_at == Some(self.prev_end)
            || self.diagnostics.last().is_some_and(|last| {
                last.span.start >= self.prev_end
                    || (matches!(last.kind, "unclosed-string" | "unclosed-label")
                        && last.span.end >= self.prev_end)
            })
    }

    /// Runs `parse` with `awaiting` naming what ends it (`None` inside brackets).
    fn awaiting<T>(
        &mut self,
        awaiting: Option<&'static str>,
        parse: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let outer = std::mem::replace(&mut self.awaiting, awaiting);
        let result = parse(self);
        self.awaiting = outer;
        result
    }

    /// Whether `token` ends the value of an item whose `;` is missing: it is outside brackets in an item and
    /// on a new line, or it starts a new item.
    fn ends_item_here(&self, token: Token) -> bool {
        self.in_item
            && self.brackets == 0
            && (self.line_break_before(token)
                || self.keyword(token).is_some_and(Keyword::starts_item))
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

    /// Consumes a name: the current word and the words and digits touching it, e.g. `t2`, `dice_lost`.
    fn take_name(&mut self) -> Spanned<String> {
        let first = self.bump();
        debug_assert_eq!(first.kind, TokenKind::Word);
        loop {
            let next = self.peek();
            if !matches!(next.kind, TokenKind::Word | TokenKind::Number)
                || next.span.start != self.prev_end
            {
                break;
            }
            self.bump();
        }
        let span = Span::new(first.span.start, self.prev_end);
        Spanned::new(self.text(span).to_ascii_lowercase(), span)
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
    fn report_missing(&mut self, kind: &'static str, expected: &str, help: &str) {
        if self.reported_here() {
            return;
        }
        let token = self.peek();
        let message = format!("expected {expected}, found {}", self.describe(token));
        self.report(Diagnostic::error(kind, self.missing_at(token), message).with_help(help));
    }

    /// Consumes `keyword`, or reports it missing and returns `None`.
    fn expect_keyword(
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

    fn report_unclosed(&mut self, open: Token) {
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

    /// The comparison operator at the current token and how many tokens it takes: `!=` is `!` then `=`.
    fn peek_compare(&self) -> Option<(CompareOp, usize)> {
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
    fn at_operand_end(&self) -> bool {
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
    fn at_operand_start(&self) -> bool {
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
    fn at_hard_stop(&self) -> bool {
        let token = self.peek();
        (token.kind == TokenKind::Semicolon && self.in_item)
            || matches!(self.keyword(token), Some(Keyword::Param | Keyword::Fn))
    }

    /// After an operand, skips tokens that cannot follow one (reporting the first), so that the operator
    /// loops carry on at the next operator.
    fn skip_stray_tokens(&mut self, operand: &Expr) {
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
    fn skip_to_follow(&mut self) {
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
    fn skip_to(&mut self, close: TokenKind, stop_at_comma: bool) -> Stop {
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
    fn skip_item(&mut self) {
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
    fn warn_slash_comments(&mut self, comments: &[Span]) {
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
    fn at_trailing_text(&self, token: Token) -> bool {
        self.dialect.trailing_text
            && token.kind == TokenKind::Word
            && token.span.start != self.prev_end
            && self.brackets == 0
            && !self.in_item
            && self.keyword(token).is_none()
    }

    /// Ends the input at the current token: what follows is a comment.
    fn end_input_here(&mut self) {
        self.tokens.truncate(self.pos);
        self.tokens.push(Token {
            kind: TokenKind::Eof,
            span: Span::new(self.source.len(), self.source.len()),
        });
    }

    // Scripts and items.

    fn parse_script(&mut self) -> Script {
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
                _ => break self.parse_expr(),
            }
        };
        self.parse_after_result();
        Script { items, body }
    }

    /// Reports what follows the result, parsing it (and dropping it) so that its errors are reported too.
    fn parse_after_result(&mut self) {
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
    fn parse_item_after_result(&mut self) {
        if self.at_keyword(Keyword::Let) {
            self.parse_top_let();
        } else {
            self.parse_item();
        }
    }

    /// A `param` or `fn` item.
    fn parse_item(&mut self) -> Option<Spanned<Item>> {
        self.in_item = true;
        let item = if self.at_keyword(Keyword::Param) {
            self.parse_param()
        } else {
            self.parse_fn()
        };
        self.in_item = false;
        item
    }

    fn parse_param(&mut self) -> Option<Spanned<Item>> {
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

    fn parse_fn(&mut self) -> Option<Spanned<Item>> {
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
    fn parse_top_let(&mut self) -> TopLet {
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
    fn parse_let_head(&mut self) -> Option<(Spanned<String>, Expr)> {
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
    fn end_item(&mut self, keyword: &str, name: &str) {
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
    fn parse_name(&mut self, expected: &str) -> Option<Spanned<String>> {
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

    fn parse_expr(&mut self) -> Expr {
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
    fn parse_logic(&mut self) -> Expr {
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
    fn parse_logic_rest(&mut self, first: Expr) -> Expr {
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

    fn parse_not(&mut self) -> Expr {
        if self.at_keyword(Keyword::Not) {
            self.parse_nots()
        } else {
            self.parse_comparison()
        }
    }

    /// A comparison after one or more `not`s, without recursing per `not`.
    #[inline(never)]
    fn parse_nots(&mut self) -> Expr {
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
    fn bump_compare(&mut self, tokens: usize) -> Token {
        let first = self.bump();
        if tokens == 2 {
            self.bump();
        }
        Token {
            kind: first.kind,
            span: Span::new(first.span.start, self.prev_end),
        }
    }

    fn parse_comparison(&mut self) -> Expr {
        let left = self.parse_additive();
        match self.peek_compare() {
            Some((op, tokens)) => self.parse_comparison_rest(left, op, tokens),
            None => left,
        }
    }

    /// The comparison operator after `left` and what follows it. Apart from [`Self::parse_comparison`] so
    /// that the common path, without a comparison, keeps a small frame.
    #[inline(never)]
    fn parse_comparison_rest(&mut self, left: Expr, op: CompareOp, tokens: usize) -> Expr {
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

    fn parse_additive(&mut self) -> Expr {
        if self.dialect.left_to_right {
            return self.parse_chain(Self::parse_unary_operand, binary_op);
        }
        self.parse_chain(Self::parse_multiplicative, |kind| match kind {
            TokenKind::Plus => Some(BinOp::Add),
            TokenKind::Minus => Some(BinOp::Sub),
            _ => None,
        })
    }

    fn parse_multiplicative(&mut self) -> Expr {
        self.parse_chain(Self::parse_unary_operand, |kind| match kind {
            TokenKind::Star => Some(BinOp::Mul),
            TokenKind::Slash | TokenKind::SlashSlash => Some(BinOp::Div),
            TokenKind::Percent => Some(BinOp::Mod),
            _ => None,
        })
    }

    /// A left-associative chain of `operand`s joined by the operators `op` recognises.
    fn parse_chain(
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
    fn parse_chain_rest(
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
    fn division_reading(&mut self, at: Span) {
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
    fn parse_unary_operand(&mut self) -> Expr {
        let expr = self.parse_unary();
        self.skip_stray_tokens(&expr);
        match self.power_operator() {
            Some(tokens) => self.parse_power_rest(expr, tokens),
            None => expr,
        }
    }

    /// How many tokens the power operator at the current token takes: `^` one, `**` two.
    fn power_operator(&self) -> Option<usize> {
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
    fn parse_power_rest(&mut self, base: Expr, tokens: usize) -> Expr {
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
    fn parse_operand(&mut self, op: Token, operand: fn(&mut Self) -> Expr) -> Expr {
        if self.at_operand_start() {
            operand(self)
        } else {
            self.missing_operand(op)
        }
    }

    #[cold]
    fn missing_operand(&mut self, op: Token) -> Expr {
        let token = self.peek();
        let expected = format!("an expression after `{}`", self.text(op.span));
        let diagnostic = self.unexpected(token, &expected);
        self.report(diagnostic);
        Expr::new(
            ExprKind::Error,
            Span::new(token.span.start, token.span.start),
        )
    }

    fn parse_unary(&mut self) -> Expr {
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

    fn parse_postfix(&mut self) -> Expr {
        let expr = self.parse_primary();
        match self.peek().kind {
            TokenKind::Label { .. } | TokenKind::Dot => self.parse_postfix_rest(expr),
            _ => expr,
        }
    }

    /// The labels and fields after `expr`. Apart from [`Self::parse_postfix`] so that the common path,
    /// without them, keeps a small frame.
    #[inline(never)]
    fn parse_postfix_rest(&mut self, mut expr: Expr) -> Expr {
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

    fn label_text(&mut self, token: Token, closed: bool) -> Spanned<String> {
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
    fn parse_field_index(&mut self) -> Option<Spanned<usize>> {
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

    fn parse_primary(&mut self) -> Expr {
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
    fn keyword_as_operand(&mut self, token: Token, keyword: Keyword) -> Expr {
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
    fn string_text(&mut self, token: Token, closed: bool) -> String {
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
    fn parse_name_or_call(&mut self) -> Expr {
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
    fn parse_if(&mut self) -> Expr {
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
    fn parse_let_in(&mut self) -> Expr {
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
    fn take_semicolon_before_operand(&mut self) -> Option<Token> {
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

    #[inline(never)]
    fn parse_match(&mut self) -> Expr {
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
    fn parse_arm(&mut self, scrutinee: &str) -> Option<MatchArm> {
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
    fn if_example(&self, scrutinee: &str, pattern: &Spanned<Pattern>, junk: Span) -> String {
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
    fn at_pattern_junk(&self) -> bool {
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
    fn skip_pattern_junk(&mut self) {
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
    fn parse_pattern(&mut self) -> Option<Spanned<Pattern>> {
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

    fn parse_pattern_alternative(&mut self) -> Option<Spanned<Pattern>> {
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
    fn parse_tuple_pattern(&mut self) -> Option<Spanned<Pattern>> {
        let open = self.bump();
        if !self.enter(open.span) {
            return None;
        }
        let pattern = self.parse_tuple_pattern_inside(open);
        self.depth -= 1;
        pattern
    }

    fn parse_tuple_pattern_inside(&mut self, open: Token) -> Option<Spanned<Pattern>> {
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
    fn parse_number_pattern(&mut self) -> Option<Pattern> {
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

    /// A decimal such as `1.5` where the dialect keeps fractions: the exact fraction, read as Omen's
    /// `div(3, 2)` (a whole one, `2.0`, as `2`). `None`, consuming nothing, anywhere else.
    fn parse_decimal(&mut self) -> Option<Expr> {
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
    fn decimal_node(&mut self, value: Option<crate::value::Value>, span: Span) -> Expr {
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

    /// An integer with an optional `-`, for modifier values, faces and patterns. `expected` names it for the
    /// error when there is none.
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

    /// `( expr )`, a tuple `(a, b, …)` or `(a,)`; `()` is an error.
    #[inline(never)]
    fn parse_paren(&mut self) -> Expr {
        let open = self.bump();
        if let Some(close) = self.eat(TokenKind::RParen) {
            return self.empty_parens(open, close);
        }
        self.brackets += 1;
        let outer_awaiting = self.awaiting.replace("`,` or `)`");
        let first = self.parse_expr();
        let expr = self.finish_paren(open, first);
        self.awaiting = outer_awaiting;
        self.brackets -= 1;
        expr
    }

    #[cold]
    fn empty_parens(&mut self, open: Token, close: Token) -> Expr {
        let span = open.span.to(close.span);
        self.report(
            Diagnostic::error(
                "empty-parens",
                span,
                "empty parentheses: no expression between `(` and `)`",
            )
            .with_help(
                "write an expression between them; a tuple needs members, e.g. `(1, 2)` or `(1,)`",
            ),
        );
        Expr::new(ExprKind::Error, span)
    }

    /// What follows the first expression in parentheses: `)`, or the rest of a tuple.
    fn finish_paren(&mut self, open: Token, first: Expr) -> Expr {
        let token = self.peek();
        let node = match token.kind {
            TokenKind::RParen => {
                self.bump();
                ExprKind::Paren(Box::new(first))
            }
            TokenKind::Comma => {
                self.bump();
                let rest = self.parse_list(open, TokenKind::RParen, Self::parse_expr, true);
                let mut members = vec![first];
                members.extend(rest);
                ExprKind::Tuple(members)
            }
            TokenKind::Eof => {
                self.report_unclosed(open);
                ExprKind::Paren(Box::new(first))
            }
            _ => {
                let diagnostic = self.unexpected(token, "`)`");
                self.report(diagnostic);
                self.skip_to(TokenKind::RParen, false);
                ExprKind::Paren(Box::new(first))
            }
        };
        Expr::new(node, Span::new(open.span.start, self.prev_end))
    }

    /// Parses `item {"," item}` and the `close` bracket, `open` having been consumed; with `trailing`, a `,`
    /// may come before the `close`. `open close` gives no items.
    fn parse_list<T>(
        &mut self,
        open: Token,
        close: TokenKind,
        mut item: impl FnMut(&mut Self) -> T,
        trailing: bool,
    ) -> Vec<T> {
        let mut items = Vec::new();
        if self.eat(close).is_some() {
            return items;
        }
        self.brackets += 1;
        let outer_awaiting = self.awaiting.replace(if close == TokenKind::RBrace {
            "`,` or `}`"
        } else {
            "`,` or `)`"
        });
        loop {
            items.push(item(self));
            let token = self.peek();
            match token.kind {
                TokenKind::Comma => {
                    self.bump();
                    if trailing && self.eat(close).is_some() {
                        break;
                    }
                }
                kind if kind == close => {
                    self.bump();
                    break;
                }
                TokenKind::Eof => {
                    self.report_unclosed(open);
                    break;
                }
                _ => {
                    let close_text = if close == TokenKind::RBrace { "}" } else { ")" };
                    let diagnostic = self.unexpected(token, &format!("`,` or `{close_text}`"));
                    self.report(diagnostic);
                    match self.skip_to(close, true) {
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
        items
    }

    #[inline(never)]
    fn parse_group(&mut self) -> Expr {
        let open = self.bump();
        let members = self.parse_list(open, TokenKind::RBrace, Self::parse_expr, false);
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
        let outer = (self.lowest_face.take(), self.highest_face.take());
        let outer_rescore = self.rescore.take();
        let outer_term = self.begin_term();
        let mut modifiers = self.parse_modifiers();
        let term = self.end_term(outer_term);
        (self.lowest_face, self.highest_face) = outer;
        self.refuse_set_rescore(outer_rescore);
        self.unite_selectors(&mut modifiers);
        self.refuse_term_combinations(&modifiers);
        self.drop_group_sort(&mut modifiers);
        let span = Span::new(open.span.start, self.prev_end);
        let members = if members.len() == 1 && !modifiers.is_empty() {
            match self.dice_with_arithmetic(&members[0], &modifiers) {
                Some(dice) => dice,
                None => self.group_of_one(members, span),
            }
        } else {
            members
        };
        let group = Expr::new(
            ExprKind::Group(Box::new(GroupExpr { members, modifiers })),
            span,
        );
        self.finish_group(group, term)
    }

    /// In a dialect whose sets are written in parentheses (Avrae's `(1d4 + 1, 3, 2d6kl1)kh1`), a tuple
    /// with modifiers glued on is a group; otherwise the tuple as it is.
    fn paren_set(&mut self, tuple: Expr) -> Expr {
        let token = self.peek();
        if !self.dialect.paren_sets
            || token.kind != TokenKind::Word
            || token.span.start != self.prev_end
            || !self.is_modifier_run(token.span, 0)
        {
            return self.set_without_operations(tuple);
        }
        let ExprKind::Tuple(members) = tuple.node else {
            return tuple;
        };
        let outer_rescore = self.rescore.take();
        let outer_term = self.begin_term();
        let mut modifiers = self.parse_modifiers();
        let term = self.end_term(outer_term);
        let mut members = members;
        if modifiers.is_empty()
            && let Some((rescore, at)) = self.rescore.take()
        {
            members = self.score_set_members(members, rescore, at);
        }
        self.refuse_set_rescore(outer_rescore);
        self.unite_selectors(&mut modifiers);
        self.refuse_term_combinations(&modifiers);
        self.drop_group_sort(&mut modifiers);
        let set = Expr::new(
            ExprKind::Group(Box::new(GroupExpr { members, modifiers })),
            Span::new(tuple.span.start, self.prev_end),
        );
        self.finish_group(set, term)
    }

    /// The members of a group with one member and modifiers, as the dialect reads it: Roll20 keeps and
    /// counts the member's single dice, so `{4d6+3d8}kh1` becomes `{d6, d6, d6, d6, d8, d8, d8}kh1`.
    fn group_of_one(&mut self, members: Vec<Expr>, span: Span) -> Vec<Expr> {
        match self.dialect.group_of_one {
            GroupOfOne::Dice => {
                let mut dice = Vec::new();
                if single_dice(&members[0], &mut dice) {
                    return dice;
                }
                self.report(
                    Diagnostic::error(
                        "group-of-one-dice",
                        members[0].span,
                        format!(
                            "in {} a group with one member keeps and counts that member's single dice; Omen can                              do so only for a sum of dice terms with written counts, at most {MAX_SINGLE_DICE} dice,                              without keep, drop or counting of their own",
                            self.dialect.source
                        ),
                    )
                    .with_help("list the dice as members, e.g. `{1d6, 1d6, 1d8}kh1`"),
                );
                members
            }
            GroupOfOne::Member => {
                if self.dialect.warn_other_readings {
                    let written = shorten(self.text(span));
                    self.warnings.push(
                        Diagnostic::warning(
                            "group-differs-in-roll20",
                            span,
                            format!(
                                "`{written}` keeps or counts the total of its one member; Roll20 and \
                                 rpg-dice-roller keep and count that member's single dice"
                            ),
                        )
                        .with_help(
                            "to keep or count single dice, list them as members, e.g. `{d6, d6, d6}kh1`; to \
                             use the total, drop the braces",
                        ),
                    );
                }
                members
            }
        }
    }

    /// `count` followed by a dice term if a `d` follows, else `count` itself.
    fn parse_dice_after(&mut self, count: Expr) -> Expr {
        if let Some(alias) = self.game_alias(&count) {
            return alias;
        }
        if self.word_starts_with(self.peek(), b'd') {
            self.parse_dice(Some(count))
        } else {
            count
        }
    }

    /// A dice term from its `d`, which starts the current word.
    #[inline(never)]
    fn parse_dice(&mut self, count: Option<Expr>) -> Expr {
        let d = self.take_word_prefix(1);
        let start = count.as_ref().map_or(d.start, |count| count.span.start);
        let sides = self.parse_sides(d);
        let outer = (
            self.lowest_face.take(),
            self.margin.take(),
            self.rescore.take(),
            self.advantage.take(),
        );
        self.lowest_face = lowest_face(&sides.node);
        let outer_highest = std::mem::replace(&mut self.highest_face, highest_face(&sides.node));
        let outer_term = self.begin_term();
        let mut modifiers = self.parse_modifiers();
        let term = self.end_term(outer_term);
        self.highest_face = outer_highest;
        self.unite_selectors(&mut modifiers);
        let plain = modifiers.is_empty()
            && self.rescore.is_none()
            && self.advantage.is_none()
            && self.margin.is_none();
        self.refuse_term_combinations(&modifiers);
        self.warn_compounding_rerolls(&modifiers);
        let margin = std::mem::replace(&mut self.margin, outer.1);
        let rescore = std::mem::replace(&mut self.rescore, outer.2);
        let advantage = std::mem::replace(&mut self.advantage, outer.3);
        self.lowest_face = outer.0;
        let mut count = count;
        let mut sides = sides;
        let rescore = self.resolve_double_success(rescore, &mut modifiers);
        if let Some((rescore, at)) = rescore {
            match rescored_faces(&sides.node, &rescore, &modifiers) {
                Ok(faces) => {
                    let span = sides.span;
                    let faces = faces
                        .into_iter()
                        .map(|f| Spanned::new(FaceItem::Face(f), span))
                        .collect();
                    sides = Spanned::new(Sides::Custom(faces), span);
                }
                Err(why) => self.report(
                    Diagnostic::error("unsupported-modifier", at, why)
                        .with_help("see docs/dialects.md for what each dialect supports"),
                ),
            }
        }
        if let Some(kept) = self.kept_die_then_step(count.as_ref(), &sides, &modifiers, start) {
            return kept;
        }
        if let Some((net, at)) = advantage.filter(|(net, _)| *net != 0)
            && let Some(kept) = self.apply_advantage(&mut count, &sides, &mut modifiers, net, at)
        {
            return kept;
        }
        let dice = Expr::new(
            ExprKind::Dice(Box::new(DiceExpr {
                count,
                sides,
                modifiers,
            })),
            Span::new(start, self.prev_end),
        );
        let dice = self.finish_dice_term(dice, term, plain);
        match margin {
            Some((point, at)) => margin_of_success(dice, point, at),
            None => dice,
        }
    }

    fn parse_sides(&mut self, d: Span) -> Spanned<Sides> {
        let token = self.peek();
        match token.kind {
            TokenKind::Number => Spanned::new(Sides::Number(self.parse_number()), token.span),
            TokenKind::Percent if self.dialect.d20_numbers => {
                self.bump();
                self.tens_die(token.span)
            }
            TokenKind::Percent => {
                self.bump();
                Spanned::new(Sides::Percent, token.span)
            }
            TokenKind::Word if self.word_starts_with(token, b'f') => {
                let letter = self.take_word_prefix(1);
                self.fudge_variant(letter)
            }
            TokenKind::Word if self.dialect.coin && self.word_starts_with(token, b'c') => {
                let letter = self.take_word_prefix(1);
                let face = |n| Spanned::new(FaceItem::Face(n), letter);
                Spanned::new(Sides::Custom(vec![face(0), face(1)]), letter)
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

    /// `F` after `d`, or the variant `F.1` (one face of six is −1, one +1, four 0) or `F.2` (the usual
    /// Fudge die).
    fn fudge_variant(&mut self, letter: Span) -> Spanned<Sides> {
        let dot = self.peek();
        let digit = self.tokens.get(self.pos + 1).copied();
        let variant = match digit {
            Some(digit)
                if dot.kind == TokenKind::Dot
                    && dot.span.start == letter.end
                    && digit.kind == TokenKind::Number
                    && digit.span.start == dot.span.end =>
            {
                digit
            }
            _ => return Spanned::new(Sides::Fudge, letter),
        };
        self.bump();
        self.bump();
        let span = Span::new(letter.start, variant.span.end);
        match self.text(variant.span) {
            "2" => Spanned::new(Sides::Fudge, span),
            "1" => {
                let face = |n| Spanned::new(FaceItem::Face(n), span);
                let faces = vec![face(-1), face(0), face(0), face(0), face(0), face(1)];
                Spanned::new(Sides::Custom(faces), span)
            }
            other => {
                self.report(
                    Diagnostic::error(
                        "unknown-fudge-variant",
                        span,
                        format!("unknown Fudge die variant `F.{other}`"),
                    )
                    .with_help("`dF` (or `dF.2`) has −1, 0 and +1 alike; `dF.1` has one −1, four 0 and one +1"),
                );
                Spanned::new(Sides::Fudge, span)
            }
        }
    }

    fn parse_faces(&mut self) -> Spanned<Sides> {
        let open = self.bump();
        let items = self.parse_list(open, TokenKind::RBrace, Self::parse_face, false);
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
        // Face ranges are inclusive either way; `..=` reads as it does in patterns.
        if self.eat(TokenKind::DotDot).is_none() && self.eat(TokenKind::DotDotEq).is_none() {
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
        self.after_name_point = false;
        loop {
            let token = self.peek();
            let start = token.span.start;
            self.spaced_modifier = false;
            if token.span.start != self.prev_end && !self.modifier_may_stand_apart(token) {
                return modifiers;
            }
            self.after_name_point = false;
            let modifier = match token.kind {
                TokenKind::Bang => self.parse_explode(),
                // `then`, `and`, …: the dice term is over.
                TokenKind::Word if self.keyword(token).is_some_and(Keyword::ends_operand) => {
                    return modifiers;
                }
                // A word on the next line of an item whose `;` is missing: the item is over.
                TokenKind::Word
                    if self.ends_item_here(token) && !self.is_modifier_run(token.span, 0) =>
                {
                    return modifiers;
                }
                TokenKind::Word => self.parse_word_modifier(),
                kind => match compare_op(kind) {
                    Some(op) if self.dialect.dice_compare_points => {
                        let op_token = self.bump();
                        let op = self.point_op(op, op_token.span, "counts the dice");
                        let value = self.parse_point_value(op_token, Some(SUCCESS_HELP));
                        self.warn_point(op, value.as_ref(), op_token.span, "counts the dice");
                        value.map(|value| Modifier::Success(ComparePoint { op, value }))
                    }
                    _ => return modifiers,
                },
            };
            if let Some(modifier) = modifier {
                modifiers.push(Spanned::new(modifier, Span::new(start, self.prev_end)));
            }
        }
    }

    /// Whether a modifier may follow its dice term after whitespace. In Omen's notation whitespace ends a
    /// dice term, so a modifier word or `!` standing apart is an error (reported here, and read as a
    /// modifier so that parsing goes on); a compare operator standing apart compares totals.
    fn modifier_may_stand_apart(&mut self, token: Token) -> bool {
        let modifier_word = token.kind == TokenKind::Word
            && self.keyword(token).is_none()
            && self.is_modifier_run(token.span, 0)
            && !self.ends_item_here(token)
            && self
                .tokens
                .get(self.pos + 1)
                .is_none_or(|next| next.kind != TokenKind::LParen);
        let bang = token.kind == TokenKind::Bang && self.peek_compare().is_none();
        if self.dialect.whitespace_ends_dice {
            // After a point written with a name (`>=dv f<=1`) the next word cannot touch it, or it would
            // be part of the name.
            if modifier_word && self.after_name_point {
                return true;
            }
            if modifier_word || bang {
                self.spaced_modifier = true;
                let written = shorten(self.text(token.span));
                let dice = shorten(self.source[..self.prev_end].trim_start());
                self.report(
                    Diagnostic::error(
                        "spaced-modifier",
                        token.span,
                        format!("`{written}` stands apart from its dice: whitespace ends a dice term"),
                    )
                    .with_help(format!(
                        "write the modifier against the dice, e.g. `{dice}{written}…`; a compare operator \
                         with spaces around it compares totals, e.g. `3d6 > 2d10`"
                    )),
                );
                return true;
            }
            return false;
        }
        if self.dialect.trailing_text || self.dialect.spaced_modifiers() {
            return modifier_word || bang || compare_op(token.kind).is_some();
        }
        true
    }

    /// A compare operator as the dialect means it: Roll20's `>3` includes 3.
    fn point_op(&self, op: CompareOp, _at: Span, _what: &str) -> CompareOp {
        match (self.dialect.inclusive_points, op) {
            (true, CompareOp::Gt) => CompareOp::Ge,
            (true, CompareOp::Lt) => CompareOp::Le,
            _ => op,
        }
    }

    /// In Omen's notation, warns that Roll20 reads a strict point `>3` as including 3.
    fn warn_point(&mut self, op: CompareOp, value: Option<&PointValue>, at: Span, what: &str) {
        if !self.dialect.warn_other_readings || !matches!(op, CompareOp::Gt | CompareOp::Lt) {
            return;
        }
        let (word, other, symbol) = match op {
            CompareOp::Gt => ("above", "or more", ">"),
            _ => ("below", "or less", "<"),
        };
        let (written, help) = match value {
            Some(PointValue::Int(n)) => {
                let strict = if op == CompareOp::Gt {
                    format!(">={}", n.saturating_add(1))
                } else {
                    format!("<={}", n.saturating_sub(1))
                };
                (
                    format!("{symbol}{n}"),
                    format!("write `{strict}` for this reading, or `{symbol}={n}` for Roll20's",),
                )
            }
            Some(PointValue::Name(name)) => (
                format!("{symbol}{}", shorten(&name.node)),
                format!(
                    "write `{symbol}=` to include `{}` as Roll20 does",
                    shorten(&name.node)
                ),
            ),
            Some(PointValue::Faces(_)) | None => return,
        };
        let value_text = written.trim_start_matches(symbol).to_string();
        let span = Span::new(at.start, self.prev_end);
        self.warnings.push(
            Diagnostic::warning(
                "point-differs-in-roll20",
                span,
                format!(
                    "`{written}` {what} {word} {value_text}; in Roll20 `{written}` means {value_text} {other}"
                ),
            )
            .with_help(help),
        );
    }

    /// In Omen's notation, warns that Roll20 and Foundry have no not-equal point: after a modifier they
    /// end the dice term at `<>` and compare the total, so `0+d4!<>1` is `(0+d4!) != 1` there.
    fn warn_not_equal_point(&mut self, op: Span) {
        if !self.dialect.warn_other_readings {
            return;
        }
        let (op_text, value) = (
            self.text(op),
            shorten(self.text(Span::new(op.end, self.prev_end))),
        );
        self.warnings.push(
            Diagnostic::warning(
                "not-equal-point-differs-in-roll20",
                Span::new(op.start, self.prev_end),
                format!(
                    "`{op_text}{value}` is a compare point here: the dice whose face is not {value}; \
                     Roll20 and Foundry have no not-equal point and compare the total with `{op_text}`"
                ),
            )
            .with_help(format!(
                "to compare the total, put the sum in parentheses: `(…) {op_text} {value}`"
            )),
        );
    }

    fn parse_explode(&mut self) -> Option<Modifier> {
        let bang = self.bump();
        let compound = self.eat(TokenKind::Bang).is_some();
        // `!p`, `!!p`: penetrating. A `p` that does not start a run of modifier words is a name.
        let penetrate = self.word_starts_with(self.peek(), b'p')
            && self.peek().span.start == self.prev_end
            && self.is_modifier_run(self.peek().span, 1);
        if penetrate {
            self.take_word_prefix(1);
        }
        // `!o`: explode once. Not after `!!`: a compounded die that stops after one extra is `!o` too.
        let once = !compound
            && !penetrate
            && self.word_starts_with(self.peek(), b'o')
            && self.peek().span.start == self.prev_end
            && self.is_modifier_run(self.peek().span, 1);
        if once {
            self.take_word_prefix(1);
        }
        let point = match self.parse_point_signed(false, false) {
            Point::Absent => None,
            Point::Present(point) => Some(point),
            Point::Invalid => return None,
        };
        if point.is_none() {
            self.warn_glued_minus(bang.span);
        }
        if let Some(point) = &point {
            self.warn_point(
                point.op,
                Some(&point.value),
                Span::new(bang.span.end, bang.span.end),
                "explodes the dice",
            );
        }
        Some(Modifier::Explode {
            compound,
            point,
            once,
            penetrate,
        })
    }

    /// In Omen's notation, warns that `dF!-1` explodes and then subtracts, where `ro-1` would be a point.
    fn warn_glued_minus(&mut self, bang: Span) {
        let token = self.peek();
        let digits = self.tokens.get(self.pos + 1).copied();
        if !self.dialect.warn_other_readings
            || token.kind != TokenKind::Minus
            || token.span.start != self.prev_end
            || digits.is_none_or(|d| d.kind != TokenKind::Number || d.span.start != token.span.end)
        {
            return;
        }
        let number = self.text(digits.map_or(token.span, |d| d.span)).to_string();
        self.warnings.push(
            Diagnostic::warning(
                "explode-then-subtract",
                Span::new(bang.start, token.span.end + number.len()),
                format!(
                    "`!-{number}` explodes on the highest face and then subtracts {number}; it does not explode on -{number}"
                ),
            )
            .with_help(format!(
                "to explode on -{number} write `!=-{number}`; to subtract, put spaces around the minus: `! - {number}`"
            )),
        );
    }

    /// A compare point (`>=5`, or a bare `5` meaning `=5`, or a bare `-1` touching the modifier) if one
    /// starts here. `threshold` is the comparison a bare number means where the dialect reads bare numbers
    /// as thresholds (Dice Maiden).
    fn parse_point(&mut self, at_most: bool) -> Point {
        self.parse_point_signed(at_most, true)
    }

    /// [`Self::parse_point`], taking a bare negative number only when `negative` (not after `!`, where
    /// every roller reads `1d6!-1` as a subtraction).
    fn parse_point_signed(&mut self, at_most: bool, negative: bool) -> Point {
        let token = self.peek();
        // Where whitespace ends a dice term, a point touches its modifier: in `1d20! >= 10` the `>=`
        // compares the total, as in `1d20 >= 10`.
        if self.dialect.whitespace_ends_dice && token.span.start != self.prev_end {
            return Point::Absent;
        }
        let not_equal =
            (token.kind == TokenKind::Ne && self.dialect.not_equal_points).then_some(CompareOp::Ne);
        if let Some(op) = compare_op(token.kind).or(not_equal) {
            self.bump();
            let op = self.point_op(op, token.span, "");
            let value = self.parse_point_value(token, None);
            if not_equal.is_some() && value.is_some() {
                self.warn_not_equal_point(token.span);
            }
            return match value {
                Some(value) => Point::Present(ComparePoint { op, value }),
                None => Point::Invalid,
            };
        }
        let bare_op = match (self.dialect.bare_points_are_thresholds, at_most) {
            (false, _) => CompareOp::Eq,
            (true, false) => CompareOp::Ge,
            (true, true) => CompareOp::Le,
        };
        if token.kind == TokenKind::Number {
            self.bump();
            return match self.int_value(token.span, false, token.span) {
                Some(value) => Point::Present(ComparePoint {
                    op: bare_op,
                    value: PointValue::Int(value),
                }),
                None => Point::Invalid,
            };
        }
        // `ro-1`, `f-1`: a negative point touching its modifier, as in `min-1`.
        let digits = self.tokens.get(self.pos + 1).copied();
        if negative
            && token.kind == TokenKind::Minus
            && token.span.start == self.prev_end
            && let Some(digits) = digits
            && digits.kind == TokenKind::Number
            && digits.span.start == token.span.end
        {
            self.bump();
            self.bump();
            return match self.int_value(digits.span, true, token.span.to(digits.span)) {
                Some(value) => Point::Present(ComparePoint {
                    op: bare_op,
                    value: PointValue::Int(value),
                }),
                None => Point::Invalid,
            };
        }
        Point::Absent
    }

    /// The value after the compare operator `op` of a compare point: a number, or a name (`>=dv`). A bare
    /// point without an operator (`ro1`) takes numbers only, so that letters glued on stay modifiers.
    fn parse_point_value(&mut self, op: Token, help: Option<&str>) -> Option<PointValue> {
        if let Some(value) = self.inline_roll_point() {
            return value;
        }
        let token = self.peek();
        if token.kind == TokenKind::Word
            && self.keyword(token).is_none()
            && !self.is_dice_start(token)
        {
            let name = self.take_name();
            self.after_name_point = true;
            return Some(PointValue::Name(name));
        }
        let expected = format!("a number or a name after `{}`", self.text(op.span));
        self.parse_int(&expected, help).map(PointValue::Int)
    }

    /// A compare point that must follow `keyword` (`ro`, `rr`, `r`, `f`, `cs`, …). A reroll without one
    /// rerolls the lowest face, when the die is known.
    fn parse_required_point(
        &mut self,
        keyword: Span,
        reroll: bool,
        at_most: bool,
    ) -> Option<ComparePoint> {
        if reroll && let Some(set) = self.parse_face_set() {
            return set;
        }
        match self.parse_point(at_most) {
            Point::Present(point) => Some(point),
            Point::Invalid => None,
            Point::Absent if reroll && self.lowest_face.is_some() => Some(ComparePoint {
                op: CompareOp::Eq,
                value: PointValue::Int(self.lowest_face.unwrap_or(1)),
            }),
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

    /// A modifier starting with a word of the dialect at the start of the current word, e.g. the `kh3` of
    /// `kh3ro1`.
    fn parse_word_modifier(&mut self) -> Option<Modifier> {
        let token = self.peek();
        let word = self.text(token.span);
        // Check the whole run first, so that a misspelling is reported as the word written (`fire`), not as
        // a keyword followed by nonsense (`f` then `ire`).
        let found = self
            .dialect
            .word(word)
            .filter(|_| self.is_modifier_run(token.span, 0));
        let Some((meaning, len)) = found else {
            self.bump();
            let help = if self.dialect.warn_other_readings {
                MODIFIER_HELP.to_string()
            } else {
                let words: Vec<&str> = self.dialect.words.iter().map(|(w, _)| *w).collect();
                format!(
                    "the dice modifiers of the {} dialect are `{}`, `!` and compare points",
                    self.dialect.name,
                    words.join("` `")
                )
            };
            self.report(
                Diagnostic::error(
                    "unknown-modifier",
                    token.span,
                    format!("unknown dice modifier `{}`", shorten(word)),
                )
                .with_help(help),
            );
            return None;
        };
        let keyword_span = self.take_word_prefix(len);
        let written = self.text(keyword_span).to_ascii_lowercase();
        let value_expected = format!("a number after `{written}`");
        let point = |parser: &mut Self, reroll: bool, at_most: bool, what: &str| {
            let point = parser.parse_required_point(keyword_span, reroll, at_most)?;
            parser.warn_point(
                point.op,
                Some(&point.value),
                Span::new(keyword_span.end, keyword_span.end),
                what,
            );
            Some(point)
        };
        match meaning {
            Word::KeepHighest => {
                if written == "k"
                    && let Some(ends) = self.parse_keep_ends(keyword_span, false)
                {
                    return ends;
                }
                let keep = self.parse_keep_count(KeepWhich::KeepHighest, keyword_span);
                if written == "k"
                    && self.dialect.warn_other_readings
                    && self.prev_end > keyword_span.end
                {
                    let count = self
                        .text(Span::new(keyword_span.end, self.prev_end))
                        .to_string();
                    self.warnings.push(
                        Diagnostic::warning(
                            "keep-differs-in-avrae",
                            Span::new(keyword_span.start, self.prev_end),
                            format!("`k{count}` keeps the highest {count}; in Avrae `k{count}` keeps the dice showing {count}"),
                        )
                        .with_help(format!("write `kh{count}` to say it plainly")),
                    );
                }
                keep
            }
            Word::KeepLowest => self.parse_keep_count(KeepWhich::KeepLowest, keyword_span),
            Word::DropHighest => self.parse_keep_count(KeepWhich::DropHighest, keyword_span),
            Word::DropLowest => {
                if written == "d"
                    && let Some(ends) = self.parse_keep_ends(keyword_span, true)
                {
                    return ends;
                }
                self.parse_keep_count(KeepWhich::DropLowest, keyword_span)
            }
            Word::KeepMiddle => self.parse_keep_count(KeepWhich::KeepMiddle, keyword_span),
            Word::RerollOnce => {
                let point = point(self, true, true, "rerolls once the dice")?;
                if self.refuse_capped_count(keyword_span) {
                    return None;
                }
                Some(Modifier::RerollOnce(point))
            }
            Word::RerollRecursive => {
                let start = self.prev_end;
                let point = point(self, true, true, "rerolls the dice")?;
                if self.refuse_capped_count(keyword_span) {
                    return None;
                }
                if written == "r" && self.dialect.warn_other_readings {
                    let shown = self.text(Span::new(start, self.prev_end)).to_string();
                    let shown = if shown.is_empty() {
                        String::new()
                    } else {
                        shown
                    };
                    self.warnings.push(
                        Diagnostic::warning(
                            "reroll-differs-in-foundry",
                            Span::new(keyword_span.start, self.prev_end),
                            format!(
                                "`r{shown}` rerolls until the die no longer meets the point; Foundry and Dice Maiden reroll once"
                            ),
                        )
                        .with_help(format!("write `rr{shown}` for this reading, or `ro{shown}` to reroll once")),
                    );
                }
                Some(Modifier::RerollRecursive(point))
            }
            Word::Failure => point(self, false, true, "subtracts the dice").map(Modifier::Failure),
            Word::ClampMin => self
                .parse_int(&value_expected, None)
                .map(Modifier::ClampMin),
            Word::ClampMax => self
                .parse_int(&value_expected, None)
                .map(Modifier::ClampMax),
            Word::Explode | Word::ExplodeOnce => {
                let point = match self.parse_point_signed(false, false) {
                    Point::Absent => None,
                    Point::Present(point) => Some(point),
                    Point::Invalid => return None,
                };
                if self.refuse_capped_count(keyword_span) {
                    return None;
                }
                Some(Modifier::Explode {
                    compound: false,
                    point,
                    once: meaning == Word::ExplodeOnce,
                    penetrate: false,
                })
            }
            Word::CountSuccessesOrHighest | Word::CountFailuresOrLowest | Word::FailureOrLowest => {
                self.parse_count_or_extreme(meaning, keyword_span)
            }
            Word::CountSuccesses | Word::CountFailures => {
                point(self, false, false, "counts the dice").map(Modifier::Success)
            }
            Word::CountSuccessesAtMost => {
                point(self, false, true, "counts the dice").map(Modifier::Success)
            }
            Word::RerollOnceAtLeast => {
                point(self, false, false, "rerolls once the dice").map(Modifier::RerollOnce)
            }
            Word::RerollRecursiveAtLeast => {
                point(self, false, false, "rerolls the dice").map(Modifier::RerollRecursive)
            }
            Word::KeepValues | Word::DropValues | Word::SubtractFailures => {
                let point = point(self, false, false, "")?;
                let at = Span::new(keyword_span.start, self.prev_end);
                let rescore = match (meaning, point.value) {
                    (_, PointValue::Faces(_)) => return None,
                    (_, PointValue::Name(name)) => {
                        self.report(
                            Diagnostic::error(
                                "unsupported-modifier",
                                name.span,
                                format!("`{written}` takes a number here, not a name"),
                            )
                            .with_help("write the number, e.g. `k3` or `sf<3`"),
                        );
                        return None;
                    }
                    (Word::KeepValues, PointValue::Int(v)) => Rescore::select(true, point.op, v),
                    (Word::DropValues, PointValue::Int(v)) => Rescore::select(false, point.op, v),
                    (_, PointValue::Int(v)) => Rescore::SubtractFailures(point.op, v),
                };
                self.set_rescore(rescore, at);
                None
            }
            Word::DoubleSuccess => {
                let point = point(self, false, false, "")?;
                let at = Span::new(keyword_span.start, self.prev_end);
                self.double_success(point, at);
                None
            }
            Word::CountEven | Word::CountOdd => {
                let rescore = Rescore::Parity(meaning == Word::CountEven);
                self.set_rescore(rescore, keyword_span);
                None
            }
            Word::Advantage | Word::Disadvantage => {
                let token = self.peek();
                let levels = if token.kind == TokenKind::Number
                    && (token.span.start == keyword_span.end || self.spaced_modifier)
                {
                    self.bump();
                    self.int_value(token.span, false, token.span)?
                } else {
                    1
                };
                let signed = if meaning == Word::Advantage {
                    levels
                } else {
                    -levels
                };
                let at = Span::new(keyword_span.start, self.prev_end);
                let (net, span) = self.advantage.unwrap_or((0, at));
                self.advantage = Some((net.saturating_add(signed), span.to(at)));
                None
            }
            Word::MarginOfSuccess => {
                let point = point(self, false, false, "")?;
                self.margin = Some((point, Span::new(keyword_span.start, self.prev_end)));
                None
            }
            Word::CriticalSuccess | Word::CriticalFailure => {
                let failure = meaning == Word::CriticalFailure;
                let point = match self.parse_point(failure) {
                    Point::Present(point) => {
                        self.warn_point(
                            point.op,
                            Some(&point.value),
                            Span::new(keyword_span.end, keyword_span.end),
                            "marks the dice",
                        );
                        Some(point)
                    }
                    Point::Absent => None,
                    Point::Invalid => return None,
                };
                // Foundry counts with `cs` and `cf`, bare ones too (the dice on the highest, the lowest
                // face), so each is read another way there.
                if self.dialect.warn_other_readings {
                    let (word, what, example) = if failure {
                        ("cf", "failures", "`10d6<=2`")
                    } else {
                        ("cs", "successes", "`10d6>4`")
                    };
                    self.warnings.push(
                        Diagnostic::warning(
                            "critical-differs-in-foundry",
                            Span::new(keyword_span.start, self.prev_end),
                            format!(
                                "`{word}` marks critical {what} in the transcript and leaves the total; in \
                                 Foundry `{word}` counts the dice meeting the point"
                            ),
                        )
                        .with_help(format!("to count them, write the point alone, e.g. {example}")),
                    );
                }
                Some(Modifier::Critical { failure, point })
            }
            Word::Sort { descending } => Some(Modifier::Sort { descending }),
            Word::Match { total } => {
                let token = self.peek();
                let size =
                    if token.kind == TokenKind::Number && token.span.start == keyword_span.end {
                        self.bump();
                        Some(self.int_value(token.span, false, token.span)?)
                    } else {
                        None
                    };
                // After the size only an operator starts a point (`mt3>=4`); a bare number is the size.
                let point = if compare_op(self.peek().kind).is_some() {
                    self.optional_point(keyword_span, "matches the dice")?
                } else {
                    None
                };
                Some(Modifier::Match { total, size, point })
            }
            Word::Unique { once } => {
                let point = self.optional_point(keyword_span, "rerolls the taken dice")?;
                Some(Modifier::Unique { once, point })
            }
            Word::DisplayOnly(takes_point) => {
                if takes_point {
                    let _ = self.parse_point(false);
                }
                None
            }
            Word::RerollRanked { reroll, highest } => {
                self.ranked_reroll(reroll, highest, keyword_span);
                None
            }
            Word::RerollAndAdd => self.reroll_and_add(keyword_span),
            Word::Unsupported(why) => {
                self.report(
                    Diagnostic::error(
                        "unsupported-modifier",
                        keyword_span,
                        format!("`{written}` in the {} dialect: {why}", self.dialect.name),
                    )
                    .with_help("see docs/dialects.md for what each dialect supports"),
                );
                // Skip its count or point so that one mistake is one error.
                let _ = self.parse_point(false);
                None
            }
        }
    }

    /// A compare point that may follow `keyword` (`u=5`, `m>=4`): `Some(None)` when there is none,
    /// `None` when one was started but is not valid.
    fn optional_point(&mut self, keyword: Span, what: &str) -> Option<Option<ComparePoint>> {
        match self.parse_point(false) {
            Point::Present(point) => {
                self.warn_point(
                    point.op,
                    Some(&point.value),
                    Span::new(keyword.end, keyword.end),
                    what,
                );
                Some(Some(point))
            }
            Point::Absent => Some(None),
            Point::Invalid => None,
        }
    }

    /// Records a per-die score for the dice term being read; a second one on the same term is refused.
    fn set_rescore(&mut self, rescore: Rescore, at: Span) {
        if self.dialect.selectors_unite
            && let Some((first, first_at)) = self.rescore.take()
        {
            let kept = first.clone();
            if let Some(united) = first.then(rescore.clone()) {
                self.rescore = Some((united, first_at.to(at)));
                return;
            }
            self.rescore = Some((kept, first_at));
        }
        if self.rescore.is_some() {
            self.report(
                Diagnostic::error(
                    "unsupported-modifier",
                    at,
                    "two modifiers that score each die by its value on one dice term are not computed yet",
                )
                .with_help("split the roll into two dice terms"),
            );
            return;
        }
        self.rescore = Some((rescore, at));
    }

    /// The count after a keep/drop keyword: a number, or 1 when left out (also when another modifier
    /// follows, as in `4d6khro1`).
    fn parse_keep_count(&mut self, which: KeepWhich, keyword: Span) -> Option<Modifier> {
        let token = self.peek();
        if token.kind == TokenKind::Number && token.span.start == keyword.end {
            self.bump();
            let count = self.int_value(token.span, false, token.span)?;
            return Some(Modifier::Keep { which, count });
        }
        if token.kind == TokenKind::Number
            && (!self.dialect.whitespace_ends_dice || self.spaced_modifier)
        {
            self.bump();
            let count = self.int_value(token.span, false, token.span)?;
            return Some(Modifier::Keep { which, count });
        }
        self.warn_keep_count_left_out(which, keyword);
        Some(Modifier::Keep { which, count: 1 })
    }
}

fn binary_op(kind: TokenKind) -> Option<BinOp> {
    match kind {
        TokenKind::Plus => Some(BinOp::Add),
        TokenKind::Minus => Some(BinOp::Sub),
        TokenKind::Star => Some(BinOp::Mul),
        TokenKind::Slash | TokenKind::SlashSlash => Some(BinOp::Div),
        TokenKind::Percent => Some(BinOp::Mod),
        TokenKind::Caret => Some(BinOp::Pow),
        _ => None,
    }
}

/// The most single dice a group with one member is spread into (Roll20's `{5d6!!}>8`).
const MAX_SINGLE_DICE: i64 = 100;

/// Spreads a sum of dice terms with written counts into single dice, each with the term's modifiers;
/// `false` when `expr` is anything else.
fn single_dice(expr: &Expr, out: &mut Vec<Expr>) -> bool {
    match &expr.node {
        ExprKind::Paren(inner) => single_dice(inner, out),
        ExprKind::Binary(BinOp::Add, left, right) => {
            single_dice(left, out) && single_dice(right, out)
        }
        ExprKind::Dice(dice) => {
            let count = match dice.count.as_ref().map(|c| &c.node) {
                None => 1,
                Some(ExprKind::Number(n)) => *n,
                Some(_) => return false,
            };
            let per_die = dice.modifiers.iter().all(|m| {
                matches!(
                    m.node,
                    Modifier::Explode { .. }
                        | Modifier::RerollOnce(_)
                        | Modifier::RerollRecursive(_)
                        | Modifier::ClampMin(_)
                        | Modifier::ClampMax(_)
                )
            });
            if !per_die || count < 0 || out.len() as i64 + count > MAX_SINGLE_DICE {
                return false;
            }
            for _ in 0..count {
                out.push(Expr::new(
                    ExprKind::Dice(Box::new(DiceExpr {
                        count: None,
                        sides: dice.sides.clone(),
                        modifiers: dice.modifiers.clone(),
                    })),
                    expr.span,
                ));
            }
            true
        }
        _ => false,
    }
}

/// The lowest face of a die known from its sides alone, which a bare `r` or `ro` rerolls.
fn lowest_face(sides: &Sides) -> Option<i64> {
    match sides {
        Sides::Number(Expr {
            node: ExprKind::Number(_),
            ..
        })
        | Sides::Percent => Some(1),
        Sides::Number(_) => None,
        Sides::Fudge => Some(-1),
        Sides::Custom(items) => items
            .iter()
            .map(|item| match item.node {
                FaceItem::Face(n) | FaceItem::Range(n, _) => n,
            })
            .min(),
    }
}

/// Foundry's margin of success: `4d6ms>=10` is the total minus 10, `4d6ms<=10` is 10 minus the total.
fn margin_of_success(dice: Expr, point: ComparePoint, at: Span) -> Expr {
    let span = dice.span;
    let target = match point.value {
        PointValue::Int(n) => Expr::new(ExprKind::Number(n), at),
        PointValue::Name(name) => Expr::new(ExprKind::Var(name.node), name.span),
        // Only rerolls take a set of faces.
        PointValue::Faces(_) => Expr::new(ExprKind::Error, at),
    };
    let paren = |e: Expr| {
        let span = e.span;
        Expr::new(ExprKind::Paren(Box::new(e)), span)
    };
    let (left, right) = match point.op {
        CompareOp::Le | CompareOp::Lt => (target, paren(dice)),
        _ => (paren(dice), target),
    };
    Expr::new(
        ExprKind::Binary(BinOp::Sub, Box::new(left), Box::new(right)),
        span,
    )
}

/// A hint for typographic characters that look like ASCII notation: a minus sign (U+2212) or dash for
/// `-`, `×` for `*`, full-width digits and operators.
fn look_alike(text: &str) -> Option<&'static str> {
    let c = text.chars().next()?;
    Some(match c {
        '\u{2212}' | '\u{2013}' | '\u{2014}' | '\u{2010}' | '\u{2011}' | '\u{FE63}'
        | '\u{FF0D}' => {
            "this character looks like a minus but is not one: type the ASCII hyphen-minus `-`"
        }
        '\u{00D7}' | '\u{2715}' | '\u{2716}' | '\u{22C5}' | '\u{00B7}' | '\u{FF0A}' => {
            "this character looks like a multiplication sign: type `*`"
        }
        '\u{00F7}' | '\u{2215}' | '\u{FF0F}' => {
            "this character looks like a division sign: type `/`"
        }
        '\u{FF10}'..='\u{FF19}' => {
            "full-width digits are not read as numbers: type the ASCII digits `0`-`9`"
        }
        '\u{FF0B}' => "this is a full-width plus: type `+`",
        '\u{FF1E}' | '\u{FF1C}' | '\u{FF1D}' | '\u{2265}' | '\u{2264}' | '\u{2260}' => {
            "this character looks like a comparison: type `>`, `<`, `>=`, `<=`, `=` or `!=`"
        }
        '\u{201C}' | '\u{201D}' | '\u{2018}' | '\u{2019}' => {
            "curly quotes are not read as quotes: type the ASCII `\"`"
        }
        '\u{FF44}' | '\u{FF24}' => "this is a full-width `d`: type the ASCII letter `d`",
        _ => return None,
    })
}

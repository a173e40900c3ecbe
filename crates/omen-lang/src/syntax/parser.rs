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
use crate::syntax::ast::{ComparePoint, Expr, Item, Script, Spanned};
use crate::syntax::dialect::{Dialect, SlashSlash};
use crate::syntax::lexer::{self, Comments, Token, TokenKind};

mod brackets;
mod capped;
mod capped_pool;
mod capped_recursive;
mod clamps;
mod counted;
mod d20;
mod dice;
mod dice_bag;
mod dice_maiden;
mod dice_maiden_aliases;
mod dice_maiden_earthdawn;
mod dice_maiden_hero;
mod dice_maiden_keeps;
mod dice_maiden_modes;
mod dice_maiden_universal;
mod double_success;
mod explosions_in_turn;
mod first_roll;
mod foundry_order;
mod in_turn;
mod items;
mod kept_steps;
mod kept_two_steps;
mod modifiers;
mod notation;
mod numbers;
mod operators;
mod patterns;
mod pieces;
mod pool;
mod primary;
mod recovery;
mod rescore;
mod roll20;
mod runs;
mod set_ends;
mod term_state;
mod words;

use pieces::{TermState, shorten};
use rescore::Rescore;

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
        universal: None,
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
    /// Where the Dice Maiden roll being read ends with modifiers for every dice term (the first
    /// and past-the-last token indexes, and their span): see dice_maiden_universal.rs.
    universal: Option<(usize, usize, Span)>,
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
}

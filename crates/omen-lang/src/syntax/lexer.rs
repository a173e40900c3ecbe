//! The lexer: source text to tokens with byte spans.
//!
//! Every run of ASCII letters and `_` becomes one [`TokenKind::Word`], and the lexer does not split it. It
//! cannot: the same letters mean different things in different places. `d` starts a dice term at the start of
//! an operand but means drop-lowest after one (`4d6d1`), `f` is the fudge die after `d` (`4dF`) but a failure
//! point after the sides (`4d6f1`), and `min` is a function (`min(1, 2)`) or a modifier (`3d6min2`). Digits are
//! never part of a word either, so that `d6kh3` is `d`, `6`, `kh`, `3`; the parser glues a word and the digits
//! and words touching it back into one name (`t2`, `dice_lost`) where it reads a name. The parser splits words
//! where it knows which reading applies, using the dialect's table of modifier words
//! ([`crate::syntax::dialect`]) for runs of glued modifiers.
//!
//! Comments run from `#` or `//` to the end of the line and count as whitespace (but not inside a label or a
//! string, which are taken whole).
//!
//! Lexing never fails: characters that start no token become [`TokenKind::Unknown`] and the parser reports
//! them where it meets them, so that it can recover and report the errors after them as well.

use crate::span::Span;

/// What a token is; its text is the source under its span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// A run of ASCII digits. Its value is read by the parser, which knows whether a sign applies.
    Number,
    /// A run of ASCII letters and `_`, e.g. `d`, `dFkh`, `min`, `dice_lost`, `_`.
    Word,
    Plus,
    Minus,
    Star,
    Slash,
    /// `//` where it divides rounding down (Avrae); elsewhere it starts a comment.
    SlashSlash,
    /// `^` (power).
    Caret,
    LParen,
    RParen,
    LBrace,
    RBrace,
    Comma,
    Semicolon,
    /// `!`: explode after dice; the parser reads `!` `=` touching outside dice as `!=`.
    Bang,
    Percent,
    /// `.` before a tuple field, e.g. `t.0`.
    Dot,
    /// `..` in face ranges (`d{-1..1}`) and in patterns (`41..`, `..10`).
    DotDot,
    /// `..=` in patterns, e.g. `..=10`. Lexed as `..` then `=>` when a `>` follows (`41..=> "good"`).
    DotDotEq,
    /// `=>` between a pattern and its value.
    FatArrow,
    /// `|` between alternative patterns.
    Pipe,
    Ge,
    Gt,
    Le,
    Lt,
    /// `=` and `==`.
    Eq,
    /// `<>`. (`!=` is two tokens, `!` and `=`, because after dice it is an explosion point.)
    Ne,
    /// `[text]`, taken whole because a label may hold any character but `]`. `closed` is false when the
    /// input ends before the `]`.
    Label {
        closed: bool,
    },
    /// `"text"`, taken whole; there are no escapes. `closed` is false when the line (or the input) ends
    /// before the closing `"`: a string never spans lines, so that one missing quote does not swallow the rest
    /// of a script.
    Text {
        closed: bool,
    },
    /// A run of characters that start no token, e.g. `?`, `é`, `&` or `]`.
    Unknown,
    /// The end of the input; its span is empty.
    Eof,
}

/// One token and where it is in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

/// Splits `source` into tokens, skipping whitespace and comments. The last token is always
/// [`TokenKind::Eof`].
pub fn tokenize(source: &str) -> Vec<Token> {
    tokenize_with(source, Comments::default()).0
}

/// Which comment markers a dialect has, besides `#`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Comments {
    /// `//` starts a comment (else it is [`TokenKind::SlashSlash`]).
    pub slash_slash: bool,
    /// `!` followed by whitespace starts a comment (Dice Maiden).
    pub bang_space: bool,
    /// `/* … */` is a comment, which may end on another line (rpg-dice-roller); an unclosed one runs
    /// to the end of the input.
    pub block: bool,
    /// `[[` and `]]` bracket an inline roll, read as parentheses (Roll20's `[[2d6]]d5`); else `[`
    /// starts a label.
    pub inline_rolls: bool,
}

impl Default for Comments {
    fn default() -> Self {
        Comments {
            slash_slash: true,
            bang_space: false,
            block: false,
            inline_rolls: false,
        }
    }
}

/// [`tokenize`] with a dialect's comment markers; also returns where each comment starts, so that the
/// parser can warn about a `//` another dialect reads as division.
pub fn tokenize_with(source: &str, comments: Comments) -> (Vec<Token>, Vec<Span>) {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut comment_spans = Vec::new();
    let mut pos = 0;
    while let Some(c) = source[pos..].chars().next() {
        let start = pos;
        if c.is_whitespace() {
            pos += c.len_utf8();
            continue;
        }
        let rest = &bytes[pos..];
        let comment = matches!(rest, [b'#', ..])
            || (comments.slash_slash && matches!(rest, [b'/', b'/', ..]))
            || (comments.bang_space
                && (matches!(rest, [b'!'] | [b'!', b' ' | b'\t', ..])
                    // Dice Maiden's README writes `wng 4d6 !soak`: after a space, any `!` starts one.
                    || (matches!(rest, [b'!', ..])
                        && bytes[..pos].last().is_some_and(u8::is_ascii_whitespace))));
        if comments.block && matches!(rest, [b'/', b'*', ..]) {
            pos = source[pos + 2..]
                .find("*/")
                .map_or(source.len(), |offset| pos + 2 + offset + 2);
            comment_spans.push(Span::new(start, pos));
            continue;
        }
        if comment {
            pos = source[pos..]
                .find('\n')
                .map_or(source.len(), |offset| pos + offset);
            comment_spans.push(Span::new(start, pos));
            continue;
        }
        if !comments.slash_slash && matches!(rest, [b'/', b'/', ..]) {
            pos += 2;
            tokens.push(Token {
                kind: TokenKind::SlashSlash,
                span: Span::new(start, pos),
            });
            continue;
        }
        if comments.inline_rolls && matches!(rest, [b'[', b'[', ..] | [b']', b']', ..]) {
            pos += 2;
            let kind = if rest[0] == b'[' {
                TokenKind::LParen
            } else {
                TokenKind::RParen
            };
            tokens.push(Token {
                kind,
                span: Span::new(start, pos),
            });
            continue;
        }
        let kind = if c.is_ascii_digit() {
            pos = run_end(bytes, pos, |b| b.is_ascii_digit());
            TokenKind::Number
        } else if is_word_byte(bytes[pos]) {
            pos = run_end(bytes, pos, is_word_byte);
            TokenKind::Word
        } else if c == '[' {
            let (kind, end) = label(source, pos);
            pos = end;
            kind
        } else if c == '"' {
            let (kind, end) = text(source, pos);
            pos = end;
            kind
        } else if let Some((kind, len)) = punctuation(&bytes[pos..]) {
            pos += len;
            kind
        } else {
            // One token for the whole run, so that `???` is one error rather than three.
            pos += c.len_utf8();
            while let Some(next) = source[pos..].chars().next() {
                if next.is_whitespace() || starts_token(&source[pos..]) {
                    break;
                }
                pos += next.len_utf8();
            }
            TokenKind::Unknown
        };
        tokens.push(Token {
            kind,
            span: Span::new(start, pos),
        });
    }
    tokens.push(Token {
        kind: TokenKind::Eof,
        span: Span::new(source.len(), source.len()),
    });
    (tokens, comment_spans)
}

/// A label from the `[` at `pos`: its token kind and where it ends (the input's end when unclosed).
fn label(source: &str, pos: usize) -> (TokenKind, usize) {
    match source[pos..].find(']') {
        Some(offset) => (TokenKind::Label { closed: true }, pos + offset + 1),
        None => (TokenKind::Label { closed: false }, source.len()),
    }
}

/// A string from the `"` at `pos`: its token kind and where it ends. An unclosed string ends at its line's
/// end, so that one missing quote does not swallow the lines after it.
fn text(source: &str, pos: usize) -> (TokenKind, usize) {
    let rest = &source[pos + 1..];
    match rest.find(['"', '\n']) {
        Some(offset) if rest.as_bytes()[offset] == b'"' => {
            (TokenKind::Text { closed: true }, pos + offset + 2)
        }
        Some(offset) => (TokenKind::Text { closed: false }, pos + offset + 1),
        None => (TokenKind::Text { closed: false }, source.len()),
    }
}

fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_'
}

fn is_comment_start(rest: &[u8]) -> bool {
    matches!(rest, [b'#', ..] | [b'/', b'/', ..])
}

fn run_end(bytes: &[u8], start: usize, accept: impl Fn(u8) -> bool) -> usize {
    bytes[start..]
        .iter()
        .position(|&b| !accept(b))
        .map_or(bytes.len(), |offset| start + offset)
}

/// The punctuation token at the start of `rest`, with its length in bytes.
fn punctuation(rest: &[u8]) -> Option<(TokenKind, usize)> {
    let long = match rest {
        // `41..=>` is an open range before its arrow, not `..=` before a stray `>`.
        [b'.', b'.', b'=', b'>', ..] => Some((TokenKind::DotDot, 2)),
        [b'.', b'.', b'=', ..] => Some((TokenKind::DotDotEq, 3)),
        [b'.', b'.', ..] => Some((TokenKind::DotDot, 2)),
        [b'>', b'=', ..] => Some((TokenKind::Ge, 2)),
        [b'<', b'=', ..] => Some((TokenKind::Le, 2)),
        [b'<', b'>', ..] => Some((TokenKind::Ne, 2)),
        [b'=', b'=', ..] => Some((TokenKind::Eq, 2)),
        [b'=', b'>', ..] => Some((TokenKind::FatArrow, 2)),
        _ => None,
    };
    if long.is_some() {
        return long;
    }
    let one = match rest.first()? {
        b'+' => TokenKind::Plus,
        b'-' => TokenKind::Minus,
        b'*' => TokenKind::Star,
        b'^' => TokenKind::Caret,
        b'/' => TokenKind::Slash,
        b'(' => TokenKind::LParen,
        b')' => TokenKind::RParen,
        b'{' => TokenKind::LBrace,
        b'}' => TokenKind::RBrace,
        b',' => TokenKind::Comma,
        b';' => TokenKind::Semicolon,
        b'!' => TokenKind::Bang,
        b'%' => TokenKind::Percent,
        b'.' => TokenKind::Dot,
        b'|' => TokenKind::Pipe,
        b'>' => TokenKind::Gt,
        b'<' => TokenKind::Lt,
        b'=' => TokenKind::Eq,
        _ => return None,
    };
    Some((one, 1))
}

fn starts_token(rest: &str) -> bool {
    let bytes = rest.as_bytes();
    let Some(&first) = bytes.first() else {
        return false;
    };
    first.is_ascii_digit()
        || is_word_byte(first)
        || matches!(first, b'[' | b'"')
        || is_comment_start(bytes)
        || punctuation(bytes).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each token as `Kind:text`, without the final end-of-input token.
    fn lex(source: &str) -> Vec<String> {
        let tokens = tokenize(source);
        assert_eq!(tokens.last().map(|t| t.kind), Some(TokenKind::Eof));
        tokens[..tokens.len() - 1]
            .iter()
            .map(|t| format!("{:?}:{}", t.kind, &source[t.span.start..t.span.end]))
            .collect()
    }

    #[test]
    fn letters_and_digits_are_separate_runs() {
        assert_eq!(
            lex("4dFkh1"),
            ["Number:4", "Word:dFkh", "Number:1"].map(String::from)
        );
        assert_eq!(
            lex("10d12>=8f<=1"),
            [
                "Number:10",
                "Word:d",
                "Number:12",
                "Ge:>=",
                "Number:8",
                "Word:f",
                "Le:<=",
                "Number:1"
            ]
            .map(String::from)
        );
    }

    #[test]
    fn whitespace_is_skipped_and_spans_are_bytes() {
        let tokens = tokenize(" 2 d\t6\n");
        let spans: Vec<_> = tokens.iter().map(|t| (t.span.start, t.span.end)).collect();
        assert_eq!(spans, [(1, 2), (3, 4), (5, 6), (7, 7)]);
    }

    #[test]
    fn punctuation_prefers_two_characters() {
        assert_eq!(
            lex("!!>=<=..<>=%"),
            [
                "Bang:!",
                "Bang:!",
                "Ge:>=",
                "Le:<=",
                "DotDot:..",
                "Ne:<>",
                "Eq:=",
                "Percent:%"
            ]
            .map(String::from)
        );
        assert_eq!(
            lex("== => != ; | . ..="),
            [
                "Eq:==",
                "FatArrow:=>",
                "Bang:!",
                "Eq:=",
                "Semicolon:;",
                "Pipe:|",
                "Dot:.",
                "DotDotEq:..="
            ]
            .map(String::from)
        );
    }

    #[test]
    fn ranges_and_fields_lex_apart() {
        assert_eq!(
            lex("1..5"),
            ["Number:1", "DotDot:..", "Number:5"].map(String::from)
        );
        assert_eq!(
            lex("-3..=-1"),
            ["Minus:-", "Number:3", "DotDotEq:..=", "Minus:-", "Number:1"].map(String::from)
        );
        // An open range right before its arrow.
        assert_eq!(
            lex("41..=>"),
            ["Number:41", "DotDot:..", "FatArrow:=>"].map(String::from)
        );
        assert_eq!(
            lex("t.0.12"),
            ["Word:t", "Dot:.", "Number:0", "Dot:.", "Number:12"].map(String::from)
        );
        assert_eq!(
            lex("d{1..3}"),
            [
                "Word:d",
                "LBrace:{",
                "Number:1",
                "DotDot:..",
                "Number:3",
                "RBrace:}"
            ]
            .map(String::from)
        );
    }

    #[test]
    fn words_take_underscores_but_not_digits() {
        assert_eq!(
            lex("dice_lost _ t2 _x"),
            ["Word:dice_lost", "Word:_", "Word:t", "Number:2", "Word:_x"].map(String::from)
        );
    }

    #[test]
    fn comments_run_to_the_end_of_the_line() {
        assert_eq!(
            lex("1 # one\n+ 2 // two\n// three\n#"),
            ["Number:1", "Plus:+", "Number:2"].map(String::from)
        );
        // A single slash still divides; comment markers inside labels and strings are text.
        assert_eq!(
            lex("4/2[a#b]\"c//d\""),
            [
                "Number:4",
                "Slash:/",
                "Number:2",
                "Label { closed: true }:[a#b]",
                "Text { closed: true }:\"c//d\""
            ]
            .map(String::from)
        );
        assert_eq!(lex("?# x"), ["Unknown:?"].map(String::from));
    }

    #[test]
    fn strings_are_one_token_and_end_at_the_line() {
        assert_eq!(
            lex("\"bad\" \"\""),
            [
                "Text { closed: true }:\"bad\"",
                "Text { closed: true }:\"\""
            ]
            .map(String::from)
        );
        assert_eq!(
            lex("\"open\n1"),
            ["Text { closed: false }:\"open", "Number:1"].map(String::from)
        );
        assert_eq!(
            lex("\"open"),
            ["Text { closed: false }:\"open"].map(String::from)
        );
    }

    #[test]
    fn labels_are_one_token_holding_anything_but_the_closing_bracket() {
        assert_eq!(
            lex("3d6[fire + ice (x]"),
            [
                "Number:3",
                "Word:d",
                "Number:6",
                "Label { closed: true }:[fire + ice (x]"
            ]
            .map(String::from)
        );
        assert_eq!(
            lex("1[open"),
            ["Number:1", "Label { closed: false }:[open"].map(String::from)
        );
    }

    #[test]
    fn unknown_characters_group_into_one_token() {
        assert_eq!(
            lex("1?é&2 ]"),
            ["Number:1", "Unknown:?é&", "Number:2", "Unknown:]"].map(String::from)
        );
        assert_eq!(lex("ü"), ["Unknown:ü"].map(String::from));
    }

    #[test]
    fn empty_input_is_only_the_end() {
        assert_eq!(
            tokenize(""),
            [Token {
                kind: TokenKind::Eof,
                span: Span::new(0, 0)
            }]
        );
        assert_eq!(tokenize("  ").len(), 1);
    }
}

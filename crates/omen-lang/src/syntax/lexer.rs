//! The lexer: source text to tokens with byte spans.
//!
//! Every run of ASCII letters becomes one [`TokenKind::Word`], and the lexer does not split it. It cannot: the
//! same letters mean different things in different places. `d` starts a dice term at the start of an operand
//! but means drop-lowest after one (`4d6d1`), `f` is the fudge die after `d` (`4dF`) but a failure point after
//! the sides (`4d6f1`), and `min` is a function (`min(1, 2)`) or a modifier (`3d6min2`). The parser splits
//! words where it knows which reading applies, using [`modifier_keyword`] for runs of glued modifiers.
//!
//! Lexing never fails: characters that start no token become [`TokenKind::Unknown`] and the parser reports
//! them where it meets them, so that it can recover and report the errors after them as well.

use crate::span::Span;

/// What a token is; its text is the source under its span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// A run of ASCII digits. Its value is read by the parser, which knows whether a sign applies.
    Number,
    /// A run of ASCII letters, e.g. `d`, `dFkh`, `min`, `foo`.
    Word,
    Plus,
    Minus,
    Star,
    Slash,
    LParen,
    RParen,
    LBrace,
    RBrace,
    Comma,
    Bang,
    Percent,
    /// `..` in face ranges, e.g. `d{-1..1}`.
    DotDot,
    Ge,
    Gt,
    Le,
    Lt,
    Eq,
    /// `[text]`, taken whole because a label may hold any character but `]`. `closed` is false when the
    /// input ends before the `]`.
    Label {
        closed: bool,
    },
    /// A run of characters that start no token, e.g. `?`, `é`, a lone `.` or `]`.
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

/// Splits `source` into tokens, skipping whitespace. The last token is always [`TokenKind::Eof`].
pub fn tokenize(source: &str) -> Vec<Token> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut pos = 0;
    while let Some(c) = source[pos..].chars().next() {
        let start = pos;
        if c.is_whitespace() {
            pos += c.len_utf8();
            continue;
        }
        let kind = if c.is_ascii_digit() {
            pos = run_end(bytes, pos, |b| b.is_ascii_digit());
            TokenKind::Number
        } else if c.is_ascii_alphabetic() {
            pos = run_end(bytes, pos, |b| b.is_ascii_alphabetic());
            TokenKind::Word
        } else if c == '[' {
            match source[pos..].find(']') {
                Some(offset) => {
                    pos += offset + 1;
                    TokenKind::Label { closed: true }
                }
                None => {
                    pos = source.len();
                    TokenKind::Label { closed: false }
                }
            }
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
    tokens
}

fn run_end(bytes: &[u8], start: usize, accept: impl Fn(u8) -> bool) -> usize {
    bytes[start..]
        .iter()
        .position(|&b| !accept(b))
        .map_or(bytes.len(), |offset| start + offset)
}

/// The punctuation token at the start of `rest`, with its length in bytes.
fn punctuation(rest: &[u8]) -> Option<(TokenKind, usize)> {
    let two = match rest {
        [b'>', b'=', ..] => Some(TokenKind::Ge),
        [b'<', b'=', ..] => Some(TokenKind::Le),
        [b'.', b'.', ..] => Some(TokenKind::DotDot),
        _ => None,
    };
    if let Some(kind) = two {
        return Some((kind, 2));
    }
    let one = match rest.first()? {
        b'+' => TokenKind::Plus,
        b'-' => TokenKind::Minus,
        b'*' => TokenKind::Star,
        b'/' => TokenKind::Slash,
        b'(' => TokenKind::LParen,
        b')' => TokenKind::RParen,
        b'{' => TokenKind::LBrace,
        b'}' => TokenKind::RBrace,
        b',' => TokenKind::Comma,
        b'!' => TokenKind::Bang,
        b'%' => TokenKind::Percent,
        b'>' => TokenKind::Gt,
        b'<' => TokenKind::Lt,
        b'=' => TokenKind::Eq,
        _ => return None,
    };
    Some((one, 1))
}

fn starts_token(rest: &str) -> bool {
    let Some(&first) = rest.as_bytes().first() else {
        return false;
    };
    first.is_ascii_alphanumeric() || first == b'[' || punctuation(rest.as_bytes()).is_some()
}

/// A keyword that may appear in a run of dice modifiers, e.g. the `kh` and `ro` of `8d10khro1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModifierKeyword {
    /// `kh` and `k`.
    KeepHighest,
    /// `kl`.
    KeepLowest,
    /// `dh`.
    DropHighest,
    /// `dl` and `d`.
    DropLowest,
    /// `ro`.
    RerollOnce,
    /// `rr` and `r`.
    RerollRecursive,
    /// `min`.
    ClampMin,
    /// `max`.
    ClampMax,
    /// `f`.
    Failure,
}

/// Longest first, so that `kh` is never read as `k` followed by `h`.
const MODIFIER_KEYWORDS: [(&str, ModifierKeyword); 12] = [
    ("min", ModifierKeyword::ClampMin),
    ("max", ModifierKeyword::ClampMax),
    ("kh", ModifierKeyword::KeepHighest),
    ("kl", ModifierKeyword::KeepLowest),
    ("dh", ModifierKeyword::DropHighest),
    ("dl", ModifierKeyword::DropLowest),
    ("ro", ModifierKeyword::RerollOnce),
    ("rr", ModifierKeyword::RerollRecursive),
    ("k", ModifierKeyword::KeepHighest),
    ("d", ModifierKeyword::DropLowest),
    ("r", ModifierKeyword::RerollRecursive),
    ("f", ModifierKeyword::Failure),
];

/// The longest modifier keyword at the start of `word` (ignoring case) and its length in bytes.
pub fn modifier_keyword(word: &str) -> Option<(ModifierKeyword, usize)> {
    MODIFIER_KEYWORDS.iter().find_map(|&(text, keyword)| {
        let prefix = word.get(..text.len())?;
        prefix
            .eq_ignore_ascii_case(text)
            .then_some((keyword, text.len()))
    })
}

/// Whether `word` splits into modifier keywords from start to end, taking the longest keyword each time.
///
/// Taking the longest keyword never hides a split that would have worked: the only keyword that is a shorter
/// keyword followed by the start of another is `rr` (`r` then `r`), which means the same either way.
pub fn is_modifier_run(word: &str) -> bool {
    let mut rest = word;
    while !rest.is_empty() {
        match modifier_keyword(rest) {
            Some((_, len)) => rest = &rest[len..],
            None => return false,
        }
    }
    true
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
                "Lt:<",
                "Ge:>=",
                "Percent:%"
            ]
            .map(String::from)
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
            lex("1?é.2 ]"),
            ["Number:1", "Unknown:?é.", "Number:2", "Unknown:]"].map(String::from)
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

    #[test]
    fn modifier_keywords_take_the_longest_match_ignoring_case() {
        assert_eq!(
            modifier_keyword("khk"),
            Some((ModifierKeyword::KeepHighest, 2))
        );
        assert_eq!(
            modifier_keyword("K"),
            Some((ModifierKeyword::KeepHighest, 1))
        );
        assert_eq!(
            modifier_keyword("DL"),
            Some((ModifierKeyword::DropLowest, 2))
        );
        assert_eq!(
            modifier_keyword("d"),
            Some((ModifierKeyword::DropLowest, 1))
        );
        assert_eq!(
            modifier_keyword("ro"),
            Some((ModifierKeyword::RerollOnce, 2))
        );
        assert_eq!(
            modifier_keyword("r"),
            Some((ModifierKeyword::RerollRecursive, 1))
        );
        assert_eq!(
            modifier_keyword("MAXmin"),
            Some((ModifierKeyword::ClampMax, 3))
        );
        assert_eq!(modifier_keyword("mi"), None);
        assert_eq!(modifier_keyword("x"), None);
        assert_eq!(modifier_keyword(""), None);
    }

    #[test]
    fn modifier_runs_must_split_completely() {
        for run in ["khk", "minmax", "dlro", "rrf", "d", "KHkl"] {
            assert!(is_modifier_run(run), "{run}");
        }
        for run in ["fire", "abs", "khx", "m"] {
            assert!(!is_modifier_run(run), "{run}");
        }
    }
}

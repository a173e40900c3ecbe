//! AnyDice's tokens: numbers, UPPERCASE variable names, lowercase words (keywords, function words and
//! the `d` operator are all words; the parser tells them apart by place), strings, punctuation.
//! Comments `\ … \` are skipped wherever they stand, also inside a sequence.

use crate::diagnostic::Diagnostic;
use crate::span::Span;

use super::error::syntax_error;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    Number(i64),
    /// A variable name: uppercase letters and `_`.
    Name(String),
    /// A lowercase word: a keyword, a function word, or `d`.
    Word(String),
    Text(String),
    /// Punctuation and operators, spelled as in the source.
    Punct(&'static str),
}

/// Two-character operators first, so `..` and `<=` are not read as two tokens.
const PUNCTS: [&str; 24] = [
    "..", "!=", "<=", ">=", "{", "}", "(", ")", "[", "]", ",", ":", "+", "-", "*", "/", "^", "@",
    "#", "!", "&", "|", "=", "<",
];

/// The longest source the lexer accepts: far beyond any saved AnyDice program (the site caps its
/// editor well below this), so a hostile input is refused before any work.
pub const MAX_SOURCE_BYTES: usize = 1 << 20;

/// The tokens of `source` with their spans.
///
/// # Errors
/// A syntax error for an unterminated comment or string, a number out of range, or a character
/// AnyDice has no use for.
pub fn lex(source: &str) -> Result<Vec<(Token, Span)>, Diagnostic> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(syntax_error(
            Span::new(0, 0),
            format!(
                "the program is {} bytes long (limit {MAX_SOURCE_BYTES})",
                source.len()
            ),
        ));
    }
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'\\' {
            let Some(end) = source[i + 1..].find('\\') else {
                return Err(syntax_error(
                    Span::new(start, start + 1),
                    "I was expecting a backslash somewhere, to end a comment",
                )
                .with_help("close the comment with another `\\`"));
            };
            i += end + 2;
        } else if c.is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let n = source[start..i].parse::<i64>().map_err(|_| {
                syntax_error(Span::new(start, i), "this number does not fit in 64 bits")
            })?;
            tokens.push((Token::Number(n), Span::new(start, i)));
        } else if c.is_ascii_uppercase() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_uppercase() || bytes[i] == b'_') {
                i += 1;
            }
            tokens.push((Token::Name(source[start..i].into()), Span::new(start, i)));
        } else if c.is_ascii_lowercase() {
            i = word_end(bytes, i);
            tokens.push((Token::Word(source[start..i].into()), Span::new(start, i)));
        } else if c == b'"' {
            let Some(end) = source[i + 1..].find('"') else {
                return Err(syntax_error(
                    Span::new(start, start + 1),
                    "I was expecting a double quote somewhere, to end this text",
                ));
            };
            let text = source[i + 1..i + 1 + end].to_string();
            i += end + 2;
            tokens.push((Token::Text(text), Span::new(start, i)));
        } else if let Some(p) = PUNCTS.iter().find(|p| source[i..].starts_with(**p)) {
            i += p.len();
            tokens.push((Token::Punct(p), Span::new(start, i)));
        } else if c == b'>' {
            i += 1;
            tokens.push((Token::Punct(">"), Span::new(start, i)));
        } else {
            let ch = source[i..].chars().next().unwrap_or('?');
            return Err(syntax_error(
                Span::new(start, start + ch.len_utf8()),
                format!("Sorry, I don't know what `{ch}` means here"),
            ));
        }
    }
    Ok(tokens)
}

/// The end of a lowercase word. Faces never join the word (`d6`, `dX` and `d{…}` stop after the `d`,
/// which the parser reads as the operator); a word such as `add` stays whole.
fn word_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start;
    while i < bytes.len() && bytes[i].is_ascii_lowercase() {
        i += 1;
    }
    i
}

//! Dice Maiden's modifiers for every roll: words with a number that end the message, each standing
//! apart (`2d6 + 3d6 t4`), are taken off the end by the bot and written after every dice term of
//! the roll, so `2d6 + 3d6 t4` counts the dice of both terms, `(2d6 t4) + (3d6 t4)`. Omen reads the
//! last term's words as written and, while reading each earlier term, reads those same words again
//! after its own.

use super::Parser;
use super::pieces::shorten;
use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{Modifier, Spanned};
use crate::syntax::lexer::{Token, TokenKind};

/// The most tokens of words for every term read again after each term (16 words with numbers).
const MAX_TOKENS: usize = 32;

impl Parser<'_> {
    /// At the start of a roll: where its modifiers for every roll start (a token index), when the
    /// roll ends with words with a number, each standing apart, right after a dice term.
    pub(super) fn find_universal_modifiers(&mut self) {
        self.universal = None;
        if !self.dialect.game_aliases {
            return;
        }
        let end = (self.pos..self.tokens.len())
            .find(|&i| matches!(self.tokens[i].kind, TokenKind::Semicolon | TokenKind::Eof))
            .unwrap_or(self.tokens.len());
        let token = |i: usize| self.tokens.get(i).copied();
        let glued = |a: Token, b: Token| a.span.end == b.span.start;
        let mut start = end;
        // Backwards over `word number` pairs, each with space before the word.
        while start >= self.pos + 3 {
            let (Some(before), Some(word), Some(number)) =
                (token(start - 3), token(start - 2), token(start - 1))
            else {
                break;
            };
            let item = word.kind == TokenKind::Word
                && number.kind == TokenKind::Number
                && glued(word, number)
                && !glued(before, word);
            if !item {
                break;
            }
            start -= 2;
        }
        if start == end || start < self.pos + 2 {
            return;
        }
        // The words follow a dice term: its sides (`…d6 t4`) or a word of its own (`…d6 ie t4`).
        let (Some(d), Some(last)) = (token(start - 2), token(start - 1)) else {
            return;
        };
        let after_dice = last.kind == TokenKind::Word
            || (last.kind == TokenKind::Number
                && d.kind == TokenKind::Word
                && glued(d, last)
                && self.text(d.span).eq_ignore_ascii_case("d"));
        if after_dice {
            let words = self.tokens[start].span.to(self.tokens[end - 1].span);
            if end - start > MAX_TOKENS {
                // Read again after every term, a long run would cost its length times theirs.
                self.report(
                    Diagnostic::error(
                        "unsupported-modifier",
                        words,
                        format!(
                            "Dice Maiden writes the words ending the roll after every dice term; \
                             more than {} of them are not read",
                            MAX_TOKENS / 2
                        ),
                    )
                    .with_help("glue the words to the term they belong to"),
                );
                return;
            }
            self.universal = Some((start, end, words));
        }
    }

    /// After a dice term's own modifiers: the roll's modifiers for every roll read again after
    /// them, when the term is not the one they follow. The parser is put back as it was, and what
    /// the second reading reports is dropped: the last term reports it.
    pub(super) fn apply_universal_modifiers(&mut self, modifiers: &mut Vec<Spanned<Modifier>>) {
        let Some((start, end, words)) = self.universal else {
            return;
        };
        if self.pos >= start {
            return;
        }
        let saved = (self.pos, self.prev_end, self.after_name_point);
        let tokens = self.tokens[start..end].to_vec();
        let reported = (self.diagnostics.len(), self.warnings.len());
        self.pos = start;
        self.prev_end = self.tokens[start].span.start.saturating_sub(1);
        let again = self.parse_modifiers();
        let applied = self.diagnostics.len() == reported.0;
        if applied {
            modifiers.extend(again);
        }
        self.diagnostics.truncate(reported.0);
        self.warnings.truncate(reported.1);
        if applied
            && !self
                .warnings
                .iter()
                .any(|w| w.kind == "modifiers-for-every-term")
        {
            let written = shorten(self.text(words));
            self.warnings.push(
                Diagnostic::warning(
                    "modifiers-for-every-term",
                    words,
                    format!(
                        "Dice Maiden writes `{written}`, standing apart at the end of the roll, \
                         after every dice term of it; read so, not for the last term alone"
                    ),
                )
                .with_help(format!(
                    "for the last term alone, glue them to its dice, e.g. `3d6{}`",
                    written.replace(' ', "")
                )),
            );
        }
        self.tokens[start..end].copy_from_slice(&tokens);
        (self.pos, self.prev_end, self.after_name_point) = saved;
    }
}

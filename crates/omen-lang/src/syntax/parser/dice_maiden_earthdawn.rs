//! Dice Maiden's Earthdawn steps: `ed1` to `ed50`, and `ed4e1` to `ed4e40` for the fourth edition.
//! The bot replaces the step by a roll from its step table before reading it; Omen builds the same
//! roll as a syntax tree, so the reading shows it. The fourth edition's table, as the bot writes it,
//! leaves `ie` off some dice (`1d12 + ie 2d6 ie`, where the stray `ie` is skipped): those dice do not
//! explode when the bot rolls them, and a warning says so.

use super::Parser;
use super::dice_maiden_aliases::{binary, dice, explode, sides};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{BinOp, Expr, ExprKind};
use crate::syntax::lexer::TokenKind;

/// One group of dice of a step: how many, their sides, and whether they explode (`ie`).
type Group = (i64, i64, bool);

const fn x(count: i64, sides: i64) -> Group {
    (count, sides, true)
}

const fn plain(count: i64, sides: i64) -> Group {
    (count, sides, false)
}

/// Steps 1 to 50 of the bot's table (`ed`), every die exploding; steps 1 and 2 subtract 2 and 1.
const STEPS: [&[Group]; 50] = [
    &[x(1, 4)],
    &[x(1, 4)],
    &[x(1, 4)],
    &[x(1, 6)],
    &[x(1, 8)],
    &[x(1, 10)],
    &[x(1, 12)],
    &[x(2, 6)],
    &[x(1, 8), x(1, 6)],
    &[x(2, 8)],
    &[x(1, 10), x(1, 8)],
    &[x(2, 10)],
    &[x(1, 12), x(1, 10)],
    &[x(2, 12)],
    &[x(1, 12), x(2, 6)],
    &[x(1, 12), x(1, 8), x(1, 6)],
    &[x(1, 12), x(2, 8)],
    &[x(1, 12), x(1, 10), x(1, 8)],
    &[x(1, 20), x(2, 6)],
    &[x(1, 20), x(1, 8), x(1, 6)],
    &[x(1, 20), x(1, 10), x(1, 6)],
    &[x(1, 20), x(1, 10), x(1, 8)],
    &[x(1, 20), x(2, 10)],
    &[x(1, 20), x(1, 12), x(1, 10)],
    &[x(1, 20), x(1, 12), x(1, 8), x(1, 4)],
    &[x(1, 20), x(1, 12), x(1, 8), x(1, 6)],
    &[x(1, 20), x(1, 12), x(2, 8)],
    &[x(1, 20), x(2, 10), x(1, 8)],
    &[x(1, 20), x(1, 12), x(1, 10), x(1, 8)],
    // The bot's step 30 repeats step 29.
    &[x(1, 20), x(1, 12), x(1, 10), x(1, 8)],
    &[x(1, 20), x(1, 10), x(2, 8), x(1, 6)],
    &[x(1, 20), x(2, 10), x(1, 8), x(1, 6)],
    &[x(1, 20), x(2, 10), x(2, 8)],
    &[x(1, 20), x(3, 10), x(1, 8)],
    &[x(1, 20), x(1, 12), x(2, 10), x(1, 8)],
    &[x(2, 20), x(1, 10), x(1, 8), x(1, 4)],
    &[x(2, 20), x(1, 10), x(1, 8), x(1, 6)],
    &[x(2, 20), x(1, 10), x(2, 8)],
    &[x(2, 20), x(2, 10), x(1, 8)],
    &[x(2, 20), x(1, 12), x(1, 10), x(1, 8)],
    &[x(2, 20), x(1, 10), x(1, 8), x(2, 6)],
    &[x(2, 20), x(1, 10), x(2, 8), x(1, 6)],
    &[x(2, 20), x(2, 10), x(1, 8), x(1, 6)],
    &[x(2, 20), x(2, 10), x(2, 8)],
    &[x(2, 20), x(3, 10), x(1, 8)],
    &[x(2, 20), x(1, 12), x(2, 10), x(1, 8)],
    &[x(2, 20), x(2, 10), x(2, 8), x(1, 4)],
    &[x(2, 20), x(2, 10), x(2, 8), x(1, 6)],
    &[x(2, 20), x(2, 10), x(3, 8)],
    &[x(2, 20), x(3, 10), x(2, 8)],
];

/// Steps 1 to 40 of the bot's fourth-edition table (`ed4e`), as the bot rolls them.
const STEPS_4E: [&[Group]; 40] = [
    &[plain(1, 4)],
    &[plain(1, 4)],
    &[x(1, 4)],
    &[x(1, 6)],
    &[x(1, 8)],
    &[x(1, 10)],
    &[x(1, 12)],
    &[x(2, 6)],
    &[x(1, 8), x(1, 6)],
    &[x(2, 8)],
    &[x(1, 10), x(1, 8)],
    &[x(2, 10)],
    &[x(1, 12), x(1, 10)],
    &[x(2, 12)],
    &[plain(1, 12), x(2, 6)],
    &[plain(1, 12), x(1, 8), x(1, 6)],
    &[plain(1, 12), x(2, 8)],
    &[plain(1, 12), x(1, 10), x(1, 8)],
    &[plain(1, 20), x(2, 6)],
    &[plain(1, 20), plain(1, 8), x(1, 6)],
    &[plain(1, 20), x(2, 8)],
    &[plain(1, 20), x(1, 10), x(1, 8)],
    &[plain(1, 20), x(2, 10)],
    &[plain(1, 20), x(1, 12), x(1, 10)],
    &[plain(1, 20), x(2, 12)],
    &[plain(1, 20), x(1, 12), x(2, 6)],
    &[plain(1, 20), x(1, 12), x(1, 8), x(1, 6)],
    &[plain(1, 20), x(1, 12), x(2, 8)],
    &[plain(1, 20), x(1, 12), x(1, 10), x(1, 8)],
    &[plain(2, 20), x(2, 6)],
    &[plain(2, 20), x(1, 8), x(1, 6)],
    &[plain(2, 20), x(2, 8)],
    &[plain(2, 20), x(1, 10), x(1, 8)],
    &[plain(2, 20), x(2, 10)],
    &[plain(2, 20), x(1, 12), x(1, 10)],
    &[plain(2, 20), x(2, 12)],
    &[plain(2, 20), x(1, 12), x(2, 6)],
    &[plain(2, 20), x(1, 12), x(1, 8), plain(1, 6)],
    &[plain(2, 20), x(1, 12), x(2, 8)],
    &[plain(2, 20), x(1, 12), x(1, 10), x(1, 8)],
];

/// The roll of a step: its groups added, less 2 at step 1 and 1 at step 2.
fn step_roll(step: usize, groups: &[Group], at: Span) -> Expr {
    let group = |&(count, faces, explodes): &Group| {
        let modifiers = if explodes {
            vec![explode(None)]
        } else {
            Vec::new()
        };
        dice(count, sides(faces, at), modifiers, at)
    };
    let mut roll = group(&groups[0]);
    for next in &groups[1..] {
        roll = binary(BinOp::Add, roll, group(next), at);
    }
    match step {
        1 | 2 => {
            let less = Expr::new(ExprKind::Number(3 - step as i64), at);
            binary(BinOp::Sub, roll, less, at)
        }
        _ => roll,
    }
}

impl Parser<'_> {
    /// `ed5` or `ed4e15` at the current word `ed`, with how many tokens it takes; `None` when the
    /// word is not a step (consuming nothing). A step past the table is an error, as in the bot.
    pub(super) fn earthdawn_step(&mut self) -> Option<(Expr, usize)> {
        let word = self.peek();
        let number = self.glued_after_at(1, word.span.end, TokenKind::Number)?;
        let fourth = self.text(number.span) == "4"
            && self
                .glued_after_at(2, number.span.end, TokenKind::Word)
                .is_some_and(|e| self.text(e.span).eq_ignore_ascii_case("e"));
        let (step_token, tokens) = if fourth {
            let e_end = number.span.end + 1;
            (self.glued_after_at(3, e_end, TokenKind::Number)?, 4)
        } else {
            (number, 2)
        };
        if !self.ends_word(tokens, step_token.span.end) {
            return None;
        }
        let at = Span::new(word.span.start, step_token.span.end);
        let table: &[&[Group]] = if fourth { &STEPS_4E } else { &STEPS };
        let step = self.text(step_token.span).parse::<usize>().unwrap_or(0);
        let Some(groups) = step.checked_sub(1).and_then(|i| table.get(i)) else {
            let name = if fourth { "ed4e" } else { "ed" };
            self.report(
                Diagnostic::error(
                    "unknown-step",
                    at,
                    format!(
                        "Dice Maiden's Earthdawn steps run from `{name}1` to `{name}{}`",
                        table.len()
                    ),
                )
                .with_help("give a step the bot's table has"),
            );
            return Some((Expr::new(ExprKind::Error, at), tokens));
        };
        if groups.iter().any(|g| !g.2) {
            self.warnings.push(
                Diagnostic::warning(
                    "alias-differs-from-table",
                    at,
                    format!(
                        "Dice Maiden's table for `ed4e{step}` leaves `ie` off some of its dice (or \
                         puts it where the bot skips it), so they do not explode when the bot \
                         rolls them; read as the bot rolls it"
                    ),
                )
                .with_help(format!(
                    "for every die exploding, write the dice with `ie` on each, as `ed{step}` \
                     writes its own"
                )),
            );
        }
        Some((step_roll(step, groups, at), tokens))
    }
}

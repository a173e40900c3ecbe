//! Roll20's forms around groups and inline rolls that Omen reads by rewriting them: a group of one
//! member with arithmetic after its dice (`{3d20+5}>21`), whose success check the Dice Reference
//! makes on each die with the arithmetic added, and an inline roll as a compare point
//! (`3d6>[[1+3]]`, `3d6>[[1d4+2]]`), which stands for its value, rolled before the dice.

use super::Parser;
use super::pieces::{shorten, single_dice};
use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{BinOp, Expr, ExprKind, Modifier, PointValue, Spanned};
use crate::syntax::dialect::GroupOfOne;
use crate::syntax::lexer::TokenKind;

impl Parser<'_> {
    /// `{3d20+5}>21f<10` in Roll20: "for each roll add 5", then count each result against the points,
    /// so the members are the single dice each with the arithmetic, `{d20 + 5, d20 + 5, d20 + 5}`.
    /// Keeping and dropping follow the same rule, a group of one member being a group of its single
    /// rolls: `{3d6+1}kh1` keeps the highest of the three `d6 + 1`. Only with success and failure
    /// points, keeps and drops on the group, and with whole numbers added, subtracted, multiplied or
    /// divided (the fraction kept: `{3d6/2}kh1`) after the dice; `None` leaves the group to the
    /// general rule.
    pub(super) fn dice_with_arithmetic(
        &self,
        member: &Expr,
        modifiers: &[Spanned<Modifier>],
    ) -> Option<Vec<Expr>> {
        if self.dialect.group_of_one != GroupOfOne::Dice
            || !modifiers.iter().all(|m| {
                matches!(
                    m.node,
                    Modifier::Success(_) | Modifier::Failure(_) | Modifier::Keep { .. }
                )
            })
        {
            return None;
        }
        let mut steps = Vec::new();
        let mut dice = member;
        loop {
            match &dice.node {
                ExprKind::Paren(inner) => dice = inner,
                ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), left, right)
                    if matches!(right.node, ExprKind::Number(_)) =>
                {
                    steps.push((Step::Binary(*op), (**right).clone()));
                    dice = left;
                }
                // Roll20's `/` keeps the fraction (`div`): `{3d6/2}kh1` keeps the highest half die.
                ExprKind::Call(name, args)
                    if name.node == "div"
                        && matches!(args.as_slice(), [_, b] if matches!(b.node, ExprKind::Number(_))) =>
                {
                    steps.push((Step::Divide(name.clone()), args[1].clone()));
                    dice = &args[0];
                }
                _ => break,
            }
        }
        let mut singles = Vec::new();
        if steps.is_empty() || !single_dice(dice, &mut singles) {
            return None;
        }
        // The steps were peeled from the outside in; each die takes them from the inside out.
        Some(
            singles
                .into_iter()
                .map(|die| {
                    steps.iter().rev().fold(die, |value, (step, number)| {
                        let span = value.span.to(number.span);
                        let node = match step {
                            Step::Binary(op) => {
                                ExprKind::Binary(*op, Box::new(value), Box::new(number.clone()))
                            }
                            Step::Divide(name) => {
                                ExprKind::Call(name.clone(), vec![value, number.clone()])
                            }
                        };
                        Expr::new(node, span)
                    })
                })
                .collect(),
        )
    }

    /// A compare point written as an inline roll, `3d6>[[1+3]]` (the lexer reads `[[…]]` as
    /// parentheses): Roll20 rolls it first and puts its total in its place. A whole number made of
    /// numbers alone is that number; a rolled one (`[[1d4+2]]`) is rolled once, before the dice, bound
    /// by a name around the term (`let inline_4 = (1d4) + 2 in 3d6>=inline_4`), so that every die is
    /// compared with the same value and the exact engine weighs each value it may take.
    pub(super) fn inline_roll_point(&mut self) -> Option<Option<PointValue>> {
        if !self.dialect.inline_rolls || self.peek().kind != TokenKind::LParen {
            return None;
        }
        let roll = self.parse_paren();
        if let Some(value) = constant(&roll) {
            return Some(Some(PointValue::Int(value)));
        }
        // Roll20's notation has no names, so one made from where the roll stands cannot clash.
        let name = Spanned::new(format!("inline_{}", roll.span.start), roll.span);
        self.warnings.push(
            Diagnostic::warning(
                "inline-point-rolled-once",
                roll.span,
                format!(
                    "the inline roll `{}` is rolled once, before the dice, and every die is compared with \
                     that one value; it is not rolled again for each die",
                    shorten(self.text(roll.span))
                ),
            )
            .with_help("to compare each die with its own roll, compare the dice one by one, e.g. `{1d6 - 1d4, 1d6 - 1d4}>0`"),
        );
        self.term.inline_points.push((name.clone(), roll));
        Some(Some(PointValue::Name(name)))
    }
}

/// One step of arithmetic after a group member's dice, applied to each single die.
enum Step {
    /// `+`, `-` or `*` a whole number.
    Binary(BinOp),
    /// `/` a whole number, keeping the fraction (the dialect's `div`).
    Divide(Spanned<String>),
}

/// The value of an expression of whole numbers, `+`, `-` and `*` alone; `None` for anything else
/// or on overflow.
fn constant(expr: &Expr) -> Option<i64> {
    // Iterative over the left spine would not cover `1+(2+3)`; the parser has bounded the depth.
    match &expr.node {
        ExprKind::Number(n) => Some(*n),
        ExprKind::Paren(inner) => constant(inner),
        ExprKind::Neg(inner) => constant(inner)?.checked_neg(),
        ExprKind::Binary(op, left, right) => {
            let (a, b) = (constant(left)?, constant(right)?);
            match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mul => a.checked_mul(b),
                _ => None,
            }
        }
        _ => None,
    }
}

impl Parser<'_> {
    /// A chat command the roll starts with (`/roll`, `/gmroll`, Avrae's `!r`), followed by whitespace:
    /// skipped, since it only says how the roll is shown. The dialect lists its commands.
    pub(super) fn skip_chat_command(&mut self) {
        let start = self.peek().span.start;
        let rest = &self.source[start..];
        let Some(command) = self.dialect.chat_commands.iter().find(|command| {
            rest.get(..command.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(command))
                && rest[command.len()..].starts_with(char::is_whitespace)
        }) else {
            return;
        };
        let end = start + command.len();
        while self.peek().kind != TokenKind::Eof && self.peek().span.end <= end {
            self.bump();
        }
    }
}

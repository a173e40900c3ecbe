//! Dice Maiden's keeps and drops (`k`, `kl`, `d`) apply in the bot's own order, whatever order they
//! are written in: "roll dice, drop dice, keep dice" (its README). Its dice library (Dice-Bag) drops
//! the lowest `d` dice first, then keeps the lowest `kl` of the rest or, without `kl`, the highest `k`;
//! of a word written twice the last counts, its options being a map by word; a drop and a highest
//! keep that together reach every die first rolled are both reset to 0 (`4d6 k3 d1` keeps all
//! four). Omen's keeps apply in the order written, so `5d6 k3 d1` would keep the highest 3 then
//! drop one of them: the term is read instead as the same dice in Dice Maiden's order, written as
//! Omen's keeps that compose: `5d6 k3 d1` as `5d6kh3`, `5d6 d1 kl2` as `5d6kl3dl1`.

use super::Parser;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, KeepWhich, Modifier, Spanned};

/// A term's keep words as Dice-Bag holds them: the last of each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Keeps {
    pub drop: Option<i64>,
    pub keep: Option<i64>,
    pub lowest: Option<i64>,
}

impl Keeps {
    /// Takes a keep word; `false` for the middle keep, which is no word of Dice-Bag's.
    pub fn take(&mut self, which: KeepWhich, count: i64) -> bool {
        match which {
            KeepWhich::DropLowest => self.drop = Some(count),
            KeepWhich::KeepHighest => self.keep = Some(count),
            KeepWhich::KeepLowest => self.lowest = Some(count),
            _ => return false,
        }
        true
    }
}

/// How many dice a term rolls first, when its count is written as a number (1 when left out).
pub(super) fn dice_first_rolled(count: Option<&Expr>) -> Option<i64> {
    match count.map(|c| &c.node) {
        None => Some(1),
        Some(ExprKind::Number(n)) => Some(*n),
        Some(_) => None,
    }
}

impl Parser<'_> {
    /// Rewrites the term's keeps and drops into Dice Maiden's order when there are two or more of
    /// them; one is read as written. See [`Self::dice_bag_keeps`].
    pub(super) fn order_dice_maiden_keeps(
        &mut self,
        count: Option<&Expr>,
        modifiers: &mut Vec<Spanned<Modifier>>,
    ) {
        if !self.dialect.game_aliases {
            return;
        }
        let kept: Vec<usize> = (0..modifiers.len())
            .filter(|&i| matches!(modifiers[i].node, Modifier::Keep { .. }))
            .collect();
        let (Some(&first), Some(&last)) = (kept.first(), kept.last()) else {
            return;
        };
        if kept.len() < 2 {
            return;
        }
        let mut keeps = Keeps::default();
        for &i in &kept {
            let Modifier::Keep { which, count } = modifiers[i].node else {
                continue;
            };
            if !keeps.take(which, count) {
                // The middle keep is no word of Dice-Bag's: left as written.
                return;
            }
        }
        let at = modifiers[first].span.to(modifiers[last].span);
        let explodes = modifiers
            .iter()
            .any(|m| matches!(m.node, Modifier::Explode { .. }));
        let dice = dice_first_rolled(count);
        let Some(read) = self.dice_bag_keeps(keeps, None, dice, explodes, at) else {
            return;
        };
        let mut index = 0;
        modifiers.retain(|_| {
            index += 1;
            !kept.contains(&(index - 1))
        });
        let position = last + 1 - kept.len();
        for (offset, modifier) in read.into_iter().enumerate() {
            modifiers.insert(position + offset, Spanned::new(modifier, at));
        }
    }

    /// The keeps as Dice-Bag runs them on `dice` dice first rolled (`None`: a rolled count), as
    /// Omen's keeps applied in order. A drop that with `k` reaches every die first rolled is reset
    /// with the keep, as the library resets them, and a warning says so; without `kl`, only the
    /// highest `botch` dice are kept too. With a drop and a keep, a count that is not a number, or
    /// an explosion when the drop and the keep together reach past the dice first rolled, is
    /// refused: what the keep leaves then depends on how many dice the drop left.
    pub(super) fn dice_bag_keeps(
        &mut self,
        mut keeps: Keeps,
        botch: Option<i64>,
        dice: Option<i64>,
        explodes: bool,
        at: Span,
    ) -> Option<Vec<Modifier>> {
        // Whatever `kl` says: the library checks the drop against `k` alone. A keep of every die
        // reset changes nothing, so only a drop is said.
        let (drop, keep) = (keeps.drop.unwrap_or(0), keeps.keep.unwrap_or(0));
        if let Some(dice) = dice
            && drop.saturating_add(keep) >= dice
        {
            if drop > 0 {
                let words = if keep > 0 {
                    format!("`d{drop}` and `k{keep}` (together they reach")
                } else {
                    format!("`d{drop}` (it reaches")
                };
                self.warn_dice_bag_reset(&[format!("{words} all {dice} dice)")], at);
            }
            (keeps.drop, keeps.keep) = (None, None);
        }
        let high = match (keeps.keep, botch) {
            (Some(k), Some(b)) => Some(k.min(b)),
            (k, b) => k.or(b),
        };
        // An explosion adds dice that are dropped and kept with the others: the number rolled is
        // then known only when the keep does not reach past it.
        let reach = match (keeps.drop, high, keeps.lowest) {
            (Some(drop), _, Some(low)) => drop.saturating_add(low),
            (Some(drop), Some(high), None) => drop.saturating_add(high),
            _ => 0,
        };
        let known = dice.filter(|&n| !explodes || reach <= n);
        let read = dice_bag_order((keeps.drop, high, keeps.lowest), known);
        if read.is_none() {
            self.report(
                Diagnostic::error(
                    "unsupported-modifier",
                    at,
                    "Dice Maiden drops dice before it keeps any, so what a keep after a drop \
                     leaves depends on how many dice were rolled: with a rolled count, or an \
                     explosion adding dice the keep reaches, that is not computed yet",
                )
                .with_help(
                    "keep no more dice than the drop leaves of those rolled first, e.g. `5d6 e d1 k3`",
                ),
            );
        }
        read
    }

    /// The words Dice-Bag resets or removes (`what`), in one warning.
    pub(super) fn warn_dice_bag_reset(&mut self, what: &[String], at: Span) {
        self.warnings.push(
            Diagnostic::warning(
                "dice-maiden-reset",
                at,
                format!(
                    "Dice Maiden's dice library ignores {}, so Omen does too",
                    what.join(", ")
                ),
            )
            .with_help("leave the word out, or give it a number the library keeps"),
        );
    }
}

/// Dice-Bag's drop, keep and lowest keep as Omen's keeps applied in order, on `dice` dice (`None`
/// when that number is unknown); `None` when the drop and a keep need that number and it is unknown.
pub(super) fn dice_bag_order(
    (drop, high, low): (Option<i64>, Option<i64>, Option<i64>),
    dice: Option<i64>,
) -> Option<Vec<Modifier>> {
    let keep = |which, count| Modifier::Keep { which, count };
    Some(match (drop, high, low) {
        // With `kl`, Dice-Bag keeps the lowest and never reads `k`.
        (None, _, Some(low)) => vec![keep(KeepWhich::KeepLowest, low)],
        (Some(drop), _, Some(low)) => vec![
            keep(KeepWhich::KeepLowest, drop.saturating_add(low).min(dice?)),
            keep(KeepWhich::DropLowest, drop),
        ],
        (Some(drop), Some(high), None) => vec![keep(
            KeepWhich::KeepHighest,
            high.min(dice?.saturating_sub(drop)).max(0),
        )],
        (Some(drop), None, None) => vec![keep(KeepWhich::DropLowest, drop)],
        (None, Some(high), None) => vec![keep(KeepWhich::KeepHighest, high)],
        (None, None, None) => Vec::new(),
    })
}

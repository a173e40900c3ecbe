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

impl Parser<'_> {
    /// Rewrites the term's keeps and drops into Dice Maiden's order when there are two or more of
    /// them; one is read as written. With a drop and a keep, a count that is not a number, or an
    /// explosion when the drop and the keep together reach past the dice first rolled, is refused:
    /// what the keep leaves then depends on how many dice the drop left.
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
        // The last of each word counts.
        let (mut drop, mut high, mut low) = (None, None, None);
        for &i in &kept {
            match modifiers[i].node {
                Modifier::Keep {
                    which: KeepWhich::DropLowest,
                    count,
                } => drop = Some(count),
                Modifier::Keep {
                    which: KeepWhich::KeepHighest,
                    count,
                } => high = Some(count),
                Modifier::Keep {
                    which: KeepWhich::KeepLowest,
                    count,
                } => low = Some(count),
                // The middle keep is no word of Dice-Bag's: left as written.
                _ => return,
            }
        }
        let at = modifiers[first].span.to(modifiers[last].span);
        if let Some(ExprKind::Number(n)) = count.map(|c| &c.node)
            && drop.unwrap_or(0).saturating_add(high.unwrap_or(0)) >= *n
        {
            (drop, high) = (None, None);
        }
        // An explosion adds dice that are dropped and kept with the others: the number rolled is
        // then known only when the keep does not reach past it.
        let explodes = modifiers
            .iter()
            .any(|m| matches!(m.node, Modifier::Explode { .. }));
        let reach = match (drop, high, low) {
            (Some(drop), _, Some(low)) => drop.saturating_add(low),
            (Some(drop), Some(high), None) => drop.saturating_add(high),
            _ => 0,
        };
        let dice = match count.map(|c| &c.node) {
            None => Some(1),
            Some(ExprKind::Number(n)) => Some(*n),
            Some(_) => None,
        }
        .filter(|&n| !explodes || reach <= n);
        let Some(read) = dice_bag_order((drop, high, low), dice) else {
            self.refuse_unknown_keep(at);
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

    /// A drop and a keep on an unknown number of dice.
    pub(super) fn refuse_unknown_keep(&mut self, at: Span) {
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

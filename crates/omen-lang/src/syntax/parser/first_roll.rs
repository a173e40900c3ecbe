//! Foundry's order of modifiers read as Omen's: a reroll or clamp before `x` shapes the first rolls.

use crate::span::Span;
use crate::syntax::ast::{Modifier, Spanned};

/// Foundry applies a term's modifiers in the order written, each to the dice present when it runs:
/// a reroll or clamp written before `x` has run before the explosion adds any die, so it shaped the
/// first rolls only, and the added dice are plain (`3d6r1x` is Omen's `3d6ro1!a`). Written after
/// `x`, it runs over every die, the added ones too, as Omen's steps after `!` do (`3d6xr1`).
pub(super) fn steps_shape_first_roll(modifiers: &mut Vec<Spanned<Modifier>>) {
    let Some(at) = modifiers
        .iter()
        .position(|m| matches!(m.node, Modifier::Explode { .. }))
    else {
        return;
    };
    let shaped = modifiers[..at].iter().any(|m| {
        matches!(
            m.node,
            Modifier::RerollOnce(_)
                | Modifier::RerollRecursive(_)
                | Modifier::ClampMin(_)
                | Modifier::ClampMax(_)
        )
    });
    let marked = modifiers
        .get(at + 1)
        .is_some_and(|m| m.node == Modifier::PlainAdded);
    if shaped && !marked {
        let end = modifiers[at].span.end;
        modifiers.insert(
            at + 1,
            Spanned::new(Modifier::PlainAdded, Span::new(end, end)),
        );
    }
}

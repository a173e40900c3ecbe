//! Warnings in Omen's notation where Foundry, running a term's modifiers in the order written over
//! the dice present, reads the same term another way (see docs/dialects.md, "Where the rollers
//! disagree"): a reroll or explosion after a keep touches the kept dice only there, and a clamp
//! changes only what a die counts, never the face a later count or explosion compares.

use super::Parser;
use super::pieces::shorten;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{Modifier, Spanned};

impl Parser<'_> {
    /// Warns once per disagreement found among a dice term's modifiers.
    pub(super) fn warn_foundry_order(&mut self, modifiers: &[Spanned<Modifier>]) {
        if !self.dialect.warn_other_readings {
            return;
        }
        let is_keep = |m: &Modifier| matches!(m, Modifier::Keep { .. } | Modifier::KeepEnds { .. });
        let is_step = |m: &Modifier| {
            matches!(
                m,
                Modifier::RerollOnce(_) | Modifier::RerollRecursive(_) | Modifier::Explode { .. }
            )
        };
        let is_clamp = |m: &Modifier| matches!(m, Modifier::ClampMin(_) | Modifier::ClampMax(_));
        let is_count = |m: &Modifier| matches!(m, Modifier::Success(_) | Modifier::Failure(_));
        if let Some(at) = first_pair(modifiers, is_keep, is_step) {
            self.warn_order(
                "step-after-keep-differs-in-foundry",
                at,
                "runs the reroll or explosion over every die before the keep; Foundry and Avrae \
                 reroll or explode the kept dice only",
                "write the step before the keep to say it plainly",
            );
        }
        if let Some(at) = first_pair(modifiers, is_clamp, is_count) {
            self.warn_order(
                "clamp-then-count-differs-in-foundry",
                at,
                "counts the clamped faces; Foundry's clamp changes only what a die counts, and its \
                 count compares the face rolled",
                "count before clamping, or leave the clamp out, to say it plainly",
            );
        }
        let plain_after = |at: usize| {
            modifiers
                .get(at + 1)
                .is_some_and(|m| m.node == Modifier::PlainAdded)
        };
        let explosion = modifiers
            .iter()
            .position(|m| matches!(m.node, Modifier::Explode { .. }));
        if let Some(x) = explosion.filter(|&x| !plain_after(x))
            && let Some(clamp) = modifiers[..x].iter().find(|m| is_clamp(&m.node))
        {
            self.warn_order(
                "clamp-before-explosion-differs-in-foundry",
                clamp.span.to(modifiers[x].span),
                "clamps every die, the added ones too, and explodes on the clamped face; Foundry \
                 clamps what the first rolls count, explodes on the face rolled, and adds plain dice",
                "mark the added dice plain with `a` after `!` (`3d6min2!a`) for Foundry's first \
                 rolls",
            );
        }
    }

    fn warn_order(&mut self, kind: &'static str, at: Span, what: &str, help: &str) {
        let written = shorten(self.text(at));
        self.warnings
            .push(Diagnostic::warning(kind, at, format!("`{written}` {what}")).with_help(help));
    }
}

/// The span from the first modifier `first` holds for to the first after it `then` holds for.
fn first_pair(
    modifiers: &[Spanned<Modifier>],
    first: impl Fn(&Modifier) -> bool,
    then: impl Fn(&Modifier) -> bool,
) -> Option<Span> {
    let at = modifiers.iter().position(|m| first(&m.node))?;
    let later = modifiers[at..].iter().find(|m| then(&m.node))?;
    Some(modifiers[at].span.to(later.span))
}

//! What can be known about a fixed die's faces before rolling: rerolls that leave no face,
//! explosions that never stop, and points that no face can meet.

use omen_core::{CoreError, Die, DieStep, Distribution, Keep, step_prefixes};

use super::Checker;
use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::program::{DiceNode, NodeKind};
use crate::span::Span;
use crate::syntax::ast::{Modifier, Spanned};
use crate::value::Value;

/// A dice term as written, for the spans of warnings.
struct Written<'w> {
    span: Span,
    modifiers: &'w [Spanned<Modifier>],
}

impl Written<'_> {
    /// A warning points at the modifier it is about, or at the whole term if none was written.
    fn at(&self, is: fn(&Modifier) -> bool) -> Span {
        self.modifiers
            .iter()
            .find(|m| is(&m.node))
            .map_or(self.span, |m| m.span)
    }
}

impl Checker<'_> {
    /// Checks what can be known about a fixed die before rolling: rerolls that leave no face, and
    /// compare points that no face can meet.
    pub(super) fn check_die(
        &mut self,
        span: Span,
        die: &Die,
        node: &DiceNode,
        written: &[Spanned<Modifier>],
    ) -> Option<()> {
        let written = Written {
            span,
            modifiers: written,
        };
        if node.before.is_empty()
            && node.after.is_empty()
            && node.explosion.is_none()
            && node.success.is_none()
            && node.unique.is_none()
        {
            // No step, explosion, success point or uniqueness: nothing about the faces to check.
            return Some(());
        }
        let (dist, decided) = self.faces_after_steps(&written, die, node)?;
        if node.explosion.is_some() {
            self.check_explosion_depth(&written, node, &decided)?;
        }
        self.warn_explode_point_without_count(
            node,
            &decided,
            written.at(|m| matches!(m, Modifier::Explode { .. })),
        );
        self.warn_unique_impossible(&written, die, node, &dist);
        self.warn_unreachable_success(&written, die, node, &dist);
        Some(())
    }

    /// The die's faces after its steps, and the faces its explosion decides on; `None` (with the
    /// error) when the steps leave no face or cost too much to compute.
    fn faces_after_steps(
        &mut self,
        written: &Written,
        die: &Die,
        node: &DiceNode,
    ) -> Option<(Distribution<i64>, Distribution<i64>)> {
        // Steps written after a compounding explosion see the compounded total, which can pass every
        // face (`d6!!rr<=6` rerolls totals of 6 or less): only the steps before it are checked on faces.
        let compounds = matches!(node.explosion, Some((true, _)));
        let steps: Vec<DieStep> = if compounds {
            node.before.clone()
        } else {
            node.before.iter().chain(&node.after).copied().collect()
        };
        match step_prefixes(die.distribution(), &steps, &mut self.budget) {
            Ok(mut prefixes) => {
                // The explosion decides on the faces after the steps before it, not after later
                // clamps (`1d6!>=2min2` does not explode on every face).
                let decided = prefixes.swap_remove(node.before.len().min(prefixes.len() - 1));
                let dist = prefixes.pop().unwrap_or_else(|| decided.clone());
                Some((dist, decided))
            }
            Err(CoreError::RerollEverything) => {
                let at = written.at(|m| matches!(m, Modifier::RerollRecursive(_)));
                self.error(core_diagnostic(&CoreError::RerollEverything, at));
                None
            }
            Err(e) => {
                // A reroll redraws the die as rerolled so far: its exact weights double in length
                // with each one, and a long chain of them is refused here, before any evaluation.
                self.error(core_diagnostic(&e, written.span).with_help(
                    "each reroll redraws the die as rerolled before it, so every one doubles the size \
                     of its exact odds; write fewer rerolls, e.g. one `ro` with a wider point (`ro<=2`)",
                ));
                None
            }
        }
    }

    /// An explosion is refused when the depth limit forbids any, and warned about when every face
    /// the steps before it leave explodes.
    fn check_explosion_depth(
        &mut self,
        written: &Written,
        node: &DiceNode,
        decided: &Distribution<i64>,
    ) -> Option<()> {
        if let Err(e) = self.limits.check_explode_depth() {
            self.error(core_diagnostic(&e, written.span));
            return None;
        }
        if let Some((_, Some(c))) = node.explosion
            && decided.outcomes().all(|&x| c.holds(x))
        {
            let at = written.at(|m| matches!(m, Modifier::Explode { .. }));
            self.warnings.push(
                Diagnostic::warning(
                    "always-explodes",
                    at,
                    format!("every face meets `{c}`, so each die explodes until the depth limit"),
                )
                .with_help("explode on fewer faces, e.g. `!` for the highest face only"),
            );
        }
        Some(())
    }

    /// More dice than values, all to be rerolled until unique: the last ones cannot differ.
    fn warn_unique_impossible(
        &mut self,
        written: &Written,
        die: &Die,
        node: &DiceNode,
        dist: &Distribution<i64>,
    ) {
        if let (Some(unique), NodeKind::Const(Value::Int(count))) = (node.unique, &node.count.kind)
            && !unique.once
            && usize::try_from(*count).is_ok_and(|n| n > dist.len())
            && dist
                .outcomes()
                .all(|&x| unique.condition.is_none_or(|c| c.holds(x)))
        {
            let at = written.at(|m| matches!(m, Modifier::Unique { .. }));
            self.warnings.push(
                Diagnostic::warning(
                    "unique-impossible",
                    at,
                    format!(
                        "{count} dice cannot all differ: {die} shows {} values, so each die after \
                         the first {} keeps a value an earlier die took",
                        dist.len(),
                        dist.len()
                    ),
                )
                .with_help(
                    "rpg-dice-roller gives up rerolling such a die after 1000 tries and keeps its roll; \
                     Omen keeps it at once, which gives the same distribution",
                ),
            );
        }
    }

    /// A success point no face can meet counts 0 dice on every roll; `1d20+5>=15` written without
    /// spaces is the usual way to get one.
    fn warn_unreachable_success(
        &mut self,
        written: &Written,
        die: &Die,
        node: &DiceNode,
        dist: &Distribution<i64>,
    ) {
        let compounds = matches!(node.explosion, Some((true, _)));
        // Compounded dice reach values beyond the faces; only warn when no compounding is involved.
        if let Some(c) = node.success
            && !compounds
            && !dist.outcomes().any(|&x| c.holds(x))
        {
            let at = written.at(|m| matches!(m, Modifier::Success(_)));
            let point = &self.source[at.start..at.end];
            let op_len = point.len() - point.trim_start_matches(['>', '<', '=']).len();
            let op = &point[..op_len];
            // Only the whole left side is known to the reader; naming a part of it would be a wrong fix.
            // A point written without a comparison (Foundry's `cf-1`, `cs6`) is no misplaced total
            // comparison: the hint then names the point as it was read.
            let help = if op.is_empty() {
                format!(
                    "`{point}` is read as the point `{c}`; choose a value a face of {die} can show"
                )
            } else {
                format!(
                    "to compare a total instead, put spaces around `{op}` (whitespace ends a dice term), or \
                     put the whole left side in parentheses, e.g. `(1d20 + 5) {op} 15`"
                )
            };
            self.warnings.push(
                Diagnostic::warning(
                    "unreachable-success",
                    at,
                    format!("no face of {die} can meet `{c}`, so this counts 0 dice on every roll"),
                )
                .with_help(help),
            );
        }
    }

    /// `8d10!>=8` explodes every die of 8 or more and adds the dice up, as the notation says; a World
    /// of Darkness player who writes it means "explode the 10s, count the dice of 8 or more", which
    /// is `8d10!10>=8`. A pool of several dice, exploding on more than one face, neither counted nor
    /// kept, is read as written with a warning that names the other reading.
    fn warn_explode_point_without_count(
        &mut self,
        node: &DiceNode,
        faces: &Distribution<i64>,
        at: Span,
    ) {
        let (Some((false, Some(c))), None, Keep::All, None) =
            (node.explosion, node.success, node.keep, &node.ends)
        else {
            return;
        };
        let several = matches!(node.count.kind, NodeKind::Const(Value::Int(n)) if n >= 2);
        let exploding = faces.outcomes().filter(|&&x| c.holds(x)).count();
        let Some(&top) = faces.outcomes().last() else {
            return;
        };
        if !several || exploding < 2 || exploding == faces.len() {
            return;
        }
        let term = &node.notation;
        let written = &self.source[at.start..at.end];
        let before = term.find(written).map_or(term.as_str(), |i| &term[..i]);
        self.warnings.push(
            Diagnostic::warning(
                "explode-point-not-counted",
                at,
                format!(
                    "`{written}` explodes every die that meets `{c}` and adds the dice up; it does \
                     not count the dice that meet it"
                ),
            )
            .with_help(format!(
                "to explode only the highest face and count the dice that meet `{c}` (World of \
                 Darkness), write `{before}!{top}{c}`; to explode and count on the same faces, \
                 `{before}{written}{c}`"
            )),
        );
    }
}

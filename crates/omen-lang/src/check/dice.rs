//! Checking dice terms and groups: the die, its sides, the points no face can meet.

use omen_core::{Condition, CoreError, Die, DieStep, Keep, step_prefixes};

use super::{Checker, condition};
use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::program::{DiceNode, GroupNode, Node, NodeKind, SidesNode, Type};
use crate::span::Span;
use crate::syntax::ast::{self, ComparePoint, FaceItem, Modifier, PointValue, Sides, Spanned};
use crate::value::Value;

impl Checker<'_> {
    pub(super) fn dice(&mut self, span: Span, dice: &ast::DiceExpr) -> Option<Node> {
        let count = match &dice.count {
            None => Some(Node {
                span: Span::new(span.start, span.start),
                ty: Type::Int,
                kind: NodeKind::Const(Value::Int(1)),
            }),
            Some(c) => self
                .expr(c)
                .filter(|n| self.expect_int(n, "the number of dice")),
        };
        if let Some(Node {
            kind: NodeKind::Const(Value::Int(n)),
            span,
            ..
        }) = &count
            && let Err(e) = self.limits.check_dice(*n)
        {
            self.errors.push(core_diagnostic(&e, *span));
        }
        let sides = self.sides(&dice.sides);
        let mods = self.modifiers(&dice.modifiers, true);
        let (count, sides, mods) = (count?, sides?, mods?);
        let notation = self.source[span.start..span.end].to_string();
        let node = DiceNode {
            notation,
            count,
            sides,
            before: mods.before,
            explosion: mods.explosion,
            explode_once: mods.explode_once,
            penetrate: mods.penetrate,
            critical_success: mods.critical_success,
            critical_failure: mods.critical_failure,
            sort: mods.sort,
            matching: mods.matching,
            unique: mods.unique,
            after: mods.after,
            keep: mods.keep,
            ends: mods.ends,
            success: mods.success,
            failure: mods.failure,
            points: mods.points,
            success_at: dice
                .modifiers
                .iter()
                .find(|m| matches!(m.node, Modifier::Success(_)))
                .map(|m| m.span.start - span.start),
        };
        if let (SidesNode::Fixed(die), true) = (&node.sides, node.points.is_empty()) {
            self.check_die(span, die, &node, &dice.modifiers)?;
        }
        Some(Node {
            span,
            ty: Type::Int,
            kind: NodeKind::Dice(Box::new(node)),
        })
    }

    /// Checks what can be known about a fixed die before rolling: rerolls that leave no face, and
    /// compare points that no face can meet.
    pub(super) fn check_die(
        &mut self,
        span: Span,
        die: &Die,
        node: &DiceNode,
        written: &[Spanned<Modifier>],
    ) -> Option<()> {
        // A warning points at the modifier it is about, or at the whole term if none was written.
        let written_at = |is: fn(&Modifier) -> bool| {
            written
                .iter()
                .find(|m| is(&m.node))
                .map_or(span, |m| m.span)
        };
        // Steps written after a compounding explosion see the compounded total, which can pass every
        // face (`d6!!rr<=6` rerolls totals of 6 or less): only the steps before it are checked on faces.
        if node.before.is_empty()
            && node.after.is_empty()
            && node.explosion.is_none()
            && node.success.is_none()
            && node.unique.is_none()
        {
            // No step, explosion, success point or uniqueness: nothing about the faces to check.
            return Some(());
        }
        let compounds = matches!(node.explosion, Some((true, _)));
        let steps: Vec<DieStep> = if compounds {
            node.before.clone()
        } else {
            node.before.iter().chain(&node.after).copied().collect()
        };
        let (dist, decided) = match step_prefixes(die.distribution(), &steps, &mut self.budget) {
            Ok(mut prefixes) => {
                // The explosion decides on the faces after the steps before it, not after later
                // clamps (`1d6!>=2min2` does not explode on every face).
                let decided = prefixes.swap_remove(node.before.len().min(prefixes.len() - 1));
                let dist = prefixes.pop().unwrap_or_else(|| decided.clone());
                (dist, decided)
            }
            Err(CoreError::RerollEverything) => {
                let at = written_at(|m| matches!(m, Modifier::RerollRecursive(_)));
                self.error(core_diagnostic(&CoreError::RerollEverything, at));
                return None;
            }
            Err(e) => {
                // A reroll redraws the die as rerolled so far: its exact weights double in length
                // with each one, and a long chain of them is refused here, before any evaluation.
                self.error(core_diagnostic(&e, span).with_help(
                    "each reroll redraws the die as rerolled before it, so every one doubles the size \
                     of its exact odds; write fewer rerolls, e.g. one `ro` with a wider point (`ro<=2`)",
                ));
                return None;
            }
        };
        if node.explosion.is_some() {
            if let Err(e) = self.limits.check_explode_depth() {
                self.error(core_diagnostic(&e, span));
                return None;
            }
            if let Some((_, Some(c))) = node.explosion
                && decided.outcomes().all(|&x| c.holds(x))
            {
                let at = written_at(|m| matches!(m, Modifier::Explode { .. }));
                self.warnings.push(
                    Diagnostic::warning(
                        "always-explodes",
                        at,
                        format!(
                            "every face meets `{c}`, so each die explodes until the depth limit"
                        ),
                    )
                    .with_help("explode on fewer faces, e.g. `!` for the highest face only"),
                );
            }
        }
        self.warn_explode_point_without_count(
            node,
            &decided,
            written_at(|m| matches!(m, Modifier::Explode { .. })),
        );
        if let (Some(unique), NodeKind::Const(Value::Int(count))) = (node.unique, &node.count.kind)
            && !unique.once
            && usize::try_from(*count).is_ok_and(|n| n > dist.len())
            && dist
                .outcomes()
                .all(|&x| unique.condition.is_none_or(|c| c.holds(x)))
        {
            let at = written_at(|m| matches!(m, Modifier::Unique { .. }));
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
        // Compounded dice reach values beyond the faces; only warn when no compounding is involved.
        if let Some(c) = node.success
            && !compounds
            && !dist.outcomes().any(|&x| c.holds(x))
        {
            let at = written_at(|m| matches!(m, Modifier::Success(_)));
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
        Some(())
    }

    /// `8d10!>=8` explodes every die of 8 or more and adds the dice up, as the notation says; a World
    /// of Darkness player who writes it means "explode the 10s, count the dice of 8 or more", which
    /// is `8d10!10>=8`. A pool of several dice, exploding on more than one face, neither counted nor
    /// kept, is read as written with a warning that names the other reading.
    pub(super) fn warn_explode_point_without_count(
        &mut self,
        node: &DiceNode,
        faces: &omen_core::Distribution<i64>,
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

    pub(super) fn sides(&mut self, sides: &Spanned<Sides>) -> Option<SidesNode> {
        let span = sides.span;
        match &sides.node {
            Sides::Percent => Some(SidesNode::Fixed(Die::Standard(100))),
            Sides::Fudge => Some(SidesNode::Fixed(Die::Fudge)),
            Sides::Number(e) => {
                let node = self.expr(e)?;
                if !self.expect_int(&node, "the number of sides") {
                    return None;
                }
                if let NodeKind::Const(Value::Int(n)) = node.kind {
                    return match Die::standard(n, self.limits) {
                        Ok(d) => Some(SidesNode::Fixed(d)),
                        Err(err) => {
                            self.errors.push(core_diagnostic(&err, node.span));
                            None
                        }
                    };
                }
                Some(SidesNode::Random(node))
            }
            Sides::Custom(items) => {
                let mut faces = Vec::new();
                for item in items {
                    match item.node {
                        FaceItem::Face(f) => faces.push(f),
                        FaceItem::Range(lo, hi) => {
                            let n = (hi as i128 - lo as i128 + 1).max(0) as u128;
                            if faces.len() as u128 + n > self.limits.max_sides as u128 {
                                let e = CoreError::TooManySides {
                                    sides: i64::try_from(faces.len() as u128 + n)
                                        .unwrap_or(i64::MAX),
                                    limit: self.limits.max_sides,
                                };
                                self.error(core_diagnostic(&e, item.span));
                                return None;
                            }
                            faces.extend(lo..=hi);
                        }
                    }
                }
                match Die::custom(faces, self.limits) {
                    Ok(d) => Some(SidesNode::Fixed(d)),
                    Err(err) => {
                        self.error(core_diagnostic(&err, span));
                        None
                    }
                }
            }
        }
    }

    pub(super) fn group(&mut self, span: Span, group: &ast::GroupExpr) -> Option<Node> {
        let members: Vec<Option<Node>> = group.members.iter().map(|m| self.expr(m)).collect();
        let mods = self.modifiers(&group.modifiers, false);
        let members: Vec<Node> = members.into_iter().collect::<Option<_>>()?;
        for m in &members {
            if !self.expect_int(m, "a group member") {
                return None;
            }
        }
        let mods = mods?;
        Some(Node {
            span,
            ty: Type::Int,
            kind: NodeKind::Group(Box::new(GroupNode {
                members,
                keep: mods.keep,
                success: mods.success,
                failure: mods.failure,
                points: mods.points,
            })),
        })
    }

    /// The condition of a point that must be a number (a name is refused: the walks over the whole
    /// pool are computed before any name has a value).
    pub(super) fn number_point(
        &mut self,
        point: Option<&ComparePoint>,
        what: &str,
        example: &str,
    ) -> Option<Condition> {
        match point {
            Some(ComparePoint {
                value: PointValue::Name(name),
                ..
            }) => {
                self.errors.push(
                    Diagnostic::error(
                        "bad-point",
                        name.span,
                        format!("the point of {what} takes a number, not a name"),
                    )
                    .with_help(format!("write the number, e.g. {example}")),
                );
                None
            }
            Some(p) => Some(condition(p)),
            None => None,
        }
    }

    /// Records a rule over the whole pool (matching, unique rerolls): on dice only, one per term.
    pub(super) fn set_rule(
        &mut self,
        on_dice: bool,
        first: &mut Option<Span>,
        at: Span,
        what: &str,
    ) {
        if !on_dice {
            self.errors.push(
                Diagnostic::error(
                    "bad-group-modifier",
                    at,
                    format!("{what} applies to dice, not to groups"),
                )
                .with_help("put it on the dice inside the group, e.g. `{4d6m, 1d8}`"),
            );
        } else if first.is_some() {
            self.errors.push(
                Diagnostic::error(
                    "unsupported-modifier",
                    at,
                    "one dice term takes one of matching and unique rerolls, once",
                )
                .with_help("split the roll into two dice terms"),
            );
        }
        first.get_or_insert(at);
    }
}

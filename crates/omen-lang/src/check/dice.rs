//! Checking dice terms and groups: the count, the die and its sides, and points given as numbers.

use omen_core::{Condition, CoreError, Die};

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
            first_only: mods.first_only.is_some(),
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

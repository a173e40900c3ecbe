//! Checking a dice term's modifiers: their order, duplicates, points and what they combine into.

use omen_core::{Condition, DieStep, Keep, Matching, Unique};

use super::{Checker, compose_keep, condition};
use crate::diagnostic::Diagnostic;
use crate::program::{Node, NodeKind, PointTarget, Type};
use crate::span::Span;
use crate::syntax::ast::{ComparePoint, KeepWhich, Modifier, PointValue, Spanned};

impl Checker<'_> {
    pub(super) fn modifiers(
        &mut self,
        mods: &[Spanned<Modifier>],
        on_dice: bool,
    ) -> Option<Modifiers> {
        let mut out = Modifiers {
            before: Vec::new(),
            explosion: None,
            explode_once: false,
            penetrate: false,
            critical_success: None,
            critical_failure: None,
            sort: None,
            after: Vec::new(),
            keep: Keep::All,
            ends: None,
            success: None,
            failure: None,
            points: Vec::new(),
            matching: None,
            unique: None,
        };
        let mut ends_span: Option<Span> = None;
        let errors_before = self.errors.len();
        let mut set_span: Option<Span> = None;
        let mut success_span: Option<Span> = None;
        let mut failure_span: Option<Span> = None;
        let mut explode_span: Option<Span> = None;
        for m in mods {
            let target = match &m.node {
                Modifier::Explode { .. } => Some(PointTarget::Explode),
                Modifier::RerollOnce(_) | Modifier::RerollRecursive(_) => {
                    Some(if explode_span.is_some() {
                        PointTarget::After(out.after.len())
                    } else {
                        PointTarget::Before(out.before.len())
                    })
                }
                Modifier::Success(_) => Some(PointTarget::Success),
                Modifier::Failure(_) => Some(PointTarget::Failure),
                _ => None,
            };
            let point = m.node.point();
            if let (
                Some(target),
                Some(ComparePoint {
                    value: PointValue::Name(name),
                    ..
                }),
            ) = (target, point)
            {
                match self.lookup(&name.node) {
                    Some(slot) => out.points.push((
                        target,
                        Node {
                            span: name.span,
                            ty: Type::Any,
                            kind: NodeKind::Var(slot, name.node.clone()),
                        },
                    )),
                    None => self.errors.push(
                        Diagnostic::error(
                            "unknown-name",
                            name.span,
                            format!("unknown name `{}`", name.node),
                        )
                        .with_help(format!("declare it first, e.g. `param {} = 8;`", name.node)),
                    ),
                }
            }
            let per_die = match &m.node {
                &Modifier::Explode {
                    compound,
                    ref point,
                    once,
                    penetrate,
                } => {
                    out.explode_once = once;
                    out.penetrate = penetrate;
                    if let Some(first) = explode_span {
                        self.errors.push(
                            Diagnostic::error(
                                "duplicate-modifier",
                                m.span,
                                "a dice term can explode only once",
                            )
                            .with_help(format!(
                                "combine the conditions into one, or remove the explosion at {}..{}",
                                first.start, first.end
                            )),
                        );
                    }
                    explode_span = Some(m.span);
                    out.explosion = Some((compound, point.as_ref().map(condition)));
                    None
                }
                Modifier::RerollOnce(p) => Some(DieStep::RerollOnce(condition(p))),
                Modifier::RerollRecursive(p) => Some(DieStep::RerollUntil(condition(p))),
                Modifier::ClampMin(v) => Some(DieStep::ClampMin(*v)),
                Modifier::ClampMax(v) => Some(DieStep::ClampMax(*v)),
                &Modifier::Keep { which, count } => {
                    let n = usize::try_from(count).unwrap_or(0);
                    let keep = match which {
                        KeepWhich::KeepHighest => Keep::Highest(n),
                        KeepWhich::KeepLowest => Keep::Lowest(n),
                        KeepWhich::DropHighest => Keep::DropHighest(n),
                        KeepWhich::DropLowest => Keep::DropLowest(n),
                        KeepWhich::KeepMiddle => Keep::Middle(n),
                    };
                    if which == KeepWhich::KeepMiddle {
                        self.warnings.push(
                            Diagnostic::warning(
                                "keep-middle-odd-die",
                                m.span,
                                format!(
                                    "`km{count}` keeps the middle {count}: when an odd number of dice is \
                                     left out, the extra one is a highest die (as Dice Maiden does), \
                                     not a lowest"
                                ),
                            )
                            .with_help(
                                "to leave out the extra lowest die instead, drop both ends, e.g. \
                                 `5d6dl2dh1` for the middle 2 of 5",
                            ),
                        );
                    }
                    // Two keep/drop modifiers apply in order (`3d6kh2dl1` keeps the highest one).
                    out.keep = match compose_keep(out.keep, keep) {
                        Some(composed) => composed,
                        None => {
                            self.errors.push(
                                Diagnostic::error(
                                    "middle-keep",
                                    m.span,
                                    "the dice this keep or drop leaves after the one before it depend on \
                                     how many were rolled, which is not computed yet",
                                )
                                .with_help(
                                    "keep from one end in a nested term instead, e.g. `{4d6dl1}kh1`",
                                ),
                            );
                            keep
                        }
                    };
                    None
                }
                &Modifier::KeepEnds {
                    highest,
                    lowest,
                    drop,
                } => {
                    out.ends = Some(crate::keep_ends::KeepEnds::new(highest, lowest, drop));
                    ends_span = Some(m.span);
                    None
                }
                Modifier::Success(p) => {
                    if success_span.is_some() {
                        self.errors.push(Diagnostic::error(
                            "duplicate-modifier",
                            m.span,
                            "only one success point is allowed per term",
                        ));
                    }
                    success_span = Some(m.span);
                    out.success = Some(condition(p));
                    None
                }
                Modifier::Critical { failure, point } => {
                    let point = match point {
                        Some(ComparePoint {
                            value: PointValue::Name(name),
                            ..
                        }) => {
                            self.errors.push(
                                Diagnostic::error(
                                    "bad-point",
                                    name.span,
                                    "a critical mark takes a number, not a name",
                                )
                                .with_help("write the number, e.g. `cs>=19`"),
                            );
                            None
                        }
                        Some(p) => Some(condition(p)),
                        None => None,
                    };
                    if !on_dice {
                        self.errors.push(
                            Diagnostic::error(
                                "bad-group-modifier",
                                m.span,
                                "critical marks apply to dice, not to groups",
                            )
                            .with_help("mark the dice inside the group, e.g. `{1d20cs>=19, 1d20}`"),
                        );
                    }
                    if *failure {
                        out.critical_failure = Some(point);
                    } else {
                        out.critical_success = Some(point);
                    }
                    None
                }
                Modifier::Match { total, size, point } => {
                    let condition = self.number_point(point.as_ref(), "matching", "`mt>=4`");
                    let size = size.unwrap_or(2);
                    if size < 2 {
                        self.errors.push(
                            Diagnostic::error(
                                "bad-set-size",
                                m.span,
                                format!("a set of matching dice has at least 2 dice, not {size}"),
                            )
                            .with_help("write the smallest set after the word, e.g. `mt3`, or none for pairs"),
                        );
                    }
                    self.set_rule(on_dice, &mut set_span, m.span, "matching");
                    out.matching = Some(Matching {
                        size: usize::try_from(size).unwrap_or(2),
                        condition,
                        total: *total,
                    });
                    None
                }
                Modifier::Unique { once, point } => {
                    let condition = self.number_point(point.as_ref(), "a unique reroll", "`u=5`");
                    self.set_rule(on_dice, &mut set_span, m.span, "unique rerolls");
                    out.unique = Some(Unique {
                        once: *once,
                        condition,
                    });
                    None
                }
                Modifier::Sort { descending } => {
                    if !on_dice {
                        self.errors.push(
                            Diagnostic::error(
                                "bad-group-modifier",
                                m.span,
                                "sorting applies to dice, not to groups",
                            )
                            .with_help("sort the dice inside the group, e.g. `{4d6sa, 1d8}`"),
                        );
                    }
                    out.sort = Some(*descending);
                    None
                }
                Modifier::Failure(p) => {
                    if failure_span.is_some() {
                        self.errors.push(Diagnostic::error(
                            "duplicate-modifier",
                            m.span,
                            "only one failure point is allowed per term",
                        ));
                    }
                    failure_span = Some(m.span);
                    out.failure = Some(condition(p));
                    None
                }
            };
            if let Some(step) = per_die {
                if !on_dice {
                    self.errors.push(
                        Diagnostic::error(
                            "bad-group-modifier",
                            m.span,
                            "rerolls and clamps apply to dice, not to groups",
                        )
                        .with_help(
                            "put the modifier on the dice inside the group, e.g. `{4d6ro1, 2d8}`",
                        ),
                    );
                } else if explode_span.is_some() {
                    out.after.push(step);
                } else {
                    out.before.push(step);
                }
            }
        }
        if let Some(at) = explode_span
            && !on_dice
        {
            self.errors.push(
                Diagnostic::error("bad-group-modifier", at, "groups cannot explode")
                    .with_help("explode the dice inside the group, e.g. `{2d6!, 1d8}`"),
            );
        }
        if let Some(at) = explode_span
            && out.penetrate
            && out.explosion.is_some_and(|(compound, _)| !compound)
            && out.keep != Keep::All
        {
            self.errors.push(
                Diagnostic::error(
                    "unsupported-modifier",
                    at,
                    "a penetrating explosion (`!p`) with keep or drop is not computed yet",
                )
                .with_help("compound it (`!!p`): a compounded die is kept or dropped whole"),
            );
        }
        if let Some(at) = set_span {
            let refusal = if explode_span.is_some() {
                Some((
                    "unique rerolls and matching on exploding dice are not computed yet",
                    "explode in one term and match or reroll in another",
                ))
            } else if out.matching.is_some_and(|m| m.total) && success_span.is_some() {
                Some((
                    "`mt` makes the result the number of sets, so a success point cannot count too",
                    "count the successes in another term, or mark the sets with `m`",
                ))
            } else {
                None
            };
            if let Some((message, help)) = refusal {
                self.errors
                    .push(Diagnostic::error("unsupported-modifier", at, message).with_help(help));
            }
        }
        if let Some(at) = ends_span
            && let Some(why) = crate::keep_ends::refusal(
                on_dice,
                out.keep != Keep::All || explode_span.is_some() || set_span.is_some(),
                success_span.is_some(),
            )
        {
            self.errors.push(
                Diagnostic::error("unsupported-modifier", at, why)
                    .with_help("keep one end, e.g. `kh1`, or roll the ends in separate terms"),
            );
        }
        if let (Some(f), None) = (failure_span, success_span) {
            self.errors.push(
                Diagnostic::error(
                    "failure-without-success",
                    f,
                    "a failure point needs a success point before it",
                )
                .with_help("count successes first, e.g. `10d12>=8f<=1`"),
            );
        }
        (self.errors.len() == errors_before).then_some(out)
    }
}

pub(super) struct Modifiers {
    pub(super) matching: Option<Matching>,
    pub(super) unique: Option<Unique>,
    pub(super) before: Vec<DieStep>,
    pub(super) explosion: Option<(bool, Option<Condition>)>,
    pub(super) explode_once: bool,
    pub(super) penetrate: bool,
    pub(super) critical_success: Option<Option<Condition>>,
    pub(super) critical_failure: Option<Option<Condition>>,
    pub(super) sort: Option<bool>,
    pub(super) after: Vec<DieStep>,
    pub(super) keep: Keep,
    pub(super) ends: Option<crate::keep_ends::KeepEnds>,
    pub(super) success: Option<Condition>,
    pub(super) failure: Option<Condition>,
    pub(super) points: Vec<(PointTarget, Node)>,
}

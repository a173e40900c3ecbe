//! Checking a dice term's modifiers: their order, duplicates, points and what they combine into.

use omen_core::{Condition, DieStep, Keep, Matching, Unique};

use super::{Checker, compose_keep, condition};
use crate::diagnostic::Diagnostic;
use crate::program::{Node, NodeKind, PointTarget, Type};
use crate::span::Span;
use crate::syntax::ast::{ComparePoint, KeepWhich, Modifier, PointValue, Spanned};

/// A term's modifiers as read so far, and where the ones that rule out others were written.
struct Term {
    /// Whether the modifiers are on dice (`4d6kh3`) rather than on a group (`{…}kh1`).
    on_dice: bool,
    out: Modifiers,
    explode: Option<Span>,
    ends: Option<Span>,
    /// The rule over the whole pool (matching or unique rerolls).
    set: Option<Span>,
    success: Option<Span>,
    failure: Option<Span>,
}

impl Checker<'_> {
    pub(super) fn modifiers(
        &mut self,
        mods: &[Spanned<Modifier>],
        on_dice: bool,
    ) -> Option<Modifiers> {
        let mut term = Term {
            on_dice,
            out: Modifiers {
                before: Vec::new(),
                explosion: None,
                explode_once: false,
                penetrate: false,
                first_only: None,
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
            },
            explode: None,
            ends: None,
            set: None,
            success: None,
            failure: None,
        };
        let errors_before = self.errors.len();
        for m in mods {
            self.named_point(m, &mut term);
            if let Some(step) = self.read_modifier(m, &mut term) {
                self.place_step(step, m.span, &mut term);
            }
        }
        self.refuse_combinations(&term);
        self.refuse_first_only(&term.out, term.ends.is_some());
        (self.errors.len() == errors_before).then_some(term.out)
    }

    /// A point written with a name (`rr<=limit`) becomes a `PointTarget` entry that fills in the
    /// point's value when the program runs.
    fn named_point(&mut self, m: &Spanned<Modifier>, term: &mut Term) {
        let out = &mut term.out;
        let target = match &m.node {
            Modifier::Explode { .. } => Some(PointTarget::Explode),
            Modifier::RerollOnce(_) | Modifier::RerollRecursive(_) => {
                Some(if term.explode.is_some() {
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
    }

    /// Reads one modifier into the term; a reroll or clamp is returned as the step it adds to
    /// each die, for [`Self::place_step`].
    fn read_modifier(&mut self, m: &Spanned<Modifier>, term: &mut Term) -> Option<DieStep> {
        match &m.node {
            &Modifier::Explode {
                compound,
                ref point,
                once,
                penetrate,
            } => {
                term.out.explode_once = once;
                term.out.penetrate = penetrate;
                self.read_explode(m.span, compound, point.as_ref(), term);
                None
            }
            Modifier::PlainAdded => {
                term.out.first_only = Some(m.span);
                None
            }
            Modifier::RerollOnce(p) => Some(DieStep::RerollOnce(condition(p))),
            Modifier::RerollRecursive(p) => Some(DieStep::RerollUntil(condition(p))),
            Modifier::ClampMin(v) => Some(DieStep::ClampMin(*v)),
            Modifier::ClampMax(v) => Some(DieStep::ClampMax(*v)),
            &Modifier::Keep { which, count } => {
                self.read_keep(m.span, which, count, term);
                None
            }
            &Modifier::KeepEnds {
                highest,
                lowest,
                drop,
            } => {
                term.out.ends = Some(crate::keep_ends::KeepEnds::new(highest, lowest, drop));
                term.ends = Some(m.span);
                None
            }
            Modifier::Success(p) => {
                self.read_success(m.span, p, term);
                None
            }
            Modifier::Critical { failure, point } => {
                self.read_critical(m.span, *failure, point.as_ref(), term);
                None
            }
            Modifier::Match { total, size, point } => {
                self.read_matching(m.span, *total, *size, point.as_ref(), term);
                None
            }
            Modifier::Unique { once, point } => {
                self.read_unique(m.span, *once, point.as_ref(), term);
                None
            }
            Modifier::Sort { descending } => {
                self.read_sort(m.span, *descending, term);
                None
            }
            Modifier::Failure(p) => {
                self.read_failure(m.span, p, term);
                None
            }
        }
    }

    /// `!`, `!!`, `!o`, `!p`: one explosion per term.
    fn read_explode(
        &mut self,
        at: Span,
        compound: bool,
        point: Option<&ComparePoint>,
        term: &mut Term,
    ) {
        if let Some(first) = term.explode {
            self.errors.push(
                Diagnostic::error(
                    "duplicate-modifier",
                    at,
                    "a dice term can explode only once",
                )
                .with_help(format!(
                    "combine the conditions into one, or remove the explosion at {}..{}",
                    first.start, first.end
                )),
            );
        }
        term.explode = Some(at);
        term.out.explosion = Some((compound, point.map(condition)));
    }

    /// `kh`, `kl`, `dh`, `dl`, `km`: composed with the keep or drop before it.
    fn read_keep(&mut self, at: Span, which: KeepWhich, count: i64, term: &mut Term) {
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
                    at,
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
        term.out.keep = match compose_keep(term.out.keep, keep) {
            Some(composed) => composed,
            None => {
                self.errors.push(
                    Diagnostic::error(
                        "middle-keep",
                        at,
                        "the dice this keep or drop leaves after the one before it depend on \
                         how many were rolled, which is not computed yet",
                    )
                    .with_help("keep from one end in a nested term instead, e.g. `{4d6dl1}kh1`"),
                );
                keep
            }
        };
    }

    /// A success point (`>=5`): one per term.
    fn read_success(&mut self, at: Span, point: &ComparePoint, term: &mut Term) {
        if term.success.is_some() {
            self.errors.push(Diagnostic::error(
                "duplicate-modifier",
                at,
                "only one success point is allowed per term",
            ));
        }
        term.success = Some(at);
        term.out.success = Some(condition(point));
    }

    /// A failure point (`f<=1`): one per term.
    fn read_failure(&mut self, at: Span, point: &ComparePoint, term: &mut Term) {
        if term.failure.is_some() {
            self.errors.push(Diagnostic::error(
                "duplicate-modifier",
                at,
                "only one failure point is allowed per term",
            ));
        }
        term.failure = Some(at);
        term.out.failure = Some(condition(point));
    }

    /// A critical mark (`cs>=19`, `cf`): on dice only, with a number.
    fn read_critical(
        &mut self,
        at: Span,
        failure: bool,
        point: Option<&ComparePoint>,
        term: &mut Term,
    ) {
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
        if !term.on_dice {
            self.errors.push(
                Diagnostic::error(
                    "bad-group-modifier",
                    at,
                    "critical marks apply to dice, not to groups",
                )
                .with_help("mark the dice inside the group, e.g. `{1d20cs>=19, 1d20}`"),
            );
        }
        if failure {
            term.out.critical_failure = Some(point);
        } else {
            term.out.critical_success = Some(point);
        }
    }

    /// Matching dice (`m`, `mt3>=4`): whether the result is the number of sets, and the smallest
    /// set.
    fn read_matching(
        &mut self,
        at: Span,
        total: bool,
        size: Option<i64>,
        point: Option<&ComparePoint>,
        term: &mut Term,
    ) {
        let condition = self.number_point(point, "matching", "`mt>=4`");
        let size = size.unwrap_or(2);
        if size < 2 {
            self.errors.push(
                Diagnostic::error(
                    "bad-set-size",
                    at,
                    format!("a set of matching dice has at least 2 dice, not {size}"),
                )
                .with_help("write the smallest set after the word, e.g. `mt3`, or none for pairs"),
            );
        }
        self.set_rule(term.on_dice, &mut term.set, at, "matching");
        term.out.matching = Some(Matching {
            size: usize::try_from(size).unwrap_or(2),
            condition,
            total,
        });
    }

    /// Unique rerolls (`u`, `uo=5`): a rule over the whole pool, like matching.
    fn read_unique(&mut self, at: Span, once: bool, point: Option<&ComparePoint>, term: &mut Term) {
        let condition = self.number_point(point, "a unique reroll", "`u=5`");
        self.set_rule(term.on_dice, &mut term.set, at, "unique rerolls");
        term.out.unique = Some(Unique { once, condition });
    }

    /// `sa`, `sd`: on dice only.
    fn read_sort(&mut self, at: Span, descending: bool, term: &mut Term) {
        if !term.on_dice {
            self.errors.push(
                Diagnostic::error(
                    "bad-group-modifier",
                    at,
                    "sorting applies to dice, not to groups",
                )
                .with_help("sort the dice inside the group, e.g. `{4d6sa, 1d8}`"),
            );
        }
        term.out.sort = Some(descending);
    }

    /// A reroll or clamp applies to each die: before the explosion if written before it, after
    /// it otherwise; a group has no dice of its own to apply it to.
    fn place_step(&mut self, step: DieStep, at: Span, term: &mut Term) {
        if !term.on_dice {
            self.errors.push(
                Diagnostic::error(
                    "bad-group-modifier",
                    at,
                    "rerolls and clamps apply to dice, not to groups",
                )
                .with_help("put the modifier on the dice inside the group, e.g. `{4d6ro1, 2d8}`"),
            );
        } else if term.explode.is_some() {
            term.out.after.push(step);
        } else {
            term.out.before.push(step);
        }
    }

    /// The combinations of modifiers that are each allowed alone but not together, or not on
    /// groups, or not computed yet.
    fn refuse_combinations(&mut self, term: &Term) {
        let out = &term.out;
        if let Some(at) = term.explode
            && !term.on_dice
        {
            self.errors.push(
                Diagnostic::error("bad-group-modifier", at, "groups cannot explode")
                    .with_help("explode the dice inside the group, e.g. `{2d6!, 1d8}`"),
            );
        }
        if let Some(at) = term.explode
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
        if let Some(at) = term.set {
            let refusal = if term.explode.is_some() {
                Some((
                    "unique rerolls and matching on exploding dice are not computed yet",
                    "explode in one term and match or reroll in another",
                ))
            } else if out.matching.is_some_and(|m| m.total) && term.success.is_some() {
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
        if let Some(at) = term.ends
            && let Some(why) = crate::keep_ends::refusal(
                term.on_dice,
                out.keep != Keep::All || term.explode.is_some() || term.set.is_some(),
                term.success.is_some(),
            )
        {
            self.errors.push(
                Diagnostic::error("unsupported-modifier", at, why)
                    .with_help("keep one end, e.g. `kh1`, or roll the ends in separate terms"),
            );
        }
        if let (Some(f), None) = (term.failure, term.success) {
            self.errors.push(
                Diagnostic::error(
                    "failure-without-success",
                    f,
                    "a failure point needs a success point before it",
                )
                .with_help("count successes first, e.g. `10d12>=8f<=1`"),
            );
        }
    }
}

pub(super) struct Modifiers {
    pub(super) matching: Option<Matching>,
    pub(super) unique: Option<Unique>,
    pub(super) before: Vec<DieStep>,
    pub(super) explosion: Option<(bool, Option<Condition>)>,
    pub(super) explode_once: bool,
    pub(super) penetrate: bool,
    /// Where `!a` was written: the dice the explosion adds are plain.
    pub(super) first_only: Option<Span>,
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

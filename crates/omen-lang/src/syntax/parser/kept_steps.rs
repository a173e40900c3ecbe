//! d20's reroll or explosion written after a keep or drop that leaves several dice (`4d6kh3ro1`,
//! `5d6ph1e6`): d20 applies its operations in the order written, each to the dice still kept, so the
//! step touches the kept dice only. (One kept die is read in term_state.rs.)
//!
//! The roll is a pool, and what the step changes is read from it: of the kept dice, `k` meet the
//! step's point, counted as capped_pool.rs counts kept dice; under `ro` they are replaced by `k` new
//! dice, under `rr` by `k` new dice over the faces not meeting the point (rerolled until they do
//! not), and under `e` each adds a new die that explodes the same way (Dice Maiden's `e`, at most once
//! a die: a new die that does not explode). The kept dice meeting the
//! point leave their faces (`ro`, `rr`): the sum of each such face times how many kept dice show it.
//!
//! Foundry runs its modifiers the same way: a keep or drop makes the dice it leaves out inactive,
//! and a later reroll or explosion walks the active dice only (`3d6kh2r1`). With a cap
//! (`3d6kh2r1=1`: reroll a single 1 among the kept dice) the first `min(k, cap)` kept dice meeting
//! the point are rolled again; which ones does not matter to the total when one face meets the point
//! (each leaves that face) or when the step adds dice without removing any (`xo`).

use super::Parser;
use super::capped::listed;
use super::capped_pool::{Build, kept_count};
use super::kept_two_steps::{kept_reroll_then_explosion, kept_two_steps_reading};
use super::pieces::CappedReroll;
use super::rescore::{listed_faces, meets};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{
    BinOp, CompareOp, ComparePoint, Expr, ExprKind, KeepWhich, Modifier, PointValue, PoolExpr,
    PoolMember, Sides, Spanned,
};

/// The most faces whose kept counts are summed one by one.
const MAX_FACES: usize = 100;

/// `[keep, step]` with a keep or drop of any count and a reroll or explosion after it, an explosion
/// at most once included (Dice Maiden's `e` and Foundry's `xo` on each kept die; d20's `ra` on the
/// first kept die meeting the point only, read with a cap of one).
pub(super) fn kept_dice_then_any_step(
    modifiers: &[Spanned<Modifier>],
) -> Option<(KeepWhich, i64, &Spanned<Modifier>)> {
    match modifiers {
        [
            Spanned {
                node: Modifier::Keep { which, count },
                ..
            },
            step,
        ] if *which != KeepWhich::KeepMiddle
            && matches!(
                step.node,
                Modifier::RerollOnce(_)
                    | Modifier::RerollRecursive(_)
                    | Modifier::Explode {
                        compound: false,
                        penetrate: false,
                        ..
                    }
            ) =>
        {
            Some((*which, *count, step))
        }
        _ => None,
    }
}

impl Parser<'_> {
    /// The term read as above, or refused with why (`None` then).
    pub(super) fn kept_dice_step_term(
        &mut self,
        count: Option<&Expr>,
        sides: &Spanned<Sides>,
        modifiers: &[Spanned<Modifier>],
        start: usize,
    ) -> Option<Expr> {
        if let Some(two) = kept_reroll_then_explosion(modifiers) {
            let span = Span::new(start, self.prev_end);
            let at = modifiers[0].span.to(two.3.span);
            // d20's `ra` adds one die for the whole roll: not read after a reroll yet.
            let once = matches!(two.3.node, Modifier::Explode { once: true, .. });
            let read = if once && self.dialect.selectors_unite {
                Err("`ra` after a reroll is not computed yet".to_string())
            } else {
                kept_two_steps_reading(count, sides, two, (span, at))
            };
            return read.map_err(|why| self.refuse_kept_step(at, &why)).ok();
        }
        let (which, kept, step) = kept_dice_then_any_step(modifiers)?;
        let span = Span::new(start, self.prev_end);
        let at = modifiers[0].span.to(step.span);
        // d20's `ra` adds one die for the whole roll, for the first kept die meeting the point: an
        // explosion at most once with a cap of one (Avrae has no other explosion at most once).
        let once = matches!(step.node, Modifier::Explode { once: true, .. });
        let cap = (once && self.dialect.selectors_unite).then_some(1);
        self.kept_step_or_refused(count, sides, (which, kept, step, cap), (span, at))
    }

    /// Foundry's keep or drop before a capped reroll or explosion (`3d6kh2r1=1`, `4d6dl1xo1=6`),
    /// read as above with the step on the first `cap` kept dice meeting the point; `None` when the
    /// term is not a keep or drop alone followed by the capped step.
    pub(super) fn kept_then_capped_term(
        &mut self,
        dice: &Expr,
        (cap, point, at, kind): &CappedReroll,
    ) -> Option<Expr> {
        let ExprKind::Dice(term) = &dice.node else {
            return None;
        };
        if !self.dialect.steps_touch_kept {
            return None;
        }
        let [keep] = term.modifiers.as_slice() else {
            return None;
        };
        let Modifier::Keep { which, count: kept } = keep.node else {
            return None;
        };
        if which == KeepWhich::KeepMiddle || keep.span.start > at.start {
            return None;
        }
        let node = match (kind.added, kind.recursive) {
            (false, false) => Modifier::RerollOnce(point.clone()),
            (true, false) => Modifier::Explode {
                compound: false,
                point: Some(point.clone()),
                once: true,
                penetrate: false,
            },
            // Recursive: the new dice join the walk after the kept ones and spend the cap too.
            _ => Modifier::RerollRecursive(point.clone()),
        };
        let step = Spanned::new(node, *at);
        let read = (which, kept, &step, Some(*cap));
        let count = term.count.as_ref();
        let refused_at = (dice.span, keep.span.to(*at));
        let read = self.kept_step_or_refused(count, &term.sides, read, refused_at);
        Some(read.unwrap_or_else(|| dice.clone()))
    }

    /// The kept-step reading, or the error saying why not with the term as written (`None`).
    fn kept_step_or_refused(
        &mut self,
        count: Option<&Expr>,
        sides: &Spanned<Sides>,
        read: KeptStep,
        (span, at): (Span, Span),
    ) -> Option<Expr> {
        kept_step_reading(count, sides, read, span, at)
            .map_err(|why| self.refuse_kept_step(at, &why))
            .ok()
    }

    /// Refuses a step after a keep at `at`, saying why.
    fn refuse_kept_step(&mut self, at: Span, why: &str) {
        self.report(
            Diagnostic::error(
                "unsupported-modifier",
                at,
                format!(
                    "in the {} dialect a reroll or explosion after a keep or drop touches the kept \
                     dice only; {why}",
                    self.dialect.name
                ),
            )
            .with_help("write the step before the keep if it is meant for every die"),
        );
    }
}

/// A keep or drop, how many dice it keeps or drops, the step after it, and its cap if any.
type KeptStep<'a> = (KeepWhich, i64, &'a Spanned<Modifier>, Option<i64>);

fn kept_step_reading(
    count: Option<&Expr>,
    sides: &Spanned<Sides>,
    (which, kept, step, cap): KeptStep,
    span: Span,
    at: Span,
) -> Result<Expr, String> {
    let faces = listed_faces(&sides.node, "a step after a keep")?;
    if faces.len() > MAX_FACES {
        return Err(format!(
            "that is computed on dice of at most {MAX_FACES} faces"
        ));
    }
    let top = faces.iter().copied().max().ok_or("a die with no faces")?;
    let (point, explode, recursive) = match &step.node {
        Modifier::RerollOnce(point) => (Some(point), false, false),
        Modifier::RerollRecursive(point) => (Some(point), false, true),
        Modifier::Explode { point, once, .. } => (point.as_ref(), true, !once),
        _ => return Err("only rerolls and explosions are read there".into()),
    };
    let (op, target) = match point {
        None => (CompareOp::Eq, top),
        Some(ComparePoint {
            op,
            value: PointValue::Int(t),
        }) if *op != CompareOp::Ne => (*op, *t),
        Some(_) => return Err("the step's point must be a number".into()),
    };
    let (meeting, other): (Vec<i64>, Vec<i64>) = faces.iter().partition(|&&f| meets(op, target, f));
    if recursive && other.is_empty() {
        return Err("a step every face meets never ends".into());
    }
    let build = Build {
        at,
        span,
        stem: span.start,
    };
    let count = count.cloned().unwrap_or_else(|| build.number(1));
    let size = build.var("count");
    let keep = Some((which, kept));
    // The kept total, as capped_pool.rs reads a keep of a pool.
    let pool = || build.var("pool");
    let sum = || build.call("sum", vec![pool()]);
    let end = |name: &str| build.call(name, vec![pool(), build.number(kept)]);
    let total = match which {
        KeepWhich::KeepHighest => end("highest"),
        KeepWhich::KeepLowest => end("lowest"),
        KeepWhich::DropHighest => build.binary(BinOp::Sub, sum(), end("highest")),
        _ => build.binary(BinOp::Sub, sum(), end("lowest")),
    };
    let mut k = kept_count(&build, keep, (op, target), &size)?;
    let mut body = total;
    if let Some(cap) = cap {
        if recursive {
            return Err("a capped recursive step after a keep or drop is not computed yet".into());
        }
        k = build.call("min", vec![build.number(cap), k]);
        if !explode {
            // Which of the kept dice meeting the point are rerolled matters unless they show one face.
            let [face] = meeting.as_slice() else {
                return Err(
                    "a capped reroll after a keep or drop is computed when one face meets its point"
                        .into(),
                );
            };
            let times = build.binary(BinOp::Mul, build.number(*face), build.var("meeting"));
            body = build.binary(BinOp::Sub, body, times);
        }
    } else if !explode {
        // The faces the rerolled dice leave.
        for &face in &meeting {
            let showing = kept_count(&build, keep, (CompareOp::Eq, face), &size)?;
            let times = build.binary(BinOp::Mul, build.number(face), showing);
            body = build.binary(BinOp::Sub, body, times);
        }
    }
    let new_sides = if explode || !recursive {
        sides.clone()
    } else {
        listed(&other, sides.span)
    };
    let new_steps = if explode && recursive {
        vec![step.clone()]
    } else {
        Vec::new()
    };
    body = build.binary(
        BinOp::Add,
        body,
        build.dice(build.var("meeting"), new_sides, new_steps),
    );
    let body = build.let_in(build.name("meeting"), k, body);
    let member = build.dice(size.clone(), sides.clone(), Vec::new());
    let pool = build.expr(ExprKind::Pool(Box::new(PoolExpr::Dice(vec![
        Spanned::new(PoolMember::Roll(member), at),
    ]))));
    let body = build.let_in(build.name("pool"), pool, body);
    Ok(build.let_in(build.name("count"), count, body))
}

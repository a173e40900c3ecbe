//! A reroll then an explosion after a keep or drop (Avrae's `4d6kh3ro1e6`, Foundry's `3d6kh2r1x`):
//! both sources run their operations in order over the dice still kept, so the reroll replaces the
//! kept dice meeting its point by new kept dice, and the explosion then runs over every kept die,
//! the new ones included, each die meeting its point adding a new die that explodes the same way
//! (`xo`: a new die that does not).
//!
//! Read from the roll as a pool, as kept_steps.rs reads one step: of the kept dice, `k` meet the
//! reroll's point and leave their faces; `k` new dice come in (over every face under `ro`, over the
//! faces not meeting the point under `rr`), of which `f` meet the explosion's point (a count rolled
//! first and bound by a name), written as `f` dice over the new faces meeting it and `k - f` over
//! the others. The kept dice left that meet the explosion's point, `s`, counted from the pool as the
//! reroll's are, and the `f` new ones each add an exploding die: `(s + f)` dice exploding.

use super::capped::listed;
use super::capped_pool::{Build, kept_count};
use super::rescore::{listed_faces, meets};
use crate::span::Span;
use crate::syntax::ast::{
    BinOp, CompareOp, ComparePoint, Expr, ExprKind, KeepWhich, Modifier, PointValue, PoolExpr,
    PoolMember, Sides, Spanned,
};

/// The most faces read: each face the reroll leaves is counted on its own.
const MAX_FACES: usize = 100;

/// A keep or drop, then a reroll, then an explosion (the `a` Foundry's reading marks after it aside).
pub(super) type TwoSteps<'a> = (KeepWhich, i64, &'a Spanned<Modifier>, &'a Spanned<Modifier>);

/// `[keep, reroll, explosion]`, or `None`.
pub(super) fn kept_reroll_then_explosion(modifiers: &[Spanned<Modifier>]) -> Option<TwoSteps<'_>> {
    let (keep, reroll, explosion) = match modifiers {
        [keep, reroll, explosion] => (keep, reroll, explosion),
        [keep, reroll, explosion, plain] if plain.node == Modifier::PlainAdded => {
            (keep, reroll, explosion)
        }
        _ => return None,
    };
    let Modifier::Keep { which, count } = keep.node else {
        return None;
    };
    let reroll_step = matches!(
        reroll.node,
        Modifier::RerollOnce(_) | Modifier::RerollRecursive(_)
    );
    let explodes = matches!(
        explosion.node,
        Modifier::Explode {
            compound: false,
            penetrate: false,
            ..
        }
    );
    (which != KeepWhich::KeepMiddle && reroll_step && explodes)
        .then_some((which, count, reroll, explosion))
}

/// A step's operator and number, the die's highest face when an explosion names none.
fn point_of(point: Option<&ComparePoint>, top: i64) -> Result<(CompareOp, i64), String> {
    match point {
        None => Ok((CompareOp::Eq, top)),
        Some(ComparePoint {
            op,
            value: PointValue::Int(t),
        }) if *op != CompareOp::Ne => Ok((*op, *t)),
        Some(_) => Err("a step's point must be a number".into()),
    }
}

/// The reading (see the module's header), or why it is not computed.
pub(super) fn kept_two_steps_reading(
    count: Option<&Expr>,
    sides: &Spanned<Sides>,
    (which, kept, reroll, explosion): TwoSteps,
    (span, at): (Span, Span),
) -> Result<Expr, String> {
    let faces = listed_faces(&sides.node, "a reroll and an explosion after a keep")?;
    if faces.len() > MAX_FACES {
        return Err(format!(
            "that is computed on dice of at most {MAX_FACES} faces"
        ));
    }
    let top = faces.iter().copied().max().ok_or("a die with no faces")?;
    let (reroll_point, recursive) = match &reroll.node {
        Modifier::RerollOnce(point) => (point, false),
        Modifier::RerollRecursive(point) => (point, true),
        _ => return Err("only a reroll is read before the explosion".into()),
    };
    let Modifier::Explode { point, once, .. } = &explosion.node else {
        return Err("only an explosion is read after the reroll".into());
    };
    let (rop, rt) = point_of(Some(reroll_point), top)?;
    let (xop, xt) = point_of(point.as_ref(), top)?;
    let new_faces: Vec<i64> = faces
        .iter()
        .copied()
        .filter(|&f| !recursive || !meets(rop, rt, f))
        .collect();
    if new_faces.is_empty() {
        return Err("a reroll every face meets never ends".into());
    }
    if !*once && faces.iter().all(|&f| meets(xop, xt, f)) {
        return Err("an explosion every face meets never ends".into());
    }
    let build = Build {
        at,
        span,
        stem: span.start,
    };
    let size = build.var("count");
    let keep = Some((which, kept));
    let pool = || build.var("pool");
    let sum = || build.call("sum", vec![pool()]);
    let end = |name: &str| build.call(name, vec![pool(), build.number(kept)]);
    let mut body = match which {
        KeepWhich::KeepHighest => end("highest"),
        KeepWhich::KeepLowest => end("lowest"),
        KeepWhich::DropHighest => build.binary(BinOp::Sub, sum(), end("highest")),
        _ => build.binary(BinOp::Sub, sum(), end("lowest")),
    };
    // The kept dice rerolled leave their faces; those left meeting the explosion's point count.
    let mut staying = Vec::new();
    for &face in &faces {
        let showing = || kept_count(&build, keep, (CompareOp::Eq, face), &size);
        if meets(rop, rt, face) {
            let times = build.binary(BinOp::Mul, build.number(face), showing()?);
            body = build.binary(BinOp::Sub, body, times);
        } else if meets(xop, xt, face) {
            staying.push(showing()?);
        }
    }
    let point = ComparePoint {
        op: xop,
        value: PointValue::Int(xt),
    };
    let (mut body, fresh) = with_new_dice(&build, body, &new_faces, &point, sides);
    let exploding = staying.into_iter().fold(fresh, |sum, count| match sum {
        Some(sum) => Some(build.binary(BinOp::Add, sum, count)),
        None => Some(count),
    });
    if let Some(exploding) = exploding {
        let again = if *once {
            Vec::new()
        } else {
            let step = Modifier::Explode {
                compound: false,
                point: Some(point.clone()),
                once: false,
                penetrate: false,
            };
            vec![Spanned::new(step, at)]
        };
        let added = build.dice(exploding, sides.clone(), again);
        body = build.binary(BinOp::Add, body, added);
    }
    if new_faces.iter().any(|&f| meets(xop, xt, f)) {
        let counted = build.dice(
            build.var("meeting"),
            listed(&new_faces, sides.span),
            vec![Spanned::new(Modifier::Success(point), at)],
        );
        body = build.let_in(build.name("fresh"), counted, body);
    }
    let k = kept_count(&build, keep, (rop, rt), &size)?;
    let body = build.let_in(build.name("meeting"), k, body);
    let member = build.dice(size.clone(), sides.clone(), Vec::new());
    let pool = build.expr(ExprKind::Pool(Box::new(PoolExpr::Dice(vec![
        Spanned::new(PoolMember::Roll(member), at),
    ]))));
    let body = build.let_in(build.name("pool"), pool, body);
    let count = count.cloned().unwrap_or_else(|| build.number(1));
    Ok(build.let_in(build.name("count"), count, body))
}

/// `body` with the `k` new dice added (`meeting`): `f` of them (`fresh`) over the new faces meeting
/// the explosion's point, the rest over the others; with the count of the new dice that explode.
fn with_new_dice(
    build: &Build,
    mut body: Expr,
    new_faces: &[i64],
    point: &ComparePoint,
    sides: &Spanned<Sides>,
) -> (Expr, Option<Expr>) {
    let PointValue::Int(t) = point.value else {
        return (body, None);
    };
    let (new_meeting, new_other): (Vec<i64>, Vec<i64>) =
        new_faces.iter().partition(|&&f| meets(point.op, t, f));
    let fresh = (!new_meeting.is_empty()).then(|| build.var("fresh"));
    if fresh.is_some() {
        let dice = build.dice(
            build.var("fresh"),
            listed(&new_meeting, sides.span),
            Vec::new(),
        );
        body = build.binary(BinOp::Add, body, dice);
    }
    if !new_other.is_empty() {
        let rest = match fresh {
            Some(_) => build.binary(BinOp::Sub, build.var("meeting"), build.var("fresh")),
            None => build.var("meeting"),
        };
        let dice = build.dice(rest, listed(&new_other, sides.span), Vec::new());
        body = build.binary(BinOp::Add, body, dice);
    }
    (body, fresh)
}

//! Dice Maiden's double successes with an explosion (`4d10 t7 ds10 ie`). The bot explodes the dice
//! first, on their faces, then scores every die, the added ones too: 0 below the target, 1 from it,
//! 2 from the `ds` number. Omen reads the term as a die relabelled by that score, so the explosion
//! must be written on the scores: it is, when the faces that explode are exactly the faces whose
//! score lies at one end (`ie` on 10 with `ds10`: the die scoring 2 explodes, `!=2`). Otherwise
//! (`t7 ds10 ie9`: a 9 explodes and scores 1, as a 7 does, which does not) it is refused.

use super::rescore::{Rescore, listed_faces, meets};
use crate::syntax::ast::{CompareOp, ComparePoint, Modifier, PointValue, Sides};

/// The explosion `explosion`, written on the faces of `sides`, moved onto the scores of `scored`:
/// `Ok(None)` when no face explodes; an error saying why when the scores cannot tell the faces apart.
pub(super) fn scored_explosion(
    sides: &Sides,
    scored: &Rescore,
    explosion: &Modifier,
) -> Result<Option<Modifier>, String> {
    let Modifier::Explode {
        compound: false,
        point,
        once,
        penetrate: false,
    } = explosion
    else {
        return Err("only a plain explosion is read with double successes".into());
    };
    let faces = listed_faces(sides, "double successes with an explosion")?;
    let top = faces.iter().copied().max().ok_or("a die with no faces")?;
    let (op, target) = match point {
        None => (CompareOp::Eq, top),
        Some(ComparePoint {
            op,
            value: PointValue::Int(t),
        }) => (*op, *t),
        Some(_) => return Err("the explosion's point must be a number".into()),
    };
    let score = |f: i64| scored.score(f).ok_or("a score that does not fit");
    let mut exploding = Vec::new();
    let mut staying = Vec::new();
    for &face in &faces {
        let s = score(face)?;
        if meets(op, target, face) {
            exploding.push(s);
        } else {
            staying.push(s);
        }
    }
    let (Some(&low), Some(&high)) = (exploding.iter().min(), exploding.iter().max()) else {
        return Ok(None);
    };
    let point = if staying.iter().all(|&s| s < low) {
        (CompareOp::Ge, low)
    } else if staying.iter().all(|&s| s > high) {
        (CompareOp::Le, high)
    } else {
        return Err(
            "the faces that explode score what faces that do not explode score too, so the \
             scores cannot say which die explodes"
                .into(),
        );
    };
    Ok(Some(Modifier::Explode {
        compound: false,
        point: Some(ComparePoint {
            op: point.0,
            value: PointValue::Int(point.1),
        }),
        once: *once,
        penetrate: false,
    }))
}

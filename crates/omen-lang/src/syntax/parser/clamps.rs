//! Foundry's `min` and `max` before an explosion (`3d6max5x`). Foundry's clamps change what a die
//! counts (its `count`), never the face it shows (its `result`), and every later modifier compares
//! the face: a die rolling 6 under `max5` counts 5 and still explodes under `x` (whose point is the
//! die's largest face, 6), while a die rolling 5 does not explode under `x` at all. Omen's clamp
//! changes the face, so `3d6max5!a` would explode on the 5s. Where the two agree on every face (a
//! clamp that moves no face across the explosion's point, as `3d6min2x`), Omen's `!a` is the reading;
//! otherwise the term is read in batches of dice (explosions_in_turn.rs), the dice first rolled
//! counting their clamped value.

use super::Parser;
use super::pieces::shorten;
use super::rescore::{listed_faces, meets};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{
    CompareOp, ComparePoint, DiceExpr, FaceItem, Modifier, PointValue, Sides, Spanned,
};

/// One clamp as written: `min` (`lowest`) or `max`, and its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Clamp {
    pub lowest: bool,
    pub value: i64,
}

impl Clamp {
    pub fn of(modifier: &Modifier) -> Option<Clamp> {
        match *modifier {
            Modifier::ClampMin(value) => Some(Clamp {
                lowest: true,
                value,
            }),
            Modifier::ClampMax(value) => Some(Clamp {
                lowest: false,
                value,
            }),
            _ => None,
        }
    }
}

/// What a die showing `face` counts after Foundry's clamps, run in order: each compares the face
/// shown (not what an earlier clamp made it count) and, when it applies, sets the count.
pub(super) fn foundry_count(clamps: &[Clamp], face: i64) -> i64 {
    clamps.iter().fold(face, |count, clamp| {
        let applies = if clamp.lowest {
            face < clamp.value
        } else {
            face > clamp.value
        };
        if applies { clamp.value } else { count }
    })
}

/// The face after Omen's clamps, each applied to the face the one before left.
fn omen_face(clamps: &[Clamp], face: i64) -> i64 {
    clamps.iter().fold(face, |face, clamp| {
        if clamp.lowest {
            face.max(clamp.value)
        } else {
            face.min(clamp.value)
        }
    })
}

/// Whether Omen's reading of the term's clamps before its first explosion (the clamped face decides
/// the explosion, the added dice plain: `!a`) differs from Foundry's on some face of `faces`. `false`
/// when there is no clamp before an explosion; `true` when it cannot be told (a point written with
/// a name, faces not known from the sides), so that the term goes to the batch reading, which
/// refuses it with why.
pub(super) fn clamp_moves_explosion(term: &DiceExpr, faces: Option<&[i64]>) -> bool {
    let Some(at) = term
        .modifiers
        .iter()
        .position(|m| matches!(m.node, Modifier::Explode { .. }))
    else {
        return false;
    };
    let clamps: Vec<Clamp> = term.modifiers[..at]
        .iter()
        .filter_map(|m| Clamp::of(&m.node))
        .collect();
    if clamps.is_empty() {
        return false;
    }
    let Modifier::Explode { point, .. } = &term.modifiers[at].node else {
        return false;
    };
    let Some((faces, top)) = faces.and_then(|f| Some((f, f.iter().copied().max()?))) else {
        return true;
    };
    let (foundry, omen) = match point {
        // Foundry explodes on the die's largest face; Omen on the largest face the clamps leave.
        None => {
            let clamped_top = faces.iter().map(|&f| omen_face(&clamps, f)).max();
            (
                (CompareOp::Eq, top),
                (CompareOp::Eq, clamped_top.unwrap_or(top)),
            )
        }
        Some(ComparePoint {
            op,
            value: PointValue::Int(target),
        }) => ((*op, *target), (*op, *target)),
        Some(_) => return true,
    };
    faces.iter().any(|&face| {
        let explodes = meets(foundry.0, foundry.1, face);
        // The first roll: Omen decides on the clamped face; an added die: on its face, as Foundry.
        explodes != meets(omen.0, omen.1, omen_face(&clamps, face))
            || explodes != meets(omen.0, omen.1, face)
            || foundry_count(&clamps, face) != omen_face(&clamps, face)
    })
}

/// Foundry's clamps before a count or a reroll, read as Foundry runs them. A count (`cs`, `cf`)
/// sets every die's count to 1 or 0 by the face shown, so the clamps written before it change
/// nothing and are dropped (`3d6max5cs>=6` counts the 6s). A reroll compares the face shown and
/// rolls a die no clamp before it touches, where Omen's clamp then reroll compares the clamped face
/// and clamps the new die: the span from the clamp to the reroll is returned, to be refused.
pub(super) fn foundry_clamps_before_steps(modifiers: &mut Vec<Spanned<Modifier>>) -> Option<Span> {
    if let Some(count) = modifiers
        .iter()
        .position(|m| matches!(m.node, Modifier::Success(_)))
    {
        let mut at = 0;
        modifiers.retain(|m| {
            at += 1;
            at > count || Clamp::of(&m.node).is_none()
        });
    }
    // Clamps then one reroll alone are read on the die's faces (see `clamped_reroll_faces`).
    if clamps_then_reroll(modifiers).is_some() {
        return None;
    }
    let clamp = modifiers
        .iter()
        .position(|m| Clamp::of(&m.node).is_some())?;
    let reroll = modifiers[clamp..].iter().find(|m| {
        matches!(
            m.node,
            Modifier::RerollOnce(_) | Modifier::RerollRecursive(_)
        )
    })?;
    Some(modifiers[clamp].span.to(reroll.span))
}

/// `[clamp…, reroll]`: the clamps, the reroll's point and whether it is recursive.
fn clamps_then_reroll(
    modifiers: &[Spanned<Modifier>],
) -> Option<(Vec<Clamp>, &ComparePoint, bool)> {
    let (last, clamps) = modifiers.split_last()?;
    let clamps: Vec<Clamp> = clamps
        .iter()
        .map(|m| Clamp::of(&m.node))
        .collect::<Option<_>>()?;
    match &last.node {
        _ if clamps.is_empty() => None,
        Modifier::RerollOnce(point) => Some((clamps, point, false)),
        Modifier::RerollRecursive(point) => Some((clamps, point, true)),
        _ => None,
    }
}

/// The most faces a die's first roll may list when weighed against its reroll: the list has one
/// entry per pair of faces.
const MAX_FACES: usize = 30;

/// Foundry's clamps then a reroll alone (`3d6min2r1`), as one die: a face meeting the reroll's point
/// (compared on the face shown) is replaced by a new die no clamp touches (rolled again while it
/// meets the point under `rr`); any other face counts what the clamps set. Listed with weights as a
/// die's faces: each face not rerolled once per face of the new die, each face of the new die once
/// per face rerolled. `None` when the term is not of that form.
pub(super) fn clamped_reroll_faces(
    sides: &Sides,
    modifiers: &[Spanned<Modifier>],
) -> Option<Result<Vec<i64>, String>> {
    let (clamps, point, recursive) = clamps_then_reroll(modifiers)?;
    let faces = match listed_faces(sides, "a clamp then a reroll") {
        Ok(faces) if faces.len() <= MAX_FACES => faces,
        Ok(_) => {
            return Some(Err(format!(
                "that is computed on dice of at most {MAX_FACES} faces"
            )));
        }
        Err(why) => return Some(Err(why)),
    };
    let PointValue::Int(target) = point.value else {
        return Some(Err("the reroll's point must be a number".into()));
    };
    let rerolled = |f: i64| meets(point.op, target, f);
    let new: Vec<i64> = faces
        .iter()
        .copied()
        .filter(|&f| !recursive || !rerolled(f))
        .collect();
    if new.is_empty() {
        return Some(Err("a reroll every face meets never ends".into()));
    }
    let mut listed = Vec::new();
    for &face in &faces {
        if rerolled(face) {
            listed.extend(&new);
        } else {
            listed.extend(std::iter::repeat_n(foundry_count(&clamps, face), new.len()));
        }
    }
    Some(Ok(listed))
}

/// The term's die made the die listing `faces` (each face what a die counts, repeated by weight),
/// its modifiers read into them.
pub(super) fn relabel(
    sides: &mut Spanned<Sides>,
    modifiers: &mut Vec<Spanned<Modifier>>,
    faces: Vec<i64>,
) {
    let at = sides.span;
    let faces = faces
        .into_iter()
        .map(|f| Spanned::new(FaceItem::Face(f), at))
        .collect();
    *sides = Spanned::new(Sides::Custom(faces), at);
    modifiers.clear();
}

impl Parser<'_> {
    /// Foundry's clamps where Omen's reading of them differs: several clamps alone read as one die
    /// relabelled, and what no reading here follows refused rather than misread.
    pub(super) fn read_foundry_clamps(
        &mut self,
        sides: &mut Spanned<Sides>,
        modifiers: &mut Vec<Spanned<Modifier>>,
    ) {
        let refused = match relabelled_clamps(&sides.node, modifiers) {
            Some(Ok(faces)) => {
                relabel(sides, modifiers, faces);
                return;
            }
            Some(Err(why)) => {
                let at = modifiers[0].span.to(modifiers[modifiers.len() - 1].span);
                (
                    at,
                    format!("several clamps are read on the die's faces; {why}"),
                )
            }
            None => match unread_clamps(&sides.node, modifiers) {
                Some((at, what)) => (at, format!("{what}, which is not computed yet")),
                None => return,
            },
        };
        let (at, why) = refused;
        self.report(
            Diagnostic::error(
                "unsupported-modifier",
                at,
                format!(
                    "`{}` in the {} dialect: {why}",
                    shorten(self.text(at)),
                    self.dialect.name
                ),
            )
            .with_help(
                "list what each face counts as a die, e.g. `3d{5,5,5,3,3,3}`, if that is the rule",
            ),
        );
    }
}

impl Parser<'_> {
    /// In Omen's notation, several clamps that Foundry reads otherwise on some face of the die
    /// (`3d6min5max3`: Omen's clamps give 3 everywhere, Foundry's each test the face shown) warn,
    /// naming Foundry's reading.
    pub(super) fn warn_foundry_clamps(&mut self, sides: &Sides, modifiers: &[Spanned<Modifier>]) {
        if !self.dialect.warn_other_readings {
            return;
        }
        if let (Some(_), [first, .., last]) = (clamps_then_reroll(modifiers), modifiers) {
            let span = first.span.to(last.span);
            let written = shorten(self.text(span));
            self.warnings.push(
                Diagnostic::warning(
                    "clamp-then-reroll-differs-in-foundry",
                    span,
                    format!(
                        "`{written}` rerolls on the value the clamp leaves; Foundry rerolls on the \
                         face rolled, and its new die is not clamped"
                    ),
                )
                .with_help(
                    "list what each face counts as a die, e.g. `3d{2,2,3,4,5,6}`, or read it as \
                     Foundry does with `--dialect foundry`",
                ),
            );
        }
        let at: Vec<&Spanned<Modifier>> = modifiers
            .iter()
            .filter(|m| Clamp::of(&m.node).is_some())
            .collect();
        let clamps: Vec<Clamp> = at.iter().filter_map(|m| Clamp::of(&m.node)).collect();
        if clamps.len() < 2 {
            return;
        }
        // Between two clamps' values each reading is the face or one value, so where they part
        // they part next to a value: those faces stand for a die whose faces are not listed.
        let faces = listed_faces(sides, "several clamps").unwrap_or_else(|_| {
            clamps
                .iter()
                .flat_map(|c| {
                    [
                        c.value.saturating_sub(1),
                        c.value,
                        c.value.saturating_add(1),
                    ]
                })
                .collect()
        });
        if faces
            .iter()
            .all(|&f| foundry_count(&clamps, f) == omen_face(&clamps, f))
        {
            return;
        }
        let span = at[0].span.to(at[at.len() - 1].span);
        let written = shorten(self.text(span));
        self.warnings.push(
            Diagnostic::warning(
                "clamps-differ-in-foundry",
                span,
                format!(
                    "`{written}` clamps each die's value one clamp after another; Foundry's \
                     clamps each test the face rolled, a face counting the value of the last \
                     clamp it meets"
                ),
            )
            .with_help(
                "list what each face counts as a die, e.g. `3d{5,5,5,3,3,3}`, to say it plainly",
            ),
        );
    }
}

/// Foundry's several clamps with no other modifier (`3d6min5max3`), as one die whose faces are
/// relabelled: each clamp tests the face shown, so a face counts the value of the last clamp it
/// meets, else itself (under `min5max3` the faces 1 to 3 count 5, 4 to 6 count 3, where Omen's
/// clamps, each applied to the value the one before left, give 3 everywhere). `None` when the term
/// is not of that form or Omen's clamps give every face the same value as Foundry's.
pub(super) fn relabelled_clamps(
    sides: &Sides,
    modifiers: &[Spanned<Modifier>],
) -> Option<Result<Vec<i64>, String>> {
    let clamps: Vec<Clamp> = modifiers
        .iter()
        .map(|m| Clamp::of(&m.node))
        .collect::<Option<_>>()?;
    if clamps.len() < 2 {
        return None;
    }
    let faces = match listed_faces(sides, "several clamps") {
        Ok(faces) => faces,
        Err(why) => return Some(Err(why)),
    };
    if faces
        .iter()
        .all(|&f| foundry_count(&clamps, f) == omen_face(&clamps, f))
    {
        return None;
    }
    Some(Ok(faces
        .iter()
        .map(|&f| foundry_count(&clamps, f))
        .collect()))
}

/// Clamps Foundry reads otherwise than Omen on a term with other modifiers, which no reading here
/// follows: the span from the first such clamp to the modifier it disagrees with, and why.
/// - A clamp after a count (`cs`, `cf`, …): the count set every die's count, and the clamp sets it
///   again for the faces its test meets, where Omen clamps the count.
/// - Several clamps giving some face another value than Omen's (or faces not known), beside
///   modifiers other than an explosion after all of them (read in batches, explosions_in_turn.rs):
///   a keep compares the face shown, not the value the clamps set, and a step before the clamps
///   changes the face they test.
pub(super) fn unread_clamps(
    sides: &Sides,
    modifiers: &[Spanned<Modifier>],
) -> Option<(Span, &'static str)> {
    let is_count = |m: &Modifier| matches!(m, Modifier::Success(_) | Modifier::Failure(_));
    if let Some(count) = modifiers.iter().position(|m| is_count(&m.node))
        && let Some(clamp) = modifiers[count..]
            .iter()
            .find(|m| Clamp::of(&m.node).is_some())
    {
        return Some((
            modifiers[count].span.to(clamp.span),
            "a count sets what each die counts and a clamp after it sets it again for the faces \
             its test meets",
        ));
    }
    let at: Vec<usize> = (0..modifiers.len())
        .filter(|&i| Clamp::of(&modifiers[i].node).is_some())
        .collect();
    if at.len() < 2 || at.len() == modifiers.len() {
        return None;
    }
    let clamps: Vec<Clamp> = at
        .iter()
        .filter_map(|&i| Clamp::of(&modifiers[i].node))
        .collect();
    let agree = listed_faces(sides, "several clamps").is_ok_and(|faces| {
        faces
            .iter()
            .all(|&f| foundry_count(&clamps, f) == omen_face(&clamps, f))
    });
    let explosion = modifiers
        .iter()
        .position(|m| matches!(m.node, Modifier::Explode { .. }));
    let before_explosion = explosion.is_some_and(|x| at.iter().all(|&i| i < x));
    if agree || before_explosion {
        return None;
    }
    let (first, last) = (at[0], at[at.len() - 1]);
    let other = (0..modifiers.len())
        .rfind(|i| !at.contains(i))
        .unwrap_or(last);
    Some((
        modifiers[first.min(other)]
            .span
            .to(modifiers[last.max(other)].span),
        "each clamp tests the face shown and sets what the die counts, and the other modifiers on \
         the term compare the face shown",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN5: Clamp = Clamp {
        lowest: true,
        value: 5,
    };
    const MAX3: Clamp = Clamp {
        lowest: false,
        value: 3,
    };

    #[test]
    fn foundry_clamps_compare_the_face_shown_not_the_count() {
        // `min5max3`: a 1 counts 5 (max3 does not apply to the face 1), a 4 counts 3.
        assert_eq!(foundry_count(&[MIN5, MAX3], 1), 5);
        assert_eq!(foundry_count(&[MIN5, MAX3], 4), 3);
        // Omen clamps the clamped face: 1 becomes 5, then 3.
        assert_eq!(omen_face(&[MIN5, MAX3], 1), 3);
    }
}

//! Foundry's reroll with a cap, `20d20r1=1`: the number before the compare point is how many dice the
//! whole roll may reroll. Foundry walks the dice in the order rolled and rerolls, once each, the first
//! ones meeting the point until the cap is spent ("20d20r1=1: reroll a single 1" in its API reference).
//!
//! The dice are exchangeable, so the order does not matter to the total: with `k` of the `n` dice meeting
//! the point, `m = min(k, cap)` of them are rerolled, and given `k` the dice that keep their roll are
//! independent, each uniform over the faces meeting the point (or over the others). The term therefore
//! reads as `let k = (n dice counted against the point) in (n - k)d{other faces} + (k - m)d{meeting
//! faces} + (m)d{all faces}`, which the exact engine weighs value by value of `k`.

use super::Parser;
use super::capped_pool::{kinds_of, pooled_reading};
use super::capped_recursive::{MAX_RECURSIVE_CAP, Recursion, capped_recursion};
use super::pieces::{Cap, CappedReroll, Point, compare_op, shorten};
use super::rescore::{listed_faces, meets};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{
    BinOp, CompareOp, ComparePoint, DiceExpr, Expr, ExprKind, FaceItem, Modifier, PointValue,
    Sides, Spanned,
};

impl Parser<'_> {
    /// Foundry's `r`: reroll once, with a cap when a compare point follows the number at once
    /// (`r1=1`). A capped one is kept for the term as a whole and returns no modifier.
    pub(super) fn reroll_once_word(&mut self, keyword: Span) -> Option<Modifier> {
        let point = self.word_point(keyword, true, true, "rerolls once the dice")?;
        let once = Cap {
            added: false,
            recursive: false,
        };
        match self.take_cap(keyword, &point, once)? {
            true => None,
            false => Some(Modifier::RerollOnce(point)),
        }
    }

    /// Foundry's `xo` with a cap (`5d10xo2>=8`): each of the first dice meeting the point (at most the
    /// cap) explodes once, the new dice not checked again, so the capped form with the dice kept and
    /// the new ones added. `Some(true)` when taken, `Some(false)` when there is no cap.
    pub(super) fn capped_explode_once(
        &mut self,
        keyword: Span,
        point: &ComparePoint,
    ) -> Option<bool> {
        let once = Cap {
            added: true,
            recursive: false,
        };
        self.take_cap(keyword, point, once)
    }

    /// Foundry's `x` and `rr` with a cap (`5d10x5>=8`, `2d20rr1=1`): the new dice are checked too,
    /// until the cap is spent (see capped_recursive.rs). `Some(true)` when taken.
    pub(super) fn capped_recursive(
        &mut self,
        keyword: Span,
        point: &ComparePoint,
        explode: bool,
    ) -> Option<bool> {
        let recursive = Cap {
            added: explode,
            recursive: true,
        };
        self.take_cap(keyword, point, recursive)
    }

    /// In a dialect without caps that warns of other readings, `rr1>=2` is a reroll of the 1s, then a
    /// count of the dice meeting `>=2`; Foundry, whose `r` and `rr` these are, reads the 1 as a cap.
    fn warn_cap_in_foundry(&mut self, keyword: Span) {
        let word = self.text(keyword).to_string();
        if !self.dialect.warn_other_readings || !matches!(word.as_str(), "r" | "rr") {
            return;
        }
        let at = Span::new(keyword.start, self.prev_end);
        let written = self.text(at).to_string();
        let number = &written[word.len()..];
        self.warnings.push(
            Diagnostic::warning(
                "capped-step-differs-in-foundry",
                at,
                format!(
                    "`{written}` followed at once by a compare point rerolls the dice showing \
                     {number}, then the point counts the dice; Foundry reads {number} as a cap, how \
                     many dice the roll may reroll, and the point as which dice it rerolls"
                ),
            )
            .with_help("read it as Foundry does with `--dialect foundry`"),
        );
    }

    /// When the number just read as `point` is a cap (a compare point follows it at once, in a dialect
    /// with caps), reads that point and keeps the capped step for the term: `Some(true)`. `Some(false)`
    /// when it is no cap, `None` when the point after it is malformed (reported).
    fn take_cap(&mut self, keyword: Span, point: &ComparePoint, kind: Cap) -> Option<bool> {
        let token = self.peek();
        let glued_point = token.span.start == self.prev_end
            && compare_op(token.kind).is_some()
            && self
                .text(Span::new(keyword.end, self.prev_end))
                .bytes()
                .all(|b| b.is_ascii_digit());
        if !self.dialect.capped_counts || !glued_point || keyword.end == self.prev_end {
            if glued_point && keyword.end != self.prev_end {
                self.warn_cap_in_foundry(keyword);
            }
            return Some(false);
        }
        let PointValue::Int(cap) = point.value else {
            return Some(false);
        };
        let capped = match self.parse_point(false) {
            Point::Present(capped) => capped,
            Point::Absent | Point::Invalid => return None,
        };
        let at = Span::new(keyword.start, self.prev_end);
        if self.term.capped_reroll.is_some() {
            self.refuse_capped(at, "a second capped reroll on one term is not computed yet");
        } else {
            self.term.capped_reroll = Some((cap, capped, at, kind));
        }
        Some(true)
    }

    fn refuse_capped(&mut self, at: Span, why: &str) {
        let written = shorten(self.text(at));
        self.report(
            Diagnostic::error(
                "unsupported-modifier",
                at,
                format!("`{written}` in the {} dialect: {why}", self.dialect.name),
            )
            .with_help("leave the cap out when every die may reroll, e.g. `20d20r=1`"),
        );
    }

    /// The dice term with its capped reroll applied (see the module's header), or refused when its
    /// faces are not known from its sides. A plain term with a written count is a sum of dice terms;
    /// one with modifiers after the step or a rolled count reads a pool (see capped_pool.rs).
    pub(super) fn capped_reroll_term(
        &mut self,
        dice: Expr,
        (cap, point, at, kind): CappedReroll,
        plain: bool,
        extras: bool,
    ) -> Expr {
        let written = matches!(&dice.node, ExprKind::Dice(term)
            if matches!(term.count.as_ref().map(|c| &c.node), None | Some(ExprKind::Number(_))));
        let read = if !extras && (!plain || !written) {
            let sides = match &dice.node {
                ExprKind::Dice(term) => Ok(&term.sides),
                _ => Err("a capped reroll applies to dice".to_string()),
            };
            sides
                .and_then(|sides| kinds_of(sides, &point, |faces| listed(faces, sides.span)))
                .and_then(|kinds| pooled_reading(&dice, (cap, &point, at, kind), kinds))
        } else if kind.recursive {
            recursive_reading(&dice, cap, &point, at, plain, kind.added)
        } else {
            capped_reading(&dice, cap, &point, at, plain, kind.added)
        };
        match read {
            Ok(read) => read,
            Err(why) => {
                self.refuse_capped(at, &why);
                dice
            }
        }
    }
}

impl Parser<'_> {
    /// d20's `ra` on more than one die (`2d6ra6`): one more die rolled, and added, for the first die
    /// meeting the point, so at most one for the whole roll: the capped form above with a cap of one,
    /// the dice meeting the point keeping their roll. Refused with other operations on the term.
    pub(super) fn added_once_term(&mut self, dice: Expr, at: Span) -> Expr {
        let read = match &dice.node {
            ExprKind::Dice(term) => match term.modifiers.as_slice() {
                [
                    Spanned {
                        node: Modifier::Explode { point, .. },
                        ..
                    },
                ] => {
                    let mut plain = dice.clone();
                    if let ExprKind::Dice(plain_term) = &mut plain.node {
                        plain_term.modifiers.clear();
                    }
                    let point = match point.clone() {
                        Some(point) => Ok(point),
                        None => listed_faces(&term.sides.node, "`ra`")
                            .map_err(|e| e.to_string())
                            .and_then(|faces| {
                                faces
                                    .into_iter()
                                    .max()
                                    .ok_or_else(|| "a die with no faces".into())
                            })
                            .map(|top| ComparePoint {
                                op: CompareOp::Eq,
                                value: PointValue::Int(top),
                            }),
                    };
                    point.and_then(|point| capped_reading(&plain, 1, &point, at, true, true))
                }
                _ => Err("`ra` with other operations on one term is not computed yet".into()),
            },
            _ => Err("`ra` applies to dice".into()),
        };
        match read {
            Ok(read) => read,
            Err(why) => {
                let written = shorten(self.text(at));
                self.report(
                    Diagnostic::error(
                        "unsupported-modifier",
                        at,
                        format!("`{written}` in the {} dialect: {why}", self.dialect.name),
                    )
                    .with_help("see docs/dialects.md for what each dialect supports"),
                );
                dice
            }
        }
    }
}

/// The reading of a capped reroll, or why it is not computed; with `added`, the dice meeting the point
/// keep their roll and the new dice are added beside them (d20's `ra`).
fn capped_reading(
    dice: &Expr,
    cap: i64,
    point: &ComparePoint,
    at: Span,
    plain: bool,
    added: bool,
) -> Result<Expr, String> {
    let ExprKind::Dice(term) = &dice.node else {
        return Err("a capped reroll applies to dice".to_string());
    };
    if !plain {
        return Err(
            "a capped reroll together with other modifiers on one term is not computed yet".into(),
        );
    }
    let count = match term.count.as_ref().map(|c| &c.node) {
        None => 1,
        Some(ExprKind::Number(n)) if *n >= 0 => *n,
        Some(_) => return Err("a capped reroll needs the number of dice written out".into()),
    };
    if cap < 0 {
        return Err("the cap on rerolls cannot be negative".into());
    }
    let PointValue::Int(target) = point.value else {
        return Err("a capped reroll's point must be a number".into());
    };
    let faces = listed_faces(&term.sides.node, "a capped reroll")?;
    let (meeting, other): (Vec<i64>, Vec<i64>) =
        faces.iter().partition(|&&f| meets(point.op, target, f));
    let span = dice.span;
    let name = if added {
        format!("meeting_{}", span.start)
    } else {
        format!("rerolled_{}", span.start)
    };
    let var = || Expr::new(ExprKind::Var(name.clone()), at);
    let number = |n: i64| Expr::new(ExprKind::Number(n), at);
    let binary =
        |op, a: Expr, b: Expr| Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), span);
    let rerolled = || {
        Expr::new(
            ExprKind::Call(
                Spanned::new("min".to_string(), at),
                vec![var(), number(cap)],
            ),
            at,
        )
    };
    let dice_of = |count: Expr, sides: Spanned<Sides>| {
        Expr::new(
            ExprKind::Dice(Box::new(DiceExpr {
                count: Some(count),
                sides,
                modifiers: Vec::new(),
            })),
            span,
        )
    };
    let counted = Expr::new(
        ExprKind::Dice(Box::new(DiceExpr {
            count: term.count.clone(),
            sides: term.sides.clone(),
            modifiers: vec![Spanned::new(Modifier::Success(point.clone()), at)],
        })),
        span,
    );
    let mut parts = Vec::new();
    if !other.is_empty() {
        let kept = binary(BinOp::Sub, number(count), var());
        parts.push(dice_of(kept, listed(&other, term.sides.span)));
    }
    if !meeting.is_empty() {
        // Rerolled dice leave their roll; added ones keep it beside the new die.
        let kept = if added {
            var()
        } else {
            binary(BinOp::Sub, var(), rerolled())
        };
        parts.push(dice_of(kept, listed(&meeting, term.sides.span)));
    }
    parts.push(dice_of(rerolled(), term.sides.clone()));
    let body = parts
        .into_iter()
        .reduce(|sum, part| binary(BinOp::Add, sum, part))
        .unwrap_or_else(|| number(0));
    Ok(Expr::new(
        ExprKind::LetIn(Spanned::new(name, at), Box::new(counted), Box::new(body)),
        span,
    ))
}

/// The reading of a capped recursive explosion (`explode`) or reroll, or why it is not computed.
fn recursive_reading(
    dice: &Expr,
    cap: i64,
    point: &ComparePoint,
    at: Span,
    plain: bool,
    explode: bool,
) -> Result<Expr, String> {
    let what = if explode {
        "a capped explosion"
    } else {
        "a capped reroll"
    };
    let ExprKind::Dice(term) = &dice.node else {
        return Err(format!("{what} applies to dice"));
    };
    if !plain {
        return Err(format!(
            "{what} together with other modifiers on one term is not computed yet"
        ));
    }
    let count = match term.count.as_ref().map(|c| &c.node) {
        None => 1,
        Some(ExprKind::Number(n)) if *n >= 0 => *n,
        Some(_) => return Err(format!("{what} needs the number of dice written out")),
    };
    if !(0..=MAX_RECURSIVE_CAP).contains(&cap) {
        return Err(format!(
            "{what} is computed with a cap of 0 to {MAX_RECURSIVE_CAP} (each use of the cap is one \
             more generation of dice written out); without a cap `--explode-depth` bounds the chain"
        ));
    }
    let PointValue::Int(target) = point.value else {
        return Err(format!("{what}'s point must be a number"));
    };
    let faces = listed_faces(&term.sides.node, what)?;
    let (meeting, other): (Vec<i64>, Vec<i64>) =
        faces.iter().partition(|&&f| meets(point.op, target, f));
    if meeting.is_empty() || cap == 0 {
        return Ok(dice.clone());
    }
    let recursion = Recursion {
        sides: &term.sides,
        meeting: listed(&meeting, term.sides.span),
        other: (!other.is_empty()).then(|| listed(&other, term.sides.span)),
        point,
        explode,
    };
    Ok(capped_recursion(&recursion, count, cap, dice.span, at))
}

/// Faces as a die's list, runs of consecutive values written as ranges (`{2..20}`).
pub(super) fn listed(faces: &[i64], span: Span) -> Spanned<Sides> {
    let mut items: Vec<Spanned<FaceItem>> = Vec::new();
    let mut run: Option<(i64, i64)> = None;
    let close = |run: (i64, i64), items: &mut Vec<Spanned<FaceItem>>| {
        let item = if run.0 == run.1 {
            FaceItem::Face(run.0)
        } else {
            FaceItem::Range(run.0, run.1)
        };
        items.push(Spanned::new(item, span));
    };
    for &face in faces {
        run = match run {
            Some((lo, hi)) if hi.checked_add(1) == Some(face) => Some((lo, face)),
            Some(done) => {
                close(done, &mut items);
                Some((face, face))
            }
            None => Some((face, face)),
        };
    }
    if let Some(done) = run {
        close(done, &mut items);
    }
    Spanned::new(Sides::Custom(items), span)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_are_listed_as_runs() {
        let sides = listed(&[2, 3, 4, 7, 9, 10], Span::new(0, 0));
        let Sides::Custom(items) = sides.node else {
            panic!("custom sides")
        };
        let items: Vec<FaceItem> = items.into_iter().map(|i| i.node).collect();
        assert_eq!(
            items,
            [
                FaceItem::Range(2, 4),
                FaceItem::Face(7),
                FaceItem::Range(9, 10)
            ]
        );
    }
}

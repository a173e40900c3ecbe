//! Foundry's several explosions on one term, `5d10x9x10`: each runs in turn over every die so far,
//! its new dice appended and checked by it (`x`) or not (`xo`), and by every explosion after it, never
//! by one before it.
//!
//! The dice are read in batches: `c` dice uniform over some faces, checked by the explosions from the
//! `j`-th on. Of them, `k` meet the `j`-th point (a count rolled first and bound by a name); given `k`,
//! those `k` are uniform over the faces meeting it and the rest over the others, two batches for the
//! explosions after it. What the `j`-th explosion adds for the `k` dice is one more batch: under `xo`,
//! `k` new dice over every face; under `x`, `k` chains of new dice, rolled while they meet the point,
//! so `k` new dice ending the chains (over the faces not meeting it) and before them as many meeting
//! it as `k` dice count that show 1 on those faces and explode on 1 (cut at `--explode-depth`, as any
//! explosion is, and the mass cut reported). The last batches are plain dice terms: the exact engine
//! sums them, weighing each count bound on the way.
//!
//! Foundry's `min` and `max` written before the explosions change what the dice first rolled count,
//! not the faces the explosions compare (see clamps.rs): the batches of those dice list their
//! clamped counts, the dice the explosions add their faces.

use super::Parser;
use super::capped::listed;
use super::clamps::{Clamp, clamp_moves_explosion, foundry_count};
use super::pieces::shorten;
use super::rescore::{listed_faces, meets};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{
    BinOp, CompareOp, ComparePoint, DiceExpr, Expr, ExprKind, Modifier, PointValue, Sides, Spanned,
};

/// The most explosions on one term read: the reading repeats the later ones for each earlier one.
const MAX_EXPLOSIONS: usize = 4;

/// The batch of the dice first rolled: checked from the first explosion on, counting their clamps.
const FIRST: (usize, bool) = (0, true);

/// One explosion of the term: whether it checks its new dice, and which faces meet its point.
struct Explosion {
    recursive: bool,
    op: CompareOp,
    target: i64,
}

struct Family<'a> {
    faces: &'a [i64],
    explosions: &'a [Explosion],
    /// The clamps written before the explosions, which the dice first rolled count by.
    clamps: &'a [Clamp],
    at: Span,
    stem: usize,
    /// Names made so far, so that each binding has its own.
    names: std::cell::Cell<usize>,
}

impl Parser<'_> {
    /// A dice term with several explosions in a dialect that runs them in turn: read as the sum of its
    /// families (see the module's header), or refused with why.
    pub(super) fn explosions_in_turn(&mut self, dice: Expr, capped: bool) -> Expr {
        let ExprKind::Dice(term) = &dice.node else {
            return dice;
        };
        let spans: Vec<Span> = term
            .modifiers
            .iter()
            .filter(|m| matches!(m.node, Modifier::Explode { .. }))
            .map(|m| m.span)
            .collect();
        let faces = listed_faces(&term.sides.node, "a clamp before an explosion").ok();
        let clamped = clamp_moves_explosion(term, faces.as_deref());
        if spans.len() < 2 && !clamped {
            return dice;
        }
        let at = match term.modifiers.first() {
            Some(first) if clamped => first.span.to(spans[spans.len() - 1]),
            _ => spans[0].to(spans[spans.len() - 1]),
        };
        match families(term, capped, at, dice.span) {
            Ok(read) => read,
            Err(why) => {
                let what = if spans.len() < 2 {
                    "a clamp before an explosion changes what the dice first rolled count, not the \
                     faces the explosion compares"
                } else {
                    "several explosions on one term run one after another over every die so far"
                };
                self.report(
                    Diagnostic::error(
                        "unsupported-modifier",
                        at,
                        format!(
                            "`{}` in the {} dialect: {what}; {why}",
                            shorten(self.text(at)),
                            self.dialect.name
                        ),
                    )
                    .with_help(if spans.len() < 2 {
                        "clamp after the explosion, e.g. `3d6xmax5`, if that is the rule"
                    } else {
                        "explode once with one point, e.g. `x>=9`, if that is the rule"
                    }),
                );
                dice
            }
        }
    }
}

/// The term as the sum of its families, or why it is not computed.
fn families(term: &DiceExpr, capped: bool, at: Span, span: Span) -> Result<Expr, String> {
    if capped {
        return Err("with a capped step on the same term that is not computed yet".into());
    }
    let faces = listed_faces(&term.sides.node, "several explosions")?;
    let top = faces.iter().copied().max().ok_or("a die with no faces")?;
    let mut explosions = Vec::new();
    let mut clamps = Vec::new();
    let mut exploded = false;
    for modifier in &term.modifiers {
        if let Some(clamp) = Clamp::of(&modifier.node).filter(|_| !exploded) {
            clamps.push(clamp);
            continue;
        }
        // Foundry's explosions add plain dice anyway (the `a` marks it after a clamp).
        if modifier.node == Modifier::PlainAdded {
            continue;
        }
        let Modifier::Explode {
            compound: false,
            point,
            once,
            penetrate: false,
        } = &modifier.node
        else {
            return Err("with other modifiers on the term that is not computed yet".into());
        };
        exploded = true;
        let (op, target) = match point {
            None => (CompareOp::Eq, top),
            Some(ComparePoint {
                op,
                value: PointValue::Int(target),
            }) => (*op, *target),
            Some(_) => return Err("an explosion's point must be a number".into()),
        };
        let meeting = faces.iter().filter(|&&f| meets(op, target, f)).count();
        if meeting == faces.len() && !once {
            return Err("an explosion that every face meets never ends".into());
        }
        // An explosion no face meets adds nothing.
        if meeting > 0 {
            explosions.push(Explosion {
                recursive: !once,
                op,
                target,
            });
        }
    }
    if explosions.len() > MAX_EXPLOSIONS {
        return Err(format!(
            "at most {MAX_EXPLOSIONS} explosions on one term are computed"
        ));
    }
    let family = Family {
        faces: &faces,
        explosions: &explosions,
        clamps: &clamps,
        at,
        stem: span.start,
        names: std::cell::Cell::new(0),
    };
    Ok(match term.count.clone() {
        None => family.batch(family.expr(ExprKind::Number(1)), &faces, FIRST),
        Some(count) if matches!(count.node, ExprKind::Number(_)) => {
            family.batch(count, &faces, FIRST)
        }
        // A rolled count is rolled once, then named.
        Some(rolled) => {
            let name = family.name();
            let body = family.batch(family.var(&name), &faces, FIRST);
            family.let_in(name, rolled, body)
        }
    })
}

impl Family<'_> {
    fn expr(&self, node: ExprKind) -> Expr {
        Expr::new(node, self.at)
    }

    fn name(&self) -> String {
        let n = self.names.get();
        self.names.set(n + 1);
        format!("explosion_{}_{n}", self.stem)
    }

    fn var(&self, name: &str) -> Expr {
        self.expr(ExprKind::Var(name.to_string()))
    }

    fn dice(&self, count: Expr, faces: &[i64], modifiers: Vec<Spanned<Modifier>>) -> Expr {
        self.expr(ExprKind::Dice(Box::new(DiceExpr {
            count: Some(count),
            sides: listed_faces_as_die(faces, self.at),
            modifiers,
        })))
    }

    fn binary(&self, op: BinOp, a: Expr, b: Expr) -> Expr {
        self.expr(ExprKind::Binary(op, Box::new(a), Box::new(b)))
    }

    fn let_in(&self, name: String, value: Expr, body: Expr) -> Expr {
        self.expr(ExprKind::LetIn(
            Spanned::new(name, self.at),
            Box::new(value),
            Box::new(body),
        ))
    }

    fn point(&self, explosion: &Explosion) -> ComparePoint {
        ComparePoint {
            op: explosion.op,
            value: PointValue::Int(explosion.target),
        }
    }

    /// The total of `count` dice uniform over `faces`, checked by the explosions from the `from`-th
    /// on (counted from 0), with every die they add; `first` when they are dice first rolled, which
    /// count their clamped value. `count` is a name or a sum of names, so it may be written twice.
    fn batch(&self, count: Expr, faces: &[i64], (from, first): (usize, bool)) -> Expr {
        let Some(explosion) = self.explosions.get(from) else {
            if first && !self.clamps.is_empty() {
                let counted: Vec<i64> = faces
                    .iter()
                    .map(|&f| foundry_count(self.clamps, f))
                    .collect();
                return self.dice(count, &counted, Vec::new());
            }
            return self.dice(count, faces, Vec::new());
        };
        let next = (from + 1, first);
        let (meet, other): (Vec<i64>, Vec<i64>) = faces
            .iter()
            .partition(|&&f| meets(explosion.op, explosion.target, f));
        if meet.is_empty() {
            return self.batch(count, faces, next);
        }
        // How many of the dice meet the point: all of them, or a count bound by a name.
        let (meeting, binding) = if other.is_empty() {
            (count.clone(), None)
        } else {
            let name = self.name();
            let counted = self.dice(
                count.clone(),
                faces,
                vec![Spanned::new(
                    Modifier::Success(self.point(explosion)),
                    self.at,
                )],
            );
            (self.var(&name), Some((name, counted)))
        };
        let mut body = self.binary(
            BinOp::Add,
            self.batch(meeting.clone(), &meet, next),
            self.added(meeting.clone(), from),
        );
        if !other.is_empty() {
            let rest = self.binary(BinOp::Sub, count, meeting);
            body = self.binary(BinOp::Add, self.batch(rest, &other, next), body);
        }
        match binding {
            Some((name, counted)) => self.let_in(name, counted, body),
            None => body,
        }
    }

    /// The total of the dice the `k`-th explosion adds for `count` dice meeting its point: one new
    /// die each under `xo`; under `x` a chain each, new dice rolled while they meet the point, so
    /// `count` chains end on a die not meeting it, and the dice meeting it before are counted by
    /// dice that show 1 on the faces meeting it and explode on 1.
    fn added(&self, count: Expr, k: usize) -> Expr {
        let explosion = &self.explosions[k];
        if !explosion.recursive {
            return self.batch(count, self.faces, (k + 1, false));
        }
        let (meet, other): (Vec<i64>, Vec<i64>) = self
            .faces
            .iter()
            .partition(|&&f| meets(explosion.op, explosion.target, f));
        let marks: Vec<i64> = self
            .faces
            .iter()
            .map(|&f| i64::from(meets(explosion.op, explosion.target, f)))
            .collect();
        let on_one = Spanned::new(
            Modifier::Explode {
                compound: false,
                point: Some(ComparePoint {
                    op: CompareOp::Eq,
                    value: PointValue::Int(1),
                }),
                once: false,
                penetrate: false,
            },
            self.at,
        );
        // The chains' last dice are outside the binding: they do not depend on it, and the exact
        // engine weighs what is inside once for each value bound.
        let name = self.name();
        let meeting = self.batch(self.var(&name), &meet, (k + 1, false));
        let meeting = self.let_in(
            name,
            self.dice(count.clone(), &marks, vec![on_one]),
            meeting,
        );
        self.binary(
            BinOp::Add,
            meeting,
            self.batch(count, &other, (k + 1, false)),
        )
    }
}

/// Faces in the order given, repeated ones kept (they weigh the die).
fn listed_faces_as_die(faces: &[i64], at: Span) -> Spanned<Sides> {
    let mut sorted = faces.to_vec();
    sorted.sort_unstable();
    if sorted.windows(2).all(|w| w[0] != w[1]) {
        return listed(&sorted, at);
    }
    Spanned::new(
        Sides::Custom(
            faces
                .iter()
                .map(|&f| Spanned::new(crate::syntax::ast::FaceItem::Face(f), at))
                .collect(),
        ),
        at,
    )
}

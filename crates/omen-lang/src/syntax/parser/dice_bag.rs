//! A Dice Maiden dice term read the way its dice library, Dice-Bag, runs it, whatever order its
//! words are written in. The library holds one number per word (the last written counts; every
//! `t` adds a target), corrects some (a reroll at or above the sides, and a drop that with `k`
//! reaches every die first rolled, are reset to 0 with the keep; a target or failure number past
//! the sides is removed), and then always runs the same steps: each die is rerolled once at or below
//! the larger of `r` and `ir` and then while at or below `ir`; it explodes once at `e` or `ie` and
//! its added dice again while at or above `ie`, each added die rerolled the same way; the lowest
//! `d` dice are dropped, then the lowest `kl` kept or, without `kl`, the highest `k` and the
//! highest `b`; the total is the sum or, with targets or a failure number, for each target the
//! dice meeting it less the dice at or below the failure number.

use super::Parser;
use super::dice_maiden_keeps::{Keeps, dice_first_rolled};
use super::double_success::scored_explosion;
use super::pieces::{at_least, at_most};
use super::rescore::Rescore;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{
    CompareOp, ComparePoint, Expr, ExprKind, Modifier, PointValue, Sides, Spanned,
};

/// The library's words on one term: 0 where a word is not given.
#[derive(Default)]
struct Words {
    explode: i64,
    explode_indefinite: i64,
    /// The explosions' points as written (`None` for a bare `e`, `ie`: the highest face).
    points: (Option<ComparePoint>, Option<ComparePoint>),
    reroll: i64,
    reroll_indefinite: i64,
    keeps: Keeps,
    targets: Vec<i64>,
    failure: i64,
    botch: Option<(ComparePoint, i64)>,
}

/// What the term's words leave for its reading as a whole.
pub(super) struct DiceBagRead {
    /// A failure number without a target: the term is the negated count of the dice at or below it.
    pub negate: bool,
}

impl Parser<'_> {
    /// Rewrites a Dice Maiden term whose modifiers are all Dice-Bag's words into Omen's modifiers in
    /// the library's order. A term with other words (`tl`, `rg`, `km`, `ds`, `adv`, …) has only
    /// its keeps put in that order.
    pub(super) fn dice_bag_words(
        &mut self,
        count: Option<&Expr>,
        sides: &Sides,
        modifiers: &mut Vec<Spanned<Modifier>>,
    ) -> DiceBagRead {
        let plain = DiceBagRead { negate: false };
        if !self.dialect.game_aliases || modifiers.is_empty() {
            return plain;
        }
        let faces = match sides {
            Sides::Number(Expr {
                node: ExprKind::Number(n),
                ..
            }) => Some(*n),
            _ => None,
        };
        let words = faces
            .filter(|_| self.rescore.is_none() && self.advantage.is_none())
            .and_then(|faces| Some((faces, read_words(modifiers, faces)?)));
        let Some((sides, mut words)) = words else {
            self.order_dice_maiden_keeps(count, modifiers);
            return plain;
        };
        let at = modifiers[0].span.to(modifiers[modifiers.len() - 1].span);
        let dice = dice_first_rolled(count);
        self.correct_words(&mut words, sides, at);
        let Some(read) = self.dice_bag_modifiers(&words, sides, dice, at) else {
            modifiers.clear();
            return plain;
        };
        *modifiers = read.into_iter().map(|m| Spanned::new(m, at)).collect();
        DiceBagRead {
            negate: words.targets.is_empty() && words.failure > 0,
        }
    }

    /// The library's corrections of the reroll, targets and failure number, said in a warning
    /// where they change what was written (its drop and keep: [`Self::dice_bag_keeps`]).
    fn correct_words(&mut self, words: &mut Words, sides: i64, at: Span) {
        let mut reset = Vec::new();
        if words.reroll >= sides {
            reset.push(format!("`r{}` (at or above the sides)", words.reroll));
            words.reroll = 0;
        }
        let before = words.targets.len();
        words.targets.retain(|t| (0..=sides).contains(t));
        if words.targets.len() < before {
            reset.push("a target past the sides".to_string());
        }
        if !(0..=sides).contains(&words.failure) {
            reset.push(format!("`f{}` (past the sides)", words.failure));
            words.failure = 0;
        }
        if !reset.is_empty() {
            self.warn_dice_bag_reset(&reset, at);
        }
    }

    /// Omen's modifiers for the corrected words, in the library's order; `None` after an error.
    fn dice_bag_modifiers(
        &mut self,
        words: &Words,
        sides: i64,
        dice: Option<i64>,
        at: Span,
    ) -> Option<Vec<Modifier>> {
        let mut read = Vec::new();
        let (once, again) = (words.reroll, words.reroll_indefinite);
        if once > again && again > 0 {
            // The library rerolls the die the once-reroll left with plain dice, where Omen's
            // second step would roll each new die through the first again.
            self.report(
                Diagnostic::error(
                    "unsupported-modifier",
                    at,
                    format!(
                        "Dice Maiden rerolls a die once at {once} or less (`r{once}`) and then \
                         with plain dice while at {again} or less (`ir{again}`): the two together \
                         are not computed yet"
                    ),
                )
                .with_help("one of `r` and `ir` alone is computed"),
            );
            return None;
        }
        if once > again {
            read.push(Modifier::RerollOnce(at_most(once)));
        }
        if again > 0 {
            read.push(Modifier::RerollRecursive(at_most(words.reroll_indefinite)));
        }
        let explosion = match (words.explode, words.explode_indefinite) {
            (0, 0) => None,
            (_, 0) => Some((words.points.0.clone(), true)),
            (once, again) if once == 0 || once >= again => Some((words.points.1.clone(), false)),
            (once, again) => {
                self.report(
                    Diagnostic::error(
                        "unsupported-modifier",
                        at,
                        format!(
                            "Dice Maiden explodes a die once at {once} or more (`e{once}`) and its \
                             added dice again at {again} or more (`ie{again}`): two explosion \
                             points on one term are not computed yet"
                        ),
                    )
                    .with_help("give `e` and `ie` the same number, or write one of them"),
                );
                return None;
            }
        };
        let explosion = explosion.map(|(point, once)| Modifier::Explode {
            compound: false,
            point,
            once,
            penetrate: false,
        });
        read.extend(explosion.clone());
        let botch = words.botch.as_ref().map(|b| b.1);
        if words.keeps != Keeps::default() || botch.is_some() {
            let explodes = explosion.is_some();
            read.extend(self.dice_bag_keeps(words.keeps, botch, dice, explodes, at)?);
        }
        if let Some((point, _)) = &words.botch {
            self.warn_botch(point, at);
            read.push(Modifier::Critical {
                failure: true,
                point: Some(point.clone()),
            });
        }
        self.dice_bag_total(words, sides, explosion, &mut read, at);
        Some(read)
    }

    /// The targets and the failure number on the dice kept.
    fn dice_bag_total(
        &mut self,
        words: &Words,
        sides: i64,
        explosion: Option<Modifier>,
        read: &mut Vec<Modifier>,
        at: Span,
    ) {
        match words.targets.as_slice() {
            [] if words.failure > 0 => read.push(Modifier::Success(at_most(words.failure))),
            [] => {}
            [target] => {
                read.push(Modifier::Success(at_least(*target)));
                if words.failure > 0 {
                    read.push(Modifier::Failure(at_most(words.failure)));
                }
            }
            targets => {
                // Several targets score each die: one for each target met, less one for each
                // target when at or below the failure number. The score rises with the face, so
                // the keeps pick the same dice on the scores.
                let scored = Rescore::Targets {
                    targets: targets.to_vec(),
                    failure: words.failure,
                };
                let faces = Sides::Number(Expr::new(ExprKind::Number(sides), at));
                if let Some(explosion) = explosion {
                    match scored_explosion(&faces, &scored, &explosion) {
                        Ok(on_scores) => {
                            let first = read
                                .iter()
                                .position(|m| matches!(m, Modifier::Explode { .. }));
                            if let Some(i) = first {
                                read.remove(i);
                                if let Some(e) = on_scores {
                                    read.insert(i, e);
                                }
                            }
                        }
                        Err(why) => {
                            self.report(Diagnostic::error(
                                "unsupported-modifier",
                                at,
                                format!("several targets (`t`) with an explosion: {why}"),
                            ));
                            return;
                        }
                    }
                }
                self.rescore = Some((scored, at));
            }
        }
    }

    fn warn_botch(&mut self, point: &ComparePoint, at: Span) {
        let PointValue::Int(n) = point.value else {
            return;
        };
        self.warnings.push(
            Diagnostic::warning(
                "botch-keeps-highest",
                at,
                format!(
                    "`b{n}` marks the dice at {n} or less as botches and, as Dice Maiden's dice \
                     library runs it, keeps only the highest {n} dice for the total; its README \
                     speaks only of counting the botches"
                ),
            )
            .with_help(format!(
                "to count botches and keep every die, write the roll in Omen's notation with \
                 `cf<={n}`"
            )),
        );
    }
}

/// The term's modifiers as the library's words, the last of each counting; `None` when one is
/// not a word of the library's.
fn read_words(modifiers: &[Spanned<Modifier>], sides: i64) -> Option<Words> {
    let mut w = Words::default();
    for m in modifiers {
        let at = |p: &ComparePoint, op: CompareOp| match (p.op == op, &p.value) {
            (true, PointValue::Int(n)) => Some(*n),
            _ => None,
        };
        match &m.node {
            Modifier::Explode {
                compound: false,
                point,
                once,
                penetrate: false,
            } => {
                let n = match point {
                    None => sides,
                    Some(p) => at(p, CompareOp::Ge)?,
                };
                if *once {
                    w.explode = n;
                    w.points.0.clone_from(point);
                } else {
                    w.explode_indefinite = n;
                    w.points.1.clone_from(point);
                }
            }
            Modifier::RerollOnce(p) => w.reroll = at(p, CompareOp::Le)?,
            Modifier::RerollRecursive(p) => w.reroll_indefinite = at(p, CompareOp::Le)?,
            Modifier::Keep { which, count } => {
                if !w.keeps.take(*which, *count) {
                    return None;
                }
            }
            Modifier::Success(p) => w.targets.push(at(p, CompareOp::Ge)?),
            Modifier::Failure(p) => w.failure = at(p, CompareOp::Le)?,
            Modifier::Critical {
                failure: true,
                point: Some(p),
            } => w.botch = Some((p.clone(), at(p, CompareOp::Le)?)),
            _ => return None,
        }
    }
    Some(w)
}

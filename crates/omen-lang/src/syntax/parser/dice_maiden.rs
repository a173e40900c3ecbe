//! Dice Maiden's forms that are not modifier words: its game aliases (`4cod`, `3wh4+`), which stand
//! for a dice term with modifiers, its display flags before the roll (`p 4d6`, `s 4d6`), and double
//! successes (`t7ds10`), which score each die 0, 1 or 2. Switched on by [`Dialect::game_aliases`].

use super::Parser;
use super::double_success::scored_explosion;
use super::kept_steps::kept_dice_then_any_step;
use super::pieces::at_least;
use super::pieces::{add_dice, kept_then_step, one_die_term, shorten};
use super::rescore::Rescore;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{
    CompareOp, ComparePoint, DiceExpr, Expr, ExprKind, KeepWhich, Modifier, PointValue, Sides,
    Spanned,
};
use crate::syntax::lexer::TokenKind;

#[cfg(doc)]
use crate::syntax::dialect::Dialect;

/// The flags Dice Maiden reads before or after a roll that change only how it is shown: private,
/// simple output, no results, unsorted.
const DISPLAY_FLAGS: [&str; 4] = ["p", "s", "nr", "ul"];

impl Parser<'_> {
    /// Skips Dice Maiden's display flags written before the roll (`p 4d6`, `s 4d6 k3`): the total is
    /// the same with or without them. A loop, so that a run of them costs no stack.
    pub(super) fn skip_leading_flags(&mut self) {
        while self.dialect.game_aliases {
            let token = self.peek();
            let next = self.tokens.get(self.pos + 1).copied();
            let is_flag = token.kind == TokenKind::Word
                && DISPLAY_FLAGS
                    .iter()
                    .any(|f| self.text(token.span).eq_ignore_ascii_case(f));
            // Only a flag standing apart before more of the roll; `4d6 p` is read as a modifier word.
            let apart = next.is_some_and(|n| {
                n.span.start > token.span.end
                    && matches!(
                        n.kind,
                        TokenKind::Number | TokenKind::Word | TokenKind::LParen
                    )
            });
            if !(is_flag && apart) {
                return;
            }
            self.bump();
        }
    }

    /// A game alias glued to the count before it, or `None` (consuming nothing). From Dice Maiden's
    /// alias table: `NcoD` is `Nd10 ie10 t8` (10-again), `Ncod8` `Nd10 ie8 t8`, `Ncod9` `Nd10 ie9 t8`,
    /// `Ncodr` `Nd10 r7 t8` (rote quality), `NwhX+` is `Nd6 tX` (Warhammer), `Nyz` `Nd6 t6` (Year
    /// Zero), `NwodX` `Nd10 f1 tX` (World of Darkness).
    pub(super) fn game_alias(&mut self, count: &Expr) -> Option<Expr> {
        let word = self.peek();
        if !self.dialect.game_aliases
            || word.kind != TokenKind::Word
            || word.span.start != count.span.end
        {
            return None;
        }
        let text = self.text(word.span).to_ascii_lowercase();
        if matches!(text.as_str(), "hsn" | "hsk" | "hsh") {
            return self.hero_system_alias(count, &text);
        }
        let next = self.tokens.get(self.pos + 1).copied();
        let glued_number = next
            .filter(|n| n.kind == TokenKind::Number && n.span.start == word.span.end)
            .and_then(|n| self.text(n.span).parse::<i64>().ok().map(|v| (v, n)));
        let (sides, modifiers, tokens) = match (text.as_str(), glued_number) {
            ("cod", Some((again @ (8 | 9), _))) => (10, cod(Some(again)), 2),
            ("cod", _) => (10, cod(Some(10)), 1),
            ("codr", _) => (10, cod(None), 1),
            ("wh", Some((target, number))) => {
                let plus = self.tokens.get(self.pos + 2)?;
                if plus.kind != TokenKind::Plus || plus.span.start != number.span.end {
                    return None;
                }
                (6, vec![Modifier::Success(at_least(target))], 3)
            }
            // Year Zero: successes on 6.
            ("yz", None) => (6, vec![Modifier::Success(at_least(6))], 1),
            ("wod", Some((target, number))) => {
                self.warn_wod(word.span.to(number.span));
                let ones = Modifier::Failure(ComparePoint {
                    op: CompareOp::Le,
                    value: PointValue::Int(1),
                });
                (10, vec![Modifier::Success(at_least(target)), ones], 2)
            }
            _ => return None,
        };
        for _ in 0..tokens {
            self.bump();
        }
        let span = Span::new(count.span.start, self.prev_end);
        let at = Span::new(word.span.start, self.prev_end);
        let sides = Spanned::new(Sides::Number(Expr::new(ExprKind::Number(sides), at)), at);
        let modifiers = modifiers.into_iter().map(|m| Spanned::new(m, at)).collect();
        Some(Expr::new(
            ExprKind::Dice(Box::new(DiceExpr {
                count: Some(count.clone()),
                sides,
                modifiers,
            })),
            span,
        ))
    }

    /// World of Darkness, `4wod8`: Dice Maiden's alias table rolls `4d10 f1 t8` ("explosions are left
    /// off for now"), while its README lists `4d10 f1 ie10 t8`. The roll the bot makes is read; a
    /// warning names the README's.
    fn warn_wod(&mut self, at: Span) {
        self.warnings.push(
            Diagnostic::warning(
                "alias-differs-from-readme",
                at,
                format!(
                    "`{}` reads as Dice Maiden rolls it, without explosions (`d10 f1 t…`); its README \
                     lists 10s exploding too (`ie10`)",
                    shorten(self.text(at))
                ),
            )
            .with_help("for the README's roll, write it out, e.g. `4d10 f1 ie10 t8`"),
        );
    }

    /// Dice Maiden's `ds`: the dice meeting its number count a second success. Read with the term's
    /// other modifiers in [`Self::resolve_double_success`].
    pub(super) fn double_success(&mut self, point: ComparePoint, at: Span) {
        match point.value {
            PointValue::Int(v) => self.set_rescore(Rescore::DoubleSuccess(v), at),
            _ => self.report(
                Diagnostic::error("unsupported-modifier", at, "`ds` takes a number here")
                    .with_help("write the face that counts twice, e.g. `t7ds10`"),
            ),
        }
    }

    /// `t7ds10` as one score per die: a die below 7 counts 0, 7 to 9 count 1, 10 counts 2 (with `tl6ds5`
    /// the points look down). Only with one success count (`t` or `tl`) and nothing else on the term;
    /// otherwise refused, never read without its doubles.
    pub(super) fn resolve_double_success(
        &mut self,
        rescore: Option<(Rescore, Span)>,
        (sides, modifiers): (&Sides, &mut Vec<Spanned<Modifier>>),
    ) -> Option<(Rescore, Span)> {
        let Some((Rescore::DoubleSuccess(double), at)) = rescore else {
            return rescore;
        };
        // One explosion may come with the target, in either order: the bot explodes first.
        let explosions = modifiers
            .iter()
            .filter(|m| matches!(m.node, Modifier::Explode { .. }))
            .count();
        let success = modifiers.iter().find_map(|m| match m.node {
            Modifier::Success(ComparePoint {
                op: op @ (CompareOp::Ge | CompareOp::Le),
                value: PointValue::Int(target),
            }) => Some((op, target)),
            _ => None,
        });
        // Keeps and drops: the bot applies them to the faces before scoring. The score rises with
        // the face from a target `t` and falls with it from `tl`, so the dice it keeps are the
        // ones whose scores the same keep (the other end for `tl`) picks.
        let keeps: Vec<Spanned<Modifier>> = modifiers
            .iter()
            .filter_map(|m| match m.node {
                Modifier::Keep { which, count } => Some(Spanned::new(
                    Modifier::Keep {
                        which: scored_end(which, success.map(|(op, _)| op))?,
                        count,
                    },
                    m.span,
                )),
                _ => None,
            })
            .collect();
        let why = match success {
            Some((op, target))
                if modifiers.len() == 1 + explosions + keeps.len() && explosions <= 1 =>
            {
                let scored = Rescore::Successes { op, target, double };
                let explosion = modifiers
                    .iter()
                    .find(|m| matches!(m.node, Modifier::Explode { .. }))
                    .map(|m| (m.span, scored_explosion(sides, &scored, &m.node)));
                match explosion {
                    Some((_, Err(why))) => why,
                    Some((span, Ok(explosion))) => {
                        modifiers.clear();
                        modifiers.extend(explosion.map(|e| Spanned::new(e, span)));
                        modifiers.extend(keeps);
                        return Some((scored, at));
                    }
                    None => {
                        modifiers.clear();
                        modifiers.extend(keeps);
                        return Some((scored, at));
                    }
                }
            }
            _ => "they are computed only after one target (`t7ds10`, `tl6ds5`) with at most one \
                  explosion, keeps and drops, and no other modifier on the term"
                .to_string(),
        };
        self.report(
            Diagnostic::error(
                "unsupported-modifier",
                at,
                format!("double successes (`ds`): {why}"),
            )
            .with_help("write the target before it, e.g. `6d10 t7ds10`"),
        );
        None
    }
}

/// The keep on the scores that keeps the dice `which` keeps on the faces, under a target of
/// `op` (`>=` for `t`, `<=` for `tl`); `None` for a keep the scores cannot follow (the middle).
fn scored_end(which: KeepWhich, op: Option<CompareOp>) -> Option<KeepWhich> {
    let falling = op == Some(CompareOp::Le);
    Some(match (which, falling) {
        (KeepWhich::KeepMiddle, _) => return None,
        (which, false) => which,
        (KeepWhich::KeepHighest, true) => KeepWhich::KeepLowest,
        (KeepWhich::KeepLowest, true) => KeepWhich::KeepHighest,
        (KeepWhich::DropHighest, true) => KeepWhich::DropLowest,
        (KeepWhich::DropLowest, true) => KeepWhich::DropHighest,
    })
}

/// Chronicles of Darkness: successes on 8 or more, with `again` exploding (10-again and so on) or, for
/// rote quality (`None`), a reroll of each failure once, as Dice Maiden's alias table writes them.
fn cod(again: Option<i64>) -> Vec<Modifier> {
    let first = match again {
        Some(again) => Modifier::Explode {
            compound: false,
            point: Some(at_least(again)),
            once: false,
            penetrate: false,
        },
        None => Modifier::RerollOnce(ComparePoint {
            op: CompareOp::Le,
            value: PointValue::Int(7),
        }),
    };
    vec![first, Modifier::Success(at_least(8))]
}

impl Parser<'_> {
    /// `1d20 adv1 ie`, `1d20 dis1 r1`: Dice Maiden drops the advantage dice first, then explodes or
    /// rerolls the die kept. With one die kept and one step that is a binding and a choice:
    /// `let kept_8 = 2d20dl1 in if kept_8 = 20 then kept_8 + 1d20! else kept_8` (an explosion adds a
    /// new die, exploding again for `ie`; a reroll replaces the die with a new one, rerolled again for
    /// `ir`). `None` for anything else, which stays refused.
    pub(super) fn advantage_then_step(
        &mut self,
        count: Option<&Expr>,
        sides: &Spanned<Sides>,
        modifiers: &[Spanned<Modifier>],
        net: i64,
        at: Span,
    ) -> Option<Expr> {
        let one = matches!(count.map(|c| &c.node), None | Some(ExprKind::Number(1)));
        let fixed =
            !matches!(&sides.node, Sides::Number(e) if !matches!(e.node, ExprKind::Number(_)));
        let ([step], true, true) = (modifiers, one, fixed) else {
            return None;
        };
        let extra = i64::try_from(net.unsigned_abs()).ok()?;
        let span = Span::new(
            count.map_or(sides.span.start, |c| c.span.start),
            self.prev_end,
        );
        let keep = advantage_keep(net, extra);
        let rolled = one_die_term(
            extra.checked_add(1)?,
            sides,
            vec![Spanned::new(keep, at)],
            span,
        );
        kept_then_step(rolled, sides, step, span)
    }
}

impl Parser<'_> {
    /// Dice Maiden's `adv`/`dis` (`net` more dice, dropped from the low end when above 0): with keep,
    /// drop and counting only, more dice and a drop put first; with one die kept and one explosion or
    /// reroll, the term read by [`Self::advantage_then_step`], returned whole; else refused.
    pub(super) fn apply_advantage(
        &mut self,
        count: &mut Option<Expr>,
        sides: &Spanned<Sides>,
        modifiers: &mut Vec<Spanned<Modifier>>,
        net: i64,
        at: Span,
    ) -> Option<Expr> {
        let plain = modifiers.iter().all(|m| {
            matches!(
                m.node,
                Modifier::Keep { .. } | Modifier::Success(_) | Modifier::Failure(_)
            )
        });
        if plain {
            let extra = i64::try_from(net.unsigned_abs()).unwrap_or(i64::MAX);
            *count = Some(add_dice(count.take(), extra, at));
            modifiers.insert(0, Spanned::new(advantage_keep(net, extra), at));
            return None;
        }
        if let Some(kept) = self.advantage_then_step(count.as_ref(), sides, modifiers, net, at) {
            return Some(kept);
        }
        // Several dice kept and one explosion or reroll: the step after the drop, as d20's steps
        // after a keep (kept_steps.rs).
        if let [step] = modifiers.as_slice() {
            let extra = i64::try_from(net.unsigned_abs()).unwrap_or(i64::MAX);
            let start = count.as_ref().map_or(sides.span.start, |c| c.span.start);
            let rolled = add_dice(count.clone(), extra, at);
            let steps = [Spanned::new(advantage_keep(net, extra), at), step.clone()];
            if kept_dice_then_any_step(&steps).is_some() {
                return self.kept_dice_step_term(Some(&rolled), sides, &steps, start);
            }
        }
        self.report(
            Diagnostic::error(
                "unsupported-modifier",
                at,
                "Dice Maiden's `adv`/`dis` discard dice before exploding or rerolling; that order is \
                 computed with one explosion or reroll only",
            )
            .with_help("use `adv`/`dis` with keep, drop and counting, or on one die, e.g. `1d20 adv1 ie`"),
        );
        None
    }
}

/// What `net` dice of advantage (disadvantage, when negative) keep: the `extra` dice rolled beside
/// the one kept are dropped from the low (high) end.
fn advantage_keep(net: i64, extra: i64) -> Modifier {
    let which = if net > 0 {
        KeepWhich::DropLowest
    } else {
        KeepWhich::DropHighest
    };
    Modifier::Keep {
        which,
        count: extra,
    }
}

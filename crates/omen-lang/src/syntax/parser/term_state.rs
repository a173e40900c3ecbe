//! What a dice term's modifiers leave for the term as a whole, read once all of them are: Avrae's
//! rerolls by rank (`rol1`, `rah1`), which become a sum of dice terms, its `ra`, its keep and drop
//! selectors that unite (`ph1pl1`), and Roll20's rolled compare points (`3d6>[[1d4+2]]`), which become
//! a value rolled before the term and bound by a name around it.

use super::Parser;
use super::pieces::{Point, TermState, kept_then_step, one_kept_then_step, shorten};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{BinOp, DiceExpr, Expr, ExprKind, KeepWhich, Modifier, Sides, Spanned};
use crate::syntax::dialect::RankedReroll;
use crate::syntax::lexer::TokenKind;

impl Parser<'_> {
    /// Starts reading the modifiers of a term: the enclosing term's state is put aside.
    pub(super) fn begin_term(&mut self) -> TermState {
        std::mem::take(&mut self.term)
    }

    /// Ends reading them: the term's state, with the enclosing term's put back.
    pub(super) fn end_term(&mut self, outer: TermState) -> TermState {
        std::mem::replace(&mut self.term, outer)
    }

    /// Avrae's `rol2` and the rest: the count after the word (d20's selector needs it).
    pub(super) fn ranked_reroll(&mut self, reroll: RankedReroll, highest: bool, keyword: Span) {
        let written = self.text(keyword).to_ascii_lowercase();
        let expected = format!("the number of dice after `{written}`");
        let help = format!("write how many dice to pick, e.g. `4d6{written}1`");
        let Some(count) = self.parse_int(&expected, Some(&help)) else {
            return;
        };
        let at = Span::new(keyword.start, self.prev_end);
        if count < 0 || self.term.ranked.is_some() {
            self.report(
                Diagnostic::error(
                    "unsupported-modifier",
                    at,
                    format!(
                        "`{}` in the {} dialect: {}",
                        shorten(self.text(at)),
                        self.dialect.name,
                        if count < 0 {
                            "the number of dice to pick cannot be negative"
                        } else {
                            "a second reroll by rank on one term is not computed yet"
                        }
                    ),
                )
                .with_help("pick the dice with one reroll, e.g. `4d6rol1`"),
            );
            return;
        }
        self.term.ranked = Some((reroll, highest, count, at));
    }

    /// Avrae's `ra` with its value: an explosion at most once, noted so that the term can be checked
    /// once read (on one die only).
    pub(super) fn reroll_and_add(&mut self, keyword: Span) -> Option<Modifier> {
        let point = match self.parse_point_signed(false, false) {
            Point::Absent => None,
            Point::Present(point) => Some(point),
            Point::Invalid => return None,
        };
        self.term.reroll_and_add = Some(Span::new(keyword.start, self.prev_end));
        Some(Modifier::Explode {
            compound: false,
            point,
            once: true,
            penetrate: false,
        })
    }

    /// The dice term `dice` with what its state says applied. `plain` tells whether the term had no
    /// other modifier (nor a per-die score, advantage or margin), which a reroll by rank needs;
    /// `extras`, whether it had a per-die score, advantage or margin.
    pub(super) fn finish_dice_term(
        &mut self,
        dice: Expr,
        state: TermState,
        plain: bool,
        extras: bool,
    ) -> Expr {
        let mut dice = dice;
        if let Some((reroll, highest, count, at)) = state.ranked {
            dice = self.rerolled_by_rank(dice, (reroll, highest, count, at), plain);
        }
        if let Some(at) = state.reroll_and_add
            && self.needs_added_once(&dice)
        {
            dice = self.added_once_term(dice, at);
        }
        if self.dialect.explosions_in_turn {
            dice = self.explosions_in_turn(dice, state.capped_reroll.is_some());
        }
        if let Some(capped) = state.capped_reroll {
            dice = match self.kept_then_capped_term(&dice, &capped) {
                Some(read) => read,
                None => self.capped_reroll_term(dice, capped, plain, extras),
            };
        }
        bind_inline_points(dice, state.inline_points)
    }

    /// A group or set with its state applied: rerolls by rank are for dice only (as in d20).
    pub(super) fn finish_group(&mut self, group: Expr, state: TermState) -> Expr {
        if let Some((_, _, _, at)) = state.ranked {
            self.report(
                Diagnostic::error(
                    "unsupported-modifier",
                    at,
                    "rerolling by rank applies to dice, not to the members of a set",
                )
                .with_help("reroll the dice inside the set, e.g. `(4d6rol1, 3)kh1`"),
            );
        }
        if let Some((_, _, at, _)) = state.capped_reroll {
            self.report(
                Diagnostic::error(
                    "unsupported-modifier",
                    at,
                    "a capped reroll applies to dice, not to the members of a group",
                )
                .with_help("reroll the dice inside the group, e.g. `{4d6r1=1}`"),
            );
        }
        bind_inline_points(group, state.inline_points)
    }

    /// `4d6rol1` in d20: the lowest die is rolled again once and the new roll replaces it, so the
    /// total is the highest 3 of the 4 dice plus one new die, `(4d6kh3) + 1d6`. `ral1` rolls one more
    /// die beside the lowest, one die more in all: `5d6`. `rrl1` rerolls the lowest die until none is
    /// the lowest, which never ends: refused, as d20 refuses it after its 1,000 dice.
    fn rerolled_by_rank(
        &mut self,
        dice: Expr,
        (reroll, highest, count, at): (RankedReroll, bool, i64, Span),
        plain: bool,
    ) -> Expr {
        let ExprKind::Dice(term) = &dice.node else {
            return dice;
        };
        let n = match term.count.as_ref().map(|c| &c.node) {
            None => Some(1),
            Some(ExprKind::Number(n)) => Some(*n),
            Some(_) => None,
        };
        let fixed_sides =
            !matches!(&term.sides.node, Sides::Number(e) if !matches!(e.node, ExprKind::Number(_)));
        let (Some(n), true, true) = (n, fixed_sides, plain) else {
            self.report(
                Diagnostic::error(
                    "unsupported-modifier",
                    at,
                    "a reroll by rank (`rol`, `roh`, `rrl`, `rrh`, `ral`, `rah`) is computed only on dice \
                     with a written count and sides and no other operation",
                )
                .with_help("write the count and sides as numbers, e.g. `4d6rol1`"),
            );
            return dice;
        };
        let picked = count.min(n);
        if picked == 0 {
            return dice;
        }
        let span = dice.span;
        let dice_of = |count: i64, modifiers: Vec<Spanned<Modifier>>| {
            Expr::new(
                ExprKind::Dice(Box::new(DiceExpr {
                    count: Some(Expr::new(ExprKind::Number(count), span)),
                    sides: term.sides.clone(),
                    modifiers,
                })),
                span,
            )
        };
        match reroll {
            RankedReroll::Until => {
                self.report(
                    Diagnostic::error(
                        "unsupported-modifier",
                        at,
                        "in d20 `rrl`/`rrh` reroll the picked dice until none is picked, but the lowest \
                         (highest) dice are picked again after every reroll: the roll never ends, and d20 \
                         stops it with \"too many dice rolled\"",
                    )
                    .with_help("reroll once with `rol`/`roh`, or by value until, e.g. `rr<3`"),
                );
                dice
            }
            RankedReroll::AndAdd => dice_of(n + 1, Vec::new()),
            RankedReroll::Once if picked == n => dice_of(n, Vec::new()),
            RankedReroll::Once => {
                // The dice not picked are the other end of the roll; the picked ones are rolled anew.
                let which = if highest {
                    KeepWhich::KeepLowest
                } else {
                    KeepWhich::KeepHighest
                };
                let keep = Modifier::Keep {
                    which,
                    count: n - picked,
                };
                let kept = dice_of(n, vec![Spanned::new(keep, at)]);
                let kept = Expr::new(ExprKind::Paren(Box::new(kept)), span);
                Expr::new(
                    ExprKind::Binary(
                        BinOp::Add,
                        Box::new(kept),
                        Box::new(dice_of(picked, Vec::new())),
                    ),
                    span,
                )
            }
        }
    }

    /// d20's `ra` rolls one more die for at most one die of the whole roll (the first meeting its
    /// value): on one die that is Omen's `!o`; on several the extra die depends on all of them, which
    /// is not computed yet.
    /// Whether `ra` on this term adds a die for at most one of several dice (see
    /// [`Self::added_once_term`]); on one die it is an explosion once, as read.
    fn needs_added_once(&self, dice: &Expr) -> bool {
        let ExprKind::Dice(term) = &dice.node else {
            return false;
        };
        !matches!(
            term.count.as_ref().map(|c| &c.node),
            None | Some(ExprKind::Number(0 | 1))
        )
    }
}

/// `expr` inside `let name = roll in …` for each inline roll, the first written outermost: Roll20
/// rolls them before the dice, and every die is compared with the one value.
fn bind_inline_points(expr: Expr, points: Vec<(Spanned<String>, Expr)>) -> Expr {
    points.into_iter().rev().fold(expr, |body, (name, roll)| {
        let span = roll.span.to(body.span);
        Expr::new(ExprKind::LetIn(name, Box::new(roll), Box::new(body)), span)
    })
}

/// Which d20 operation a keep or drop belongs to: `k` (true) or `p`.
fn operation(modifier: &Modifier) -> Option<(bool, KeepWhich, i64)> {
    match *modifier {
        Modifier::Keep { which, count } => match which {
            KeepWhich::KeepHighest | KeepWhich::KeepLowest => Some((true, which, count)),
            KeepWhich::DropHighest | KeepWhich::DropLowest => Some((false, which, count)),
            KeepWhich::KeepMiddle => None,
        },
        _ => None,
    }
}

impl Parser<'_> {
    /// d20 folds the selectors of one operation written in a row into one, which keeps (drops) what
    /// any of them selects: `kh1kh2` keeps the highest 2; `kh1kl1` keeps both ends of the roll and
    /// `pl1ph1` drops them, Omen's `k{h1, l1}` and `d{h1, l1}`. Operations of different kinds apply in
    /// turn, as Omen's do. Only in the dialect whose selectors unite.
    pub(super) fn unite_selectors(&mut self, modifiers: &mut Vec<Spanned<Modifier>>) {
        if !self.dialect.selectors_unite {
            return;
        }
        let mut out: Vec<Spanned<Modifier>> = Vec::with_capacity(modifiers.len());
        let mut run: Vec<Spanned<Modifier>> = Vec::new();
        for modifier in modifiers.drain(..) {
            let same = match (
                run.first().and_then(|m| operation(&m.node)),
                operation(&modifier.node),
            ) {
                (Some((a, ..)), Some((b, ..))) => a == b,
                (None, Some(_)) => true,
                _ => false,
            };
            if !same {
                self.flush_selectors(&mut run, &mut out);
            }
            if operation(&modifier.node).is_some() {
                run.push(modifier);
            } else {
                out.push(modifier);
            }
        }
        self.flush_selectors(&mut run, &mut out);
        *modifiers = out;
    }

    /// One operation's selectors as the keeps and drops Omen applies in turn.
    fn flush_selectors(
        &mut self,
        run: &mut Vec<Spanned<Modifier>>,
        out: &mut Vec<Spanned<Modifier>>,
    ) {
        if run.len() < 2 {
            out.append(run);
            return;
        }
        let span = run[0].span.to(run[run.len() - 1].span);
        let most = |which: KeepWhich| {
            run.iter()
                .filter_map(|m| operation(&m.node))
                .filter(|&(_, w, _)| w == which)
                .map(|(_, _, count)| count)
                .max()
        };
        let keep = operation(&run[0].node).is_some_and(|(keep, ..)| keep);
        let (high, low) = if keep {
            (most(KeepWhich::KeepHighest), most(KeepWhich::KeepLowest))
        } else {
            (most(KeepWhich::DropHighest), most(KeepWhich::DropLowest))
        };
        run.clear();
        let mut push = |which, count| {
            out.push(Spanned::new(Modifier::Keep { which, count }, span));
        };
        match (high, low) {
            (Some(high), None) => push(
                if keep {
                    KeepWhich::KeepHighest
                } else {
                    KeepWhich::DropHighest
                },
                high,
            ),
            (None, Some(low)) => push(
                if keep {
                    KeepWhich::KeepLowest
                } else {
                    KeepWhich::DropLowest
                },
                low,
            ),
            (Some(high), Some(low)) => {
                // Both ends pick the earliest of equal dice, so they may pick one die twice: not
                // Omen's keeps in turn, which count ranks.
                let ends = Modifier::KeepEnds {
                    highest: high,
                    lowest: low,
                    drop: !keep,
                };
                self.warn_keep_ends_ties(span);
                out.push(Spanned::new(ends, span));
            }
            (None, None) => {}
        }
    }
}

impl Parser<'_> {
    /// `k{h1, l1}` straight after `k`: keep the highest and the lowest dice together, both ends of
    /// the roll (`d{h1, l1}` after `d`: drop them). `None` when no brace follows (consuming nothing); `Some(None)` when one was started
    /// but is not valid (reported).
    pub(super) fn parse_keep_ends(
        &mut self,
        keyword: Span,
        drop: bool,
    ) -> Option<Option<Modifier>> {
        let open = self.peek();
        if open.kind != TokenKind::LBrace || open.span.start != keyword.end {
            return None;
        }
        self.bump();
        let (mut highest, mut lowest) = (None, None);
        let mut valid = true;
        loop {
            let word = self.peek();
            let number = self.tokens.get(self.pos + 1).copied();
            let end = match (word.kind, number) {
                (TokenKind::Word, Some(n))
                    if n.kind == TokenKind::Number && n.span.start == word.span.end =>
                {
                    let slot = match self.text(word.span).to_ascii_lowercase().as_str() {
                        "h" => &mut highest,
                        "l" => &mut lowest,
                        _ => break valid = false,
                    };
                    let Ok(count) = self.text(n.span).parse::<i64>() else {
                        break valid = false;
                    };
                    if slot.replace(count).is_some() {
                        break valid = false;
                    }
                    self.bump();
                    self.bump();
                    self.peek()
                }
                _ => break valid = false,
            };
            match end.kind {
                TokenKind::Comma => {
                    self.bump();
                }
                TokenKind::RBrace => {
                    self.bump();
                    break;
                }
                _ => break valid = false,
            }
        }
        let span = Span::new(keyword.start, self.prev_end);
        match (valid, highest, lowest) {
            (true, Some(highest), Some(lowest)) => {
                self.warn_keep_ends_ties(span);
                Some(Some(Modifier::KeepEnds {
                    highest,
                    lowest,
                    drop,
                }))
            }
            _ => {
                self.report(
                    Diagnostic::error(
                        "bad-keep-ends",
                        span,
                        "keeping both ends takes the highest and the lowest counts, once each, e.g. \
                         `k{h1, l1}`",
                    )
                    .with_help("write `k{hN, lM}` to keep the highest N and the lowest M dice"),
                );
                Some(None)
            }
        }
    }
}

impl Parser<'_> {
    /// Both ends of a roll take the earliest of equal dice (as d20 does), so among ties they may take
    /// the same die: a reader may expect two dice where they keep one.
    fn warn_keep_ends_ties(&mut self, span: Span) {
        self.warnings.push(
            Diagnostic::warning(
                "keep-ends-ties",
                span,
                format!(
                    "`{}` picks the highest and the lowest dice each the earliest of equal dice first, as \
                     d20 does: when dice tie both ends may pick the same die (of four 3s, `k{{h1, l1}}` \
                     keeps one 3, not two)",
                    shorten(self.text(span))
                ),
            )
            .with_help("this is d20's rule; ends that always take different dice are not computed yet"),
        );
    }
}

impl Parser<'_> {
    /// d20's `2d20kh1ro1`: keep one die, then reroll (explode) it, since d20 applies its operations in
    /// the order written to the dice still kept. Read as the kept die and a choice,
    /// `let kept_0 = (2d20kh1) in if kept_0 = 1 then 1d20 else kept_0`. `None` when the term is not
    /// of that form; refused when it is but its die cannot be rolled again as written.
    pub(super) fn kept_die_then_step(
        &mut self,
        count: Option<&Expr>,
        sides: &Spanned<Sides>,
        modifiers: &[Spanned<Modifier>],
        start: usize,
    ) -> Option<Expr> {
        if !self.dialect.steps_touch_kept {
            return None;
        }
        let Some(step) = one_kept_then_step(modifiers) else {
            return self.kept_dice_step_term(count, sides, modifiers, start);
        };
        let span = Span::new(start, self.prev_end);
        let fixed =
            !matches!(&sides.node, Sides::Number(e) if !matches!(e.node, ExprKind::Number(_)));
        let rolled = Expr::new(
            ExprKind::Dice(Box::new(DiceExpr {
                count: count.cloned(),
                sides: sides.clone(),
                modifiers: modifiers[..1].to_vec(),
            })),
            span,
        );
        let read = fixed
            .then(|| kept_then_step(rolled, sides, step, span))
            .flatten();
        if read.is_none() {
            // Not read: refused as any other step after a keep.
            self.report_step_after_keep(modifiers[0].span.to(step.span));
        }
        read
    }
}

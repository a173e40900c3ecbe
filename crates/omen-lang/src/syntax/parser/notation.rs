//! Forms of the notation that a reader could take two ways, and the reroll over a set of faces that
//! gives one of them a spelling. Kept apart from the parser's main file, which is already long.

use super::Parser;
use super::kept_steps::kept_dice_then_any_step;
use super::kept_two_steps::kept_reroll_then_explosion;
use super::pieces::{Point, face_bounds, one_kept_then_step, shorten};
use super::rescore::Rescore;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{
    CompareOp, ComparePoint, FaceItem, KeepWhich, Modifier, PointValue, Spanned,
};
use crate::syntax::dialect::Word;
use crate::syntax::lexer::TokenKind;

/// A set of reroll faces spans at most this many consecutive values: the engine holds it as a bit mask.
pub(super) const MAX_FACE_SET_SPAN: i64 = 64;

impl Parser<'_> {
    /// `{2..5}`, `{1, 3, 5}` straight after a reroll word: the dice showing one of these faces are
    /// rerolled, each as one step, so `ro{2..5}` rerolls each die at most once (Year Zero's push), where
    /// `ro2ro3ro4ro5` would reroll a reroll. `None` when no brace follows.
    pub(super) fn parse_face_set(&mut self) -> Option<Option<ComparePoint>> {
        let open = self.peek();
        if open.kind != TokenKind::LBrace || open.span.start != self.prev_end {
            return None;
        }
        self.bump();
        let items = self.parse_list(open, TokenKind::RBrace, Self::parse_face, false);
        let span = Span::new(open.span.start, self.prev_end);
        let items: Vec<Spanned<FaceItem>> = items.into_iter().flatten().collect();
        let (Some(low), Some(high)) = (
            items.iter().map(|i| face_bounds(&i.node).0).min(),
            items.iter().map(|i| face_bounds(&i.node).1).max(),
        ) else {
            self.report(
                Diagnostic::error("empty-faces", span, "a reroll set needs at least one face")
                    .with_help("list the faces to reroll, e.g. `8d6ro{2..5}`"),
            );
            return Some(None);
        };
        if high
            .checked_sub(low)
            .is_none_or(|width| width >= MAX_FACE_SET_SPAN)
        {
            self.report(
                Diagnostic::error(
                    "bad-face-range",
                    span,
                    format!(
                        "a reroll set spans at most {MAX_FACE_SET_SPAN} consecutive faces; `{}` spans \
                         from {low} to {high}",
                        shorten(self.text(span))
                    ),
                )
                .with_help("reroll with a compare point instead, e.g. `ro>=10`"),
            );
            return Some(None);
        }
        let mut faces: Vec<i64> = items
            .iter()
            .flat_map(|i| {
                let (a, b) = face_bounds(&i.node);
                a..=b
            })
            .collect();
        faces.sort_unstable();
        faces.dedup();
        Some(Some(ComparePoint {
            op: CompareOp::Eq,
            value: PointValue::Faces(faces),
        }))
    }

    /// `4d6kh` keeps the highest 1: warns, since some rollers need the count (Avrae's `kh` takes one)
    /// and a reader may take a bare `kh` for "keep the highest, however many".
    pub(super) fn warn_keep_count_left_out(&mut self, which: KeepWhich, keyword: Span) {
        if !self.dialect.warn_other_readings {
            return;
        }
        let written = self.text(keyword).to_ascii_lowercase();
        let what = match which {
            KeepWhich::KeepHighest => "keeps the highest die",
            KeepWhich::KeepLowest => "keeps the lowest die",
            KeepWhich::DropHighest => "drops the highest die",
            KeepWhich::DropLowest => "drops the lowest die",
            KeepWhich::KeepMiddle => "keeps the middle die",
        };
        self.warnings.push(
            Diagnostic::warning(
                "keep-count-left-out",
                keyword,
                format!(
                    "`{written}` without a count {what}, as `{written}1`; some rollers need the count \
                     (Avrae refuses `{written}` alone)"
                ),
            )
            .with_help(format!("write `{written}1` to say it plainly")),
        );
    }

    /// Several reroll-once modifiers on one dice term apply in turn: a die rerolled by `ro2` that then
    /// shows 3 is rerolled again by `ro3`. Warns, naming the set that rerolls each die once.
    pub(super) fn warn_compounding_rerolls(&mut self, modifiers: &[Spanned<Modifier>]) {
        let once: Vec<&Spanned<Modifier>> = modifiers
            .iter()
            .filter(|m| matches!(m.node, Modifier::RerollOnce(_)))
            .collect();
        let (Some(first), Some(last)) = (once.first(), once.last()) else {
            return;
        };
        if once.len() < 2 {
            return;
        }
        let span = first.span.to(last.span);
        let mut faces = Vec::new();
        let all_equal = once.iter().all(|m| match &m.node {
            Modifier::RerollOnce(ComparePoint {
                op: CompareOp::Eq,
                value: PointValue::Int(face),
            }) => {
                faces.push(face.to_string());
                true
            }
            Modifier::RerollOnce(ComparePoint {
                value: PointValue::Faces(set),
                ..
            }) => {
                faces.extend(set.iter().map(i64::to_string));
                true
            }
            _ => false,
        });
        let help = if all_equal {
            format!(
                "to reroll each die at most once on any of these faces, write one set: `ro{{{}}}`",
                faces.join(", ")
            )
        } else {
            "to reroll each die at most once, write one reroll with a set of faces, e.g. `ro{2..5}`"
                .to_string()
        };
        self.warnings.push(
            Diagnostic::warning(
                "rerolls-compound",
                span,
                format!(
                    "`{}` rerolls in {} steps: a die rerolled by one step is rerolled again by a later \
                     one when its new face meets that step's point",
                    shorten(self.text(span)),
                    once.len()
                ),
            )
            .with_help(help),
        );
    }
}

impl Parser<'_> {
    /// Foundry's `cs`, `cf` and `df`, with their point or, bare, the highest face (`cs`) or the lowest
    /// (`cf`, `df`) of the dice term, as Foundry documents: `10d6cs` counts the sixes.
    pub(super) fn parse_count_or_extreme(
        &mut self,
        meaning: Word,
        keyword: Span,
    ) -> Option<Modifier> {
        let extreme = if meaning == Word::CountSuccessesOrHighest {
            self.highest_face
        } else {
            self.lowest_face
        };
        let point = match self.parse_point(false) {
            Point::Present(point) => point,
            Point::Invalid => return None,
            Point::Absent => match extreme {
                Some(face) => ComparePoint {
                    op: CompareOp::Eq,
                    value: PointValue::Int(face),
                },
                // The sides are rolled: the required-point path reports the missing point.
                None => self.parse_required_point(keyword, false, false)?,
            },
        };
        Some(if meaning == Word::FailureOrLowest {
            Modifier::Failure(point)
        } else {
            Modifier::Success(point)
        })
    }
}

impl Parser<'_> {
    /// The refusals that need every modifier of a term: in d20 a reroll or explosion written after a
    /// keep or drop, which d20 applies to the kept dice only (`4d6kh3ro1`). (Foundry's explosions one
    /// after another, `5d10x9x10`, are read in explosions_in_turn.rs.)
    pub(super) fn refuse_term_combinations(&mut self, modifiers: &[Spanned<Modifier>]) {
        self.refuse_steps_after_keep(modifiers);
    }

    /// d20 applies its operations in the order written, each to the dice still kept: a reroll or
    /// explosion after `k` or `p` (`4d6kh3ro1`) touches the kept dice only, where Omen rerolls before
    /// keeping. Refused rather than read in Omen's order. (`mi`/`ma` after a keep give the same total
    /// either way: clamping keeps the order of the dice.)
    fn refuse_steps_after_keep(&mut self, modifiers: &[Spanned<Modifier>]) {
        if !self.dialect.steps_touch_kept {
            return;
        }
        let Some(keep) = modifiers
            .iter()
            .position(|m| matches!(m.node, Modifier::Keep { .. }))
        else {
            return;
        };
        if one_kept_then_step(modifiers).is_some()
            || kept_dice_then_any_step(modifiers).is_some()
            || kept_reroll_then_explosion(modifiers).is_some()
        {
            // Read as the kept die and a choice (`2d20kh1ro1`), in `Parser::kept_die_then_step`.
            return;
        }
        let Some(step) = modifiers[keep..].iter().find(|m| {
            matches!(
                m.node,
                Modifier::RerollOnce(_) | Modifier::RerollRecursive(_) | Modifier::Explode { .. }
            )
        }) else {
            return;
        };
        self.report_step_after_keep(modifiers[keep].span.to(step.span));
    }

    /// The refusal of a reroll or explosion after a keep in d20, at `span`.
    pub(super) fn report_step_after_keep(&mut self, span: Span) {
        self.report(
            Diagnostic::error(
                "unsupported-modifier",
                span,
                format!(
                    "`{}` in the {} dialect rerolls or explodes the kept dice only, after the keep or \
                     drop, which is not computed yet",
                    shorten(self.text(span)),
                    self.dialect.name
                ),
            )
            .with_help("write the reroll or explosion before the keep, e.g. `4d6ro1kh3`, if that is the rule"),
        );
    }

    /// After a set or group: a per-die score by value (Avrae's `(1, 2, 3)k1`, `p3`) applies to the
    /// members, which is not computed yet; refused instead of being lost or reaching the next term.
    pub(super) fn refuse_set_rescore(&mut self, outer: Option<(Rescore, Span)>) {
        if let Some((_, at)) = std::mem::replace(&mut self.rescore, outer) {
            self.report(
                Diagnostic::error(
                    "unsupported-modifier",
                    at,
                    "keeping or dropping the members of a set by their value (`(1, 2, 3)k1`, `p3`) is \
                     not computed yet",
                )
                .with_help("keep by rank instead, e.g. `kh1`, or compare the members in the expression"),
            );
        }
    }

    /// Sorting only changes how a roll is shown: on a group, where the sources allow it
    /// (rpg-dice-roller's `{4d6, 2d8}s`), it is read and dropped. Omen's notation keeps refusing it.
    pub(super) fn drop_group_sort(&self, modifiers: &mut Vec<Spanned<Modifier>>) {
        if !self.dialect.warn_other_readings {
            modifiers.retain(|m| !matches!(m.node, Modifier::Sort { .. }));
        }
    }
}

//! Modifiers that start with a word of the dialect (`kh3`, `ro1`, `cs`, `adv`), each with its meaning.

use super::pieces::{Point, compare_op, shorten};
use super::rescore::Rescore;
use super::{MODIFIER_HELP, Parser};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{ComparePoint, KeepWhich, Modifier, PointValue};
use crate::syntax::dialect::Word;
use crate::syntax::lexer::{Token, TokenKind};

/// The modifier word just taken: where it is and how it was written, in lower case.
struct WordAt<'w> {
    span: Span,
    written: &'w str,
}

impl Parser<'_> {
    /// A modifier starting with a word of the dialect at the start of the current word, e.g. the `kh3` of
    /// `kh3ro1`.
    pub(super) fn parse_word_modifier(&mut self) -> Option<Modifier> {
        let (meaning, keyword_span) = self.take_modifier_word()?;
        let written = self.text(keyword_span).to_ascii_lowercase();
        let keyword = WordAt {
            span: keyword_span,
            written: &written,
        };
        match meaning {
            Word::KeepHighest => self.keep_highest_word(&keyword),
            Word::KeepLowest => self.parse_keep_count(KeepWhich::KeepLowest, keyword_span),
            Word::DropHighest => self.parse_keep_count(KeepWhich::DropHighest, keyword_span),
            Word::DropLowest => {
                if written == "d"
                    && let Some(ends) = self.parse_keep_ends(keyword_span, true)
                {
                    return ends;
                }
                self.parse_keep_count(KeepWhich::DropLowest, keyword_span)
            }
            Word::KeepMiddle => self.parse_keep_count(KeepWhich::KeepMiddle, keyword_span),
            Word::RerollOnce => self.reroll_once_word(keyword_span),
            Word::RerollRecursive => self.reroll_recursive_word(&keyword),
            Word::Botch => {
                let point =
                    self.word_point(keyword_span, false, true, "marks as botches the dice")?;
                Some(Modifier::Critical {
                    failure: true,
                    point: Some(point),
                })
            }
            Word::Failure
            | Word::CountSuccesses
            | Word::CountFailures
            | Word::CountSuccessesAtMost
            | Word::RerollOnceAtLeast
            | Word::RerollRecursiveAtLeast => self.point_word(meaning, keyword_span),
            Word::ClampMin | Word::ClampMax => self.clamp_word(&keyword, meaning == Word::ClampMin),
            Word::Explode | Word::ExplodeOnce => {
                self.explode_word(keyword_span, meaning == Word::ExplodeOnce)
            }
            Word::CountSuccessesOrHighest | Word::CountFailuresOrLowest | Word::FailureOrLowest => {
                self.parse_count_or_extreme(meaning, keyword_span)
            }
            Word::KeepValues | Word::DropValues | Word::SubtractFailures => {
                self.value_selector_word(meaning, &keyword);
                None
            }
            Word::DoubleSuccess => {
                let point = self.word_point(keyword_span, false, false, "")?;
                let at = Span::new(keyword_span.start, self.prev_end);
                self.double_success(point, at);
                None
            }
            Word::CountEven | Word::CountOdd => {
                let rescore = Rescore::Parity(meaning == Word::CountEven);
                self.set_rescore(rescore, keyword_span);
                None
            }
            Word::Advantage | Word::Disadvantage => {
                self.advantage_word(keyword_span, meaning == Word::Advantage);
                None
            }
            Word::MarginOfSuccess => {
                let point = self.word_point(keyword_span, false, false, "")?;
                self.margin = Some((point, Span::new(keyword_span.start, self.prev_end)));
                None
            }
            Word::CriticalSuccess | Word::CriticalFailure => {
                self.critical_word(keyword_span, meaning == Word::CriticalFailure)
            }
            Word::Sort { descending } => Some(Modifier::Sort { descending }),
            Word::Match { total } => self.match_word(keyword_span, total),
            Word::Unique { once } => {
                let point = self.optional_point(keyword_span, "rerolls the taken dice")?;
                Some(Modifier::Unique { once, point })
            }
            Word::DisplayOnly(takes_point) => {
                if takes_point {
                    let _ = self.parse_point(false);
                }
                None
            }
            Word::RerollRanked { reroll, highest } => {
                self.ranked_reroll(reroll, highest, keyword_span);
                None
            }
            Word::RerollAndAdd => self.reroll_and_add(keyword_span),
            Word::Unsupported(why) => {
                self.refuse_word(&keyword, why);
                None
            }
        }
    }

    /// Takes the dialect's modifier word at the start of the current word, with its meaning; reports a word
    /// that is none of them.
    fn take_modifier_word(&mut self) -> Option<(Word, Span)> {
        let token = self.peek();
        let word = self.text(token.span);
        // Check the whole run first, so that a misspelling is reported as the word written (`fire`), not as
        // a keyword followed by nonsense (`f` then `ire`).
        let found = self
            .dialect
            .word(word)
            .filter(|_| self.is_modifier_run(token.span, 0));
        let Some((meaning, len)) = found else {
            self.report_unknown_modifier(token);
            return None;
        };
        Some((meaning, self.take_word_prefix(len)))
    }

    /// A word that starts like a modifier but is none of the dialect's.
    fn report_unknown_modifier(&mut self, token: Token) {
        let word = self.text(token.span);
        self.bump();
        let help = if self.dialect.warn_other_readings {
            MODIFIER_HELP.to_string()
        } else {
            let words: Vec<&str> = self.dialect.words.iter().map(|(w, _)| *w).collect();
            format!(
                "the dice modifiers of the {} dialect are `{}`, `!` and compare points",
                self.dialect.name,
                words.join("` `")
            )
        };
        self.report(
            Diagnostic::error(
                "unknown-modifier",
                token.span,
                format!("unknown dice modifier `{}`", shorten(word)),
            )
            .with_help(help),
        );
    }

    /// The compare point a modifier word requires, with the warning for a point read differently elsewhere.
    pub(super) fn word_point(
        &mut self,
        keyword: Span,
        reroll: bool,
        at_most: bool,
        what: &str,
    ) -> Option<ComparePoint> {
        let point = self.parse_required_point(keyword, reroll, at_most)?;
        self.warn_point(
            point.op,
            Some(&point.value),
            Span::new(keyword.end, keyword.end),
            what,
        );
        Some(point)
    }

    /// A word whose compare point is all it takes: count, subtract or reroll the dice meeting it.
    fn point_word(&mut self, meaning: Word, keyword_span: Span) -> Option<Modifier> {
        let (at_most, what): (bool, &str) = match meaning {
            Word::Failure => (true, "subtracts the dice"),
            Word::CountSuccessesAtMost => (true, "counts the dice"),
            Word::RerollOnceAtLeast => (false, "rerolls once the dice"),
            Word::RerollRecursiveAtLeast => (false, "rerolls the dice"),
            _ => (false, "counts the dice"),
        };
        let point = self.word_point(keyword_span, false, at_most, what)?;
        Some(match meaning {
            Word::Failure => Modifier::Failure(point),
            Word::RerollOnceAtLeast => Modifier::RerollOnce(point),
            Word::RerollRecursiveAtLeast => Modifier::RerollRecursive(point),
            _ => Modifier::Success(point),
        })
    }

    /// `min` and `max` with their bound.
    fn clamp_word(&mut self, keyword: &WordAt, min: bool) -> Option<Modifier> {
        let value = self.parse_int(&format!("a number after `{}`", keyword.written), None)?;
        Some(if min {
            Modifier::ClampMin(value)
        } else {
            Modifier::ClampMax(value)
        })
    }

    /// `kh` and `k`: keep the highest; `k` alone may be Avrae's `k` of values, which is warned about.
    fn keep_highest_word(&mut self, keyword: &WordAt) -> Option<Modifier> {
        let keyword_span = keyword.span;
        if keyword.written == "k"
            && let Some(ends) = self.parse_keep_ends(keyword_span, false)
        {
            return ends;
        }
        let keep = self.parse_keep_count(KeepWhich::KeepHighest, keyword_span);
        if keyword.written == "k"
            && self.dialect.warn_other_readings
            && self.prev_end > keyword_span.end
        {
            let count = self
                .text(Span::new(keyword_span.end, self.prev_end))
                .to_string();
            self.warnings.push(
                Diagnostic::warning(
                    "keep-differs-in-avrae",
                    Span::new(keyword_span.start, self.prev_end),
                    format!("`k{count}` keeps the highest {count}; in Avrae `k{count}` keeps the dice showing {count}"),
                )
                .with_help(format!("write `kh{count}` to say it plainly")),
            );
        }
        keep
    }

    /// `rr` and `r`: reroll until the die no longer meets the point; a bare `r` is warned about where
    /// other rollers reroll once.
    fn reroll_recursive_word(&mut self, keyword: &WordAt) -> Option<Modifier> {
        let keyword_span = keyword.span;
        let start = self.prev_end;
        let point = self.word_point(keyword_span, true, true, "rerolls the dice")?;
        if self.capped_recursive(keyword_span, &point, false)? {
            return None;
        }
        if keyword.written == "r" && self.dialect.warn_other_readings {
            let shown = self.text(Span::new(start, self.prev_end)).to_string();
            self.warnings.push(
                Diagnostic::warning(
                    "reroll-differs-in-foundry",
                    Span::new(keyword_span.start, self.prev_end),
                    format!(
                        "`r{shown}` rerolls until the die no longer meets the point; Foundry and Dice Maiden reroll once"
                    ),
                )
                .with_help(format!("write `rr{shown}` for this reading, or `ro{shown}` to reroll once")),
            );
        }
        Some(Modifier::RerollRecursive(point))
    }

    /// A word that explodes (Foundry's `x`, `xo`), with its optional point.
    fn explode_word(&mut self, keyword_span: Span, once: bool) -> Option<Modifier> {
        let point = match self.parse_point_signed(false, false) {
            Point::Absent => None,
            Point::Present(point) => Some(point),
            Point::Invalid => return None,
        };
        if once
            && let Some(first) = &point
            && self.capped_explode_once(keyword_span, first)?
        {
            return None;
        }
        if !once
            && let Some(first) = &point
            && self.capped_recursive(keyword_span, first, true)?
        {
            return None;
        }
        Some(Modifier::Explode {
            compound: false,
            point,
            once,
            penetrate: false,
        })
    }

    /// Avrae's value selectors `k`/`p` and Foundry's `sf`: each die is scored by its value.
    fn value_selector_word(&mut self, meaning: Word, keyword: &WordAt) {
        let Some(point) = self.word_point(keyword.span, false, false, "") else {
            return;
        };
        let at = Span::new(keyword.span.start, self.prev_end);
        let rescore = match (meaning, point.value) {
            (_, PointValue::Faces(_)) => return,
            (_, PointValue::Name(name)) => {
                self.report(
                    Diagnostic::error(
                        "unsupported-modifier",
                        name.span,
                        format!("`{}` takes a number here, not a name", keyword.written),
                    )
                    .with_help("write the number, e.g. `k3` or `sf<3`"),
                );
                return;
            }
            (Word::KeepValues, PointValue::Int(v)) => Rescore::select(true, point.op, v),
            (Word::DropValues, PointValue::Int(v)) => Rescore::select(false, point.op, v),
            (_, PointValue::Int(v)) => Rescore::SubtractFailures(point.op, v),
        };
        self.set_rescore(rescore, at);
    }

    /// Dice Maiden's `adv`/`dis` with their optional number of levels, netted over the term.
    fn advantage_word(&mut self, keyword_span: Span, advantage: bool) {
        let token = self.peek();
        let levels = if token.kind == TokenKind::Number
            && (token.span.start == keyword_span.end || self.spaced_modifier)
        {
            self.bump();
            let Some(levels) = self.int_value(token.span, false, token.span) else {
                return;
            };
            levels
        } else {
            1
        };
        let signed = if advantage { levels } else { -levels };
        let at = Span::new(keyword_span.start, self.prev_end);
        let (net, span) = self.advantage.unwrap_or((0, at));
        self.advantage = Some((net.saturating_add(signed), span.to(at)));
    }

    /// `cs` and `cf` as marks in the transcript, with the warning that Foundry counts with them.
    fn critical_word(&mut self, keyword_span: Span, failure: bool) -> Option<Modifier> {
        let point = match self.parse_point(failure) {
            Point::Present(point) => {
                self.warn_point(
                    point.op,
                    Some(&point.value),
                    Span::new(keyword_span.end, keyword_span.end),
                    "marks the dice",
                );
                Some(point)
            }
            Point::Absent => None,
            Point::Invalid => return None,
        };
        // Foundry counts with `cs` and `cf`, bare ones too (the dice on the highest, the lowest
        // face), so each is read another way there.
        if self.dialect.warn_other_readings {
            let (word, what, example) = if failure {
                ("cf", "failures", "`10d6<=2`")
            } else {
                ("cs", "successes", "`10d6>4`")
            };
            self.warnings.push(
                Diagnostic::warning(
                    "critical-differs-in-foundry",
                    Span::new(keyword_span.start, self.prev_end),
                    format!(
                        "`{word}` marks critical {what} in the transcript and leaves the total; in \
                         Foundry `{word}` counts the dice meeting the point"
                    ),
                )
                .with_help(format!(
                    "to count them, write the point alone, e.g. {example}"
                )),
            );
        }
        Some(Modifier::Critical { failure, point })
    }

    /// rpg-dice-roller's `m`/`mt`: an optional size glued on, then an optional point.
    fn match_word(&mut self, keyword_span: Span, total: bool) -> Option<Modifier> {
        let token = self.peek();
        let size = if token.kind == TokenKind::Number && token.span.start == keyword_span.end {
            self.bump();
            Some(self.int_value(token.span, false, token.span)?)
        } else {
            None
        };
        // After the size only an operator starts a point (`mt3>=4`); a bare number is the size.
        let point = if compare_op(self.peek().kind).is_some() {
            self.optional_point(keyword_span, "matches the dice")?
        } else {
            None
        };
        Some(Modifier::Match { total, size, point })
    }

    /// A word the dialect knows but Omen does not compute: refused, its count or point skipped so that one
    /// mistake is one error.
    fn refuse_word(&mut self, keyword: &WordAt, why: &str) {
        self.report(
            Diagnostic::error(
                "unsupported-modifier",
                keyword.span,
                format!(
                    "`{}` in the {} dialect: {why}",
                    keyword.written, self.dialect.name
                ),
            )
            .with_help("see docs/dialects.md for what each dialect supports"),
        );
        let _ = self.parse_point(false);
    }

    /// A compare point that may follow `keyword` (`u=5`, `m>=4`): `Some(None)` when there is none,
    /// `None` when one was started but is not valid.
    pub(super) fn optional_point(
        &mut self,
        keyword: Span,
        what: &str,
    ) -> Option<Option<ComparePoint>> {
        match self.parse_point(false) {
            Point::Present(point) => {
                self.warn_point(
                    point.op,
                    Some(&point.value),
                    Span::new(keyword.end, keyword.end),
                    what,
                );
                Some(Some(point))
            }
            Point::Absent => Some(None),
            Point::Invalid => None,
        }
    }

    /// Records a per-die score for the dice term being read; a second one on the same term is refused.
    pub(super) fn set_rescore(&mut self, rescore: Rescore, at: Span) {
        if self.dialect.selectors_unite
            && let Some((first, first_at)) = self.rescore.take()
        {
            let kept = first.clone();
            if let Some(united) = first.then(rescore.clone()) {
                self.rescore = Some((united, first_at.to(at)));
                return;
            }
            self.rescore = Some((kept, first_at));
        }
        if self.rescore.is_some() {
            self.report(
                Diagnostic::error(
                    "unsupported-modifier",
                    at,
                    "two modifiers that score each die by its value on one dice term are not computed yet",
                )
                .with_help("split the roll into two dice terms"),
            );
            return;
        }
        self.rescore = Some((rescore, at));
    }

    /// The count after a keep/drop keyword: a number, or 1 when left out (also when another modifier
    /// follows, as in `4d6khro1`).
    pub(super) fn parse_keep_count(&mut self, which: KeepWhich, keyword: Span) -> Option<Modifier> {
        let token = self.peek();
        if token.kind == TokenKind::Number && token.span.start == keyword.end {
            self.bump();
            let count = self.int_value(token.span, false, token.span)?;
            return Some(Modifier::Keep { which, count });
        }
        if token.kind == TokenKind::Number
            && (!self.dialect.whitespace_ends_dice || self.spaced_modifier)
        {
            self.bump();
            let count = self.int_value(token.span, false, token.span)?;
            return Some(Modifier::Keep { which, count });
        }
        self.warn_keep_count_left_out(which, keyword);
        Some(Modifier::Keep { which, count: 1 })
    }
}

//! Dice terms: the count, `d`, the sides (a number, `%`, `F` and its variants, listed faces).

use super::pieces::{highest_face, lowest_face, margin_of_success};
use super::rescore::rescored_faces;
use super::{Parser, SIDES_HELP};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{DiceExpr, Expr, ExprKind, FaceItem, Sides, Spanned};
use crate::syntax::lexer::TokenKind;

/// A term's sides as written, and the errors and warnings reported up to them (before its modifiers).
pub(super) struct WrittenSides {
    pub sides: Spanned<Sides>,
    pub reported: (usize, usize),
}

impl Parser<'_> {
    /// `count` followed by a dice term if a `d` follows, else `count` itself.
    pub(super) fn parse_dice_after(&mut self, count: Expr) -> Expr {
        if let Some(alias) = self.game_alias(&count) {
            return alias;
        }
        if self.word_starts_with(self.peek(), b'd') {
            self.parse_dice(Some(count))
        } else {
            count
        }
    }

    /// A dice term from its `d`, which starts the current word; in Avrae's dialect, run in turn
    /// where its operations need it.
    pub(super) fn parse_dice(&mut self, count: Option<Expr>) -> Expr {
        let start = count
            .as_ref()
            .map_or(self.peek().span.start, |count| count.span.start);
        let reported = (self.diagnostics.len(), self.warnings.len());
        // Kept only where a rolled count may be read again (Foundry's `(1d4)d6r1r2`).
        let written_count = (self.dialect.name == "foundry")
            .then(|| count.clone())
            .flatten();
        let (read, sides) = self.parse_dice_as_written(count);
        match self.foundry_rolled_term(written_count, sides, start) {
            Ok(rolled) => rolled,
            Err(()) => self.in_turn_term(read, start, reported),
        }
    }

    /// A dice term from its `d`, its modifiers read one by one; with its sides as written and the
    /// errors and warnings reported up to them, for a reading again in turn.
    #[inline(never)]
    fn parse_dice_as_written(&mut self, count: Option<Expr>) -> (Expr, WrittenSides) {
        let d = self.take_word_prefix(1);
        let start = count.as_ref().map_or(d.start, |count| count.span.start);
        let sides = self.parse_sides(d);
        let written_sides = WrittenSides {
            sides: sides.clone(),
            reported: (self.diagnostics.len(), self.warnings.len()),
        };
        let outer = (
            self.lowest_face.take(),
            self.margin.take(),
            self.rescore.take(),
            self.advantage.take(),
        );
        self.lowest_face = lowest_face(&sides.node);
        let outer_highest = std::mem::replace(&mut self.highest_face, highest_face(&sides.node));
        let outer_term = self.begin_term();
        let mut modifiers = self.parse_modifiers();
        self.apply_universal_modifiers(&mut modifiers);
        let count_text = &self.source[start..d.start];
        self.warn_reroll_before_explosion(&modifiers, d.start, count_text, self.highest_face);
        let term = self.end_term(outer_term);
        self.highest_face = outer_highest;
        self.unite_selectors(&mut modifiers);
        let bag = self.dice_bag_words(count.as_ref(), &sides.node, &mut modifiers);
        let extras = self.rescore.is_some() || self.advantage.is_some() || self.margin.is_some();
        let plain = modifiers.is_empty() && !extras;
        self.refuse_term_combinations(&modifiers);
        self.warn_compounding_rerolls(&modifiers);
        self.warn_foundry_order(&modifiers);
        let margin = std::mem::replace(&mut self.margin, outer.1);
        let rescore = std::mem::replace(&mut self.rescore, outer.2);
        let advantage = std::mem::replace(&mut self.advantage, outer.3);
        self.lowest_face = outer.0;
        let mut count = count;
        let mut sides = sides;
        let rescore = self.resolve_double_success(rescore, (&sides.node, &mut modifiers));
        if let Some((rescore, at)) = rescore {
            match rescored_faces(&sides.node, &rescore, &modifiers) {
                Ok(faces) => {
                    let span = sides.span;
                    let faces = faces
                        .into_iter()
                        .map(|f| Spanned::new(FaceItem::Face(f), span))
                        .collect();
                    sides = Spanned::new(Sides::Custom(faces), span);
                }
                Err(why) => self.report(
                    Diagnostic::error("unsupported-modifier", at, why)
                        .with_help("see docs/dialects.md for what each dialect supports"),
                ),
            }
        }
        self.warn_foundry_clamps(&sides.node, &modifiers);
        if self.dialect.name == "foundry" {
            match super::clamps::clamped_reroll_faces(&sides.node, &modifiers) {
                Some(read) => self.read_clamped_reroll(read, &mut sides, &mut modifiers),
                None => self.read_foundry_clamps(&mut sides, &mut modifiers),
            }
        }
        // A margin (`ms`) applies to the term however it is read.
        let dice = if let Some(kept) =
            self.kept_die_then_step(count.as_ref(), &sides, &modifiers, start)
        {
            kept
        } else if let Some((net, at)) = advantage.filter(|(net, _)| *net != 0)
            && let Some(kept) = self.apply_advantage(&mut count, &sides, &mut modifiers, net, at)
        {
            kept
        } else {
            let dice = Expr::new(
                ExprKind::Dice(Box::new(DiceExpr {
                    count,
                    sides,
                    modifiers,
                })),
                Span::new(start, self.prev_end),
            );
            self.finish_dice_term(dice, term, plain, extras)
        };
        let read = match margin {
            Some((point, at)) => margin_of_success(dice, point, at),
            None => dice,
        };
        // Dice Maiden's failure number alone: the total is minus the dice at or below it.
        let read = if bag.negate {
            let span = read.span;
            Expr::new(ExprKind::Neg(Box::new(read)), span)
        } else {
            read
        };
        (read, written_sides)
    }

    pub(super) fn parse_sides(&mut self, d: Span) -> Spanned<Sides> {
        let token = self.peek();
        match token.kind {
            TokenKind::Number => Spanned::new(Sides::Number(self.parse_number()), token.span),
            TokenKind::Percent if self.dialect.d20_numbers => {
                self.bump();
                self.tens_die(token.span)
            }
            TokenKind::Percent => {
                self.bump();
                Spanned::new(Sides::Percent, token.span)
            }
            TokenKind::Word if self.word_starts_with(token, b'f') => {
                let letter = self.take_word_prefix(1);
                self.fudge_variant(letter)
            }
            TokenKind::Word if self.dialect.coin && self.word_starts_with(token, b'c') => {
                let letter = self.take_word_prefix(1);
                let face = |n| Spanned::new(FaceItem::Face(n), letter);
                Spanned::new(Sides::Custom(vec![face(0), face(1)]), letter)
            }
            TokenKind::LBrace => self.parse_faces(),
            TokenKind::LParen => {
                let paren = self.parse_paren();
                let span = paren.span;
                Spanned::new(Sides::Number(paren), span)
            }
            _ => {
                let mut diagnostic = self.unexpected(token, "the number of sides after `d`");
                diagnostic.kind = "expected-sides";
                self.report(diagnostic.with_help(SIDES_HELP));
                let at = Span::new(d.end, d.end);
                Spanned::new(Sides::Number(Expr::new(ExprKind::Error, at)), at)
            }
        }
    }

    /// `F` after `d`, or the variant `F.1` (one face of six is −1, one +1, four 0) or `F.2` (the usual
    /// Fudge die).
    pub(super) fn fudge_variant(&mut self, letter: Span) -> Spanned<Sides> {
        let dot = self.peek();
        let digit = self.tokens.get(self.pos + 1).copied();
        let variant = match digit {
            Some(digit)
                if dot.kind == TokenKind::Dot
                    && dot.span.start == letter.end
                    && digit.kind == TokenKind::Number
                    && digit.span.start == dot.span.end =>
            {
                digit
            }
            _ => return Spanned::new(Sides::Fudge, letter),
        };
        self.bump();
        self.bump();
        let span = Span::new(letter.start, variant.span.end);
        match self.text(variant.span) {
            "2" => Spanned::new(Sides::Fudge, span),
            "1" => {
                let face = |n| Spanned::new(FaceItem::Face(n), span);
                let faces = vec![face(-1), face(0), face(0), face(0), face(0), face(1)];
                Spanned::new(Sides::Custom(faces), span)
            }
            other => {
                self.report(
                    Diagnostic::error(
                        "unknown-fudge-variant",
                        span,
                        format!("unknown Fudge die variant `F.{other}`"),
                    )
                    .with_help("`dF` (or `dF.2`) has −1, 0 and +1 alike; `dF.1` has one −1, four 0 and one +1"),
                );
                Spanned::new(Sides::Fudge, span)
            }
        }
    }

    pub(super) fn parse_faces(&mut self) -> Spanned<Sides> {
        let open = self.bump();
        let items = self.parse_list(open, TokenKind::RBrace, Self::parse_face, false);
        let span = Span::new(open.span.start, self.prev_end);
        if items.is_empty() {
            self.report(
                Diagnostic::error(
                    "empty-faces",
                    span,
                    "a die needs at least one face: `{}` has none",
                )
                .with_help("list the faces, e.g. `d{1,1,2,3}` or `d{-1..1}`"),
            );
        }
        Spanned::new(Sides::Custom(items.into_iter().flatten().collect()), span)
    }

    pub(super) fn parse_face(&mut self) -> Option<Spanned<FaceItem>> {
        let start = self.peek().span.start;
        let low = self.parse_int(
            "a face (a number such as `3` or a range such as `1..6`)",
            None,
        )?;
        // Face ranges are inclusive either way; `..=` reads as it does in patterns.
        if self.eat(TokenKind::DotDot).is_none() && self.eat(TokenKind::DotDotEq).is_none() {
            return Some(Spanned::new(
                FaceItem::Face(low),
                Span::new(start, self.prev_end),
            ));
        }
        let high = self.parse_int("a number after `..`", None)?;
        let span = Span::new(start, self.prev_end);
        if low > high {
            self.report(
                Diagnostic::error(
                    "bad-face-range",
                    span,
                    format!(
                        "empty face range `{low}..{high}`: the first face is greater than the last"
                    ),
                )
                .with_help(format!("write the lower face first: `{high}..{low}`")),
            );
        }
        Some(Spanned::new(FaceItem::Range(low, high), span))
    }
}

//! Avrae's dice terms whose operations must run in turn (`4d6kh3e6ro1`, `4d6ma3rr1`, `4d6ro1ro2`,
//! `4d6eh1`): read again from their text as d20 reads them, and given as `avrae("…")`, in place of
//! what the modifier-by-modifier reading made of them (see [`crate::syntax::d20_terms`]).

use super::Parser;
use super::dice::WrittenSides;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, Modifier, Sides, Spanned};
use crate::syntax::lexer::TokenKind;
use crate::syntax::{d20_terms, foundry_terms};

impl Parser<'_> {
    /// `read`, the term from `start` as the modifiers made it, or the same term run in turn when the
    /// dialect runs terms so (Avrae's d20, Foundry) and their meaning needs it, or the modifiers
    /// could not read it (then their errors and warnings since `reported` are withdrawn).
    pub(super) fn in_turn_term(
        &mut self,
        read: Expr,
        start: usize,
        reported: (usize, usize),
    ) -> Expr {
        let rest = &self.source[start..];
        // The term as its roller reads it: the function running it, the term written back, how
        // far it reaches, and whether Omen's own reading would mean something else.
        let found = if self.dialect.name == "foundry" {
            foundry_terms::term_at(rest).map(|(term, len)| {
                let written = foundry_terms::written(&term);
                ("foundry", written, len, foundry_terms::needs_in_turn(&term))
            })
        } else if self.dialect.in_turn {
            d20_terms::term_at(rest)
                .filter(|(term, _)| d20_terms::runs(term))
                .map(|(term, len)| {
                    let written = d20_terms::written(&term);
                    ("avrae", written, len, d20_terms::needs_in_turn(&term))
                })
        } else {
            None
        };
        let Some((name, written, len, needed)) = found else {
            if self.dialect.name == "foundry"
                && let Some(why) = foundry_terms::fate_refusal(rest)
            {
                self.diagnostics.truncate(reported.0);
                self.report(
                    Diagnostic::error("unknown-modifier", Span::new(start, self.prev_end), why)
                        .with_help("Omen's own notation reads other modifiers on Fate dice"),
                );
            }
            return read;
        };
        let end = start + len;
        let refused = self.diagnostics.len() > reported.0;
        if end < self.prev_end || !(refused || needed) || !self.can_skip_to(end) {
            return read;
        }
        let text = Expr::new(ExprKind::Text(written), Span::new(start, end));
        self.read_again(Span::new(start, end), reported, name, vec![text])
    }

    /// In Foundry's dialect, a term whose count or sides are rolled (`(1d4)d6xkh2`, `2d(1d4+2)rr1`)
    /// and whose modifiers need running in turn or could not be read one by one:
    /// `foundry(count, sides, "xkh2")`, Foundry rolling the count and sides first. `Err` when the
    /// term is not such a term, to be read as it was (or in turn, see [`Self::in_turn_term`]).
    pub(super) fn foundry_rolled_term(
        &mut self,
        count: Option<Expr>,
        written: WrittenSides,
        start: usize,
    ) -> Result<Expr, ()> {
        if self.dialect.name != "foundry" {
            return Err(());
        }
        let literal = |e: &Expr| matches!(e.node, ExprKind::Number(_));
        let sides = match written.sides.node {
            Sides::Number(sides) => sides,
            Sides::Fudge => Expr::new(ExprKind::Text("F".into()), written.sides.span),
            _ => return Err(()),
        };
        let fate = matches!(sides.node, ExprKind::Text(_));
        if count.as_ref().is_none_or(literal) && (fate || literal(&sides)) {
            return Err(());
        }
        let from = written.sides.span.end;
        // Which modifiers need running in turn does not depend on the sides.
        let Ok((modifiers, len)) = foundry_terms::modifiers_at(&self.source[from..], 6) else {
            return Err(());
        };
        let end = from + len;
        let refused = self.diagnostics.len() > written.reported.0;
        // On Fate dice, a reroll's default point and the modifiers taken are Foundry's own.
        let fate_modifiers = fate && !modifiers.is_empty();
        if !(refused || fate_modifiers || foundry_terms::modifiers_need_in_turn(&modifiers))
            || end < self.prev_end
            || !self.can_skip_to(end)
        {
            return Err(());
        }
        let count =
            count.unwrap_or_else(|| Expr::new(ExprKind::Number(1), Span::new(start, start)));
        let text = Expr::new(
            ExprKind::Text(self.source[from..end].to_string()),
            Span::new(from, end),
        );
        let args = vec![count, sides, text];
        Ok(self.read_again(Span::new(start, end), written.reported, "foundry", args))
    }

    /// `read`, a d20 set with its operations as the modifiers made it, or, when they could not read
    /// it or read it otherwise, the same set with its keeps and drops applied in turn
    /// (`avrae_set((1, 2, 3), "k1kh1")`); `written` is the set's members and span, `reported` the
    /// errors and warnings before it.
    pub(super) fn set_in_turn(
        &mut self,
        read: Expr,
        (members, set): (Vec<Expr>, Span),
        reported: (usize, usize),
    ) -> Expr {
        if !self.dialect.in_turn {
            return read;
        }
        let Some((steps, len)) = d20_terms::set_operations(&self.source[set.end..]) else {
            return read;
        };
        let end = set.end + len;
        let refused = self.diagnostics.len() > reported.0;
        // Both ends kept on a set too large to pick them by comparisons (see `set_ends`): the
        // members' values kept in turn, which computes or meets a limit.
        let ends_left = matches!(&read.node, ExprKind::Group(g)
            if g.modifiers.iter().any(|m| matches!(m.node, Modifier::KeepEnds { .. })));
        if !(refused || ends_left || d20_terms::set_needs_in_turn(&steps))
            || d20_terms::runs_on(&self.source[end..])
            || end < self.prev_end
            || !self.can_skip_to(end)
        {
            return read;
        }
        let members = Expr::new(ExprKind::Tuple(members), set);
        let steps = Expr::new(
            ExprKind::Text(d20_terms::written_operations(&steps)),
            Span::new(set.end, end),
        );
        let span = Span::new(set.start, end);
        self.read_again(span, reported, "avrae_set", vec![members, steps])
    }

    /// The call `name(args)` over `span`, in place of what was read there: the tokens up to its end
    /// taken, and the errors and warnings reported since `reported` withdrawn.
    fn read_again(
        &mut self,
        span: Span,
        reported: (usize, usize),
        name: &str,
        args: Vec<Expr>,
    ) -> Expr {
        self.take_to(span.end);
        self.diagnostics.truncate(reported.0);
        self.warnings.truncate(reported.1);
        Expr::new(
            ExprKind::Call(Spanned::new(name.to_string(), span), args),
            span,
        )
    }

    /// Takes the tokens up to `end`, a word running across it in part.
    fn take_to(&mut self, end: usize) {
        while self.prev_end < end {
            let token = self.peek();
            if token.span.end <= end {
                self.bump();
            } else {
                self.take_word_prefix(end - token.span.start);
            }
        }
    }

    /// Whether the tokens from here reach `end` exactly, or a word runs across it (which can be
    /// taken in part).
    fn can_skip_to(&self, end: usize) -> bool {
        for token in &self.tokens[self.pos..] {
            if token.kind == TokenKind::Eof || token.span.start >= end {
                return true;
            }
            if token.span.end > end {
                return token.kind == TokenKind::Word;
            }
        }
        true
    }
}

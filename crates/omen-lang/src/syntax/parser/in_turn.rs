//! Avrae's dice terms whose operations must run in turn (`4d6kh3e6ro1`, `4d6ma3rr1`, `4d6ro1ro2`,
//! `4d6eh1`): read again from their text as d20 reads them, and given as `avrae("…")`, in place of
//! what the modifier-by-modifier reading made of them (see [`crate::syntax::d20_terms`]).

use super::Parser;
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, Spanned};
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
        if !(refused || d20_terms::set_needs_in_turn(&steps))
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

//! Bracketed operands: parentheses, tuples, lists, groups `{…}` and a group of one member.

use super::counted::fraction_members_counted;
use super::pieces::{MAX_SINGLE_DICE, shorten, single_dice};
use super::set_ends::set_ends;
use super::{Parser, Stop};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, GroupExpr};
use crate::syntax::dialect::GroupOfOne;
use crate::syntax::lexer::{Token, TokenKind};

impl<'s> Parser<'s> {
    /// `( expr )`, a tuple `(a, b, …)` or `(a,)`; `()` is an error.
    #[inline(never)]
    pub(super) fn parse_paren(&mut self) -> Expr {
        let open = self.bump();
        if let Some(close) = self.eat(TokenKind::RParen) {
            return self.empty_parens(open, close);
        }
        self.brackets += 1;
        let outer_awaiting = self.awaiting.replace("`,` or `)`");
        let first = self.parse_expr();
        let expr = self.finish_paren(open, first);
        self.awaiting = outer_awaiting;
        self.brackets -= 1;
        expr
    }

    #[cold]
    pub(super) fn empty_parens(&mut self, open: Token, close: Token) -> Expr {
        let span = open.span.to(close.span);
        self.report(
            Diagnostic::error(
                "empty-parens",
                span,
                "empty parentheses: no expression between `(` and `)`",
            )
            .with_help(
                "write an expression between them; a tuple needs members, e.g. `(1, 2)` or `(1,)`",
            ),
        );
        Expr::new(ExprKind::Error, span)
    }

    /// What follows the first expression in parentheses: `)`, or the rest of a tuple.
    pub(super) fn finish_paren(&mut self, open: Token, first: Expr) -> Expr {
        let token = self.peek();
        let node = match token.kind {
            TokenKind::RParen => {
                self.bump();
                ExprKind::Paren(Box::new(first))
            }
            TokenKind::Comma => {
                self.bump();
                let rest = self.parse_list(open, TokenKind::RParen, Self::parse_expr, true);
                let mut members = vec![first];
                members.extend(rest);
                ExprKind::Tuple(members)
            }
            TokenKind::Eof => {
                self.report_unclosed(open);
                ExprKind::Paren(Box::new(first))
            }
            _ => {
                let diagnostic = self.unexpected(token, "`)`");
                self.report(diagnostic);
                self.skip_to(TokenKind::RParen, false);
                ExprKind::Paren(Box::new(first))
            }
        };
        Expr::new(node, Span::new(open.span.start, self.prev_end))
    }

    /// Parses `item {"," item}` and the `close` bracket, `open` having been consumed; with `trailing`, a `,`
    /// may come before the `close`. `open close` gives no items.
    pub(super) fn parse_list<T>(
        &mut self,
        open: Token,
        close: TokenKind,
        mut item: impl FnMut(&mut Self) -> T,
        trailing: bool,
    ) -> Vec<T> {
        let mut items = Vec::new();
        if self.eat(close).is_some() {
            return items;
        }
        self.brackets += 1;
        let outer_awaiting = self.awaiting.replace(if close == TokenKind::RBrace {
            "`,` or `}`"
        } else {
            "`,` or `)`"
        });
        loop {
            items.push(item(self));
            let token = self.peek();
            match token.kind {
                TokenKind::Comma => {
                    self.bump();
                    if trailing && self.eat(close).is_some() {
                        break;
                    }
                }
                kind if kind == close => {
                    self.bump();
                    break;
                }
                TokenKind::Eof => {
                    self.report_unclosed(open);
                    break;
                }
                _ => {
                    let close_text = if close == TokenKind::RBrace { "}" } else { ")" };
                    let diagnostic = self.unexpected(token, &format!("`,` or `{close_text}`"));
                    self.report(diagnostic);
                    match self.skip_to(close, true) {
                        Stop::Comma => {
                            self.bump();
                        }
                        Stop::Closed | Stop::Elsewhere => break,
                    }
                }
            }
        }
        self.awaiting = outer_awaiting;
        self.brackets -= 1;
        items
    }

    #[inline(never)]
    pub(super) fn parse_group(&mut self) -> Expr {
        let open = self.bump();
        let members = self.parse_list(open, TokenKind::RBrace, Self::parse_expr, false);
        if members.is_empty() {
            self.report(
                Diagnostic::error(
                    "empty-group",
                    Span::new(open.span.start, self.prev_end),
                    "empty group: no expressions between `{` and `}`",
                )
                .with_help("write the rolls to group between the braces, e.g. `{2d20, 1d20+5}kh1`"),
            );
        }
        let outer = (self.lowest_face.take(), self.highest_face.take());
        let outer_rescore = self.rescore.take();
        let outer_term = self.begin_term();
        let mut modifiers = self.parse_modifiers();
        let term = self.end_term(outer_term);
        (self.lowest_face, self.highest_face) = outer;
        self.refuse_set_rescore(outer_rescore);
        self.unite_selectors(&mut modifiers);
        self.refuse_term_combinations(&modifiers);
        self.drop_group_sort(&mut modifiers);
        let span = Span::new(open.span.start, self.prev_end);
        // Roll20's `{3d6/2}>1` first becomes its single dice each divided, then is counted as members.
        let members = if members.len() == 1 && !modifiers.is_empty() {
            match self.dice_with_arithmetic(&members[0], &modifiers) {
                Some(dice) => dice,
                None => self.group_of_one(members, span),
            }
        } else {
            members
        };
        // Only where `/` keeps the fraction: in Omen's notation a fraction counted is an error.
        if members.len() > 1
            && self.dialect.keeps_fractions
            && let Some(counted) = fraction_members_counted(&members, &modifiers, span)
        {
            return self.finish_group(counted, term);
        }
        let group = Expr::new(
            ExprKind::Group(Box::new(GroupExpr { members, modifiers })),
            span,
        );
        self.finish_group(group, term)
    }

    /// In a dialect whose sets are written in parentheses (Avrae's `(1d4 + 1, 3, 2d6kl1)kh1`), a tuple
    /// with modifiers glued on is a group; otherwise the tuple as it is.
    pub(super) fn paren_set(&mut self, tuple: Expr) -> Expr {
        let token = self.peek();
        if !self.dialect.paren_sets
            || token.kind != TokenKind::Word
            || token.span.start != self.prev_end
            || !self.is_modifier_run(token.span, 0)
        {
            return self.set_without_operations(tuple);
        }
        let ExprKind::Tuple(members) = &tuple.node else {
            return tuple;
        };
        let reported = (self.diagnostics.len(), self.warnings.len());
        let written = (members.clone(), tuple.span);
        let read = self.operated_set(tuple);
        self.set_in_turn(read, written, reported)
    }

    /// A d20 set with its operations, read one by one.
    fn operated_set(&mut self, tuple: Expr) -> Expr {
        let ExprKind::Tuple(members) = tuple.node else {
            return tuple;
        };
        let outer_rescore = self.rescore.take();
        let outer_term = self.begin_term();
        let mut modifiers = self.parse_modifiers();
        let term = self.end_term(outer_term);
        let mut members = members;
        if modifiers.is_empty()
            && let Some((rescore, at)) = self.rescore.take()
        {
            members = self.score_set_members(members, rescore, at);
        }
        self.refuse_set_rescore(outer_rescore);
        self.unite_selectors(&mut modifiers);
        self.refuse_term_combinations(&modifiers);
        self.drop_group_sort(&mut modifiers);
        let span = Span::new(tuple.span.start, self.prev_end);
        if let Some(ends) = set_ends(&members, &modifiers, span) {
            return self.finish_group(ends, term);
        }
        let set = Expr::new(
            ExprKind::Group(Box::new(GroupExpr { members, modifiers })),
            Span::new(tuple.span.start, self.prev_end),
        );
        self.finish_group(set, term)
    }

    /// The members of a group with one member and modifiers, as the dialect reads it: Roll20 keeps and
    /// counts the member's single dice, so `{4d6+3d8}kh1` becomes `{d6, d6, d6, d6, d8, d8, d8}kh1`.
    pub(super) fn group_of_one(&mut self, members: Vec<Expr>, span: Span) -> Vec<Expr> {
        match self.dialect.group_of_one {
            GroupOfOne::Dice => {
                let mut dice = Vec::new();
                if single_dice(&members[0], &mut dice) {
                    return dice;
                }
                self.report(
                    Diagnostic::error(
                        "group-of-one-dice",
                        members[0].span,
                        format!(
                            "in {} a group with one member keeps and counts that member's single dice; Omen can \
                             do so only for a sum of dice terms with written counts, at most {MAX_SINGLE_DICE} dice, \
                             without keep, drop or counting of their own",
                            self.dialect.source
                        ),
                    )
                    .with_help("list the dice as members, e.g. `{1d6, 1d6, 1d8}kh1`"),
                );
                members
            }
            GroupOfOne::Member => {
                if self.dialect.warn_other_readings {
                    let written = shorten(self.text(span));
                    self.warnings.push(
                        Diagnostic::warning(
                            "group-differs-in-roll20",
                            span,
                            format!(
                                "`{written}` keeps or counts the total of its one member; Roll20 and \
                                 rpg-dice-roller keep and count that member's single dice"
                            ),
                        )
                        .with_help(
                            "to keep or count single dice, list them as members, e.g. `{d6, d6, d6}kh1`; to \
                             use the total, drop the braces",
                        ),
                    );
                }
                members
            }
        }
    }
}

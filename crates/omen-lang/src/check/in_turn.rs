//! `avrae("4d6kh3e6ro1")`: a d20 dice term whose operations run in turn (see
//! [`crate::syntax::d20_terms`]), checked against the limits before anything is rolled.

use omen_core::Die;
use omen_core::foundry::FoundryTerm;
use omen_core::in_turn::InTurn;

use super::Checker;
use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::program::{
    FoundryRolledNode, InTurnNode, InTurnSetNode, InTurnTerm, Node, NodeKind, Type,
};
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind};
use crate::syntax::{d20_terms, foundry_terms};

impl Checker<'_> {
    pub(super) fn in_turn_call(&mut self, span: Span, arg: &Expr) -> Option<Node> {
        let ExprKind::Text(text) = &arg.node else {
            return self.error(
                Diagnostic::error(
                    "bad-d20-term",
                    arg.span,
                    "`avrae` takes a d20 dice term in quotes",
                )
                .with_help("write the term as Avrae takes it, e.g. `avrae(\"4d6kh3e6ro1\")`"),
            );
        };
        let term = match d20_terms::read(text) {
            Ok(term) => term,
            Err(missing) => {
                return self.error(
                    Diagnostic::error(
                        "bad-d20-term",
                        arg.span,
                        format!("`{text}` is not a d20 dice term: expected {missing}"),
                    )
                    .with_help(
                        "a count, `d`, the sides or `%`, then operations (`k`, `p`, `rr`, `ro`, \
                         `ra`, `e`, `mi`, `ma`) each with a selector (`3`, `h3`, `l3`, `>3`, `<3`)",
                    ),
                );
            }
        };
        let die = match term.sides {
            Some(sides) => Die::standard(sides, self.limits),
            None => Die::custom((0..10).map(|t| t * 10).collect(), self.limits),
        };
        let built = die.and_then(|die| {
            let count = self.limits.check_dice(term.count)? as u64;
            let built = InTurn {
                count,
                die,
                steps: term.steps.clone(),
            };
            built.check()?;
            Ok(built)
        });
        match built {
            Ok(term_node) => Some(Node {
                span,
                ty: Type::Int,
                kind: NodeKind::InTurn(Box::new(InTurnNode {
                    notation: d20_terms::written(&term),
                    term: InTurnTerm::D20(term_node),
                })),
            }),
            Err(e) => self.error(core_diagnostic(&e, arg.span)),
        }
    }

    /// `avrae_set((1, 2, 3), "k1kh1")`: a d20 set's members, then its keeps and drops in turn.
    pub(super) fn in_turn_set_call(&mut self, span: Span, set: &Expr, ops: &Expr) -> Option<Node> {
        let help = "write the members as a tuple and the keeps and drops in quotes, e.g. \
                    `avrae_set((1, 2, 3), \"k1kh1\")`";
        let (ExprKind::Tuple(members), ExprKind::Text(text)) = (&set.node, &ops.node) else {
            return self.error(
                Diagnostic::error(
                    "bad-d20-term",
                    span,
                    "`avrae_set` takes a set's members and its keeps and drops",
                )
                .with_help(help),
            );
        };
        let Some((steps, _)) =
            d20_terms::set_operations(text).filter(|(_, len)| *len == text.len())
        else {
            return self.error(
                Diagnostic::error(
                    "bad-d20-term",
                    ops.span,
                    format!("`{text}` is not a run of d20's keeps and drops (`k`, `p`)"),
                )
                .with_help(help),
            );
        };
        let nodes: Vec<Option<Node>> = members.iter().map(|m| self.expr(m)).collect();
        let nodes: Vec<Node> = nodes.into_iter().collect::<Option<_>>()?;
        for n in &nodes {
            if !self.expect_int(n, "a member of a set") {
                return None;
            }
        }
        Some(Node {
            span,
            ty: Type::Int,
            kind: NodeKind::InTurnSet(Box::new(InTurnSetNode {
                members: nodes,
                steps,
            })),
        })
    }
}

/// Sides that stand for any die while a rolled term's modifiers are checked: only the points of a
/// bare `x` or `cs` depend on the sides, and those are read again for each die rolled.
const ANY_SIDES: i64 = 6;

impl Checker<'_> {
    /// `foundry(1d4, 6, "xkh2")`: a Foundry term whose count or sides are rolled first (Foundry's
    /// `(1d4)d6xkh2`), its modifiers then run in turn.
    pub(super) fn foundry_rolled_call(
        &mut self,
        span: Span,
        count: &Expr,
        sides: &Expr,
        modifiers: &Expr,
    ) -> Option<Node> {
        let ExprKind::Text(text) = &modifiers.node else {
            return self.error(
                Diagnostic::error(
                    "bad-foundry-term",
                    modifiers.span,
                    "`foundry` takes the modifiers of a term with a rolled count or sides in quotes",
                )
                .with_help("e.g. `foundry(1d4, 6, \"xkh2\")`"),
            );
        };
        let fate = matches!(&sides.node, ExprKind::Text(t) if t.eq_ignore_ascii_case("f"));
        // Whether the modifiers reroll every face depends on the sides; that is checked per die.
        let read = foundry_terms::modifiers_at(text, ANY_SIDES).and_then(|(mods, len)| match &text
            [len..]
        {
            "" if fate && !mods.iter().all(foundry_terms::fate_takes) => Err(format!(
                "Foundry's Fate dice take only {}",
                foundry_terms::FATE_MODIFIERS
            )),
            "" => Ok(()),
            rest => Err(format!("a modifier at `{rest}`")),
        });
        if let Err(why) = read {
            return self.error(
                Diagnostic::error(
                    "bad-foundry-term",
                    modifiers.span,
                    format!("`{text}` is not a run of Foundry modifiers: {why}"),
                )
                .with_help("modifiers as Foundry takes them after `NdX`, e.g. `xkh2`, `r1=1cs>4`"),
            );
        }
        let count = self.expr(count);
        let sides = match fate {
            true => Some(None),
            false => self.expr(sides).map(Some),
        };
        let (count, sides) = (count?, sides?);
        if !self.expect_int(&count, "the number of dice")
            || sides
                .as_ref()
                .is_some_and(|s| !self.expect_int(s, "the sides"))
        {
            return None;
        }
        Some(Node {
            span,
            ty: Type::Int,
            kind: NodeKind::FoundryRolled(Box::new(FoundryRolledNode {
                notation: self.source[span.start..span.end].to_string(),
                count,
                sides,
                modifiers: text.clone(),
            })),
        })
    }

    /// `foundry("3d6max5xkh2")`: a Foundry dice term whose modifiers run as Foundry runs them (see
    /// [`crate::syntax::foundry_terms`]).
    pub(super) fn foundry_call(&mut self, span: Span, arg: &Expr) -> Option<Node> {
        let help = "write the term as Foundry takes it, e.g. `foundry(\"3d6max5xkh2\")`: a count, \
                    `d`, the sides, then modifiers (`r`, `rr`, `x`, `xo`, `k`, `kh`, `kl`, `d`, \
                    `dh`, `dl`, `min`, `max`, `cs`, `cf`, `df`, `sf`, `even`, `odd`, `ms`)";
        let ExprKind::Text(text) = &arg.node else {
            return self.error(
                Diagnostic::error(
                    "bad-foundry-term",
                    arg.span,
                    "`foundry` takes a Foundry dice term in quotes",
                )
                .with_help(help),
            );
        };
        let term = match foundry_terms::read(text) {
            Ok(term) => term,
            Err(missing) => {
                return self.error(
                    Diagnostic::error(
                        "bad-foundry-term",
                        arg.span,
                        format!("`{text}` is not a Foundry dice term: expected {missing}"),
                    )
                    .with_help(help),
                );
            }
        };
        let die = match term.fate {
            true => Die::custom(vec![-1, 0, 1], self.limits),
            false => Die::standard(term.sides, self.limits),
        };
        let built = die.and_then(|die| {
            let built = FoundryTerm {
                count: self.limits.check_dice(term.count)? as u64,
                die,
                modifiers: term.modifiers.clone(),
            };
            built.check()?;
            Ok(built)
        });
        match built {
            Ok(built) => Some(Node {
                span,
                ty: Type::Int,
                kind: NodeKind::InTurn(Box::new(InTurnNode {
                    notation: foundry_terms::written(&term),
                    term: InTurnTerm::Foundry(built),
                })),
            }),
            Err(e) => self.error(core_diagnostic(&e, arg.span)),
        }
    }
}

//! Avrae's both ends of a set, `(1, 5, 3)kh1kl1`: d20 keeps the members any of its selectors picks,
//! and each selector picks the earliest of equal members, so the highest and the lowest are two
//! members unless every member is equal, when both pick the first and it counts once. The exact
//! engine keeps both ends of dice only, so a set reads as its members bound by name, then the highest
//! and the lowest of them: `if highest == lowest then highest else highest + lowest` (the drop, the
//! members' total less that).

use crate::span::Span;
use crate::syntax::ast::{
    BinOp, CompareOp, Expr, ExprKind, GroupExpr, KeepWhich, Modifier, Spanned,
};

/// The set with one highest and one lowest member kept (or dropped) as above; `None` for any other
/// modifiers.
pub(super) fn set_ends(
    members: &[Expr],
    modifiers: &[Spanned<Modifier>],
    span: Span,
) -> Option<Expr> {
    let [only] = modifiers else {
        return None;
    };
    let Modifier::KeepEnds {
        highest: 1,
        lowest: 1,
        drop,
    } = only.node
    else {
        return None;
    };
    if members.is_empty() {
        return None;
    }
    let at = only.span;
    let start = span.start;
    let var = |name: &str| Expr::new(ExprKind::Var(name.to_string()), at);
    let names: Vec<String> = (0..members.len())
        .map(|i| format!("set_{start}_{i}"))
        .collect();
    let group = |keep: Option<KeepWhich>| {
        let modifiers = keep
            .map(|which| vec![Spanned::new(Modifier::Keep { which, count: 1 }, at)])
            .unwrap_or_default();
        Expr::new(
            ExprKind::Group(Box::new(GroupExpr {
                members: names.iter().map(|n| var(n)).collect(),
                modifiers,
            })),
            span,
        )
    };
    let binary =
        |op, a: Expr, b: Expr| Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), span);
    let (high, low) = (format!("highest_{start}"), format!("lowest_{start}"));
    let both = Expr::new(
        ExprKind::If(
            Box::new(Expr::new(
                ExprKind::Compare(CompareOp::Eq, Box::new(var(&high)), Box::new(var(&low))),
                span,
            )),
            Box::new(var(&high)),
            Box::new(binary(BinOp::Add, var(&high), var(&low))),
        ),
        span,
    );
    let ends = if drop {
        binary(BinOp::Sub, group(None), both)
    } else {
        both
    };
    let let_in = |name: &str, value: Expr, body: Expr| {
        Expr::new(
            ExprKind::LetIn(
                Spanned::new(name.to_string(), at),
                Box::new(value),
                Box::new(body),
            ),
            span,
        )
    };
    let body = let_in(
        &high,
        group(Some(KeepWhich::KeepHighest)),
        let_in(&low, group(Some(KeepWhich::KeepLowest)), ends),
    );
    Some(
        names
            .iter()
            .zip(members)
            .rev()
            .fold(body, |body, (name, member)| {
                let_in(name, member.clone(), body)
            }),
    )
}

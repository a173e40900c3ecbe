//! Avrae's both ends of a set, `(1, 5, 3)kh1kl1`: d20 keeps the members any of its selectors picks,
//! and each selector picks the earliest of equal members, so the highest and the lowest are two
//! members unless every member is equal, when both pick the first and it counts once. The exact
//! engine keeps both ends of dice only, so a set reads as its members bound by name, then the highest
//! and the lowest of them: `if highest == lowest then highest else highest + lowest` (the drop, the
//! members' total less that).
//!
//! With other counts (`(1, 5, 3)kh2kl1`) each member is picked as d20 picks it: by the highest
//! selector when fewer than `a` members lie above it or tie with it earlier in the set, by the
//! lowest when fewer than `b` lie below it or tie with it earlier; the kept total adds the members
//! either picks. Each count is a sum of comparisons of the members bound by name.

use crate::span::Span;
use crate::syntax::ast::{
    BinOp, CompareOp, Expr, ExprKind, GroupExpr, KeepWhich, Modifier, Spanned,
};

/// The most members of a set whose ends are picked by comparisons (their number grows with the
/// square of the members).
const MAX_COUNTED_MEMBERS: usize = 16;

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
        highest,
        lowest,
        drop,
    } = only.node
    else {
        return None;
    };
    if members.is_empty() {
        return None;
    }
    if (highest, lowest) != (1, 1) {
        if members.len() > MAX_COUNTED_MEMBERS {
            return None;
        }
        return Some(counted_ends(
            members,
            (highest, lowest, drop),
            only.span,
            span,
        ));
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

/// `(x_0, …, x_m)` keeping (dropping) its highest `a` and lowest `b` members as d20 picks them: member
/// `i` is picked when `earlier_i + above_i < a` or `earlier_i + below_i < b`, where `above_i`
/// (`below_i`) counts the members higher (lower) than it and `earlier_i` the equal ones before it.
fn counted_ends(
    members: &[Expr],
    (highest, lowest, drop): (i64, i64, bool),
    at: Span,
    span: Span,
) -> Expr {
    let start = span.start;
    let names: Vec<String> = (0..members.len())
        .map(|i| format!("set_{start}_{i}"))
        .collect();
    let build = |node| Expr::new(node, at);
    let var = |i: usize| build(ExprKind::Var(names[i].clone()));
    let number = |n: i64| build(ExprKind::Number(n));
    let add = |a: Expr, b: Expr| build(ExprKind::Binary(BinOp::Add, Box::new(a), Box::new(b)));
    let compare = |op, a: Expr, b: Expr| build(ExprKind::Compare(op, Box::new(a), Box::new(b)));
    let choose =
        |c: Expr, a: Expr, b: Expr| build(ExprKind::If(Box::new(c), Box::new(a), Box::new(b)));
    // How many members `j` in `others` meet `op` against member `i`, as a sum of 1s and 0s.
    let tally = |i: usize, op: CompareOp, others: &mut dyn Iterator<Item = usize>| {
        others
            .map(|j| choose(compare(op, var(j), var(i)), number(1), number(0)))
            .reduce(add)
            .unwrap_or_else(|| number(0))
    };
    let n = members.len();
    let total = (0..n)
        .map(|i| {
            let earlier = tally(i, CompareOp::Eq, &mut (0..i));
            let above = tally(i, CompareOp::Gt, &mut (0..n).filter(|&j| j != i));
            let below = tally(i, CompareOp::Lt, &mut (0..n).filter(|&j| j != i));
            let by_top = compare(CompareOp::Lt, add(earlier.clone(), above), number(highest));
            let by_bottom = compare(CompareOp::Lt, add(earlier, below), number(lowest));
            let picked = build(ExprKind::Or(Box::new(by_top), Box::new(by_bottom)));
            if drop {
                choose(picked, number(0), var(i))
            } else {
                choose(picked, var(i), number(0))
            }
        })
        .reduce(add)
        .unwrap_or_else(|| number(0));
    names
        .iter()
        .zip(members)
        .rev()
        .fold(total, |body, (name, member)| {
            Expr::new(
                ExprKind::LetIn(
                    Spanned::new(name.clone(), at),
                    Box::new(member.clone()),
                    Box::new(body),
                ),
                span,
            )
        })
}

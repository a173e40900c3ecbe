//! A group whose members may be fractions, counting successes (rpg-dice-roller's `{1d4/2, 1d2}>1`):
//! the group counts each member whose total meets the point. Dice counting works on whole faces, so
//! a member that divides is compared as a total instead, and the group reads as the sum of one
//! comparison per member: `(if div(1d4, 2) > 1 then 1 else 0) + (if 1d2 > 1 then 1 else 0)`, a failure
//! point subtracting its own; a member checked against two points is bound by a name first.

use crate::span::Span;
use crate::syntax::ast::{BinOp, ComparePoint, Expr, ExprKind, Modifier, PointValue, Spanned};

/// The group read as a sum of comparisons when it counts with success and failure points only and a
/// member divides; `None` leaves it a group.
pub(super) fn fraction_members_counted(
    members: &[Expr],
    modifiers: &[Spanned<Modifier>],
    span: Span,
) -> Option<Expr> {
    let counts = !modifiers.is_empty()
        && modifiers
            .iter()
            .all(|m| matches!(m.node, Modifier::Success(_) | Modifier::Failure(_)));
    if !counts || !members.iter().any(divides) {
        return None;
    }
    let mut total: Option<Expr> = None;
    for member in members {
        let counted = counted_member(member, modifiers)?;
        total = Some(match total {
            None => counted,
            Some(sum) => Expr::new(
                ExprKind::Binary(BinOp::Add, Box::new(sum), Box::new(counted)),
                span,
            ),
        });
    }
    total
}

/// One member's count: `if member > 1 then 1 else 0`, less one for a failure point. With several
/// points the member is bound once by a name, so that each point sees the same roll.
fn counted_member(member: &Expr, modifiers: &[Spanned<Modifier>]) -> Option<Expr> {
    let span = member.span;
    let name = format!("member_{}", span.start);
    let subject = if modifiers.len() > 1 {
        Expr::new(ExprKind::Var(name.clone()), span)
    } else {
        member.clone()
    };
    let mut count: Option<Expr> = None;
    for modifier in modifiers {
        let (failure, point) = match &modifier.node {
            Modifier::Success(point) => (false, point),
            Modifier::Failure(point) => (true, point),
            _ => return None,
        };
        let term = met(&subject, point, modifier.span)?;
        count = Some(match (count, failure) {
            (None, false) => term,
            (None, true) => Expr::new(ExprKind::Neg(Box::new(term)), span),
            (Some(sum), failure) => {
                let op = if failure { BinOp::Sub } else { BinOp::Add };
                Expr::new(ExprKind::Binary(op, Box::new(sum), Box::new(term)), span)
            }
        });
    }
    let count = count?;
    if modifiers.len() == 1 {
        return Some(count);
    }
    Some(Expr::new(
        ExprKind::LetIn(
            Spanned::new(name, span),
            Box::new(member.clone()),
            Box::new(count),
        ),
        span,
    ))
}

/// `if member op value then 1 else 0`.
fn met(member: &Expr, point: &ComparePoint, at: Span) -> Option<Expr> {
    let value = match &point.value {
        PointValue::Int(n) => Expr::new(ExprKind::Number(*n), at),
        PointValue::Name(name) => Expr::new(ExprKind::Var(name.node.clone()), name.span),
        PointValue::Faces(_) => return None,
    };
    let span = member.span;
    let compared = Expr::new(
        ExprKind::Compare(point.op, Box::new(member.clone()), Box::new(value)),
        span,
    );
    Some(Expr::new(
        ExprKind::If(
            Box::new(compared),
            Box::new(Expr::new(ExprKind::Number(1), span)),
            Box::new(Expr::new(ExprKind::Number(0), span)),
        ),
        span,
    ))
}

/// Whether the expression keeps a fraction somewhere: a division that keeps it (`div(a, b)`, which is
/// how the dialects that keep fractions read `/` and decimals) outside a rounding function.
fn divides(expr: &Expr) -> bool {
    match &expr.node {
        ExprKind::Call(name, _) => name.node == "div",
        ExprKind::Binary(BinOp::Quotient, _, _) => true,
        ExprKind::Binary(_, left, right) => divides(left) || divides(right),
        ExprKind::Paren(inner) | ExprKind::Neg(inner) => divides(inner),
        _ => false,
    }
}

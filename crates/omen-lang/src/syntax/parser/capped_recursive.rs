//! Foundry's capped recursive explosions and rerolls, `5d10x5>=8` and `2d20rr1=1`: the number before
//! the compare point caps how many times the whole term explodes (rerolls), the new dice checked too.
//!
//! Foundry walks the results in order, the new dice appended after the others, and stops when the cap
//! is spent. So the dice are checked generation by generation: the `n` dice first, with `k` of them
//! meeting the point. When `k` reaches the cap `c` that is left, the first `c` of them explode (are
//! rerolled) and their new dice are never checked; otherwise all `k` do, and their `k` new dice are
//! checked with `c - k` left. The dice are exchangeable, so given `k` the dice that do not meet the
//! point are uniform over the other faces and those that do over the meeting faces. Each generation is
//! a `let` binding of its count, which the exact engine weighs value by value, and the generations nest
//! at most `c` deep, since each one that goes on uses at least one of the cap.

use crate::span::Span;
use crate::syntax::ast::{
    BinOp, CompareOp, ComparePoint, DiceExpr, Expr, ExprKind, Modifier, Sides, Spanned,
};

/// The largest cap read: the generations are written out, one nested binding each.
pub(super) const MAX_RECURSIVE_CAP: i64 = 20;

/// What a capped recursive step looks like, gathered from the term.
pub(super) struct Recursion<'a> {
    /// The dice term's sides, and the faces that meet the point and those that do not, as dice.
    pub sides: &'a Spanned<Sides>,
    pub meeting: Spanned<Sides>,
    pub other: Option<Spanned<Sides>>,
    pub point: &'a ComparePoint,
    /// Whether the dice meeting the point keep their roll and add a die (explosion), or are replaced.
    pub explode: bool,
}

/// The reading of `count` dice with a capped recursive explosion or reroll (see the module's header).
pub(super) fn capped_recursion(
    recursion: &Recursion,
    count: i64,
    cap: i64,
    span: Span,
    at: Span,
) -> Expr {
    let stem = if recursion.explode {
        "exploding"
    } else {
        "rerolling"
    };
    let name = |level: i64| format!("{stem}_{}_{level}", span.start);
    let var = |level: i64| Expr::new(ExprKind::Var(name(level)), at);
    let number = |n: i64| Expr::new(ExprKind::Number(n), at);
    let binary =
        |op, a: Expr, b: Expr| Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), span);
    let compare =
        |op, a: Expr, b: Expr| Expr::new(ExprKind::Compare(op, Box::new(a), Box::new(b)), at);
    let dice_of = |count: Expr, sides: Spanned<Sides>, modifiers: Vec<Spanned<Modifier>>| {
        Expr::new(
            ExprKind::Dice(Box::new(DiceExpr {
                count: Some(count),
                sides,
                modifiers,
            })),
            span,
        )
    };
    // The dice checked in generation `level` (from 1), and the cap left for it.
    let checked = |level: i64| {
        if level == 1 {
            number(count)
        } else {
            var(level - 1)
        }
    };
    let left = |level: i64| {
        (1..level).fold(number(cap), |left, spent| {
            binary(BinOp::Sub, left, var(spent))
        })
    };
    // Built from the deepest generation out; the one below the last cannot be reached, since each
    // generation that goes on spends at least one of the cap.
    let mut inner = number(0);
    for level in (1..=cap).rev() {
        let meet = var(level);
        let terminal = if recursion.explode {
            dice_of(left(level), recursion.sides.clone(), Vec::new())
        } else {
            let kept = binary(BinOp::Sub, meet.clone(), left(level));
            binary(
                BinOp::Add,
                dice_of(kept, recursion.meeting.clone(), Vec::new()),
                dice_of(left(level), recursion.sides.clone(), Vec::new()),
            )
        };
        let next = Expr::new(
            ExprKind::If(
                Box::new(compare(CompareOp::Eq, meet.clone(), number(0))),
                Box::new(number(0)),
                Box::new(inner),
            ),
            at,
        );
        let mut body = Expr::new(
            ExprKind::If(
                Box::new(compare(CompareOp::Ge, meet.clone(), left(level))),
                Box::new(terminal),
                Box::new(next),
            ),
            at,
        );
        if recursion.explode {
            let kept = dice_of(meet.clone(), recursion.meeting.clone(), Vec::new());
            body = binary(BinOp::Add, kept, body);
        }
        if let Some(other) = &recursion.other {
            let rest = binary(BinOp::Sub, checked(level), meet);
            body = binary(BinOp::Add, dice_of(rest, other.clone(), Vec::new()), body);
        }
        let counted = dice_of(
            checked(level),
            recursion.sides.clone(),
            vec![Spanned::new(Modifier::Success(recursion.point.clone()), at)],
        );
        inner = Expr::new(
            ExprKind::LetIn(
                Spanned::new(name(level), at),
                Box::new(counted),
                Box::new(body),
            ),
            span,
        );
    }
    inner
}

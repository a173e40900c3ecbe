//! What the parser's parts share and that names no parser: compare points, a dice term's state,
//! and small builders and readers of syntax trees. The parser and its parts (which add methods to
//! it) import from here, so none of them needs another's file.

use crate::span::Span;
use crate::syntax::ast::{
    BinOp, CompareOp, ComparePoint, DiceExpr, Expr, ExprKind, FaceItem, KeepWhich, Modifier,
    PointValue, Sides, Spanned,
};
use crate::syntax::dialect::RankedReroll;
use crate::syntax::lexer::TokenKind;

/// A compare point after a modifier keyword, or why there is none.
pub(super) enum Point {
    Absent,
    Present(ComparePoint),
    /// Started but malformed; already reported.
    Invalid,
}

/// The parts of a dice term (or group) that apply to it as a whole.
#[derive(Debug, Default)]
pub(super) struct TermState {
    /// Avrae's reroll by rank: how, from which end, how many dice, where written.
    pub ranked: Option<(RankedReroll, bool, i64, Span)>,
    /// Avrae's `ra` with a value, where written.
    pub reroll_and_add: Option<Span>,
    /// Roll20's inline rolls written as compare points, each with the name its value is bound to.
    pub inline_points: Vec<(Spanned<String>, Expr)>,
    /// Foundry's capped reroll (`r1=1`).
    pub capped_reroll: Option<CappedReroll>,
}

/// A capped reroll or explosion read after a dice term: the cap, the point, where it is written, and
/// its kind (whether the dice meeting it keep their roll beside the new ones, and whether new dice are
/// checked again).
pub(super) type CappedReroll = (i64, ComparePoint, Span, Cap);

/// The kind of a capped step: whether the dice meeting the point keep their roll beside the new die
/// (an explosion, d20's `ra`) or are replaced, and whether the new dice are checked again (`x`, `rr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Cap {
    pub added: bool,
    pub recursive: bool,
}

pub(super) fn compare_op(kind: TokenKind) -> Option<CompareOp> {
    match kind {
        TokenKind::Ge => Some(CompareOp::Ge),
        TokenKind::Gt => Some(CompareOp::Gt),
        TokenKind::Le => Some(CompareOp::Le),
        TokenKind::Lt => Some(CompareOp::Lt),
        TokenKind::Eq => Some(CompareOp::Eq),
        _ => None,
    }
}

/// `count` dice plus `extra` more (Dice Maiden's advantage dice).
pub(super) fn add_dice(count: Option<Expr>, extra: i64, at: Span) -> Expr {
    match count {
        None => Expr::new(ExprKind::Number(extra.saturating_add(1)), at),
        Some(Expr {
            node: ExprKind::Number(n),
            span,
        }) => Expr::new(ExprKind::Number(n.saturating_add(extra)), span),
        Some(count) => {
            let span = count.span;
            let paren = Expr::new(ExprKind::Paren(Box::new(count)), span);
            Expr::new(
                ExprKind::Binary(
                    BinOp::Add,
                    Box::new(paren),
                    Box::new(Expr::new(ExprKind::Number(extra), at)),
                ),
                span,
            )
        }
    }
}

/// `text`, cut to a length that reads well in a message.
pub(super) fn shorten(text: &str) -> String {
    crate::diagnostic::cut(text, 24)
}

/// The lowest and highest value of a face item.
pub(super) fn face_bounds(item: &FaceItem) -> (i64, i64) {
    match *item {
        FaceItem::Face(n) => (n, n),
        FaceItem::Range(a, b) => (a.min(b), a.max(b)),
    }
}

/// The highest face of a die, when known before rolling: a bare `cs` or `df` (Foundry) counts it.
pub(super) fn highest_face(sides: &Sides) -> Option<i64> {
    match sides {
        Sides::Number(number) => match number.node {
            crate::syntax::ast::ExprKind::Number(n) => Some(n),
            _ => None,
        },
        Sides::Percent => Some(100),
        Sides::Fudge => Some(1),
        Sides::Custom(items) => items.iter().map(|i| face_bounds(&i.node).1).max(),
    }
}

/// `kh1` or `kl1` then one reroll or explosion, the whole of a term's modifiers: the step that d20
/// applies to the one die kept (`2d20kh1ro1`, advantage with a reroll of 1s).
pub(super) fn one_kept_then_step(modifiers: &[Spanned<Modifier>]) -> Option<&Spanned<Modifier>> {
    match modifiers {
        [
            Spanned {
                node:
                    Modifier::Keep {
                        which: KeepWhich::KeepHighest | KeepWhich::KeepLowest,
                        count: 1,
                    },
                ..
            },
            step,
        ] if matches!(
            step.node,
            Modifier::RerollOnce(_) | Modifier::RerollRecursive(_) | Modifier::Explode { .. }
        ) =>
        {
            Some(step)
        }
        _ => None,
    }
}

/// `count` dice of `sides` with `modifiers`, spanning `span`.
pub(super) fn one_die_term(
    count: i64,
    sides: &Spanned<Sides>,
    modifiers: Vec<Spanned<Modifier>>,
    span: Span,
) -> Expr {
    Expr::new(
        ExprKind::Dice(Box::new(DiceExpr {
            count: Some(Expr::new(ExprKind::Number(count), span)),
            sides: sides.clone(),
            modifiers,
        })),
        span,
    )
}

/// One die kept from `rolled` (a term of dice of `sides` keeping one), then `step` on it: an
/// explosion adds a new die (exploding again unless it explodes once), a reroll replaces the die with
/// a new one (rerolled again for a reroll until). As a binding and a choice,
/// `let kept_8 = 2d20dl1 in if kept_8 >= 20 then kept_8 + 1d20! else kept_8`. `None` for a step of
/// another kind or a point that is not a number.
pub(super) fn kept_then_step(
    rolled: Expr,
    sides: &Spanned<Sides>,
    step: &Spanned<Modifier>,
    span: Span,
) -> Option<Expr> {
    let (point, again, adds) = match &step.node {
        Modifier::Explode {
            compound: false,
            point,
            once,
            penetrate: false,
        } => {
            let point = match point {
                Some(point) => point.clone(),
                None => ComparePoint {
                    op: CompareOp::Ge,
                    value: PointValue::Int(highest_face(&sides.node)?),
                },
            };
            let again = if *once { None } else { Some(step.clone()) };
            (point, again, true)
        }
        Modifier::RerollOnce(point) => (point.clone(), None, false),
        Modifier::RerollRecursive(point) => (point.clone(), Some(step.clone()), false),
        _ => return None,
    };
    let PointValue::Int(value) = point.value else {
        return None;
    };
    let name = format!("kept_{}", span.start);
    let kept = || Box::new(Expr::new(ExprKind::Var(name.clone()), span));
    let number = Box::new(Expr::new(ExprKind::Number(value), span));
    let meets = Box::new(Expr::new(ExprKind::Compare(point.op, kept(), number), span));
    let fresh = one_die_term(1, sides, again.into_iter().collect(), span);
    let then = if adds {
        Expr::new(ExprKind::Binary(BinOp::Add, kept(), Box::new(fresh)), span)
    } else {
        fresh
    };
    let choice = Expr::new(ExprKind::If(meets, Box::new(then), kept()), span);
    let bound = Expr::new(
        ExprKind::LetIn(
            Spanned::new(name.clone(), span),
            Box::new(rolled),
            Box::new(choice),
        ),
        span,
    );
    Some(Expr::new(ExprKind::Paren(Box::new(bound)), span))
}

pub(super) fn binary_op(kind: TokenKind) -> Option<BinOp> {
    match kind {
        TokenKind::Plus => Some(BinOp::Add),
        TokenKind::Minus => Some(BinOp::Sub),
        TokenKind::Star => Some(BinOp::Mul),
        TokenKind::Slash | TokenKind::SlashSlash => Some(BinOp::Div),
        TokenKind::Percent => Some(BinOp::Mod),
        TokenKind::Caret => Some(BinOp::Pow),
        _ => None,
    }
}

/// The most single dice a group with one member is spread into (Roll20's `{5d6!!}>8`).
pub(super) const MAX_SINGLE_DICE: i64 = 100;

/// Spreads a sum of dice terms with written counts into single dice, each with the term's modifiers;
/// `false` when `expr` is anything else.
pub(super) fn single_dice(expr: &Expr, out: &mut Vec<Expr>) -> bool {
    match &expr.node {
        ExprKind::Paren(inner) => single_dice(inner, out),
        ExprKind::Binary(BinOp::Add, left, right) => {
            single_dice(left, out) && single_dice(right, out)
        }
        ExprKind::Dice(dice) => {
            let count = match dice.count.as_ref().map(|c| &c.node) {
                None => 1,
                Some(ExprKind::Number(n)) => *n,
                Some(_) => return false,
            };
            let per_die = dice.modifiers.iter().all(|m| {
                matches!(
                    m.node,
                    Modifier::Explode { .. }
                        | Modifier::RerollOnce(_)
                        | Modifier::RerollRecursive(_)
                        | Modifier::ClampMin(_)
                        | Modifier::ClampMax(_)
                )
            });
            if !per_die || count < 0 || out.len() as i64 + count > MAX_SINGLE_DICE {
                return false;
            }
            for _ in 0..count {
                out.push(Expr::new(
                    ExprKind::Dice(Box::new(DiceExpr {
                        count: None,
                        sides: dice.sides.clone(),
                        modifiers: dice.modifiers.clone(),
                    })),
                    expr.span,
                ));
            }
            true
        }
        _ => false,
    }
}

/// The lowest face of a die known from its sides alone, which a bare `r` or `ro` rerolls.
pub(super) fn lowest_face(sides: &Sides) -> Option<i64> {
    match sides {
        Sides::Number(Expr {
            node: ExprKind::Number(_),
            ..
        })
        | Sides::Percent => Some(1),
        Sides::Number(_) => None,
        Sides::Fudge => Some(-1),
        Sides::Custom(items) => items
            .iter()
            .map(|item| match item.node {
                FaceItem::Face(n) | FaceItem::Range(n, _) => n,
            })
            .min(),
    }
}

/// Foundry's margin of success: `4d6ms>=10` is the total minus 10, `4d6ms<=10` is 10 minus the total.
pub(super) fn margin_of_success(dice: Expr, point: ComparePoint, at: Span) -> Expr {
    let span = dice.span;
    let target = match point.value {
        PointValue::Int(n) => Expr::new(ExprKind::Number(n), at),
        PointValue::Name(name) => Expr::new(ExprKind::Var(name.node), name.span),
        // Only rerolls take a set of faces.
        PointValue::Faces(_) => Expr::new(ExprKind::Error, at),
    };
    let paren = |e: Expr| {
        let span = e.span;
        Expr::new(ExprKind::Paren(Box::new(e)), span)
    };
    let (left, right) = match point.op {
        CompareOp::Le | CompareOp::Lt => (target, paren(dice)),
        _ => (paren(dice), target),
    };
    Expr::new(
        ExprKind::Binary(BinOp::Sub, Box::new(left), Box::new(right)),
        span,
    )
}

/// A hint for typographic characters that look like ASCII notation: a minus sign (U+2212) or dash for
/// `-`, `×` for `*`, full-width digits and operators.
pub(super) fn look_alike(text: &str) -> Option<&'static str> {
    let c = text.chars().next()?;
    Some(match c {
        '\u{2212}' | '\u{2013}' | '\u{2014}' | '\u{2010}' | '\u{2011}' | '\u{FE63}'
        | '\u{FF0D}' => {
            "this character looks like a minus but is not one: type the ASCII hyphen-minus `-`"
        }
        '\u{00D7}' | '\u{2715}' | '\u{2716}' | '\u{22C5}' | '\u{00B7}' | '\u{FF0A}' => {
            "this character looks like a multiplication sign: type `*`"
        }
        '\u{00F7}' | '\u{2215}' | '\u{FF0F}' => {
            "this character looks like a division sign: type `/`"
        }
        '\u{FF10}'..='\u{FF19}' => {
            "full-width digits are not read as numbers: type the ASCII digits `0`-`9`"
        }
        '\u{FF0B}' => "this is a full-width plus: type `+`",
        '\u{FF1E}' | '\u{FF1C}' | '\u{FF1D}' | '\u{2265}' | '\u{2264}' | '\u{2260}' => {
            "this character looks like a comparison: type `>`, `<`, `>=`, `<=`, `=` or `!=`"
        }
        '\u{201C}' | '\u{201D}' | '\u{2018}' | '\u{2019}' => {
            "curly quotes are not read as quotes: type the ASCII `\"`"
        }
        '\u{FF44}' | '\u{FF24}' => "this is a full-width `d`: type the ASCII letter `d`",
        _ => return None,
    })
}

/// `>= value`: Dice Maiden's bare number on a target or an explosion.
pub(super) fn at_least(value: i64) -> ComparePoint {
    ComparePoint {
        op: CompareOp::Ge,
        value: PointValue::Int(value),
    }
}

/// `<= value`: Dice Maiden's bare number on a reroll or a failure.
pub(super) fn at_most(value: i64) -> ComparePoint {
    ComparePoint {
        op: CompareOp::Le,
        value: PointValue::Int(value),
    }
}

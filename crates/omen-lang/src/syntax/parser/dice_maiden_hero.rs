//! Dice Maiden's Hero System (5th edition) aliases, `2hsn`, `5hsk1`, `3hsh`, and Exalted's `ex5`.
//!
//! Dice Maiden's alias table rewrites `Nhsn` to `hsn nr Nd6`, `NhskM` to `nr hskM Nd6` and `Nhsh` to
//! `hsh nr 11+N -3d6`, and the flags then say what the bot reports instead of the total (`nr`):
//! - `hsn`, normal damage: "Body" and "Stun", the Stun being the dice's total and the Body counting
//!   each die 0 on a 1, 1 on 2 to 5 and 2 on a 6 (its tally's `(+0)`, `(+1)`, `(+2)`): the pair
//!   `(body, stun)`.
//! - `hsk`, killing damage: "Body", the total, "Stun Multiplier", a d6 less 1 plus `M` (1 when that
//!   is 0), and "Stun", their product: the triple `(body, multiplier, stun)`.
//! - `hsh`, to hit: the total, `11 + N - 3d6`.
//!
//! The flags apply to the whole message, so each alias is read only as the start of the roll; what
//! follows it is added to the total (`5hsk1 +1d3`). `exN` is `Nd10 t7 t10` (`exNtT`: `Nd10 tT t10`):
//! each die counts one success for each target it meets, so a 10 counts two.

use super::Parser;
use super::pieces::{binary_op, shorten};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{
    BinOp, CompareOp, DiceExpr, Expr, ExprKind, FaceItem, PoolExpr, PoolMember, Sides, Spanned,
};
use crate::syntax::lexer::TokenKind;

/// Which Hero System roll an alias asks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hero {
    Normal,
    Killing(i64),
    ToHit,
}

impl Parser<'_> {
    /// `Nhsn`, `NhskM`, `Nhsh` glued to the count `count` just read, or `None` (consuming nothing).
    pub(super) fn hero_system_alias(&mut self, count: &Expr, word: &str) -> Option<Expr> {
        let ExprKind::Number(n) = count.node else {
            return None;
        };
        let token = self.peek();
        let next = self.tokens.get(self.pos + 1).copied();
        let glued = next
            .filter(|t| t.kind == TokenKind::Number && t.span.start == token.span.end)
            .and_then(|t| Some((self.text(t.span).parse::<i64>().ok()?, t)));
        let (hero, tokens) = match (word, glued) {
            ("hsn", None) => (Hero::Normal, 1),
            ("hsk", None) => (Hero::Killing(0), 1),
            ("hsk", Some((m, _))) => (Hero::Killing(m), 2),
            ("hsh", None) => (Hero::ToHit, 1),
            _ => return None,
        };
        for _ in 0..tokens {
            self.bump();
        }
        let at = Span::new(count.span.start, self.prev_end);
        let before = self.source[..count.span.start].trim();
        let at_start = before.is_empty()
            || self
                .dialect
                .chat_commands
                .iter()
                .any(|c| before.eq_ignore_ascii_case(c));
        if !at_start {
            self.refuse_hero(
                at,
                "at the start of the roll (its flags apply to the whole roll)",
            );
            return Some(Expr::new(ExprKind::Error, at));
        }
        let build = |node| Expr::new(node, at);
        let number = |v: i64| build(ExprKind::Number(v));
        let d6 = |count: Expr| {
            build(ExprKind::Dice(Box::new(DiceExpr {
                count: Some(count),
                sides: Spanned::new(Sides::Number(number(6)), at),
                modifiers: Vec::new(),
            })))
        };
        Some(match hero {
            Hero::Normal => {
                if self.peek().kind != TokenKind::Eof {
                    self.refuse_hero(
                        at,
                        "with nothing after it (Body counts every die of the roll)",
                    );
                    return Some(build(ExprKind::Error));
                }
                normal_damage(d6(number(n)), at)
            }
            Hero::Killing(m) => {
                let body = self.rest_of_roll(d6(number(n)));
                killing_damage(body, m, at)
            }
            Hero::ToHit => {
                let base = build(ExprKind::Binary(
                    BinOp::Add,
                    Box::new(number(11)),
                    Box::new(number(n)),
                ));
                let roll = build(ExprKind::Binary(
                    BinOp::Sub,
                    Box::new(base),
                    Box::new(d6(number(3))),
                ));
                self.rest_of_roll(roll)
            }
        })
    }

    /// `first` with the operators and operands after it, to the end of the roll.
    fn rest_of_roll(&mut self, first: Expr) -> Expr {
        let read = if binary_op(self.peek().kind).is_some() {
            self.parse_chain_rest(first, Self::parse_unary_operand, binary_op)
        } else {
            first
        };
        if self.peek().kind != TokenKind::Eof {
            let at = self.peek().span;
            self.refuse_hero(at, "followed by arithmetic only");
        }
        read
    }

    fn refuse_hero(&mut self, at: Span, why: &str) {
        let written = shorten(self.text(at));
        self.report(
            Diagnostic::error(
                "unsupported-modifier",
                at,
                format!("`{written}`: Dice Maiden's Hero System alias is read only {why}"),
            )
            .with_help("start the roll with the alias, e.g. `5hsk1 + 1d3`"),
        );
    }
}

/// `let p = pool Nd6 in (count(p, >=2) + count(p, 6), sum(p))`: Body and Stun of one roll.
fn normal_damage(dice: Expr, at: Span) -> Expr {
    let build = |node| Expr::new(node, at);
    let name = format!("hero_{}", at.start);
    let pool = build(ExprKind::Pool(Box::new(PoolExpr::Dice(vec![
        Spanned::new(PoolMember::Roll(dice), at),
    ]))));
    let call = |f: &str, args| build(ExprKind::Call(Spanned::new(f.to_string(), at), args));
    let count = |op, v| {
        let point = build(ExprKind::Point(op, Box::new(build(ExprKind::Number(v)))));
        call("count", vec![build(ExprKind::Var(name.clone())), point])
    };
    let body = build(ExprKind::Binary(
        BinOp::Add,
        Box::new(count(CompareOp::Ge, 2)),
        Box::new(count(CompareOp::Eq, 6)),
    ));
    let stun = call("sum", vec![build(ExprKind::Var(name.clone()))]);
    build(ExprKind::LetIn(
        Spanned::new(name, at),
        Box::new(pool),
        Box::new(build(ExprKind::Tuple(vec![body, stun]))),
    ))
}

/// `let body = … in let multiplier = max(1d6 - 1 + M, 1) in (body, multiplier, body * multiplier)`.
fn killing_damage(body: Expr, m: i64, at: Span) -> Expr {
    let build = |node| Expr::new(node, at);
    let (b, x) = (
        format!("body_{}", at.start),
        format!("multiplier_{}", at.start),
    );
    let var = |name: &str| build(ExprKind::Var(name.to_string()));
    let number = |v: i64| build(ExprKind::Number(v));
    let binary = |op, l, r| build(ExprKind::Binary(op, Box::new(l), Box::new(r)));
    let d6 = build(ExprKind::Dice(Box::new(DiceExpr {
        count: Some(number(1)),
        sides: Spanned::new(Sides::Number(number(6)), at),
        modifiers: Vec::new(),
    })));
    let rolled = binary(BinOp::Add, binary(BinOp::Sub, d6, number(1)), number(m));
    let multiplier = build(ExprKind::Call(
        Spanned::new("max".to_string(), at),
        vec![rolled, number(1)],
    ));
    let triple = build(ExprKind::Tuple(vec![
        var(&b),
        var(&x),
        binary(BinOp::Mul, var(&b), var(&x)),
    ]));
    let inner = build(ExprKind::LetIn(
        Spanned::new(x, at),
        Box::new(multiplier),
        Box::new(triple),
    ));
    build(ExprKind::LetIn(
        Spanned::new(b, at),
        Box::new(body),
        Box::new(inner),
    ))
}

/// Exalted's die, `exN` and `exNtT`: each face scores one for each target it meets, `T` and 10.
pub(super) fn exalted_die(target: i64, at: Span) -> Spanned<Sides> {
    let faces = (1..=10)
        .map(|f| {
            Spanned::new(
                FaceItem::Face(i64::from(f >= target) + i64::from(f >= 10)),
                at,
            )
        })
        .collect();
    Spanned::new(Sides::Custom(faces), at)
}

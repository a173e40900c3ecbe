//! The canonical rendering of a parsed script: Omen's default notation, fully parenthesised, saying
//! how the input was read.
//!
//! Whatever dialect the input was written in, the tree holds Omen's meanings, so the rendering is Omen
//! notation with the same meaning: Roll20's `3d6>3` renders as `3d6>=3`, and Omen's `3d6 > 2d10` as
//! `(3d6) > (2d10)`. Every operand that is not a number, a name or a call is put in parentheses, so that
//! the grouping can be read off without knowing any precedence. Parsing the rendering in the default
//! dialect gives the same tree again (apart from spans and parentheses), which a property test checks.
//!
//! ```
//! use omen_lang::syntax::{ParseLimits, parse, render};
//!
//! let script = parse("1d20+5+1d4 >= 15", &ParseLimits::default()).unwrap();
//! assert_eq!(render::script(&script), "(((1d20) + 5) + (1d4)) >= 15");
//! ```
//!
//! Rendering recurses once per level of the tree, which the parser's depth limit bounds.

use std::fmt::Write;

use crate::syntax::ast::{
    BinOp, CompareOp, ComparePoint, DiceExpr, Expr, ExprKind, FaceItem, GroupExpr, Item, KeepWhich,
    Modifier, Pattern, PointValue, Script, Sides, Spanned,
};

/// The canonical rendering of a script on one line: its items, each ending with `;`, then its result.
pub fn script(script: &Script) -> String {
    let mut out = String::new();
    for item in &script.items {
        match &item.node {
            Item::Param { name, default } => {
                let _ = write!(out, "param {}", name.node);
                if let Some(default) = default {
                    out.push_str(" = ");
                    expr(&mut out, default);
                }
            }
            Item::Let { name, value } => {
                let _ = write!(out, "let {} = ", name.node);
                expr(&mut out, value);
            }
            Item::Fn { name, params, body } => {
                let params: Vec<&str> = params.iter().map(|p| p.node.as_str()).collect();
                let _ = write!(out, "fn {}({}) = ", name.node, params.join(", "));
                expr(&mut out, body);
            }
        }
        out.push_str("; ");
    }
    expr(&mut out, &script.body);
    out
}

/// The canonical rendering of one expression.
pub fn expression(e: &Expr) -> String {
    let mut out = String::new();
    expr(&mut out, e);
    out
}

/// Whether `e` renders as one unit that needs no parentheses around it as an operand.
fn atomic(e: &Expr) -> bool {
    match &e.node {
        ExprKind::Paren(inner) => atomic(inner),
        ExprKind::Number(n) => *n >= 0,
        ExprKind::Var(_)
        | ExprKind::Bool(_)
        | ExprKind::Text(_)
        | ExprKind::Call(..)
        | ExprKind::Tuple(_)
        | ExprKind::Pool(_)
        | ExprKind::Point(..)
        | ExprKind::Error => true,
        ExprKind::Field(inner, _) => atomic(inner),
        _ => false,
    }
}

/// `e` as an operand: in parentheses unless it is atomic.
fn operand(out: &mut String, e: &Expr) {
    if atomic(e) {
        expr(out, e);
    } else {
        out.push('(');
        expr(out, e);
        out.push(')');
    }
}

fn expr(out: &mut String, e: &Expr) {
    match &e.node {
        ExprKind::Number(n) => {
            let _ = write!(out, "{n}");
        }
        ExprKind::Dice(dice) => dice_term(out, dice),
        ExprKind::Group(group) => group_term(out, group),
        ExprKind::Neg(inner) => {
            out.push('-');
            operand(out, inner);
        }
        ExprKind::Binary(BinOp::Quotient, left, right) => {
            out.push_str("div(");
            expr(out, left);
            out.push_str(", ");
            expr(out, right);
            out.push(')');
        }
        ExprKind::Binary(op, left, right) => {
            operand(out, left);
            let _ = write!(out, " {} ", binary_symbol(*op));
            operand(out, right);
        }
        ExprKind::Compare(op, left, right) => {
            operand(out, left);
            let _ = write!(out, " {} ", compare_symbol(*op));
            operand(out, right);
        }
        ExprKind::Call(name, args) => {
            out.push_str(&name.node);
            out.push('(');
            list(out, args);
            out.push(')');
        }
        ExprKind::Label(inner, label) => {
            operand(out, inner);
            let _ = write!(out, "[{}]", label.node);
        }
        ExprKind::Paren(inner) => expr(out, inner),
        ExprKind::Error => out.push('?'),
        ExprKind::Var(name) => out.push_str(name),
        ExprKind::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        ExprKind::Text(text) => {
            let _ = write!(out, "\"{text}\"");
        }
        ExprKind::Tuple(items) => {
            out.push('(');
            list(out, items);
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        ExprKind::Field(inner, index) => {
            operand(out, inner);
            let _ = write!(out, ".{}", index.node);
        }
        ExprKind::If(condition, then, otherwise) => {
            out.push_str("if ");
            operand(out, condition);
            out.push_str(" then ");
            operand(out, then);
            out.push_str(" else ");
            operand(out, otherwise);
        }
        ExprKind::Match(scrutinee, arms) => match_term(out, scrutinee, arms),
        ExprKind::And(left, right) | ExprKind::Or(left, right) => {
            let word = if matches!(e.node, ExprKind::And(..)) {
                "and"
            } else {
                "or"
            };
            operand(out, left);
            let _ = write!(out, " {word} ");
            operand(out, right);
        }
        ExprKind::Not(inner) => {
            out.push_str("not ");
            operand(out, inner);
        }
        ExprKind::LetIn(name, value, body) => {
            let _ = write!(out, "let {} = ", name.node);
            operand(out, value);
            out.push_str(" in ");
            operand(out, body);
        }
        ExprKind::Pool(pool) => pool_term(out, pool),
        ExprKind::Point(op, value) => {
            out.push_str(compare_symbol(*op));
            operand(out, value);
        }
    }
}

/// `match x { p => e, … }`, each arm's body as an operand.
fn match_term(out: &mut String, scrutinee: &Expr, arms: &[crate::syntax::ast::MatchArm]) {
    out.push_str("match ");
    operand(out, scrutinee);
    out.push_str(" { ");
    for (i, arm) in arms.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        pattern(out, &arm.pattern);
        out.push_str(" => ");
        operand(out, &arm.body);
    }
    out.push_str(" }");
}

/// `pool {…}` with each member as read: `x` between a repeat's count and roll, a symbol die's name.
fn pool_term(out: &mut String, pool: &crate::syntax::ast::PoolExpr) {
    use crate::syntax::ast::{PoolExpr, PoolMember};
    match pool {
        PoolExpr::Draw { count, deck } => {
            out.push_str("pool draw ");
            operand(out, count);
            out.push_str(" from ");
            // A deck is one die written out (the checker refuses anything else): no brackets.
            expr(out, deck);
        }
        PoolExpr::Dice(members) => {
            out.push_str("pool {");
            for (i, member) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match &member.node {
                    PoolMember::Roll(roll) => expr(out, roll),
                    PoolMember::Repeat { count, roll } => {
                        operand(out, count);
                        out.push_str(" x ");
                        operand(out, roll);
                    }
                    PoolMember::Symbol { count, name } => {
                        let _ = write!(out, "{count} {}", name.node);
                    }
                }
            }
            out.push('}');
        }
    }
}

fn list(out: &mut String, items: &[Expr]) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        expr(out, item);
    }
}

fn pattern(out: &mut String, p: &Spanned<Pattern>) {
    match &p.node {
        Pattern::Wildcard => out.push('_'),
        Pattern::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Pattern::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Pattern::Text(text) => {
            let _ = write!(out, "\"{text}\"");
        }
        Pattern::Range {
            lo,
            hi,
            hi_inclusive,
        } => {
            if let Some(lo) = lo {
                let _ = write!(out, "{lo}");
            }
            out.push_str(if *hi_inclusive { "..=" } else { ".." });
            if let Some(hi) = hi {
                let _ = write!(out, "{hi}");
            }
        }
        Pattern::Tuple(items) => {
            out.push('(');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                pattern(out, item);
            }
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        Pattern::Or(items) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(" | ");
                }
                pattern(out, item);
            }
        }
    }
}

fn dice_term(out: &mut String, dice: &DiceExpr) {
    match dice.count.as_ref().map(|c| (&c.node, c)) {
        None => {}
        Some((ExprKind::Number(n), _)) if *n >= 0 => {
            let _ = write!(out, "{n}");
        }
        Some((_, count)) => {
            out.push('(');
            expr(out, count);
            out.push(')');
        }
    }
    out.push('d');
    let highest = match &dice.sides.node {
        Sides::Number(Expr {
            node: ExprKind::Number(n),
            ..
        }) if *n >= 0 => {
            let _ = write!(out, "{n}");
            Some(*n)
        }
        Sides::Number(sides) => {
            out.push('(');
            expr(out, sides);
            out.push(')');
            None
        }
        Sides::Percent => {
            out.push('%');
            Some(100)
        }
        Sides::Fudge => {
            out.push('F');
            Some(1)
        }
        Sides::Custom(faces) => {
            out.push('{');
            for (i, face) in faces.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match face.node {
                    FaceItem::Face(n) => {
                        let _ = write!(out, "{n}");
                    }
                    FaceItem::Range(lo, hi) => {
                        let _ = write!(out, "{lo}..{hi}");
                    }
                }
            }
            out.push('}');
            faces
                .iter()
                .map(|face| match face.node {
                    FaceItem::Face(n) | FaceItem::Range(_, n) => n,
                })
                .max()
        }
    };
    modifiers(out, &dice.modifiers, highest);
}

fn group_term(out: &mut String, group: &GroupExpr) {
    out.push('{');
    list(out, &group.members);
    out.push('}');
    modifiers(out, &group.modifiers, None);
}

/// The modifiers, glued as they must be. An explosion on the highest face is written `!` unless a
/// compare point follows it, which would read as the explosion's own point: then the face is written out.
fn modifiers(out: &mut String, modifiers: &[Spanned<Modifier>], highest: Option<i64>) {
    for (i, m) in modifiers.iter().enumerate() {
        // A word glued to a name would be part of it: the one place a modifier stands apart.
        if out.ends_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && i > 0
            && point_name(&modifiers[i - 1].node)
        {
            out.push(' ');
        }
        match &m.node {
            Modifier::Explode {
                compound,
                point,
                once,
                penetrate,
            } => explode(
                out,
                modifiers,
                i,
                *compound,
                point.as_ref(),
                (*once, *penetrate),
                highest,
            ),
            Modifier::RerollOnce(p) => {
                out.push_str("ro");
                compare_point(out, p);
            }
            Modifier::RerollRecursive(p) => {
                out.push_str("rr");
                compare_point(out, p);
            }
            Modifier::ClampMin(n) => {
                let _ = write!(out, "min{n}");
            }
            Modifier::ClampMax(n) => {
                let _ = write!(out, "max{n}");
            }
            Modifier::Keep { which, count } => {
                let word = match which {
                    KeepWhich::KeepHighest => "kh",
                    KeepWhich::KeepLowest => "kl",
                    KeepWhich::DropHighest => "dh",
                    KeepWhich::DropLowest => "dl",
                    KeepWhich::KeepMiddle => "km",
                };
                let _ = write!(out, "{word}{count}");
            }
            Modifier::KeepEnds {
                highest,
                lowest,
                drop,
            } => {
                let word = if *drop { "d" } else { "k" };
                let _ = write!(out, "{word}{{h{highest}, l{lowest}}}");
            }
            Modifier::Success(p) => compare_point(out, p),
            Modifier::Failure(p) => {
                out.push('f');
                compare_point(out, p);
            }
            Modifier::Critical { failure, point } => {
                out.push_str(if *failure { "cf" } else { "cs" });
                if let Some(p) = point {
                    compare_point(out, p);
                }
            }
            // Written with its explosion, above.
            Modifier::PlainAdded => {}
            Modifier::Sort { descending } => out.push_str(if *descending { "sd" } else { "sa" }),
            Modifier::Match { total, size, point } => {
                out.push_str(if *total { "mt" } else { "m" });
                if let Some(size) = size {
                    let _ = write!(out, "{size}");
                }
                if let Some(p) = point {
                    compare_point(out, p);
                }
            }
            Modifier::Unique { once, point } => {
                out.push_str(if *once { "uo" } else { "u" });
                if let Some(p) = point {
                    compare_point(out, p);
                }
            }
        }
    }
}

/// Whether the modifier ends with a compare point written with a name.
fn point_name(m: &Modifier) -> bool {
    m.point()
        .is_some_and(|p| matches!(p.value, PointValue::Name(_)))
}

fn compare_point(out: &mut String, point: &ComparePoint) {
    if let PointValue::Faces(faces) = &point.value {
        face_set(out, faces);
        return;
    }
    // `<>`, not `!=`: after `!` the latter would read as `!!` then `=`.
    let symbol = match point.op {
        CompareOp::Ne => "<>",
        op => compare_symbol(op),
    };
    out.push_str(symbol);
    match &point.value {
        PointValue::Int(n) => {
            let _ = write!(out, "{n}");
        }
        PointValue::Name(name) => out.push_str(&name.node),
        PointValue::Faces(faces) => face_set(out, faces),
    }
}

/// A set of faces in braces, runs of three or more written as ranges: `{1, 3..6}`.
fn face_set(out: &mut String, faces: &[i64]) {
    out.push('{');
    let mut i = 0;
    while i < faces.len() {
        let mut j = i;
        while j + 1 < faces.len() && faces[j].checked_add(1) == Some(faces[j + 1]) {
            j += 1;
        }
        if i > 0 {
            out.push_str(", ");
        }
        if j >= i + 2 {
            let _ = write!(out, "{}..{}", faces[i], faces[j]);
        } else {
            let run: Vec<String> = faces[i..=j].iter().map(i64::to_string).collect();
            out.push_str(&run.join(", "));
        }
        i = j + 1;
    }
    out.push('}');
}

fn compare_symbol(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Ge => ">=",
        CompareOp::Gt => ">",
        CompareOp::Le => "<=",
        CompareOp::Lt => "<",
        CompareOp::Eq => "=",
        CompareOp::Ne => "!=",
    }
}

fn binary_symbol(op: BinOp) -> &'static str {
    op.symbol()
}

/// `!`, `!!`, with `o`, `p` and `a` (the mark after it in `modifiers`) before its point; a bare `!`
/// followed by a success point is written with its face, or the point would be read as its own.
fn explode(
    out: &mut String,
    modifiers: &[Spanned<Modifier>],
    i: usize,
    compound: bool,
    point: Option<&ComparePoint>,
    (once, penetrate): (bool, bool),
    highest: Option<i64>,
) {
    out.push_str(if compound { "!!" } else { "!" });
    if once {
        out.push('o');
    }
    if penetrate {
        out.push('p');
    }
    // `!a`: the mark follows its explosion in the list, and is written before the point.
    let next = match modifiers.get(i + 1) {
        Some(m) if m.node == Modifier::PlainAdded => {
            out.push('a');
            i + 2
        }
        _ => i + 1,
    };
    match point {
        Some(p) => compare_point(out, p),
        None => {
            let point_follows = modifiers
                .get(next)
                .is_some_and(|next| matches!(next.node, Modifier::Success(_)));
            if let (true, Some(face)) = (point_follows, highest) {
                let _ = write!(out, "={face}");
            }
        }
    }
}

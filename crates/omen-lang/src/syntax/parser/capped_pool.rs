//! Foundry's capped rerolls and explosions on a term with other modifiers after them or a rolled
//! count (`3d6r1=1kh2`, `5d10x5>=8kh2`, `(1d4)d6r1=1`): the keep or the count applies to the dice
//! the capped step leaves, so the sum of dice terms that capped.rs writes for a plain term will not do.
//!
//! The dice the capped step leaves are of three kinds, each uniform over its faces and independent
//! given how many there are (see capped.rs and capped_recursive.rs for why): dice checked that did not
//! meet the point, dice that met it and keep their roll, and new dice (or dice left unchecked) over
//! every face. So the term reads as those three counts, a tuple rolled first, then a pool of that many
//! dice of each kind, and the modifiers as readings of the pool: `kh2` is `highest(p, 2)`, a success
//! point `count(p, >=8)`. A count among kept dice is a count of the pool too: of the highest `c`
//! dice, `min(c, count(p, >=t))` show `t` or more, and every point is a difference of such counts.

use super::capped_recursive::MAX_RECURSIVE_CAP;
use super::pieces::Cap;
use super::rescore::{listed_faces, meets};
use crate::span::Span;
use crate::syntax::ast::{
    BinOp, CompareOp, ComparePoint, DiceExpr, Expr, ExprKind, KeepWhich, Modifier, PointValue,
    PoolExpr, PoolMember, Sides, Spanned,
};

/// What the modifiers after the capped step read from the dice it leaves.
#[derive(Clone, Copy)]
enum Reading {
    /// The total of the kept dice (all of them without a keep).
    Total(Option<(KeepWhich, i64)>),
    /// Successes (minus failures) among the kept dice.
    Count {
        keep: Option<(KeepWhich, i64)>,
        success: (CompareOp, i64),
        failure: Option<(CompareOp, i64)>,
    },
}

/// Builds expressions at one place in the source, with names made from where the term starts.
pub(super) struct Build {
    pub at: Span,
    pub span: Span,
    pub stem: usize,
}

impl Build {
    pub(super) fn expr(&self, node: ExprKind) -> Expr {
        Expr::new(node, self.at)
    }
    pub(super) fn number(&self, n: i64) -> Expr {
        self.expr(ExprKind::Number(n))
    }
    pub(super) fn name(&self, what: &str) -> String {
        format!("{what}_{}", self.stem)
    }
    pub(super) fn var(&self, what: &str) -> Expr {
        self.expr(ExprKind::Var(self.name(what)))
    }
    pub(super) fn binary(&self, op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), self.span)
    }
    pub(super) fn call(&self, name: &str, args: Vec<Expr>) -> Expr {
        self.expr(ExprKind::Call(
            Spanned::new(name.to_string(), self.at),
            args,
        ))
    }
    pub(super) fn let_in(&self, name: String, value: Expr, body: Expr) -> Expr {
        Expr::new(
            ExprKind::LetIn(Spanned::new(name, self.at), Box::new(value), Box::new(body)),
            self.span,
        )
    }
    pub(super) fn field(&self, tuple: &str, index: usize) -> Expr {
        self.expr(ExprKind::Field(
            Box::new(self.var(tuple)),
            Spanned::new(index, self.at),
        ))
    }
    pub(super) fn dice(
        &self,
        count: Expr,
        sides: Spanned<Sides>,
        modifiers: Vec<Spanned<Modifier>>,
    ) -> Expr {
        Expr::new(
            ExprKind::Dice(Box::new(DiceExpr {
                count: Some(count),
                sides,
                modifiers,
            })),
            self.span,
        )
    }
    /// `count(p, op value)`.
    pub(super) fn count(&self, op: CompareOp, value: i64) -> Expr {
        let point = self.expr(ExprKind::Point(op, Box::new(self.number(value))));
        self.call("count", vec![self.var("pool"), point])
    }
}

/// The faces of the term's die split by the point, each kind written as a die.
pub(super) struct Kinds {
    pub all: Spanned<Sides>,
    pub meeting: Spanned<Sides>,
    pub other: Option<Spanned<Sides>>,
}

/// The reading of a capped step on a term with modifiers after it or a rolled count, or why it is
/// not computed. `kinds` is `None` when no face meets the point (the step does nothing).
pub(super) fn pooled_reading(
    dice: &Expr,
    (cap, point, at, kind): (i64, &ComparePoint, Span, Cap),
    kinds: Option<Kinds>,
) -> Result<Expr, String> {
    let ExprKind::Dice(term) = &dice.node else {
        return Err("a capped reroll applies to dice".into());
    };
    if term.modifiers.iter().any(|m| m.span.start < at.start) {
        return Err(
            "a modifier written before a capped reroll or explosion applies first, to \
                    fewer dice, which is not computed yet"
                .into(),
        );
    }
    let reading = reading_of(&term.modifiers)?;
    if kind.recursive && !(0..=MAX_RECURSIVE_CAP).contains(&cap) {
        return Err(format!(
            "a capped recursive step is computed with a cap of 0 to {MAX_RECURSIVE_CAP}"
        ));
    }
    let Some(kinds) = kinds.filter(|_| cap > 0) else {
        // Nothing is rerolled or exploded: the modifiers read the dice as rolled.
        return Ok(dice.clone());
    };
    let build = Build {
        at,
        span: dice.span,
        stem: dice.span.start,
    };
    let (count, bound) = match term.count.as_ref() {
        None => (build.number(1), None),
        Some(Expr {
            node: ExprKind::Number(n),
            ..
        }) => (build.number(*n), None),
        Some(rolled) => (build.var("count"), Some(rolled.clone())),
    };
    let counted = |checked: Expr| {
        build.dice(
            checked,
            kinds.all.clone(),
            vec![Spanned::new(Modifier::Success(point.clone()), at)],
        )
    };
    let tuple = if kind.recursive {
        generations(&build, &count, cap, kind.added, &counted)
    } else {
        once(&build, &count, cap, kind.added, counted(count.clone()))
    };
    let mut members = Vec::new();
    let mut add = |index: usize, sides: Spanned<Sides>| {
        let member = build.dice(build.field("kinds", index), sides, Vec::new());
        members.push(Spanned::new(PoolMember::Roll(member), at));
    };
    if let Some(other) = kinds.other {
        add(0, other);
    }
    add(1, kinds.meeting);
    add(2, kinds.all);
    let pool = build.expr(ExprKind::Pool(Box::new(PoolExpr::Dice(members))));
    let body = read(&build, reading)?;
    let body = build.let_in(build.name("pool"), pool, body);
    let mut read = build.let_in(build.name("kinds"), tuple, body);
    if let Some(rolled) = bound {
        read = build.let_in(build.name("count"), rolled, read);
    }
    Ok(read)
}

/// The faces of `sides` split by `point` (`None` when none meets it), or why they cannot be listed.
pub(super) fn kinds_of(
    sides: &Spanned<Sides>,
    point: &ComparePoint,
    listed: impl Fn(&[i64]) -> Spanned<Sides>,
) -> Result<Option<Kinds>, String> {
    let PointValue::Int(target) = point.value else {
        return Err("a capped reroll's point must be a number".into());
    };
    let faces = listed_faces(&sides.node, "a capped reroll")?;
    let (meeting, other): (Vec<i64>, Vec<i64>) =
        faces.iter().partition(|&&f| meets(point.op, target, f));
    Ok((!meeting.is_empty()).then(|| Kinds {
        all: sides.clone(),
        meeting: listed(&meeting),
        other: (!other.is_empty()).then(|| listed(&other)),
    }))
}

/// The modifiers after the capped step as a reading: at most one keep or drop, then a success point
/// and a failure point, in that order.
fn reading_of(modifiers: &[Spanned<Modifier>]) -> Result<Reading, String> {
    let whole = |point: &ComparePoint| match point.value {
        PointValue::Int(t) if point.op != CompareOp::Ne => Ok((point.op, t)),
        _ => Err("a point after a capped reroll must be a number compared with =, <, >, <= or >="),
    };
    let mut rest = modifiers;
    let mut keep = None;
    if let Some((first, tail)) = rest.split_first()
        && let Modifier::Keep { which, count } = first.node
    {
        if which == KeepWhich::KeepMiddle {
            return Err("keeping the middle dice after a capped reroll is not computed yet".into());
        }
        keep = Some((which, count));
        rest = tail;
    }
    match rest {
        [] => Ok(Reading::Total(keep)),
        [s] | [s, _] if matches!(s.node, Modifier::Success(_)) => {
            let Modifier::Success(success) = &s.node else {
                unreachable!("matched above")
            };
            let failure = match rest.get(1).map(|m| &m.node) {
                None => None,
                Some(Modifier::Failure(failure)) => Some(whole(failure)?),
                Some(_) => return Err(OTHER_MODIFIERS.into()),
            };
            Ok(Reading::Count {
                keep,
                success: whole(success)?,
                failure,
            })
        }
        _ => Err(OTHER_MODIFIERS.into()),
    }
}

const OTHER_MODIFIERS: &str = "a capped reroll or explosion is computed followed by one keep or drop \
                               and a success and failure point; other modifiers with it are not \
                               computed yet";

/// The counts of the three kinds after a capped step that checks the dice once: `k` of the `n` dice
/// meet the point and the first `min(k, cap)` of them are rerolled (or add a die).
fn once(build: &Build, count: &Expr, cap: i64, added: bool, counted: Expr) -> Expr {
    let k = || build.var("meeting");
    let used = || build.call("min", vec![k(), build.number(cap)]);
    let kept = if added {
        k()
    } else {
        build.binary(BinOp::Sub, k(), used())
    };
    let tuple = build.expr(ExprKind::Tuple(vec![
        build.binary(BinOp::Sub, count.clone(), k()),
        kept,
        used(),
    ]));
    build.let_in(build.name("meeting"), counted, tuple)
}

/// The counts of the three kinds after a capped recursive step, checked generation by generation as
/// capped_recursive.rs does. Of generation `l`, `k_l` dice meet the point with `left_l` of the cap
/// left: when `k_l >= left_l` the first `left_l` of them go on, their new dice unchecked, and the walk
/// ends; otherwise all go on and their new dice are the next generation. The dice checked that did
/// not meet the point number `n - k_l` in all (each generation checks the previous one's `k`), the
/// dice kept showing a meeting face are every `k` of an explosion (the last one's when rerolled,
/// beyond the cap), and the new dice left unchecked are `left_l` at the end.
fn generations(
    build: &Build,
    count: &Expr,
    cap: i64,
    explode: bool,
    counted: &dyn Fn(Expr) -> Expr,
) -> Expr {
    let name = |level: i64| build.name(&format!("generation{level}"));
    let var = |level: i64| build.expr(ExprKind::Var(name(level)));
    let spent = |upto: i64| {
        (2..=upto).fold(var(1), |sum, level| {
            build.binary(BinOp::Add, sum, var(level))
        })
    };
    let left = |level: i64| {
        if level == 1 {
            build.number(cap)
        } else {
            build.binary(BinOp::Sub, build.number(cap), spent(level - 1))
        }
    };
    let compare =
        |op, a: Expr, b: Expr| build.expr(ExprKind::Compare(op, Box::new(a), Box::new(b)));
    let tuple = |items: Vec<Expr>| build.expr(ExprKind::Tuple(items));
    let leaf = |level: i64, last: bool| {
        let unchecked = if last { left(level) } else { build.number(0) };
        let kept = match (explode, last) {
            (true, _) => spent(level),
            (false, true) => build.binary(BinOp::Sub, var(level), left(level)),
            (false, false) => build.number(0),
        };
        tuple(vec![
            build.binary(BinOp::Sub, count.clone(), var(level)),
            kept,
            unchecked,
        ])
    };
    // The generation past the cap is never reached: each one that goes on spends some of it.
    let mut inner = tuple(vec![build.number(0), build.number(0), build.number(0)]);
    for level in (1..=cap).rev() {
        let checked = if level == 1 {
            count.clone()
        } else {
            var(level - 1)
        };
        let next = build.expr(ExprKind::If(
            Box::new(compare(CompareOp::Eq, var(level), build.number(0))),
            Box::new(leaf(level, false)),
            Box::new(inner),
        ));
        let body = build.expr(ExprKind::If(
            Box::new(compare(CompareOp::Ge, var(level), left(level))),
            Box::new(leaf(level, true)),
            Box::new(next),
        ));
        inner = build.let_in(name(level), counted(checked), body);
    }
    inner
}

/// The reading's value from the pool bound as `pool` and the counts bound as `kinds`.
fn read(build: &Build, reading: Reading) -> Result<Expr, String> {
    let pool = || build.var("pool");
    let sum = || build.call("sum", vec![pool()]);
    let end = |name: &str, c: i64| build.call(name, vec![pool(), build.number(c)]);
    Ok(match reading {
        Reading::Total(None) => sum(),
        Reading::Total(Some((which, c))) => match which {
            KeepWhich::KeepHighest => end("highest", c),
            KeepWhich::KeepLowest => end("lowest", c),
            KeepWhich::DropHighest => build.binary(BinOp::Sub, sum(), end("highest", c)),
            KeepWhich::DropLowest => build.binary(BinOp::Sub, sum(), end("lowest", c)),
            KeepWhich::KeepMiddle => return Err(OTHER_MODIFIERS.into()),
        },
        Reading::Count {
            keep,
            success,
            failure,
        } => {
            // The pool holds every die of the three kinds.
            let size = build.binary(
                BinOp::Add,
                build.binary(BinOp::Add, build.field("kinds", 0), build.field("kinds", 1)),
                build.field("kinds", 2),
            );
            let successes = kept_count(build, keep, success, &size)?;
            match failure {
                None => successes,
                Some(failure) => build.binary(
                    BinOp::Sub,
                    successes,
                    kept_count(build, keep, failure, &size)?,
                ),
            }
        }
    })
}

/// How many kept dice meet `op t`. Of the highest `c` dice, `min(c, count(p, >=t))` show `t` or more
/// (of the lowest `c`, `min(c, count(p, <=t))` show `t` or less), and each point is a difference of
/// two such counts, or of one from all the dice kept.
pub(super) fn kept_count(
    build: &Build,
    keep: Option<(KeepWhich, i64)>,
    (op, t): (CompareOp, i64),
    size: &Expr,
) -> Result<Expr, String> {
    let overflow = || "a point too large to compare with".to_string();
    let (up, down) = (
        t.checked_add(1).ok_or_else(overflow)?,
        t.checked_sub(1).ok_or_else(overflow)?,
    );
    let Some((which, c)) = keep else {
        return Ok(build.count(op, t));
    };
    let from_top = matches!(which, KeepWhich::KeepHighest | KeepWhich::DropHighest);
    let at_most_c = |e: Expr| build.call("min", vec![build.number(c), e]);
    let all = || at_most_c(size.clone());
    let sub = |a, b| build.binary(BinOp::Sub, a, b);
    // Of the `c` dice at the kept end, how many meet the point.
    let end = if from_top {
        let ge = |v: i64| at_most_c(build.count(CompareOp::Ge, v));
        match op {
            CompareOp::Ge => ge(t),
            CompareOp::Gt => ge(up),
            CompareOp::Eq => sub(ge(t), ge(up)),
            CompareOp::Le => sub(all(), ge(up)),
            CompareOp::Lt => sub(all(), ge(t)),
            CompareOp::Ne => return Err(OTHER_MODIFIERS.into()),
        }
    } else {
        let le = |v: i64| at_most_c(build.count(CompareOp::Le, v));
        match op {
            CompareOp::Le => le(t),
            CompareOp::Lt => le(down),
            CompareOp::Eq => sub(le(t), le(down)),
            CompareOp::Ge => sub(all(), le(down)),
            CompareOp::Gt => sub(all(), le(t)),
            CompareOp::Ne => return Err(OTHER_MODIFIERS.into()),
        }
    };
    Ok(match which {
        KeepWhich::KeepHighest | KeepWhich::KeepLowest => end,
        _ => sub(build.count(op, t), end),
    })
}

//! From syntax to a checked program: types, modifier order, shorthands, limits known up front.

use omen_core::{Compare, Condition, CoreError, Die, DieStep, Keep, Limits, step_prefixes};

use crate::diagnostic::Diagnostic;
use crate::program::{DiceNode, GroupNode, Node, NodeKind, Program, SidesNode, Type};
use crate::span::Span;
use crate::syntax::ast::{
    self, BinOp, CompareOp, ComparePoint, Expr, ExprKind, FaceItem, KeepWhich, Modifier, Sides,
    Spanned,
};

/// The result of checking: the program and any warnings, or every error found.
pub struct Checked {
    pub program: Program,
    pub warnings: Vec<Diagnostic>,
}

/// Checks a parsed expression against the limits.
///
/// # Errors
/// Every problem found, each with its span (the checker keeps going after an error).
pub fn check(source: &str, expr: &Expr, limits: &Limits) -> Result<Checked, Vec<Diagnostic>> {
    let mut checker = Checker {
        source,
        limits,
        errors: Vec::new(),
        warnings: Vec::new(),
    };
    let root = checker.expr(expr);
    if !checker.errors.is_empty() {
        return Err(checker.errors);
    }
    Ok(Checked {
        program: Program {
            source: source.to_string(),
            root: root.expect("no errors means a node"),
        },
        warnings: checker.warnings,
    })
}

/// A core error at a span, as a diagnostic with a hint.
pub fn core_diagnostic(error: &CoreError, span: Span) -> Diagnostic {
    let (kind, help): (&'static str, Option<&str>) = match error {
        CoreError::NoSides(_) => (
            "no-sides",
            Some("use a positive number of sides, e.g. `d6`"),
        ),
        CoreError::NoFaces => ("no-faces", Some("list at least one face, e.g. `d{1,2,3}`")),
        CoreError::TooManySides { .. } => ("too-many-sides", None),
        CoreError::TooManyDice { .. } => ("too-many-dice", None),
        CoreError::NegativeDice(_) => (
            "negative-dice",
            Some("the number of dice must be 0 or more; wrap it, e.g. `(max(x, 0))d6`"),
        ),
        CoreError::ExplodeDepth { .. } => ("explode-depth", None),
        CoreError::RerollEverything => (
            "reroll-everything",
            Some("the condition must leave at least one face, e.g. `rr<=2` on a d6"),
        ),
        CoreError::TooManyOutcomes { .. } => ("too-many-outcomes", None),
        CoreError::WorkBudget { .. } => ("work-budget", None),
        CoreError::TooManyStates { .. } => ("too-many-states", None),
        CoreError::DivisionByZero => (
            "division-by-zero",
            Some("the divisor can be 0; guard it, e.g. `x / max(y, 1)`"),
        ),
        CoreError::Overflow => ("overflow", None),
        CoreError::RerollLimit(_) => ("reroll-limit", None),
        CoreError::ScriptExhausted(_) => ("dice-exhausted", Some("give more dice values")),
        CoreError::ScriptFace { .. } => ("bad-die-value", None),
        _ => ("error", None),
    };
    let d = Diagnostic::error(kind, span, error.to_string());
    match help {
        Some(h) => d.with_help(h),
        None => d,
    }
}

struct Checker<'a> {
    source: &'a str,
    limits: &'a Limits,
    errors: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
}

fn compare(op: CompareOp) -> Compare {
    match op {
        CompareOp::Ge => Compare::Ge,
        CompareOp::Gt => Compare::Gt,
        CompareOp::Le => Compare::Le,
        CompareOp::Lt => Compare::Lt,
        CompareOp::Eq => Compare::Eq,
    }
}

fn condition(point: ComparePoint) -> Condition {
    Condition::new(compare(point.op), point.value)
}

fn op_word(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "`+`",
        BinOp::Sub => "`-`",
        BinOp::Mul => "`*`",
        BinOp::Div => "`/`",
    }
}

impl Checker<'_> {
    fn error(&mut self, d: Diagnostic) -> Option<Node> {
        self.errors.push(d);
        None
    }

    fn expect_int(&mut self, node: &Node, what: &str) -> bool {
        if node.ty == Type::Int {
            return true;
        }
        self.errors.push(
            Diagnostic::error(
                "type-mismatch",
                node.span,
                format!("{what} must be a number, but this is true/false"),
            )
            .with_help("a comparison gives true/false; compare at the end of the expression"),
        );
        false
    }

    fn expr(&mut self, e: &Expr) -> Option<Node> {
        let span = e.span;
        match &e.node {
            ExprKind::Number(n) => Some(Node {
                span,
                ty: Type::Int,
                kind: NodeKind::Const(*n),
            }),
            ExprKind::Paren(inner) => {
                let mut node = self.expr(inner)?;
                node.span = span;
                Some(node)
            }
            ExprKind::Error => None,
            ExprKind::Neg(inner) => {
                let node = self.expr(inner)?;
                if !self.expect_int(&node, "the operand of `-`") {
                    return None;
                }
                if let NodeKind::Const(n) = node.kind {
                    return match n.checked_neg() {
                        Some(v) => Some(Node {
                            span,
                            ty: Type::Int,
                            kind: NodeKind::Const(v),
                        }),
                        None => self.error(core_diagnostic(&CoreError::Overflow, span)),
                    };
                }
                Some(Node {
                    span,
                    ty: Type::Int,
                    kind: NodeKind::Neg(Box::new(node)),
                })
            }
            ExprKind::Binary(op, l, r) => {
                let l = self.expr(l);
                let r = self.expr(r);
                let (l, r) = (l?, r?);
                if l.ty != Type::Int || r.ty != Type::Int {
                    return self.error(
                        Diagnostic::error(
                            "type-mismatch",
                            span,
                            format!(
                                "{} needs two numbers, but the left side is {} and the right side is {}",
                                op_word(*op),
                                l.ty.describe(),
                                r.ty.describe()
                            ),
                        )
                        .with_help("a comparison gives true/false; compare at the end of the expression"),
                    );
                }
                if *op == BinOp::Div && matches!(r.kind, NodeKind::Const(0)) {
                    return self.error(core_diagnostic(&CoreError::DivisionByZero, r.span));
                }
                Some(Node {
                    span,
                    ty: Type::Int,
                    kind: NodeKind::Binary(*op, Box::new(l), Box::new(r)),
                })
            }
            ExprKind::Compare(op, l, r) => {
                let l = self.expr(l);
                let r = self.expr(r);
                let (l, r) = (l?, r?);
                if l.ty != r.ty || (l.ty == Type::Bool && *op != CompareOp::Eq) {
                    return self.error(Diagnostic::error(
                        "type-mismatch",
                        span,
                        format!(
                            "cannot compare {} with {}",
                            l.ty.describe(),
                            r.ty.describe()
                        ),
                    ));
                }
                Some(Node {
                    span,
                    ty: Type::Bool,
                    kind: NodeKind::Compare(compare(*op), Box::new(l), Box::new(r)),
                })
            }
            ExprKind::Call(name, args) => {
                let nodes: Vec<Option<Node>> = args.iter().map(|a| self.expr(a)).collect();
                let nodes: Vec<Node> = nodes.into_iter().collect::<Option<_>>()?;
                for n in &nodes {
                    if !self.expect_int(n, &format!("an argument of `{}`", name.node)) {
                        return None;
                    }
                }
                let kind = match (name.node.as_str(), nodes.len()) {
                    ("abs", 1) => NodeKind::Abs(Box::new(nodes.into_iter().next().expect("one"))),
                    ("min", n) if n >= 1 => NodeKind::Min(nodes),
                    ("max", n) if n >= 1 => NodeKind::Max(nodes),
                    (f, n) => {
                        let want = if f == "abs" {
                            "exactly one argument"
                        } else {
                            "at least one argument"
                        };
                        return self.error(Diagnostic::error(
                            "wrong-arguments",
                            span,
                            format!("`{f}` takes {want}, got {n}"),
                        ));
                    }
                };
                Some(Node {
                    span,
                    ty: Type::Int,
                    kind,
                })
            }
            ExprKind::Label(inner, label) => {
                let node = self.expr(inner)?;
                Some(Node {
                    span,
                    ty: node.ty,
                    kind: NodeKind::Label(label.node.clone(), Box::new(node)),
                })
            }
            ExprKind::Dice(dice) => self.dice(span, dice),
            ExprKind::Group(group) => self.group(span, group),
        }
    }

    fn dice(&mut self, span: Span, dice: &ast::DiceExpr) -> Option<Node> {
        let count = match &dice.count {
            None => Some(Node {
                span: Span::new(span.start, span.start),
                ty: Type::Int,
                kind: NodeKind::Const(1),
            }),
            Some(c) => self
                .expr(c)
                .filter(|n| self.expect_int(n, "the number of dice")),
        };
        if let Some(Node {
            kind: NodeKind::Const(n),
            span,
            ..
        }) = &count
            && let Err(e) = self.limits.check_dice(*n)
        {
            self.errors.push(core_diagnostic(&e, *span));
        }
        let sides = self.sides(&dice.sides);
        let mods = self.modifiers(&dice.modifiers, true);
        let (count, sides, mods) = (count?, sides?, mods?);
        let notation = self.source[span.start..span.end].to_string();
        let node = DiceNode {
            notation,
            count,
            sides,
            before: mods.before,
            explosion: mods.explosion,
            after: mods.after,
            keep: mods.keep,
            success: mods.success,
            failure: mods.failure,
        };
        if let SidesNode::Fixed(die) = &node.sides {
            self.check_die(span, die, &node, &dice.modifiers)?;
        }
        Some(Node {
            span,
            ty: Type::Int,
            kind: NodeKind::Dice(Box::new(node)),
        })
    }

    /// Checks what can be known about a fixed die before rolling: rerolls that leave no face, and
    /// compare points that no face can meet.
    fn check_die(
        &mut self,
        span: Span,
        die: &Die,
        node: &DiceNode,
        written: &[Spanned<Modifier>],
    ) -> Option<()> {
        let steps: Vec<DieStep> = node.before.iter().chain(&node.after).copied().collect();
        let dist = match step_prefixes(die.distribution(), &steps) {
            Ok(mut prefixes) => prefixes.pop().expect("at least the die"),
            Err(e) => {
                let at = written
                    .iter()
                    .find(|m| matches!(m.node, Modifier::RerollRecursive(_)))
                    .map_or(span, |m| m.span);
                self.error(core_diagnostic(&e, at));
                return None;
            }
        };
        if node.explosion.is_some() {
            if let Err(e) = self.limits.check_explode_depth() {
                self.error(core_diagnostic(&e, span));
                return None;
            }
            if let Some((_, Some(c))) = node.explosion
                && dist.outcomes().all(|&x| c.holds(x))
            {
                let at = written
                    .iter()
                    .find(|m| matches!(m.node, Modifier::Explode { .. }))
                    .map_or(span, |m| m.span);
                self.warnings.push(
                    Diagnostic::warning(
                        "always-explodes",
                        at,
                        format!(
                            "every face meets `{c}`, so each die explodes until the depth limit"
                        ),
                    )
                    .with_help("explode on fewer faces, e.g. `!` for the highest face only"),
                );
            }
        }
        // Compounded dice reach values beyond the faces; only warn when no compounding is involved.
        let compounds = matches!(node.explosion, Some((true, _)));
        if let Some(c) = node.success
            && !compounds
            && !dist.outcomes().any(|&x| c.holds(x))
        {
            let at = written
                .iter()
                .find(|m| matches!(m.node, Modifier::Success(_)))
                .map_or(span, |m| m.span);
            let dice_text = &self.source[span.start..at.start];
            let point = &self.source[at.start..at.end];
            self.warnings.push(
                Diagnostic::warning(
                    "unreachable-success",
                    at,
                    format!("no face of {die} can meet `{c}`, so this counts 0 dice on every roll"),
                )
                .with_help(format!(
                    "to compare the total instead, write `({dice_text}){point}`"
                )),
            );
        }
        Some(())
    }

    fn sides(&mut self, sides: &Spanned<Sides>) -> Option<SidesNode> {
        let span = sides.span;
        match &sides.node {
            Sides::Percent => Some(SidesNode::Fixed(Die::Standard(100))),
            Sides::Fudge => Some(SidesNode::Fixed(Die::Fudge)),
            Sides::Number(e) => {
                let node = self.expr(e)?;
                if !self.expect_int(&node, "the number of sides") {
                    return None;
                }
                if let NodeKind::Const(n) = node.kind {
                    return match Die::standard(n, self.limits) {
                        Ok(d) => Some(SidesNode::Fixed(d)),
                        Err(err) => {
                            self.errors.push(core_diagnostic(&err, node.span));
                            None
                        }
                    };
                }
                Some(SidesNode::Random(node))
            }
            Sides::Custom(items) => {
                let mut faces = Vec::new();
                for item in items {
                    match item.node {
                        FaceItem::Face(f) => faces.push(f),
                        FaceItem::Range(lo, hi) => {
                            let n = (hi as i128 - lo as i128 + 1).max(0) as u128;
                            if faces.len() as u128 + n > self.limits.max_sides as u128 {
                                let e = CoreError::TooManySides {
                                    sides: i64::try_from(faces.len() as u128 + n)
                                        .unwrap_or(i64::MAX),
                                    limit: self.limits.max_sides,
                                };
                                self.error(core_diagnostic(&e, item.span));
                                return None;
                            }
                            faces.extend(lo..=hi);
                        }
                    }
                }
                match Die::custom(faces, self.limits) {
                    Ok(d) => Some(SidesNode::Fixed(d)),
                    Err(err) => {
                        self.error(core_diagnostic(&err, span));
                        None
                    }
                }
            }
        }
    }

    fn group(&mut self, span: Span, group: &ast::GroupExpr) -> Option<Node> {
        let members: Vec<Option<Node>> = group.members.iter().map(|m| self.expr(m)).collect();
        let mods = self.modifiers(&group.modifiers, false);
        let members: Vec<Node> = members.into_iter().collect::<Option<_>>()?;
        for m in &members {
            if !self.expect_int(m, "a group member") {
                return None;
            }
        }
        let mods = mods?;
        Some(Node {
            span,
            ty: Type::Int,
            kind: NodeKind::Group(Box::new(GroupNode {
                members,
                keep: mods.keep,
                success: mods.success,
                failure: mods.failure,
            })),
        })
    }

    fn modifiers(&mut self, mods: &[Spanned<Modifier>], on_dice: bool) -> Option<Modifiers> {
        let mut out = Modifiers {
            before: Vec::new(),
            explosion: None,
            after: Vec::new(),
            keep: Keep::All,
            success: None,
            failure: None,
        };
        let errors_before = self.errors.len();
        let mut keep_span: Option<Span> = None;
        let mut success_span: Option<Span> = None;
        let mut failure_span: Option<Span> = None;
        let mut explode_span: Option<Span> = None;
        for m in mods {
            let per_die = match m.node {
                Modifier::Explode { compound, point } => {
                    if let Some(first) = explode_span {
                        self.errors.push(
                            Diagnostic::error(
                                "duplicate-modifier",
                                m.span,
                                "a dice term can explode only once",
                            )
                            .with_help(format!(
                                "combine the conditions into one, or remove the explosion at {}..{}",
                                first.start, first.end
                            )),
                        );
                    }
                    explode_span = Some(m.span);
                    out.explosion = Some((compound, point.map(condition)));
                    None
                }
                Modifier::RerollOnce(p) => Some(DieStep::RerollOnce(condition(p))),
                Modifier::RerollRecursive(p) => Some(DieStep::RerollUntil(condition(p))),
                Modifier::ClampMin(v) => Some(DieStep::ClampMin(v)),
                Modifier::ClampMax(v) => Some(DieStep::ClampMax(v)),
                Modifier::Keep { which, count } => {
                    if keep_span.is_some() {
                        self.errors.push(
                            Diagnostic::error(
                                "duplicate-modifier",
                                m.span,
                                "only one keep or drop is allowed per dice term",
                            )
                            .with_help("keep a nested term instead, e.g. `{4d6dl1}kh1`"),
                        );
                    }
                    keep_span = Some(m.span);
                    let n = usize::try_from(count).unwrap_or(0);
                    out.keep = match which {
                        KeepWhich::KeepHighest => Keep::Highest(n),
                        KeepWhich::KeepLowest => Keep::Lowest(n),
                        KeepWhich::DropHighest => Keep::DropHighest(n),
                        KeepWhich::DropLowest => Keep::DropLowest(n),
                    };
                    None
                }
                Modifier::Success(p) => {
                    if success_span.is_some() {
                        self.errors.push(Diagnostic::error(
                            "duplicate-modifier",
                            m.span,
                            "only one success point is allowed per term",
                        ));
                    }
                    success_span = Some(m.span);
                    out.success = Some(condition(p));
                    None
                }
                Modifier::Failure(p) => {
                    if failure_span.is_some() {
                        self.errors.push(Diagnostic::error(
                            "duplicate-modifier",
                            m.span,
                            "only one failure point is allowed per term",
                        ));
                    }
                    failure_span = Some(m.span);
                    out.failure = Some(condition(p));
                    None
                }
            };
            if let Some(step) = per_die {
                if !on_dice {
                    self.errors.push(
                        Diagnostic::error(
                            "bad-group-modifier",
                            m.span,
                            "rerolls and clamps apply to dice, not to groups",
                        )
                        .with_help(
                            "put the modifier on the dice inside the group, e.g. `{4d6ro1, 2d8}`",
                        ),
                    );
                } else if explode_span.is_some() {
                    out.after.push(step);
                } else {
                    out.before.push(step);
                }
            }
        }
        if let Some(at) = explode_span
            && !on_dice
        {
            self.errors.push(
                Diagnostic::error(
                    "bad-group-modifier",
                    at,
                    "groups cannot explode",
                )
                .with_help("explode the dice inside the group, e.g. `{2d6!, 1d8}`"),
            );
        }
        if let (Some(f), None) = (failure_span, success_span) {
            self.errors.push(
                Diagnostic::error(
                    "failure-without-success",
                    f,
                    "a failure point needs a success point before it",
                )
                .with_help("count successes first, e.g. `10d12>=8f<=1`"),
            );
        }
        (self.errors.len() == errors_before).then_some(out)
    }
}

struct Modifiers {
    before: Vec<DieStep>,
    explosion: Option<(bool, Option<Condition>)>,
    after: Vec<DieStep>,
    keep: Keep,
    success: Option<Condition>,
    failure: Option<Condition>,
}

//! From syntax to a checked program: names, types, modifier order, shorthands, and the limits known
//! before any dice are rolled.

use omen_core::{
    Budget, Compare, Condition, CoreError, Die, DieStep, Keep, Limits, Matching, Unique,
    step_prefixes,
};

use crate::diagnostic::Diagnostic;
// Its home is the diagnostics module, below the interpreters that use it too; the path stays.
pub use crate::diagnostic::core_diagnostic;
use crate::program::{
    DiceNode, Function, GroupNode, Node, NodeKind, Pattern, PointTarget, ProcessQuery, Program,
    Rounding, SidesNode, Type,
};
use crate::span::Span;
use crate::syntax::ast::{
    self, BinOp, CompareOp, ComparePoint, Expr, ExprKind, FaceItem, Item, KeepWhich, Modifier,
    PointValue, Script, Sides, Spanned,
};
use crate::value::Value;

mod pool;

/// The result of checking: the program and any warnings.
pub struct Checked {
    pub program: Program,
    pub warnings: Vec<Diagnostic>,
    /// How the input was read: its canonical rendering (set by [`crate::compile`]).
    pub reading: String,
}

/// Builtin functions and how many arguments each takes (`None`: one or more).
const BUILTINS: &[(&str, Option<usize>)] = &[
    ("min", None),
    ("max", None),
    ("abs", Some(1)),
    ("floor", Some(1)),
    ("ceil", Some(1)),
    ("round", Some(1)),
    ("sign", Some(1)),
    ("pow", Some(2)),
    ("div", Some(2)),
    ("after", Some(3)),
    ("absorb", Some(2)),
    ("stationary", Some(2)),
];

/// Checks a parsed script against the limits, with the caller's parameter values.
///
/// # Errors
/// Every problem found, each with its span (the checker keeps going after an error).
pub fn check(
    source: &str,
    script: &Script,
    limits: &Limits,
    params: &[(String, Value)],
) -> Result<Checked, Vec<Diagnostic>> {
    let mut checker = Checker {
        source,
        limits,
        errors: Vec::new(),
        warnings: Vec::new(),
        scope: Vec::new(),
        next_slot: 0,
        functions: Vec::new(),
        checking_fn: None,
        budget: limits.budget(),
        labels: Vec::new(),
        pools: Vec::new(),
    };
    let mut bindings: Vec<(usize, String, Option<Node>)> = Vec::new();
    let mut taken: Vec<(String, Value)> = Vec::new();
    let mut declared_params: Vec<String> = Vec::new();
    for item in &script.items {
        match &item.node {
            Item::Param { name, default } => {
                declared_params.push(name.node.clone());
                let given = params.iter().find(|(n, _)| *n == name.node);
                let value = match (given, default) {
                    (Some((_, v)), _) => Some(Node {
                        span: name.span,
                        ty: Type::of(v),
                        kind: NodeKind::Const(v.clone()),
                    }),
                    (None, Some(e)) => checker.expr(e),
                    (None, None) => {
                        checker.errors.push(
                            Diagnostic::error(
                                "missing-parameter",
                                name.span,
                                format!("the parameter `{}` has no default and no value was given", name.node),
                            )
                            .with_help(format!(
                                "give it a value, e.g. `--param {}=3`, or a default: `param {} = 3;`",
                                name.node, name.node
                            )),
                        );
                        None
                    }
                };
                if let Some(Node {
                    kind: NodeKind::Const(v),
                    ..
                }) = &value
                {
                    taken.push((name.node.clone(), v.clone()));
                }
                let slot = checker.bind(&name.node);
                bindings.push((slot, name.node.clone(), value));
            }
            Item::Let { name, value } => {
                let node = checker.let_value(value);
                let slot = checker.bind(&name.node);
                checker.bind_pool(slot, &node);
                bindings.push((slot, name.node.clone(), node));
            }
            Item::Fn { name, params, body } => checker.function(name, params, body),
        }
    }
    for (name, _) in params {
        if !declared_params.contains(name) {
            checker.errors.push(
                Diagnostic::error(
                    "unknown-parameter",
                    Span::new(0, 0),
                    format!("the script has no parameter named `{name}`"),
                )
                .with_help(if declared_params.is_empty() {
                    "the script declares no parameters".to_string()
                } else {
                    format!("its parameters are: {}", declared_params.join(", "))
                }),
            );
        }
    }
    let body = checker.expr(&script.body);
    for (slot, _, value) in bindings.iter_mut().rev() {
        checker.finish_pool(*slot, value);
    }
    if !checker.errors.is_empty() {
        checker.errors.sort_by_key(|d| (d.span.start, d.span.end));
        return Err(checker.errors);
    }
    let mut root = body.expect("no errors means a node");
    for (slot, name, value) in bindings.into_iter().rev() {
        let value = value.expect("no errors means a node");
        root = Node {
            span: value.span.to(root.span),
            ty: root.ty,
            kind: NodeKind::Let {
                slot,
                name,
                value: Box::new(value),
                body: Box::new(root),
            },
        };
    }
    Ok(Checked {
        program: Program {
            source: source.to_string(),
            root,
            functions: checker.functions,
            params: taken,
            labels: crate::labels::written_order(checker.labels),
        },
        warnings: checker.warnings,
        reading: String::new(),
    })
}

struct Checker<'a> {
    source: &'a str,
    limits: &'a Limits,
    errors: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
    /// Visible names and their slots, innermost last.
    scope: Vec<(String, usize)>,
    next_slot: usize,
    functions: Vec<Function>,
    /// The function whose body is being checked: (name, arity), so it may call itself.
    checking_fn: Option<(String, usize)>,
    /// What the checker's own computations pay (a die's distribution after its rerolls, whose
    /// weights double in size with each reroll): one budget for the whole script.
    budget: Budget,
    /// Each label literal and where it is written, for [`Program::labels`].
    labels: Vec<(usize, Value)>,
    /// The pools bound in the scope being checked, innermost last, with the readings taken so far.
    pools: Vec<crate::pool::PoolBinding>,
}

fn compare(op: CompareOp) -> Compare {
    match op {
        CompareOp::Ge => Compare::Ge,
        CompareOp::Gt => Compare::Gt,
        CompareOp::Le => Compare::Le,
        CompareOp::Lt => Compare::Lt,
        CompareOp::Eq => Compare::Eq,
        CompareOp::Ne => Compare::Ne,
    }
}

/// A compare point written with a number; one written with a name gets a placeholder value here
/// and a `PointTarget` entry that fills it in when the program runs.
fn condition(point: &ComparePoint) -> Condition {
    match &point.value {
        PointValue::Int(v) => Condition::new(compare(point.op), *v),
        PointValue::Name(_) => Condition::new(compare(point.op), 0),
        // The parser keeps a set within 64 consecutive values, so every offset fits the mask.
        PointValue::Faces(faces) => {
            let low = faces.first().copied().unwrap_or(0);
            let mask = faces
                .iter()
                .filter_map(|f| u32::try_from(f.checked_sub(low)?).ok())
                .filter(|offset| *offset < 64)
                .fold(0u64, |mask, offset| mask | 1 << offset);
            Condition::new(Compare::Among(mask), low)
        }
    }
}

/// `second` applied to the dice `first` kept, as one keep, when that is one run of the sorted dice
/// whatever their number (`kh3dh1` skips the highest and keeps the next two); `None` otherwise
/// (`dl1kh2`, whose run depends on the number of dice, and anything after a keep-middle).
fn compose_keep(first: Keep, second: Keep) -> Option<Keep> {
    use Keep::{All, DropBoth, DropHighest, DropLowest, Highest, Lowest, Slice};
    let slice = |from_highest, skip, take| Slice {
        from_highest,
        skip,
        take,
    };
    Some(match (first, second) {
        (Highest(a), DropHighest(b)) => slice(true, b.min(a), a.saturating_sub(b)),
        (Highest(a), Lowest(b)) if b < a => slice(true, a - b, b),
        (Lowest(a), DropLowest(b)) => slice(false, b.min(a), a.saturating_sub(b)),
        (Lowest(a), Highest(b)) if b < a => slice(false, a - b, b),
        (DropLowest(a), DropHighest(b)) | (DropHighest(b), DropLowest(a)) => DropBoth {
            lowest: a,
            highest: b,
        },
        (All, k) | (k, All) => k,
        (Highest(a), Highest(b)) => Highest(a.min(b)),
        (Highest(a), Lowest(b)) if b >= a => Highest(a),
        (Highest(a), DropLowest(b)) => Highest(a.saturating_sub(b)),
        (Lowest(a), Lowest(b)) => Lowest(a.min(b)),
        (Lowest(a), Highest(b)) if b >= a => Lowest(a),
        (Lowest(a), DropHighest(b)) => Lowest(a.saturating_sub(b)),
        (DropLowest(a), DropLowest(b)) => DropLowest(a.saturating_add(b)),
        (DropHighest(a), DropHighest(b)) => DropHighest(a.saturating_add(b)),
        (k, DropLowest(0) | DropHighest(0)) => k,
        _ => return None,
    })
}

fn op_word(op: BinOp) -> String {
    format!("`{}`", op.symbol())
}

impl Checker<'_> {
    fn error(&mut self, d: Diagnostic) -> Option<Node> {
        self.errors.push(d);
        None
    }

    fn bind(&mut self, name: &str) -> usize {
        let slot = self.next_slot;
        self.next_slot += 1;
        self.scope.push((name.to_string(), slot));
        slot
    }

    fn lookup(&self, name: &str) -> Option<usize> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
    }

    fn function_index(&self, name: &str) -> Option<(usize, usize)> {
        if let Some((n, arity)) = &self.checking_fn
            && n == name
        {
            return Some((self.functions.len(), *arity));
        }
        self.functions
            .iter()
            .enumerate()
            .rev()
            .find(|(_, f)| f.name == name)
            .map(|(i, f)| (i, f.params.len()))
    }

    fn function(&mut self, name: &Spanned<String>, params: &[Spanned<String>], body: &Expr) {
        let globals = self.next_slot;
        let saved_scope = self.scope.len();
        for (i, p) in params.iter().enumerate() {
            if params[..i].iter().any(|q| q.node == p.node) {
                self.errors.push(Diagnostic::error(
                    "duplicate-parameter",
                    p.span,
                    format!("`{}` is already a parameter of `{}`", p.node, name.node),
                ));
            }
            self.bind(&p.node);
        }
        self.checking_fn = Some((name.node.clone(), params.len()));
        let node = self.expr(body);
        self.checking_fn = None;
        self.scope.truncate(saved_scope);
        self.next_slot = globals;
        if let Some(body) = node {
            self.functions.push(Function {
                name: name.node.clone(),
                span: name.span,
                params: params.iter().map(|p| p.node.clone()).collect(),
                globals,
                body,
            });
        } else {
            // Keep indices stable for later calls even when the body had errors.
            self.functions.push(Function {
                name: name.node.clone(),
                span: name.span,
                params: params.iter().map(|p| p.node.clone()).collect(),
                globals,
                body: Node {
                    span: name.span,
                    ty: Type::Any,
                    kind: NodeKind::Const(Value::Int(0)),
                },
            });
        }
    }

    fn expect_int(&mut self, node: &Node, what: &str) -> bool {
        if node.ty.may_be_int() {
            return true;
        }
        self.errors.push(
            Diagnostic::error(
                "type-mismatch",
                node.span,
                format!(
                    "{what} must be a number, but this is {}",
                    node.ty.describe()
                ),
            )
            .with_help(match node.ty {
                Type::Bool => "a comparison gives true/false; compare at the end of the expression",
                _ => "use a number here",
            }),
        );
        false
    }

    /// A node where true/false is needed. A dice term with a success point (`d6 = 6`, `3d6 >= 10`)
    /// reads as a comparison of its total there: counting dice cannot be what a condition means, and
    /// for one die the two readings agree.
    fn condition(&mut self, node: Node, what: &str) -> Option<Node> {
        let node = match node.kind {
            NodeKind::Dice(mut dice) if dice.success.is_some() && dice.failure.is_none() => {
                let c = dice.success.take().expect("checked: some");
                let span = node.span;
                if let Some(at) = dice.success_at {
                    dice.notation.truncate(at);
                    dice.notation.truncate(dice.notation.trim_end().len());
                }
                let named = dice
                    .points
                    .iter()
                    .position(|(t, _)| *t == PointTarget::Success)
                    .map(|i| dice.points.remove(i).1);
                self.warnings.retain(|w| {
                    !(w.kind == "unreachable-success"
                        && w.span.start >= span.start
                        && w.span.end <= span.end)
                });
                let point = named.unwrap_or(Node {
                    span,
                    ty: Type::Int,
                    kind: NodeKind::Const(Value::Int(c.value)),
                });
                let total = Node {
                    span,
                    ty: Type::Int,
                    kind: NodeKind::Dice(dice),
                };
                Node {
                    span,
                    ty: Type::Bool,
                    kind: NodeKind::Compare(c.op, Box::new(total), Box::new(point)),
                }
            }
            kind => Node { kind, ..node },
        };
        self.expect_bool(&node, what).then_some(node)
    }

    fn expect_bool(&mut self, node: &Node, what: &str) -> bool {
        if matches!(node.ty, Type::Bool | Type::Any) {
            return true;
        }
        self.errors.push(
            Diagnostic::error(
                "type-mismatch",
                node.span,
                format!(
                    "{what} must be true/false, but this is {}",
                    node.ty.describe()
                ),
            )
            .with_help("compare it with something, e.g. `x >= 10`"),
        );
        false
    }

    fn node(span: Span, ty: Type, kind: NodeKind) -> Option<Node> {
        Some(Node { span, ty, kind })
    }

    fn expr(&mut self, e: &Expr) -> Option<Node> {
        let span = e.span;
        match &e.node {
            ExprKind::Number(n) => Self::node(span, Type::Int, NodeKind::Const(Value::Int(*n))),
            ExprKind::Bool(b) => Self::node(span, Type::Bool, NodeKind::Const(Value::Bool(*b))),
            ExprKind::Text(t) => {
                self.labels.push((span.start, Value::text(t)));
                Self::node(span, Type::Text, NodeKind::Const(Value::text(t)))
            }
            ExprKind::Paren(inner) => {
                let mut node = self.expr(inner)?;
                node.span = span;
                Some(node)
            }
            ExprKind::Error => None,
            ExprKind::Var(name) => match self.lookup(name) {
                Some(slot) if self.pool_at(slot) => self.pool_used_as_value(span, name),
                Some(slot) => Self::node(span, Type::Any, NodeKind::Var(slot, name.clone())),
                None => {
                    let help = if self.function_index(name).is_some() {
                        format!("`{name}` is a function; call it, e.g. `{name}(…)`")
                    } else {
                        format!("declare it first, e.g. `let {name} = 3d6;` or `param {name} = 3;`")
                    };
                    self.error(
                        Diagnostic::error("unknown-name", span, format!("unknown name `{name}`"))
                            .with_help(help),
                    )
                }
            },
            ExprKind::Neg(inner) => {
                let node = self.expr(inner)?;
                if !self.expect_int(&node, "the operand of `-`") {
                    return None;
                }
                if let NodeKind::Const(Value::Int(n)) = node.kind {
                    return match n.checked_neg() {
                        Some(v) => Self::node(span, Type::Int, NodeKind::Const(Value::Int(v))),
                        None => self.error(core_diagnostic(&CoreError::Overflow, span)),
                    };
                }
                Self::node(span, Type::Int, NodeKind::Neg(Box::new(node)))
            }
            ExprKind::Binary(op, l, r) => {
                let l = self.expr(l);
                let r = self.expr(r);
                let (l, r) = (l?, r?);
                if !l.ty.may_be_int() || !r.ty.may_be_int() {
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
                        .with_help("arithmetic works on numbers only"),
                    );
                }
                if matches!(op, BinOp::Div | BinOp::Mod | BinOp::Quotient)
                    && matches!(r.kind, NodeKind::Const(Value::Int(0)))
                {
                    return self.error(core_diagnostic(&CoreError::DivisionByZero, r.span));
                }
                Self::node(
                    span,
                    Type::Int,
                    NodeKind::Binary(*op, Box::new(l), Box::new(r)),
                )
            }
            ExprKind::Compare(op, l, r) => {
                let l = self.expr(l);
                let r = self.expr(r);
                let (l, r) = (l?, r?);
                let known = l.ty != Type::Any && r.ty != Type::Any;
                let ordering = !matches!(op, CompareOp::Eq | CompareOp::Ne);
                if known && (l.ty != r.ty || (ordering && l.ty == Type::Bool)) {
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
                Self::node(
                    span,
                    Type::Bool,
                    NodeKind::Compare(compare(*op), Box::new(l), Box::new(r)),
                )
            }
            ExprKind::And(l, r) | ExprKind::Or(l, r) => {
                let is_and = matches!(e.node, ExprKind::And(..));
                let word = if is_and { "`and`" } else { "`or`" };
                let l = self.expr(l);
                let r = self.expr(r);
                let (l, r) = (l?, r?);
                let what = format!("each side of {word}");
                let (l, r) = (self.condition(l, &what), self.condition(r, &what));
                let (l, r) = (l?, r?);
                let kind = if is_and {
                    NodeKind::And(Box::new(l), Box::new(r))
                } else {
                    NodeKind::Or(Box::new(l), Box::new(r))
                };
                Self::node(span, Type::Bool, kind)
            }
            ExprKind::Not(inner) => {
                let node = self.expr(inner)?;
                let node = self.condition(node, "the operand of `not`")?;
                Self::node(span, Type::Bool, NodeKind::Not(Box::new(node)))
            }
            ExprKind::If(c, a, b) => {
                let c = self.expr(c);
                let a = self.expr(a);
                let b = self.expr(b);
                let (c, a, b) = (c?, a?, b?);
                let c = self.condition(c, "the condition of `if`")?;
                let ty = if a.ty == b.ty { a.ty } else { Type::Any };
                Self::node(
                    span,
                    ty,
                    NodeKind::If(Box::new(c), Box::new(a), Box::new(b)),
                )
            }
            ExprKind::Match(x, arms) => {
                let x = self.expr(x);
                let mut checked = Vec::with_capacity(arms.len());
                let mut ok = true;
                for arm in arms {
                    let p = self.pattern(&arm.pattern);
                    let b = self.expr(&arm.body);
                    match (p, b) {
                        (Some(p), Some(b)) => checked.push((p, b)),
                        _ => ok = false,
                    }
                }
                let x = x?;
                if !ok {
                    return None;
                }
                let first = checked[0].1.ty;
                let ty = if checked.iter().all(|(_, b)| b.ty == first) {
                    first
                } else {
                    Type::Any
                };
                Self::node(span, ty, NodeKind::Match(Box::new(x), checked))
            }
            ExprKind::LetIn(name, value, body) => {
                let mut value = self.let_value(value);
                let saved = (self.scope.len(), self.next_slot);
                let slot = self.bind(&name.node);
                self.bind_pool(slot, &value);
                let body = self.expr(body);
                self.finish_pool(slot, &mut value);
                self.scope.truncate(saved.0);
                self.next_slot = saved.1;
                let (value, body) = (value?, body?);
                Self::node(
                    span,
                    body.ty,
                    NodeKind::Let {
                        slot,
                        name: name.node.clone(),
                        value: Box::new(value),
                        body: Box::new(body),
                    },
                )
            }
            ExprKind::Tuple(items) => {
                let nodes: Vec<Option<Node>> = items.iter().map(|i| self.expr(i)).collect();
                let nodes: Vec<Node> = nodes.into_iter().collect::<Option<_>>()?;
                Self::node(span, Type::Tuple, NodeKind::Tuple(nodes))
            }
            ExprKind::Field(inner, index) => {
                let node = self.expr(inner)?;
                if !matches!(node.ty, Type::Tuple | Type::Any) {
                    return self.error(Diagnostic::error(
                        "type-mismatch",
                        index.span,
                        format!(
                            "`.{}` needs a tuple, but this is {}",
                            index.node,
                            node.ty.describe()
                        ),
                    ));
                }
                if let NodeKind::Tuple(items) = &node.kind
                    && index.node >= items.len()
                {
                    return self.error(
                        Diagnostic::error(
                            "no-such-field",
                            index.span,
                            format!(
                                "the tuple has {} members; `.{}` is past the end",
                                items.len(),
                                index.node
                            ),
                        )
                        .with_help("members count from 0"),
                    );
                }
                let ty = match &node.kind {
                    NodeKind::Tuple(items) => items[index.node].ty,
                    _ => Type::Any,
                };
                Self::node(span, ty, NodeKind::Field(Box::new(node), index.node))
            }
            ExprKind::Call(name, args) => self.call(span, name, args),
            ExprKind::Label(inner, label) => {
                let node = self.expr(inner)?;
                Self::node(
                    span,
                    node.ty,
                    NodeKind::Label(label.node.clone(), Box::new(node)),
                )
            }
            ExprKind::Dice(dice) => self.dice(span, dice),
            ExprKind::Group(group) => self.group(span, group),
            ExprKind::Pool(_) => self.unbound_pool(span),
            ExprKind::Point(..) => self.stray_point(span),
        }
    }

    fn call(&mut self, span: Span, name: &Spanned<String>, args: &[Expr]) -> Option<Node> {
        if let Some(reading) = self.reading_call(span, name, args) {
            return reading;
        }
        let f = name.node.as_str();
        if let Some((index, arity)) = self.function_index(f) {
            let nodes: Vec<Option<Node>> = args.iter().map(|a| self.expr(a)).collect();
            let nodes: Vec<Node> = nodes.into_iter().collect::<Option<_>>()?;
            if nodes.len() != arity {
                return self.error(Diagnostic::error(
                    "wrong-arguments",
                    span,
                    format!("`{f}` takes {arity} argument(s), got {}", nodes.len()),
                ));
            }
            return Self::node(span, Type::Any, NodeKind::Call(index, nodes));
        }
        let Some(&(_, arity)) = BUILTINS.iter().find(|(b, _)| *b == f) else {
            let known: Vec<&str> = BUILTINS.iter().map(|(b, _)| *b).collect();
            return self.error(
                Diagnostic::error(
                    "unknown-function",
                    name.span,
                    format!("unknown function `{f}`"),
                )
                .with_help(format!(
                    "the builtins are {}; declare your own with `fn {f}(x) = …;`",
                    known.join(", ")
                )),
            );
        };
        let ok_count = match arity {
            Some(n) => args.len() == n,
            None => !args.is_empty(),
        };
        if !ok_count {
            let want = match arity {
                Some(n) => format!("exactly {n}"),
                None => "at least one".to_string(),
            };
            return self.error(Diagnostic::error(
                "wrong-arguments",
                span,
                format!("`{f}` takes {want} argument(s), got {}", args.len()),
            ));
        }
        if matches!(f, "after" | "absorb" | "stationary") {
            return self.process(span, f, args);
        }
        if matches!(f, "floor" | "ceil" | "round" | "sign" | "pow" | "div") {
            return self.numeric_call(span, f, args);
        }
        let nodes: Vec<Option<Node>> = args.iter().map(|a| self.expr(a)).collect();
        let nodes: Vec<Node> = nodes.into_iter().collect::<Option<_>>()?;
        for n in &nodes {
            if !self.expect_int(n, &format!("an argument of `{f}`")) {
                return None;
            }
        }
        let kind = match f {
            "abs" => NodeKind::Abs(Box::new(nodes.into_iter().next().expect("one"))),
            "min" => NodeKind::Min(nodes),
            _ => NodeKind::Max(nodes),
        };
        Self::node(span, Type::Int, kind)
    }

    /// `floor`, `ceil`, `round`, `sign`, `pow` and `div`. Of a division written with `/` (which rounds
    /// down), `ceil(a / b)` and `round(a / b)` say how its fraction goes, lowered to arithmetic on whole
    /// numbers; of anything else they round the number, a fraction from `div` included. `round` rounds
    /// halves up (towards +∞), as JavaScript's `Math.round` behind Roll20's and Foundry's does.
    fn numeric_call(&mut self, span: Span, f: &str, args: &[Expr]) -> Option<Node> {
        let int = |n: i64| Node {
            span,
            ty: Type::Int,
            kind: NodeKind::Const(Value::Int(n)),
        };
        let binary = |op: BinOp, l: Node, r: Node| Node {
            span,
            ty: Type::Int,
            kind: NodeKind::Binary(op, Box::new(l), Box::new(r)),
        };
        let neg = |x: Node| Node {
            span,
            ty: Type::Int,
            kind: NodeKind::Neg(Box::new(x)),
        };
        let mut inner = &args[0];
        while let ExprKind::Paren(i) = &inner.node {
            inner = i;
        }
        if let (true, ExprKind::Binary(BinOp::Div, a, b)) =
            (matches!(f, "ceil" | "round"), &inner.node)
        {
            let a = self.expr(a);
            let b = self.expr(b);
            let (a, b) = (a?, b?);
            if !self.expect_int(&a, &format!("the argument of `{f}`"))
                || !self.expect_int(&b, &format!("the argument of `{f}`"))
            {
                return None;
            }
            if f == "ceil" {
                // ⌈a/b⌉ = −⌊−a/b⌋
                return Some(neg(binary(BinOp::Div, neg(a), b)));
            }
            let divisor = match b.kind {
                NodeKind::Const(Value::Int(d)) if d != 0 => d,
                _ => {
                    return self.error(
                        Diagnostic::error(
                            "round-needs-number",
                            b.span,
                            "`round` of a division needs the divisor written as a number other than 0",
                        )
                        .with_help("e.g. `round(1d20 / 2)`; or round down with `/` alone"),
                    );
                }
            };
            // round(a/d) = ⌊(2a + d) / 2d⌋ for d > 0; a negative d flips both signs first.
            let (a, d) = if divisor < 0 {
                (neg(a), divisor.checked_neg())
            } else {
                (a, Some(divisor))
            };
            let Some(twice) = d.and_then(|d| d.checked_mul(2)) else {
                return self.error(core_diagnostic(&CoreError::Overflow, span));
            };
            let d = d.unwrap_or(1);
            let top = binary(BinOp::Add, binary(BinOp::Mul, int(2), a), int(d));
            return Some(binary(BinOp::Div, top, int(twice)));
        }
        let nodes: Vec<Option<Node>> = args.iter().map(|a| self.expr(a)).collect();
        let nodes: Vec<Node> = nodes.into_iter().collect::<Option<_>>()?;
        for n in &nodes {
            if !self.expect_int(n, &format!("an argument of `{f}`")) {
                return None;
            }
        }
        let mut nodes = nodes.into_iter();
        let x = nodes.next().expect("one argument");
        let how = match f {
            "pow" | "div" => {
                let op = if f == "pow" {
                    BinOp::Pow
                } else {
                    BinOp::Quotient
                };
                let y = nodes.next().expect("two arguments");
                if op == BinOp::Quotient && matches!(y.kind, NodeKind::Const(Value::Int(0))) {
                    return self.error(core_diagnostic(&CoreError::DivisionByZero, y.span));
                }
                return Some(binary(op, x, y));
            }
            "sign" => Rounding::Sign,
            "floor" => Rounding::Floor,
            "ceil" => Rounding::Ceil,
            _ => Rounding::Nearest,
        };
        Some(match x.kind {
            // A whole number is its own floor, ceiling and rounding.
            NodeKind::Const(Value::Int(n)) if how != Rounding::Sign => int(n),
            _ => Node {
                span,
                ty: Type::Int,
                kind: NodeKind::Round(how, Box::new(x)),
            },
        })
    }

    /// `after(step, start, n)`, `absorb(step, start)`, `stationary(step, start)`.
    fn process(&mut self, span: Span, f: &str, args: &[Expr]) -> Option<Node> {
        let function = match &args[0].node {
            ExprKind::Var(name) => match self.function_index(name) {
                Some((index, 1)) => Some(index),
                Some((_, n)) => self
                    .error(Diagnostic::error(
                        "wrong-arguments",
                        args[0].span,
                        format!(
                            "a step function takes one argument (the state); `{name}` takes {n}"
                        ),
                    ))
                    .map(|_| 0),
                None => self
                    .error(
                        Diagnostic::error(
                            "unknown-function",
                            args[0].span,
                            format!("`{name}` is not a function"),
                        )
                        .with_help("declare the step first, e.g. `fn step(s) = …;`"),
                    )
                    .map(|_| 0),
            },
            _ => self
                .error(
                    Diagnostic::error(
                        "expected-function",
                        args[0].span,
                        format!("the first argument of `{f}` is the name of a step function"),
                    )
                    .with_help(format!(
                        "e.g. `fn step(s) = s + d6; {f}(step, 0{})`",
                        if f == "after" { ", 10" } else { "" }
                    )),
                )
                .map(|_| 0),
        };
        let start = self.expr(&args[1]);
        let steps = if f == "after" {
            let n = self.expr(&args[2]);
            match n {
                Some(n) if self.expect_int(&n, "the number of steps") => Some(Some(Box::new(n))),
                _ => None,
            }
        } else {
            Some(None)
        };
        let (function, start, steps) = (function?, start?, steps?);
        let query = match f {
            "after" => ProcessQuery::After,
            "absorb" => ProcessQuery::Absorb,
            _ => ProcessQuery::Stationary,
        };
        Self::node(
            span,
            Type::Any,
            NodeKind::Process {
                query,
                function,
                start: Box::new(start),
                steps,
            },
        )
    }

    fn pattern(&mut self, p: &Spanned<ast::Pattern>) -> Option<Pattern> {
        Some(match &p.node {
            ast::Pattern::Wildcard => Pattern::Any,
            ast::Pattern::Int(n) => Pattern::Value(Value::Int(*n)),
            ast::Pattern::Bool(b) => Pattern::Value(Value::Bool(*b)),
            ast::Pattern::Text(t) => Pattern::Value(Value::text(t)),
            ast::Pattern::Range {
                lo,
                hi,
                hi_inclusive,
            } => {
                let hi = match (hi, hi_inclusive) {
                    (Some(h), false) => Some(h.checked_sub(1)?),
                    (h, _) => *h,
                };
                if let (Some(l), Some(h)) = (lo, hi)
                    && *l > h
                {
                    self.warnings.push(Diagnostic::warning(
                        "empty-range",
                        p.span,
                        "this range matches nothing",
                    ));
                }
                Pattern::Range(*lo, hi)
            }
            ast::Pattern::Tuple(items) => {
                let ps: Vec<Option<Pattern>> = items.iter().map(|i| self.pattern(i)).collect();
                Pattern::Tuple(ps.into_iter().collect::<Option<_>>()?)
            }
            ast::Pattern::Or(items) => {
                let ps: Vec<Option<Pattern>> = items.iter().map(|i| self.pattern(i)).collect();
                Pattern::Or(ps.into_iter().collect::<Option<_>>()?)
            }
        })
    }

    fn dice(&mut self, span: Span, dice: &ast::DiceExpr) -> Option<Node> {
        let count = match &dice.count {
            None => Some(Node {
                span: Span::new(span.start, span.start),
                ty: Type::Int,
                kind: NodeKind::Const(Value::Int(1)),
            }),
            Some(c) => self
                .expr(c)
                .filter(|n| self.expect_int(n, "the number of dice")),
        };
        if let Some(Node {
            kind: NodeKind::Const(Value::Int(n)),
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
            explode_once: mods.explode_once,
            penetrate: mods.penetrate,
            critical_success: mods.critical_success,
            critical_failure: mods.critical_failure,
            sort: mods.sort,
            matching: mods.matching,
            unique: mods.unique,
            after: mods.after,
            keep: mods.keep,
            ends: mods.ends,
            success: mods.success,
            failure: mods.failure,
            points: mods.points,
            success_at: dice
                .modifiers
                .iter()
                .find(|m| matches!(m.node, Modifier::Success(_)))
                .map(|m| m.span.start - span.start),
        };
        if let (SidesNode::Fixed(die), true) = (&node.sides, node.points.is_empty()) {
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
        // A warning points at the modifier it is about, or at the whole term if none was written.
        let written_at = |is: fn(&Modifier) -> bool| {
            written
                .iter()
                .find(|m| is(&m.node))
                .map_or(span, |m| m.span)
        };
        // Steps written after a compounding explosion see the compounded total, which can pass every
        // face (`d6!!rr<=6` rerolls totals of 6 or less): only the steps before it are checked on faces.
        if node.before.is_empty()
            && node.after.is_empty()
            && node.explosion.is_none()
            && node.success.is_none()
            && node.unique.is_none()
        {
            // No step, explosion, success point or uniqueness: nothing about the faces to check.
            return Some(());
        }
        let compounds = matches!(node.explosion, Some((true, _)));
        let steps: Vec<DieStep> = if compounds {
            node.before.clone()
        } else {
            node.before.iter().chain(&node.after).copied().collect()
        };
        let (dist, decided) = match step_prefixes(die.distribution(), &steps, &mut self.budget) {
            Ok(mut prefixes) => {
                // The explosion decides on the faces after the steps before it, not after later
                // clamps (`1d6!>=2min2` does not explode on every face).
                let decided = prefixes.swap_remove(node.before.len().min(prefixes.len() - 1));
                let dist = prefixes.pop().unwrap_or_else(|| decided.clone());
                (dist, decided)
            }
            Err(CoreError::RerollEverything) => {
                let at = written_at(|m| matches!(m, Modifier::RerollRecursive(_)));
                self.error(core_diagnostic(&CoreError::RerollEverything, at));
                return None;
            }
            Err(e) => {
                // A reroll redraws the die as rerolled so far: its exact weights double in length
                // with each one, and a long chain of them is refused here, before any evaluation.
                self.error(core_diagnostic(&e, span).with_help(
                    "each reroll redraws the die as rerolled before it, so every one doubles the size \
                     of its exact odds; write fewer rerolls, e.g. one `ro` with a wider point (`ro<=2`)",
                ));
                return None;
            }
        };
        if node.explosion.is_some() {
            if let Err(e) = self.limits.check_explode_depth() {
                self.error(core_diagnostic(&e, span));
                return None;
            }
            if let Some((_, Some(c))) = node.explosion
                && decided.outcomes().all(|&x| c.holds(x))
            {
                let at = written_at(|m| matches!(m, Modifier::Explode { .. }));
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
        self.warn_explode_point_without_count(
            node,
            &decided,
            written_at(|m| matches!(m, Modifier::Explode { .. })),
        );
        if let (Some(unique), NodeKind::Const(Value::Int(count))) = (node.unique, &node.count.kind)
            && !unique.once
            && usize::try_from(*count).is_ok_and(|n| n > dist.len())
            && dist
                .outcomes()
                .all(|&x| unique.condition.is_none_or(|c| c.holds(x)))
        {
            let at = written_at(|m| matches!(m, Modifier::Unique { .. }));
            self.warnings.push(
                Diagnostic::warning(
                    "unique-impossible",
                    at,
                    format!(
                        "{count} dice cannot all differ: {die} shows {} values, so each die after \
                         the first {} keeps a value an earlier die took",
                        dist.len(),
                        dist.len()
                    ),
                )
                .with_help(
                    "rpg-dice-roller gives up rerolling such a die after 1000 tries and keeps its roll; \
                     Omen keeps it at once, which gives the same distribution",
                ),
            );
        }
        // Compounded dice reach values beyond the faces; only warn when no compounding is involved.
        if let Some(c) = node.success
            && !compounds
            && !dist.outcomes().any(|&x| c.holds(x))
        {
            let at = written_at(|m| matches!(m, Modifier::Success(_)));
            let point = &self.source[at.start..at.end];
            let op_len = point.len() - point.trim_start_matches(['>', '<', '=']).len();
            let op = &point[..op_len];
            // Only the whole left side is known to the reader; naming a part of it would be a wrong fix.
            // A point written without a comparison (Foundry's `cf-1`, `cs6`) is no misplaced total
            // comparison: the hint then names the point as it was read.
            let help = if op.is_empty() {
                format!(
                    "`{point}` is read as the point `{c}`; choose a value a face of {die} can show"
                )
            } else {
                format!(
                    "to compare a total instead, put spaces around `{op}` (whitespace ends a dice term), or \
                     put the whole left side in parentheses, e.g. `(1d20 + 5) {op} 15`"
                )
            };
            self.warnings.push(
                Diagnostic::warning(
                    "unreachable-success",
                    at,
                    format!("no face of {die} can meet `{c}`, so this counts 0 dice on every roll"),
                )
                .with_help(help),
            );
        }
        Some(())
    }

    /// `8d10!>=8` explodes every die of 8 or more and adds the dice up, as the notation says; a World
    /// of Darkness player who writes it means "explode the 10s, count the dice of 8 or more", which
    /// is `8d10!10>=8`. A pool of several dice, exploding on more than one face, neither counted nor
    /// kept, is read as written with a warning that names the other reading.
    fn warn_explode_point_without_count(
        &mut self,
        node: &DiceNode,
        faces: &omen_core::Distribution<i64>,
        at: Span,
    ) {
        let (Some((false, Some(c))), None, Keep::All, None) =
            (node.explosion, node.success, node.keep, &node.ends)
        else {
            return;
        };
        let several = matches!(node.count.kind, NodeKind::Const(Value::Int(n)) if n >= 2);
        let exploding = faces.outcomes().filter(|&&x| c.holds(x)).count();
        let Some(&top) = faces.outcomes().last() else {
            return;
        };
        if !several || exploding < 2 || exploding == faces.len() {
            return;
        }
        let term = &node.notation;
        let written = &self.source[at.start..at.end];
        let before = term.find(written).map_or(term.as_str(), |i| &term[..i]);
        self.warnings.push(
            Diagnostic::warning(
                "explode-point-not-counted",
                at,
                format!(
                    "`{written}` explodes every die that meets `{c}` and adds the dice up; it does \
                     not count the dice that meet it"
                ),
            )
            .with_help(format!(
                "to explode only the highest face and count the dice that meet `{c}` (World of \
                 Darkness), write `{before}!{top}{c}`; to explode and count on the same faces, \
                 `{before}{written}{c}`"
            )),
        );
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
                if let NodeKind::Const(Value::Int(n)) = node.kind {
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
                points: mods.points,
            })),
        })
    }

    /// The condition of a point that must be a number (a name is refused: the walks over the whole
    /// pool are computed before any name has a value).
    fn number_point(
        &mut self,
        point: Option<&ComparePoint>,
        what: &str,
        example: &str,
    ) -> Option<Condition> {
        match point {
            Some(ComparePoint {
                value: PointValue::Name(name),
                ..
            }) => {
                self.errors.push(
                    Diagnostic::error(
                        "bad-point",
                        name.span,
                        format!("the point of {what} takes a number, not a name"),
                    )
                    .with_help(format!("write the number, e.g. {example}")),
                );
                None
            }
            Some(p) => Some(condition(p)),
            None => None,
        }
    }

    /// Records a rule over the whole pool (matching, unique rerolls): on dice only, one per term.
    fn set_rule(&mut self, on_dice: bool, first: &mut Option<Span>, at: Span, what: &str) {
        if !on_dice {
            self.errors.push(
                Diagnostic::error(
                    "bad-group-modifier",
                    at,
                    format!("{what} applies to dice, not to groups"),
                )
                .with_help("put it on the dice inside the group, e.g. `{4d6m, 1d8}`"),
            );
        } else if first.is_some() {
            self.errors.push(
                Diagnostic::error(
                    "unsupported-modifier",
                    at,
                    "one dice term takes one of matching and unique rerolls, once",
                )
                .with_help("split the roll into two dice terms"),
            );
        }
        first.get_or_insert(at);
    }

    fn modifiers(&mut self, mods: &[Spanned<Modifier>], on_dice: bool) -> Option<Modifiers> {
        let mut out = Modifiers {
            before: Vec::new(),
            explosion: None,
            explode_once: false,
            penetrate: false,
            critical_success: None,
            critical_failure: None,
            sort: None,
            after: Vec::new(),
            keep: Keep::All,
            ends: None,
            success: None,
            failure: None,
            points: Vec::new(),
            matching: None,
            unique: None,
        };
        let mut ends_span: Option<Span> = None;
        let errors_before = self.errors.len();
        let mut set_span: Option<Span> = None;
        let mut success_span: Option<Span> = None;
        let mut failure_span: Option<Span> = None;
        let mut explode_span: Option<Span> = None;
        for m in mods {
            let target = match &m.node {
                Modifier::Explode { .. } => Some(PointTarget::Explode),
                Modifier::RerollOnce(_) | Modifier::RerollRecursive(_) => {
                    Some(if explode_span.is_some() {
                        PointTarget::After(out.after.len())
                    } else {
                        PointTarget::Before(out.before.len())
                    })
                }
                Modifier::Success(_) => Some(PointTarget::Success),
                Modifier::Failure(_) => Some(PointTarget::Failure),
                _ => None,
            };
            let point = m.node.point();
            if let (
                Some(target),
                Some(ComparePoint {
                    value: PointValue::Name(name),
                    ..
                }),
            ) = (target, point)
            {
                match self.lookup(&name.node) {
                    Some(slot) => out.points.push((
                        target,
                        Node {
                            span: name.span,
                            ty: Type::Any,
                            kind: NodeKind::Var(slot, name.node.clone()),
                        },
                    )),
                    None => self.errors.push(
                        Diagnostic::error(
                            "unknown-name",
                            name.span,
                            format!("unknown name `{}`", name.node),
                        )
                        .with_help(format!("declare it first, e.g. `param {} = 8;`", name.node)),
                    ),
                }
            }
            let per_die = match &m.node {
                &Modifier::Explode {
                    compound,
                    ref point,
                    once,
                    penetrate,
                } => {
                    out.explode_once = once;
                    out.penetrate = penetrate;
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
                    out.explosion = Some((compound, point.as_ref().map(condition)));
                    None
                }
                Modifier::RerollOnce(p) => Some(DieStep::RerollOnce(condition(p))),
                Modifier::RerollRecursive(p) => Some(DieStep::RerollUntil(condition(p))),
                Modifier::ClampMin(v) => Some(DieStep::ClampMin(*v)),
                Modifier::ClampMax(v) => Some(DieStep::ClampMax(*v)),
                &Modifier::Keep { which, count } => {
                    let n = usize::try_from(count).unwrap_or(0);
                    let keep = match which {
                        KeepWhich::KeepHighest => Keep::Highest(n),
                        KeepWhich::KeepLowest => Keep::Lowest(n),
                        KeepWhich::DropHighest => Keep::DropHighest(n),
                        KeepWhich::DropLowest => Keep::DropLowest(n),
                        KeepWhich::KeepMiddle => Keep::Middle(n),
                    };
                    if which == KeepWhich::KeepMiddle {
                        self.warnings.push(
                            Diagnostic::warning(
                                "keep-middle-odd-die",
                                m.span,
                                format!(
                                    "`km{count}` keeps the middle {count}: when an odd number of dice is \
                                     left out, the extra one is a highest die (as Dice Maiden does), \
                                     not a lowest"
                                ),
                            )
                            .with_help(
                                "to leave out the extra lowest die instead, drop both ends, e.g. \
                                 `5d6dl2dh1` for the middle 2 of 5",
                            ),
                        );
                    }
                    // Two keep/drop modifiers apply in order (`3d6kh2dl1` keeps the highest one).
                    out.keep = match compose_keep(out.keep, keep) {
                        Some(composed) => composed,
                        None => {
                            self.errors.push(
                                Diagnostic::error(
                                    "middle-keep",
                                    m.span,
                                    "the dice this keep or drop leaves after the one before it depend on \
                                     how many were rolled, which is not computed yet",
                                )
                                .with_help(
                                    "keep from one end in a nested term instead, e.g. `{4d6dl1}kh1`",
                                ),
                            );
                            keep
                        }
                    };
                    None
                }
                &Modifier::KeepEnds {
                    highest,
                    lowest,
                    drop,
                } => {
                    out.ends = Some(crate::keep_ends::KeepEnds::new(highest, lowest, drop));
                    ends_span = Some(m.span);
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
                Modifier::Critical { failure, point } => {
                    let point = match point {
                        Some(ComparePoint {
                            value: PointValue::Name(name),
                            ..
                        }) => {
                            self.errors.push(
                                Diagnostic::error(
                                    "bad-point",
                                    name.span,
                                    "a critical mark takes a number, not a name",
                                )
                                .with_help("write the number, e.g. `cs>=19`"),
                            );
                            None
                        }
                        Some(p) => Some(condition(p)),
                        None => None,
                    };
                    if !on_dice {
                        self.errors.push(
                            Diagnostic::error(
                                "bad-group-modifier",
                                m.span,
                                "critical marks apply to dice, not to groups",
                            )
                            .with_help("mark the dice inside the group, e.g. `{1d20cs>=19, 1d20}`"),
                        );
                    }
                    if *failure {
                        out.critical_failure = Some(point);
                    } else {
                        out.critical_success = Some(point);
                    }
                    None
                }
                Modifier::Match { total, size, point } => {
                    let condition = self.number_point(point.as_ref(), "matching", "`mt>=4`");
                    let size = size.unwrap_or(2);
                    if size < 2 {
                        self.errors.push(
                            Diagnostic::error(
                                "bad-set-size",
                                m.span,
                                format!("a set of matching dice has at least 2 dice, not {size}"),
                            )
                            .with_help("write the smallest set after the word, e.g. `mt3`, or none for pairs"),
                        );
                    }
                    self.set_rule(on_dice, &mut set_span, m.span, "matching");
                    out.matching = Some(Matching {
                        size: usize::try_from(size).unwrap_or(2),
                        condition,
                        total: *total,
                    });
                    None
                }
                Modifier::Unique { once, point } => {
                    let condition = self.number_point(point.as_ref(), "a unique reroll", "`u=5`");
                    self.set_rule(on_dice, &mut set_span, m.span, "unique rerolls");
                    out.unique = Some(Unique {
                        once: *once,
                        condition,
                    });
                    None
                }
                Modifier::Sort { descending } => {
                    if !on_dice {
                        self.errors.push(
                            Diagnostic::error(
                                "bad-group-modifier",
                                m.span,
                                "sorting applies to dice, not to groups",
                            )
                            .with_help("sort the dice inside the group, e.g. `{4d6sa, 1d8}`"),
                        );
                    }
                    out.sort = Some(*descending);
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
                Diagnostic::error("bad-group-modifier", at, "groups cannot explode")
                    .with_help("explode the dice inside the group, e.g. `{2d6!, 1d8}`"),
            );
        }
        if let Some(at) = explode_span
            && out.penetrate
            && out.explosion.is_some_and(|(compound, _)| !compound)
            && out.keep != Keep::All
        {
            self.errors.push(
                Diagnostic::error(
                    "unsupported-modifier",
                    at,
                    "a penetrating explosion (`!p`) with keep or drop is not computed yet",
                )
                .with_help("compound it (`!!p`): a compounded die is kept or dropped whole"),
            );
        }
        if let Some(at) = set_span {
            let refusal = if explode_span.is_some() {
                Some((
                    "unique rerolls and matching on exploding dice are not computed yet",
                    "explode in one term and match or reroll in another",
                ))
            } else if out.matching.is_some_and(|m| m.total) && success_span.is_some() {
                Some((
                    "`mt` makes the result the number of sets, so a success point cannot count too",
                    "count the successes in another term, or mark the sets with `m`",
                ))
            } else {
                None
            };
            if let Some((message, help)) = refusal {
                self.errors
                    .push(Diagnostic::error("unsupported-modifier", at, message).with_help(help));
            }
        }
        if let Some(at) = ends_span
            && let Some(why) = crate::keep_ends::refusal(
                on_dice,
                out.keep != Keep::All || explode_span.is_some() || set_span.is_some(),
                success_span.is_some(),
            )
        {
            self.errors.push(
                Diagnostic::error("unsupported-modifier", at, why)
                    .with_help("keep one end, e.g. `kh1`, or roll the ends in separate terms"),
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
    matching: Option<Matching>,
    unique: Option<Unique>,
    before: Vec<DieStep>,
    explosion: Option<(bool, Option<Condition>)>,
    explode_once: bool,
    penetrate: bool,
    critical_success: Option<Option<Condition>>,
    critical_failure: Option<Option<Condition>>,
    sort: Option<bool>,
    after: Vec<DieStep>,
    keep: Keep,
    ends: Option<crate::keep_ends::KeepEnds>,
    success: Option<Condition>,
    failure: Option<Condition>,
    points: Vec<(PointTarget, Node)>,
}

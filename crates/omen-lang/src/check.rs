//! From syntax to a checked program: names, types, modifier order, shorthands, and the limits known
//! before any dice are rolled.

use omen_core::{Budget, Compare, Condition, Keep, Limits};

use crate::diagnostic::Diagnostic;
// Its home is the diagnostics module, below the interpreters that use it too; the path stays.
pub use crate::diagnostic::core_diagnostic;
use crate::program::{Function, Node, NodeKind, PointTarget, Program, Type};
use crate::span::Span;
use crate::syntax::ast::{
    CompareOp, ComparePoint, Expr, ExprKind, Item, PointValue, Script, Spanned,
};
use crate::value::Value;

mod branches;
mod calls;
mod dice;
mod faces;
mod first_only;
mod fold;
mod in_turn;
mod modifiers;
mod operators;
mod pool;
mod scope;
mod script;
mod tuples;

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
    ("avrae", Some(1)),
    ("avrae_set", Some(2)),
    // One term in quotes, or a rolled count, sides and the modifiers in quotes.
    ("foundry", None),
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
                let value = checker.param_value(name, default.as_ref(), params);
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
    checker.refuse_unknown_params(params, &declared_params);
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
            ExprKind::Var(name) => self.variable(span, name),
            ExprKind::Neg(inner) => self.negation(span, inner),
            ExprKind::Binary(op, l, r) => self.binary(span, *op, l, r),
            ExprKind::Compare(op, l, r) => self.comparison(span, *op, l, r),
            ExprKind::And(l, r) => self.and_or(span, true, l, r),
            ExprKind::Or(l, r) => self.and_or(span, false, l, r),
            ExprKind::Not(inner) => self.not(span, inner),
            ExprKind::If(c, a, b) => self.if_else(span, c, a, b),
            ExprKind::Match(x, arms) => self.match_arms(span, x, arms),
            ExprKind::LetIn(name, value, body) => self.let_in(span, name, value, body),
            ExprKind::Tuple(items) => self.tuple(span, items),
            ExprKind::Field(inner, index) => self.field(span, inner, index),
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
}

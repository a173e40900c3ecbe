//! The sampling interpreter: one roll of a program, with every die and every subtotal kept.

use num_integer::Integer;
use omen_core::{CoreError, Die, DieSource, Limits, Mark, PoolRoll, RolledDie, select_kept};
use serde::Serialize;

use crate::check::core_diagnostic;
use crate::diagnostic::Diagnostic;
use crate::exact::pool_spec;
use crate::program::{DiceNode, GroupNode, Node, NodeKind, Program, SidesNode};
use crate::span::Span;
use crate::syntax::ast::BinOp;

/// A value a program produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(untagged)]
pub enum Value {
    Int(i64),
    Bool(bool),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// One node of a roll's result tree, mirroring the program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RollNode {
    pub span: Span,
    pub value: Value,
    #[serde(flatten)]
    pub kind: RollKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "node", rename_all = "lowercase")]
pub enum RollKind {
    Number,
    Dice {
        notation: String,
        die: String,
        count: Box<RollNode>,
        #[serde(skip_serializing_if = "Option::is_none")]
        sides: Option<Box<RollNode>>,
        dice: Vec<DieView>,
    },
    Group {
        members: Vec<RollNode>,
        kept: Vec<bool>,
    },
    Unary {
        op: &'static str,
        operand: Box<RollNode>,
    },
    Binary {
        op: &'static str,
        left: Box<RollNode>,
        right: Box<RollNode>,
    },
    Call {
        function: &'static str,
        args: Vec<RollNode>,
    },
    Label {
        label: String,
        inner: Box<RollNode>,
    },
}

/// One die in a transcript.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DieView {
    pub value: i64,
    #[serde(skip_serializing_if = "single_roll")]
    pub rolls: Vec<i64>,
    pub marks: Vec<&'static str>,
}

fn single_roll(rolls: &[i64]) -> bool {
    rolls.len() <= 1
}

fn mark_name(m: Mark) -> &'static str {
    match m {
        Mark::Kept => "kept",
        Mark::Dropped => "dropped",
        Mark::Exploded => "exploded",
        Mark::DepthLimit => "depth-limit",
        Mark::Rerolled => "rerolled",
        Mark::Clamped => "clamped",
        Mark::Success => "success",
        Mark::Failure => "failure",
    }
}

impl From<&RolledDie> for DieView {
    fn from(d: &RolledDie) -> Self {
        DieView {
            value: d.value,
            rolls: d.rolls.clone(),
            marks: d.marks.iter().map(|&m| mark_name(m)).collect(),
        }
    }
}

/// A whole roll: the result tree; its root value is the result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Roll {
    pub expression: String,
    pub result: Value,
    pub tree: RollNode,
}

/// Rolls a checked program once.
///
/// # Errors
/// A diagnostic at the node that failed: the dice source ran out or gave a value that is not a face, a
/// random dice count was negative or over the limit, a division by zero, an overflow.
pub fn sample(
    program: &Program,
    limits: &Limits,
    source: &mut dyn DieSource,
) -> Result<Roll, Diagnostic> {
    let tree = Sampler { limits, source }.node(&program.root)?;
    Ok(Roll {
        expression: program.source.clone(),
        result: tree.value,
        tree,
    })
}

struct Sampler<'a> {
    limits: &'a Limits,
    source: &'a mut dyn DieSource,
}

fn int(node: &RollNode) -> i64 {
    match node.value {
        Value::Int(n) => n,
        Value::Bool(_) => unreachable!("the checker types this node as a number"),
    }
}

impl Sampler<'_> {
    fn node(&mut self, node: &Node) -> Result<RollNode, Diagnostic> {
        let span = node.span;
        let at = |e: CoreError| core_diagnostic(&e, span);
        let (value, kind) = match &node.kind {
            NodeKind::Const(n) => (Value::Int(*n), RollKind::Number),
            NodeKind::Label(label, inner) => {
                let inner = self.node(inner)?;
                (
                    inner.value,
                    RollKind::Label {
                        label: label.clone(),
                        inner: Box::new(inner),
                    },
                )
            }
            NodeKind::Neg(inner) | NodeKind::Abs(inner) => {
                let inner = self.node(inner)?;
                let x = int(&inner);
                let neg = matches!(node.kind, NodeKind::Neg(_));
                let v = if neg {
                    x.checked_neg()
                } else {
                    x.checked_abs()
                };
                (
                    Value::Int(v.ok_or(CoreError::Overflow).map_err(at)?),
                    if neg {
                        RollKind::Unary {
                            op: "-",
                            operand: Box::new(inner),
                        }
                    } else {
                        RollKind::Call {
                            function: "abs",
                            args: vec![inner],
                        }
                    },
                )
            }
            NodeKind::Binary(op, l, r) => {
                let l = self.node(l)?;
                let r = self.node(r)?;
                let (a, b) = (int(&l), int(&r));
                let v = match op {
                    BinOp::Add => a.checked_add(b),
                    BinOp::Sub => a.checked_sub(b),
                    BinOp::Mul => a.checked_mul(b),
                    BinOp::Div => {
                        if b == 0 {
                            return Err(core_diagnostic(&CoreError::DivisionByZero, r.span));
                        }
                        (a != i64::MIN || b != -1).then(|| Integer::div_floor(&a, &b))
                    }
                };
                let sym = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    BinOp::Mul => "*",
                    BinOp::Div => "/",
                };
                (
                    Value::Int(v.ok_or(CoreError::Overflow).map_err(at)?),
                    RollKind::Binary {
                        op: sym,
                        left: Box::new(l),
                        right: Box::new(r),
                    },
                )
            }
            NodeKind::Compare(op, l, r) => {
                let l = self.node(l)?;
                let r = self.node(r)?;
                let v = match (l.value, r.value) {
                    (Value::Int(a), Value::Int(b)) => op.holds(a, b),
                    (a, b) => a == b,
                };
                (
                    Value::Bool(v),
                    RollKind::Binary {
                        op: op.symbol(),
                        left: Box::new(l),
                        right: Box::new(r),
                    },
                )
            }
            NodeKind::Min(args) | NodeKind::Max(args) => {
                let is_min = matches!(node.kind, NodeKind::Min(_));
                let args: Vec<RollNode> = args
                    .iter()
                    .map(|a| self.node(a))
                    .collect::<Result<_, _>>()?;
                let values = args.iter().map(int);
                let v = if is_min { values.min() } else { values.max() };
                (
                    Value::Int(v.expect("checked: at least one argument")),
                    RollKind::Call {
                        function: if is_min { "min" } else { "max" },
                        args,
                    },
                )
            }
            NodeKind::Dice(dice) => self.dice(span, dice)?,
            NodeKind::Group(group) => self.group(group)?,
        };
        Ok(RollNode { span, value, kind })
    }

    fn dice(&mut self, span: Span, dice: &DiceNode) -> Result<(Value, RollKind), Diagnostic> {
        let count = self.node(&dice.count)?;
        let (die, sides) = match &dice.sides {
            SidesNode::Fixed(d) => (d.clone(), None),
            SidesNode::Random(n) => {
                let s = self.node(n)?;
                let die =
                    Die::standard(int(&s), self.limits).map_err(|e| core_diagnostic(&e, n.span))?;
                (die, Some(Box::new(s)))
            }
        };
        let spec = pool_spec(dice, die.clone(), int(&count), self.limits, dice.count.span)?;
        let PoolRoll {
            dice: rolled,
            total,
        } = spec
            .roll(self.source)
            .map_err(|e| core_diagnostic(&e, span))?;
        Ok((
            Value::Int(total),
            RollKind::Dice {
                notation: dice.notation.clone(),
                die: die.to_string(),
                count: Box::new(count),
                sides,
                dice: rolled.iter().map(DieView::from).collect(),
            },
        ))
    }

    fn group(&mut self, group: &GroupNode) -> Result<(Value, RollKind), Diagnostic> {
        let members: Vec<RollNode> = group
            .members
            .iter()
            .map(|m| self.node(m))
            .collect::<Result<_, _>>()?;
        let values: Vec<i64> = members.iter().map(int).collect();
        let kept = select_kept(&values, group.keep);
        let mut total: i64 = 0;
        for (v, k) in values.iter().zip(&kept) {
            if *k {
                total = total
                    .checked_add(group.score(*v))
                    .ok_or_else(|| core_diagnostic(&CoreError::Overflow, Span::default()))?;
            }
        }
        Ok((Value::Int(total), RollKind::Group { members, kept }))
    }
}

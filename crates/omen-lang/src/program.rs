//! The checked, lowered program: what both interpreters (`sample` and `exact`) run.
//!
//! Lowering resolves the notation's shorthands (`d%`, `dF`, `kN`, `dN`, bare compare points), puts each
//! dice term's modifiers in evaluation order (per-die steps as written, then keep/drop, then counting),
//! checks types and limits that are known before any dice are rolled, and folds constants.

use omen_core::{Compare, Condition, Die, DieStep, Keep};
use serde::Serialize;

use crate::span::Span;
use crate::syntax::ast::BinOp;

/// The kind of value a node produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Type {
    Int,
    Bool,
}

impl Type {
    /// How the type reads in an error message.
    pub fn describe(self) -> &'static str {
        match self {
            Type::Int => "a number",
            Type::Bool => "true/false",
        }
    }
}

/// A checked program: one expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub source: String,
    pub root: Node,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub span: Span,
    pub ty: Type,
    pub kind: NodeKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Const(i64),
    Dice(Box<DiceNode>),
    Group(Box<GroupNode>),
    Neg(Box<Node>),
    Binary(BinOp, Box<Node>, Box<Node>),
    Compare(Compare, Box<Node>, Box<Node>),
    Min(Vec<Node>),
    Max(Vec<Node>),
    Abs(Box<Node>),
    Label(String, Box<Node>),
}

/// The sides of a dice term: a die known before rolling, or a number of sides that is itself random.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SidesNode {
    Fixed(Die),
    Random(Node),
}

/// A dice term with its modifiers in evaluation order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiceNode {
    /// The dice term as written, for transcripts.
    pub notation: String,
    pub count: Node,
    pub sides: SidesNode,
    pub before: Vec<DieStep>,
    /// `Some((compound, condition))`; a `None` condition explodes on the highest face.
    pub explosion: Option<(bool, Option<Condition>)>,
    pub after: Vec<DieStep>,
    pub keep: Keep,
    pub success: Option<Condition>,
    pub failure: Option<Condition>,
}

/// `{a, b, …}` with keep/drop and counting over its members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupNode {
    pub members: Vec<Node>,
    pub keep: Keep,
    pub success: Option<Condition>,
    pub failure: Option<Condition>,
}

impl GroupNode {
    /// What one kept member adds: its value, or +1/−1/0 when counting.
    pub fn score(&self, value: i64) -> i64 {
        if self.success.is_some() || self.failure.is_some() {
            i64::from(self.success.is_some_and(|c| c.holds(value)))
                - i64::from(self.failure.is_some_and(|c| c.holds(value)))
        } else {
            value
        }
    }
}

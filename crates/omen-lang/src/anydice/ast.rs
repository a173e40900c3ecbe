//! The syntax tree of an AnyDice program: statements over expressions, every node with its span.

use crate::span::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unary {
    Die,
    Plus,
    Minus,
    Not,
    Length,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    Dice,
    At,
    Power,
    Times,
    Divide,
    Plus,
    Minus,
    Equal,
    NotEqual,
    Less,
    Greater,
    AtMost,
    AtLeast,
    And,
    Or,
}

#[derive(Clone, Debug)]
pub enum Expr {
    Number(i64, Span),
    Var(String, Span),
    Sequence(Vec<Part>, Span),
    Unary(Unary, Box<Expr>, Span),
    Binary(Binary, Box<Expr>, Box<Expr>, Span),
    Call(Vec<CallPart>, Span),
}

impl Expr {
    pub fn span(&self) -> Span {
        match self {
            Expr::Number(_, s)
            | Expr::Var(_, s)
            | Expr::Sequence(_, s)
            | Expr::Unary(_, _, s)
            | Expr::Binary(_, _, _, s)
            | Expr::Call(_, s) => *s,
        }
    }
}

/// One part of a sequence literal: a value or a range, repeated `times` times as a block.
#[derive(Clone, Debug)]
pub struct Part {
    pub from: Expr,
    pub to: Option<Expr>,
    pub times: Option<Expr>,
}

#[derive(Clone, Debug)]
pub enum CallPart {
    Word(String),
    Arg(Expr),
}

/// A parameter's declared type: `:n`, `:s`, `:d`, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Number,
    Sequence,
    Die,
    Any,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub kind: Kind,
}

#[derive(Clone, Debug)]
pub struct Function {
    /// The signature: words and `?` for each parameter, e.g. `highest ? of ?`.
    pub signature: String,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug)]
pub enum Setting {
    ExplodeDepth(Expr),
    FunctionDepth(Expr),
    PositionOrder { highest_first: bool },
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Output {
        expr: Expr,
        name: Option<String>,
        span: Span,
    },
    Assign {
        name: String,
        expr: Expr,
    },
    Function(std::rc::Rc<Function>),
    Result(Expr),
    Loop {
        var: String,
        over: Expr,
        body: Vec<Stmt>,
    },
    If {
        branches: Vec<(Expr, Vec<Stmt>)>,
        otherwise: Option<Vec<Stmt>>,
    },
    Set(Setting, Span),
}

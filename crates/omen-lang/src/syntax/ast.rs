//! The syntax tree: what the user wrote, with spans, before any checking.
//!
//! Modifiers are kept in the order written; the checker (`crate::check`) puts them in evaluation order
//! (explode/reroll/clamp as written → keep/drop → counting) and rejects the combinations that make no sense.

use crate::span::Span;

/// A node with its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    pub node: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(node: T, span: Span) -> Self {
        Spanned { node, span }
    }
}

pub type Expr = Spanned<ExprKind>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    /// An integer literal. Literals that do not fit in `i64` are a parse error.
    Number(i64),
    /// `NdX` with its modifiers, e.g. `4d6kh3`, `(1d4)d6`, `d%`, `dF`, `d{1,1,2,3}`, `10d12>=8f<=1`.
    Dice(Box<DiceExpr>),
    /// `{a, b, …}` followed by modifiers (keep/drop, counting), e.g. `{2d20, 1d20+5}kh1`.
    Group(Box<GroupExpr>),
    /// `-x`.
    Neg(Box<Expr>),
    /// `a + b`, `a - b`, `a * b`, `a / b` (floor division).
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a >= b` and the other compare operators between two whole expressions: true or false.
    /// Only produced where the left side is not a dice term or group (there a compare point counts dice),
    /// e.g. `(3d6)>=10`, `2d6+1 > 7`.
    Compare(CompareOp, Box<Expr>, Box<Expr>),
    /// `min(a, b, …)`, `max(a, b, …)`, `abs(x)`: the function name as written (lower-cased) and its span.
    Call(Spanned<String>, Vec<Expr>),
    /// `x[label]`: a label kept in the roll transcript; `label` is the text between the brackets, trimmed.
    Label(Box<Expr>, Spanned<String>),
    /// `(x)`: kept so that `(3d6)>=10` is told apart from `3d6>=10` and for precise spans.
    Paren(Box<Expr>),
    /// Where the parser recovered from an error. Never reaches the checker: `parse` fails when it made one.
    Error,
    /// A name: a parameter, a `let` binding or a function parameter.
    Var(String),
    /// `true`, `false`.
    Bool(bool),
    /// `"bad"`: a label value (the text between the quotes, no escapes).
    Text(String),
    /// `(a, b, …)` with at least two members (`(a)` is a parenthesised expression, `(a,)` a 1-tuple).
    Tuple(Vec<Expr>),
    /// `x.0`: a member of a tuple, counted from 0.
    Field(Box<Expr>, Spanned<usize>),
    /// `if c then a else b`.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `match x { ..=10 => "bad", 41.. => "good", _ => "neutral" }`.
    Match(Box<Expr>, Vec<MatchArm>),
    /// `a and b`.
    And(Box<Expr>, Box<Expr>),
    /// `a or b`.
    Or(Box<Expr>, Box<Expr>),
    /// `not a`.
    Not(Box<Expr>),
    /// `let x = value in body`: a binding inside an expression (e.g. a function body).
    LetIn(Spanned<String>, Box<Expr>, Box<Expr>),
    /// `pool 8d6`, `pool {d10, d8, d6}`: dice rolled once and read many ways (see [`PoolExpr`]).
    Pool(Box<PoolExpr>),
    /// `>=5` as an argument of a pool's reading, e.g. `count(p, >=5)`; a bare number there means `=`.
    Point(CompareOp, Box<Expr>),
}

/// What a pool holds: dice (of one kind or several), or cards drawn from a deck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoolExpr {
    /// `pool 8d6`, `pool {d10, d8, 2d6}`, `pool {6 x (4d6kh3)}`, `pool {3 ability, 2 difficulty}`.
    Dice(Vec<Spanned<PoolMember>>),
    /// `pool draw 5 from d{1..13, 1..13}`: `count` cards without replacement from the deck, each
    /// face listed being one card.
    Draw { count: Expr, deck: Expr },
}

/// One member of a pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoolMember {
    /// A dice term without keep or counting (`3d6`, `d8ro1`: that many dice of that die), or any
    /// other roll (`4d6kh3`, `d6+1`): one die whose faces are that roll's outcomes.
    Roll(Expr),
    /// `6 x (4d6kh3)`: `count` rolls of `roll`, each one die of the pool.
    Repeat { count: Expr, roll: Expr },
    /// `3 ability`: Genesys symbol dice by name.
    Symbol { count: i64, name: Spanned<String> },
}

/// One arm of a `match`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchArm {
    pub pattern: Spanned<Pattern>,
    pub body: Expr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `_`
    Wildcard,
    /// `3`, `-1`
    Int(i64),
    /// `true`, `false`
    Bool(bool),
    /// `"bad"`
    Text(String),
    /// `lo..hi`, `lo..=hi`, `..=hi`, `..hi`, `lo..`: `hi_inclusive` tells `..=` from `..`.
    Range {
        lo: Option<i64>,
        hi: Option<i64>,
        hi_inclusive: bool,
    },
    /// `(p, q, …)`
    Tuple(Vec<Spanned<Pattern>>),
    /// `p | q`
    Or(Vec<Spanned<Pattern>>),
}

/// A whole script: statements, then the expression whose distribution or roll is the result.
/// A plain dice expression is a script with no statements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    pub items: Vec<Spanned<Item>>,
    pub body: Expr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// `param dv = 8;` or `param dv;` (no default: the caller must set it).
    Param {
        name: Spanned<String>,
        default: Option<Expr>,
    },
    /// `let x = 3d6;`: rolled once; every use sees the same roll.
    Let { name: Spanned<String>, value: Expr },
    /// `fn lore(n, t) = …;`
    Fn {
        name: Spanned<String>,
        params: Vec<Spanned<String>>,
        body: Expr,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Division rounding down (towards −∞).
    Div,
    /// `%`: the remainder of division rounding down, so that `a = b * (a / b) + a % b`.
    Mod,
    /// `^` and `**`: a whole number to a power of 0 or more.
    Pow,
    /// `div(a, b)`, and `/` in the dialects that keep the fraction: real division, whose result is an
    /// exact fraction when it is not whole. Never written as an operator in Omen's notation (there `/`
    /// rounds down): the parser gives the call, the checker lowers it to this operation.
    Quotient,
}

impl BinOp {
    /// The operation on whole numbers, for both interpreters. A `Quotient` that is not whole has no
    /// whole-number result: `crate::number` computes it as a fraction.
    ///
    /// # Errors
    /// `DivisionByZero`, `NegativeExponent`, `Overflow`, `Unsupported` for a quotient with a fraction.
    pub fn apply_extra(self, a: i64, b: i64) -> Result<i64, omen_core::CoreError> {
        use omen_core::CoreError;
        match self {
            BinOp::Mod if b == 0 => Err(CoreError::DivisionByZero),
            BinOp::Mod => Ok(num_integer::Integer::mod_floor(&a, &b)),
            BinOp::Pow => {
                let exponent = u32::try_from(b).map_err(|_| {
                    if b < 0 {
                        CoreError::NegativeExponent(b)
                    } else {
                        CoreError::Overflow
                    }
                })?;
                a.checked_pow(exponent).ok_or(CoreError::Overflow)
            }
            BinOp::Add => a.checked_add(b).ok_or(CoreError::Overflow),
            BinOp::Sub => a.checked_sub(b).ok_or(CoreError::Overflow),
            BinOp::Mul => a.checked_mul(b).ok_or(CoreError::Overflow),
            BinOp::Div if b == 0 => Err(CoreError::DivisionByZero),
            BinOp::Div => {
                if a == i64::MIN && b == -1 {
                    return Err(CoreError::Overflow);
                }
                Ok(num_integer::Integer::div_floor(&a, &b))
            }
            BinOp::Quotient if b == 0 => Err(CoreError::DivisionByZero),
            BinOp::Quotient if a.checked_rem(b) == Some(0) => {
                a.checked_div(b).ok_or(CoreError::Overflow)
            }
            BinOp::Quotient => Err(CoreError::Unsupported(
                "a quotient with a fraction is not a whole number",
            )),
        }
    }

    /// The operator as written in Omen's notation.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Pow => "^",
            BinOp::Quotient => "div",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    Ge,
    Gt,
    Le,
    Lt,
    Eq,
    /// `!=` (also `<>`): only between whole expressions, never a compare point.
    Ne,
}

/// A dice term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiceExpr {
    /// The number of dice; `None` for `dX` (one die). Either a number or a parenthesised expression.
    pub count: Option<Expr>,
    pub sides: Spanned<Sides>,
    /// In the order written.
    pub modifiers: Vec<Spanned<Modifier>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sides {
    /// `d6`, `d(1d4*2)`: the expression giving the number of sides (a number literal or a parenthesised expression).
    Number(Expr),
    /// `d%`: 1..=100.
    Percent,
    /// `dF`: -1, 0, +1.
    Fudge,
    /// `d{1,1,2,3}`, `d{-1..1,5}`: each item is one face or an inclusive range of faces.
    Custom(Vec<Spanned<FaceItem>>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaceItem {
    Face(i64),
    /// `lo..hi`, inclusive.
    Range(i64, i64),
}

/// A compare point: `>=8`, `<2`, `=3`, `>=dv`; a bare number `3` means `=3`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComparePoint {
    pub op: CompareOp,
    pub value: PointValue,
}

/// The value a compare point compares with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PointValue {
    /// A number written out, e.g. the `8` of `>=8` or the `-1` of `>=-1`.
    Int(i64),
    /// A set of faces after a reroll, e.g. the `{2..5}` of `ro{2..5}`: sorted, without repeats, spanning
    /// at most 64 consecutive values (its operator is `=`).
    Faces(Vec<i64>),
    /// A name after a compare operator, e.g. the `dv` of `>=dv` (bound by `param`, `let` or a function
    /// parameter); it must hold a number when the dice are rolled.
    Name(Spanned<String>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Modifier {
    /// `!` (explode on the maximum face, `point` is `None`), `!>=5`, `!5`; `!!…` when `compound`.
    Explode {
        compound: bool,
        point: Option<ComparePoint>,
        /// `!o` (Foundry's `xo`, Avrae's `ra`, Dice Maiden's `e`): each die explodes at most once.
        once: bool,
        /// `!p`, `!!p` (penetrating): each extra roll counts one less than it shows.
        penetrate: bool,
    },
    /// The `a` of `3d6ro1!a`, right after its explosion: the dice the explosion adds are plain dice,
    /// so the steps written before `!` shape the first roll only (Foundry's reading of `3d6r1x`).
    PlainAdded,
    /// `ro<=2`: reroll once.
    RerollOnce(ComparePoint),
    /// `rr<=2` (and `r<=2`): reroll until the condition no longer holds.
    RerollRecursive(ComparePoint),
    /// `min3`: each die below 3 counts as 3.
    ClampMin(i64),
    /// `max5`: each die above 5 counts as 5.
    ClampMax(i64),
    /// `khN`, `kN`, `klN`, `dhN`, `dlN`, `dN` (after a dice term, `d` is `dl`); `count` is 1 when omitted.
    Keep { which: KeepWhich, count: i64 },
    /// `k{h1, l1}`: keep the highest `highest` and the lowest `lowest` dice together (Avrae's
    /// `kh1kl1`), both ends of the roll; `d{h1, l1}` (`drop`) drops them together (Avrae's `pl1ph1`).
    /// Each end takes the earliest of equal dice, so among ties both may take the same die.
    KeepEnds {
        highest: i64,
        lowest: i64,
        drop: bool,
    },
    /// A compare point right after a dice term or group: count the dice (members) meeting it.
    Success(ComparePoint),
    /// `f<=1`, `f1` (meaning `f=1`): subtract the dice (members) meeting it from the count.
    Failure(ComparePoint),
    /// `cs>=19`, `cf1`, bare `cs`/`cf` (the highest/lowest face): mark critical successes (failures)
    /// in the transcript; the total is unchanged.
    Critical {
        failure: bool,
        point: Option<ComparePoint>,
    },
    /// `sa`, `sd`: show the dice sorted (ascending, descending) in the transcript.
    Sort { descending: bool },
    /// `m`, `m3`, `m>=4`: mark the kept dice that match (a set of at least `size` dice, 2 when
    /// left out, showing one value that meets the point); `mt…` makes the result the number of sets.
    Match {
        total: bool,
        size: Option<i64>,
        point: Option<ComparePoint>,
    },
    /// `u`, `u=5`: roll a die again while its value is taken by an earlier die (and meets the point);
    /// `uo…` rolls it again once.
    Unique {
        once: bool,
        point: Option<ComparePoint>,
    },
}

impl Modifier {
    /// The compare point the modifier is written with, if any.
    pub fn point(&self) -> Option<&ComparePoint> {
        match self {
            Modifier::Explode { point, .. } => point.as_ref(),
            Modifier::RerollOnce(p)
            | Modifier::RerollRecursive(p)
            | Modifier::Success(p)
            | Modifier::Failure(p) => Some(p),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepWhich {
    KeepHighest,
    KeepLowest,
    DropHighest,
    DropLowest,
    /// Keep the middle N (`km`).
    KeepMiddle,
}

/// `{a, b, …}` and its modifiers (only keep/drop and counting are allowed on groups; the checker says so).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupExpr {
    pub members: Vec<Expr>,
    pub modifiers: Vec<Spanned<Modifier>>,
}

impl From<Expr> for Script {
    /// A plain expression is a script with no statements.
    fn from(body: Expr) -> Self {
        Script {
            items: Vec::new(),
            body,
        }
    }
}

//! The checked, lowered program: what both interpreters (`sample` and `exact`) run.
//!
//! Lowering resolves the notation's shorthands (`d%`, `dF`, `kN`, `dN`, bare compare points), puts each
//! dice term's modifiers in evaluation order (per-die steps as written, then keep/drop, then counting),
//! resolves names to slots, checks what can be known before any dice are rolled, and folds constants.
//! A script's statements become nested `Let` nodes around its final expression.

use omen_core::{Compare, Condition, Die, DieStep, Keep, Matching, Unique};

use crate::span::Span;
use crate::syntax::ast::BinOp;
use crate::value::Value;

/// `floor`, `ceil`, `round` and `sign` of a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    Floor,
    Ceil,
    /// To the nearest whole number, halves up (towards +∞: `round(-5/2)` is −2), as JavaScript's
    /// `Math.round`, which Roll20's and Foundry's `round` are.
    Nearest,
    /// −1, 0 or 1.
    Sign,
}

impl Rounding {
    /// The function's name in Omen's notation.
    pub fn name(self) -> &'static str {
        match self {
            Rounding::Floor => "floor",
            Rounding::Ceil => "ceil",
            Rounding::Nearest => "round",
            Rounding::Sign => "sign",
        }
    }
}

/// What is known about a node's value before running it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// A number: whole, or a fraction where real division or a decimal made one.
    Int,
    Bool,
    Text,
    Tuple,
    /// Not known until run (a variable, a call, a branch); checked when the value exists.
    Any,
}

impl Type {
    /// How the type reads in an error message.
    pub fn describe(self) -> &'static str {
        match self {
            Type::Int => "a number",
            Type::Bool => "true/false",
            Type::Text => "a label",
            Type::Tuple => "a tuple",
            Type::Any => "a value",
        }
    }

    /// Whether a value of this type could be a number.
    pub fn may_be_int(self) -> bool {
        matches!(self, Type::Int | Type::Any)
    }

    pub fn of(value: &Value) -> Type {
        match value {
            Value::Int(_) | Value::Ratio(_) => Type::Int,
            Value::Bool(_) => Type::Bool,
            Value::Text(_) => Type::Text,
            Value::Tuple(_) => Type::Tuple,
        }
    }
}

/// A checked program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub source: String,
    pub root: Node,
    /// User functions, in declaration order; a function may call itself and those declared before it.
    pub functions: Vec<Function>,
    /// The script's parameters with the values they took.
    pub params: Vec<(String, Value)>,
    /// The labels the script writes, each once, in the order it first writes them: the order its
    /// outcomes are listed in, since a label has no order of its own (see [`crate::labels`]).
    pub labels: Vec<Value>,
}

impl Program {
    /// How deep calls of the user's functions can nest (0 without functions), or `None` when a
    /// function calls itself: a caller that runs programs on a stack of bounded size (Python's
    /// main thread) knows from it that no recursion can go deep. A function calls only itself and
    /// those declared before it, so the calls form no other cycle.
    pub fn call_depth(&self) -> Option<usize> {
        let mut depths: Vec<usize> = Vec::with_capacity(self.functions.len());
        for (i, function) in self.functions.iter().enumerate() {
            let mut deepest = 0;
            let mut itself = false;
            calls(&function.body, &mut |f| {
                if f == i {
                    itself = true;
                } else if let Some(&d) = depths.get(f) {
                    deepest = deepest.max(d);
                }
            });
            if itself {
                return None;
            }
            depths.push(deepest + 1);
        }
        let mut deepest = 0;
        calls(&self.root, &mut |f| {
            deepest = deepest.max(depths.get(f).copied().unwrap_or(0));
        });
        Some(deepest)
    }
}

/// Each function `node` calls (or runs as a process's step), one call at a time.
fn calls(node: &Node, found: &mut dyn FnMut(usize)) {
    match &node.kind {
        NodeKind::Call(f, _) | NodeKind::Process { function: f, .. } => found(*f),
        NodeKind::Pool(pool) => {
            for reading in &pool.readings {
                match reading.kind {
                    ReadingKind::Fold { step, finish } => {
                        found(step);
                        finish.into_iter().for_each(&mut *found);
                    }
                    ReadingKind::Score(f) | ReadingKind::Kept(f) => found(f),
                    _ => {}
                }
            }
        }
        _ => {}
    }
    node.each_operand(&mut |n| calls(n, found));
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub span: Span,
    pub params: Vec<String>,
    /// How many top-level slots (parameters and `let`s) were declared before the function: its
    /// frame starts with them, then its own parameters.
    pub globals: usize,
    pub body: Node,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub span: Span,
    pub ty: Type,
    pub kind: NodeKind,
}

impl Node {
    /// The nodes this one computes from directly, in order: the operands of an operation, a
    /// binding's value and body, a condition and its branches, a call's arguments, a process's start
    /// and steps, a group's members. A dice term has none here: what its count, sides and points
    /// mean differs from one walk to another, so each walk that cares looks at them itself.
    pub fn operands(&self) -> Vec<&Node> {
        let mut out = Vec::new();
        self.each_operand(&mut |n| out.push(n));
        out
    }

    /// [`Self::operands`] one by one, without collecting them: a walk that runs once per outcome
    /// (the machine's frame, a joint's cost) allocates nothing.
    pub fn each_operand<'a>(&'a self, f: &mut dyn FnMut(&'a Node)) {
        match &self.kind {
            NodeKind::Const(_) | NodeKind::Var(..) | NodeKind::Dice(_) | NodeKind::InTurn(_) => {}
            NodeKind::Group(g) => g.members.iter().for_each(f),
            NodeKind::InTurnSet(s) => s.members.iter().for_each(f),
            NodeKind::FoundryRolled(t) => {
                f(&t.count);
                t.sides.iter().for_each(f);
            }
            NodeKind::Let { value, body, .. } => {
                f(value);
                f(body);
            }
            NodeKind::Neg(x)
            | NodeKind::Abs(x)
            | NodeKind::Round(_, x)
            | NodeKind::Label(_, x)
            | NodeKind::Field(x, _)
            | NodeKind::Not(x) => f(x),
            NodeKind::Binary(_, a, b)
            | NodeKind::Compare(_, a, b)
            | NodeKind::And(a, b)
            | NodeKind::Or(a, b) => {
                f(a);
                f(b);
            }
            NodeKind::Min(xs) | NodeKind::Max(xs) | NodeKind::Tuple(xs) | NodeKind::Call(_, xs) => {
                xs.iter().for_each(f);
            }
            NodeKind::If(c, a, b) => {
                f(c);
                f(a);
                f(b);
            }
            NodeKind::Match(x, arms) => {
                f(x);
                arms.iter().for_each(|(_, n)| f(n));
            }
            NodeKind::Process { start, steps, .. } => {
                f(start);
                if let Some(steps) = steps {
                    f(steps);
                }
            }
            NodeKind::Pool(pool) => pool.operands().into_iter().for_each(f),
        }
    }
}

/// Which long-run question a process asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessQuery {
    /// The state after n steps (`after(step, start, n)`).
    After,
    /// The absorbing state reached, with the expected number of steps (`absorb(step, start)`).
    Absorb,
    /// The long-run frequencies of the states (`stationary(step, start)`).
    Stationary,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Const(Value),
    /// A slot in the current frame.
    Var(usize, String),
    /// Rolls `value` once and binds it in `slot` for `body`.
    Let {
        slot: usize,
        name: String,
        value: Box<Node>,
        body: Box<Node>,
    },
    Dice(Box<DiceNode>),
    Group(Box<GroupNode>),
    Neg(Box<Node>),
    Binary(BinOp, Box<Node>, Box<Node>),
    Compare(Compare, Box<Node>, Box<Node>),
    Min(Vec<Node>),
    Max(Vec<Node>),
    Abs(Box<Node>),
    /// `floor`, `ceil`, `round`, `sign` of a number: a whole number.
    Round(Rounding, Box<Node>),
    Label(String, Box<Node>),
    Tuple(Vec<Node>),
    Field(Box<Node>, usize),
    If(Box<Node>, Box<Node>, Box<Node>),
    Match(Box<Node>, Vec<(Pattern, Node)>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Not(Box<Node>),
    /// A call of user function `function` (an index into `Program::functions`).
    Call(usize, Vec<Node>),
    /// A Markov process: `function` maps a state to its random next state.
    Process {
        query: ProcessQuery,
        function: usize,
        start: Box<Node>,
        steps: Option<Box<Node>>,
    },
    /// A pool rolled once: its value is the tuple of its readings, computed jointly.
    Pool(Box<PoolNode>),
    /// Avrae's dice operations applied in turn (`avrae("4d6kh3e6ro1")`), or Foundry's modifiers
    /// (`foundry("3d6max5xkh2")`): the total kept.
    InTurn(Box<InTurnNode>),
    /// A d20 set's keeps and drops applied in turn (`avrae_set((1, 2, 3), "k1kh1")`): the total of
    /// the members kept.
    InTurnSet(Box<InTurnSetNode>),
    /// Foundry's term whose count or sides are rolled first (`(1d4)d6xkh2`), then run as
    /// [`NodeKind::InTurn`] with what they showed.
    FoundryRolled(Box<FoundryRolledNode>),
}

/// A Foundry dice term whose count or sides are rolled before its dice, as Foundry rolls a
/// parenthesised number or sides first; its modifiers then run in turn on that many dice of that
/// many sides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundryRolledNode {
    /// The term as written, for transcripts.
    pub notation: String,
    pub count: Node,
    /// The number of sides; `None` for Fate dice (`(1d4)dFr`).
    pub sides: Option<Node>,
    /// The modifiers as written: read again for each number of sides, since a bare `x` or `cs`
    /// means the highest face.
    pub modifiers: String,
}

impl FoundryRolledNode {
    /// The term run once the count and sides are known.
    ///
    /// # Errors
    /// Where and why: sides past the limits at the sides, a count past them at the count, modifiers
    /// the term cannot take at `span`, the term's.
    pub fn term(
        &self,
        count: i64,
        sides: Option<i64>,
        span: Span,
        limits: &omen_core::Limits,
    ) -> Result<omen_core::foundry::FoundryTerm, (Span, omen_core::CoreError)> {
        let die = match sides {
            Some(sides) => Die::standard(sides, limits),
            None => Die::custom(vec![-1, 0, 1], limits),
        };
        let die = die.map_err(|e| (self.sides.as_ref().map_or(span, |n| n.span), e))?;
        let count = limits.check_dice(count).map_err(|e| (self.count.span, e))?;
        // The checker read the modifiers whole; only their default points depend on the sides.
        let (modifiers, _) =
            crate::syntax::foundry_terms::modifiers_at(&self.modifiers, sides.unwrap_or(3))
                .map_err(|_| {
                    (
                        span,
                        omen_core::CoreError::Unsupported("modifiers not read"),
                    )
                })?;
        let term = omen_core::foundry::FoundryTerm {
            count: count as u64,
            die,
            modifiers,
        };
        term.check().map_err(|e| (span, e))?;
        Ok(term)
    }
}

/// The members of a d20 set, each rolled once, then its keeps and drops in turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InTurnSetNode {
    pub members: Vec<Node>,
    pub steps: Vec<omen_core::in_turn::Step>,
}

impl InTurnSetNode {
    /// The total of the members showing `values` that the keeps and drops leave, and which those
    /// are, for both interpreters.
    ///
    /// # Errors
    /// `Unsupported` for a fraction among the values, `Overflow`.
    pub fn total(&self, values: &[Value]) -> Result<(i64, Vec<bool>), omen_core::CoreError> {
        let whole: Vec<i64> = values
            .iter()
            .map(|v| match v {
                Value::Int(n) => Ok(*n),
                _ => Err(omen_core::CoreError::Unsupported(
                    "fractions among the members of a set kept or dropped in turn",
                )),
            })
            .collect::<Result<_, _>>()?;
        omen_core::in_turn::kept_total(&whole, &self.steps)
    }
}

/// A dice term whose modifiers run in turn, each on what the ones before left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InTurnNode {
    /// The term in its roller's notation, for transcripts.
    pub notation: String,
    pub term: InTurnTerm,
}

/// Whose procedure runs the term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InTurnTerm {
    /// Avrae's d20 library: operations on the dice kept so far.
    D20(omen_core::in_turn::InTurn),
    /// Foundry's `Die`: modifiers over the results in the order rolled.
    Foundry(omen_core::foundry::FoundryTerm),
}

impl InTurnTerm {
    /// The exact distribution of the total and the mass an explosion depth cut off.
    ///
    /// # Errors
    /// What the procedure's walk gives.
    pub fn distribution(
        &self,
        limits: &omen_core::Limits,
        budget: &mut omen_core::Budget,
    ) -> Result<(omen_core::Distribution<i64>, omen_core::Probability), omen_core::CoreError> {
        match self {
            InTurnTerm::D20(t) => t.distribution(limits, budget),
            InTurnTerm::Foundry(t) => t.distribution(limits, budget),
        }
    }

    /// One roll: the total and each die with its marks.
    ///
    /// # Errors
    /// What the procedure or the source gives.
    pub fn roll(
        &self,
        limits: &omen_core::Limits,
        source: &mut dyn omen_core::DieSource,
    ) -> Result<(i64, Vec<omen_core::RolledDie>), omen_core::CoreError> {
        match self {
            InTurnTerm::D20(t) => omen_core::in_turn::roll(t, limits, source),
            InTurnTerm::Foundry(t) => omen_core::foundry::roll(t, limits, source),
        }
    }

    /// How many dice are rolled first, and of what kind.
    pub fn dice(&self) -> (u64, &omen_core::Die) {
        match self {
            InTurnTerm::D20(t) => (t.count, &t.die),
            InTurnTerm::Foundry(t) => (t.count, &t.die),
        }
    }
}

/// A checked `match` pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    Any,
    Value(Value),
    /// Inclusive bounds; `None` is unbounded.
    Range(Option<i64>, Option<i64>),
    Tuple(Vec<Pattern>),
    Or(Vec<Pattern>),
}

impl Pattern {
    pub fn matches(&self, v: &Value) -> bool {
        match (self, v) {
            (Pattern::Any, _) => true,
            (Pattern::Value(p), v) => p == v,
            (Pattern::Range(lo, hi), x) if x.is_number() => {
                lo.is_none_or(|lo| *x >= Value::Int(lo)) && hi.is_none_or(|hi| *x <= Value::Int(hi))
            }
            (Pattern::Range(..), _) => false,
            (Pattern::Tuple(ps), Value::Tuple(vs)) => {
                ps.len() == vs.len() && ps.iter().zip(vs.iter()).all(|(p, v)| p.matches(v))
            }
            (Pattern::Tuple(_), _) => false,
            (Pattern::Or(ps), v) => ps.iter().any(|p| p.matches(v)),
        }
    }
}

/// The sides of a dice term: a die known before rolling, or a number of sides known only when run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SidesNode {
    Fixed(Die),
    Random(Node),
}

/// Which compare point of a dice term or group a name fills in when the program runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointTarget {
    Explode,
    /// The reroll at this index of `before`.
    Before(usize),
    /// The reroll at this index of `after`.
    After(usize),
    Success,
    Failure,
}

/// Puts `value` into the condition a point target names.
fn fill(
    target: PointTarget,
    value: i64,
    before: &mut [DieStep],
    explosion: &mut Option<(bool, Option<Condition>)>,
    after: &mut [DieStep],
    success: &mut Option<Condition>,
    failure: &mut Option<Condition>,
) {
    let set = |c: &mut Condition| c.value = value;
    let set_step = |s: &mut DieStep| match s {
        DieStep::RerollOnce(c) | DieStep::RerollUntil(c) => c.value = value,
        DieStep::ClampMin(_) | DieStep::ClampMax(_) => {}
    };
    match target {
        PointTarget::Explode => {
            if let Some((_, Some(c))) = explosion {
                set(c);
            }
        }
        PointTarget::Before(i) => set_step(&mut before[i]),
        PointTarget::After(i) => set_step(&mut after[i]),
        PointTarget::Success => success.iter_mut().for_each(set),
        PointTarget::Failure => failure.iter_mut().for_each(set),
    }
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
    /// Each die explodes at most once (`!o`): the depth is 1 whatever the limit, and reaching it is
    /// the meaning, not a cut-off.
    pub explode_once: bool,
    /// Each extra roll counts one less (`!p`, `!!p`).
    pub penetrate: bool,
    /// The steps before the explosion shape each die's first roll only; the dice it adds are plain
    /// (`!a`).
    pub first_only: bool,
    /// `cs`: mark the dice meeting this condition as critical successes in the transcript (`Some(None)`:
    /// the highest face). The total is unchanged.
    pub critical_success: Option<Option<Condition>>,
    /// `cf`: the same for critical failures (`Some(None)`: the lowest face).
    pub critical_failure: Option<Option<Condition>>,
    /// `sa` (false), `sd` (true): show the dice sorted in the transcript.
    pub sort: Option<bool>,
    /// `m`, `mt`: mark the kept dice in sets of matching values; `mt` counts the sets.
    pub matching: Option<Matching>,
    /// `u`, `uo`: roll a die again while (once if) an earlier die took its value.
    pub unique: Option<Unique>,
    pub after: Vec<DieStep>,
    pub keep: Keep,
    /// `k{h1, l1}`: keep both ends instead of `keep` (which is then `All`).
    pub ends: Option<crate::keep_ends::KeepEnds>,
    pub success: Option<Condition>,
    pub failure: Option<Condition>,
    /// Compare points written with a name (`>=dv`): each fills in one condition when run.
    pub points: Vec<(PointTarget, Node)>,
    /// Where the success point starts in `notation`, to print the term without it.
    pub success_at: Option<usize>,
}

impl DiceNode {
    /// This term with its named compare points filled in by `values`, in the order of `points`.
    pub fn resolved(&self, values: &[i64]) -> DiceNode {
        let mut d = self.clone();
        for (&(target, _), &v) in self.points.iter().zip(values) {
            fill(
                target,
                v,
                &mut d.before,
                &mut d.explosion,
                &mut d.after,
                &mut d.success,
                &mut d.failure,
            );
        }
        d.points.clear();
        d
    }
}

/// `{a, b, …}` with keep/drop and counting over its members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupNode {
    pub members: Vec<Node>,
    pub keep: Keep,
    pub success: Option<Condition>,
    pub failure: Option<Condition>,
    /// Compare points written with a name, as for dice.
    pub points: Vec<(PointTarget, Node)>,
}

impl GroupNode {
    /// This group with its named compare points filled in by `values`.
    pub fn resolved(&self, values: &[i64]) -> GroupNode {
        let mut g = self.clone();
        for (&(target, _), &v) in self.points.iter().zip(values) {
            fill(
                target,
                v,
                &mut [],
                &mut None,
                &mut [],
                &mut g.success,
                &mut g.failure,
            );
        }
        g.points.clear();
        g
    }

    pub fn score(&self, value: i64) -> i64 {
        omen_core::count_score(self.success, self.failure, value)
    }
}

/// A pool and the readings the script takes of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolNode {
    pub source: PoolSource,
    pub readings: Vec<ReadingNode>,
}

/// What the pool holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoolSource {
    Dice(Vec<PoolMember>),
    /// `count` cards drawn without replacement from `deck`, a one-die term whose faces (as listed,
    /// repeats included) are the cards.
    Draw {
        count: Node,
        deck: Node,
    },
    /// Genesys dice: how many of each.
    Symbols(Vec<(i64, &'static omen_core::symbols::SymbolDie)>),
    /// `reroll(p, f)`, `reroll(p, f, n)`: the dice of another pool with those `f` chooses rolled
    /// again. `kept` is that pool's [`ReadingKind::Kept`] reading (see [`crate::pool::Kept`]);
    /// `dice` holds one die of each of its kinds, as the kinds are numbered there, each rerolled
    /// die rolled as its kind.
    Reroll {
        kept: Node,
        dice: Vec<Node>,
    },
}

/// Dice of one kind in a pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoolMember {
    /// A dice term without keep, counting or explosion (`3d6`, `2d8ro1`): its dice, each one die of
    /// the pool. The node is the term (a `NodeKind::Dice`), sampled as written.
    Dice(Node),
    /// `count` rolls of `roll`, each one die of the pool whose faces are the roll's outcomes.
    Repeat { count: Node, roll: Node },
}

/// One reading of a pool and its arguments (a compare point's value, a number of dice, a target).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadingNode {
    pub kind: ReadingKind,
    pub args: Vec<Node>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadingKind {
    /// `count(p, >=5)`: how many dice meet the point.
    Count(crate::syntax::ast::CompareOp),
    /// `sum(p)`.
    Sum,
    /// `highest(p)`, `highest(p, k)`: the highest die, the sum of the k highest.
    Highest,
    /// `lowest(p)`, `lowest(p, k)`.
    Lowest,
    /// `nth(p, k)`: the k-th highest die (0 when the pool has fewer).
    Nth,
    /// `nth_lowest(p, k)`.
    NthLowest,
    /// `highest_count(p)`: how many dice show the highest face shown.
    HighestCount,
    /// `distinct(p)`: how many different faces are shown.
    Distinct,
    /// `width(p)`: the most dice showing one face (the widest set).
    Width,
    /// `height(p)`: the face of the widest set, the highest of those as wide.
    Height,
    /// `run(p)`: the most consecutive faces each shown (a straight's length).
    Run,
    /// `raises(p, 10)`: the most groups of dice each summing to the target or more (7th Sea).
    Raises,
    /// `symbols(p)`: (net successes, net advantages, triumphs, despairs) of a Genesys pool.
    Symbols,
    /// `fold(p, step, start)`, `fold(p, step, start, finish)`: the designer's own reading, the
    /// functions `step(state, face, count)` over the faces shown, ascending, then `finish(state)`
    /// (indices into `Program::functions`). The reading's one argument is the start.
    Fold { step: usize, finish: Option<usize> },
    /// `score(p, f)`: Σ f(die) over the dice, `f` a function of one face.
    Score(usize),
    /// What `reroll(p, f)` reads of `p`: the dice `f` keeps with their kinds, and how many of each
    /// kind it rerolls (see [`crate::pool::Kept`]); the reading's one argument, when given, is the
    /// most dice it rerolls (`reroll(p, f, n)`).
    Kept(usize),
    /// `effect(p, k)`: Cortex Prime's effect die, the size of the largest die left once the `k`
    /// highest are taken for the total, dice showing 1 left out (see [`crate::pool::effect`]).
    Effect,
}

impl PoolNode {
    /// The nodes the pool computes from: its members' counts and rolls, and its readings' arguments.
    pub fn operands(&self) -> Vec<&Node> {
        let mut out: Vec<&Node> = Vec::new();
        match &self.source {
            PoolSource::Dice(members) => {
                for member in members {
                    match member {
                        PoolMember::Dice(term) => out.push(term),
                        PoolMember::Repeat { count, roll } => out.extend([count, roll]),
                    }
                }
            }
            PoolSource::Draw { count, deck } => out.extend([count, deck]),
            PoolSource::Symbols(_) => {}
            PoolSource::Reroll { kept, dice } => {
                out.push(kept);
                out.extend(dice);
            }
        }
        out.extend(self.readings.iter().flat_map(|r| r.args.iter()));
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::{Options, compile};

    fn depth(script: &str) -> Option<usize> {
        let checked = compile(script, &Options::default()).unwrap_or_else(|_| panic!("{script}"));
        checked.program.call_depth()
    }

    #[test]
    fn call_depth_counts_nested_calls_and_refuses_a_function_calling_itself() {
        assert_eq!(depth("3d6"), Some(0));
        assert_eq!(depth("fn f(x) = x + 1; f(d6)"), Some(1));
        assert_eq!(
            depth("fn f(x) = x + 1; fn g(x) = f(x) * 2; g(d6) + f(1)"),
            Some(2)
        );
        // Reached through a pool's reading (a fold's step) and a process's step.
        assert_eq!(
            depth("fn f(x) = x + 1; fn s(t, x, n) = t + f(n); fold(pool 3d6, s, 0)"),
            Some(2)
        );
        assert_eq!(
            depth("fn s(x) = if x >= 10 then x else x + d6; absorb(s, 0)"),
            Some(1)
        );
        assert_eq!(
            depth("fn f(n) = if n <= 0 then 0 else 1 + f(n - 1); f(3)"),
            None
        );
        // A function never called is still counted: it is part of the program.
        assert_eq!(depth("fn f(n) = if n <= 0 then 0 else f(n - 1); 1"), None);
    }
}

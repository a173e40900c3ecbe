//! The sampling interpreter: one roll of a program, with every die and every subtotal kept.

use std::collections::HashMap;

use omen_core::{
    Budget, CoreError, Die, DieSource, Limits, Mark, PoolRoll, RolledDie, SAMPLE_DIE_COST,
    SAMPLE_STEP_COST, select_kept,
};
use serde::Serialize;

use crate::diagnostic::{Diagnostic, core_diagnostic, kind_error};
use crate::exact::{call_distribution, field, pool_spec, recursion_error};
use crate::group_scale;
use crate::number::NumberError;
use crate::program::{
    DiceNode, GroupNode, Node, NodeKind, PointTarget, ProcessQuery, Program, SidesNode,
};
use crate::span::Span;
use crate::value::Value;

mod operators;
mod pool;

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
    /// A value written in the program (a number, true/false, a label).
    Constant,
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
    /// A name's value (rolled where it was bound).
    Var {
        name: String,
    },
    /// `let name = value` then the rest, which sees that one roll.
    Let {
        name: String,
        bound: Box<RollNode>,
        body: Box<RollNode>,
    },
    /// `if`: the condition and the branch it chose.
    If {
        condition: Box<RollNode>,
        branch: Box<RollNode>,
    },
    /// `match`: the value, the arm it took (from 0), and that arm's result.
    Match {
        scrutinee: Box<RollNode>,
        arm: usize,
        body: Box<RollNode>,
    },
    Tuple {
        members: Vec<RollNode>,
    },
    Field {
        inner: Box<RollNode>,
        index: usize,
    },
    /// A user function: its arguments and the roll of its body.
    Apply {
        function: String,
        args: Vec<RollNode>,
        body: Box<RollNode>,
    },
    /// A process: the start and every step taken.
    Process {
        query: &'static str,
        start: Box<RollNode>,
        steps: Vec<RollNode>,
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
        Mark::Matched => "matched",
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

/// A die source that pays for every die from the roll's work budget, so that no roll (exploding,
/// rerolling or recursing) can roll dice without bound.
struct PaidDice<'a> {
    inner: &'a mut dyn DieSource,
    budget: &'a mut Budget,
    /// The fewest bytes the roll's tree prints as JSON so far: see [`TREE_NODE_BYTES`].
    kept: u64,
}

/// The fewest bytes one node of a roll's tree prints in the JSON transcript (the smallest,
/// `{"span":{"start":0,"end":1},"value":1,"node":"constant"}`, takes 56). The tree is the
/// transcript, so it may not grow past what `max_output` lets the transcript print, and it is
/// stopped while it grows: before, a doubly recursive function (`f(20)`) held its whole work
/// budget's worth of nodes, over 600 MB, before the budget stopped it. A roll whose JSON fits the
/// limit is refused by this count only where many of its dice were rerolled (see
/// [`TREE_DIE_BYTES`]).
const TREE_NODE_BYTES: u64 = 48;

/// About the fewest bytes one rolled die prints in the JSON transcript (`{"value":4,"marks":[]}`,
/// 22). An explosion adds a die and counts again; so does a reroll, though it adds only a roll to
/// its die's `rolls` (as few as two bytes), so a roll of many rerolled dice counts more than it
/// prints. That errs toward holding less.
const TREE_DIE_BYTES: u64 = 16;

impl DieSource for PaidDice<'_> {
    fn roll(&mut self, die: &Die) -> Result<i64, CoreError> {
        self.budget.spend(SAMPLE_DIE_COST)?;
        self.kept += TREE_DIE_BYTES;
        self.inner.roll(die)
    }
}

/// Rolls a checked program once.
///
/// # Errors
/// A diagnostic at the node that failed: the dice source ran out or gave a value that is not a face, a
/// random dice count was negative or over the limit, a division by zero, an overflow, a value of the
/// wrong kind, runaway recursion, the work budget (every step and every die is paid for), a process
/// that takes more than `max_process_steps` steps, nesting past [`crate::MAX_NESTING`].
pub fn sample(
    program: &Program,
    limits: &Limits,
    source: &mut dyn DieSource,
) -> Result<Roll, Diagnostic> {
    sample_with_budget(program, limits, source, &mut limits.budget())
}

/// [`sample`], spending from a budget the caller holds (shared by several rolls, or read after).
///
/// # Errors
/// As [`sample`]; the work budget is the one given.
pub fn sample_with_budget(
    program: &Program,
    limits: &Limits,
    source: &mut dyn DieSource,
    budget: &mut Budget,
) -> Result<Roll, Diagnostic> {
    let tree = Sampler {
        program,
        limits,
        source: PaidDice {
            inner: source,
            budget,
            kept: 0,
        },
        env: Vec::new(),
        depth: 0,
        nesting: 0,
        absorbing: HashMap::new(),
    }
    .node(&program.root)?;
    Ok(Roll {
        expression: program.source.clone(),
        result: tree.value.clone(),
        tree,
    })
}

struct Sampler<'a> {
    program: &'a Program,
    limits: &'a Limits,
    source: PaidDice<'a>,
    env: Vec<Value>,
    depth: usize,
    /// Nodes on the evaluation's path (every call's body included), against [`crate::MAX_NESTING`].
    nesting: usize,
    /// Whether a process state is absorbing, found exactly once per state.
    absorbing: HashMap<(usize, Value), bool>,
}

fn int(node: &RollNode, what: &str) -> Result<i64, Diagnostic> {
    match &node.value {
        Value::Int(n) => Ok(*n),
        other => Err(kind_error(node.span, what, "a whole number", other)),
    }
}

/// The error of a function of one number, at its operand.
fn unary_error(e: NumberError, operand: &RollNode, what: &str, whole: Span) -> Diagnostic {
    match e {
        NumberError::NotNumber { got, .. } => kind_error(operand.span, what, "a number", &got),
        e => e.diagnostic(what, operand.span, operand.span, whole),
    }
}

fn boolean(node: &RollNode, what: &str) -> Result<bool, Diagnostic> {
    match &node.value {
        Value::Bool(b) => Ok(*b),
        other => Err(kind_error(node.span, what, "true/false", other)),
    }
}

impl Sampler<'_> {
    fn node(&mut self, node: &Node) -> Result<RollNode, Diagnostic> {
        if self.nesting >= crate::MAX_NESTING {
            return Err(crate::nesting_error(node.span));
        }
        self.source
            .budget
            .spend(SAMPLE_STEP_COST)
            .map_err(|e| core_diagnostic(&e, node.span))?;
        self.source.kept += TREE_NODE_BYTES;
        if self.source.kept > self.limits.max_output {
            return Err(tree_too_large(self.limits.max_output, node.span));
        }
        self.nesting += 1;
        let r = self.node_inner(node);
        self.nesting -= 1;
        r
    }

    fn node_inner(&mut self, node: &Node) -> Result<RollNode, Diagnostic> {
        let span = node.span;
        let (value, kind) = match &node.kind {
            NodeKind::Const(v) => (v.clone(), RollKind::Constant),
            NodeKind::Var(slot, name) => (
                self.env[*slot].clone(),
                RollKind::Var { name: name.clone() },
            ),
            NodeKind::Let {
                slot,
                name,
                value,
                body,
            } => self.binding(*slot, name, value, body)?,
            NodeKind::Label(label, inner) => {
                let inner = self.node(inner)?;
                (
                    inner.value.clone(),
                    RollKind::Label {
                        label: label.clone(),
                        inner: Box::new(inner),
                    },
                )
            }
            NodeKind::Neg(inner) | NodeKind::Abs(inner) => {
                self.negate(matches!(node.kind, NodeKind::Neg(_)), inner, span)?
            }
            NodeKind::Round(how, inner) => self.round(*how, inner, span)?,
            NodeKind::Binary(op, l, r) => self.binary(*op, l, r, span)?,
            NodeKind::Compare(op, l, r) => self.compare(*op, l, r, span)?,
            NodeKind::And(l, r) | NodeKind::Or(l, r) => {
                self.and_or(matches!(node.kind, NodeKind::And(..)), l, r)?
            }
            NodeKind::Not(inner) => {
                let inner = self.node(inner)?;
                let b = boolean(&inner, "the operand of `not`")?;
                (
                    Value::Bool(!b),
                    RollKind::Unary {
                        op: "not",
                        operand: Box::new(inner),
                    },
                )
            }
            NodeKind::Min(args) | NodeKind::Max(args) => {
                self.min_max(matches!(node.kind, NodeKind::Min(_)), args)?
            }
            NodeKind::Tuple(items) => {
                let members: Vec<RollNode> = items
                    .iter()
                    .map(|i| self.node(i))
                    .collect::<Result<_, _>>()?;
                let value = Value::Tuple(members.iter().map(|m| m.value.clone()).collect());
                (value, RollKind::Tuple { members })
            }
            NodeKind::Field(inner, index) => {
                let inner = self.node(inner)?;
                let v = field(&inner.value, *index, span)?;
                (
                    v,
                    RollKind::Field {
                        inner: Box::new(inner),
                        index: *index,
                    },
                )
            }
            NodeKind::If(c, a, b) => self.branch(c, a, b)?,
            NodeKind::Match(x, arms) => self.match_arm(x, arms, span)?,
            NodeKind::Call(f, args) => self.apply(*f, args, span)?,
            NodeKind::Process {
                query,
                function,
                start,
                steps,
            } => self.process(span, *query, *function, start, steps.as_deref())?,
            NodeKind::Dice(dice) => self.dice(span, dice)?,
            NodeKind::Group(group) => self.group(group)?,
            NodeKind::Pool(pool) => self.pool(span, pool)?,
            NodeKind::InTurn(term) => self.in_turn(span, term)?,
            NodeKind::InTurnSet(set) => self.in_turn_set(span, set)?,
            NodeKind::FoundryRolled(term) => self.foundry_rolled(span, term)?,
        };
        Ok(RollNode { span, value, kind })
    }

    fn call(&mut self, f: usize, args: &[Value], span: Span) -> Result<RollNode, Diagnostic> {
        let function = &self.program.functions[f];
        if self.depth as u64 >= self.limits.max_call_depth {
            return Err(recursion_error(
                span,
                &function.name,
                self.limits.max_call_depth,
            ));
        }
        let mut frame: Vec<Value> = self.env[..function.globals].to_vec();
        frame.extend_from_slice(args);
        self.depth += 1;
        let saved = std::mem::replace(&mut self.env, frame);
        let r = self.node(&function.body);
        self.env = saved;
        self.depth -= 1;
        r
    }

    fn process(
        &mut self,
        span: Span,
        query: ProcessQuery,
        function: usize,
        start: &Node,
        steps: Option<&Node>,
    ) -> Result<(Value, RollKind), Diagnostic> {
        let start = self.node(start)?;
        let mut state = start.value.clone();
        let mut taken = Vec::new();
        let name = match query {
            ProcessQuery::After => "after",
            ProcessQuery::Absorb => "absorb",
            ProcessQuery::Stationary => {
                return Err(Diagnostic::error(
                    "cannot-roll",
                    span,
                    "a stationary distribution is a long-run average; it has no single roll",
                )
                .with_help("use `omen prob` for it, or roll `after(step, start, n)` for n steps"));
            }
        };
        match query {
            ProcessQuery::After => {
                let n_node = steps.expect("checked: after has a step count");
                let n = self.node(n_node)?;
                let n = int(&n, "the number of steps")?;
                if n < 0 {
                    return Err(Diagnostic::error(
                        "negative-steps",
                        n_node.span,
                        format!("cannot take {n} steps"),
                    ));
                }
                self.limits
                    .check_process_steps(n as u128)
                    .map_err(|e| core_diagnostic(&e, n_node.span))?;
                for _ in 0..n {
                    let step = self.call(function, std::slice::from_ref(&state), span)?;
                    state = step.value.clone();
                    taken.push(step);
                }
            }
            _ => loop {
                if self.is_absorbing(function, &state, span)? {
                    break;
                }
                if taken.len() as u64 >= self.limits.max_process_steps {
                    return Err(too_many_steps(span, self.limits.max_process_steps));
                }
                let step = self.call(function, std::slice::from_ref(&state), span)?;
                state = step.value.clone();
                taken.push(step);
            },
        }
        Ok((
            state,
            RollKind::Process {
                query: name,
                start: Box::new(start),
                steps: taken,
            },
        ))
    }

    /// A state is absorbing when its step returns it unchanged for certain.
    fn is_absorbing(&mut self, f: usize, state: &Value, span: Span) -> Result<bool, Diagnostic> {
        if let Some(&known) = self.absorbing.get(&(f, state.clone())) {
            return Ok(known);
        }
        let globals = &self.env[..self.program.functions[f].globals];
        let next = call_distribution(
            self.program,
            self.limits,
            self.source.budget,
            self.nesting,
            globals,
            f,
            std::slice::from_ref(state),
            span,
        )?;
        let absorbing = next.len() == 1 && next.min_outcome() == state;
        self.absorbing.insert((f, state.clone()), absorbing);
        Ok(absorbing)
    }

    /// The values of a term's named compare points.
    fn point_values(&mut self, points: &[(PointTarget, Node)]) -> Result<Vec<i64>, Diagnostic> {
        points
            .iter()
            .map(|(_, node)| {
                let n = self.node(node)?;
                int(&n, "a compare point")
            })
            .collect()
    }

    fn dice(&mut self, span: Span, dice: &DiceNode) -> Result<(Value, RollKind), Diagnostic> {
        if !dice.points.is_empty() {
            let values = self.point_values(&dice.points)?;
            return self.dice(span, &dice.resolved(&values));
        }
        let count = self.node(&dice.count)?;
        let (die, sides) = match &dice.sides {
            SidesNode::Fixed(d) => (d.clone(), None),
            SidesNode::Random(n) => {
                let s = self.node(n)?;
                let die = Die::standard(int(&s, "the number of sides")?, self.limits)
                    .map_err(|e| core_diagnostic(&e, n.span))?;
                (die, Some(Box::new(s)))
            }
        };
        let spec = pool_spec(
            dice,
            die.clone(),
            int(&count, "the number of dice")?,
            self.limits,
            dice.count.span,
        )?;
        let mut pool = spec
            .roll(&mut self.source)
            .map_err(|e| core_diagnostic(&e, span))?;
        if let Some(ends) = dice.ends {
            crate::keep_ends::mark(&mut pool, ends).map_err(|e| core_diagnostic(&e, span))?;
        }
        let PoolRoll {
            dice: rolled,
            total,
        } = pool;
        let mut views: Vec<DieView> = rolled.iter().map(DieView::from).collect();
        let faces = die.distribution();
        let marks = [
            (
                dice.critical_success,
                *faces.max_outcome(),
                "critical-success",
            ),
            (
                dice.critical_failure,
                *faces.min_outcome(),
                "critical-failure",
            ),
        ];
        for (point, face, mark) in marks {
            let Some(point) = point else { continue };
            let c = point.unwrap_or(omen_core::Condition::new(omen_core::Compare::Eq, face));
            for (view, rolled) in views.iter_mut().zip(&rolled) {
                if rolled.in_pool() && c.holds(rolled.value) {
                    view.marks.push(mark);
                }
            }
        }
        match dice.sort {
            Some(false) => views.sort_by_key(|v| v.value),
            Some(true) => views.sort_by_key(|v| std::cmp::Reverse(v.value)),
            None => {}
        }
        Ok((
            Value::Int(total),
            RollKind::Dice {
                notation: dice.notation.clone(),
                die: die.to_string(),
                count: Box::new(count),
                sides,
                dice: views,
            },
        ))
    }

    /// A term whose modifiers run in turn: its dice with what each modifier did to them.
    fn in_turn(
        &mut self,
        span: Span,
        term: &crate::program::InTurnNode,
    ) -> Result<(Value, RollKind), Diagnostic> {
        let (total, rolled) = term
            .term
            .roll(self.limits, &mut self.source)
            .map_err(|e| core_diagnostic(&e, span))?;
        let (count, die) = term.term.dice();
        let count = RollNode {
            span,
            value: Value::Int(count as i64),
            kind: RollKind::Constant,
        };
        Ok((
            Value::Int(total),
            RollKind::Dice {
                notation: term.notation.clone(),
                die: die.to_string(),
                count: Box::new(count),
                sides: None,
                dice: rolled.iter().map(DieView::from).collect(),
            },
        ))
    }

    /// A Foundry term with a rolled count or sides: those rolled first, then the term in turn.
    fn foundry_rolled(
        &mut self,
        span: Span,
        term: &crate::program::FoundryRolledNode,
    ) -> Result<(Value, RollKind), Diagnostic> {
        let count = self.node(&term.count)?;
        let sides = term.sides.as_ref().map(|n| self.node(n)).transpose()?;
        let k = int(&count, "the number of dice")?;
        let s = sides
            .as_ref()
            .map(|s| int(s, "the number of sides"))
            .transpose()?;
        let built = term
            .term(k, s, span, self.limits)
            .map_err(|(at, e)| core_diagnostic(&e, at))?;
        let (total, rolled) = omen_core::foundry::roll(&built, self.limits, &mut self.source)
            .map_err(|e| core_diagnostic(&e, span))?;
        // Sides written as a number are part of the notation, not a roll to show.
        let shown = term
            .sides
            .as_ref()
            .is_some_and(|n| !matches!(n.kind, NodeKind::Const(_)));
        let sides = sides.filter(|_| shown).map(Box::new);
        Ok((
            Value::Int(total),
            RollKind::Dice {
                notation: term.notation.clone(),
                die: built.die.to_string(),
                count: Box::new(count),
                sides,
                dice: rolled.iter().map(DieView::from).collect(),
            },
        ))
    }

    /// A d20 set: its members rolled, then its keeps and drops in turn.
    fn in_turn_set(
        &mut self,
        span: Span,
        set: &crate::program::InTurnSetNode,
    ) -> Result<(Value, RollKind), Diagnostic> {
        let members: Vec<RollNode> = set
            .members
            .iter()
            .map(|m| self.node(m))
            .collect::<Result<_, _>>()?;
        let values: Vec<Value> = members.iter().map(|m| m.value.clone()).collect();
        let (total, kept) = set.total(&values).map_err(|e| core_diagnostic(&e, span))?;
        Ok((Value::Int(total), RollKind::Group { members, kept }))
    }

    fn group(&mut self, group: &GroupNode) -> Result<(Value, RollKind), Diagnostic> {
        if !group.points.is_empty() {
            let values = self.point_values(&group.points)?;
            return self.group(&group.resolved(&values));
        }
        let members: Vec<RollNode> = group
            .members
            .iter()
            .map(|m| self.node(m))
            .collect::<Result<_, _>>()?;
        // Fractions are kept and added as whole numbers scaled by their common denominator (see
        // `group_scale`); a group that counts successes compares whole members.
        let scale = if group.success.is_some() || group.failure.is_some() {
            1
        } else {
            group_scale::common_denominator(members.iter().map(|m| &m.value)).unwrap_or(1)
        };
        let values: Vec<i64> = members
            .iter()
            .map(|m| match scale {
                1 => int(m, "a group member"),
                scale => group_scale::scaled(&m.value, scale)
                    .ok_or_else(|| core_diagnostic(&CoreError::Overflow, m.span)),
            })
            .collect::<Result<_, _>>()?;
        let kept = select_kept(&values, group.keep);
        let mut total: i64 = 0;
        for (v, k) in values.iter().zip(&kept) {
            if *k {
                total = total
                    .checked_add(group.score(*v))
                    .ok_or_else(|| core_diagnostic(&CoreError::Overflow, Span::default()))?;
            }
        }
        let total = match scale {
            1 => Value::Int(total),
            scale => group_scale::unscaled(total, scale),
        };
        Ok((total, RollKind::Group { members, kept }))
    }
}

fn too_many_steps(span: Span, limit: u64) -> Diagnostic {
    Diagnostic::error(
        "too-many-steps",
        span,
        format!("the process ran {limit} steps without reaching a state it stays in"),
    )
    .with_help(
        "raise --max-process-steps if it is only slow to settle; `omen prob` gives the exact \
         absorption without rolling it",
    )
}

/// The roll's tree outgrew what its transcript may print: stopped while it grows, before it is held.
fn tree_too_large(limit: u64, span: Span) -> Diagnostic {
    Diagnostic::error(
        "too-much-output",
        span,
        format!("the roll's transcript would print more than {limit} bytes (the limit)"),
    )
    .with_help("roll fewer dice, recurse less or take a shorter process, or raise --max-output")
}

//! The exact engine's readings written by the designer: `fold(p, step, start)` (with an optional
//! `finish`) and `score(p, f)`.
//!
//! A fold's functions are the script's own, and the core's walk ([`omen_core::multiset::read`])
//! cannot call the evaluator while it walks. So a fold is computed in two passes. First its states
//! are explored face by face, as the walk will place the dice: each (state, dice still to place) is
//! visited once, and each transition (state, face, count) → state is computed once, by calling the
//! script's function, and kept in a table. Then the walk reads the pool through the table, beside
//! the builtin readings, so every reading stays joint. The work grows with the fold's distinct
//! states, never with the rolls; each state and each transition pays the work budget, and a fold
//! whose states pass the limits is refused with its name and how far it got.

use std::collections::{BTreeMap, BTreeSet};

use num_traits::ToPrimitive;
use omen_core::multiset::{Group, Reading, Readings};
use omen_core::{CoreError, Distribution};

use super::{Evaluator, NODE_COST};
use crate::diagnostic::{Diagnostic, core_diagnostic, kind_error};
use crate::program::{ReadingKind, ReadingNode};
use crate::span::Span;
use crate::value::Value;

/// What the exploration pays for each split of a state's remaining dice it tries, besides the
/// transition itself: a set insertion of a small value and a vector.
const SPLIT_COST: u64 = 50;

/// The transitions of every fold reading of one pool.
pub(super) struct FoldTable {
    /// Every face some die of the pool can show, ascending.
    outcomes: Vec<i64>,
    /// One entry per reading of the pool: `None` for a builtin reading.
    folds: Vec<Option<Fold>>,
}

/// One fold's start and, for each face, (state, dice showing it) → the next state.
struct Fold {
    start: Value,
    steps: Vec<BTreeMap<(Value, usize), Value>>,
}

/// How a fold moves from one state to the next.
enum Rule {
    /// The script's `step(state, face, count)`.
    Step(usize),
    /// `state + count · score(face)`, the scores of the faces computed once.
    Score(BTreeMap<i64, i64>),
}

impl FoldTable {
    /// The state after `count` dice show `outcome`, for the fold of reading `i`.
    pub(super) fn next(
        &self,
        i: usize,
        state: &Value,
        outcome: i64,
        count: usize,
    ) -> Option<Value> {
        if count == 0 {
            return Some(state.clone());
        }
        let at = self.outcomes.binary_search(&outcome).ok()?;
        let fold = self.folds.get(i)?.as_ref()?;
        fold.steps[at].get(&(state.clone(), count)).cloned()
    }

    /// The start of the fold of reading `i`.
    pub(super) fn start(&self, i: usize) -> Option<Value> {
        Some(self.folds.get(i)?.as_ref()?.start.clone())
    }

    /// A fold's final state over a multiset listed as (face, how many) ascending.
    pub(super) fn run(&self, i: usize, multiset: &[(i64, usize)]) -> Option<Value> {
        let mut state = self.folds.get(i)?.as_ref()?.start.clone();
        for &(outcome, count) in multiset {
            state = self.next(i, &state, outcome, count)?;
        }
        Some(state)
    }
}

impl Evaluator<'_> {
    /// The transitions of the pool's folds, explored face by face from each fold's start (`args`
    /// holds each reading's argument values; a fold's first is its start), the dice of each group
    /// being one of `starts` (an exploding pool's several sizes) or else the groups' counts.
    pub(super) fn fold_table(
        &mut self,
        span: Span,
        groups: &[Group],
        starts: Option<&[Vec<usize>]>,
        readings: &[ReadingNode],
        args: &[Vec<Value>],
    ) -> Result<FoldTable, Diagnostic> {
        let mut outcomes: Vec<i64> = groups
            .iter()
            .filter(|g| g.count > 0)
            .flat_map(|g| g.die.outcomes().copied())
            .collect();
        outcomes.sort_unstable();
        outcomes.dedup();
        let mut folds = Vec::with_capacity(readings.len());
        for (reading, a) in readings.iter().zip(args) {
            let (rule, start, name) = match reading.kind {
                ReadingKind::Fold { step, .. } => (
                    Rule::Step(step),
                    a.first().cloned().unwrap_or(Value::Int(0)),
                    step,
                ),
                ReadingKind::Score(f) => (
                    Rule::Score(self.scores(f, &outcomes, span)?),
                    Value::Int(0),
                    f,
                ),
                _ => {
                    folds.push(None);
                    continue;
                }
            };
            let name = self.program.functions[name].name.clone();
            let counts = [groups.iter().map(|g| g.count).collect()];
            let starts = starts.unwrap_or(&counts);
            let fold = self.explore(span, (groups, starts), &outcomes, start, &rule, &name)?;
            folds.push(Some(fold));
        }
        Ok(FoldTable { outcomes, folds })
    }

    /// `f(face)` for every face, each a whole number.
    fn scores(
        &mut self,
        f: usize,
        outcomes: &[i64],
        span: Span,
    ) -> Result<BTreeMap<i64, i64>, Diagnostic> {
        let mut out = BTreeMap::new();
        for &x in outcomes {
            let value = self.fold_call(f, &[Value::Int(x)], span)?;
            let Value::Int(score) = value else {
                let name = &self.program.functions[f].name;
                return Err(kind_error(
                    span,
                    &format!("the score `{name}({x})`"),
                    "a whole number",
                    &value,
                ));
            };
            out.insert(x, score);
        }
        Ok(out)
    }

    /// `f(face)` for every face, each true/false: whether `reroll` rolls a die showing it again.
    pub(super) fn choices(
        &mut self,
        f: usize,
        outcomes: &[i64],
        span: Span,
    ) -> Result<BTreeMap<i64, bool>, Diagnostic> {
        let mut out = BTreeMap::new();
        for &x in outcomes {
            let value = self.fold_call(f, &[Value::Int(x)], span)?;
            let Value::Bool(again) = value else {
                let name = &self.program.functions[f].name;
                return Err(kind_error(
                    span,
                    &format!("the choice `{name}({x})`"),
                    "true/false",
                    &value,
                ));
            };
            out.insert(x, again);
        }
        Ok(out)
    }

    /// One call of a fold's function, which gives one value for certain (the checker saw that it
    /// rolls no dice).
    fn fold_call(&mut self, f: usize, args: &[Value], span: Span) -> Result<Value, Diagnostic> {
        let e = self.call(f, args, span)?;
        if e.dist.len() != 1 {
            let name = &self.program.functions[f].name;
            return Err(Diagnostic::error(
                "fold-function-rolls",
                span,
                format!("`{name}` gave more than one value for the same arguments"),
            )
            .with_help(
                "a fold's functions say what dice already rolled mean; roll nothing in them",
            ));
        }
        Ok(e.dist.min_outcome().clone())
    }

    /// The fold's reachable states, face by face, with every transition the walk will take.
    fn explore(
        &mut self,
        span: Span,
        (groups, starts): (&[Group], &[Vec<usize>]),
        outcomes: &[i64],
        start: Value,
        rule: &Rule,
        name: &str,
    ) -> Result<Fold, Diagnostic> {
        let mut frontier: BTreeSet<(Value, Vec<usize>)> = BTreeSet::new();
        for counts in starts {
            frontier.insert((start.clone(), counts.clone()));
        }
        let mut steps = Vec::with_capacity(outcomes.len());
        // A step of numbers runs on the machine; any other, or an error, through the evaluator.
        let mut compiled = match rule {
            Rule::Step(f) => self.compile_call(*f, &[start.clone(), Value::Int(0), Value::Int(0)]),
            Rule::Score(_) => None,
        };
        for &outcome in outcomes {
            let refusal = |e: CoreError, states: usize| {
                named(core_diagnostic(&e, span), name, states, outcome)
            };
            self.limits
                .check_states(frontier.len() as u128)
                .map_err(|e| refusal(e, frontier.len()))?;
            let mut table: BTreeMap<(Value, usize), Value> = BTreeMap::new();
            let mut next: BTreeSet<(Value, Vec<usize>)> = BTreeSet::new();
            for (state, left) in &frontier {
                for (after, count) in splits(groups, outcome, left) {
                    self.budget
                        .spend(SPLIT_COST)
                        .map_err(|e| refusal(e, frontier.len()))?;
                    let to = if count == 0 {
                        state.clone()
                    } else if let Some(v) = table.get(&(state.clone(), count)) {
                        v.clone()
                    } else {
                        self.budget
                            .spend(NODE_COST)
                            .map_err(|e| refusal(e, frontier.len()))?;
                        let args = [state.clone(), Value::Int(outcome), Value::Int(count as i64)];
                        let v = match compiled.as_mut().and_then(|c| c.call(&args)) {
                            Some(v) => v,
                            None => self
                                .transition(rule, state, outcome, count, span)
                                .map_err(|d| named(d, name, frontier.len(), outcome))?,
                        };
                        table.insert((state.clone(), count), v.clone());
                        v
                    };
                    next.insert((to, after));
                }
            }
            steps.push(table);
            frontier = next;
        }
        Ok(Fold { start, steps })
    }

    fn transition(
        &mut self,
        rule: &Rule,
        state: &Value,
        outcome: i64,
        count: usize,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        match rule {
            Rule::Step(f) => {
                let args = [state.clone(), Value::Int(outcome), Value::Int(count as i64)];
                self.fold_call(*f, &args, span)
            }
            Rule::Score(scores) => {
                let Value::Int(sum) = state else {
                    return Err(kind_error(span, "a score", "a whole number", state));
                };
                let score = scores.get(&outcome).copied().unwrap_or(0);
                (count as i64)
                    .checked_mul(score)
                    .and_then(|x| x.checked_add(*sum))
                    .map(Value::Int)
                    .ok_or_else(|| core_diagnostic(&CoreError::Overflow, span))
            }
        }
    }
}

/// A limit met inside a fold's function, with the fold's name and how far it got: the function's
/// own error is about its body, but the cause is the number of states.
fn named(d: Diagnostic, name: &str, states: usize, outcome: i64) -> Diagnostic {
    if matches!(d.kind, "work-budget" | "too-many-states") {
        d.with_help(format!(
            "the fold `{name}` held {states} different states by the face {outcome}; \
             keep in its state only what its result needs, or raise the limit"
        ))
    } else {
        d
    }
}

/// The ways the dice `left` of each group can show `outcome`, as the walk splits them: (dice left
/// after, how many show it). A group whose die cannot show it places none; a group at its highest
/// face places all it has left; cards cannot show a face more often than the deck holds copies.
fn splits(groups: &[Group], outcome: i64, left: &[usize]) -> Vec<(Vec<usize>, usize)> {
    let mut out = vec![(left.to_vec(), 0usize)];
    for (g, group) in groups.iter().enumerate() {
        let m = left[g];
        let weight = group.die.weight(&outcome);
        let cap = if group.drawn {
            weight.to_usize().unwrap_or(usize::MAX)
        } else if weight == num_traits::Zero::zero() {
            0
        } else {
            usize::MAX
        };
        let first = if *group.die.max_outcome() == outcome {
            m
        } else {
            0
        };
        let last = m.min(cap);
        let mut grown = Vec::new();
        for (after, shown) in &out {
            for j in first..=last {
                let mut a = after.clone();
                a[g] = m - j;
                grown.push((a, shown + j));
            }
        }
        out = grown;
    }
    out
}

/// The builtin readings and the folds of one pool, folded together in the core's walk.
pub(super) struct Joint<'t> {
    pub builtins: Readings,
    pub table: &'t FoldTable,
}

impl Reading for Joint<'_> {
    type State = (Vec<i64>, Vec<Value>);
    type Value = (Vec<i64>, Vec<Value>);

    fn initial(&self, dice: usize) -> Self::State {
        let folds = self
            .table
            .folds
            .iter()
            .flatten()
            .map(|f| f.start.clone())
            .collect();
        (self.builtins.initial(dice), folds)
    }

    fn next(
        &self,
        state: &Self::State,
        outcome: i64,
        count: usize,
    ) -> Result<Self::State, CoreError> {
        let builtins = self.builtins.next(&state.0, outcome, count)?;
        let mut folds = Vec::with_capacity(state.1.len());
        let indices = self
            .table
            .folds
            .iter()
            .enumerate()
            .filter(|(_, f)| f.is_some());
        for ((i, _), s) in indices.zip(&state.1) {
            // The exploration took every transition the walk can take; a miss cannot happen.
            let to = self
                .table
                .next(i, s, outcome, count)
                .ok_or(CoreError::Empty)?;
            folds.push(to);
        }
        Ok((builtins, folds))
    }

    fn finish(&self, state: &Self::State) -> Self::Value {
        (self.builtins.finish(&state.0), state.1.clone())
    }
}

impl Evaluator<'_> {
    /// The readings' joint distribution from the walk's (builtin values, fold states): one value
    /// per reading in the script's order, each fold's state through its `finish` when it has one.
    /// `skip` builtin values at the front were added for the walk's sake.
    pub(super) fn assemble(
        &mut self,
        span: Span,
        d: Distribution<(Vec<i64>, Vec<Value>)>,
        readings: &[ReadingNode],
        skip: usize,
    ) -> Result<Distribution<Vec<Value>>, Diagnostic> {
        let joined = d.map_into(|(builtins, folds)| {
            let mut builtins = builtins.into_iter().skip(skip);
            let mut folds = folds.into_iter();
            readings
                .iter()
                .map(|r| match r.kind {
                    ReadingKind::Fold { .. } | ReadingKind::Score(_) => {
                        folds.next().unwrap_or(Value::Int(0))
                    }
                    _ => Value::Int(builtins.next().unwrap_or(0)),
                })
                .collect::<Vec<Value>>()
        });
        self.finish_folds(span, joined, readings)
    }

    /// Each fold's final state through its `finish`, called once per distinct final state.
    pub(super) fn finish_folds(
        &mut self,
        span: Span,
        d: Distribution<Vec<Value>>,
        readings: &[ReadingNode],
    ) -> Result<Distribution<Vec<Value>>, Diagnostic> {
        let mut d = d;
        for (i, reading) in readings.iter().enumerate() {
            let ReadingKind::Fold {
                finish: Some(f), ..
            } = reading.kind
            else {
                continue;
            };
            let mut finished: BTreeMap<Value, Value> = BTreeMap::new();
            for v in d.outcomes() {
                if !finished.contains_key(&v[i]) {
                    let out = self.fold_call(f, std::slice::from_ref(&v[i]), span)?;
                    finished.insert(v[i].clone(), out);
                }
            }
            d = d.map_into(|mut v| {
                if let Some(out) = finished.get(&v[i]) {
                    v[i] = out.clone();
                }
                v
            });
        }
        Ok(d)
    }
}

//! Calls: a signature matched by its words, each argument coerced by its parameter's type, and the
//! call expanded over a die's outcomes (`:n`) or a collection's sorted rolls (`:s`): the body runs
//! once per combination (the first parameter varying fastest), all in one frame shared by the
//! iterations, and the results are folded into one die weighted by each combination's chance (a
//! sequence result summed, an empty die dropped and the rest renormalised).

use std::collections::BTreeMap;
use std::rc::Rc;

use num_traits::{One, Zero};
use omen_core::{Distribution, Probability, Weight};

use super::ast::{CallPart, Kind};
use super::error::{Run, calculation_error};
use super::interp::{Callable, Flow, Interp};
use super::pool;
use super::value::{Fault, Frame, Outcome, Val, sum};
use crate::diagnostic::Diagnostic;
use crate::span::Span;

/// An argument after coercion: one value, or the values the call expands over with their weights.
enum Coerced {
    Fixed(Val),
    Expand(Vec<(Val, Weight)>),
}

/// A function's parameters: names (none for the library's) and types.
fn kinds(callable: &Callable) -> Vec<Kind> {
    match callable {
        Callable::User(f) => f.params.iter().map(|p| p.kind).collect(),
        Callable::Library(l) => l.kinds().to_vec(),
    }
}

impl Interp {
    pub fn call(&mut self, parts: &[CallPart], span: Span, frame: &Frame) -> Run<Val> {
        let mut words = Vec::with_capacity(parts.len());
        let mut args = Vec::new();
        for part in parts {
            match part {
                CallPart::Word(w) => words.push(w.as_str()),
                CallPart::Arg(e) => {
                    words.push("?");
                    args.push(self.eval(e, frame)?);
                }
            }
        }
        let signature = words.join(" ");
        let Some(callable) = self.functions.get(&signature).cloned() else {
            return Err(self.no_match(&signature, span));
        };
        if matches!(callable, Callable::User(_)) && self.call_depth >= self.settings.function_depth
        {
            // AnyDice's rule: past the maximum depth a call gives the empty die without running.
            self.truncated += 1;
            self.truncated_at.get_or_insert(span);
            self.affected = Probability::one();
            return Ok(Val::Empty);
        }
        self.enter(span)?;
        let result = self.apply(&callable, args, span, frame);
        self.leave();
        result
    }

    fn no_match(&self, signature: &str, span: Span) -> Diagnostic {
        let closest = self
            .functions
            .keys()
            .min_by_key(|k| (edit_distance(k, signature), (*k).clone()));
        let d = calculation_error(
            span,
            Fault::calculation(format!(
                "I cannot find a function that matches [{signature}]"
            )),
        );
        match closest {
            Some(c) => d.with_help(format!("the closest function is [{c}]")),
            None => d,
        }
    }

    fn apply(
        &mut self,
        callable: &Callable,
        args: Vec<Val>,
        span: Span,
        frame: &Frame,
    ) -> Run<Val> {
        let at = |f: Fault| calculation_error(span, f);
        // A body that reads its collection only as a pool evaluator can is answered without
        // running it once per sorted roll (pool_call.rs); any other body is enumerated below.
        if let Some(v) = self.read_pool_call(callable, &args, frame).map_err(at)? {
            return Ok(v);
        }
        let kinds = kinds(callable);
        let mut coerced = Vec::with_capacity(args.len());
        let mut sum_result = false;
        for (kind, arg) in kinds.iter().zip(args) {
            if *kind == Kind::Number && matches!(arg, Val::Sequence(_)) {
                sum_result = true;
            }
            coerced.push(self.coerce(*kind, arg).map_err(at)?);
        }
        let expanded: Vec<usize> = (0..coerced.len())
            .filter(|&i| matches!(coerced[i], Coerced::Expand(_)))
            .collect();
        if expanded.is_empty() {
            let values = coerced
                .into_iter()
                .map(|c| match c {
                    Coerced::Fixed(v) => v,
                    Coerced::Expand(_) => unreachable!("none expanded"),
                })
                .collect::<Vec<_>>();
            let mut shared = self.frame_for(callable, &values, frame).map_err(at)?;
            let v = self.body(callable, &values, &mut shared, span)?;
            return match v {
                Val::Sequence(s) if sum_result => Ok(Val::Number(sum(&s).map_err(at)?)),
                v => Ok(v),
            };
        }
        self.expand(callable, coerced, &expanded, span, frame)
    }

    /// The frame a call runs in: a copy of the caller's, with the parameters set.
    fn frame_for(&mut self, callable: &Callable, values: &[Val], frame: &Frame) -> Outcome<Frame> {
        let Callable::User(f) = callable else {
            return Ok(Frame::new());
        };
        self.work.pay(frame.len() + values.len())?;
        let mut shared = frame.clone();
        for (p, v) in f.params.iter().zip(values) {
            shared.insert(p.name.clone(), v.clone());
        }
        Ok(shared)
    }

    /// One run of the body: a user function's statements, or the library's code.
    fn body(
        &mut self,
        callable: &Callable,
        values: &[Val],
        shared: &mut Frame,
        span: Span,
    ) -> Run<Val> {
        match callable {
            Callable::User(f) => {
                self.call_depth += 1;
                let flow = self.block(&f.body, shared);
                self.call_depth -= 1;
                Ok(match flow? {
                    Flow::Result(v) => v,
                    Flow::Normal => Val::Empty,
                })
            }
            Callable::Library(l) => self.run_library(*l, values, span),
        }
    }

    fn coerce(&mut self, kind: Kind, arg: Val) -> Outcome<Coerced> {
        Ok(Coerced::Fixed(match (kind, arg) {
            (Kind::Any, v) => v,
            (Kind::Number, Val::Number(n)) => Val::Number(n),
            (Kind::Number, Val::Sequence(s)) => Val::Number(sum(&s)?),
            (Kind::Number, v) => {
                let die = v.to_die(&mut self.work)?;
                let outcomes = die.map_or_else(Vec::new, |d| {
                    d.entries()
                        .iter()
                        .map(|(o, w)| (Val::Number(*o), w.clone()))
                        .collect()
                });
                return Ok(Coerced::Expand(outcomes));
            }
            (Kind::Sequence, Val::Number(n)) => Val::sequence(vec![n]),
            (Kind::Sequence, Val::Sequence(s)) => Val::Sequence(s),
            (Kind::Sequence, Val::Empty) => return Ok(Coerced::Expand(Vec::new())),
            (Kind::Sequence, Val::Die(d, _)) => return self.rolls(&d, 1),
            (Kind::Sequence, Val::Pool { count, die, .. }) => return self.rolls(&die, count),
            (Kind::Die, Val::Number(n)) => Val::die(Distribution::constant(n)),
            (Kind::Die, Val::Sequence(s)) => Val::die(Distribution::constant(sum(&s)?)),
            (Kind::Die, v) => v,
        }))
    }

    fn rolls(&mut self, die: &Distribution<i64>, count: usize) -> Outcome<Coerced> {
        let mut out = Vec::new();
        let highest_first = self.settings.highest_first;
        pool::sorted_rolls(die, count, highest_first, &mut self.work, |roll, w, _| {
            out.push((Val::sequence(roll.to_vec()), w));
            Ok(())
        })?;
        Ok(Coerced::Expand(out))
    }

    /// Runs the body once per combination of the expanded arguments, in AnyDice's order, in one
    /// shared frame, and folds the results.
    fn expand(
        &mut self,
        callable: &Callable,
        coerced: Vec<Coerced>,
        expanded: &[usize],
        span: Span,
        frame: &Frame,
    ) -> Run<Val> {
        let at = |f: Fault| calculation_error(span, f);
        let mut values = Vec::with_capacity(coerced.len());
        let mut choices = Vec::with_capacity(expanded.len());
        for c in coerced {
            match c {
                Coerced::Fixed(v) => values.push(v),
                Coerced::Expand(list) => {
                    values.push(Val::Empty);
                    choices.push(list);
                }
            }
        }
        if choices.iter().any(Vec::is_empty) {
            return Ok(Val::Empty);
        }
        let combinations = choices
            .iter()
            .fold(1u128, |acc, c| acc.saturating_mul(c.len() as u128));
        self.check_combinations(combinations).map_err(at)?;
        let mut shared = self.frame_for(callable, &values, frame).map_err(at)?;
        let mut fold = Fold::default();
        let outer = std::mem::replace(&mut self.affected, Probability::zero());
        let mut affected = Affected::default();
        let mut index = vec![0usize; choices.len()];
        loop {
            self.work.pay(1).map_err(at)?;
            let mut weight = Weight::one();
            for (k, &param) in expanded.iter().enumerate() {
                let (v, w) = &choices[k][index[k]];
                weight *= w;
                values[param] = v.clone();
                if let Some(p) = callable_param(callable, param) {
                    shared.insert(p, v.clone());
                }
            }
            let result = self.body(callable, &values, &mut shared, span)?;
            affected.add(
                &weight,
                std::mem::replace(&mut self.affected, Probability::zero()),
            );
            fold.add(result, weight, self).map_err(at)?;
            // The first parameter varies fastest.
            let Some(k) = (0..index.len()).find(|&k| index[k] + 1 < choices[k].len()) else {
                break;
            };
            index[k] += 1;
            index[..k].iter_mut().for_each(|i| *i = 0);
        }
        // This call's share joins what the caller's value had already met (as if independent).
        let share = affected.share();
        self.affected = &outer + &share - &outer * &share;
        let folded = fold.finish(self).map_err(at)?;
        self.settle(folded, span).map_err(at)
    }

    fn check_combinations(&self, combinations: u128) -> Outcome<()> {
        let limit = self.work.limits.max_outcomes;
        if combinations > limit as u128 {
            return Err(Fault::calculation(format!(
                "this call would run its body {combinations} times (limit {limit})"
            ))
            .with_help("use fewer or smaller dice, or raise --max-outcomes"));
        }
        Ok(())
    }
}

fn callable_param(callable: &Callable, index: usize) -> Option<String> {
    match callable {
        Callable::User(f) => f.params.get(index).map(|p| p.name.clone()),
        Callable::Library(_) => None,
    }
}

/// The iterations' weights and the shares of them a depth cut could change.
#[derive(Default)]
struct Affected {
    total: Weight,
    touched: Option<Probability>,
}

impl Affected {
    fn add(&mut self, weight: &Weight, share: Probability) {
        if !share.is_zero() {
            let part = share * Probability::from_integer(weight.clone());
            self.touched = Some(match self.touched.take() {
                Some(t) => t + part,
                None => part,
            });
        }
        self.total += weight;
    }

    fn share(self) -> Probability {
        match self.touched {
            Some(t) if !self.total.is_zero() => t / Probability::from_integer(self.total),
            _ => Probability::zero(),
        }
    }
}

/// The results of an expanded call, weighed by their combinations.
#[derive(Default)]
struct Fold {
    points: BTreeMap<i64, Weight>,
    dice: Vec<(Weight, Distribution<i64>)>,
}

impl Fold {
    fn add(&mut self, result: Val, weight: Weight, interp: &mut Interp) -> Outcome<()> {
        match result {
            Val::Number(n) => *self.points.entry(n).or_default() += weight,
            Val::Sequence(s) => *self.points.entry(sum(&s)?).or_default() += weight,
            Val::Empty => {}
            other => {
                if let Some(d) = other.to_die(&mut interp.work)? {
                    self.dice.push((weight, Rc::unwrap_or_clone(d)));
                }
            }
        }
        Ok(())
    }

    fn finish(mut self, interp: &mut Interp) -> Outcome<Val> {
        if !self.points.is_empty() {
            let total: Weight = self.points.values().sum();
            let d = Distribution::from_weights(self.points)?;
            self.dice.push((total, d));
        }
        if self.dice.is_empty() {
            return Ok(Val::Empty);
        }
        Ok(Val::die(Distribution::mixture(
            self.dice,
            &mut interp.work.budget,
        )?))
    }
}

/// Levenshtein distance over characters, for naming the closest function. Only the first 100
/// characters of each are compared, so a hostile program's long names cost little.
fn edit_distance(a: &str, b: &str) -> usize {
    let a = &a[..a.char_indices().nth(100).map_or(a.len(), |(i, _)| i)];
    let b: Vec<char> = b.chars().take(100).collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

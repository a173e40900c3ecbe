//! AnyDice's function library, native: matched by signature like the program's own functions (a
//! program's definition with the same words replaces one), its arguments coerced by the same table.

use std::rc::Rc;

use num_traits::{One, Zero};
use omen_core::multiset::Group;
use omen_core::{Distribution, Probability, Weight};

use super::builtin::Library;
use super::error::{Run, calculation_error};
use super::interp::Interp;
use super::pool;
use super::value::{Fault, Outcome, Val};
use crate::diagnostic::Diagnostic;
use crate::span::Span;

impl Interp {
    /// Runs a library function on coerced arguments (numbers for `:n`, sequences for `:s`, dice
    /// for `:d`).
    pub fn run_library(&mut self, which: Library, args: &[Val], span: Span) -> Run<Val> {
        let at = |f: Fault| calculation_error(span, f);
        let number = |i: usize| match &args[i] {
            Val::Number(n) => *n,
            _ => 0,
        };
        let items = |i: usize| match &args[i] {
            Val::Sequence(s) => s.clone(),
            _ => Rc::new(Vec::new()),
        };
        let v = match which {
            Library::Absolute => Val::Number(
                number(0)
                    .checked_abs()
                    .ok_or(Fault::Core(omen_core::CoreError::Overflow))
                    .map_err(at)?,
            ),
            Library::Contains => Val::Number(items(0).contains(&number(1)) as i64),
            Library::Count => {
                let (values, seq) = (items(0), items(1));
                self.work.pay(values.len() * seq.len()).map_err(at)?;
                let n = values
                    .iter()
                    .map(|v| seq.iter().filter(|x| *x == v).count() as i64)
                    .sum();
                Val::Number(n)
            }
            Library::HighestOf => Val::Number(number(0).max(number(1))),
            Library::LowestOf => Val::Number(number(0).min(number(1))),
            Library::Maximum => maximum(&args[0]),
            Library::Reverse => Val::sequence(items(0).iter().rev().copied().collect()),
            Library::Sort => {
                let mut s = items(0).to_vec();
                self.work.pay(s.len()).map_err(at)?;
                s.sort_unstable();
                if self.settings.highest_first {
                    s.reverse();
                }
                Val::sequence(s)
            }
            Library::Explode => return explode(self, args[0].clone(), span),
            Library::Highest | Library::Lowest | Library::Middle => {
                select(which, number(0), args[1].clone(), self).map_err(at)?
            }
            Library::HighestAmong | Library::LowestAmong => {
                among(which, number(0), &args[1..], self).map_err(at)?
            }
        };
        Ok(v)
    }
}

fn maximum(v: &Val) -> Val {
    match v {
        Val::Die(d, _) => Val::Number(*d.max_outcome()),
        Val::Pool { count, die, .. } => {
            Val::Number(die.max_outcome().saturating_mul(*count as i64))
        }
        Val::Number(n) => Val::Number(*n),
        _ => Val::Number(0),
    }
}

/// `[highest N of DICE]`, `[lowest …]`, `[middle …]`: positions counted from the highest die,
/// whatever the position order (the names say which dice they mean).
fn select(which: Library, n: i64, dice: Val, interp: &mut Interp) -> Outcome<Val> {
    let count = match &dice {
        Val::Pool { count, .. } => *count as i64,
        Val::Empty => return Ok(Val::Empty),
        _ => 1,
    };
    let n = n.clamp(0, count);
    let first = match which {
        Library::Highest => 1,
        Library::Lowest => count - n + 1,
        // The dice left out are split with the odd one at the top: middle 1 of 4 is the 2nd.
        _ => (count - n) / 2 + 1,
    };
    let positions: Vec<i64> = (first..first + n).collect();
    pool::at(&positions, dice, true, &mut interp.work)
}

/// `[highest N of A and B]`, `[lowest …]`: the dice of both arguments make one pool (a number is a
/// die of one face, as `:d` makes it), and the N highest or lowest of them are summed, walked
/// outcome by outcome without enumerating rolls. An empty die empties the answer, as it does every
/// selection.
fn among(which: Library, n: i64, dice: &[Val], interp: &mut Interp) -> Outcome<Val> {
    let mut groups = Vec::with_capacity(dice.len());
    for value in dice {
        let (die, count) = match value {
            Val::Die(die, _) => ((**die).clone(), 1),
            Val::Pool { count, die, .. } => ((**die).clone(), *count),
            Val::Number(x) => (Distribution::constant(*x), 1),
            Val::Sequence(items) => (Distribution::constant(super::value::sum(items)?), 1),
            Val::Empty => return Ok(Val::Empty),
        };
        groups.push(Group::dice(die, count));
    }
    let count: usize = groups.iter().map(|g| g.count).sum();
    let n = usize::try_from(n.max(0)).unwrap_or(usize::MAX).min(count);
    let first = match which {
        Library::HighestAmong => 1,
        _ => count - n + 1,
    };
    pool::ranks_of(&groups, first, n, &mut interp.work)
}

/// `[explode DIE]`: roll again on the highest face, at most "explode depth" times, the last
/// highest face kept as it is. The probability of that last roll being the highest face, which
/// AnyDice stops silently, is reported as a warning.
fn explode(interp: &mut Interp, die: Val, span: Span) -> Run<Val> {
    let at = |f: Fault| calculation_error(span, f);
    let Some(die) = die.to_die(&mut interp.work).map_err(at)? else {
        return Ok(Val::Empty);
    };
    let depth = interp.settings.explode_depth;
    let max = *die.max_outcome();
    let w_max = die.weight(&max);
    let rest: Vec<(i64, Weight)> = die
        .entries()
        .iter()
        .filter(|(o, _)| *o != max)
        .cloned()
        .collect();
    let rest_weight: Weight = rest.iter().map(|(_, w)| w).sum();
    let rest = if rest.is_empty() {
        None
    } else {
        Some(Distribution::from_weights(rest).map_err(|e| at(e.into()))?)
    };
    let mut exploded = (*die).clone();
    for _ in 0..depth {
        let shifted = exploded
            .try_map(|x| x.checked_add(max).ok_or(omen_core::CoreError::Overflow))
            .map_err(|e| at(e.into()))?;
        let mut parts = vec![(w_max.clone(), shifted)];
        if let Some(r) = &rest {
            parts.push((rest_weight.clone(), r.clone()));
        }
        exploded =
            Distribution::mixture(parts, &mut interp.work.budget).map_err(|e| at(e.into()))?;
    }
    let p = Probability::new(w_max, die.total().clone());
    let cut = num_traits::pow(p, depth as usize + 1);
    if !cut.is_zero() && interp.warnings.iter().all(|w| w.span != span) {
        interp.warnings.push(cut_warning(span, depth, &cut));
    }
    Ok(Val::die(exploded))
}

fn cut_warning(span: Span, depth: u64, cut: &Probability) -> Diagnostic {
    let always = cut.is_one();
    let message = if always {
        format!(
            "this die always shows its highest face, so it explodes every time; \"explode depth\" {depth} stops it"
        )
    } else {
        format!(
            "\"explode depth\" {depth} stops the explosion with probability {cut}: the last roll showed the highest face and was not rolled again (AnyDice cuts this silently)"
        )
    };
    Diagnostic::warning("explode-depth-cut", span, message)
        .with_help("raise it with `set \"explode depth\" to N` to cut less")
}

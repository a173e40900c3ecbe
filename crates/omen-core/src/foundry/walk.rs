//! The exact walk of a Foundry term: every list of active results, with its probability.
//!
//! A list's order matters only to a capped reroll or explosion, which spends its cap on the
//! earliest results meeting its point. Up to the last capped modifier the walk keeps each list in
//! blocks in list order (see [`super::blocks`]); after it, and throughout a term with no cap, it
//! keeps the results sorted by face, results of one face in the order rolled. That is enough:
//! without a cap each result meets a reroll or explosion on its own, and a keep or drop tells
//! results apart by face, taking the earlier of equal faces first, and equal faces are in the order
//! rolled either way (new results go after the others).

use std::collections::BTreeMap;

use num_traits::{One, Zero};

use super::alone::Alone;
use super::blocks::{self, BlockStates};
use super::step::{STATE_COST, Step, Walk};
use super::{FoundryTerm, Modifier, Rolled, discarded};
use crate::distribution::{Distribution, Probability, from_probabilities};
use crate::error::CoreError;
use crate::in_turn::with_fresh_after;
use crate::limits::{Budget, Limits};
use crate::part;

type States = Walk<Vec<Rolled>>;

/// The walk's states: in blocks up to the last capped step, one list sorted by face after it.
enum Stage {
    Blocks(BlockStates),
    Sorted(States),
}

impl FoundryTerm {
    /// The exact distribution of the term's total, and the probability that a chain of rerolls or
    /// explosions was stopped at `limits.explode_depth` generations while results still met it.
    ///
    /// # Errors
    /// As [`FoundryTerm::check`]; `TooManyStates`, `WorkBudget`, `Cancelled`, `Overflow`.
    pub fn distribution(
        &self,
        limits: &Limits,
        budget: &mut Budget,
    ) -> Result<(Distribution<i64>, Probability), CoreError> {
        self.check()?;
        if self.count > 0 && self.die_by_die() {
            return self.sum_of_dice(limits, budget);
        }
        let faces = self.faces();
        let last_capped = self.modifiers.iter().rposition(Modifier::capped);
        let ordered = |i: usize| last_capped.is_some_and(|last| i <= last);
        let new: Vec<Rolled> = faces.iter().map(|&f| Rolled::new(f)).collect();
        let mut states: States = BTreeMap::from([(Vec::new(), Probability::one())]);
        for _ in 0..self.count {
            states = grow(&states, &new, |r| r.face, limits, budget)?;
        }
        let mut stage = if ordered(0) {
            Stage::Blocks(states.into_iter().map(|(k, p)| (vec![k], p)).collect())
        } else {
            Stage::Sorted(states)
        };
        let mut cut = Probability::zero();
        for (i, m) in self.modifiers.iter().enumerate() {
            let (next, lost) = step(stage, m, &faces, ordered(i + 1), limits, budget)?;
            stage = next;
            cut += lost;
        }
        let Stage::Sorted(states) = stage else {
            unreachable!("past the last capped step the walk is sorted")
        };
        let mut totals: BTreeMap<i64, Probability> = BTreeMap::new();
        for (results, p) in states {
            let sum = results
                .iter()
                .try_fold(0i64, |t, r| t.checked_add(r.counted()))
                .ok_or(CoreError::Overflow)?;
            *totals
                .entry(self.with_margin(sum)?)
                .or_insert_with(Probability::zero) += p;
        }
        Ok((from_probabilities(totals, budget)?, cut))
    }
}

impl FoundryTerm {
    /// Whether each die and the results it rolls meet the modifiers on their own: with no keep or
    /// drop (which compare the dice) and no cap (which the earliest results spend), a reroll,
    /// explosion, clamp or count checks each result by its face alone, and a die's new results
    /// meet only what comes after the modifier that rolled them, whatever the other dice do.
    fn die_by_die(&self) -> bool {
        !self
            .modifiers
            .iter()
            .any(|m| m.capped() || matches!(m, Modifier::Keep { .. } | Modifier::Drop { .. }))
    }

    /// The total as the sum of alike dice, each followed alone (see [`super::alone`]), the margin
    /// then taken from the sum; a die's chain cut at the depth cuts the sum.
    fn sum_of_dice(
        &self,
        limits: &Limits,
        budget: &mut Budget,
    ) -> Result<(Distribution<i64>, Probability), CoreError> {
        let die = Alone::new(self, limits, budget).die()?;
        let (sum, cut) = part::sum_of(&die, self.count, limits, budget)?;
        Ok((sum.try_map(|&s| self.with_margin(s))?, cut))
    }
}

/// One modifier on every state; `in_order` when a capped step follows it.
fn step(
    stage: Stage,
    m: &Modifier,
    faces: &[i64],
    in_order: bool,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<(Stage, Probability), CoreError> {
    let walked = m.step();
    let (next, cut) = match (stage, walked) {
        (Stage::Blocks(states), Some(step)) if step.cap.is_some() => {
            let (next, cut) = blocks::drawing(&states, faces, step, in_order, limits, budget)?;
            (Stage::Blocks(next), cut)
        }
        (Stage::Blocks(states), Some(step)) => {
            let (next, cut) = blocks::by_rounds(&states, faces, step, limits, budget)?;
            (Stage::Blocks(next), cut)
        }
        (Stage::Blocks(states), None) => (
            Stage::Blocks(blocks::each_state(&states, m, limits, budget)?),
            Probability::zero(),
        ),
        (Stage::Sorted(states), Some(step)) => {
            let (next, cut) = by_rounds(&states, faces, step, limits, budget)?;
            (Stage::Sorted(next), cut)
        }
        (Stage::Sorted(states), None) => (
            Stage::Sorted(each_state(&states, m, budget)?),
            Probability::zero(),
        ),
    };
    let next = match next {
        Stage::Blocks(states) if !in_order => {
            // Block structures that differ may flatten to one list: their masses add.
            let mut flat = States::new();
            for (b, p) in states {
                *flat.entry(b.into_iter().flatten().collect()).or_default() += p;
            }
            Stage::Sorted(by_face(flat))
        }
        Stage::Sorted(states) => Stage::Sorted(by_face(states)),
        blocks @ Stage::Blocks(_) => blocks,
    };
    match &next {
        Stage::Blocks(s) => limits.check_states(s.len() as u128)?,
        Stage::Sorted(s) => limits.check_states(s.len() as u128)?,
    }
    Ok((next, cut))
}

/// A keep, a drop or a modifier on each result alone, on every state.
fn each_state(states: &States, m: &Modifier, budget: &mut Budget) -> Result<States, CoreError> {
    let mut out: States = BTreeMap::new();
    for (results, p) in states {
        budget.spend(STATE_COST + results.len() as u64)?;
        let next: Vec<Rolled> = match *m {
            Modifier::Keep { count, highest } | Modifier::Drop { count, highest } => {
                let faces: Vec<i64> = results.iter().map(|r| r.face).collect();
                let keep = matches!(m, Modifier::Keep { .. });
                let out = discarded(&faces, count, keep, highest);
                results
                    .iter()
                    .zip(out)
                    .filter(|(_, gone)| !gone)
                    .map(|(r, _)| *r)
                    .collect()
            }
            _ => {
                let mut next = results.clone();
                for r in &mut next {
                    r.mark(m);
                }
                next
            }
        };
        *out.entry(next).or_insert_with(Probability::zero) += p;
    }
    Ok(out)
}

/// The states with each list sorted by face, results of one face kept in their order.
fn by_face(states: States) -> States {
    let mut out: States = BTreeMap::new();
    for (mut results, p) in states {
        results.sort_by_key(|r| r.face);
        *out.entry(results).or_insert_with(Probability::zero) += p;
    }
    out
}

/// Every state with one more result, showing each of `new` alike, after the results of its face
/// and the ones below.
fn grow<T: Clone + Ord>(
    states: &Walk<Vec<T>>,
    new: &[T],
    face: impl Fn(&T) -> i64,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Walk<Vec<T>>, CoreError> {
    with_fresh_after(states, new, |x, n| face(x) <= face(n), limits, budget)
}

/// An uncapped reroll or explosion by generations, on lists sorted by face: every result still to
/// be checked is checked at once (without a cap, the order does not matter); each meeting the point
/// rolls a new result (a reroll makes it inactive), which is checked in the next generation when
/// the step is recursive. A recursive reroll's new result settles at once on a face that does not
/// meet the point, each alike. Explosions stop at `explode_depth` generations, the mass still
/// meeting the point returned.
fn by_rounds(
    states: &States,
    faces: &[i64],
    step: Step,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<(States, Probability), CoreError> {
    let mut live: Walk<Vec<(Rolled, bool)>> = states
        .iter()
        .map(|(k, p)| (k.iter().map(|r| (*r, true)).collect(), p.clone()))
        .collect();
    let rerolled_to = step.new_faces(faces);
    let checked_again = step.explode && step.recursive;
    let new: Vec<(Rolled, bool)> = rerolled_to
        .iter()
        .map(|&f| (Rolled::new(f), checked_again))
        .collect();
    let mut done: States = BTreeMap::new();
    let mut cut = Probability::zero();
    for round in 0..=limits.explode_depth {
        let mut next: Walk<Vec<(Rolled, bool)>> = BTreeMap::new();
        for (results, p) in live {
            let meeting: Vec<bool> = results
                .iter()
                .map(|(r, pending)| *pending && step.point.meets(r.face))
                .collect();
            let n = meeting.iter().filter(|&&m| m).count();
            if n == 0 || (step.explode && round == limits.explode_depth) {
                if n > 0 {
                    cut += &p;
                }
                let list = results.into_iter().map(|(r, _)| r).collect();
                *done.entry(list).or_insert_with(Probability::zero) += p;
                continue;
            }
            let stay: Vec<(Rolled, bool)> = results
                .iter()
                .zip(&meeting)
                .filter(|(_, met)| step.explode || !**met)
                .map(|((r, _), _)| (*r, false))
                .collect();
            let mut grown = BTreeMap::from([(stay, p)]);
            for _ in 0..n {
                grown = grow(&grown, &new, |r| r.0.face, limits, budget)?;
            }
            for (k, q) in grown {
                *next.entry(k).or_insert_with(Probability::zero) += q;
            }
        }
        limits.check_states(next.len() as u128)?;
        live = next;
        if live.is_empty() {
            break;
        }
    }
    Ok((done, cut))
}

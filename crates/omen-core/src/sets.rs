//! Two pool rules that look at the dice together rather than one at a time: matching (Roll20's `m`,
//! `mt`: dice showing the same value form a set) and unique rerolls (rpg-dice-roller's `u`, `uo`: a die
//! that repeats an earlier die's value is rolled again).
//!
//! Matching depends only on the multiset of values, so its exact walk goes over the faces from the
//! highest down, choosing how many dice show each face (a binomial count), and never over the rolls
//! themselves. Unique rerolls depend on the order the dice are rolled in, so that walk goes die by die
//! with the set of values already taken as its state.

use std::collections::BTreeMap;

use num_traits::{One, Zero};

use crate::dice::Condition;
use crate::distribution::{Distribution, Probability, Weight, from_probabilities};
use crate::error::CoreError;
use crate::kept::select_kept;
use crate::limits::{Budget, Limits};
use crate::pool::Keep;

/// Roll20's matching: the kept dice showing one value form a set when there are at least `size` of
/// them and the value meets `condition` (every value when `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Matching {
    /// The fewest dice that make a set (2 unless written, `m3`).
    pub size: usize,
    pub condition: Option<Condition>,
    /// `mt`: the result is the number of sets; `m` only marks the matched dice.
    pub total: bool,
}

impl Matching {
    /// Whether `n` kept dice showing `value` make a set.
    pub fn is_set(&self, value: i64, n: usize) -> bool {
        n >= self.size && self.condition.is_none_or(|c| c.holds(value))
    }

    /// The values that make sets among `kept` and how many sets there are.
    pub fn sets(&self, kept: &[i64]) -> Vec<i64> {
        let mut counts: BTreeMap<i64, usize> = BTreeMap::new();
        for &v in kept {
            *counts.entry(v).or_default() += 1;
        }
        counts
            .into_iter()
            .filter(|&(v, n)| self.is_set(v, n))
            .map(|(v, _)| v)
            .collect()
    }
}

/// rpg-dice-roller's unique rerolls: the dice are rolled in order, and a die whose value an earlier die
/// already shows (and that meets `condition`, every value when `None`) is rolled again: until it is
/// unique (`u`), or once (`uo`). When no value the die can show is still free, rolling again cannot
/// help, and the die keeps its roll, a duplicate: what the source ends with after its reroll cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unique {
    pub once: bool,
    pub condition: Option<Condition>,
}

impl Unique {
    /// Whether a die showing `value` is rolled again when `taken` holds the earlier dice's values.
    pub fn rejects(&self, taken: &[i64], value: i64) -> bool {
        self.condition.is_none_or(|c| c.holds(value)) && taken.contains(&value)
    }
}

/// How many of the dice at ranks `start..end` (counted from the highest) fall in the kept ranks.
fn overlap(start: usize, end: usize, kept: (usize, usize)) -> usize {
    end.min(kept.1).saturating_sub(start.max(kept.0))
}

/// The distribution of the number of sets among `count` dice each distributed as `die`, of which
/// `keep` keeps some (dropped dice take no part in matching).
///
/// The walk goes over the faces from the highest: its state is how many dice show the faces so far
/// (their ranks from the top, which tells how many of the next ones are kept) and the sets so far; `c`
/// of the remaining `r` dice show the next face with weight `C(r, c)·w^c`. The states are held densely,
/// one row of weights by dice placed for each number of sets, so a step adds into the next slot of a
/// row rather than searching a map.
///
/// # Errors
/// `TooManyStates`, `WorkBudget`.
pub fn matching_sets(
    die: &Distribution<i64>,
    count: usize,
    keep: Keep,
    matching: Matching,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Distribution<i64>, CoreError> {
    let (low, take) = keep.run(count);
    let kept = (count - low - take, count - low);
    let width = count + 1;
    // rows[s][placed]: the weight of `placed` dice showing the faces so far with `s` sets among them;
    // an empty row is a number of sets not reached.
    let mut first = vec![Weight::zero(); width];
    first[0] = Weight::one();
    let mut rows: Vec<Vec<Weight>> = vec![first];
    for (value, w) in die.entries().iter().rev() {
        let w_limbs = 1 + w.bits() / 64;
        let mut next: Vec<Vec<Weight>> = Vec::new();
        let mut held = 0u128;
        for (sets, row) in rows.iter().enumerate() {
            for (placed, weight) in row.iter().enumerate() {
                budget.spend(2)?;
                if weight.is_zero() {
                    continue;
                }
                let left = count - placed;
                let mut ways = weight.clone();
                for c in 0..=left {
                    if c > 0 {
                        ways = ways * (left - c + 1) * w / c;
                    }
                    // A step multiplies, divides and adds numbers of `limbs` words, and pays for
                    // them; a new row pays for its slots, which count as states.
                    let limbs = 1 + ways.bits() / 64;
                    budget.spend(5 + 4 * limbs * w_limbs)?;
                    let set = matching.is_set(*value, overlap(placed, placed + c, kept));
                    let target = sets + usize::from(set);
                    if next.len() <= target {
                        next.resize_with(target + 1, Vec::new);
                    }
                    if next[target].is_empty() {
                        held += width as u128;
                        limits.check_states(held)?;
                        budget.spend(2 * width as u64)?;
                        next[target] = vec![Weight::zero(); width];
                    }
                    next[target][placed + c] += &ways;
                }
            }
        }
        rows = next;
    }
    Distribution::from_weights(rows.into_iter().enumerate().filter_map(|(sets, row)| {
        let weight = row.into_iter().nth(count)?;
        (!weight.is_zero()).then_some((sets as i64, weight))
    }))
}

/// The exact distribution of a pool of `count` dice each distributed as `die` (already through its
/// own steps), rolled in order with unique rerolls, then kept by `keep` and scored by `score`.
///
/// The state is the values taken so far with the score so far when every die counts, or the whole
/// multiset of values when some are dropped (keep/drop needs them all).
///
/// # Errors
/// `TooManyStates`, `WorkBudget`, `Overflow`.
pub fn unique_sum(
    die: &Distribution<i64>,
    count: usize,
    unique: Unique,
    keep: Keep,
    score: &dyn Fn(i64) -> i64,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Distribution<i64>, CoreError> {
    let all = keep == Keep::All;
    let total = die.total();
    let one = Probability::one();
    let mut states: BTreeMap<(Vec<i64>, i64), Probability> =
        BTreeMap::from([((Vec::new(), 0), one.clone())]);
    for _ in 0..count {
        let mut next: BTreeMap<(Vec<i64>, i64), Probability> = BTreeMap::new();
        for ((taken, sum), p) in &states {
            budget.spend(die.len() as u64 * (20 + taken.len() as u64))?;
            let free: Weight = die
                .entries()
                .iter()
                .filter(|(v, _)| !unique.rejects(taken, *v))
                .map(|(_, w)| w)
                .sum();
            let rejected = Probability::new(total - &free, total.clone());
            for (v, w) in die.entries() {
                let first = Probability::new(w.clone(), total.clone());
                let q = if unique.once {
                    // Kept at once when free; else rolled once more, whatever that shows.
                    let kept = if unique.rejects(taken, *v) {
                        Probability::zero()
                    } else {
                        first.clone()
                    };
                    kept + &rejected * first
                } else if free.is_zero() {
                    first
                } else if unique.rejects(taken, *v) {
                    continue;
                } else {
                    Probability::new(w.clone(), free.clone())
                };
                if q.is_zero() {
                    continue;
                }
                let mut values = taken.clone();
                let at = values.partition_point(|&x| x < *v);
                if !all || values.get(at) != Some(v) {
                    values.insert(at, *v);
                }
                let sum = if all {
                    sum.checked_add(score(*v)).ok_or(CoreError::Overflow)?
                } else {
                    0
                };
                // Each step multiplies and adds fractions (a gcd each) and copies the values taken:
                // charged by their size, and the states counted as they appear, so a pool whose
                // states multiply is refused before it holds them all.
                let bits =
                    p.numer().bits() + p.denom().bits() + q.numer().bits() + q.denom().bits();
                let limbs = 1 + bits / 64;
                budget.spend(1_200 + 60 * limbs * limbs + 20 * values.len() as u64)?;
                *next.entry((values, sum)).or_insert_with(Probability::zero) += p * q;
                limits.check_states(next.len() as u128)?;
            }
        }
        states = next;
    }
    let mut results: BTreeMap<i64, Probability> = BTreeMap::new();
    for ((values, sum), p) in states {
        let result = if all {
            sum
        } else {
            let kept = select_kept(&values, keep);
            let mut s: i64 = 0;
            for (v, k) in values.iter().zip(kept) {
                if k {
                    s = s.checked_add(score(*v)).ok_or(CoreError::Overflow)?;
                }
            }
            s
        };
        *results.entry(result).or_insert_with(Probability::zero) += p;
    }
    from_probabilities(results, budget)
}

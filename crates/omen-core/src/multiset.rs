//! A pool read as a multiset: the dice sorted, walked outcome by outcome from the lowest, each outcome
//! with how many dice show it, through a [`Reading`] that folds them into a state. Many mechanics
//! read a pool this way (the hits and the ones, the highest die and its multiplicity, the widest set,
//! the longest run) and several readings of the same dice give their joint distribution when they
//! are folded together ([`Readings`]).
//!
//! The walk never enumerates rolls. A pool is groups of identical dice (a mixed pool such as
//! `d10 d8 d6` is three groups of one); at each outcome it chooses how many of each group's remaining
//! dice show it, with weight C(m, j)·w^j, and carries the reading's state and the dice still to
//! place. States that meet are merged, so the work grows with the distinct (state, dice left)
//! pairs, not with the rolls: `10d10` has 10¹⁰ rolls and 92,378 multisets, and a reading that keeps
//! only the widest set so far merges most of those.

use std::hash::Hash;
use std::ops::AddAssign;

use foldhash::HashMap;
use num_traits::{One, ToPrimitive, Zero};

use crate::distribution::{Distribution, Weight};
use crate::error::CoreError;
use crate::limits::{Budget, Limits};
use crate::pool::binomial_rows;

pub use group::{Group, Reading};

/// The exact distribution of `reading` over the pool made of `groups`.
///
/// # Errors
/// [`CoreError`] when the walk's states pass `max_states` or its work the budget (charged for each
/// outcome before it is walked), or when the computation is cancelled.
pub fn read<R: Reading>(
    groups: &[Group],
    reading: &R,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Distribution<R::Value>, CoreError> {
    let groups: Vec<&Group> = groups.iter().filter(|g| g.count > 0).collect();
    let bits: u64 = groups
        .iter()
        .map(|g| g.die.total().bits() * g.count as u64)
        .sum();
    // Every weight in the walk divides the pool's total: machine integers when it fits in one.
    // The dice each group has left are one machine integer too when their counts fit in one.
    let widths: Vec<u32> = groups
        .iter()
        .map(|g| usize::BITS - g.count.leading_zeros())
        .collect();
    let packed = widths.iter().sum::<u32>() <= 128;
    if bits < 128
        && let Some(d) = additive::read(&groups, reading, budget)?
    {
        return Ok(d);
    }
    match (bits < 128, packed) {
        (true, true) => words(walk::<u128, u128, R>(
            &groups, &widths, reading, limits, budget,
        )?),
        (true, false) => words(walk::<u128, Vec<usize>, R>(
            &groups, &widths, reading, limits, budget,
        )?),
        (false, true) => Distribution::from_weights(walk::<Weight, u128, R>(
            &groups, &widths, reading, limits, budget,
        )?),
        (false, false) => Distribution::from_weights(walk::<Weight, Vec<usize>, R>(
            &groups, &widths, reading, limits, budget,
        )?),
    }
}

fn words<V: Ord + Clone>(pairs: Vec<(V, u128)>) -> Result<Distribution<V>, CoreError> {
    Distribution::from_weights(pairs.into_iter().map(|(v, w)| (v, Weight::from(w))))
}

/// The dice each group has left, as the key of a state in the walk's map.
trait Left: Clone + Eq + Hash {
    /// The key of `counts`, group `g`'s count below `2^widths[g]`.
    fn of(counts: &[usize], widths: &[u32]) -> Self;
    /// The counts of the key, into `counts` (one per group).
    fn read(&self, widths: &[u32], counts: &mut [usize]);
}

impl Left for Vec<usize> {
    fn of(counts: &[usize], _: &[u32]) -> Self {
        counts.to_vec()
    }
    fn read(&self, _: &[u32], counts: &mut [usize]) {
        counts.copy_from_slice(self);
    }
}

/// Each group's count in its own bits, the first group lowest: no allocation per state.
impl Left for u128 {
    fn of(counts: &[usize], widths: &[u32]) -> Self {
        let mut key = 0u128;
        let mut shift = 0;
        for (&c, &w) in counts.iter().zip(widths) {
            key |= (c as u128) << shift;
            shift += w;
        }
        key
    }
    fn read(&self, widths: &[u32], counts: &mut [usize]) {
        let mut shift = 0;
        for (c, &w) in counts.iter_mut().zip(widths) {
            *c = ((self >> shift) & ((1u128 << w) - 1)) as usize;
            shift += w;
        }
    }
}

/// A number of ways: a machine integer or a big one.
pub(crate) trait Ways: Clone + Zero + One + for<'a> AddAssign<&'a Self> {
    fn times(&self, other: &Self) -> Self;
    /// The weight, which the caller has checked fits.
    fn of(w: &Weight) -> Self;
}

impl Ways for u128 {
    fn times(&self, other: &Self) -> Self {
        self * other
    }
    fn of(w: &Weight) -> Self {
        w.to_u128().unwrap_or(0)
    }
}

impl Ways for Weight {
    fn times(&self, other: &Self) -> Self {
        self * other
    }
    fn of(w: &Weight) -> Self {
        w.clone()
    }
}

type States<S, K, W> = HashMap<(S, K), W>;

/// [`read`]'s walk, in `W`, the dice left keyed as `K`.
fn walk<W: Ways, K: Left, R: Reading>(
    groups: &[&Group],
    widths: &[u32],
    reading: &R,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Vec<(R::Value, W)>, CoreError> {
    let dice: usize = groups.iter().map(|g| g.count).sum();
    let mut outcomes: Vec<i64> = groups
        .iter()
        .flat_map(|g| g.die.outcomes().copied())
        .collect();
    outcomes.sort_unstable();
    outcomes.dedup();
    let binomials = binomial_rows(groups.iter().map(|g| g.count).max().unwrap_or(0));
    let counts: Vec<usize> = groups.iter().map(|g| g.count).collect();
    let start = (reading.initial(dice), K::of(&counts, widths));
    let mut states: States<R::State, K, W> = HashMap::default();
    states.insert(start, W::one());
    let mut left = counts;
    for &outcome in &outcomes {
        charge(states.len(), groups, limits, budget)?;
        let step = Step::new(groups, outcome, &binomials);
        let mut next: States<R::State, K, W> = HashMap::default();
        next.reserve(states.len());
        for ((state, key), weight) in states {
            budget.check()?;
            key.read(widths, &mut left);
            let mut failed = None;
            step.each(&left, |after, shown, ways| {
                match reading.next(&state, outcome, shown) {
                    Ok(read) => {
                        *next
                            .entry((read, K::of(after, widths)))
                            .or_insert_with(W::zero) += &weight.times(ways)
                    }
                    Err(error) => failed = Some(error),
                }
            });
            if let Some(error) = failed {
                return Err(error);
            }
        }
        states = next;
    }
    Ok(states
        .into_iter()
        .map(|((state, _), weight)| (reading.finish(&state), weight))
        .collect())
}

/// Charges one outcome's step before it is walked: each state tries every split of each group's
/// remaining dice, each a multiplication of numbers as wide as the pool's total.
fn charge(
    states: usize,
    groups: &[&Group],
    limits: &Limits,
    budget: &mut Budget,
) -> Result<(), CoreError> {
    limits.check_states(states as u128)?;
    let splits: u128 = groups
        .iter()
        .map(|g| g.count as u128 + 1)
        .fold(1u128, u128::saturating_mul);
    let bits: u64 = groups
        .iter()
        .map(|g| g.die.total().bits() * g.count as u64)
        .sum();
    let limbs = crate::distribution::limbs_of(bits);
    budget.spend_estimate(
        (states as u128)
            .saturating_mul(splits)
            .saturating_mul(limbs + crate::distribution::BIG_OP),
    )
}

/// The ways a state's remaining dice can split at one outcome: for each group, `coef[m][j]` =
/// C(m, j)·wʲ (j of its m remaining dice show the outcome), computed once per outcome.
pub(crate) struct Step<W> {
    pub(crate) coef: Vec<Vec<Vec<W>>>,
    /// Groups at their last outcome: every remaining die shows it.
    pub(crate) forced: Vec<bool>,
}

impl<W: Ways> Step<W> {
    pub(crate) fn new(groups: &[&Group], outcome: i64, binomials: &[Vec<Weight>]) -> Self {
        let coef = groups
            .iter()
            .map(|g| {
                let w = g.die.weight(&outcome);
                (0..=g.count)
                    .map(|m| {
                        (0..=m)
                            .map(|j| W::of(&g.ways(&w, m, j, binomials)))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let forced = groups
            .iter()
            .map(|g| *g.die.max_outcome() == outcome)
            .collect();
        Step { coef, forced }
    }

    /// Calls `f(dice left after, dice showing the outcome, ways of the split)` for each split of
    /// `left` with a non-zero weight.
    fn each(&self, left: &[usize], mut f: impl FnMut(&[usize], usize, &W)) {
        let mut after = left.to_vec();
        self.split(0, left, &mut after, 0, &W::one(), &mut f);
    }

    fn split(
        &self,
        group: usize,
        left: &[usize],
        after: &mut Vec<usize>,
        shown: usize,
        ways: &W,
        f: &mut impl FnMut(&[usize], usize, &W),
    ) {
        if group == left.len() {
            f(after, shown, ways);
            return;
        }
        let m = left[group];
        let first = if self.forced[group] { m } else { 0 };
        for j in first..=m {
            let coef = &self.coef[group][m][j];
            if coef.is_zero() {
                continue; // the group cannot show this outcome (or must, and cannot)
            }
            after[group] = m - j;
            self.split(group + 1, left, after, shown + j, &ways.times(coef), f);
        }
    }
}

/// The readings Omen offers by name, each over a pool of `dice` dice walked from the lowest outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// How many dice show an outcome from `low` to `high`.
    Count { low: i64, high: i64 },
    /// The sum of the dice.
    Sum,
    /// The sum of the `k` highest dice.
    SumHighest(usize),
    /// The sum of the `k` lowest dice.
    SumLowest(usize),
    /// The k-th highest die (1 the highest; Cortex Prime's effect die is the third when two are
    /// kept), 0 when the pool has fewer dice.
    NthHighest(usize),
    /// The k-th lowest die, 0 when the pool has fewer dice.
    NthLowest(usize),
    /// The highest outcome shown.
    Highest,
    /// How many dice show the highest outcome shown.
    HighestCount,
    /// How many different outcomes are shown.
    Distinct,
    /// The most dice showing one outcome (the width of the widest set).
    SetWidth,
    /// The outcome of the widest set, the highest of those when several are as wide.
    SetHeight,
    /// The most consecutive outcomes each shown by at least one die (a straight's length).
    LongestRun,
}

impl Builtin {
    /// How many numbers of state this reading keeps.
    fn slots(&self) -> usize {
        match self {
            Builtin::LongestRun => 3, // run so far, best run, last outcome shown + 1
            Builtin::SumHighest(_)
            | Builtin::SumLowest(_)
            | Builtin::NthHighest(_)
            | Builtin::NthLowest(_) => 2, // value, dice placed so far
            _ => 1,
        }
    }
}

/// Several builtin readings of the same dice, folded together: their joint distribution, one value
/// per reading.
#[derive(Clone, Debug)]
pub struct Readings(pub Vec<Builtin>);

impl Reading for Readings {
    type State = Vec<i64>;
    type Value = Vec<i64>;

    fn initial(&self, dice: usize) -> Vec<i64> {
        // The pool's size rides along in the first slot: keeps need it to rank a die from the top
        // while walking up from the bottom.
        let mut state = vec![dice as i64];
        for reading in &self.0 {
            let start: &[i64] = match reading {
                Builtin::LongestRun => &[0, 0, i64::MIN],
                Builtin::SumHighest(_)
                | Builtin::SumLowest(_)
                | Builtin::NthHighest(_)
                | Builtin::NthLowest(_) => &[0, 0],
                _ => &[0],
            };
            state.extend_from_slice(start);
        }
        state
    }

    fn next(&self, state: &Vec<i64>, outcome: i64, count: usize) -> Result<Vec<i64>, CoreError> {
        let mut out = state.clone();
        let dice = state[0];
        let n = count as i64;
        let mut at = 1;
        for reading in &self.0 {
            let s = &mut out[at..at + reading.slots()];
            match *reading {
                Builtin::Count { low, high } if (low..=high).contains(&outcome) => s[0] += n,
                Builtin::Count { .. } => {}
                Builtin::Sum => s[0] = add_times(s[0], n, outcome)?,
                Builtin::SumHighest(k) => {
                    // Dice placed so far are the lowest; of these n, those ranked within the top k.
                    let above = dice - s[1] - n; // dice still to come, all higher
                    let kept = (k as i64 - above).clamp(0, n);
                    s[0] = add_times(s[0], kept, outcome)?;
                    s[1] += n;
                }
                Builtin::SumLowest(k) => {
                    let kept = (k as i64 - s[1]).clamp(0, n);
                    s[0] = add_times(s[0], kept, outcome)?;
                    s[1] += n;
                }
                Builtin::NthHighest(k) => {
                    // These n dice rank from above + 1 to above + n counted from the top.
                    let above = dice - s[1] - n;
                    if (above + 1..=above + n).contains(&(k as i64)) {
                        s[0] = outcome;
                    }
                    s[1] += n;
                }
                Builtin::NthLowest(k) => {
                    if (s[1] + 1..=s[1] + n).contains(&(k as i64)) {
                        s[0] = outcome;
                    }
                    s[1] += n;
                }
                Builtin::Highest if n > 0 => s[0] = outcome,
                Builtin::HighestCount if n > 0 => s[0] = n,
                Builtin::Distinct if n > 0 => s[0] += 1,
                Builtin::SetWidth => s[0] = s[0].max(n),
                Builtin::SetHeight if n > 0 => {
                    // Walking up, a set as wide as the widest so far is higher: it wins ties.
                    let width = widest(state, &self.0);
                    if n >= width {
                        s[0] = outcome;
                    }
                }
                Builtin::LongestRun if n > 0 => {
                    s[0] = if s[2] == outcome { s[0] + 1 } else { 1 };
                    s[1] = s[1].max(s[0]);
                    s[2] = outcome.wrapping_add(1);
                }
                _ => {}
            }
            at += reading.slots();
        }
        Ok(out)
    }

    fn sums(&self, outcome: i64) -> Option<Vec<i64>> {
        self.0
            .iter()
            .map(|reading| match *reading {
                Builtin::Count { low, high } => Some(i64::from((low..=high).contains(&outcome))),
                Builtin::Sum => Some(outcome),
                _ => None,
            })
            .collect()
    }

    fn value_of_sums(&self, sums: &[i64]) -> Vec<i64> {
        sums.to_vec()
    }

    fn finish(&self, state: &Vec<i64>) -> Vec<i64> {
        let mut at = 1;
        self.0
            .iter()
            .map(|reading| {
                let value = match reading {
                    Builtin::LongestRun => state[at + 1],
                    _ => state[at],
                };
                at += reading.slots();
                value
            })
            .collect()
    }
}

/// sum + n·outcome, or [`CoreError::Overflow`].
fn add_times(sum: i64, n: i64, outcome: i64) -> Result<i64, CoreError> {
    n.checked_mul(outcome)
        .and_then(|x| x.checked_add(sum))
        .ok_or(CoreError::Overflow)
}

/// The widest set before this outcome, for [`Builtin::SetHeight`]: from the [`Builtin::SetWidth`]
/// reading that [`Readings::new`] guarantees beside every height.
fn widest(state: &[i64], readings: &[Builtin]) -> i64 {
    let mut at = 1;
    for reading in readings {
        if *reading == Builtin::SetWidth {
            return state[at];
        }
        at += reading.slots();
    }
    0
}

impl Readings {
    /// The readings, with a [`Builtin::SetWidth`] put first when a [`Builtin::SetHeight`] needs one
    /// and none is asked for; the second number is how many values to drop from the front of each
    /// result (0 or 1).
    pub fn new(readings: Vec<Builtin>) -> (Self, usize) {
        if readings.contains(&Builtin::SetHeight) && !readings.contains(&Builtin::SetWidth) {
            let mut all = vec![Builtin::SetWidth];
            all.extend(readings);
            (Readings(all), 1)
        } else {
            (Readings(readings), 0)
        }
    }
}

mod additive;
mod group;

#[cfg(test)]
#[path = "multiset_tests.rs"]
pub(crate) mod tests;

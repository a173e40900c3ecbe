//! Every whole multiset of a pool listed once with its weight, depth first: at each outcome, from
//! the lowest, each group places some of its remaining dice on it with weight C(m, j)·wʲ (or the
//! cards' C(copies, j)), so the multiset is built in order, in place, and nothing is kept of it
//! but the values read from it, added up by value. Weights are machine integers when the pool's
//! total fits in one, as in the multiset walk.

use std::collections::BTreeMap;

use crate::distribution::{Distribution, Weight};
use crate::error::CoreError;
use crate::limits::Budget;
use crate::multiset::{Group, Step, Ways};
use crate::pool::binomial_rows;

/// A multiset of outcomes: (outcome, how many dice show it), ascending, counts above zero.
pub type Multiset = Vec<(i64, usize)>;

/// The distribution of `value` over the multisets of `groups` (none of them empty of dice).
pub(super) fn listed<V: Ord + Clone>(
    groups: &[&Group],
    value: &mut dyn FnMut(&Multiset, &mut Budget) -> Result<V, CoreError>,
    budget: &mut Budget,
) -> Result<Distribution<V>, CoreError> {
    let bits: u64 = groups
        .iter()
        .map(|g| g.die.total().bits() * g.count as u64)
        .sum();
    // Every multiset's weight divides the pool's total, and so does every sum of them.
    if bits < 128 {
        let sums = Walk::<u128, V>::run(groups, value, budget)?;
        Distribution::from_weights(sums.into_iter().map(|(v, w)| (v, Weight::from(w))))
    } else {
        Distribution::from_weights(Walk::<Weight, V>::run(groups, value, budget)?)
    }
}

struct Walk<'a, W, V> {
    outcomes: Vec<i64>,
    steps: Vec<Step<W>>,
    /// Each group's dice not yet placed.
    left: Vec<usize>,
    /// The dice not yet placed, all groups together.
    unplaced: usize,
    dice: Multiset,
    sums: BTreeMap<V, W>,
    value: &'a mut dyn FnMut(&Multiset, &mut Budget) -> Result<V, CoreError>,
    budget: &'a mut Budget,
}

impl<'a, W: Ways, V: Ord + Clone> Walk<'a, W, V> {
    fn run(
        groups: &[&Group],
        value: &'a mut dyn FnMut(&Multiset, &mut Budget) -> Result<V, CoreError>,
        budget: &'a mut Budget,
    ) -> Result<BTreeMap<V, W>, CoreError> {
        let mut outcomes: Vec<i64> = groups
            .iter()
            .flat_map(|g| g.die.outcomes().copied())
            .collect();
        outcomes.sort_unstable();
        outcomes.dedup();
        let binomials = binomial_rows(groups.iter().map(|g| g.count).max().unwrap_or(0));
        let steps = outcomes
            .iter()
            .map(|&o| Step::new(groups, o, &binomials))
            .collect();
        let left: Vec<usize> = groups.iter().map(|g| g.count).collect();
        let mut walk = Walk {
            outcomes,
            steps,
            unplaced: left.iter().sum(),
            left,
            dice: Vec::new(),
            sums: BTreeMap::new(),
            value,
            budget,
        };
        walk.place(0, 0, 0, W::one())?;
        Ok(walk.sums)
    }

    /// Places dice of group `group` and the groups after it on outcome `at`, `shown` of them
    /// already, then moves on to the next outcome.
    fn place(&mut self, at: usize, group: usize, shown: usize, ways: W) -> Result<(), CoreError> {
        if group == self.left.len() {
            return self.next_outcome(at, shown, ways);
        }
        let m = self.left[group];
        let first = if self.steps[at].forced[group] { m } else { 0 };
        for j in first..=m {
            let coef = &self.steps[at].coef[group][m][j];
            if coef.is_zero() {
                continue; // the group cannot show this outcome (or must, and cannot)
            }
            let ways = ways.times(coef);
            self.left[group] = m - j;
            let placed = self.place(at, group + 1, shown + j, ways);
            self.left[group] = m;
            placed?;
        }
        Ok(())
    }

    /// Records the `shown` dice on outcome `at`, then places the next outcome's, or reads the
    /// multiset once every die is placed (the outcomes left would each show none, with weight 1).
    fn next_outcome(&mut self, at: usize, shown: usize, ways: W) -> Result<(), CoreError> {
        if shown > 0 {
            self.dice.push((self.outcomes[at], shown));
            self.unplaced -= shown;
        }
        let done = if self.unplaced == 0 {
            self.read(ways)
        } else if at + 1 < self.outcomes.len() {
            self.place(at + 1, 0, 0, ways)
        } else {
            // Every group is forced to place its last dice on its highest outcome.
            Ok(())
        };
        if shown > 0 {
            self.dice.pop();
            self.unplaced += shown;
        }
        done
    }

    fn read(&mut self, ways: W) -> Result<(), CoreError> {
        self.budget.check()?;
        let v = (self.value)(&self.dice, self.budget)?;
        match self.sums.get_mut(&v) {
            Some(sum) => *sum += &ways,
            None => {
                self.sums.insert(v, ways);
            }
        }
        Ok(())
    }
}

//! Exact Markov chains: explore the states reachable from a start, then ask for the distribution after
//! n steps, the absorbing distribution with the expected number of steps, or the long-run (stationary)
//! frequencies. Everything is solved with rational arithmetic, cycles included.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::Ratio;
use num_traits::{One, Zero};

use crate::distribution::{Distribution, Weight};
use crate::error::CoreError;
use crate::limits::{Budget, Limits};

type Q = Ratio<BigInt>;

/// The states reachable from a start distribution, with their transitions.
#[derive(Clone, Debug)]
pub struct Chain<S> {
    /// Every reachable state, in the order found.
    pub states: Vec<S>,
    /// For each state: (next state index, weight) pairs and their total.
    transitions: Vec<(Vec<(usize, Weight)>, Weight)>,
    /// The start distribution over state indices.
    start: Vec<(usize, Weight)>,
    start_total: Weight,
}

/// Where a chain ends up, and how long it takes on average.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Absorption<S: Ord + Clone> {
    pub distribution: Distribution<S>,
    /// The exact expected number of steps until an absorbing state is reached.
    pub expected_steps: Ratio<BigInt>,
}

impl<S: Ord + Clone> Chain<S> {
    /// Explores every state reachable from `start` through `step`; the chain's own errors are turned
    /// into the caller's error type by `core_error`.
    ///
    /// # Errors
    /// `TooManyChainStates` past `limits.max_chain_states`; the errors of `step`; `WorkBudget`.
    pub fn explore<E>(
        start: &Distribution<S>,
        limits: &Limits,
        budget: &mut Budget,
        core_error: impl Fn(CoreError) -> E,
        mut step: impl FnMut(&S) -> Result<Distribution<S>, E>,
    ) -> Result<Self, E> {
        let mut index: BTreeMap<S, usize> = BTreeMap::new();
        let mut states: Vec<S> = Vec::new();
        let mut intern = |s: &S, states: &mut Vec<S>| -> Result<usize, CoreError> {
            if let Some(&i) = index.get(s) {
                return Ok(i);
            }
            if states.len() as u64 >= limits.max_chain_states {
                return Err(CoreError::TooManyChainStates {
                    limit: limits.max_chain_states,
                });
            }
            index.insert(s.clone(), states.len());
            states.push(s.clone());
            Ok(states.len() - 1)
        };
        let mut start_ix = Vec::with_capacity(start.len());
        for (s, w) in start.entries() {
            start_ix.push((intern(s, &mut states).map_err(&core_error)?, w.clone()));
        }
        let mut transitions = Vec::new();
        let mut next = 0;
        while next < states.len() {
            let s = states[next].clone();
            let d = step(&s)?;
            budget.spend(d.len() as u64).map_err(&core_error)?;
            let mut row = Vec::with_capacity(d.len());
            for (t, w) in d.entries() {
                row.push((intern(t, &mut states).map_err(&core_error)?, w.clone()));
            }
            transitions.push((row, d.total().clone()));
            next += 1;
        }
        Ok(Chain {
            states,
            transitions,
            start: start_ix,
            start_total: start.total().clone(),
        })
    }

    fn is_absorbing(&self, i: usize) -> bool {
        let (row, _) = &self.transitions[i];
        row.len() == 1 && row[0].0 == i
    }

    fn distribution_of(&self, weights: Vec<Q>) -> Result<Distribution<S>, CoreError> {
        // Common denominator → integer weights.
        let lcm = weights
            .iter()
            .filter(|q| !q.is_zero())
            .fold(BigInt::one(), |acc, q| acc.lcm(q.denom()));
        let pairs = weights
            .iter()
            .enumerate()
            .filter(|(_, q)| !q.is_zero())
            .map(|(i, q)| {
                let w = (q.numer() * (&lcm / q.denom()))
                    .to_biguint()
                    .expect("non-negative");
                (self.states[i].clone(), w)
            });
        Distribution::from_weights(pairs).map(Distribution::normalized)
    }

    fn start_vector(&self) -> Vec<Q> {
        let mut v = vec![Q::zero(); self.states.len()];
        let total = BigInt::from(self.start_total.clone());
        for (i, w) in &self.start {
            v[*i] += Q::new(BigInt::from(w.clone()), total.clone());
        }
        v
    }

    fn probability(&self, i: usize, k: usize) -> Q {
        let (row, total) = &self.transitions[i];
        Q::new(BigInt::from(row[k].1.clone()), BigInt::from(total.clone()))
    }

    /// The distribution of the state after `n` steps.
    ///
    /// # Errors
    /// `WorkBudget`.
    pub fn after(&self, n: u64, budget: &mut Budget) -> Result<Distribution<S>, CoreError> {
        let mut v = self.start_vector();
        let edges: u64 = self.transitions.iter().map(|(r, _)| r.len() as u64).sum();
        for _ in 0..n {
            budget.spend(edges + self.states.len() as u64)?;
            let mut next = vec![Q::zero(); self.states.len()];
            for (i, p) in v.iter().enumerate() {
                if p.is_zero() {
                    continue;
                }
                for k in 0..self.transitions[i].0.len() {
                    let j = self.transitions[i].0[k].0;
                    next[j] += p * self.probability(i, k);
                }
            }
            if next == v {
                break; // a fixed point: every further step gives the same distribution
            }
            v = next;
        }
        self.distribution_of(v)
    }

    /// The distribution of the absorbing state the chain ends in, and the expected number of steps.
    ///
    /// # Errors
    /// `NeverAbsorbs` when some reachable state cannot reach an absorbing state; `WorkBudget`.
    pub fn absorption(&self, budget: &mut Budget) -> Result<Absorption<S>, CoreError> {
        let n = self.states.len();
        let transient: Vec<usize> = (0..n).filter(|&i| !self.is_absorbing(i)).collect();
        // Every transient state must be able to reach an absorbing one, or mass never settles.
        let can_finish = self.reaches(|i| self.is_absorbing(i));
        if let Some(&stuck) = transient.iter().find(|&&i| !can_finish[i]) {
            return Err(CoreError::NeverAbsorbs { state: stuck });
        }
        let (absorbed, expected_steps) =
            self.settle(|i| self.is_absorbing(i).then_some(i), n, budget)?;
        Ok(Absorption {
            distribution: self.distribution_of(absorbed)?,
            expected_steps,
        })
    }

    /// Long-run frequencies of the states: for each closed class the chain can end in, its stationary
    /// distribution, weighted by the probability of ending in that class.
    ///
    /// # Errors
    /// `WorkBudget`.
    pub fn stationary(&self, budget: &mut Budget) -> Result<Distribution<S>, CoreError> {
        let n = self.states.len();
        let classes = self.closed_classes();
        // P(ending in each closed class): absorb into the classes, collapsed to one state each.
        let class_of: BTreeMap<usize, usize> = classes
            .iter()
            .enumerate()
            .flat_map(|(c, members)| members.iter().map(move |&i| (i, c)))
            .collect();
        let reach: Vec<Q> = if classes.len() == 1 {
            vec![Q::one()]
        } else {
            self.settle(|i| class_of.get(&i).copied(), classes.len(), budget)?
                .0
        };
        let mut out = vec![Q::zero(); n];
        for (c, members) in classes.iter().enumerate() {
            if reach[c].is_zero() {
                continue;
            }
            let pi = self.class_stationary(members, budget)?;
            for (k, &i) in members.iter().enumerate() {
                out[i] += &reach[c] * &pi[k];
            }
        }
        self.distribution_of(out)
    }

    /// Where the chain's mass settles. `end(i)` names the target a state belongs to (itself when
    /// absorbing, its closed class), or `None` for a transient state. Returns the probability of
    /// reaching each target and the expected number of steps spent among the transient states.
    fn settle(
        &self,
        end: impl Fn(usize) -> Option<usize>,
        targets: usize,
        budget: &mut Budget,
    ) -> Result<(Vec<Q>, Q), CoreError> {
        let n = self.states.len();
        let transient: Vec<usize> = (0..n).filter(|&i| end(i).is_none()).collect();
        let pos: BTreeMap<usize, usize> =
            transient.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        let m = transient.len();
        budget.spend_estimate((m as u128).pow(3))?;
        // y (I − Q) = μ_T, solved as (I − Q)ᵀ yᵀ = μ_Tᵀ: y holds the expected visits to each state.
        let start = self.start_vector();
        let mut a = vec![vec![Q::zero(); m + 1]; m];
        for (r, &i) in transient.iter().enumerate() {
            a[r][r] += Q::one();
            for k in 0..self.transitions[i].0.len() {
                let j = self.transitions[i].0[k].0;
                if let Some(&c) = pos.get(&j) {
                    // Column r of (I − Q) is row r of the transposed system.
                    a[c][r] -= self.probability(i, k);
                }
            }
            a[r][m] = start[i].clone();
        }
        let y = solve(a, budget)?;
        let mut reached = vec![Q::zero(); targets];
        for (i, p) in start.iter().enumerate() {
            if let Some(t) = end(i) {
                reached[t] += p;
            }
        }
        for (r, &i) in transient.iter().enumerate() {
            for k in 0..self.transitions[i].0.len() {
                if let Some(t) = end(self.transitions[i].0[k].0) {
                    reached[t] += &y[r] * self.probability(i, k);
                }
            }
        }
        let steps = y.iter().fold(Q::zero(), |acc, v| acc + v);
        Ok((reached, steps))
    }

    /// π = π P on one closed class, with Σ π = 1 replacing one equation.
    fn class_stationary(
        &self,
        members: &[usize],
        budget: &mut Budget,
    ) -> Result<Vec<Q>, CoreError> {
        let m = members.len();
        budget.spend_estimate((m as u128).pow(3))?;
        let pos: BTreeMap<usize, usize> =
            members.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        // Rows: (Pᵀ − I) πᵀ = 0, the last row replaced by Σ π = 1.
        let mut a = vec![vec![Q::zero(); m + 1]; m];
        for (r, &i) in members.iter().enumerate() {
            a[r][r] -= Q::one();
            for k in 0..self.transitions[i].0.len() {
                let j = self.transitions[i].0[k].0;
                let c = pos[&j];
                a[c][r] += self.probability(i, k);
            }
        }
        for cell in a[m - 1].iter_mut() {
            *cell = Q::one();
        }
        solve(a, budget)
    }

    /// For each state, whether it can reach a state where `target` holds.
    fn reaches(&self, target: impl Fn(usize) -> bool) -> Vec<bool> {
        let n = self.states.len();
        let mut back: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, (row, _)) in self.transitions.iter().enumerate() {
            for (j, _) in row {
                back[*j].push(i);
            }
        }
        let mut ok: Vec<bool> = (0..n).map(&target).collect();
        let mut stack: Vec<usize> = (0..n).filter(|&i| ok[i]).collect();
        while let Some(j) = stack.pop() {
            for &i in &back[j] {
                if !ok[i] {
                    ok[i] = true;
                    stack.push(i);
                }
            }
        }
        ok
    }

    /// The closed communicating classes (no transition leaves them), each sorted.
    fn closed_classes(&self) -> Vec<Vec<usize>> {
        let n = self.states.len();
        let mut classes = Vec::new();
        let mut assigned = vec![false; n];
        for i in 0..n {
            if assigned[i] {
                continue;
            }
            // The class of i is closed when everything i reaches can reach i back.
            let from_i = self.forward(i);
            let back_to_i = self.reaches(|j| j == i);
            let closed = (0..n).all(|j| !from_i[j] || back_to_i[j]);
            if closed {
                let members: Vec<usize> = (0..n).filter(|&j| from_i[j]).collect();
                for &j in &members {
                    assigned[j] = true;
                }
                classes.push(members);
            }
        }
        classes
    }

    fn forward(&self, i: usize) -> Vec<bool> {
        let mut seen = vec![false; self.states.len()];
        seen[i] = true;
        let mut stack = vec![i];
        while let Some(a) = stack.pop() {
            for (b, _) in &self.transitions[a].0 {
                if !seen[*b] {
                    seen[*b] = true;
                    stack.push(*b);
                }
            }
        }
        seen
    }
}

/// What one operation on two fractions costs besides their limbs: a product or difference of
/// fractions reduces by gcds and allocates (even when one side is zero), about as long as this many
/// limb multiply-adds: measured with omen-lang's `examples/stages` on `absorb` over a 200-state walk
/// (cheap fractions, overpaid about twice) and `stationary` over a 300-state circle (paid about right).
const FRACTION_OP_COST: u128 = 600;

fn fraction_limbs(q: &Q) -> u128 {
    crate::distribution::limbs_of(q.numer().bits() + q.denom().bits())
}

/// Solves the augmented system `a` (m rows, m + 1 columns) exactly by Gaussian elimination, paying
/// for each row operation before it is done: the fractions grow as the elimination goes, so the
/// cubic estimate paid up front is only the least it can cost.
fn solve(mut a: Vec<Vec<Q>>, budget: &mut Budget) -> Result<Vec<Q>, CoreError> {
    let m = a.len();
    for col in 0..m {
        let pivot = (col..m)
            .find(|&r| !a[r][col].is_zero())
            .ok_or(CoreError::SingularChain)?;
        a.swap(col, pivot);
        let p = a[col][col].clone();
        let width = (m + 1 - col) as u128;
        budget.spend_estimate(width * (FRACTION_OP_COST + fraction_limbs(&p).pow(2)))?;
        for cell in a[col].iter_mut().skip(col) {
            *cell /= &p;
        }
        let row_limbs = a[col][col..].iter().map(fraction_limbs).max().unwrap_or(1);
        for r in 0..m {
            if r == col || a[r][col].is_zero() {
                continue;
            }
            let f = a[r][col].clone();
            // A product, then a difference whose reduction (a gcd) is quadratic in the limbs of
            // the widest fraction involved, which may be in the row being changed.
            let target_limbs = a[r][col..].iter().map(fraction_limbs).max().unwrap_or(1);
            let limbs = fraction_limbs(&f).max(row_limbs).max(target_limbs);
            budget.spend_estimate(width * (FRACTION_OP_COST + 8 * limbs * limbs))?;
            let (upper, lower) = a.split_at_mut(r.max(col));
            let (pivot_row, row) = if r < col {
                (&lower[0], &mut upper[r])
            } else {
                (&upper[col], &mut lower[0])
            };
            for (cell, p) in row.iter_mut().zip(pivot_row).skip(col) {
                *cell -= &f * p;
            }
        }
    }
    Ok(a.into_iter().map(|row| row[m].clone()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: i64, d: i64) -> Q {
        Q::new(BigInt::from(n), BigInt::from(d))
    }

    /// Gambler's ruin on 0..=4 from 2 with a fair coin: absorbed at 0 or 4 with 1/2 each, after 4 steps
    /// on average.
    #[test]
    fn gamblers_ruin() {
        let limits = Limits::default();
        let start = Distribution::constant(2i64);
        let chain = Chain::explore(
            &start,
            &limits,
            &mut limits.budget(),
            |e| e,
            |&s| {
                if s == 0 || s == 4 {
                    Ok::<_, CoreError>(Distribution::constant(s))
                } else {
                    Distribution::uniform([s - 1, s + 1])
                }
            },
        )
        .unwrap();
        let a = chain.absorption(&mut limits.budget()).unwrap();
        assert_eq!(
            a.distribution.probability(&0),
            crate::Probability::new(1u32.into(), 2u32.into())
        );
        assert_eq!(a.expected_steps, q(4, 1));
        // After two steps: 0 w.p. 1/4, 2 w.p. 1/2, 4 w.p. 1/4.
        let two = chain.after(2, &mut limits.budget()).unwrap();
        assert_eq!(
            two.probability(&2),
            crate::Probability::new(1u32.into(), 2u32.into())
        );
    }

    /// A two-state chain that flips with probability 1/3 from A and 1/2 from B: π = (3/5, 2/5).
    #[test]
    fn two_state_stationary() {
        let limits = Limits::default();
        let chain = Chain::explore(
            &Distribution::constant(0u8),
            &limits,
            &mut limits.budget(),
            |e| e,
            |&s| {
                let stay: u32 = if s == 0 { 2 } else { 1 };
                let flip: u32 = 1;
                Distribution::from_weights([(s, Weight::from(stay)), (1 - s, Weight::from(flip))])
            },
        )
        .unwrap();
        let pi = chain.stationary(&mut limits.budget()).unwrap();
        assert_eq!(
            pi.probability(&0),
            crate::Probability::new(3u32.into(), 5u32.into())
        );
        assert!(chain.absorption(&mut limits.budget()).is_err());
    }

    #[test]
    fn too_many_states_is_refused() {
        let limits = Limits {
            max_chain_states: 10,
            ..Limits::default()
        };
        let r = Chain::explore(
            &Distribution::constant(0i64),
            &limits,
            &mut limits.budget(),
            |e| e,
            |&s| Ok::<_, CoreError>(Distribution::constant(s + 1)),
        );
        assert!(matches!(
            r,
            Err(CoreError::TooManyChainStates { limit: 10 })
        ));
    }
}

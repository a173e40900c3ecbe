//! Pools: keep or drop the highest or lowest dice, then sum a score over the kept ones.
//!
//! Identical dice use an outcome-by-outcome dynamic program (as icepool does): walk the faces from the
//! kept end, choose how many dice show each face with binomial weights, and stop tracking a state once
//! its kept dice are all chosen, since the remaining dice then only contribute their total weight. Dice
//! sequences and multisets are never enumerated.
//!
//! Pools whose size is random (dice that explode into extra dice) or whose members differ (groups) use a
//! sequential program instead that adds one roll at a time and tracks only the extreme values that can
//! still matter; its state count is bounded by the work budget.

use std::collections::HashMap;

use num_traits::{One, Zero};

use crate::dice::ChainElement;
use crate::distribution::{Distribution, Weight};
use crate::error::CoreError;
use crate::limbs::{mul_add, to_u32_digits, trimmed};
use crate::limits::{Budget, Limits};

/// Which dice of a pool count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    All,
    Highest(usize),
    Lowest(usize),
    DropHighest(usize),
    DropLowest(usize),
}

impl Keep {
    /// For a pool of exactly `n` dice: keep the highest (`true`) or lowest `k` of them.
    fn resolve(self, n: usize) -> (bool, usize) {
        match self {
            Keep::All => (true, n),
            Keep::Highest(k) => (true, k.min(n)),
            Keep::Lowest(k) => (false, k.min(n)),
            Keep::DropHighest(d) => (false, n - d.min(n)),
            Keep::DropLowest(d) => (true, n - d.min(n)),
        }
    }
}

/// Σ score(die) over the kept dice of `n` independent dice distributed as `die`.
///
/// # Errors
/// `TooManyOutcomes`, `WorkBudget` (refused before starting when the estimated work is too large),
/// `Overflow`.
pub fn keep_sum(
    die: &Distribution<i64>,
    n: usize,
    keep: Keep,
    score: &dyn Fn(i64) -> i64,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Distribution<i64>, CoreError> {
    let (highest, k) = keep.resolve(n);
    if k == 0 {
        return Ok(Distribution::constant(0));
    }
    let scored = die.map(|&x| score(x));
    if k == n {
        return scored.sum_of(n, limits, budget);
    }
    // Faces in walk order (from the kept end), with their scores and weights.
    let mut faces: Vec<(i64, &Weight)> =
        die.entries().iter().map(|(x, w)| (score(*x), w)).collect();
    if highest {
        faces.reverse();
    }
    let smin = faces.iter().map(|f| f.0).min().expect("non-empty");
    let smax = faces.iter().map(|f| f.0).max().expect("non-empty");
    let width = (smax as i128 - smin as i128) as u128;
    limits.check_outcomes(width * k as u128 + 1)?;
    let held: u128 = (0..k as u128).map(|c| c * width + 1).sum();
    limits.check_states(held)?;
    // Each face visits every state (c < k kept so far, each with c·width+1 sums) with up to k−c
    // choices, and builds n powers of two weights.
    let states: u128 = (0..k as u128)
        .map(|c| (k as u128 - c) * (c * width + 1))
        .sum();
    let per_face = states + 2 * n as u128 + (k as u128) * (k as u128);
    // Each step multiplies a number as wide as the total by a coefficient up to as wide.
    let total_limbs = crate::distribution::limbs_of(die.total().bits() * n as u64);
    let coef_limbs = crate::distribution::limbs_of(
        die.entries()
            .iter()
            .map(|(_, w)| w.bits())
            .max()
            .unwrap_or(1)
            * k as u64
            + n as u64,
    );
    budget.spend_estimate(
        per_face * faces.len() as u128 * total_limbs * coef_limbs.min(total_limbs),
    )?;

    // Every weight the program holds is at most the total, so fixed-width numbers of the total's
    // size never overflow: the hot loop then multiplies and adds in place, without allocating.
    let total = num_traits::pow(die.total().clone(), n);
    let limbs = (total.bits() as usize).div_ceil(64) + 1;
    let to_limbs = |w: &Weight| -> Vec<u64> {
        let mut v = w.to_u64_digits();
        v.resize(limbs, 0);
        v
    };

    // below[i]: total weight of the faces after face i in walk order.
    let mut below = vec![Weight::zero(); faces.len()];
    for i in (0..faces.len().saturating_sub(1)).rev() {
        below[i] = &below[i + 1] + faces[i + 1].1;
    }
    // states[c] holds c·width+1 numbers of `limbs` limbs: the weight of having chosen c dice so
    // far (all kept) with score sum c·smin + index.
    let row_len = |c: usize| (c * width as usize + 1) * limbs;
    let mut states: Vec<Vec<u64>> = (0..k).map(|c| vec![0u64; row_len(c)]).collect();
    states[0][0] = 1;
    let out_lo = smin.checked_mul(k as i64).ok_or(CoreError::Overflow)?;
    let mut out = vec![0u64; (width as usize * k + 1) * limbs];
    let last = faces.len() - 1;
    for (i, &(s_i, w_i)) in faces.iter().enumerate() {
        let b = &below[i];
        let mut next: Vec<Vec<u64>> = if i == last {
            Vec::new()
        } else {
            (0..k).map(|c| vec![0u64; row_len(c)]).collect()
        };
        // Powers of w and of b, and binomials, shared by every state with the same c.
        let mut w_pow = vec![Weight::one()];
        for j in 1..k {
            let p = &w_pow[j - 1] * w_i;
            w_pow.push(p);
        }
        let mut b_pow = vec![Weight::one()];
        for e in 1..=n {
            let p = &b_pow[e - 1] * b;
            b_pow.push(p);
        }
        for (c, row) in states.iter().enumerate() {
            if row.iter().all(|&x| x == 0) {
                continue;
            }
            let m = n - c;
            // coef[j] = C(m, j)·wʲ for j < k − c keeps a state open; the rest finish it.
            let mut binom = Weight::one();
            let mut open_total = Weight::zero();
            let mut coefs = Vec::with_capacity(k - c);
            for j in 0..(k - c) {
                let coef = &binom * &w_pow[j];
                open_total += &coef * &b_pow[m - j];
                coefs.push(trimmed(&to_limbs(&coef)).to_vec());
                binom = binom * (m - j) / (j + 1);
            }
            // All the ways that choose ≥ k − c dice here: (w + b)^m minus the open ones.
            let finish = num_traits::pow(w_i + b, m) - open_total;
            let finish = trimmed(&to_limbs(&finish)).to_vec();
            let kept_here = (k - c) as i64 * s_i;
            for (idx, weight) in row.chunks_exact(limbs).enumerate() {
                let weight = trimmed(weight);
                if weight.is_empty() {
                    continue;
                }
                let sum = c as i64 * smin + idx as i64;
                if !finish.is_empty() {
                    let o = (sum + kept_here - out_lo) as usize * limbs;
                    mul_add(&mut out[o..o + limbs], weight, &finish);
                }
                if i == last {
                    continue;
                }
                for (j, coef) in coefs.iter().enumerate() {
                    let c2 = c + j;
                    let s2 = sum + j as i64 * s_i;
                    let at = (s2 - c2 as i64 * smin) as usize * limbs;
                    mul_add(&mut next[c2][at..at + limbs], weight, coef);
                }
            }
        }
        states = next;
    }
    let entries = out
        .chunks_exact(limbs)
        .enumerate()
        .map(|(i, w)| (out_lo + i as i64, Weight::from_slice(&to_u32_digits(w))))
        .collect();
    let mut d = Distribution::from_sorted_unchecked(entries)?;
    debug_assert!(d.total() == &total);
    d.set_total(total);
    Ok(d)
}

/// One member of a sequential pool: a chain of rolls (a die that may explode into extra dice), each
/// roll drawn from `element`; at most `depth` extra rolls.
#[derive(Clone, Debug)]
pub struct Unit {
    pub element: ChainElement,
    pub depth: u64,
}

impl Unit {
    /// A member that is one value (a group member, or a die that cannot explode).
    pub fn single(value: &Distribution<i64>) -> Self {
        Unit {
            element: value.map(|&x| (false, x)),
            depth: 0,
        }
    }
}

/// Σ score over the kept rolls of a pool built from `units`, adding one roll at a time.
///
/// The state is the multiset of extreme values that can still be kept (or dropped), plus the score
/// sum of the rolls already known to be kept when dropping.
///
/// # Errors
/// `WorkBudget` when the state space grows past the budget; `Overflow`.
pub fn sequential_keep_sum(
    units: &[Unit],
    keep: Keep,
    score: &dyn Fn(i64) -> i64,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Distribution<i64>, CoreError> {
    // track: how many extreme values to remember, from which end, and whether the rest are summed.
    let (track, track_highest, sum_rest) = match keep {
        Keep::All => (0, true, true),
        Keep::Highest(k) => (k, true, false),
        Keep::Lowest(k) => (k, false, false),
        Keep::DropHighest(d) => (d, true, true),
        Keep::DropLowest(d) => (d, false, true),
    };
    // (tracked values sorted with the most extreme last, rest score sum, chain still rolling)
    type State = (Vec<i64>, i64, bool);
    let mut states: HashMap<State, Weight> = HashMap::new();
    states.insert((Vec::new(), 0, false), Weight::one());
    let mut total = Weight::one();
    for unit in units {
        let t = unit.element.total();
        for roll in 0..=unit.depth {
            let mut next: HashMap<State, Weight> = HashMap::with_capacity(states.len());
            for ((tracked, rest, rolling), weight) in states {
                if roll > 0 && !rolling {
                    // This chain already stopped; the roll it did not make still carries its weight.
                    *next.entry((tracked, rest, false)).or_default() += weight * t;
                    continue;
                }
                budget.spend(unit.element.len() as u64 * (total.bits() / 64 + 1))?;
                for ((explodes, v), w) in unit.element.entries() {
                    let mut tracked = tracked.clone();
                    let mut rest = rest;
                    // Insert keeping order: ascending when tracking the highest (most extreme last).
                    let pos = if track_highest {
                        tracked.partition_point(|x| x <= v)
                    } else {
                        tracked.partition_point(|x| x >= v)
                    };
                    tracked.insert(pos, *v);
                    if tracked.len() > track {
                        let out = tracked.remove(0);
                        if sum_rest {
                            rest = rest.checked_add(score(out)).ok_or(CoreError::Overflow)?;
                        }
                    }
                    let rolling = *explodes && roll < unit.depth;
                    *next.entry((tracked, rest, rolling)).or_default() += &weight * w;
                }
            }
            limits.check_states(next.len() as u128)?;
            states = next;
            total *= t;
        }
    }
    let mut pairs = Vec::with_capacity(states.len());
    for ((tracked, rest, _), weight) in states {
        let value = if sum_rest {
            rest
        } else {
            tracked
                .iter()
                .try_fold(0i64, |acc, &x| acc.checked_add(score(x)))
                .ok_or(CoreError::Overflow)?
        };
        pairs.push((value, weight));
    }
    let d = Distribution::from_weights(pairs)?;
    debug_assert!(d.total() == &total);
    Ok(d.normalized())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distribution::Probability;

    fn brute_keep(sides: i64, n: usize, keep: Keep) -> Distribution<i64> {
        let mut pairs = Vec::new();
        let count = (sides as usize).pow(n as u32);
        for mut code in 0..count {
            let mut dice: Vec<i64> = (0..n)
                .map(|_| {
                    let f = (code % sides as usize) as i64 + 1;
                    code /= sides as usize;
                    f
                })
                .collect();
            dice.sort();
            let kept: i64 = match keep {
                Keep::All => dice.iter().sum(),
                Keep::Highest(k) => dice.iter().rev().take(k).sum(),
                Keep::Lowest(k) => dice.iter().take(k).sum(),
                Keep::DropHighest(d) => dice.iter().take(n.saturating_sub(d)).sum(),
                Keep::DropLowest(d) => dice.iter().rev().take(n.saturating_sub(d)).sum(),
            };
            pairs.push((kept, Weight::one()));
        }
        Distribution::from_weights(pairs).unwrap()
    }

    #[test]
    fn keep_matches_brute_force() {
        let limits = Limits::default();
        for sides in [1, 2, 4, 6] {
            for n in 0..=4 {
                for k in 0..=5 {
                    for keep in [
                        Keep::Highest(k),
                        Keep::Lowest(k),
                        Keep::DropHighest(k),
                        Keep::DropLowest(k),
                    ] {
                        let die = Distribution::die(sides).unwrap();
                        let got =
                            keep_sum(&die, n, keep, &|x| x, &limits, &mut limits.budget()).unwrap();
                        assert_eq!(got, brute_keep(sides, n, keep), "{n}d{sides} {keep:?}");
                        let units = vec![Unit::single(&die); n];
                        let seq = sequential_keep_sum(
                            &units,
                            keep,
                            &|x| x,
                            &limits,
                            &mut limits.budget(),
                        )
                        .unwrap();
                        assert_eq!(seq, got, "sequential {n}d{sides} {keep:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn highest_of_two_d6_keep_lower_is_seed_000_zero_pool() {
        let limits = Limits::default();
        let die = Distribution::die(6).unwrap();
        let low = keep_sum(
            &die,
            2,
            Keep::Lowest(1),
            &|x| x,
            &limits,
            &mut limits.budget(),
        )
        .unwrap();
        // P(lower of 2d6 ≥ 2) = 25/36 (seed 000 Appendix A, 0d vs 2: 69.44 %).
        assert_eq!(
            low.probability_where(|&x| x >= 2),
            Probability::new(25u32.into(), 36u32.into())
        );
    }

    #[test]
    fn a_hundred_d20_keep_fifty_is_quick_and_whole() {
        let limits = Limits::default();
        let die = Distribution::die(20).unwrap();
        let d = keep_sum(
            &die,
            100,
            Keep::Highest(50),
            &|x| x,
            &limits,
            &mut limits.budget(),
        )
        .unwrap();
        assert_eq!(d.total(), &num_traits::pow(Weight::from(20u32), 100));
        assert_eq!(*d.min_outcome(), 50);
        assert_eq!(*d.max_outcome(), 1000);
    }

    #[test]
    fn over_budget_pool_is_refused_before_work() {
        let limits = Limits {
            work_budget: 1000,
            ..Limits::default()
        };
        let die = Distribution::die(20).unwrap();
        let r = keep_sum(
            &die,
            100,
            Keep::Highest(50),
            &|x| x,
            &limits,
            &mut limits.budget(),
        );
        assert!(matches!(r, Err(CoreError::WorkBudget { .. })));
    }
}

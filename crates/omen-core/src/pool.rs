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
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Keep {
    All,
    Highest(usize),
    Lowest(usize),
    DropHighest(usize),
    DropLowest(usize),
    /// The middle `k` after sorting (Dice Maiden's `km`): of the dice left out, the lower half
    /// (rounded down) are the lowest and the rest the highest, so an odd one out is a highest die.
    Middle(usize),
    /// Skip `skip` dice from one end, then keep the next `take` (`kh3dh1`: from the highest, skip
    /// 1, keep 2).
    Slice {
        from_highest: bool,
        skip: usize,
        take: usize,
    },
    /// Drop the lowest `lowest` and the highest `highest` (`dl1dh1`).
    DropBoth {
        lowest: usize,
        highest: usize,
    },
}

impl Keep {
    /// For a pool of `n` dice sorted from the lowest: how many of the lowest are dropped, and how
    /// many after them are kept.
    pub fn run(self, n: usize) -> (usize, usize) {
        match self {
            Keep::All => (0, n),
            Keep::Highest(k) => (n - k.min(n), k.min(n)),
            Keep::Lowest(k) => (0, k.min(n)),
            Keep::DropHighest(d) => (0, n - d.min(n)),
            Keep::DropLowest(d) => (d.min(n), n - d.min(n)),
            Keep::Middle(k) => {
                let k = k.min(n);
                ((n - k) / 2, k)
            }
            Keep::Slice {
                from_highest,
                skip,
                take,
            } => {
                let skip = skip.min(n);
                let take = take.min(n - skip);
                if from_highest {
                    (n - skip - take, take)
                } else {
                    (skip, take)
                }
            }
            Keep::DropBoth { lowest, highest } => {
                let low = lowest.min(n);
                (low, n - low - highest.min(n - low))
            }
        }
    }

    /// Whether the kept dice are a run from one end of the sorted pool whatever its size.
    pub fn is_one_sided(self) -> bool {
        matches!(
            self,
            Keep::All
                | Keep::Highest(_)
                | Keep::Lowest(_)
                | Keep::DropHighest(_)
                | Keep::DropLowest(_)
        )
    }

    /// The same choice for a pool of exactly `n` dice, from one end when it comes to that.
    fn for_pool(self, n: usize) -> Keep {
        if self.is_one_sided() {
            return self;
        }
        match self.run(n) {
            (0, take) => Keep::Lowest(take),
            (low, take) if low + take == n => Keep::Highest(take),
            _ => self,
        }
    }

    /// For a pool of exactly `n` dice: keep the highest (`true`) or lowest `k` of them.
    fn resolve(self, n: usize) -> (bool, usize) {
        match self {
            Keep::Middle(_) | Keep::Slice { .. } | Keep::DropBoth { .. } => {
                let (low, take) = self.run(n);
                (low > 0, take)
            }
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
    let keep = keep.for_pool(n);
    if !keep.is_one_sided() {
        return middle_sum(die, n, keep.run(n), score, limits, budget);
    }
    let (highest, k) = keep.resolve(n);
    if k == 0 {
        return Ok(Distribution::constant(0));
    }
    let scored = die.map(|&x| score(x));
    if k == n {
        return scored.sum_of(n, limits, budget);
    }
    if k == 1 {
        return extreme_of(die, n, highest, score, budget);
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

/// Σ score over a middle run of `n` dice: after sorting, the lowest `run.0` are dropped, the next
/// `run.1` kept and the rest dropped.
///
/// Walks the faces from the highest, choosing how many dice show each (binomial weights), with the
/// state (dice placed so far, kept score so far); dice placed before the run starts are dropped, and a
/// state finishes once the run is full, since the dice below then only contribute their total weight.
fn middle_sum(
    die: &Distribution<i64>,
    n: usize,
    run: (usize, usize),
    score: &dyn Fn(i64) -> i64,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Distribution<i64>, CoreError> {
    let (low, take) = run;
    // Ranks counted from the highest: [start, end) are kept.
    let start = n - low - take;
    let end = start + take;
    let faces: Vec<(i64, &Weight)> = die.entries().iter().rev().map(|(x, w)| (*x, w)).collect();
    let scores: Vec<i64> = faces.iter().map(|f| score(f.0)).collect();
    let smin = *scores.iter().min().expect("non-empty");
    let smax = *scores.iter().max().expect("non-empty");
    let width = (smax as i128 - smin as i128) as u128;
    limits.check_outcomes(width * take as u128 + 1)?;
    let held = end as u128 * (width * take as u128 + 1);
    limits.check_states(held)?;
    let total_limbs = crate::distribution::limbs_of(die.total().bits() * n as u64);
    budget.spend_estimate(
        faces.len() as u128 * held * (n as u128 + 1) * (total_limbs * total_limbs + BIG_OP_COST),
    )?;
    let mut below = vec![Weight::zero(); faces.len()];
    for i in (0..faces.len().saturating_sub(1)).rev() {
        below[i] = &below[i + 1] + faces[i + 1].1;
    }
    let mut binomials = vec![vec![Weight::one()]];
    for m in 1..=n {
        let prev = &binomials[m - 1];
        let row: Vec<Weight> = (0..=m)
            .map(|j| {
                let a = if j < m {
                    prev[j].clone()
                } else {
                    Weight::zero()
                };
                let b = if j > 0 {
                    prev[j - 1].clone()
                } else {
                    Weight::zero()
                };
                a + b
            })
            .collect();
        binomials.push(row);
    }
    let mut out: HashMap<i64, Weight> = HashMap::new();
    let mut states: HashMap<(usize, i64), Weight> = HashMap::new();
    states.insert((0, 0), Weight::one());
    for (i, &(_, w)) in faces.iter().enumerate() {
        let s = scores[i];
        let w_pow: Vec<Weight> = (0..=n).map(|j| num_traits::pow(w.clone(), j)).collect();
        let b_pow: Vec<Weight> = (0..=n)
            .map(|e| num_traits::pow(below[i].clone(), e))
            .collect();
        let mut next: HashMap<(usize, i64), Weight> = HashMap::new();
        for ((c, sum), weight) in states {
            let m = n - c;
            for j in 0..=m {
                let c2 = c + j;
                let kept = c2.min(end).saturating_sub(c.max(start)) as i64;
                let sum2 = kept
                    .checked_mul(s)
                    .and_then(|k| k.checked_add(sum))
                    .ok_or(CoreError::Overflow)?;
                let coef = &binomials[m][j] * &w_pow[j];
                if c2 >= end {
                    let add = &weight * coef * &b_pow[m - j];
                    if !add.is_zero() {
                        *out.entry(sum2).or_default() += add;
                    }
                } else if i + 1 < faces.len() {
                    *next.entry((c2, sum2)).or_default() += &weight * coef;
                }
            }
        }
        states = next;
    }
    let d = Distribution::from_weights(out)?;
    debug_assert!(d.total() == &num_traits::pow(die.total().clone(), n));
    Ok(d)
}

/// The score of the highest (or lowest) of `n` dice, by the closed form: with C(x) the weight of the
/// faces at or below x (at or above, for the lowest), the weight of "the extreme is x" is
/// C(x)ⁿ − C(x⁻)ⁿ. One power per face instead of a dynamic program over the pool.
fn extreme_of(
    die: &Distribution<i64>,
    n: usize,
    highest: bool,
    score: &dyn Fn(i64) -> i64,
    budget: &mut Budget,
) -> Result<Distribution<i64>, CoreError> {
    let mut faces: Vec<(i64, &Weight)> = die.entries().iter().map(|(x, w)| (*x, w)).collect();
    if !highest {
        faces.reverse();
    }
    // A power by squaring of a number growing to the total's size: about its limbs squared per face.
    let total_limbs = crate::distribution::limbs_of(die.total().bits() * n as u64);
    budget.spend_estimate(
        faces.len() as u128 * (total_limbs * total_limbs + crate::distribution::BIG_OP),
    )?;
    let mut below = Weight::zero();
    let mut below_pow = Weight::zero();
    let mut pairs = Vec::with_capacity(faces.len());
    for (x, w) in faces {
        below += w;
        let pow = num_traits::pow(below.clone(), n);
        pairs.push((score(x), &pow - &below_pow));
        below_pow = pow;
    }
    let d = Distribution::from_weights(pairs)?;
    debug_assert!(d.total() == &num_traits::pow(die.total().clone(), n));
    Ok(d)
}

/// Σ score over the kept rolls of `n` dice that explode into extra dice (at most `depth` extra each),
/// when every exploding roll is at least every roll that stops the chain, or at most all of them (the
/// usual cases: `!`, `!>=18`, `!<=1`); `None` otherwise.
///
/// A chain is j exploding rolls and one that stops it (j ≤ depth), or depth + 1 exploding rolls when
/// the limit stops it. Given how many rolls of each kind the pool holds, the rolls of a kind are
/// independent draws from that kind's faces, and every roll of the upper kind is at least every roll
/// of the lower one: keeping or dropping from the pool is then all of one kind plus a keep or drop of
/// identical dice of the other (the outcome-by-outcome program of [`keep_sum`]). Pools are grouped by
/// that partial keep, so each is computed once and mixed with the sums it goes with.
///
/// # Errors
/// As for [`keep_sum`].
pub fn exploding_keep_sum(
    element: &ChainElement,
    n: usize,
    depth: u64,
    keep: Keep,
    score: &dyn Fn(i64) -> i64,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Option<Distribution<i64>>, CoreError> {
    let class = |explodes: bool| -> Option<Distribution<i64>> {
        let pairs: Vec<(i64, Weight)> = element
            .entries()
            .iter()
            .filter(|((e, _), _)| *e == explodes)
            .map(|((_, v), w)| (*v, w.clone()))
            .collect();
        Distribution::from_weights(pairs).ok()
    };
    let (Some(exploding), Some(stopping)) = (class(true), class(false)) else {
        return Ok(None);
    };
    let exploding_upper = exploding.min_outcome() >= stopping.max_outcome();
    if !exploding_upper && exploding.max_outcome() > stopping.min_outcome() {
        return Ok(None);
    }
    let depth = usize::try_from(depth).map_err(|_| CoreError::Overflow)?;
    let max_rolls = n.checked_mul(depth + 1).ok_or(CoreError::Overflow)?;
    // The joint weight of (exploding rolls, stopping rolls) in the pool: n chains, each of type j
    // (j exploding, one stopping; weight pʲ·q·t^(depth−j)) or truncated (depth + 1 exploding; p^(depth+1)).
    let p = exploding.total().clone();
    let q = stopping.total().clone();
    let t = &p + &q;
    budget.spend_estimate(
        (n as u128 + 1)
            * (max_rolls as u128 + 1)
            * (depth as u128 + 2)
            * (crate::distribution::limbs_of(t.bits() * max_rolls as u64 + 64).pow(2)
                + BIG_OP_COST),
    )?;
    let mut chain: Vec<Vec<Weight>> = vec![vec![Weight::zero(); depth + 2]; 2];
    for (j, w) in chain[1].iter_mut().take(depth + 1).enumerate() {
        *w = num_traits::pow(p.clone(), j) * &q * num_traits::pow(t.clone(), depth - j);
    }
    chain[0][depth + 1] = num_traits::pow(p.clone(), depth + 1);
    // joint[x][e]: weight of x stopping rolls and e exploding rolls so far.
    let mut joint: Vec<Vec<Weight>> = vec![vec![Weight::one()]];
    for _ in 0..n {
        let mut next: Vec<Vec<Weight>> = vec![Vec::new(); joint.len() + 1];
        for (x, row) in joint.iter().enumerate() {
            for (e, w) in row.iter().enumerate() {
                if w.is_zero() {
                    continue;
                }
                for (dx, chain_row) in chain.iter().enumerate() {
                    for (de, cw) in chain_row.iter().enumerate() {
                        if cw.is_zero() {
                            continue;
                        }
                        let target = &mut next[x + dx];
                        if target.len() <= e + de {
                            target.resize(e + de + 1, Weight::zero());
                        }
                        target[e + de] += w * cw;
                    }
                }
            }
        }
        joint = next;
    }
    let (upper, lower) = if exploding_upper {
        (&exploding, &stopping)
    } else {
        (&stopping, &exploding)
    };
    // Each (upper count, lower count) is: the whole of one kind summed, plus a partial keep of the
    // other. Grouped by the partial keep: (upper kind?, count, keep) -> [(weight, whole count)].
    let mut groups: std::collections::BTreeMap<(bool, usize, KeepKey), Vec<(Weight, usize)>> =
        std::collections::BTreeMap::new();
    for (x, row) in joint.iter().enumerate() {
        for (e, w) in row.iter().enumerate() {
            if w.is_zero() {
                continue;
            }
            let (u, l) = if exploding_upper { (e, x) } else { (x, e) };
            // (partial on the upper kind?, partial count, its keep, whole count)
            let (on_upper, count, partial, whole) = match keep {
                Keep::All => (true, u, Keep::All, l),
                Keep::Highest(k) if k <= u => (true, u, Keep::Highest(k), 0),
                Keep::Highest(k) => (false, l, Keep::Highest(k - u), u),
                Keep::Lowest(k) if k <= l => (false, l, Keep::Lowest(k), 0),
                Keep::Lowest(k) => (true, u, Keep::Lowest(k - l), l),
                Keep::DropLowest(d) if d <= l => (false, l, Keep::DropLowest(d), u),
                Keep::DropLowest(d) => (true, u, Keep::DropLowest(d - l), 0),
                Keep::DropHighest(d) if d <= u => (true, u, Keep::DropHighest(d), l),
                Keep::DropHighest(d) => (false, l, Keep::DropHighest(d - u), 0),
                // A middle run mixes both kinds in ways this split does not cover.
                Keep::Middle(_) | Keep::Slice { .. } | Keep::DropBoth { .. } => return Ok(None),
            };
            groups
                .entry((on_upper, count, KeepKey::of(partial)))
                .or_default()
                .push((w.clone(), whole));
        }
    }
    let mut sums: std::collections::HashMap<(bool, usize), Distribution<i64>> =
        std::collections::HashMap::new();
    let mut parts = Vec::with_capacity(groups.len());
    for ((on_upper, count, partial), wholes) in groups {
        let (partial_die, whole_die) = if on_upper {
            (upper, lower)
        } else {
            (lower, upper)
        };
        let kept = keep_sum(partial_die, count, partial.keep(), score, limits, budget)?;
        let mut mixed = Vec::with_capacity(wholes.len());
        let mut group_weight = Weight::zero();
        for (w, whole) in wholes {
            let sum = match sums.entry((!on_upper, whole)) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(whole_die.map(|&x| score(x)).sum_of(whole, limits, budget)?)
                }
            };
            group_weight += &w;
            mixed.push((w, sum.clone()));
        }
        let whole = Distribution::mixture(mixed, budget)?;
        let part = kept.add(&whole, limits, budget)?;
        parts.push((group_weight, part));
    }
    Ok(Some(Distribution::mixture(parts, budget)?))
}

/// A `Keep` as a map key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct KeepKey(Keep);

impl KeepKey {
    fn of(keep: Keep) -> Self {
        KeepKey(keep)
    }

    fn keep(self) -> Keep {
        self.0
    }
}

/// What one allocating big-integer operation costs beyond its limbs.
const BIG_OP_COST: u128 = 16;

/// What one entry of a hashed state map costs besides its arithmetic (hashing, cloning a small vector,
/// allocating), in limb multiply-adds.
const ENTRY_COST: u64 = 64;

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
        Keep::Middle(_) | Keep::Slice { .. } | Keep::DropBoth { .. } => {
            return Err(CoreError::Unsupported(
                "middle runs of dice that explode into extra dice or of groups",
            ));
        }
    };
    // (tracked values sorted with the most extreme last, rest score sum, chain still rolling)
    type State = (Vec<i64>, i64, bool);
    let mut states: HashMap<State, Weight> = HashMap::new();
    states.insert((Vec::new(), 0, false), Weight::one());
    let mut total = Weight::one();
    for unit in units {
        let t = unit.element.total();
        let element_limbs = unit
            .element
            .entries()
            .iter()
            .map(|(_, w)| w.bits() / 64 + 1)
            .max()
            .unwrap_or(1);
        for roll in 0..=unit.depth {
            let mut next: HashMap<State, Weight> = HashMap::with_capacity(states.len());
            for ((tracked, rest, rolling), weight) in states {
                if roll > 0 && !rolling {
                    // This chain already stopped; the roll it did not make still carries its weight.
                    *next.entry((tracked, rest, false)).or_default() += weight * t;
                    continue;
                }
                // Each face multiplies this state's weight by the face's and clones and hashes the
                // tracked values: limbs times limbs, plus the bookkeeping of one map entry.
                let weight_limbs = weight.bits() / 64 + 1;
                budget.spend(
                    (unit.element.len() as u64).saturating_mul(
                        weight_limbs
                            .saturating_mul(element_limbs)
                            .saturating_add(ENTRY_COST + track as u64),
                    ),
                )?;
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
            let dice: Vec<i64> = (0..n)
                .map(|_| {
                    let f = (code % sides as usize) as i64 + 1;
                    code /= sides as usize;
                    f
                })
                .collect();
            // The kept dice as the sampler picks them.
            let mask = crate::spec::select_kept(&dice, keep);
            let kept: i64 = dice.iter().zip(&mask).filter(|p| *p.1).map(|p| p.0).sum();
            pairs.push((kept, Weight::one()));
        }
        Distribution::from_weights(pairs).unwrap()
    }

    /// Middle runs (`km`, `kh3dh1`, `dl1dh1`) against every sequence of small pools, including
    /// pools too small for the run and a score that reorders nothing but shifts values.
    #[test]
    fn middle_runs_match_brute_force() {
        let limits = Limits::default();
        for sides in [1, 2, 3, 5] {
            for n in 0..=5 {
                for a in 0..=4 {
                    for b in 0..=3 {
                        for keep in [
                            Keep::Middle(a),
                            Keep::Slice {
                                from_highest: true,
                                skip: b,
                                take: a,
                            },
                            Keep::Slice {
                                from_highest: false,
                                skip: b,
                                take: a,
                            },
                            Keep::DropBoth {
                                lowest: a,
                                highest: b,
                            },
                        ] {
                            let die = Distribution::uniform(1..=sides).unwrap();
                            let fast =
                                keep_sum(&die, n, keep, &|x| x, &limits, &mut limits.budget())
                                    .unwrap();
                            assert_eq!(fast, brute_keep(sides, n, keep), "{n}d{sides} {keep:?}");
                        }
                    }
                }
            }
        }
    }

    /// Dice Maiden's rule: of the dice left out, the odd one is a highest die. 3 dice keep the middle
    /// 2 by dropping the highest: on 3d2 the sums are those of the lowest two.
    #[test]
    fn keep_middle_drops_the_odd_die_from_the_top() {
        let limits = Limits::default();
        let die = Distribution::uniform(1..=2).unwrap();
        let middle = keep_sum(
            &die,
            3,
            Keep::Middle(2),
            &|x| x,
            &limits,
            &mut limits.budget(),
        );
        let lowest = keep_sum(
            &die,
            3,
            Keep::Lowest(2),
            &|x| x,
            &limits,
            &mut limits.budget(),
        );
        assert_eq!(middle.unwrap(), lowest.unwrap());
        assert_eq!(Keep::Middle(2).run(5), (1, 2));
        assert_eq!(Keep::Middle(1).run(4), (1, 1));
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
    fn exploding_pools_match_the_sequential_program() {
        use crate::dice::{Compare, Condition};
        let limits = Limits::default();
        // (sides, explode condition): on the top face, on the top two, on the bottom face.
        let cases = [
            (2, Condition::new(Compare::Eq, 2)),
            (4, Condition::new(Compare::Ge, 3)),
            (6, Condition::new(Compare::Eq, 6)),
            (4, Condition::new(Compare::Le, 1)),
        ];
        for (sides, condition) in cases {
            let element = Distribution::die(sides)
                .unwrap()
                .map(|&x| (condition.holds(x), x));
            for depth in 0..=2 {
                for n in 0..=3 {
                    for k in 0..=4 {
                        for keep in [
                            Keep::Highest(k),
                            Keep::Lowest(k),
                            Keep::DropHighest(k),
                            Keep::DropLowest(k),
                        ] {
                            for counting in [false, true] {
                                let score = |x: i64| if counting { i64::from(x >= 3) } else { x };
                                let fast = exploding_keep_sum(
                                    &element,
                                    n,
                                    depth,
                                    keep,
                                    &score,
                                    &limits,
                                    &mut limits.budget(),
                                )
                                .unwrap()
                                .expect("ordered kinds");
                                let unit = Unit {
                                    element: element.clone(),
                                    depth,
                                };
                                let slow = sequential_keep_sum(
                                    &vec![unit; n],
                                    keep,
                                    &score,
                                    &limits,
                                    &mut limits.budget(),
                                )
                                .unwrap();
                                assert_eq!(
                                    fast, slow,
                                    "{n}d{sides}! {condition:?} depth {depth} {keep:?} {counting}"
                                );
                            }
                        }
                    }
                }
            }
        }
        // Kinds that interleave (explode on a middle face) are left to the sequential program.
        let middle = Distribution::die(6).unwrap().map(|&x| (x == 3, x));
        let r = exploding_keep_sum(
            &middle,
            3,
            2,
            Keep::Highest(1),
            &|x| x,
            &limits,
            &mut limits.budget(),
        )
        .unwrap();
        assert!(r.is_none());
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

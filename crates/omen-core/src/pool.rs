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

use crate::distribution::{Distribution, Weight};
use crate::error::CoreError;
use crate::limbs::{mul_add, to_weight, trimmed};
use crate::limits::{Budget, Limits};

mod exploding;
mod extreme;
mod sequential;

pub use exploding::exploding_keep_sum;
use extreme::extreme_of;
pub use sequential::{Unit, sequential_keep_sum};

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
    keep_sum_with(
        die,
        n,
        keep,
        score,
        limits,
        budget,
        &mut SumsBeyond::default(),
    )
}

/// [`keep_sum`] with the sums of the faces beyond each face kept in `beyond` for the next call on
/// the same die and score.
fn keep_sum_with(
    die: &Distribution<i64>,
    n: usize,
    keep: Keep,
    score: &dyn Fn(i64) -> i64,
    limits: &Limits,
    budget: &mut Budget,
    beyond: &mut SumsBeyond,
) -> Result<Distribution<i64>, CoreError> {
    let keep = keep.for_pool(n);
    if !keep.is_one_sided() {
        return middle_sum(die, n, keep.run(n), score, limits, budget);
    }
    let (highest, k) = keep.resolve(n);
    if k == 0 {
        return Ok(Distribution::constant(0));
    }
    if k == 1 {
        return extreme_of(die, n, highest, score, budget);
    }
    if k == n {
        return die.map(|&x| score(x)).sum_of(n, limits, budget);
    }
    let keep_walk_estimate = keep_walk_cost(die, n, k, score);
    if let Keep::DropLowest(d) | Keep::DropHighest(d) = keep {
        let from_lowest = matches!(keep, Keep::DropLowest(_));
        if drop_walk_cost(die, n, d, score) < keep_walk_estimate {
            return drop_walk(die, n, d, from_lowest, score, limits, budget, beyond);
        }
    }
    keep_walk(die, n, (highest, k), score, limits, budget)
}

/// Σ score over the `k` highest (or lowest) of `n` dice, by a walk over the faces from the kept
/// end: the state is how many dice are chosen so far (all kept) and their score sum, and a face
/// takes any number of the dice left, binomially weighted.
fn keep_walk(
    die: &Distribution<i64>,
    n: usize,
    (highest, k): (bool, usize),
    score: &dyn Fn(i64) -> i64,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Distribution<i64>, CoreError> {
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
    budget.spend_estimate(keep_walk_work(die, n, k, width))?;

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
            // Paid up front; a cancelled computation still stops within a face (a row is about
            // k·width·limbs² limb operations: milliseconds for `300d20kh150`).
            budget.check()?;
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
    from_limbs(&out, limbs, out_lo, total)
}

/// The work of [`keep_walk`], paid before it starts: each face visits every state (c < k kept so
/// far, each with c·width+1 sums) with up to k−c choices and builds n powers of two weights; each
/// step multiplies a number as wide as the total by a coefficient up to as wide.
fn keep_walk_work(die: &Distribution<i64>, n: usize, k: usize, width: u128) -> u128 {
    let states: u128 = (0..k as u128)
        .map(|c| (k as u128 - c) * (c * width + 1))
        .sum();
    let per_face = states + 2 * n as u128 + (k as u128) * (k as u128);
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
    per_face * die.len() as u128 * total_limbs * coef_limbs.min(total_limbs)
}

/// The distribution a walk accumulated as fixed-width limbs, one weight per sum from `out_lo` up;
/// `total` is the walk's known total weight.
fn from_limbs(
    out: &[u64],
    limbs: usize,
    out_lo: i64,
    total: Weight,
) -> Result<Distribution<i64>, CoreError> {
    let entries = out
        .chunks_exact(limbs)
        .enumerate()
        .map(|(i, w)| (out_lo + i as i64, to_weight(w)))
        .collect();
    let mut d = Distribution::from_sorted_unchecked(entries)?;
    debug_assert!(d.total() == &total);
    d.set_total(total);
    Ok(d)
}

/// The work of [`keep_sum`]'s walk from the kept end, as it prices it.
fn keep_walk_cost(die: &Distribution<i64>, n: usize, k: usize, score: &dyn Fn(i64) -> i64) -> u128 {
    let (smin, smax) = score_range(die, score);
    let width = (smax as i128 - smin as i128) as u128;
    let states: u128 = (0..k as u128)
        .map(|c| (k as u128 - c) * (c * width + 1))
        .sum();
    let per_face = states + 2 * n as u128 + (k as u128) * (k as u128);
    let (total_limbs, coef_limbs) = walk_limbs(die, n, k);
    per_face * die.len() as u128 * total_limbs * coef_limbs.min(total_limbs)
}

/// The work of [`drop_walk`], priced the same way: for every face, a product for every count of
/// dice dropped so far and every count showing the face, then for every count of dice left beyond
/// it their sums added in. Building those sums pays as it goes, and only once for the walks that
/// share them.
fn drop_walk_cost(die: &Distribution<i64>, n: usize, d: usize, score: &dyn Fn(i64) -> i64) -> u128 {
    let scores: Vec<i64> = die.outcomes().map(|&x| score(x)).collect();
    let (total_limbs, coef_limbs) = walk_limbs(die, n, n);
    let (n, d) = (n as u128, d as u128);
    // From either end, the faces beyond face i are those after it: from the lowest a suffix of the
    // scores, from the highest a prefix. Their ranges come from running minima and maxima, so that
    // pricing a die of a million faces stays linear in its faces.
    let width = |(lo, hi): (i64, i64)| {
        if lo > hi {
            0
        } else {
            (hi as i128 - lo as i128) as u128
        }
    };
    let running = |it: &mut dyn Iterator<Item = &i64>| -> Vec<(i64, i64)> {
        let mut acc = (i64::MAX, i64::MIN);
        let mut out = vec![acc];
        for &s in it {
            acc = (acc.0.min(s), acc.1.max(s));
            out.push(acc);
        }
        out
    };
    // prefix[j]: the range of scores[..j]; suffix[j]: of the last j scores.
    let prefix = running(&mut scores.iter());
    let suffix = running(&mut scores.iter().rev());
    let len = scores.len();
    let beyond_width = |i: usize, from_lowest: bool| -> u128 {
        let beyond = len - 1 - i;
        width(if from_lowest {
            suffix[beyond]
        } else {
            prefix[beyond]
        })
    };
    let walk = |from_lowest: bool| -> u128 {
        (0..scores.len())
            .map(|i| {
                let width = beyond_width(i, from_lowest);
                // The counts placed here (big products), then every sum of the dice left.
                d * (n + 1) * 4 + (n - d + 1) * ((n - d) * width / 2 + 1)
            })
            .sum()
    };
    walk(true).max(walk(false)) * total_limbs * coef_limbs.min(total_limbs)
}

fn score_range(die: &Distribution<i64>, score: &dyn Fn(i64) -> i64) -> (i64, i64) {
    let scores = die.outcomes().map(|&x| score(x));
    let (lo, hi) = scores.fold((i64::MAX, i64::MIN), |(lo, hi), s| (lo.min(s), hi.max(s)));
    (lo, hi)
}

fn walk_limbs(die: &Distribution<i64>, n: usize, k: usize) -> (u128, u128) {
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
    (total_limbs, coef_limbs)
}

/// Σ score over `n` dice less the `d` lowest (or highest), walking the faces from the dropped end.
///
/// Until `d` dice are placed, every die placed is dropped, so the only state is how many are: a
/// handful of numbers instead of the kept walk's (kept count, score sum) pairs, which is what makes
/// dropping a few of many dice as fast as keeping a few. Once the count passes `d` at some face, the
/// dice past it there are kept, and every die left shows a face beyond it: their sum is the sum of
/// that many rolls of the faces beyond, computed once per face and count.
#[allow(clippy::too_many_arguments)] // the walk's inputs and the tables it shares between calls
fn drop_walk(
    die: &Distribution<i64>,
    n: usize,
    d: usize,
    from_lowest: bool,
    score: &dyn Fn(i64) -> i64,
    limits: &Limits,
    budget: &mut Budget,
    sums_beyond: &mut SumsBeyond,
) -> Result<Distribution<i64>, CoreError> {
    budget.spend_estimate(drop_walk_cost(die, n, d, score))?;
    let k = n - d;
    let mut faces: Vec<(i64, &Weight)> =
        die.entries().iter().map(|(x, w)| (score(*x), w)).collect();
    if !from_lowest {
        faces.reverse();
    }
    let (smin, smax) = score_range(die, score);
    let width = (smax as i128 - smin as i128) as u128;
    limits.check_outcomes(width * k as u128 + 1)?;
    limits.check_states(d as u128 + (n as u128 + 1) * (width * n as u128 + 1))?;
    let total = num_traits::pow(die.total().clone(), n);
    let limbs = (total.bits() as usize).div_ceil(64) + 1;
    let out_lo = smin.checked_mul(k as i64).ok_or(CoreError::Overflow)?;
    let mut out = vec![0u64; (width as usize * k + 1) * limbs];
    // binomials[c][j] = C(n − c, j): the rows the walk uses, one per count dropped so far.
    let binomials: Vec<Vec<Weight>> = (0..d)
        .map(|c| {
            let m = n - c;
            let mut row = Vec::with_capacity(m + 1);
            let mut b = Weight::one();
            for j in 0..=m {
                row.push(b.clone());
                b = b * (m - j) / (j + 1);
            }
            row
        })
        .collect();
    // state[c]: the weight of having placed (and dropped) c < d dice so far.
    let mut state: Vec<Weight> = vec![Weight::zero(); d];
    state[0] = Weight::one();
    for (i, &(s_i, w_i)) in faces.iter().enumerate() {
        let last = i + 1 == faces.len();
        // above[r]: the weights of the score sums of r dice showing faces beyond this one, dense
        // from r·(lowest score beyond).
        let beyond = &faces[i + 1..];
        let beyond_lo = beyond.iter().map(|f| f.0).min().unwrap_or(0);
        let above = sums_beyond.rows(from_lowest, i, beyond, beyond_lo, n - d, limits, budget)?;
        let w_pow: Vec<Weight> = (0..=n)
            .scan(Weight::one(), |p, _| {
                let cur = p.clone();
                *p *= w_i;
                Some(cur)
            })
            .collect();
        let mut next: Vec<Weight> = vec![Weight::zero(); d];
        // finished[r]: the weight of having dropped d dice by this face with r dice left, all
        // beyond it. The kept dice here are then n − d − r, whatever the way there.
        let mut finished: Vec<Weight> = vec![Weight::zero(); n - d + 1];
        for c in 0..d {
            budget.check()?;
            if state[c].is_zero() {
                continue;
            }
            let m = n - c;
            for j in 0..=m {
                let coef = &state[c] * &binomials[c][j] * &w_pow[j];
                if c + j < d {
                    // Still dropping: the other m − j dice show faces beyond this one.
                    if !last {
                        next[c + j] += coef;
                    }
                    continue;
                }
                finished[m - j] += coef;
            }
        }
        for (rest, weight) in finished.iter().enumerate() {
            if weight.is_zero() || (rest > 0 && beyond.is_empty()) {
                continue; // nothing here, or no face left for the rest
            }
            let kept_here = (n - d - rest) as i64 * s_i;
            let base = kept_here + rest as i64 * beyond_lo - out_lo;
            let weight = weight.to_u64_digits();
            for (at, w) in above[rest].iter().enumerate() {
                if w.is_empty() {
                    continue;
                }
                let o = (base as usize + at) * limbs;
                mul_add(&mut out[o..o + limbs], w, trimmed(&weight));
            }
        }
        state = next;
    }
    from_limbs(&out, limbs, out_lo, total)
}

/// The weights of the score sums of r dice showing the faces beyond face i (in walk order), as
/// trimmed limbs, for every r built so far: shared by the drop walks over one die and score.
#[derive(Default)]
struct SumsBeyond {
    /// Per direction (from the highest, from the lowest), per face: the rows for r = 0, 1, ….
    tables: [Vec<Vec<Vec<Vec<u64>>>>; 2],
}

impl SumsBeyond {
    #[allow(clippy::too_many_arguments)] // one table's place, its faces, and the limits it pays
    fn rows(
        &mut self,
        from_lowest: bool,
        face: usize,
        beyond: &[(i64, &Weight)],
        beyond_lo: i64,
        up_to: usize,
        limits: &Limits,
        budget: &mut Budget,
    ) -> Result<&[Vec<Vec<u64>>], CoreError> {
        let table = &mut self.tables[usize::from(from_lowest)];
        if table.len() <= face {
            table.resize(face + 1, Vec::new());
        }
        let rows = &mut table[face];
        if rows.is_empty() {
            rows.push(vec![vec![1]]);
        }
        if beyond.is_empty() {
            return Ok(rows);
        }
        let beyond_hi = beyond.iter().map(|f| f.0).max().unwrap_or(0);
        let width = (beyond_hi - beyond_lo) as usize;
        while rows.len() <= up_to {
            let r = rows.len();
            limits.check_outcomes((r * width + 1) as u128)?;
            let prev = &rows[r - 1];
            let limbs = prev.iter().map(Vec::len).max().unwrap_or(1)
                + beyond
                    .iter()
                    .map(|(_, w)| w.bits() as usize / 64 + 1)
                    .max()
                    .unwrap_or(1)
                + 1;
            budget.spend_estimate((prev.len() * beyond.len() * limbs) as u128 + 64)?;
            let mut row = vec![vec![0u64; limbs]; r * width + 1];
            for (at, w) in prev.iter().enumerate() {
                if w.is_empty() {
                    continue;
                }
                for &(s, fw) in beyond {
                    let target = &mut row[at + (s - beyond_lo) as usize];
                    mul_add(target, w, trimmed(&fw.to_u64_digits()));
                }
            }
            let row = row.into_iter().map(|x| trimmed(&x).to_vec()).collect();
            rows.push(row);
        }
        Ok(rows)
    }
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
    let binomials = binomial_rows(n);
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
            budget.check()?;
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

/// Pascal's triangle to row `n`: `rows[m][j]` is C(m, j), the ways to choose which `j` of `m` dice
/// show a face.
pub fn binomial_rows(n: usize) -> Vec<Vec<Weight>> {
    let mut rows = vec![vec![Weight::one()]];
    for m in 1..=n {
        let prev = &rows[m - 1];
        let row = (0..=m)
            .map(|j| {
                let left = if j < m {
                    prev[j].clone()
                } else {
                    Weight::zero()
                };
                let right = if j > 0 {
                    prev[j - 1].clone()
                } else {
                    Weight::zero()
                };
                left + right
            })
            .collect();
        rows.push(row);
    }
    rows
}

/// What one allocating big-integer operation costs beyond its limbs.
const BIG_OP_COST: u128 = 16;

#[cfg(test)]
mod tests;

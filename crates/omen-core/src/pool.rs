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
    let scored = die.map(|&x| score(x));
    if k == n {
        return scored.sum_of(n, limits, budget);
    }
    if k == 1 {
        return extreme_of(die, n, highest, score, budget);
    }
    let keep_walk_estimate = keep_walk_cost(die, n, k, score);
    if let Keep::DropLowest(d) | Keep::DropHighest(d) = keep {
        let from_lowest = matches!(keep, Keep::DropLowest(_));
        if drop_walk_cost(die, n, d, score) < keep_walk_estimate {
            return drop_walk(die, n, d, from_lowest, score, limits, budget, beyond);
        }
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
        .map(|(i, w)| (out_lo + i as i64, Weight::from_slice(&to_u32_digits(w))))
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
    if let Some(pairs) = extreme_weights_small(&faces, n, die.total()) {
        return Distribution::from_weights(pairs.into_iter().map(|(x, w)| (score(x), w)));
    }
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

/// [`extreme_of`]'s weights, face by face in walk order, when the die's total fits in a limb (any
/// die but a huge mixture): in machine integers when the pool's total fits in a u128, otherwise in
/// fixed-width limbs where C(x)ⁿ is the power of C(x)'s odd part shifted by its factors of two, and
/// each odd part's power is computed once (for a d20, 9 powers instead of 20).
fn extreme_weights_small(
    faces: &[(i64, &Weight)],
    n: usize,
    total: &Weight,
) -> Option<Vec<(i64, Weight)>> {
    use num_traits::ToPrimitive;
    let total_bits = total.bits() as usize * n;
    let mut below = 0u64;
    if total_bits <= 128 {
        let (mut below_pow, n) = (0u128, u32::try_from(n).ok()?);
        return faces
            .iter()
            .map(|&(x, w)| {
                below += w.to_u64()?;
                let pow = u128::from(below).pow(n);
                let weight = Weight::from(pow - below_pow);
                below_pow = pow;
                Some((x, weight))
            })
            .collect();
    }
    total.to_u64()?;
    let width = total_bits / 64 + 1;
    let mut odd_powers: Vec<(u64, Vec<u64>)> = Vec::new();
    // C(x⁻)ⁿ, replaced face by face by C(x)ⁿ in the same pass that writes their difference.
    let mut below_pow = vec![0u64; width];
    let mut digits: Vec<u32> = Vec::with_capacity(2 * width);
    let mut pairs = Vec::with_capacity(faces.len());
    for &(x, w) in faces {
        below += w.to_u64()?;
        let twos = below.trailing_zeros() as usize;
        let odd = below >> twos;
        let at = match odd_powers.iter().position(|(o, _)| *o == odd) {
            Some(at) => at,
            None => {
                odd_powers.push((odd, crate::limbs::pow_small(odd, n, width)));
                odd_powers.len() - 1
            }
        };
        crate::limbs::shifted_step(&odd_powers[at].1, twos * n, &mut below_pow, &mut digits);
        pairs.push((x, Weight::from_slice(&digits)));
    }
    Some(pairs)
}

/// Σ score over the kept rolls of `n` dice that explode into extra dice (at most `depth` extra each),
/// for any faces that explode; `None` for a middle run or when no roll (or every roll) explodes.
///
/// When every exploding roll is at least every roll that stops the chain, or at most all of them (the
/// usual cases: `!`, `!>=18`, `!<=1`), the keep splits into whole sums and one keep of identical dice,
/// as below; otherwise (`!=1,20`) [`interleaved_keep_sum`] walks both kinds of rolls face by face.
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
    let depth = usize::try_from(depth).map_err(|_| CoreError::Overflow)?;
    if !exploding_upper && exploding.max_outcome() > stopping.min_outcome() {
        return interleaved_keep_sum(element, n, depth, keep, score, limits, budget);
    }
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
    let (mut upper_beyond, mut lower_beyond) = (SumsBeyond::default(), SumsBeyond::default());
    let mut parts = Vec::with_capacity(groups.len());
    for ((on_upper, count, partial), wholes) in groups {
        let (partial_die, whole_die) = if on_upper {
            (upper, lower)
        } else {
            (lower, upper)
        };
        let shared = if on_upper {
            &mut upper_beyond
        } else {
            &mut lower_beyond
        };
        let kept = keep_sum_with(
            partial_die,
            count,
            partial.keep(),
            score,
            limits,
            budget,
            shared,
        )?;
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

/// Σ score over the kept rolls of `n` dice that explode into extra dice, whatever faces explode:
/// exploding faces may lie on both sides of the faces that stop the chain (`!=1,20`), or a value may
/// explode or not depending on a step after the explosion. `None` for a middle run.
///
/// As for [`exploding_keep_sum`], given how many rolls of each kind the pool holds (e exploding, x
/// stopping) it is a pool of two kinds of identical dice, the exploding faces and the stopping ones.
/// The walk goes from the kept end face by face, choosing how many dice of each kind show the face
/// (binomial weights), with the state (e and x left to place, c placed and kept so far, their score
/// sum); it starts from every (e, x) with the weight of the chains that give it, and a state finishes
/// once its kept dice are all chosen, the dice left then adding only their total weight. A drop keeps
/// all but d of the pool, whose size every state knows (c + e + x). The work is paid state by state.
///
/// # Errors
/// `TooManyOutcomes`, `TooManyStates`, `WorkBudget`, `Overflow`.
fn interleaved_keep_sum(
    element: &ChainElement,
    n: usize,
    depth: usize,
    keep: Keep,
    score: &dyn Fn(i64) -> i64,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Option<Distribution<i64>>, CoreError> {
    // (walk from the highest face?, kept dice of a pool of `size` rolls)
    let (from_highest, target): (bool, Box<dyn Fn(usize) -> usize>) = match keep {
        Keep::Highest(k) => (true, Box::new(move |size: usize| k.min(size))),
        Keep::Lowest(k) => (false, Box::new(move |size: usize| k.min(size))),
        Keep::DropLowest(d) => (true, Box::new(move |size: usize| size.saturating_sub(d))),
        Keep::DropHighest(d) => (false, Box::new(move |size: usize| size.saturating_sub(d))),
        Keep::All => (true, Box::new(|size: usize| size)),
        Keep::Middle(_) | Keep::Slice { .. } | Keep::DropBoth { .. } => return Ok(None),
    };
    // Each value's weight as an exploding roll and as a stopping one, in walk order.
    let mut by_value: std::collections::BTreeMap<i64, (Weight, Weight)> =
        std::collections::BTreeMap::new();
    for ((explodes, v), w) in element.entries() {
        let slot = by_value.entry(*v).or_default();
        if *explodes {
            slot.0 += w;
        } else {
            slot.1 += w;
        }
    }
    let mut faces: Vec<(i64, Weight, Weight)> =
        by_value.into_iter().map(|(v, (a, b))| (v, a, b)).collect();
    if from_highest {
        faces.reverse();
    }
    let p: Weight = faces.iter().map(|f| &f.1).sum();
    let q: Weight = faces.iter().map(|f| &f.2).sum();
    if p.is_zero() || q.is_zero() {
        return Ok(None);
    }
    let t = &p + &q;
    let max_rolls = n.checked_mul(depth + 1).ok_or(CoreError::Overflow)?;
    budget.spend_estimate(
        (n as u128 + 1)
            * (max_rolls as u128 + 1)
            * (depth as u128 + 2)
            * (crate::distribution::limbs_of(t.bits() * max_rolls as u64 + 64).pow(2)
                + BIG_OP_COST),
    )?;
    // joint[x][e]: the weight of n chains making x stopping and e exploding rolls, each roll's face
    // left to the walk: a chain of j exploding rolls then a stopping one weighs t^(depth − j) (the
    // rolls it did not make), one the limit stopped after depth + 1 exploding rolls weighs 1.
    let chain: Vec<(usize, usize, Weight)> = (0..=depth)
        .map(|j| (1, j, num_traits::pow(t.clone(), depth - j)))
        .chain(std::iter::once((0, depth + 1, Weight::one())))
        .collect();
    let mut joint: Vec<Vec<Weight>> = vec![vec![Weight::one()]];
    for _ in 0..n {
        let mut next: Vec<Vec<Weight>> = vec![Vec::new(); joint.len() + 1];
        for (x, row) in joint.iter().enumerate() {
            for (e, w) in row.iter().enumerate() {
                if w.is_zero() {
                    continue;
                }
                for (dx, de, cw) in &chain {
                    let target = &mut next[x + dx];
                    if target.len() <= e + de {
                        target.resize(e + de + 1, Weight::zero());
                    }
                    target[e + de] += w * cw;
                }
            }
        }
        joint = next;
    }
    let scores: Vec<i64> = faces.iter().map(|f| score(f.0)).collect();
    let smin = *scores.iter().min().expect("a die has faces");
    let smax = *scores.iter().max().expect("a die has faces");
    let width = usize::try_from(smax as i128 - smin as i128).map_err(|_| CoreError::Overflow)?;
    let max_kept = target(max_rolls);
    limits.check_outcomes((width as u128) * max_kept as u128 + 1)?;
    // The largest weight is the total, t^(n·(depth + 1)).
    let total_limbs = crate::distribution::limbs_of(t.bits() * max_rolls as u64);
    let face_limbs = crate::distribution::limbs_of(t.bits() * max_kept as u64);
    let op_cost = total_limbs * face_limbs.min(total_limbs) + BIG_OP_COST;
    // binomials[m][j] = C(m, j) for j ≤ m ≤ max_rolls.
    let mut binomials: Vec<Vec<Weight>> = vec![vec![Weight::one()]];
    budget.spend_estimate((max_rolls as u128 + 1).pow(2) * total_limbs)?;
    for m in 1..=max_rolls {
        let prev = &binomials[m - 1];
        let mut row = Vec::with_capacity(m + 1);
        row.push(Weight::one());
        for j in 1..m {
            row.push(&prev[j - 1] + &prev[j]);
        }
        row.push(Weight::one());
        binomials.push(row);
    }
    let mut out: HashMap<i64, Weight> = HashMap::new();
    // (e, x, c) -> weights by score sum, from c·smin up.
    type Key = (usize, usize, usize);
    let mut states: HashMap<Key, Vec<Weight>> = HashMap::new();
    for (x, row) in joint.into_iter().enumerate() {
        for (e, w) in row.into_iter().enumerate() {
            if w.is_zero() {
                continue;
            }
            if target(e + x) == 0 {
                // Nothing kept: every roll shows any face.
                *out.entry(0).or_default() +=
                    w * num_traits::pow(p.clone(), e) * num_traits::pow(q.clone(), x);
            } else {
                states.insert((e, x, 0), vec![w]);
            }
        }
    }
    let mut after_a: Weight = p.clone();
    let mut after_b: Weight = q.clone();
    for (i, (_, a, b)) in faces.iter().enumerate() {
        let s_i = scores[i];
        // The weights of the faces after this one in walk order, of each kind.
        after_a -= a;
        after_b -= b;
        let (big_a, big_b) = (&after_a, &after_b);
        let power_table = |base: &Weight, up_to: usize| -> Vec<Weight> {
            let mut v = Vec::with_capacity(up_to + 1);
            let mut cur = Weight::one();
            for _ in 0..up_to {
                let nxt = &cur * base;
                v.push(cur);
                cur = nxt;
            }
            v.push(cur);
            v
        };
        let max_e = states.keys().map(|k| k.0).max().unwrap_or(0);
        let max_x = states.keys().map(|k| k.1).max().unwrap_or(0);
        budget.spend_estimate(
            (2 * (max_e + max_x) as u128 + 4) * (total_limbs * total_limbs + BIG_OP_COST),
        )?;
        let a_pow = power_table(a, max_e);
        let b_pow = power_table(b, max_x);
        let big_a_pow = power_table(big_a, max_e);
        let big_b_pow = power_table(big_b, max_x);
        let all_a_pow = power_table(&(a + big_a), max_e);
        let all_b_pow = power_table(&(b + big_b), max_x);
        // The weight of ja exploding and jb stopping dice showing this face, of e and x.
        let here = |e: usize, ja: usize, x: usize, jb: usize| -> Weight {
            &binomials[e][ja] * &a_pow[ja] * &binomials[x][jb] * &b_pow[jb]
        };
        let mut next: HashMap<Key, Vec<Weight>> = HashMap::with_capacity(states.len());
        for ((e, x, c), row) in states {
            let need = target(c + e + x) - c;
            // (ja, jb) that leave the state open: fewer than `need` dice here.
            let ja_max = if a.is_zero() { 0 } else { e.min(need - 1) };
            let open: Vec<(usize, usize)> = (0..=ja_max)
                .flat_map(|ja| {
                    let jb_max = if b.is_zero() { 0 } else { x.min(need - 1 - ja) };
                    (0..=jb_max).map(move |jb| (ja, jb))
                })
                .collect();
            budget.spend_estimate(
                (row.len() as u128 * (open.len() as u128 + 1) + 2 * open.len() as u128 + 2)
                    * op_cost,
            )?;
            if e + x >= need {
                // Every way to show `need` or more dice here finishes the state; the rest lie beyond.
                let mut finish = &all_a_pow[e] * &all_b_pow[x];
                for &(ja, jb) in &open {
                    finish -= here(e, ja, x, jb) * &big_a_pow[e - ja] * &big_b_pow[x - jb];
                }
                if !finish.is_zero() {
                    let kept_here = (need as i64).checked_mul(s_i).ok_or(CoreError::Overflow)?;
                    for (idx, w) in row.iter().enumerate() {
                        if w.is_zero() {
                            continue;
                        }
                        let sum = c as i64 * smin + idx as i64 + kept_here;
                        *out.entry(sum).or_default() += w * &finish;
                    }
                }
            }
            for (ja, jb) in open {
                let (e2, x2, c2) = (e - ja, x - jb, c + ja + jb);
                let exhausted = e2 + x2 == 0;
                if !exhausted && ((e2 > 0 && big_a.is_zero()) || (x2 > 0 && big_b.is_zero())) {
                    continue; // dice left with no face left for them
                }
                let coef = here(e, ja, x, jb);
                if coef.is_zero() {
                    continue;
                }
                let shift = (ja + jb) * (s_i - smin) as usize;
                if exhausted {
                    // A pool smaller than the keep: every die is kept.
                    for (idx, w) in row.iter().enumerate() {
                        if !w.is_zero() {
                            let sum = c2 as i64 * smin + (idx + shift) as i64;
                            *out.entry(sum).or_default() += w * &coef;
                        }
                    }
                    continue;
                }
                let target_row = next
                    .entry((e2, x2, c2))
                    .or_insert_with(|| vec![Weight::zero(); c2 * width + 1]);
                for (idx, w) in row.iter().enumerate() {
                    if !w.is_zero() {
                        target_row[idx + shift] += w * &coef;
                    }
                }
            }
        }
        limits.check_states(next.values().map(|r| r.len() as u128).sum())?;
        states = next;
    }
    let d = Distribution::from_weights(out)?;
    debug_assert!(d.total() == &num_traits::pow(t, max_rolls));
    Ok(Some(d.normalized()))
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

/// [`ENTRY_COST`] for a map that already holds `len` entries: past about sixty thousand (some
/// megabytes of keys and weights) its entries leave the cache, and each costs up to twelve times
/// more, as measured on `{100d6,99d6,100d6,100d6}dl3`.
fn entry_cost(len: usize) -> u64 {
    ENTRY_COST * (1 + (len as u64 >> 16).min(11))
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
                // tracked values: limbs times limbs, plus the bookkeeping of one map entry, which
                // costs several times more once the map outgrows the cache. The states count as
                // they appear, so one roll cannot multiply them far past the limit.
                let weight_limbs = weight.bits() / 64 + 1;
                budget.spend(
                    (unit.element.len() as u64).saturating_mul(
                        weight_limbs
                            .saturating_mul(element_limbs)
                            .saturating_add(entry_cost(next.len()) + track as u64),
                    ),
                )?;
                limits.check_states((next.len() + unit.element.len()) as u128)?;
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

    /// The highest or lowest of n dice in machine integers and in fixed-width limbs (powers of odd
    /// parts, shifted) against brute force on small pools and against the big-integer powers (the
    /// same die with its weights scaled past a limb) on big ones, with a score that reorders.
    #[test]
    fn extreme_of_small_totals_matches_brute_force_and_big_weights() {
        let limits = Limits::default();
        let uneven = Distribution::from_weights(
            [(1, 3u32), (2, 1), (4, 4), (9, 1), (10, 5), (12, 2)]
                .map(|(o, w)| (o, Weight::from(w))),
        )
        .unwrap();
        let scaled = |d: &Distribution<i64>| {
            Distribution::from_weights(d.entries().iter().map(|(o, w)| (*o, w << 70))).unwrap()
        };
        let score = |x: i64| (x % 4) * 10 - x;
        for die in [
            Distribution::die(20).unwrap(),
            uneven,
            Distribution::die(6).unwrap(),
        ] {
            for n in [1, 2, 3, 5, 29, 30, 41, 64, 200, 1000] {
                for highest in [true, false] {
                    let mut budget = limits.budget();
                    let fast = extreme_of(&die, n, highest, &|x| x, &mut budget).unwrap();
                    assert_eq!(fast.total(), &num_traits::pow(die.total().clone(), n));
                    let big = extreme_of(&scaled(&die), n, highest, &|x| x, &mut budget).unwrap();
                    assert_eq!(fast, big, "{n} dice, highest {highest}");
                    let scored = extreme_of(&die, n, highest, &score, &mut budget).unwrap();
                    let expected = big.map(|&x| score(x));
                    assert_eq!(scored, expected, "{n} dice, highest {highest}, scored");
                }
            }
        }
        for n in 1..=5 {
            for (highest, keep) in [(true, Keep::Highest(1)), (false, Keep::Lowest(1))] {
                let die = Distribution::die(6).unwrap();
                let fast = extreme_of(&die, n, highest, &|x| x, &mut limits.budget()).unwrap();
                assert_eq!(fast, brute_keep(6, n, keep), "{n}d6 {keep:?}");
            }
        }
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

    /// Keeping or dropping `k` dice from either end: the keeps the one-sided walks take.
    fn one_sided(k: usize) -> [Keep; 4] {
        [
            Keep::Highest(k),
            Keep::Lowest(k),
            Keep::DropHighest(k),
            Keep::DropLowest(k),
        ]
    }

    #[test]
    fn keep_matches_brute_force() {
        let limits = Limits::default();
        for sides in [1, 2, 4, 6] {
            for n in 0..=4 {
                for k in 0..=5 {
                    for keep in one_sided(k) {
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

    /// The walk from the dropped end against brute force and the walk from the kept end, for sums
    /// and for counts (a score that is not monotonic in the face).
    #[test]
    fn drop_walk_matches_brute_force_and_the_keep_walk() {
        let limits = Limits::default();
        for sides in [1, 2, 3, 5] {
            // Shared by every walk over this die with the identity score, as pools share it.
            let mut shared = SumsBeyond::default();
            for n in 1..=5 {
                for d in 1..n {
                    for from_lowest in [true, false] {
                        let die = Distribution::die(sides).unwrap();
                        let keep = if from_lowest {
                            Keep::DropLowest(d)
                        } else {
                            Keep::DropHighest(d)
                        };
                        let walked = drop_walk(
                            &die,
                            n,
                            d,
                            from_lowest,
                            &|x| x,
                            &limits,
                            &mut limits.budget(),
                            &mut shared,
                        )
                        .unwrap();
                        assert_eq!(walked, brute_keep(sides, n, keep), "{n}d{sides} {keep:?}");
                        let count = |x: i64| i64::from(x == 2) - i64::from(x == sides);
                        let walked = drop_walk(
                            &die,
                            n,
                            d,
                            from_lowest,
                            &count,
                            &limits,
                            &mut limits.budget(),
                            &mut SumsBeyond::default(),
                        )
                        .unwrap();
                        let units = vec![Unit::single(&die); n];
                        let seq = sequential_keep_sum(
                            &units,
                            keep,
                            &count,
                            &limits,
                            &mut limits.budget(),
                        )
                        .unwrap();
                        assert_eq!(walked, seq, "counted {n}d{sides} {keep:?}");
                    }
                }
            }
        }
        // Uneven weights.
        let die = Distribution::from_weights([
            (1, Weight::from(3u32)),
            (4, Weight::from(1u32)),
            (6, Weight::from(2u32)),
        ])
        .unwrap();
        for d in 1..4 {
            let walked = drop_walk(
                &die,
                4,
                d,
                true,
                &|x| x,
                &limits,
                &mut limits.budget(),
                &mut SumsBeyond::default(),
            )
            .unwrap();
            let units = vec![Unit::single(&die); 4];
            let seq = sequential_keep_sum(
                &units,
                Keep::DropLowest(d),
                &|x| x,
                &limits,
                &mut limits.budget(),
            )
            .unwrap();
            assert_eq!(walked, seq);
        }
    }

    /// `9d20!>=18dl9<=19` in small: exploding dice whose pools drop a few of many rolls, counted
    /// (the walk from the dropped end, its sums shared between pools), against the sequential
    /// program that adds one roll at a time.
    /// An exploding pool's keep or drop by the fast walk and by the sequential program, with the
    /// default limits.
    fn fast_and_sequential(
        element: &ChainElement,
        n: usize,
        depth: u64,
        keep: Keep,
        score: &dyn Fn(i64) -> i64,
    ) -> (Distribution<i64>, Distribution<i64>) {
        let limits = Limits::default();
        let fast = exploding_keep_sum(
            element,
            n,
            depth,
            keep,
            score,
            &limits,
            &mut limits.budget(),
        )
        .unwrap()
        .expect("a pool of both kinds of rolls");
        let unit = Unit {
            element: element.clone(),
            depth,
        };
        let slow = sequential_keep_sum(&vec![unit; n], keep, score, &limits, &mut limits.budget())
            .unwrap();
        (fast, slow)
    }

    #[test]
    fn exploding_pools_dropping_a_few_of_many_match_the_sequential_program() {
        use crate::dice::{Compare, Condition};
        let element = Distribution::die(10)
            .unwrap()
            .map(|&x| (Condition::new(Compare::Ge, 8).holds(x), x));
        for (n, depth, drop) in [(6, 3, 4), (5, 4, 2), (4, 3, 3)] {
            for counting in [true, false] {
                let score = |x: i64| if counting { i64::from(x <= 9) } else { x };
                for keep in [Keep::DropLowest(drop), Keep::DropHighest(drop)] {
                    let (fast, slow) = fast_and_sequential(&element, n, depth, keep, &score);
                    assert_eq!(fast, slow, "{n}d10!>=8 depth {depth} {keep:?} {counting}");
                }
            }
        }
    }

    #[test]
    fn exploding_pools_match_the_sequential_program() {
        use crate::dice::{Compare, Condition};
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
            every_keep_matches_the_sequential_program(
                &element,
                &format!("d{sides}! {condition:?}"),
            );
        }
    }

    /// The fast walk against the sequential program for 0 to 3 dice of `element`, depths 0 to 2,
    /// every keep and drop of 0 to 4 dice, summed and counted (3 or more).
    fn every_keep_matches_the_sequential_program(element: &ChainElement, name: &str) {
        for depth in 0..=2 {
            for n in 0..=3 {
                for k in 0..=4 {
                    for keep in one_sided(k) {
                        for counting in [false, true] {
                            let score = |x: i64| if counting { i64::from(x >= 3) } else { x };
                            let (fast, slow) = fast_and_sequential(element, n, depth, keep, &score);
                            assert_eq!(
                                fast, slow,
                                "{n} of {name} depth {depth} {keep:?} {counting}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn interleaved_exploding_pools_match_the_sequential_program() {
        // Exploding faces on both sides of stopping ones, or a value that explodes or not depending on
        // a step after the explosion: the two-kind walk against the program that adds one roll at a
        // time.
        let die = |sides: i64, explodes: &dyn Fn(i64) -> bool| {
            Distribution::die(sides).unwrap().map(|&x| (explodes(x), x))
        };
        let both_ways: ChainElement = Distribution::from_weights([
            ((false, 1), Weight::from(2u32)),
            ((true, 2), Weight::from(1u32)),
            ((false, 2), Weight::from(1u32)),
            ((true, 3), Weight::from(1u32)),
            ((false, 4), Weight::from(3u32)),
        ])
        .unwrap();
        let cases = [
            ("d6!=3", die(6, &|x| x == 3)),
            ("d4!=1,4", die(4, &|x| x == 1 || x == 4)),
            ("d6!=2,5", die(6, &|x| x == 2 || x == 5)),
            ("d5!!=3", die(5, &|x| x != 3)),
            ("both ways", both_ways),
        ];
        for (name, element) in &cases {
            every_keep_matches_the_sequential_program(element, name);
        }
    }

    #[test]
    fn interleaved_exploding_pool_counts_every_roll_exactly() {
        // Two d4 exploding on 1 and 4, at most one extra roll each, keep the highest: by hand, over
        // every sequence of rolls. A chain is one stopping roll (2 or 3), or an exploding roll and
        // any second roll (which counts as rolled when it would explode again).
        let element = Distribution::die(4)
            .unwrap()
            .map(|&x| (x == 1 || x == 4, x));
        let chains: Vec<(Vec<i64>, u32)> = {
            let mut c = Vec::new();
            for first in 1..=4i64 {
                if first == 1 || first == 4 {
                    for second in 1..=4 {
                        c.push((vec![first, second], 1));
                    }
                } else {
                    c.push((vec![first], 4));
                }
            }
            c
        };
        let mut expected: HashMap<i64, Weight> = HashMap::new();
        for (a, wa) in &chains {
            for (b, wb) in &chains {
                let best = a.iter().chain(b).max().copied().unwrap();
                *expected.entry(best).or_default() += Weight::from(wa * wb);
            }
        }
        let expected = Distribution::from_weights(expected).unwrap();
        let limits = Limits::default();
        let fast = exploding_keep_sum(
            &element,
            2,
            1,
            Keep::Highest(1),
            &|x| x,
            &limits,
            &mut limits.budget(),
        )
        .unwrap()
        .expect("every kind of explosion");
        assert_eq!(fast, expected);
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

//! Exact distributions: outcomes with arbitrary-precision integer weights over an explicit total.
//!
//! No floats inside. Weights are never reduced to lowest terms by the arithmetic (that is for display),
//! but a distribution may divide all its weights by their common factor to keep the numbers small;
//! equality therefore compares probabilities, not raw weights.

use std::collections::BTreeMap;

use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_rational::Ratio;
use num_traits::{One, ToPrimitive, Zero};

use crate::error::CoreError;
use crate::limits::{Budget, Limits};

/// A non-negative integer weight.
pub type Weight = BigUint;

/// An exact probability; `Ratio::new` reduces, `Ratio::new_raw` does not.
pub type Probability = Ratio<BigUint>;

/// A finite distribution: outcomes in ascending order, each with a positive weight, over `total`.
#[derive(Clone, Debug)]
pub struct Distribution<T> {
    entries: Vec<(T, Weight)>,
    total: Weight,
}

impl<T: Ord + Clone> PartialEq for Distribution<T> {
    /// Equal when every outcome has the same probability (weights cross-multiplied).
    fn eq(&self, other: &Self) -> bool {
        self.entries.len() == other.entries.len()
            && self
                .entries
                .iter()
                .zip(&other.entries)
                .all(|((a, wa), (b, wb))| a == b && wa * &other.total == wb * &self.total)
    }
}

impl<T: Ord + Clone> Eq for Distribution<T> {}

/// 64-bit limbs of a number of `bits` bits: the unit in which the work budget prices big-integer
/// arithmetic (one unit is about one limb multiply-add).
pub(crate) fn limbs_of(bits: u64) -> u128 {
    bits as u128 / 64 + 1
}

/// What one allocating big-integer operation costs beyond its limbs, in the same units.
pub(crate) const BIG_OP: u128 = 64;

/// Below this many outcome pairs, [`Distribution::add`] multiplies pair by pair; above it, the
/// Kronecker substitution's one long multiplication wins (measured in `benches/core.rs`).
const KRONECKER_MIN_PAIRS: u128 = 4096;

fn isqrt(n: u128) -> u128 {
    let mut r = (n as f64).sqrt() as u128;
    while r * r > n {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= n {
        r += 1;
    }
    r
}

/// The weights of a sum of two integer distributions by Kronecker substitution: each side's weights
/// become the digits of one long number (one slot per outcome from the minimum up, in base
/// 2^(32·slot)), the two numbers are multiplied, and the product's digits are the sum's weights. A
/// slot wide enough for the product of the totals never carries into the next, since every weight of
/// the sum is at most that product.
fn kronecker_sum(
    a: &Distribution<i64>,
    b: &Distribution<i64>,
    span: usize,
    total: &Weight,
) -> Vec<Weight> {
    let slot = total.bits().div_ceil(32).max(1) as usize;
    let pack = |d: &Distribution<i64>| {
        let low = *d.min_outcome();
        let width = (*d.max_outcome() - low) as usize + 1;
        let mut digits = vec![0u32; width * slot];
        for (outcome, weight) in &d.entries {
            let at = (outcome - low) as usize * slot;
            for (k, digit) in weight.iter_u32_digits().enumerate() {
                digits[at + k] = digit;
            }
        }
        Weight::new(digits)
    };
    let product = pack(a) * pack(b);
    let digits: Vec<u32> = product.iter_u32_digits().collect();
    (0..span)
        .map(|i| {
            let start = (i * slot).min(digits.len());
            let end = ((i + 1) * slot).min(digits.len());
            Weight::from_slice(&digits[start..end])
        })
        .collect()
}

/// A weight known to fit in a `u128`.
pub(crate) fn small(w: &Weight) -> u128 {
    w.to_u128().expect("checked: the weight fits in a u128")
}

/// The distribution whose weights, from outcome `lo` up, are `weights` (zeros skipped).
pub(crate) fn from_small(weights: Vec<u128>, lo: i64) -> Result<Distribution<i64>, CoreError> {
    let mut total = 0u128;
    let mut entries = Vec::with_capacity(weights.len());
    for (i, w) in weights.into_iter().enumerate() {
        if w != 0 {
            total = total.checked_add(w).ok_or(CoreError::Overflow)?;
            entries.push((lo + i as i64, Weight::from(w)));
        }
    }
    if entries.is_empty() {
        return Err(CoreError::Empty);
    }
    Ok(Distribution {
        entries,
        total: Weight::from(total),
    })
}

/// Two runs of pairs in ascending order of outcome merged into one, equal outcomes added.
fn merge_sorted<T: Ord>(a: Vec<(T, Weight)>, b: Vec<(T, Weight)>) -> Vec<(T, Weight)> {
    let mut merged = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => match x.0.cmp(&y.0) {
                std::cmp::Ordering::Less => a.next(),
                std::cmp::Ordering::Greater => b.next(),
                std::cmp::Ordering::Equal => {
                    let (o, wa) = a.next().expect("peeked");
                    let (_, wb) = b.next().expect("peeked");
                    Some((o, wa + wb))
                }
            },
            (Some(_), None) => a.next(),
            (None, Some(_)) => b.next(),
            (None, None) => break,
        };
        merged.extend(next);
    }
    merged
}

/// Pairs in ascending order of outcome with equal outcomes merged: as they come when they already
/// ascend (most maps are monotone: shifts, scores, `Value::Int`), reversed when they descend
/// (negation), sorted otherwise. Cheaper than a map of outcomes for every case, and allocation-free
/// for the monotone ones.
fn sorted_merged<T: Ord>(mut entries: Vec<(T, Weight)>) -> Vec<(T, Weight)> {
    if entries.windows(2).all(|p| p[0].0 < p[1].0) {
        return entries;
    }
    if entries.windows(2).all(|p| p[0].0 > p[1].0) {
        entries.reverse();
        return entries;
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut merged: Vec<(T, Weight)> = Vec::with_capacity(entries.len());
    for (o, w) in entries {
        match merged.last_mut() {
            Some((last, acc)) if *last == o => *acc += w,
            _ => merged.push((o, w)),
        }
    }
    merged
}

impl<T: Ord + Clone> Distribution<T> {
    /// Limbs of the largest weight (bounded by the total's).
    pub(crate) fn weight_limbs(&self) -> u128 {
        limbs_of(self.total.bits())
    }

    /// Builds a distribution from (outcome, weight) pairs in any order; equal outcomes merge, zero
    /// weights vanish.
    ///
    /// # Errors
    /// `Empty` when no outcome has a positive weight.
    pub fn from_weights(pairs: impl IntoIterator<Item = (T, Weight)>) -> Result<Self, CoreError> {
        let pairs: Vec<(T, Weight)> = pairs.into_iter().filter(|(_, w)| !w.is_zero()).collect();
        Self::from_sorted_unchecked(sorted_merged(pairs))
    }

    /// [`Self::from_weights`] for weights known to sum to `total`, which is not summed again.
    pub(crate) fn from_weights_with_total(
        pairs: impl IntoIterator<Item = (T, Weight)>,
        total: Weight,
    ) -> Result<Self, CoreError> {
        let pairs: Vec<(T, Weight)> = pairs.into_iter().filter(|(_, w)| !w.is_zero()).collect();
        Self::from_sorted_with_total(sorted_merged(pairs), total)
    }

    /// From pairs already sorted by outcome, strictly increasing, zero weights allowed (dropped).
    pub(crate) fn from_sorted_unchecked(entries: Vec<(T, Weight)>) -> Result<Self, CoreError> {
        let entries: Vec<(T, Weight)> = entries.into_iter().filter(|(_, w)| !w.is_zero()).collect();
        debug_assert!(entries.windows(2).all(|p| p[0].0 < p[1].0));
        let total: Weight = entries.iter().map(|(_, w)| w).sum();
        if total.is_zero() {
            return Err(CoreError::Empty);
        }
        Ok(Distribution { entries, total })
    }

    /// From pairs already sorted by outcome, strictly increasing, zero weights allowed (dropped),
    /// whose weights sum to `total` (known to the caller, so not summed again). Both are the
    /// caller's promise, checked in debug builds only: a builder that sorts and merges its own
    /// outcomes skips a second pass over them.
    ///
    /// # Errors
    /// `Empty` when no weight is positive.
    pub fn from_sorted_with_total(
        entries: Vec<(T, Weight)>,
        total: Weight,
    ) -> Result<Self, CoreError> {
        let entries: Vec<(T, Weight)> = entries.into_iter().filter(|(_, w)| !w.is_zero()).collect();
        debug_assert!(entries.windows(2).all(|p| p[0].0 < p[1].0));
        debug_assert!(entries.iter().map(|(_, w)| w).sum::<Weight>() == total);
        if entries.is_empty() {
            return Err(CoreError::Empty);
        }
        Ok(Distribution { entries, total })
    }

    /// The outcome that always happens.
    pub fn constant(outcome: T) -> Self {
        Distribution {
            entries: vec![(outcome, Weight::one())],
            total: Weight::one(),
        }
    }

    /// Every listed outcome equally likely per listing (`[1, 1, 2]` makes 1 twice as likely as 2).
    ///
    /// # Errors
    /// `Empty` for an empty list.
    pub fn uniform(outcomes: impl IntoIterator<Item = T>) -> Result<Self, CoreError> {
        Self::from_weights(outcomes.into_iter().map(|o| (o, Weight::one())))
    }

    pub fn entries(&self) -> &[(T, Weight)] {
        &self.entries
    }

    pub fn outcomes(&self) -> impl Iterator<Item = &T> {
        self.entries.iter().map(|(o, _)| o)
    }

    pub fn total(&self) -> &Weight {
        &self.total
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Never true: a distribution has at least one outcome.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn min_outcome(&self) -> &T {
        &self.entries[0].0
    }

    pub fn max_outcome(&self) -> &T {
        &self.entries[self.entries.len() - 1].0
    }

    pub fn weight(&self, outcome: &T) -> Weight {
        match self.entries.binary_search_by(|(o, _)| o.cmp(outcome)) {
            Ok(i) => self.entries[i].1.clone(),
            Err(_) => Weight::zero(),
        }
    }

    /// P(X = outcome), reduced.
    pub fn probability(&self, outcome: &T) -> Probability {
        Probability::new(self.weight(outcome), self.total.clone())
    }

    /// P(pred(X)), reduced.
    pub fn probability_where(&self, mut pred: impl FnMut(&T) -> bool) -> Probability {
        let w: Weight = self
            .entries
            .iter()
            .filter(|(o, _)| pred(o))
            .map(|(_, w)| w)
            .sum();
        Probability::new(w, self.total.clone())
    }

    /// The distribution of f(X).
    pub fn map<U: Ord + Clone>(&self, mut f: impl FnMut(&T) -> U) -> Distribution<U> {
        self.try_map(|x| Ok::<U, CoreError>(f(x)))
            .expect("an infallible map of a non-empty distribution")
    }

    /// The distribution of f(X), consuming X: its weights move instead of being copied.
    pub fn map_into<U: Ord + Clone>(self, mut f: impl FnMut(T) -> U) -> Distribution<U> {
        let entries = self.entries.into_iter().map(|(o, w)| (f(o), w)).collect();
        Distribution {
            entries: sorted_merged(entries),
            total: self.total,
        }
    }

    /// The distribution of f(X) for an `f` that keeps the outcomes' order strictly (wrapping a number
    /// in a value, a tuple in a tuple of one), consuming X: no outcome is compared, where
    /// [`Self::map_into`] checks the order of every pair. An `f` that is not strictly increasing
    /// breaks the distribution's order (checked in debug builds).
    pub fn map_increasing_into<U: Ord + Clone>(self, mut f: impl FnMut(T) -> U) -> Distribution<U> {
        let entries: Vec<(U, Weight)> = self.entries.into_iter().map(|(o, w)| (f(o), w)).collect();
        debug_assert!(entries.windows(2).all(|p| p[0].0 < p[1].0));
        Distribution {
            entries,
            total: self.total,
        }
    }

    /// The distribution of f(X) where f can fail (e.g. overflow).
    ///
    /// # Errors
    /// The first error `f` returns.
    pub fn try_map<U: Ord + Clone, E>(
        &self,
        mut f: impl FnMut(&T) -> Result<U, E>,
    ) -> Result<Distribution<U>, E> {
        let mut entries = Vec::with_capacity(self.entries.len());
        for (o, w) in &self.entries {
            entries.push((f(o)?, w.clone()));
        }
        Ok(Distribution {
            entries: sorted_merged(entries),
            total: self.total.clone(),
        })
    }

    /// The distribution of f(X, Y) for independent X (self) and Y.
    ///
    /// # Errors
    /// `WorkBudget` when the product of the outcome counts exceeds the budget; the first error of `f`.
    pub fn combine<U: Ord + Clone, V: Ord + Clone>(
        &self,
        other: &Distribution<U>,
        budget: &mut Budget,
        mut f: impl FnMut(&T, &U) -> Result<V, CoreError>,
    ) -> Result<Distribution<V>, CoreError> {
        budget.spend_estimate(
            self.len() as u128
                * other.len() as u128
                * (self.weight_limbs() * other.weight_limbs() + BIG_OP),
        )?;
        let mut map: BTreeMap<V, Weight> = BTreeMap::new();
        for (a, wa) in &self.entries {
            // Paid up front; a cancelled computation still stops within a row.
            budget.check()?;
            for (b, wb) in &other.entries {
                *map.entry(f(a, b)?).or_default() += wa * wb;
            }
        }
        Ok(Distribution {
            entries: map.into_iter().collect(),
            total: &self.total * &other.total,
        }
        .normalized())
    }

    /// A weighted mixture: first pick part i with probability `weight_i / Σ weight`, then draw from it.
    ///
    /// # Errors
    /// `Empty` when there are no parts or all weights are zero; `WorkBudget`.
    pub fn mixture(
        parts: Vec<(Weight, Distribution<T>)>,
        budget: &mut Budget,
    ) -> Result<Distribution<T>, CoreError> {
        let parts: Vec<(Weight, Distribution<T>)> =
            parts.into_iter().filter(|(w, _)| !w.is_zero()).collect();
        if parts.is_empty() {
            return Err(CoreError::Empty);
        }
        // A common denominator for the parts' totals keeps the result's weights integral.
        let mut lcm = Weight::one();
        for (_, d) in &parts {
            budget.spend_estimate(limbs_of(lcm.bits()) * d.weight_limbs() * 4)?;
            lcm = match (lcm.to_u64(), d.total.to_u64()) {
                // Most totals are small: their lcm in machine integers, without a big gcd.
                (Some(a), Some(b)) => Weight::from(u128::from(a).lcm(&u128::from(b))),
                _ => lcm.lcm(&d.total),
            };
        }
        let weight_sum: Weight = parts.iter().map(|(w, _)| w).sum();
        let lcm_limbs = limbs_of(lcm.bits());
        // Each part is sorted: merge them pairwise, about log2(parts) passes over the entries.
        let mut runs = Vec::with_capacity(parts.len());
        for (w, d) in parts {
            budget.spend_estimate(d.len() as u128 * (lcm_limbs * limbs_of(w.bits()) + BIG_OP))?;
            let scale = w * (&lcm / &d.total);
            let run: Vec<(T, Weight)> = if scale.is_one() {
                d.entries
            } else {
                d.entries
                    .into_iter()
                    .map(|(o, wo)| (o, wo * &scale))
                    .collect()
            };
            runs.push(run);
        }
        while runs.len() > 1 {
            let mut next = Vec::with_capacity(runs.len().div_ceil(2));
            let mut pending = runs.into_iter();
            while let Some(a) = pending.next() {
                next.push(match pending.next() {
                    Some(b) => merge_sorted(a, b),
                    None => a,
                });
            }
            runs = next;
        }
        Ok(Distribution {
            entries: runs.pop().unwrap_or_default(),
            total: weight_sum * lcm,
        }
        .normalized())
    }

    /// Replaces the total; for builders that know it without summing.
    pub(crate) fn set_total(&mut self, total: Weight) {
        self.total = total;
    }

    /// Divides every weight and the total by their common factor. Probabilities are unchanged.
    pub fn normalized(mut self) -> Self {
        // Start from the smallest weight and reduce each other number modulo the common factor so
        // far before the gcd: a gcd of two numbers of very different sizes costs the square of the
        // larger (binary gcd), a remainder only their product. Most distributions have a weight 1 or
        // a small one, and stop at once.
        let Some(smallest) = self.entries.iter().map(|(_, w)| w).min_by_key(|w| w.bits()) else {
            return self;
        };
        let mut g = smallest.clone();
        for w in self.entries.iter().map(|(_, w)| w).chain([&self.total]) {
            if g.is_one() {
                break;
            }
            let r = w % &g;
            if !r.is_zero() {
                g = g.gcd(&r);
            }
        }
        if !g.is_one() {
            for (_, w) in &mut self.entries {
                *w /= &g;
            }
            self.total /= &g;
        }
        self
    }

    /// Cumulative weights: for each outcome, the weight of outcomes ≤ it and ≥ it.
    pub fn cumulative(&self) -> Vec<(Weight, Weight)> {
        let mut at_most = Weight::zero();
        let mut out = Vec::with_capacity(self.entries.len());
        for (_, w) in &self.entries {
            at_most += w;
            out.push((at_most.clone(), &self.total - &at_most + w));
        }
        out
    }
}

impl Distribution<bool> {
    /// P(true) as a distribution over {false, true}.
    pub fn bernoulli(p: &Probability) -> Result<Self, CoreError> {
        let (n, d) = (p.numer().clone(), p.denom().clone());
        Self::from_weights([(false, &d - &n), (true, n)])
    }

    pub fn probability_true(&self) -> Probability {
        self.probability(&true)
    }
}

/// Summary statistics of an integer distribution, exact where they can be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statistics {
    pub mean: Ratio<BigInt>,
    pub variance: Ratio<BigInt>,
    /// The smallest outcome x with P(X ≤ x) ≥ 1/2.
    pub median: i64,
    /// The outcomes of greatest probability, ascending.
    pub modes: Vec<i64>,
}

impl Statistics {
    /// The standard deviation, only ever for display.
    pub fn standard_deviation(&self) -> f64 {
        ratio_to_f64(&self.variance).max(0.0).sqrt()
    }
}

/// A float view of a signed ratio, accurate for huge numerators and denominators.
/// P(A or B) for independent A and B.
pub fn either(a: &Probability, b: &Probability) -> Probability {
    if a.is_zero() {
        return b.clone();
    }
    if b.is_zero() {
        return a.clone();
    }
    Probability::one() - (Probability::one() - a) * (Probability::one() - b)
}

/// Integer weights over a common denominator for exact probabilities.
///
/// # Errors
/// `WorkBudget`, `Cancelled`; `Empty` for no outcome.
pub(crate) fn from_probabilities(
    probabilities: BTreeMap<i64, Probability>,
    budget: &mut Budget,
) -> Result<Distribution<i64>, CoreError> {
    let mut denominator = Weight::one();
    for p in probabilities.values() {
        budget.spend(1 + denominator.bits() / 64 + p.denom().bits() / 64)?;
        denominator = denominator.lcm(p.denom());
    }
    Distribution::from_weights(
        probabilities
            .into_iter()
            .map(|(v, p)| (v, p.numer() * (&denominator / p.denom()))),
    )
    .map(Distribution::normalized)
}

pub fn ratio_to_f64(r: &Ratio<BigInt>) -> f64 {
    // Each side is cut to its own 64 leading bits, so neither overflows f64 and a small side is not
    // shifted to zero by a large one (35·10²⁰/12, a variance, once printed as infinity); the powers
    // of two cut off are put back at the end, in two halves so that neither overflows early.
    let n = r.numer();
    let d = r.denom();
    let shift_n = n.bits().saturating_sub(64);
    let shift_d = d.bits().saturating_sub(64);
    let nf = (n >> shift_n).to_f64().unwrap_or(f64::NAN);
    let df = (d >> shift_d).to_f64().unwrap_or(f64::NAN);
    let exponent = i64::try_from(shift_n)
        .unwrap_or(i64::MAX)
        .saturating_sub(i64::try_from(shift_d).unwrap_or(i64::MAX))
        .clamp(-4000, 4000) as i32;
    let half = exponent / 2;
    nf / df * 2f64.powi(half) * 2f64.powi(exponent - half)
}

/// A float view of a probability, only ever for display or sampling.
pub fn probability_to_f64(p: &Probability) -> f64 {
    ratio_to_f64(&Ratio::new_raw(
        BigInt::from(p.numer().clone()),
        BigInt::from(p.denom().clone()),
    ))
}

impl Distribution<i64> {
    /// A standard die 1..=sides.
    ///
    /// # Errors
    /// `NoSides` for fewer than one side.
    pub fn die(sides: i64) -> Result<Self, CoreError> {
        if sides < 1 {
            return Err(CoreError::NoSides(sides));
        }
        Ok(Distribution {
            entries: (1..=sides).map(|f| (f, Weight::one())).collect(),
            total: Weight::from(sides as u64),
        })
    }

    pub fn statistics(&self) -> Statistics {
        let total = BigInt::from(self.total.clone());
        let mut sum = BigInt::zero();
        let mut sum_sq = BigInt::zero();
        for (o, w) in &self.entries {
            let w = BigInt::from(w.clone());
            let x = BigInt::from(*o);
            sum += &x * &w;
            sum_sq += &x * &x * &w;
        }
        let mean = Ratio::new(sum.clone(), total.clone());
        // Var = (n·Σx²w − (Σxw)²) / n², exact.
        let variance = Ratio::new(&total * sum_sq - &sum * &sum, &total * &total);
        let half = &self.total; // compare 2·cum ≥ total
        let mut cum = Weight::zero();
        let mut median = *self.min_outcome();
        for (o, w) in &self.entries {
            cum += w;
            if &cum * 2u32 >= *half {
                median = *o;
                break;
            }
        }
        let best = self.entries.iter().map(|(_, w)| w).max().cloned();
        let modes = self
            .entries
            .iter()
            .filter(|(_, w)| Some(w) == best.as_ref())
            .map(|(o, _)| *o)
            .collect();
        Statistics {
            mean,
            variance,
            median,
            modes,
        }
    }

    /// The distribution of X + Y for independent X (self) and Y, by dense convolution.
    ///
    /// # Errors
    /// `TooManyOutcomes`, `WorkBudget`, `Overflow`.
    pub fn add(
        &self,
        other: &Self,
        limits: &Limits,
        budget: &mut Budget,
    ) -> Result<Self, CoreError> {
        let lo = self
            .min_outcome()
            .checked_add(*other.min_outcome())
            .ok_or(CoreError::Overflow)?;
        let hi = self
            .max_outcome()
            .checked_add(*other.max_outcome())
            .ok_or(CoreError::Overflow)?;
        let span = (hi as i128 - lo as i128 + 1) as u128;
        let dense_ok = span <= 4 * (self.len() as u128 * other.len() as u128).max(1)
            && span <= limits.max_outcomes as u128 * 4;
        if !dense_ok {
            // Sparse outcomes (e.g. d{1,1000}) would waste a dense vector; use the generic product.
            limits.check_outcomes((self.len() as u128 * other.len() as u128).min(span))?;
            return self.combine(other, budget, |a, b| Ok(a + b));
        }
        limits.check_outcomes(span)?;
        let pairs = self.len() as u128 * other.len() as u128;
        if self.total.bits() + other.total.bits() <= 128 {
            // Every weight of the sum is at most the product of the totals, which fits in a u128.
            budget.spend_estimate(pairs)?;
            let mut acc = vec![0u128; span as usize];
            let (a_lo, b_lo) = (*self.min_outcome(), *other.min_outcome());
            for (a, wa) in &self.entries {
                let wa = small(wa);
                let base = (a - a_lo) as usize;
                for (b, wb) in &other.entries {
                    acc[base + (b - b_lo) as usize] += wa * small(wb);
                }
            }
            return from_small(acc, lo);
        }
        let total = &self.total * &other.total;
        let schoolbook = pairs * (self.weight_limbs() * other.weight_limbs() + BIG_OP);
        let acc = if pairs >= KRONECKER_MIN_PAIRS {
            // One big multiplication instead of a product per pair: num-bigint multiplies long
            // numbers by Toom-3, far below the pairwise cost; counted as n^1.5 limb operations.
            let packed = limbs_of(total.bits()) * span;
            budget.spend_estimate(schoolbook.min(packed * isqrt(packed) + BIG_OP * span))?;
            kronecker_sum(self, other, span as usize, &total)
        } else {
            budget.spend_estimate(schoolbook)?;
            let mut acc = vec![Weight::zero(); span as usize];
            for (a, wa) in &self.entries {
                budget.check()?;
                let base = (a - self.min_outcome()) as usize;
                for (b, wb) in &other.entries {
                    let i = base + (b - other.min_outcome()) as usize;
                    if wa.is_one() {
                        acc[i] += wb;
                    } else if wb.is_one() {
                        acc[i] += wa;
                    } else {
                        acc[i] += wa * wb;
                    }
                }
            }
            acc
        };
        let entries = acc
            .into_iter()
            .enumerate()
            .map(|(i, w)| (lo + i as i64, w))
            .collect();
        Self::from_sorted_with_total(entries, total)
    }

    /// The distribution of the sum of `n` independent copies (0 copies: the constant 0).
    ///
    /// Small dice are added one at a time (a big weight times a small one is cheap); otherwise by
    /// repeated squaring.
    ///
    /// # Errors
    /// `TooManyOutcomes`, `WorkBudget`, `Overflow`.
    pub fn sum_of(
        &self,
        n: usize,
        limits: &Limits,
        budget: &mut Budget,
    ) -> Result<Self, CoreError> {
        if n == 0 {
            return Ok(Self::constant(0));
        }
        let span = (*self.max_outcome() as i128 - *self.min_outcome() as i128) * n as i128 + 1;
        limits.check_outcomes(span as u128)?;
        self.max_outcome()
            .checked_mul(n as i64)
            .ok_or(CoreError::Overflow)?;
        let degree = (*self.max_outcome() as i128 - *self.min_outcome() as i128) as usize;
        if (self.total.bits() as u128) * (n as u128) <= 128 {
            return self.sum_of_small(n, degree, budget);
        }
        let small = self.entries.iter().all(|(_, w)| w.bits() <= 64);
        if small && n > 1 {
            return self.power_by_recurrence(n, degree, budget);
        }
        let mut result: Option<Self> = None;
        let mut square = self.clone();
        let mut k = n;
        loop {
            if k & 1 == 1 {
                result = Some(match result {
                    None => square.clone(),
                    Some(r) => r.add(&square, limits, budget)?,
                });
            }
            k >>= 1;
            if k == 0 {
                break;
            }
            square = square.add(&square, limits, budget)?;
        }
        Ok(result.expect("n ≥ 1"))
    }

    /// The n-fold sum when the total's n-th power fits in a `u128` (so does every weight on the
    /// way): the die added n − 1 times in machine integers. n is then at most 128, and the sum's
    /// outcomes were checked against the limit.
    fn sum_of_small(
        &self,
        n: usize,
        degree: usize,
        budget: &mut Budget,
    ) -> Result<Self, CoreError> {
        let lo = *self.min_outcome();
        let faces: Vec<(usize, u128)> = self
            .entries
            .iter()
            .map(|(o, w)| ((o - lo) as usize, small(w)))
            .collect();
        let len = n * degree + 1;
        budget.spend_estimate(n as u128 * len as u128 * faces.len() as u128)?;
        let mut acc = vec![0u128; len];
        let mut next = vec![0u128; len];
        for &(at, w) in &faces {
            acc[at] = w;
        }
        for copies in 1..n {
            // acc holds the sum of `copies` dice: its outcomes reach copies·degree.
            let reach = copies * degree;
            next[..=reach + degree].iter_mut().for_each(|x| *x = 0);
            for (i, &a) in acc[..=reach].iter().enumerate() {
                if a == 0 {
                    continue;
                }
                for &(at, w) in &faces {
                    next[i + at] += a * w;
                }
            }
            std::mem::swap(&mut acc, &mut next);
        }
        from_small(acc, lo.checked_mul(n as i64).ok_or(CoreError::Overflow)?)
    }

    /// The n-fold sum of a die with small weights, by the power recurrence for polynomials.
    ///
    /// With P(x) = Σ pᵢ xⁱ (outcomes shifted so p₀ > 0) and F = Pⁿ, differentiating F = Pⁿ gives
    /// P·F′ = n·P′·F, whose coefficients read k·p₀·f_k = Σᵢ ((n+1)·i − k)·pᵢ·f_{k−i}. Each of the
    /// n·d + 1 coefficients then costs d multiplications of a big number by a small one and one exact
    /// division by a small one: linear in the size of the answer, instead of the quadratic cost of
    /// convolving.
    fn power_by_recurrence(
        &self,
        n: usize,
        degree: usize,
        budget: &mut Budget,
    ) -> Result<Self, CoreError> {
        let lo = *self.min_outcome();
        let mut p = vec![0u64; degree + 1];
        for (o, w) in &self.entries {
            p[(o - lo) as usize] = w.to_u64().expect("checked: small weights");
        }
        let len = n * degree + 1;
        // Each coefficient takes up to `degree` small multiples of numbers as wide as the total.
        let total = num_traits::pow(self.total.clone(), n);
        let result_limbs = limbs_of(total.bits());
        // A small multiple and the exact division by a small number cost several limb
        // multiply-adds per limb each (signed, with carries): five, as measured on 10000d6.
        budget.spend_estimate(5 * len as u128 * (degree as u128 + 1) * (result_limbs + 2))?;
        // Every coefficient is at most the total, and each sum of terms below is at most
        // (n+1)·d·2⁶⁴ times one: fixed width with three spare limbs holds them all, in place.
        let width = result_limbs as usize + 3;
        let mut f: Vec<u64> = vec![0; len * width];
        let first = num_traits::pow(BigUint::from(p[0]), n).to_u64_digits();
        f[..first.len()].copy_from_slice(&first);
        let n1 = n as i128 + 1;
        let mut plus = vec![0u64; width];
        let mut minus = vec![0u64; width];
        for k in 1..len {
            plus.iter_mut().for_each(|x| *x = 0);
            minus.iter_mut().for_each(|x| *x = 0);
            for i in 1..=degree.min(k) {
                if p[i] == 0 {
                    continue;
                }
                let factor = n1 * i as i128 - k as i128;
                if factor == 0 {
                    continue;
                }
                let prev = crate::limbs::trimmed(&f[(k - i) * width..(k - i + 1) * width]);
                if prev.is_empty() {
                    continue;
                }
                // |factor| < 2^64 and p_i < 2^64, so their product fits in two limbs.
                let m = factor.unsigned_abs() * p[i] as u128;
                let m = [m as u64, (m >> 64) as u64];
                let m = crate::limbs::trimmed(&m);
                let acc = if factor > 0 { &mut plus } else { &mut minus };
                crate::limbs::mul_add(acc, prev, m);
            }
            crate::limbs::sub_assign(&mut plus, &minus);
            let divisor = k as u128 * p[0] as u128;
            let out = &mut f[k * width..(k + 1) * width];
            if let Ok(d) = u64::try_from(divisor) {
                let rem = crate::limbs::div_small(&mut plus, d);
                debug_assert_eq!(rem, 0, "the recurrence divides exactly");
                out.copy_from_slice(&plus);
            } else {
                let q = crate::limbs::to_weight(&plus) / divisor;
                let digits = q.to_u64_digits();
                out.iter_mut().for_each(|x| *x = 0);
                out[..digits.len()].copy_from_slice(&digits);
            }
        }
        let f: Vec<BigUint> = f.chunks_exact(width).map(crate::limbs::to_weight).collect();
        let out_lo = lo.checked_mul(n as i64).ok_or(CoreError::Overflow)?;
        let entries = f
            .into_iter()
            .enumerate()
            .map(|(i, w)| (out_lo + i as i64, w))
            .collect();
        Self::from_sorted_with_total(entries, total)
    }

    /// -X.
    pub fn negate(&self) -> Self {
        self.map(|x| -x)
    }
}

#[cfg(test)]
mod tests;

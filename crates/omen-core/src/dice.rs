//! Physical dice and what can happen to one die before the pool sees it: rerolls, clamps and explosions.

use std::fmt;

use num_traits::Zero;

use crate::distribution::{Distribution, Probability, Weight};
use crate::error::CoreError;
use crate::limits::{Budget, Limits};

/// A die whose faces are equally likely per listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Die {
    /// 1..=sides.
    Standard(u64),
    /// −1, 0, +1.
    Fudge,
    /// The listed faces, repeats allowed (`{1,1,2,3}`: 1 is twice as likely as 2).
    Custom(Vec<i64>),
}

impl Die {
    /// # Errors
    /// `NoSides` or `TooManySides`.
    pub fn standard(sides: i64, limits: &Limits) -> Result<Self, CoreError> {
        Ok(Die::Standard(limits.check_sides(sides)?))
    }

    /// # Errors
    /// `NoFaces` for an empty list, `TooManySides` for more faces than `max_sides`.
    pub fn custom(faces: Vec<i64>, limits: &Limits) -> Result<Self, CoreError> {
        if faces.is_empty() {
            return Err(CoreError::NoFaces);
        }
        limits.check_sides(faces.len() as i64)?;
        Ok(Die::Custom(faces))
    }

    /// How many faces (listings) the die has.
    pub fn face_count(&self) -> u64 {
        match self {
            Die::Standard(s) => *s,
            Die::Fudge => 3,
            Die::Custom(f) => f.len() as u64,
        }
    }

    /// The face at `index` in `0..face_count()`.
    pub fn face(&self, index: u64) -> i64 {
        match self {
            Die::Standard(_) => index as i64 + 1,
            Die::Fudge => index as i64 - 1,
            Die::Custom(f) => f[index as usize],
        }
    }

    pub fn has_face(&self, value: i64) -> bool {
        match self {
            Die::Standard(s) => value >= 1 && value as u64 <= *s,
            Die::Fudge => (-1..=1).contains(&value),
            Die::Custom(f) => f.contains(&value),
        }
    }

    pub fn distribution(&self) -> Distribution<i64> {
        match self {
            Die::Standard(s) => Distribution::die(*s as i64).expect("validated sides"),
            Die::Fudge => Distribution::uniform([-1, 0, 1]).expect("three faces"),
            Die::Custom(f) => Distribution::uniform(f.iter().copied()).expect("validated faces"),
        }
    }
}

impl fmt::Display for Die {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Die::Standard(100) => write!(f, "d%"),
            Die::Standard(s) => write!(f, "d{s}"),
            Die::Fudge => write!(f, "dF"),
            Die::Custom(faces) => {
                let list: Vec<String> = faces.iter().map(i64::to_string).collect();
                write!(f, "d{{{}}}", list.join(","))
            }
        }
    }
}

/// A compare operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compare {
    Ge,
    Gt,
    Le,
    Lt,
    Eq,
    Ne,
    /// One of a set of values: bit `i` of the mask stands for `right + i` (the set spans at most 64
    /// consecutive values). A reroll over several faces (`ro{2..5}`) is one condition, so each die is
    /// rerolled at most once, where steps for each face would reroll the reroll.
    Among(u64),
}

impl Compare {
    pub fn holds(self, left: i64, right: i64) -> bool {
        match self {
            Compare::Among(mask) => left
                .checked_sub(right)
                .and_then(|offset| u32::try_from(offset).ok())
                .is_some_and(|offset| offset < 64 && (mask >> offset) & 1 == 1),
            Compare::Ge => left >= right,
            Compare::Gt => left > right,
            Compare::Le => left <= right,
            Compare::Lt => left < right,
            Compare::Eq => left == right,
            Compare::Ne => left != right,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            Compare::Ge => ">=",
            Compare::Gt => ">",
            Compare::Le => "<=",
            Compare::Lt => "<",
            Compare::Eq => "=",
            Compare::Ne => "!=",
            Compare::Among(_) => "in",
        }
    }
}

/// A condition on one die's value, e.g. `>=8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Condition {
    pub op: Compare,
    pub value: i64,
}

impl Condition {
    pub fn new(op: Compare, value: i64) -> Self {
        Condition { op, value }
    }

    pub fn holds(self, x: i64) -> bool {
        self.op.holds(x, self.value)
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Compare::Among(mask) = self.op {
            let faces: Vec<String> = (0..64i64)
                .filter(|i| (mask >> i) & 1 == 1)
                .map(|i| self.value.saturating_add(i).to_string())
                .collect();
            return write!(f, "{{{}}}", faces.join(","));
        }
        write!(f, "{}{}", self.op.symbol(), self.value)
    }
}

/// One per-die modifier that keeps a die a single value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DieStep {
    /// If the condition holds, roll again once and keep the new value.
    RerollOnce(Condition),
    /// Roll again while the condition holds (exact: the die is conditioned on it not holding).
    RerollUntil(Condition),
    /// Values below the bound count as the bound.
    ClampMin(i64),
    /// Values above the bound count as the bound.
    ClampMax(i64),
}

impl DieStep {
    /// The distribution after this step, given the distribution `current` before it and the
    /// distribution `redraw` that a reroll draws from (the die as modified by the steps before this
    /// one; for the steps before an explosion it is `current` itself).
    ///
    /// # Errors
    /// `RerollEverything` when a recursive reroll's condition holds on every face of `redraw`.
    pub fn apply(
        self,
        current: &Distribution<i64>,
        redraw: &Distribution<i64>,
    ) -> Result<Distribution<i64>, CoreError> {
        let (c, recursive) = match self {
            DieStep::ClampMin(m) => return Ok(current.map(|&x| x.max(m))),
            DieStep::ClampMax(m) => return Ok(current.map(|&x| x.min(m))),
            DieStep::RerollOnce(c) => (c, false),
            DieStep::RerollUntil(c) => (c, true),
        };
        // A recursive reroll ends on the first redraw that misses the condition: redraw | ¬c.
        let conditioned;
        let redraw = if recursive {
            let kept = redraw
                .entries()
                .iter()
                .filter(|(x, _)| !c.holds(*x))
                .cloned();
            conditioned =
                Distribution::from_weights(kept).map_err(|_| CoreError::RerollEverything)?;
            &conditioned
        } else {
            redraw
        };
        // P'(x) = P(x)·[¬c(x)] + P(c)·R(x), over the total T·T_R.
        let hit: Weight = current
            .entries()
            .iter()
            .filter(|(x, _)| c.holds(*x))
            .map(|(_, w)| w)
            .sum();
        let t_redraw = redraw.total();
        let mut pairs: Vec<(i64, Weight)> = current
            .entries()
            .iter()
            .filter(|(x, _)| !c.holds(*x))
            .map(|(x, w)| (*x, w * t_redraw))
            .collect();
        if !hit.is_zero() {
            pairs.extend(redraw.entries().iter().map(|(x, w)| (*x, w * &hit)));
        }
        Ok(Distribution::from_weights(pairs)?.normalized())
    }
}

/// The distributions of a die after each prefix of `steps`: element i has the first i steps applied
/// (element 0 is `die` itself), each reroll drawing from the prefix before it.
///
/// A reroll draws from the prefix before it, so each one multiplies the weights' size by the
/// prefix's: the weights double in length with every reroll (`d6ro1ro1…`), and each step is paid
/// for before it is taken.
///
/// # Errors
/// `RerollEverything`; `WorkBudget` when the steps' weights grow past what the budget pays for.
pub fn step_prefixes(
    die: Distribution<i64>,
    steps: &[DieStep],
    budget: &mut Budget,
) -> Result<Vec<Distribution<i64>>, CoreError> {
    let mut out = vec![die];
    for step in steps {
        let last = out.last().expect("starts non-empty");
        if matches!(step, DieStep::RerollOnce(_) | DieStep::RerollUntil(_)) {
            // Every weight times the redraw's total, every redraw weight times the hit weight, then
            // the reduction by their common factor: a few products of the total's size per outcome.
            let limbs = crate::distribution::limbs_of(last.total().bits());
            budget.spend_estimate(
                4 * last.len() as u128 * (limbs * limbs + crate::distribution::BIG_OP),
            )?;
        } else {
            budget.spend_estimate(last.len() as u128)?;
        }
        let next = step.apply(last, last)?;
        out.push(next);
    }
    Ok(out)
}

/// How one die explodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Explosion {
    /// The condition that adds another die; `None` is the die's highest face.
    pub condition: Condition,
    /// The extra rolls add into the same die instead of standing as dice of their own.
    pub compound: bool,
    /// Each extra roll counts one less than it shows (penetrating, `!p`); whether it explodes again is
    /// decided on what it shows.
    pub penetrate: bool,
    /// The steps written before the explosion shape the first roll only (`3d6ro1!a`, Foundry's
    /// `3d6r1x`): when that roll explodes, the dice added are plain dice of the die, exploding on
    /// their own face, with only the steps written after the explosion.
    pub first_only: bool,
}

/// One roll of a die inside an explosion chain: whether it explodes, and the value it counts as.
///
/// The explosion is decided on the value before the per-die steps written after the explosion; the
/// value is the one after them.
pub type ChainElement = Distribution<(bool, i64)>;

/// The element distribution of a die whose steps are `steps`, exploding on `condition` as decided
/// after the first `explode_at` steps; the steps from `explode_at` on then change each roll's value.
///
/// `prefixes` are the die's `step_prefixes` over `steps`.
///
/// # Errors
/// The errors of the steps.
pub fn chain_element(
    prefixes: &[Distribution<i64>],
    steps: &[DieStep],
    explode_at: usize,
    condition: Option<Condition>,
) -> Result<ChainElement, CoreError> {
    let decided = &prefixes[explode_at];
    if steps.len() <= explode_at {
        // No step changes a roll after the explosion is decided: each roll is its own value.
        return Ok(decided.map(|&v| (condition.is_some_and(|c| c.holds(v)), v)));
    }
    let mut parts = Vec::with_capacity(decided.len());
    for (v, w) in decided.entries() {
        let explodes = condition.is_some_and(|c| c.holds(*v));
        let mut value = Distribution::constant(*v);
        for (i, step) in steps.iter().enumerate().skip(explode_at) {
            value = step.apply(&value, &prefixes[i])?;
        }
        parts.push((w.clone(), value.map(|&x| (explodes, x))));
    }
    Distribution::mixture(parts, &mut Budget::unlimited())
}

/// The distribution of Σ score(value) over one die's explosion chain of at most `depth` extra rolls, and
/// the probability that the chain reached the depth limit with its last roll meeting the condition.
///
/// # Errors
/// `TooManyOutcomes`, `WorkBudget`, `Overflow`.
pub fn chain_sum(
    element: &ChainElement,
    depth: u64,
    score: &dyn Fn(i64) -> i64,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<(Distribution<i64>, Probability), CoreError> {
    let last = element.map(|&(_, v)| score(v));
    let explode_weight: Weight = element
        .entries()
        .iter()
        .filter(|((e, _), _)| *e)
        .map(|(_, w)| w)
        .sum();
    let p = Probability::new(explode_weight.clone(), element.total().clone());
    if explode_weight.is_zero() {
        return Ok((last, Probability::zero()));
    }
    // Y₀ is the last roll (never exploded); Yₖ = stop ⊕ (explode + Yₖ₋₁), built from the inside out.
    let stop = Distribution::from_weights(
        element
            .entries()
            .iter()
            .filter(|((e, _), _)| !*e)
            .map(|((_, v), w)| (score(*v), w.clone())),
    );
    let go = Distribution::from_weights(
        element
            .entries()
            .iter()
            .filter(|((e, _), _)| *e)
            .map(|((_, v), w)| (score(*v), w.clone())),
    )?;
    let stop_weight = element.total() - &explode_weight;
    // Chain k has about k·span outcomes with weights k+1 times as wide as one roll's total, and is
    // built from `go` convolved with chain k − 1: price the whole chain before building any of it.
    let span = (*last.max_outcome() as i128 - *last.min_outcome() as i128).unsigned_abs() + 1;
    let roll_limbs = crate::distribution::limbs_of(element.total().bits());
    let work: u128 = (1..=depth as u128)
        .map(|k| go.len() as u128 * k * span * (k + 1) * roll_limbs * roll_limbs)
        .sum();
    budget.spend_estimate(work)?;
    let mut y = last;
    for _ in 0..depth {
        let continued = go.add(&y, limits, budget)?;
        y = match &stop {
            Ok(stop) => Distribution::mixture(
                vec![
                    (stop_weight.clone(), stop.clone()),
                    (explode_weight.clone(), continued),
                ],
                budget,
            )?,
            Err(_) => continued,
        };
    }
    let truncated = num_traits::pow(p, depth as usize + 1);
    Ok((y, truncated))
}

/// P(at least one of `n` independent events of probability `p`).
pub fn any_of(p: &Probability, n: usize) -> Probability {
    if p.is_zero() {
        return Probability::zero();
    }
    // With p = a/b in lowest terms, 1 − (1 − p)ⁿ = (bⁿ − (b − a)ⁿ) / bⁿ, and that is in lowest terms
    // too (b − a is prime to b): two powers, and none of the gcds a power of fractions would take.
    let (a, b) = (p.numer(), p.denom());
    let whole = num_traits::pow(b.clone(), n);
    let none = num_traits::pow(b - a, n);
    Probability::new_raw(&whole - none, whole)
}

/// The work of [`any_of`]: two powers of a number of `bits · n` bits.
pub fn any_of_cost(p: &Probability, n: usize) -> u128 {
    let limbs = crate::distribution::limbs_of(p.denom().bits().saturating_mul(n as u64));
    limbs * limbs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prob(n: u64, d: u64) -> Probability {
        Probability::new(n.into(), d.into())
    }

    #[test]
    fn reroll_once_on_one() {
        let d6 = Distribution::die(6).unwrap();
        let r = DieStep::RerollOnce(Condition::new(Compare::Eq, 1))
            .apply(&d6, &d6)
            .unwrap();
        assert_eq!(r.probability(&1), prob(1, 36));
        assert_eq!(r.probability(&6), prob(7, 36));
    }

    #[test]
    fn reroll_once_over_a_set_rerolls_each_die_once() {
        // d6 rerolled once on 2..5: a 1 stays (1/6) or comes from a reroll (4/6 · 1/6): 10/36;
        // a 3 only from a reroll: 4/36.
        let d6 = Distribution::die(6).unwrap();
        let among = Condition::new(Compare::Among(0b1111), 2);
        let r = DieStep::RerollOnce(among).apply(&d6, &d6).unwrap();
        assert_eq!(r.probability(&1), prob(10, 36));
        assert_eq!(r.probability(&3), prob(4, 36));
        assert_eq!(among.to_string(), "{2,3,4,5}");
        let edges = Condition::new(Compare::Among(1 | 1 << 63), i64::MAX - 63);
        assert!(edges.holds(i64::MAX) && edges.holds(i64::MAX - 63));
        assert!(!edges.holds(i64::MIN) && !edges.holds(i64::MAX - 64) && !edges.holds(0));
    }

    #[test]
    fn reroll_until_conditions_the_die() {
        let d6 = Distribution::die(6).unwrap();
        let r = DieStep::RerollUntil(Condition::new(Compare::Le, 2))
            .apply(&d6, &d6)
            .unwrap();
        assert_eq!(r.probability(&3), prob(1, 4));
        assert_eq!(r.probability(&1), prob(0, 1));
        let all = DieStep::RerollUntil(Condition::new(Compare::Ge, 1)).apply(&d6, &d6);
        assert_eq!(all, Err(CoreError::RerollEverything));
    }

    #[test]
    fn compound_d6_with_depth_one() {
        let limits = Limits::default();
        let d6 = Distribution::die(6).unwrap();
        let e = chain_element(&[d6], &[], 0, Some(Condition::new(Compare::Eq, 6))).unwrap();
        let (sum, truncated) = chain_sum(&e, 1, &|x| x, &limits, &mut limits.budget()).unwrap();
        assert_eq!(sum.probability(&5), prob(1, 6));
        assert_eq!(sum.probability(&7), prob(1, 36));
        assert_eq!(sum.probability(&12), prob(1, 36));
        assert_eq!(sum.len(), 11);
        assert_eq!(truncated, prob(1, 36));
        assert!(crate::ratio_to_f64(&sum.statistics().mean) > 3.5);
    }

    #[test]
    fn any_of_three() {
        assert_eq!(any_of(&prob(1, 2), 3), prob(7, 8));
    }
}

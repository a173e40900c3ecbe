//! A dice term fully described (`NdX` with rerolls, clamps, an explosion, keep/drop and counting), and
//! its two readings: the exact distribution and one roll with every die shown.
//!
//! Both readings follow the same order: the per-die steps as written (with the explosion among them),
//! then keep/drop, then counting.

use std::collections::BTreeMap;

use num_traits::{One, Zero};

use crate::dice::{
    ChainElement, Condition, Die, DieStep, Explosion, any_of, any_of_cost, chain_element,
    chain_sum, step_prefixes,
};
use crate::distribution::{Distribution, Probability, Weight};
use crate::error::CoreError;
use crate::limits::{Budget, Limits};
use crate::pool::{Keep, Unit, exploding_keep_sum, keep_sum, sequential_keep_sum};
use crate::roller::DieSource;
use crate::sets::{Matching, Unique, matching_sets, unique_sum};

// Its home moved below the sets module, which uses it too; the path stays for the crate's users.
pub use crate::kept::select_kept;

/// One die as modified before the pool sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiceSpec {
    pub die: Die,
    /// Steps written before the explosion (all of them when there is none).
    pub before: Vec<DieStep>,
    /// At most one explosion; its condition is resolved (the highest face when none was written).
    pub explosion: Option<Explosion>,
    /// Steps written after the explosion: applied to each rolled die, or to the compound total.
    pub after: Vec<DieStep>,
}

/// A pool of identical dice with keep/drop and counting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolSpec {
    pub count: usize,
    pub dice: DiceSpec,
    pub keep: Keep,
    /// Count the kept dice meeting this condition (instead of summing them).
    pub success: Option<Condition>,
    /// Subtract the kept dice meeting this condition from the count.
    pub failure: Option<Condition>,
    /// At most this many extra dice per die from exploding.
    pub depth: u64,
    /// Roll20's matching (`m`, `mt`): marks the dice in sets, or (`mt`) makes the result the number of
    /// sets.
    pub matching: Option<Matching>,
    /// rpg-dice-roller's unique rerolls (`u`, `uo`).
    pub unique: Option<Unique>,
}

/// An exact result: the distribution and the probability that an explosion hit the depth limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exact<T: Ord + Clone> {
    pub distribution: Distribution<T>,
    /// P(some die met its explode condition on its last allowed roll): the mass the limit cut off.
    pub truncated: Probability,
}

/// What happened to a die in a roll.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mark {
    /// Counted towards the result (shown only when some dice were dropped).
    Kept,
    /// Rolled but not counted (keep/drop).
    Dropped,
    /// Met the explode condition and added another die (or, compounded, another roll).
    Exploded,
    /// Met the explode condition on its last allowed roll: the depth limit stopped it.
    DepthLimit,
    /// Replaced by a reroll; not part of the pool.
    Rerolled,
    /// Changed by min/max.
    Clamped,
    /// Met the success condition.
    Success,
    /// Met the failure condition.
    Failure,
    /// Kept, and one of a set of kept dice showing the same value (`m`, `mt`).
    Matched,
}

/// One die in a roll's transcript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RolledDie {
    /// The value it counts as (after clamps; the compound total for `!!`).
    pub value: i64,
    /// The raw rolls that made it: one, or several for a compounding die.
    pub rolls: Vec<i64>,
    pub marks: Vec<Mark>,
}

impl RolledDie {
    pub(crate) fn new(value: i64) -> Self {
        RolledDie {
            value,
            rolls: vec![value],
            marks: Vec::new(),
        }
    }

    pub fn has(&self, mark: Mark) -> bool {
        self.marks.contains(&mark)
    }

    /// Rerolled dice stay in the transcript but leave the pool.
    pub fn in_pool(&self) -> bool {
        !self.has(Mark::Rerolled)
    }
}

/// One roll of a pool: every die in the order rolled (rerolled ones included, marked) and the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolRoll {
    pub dice: Vec<RolledDie>,
    pub total: i64,
}

/// A recursive reroll gives up after this many rerolls of one die (the exact engine conditions instead).
pub const REROLL_LIMIT: u64 = 10_000;

/// What a roll chain starts from before the steps: a physical die, or (for `!!`) a whole compounded die.
#[derive(Clone, Copy)]
enum Base<'a> {
    Physical,
    Compound(&'a Explosion, u64),
}

impl DiceSpec {
    /// A plain die with no steps.
    pub fn plain(die: Die) -> Self {
        DiceSpec {
            die,
            before: Vec::new(),
            explosion: None,
            after: Vec::new(),
        }
    }

    /// The distribution of one roll after the steps written before the explosion.
    ///
    /// The steps are not paid for here: the language's checker has already computed the same
    /// prefixes under a budget (see [`step_prefixes`]), and a rule set's dice have a step or two.
    ///
    /// # Errors
    /// `RerollEverything`.
    pub fn before_distribution(&self) -> Result<Distribution<i64>, CoreError> {
        let mut prefixes = step_prefixes(
            self.die.distribution(),
            &self.before,
            &mut Budget::unlimited(),
        )?;
        Ok(prefixes.pop().expect("at least the die"))
    }

    /// The highest face after the steps before the explosion: where `!` explodes by default.
    ///
    /// # Errors
    /// `RerollEverything`.
    pub fn highest_face(&self) -> Result<i64, CoreError> {
        Ok(*self.before_distribution()?.max_outcome())
    }

    fn is_chain(&self) -> bool {
        matches!(self.explosion, Some(e) if !e.compound)
    }

    /// The steps of a chain's rolls: all of them, or for a compounding die only those after the
    /// explosion (the ones before it shape each roll inside the compound die).
    fn steps(&self) -> Vec<DieStep> {
        match self.explosion {
            Some(e) if e.compound => self.after.clone(),
            _ => self.before.iter().chain(&self.after).copied().collect(),
        }
    }

    /// The element of one die's roll chain (a die that does not explode, or compounds, is a chain of
    /// one), and the probability that the chain hits the depth limit.
    fn element(
        &self,
        depth: u64,
        limits: &Limits,
        budget: &mut Budget,
    ) -> Result<(ChainElement, Probability), CoreError> {
        match self.explosion {
            None => {
                let prefixes = step_prefixes(self.die.distribution(), &self.before, budget)?;
                let element = chain_element(&prefixes, &self.before, self.before.len(), None)?;
                Ok((element, Probability::zero()))
            }
            Some(e) if e.compound => {
                let prefixes = step_prefixes(self.die.distribution(), &self.before, budget)?;
                let inner = chain_element(
                    &prefixes,
                    &self.before,
                    self.before.len(),
                    Some(e.condition),
                )?;
                let (total, mut truncated) =
                    explosion_sum(&inner, e.penetrate, depth, &|x| x, limits, budget)?;
                let rerolls_after = self
                    .after
                    .iter()
                    .any(|s| matches!(s, DieStep::RerollOnce(_) | DieStep::RerollUntil(_)));
                if rerolls_after && !truncated.is_zero() {
                    // A reroll of the compound total rolls a whole new compounded die, which can hit
                    // the limit too.
                    truncated = compound_truncated(
                        &inner,
                        e.penetrate,
                        depth,
                        &total,
                        &self.after,
                        limits,
                        budget,
                    )?;
                }
                // The compounded die is the base that the later steps change and redraw.
                let mut after = step_prefixes(total, &self.after, budget)?;
                let value = after.pop().expect("at least the total");
                Ok((value.map(|&x| (false, x)), truncated))
            }
            Some(e) => {
                let steps = self.steps();
                let prefixes = step_prefixes(self.die.distribution(), &steps, budget)?;
                let element =
                    chain_element(&prefixes, &steps, self.before.len(), Some(e.condition))?;
                let p_explode = element.probability_where(|(e, _)| *e);
                let truncated = num_traits::pow(p_explode, depth as usize + 1);
                Ok((element, truncated))
            }
        }
    }

    /// A fresh base roll: one physical die, or a whole compounded die.
    fn roll_base(
        &self,
        base: Base<'_>,
        source: &mut dyn DieSource,
        transcript: &mut Vec<RolledDie>,
    ) -> Result<RolledDie, CoreError> {
        let Base::Compound(e, depth) = base else {
            return Ok(RolledDie::new(source.roll(&self.die)?));
        };
        let first = self.roll_through(
            Base::Physical,
            &self.before,
            self.before.len(),
            source,
            transcript,
        )?;
        let mut die = RolledDie {
            value: first.value,
            rolls: vec![first.value],
            marks: first.marks,
        };
        let mut last = first.value;
        let mut extra = 0;
        while e.condition.holds(last) {
            if extra == depth {
                die.marks.push(Mark::DepthLimit);
                break;
            }
            extra += 1;
            if !die.has(Mark::Exploded) {
                die.marks.push(Mark::Exploded);
            }
            let next = self.roll_through(
                Base::Physical,
                &self.before,
                self.before.len(),
                source,
                transcript,
            )?;
            last = next.value;
            die.rolls.push(last);
            let counted = last
                .checked_sub(i64::from(e.penetrate))
                .ok_or(CoreError::Overflow)?;
            die.value = die.value.checked_add(counted).ok_or(CoreError::Overflow)?;
        }
        Ok(die)
    }

    /// A fresh roll with the first `k` of `steps` applied.
    fn roll_through(
        &self,
        base: Base<'_>,
        steps: &[DieStep],
        k: usize,
        source: &mut dyn DieSource,
        transcript: &mut Vec<RolledDie>,
    ) -> Result<RolledDie, CoreError> {
        let die = self.roll_base(base, source, transcript)?;
        self.apply_steps(base, steps, 0..k, die, source, transcript)
    }

    /// Applies `steps[range]` to a rolled die; a reroll at step i draws a fresh roll through the first
    /// i steps, and the replaced die stays in the transcript, marked.
    fn apply_steps(
        &self,
        base: Base<'_>,
        steps: &[DieStep],
        range: std::ops::Range<usize>,
        mut die: RolledDie,
        source: &mut dyn DieSource,
        transcript: &mut Vec<RolledDie>,
    ) -> Result<RolledDie, CoreError> {
        for i in range {
            match steps[i] {
                DieStep::ClampMin(m) if die.value < m => {
                    die.value = m;
                    die.marks.push(Mark::Clamped);
                }
                DieStep::ClampMax(m) if die.value > m => {
                    die.value = m;
                    die.marks.push(Mark::Clamped);
                }
                DieStep::ClampMin(_) | DieStep::ClampMax(_) => {}
                DieStep::RerollOnce(c) | DieStep::RerollUntil(c) => {
                    let once = matches!(steps[i], DieStep::RerollOnce(_));
                    let mut rerolls = 0;
                    while c.holds(die.value) {
                        rerolls += 1;
                        if rerolls > REROLL_LIMIT {
                            return Err(CoreError::RerollLimit(REROLL_LIMIT));
                        }
                        die.marks.push(Mark::Rerolled);
                        transcript.push(die);
                        die = self.roll_through(base, steps, i, source, transcript)?;
                        if once {
                            break;
                        }
                    }
                }
            }
        }
        Ok(die)
    }

    /// Rolls one die with all its steps; pushes every die it produces (rerolled ones too) on `out`.
    ///
    /// # Errors
    /// The source's errors; `RerollLimit`; `Overflow` for a compound total past `i64`.
    pub fn roll_into(
        &self,
        depth: u64,
        source: &mut dyn DieSource,
        out: &mut Vec<RolledDie>,
    ) -> Result<(), CoreError> {
        match &self.explosion {
            None => {
                let die = self.roll_through(
                    Base::Physical,
                    &self.before,
                    self.before.len(),
                    source,
                    out,
                )?;
                out.push(die);
            }
            Some(e) if e.compound => {
                let base = Base::Compound(e, depth);
                let die = self.roll_through(base, &self.after, self.after.len(), source, out)?;
                out.push(die);
            }
            Some(e) => {
                // The dice added to a first roll rerolled alone are plain: only the steps after `!`.
                let added = e.first_only.then(|| DiceSpec {
                    before: Vec::new(),
                    ..self.clone()
                });
                let mut extra = 0;
                loop {
                    let this = added.as_ref().filter(|_| extra > 0).unwrap_or(self);
                    let (steps, at) = (this.steps(), this.before.len());
                    let die = this.roll_through(Base::Physical, &steps, at, source, out)?;
                    let explodes = e.condition.holds(die.value);
                    let again = explodes && extra < depth;
                    let mut die = this.apply_steps(
                        Base::Physical,
                        &steps,
                        at..steps.len(),
                        die,
                        source,
                        out,
                    )?;
                    if e.penetrate && extra > 0 {
                        die.value = die.value.checked_sub(1).ok_or(CoreError::Overflow)?;
                    }
                    if again {
                        die.marks.push(Mark::Exploded);
                    } else if explodes {
                        die.marks.push(Mark::DepthLimit);
                    }
                    out.push(die);
                    if !again {
                        break;
                    }
                    extra += 1;
                }
            }
        }
        Ok(())
    }
}

/// The sum over one die's explosion chain ([`chain_sum`]); when the explosion penetrates, every roll
/// after the first counts one less (the explosion is still decided on what the roll shows).
fn explosion_sum(
    element: &ChainElement,
    penetrate: bool,
    depth: u64,
    score: &dyn Fn(i64) -> i64,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<(Distribution<i64>, Probability), CoreError> {
    if !penetrate || depth == 0 {
        return chain_sum(element, depth, score, limits, budget);
    }
    let shifted =
        element.try_map(|&(e, v)| v.checked_sub(1).map(|v| (e, v)).ok_or(CoreError::Overflow))?;
    let (tail, _) = chain_sum(&shifted, depth - 1, score, limits, budget)?;
    let part = |explodes: bool| {
        Distribution::from_weights(
            element
                .entries()
                .iter()
                .filter(|((e, _), _)| *e == explodes)
                .map(|((_, v), w)| (score(*v), w.clone())),
        )
    };
    let explode_weight: Weight = element
        .entries()
        .iter()
        .filter(|((e, _), _)| *e)
        .map(|(_, w)| w)
        .sum();
    let stop_weight = element.total() - &explode_weight;
    let mut parts = Vec::new();
    if let Ok(stop) = part(false) {
        parts.push((stop_weight, stop));
    }
    if let Ok(go) = part(true) {
        parts.push((explode_weight.clone(), go.add(&tail, limits, budget)?));
    }
    let distribution = Distribution::mixture(parts, budget)?;
    let p = Probability::new(explode_weight, element.total().clone());
    Ok((distribution, num_traits::pow(p, depth as usize + 1)))
}

/// P(some compounded die hit the depth limit) for a compounding die whose total `total` then goes
/// through `after`, where a reroll rolls a whole new compounded die.
///
/// It follows M(v) = P(no compounded die so far hit the limit, and the value is v) through the steps:
/// a clamp moves v; a reroll once on c gives M(v)·[¬c(v)] + M(c)·M(v); a reroll until ¬c gives
/// M(v)·[¬c(v)] / (1 − M(c)), the sum over every number of rejected dice that all missed the limit.
/// M starts as the total's distribution less the runs of `depth + 1` exploding rolls.
fn compound_truncated(
    inner: &ChainElement,
    penetrate: bool,
    depth: u64,
    total: &Distribution<i64>,
    after: &[DieStep],
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Probability, CoreError> {
    let go = Distribution::from_weights(
        inner
            .entries()
            .iter()
            .filter(|((e, _), _)| *e)
            .map(|((_, v), w)| (*v, w.clone())),
    )?;
    let p_go = inner.probability_where(|(e, _)| *e);
    let extra = usize::try_from(depth).map_err(|_| CoreError::Overflow)?;
    let runs = extra.checked_add(1).ok_or(CoreError::Overflow)?;
    let shift = i64::from(penetrate);
    let shifted = go.try_map(|&v| v.checked_sub(shift).ok_or(CoreError::Overflow))?;
    let limited = go.add(&shifted.sum_of(extra, limits, budget)?, limits, budget)?;
    let p_limited = num_traits::pow(p_go, runs);
    let mut survive: BTreeMap<i64, Probability> = total
        .entries()
        .iter()
        .map(|(v, _)| {
            let hit = &p_limited * limited.probability(v);
            (*v, total.probability(v) - hit)
        })
        .collect();
    for step in after {
        budget.spend(survive.len() as u64)?;
        survive = match *step {
            DieStep::ClampMin(m) => regroup(survive, |x| x.max(m)),
            DieStep::ClampMax(m) => regroup(survive, |x| x.min(m)),
            DieStep::RerollOnce(c) => {
                let hit: Probability = survive
                    .iter()
                    .filter(|(v, _)| c.holds(**v))
                    .map(|(_, p)| p)
                    .sum();
                survive
                    .iter()
                    .map(|(v, p)| {
                        let kept = if c.holds(*v) {
                            Probability::zero()
                        } else {
                            p.clone()
                        };
                        (*v, kept + &hit * p)
                    })
                    .collect()
            }
            DieStep::RerollUntil(c) => {
                let hit: Probability = survive
                    .iter()
                    .filter(|(v, _)| c.holds(**v))
                    .map(|(_, p)| p)
                    .sum();
                if hit >= Probability::from_integer(1u32.into()) {
                    return Err(CoreError::RerollEverything);
                }
                let scale = Probability::from_integer(1u32.into()) - hit;
                survive
                    .into_iter()
                    .filter(|(v, _)| !c.holds(*v))
                    .map(|(v, p)| (v, p / &scale))
                    .collect()
            }
        };
    }
    let kept: Probability = survive.values().sum();
    Ok(Probability::from_integer(1u32.into()) - kept)
}

fn regroup(
    measure: BTreeMap<i64, Probability>,
    f: impl Fn(i64) -> i64,
) -> BTreeMap<i64, Probability> {
    let mut out = BTreeMap::new();
    for (v, p) in measure {
        *out.entry(f(v)).or_insert_with(Probability::zero) += p;
    }
    out
}

/// What one kept die (or group member) adds to a result: its value, or, when counting, +1 for meeting
/// the success condition and −1 for meeting the failure condition.
pub fn count_score(success: Option<Condition>, failure: Option<Condition>, value: i64) -> i64 {
    if success.is_some() || failure.is_some() {
        i64::from(success.is_some_and(|c| c.holds(value)))
            - i64::from(failure.is_some_and(|c| c.holds(value)))
    } else {
        value
    }
}

impl PoolSpec {
    /// What one kept die adds to the result: its value, or +1/−1/0 when counting.
    pub fn score(&self, value: i64) -> i64 {
        count_score(self.success, self.failure, value)
    }

    /// The exact distribution of the pool's result.
    ///
    /// # Errors
    /// `RerollEverything`, `TooManyOutcomes`, `WorkBudget`, `Overflow`.
    pub fn exact(&self, limits: &Limits, budget: &mut Budget) -> Result<Exact<i64>, CoreError> {
        if let Some(distribution) = self.sets_exact(limits, budget)? {
            return Ok(Exact {
                distribution,
                truncated: Probability::zero(),
            });
        }
        let score = |x: i64| self.score(x);
        if self.dice.explosion.is_none() && self.dice.before.is_empty() {
            // A plain die: its faces are its values, and nothing is cut off.
            let distribution = keep_sum(
                &self.dice.die.distribution(),
                self.count,
                self.keep,
                &score,
                limits,
                budget,
            )?;
            let none = Probability::zero();
            budget.spend_estimate(any_of_cost(&none, self.count))?;
            return Ok(Exact {
                distribution,
                truncated: none,
            });
        }
        if let Some(e) = self.dice.explosion.filter(|e| e.first_only) {
            let (distribution, truncated) = self.first_only_exact(e, limits, budget)?;
            return Ok(Exact {
                distribution,
                truncated,
            });
        }
        let (element, truncated_one) = self.dice.element(self.depth, limits, budget)?;
        let distribution = if self.dice.is_chain() && !truncated_one.is_zero() {
            if self.keep == Keep::All {
                let penetrate = self.dice.explosion.is_some_and(|e| e.penetrate);
                let (chain, _) =
                    explosion_sum(&element, penetrate, self.depth, &score, limits, budget)?;
                chain.sum_of(self.count, limits, budget)?
            } else if self.dice.explosion.is_some_and(|e| e.penetrate) {
                return Err(CoreError::Unsupported(
                    "penetrating explosions with keep or drop",
                ));
            } else if let Some(d) = exploding_keep_sum(
                &element, self.count, self.depth, self.keep, &score, limits, budget,
            )? {
                d
            } else {
                let unit = Unit {
                    element,
                    depth: self.depth,
                };
                sequential_keep_sum(&vec![unit; self.count], self.keep, &score, limits, budget)?
            }
        } else {
            let value = element.map(|&(_, v)| v);
            keep_sum(&value, self.count, self.keep, &score, limits, budget)?
        };
        budget.spend_estimate(any_of_cost(&truncated_one, self.count))?;
        let truncated = any_of(&truncated_one, self.count);
        Ok(Exact {
            distribution,
            truncated,
        })
    }

    /// The die as the walks over the whole pool see it: neither unique rerolls nor matching is
    /// computed for exploding dice, whose number varies.
    fn set_die(&self) -> Result<Distribution<i64>, CoreError> {
        if self.dice.explosion.is_some() {
            return Err(CoreError::Unsupported(
                "unique rerolls and matching on exploding dice",
            ));
        }
        self.dice.before_distribution()
    }

    /// The distribution of a pool with unique rerolls or counting sets (`mt`); `None` for any other.
    fn sets_exact(
        &self,
        limits: &Limits,
        budget: &mut Budget,
    ) -> Result<Option<Distribution<i64>>, CoreError> {
        let counts_sets = self.matching.filter(|m| m.total);
        if self.unique.is_none() && counts_sets.is_none() {
            return Ok(None);
        }
        let die = self.set_die()?;
        let score = |x: i64| self.score(x);
        Ok(Some(match (self.unique, counts_sets) {
            (Some(_), Some(_)) => {
                return Err(CoreError::Unsupported(
                    "unique rerolls and counting sets on one pool",
                ));
            }
            (Some(u), None) => unique_sum(&die, self.count, u, self.keep, &score, limits, budget)?,
            (None, Some(m)) => matching_sets(&die, self.count, self.keep, m, limits, budget)?,
            (None, None) => unreachable!("returned above"),
        }))
    }

    /// P(the roll shows at least one set of matching dice), for a pool marked with `m` or `mt`.
    ///
    /// # Errors
    /// `Unsupported` for exploding dice or with unique rerolls; as [`PoolSpec::exact`].
    pub fn any_match(
        &self,
        matching: Matching,
        limits: &Limits,
        budget: &mut Budget,
    ) -> Result<Probability, CoreError> {
        if self.unique.is_some() {
            return Err(CoreError::Unsupported("matching with unique rerolls"));
        }
        let die = self.set_die()?;
        let sets = matching_sets(&die, self.count, self.keep, matching, limits, budget)?;
        Ok(Probability::one() - sets.probability(&0))
    }

    /// P(at least one die of the pool shows a value meeting `c`): every die that stays in the pool
    /// counts, kept or dropped, each die of an explosion chain included, rerolled ones not; what the
    /// transcript marks as a critical (`cs`, `cf`).
    ///
    /// # Errors
    /// As [`PoolSpec::exact`].
    pub fn any_die_meets(
        &self,
        c: Condition,
        limits: &Limits,
        budget: &mut Budget,
    ) -> Result<Probability, CoreError> {
        if self.dice.explosion.is_some_and(|e| e.first_only) {
            return Err(CoreError::Unsupported(
                "critical marks on dice whose first roll alone is rerolled",
            ));
        }
        let (element, _) = self.dice.element(self.depth, limits, budget)?;
        let total = element.total().clone();
        // P(a roll misses `c`), with the roll counting `shift` less; and split by whether it explodes.
        let misses = |explodes: Option<bool>, shift: i64| {
            let weight: Weight = element
                .entries()
                .iter()
                .filter(|((e, v), _)| {
                    explodes.is_none_or(|x| x == *e) && !c.holds(v.saturating_sub(shift))
                })
                .map(|(_, w)| w)
                .sum();
            Probability::new(weight, total.clone())
        };
        let none = match self.dice.explosion {
            Some(e) if !e.compound && self.depth > 0 => {
                // N(k) = P(a chain of at most k more rolls misses): the last roll, or a roll that
                // stops, or one that explodes and a chain of k − 1 after it.
                let shift = i64::from(e.penetrate);
                let (stop, go) = (misses(Some(false), shift), misses(Some(true), shift));
                let mut rest = misses(None, shift);
                for _ in 1..self.depth {
                    budget.spend(1)?;
                    rest = &stop + &go * &rest;
                }
                misses(Some(false), 0) + misses(Some(true), 0) * rest
            }
            _ => misses(None, 0),
        };
        let one = Probability::from_integer(1u32.into());
        let hit = one - none;
        budget.spend_estimate(any_of_cost(&hit, self.count))?;
        Ok(any_of(&hit, self.count))
    }

    /// One roll with every die shown and marked.
    ///
    /// # Errors
    /// The source's errors; `RerollLimit`; `Overflow`.
    pub fn roll(&self, source: &mut dyn DieSource) -> Result<PoolRoll, CoreError> {
        let mut dice = Vec::with_capacity(self.count);
        match self.unique {
            Some(unique) => self.roll_unique(unique, source, &mut dice)?,
            None => {
                for _ in 0..self.count {
                    self.dice.roll_into(self.depth, source, &mut dice)?;
                }
            }
        }
        let in_pool: Vec<usize> = (0..dice.len()).filter(|&i| dice[i].in_pool()).collect();
        let values: Vec<i64> = in_pool.iter().map(|&i| dice[i].value).collect();
        let kept = select_kept(&values, self.keep);
        let mut total: i64 = 0;
        for (&i, keep) in in_pool.iter().zip(kept) {
            let die = &mut dice[i];
            if !keep {
                die.marks.push(Mark::Dropped);
                continue;
            }
            if self.keep != Keep::All {
                die.marks.push(Mark::Kept);
            }
            if self.success.is_some_and(|c| c.holds(die.value)) {
                die.marks.push(Mark::Success);
            }
            if self.failure.is_some_and(|c| c.holds(die.value)) {
                die.marks.push(Mark::Failure);
            }
            total = total
                .checked_add(self.score(die.value))
                .ok_or(CoreError::Overflow)?;
        }
        if let Some(matching) = self.matching {
            let kept: Vec<usize> = in_pool
                .iter()
                .copied()
                .filter(|&i| !dice[i].has(Mark::Dropped))
                .collect();
            let values: Vec<i64> = kept.iter().map(|&i| dice[i].value).collect();
            let sets = matching.sets(&values);
            for &i in &kept {
                if sets.contains(&dice[i].value) {
                    dice[i].marks.push(Mark::Matched);
                }
            }
            if matching.total {
                total = i64::try_from(sets.len()).map_err(|_| CoreError::Overflow)?;
            }
        }
        Ok(PoolRoll { dice, total })
    }

    /// Rolls the dice in order; a die whose value is taken is rolled again (the replaced roll stays
    /// in the transcript, marked), until it is free, once for `uo`, or not at all when no value the
    /// die can show is free.
    fn roll_unique(
        &self,
        unique: Unique,
        source: &mut dyn DieSource,
        dice: &mut Vec<RolledDie>,
    ) -> Result<(), CoreError> {
        let faces = self.set_die()?;
        let mut taken: Vec<i64> = Vec::new();
        for _ in 0..self.count {
            let stuck = faces.outcomes().all(|&v| unique.rejects(&taken, v));
            let mut rerolls = 0;
            loop {
                self.dice.roll_into(self.depth, source, dice)?;
                let die = dice.last_mut().expect("a die was rolled");
                let again =
                    unique.rejects(&taken, die.value) && !stuck && !(unique.once && rerolls == 1);
                if !again {
                    taken.push(die.value);
                    break;
                }
                rerolls += 1;
                if rerolls > REROLL_LIMIT {
                    return Err(CoreError::RerollLimit(REROLL_LIMIT));
                }
                die.marks.push(Mark::Rerolled);
            }
        }
        Ok(())
    }
}

mod first_only;
#[cfg(test)]
mod tests;

//! Dice whose first roll alone goes through the steps written before the explosion (`3d6ro1!a`,
//! Foundry's `3d6r1x`): the exact sum of such a pool.
//!
//! Per die, the first roll is the die with all its steps, exploding on the face after the steps
//! written before the explosion; when it explodes, a plain exploding chain of the die follows, each
//! roll with only the steps written after the explosion and exploding on its own face. The chain of
//! added dice is cut after `depth` of them, the last counting as rolled.

use num_traits::Zero;

use super::{PoolSpec, chain_element, chain_sum, step_prefixes};
use crate::dice::{ChainElement, Explosion};
use crate::distribution::{Distribution, Probability, Weight};
use crate::error::CoreError;
use crate::limits::{Budget, Limits};
use crate::pool::Keep;

/// The first roll's element and the added dice's element.
fn elements(
    spec: &PoolSpec,
    e: Explosion,
    budget: &mut Budget,
) -> Result<(ChainElement, ChainElement), CoreError> {
    let dice = &spec.dice;
    let steps: Vec<_> = dice.before.iter().chain(&dice.after).copied().collect();
    let prefixes = step_prefixes(dice.die.distribution(), &steps, budget)?;
    let first = chain_element(&prefixes, &steps, dice.before.len(), Some(e.condition))?;
    let prefixes = step_prefixes(dice.die.distribution(), &dice.after, budget)?;
    let added = chain_element(&prefixes, &dice.after, 0, Some(e.condition))?;
    Ok((first, added))
}

/// The part of `element` whose rolls explode (or stop), scored, with its weight; None when empty.
fn part(
    element: &ChainElement,
    explodes: bool,
    score: &dyn Fn(i64) -> i64,
) -> Option<(Weight, Distribution<i64>)> {
    let entries: Vec<_> = (element.entries().iter())
        .filter(|((e, _), _)| *e == explodes)
        .map(|((_, v), w)| (score(*v), w.clone()))
        .collect();
    let weight: Weight = entries.iter().map(|(_, w)| w).sum();
    let distribution = Distribution::from_weights(entries).ok()?;
    Some((weight, distribution))
}

/// One die's scored sum, and the probability that its chain met the condition on its last allowed
/// roll.
fn one_die(
    spec: &PoolSpec,
    e: Explosion,
    score: &dyn Fn(i64) -> i64,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<(Distribution<i64>, Probability), CoreError> {
    let (first, added) = elements(spec, e, budget)?;
    let explode = first.probability_where(|(x, _)| *x);
    if spec.depth == 0 {
        return Ok((first.map(|&(_, v)| score(v)), explode));
    }
    // Each added roll counts one less when the explosion penetrates.
    let added = if e.penetrate {
        added.try_map(|&(x, v)| v.checked_sub(1).map(|v| (x, v)).ok_or(CoreError::Overflow))?
    } else {
        added
    };
    let (tail, cut) = chain_sum(&added, spec.depth - 1, score, limits, budget)?;
    let mut parts = Vec::new();
    if let Some(stop) = part(&first, false, score) {
        parts.push(stop);
    }
    if let Some((weight, go)) = part(&first, true, score) {
        parts.push((weight, go.add(&tail, limits, budget)?));
    }
    Ok((Distribution::mixture(parts, budget)?, explode * cut))
}

impl PoolSpec {
    /// The exact distribution of a pool of such dice, and the probability that some die's chain was cut.
    ///
    /// # Errors
    /// `Unsupported` for keep or drop, matching, unique rerolls or compounding; the errors of the steps
    /// and of the sums.
    pub(super) fn first_only_exact(
        &self,
        e: Explosion,
        limits: &Limits,
        budget: &mut Budget,
    ) -> Result<(Distribution<i64>, Probability), CoreError> {
        let spec = self;
        if e.compound || spec.keep != Keep::All || spec.matching.is_some() || spec.unique.is_some()
        {
            return Err(CoreError::Unsupported(
                "keep, drop, matching or compounding on dice whose first roll alone is rerolled",
            ));
        }
        let score = |x: i64| spec.score(x);
        let (die, cut) = one_die(spec, e, &score, limits, budget)?;
        let distribution = die.sum_of(spec.count, limits, budget)?;
        let truncated = if cut.is_zero() {
            cut
        } else {
            super::any_of(&cut, spec.count)
        };
        Ok((distribution, truncated))
    }
}

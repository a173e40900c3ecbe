//! A total's distribution with the probability that a chain was cut at the explosion depth within
//! it, as the walks that follow one die at a time carry them (d20's die by die, Foundry's results
//! followed alone), and the three ways they put such parts together.

use num_traits::One;

use crate::distribution::{Distribution, Probability, Weight, either};
use crate::error::CoreError;
use crate::limits::{Budget, Limits};

/// A total's distribution and the probability that a chain was cut within it.
pub(crate) type Part = (Distribution<i64>, Probability);

/// One part per face of a die, each face as likely: their mixture, cut as often on average.
pub(crate) fn alike(parts: Vec<Part>, budget: &mut Budget) -> Result<Part, CoreError> {
    let share = Probability::new(Weight::one(), Weight::from(parts.len()));
    let mut cut = Probability::default();
    let mut weighted = Vec::with_capacity(parts.len());
    for (d, c) in parts {
        cut += c;
        weighted.push((Weight::one(), d));
    }
    Ok((Distribution::mixture(weighted, budget)?, cut * share))
}

/// Two independent parts added: cut when either is.
pub(crate) fn add(
    a: &Part,
    b: &Part,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Part, CoreError> {
    Ok((a.0.add(&b.0, limits, budget)?, either(&a.1, &b.1)))
}

/// The sum of `count` independent copies of `one`: cut when any copy is.
pub(crate) fn sum_of(
    one: &Part,
    count: u64,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Part, CoreError> {
    let n = usize::try_from(count).map_err(|_| CoreError::Overflow)?;
    let total = one.0.sum_of(n, limits, budget)?;
    let whole =
        (Probability::one() - &one.1).pow(i32::try_from(n).map_err(|_| CoreError::Overflow)?);
    Ok((total, Probability::one() - whole))
}

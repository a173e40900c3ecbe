//! Keeping both ends of a pool: the highest `a` and the lowest `b` dice together (Avrae's `kh1kl1`,
//! Omen's `k{h1, l1}`), which no run of sorted dice describes, so the pool engine's keeps (one run of
//! the sorted dice) cannot say it.
//!
//! Which dice: as d20 selects them, the highest `a` in order of value, the earlier of equal dice
//! first, and the lowest `b` the same way, kept if either picks them. So among equal dice both ends
//! pick the earliest: four 3s keep one 3 with `k{h1, l1}` (d20's `4d6kh1kl1` gives 3).
//!
//! Exact: a walk over the faces from the lowest, choosing how many of the still unplaced dice show
//! each face (binomial weights), with the state (dice placed, kept sum); how many of a face's dice
//! count depends only on how many lie below and above them. Dice sequences are never enumerated.
//! Rolled: the pool is rolled whole, then the dice neither end picks are marked dropped.

use std::collections::HashMap;

use num_traits::{One, Zero};
use omen_core::spec::{Mark, PoolRoll, select_kept};
use omen_core::{Budget, CoreError, Distribution, Keep, Limits, Weight, binomial_rows};

/// The highest `highest` and the lowest `lowest` dice of a pool, kept together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeepEnds {
    pub highest: usize,
    pub lowest: usize,
    /// Drop the dice the ends pick instead of keeping them.
    pub drop: bool,
}

impl KeepEnds {
    /// How many of `count` dice showing one face are kept, when `below` dice show less and `above`
    /// more. As in d20, each selector takes the earliest of equal dice, so among dice that tie both
    /// ends pick from the same side and may pick the same die: of four 3s, `k{h1, l1}` keeps one.
    fn kept_of(self, count: usize, below: usize, above: usize) -> usize {
        let top = self.highest.saturating_sub(above).min(count);
        let bottom = self.lowest.saturating_sub(below).min(count);
        let picked = top.max(bottom);
        if self.drop { count - picked } else { picked }
    }

    /// The ends as written; a negative count keeps nothing from its end.
    pub fn new(highest: i64, lowest: i64, drop: bool) -> Self {
        KeepEnds {
            highest: usize::try_from(highest).unwrap_or(0),
            lowest: usize::try_from(lowest).unwrap_or(0),
            drop,
        }
    }
}

/// Why a term that keeps both ends cannot be computed, given what else it does: another keep or
/// drop, an explosion, matching or unique rerolls (`other`), counting successes (`counts`), or the
/// term being a group. `None` when it can.
pub(crate) fn refusal(on_dice: bool, other: bool, counts: bool) -> Option<&'static str> {
    if !on_dice {
        Some(
            "keeping both ends (`k{h1, l1}`) applies to dice, not to groups, which is not computed yet",
        )
    } else if other || counts {
        Some(
            "keeping both ends (`k{h1, l1}`) with another keep or drop, an explosion, matching, \
             unique rerolls or counting on the same term is not computed yet",
        )
    } else {
        None
    }
}

/// The exact sum of the kept dice of a pool whose dice have their rerolls and clamps but no
/// explosion.
///
/// # Errors
/// As [`exact`], and `RerollEverything` from the dice's steps.
pub(crate) fn pool_exact(
    spec: &omen_core::PoolSpec,
    ends: KeepEnds,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Distribution<i64>, CoreError> {
    let die = spec.dice.before_distribution()?;
    exact(&die, spec.count, ends, limits, budget)
}

/// The sum of the kept dice of `n` dice distributed as `die`.
///
/// # Errors
/// `TooManyStates`, `TooManyOutcomes` and `WorkBudget` (refused before the walk), `Overflow`.
pub fn exact(
    die: &Distribution<i64>,
    n: usize,
    ends: KeepEnds,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Distribution<i64>, CoreError> {
    let faces = die.entries();
    let lo = faces.first().map_or(0, |f| f.0);
    let hi = faces.last().map_or(0, |f| f.0);
    // The kept dice are at most the two ends (every die but the ends when dropping them).
    let kept = if ends.drop {
        n
    } else {
        ends.highest.saturating_add(ends.lowest).min(n)
    } as u128;
    let width = (hi as i128 - lo as i128) as u128;
    limits.check_outcomes(width * kept + 1)?;
    let held = (n as u128 + 1) * (width * kept + 1);
    limits.check_states(held)?;
    let limbs = u128::from(die.total().bits()) * n as u128 / 64 + 1;
    // Each face visits every state with up to n + 1 choices, each a product of numbers of `limbs`.
    budget.spend_estimate(faces.len() as u128 * held * (n as u128 + 1) * limbs * limbs)?;

    let binomials = binomial_rows(n);
    let mut states: HashMap<(usize, i64), Weight> = HashMap::from([((0, 0), Weight::one())]);
    for &(face, ref weight) in faces {
        let powers: Vec<Weight> = (0..=n)
            .map(|j| num_traits::pow(weight.clone(), j))
            .collect();
        let mut next: HashMap<(usize, i64), Weight> = HashMap::new();
        for ((placed, sum), w) in states {
            for (j, power) in powers.iter().enumerate().take(n - placed + 1) {
                let counted = ends.kept_of(j, placed, n - placed - j) as i64;
                let sum = counted
                    .checked_mul(face)
                    .and_then(|s| s.checked_add(sum))
                    .ok_or(CoreError::Overflow)?;
                let add = &w * &binomials[n - placed][j] * power;
                *next.entry((placed + j, sum)).or_insert_with(Weight::zero) += add;
            }
        }
        states = next;
    }
    let out = states
        .into_iter()
        .filter(|((placed, _), _)| *placed == n)
        .map(|((_, sum), w)| (sum, w));
    Distribution::from_weights(out)
}

/// Marks the dice of a pool rolled whole (kept all) outside both ends as dropped, the rest as kept,
/// and sets its total to the kept dice's sum. Ties go to the earlier die, as the pool's keeps do.
///
/// # Errors
/// `Overflow`.
pub fn mark(roll: &mut PoolRoll, ends: KeepEnds) -> Result<(), CoreError> {
    let in_pool: Vec<usize> = (0..roll.dice.len())
        .filter(|&i| roll.dice[i].in_pool())
        .collect();
    let values: Vec<i64> = in_pool.iter().map(|&i| roll.dice[i].value).collect();
    let high = select_kept(&values, Keep::Highest(ends.highest));
    let low = select_kept(&values, Keep::Lowest(ends.lowest));
    let mut total: i64 = 0;
    for (k, &i) in in_pool.iter().enumerate() {
        let die = &mut roll.dice[i];
        if (high[k] || low[k]) != ends.drop {
            die.marks.push(Mark::Kept);
            total = total.checked_add(die.value).ok_or(CoreError::Overflow)?;
        } else {
            die.marks.push(Mark::Dropped);
        }
    }
    roll.total = total;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Σ of the kept dice over every roll of `n` dice with `sides` sides.
    fn brute(sides: i64, n: u32, ends: KeepEnds) -> Distribution<i64> {
        let mut out: HashMap<i64, Weight> = HashMap::new();
        for index in 0..(sides as u64).pow(n) {
            let mut rest = index;
            let roll: Vec<i64> = (0..n)
                .map(|_| {
                    let face = (rest % sides as u64) as i64 + 1;
                    rest /= sides as u64;
                    face
                })
                .collect();
            // d20's selection: each end takes the earliest of equal dice.
            let mut high: Vec<usize> = (0..roll.len()).collect();
            high.sort_by(|&a, &b| roll[b].cmp(&roll[a]));
            let mut low: Vec<usize> = (0..roll.len()).collect();
            low.sort_by_key(|&i| roll[i]);
            let kept: std::collections::BTreeSet<usize> = high
                .into_iter()
                .take(ends.highest)
                .chain(low.into_iter().take(ends.lowest))
                .collect();
            let sum: i64 = (0..roll.len())
                .filter(|i| kept.contains(i) != ends.drop)
                .map(|i| roll[i])
                .sum();
            *out.entry(sum).or_insert_with(Weight::zero) += 1u32;
        }
        Distribution::from_weights(out).expect("weights")
    }

    #[test]
    fn both_ends_match_enumeration() {
        let limits = Limits::default();
        for (sides, n, highest, lowest, drop) in [
            (6, 4, 1, 1, false),
            (6, 5, 2, 1, false),
            (4, 3, 1, 2, false),
            (6, 1, 1, 1, false),
            (3, 4, 0, 2, false),
            (5, 3, 2, 2, false),
            (6, 4, 1, 1, true),
            (4, 5, 2, 1, true),
            (3, 3, 2, 2, true),
        ] {
            let ends = KeepEnds {
                highest,
                lowest,
                drop,
            };
            let die = Distribution::uniform(1..=sides).expect("a die");
            let got =
                exact(&die, n as usize, ends, &limits, &mut Budget::unlimited()).expect("computes");
            assert_eq!(
                got,
                brute(sides, n, ends),
                "{n}d{sides} h{highest} l{lowest}"
            );
        }
    }

    #[test]
    fn rolled_pool_marks_the_middle_dropped() {
        let dice = [3, 6, 1, 4]
            .map(|v| omen_core::spec::RolledDie {
                value: v,
                rolls: vec![v],
                marks: Vec::new(),
            })
            .to_vec();
        let mut roll = PoolRoll { dice, total: 14 };
        let ends = KeepEnds::new(1, 1, false);
        mark(&mut roll, ends).expect("marks");
        assert_eq!(roll.total, 7);
        let dropped: Vec<i64> = roll
            .dice
            .iter()
            .filter(|d| d.has(Mark::Dropped))
            .map(|d| d.value)
            .collect();
        assert_eq!(dropped, [3, 4]);
    }
}

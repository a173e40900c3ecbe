//! Pools whose members differ or whose size is random, one roll at a time.

use std::collections::HashMap;

use num_traits::One;

use super::Keep;
use crate::dice::ChainElement;
use crate::distribution::{Distribution, Weight};
use crate::error::CoreError;
use crate::limits::{Budget, Limits};

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

//! Keeps over dice that explode into extra dice: the pool's size is random, so the walk splits the
//! rolls into those that explode and those that stop a chain.

use std::collections::HashMap;

use num_traits::{One, Zero};

use super::{BIG_OP_COST, Keep, SumsBeyond, keep_sum_with};
use crate::dice::ChainElement;
use crate::distribution::{Distribution, Weight};
use crate::error::CoreError;
use crate::limits::{Budget, Limits};

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
    spend_for_chains(n, depth, max_rolls, &t, budget)?;
    let chain: Vec<(usize, usize, Weight)> = (0..=depth)
        .map(|j| {
            (
                1,
                j,
                num_traits::pow(p.clone(), j) * &q * num_traits::pow(t.clone(), depth - j),
            )
        })
        .chain(std::iter::once((
            0,
            depth + 1,
            num_traits::pow(p.clone(), depth + 1),
        )))
        .collect();
    let joint = pool_rolls(n, &chain);
    let (upper, lower) = if exploding_upper {
        (&exploding, &stopping)
    } else {
        (&stopping, &exploding)
    };
    let Some(groups) = partial_keep_groups(&joint, exploding_upper, keep) else {
        return Ok(None);
    };
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
    let Some((from_highest, target)) = kept_of_pool(keep) else {
        return Ok(None);
    };
    let faces = faces_by_kind(element, from_highest);
    let p: Weight = faces.iter().map(|f| &f.1).sum();
    let q: Weight = faces.iter().map(|f| &f.2).sum();
    if p.is_zero() || q.is_zero() {
        return Ok(None);
    }
    let t = &p + &q;
    let max_rolls = n.checked_mul(depth + 1).ok_or(CoreError::Overflow)?;
    spend_for_chains(n, depth, max_rolls, &t, budget)?;
    let joint = pool_rolls(n, &unplaced_chains(depth, &t));
    let scores: Vec<i64> = faces.iter().map(|f| score(f.0)).collect();
    let (smin, width) = score_range(&scores)?;
    let max_kept = target(max_rolls);
    limits.check_outcomes((width as u128) * max_kept as u128 + 1)?;
    // The largest weight is the total, t^(n·(depth + 1)); a kept sum's weights are smaller.
    let total_limbs = crate::distribution::limbs_of(t.bits() * max_rolls as u64);
    let face_limbs = crate::distribution::limbs_of(t.bits() * max_kept as u64);
    let op_cost = total_limbs * face_limbs.min(total_limbs) + BIG_OP_COST;
    budget.spend_estimate((max_rolls as u128 + 1).pow(2) * total_limbs)?;
    let binomials = binomial_rows(max_rolls);
    let (mut out, mut states) = first_states(joint, &target, &p, &q);
    let mut after_a: Weight = p.clone();
    let mut after_b: Weight = q.clone();
    for (i, (_, a, b)) in faces.iter().enumerate() {
        let s_i = scores[i];
        // The weights of the faces after this one in walk order, of each kind.
        after_a -= a;
        after_b -= b;
        let (big_a, big_b) = (&after_a, &after_b);
        let max_e = states.keys().map(|k| k.0).max().unwrap_or(0);
        let max_x = states.keys().map(|k| k.1).max().unwrap_or(0);
        budget.spend_estimate(
            (2 * (max_e + max_x) as u128 + 4) * (total_limbs * total_limbs + BIG_OP_COST),
        )?;
        let [a_pow, big_a_pow, all_a_pow] = [a, big_a, &(a + big_a)].map(|w| powers(w, max_e));
        let [b_pow, big_b_pow, all_b_pow] = [b, big_b, &(b + big_b)].map(|w| powers(w, max_x));
        // The weight of ja exploding and jb stopping dice showing this face, of e and x.
        let here = |e: usize, ja: usize, x: usize, jb: usize| -> Weight {
            &binomials[e][ja] * &a_pow[ja] * &binomials[x][jb] * &b_pow[jb]
        };
        let mut next: HashMap<WalkKey, Vec<Weight>> = HashMap::with_capacity(states.len());
        for ((e, x, c), row) in states {
            let need = target(c + e + x) - c;
            let open = open_choices((e, a.is_zero()), (x, b.is_zero()), need);
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

/// The walk's state: (exploding rolls left to place, stopping rolls left, dice kept so far).
type WalkKey = (usize, usize, usize);

/// For a keep: whether the walk starts from the highest face, and how many dice a pool of `size`
/// rolls keeps. `None` for a middle run.
#[allow(clippy::type_complexity)] // a pair, named by the comment above
fn kept_of_pool(keep: Keep) -> Option<(bool, Box<dyn Fn(usize) -> usize>)> {
    Some(match keep {
        Keep::Highest(k) => (true, Box::new(move |size: usize| k.min(size))),
        Keep::Lowest(k) => (false, Box::new(move |size: usize| k.min(size))),
        Keep::DropLowest(d) => (true, Box::new(move |size: usize| size.saturating_sub(d))),
        Keep::DropHighest(d) => (false, Box::new(move |size: usize| size.saturating_sub(d))),
        Keep::All => (true, Box::new(|size: usize| size)),
        Keep::Middle(_) | Keep::Slice { .. } | Keep::DropBoth { .. } => return None,
    })
}

/// Each value's weight as an exploding roll and as a stopping one, in walk order.
fn faces_by_kind(element: &ChainElement, from_highest: bool) -> Vec<(i64, Weight, Weight)> {
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
    faces
}

/// The walk's first states, one per (e exploding, x stopping) rolls of `joint` that keeps a die,
/// and the weight of the pools that keep none (sum 0: every roll shows any face, weighing pᵉ·qˣ).
#[allow(clippy::type_complexity)] // a pair, named by the comment above
fn first_states(
    joint: Vec<Vec<Weight>>,
    target: &dyn Fn(usize) -> usize,
    p: &Weight,
    q: &Weight,
) -> (HashMap<i64, Weight>, HashMap<WalkKey, Vec<Weight>>) {
    let mut out: HashMap<i64, Weight> = HashMap::new();
    let mut states: HashMap<WalkKey, Vec<Weight>> = HashMap::new();
    for (x, row) in joint.into_iter().enumerate() {
        for (e, w) in row.into_iter().enumerate() {
            if w.is_zero() {
                continue;
            }
            if target(e + x) == 0 {
                *out.entry(0).or_default() +=
                    w * num_traits::pow(p.clone(), e) * num_traits::pow(q.clone(), x);
            } else {
                states.insert((e, x, 0), vec![w]);
            }
        }
    }
    (out, states)
}

/// joint's chains with each roll's face left to the walk: a chain of j exploding rolls then a
/// stopping one weighs t^(depth − j) (the rolls it did not make), one the limit stopped after
/// depth + 1 exploding rolls weighs 1; as (stopping rolls, exploding rolls, weight).
fn unplaced_chains(depth: usize, t: &Weight) -> Vec<(usize, usize, Weight)> {
    (0..=depth)
        .map(|j| (1, j, num_traits::pow(t.clone(), depth - j)))
        .chain(std::iter::once((0, depth + 1, Weight::one())))
        .collect()
}

/// The (ja, jb) exploding and stopping dice showing this face that leave a state open: fewer than
/// `need` dice here, of the e and x left (none of a kind whose weight on this face is zero).
fn open_choices(
    (e, a_zero): (usize, bool),
    (x, b_zero): (usize, bool),
    need: usize,
) -> Vec<(usize, usize)> {
    let ja_max = if a_zero { 0 } else { e.min(need - 1) };
    (0..=ja_max)
        .flat_map(|ja| {
            let jb_max = if b_zero { 0 } else { x.min(need - 1 - ja) };
            (0..=jb_max).map(move |jb| (ja, jb))
        })
        .collect()
}

/// The lowest score and the width of the scores' range.
fn score_range(scores: &[i64]) -> Result<(i64, usize), CoreError> {
    let smin = *scores.iter().min().expect("a die has faces");
    let smax = *scores.iter().max().expect("a die has faces");
    let width = usize::try_from(smax as i128 - smin as i128).map_err(|_| CoreError::Overflow)?;
    Ok((smin, width))
}

/// base⁰ … base^up_to.
fn powers(base: &Weight, up_to: usize) -> Vec<Weight> {
    let mut v = Vec::with_capacity(up_to + 1);
    let mut cur = Weight::one();
    for _ in 0..up_to {
        let nxt = &cur * base;
        v.push(cur);
        cur = nxt;
    }
    v.push(cur);
    v
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

/// Pools grouped by the keep they leave on one kind: each (upper count, lower count) of `joint` is
/// the whole of one kind summed plus a partial keep of the other, keyed (upper kind?, count, keep)
/// with the weights and whole counts that go with it. `None` for a middle run, which mixes both
/// kinds in ways this split does not cover.
#[allow(clippy::type_complexity)] // one map, named by the comment above
fn partial_keep_groups(
    joint: &[Vec<Weight>],
    exploding_upper: bool,
    keep: Keep,
) -> Option<std::collections::BTreeMap<(bool, usize, KeepKey), Vec<(Weight, usize)>>> {
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
                Keep::Middle(_) | Keep::Slice { .. } | Keep::DropBoth { .. } => return None,
            };
            groups
                .entry((on_upper, count, KeepKey::of(partial)))
                .or_default()
                .push((w.clone(), whole));
        }
    }
    Some(groups)
}

/// The work of the chains' joint counts, paid up front: about n·(rolls + 1)·(depth + 2) products
/// of numbers as large as the pool's total.
fn spend_for_chains(
    n: usize,
    depth: usize,
    max_rolls: usize,
    t: &Weight,
    budget: &mut Budget,
) -> Result<(), CoreError> {
    budget.spend_estimate(
        (n as u128 + 1)
            * (max_rolls as u128 + 1)
            * (depth as u128 + 2)
            * (crate::distribution::limbs_of(t.bits() * max_rolls as u64 + 64).pow(2)
                + BIG_OP_COST),
    )
}

/// joint[x][e]: the weight of `n` chains making x stopping and e exploding rolls in all, where one
/// chain makes (dx, de) rolls with weight w for each (dx, de, w) of `chain`.
fn pool_rolls(n: usize, chain: &[(usize, usize, Weight)]) -> Vec<Vec<Weight>> {
    let mut joint: Vec<Vec<Weight>> = vec![vec![Weight::one()]];
    for _ in 0..n {
        let mut next: Vec<Vec<Weight>> = vec![Vec::new(); joint.len() + 1];
        for (x, row) in joint.iter().enumerate() {
            for (e, w) in row.iter().enumerate() {
                if w.is_zero() {
                    continue;
                }
                for (dx, de, cw) in chain {
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
        joint = next;
    }
    joint
}

/// binomials[m][j] = C(m, j) for j ≤ m ≤ `max`.
fn binomial_rows(max: usize) -> Vec<Vec<Weight>> {
    let mut binomials: Vec<Vec<Weight>> = vec![vec![Weight::one()]];
    for m in 1..=max {
        let prev = &binomials[m - 1];
        let mut row = Vec::with_capacity(m + 1);
        row.push(Weight::one());
        for j in 1..m {
            row.push(&prev[j - 1] + &prev[j]);
        }
        row.push(Weight::one());
        binomials.push(row);
    }
    binomials
}

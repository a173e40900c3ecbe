//! Collections read by position: `P@X` on a collection of dice (sorted highest first by default,
//! the selected positions summed), without enumerating rolls, and the sorted rolls themselves for a
//! `:s` parameter, which must be enumerated because the function sees each one.
//!
//! One position is an order statistic, computed outcome by outcome from the cumulative weights
//! (`300@(1000d100)` is 100 sums of at most 300 terms); a run of positions from one end is omen-core's
//! keep-highest or keep-lowest; any other set of positions is a reading over omen-core's multiset
//! walk ([`omen_core::multiset::read`]).

use num_traits::{One, Zero};
use omen_core::multiset::{Group, Reading, read};
use omen_core::{CoreError, Distribution, Keep, Weight, keep_sum};

use super::value::{Dist, Fault, Outcome, Val, Work};

/// `P@X` for positions `positions` and any value `x`.
pub fn at(positions: &[i64], x: Val, highest_first: bool, work: &mut Work) -> Outcome<Val> {
    work.pay(positions.len())?;
    match x {
        Val::Sequence(items) => {
            let mut total = 0i64;
            for &p in positions {
                if let Some(v) = p
                    .checked_sub(1)
                    .and_then(|i| usize::try_from(i).ok())
                    .and_then(|i| items.get(i))
                {
                    total = total.checked_add(*v).ok_or(CoreError::Overflow)?;
                }
            }
            Ok(Val::Number(total))
        }
        Val::Number(n) => digits_at(positions, n, highest_first).map(Val::Number),
        Val::Die(die, _) => pool_at(positions, &die, 1, highest_first, work),
        Val::Pool { count, die, .. } => pool_at(positions, &die, count, highest_first, work),
        Val::Empty => Ok(Val::Empty),
    }
}

/// Digits of a number by position, the sign kept (`1@-456` is -4).
fn digits_at(positions: &[i64], n: i64, highest_first: bool) -> Outcome<i64> {
    let mut digits: Vec<i64> = n
        .unsigned_abs()
        .to_string()
        .bytes()
        .map(|b| i64::from(b - b'0'))
        .collect();
    if !highest_first {
        digits.reverse();
    }
    let sign = if n < 0 { -1 } else { 1 };
    let mut total = 0i64;
    for &p in positions {
        if let Some(d) = p
            .checked_sub(1)
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| digits.get(i))
        {
            total += sign * d;
        }
    }
    Ok(total)
}

/// The sum of the dice at `positions` of `count` dice of `die`.
fn pool_at(
    positions: &[i64],
    die: &Dist,
    count: usize,
    highest_first: bool,
    work: &mut Work,
) -> Outcome<Val> {
    // How many times each rank from the top (1 the highest) is selected.
    let mut times = vec![0i64; count + 1];
    for &p in positions {
        if (1..=count as i64).contains(&p) {
            let rank = if highest_first {
                p
            } else {
                count as i64 + 1 - p
            };
            times[rank as usize] += 1;
        }
    }
    let ranks: Vec<usize> = (1..=count).filter(|&r| times[r] > 0).collect();
    let (limits, budget) = (&work.limits, &mut work.budget);
    let d = match ranks.as_slice() {
        [] => Distribution::constant(0),
        [rank] => {
            let m = times[*rank];
            order_statistic(die, count, *rank, work)?
                .try_map(|x| x.checked_mul(m).ok_or(CoreError::Overflow))?
        }
        _ if ranks.iter().all(|&r| times[r] == 1) && is_run(&ranks, 1) => keep_sum(
            die,
            count,
            Keep::Highest(ranks.len()),
            &|x| x,
            limits,
            budget,
        )?,
        _ if ranks.iter().all(|&r| times[r] == 1) && is_run(&ranks, count + 1 - ranks.len()) => {
            keep_sum(
                die,
                count,
                Keep::Lowest(ranks.len()),
                &|x| x,
                limits,
                budget,
            )?
        }
        _ => {
            let reading = RankSum::new(&times);
            read(
                &[Group::dice((**die).clone(), count)],
                &reading,
                limits,
                budget,
            )?
        }
    };
    Ok(Val::die(d))
}

/// The sum of the `n` dice ranked `first..first + n` from the top (1 the highest) of a pool made of
/// `groups`, which may hold different dice.
pub fn ranks_of(groups: &[Group], first: usize, n: usize, work: &mut Work) -> Outcome<Val> {
    let count: usize = groups.iter().map(|g| g.count).sum();
    work.pay(count)?;
    let mut times = vec![0i64; count + 1];
    for rank in first..first + n {
        if let Some(t) = times.get_mut(rank) {
            *t = 1;
        }
    }
    let reading = RankSum::new(&times);
    let d = read(groups, &reading, &work.limits, &mut work.budget)?;
    Ok(Val::die(d))
}

fn is_run(ranks: &[usize], first: usize) -> bool {
    ranks.iter().enumerate().all(|(i, &r)| r == first + i)
}

/// The `rank`-th highest of `count` independent dice of `die`.
///
/// P(rank-th highest ≤ x) is the chance that at most rank − 1 dice show more than x:
/// Σ_{j<rank} C(count, j)·bʲ·a^(count−j) over Tᶜᵒᵘⁿᵗ, with a the weight of faces ≤ x and b = T − a.
/// Each term follows from the one before by a multiplication and an exact division by small
/// numbers, so an outcome costs `rank` such steps.
pub fn order_statistic(
    die: &Distribution<i64>,
    count: usize,
    rank: usize,
    work: &mut Work,
) -> Outcome<Distribution<i64>> {
    if rank > count.div_ceil(2) {
        // The rank-th highest is the mirror of a rank counted from the bottom: fewer terms.
        let mirrored = order_statistic(&die.negate(), count, count + 1 - rank, work)?;
        return Ok(mirrored.negate());
    }
    let total = die.total().clone();
    let limbs = (total.bits() as u128 * count as u128) / 64 + 1;
    work.budget
        .spend_estimate(die.len() as u128 * rank as u128 * (3 * limbs + 64))?;
    let all = num_traits::pow(total.clone(), count);
    let mut below = Weight::zero();
    let mut previous = Weight::zero();
    let mut entries = Vec::with_capacity(die.len());
    for (x, w) in die.entries() {
        work.budget.check()?;
        below += w;
        let above = &total - &below;
        let at_most = if above.is_zero() {
            all.clone()
        } else {
            at_most_above(&below, &above, count, rank)
        };
        entries.push((*x, &at_most - &previous));
        previous = at_most;
    }
    Ok(Distribution::from_weights(entries)?)
}

/// Σ_{j<rank} C(n, j)·bʲ·a^(n−j).
fn at_most_above(a: &Weight, b: &Weight, n: usize, rank: usize) -> Weight {
    if a.is_zero() {
        return Weight::zero();
    }
    let mut term = num_traits::pow(a.clone(), n);
    let mut acc = term.clone();
    for j in 0..rank.saturating_sub(1) {
        term = term * b * Weight::from(n - j) / (a * Weight::from(j + 1));
        acc += &term;
    }
    acc
}

/// The sum of the dice at selected ranks, walked from the lowest outcome: the dice placed so far are
/// the lowest, so the `n` dice showing an outcome hold the ranks just above them from the top.
struct RankSum {
    /// Prefix sums of how often each rank from the top is selected.
    prefix: Vec<i64>,
}

impl RankSum {
    fn new(times: &[i64]) -> Self {
        let mut prefix = Vec::with_capacity(times.len());
        let mut acc = 0;
        for t in times {
            acc += t;
            prefix.push(acc);
        }
        RankSum { prefix }
    }
}

impl Reading for RankSum {
    type State = (i64, usize);
    type Value = i64;

    fn initial(&self, _dice: usize) -> (i64, usize) {
        (0, 0)
    }

    fn next(
        &self,
        state: &(i64, usize),
        outcome: i64,
        n: usize,
    ) -> Result<(i64, usize), CoreError> {
        let dice = self.prefix.len() - 1;
        let (sum, placed) = *state;
        // Ranks from the top held by these n dice: dice − placed − n + 1 ..= dice − placed.
        let high = dice - placed;
        let low = high + 1 - n.min(high + 1);
        let selected = if n == 0 {
            0
        } else {
            self.prefix[high] - self.prefix[low.max(1) - 1]
        };
        let added = selected.checked_mul(outcome).ok_or(CoreError::Overflow)?;
        Ok((
            sum.checked_add(added).ok_or(CoreError::Overflow)?,
            placed + n,
        ))
    }

    fn finish(&self, state: &(i64, usize)) -> i64 {
        state.0
    }
}

/// Calls `each(roll, weight)` for every sorted roll of `count` dice of `die`, in AnyDice's order
/// (highest first: {3,3}, {3,2}, {3,1}, {2,2}, … for 2d3), each weighted by its multinomial weight.
/// Refused before any work when the rolls are more than `max_states` or cost more than the budget.
pub fn sorted_rolls(
    die: &Distribution<i64>,
    count: usize,
    highest_first: bool,
    work: &mut Work,
    mut each: impl FnMut(&[i64], Weight, &mut Work) -> Outcome<()>,
) -> Outcome<()> {
    let mut faces: Vec<(i64, Weight)> = die.entries().to_vec();
    if highest_first {
        faces.reverse();
    }
    let rolls = multisets(count, faces.len());
    work.limits.check_states(rolls).map_err(|_| {
        Fault::calculation(format!(
            "this call would run once for each of {rolls} sorted rolls (limit {})",
            work.limits.max_states
        ))
        .with_help("use fewer dice, a die with fewer faces, or a library function such as [highest N of DICE]")
    })?;
    work.budget
        .spend_estimate(rolls.saturating_mul(count as u128 + 64))?;
    let factorials = factorials(count);
    let mut index = vec![0usize; count];
    let mut roll = vec![0i64; count];
    loop {
        work.budget.check()?;
        for (slot, &i) in roll.iter_mut().zip(&index) {
            *slot = faces[i].0;
        }
        each(&roll, multinomial(&index, &faces, &factorials), work)?;
        // The next non-decreasing index sequence: bump the last index that can move, then let
        // every later one start from it.
        let Some(i) = index.iter().rposition(|&x| x + 1 < faces.len()) else {
            return Ok(());
        };
        let v = index[i] + 1;
        index[i..].iter_mut().for_each(|x| *x = v);
    }
}

/// C(count + faces − 1, count), saturating.
fn multisets(count: usize, faces: usize) -> u128 {
    let n = (count + faces).saturating_sub(1) as u128;
    let k = count.min(faces.saturating_sub(1)) as u128;
    let mut acc: u128 = 1;
    for i in 0..k {
        acc = acc.saturating_mul(n - k + i + 1) / (i + 1);
    }
    acc
}

fn factorials(n: usize) -> Vec<Weight> {
    let mut out = vec![Weight::one()];
    for i in 1..=n {
        let next = &out[i - 1] * Weight::from(i);
        out.push(next);
    }
    out
}

/// n!/Π cᵢ! · Π wᵢ^cᵢ for the roll whose sorted face indices are `index`.
fn multinomial(index: &[usize], faces: &[(i64, Weight)], factorials: &[Weight]) -> Weight {
    let mut weight = factorials[index.len()].clone();
    let mut run = 0;
    let mut start = 0;
    while start < index.len() {
        while start + run < index.len() && index[start + run] == index[start] {
            run += 1;
        }
        weight = weight / &factorials[run] * num_traits::pow(faces[index[start]].1.clone(), run);
        start += run;
        run = 0;
    }
    weight
}

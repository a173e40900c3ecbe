//! Readings that search how a roll's dice can be grouped: 7th Sea's raises (as many groups of dice
//! each summing to a target as the dice allow). The answer depends on the whole multiset, so
//! [`read_whole`] lists each multiset of the pool once with its weight, never each roll (10d10:
//! 92,378 multisets for 10¹⁰ rolls), and [`Raises`] solves each, remembering what it solved.
//!
//! The listing is charged to the state limit and the work budget before it starts, and checks
//! cancellation at every multiset; the search inside each solve pays for every group it tries
//! before trying it, so a pool whose search explodes is refused by the budget, not left running.

mod packed;
mod whole;

use std::cell::RefCell;

use crate::distribution::Distribution;
use crate::error::CoreError;
use crate::limits::{Budget, Limits};
use crate::multiset::Group;
use foldhash::HashMap;

/// What the solver pays for each group it tries: a clone of the remaining multiset and a lookup in
/// its memo, in limb multiply-adds (about the cost of one entry of a hashed state map).
const TRY_COST: u64 = 64;

pub use whole::Multiset;

/// The most disjoint groups of dice each summing to at least `target` (7th Sea: 10).
#[derive(Debug)]
pub struct Raises {
    pub target: i64,
    solved: RefCell<HashMap<Multiset, i64>>,
    /// The packed searches, one per width used, each with its memo.
    packed: RefCell<Vec<packed::Packed>>,
}

impl Raises {
    pub fn new(target: i64) -> Self {
        Raises {
            target,
            solved: RefCell::new(HashMap::default()),
            packed: RefCell::new(Vec::new()),
        }
    }

    /// The most groups `dice` make. Some best grouping uses the highest die whenever any group can
    /// be made (swapping it into a group keeps that group's sum at least as high), and its group
    /// can be minimal: the highest die plus fewer others that just reach the target, which taking
    /// the others from the highest down and stopping once the target is reached lists without
    /// repeats (the last one taken was needed, and every other is at least as large).
    ///
    /// # Errors
    /// [`CoreError::WorkBudget`] or cancellation: every group tried is charged before it is tried.
    pub fn solve(&self, dice: &Multiset, budget: &mut Budget) -> Result<i64, CoreError> {
        // Below 1, a die of its own could be a group or need a partner to offset it: a different
        // search, and no game asks for it.
        if self.target < 1 {
            return Err(CoreError::Unsupported("raises to a target below 1"));
        }
        // Dice of 0 or less never help a group reach a positive target.
        let filtered: Multiset;
        let dice = if dice.iter().all(|&(x, _)| x > 0) {
            dice
        } else {
            filtered = dice.iter().copied().filter(|&(x, _)| x > 0).collect();
            &filtered
        };
        match self.packed(dice, budget) {
            Some(found) => found,
            None => self.best(dice, budget),
        }
    }

    /// The search on packed counts ([`packed`]) when the dice below the target fit one integer.
    /// A die at or above the target is a group of its own in some best grouping (any other dice of
    /// its group can leave it, and a die in no group can start one), so only the others are
    /// searched.
    fn packed(&self, dice: &Multiset, budget: &mut Budget) -> Option<Result<i64, CoreError>> {
        let below = |&&(x, _): &&(i64, usize)| x < self.target;
        let most = dice
            .iter()
            .filter(below)
            .map(|&(_, c)| c)
            .max()
            .unwrap_or(0);
        let width = packed::Packed::width_for(self.target, most)?;
        let alone: usize = dice.iter().filter(|d| !below(d)).map(|&(_, c)| c).sum();
        let mut searches = self.packed.borrow_mut();
        let at = match searches.iter().position(|s| s.width() == width) {
            Some(at) => at,
            None => {
                searches.push(packed::Packed::new(self.target, width));
                searches.len() - 1
            }
        };
        let search = &mut searches[at];
        let packed = search.pack(dice.iter().filter(below).copied());
        Some(
            search
                .best(packed, budget)
                .map(|n| alone as i64 + i64::from(n)),
        )
    }

    fn best(&self, dice: &Multiset, budget: &mut Budget) -> Result<i64, CoreError> {
        // Saturating: faces near the 64-bit limit must not wrap the bound below.
        let total = dice.iter().fold(0i64, |acc, &(x, c)| {
            acc.saturating_add(x.saturating_mul(c as i64))
        });
        if total < self.target || dice.is_empty() {
            return Ok(0);
        }
        if let Some(&known) = self.solved.borrow().get(dice) {
            return Ok(known);
        }
        // No grouping beats the sum over the target (nor one group per die): stop on reaching it.
        let count: usize = dice.iter().map(|&(_, c)| c).sum();
        let bound = (total / self.target).min(count as i64);
        let mut rest = dice.clone();
        let top = rest.len() - 1;
        let highest = take(&mut rest, top);
        let mut best = 0;
        let mut chosen = Vec::new();
        let mut failed = None;
        self.each_group(
            &rest,
            rest.len(),
            self.target - highest,
            &mut chosen,
            &mut |left| {
                let found = budget
                    .spend(TRY_COST)
                    .and_then(|()| self.best(left, budget));
                match found {
                    Ok(n) => best = best.max(1 + n),
                    Err(error) => {
                        failed = Some(error);
                        return false;
                    }
                }
                best < bound
            },
        );
        if let Some(error) = failed {
            return Err(error);
        }
        self.solved.borrow_mut().insert(dice.clone(), best);
        Ok(best)
    }

    /// Calls `found` with what is left of `dice` after each minimal choice, taken from index
    /// `below - 1` down, of dice summing to at least `need`, while `found` answers true; false when
    /// it stopped the search.
    fn each_group(
        &self,
        dice: &Multiset,
        below: usize,
        need: i64,
        chosen: &mut Vec<usize>,
        found: &mut dyn FnMut(&Multiset) -> bool,
    ) -> bool {
        if need <= 0 {
            let mut left = dice.clone();
            for &i in chosen.iter() {
                take(&mut left, i);
            }
            return found(&left);
        }
        for i in (0..below).rev() {
            let already = chosen.iter().filter(|&&c| c == i).count();
            if already == dice[i].1 {
                continue;
            }
            chosen.push(i);
            // The next die comes from this face again (another of its dice) or a lower one.
            let going = self.each_group(dice, i + 1, need - dice[i].0, chosen, found);
            chosen.pop();
            if !going {
                return false;
            }
        }
        true
    }
}

/// Removes one die of the face at index `i`, returning its outcome; the face goes when its last die
/// does (indices above `i` shift down, so callers remove from the highest index first).
fn take(dice: &mut Multiset, i: usize) -> i64 {
    let x = dice[i].0;
    dice[i].1 -= 1;
    if dice[i].1 == 0 {
        dice.remove(i);
    }
    x
}

/// The exact distribution of `value` over the whole multisets of the pool made of `groups`: each
/// multiset is listed once with its weight (the multinomial count of the rolls that show it times
/// its faces' weights), without the walk's map of partial states, for readings that need every die
/// (a grouping search) rather than a fold.
///
/// # Errors
/// [`CoreError`] when the multisets pass `max_states` or their work the budget (both charged
/// before any is listed), when the computation is cancelled, or what `value` returns.
pub fn read_whole<V: Ord + Clone>(
    groups: &[Group],
    mut value: impl FnMut(&Multiset, &mut Budget) -> Result<V, CoreError>,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Distribution<V>, CoreError> {
    // Each group's multisets: C(count + faces − 1, count) of them; a mixed pool combines them.
    let mut listed: u128 = 1;
    for g in groups {
        let faces = g.die.len() as u128;
        let mut ways: u128 = 1;
        for i in 0..g.count as u128 {
            ways = ways.saturating_mul(faces + i) / (i + 1);
        }
        listed = listed.saturating_mul(ways);
    }
    limits.check_states(listed)?;
    let bits: u64 = groups
        .iter()
        .map(|g| g.die.total().bits() * g.count as u64)
        .sum();
    budget.spend_estimate(
        listed.saturating_mul(crate::distribution::limbs_of(bits) + crate::distribution::BIG_OP),
    )?;
    let groups: Vec<&Group> = groups.iter().filter(|g| g.count > 0).collect();
    if groups.is_empty() {
        // No dice: the one empty multiset.
        let v = value(&Vec::new(), budget)?;
        return Ok(Distribution::constant(v));
    }
    whole::listed(&groups, &mut value, budget)
}

impl Raises {
    /// The distribution of the raises of the pool made of `groups`.
    ///
    /// # Errors
    /// As for [`read_whole`].
    pub fn read(
        &self,
        groups: &[Group],
        limits: &Limits,
        budget: &mut Budget,
    ) -> Result<Distribution<i64>, CoreError> {
        read_whole(
            groups,
            |dice, budget| self.solve(dice, budget),
            limits,
            budget,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distribution::Weight;
    use num_traits::One;

    /// The most groups by trying every assignment of dice to groups (or to none).
    pub(super) fn brute(dice: &[i64], target: i64) -> i64 {
        fn go(dice: &[i64], sums: &mut Vec<i64>, target: i64) -> i64 {
            let Some((&x, rest)) = dice.split_first() else {
                return sums.iter().filter(|&&s| s >= target).count() as i64;
            };
            let mut best = go(rest, sums, target); // x in no group
            for g in 0..sums.len() {
                sums[g] += x;
                best = best.max(go(rest, sums, target));
                sums[g] -= x;
            }
            sums.push(x);
            best = best.max(go(rest, sums, target));
            sums.pop();
            best
        }
        go(dice, &mut Vec::new(), target)
    }

    pub(super) fn multiset(dice: &[i64]) -> Multiset {
        let mut m: Multiset = Vec::new();
        let mut sorted = dice.to_vec();
        sorted.sort_unstable();
        for x in sorted {
            match m.last_mut() {
                Some((y, c)) if *y == x => *c += 1,
                _ => m.push((x, 1)),
            }
        }
        m
    }

    #[test]
    fn raises_match_every_grouping_tried() {
        let raises = Raises::new(10);
        let cases: [&[i64]; 8] = [
            &[],
            &[9],
            &[10],
            &[5, 5, 5, 5],
            &[9, 1, 8, 2, 7],
            &[6, 6, 4, 4, 3, 7],
            &[9, 9, 9, 1, 1, 1],
            &[2, 3, 5, 5, 7, 8, 1],
        ];
        for dice in cases {
            let solved = raises.solve(&multiset(dice), &mut Budget::unlimited());
            assert_eq!(solved, Ok(brute(dice, 10)), "{dice:?}");
        }
        // The greedy pairing of the highest with the lowest is not enough: 6+4, 6+4, 7+3 makes
        // three; 7+6 first makes two.
        let three = raises.solve(&multiset(&[6, 6, 4, 4, 3, 7]), &mut Budget::unlimited());
        assert_eq!(three, Ok(3));
    }

    #[test]
    fn whole_multisets_of_a_mixed_weighted_pool_weigh_as_its_rolls() {
        // d4, two coins whose 1 is written twice, and two d3: the sum and the widest set of every
        // listed multiset, weighted, against the walk's fold of the same readings.
        use crate::multiset::{Builtin, Readings, read};
        let coin = Distribution::from_weights([(0, Weight::one()), (1, Weight::from(2u32))])
            .expect("faces");
        let groups = [
            Group::dice(Distribution::uniform(1..=4).expect("faces"), 1),
            Group::dice(coin, 2),
            Group::dice(Distribution::uniform(1..=3).expect("faces"), 2),
        ];
        let limits = Limits::default();
        let whole = read_whole(
            &groups,
            |dice, _| {
                let sum = dice.iter().map(|&(x, c)| x * c as i64).sum::<i64>();
                let width = dice.iter().map(|&(_, c)| c as i64).max().unwrap_or(0);
                Ok(vec![sum, width])
            },
            &limits,
            &mut limits.budget(),
        )
        .expect("small");
        let folded = read(
            &groups,
            &Readings(vec![Builtin::Sum, Builtin::SetWidth]),
            &limits,
            &mut limits.budget(),
        )
        .expect("small");
        assert_eq!(whole, folded);
        assert_eq!(whole.total(), &Weight::from(4u32 * 9 * 9));
    }

    #[test]
    fn raises_of_every_roll_of_five_d6_to_twelve_match_brute_force() {
        let die = Distribution::uniform(1..=6).expect("faces");
        let raises = Raises::new(12);
        let limits = Limits::default();
        let groups = [Group::dice(die, 5)];
        let walked = raises
            .read(&groups, &limits, &mut limits.budget())
            .expect("small");
        let rolls = crate::multiset::tests::rolls(&groups);
        let expected =
            Distribution::from_weights(rolls.iter().map(|r| (brute(r, 12), Weight::one())))
                .expect("rolls");
        assert_eq!(walked, expected);
    }
}

#[cfg(test)]
mod charged {
    use super::*;

    #[test]
    fn the_raises_search_is_refused_by_the_budget_it_would_pass() {
        // Three raises take at least three groups tried, one per raise: a budget for one must stop
        // the search, not let it run on unpaid. The packed search (faces below 33) and the general
        // one (a target of 40, faces that do not pack) each pay for what they try.
        let cases: [(Multiset, i64, u64); 2] = [
            (vec![(1, 6), (2, 6), (3, 6)], 12, packed::PACKED_TRY_COST),
            (vec![(10, 6), (20, 3)], 40, TRY_COST),
        ];
        for (dice, target, cost) in cases {
            let mut tiny = Limits {
                work_budget: 2 * cost - 1,
                ..Limits::default()
            }
            .budget();
            let raises = Raises::new(target);
            assert!(matches!(
                raises.solve(&dice, &mut tiny),
                Err(CoreError::WorkBudget { .. })
            ));
            // With room it answers, and what it spent is what it was charged.
            let mut room = Budget::unlimited();
            assert_eq!(Raises::new(target).solve(&dice, &mut room), Ok(3));
            assert!(room.spent() >= 3 * cost);
        }
    }

    #[test]
    fn faces_near_the_largest_integer_do_not_overflow_the_bound() {
        let dice: Multiset = vec![(i64::MAX - 1, 1), (i64::MAX, 2)];
        assert_eq!(
            Raises::new(10).solve(&dice, &mut Budget::unlimited()),
            Ok(3)
        );
    }

    #[test]
    fn a_target_below_one_is_refused_rather_than_divided_by() {
        let dice: Multiset = vec![(-1, 1), (3, 2)];
        let mut budget = Budget::unlimited();
        for target in [0, -5] {
            assert!(matches!(
                Raises::new(target).solve(&dice, &mut budget),
                Err(CoreError::Unsupported(_))
            ));
        }
    }
}

#[cfg(test)]
mod ten_dice {
    use super::*;
    use crate::distribution::Weight;

    #[test]
    fn seventh_sea_raises_on_ten_d10_walk_multisets() {
        let die = Distribution::uniform(1..=10).expect("faces");
        let raises = Raises::new(10);
        let limits = Limits::default();
        let d = raises
            .read(&[Group::dice(die, 10)], &limits, &mut limits.budget())
            .expect("within the default limits");
        assert_eq!(d.total(), &num_traits::pow(Weight::from(10u32), 10));
        // Ten 10s make ten raises, one roll in 10¹⁰; ten 1s make one (their sum is 10).
        assert_eq!(d.weight(&10), Weight::from(1u32));
        assert_eq!(*d.max_outcome(), 10);
        assert_eq!(*d.min_outcome(), 1);
    }
}

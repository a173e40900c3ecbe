//! The raises search on dice packed into one integer: for each face below the target, how many dice
//! show it, in `width` bits, the face 1 lowest. Removing a die is a subtraction, the highest face
//! is read from the leading zeros, and the memo of solved multisets is keyed by a machine word, so
//! that the search allocates nothing but the memo's entries.
//!
//! Two exchange arguments cut the search besides the memo and the bound (each group holds two dice
//! at least, and no more groups than the sum over the target):
//! - the group of the highest die, built from the largest dice down, ends with one die that reaches
//!   the target; only the smallest die that does need be tried: in any grouping that ends it with a
//!   larger one, the two can swap places and both groups still reach the target;
//! - when that die reaches the target exactly, no other way of completing the group need be tried:
//!   the dice another completion would have used can take its place in whichever group held it.

use foldhash::HashMap;

use crate::error::CoreError;
use crate::limits::Budget;

/// What the packed search pays for each group it tries: a subtraction, a bound and a lookup in its
/// memo, in limb multiply-adds.
pub(super) const PACKED_TRY_COST: u64 = 8;

/// The widths tried, narrowest first: counts of up to 15 dice per face, then up to 255.
const WIDTHS: [u32; 2] = [4, 8];

/// The most raises of dice below `target`, searched on packed counts, with what it has solved.
#[derive(Debug)]
pub(super) struct Packed {
    target: i64,
    width: u32,
    solved: HashMap<u128, u32>,
}

/// The dice below the target of one multiset, packed: their counts, sum and number.
#[derive(Clone, Copy, Debug)]
pub(super) struct Dice {
    pub key: u128,
    pub sum: i64,
    pub count: u32,
}

impl Packed {
    /// A search for `target` in the narrowest width that holds `most` dice of one face, or `None`
    /// when the faces below the target do not fit in 128 bits at any width that does.
    pub(super) fn width_for(target: i64, most: usize) -> Option<u32> {
        let faces = u32::try_from(target.checked_sub(1)?).ok()?;
        WIDTHS
            .into_iter()
            .find(|&w| most < (1usize << w) && faces.checked_mul(w).is_some_and(|bits| bits <= 128))
    }

    pub(super) fn new(target: i64, width: u32) -> Self {
        Packed {
            target,
            width,
            solved: HashMap::default(),
        }
    }

    pub(super) fn width(&self) -> u32 {
        self.width
    }

    /// The dice of `(face, count)` pairs, faces between 1 and the target less one.
    pub(super) fn pack(&self, below: impl Iterator<Item = (i64, usize)>) -> Dice {
        let mut dice = Dice {
            key: 0,
            sum: 0,
            count: 0,
        };
        for (face, count) in below {
            dice.key += (count as u128) << self.shift(face);
            dice.sum += face * count as i64;
            dice.count += count as u32;
        }
        dice
    }

    fn shift(&self, face: i64) -> u32 {
        (face as u32 - 1) * self.width
    }

    fn one(&self, face: i64) -> u128 {
        1u128 << self.shift(face)
    }

    fn count(&self, key: u128, face: i64) -> u128 {
        (key >> self.shift(face)) & ((1u128 << self.width) - 1)
    }

    /// No more groups than the sum over the target, nor than half the dice (each die is below it).
    fn bound(&self, sum: i64, count: u32) -> u32 {
        ((sum / self.target) as u32).min(count / 2)
    }

    /// The smallest face at least `need` and at most `most` that some die of `key` shows.
    fn smallest_from(&self, key: u128, need: i64, most: i64) -> Option<i64> {
        let above = key >> self.shift(need);
        if above == 0 {
            return None;
        }
        let face = need + i64::from(above.trailing_zeros() / self.width);
        (face <= most).then_some(face)
    }

    /// The most raises `dice` make.
    ///
    /// # Errors
    /// [`CoreError::WorkBudget`] or cancellation: every group tried is charged before it is tried.
    pub(super) fn best(&mut self, dice: Dice, budget: &mut Budget) -> Result<u32, CoreError> {
        let bound = self.bound(dice.sum, dice.count);
        if bound == 0 {
            return Ok(0);
        }
        if let Some(&known) = self.solved.get(&dice.key) {
            return Ok(known);
        }
        let highest = ((127 - dice.key.leading_zeros()) / self.width) as i64 + 1;
        let rest = Dice {
            key: dice.key - self.one(highest),
            sum: dice.sum - highest,
            count: dice.count - 1,
        };
        let mut search = Search {
            bound,
            best: 0,
            budget,
        };
        self.complete(rest, self.target - highest, highest, &mut search)?;
        let best = search.best;
        self.solved.insert(dice.key, best);
        Ok(best)
    }

    /// Tries each way of completing the highest die's group from `left`, which still needs `need`,
    /// its next die at most `most` (the group's dice are taken from the largest down, so each
    /// group is tried once).
    fn complete(
        &mut self,
        left: Dice,
        need: i64,
        most: i64,
        search: &mut Search<'_>,
    ) -> Result<(), CoreError> {
        if left.sum < need {
            return Ok(());
        }
        let finish = self.smallest_from(left.key, need, most);
        if let Some(face) = finish {
            let after = Dice {
                key: left.key - self.one(face),
                sum: left.sum - face,
                count: left.count - 1,
            };
            if 1 + self.bound(after.sum, after.count) > search.best {
                search.budget.spend(PACKED_TRY_COST)?;
                let found = 1 + self.best(after, search.budget)?;
                search.best = search.best.max(found);
                if search.best == search.bound {
                    return Ok(());
                }
            }
            if face == need {
                return Ok(());
            }
        }
        for face in (1..need.min(most + 1)).rev() {
            if self.count(left.key, face) == 0 {
                continue;
            }
            let after = Dice {
                key: left.key - self.one(face),
                sum: left.sum - face,
                count: left.count - 1,
            };
            self.complete(after, need - face, face, search)?;
            if search.best == search.bound {
                return Ok(());
            }
        }
        Ok(())
    }
}

/// The search for one multiset: its bound, the best found so far, the budget it pays from.
struct Search<'a> {
    bound: u32,
    best: u32,
    budget: &'a mut Budget,
}

#[cfg(test)]
mod tests {
    use super::super::tests::{brute, multiset};
    use super::super::{Multiset, Raises};
    use crate::limits::Budget;

    /// Every multiset of `count` dice showing faces from `faces`, as sorted lists of dice.
    fn every_roll(faces: &[i64], count: usize) -> Vec<Vec<i64>> {
        if count == 0 {
            return vec![Vec::new()];
        }
        let mut out = Vec::new();
        for (i, &face) in faces.iter().enumerate() {
            for mut rest in every_roll(&faces[i..], count - 1) {
                rest.insert(0, face);
                out.push(rest);
            }
        }
        out
    }

    /// The general search (every minimal group of the highest die, memoised by the multiset).
    fn searched(raises: &Raises, dice: &Multiset) -> i64 {
        raises
            .best(dice, &mut Budget::unlimited())
            .expect("unbounded")
    }

    #[test]
    fn packed_raises_match_every_grouping_tried() {
        // d10s to 10 (7th Sea), d6s to 8, d8s to 12 and d20s to 10 (faces at or above the target
        // are groups of their own), up to six dice: every multiset against every assignment of
        // its dice to groups.
        for (sides, target, most) in [(10, 10, 6), (6, 8, 6), (8, 12, 6), (20, 10, 4)] {
            let faces: Vec<i64> = (1..=sides).collect();
            let raises = Raises::new(target);
            for count in 0..=most {
                for dice in every_roll(&faces, count) {
                    let packed = raises.solve(&multiset(&dice), &mut Budget::unlimited());
                    assert_eq!(packed, Ok(brute(&dice, target)), "{dice:?} to {target}");
                }
            }
        }
    }

    #[test]
    fn packed_raises_match_the_general_search_on_every_roll_of_ten_d10() {
        let raises = Raises::new(10);
        let faces: Vec<i64> = (1..=10).collect();
        for dice in every_roll(&faces, 10) {
            let dice = multiset(&dice);
            let packed = raises.solve(&dice, &mut Budget::unlimited());
            assert_eq!(packed, Ok(searched(&raises, &dice)), "{dice:?}");
        }
    }

    #[test]
    fn counts_past_fifteen_pack_eight_bits_wide() {
        // Sixteen to twenty d4s to 7: a face can show on more dice than four bits count.
        assert_eq!(super::Packed::width_for(7, 16), Some(8));
        let raises = Raises::new(7);
        for count in [16, 20] {
            for dice in every_roll(&[1, 2, 3, 4], count) {
                let dice = multiset(&dice);
                let packed = raises.solve(&dice, &mut Budget::unlimited());
                assert_eq!(packed, Ok(searched(&raises, &dice)), "{dice:?}");
            }
        }
    }

    #[test]
    fn faces_that_do_not_pack_take_the_general_search() {
        // 34 needs 33 faces of four bits: past 128. 256 dice of one face pass eight bits.
        assert_eq!(super::Packed::width_for(34, 3), None);
        assert_eq!(super::Packed::width_for(10, 256), None);
        assert_eq!(super::Packed::width_for(33, 15), Some(4));
        let dice: Multiset = vec![(1, 300), (9, 2)];
        assert_eq!(
            Raises::new(10).solve(&dice, &mut Budget::unlimited()),
            Ok(31)
        );
    }
}

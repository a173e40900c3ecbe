//! What a pool is made of, and what reads it: the groups of dice (or cards) and the reading folded
//! over their outcomes, shared by the multiset walk and its die-by-die sums.

use std::hash::Hash;

use num_traits::{One, Zero};

use crate::distribution::{Distribution, Weight};
use crate::error::CoreError;

/// A way of reading a pool: a fold over its outcomes in ascending order.
pub trait Reading {
    /// What the fold carries from one outcome to the next; equal states are merged, so it should
    /// hold only what the result depends on.
    type State: Clone + Eq + Hash;
    /// The reading's value for one multiset.
    type Value: Ord + Clone;

    /// The state before any outcome, for a pool of `dice` dice.
    fn initial(&self, dice: usize) -> Self::State;

    /// The state after `count` dice show `outcome`. Every outcome some die of the pool can show is
    /// visited, in ascending order, also with `count` 0.
    ///
    /// # Errors
    /// [`CoreError::Overflow`] when a number in the state passes 64 bits.
    fn next(
        &self,
        state: &Self::State,
        outcome: i64,
        count: usize,
    ) -> Result<Self::State, CoreError>;

    /// The value of the multiset the walk has placed.
    fn finish(&self, state: &Self::State) -> Self::Value;

    /// When the reading is a sum over the dice of numbers given by each die's face alone (counts of
    /// faces in a range, totals), those numbers for `outcome`; the pool is then summed die by die
    /// instead of walked, and the value read with [`Reading::value_of_sums`]. `None` by default.
    fn sums(&self, _outcome: i64) -> Option<Vec<i64>> {
        None
    }

    /// The value of a pool whose dice add up to `sums`, for a reading that gives [`Reading::sums`].
    fn value_of_sums(&self, _sums: &[i64]) -> Self::Value {
        self.finish(&self.initial(0))
    }
}

/// Dice of one kind in a pool: the die's distribution and how many of it; or cards drawn from a
/// deck without replacement, the deck's weights being how many copies of each card it holds.
#[derive(Clone, Debug)]
pub struct Group {
    pub die: Distribution<i64>,
    pub count: usize,
    /// Drawn without replacement: `count` cards from the deck `die` (a hand of 5 from 52 weighs
    /// C(52, 5) in all, each hand Π C(copies, drawn)).
    pub drawn: bool,
}

impl Group {
    /// `count` dice, each rolled independently.
    pub fn dice(die: Distribution<i64>, count: usize) -> Self {
        Group {
            die,
            count,
            drawn: false,
        }
    }

    /// `count` cards drawn without replacement from `deck`, whose weights are the copies of each card.
    pub fn draws(deck: Distribution<i64>, count: usize) -> Self {
        Group {
            die: deck,
            count,
            drawn: true,
        }
    }

    /// The ways `j` of `m` still to place show a face of weight (or copies) `w`: C(m, j)·wʲ for dice,
    /// C(w, j) for cards (which ignores m: the cards not taken here come from the faces still to
    /// come, and their own choices count them).
    pub(crate) fn ways(&self, w: &Weight, m: usize, j: usize, binomials: &[Vec<Weight>]) -> Weight {
        if self.drawn {
            choose(w, j)
        } else {
            &binomials[m][j] * num_traits::pow(w.clone(), j)
        }
    }
}

/// C(n, j) for a big n: the product of j falling factors over j!.
fn choose(n: &Weight, j: usize) -> Weight {
    let mut out = Weight::one();
    for i in 0..j {
        if n <= &Weight::from(i) {
            return Weight::zero();
        }
        out = out * (n - Weight::from(i)) / Weight::from(i + 1);
    }
    out
}

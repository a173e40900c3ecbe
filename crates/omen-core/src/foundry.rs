//! Foundry VTT's dice modifiers run as its `Die` class runs them: over a list of results in the order
//! rolled, each modifier in the order written, every one seeing what the ones before left.
//!
//! A result keeps the face it was rolled with for good; clamps and counts set only what it
//! *counts* (`min2` makes a 1 count 2, `cs>=5` makes every die count 1 or 0), so a later modifier
//! still compares the face. Rerolls make a result inactive and roll a new one at the end of the list;
//! explosions roll one at the end; keeps and drops make results inactive, ties going to the earlier
//! results first. Rerolls and explosions walk the list in order, the new results after the others,
//! so a cap (`r1=1`, `x2>=5`) spends itself on the earliest results meeting the point. The total
//! adds what each active result counts, then the margin (`ms`) if one was set.
//!
//! Omen's readings of Foundry's terms in its own notation cover the usual combinations; this runs
//! the ones they cannot express (a clamp before an explosion beside a keep, steps after a keep with
//! more after them, counts a clamp sets again), exactly, by walking every list of results.

use crate::dice::{Compare, Die};
use crate::error::CoreError;

mod alone;
mod blocks;
mod roll;
mod step;
mod walk;

pub use roll::roll;

/// A comparison and its target (`>=5`); `compare` is `None` for one Foundry does not know (`<>`),
/// which no face meets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    pub compare: Option<Compare>,
    pub target: i64,
}

impl Point {
    pub fn meets(self, face: i64) -> bool {
        self.compare.is_some_and(|c| c.holds(face, self.target))
    }
}

/// One modifier as Foundry reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modifier {
    /// `r`, `rr`: the results meeting the point rolled again, the new one checked too when
    /// `recursive`; at most `cap` rerolls in all.
    Reroll {
        point: Point,
        cap: Option<u64>,
        recursive: bool,
    },
    /// `x`, `xo`: the results meeting the point each roll one more, the new ones checked too when
    /// `recursive`; at most `cap` in all.
    Explode {
        point: Point,
        cap: Option<u64>,
        recursive: bool,
    },
    /// `k`, `kh`, `kl`: the `count` highest or lowest active results stay active.
    Keep { count: u64, highest: bool },
    /// `d`, `dl`, `dh`: the `count` lowest or highest active results become inactive.
    Drop { count: u64, highest: bool },
    /// `min`: a result whose face is below it counts it.
    Minimum(i64),
    /// `max`: a result whose face is above it counts it.
    Maximum(i64),
    /// `cs`: each result counts 1 if its face meets the point, else 0, and is marked a success or
    /// not.
    CountSuccesses(Point),
    /// `cf`: each result counts 1 if its face meets the point, else 0, and is marked a failure or
    /// not.
    CountFailures(Point),
    /// `df`: the results failing (meeting the point, or, without one, marked not a success) count
    /// −1.
    DeductFailures(Option<Point>),
    /// `sf`: as `df`, the failures counting minus their face.
    SubtractFailures(Option<Point>),
    /// `even`: each result counts 1 if its face is even, else 0.
    CountEven,
    /// `odd`: each result counts 1 if its face is odd, else 0.
    CountOdd,
    /// `ms>=10`: the total is the sum minus 10 (a target of 0 sets nothing, as in Foundry).
    MarginSuccess(i64),
    /// `ms<=10`: the total is 10 minus the sum, unless a margin of success is set.
    MarginFailure(i64),
}

impl Modifier {
    /// Whether a reroll or explosion has a cap, which makes the order of the results matter.
    pub fn capped(&self) -> bool {
        matches!(
            self,
            Modifier::Reroll { cap: Some(_), .. } | Modifier::Explode { cap: Some(_), .. }
        )
    }
}

/// `count` dice of `die`, then `modifiers` in the order written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundryTerm {
    pub count: u64,
    pub die: Die,
    pub modifiers: Vec<Modifier>,
}

impl FoundryTerm {
    /// Refuses a reroll until no face meets the point when every face meets it and nothing caps
    /// it: Foundry gives up after 1,000 results, Omen says why at once.
    ///
    /// # Errors
    /// `RerollEverything`.
    pub fn check(&self) -> Result<(), CoreError> {
        for m in &self.modifiers {
            if let Modifier::Reroll {
                point,
                cap: None,
                recursive: true,
            } = m
                && self.faces().iter().all(|&f| point.meets(f))
            {
                return Err(CoreError::RerollEverything);
            }
        }
        Ok(())
    }

    pub(crate) fn faces(&self) -> Vec<i64> {
        (0..self.die.face_count())
            .map(|i| self.die.face(i))
            .collect()
    }

    /// The margin the modifiers set, applied to the sum of what the active results count.
    pub(crate) fn with_margin(&self, sum: i64) -> Result<i64, CoreError> {
        let mut success = 0;
        let mut failure = 0;
        for m in &self.modifiers {
            match *m {
                Modifier::MarginSuccess(t) => success = t,
                Modifier::MarginFailure(t) => failure = t,
                _ => {}
            }
        }
        // Foundry tests each margin for truth, so a margin of 0 is no margin.
        let total = if success != 0 {
            sum.checked_sub(success)
        } else if failure != 0 {
            failure.checked_sub(sum)
        } else {
            Some(sum)
        };
        total.ok_or(CoreError::Overflow)
    }
}

/// One result: the face rolled and what the modifiers made of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Rolled {
    pub face: i64,
    /// What it counts, once a clamp or a count set it; else its face.
    pub count: Option<i64>,
    pub success: Option<bool>,
    pub failure: Option<bool>,
}

impl Rolled {
    pub fn new(face: i64) -> Self {
        Rolled {
            face,
            count: None,
            success: None,
            failure: None,
        }
    }

    pub fn counted(&self) -> i64 {
        self.count.unwrap_or(self.face)
    }

    /// A modifier that acts on each result alone (a clamp, a count); `false` for the others.
    pub fn mark(&mut self, modifier: &Modifier) -> bool {
        let f = self.face;
        match *modifier {
            Modifier::Minimum(t) if f < t => self.count = Some(t),
            Modifier::Maximum(t) if f > t => self.count = Some(t),
            Modifier::Minimum(_) | Modifier::Maximum(_) => {}
            Modifier::CountSuccesses(p) => {
                let met = p.meets(f);
                self.success = Some(met);
                if met {
                    self.failure = None;
                }
                self.count = Some(i64::from(met));
            }
            Modifier::CountFailures(p) => {
                let met = p.meets(f);
                self.failure = Some(met);
                if met {
                    self.success = None;
                }
                self.count = Some(i64::from(met));
            }
            Modifier::DeductFailures(p) | Modifier::SubtractFailures(p) => {
                let fails = match p {
                    Some(p) => p.meets(f),
                    None => self.success == Some(false),
                };
                if fails {
                    self.failure = Some(true);
                    self.success = None;
                }
                if self.failure == Some(true) {
                    let deduct = matches!(modifier, Modifier::DeductFailures(_));
                    self.count = Some(if deduct { -1 } else { -f });
                }
            }
            Modifier::CountEven | Modifier::CountOdd => {
                let even = f % 2 == 0;
                let met = even == matches!(modifier, Modifier::CountEven);
                self.success = Some(met);
                self.count = Some(i64::from(met));
            }
            _ => return false,
        }
        true
    }
}

/// Which of the active results, showing `faces` in the list's order, a keep or drop makes
/// inactive: sorted by face, the cut at the `number`-th, the results past it out, then the results
/// at the cut, earliest first, until `number` are out. A drop of all of them or more drops all, as
/// Foundry documents it (its code finds no cut then and drops none).
pub(crate) fn discarded(faces: &[i64], number: u64, keep: bool, highest: bool) -> Vec<bool> {
    let n = faces.len();
    let ascending = keep == highest;
    let mut values = faces.to_vec();
    values.sort_unstable();
    if !ascending {
        values.reverse();
    }
    let number = usize::try_from(number).unwrap_or(usize::MAX);
    let number = if keep {
        n.saturating_sub(number)
    } else {
        number.min(n)
    };
    let Some(&cut) = values.get(number) else {
        return vec![number > 0; n];
    };
    let mut out = vec![false; n];
    let past = |f: i64| if ascending { f < cut } else { f > cut };
    let mut out_count = 0;
    for (o, &f) in out.iter_mut().zip(faces) {
        if past(f) {
            *o = true;
            out_count += 1;
        }
    }
    for (o, &f) in out.iter_mut().zip(faces) {
        if f == cut && out_count < number {
            *o = true;
            out_count += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keep_or_drop_cuts_at_the_number_and_takes_ties_earliest_first() {
        // Keep the highest 2 of [3, 5, 3]: the first 3 goes.
        assert_eq!(discarded(&[3, 5, 3], 2, true, true), [true, false, false]);
        // Drop the lowest 1 of [2, 2, 6]: the first 2.
        assert_eq!(discarded(&[2, 2, 6], 1, false, false), [true, false, false]);
        // Drop the highest 2 of [6, 1, 6, 4]: both 6s.
        assert_eq!(
            discarded(&[6, 1, 6, 4], 2, false, true),
            [true, false, true, false]
        );
        // Dropping every result drops all; keeping more than there are keeps all.
        assert_eq!(discarded(&[1, 2], 2, false, false), [true, true]);
        assert_eq!(discarded(&[1, 2], 5, true, true), [false, false]);
    }

    #[test]
    fn a_clamp_sets_the_count_and_a_later_count_compares_the_face() {
        let mut r = Rolled::new(1);
        assert!(r.mark(&Modifier::Minimum(3)));
        assert_eq!(r.counted(), 3);
        let at_least_2 = Point {
            compare: Some(Compare::Ge),
            target: 2,
        };
        r.mark(&Modifier::CountSuccesses(at_least_2));
        assert_eq!((r.counted(), r.success), (0, Some(false)));
        // A bare `df` after a count takes the results that are not successes.
        r.mark(&Modifier::DeductFailures(None));
        assert_eq!((r.counted(), r.failure), (-1, Some(true)));
    }
}

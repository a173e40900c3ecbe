//! Foundry's reroll or explosion after a keep or drop (`3d6kh2r1`, `3d6kh2x`, `3d6kh2r1=1`): the keep
//! makes the dice it leaves out inactive and the step walks the active dice only, its new dice
//! joining them (they are not kept or dropped again). The expected distributions come from a walk
//! of Foundry's dice code written here, enumerated along every sequence of dice (up to a total
//! where explosions could go on, below the totals `--explode-depth`, 3 here, could cut); never read
//! off Omen. The roller, run along every sequence of dice, must agree too.

use num_traits::Zero;

use crate::dialect_foundry_in_turn::runs_as_foundry;
use crate::dialect_support;
use crate::dialects::{Fractions, Q, omen, q};

/// A modifier of Foundry's `Die`, as its code runs it.
#[derive(Clone, Copy)]
enum Step {
    /// `khN` (`highest`, `keep`), `klN`, `dhN`, `dlN`.
    Keep { keep: bool, highest: bool, n: usize },
    /// `r`/`rr` (`explode` false) or `x`/`xo`, with their cap and whether new dice are checked.
    Walk {
        explode: bool,
        recursive: bool,
        cap: Option<usize>,
        meets: fn(i64) -> bool,
    },
}

/// One result: its face and whether it is active.
type Die = (i64, bool);

struct Foundry<'a> {
    sides: i64,
    steps: &'a [Step],
    bound: i64,
}

fn active_total(results: &[Die]) -> i64 {
    results.iter().filter(|r| r.1).map(|r| r.0).sum()
}

/// Foundry's keep or drop: the active results sorted by face; those outside the ones kept are made
/// inactive (among equal faces, which one does not change any total here).
fn keep_or_drop(results: &mut [Die], keep: bool, highest: bool, n: usize) {
    let mut active: Vec<usize> = (0..results.len()).filter(|&i| results[i].1).collect();
    active.sort_by_key(|&i| results[i].0);
    if highest {
        active.reverse();
    }
    // `active` runs from the end the modifier names: kept are its first n, dropped its first n.
    let (from, to) = if keep { (n, active.len()) } else { (0, n) };
    for &i in &active[from.min(active.len())..to.min(active.len())] {
        results[i].1 = false;
    }
}

impl Foundry<'_> {
    /// Runs step `j` on; a walking step has checked `checked` results, has `left` of its cap, and
    /// started with `initial` results.
    fn run(
        &self,
        mut results: Vec<Die>,
        j: usize,
        walk: (usize, Option<usize>, usize),
        p: Q,
    ) -> Fractions {
        let mut out = Fractions::new();
        if active_total(&results) > self.bound {
            return out;
        }
        let Some(&step) = self.steps.get(j) else {
            out.insert(q(active_total(&results), 1), p);
            return out;
        };
        let next_cap = |j: usize| match self.steps.get(j) {
            Some(Step::Walk { cap, .. }) => *cap,
            _ => None,
        };
        let (checked, left, initial) = walk;
        let Step::Walk {
            explode,
            recursive,
            meets,
            ..
        } = step
        else {
            let Step::Keep { keep, highest, n } = step else {
                unreachable!()
            };
            keep_or_drop(&mut results, keep, highest, n);
            let len = results.len();
            return self.run(results, j + 1, (0, next_cap(j + 1), len), p);
        };
        let done =
            checked >= results.len() || left == Some(0) || (!recursive && checked >= initial);
        if done {
            let len = results.len();
            return self.run(results, j + 1, (0, next_cap(j + 1), len), p);
        }
        let (face, active) = results[checked];
        if !(active && meets(face)) {
            return self.run(results, j, (checked + 1, left, initial), p);
        }
        if !explode {
            results[checked].1 = false;
        }
        // `rr` rolls the new die again while it meets the point: it ends uniform over the faces
        // that do not (Foundry gives up after 1,000 checks, a chance below 2^-1000 here), which the
        // walk takes at once rather than recursing without end.
        let faces: Vec<i64> = (1..=self.sides)
            .filter(|&f| explode || !recursive || !meets(f))
            .collect();
        let weight = q(1, faces.len() as i64);
        for new in faces {
            let mut more = results.clone();
            more.push((new, true));
            let walk = (checked + 1, left.map(|l| l - 1), initial);
            for (t, r) in self.run(more, j, walk, &p * &weight) {
                *out.entry(t).or_insert_with(Q::zero) += r;
            }
        }
        out
    }

    /// The probability of each total up to the bound, from `n` dice.
    fn distribution(&self, n: u32) -> Fractions {
        let mut rolls: Vec<Vec<Die>> = vec![Vec::new()];
        for _ in 0..n {
            rolls = rolls
                .into_iter()
                .flat_map(|r| {
                    (1..=self.sides).map(move |f| {
                        let mut r = r.clone();
                        r.push((f, true));
                        r
                    })
                })
                .collect();
        }
        let first_cap = match self.steps.first() {
            Some(Step::Walk { cap, .. }) => *cap,
            _ => None,
        };
        let mut out = Fractions::new();
        for roll in rolls {
            let p = q(1, self.sides.pow(n));
            for (t, r) in self.run(roll, 0, (0, first_cap, n as usize), p) {
                *out.entry(t).or_insert_with(Q::zero) += r;
            }
        }
        out
    }
}

fn foundry(n: u32, sides: i64, steps: &[Step], bound: i64) -> Fractions {
    Foundry {
        sides,
        steps,
        bound,
    }
    .distribution(n)
}

/// Omen's distribution up to `bound`.
fn omen_up_to(source: &str, bound: i64) -> Fractions {
    dialect_support::up_to("foundry", source, bound)
}

/// What the roller gives along every sequence of dice.
fn rolled(source: &str) -> Fractions {
    dialect_support::rolled("foundry", source, 400_000)
}

fn mean(dist: &Fractions) -> Q {
    dist.iter().map(|(v, p)| v * p).sum()
}

const KH2: Step = Step::Keep {
    keep: true,
    highest: true,
    n: 2,
};
const DL1: Step = Step::Keep {
    keep: false,
    highest: false,
    n: 1,
};

fn reroll(recursive: bool, cap: Option<usize>, meets: fn(i64) -> bool) -> Step {
    Step::Walk {
        explode: false,
        recursive,
        cap,
        meets,
    }
}

fn explode(recursive: bool, cap: Option<usize>, meets: fn(i64) -> bool) -> Step {
    Step::Walk {
        explode: true,
        recursive,
        cap,
        meets,
    }
}

/// The misreading this replaces: `3d6kh2r1` rerolled every 1 before keeping (mean 47153/5184).
/// Foundry rerolls the kept 1s only, and the new die stays: 3d6kh2's mean 1827/216 plus 5/2 for
/// each kept 1, of which there are 17/216 on average (one when exactly two dice show 1, 15/216;
/// two when all three do, 1/216): 3739/432.
#[test]
fn foundry_reroll_after_a_keep_rerolls_the_kept_dice_only() {
    let want = foundry(3, 6, &[KH2, reroll(false, None, |f| f == 1)], 100);
    assert_eq!(omen("foundry", "3d6kh2r1"), Ok(want.clone()));
    assert_eq!(mean(&want), q(3739, 432));
    let low = foundry(3, 6, &[KH2, reroll(false, None, |f| f < 3)], 100);
    assert_eq!(omen("foundry", "3d6kh2r<3"), Ok(low));
    let recursive = foundry(4, 4, &[DL1, reroll(true, None, |f| f <= 2)], 100);
    assert_eq!(omen("foundry", "4d4dl1rr<=2"), Ok(recursive));
    // One die kept.
    let one = Step::Keep {
        keep: true,
        highest: true,
        n: 1,
    };
    let kept = foundry(2, 6, &[one, reroll(false, None, |f| f <= 2)], 100);
    assert_eq!(omen("foundry", "2d6kh1r<=2"), Ok(kept));
    assert_eq!(
        rolled("3d4kh2r1"),
        foundry(3, 4, &[KH2, reroll(false, None, |f| f == 1)], 100)
    );
}

/// An explosion after a keep explodes the kept dice only; `xo` once each (3d6kh2's mean plus 7/2
/// for each kept 6, 107/216 of them on average: 4403/432).
#[test]
fn foundry_explosion_after_a_keep_explodes_the_kept_dice_only() {
    // A cut chain has a kept 6 and four new 6s: totals of 31 or more.
    let want = foundry(3, 6, &[KH2, explode(true, None, |f| f == 6)], 24);
    assert_eq!(omen_up_to("3d6kh2x", 24), want);
    let once = foundry(3, 6, &[KH2, explode(false, None, |f| f == 6)], 100);
    assert_eq!(omen("foundry", "3d6kh2xo"), Ok(once.clone()));
    assert_eq!(mean(&once), q(4403, 432));
    assert_eq!(
        rolled("3d4dl1xo>=3"),
        foundry(3, 4, &[DL1, explode(false, None, |f| f >= 3)], 100)
    );
}

/// A reroll then an explosion after a keep, in turn over the kept dice (`3d6kh2r1x`): the explosion
/// checks the rerolled dice too. A cut chain has a kept 6 and four new 6s: 31 or more.
#[test]
fn foundry_reroll_then_explosion_after_a_keep_run_in_turn() {
    let steps = [
        KH2,
        reroll(false, None, |f| f == 1),
        explode(true, None, |f| f == 6),
    ];
    assert_eq!(omen_up_to("3d6kh2r1x", 24), foundry(3, 6, &steps, 24));
    let once = [
        DL1,
        reroll(true, None, |f| f <= 2),
        explode(false, None, |f| f == 4),
    ];
    assert_eq!(
        omen("foundry", "4d4dl1rr<=2xo"),
        Ok(foundry(4, 4, &once, 100))
    );
}

/// A keep before a capped reroll: the first `cap` kept dice meeting the point are rerolled.
/// `3d6kh2r1=1`: 3d6kh2's mean plus 5/2 when any kept die shows 1 (16/216): 1867/216.
#[test]
fn foundry_keep_then_capped_reroll_rerolls_the_first_kept_dice() {
    let want = foundry(3, 6, &[KH2, reroll(false, Some(1), |f| f == 1)], 100);
    assert_eq!(omen("foundry", "3d6kh2r1=1"), Ok(want.clone()));
    assert_eq!(mean(&want), q(1867, 216));
    let kh3 = Step::Keep {
        keep: true,
        highest: true,
        n: 3,
    };
    let two = foundry(4, 4, &[kh3, reroll(false, Some(2), |f| f == 1)], 100);
    assert_eq!(omen("foundry", "4d4kh3r2=1"), Ok(two));
    let dropped = foundry(4, 4, &[DL1, reroll(false, Some(1), |f| f <= 1)], 100);
    assert_eq!(omen("foundry", "4d4dl1r1<=1"), Ok(dropped));
    // Explode once with a cap: no face leaves, so any point is read.
    let once = foundry(4, 6, &[DL1, explode(false, Some(1), |f| f >= 5)], 100);
    assert_eq!(omen("foundry", "4d6dl1xo1>=5"), Ok(once));
    // A rolled count, rolled once.
    let mut counted = Fractions::new();
    for n in 1..=3u32 {
        for (total, p) in foundry(n, 4, &[KH2, reroll(false, Some(1), |f| f == 1)], 100) {
            *counted.entry(total).or_insert_with(Q::zero) += p * q(1, 3);
        }
    }
    assert_eq!(omen("foundry", "(1d3)d4kh2r1=1"), Ok(counted));
    assert_eq!(
        rolled("3d4kh2r1=1"),
        foundry(3, 4, &[KH2, reroll(false, Some(1), |f| f == 1)], 100)
    );
}

/// What Omen's notation does not read runs as Foundry runs it.
#[test]
fn foundry_steps_after_a_keep_omens_notation_cannot_order_run_in_turn() {
    for source in [
        // Which kept dice a capped reroll takes matters when several faces meet its point.
        "3d4kh2r1<3",
        // Capped recursive steps after a keep.
        "3d4kh2rr1=1",
        "3d4kh2x1=4",
        // More modifiers around the step.
        "3d4r1kh2x",
        "4d4kh3r1kh2",
    ] {
        runs_as_foundry(source, 9);
    }
}

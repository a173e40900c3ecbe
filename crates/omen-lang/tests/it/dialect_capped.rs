//! Issue 24's fourth round: Foundry's capped rerolls and explosions with a keep, drop or count after
//! them, or with a rolled count (`3d6r1=1kh2`, `5d10x5>=8kh2`, `(1d4)d6r1=1`). The expected
//! distributions come from a walk of Foundry's dice code written here (the results checked in order,
//! new dice appended after them, the cap spent for the whole term, then the keep and the count on the
//! dice left active), enumerated along every sequence of dice; never read off Omen. The roller, run
//! along every sequence of dice, must agree too.

use num_traits::Zero;
use omen_lang::compile;

use crate::dialect_foundry_in_turn::runs_as_foundry;
use crate::dialect_support::{self, every_roll};
use crate::dialects::{Fractions, Q, omen, options, q};

/// A capped step as Foundry's `DiceTerm` runs it.
struct Capped {
    sides: i64,
    cap: usize,
    /// New dice checked too (`x`, `rr`), or only the dice rolled at first (`r`, `xo`).
    recursive: bool,
    /// The die meeting the point stays beside its new die (`x`, `xo`), or is replaced (`r`, `rr`).
    explode: bool,
    meets: fn(i64) -> bool,
}

impl Capped {
    /// Every end of the walk from `results` (value, active), with its probability, as the values of
    /// the dice left active.
    fn walk(
        &self,
        mut results: Vec<(i64, bool)>,
        checked: usize,
        initial: usize,
        left: usize,
    ) -> Vec<(Vec<i64>, Q)> {
        let done = |results: &[(i64, bool)]| {
            let active = results.iter().filter(|r| r.1).map(|r| r.0).collect();
            vec![(active, q(1, 1))]
        };
        if (!self.recursive && checked >= initial) || checked >= results.len() || left == 0 {
            return done(&results);
        }
        let (value, active) = results[checked];
        if !(active && (self.meets)(value)) {
            return self.walk(results, checked + 1, initial, left);
        }
        if !self.explode {
            results[checked].1 = false;
        }
        let mut out = Vec::new();
        for face in 1..=self.sides {
            let mut next = results.clone();
            next.push((face, true));
            for (dice, p) in self.walk(next, checked + 1, initial, left - 1) {
                out.push((dice, p * q(1, self.sides)));
            }
        }
        out
    }

    /// The distribution of `read` over the dice left active, from `n` dice rolled.
    fn distribution(&self, n: u32, read: impl Fn(&[i64]) -> i64) -> Fractions {
        let mut out = Fractions::new();
        let first = q(1, self.sides.pow(n));
        for roll in every_roll(n, self.sides) {
            let results = roll.iter().map(|&f| (f, true)).collect();
            for (dice, p) in self.walk(results, 0, n as usize, self.cap) {
                *out.entry(q(read(&dice), 1)).or_insert_with(Q::zero) += p * &first;
            }
        }
        out
    }
}

/// The dice sorted from the highest.
fn descending(dice: &[i64]) -> Vec<i64> {
    let mut sorted = dice.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    sorted
}

fn highest(dice: &[i64], c: usize) -> Vec<i64> {
    descending(dice).into_iter().take(c).collect()
}

fn lowest(dice: &[i64], c: usize) -> Vec<i64> {
    let mut sorted = descending(dice);
    sorted.reverse();
    sorted.into_iter().take(c).collect()
}

fn count(dice: &[i64], meets: impl Fn(i64) -> bool) -> i64 {
    dice.iter().filter(|&&f| meets(f)).count() as i64
}

/// What the roller gives along every sequence of dice.
fn rolled(source: &str) -> Fractions {
    dialect_support::rolled("foundry", source, 400_000)
}

fn reading(source: &str) -> String {
    dialect_support::reading("foundry", source)
}

const REROLL_ONCE: Capped = Capped {
    sides: 6,
    cap: 1,
    recursive: false,
    explode: false,
    meets: |f| f == 1,
};

#[test]
fn foundry_capped_reroll_then_keep_keeps_among_the_dice_after_the_reroll() {
    let want = REROLL_ONCE.distribution(3, |d| highest(d, 2).iter().sum());
    assert_eq!(omen("foundry", "3d6r1=1kh2"), Ok(want.clone()));
    assert_eq!(rolled("3d6r1=1kh2"), want);
    assert_eq!(
        reading("3d6r1=1kh2"),
        "let kinds_0 = (let meeting_0 = (3d6=1) in (3 - meeting_0, meeting_0 - min(meeting_0, 1), \
         min(meeting_0, 1))) in (let pool_0 = pool {(kinds_0.0)d{2..6}, (kinds_0.1)d{1}, \
         (kinds_0.2)d6} in highest(pool_0, 2))"
    );
    // Dropping: the lowest die of the three after the reroll, and the highest two.
    let dl = REROLL_ONCE.distribution(3, |d| highest(d, 2).iter().sum());
    assert_eq!(omen("foundry", "3d6r1=1dl1"), Ok(dl));
    let dh = REROLL_ONCE.distribution(3, |d| lowest(d, 1).iter().sum());
    assert_eq!(omen("foundry", "3d6r1=1dh2"), Ok(dh));
    // Two 1s with a cap of two, the lowest kept.
    let two = Capped {
        sides: 4,
        cap: 2,
        ..REROLL_ONCE
    };
    let kl = two.distribution(4, |d| lowest(d, 1).iter().sum());
    assert_eq!(omen("foundry", "4d4r2=1kl1"), Ok(kl));
}

#[test]
fn foundry_capped_explosion_then_keep_keeps_among_every_die_rolled() {
    let explode = Capped {
        sides: 4,
        cap: 2,
        recursive: true,
        explode: true,
        meets: |f| f >= 3,
    };
    let want = explode.distribution(3, |d| highest(d, 2).iter().sum());
    assert_eq!(omen("foundry", "3d4x2>=3kh2"), Ok(want.clone()));
    assert_eq!(rolled("3d4x2>=3kh2"), want);
    // Dropping the lowest of a pool whose size the explosions decide.
    let dl = explode.distribution(3, |d| {
        let sorted = descending(d);
        sorted[..sorted.len() - 1].iter().sum()
    });
    assert_eq!(omen("foundry", "3d4x2>=3dl1"), Ok(dl));
    // Explode once (`xo`): the first die meeting the point, its new die unchecked.
    let once = Capped {
        recursive: false,
        cap: 1,
        ..explode
    };
    let kl = once.distribution(3, |d| lowest(d, 2).iter().sum());
    assert_eq!(omen("foundry", "3d4xo1>=3kl2"), Ok(kl));
    // A recursive reroll with a cap of two, then the highest die.
    let reroll = Capped {
        explode: false,
        meets: |f| f <= 2,
        ..explode
    };
    let kh = reroll.distribution(3, |d| highest(d, 1).iter().sum());
    assert_eq!(omen("foundry", "3d4rr2<=2kh1"), Ok(kh));
}

/// A count among the kept dice is read from counts of the whole pool (of the highest `c` dice,
/// `min(c, count(p, >=t))` show `t` or more); each point and each keep against the walk.
#[test]
fn foundry_capped_step_then_keep_then_count_counts_the_kept_dice() {
    let explode = Capped {
        sides: 4,
        cap: 2,
        recursive: true,
        explode: true,
        meets: |f| f == 4,
    };
    type Pick = fn(&[i64]) -> Vec<i64>;
    let keeps: [(&str, Pick); 4] = [
        ("kh2", |d| highest(d, 2)),
        ("kl2", |d| lowest(d, 2)),
        ("dh1", |d| lowest(d, d.len() - 1)),
        ("dl2", |d| highest(d, d.len().saturating_sub(2))),
    ];
    type Meets = fn(i64) -> bool;
    let points: [(&str, Meets); 5] = [
        (">=3", |f| f >= 3),
        (">3", |f| f > 3),
        ("=2", |f| f == 2),
        ("<=2", |f| f <= 2),
        ("<2", |f| f < 2),
    ];
    for (keep, pick) in keeps {
        for (point, meets) in points {
            let source = format!("3d4x2=4{keep}cs{point}");
            let want = explode.distribution(3, |d| count(&pick(d), meets));
            assert_eq!(omen("foundry", &source), Ok(want), "{source}");
        }
    }
    // Successes less failures, kept or not; and the roller agrees.
    let net = REROLL_ONCE.distribution(4, |d| {
        let kept = highest(d, 3);
        count(&kept, |f| f >= 5) - count(&kept, |f| f == 1)
    });
    assert_eq!(omen("foundry", "4d6r1=1kh3cs>=5df=1"), Ok(net));
    let four = Capped {
        sides: 4,
        ..REROLL_ONCE
    };
    let small = four.distribution(3, |d| {
        let kept = highest(d, 2);
        count(&kept, |f| f >= 3) - count(&kept, |f| f == 1)
    });
    assert_eq!(rolled("3d4r1=1kh2cs>=3df=1"), small);
    let all = REROLL_ONCE.distribution(3, |d| count(d, |f| f >= 4));
    assert_eq!(omen("foundry", "3d6r1=1cs>=4"), Ok(all));
}

#[test]
fn foundry_capped_reroll_with_a_rolled_count_rolls_the_count_once() {
    // The count rolled first (a d3), then that many d4 with one 1 rerolled.
    let step = Capped {
        sides: 4,
        ..REROLL_ONCE
    };
    let mut want = Fractions::new();
    for n in 1..=3u32 {
        for (total, p) in step.distribution(n, |d| d.iter().sum()) {
            *want.entry(total).or_insert_with(Q::zero) += p * q(1, 3);
        }
    }
    assert_eq!(omen("foundry", "(1d3)d4r1=1"), Ok(want.clone()));
    assert_eq!(rolled("(1d3)d4r1=1"), want);
    // And with a keep after it.
    let mut kept = Fractions::new();
    for n in 1..=3u32 {
        for (total, p) in step.distribution(n, |d| highest(d, 2).iter().sum()) {
            *kept.entry(total).or_insert_with(Q::zero) += p * q(1, 3);
        }
    }
    assert_eq!(omen("foundry", "(1d3)d4r1=1kh2"), Ok(kept));
}

/// What stays refused, each with the reason in its message.
#[test]
fn foundry_capped_steps_omens_notation_cannot_order_run_as_foundry_runs_them() {
    for source in [
        // A keep before the step where it matters which kept dice are rerolled (several faces
        // meet the point): see dialect_foundry_kept_steps.rs for the ones Omen's notation reads.
        "3d4kh2r1<3",
        // Two capped steps, a middle keep, a clamp after the step.
        "3d4r1=1r1=2",
        "3d4r1=1kh2kl1",
        "3d4r1=1min2",
        // A cap above the 20 generations Omen's notation writes out.
        "2d4x21>=4kh1",
    ] {
        runs_as_foundry(source, 9);
    }
}

/// In Omen's notation `3d6rr1>=5` is a reroll of the 1s, then a count of the dice showing 5 or more;
/// Foundry reads the 1 as a cap on a reroll of the dice showing 5 or more. It warns, naming Foundry's
/// reading; without a point glued to the number, or with Omen's own `ro`, it does not.
#[test]
fn omen_notation_a_reroll_number_glued_to_a_point_warns_that_foundry_reads_a_cap() {
    let kinds = |source: &str| -> Vec<&'static str> {
        let checked =
            compile(source, &options("omen")).unwrap_or_else(|e| panic!("{source}: {e:?}"));
        checked.warnings.iter().map(|w| w.kind).collect()
    };
    // Omen's reading: a die never shows 1 after the reroll, and shows 5 or 6 with probability 2/5.
    let mut one = Fractions::new();
    one.insert(q(0, 1), q(3, 5));
    one.insert(q(1, 1), q(2, 5));
    assert_eq!(omen("omen", "1d6rr1>=5"), Ok(one));
    for source in ["3d6rr1>=5", "3d6r1=1", "d4rr1>=1"] {
        assert!(
            kinds(source).contains(&"capped-step-differs-in-foundry"),
            "{source}"
        );
    }
    for source in ["3d6rr1", "3d6rr>=5", "3d6ro1>=5", "3d6rr1 >= 5"] {
        assert!(
            !kinds(source).contains(&"capped-step-differs-in-foundry"),
            "{source}"
        );
    }
}

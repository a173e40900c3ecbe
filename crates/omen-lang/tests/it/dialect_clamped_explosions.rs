//! Foundry's `min` and `max` before an explosion (`3d6max5x`, `3d6max5x5`, `3d6min2x>=5`, `xo`),
//! a count (`3d6max5cs>=6`) or a reroll (`3d6min2r1`, refused).
//! Foundry's clamps set what a die counts and leave the face it shows, and its explosions compare
//! the face shown: under `max5` a 6 counts 5 and still explodes under `x`. The expected
//! distributions come from a walk of Foundry's dice code written here (each result a face and a
//! count, the modifiers run in order over the results present), enumerated along every sequence of
//! dice up to a total: every die counts at least 1, so a total is reached by finitely many
//! sequences, and below the totals where `--explode-depth` (3 in these tests) could cut a chain,
//! Omen's probabilities must be Foundry's exactly. Never read off Omen.
//!
//! Where the cuts fall: Omen's `!a` keeps a die's first roll and three added dice, the last
//! counting as rolled, so a cut needs four dice meeting the point in a row. The batch reading counts
//! a chain's dice meeting the point with a die exploding on 1 (its three extra rolls allowed) and
//! adds a last die that does not meet it, so a cut needs four added dice meeting the point and one
//! more after them.

use num_bigint::BigInt;
use num_traits::Zero;
use omen_lang::compile;

use crate::dialect_foundry_in_turn::runs_as_foundry;
use crate::dialect_support;
use crate::dialects::{Fractions, Q, omen, options, q};

/// A modifier of Foundry's `Die`, as its code runs it.
#[derive(Clone, Copy)]
enum Step {
    /// `minN`: a result whose face is below N counts N.
    Min(i64),
    /// `maxN`: a result whose face is above N counts N.
    Max(i64),
    /// `x` (recursive: the new dice are checked too) or `xo`, on the faces `meets` holds for.
    Explode {
        recursive: bool,
        meets: fn(i64) -> bool,
    },
}

/// One result: the face shown and, once a clamp set it, what it counts.
type Result = (i64, Option<i64>);

fn total(results: &[Result]) -> i64 {
    results
        .iter()
        .map(|&(face, count)| count.unwrap_or(face))
        .sum()
}

struct Walk<'a> {
    sides: i64,
    steps: &'a [Step],
    bound: i64,
}

impl Walk<'_> {
    /// Runs step `j` on, the explosion at `j` having checked `checked` results of the `initial`
    /// there when it started. Totals above the bound are left out once only explosions remain
    /// (they only add).
    fn run(
        &self,
        results: Vec<Result>,
        (j, checked, initial): (usize, usize, usize),
        p: Q,
    ) -> Fractions {
        let mut out = Fractions::new();
        let only_explosions = self.steps[j..]
            .iter()
            .all(|s| matches!(s, Step::Explode { .. }));
        if only_explosions && total(&results) > self.bound {
            return out;
        }
        let Some(&step) = self.steps.get(j) else {
            out.insert(q(total(&results), 1), p);
            return out;
        };
        let next = results.len();
        match step {
            Step::Min(n) | Step::Max(n) => {
                let results = results
                    .into_iter()
                    .map(|(face, count)| {
                        let applies = match step {
                            Step::Min(_) => face < n,
                            _ => face > n,
                        };
                        (face, if applies { Some(n) } else { count })
                    })
                    .collect();
                return self.run(results, (j + 1, 0, next), p);
            }
            Step::Explode { recursive, meets } => {
                if checked >= results.len() || (!recursive && checked >= initial) {
                    return self.run(results, (j + 1, 0, next), p);
                }
                if !meets(results[checked].0) {
                    return self.run(results, (j, checked + 1, initial), p);
                }
                for face in 1..=self.sides {
                    let mut more = results.clone();
                    more.push((face, None));
                    let ends = self.run(more, (j, checked + 1, initial), &p * q(1, self.sides));
                    for (t, r) in ends {
                        *out.entry(t).or_insert_with(Q::zero) += r;
                    }
                }
            }
        }
        out
    }
}

/// The probability of each total up to `bound` of `n` dice of `sides` under Foundry's `steps`.
fn foundry(n: u32, sides: i64, steps: &[Step], bound: i64) -> Fractions {
    let walk = Walk {
        sides,
        steps,
        bound,
    };
    let mut rolls: Vec<Vec<Result>> = vec![Vec::new()];
    for _ in 0..n {
        rolls = rolls
            .into_iter()
            .flat_map(|r| {
                (1..=sides).map(move |f| {
                    let mut r = r.clone();
                    r.push((f, None));
                    r
                })
            })
            .collect();
    }
    let mut out = Fractions::new();
    for roll in rolls {
        let first = q(1, sides.pow(n));
        for (t, p) in walk.run(roll, (0, 0, n as usize), first) {
            if t <= q(bound, 1) {
                *out.entry(t).or_insert_with(Q::zero) += p;
            }
        }
    }
    out
}

/// Omen's distribution up to `bound`.
fn omen_up_to(source: &str, bound: i64) -> Fractions {
    dialect_support::up_to("foundry", source, bound)
}

/// What the roller gives along every sequence of dice.
fn rolled(source: &str) -> Fractions {
    dialect_support::rolled("foundry", source, 400_000)
}

fn reading(source: &str) -> String {
    dialect_support::reading("foundry", source)
}

const X6: Step = Step::Explode {
    recursive: true,
    meets: |f| f == 6,
};

/// The defect: `3d6max5x` exploded on the 5s. In Foundry a 6 counts 5 and explodes (its face is
/// still 6, `x`'s point), its new dice neither clamped nor exploding on 5; a 5 never explodes.
#[test]
fn foundry_max_then_explode_explodes_the_face_shown_and_counts_the_clamp() {
    // A cut chain: a 6 counting 5, four new 6s, a last die and two more dice: 32 or more.
    let want = foundry(3, 6, &[Step::Max(5), X6], 24);
    assert_eq!(omen_up_to("3d6max5x", 24), want);
    // By hand for one die: 1 to 5 each 1/6 (a 5 does not explode), 6 = 5 + 1 at 1/36, 10 = 5 + 5
    // at 1/36, no 11 (5 + 6 explodes again), 12 = 5 + 6 + 1 at 1/216. The misreading gave 6 to 9
    // each 1/18 and no 10.
    let one = omen_up_to("1d6max5x", 12);
    for face in 1..=5 {
        assert_eq!(one[&q(face, 1)], q(1, 6), "{face}");
    }
    assert_eq!(one[&q(6, 1)], q(1, 36));
    assert_eq!(one[&q(10, 1)], q(1, 36));
    assert!(!one.contains_key(&q(11, 1)));
    assert_eq!(one[&q(12, 1)], q(1, 216));
    assert_eq!(one, foundry(1, 6, &[Step::Max(5), X6], 12));
    assert!(reading("1d6max5x").contains("d{0,0,0,0,0,1}!=1"));
}

/// `x5` after `max5`: a 5 explodes, a 6 counting 5 does not (its face is 6); the new dice explode
/// on 5 and count what they show, 6s included.
#[test]
fn foundry_max_then_explode_on_a_point_compares_the_face_shown() {
    let x5 = Step::Explode {
        recursive: true,
        meets: |f| f == 5,
    };
    // A cut chain: a 5, four new 5s, a last die and two more dice: 28 or more.
    assert_eq!(
        omen_up_to("3d6max5x5", 24),
        foundry(3, 6, &[Step::Max(5), x5], 24)
    );
    // Explode once: a 6 counting 5 adds one die, which does not explode.
    let once = Step::Explode {
        recursive: false,
        meets: |f| f == 6,
    };
    let want = foundry(3, 6, &[Step::Max(5), once], 100);
    assert_eq!(omen("foundry", "3d6max5xo"), Ok(want));
    // `min2` before `x1`: a 1 counts 2 and explodes; its new dice count what they show.
    let x1 = Step::Explode {
        recursive: true,
        meets: |f| f == 1,
    };
    // A cut chain: a 1 counting 2, four new 1s and a last die of 2 or more: 8 or more (10 with a
    // second die counting at least 2).
    assert_eq!(
        omen_up_to("1d6min2x1", 5),
        foundry(1, 6, &[Step::Min(2), x1], 5)
    );
    assert_eq!(
        omen_up_to("2d4min2x1", 7),
        foundry(2, 4, &[Step::Min(2), x1], 7)
    );
}

/// A clamp that moves no face across the point gives the same roll either way, and keeps Omen's
/// `!a` reading: `min2` before `x>=5` (a 1 counting 2 does not meet `>=5` either way), `min2`
/// before `x`.
#[test]
fn foundry_clamp_that_moves_no_face_across_the_point_reads_as_plain_added_dice() {
    let x5up = Step::Explode {
        recursive: true,
        meets: |f| f >= 5,
    };
    // A cut chain: four dice of 5 or more in a row and two dice counting 2: 24 or more.
    assert_eq!(
        omen_up_to("3d6min2x>=5", 23),
        foundry(3, 6, &[Step::Min(2), x5up], 23)
    );
    assert_eq!(reading("3d6min2x>=5"), "3d6min2!a>=5");
    // A cut chain: four 6s in a row and two dice counting 2: 28 or more.
    assert_eq!(
        omen_up_to("3d6min2x", 27),
        foundry(3, 6, &[Step::Min(2), X6], 27)
    );
    assert_eq!(reading("3d6min2x"), "3d6min2!a");
    // A point no face meets adds nothing: the clamp alone.
    let never = Step::Explode {
        recursive: true,
        meets: |f| f == 7,
    };
    assert_eq!(
        omen("foundry", "3d6max5x7"),
        Ok(foundry(3, 6, &[Step::Max(5), never], 100))
    );
}

/// Two clamps each compare the face shown: under `min5max3` a 1 counts 5 (the `max3` does not
/// apply to a face of 1) and a 4 counts 3; then the explosion on 6.
#[test]
fn foundry_two_clamps_then_explode_each_compare_the_face_shown() {
    let steps = [Step::Min(5), Step::Max(3), X6];
    // A cut chain: a 6 counting 3, four new 6s, a last die and a die counting 3: 31 or more.
    assert_eq!(omen_up_to("2d6min5max3x", 20), foundry(2, 6, &steps, 20));
    // Several explosions after a clamp, each running in turn; a cut chain has four new 5s or 6s
    // after a die counting 5: 25 or more.
    let x5 = Step::Explode {
        recursive: true,
        meets: |f| f == 5,
    };
    assert_eq!(
        omen_up_to("2d6max5x6x5", 20),
        foundry(2, 6, &[Step::Max(5), X6, x5], 20)
    );
}

#[test]
fn foundry_clamp_then_explode_roller_agrees_with_the_exact_engine() {
    for source in ["1d4max3x", "1d3min2x1", "2d3max2xo"] {
        assert_eq!(Ok(rolled(source)), omen("foundry", source), "{source}");
    }
}

/// A clamp moving a face across the point with another modifier on the term, or with a reroll
/// before the explosion, runs as Foundry runs it.
#[test]
fn foundry_clamp_then_explode_with_more_modifiers_runs_in_turn() {
    for source in ["3d4max3xkh2", "3d4r1max3x", "3d4max3xdl1", "3d4max3x2=4"] {
        runs_as_foundry(source, 9);
    }
}

/// The number of `n` dice meeting a point each die meets with probability `p`: binomial.
fn binomial(n: i64, p: Q) -> Fractions {
    let mut out = Fractions::new();
    let mut choose = 1i64;
    for k in 0..=n {
        let miss = n - k;
        let weight = (0..k).fold(Q::from(BigInt::from(choose)), |w, _| w * &p);
        let weight = (0..miss).fold(weight, |w, _| w * (q(1, 1) - &p));
        out.insert(q(k, 1), weight);
        choose = choose * (n - k) / (k + 1);
    }
    out
}

/// A count after a clamp compares the face shown and replaces every die's count: `3d6max5cs>=6`
/// counts the 6s (it had counted none, every face clamped to 5), `3d6min2cs<=1` the 1s.
#[test]
fn foundry_count_after_a_clamp_counts_the_face_shown() {
    assert_eq!(omen("foundry", "3d6max5cs>=6"), Ok(binomial(3, q(1, 6))));
    assert_eq!(omen("foundry", "3d6min2cs<=1"), Ok(binomial(3, q(1, 6))));
    assert_eq!(reading("3d6max5cs>=6"), "3d6>=6");
    // After a keep: Foundry keeps by the face shown, then counts it.
    let mut kept = Fractions::new();
    for a in 1..=6i64 {
        for b in 1..=6i64 {
            for c in 1..=6i64 {
                let mut dice = [a, b, c];
                dice.sort_unstable();
                let sixes = dice[1..].iter().filter(|&&f| f == 6).count() as i64;
                *kept.entry(q(sixes, 1)).or_insert_with(Q::zero) += q(1, 216);
            }
        }
    }
    assert_eq!(omen("foundry", "3d6max5kh2cs>=6"), Ok(kept));
}

/// Foundry's clamps then a reroll, one die walked: the clamps set the count by the face shown,
/// the reroll compares the face shown and the new die (rolled again while it meets the point under
/// `rr`) counts what it shows. Returns the count's distribution for one die.
fn clamped_then_rerolled(
    sides: i64,
    clamps: &[Step],
    rerolled: fn(i64) -> bool,
    again: bool,
) -> Fractions {
    let mut one = Fractions::new();
    for face in 1..=sides {
        let mut results = vec![(face, None)];
        for &clamp in clamps {
            let (n, applies) = match clamp {
                Step::Min(n) => (n, face < n),
                Step::Max(n) => (n, face > n),
                Step::Explode { .. } => unreachable!(),
            };
            if applies {
                results[0].1 = Some(n);
            }
        }
        if !rerolled(face) {
            *one.entry(q(total(&results), 1)).or_insert_with(Q::zero) += q(1, sides);
            continue;
        }
        // The new die: uniform over every face, or over those not meeting the point under `rr`
        // (the limit of rolling again while it meets it).
        let new: Vec<i64> = (1..=sides).filter(|&f| !again || !rerolled(f)).collect();
        for &f in &new {
            *one.entry(q(f, 1)).or_insert_with(Q::zero) += q(1, sides) * q(1, new.len() as i64);
        }
    }
    one
}

/// The sum of `n` independent dice of the distribution `one`.
fn sum_of(n: usize, one: &Fractions) -> Fractions {
    let mut out = Fractions::from([(q(0, 1), q(1, 1))]);
    for _ in 0..n {
        let mut next = Fractions::new();
        for (a, p) in &out {
            for (b, r) in one {
                *next.entry(a + b).or_insert_with(Q::zero) += p * r;
            }
        }
        out = next;
    }
    out
}

/// A reroll after a clamp compares the face shown and rolls a die no clamp touches: `3d6min2r1`
/// rerolls the 1s counting 2 (it had never rerolled them); its mean by hand, 3 × (1/6 × 7/2 + 20/6)
/// = 47/4. With more modifiers on the term it is refused.
#[test]
fn foundry_reroll_after_a_clamp_rerolls_the_face_shown() {
    let min2r1 = sum_of(
        3,
        &clamped_then_rerolled(6, &[Step::Min(2)], |f| f == 1, false),
    );
    assert_eq!(mean(&min2r1), q(47, 4));
    assert_eq!(omen("foundry", "3d6min2r1"), Ok(min2r1));
    // `rr6` after `max5`: a 6 (counting 5) is rolled again until it is not 6: mean 3 a die.
    let rr6 = sum_of(
        3,
        &clamped_then_rerolled(6, &[Step::Max(5)], |f| f == 6, true),
    );
    assert_eq!(mean(&rr6), q(9, 1));
    assert_eq!(omen("foundry", "3d6max5rr6"), Ok(rr6));
    let both = sum_of(
        2,
        &clamped_then_rerolled(4, &[Step::Min(2), Step::Max(3)], |f| f >= 3, false),
    );
    assert_eq!(omen("foundry", "2d4min2max3r>=3"), Ok(both));
    for source in ["3d4max3kh2r1", "3d4min2r1r2"] {
        runs_as_foundry(source, 9);
    }
    // A count after the clamp and the explosion replaces what the clamp set: the clamp is dropped.
    assert_eq!(reading("3d6max5xcs>=5"), reading("3d6xcs>=5"));
    // Written before the clamp, the reroll is read as Omen's.
    assert_eq!(reading("3d6r1min2"), "3d6ro=1min2");
}

fn mean(dist: &Fractions) -> Q {
    dist.iter().map(|(v, p)| v * p).sum()
}

/// Foundry's clamps alone, walked on one die of `sides` faces as its code runs them: each clamp in
/// turn tests the face shown (`result`) and, when its test holds, sets what the die counts
/// (`count`); the die counts its `count` if one was set, else its face.
fn clamps_walked(sides: i64, clamps: &[Step]) -> Fractions {
    let mut one = Fractions::new();
    for face in 1..=sides {
        let mut result: Result = (face, None);
        for &clamp in clamps {
            match clamp {
                Step::Min(n) if result.0 < n => result.1 = Some(n),
                Step::Max(n) if result.0 > n => result.1 = Some(n),
                Step::Explode { .. } => unreachable!(),
                _ => {}
            }
        }
        *one.entry(q(total(&[result]), 1)).or_insert_with(Q::zero) += q(1, sides);
    }
    one
}

/// Issue 24: `3d6min5max3` read as Omen's clamps, one after the other on the value, gave 9 (every
/// die 3). In Foundry each clamp tests the face shown: faces 1 to 3 count 5, faces 4 to 6 count 3,
/// a die's mean 4 and the term's 12. Every order below is checked against the walk over each face.
#[test]
fn foundry_several_clamps_each_test_the_face_shown() {
    let min5max3 = sum_of(3, &clamps_walked(6, &[Step::Min(5), Step::Max(3)]));
    assert_eq!(mean(&min5max3), q(12, 1));
    assert_eq!(omen("foundry", "3d6min5max3"), Ok(min5max3));
    // `max3min5`: faces 4 to 6 count 3 (max3), then min5 sets 5 on faces 1 to 4: a 4 counts 5.
    let max3min5 = sum_of(3, &clamps_walked(6, &[Step::Max(3), Step::Min(5)]));
    assert_eq!(mean(&max3min5), q(3 * (5 * 4 + 3 * 2), 6));
    assert_eq!(omen("foundry", "3d6max3min5"), Ok(max3min5));
    // `min2max5` and `max4min4`: the two readings agree (no face meets both tests in a way that
    // matters), and Omen's notation stays as written.
    for (source, steps) in [
        ("3d6min2max5", [Step::Min(2), Step::Max(5)]),
        ("3d6max4min4", [Step::Max(4), Step::Min(4)]),
    ] {
        let walked = sum_of(3, &clamps_walked(6, &steps));
        assert_eq!(omen("foundry", source), Ok(walked), "{source}");
    }
    // `max4min4` counts 4 on every face.
    assert_eq!(
        omen("foundry", "2d6max4min4"),
        Ok(Fractions::from([(q(8, 1), q(1, 1))]))
    );
    assert_eq!(reading("3d6min2max5"), "3d6min2max5");
    assert_eq!(reading("1d6min5max3"), "1d{5,5,5,3,3,3}");
    // Three clamps: `min5max3min2`: faces 1 count 2 (min2 last), 2 and 3 count 5, 4 to 6 count 3.
    let three = clamps_walked(6, &[Step::Min(5), Step::Max(3), Step::Min(2)]);
    assert_eq!(mean(&three), q(2 + 5 * 2 + 3 * 3, 6));
    assert_eq!(omen("foundry", "1d6min5max3min2"), Ok(three));
    // The roller rolls the relabelled die too.
    let two = sum_of(2, &clamps_walked(6, &[Step::Min(5), Step::Max(3)]));
    assert_eq!(rolled("2d6min5max3"), two);
}

/// Several clamps that disagree with Omen's beside a keep (which keeps by the face shown) or after
/// a reroll or explosion (whose dice they test), and a clamp after a count, which sets again what
/// the count set, run as Foundry runs them.
#[test]
fn foundry_clamps_beside_other_modifiers_run_in_turn() {
    for source in [
        "3d4min4max2kh2",
        "3d4kh2min4max2",
        "3d4r1min4max2",
        "3d4xmin4max2",
        "3d4cs>=3min2",
        "3d4cf<=2max3",
    ] {
        runs_as_foundry(source, 9);
    }
    // Clamps that agree with Omen's on every face, or a single clamp, keep Omen's reading.
    assert_eq!(reading("3d6min2max5kh2"), "3d6min2max5kh2");
    assert_eq!(reading("3d6r1min2"), "3d6ro=1min2");
}

fn warning_kinds(source: &str) -> Vec<&'static str> {
    let checked = compile(source, &options("omen")).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    checked.warnings.iter().map(|w| w.kind).collect()
}

/// In Omen's notation several clamps keep their meaning (one after the other on the value:
/// `3d6min5max3` is 9) and warn where Foundry's reading gives some face another count; where the
/// two agree on every face (`min2max5`, `max4min4`) or there is one clamp, no warning.
#[test]
fn omen_notation_several_clamps_warn_where_foundry_reads_them_otherwise() {
    assert_eq!(
        omen("omen", "3d6min5max3"),
        Ok(Fractions::from([(q(9, 1), q(1, 1))]))
    );
    for source in [
        "3d6min5max3",
        "3d6max3min5",
        "1d6min5max3min2",
        "3d6min5max3kh2",
    ] {
        assert!(
            warning_kinds(source).contains(&"clamps-differ-in-foundry"),
            "{source}"
        );
    }
    for source in ["3d6min2max5", "3d6max4min4", "3d6min2", "3d6min2kh2max5"] {
        assert!(
            !warning_kinds(source).contains(&"clamps-differ-in-foundry"),
            "{source}"
        );
    }
    // `d4min5max3`: faces 1 to 3 count 5 in Foundry (Omen: 3), so it warns; on a die of unlisted
    // faces the faces next to the clamps' values are compared.
    assert!(warning_kinds("1d4min5max3").contains(&"clamps-differ-in-foundry"));
    assert!(warning_kinds("1d(1d6+4)min5max3").contains(&"clamps-differ-in-foundry"));
}

/// In Omen's notation a reroll after a clamp tests the value the clamp leaves (`3d6min2rr1` never
/// rerolls), where Foundry tests the face rolled and rolls a new die no clamp touches: every clamp
/// then reroll warns, naming Foundry's reading. A reroll before the clamp, or no clamp, does not.
#[test]
fn omen_notation_a_reroll_after_a_clamp_warns_that_foundry_rerolls_the_face_rolled() {
    // Omen: a 1 counts 2 and is kept; faces 2 to 6 as they are.
    let mut min2 = Fractions::new();
    for face in [2, 2, 3, 4, 5, 6] {
        *min2.entry(q(face, 1)).or_insert_with(Q::zero) += q(1, 6);
    }
    assert_eq!(omen("omen", "1d6min2rr1"), Ok(min2));
    for source in ["1d6min2rr1", "3d6min2r1", "d4min1rr1", "3d6max5min2ro6"] {
        assert!(
            warning_kinds(source).contains(&"clamp-then-reroll-differs-in-foundry"),
            "{source}"
        );
    }
    for source in ["3d6rr1min2", "3d6rr1", "3d6min2", "3d6min2kh2"] {
        assert!(
            !warning_kinds(source).contains(&"clamp-then-reroll-differs-in-foundry"),
            "{source}"
        );
    }
}

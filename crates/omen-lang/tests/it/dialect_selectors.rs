//! Avrae's selectors (several on one operation, `k` with `p`, rerolls by rank) and Roll20's rolled
//! compare points, against their sources' documented meaning. Every expected distribution is worked
//! out here by enumerating the dice as the source describes the roll, never read off Omen.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_traits::Zero;
use omen_lang::{Value, compile};

use crate::dialects::{Fractions, Q, omen, options, q};
use crate::support;

/// Every sequence of `n` faces of a `sides`-sided die, each with probability 1/sidesⁿ.
fn rolls(n: u32, sides: i64) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new()];
    for _ in 0..n {
        out = out
            .into_iter()
            .flat_map(|r| {
                (1..=sides).map(move |f| {
                    let mut r = r.clone();
                    r.push(f);
                    r
                })
            })
            .collect();
    }
    out
}

/// The distribution of `score` over every roll of `n` dice with `sides` sides.
fn enumerate(n: u32, sides: i64, score: impl Fn(&[i64]) -> i64) -> Fractions {
    let mut out = Fractions::new();
    let all = rolls(n, sides);
    let p = q(1, all.len() as i64);
    for roll in &all {
        *out.entry(q(score(roll), 1)).or_insert_with(Q::zero) += &p;
    }
    out
}

fn sum_over(roll: &[i64], keep: impl Fn(i64) -> bool) -> i64 {
    roll.iter().filter(|&&f| keep(f)).sum()
}

fn errors(dialect: &str, source: &str) -> Vec<&'static str> {
    match omen(dialect, source) {
        Ok(d) => panic!("{source} in {dialect} computes {d:?}"),
        Err(kinds) => kinds,
    }
}

fn reading(dialect: &str, source: &str) -> String {
    match compile(source, &options(dialect)) {
        Ok(checked) => checked.reading,
        Err(errors) => panic!("{source} in {dialect}: {errors:?}"),
    }
}

/// The roller, run along every sequence of dice, as exact fractions.
fn rolled_along_every_path(dialect: &str, source: &str) -> Fractions {
    let options = options(dialect);
    let program = support::program(source, &options);
    let sampled = support::brute_force(&program, &options.limits, 200_000).expect("small");
    sampled
        .into_iter()
        .map(|(v, p)| {
            let Value::Int(v) = v else { panic!("{v:?}") };
            let (n, d) = (
                BigInt::from(p.numer().clone()),
                BigInt::from(p.denom().clone()),
            );
            (q(v, 1), Q::new(n, d))
        })
        .collect()
}

#[test]
fn avrae_value_selectors_of_one_operation_unite_and_operations_apply_in_turn() {
    // d20 folds `k1k2k3` into one keep selecting 1, 2 or 3; the rest count 0.
    let want = enumerate(4, 6, |r| sum_over(r, |f| (1..=3).contains(&f)));
    assert_eq!(omen("avrae", "4d6k1k2k3"), Ok(want));
    let want = enumerate(3, 6, |r| sum_over(r, |f| f > 3));
    assert_eq!(omen("avrae", "3d6p1p2p3"), Ok(want));
    // `k>2` then `p5`: kept when above 2, then dropped when 5.
    let want = enumerate(4, 6, |r| sum_over(r, |f| f > 2 && f != 5));
    assert_eq!(omen("avrae", "4d6k>2p5"), Ok(want.clone()));
    assert_eq!(omen("avrae", "4d6p5k>2"), Ok(want));
    // `k1p1k1`: each operation applies to what is still kept, so nothing is left.
    assert_eq!(
        omen("avrae", "2d6k1p1k1"),
        Ok(BTreeMap::from([(q(0, 1), q(1, 1))]))
    );
    // On a set: `(1, 2, 3)k1p2` keeps the 1 (the 2 and 3 count 0).
    assert_eq!(
        omen("avrae", "(1, 2, 3)k1p2"),
        Ok(BTreeMap::from([(q(1, 1), q(1, 1))]))
    );
    // `(1d4, 3)k1k2p2`: the d4 counts when it shows 1; the 3 never counts.
    let want = BTreeMap::from([(q(0, 1), q(3, 4)), (q(1, 1), q(1, 4))]);
    assert_eq!(omen("avrae", "(1d4, 3)k1k2p2"), Ok(want));
    assert_eq!(
        omen("avrae", "(1, 2, 3, 4)k1k2k3k4"),
        Ok(BTreeMap::from([(q(10, 1), q(1, 1))]))
    );
}

#[test]
fn avrae_rank_selectors_of_one_operation_unite() {
    let sorted = |r: &[i64]| {
        let mut s = r.to_vec();
        s.sort_unstable();
        s
    };
    // `pl1ph1`: one drop selecting the lowest and the highest die (of equal dice, one die to both).
    let middle = enumerate(4, 6, |r| r.iter().sum::<i64>() - ends(r, 1, 1));
    assert_eq!(omen("avrae", "4d6pl1ph1"), Ok(middle.clone()));
    assert_eq!(omen("avrae", "4d6ph1pl1"), Ok(middle.clone()));
    assert_eq!(reading("avrae", "4d6pl1ph1"), "4d6d{h1, l1}");
    assert_eq!(rolled_along_every_path("avrae", "4d6pl1ph1"), middle);
    // `kh1kh2` selects the highest 2 twice over; `pl1pl2` the lowest 2.
    let top_two = enumerate(4, 6, |r| sorted(r)[2..].iter().sum());
    assert_eq!(omen("avrae", "4d6kh1kh2"), Ok(top_two.clone()));
    assert_eq!(omen("avrae", "4d6pl1pl2"), Ok(top_two.clone()));
    // Different operations apply in turn: keep the highest 3, then drop the lowest of those.
    assert_eq!(omen("avrae", "4d6kh3pl1"), Ok(top_two));
    // Both ends of two dice: both dice, unless they tie (then one).
    assert_eq!(
        omen("avrae", "2d6kh1kl1"),
        Ok(enumerate(2, 6, |r| ends(r, 1, 1)))
    );
}

#[test]
fn avrae_rerolls_by_rank_give_d20s_meaning() {
    // `4d6rol1`: the lowest die is rolled again once, the new roll replacing it.
    let want = enumerate(5, 6, |r| {
        let mut first = r[..4].to_vec();
        first.sort_unstable();
        first[1..].iter().sum::<i64>() + r[4]
    });
    assert_eq!(omen("avrae", "4d6rol1"), Ok(want.clone()));
    assert_eq!(reading("avrae", "4d6rol1"), "(4d6kh3) + (1d6)");
    assert_eq!(rolled_along_every_path("avrae", "4d6rol1"), want);
    // `3d6roh2`: the highest two are rolled again.
    let want = enumerate(5, 6, |r| {
        let mut first = r[..3].to_vec();
        first.sort_unstable();
        first[0] + r[3] + r[4]
    });
    assert_eq!(omen("avrae", "3d6roh2"), Ok(want));
    // Picking more dice than there are rerolls them all; picking none changes nothing.
    let all = enumerate(2, 6, |r| r.iter().sum());
    assert_eq!(omen("avrae", "2d6rol3"), Ok(all.clone()));
    assert_eq!(omen("avrae", "2d6roh0"), Ok(all.clone()));
    // `ral1`, `rah1`: one more die rolled beside the picked one.
    assert_eq!(omen("avrae", "1d6ral1"), Ok(all.clone()));
    assert_eq!(omen("avrae", "d6rah1"), Ok(all));
    assert_eq!(
        omen("avrae", "2d4rah1"),
        Ok(enumerate(3, 4, |r| r.iter().sum()))
    );
    // `rrl1` never ends in d20: the lowest die is picked again after every reroll.
    assert!(errors("avrae", "4d6rrl1").contains(&"unsupported-modifier"));
    assert!(errors("avrae", "4d6rrh1").contains(&"unsupported-modifier"));
    // With other operations on the term they run in turn (dialect_in_turn.rs); with a rolled count,
    // refused rather than misread.
    assert_eq!(reading("avrae", "4d6mi2rol1"), "avrae(\"4d6mi2rol1\")");
    assert!(errors("avrae", "(1d4)d6rol1").contains(&"unsupported-modifier"));
    assert!(errors("avrae", "(1, 2)rol1").contains(&"unsupported-modifier"));
}

#[test]
fn avrae_reroll_and_add_adds_at_most_one_die_to_the_roll() {
    // On one die `ra6` is one explosion at most.
    let want = enumerate(2, 6, |r| r[0] + if r[0] == 6 { r[1] } else { 0 });
    assert_eq!(omen("avrae", "1d6ra6"), Ok(want));
    // On several dice only the first die meeting it rolls one more: see dialect_more_constructs.rs.
}

#[test]
fn avrae_reroll_of_the_one_die_kept_applies_after_the_keep() {
    // `2d20kh1ro1` (advantage, a 1 rerolled once): the higher die, rolled again when it shows 1.
    let want = enumerate(3, 20, |r| {
        let kept = r[0].max(r[1]);
        if kept == 1 { r[2] } else { kept }
    });
    assert_eq!(omen("avrae", "2d20kh1ro1"), Ok(want.clone()));
    assert_eq!(rolled_along_every_path("avrae", "2d20kh1ro1"), want);
    assert_eq!(
        reading("avrae", "2d20kh1ro1"),
        "let kept_0 = (2d20kh1) in (if (kept_0 = 1) then (1d20) else kept_0)"
    );
    // `3d6kh1ra6`: one more die when the highest shows 6.
    let want = enumerate(4, 6, |r| {
        let kept = r[..3].iter().copied().max().unwrap_or(0);
        if kept == 6 { kept + r[3] } else { kept }
    });
    assert_eq!(omen("avrae", "3d6kh1ra6"), Ok(want));
    // `2d6kl1rr<3`: the lower die, rerolled until it shows 3 or more.
    let mut want = Fractions::new();
    for r in rolls(2, 6) {
        let kept = r[0].min(r[1]);
        if kept < 3 {
            for face in 3..=6 {
                *want.entry(q(face, 1)).or_insert_with(Q::zero) += q(1, 36 * 4);
            }
        } else {
            *want.entry(q(kept, 1)).or_insert_with(Q::zero) += q(1, 36);
        }
    }
    assert_eq!(omen("avrae", "2d6kl1rr<3"), Ok(want));
}

#[test]
fn avrae_rerolls_after_a_keep_with_more_operations_or_rolled_sides_are_refused() {
    // One step after a keep, or a reroll then an explosion, is read (dialect_kept_steps.rs); more
    // run in turn (dialect_in_turn.rs); rolled sides are not read.
    assert_eq!(reading("avrae", "4d6kh3e6ro1"), "avrae(\"4d6kh3e6ro1\")");
    assert!(errors("avrae", "2d(1d6+4)kh1ro1").contains(&"unsupported-modifier"));
    assert!(errors("avrae", "4d(1d6+4)pl1e6").contains(&"unsupported-modifier"));
    // Before the keep they are Omen's order; a clamp after it gives the same total either way.
    let clamp_then_keep = enumerate(4, 6, |r| {
        let mut s: Vec<i64> = r.iter().map(|f| (*f).max(2)).collect();
        s.sort_unstable();
        s[1..].iter().sum()
    });
    assert_eq!(omen("avrae", "4d6kh3mi2"), Ok(clamp_then_keep));
}

#[test]
fn roll20_inline_roll_with_dice_as_a_compare_point_is_rolled_once_before_the_dice() {
    // `3d6>[[1d4+2]]`: a target 3 to 6 rolled first; each die at or above it is a success.
    let mut want = Fractions::new();
    for roll in rolls(4, 6).into_iter().filter(|r| r[0] <= 4) {
        let target = roll[0] + 2;
        let successes = roll[1..].iter().filter(|&&f| f >= target).count() as i64;
        *want.entry(q(successes, 1)).or_insert_with(Q::zero) += q(1, 4 * 216);
    }
    assert_eq!(omen("roll20", "3d6>[[1d4+2]]"), Ok(want.clone()));
    assert_eq!(rolled_along_every_path("roll20", "3d6>[[1d4+2]]"), want);
    assert_eq!(
        reading("roll20", "3d6>[[1d4+2]]"),
        "let inline_4 = ((1d4) + 2) in (3d6>=inline_4)"
    );
    let checked = compile("3d6>[[1d4+2]]", &options("roll20")).expect("compiles");
    assert!(
        checked
            .warnings
            .iter()
            .any(|w| w.kind == "inline-point-rolled-once"),
        "{:?}",
        checked.warnings
    );
    // Two rolled points on one term, each rolled once: successes at or above the first, minus
    // failures at or below the second.
    let mut want = Fractions::new();
    for roll in rolls(4, 6).into_iter().filter(|r| r[0] <= 4 && r[1] <= 2) {
        let (high, low) = (roll[0] + 2, roll[1]);
        let score: i64 = roll[2..]
            .iter()
            .map(|&f| i64::from(f >= high) - i64::from(f <= low))
            .sum();
        *want.entry(q(score, 1)).or_insert_with(Q::zero) += q(1, 4 * 2 * 36);
    }
    assert_eq!(omen("roll20", "2d6>[[1d4+2]]f<[[1d2]]"), Ok(want));
    // Numbers alone stay a number.
    assert_eq!(reading("roll20", "3d6>[[1+3]]"), "3d6>=4");
}

/// d20's `kh{highest}kl{lowest}`: each selector takes dice in order of value, the earlier of equal
/// dice first (Python's stable sort, reversed or not), and the dice either takes are kept (a set of
/// dice, so one taken twice counts once). The sum of the dice taken.
fn ends(roll: &[i64], highest: usize, lowest: usize) -> i64 {
    let mut high: Vec<usize> = (0..roll.len()).collect();
    high.sort_by(|&a, &b| roll[b].cmp(&roll[a]));
    let mut low: Vec<usize> = (0..roll.len()).collect();
    low.sort_by_key(|&i| roll[i]);
    let taken: std::collections::BTreeSet<usize> = high
        .into_iter()
        .take(highest)
        .chain(low.into_iter().take(lowest))
        .collect();
    taken.iter().map(|&i| roll[i]).sum()
}

#[test]
fn avrae_keep_of_both_ends_keeps_the_highest_and_the_lowest_together() {
    // `4d6kh1kl1`: d20 keeps what either selector selects, the highest die and the lowest; four
    // equal dice are one die to both (d20 keeps one 3 of four 3s).
    let want = enumerate(4, 6, |r| ends(r, 1, 1));
    assert_eq!(want[&q(1, 1)], q(1, 1296));
    assert_eq!(omen("avrae", "4d6kh1kl1"), Ok(want.clone()));
    assert_eq!(reading("avrae", "4d6kh1kl1"), "4d6k{h1, l1}");
    assert_eq!(omen("omen", "4d6k{h1, l1}"), Ok(want.clone()));
    assert_eq!(rolled_along_every_path("omen", "4d6k{h1, l1}"), want);
    // The highest 2 and the lowest 1 of 5; two and two of 4d4.
    assert_eq!(
        omen("avrae", "5d6kh2kl1"),
        Ok(enumerate(5, 6, |r| ends(r, 2, 1)))
    );
    assert_eq!(
        omen("avrae", "4d4kh2kl2"),
        Ok(enumerate(4, 4, |r| ends(r, 2, 2)))
    );
    let checked = compile("4d6k{h1, l1}", &options("omen")).expect("compiles");
    assert!(checked.warnings.iter().any(|w| w.kind == "keep-ends-ties"));
    // Ends that may cover every die still pick by value (three 2s keep two of them).
    assert_eq!(
        omen("omen", "3d6k{l2, h1}"),
        Ok(enumerate(3, 6, |r| ends(r, 1, 2)))
    );
    // Rerolls run before the keep: the roller and the exact engine agree.
    let exact = omen("omen", "3d4ro1k{h1, l1}").expect("computes");
    assert_eq!(rolled_along_every_path("omen", "3d4ro1k{h1, l1}"), exact);
    // With an explosion, another keep or counting, or on a group, not computed yet (Avrae's sets:
    // dialect_more_constructs.rs).
    for (dialect, source) in [
        ("omen", "4d6k{h1, l1}!"),
        ("omen", "4d6k{h1, l1}>=4"),
        ("omen", "4d6kh3k{h1, l1}"),
        ("omen", "{1d6, 2, 3}k{h1, l1}"),
    ] {
        assert!(
            errors(dialect, source).contains(&"unsupported-modifier"),
            "{dialect} {source}"
        );
    }
    assert!(errors("omen", "4d6k{h1}").contains(&"bad-keep-ends"));
    assert!(errors("omen", "4d6k{h1, h2}").contains(&"bad-keep-ends"));
}

#[test]
fn dice_maiden_advantage_drops_first_then_explodes_or_rerolls_the_die_kept() {
    // `1d20 adv1 r1`: the higher of two d20s, rolled again once when it shows 1.
    let want = enumerate(3, 20, |r| {
        let kept = r[0].max(r[1]);
        if kept <= 1 { r[2] } else { kept }
    });
    assert_eq!(omen("dice-maiden", "1d20 adv1 r1"), Ok(want));
    // `1d6 dis1 e`: the lower of two d6s, one more die added when it shows 6 (both showed 6).
    let want = enumerate(3, 6, |r| {
        let kept = r[0].min(r[1]);
        if kept == 6 { kept + r[2] } else { kept }
    });
    assert_eq!(omen("dice-maiden", "1d6 dis1 e"), Ok(want.clone()));
    assert_eq!(rolled_along_every_path("dice-maiden", "1d6 dis1 e"), want);
    // `1d6 adv1 ir2`: kept at 2 or less, it is replaced by a die rolled until it shows 3 or more.
    let mut want = Fractions::new();
    for r in rolls(2, 6) {
        let kept = r[0].max(r[1]);
        if kept <= 2 {
            for face in 3..=6 {
                *want.entry(q(face, 1)).or_insert_with(Q::zero) += q(1, 36 * 4);
            }
        } else {
            *want.entry(q(kept, 1)).or_insert_with(Q::zero) += q(1, 36);
        }
    }
    assert_eq!(omen("dice-maiden", "1d6 adv1 ir2"), Ok(want));
    // Exploding again and again: the roller and the exact engine agree.
    let exact = omen("dice-maiden", "1d4 adv1 ie").expect("computes");
    assert_eq!(rolled_along_every_path("dice-maiden", "1d4 adv1 ie"), exact);
    assert_eq!(
        reading("dice-maiden", "1d6 adv1 ie"),
        "let kept_0 = (2d6dl1) in (if (kept_0 >= 6) then (kept_0 + (1d6!)) else kept_0)"
    );
    // Several steps: still refused (several dice kept with one step: dialect_kept_steps.rs).
    assert!(errors("dice-maiden", "1d6 adv1 ie r1").contains(&"unsupported-modifier"));
}

#[test]
fn keeping_both_ends_of_a_huge_pool_is_refused_before_the_work() {
    let started = std::time::Instant::now();
    for source in ["1000d100k{h50, l50}", "5000d1000d{h1, l1}"] {
        let kinds = errors("omen", source);
        assert!(
            kinds
                .iter()
                .any(|k| ["work-budget", "too-many-states", "too-many-outcomes"].contains(k)),
            "{source}: {kinds:?}"
        );
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

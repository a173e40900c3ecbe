use super::*;
use crate::dice::ChainElement;
use crate::distribution::Probability;

fn brute_keep(sides: i64, n: usize, keep: Keep) -> Distribution<i64> {
    let mut pairs = Vec::new();
    let count = (sides as usize).pow(n as u32);
    for mut code in 0..count {
        let dice: Vec<i64> = (0..n)
            .map(|_| {
                let f = (code % sides as usize) as i64 + 1;
                code /= sides as usize;
                f
            })
            .collect();
        // The kept dice as the sampler picks them.
        let mask = crate::spec::select_kept(&dice, keep);
        let kept: i64 = dice.iter().zip(&mask).filter(|p| *p.1).map(|p| p.0).sum();
        pairs.push((kept, Weight::one()));
    }
    Distribution::from_weights(pairs).unwrap()
}

/// A die whose faces' weights each fit 64 bits while their sum does not (a deep explosion's), kept
/// highest or lowest of one or two: the sums in machine integers must not overflow (they panicked
/// in a debug build, and wrapped in a release build, on `{d10!>1}kh1`).
#[test]
fn extreme_of_weights_summing_past_64_bits() {
    let limits = Limits::default();
    let die =
        Distribution::from_weights([(1, 3u32), (2, 3), (5, 3)].map(|(o, w)| (o, Weight::from(w))))
            .unwrap();
    let wide =
        Distribution::from_weights(die.entries().iter().map(|(o, w)| (*o, w << 62))).unwrap();
    for n in [1, 2] {
        for highest in [true, false] {
            let mut budget = limits.budget();
            let small = extreme_of(&die, n, highest, &|x| x, &mut budget).unwrap();
            let wide = extreme_of(&wide, n, highest, &|x| x, &mut budget).unwrap();
            assert_eq!(small, wide, "{n} dice, highest {highest}");
        }
    }
}

/// The highest or lowest of n dice in machine integers and in fixed-width limbs (powers of odd
/// parts, shifted) against brute force on small pools and against the big-integer powers (the
/// same die with its weights scaled past a limb) on big ones, with a score that reorders.
#[test]
fn extreme_of_small_totals_matches_brute_force_and_big_weights() {
    let limits = Limits::default();
    let uneven = Distribution::from_weights(
        [(1, 3u32), (2, 1), (4, 4), (9, 1), (10, 5), (12, 2)].map(|(o, w)| (o, Weight::from(w))),
    )
    .unwrap();
    let scaled = |d: &Distribution<i64>| {
        Distribution::from_weights(d.entries().iter().map(|(o, w)| (*o, w << 70))).unwrap()
    };
    let score = |x: i64| (x % 4) * 10 - x;
    for die in [
        Distribution::die(20).unwrap(),
        uneven,
        Distribution::die(6).unwrap(),
    ] {
        for n in [1, 2, 3, 5, 29, 30, 41, 64, 200, 1000] {
            for highest in [true, false] {
                let mut budget = limits.budget();
                let fast = extreme_of(&die, n, highest, &|x| x, &mut budget).unwrap();
                assert_eq!(fast.total(), &num_traits::pow(die.total().clone(), n));
                let big = extreme_of(&scaled(&die), n, highest, &|x| x, &mut budget).unwrap();
                assert_eq!(fast, big, "{n} dice, highest {highest}");
                let scored = extreme_of(&die, n, highest, &score, &mut budget).unwrap();
                let expected = big.map(|&x| score(x));
                assert_eq!(scored, expected, "{n} dice, highest {highest}, scored");
            }
        }
    }
    for n in 1..=5 {
        for (highest, keep) in [(true, Keep::Highest(1)), (false, Keep::Lowest(1))] {
            let die = Distribution::die(6).unwrap();
            let fast = extreme_of(&die, n, highest, &|x| x, &mut limits.budget()).unwrap();
            assert_eq!(fast, brute_keep(6, n, keep), "{n}d6 {keep:?}");
        }
    }
}

/// Middle runs (`km`, `kh3dh1`, `dl1dh1`) against every sequence of small pools, including
/// pools too small for the run and a score that reorders nothing but shifts values.
#[test]
fn middle_runs_match_brute_force() {
    let limits = Limits::default();
    for sides in [1, 2, 3, 5] {
        for n in 0..=5 {
            for a in 0..=4 {
                for b in 0..=3 {
                    for keep in [
                        Keep::Middle(a),
                        Keep::Slice {
                            from_highest: true,
                            skip: b,
                            take: a,
                        },
                        Keep::Slice {
                            from_highest: false,
                            skip: b,
                            take: a,
                        },
                        Keep::DropBoth {
                            lowest: a,
                            highest: b,
                        },
                    ] {
                        let die = Distribution::uniform(1..=sides).unwrap();
                        let fast =
                            keep_sum(&die, n, keep, &|x| x, &limits, &mut limits.budget()).unwrap();
                        assert_eq!(fast, brute_keep(sides, n, keep), "{n}d{sides} {keep:?}");
                    }
                }
            }
        }
    }
}

/// Dice Maiden's rule: of the dice left out, the odd one is a highest die. 3 dice keep the middle
/// 2 by dropping the highest: on 3d2 the sums are those of the lowest two.
#[test]
fn keep_middle_drops_the_odd_die_from_the_top() {
    let limits = Limits::default();
    let die = Distribution::uniform(1..=2).unwrap();
    let middle = keep_sum(
        &die,
        3,
        Keep::Middle(2),
        &|x| x,
        &limits,
        &mut limits.budget(),
    );
    let lowest = keep_sum(
        &die,
        3,
        Keep::Lowest(2),
        &|x| x,
        &limits,
        &mut limits.budget(),
    );
    assert_eq!(middle.unwrap(), lowest.unwrap());
    assert_eq!(Keep::Middle(2).run(5), (1, 2));
    assert_eq!(Keep::Middle(1).run(4), (1, 1));
}

/// Keeping or dropping `k` dice from either end: the keeps the one-sided walks take.
fn one_sided(k: usize) -> [Keep; 4] {
    [
        Keep::Highest(k),
        Keep::Lowest(k),
        Keep::DropHighest(k),
        Keep::DropLowest(k),
    ]
}

#[test]
fn keep_matches_brute_force() {
    let limits = Limits::default();
    for sides in [1, 2, 4, 6] {
        for n in 0..=4 {
            for k in 0..=5 {
                for keep in one_sided(k) {
                    let die = Distribution::die(sides).unwrap();
                    let got =
                        keep_sum(&die, n, keep, &|x| x, &limits, &mut limits.budget()).unwrap();
                    assert_eq!(got, brute_keep(sides, n, keep), "{n}d{sides} {keep:?}");
                    let units = vec![Unit::single(&die); n];
                    let seq =
                        sequential_keep_sum(&units, keep, &|x| x, &limits, &mut limits.budget())
                            .unwrap();
                    assert_eq!(seq, got, "sequential {n}d{sides} {keep:?}");
                }
            }
        }
    }
}

/// The walk from the dropped end against brute force and the walk from the kept end, for sums
/// and for counts (a score that is not monotonic in the face).
#[test]
fn drop_walk_matches_brute_force_and_the_keep_walk() {
    let limits = Limits::default();
    for sides in [1, 2, 3, 5] {
        // Shared by every walk over this die with the identity score, as pools share it.
        let mut shared = SumsBeyond::default();
        for n in 1..=5 {
            for d in 1..n {
                for from_lowest in [true, false] {
                    let die = Distribution::die(sides).unwrap();
                    let keep = if from_lowest {
                        Keep::DropLowest(d)
                    } else {
                        Keep::DropHighest(d)
                    };
                    let walked = drop_walk(
                        &die,
                        n,
                        d,
                        from_lowest,
                        &|x| x,
                        &limits,
                        &mut limits.budget(),
                        &mut shared,
                    )
                    .unwrap();
                    assert_eq!(walked, brute_keep(sides, n, keep), "{n}d{sides} {keep:?}");
                    let count = |x: i64| i64::from(x == 2) - i64::from(x == sides);
                    let walked = drop_walk(
                        &die,
                        n,
                        d,
                        from_lowest,
                        &count,
                        &limits,
                        &mut limits.budget(),
                        &mut SumsBeyond::default(),
                    )
                    .unwrap();
                    let units = vec![Unit::single(&die); n];
                    let seq =
                        sequential_keep_sum(&units, keep, &count, &limits, &mut limits.budget())
                            .unwrap();
                    assert_eq!(walked, seq, "counted {n}d{sides} {keep:?}");
                }
            }
        }
    }
    // Uneven weights.
    let die = Distribution::from_weights([
        (1, Weight::from(3u32)),
        (4, Weight::from(1u32)),
        (6, Weight::from(2u32)),
    ])
    .unwrap();
    for d in 1..4 {
        let walked = drop_walk(
            &die,
            4,
            d,
            true,
            &|x| x,
            &limits,
            &mut limits.budget(),
            &mut SumsBeyond::default(),
        )
        .unwrap();
        let units = vec![Unit::single(&die); 4];
        let seq = sequential_keep_sum(
            &units,
            Keep::DropLowest(d),
            &|x| x,
            &limits,
            &mut limits.budget(),
        )
        .unwrap();
        assert_eq!(walked, seq);
    }
}

/// `9d20!>=18dl9<=19` in small: exploding dice whose pools drop a few of many rolls, counted
/// (the walk from the dropped end, its sums shared between pools), against the sequential
/// program that adds one roll at a time.
/// An exploding pool's keep or drop by the fast walk and by the sequential program, with the
/// default limits.
fn fast_and_sequential(
    element: &ChainElement,
    n: usize,
    depth: u64,
    keep: Keep,
    score: &dyn Fn(i64) -> i64,
) -> (Distribution<i64>, Distribution<i64>) {
    let limits = Limits::default();
    let fast = exploding_keep_sum(
        element,
        n,
        depth,
        keep,
        score,
        &limits,
        &mut limits.budget(),
    )
    .unwrap()
    .expect("a pool of both kinds of rolls");
    let unit = Unit {
        element: element.clone(),
        depth,
    };
    let slow =
        sequential_keep_sum(&vec![unit; n], keep, score, &limits, &mut limits.budget()).unwrap();
    (fast, slow)
}

#[test]
fn exploding_pools_dropping_a_few_of_many_match_the_sequential_program() {
    use crate::dice::{Compare, Condition};
    let element = Distribution::die(10)
        .unwrap()
        .map(|&x| (Condition::new(Compare::Ge, 8).holds(x), x));
    for (n, depth, drop) in [(6, 3, 4), (5, 4, 2), (4, 3, 3)] {
        for counting in [true, false] {
            let score = |x: i64| if counting { i64::from(x <= 9) } else { x };
            for keep in [Keep::DropLowest(drop), Keep::DropHighest(drop)] {
                let (fast, slow) = fast_and_sequential(&element, n, depth, keep, &score);
                assert_eq!(fast, slow, "{n}d10!>=8 depth {depth} {keep:?} {counting}");
            }
        }
    }
}

#[test]
fn exploding_pools_match_the_sequential_program() {
    use crate::dice::{Compare, Condition};
    // (sides, explode condition): on the top face, on the top two, on the bottom face.
    let cases = [
        (2, Condition::new(Compare::Eq, 2)),
        (4, Condition::new(Compare::Ge, 3)),
        (6, Condition::new(Compare::Eq, 6)),
        (4, Condition::new(Compare::Le, 1)),
    ];
    for (sides, condition) in cases {
        let element = Distribution::die(sides)
            .unwrap()
            .map(|&x| (condition.holds(x), x));
        every_keep_matches_the_sequential_program(&element, &format!("d{sides}! {condition:?}"));
    }
}

/// The fast walk against the sequential program for 0 to 3 dice of `element`, depths 0 to 2,
/// every keep and drop of 0 to 4 dice, summed and counted (3 or more).
fn every_keep_matches_the_sequential_program(element: &ChainElement, name: &str) {
    for depth in 0..=2 {
        for n in 0..=3 {
            for k in 0..=4 {
                for keep in one_sided(k) {
                    for counting in [false, true] {
                        let score = |x: i64| if counting { i64::from(x >= 3) } else { x };
                        let (fast, slow) = fast_and_sequential(element, n, depth, keep, &score);
                        assert_eq!(
                            fast, slow,
                            "{n} of {name} depth {depth} {keep:?} {counting}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn interleaved_exploding_pools_match_the_sequential_program() {
    // Exploding faces on both sides of stopping ones, or a value that explodes or not depending on
    // a step after the explosion: the two-kind walk against the program that adds one roll at a
    // time.
    let die = |sides: i64, explodes: &dyn Fn(i64) -> bool| {
        Distribution::die(sides).unwrap().map(|&x| (explodes(x), x))
    };
    let both_ways: ChainElement = Distribution::from_weights([
        ((false, 1), Weight::from(2u32)),
        ((true, 2), Weight::from(1u32)),
        ((false, 2), Weight::from(1u32)),
        ((true, 3), Weight::from(1u32)),
        ((false, 4), Weight::from(3u32)),
    ])
    .unwrap();
    let cases = [
        ("d6!=3", die(6, &|x| x == 3)),
        ("d4!=1,4", die(4, &|x| x == 1 || x == 4)),
        ("d6!=2,5", die(6, &|x| x == 2 || x == 5)),
        ("d5!!=3", die(5, &|x| x != 3)),
        ("both ways", both_ways),
    ];
    for (name, element) in &cases {
        every_keep_matches_the_sequential_program(element, name);
    }
}

#[test]
fn interleaved_exploding_pool_counts_every_roll_exactly() {
    // Two d4 exploding on 1 and 4, at most one extra roll each, keep the highest: by hand, over
    // every sequence of rolls. A chain is one stopping roll (2 or 3), or an exploding roll and
    // any second roll (which counts as rolled when it would explode again).
    let element = Distribution::die(4)
        .unwrap()
        .map(|&x| (x == 1 || x == 4, x));
    let chains: Vec<(Vec<i64>, u32)> = {
        let mut c = Vec::new();
        for first in 1..=4i64 {
            if first == 1 || first == 4 {
                for second in 1..=4 {
                    c.push((vec![first, second], 1));
                }
            } else {
                c.push((vec![first], 4));
            }
        }
        c
    };
    let mut expected: HashMap<i64, Weight> = HashMap::new();
    for (a, wa) in &chains {
        for (b, wb) in &chains {
            let best = a.iter().chain(b).max().copied().unwrap();
            *expected.entry(best).or_default() += Weight::from(wa * wb);
        }
    }
    let expected = Distribution::from_weights(expected).unwrap();
    let limits = Limits::default();
    let fast = exploding_keep_sum(
        &element,
        2,
        1,
        Keep::Highest(1),
        &|x| x,
        &limits,
        &mut limits.budget(),
    )
    .unwrap()
    .expect("every kind of explosion");
    assert_eq!(fast, expected);
}

#[test]
fn highest_of_two_d6_keep_lower_is_seed_000_zero_pool() {
    let limits = Limits::default();
    let die = Distribution::die(6).unwrap();
    let low = keep_sum(
        &die,
        2,
        Keep::Lowest(1),
        &|x| x,
        &limits,
        &mut limits.budget(),
    )
    .unwrap();
    // P(lower of 2d6 ≥ 2) = 25/36 (seed 000 Appendix A, 0d vs 2: 69.44 %).
    assert_eq!(
        low.probability_where(|&x| x >= 2),
        Probability::new(25u32.into(), 36u32.into())
    );
}

#[test]
fn a_hundred_d20_keep_fifty_is_quick_and_whole() {
    let limits = Limits::default();
    let die = Distribution::die(20).unwrap();
    let d = keep_sum(
        &die,
        100,
        Keep::Highest(50),
        &|x| x,
        &limits,
        &mut limits.budget(),
    )
    .unwrap();
    assert_eq!(d.total(), &num_traits::pow(Weight::from(20u32), 100));
    assert_eq!(*d.min_outcome(), 50);
    assert_eq!(*d.max_outcome(), 1000);
}

#[test]
fn over_budget_pool_is_refused_before_work() {
    let limits = Limits {
        work_budget: 1000,
        ..Limits::default()
    };
    let die = Distribution::die(20).unwrap();
    let r = keep_sum(
        &die,
        100,
        Keep::Highest(50),
        &|x| x,
        &limits,
        &mut limits.budget(),
    );
    assert!(matches!(r, Err(CoreError::WorkBudget { .. })));
}

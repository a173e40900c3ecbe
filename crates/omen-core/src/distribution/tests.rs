#[test]
fn a_huge_ratio_over_a_small_denominator_is_finite_not_infinity() {
    use num_bigint::BigInt;
    use num_rational::Ratio;
    // 35·10²⁰/12, the variance of 1d6*10000000000.
    let variance = Ratio::new(
        BigInt::from(35) * BigInt::from(10).pow(20),
        BigInt::from(12),
    );
    let value = super::ratio_to_f64(&variance);
    assert!(
        (value / 2.916_666_666_666_666_5e20 - 1.0).abs() < 1e-15,
        "{value}"
    );
    // Both sides huge and alike: 3^1000 / 3^999 = 3.
    let three = Ratio::new_raw(BigInt::from(3).pow(1000), BigInt::from(3).pow(999));
    assert!((super::ratio_to_f64(&three) - 3.0).abs() < 1e-12);
    // Beyond f64 it is infinity, below it zero, with the sign kept.
    let beyond = Ratio::new(-BigInt::from(10).pow(400), BigInt::from(3));
    assert_eq!(super::ratio_to_f64(&beyond), f64::NEG_INFINITY);
    let below = Ratio::new(BigInt::from(1), BigInt::from(10).pow(400));
    assert_eq!(super::ratio_to_f64(&below), 0.0);
    assert_eq!(
        super::ratio_to_f64(&Ratio::from_integer(BigInt::from(-7))),
        -7.0
    );
}

use super::*;

fn d(sides: i64) -> Distribution<i64> {
    Distribution::die(sides).unwrap()
}

/// The pairwise sum, for checking the Kronecker substitution against.
fn schoolbook_sum(a: &Distribution<i64>, b: &Distribution<i64>) -> BTreeMap<i64, Weight> {
    let mut sum = BTreeMap::new();
    for (x, wx) in &a.entries {
        for (y, wy) in &b.entries {
            *sum.entry(x + y).or_insert_with(Weight::zero) += wx * wy;
        }
    }
    sum
}

#[test]
fn kronecker_sums_equal_pairwise_sums_with_gaps_and_big_weights() {
    let limits = Limits::default();
    let big = d(6).sum_of(90, &limits, &mut limits.budget()).unwrap();
    // Gaps between outcomes, weights from 1 to 2^200, negative outcomes.
    let gappy = Distribution::from_weights(
        (0..80).map(|i| (3 * i - 100, Weight::from(1u32) << (i * 5 % 201) as usize)),
    )
    .unwrap();
    let shifted = d(20).map(|x| x * 7);
    for (a, b) in [
        (&big, &big),
        (&big, &gappy),
        (&gappy, &shifted),
        (&shifted, &big),
    ] {
        let span =
            (a.max_outcome() + b.max_outcome() - a.min_outcome() - b.min_outcome() + 1) as usize;
        let total = &a.total * &b.total;
        let weights = kronecker_sum(a, b, span, &total);
        let low = a.min_outcome() + b.min_outcome();
        let kronecker: BTreeMap<i64, Weight> = weights
            .into_iter()
            .enumerate()
            .filter(|(_, w)| !w.is_zero())
            .map(|(i, w)| (low + i as i64, w))
            .collect();
        assert_eq!(kronecker, schoolbook_sum(a, b));
        // And through `add`, whichever way it goes.
        let sum = a.add(b, &limits, &mut limits.budget()).unwrap();
        assert_eq!(
            sum.entries.iter().cloned().collect::<BTreeMap<_, _>>(),
            kronecker
        );
        assert_eq!(sum.total(), &total);
    }
}

#[test]
fn two_d6_sum_has_the_triangle_shape() {
    let limits = Limits::default();
    let s = d(6).sum_of(2, &limits, &mut limits.budget()).unwrap();
    assert_eq!(s.total(), &Weight::from(36u32));
    let weights: Vec<u32> = s
        .entries()
        .iter()
        .map(|(_, w)| w.to_u32().unwrap())
        .collect();
    assert_eq!(weights, vec![1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]);
}

#[test]
fn sum_by_squaring_matches_one_at_a_time() {
    let limits = Limits::default();
    let big = Distribution::from_weights((0..70).map(|i| (i, Weight::from(i as u32 + 1)))).unwrap();
    let by_squaring = big.sum_of(5, &limits, &mut limits.budget()).unwrap();
    let mut one_at_a_time = big.clone();
    for _ in 1..5 {
        one_at_a_time = one_at_a_time
            .add(&big, &limits, &mut limits.budget())
            .unwrap();
    }
    assert_eq!(by_squaring, one_at_a_time);
}

#[test]
fn six_to_the_thousand_is_representable() {
    let limits = Limits::default();
    let s = d(6).sum_of(1000, &limits, &mut limits.budget()).unwrap();
    assert_eq!(s.total(), &num_traits::pow(Weight::from(6u32), 1000));
    assert_eq!(s.weight(&1000), Weight::one());
    assert_eq!(s.len(), 5001);
}

#[test]
fn recurrence_matches_convolution_for_odd_weights() {
    let limits = Limits::default();
    let die = Distribution::from_weights([
        (-2, Weight::from(3u32)),
        (0, Weight::from(1u32)),
        (1, Weight::from(5u32)),
        (4, Weight::from(2u32)),
    ])
    .unwrap();
    let by_recurrence = die.sum_of(7, &limits, &mut limits.budget()).unwrap();
    let mut by_convolution = die.clone();
    for _ in 1..7 {
        by_convolution = by_convolution
            .add(&die, &limits, &mut limits.budget())
            .unwrap();
    }
    assert_eq!(by_recurrence, by_convolution);
    assert_eq!(by_recurrence.total(), by_convolution.total());
}

/// The same probabilities with every weight times 2^shift: big enough a shift takes the totals
/// past a u128 and the arithmetic onto its big-integer paths.
fn scaled(die: &Distribution<i64>, shift: usize) -> Distribution<i64> {
    Distribution::from_weights(die.entries.iter().map(|(o, w)| (*o, w << shift))).unwrap()
}

/// Every sequence of n rolls, summed.
fn brute_sum(die: &Distribution<i64>, n: usize) -> Distribution<i64> {
    let mut sums = vec![(0i64, Weight::one())];
    for _ in 0..n {
        sums = sums
            .iter()
            .flat_map(|(s, w)| die.entries.iter().map(move |(o, wo)| (s + o, w * wo)))
            .collect();
    }
    Distribution::from_weights(sums).unwrap()
}

#[test]
fn machine_integer_sums_match_brute_force_and_the_big_integer_paths() {
    let limits = Limits::default();
    let odd = Distribution::from_weights([
        (-2, Weight::from(3u32)),
        (0, Weight::from(1u32)),
        (1, Weight::from(5u32)),
        (4, Weight::from(2u32)),
    ])
    .unwrap();
    let gappy =
        Distribution::from_weights([(-7, Weight::one()), (30, Weight::from(4u32))]).unwrap();
    for die in [d(6), d(20), odd, gappy, Distribution::constant(3)] {
        for n in 1..=12 {
            let small = die.sum_of(n, &limits, &mut limits.budget()).unwrap();
            assert_eq!(small.total(), &num_traits::pow(die.total.clone(), n));
            // Past a u128 by the recurrence (weights of a limb) and by squaring (wider ones).
            for shift in [40, 130] {
                let big = scaled(&die, shift)
                    .sum_of(n, &limits, &mut limits.budget())
                    .unwrap();
                assert_eq!(small, big, "{n} dice, weights shifted by {shift}");
            }
            if n <= 4 {
                assert_eq!(small, brute_sum(&die, n), "{n} dice");
            }
        }
        for other in [d(6), d(3).map(|x| -5 * x)] {
            let small = die.add(&other, &limits, &mut limits.budget()).unwrap();
            assert_eq!(small.total(), &(&die.total * &other.total));
            let big = scaled(&die, 70)
                .add(&scaled(&other, 70), &limits, &mut limits.budget())
                .unwrap();
            assert_eq!(small, big);
        }
    }
}

#[test]
fn maps_merge_equal_outcomes_in_any_order() {
    let die = d(6);
    let down = die.map(|x| -x);
    assert_eq!(
        down.outcomes().copied().collect::<Vec<_>>(),
        [-6, -5, -4, -3, -2, -1]
    );
    let folded = die.map(|x| (x - 3).abs());
    let weights: Vec<(i64, u32)> = folded
        .entries()
        .iter()
        .map(|(o, w)| (*o, w.to_u32().unwrap()))
        .collect();
    assert_eq!(weights, [(0, 1), (1, 2), (2, 2), (3, 1)]);
    assert_eq!(folded.total(), die.total());
    let mixed = Distribution::from_weights([
        (2, Weight::from(1u32)),
        (1, Weight::zero()),
        (2, Weight::from(3u32)),
        (0, Weight::from(2u32)),
    ])
    .unwrap();
    assert_eq!(
        mixed.entries(),
        [(0, Weight::from(2u32)), (2, Weight::from(4u32))]
    );
}

/// Mixtures of many overlapping parts (merged pairwise, odd counts included) against the
/// probabilities summed outcome by outcome as fractions.
#[test]
fn mixtures_of_overlapping_parts_match_fractions() {
    for count in 1..=7 {
        let parts: Vec<(Weight, Distribution<i64>)> = (1..=count)
            .map(|i| {
                (
                    Weight::from(i as u32 * 2 - 1),
                    d(i + 1).map(|x| x * (i % 3) - i),
                )
            })
            .collect();
        let weight_sum: Weight = parts.iter().map(|(w, _)| w).sum();
        let mut expected: BTreeMap<i64, Probability> = BTreeMap::new();
        for (w, part) in &parts {
            for (o, wo) in part.entries() {
                let p = Probability::new(w * wo, &weight_sum * part.total());
                *expected.entry(*o).or_insert_with(Probability::zero) += p;
            }
        }
        let m = Distribution::mixture(parts, &mut Budget::unlimited()).unwrap();
        let got: BTreeMap<i64, Probability> =
            m.outcomes().map(|o| (*o, m.probability(o))).collect();
        assert_eq!(got, expected, "{count} parts");
    }
}

#[test]
fn mixture_weights_parts() {
    let parts = vec![(Weight::one(), d(2)), (Weight::from(3u32), d(4))];
    let m = Distribution::mixture(parts, &mut Budget::unlimited()).unwrap();
    // P(1) = 1/4·1/2 + 3/4·1/4 = 5/16.
    assert_eq!(
        m.probability(&1),
        Probability::new(5u32.into(), 16u32.into())
    );
    assert_eq!(
        m.probability(&4),
        Probability::new(3u32.into(), 16u32.into())
    );
}

#[test]
fn statistics_of_a_d6() {
    let s = d(6).statistics();
    assert_eq!(s.mean, Ratio::new(BigInt::from(7), BigInt::from(2)));
    assert_eq!(s.variance, Ratio::new(BigInt::from(35), BigInt::from(12)));
    assert_eq!(s.median, 3);
    assert_eq!(s.modes, vec![1, 2, 3, 4, 5, 6]);
}

#[test]
fn equality_ignores_common_factors() {
    let a = Distribution::from_weights([(1, Weight::from(2u32)), (2, Weight::from(2u32))]).unwrap();
    assert_eq!(a, d(2));
    assert_ne!(a, d(3));
}

#[test]
fn huge_ratio_to_float_stays_finite() {
    let limits = Limits::default();
    let s = d(6).sum_of(1000, &limits, &mut limits.budget()).unwrap();
    let st = s.statistics();
    assert!((ratio_to_f64(&st.mean) - 3500.0).abs() < 1e-9);
}

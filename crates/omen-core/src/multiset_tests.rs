//! The multiset walk against every roll enumerated, for small pools of one kind and mixed pools.

use std::collections::BTreeMap;

use super::*;

/// A die with faces `lo..=hi`, each once.
fn die(lo: i64, hi: i64) -> Distribution<i64> {
    Distribution::uniform(lo..=hi).expect("faces")
}

fn group(lo: i64, hi: i64, count: usize) -> Group {
    Group::dice(die(lo, hi), count)
}

/// What each builtin reads from one roll, computed from the sorted dice directly.
fn by_hand(reading: &Builtin, roll: &[i64]) -> i64 {
    let mut sorted = roll.to_vec();
    sorted.sort_unstable();
    let mut counts: BTreeMap<i64, i64> = BTreeMap::new();
    for &x in roll {
        *counts.entry(x).or_default() += 1;
    }
    let width = counts.values().copied().max().unwrap_or(0);
    match *reading {
        Builtin::Count { low, high } => {
            roll.iter().filter(|x| (low..=high).contains(x)).count() as i64
        }
        Builtin::Sum => roll.iter().sum(),
        Builtin::SumHighest(k) => sorted.iter().rev().take(k).sum(),
        Builtin::SumLowest(k) => sorted.iter().take(k).sum(),
        Builtin::NthHighest(k) => sorted.iter().rev().nth(k - 1).copied().unwrap_or(0),
        Builtin::NthLowest(k) => sorted.get(k - 1).copied().unwrap_or(0),
        Builtin::Highest => sorted.last().copied().unwrap_or(0),
        Builtin::HighestCount => counts.values().last().copied().unwrap_or(0),
        Builtin::Distinct => counts.len() as i64,
        Builtin::SetWidth => width,
        Builtin::SetHeight => counts
            .iter()
            .filter(|(_, c)| **c == width)
            .map(|(x, _)| *x)
            .max()
            .unwrap_or(0),
        Builtin::LongestRun => {
            let faces: Vec<i64> = counts.keys().copied().collect();
            let (mut best, mut run) = (0, 0);
            for (i, x) in faces.iter().enumerate() {
                run = if i > 0 && faces[i - 1] + 1 == *x {
                    run + 1
                } else {
                    1
                };
                best = best.max(run);
            }
            best
        }
    }
}

/// Every roll of the pool, each once (every die's faces have weight 1 here); the grouping tests
/// enumerate with it too.
pub(crate) fn rolls(groups: &[Group]) -> Vec<Vec<i64>> {
    let mut all = vec![Vec::new()];
    for g in groups {
        for _ in 0..g.count {
            all = all
                .into_iter()
                .flat_map(|roll| {
                    g.die.outcomes().map(move |&x| {
                        let mut next = roll.clone();
                        next.push(x);
                        next
                    })
                })
                .collect();
        }
    }
    all
}

fn brute_force(groups: &[Group], readings: &[Builtin]) -> Distribution<Vec<i64>> {
    Distribution::from_weights(rolls(groups).into_iter().map(|roll| {
        (
            readings.iter().map(|r| by_hand(r, &roll)).collect(),
            Weight::one(),
        )
    }))
    .expect("rolls")
}

fn walked(groups: &[Group], readings: &[Builtin]) -> Distribution<Vec<i64>> {
    let (all, extra) = Readings::new(readings.to_vec());
    let limits = Limits::default();
    read(groups, &all, &limits, &mut limits.budget())
        .expect("within the limits")
        .map(|values| values[extra..].to_vec())
}

const EVERY: [Builtin; 14] = [
    Builtin::NthHighest(3),
    Builtin::NthLowest(2),
    Builtin::NthHighest(9),
    Builtin::Count { low: 5, high: 6 },
    Builtin::Sum,
    Builtin::SumHighest(2),
    Builtin::SumLowest(2),
    Builtin::Highest,
    Builtin::HighestCount,
    Builtin::Distinct,
    Builtin::SetWidth,
    Builtin::SetHeight,
    Builtin::LongestRun,
    Builtin::Count { low: 1, high: 1 },
];

#[test]
fn each_builtin_alone_matches_every_roll_of_one_kind_and_of_mixed_pools() {
    let pools = [
        vec![group(1, 6, 4)],
        vec![group(1, 10, 1), group(1, 8, 1), group(1, 6, 1)],
        vec![group(1, 4, 2), group(1, 6, 2), group(-1, 1, 1)],
        vec![group(1, 6, 1)],
    ];
    for pool in &pools {
        for reading in &EVERY {
            assert_eq!(
                walked(pool, std::slice::from_ref(reading)),
                brute_force(pool, std::slice::from_ref(reading)),
                "{reading:?} of {pool:?}"
            );
        }
    }
}

#[test]
fn several_readings_of_the_same_dice_give_their_joint_distribution() {
    // The hits and the ones of 5d6 are not independent: the joint law, not the product of two.
    let pool = [group(1, 6, 5)];
    assert_eq!(walked(&pool, &EVERY), brute_force(&pool, &EVERY));
    let hits_and_ones = walked(&pool, &[EVERY[3], EVERY[13]]);
    // 5 hits and 1 one cannot happen together; the product of the marginals would give it weight.
    assert!(hits_and_ones.weight(&vec![5, 1]).is_zero());
    // Cortex-like: the best two of a mixed pool and the height of its widest set, together.
    let mixed = [group(1, 8, 1), group(1, 6, 2), group(1, 4, 1)];
    let joint = [
        Builtin::SumHighest(2),
        Builtin::SetHeight,
        Builtin::Distinct,
    ];
    assert_eq!(walked(&mixed, &joint), brute_force(&mixed, &joint));
}

#[test]
fn weighted_faces_count_their_weight() {
    // A d6 whose 6 is written twice (weight 2 of 7) and a coin.
    let loaded = Distribution::from_weights(
        [1, 2, 3, 4, 5, 6].map(|x| (x, Weight::from(if x == 6 { 2u32 } else { 1 }))),
    )
    .expect("faces");
    let groups = [Group::dice(loaded, 2), group(0, 1, 1)];
    let got = walked(&groups, &[Builtin::Sum, Builtin::Highest]);
    let mut expected: BTreeMap<Vec<i64>, u32> = BTreeMap::new();
    for a in 1..=7i64 {
        for b in 1..=7i64 {
            for c in 0..=1i64 {
                let (a, b) = (a.min(6), b.min(6)); // face 7 stands for the second 6
                *expected
                    .entry(vec![a + b + c, a.max(b).max(c)])
                    .or_default() += 1;
            }
        }
    }
    let expected =
        Distribution::from_weights(expected.into_iter().map(|(k, w)| (k, Weight::from(w))))
            .expect("rolls");
    assert_eq!(got, expected);
}

#[test]
fn ten_d10_walks_multisets_not_rolls() {
    // 10¹⁰ rolls, walked by (widest set so far, dice left) states instead.
    let pool = [group(1, 10, 10)];
    let d = walked(&pool, &[Builtin::SetWidth, Builtin::SetHeight]);
    assert_eq!(d.total(), &num_traits::pow(Weight::from(10u32), 10));
    // Ten of a kind: 10 ways among 10¹⁰, one per face.
    assert_eq!(d.weight(&vec![10, 7]), Weight::one());
    // All different: width 1, height 10, 10! ways.
    assert_eq!(d.weight(&vec![1, 10]), Weight::from(3_628_800u32));
}

#[test]
fn the_budget_and_the_state_limit_are_charged_before_the_walk() {
    let pool = [group(1, 20, 40), group(1, 12, 40)];
    let limits = Limits {
        work_budget: 1_000,
        ..Limits::default()
    };
    let reading = Readings(vec![Builtin::Sum, Builtin::Distinct]);
    assert!(read(&pool, &reading, &limits, &mut limits.budget()).is_err());
    let limits = Limits {
        max_states: 10,
        ..Limits::default()
    };
    assert!(read(&pool, &reading, &limits, &mut limits.budget()).is_err());
}

#[test]
fn a_sum_past_64_bits_is_an_overflow_not_a_wrong_answer() {
    let huge = Distribution::from_weights([(i64::MAX / 2, Weight::one())]).expect("face");
    let pool = [Group::dice(huge, 3)];
    let limits = Limits::default();
    let reading = Readings(vec![Builtin::Sum]);
    assert!(matches!(
        read(&pool, &reading, &limits, &mut limits.budget()),
        Err(CoreError::Overflow)
    ));
}

#[test]
fn a_five_card_hand_from_fifty_two_gives_the_poker_counts() {
    // 13 ranks of 4 cards; a hand's widest set and longest run of ranks (ace low only).
    let deck =
        Distribution::from_weights((1..=13).map(|rank| (rank, Weight::from(4u32)))).expect("ranks");
    let hands = [Group::draws(deck, 5)];
    let d = walked(&hands, &[Builtin::SetWidth, Builtin::LongestRun]);
    assert_eq!(d.total(), &Weight::from(2_598_960u32)); // C(52, 5)
    let width = d.map(|v| v[0]);
    assert_eq!(width.weight(&4), Weight::from(624u32)); // four of a kind: 13 · 48
    // Three of a kind (13·C(4,3)·C(12,2)·4² = 54,912) and full houses (13·4·12·6 = 3,744).
    assert_eq!(width.weight(&3), Weight::from(58_656u32));
    // One pair (1,098,240) and two pairs (123,552).
    assert_eq!(width.weight(&2), Weight::from(1_221_792u32));
    // Five ranks in a row, starting at ace to nine, any suits: 9 · 4⁵.
    assert_eq!(d.map(|v| v[1]).weight(&5), Weight::from(9 * 1024u32));
}

#[test]
fn drawing_without_replacement_matches_every_hand_of_physical_cards() {
    // The deck 1 1 2 3 3 3, three cards drawn: each of the C(6, 3) = 20 sets of cards once.
    let cards = [1i64, 1, 2, 3, 3, 3];
    let deck = Distribution::from_weights([
        (1, Weight::from(2u32)),
        (2, Weight::one()),
        (3, Weight::from(3u32)),
    ])
    .expect("cards");
    let readings = [
        Builtin::Sum,
        Builtin::SetWidth,
        Builtin::Distinct,
        Builtin::NthHighest(2),
    ];
    let mut hands = Vec::new();
    for a in 0..6 {
        for b in a + 1..6 {
            for c in b + 1..6 {
                let hand = [cards[a], cards[b], cards[c]];
                let values: Vec<i64> = readings.iter().map(|r| by_hand(r, &hand)).collect();
                hands.push((values, Weight::one()));
            }
        }
    }
    let expected = Distribution::from_weights(hands).expect("hands");
    let groups = [Group::draws(deck, 3)];
    assert_eq!(walked(&groups, &readings), expected);
    // Listing whole hands weighs them the same way.
    let limits = Limits::default();
    let whole = crate::grouping::read_whole(
        &groups,
        |hand, _| Ok(hand.iter().map(|&(x, c)| x * c as i64).sum::<i64>()),
        &limits,
        &mut limits.budget(),
    )
    .expect("small");
    assert_eq!(whole, expected.map(|v| v[0]));
    // More cards drawn than the deck holds: no hand at all.
    let small =
        Distribution::from_weights([(1, Weight::one()), (2, Weight::one())]).expect("cards");
    let none = read(
        &[Group::draws(small, 3)],
        &Readings(vec![Builtin::Sum]),
        &limits,
        &mut limits.budget(),
    );
    assert!(none.is_err(), "{none:?}");
}

#[test]
fn counts_and_sums_summed_die_by_die_match_the_walk() {
    // Counts and totals take the dense sum; the walk of the same readings is the reference, on
    // weighted, mixed and negative faces (a loaded d6, a d8, a -1..1 die, twenty d6).
    let loaded = Distribution::from_weights(
        [1, 2, 3, 4, 5, 6].map(|x| (x, Weight::from(if x == 6 { 3u32 } else { 1 }))),
    )
    .expect("faces");
    let pools = [
        vec![group(1, 6, 20)],
        vec![Group::dice(loaded, 3), group(1, 8, 2), group(-1, 1, 4)],
        vec![group(1, 10, 1), group(1, 8, 1), group(1, 6, 1)],
    ];
    let readings = [
        vec![
            Builtin::Count { low: 5, high: 6 },
            Builtin::Count { low: 1, high: 1 },
        ],
        vec![Builtin::Sum, Builtin::Count { low: -1, high: 2 }],
        vec![Builtin::Count { low: 9, high: 3 }],
    ];
    let limits = Limits::default();
    for pool in &pools {
        let groups: Vec<&Group> = pool.iter().collect();
        let widths: Vec<u32> = pool.iter().map(|_| 64).collect();
        for reading in &readings {
            let reading = Readings(reading.clone());
            let summed = read(pool, &reading, &limits, &mut limits.budget()).expect("small");
            let pairs = walk::<Weight, Vec<usize>, _>(
                &groups,
                &widths,
                &reading,
                &limits,
                &mut limits.budget(),
            )
            .expect("small");
            let walked = Distribution::from_weights(pairs).expect("rolls");
            assert_eq!(summed, walked, "{reading:?} of {pool:?}");
            assert_eq!(summed.total(), walked.total());
        }
    }
}

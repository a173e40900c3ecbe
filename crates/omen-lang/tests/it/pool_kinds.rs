//! Pools read by kind of die: a capped `reroll(p, f, n)`, `reroll` of a pool of several kinds,
//! Cortex Prime's `effect(p, k)`, and exploding dice joining a pool (`pool 8d10!`). Each against
//! every roll enumerated here by hand, outside Omen (first rolls, rerolls and explosion chains),
//! the roller walked over every sequence of dice against the exact engine, a chi-square of the
//! roller on bigger pools, and the refusals.

use std::collections::BTreeMap;

use omen_core::{ChaChaDice, Limits, Probability, Weight};
use omen_lang::{Options, Value, compile, exact, sample};
use proptest::prelude::*;

use crate::support::{
    brute_force, chi_square, chi_square_critical, exact_map, options_with_depth, program,
};

fn tuple(values: &[i64]) -> Value {
    Value::Tuple(values.iter().copied().map(Value::Int).collect())
}

/// Adds `weight` (a probability) to `value`'s tally.
fn tally(out: &mut BTreeMap<Value, Probability>, value: Value, weight: Probability) {
    let zero = Probability::new(Weight::from(0u32), Weight::from(1u32));
    *out.entry(value).or_insert(zero) += weight;
}

fn one_in(n: u64) -> Probability {
    Probability::new(Weight::from(1u32), Weight::from(n))
}

/// Every roll of dice with these sizes (faces 1..=size), each with its probability.
fn rolls(sizes: &[u64]) -> Vec<(Vec<i64>, Probability)> {
    let mut out = vec![(Vec::new(), one_in(1))];
    for &size in sizes {
        let mut next = Vec::new();
        for (roll, p) in &out {
            for face in 1..=size as i64 {
                let mut r = roll.clone();
                r.push(face);
                next.push((r, p.clone() * one_in(size)));
            }
        }
        out = next;
    }
    out
}

/// The dice a capped reroll takes again, by hand: the dice that `again` chooses, ordered by face
/// (lowest first) and, among equal faces, the larger die first, the first `cap` of them.
fn chosen(roll: &[i64], sizes: &[u64], again: impl Fn(i64) -> bool, cap: usize) -> Vec<usize> {
    let mut candidates: Vec<usize> = (0..roll.len()).filter(|&i| again(roll[i])).collect();
    candidates.sort_by(|&a, &b| roll[a].cmp(&roll[b]).then(sizes[b].cmp(&sizes[a])));
    candidates.truncate(cap);
    candidates
}

/// The joint distribution of `read(first roll, after the reroll)`, by hand over every first roll
/// and every roll of the dice taken again (each as its own size).
fn rerolled_by_hand(
    sizes: &[u64],
    again: impl Fn(i64) -> bool + Copy,
    cap: usize,
    read: impl Fn(&[i64], &[i64]) -> Value,
) -> BTreeMap<Value, Probability> {
    let mut out = BTreeMap::new();
    for (first, p) in rolls(sizes) {
        let taken = chosen(&first, sizes, again, cap);
        let their_sizes: Vec<u64> = taken.iter().map(|&i| sizes[i]).collect();
        for (fresh, q) in rolls(&their_sizes) {
            let mut second = first.clone();
            for (&i, &x) in taken.iter().zip(&fresh) {
                second[i] = x;
            }
            tally(&mut out, read(&first, &second), p.clone() * q);
        }
    }
    out
}

#[test]
fn a_capped_reroll_takes_the_lowest_chosen_dice_as_enumerated_by_hand() {
    let options = Options::default();
    let source = "fn low(x) = x <= 2; let p = pool 3d4; let q = reroll(p, low, 1); \
                  (sum(p), sum(q), count(q, <=2))";
    let by_hand = rerolled_by_hand(
        &[4, 4, 4],
        |x| x <= 2,
        1,
        |a, b| {
            let low = b.iter().filter(|&&x| x <= 2).count() as i64;
            tuple(&[a.iter().sum(), b.iter().sum(), low])
        },
    );
    assert_eq!(exact_map(&program(source, &options), &options), by_hand);
    // Empowered Spell: at most two of 4d6 rolled again, the 1s and 2s first.
    let source = "fn low(x) = x <= 3; let p = pool 4d6; let q = reroll(p, low, 2); sum(q)";
    let by_hand = rerolled_by_hand(&[6; 4], |x| x <= 3, 2, |_, b| Value::Int(b.iter().sum()));
    assert_eq!(exact_map(&program(source, &options), &options), by_hand);
    // A cap of 0 rerolls nothing; a cap past the pool rerolls every die chosen.
    let none = "fn all(x) = true; let p = pool 2d3; let q = reroll(p, all, 0); sum(q) - sum(p)";
    let zero = exact_map(&program(none, &options), &options);
    assert_eq!(
        zero.into_iter().collect::<Vec<_>>(),
        vec![(Value::Int(0), one_in(1))]
    );
    let wide = "fn low(x) = x < 3; let p = pool 3d3; let q = reroll(p, low, 9); sum(q)";
    let plain = "fn low(x) = x < 3; let p = pool 3d3; let q = reroll(p, low); sum(q)";
    assert_eq!(
        exact_map(&program(wide, &options), &options),
        exact_map(&program(plain, &options), &options)
    );
}

#[test]
fn a_mixed_pool_rerolls_each_die_as_the_die_it_is_as_enumerated_by_hand() {
    let options = Options::default();
    let sizes = [4, 3, 2];
    let source = "fn one(x) = x = 1; let p = pool {d4, d3, d2}; let q = reroll(p, one); \
                  (sum(q), count(q, 1), highest(p))";
    let by_hand = rerolled_by_hand(
        &sizes,
        |x| x == 1,
        usize::MAX,
        |a, b| {
            let ones = b.iter().filter(|&&x| x == 1).count() as i64;
            tuple(&[b.iter().sum(), ones, *a.iter().max().unwrap_or(&0)])
        },
    );
    let mixed = program(source, &options);
    assert_eq!(exact_map(&mixed, &options), by_hand);
    let walked = brute_force(&mixed, &options.limits, 200_000).expect("small enough");
    assert_eq!(walked, by_hand, "the roller");
    // Capped at one, the larger of equal faces goes first: a 1 on the d4 before one on the d2.
    let source = "fn low(x) = x <= 2; let p = pool {d2, d4, d3}; let q = reroll(p, low, 1); \
                  (sum(q), lowest(q))";
    let sizes = [2, 4, 3];
    let by_hand = rerolled_by_hand(
        &sizes,
        |x| x <= 2,
        1,
        |_, b| tuple(&[b.iter().sum(), *b.iter().min().unwrap_or(&0)]),
    );
    let mixed = program(source, &options);
    assert_eq!(exact_map(&mixed, &options), by_hand);
    let walked = brute_force(&mixed, &options.limits, 200_000).expect("small enough");
    assert_eq!(walked, by_hand, "the roller");
}

/// Cortex Prime's effect die by hand: the `k` dice taken for the total one at a time, each the
/// highest face left and, among equal faces, the smallest die; then the largest die left that
/// shows more than 1, or a d4.
fn effect_by_hand(roll: &[i64], sizes: &[u64], k: usize) -> i64 {
    let mut left: Vec<usize> = (0..roll.len()).collect();
    for _ in 0..k.min(roll.len()) {
        let best = *left
            .iter()
            .max_by(|&&a, &&b| roll[a].cmp(&roll[b]).then(sizes[b].cmp(&sizes[a])))
            .unwrap_or(&0);
        left.retain(|&i| i != best);
    }
    left.iter()
        .filter(|&&i| roll[i] > 1)
        .map(|&i| sizes[i] as i64)
        .max()
        .unwrap_or(4)
}

#[test]
fn the_effect_die_is_the_largest_left_as_enumerated_by_hand() {
    let options = Options::default();
    for (source, sizes, k) in [
        (
            "let p = pool {d6, d4, d8, d4}; (highest(p, 2), effect(p, 2))",
            vec![6u64, 4, 8, 4],
            2usize,
        ),
        (
            "let p = pool {2d6, d10}; (highest(p, 1), effect(p, 1))",
            vec![6, 6, 10],
            1,
        ),
        (
            "let p = pool {d8, d12}; (highest(p, 2), effect(p, 2))",
            vec![8, 12],
            2,
        ),
        (
            "let p = pool {d4, d6, d4}; (highest(p, 0), effect(p, 0))",
            vec![4, 6, 4],
            0,
        ),
    ] {
        let mut by_hand = BTreeMap::new();
        for (roll, p) in rolls(&sizes) {
            let mut sorted = roll.clone();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let total: i64 = sorted.iter().take(k).sum();
            let value = tuple(&[total, effect_by_hand(&roll, &sizes, k)]);
            tally(&mut by_hand, value, p);
        }
        let program = program(source, &options);
        assert_eq!(exact_map(&program, &options), by_hand, "{source}");
        let walked = brute_force(&program, &options.limits, 100_000).expect("small enough");
        assert_eq!(walked, by_hand, "{source}: the roller");
    }
}

#[test]
fn the_effect_die_of_a_tie_leaves_the_larger_die_and_never_a_hitch() {
    // d4 and d8 both show 3, d6 shows 1 — written as dice fixed to those faces.
    let options = Options::default();
    let source = "let p = pool {d{3,3,3,3}, d{3,3,3,3,3,3,3,3}, d{1,1,1,1,1,1}}; effect(p, 1)";
    let d = exact_map(&program(source, &options), &options);
    assert_eq!(
        d.into_iter().collect::<Vec<_>>(),
        vec![(Value::Int(8), one_in(1))]
    );
    // Only the hitch is left: the default d4.
    let source = "let p = pool {d{3,3,3,3,3,3,3,3}, d{1,1,1,1,1,1,1,1,1,1,1,1}}; effect(p, 1)";
    let d = exact_map(&program(source, &options), &options);
    assert_eq!(
        d.into_iter().collect::<Vec<_>>(),
        vec![(Value::Int(4), one_in(1))]
    );
}

/// Every way `n` chains of a `faces`-sided die explode into a pool, by hand: each chain rolls a
/// die, and one that shows a face `hot` chooses rolls again, up to `depth` more dice, the last
/// counting whatever it shows. Tallies `read(the pool's faces)`.
fn exploded_by_hand(
    n: usize,
    faces: i64,
    hot: impl Fn(i64) -> bool + Copy,
    depth: usize,
    read: impl Fn(&[i64]) -> Value,
) -> BTreeMap<Value, Probability> {
    // One chain's outcomes: its faces and probability.
    let mut chains: Vec<(Vec<i64>, Probability)> = Vec::new();
    let mut open: Vec<(Vec<i64>, Probability)> = vec![(Vec::new(), one_in(1))];
    while let Some((chain, p)) = open.pop() {
        for x in 1..=faces {
            let mut c = chain.clone();
            c.push(x);
            let q = p.clone() * one_in(faces as u64);
            if hot(x) && c.len() <= depth {
                open.push((c, q));
            } else {
                chains.push((c, q));
            }
        }
    }
    let mut pools: Vec<(Vec<i64>, Probability)> = vec![(Vec::new(), one_in(1))];
    for _ in 0..n {
        let mut next = Vec::new();
        for (pool, p) in &pools {
            for (chain, q) in &chains {
                let mut all = pool.clone();
                all.extend(chain);
                next.push((all, p.clone() * q.clone()));
            }
        }
        pools = next;
    }
    let mut out = BTreeMap::new();
    for (pool, p) in pools {
        tally(&mut out, read(&pool), p);
    }
    out
}

#[test]
fn exploding_dice_join_the_pool_as_enumerated_by_hand() {
    for (source, n, faces, threshold, depth) in [
        (
            "let p = pool 2d4!; (sum(p), count(p, >=3), highest(p, 2))",
            2,
            4,
            4,
            2,
        ),
        (
            "let p = pool 3d3!>=2; (sum(p), count(p, 3), lowest(p))",
            3,
            3,
            2,
            1,
        ),
        (
            "let p = pool 2d4!; (sum(p), count(p, >=3), highest(p, 2))",
            2,
            4,
            4,
            0,
        ),
    ] {
        let options = options_with_depth(depth as u64);
        let read = |dice: &[i64]| -> Value {
            let mut sorted = dice.to_vec();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let second = if source.contains("lowest") {
                *sorted.last().unwrap_or(&0)
            } else {
                sorted.iter().take(2).sum()
            };
            let counted = if source.contains(">=3") {
                dice.iter().filter(|&&x| x >= 3).count()
            } else {
                dice.iter().filter(|&&x| x == 3).count()
            };
            tuple(&[dice.iter().sum(), counted as i64, second])
        };
        let program = program(source, &options);
        let exact = exact_map(&program, &options);
        let walked = brute_force(&program, &options.limits, 200_000).expect("small enough");
        assert_eq!(exact, walked, "{source}: the roller");
        let by_hand = exploded_by_hand(n, faces, |x| x >= threshold, depth, read);
        assert_eq!(exact, by_hand, "{source}");
    }
}

#[test]
fn an_exploding_pool_with_another_die_reads_the_effect_as_enumerated_by_hand() {
    // `pool {2d3!, d4}`: the chains of two d3s beside one d4, depth 1.
    let options = options_with_depth(1);
    let source = "let p = pool {2d3!, d4}; (sum(p), effect(p, 1))";
    let chains = exploded_by_hand(
        2,
        3,
        |x| x == 3,
        1,
        |dice| Value::Tuple(dice.iter().copied().map(Value::Int).collect()),
    );
    let mut by_hand = BTreeMap::new();
    for (value, p) in chains {
        let Value::Tuple(dice) = value else { continue };
        for d4 in 1..=4 {
            let mut roll: Vec<i64> = dice
                .iter()
                .map(|v| if let Value::Int(x) = v { *x } else { 0 })
                .collect();
            let mut sizes = vec![3u64; roll.len()];
            roll.push(d4);
            sizes.push(4);
            let value = tuple(&[roll.iter().sum(), effect_by_hand(&roll, &sizes, 1)]);
            tally(&mut by_hand, value, p.clone() * one_in(4));
        }
    }
    assert_eq!(exact_map(&program(source, &options), &options), by_hand);
}

#[test]
fn world_of_darkness_ten_again_as_a_pool_is_the_notation_roll() {
    let options = Options::default();
    for (pool, notation) in [
        ("let p = pool 8d10!; count(p, >=8)", "8d10!10>=8"),
        ("let p = pool 5d10!>=8; count(p, >=8)", "5d10!>=8>=8"),
    ] {
        let a = exact(&program(pool, &options), &options.limits).expect("pool");
        let b = exact(&program(notation, &options), &options.limits).expect("notation");
        assert_eq!(
            exact_map(&program(pool, &options), &options),
            exact_map(&program(notation, &options), &options),
            "{pool}"
        );
        assert_eq!(
            a.truncated, b.truncated,
            "{pool}: the mass cut at the depth"
        );
        assert!(a.truncated > Probability::new(Weight::from(0u32), Weight::from(1u32)));
    }
}

#[test]
fn the_roller_agrees_with_the_exact_engine_on_bigger_pools_read_by_kind() {
    for (i, source) in [
        "let p = pool {d10, d8, d6, d6, d4}; (highest(p, 2), effect(p, 2))",
        "fn low(x) = x <= 3; let p = pool 6d6; let q = reroll(p, low, 2); sum(q)",
        "fn low(x) = x <= 3; let p = pool {2d10, 2d8, d6}; let q = reroll(p, low); (sum(q), effect(q, 2))",
        "let p = pool 6d10!; count(p, >=8)",
        "let p = pool 4d6!>=5; (count(p, >=5), highest(p, 2))",
    ]
    .iter()
    .enumerate()
    {
        let (stat, df) = chi_square(source, 9100 + i as u64, 20_000);
        let critical = chi_square_critical(df);
        assert!(stat < critical, "{source}: chi-square {stat:.1} on {df}");
    }
}

fn error_kind(source: &str, limits: &Limits) -> String {
    match compile(source, &Options::default()) {
        Err(errors) => errors[0].kind.to_string(),
        Ok(c) => match exact(&c.program, limits) {
            Err(e) => e.kind.to_string(),
            Ok(_) => "none".to_string(),
        },
    }
}

#[test]
fn reads_by_kind_are_refused_where_they_cannot_be_computed() {
    let limits = Limits::default();
    for (source, kind) in [
        (
            "let p = pool {1 x (4d6kh3), d6}; effect(p, 1)",
            "wrong-reading",
        ),
        ("let p = pool draw 3 from d9; effect(p, 1)", "wrong-reading"),
        ("let p = pool 3d6; effect(p)", "wrong-arguments"),
        (
            "fn f(x) = x < 3; let p = pool 3d6; let q = reroll(p, f, -1); sum(q)",
            "bad-reroll",
        ),
        (
            "fn f(x) = x < 3; let p = pool 3d6; let q = reroll(p, f, 1, 2); sum(q)",
            "wrong-arguments",
        ),
        (
            "fn f(x) = x < 3; let p = pool 3d6!; let q = reroll(p, f); sum(q)",
            "unsupported-modifier",
        ),
        (
            "let p = pool 3d10!; (raises(p, 10), sum(p))",
            "unsupported-modifier",
        ),
        ("sum(pool 3d10!!)", "bad-pool-member"),
        ("sum(pool 3d10!p)", "bad-pool-member"),
        ("sum(pool 3d10!ro1)", "bad-pool-member"),
        ("let p = pool 30d10!>=8; count(p, >=8)", "work-budget"),
    ] {
        assert_eq!(error_kind(source, &limits), kind, "{source}");
    }
}

#[test]
fn a_rolled_cap_rerolls_as_the_caps_it_may_show_on_average() {
    let options = Options::default();
    let source = "fn low(x) = x <= 2; let p = pool 3d4; let q = reroll(p, low, d2); sum(q)";
    let mut by_hand = BTreeMap::new();
    for cap in 1..=2 {
        let each = rerolled_by_hand(
            &[4, 4, 4],
            |x| x <= 2,
            cap,
            |_, b| Value::Int(b.iter().sum()),
        );
        for (value, p) in each {
            tally(&mut by_hand, value, p * one_in(2));
        }
    }
    let program = program(source, &options);
    assert_eq!(exact_map(&program, &options), by_hand);
    let walked = brute_force(&program, &options.limits, 200_000).expect("small enough");
    assert_eq!(walked, by_hand, "the roller");
}

macro_rules! example {
    ($name:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/",
            $name,
            ".omen"
        ))
    };
}

#[test]
fn the_cortex_example_reads_total_effect_and_hitches_as_every_roll_says() {
    let options = Options::default();
    let sizes = [8u64, 6, 10, 4];
    let mut by_hand = BTreeMap::new();
    for (roll, p) in rolls(&sizes) {
        // The total: the two highest dice that are not hitches.
        let mut kept: Vec<i64> = roll.iter().copied().filter(|&x| x > 1).collect();
        kept.sort_unstable_by(|a, b| b.cmp(a));
        let total: i64 = kept.iter().take(2).sum();
        let hitches = roll.iter().filter(|&&x| x == 1).count() as i64;
        let value = tuple(&[total, effect_by_hand(&roll, &sizes, 2), hitches]);
        tally(&mut by_hand, value, p);
    }
    let program = program(example!("pool_cortex_prime"), &options);
    assert_eq!(exact_map(&program, &options), by_hand);
}

#[test]
fn the_world_of_darkness_example_fails_dramatically_as_counting_says() {
    let options = Options::default();
    let got = exact_map(
        &program(example!("pool_world_of_darkness"), &options),
        &options,
    );
    let notation = exact_map(&program("6d10!10>=8", &options), &options);
    // No success: no die shows 8 or more, so none explodes; six dice of 1 to 7.
    let none = Probability::new(Weight::from(6u64.pow(6)), Weight::from(10u64.pow(6)));
    let dramatic = Probability::new(
        Weight::from(7u64.pow(6) - 6u64.pow(6)),
        Weight::from(10u64.pow(6)),
    );
    assert_eq!(got.get(&Value::text("dramatic failure")), Some(&dramatic));
    assert_eq!(got.get(&Value::Int(0)), Some(&none));
    for (value, p) in &notation {
        if *value != Value::Int(0) {
            assert_eq!(got.get(value), Some(p), "{value} successes");
        }
    }
    let program = program(example!("pool_world_of_darkness"), &options);
    for seed in 0..5 {
        let mut dice = ChaChaDice::from_seed(seed);
        let roll = sample(&program, &options.limits, &mut dice).expect("rolls");
        assert!(got.contains_key(&roll.result), "{}", roll.result);
    }
}

#[test]
fn raises_of_a_rerolled_pool_match_the_roller_over_every_roll() {
    let options = Options::default();
    for source in [
        "fn low(x) = x <= 2; let p = pool 3d4; let q = reroll(p, low); (raises(q, 5), sum(p))",
        "fn low(x) = x <= 2; let p = pool {d4, d3, d2}; let q = reroll(p, low); raises(q, 4)",
    ] {
        let program = program(source, &options);
        let walked = brute_force(&program, &options.limits, 200_000).expect("small enough");
        assert_eq!(exact_map(&program, &options), walked, "{source}");
    }
}

/// A pool script with the readings by kind: members of several sizes (some exploding), a reroll
/// with or without a cap, effect dice of any k, beside builtin readings.
fn kinds_script() -> impl Strategy<Value = String> {
    let member = prop_oneof![
        Just("d2"),
        Just("d3"),
        Just("2d2"),
        Just("d4"),
        Just("d2!"),
        Just("2d3!>=3"),
        Just("1 x (d3 + 1)"),
    ];
    let members = proptest::collection::vec(member, 1..=3).prop_map(|m| m.join(", "));
    let k = prop_oneof![
        Just(-9_223_372_036_854_775_807i64),
        -1i64..=4,
        Just(i64::MAX)
    ];
    let cap = prop_oneof![
        Just(String::new()),
        (-1i64..=4).prop_map(|n| format!(", {n}"))
    ];
    (members, k, cap, 1i64..=3, any::<bool>()).prop_map(|(members, k, cap, low, again)| {
        let pool = format!("fn low(x) = x <= {low}; let p = pool {{{members}}};");
        if again {
            format!(
                "{pool} let q = reroll(p, low{cap}); \
                 (effect(p, {k}), sum(q), effect(q, 1), count(q, 1))"
            )
        } else {
            format!("{pool} (effect(p, {k}), sum(p), highest(p, 2), count(p, 1))")
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Never a panic: each script compiles or is refused, and what the roller rolls is an outcome
    /// the exact engine gives.
    #[test]
    fn scripts_read_by_kind_never_panic(source in kinds_script()) {
        let options = options_with_depth(2);
        let Ok(c) = compile(&source, &options) else { return Ok(()) };
        let Ok(result) = exact(&c.program, &options.limits) else { return Ok(()) };
        let d = result.distribution.values();
        for seed in 0..3 {
            let mut dice = ChaChaDice::from_seed(seed);
            if let Ok(roll) = sample(&c.program, &options.limits, &mut dice) {
                prop_assert!(d.weight(&roll.result) > Weight::from(0u32), "{source}: {}", roll.result);
            }
        }
    }
}

/// The exact mean of `source` within the default limits.
fn mean_at_the_defaults(source: &str) -> num_rational::Ratio<num_bigint::BigInt> {
    let options = Options::default();
    let c = compile(source, &options).expect("compiles");
    let result = exact(&c.program, &options.limits).expect("within the default limits");
    result
        .distribution
        .number_statistics()
        .expect("a number")
        .mean
}

/// Wald's identity: the dice of a chain are rolled one after another, each succeeding 3 times in
/// 10 whatever came before, so the mean successes are 3/10 times the mean dice, 15 chains of
/// 1 + 3/10 + … + (3/10)²⁰ dice each.
#[test]
fn an_exploding_pool_of_fifteen_eight_again_dice_is_read_within_the_default_limits() {
    // Was refused by the work budget while the walk kept each start's pool size in its states.
    let mean = mean_at_the_defaults("let p = pool 15d10!>=8; count(p, >=8)");
    let ten = num_traits::pow(Weight::from(10u32), 21);
    let three = num_traits::pow(Weight::from(3u32), 21);
    let dice_per_chain =
        Probability::new(&ten - &three, ten) * Probability::new(10u32.into(), 7u32.into());
    let expected = Probability::new(15u32.into(), 1u32.into())
        * Probability::new(3u32.into(), 10u32.into())
        * dice_per_chain;
    assert_eq!(mean.to_string(), expected.to_string());
}

/// Wald's identity again: each die of a chain shows 11/2 on average whatever came before, and a
/// chain holds 1 + 1/10 + … + 1/10²⁰ dice.
#[test]
fn the_sum_of_an_exploding_pool_walks_its_chains_once_per_number_of_final_dice() {
    // Was slow: every (final dice, exploded dice) start walked the final dice's faces apart.
    let mean = mean_at_the_defaults("sum(pool 24d10!)");
    let ten = num_traits::pow(Weight::from(10u32), 21);
    let dice_per_chain = Probability::new(&ten - Weight::from(1u32), ten)
        * Probability::new(10u32.into(), 9u32.into());
    let expected = Probability::new(24u32.into(), 1u32.into())
        * Probability::new(11u32.into(), 2u32.into())
        * dice_per_chain;
    assert_eq!(mean.to_string(), expected.to_string());
}

#[test]
fn a_reroll_of_one_kind_read_from_the_counts_kept_matches_every_roll_by_hand() {
    // `reroll(p, f)` of one kind of die is read from how many dice show each face kept: Year Zero's
    // push of 4d6 beside the script's own counts of the same faces, the pool after read in order
    // too; and a kept face the script counts nowhere else.
    let options = Options::default();
    let pushed = |x: i64| x != 1 && x != 6;
    let source = "fn pushed(x) = x != 1 and x != 6; let p = pool 4d6; let q = reroll(p, pushed); \
                  (count(p, 6), count(p, 1), count(q, 6), count(q, 1), highest(q), sum(q))";
    let by_hand = rerolled_by_hand(&[6; 4], pushed, usize::MAX, |a, b| {
        let shown = |dice: &[i64], face: i64| dice.iter().filter(|&&x| x == face).count() as i64;
        let highest = b.iter().copied().max().unwrap_or(0);
        tuple(&[
            shown(a, 6),
            shown(a, 1),
            shown(b, 6),
            shown(b, 1),
            highest,
            b.iter().sum(),
        ])
    });
    assert_eq!(exact_map(&program(source, &options), &options), by_hand);
    let source =
        "fn low(x) = x <= 2; let p = pool 3d5; let q = reroll(p, low); (sum(q), count(q, 5))";
    let by_hand = rerolled_by_hand(
        &[5; 3],
        |x| x <= 2,
        usize::MAX,
        |_, b| tuple(&[b.iter().sum(), b.iter().filter(|&&x| x == 5).count() as i64]),
    );
    assert_eq!(exact_map(&program(source, &options), &options), by_hand);
}

#[test]
fn the_rest_reads_a_pool_bound_before_on_the_machine_as_the_evaluator_does() {
    // `count(p, 6)` beside the readings of `q`, which depends on `p`: the fields of `p`'s tuple
    // are registers of the machine; the same with a die of one face added is evaluated instead.
    let options = Options::default();
    let push = "fn pushed(x) = x != 1 and x != 6; let p = pool 5d6; let q = reroll(p, pushed);";
    // A tuple of a number and true/false bound before a value that depends on it: its fields
    // are a number register and a true/false one.
    let pair = "let t = (d4, d4 >= 3); let u = d6 + t.0;";
    for (head, rest) in [
        (push, "count(p, 6) * 100 + count(q, 6) * 10 + count(q, 1)"),
        (
            push,
            "if count(p, 6) >= 1 then count(q, 1) else -count(q, 6)",
        ),
        (pair, "if t.1 then u * 10 + t.0 else -u"),
    ] {
        let machine = format!("{head} {rest}");
        let evaluated = format!("{head} ({rest}) + d1 - 1");
        assert_eq!(
            exact_map(&program(&machine, &options), &options),
            exact_map(&program(&evaluated, &options), &options),
            "{machine}"
        );
    }
    // The pair's rest by hand: a d4 `a`, another d4 `b`, a d6 `c`, each roll 1/96.
    let mut by_hand: BTreeMap<Value, Probability> = BTreeMap::new();
    for a in 1..=4i64 {
        for b in 1..=4i64 {
            for c in 1..=6i64 {
                let u = c + a;
                let v = if b >= 3 { u * 10 + a } else { -u };
                tally(&mut by_hand, Value::Int(v), one_in(96));
            }
        }
    }
    let source = format!("{pair} if t.1 then u * 10 + t.0 else -u");
    assert_eq!(exact_map(&program(&source, &options), &options), by_hand);
}

//! Pools: each reading, and several readings of one pool together, against every roll enumerated
//! (by the roller walked over every sequence of dice, and by hand here, outside Omen); the refusals
//! and limits; and generated pool scripts that never panic.

use std::collections::BTreeMap;

use num_traits::Zero;
use omen_core::{Cancel, Limits, Probability, Weight};
use omen_lang::{Options, Value, compile, exact, sample};
use proptest::prelude::*;

use crate::support::{brute_force, exact_map, program};

fn p(n: u64, d: u64) -> Probability {
    Probability::new(Weight::from(n), Weight::from(d))
}

fn int(n: i64) -> Value {
    Value::Int(n)
}

fn tuple(values: &[i64]) -> Value {
    Value::Tuple(values.iter().copied().map(Value::Int).collect())
}

/// Tallies `value` over every roll of the dice with these faces (1..=faces each), as probabilities.
fn enumerate(
    faces: &[i64],
    mut value: impl FnMut(&[i64]) -> Value,
) -> BTreeMap<Value, Probability> {
    let mut counts: BTreeMap<Value, u64> = BTreeMap::new();
    let mut roll: Vec<i64> = vec![1; faces.len()];
    let mut total = 0u64;
    'all: loop {
        *counts.entry(value(&roll)).or_default() += 1;
        total += 1;
        for (i, die) in roll.iter_mut().enumerate() {
            if *die < faces[i] {
                *die += 1;
                continue 'all;
            }
            *die = 1;
        }
        break;
    }
    counts.into_iter().map(|(v, c)| (v, p(c, total))).collect()
}

fn error_kind(source: &str) -> String {
    match compile(source, &Options::default()) {
        Err(errors) => errors[0].kind.to_string(),
        Ok(c) => match exact(&c.program, &Limits::default()) {
            Err(e) => e.kind.to_string(),
            Ok(_) => "none".to_string(),
        },
    }
}

#[test]
fn every_reading_matches_the_roller_over_every_roll() {
    let options = Options::default();
    for source in [
        "let p = pool 3d4; (count(p, >=3), sum(p), highest(p), lowest(p))",
        "let p = pool {d4, d3, d2}; (highest(p, 2), nth(p, 3), nth(p, 2), nth_lowest(p, 1))",
        "let p = pool 4d3; (width(p), height(p), distinct(p), highest_count(p), run(p))",
        "let p = pool {2d3, d4ro1}; (count(p, <2), count(p, =3), count(p, >3), count(p, <=1))",
        "let p = pool {2d3, d4}; (lowest(p, 2), highest(p, 0), nth(p, 5), count(p, 2))",
        "let s = pool 3 x (2d2kh1); (highest(s), count(s, 2))",
        "let p = pool 5d3; raises(p, 4)",
        "let p = pool {3d4, d3}; (raises(p, 5), width(p), sum(p))",
        "let p = pool {d{1,1,2}, d3}; (sum(p), width(p))",
        "let n = d2; let p = pool {(n)d3}; (sum(p), n)",
        "symbols(pool {ability, difficulty})",
        "let h = pool draw 3 from d{1,1,2,3,3}; (width(h), sum(h))",
        "let p = pool 2d4; let q = pool {d4}; sum(p) + sum(q) - highest(p)",
        "{1d4, 1d3, 1d2}kh2kl1",
        "{1d4, 1d3, 1d3}dl1dh1>=2",
        "{1d4, 1d3, 1d2, 1d2}km2",
        "param k = 2; let p = pool 3d3; highest(p, k)",
        "let p = pool 3d3 in (sum(p), count(p, 1))",
        "let p = pool 3d3; fn f(x) = x + sum(p); f(1) + count(p, 3)",
        "let p = pool {2 x (d3 + 1), dF}; (sum(p), run(p), count(p, -1))",
        "let p = pool {2d3min2, d2}; (width(p), height(p))",
    ] {
        let program = program(source, &options);
        let walked = brute_force(&program, &options.limits, 200_000).expect("small enough");
        assert_eq!(exact_map(&program, &options), walked, "{source}");
    }
}

#[test]
fn cortex_prime_best_two_and_effect_die_match_every_roll_by_hand() {
    let options = Options::default();
    let source = "let p = pool {d8, d6, d10, d4}; (highest(p, 2), nth(p, 3))";
    let by_hand = enumerate(&[8, 6, 10, 4], |roll| {
        let mut sorted = roll.to_vec();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        tuple(&[sorted[0] + sorted[1], sorted[2]])
    });
    assert_eq!(exact_map(&program(source, &options), &options), by_hand);
}

#[test]
fn the_middle_of_d10_d8_d6_matches_every_roll_by_hand() {
    // Refused as "not computed yet" before: a middle keep over different group members.
    let options = Options::default();
    let by_hand = enumerate(&[10, 8, 6], |roll| {
        let mut sorted = roll.to_vec();
        sorted.sort_unstable();
        int(sorted[1])
    });
    for source in [
        "{1d10, 1d8, 1d6}kh2kl1",
        "{1d10, 1d8, 1d6}dl1dh1",
        "nth(pool {d10, d8, d6}, 2)",
    ] {
        assert_eq!(
            exact_map(&program(source, &options), &options),
            by_hand,
            "{source}"
        );
    }
}

#[test]
fn hits_and_ones_of_eight_d6_are_joint_as_the_multinomial_says() {
    // Shadowrun: hits (5 or 6) and ones together. P(a hits, b ones) = 8!/(a! b! c!) 2^a 1^b 3^c / 6^8.
    let options = Options::default();
    let got = exact_map(
        &program("let p = pool 8d6; (count(p, >=5), count(p, 1))", &options),
        &options,
    );
    let factorial = |n: u64| (1..=n).product::<u64>();
    let mut expected = BTreeMap::new();
    for a in 0..=8u64 {
        for b in 0..=8 - a {
            let c = 8 - a - b;
            let ways = factorial(8) / (factorial(a) * factorial(b) * factorial(c));
            let weight = ways * 2u64.pow(a as u32) * 3u64.pow(c as u32);
            expected.insert(tuple(&[a as i64, b as i64]), p(weight, 6u64.pow(8)));
        }
    }
    assert_eq!(got, expected);
    // A glitch: more than half the dice show 1, whatever the hits.
    let glitch = exact_map(
        &program("let p = pool 8d6; count(p, 1) > 4", &options),
        &options,
    );
    let more_than_half: Probability = expected
        .iter()
        .filter(|(v, _)| matches!(v, Value::Tuple(t) if t[1] > int(4)))
        .fold(Probability::zero(), |acc, (_, q)| acc + q);
    assert_eq!(glitch[&Value::Bool(true)], more_than_half);
}

#[test]
fn a_five_card_hand_holds_a_pair_as_often_as_counting_hands_says() {
    // Hands without a pair: C(13, 5) ranks, each in one of 4 suits; of C(52, 5) hands.
    let options = Options::default();
    let got = exact_map(
        &program(
            "let h = pool draw 5 from d{1..13, 1..13, 1..13, 1..13}; width(h) >= 2",
            &options,
        ),
        &options,
    );
    let choose = |n: u64, k: u64| (0..k).fold(1u64, |acc, i| acc * (n - i) / (i + 1));
    let no_pair = choose(13, 5) * 4u64.pow(5);
    let hands = choose(52, 5);
    assert_eq!(got[&Value::Bool(true)], p(hands - no_pair, hands));
}

/// The most groups summing to `target` or more, by trying every die in every group or none.
fn raises_by_hand(dice: &[i64], target: i64) -> i64 {
    fn go(dice: &[i64], sums: &mut Vec<i64>, target: i64) -> i64 {
        let Some((&x, rest)) = dice.split_first() else {
            return sums.iter().filter(|&&s| s >= target).count() as i64;
        };
        let mut best = go(rest, sums, target);
        for g in 0..sums.len() {
            sums[g] += x;
            best = best.max(go(rest, sums, target));
            sums[g] -= x;
        }
        sums.push(x);
        best = best.max(go(rest, sums, target));
        sums.pop();
        best
    }
    go(dice, &mut Vec::new(), target)
}

#[test]
fn seventh_sea_raises_on_four_d10_match_every_grouping_tried() {
    let options = Options::default();
    let by_hand = enumerate(&[10, 10, 10, 10], |roll| int(raises_by_hand(roll, 10)));
    let got = exact_map(&program("raises(pool 4d10, 10)", &options), &options);
    assert_eq!(got, by_hand);
}

#[test]
fn genesys_dice_read_by_name_as_their_faces_say() {
    let options = Options::default();
    // An ability die shows a success on s, s, ss, sa: 4 of its 8 faces.
    let one = exact_map(
        &program("symbols(pool {ability}).0 >= 1", &options),
        &options,
    );
    assert_eq!(one[&Value::Bool(true)], p(1, 2));
    // A challenge die's despair (1 face of 12) is a failure too.
    let despair = exact_map(
        &program(
            "let p = pool {challenge}; symbols(p) = (-1, 0, 0, 1)",
            &options,
        ),
        &options,
    );
    assert_eq!(despair[&Value::Bool(true)], p(1, 12));
}

#[test]
fn readings_of_one_pool_are_not_independent() {
    // The highest die and the sum of 2d6: independent readings would make (6, 2) possible.
    let options = Options::default();
    let got = exact_map(
        &program("let p = pool 2d6; (highest(p), sum(p))", &options),
        &options,
    );
    assert!(!got.contains_key(&tuple(&[6, 2])));
    assert_eq!(got[&tuple(&[6, 12])], p(1, 36));
    assert_eq!(got[&tuple(&[6, 7])], p(2, 36));
}

#[test]
fn the_roll_shows_the_dice_and_every_reading() {
    let options = Options::default();
    let program = program("let p = pool 3d6; (count(p, >=5), sum(p))", &options);
    let roll = sample(
        &program,
        &options.limits,
        &mut omen_core::ScriptedDice::new(vec![6, 2, 5]),
    )
    .expect("roll");
    assert_eq!(roll.result, tuple(&[2, 13]));
    let json = serde_json::to_string(&roll.tree).expect("json");
    assert!(json.contains("\"label\":\"count(p, >=5)\""), "{json}");
    assert!(json.contains("\"label\":\"sum(p)\""), "{json}");
    assert!(json.contains("\"notation\":\"3d6\""), "{json}");
}

#[test]
fn pools_are_refused_clearly_where_they_mean_nothing() {
    for (source, kind) in [
        ("pool 3d6", "pool-not-read"),
        ("let p = pool 3d6; p + 1", "pool-not-read"),
        ("sum(3)", "not-a-pool"),
        ("let p = pool 3d6; count(p, !=1)", "bad-point"),
        ("let p = pool 3d6; sum(p, >=2)", "wrong-arguments"),
        ("let p = pool 3d6; highest(p, >=2)", "bad-point"),
        ("count(>=5)", "not-a-pool"),
        ("let p = pool 3d6; symbols(p)", "wrong-reading"),
        ("sum(pool {ability})", "wrong-reading"),
        ("sum(pool {ability, d6})", "mixed-pool"),
        ("sum(pool {8d10!!})", "bad-pool-member"),
        ("sum(pool {8d10!kh2})", "bad-pool-member"),
        ("sum(pool {3d6cs})", "bad-pool-member"),
        ("let p = pool 3d6; nth(p)", "wrong-arguments"),
        ("let p = pool 3d6; frobnicate(p)", "unknown-reading"),
        ("sum(pool draw 6 from d5)", "too-many-cards"),
        ("sum(pool draw 2 from 2d6)", "bad-deck"),
        ("raises(pool 3d6, 0)", "unsupported-modifier"),
        ("sum(pool {(d4 - 2)d6})", "negative-dice"),
        ("sum(pool {20000 x (d6)})", "too-many-dice"),
        (">=3", "unexpected-token"),
    ] {
        assert_eq!(error_kind(source), kind, "{source}");
    }
}

#[test]
fn a_name_pool_still_names_a_value() {
    let options = Options::default();
    let got = exact_map(&program("let pool = 3; pool * 2", &options), &options);
    assert_eq!(got[&int(6)], p(1, 1));
    let called = exact_map(&program("fn pool(x) = x + 1; pool(3)", &options), &options);
    assert_eq!(called[&int(4)], p(1, 1));
    let spaced = exact_map(&program("let n = 2; sum(pool (n)d1)", &options), &options);
    assert_eq!(spaced[&int(2)], p(1, 1));
}

/// `pool(3)d6` read as a call of `pool` followed by stray dice, with nothing to say what was meant.
#[test]
fn a_pool_count_touching_the_word_is_refused_with_the_spaced_spelling() {
    let errors = compile("let p = pool(3)d6; sum(p)", &Options::default())
        .err()
        .expect("a call of `pool` followed by `d6` does not parse");
    let help = errors[0].help.as_deref().unwrap_or_default();
    assert!(help.contains("`pool (3)d6`"), "{errors:?}");
}

#[test]
fn a_pool_that_would_pass_the_budget_is_refused_before_it_runs() {
    let limits = Limits {
        work_budget: 1_000_000,
        ..Limits::default()
    };
    let options = Options {
        limits: limits.clone(),
        ..Options::default()
    };
    for source in [
        "let p = pool 12d10; raises(p, 10)",
        "let p = pool 60d100; (width(p), height(p), run(p))",
        "symbols(pool {40 ability, 40 difficulty})",
        "{1d100, 1d99, 1d98, 1d97, 1d96, 1d95, 1d94, 1d93, 1d92, 1d91}kh5kl2",
    ] {
        let compiled = compile(source, &options).expect("compiles");
        let started = std::time::Instant::now();
        let error = exact(&compiled.program, &limits).expect_err(source);
        assert_eq!(error.kind, "work-budget", "{source}");
        assert!(started.elapsed().as_secs() < 5, "{source}");
    }
}

#[test]
fn a_cancelled_pool_stops() {
    let cancel = Cancel::new();
    cancel.cancel();
    let limits = Limits {
        cancel,
        ..Limits::default()
    };
    let options = Options::default();
    for source in [
        "let p = pool 10d10; raises(p, 10)",
        "let p = pool 10d10; (width(p), height(p))",
    ] {
        let compiled = compile(source, &options).expect("compiles");
        let error = exact(&compiled.program, &limits).expect_err(source);
        assert_eq!(error.kind, "cancelled", "{source}");
    }
}

#[test]
fn pool_renders_read_back_as_the_same_program() {
    let options = Options::default();
    for source in [
        "let p = pool 8d6; (count(p, >=5), count(p, 1))",
        "let s = pool 6 x (4d6kh3); highest(s)",
        "symbols(pool {3 ability, 2 proficiency, 3 difficulty})",
        "let h = pool draw 5 from d{1..13, 1..13}; width(h)",
        "let p = pool {(2)d6, d8}; nth(p, 2)",
    ] {
        let first = compile(source, &options).expect("compiles");
        let again = compile(&first.reading, &options).expect("its reading compiles");
        assert_eq!(again.reading, first.reading, "{source}");
        assert_eq!(
            exact_map(&first.program, &options),
            exact_map(&again.program, &options),
            "{source}"
        );
    }
}

macro_rules! example {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../examples/",
                $name,
                ".omen"
            )),
        )
    };
}

const EXAMPLES: [(&str, &str); 7] = [
    example!("pool_shadowrun"),
    example!("pool_cortex_prime"),
    example!("pool_one_roll_engine"),
    example!("pool_seventh_sea"),
    example!("pool_genesys"),
    example!("pool_poker_hand"),
    example!("pool_ability_scores"),
];

#[test]
fn the_pool_examples_compute_and_roll_to_a_possible_outcome() {
    let options = Options::default();
    for (name, source) in EXAMPLES {
        let program = program(source, &options);
        let exact = exact_map(&program, &options);
        let total = exact.values().fold(Probability::zero(), |acc, q| acc + q);
        assert_eq!(total, p(1, 1), "{name}");
        for seed in 0..5 {
            let mut dice = omen_core::ChaChaDice::from_seed(seed);
            let roll = sample(&program, &options.limits, &mut dice).expect(name);
            assert!(exact.contains_key(&roll.result), "{name}: {}", roll.result);
        }
    }
}

#[test]
fn the_shadowrun_example_glitches_as_the_multinomial_says() {
    // Eight dice: h hits (5, 6), o ones, the rest 2-4: 8!/(h! o! r!) 2^h 3^r of 6^8.
    let options = Options::default();
    let got = exact_map(&program(EXAMPLES[0].1, &options), &options);
    let factorial = |n: u64| (1..=n).product::<u64>();
    let mut expected: BTreeMap<Value, u64> = BTreeMap::new();
    for h in 0..=8u64 {
        for o in 0..=8 - h {
            let r = 8 - h - o;
            let ways = factorial(8) / (factorial(h) * factorial(o) * factorial(r));
            let weight = ways * 2u64.pow(h as u32) * 3u64.pow(r as u32);
            let outcome = match (o * 2 > 8, h) {
                (true, 0) => Value::text("critical glitch"),
                (true, _) => Value::text("glitch"),
                (false, h) => int(h as i64),
            };
            *expected.entry(outcome).or_default() += weight;
        }
    }
    let expected: BTreeMap<Value, Probability> = expected
        .into_iter()
        .map(|(v, w)| (v, p(w, 6u64.pow(8))))
        .collect();
    assert_eq!(got, expected);
}

/// A small pool script: a few members of a few kinds, and a few readings.
fn pool_script() -> impl Strategy<Value = String> {
    let member = prop::sample::select(vec![
        "d4",
        "2d3",
        "d6",
        "d{1,1,2}",
        "dF",
        "d3ro1",
        "2 x (d2+1)",
        "(2)d2",
        "d2min2",
    ]);
    let reading = prop::sample::select(vec![
        "count(p, >=2)",
        "count(p, 1)",
        "count(p, <0)",
        "sum(p)",
        "highest(p)",
        "highest(p, 2)",
        "lowest(p, 3)",
        "nth(p, 2)",
        "nth_lowest(p, 1)",
        "highest_count(p)",
        "distinct(p)",
        "width(p)",
        "height(p)",
        "run(p)",
        "raises(p, 4)",
    ]);
    (
        prop::collection::vec(member, 1..4),
        prop::collection::vec(reading, 1..4),
    )
        .prop_map(|(members, readings)| {
            format!(
                "let p = pool {{{}}}; ({}, 0)",
                members.join(", "),
                readings.join(", ")
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn generated_pools_match_the_roller_over_every_roll(source in pool_script()) {
        let options = Options::default();
        let program = program(&source, &options);
        let walked = brute_force(&program, &options.limits, 100_000).expect("small enough");
        prop_assert_eq!(exact_map(&program, &options), walked, "{}", source);
    }

    #[test]
    fn pool_soup_never_panics(
        pieces in prop::collection::vec(prop::sample::select(vec![
            "pool", " ", "{", "}", "(", ")", ",", "d6", "3", "x", "draw", "from", "ability",
            "count(", "p", ">=", "2", "let p = ", ";", "sum(p)", "raises(p, 10)", "-", "d{1,2}",
        ]), 0..30)
    ) {
        let source = pieces.concat();
        let limits = Limits { work_budget: 5_000_000, ..Limits::default() };
        let options = Options { limits: limits.clone(), ..Options::default() };
        if let Ok(compiled) = compile(&source, &options) {
            let _ = exact(&compiled.program, &limits);
            let _ = sample(&compiled.program, &limits, &mut omen_core::ChaChaDice::from_seed(1));
        }
    }
}

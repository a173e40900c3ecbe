//! Seed 001's spell-dice pool (001-M1..M8, A1..A5): replays with given dice, validation errors, and
//! exact odds against brute-force enumeration of every roll (6^k) and chains built here.
//! Seed 001: a test named `m1_…` covers 001-M1.

use std::collections::BTreeMap;

use num_bigint::BigUint;
use num_rational::Ratio;
use omen_core::{Budget, Chain, Distribution, Limits, Probability, ScriptedDice, Weight};
use omen_rules::spelldice::{
    self, Cast, CastRequest, CastResult, Caster, LifeDamage, LifeDiceUse, Penalties, RemovalFaces,
    RemovalTiming, SingleCast, SpellDice, SpellDiceError, SpellDiceOptions, SpellLevel, Strategy,
    cast, cast_odds, exhaust, extreme_odds, minimum_dice, single_cast_distribution,
};
use omen_rules::{RuleSet, find};

use crate::support::ratio;

fn limits() -> Limits {
    Limits::default()
}

fn spell(level: i64) -> SpellLevel {
    SpellLevel::new(level).unwrap()
}

fn caster(level: i64, pool: usize) -> Caster {
    Caster::with_pool(level, pool, &limits()).unwrap()
}

fn cast_with(
    state: &Caster,
    request: &CastRequest,
    options: &SpellDiceOptions,
    dice: &[i64],
) -> Result<Cast, SpellDiceError> {
    cast(
        state,
        request,
        options,
        &mut ScriptedDice::new(dice.to_vec()),
    )
}

fn base() -> SpellDiceOptions {
    SpellDiceOptions::default()
}

/// Every roll of `dice` d6, in order.
fn every_roll(dice: usize) -> Vec<Vec<i64>> {
    let mut rolls = vec![Vec::new()];
    for _ in 0..dice {
        rolls = rolls
            .into_iter()
            .flat_map(|roll| {
                (1..=6).map(move |face| {
                    let mut next = roll.clone();
                    next.push(face);
                    next
                })
            })
            .collect();
    }
    rolls
}

/// The single-cast outcome of one roll, worked out from the seed's words directly.
fn judge(roll: &[i64], target: i64, faces: i64, variant: bool) -> SingleCast {
    let total: i64 = roll.iter().sum();
    let ones = roll.iter().filter(|&&d| d == 1).count();
    let sixes = roll.iter().filter(|&&d| d == 6).count();
    let success = total >= target;
    let result = if success && sixes >= 2 {
        CastResult::Empowered
    } else if success {
        CastResult::Success
    } else if ones >= 2 {
        CastResult::Catastrophe
    } else {
        CastResult::Failure
    };
    let loses = !variant || success || ones >= 2;
    let removed = if loses {
        roll.iter().filter(|&&d| d <= faces).count()
    } else {
        0
    };
    SingleCast { result, removed }
}

/// Outcome counts of committing `dice` dice, by enumerating all 6^dice rolls.
fn brute_outcomes(
    dice: usize,
    target: i64,
    faces: i64,
    variant: bool,
) -> BTreeMap<SingleCast, u64> {
    let mut counts = BTreeMap::new();
    for roll in every_roll(dice) {
        *counts
            .entry(judge(&roll, target, faces, variant))
            .or_insert(0) += 1;
    }
    counts
}

fn counts_to_distribution(counts: &BTreeMap<SingleCast, u64>) -> Distribution<SingleCast> {
    Distribution::from_weights(counts.iter().map(|(o, &c)| (*o, Weight::from(c)))).unwrap()
}

/// Dice committed at each pool size.
type Commit = Box<dyn Fn(usize) -> usize>;

fn six_to(dice: usize) -> u64 {
    6u64.pow(dice as u32)
}

// ---------------------------------------------------------------------------------------------------
// 001-M1, S1, A5: the pool.

#[test]
fn m1_pool_is_two_plus_level_and_s1_sleep_restores_it() {
    for level in 1..=20 {
        let rested = Caster::rested(level, &limits()).unwrap();
        assert_eq!(rested.pool(), 2 + level as usize);
        assert_eq!(rested.max_pool(), rested.pool());
        let tired = caster(level, 0);
        assert_eq!(tired.rest(), rested);
    }
    assert_eq!(Caster::rested(0, &limits()), Err(SpellDiceError::Level(0)));
    assert_eq!(
        Caster::with_pool(1, 4, &limits()),
        Err(SpellDiceError::PoolTooLarge {
            pool: 4,
            level: 1,
            max: 3
        })
    );
}

#[test]
fn a5_can_reach_needs_the_whole_pool_at_six() {
    assert!(!caster(1, 1).can_reach(8));
    assert!(caster(1, 2).can_reach(8));
    assert!(caster(1, 2).can_reach(12));
    assert!(!caster(1, 2).can_reach(13));
    assert!(!caster(1, 0).can_reach(1));
    for target in 1..=40 {
        let fewest = (1..).find(|&n| 6 * n as i64 >= target).unwrap();
        assert_eq!(minimum_dice(target), fewest, "target {target}");
    }
}

// ---------------------------------------------------------------------------------------------------
// 001-M2, M3: the cast and the seed's worked example.

#[test]
fn m2_m3_seed_example_2_4_5_against_9_succeeds_and_loses_the_2() {
    let third_level = Caster::rested(3, &limits()).unwrap();
    assert_eq!(third_level.pool(), 5);
    let request = CastRequest::new(spell(2), 3);
    let done = cast_with(&third_level, &request, &base(), &[2, 4, 5]).unwrap();
    assert_eq!(done.dice, vec![2, 4, 5]);
    assert_eq!(done.outcome.total, 11);
    assert_eq!(done.outcome.target, 9);
    assert_eq!(done.outcome.result, CastResult::Success);
    assert_eq!(done.outcome.removed, 1);
    assert_eq!(done.state.pool(), 4);
    // The transition is pure: the caster before is unchanged.
    assert_eq!(third_level.pool(), 5);
}

#[test]
fn m2_level_agnostic_spells_target_8_and_spell_levels_are_1_to_9() {
    assert_eq!(SpellLevel::AGNOSTIC.target(), 8);
    assert_eq!(spell(9).target(), 16);
    assert_eq!(SpellLevel::new(0), Err(SpellDiceError::SpellLevel(0)));
    assert_eq!(SpellLevel::new(10), Err(SpellDiceError::SpellLevel(10)));
    assert_eq!(SpellLevel::all().count(), 9);
}

#[test]
fn m2_a1_commitment_is_1_to_pool_and_short_commitments_are_legal() {
    let state = caster(1, 3);
    assert_eq!(
        cast_with(&state, &CastRequest::new(spell(1), 4), &base(), &[6; 4]),
        Err(SpellDiceError::NotEnoughSpellDice {
            committed: 4,
            pool: 3
        })
    );
    assert_eq!(
        cast_with(&state, &CastRequest::new(spell(1), 0), &base(), &[]),
        Err(SpellDiceError::NoDice)
    );
    // One die cannot reach 8, but may be rolled (and lost).
    let one = cast_with(&state, &CastRequest::new(spell(1), 1), &base(), &[2]).unwrap();
    assert_eq!(
        (one.outcome.result, one.state.pool()),
        (CastResult::Failure, 2)
    );
}

#[test]
fn m3_failure_also_removes_and_the_removal_faces_are_a_knob() {
    let state = caster(2, 4);
    let request = CastRequest::new(spell(1), 3);
    let failed = cast_with(&state, &request, &base(), &[1, 2, 3]).unwrap();
    assert_eq!(failed.outcome.result, CastResult::Failure);
    assert_eq!((failed.outcome.removed, failed.state.pool()), (2, 2));
    for (faces, removed) in [(1, 1), (2, 2), (3, 3), (6, 3)] {
        let options = SpellDiceOptions {
            removal_faces: RemovalFaces::up_to(faces).unwrap(),
            ..base()
        };
        let done = cast_with(&state, &request, &options, &[1, 2, 3]).unwrap();
        assert_eq!(done.outcome.removed, removed, "faces 1..={faces}");
    }
    assert_eq!(RemovalFaces::up_to(0), Err(SpellDiceError::RemovalFaces(0)));
    assert_eq!(RemovalFaces::up_to(7), Err(SpellDiceError::RemovalFaces(7)));
}

// ---------------------------------------------------------------------------------------------------
// 001-M4, M6, M7.

#[test]
fn m4_catastrophe_needs_a_failure_and_empowerment_a_success() {
    let state = caster(3, 5);
    let request = CastRequest::new(spell(1), 3);
    let cases = [
        (vec![1, 1, 3], CastResult::Catastrophe),
        (vec![1, 1, 6], CastResult::Success), // 8 meets 8: snake eyes without catastrophe
        (vec![6, 6, 1], CastResult::Empowered),
        (vec![1, 3, 3], CastResult::Failure),
        (vec![6, 1, 1], CastResult::Success),
    ];
    for (dice, result) in cases {
        let done = cast_with(&state, &request, &base(), &dice).unwrap();
        assert_eq!(done.outcome.result, result, "{dice:?}");
    }
    // Boxcars on a failed ninth-level spell are just a failure.
    let ninth = CastRequest::new(spell(9), 3);
    let done = cast_with(&state, &ninth, &base(), &[6, 6, 2]).unwrap();
    assert_eq!(done.outcome.result, CastResult::Failure);
}

#[test]
fn m6_a4_variant_keeps_dice_on_a_plain_failure_only() {
    let state = caster(3, 5);
    let request = CastRequest::new(spell(1), 3);
    let variant = SpellDiceOptions::variant();
    assert_eq!(variant.removal_timing, RemovalTiming::SuccessOrCatastrophe);
    for (dice, removed) in [
        (vec![1, 2, 3], 0), // plain failure: nothing lost
        (vec![1, 1, 3], 2), // catastrophe: the 1s go
        (vec![2, 4, 5], 1), // success: the 2 goes
        (vec![2, 2, 4], 2), // success at exactly 8
    ] {
        let done = cast_with(&state, &request, &variant, &dice).unwrap();
        assert_eq!(done.outcome.removed, removed, "{dice:?}");
        assert_eq!(done.state.pool(), 5 - removed);
    }
}

#[test]
fn m7_penalties_subtract_from_the_total() {
    let state = caster(1, 3);
    let mut request = CastRequest::new(spell(1), 2);
    request.penalties = Penalties {
        armour: 2,
        encumbrance: 1,
    };
    let done = cast_with(&state, &request, &base(), &[5, 5]).unwrap();
    assert_eq!(
        (done.outcome.total, done.outcome.result),
        (7, CastResult::Failure)
    );
    let done = cast_with(&state, &request, &base(), &[6, 5]).unwrap();
    assert_eq!(
        (done.outcome.total, done.outcome.result),
        (8, CastResult::Success)
    );
    request.penalties.armour = -1;
    assert_eq!(
        cast_with(&state, &request, &base(), &[6, 6]),
        Err(SpellDiceError::NegativePenalty {
            penalty: "armour",
            value: -1
        })
    );
    // Penalties move the effective target in the odds too: 2 dice, −1 against 8 = 2 dice against 9.
    let penalised = cast_odds(spell(1), 2, 1, &limits()).unwrap();
    let harder = cast_odds(spell(2), 2, 0, &limits()).unwrap();
    assert_eq!(penalised, harder);
}

// ---------------------------------------------------------------------------------------------------
// 001-M5, A3: life energy.

#[test]
fn m5_a3_life_dice_need_an_empty_pool_deal_their_face_and_are_not_removed() {
    let empty = caster(2, 0);
    let request = CastRequest {
        life_dice: 2,
        ..CastRequest::new(spell(1), 0)
    };
    let done = cast_with(&empty, &request, &base(), &[3, 5]).unwrap();
    assert_eq!(done.outcome.life_dice, vec![3, 5]);
    assert_eq!(done.outcome.result, CastResult::Success);
    assert_eq!((done.outcome.life_damage, done.outcome.removed), (8, 0));
    assert_eq!(done.state.pool(), 0);
    // Damage whether or not the spell succeeds; life dice count for snake eyes.
    let done = cast_with(&empty, &request, &base(), &[1, 1]).unwrap();
    assert_eq!(done.outcome.result, CastResult::Catastrophe);
    assert_eq!(done.outcome.life_damage, 2);
    let one_each = SpellDiceOptions {
        life_damage: LifeDamage::One,
        ..base()
    };
    let done = cast_with(&empty, &request, &one_each, &[4, 6]).unwrap();
    assert_eq!(done.outcome.life_damage, 2);
    // At most `level` life dice.
    let three = CastRequest {
        life_dice: 3,
        ..request
    };
    assert_eq!(
        cast_with(&empty, &three, &base(), &[1, 1, 1]),
        Err(SpellDiceError::TooManyLifeDice { life: 3, level: 2 })
    );
    // Only once the pool is empty, unless mixing.
    let mixed = CastRequest {
        life_dice: 1,
        ..CastRequest::new(spell(1), 1)
    };
    let stocked = caster(2, 1);
    assert_eq!(
        cast_with(&stocked, &mixed, &base(), &[2, 6]),
        Err(SpellDiceError::LifeDiceBeforeDepleted { pool: 1 })
    );
    let mixing = SpellDiceOptions {
        life_dice_use: LifeDiceUse::Mixing,
        ..base()
    };
    let done = cast_with(&stocked, &mixed, &mixing, &[2, 6]).unwrap();
    assert_eq!(done.outcome.spell_dice, vec![2]);
    assert_eq!(done.outcome.life_dice, vec![6]);
    assert_eq!(done.dice, vec![2, 6]);
    assert_eq!(
        (
            done.outcome.result,
            done.outcome.removed,
            done.outcome.life_damage
        ),
        (CastResult::Success, 1, 6)
    );
    assert_eq!(done.state.pool(), 0);
}

// ---------------------------------------------------------------------------------------------------
// 001-M8, A2, E001-1..4: single-cast analyses.

/// C(n, k).
fn choose(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// Rolls of `dice` d6 with exactly `ones` 1s and `sixes` 6s.
fn rolls_with(dice: u64, ones: u64, sixes: u64) -> u64 {
    if ones + sixes > dice {
        return 0;
    }
    choose(dice, ones) * choose(dice - ones, sixes) * 4u64.pow((dice - ones - sixes) as u32)
}

#[test]
fn m8_a2_extremes_for_1_to_12_dice_against_multinomial_counts() {
    for dice in 1..=12u64 {
        let total = six_to(dice as usize);
        let fewer_than_two = |count: &dyn Fn(u64, u64) -> bool| -> u64 {
            (0..=dice)
                .flat_map(|o| (0..=dice).map(move |s| (o, s)))
                .filter(|&(o, s)| count(o, s))
                .map(|(o, s)| rolls_with(dice, o, s))
                .sum()
        };
        let snake = fewer_than_two(&|o, _| o >= 2);
        let either = fewer_than_two(&|o, s| o >= 2 || s >= 2);
        let both = fewer_than_two(&|o, s| o >= 2 && s >= 2);
        let odds = extreme_odds(dice as usize, &limits()).unwrap();
        assert_eq!(odds.snake_eyes, ratio(snake, total), "{dice} dice");
        assert_eq!(odds.boxcars, odds.snake_eyes);
        assert_eq!(odds.either, ratio(either, total), "{dice} dice");
        assert_eq!(odds.both, ratio(both, total), "{dice} dice");
    }
}

#[test]
fn e001_1_to_3_the_seeds_numbers_are_one_extreme_not_either() {
    let odds = |dice| extreme_odds(dice, &limits()).unwrap();
    assert_eq!(odds(2).snake_eyes, ratio(1, 36));
    assert_eq!(odds(3).snake_eyes, ratio(16, 216));
    assert_eq!(odds(4).snake_eyes, ratio(171, 1296));
    assert_eq!(odds(2).either, ratio(1, 18));
    assert_eq!(odds(3).either, ratio(4, 27));
    assert_eq!(odds(4).either, ratio(7, 27));
    assert_eq!(odds(4).both, ratio(6, 1296));
}

#[test]
fn e001_4_catastrophe_rates_at_target_8() {
    let catastrophe = |dice| cast_odds(spell(1), dice, 0, &limits()).unwrap().catastrophe;
    assert_eq!(catastrophe(2), ratio(1, 36));
    assert_eq!(catastrophe(3), ratio(13, 216));
    assert_eq!(catastrophe(4), ratio(31, 1296));
    assert_eq!(catastrophe(5), ratio(7, 2592));
}

/// Ways per (sum, ones capped at 2, sixes capped at 2) of `dice` d6: a small recursion of this test's
/// own, in machine integers (6^12 < 2^32 · 2^32).
fn sum_extremes(dice: usize) -> BTreeMap<(i64, u8, u8), u64> {
    let mut ways = BTreeMap::from([((0, 0, 0), 1u64)]);
    for _ in 0..dice {
        let mut next = BTreeMap::new();
        for (&(sum, ones, sixes), &w) in &ways {
            for face in 1..=6 {
                let key = (
                    sum + face,
                    (ones + u8::from(face == 1)).min(2),
                    (sixes + u8::from(face == 6)).min(2),
                );
                *next.entry(key).or_insert(0) += w;
            }
        }
        ways = next;
    }
    ways
}

#[test]
fn m8_success_catastrophe_empowered_by_spell_level_1_to_9_and_dice_1_to_12() {
    for dice in 1..=12 {
        let ways = sum_extremes(dice);
        let total = six_to(dice);
        for level in SpellLevel::all() {
            let target = level.target();
            let count = |keep: &dyn Fn(i64, u8, u8) -> bool| -> u64 {
                ways.iter()
                    .filter(|&(&(s, o, x), _)| keep(s, o, x))
                    .map(|(_, &w)| w)
                    .sum()
            };
            let odds = cast_odds(level, dice, 0, &limits()).unwrap();
            let success = count(&|s, _, _| s >= target);
            let catastrophe = count(&|s, o, _| s < target && o >= 2);
            let empowered = count(&|s, _, x| s >= target && x >= 2);
            assert_eq!(odds.success, ratio(success, total), "{dice} dice, {level}");
            assert_eq!(odds.catastrophe, ratio(catastrophe, total));
            assert_eq!(odds.empowered, ratio(empowered, total));
        }
    }
}

#[test]
fn m8_single_cast_distribution_matches_every_roll() {
    for dice in 1..=5 {
        for level in [1, 2, 5, 9] {
            for faces in 1..=3 {
                for variant in [false, true] {
                    let options = SpellDiceOptions {
                        removal_faces: RemovalFaces::up_to(faces).unwrap(),
                        removal_timing: if variant {
                            RemovalTiming::SuccessOrCatastrophe
                        } else {
                            RemovalTiming::Always
                        },
                        ..base()
                    };
                    let exact =
                        single_cast_distribution(spell(level), dice, 0, &options, &limits())
                            .unwrap();
                    let brute = brute_outcomes(dice, spell(level).target(), faces, variant);
                    assert_eq!(exact, counts_to_distribution(&brute));
                    assert_eq!(exact.total(), &Weight::from(six_to(dice)));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// 001-M8, E001-5: a day of casting.

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Day {
    Casting {
        pool: usize,
        succeeded: bool,
    },
    /// A success just counted: one extra step, so the chain's expected steps count successes twice.
    Counted {
        pool: usize,
    },
    Over {
        succeeded: bool,
    },
}

/// A day of casting as an omen-core Chain with transitions from brute force: returns
/// (P(no success before exhaustion), expected successes). Expected successes are the expected steps
/// of a chain in which every success takes an extra step, minus those of the plain chain.
fn chain_day(
    full: usize,
    target: i64,
    commit: &dyn Fn(usize) -> usize,
    variant: bool,
) -> (Probability, Ratio<num_bigint::BigInt>) {
    let minimum = minimum_dice(target);
    let outcomes: Vec<BTreeMap<SingleCast, u64>> = (0..=full)
        .map(|k| {
            if k == 0 {
                BTreeMap::new()
            } else {
                brute_outcomes(k, target, 2, variant)
            }
        })
        .collect();
    let solve = |count_successes: bool| {
        let start = Distribution::constant(Day::Casting {
            pool: full,
            succeeded: false,
        });
        let chain = Chain::explore(
            &start,
            &limits(),
            &mut Budget::unlimited(),
            |e| e,
            |day| {
                Ok(match *day {
                    Day::Over { .. } => Distribution::constant(day.clone()),
                    Day::Counted { pool } => Distribution::constant(Day::Casting {
                        pool,
                        succeeded: true,
                    }),
                    Day::Casting { pool, succeeded } if pool < minimum => {
                        Distribution::constant(Day::Over { succeeded })
                    }
                    Day::Casting { pool, succeeded } => {
                        let pairs = outcomes[commit(pool)].iter().map(|(o, &c)| {
                            let left = pool - o.removed;
                            let next = if o.result.is_success() && count_successes {
                                Day::Counted { pool: left }
                            } else {
                                Day::Casting {
                                    pool: left,
                                    succeeded: succeeded || o.result.is_success(),
                                }
                            };
                            (next, Weight::from(c))
                        });
                        Distribution::from_weights(pairs)?
                    }
                })
            },
        )
        .unwrap();
        chain.absorption(&mut Budget::unlimited()).unwrap()
    };
    let plain = solve(false);
    let counted = solve(true);
    let exhausted = plain
        .distribution
        .probability(&Day::Over { succeeded: false });
    (exhausted, counted.expected_steps - plain.expected_steps)
}

fn exhaustion(
    level: i64,
    spell_level: i64,
    strategy: Strategy,
    options: &SpellDiceOptions,
) -> (Probability, Ratio<BigUint>) {
    let day = exhaust(level, spell(spell_level), strategy, options, &limits()).unwrap();
    (day.exhausted_before_success, day.expected_successes)
}

fn as_signed(r: &Ratio<BigUint>) -> Ratio<num_bigint::BigInt> {
    Ratio::new(r.numer().clone().into(), r.denom().clone().into())
}

#[test]
fn e001_5_level_1_target_8_anchors() {
    let variant = SpellDiceOptions::variant();
    assert_eq!(exhaustion(1, 1, Strategy::All, &base()).0, ratio(185, 1188));
    assert_eq!(
        exhaustion(1, 1, Strategy::Minimum, &base()).0,
        ratio(128, 363)
    );
    assert_eq!(
        exhaustion(1, 1, Strategy::Fixed(2), &base()).0,
        ratio(128, 363)
    );
    assert_eq!(exhaustion(1, 1, Strategy::All, &variant).0, ratio(13, 194));
    assert_eq!(
        exhaustion(1, 1, Strategy::Minimum, &variant).0,
        ratio(1, 16)
    );
    // Commit-all is optimal at level 1 (E001-5).
    let optimal = exhaust(1, spell(1), Strategy::Optimal, &base(), &limits()).unwrap();
    assert_eq!(optimal.exhausted_before_success, ratio(185, 1188));
    assert_eq!(optimal.commitments, vec![0, 0, 2, 3]);
    // Under the variant, committing the minimum is the better policy.
    let optimal = exhaust(1, spell(1), Strategy::Optimal, &variant, &limits()).unwrap();
    assert_eq!(optimal.exhausted_before_success, ratio(1, 16));
    assert_eq!(optimal.commitments, vec![0, 0, 2, 2]);
}

#[test]
fn m8_reference_tables_show_the_errata_values() {
    let extremes = spelldice::extremes_table();
    let four = extremes.lines().nth(5).unwrap();
    assert!(four.starts_with("|    4 |"), "{four}");
    assert!(four.contains(" 13.19% ") && four.contains(" 25.93% ") && four.contains(" 0.46% "));
    let exhaustion = spelldice::exhaustion_table();
    let level_one: Vec<&str> = exhaustion.lines().skip(2).take(6).collect();
    for (line, percent) in level_one
        .iter()
        .zip(["15.57", "35.26", "15.57", "6.70", "6.25", "6.25"])
    {
        assert!(line.contains(&format!(" {percent}% ")), "{line}");
    }
    assert!(level_one[0].contains(" 1.6645 "), "{}", level_one[0]);
    let tables: Vec<&str> = SpellDice.tables().iter().map(|t| t.name).collect();
    assert_eq!(tables, ["extremes", "exhaustion", "courtney"]);
    assert_eq!((SpellDice.tables()[0].render)(), extremes);
}

#[test]
fn m8_exhaustion_matches_brute_force_chains_for_levels_1_to_4() {
    for level in 1..=4i64 {
        let full = level as usize + 2;
        for spell_level in 1..=level {
            let target = spell(spell_level).target();
            let minimum = minimum_dice(target);
            let mut strategies: Vec<(Strategy, Commit)> = vec![
                (Strategy::All, Box::new(|pool| pool)),
                (Strategy::Minimum, Box::new(move |_| minimum)),
            ];
            for k in minimum..=full {
                strategies.push((Strategy::Fixed(k), Box::new(move |pool: usize| k.min(pool))));
            }
            for (strategy, commit) in &strategies {
                for variant in [false, true] {
                    let options = if variant {
                        SpellDiceOptions::variant()
                    } else {
                        base()
                    };
                    let (exhausted, successes) =
                        exhaustion(level, spell_level, *strategy, &options);
                    let (chain_exhausted, chain_successes) =
                        chain_day(full, target, commit.as_ref(), variant);
                    let context = format!(
                        "level {level}, spell {spell_level}, {strategy}, variant {variant}"
                    );
                    assert_eq!(exhausted, chain_exhausted, "{context}");
                    assert_eq!(as_signed(&successes), chain_successes, "{context}");
                }
            }
        }
    }
}

/// Every stationary policy (dice committed per pool size) for a small day, each solved as a chain:
/// the optimal strategy must match the best of them.
#[test]
fn m8_optimal_is_the_best_commitment_per_pool_size() {
    for (level, spell_level) in [(1, 1), (2, 1), (3, 1), (3, 2), (3, 3)] {
        let full = level as usize + 2;
        let target = spell(spell_level).target();
        let minimum = minimum_dice(target);
        for variant in [false, true] {
            let options = if variant {
                SpellDiceOptions::variant()
            } else {
                base()
            };
            // Policies: one choice in minimum..=pool for every reachable pool size.
            let mut policies: Vec<Vec<usize>> = vec![vec![0; full + 1]];
            for pool in minimum..=full {
                policies = policies
                    .into_iter()
                    .flat_map(|policy| {
                        (minimum..=pool).map(move |k| {
                            let mut next = policy.clone();
                            next[pool] = k;
                            next
                        })
                    })
                    .collect();
            }
            let best = policies
                .iter()
                .map(|policy| chain_day(full, target, &|pool| policy[pool], variant).0)
                .min()
                .unwrap();
            let optimal = exhaust(
                level,
                spell(spell_level),
                Strategy::Optimal,
                &options,
                &limits(),
            )
            .unwrap();
            assert_eq!(
                optimal.exhausted_before_success, best,
                "level {level}, spell {spell_level}, variant {variant}"
            );
            let (_, successes) =
                chain_day(full, target, &|pool| optimal.commitments[pool], variant);
            assert_eq!(as_signed(&optimal.expected_successes), successes);
        }
    }
}

#[test]
fn m8_strategies_parse_and_short_fixed_commitments_are_refused() {
    assert_eq!("all".parse(), Ok(Strategy::All));
    assert_eq!("minimum".parse(), Ok(Strategy::Minimum));
    assert_eq!("optimal".parse(), Ok(Strategy::Optimal));
    assert_eq!("fixed:3".parse(), Ok(Strategy::Fixed(3)));
    assert_eq!(Strategy::Fixed(3).to_string(), "fixed:3");
    assert_eq!(
        "fixed:x".parse::<Strategy>(),
        Err(SpellDiceError::Strategy("fixed:x".to_string()))
    );
    assert_eq!(
        exhaust(1, spell(1), Strategy::Fixed(1), &base(), &limits()),
        Err(SpellDiceError::CommitmentCannotReach { dice: 1, target: 8 })
    );
    // Fixed K beyond the pool commits the whole pool.
    assert_eq!(
        exhaust(1, spell(1), Strategy::Fixed(5), &base(), &limits()),
        exhaust(1, spell(1), Strategy::All, &base(), &limits())
    );
}

#[test]
fn registry_describes_spelldice() {
    let rules = find("spelldice").expect("registered");
    assert_eq!(rules.tag(), "001");
    assert_eq!(rules.name(), SpellDice.name());
    assert!(rules.spec_items().contains(&"001-M8"));
    let defaults: Vec<&str> = rules.options().iter().map(|o| o.default).collect();
    assert_eq!(defaults, ["2", "always", "face", "when-depleted"]);
    assert_eq!(RemovalTiming::default().name(), rules.options()[1].default);
}

#[test]
fn d1_courtneys_threefold_table_is_data_with_the_seeds_values() {
    use spelldice::{COURTNEY_RESULTS, CourtneyTiming, courtney_result};
    let rows: Vec<(i64, i64, CourtneyTiming, bool)> = COURTNEY_RESULTS
        .iter()
        .map(|row| {
            (
                *row.results.start(),
                *row.results.end(),
                row.timing,
                row.spell_lost,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (1, 5, CourtneyTiming::EndOfRound, true),
            (6, 8, CourtneyTiming::EndOfRound, false),
            (9, 12, CourtneyTiming::Instantly, false),
        ]
    );
    assert_eq!(
        COURTNEY_RESULTS[0].text,
        "spell goes off at the end of the round, lose the spell"
    );
    // Every result 1..=12 falls in exactly one row; nothing outside does.
    for result in 1..=12 {
        let matching = COURTNEY_RESULTS
            .iter()
            .filter(|row| row.results.contains(&result))
            .count();
        assert_eq!(matching, 1, "{result}");
        assert!(courtney_result(result).is_some());
    }
    assert!(courtney_result(0).is_none() && courtney_result(13).is_none());
    assert_eq!(
        spelldice::courtney_table(),
        "| result | effect |\n|-------:|:-------|\n\
         |    1-5 | spell goes off at the end of the round, lose the spell |\n\
         |    6-8 | spell goes off at the end of the round |\n\
         |   9-12 | spell goes off instantly |\n"
    );
}

#[test]
fn a6_courtneys_table_is_reference_data_that_no_cast_consults() {
    let rules = find("spelldice").expect("registered");
    let table = rules
        .tables()
        .iter()
        .find(|t| t.name == "courtney")
        .expect("listed as a reference table");
    assert_eq!(table.spec_items, ["001-D1", "001-A6"]);
    assert_eq!((table.render)(), spelldice::courtney_table());
    // No mechanic or option claims it: a cast reads 7 + spell level, never the table.
    assert!(
        rules
            .mechanics()
            .iter()
            .all(|m| !m.spec_items.contains(&"001-D1") && !m.spec_items.contains(&"001-A6"))
    );
    assert!(rules.options().iter().all(|o| o.spec_item != "001-A6"));
    // A total of 5 is simply a failure against 8: no row of the table enters the result.
    let done = cast_with(
        &caster(1, 3),
        &CastRequest::new(spell(1), 2),
        &base(),
        &[2, 3],
    )
    .unwrap();
    assert_eq!(done.outcome.result, CastResult::Failure);
    assert_eq!(done.outcome.total, 5);
}

#[test]
fn m8_most_casts_maximises_expected_successes_over_every_policy() {
    // The anchor: level 2, spell level 1, base rule.
    let most = exhaust(2, spell(1), Strategy::MostCasts, &base(), &limits()).unwrap();
    assert_eq!(
        most.expected_successes,
        Ratio::new(7159u32.into(), 2888u32.into())
    );
    let optimal = exhaust(2, spell(1), Strategy::Optimal, &base(), &limits()).unwrap();
    assert_eq!(
        optimal.expected_successes,
        Ratio::new(45623u32.into(), 19760u32.into())
    );
    assert_eq!("most-casts".parse(), Ok(Strategy::MostCasts));
    for (level, spell_level) in [(1, 1), (2, 1), (3, 1), (3, 2)] {
        let full = level as usize + 2;
        let target = spell(spell_level).target();
        let minimum = minimum_dice(target);
        for variant in [false, true] {
            let options = if variant {
                SpellDiceOptions::variant()
            } else {
                base()
            };
            let mut policies: Vec<Vec<usize>> = vec![vec![0; full + 1]];
            for pool in minimum..=full {
                policies = policies
                    .into_iter()
                    .flat_map(|policy| {
                        (minimum..=pool).map(move |k| {
                            let mut next = policy.clone();
                            next[pool] = k;
                            next
                        })
                    })
                    .collect();
            }
            // Every policy's day solved as a Markov chain from brute-force transitions.
            let best = policies
                .iter()
                .map(|policy| chain_day(full, target, &|pool| policy[pool], variant).1)
                .max()
                .unwrap();
            let most = exhaust(
                level,
                spell(spell_level),
                Strategy::MostCasts,
                &options,
                &limits(),
            )
            .unwrap();
            assert_eq!(
                as_signed(&most.expected_successes),
                best,
                "level {level}, spell {spell_level}, variant {variant}"
            );
            let (exhausted, _) = chain_day(full, target, &|pool| most.commitments[pool], variant);
            assert_eq!(most.exhausted_before_success, exhausted);
        }
    }
}

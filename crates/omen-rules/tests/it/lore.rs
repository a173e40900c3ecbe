//! The Lore check (000-M1..M5, A1, A2): pools, exact probabilities against closed forms computed here,
//! replays with given dice, and validation errors.
//! Seed 000: a test named `m1_…` covers 000-M1.

use omen_core::{ChaChaDice, CoreError, Distribution, Limits, Probability, ScriptedDice};
use omen_lang::{Options, ValueDistribution, compile, exact};
use omen_rules::ritual::{
    Difficulty, FamiliarityBonuses, LoreCheck, LoreDice, LoreModifiers, LoreRoll, RitualError,
    RitualOptions,
};
use proptest::prelude::*;

use crate::support::{one, ratio};

fn limits() -> Limits {
    Limits::default()
}

fn difficulty(value: i64) -> Difficulty {
    Difficulty::new(value).unwrap()
}

fn lore_check(lore: i64, t: i64, modifiers: LoreModifiers) -> LoreCheck {
    LoreCheck::new(
        lore,
        difficulty(t),
        &modifiers,
        &RitualOptions::default(),
        &limits(),
    )
    .unwrap()
}

fn pool_check(pool: i64, t: i64) -> LoreCheck {
    LoreCheck::from_pool(pool, difficulty(t), &limits()).unwrap()
}

/// p = (7 − t)/6: one die meets difficulty t.
fn single_die(t: u64) -> Probability {
    ratio(7 - t, 6)
}

#[test]
fn m1_each_modifier_adds_its_dice() {
    let options = RitualOptions::default();
    let none = LoreModifiers::default();
    let cases = [
        (
            LoreModifiers {
                inventing: true,
                ..none
            },
            -2,
        ),
        (
            LoreModifiers {
                modifying: true,
                ..none
            },
            -1,
        ),
        (
            LoreModifiers {
                unfamiliar_language: true,
                ..none
            },
            -1,
        ),
        (
            LoreModifiers {
                foreign_tradition: true,
                ..none
            },
            -1,
        ),
        (
            LoreModifiers {
                deciphered_before: true,
                ..none
            },
            1,
        ),
        (
            LoreModifiers {
                performed_before: true,
                ..none
            },
            2,
        ),
        (none, 0),
    ];
    for (modifiers, dice) in cases {
        assert_eq!(modifiers.dice(&options), dice, "{modifiers:?}");
    }
}

#[test]
fn m2_pool_is_lore_plus_all_modifiers() {
    let all = LoreModifiers {
        inventing: true,
        modifying: true,
        unfamiliar_language: true,
        foreign_tradition: true,
        deciphered_before: true,
        performed_before: true,
    };
    // −2 −1 −1 −1 +1 +2 = −2.
    assert_eq!(lore_check(7, 4, all).pool(), 5);
    let translated_foreign = LoreModifiers {
        unfamiliar_language: true,
        foreign_tradition: true,
        ..LoreModifiers::default()
    };
    assert_eq!(lore_check(3, 4, translated_foreign).pool(), 1);
    assert_eq!(lore_check(3, 4, LoreModifiers::default()).pool(), 3);
}

#[test]
fn m3_difficulty_one_is_automatic() {
    for pool in [-3, 0, 1, 12] {
        let check = pool_check(pool, 1);
        assert_eq!(check.dice(), LoreDice::Automatic);
        assert_eq!(check.success_probability(&limits()).unwrap(), one());
        assert_eq!(check.result_distribution(&limits()).unwrap(), None);
        let mut no_dice = ScriptedDice::new(vec![]);
        let roll = check.roll(&mut no_dice).unwrap();
        assert_eq!(
            roll,
            LoreRoll {
                dice: vec![],
                result: None,
                success: true
            }
        );
    }
}

#[test]
fn m4_highest_die_of_the_pool_counts() {
    let check = pool_check(4, 6);
    assert_eq!(check.dice(), LoreDice::HighestOf(4));
    let roll = check
        .roll(&mut ScriptedDice::new(vec![3, 6, 1, 2]))
        .unwrap();
    assert_eq!(roll.result, Some(6));
    assert!(roll.success);
    let roll = check
        .roll(&mut ScriptedDice::new(vec![3, 5, 1, 5]))
        .unwrap();
    assert_eq!(roll.result, Some(5));
    assert!(!roll.success);
}

#[test]
fn m5_lore_success_probability() {
    for t in 1..=6u64 {
        let p = single_die(t);
        for pool in -3..=20i64 {
            let expected = if t == 1 {
                one()
            } else if pool >= 1 {
                one() - num_traits::pow(one() - &p, pool as usize)
            } else {
                &p * &p
            };
            let actual = pool_check(pool, t as i64)
                .success_probability(&limits())
                .unwrap();
            assert_eq!(actual, expected, "pool {pool}, difficulty {t}");
        }
    }
    // A few by hand: 1 die vs 4 is 1/2; 2 dice vs 6 is 11/36; pool 0 vs 6 is 1/36.
    assert_eq!(
        pool_check(1, 4).success_probability(&limits()).unwrap(),
        ratio(1, 2)
    );
    assert_eq!(
        pool_check(2, 6).success_probability(&limits()).unwrap(),
        ratio(11, 36)
    );
    assert_eq!(
        pool_check(0, 6).success_probability(&limits()).unwrap(),
        ratio(1, 36)
    );
}

#[test]
fn m5_result_pmf() {
    // Highest of n: P(r) = (r^n − (r−1)^n) / 6^n.
    for n in 1..=10usize {
        let result = pool_check(n as i64, 2)
            .result_distribution(&limits())
            .unwrap()
            .unwrap();
        let total = 6u64.pow(n as u32);
        for r in 1..=6u64 {
            let ways = r.pow(n as u32) - (r - 1).pow(n as u32);
            assert_eq!(
                result.probability(&(r as i64)),
                ratio(ways, total),
                "{n} dice, {r}"
            );
        }
    }
    // Lower of two: P(r) = ((7−r)² − (6−r)²) / 36.
    let result = pool_check(0, 2)
        .result_distribution(&limits())
        .unwrap()
        .unwrap();
    for r in 1..=6u64 {
        let ways = (7 - r).pow(2) - (6 - r).pow(2);
        assert_eq!(result.probability(&(r as i64)), ratio(ways, 36));
    }
}

/// The dice language computes the same pmfs: `nd6kh1` and `2d6kl1`.
#[test]
fn m5_result_pmf_agrees_with_the_dice_language() {
    let options = Options::default();
    let language = |source: &str| -> Distribution<i64> {
        let compiled = compile(source, &options).unwrap();
        match exact(&compiled.program, &options.limits)
            .unwrap()
            .distribution
        {
            ValueDistribution::Int(d) => d,
            _ => panic!("{source} is not a number"),
        }
    };
    for n in 1..=8i64 {
        let ours = pool_check(n, 3)
            .result_distribution(&limits())
            .unwrap()
            .unwrap();
        assert_eq!(ours, language(&format!("{n}d6kh1")), "{n} dice");
    }
    for pool in [-2, -1, 0] {
        let ours = pool_check(pool, 3)
            .result_distribution(&limits())
            .unwrap()
            .unwrap();
        assert_eq!(ours, language("2d6kl1"), "pool {pool}");
    }
}

#[test]
fn a1_negative_pool_uses_two_dice_keep_lower() {
    // Lore 0, inventing from scratch: pool −2.
    let inventing = LoreModifiers {
        inventing: true,
        ..LoreModifiers::default()
    };
    let check = lore_check(0, 3, inventing);
    assert_eq!(check.pool(), -2);
    assert_eq!(check.dice(), LoreDice::LowerOfTwo);
    let p = single_die(3);
    assert_eq!(check.success_probability(&limits()).unwrap(), &p * &p);
    let roll = check.roll(&mut ScriptedDice::new(vec![5, 2])).unwrap();
    assert_eq!(
        roll,
        LoreRoll {
            dice: vec![5, 2],
            result: Some(2),
            success: false
        }
    );
    let roll = check.roll(&mut ScriptedDice::new(vec![4, 6])).unwrap();
    assert_eq!(roll.result, Some(4));
    assert!(roll.success);
}

#[test]
fn a2_familiarity_bonuses_stack_by_default() {
    let both = LoreModifiers {
        deciphered_before: true,
        performed_before: true,
        ..LoreModifiers::default()
    };
    assert_eq!(both.dice(&RitualOptions::default()), 3);
    assert_eq!(lore_check(1, 5, both).pool(), 4);
    let larger_only = RitualOptions {
        familiarity_bonuses: FamiliarityBonuses::LargerOnly,
        ..RitualOptions::default()
    };
    assert_eq!(both.dice(&larger_only), 2);
    let check = LoreCheck::new(1, difficulty(5), &both, &larger_only, &limits()).unwrap();
    assert_eq!(check.pool(), 3);
    let deciphered = LoreModifiers {
        deciphered_before: true,
        ..LoreModifiers::default()
    };
    assert_eq!(deciphered.dice(&larger_only), 1);
}

#[test]
fn lore_check_replays_fixed_dice() {
    // Lore 3, a ritual from another Tradition (−1) deciphered before (+1): 3 dice against 5.
    let modifiers = LoreModifiers {
        foreign_tradition: true,
        deciphered_before: true,
        ..LoreModifiers::default()
    };
    let check = lore_check(3, 5, modifiers);
    let mut dice = ScriptedDice::new(vec![1, 4, 2, 6]);
    let roll = check.roll(&mut dice).unwrap();
    assert_eq!(
        roll,
        LoreRoll {
            dice: vec![1, 4, 2],
            result: Some(4),
            success: false
        }
    );
    assert_eq!(dice.used(), 3);
    assert_eq!(dice.remaining(), &[6]);
}

#[test]
fn scripted_dice_that_run_out_or_are_not_d6_are_errors() {
    let check = pool_check(3, 4);
    assert_eq!(
        check.roll(&mut ScriptedDice::new(vec![1, 2])),
        Err(RitualError::Core(CoreError::ScriptExhausted(2)))
    );
    assert!(matches!(
        check.roll(&mut ScriptedDice::new(vec![1, 7, 2])),
        Err(RitualError::Core(CoreError::ScriptFace { value: 7, .. }))
    ));
}

#[test]
fn seeded_rolls_repeat() {
    let check = pool_check(5, 4);
    let first = check.roll(&mut ChaChaDice::from_seed(2024)).unwrap();
    let again = check.roll(&mut ChaChaDice::from_seed(2024)).unwrap();
    assert_eq!(first, again);
    assert_eq!(first.dice.len(), 5);
}

#[test]
fn validation_errors() {
    for bad in [0, 7, -1, i64::MAX] {
        assert_eq!(Difficulty::new(bad), Err(RitualError::Difficulty(bad)));
    }
    insta::assert_snapshot!(
        Difficulty::new(7).unwrap_err(),
        @"ritual difficulty 7 is outside 1..=6; use 1 (trivial) up to 6 (very difficult)"
    );
    let negative = LoreCheck::new(
        -1,
        difficulty(3),
        &LoreModifiers::default(),
        &RitualOptions::default(),
        &limits(),
    );
    assert_eq!(negative, Err(RitualError::NegativeLore(-1)));
    insta::assert_snapshot!(
        negative.unwrap_err(),
        @"lore -1 is negative; lore starts at 0 and only grows"
    );
    let huge = LoreCheck::new(
        i64::MAX,
        difficulty(3),
        &LoreModifiers {
            performed_before: true,
            ..LoreModifiers::default()
        },
        &RitualOptions::default(),
        &limits(),
    );
    assert!(matches!(
        huge,
        Err(RitualError::Core(CoreError::TooManyDice { .. }))
    ));
    insta::assert_snapshot!(
        LoreCheck::from_pool(20_000, difficulty(3), &limits()).unwrap_err(),
        @"too many dice: 20000 (limit 10000); lower the count or raise --max-dice"
    );
}

proptest! {
    /// A roll keeps the highest die (or the lower of two) and succeeds exactly when it meets the
    /// difficulty, using exactly the dice the pool calls for.
    #[test]
    fn roll_keeps_the_right_die(
        pool in -4i64..10,
        t in 2i64..=6,
        faces in proptest::collection::vec(1i64..=6, 12),
    ) {
        let check = pool_check(pool, t);
        let mut source = ScriptedDice::new(faces.clone());
        let roll = check.roll(&mut source).unwrap();
        let count = if pool >= 1 { pool as usize } else { 2 };
        prop_assert_eq!(&roll.dice, &faces[..count].to_vec());
        let expected = if pool >= 1 {
            faces[..count].iter().max()
        } else {
            faces[..count].iter().min()
        };
        prop_assert_eq!(roll.result, expected.copied());
        prop_assert_eq!(roll.success, roll.result.unwrap() >= t);
        prop_assert_eq!(source.used(), count);
    }
}

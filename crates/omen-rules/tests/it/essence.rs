//! The Essence check (000-M9..M12, A9..A11): the pool, exact threshold probabilities against direct
//! convolution done here, the highest threshold reached, and the pairs-for-7 shortcut.
//! Seed 000: a test named `m1_…` covers 000-M1.

use num_traits::Zero;
use omen_core::{CoreError, Limits, Probability, ScriptedDice};
use omen_rules::ritual::{
    EssenceCheck, EssenceContributions, EssenceOutcome, EssenceRoll, RitualError, RitualOptions,
    ShortcutThreshold, allowed_pairs, check_pair_shortcut, essence_success_probability,
    pair_shortcut_allowed,
};

use crate::support::{d6_sum_at_least, one};

fn limits() -> Limits {
    Limits::default()
}

fn pairs_list(dice: usize, threshold: i64, rule: ShortcutThreshold) -> Vec<usize> {
    allowed_pairs(dice, threshold, rule).iter().collect()
}

fn essence(dice: usize, thresholds: &[i64]) -> EssenceCheck {
    EssenceCheck::from_pool(dice, thresholds, &limits()).unwrap()
}

#[test]
fn m9_pool_adds_contributions_and_subtracts_penalties() {
    let contributions = EssenceContributions {
        leader: 3,
        assistants: vec![2, 1],
        time_and_place: 2,
        relics: vec![1],
        offerings: vec![2, 1],
        repeated_attempts: 1,
        other_penalties: 2,
    };
    // 3 + 2 + 1 + 2 + 1 + 2 + 1 − 1 − 2.
    assert_eq!(contributions.pool(&limits()), Ok(9));
    let check = EssenceCheck::new(&contributions, &[12], &limits()).unwrap();
    assert_eq!(check.pool(), 9);
}

#[test]
fn m9_pool_is_at_least_zero() {
    let contributions = EssenceContributions {
        leader: 2,
        repeated_attempts: 2,
        other_penalties: 3,
        ..EssenceContributions::default()
    };
    assert_eq!(contributions.pool(&limits()), Ok(0));
    let check = EssenceCheck::new(&contributions, &[3], &limits()).unwrap();
    assert_eq!(check.rolled_dice(), 0);
    let roll = check.roll(&mut ScriptedDice::new(vec![])).unwrap();
    assert_eq!(roll.total, 0);
    assert_eq!(roll.outcome, EssenceOutcome::Failed);
    assert!(
        check.threshold_probabilities(&limits()).unwrap()[0]
            .1
            .is_zero()
    );
}

/// 000-S2: attempt k at a ritual since the last full night's sleep loses k − 1 dice.
#[test]
fn m9_repeated_attempts_lose_a_die_each() {
    for attempt in 1..=4i64 {
        let contributions = EssenceContributions {
            leader: 5,
            repeated_attempts: attempt - 1,
            ..EssenceContributions::default()
        };
        assert_eq!(
            contributions.pool(&limits()),
            Ok(5 - (attempt as usize - 1))
        );
    }
}

#[test]
fn m9_validation_errors() {
    let negative_assistant = EssenceContributions {
        leader: 3,
        assistants: vec![1, -2],
        ..EssenceContributions::default()
    };
    insta::assert_snapshot!(
        negative_assistant.pool(&limits()).unwrap_err(),
        @"an assistant's essence -2 is negative; give reductions as penalties"
    );
    let negative_penalty = EssenceContributions {
        leader: 3,
        other_penalties: -1,
        ..EssenceContributions::default()
    };
    insta::assert_snapshot!(
        negative_penalty.pool(&limits()).unwrap_err(),
        @"the other penalty -1 is negative; a penalty removes dice, give it as a count"
    );
    let huge = EssenceContributions {
        leader: i64::MAX,
        time_and_place: i64::MAX,
        ..EssenceContributions::default()
    };
    assert!(matches!(
        huge.pool(&limits()),
        Err(RitualError::Core(CoreError::TooManyDice { .. }))
    ));
    assert_eq!(
        EssenceCheck::from_pool(3, &[], &limits()),
        Err(RitualError::NoThresholds)
    );
    insta::assert_snapshot!(
        EssenceCheck::from_pool(3, &[6, 0], &limits()).unwrap_err(),
        @"essence threshold 0 is below 1 and always reached; use thresholds of 1 or more"
    );
    insta::assert_snapshot!(
        EssenceCheck::from_pool(3, &[6, 9, 6], &limits()).unwrap_err(),
        @"essence threshold 6 is listed twice; list each threshold once"
    );
}

#[test]
fn m10_threshold_probabilities_match_direct_counting() {
    for dice in 0..=10 {
        let check = essence(dice, &[21, 3, 12, 30]);
        assert_eq!(check.thresholds(), &[3, 12, 21, 30]);
        let probabilities = check.threshold_probabilities(&limits()).unwrap();
        for (threshold, p) in probabilities {
            assert_eq!(
                p,
                d6_sum_at_least(dice, threshold),
                "{dice}D vs {threshold}"
            );
        }
    }
}

#[test]
fn m10_highest_threshold_reached() {
    let check = essence(6, &[9, 18, 27]);
    assert_eq!(check.outcome_for_total(8), EssenceOutcome::Failed);
    assert_eq!(check.outcome_for_total(9), EssenceOutcome::Reached(9));
    assert_eq!(check.outcome_for_total(26), EssenceOutcome::Reached(18));
    assert_eq!(check.outcome_for_total(36), EssenceOutcome::Reached(27));
    let outcomes = check.outcome_distribution(&limits()).unwrap();
    let at_least = |t| d6_sum_at_least(6, t);
    assert_eq!(
        outcomes.probability(&EssenceOutcome::Failed),
        one() - at_least(9)
    );
    assert_eq!(
        outcomes.probability(&EssenceOutcome::Reached(9)),
        at_least(9) - at_least(18)
    );
    assert_eq!(
        outcomes.probability(&EssenceOutcome::Reached(18)),
        at_least(18) - at_least(27)
    );
    assert_eq!(
        outcomes.probability(&EssenceOutcome::Reached(27)),
        at_least(27)
    );
}

#[test]
fn m10_essence_check_replays_fixed_dice() {
    let check = essence(4, &[12, 18]);
    let roll = check
        .roll(&mut ScriptedDice::new(vec![6, 5, 4, 2]))
        .unwrap();
    assert_eq!(
        roll,
        EssenceRoll {
            dice: vec![6, 5, 4, 2],
            pairs: 0,
            total: 17,
            outcome: EssenceOutcome::Reached(12)
        }
    );
}

#[test]
fn m11_pairs_shortcut_needs_five_dice_unless_threshold_met() {
    let meets = ShortcutThreshold::Meets;
    // 9 dice aiming at 30: one or two pairs leave 7 or 5 dice; three leave 3 and make only 21.
    assert!(pair_shortcut_allowed(9, 1, 30, meets));
    assert!(pair_shortcut_allowed(9, 2, 30, meets));
    assert!(!pair_shortcut_allowed(9, 3, 30, meets));
    assert!(!pair_shortcut_allowed(9, 4, 30, meets));
    // Aiming at 21 instead, three pairs make 21 by themselves: fewer dice are fine.
    assert!(pair_shortcut_allowed(9, 3, 21, meets));
    assert!(pair_shortcut_allowed(9, 4, 21, meets));
    assert_eq!(pairs_list(9, 30, meets), [0, 1, 2]);
    assert_eq!(pairs_list(9, 21, meets), [0, 1, 2, 3, 4]);
    // Not always a range: 12 dice aiming at 35 may replace 0..=3 or 5..=6 pairs, not 4.
    assert_eq!(pairs_list(12, 35, meets), [0, 1, 2, 3, 5, 6]);
    insta::assert_snapshot!(
        check_pair_shortcut(9, 3, 30, meets).unwrap_err(),
        @"replacing 3 pairs leaves 3 dice to roll; roll at least 5, or replace pairs until 7 per pair meets the threshold 30"
    );
    insta::assert_snapshot!(
        check_pair_shortcut(9, 5, 30, meets).unwrap_err(),
        @"5 pairs need 10 dice but the pool has only 9; replace at most 4 pairs"
    );
}

#[test]
fn a9_pairs_alone_may_meet_the_threshold_even_with_no_dice_rolled() {
    // 6 dice, all replaced: 21 meets 21.
    assert!(pair_shortcut_allowed(6, 3, 21, ShortcutThreshold::Meets));
    // The literal reading ("exceeds") refuses it, and needs 22.
    assert!(!pair_shortcut_allowed(6, 3, 21, ShortcutThreshold::Exceeds));
    assert!(pair_shortcut_allowed(6, 3, 20, ShortcutThreshold::Exceeds));
    insta::assert_snapshot!(
        check_pair_shortcut(6, 3, 21, ShortcutThreshold::Exceeds).unwrap_err(),
        @"replacing 3 pairs leaves 0 dice to roll; roll at least 5, or replace pairs until 7 per pair exceeds the threshold 21"
    );
}

#[test]
fn a10_small_pools_use_the_shortcut_only_when_pairs_reach_the_threshold() {
    let meets = ShortcutThreshold::Meets;
    // 4 dice aiming at 12: one pair (7) falls short, two pairs (14) reach it.
    assert!(pair_shortcut_allowed(4, 0, 12, meets));
    assert!(!pair_shortcut_allowed(4, 1, 12, meets));
    assert!(pair_shortcut_allowed(4, 2, 12, meets));
    assert_eq!(pairs_list(4, 12, meets), [0, 2]);
    assert_eq!(pairs_list(3, 9, meets), [0]);
    assert_eq!(pairs_list(0, 3, meets), [0]);
}

/// 000-M12's pair-substitution probabilities: with k pairs replaced, P(total ≥ T) = P(sum of the
/// n − 2k rolled dice ≥ T − 7k).
#[test]
fn m12_pair_substitution_probabilities() {
    let options = RitualOptions::default();
    for dice in [5usize, 9, 12, 16] {
        let thresholds = [12, 24, 36, 48];
        for &desired in &thresholds {
            for pairs in allowed_pairs(dice, desired, options.shortcut_threshold).iter() {
                let check = essence(dice, &thresholds)
                    .with_pairs(pairs, desired, &options)
                    .unwrap();
                assert_eq!(check.rolled_dice(), dice - 2 * pairs);
                for (threshold, p) in check.threshold_probabilities(&limits()).unwrap() {
                    let expected = d6_sum_at_least(dice - 2 * pairs, threshold - 7 * pairs as i64);
                    assert_eq!(p, expected, "{dice}D, {pairs} pairs, vs {threshold}");
                }
            }
        }
    }
}

#[test]
fn m12_pairs_are_validated_and_rolled() {
    let options = RitualOptions::default();
    let check = essence(9, &[21, 30]).with_pairs(2, 30, &options).unwrap();
    let roll = check
        .roll(&mut ScriptedDice::new(vec![6, 6, 5, 4, 3]))
        .unwrap();
    assert_eq!(
        roll,
        EssenceRoll {
            dice: vec![6, 6, 5, 4, 3],
            pairs: 2,
            total: 38,
            outcome: EssenceOutcome::Reached(30)
        }
    );
    assert_eq!(
        essence(9, &[21, 30]).with_pairs(3, 30, &options),
        Err(RitualError::TooFewDiceRolled {
            pairs: 3,
            rolled: 3,
            threshold: 30,
            rule: ShortcutThreshold::Meets
        })
    );
    insta::assert_snapshot!(
        essence(9, &[21, 30]).with_pairs(1, 25, &options).unwrap_err(),
        @"25 is not one of the ritual's essence thresholds (21, 30); name the threshold of the desired effect"
    );
}

/// 000-M12: P(sum of N d6 ≥ TN) for every multiple of 3 up to 144 and N = 1..24.
#[test]
fn m12_reference_probabilities() {
    let mut nonzero = 0;
    for dice in 1..=24 {
        for target in (3..=144).step_by(3) {
            let p: Probability = essence_success_probability(dice, target, &limits()).unwrap();
            assert_eq!(p, d6_sum_at_least(dice, target), "{dice}D vs {target}");
            nonzero += usize::from(!p.is_zero());
        }
    }
    // TN ≤ 6N: Σ 2N for N = 1..24.
    assert_eq!(nonzero, 600);
}

/// The worked-out runs agree with checking each number of pairs, for both readings of 000-A9.
#[test]
fn m11_allowed_pairs_agree_with_the_check() {
    for rule in ShortcutThreshold::ALL {
        for dice in 0..=30 {
            for threshold in -8..=120 {
                let allowed = allowed_pairs(dice, threshold, rule);
                let by_check: Vec<usize> = (0..=dice / 2 + 1)
                    .filter(|&pairs| pair_shortcut_allowed(dice, pairs, threshold, rule))
                    .collect();
                assert_eq!(
                    allowed.iter().collect::<Vec<_>>(),
                    by_check,
                    "{dice} {threshold}"
                );
                assert_eq!(allowed.max(), *by_check.last().unwrap());
                for pairs in 0..=dice / 2 + 1 {
                    assert_eq!(allowed.contains(pairs), by_check.contains(&pairs));
                }
            }
        }
    }
    // Huge pools are answered without counting.
    let huge = allowed_pairs(usize::MAX, 70, ShortcutThreshold::Meets);
    assert_eq!(huge.reaching_threshold, Some(10..=usize::MAX / 2));
    assert_eq!(huge.max(), usize::MAX / 2);
}

#[test]
fn a11_essence_values_are_plain_integer_inputs() {
    // Characters, places, relics and offerings get their Essence from outside the seed: any count of
    // dice, zero included, adds as it is, with no table or scale in between.
    let contributions = EssenceContributions {
        leader: 7,
        assistants: vec![0, 4, 11],
        time_and_place: 5,
        relics: vec![2, 0],
        offerings: vec![13],
        ..EssenceContributions::default()
    };
    assert_eq!(contributions.pool(&limits()).unwrap(), 42);
    let unusual = EssenceContributions {
        leader: 1,
        time_and_place: 1000,
        ..EssenceContributions::default()
    };
    assert_eq!(unusual.pool(&limits()).unwrap(), 1001);
    // Only the dice limit bounds them, as for every pool.
    let huge = EssenceContributions {
        leader: 10_001,
        ..EssenceContributions::default()
    };
    assert!(matches!(
        huge.pool(&limits()),
        Err(RitualError::Core(CoreError::TooManyDice { .. }))
    ));
    // A negative value is not an Essence; reductions are penalties.
    let negative = EssenceContributions {
        relics: vec![-1],
        ..contributions.clone()
    };
    assert_eq!(
        negative.pool(&limits()),
        Err(RitualError::NegativeEssence {
            contributor: "a relic's",
            value: -1
        })
    );
    // The game takes the same plain integers from JSON, the character's own Essence among them.
    let ritual = omen_rules::stateful::game("ritual").expect("ritual keeps state");
    let state = ritual
        .new_character(&serde_json::json!({ "essence": 7 }))
        .unwrap();
    let odds = ritual
        .odds(
            &state,
            &serde_json::json!({ "action": "essence", "ritual": "Ward", "assistants": [0, 4, 11],
                                 "time_and_place": 5, "relics": [2, 0], "offerings": [13],
                                 "thresholds": [126] }),
            &limits(),
        )
        .unwrap();
    assert_eq!(odds["pool"], 42);
}

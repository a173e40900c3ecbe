//! T13 Dice Tests (004-M1..M5, M7, D1, A1..A7): the dice and their price, result levels at every
//! boundary, success and failure levels, the Proficiency Crisis, exact distributions against brute-force
//! enumeration of every face, replays with given dice, and validation errors.
//! Seed 004: a test named `m1_…` covers 004-M1.

use std::collections::BTreeMap;

use num_rational::Ratio;
use omen_core::{CoreError, Limits, Probability, ScriptedDice};
use omen_rules::t13::{
    self, BoughtDie, CharacterType, Cost, CrisisTrigger, Currency, DiceSpec, Difficulty,
    PROFICIENCY_SIDES, PurchaseKind, ResultLevel, T13Error, T13Options, TestDice, TestResult,
    failure_levels, result_level, success_levels,
};
use omen_rules::{RuleSet, find};

use crate::support::ratio;

fn limits() -> Limits {
    Limits::default()
}

fn difficulty(value: i64) -> Difficulty {
    Difficulty::new(value).unwrap()
}

fn dice(spec: DiceSpec) -> TestDice {
    TestDice::new(spec, &limits()).unwrap()
}

fn bought(kind: PurchaseKind, sides: i64, currency: Currency) -> BoughtDie {
    BoughtDie {
        kind,
        sides,
        currency,
    }
}

fn any_die() -> T13Options {
    T13Options::default()
}

fn all_dice() -> T13Options {
    T13Options {
        crisis_trigger: CrisisTrigger::AllDice,
    }
}

/// Every way the dice can fall, in rolling order, by plain nested enumeration.
fn every_roll(sides: &[i64]) -> Vec<Vec<i64>> {
    let mut rolls = vec![Vec::new()];
    for &s in sides {
        rolls = rolls
            .into_iter()
            .flat_map(|prefix: Vec<i64>| {
                (1..=s).map(move |face| {
                    let mut roll = prefix.clone();
                    roll.push(face);
                    roll
                })
            })
            .collect();
    }
    rolls
}

/// The pool's dice sizes in rolling order (Boon, Descendant, Proficiency, bought), and where the
/// proficiency dice sit.
fn layout(spec: &DiceSpec) -> (Vec<i64>, std::ops::Range<usize>) {
    let mut sides: Vec<i64> = spec.boon.into_iter().chain(spec.descendant).collect();
    let start = sides.len();
    sides.extend(std::iter::repeat_n(PROFICIENCY_SIDES, spec.proficiency));
    let proficiency = start..sides.len();
    sides.extend(spec.bought.iter().map(|b| b.sides));
    (sides, proficiency)
}

/// Exact probabilities of `key` over every roll, counted face by face.
fn enumerate<K: Ord>(
    spec: &DiceSpec,
    mut key: impl FnMut(&[i64], &[i64]) -> K,
) -> BTreeMap<K, Probability> {
    let (sides, proficiency) = layout(spec);
    let rolls = every_roll(&sides);
    let total = rolls.len() as u64;
    let mut counts: BTreeMap<K, u64> = BTreeMap::new();
    for roll in &rolls {
        *counts
            .entry(key(roll, &roll[proficiency.clone()]))
            .or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(k, n)| (k, ratio(n, total)))
        .collect()
}

/// The table's levels read directly from the resolved ranges with exact fractions (004-M4, A1).
fn level_by_fractions(r: i64, d: i64) -> ResultLevel {
    let r = Ratio::from_integer(r);
    let d = Ratio::from_integer(d);
    let half = d / 2;
    if r > d * 3 {
        ResultLevel::SuperiorSuccess
    } else if r > d * 2 && r <= d * 3 {
        ResultLevel::CompleteSuccess
    } else if r > d && r <= d * 2 {
        ResultLevel::ModerateSuccess
    } else if r == d {
        ResultLevel::Borderline
    } else if r >= half && r < d {
        ResultLevel::ModerateFailure
    } else if r >= Ratio::from_integer(0) && r < half {
        ResultLevel::CompleteFailure
    } else {
        ResultLevel::SeriousFailure
    }
}

fn mixed_pool() -> DiceSpec {
    DiceSpec {
        boon: Some(6),
        descendant: Some(4),
        proficiency: 2,
        bought: vec![bought(PurchaseKind::Skill, 3, Currency::Sway)],
        modifier: -4,
    }
}

#[test]
fn m1_free_dice_are_optional_and_proficiency_is_up_to_four_d8() {
    for proficiency in 0..=4 {
        let spec = DiceSpec {
            proficiency,
            ..DiceSpec::default()
        };
        let pool = dice(spec);
        let totals = pool.total_distribution(&limits()).unwrap();
        assert_eq!(*totals.min_outcome(), proficiency as i64);
        assert_eq!(*totals.max_outcome(), 8 * proficiency as i64);
    }
    let free = dice(DiceSpec {
        boon: Some(10),
        descendant: Some(12),
        proficiency: 4,
        ..DiceSpec::default()
    });
    assert_eq!(free.cost(), Cost::default());
    let totals = free.total_distribution(&limits()).unwrap();
    assert_eq!((*totals.min_outcome(), *totals.max_outcome()), (6, 54));
}

#[test]
fn d1_prices_every_row_in_each_currency() {
    let table = [
        (PurchaseKind::Facet, 2, 1, 1),
        (PurchaseKind::Skill, 4, 2, 1),
        (PurchaseKind::Talent, 10, 5, 2),
        (PurchaseKind::Power, 14, 7, 2),
        (PurchaseKind::Trophy, 16, 8, 3),
        (PurchaseKind::Superskill, 24, 12, 4),
        (PurchaseKind::RealEstate, 32, 16, 5),
        (PurchaseKind::Artefact, 42, 21, 6),
    ];
    assert_eq!(PurchaseKind::ALL.len(), table.len());
    for (kind, sway, chi, yarn) in table {
        assert_eq!(kind.cost(Currency::Sway), sway, "{kind:?}");
        assert_eq!(kind.cost(Currency::Chi), chi, "{kind:?}");
        assert_eq!(kind.cost(Currency::Yarn), yarn, "{kind:?}");
        // E004-3: Chi is half of Sway in every row.
        assert_eq!(2 * chi, sway);
        assert_eq!(PurchaseKind::from_name(kind.name()), Ok(kind));
    }
    for (name, kind) in [
        ("Monolith", PurchaseKind::Superskill),
        ("location", PurchaseKind::Superskill),
        ("Real Estate", PurchaseKind::RealEstate),
        ("real_estate", PurchaseKind::RealEstate),
        ("pact", PurchaseKind::RealEstate),
        ("PROVINCE", PurchaseKind::Artefact),
    ] {
        assert_eq!(PurchaseKind::from_name(name), Ok(kind), "{name}");
    }
}

#[test]
fn a6_each_bought_die_is_paid_in_one_currency() {
    let pool = dice(DiceSpec {
        bought: vec![
            bought(PurchaseKind::Facet, 6, Currency::Sway),
            bought(PurchaseKind::Talent, 8, Currency::Sway),
            bought(PurchaseKind::Power, 10, Currency::Chi),
            bought(PurchaseKind::Artefact, 20, Currency::Yarn),
            bought(PurchaseKind::Trophy, 12, Currency::Yarn),
        ],
        ..DiceSpec::default()
    });
    assert_eq!(
        pool.cost(),
        Cost {
            sway: 12,
            chi: 7,
            yarn: 9
        }
    );
    let die = BoughtDie::from_names("pact", 12, "Chi").unwrap();
    assert_eq!(die, bought(PurchaseKind::RealEstate, 12, Currency::Chi));
    assert_eq!(die.cost(), 16);
}

#[test]
fn a5_die_sizes_are_inputs() {
    // d6 + d20 + bought d100: the sizes change the totals, nothing else does.
    let pool = dice(DiceSpec {
        boon: Some(6),
        descendant: Some(20),
        bought: vec![bought(PurchaseKind::Skill, 100, Currency::Sway)],
        ..DiceSpec::default()
    });
    let totals = pool.total_distribution(&limits()).unwrap();
    assert_eq!((*totals.min_outcome(), *totals.max_outcome()), (3, 126));
    assert_eq!(totals.probability(&126), ratio(1, 6 * 20 * 100));
}

#[test]
fn m4_result_levels_at_the_boundaries() {
    use ResultLevel::*;
    let d4 = difficulty(4);
    let cases = [
        (-1, SeriousFailure),
        (0, CompleteFailure),
        (1, CompleteFailure),
        (2, ModerateFailure), // R = D/2 (A1)
        (3, ModerateFailure),
        (4, Borderline),
        (5, ModerateSuccess),
        (8, ModerateSuccess), // R = 2D (A1)
        (9, CompleteSuccess),
        (12, CompleteSuccess), // R = 3D (A1)
        (13, SuperiorSuccess),
    ];
    for (r, level) in cases {
        assert_eq!(result_level(r, d4), level, "R = {r}");
    }
    // An odd difficulty: D/2 = 5/2 is compared exactly, not rounded either way.
    let d5 = difficulty(5);
    assert_eq!(result_level(2, d5), CompleteFailure);
    assert_eq!(result_level(3, d5), ModerateFailure);
    // Difficulty 1: D/2 = 1/2, so 0 is a Complete Failure and nothing is a Moderate Failure.
    let d1 = difficulty(1);
    assert_eq!(result_level(0, d1), CompleteFailure);
    assert_eq!(result_level(1, d1), Borderline);
    assert_eq!(result_level(2, d1), ModerateSuccess);
    assert_eq!(result_level(3, d1), CompleteSuccess);
    assert_eq!(result_level(4, d1), SuperiorSuccess);
}

#[test]
fn a1_levels_agree_with_exact_fractions_everywhere() {
    for d in 1..=25 {
        for r in -60..=120 {
            assert_eq!(
                result_level(r, difficulty(d)),
                level_by_fractions(r, d),
                "R = {r}, D = {d}"
            );
        }
    }
}

#[test]
fn m3_equal_totals_are_a_stalemate_and_higher_succeeds() {
    let d = difficulty(9);
    assert_eq!(result_level(9, d), ResultLevel::Borderline);
    assert!(result_level(10, d).is_success());
    assert!(result_level(8, d).is_failure());
    assert!(!ResultLevel::Borderline.is_success() && !ResultLevel::Borderline.is_failure());
}

#[test]
fn a7_an_opponents_total_plays_the_difficulty() {
    let opponent = Difficulty::opponent_total(7).unwrap();
    assert_eq!(opponent, difficulty(7));
    assert_eq!(result_level(7, opponent), ResultLevel::Borderline);
    assert_eq!(result_level(22, opponent), ResultLevel::SuperiorSuccess);
    assert_eq!(
        Difficulty::opponent_total(0),
        Err(T13Error::OpponentTotal(0))
    );
}

#[test]
fn a2_serious_failure_needs_a_signed_modifier() {
    // No modifier: the total is at least the number of dice, never below 0.
    let plain = dice(DiceSpec {
        boon: Some(6),
        descendant: Some(6),
        ..DiceSpec::default()
    });
    let levels = plain.level_distribution(difficulty(30), &limits()).unwrap();
    assert_eq!(
        levels.probability(&ResultLevel::SeriousFailure),
        ratio(0, 1)
    );
    // A handicap of −5 on 2d6: R < 0 when the dice show 4 or less, 6 ways of 36.
    let handicapped = dice(DiceSpec {
        modifier: -5,
        ..plain.spec().clone()
    });
    let levels = handicapped
        .level_distribution(difficulty(30), &limits())
        .unwrap();
    assert_eq!(
        levels.probability(&ResultLevel::SeriousFailure),
        ratio(6, 36)
    );
}

#[test]
fn a3_success_levels_count_multiples_of_the_difficulty() {
    let d = difficulty(3);
    // R in (kD, (k+1)D] gives k.
    for (r, k) in [
        (3, 0),
        (4, 1),
        (6, 1),
        (7, 2),
        (9, 2),
        (10, 3),
        (12, 3),
        (13, 4),
        (31, 10),
        (40, 13),
    ] {
        assert_eq!(success_levels(r, d), k, "R = {r}");
    }
    for r in -20..=60 {
        let k = success_levels(r, d);
        let level = result_level(r, d);
        let expected = match k {
            0 => level <= ResultLevel::Borderline,
            1 => level == ResultLevel::ModerateSuccess,
            2 => level == ResultLevel::CompleteSuccess,
            _ => level == ResultLevel::SuperiorSuccess,
        };
        assert!(expected, "R = {r}: {k} levels but {level:?}");
    }
}

#[test]
fn m5_extra_success_levels_are_capped_by_character_type() {
    let d = difficulty(3);
    let result = |r| TestResult::new(r, d, false);
    // R = 40: k = 13 levels, 11 above Complete.
    let big = result(40);
    assert_eq!(big.success_levels, 13);
    assert_eq!(big.extra_success_levels(CharacterType::Grunt), 2);
    assert_eq!(big.extra_success_levels(CharacterType::Mercari), 5);
    assert_eq!(big.extra_success_levels(CharacterType::Solo), 8);
    assert_eq!(big.capped_success_levels(CharacterType::Grunt), 4);
    // R = 10: Superior, one extra level, for everyone.
    for character in CharacterType::ALL {
        assert_eq!(result(10).extra_success_levels(character), 1);
        assert_eq!(result(9).extra_success_levels(character), 0);
    }
    assert_eq!(
        CharacterType::ALL.map(CharacterType::max_success_levels),
        [4, 7, 10]
    );
}

#[test]
fn a3_failure_levels_mirror_success_levels() {
    let d = difficulty(3);
    for (r, f) in [
        (3, 0),
        (2, 1),
        (1, 2),
        (0, 2),
        (-1, 3),
        (-3, 3),
        (-4, 4),
        (-6, 4),
        (-7, 5),
    ] {
        assert_eq!(failure_levels(r, d), f, "R = {r}");
    }
    let serious = TestResult::new(-7, d, false);
    assert_eq!(serious.level, ResultLevel::SeriousFailure);
    assert_eq!(serious.extra_failure_levels(), 3);
    // Failure levels are not capped by character type; success levels of a failure are 0.
    assert_eq!(serious.success_levels, 0);
}

#[test]
fn a4_crisis_probabilities() {
    let limits = limits();
    // The spec's values.
    let prob = |n, options: &T13Options| {
        dice(DiceSpec {
            proficiency: n,
            ..DiceSpec::default()
        })
        .crisis_probability(options, &limits)
        .unwrap()
    };
    assert_eq!(prob(1, &any_die()), ratio(1, 4));
    assert_eq!(prob(1, &all_dice()), ratio(1, 4));
    assert_eq!(prob(4, &any_die()), ratio(175, 256));
    assert_eq!(prob(4, &all_dice()), ratio(1, 2048));
    // Every count against enumeration of the proficiency faces.
    for n in 0..=4 {
        let spec = DiceSpec {
            proficiency: n,
            ..DiceSpec::default()
        };
        let any = enumerate(&spec, |_, prof| prof.iter().any(|&d| d == 1 || d == 8));
        let all = enumerate(&spec, |_, prof| {
            !prof.is_empty() && (prof.iter().all(|&d| d == 1) || prof.iter().all(|&d| d == 8))
        });
        let p_true = |m: &BTreeMap<bool, Probability>| m.get(&true).cloned().unwrap_or(ratio(0, 1));
        assert_eq!(prob(n, &any_die()), p_true(&any), "{n} dice, any");
        assert_eq!(prob(n, &all_dice()), p_true(&all), "{n} dice, all");
    }
    // The other dice never cause a crisis.
    let no_proficiency = dice(DiceSpec {
        boon: Some(8),
        descendant: Some(8),
        ..DiceSpec::default()
    });
    assert_eq!(
        no_proficiency
            .crisis_probability(&any_die(), &limits)
            .unwrap(),
        ratio(0, 1)
    );
}

#[test]
fn m7_a_crisis_adds_the_equivalent_opposite() {
    use ResultLevel::*;
    let d = difficulty(4);
    for (r, rolled, opposite, levels) in [
        (13, SuperiorSuccess, SeriousFailure, 3),
        (21, SuperiorSuccess, SeriousFailure, 5),
        (9, CompleteSuccess, CompleteFailure, 2),
        (5, ModerateSuccess, ModerateFailure, 1),
        (3, ModerateFailure, ModerateSuccess, 1),
        (1, CompleteFailure, CompleteSuccess, 2),
        (-1, SeriousFailure, SuperiorSuccess, 3),
    ] {
        let result = TestResult::new(r, d, true);
        assert_eq!(result.level, rolled, "R = {r}");
        assert_eq!(
            result.crisis_opposite(),
            Some((opposite, levels)),
            "R = {r}"
        );
        assert_eq!(TestResult::new(r, d, false).crisis_opposite(), None);
    }
    assert_eq!(TestResult::new(4, d, true).crisis_opposite(), None);
    for level in ResultLevel::ALL {
        assert_eq!(level.opposite().opposite(), level);
    }
}

#[test]
fn m4_level_distribution_matches_enumeration() {
    let spec = mixed_pool();
    let pool = dice(spec.clone());
    let modifier = spec.modifier;
    for d in [1, 2, 3, 5, 8, 13] {
        let expected = enumerate(&spec, |roll, _| {
            level_by_fractions(roll.iter().sum::<i64>() + modifier, d)
        });
        let levels = pool.level_distribution(difficulty(d), &limits()).unwrap();
        for level in ResultLevel::ALL {
            let want = expected.get(&level).cloned().unwrap_or(ratio(0, 1));
            assert_eq!(levels.probability(&level), want, "D = {d}, {level:?}");
        }
    }
}

#[test]
fn m7_outcome_distribution_matches_enumeration() {
    let spec = mixed_pool();
    let pool = dice(spec.clone());
    for options in [any_die(), all_dice()] {
        for d in [2, 4, 7] {
            let expected = enumerate(&spec, |roll, prof| {
                let total = roll.iter().sum::<i64>() + spec.modifier;
                let crisis = options.crisis_trigger.triggered(prof);
                (level_by_fractions(total, d), total, crisis)
            });
            // Fold totals into their (level, levels, crisis) results.
            let mut want: BTreeMap<TestResult, Probability> = BTreeMap::new();
            for ((level, total, crisis), p) in expected {
                let result = TestResult::new(total, difficulty(d), crisis);
                assert_eq!(result.level, level);
                *want.entry(result).or_insert_with(|| ratio(0, 1)) += p;
            }
            let got = pool
                .outcome_distribution(difficulty(d), &options, &limits())
                .unwrap();
            let got: BTreeMap<TestResult, Probability> = got
                .outcomes()
                .map(|o| (*o, got.probability(o)))
                .filter(|(_, p)| *p != ratio(0, 1))
                .collect();
            assert_eq!(got, want, "D = {d}, {options:?}");
        }
    }
}

#[test]
fn m3_replay_with_fixed_dice() {
    // Boon d6 → 5, Descendant d4 → 3, Proficiency 2d8 → 8 and 2, bought d3 → 1; −4: R = 15.
    let pool = dice(mixed_pool());
    let mut source = ScriptedDice::new(vec![5, 3, 8, 2, 1]);
    let roll = t13::test(&pool, difficulty(4), &any_die(), &mut source).unwrap();
    assert_eq!(source.used(), 5);
    assert_eq!(roll.boon, Some(5));
    assert_eq!(roll.descendant, Some(3));
    assert_eq!(roll.proficiency, vec![8, 2]);
    assert_eq!(roll.bought, vec![1]);
    assert_eq!(roll.dice(), vec![5, 3, 8, 2, 1]);
    assert_eq!(roll.total, 15);
    // 15 > 3 · 4: Superior, k = 3; the 8 on a proficiency die is a crisis under the default reading.
    assert_eq!(
        roll.result,
        TestResult {
            level: ResultLevel::SuperiorSuccess,
            success_levels: 3,
            failure_levels: 0,
            crisis: true,
        }
    );
    assert_eq!(
        roll.result.crisis_opposite(),
        Some((ResultLevel::SeriousFailure, 3))
    );
    // The same dice under the all-dice reading: 8 and 2 are not both extreme, no crisis.
    let mut source = ScriptedDice::new(vec![5, 3, 8, 2, 1]);
    let roll = t13::test(&pool, difficulty(4), &all_dice(), &mut source).unwrap();
    assert!(!roll.result.crisis);
    // A handicap can take the total below 0.
    let handicapped = dice(DiceSpec {
        boon: Some(6),
        modifier: -3,
        ..DiceSpec::default()
    });
    let mut source = ScriptedDice::new(vec![1]);
    let roll = t13::test(&handicapped, difficulty(2), &any_die(), &mut source).unwrap();
    assert_eq!(
        (roll.total, roll.result.level),
        (-2, ResultLevel::SeriousFailure)
    );
    assert_eq!(roll.result.failure_levels, 3);
}

#[test]
fn m3_replay_rejects_a_face_the_die_does_not_have() {
    let pool = dice(mixed_pool());
    let mut source = ScriptedDice::new(vec![5, 5, 8, 2, 1]);
    let error = t13::test(&pool, difficulty(4), &any_die(), &mut source).unwrap_err();
    assert!(matches!(error, T13Error::Core(_)), "{error:?}");
    let mut short = ScriptedDice::new(vec![5, 3]);
    let error = t13::test(&pool, difficulty(4), &any_die(), &mut short).unwrap_err();
    assert!(matches!(error, T13Error::Core(_)), "{error:?}");
}

#[test]
fn validation_errors() {
    let limits = limits();
    let five = DiceSpec {
        proficiency: 5,
        ..DiceSpec::default()
    };
    assert_eq!(
        TestDice::new(five, &limits),
        Err(T13Error::TooManyProficiencyDice(5))
    );
    assert_eq!(
        PurchaseKind::from_name("spaceship"),
        Err(T13Error::UnknownPurchase("spaceship".to_string()))
    );
    assert_eq!(
        BoughtDie::from_names("skill", 6, "gold"),
        Err(T13Error::UnknownCurrency("gold".to_string()))
    );
    let no_sides = DiceSpec {
        boon: Some(0),
        ..DiceSpec::default()
    };
    assert_eq!(
        TestDice::new(no_sides, &limits),
        Err(T13Error::NoSides {
            die: "boon",
            sides: 0
        })
    );
    let negative = DiceSpec {
        bought: vec![bought(PurchaseKind::Facet, -4, Currency::Sway)],
        ..DiceSpec::default()
    };
    assert_eq!(
        TestDice::new(negative, &limits),
        Err(T13Error::NoSides {
            die: "bought",
            sides: -4
        })
    );
    let huge = DiceSpec {
        descendant: Some(2_000_000),
        ..DiceSpec::default()
    };
    assert!(matches!(
        TestDice::new(huge, &limits),
        Err(T13Error::Core(CoreError::TooManySides { .. }))
    ));
    let many = DiceSpec {
        bought: vec![bought(PurchaseKind::Facet, 6, Currency::Sway); 20_000],
        ..DiceSpec::default()
    };
    assert!(matches!(
        TestDice::new(many, &limits),
        Err(T13Error::Core(CoreError::TooManyDice { .. }))
    ));
    assert_eq!(Difficulty::new(0), Err(T13Error::Difficulty(0)));
    assert_eq!(Difficulty::new(-3), Err(T13Error::Difficulty(-3)));
    assert_eq!(
        Difficulty::opponent_total(-2),
        Err(T13Error::OpponentTotal(-2))
    );
    assert_messages_give_hints();
}

/// Messages are lower case and say how to fix the input.
fn assert_messages_give_hints() {
    let messages = [
        T13Error::TooManyProficiencyDice(5).to_string(),
        T13Error::UnknownPurchase("spaceship".into()).to_string(),
        T13Error::UnknownCurrency("gold".into()).to_string(),
        T13Error::Difficulty(0).to_string(),
        T13Error::OpponentTotal(0).to_string(),
    ];
    for message in messages {
        assert!(!message.starts_with(char::is_uppercase), "{message}");
        assert!(message.contains(';'), "{message}: no hint");
    }
}

#[test]
fn t13_describes_what_its_module_implements() {
    let rules: &dyn RuleSet = &t13::T13;
    assert_eq!(rules.tag(), "004");
    assert_eq!(rules.seed_file(), t13::SEED_FILE);
    let option = &rules.options()[0];
    let choices: Vec<&str> = CrisisTrigger::ALL.iter().map(|o| o.name()).collect();
    assert_eq!(option.choices, choices.as_slice());
    assert_eq!(option.default, CrisisTrigger::default().name());
    assert!(find("t13").is_some_and(|found| found.seed_file() == t13::SEED_FILE));
}

#[test]
fn m2_each_bought_die_adds_a_die_and_costs_its_rows_price() {
    // Free dice alone, then one, two and three Skill d6 bought on top: one die more each time, and
    // 4 Sway more each time.
    let free = DiceSpec {
        boon: Some(6),
        proficiency: 1,
        ..DiceSpec::default()
    };
    for extra in 0..=3usize {
        let pool = dice(DiceSpec {
            bought: vec![bought(PurchaseKind::Skill, 6, Currency::Sway); extra],
            ..free.clone()
        });
        let faces: Vec<i64> = std::iter::repeat_n(3, 2 + extra).collect();
        let roll = t13::test(
            &pool,
            difficulty(5),
            &any_die(),
            &mut ScriptedDice::new(faces),
        )
        .unwrap();
        assert_eq!(roll.bought.len(), extra);
        assert_eq!(roll.dice().len(), 2 + extra);
        assert_eq!(roll.total, 3 * (2 + extra as i64));
        let sway = 4 * extra as u64;
        assert_eq!(
            pool.cost(),
            Cost {
                sway,
                chi: 0,
                yarn: 0
            }
        );
        let totals = pool.total_distribution(&limits()).unwrap();
        assert_eq!(*totals.max_outcome(), 6 + 8 + 6 * extra as i64);
    }
    // The character pays per die from its balances: Sway for one, Yarn for the other.
    let game = omen_rules::stateful::game("t13").expect("t13 keeps state");
    let state = game
        .new_character(&serde_json::json!({ "sway": 20, "yarn": 3 }))
        .unwrap();
    let action = serde_json::json!({ "action": "test", "difficulty": 5, "bought": [
        { "kind": "power", "sides": 6 }, { "kind": "trophy", "sides": 6, "currency": "yarn" }] });
    let applied = game
        .apply(
            &state,
            &action,
            &mut ScriptedDice::new(vec![2, 6]),
            &limits(),
        )
        .unwrap();
    assert_eq!(
        applied.result["paid"],
        serde_json::json!({ "sway": 14, "chi": 0, "yarn": 3 })
    );
    assert_eq!(
        (applied.state["sway"].clone(), applied.state["yarn"].clone()),
        (serde_json::json!(6), serde_json::json!(0))
    );
    // With 13 Sway the Power die cannot be bought and nothing is rolled or paid.
    let poorer = game
        .new_character(&serde_json::json!({ "sway": 13, "yarn": 3 }))
        .unwrap();
    let refused = game.apply(&poorer, &action, &mut ScriptedDice::new(vec![]), &limits());
    assert!(
        matches!(&refused, Err(omen_rules::stateful::ActionError::Invalid(p)) if p.0.len() == 1),
        "{refused:?}"
    );
}

#[test]
fn m6_failure_levels_invert_the_effects_and_an_opponents_success_levels_act_instead() {
    use t13::{LEVEL_EFFECTS, opponent_success_levels, suffered_failure_levels};
    let inversions: Vec<(&str, &str)> = LEVEL_EFFECTS.iter().map(|e| (e.kind, e.failure)).collect();
    assert_eq!(
        inversions,
        [
            ("Gain…", "Lose Sway/Chi/Yarn"),
            ("Cause/Negate…", "Suffer Fear/Terror/Horror"),
            ("Pull and Play…", "Opponent / Ref pulls and plays…"),
            (
                "Dramatic",
                "The Tone is set to the opposite type to the action of the character"
            ),
        ]
    );
    // Success effects depend on the character type; failure effects do not (any type suffers them).
    let gain = &LEVEL_EFFECTS[0];
    assert_eq!(
        gain.success_effects(CharacterType::Grunt),
        ["Sway (Yin or Yang)"]
    );
    assert_eq!(
        gain.success_effects(CharacterType::Mercari),
        ["Sway (Yin or Yang)", "Chi"]
    );
    assert_eq!(
        gain.success_effects(CharacterType::Solo),
        ["Sway (Yin or Yang)", "Chi", "Yarn"]
    );
    assert!(
        !LEVEL_EFFECTS[1]
            .success_effects(CharacterType::Grunt)
            .contains(&"“Terror”")
    );
    assert_eq!(
        LEVEL_EFFECTS[3].success_effects(CharacterType::Solo),
        ["Set Tone"]
    );

    // Against a set difficulty every failure level is suffered.
    assert_eq!(suffered_failure_levels(4, None), 4);
    // Against an opponent their success levels act instead: 10 against 20 is one failure level,
    // and 20 against 10 is one success level, so nothing is left to suffer.
    let yours = TestResult::new(10, Difficulty::opponent_total(20).unwrap(), false);
    assert_eq!(yours.failure_levels, 1);
    assert_eq!(opponent_success_levels(10, 20), 1);
    assert_eq!(suffered_failure_levels(yours.failure_levels, Some(1)), 0);
    // Only failure levels beyond theirs count: a handicapped −100 against 10 is 12 failure levels,
    // the opponent's 10 against the least difficulty (1) is 9 success levels, 3 are suffered.
    let crushed = TestResult::new(-100, Difficulty::opponent_total(10).unwrap(), false);
    assert_eq!(crushed.level, ResultLevel::SeriousFailure);
    assert_eq!(crushed.failure_levels, 12);
    assert_eq!(opponent_success_levels(-100, 10), 9);
    assert_eq!(suffered_failure_levels(12, Some(9)), 3);
}

#[test]
fn m8_other_ways_to_pay_a_loss_are_data() {
    use t13::LossPayment;
    let ways: Vec<(&str, &str)> = LossPayment::ALL
        .iter()
        .map(|w| (w.name(), w.description()))
        .collect();
    assert_eq!(
        ways,
        [
            ("lost-proficiencies", "lose Proficiencies"),
            ("lost-descendants", "lose Descendants"),
            (
                "changed-handicaps",
                "increase (or decrease / gain or lose) Handicaps"
            ),
            ("lost-annex", "lose an Annex"),
        ]
    );
    for way in LossPayment::ALL {
        assert_eq!(serde_json::to_value(way).unwrap(), way.name());
    }
    // A loss beyond the balances is paid another way, at the Ref's choice, and the balance stops at 0.
    let game = omen_rules::stateful::game("t13").expect("t13 keeps state");
    let state = game
        .new_character(&serde_json::json!({ "chi": 2, "proficiency": 3 }))
        .unwrap();
    let spend =
        serde_json::json!({ "action": "spend", "chi": 5, "shortfall_paid_as": "lost-annex" });
    let applied = game
        .apply(&state, &spend, &mut ScriptedDice::new(vec![]), &limits())
        .unwrap();
    assert_eq!(applied.state["chi"], 0);
    assert_eq!(applied.state["proficiency"], 3);
    assert_eq!(applied.result["shortfall"], serde_json::json!({ "chi": 3 }));
    assert_eq!(applied.result["shortfall_paid_as"], "lost-annex");
}

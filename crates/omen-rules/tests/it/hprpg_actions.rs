//! Harry Potter RPG actions (003-M8, M9, M11, M12, M14, M15..M20, M22, A6, A7, A12, A15..A19, errata
//! E003-13, E003-16): automatic successes, contests, working together, passive perception and
//! spellcasting, exact distributions against brute-force enumeration of every face, and the seed's
//! worked examples replayed with scripted dice.
//! Seed 003: a test named `m1_…` covers 003-M1.

use omen_core::{Limits, Probability, ScriptedDice};
use omen_rules::hprpg::{
    CastingOutcome, CatchCastOutcome, CatchCasting, Check, Contest, ContestNets, ContestOutcome,
    Degree, Delivery, HprpgError, HprpgOptions, OptionalSuccesses, Teamwork,
    automatic_success_allowed, casting_difficulty, casting_pool, completion_probability,
    level_fortitude, optional_cap, passive_perception, resist_difficulty, resisted_power,
    sneaker_revealed, spend_optional,
};
use std::collections::BTreeMap;

use crate::support::ratio;

fn limits() -> Limits {
    Limits::default()
}

fn check(dice: u64, difficulty: i64, range: i64, intractability: i64) -> Check {
    Check::new(
        dice,
        difficulty,
        range,
        intractability,
        &HprpgOptions::default(),
        &limits(),
    )
    .unwrap()
}

/// The dice a pool of `dice` rolls: two for the zero pool.
fn rolled(dice: usize) -> usize {
    if dice == 0 { 2 } else { dice }
}

/// Every face sequence of `n` d12.
fn faces(n: usize) -> Vec<Vec<i64>> {
    let mut all = vec![vec![]];
    for _ in 0..n {
        all = all
            .into_iter()
            .flat_map(|prefix| {
                (1..=12).map(move |face| {
                    let mut next = prefix.clone();
                    next.push(face);
                    next
                })
            })
            .collect();
    }
    all
}

/// Independent scoring: (successes, catastrophes) of the dice a check scores.
fn brute_counts(dice: &[i64], difficulty: i64, range: i64, zero_pool: bool) -> (u64, u64) {
    let scored: Vec<i64> = if zero_pool {
        vec![*dice.iter().min().unwrap()]
    } else {
        dice.to_vec()
    };
    let s = scored.iter().filter(|&&d| d >= difficulty).count() as u64;
    let c = scored.iter().filter(|&&d| d <= range).count() as u64;
    (s, c)
}

fn brute_net(s: u64, c: u64, intractability: u64) -> i64 {
    s.saturating_sub(intractability) as i64 - c as i64
}

/// Every roll of a pool of `dice` (two faces for the zero pool) as its net, with its count.
fn brute_nets(
    dice: usize,
    difficulty: i64,
    range: i64,
    automatic: u64,
    intractability: u64,
) -> BTreeMap<i64, u64> {
    let mut out = BTreeMap::new();
    for roll in faces(rolled(dice)) {
        let (s, c) = brute_counts(&roll, difficulty, range, dice == 0);
        *out.entry(brute_net(s + automatic, c, intractability))
            .or_default() += 1;
    }
    out
}

fn to_probabilities(counts: BTreeMap<i64, u64>) -> BTreeMap<i64, Probability> {
    let total: u64 = counts.values().sum();
    counts
        .into_iter()
        .map(|(k, n)| (k, ratio(n, total)))
        .collect()
}

// -------------------------------------------------------------------------------------------------
// Automatic successes (003-M8, M9, A13).

#[test]
fn m8_automatic_success_needs_a_pool_above_the_difficulty() {
    assert!(automatic_success_allowed(9, 8));
    assert!(!automatic_success_allowed(8, 8));
    assert!(!automatic_success_allowed(0, 2));
}

#[test]
fn m9_automatic_successes_join_the_dice_before_catastrophes_cancel() {
    let fortitude = check(3, 8, 1, 0).with_automatic_successes(2);
    assert_eq!(fortitude.automatic_successes(), 2);
    let roll = fortitude.replay(&[1, 1, 9]).unwrap();
    assert_eq!((roll.successes, roll.catastrophes, roll.net), (3, 2, 1));
    // Intractability absorbs automatic successes too: S = 0 + 1, I = 2 → 0, C = 1 → −1.
    let hard = check(2, 12, 1, 2).with_automatic_successes(1);
    assert_eq!(hard.replay(&[1, 5]).unwrap().net, -1);
}

#[test]
fn m9_net_distribution_with_automatic_successes_matches_brute_force() {
    for (dice, automatic, intractability) in [(0, 1, 0), (3, 1, 0), (3, 2, 1), (2, 1, 3)] {
        let exact = check(dice as u64, 8, 2, intractability as i64)
            .with_automatic_successes(automatic)
            .net_distribution(&limits())
            .unwrap();
        let brute = to_probabilities(brute_nets(dice, 8, 2, automatic, intractability));
        for (net, p) in &brute {
            assert_eq!(&exact.probability(net), p, "dice {dice} net {net}");
        }
        assert_eq!(exact.len(), brute.len());
    }
}

// -------------------------------------------------------------------------------------------------
// Contests (003-M11, A6).

#[test]
fn m11_e003_16_contest_margin_is_instigator_less_resistor() {
    // E003-16: Bruce's DV 4 push, 5 successes, against the Death Eater's DV 8 resist on loose
    // ground, 3 successes → a margin of 2, OKAY.
    let contest = Contest {
        instigator: check(5, 4, 1, 0),
        resistor: check(4, 8, 1, 0),
        nets: ContestNets::Floor,
    };
    let mut dice = ScriptedDice::new(vec![4, 5, 6, 7, 8, 8, 9, 10, 4]);
    let roll = contest.roll(&mut dice).unwrap();
    assert_eq!(
        (roll.instigator.net, roll.resistor.net, roll.margin),
        (5, 3, 2)
    );
    assert_eq!(roll.outcome, ContestOutcome::Success(Degree::Okay));
    assert_eq!(ContestOutcome::of(0), ContestOutcome::StatusQuo);
    assert_eq!(ContestOutcome::of(-1), ContestOutcome::Failure);
}

#[test]
fn a6_a_resistor_catastrophe_counts_as_zero_unless_nets_are_signed() {
    let mut contest = Contest {
        instigator: check(2, 8, 1, 0),
        resistor: check(2, 8, 1, 0),
        nets: ContestNets::Floor,
    };
    let floor = contest
        .roll(&mut ScriptedDice::new(vec![9, 5, 1, 1]))
        .unwrap();
    assert_eq!((floor.resistor.net, floor.margin), (-2, 1));
    contest.nets = ContestNets::Signed;
    let signed = contest
        .roll(&mut ScriptedDice::new(vec![9, 5, 1, 1]))
        .unwrap();
    assert_eq!(signed.margin, 3);
    assert_eq!(signed.outcome, ContestOutcome::Success(Degree::Good));
}

#[test]
fn m11_a6_margin_distribution_matches_brute_force() {
    for nets in [ContestNets::Floor, ContestNets::Signed] {
        for (a, b) in [(2, 2), (0, 3), (3, 1)] {
            let contest = Contest {
                instigator: check(a as u64, 7, 2, 0),
                resistor: check(b as u64, 9, 1, 0),
                nets,
            };
            let exact = contest.margin_distribution(&limits()).unwrap();
            let mut brute: BTreeMap<i64, u64> = BTreeMap::new();
            for x in faces(rolled(a)) {
                let (s, c) = brute_counts(&x, 7, 2, a == 0);
                let first = brute_net(s, c, 0);
                for y in faces(rolled(b)) {
                    let (s, c) = brute_counts(&y, 9, 1, b == 0);
                    let second = brute_net(s, c, 0);
                    let margin = match nets {
                        ContestNets::Floor => first.max(0) - second.max(0),
                        ContestNets::Signed => first - second,
                    };
                    *brute.entry(margin).or_default() += 1;
                }
            }
            let brute = to_probabilities(brute);
            for (margin, p) in &brute {
                assert_eq!(
                    &exact.probability(margin),
                    p,
                    "{nets:?} {a} v {b} margin {margin}"
                );
            }
            assert_eq!(exact.len(), brute.len());
            let outcomes = contest.outcome_distribution(&limits()).unwrap();
            assert_eq!(
                outcomes.probability(&ContestOutcome::StatusQuo),
                exact.probability(&0)
            );
        }
    }
}

// -------------------------------------------------------------------------------------------------
// Working together (003-M12, A7, E003-13).

#[test]
fn e003_13_bruce_and_jane_pool_to_three_not_two() {
    let team = Teamwork::new(vec![check(4, 6, 1, 0), check(5, 6, 1, 0)]).unwrap();
    let roll = team.replay(&[&[1, 1, 3, 10], &[3, 7, 10, 10, 11]]).unwrap();
    assert_eq!(
        (roll.rolls[0].successes, roll.rolls[0].catastrophes),
        (1, 2)
    );
    assert_eq!(
        (roll.rolls[1].successes, roll.rolls[1].catastrophes),
        (4, 0)
    );
    assert_eq!((roll.successes, roll.catastrophes, roll.net), (5, 2, 3));
    assert_eq!(roll.degree, Degree::Good);
}

#[test]
fn m12_working_together_needs_a_helper() {
    assert_eq!(Teamwork::new(vec![]), Err(HprpgError::NoHelpers));
}

#[test]
fn m12_a7_pooled_net_distribution_matches_brute_force() {
    // The leader's intractability 1 applies to the pool, not to each helper.
    let team = Teamwork::new(vec![
        check(2, 8, 1, 1),
        check(0, 8, 1, 0),
        check(1, 8, 1, 0).with_automatic_successes(1),
    ])
    .unwrap();
    let exact = team.net_distribution(&limits()).unwrap();
    let mut brute: BTreeMap<i64, u64> = BTreeMap::new();
    for x in faces(2) {
        let (s1, c1) = brute_counts(&x, 8, 1, false);
        for y in faces(2) {
            let (s2, c2) = brute_counts(&y, 8, 1, true);
            for z in faces(1) {
                let (s3, c3) = brute_counts(&z, 8, 1, false);
                let net = brute_net(s1 + s2 + s3 + 1, c1 + c2 + c3, 1);
                *brute.entry(net).or_default() += 1;
            }
        }
    }
    let brute = to_probabilities(brute);
    for (net, p) in &brute {
        assert_eq!(&exact.probability(net), p, "net {net}");
    }
    assert_eq!(exact.len(), brute.len());
}

// -------------------------------------------------------------------------------------------------
// Passive perception (003-M14).

#[test]
fn m14_acromantula_against_janes_passive_perception() {
    let difficulty = passive_perception(3, 4);
    assert_eq!(difficulty, 7);
    let roll = check(6, difficulty, 1, 0)
        .replay(&[2, 3, 5, 6, 8, 10])
        .unwrap();
    assert_eq!(roll.net, 2);
    assert_eq!(roll.degree, Degree::Okay);
    assert!(!sneaker_revealed(roll.degree));
    assert!(sneaker_revealed(Degree::Failure));
    assert!(sneaker_revealed(Degree::CatastrophicFailure));
    // A14-style clamp: a passive perception of 14 is a DV 12 check.
    assert_eq!(check(3, passive_perception(7, 7), 1, 0).difficulty(), 12);
}

// -------------------------------------------------------------------------------------------------
// Spellcasting (003-M15..M18, M22, A12, A16, A17).

#[test]
fn m16_m22_casting_difficulty_examples() {
    assert_eq!(casting_difficulty(2, 4).unwrap(), 6);
    assert_eq!(casting_difficulty(5, 4).unwrap(), 9);
    assert_eq!(casting_difficulty(3, 3).unwrap(), 8);
    assert_eq!(casting_difficulty(1, 3).unwrap(), 6);
    assert_eq!(casting_difficulty(8, 3), Err(HprpgError::SpellLevel(8)));
}

#[test]
fn a12_each_level_above_affinity_costs_one_fortitude() {
    assert_eq!(level_fortitude(3, 3).unwrap(), 0);
    assert_eq!(level_fortitude(5, 3).unwrap(), 2);
    assert_eq!(level_fortitude(0, 0).unwrap(), 0);
}

#[test]
fn m16_m22_neha_loses_a_die_per_sustained_effect() {
    assert_eq!(casting_pool(3, 3, 0, 0, 0), 6);
    assert_eq!(casting_pool(3, 3, 0, 0, 2), 4);
    assert_eq!(casting_pool(1, 0, 0, 0, 2), 0);
}

#[test]
fn m17_required_successes_by_delivery() {
    assert_eq!(Delivery::Caster.required(), 0);
    assert_eq!(Delivery::Wandtip { targets: 2 }.required(), 2);
    assert_eq!(Delivery::Ranged { targets: 1 }.required(), 2);
    assert_eq!(Delivery::Mass { required: 6 }.required(), 6);
    assert_eq!(Delivery::Mass { required: 1 }.required(), 4);
}

#[test]
fn a16_a_cast_needs_one_net_success_even_for_self() {
    assert_eq!(CastingOutcome::of(0, 0), CastingOutcome::Failure);
    assert_eq!(CastingOutcome::of(-1, 0), CastingOutcome::Catastrophe);
    assert_eq!(
        CastingOutcome::of(1, 0),
        CastingOutcome::Cast { optional: 1 }
    );
    assert_eq!(
        CastingOutcome::of(1, 2),
        CastingOutcome::Short {
            net: 1,
            required: 2
        }
    );
}

#[test]
fn m22_janes_fire_bolt_has_power_four() {
    let difficulty = casting_difficulty(3, 3).unwrap();
    let roll = check(7, difficulty, 1, 0)
        .replay(&[1, 4, 5, 8, 8, 9, 11])
        .unwrap();
    assert_eq!(roll.net, 3);
    let required = Delivery::Ranged { targets: 1 }.required();
    let CastingOutcome::Cast { optional } = CastingOutcome::of(roll.net, required) else {
        panic!("the bolt is cast");
    };
    let spell = spend_optional(
        3,
        optional,
        OptionalSuccesses {
            overpower: 1,
            ..OptionalSuccesses::default()
        },
    )
    .unwrap();
    assert_eq!((spell.power, spell.unused), (4, 0));
}

#[test]
fn m22_michaels_stupefy_has_power_two_and_defy_two() {
    let pool = casting_pool(3, 3, 0, 0, 0);
    let difficulty = casting_difficulty(1, 3).unwrap();
    let roll = check(pool, difficulty, 1, 0)
        .replay(&[2, 3, 7, 8, 9, 11])
        .unwrap();
    assert_eq!(roll.net, 4);
    let CastingOutcome::Cast { optional } =
        CastingOutcome::of(roll.net, Delivery::Wandtip { targets: 1 }.required())
    else {
        panic!("the spell is cast");
    };
    assert_eq!(optional, 3);
    let spell = spend_optional(
        1,
        optional,
        OptionalSuccesses {
            overpower: 1,
            defy: 2,
            extend: 0,
        },
    )
    .unwrap();
    assert_eq!((spell.power, spell.defy, spell.unused), (2, 2, 0));
}

#[test]
fn a17_optional_effects_are_capped_at_twice_the_level() {
    assert_eq!(optional_cap(0), 1);
    assert_eq!(optional_cap(1), 2);
    assert_eq!(optional_cap(7), 14);
    let over = spend_optional(
        1,
        3,
        OptionalSuccesses {
            defy: 3,
            ..OptionalSuccesses::default()
        },
    );
    assert_eq!(
        over,
        Err(HprpgError::OptionalCap {
            effect: "defy",
            count: 3,
            cap: 2
        })
    );
    let too_many = spend_optional(
        3,
        2,
        OptionalSuccesses {
            overpower: 2,
            extend: 1,
            ..OptionalSuccesses::default()
        },
    );
    assert_eq!(
        too_many,
        Err(HprpgError::OptionalSpent {
            total: 3,
            optional: 2
        })
    );
    // Unused successes are allowed; NIHIL has POWER 0 before OVERPOWER (A19).
    let nihil = spend_optional(0, 2, OptionalSuccesses::default()).unwrap();
    assert_eq!((nihil.power, nihil.unused), (0, 2));
}

// -------------------------------------------------------------------------------------------------
// Resisting (003-M20, A18, A19).

#[test]
fn m22_partner_dodges_michaels_spell_to_power_one() {
    assert_eq!(resist_difficulty(1, 0, 3).unwrap(), 6);
    let difficulty = resist_difficulty(1, 2, 3).unwrap();
    assert_eq!(difficulty, 8);
    let roll = check(4, difficulty, 1, 0).replay(&[3, 5, 6, 10]).unwrap();
    assert_eq!(roll.net, 1);
    assert_eq!(resisted_power(2, roll.net), 1);
}

#[test]
fn m22_whomping_willow_reduces_janes_bolt_to_power_zero() {
    let difficulty = resist_difficulty(3, 0, 5).unwrap();
    assert_eq!(difficulty, 6);
    let roll = check(5 + 6, difficulty, 1, 0)
        .replay(&[1, 2, 4, 6, 6, 7, 8, 9, 10, 11, 12])
        .unwrap();
    assert_eq!((roll.successes, roll.catastrophes, roll.net), (8, 1, 7));
    assert_eq!(resisted_power(4, roll.net), 0);
}

#[test]
fn a18_a19_resist_catastrophes_leave_power_and_nihil_is_nullified() {
    assert_eq!(resisted_power(3, -2), 3);
    assert_eq!(resisted_power(3, 0), 3);
    assert_eq!(resisted_power(0, 1), 0);
    // The resist DV is clamped like any DV (A4).
    let dv = resist_difficulty(7, 14, 0).unwrap();
    assert_eq!(check(1, dv, 1, 0).difficulty(), 12);
}

// -------------------------------------------------------------------------------------------------
// Catch-casting (003-M19, A15).

#[test]
fn m19_catch_casts_lose_a_die_each_and_add_their_net() {
    let casting = check(4, 8, 1, 0);
    let state = CatchCasting::after(1, 4).unwrap();
    // First catch-cast: 3 dice.
    let first = state
        .catch_cast(&casting, &mut ScriptedDice::new(vec![9, 10, 5]))
        .unwrap();
    assert_eq!(first.roll.dice, vec![9, 10, 5]);
    let CatchCastOutcome::Continue(next) = first.outcome else {
        panic!("3 of 4");
    };
    assert_eq!((next.accumulated, next.catch_casts), (3, 1));
    // Second catch-cast: 2 dice; the excess becomes optional (A15).
    let second = next
        .catch_cast(&casting, &mut ScriptedDice::new(vec![12, 12]))
        .unwrap();
    assert_eq!(second.roll.dice, vec![12, 12]);
    assert_eq!(second.outcome, CatchCastOutcome::Cast { optional: 1 });
    // Net ≤ 0 ends the casting; net < 0 with a catastrophe.
    let failed = state
        .catch_cast(&casting, &mut ScriptedDice::new(vec![1, 9, 5]))
        .unwrap();
    assert_eq!(
        failed.outcome,
        CatchCastOutcome::Failed { catastrophe: false }
    );
    let backfire = state
        .catch_cast(&casting, &mut ScriptedDice::new(vec![1, 2, 5]))
        .unwrap();
    assert_eq!(
        backfire.outcome,
        CatchCastOutcome::Failed { catastrophe: true }
    );
    assert!(CatchCasting::after(0, 2).is_err());
    assert!(CatchCasting::after(2, 2).is_err());
}

/// Independent: P(complete) from `accumulated` after `k` catch-casts, rolling every face.
fn brute_completion(
    pool: usize,
    difficulty: i64,
    range: i64,
    required: u64,
    accumulated: u64,
    k: usize,
) -> Probability {
    let dice = pool.saturating_sub(k);
    let mut nets: BTreeMap<i64, u64> = BTreeMap::new();
    for roll in faces(rolled(dice)) {
        let (s, c) = brute_counts(&roll, difficulty, range, dice == 0);
        *nets.entry(brute_net(s, c, 0)).or_default() += 1;
    }
    let total: u64 = nets.values().sum();
    let mut p = ratio(0, 1);
    for (net, count) in nets {
        let share = ratio(count, total);
        if net < 1 {
            continue;
        }
        let now = accumulated + net as u64;
        if now >= required {
            p += share;
        } else {
            p += share * brute_completion(pool, difficulty, range, required, now, k + 1);
        }
    }
    p
}

#[test]
fn m19_a15_completion_probability_matches_brute_force() {
    for (pool, difficulty, range, required) in
        [(3, 8, 1, 2), (3, 6, 2, 4), (2, 7, 1, 3), (1, 4, 1, 2)]
    {
        let casting = check(pool as u64, difficulty, range, 0);
        let exact = completion_probability(&casting, required, &limits()).unwrap();
        let brute = brute_completion(pool, difficulty, range, required, 0, 0);
        assert_eq!(
            exact, brute,
            "pool {pool} DV {difficulty} X {range} needs {required}"
        );
        let state = CatchCasting::after(1, required).unwrap();
        assert_eq!(
            state.completion_probability(&casting, &limits()).unwrap(),
            brute_completion(pool, difficulty, range, required, 1, 1)
        );
    }
    // Needing nothing beyond the cast itself: P(net ≥ 1).
    let casting = check(2, 8, 1, 0);
    let direct = casting
        .net_distribution(&limits())
        .unwrap()
        .probability_where(|&n| n >= 1);
    assert_eq!(
        completion_probability(&casting, 0, &limits()).unwrap(),
        direct
    );
}

//! The character's ritual state and Lore progression (000-S1, M6..M8, S2, A2..A8): transitions replayed
//! with given dice, exact Lore-gain odds against closed forms and brute-force enumeration, and the
//! refusals.
//! Seed 000: a test named `m1_…` covers 000-M1.

use omen_core::{CoreError, Limits, Probability, ScriptedDice};
use omen_rules::ritual::{
    Difficulty, EssenceContributions, FamiliarityBonuses, LoreCheckPurpose, LoreModifiers,
    RepeatCounting, RitualError, RitualOptions, RitualState, SessionLoreCheck, SessionReroll,
};
use serde::Deserialize;
use serde::de::IntoDeserializer;
use serde::de::value::Error as ValueError;

use crate::support::ratio;

fn limits() -> Limits {
    Limits::default()
}

fn difficulty(value: i64) -> Difficulty {
    Difficulty::new(value).unwrap()
}

fn dice(values: &[i64]) -> ScriptedDice {
    ScriptedDice::new(values.to_vec())
}

fn plain() -> LoreModifiers {
    LoreModifiers::default()
}

fn options() -> RitualOptions {
    RitualOptions::default()
}

fn state(lore: i64) -> RitualState {
    RitualState::new(lore).unwrap()
}

/// Deciphers with the default options and the given dice, expecting every die to be used.
fn decipher(state: &RitualState, ritual: &str, t: i64, faces: &[i64]) -> RitualState {
    let mut source = dice(faces);
    let done = state
        .decipher(
            ritual,
            difficulty(t),
            &plain(),
            &options(),
            &limits(),
            &mut source,
        )
        .unwrap();
    assert!(
        source.remaining().is_empty(),
        "dice left: {:?}",
        source.remaining()
    );
    done.state
}

fn logged(ritual: &str, purpose: LoreCheckPurpose, t: i64, pool: i64) -> SessionLoreCheck {
    SessionLoreCheck {
        ritual: ritual.to_string(),
        purpose,
        difficulty: difficulty(t),
        pool,
    }
}

/// A state whose session log holds the given (difficulty, pool) checks.
fn with_session(lore: i64, checks: &[(i64, i64)]) -> RitualState {
    let mut s = state(lore);
    s.session_checks = checks
        .iter()
        .enumerate()
        .map(|(i, &(t, pool))| logged(&format!("r{i}"), LoreCheckPurpose::Decipher, t, pool))
        .collect();
    s
}

#[test]
fn s1_new_character_starts_empty() {
    let s = state(0);
    assert_eq!(s.lore, 0);
    assert!(s.known.is_empty() && s.used.is_empty() && s.unknown.is_empty());
    assert!(s.memorised.is_empty() && s.session_checks.is_empty() && s.attempts.is_empty());
    assert_eq!(s, RitualState::default());
}

#[test]
fn s1_negative_lore_is_refused() {
    assert_eq!(RitualState::new(-1), Err(RitualError::NegativeLore(-1)));
}

#[test]
fn m6_success_adds_to_known_and_logs_the_check() {
    // Lore 2, nothing else: 2 dice, highest 5 meets 4.
    let s = decipher(&state(2), "Ward of Salt", 4, &[3, 5]);
    assert!(s.known.contains("Ward of Salt"));
    assert!(s.unknown.is_empty());
    assert_eq!(
        s.session_checks,
        vec![logged("Ward of Salt", LoreCheckPurpose::Decipher, 4, 2)]
    );
}

#[test]
fn m6_failure_adds_to_unknown_and_logs_the_check() {
    let s = decipher(&state(2), "Ward of Salt", 4, &[1, 3]);
    assert!(s.known.is_empty());
    assert!(s.unknown.contains("Ward of Salt"));
    assert_eq!(s.session_checks.len(), 1);
}

#[test]
fn m6_unknown_ritual_is_refused_until_lore_increases() {
    let failed = decipher(&state(2), "Ward of Salt", 4, &[1, 3]);
    let mut source = dice(&[6, 6]);
    let refused = failed.decipher(
        "Ward of Salt",
        difficulty(4),
        &plain(),
        &options(),
        &limits(),
        &mut source,
    );
    let error = refused.unwrap_err();
    assert_eq!(
        error,
        RitualError::UnknownRitual {
            ritual: "Ward of Salt".to_string(),
            lore: 2
        }
    );
    assert!(error.to_string().contains("until lore increases"));
    assert_eq!(source.used(), 0, "a refused check rolls nothing");

    // The session's re-roll of that check fails (2 dice, 2 and 3 against 4): Lore 3, unknown cleared.
    let ended = failed
        .end_session(SessionReroll::Reroll, &limits(), &mut dice(&[2, 3]))
        .unwrap();
    assert!(ended.lore_gained);
    assert_eq!(ended.state.lore, 3);
    // Now 3 dice.
    let s = decipher(&ended.state, "Ward of Salt", 4, &[1, 1, 4]);
    assert!(s.known.contains("Ward of Salt"));
}

#[test]
fn m6_difficulty_one_needs_no_dice_but_is_logged() {
    let s = decipher(&state(0), "Candle Blessing", 1, &[]);
    assert!(s.known.contains("Candle Blessing"));
    assert_eq!(
        s.session_checks,
        vec![logged("Candle Blessing", LoreCheckPurpose::Decipher, 1, 0)]
    );
}

#[test]
fn m6_empty_ritual_name_is_refused() {
    let result = state(1).decipher(
        "  ",
        difficulty(3),
        &plain(),
        &options(),
        &limits(),
        &mut dice(&[]),
    );
    assert_eq!(result.unwrap_err(), RitualError::EmptyRitualName);
    assert_eq!(
        state(1).mark_performed("").unwrap_err(),
        RitualError::EmptyRitualName
    );
    assert_eq!(
        state(1).record_attempt("").unwrap_err(),
        RitualError::EmptyRitualName
    );
}

#[test]
fn m6_script_running_out_is_an_error_and_the_state_is_unchanged() {
    let s = state(3);
    let result = s.decipher(
        "Ward",
        difficulty(5),
        &plain(),
        &options(),
        &limits(),
        &mut dice(&[2]),
    );
    assert_eq!(
        result.unwrap_err(),
        RitualError::Core(CoreError::ScriptExhausted(1))
    );
    assert_eq!(s, state(3));
}

#[test]
fn a2_pool_comes_from_the_lists() {
    let mut s = state(2);
    s.known.insert("Ward".to_string());
    s.used.insert("Ward".to_string());
    s.used.insert("Rite".to_string());
    // The caller's familiarity flags are ignored: the lists decide.
    let claims = LoreModifiers {
        deciphered_before: true,
        performed_before: true,
        foreign_tradition: true,
        ..plain()
    };
    let pool = |ritual: &str, options: &RitualOptions| {
        s.lore_check(ritual, difficulty(5), &claims, options, &limits())
            .unwrap()
            .pool()
    };
    let stack = options();
    let larger_only = RitualOptions {
        familiarity_bonuses: FamiliarityBonuses::LargerOnly,
        ..options()
    };
    // 2 − 1 (tradition) + 1 + 2.
    assert_eq!(pool("Ward", &stack), 4);
    assert_eq!(pool("Ward", &larger_only), 3);
    // Performed only: 2 − 1 + 2.
    assert_eq!(pool("Rite", &stack), 3);
    // Neither: 2 − 1.
    assert_eq!(pool("Other", &stack), 1);

    // Deciphering a known ritual again uses the +3 and logs that pool.
    let mut source = dice(&[1, 1, 1, 6]);
    let again = s
        .decipher(
            "Ward",
            difficulty(5),
            &claims,
            &stack,
            &limits(),
            &mut source,
        )
        .unwrap();
    assert_eq!(again.check.pool(), 4);
    assert_eq!(again.roll.dice, vec![1, 1, 1, 6]);
    assert_eq!(again.state.session_checks[0].pool, 4);
}

#[test]
fn a3_marking_performed_adds_to_used() {
    let s = state(1).mark_performed("Ward").unwrap();
    assert!(s.used.contains("Ward"));
    assert!(s.known.is_empty());
}

#[test]
fn a4_most_difficult_is_highest_difficulty_then_smallest_pool() {
    let s = with_session(3, &[(5, 3), (6, 4), (6, 2), (1, 0), (6, 3)]);
    assert_eq!(s.most_difficult_check(), Some(&s.session_checks[2]));
    let lower_first = with_session(3, &[(2, -1), (3, 5), (3, 7)]);
    assert_eq!(
        lower_first.most_difficult_check(),
        Some(&lower_first.session_checks[1])
    );
}

#[test]
fn a4_difficulty_one_checks_do_not_trigger_the_reroll() {
    let mut s = with_session(0, &[(1, 0), (1, 3)]);
    s.unknown.insert("Old".to_string());
    assert_eq!(s.most_difficult_check(), None);
    assert_eq!(s.lore_gain_probability(&limits()).unwrap(), ratio(0, 1));
    let mut source = dice(&[]);
    let ended = s
        .end_session(SessionReroll::Reroll, &limits(), &mut source)
        .unwrap();
    assert!(!ended.lore_gained);
    assert_eq!(ended.reroll, None);
    assert_eq!(ended.state.lore, 0);
    assert!(ended.state.session_checks.is_empty());
    assert!(ended.state.unknown.contains("Old"));
}

#[test]
fn m7_failed_reroll_raises_lore_and_clears_unknown() {
    let mut s = with_session(3, &[(4, 3), (6, 2)]);
    s.unknown.insert("Old".to_string());
    s.known.insert("Ward".to_string());
    // Re-rolls (6, pool 2): 5 and 3 miss 6.
    let ended = s
        .end_session(SessionReroll::Reroll, &limits(), &mut dice(&[5, 3]))
        .unwrap();
    assert!(ended.lore_gained);
    assert_eq!(ended.state.lore, 4);
    assert!(ended.state.unknown.is_empty());
    assert!(
        ended.state.known.contains("Ward"),
        "the re-roll moves no ritual"
    );
    assert!(ended.state.session_checks.is_empty());
    let (check, roll) = ended.reroll.unwrap();
    assert_eq!(check, s.session_checks[1]);
    assert_eq!(roll.dice, vec![5, 3]);
    assert!(!roll.success);
}

#[test]
fn a5_successful_reroll_changes_nothing_but_the_log() {
    let mut s = with_session(3, &[(6, 2)]);
    s.unknown.insert("Old".to_string());
    let ended = s
        .end_session(SessionReroll::Reroll, &limits(), &mut dice(&[6, 1]))
        .unwrap();
    assert!(!ended.lore_gained);
    assert_eq!(ended.state.lore, 3);
    assert!(ended.state.unknown.contains("Old"));
    assert!(ended.state.session_checks.is_empty());
}

#[test]
fn a6_reroll_may_be_declined() {
    let mut s = with_session(3, &[(6, 2)]);
    s.unknown.insert("Old".to_string());
    let mut source = dice(&[]);
    let ended = s
        .end_session(SessionReroll::Decline, &limits(), &mut source)
        .unwrap();
    assert_eq!(source.used(), 0);
    assert!(!ended.lore_gained);
    assert_eq!(ended.reroll, None);
    assert_eq!(ended.state.lore, 3);
    assert!(ended.state.unknown.contains("Old"));
    assert!(ended.state.session_checks.is_empty());
}

#[test]
fn a4_reroll_of_a_zero_pool_takes_the_lower_of_two() {
    // Pool −1 (≤ 0): two dice, the lower counts: 6 and 2 against 3 fails.
    let s = with_session(0, &[(3, -1)]);
    let ended = s
        .end_session(SessionReroll::Reroll, &limits(), &mut dice(&[6, 2]))
        .unwrap();
    assert!(ended.lore_gained);
    assert_eq!(ended.state.lore, 1);
}

/// P(Lore gain) = P(the re-roll fails): ((t − 1)/6)^n for a pool n ≥ 1, 1 − ((7 − t)/6)² for n ≤ 0.
fn gain_closed_form(t: u64, pool: i64) -> Probability {
    if pool >= 1 {
        let n = u32::try_from(pool).unwrap();
        ratio((t - 1).pow(n), 6u64.pow(n))
    } else {
        ratio(36 - (7 - t) * (7 - t), 36)
    }
}

#[test]
fn m7_lore_gain_probability_matches_closed_forms() {
    for t in 2..=6u64 {
        for pool in -2..=8i64 {
            let s = with_session(2, &[(i64::try_from(t).unwrap(), pool), (1, 0)]);
            assert_eq!(
                s.lore_gain_probability(&limits()).unwrap(),
                gain_closed_form(t, pool),
                "t {t}, pool {pool}"
            );
        }
    }
    // The headline case: difficulty 6 with 2 dice gains Lore 25/36 of the time.
    let s = with_session(2, &[(4, 1), (6, 2), (6, 3)]);
    assert_eq!(s.lore_gain_probability(&limits()).unwrap(), ratio(25, 36));
}

/// Every sequence of `count` d6 faces.
fn all_faces(count: usize) -> Vec<Vec<i64>> {
    let mut sequences = vec![Vec::new()];
    for _ in 0..count {
        sequences = sequences
            .into_iter()
            .flat_map(|prefix| {
                (1..=6).map(move |face| {
                    let mut next = prefix.clone();
                    next.push(face);
                    next
                })
            })
            .collect();
    }
    sequences
}

#[test]
fn m7_lore_gain_probability_matches_enumerated_session_ends() {
    for (t, pool, count) in [(5, 3, 3), (6, 1, 1), (2, 0, 2), (4, -3, 2), (3, 4, 4)] {
        let s = with_session(1, &[(t, pool)]);
        let sequences = all_faces(count);
        let gains = sequences
            .iter()
            .filter(|faces| {
                let mut source = dice(faces);
                let ended = s
                    .end_session(SessionReroll::Reroll, &limits(), &mut source)
                    .unwrap();
                assert!(source.remaining().is_empty());
                ended.lore_gained
            })
            .count();
        assert_eq!(
            s.lore_gain_probability(&limits()).unwrap(),
            ratio(gains as u64, sequences.len() as u64),
            "t {t}, pool {pool}"
        );
    }
}

#[test]
fn m7_a_session_replayed_end_to_end() {
    // Lore 1. Decipher A (t 3, 1 die: 4, success), B (t 5, 1 die: 2, failure), C (t 1, no roll),
    // perform A, then the session's re-roll of B (t 5, pool 1) shows 3: Lore 2, B no longer unknown.
    let s = decipher(&state(1), "A", 3, &[4]);
    let s = decipher(&s, "B", 5, &[2]);
    let s = decipher(&s, "C", 1, &[]);
    let s = s.mark_performed("A").unwrap();
    assert_eq!(
        s.session_checks
            .iter()
            .map(|c| (c.ritual.as_str(), c.difficulty.value(), c.pool))
            .collect::<Vec<_>>(),
        vec![("A", 3, 1), ("B", 5, 1), ("C", 1, 1)]
    );
    assert_eq!(s.lore_gain_probability(&limits()).unwrap(), ratio(4, 6));
    let ended = s
        .end_session(SessionReroll::Reroll, &limits(), &mut dice(&[3]))
        .unwrap();
    assert!(ended.lore_gained);
    let s = ended.state;
    assert_eq!(s.lore, 2);
    assert!(s.unknown.is_empty());
    // A: lore 2 + 1 (known) + 2 (used) = 5 dice.
    let check = s
        .lore_check("A", difficulty(6), &plain(), &options(), &limits())
        .unwrap();
    assert_eq!(check.pool(), 5);
}

#[test]
fn m8_first_memorised_ritual_is_free() {
    let mut s = state(0);
    s.known.insert("Ward".to_string());
    let mut source = dice(&[]);
    let done = s
        .memorise(
            "Ward",
            difficulty(6),
            &plain(),
            &options(),
            &limits(),
            &mut source,
        )
        .unwrap();
    assert!(done.memorised);
    assert_eq!(done.check, None);
    assert_eq!(source.used(), 0);
    assert!(done.state.memorised.contains("Ward"));
    assert!(done.state.session_checks.is_empty());
}

#[test]
fn a7_further_memorising_takes_a_lore_check_with_the_decipher_pool() {
    let mut s = state(2);
    for ritual in ["Ward", "Rite", "Veil"] {
        s.known.insert(ritual.to_string());
    }
    s.used.insert("Veil".to_string());
    s.memorised.insert("Ward".to_string());
    // Rite: 2 + 1 (known) = 3 dice against 5; 4, 4, 2 fail: not memorised.
    let failed = s
        .memorise(
            "Rite",
            difficulty(5),
            &plain(),
            &options(),
            &limits(),
            &mut dice(&[4, 4, 2]),
        )
        .unwrap();
    assert!(!failed.memorised);
    assert_eq!(failed.check.unwrap().pool(), 3);
    assert!(!failed.state.memorised.contains("Rite"));
    assert!(failed.state.known.contains("Rite"), "still known");
    assert_eq!(
        failed.state.session_checks,
        vec![logged("Rite", LoreCheckPurpose::Memorise, 5, 3)]
    );
    // Veil: 2 + 1 + 2 = 5 dice against 6.
    let done = failed
        .state
        .memorise(
            "Veil",
            difficulty(6),
            &plain(),
            &options(),
            &limits(),
            &mut dice(&[1, 2, 3, 4, 6]),
        )
        .unwrap();
    assert!(done.memorised);
    assert_eq!(done.check.unwrap().pool(), 5);
    assert!(done.state.memorised.contains("Veil"));
    // The memorising checks count for the session's re-roll: (6, 5) is the most difficult.
    assert_eq!(
        done.state.most_difficult_check(),
        Some(&logged("Veil", LoreCheckPurpose::Memorise, 6, 5))
    );
}

#[test]
fn m8_memorising_refusals() {
    let mut s = state(2);
    s.known.insert("Ward".to_string());
    s.memorised.insert("Ward".to_string());
    let memorise = |ritual: &str| {
        s.memorise(
            ritual,
            difficulty(3),
            &plain(),
            &options(),
            &limits(),
            &mut dice(&[6, 6]),
        )
        .unwrap_err()
    };
    assert_eq!(
        memorise("Unheard"),
        RitualError::NotKnown("Unheard".to_string())
    );
    assert_eq!(
        memorise("Ward"),
        RitualError::AlreadyMemorised("Ward".to_string())
    );
    let forgotten = s.forget("Ward");
    assert!(forgotten.memorised.is_empty());
    assert!(forgotten.known.contains("Ward"));
}

#[test]
fn s2_repeated_attempts_count_per_ritual_until_a_full_nights_sleep() {
    let s = state(0)
        .record_attempt("Ward")
        .unwrap()
        .record_attempt("Ward")
        .unwrap()
        .record_attempt("Rite")
        .unwrap();
    // The third attempt at Ward loses 2 dice; the second at Rite 1; a first attempt none.
    assert_eq!(s.repeated_attempts("Ward", RepeatCounting::PerRitual), 2);
    assert_eq!(s.repeated_attempts("Rite", RepeatCounting::PerRitual), 1);
    assert_eq!(s.repeated_attempts("Veil", RepeatCounting::PerRitual), 0);
    let contributions = EssenceContributions {
        leader: 5,
        repeated_attempts: s.repeated_attempts("Ward", options().repeat_counting),
        ..EssenceContributions::default()
    };
    assert_eq!(contributions.pool(&limits()).unwrap(), 3);
    let rested = s.full_night_sleep();
    assert_eq!(
        rested.repeated_attempts("Ward", RepeatCounting::PerRitual),
        0
    );
    assert!(rested.attempts.is_empty());
}

#[test]
fn a8_global_counting_sums_every_ritual() {
    let s = state(0)
        .record_attempt("Ward")
        .unwrap()
        .record_attempt("Rite")
        .unwrap();
    assert_eq!(s.repeated_attempts("Veil", RepeatCounting::Global), 2);
    assert_eq!(s.repeated_attempts("Ward", RepeatCounting::Global), 2);
    assert_eq!(RepeatCounting::default(), RepeatCounting::PerRitual);
    assert_eq!(
        s.full_night_sleep()
            .repeated_attempts("Ward", RepeatCounting::Global),
        0
    );
}

#[test]
fn stored_difficulty_outside_one_to_six_is_refused() {
    let read = |value: i64| {
        Difficulty::deserialize(IntoDeserializer::<ValueError>::into_deserializer(value))
    };
    assert_eq!(read(4).unwrap(), difficulty(4));
    let error = read(7).unwrap_err().to_string();
    assert!(error.contains("outside 1..=6"), "{error}");
    assert_eq!(i64::from(difficulty(6)), 6);
}

//! Luck rolls (seed 002): the ranges against a face-by-face count, events and intrinsic modifiers, the
//! karmic history, the seed's 13-step example replayed, and the long run against a Markov chain solved
//! here from scratch.
//! Seed 002: a test named `m1_…` covers 002-M1.

use num_bigint::BigInt;
use num_rational::Ratio;
use num_traits::{One, Zero};
use omen_core::{ChaChaDice, Distribution, Limits, Probability, ScriptedDice, Weight};
use omen_rules::RuleSet;
use omen_rules::luck::{
    self, IntrinsicModifier, KARMIC_TABLE, Karma, LuckError, LuckEvent, LuckHistory, LuckOptions,
    LuckOutcome, LuckState, MissingOutcome, RunKind, ranges, resolve,
};

use crate::support::ratio;

use LuckOutcome::{Bad, Good, Neutral};

type Q = Ratio<BigInt>;

/// Faces of the d50 in each range for combined modifier `m`, counted face by face from the seed's
/// sentences: bad when the face is at most 10 − m, good when at least 41 − m.
fn face_counts(m: i64) -> [u64; 3] {
    let mut counts = [0; 3];
    for face in 1..=50 {
        let index = if face <= 10 - m {
            0
        } else if face >= 41 - m {
            2
        } else {
            1
        };
        counts[index] += 1;
    }
    counts
}

fn distribution(bad: u64, neutral: u64, good: u64) -> Distribution<LuckOutcome> {
    Distribution::from_weights([
        (Bad, Weight::from(bad)),
        (Neutral, Weight::from(neutral)),
        (Good, Weight::from(good)),
    ])
    .unwrap()
}

fn both(modifier: i64) -> LuckEvent {
    LuckEvent::both(modifier).unwrap()
}

fn options() -> LuckOptions {
    LuckOptions::default()
}

#[test]
fn m1_m2_ranges_match_a_face_by_face_count_for_every_modifier() {
    for m in -120..=120 {
        let r = ranges(m);
        let [bad, neutral, good] = face_counts(m);
        assert_eq!(
            [r.faces(Bad), r.faces(Neutral), r.faces(Good)],
            [bad, neutral, good],
            "m = {m}"
        );
        assert_eq!(r.probability(Bad), ratio(bad, 50), "m = {m}");
        assert_eq!(r.probability(Neutral), ratio(neutral, 50), "m = {m}");
        assert_eq!(r.probability(Good), ratio(good, 50), "m = {m}");
        assert_eq!(r.outcome_distribution(), distribution(bad, neutral, good));
        for face in 1..=50 {
            let expected = if face <= 10 - m {
                Bad
            } else if face >= 41 - m {
                Good
            } else {
                Neutral
            };
            assert_eq!(r.range_of(face), expected, "m = {m}, face {face}");
        }
        // The ranges are the clamped formulas.
        let bad_top = (10 - m).min(50);
        assert_eq!(r.bad, (bad_top >= 1).then_some(1..=bad_top), "m = {m}");
        let good_bottom = (41 - m).max(1);
        assert_eq!(
            r.good,
            (good_bottom <= 50).then_some(good_bottom..=50),
            "m = {m}"
        );
    }
}

#[test]
fn m2_calculator_at_zero_and_the_seeds_examples() {
    let zero = ranges(0);
    assert_eq!(
        (&zero.bad, &zero.neutral, &zero.good),
        (&Some(1..=10), &Some(11..=40), &Some(41..=50))
    );
    assert_eq!(
        [Bad, Neutral, Good].map(|o| zero.probability(o)),
        [ratio(1, 5), ratio(3, 5), ratio(1, 5)]
    );
    let plus_two = ranges(2);
    assert_eq!((plus_two.bad, plus_two.good), (Some(1..=8), Some(39..=50)));
    let minus_two = ranges(-2);
    assert_eq!(
        (minus_two.bad, minus_two.good),
        (Some(1..=12), Some(43..=50))
    );
    assert_eq!(ranges(10).bad, None);
    assert_eq!(ranges(9).bad, Some(1..=1));
    assert_eq!(ranges(-10).good, None);
    assert_eq!(ranges(-9).good, Some(50..=50));
}

#[test]
fn a1_a4_exactly_forty_guarantees_and_beyond_fifty_clamps() {
    assert_eq!(ranges(40).good, Some(1..=50));
    assert_eq!(ranges(40).probability(Good), ratio(1, 1));
    assert_eq!(ranges(-40).bad, Some(1..=50));
    assert_eq!(ranges(39).probability(Neutral), ratio(1, 50));
    for m in [60, 100, i64::MAX] {
        assert_eq!(
            ranges(m).outcome_distribution(),
            Distribution::constant(Good)
        );
        assert_eq!(
            ranges(-m).outcome_distribution(),
            Distribution::constant(Bad)
        );
    }
    assert_eq!(
        ranges(i64::MIN).outcome_distribution(),
        Distribution::constant(Bad)
    );
}

#[test]
fn m2_probabilities_are_multiples_of_two_percent() {
    for m in -50..=50 {
        for outcome in LuckOutcome::ALL {
            let p = ranges(m).probability(outcome) * ratio(50, 1);
            assert!(p.is_integer(), "m = {m}: {p}");
        }
    }
}

#[test]
fn m3_events_validate_their_modifier_and_outcomes() {
    assert_eq!(
        LuckEvent::new(0, false, false),
        Err(LuckError::NoOutcomeOffered)
    );
    assert_eq!(LuckEvent::both(51), Err(LuckError::EventModifier(51)));
    assert_eq!(LuckEvent::both(-51), Err(LuckError::EventModifier(-51)));
    assert!(LuckEvent::both(50).is_ok() && LuckEvent::both(-50).is_ok());
    assert_eq!(
        LuckError::NoOutcomeOffered.to_string(),
        "a luck event must offer a bad luck outcome, a good luck outcome or both; with neither the roll has no purpose"
    );
}

#[test]
fn m3_an_unoffered_range_gives_no_event() {
    let good_only = LuckEvent::new(0, false, true).unwrap();
    let state = LuckState::default();
    assert_eq!(
        good_only.outcome_distribution(&state).unwrap(),
        distribution(0, 40, 10)
    );
    let bad_only = LuckEvent::new(-5, true, false).unwrap();
    assert_eq!(
        bad_only.outcome_distribution(&state).unwrap(),
        distribution(15, 35, 0)
    );
    let low = resolve(&state, &good_only, &options(), 3).unwrap();
    assert_eq!((low.range, low.outcome), (Bad, Neutral));
    let high = resolve(&state, &good_only, &options(), 45).unwrap();
    assert_eq!((high.range, high.outcome), (Good, Good));
}

#[test]
fn a2_a_missing_outcome_resets_the_history_unless_the_option_keeps_it() {
    let state = LuckState {
        history: LuckHistory::run(RunKind::Good, 2).unwrap(),
        ..LuckState::default()
    };
    let good_only = LuckEvent::new(0, false, true).unwrap();
    // Karmic −1: bad 1..=11; the die 5 lands there, and the event offers no bad luck.
    let reset = resolve(&state, &good_only, &options(), 5).unwrap();
    assert_eq!((reset.range, reset.outcome), (Bad, Neutral));
    assert_eq!(reset.state.history, LuckHistory::EMPTY);
    let keep = LuckOptions {
        missing_outcome: MissingOutcome::KeepsHistory,
    };
    let kept = resolve(&state, &good_only, &keep, 5).unwrap();
    assert_eq!(kept.outcome, Neutral);
    assert_eq!(kept.state.history, state.history);
    // A genuine neutral roll empties the history under either option.
    let neutral = resolve(&state, &good_only, &keep, 25).unwrap();
    assert_eq!(neutral.state.history, LuckHistory::EMPTY);
}

#[test]
fn m4_intrinsic_modifiers_add_and_a_next_roll_one_is_consumed() {
    let state = LuckState {
        intrinsic: vec![
            IntrinsicModifier::halfling(),
            IntrinsicModifier::next_roll("blessing", 10),
            IntrinsicModifier::permanent("piety", -3),
        ],
        history: LuckHistory::EMPTY,
    };
    let event = both(1);
    assert_eq!(state.modifier_for(&event), Ok(10));
    let first = resolve(&state, &event, &options(), 31).unwrap();
    assert_eq!((first.modifier, first.outcome), (10, Good));
    assert_eq!(
        first.state.intrinsic,
        vec![
            IntrinsicModifier::halfling(),
            IntrinsicModifier::permanent("piety", -3)
        ]
    );
    // Second roll: +2 − 3 + 1 and karmic 0 (a run of one).
    let second = resolve(&first.state, &event, &options(), 31).unwrap();
    assert_eq!((second.modifier, second.outcome), (0, Neutral));
}

#[test]
fn s1_history_update_rule() {
    let bad = |n| LuckHistory::run(RunKind::Bad, n).unwrap();
    let good = |n| LuckHistory::run(RunKind::Good, n).unwrap();
    assert_eq!(LuckHistory::EMPTY.after(Bad), bad(1));
    assert_eq!(LuckHistory::EMPTY.after(Neutral), LuckHistory::EMPTY);
    for n in 1..=6 {
        assert_eq!(bad(n).after(Neutral), LuckHistory::EMPTY);
        assert_eq!(bad(n).after(Good), good(1));
        assert_eq!(good(n).after(Bad), bad(1));
        assert_eq!(bad(n).after(Bad), bad((n + 1).min(6)));
        assert_eq!(good(n).after(Good), good((n + 1).min(6)));
    }
    assert_eq!(
        LuckHistory::run(RunKind::Bad, 0),
        Err(LuckError::RunLength(0))
    );
    assert_eq!(
        LuckHistory::run(RunKind::Good, 7),
        Err(LuckError::RunLength(7))
    );
}

#[test]
fn m5_karmic_modifier_table() {
    let expected = [0, 1, 2, 4, 7, 10];
    assert_eq!(KARMIC_TABLE, expected);
    assert_eq!(LuckHistory::EMPTY.karmic_modifier(), 0);
    for n in 1..=6u8 {
        let size = expected[usize::from(n) - 1];
        assert_eq!(
            LuckHistory::run(RunKind::Bad, n).unwrap().karmic_modifier(),
            size
        );
        assert_eq!(
            LuckHistory::run(RunKind::Good, n)
                .unwrap()
                .karmic_modifier(),
            -size
        );
    }
}

/// The seed's 13-step example. The seed gives outcomes, not dice, so the dice here are chosen in the
/// ranges: 50 for good luck, 1 for bad luck, 25 for no event. Step 12 needs an event modifier of at
/// most −1: at karmic +10 an event of modifier 0 has no bad range at all.
#[test]
fn m5_replays_the_seeds_thirteen_step_example() {
    let steps: [(i64, i64, LuckOutcome, i64); 13] = [
        // (event modifier, die, outcome, karmic modifier afterwards)
        (0, 50, Good, 0),
        (0, 50, Good, -1),
        (0, 50, Good, -2),
        (0, 1, Bad, 0),
        (0, 25, Neutral, 0),
        (0, 1, Bad, 0),
        (0, 1, Bad, 1),
        (0, 1, Bad, 2),
        (0, 1, Bad, 4),
        (0, 1, Bad, 7),
        (0, 1, Bad, 10),
        (-1, 1, Bad, 10),
        (0, 25, Neutral, 0),
    ];
    let dice: Vec<i64> = steps.iter().map(|&(_, die, _, _)| die).collect();
    let mut source = ScriptedDice::new(dice);
    let mut state = LuckState::default();
    let mut karmic_before = 0;
    for (i, &(event_modifier, die, outcome, karmic_after)) in steps.iter().enumerate() {
        let roll = luck::roll(&state, &both(event_modifier), &options(), &mut source).unwrap();
        let step = i + 1;
        assert_eq!(roll.die, die, "step {step}");
        assert_eq!(roll.karmic_modifier, karmic_before, "step {step}");
        assert_eq!(roll.modifier, event_modifier + karmic_before, "step {step}");
        assert_eq!(roll.outcome, outcome, "step {step}");
        assert_eq!(
            roll.state.history.karmic_modifier(),
            karmic_after,
            "step {step}"
        );
        karmic_before = karmic_after;
        state = roll.state;
    }
    assert_eq!(source.used(), 13);
    assert_eq!(state.history, LuckHistory::EMPTY);
    // Step 12 with an event modifier of 0 could not give bad luck.
    let six_bad = LuckState {
        history: LuckHistory::run(RunKind::Bad, 6).unwrap(),
        ..LuckState::default()
    };
    assert_eq!(
        both(0)
            .outcome_distribution(&six_bad)
            .unwrap()
            .probability(&Bad),
        ratio(0, 1)
    );
}

#[test]
fn m1_seeded_rolls_are_faces_of_a_d50() {
    let mut source = ChaChaDice::from_seed(2);
    let mut state = LuckState::default();
    for _ in 0..200 {
        let roll = luck::roll(&state, &both(0), &options(), &mut source).unwrap();
        assert!((1..=50).contains(&roll.die));
        assert_eq!(
            roll,
            resolve(&state, &both(0), &options(), roll.die).unwrap()
        );
        state = roll.state;
    }
    assert_eq!(
        resolve(&state, &both(0), &options(), 51),
        Err(LuckError::DieFace(51))
    );
}

// ---------------------------------------------------------------------------------------------------
// The long run, against the chain of histories built and solved here: state 0 empty, +n a bad run of n,
// −n a good run of n.

fn karmic(state: i64) -> i64 {
    let size = if state == 0 {
        0
    } else {
        [0, 1, 2, 4, 7, 10][state.unsigned_abs() as usize - 1]
    };
    if state > 0 { size } else { -size }
}

/// (next state, faces out of 50) for one roll from `state`.
fn transitions(base: i64, state: i64, karma: bool) -> Vec<(i64, i64)> {
    let m = base + if karma { karmic(state) } else { 0 };
    let bad = (10 - m).clamp(0, 50);
    let good = (10 + m).clamp(0, 50);
    let next_bad = if state > 0 { (state + 1).min(6) } else { 1 };
    let next_good = if state < 0 { (state - 1).max(-6) } else { -1 };
    vec![(next_bad, bad), (0, 50 - bad - good), (next_good, good)]
}

fn q(n: i64, d: i64) -> Q {
    Q::new(BigInt::from(n), BigInt::from(d))
}

/// The stationary distribution over the 13 states by Gaussian elimination of π(P − I) = 0, Σπ = 1.
fn solve_stationary(base: i64, karma: bool) -> Vec<Q> {
    let states: Vec<i64> = (-6..=6).collect();
    let n = states.len();
    let ix = |s: i64| (s + 6) as usize;
    // Rows are equations: for each target j, Σ_i π_i P(i→j) − π_j = 0; the last replaced by Σπ = 1.
    let mut a = vec![vec![Q::zero(); n + 1]; n];
    for &s in &states {
        for (t, faces) in transitions(base, s, karma) {
            a[ix(t)][ix(s)] += q(faces, 50);
        }
        a[ix(s)][ix(s)] -= Q::one();
    }
    a[n - 1] = vec![Q::one(); n + 1];
    for col in 0..n {
        let pivot = (col..n)
            .find(|&r| !a[r][col].is_zero())
            .expect("unique solution");
        a.swap(col, pivot);
        let p = a[col][col].clone();
        for v in &mut a[col] {
            *v = &*v / &p;
        }
        let pivot_row = a[col].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != col && !row[col].is_zero() {
                let f = row[col].clone();
                for (v, p) in row.iter_mut().zip(&pivot_row) {
                    *v -= &f * p;
                }
            }
        }
    }
    a.into_iter().map(|row| row[n].clone()).collect()
}

fn to_probability(x: &Q) -> Probability {
    Probability::new(
        x.numer().to_biguint().unwrap(),
        x.denom().to_biguint().unwrap(),
    )
}

/// Outcome frequencies [bad, neutral, good] from a distribution over the 13 states.
fn outcome_frequencies(base: i64, karma: bool, pi: &[Q]) -> [Probability; 3] {
    let mut out = [Q::zero(), Q::zero(), Q::zero()];
    for (k, p) in pi.iter().enumerate() {
        let state = k as i64 - 6;
        for (slot, (_, faces)) in transitions(base, state, karma).into_iter().enumerate() {
            out[slot] += p * q(faces, 50);
        }
    }
    out.map(|x| to_probability(&x))
}

fn karma_of(on: bool) -> Karma {
    if on { Karma::On } else { Karma::Off }
}

#[test]
fn m6_long_run_at_base_zero_is_one_fifth_three_fifths_one_fifth() {
    let limits = Limits::default();
    for karma in [Karma::On, Karma::Off] {
        let long = luck::long_run(0, karma, &limits).unwrap();
        assert_eq!(long.outcomes, distribution(1, 3, 1), "{karma:?}");
    }
    let on = luck::long_run(0, Karma::On, &limits).unwrap();
    assert_eq!(on.run_at_least(2), ratio(1_894_474, 24_267_435));
    let off = luck::long_run(0, Karma::Off, &limits).unwrap();
    assert_eq!(off.run_at_least(2), ratio(2, 25));
}

#[test]
fn m6_long_run_matches_the_chain_solved_here_for_bases_minus_twenty_to_twenty() {
    let limits = Limits::default();
    for base in -20..=20 {
        for karma in [true, false] {
            let pi = solve_stationary(base, karma);
            let long = luck::long_run(base, karma_of(karma), &limits).unwrap();
            let [bad, neutral, good] = outcome_frequencies(base, karma, &pi);
            assert_eq!(long.outcomes.probability(&Bad), bad, "base {base}");
            assert_eq!(long.outcomes.probability(&Neutral), neutral, "base {base}");
            assert_eq!(long.outcomes.probability(&Good), good, "base {base}");
            for (k, p) in pi.iter().enumerate() {
                let state = k as i64 - 6;
                let history = match state {
                    0 => LuckHistory::EMPTY,
                    s if s > 0 => LuckHistory::run(RunKind::Bad, s as u8).unwrap(),
                    s => LuckHistory::run(RunKind::Good, (-s) as u8).unwrap(),
                };
                assert_eq!(
                    long.histories.probability(&history),
                    to_probability(p),
                    "base {base}, state {state}"
                );
            }
            for k in 1..=6u8 {
                let expected: Q = pi
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| (*i as i64 - 6).unsigned_abs() >= u64::from(k))
                    .map(|(_, p)| p.clone())
                    .sum();
                assert_eq!(long.run_at_least(k), to_probability(&expected));
            }
        }
    }
}

#[test]
fn m6_nth_roll_matches_iterating_the_chain_here() {
    let limits = Limits::default();
    for base in [-7, 0, 3] {
        let mut pi = vec![Q::zero(); 13];
        pi[6] = Q::one();
        for n in 1..=12u64 {
            let [bad, neutral, good] = outcome_frequencies(base, true, &pi);
            let d = luck::nth_roll(base, n, Karma::On, &limits).unwrap();
            assert_eq!(
                [Bad, Neutral, Good].map(|o| d.probability(&o)),
                [bad, neutral, good],
                "base {base}, roll {n}"
            );
            let mut next = vec![Q::zero(); 13];
            for (k, p) in pi.iter().enumerate() {
                for (t, faces) in transitions(base, k as i64 - 6, true) {
                    next[(t + 6) as usize] += p * q(faces, 50);
                }
            }
            pi = next;
        }
    }
    // The first roll is the plain ranges.
    assert_eq!(
        luck::nth_roll(-7, 1, Karma::On, &limits).unwrap(),
        distribution(17, 30, 3)
    );
}

#[test]
fn registry_entry_describes_the_module() {
    let rules: &dyn RuleSet = &luck::Luck;
    assert_eq!(rules.tag(), "002");
    assert_eq!(rules.seed_file(), luck::SEED_FILE);
    let choices: Vec<&str> = MissingOutcome::ALL.iter().map(|o| o.name()).collect();
    assert_eq!(rules.options()[0].choices, choices.as_slice());
    assert_eq!(rules.options()[0].default, MissingOutcome::default().name());
}

#[test]
fn a3_the_karmic_modifier_comes_from_the_history_before_the_roll() {
    // Two good outcomes in a row: −1 for this roll, so the good range starts at 42, not 41.
    let state = LuckState {
        history: LuckHistory::run(RunKind::Good, 2).unwrap(),
        ..LuckState::default()
    };
    let neutral = resolve(&state, &both(0), &options(), 41).unwrap();
    assert_eq!(neutral.karmic_modifier, -1);
    assert_eq!(neutral.modifier, -1);
    assert_eq!(neutral.outcome, Neutral);
    // Had the history been updated first (empty after no event), the modifier would be 0 and 41 good.
    assert_eq!(ranges(0).range_of(41), Good);
    assert!(neutral.state.history.is_empty());
    // A third good outcome lengthens the run to 3 (−2), but only from the next roll on.
    let good = resolve(&state, &both(0), &options(), 42).unwrap();
    assert_eq!((good.karmic_modifier, good.outcome), (-1, Good));
    assert_eq!(good.state.history.karmic_modifier(), -2);
    let next = resolve(&good.state, &both(0), &options(), 43).unwrap();
    assert_eq!((next.karmic_modifier, next.outcome), (-2, Good));
    // The game's roll reports the same: the modifier it applied, then the history it left.
    let game = omen_rules::stateful::game("luck").expect("luck keeps state");
    let json_state = serde_json::to_value(&state).unwrap();
    let applied = game
        .apply(
            &json_state,
            &serde_json::json!({ "action": "roll" }),
            &mut ScriptedDice::new(vec![41]),
            &Limits::default(),
        )
        .unwrap();
    assert_eq!(applied.result["karmic_modifier"], -1);
    assert_eq!(applied.result["outcome"], "neutral");
}

#[test]
fn a5_two_or_more_means_a_consecutive_run() {
    let after = |outcomes: &[LuckOutcome]| {
        outcomes
            .iter()
            .fold(LuckHistory::EMPTY, |history, &o| history.after(o))
    };
    // Two of the last three rolls were good, but not consecutively: no karmic modifier.
    assert_eq!(after(&[Good, Bad, Good]).karmic_modifier(), 0);
    assert_eq!(after(&[Good, Neutral, Good]).karmic_modifier(), 0);
    // Two in a row: −1; the run is what counts, not the non-neutral outcomes of the last six.
    assert_eq!(after(&[Good, Good]).karmic_modifier(), -1);
    assert_eq!(after(&[Bad, Bad, Bad, Good, Good]).karmic_modifier(), -1);
    assert_eq!(after(&[Good, Good, Bad, Bad, Bad]).karmic_modifier(), 2);
    // Within the six remembered rolls a run is everything since the last change, so reading
    // "two or more of the most recent" as "consecutive" loses nothing (S1's purge rule).
    for outcomes in [
        [Good, Bad, Good, Good, Bad, Bad],
        [Bad, Good, Good, Good, Good, Good],
    ] {
        let history = after(&outcomes);
        let last = *outcomes.last().unwrap();
        let consecutive = outcomes.iter().rev().take_while(|&&o| o == last).count();
        assert_eq!(usize::from(history.length()), consecutive);
    }
}

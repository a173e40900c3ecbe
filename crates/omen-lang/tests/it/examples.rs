//! The scripts in `examples/`, one per seed mechanic, held to the seed spec
//! (`seed-spec.md`, `seed-errata.md`). Every exact value here is worked out by the test on its own:
//! by enumerating every dice outcome in plain Rust, by the spec's closed formulas, or by a small
//! Markov chain solved here with exact rationals. No number is read off a script's output; the only
//! literals are the spec's and errata's own figures and values derived by hand in a comment.
//! Every script must also roll with a fixed seed to an outcome the exact engine calls possible.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_rational::Ratio;
use num_traits::{One, Zero, pow};
use omen_core::{ChaChaDice, ScriptedDice};
use omen_lang::{Options, Program, Value, compile, exact, sample};

/// Exact probabilities, signed so that chains can subtract.
type Q = Ratio<BigInt>;
/// A distribution over a script's results, zero-probability outcomes left out.
type Dist = BTreeMap<Value, Q>;

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

const LORE_CHECK: &str = example!("000_lore_check");
const ESSENCE_CHECK: &str = example!("000_essence_check");
const CAST: &str = example!("001_cast");
const EXHAUSTION: &str = example!("001_exhaustion");
const LUCK_ROLL: &str = example!("002_luck_roll");
const KARMA_20TH_ROLL: &str = example!("002_karma_20th_roll");
const KARMA_LONG_RUN: &str = example!("002_karma_long_run");
const CHECK: &str = example!("003_check");
const CONTEST: &str = example!("003_contest");
const CATCH_CASTING: &str = example!("003_catch_casting");
const DICE_TEST: &str = example!("004_dice_test");

const SEED: u64 = 7;

// ---------------------------------------------------------------------------------------------
// Running a script

fn q(numerator: i64, denominator: i64) -> Q {
    Q::new(numerator.into(), denominator.into())
}

fn text(s: &str) -> Value {
    Value::text(s)
}

fn tuple(items: Vec<Value>) -> Value {
    Value::Tuple(items.into())
}

fn options(params: &[(&str, i64)]) -> Options {
    Options {
        params: params
            .iter()
            .map(|&(name, value)| (name.to_string(), Value::Int(value)))
            .collect(),
        ..Options::default()
    }
}

fn program(script: &str, options: &Options) -> Program {
    match compile(script, options) {
        Ok(checked) => checked.program,
        Err(diagnostics) => panic!(
            "the script does not compile with {:?}:\n{}",
            options.params,
            omen_lang::diagnostic::render(script, &diagnostics)
        ),
    }
}

/// A script's exact result: its distribution and, for an `absorb` query, the expected steps.
struct Exact {
    distribution: Dist,
    expected_steps: Option<Q>,
}

fn run(script: &str, params: &[(&str, i64)]) -> Exact {
    let options = options(params);
    let program = program(script, &options);
    let result = exact(&program, &options.limits)
        .unwrap_or_else(|d| panic!("exact evaluation with {params:?}: {d:?}"));
    assert!(result.truncated.is_zero(), "{params:?}: nothing is cut off");
    let values = result.distribution.values();
    let total = BigInt::from(values.total().clone());
    let distribution = values
        .entries()
        .iter()
        .filter(|(_, weight)| !weight.is_zero())
        .map(|(value, weight)| (value.clone(), Q::new(weight.clone().into(), total.clone())))
        .collect();
    Exact {
        distribution,
        expected_steps: result
            .expected_steps
            .map(|e| Q::new(e.numer().clone(), e.denom().clone())),
    }
}

/// Rolls the script once with the fixed seed and checks the exact engine gives that result a
/// non-zero probability.
fn assert_rolls_a_possible_outcome(script: &str, params: &[(&str, i64)], distribution: &Dist) {
    let options = options(params);
    let program = program(script, &options);
    let roll = sample(&program, &options.limits, &mut ChaChaDice::from_seed(SEED))
        .unwrap_or_else(|d| panic!("rolling with {params:?}: {d:?}"));
    assert!(
        distribution.get(&roll.result).is_some_and(|p| !p.is_zero()),
        "{params:?}: rolled {}, which the exact engine calls impossible",
        roll.result
    );
}

/// Runs the script exactly, compares its whole distribution with `expected`, and rolls it once.
fn check(script: &str, params: &[(&str, i64)], expected: &Dist) -> Exact {
    let exact = run(script, params);
    assert_eq!(
        &exact.distribution, expected,
        "with {params:?}: the script's distribution (left) differs from the independent one (right)"
    );
    assert_rolls_a_possible_outcome(script, params, &exact.distribution);
    exact
}

/// Collects (value, probability) pairs, adding repeats and leaving out zeros.
fn distribution(pairs: impl IntoIterator<Item = (Value, Q)>) -> Dist {
    let mut out = Dist::new();
    for (value, p) in pairs {
        *out.entry(value).or_insert_with(Q::zero) += p;
    }
    out.retain(|_, p| !p.is_zero());
    out
}

/// The distribution of a true/false result that is true with probability `p`.
fn bernoulli(p: Q) -> Dist {
    distribution([
        (Value::Bool(false), Q::one() - p.clone()),
        (Value::Bool(true), p),
    ])
}

fn probability_where(d: &Dist, predicate: impl Fn(&Value) -> bool) -> Q {
    d.iter()
        .filter(|(v, _)| predicate(v))
        .map(|(_, p)| p.clone())
        .sum()
}

// ---------------------------------------------------------------------------------------------
// Brute force

/// Calls `f` once for every sequence of faces of dice with the given numbers of sides (faces
/// 1..=sides), like an odometer: ∏ sides calls in all (one call, with no dice, for an empty slice).
fn for_each_roll(sides: &[i64], mut f: impl FnMut(&[i64])) {
    let mut faces = vec![1; sides.len()];
    loop {
        f(&faces);
        let mut i = 0;
        loop {
            if i == faces.len() {
                return;
            }
            if faces[i] < sides[i] {
                faces[i] += 1;
                break;
            }
            faces[i] = 1;
            i += 1;
        }
    }
}

/// The distribution of `outcome(faces)` over every roll of the given dice, each roll equally likely.
fn enumerate(sides: &[i64], mut outcome: impl FnMut(&[i64]) -> Value) -> Dist {
    let mut counts: BTreeMap<Value, i64> = BTreeMap::new();
    for_each_roll(sides, |faces| {
        *counts.entry(outcome(faces)).or_insert(0) += 1
    });
    let total: i64 = sides.iter().product();
    distribution(counts.into_iter().map(|(v, n)| (v, q(n, total))))
}

/// Solves `a · x = b` exactly (Gauss–Jordan; `a` must be non-singular).
fn solve(mut a: Vec<Vec<Q>>, mut b: Vec<Q>) -> Vec<Q> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n)
            .find(|&r| !a[r][col].is_zero())
            .expect("a non-singular system");
        a.swap(col, pivot);
        b.swap(col, pivot);
        let inverse = Q::one() / &a[col][col];
        for cell in &mut a[col] {
            *cell = &*cell * &inverse;
        }
        b[col] = &b[col] * &inverse;
        let pivot_row = a[col].clone();
        let pivot_value = b[col].clone();
        for (r, (row, value)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
            if r != col && !row[col].is_zero() {
                let factor = row[col].clone();
                for (cell, p) in row.iter_mut().zip(&pivot_row) {
                    *cell -= &factor * p;
                }
                *value -= &factor * &pivot_value;
            }
        }
    }
    b
}

// ---------------------------------------------------------------------------------------------
// 000: Lore check and Essence check

/// 000-M3..M5 and 000-A1: P(success) = 1 for difficulty 1; otherwise, with p = (7 − t)/6,
/// 1 − (1 − p)^n for a pool n ≥ 1 and p² for a pool ≤ 0.
fn lore_check_success(pool: i64, difficulty: i64) -> Q {
    if difficulty <= 1 {
        return Q::one();
    }
    let p = q(7 - difficulty, 6);
    if pool <= 0 {
        p.clone() * p
    } else {
        Q::one() - pow(Q::one() - p, pool as usize)
    }
}

#[test]
fn lore_check_000_m5_matches_the_closed_form() {
    // Defaults: Lore 2, difficulty 4, no modifiers: 1 − (1/2)² = 3/4.
    check(LORE_CHECK, &[], &bernoulli(q(3, 4)));
    for lore in 0..=6 {
        for difficulty in 1..=6 {
            // 000-M1/M2: −2 inventing, −1 for each of three, +1 deciphered, +2 performed, summed.
            for modifiers in [-4, -2, -1, 0, 1, 2, 3] {
                let params = [
                    ("lore", lore),
                    ("difficulty", difficulty),
                    ("modifiers", modifiers),
                ];
                let expected = bernoulli(lore_check_success(lore + modifiers, difficulty));
                let exact = run(LORE_CHECK, &params);
                assert_eq!(exact.distribution, expected, "{params:?}");
            }
        }
    }
    assert_rolls_a_possible_outcome(
        LORE_CHECK,
        &[("lore", 0), ("modifiers", -2)],
        &bernoulli(lore_check_success(-2, 4)),
    );
}

#[test]
fn lore_check_000_a1_pools_at_or_below_zero_keep_the_lower_of_two_dice() {
    // Lore 0 inventing (pool −2) against difficulty 4: both of two dice ≥ 4, (3/6)² = 1/4.
    let d = run(
        LORE_CHECK,
        &[("lore", 0), ("difficulty", 4), ("modifiers", -2)],
    )
    .distribution;
    assert_eq!(d, bernoulli(q(1, 4)));
    // Brute force over 2d6 for every difficulty, pool 0.
    for difficulty in 2..=6 {
        let expected = enumerate(&[6, 6], |f| Value::Bool(f[0].min(f[1]) >= difficulty));
        let params = [("lore", 0), ("difficulty", difficulty)];
        assert_eq!(
            run(LORE_CHECK, &params).distribution,
            expected,
            "{params:?}"
        );
    }
}

#[test]
fn lore_check_e000_1_six_dice_against_difficulty_2_is_not_certain() {
    let d = run(LORE_CHECK, &[("lore", 6), ("difficulty", 2)]).distribution;
    assert_eq!(d, bernoulli(q(46655, 46656)));
}

/// The number of ways each total 0..=6n of n d6 comes up, by repeated convolution.
fn d6_sum_counts(n: usize) -> Vec<i64> {
    let mut counts = vec![1i64];
    for _ in 0..n {
        let mut next = vec![0; counts.len() + 6];
        for (total, &ways) in counts.iter().enumerate() {
            for face in 1..=6 {
                next[total + face] += ways;
            }
        }
        counts = next;
    }
    counts
}

#[test]
fn essence_check_000_m10_takes_the_highest_threshold_reached() {
    let default_thresholds = [12, 21, 27];
    let cases: [(i64, [i64; 3]); 9] = [
        (6, default_thresholds),
        (0, default_thresholds),
        (-2, default_thresholds), // 000-M9: the pool floors at 0
        (1, default_thresholds),
        (4, default_thresholds),
        (9, default_thresholds),
        (3, [3, 9, 15]),
        (5, [6, 18, 30]),
        (8, [24, 33, 45]),
    ];
    for (dice, [low, middle, high]) in cases {
        let counts = d6_sum_counts(dice.max(0) as usize);
        let total_ways = pow(6i64, dice.max(0) as usize);
        let expected = distribution(counts.iter().enumerate().map(|(total, &ways)| {
            let total = total as i64;
            let effect = if total >= high {
                Value::Int(high)
            } else if total >= middle {
                Value::Int(middle)
            } else if total >= low {
                Value::Int(low)
            } else {
                text("failed")
            };
            (effect, q(ways, total_ways))
        }));
        let params = [
            ("dice", dice),
            ("low", low),
            ("middle", middle),
            ("high", high),
        ];
        if dice == 6 && [low, middle, high] == default_thresholds {
            check(ESSENCE_CHECK, &[], &expected);
        }
        check(ESSENCE_CHECK, &params, &expected);
    }
}

// ---------------------------------------------------------------------------------------------
// 001: one cast and exhaustion

/// 001-M2..M4 by brute force over 6^k: (success, catastrophe, empowerment, dice lost).
fn cast_brute_force(dice: i64, spell_level: i64) -> Dist {
    let target = 7 + spell_level;
    enumerate(&vec![6; dice as usize], |faces| {
        let total: i64 = faces.iter().sum();
        let count = |pred: fn(i64) -> bool| faces.iter().filter(|&&f| pred(f)).count() as i64;
        let success = total >= target;
        tuple(vec![
            Value::Bool(success),
            Value::Bool(!success && count(|f| f == 1) >= 2),
            Value::Bool(success && count(|f| f == 6) >= 2),
            Value::Int(count(|f| f <= 2)),
        ])
    })
}

#[test]
fn cast_001_m2_m4_matches_brute_force() {
    check(CAST, &[], &cast_brute_force(3, 1));
    for dice in 0..=5 {
        for spell_level in [1, 2, 5, 9] {
            let params = [("dice", dice), ("spell_level", spell_level)];
            check(CAST, &params, &cast_brute_force(dice, spell_level));
        }
    }
}

#[test]
fn cast_001_e001_4_catastrophe_rates_at_target_8() {
    // Errata E001-4: P(fail with two or more 1s) at spell level 1 for 2, 3, 4, 5 dice.
    for (dice, expected) in [
        (2, q(1, 36)),
        (3, q(13, 216)),
        (4, q(31, 1296)),
        (5, q(7, 2592)),
    ] {
        let d = run(CAST, &[("dice", dice)]).distribution;
        let catastrophe = probability_where(
            &d,
            |v| matches!(v, Value::Tuple(t) if t[1] == Value::Bool(true)),
        );
        assert_eq!(catastrophe, expected, "{dice} dice");
    }
}

#[test]
fn cast_001_m3_seed_example_loses_the_2_on_a_success() {
    // The seed: 2, 4, 5 against 9 (spell level 2) succeeds and the 2 is lost.
    let options = options(&[("spell_level", 2)]);
    let program = program(CAST, &options);
    let roll = sample(
        &program,
        &options.limits,
        &mut ScriptedDice::new(vec![2, 4, 5]),
    )
    .unwrap();
    assert_eq!(
        roll.result,
        tuple(vec![
            Value::Bool(true),
            Value::Bool(false),
            Value::Bool(false),
            Value::Int(1)
        ])
    );
}

/// 001-M8's depletion chain, commit-all strategy, solved here: the states are pool sizes; a failed
/// cast loses the dice showing 1 or 2 and the pool is exhausted once 6 · pool < target. Pools only
/// shrink, so each state is solved from the smaller ones, its self-loop divided out.
/// Returns (P(exhausted), P(cast), expected casts).
fn commit_all_chain(level: i64, spell_level: i64) -> (Q, Q, Q) {
    let target = 7 + spell_level;
    let start = (2 + level) as usize;
    let mut exhausted: Vec<Q> = Vec::new();
    let mut cast: Vec<Q> = Vec::new();
    let mut steps: Vec<Q> = Vec::new();
    for pool in 0..=start {
        let mut to_pool = vec![0i64; pool + 1];
        let (mut to_cast, mut to_exhausted) = (0i64, 0i64);
        for_each_roll(&vec![6; pool], |faces| {
            let total: i64 = faces.iter().sum();
            let lost = faces.iter().filter(|&&f| f <= 2).count();
            if total >= target {
                to_cast += 1;
            } else if (pool - lost) as i64 * 6 < target {
                to_exhausted += 1;
            } else {
                to_pool[pool - lost] += 1;
            }
        });
        let rolls = pow(6i64, pool);
        let leave = Q::one() - q(to_pool[pool], rolls);
        let mut e = q(to_exhausted, rolls);
        let mut c = q(to_cast, rolls);
        let mut s = Q::one();
        for smaller in 0..pool {
            let p = q(to_pool[smaller], rolls);
            e += p.clone() * exhausted[smaller].clone();
            c += p.clone() * cast[smaller].clone();
            s += p * steps[smaller].clone();
        }
        exhausted.push(e / leave.clone());
        cast.push(c / leave.clone());
        steps.push(s / leave);
    }
    (
        exhausted[start].clone(),
        cast[start].clone(),
        steps[start].clone(),
    )
}

fn exhaustion_distribution(exhausted: Q, cast: Q) -> Dist {
    distribution([(text("exhausted"), exhausted), (text("cast"), cast)])
}

#[test]
fn exhaustion_001_e001_5_level_1_commit_all_is_185_of_1188() {
    let (exhausted, cast, steps) = commit_all_chain(1, 1);
    assert_eq!(exhausted, q(185, 1188));
    let exact = check(EXHAUSTION, &[], &exhaustion_distribution(exhausted, cast));
    assert_eq!(exact.distribution[&text("exhausted")], q(185, 1188));
    assert_eq!(exact.expected_steps, Some(steps));
}

#[test]
fn exhaustion_001_m8_commit_all_matches_an_independent_chain_for_levels_1_to_3() {
    for level in 1..=3 {
        for spell_level in 1..=level {
            let (exhausted, cast, steps) = commit_all_chain(level, spell_level);
            let params = [("level", level), ("spell_level", spell_level)];
            let exact = check(
                EXHAUSTION,
                &params,
                &exhaustion_distribution(exhausted, cast),
            );
            assert_eq!(exact.expected_steps, Some(steps), "{params:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 002: luck roll, karma

/// 002-M1/M2: the numbers of bad, neutral and good faces of the d50 under a combined modifier m.
fn luck_faces(m: i64) -> (i64, i64, i64) {
    let bad_upper = (10 - m).min(50);
    let bad = if bad_upper < 1 { 0 } else { bad_upper };
    let good_lower = (41 - m).max(1);
    let good = if good_lower > 50 { 0 } else { 51 - good_lower };
    (bad, 50 - bad - good, good)
}

fn luck_distribution(bad: Q, neutral: Q, good: Q) -> Dist {
    distribution([
        (text("bad"), bad),
        (text("neutral"), neutral),
        (text("good"), good),
    ])
}

#[test]
fn luck_roll_002_m2_matches_the_range_formula() {
    // −50..+50 in steps of 5, ±2 from the seed's examples, and beyond ±50 (002-A4).
    let modifiers = (-50..=50).step_by(5).chain([-2, 2, -9, 9, -60, 60]);
    for m in modifiers {
        let (bad, neutral, good) = luck_faces(m);
        let expected = luck_distribution(q(bad, 50), q(neutral, 50), q(good, 50));
        check(LUCK_ROLL, &[("modifier", m)], &expected);
    }
}

#[test]
fn luck_roll_e002_2_seed_figures() {
    let luck = |m| run(LUCK_ROLL, &[("modifier", m)]).distribution;
    // 20/60/20 by default; +2: bad 1–8, good 39–50; −2: bad 1–12, good 43–50.
    assert_eq!(
        run(LUCK_ROLL, &[]).distribution,
        luck_distribution(q(1, 5), q(3, 5), q(1, 5))
    );
    assert_eq!(luck(2), luck_distribution(q(8, 50), q(30, 50), q(12, 50)));
    assert_eq!(luck(-2), luck_distribution(q(12, 50), q(30, 50), q(8, 50)));
    // ±10 removes one outcome; exactly ±40 already guarantees the other (E002-1).
    assert!(!luck(10).contains_key(&text("bad")));
    assert!(!luck(-10).contains_key(&text("good")));
    assert_eq!(luck(40), distribution([(text("good"), Q::one())]));
    assert_eq!(luck(-40), distribution([(text("bad"), Q::one())]));
}

/// The karmic modifier for a run of length 1..=6 (002-M5).
const KARMA: [i64; 6] = [0, 1, 2, 4, 7, 10];

/// The 13 states of a luck history (002-S1): 0 empty, 1..=6 a bad run of that length, 7..=12 a
/// good run of length 1..=6.
const STATES: usize = 13;

fn state_outcome(state: usize) -> &'static str {
    match state {
        0 => "neutral",
        1..=6 => "bad",
        _ => "good",
    }
}

/// The transition matrix of the history under a base modifier, with the given karma table.
fn karma_chain(base: i64, karma: [i64; 6]) -> Vec<Vec<Q>> {
    let mut matrix = vec![vec![Q::zero(); STATES]; STATES];
    for (state, row) in matrix.iter_mut().enumerate() {
        let shift = match state {
            0 => 0,
            1..=6 => karma[state - 1],
            _ => -karma[state - 7],
        };
        let (bad, neutral, good) = luck_faces(base + shift);
        let next_bad = if (1..=6).contains(&state) {
            (state + 1).min(6)
        } else {
            1
        };
        let next_good = if state >= 7 { (state + 1).min(12) } else { 7 };
        row[0] += q(neutral, 50);
        row[next_bad] += q(bad, 50);
        row[next_good] += q(good, 50);
    }
    matrix
}

/// The distribution of the history after `rolls` rolls from an empty history.
fn karma_after(base: i64, rolls: usize) -> Vec<Q> {
    let matrix = karma_chain(base, KARMA);
    let mut state = vec![Q::zero(); STATES];
    state[0] = Q::one();
    for _ in 0..rolls {
        let mut next = vec![Q::zero(); STATES];
        for (from, p) in state.iter().enumerate() {
            for (to, t) in matrix[from].iter().enumerate() {
                next[to] += p.clone() * t.clone();
            }
        }
        state = next;
    }
    state
}

/// The stationary distribution π = πP, Σπ = 1 (the chains here have one closed class).
fn karma_stationary(base: i64, karma: [i64; 6]) -> Vec<Q> {
    let matrix = karma_chain(base, karma);
    // Row i of the system: Σ_j π_j (P_ji − δ_ji) = 0, the last one replaced by Σ π = 1.
    let mut a = vec![vec![Q::zero(); STATES]; STATES];
    for (i, row) in a.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            *cell = matrix[j][i].clone() - if i == j { Q::one() } else { Q::zero() };
        }
    }
    a[STATES - 1] = vec![Q::one(); STATES];
    let mut b = vec![Q::zero(); STATES];
    b[STATES - 1] = Q::one();
    solve(a, b)
}

fn outcome_distribution(states: &[Q]) -> Dist {
    distribution(
        states
            .iter()
            .enumerate()
            .map(|(s, p)| (text(state_outcome(s)), p.clone())),
    )
}

#[test]
fn karma_20th_roll_002_s1_m5_matches_a_13_state_chain() {
    // Base 0: the shift moves faces between bad and good only, the neutral band stays 30 faces, and
    // the rules are symmetric, so every roll is 1/5, 3/5, 1/5.
    check(
        KARMA_20TH_ROLL,
        &[],
        &luck_distribution(q(1, 5), q(3, 5), q(1, 5)),
    );
    assert_eq!(
        outcome_distribution(&karma_after(0, 20)),
        luck_distribution(q(1, 5), q(3, 5), q(1, 5))
    );
    for base in [0, 5, -5, 12] {
        for rolls in [1, 2, 3, 7, 20] {
            let expected = outcome_distribution(&karma_after(base, rolls));
            let params = [("base", base), ("rolls", rolls as i64)];
            check(KARMA_20TH_ROLL, &params, &expected);
        }
    }
}

#[test]
fn karma_long_run_002_m6_base_0_is_one_fifth_three_fifths_one_fifth() {
    let fifths = luck_distribution(q(1, 5), q(3, 5), q(1, 5));
    assert_eq!(run(KARMA_LONG_RUN, &[]).distribution, fifths);
    assert_eq!(outcome_distribution(&karma_stationary(0, KARMA)), fifths);
    // E002-3 checks the chain itself: P(current run ≥ 2) is 1894474/24267435 with karma and
    // 2 · (1/5)² = 2/25 without.
    let run_of_two = |pi: &[Q]| -> Q {
        (0..STATES)
            .filter(|&s| matches!(s, 2..=6 | 8..=12))
            .map(|s| pi[s].clone())
            .sum()
    };
    assert_eq!(
        run_of_two(&karma_stationary(0, KARMA)),
        q(1894474, 24267435)
    );
    assert_eq!(run_of_two(&karma_stationary(0, [0; 6])), q(2, 25));
}

#[test]
fn karma_long_run_002_m6_matches_the_stationary_distribution() {
    for base in [5, -5, 20, -20, 3] {
        let expected = outcome_distribution(&karma_stationary(base, KARMA));
        let exact = run(KARMA_LONG_RUN, &[("base", base)]);
        assert_eq!(exact.distribution, expected, "base {base}");
    }
}

#[test]
fn karma_long_run_cannot_be_rolled() {
    let options = Options::default();
    let program = program(KARMA_LONG_RUN, &options);
    let error = sample(&program, &options.limits, &mut ChaChaDice::from_seed(SEED))
        .expect_err("a stationary distribution has no single roll");
    assert_eq!(error.kind, "cannot-roll");
}

// ---------------------------------------------------------------------------------------------
// 003: check, contest, catch-casting

/// 003-M4: the DV is clamped to [max(2, X + 1), 12].
fn effective_dv(dv: i64, range: i64) -> i64 {
    dv.clamp((range + 1).max(2), 12)
}

/// 003-M1..M7 by brute force over 12^n (n ≥ 1) or over the 144 pairs of the zero pool (003-M6).
fn check_brute_force(dice: i64, dv: i64, range: i64, intractability: i64) -> Dist {
    let dv = effective_dv(dv, range);
    let net = |faces: &[i64]| {
        let successes = faces.iter().filter(|&&f| f >= dv).count() as i64;
        let catastrophes = faces.iter().filter(|&&f| f <= range).count() as i64;
        Value::Int((successes - intractability).max(0) - catastrophes)
    };
    if dice <= 0 {
        enumerate(&[12, 12], |f| net(&[f[0].min(f[1])]))
    } else {
        enumerate(&vec![12; dice as usize], net)
    }
}

#[test]
fn check_003_m1_m7_matches_brute_force() {
    check(CHECK, &[], &check_brute_force(5, 8, 1, 0));
    let cases = [
        // (dice, dv, range, intractability)
        (0, 12, 1, 0),
        (0, 8, 3, 0),
        (-1, 6, 1, 0), // a pool below 0 floors at 0 (003-M1)
        (0, 3, 3, 1),  // zero pool with a clamped DV
        (1, 6, 1, 0),
        (2, 3, 3, 1),  // DV 3 below range + 1: becomes 4 (003-M4)
        (3, 1, 1, 0),  // DV 1 becomes 2
        (3, 14, 1, 0), // DV 14 becomes 12
        (4, 4, 3, 0),  // E003-3: every die succeeds or is a catastrophe
        (4, 10, 2, 2),
        (4, 12, 1, 1),
        (3, 8, 1, 5), // intractability above the pool: net = −C (003-A5)
    ];
    for (dice, dv, range, intractability) in cases {
        let params = [
            ("dice", dice),
            ("dv", dv),
            ("range", range),
            ("intractability", intractability),
        ];
        check(
            CHECK,
            &params,
            &check_brute_force(dice, dv, range, intractability),
        );
    }
}

#[test]
fn check_003_m6_zero_pool_at_dv_12() {
    let d = run(CHECK, &[("dice", 0), ("dv", 12)]).distribution;
    let success = probability_where(&d, |v| matches!(v, Value::Int(n) if *n >= 1));
    let catastrophe = probability_where(&d, |v| matches!(v, Value::Int(n) if *n < 0));
    assert_eq!(success, q(1, 144));
    assert_eq!(catastrophe, q(23, 144));
}

#[test]
fn check_003_m10_e003_15_ten_dice_against_dv_12() {
    let expected = q(10403762243, 30958682112);
    let d = run(CHECK, &[("dice", 10), ("dv", 12)]).distribution;
    let success = probability_where(&d, |v| matches!(v, Value::Int(n) if *n >= 1));
    assert_eq!(success, expected);
    assert_eq!(
        pool_net(10, 12, 1)
            .iter()
            .filter(|&(&n, _)| n >= 1)
            .map(|(_, p)| p.clone())
            .sum::<Q>(),
        expected
    );
}

#[test]
fn check_003_m7_m22_worked_examples_replay() {
    let net_of = |params: &[(&str, i64)], dice: Vec<i64>| {
        let options = options(params);
        let program = program(CHECK, &options);
        sample(&program, &options.limits, &mut ScriptedDice::new(dice))
            .unwrap()
            .result
    };
    let fourteen = vec![1, 1, 4, 5, 5, 6, 7, 7, 8, 10, 11, 12, 12, 12];
    // 003-M7: intractability 2 at DV 12 → −1, at DV 10 → 1.
    let intractable = |dv| [("dice", 14), ("dv", dv), ("intractability", 2)];
    assert_eq!(net_of(&intractable(12), fourteen.clone()), Value::Int(-1));
    assert_eq!(net_of(&intractable(10), fourteen), Value::Int(1));
    // 003-M22: Jane (DV 8, 7 dice) → 3; Michael (DV 6, 6 dice) → 4; the partner (DV 8, 4 dice) → 1.
    let jane = [("dice", 7), ("dv", 8)];
    assert_eq!(net_of(&jane, vec![1, 4, 5, 8, 8, 9, 11]), Value::Int(3));
    let michael = [("dice", 6), ("dv", 6)];
    assert_eq!(net_of(&michael, vec![2, 3, 7, 8, 9, 11]), Value::Int(4));
    let partner = [("dice", 4), ("dv", 8)];
    assert_eq!(net_of(&partner, vec![3, 5, 6, 10]), Value::Int(1));
}

/// The net of one side's pool (003-M3, M4, M6), dice added one at a time, each over its 12 faces.
fn pool_net(dice: i64, dv: i64, range: i64) -> BTreeMap<i64, Q> {
    let dv = effective_dv(dv, range);
    let score = |face: i64| (face >= dv) as i64 - (face <= range) as i64;
    if dice <= 0 {
        let mut out = BTreeMap::new();
        for_each_roll(&[12, 12], |f| {
            *out.entry(score(f[0].min(f[1]))).or_insert_with(Q::zero) += q(1, 144);
        });
        return out;
    }
    let mut nets = BTreeMap::from([(0i64, Q::one())]);
    for _ in 0..dice {
        let mut next = BTreeMap::new();
        for (net, p) in &nets {
            for face in 1..=12 {
                *next.entry(net + score(face)).or_insert_with(Q::zero) += p.clone() * q(1, 12);
            }
        }
        nets = next;
    }
    nets
}

/// 003-M11 and 003-A6: the margin max(net₁, 0) − max(net₂, 0) of two independent pools.
fn contest_margin(dice: i64, opponent_dice: i64, dv: i64, range: i64) -> Dist {
    let ours = pool_net(dice, dv, range);
    let theirs = pool_net(opponent_dice, dv, range);
    distribution(ours.iter().flat_map(|(a, pa)| {
        theirs
            .iter()
            .map(move |(b, pb)| (Value::Int(a.max(&0) - b.max(&0)), pa.clone() * pb.clone()))
    }))
}

#[test]
fn contest_003_m11_a6_matches_brute_force() {
    check(CONTEST, &[], &contest_margin(5, 4, 8, 1));
    // The per-side nets agree with plain enumeration of 12^n.
    for dice in 0..=3 {
        let brute = check_brute_force(dice, 8, 2, 0);
        let folded = distribution(
            pool_net(dice, 8, 2)
                .into_iter()
                .map(|(n, p)| (Value::Int(n), p)),
        );
        assert_eq!(brute, folded, "{dice} dice");
    }
    let cases = [
        // (dice, opponent_dice, dv, range): DVs inside [max(2, range + 1), 12]
        (0, 0, 12, 1),
        (3, 0, 6, 2),
        (2, 5, 10, 1),
        (1, 3, 4, 3),
        (6, 6, 2, 1),
        (4, 2, 12, 1),
    ];
    for (dice, opponent_dice, dv, range) in cases {
        let params = [
            ("dice", dice),
            ("opponent_dice", opponent_dice),
            ("dv", dv),
            ("range", range),
        ];
        check(
            CONTEST,
            &params,
            &contest_margin(dice, opponent_dice, dv, range),
        );
    }
}

/// 003-M19 and 003-A15 by recursion: (P(cast), expected rolls) from `successes` accumulated after
/// `casts` rolls. The k-th roll uses the pool minus k dice; a net ≤ 0 ends the casting as a failure.
fn catch_cast(dice: i64, dv: i64, range: i64, required: i64, successes: i64, casts: i64) -> (Q, Q) {
    let (mut cast, mut rolls) = (Q::zero(), Q::one());
    for (net, p) in pool_net(dice - casts, dv, range) {
        if net <= 0 {
            continue;
        }
        if successes + net >= required {
            cast += p;
        } else {
            let (c, r) = catch_cast(dice, dv, range, required, successes + net, casts + 1);
            cast += p.clone() * c;
            rolls += p * r;
        }
    }
    (cast, rolls)
}

#[test]
fn catch_casting_003_m19_matches_an_independent_recursion() {
    let cases = [
        // (dice, dv, range, required)
        (6, 8, 1, 3), // the defaults
        (2, 8, 1, 3), // catch-casts reach the zero pool and below
        (4, 6, 2, 0), // SELF: any net ≥ 1 casts
        (3, 10, 1, 5),
        (1, 12, 1, 2),
        (0, 6, 1, 1),
        (5, 4, 3, 6),
    ];
    for (i, (dice, dv, range, required)) in cases.into_iter().enumerate() {
        let (cast, rolls) = catch_cast(dice, dv, range, required, 0, 0);
        let expected = distribution([
            (text("cast"), cast.clone()),
            (text("failed"), Q::one() - cast),
        ]);
        let params = [
            ("dice", dice),
            ("dv", dv),
            ("range", range),
            ("required", required),
        ];
        let exact = if i == 0 {
            check(CATCH_CASTING, &[], &expected)
        } else {
            check(CATCH_CASTING, &params, &expected)
        };
        assert_eq!(exact.expected_steps, Some(rolls), "{params:?}");
    }
}

/// 003_contest.omen and 003_catch_casting.omen compare dice with the DV as given, without
/// 003-M4's clamp to [max(2, X + 1), 12] that 003_check.omen applies, so they leave the spec for a
/// DV above 12 or at or below the catastrophe range (the cases above stay inside it).
#[test]
fn contest_and_catch_casting_003_m4_clamp_the_dv() {
    // Contest, DV 13 (is 12): one die against the zero pool. The script never succeeds.
    let params = [("dice", 1), ("opponent_dice", 0), ("dv", 13)];
    check(CONTEST, &params, &contest_margin(1, 0, 13, 1));
    // Contest, DV 2 under a catastrophe range of 3 (is 4): the script counts a 2 or a 3 as both.
    let params = [("dice", 2), ("opponent_dice", 0), ("dv", 2), ("range", 3)];
    check(CONTEST, &params, &contest_margin(2, 0, 2, 3));
    // Catch-casting, the same two DVs.
    for (dice, dv, range, required) in [(3, 13, 1, 1), (3, 2, 3, 2)] {
        let (cast, _) = catch_cast(dice, dv, range, required, 0, 0);
        let expected = distribution([
            (text("cast"), cast.clone()),
            (text("failed"), Q::one() - cast),
        ]);
        let params = [
            ("dice", dice),
            ("dv", dv),
            ("range", range),
            ("required", required),
        ];
        check(CATCH_CASTING, &params, &expected);
    }
}

// ---------------------------------------------------------------------------------------------
// 004: Dice Test

/// 004-M4 and 004-A1, with the halves compared as exact fractions.
fn dice_test_level(total: i64, difficulty: i64) -> &'static str {
    let r = q(total, 1);
    let d = q(difficulty, 1);
    let two = q(2, 1);
    let three = q(3, 1);
    if r > three * d.clone() {
        "superior success"
    } else if r > two * d.clone() {
        "complete success"
    } else if r > d {
        "moderate success"
    } else if r == d {
        "borderline"
    } else if r >= d / q(2, 1) {
        "moderate failure"
    } else if r >= Q::zero() {
        "complete failure"
    } else {
        "serious failure"
    }
}

/// Every roll of the dice enumerated, its total R classified (each total's level worked out once).
fn dice_test_brute_force(difficulty: i64, boon: i64, descendant: i64, proficiency: i64) -> Dist {
    let mut sides = vec![boon, descendant];
    sides.extend(std::iter::repeat_n(8, proficiency as usize));
    let totals = enumerate(&sides, |faces| Value::Int(faces.iter().sum()));
    distribution(totals.into_iter().map(|(total, p)| {
        let Value::Int(total) = total else {
            unreachable!()
        };
        (text(dice_test_level(total, difficulty)), p)
    }))
}

#[test]
fn dice_test_004_m4_matches_brute_force() {
    check(DICE_TEST, &[], &dice_test_brute_force(12, 6, 8, 2));
    for (boon, descendant, proficiency) in [(6, 8, 2), (4, 4, 0), (6, 8, 4), (20, 12, 1)] {
        for difficulty in [0, 1, 5, 7, 9, 12, 13, 20, 40] {
            let params = [
                ("difficulty", difficulty),
                ("boon", boon),
                ("descendant", descendant),
                ("proficiency", proficiency),
            ];
            let expected = dice_test_brute_force(difficulty, boon, descendant, proficiency);
            check(DICE_TEST, &params, &expected);
        }
    }
}

#[test]
fn dice_test_004_a1_boundaries_go_to_the_level_nearer_borderline() {
    // Two d4s (no proficiency) against 3: totals 2..=8 come up 1, 2, 3, 4, 3, 2, 1 ways in 16.
    // 2 ≥ 3/2 is a moderate failure, 3 borderline, 4..=6 a moderate success (6 = 2D included),
    // 7 and 8 a complete success (up to 3D = 9).
    let params = [
        ("difficulty", 3),
        ("boon", 4),
        ("descendant", 4),
        ("proficiency", 0),
    ];
    let expected = distribution([
        (text("moderate failure"), q(1, 16)),
        (text("borderline"), q(2, 16)),
        (text("moderate success"), q(3 + 4 + 3, 16)),
        (text("complete success"), q(2 + 1, 16)),
    ]);
    assert_eq!(run(DICE_TEST, &params).distribution, expected);
}

// ---------------------------------------------------------------------------------------------
// Every script rolls

#[test]
fn every_example_rolls_with_a_fixed_seed_to_a_possible_outcome() {
    for script in [
        LORE_CHECK,
        ESSENCE_CHECK,
        CAST,
        EXHAUSTION,
        LUCK_ROLL,
        KARMA_20TH_ROLL,
        CHECK,
        CONTEST,
        CATCH_CASTING,
        DICE_TEST,
    ] {
        let distribution = run(script, &[]).distribution;
        assert_rolls_a_possible_outcome(script, &[], &distribution);
    }
}

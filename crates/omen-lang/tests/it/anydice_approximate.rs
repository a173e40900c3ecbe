//! The approximate mode: a program whose exact weights run away (a die mixed with itself each round
//! squares its total) answers within the digits asked for, and always says it is approximate; a
//! program that stays small is exact as before.

use std::time::{Duration, Instant};

use num_traits::{One, Zero};
use omen_core::{Limits, Probability};
use omen_lang::anydice::{self, Precision};

/// `D` after `rounds` rounds of keeping the higher of two copies of itself: the highest of
/// 2^rounds d6.
fn doubling(rounds: u32) -> String {
    format!("D: d6\nloop I over {{1..{rounds}}} {{ D: [highest of D and D] }}\noutput D")
}

fn run(source: &str, precision: Precision) -> anydice::Run {
    let source = source.to_string();
    std::thread::Builder::new()
        .stack_size(omen_lang::STACK_BYTES)
        .spawn(move || anydice::run_with(&source, &Limits::default(), precision))
        .unwrap()
        .join()
        .unwrap()
        .expect("runs")
}

fn probability(run: &anydice::Run, outcome: i64) -> Probability {
    let d = run.outputs[0].distribution.as_ref().unwrap();
    Probability::new(d.weight(&outcome), d.total().clone())
}

#[test]
fn a_doubling_program_is_within_the_digits_asked_for_and_says_so() {
    // The highest of 2^12 = 4096 d6: P(D ≤ k) = (k/6)^4096, so P(D = k) is the difference.
    let rounds = 12;
    let approximate = run(&doubling(rounds), Precision::Digits(30));
    let at_most = |k: u64| num_traits::pow(Probability::new(k.into(), 6u8.into()), 1 << rounds);
    let tolerance = Probability::new(
        1u8.into(),
        num_traits::pow(omen_core::Weight::from(10u8), 28),
    );
    for k in 1..=6u64 {
        let exact = at_most(k) - at_most(k - 1);
        let shown = probability(&approximate, k as i64);
        let error = if shown > exact {
            shown - exact
        } else {
            exact - shown
        };
        assert!(error < tolerance, "P(D = {k}) is off by {error}");
    }
    let warning = approximate
        .warnings
        .iter()
        .find(|w| w.kind == "approximate")
        .expect("an approximate answer says so");
    assert!(
        warning.message.contains("30 significant digits"),
        "{}",
        warning.message
    );

    // Exact, the same program has no such warning and the exact answer.
    let exact = run(&doubling(rounds), Precision::Exact);
    assert!(exact.warnings.iter().all(|w| w.kind != "approximate"));
    assert_eq!(probability(&exact, 6), at_most(6) - at_most(5));
}

#[test]
fn sixty_rounds_answer_at_once_when_approximate() {
    // Exactly, the total would have 6^(2^60) digits; approximately, a few hundred bits a round.
    let started = Instant::now();
    let run = run(&doubling(60), Precision::Digits(20));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // (5/6)^(2^60) is far below 10^-20: D is 6 to every digit asked for.
    let below_six = Probability::one() - probability(&run, 6);
    assert!(
        below_six.is_zero()
            || below_six
                < Probability::new(
                    1u8.into(),
                    num_traits::pow(omen_core::Weight::from(10u8), 20)
                )
    );
    assert!(run.warnings.iter().any(|w| w.kind == "approximate"));
}

#[test]
fn a_small_program_stays_exact_and_unwarned() {
    let run = run(
        "output 3d6\noutput [highest 1 of 2d20]",
        Precision::Digits(10),
    );
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
    assert_eq!(
        probability(&run, 3),
        Probability::new(1u8.into(), 216u8.into())
    );
}

/// [`run`] under `limits`, keeping the error.
fn attempt(source: &str, limits: Limits) -> Result<anydice::Run, Vec<omen_lang::Diagnostic>> {
    let source = source.to_string();
    std::thread::Builder::new()
        .stack_size(omen_lang::STACK_BYTES)
        .spawn(move || anydice::run_with(&source, &limits, Precision::Exact))
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn exact_runaway_weights_are_refused_naming_the_approximate_mode() {
    let limits = Limits {
        work_budget: 20_000_000,
        ..Limits::default()
    };
    let errors = attempt(&doubling(40), limits.clone()).expect_err("too large exactly");
    let error = &errors[0];
    assert_eq!(error.kind, "exact-too-large", "{error:?}");
    assert!(
        error
            .message
            .contains("the exact weights have grown to about"),
        "{}",
        error.message
    );
    let help = error.help.as_deref().unwrap_or_default();
    assert!(
        help.contains("--approximate DIGITS") && help.contains("\"approximate\": DIGITS"),
        "{help}"
    );
    // A program that spends the budget with small weights is refused by the budget as before:
    // the approximate mode would not help it.
    let counting = "X: 0\nloop I over {1..1000} { loop J over {1..1000} { X: X + 1 } }\noutput X";
    let small = Limits {
        work_budget: 100_000,
        ..limits
    };
    let errors = attempt(counting, small).expect_err("over the budget");
    assert_eq!(errors[0].kind, "work-budget", "{:?}", errors[0]);
}

#[test]
fn only_outputs_computed_after_a_rounding_are_marked_approximate() {
    // The first output comes before any rounding, so it is exact; the second is the doubling.
    let program = format!("output d6\n{}", doubling(40));
    let run = run(&program, Precision::Digits(20));
    let marks: Vec<bool> = run.outputs.iter().map(|o| o.approximate).collect();
    assert_eq!(marks, [false, true]);
    let exact = run.outputs[0].distribution.as_ref().unwrap();
    assert_eq!(exact.probability(&1).to_string(), "1/6");
}

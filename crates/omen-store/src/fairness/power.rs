//! What a fairness verdict can see: the power of the report's own test against stated biases.
//!
//! A verdict of "consistent with fair dice" after 30 rolls of a d20 says little: almost any die
//! would pass. Next to each verdict the report says how often its test, at the report's threshold
//! ([`SUSPICIOUS_BELOW`]), would call dice suspicious that have a stated bias:
//!
//! * a die: one that never shows its highest face (the other faces share its probability in
//!   proportion to theirs), and one that shows its highest face twice as often (the other faces
//!   give up that probability in proportion to theirs);
//! * a mechanic (an expression or a rule-set action): dice that move a tenth of the probability
//!   (at most half of what lies there) from the results below the median to the results at or
//!   above it, each result gaining or losing in proportion to its probability. For `3d6` that is
//!   "11 or more" 60 % of the time instead of 50 %.
//!
//! The power is the probability that the verdict would be "suspicious" for rolls of the biased
//! dice. It is computed for the test the verdict uses: when the verdict came from the exact
//! multinomial test, exactly, by enumerating every count vector under the fair and the biased dice
//! (the rejection region is every vector whose exact p-value is below the threshold); when it came
//! from the G-test, by the noncentral chi-square approximation (noncentrality 2 Σ E₁ ln(E₁/E₀) over
//! the same pooled cells, E₀ and E₁ the fair and biased expected counts). Too few rolls for a
//! verdict give a power of zero: the report cannot call anything suspicious then.

use std::collections::HashMap;

use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF};
use statrs::function::gamma::ln_gamma;

use crate::fit::SUSPICIOUS_BELOW;
use crate::fit::{MAX_EXACT_STATES, MAX_EXACT_WORK, MIN_EXPECTED, MIN_ROLLS, Stratum};

/// The power of a verdict's test against one stated bias.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Power {
    /// The biased dice, as the report's text names them: `one that never shows 20`.
    pub alternative: String,
    /// P(the verdict says "suspicious" | the dice have that bias), between 0 and 1.
    pub power: f64,
    /// `exact` (every count vector enumerated), `noncentral-chi-square` (the G-test's
    /// approximation) or `too-few-rolls` (no verdict can be suspicious yet).
    pub method: &'static str,
    /// One sentence: "with 100 rolls of d20 this test tells a fair die from one that never shows 20
    /// only 31 % of the time".
    pub text: String,
}

/// A stated bias of one distribution: its name and the biased probabilities (same order).
pub(crate) struct Alternative {
    pub name: String,
    pub probabilities: Vec<Vec<f64>>,
}

/// The two biases of a die whose faces have probabilities `fair` (in face order): never its
/// highest face, and its highest face twice as often; each left out where it makes no sense (a
/// one-faced die, a face already over half the die).
pub(crate) fn die_alternatives(fair: &[f64], highest: &str) -> Vec<Alternative> {
    let Some(&top) = fair.last() else {
        return Vec::new();
    };
    let last = fair.len() - 1;
    let mut alternatives = Vec::new();
    if top > 0.0 && top < 1.0 {
        let scale = 1.0 / (1.0 - top);
        let mut never: Vec<f64> = fair.iter().map(|p| p * scale).collect();
        never[last] = 0.0;
        alternatives.push(Alternative {
            name: format!("one that never shows {highest}"),
            probabilities: vec![never],
        });
    }
    if top > 0.0 && top <= 0.5 {
        let scale = (1.0 - 2.0 * top) / (1.0 - top);
        let mut twice: Vec<f64> = fair.iter().map(|p| p * scale).collect();
        twice[last] = 2.0 * top;
        alternatives.push(Alternative {
            name: format!("one that shows {highest} twice as often"),
            probabilities: vec![twice],
        });
    }
    alternatives
}

/// The share of the probability the mechanic's bias moves up (at most half of what lies below
/// the median).
pub const SHIFT: f64 = 0.1;

/// One distribution (outcomes in order) with [`SHIFT`] of its probability moved from the results
/// below the median to the rest; `None` when every result is on one side.
pub(crate) fn shifted(fair: &[f64]) -> Option<Vec<f64>> {
    // The results below the median: the longest run from the bottom holding at most half.
    let mut below = 0usize;
    let mut low = 0.0;
    while below < fair.len() && low + fair[below] <= 0.5 + 1e-12 {
        low += fair[below];
        below += 1;
    }
    if below == 0 {
        below = 1;
        low = fair[0];
    }
    let high = 1.0 - low;
    if low <= 0.0 || high <= 0.0 {
        return None;
    }
    let moved = SHIFT.min(low / 2.0);
    Some(
        fair.iter()
            .enumerate()
            .map(|(at, p)| {
                if at < below {
                    p * (low - moved) / low
                } else {
                    p * (high + moved) / high
                }
            })
            .collect(),
    )
}

/// The mechanic's bias of every stratum, or `None` when some stratum has all its results on one
/// side of its median (no bias of this kind to state).
pub(crate) fn mechanic_alternative(strata: &[Stratum]) -> Option<Alternative> {
    let probabilities = strata
        .iter()
        .map(|s| shifted(&s.probabilities))
        .collect::<Option<Vec<_>>>()?;
    Some(Alternative {
        name: format!(
            "dice that move {} % of the probability from the results below the median to the others",
            SHIFT * 100.0
        ),
        probabilities,
    })
}

/// How a count vector test would be run on `rolls` rolls over `outcomes` outcomes: whether the
/// exact multinomial test enumerates it (the same bound as [`crate::fit::exact_multinomial`]).
fn exact_fits(rolls: u64, outcomes: usize) -> bool {
    let k = outcomes.saturating_sub(1) as u64;
    let mut vectors: u128 = 1;
    for i in 1..=k {
        vectors = vectors * u128::from(rolls + i) / u128::from(i);
        if vectors > u128::from(MAX_EXACT_STATES) {
            return false;
        }
    }
    vectors * u128::from(rolls) * outcomes as u128 <= MAX_EXACT_WORK
}

/// The work [`power`] does on `rolls` rolls over `outcomes` outcomes with `alternatives` biases,
/// in count-vector steps: what a report charges before it starts.
pub(crate) fn cost(rolls: u64, outcomes: usize, alternatives: usize) -> u64 {
    if exact_fits(rolls, outcomes) {
        let k = outcomes.saturating_sub(1) as u64;
        let mut vectors: u64 = 1;
        for i in 1..=k {
            vectors = vectors * (rolls + i) / i;
        }
        vectors * rolls * outcomes as u64 * (1 + alternatives as u64)
    } else {
        (outcomes as u64 + NONCENTRAL_TERMS) * alternatives as u64
    }
}

/// The power of the report's test on `strata` (the fair distributions and their rolls) against
/// each alternative, with the sentence for people. `subject` names what was rolled (`d20`, `3d6`),
/// `fair` what it is told apart from (`a fair die`, `fair dice`).
pub(crate) fn power(
    strata: &[Stratum],
    alternatives: &[Alternative],
    subject: &str,
    fair: &str,
) -> Vec<Power> {
    let rolls: u64 = strata.iter().map(|s| s.rolls).sum();
    let outcomes = strata.first().map_or(0, |s| s.probabilities.len());
    let needed = MIN_ROLLS.max(outcomes as u64);
    let (method, figures): (&'static str, Vec<f64>) = if rolls < needed || outcomes < 2 {
        ("too-few-rolls", vec![0.0; alternatives.len()])
    } else if exact_fits(rolls, outcomes) {
        ("exact", exact_power(strata, alternatives))
    } else {
        (
            "noncentral-chi-square",
            alternatives
                .iter()
                .map(|alternative| approximate_power(strata, alternative))
                .collect(),
        )
    };
    alternatives
        .iter()
        .zip(figures)
        .map(|(alternative, power)| Power {
            text: sentence(rolls, [subject, fair, &alternative.name], power, method),
            alternative: alternative.name.clone(),
            power,
            method,
        })
        .collect()
}

/// "with 100 rolls of d20 this test tells a fair die from one that never shows 20 only 31 % of
/// the time".
fn sentence(
    rolls: u64,
    [subject, fair, alternative]: [&str; 3],
    power: f64,
    method: &str,
) -> String {
    let rolls = if rolls == 1 {
        "1 roll".to_string()
    } else {
        format!("{rolls} rolls")
    };
    if method == "too-few-rolls" {
        return format!(
            "with {rolls} of {subject} this test cannot yet tell {fair} from {alternative}"
        );
    }
    let only = if power < 0.8 { "only " } else { "" };
    format!(
        "with {rolls} of {subject} this test tells {fair} from {alternative} {only}{} of the time",
        percent(power)
    )
}

/// A probability as a percentage for reading: never "0 %" for a chance that is not zero, never
/// "100 %" for one that is not one.
pub(crate) fn percent(p: f64) -> String {
    if p <= 0.0 {
        "0 %".to_string()
    } else if p < 0.01 {
        format!("{:.2} %", (p * 100.0).max(0.01))
    } else if p < 0.99 {
        format!("{:.0} %", p * 100.0)
    } else if p < 1.0 {
        "over 99 %".to_string()
    } else {
        "100 %".to_string()
    }
}

/// Every count vector with its probability under the fair strata and under each alternative: one
/// walk, roll by roll, as the exact test's.
fn exact_power(strata: &[Stratum], alternatives: &[Alternative]) -> Vec<f64> {
    let outcomes = strata[0].probabilities.len();
    let width = 1 + alternatives.len();
    let mut states: HashMap<Vec<u32>, Vec<f64>> = HashMap::new();
    let mut start = vec![0.0; width];
    start.iter_mut().for_each(|p| *p = 1.0);
    states.insert(vec![0; outcomes], start);
    for (at, stratum) in strata.iter().enumerate() {
        // The cell's probability under the fair dice and each bias, for this stratum.
        let cells: Vec<Vec<f64>> = (0..outcomes)
            .map(|cell| {
                std::iter::once(stratum.probabilities[cell])
                    .chain(alternatives.iter().map(|a| a.probabilities[at][cell]))
                    .collect()
            })
            .collect();
        for _ in 0..stratum.rolls {
            let mut next: HashMap<Vec<u32>, Vec<f64>> = HashMap::with_capacity(states.len() * 2);
            for (counts, probabilities) in &states {
                for (cell, p) in cells.iter().enumerate() {
                    if p.iter().all(|&q| q == 0.0) {
                        continue;
                    }
                    let mut counts = counts.clone();
                    counts[cell] += 1;
                    let slot = next.entry(counts).or_insert_with(|| vec![0.0; width]);
                    for ((s, q), r) in slot.iter_mut().zip(probabilities).zip(p) {
                        *s += q * r;
                    }
                }
            }
            states = next;
        }
    }
    // The p-value of a vector is the fair probability of every vector no more likely than it
    // (ties within rounding included, as the test counts them): walk them from the least likely.
    let mut vectors: Vec<&Vec<f64>> = states.values().filter(|p| p[0] > 0.0).collect();
    vectors.sort_by(|a, b| a[0].total_cmp(&b[0]));
    let mut power = vec![0.0; alternatives.len()];
    let mut at = 0;
    let mut below = 0.0;
    while at < vectors.len() {
        // The run of vectors tied with this one shares one p-value.
        let bound = vectors[at][0] * (1.0 + 1e-9);
        let end = at + vectors[at..].iter().take_while(|p| p[0] <= bound).count();
        let tied: f64 = vectors[at..end].iter().map(|p| p[0]).sum();
        if below + tied >= SUSPICIOUS_BELOW {
            break;
        }
        below += tied;
        for vector in &vectors[at..end] {
            for (sum, p) in power.iter_mut().zip(&vector[1..]) {
                *sum += p;
            }
        }
        at = end;
    }
    power.into_iter().map(|p| p.clamp(0.0, 1.0)).collect()
}

/// The most terms of the Poisson mixture [`noncentral_survival`] sums.
const NONCENTRAL_TERMS: u64 = 4_000;

/// The G-test's power by the noncentral chi-square approximation, on the cells the test pools.
fn approximate_power(strata: &[Stratum], alternative: &Alternative) -> f64 {
    let outcomes = strata[0].probabilities.len();
    let mut fair = vec![0.0; outcomes];
    let mut biased = vec![0.0; outcomes];
    for (at, stratum) in strata.iter().enumerate() {
        for cell in 0..outcomes {
            fair[cell] += stratum.probabilities[cell] * stratum.rolls as f64;
            biased[cell] += alternative.probabilities[at][cell] * stratum.rolls as f64;
        }
    }
    let cells = pooled(&fair, &biased);
    if cells.len() < 2 {
        return 0.0;
    }
    let degrees = (cells.len() - 1) as f64;
    let noncentrality = 2.0
        * cells
            .iter()
            .filter(|&&(_, e1)| e1 > 0.0)
            .map(|&(e0, e1)| e1 * (e1 / e0).ln())
            .sum::<f64>();
    let Ok(central) = ChiSquared::new(degrees) else {
        return 0.0;
    };
    let critical = central.inverse_cdf(1.0 - SUSPICIOUS_BELOW);
    noncentral_survival(critical, degrees, noncentrality.max(0.0))
}

/// The cells the G-test compares: outcomes no fair roll gives are dropped, and neighbours pooled
/// until each expects at least [`MIN_EXPECTED`] fair rolls (the last short pool joining the one
/// before), as [`crate::fit::g_test`] pools them. Each cell is (fair, biased) expected counts.
fn pooled(fair: &[f64], biased: &[f64]) -> Vec<(f64, f64)> {
    let cells: Vec<(f64, f64)> = fair
        .iter()
        .zip(biased)
        .filter(|&(&e0, _)| e0 > 0.0)
        .map(|(&e0, &e1)| (e0, e1))
        .collect();
    if cells.iter().all(|&(e0, _)| e0 >= MIN_EXPECTED) {
        return cells;
    }
    let mut pools: Vec<(f64, f64)> = Vec::new();
    let mut current = (0.0, 0.0);
    for (e0, e1) in cells {
        current.0 += e0;
        current.1 += e1;
        if current.0 >= MIN_EXPECTED {
            pools.push(current);
            current = (0.0, 0.0);
        }
    }
    if current.0 > 0.0 {
        match pools.last_mut() {
            Some(last) => {
                last.0 += current.0;
                last.1 += current.1;
            }
            None => pools.push(current),
        }
    }
    pools
}

/// P(X > x) for X noncentral chi-square with `degrees` degrees of freedom and noncentrality
/// `lambda`: the Poisson(λ/2) mixture of central chi-squares with `degrees + 2j` degrees, summed
/// around the Poisson's mode (at most [`NONCENTRAL_TERMS`] terms; the rest of its mass is under
/// 1e-20 until λ is so large that the answer is 1 to every printed digit).
pub(crate) fn noncentral_survival(x: f64, degrees: f64, lambda: f64) -> f64 {
    let half = lambda / 2.0;
    let spread = 12.0 * half.sqrt() + 12.0;
    let first = (half - spread).max(0.0).floor() as u64;
    let last = (half + spread).ceil() as u64;
    let last = last.min(first + NONCENTRAL_TERMS);
    let mut sum = 0.0;
    for j in first..=last {
        let j = j as f64;
        let weight = if half == 0.0 {
            if j == 0.0 { 1.0 } else { 0.0 }
        } else {
            (j * half.ln() - half - ln_gamma(j + 1.0)).exp()
        };
        if weight == 0.0 {
            continue;
        }
        if let Ok(central) = ChiSquared::new(degrees + 2.0 * j) {
            sum += weight * central.sf(x);
        }
    }
    sum.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(probabilities: Vec<f64>, rolls: u64) -> Vec<Stratum> {
        vec![Stratum {
            probabilities,
            rolls,
        }]
    }

    #[test]
    fn twenty_flips_of_a_coin_shifted_to_six_in_ten_are_caught_as_a_binomial_tail_says() {
        // The exact test on 20 flips rejects k ≤ 2 or k ≥ 18 heads: P(k ≤ 2) = 211/2^20, so the
        // two-sided p-value is 422/2^20 = 0.000402 < 0.001, while k = 3 gives 2 · 1351/2^20 =
        // 0.00258. Under heads 6/10 (by hand, from 0.6^18 = 1.01560e-4): P(k ≥ 18) =
        // 190 · 0.6^18 · 0.4^2 + 20 · 0.6^19 · 0.4 + 0.6^20 = 3.08742e-3 + 4.87489e-4 +
        // 3.65616e-5 = 3.61147e-3, and P(k ≤ 2) = 0.4^20 + 20 · 0.6 · 0.4^19 + 190 · 0.36 · 0.4^18
        // = 1.0995e-8 + 3.2985e-7 + 4.7008e-6 = 5.0416e-6. Power 3.61651e-3.
        let strata = one(vec![0.5, 0.5], 20);
        let alternative = mechanic_alternative(&strata).unwrap();
        assert_eq!(alternative.probabilities, vec![vec![0.4, 0.6]]);
        let figures = power(&strata, &[alternative], "d2", "fair dice");
        assert_eq!(figures[0].method, "exact");
        assert!((figures[0].power - 3.61651e-3).abs() < 1e-7, "{figures:?}");
        assert_eq!(
            figures[0].text,
            "with 20 rolls of d2 this test tells fair dice from dice that move 10 % of the probability from the results below the median to the others only 0.36 % of the time"
        );
    }

    #[test]
    fn a_die_that_never_shows_its_top_face_and_one_that_shows_it_twice() {
        let fair = vec![0.25; 4];
        let alternatives = die_alternatives(&fair, "4");
        assert_eq!(alternatives[0].name, "one that never shows 4");
        assert_eq!(
            alternatives[0].probabilities[0],
            vec![1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 0.0]
        );
        assert_eq!(alternatives[1].name, "one that shows 4 twice as often");
        let twice = &alternatives[1].probabilities[0];
        assert!((twice[3] - 0.5).abs() < 1e-15);
        assert!((twice[0] - 1.0 / 6.0).abs() < 1e-15);
        // A coin's top face twice as often is a coin that always shows it.
        assert_eq!(die_alternatives(&[0.5, 0.5], "2").len(), 2);
        assert!(die_alternatives(&[1.0], "1").is_empty());
    }

    #[test]
    fn too_few_rolls_have_no_power() {
        let strata = one(vec![0.05; 20], 19);
        let alternatives = die_alternatives(&[0.05; 20], "20");
        let figures = power(&strata, &alternatives, "d20", "a fair die");
        assert!(
            figures
                .iter()
                .all(|p| p.power == 0.0 && p.method == "too-few-rolls")
        );
        assert_eq!(
            figures[0].text,
            "with 19 rolls of d20 this test cannot yet tell a fair die from one that never shows 20"
        );
    }

    /// Φ, the standard normal distribution function (statrs's, by erfc).
    fn normal_cdf(z: f64) -> f64 {
        use statrs::distribution::{ContinuousCDF, Normal};
        Normal::new(0.0, 1.0).unwrap().cdf(z)
    }

    #[test]
    fn the_noncentral_survival_function_of_one_degree_is_two_normal_tails() {
        // X = (Z + √λ)² with Z standard normal: P(X > x) = Φ(−√x − √λ) + Φ(−√x + √λ).
        for (x, lambda) in [
            (10.83f64, 0.0f64),
            (10.83, 4.0),
            (3.84, 9.0),
            (20.0, 30.0),
            (5.0, 200.0),
        ] {
            let closed =
                normal_cdf(-x.sqrt() - lambda.sqrt()) + normal_cdf(-x.sqrt() + lambda.sqrt());
            let mixture = noncentral_survival(x, 1.0, lambda);
            assert!(
                (closed - mixture).abs() < 1e-9,
                "{x} {lambda}: {closed} {mixture}"
            );
        }
        // Two degrees, no noncentrality: e^(−x/2).
        assert!((noncentral_survival(8.0, 2.0, 0.0) - (-4.0f64).exp()).abs() < 1e-12);
    }

    #[test]
    fn a_hundred_d20_rolls_catch_a_die_without_twenty_six_times_in_a_hundred() {
        // 100 rolls of a d20 are too many vectors to enumerate: the G-test's approximation. Every
        // face expects 5 (no pooling); without the 20 each other face expects 100/19, so the
        // noncentrality is 2 · 100 · ln(20/19) = 10.2587 on 19 degrees of freedom, whose 0.999
        // point is 43.820. P(χ'² > 43.820), by the Poisson mixture summed independently of this
        // code (a series for the incomplete gamma function): 0.063378.
        let strata = one(vec![0.05; 20], 100);
        let alternatives = die_alternatives(&[0.05; 20], "20");
        let figures = power(&strata, &alternatives, "d20", "a fair die");
        assert_eq!(figures[0].method, "noncentral-chi-square");
        assert!((figures[0].power - 0.063378).abs() < 1e-5, "{figures:?}");
        assert_eq!(
            figures[0].text,
            "with 100 rolls of d20 this test tells a fair die from one that never shows 20 only 6 % of the time"
        );
        // Twice as many 20s: noncentrality 2 (10 ln 2 + 90 ln 0.947368) = 4.1308, power 0.0094518.
        assert!((figures[1].power - 0.0094518).abs() < 1e-6, "{figures:?}");
    }

    #[test]
    fn the_median_shift_of_three_d6_makes_eleven_or_more_six_in_ten() {
        let weights = [1, 3, 6, 10, 15, 21, 25, 27, 27, 25, 21, 15, 10, 6, 3, 1];
        let fair: Vec<f64> = weights.iter().map(|w| f64::from(*w) / 216.0).collect();
        let biased = shifted(&fair).unwrap();
        let high: f64 = biased[8..].iter().sum();
        assert!((high - 0.6).abs() < 1e-12, "{high}");
        assert!((biased.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // Each result keeps its share of its side: 18 is still a 27th of 11–18's probability.
        assert!((biased[15] / high - 1.0 / 108.0).abs() < 1e-12);
        assert_eq!(percent(0.0036165), "0.36 %");
        assert_eq!(percent(0.995), "over 99 %");
        assert_eq!(percent(0.314), "31 %");
    }
}

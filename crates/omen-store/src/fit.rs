//! Goodness of fit: observed counts against exact probabilities. Pure arithmetic, no I/O.
//!
//! [`goodness`] is the test the fairness report uses: an exact multinomial test when the outcome
//! space and the number of rolls are small enough to enumerate every count vector
//! ([`MAX_EXACT_STATES`]), else the G-test (the likelihood-ratio test) against the chi-square
//! distribution. Both take rolls that need not share one distribution (a rule-set action whose
//! odds depend on the character's state): under fair dice the counts are then a sum of independent
//! draws from each roll's own distribution. The exact test enumerates exactly that sum; the G-test
//! compares with the summed expectations, which is conservative when the distributions differ (the
//! counts vary less than a multinomial's), so it calls fewer tables suspicious, never more.
//!
//! The expected counts come from exact probabilities; the statistic and its p-value are floats (a
//! p-value is for reading, never for computing with). The chi-square approximation needs expected
//! counts that are not too small, so adjacent cells (in outcome order) are pooled until each expects
//! at least [`MIN_EXPECTED`]; the report says when that happened. The survival function of the
//! chi-square distribution is statrs's, a well-tested implementation of the regularised incomplete
//! gamma function, rather than one written here.

use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF};

/// The smallest expected count of a cell, after pooling (the textbook rule of five).
pub const MIN_EXPECTED: f64 = 5.0;

/// Fewer rolls than this are too few to tell anything, whatever the cells.
pub const MIN_ROLLS: u64 = 20;

/// Below this p-value the dice are called suspicious. Small on purpose: a report tests many dice and
/// mechanics at once, and a fair table should rarely see the word.
pub const SUSPICIOUS_BELOW: f64 = 0.001;

/// One test's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fit {
    /// `exact-multinomial`, `g-test` or `chi-square` (Pearson's).
    pub test: &'static str,
    pub statistic: f64,
    pub degrees_of_freedom: u64,
    /// P(a statistic at least this large | the dice are fair).
    pub p_value: f64,
    /// Cells compared, after pooling.
    pub cells: usize,
    /// Whether neighbouring outcomes were pooled so that each cell expects at least
    /// [`MIN_EXPECTED`].
    pub pooled: bool,
}

/// What a test says, for people.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// No rolls at all.
    NoRolls,
    /// Too few rolls for the test to say anything.
    TooFew { rolls: u64, needed: u64 },
    /// The counts fit.
    Consistent { p_value: f64 },
    /// The counts are unlikely under fair dice (p below [`SUSPICIOUS_BELOW`]).
    Suspicious { p_value: f64 },
    /// An outcome that fair dice cannot give came up.
    Impossible { outcome: String },
    /// No exact distribution to compare with.
    Untested { reason: String },
}

impl Verdict {
    /// One line: "consistent with fair dice (p = 0.42)", "too few rolls to tell (12 of 30)",
    /// "suspicious: p = 2.1e-7".
    pub fn text(&self) -> String {
        match self {
            Verdict::NoRolls => "no rolls".to_string(),
            Verdict::TooFew { rolls, needed } => {
                format!("too few rolls to tell ({rolls}; at least {needed} needed)")
            }
            Verdict::Consistent { p_value } => {
                format!("consistent with fair dice (p = {})", show_p(*p_value))
            }
            Verdict::Suspicious { p_value } => format!("suspicious: p = {}", show_p(*p_value)),
            Verdict::Impossible { outcome } => {
                format!("suspicious: {outcome} cannot come up with fair dice")
            }
            Verdict::Untested { reason } => format!("not tested: {reason}"),
        }
    }

    pub fn is_suspicious(&self) -> bool {
        matches!(
            self,
            Verdict::Suspicious { .. } | Verdict::Impossible { .. }
        )
    }
}

fn show_p(p: f64) -> String {
    if p >= 0.001 {
        format!("{p:.3}")
    } else {
        format!("{p:.1e}")
    }
}

/// Pools neighbouring cells until each expects at least [`MIN_EXPECTED`] rolls (the last short pool
/// joins the one before). Returns the pooled (observed, expected) pairs.
fn pool(observed: &[u64], expected: &[f64]) -> Vec<(u64, f64)> {
    let mut pools: Vec<(u64, f64)> = Vec::new();
    let mut current = (0u64, 0f64);
    for (&o, &e) in observed.iter().zip(expected) {
        current.0 += o;
        current.1 += e;
        if current.1 >= MIN_EXPECTED {
            pools.push(current);
            current = (0, 0.0);
        }
    }
    if current.1 > 0.0 || current.0 > 0 {
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

/// Pearson's chi-square test of `observed` counts against `probabilities` (same order, summing to 1),
/// with small cells pooled; `None` when fewer than two cells are left to compare (too few rolls).
pub fn chi_square(observed: &[u64], probabilities: &[f64]) -> Option<Fit> {
    let total: u64 = observed.iter().sum();
    let expected: Vec<f64> = probabilities.iter().map(|p| p * total as f64).collect();
    let needs_pooling = expected.iter().any(|&e| e < MIN_EXPECTED);
    let cells: Vec<(u64, f64)> = if needs_pooling {
        pool(observed, &expected)
    } else {
        observed.iter().copied().zip(expected).collect()
    };
    if cells.len() < 2 {
        return None;
    }
    let statistic: f64 = cells
        .iter()
        .map(|&(o, e)| {
            let d = o as f64 - e;
            d * d / e
        })
        .sum();
    let degrees_of_freedom = cells.len() as u64 - 1;
    let p_value = chi_square_survival(statistic, degrees_of_freedom);
    Some(Fit {
        test: "chi-square",
        statistic,
        degrees_of_freedom,
        p_value,
        cells: cells.len(),
        pooled: needs_pooling,
    })
}

/// The largest number of count vectors the exact test enumerates (count vectors of `n` rolls over
/// `k` outcomes: C(n + k - 1, k - 1)); past it, the G-test.
pub const MAX_EXACT_STATES: u64 = 20_000;

/// The most steps (count vectors × rolls × outcomes) the exact test takes; past it, the G-test.
pub const MAX_EXACT_WORK: u128 = 4_000_000;

/// Rolls that share one distribution: its probabilities (in the order of the observed counts,
/// summing to 1) and how many rolls had it.
#[derive(Clone, Debug, PartialEq)]
pub struct Stratum {
    pub probabilities: Vec<f64>,
    pub rolls: u64,
}

/// C(n + k - 1, k - 1), saturating at `u64::MAX`: how many count vectors `n` rolls over `k`
/// outcomes have.
fn count_vectors(rolls: u64, outcomes: usize) -> u64 {
    let k = outcomes.saturating_sub(1) as u64;
    let mut value: u128 = 1;
    for i in 1..=k {
        value = value * u128::from(rolls + i) / u128::from(i);
        if value > u128::from(u64::MAX) {
            return u64::MAX;
        }
    }
    value as u64
}

/// The G statistic, 2 Σ O ln(O / E), of observed counts against expected ones (an empty cell adds
/// nothing).
pub fn g_statistic(cells: &[(u64, f64)]) -> f64 {
    2.0 * cells
        .iter()
        .filter(|&&(o, _)| o > 0)
        .map(|&(o, e)| o as f64 * (o as f64 / e).ln())
        .sum::<f64>()
}

/// The G-test of `observed` counts against the summed expectations of `strata`, small cells pooled
/// as for [`chi_square`]; `None` when fewer than two cells are left.
pub fn g_test(observed: &[u64], strata: &[Stratum]) -> Option<Fit> {
    let mut expected = vec![0.0; observed.len()];
    for stratum in strata {
        for (e, p) in expected.iter_mut().zip(&stratum.probabilities) {
            *e += p * stratum.rolls as f64;
        }
    }
    // Outcomes no roll could give expect nothing and (having been checked before) were not seen.
    let cells: Vec<(u64, f64)> = observed
        .iter()
        .copied()
        .zip(expected)
        .filter(|&(o, e)| e > 0.0 || o > 0)
        .collect();
    let needs_pooling = cells.iter().any(|&(_, e)| e < MIN_EXPECTED);
    let cells = if needs_pooling {
        let (o, e): (Vec<u64>, Vec<f64>) = cells.into_iter().unzip();
        pool(&o, &e)
    } else {
        cells
    };
    if cells.len() < 2 {
        return None;
    }
    let statistic = g_statistic(&cells);
    let degrees_of_freedom = cells.len() as u64 - 1;
    Some(Fit {
        test: "g-test",
        statistic,
        degrees_of_freedom,
        p_value: chi_square_survival(statistic, degrees_of_freedom),
        cells: cells.len(),
        pooled: needs_pooling,
    })
}

fn chi_square_survival(statistic: f64, degrees_of_freedom: u64) -> f64 {
    ChiSquared::new(degrees_of_freedom as f64)
        .map(|distribution| distribution.sf(statistic))
        .unwrap_or(f64::NAN)
}

/// The exact multinomial test: the probability, under the strata's distributions, of a count
/// vector no more likely than `observed`. `None` when there are more than [`MAX_EXACT_STATES`]
/// count vectors to enumerate.
pub fn exact_multinomial(observed: &[u64], strata: &[Stratum]) -> Option<f64> {
    let rolls: u64 = strata.iter().map(|s| s.rolls).sum();
    let outcomes = observed.len();
    if outcomes == 0 || rolls != observed.iter().sum::<u64>() {
        return None;
    }
    // Each roll visits every count vector once per outcome: bounded, like every computation.
    let states = count_vectors(rolls, outcomes);
    let work = u128::from(states) * u128::from(rolls) * outcomes as u128;
    if states > MAX_EXACT_STATES || work > MAX_EXACT_WORK {
        return None;
    }
    // The distribution of the count vector, one roll at a time: each roll adds one to one cell.
    let mut states: std::collections::HashMap<Vec<u32>, f64> = std::collections::HashMap::new();
    states.insert(vec![0; outcomes], 1.0);
    for stratum in strata {
        for _ in 0..stratum.rolls {
            let mut next = std::collections::HashMap::with_capacity(states.len() * 2);
            for (counts, probability) in &states {
                for (cell, p) in stratum.probabilities.iter().enumerate() {
                    if *p == 0.0 {
                        continue;
                    }
                    let mut counts = counts.clone();
                    counts[cell] += 1;
                    *next.entry(counts).or_insert(0.0) += probability * p;
                }
            }
            states = next;
        }
    }
    let key: Vec<u32> = observed.iter().map(|&o| o as u32).collect();
    let seen = states.get(&key).copied().unwrap_or(0.0);
    // Ties within rounding count as no more likely.
    let bound = seen * (1.0 + 1e-9);
    let p: f64 = states.values().filter(|&&q| q <= bound).sum();
    Some(p.min(1.0))
}

/// The fairness report's test of `observed` counts against `strata`: exact when small enough to
/// enumerate, else the G-test. The statistic is G either way.
pub fn goodness(observed: &[u64], strata: &[Stratum]) -> Option<Fit> {
    let approximate = g_test(observed, strata);
    match exact_multinomial(observed, strata) {
        Some(p_value) => {
            let cells = observed.len();
            let mut expected = vec![0.0; cells];
            for stratum in strata {
                for (e, p) in expected.iter_mut().zip(&stratum.probabilities) {
                    *e += p * stratum.rolls as f64;
                }
            }
            let pairs: Vec<(u64, f64)> = observed.iter().copied().zip(expected).collect();
            Some(Fit {
                test: "exact-multinomial",
                statistic: g_statistic(&pairs),
                degrees_of_freedom: cells.saturating_sub(1) as u64,
                p_value,
                cells,
                pooled: false,
            })
        }
        None => approximate,
    }
}

/// The verdict of `fit` on `rolls` rolls of something with `outcomes` possible outcomes.
pub fn verdict(rolls: u64, outcomes: usize, fit: Option<&Fit>) -> Verdict {
    // Enough rolls that a typical cell is not empty: at least MIN_ROLLS, and about one per outcome
    // for wide dice (a d100 needs 100).
    let needed = MIN_ROLLS.max(outcomes as u64);
    match fit {
        _ if rolls == 0 => Verdict::NoRolls,
        Some(fit) if rolls >= needed => {
            if fit.p_value < SUSPICIOUS_BELOW {
                Verdict::Suspicious {
                    p_value: fit.p_value,
                }
            } else {
                Verdict::Consistent {
                    p_value: fit.p_value,
                }
            }
        }
        _ => Verdict::TooFew { rolls, needed },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-4
    }

    #[test]
    fn the_p_value_is_the_chi_square_survival_function() {
        // A d6 rolled 60 times: 5, 5, 10, 10, 15, 15. Statistic 10, 5 degrees of freedom,
        // p = 0.07523 (tables).
        let fit = chi_square(&[5, 5, 10, 10, 15, 15], &[1.0 / 6.0; 6]).unwrap();
        assert!(close(fit.statistic, 10.0), "{fit:?}");
        assert_eq!(fit.degrees_of_freedom, 5);
        assert!(close(fit.p_value, 0.075235), "{fit:?}");
        assert!(!fit.pooled);
        // The 5% point of one degree of freedom.
        let fit = chi_square(&[60, 40], &[0.5, 0.5]).unwrap();
        assert!(close(fit.statistic, 4.0));
        assert!(close(fit.p_value, 0.0455), "{fit:?}");
        // A perfect fit.
        assert!(close(
            chi_square(&[10, 10], &[0.5, 0.5]).unwrap().p_value,
            1.0
        ));
    }

    #[test]
    fn small_cells_are_pooled_with_their_neighbours() {
        // 3d6's tails expect less than five in 36 rolls: pooled into wider cells.
        let probabilities: Vec<f64> = [1, 3, 6, 10, 15, 21, 25, 27, 27, 25, 21, 15, 10, 6, 3, 1]
            .iter()
            .map(|w| f64::from(*w) / 216.0)
            .collect();
        let observed = [0, 0, 1, 2, 2, 3, 4, 5, 5, 4, 3, 3, 2, 1, 1, 0];
        let fit = chi_square(&observed, &probabilities).unwrap();
        assert!(fit.pooled);
        assert!(fit.cells < 16 && fit.cells >= 2, "{fit:?}");
        assert_eq!(
            pool(
                &observed,
                &probabilities.iter().map(|p| p * 36.0).collect::<Vec<_>>()
            )
            .iter()
            .map(|c| c.0)
            .sum::<u64>(),
            36
        );
        // One roll of a d20 leaves nothing to compare.
        let mut one = [0u64; 20];
        one[3] = 1;
        assert_eq!(chi_square(&one, &[0.05; 20]), None);
    }

    fn one(probabilities: &[f64], rolls: u64) -> Vec<Stratum> {
        vec![Stratum {
            probabilities: probabilities.to_vec(),
            rolls,
        }]
    }

    /// The survival function of chi-square with one and two degrees of freedom in closed form,
    /// erfc(√(x/2)) and e^(-x/2): another road than statrs's incomplete gamma function. erfc by
    /// its continued fraction, good to 1e-9 for x ≥ 0.5.
    fn survival_closed_form(x: f64, degrees_of_freedom: u64) -> f64 {
        match degrees_of_freedom {
            1 => {
                let z = (x / 2.0).sqrt();
                let mut fraction = 0.0;
                for k in (1..200).rev() {
                    fraction = (k as f64 / 2.0) / (z + fraction);
                }
                (-z * z).exp() / std::f64::consts::PI.sqrt() / (z + fraction)
            }
            2 => (-x / 2.0).exp(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn the_g_statistic_and_its_p_value_match_a_hand_computation() {
        // A coin: 60 heads, 40 tails. G = 2 (60 ln 1.2 + 40 ln 0.8) = 4.027103 (by hand, from
        // ln 1.2 = 0.1823216 and ln 0.8 = -0.2231436).
        let fit = g_test(&[60, 40], &one(&[0.5, 0.5], 100)).unwrap();
        assert!((fit.statistic - 4.027103).abs() < 1e-5, "{fit:?}");
        assert_eq!(fit.degrees_of_freedom, 1);
        let p = survival_closed_form(fit.statistic, 1);
        assert!((fit.p_value - p).abs() < 1e-7, "{fit:?} against {p}");
        assert!((p - 0.04477).abs() < 1e-4, "{p}");
        // G as 2 (Σ O ln O − Σ O ln E), another arrangement of the same sum, on a d3.
        let observed = [30u64, 12, 18];
        let fit = g_test(&observed, &one(&[1.0 / 3.0; 3], 60)).unwrap();
        let by_parts = 2.0
            * (observed
                .iter()
                .map(|&o| o as f64 * (o as f64).ln())
                .sum::<f64>()
                - 60.0 * 20f64.ln());
        assert!((fit.statistic - by_parts).abs() < 1e-9, "{fit:?}");
        assert!((fit.p_value - survival_closed_form(by_parts, 2)).abs() < 1e-9);
        // Two strata: the expectations add (10 × 1/2 + 10 × 9/10 = 14 of the first outcome).
        let strata = [
            Stratum {
                probabilities: vec![0.5, 0.5],
                rolls: 10,
            },
            Stratum {
                probabilities: vec![0.9, 0.1],
                rolls: 10,
            },
        ];
        let fit = g_test(&[14, 6], &strata).unwrap();
        assert!(fit.statistic.abs() < 1e-12, "{fit:?}");
    }

    #[test]
    fn the_exact_multinomial_test_matches_counts_enumerated_by_hand() {
        // Three coin flips: P(3,0) = P(0,3) = 1/8, P(2,1) = P(1,2) = 3/8.
        let coin = one(&[0.5, 0.5], 3);
        assert!((exact_multinomial(&[3, 0], &coin).unwrap() - 0.25).abs() < 1e-12);
        assert!((exact_multinomial(&[2, 1], &coin).unwrap() - 1.0).abs() < 1e-12);
        // Two rolls of a d3: the three doubles have 1/9 each, the six mixed pairs 2/9 per cell.
        let d3 = one(&[1.0 / 3.0; 3], 2);
        assert!((exact_multinomial(&[2, 0, 0], &d3).unwrap() - 1.0 / 3.0).abs() < 1e-12);
        // Two coins, one fair and one with heads 9/10: (heads, heads) 9/20, one of each 1/2,
        // (tails, tails) 1/20; two tails is the least likely.
        let strata = [
            Stratum {
                probabilities: vec![0.5, 0.5],
                rolls: 1,
            },
            Stratum {
                probabilities: vec![0.9, 0.1],
                rolls: 1,
            },
        ];
        assert!((exact_multinomial(&[0, 2], &strata).unwrap() - 0.05).abs() < 1e-12);
        assert!((exact_multinomial(&[2, 0], &strata).unwrap() - 0.5).abs() < 1e-12);
        // Too many count vectors: the G-test instead.
        assert_eq!(
            exact_multinomial(&[500; 6], &one(&[1.0 / 6.0; 6], 3000)),
            None
        );
        assert_eq!(count_vectors(3, 2), 4);
        assert_eq!(count_vectors(2, 3), 6);
        let fit = goodness(&[500; 6], &one(&[1.0 / 6.0; 6], 3000)).unwrap();
        assert_eq!(fit.test, "g-test");
        assert_eq!(goodness(&[2, 1], &coin).unwrap().test, "exact-multinomial");
    }

    #[test]
    fn verdicts_read_plainly() {
        let fair = chi_square(&[10, 11, 9, 10, 10, 10], &[1.0 / 6.0; 6]).unwrap();
        assert!(
            verdict(60, 6, Some(&fair))
                .text()
                .starts_with("consistent with fair dice")
        );
        let loaded = chi_square(&[0, 0, 0, 0, 0, 60], &[1.0 / 6.0; 6]).unwrap();
        let text = verdict(60, 6, Some(&loaded)).text();
        assert!(text.starts_with("suspicious: p = "), "{text}");
        assert!(verdict(60, 6, Some(&loaded)).is_suspicious());
        assert_eq!(
            verdict(10, 6, Some(&fair)).text(),
            "too few rolls to tell (10; at least 20 needed)"
        );
        assert_eq!(verdict(0, 6, None), Verdict::NoRolls);
    }
}

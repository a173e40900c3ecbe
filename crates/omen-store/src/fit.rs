//! Goodness of fit: observed counts against exact probabilities, by Pearson's chi-square test. Pure
//! arithmetic, no I/O.
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
    /// `chi-square` (Pearson's).
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
    let p_value = ChiSquared::new(degrees_of_freedom as f64)
        .map(|distribution| distribution.sf(statistic))
        .unwrap_or(f64::NAN);
    Some(Fit {
        test: "chi-square",
        statistic,
        degrees_of_freedom,
        p_value,
        cells: cells.len(),
        pooled: needs_pooling,
    })
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

//! The statistics of an exact result, from the number arithmetic that both interpreters share.

use super::ValueDistribution;
use crate::number::NumberStatistics;
use crate::value::Value;

impl ValueDistribution {
    /// The exact mean, variance and median of a distribution of numbers, whole or fractions; `None`
    /// for true/false, labels, tuples and mixes.
    pub fn number_statistics(&self) -> Option<NumberStatistics> {
        match self {
            ValueDistribution::Int(d) => {
                let s = d.statistics();
                Some(NumberStatistics {
                    mean: s.mean,
                    variance: s.variance,
                    median: Value::Int(s.median),
                })
            }
            ValueDistribution::Bool(_) => None,
            ValueDistribution::Values(d) => NumberStatistics::of(d),
        }
    }
}

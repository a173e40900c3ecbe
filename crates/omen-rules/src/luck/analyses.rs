//! The luck calculator as an analysis (002-M1, M2, M6).

use std::ops::RangeInclusive;

use omen_core::Limits;
use serde::{Deserialize, Serialize};

use super::game::{outcome_text, signed};
use super::ranges::{RANGES, STATIONARY};
use super::rules::{Karma, LuckHistory, LuckOutcome, RunKind, long_run, ranges};

// ---------------------------------------------------------------------------------------------------
// The luck calculator as an analysis (002-M1, M2, M6): the seed's calculator for one combined
// modifier, plus the karmic long run at that modifier as a base.

/// The inputs of the `calculator` analysis.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CalculatorInputs {
    /// The combined modifier (event + intrinsic + karmic); the seed's calculator covers −50..+50,
    /// and a larger one clamps the same way (002-A4).
    #[serde(default)]
    #[schemars(range(min = -100, max = 100))]
    pub modifier: i64,
}

fn range_text(range: &Option<RangeInclusive<i64>>) -> String {
    match range {
        None => "none".to_string(),
        Some(r) if r.start() == r.end() => r.start().to_string(),
        Some(r) => format!("{}–{}", r.start(), r.end()),
    }
}

fn calculator(
    inputs: &serde_json::Value,
    limits: &Limits,
) -> Result<Vec<crate::analysis::AnalysisTable>, String> {
    use crate::analysis::{AnalysisTable, decode_inputs, probability_cell};
    let CalculatorInputs { modifier } = decode_inputs(inputs)?;
    if !(-100..=100).contains(&modifier) {
        return Err(format!(
            "a modifier of {modifier} is outside −100..+100; every modifier past ±40 already fixes the outcome"
        ));
    }
    let found = ranges(modifier);
    let mut table = AnalysisTable::new(
        format!("The d50's ranges at combined modifier {}", signed(modifier)),
        &["outcome", "faces", "chance"],
    );
    for (outcome, range) in [
        (LuckOutcome::Bad, &found.bad),
        (LuckOutcome::Neutral, &found.neutral),
        (LuckOutcome::Good, &found.good),
    ] {
        table.row(vec![
            outcome_text(outcome).to_string(),
            range_text(range),
            probability_cell(&found.probability(outcome)),
        ]);
    }
    let with = long_run(modifier, Karma::On, limits).map_err(|e| e.to_string())?;
    let without = long_run(modifier, Karma::Off, limits).map_err(|e| e.to_string())?;
    let mut frequencies = AnalysisTable::new(
        format!(
            "The long run at base modifier {} (event + intrinsic), every event offering both outcomes",
            signed(modifier)
        ),
        &["outcome", "with the karmic rule", "without it"],
    );
    for outcome in LuckOutcome::ALL {
        frequencies.row(vec![
            outcome_text(outcome).to_string(),
            probability_cell(&with.outcomes.probability(&outcome)),
            probability_cell(&without.outcomes.probability(&outcome)),
        ]);
    }
    let mut runs = AnalysisTable::new(
        "P(the current run has at least this length), in the long run",
        &["run length", "with the karmic rule", "without it"],
    );
    for length in 1..=6u8 {
        runs.row(vec![
            format!("≥ {length}"),
            probability_cell(&with.run_at_least(length)),
            probability_cell(&without.run_at_least(length)),
        ]);
    }
    let mut histories = AnalysisTable::new(
        "The karmic history before a roll, in the long run (B: a bad run, G: a good run)",
        &["history", "probability", "karmic modifier"],
    );
    for (name, p) in with.named_histories() {
        let karmic = match name.split_at(1) {
            ("B", n) => n
                .parse::<u8>()
                .ok()
                .and_then(|n| LuckHistory::run(RunKind::Bad, n).ok()),
            ("G", n) => n
                .parse::<u8>()
                .ok()
                .and_then(|n| LuckHistory::run(RunKind::Good, n).ok()),
            _ => Some(LuckHistory::EMPTY),
        }
        .map_or(0, |h| h.karmic_modifier());
        histories.row(vec![name, probability_cell(&p), signed(karmic)]);
    }
    Ok(vec![table, frequencies, runs, histories])
}

pub(crate) const ANALYSES: &[crate::analysis::Analysis] = &[CALCULATOR, RANGES, STATIONARY];

const CALCULATOR: crate::analysis::Analysis = crate::analysis::Analysis {
    name: "calculator",
    spec_items: &["002-M1", "002-M2", "002-M5", "002-M6"],
    summary: "the seed's luck calculator: the d50's three ranges and their chances for a combined \
              modifier, and the karmic rule's long run at that modifier",
    inputs: crate::analysis::inputs_schema::<CalculatorInputs>,
    run: calculator,
    answer: None,
};

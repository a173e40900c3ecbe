//! The fairness report's shape: per die and per mechanic the counts against fair dice, with the
//! test's verdict and power, for the whole log and per session.

use serde::Serialize;
use serde_json::Value;

use super::power::Power;
use crate::fit::{Fit, Verdict};

/// One face of a die, or one outcome of a mechanic: how often it came up and how often fair dice
/// would make it come up.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OutcomeCount {
    /// The face or the outcome, as JSON (a number, true/false, a label, a list).
    pub outcome: Value,
    pub observed: u64,
    /// Its exact probability, `n/d` in lowest terms.
    pub probability: String,
    /// `probability × rolls`, for reading.
    pub expected: f64,
}

/// The faces of one kind of die.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DieFairness {
    /// `d20`, `d%`, `dF`, `d{1,1,2}`.
    pub die: String,
    pub rolled: u64,
    /// Of them, given by hand (`--dice`).
    pub given: u64,
    /// Every face the die has, and any it does not have that came up, in order.
    pub faces: Vec<OutcomeCount>,
    pub fit: Option<Fit>,
    pub verdict: Verdict,
    /// [`Verdict::text`].
    pub summary: String,
    /// What the test can see: how often it catches a die that never shows its highest face, and
    /// one that shows it twice as often.
    pub power: Vec<Power>,
}

/// The results of one mechanic: an expression with its parameters, or a rule-set action's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MechanicFairness {
    /// The expression as logged, with its parameters if any: `3d6`, `attack(bonus=5)`; or the rule
    /// set, the action and the result's field: `luck roll: outcome`.
    pub mechanic: String,
    /// `expression` or `action`.
    pub kind: &'static str,
    /// How many different distributions its rolls had (an action's odds change with the state).
    pub distributions: u64,
    pub rolls: u64,
    pub given: u64,
    pub outcomes: Vec<OutcomeCount>,
    pub fit: Option<Fit>,
    pub verdict: Verdict,
    pub summary: String,
    /// What the test can see: how often it catches dice that move [`SHIFT`] of the probability
    /// from the results below the median to the others.
    pub power: Vec<Power>,
}

/// The dice and mechanics of a set of entries.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FairnessSection {
    /// Entries that rolled dice.
    pub rolls: u64,
    pub dice: Vec<DieFairness>,
    pub mechanics: Vec<MechanicFairness>,
}

impl FairnessSection {
    /// Whether any die or mechanic is suspicious.
    pub fn is_suspicious(&self) -> bool {
        self.dice.iter().any(|d| d.verdict.is_suspicious())
            || self.mechanics.iter().any(|m| m.verdict.is_suspicious())
    }
}

/// One session's section.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SessionFairness {
    /// The UTC date, `2026-11-23`.
    pub session: String,
    #[serde(flatten)]
    pub section: FairnessSection,
}

/// The fairness report of a campaign.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FairnessReport {
    pub campaign: String,
    /// Every selected entry together.
    pub whole: FairnessSection,
    /// Oldest first.
    pub sessions: Vec<SessionFairness>,
    /// The p-value below which a verdict is "suspicious".
    pub suspicious_below: f64,
    /// How to read the report.
    pub method: &'static str,
}

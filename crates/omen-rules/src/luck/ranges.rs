//! The seed's calculator as the command line has always printed it (002-M1, M2, M6): the d50's three
//! ranges for one combined modifier, and the karmic rule's long run for a base modifier, each as text
//! to read, JSON and tables.

use omen_core::{Limits, Probability, probability_to_f64};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::rules::{Karma, LuckOutcome, long_run, ranges};
use crate::analysis::{Analysis, AnalysisTable, Answer, decode_inputs, inputs_schema};

/// The inputs of the `ranges` analysis.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = json!({ "modifier": -2 }), example = json!({ "modifier": 3 }))]
pub struct RangesInputs {
    /// The combined modifier (event + intrinsic + karmic); any integer.
    pub modifier: i64,
}

/// The inputs of the `stationary` analysis.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = json!({ "modifier": 0 }), example = json!({ "modifier": -2, "no_karma": true }))]
pub struct StationaryInputs {
    /// The base modifier of every roll (event + intrinsic), before the karmic one.
    #[serde(default)]
    #[schemars(range(min = -100, max = 100))]
    pub modifier: i64,
    /// Without the karmic modifier, for comparison.
    #[serde(default)]
    pub no_karma: bool,
}

/// A probability for people: two decimals of its percentage (the exact fraction is beside it).
fn percent(p: &Probability) -> String {
    format!("{:.2}%", probability_to_f64(p) * 100.0)
}

fn range_text(range: Option<&std::ops::RangeInclusive<i64>>) -> String {
    range.map_or_else(
        || "none".to_string(),
        |r| format!("{}-{}", r.start(), r.end()),
    )
}

const OUTCOMES: [(&str, LuckOutcome); 3] = [
    ("bad", LuckOutcome::Bad),
    ("neutral", LuckOutcome::Neutral),
    ("good", LuckOutcome::Good),
];

fn ranges_answer(inputs: &Value, _limits: &Limits) -> Result<Answer, String> {
    let RangesInputs { modifier } = decode_inputs(inputs)?;
    let found = ranges(modifier);
    let mut text = format!("modifier {modifier:+}:\n");
    let mut answer = json!({ "modifier": modifier });
    let mut table = AnalysisTable::new("", &["modifier", "outcome", "range", "probability"]);
    for (name, outcome) in OUTCOMES {
        let range = match outcome {
            LuckOutcome::Bad => found.bad.as_ref(),
            LuckOutcome::Neutral => found.neutral.as_ref(),
            LuckOutcome::Good => found.good.as_ref(),
        };
        let p = found.probability(outcome);
        let range = range_text(range);
        text.push_str(&format!("  {name:<8} {range:>6}  {p} ≈ {}\n", percent(&p)));
        answer[name] = json!({ "range": range, "probability": p.to_string() });
        table.row(vec![
            modifier.to_string(),
            name.to_string(),
            range,
            p.to_string(),
        ]);
    }
    Ok(Answer {
        tables: vec![table],
        text: Some(text),
        markdown: None,
        json: Some(answer),
        ..Answer::default()
    })
}

fn stationary_answer(inputs: &Value, limits: &Limits) -> Result<Answer, String> {
    let StationaryInputs { modifier, no_karma } = decode_inputs(inputs)?;
    let karma = if no_karma { Karma::Off } else { Karma::On };
    let run = long_run(modifier, karma, limits).map_err(|e| e.to_string())?;
    let mut text = format!(
        "long run at base modifier {modifier:+}{}:\n",
        if no_karma { ", without karma" } else { "" }
    );
    let mut answer = json!({ "modifier": modifier, "karma": !no_karma });
    let mut outcomes = AnalysisTable::new("The long run's outcomes", &["outcome", "probability"]);
    for (name, outcome) in OUTCOMES {
        let p = run.outcomes.probability(&outcome);
        text.push_str(&format!("  {name:<8} {p} ≈ {}\n", percent(&p)));
        answer[name] = json!(p.to_string());
        outcomes.row(vec![name.to_string(), p.to_string()]);
    }
    text.push_str("stationary karmic history:\n");
    let mut histories = Map::new();
    let mut history =
        AnalysisTable::new("The stationary karmic history", &["history", "probability"]);
    for (name, p) in run.named_histories() {
        text.push_str(&format!("  {name:<8} {p} ≈ {}\n", percent(&p)));
        histories.insert(name.clone(), json!(p.to_string()));
        history.row(vec![name, p.to_string()]);
    }
    text.push_str("current run at least k long:\n");
    let mut runs = Map::new();
    let mut run_table =
        AnalysisTable::new("The current run at least k long", &["k", "probability"]);
    for k in 1..=6u8 {
        let p = run.run_at_least(k);
        text.push_str(&format!("  k = {k}    {p} ≈ {}\n", percent(&p)));
        runs.insert(k.to_string(), json!(p.to_string()));
        run_table.row(vec![k.to_string(), p.to_string()]);
    }
    answer["histories"] = Value::Object(histories);
    answer["run_at_least"] = Value::Object(runs);
    Ok(Answer {
        tables: vec![outcomes, history, run_table],
        text: Some(text),
        markdown: None,
        json: Some(answer),
        ..Answer::default()
    })
}

fn ranges_tables(inputs: &Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    ranges_answer(inputs, limits).map(|a| a.tables)
}

fn stationary_tables(inputs: &Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    stationary_answer(inputs, limits).map(|a| a.tables)
}

pub(super) const RANGES: Analysis = Analysis {
    name: "ranges",
    spec_items: &["002-M1", "002-M2", "002-A1", "002-A4"],
    summary: "the seed's calculator: the bad, neutral and good ranges of a d50 for a combined modifier",
    inputs: inputs_schema::<RangesInputs>,
    run: ranges_tables,
    answer: Some(ranges_answer),
};

pub(super) const STATIONARY: Analysis = Analysis {
    name: "stationary",
    spec_items: &["002-M5", "002-M6"],
    summary: "the exact long-run frequencies of bad luck, no event and good luck with the karmic rule, \
              the stationary history and the current run's length",
    inputs: inputs_schema::<StationaryInputs>,
    run: stationary_tables,
    answer: Some(stationary_answer),
};

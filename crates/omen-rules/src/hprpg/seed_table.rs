//! Appendix 10 as the seed prints it (003-M10, A22, errata E003-1..5), as an analysis: the markdown
//! rounded as the seed rounds, the exact fractions in JSON and in the tables.

use omen_core::Limits;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::appendix::{TABLE_COLUMNS, table};
use crate::analysis::{Analysis, AnalysisTable, Answer, decode_inputs, fraction, inputs_schema};

/// The inputs of the `table` analysis.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    example = json!({ "difficulty": 8 }),
    example = json!({ "difficulty": 10, "catastrophe_range": 3 })
)]
pub struct SeedTableInputs {
    /// The difficulty value (DV), 2..12; raised above the catastrophe range as the rules say.
    #[schemars(extend("x-cli-flag" = "dv"))]
    pub difficulty: i64,
    /// The top of the catastrophe range (1 for 1-1, 3 for a Broken Wand's 1-3).
    #[serde(default = "one")]
    pub catastrophe_range: i64,
}

fn one() -> i64 {
    1
}

fn seed_table_answer(inputs: &Value, _limits: &Limits) -> Result<Answer, String> {
    let SeedTableInputs {
        difficulty,
        catastrophe_range,
    } = decode_inputs(inputs)?;
    let found = table(difficulty, catastrophe_range).map_err(|e| e.to_string())?;
    let mut columns = vec!["catastrophe_range", "difficulty", "dice"];
    columns.extend(TABLE_COLUMNS);
    let mut exact = AnalysisTable::new("", &columns);
    for row in &found.rows {
        let mut cells = vec![
            found.catastrophe_range.to_string(),
            found.difficulty.to_string(),
            row.dice.to_string(),
        ];
        cells.extend(row.columns.iter().map(fraction));
        exact.row(cells);
    }
    let answer: Value = serde_json::from_str(&found.to_json()).map_err(|e| e.to_string())?;
    Ok(Answer {
        tables: vec![exact],
        text: None,
        markdown: Some(found.markdown()),
        json: Some(answer),
        ..Answer::default()
    })
}

fn seed_table_tables(inputs: &Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    seed_table_answer(inputs, limits).map(|a| a.tables)
}

pub const SEED_TABLE: Analysis = Analysis {
    name: "table",
    spec_items: &["003-M10", "003-A22"],
    summary: "the outcome table of Appendix 10 for a DV and catastrophe range: dice 0..14 against \
              catastrophe, failure, 1..6 and 7+ net successes, rounded as the seed rounds",
    inputs: inputs_schema::<SeedTableInputs>,
    run: seed_table_tables,
    answer: Some(seed_table_answer),
};

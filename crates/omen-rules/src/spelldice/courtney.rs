//! Courtney's threefold result table (001-D1), reference data from another system, as an analysis:
//! when a spell goes off for a result, or the row of one result.

use omen_core::Limits;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::analyses::{COURTNEY_RESULTS, CourtneyRow, courtney_result, courtney_table};
use crate::analysis::{Analysis, AnalysisTable, Answer, decode_inputs, inputs_schema};

/// The inputs of the `courtney` analysis.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = json!({}), example = json!({ "result": 7 }))]
pub struct CourtneyInputs {
    /// A result, 1..12: print its row only.
    #[serde(default)]
    pub result: Option<i64>,
}

fn row_json(row: &CourtneyRow) -> Value {
    json!({
        "results": [row.results.start(), row.results.end()],
        "timing": row.timing,
        "spell_lost": row.spell_lost,
        "text": row.text,
    })
}

fn rows_table<'a>(rows: impl IntoIterator<Item = &'a CourtneyRow>) -> AnalysisTable {
    let mut table = AnalysisTable::new("", &["results", "timing", "spell_lost", "text"]);
    for row in rows {
        let timing = row_json(row)["timing"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        table.row(vec![
            format!("{}-{}", row.results.start(), row.results.end()),
            timing,
            row.spell_lost.to_string(),
            row.text.to_string(),
        ]);
    }
    table
}

fn courtney_answer(inputs: &Value, _limits: &Limits) -> Result<Answer, String> {
    let CourtneyInputs { result } = decode_inputs(inputs)?;
    let Some(result) = result else {
        return Ok(Answer {
            tables: vec![rows_table(&COURTNEY_RESULTS)],
            text: Some(courtney_table()),
            markdown: None,
            json: Some(Value::Array(
                COURTNEY_RESULTS.iter().map(row_json).collect(),
            )),
            ..Answer::default()
        });
    };
    let row = courtney_result(result).ok_or_else(|| {
        format!("Courtney's table covers results 1 to 12, not {result}; give 1..12")
    })?;
    Ok(Answer {
        tables: vec![rows_table([row])],
        text: Some(format!("{result}: {}\n", row.text)),
        markdown: None,
        json: Some(row_json(row)),
        ..Answer::default()
    })
}

fn courtney_tables(inputs: &Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    courtney_answer(inputs, limits).map(|a| a.tables)
}

pub const COURTNEY: Analysis = Analysis {
    name: "courtney",
    spec_items: &["001-D1"],
    summary: "Courtney's threefold result table, reference data from another system: when a spell \
              goes off for a result, or the row of one result",
    inputs: inputs_schema::<CourtneyInputs>,
    run: courtney_tables,
    answer: Some(courtney_answer),
};

//! Seed 000's Appendix C and D (000-M12, M13) as analyses: the seed's pages byte for byte in
//! markdown, the exact fractions in JSON and in the tables.

use omen_core::Limits;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::rules::{Difficulty, LoreCheck, dice_sum_distribution, essence_table, lore_table};
use crate::analysis::{Analysis, AnalysisTable, Answer, decode_inputs, inputs_schema};

/// The inputs of the seed's tables: none.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = json!({}))]
pub struct SeedTableInputs {}

/// The most dice Appendix D has a row for.
const ESSENCE_ROWS: usize = 24;

/// Appendix C's figures exactly: P(success) of a Lore check for pools 0..=12 and each difficulty
/// that takes a roll.
fn lore_answer(inputs: &Value, limits: &Limits) -> Result<Answer, String> {
    let SeedTableInputs {} = decode_inputs(inputs)?;
    let difficulties: Vec<Difficulty> = Difficulty::all().filter(|d| !d.is_automatic()).collect();
    let mut columns = vec!["dice".to_string()];
    columns.extend(difficulties.iter().map(|d| d.value().to_string()));
    let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
    let mut table = AnalysisTable::new("", &columns);
    let mut rows = Vec::new();
    for pool in 0..=12 {
        let mut row = Map::new();
        row.insert("dice".into(), pool.into());
        let mut cells = vec![pool.to_string()];
        for &difficulty in &difficulties {
            let p = LoreCheck::from_pool(pool, difficulty, limits)
                .and_then(|check| check.success_probability(limits))
                .map_err(|e| e.to_string())?;
            row.insert(difficulty.value().to_string(), p.to_string().into());
            cells.push(p.to_string());
        }
        rows.push(Value::Object(row));
        table.row(cells);
    }
    Ok(Answer {
        tables: vec![table],
        text: None,
        markdown: Some(lore_table()),
        json: Some(json!({ "rows": rows })),
        ..Answer::default()
    })
}

/// Appendix D's figures exactly: P(sum of N d6 ≥ TN) for N = 1..=24 and TN = 3, 6, … up to 6N; a
/// row has no cell for a TN past its reach.
fn essence_answer(inputs: &Value, limits: &Limits) -> Result<Answer, String> {
    let SeedTableInputs {} = decode_inputs(inputs)?;
    let targets: Vec<i64> = (3..=6 * ESSENCE_ROWS as i64).step_by(3).collect();
    let mut columns = vec!["dice".to_string()];
    columns.extend(targets.iter().map(|tn| format!("at_least.{tn}")));
    let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
    let mut table = AnalysisTable::new("", &columns);
    let mut rows = Vec::new();
    for dice in 1..=ESSENCE_ROWS {
        let sums = dice_sum_distribution(dice, limits).map_err(|e| e.to_string())?;
        let mut at_least = Map::new();
        let mut cells = vec![dice.to_string()];
        for &target in &targets {
            if target > 6 * dice as i64 {
                cells.push(String::new());
                continue;
            }
            let p = sums.probability_where(|&s| s >= target);
            at_least.insert(target.to_string(), p.to_string().into());
            cells.push(p.to_string());
        }
        rows.push(json!({ "dice": dice, "at_least": at_least }));
        table.row(cells);
    }
    Ok(Answer {
        tables: vec![table],
        text: None,
        markdown: Some(essence_table()),
        json: Some(json!({ "rows": rows })),
        ..Answer::default()
    })
}

fn lore_tables(inputs: &Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    lore_answer(inputs, limits).map(|a| a.tables)
}

fn essence_tables(inputs: &Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    essence_answer(inputs, limits).map(|a| a.tables)
}

pub const LORE_TABLE: Analysis = Analysis {
    name: "lore-table",
    spec_items: &["000-M12"],
    summary: "seed 000's Appendix C table (Lore check vs. difficulty), byte for byte",
    inputs: inputs_schema::<SeedTableInputs>,
    run: lore_tables,
    answer: Some(lore_answer),
};

pub const ESSENCE_TABLE: Analysis = Analysis {
    name: "essence-table",
    spec_items: &["000-M13"],
    summary: "seed 000's Appendix D pages (Essence check vs. threshold), byte for byte",
    inputs: inputs_schema::<SeedTableInputs>,
    run: essence_tables,
    answer: Some(essence_answer),
};

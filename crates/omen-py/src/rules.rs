//! The seeds' rule sets as a notebook reaches them: their names, their analyses (calculators from a
//! few inputs, such as seed 002's luck bands for a modifier) and their reference tables, through
//! omen-rules' one registry, as the server and the pages reach them; no game is named here. Inputs
//! and answers cross as JSON text, which the Python layer turns into dicts and tables.

use omen_rules::analysis::Analysis;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::{Value, json};

use crate::{limits, worker};

fn rule_set(game: &str) -> PyResult<&'static dyn omen_rules::RuleSet> {
    omen_rules::find(game).ok_or_else(|| {
        let known: Vec<&str> = omen_rules::registry().iter().map(|r| r.name()).collect();
        PyValueError::new_err(format!(
            "no rule set `{game}`; the rule sets are {}",
            known.join(", ")
        ))
    })
}

/// Names for an error's list of what there is: `a, b`, or `none`.
fn listed<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// Every rule set with its analyses (their inputs' JSON Schema) and reference tables, as JSON.
#[pyfunction]
pub fn rule_sets() -> String {
    let all: Vec<Value> = omen_rules::registry()
        .iter()
        .map(|r| {
            let analyses: Vec<Value> = r
                .analyses()
                .iter()
                .map(|a| json!({ "name": a.name, "summary": a.summary, "inputs": (a.inputs)() }))
                .collect();
            let tables: Vec<Value> = r
                .tables()
                .iter()
                .map(|t| json!({ "name": t.name, "summary": t.summary }))
                .collect();
            json!({
                "name": r.name(),
                "description": r.description(),
                "analyses": analyses,
                "tables": tables,
            })
        })
        .collect();
    Value::Array(all).to_string()
}

/// Runs `game`'s analysis `analysis` on `inputs` (a JSON object; missing inputs take their
/// defaults), on the worker thread without the GIL; answers its tables as JSON.
///
/// # Errors
/// `ValueError` for an unknown rule set or analysis, inputs that are not JSON, or inputs the
/// analysis refuses (its message says why); the limits' errors; `KeyboardInterrupt` on Ctrl-C.
#[pyfunction]
#[pyo3(signature = (game, analysis, inputs, *, limits=None, timeout=None))]
pub fn analyse(
    py: Python<'_>,
    game: &str,
    analysis: &str,
    inputs: &str,
    limits: Option<&Bound<'_, PyDict>>,
    timeout: Option<f64>,
) -> PyResult<String> {
    let rules = rule_set(game)?;
    let found: &'static Analysis = rules
        .analyses()
        .iter()
        .find(|a| a.name == analysis)
        .ok_or_else(|| {
            let known = listed(rules.analyses().iter().map(|a| a.name));
            PyValueError::new_err(format!(
                "`{game}` has no analysis `{analysis}`; its analyses are: {known}"
            ))
        })?;
    let inputs: Value = serde_json::from_str(inputs)
        .map_err(|e| PyValueError::new_err(format!("the inputs are not JSON: {e}")))?;
    let limits = limits::read(limits, timeout)?;
    let cancel = limits.cancel.clone();
    let run = found.run;
    let answer = worker::run(py, &cancel, move || run(&inputs, &limits))?;
    let tables =
        answer.map_err(|message| PyValueError::new_err(format!("{game} {analysis}: {message}")))?;
    serde_json::to_string(&tables).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The text of `game`'s reference table `name` (a seed's appendix, as the seed prints it).
///
/// # Errors
/// `ValueError` for an unknown rule set or table.
#[pyfunction]
pub fn reference_table(game: &str, name: &str) -> PyResult<String> {
    let rules = rule_set(game)?;
    let table = rules
        .tables()
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| {
            let known = listed(rules.tables().iter().map(|t| t.name));
            PyValueError::new_err(format!(
                "`{game}` has no table `{name}`; its tables are: {known}"
            ))
        })?;
    Ok((table.render)())
}

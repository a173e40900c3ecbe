//! Analyses a rule set offers beyond a character's actions: exact tables computed from a few inputs
//! (the luck calculator for any modifier, Appendix 10 for any DV), described as data so that every
//! face (the server's routes, the web page's forms) serves them without knowing the game.
//!
//! An analysis takes JSON checked against the JSON Schema of its inputs (a serde type in the game's
//! module) and answers with tables of text cells: exact fractions first, percentages for reading.

use num_traits::One;
use omen_core::Limits;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// One analysis of a rule set.
#[derive(Clone, Copy, Debug)]
pub struct Analysis {
    /// A short name, e.g. `calculator`.
    pub name: &'static str,
    /// The spec items it implements.
    pub spec_items: &'static [&'static str],
    /// What it shows.
    pub summary: &'static str,
    /// The JSON Schema of its inputs (with defaults, so a form can start filled in).
    pub inputs: fn() -> Value,
    /// Runs it on inputs of that shape.
    pub run: fn(&Value, &Limits) -> Result<Vec<AnalysisTable>, String>,
    /// The same answer with the analysis's own words beside its tables (a seed's table byte for
    /// byte, a JSON shape of its own), for the faces that print it; `None` when the tables say all.
    pub answer: Option<AnswerFn>,
}

/// What [`Analysis::answer`] runs: the inputs in, the answer out.
pub type AnswerFn = fn(&Value, &Limits) -> Result<Answer, String>;

/// An analysis's answer as [`Analysis::answer`] gives it: the tables every face shows, and where the
/// analysis has them, its text to read, its markdown (a seed's table as the seed prints it) and its
/// JSON. A face shows the form asked for when the analysis has it, else the tables.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Answer {
    pub tables: Vec<AnalysisTable>,
    pub text: Option<String>,
    pub markdown: Option<String>,
    pub json: Option<Value>,
    /// What the rules allow but find unusual in the inputs: said beside the answer, never a reason
    /// to refuse it (a face may make them errors on request).
    pub warnings: Vec<String>,
    /// Text for the person reading along, beside the answer rather than in it (the answer may be
    /// piped into another command).
    pub notes: Option<String>,
}

impl Answer {
    /// An answer of tables alone.
    pub fn tables(tables: Vec<AnalysisTable>) -> Self {
        Answer {
            tables,
            ..Answer::default()
        }
    }
}

/// A table an analysis answers with: a caption, column headings and rows of text cells (the first
/// cell of each row names it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AnalysisTable {
    pub caption: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl AnalysisTable {
    pub fn new(caption: impl Into<String>, columns: &[&str]) -> Self {
        AnalysisTable {
            caption: caption.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; it has as many cells as the table has columns.
    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.columns.len());
        self.rows.push(cells);
    }
}

/// The JSON Schema of an analysis's inputs, for [`Analysis::inputs`].
pub fn inputs_schema<T: schemars::JsonSchema>() -> Value {
    // The schema's own JSON, handed over: `serde_json::to_value` would copy the whole tree to
    // reorder its keywords, a fifth of the start-up of `omen GAME ACTION --help`.
    schemars::schema_for!(T).to_value()
}

/// Decodes an analysis's inputs, with every problem the schema sees.
///
/// # Errors
/// What does not fit the schema.
pub fn decode_inputs<T: DeserializeOwned + schemars::JsonSchema>(
    value: &Value,
) -> Result<T, String> {
    super::schema_check::decode(value)
}

/// An exact probability as text, in lowest terms: `"1/5"`, and a whole number without a denominator
/// (`"0"`, `"1"`), as `omen prob` writes every probability.
pub fn fraction(p: &omen_core::Probability) -> String {
    if p.denom().is_one() {
        p.numer().to_string()
    } else {
        format!("{}/{}", p.numer(), p.denom())
    }
}

/// An exact probability as a table cell: the fraction in lowest terms and a percentage to two places.
pub fn probability_cell(p: &omen_core::Probability) -> String {
    let fraction = fraction(p);
    let percent = p * omen_core::Probability::from_integer(omen_core::Weight::from(100u32));
    format!(
        "{fraction} ({}%)",
        super::render::fixed_decimal(&percent, 2)
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn run(game: &str, name: &str, inputs: Value) -> Result<Vec<AnalysisTable>, String> {
        let rules = crate::find(game).expect("registered");
        let analysis = rules
            .analyses()
            .iter()
            .find(|a| a.name == name)
            .expect("offered");
        (analysis.run)(&inputs, &Limits::default())
    }

    #[test]
    fn the_luck_calculator_at_modifier_0_gives_the_seeds_ranges_and_the_karmic_long_run() {
        let tables = run("luck", "calculator", json!({})).expect("runs");
        // 10, 30 and 10 faces of 50.
        assert_eq!(
            tables[0].rows,
            [
                ["bad luck", "1–10", "1/5 (20.00%)"],
                ["no event", "11–40", "3/5 (60.00%)"],
                ["good luck", "41–50", "1/5 (20.00%)"],
            ]
        );
        // 002-M6: at base 0 the karmic rule keeps 1/5, 3/5, 1/5 and shortens runs: P(run ≥ 2)
        // falls from (1/5)² + (1/5)² = 2/25 to 1894474/24267435.
        assert_eq!(tables[1].rows[0][1..], ["1/5 (20.00%)", "1/5 (20.00%)"]);
        assert_eq!(tables[2].rows[1][0], "≥ 2");
        assert!(tables[2].rows[1][1].starts_with("1894474/24267435 "));
        assert!(tables[2].rows[1][2].starts_with("2/25 "));
    }

    #[test]
    fn the_luck_calculator_clamps_and_refuses_a_modifier_past_its_ceiling() {
        // +40: the good range is the whole die (002-A1).
        let tables = run("luck", "calculator", json!({ "modifier": 40 })).expect("runs");
        assert_eq!(tables[0].rows[0][1..], ["none", "0 (0.00%)"]);
        assert_eq!(tables[0].rows[2][1..], ["1–50", "1 (100.00%)"]);
        let refused = run("luck", "calculator", json!({ "modifier": 1000 })).unwrap_err();
        assert!(refused.contains("outside"), "{refused}");
        let malformed = run("luck", "calculator", json!({ "modifer": 3 })).unwrap_err();
        assert!(malformed.contains("modifer"), "{malformed}");
    }

    #[test]
    fn appendix_10_for_a_dv_and_catastrophe_range_holds_the_zero_pools_exact_odds() {
        let tables = run(
            "hprpg",
            "appendix-10",
            json!({ "difficulty": 12, "catastrophe_range": 1 }),
        )
        .expect("runs");
        let zero = &tables[0].rows[0];
        // The zero pool: the lower of 2d12. A catastrophe when it shows 1: 1 − (11/12)² = 23/144;
        // a success only when both show 12: 1/144.
        assert_eq!(zero[0], "0");
        assert_eq!(zero[1], "23/144 (15.97%)");
        assert_eq!(zero[3], "1/144 (0.69%)");
        assert_eq!(tables[0].rows.len(), 15);
        // A Broken Wand (1–3) raises DV 2 to 4: one die succeeds on 4..12, 9 of 12 faces.
        let wand = run(
            "hprpg",
            "appendix-10",
            json!({ "difficulty": 2, "catastrophe_range": 3 }),
        )
        .expect("runs");
        assert!(wand[0].caption.contains("DV 4"), "{}", wand[0].caption);
        assert_eq!(wand[0].rows[1][3], "3/4 (75.00%)");
    }
}

//! Appendix 10 (003-M10, A22, errata E003-1..5): the outcome table for a DV and catastrophe range,
//! rounded as the seed rounds, and the same exactly as an analysis.

use std::fmt::Write as _;

use num_integer::Integer;
use num_traits::{One, Zero};
use omen_core::{Limits, Probability, Weight};
use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Deserialize, Serialize};

use super::rules::{Check, HprpgError, HprpgOptions, MAX_DIFFICULTY, MIN_DIFFICULTY};

// ---------------------------------------------------------------------------------------------------
// Appendix 10 (003-M10, A22, E003-1..5).

/// The most dice Appendix 10 prints a row for.
pub const TABLE_MAX_DICE: usize = 14;

/// The DVs and catastrophe ranges of Appendix 10's 15 tables, identified by content (E003-1), in the
/// order this module prints them.
pub const TABLE_DIFFICULTIES: [i64; 5] = [4, 6, 8, 10, 12];
pub const TABLE_CATASTROPHE_RANGES: [i64; 3] = [1, 2, 3];

/// The column names, in order: net < 0, net = 0, net = 1..6, net ≥ 7.
pub const TABLE_COLUMNS: [&str; 9] = ["catastrophe", "failure", "1", "2", "3", "4", "5", "6", "7+"];

/// One row of an outcome table: the exact chance of each column for a pool of `dice`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableRow {
    /// 0 is the zero pool (E003-5).
    pub dice: usize,
    /// One probability per [`TABLE_COLUMNS`] entry.
    pub columns: [Probability; 9],
}

/// An Appendix 10 table: one DV and catastrophe range, rows for 0 to 14 dice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub difficulty: i64,
    pub catastrophe_range: i64,
    pub rows: Vec<TableRow>,
}

/// The Appendix 10 table for `difficulty` and catastrophe range 1..`catastrophe_range`, rows for 0
/// (the zero pool) to 14 dice, exactly. The difficulty is clamped as a check's is (003-M4), without
/// intractability.
///
/// # Errors
/// [`HprpgError::CatastropheRange`] outside 0..=11.
pub fn table(difficulty: i64, catastrophe_range: i64) -> Result<Table, HprpgError> {
    if !(MIN_DIFFICULTY..=MAX_DIFFICULTY).contains(&difficulty) {
        return Err(HprpgError::TableDifficulty(difficulty));
    }
    table_rows(difficulty, catastrophe_range, TABLE_MAX_DICE)
}

/// A DV as a GM gives it to a check (003-M2): at least 2. Above 12 it may legitimately be (a Passive
/// Perception of 14 is the DV of a sneak check) and goes through the clamp or the intractability
/// option (003-A4); below 2 only a formula can take it (NIHIL with Affinity 7), and a DV given as 0
/// is a mistake.
///
/// # Errors
/// [`HprpgError::Difficulty`] below 2.
pub fn given_difficulty(difficulty: i64) -> Result<i64, HprpgError> {
    if difficulty >= MIN_DIFFICULTY {
        Ok(difficulty)
    } else {
        Err(HprpgError::Difficulty(difficulty))
    }
}

/// As [`table`] with rows for 0 to `max_dice` dice (at most 14).
///
/// # Errors
/// [`HprpgError::CatastropheRange`] outside 0..=11; [`HprpgError::TableRows`] above 14.
pub fn table_rows(
    difficulty: i64,
    catastrophe_range: i64,
    max_dice: usize,
) -> Result<Table, HprpgError> {
    if max_dice > TABLE_MAX_DICE {
        return Err(HprpgError::TableRows(max_dice));
    }
    let limits = Limits::default();
    let options = HprpgOptions::default();
    let mut rows = Vec::with_capacity(max_dice + 1);
    let mut effective = difficulty;
    for dice in 0..=max_dice {
        let check = Check::new(
            dice as u64,
            difficulty,
            catastrophe_range,
            0,
            &options,
            &limits,
        )?;
        effective = check.difficulty();
        let net = check.net_distribution(&limits)?;
        let columns = std::array::from_fn(|column| match column {
            0 => net.probability_where(|&x| x < 0),
            8 => net.probability_where(|&x| x >= 7),
            k => net.probability(&(k as i64 - 1)),
        });
        rows.push(TableRow { dice, columns });
    }
    Ok(Table {
        difficulty: effective,
        catastrophe_range,
        rows,
    })
}

impl TableRow {
    /// The most net successes the row's pool can reach: one die for the zero pool.
    fn max_net(&self) -> usize {
        self.dice.max(1)
    }

    /// The cells as Appendix 10 prints them: "-" where a column needs more successes than the pool
    /// has dice, "<0.1" for every value below 0.01 % (E003-3, exact zeros included), otherwise the
    /// percentage to 2 significant figures with exact ties rounded up (E003-4).
    pub fn cells(&self) -> [String; 9] {
        std::array::from_fn(|column| {
            if column >= 2 && column - 1 > self.max_net() {
                "-".to_string()
            } else {
                percent_cell(&self.columns[column])
            }
        })
    }
}

impl Table {
    /// The table as markdown, in the seed's layout with one header row and the zero-pool row first;
    /// newline-terminated lines.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "Difficulty = {}, Catastrophe Range = 1-{}\n\n",
            self.difficulty, self.catastrophe_range
        );
        out.push_str("| Dice | Catastrophe | Failure | 1 | 2 | 3 | 4 | 5 | 6 | 7+ |\n");
        out.push_str("|---|---|---|---|---|---|---|---|---|---|\n");
        for row in &self.rows {
            let _ = writeln!(out, "| {} | {} |", row.dice, row.cells().join(" | "));
        }
        out
    }

    /// The table as JSON: `difficulty`, `catastrophe_range` and `rows`, each row its `dice` and one
    /// exact fraction `"num/den"` per column name.
    pub fn to_json(&self) -> String {
        let mut out = format!(
            "{{\"difficulty\":{},\"catastrophe_range\":{},\"rows\":[",
            self.difficulty, self.catastrophe_range
        );
        for (index, row) in self.rows.iter().enumerate() {
            if index > 0 {
                out.push(',');
            }
            let _ = write!(out, "{{\"dice\":{}", row.dice);
            for (name, p) in TABLE_COLUMNS.iter().zip(&row.columns) {
                let _ = write!(out, ",\"{name}\":\"{}\"", fraction(p));
            }
            out.push('}');
        }
        out.push_str("]}");
        out
    }
}

impl Serialize for TableRow {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1 + TABLE_COLUMNS.len()))?;
        map.serialize_entry("dice", &self.dice)?;
        for (name, p) in TABLE_COLUMNS.iter().zip(&self.columns) {
            map.serialize_entry(name, &fraction(p))?;
        }
        map.end()
    }
}

impl Serialize for Table {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut table = serializer.serialize_struct("Table", 3)?;
        table.serialize_field("difficulty", &self.difficulty)?;
        table.serialize_field("catastrophe_range", &self.catastrophe_range)?;
        table.serialize_field("rows", &self.rows)?;
        table.end()
    }
}

/// Every Appendix 10 table (DV 4, 6, 8, 10, 12 × range 1-1, 1-2, 1-3) as markdown, separated by blank
/// lines.
pub fn appendix_10() -> String {
    let mut out = String::new();
    for difficulty in TABLE_DIFFICULTIES {
        for range in TABLE_CATASTROPHE_RANGES {
            if !out.is_empty() {
                out.push('\n');
            }
            let table = table(difficulty, range).expect("the appendix's ranges are valid");
            out.push_str(&table.markdown());
        }
    }
    out
}

/// An exact probability as text in lowest terms, a whole number without a denominator.
pub use crate::analysis::fraction;

// ---------------------------------------------------------------------------------------------------
// The seed's rounding (E003-3, E003-4), decided on exact rationals.

fn pow10(exponent: u32) -> Weight {
    num_traits::pow(Weight::from(10u32), exponent as usize)
}

fn power_of_ten(exponent: i32) -> Probability {
    if exponent >= 0 {
        Probability::from_integer(pow10(exponent.unsigned_abs()))
    } else {
        Probability::new(Weight::one(), pow10(exponent.unsigned_abs()))
    }
}

/// A probability as an Appendix 10 cell: "<0.1" below 0.01 % (the seed's label for it, E003-3),
/// otherwise the percentage to 2 significant figures.
pub fn percent_cell(p: &Probability) -> String {
    let percent = p * Probability::from_integer(Weight::from(100u32));
    if percent < Probability::new(Weight::one(), Weight::from(100u32)) {
        "<0.1".to_string()
    } else {
        two_significant(&percent)
    }
}

/// A positive value rounded to 2 significant figures, exact ties up (E003-4), written as Appendix 10
/// writes numbers: plain decimals, trailing zeros and point dropped ("1", "0.4", "0.02"), small values
/// keeping two digits ("0.011"), values from 10 up as whole numbers ("18", "100").
///
/// # Panics
/// Never for a positive value; 0 has no significant figures and is written "0".
pub fn two_significant(value: &Probability) -> String {
    if value.is_zero() {
        return "0".to_string();
    }
    // 10^e ≤ value < 10^(e+1)
    let mut e: i32 = 0;
    while *value >= power_of_ten(e + 1) {
        e += 1;
    }
    while *value < power_of_ten(e) {
        e -= 1;
    }
    // m = round(value / 10^(e − 1)), two digits
    let shift = 1 - e;
    let (numerator, denominator) = if shift >= 0 {
        (
            value.numer() * pow10(shift.unsigned_abs()),
            value.denom().clone(),
        )
    } else {
        (
            value.numer().clone(),
            value.denom() * pow10(shift.unsigned_abs()),
        )
    };
    let (mut m, remainder) = numerator.div_rem(&denominator);
    if remainder * 2u32 >= denominator {
        m += 1u32;
    }
    if m == Weight::from(100u32) {
        m = Weight::from(10u32);
        e += 1;
    }
    let exponent = e - 1;
    let text = if exponent >= 0 {
        (m * pow10(exponent.unsigned_abs())).to_string()
    } else {
        let places = exponent.unsigned_abs() as usize;
        let digits = format!("{m:0>width$}", width = places + 1);
        let (whole, fraction) = digits.split_at(digits.len() - places);
        format!("{whole}.{fraction}")
    };
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ratio(n: u64, d: u64) -> Probability {
        Probability::new(Weight::from(n), Weight::from(d))
    }

    #[test]
    fn two_significant_figures_round_exact_ties_up() {
        assert_eq!(two_significant(&ratio(625, 100)), "6.3");
        assert_eq!(two_significant(&ratio(125, 10)), "13");
        assert_eq!(two_significant(&ratio(375, 10)), "38");
        assert_eq!(two_significant(&ratio(1, 1)), "1");
        assert_eq!(two_significant(&ratio(40, 100)), "0.4");
        assert_eq!(two_significant(&ratio(11, 1000)), "0.011");
        assert_eq!(two_significant(&ratio(995, 10)), "100");
        assert_eq!(two_significant(&ratio(25501, 10000)), "2.6");
    }

    #[test]
    fn cells_below_a_hundredth_of_a_percent_are_marked() {
        assert_eq!(percent_cell(&ratio(0, 1)), "<0.1");
        assert_eq!(percent_cell(&ratio(99, 1_000_000)), "<0.1");
        assert_eq!(percent_cell(&ratio(1, 10_000)), "0.01");
        assert_eq!(percent_cell(&ratio(1, 12)), "8.3");
    }
}

// ---------------------------------------------------------------------------------------------------
// Appendix 10 for any DV and catastrophe range, as an analysis (003-M10).

/// The inputs of the `appendix-10` analysis.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutcomeTableInputs {
    /// The DV as given (2..12); a catastrophe range reaching it raises it (003-M4).
    #[serde(default = "standard_difficulty")]
    #[schemars(range(min = 2, max = 12))]
    pub difficulty: i64,
    /// The catastrophe range 1..X (X = 1 by default, 3 with a Broken Wand; 0 for none).
    #[serde(default = "one")]
    #[schemars(range(min = 0, max = 11))]
    pub catastrophe_range: i64,
}

fn standard_difficulty() -> i64 {
    8
}

fn one() -> i64 {
    1
}

fn outcome_table(
    inputs: &serde_json::Value,
    _limits: &Limits,
) -> Result<Vec<crate::analysis::AnalysisTable>, String> {
    use crate::analysis::{AnalysisTable, decode_inputs, probability_cell};
    let OutcomeTableInputs {
        difficulty,
        catastrophe_range,
    } = decode_inputs(inputs)?;
    let found = table(difficulty, catastrophe_range).map_err(|e| e.to_string())?;
    let mut columns = vec!["dice"];
    columns.extend([
        "catastrophe",
        "failure",
        "net 1",
        "net 2",
        "net 3",
        "net 4",
        "net 5",
        "net 6",
        "net 7+",
    ]);
    let mut out = AnalysisTable::new(
        format!(
            "P(each outcome) against DV {} with catastrophe range 1–{} (exact; 0 dice is the zero pool)",
            found.difficulty, found.catastrophe_range
        ),
        &columns,
    );
    for row in &found.rows {
        let mut cells = vec![row.dice.to_string()];
        cells.extend(row.columns.iter().map(probability_cell));
        out.row(cells);
    }
    Ok(vec![out])
}

pub(super) const APPENDIX_10: crate::analysis::Analysis = crate::analysis::Analysis {
    name: "appendix-10",
    spec_items: &["003-M3", "003-M4", "003-M5", "003-M6", "003-M10"],
    summary: "Appendix 10 for any DV and catastrophe range: the exact chance of each outcome for 0 to \
              14 dice",
    inputs: crate::analysis::inputs_schema::<OutcomeTableInputs>,
    run: outcome_table,
    answer: None,
};

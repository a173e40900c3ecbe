//! Reference tables as a designer exports them: CSV (exact fractions, for a spreadsheet) and
//! Markdown, from the JSON answer each table command already gives, so the three formats cannot
//! disagree.

use std::io::Write;

use serde_json::Value;

/// How a reference table is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TableFormat {
    /// Text to read.
    Text,
    /// A Markdown table, exact fractions.
    Markdown,
    /// CSV with a heading line, exact fractions.
    Csv,
    /// One JSON object on one line, exact fractions as strings.
    Json,
}

/// Prints an answer as `format` asks (`table` makes its table from its JSON), or reports its
/// error; `false` for bad input.
///
/// # Errors
/// Writing the result failed.
pub fn print(
    format: TableFormat,
    result: Result<(String, Value), String>,
    table: impl FnOnce(&Value) -> Table,
) -> anyhow::Result<bool> {
    let (text, json) = match result {
        Ok(answer) => answer,
        Err(message) => {
            crate::fit::error(message);
            return Ok(false);
        }
    };
    let mut out = crate::output::result();
    let width = crate::fit::width();
    match format {
        TableFormat::Text => out.write_all(crate::fit::wrap(&text, width).as_bytes())?,
        TableFormat::Markdown => {
            let markdown = table(&json).markdown();
            out.write_all(crate::fit::markdown_tables(&markdown, width).as_bytes())?
        }
        TableFormat::Csv => out.write_all(table(&json).csv().as_bytes())?,
        TableFormat::Json => writeln!(out, "{json}")?,
    }
    Ok(true)
}

/// A heading and rows of cells.
#[derive(Debug, PartialEq)]
pub struct Table {
    pub heading: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The rows of a JSON answer: its array `rows` (or the answer itself when it is an array) of
    /// objects, one column per name in `columns` (a dotted name reads a nested field; every field
    /// of the first row, in its order, when `columns` is empty), each row led by the answer's
    /// other plain fields (such as the `modifier` it was computed for). An answer without rows is
    /// one `field,value` line per plain field, nested ones named with dots.
    pub fn from_json(answer: &Value, columns: &[&str]) -> Table {
        let rows = match answer {
            Value::Array(rows) => Some(rows.as_slice()),
            other => other
                .get("rows")
                .and_then(Value::as_array)
                .map(Vec::as_slice),
        };
        match rows {
            Some(rows) if rows.iter().all(Value::is_object) => {
                Table::of_rows(answer, rows, columns)
            }
            _ => Table::of_fields(answer),
        }
    }

    fn of_rows(answer: &Value, rows: &[Value], columns: &[&str]) -> Table {
        let mut names: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
        if names.is_empty() {
            names = fields(rows.first().unwrap_or(&Value::Null))
                .into_iter()
                .map(|(name, _)| name)
                .collect();
        }
        // The answer's plain fields apply to every row: each row repeats them, so it reads alone.
        let leading: Vec<(String, String)> = match answer {
            Value::Object(map) => map
                .iter()
                .filter(|(name, value)| *name != "rows" && !value.is_object() && !value.is_array())
                .map(|(name, value)| (name.clone(), cell(value)))
                .collect(),
            _ => Vec::new(),
        };
        let mut heading: Vec<String> = leading.iter().map(|(name, _)| name.clone()).collect();
        heading.extend(names.iter().cloned());
        let rows = rows
            .iter()
            .map(|row| {
                let mut cells: Vec<String> = leading.iter().map(|(_, v)| v.clone()).collect();
                cells.extend(names.iter().map(|name| {
                    name.split('.')
                        .try_fold(row, |value, key| value.get(key))
                        .map_or_else(String::new, cell)
                }));
                cells
            })
            .collect();
        Table { heading, rows }
    }

    fn of_fields(answer: &Value) -> Table {
        Table {
            heading: vec!["field".to_string(), "value".to_string()],
            rows: fields(answer)
                .into_iter()
                .map(|(name, value)| vec![name, value])
                .collect(),
        }
    }

    /// CSV: a field with a comma, a quote or a line break is quoted.
    pub fn csv(&self) -> String {
        let line = |cells: &[String]| -> String {
            let cells: Vec<String> = cells.iter().map(|c| crate::odds::csv_field(c)).collect();
            format!("{}\n", cells.join(","))
        };
        let mut out = line(&self.heading);
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }

    /// A Markdown table; `|` and line breaks in a cell are escaped.
    pub fn markdown(&self) -> String {
        let line = |cells: &[String]| -> String {
            let cells: Vec<String> = cells
                .iter()
                .map(|c| c.replace('|', "\\|").replace('\n', " "))
                .collect();
            format!("| {} |\n", cells.join(" | "))
        };
        let mut out = line(&self.heading);
        out.push_str(&format!("|{}\n", "---|".repeat(self.heading.len())));
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }
}

/// A value as a cell: a string as it is, anything else as its JSON text.
fn cell(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The fields of `value`, nested objects' as `outer.inner`; arrays are one cell.
fn fields(value: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack: Vec<(String, &Value)> = vec![(String::new(), value)];
    // Depth first, in the objects' order; an explicit stack, since the depth is the answer's.
    while let Some((prefix, value)) = stack.pop() {
        match value {
            Value::Object(map) => {
                for (name, inner) in map.iter().rev() {
                    let name = if prefix.is_empty() {
                        name.clone()
                    } else {
                        format!("{prefix}.{name}")
                    };
                    stack.push((name, inner));
                }
            }
            other => out.push((prefix, cell(other))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn rows_take_the_named_columns_led_by_the_answers_fields() {
        let answer = json!({"penalty": 1, "rows": [
            {"dice": 1, "success": "1/6", "odd": {"x": "1/2"}},
            {"dice": 2, "success": "11/36"},
        ]});
        let table = Table::from_json(&answer, &["dice", "success", "odd.x"]);
        assert_eq!(table.heading, ["penalty", "dice", "success", "odd.x"]);
        assert_eq!(table.rows[0], ["1", "1", "1/6", "1/2"]);
        assert_eq!(table.rows[1], ["1", "2", "11/36", ""]);
        assert_eq!(
            table.csv(),
            "penalty,dice,success,odd.x\n1,1,1/6,1/2\n1,2,11/36,\n"
        );
        assert_eq!(
            table.markdown(),
            "| penalty | dice | success | odd.x |\n|---|---|---|---|\n| 1 | 1 | 1/6 | 1/2 |\n| 1 | 2 | 11/36 |  |\n"
        );
    }

    #[test]
    fn an_answer_without_rows_is_field_and_value() {
        let answer = json!({"modifier": -2, "bad": {"range": "1-12", "probability": "6/25"}});
        let table = Table::from_json(&answer, &[]);
        assert_eq!(
            table.csv(),
            "field,value\nbad.probability,6/25\nbad.range,1-12\nmodifier,-2\n"
        );
    }

    #[test]
    fn cells_with_commas_are_quoted() {
        let answer = json!([{"text": "lost, and gone"}]);
        assert_eq!(
            Table::from_json(&answer, &[]).csv(),
            "text\n\"lost, and gone\"\n"
        );
    }
}

//! Tables as a designer exports them: CSV (exact fractions, for a spreadsheet) and Markdown.

/// How an analysis is printed.
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

/// A heading and rows of text cells.
#[derive(Debug, PartialEq)]
pub struct Table {
    pub heading: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
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

//! Several distributions side by side (`omen prob EXPR EXPR…`, `--param NAME=A..B`): one row per
//! outcome and one column per distribution, each cell the probability the `--view` asks for, as text,
//! Markdown or CSV; `--transpose` swaps rows and columns. The same numbers feed `omen plot`.
//!
//! Cells are exact fractions (`--exact`, and always in CSV) or percentages for reading. An outcome one
//! distribution cannot show still has a row: its P(=) there is 0, and its P(≥) and P(≤) are what they are.

use std::io::{self, Write};

use clap::ValueEnum;
use omen_core::{Probability, Weight};
use omen_lang::{Value, ValueDistribution};

/// Which probability each cell shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum View {
    /// P(X = outcome).
    Eq,
    /// P(X ≥ outcome): at least.
    Ge,
    /// P(X ≤ outcome): at most.
    Le,
    /// P(X > outcome): more than.
    Gt,
    /// P(X < outcome): less than.
    Lt,
}

impl View {
    /// The column heading's symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            View::Eq => "=",
            View::Ge => "≥",
            View::Le => "≤",
            View::Gt => ">",
            View::Lt => "<",
        }
    }
}

/// One distribution, its outcomes in order with their weights, and what names it.
pub struct Series {
    pub label: String,
    entries: Vec<(Value, Weight)>,
    /// `below[i]`: the weight of the outcomes before entry `i`; one more element, the total, at the end.
    below: Vec<Weight>,
}

impl Series {
    pub fn new(label: String, distribution: &ValueDistribution) -> Self {
        let entries: Vec<(Value, Weight)> = match distribution {
            ValueDistribution::Int(d) => d
                .entries()
                .iter()
                .map(|(x, w)| (Value::Int(*x), w.clone()))
                .collect(),
            ValueDistribution::Bool(d) => d
                .entries()
                .iter()
                .map(|(x, w)| (Value::Bool(*x), w.clone()))
                .collect(),
            ValueDistribution::Values(d) => d.entries().to_vec(),
        };
        let mut below = Vec::with_capacity(entries.len() + 1);
        let mut sum = Weight::default();
        below.push(sum.clone());
        for (_, w) in &entries {
            sum += w;
            below.push(sum.clone());
        }
        Series {
            label,
            entries,
            below,
        }
    }

    fn total(&self) -> &Weight {
        self.below.last().expect("at least the zero")
    }

    /// The probability `view` gives `outcome`, exactly.
    pub fn probability(&self, view: View, outcome: &Value) -> Probability {
        let at = self.entries.partition_point(|(x, _)| x < outcome);
        let less = &self.below[at];
        let equal = match self.entries.get(at) {
            Some((x, w)) if x == outcome => w.clone(),
            _ => Weight::default(),
        };
        let total = self.total();
        let weight = match view {
            View::Eq => equal,
            View::Lt => less.clone(),
            View::Le => less + &equal,
            View::Ge => total - less,
            View::Gt => total - less - &equal,
        };
        Probability::new(weight, total.clone())
    }

    /// The outcomes, in order.
    pub fn outcomes(&self) -> impl Iterator<Item = &Value> {
        self.entries.iter().map(|(x, _)| x)
    }
}

/// Distributions side by side under one view.
pub struct Comparison {
    pub series: Vec<Series>,
    pub view: View,
    /// Every outcome of any series, in order.
    pub outcomes: Vec<Value>,
}

impl Comparison {
    pub fn new(series: Vec<Series>, view: View) -> Self {
        let mut outcomes: Vec<Value> = series.iter().flat_map(|s| s.outcomes().cloned()).collect();
        outcomes.sort();
        outcomes.dedup();
        Comparison {
            series,
            view,
            outcomes,
        }
    }

    /// `[outcome][series]`, exact.
    pub fn cells(&self) -> Vec<Vec<Probability>> {
        self.outcomes
            .iter()
            .map(|x| {
                self.series
                    .iter()
                    .map(|s| s.probability(self.view, x))
                    .collect()
            })
            .collect()
    }

    /// The table as rows of text cells, the heading first, transposed if asked, each cell a fraction
    /// (`exact`) or a percentage.
    fn grid(&self, exact: bool, transpose: bool) -> Vec<Vec<String>> {
        let cells = self.cells();
        let show = |p: &Probability| {
            if exact {
                fraction(p)
            } else {
                crate::odds::percent_of(p)
            }
        };
        let corner = format!("P({})", self.view.symbol());
        let mut grid = Vec::new();
        if transpose {
            let mut heading = vec![corner];
            heading.extend(self.outcomes.iter().map(Value::to_string));
            grid.push(heading);
            for (s, series) in self.series.iter().enumerate() {
                let mut row = vec![series.label.clone()];
                row.extend(cells.iter().map(|r| show(&r[s])));
                grid.push(row);
            }
        } else {
            let mut heading = vec![format!("outcome {corner}")];
            heading.extend(self.series.iter().map(|s| s.label.clone()));
            grid.push(heading);
            for (x, row) in self.outcomes.iter().zip(&cells) {
                let mut line = vec![x.to_string()];
                line.extend(row.iter().map(show));
                grid.push(line);
            }
        }
        grid
    }

    /// Aligned columns: the first left-aligned, the rest right-aligned. A table wider than `width`
    /// is printed in blocks of columns, one under the other, each repeating the first column.
    ///
    /// # Errors
    /// Writing to `out` failed.
    pub fn text(
        &self,
        out: &mut dyn Write,
        exact: bool,
        transpose: bool,
        width: usize,
    ) -> io::Result<()> {
        let grid = self.grid(exact, transpose);
        let columns = grid.iter().map(Vec::len).max().unwrap_or(0);
        let mut widths = vec![0; columns];
        for row in &grid {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        // Blocks of the columns after the first, as many as fit beside it (at least one).
        let mut blocks: Vec<std::ops::Range<usize>> = Vec::new();
        let mut start = 1;
        while start < columns {
            let mut used = widths[0];
            let mut end = start;
            while end < columns && (end == start || used + 2 + widths[end] <= width) {
                used += 2 + widths[end];
                end += 1;
            }
            blocks.push(start..end);
            start = end;
        }
        if blocks.is_empty() {
            blocks.push(1..1);
        }
        for (b, block) in blocks.iter().enumerate() {
            if b > 0 {
                writeln!(out)?;
            }
            for row in &grid {
                let mut line = String::new();
                let first = row.first().map_or("", String::as_str);
                line.push_str(first);
                line.extend(std::iter::repeat_n(
                    ' ',
                    widths[0].saturating_sub(first.chars().count()),
                ));
                for c in block.clone() {
                    let cell = row.get(c).map_or("", String::as_str);
                    line.push_str("  ");
                    line.extend(std::iter::repeat_n(
                        ' ',
                        widths[c].saturating_sub(cell.chars().count()),
                    ));
                    line.push_str(cell);
                }
                writeln!(out, "{}", line.trim_end())?;
            }
        }
        Ok(())
    }

    /// A Markdown table.
    ///
    /// # Errors
    /// Writing to `out` failed.
    pub fn markdown(&self, out: &mut dyn Write, exact: bool, transpose: bool) -> io::Result<()> {
        let grid = self.grid(exact, transpose);
        for (i, row) in grid.iter().enumerate() {
            let cells: Vec<String> = row.iter().map(|c| c.replace('|', "\\|")).collect();
            writeln!(out, "| {} |", cells.join(" | "))?;
            if i == 0 {
                let rule: Vec<&str> = (0..row.len())
                    .map(|c| if c == 0 { ":--" } else { "--:" })
                    .collect();
                writeln!(out, "|{}|", rule.join("|"))?;
            }
        }
        Ok(())
    }

    /// CSV with exact fractions.
    ///
    /// # Errors
    /// Writing to `out` failed.
    pub fn csv(&self, out: &mut dyn Write, transpose: bool) -> io::Result<()> {
        let mut grid = self.grid(true, transpose);
        if let Some(first) = grid.first_mut().and_then(|row| row.first_mut()) {
            *first = if transpose { "expression" } else { "outcome" }.to_string();
        }
        for row in grid {
            let cells: Vec<String> = row.iter().map(|c| crate::odds::csv_field(c)).collect();
            writeln!(out, "{}", cells.join(","))?;
        }
        Ok(())
    }
}

fn fraction(p: &Probability) -> String {
    let p = p.reduced();
    if p.denom() == &Weight::from(1u32) {
        p.numer().to_string()
    } else {
        format!("{}/{}", p.numer(), p.denom())
    }
}

#[cfg(test)]
mod tests {
    use omen_lang::{Options, compile, exact};

    use super::*;

    fn series(expression: &str) -> Series {
        let options = Options::default();
        let compiled = compile(expression, &options).expect("compiles");
        let result = exact(&compiled.program, &options.limits).expect("computes");
        Series::new(expression.to_string(), &result.distribution)
    }

    fn p(n: u32, d: u32) -> Probability {
        Probability::new(Weight::from(n), Weight::from(d))
    }

    /// Each view counted by brute force over the 36 rolls of 2d6.
    #[test]
    fn views_match_counting_the_rolls() {
        let s = series("2d6");
        let rolls: Vec<i64> = (1..=6).flat_map(|a| (1..=6).map(move |b| a + b)).collect();
        for x in 0..=14 {
            let count = |f: &dyn Fn(i64) -> bool| rolls.iter().filter(|&&r| f(r)).count() as u32;
            let v = Value::Int(x);
            assert_eq!(s.probability(View::Eq, &v), p(count(&|r| r == x), 36));
            assert_eq!(s.probability(View::Ge, &v), p(count(&|r| r >= x), 36));
            assert_eq!(s.probability(View::Le, &v), p(count(&|r| r <= x), 36));
            assert_eq!(s.probability(View::Gt, &v), p(count(&|r| r > x), 36));
            assert_eq!(s.probability(View::Lt, &v), p(count(&|r| r < x), 36));
        }
    }

    #[test]
    fn outcomes_are_the_union_and_missing_ones_are_zero() {
        let c = Comparison::new(vec![series("1d4"), series("1d6+2")], View::Eq);
        let outcomes: Vec<i64> = c
            .outcomes
            .iter()
            .map(|v| match v {
                Value::Int(n) => *n,
                _ => panic!(),
            })
            .collect();
        assert_eq!(outcomes, (1..=8).collect::<Vec<_>>());
        let cells = c.cells();
        assert_eq!(cells[0], [p(1, 4), p(0, 1)]);
        assert_eq!(cells[7], [p(0, 1), p(1, 6)]);
        let mut csv = Vec::new();
        c.csv(&mut csv, false).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        assert!(csv.starts_with("outcome,1d4,1d6+2\n1,1/4,0\n"), "{csv}");
        let mut csv = Vec::new();
        c.csv(&mut csv, true).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        assert!(
            csv.starts_with("expression,1,2,3,4,5,6,7,8\n1d4,1/4,1/4,1/4,1/4,0,0,0,0\n"),
            "{csv}"
        );
    }
}

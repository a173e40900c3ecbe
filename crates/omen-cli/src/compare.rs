//! Several distributions side by side (`omen prob EXPR EXPR…`, `--param NAME=A..B`): one row per
//! outcome and one column per distribution, each cell the probability the `--view` asks for, as text,
//! Markdown or CSV; `--transpose` swaps rows and columns. The same numbers feed `omen plot`.
//!
//! Cells are exact fractions (`--exact`, and always in CSV) or percentages for reading. An outcome one
//! distribution cannot show still has a row: its P(=) there is 0, and its P(≥) and P(≤) are what they are.
//! Text and Markdown end with each distribution's mean and standard deviation; labels are listed in
//! the scripts' order (see `omen_lang::labels`).

use std::io::{self, Write};

use clap::ValueEnum;
use num_bigint::BigInt;
use num_rational::Ratio;
use omen_core::{Probability, Weight};
use omen_lang::{Value, ValueDistribution};

/// Which probability each cell shows. The words the help gives for each (`at-least`, …) are
/// accepted as well, so a guess from the help is not answered with a wrong spelling's suggestion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum View {
    /// P(X = outcome).
    #[value(aliases = ["equal", "exactly"])]
    Eq,
    /// P(X ≥ outcome): at least.
    #[value(aliases = ["atleast", "at-least", "at_least"])]
    Ge,
    /// P(X ≤ outcome): at most.
    #[value(aliases = ["atmost", "at-most", "at_most"])]
    Le,
    /// P(X > outcome): more than.
    #[value(aliases = ["morethan", "more-than", "more_than"])]
    Gt,
    /// P(X < outcome): less than.
    #[value(aliases = ["lessthan", "less-than", "less_than"])]
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

    /// The name `--view` takes.
    pub fn name(self) -> &'static str {
        match self {
            View::Eq => "eq",
            View::Ge => "ge",
            View::Le => "le",
            View::Gt => "gt",
            View::Lt => "lt",
        }
    }
}

/// The statistics rows (or, transposed, columns) after the outcomes.
const STATISTICS: [&str; 2] = ["mean", "standard deviation"];

/// One distribution, its outcomes in order with their weights, and what names it.
pub struct Series {
    pub label: String,
    entries: Vec<(Value, Weight)>,
    /// `below[i]`: the weight of the outcomes before entry `i`; one more element, the total, at the end.
    below: Vec<Weight>,
    /// The outcomes in the order to list them: the script's for labels, else ascending.
    listed: Vec<Value>,
    /// Mean and variance, for numbers (true/false count as 1/0).
    moments: Option<(Ratio<BigInt>, Ratio<BigInt>)>,
}

impl Series {
    /// `labels` is the order the script writes its labels in ([`omen_lang::ExactResult::labels`]),
    /// which the table keeps.
    pub fn new(label: String, distribution: &ValueDistribution, labels: &[Value]) -> Self {
        let moments = match distribution {
            ValueDistribution::Bool(d) => {
                let stats = d.map(|&b| i64::from(b)).statistics();
                Some((stats.mean, stats.variance))
            }
            other => other.number_statistics().map(|s| (s.mean, s.variance)),
        };
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
        let listed = if omen_lang::labels::any_label(entries.iter().map(|(x, _)| x)) {
            omen_lang::labels::in_written_order(&entries, labels)
                .into_iter()
                .map(|(x, _)| x)
                .collect()
        } else {
            entries.iter().map(|(x, _)| x.clone()).collect()
        };
        Series {
            label,
            entries,
            below,
            listed,
            moments,
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

    fn has_labels(&self) -> bool {
        omen_lang::labels::any_label(self.outcomes())
    }

    /// The mean and standard deviation as table cells: the exact mean with `exact`, else both to
    /// two places; `-` for outcomes that are not numbers.
    fn statistics_cells(&self, exact: bool) -> [String; 2] {
        let Some((mean, variance)) = &self.moments else {
            return ["-".to_string(), "-".to_string()];
        };
        let mean = if exact || mean.is_integer() {
            if mean.is_integer() {
                mean.numer().to_string()
            } else {
                format!("{}/{}", mean.numer(), mean.denom())
            }
        } else {
            crate::float::approximate(crate::float::ratio_to_f64(mean), 2)
        };
        let deviation = crate::float::standard_deviation(variance);
        [mean, crate::float::approximate(deviation, 2)]
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
        let outcomes = if series.iter().any(Series::has_labels) {
            let each: Vec<Vec<Value>> = series.iter().map(|s| s.listed.clone()).collect();
            omen_lang::labels::union_in_order(&each)
        } else {
            let mut outcomes: Vec<Value> =
                series.iter().flat_map(|s| s.outcomes().cloned()).collect();
            outcomes.sort();
            outcomes.dedup();
            outcomes
        };
        Comparison {
            series,
            view,
            outcomes,
        }
    }

    /// Why the view cannot be shown: labels have no order for P(≥), P(≤), P(>) or P(<) to follow.
    pub fn unordered_view(&self) -> Option<String> {
        let labels = self.series.iter().any(Series::has_labels);
        (labels && self.view != View::Eq).then(|| {
            format!(
                "--view {} compares outcomes, and labels have no order\n  = help: use --view eq \
                 (the default), or give the outcomes numbers",
                self.view.name()
            )
        })
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
    fn grid(&self, exact: bool, transpose: bool, statistics: bool) -> Vec<Vec<String>> {
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
        // Statistics only when some distribution has them, and never in CSV, whose rows are
        // outcomes only.
        let statistics: Option<Vec<[String; 2]>> =
            (statistics && self.series.iter().any(|s| s.moments.is_some())).then(|| {
                self.series
                    .iter()
                    .map(|s| s.statistics_cells(exact))
                    .collect()
            });
        if transpose {
            let mut heading = vec![corner];
            heading.extend(self.outcomes.iter().map(Value::to_string));
            if statistics.is_some() {
                heading.extend(STATISTICS.map(String::from));
            }
            grid.push(heading);
            for (s, series) in self.series.iter().enumerate() {
                let mut row = vec![series.label.clone()];
                row.extend(cells.iter().map(|r| show(&r[s])));
                if let Some(statistics) = &statistics {
                    row.extend(statistics[s].iter().cloned());
                }
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
            for (i, name) in STATISTICS.iter().enumerate() {
                if let Some(statistics) = &statistics {
                    let mut line = vec![name.to_string()];
                    line.extend(statistics.iter().map(|cells| cells[i].clone()));
                    grid.push(line);
                }
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
        let grid = self.grid(exact, transpose, true);
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
        let grid = self.grid(exact, transpose, true);
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
        let mut grid = self.grid(true, transpose, false);
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
        Series::new(expression.to_string(), &result.distribution, &result.labels)
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

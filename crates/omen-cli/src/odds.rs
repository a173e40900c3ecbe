//! The odds report of `omen prob`: one row per outcome with exact P(=), P(≥) and P(≤), then the
//! statistics, as an aligned table, Markdown, CSV or JSON.
//!
//! Fractions are reduced to lowest terms here, for display only (the engine keeps raw weights), and
//! written `num/den`, or just `num` when the denominator is 1 (`"7"`, not `"7/1"`). Percentages and the
//! bar are floats and only ever for display. A true/false result lists `false` before `true`; its
//! statistics count true as 1, so its mean is P(true). Labels are listed in the order the script
//! writes them, without P(≥) and P(≤), which no order of labels supports (see `omen_lang::labels`);
//! tuples in the language's order of values (member by member), which P(≥) and P(≤) follow. Both get
//! only their mode; their outcome column is aligned left, as text is. In JSON a label is a string and
//! a tuple an array.
//!
//! Rows are computed one at a time while they are written (the table alone collects its cells first, for
//! the column widths), with a constant amount of big-integer work each: 1000d6, 5001 outcomes over a
//! 2600-bit total, prints in a fraction of a second, and output far larger than memory would like
//! streams out instead of piling up.

use std::io::{self, Write};

use num_bigint::BigInt;
use num_rational::Ratio;
use num_traits::One;
use omen_core::{Distribution, Probability, Weight, probability_to_f64};
use omen_lang::{ExactResult, Value, ValueDistribution};

use crate::float::{ratio_to_f64, standard_deviation};
use crate::fraction::Fractions;

/// Width of the longest bar in the table, in terminal cells, when the terminal has room.
const BAR_WIDTH: usize = 30;

/// The bar is never narrower than this: a table squeezed further wraps instead of losing its bar.
const MIN_BAR_WIDTH: usize = 4;

/// Characters of a fraction a warning shows whole; a longer one is shown as a decimal.
const WARNING_FRACTION: usize = 40;

/// Modes listed by the text and Markdown statistics; JSON lists them all.
const MODES_LISTED: usize = 10;

/// The table's columns, the fullest first: P(≤) and then P(≥) are left out when the terminal is
/// too narrow for them.
const COLUMN_SETS: [&[usize]; 4] = [
    &[0, 1, 2, 3, 4, 5, 6],
    &[0, 1, 2, 3, 4],
    &[0, 1, 2],
    &[0, 2],
];

/// Places of the decimal approximations unless `--decimals` says otherwise.
pub const DEFAULT_DECIMALS: usize = 4;

/// How the text table is fitted to the screen.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// Columns available: `COLUMNS`, else the terminal's width, else 100.
    pub width: usize,
    /// Keep exact fractions however wide they make the table (`--exact`).
    pub exact: bool,
    /// Places of the decimals shown instead of long fractions, and of approximations (`--decimals`).
    pub decimals: usize,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            width: 100,
            exact: false,
            decimals: DEFAULT_DECIMALS,
        }
    }
}

/// The partial blocks, in eighths of a cell: index n draws n/8.
const PARTIAL_BLOCKS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/// An upper bound on the bytes `format` prints for `result`, from the sizes of its weights and without
/// rendering anything: each row holds three fractions no longer than twice the total's digits, a
/// percentage or three, the outcome and, in the table, a bar.
pub fn output_bound(result: &ExactResult, format: crate::args::ProbFormat) -> u128 {
    let (rows, total_bits, outcome_chars): (u128, u64, u128) = match &result.distribution {
        ValueDistribution::Int(d) => (d.len() as u128, d.total().bits(), 21),
        ValueDistribution::Bool(d) => (d.len() as u128, d.total().bits(), 5),
        ValueDistribution::Values(d) => {
            let longest = d.outcomes().map(|v| v.to_string().len()).max().unwrap_or(0);
            (d.len() as u128, d.total().bits(), longest as u128 + 2)
        }
    };
    // Decimal digits of a number of `total_bits` bits, rounded up: log10(2) < 0.30103.
    let digits = u128::from(total_bits) * 30_103 / 100_000 + 1;
    let fractions = 3 * (2 * digits + 1);
    let per_row = match format {
        crate::args::ProbFormat::Text => {
            fractions + outcome_chars + 3 * 12 + 3 * BAR_WIDTH as u128 + 20
        }
        _ => fractions + outcome_chars + 3 * 24 + 80,
    };
    // The statistics: mean and variance as fractions over up to twice the total's digits.
    rows * per_row + 8 * digits + 4096
}

/// A probability as shown: the fraction in lowest terms, and a float for percentages and bars.
struct Shown {
    fraction: String,
    value: f64,
}

impl Shown {
    fn of(p: &Probability) -> Self {
        Shown {
            fraction: fraction(p),
            value: probability_to_f64(p),
        }
    }

    fn weight(fractions: &mut Fractions, weight: &Weight) -> Self {
        Shown {
            fraction: fractions.text(weight),
            value: fractions.float(weight),
        }
    }
}

/// One outcome with its probabilities.
struct Row {
    outcome: Value,
    probability: Shown,
    at_least: Shown,
    at_most: Shown,
}

/// The rows of a distribution, computed as they are asked for.
struct Rows<'a, T, F> {
    entries: std::slice::Iter<'a, (T, Weight)>,
    total: &'a Weight,
    /// The weight of the outcomes already passed.
    below: Weight,
    fractions: Fractions,
    value: F,
}

impl<'a, T: Ord + Clone, F: Fn(&T) -> Value> Rows<'a, T, F> {
    fn new(d: &'a Distribution<T>, value: F) -> Self {
        Rows::over(d.entries(), d.total(), value)
    }

    /// The rows of `entries` in the order given, `total` their weight.
    fn over(entries: &'a [(T, Weight)], total: &'a Weight, value: F) -> Self {
        Rows {
            entries: entries.iter(),
            total,
            below: Weight::default(),
            fractions: Fractions::over(total),
            value,
        }
    }
}

impl<T, F: Fn(&T) -> Value> Iterator for Rows<'_, T, F> {
    type Item = Row;

    fn next(&mut self) -> Option<Row> {
        let (outcome, weight) = self.entries.next()?;
        let at_least = self.total - &self.below;
        self.below += weight;
        Some(Row {
            outcome: (self.value)(outcome),
            probability: Shown::weight(&mut self.fractions, weight),
            at_least: Shown::weight(&mut self.fractions, &at_least),
            at_most: Shown::weight(&mut self.fractions, &self.below),
        })
    }
}

/// Statistics that need numbers: a number result, or true/false counted as 0/1.
struct Moments {
    mean: Ratio<BigInt>,
    variance: Ratio<BigInt>,
    standard_deviation: f64,
    median: Value,
}

fn moments(d: &Distribution<i64>, as_value: fn(i64) -> Value) -> Moments {
    let stats = d.statistics();
    Moments {
        standard_deviation: standard_deviation(&stats.variance),
        mean: stats.mean,
        variance: stats.variance,
        median: as_value(stats.median),
    }
}

/// The outcomes of greatest weight, ascending; weights compared exactly, never as floats.
fn modes<T: Ord + Clone>(d: &Distribution<T>, value: impl Fn(&T) -> Value) -> Vec<Value> {
    let largest = d.entries().iter().map(|(_, w)| w).max();
    d.entries()
        .iter()
        .filter(|(_, w)| Some(w) == largest)
        .map(|(outcome, _)| value(outcome))
        .collect()
}

/// An exact result ready to render.
pub struct Odds<'a> {
    expression: &'a str,
    distribution: &'a ValueDistribution,
    /// `None` for results that are not numbers or true/false (labels, tuples, mixes).
    moments: Option<Moments>,
    /// The outcomes of greatest probability, ascending.
    modes: Vec<Value>,
    expected_steps: Option<&'a Ratio<BigInt>>,
    depth_limit: Shown,
    critical_success: Option<Shown>,
    critical_failure: Option<Shown>,
    /// P(some set of matching dice), for dice marked `m` or `mt`.
    matched: Option<Shown>,
    /// Why a program with critical marks has no P(critical) here.
    critical_not_computed: Option<&'static str>,
    explode_depth: u64,
    /// How the expression was read, for the JSON report.
    reading: Option<&'a str>,
    /// Outcomes with labels, in the script's order (see `omen_lang::labels`): they have no cumulative
    /// probabilities. `None` for outcomes in their own order.
    labelled: Option<Vec<(Value, Weight)>>,
}

impl<'a> Odds<'a> {
    /// With the canonical reading of the expression, reported in JSON as `reading`.
    pub fn with_reading(mut self, reading: &'a str) -> Self {
        self.reading = Some(reading);
        self
    }

    /// `explode_depth` is the limit the result was computed under, named when the limit was reached.
    pub fn new(expression: &'a str, result: &'a ExactResult, explode_depth: u64) -> Self {
        let (moments, modes) = match &result.distribution {
            ValueDistribution::Int(d) => {
                (Some(moments(d, Value::Int)), modes(d, |&n| Value::Int(n)))
            }
            ValueDistribution::Bool(d) => (
                Some(moments(&d.map(|&b| i64::from(b)), |n| Value::Bool(n != 0))),
                modes(d, |&b| Value::Bool(b)),
            ),
            ValueDistribution::Values(d) => (
                // Numbers with fractions (real division) have moments too; labels and tuples do not.
                result
                    .distribution
                    .number_statistics()
                    .map(|stats| Moments {
                        standard_deviation: standard_deviation(&stats.variance),
                        mean: stats.mean,
                        variance: stats.variance,
                        median: stats.median,
                    }),
                modes(d, Value::clone),
            ),
        };
        Odds {
            expression,
            distribution: &result.distribution,
            moments,
            modes,
            expected_steps: result.expected_steps.as_ref(),
            depth_limit: Shown::of(&result.truncated.reduced()),
            critical_success: result.criticals.success.as_ref().map(Shown::of),
            critical_failure: result.criticals.failure.as_ref().map(Shown::of),
            matched: result.criticals.matched.as_ref().map(Shown::of),
            critical_not_computed: result.criticals.not_computed,
            explode_depth,
            reading: None,
            labelled: match &result.distribution {
                ValueDistribution::Values(d) if omen_lang::labels::any_label(d.outcomes()) => Some(
                    omen_lang::labels::in_written_order(d.entries(), &result.labels),
                ),
                _ => None,
            },
        }
    }

    /// Labels and tuples read as text, so their column is aligned left; numbers and true/false right.
    fn outcomes_are_text(&self) -> bool {
        matches!(self.distribution, ValueDistribution::Values(_)) && self.moments.is_none()
    }

    fn rows(&self) -> Box<dyn Iterator<Item = Row> + '_> {
        if let Some(entries) = &self.labelled {
            let total = self.distribution.total();
            return Box::new(Rows::over(entries, total, Value::clone));
        }
        match self.distribution {
            ValueDistribution::Int(d) => Box::new(Rows::new(d, |&n| Value::Int(n))),
            ValueDistribution::Bool(d) => Box::new(Rows::new(d, |&b| Value::Bool(b))),
            ValueDistribution::Values(d) => Box::new(Rows::new(d, Value::clone)),
        }
    }

    /// Aligned columns with a bar proportional to P(=) (the likeliest outcome gets the full width), then
    /// the statistics, fitted to `layout.width`: when the exact fractions would make a line wider, they
    /// are shown as decimals, with a note saying how to get them in full.
    ///
    /// # Errors
    /// Writing to `out` failed.
    pub fn table(&self, out: &mut dyn Write, layout: &Layout) -> io::Result<()> {
        let header = ["outcome", "P(=)", "%", "P(≥)", "%", "P(≤)", "%"];
        let rows: Vec<(Row, [String; 3])> = self
            .rows()
            .map(|r| {
                let percents = [&r.probability, &r.at_least, &r.at_most].map(percent);
                (r, percents)
            })
            .collect();
        let cells = |decimals: Option<usize>| -> Vec<[String; 7]> {
            let shown = |p: &Shown| match decimals {
                Some(places) => decimal(p, places),
                None => p.fraction.clone(),
            };
            rows.iter()
                .map(|(r, [p, l, m])| {
                    [
                        r.outcome.to_string(),
                        shown(&r.probability),
                        p.clone(),
                        shown(&r.at_least),
                        l.clone(),
                        shown(&r.at_most),
                        m.clone(),
                    ]
                })
                .collect()
        };
        let widths_of = |cells: &[[String; 7]]| {
            let mut widths = header.map(|h| h.chars().count());
            for row in cells {
                for (w, cell) in widths.iter_mut().zip(row) {
                    *w = (*w).max(cell.chars().count());
                }
            }
            widths
        };
        let line_width = |widths: &[usize; 7], columns: &[usize]| {
            columns.iter().map(|&c| widths[c] + 2).sum::<usize>() - 2
        };
        let mut table = cells(None);
        let mut widths = widths_of(&table);
        let mut shortened = false;
        // Labels have no P(≥) or P(≤): their sets of columns are the narrow ones.
        let sets = &COLUMN_SETS[if self.labelled.is_some() { 2 } else { 0 }..];
        let all = sets[0];
        if !layout.exact && line_width(&widths, all) + 2 + MIN_BAR_WIDTH > layout.width {
            table = cells(Some(layout.decimals));
            widths = widths_of(&table);
            shortened = true;
        }
        let columns = if layout.exact {
            all
        } else {
            sets.iter()
                .copied()
                .find(|set| line_width(&widths, set) <= layout.width)
                .unwrap_or(sets[sets.len() - 1])
        };
        let pick = |row: &[String; 7]| -> Vec<String> {
            columns.iter().map(|&c| row[c].clone()).collect()
        };
        let header: Vec<String> = columns.iter().map(|&c| header[c].to_string()).collect();
        let table: Vec<Vec<String>> = table.iter().map(pick).collect();
        let widths: Vec<usize> = columns.iter().map(|&c| widths[c]).collect();
        let room = layout
            .width
            .saturating_sub(widths.iter().map(|w| w + 2).sum::<usize>());
        // No bar rather than a bar that pushes the line past the terminal.
        let bar_width = if room >= MIN_BAR_WIDTH {
            room.min(BAR_WIDTH)
        } else {
            0
        };
        let largest = rows
            .iter()
            .map(|(r, _)| r.probability.value)
            .fold(0.0, f64::max);
        let left = self.outcomes_are_text();
        let mut line = String::new();
        push_aligned(&mut line, &header, &widths, left);
        writeln!(out, "{line}")?;
        for (cells, (row, _)) in table.iter().zip(&rows) {
            line.clear();
            push_aligned(&mut line, cells, &widths, left);
            let bar = bar(row.probability.value / largest, bar_width);
            if !bar.is_empty() {
                line.push_str("  ");
                line.push_str(&bar);
            }
            writeln!(out, "{line}")?;
        }
        writeln!(out)?;
        self.write_statistics(out, layout, shortened)
    }

    /// The statistics under the table, fitted to `layout.width`, and the note when fractions were
    /// shortened to decimals (`shortened` on entry: the table's were).
    fn write_statistics(
        &self,
        out: &mut dyn Write,
        layout: &Layout,
        mut shortened: bool,
    ) -> io::Result<()> {
        let stats = self.statistics_fitted(layout, &mut shortened);
        let label_width = stats.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
        for (label, value) in stats {
            let line = format!("{label:<label_width$}  {value}\n");
            if layout.exact {
                out.write_all(line.as_bytes())?;
            } else {
                // A long value continues under its own start.
                let under = Some(label_width + 2);
                out.write_all(crate::fit::wrap_under(&line, layout.width, under).as_bytes())?;
            }
        }
        if shortened {
            writeln!(out)?;
            let note = format!(
                "note: fractions too long for {} columns are shown as decimals; --exact, --format \
                 csv or --format json give them in full\n",
                layout.width
            );
            out.write_all(crate::fit::wrap_under(&note, layout.width, Some(6)).as_bytes())?;
        }
        Ok(())
    }

    /// A Markdown table, then the statistics as a list.
    ///
    /// # Errors
    /// Writing to `out` failed.
    pub fn markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        let outcome_alignment = if self.outcomes_are_text() {
            ":--"
        } else {
            "--:"
        };
        if self.labelled.is_some() {
            writeln!(out, "| outcome | P(=) | % |\n|{outcome_alignment}|--:|--:|")?;
        } else {
            writeln!(out, "| outcome | P(=) | % | P(≥) | % | P(≤) | % |")?;
            writeln!(out, "|{outcome_alignment}|--:|--:|--:|--:|--:|--:|")?;
        }
        for r in self.rows() {
            if self.labelled.is_some() {
                let outcome = r.outcome.to_string().replace('|', "\\|");
                let p = &r.probability;
                writeln!(out, "| {outcome} | {} | {} |", p.fraction, percent(p))?;
                continue;
            }
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} |",
                r.outcome.to_string().replace('|', "\\|"),
                r.probability.fraction,
                percent(&r.probability),
                r.at_least.fraction,
                percent(&r.at_least),
                r.at_most.fraction,
                percent(&r.at_most),
            )?;
        }
        writeln!(out)?;
        for (label, value) in self.statistics() {
            writeln!(out, "- {label}: {value}")?;
        }
        Ok(())
    }

    /// One row per outcome: fractions, and percentages as plain numbers. No statistics: they would
    /// not be rows.
    ///
    /// # Errors
    /// Writing to `out` failed.
    pub fn csv(&self, out: &mut dyn Write) -> io::Result<()> {
        if self.labelled.is_some() {
            writeln!(out, "outcome,probability,percent")?;
            for r in self.rows() {
                let outcome = csv_field(&r.outcome.to_string());
                let p = &r.probability;
                writeln!(out, "{outcome},{},{}", p.fraction, percent_number(p))?;
            }
            return Ok(());
        }
        writeln!(
            out,
            "outcome,probability,percent,at_least,at_least_percent,at_most,at_most_percent"
        )?;
        for r in self.rows() {
            writeln!(
                out,
                "{},{},{},{},{},{},{}",
                csv_field(&r.outcome.to_string()),
                r.probability.fraction,
                percent_number(&r.probability),
                r.at_least.fraction,
                percent_number(&r.at_least),
                r.at_most.fraction,
                percent_number(&r.at_most),
            )?;
        }
        Ok(())
    }

    /// `{"expression", "outcomes": [{"outcome", "probability", "at_least", "at_most"}], "mean",
    /// "variance", "standard_deviation", "median", "mode", "expected_steps"?, "depth_limit_probability",
    /// "critical_success_probability"?, "critical_failure_probability"?, "match_probability"?,
    /// "critical_probability_not_computed"?}`
    /// on one line: probabilities, mean and variance as reduced fraction strings, `mode` a list (ties),
    /// the standard deviation a float. Mean, variance, standard deviation and median are `null` for
    /// results that are not numbers or true/false; `expected_steps` is there only for `absorb(…)`.
    ///
    /// # Errors
    /// Writing to `out` failed.
    pub fn json(&self, out: &mut dyn Write) -> io::Result<()> {
        let moments = self.moments.as_ref();
        let report = JsonReport {
            mean: moments.map(|m| fraction(&m.mean)),
            variance: moments.map(|m| fraction(&m.variance)),
            standard_deviation: moments.map(|m| m.standard_deviation),
            median: moments.map(|m| &m.median),
            mode: &self.modes,
            expected_steps: self.expected_steps.map(fraction),
            depth_limit_probability: &self.depth_limit.fraction,
            critical_success_probability: self.critical_success.as_ref().map(|s| &*s.fraction),
            critical_failure_probability: self.critical_failure.as_ref().map(|s| &*s.fraction),
            match_probability: self.matched.as_ref().map(|s| &*s.fraction),
            critical_probability_not_computed: self.critical_not_computed,
            reading: self.reading,
        };
        // One object: the expression and the outcomes, then the report's fields after its `{`.
        out.write_all(br#"{"expression":"#)?;
        serde_json::to_writer(&mut *out, self.expression)?;
        out.write_all(br#","outcomes":["#)?;
        let total = self.distribution.total();
        match (&self.labelled, self.distribution) {
            (Some(entries), _) => {
                crate::json_rows::json_rows(entries, total, false, Value::clone, out)?
            }
            (None, ValueDistribution::Int(d)) => {
                crate::json_rows::json_rows(d.entries(), total, true, |&n| Value::Int(n), out)?
            }
            (None, ValueDistribution::Bool(d)) => {
                crate::json_rows::json_rows(d.entries(), total, true, |&b| Value::Bool(b), out)?
            }
            (None, ValueDistribution::Values(d)) => {
                crate::json_rows::json_rows(d.entries(), total, true, Value::clone, out)?
            }
        }
        out.write_all(b"],")?;
        let tail = serde_json::to_vec(&report)?;
        out.write_all(tail.get(1..).unwrap_or_default())?;
        writeln!(out)
    }

    /// The note for a result the explosion depth limit changed, if it did.
    pub fn depth_limit_note(&self) -> Option<String> {
        if self.depth_limit.fraction == "0" {
            return None;
        }
        Some(format!(
            "{} ({}): dice stop exploding after {} extra; raise --explode-depth to lower it",
            self.depth_limit.fraction,
            percent(&self.depth_limit),
            self.explode_depth
        ))
    }

    /// The depth-limit note for a warning on stderr: a fraction longer than [`WARNING_FRACTION`]
    /// characters is shown as a decimal, with where to find it in full, unless `exact`.
    pub fn depth_limit_warning(&self, exact: bool) -> Option<String> {
        let note = self.depth_limit_note()?;
        if exact || self.depth_limit.fraction.chars().count() <= WARNING_FRACTION {
            return Some(note);
        }
        Some(format!(
            "{} (the exact fraction, {} digits long, is in --format json and with --exact)",
            note.replacen(
                &self.depth_limit.fraction,
                &format!("≈ {}", decimal(&self.depth_limit, DEFAULT_DECIMALS)),
                1
            ),
            self.depth_limit.fraction.len()
        ))
    }

    /// The statistics for the text table: an exact value that would not fit `layout.width` is shown
    /// as a decimal (and `shortened` set).
    fn statistics_fitted(
        &self,
        layout: &Layout,
        shortened: &mut bool,
    ) -> Vec<(&'static str, String)> {
        let mut stats = self.statistics_with(layout.decimals);
        let label_width = stats.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
        let room = layout.width.saturating_sub(label_width + 2);
        if layout.exact {
            return stats;
        }
        for (label, value) in &mut stats {
            if value.chars().count() > room
                && let Some((_, approximate)) = value.split_once(" ≈ ")
            {
                *value = format!("≈ {approximate}");
                *shortened = true;
            } else if *label == "depth limit reached"
                && self.depth_limit.fraction.chars().count() > room / 2
            {
                *value = value.replacen(
                    &self.depth_limit.fraction,
                    &format!("≈ {}", decimal(&self.depth_limit, layout.decimals)),
                    1,
                );
                *shortened = true;
            }
        }
        stats
    }

    /// Label and value of each statistic, in the order shown.
    fn statistics(&self) -> Vec<(&'static str, String)> {
        self.statistics_with(DEFAULT_DECIMALS)
    }

    /// The statistics with `decimals` places in their decimal approximations.
    fn statistics_with(&self, decimals: usize) -> Vec<(&'static str, String)> {
        let mut stats = Vec::new();
        if let Some(m) = &self.moments {
            stats.push(("mean", exact_and_decimal(&m.mean, decimals)));
            stats.push(("variance", exact_and_decimal(&m.variance, decimals)));
            stats.push((
                "standard deviation",
                format!(
                    "≈ {}",
                    crate::float::approximate(m.standard_deviation, decimals)
                ),
            ));
            stats.push(("median", m.median.to_string()));
        }
        // A flat distribution is all modes: the first few are listed, the rest counted.
        let mut modes: Vec<String> = self
            .modes
            .iter()
            .take(MODES_LISTED)
            .map(Value::to_string)
            .collect();
        if self.modes.len() > MODES_LISTED {
            modes.push(format!("… ({} in all)", self.modes.len()));
        }
        stats.push((
            if self.modes.len() > 1 {
                "modes"
            } else {
                "mode"
            },
            modes.join(", "),
        ));
        if let Some(steps) = self.expected_steps {
            stats.push(("expected steps", exact_and_decimal(steps, decimals)));
        }
        for (name, shown) in [
            ("P(critical success)", &self.critical_success),
            ("P(critical failure)", &self.critical_failure),
            ("P(match)", &self.matched),
        ] {
            if let Some(shown) = shown {
                stats.push((name, format!("{} ({})", shown.fraction, percent(shown))));
            }
        }
        if let Some(reason) = self.critical_not_computed {
            stats.push(("P(critical)", format!("not computed: {reason}")));
        }
        if let Some(note) = self.depth_limit_note() {
            stats.push(("depth limit reached", note));
        }
        stats
    }
}

/// What follows the outcomes in the JSON report.
#[derive(serde::Serialize)]
struct JsonReport<'o, 'a> {
    mean: Option<String>,
    variance: Option<String>,
    standard_deviation: Option<f64>,
    median: Option<&'o Value>,
    mode: &'o [Value],
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_steps: Option<String>,
    depth_limit_probability: &'o str,
    #[serde(skip_serializing_if = "Option::is_none")]
    critical_success_probability: Option<&'o str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    critical_failure_probability: Option<&'o str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    match_probability: Option<&'o str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    critical_probability_not_computed: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reading: Option<&'a str>,
}

/// `num/den`, or `num` alone for a whole number. The ratio must already be in lowest terms.
fn fraction<T: std::fmt::Display + One + PartialEq>(r: &Ratio<T>) -> String {
    if r.denom().is_one() {
        r.numer().to_string()
    } else {
        format!("{}/{}", r.numer(), r.denom())
    }
}

/// A whole number as is; anything else as its fraction and `decimals` decimals.
fn exact_and_decimal(r: &Ratio<BigInt>, decimals: usize) -> String {
    if r.denom().is_one() {
        fraction(r)
    } else {
        let value = crate::float::approximate(ratio_to_f64(r), decimals);
        format!("{} ≈ {value}", fraction(r))
    }
}

/// A probability as a decimal with `places` places; one too small to show that way keeps `places`
/// significant digits in scientific notation, so that a possible outcome never reads as 0.
fn decimal(p: &Shown, places: usize) -> String {
    match p.fraction.as_str() {
        "0" => return "0".to_string(),
        "1" => return "1".to_string(),
        _ => {}
    }
    let places = places.max(1);
    if p.value == 0.0 {
        return crate::float::tiny(&p.fraction, places);
    }
    let fixed = format!("{:.places$}", p.value);
    if fixed.starts_with('1') {
        // Rounded up to a certainty it is not, as percentages never are.
        return format!(">0.{}", "9".repeat(places));
    }
    if fixed.trim_start_matches(['0', '.']).is_empty() {
        format!("{:.*e}", places - 1, p.value)
    } else {
        fixed
    }
}

/// A probability in lowest terms as a percentage, as the table shows it.
pub(crate) fn percent_of(p: &Probability) -> String {
    percent(&Shown::of(p))
}

/// Two decimals, never rounded to a certainty or an impossibility it is not (see `float::percent`).
fn percent(p: &Shown) -> String {
    crate::float::percent(&p.fraction, p.value * 100.0)
}

/// A percentage as a plain number for spreadsheets: six decimals at most, no trailing zeros (the
/// fraction beside it is the exact value).
fn percent_number(p: &Shown) -> String {
    let text = format!("{:.6}", p.value * 100.0);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A CSV field, quoted when it holds a comma, a quote or a line break (labels and tuples can).
pub(crate) fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// Blocks for `share` (0 to 1) of `width` cells, to the nearest eighth of a cell.
fn bar(share: f64, width: usize) -> String {
    let eighths = (share * (width * 8) as f64).round() as usize;
    let eighths = eighths.min(width * 8);
    let mut out = "█".repeat(eighths / 8);
    out.push_str(PARTIAL_BLOCKS[eighths % 8]);
    out
}

/// Right-aligns each cell in its column (the first left-aligned if `left_first`), two spaces apart, with
/// no trailing spaces: the first column is never the last.
fn push_aligned<S: AsRef<str>>(out: &mut String, cells: &[S], widths: &[usize], left_first: bool) {
    for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
        if i > 0 {
            out.push_str("  ");
        }
        let cell = cell.as_ref();
        let padding = width.saturating_sub(cell.chars().count());
        if i == 0 && left_first {
            out.push_str(cell);
            out.extend(std::iter::repeat_n(' ', padding));
        } else {
            out.extend(std::iter::repeat_n(' ', padding));
            out.push_str(cell);
        }
    }
}

#[cfg(test)]
mod tests;

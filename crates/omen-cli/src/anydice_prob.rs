//! `--dialect anydice`: a whole AnyDice program, each `output` one column side by side, labelled as
//! AnyDice labels it, through every view, format and export `omen prob` and `omen plot` have; and
//! `omen roll` (in `anydice_roll`), one roll of each output. Where an output has a spelling in Omen's
//! notation, its reading line shows it (`reading: advantage = 2d20kh1`), so designers learn Omen's
//! notation from their own programs.
//!
//! AnyDice's language is not one of the notation tables in `omen_lang::syntax::dialect`: it is a
//! program with its own interpreter (`omen_lang::anydice`), so the dialect's name is added to
//! `--dialect`'s list here and the commands ask [`is_anydice`] before compiling Omen's notation.

use std::io::Write;

use anyhow::Context;
use num_traits::Zero;
use omen_core::{Limits, Probability};
use omen_lang::{Criticals, Diagnostic, ExactResult, Span, ValueDistribution, anydice};

use crate::diagnostics::{Input, Style, render_diagnostics};

/// The name `--dialect` takes.
pub const ANYDICE: &str = "anydice";

/// Whether `--dialect anydice` was given (`dialect` is `--dialect`'s value, if any).
pub fn is_anydice(dialect: Option<&str>) -> bool {
    dialect == Some(ANYDICE)
}

/// Where `--dialect anydice` is refused, because the command would read the text as dice notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// `omen roll` in a campaign: its rolls are logged and replayed as dice expressions.
    CampaignRoll,
    /// `omen prob @NAME`: a saved roll is kept in Omen's notation.
    SavedRoll,
    /// `--approximate` without `--dialect anydice`: Omen's notation is always computed exactly.
    Approximate,
}

/// Says on stderr why `--dialect anydice` (or `OMEN_DIALECT=anydice`) cannot be used here, and
/// what to do instead; the command then exits with bad input.
pub fn refuse(place: Refused) {
    let (why, help) = match place {
        Refused::CampaignRoll => (
            "a campaign's rolls are dice expressions, logged and replayed as such, so a roll in \
             a campaign takes no AnyDice program",
            "roll the program without --campaign, --char, --visibility or @NAME, or roll \
             its Omen spelling (`omen translate --from anydice PROGRAM`) in the campaign",
        ),
        Refused::SavedRoll => (
            "`@NAME` is a saved roll, kept in Omen's notation, not an AnyDice program",
            "drop --dialect anydice (or unset OMEN_DIALECT) to compute the saved roll",
        ),
        Refused::Approximate => {
            eprintln!(
                "error: --approximate is for AnyDice programs; Omen's notation is always computed exactly\n  \
                 = help: drop --approximate, or add --dialect anydice if the input is an AnyDice program"
            );
            return;
        }
    };
    eprintln!("error: --dialect anydice: {why}\n  = help: {help}");
}

/// One program given to `omen prob`: its text, where it came from, and the label its columns carry
/// when there are several programs.
pub struct Program<'a> {
    pub label: &'a str,
    pub input: Input<'a>,
}

/// One output of one program, computed: a column of the answer.
pub struct OutputColumn {
    pub label: String,
    /// Which of the programs it came from.
    pub program: usize,
    /// The program's warnings, carried by its first column only (so they are shown once).
    pub warnings: Vec<Diagnostic>,
    pub result: ExactResult,
    /// The reading line: the label, and Omen's spelling where there is one.
    pub reading: String,
}

/// `--approximate DIGITS`: the approximate mode for AnyDice programs whose exact weights run away.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ApproximateArg {
    /// With --dialect anydice: keep about DIGITS significant digits where a program's exact
    /// weights run away (a die mixed with itself each round doubles its digits); the answer then
    /// warns that it is approximate. Without it every answer is an exact fraction.
    #[arg(long, value_name = "DIGITS", value_parser = clap::value_parser!(u32).range(1..=i64::from(anydice::MAX_DIGITS)))]
    pub approximate: Option<u32>,
}

impl ApproximateArg {
    /// The precision AnyDice programs are run at.
    pub fn precision(&self) -> anydice::Precision {
        self.approximate
            .map_or(anydice::Precision::Exact, anydice::Precision::Digits)
    }

    /// Whether `--approximate` is refused: given without `--dialect anydice`.
    pub fn refused(&self, anydice: bool) -> bool {
        let refused = self.approximate.is_some() && !anydice;
        if refused {
            refuse(Refused::Approximate);
        }
        refused
    }
}

/// What bounds a `prob` answer: the limits, the most columns, and each column's output size, and
/// the precision the programs run at.
pub struct Bounds<'a> {
    pub precision: anydice::Precision,
    pub limits: Limits,
    pub max_columns: usize,
    pub output_bound: &'a dyn Fn(&ExactResult) -> u128,
}

/// Runs each program and returns one column per output, in order; `None` when an error stopped it
/// (already written to stderr).
///
/// # Errors
/// I/O errors writing diagnostics.
pub fn columns(
    programs: &[Program<'_>],
    bounds: &Bounds<'_>,
    style: Style,
) -> anyhow::Result<Option<Vec<OutputColumn>>> {
    let mut columns = Vec::new();
    let mut bound: u128 = 0;
    for (number, program) in programs.iter().enumerate() {
        let run = match anydice::run_with(program.input.text, &bounds.limits, bounds.precision) {
            Ok(run) => run,
            Err(errors) => return report(style, program.input, &errors, &[]).map(|_| None),
        };
        let mut warnings = run.warnings;
        // Omen's spelling of each output, where there is one, goes on its reading line.
        let spellings = anydice::translate(program.input.text).unwrap_or_default();
        for (index, output) in run.outputs.into_iter().enumerate() {
            let label = if programs.len() == 1 {
                output.label
            } else {
                format!("{}: {}", program.label, output.label)
            };
            let Some(distribution) = output.distribution else {
                warnings.push(empty_output(&label, output.span));
                continue;
            };
            let result = exact_result(distribution);
            bound = bound.saturating_add((bounds.output_bound)(&result));
            if columns.len() == bounds.max_columns || bound > u128::from(bounds.limits.max_output) {
                let message = format!(
                    "the program has too many outputs to show (at most {}, within --max-output)",
                    bounds.max_columns
                );
                let error = Diagnostic::error("too-many-outputs", output.span, message)
                    .with_help("split the program, or show fewer outputs");
                return report(style, program.input, &[error], &warnings).map(|_| None);
            }
            let reading = reading(&label, spellings.get(index));
            columns.push(OutputColumn {
                label,
                program: number,
                warnings: std::mem::take(&mut warnings),
                result,
                reading,
            });
        }
        if !warnings.is_empty() {
            eprint!(
                "{}",
                render_diagnostics(style, program.input, &[], &warnings)
            );
        }
    }
    Ok(Some(columns))
}

/// Writes errors and warnings to stderr: the input is refused (`false`).
pub(crate) fn report(
    style: Style,
    input: Input<'_>,
    errors: &[Diagnostic],
    warnings: &[Diagnostic],
) -> anyhow::Result<bool> {
    let text = render_diagnostics(style, input, errors, warnings);
    std::io::stderr()
        .lock()
        .write_all(text.as_bytes())
        .context("writing errors to stderr")?;
    Ok(false)
}

fn empty_output(label: &str, span: Span) -> Diagnostic {
    Diagnostic::warning(
        "empty-output",
        span,
        format!("`{label}` is the empty die d{{}}: it has no outcomes, so it has no column"),
    )
}

/// An output's distribution as the report `omen prob` renders.
fn exact_result(distribution: omen_core::Distribution<i64>) -> ExactResult {
    ExactResult {
        distribution: ValueDistribution::Int(distribution),
        truncated: Probability::zero(),
        expected_steps: None,
        criticals: Criticals::default(),
        labels: Vec::new(),
    }
}

/// An output's reading line: its label, and Omen's spelling where there is one, as
/// `omen translate --from anydice` gives it.
pub(crate) fn reading(label: &str, spelling: Option<&anydice::Translation>) -> String {
    match spelling.map(|t| &t.omen) {
        Some(Ok(omen)) => format!("{label} = {omen}"),
        _ => label.to_string(),
    }
}

/// `omen translate`'s examples.
pub const TRANSLATE_EXAMPLES: &str = "\
Examples:
  omen translate --from anydice 'output [highest 3 of 4d6] named \"stat\"'
  omen translate --from anydice -f program.txt";

/// `omen translate`: the language the program is written in, and where it comes from (`I`, the
/// command line's EXPR or `--file`, is the one `omen prob` takes).
#[derive(Debug, clap::Args)]
pub struct TranslateArgs<I: clap::Args> {
    /// The language of the program (AnyDice's, for now).
    #[arg(long, value_name = "LANGUAGE", value_parser = [ANYDICE])]
    pub from: String,
    #[command(flatten)]
    pub input: I,
}

/// Prints each output's label and its Omen spelling, or why it has none.
///
/// # Errors
/// I/O errors writing the answer.
pub fn translate(program: Input<'_>) -> anyhow::Result<bool> {
    let translations = match anydice::translate(program.text) {
        Ok(translations) => translations,
        Err(error) => return report(Style::Text, program, &[error], &[]),
    };
    let mut out = String::new();
    for t in &translations {
        match &t.omen {
            Ok(omen) => out.push_str(&format!("{}: {omen}\n", t.label)),
            Err(why) => out.push_str(&format!("{}: no Omen spelling: {why}\n", t.label)),
        }
    }
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(true)
}

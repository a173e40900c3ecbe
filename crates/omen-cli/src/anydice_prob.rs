//! `--dialect anydice`: a whole AnyDice program, each `output` one column side by side, labelled as
//! AnyDice labels it, through every view, format and export `omen prob` and `omen plot` have; and
//! `omen roll`, one roll of each output's distribution. Where an output has a spelling in Omen's
//! notation, its reading line shows it (`reading: advantage = 2d20kh1`), so designers learn Omen's
//! notation from their own programs.
//!
//! AnyDice's language is not one of the notation tables in `omen_lang::syntax::dialect`: it is a
//! program with its own interpreter (`omen_lang::anydice`), so the dialect's name is added to
//! `--dialect`'s list here and the commands ask [`is_anydice`] before compiling Omen's notation.

use std::io::Write;

use num_traits::Zero;
use omen_core::{DieSource, Probability};
use omen_lang::{Criticals, Diagnostic, ExactResult, Span, ValueDistribution, anydice};

use crate::args::{DialectArg, InputArgs, ProbArgs, ScriptArgs};
use crate::diagnostics::Style;
use crate::{Column, MAX_COLUMNS, Source, Status, fail, fail_to_read};

/// The name `--dialect` takes.
pub const ANYDICE: &str = "anydice";

/// Whether `--dialect anydice` was given.
pub fn is_anydice(dialect: &DialectArg) -> bool {
    dialect.name.as_deref() == Some(ANYDICE)
}

/// One computed column: the program it came from, its warnings, its distribution, the explosion
/// depth (unused: AnyDice's depth cuts are reported as warnings).
pub type Computed = (Source, Vec<Diagnostic>, ExactResult, u64);

/// The columns, their computations and their reading lines, in output order.
pub type Columns = (Vec<Column>, Vec<Computed>, Vec<String>);

/// Runs each program (`-f`, `-e`/EXPR or stdin) and returns one column per output.
///
/// # Errors
/// The command's status, the errors already reported.
pub fn columns(
    args: &ProbArgs,
    inputs: &[Column],
    style: Style,
) -> Result<Columns, anyhow::Result<Status>> {
    if !args.params.is_empty() {
        eprintln!("error: AnyDice programs take no --param; set a variable in the program instead");
        return Err(Ok(Status::BadInput));
    }
    let limits = args.limits.to_limits();
    let mut columns = Vec::new();
    let mut computed = Vec::new();
    let mut readings = Vec::new();
    let mut bound: u128 = 0;
    for input in inputs {
        let source = Source::read(&input.input, anydice::MAX_SOURCE_BYTES)
            .map_err(|e| fail_to_read(style, &e))?;
        let run = anydice::run(&source.text, &limits)
            .map_err(|errors| fail(style, source.input(), &errors, &[]))?;
        let mut warnings = run.warnings;
        // Omen's spelling of each output, where there is one, goes on its reading line.
        let spellings = anydice::translate(&source.text).unwrap_or_default();
        for (index, output) in run.outputs.into_iter().enumerate() {
            let label = if inputs.len() == 1 {
                output.label
            } else {
                format!("{}: {}", input.label, output.label)
            };
            let Some(distribution) = output.distribution else {
                warnings.push(empty_output(&label, output.span));
                continue;
            };
            let result = exact_result(distribution);
            bound = bound.saturating_add(crate::odds::output_bound(&result, args.format));
            if columns.len() == MAX_COLUMNS || bound > u128::from(limits.max_output) {
                let message = format!(
                    "the program has too many outputs to show (at most {MAX_COLUMNS}, within --max-output)"
                );
                let error = Diagnostic::error("too-many-outputs", output.span, message)
                    .with_help("split the program, or show fewer outputs");
                return Err(fail(style, source.input(), &[error], &warnings));
            }
            readings.push(match spellings.get(index).map(|t| &t.omen) {
                Some(Ok(omen)) => format!("{label} = {omen}"),
                _ => label.clone(),
            });
            columns.push(Column {
                label,
                input: InputArgs {
                    expression: input.input.expression.clone(),
                    file: input.input.file.clone(),
                },
                script: ScriptArgs {
                    params: Vec::new(),
                    dialect: input.script.dialect.clone(),
                },
            });
            let text = Source {
                text: source.text.clone(),
                file: source.file.clone(),
            };
            // The program's warnings are shown once, with its first column.
            computed.push((text, std::mem::take(&mut warnings), result, 0));
        }
        if !warnings.is_empty() {
            eprint!(
                "{}",
                crate::diagnostics::render_diagnostics(style, source.input(), &[], &warnings)
            );
        }
    }
    Ok((columns, computed, readings))
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

/// `omen roll --dialect anydice`: one roll of each output's exact distribution, a line each.
///
/// # Errors
/// I/O errors writing the answer.
pub fn roll(
    input: &InputArgs,
    limits: &omen_core::Limits,
    dice: &mut dyn DieSource,
    style: Style,
) -> anyhow::Result<Status> {
    let source = match Source::read(input, anydice::MAX_SOURCE_BYTES) {
        Ok(source) => source,
        Err(e) => return fail_to_read(style, &e),
    };
    let run = match anydice::run(&source.text, limits) {
        Ok(run) => run,
        Err(errors) => return fail(style, source.input(), &errors, &[]),
    };
    eprint!(
        "{}",
        crate::diagnostics::render_diagnostics(style, source.input(), &[], &run.warnings)
    );
    let mut out = String::new();
    for output in &run.outputs {
        let shown = match &output.distribution {
            Some(d) => pick(d, dice)?.to_string(),
            None => "(empty)".to_string(),
        };
        out.push_str(&format!("{}: {shown}\n", output.label));
    }
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(Status::Success)
}

/// One outcome of `d`, drawn by weight: a uniform number below the total weight, built from rolls
/// of a 65,536-sided die (the last number redrawn when it lands past the total, so every number
/// below it is equally likely), then the outcome whose cumulative weight passes it.
fn pick(d: &omen_core::Distribution<i64>, dice: &mut dyn DieSource) -> anyhow::Result<i64> {
    let total = d.total();
    let digit = omen_core::Die::standard(1 << 16, &omen_core::Limits::default())?;
    let digits = total.bits().div_ceil(16);
    let point = loop {
        let mut candidate = omen_core::Weight::zero();
        for _ in 0..digits {
            let face = dice.roll(&digit)?;
            candidate = (candidate << 16u32) + omen_core::Weight::from(u64::try_from(face - 1)?);
        }
        if &candidate < total {
            break candidate;
        }
    };
    let mut below = omen_core::Weight::zero();
    for (outcome, weight) in d.entries() {
        below += weight;
        if point < below {
            return Ok(*outcome);
        }
    }
    Ok(*d.max_outcome())
}

/// `omen translate`'s examples.
pub const TRANSLATE_EXAMPLES: &str = "\
Examples:
  omen translate --from anydice 'output [highest 3 of 4d6] named \"stat\"'
  omen translate --from anydice -f program.txt";

/// `omen translate`: the language the program is written in, and where it comes from.
#[derive(Debug, clap::Args)]
pub struct TranslateArgs {
    /// The language of the program (AnyDice's, for now).
    #[arg(long, value_name = "LANGUAGE", value_parser = [ANYDICE])]
    pub from: String,
    #[command(flatten)]
    pub input: InputArgs,
}

/// Prints each output's label and its Omen spelling, or why it has none.
///
/// # Errors
/// I/O errors writing the answer.
pub fn translate(args: &TranslateArgs) -> anyhow::Result<Status> {
    let source = match Source::read(&args.input, anydice::MAX_SOURCE_BYTES) {
        Ok(source) => source,
        Err(e) => return fail_to_read(Style::Text, &e),
    };
    let translations = match anydice::translate(&source.text) {
        Ok(translations) => translations,
        Err(error) => return fail(Style::Text, source.input(), &[error], &[]),
    };
    let mut out = String::new();
    for t in &translations {
        match &t.omen {
            Ok(omen) => out.push_str(&format!("{}: {omen}\n", t.label)),
            Err(why) => out.push_str(&format!("{}: no Omen spelling: {why}\n", t.label)),
        }
    }
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(Status::Success)
}

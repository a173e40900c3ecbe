//! `omen roll --dialect anydice`: one roll of each output of an AnyDice program.
//!
//! With a seed, each output is drawn from its exact distribution (or, with `--approximate`, from
//! the rounded one, and the roll says so). With `--dice`, the dice rolled at the table are read
//! through each output's Omen spelling (`output 3d6` is `3d6`): Omen's sampler gives each die of
//! the output the next value, checked against that die's faces, so the dice go where a player
//! expects them. An output with no Omen spelling (a function, a loop, a comparison) has no order of
//! dice to follow (an AnyDice variable holds a distribution, and each use of it is a new roll), so
//! `--dice` refuses it and says why, rather than guess.

use std::io::Write;

use num_traits::Zero;
use omen_core::{DieSource, Limits, ScriptedDice};
use omen_lang::{Diagnostic, Options, Value, anydice};
use serde::Serialize;

use crate::anydice_prob::{reading, report};
use crate::diagnostics::{Input, Style, render_diagnostics, too_much_output, unused_dice};

/// What `omen roll --dialect anydice --format json` prints: the shape of an Omen roll's JSON where
/// it applies (the program as `expression`, the `seed` to replay it), with one entry per output in
/// place of the one result and its tree (an output is drawn from its distribution, not rolled die by
/// die, so it has no tree).
#[derive(Serialize)]
struct RollReport<'a> {
    expression: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    outputs: Vec<RolledOutput<'a>>,
}

/// One output's roll: its label, the value drawn (`null` for the empty die, which has none), its
/// reading line as `omen prob` shows it, and `approximate: true` when it was drawn from a
/// distribution the approximate mode rounded.
#[derive(Serialize)]
struct RolledOutput<'a> {
    label: &'a str,
    result: Option<i64>,
    reading: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    approximate: bool,
}

/// Where `omen roll --dialect anydice` draws from.
pub enum RollDice<'a> {
    /// A seeded source: each output drawn from its distribution; the seed is printed first
    /// (text) or as `seed` (JSON), so the roll can be replayed.
    Seeded {
        dice: &'a mut dyn DieSource,
        seed: u64,
    },
    /// `--dice`: the values rolled at the table, given to the outputs' dice in order.
    Given(Vec<i64>),
}

/// `omen roll --dialect anydice`: one roll of each output, after the seed line a `label: value`
/// line each, or the JSON of [`RollReport`] with `--format json`.
///
/// # Errors
/// I/O errors writing the answer.
pub fn roll(
    program: Input<'_>,
    limits: &Limits,
    precision: anydice::Precision,
    source: RollDice<'_>,
    style: Style,
) -> anyhow::Result<bool> {
    let run = match anydice::run_with(program.text, limits, precision) {
        Ok(run) => run,
        Err(errors) => return report(style, program, &errors, &[]),
    };
    let mut warnings = run.warnings;
    let spellings = anydice::translate(program.text).unwrap_or_default();
    let (results, seed) = match source {
        RollDice::Seeded { dice, seed } => {
            let mut results = Vec::with_capacity(run.outputs.len());
            for output in &run.outputs {
                results.push(match &output.distribution {
                    Some(d) => Some(pick(d, dice)?),
                    None => None,
                });
            }
            (results, Some(seed))
        }
        RollDice::Given(values) => {
            let mut dice = ScriptedDice::new(values);
            match given(&run.outputs, &spellings, limits, &mut dice) {
                Ok(results) => {
                    if !dice.remaining().is_empty() {
                        warnings.push(unused_dice(program.text, dice.remaining()));
                    }
                    (results, None)
                }
                Err(error) => return report(style, program, &[error], &warnings),
            }
        }
    };
    let outputs: Vec<RolledOutput<'_>> = run
        .outputs
        .iter()
        .zip(results)
        .enumerate()
        .map(|(index, (output, result))| RolledOutput {
            label: &output.label,
            result,
            reading: reading(&output.label, spellings.get(index)),
            approximate: output.approximate,
        })
        .collect();
    let text = render(program.text, seed, outputs, style)?;
    if text.len() as u128 > u128::from(limits.max_output) {
        let error = too_much_output(text.len() as u128, limits.max_output)
            .with_help("split the program, or raise --max-output");
        return report(style, program, &[error], &warnings);
    }
    eprint!("{}", render_diagnostics(style, program, &[], &warnings));
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(true)
}

/// The answer as text (after the seed line, `label: value` lines) or as JSON.
fn render(
    program: &str,
    seed: Option<u64>,
    outputs: Vec<RolledOutput<'_>>,
    style: Style,
) -> anyhow::Result<String> {
    Ok(match style {
        Style::Text => {
            let mut text = seed.map_or_else(String::new, |seed| format!("seed: {seed}\n"));
            for output in &outputs {
                let shown = output
                    .result
                    .map_or_else(|| "(empty)".to_string(), |v| v.to_string());
                text.push_str(&format!("{}: {shown}\n", output.label));
            }
            text
        }
        Style::Json => {
            let report = RollReport {
                expression: program,
                seed,
                outputs,
            };
            format!("{}\n", serde_json::to_string(&report)?)
        }
    })
}

/// Each output rolled through its Omen spelling with the given dice, in program order; the empty
/// die takes no dice and has no value.
///
/// # Errors
/// An output with no Omen spelling, or given dice that do not fit (too few, or a value that is not
/// a face of its die), as an error at the output.
fn given(
    outputs: &[anydice::Output],
    spellings: &[anydice::Translation],
    limits: &Limits,
    dice: &mut ScriptedDice,
) -> Result<Vec<Option<i64>>, Diagnostic> {
    let mut results = Vec::with_capacity(outputs.len());
    for (index, output) in outputs.iter().enumerate() {
        if output.distribution.is_none() {
            results.push(None);
            continue;
        }
        let spelling = match spellings.get(index).map(|t| &t.omen) {
            Some(Ok(spelling)) => spelling,
            Some(Err(why)) => return Err(no_spelling(output, why)),
            None => {
                return Err(no_spelling(
                    output,
                    "it comes after a loop or a branch, which have no one Omen expression",
                ));
            }
        };
        results.push(Some(roll_spelling(output, spelling, limits, dice)?));
    }
    Ok(results)
}

/// One output's spelling compiled in Omen's notation and rolled with the given dice.
fn roll_spelling(
    output: &anydice::Output,
    spelling: &str,
    limits: &Limits,
    dice: &mut ScriptedDice,
) -> Result<i64, Diagnostic> {
    let options = Options {
        limits: limits.clone(),
        ..Options::default()
    };
    // The spelling's own spans mean nothing in the program: an error is moved to the output,
    // naming the spelling it was rolled as.
    let at_output = |error: Diagnostic| {
        let message = format!(
            "`{}` (rolled as `{spelling}`): {}",
            output.label, error.message
        );
        let moved = Diagnostic::error(error.kind, output.span, message);
        match error.help {
            Some(help) => moved.with_help(help),
            None => moved,
        }
    };
    let checked =
        omen_lang::compile(spelling, &options).map_err(|mut errors| at_output(errors.remove(0)))?;
    let rolled = omen_lang::sample(&checked.program, limits, dice).map_err(at_output)?;
    match rolled.result {
        Value::Int(value) => Ok(value),
        other => Err(at_output(Diagnostic::error(
            "not-a-number",
            output.span,
            format!("the roll is {other}, not a whole number"),
        ))),
    }
}

/// `--dice` on an output that has no Omen spelling: refused, with why and what to do instead.
fn no_spelling(output: &anydice::Output, why: &str) -> Diagnostic {
    Diagnostic::error(
        "dice-not-followed",
        output.span,
        format!(
            "--dice gives the dice of an output in the order its Omen spelling rolls them, and \
             `{}` has no Omen spelling: {why}",
            output.label
        ),
    )
    .with_help(
        "drop --dice to draw each output from its exact distribution (add --seed N to replay \
         it), or give --dice to a program whose outputs are dice, numbers, `+ - *` and \
         [highest N of D] or [lowest N of D]",
    )
}

/// One outcome of `d`, drawn by weight: a uniform number below the total weight, built from rolls
/// of a 65,536-sided die (the last number redrawn when it lands past the total, so every number
/// below it is equally likely), then the outcome whose cumulative weight passes it. Only for a
/// seeded source: given dice are read through the spelling instead ([`given`]).
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

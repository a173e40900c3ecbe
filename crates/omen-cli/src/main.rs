//! `omen`: roll dice and compute exact odds from one dice notation.
//!
//! ```text
//! omen roll EXPR [--seed N | --dice V,V,...] [--format text|json] [--param NAME=VALUE]... [LIMITS]
//! omen prob EXPR [--format table|markdown|csv|json] [--param NAME=VALUE]... [LIMITS]
//!
//! LIMITS (defaults from omen_core::Limits::default()):
//!   --explode-depth N   extra dice one die may add by exploding     20 (at most 1000)
//!   --max-dice N        dice in one pool                            10000
//!   --max-sides N       sides of one die                            1000000
//!   --max-outcomes N    outcomes of one distribution                1000000
//!   --max-states N      states a dynamic program holds at once      20000000
//!   --work-budget N     big-integer steps of one exact computation  200000000
//! ```
//!
//! `roll` without `--seed` picks a seed from the clock and the process id and shows it (`seed: N`, or
//! `"seed"` in JSON) so the roll can be replayed; `--dice` replays given values instead. The transcript
//! format and its marks are described in [`transcript`], the odds formats in [`odds`].
//!
//! stdout carries the result and nothing else. Errors and warnings go to stderr: drawn under the input with
//! a caret and a hint, or with `--format json` as one JSON object
//! `{"errors": [...], "warnings": [...]}` (see [`diagnostics`]). Warnings never fail a command.
//!
//! Exit codes:
//!
//! | code | meaning |
//! |---|---|
//! | 0 | success (warnings may be on stderr) |
//! | 1 | internal error: output could not be written, or a bug |
//! | 2 | bad input: a parse, check or evaluation error (limits included), or bad flags |
//!
//! This binary only parses arguments, calls `omen-lang` and renders; the dice logic lives in the libraries.

mod args;
mod diagnostics;
mod fraction;
mod odds;
mod transcript;

use std::io::{self, BufWriter, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;
use clap::Parser;
use omen_core::{ChaChaDice, ScriptedDice};
use omen_lang::{Diagnostic, Options, Roll, RollNode, Span, Value, compile, exact, sample};
use serde::Serialize;

use crate::args::{Cli, Command, ProbArgs, ProbFormat, RollArgs, RollFormat};
use crate::diagnostics::{Style, render_diagnostics};
use crate::odds::Odds;
use crate::transcript::render_transcript;

/// How a command ended, when it ended on its own terms.
enum Status {
    Success,
    BadInput,
}

fn main() -> ExitCode {
    // clap exits by itself: 2 for a usage error, 0 for --help and --version.
    let cli = Cli::parse();
    // A panic is a bug, and bugs are exit 1 like every other internal error; the hook has printed it.
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| run(&cli)));
    match outcome {
        Ok(Ok(Status::Success)) => ExitCode::SUCCESS,
        Ok(Ok(Status::BadInput)) => ExitCode::from(2),
        Ok(Err(error)) if is_broken_pipe(&error) => {
            // `omen prob 1000d6 | head` is not a failure: the reader has what it wanted.
            ExitCode::SUCCESS
        }
        Ok(Err(error)) => {
            eprintln!("internal error: {error:#}");
            ExitCode::from(1)
        }
        Err(_) => ExitCode::from(1),
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|e| e.downcast_ref::<io::Error>())
        .any(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

fn run(cli: &Cli) -> anyhow::Result<Status> {
    match &cli.command {
        Command::Roll(args) => roll(args),
        Command::Prob(args) => prob(args),
    }
}

/// What `omen roll --format json` prints.
#[derive(Serialize)]
struct RollReport<'a> {
    expression: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    result: &'a Value,
    tree: &'a RollNode,
}

fn roll(args: &RollArgs) -> anyhow::Result<Status> {
    let style = match args.format {
        RollFormat::Text => Style::Text,
        RollFormat::Json => Style::Json,
    };
    let source = args.expression.as_str();
    let options = Options {
        limits: args.limits.to_limits(),
        params: args.script.params.clone(),
        ..Options::default()
    };
    let checked = match compile(source, &options) {
        Ok(checked) => checked,
        Err(errors) => return fail(style, source, &errors, &[]),
    };
    let mut warnings = checked.warnings;
    let (rolled, seed) = match &args.dice {
        Some(values) => {
            let mut dice = ScriptedDice::new(values.clone());
            let rolled = sample(&checked.program, &options.limits, &mut dice);
            if rolled.is_ok() && !dice.remaining().is_empty() {
                warnings.push(unused_dice(source, dice.remaining()));
            }
            (rolled, None)
        }
        None => {
            let seed = args.seed.unwrap_or_else(fresh_seed);
            let mut dice = ChaChaDice::from_seed(seed);
            (
                sample(&checked.program, &options.limits, &mut dice),
                Some(seed),
            )
        }
    };
    let rolled: Roll = match rolled {
        Ok(rolled) => rolled,
        Err(error) => return fail(style, source, &[error], &warnings),
    };
    let text = match args.format {
        RollFormat::Text => render_transcript(&rolled, seed),
        RollFormat::Json => {
            let report = RollReport {
                expression: &rolled.expression,
                seed,
                result: &rolled.result,
                tree: &rolled.tree,
            };
            let mut out = serde_json::to_string(&report).context("writing the roll as JSON")?;
            out.push('\n');
            out
        }
    };
    succeed(style, source, &warnings, |out| {
        out.write_all(text.as_bytes())
    })
}

fn prob(args: &ProbArgs) -> anyhow::Result<Status> {
    let style = match args.format {
        ProbFormat::Json => Style::Json,
        ProbFormat::Table | ProbFormat::Markdown | ProbFormat::Csv => Style::Text,
    };
    let source = args.expression.as_str();
    let options = Options {
        limits: args.limits.to_limits(),
        params: args.script.params.clone(),
        ..Options::default()
    };
    let checked = match compile(source, &options) {
        Ok(checked) => checked,
        Err(errors) => return fail(style, source, &errors, &[]),
    };
    let result = match exact(&checked.program, &options.limits) {
        Ok(result) => result,
        Err(error) => return fail(style, source, &[error], &checked.warnings),
    };
    let odds = Odds::new(source, &result, options.limits.explode_depth);
    if args.format == ProbFormat::Csv
        && let Some(note) = odds.depth_limit_note()
    {
        // CSV has no place for it, and a cut-off result must never pass silently.
        eprintln!("warning: explosion depth limit reached: {note}");
    }
    succeed(style, source, &checked.warnings, |out| match args.format {
        ProbFormat::Table => odds.table(out),
        ProbFormat::Markdown => odds.markdown(out),
        ProbFormat::Csv => odds.csv(out),
        ProbFormat::Json => odds.json(out),
    })
}

/// Bad input: the diagnostics on stderr and nothing on stdout.
fn fail(
    style: Style,
    source: &str,
    errors: &[Diagnostic],
    warnings: &[Diagnostic],
) -> anyhow::Result<Status> {
    let text = render_diagnostics(style, source, errors, warnings);
    io::stderr()
        .lock()
        .write_all(text.as_bytes())
        .context("writing errors to stderr")?;
    Ok(Status::BadInput)
}

/// Warnings on stderr first, so they are seen before a long result scrolls them away, then the result,
/// written through one buffer.
fn succeed(
    style: Style,
    source: &str,
    warnings: &[Diagnostic],
    render: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> anyhow::Result<Status> {
    let text = render_diagnostics(style, source, &[], warnings);
    io::stderr()
        .lock()
        .write_all(text.as_bytes())
        .context("writing warnings to stderr")?;
    let mut stdout = BufWriter::new(io::stdout().lock());
    render(&mut stdout)
        .and_then(|()| stdout.flush())
        .context("writing the result to stdout")?;
    Ok(Status::Success)
}

/// Dice given with `--dice` that the roll never used: probably a mistake in the list or the expression.
fn unused_dice(source: &str, remaining: &[i64]) -> Diagnostic {
    let values: Vec<String> = remaining.iter().map(i64::to_string).collect();
    let end = source.len();
    Diagnostic::warning(
        "unused-dice",
        Span::new(end, end),
        format!(
            "{} given dice value(s) left unused: {}",
            remaining.len(),
            values.join(", ")
        ),
    )
    .with_help("give --dice exactly the values the expression rolls, in order")
}

/// A seed for an unseeded roll: clock and process id, mixed so close calls give unrelated seeds.
fn fresh_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // splitmix64's finaliser.
    let mut x =
        (nanos ^ u64::from(std::process::id()).rotate_left(32)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

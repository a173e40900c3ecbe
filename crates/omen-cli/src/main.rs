//! `omen`: roll dice and compute exact odds from one dice notation.
//!
//! ```text
//! omen roll (EXPR | -f FILE) [--seed N | --dice V,V,...] [--format text|json] [--param NAME=VALUE]... [LIMITS]
//! omen prob (EXPR | -f FILE) [--format table|markdown|csv|json] [--param NAME=VALUE]... [LIMITS]
//!
//! -f, --file FILE       read the script from FILE (UTF-8) instead of EXPR; `-` reads stdin
//!
//! LIMITS (`--help` shows each default, taken from omen_core::Limits::default()):
//!   --explode-depth N     extra dice one die may add by exploding (at most 1000)
//!   --max-dice N          dice in one pool
//!   --max-sides N         sides of one die
//!   --max-outcomes N      outcomes of one distribution
//!   --max-states N        states a dynamic program holds at once
//!   --max-chain-states N  states of one process (`after`, `absorb`, `stationary`)
//!   --work-budget N       64-bit multiply-adds of one exact computation
//! ```
//!
//! Exactly one of EXPR and `--file` is given. Diagnostics of a file name it, with the line and column
//! (`--> check.omen:3:5`); a file that cannot be read, is not UTF-8 or is longer than the language's
//! length limit is bad input, reported without a drawing. A leading byte-order mark is skipped, and
//! trailing white space dropped.
//!
//! `roll` without `--seed` picks a seed from the clock and the process id and shows it (`seed: N`, or
//! `"seed"` in JSON) so the roll can be replayed; `--dice` replays given values instead. The transcript
//! format and its marks are described in [`transcript`], the odds formats in [`odds`]; `prob` of an
//! `absorb(…)` script adds the exact expected number of steps.
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
//! | 2 | bad input: a parse, check or evaluation error (limits included), an unreadable file, or bad flags |
//!
//! This binary only parses arguments, reads the script, calls `omen-lang` and renders; the dice logic
//! lives in the libraries.

mod act;
mod actions;
mod args;
mod campaign;
mod diagnostics;
mod fraction;
mod games;
mod hprpg;
mod odds;
mod ritual;
mod rules;
mod transcript;

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;
use clap::Parser;
use omen_core::{ChaChaDice, Limits, ScriptedDice};
use omen_lang::{
    Checked, Diagnostic, Options, Roll, RollNode, Span, Value, compile, exact, sample,
};
use serde::Serialize;

use crate::args::{
    Cli, Command, InputArgs, LimitArgs, ProbArgs, ProbFormat, RollArgs, RollFormat, ScriptArgs,
};
use crate::diagnostics::{Input, Style, render_diagnostics, render_input_error};
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
        Command::Rules(args) => {
            rules::run(args.format)?;
            Ok(Status::Success)
        }
        Command::Spelldice(command) => status(games::spelldice(command, &Limits::default())),
        Command::Luck(command) => status(games::luck(command, &Limits::default())),
        Command::T13(command) => status(games::t13(command, &Limits::default())),
        Command::Hprpg(command) => status(hprpg::run(command, &Limits::default())),
        Command::Ritual(command) => status(ritual::run(command, &Limits::default())),
        Command::Act(args) => status(act::act(args, &Limits::default())),
        Command::Campaign(args) => status(campaign::campaign(args)),
        Command::Char(args) => status(campaign::character(args)),
        Command::Log(args) => status(campaign::log(args, &Limits::default())),
        Command::Save(args) => status(campaign::save(args)),
        Command::Saved(args) => status(campaign::saved(args)),
        Command::Export(args) => status(campaign::export(args)),
        Command::Import(args) => status(campaign::import(args)),
    }
}

/// A command that answers whether its input was good.
fn status(answer: anyhow::Result<bool>) -> anyhow::Result<Status> {
    Ok(if answer? {
        Status::Success
    } else {
        Status::BadInput
    })
}

/// The saved roll an EXPR of `@NAME` names.
fn saved_name(input: &InputArgs) -> Option<&str> {
    input.expression.as_deref()?.strip_prefix('@')
}

/// `omen roll` in a campaign: a saved roll or an expression, rolled and written to the campaign's log
/// in one transaction.
fn roll_in_campaign(args: &RollArgs, style: Style) -> anyhow::Result<Status> {
    let limits = args.limits.to_limits();
    let bad = |message: String| {
        eprintln!("error: {message}");
        Ok(Status::BadInput)
    };
    let mut store = match campaign::open(&args.campaign.db) {
        Ok(store) => store,
        Err(error) => return bad(error.to_string()),
    };
    let name = match campaign::campaign_name(&store, &args.campaign.campaign) {
        Ok(name) => name,
        Err(message) => return bad(message),
    };
    let saved = saved_name(&args.input);
    let source = match saved {
        Some(saved) => match store.saved_roll(&name, saved) {
            Ok(found) => Source {
                text: found.expression,
                file: None,
            },
            Err(error) => return bad(error.to_string()),
        },
        None => match Source::read(&args.input, Options::default().parse.max_len) {
            Ok(source) => source,
            Err(error) => return fail_to_read(style, &error),
        },
    };
    let params = match campaign::json_param_values(&args.script.params) {
        Ok(params) => params,
        Err(message) => return bad(message),
    };
    let dice = match &args.source.dice {
        Some(values) => omen_store::Dice::Given(values.clone()),
        None => omen_store::Dice::Seed(args.source.seed.unwrap_or_else(fresh_seed)),
    };
    let character = args.campaign.character.as_deref();
    let rolled = match saved {
        Some(saved) => store.roll_saved(&name, character, saved, &params, &dice, &limits),
        None => store.roll(&name, character, &source.text, &params, &dice, &limits),
    };
    let (entry, rolled) = match rolled {
        Ok(done) => done,
        Err(omen_store::StoreError::Language(errors)) => {
            return fail(style, source.input(), &errors, &[]);
        }
        Err(error) => return bad(error.to_string()),
    };
    let mut warnings = rolled.warnings;
    if !rolled.unused_dice.is_empty() {
        warnings.push(unused_dice(&source.text, &rolled.unused_dice));
    }
    let seed = dice.seed();
    let text = match args.source.format {
        RollFormat::Text => format!(
            "{}logged as entry {} in `{name}`\n",
            render_transcript(&rolled.roll, seed),
            entry.sequence
        ),
        RollFormat::Json => {
            let report = serde_json::json!({
                "expression": &rolled.roll.expression,
                "seed": seed,
                "result": &rolled.roll.result,
                "tree": &rolled.roll.tree,
                "campaign": name,
                "log_entry": entry.sequence,
            });
            format!("{report}\n")
        }
    };
    succeed(style, source.input(), &warnings, |out| {
        out.write_all(text.as_bytes())
    })
}

/// What `omen roll --format json` prints.
#[derive(Serialize)]
struct RollReport<'a> {
    expression: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    result: &'a Value,
    tree: &'a RollNode,
    /// How the expression was read: its canonical, fully parenthesised rendering.
    reading: &'a str,
}

fn roll(args: &RollArgs) -> anyhow::Result<Status> {
    let style = match args.source.format {
        RollFormat::Text => Style::Text,
        RollFormat::Json => Style::Json,
    };
    if args.campaign.wanted(&args.input) {
        return roll_in_campaign(args, style);
    }
    let (options, script, checked) =
        match compile_input(&args.input, &args.script, &args.limits, style) {
            Ok(compiled) => compiled,
            Err(status) => return status,
        };
    let (input, source) = (script.input(), script.text.as_str());
    let mut warnings = checked.warnings;
    let (rolled, seed) = match &args.source.dice {
        Some(values) => {
            let mut dice = ScriptedDice::new(values.clone());
            let rolled = sample(&checked.program, &options.limits, &mut dice);
            if rolled.is_ok() && !dice.remaining().is_empty() {
                warnings.push(unused_dice(source, dice.remaining()));
            }
            (rolled, None)
        }
        None => {
            let seed = args.source.seed.unwrap_or_else(fresh_seed);
            let mut dice = ChaChaDice::from_seed(seed);
            (
                sample(&checked.program, &options.limits, &mut dice),
                Some(seed),
            )
        }
    };
    let rolled: Roll = match rolled {
        Ok(rolled) => rolled,
        Err(error) => return fail(style, input, &[error], &warnings),
    };
    let text = match args.source.format {
        RollFormat::Text => {
            // After the seed line, which stays first so that a roll can be replayed from it.
            let transcript = render_transcript(&rolled, seed);
            let split = if seed.is_some() {
                transcript.find('\n').map_or(0, |i| i + 1)
            } else {
                0
            };
            let (seed_line, rest) = transcript.split_at(split);
            format!("{seed_line}reading: {}\n{rest}", checked.reading)
        }
        RollFormat::Json => {
            let report = RollReport {
                expression: &rolled.expression,
                seed,
                result: &rolled.result,
                tree: &rolled.tree,
                reading: &checked.reading,
            };
            let mut out = serde_json::to_string(&report).context("writing the roll as JSON")?;
            out.push('\n');
            out
        }
    };
    succeed(style, input, &warnings, |out| {
        out.write_all(text.as_bytes())
    })
}

fn prob(args: &ProbArgs) -> anyhow::Result<Status> {
    let style = match args.format {
        ProbFormat::Json => Style::Json,
        ProbFormat::Table | ProbFormat::Markdown | ProbFormat::Csv => Style::Text,
    };
    let saved;
    let (input, script_args) = match saved_name(&args.input) {
        Some(name) => match campaign::saved_input(name, &args.campaign, &args.db, &args.script) {
            Ok(found) => {
                saved = found;
                (&saved.0, &saved.1)
            }
            Err(message) => {
                eprintln!("error: {message}");
                return Ok(Status::BadInput);
            }
        },
        None => (&args.input, &args.script),
    };
    let (options, script, checked) = match compile_input(input, script_args, &args.limits, style) {
        Ok(compiled) => compiled,
        Err(status) => return status,
    };
    let (input, source) = (script.input(), script.text.as_str());
    let result = match exact(&checked.program, &options.limits) {
        Ok(result) => result,
        Err(error) => return fail(style, input, &[error], &checked.warnings),
    };
    let odds =
        Odds::new(source, &result, options.limits.explode_depth).with_reading(&checked.reading);
    if args.format == ProbFormat::Csv
        && let Some(note) = odds.depth_limit_note()
    {
        // CSV has no place for it, and a cut-off result must never pass silently.
        eprintln!("warning: explosion depth limit reached: {note}");
    }
    let reading = format!("reading: {}\n", checked.reading);
    succeed(style, input, &checked.warnings, |out| match args.format {
        ProbFormat::Table => out
            .write_all(reading.as_bytes())
            .and_then(|()| odds.table(out)),
        ProbFormat::Markdown => out
            .write_all(reading.as_bytes())
            .and_then(|()| odds.markdown(out)),
        ProbFormat::Csv => odds.csv(out),
        ProbFormat::Json => odds.json(out),
    })
}

/// The expression or script to run, and the file it came from.
struct Source {
    text: String,
    /// As given on the command line (`<stdin>` for `-`); `None` for an EXPR argument.
    file: Option<String>,
}

impl Source {
    /// EXPR, or the text of `--file` (stdin for `-`).
    ///
    /// A file is read up to `max_len` bytes plus one, the language's length limit, so that `-f /dev/zero`
    /// or an endless pipe is refused instead of filling memory. A leading byte-order mark, which some
    /// editors write, is skipped (spans then count from the text after it), and trailing white space
    /// is dropped.
    ///
    /// # Errors
    /// A diagnostic with an empty span when the file cannot be read, is longer than `max_len` bytes or is
    /// not UTF-8.
    fn read(input: &InputArgs, max_len: usize) -> Result<Source, Diagnostic> {
        let path = match (&input.expression, &input.file) {
            (Some(expression), None) => {
                return Ok(Source {
                    text: expression.clone(),
                    file: None,
                });
            }
            (_, Some(path)) => path,
            // clap requires exactly one of the two.
            (None, None) => unreachable!("neither EXPR nor --file"),
        };
        let limit = max_len as u64 + 1;
        let (name, bytes) = if path.as_os_str() == "-" {
            (
                "<stdin>".to_string(),
                read_at_most(io::stdin().lock(), limit),
            )
        } else {
            let bytes = File::open(path).and_then(|file| read_at_most(file, limit));
            (path.display().to_string(), bytes)
        };
        let bytes = bytes.map_err(|error| unreadable_file(&name, &error))?;
        if bytes.len() > max_len {
            return Err(input_error(
                "input-too-long",
                format!("`{name}` is too long: more than {max_len} bytes (limit {max_len})"),
                "split the script, or shorten it",
            ));
        }
        let text = String::from_utf8(bytes).map_err(|error| {
            input_error(
                "file-not-utf8",
                format!(
                    "`{name}` is not UTF-8 text: invalid byte at offset {}",
                    error.utf8_error().valid_up_to()
                ),
                "save the script as UTF-8",
            )
        })?;
        let mut text = match text.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => text,
        };
        // The language places "found the end of the input" after the last byte; without the final line
        // break that is the end of the last line, not an empty line after it. Offsets are unchanged.
        text.truncate(text.trim_end().len());
        Ok(Source {
            text,
            file: Some(name),
        })
    }

    fn input(&self) -> Input<'_> {
        Input {
            text: &self.text,
            file: self.file.as_deref(),
        }
    }
}

fn read_at_most(reader: impl Read, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn unreadable_file(name: &str, error: &io::Error) -> Diagnostic {
    let (reason, help) = match error.kind() {
        io::ErrorKind::NotFound => (
            "no such file".to_string(),
            "check the path; a relative one starts from the current directory",
        ),
        io::ErrorKind::PermissionDenied => (
            "permission denied".to_string(),
            "check the file's permissions",
        ),
        io::ErrorKind::IsADirectory => (
            "it is a directory".to_string(),
            "name a script file, e.g. examples/003_check.omen",
        ),
        _ => (error.to_string(), "check the path"),
    };
    input_error(
        "unreadable-file",
        format!("cannot read `{name}`: {reason}"),
        help,
    )
}

/// An error about the input as a whole: there is no text to point into, so the span is empty.
fn input_error(kind: &'static str, message: String, help: &str) -> Diagnostic {
    Diagnostic::error(kind, Span::new(0, 0), message).with_help(help)
}

/// Bad input: the diagnostics on stderr and nothing on stdout.
fn fail(
    style: Style,
    input: Input<'_>,
    errors: &[Diagnostic],
    warnings: &[Diagnostic],
) -> anyhow::Result<Status> {
    let text = render_diagnostics(style, input, errors, warnings);
    io::stderr()
        .lock()
        .write_all(text.as_bytes())
        .context("writing errors to stderr")?;
    Ok(Status::BadInput)
}

/// Bad input found before there was a text to draw: the file could not be read.
/// Reads the script (an EXPR or a file) and compiles it with the command's limits and parameters. On
/// failure the errors are already reported, and the command's status is returned as the error.
fn compile_input(
    input: &InputArgs,
    script: &ScriptArgs,
    limits: &LimitArgs,
    style: Style,
) -> Result<(Options, Source, Checked), anyhow::Result<Status>> {
    let options = Options {
        limits: limits.to_limits(),
        params: script.params.clone(),
        dialect: script.dialect(),
        ..Options::default()
    };
    let source = Source::read(input, options.parse.max_len).map_err(|e| fail_to_read(style, &e))?;
    let checked = compile(&source.text, &options)
        .map_err(|errors| fail(style, source.input(), &errors, &[]))?;
    Ok((options, source, checked))
}

fn fail_to_read(style: Style, error: &Diagnostic) -> anyhow::Result<Status> {
    io::stderr()
        .lock()
        .write_all(render_input_error(style, error).as_bytes())
        .context("writing errors to stderr")?;
    Ok(Status::BadInput)
}

/// Warnings on stderr first, so they are seen before a long result scrolls them away, then the result,
/// written through one buffer.
fn succeed(
    style: Style,
    input: Input<'_>,
    warnings: &[Diagnostic],
    render: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> anyhow::Result<Status> {
    let text = render_diagnostics(style, input, &[], warnings);
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
pub(crate) fn fresh_seed() -> u64 {
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

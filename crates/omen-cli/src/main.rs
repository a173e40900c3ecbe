//! `omen`: roll dice and compute exact odds from one dice notation.
//!
//! ```text
//! omen roll (EXPR | -f FILE) [--seed N | --dice V,V,...] [--format text|json] [--param NAME=VALUE]... [LIMITS]
//! omen prob (EXPR [EXPR]... | -f FILE) [--format text|markdown|csv|json] [--view eq|ge|le|gt|lt] [--param NAME=VALUE|A..B]...
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
//!   --work-budget N       64-bit multiply-adds of one computation (a rolled step or die costs a fixed amount)
//!   --max-process-steps N steps of one rolled process
//!   --max-call-depth N    nested calls of user functions
//!   --max-output BYTES    bytes of the result, refused before it is written
//! ```
//!
//! Every limit has a ceiling (`omen_core::Ceilings`); a value past it is a usage error. The work runs on
//! a thread with `omen_lang::STACK_BYTES` of stack, which fits the deepest evaluation the language
//! admits (`omen_lang::MAX_NESTING`), or a smaller one that still fits it under an address-space
//! limit (see [`worker`]).
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
//! Several EXPRs (or a `--param NAME=A..B` range) are computed one by one and shown side by side (see
//! [`compare`]). Text tables fit `COLUMNS` (else the terminal, else 100 columns), long fractions shown as
//! decimals unless `--exact`; CSV and JSON are always exact. `-o FILE` (every command) writes the result
//! to FILE instead of stdout, replacing FILE only when the command succeeds (see [`output`]).
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
mod anydice_prob;
mod args;
mod campaign;
mod compare;
mod database;
mod decimal;
mod derived;
mod diagnostics;
mod discord;
mod escape;
mod file_format;
mod fit;
mod float;
mod fraction;
mod json_input;
mod json_rows;
mod log_args;
mod odds;
mod output;
mod plot;
mod rules;
mod seed;
mod serve;
mod shared_args;
mod store_access;
mod tables;
mod transcript;
mod usage;
mod words;
mod worker;

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

use anyhow::Context;
use omen_core::{ChaChaDice, Limits, ScriptedDice};
use omen_lang::{
    Checked, Diagnostic, ExactResult, Options, Roll, RollNode, Span, Value, anydice, compile,
    exact, sample,
};
use serde::Serialize;

use crate::args::{Cli, Command, PlotFormat, ProbArgs, ProbFormat, ProbParam, RollArgs};
use crate::diagnostics::{Input, Style, render_diagnostics, render_input_error};
use crate::odds::Odds;
use crate::seed::fresh_seed;
use crate::shared_args::{InputArgs, LimitArgs, RollFormat, ScriptArgs, VisibilityArg};
use crate::transcript::{render_transcript, render_transcript_within};

/// How a command ended, when it ended on its own terms.
enum Status {
    Success,
    BadInput,
}

fn main() -> ExitCode {
    // clap exits by itself: 2 for a usage error, 0 for --help and --version.
    // Help fits the same width as every other text output (`COLUMNS`, else the terminal, else 100).
    let help_width = fit::help_width();
    let matches = args::command()
        .term_width(help_width)
        .max_term_width(help_width)
        .try_get_matches()
        .unwrap_or_else(|error| error.exit());
    let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches)
        .unwrap_or_else(|error| error.exit());
    // A game's subcommand is none of the built-in ones: its matches are run as the rule set describes.
    let game = matches
        .subcommand()
        .filter(|(name, _)| derived::is_game(name))
        .map(|(name, sub)| (name.to_string(), sub.clone()));
    if let Some(message) = usage::repeated_param(&cli) {
        <Cli as clap::CommandFactory>::command()
            .error(clap::error::ErrorKind::ArgumentConflict, message)
            .exit();
    }
    diagnostics::set_strict(cli.strict);
    diagnostics::set_colour(cli.color.colour(
        io::IsTerminal::is_terminal(&io::stderr()),
        std::env::var_os("NO_COLOR").as_deref(),
    ));
    if let Some(path) = &cli.output
        && let Err(error) = output::to_file(path)
    {
        eprintln!("error: cannot write {}: {error}", path.display());
        return ExitCode::from(2);
    }
    // Measured now, while no output is held: commands ask for it with the output locked.
    fit::init();
    let output_file = cli.output.clone();
    // The work runs on a thread whose stack fits the deepest walk the limits admit (the language
    // counts nesting against omen_lang::MAX_NESTING), so no input can overflow the stack; the memory
    // is only reserved, and used as deep as a program goes (see `worker` for address-space limits).
    let serving = game.is_none() && matches!(cli.command, Some(Command::Serve(_)));
    let work = move || {
        panic::catch_unwind(AssertUnwindSafe(|| match &game {
            Some((name, sub)) => status(derived::run(name, sub, &Limits::default())),
            None => run(&cli),
        }))
    };
    let worker = if serving {
        worker::spawn_server(work)
    } else {
        worker::spawn(work)
    };
    let outcome = match worker {
        Ok(handle) => handle.join().unwrap_or_else(Err),
        Err(error) => {
            eprintln!("internal error: cannot start the worker thread: {error}");
            return ExitCode::from(1);
        }
    };
    // A panic is a bug, and bugs are exit 1 like every other internal error; the hook has printed it.
    let succeeded = matches!(outcome, Ok(Ok(Status::Success)));
    if let Err(error) = output::finish(succeeded) {
        let path = output_file.as_deref().unwrap_or(std::path::Path::new("-"));
        eprintln!("internal error: cannot write {}: {error}", path.display());
        return ExitCode::from(1);
    }
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
    let Some(command) = &cli.command else {
        anyhow::bail!("no command (clap requires one)");
    };
    match command {
        Command::Roll(args) => roll(args),
        Command::Prob(args) => prob(args),
        Command::Plot(args) => plot(args),
        Command::Translate(args) => match Source::read(&args.input, anydice::MAX_SOURCE_BYTES) {
            Ok(source) => status(anydice_prob::translate(source.input())),
            Err(e) => fail_to_read(Style::Text, &e),
        },
        Command::Rules(args) => status(rules::run(args)),
        Command::Completions(args) => {
            let mut command = args::full_command();
            // Generated into memory first: clap_complete panics on a failed write (a closed pipe).
            let mut script = Vec::new();
            clap_complete::generate(args.shell, &mut command, "omen", &mut script);
            output::result().write_all(&script)?;
            Ok(Status::Success)
        }
        Command::Man => {
            let command = args::full_command();
            clap_mangen::Man::new(command).render(&mut output::result())?;
            Ok(Status::Success)
        }
        Command::Act(args) => status(act::act(args, &Limits::default())),
        Command::Campaign(args) => status(campaign::campaign(args)),
        Command::Char(args) => status(campaign::character(args)),
        Command::Log(args) => status(campaign::log(args, &Limits::default())),
        Command::Save(args) => status(campaign::save(args)),
        Command::Saved(args) => status(campaign::saved(args)),
        Command::Export(args) => status(campaign::export(args)),
        Command::Import(args) => status(campaign::import(args)),
        Command::Db(command) => status(database::run(command)),
        Command::Discord(command) => status(discord::run(command)),
        Command::Serve(args) => status(serve::run(args)),
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
        crate::fit::error(message);
        Ok(Status::BadInput)
    };
    let mut store = match store_access::open(&args.campaign.db) {
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
        // A campaign derives its seeds from its key and log; a chosen one is refused by the store.
        None => args
            .source
            .seed
            .map_or(omen_store::Dice::Derived, omen_store::Dice::Seed),
    };
    let character = args.campaign.character.as_deref();
    let options = VisibilityArg::options(args.campaign.visibility);
    let request = match saved {
        Some(saved) => omen_store::RollRequest::saved(&name, saved),
        None => omen_store::RollRequest::expression(&name, &source.text)
            .in_dialect(args.script.dialect.given()),
    };
    let rolled = store.submit_roll(
        request
            .for_character(character)
            .with_params(params.clone())
            .with_dice(dice.clone())
            .with_limits(limits.clone())
            .with_options(options),
    );
    let (entry, rolled) = match rolled {
        Ok(done) => done,
        Err(omen_store::StoreError::Language(errors)) => {
            return fail(style, source.input(), &errors, &[]);
        }
        Err(error) => return bad(error.to_string()),
    };
    let mut warnings = rolled.warnings;
    if !rolled.unused_dice.is_empty() {
        warnings.push(diagnostics::unused_dice(&source.text, &rolled.unused_dice));
    }
    let seed = dice.seed();
    let text = match args.source.format {
        RollFormat::Text => format!(
            "{}logged as entry {} in `{name}`{}\n",
            render_transcript(&rolled.roll, seed),
            entry.sequence,
            campaign::hidden_note(&entry, &name)
        ),
        RollFormat::Json => {
            let report = serde_json::json!({
                "expression": &rolled.roll.expression,
                "seed": seed,
                "result": &rolled.roll.result,
                "tree": &rolled.roll.tree,
                "campaign": name,
                "log_entry": entry.sequence,
                "visibility": entry.visibility,
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
    let anydice = anydice_prob::is_anydice(args.script.dialect.name.as_deref());
    if args.campaign.wanted(&args.input) {
        if anydice {
            anydice_prob::refuse(anydice_prob::Refused::CampaignRoll);
            return Ok(Status::BadInput);
        }
        return roll_in_campaign(args, style);
    }
    if anydice {
        return roll_anydice(args, style);
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
                warnings.push(diagnostics::unused_dice(source, dice.remaining()));
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
    // Rendering stops as soon as the text passes --max-output, so a huge roll is never built whole.
    let max_output = usize::try_from(options.limits.max_output).unwrap_or(usize::MAX);
    let text = match args.source.format {
        RollFormat::Text => {
            // After the seed line, which stays first so that a roll can be replayed from it.
            render_transcript_within(&rolled, seed, max_output).map(|transcript| {
                let split = if seed.is_some() {
                    transcript.find('\n').map_or(0, |i| i + 1)
                } else {
                    0
                };
                let (seed_line, rest) = transcript.split_at(split);
                let text = format!("{seed_line}reading: {}\n{rest}", checked.reading);
                fit::wrap(&text, fit::width())
            })
        }
        RollFormat::Json => {
            let report = RollReport {
                expression: &rolled.expression,
                seed,
                result: &rolled.result,
                tree: &rolled.tree,
                reading: &checked.reading,
            };
            let mut out = CappedBuffer {
                bytes: Vec::new(),
                limit: max_output,
            };
            match serde_json::to_writer(&mut out, &report) {
                Ok(()) => {
                    out.bytes.push(b'\n');
                    Some(String::from_utf8(out.bytes).context("writing the roll as JSON")?)
                }
                Err(error) if error.is_io() => None,
                Err(error) => return Err(error).context("writing the roll as JSON"),
            }
        }
    };
    let Some(text) = text.filter(|t| t.len() <= max_output) else {
        return fail(
            style,
            input,
            &[diagnostics::too_much_output(
                u128::from(options.limits.max_output) + 1,
                options.limits.max_output,
            )
            .with_help("roll fewer dice or a shorter process, or raise --max-output")],
            &warnings,
        );
    };
    succeed(style, input, &warnings, |out| {
        out.write_all(text.as_bytes())
    })
}

/// `omen roll --dialect anydice`: the program's outputs, one roll each, from the given dice or seed.
fn roll_anydice(args: &RollArgs, style: Style) -> anyhow::Result<Status> {
    let limits = args.limits.to_limits();
    let source = match Source::read(&args.input, anydice::MAX_SOURCE_BYTES) {
        Ok(source) => source,
        Err(e) => return fail_to_read(style, &e),
    };
    let (mut dice, seed): (Box<dyn omen_core::DieSource>, _) = match &args.source.dice {
        Some(values) => (Box::new(ScriptedDice::new(values.clone())), None),
        None => {
            let seed = args.source.seed.unwrap_or_else(fresh_seed);
            (Box::new(ChaChaDice::from_seed(seed)), Some(seed))
        }
    };
    let dice = anydice_prob::RollDice {
        dice: dice.as_mut(),
        seed,
    };
    status(anydice_prob::roll(source.input(), &limits, dice, style))
}

/// The computed columns, their reading lines: with `--dialect anydice`, one column per output.
type Computed = (
    Vec<Column>,
    Vec<(Source, Vec<Diagnostic>, ExactResult, u64)>,
    Vec<String>,
);

/// `prob --dialect anydice`: each program's outputs are its columns (explosion depth unused: the
/// program's depth cuts are its warnings).
fn anydice_columns(
    args: &ProbArgs,
    inputs: Vec<Column>,
    style: Style,
) -> Result<Computed, anyhow::Result<Status>> {
    if !args.params.is_empty() {
        eprintln!("error: AnyDice programs take no --param; set a variable in the program instead");
        return Err(Ok(Status::BadInput));
    }
    let mut sources = Vec::new();
    for column in &inputs {
        match Source::read(&column.input, anydice::MAX_SOURCE_BYTES) {
            Ok(source) => sources.push(source),
            Err(e) => return Err(fail_to_read(style, &e)),
        }
    }
    let programs: Vec<_> = (inputs.iter().zip(&sources))
        .map(|(column, source)| anydice_prob::Program {
            label: &column.label,
            input: source.input(),
        })
        .collect();
    let bounds = anydice_prob::Bounds {
        limits: args.limits.to_limits(),
        max_columns: MAX_COLUMNS,
        output_bound: &|result| odds::output_bound(result, args.format),
    };
    let outputs = match anydice_prob::columns(&programs, &bounds, style) {
        Ok(Some(outputs)) => outputs,
        Ok(None) => return Err(Ok(Status::BadInput)),
        Err(e) => return Err(Err(e)),
    };
    let mut computed: Computed = Default::default();
    for output in outputs {
        let (column, source) = (&inputs[output.program], &sources[output.program]);
        computed.0.push(Column {
            label: output.label,
            input: InputArgs {
                expression: column.input.expression.clone(),
                file: column.input.file.clone(),
            },
            script: ScriptArgs {
                params: Vec::new(),
                dialect: column.script.dialect.clone(),
            },
        });
        let text = Source {
            text: source.text.clone(),
            file: source.file.clone(),
        };
        computed.1.push((text, output.warnings, output.result, 0));
        computed.2.push(output.reading);
    }
    Ok(computed)
}

/// One distribution `omen prob` computes: an expression or file with its parameters.
struct Column {
    label: String,
    input: InputArgs,
    script: ScriptArgs,
}

/// Most distributions one `omen prob` compares.
const MAX_COLUMNS: usize = 100;

/// The distributions asked for: each EXPR (or the file), once per value of a `--param` range.
fn columns(args: &ProbArgs) -> Result<Vec<Column>, String> {
    let inputs: Vec<(String, InputArgs)> = match &args.file {
        Some(path) => vec![(
            path.display().to_string(),
            InputArgs {
                expression: None,
                file: Some(path.clone()),
            },
        )],
        None => args
            .expressions()
            .into_iter()
            .map(|e| {
                let input = InputArgs {
                    expression: Some(e.clone()),
                    file: None,
                };
                (e, input)
            })
            .collect(),
    };
    let mut fixed = Vec::new();
    let mut range = None;
    for param in &args.params {
        match param {
            ProbParam::One(name, value) => fixed.push((name.clone(), value.clone())),
            ProbParam::Range(name, low, high) => {
                if range.is_some() {
                    return Err(
                        "only one --param may be a range; give the others one value each".into(),
                    );
                }
                range = Some((name.clone(), *low, *high));
            }
        }
    }
    let values: Vec<Option<i64>> = match &range {
        Some((_, low, high)) => (*low..=*high).map(Some).collect(),
        None => vec![None],
    };
    if inputs.len() * values.len() > MAX_COLUMNS {
        return Err(format!(
            "{} distributions to compare (limit {MAX_COLUMNS}); give fewer expressions or a narrower range",
            inputs.len() * values.len()
        ));
    }
    let mut columns = Vec::new();
    for (label, input) in &inputs {
        for value in &values {
            let mut params = fixed.clone();
            let mut label = label.clone();
            if let (Some((name, _, _)), Some(value)) = (&range, value) {
                params.push((name.clone(), Value::Int(*value)));
                label = if inputs.len() == 1 {
                    format!("{name}={value}")
                } else {
                    format!("{label} {name}={value}")
                };
            }
            let (input, script) = match saved_name(input) {
                Some(name) => {
                    let given = ScriptArgs {
                        params,
                        dialect: args.dialect.clone(),
                    };
                    campaign::saved_input(name, &args.campaign, &args.db, &given)?
                }
                None => (
                    InputArgs {
                        expression: input.expression.clone(),
                        file: input.file.clone(),
                    },
                    ScriptArgs {
                        params,
                        dialect: args.dialect.clone(),
                    },
                ),
            };
            columns.push(Column {
                label,
                input,
                script,
            });
        }
    }
    Ok(columns)
}

/// Columns the text output may fill: `COLUMNS`, else the terminal's width, else 100.
fn text_width() -> usize {
    fit::width()
}

/// A buffer that refuses to grow past `limit` bytes: a writer into it fails instead.
struct CappedBuffer {
    bytes: Vec<u8>,
    limit: usize,
}

impl Write for CappedBuffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.bytes.len().saturating_add(buf.len()) > self.limit {
            return Err(io::Error::other("the output limit is reached"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn prob(args: &ProbArgs) -> anyhow::Result<Status> {
    match file_format::prob_format(args.format_given, output::file().as_deref()) {
        Ok(format) => prob_or_plot(
            &ProbArgs {
                format,
                ..args.clone()
            },
            None,
        ),
        Err(message) => {
            eprintln!("error: {message}");
            Ok(Status::BadInput)
        }
    }
}

/// `omen plot`: the distributions `omen prob` would compute, drawn as SVG.
fn plot(args: &args::PlotArgs) -> anyhow::Result<Status> {
    let format = match file_format::plot_format(args.format, output::file().as_deref()) {
        Ok(format) => format,
        Err(message) => {
            eprintln!("error: {message}");
            return Ok(Status::BadInput);
        }
    };
    prob_or_plot(&args.as_prob(), Some(format))
}

/// `plot` is the image format for `omen plot`, `None` for `omen prob`.
fn prob_or_plot(args: &ProbArgs, plot: Option<PlotFormat>) -> anyhow::Result<Status> {
    let style = match args.format {
        ProbFormat::Json => Style::Json,
        ProbFormat::Text | ProbFormat::Markdown | ProbFormat::Csv => Style::Text,
    };
    if args.seed.is_some() {
        eprintln!(
            "error: `omen prob` takes no --seed: it computes the exact odds, and rolls no dice\n  \
             = help: seeds belong to `omen roll`, e.g. `omen roll 2d6 --seed 3`"
        );
        return Ok(Status::BadInput);
    }
    let anydice = anydice_prob::is_anydice(args.dialect.name.as_deref());
    if anydice && args.expressions().iter().any(|e| e.starts_with('@')) {
        anydice_prob::refuse(anydice_prob::Refused::SavedRoll);
        return Ok(Status::BadInput);
    }
    let columns = match columns(args) {
        Ok(columns) => columns,
        Err(message) => {
            crate::fit::error(message);
            return Ok(Status::BadInput);
        }
    };
    // An AnyDice program gives its columns itself, one per output; the loop below is Omen's.
    let (columns, mut computed, mut readings) = match anydice {
        true => match anydice_columns(args, columns, style) {
            Ok(computed) => computed,
            Err(status) => return status,
        },
        false => (columns, Vec::new(), Vec::new()),
    };
    let mut bound: u128 = 0;
    for column in columns.iter().filter(|_| !anydice) {
        let (options, script, checked) =
            match compile_input(&column.input, &column.script, &args.limits, style) {
                Ok(compiled) => compiled,
                Err(status) => return status,
            };
        let result = match exact(&checked.program, &options.limits) {
            Ok(result) => result,
            Err(error) => return fail(style, script.input(), &[error], &checked.warnings),
        };
        // Side by side, each distribution's own report bounds its column from above.
        bound = bound.saturating_add(odds::output_bound(&result, args.format));
        if bound > u128::from(options.limits.max_output) {
            return fail(
                style,
                script.input(),
                &[diagnostics::too_much_output(
                    bound,
                    options.limits.max_output,
                )],
                &checked.warnings,
            );
        }
        readings.push(checked.reading);
        computed.push((
            script,
            checked.warnings,
            result,
            options.limits.explode_depth,
        ));
    }
    let layout = odds::Layout {
        width: text_width(),
        exact: args.exact,
        decimals: usize::from(args.decimals),
    };
    // One expression gets the full table, unless --view or --transpose asks for the side-by-side
    // one (JSON has every view of every outcome either way).
    let reshaped = args.view != compare::View::Eq || args.transpose;
    if reshaped && args.format == ProbFormat::Json && computed.len() == 1 && plot.is_none() {
        eprintln!(
            "warning: --view and --transpose shape tables; JSON gives P(=), P(≥) and P(≤) of every outcome"
        );
        if diagnostics::strict() {
            return strict_failure();
        }
    }
    if let [(script, warnings, result, explode_depth)] = computed.as_slice()
        && plot.is_none()
        && (!reshaped || args.format == ProbFormat::Json)
    {
        let reading = readings.first().map_or("", String::as_str);
        let odds = Odds::new(&script.text, result, *explode_depth).with_reading(reading);
        if let Some(note) = odds.depth_limit_warning(args.exact)
            && (args.format == ProbFormat::Csv || diagnostics::strict())
        {
            // CSV has no place for it, and a cut-off result must never pass silently; under
            // --strict it is a warning like any other.
            eprint!(
                "{}",
                fit::wrap(
                    &format!("warning: explosion depth limit reached: {note}\n"),
                    fit::width()
                )
            );
            if diagnostics::strict() {
                return strict_failure();
            }
        }
        let reading = fit::wrap(&format!("reading: {reading}\n"), layout.width);
        return succeed(style, script.input(), warnings, |out| match args.format {
            ProbFormat::Text => out
                .write_all(reading.as_bytes())
                .and_then(|()| odds.table(out, &layout)),
            ProbFormat::Markdown => out
                .write_all(reading.as_bytes())
                .and_then(|()| odds.markdown(out)),
            ProbFormat::Csv => odds.csv(out),
            ProbFormat::Json => odds.json(out),
        });
    }
    // Side by side: each column's warnings and depth-limit notes first, named by its column.
    let mut stderr = String::new();
    for ((script, warnings, result, explode_depth), column) in computed.iter().zip(&columns) {
        stderr.push_str(&render_diagnostics(style, script.input(), &[], warnings));
        if args.format != ProbFormat::Json
            && let Some(note) =
                Odds::new(&script.text, result, *explode_depth).depth_limit_warning(args.exact)
        {
            stderr.push_str(&fit::wrap(
                &format!(
                    "warning: `{}`: explosion depth limit reached: {note}\n",
                    column.label
                ),
                fit::width(),
            ));
        }
    }
    io::stderr()
        .lock()
        .write_all(stderr.as_bytes())
        .context("writing warnings to stderr")?;
    if !stderr.is_empty() && diagnostics::strict() {
        return strict_failure();
    }
    let comparison = compare::Comparison::new(
        computed
            .iter()
            .zip(&columns)
            .map(|((_, _, result, _), column)| {
                compare::Series::new(column.label.clone(), &result.distribution, &result.labels)
            })
            .collect(),
        args.view,
    );
    if let Some(refused) = comparison.unordered_view() {
        eprintln!("error: {refused}");
        return Ok(Status::BadInput);
    }
    if let Some(format) = plot {
        let image = match format {
            PlotFormat::Svg => plot::svg(&comparison).map(String::into_bytes),
            PlotFormat::Png => plot::png(&comparison),
        };
        let image = match image {
            Ok(image) => image,
            Err(message) => {
                crate::fit::error(message);
                return Ok(Status::BadInput);
            }
        };
        output::result().write_all(&image)?;
        if let Some(path) = output::file() {
            // The chart went to a file, so stdout is silent: say what was written, and where.
            eprintln!("{}", plot::written(&path, format, image.len()));
        }
        return Ok(Status::Success);
    }
    let exact = args.exact;
    let transpose = args.transpose;
    let no_input = Input {
        text: "",
        file: None,
    };
    succeed(style, no_input, &[], |out| match args.format {
        ProbFormat::Text => comparison.text(out, exact, transpose, layout.width),
        ProbFormat::Markdown => comparison.markdown(out, exact, transpose),
        ProbFormat::Csv => comparison.csv(out, transpose),
        ProbFormat::Json => {
            // One report per distribution, each as `omen prob --format json` gives it, with its label
            // first.
            out.write_all(b"[")?;
            for (i, ((script, _, result, explode_depth), column)) in
                computed.iter().zip(&columns).enumerate()
            {
                if i > 0 {
                    out.write_all(b",")?;
                }
                let mut one = Vec::new();
                Odds::new(&script.text, result, *explode_depth).json(&mut one)?;
                let label = serde_json::to_string(&column.label)?;
                write!(out, "{{\"label\":{label},")?;
                // The report is one object on one line: everything after its opening brace.
                out.write_all(one.trim_ascii().get(1..).unwrap_or_default())?;
            }
            writeln!(out, "]")
        }
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
    if !warnings.is_empty() && diagnostics::strict() {
        return strict_failure();
    }
    let mut stdout = BufWriter::new(crate::output::result());
    render(&mut stdout)
        .and_then(|()| stdout.flush())
        .context("writing the result to stdout")?;
    Ok(Status::Success)
}

/// Warnings under `--strict`: the command fails as bad input, with no result.
fn strict_failure() -> anyhow::Result<Status> {
    eprintln!("error: warnings are errors under --strict; no result was printed");
    Ok(Status::BadInput)
}

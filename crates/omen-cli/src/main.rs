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

// STYLE.md 16: no function over 100 lines; a longer one is split into named steps.
#![deny(clippy::too_many_lines)]

mod act;
mod anydice_prob;
mod anydice_roll;
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
mod prob;
mod roll;
mod rules;
mod seed;
mod serve;
mod shared_args;
mod source;
mod status;
mod store_access;
mod tables;
mod transcript;
mod usage;
mod words;
mod worker;

use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

use omen_core::Limits;
use omen_lang::anydice;

use crate::args::{Cli, Command};
use crate::diagnostics::Style;
use crate::source::Source;
use crate::status::{Status, fail_to_read, status};

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
        Command::Roll(args) => roll::roll(args),
        Command::Prob(args) => prob::prob(args),
        Command::Plot(args) => prob::plot(args),
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

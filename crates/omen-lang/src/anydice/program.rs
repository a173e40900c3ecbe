//! The front end's entry points: parse, then run, check or translate a whole program.

use omen_core::Limits;

use crate::diagnostic::Diagnostic;

use super::approximate::Precision;
use super::ast;
use super::interp::Interp;
use super::lexer;
use super::output::Run;
use super::parser::Parser;
use super::translate::{self, Translation};
use super::value::Frame;

/// Parses and runs an AnyDice program.
///
/// Deep programs recurse: run it on a thread with [`crate::STACK_BYTES`] of stack, as the CLI and
/// the server do.
///
/// # Errors
/// The first syntax error, or the calculation error that stopped the run (a core limit among them:
/// the work budget, cancellation, too many outcomes), each with a span and, where there is one, a hint.
pub fn run(source: &str, limits: &Limits) -> Result<Run, Vec<Diagnostic>> {
    run_with(source, limits, Precision::Exact)
}

/// [`run`] at the precision asked for: exact, or approximate (weights rounded where values are
/// kept), in which case the run warns that its answer is approximate.
///
/// # Errors
/// As [`run`].
pub fn run_with(
    source: &str,
    limits: &Limits,
    precision: Precision,
) -> Result<Run, Vec<Diagnostic>> {
    let program = parse(source).map_err(|d| vec![d])?;
    let mut interp = Interp::new(limits);
    interp.precision_bits = precision.bits();
    let mut globals = Frame::new();
    interp.block(&program, &mut globals).map_err(|d| vec![d])?;
    let mut warnings = interp.warnings;
    if let (Precision::Digits(digits), Some(span)) = (precision, interp.rounded_at) {
        warnings.push(approximate_warning(digits, interp.roundings, span));
    }
    Ok(Run {
        outputs: interp.outputs,
        warnings,
    })
}

/// The warning an approximate answer always carries.
fn approximate_warning(digits: u32, roundings: u64, span: crate::span::Span) -> Diagnostic {
    Diagnostic::warning(
        "approximate",
        span,
        format!(
            "the answer is approximate: weights were rounded to about {} significant digits, {roundings} time(s), first here",
            digits.min(super::approximate::MAX_DIGITS)
        ),
    )
    .with_help("drop --approximate for the exact answer, or ask for more digits")
}

/// Whether `source` parses as an AnyDice program.
///
/// # Errors
/// The first syntax error.
pub fn check(source: &str) -> Result<(), Diagnostic> {
    parse(source).map(|_| ())
}

/// Omen's spelling of each output of the program, where one exists (or why there is none).
///
/// # Errors
/// The first syntax error.
pub fn translate(source: &str) -> Result<Vec<Translation>, Diagnostic> {
    parse(source).map(|program| translate::program(&program))
}

fn parse(source: &str) -> Result<Vec<ast::Stmt>, Diagnostic> {
    let tokens = lexer::lex(source)?;
    Parser::new(&tokens, source.len()).program()
}

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
    interp
        .block(&program, &mut globals)
        .map_err(|d| vec![runaway(d, interp.largest_total_bits, precision)])?;
    let mut warnings = interp.warnings;
    if let (Precision::Digits(digits), Some(span)) = (precision, interp.rounded_at) {
        warnings.push(approximate_warning(digits, interp.roundings, span));
    }
    Ok(Run {
        outputs: interp.outputs,
        warnings,
    })
}

/// The most significant bits of a kept die's total past which a run stopped by the work budget is
/// said to have run away: more than the most precise approximate answer keeps
/// ([`super::approximate::MAX_DIGITS`] digits), so asking for one would make the weights smaller.
pub const RUNAWAY_BITS: u64 = super::approximate::MAX_DIGITS as u64 * 10 / 3 + 8;

/// The same refusal on every face (the command line, the API): the run stopped on the work budget
/// while its exact weights had grown past [`RUNAWAY_BITS`], which the approximate mode is for.
/// Any other error, or one in the approximate mode already, is returned as it is.
fn runaway(error: Diagnostic, largest_total_bits: u64, precision: Precision) -> Diagnostic {
    if error.kind != "work-budget"
        || precision != Precision::Exact
        || largest_total_bits <= RUNAWAY_BITS
    {
        return error;
    }
    // log10(2) > 0.30103: the digits of a number of that many bits, rounded down.
    let digits = largest_total_bits.saturating_mul(30_103) / 100_000;
    Diagnostic::error(
        "exact-too-large",
        error.span,
        format!(
            "calculation error: the exact weights have grown to about {digits} digits, and the \
             work budget is spent before the answer is complete"
        ),
    )
    .with_help(
        "ask for an approximate answer (`--approximate DIGITS` on the command line, \
         `\"approximate\": DIGITS` in the API), or simplify the program",
    )
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
    // Written so that every face can show it (the server rewrites help naming a bare flag).
    .with_help(
        "ask without `--approximate` (`\"approximate\"` in the API) for the exact answer, or \
         ask for more digits",
    )
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

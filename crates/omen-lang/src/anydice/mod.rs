//! AnyDice programs, run exactly: a lexer, a parser and an interpreter of AnyDice's language over
//! Omen's exact distributions.
//!
//! AnyDice's semantics do not lower to Omen's checked program: a function's parameter type decides
//! whether a die is passed whole or the call is expanded over its outcomes (`:n`) or over a
//! collection's sorted rolls (`:s`); variables are dynamically scoped and the iterations of one
//! expanded call share a frame; an empty die is dropped from results and the rest renormalised.
//! So the front end has an interpreter of its own, over the same core: exact fractions, the work
//! budget paid before each loop or allocation, cancellation, and omen-core's pool engine wherever a
//! collection is read by position without a function seeing each roll.
//!
//! Where Omen differs from AnyDice on purpose (exact fractions instead of floats, an error instead of
//! a silent integer overflow, warnings for the probability the depth limits cut) is written in
//! docs/dialects.md.
//!
//! ```
//! use omen_lang::anydice;
//! use omen_core::Limits;
//!
//! let run = anydice::run("output [highest 1 of 2d20] named \"advantage\"", &Limits::default()).unwrap();
//! assert_eq!(run.outputs[0].label, "advantage");
//! let d = run.outputs[0].distribution.as_ref().unwrap();
//! assert_eq!(d.probability(&20).to_string(), "39/400");
//! ```

mod ast;
mod call;
mod interp;
mod label;
mod lexer;
mod library;
mod ops;
mod parser;
mod pool;
mod translate;
mod value;

use omen_core::{Distribution, Limits};

use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::span::Span;

pub use interp::{MAX_FUNCTION_DEPTH, MAX_OUTPUTS, MAX_WALK_DEPTH};
pub use lexer::MAX_SOURCE_BYTES;
pub use parser::MAX_PARSE_DEPTH;
pub use translate::Translation;

/// One `output` of a program: one column of the answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    /// As AnyDice labels it: the name given (with `[VAR]` filled in), or `output K` for the K-th
    /// output of the program.
    pub label: String,
    /// The distribution; `None` for an empty table (`output d{}`).
    pub distribution: Option<Distribution<i64>>,
    /// The `output` statement.
    pub span: Span,
}

/// What a program printed, and what it should be warned about.
#[derive(Clone, Debug)]
pub struct Run {
    pub outputs: Vec<Output>,
    pub warnings: Vec<Diagnostic>,
}

/// Parses and runs an AnyDice program.
///
/// Deep programs recurse: run it on a thread with [`crate::STACK_BYTES`] of stack, as the CLI and
/// the server do.
///
/// # Errors
/// The first syntax error, or the calculation error that stopped the run (a core limit among them:
/// the work budget, cancellation, too many outcomes), each with a span and, where there is one, a hint.
pub fn run(source: &str, limits: &Limits) -> Result<Run, Vec<Diagnostic>> {
    let program = parse(source).map_err(|d| vec![d])?;
    let mut interp = interp::Interp::new(limits);
    let mut globals = interp::Frame::new();
    interp.block(&program, &mut globals).map_err(|d| vec![d])?;
    Ok(Run {
        outputs: interp.outputs,
        warnings: interp.warnings,
    })
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
    parser::Parser::new(&tokens, source.len()).program()
}

/// A syntax error in AnyDice's class, with Omen's span.
pub(crate) fn syntax_error(span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(
        "syntax-error",
        span,
        format!("syntax error: {}", message.into()),
    )
}

/// A calculation error in AnyDice's class (a core limit keeps its own kind), with Omen's span.
pub(crate) fn calculation_error(span: Span, fault: value::Fault) -> Diagnostic {
    match fault {
        value::Fault::Calculation { message, help } => {
            let d = Diagnostic::error(
                "calculation-error",
                span,
                format!("calculation error: {message}"),
            );
            match help {
                Some(h) => d.with_help(h),
                None => d,
            }
        }
        value::Fault::Core(e) => {
            let mut d = core_diagnostic(&e, span);
            d.message = format!("calculation error: {}", d.message);
            d
        }
    }
}

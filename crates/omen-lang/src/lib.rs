//! Omen's dice language: the notation players already type, checked once and run two ways.
//!
//! ```
//! use omen_lang::{compile, Options, exact, sample, ValueDistribution};
//! use omen_core::ScriptedDice;
//!
//! let options = Options::default();
//! let compiled = compile("4d6kh3", &options).unwrap();
//! // The exact distribution…
//! let result = exact(&compiled.program, &options.limits).unwrap();
//! let ValueDistribution::Int(d) = result.distribution else { unreachable!() };
//! assert_eq!(d.probability(&18).to_string(), "7/432");
//! // …and one roll of the same program, here with given dice.
//! let roll = sample(&compiled.program, &options.limits, &mut ScriptedDice::new(vec![6, 2, 5, 6])).unwrap();
//! assert_eq!(roll.result.to_string(), "17");
//! ```

pub mod check;
pub mod diagnostic;
pub mod exact;
pub mod program;
pub mod sample;
pub mod span;
pub mod syntax;

use omen_core::Limits;

pub use check::Checked;
pub use diagnostic::{Diagnostic, Severity};
pub use exact::{ExactResult, ValueDistribution, exact};
pub use program::Program;
pub use sample::{Roll, RollKind, RollNode, Value, sample};
pub use span::Span;
pub use syntax::ParseLimits;

/// Everything that bounds a compile and a run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub limits: Limits,
    pub parse: ParseLimits,
}

/// Parses and checks an expression: one program for both interpreters.
///
/// # Errors
/// Every error the parser and checker found, with spans; warnings ride along on success.
pub fn compile(source: &str, options: &Options) -> Result<Checked, Vec<Diagnostic>> {
    let expr = syntax::parse(source, &options.parse)?;
    check::check(source, &expr, &options.limits)
}

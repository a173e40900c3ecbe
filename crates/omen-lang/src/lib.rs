//! Omen's dice language: the notation players already type, plus scripts (parameters, bindings,
//! functions, labels, tuples, `if`/`match`, Markov processes), checked once and run two ways.
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
//!
//! // A bound roll is rolled once: x + x is 2·d6, never 2d6.
//! let twice = compile("let x = d6; x + x", &options).unwrap();
//! let ValueDistribution::Int(d) = exact(&twice.program, &options.limits).unwrap().distribution else { unreachable!() };
//! assert_eq!(d.len(), 6);
//! ```

// STYLE.md 16: no function over 100 lines; a longer one is split into named steps.
#![deny(clippy::too_many_lines)]

pub mod anydice;
pub mod check;
pub mod diagnostic;
pub mod exact;
mod group_scale;
mod keep_ends;
pub mod labels;
mod nesting;
pub mod number;
pub mod pool;
pub mod program;
pub mod sample;
pub mod span;
pub mod syntax;
pub mod value;

use omen_core::Limits;

pub use check::Checked;
pub use diagnostic::{Diagnostic, Severity};
pub use exact::{Criticals, ExactResult, ValueDistribution, exact, exact_with_budget};
pub use nesting::MAX_NESTING;
pub(crate) use nesting::nesting_error;
pub use program::Program;
pub use sample::{Roll, RollKind, RollNode, sample, sample_with_budget};
pub use span::Span;
pub use syntax::ParseLimits;
pub use value::Value;

/// The stack a thread needs to compile and run any program the limits admit. An unoptimised build
/// takes up to about 37 KiB of stack per level of [`MAX_NESTING`] (an optimised one far less), so
/// 10,000 levels need about 370 MiB. The CLI's test `the_deepest_admitted_walks_fit_the_stack` runs
/// the deepest walks of both interpreters. Run `compile`, `exact` and `sample` on a thread with at
/// least this much stack (`std::thread::Builder::stack_size`): the memory is only reserved, and used
/// as deep as a program goes.
pub const STACK_BYTES: usize = 512 << 20;

/// Everything that bounds a compile and a run, and the values given for a script's parameters.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub limits: Limits,
    pub parse: ParseLimits,
    /// `--param name=value`: values for `param` declarations, overriding their defaults.
    pub params: Vec<(String, Value)>,
    /// The notation the source is written in (`--dialect`); Omen's own by default.
    pub dialect: &'static syntax::Dialect,
}

/// Parses and checks an expression or script: one program for both interpreters.
///
/// # Errors
/// Every error the parser and checker found, with spans; warnings ride along on success.
///
/// The result's `reading` is the canonical rendering of what was parsed ([`syntax::render`]): Omen's
/// notation, fully parenthesised, with the dialect's meanings, e.g. `(3d6) > (2d10)`.
pub fn compile(source: &str, options: &Options) -> Result<Checked, Vec<Diagnostic>> {
    let parsed = syntax::parse_with(source, &options.parse, options.dialect)?;
    let mut checked = check::check(source, &parsed.script, &options.limits, &options.params)?;
    checked.reading = syntax::render::script(&parsed.script);
    let mut warnings = parsed.warnings;
    warnings.append(&mut checked.warnings);
    warnings.sort_by_key(|d| (d.span.start, d.span.end));
    checked.warnings = warnings;
    Ok(checked)
}

/// Reads a parameter value as given on a command line: an integer, `true`/`false`, or a label
/// (anything else, with surrounding quotes removed).
pub fn parse_param_value(text: &str) -> Value {
    let t = text.trim();
    if let Ok(n) = t.parse::<i64>() {
        return Value::Int(n);
    }
    match t.to_ascii_lowercase().as_str() {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        _ => Value::text(t.trim_matches('"')),
    }
}

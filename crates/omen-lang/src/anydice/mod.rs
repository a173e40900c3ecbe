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

mod approximate;
mod ast;
mod builtin;
mod call;
mod error;
mod interp;
mod label;
mod lexer;
mod library;
mod ops;
mod output;
mod parser;
mod pool;
mod pool_call;
mod program;
mod translate;
mod value;

pub use approximate::{MAX_DIGITS, Precision};
pub use interp::{MAX_FUNCTION_DEPTH, MAX_OUTPUTS, MAX_WALK_DEPTH};
pub use lexer::MAX_SOURCE_BYTES;
pub use output::{Output, Run};
pub use parser::MAX_PARSE_DEPTH;
pub use program::{check, run, run_with, translate};
pub use translate::Translation;

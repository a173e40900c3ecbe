//! How deep an evaluation may nest, and the error past it: shared by both interpreters, so it sits
//! below them.

use crate::diagnostic::Diagnostic;
use crate::span::Span;

/// The deepest path either interpreter may take through a program, counted in nodes (a call adds its
/// body's depth to the caller's, and a `let` its body's): 200 calls of a body 20 unary minuses deep
/// (about 4,600), or a script of 9,000 `let`s, fit. Past it, evaluation stops with a
/// `nested-too-deeply` error.
pub const MAX_NESTING: usize = 10_000;

pub(crate) fn nesting_error(span: Span) -> Diagnostic {
    Diagnostic::error(
        "nested-too-deeply",
        span,
        format!(
            "the evaluation nests more than {MAX_NESTING} levels deep (each call adds its body's depth)"
        ),
    )
    .with_help("lower --max-call-depth, or write the recursion as a process: `absorb(step, start)`")
}

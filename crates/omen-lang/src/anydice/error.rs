//! AnyDice's two classes of error, syntax and calculation, as Omen's diagnostics with spans: every
//! stage of the front end reports through these, so they sit below all of them.

use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::span::Span;

use super::value::Fault;

/// What a step of the interpreter returns: a value, or the diagnostic that stopped the run.
pub type Run<T> = Result<T, Diagnostic>;

/// A syntax error in AnyDice's class, with Omen's span.
pub fn syntax_error(span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(
        "syntax-error",
        span,
        format!("syntax error: {}", message.into()),
    )
}

/// A calculation error in AnyDice's class (a core limit keeps its own kind), with Omen's span.
pub fn calculation_error(span: Span, fault: Fault) -> Diagnostic {
    match fault {
        Fault::Calculation { message, help } => {
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
        Fault::Core(e) => {
            let mut d = core_diagnostic(&e, span);
            d.message = format!("calculation error: {}", d.message);
            d
        }
    }
}

//! What a program printed: its outputs (the answer's columns) and its warnings.

use omen_core::Distribution;

use crate::diagnostic::Diagnostic;
use crate::span::Span;

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
    /// Whether the approximate mode had rounded a value before this output was computed, so that
    /// it may be approximate (an output computed before any rounding is exact).
    pub approximate: bool,
}

/// What a program printed, and what it should be warned about.
#[derive(Clone, Debug)]
pub struct Run {
    pub outputs: Vec<Output>,
    pub warnings: Vec<Diagnostic>,
}

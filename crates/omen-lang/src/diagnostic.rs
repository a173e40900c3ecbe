//! Errors and warnings as data: a span into the input, a kind, a message and a hint.
//!
//! The language never prints. The CLI draws the input with a caret under `span`; the server sends the same
//! fields as JSON.

use omen_core::CoreError;
use serde::Serialize;

use crate::span::Span;
use crate::value::Value;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One problem found in the input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable machine-readable name, e.g. `unexpected-token`, `too-many-dice`.
    pub kind: &'static str,
    /// What is wrong, in lower case, e.g. "expected a number after `kh`".
    pub message: String,
    /// Where it is wrong.
    pub span: Span,
    /// How to fix it, when there is something useful to say.
    pub help: Option<String>,
}

/// The longest run of text without a space that a message repeats whole: a longer one is something
/// the input said (a name, a value, a label) and is cut, so that a message stays a few lines however
/// long the input's names are. The source line itself is shown through a window when rendered.
const LONGEST_WORD: usize = 120;

/// `text` cut to its first `max_chars` characters and an ellipsis when it is longer: how a message
/// quotes something the input said.
pub(crate) fn cut(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// `text` with every run of more than [`LONGEST_WORD`] characters without a space cut to its start,
/// an ellipsis and the punctuation that closed it (a backtick, a parenthesis).
fn bounded(text: String) -> String {
    if text.len() <= LONGEST_WORD {
        return text;
    }
    let mut out = String::with_capacity(text.len().min(4 * LONGEST_WORD));
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match word.char_indices().nth(LONGEST_WORD) {
            None => out.push_str(word),
            Some(_) => {
                out.push_str(&cut(word, LONGEST_WORD * 2 / 3));
                let closing: String = word
                    .chars()
                    .rev()
                    .take_while(|c| {
                        matches!(c, '`' | ')' | ']' | '}' | '"' | ',' | ';' | ':' | '.')
                    })
                    .collect();
                out.extend(closing.chars().rev());
            }
        }
    }
    out
}

impl Diagnostic {
    pub fn error(kind: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            kind,
            message: bounded(message.into()),
            span,
            help: None,
        }
    }

    pub fn warning(kind: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            kind,
            message: bounded(message.into()),
            span,
            help: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(bounded(help.into()));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Renders diagnostics as plain text: the message, the source line, a caret line under the span, the hint.
///
/// Used by the CLI and by snapshot tests, so every face of Omen shows the same text.
pub fn render(source: &str, diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let label = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        out.push_str(&format!("{label}: {}\n", d.message));
        // Find the line holding the span start; expressions are usually one line, scripts are not.
        let start = d.span.start.min(source.len());
        let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = source[start..]
            .find('\n')
            .map_or(source.len(), |i| start + i);
        let line_no = source[..line_start].matches('\n').count() + 1;
        let line = &source[line_start..line_end];
        let gutter = format!("{line_no}");
        let pad = " ".repeat(gutter.len());
        out.push_str(&format!("{pad} |\n{gutter} | {line}\n"));
        let col = source[line_start..start].chars().count();
        let end = d.span.end.clamp(start, line_end);
        let width = source[start..end].chars().count().max(1);
        out.push_str(&format!(
            "{pad} | {}{}\n",
            " ".repeat(col),
            "^".repeat(width)
        ));
        if let Some(help) = &d.help {
            out.push_str(&format!("{pad} = help: {help}\n"));
        }
    }
    out
}

/// A core error at a span, as a diagnostic with a hint.
pub fn core_diagnostic(error: &CoreError, span: Span) -> Diagnostic {
    let (kind, help): (&'static str, Option<&str>) = match error {
        CoreError::NoSides(_) => (
            "no-sides",
            Some("use a positive number of sides, e.g. `d6`"),
        ),
        CoreError::NoFaces => ("no-faces", Some("list at least one face, e.g. `d{1,2,3}`")),
        CoreError::TooManySides { .. } => ("too-many-sides", None),
        CoreError::TooManyDice { .. } => ("too-many-dice", None),
        CoreError::NegativeDice(_) => (
            "negative-dice",
            Some("the number of dice must be 0 or more; wrap it, e.g. `(max(x, 0))d6`"),
        ),
        CoreError::ExplodeDepth { .. } => ("explode-depth", None),
        CoreError::RerollEverything => (
            "reroll-everything",
            Some("the condition must leave at least one face, e.g. `rr<=2` on a d6"),
        ),
        CoreError::TooManyOutcomes { .. } => ("too-many-outcomes", None),
        CoreError::WorkBudget { .. } => ("work-budget", None),
        CoreError::Cancelled => ("cancelled", None),
        CoreError::DeadlinePassed => ("deadline", None),
        CoreError::TooManyStates { .. } => ("too-many-states", None),
        CoreError::TooManyChainStates { .. } => ("too-many-chain-states", None),
        CoreError::TooManyProcessSteps { .. } => ("too-many-steps", None),
        CoreError::NeverAbsorbs { .. } => ("never-absorbs", None),
        CoreError::SingularChain => ("singular-chain", None),
        CoreError::DivisionByZero => (
            "division-by-zero",
            Some("the divisor can be 0; guard it, e.g. `x / max(y, 1)`"),
        ),
        CoreError::Overflow => ("overflow", None),
        CoreError::RerollLimit(_) => ("reroll-limit", None),
        CoreError::ScriptExhausted(_) => ("dice-exhausted", Some("give more dice values")),
        CoreError::ScriptFace { .. } => ("bad-die-value", None),
        CoreError::Unsupported(_) => ("unsupported-modifier", None),
        _ => ("error", None),
    };
    let d = Diagnostic::error(kind, span, error.to_string());
    match help {
        Some(h) => d.with_help(h),
        None => d,
    }
}

/// A type error that names what was expected and what turned up.
pub(crate) fn kind_error(span: Span, what: &str, want: &str, got: &Value) -> Diagnostic {
    Diagnostic::error(
        "type-mismatch",
        span,
        format!(
            "{what} must be {want}, but it can be {} ({got})",
            got.kind_name()
        ),
    )
}

#[cfg(test)]
mod bounded_tests {
    use super::*;

    /// A name as long as the input allows is cut in every message that repeats it, keeping its
    /// start and the backtick that closed it; short words and spaces are left as they were.
    #[test]
    fn long_words_are_cut_and_short_ones_kept() {
        let name = "a".repeat(40_000);
        let d = Diagnostic::error(
            "unknown-name",
            Span::new(0, 1),
            format!("unknown name `{name}` here"),
        )
        .with_help(format!("declare `{name}` first"));
        let cut = format!("`{}…`", "a".repeat(79));
        assert_eq!(d.message, format!("unknown name {cut} here"));
        assert_eq!(
            d.help.as_deref(),
            Some(format!("declare {cut} first").as_str())
        );
        let short = "expected a number after `kh`, e.g. `4d6kh3`";
        assert_eq!(
            Diagnostic::warning("w", Span::new(0, 1), short).message,
            short
        );
        // Cut on a character boundary, whatever the characters.
        let wide = "é".repeat(500);
        assert_eq!(bounded(wide).chars().count(), 81);
    }
}

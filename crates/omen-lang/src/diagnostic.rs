//! Errors and warnings as data: a span into the input, a kind, a message and a hint.
//!
//! The language never prints. The CLI draws the input with a caret under `span`; the server sends the same
//! fields as JSON.

use serde::Serialize;

use crate::span::Span;

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

impl Diagnostic {
    pub fn error(kind: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            kind,
            message: message.into(),
            span,
            help: None,
        }
    }

    pub fn warning(kind: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            kind,
            message: message.into(),
            span,
            help: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
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

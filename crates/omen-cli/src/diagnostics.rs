//! Errors and warnings for stderr: drawn with a caret for people, or as one JSON object for programs.

use omen_lang::Diagnostic;
use omen_lang::diagnostic::render;
use serde::Serialize;

/// How diagnostics reach stderr; chosen by the command's `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Text,
    Json,
}

#[derive(Serialize)]
struct Report<'a> {
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    errors: &'a [Diagnostic],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    warnings: &'a [Diagnostic],
}

/// The text for stderr: errors and warnings of one expression, or an empty string when there are none.
///
/// JSON is `{"errors": [...], "warnings": [...]}` (an empty list is left out) on one line, each entry
/// `{"severity", "kind", "message", "span": {"start", "end"}, "help"}`.
pub fn render_diagnostics(
    style: Style,
    source: &str,
    errors: &[Diagnostic],
    warnings: &[Diagnostic],
) -> String {
    if errors.is_empty() && warnings.is_empty() {
        return String::new();
    }
    match style {
        Style::Text => {
            let mut out = render(source, errors);
            out.push_str(&render(source, warnings));
            out
        }
        Style::Json => {
            // Diagnostics are plain data; if serde_json ever failed, the plain text still says what's wrong.
            match serde_json::to_string(&Report { errors, warnings }) {
                Ok(mut out) => {
                    out.push('\n');
                    out
                }
                Err(_) => render_diagnostics(Style::Text, source, errors, warnings),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use omen_lang::Span;

    use super::*;

    #[test]
    fn text_draws_a_caret_and_help() {
        let e = Diagnostic::error("no-sides", Span::new(0, 2), "a die needs at least one side")
            .with_help("use a positive number of sides");
        let text = render_diagnostics(Style::Text, "d0", &[e], &[]);
        assert!(text.starts_with("error: a die needs at least one side\n"));
        assert!(text.contains("| ^^"));
        assert!(text.contains("help: use a positive number of sides"));
    }

    #[test]
    fn json_lists_errors_and_leaves_out_empty_warnings() {
        let e = Diagnostic::error("no-sides", Span::new(0, 2), "a die needs at least one side");
        let text = render_diagnostics(Style::Json, "d0", &[e], &[]);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["errors"][0]["kind"], "no-sides");
        assert_eq!(v["errors"][0]["severity"], "error");
        assert_eq!(v["errors"][0]["span"]["end"], 2);
        assert!(v["errors"][0]["help"].is_null());
        assert!(v.get("warnings").is_none());
    }

    #[test]
    fn nothing_to_report_is_empty() {
        assert_eq!(render_diagnostics(Style::Json, "1d6", &[], &[]), "");
    }
}

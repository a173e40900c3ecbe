//! Errors and warnings for stderr: drawn with a caret for people, or as one JSON object for programs.
//!
//! Diagnostics of a script read with `--file` name it, with the line and column of the span, the way
//! compilers do:
//!
//! ```text
//! error: unknown name `y`
//!  --> check.omen:3:5
//!   |
//! 3 | x + y
//!   |     ^
//! ```

use std::slice;

use omen_lang::Diagnostic;
use omen_lang::diagnostic::render;
use serde::Serialize;

/// The text diagnostics point into, and the file it was read from.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    pub text: &'a str,
    /// The file as named on the command line (`<stdin>` for `-f -`); `None` for an EXPR argument.
    pub file: Option<&'a str>,
}

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

/// The text for stderr: errors and warnings of one expression or script, or an empty string when there
/// are none.
///
/// JSON is `{"errors": [...], "warnings": [...]}` (an empty list is left out) on one line, each entry
/// `{"severity", "kind", "message", "span": {"start", "end"}, "help"}`; spans are byte offsets into the
/// expression or the file's text.
pub fn render_diagnostics(
    style: Style,
    input: Input<'_>,
    errors: &[Diagnostic],
    warnings: &[Diagnostic],
) -> String {
    if errors.is_empty() && warnings.is_empty() {
        return String::new();
    }
    match style {
        Style::Text => {
            let mut out = render_text(input, errors);
            out.push_str(&render_text(input, warnings));
            // The input is drawn as typed or stored: its control characters must not reach the
            // terminal as commands.
            crate::escape::lines(&out).into_owned()
        }
        Style::Json => json_or_text(&Report { errors, warnings })
            .unwrap_or_else(|| render_diagnostics(Style::Text, input, errors, warnings)),
    }
}

/// The text for stderr of an error that has no input to point into, such as a file that cannot be read:
/// the message and the hint, or the same JSON object as [`render_diagnostics`] (its span is empty).
pub fn render_input_error(style: Style, error: &Diagnostic) -> String {
    let text = || {
        let mut out = format!("error: {}\n", error.message);
        if let Some(help) = &error.help {
            out.push_str(&format!("  = help: {help}\n"));
        }
        out
    };
    match style {
        Style::Text => text(),
        Style::Json => json_or_text(&Report {
            errors: slice::from_ref(error),
            warnings: &[],
        })
        .unwrap_or_else(text),
    }
}

/// One line of JSON, or `None` in the unlikely case serde_json fails on plain data: the caller then
/// falls back to text, which still says what is wrong.
fn json_or_text(report: &Report<'_>) -> Option<String> {
    let mut out = serde_json::to_string(report).ok()?;
    out.push('\n');
    Some(out)
}

/// Each diagnostic drawn under its line; for a file, with a `--> file:line:column` line after the
/// message.
fn render_text(input: Input<'_>, diagnostics: &[Diagnostic]) -> String {
    let Some(file) = input.file else {
        return render(input.text, diagnostics);
    };
    let mut out = String::new();
    for d in diagnostics {
        let drawn = render(input.text, slice::from_ref(d));
        let (line, column) = line_and_column(input.text, d.span.start);
        let pad = " ".repeat(line.to_string().len());
        let location = format!("{pad}--> {file}:{line}:{column}\n");
        // The drawing starts with the message, then an empty gutter line `{pad} |`: the location goes
        // between them, found by the gutter so that a message with a line break cannot misplace it.
        match drawn.find(&format!("\n{pad} |\n")) {
            Some(end_of_message) => {
                out.push_str(&drawn[..=end_of_message]);
                out.push_str(&location);
                out.push_str(&drawn[end_of_message + 1..]);
            }
            None => {
                out.push_str(&drawn);
                out.push_str(&location);
            }
        }
    }
    out
}

/// The 1-based line and column (in characters) of a byte offset, counted as `render` counts them.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = text.floor_char_boundary(offset.min(text.len()));
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() + 1;
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use omen_lang::Span;

    use super::*;

    #[test]
    fn text_draws_a_caret_and_help() {
        let e = Diagnostic::error("no-sides", Span::new(0, 2), "a die needs at least one side")
            .with_help("use a positive number of sides");
        let text = render_diagnostics(Style::Text, expression("d0"), &[e], &[]);
        assert!(text.starts_with("error: a die needs at least one side\n"));
        assert!(text.contains("| ^^"));
        assert!(text.contains("help: use a positive number of sides"));
    }

    #[test]
    fn json_lists_errors_and_leaves_out_empty_warnings() {
        let e = Diagnostic::error("no-sides", Span::new(0, 2), "a die needs at least one side");
        let text = render_diagnostics(Style::Json, expression("d0"), &[e], &[]);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["errors"][0]["kind"], "no-sides");
        assert_eq!(v["errors"][0]["severity"], "error");
        assert_eq!(v["errors"][0]["span"]["end"], 2);
        assert!(v["errors"][0]["help"].is_null());
        assert!(v.get("warnings").is_none());
    }

    #[test]
    fn nothing_to_report_is_empty() {
        assert_eq!(
            render_diagnostics(Style::Json, expression("1d6"), &[], &[]),
            ""
        );
    }

    #[test]
    fn a_file_is_named_with_line_and_column() {
        let text = "param n = 2;\nlet x = (n)d6;\nx + y";
        let e = Diagnostic::error("unknown-name", Span::new(22, 23), "unknown name `n`");
        let w = Diagnostic::warning("w", Span::new(text.len(), text.len()), "at the end");
        let input = Input {
            text,
            file: Some("check.omen"),
        };
        let drawn = render_diagnostics(Style::Text, input, &[e], &[w]);
        assert_eq!(
            drawn,
            "error: unknown name `n`\n --> check.omen:2:10\n  |\n2 | let x = (n)d6;\n  |          ^\n\
             warning: at the end\n --> check.omen:3:6\n  |\n3 | x + y\n  |      ^\n"
        );
    }

    #[test]
    fn line_and_column_count_characters() {
        assert_eq!(line_and_column("", 0), (1, 1));
        assert_eq!(line_and_column("a\nbc", 3), (2, 2));
        assert_eq!(line_and_column("«x»\n", 2), (1, 2));
        assert_eq!(line_and_column("ab", 99), (1, 3));
    }

    #[test]
    fn an_input_error_has_no_drawing() {
        let e = Diagnostic::error(
            "unreadable-file",
            Span::new(0, 0),
            "cannot read `x`: no such file",
        )
        .with_help("check the path");
        assert_eq!(
            render_input_error(Style::Text, &e),
            "error: cannot read `x`: no such file\n  = help: check the path\n"
        );
        let v: serde_json::Value =
            serde_json::from_str(&render_input_error(Style::Json, &e)).unwrap();
        assert_eq!(v["errors"][0]["kind"], "unreadable-file");
    }

    fn expression(text: &str) -> Input<'_> {
        Input { text, file: None }
    }
}

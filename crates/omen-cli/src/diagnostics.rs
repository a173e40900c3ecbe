//! Errors and warnings for stderr: drawn with a caret for people (by annotate-snippets, the renderer
//! rustc uses, coloured when `--color` and `NO_COLOR` allow), or as one JSON object for programs.
//! However many there are and however long the line, the report is bounded: the first [`MAX_SHOWN`]
//! of each kind, each line cut to a window around its span.
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

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use omen_lang::{Diagnostic, Span};
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
    /// Errors beyond the first [`MAX_SHOWN`], counted but not listed.
    #[serde(skip_serializing_if = "is_zero")]
    more_errors: usize,
    #[serde(skip_serializing_if = "is_zero")]
    more_warnings: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl<'a> Report<'a> {
    /// At most [`MAX_SHOWN`] of each, the rest counted.
    fn capped(errors: &'a [Diagnostic], warnings: &'a [Diagnostic]) -> Self {
        let cut = |list: &'a [Diagnostic]| {
            (
                &list[..list.len().min(MAX_SHOWN)],
                list.len().saturating_sub(MAX_SHOWN),
            )
        };
        let (errors, more_errors) = cut(errors);
        let (warnings, more_warnings) = cut(warnings);
        Report {
            errors,
            warnings,
            more_errors,
            more_warnings,
        }
    }
}

/// The text for stderr: errors and warnings of one expression or script, or an empty string when there
/// are none.
///
/// Text shows the first [`MAX_SHOWN`] errors and warnings, each with a window of its line, and counts
/// the rest. JSON is `{"errors": [...], "warnings": [...]}` (an empty list is left out) on one line,
/// each entry `{"severity", "kind", "message", "span": {"start", "end"}, "help"}`, with
/// `"more_errors"`/`"more_warnings"` counting those beyond the first [`MAX_SHOWN`]; spans are byte
/// offsets into the expression or the file's text.
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
            out
        }
        Style::Json => json_or_text(&Report::capped(errors, warnings))
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
        Style::Json => {
            json_or_text(&Report::capped(slice::from_ref(error), &[])).unwrap_or_else(text)
        }
    }
}

/// One line of JSON, or `None` in the unlikely case serde_json fails on plain data: the caller then
/// falls back to text, which still says what is wrong.
fn json_or_text(report: &Report<'_>) -> Option<String> {
    let mut out = serde_json::to_string(report).ok()?;
    out.push('\n');
    Some(out)
}

/// At most this many errors (and, apart, warnings) are drawn; the rest are counted.
pub const MAX_SHOWN: usize = 20;

/// Characters of the source line shown on either side of a span: a long line is shown as a window
/// around the span, never whole.
const WINDOW: usize = 60;

/// Whether diagnostics are coloured: set once by `main` from `--color` and `NO_COLOR`.
static COLOUR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether warnings fail the command (`--strict`): set once by `main`.
static STRICT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes warnings fail the command from now on, or not.
pub fn set_strict(on: bool) {
    STRICT.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Whether warnings fail the command.
pub fn strict() -> bool {
    STRICT.load(std::sync::atomic::Ordering::Relaxed)
}

/// Colours the diagnostics drawn from now on (ANSI escapes), or not.
pub fn set_colour(on: bool) {
    COLOUR.store(on, std::sync::atomic::Ordering::Relaxed);
}

fn renderer() -> Renderer {
    let renderer = if colour() {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    renderer.term_width(crate::fit::width())
}

fn colour() -> bool {
    COLOUR.load(std::sync::atomic::Ordering::Relaxed)
}

/// Characters of the source line shown on either side of a span, so that the drawn line (with its
/// gutter) fits the terminal: at most [`WINDOW`].
fn window_size() -> usize {
    (crate::fit::width().saturating_sub(12) / 2).clamp(10, WINDOW)
}

/// The line holding the span's start, cut to a window around the span when it is long: the text shown,
/// the span within it, and the line number.
fn window(text: &str, span: omen_lang::Span) -> (String, std::ops::Range<usize>, usize) {
    let start = text.floor_char_boundary(span.start.min(text.len()));
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line_no = text[..line_start].matches('\n').count() + 1;
    let end = text.floor_char_boundary(span.end.clamp(start, line_end));
    let line = &text[line_start..line_end];
    let (start, end) = (start - line_start, end - line_start);
    let window = window_size();
    // Window edges: WINDOW characters before the span's start and after its end (at most WINDOW of it).
    let from = line[..start]
        .char_indices()
        .rev()
        .nth(window - 1)
        .map_or(0, |(i, _)| i);
    let span_end = line[start..end]
        .char_indices()
        .nth(window)
        .map_or(end, |(i, _)| start + i);
    let to = line[span_end..]
        .char_indices()
        .nth(window)
        .map_or(line.len(), |(i, _)| span_end + i);
    // The input is drawn as typed or stored: its control characters are shown as escapes, never sent
    // to the terminal as commands (the colour this module adds is the only escape sequence drawn).
    let escaped = |text: &str| crate::escape::lines(text).into_owned();
    let mut shown = String::new();
    if from > 0 {
        shown.push('…');
    }
    shown.push_str(&escaped(&line[from..start]));
    let span_from = shown.len();
    shown.push_str(&escaped(&line[start..span_end]));
    let span_to = shown.len();
    shown.push_str(&escaped(&line[span_end..to]));
    if to < line.len() {
        shown.push('…');
    }
    (shown, span_from..span_to, line_no)
}

/// One diagnostic drawn by annotate-snippets: the message, for a file a `--> file:line:column` line,
/// the source line with carets under the span, and the hint.
fn draw(input: Input<'_>, d: &Diagnostic) -> String {
    let level = match d.severity {
        omen_lang::Severity::Error => Level::ERROR,
        _ => Level::WARNING,
    };
    let (line, span, line_no) = window(input.text, d.span);
    let mut snippet = Snippet::source(line.as_str())
        .line_start(line_no)
        .annotation(AnnotationKind::Primary.span(span));
    if let Some(file) = input.file {
        snippet = snippet.path(file);
    }
    let width = crate::fit::width();
    // Coloured output cannot be wrapped after drawing (its escapes are not columns), so its message
    // and hint are wrapped before, leaving room for what annotate-snippets puts in front of them
    // (`warning: `, and 12 columns before a hint's continuation lines).
    let pre_wrap = |text: &str, prefix: usize| {
        if colour() {
            crate::fit::wrap(text, width.saturating_sub(prefix))
                .trim_end()
                .to_string()
        } else {
            text.to_string()
        }
    };
    let message = pre_wrap(&crate::escape::lines(&d.message), 9);
    let mut group = level.primary_title(message).element(snippet);
    if let Some(help) = &d.help {
        group = group.element(Level::HELP.message(pre_wrap(&crate::escape::lines(help), 12)));
    }
    let mut out = renderer().render(&[group]);
    out.push('\n');
    // The message and the hint wrap to the terminal; the source line is already a window of it.
    if colour() {
        return out;
    }
    out.split_inclusive('\n')
        .map(|line| {
            let gutter = line
                .trim_start()
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .trim_start()
                .starts_with('|');
            if gutter {
                line.to_string()
            } else {
                crate::fit::wrap(line, width)
            }
        })
        .collect()
}

/// Each diagnostic drawn under its line, at most [`MAX_SHOWN`] of them and a count of the rest.
fn render_text(input: Input<'_>, diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics.iter().take(MAX_SHOWN) {
        out.push_str(&draw(input, d));
    }
    if diagnostics.len() > MAX_SHOWN {
        let what = match diagnostics[0].severity {
            omen_lang::Severity::Error => "errors",
            _ => "warnings",
        };
        out.push_str(&format!(
            "… and {} more {what} (the first {MAX_SHOWN} are shown)\n",
            diagnostics.len() - MAX_SHOWN
        ));
    }
    out
}

/// A result larger than `--max-output`, refused before anything is written.
pub(crate) fn too_much_output(bytes: u128, limit: u64) -> Diagnostic {
    Diagnostic::error(
        "too-much-output",
        Span::new(0, 0),
        if bytes > u128::from(limit) + 1 {
            format!("the result would print about {bytes} bytes (limit {limit})")
        } else {
            format!("the result would print more than {limit} bytes (the limit)")
        },
    )
    .with_help(
        "ask a narrower question (e.g. `(EXPR) >= 30` for one probability), use a format without \
         statistics or the table (--format csv), or raise --max-output",
    )
}

/// Dice given with `--dice` that the roll never used: probably a mistake in the list or the expression.
pub(crate) fn unused_dice(source: &str, remaining: &[i64]) -> Diagnostic {
    let values: Vec<String> = remaining.iter().map(i64::to_string).collect();
    let end = source.len();
    Diagnostic::warning(
        "unused-dice",
        Span::new(end, end),
        format!(
            "{} given dice value(s) left unused: {}",
            remaining.len(),
            values.join(", ")
        ),
    )
    .with_help("give --dice exactly the values the expression rolls, in order")
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn a_long_line_is_shown_as_a_window_around_the_span() {
        let text = format!("{}x{}", "(".repeat(5000), ")".repeat(5000));
        let (shown, span, line) = window(&text, Span::new(5000, 5001));
        assert_eq!(line, 1);
        let size = window_size();
        assert!(size <= WINDOW);
        assert_eq!(shown.chars().count(), 1 + size + 1 + size + 1);
        assert!(shown.starts_with('…') && shown.ends_with('…'));
        assert_eq!(&shown[span], "x");
        // A short line is whole.
        let (shown, span, _) = window("1d6 + y", Span::new(6, 7));
        assert_eq!((shown.as_str(), span), ("1d6 + y", 6..7));
        // The second line of a script, a span past the end of the text.
        let (shown, span, line) = window("a\nbc", Span::new(9, 9));
        assert_eq!((shown.as_str(), span, line), ("bc", 2..2, 2));
    }

    #[test]
    fn only_the_first_diagnostics_are_drawn() {
        let errors: Vec<Diagnostic> = (0..50)
            .map(|i| Diagnostic::error("e", Span::new(i, i + 1), format!("error {i}")))
            .collect();
        let text = ")".repeat(50);
        let drawn = render_diagnostics(Style::Text, expression(&text), &errors, &[]);
        assert_eq!(drawn.matches("error ").count(), MAX_SHOWN);
        assert!(
            drawn.ends_with("… and 30 more errors (the first 20 are shown)\n"),
            "{drawn}"
        );
        let json = render_diagnostics(Style::Json, expression(&text), &errors, &[]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["errors"].as_array().unwrap().len(), MAX_SHOWN);
        assert_eq!(v["more_errors"], 30);
    }

    #[test]
    fn colour_draws_escapes_only_when_asked() {
        let e = Diagnostic::error("e", Span::new(0, 1), "bad");
        set_colour(true);
        let coloured = draw(expression("x"), &e);
        set_colour(false);
        let plain = draw(expression("x"), &e);
        assert!(coloured.contains('\u{1b}'), "{coloured:?}");
        assert!(!plain.contains('\u{1b}'), "{plain:?}");
    }

    fn expression(text: &str) -> Input<'_> {
        Input { text, file: None }
    }
}

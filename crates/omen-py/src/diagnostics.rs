//! Diagnostics as Python data: each becomes a dict of its fields, with its span counted in
//! characters (so that `source[start:end]` is the text it points at) and the text the CLI prints
//! for it (the source line with a caret under the span). Errors are raised as
//! `omen_dice.OmenError`, a class of the package's Python layer.

use omen_lang::{Diagnostic, Severity, diagnostic};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList};

static ERROR_FROM: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The character offset of byte offset `byte` in `source` (offsets past the end count as the end).
fn char_offset(source: &str, byte: usize) -> usize {
    let mut byte = byte.min(source.len());
    while !source.is_char_boundary(byte) {
        byte -= 1;
    }
    source[..byte].chars().count()
}

/// `text` with each limit flag the engine's hints name (`--work-budget`) written as the keyword
/// argument that sets it here (`work_budget=`).
fn keywords(text: &str) -> String {
    let mut out = text.to_string();
    for name in crate::limits::NAMES {
        let flag = format!("--{}", name.replace('_', "-"));
        out = out.replace(&flag, &format!("{name}="));
    }
    out
}

/// One diagnostic as a dict: severity, kind, message, hint, start, end, rendered.
pub fn to_dict<'py>(py: Python<'py>, source: &str, d: &Diagnostic) -> PyResult<Bound<'py, PyDict>> {
    let mut d = d.clone();
    d.message = keywords(&d.message);
    d.help = d.help.as_deref().map(keywords);
    let d = &d;
    let out = PyDict::new(py);
    let severity = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    out.set_item("severity", severity)?;
    out.set_item("kind", d.kind)?;
    out.set_item("message", &d.message)?;
    out.set_item("hint", d.help.as_deref())?;
    out.set_item("start", char_offset(source, d.span.start))?;
    out.set_item("end", char_offset(source, d.span.end))?;
    out.set_item(
        "rendered",
        diagnostic::render(source, std::slice::from_ref(d)),
    )?;
    Ok(out)
}

/// A list of diagnostics as dicts.
pub fn to_list<'py>(
    py: Python<'py>,
    source: &str,
    diagnostics: &[Diagnostic],
) -> PyResult<Bound<'py, PyList>> {
    let items = diagnostics
        .iter()
        .map(|d| to_dict(py, source, d))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// The exception for `errors` (every error found, the first is the one named) and the warnings
/// that came with them: `omen_dice._errors.error_from(source, errors, warnings)`.
pub fn error(
    py: Python<'_>,
    source: &str,
    errors: &[Diagnostic],
    warnings: &[Diagnostic],
) -> PyErr {
    let built = ERROR_FROM
        .import(py, "omen_dice._errors", "error_from")
        .and_then(|error_from| {
            error_from.call1((
                source,
                to_list(py, source, errors)?,
                to_list(py, source, warnings)?,
            ))
        });
    match built {
        Ok(exception) => PyErr::from_value(exception),
        Err(failed) => failed,
    }
}

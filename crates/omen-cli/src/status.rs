//! How a script command ends: its status (success or bad input), its diagnostics drawn on stderr,
//! and its result written after its warnings, or no result under `--strict`.

use std::io::{self, BufWriter, Write};

use anyhow::Context;
use omen_lang::Diagnostic;

use crate::diagnostics::{self, Input, Style, render_diagnostics, render_input_error};

/// How a command ended, when it ended on its own terms.
pub enum Status {
    Success,
    BadInput,
}

/// A command that answers whether its input was good.
pub fn status(answer: anyhow::Result<bool>) -> anyhow::Result<Status> {
    Ok(if answer? {
        Status::Success
    } else {
        Status::BadInput
    })
}

/// Bad input: the diagnostics on stderr and nothing on stdout.
pub fn fail(
    style: Style,
    input: Input<'_>,
    errors: &[Diagnostic],
    warnings: &[Diagnostic],
) -> anyhow::Result<Status> {
    let text = render_diagnostics(style, input, errors, warnings);
    io::stderr()
        .lock()
        .write_all(text.as_bytes())
        .context("writing errors to stderr")?;
    Ok(Status::BadInput)
}

/// Bad input found before there was a text to draw: the file could not be read.
pub fn fail_to_read(style: Style, error: &Diagnostic) -> anyhow::Result<Status> {
    io::stderr()
        .lock()
        .write_all(render_input_error(style, error).as_bytes())
        .context("writing errors to stderr")?;
    Ok(Status::BadInput)
}

/// Warnings on stderr first, so they are seen before a long result scrolls them away, then the result,
/// written through one buffer.
pub fn succeed(
    style: Style,
    input: Input<'_>,
    warnings: &[Diagnostic],
    render: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> anyhow::Result<Status> {
    let text = render_diagnostics(style, input, &[], warnings);
    io::stderr()
        .lock()
        .write_all(text.as_bytes())
        .context("writing warnings to stderr")?;
    if !warnings.is_empty() && diagnostics::strict() {
        return strict_failure();
    }
    let mut stdout = BufWriter::new(crate::output::result());
    render(&mut stdout)
        .and_then(|()| stdout.flush())
        .context("writing the result to stdout")?;
    Ok(Status::Success)
}

/// Warnings under `--strict`: the command fails as bad input, with no result.
pub fn strict_failure() -> anyhow::Result<Status> {
    eprintln!("error: warnings are errors under --strict; no result was printed");
    Ok(Status::BadInput)
}

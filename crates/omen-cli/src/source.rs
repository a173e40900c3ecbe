//! The script a command runs: EXPR, or the text of `--file` (stdin for `-`) read with the
//! language's length limit, and compiled with the command's limits, parameters and dialect.

use std::fs::File;
use std::io::{self, Read};

use omen_lang::{Checked, Diagnostic, Options, Span, compile};

use crate::diagnostics::{Input, Style};
use crate::shared_args::{InputArgs, LimitArgs, ScriptArgs};
use crate::status::{Status, fail, fail_to_read};

/// The expression or script to run, and the file it came from.
pub struct Source {
    pub text: String,
    /// As given on the command line (`<stdin>` for `-`); `None` for an EXPR argument.
    pub file: Option<String>,
}

impl Source {
    /// EXPR, or the text of `--file` (stdin for `-`).
    ///
    /// A file is read up to `max_len` bytes plus one, the language's length limit, so that `-f /dev/zero`
    /// or an endless pipe is refused instead of filling memory. A leading byte-order mark, which some
    /// editors write, is skipped (spans then count from the text after it), and trailing white space
    /// is dropped.
    ///
    /// # Errors
    /// A diagnostic with an empty span when the file cannot be read, is longer than `max_len` bytes or is
    /// not UTF-8.
    pub fn read(input: &InputArgs, max_len: usize) -> Result<Source, Diagnostic> {
        let path = match (&input.expression, &input.file) {
            (Some(expression), None) => {
                return Ok(Source {
                    text: expression.clone(),
                    file: None,
                });
            }
            (_, Some(path)) => path,
            // clap requires exactly one of the two.
            (None, None) => unreachable!("neither EXPR nor --file"),
        };
        let limit = max_len as u64 + 1;
        let (name, bytes) = if path.as_os_str() == "-" {
            (
                "<stdin>".to_string(),
                read_at_most(io::stdin().lock(), limit),
            )
        } else {
            let bytes = File::open(path).and_then(|file| read_at_most(file, limit));
            (path.display().to_string(), bytes)
        };
        let bytes = bytes.map_err(|error| unreadable_file(&name, &error))?;
        if bytes.len() > max_len {
            return Err(input_error(
                "input-too-long",
                format!("`{name}` is too long: more than {max_len} bytes (limit {max_len})"),
                "split the script, or shorten it",
            ));
        }
        let text = String::from_utf8(bytes).map_err(|error| {
            input_error(
                "file-not-utf8",
                format!(
                    "`{name}` is not UTF-8 text: invalid byte at offset {}",
                    error.utf8_error().valid_up_to()
                ),
                "save the script as UTF-8",
            )
        })?;
        let mut text = match text.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => text,
        };
        // The language places "found the end of the input" after the last byte; without the final line
        // break that is the end of the last line, not an empty line after it. Offsets are unchanged.
        text.truncate(text.trim_end().len());
        Ok(Source {
            text,
            file: Some(name),
        })
    }

    pub fn input(&self) -> Input<'_> {
        Input {
            text: &self.text,
            file: self.file.as_deref(),
        }
    }
}

fn read_at_most(reader: impl Read, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn unreadable_file(name: &str, error: &io::Error) -> Diagnostic {
    let (reason, help) = match error.kind() {
        io::ErrorKind::NotFound => (
            "no such file".to_string(),
            "check the path; a relative one starts from the current directory",
        ),
        io::ErrorKind::PermissionDenied => (
            "permission denied".to_string(),
            "check the file's permissions",
        ),
        io::ErrorKind::IsADirectory => (
            "it is a directory".to_string(),
            "name a script file, e.g. examples/003_check.omen",
        ),
        _ => (error.to_string(), "check the path"),
    };
    input_error(
        "unreadable-file",
        format!("cannot read `{name}`: {reason}"),
        help,
    )
}

/// An error about the input as a whole: there is no text to point into, so the span is empty.
fn input_error(kind: &'static str, message: String, help: &str) -> Diagnostic {
    Diagnostic::error(kind, Span::new(0, 0), message).with_help(help)
}

/// Reads the script (an EXPR or a file) and compiles it with the command's limits and parameters. On
/// failure the errors are already reported, and the command's status is returned as the error.
pub fn compile_input(
    input: &InputArgs,
    script: &ScriptArgs,
    limits: &LimitArgs,
    style: Style,
) -> Result<(Options, Source, Checked), anyhow::Result<Status>> {
    let options = Options {
        limits: limits.to_limits(),
        params: script.params.clone(),
        dialect: script.dialect(),
        ..Options::default()
    };
    let source = Source::read(input, options.parse.max_len).map_err(|e| fail_to_read(style, &e))?;
    let checked = compile(&source.text, &options)
        .map_err(|errors| fail(style, source.input(), &errors, &[]))?;
    Ok((options, source, checked))
}

/// The saved roll an EXPR of `@NAME` names.
pub fn saved_name(input: &InputArgs) -> Option<&str> {
    input.expression.as_deref()?.strip_prefix('@')
}

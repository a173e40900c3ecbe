//! Output names: `[VAR]` in a name is replaced by the variable's value as AnyDice shows it (a
//! number's digits, `d4` or `2d4` for dice written so, `d{?}` for other dice, `{?}` for sequences).

use super::error::{Run, calculation_error};
use super::value::{Fault, Frame};
use crate::span::Span;

/// The name with every `[NAME]` filled in from `frame`.
///
/// # Errors
/// A calculation error naming a variable that is not set.
pub fn fill(text: &str, frame: &Frame, span: Span) -> Run<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after.find(']');
        match close {
            Some(close) if is_name(&after[..close]) => {
                let name = &after[..close];
                let v = frame.get(name).ok_or_else(|| {
                    calculation_error(
                        span,
                        Fault::calculation(format!("I cannot find a variable named {name}")),
                    )
                })?;
                out.push_str(&v.render());
                rest = &after[close + 1..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Ok(out)
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
}

//! The rows of `omen prob --format json`, written as they are computed.

use std::io::{self, Write};

use omen_core::Weight;
use omen_lang::Value;

use crate::fraction::Fractions;

/// The outcomes as JSON objects, `{"outcome", "probability", "at_least", "at_most"}` (the last two
/// only when `cumulative`), comma-separated, each row written before the next is computed: a huge
/// distribution's text never sits in memory whole. The fractions are digits and `/`, written as
/// they are: nothing in them needs escaping.
pub fn json_rows<T>(
    entries: &[(T, Weight)],
    total: &Weight,
    cumulative: bool,
    value: impl Fn(&T) -> Value,
    out: &mut dyn Write,
) -> io::Result<()> {
    const FLUSH_AT: usize = 1 << 16;
    let mut fractions = Fractions::over(total);
    let mut below = Weight::default();
    let mut buffer = Vec::with_capacity(2 * FLUSH_AT);
    for (i, (outcome, weight)) in entries.iter().enumerate() {
        if i > 0 {
            buffer.push(b',');
        }
        buffer.extend_from_slice(br#"{"outcome":"#);
        serde_json::to_writer(&mut buffer, &value(outcome))?;
        buffer.extend_from_slice(br#","probability":""#);
        fractions.write(weight, &mut buffer);
        if cumulative {
            buffer.extend_from_slice(br#"","at_least":""#);
            fractions.write(&(total - &below), &mut buffer);
            below += weight;
            buffer.extend_from_slice(br#"","at_most":""#);
            fractions.write(&below, &mut buffer);
        }
        buffer.extend_from_slice(br#""}"#);
        if buffer.len() >= FLUSH_AT {
            out.write_all(&buffer)?;
            buffer.clear();
        }
    }
    out.write_all(&buffer)
}

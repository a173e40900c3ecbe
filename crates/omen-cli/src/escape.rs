//! Text from a database, an import or a command line, made safe to print on a terminal: control
//! characters (escape sequences, carriage returns, bells, bidirectional overrides) are shown as
//! escapes instead of being obeyed, so a forged name or summary cannot rewrite a game master's screen.
//! JSON output needs none of this: serde_json escapes control characters itself.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as it is: C0 and C1 controls (newline and tab included, for
/// text meant to stay on its line) and the Unicode formatting characters that reorder or hide text.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// `text` with every unsafe character written as a Rust-style escape (`\u{1b}`, `\n`, `\t`).
pub fn line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_unsafe(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// As [`line`], but keeps newlines (and tabs): for text that is several lines on purpose, such as a
/// script.
pub fn lines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && c != '\t' && is_unsafe(c)) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.split('\n')
            .map(|part| {
                part.split('\t')
                    .map(|piece| line(piece).into_owned())
                    .collect::<Vec<_>>()
                    .join("\t")
            })
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_left_alone() {
        assert!(matches!(line("Ayla the Bold"), Cow::Borrowed(_)));
        assert!(matches!(lines("d20 + 5\nd6"), Cow::Borrowed(_)));
    }

    #[test]
    fn escape_sequences_and_controls_are_shown_not_obeyed() {
        assert_eq!(line("\u{1b}[2J\u{7}ok\r"), "\\u{1b}[2J\\u{7}ok\\r");
        assert_eq!(line("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(line("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(line("evil\u{202e}txt"), "evil\\u{202e}txt");
        assert_eq!(lines("d20\n\u{1b}]0;x\u{7}"), "d20\n\\u{1b}]0;x\\u{7}");
    }
}

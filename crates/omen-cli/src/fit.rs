//! Text that fits the terminal: the width to fit (`COLUMNS`, else the terminal's, else 100), and
//! long lines wrapped under their own indentation.
//!
//! Tables fit by their own means (decimals for long fractions, fewer columns, blocks of columns);
//! this wraps the prose and one-line records that games and listings print.

/// The width found by [`measure`], once.
static WIDTH: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// Columns of the text output: `COLUMNS` when set, else the terminal's width, else 100. Measured
/// once, by `main` before any output is taken (the output may be a locked file), or here.
pub fn width() -> usize {
    *WIDTH.get_or_init(measure)
}

/// Measures the width now; `main` calls it while no output is held.
fn measure() -> usize {
    if let Some(columns) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
    {
        return columns;
    }
    if crate::output::result().is_terminal()
        && let Some((terminal_size::Width(width), _)) = terminal_size::terminal_size()
    {
        return usize::from(width);
    }
    100
}

/// The width for clap's help and usage errors, measured before `-o` is applied: clap prints them
/// on stdout or stderr, never into the output file, so this must not fix [`width`] yet.
pub fn help_width() -> usize {
    measure()
}

/// Fixes the width before any command runs.
pub fn init() {
    let _ = WIDTH.set(measure());
}

/// Prints `error: MESSAGE` on stderr, wrapped to the terminal.
pub fn error(message: impl std::fmt::Display) {
    eprint!("{}", wrap(&format!("error: {message}\n"), width()));
}

/// `text` with every markdown table wider than `width` printed as several tables, each repeating
/// the first column (the row labels) with as many of the other columns as fit, so every part is
/// still a table a markdown renderer reads. A table that fits, and every other line, is unchanged.
pub fn markdown_tables(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut table: Vec<&str> = Vec::new();
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with('|') {
            table.push(line.trim_end_matches(['\n', '\r']));
            continue;
        }
        split_table(&table, width, &mut out);
        table.clear();
        out.push_str(line);
    }
    split_table(&table, width, &mut out);
    out
}

/// Writes one markdown table (its rows, no line ends) to `out`, split into column blocks.
fn split_table(rows: &[&str], width: usize, out: &mut String) {
    if rows.is_empty() {
        return;
    }
    let width = width.max(NARROWEST);
    if rows.iter().all(|row| row.chars().count() <= width) {
        for row in rows {
            out.push_str(row);
            out.push('\n');
        }
        return;
    }
    let cells: Vec<Vec<&str>> = rows
        .iter()
        .map(|row| {
            let row = row.trim();
            let row = row.strip_prefix('|').unwrap_or(row);
            let row = row.strip_suffix('|').unwrap_or(row);
            row.split('|').collect()
        })
        .collect();
    let columns = cells.iter().map(Vec::len).max().unwrap_or(0);
    // The widest cell of each column decides what fits; a short row pads with nothing.
    let column_width = |c: usize| {
        cells
            .iter()
            .map(|row| row.get(c).map_or(0, |cell| cell.chars().count()))
            .max()
            .unwrap_or(0)
    };
    let label = column_width(0);
    let mut start = 1;
    while start < columns {
        // `|label|` then `cell|` per column; at least one column per block, however narrow.
        let mut used = label + 2 + column_width(start) + 1;
        let mut end = start + 1;
        while end < columns && used + column_width(end) < width {
            used += column_width(end) + 1;
            end += 1;
        }
        if start > 1 {
            out.push('\n');
        }
        for row in &cells {
            out.push('|');
            out.push_str(row.first().copied().unwrap_or(""));
            out.push('|');
            for c in start..end {
                out.push_str(row.get(c).copied().unwrap_or(""));
                out.push('|');
            }
            out.push('\n');
        }
        start = end;
    }
}

/// The narrowest width wrapping aims at: below it, a line is left to the terminal.
const NARROWEST: usize = 20;

/// `text` with every line longer than `width` characters broken at spaces (else after a comma,
/// else anywhere), each continuation indented two columns past the line's own indentation.
pub fn wrap(text: &str, width: usize) -> String {
    wrap_under(text, width, None)
}

/// As [`wrap`], with continuations indented `hanging` columns (when given) instead: under a label.
pub fn wrap_under(text: &str, width: usize, hanging: Option<usize>) -> String {
    let width = width.max(NARROWEST);
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for line in text.split_inclusive('\n') {
        let (line, newline) = match line.strip_suffix('\n') {
            Some(line) => (line, "\n"),
            None => (line, ""),
        };
        if line.chars().count() <= width {
            out.push_str(line);
            out.push_str(newline);
            continue;
        }
        let indent = line.chars().take_while(|&c| c == ' ').count();
        // A continuation keeps at least half the width for text.
        let hanging = hanging.unwrap_or(indent + 2).min(width / 2);
        let mut rest: Vec<char> = line.chars().collect();
        let mut first = true;
        loop {
            let lead = if first { 0 } else { hanging };
            let room = width - lead;
            if !first {
                out.extend(std::iter::repeat_n(' ', hanging));
            }
            if rest.len() <= room {
                out.extend(rest.iter());
                break;
            }
            let window = &rest[..=room];
            let start = if first { indent + 1 } else { 1 };
            let cut = window[start.min(room)..]
                .iter()
                .rposition(|&c| c == ' ')
                .map(|i| (i + start.min(room), 1))
                .or_else(|| {
                    window[..room]
                        .iter()
                        .rposition(|&c| c == ',')
                        .filter(|&i| i > 0)
                        .map(|i| (i + 1, 0))
                })
                .unwrap_or((room, 0));
            let (at, skip) = cut;
            out.extend(rest[..at].iter());
            out.push('\n');
            rest.drain(..at + skip);
            while rest.first() == Some(&' ') {
                rest.remove(0);
            }
            first = false;
            if rest.is_empty() {
                break;
            }
        }
        out.push_str(newline);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_wide_markdown_table_splits_into_blocks_that_keep_the_row_labels() {
        let table = "Title\n\n| TN |  1D |  2D |  3D |\n|:--:|----:|----:|----:|\n|  3 | 50% | 75% | 87% |\nafter\n";
        // Fits at 40: unchanged.
        assert_eq!(super::markdown_tables(table, 40), table);
        // At 20 each block holds the label column and as many columns as fit in 20 characters.
        let split = super::markdown_tables(table, 20);
        assert_eq!(
            split,
            "Title\n\n| TN |  1D |  2D |\n|:--:|----:|----:|\n|  3 | 50% | 75% |\n\n\
             | TN |  3D |\n|:--:|----:|\n|  3 | 87% |\nafter\n"
        );
        assert!(split.lines().all(|line| line.chars().count() <= 20));
    }

    use super::*;

    fn widest(text: &str) -> usize {
        text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    #[test]
    fn long_lines_wrap_at_spaces_under_their_indentation() {
        let text =
            "  mechanic: roll 1d50; the combined modifier shifts the ranges, bad and good\nshort\n";
        let wrapped = wrap(text, 30);
        assert!(widest(&wrapped) <= 30, "{wrapped}");
        assert!(wrapped.ends_with("\nshort\n"));
        let lines: Vec<&str> = wrapped.lines().collect();
        assert!(lines[0].starts_with("  mechanic:"));
        assert!(lines[1].starts_with("    ") && !lines[1].starts_with("     "));
        // Nothing is lost but the spaces at the breaks.
        let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(words(&wrapped), words(text));
    }

    #[test]
    fn records_without_spaces_break_after_commas_or_anywhere() {
        let json = r#"state: {"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}"#;
        let wrapped = wrap(json, 24);
        assert!(widest(&wrapped) <= 24, "{wrapped}");
        assert_eq!(wrapped.replace(['\n', ' '], ""), json.replace(' ', ""));
        let digits = "1".repeat(100);
        let wrapped = wrap(&digits, 30);
        assert!(widest(&wrapped) <= 30);
        assert_eq!(wrapped.replace(['\n', ' '], ""), digits);
    }

    #[test]
    fn short_text_is_unchanged() {
        let text = "a b\n\n  c\n";
        assert_eq!(wrap(text, 60), text);
        assert_eq!(wrap("no newline", 60), "no newline");
    }
}

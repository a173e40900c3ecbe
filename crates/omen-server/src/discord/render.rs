//! Text for Discord, from what the API answered a member (already redacted for them): a log entry
//! in a line, an error in words, a compact table of exact odds, a verification. Nothing here reads
//! the database or decides what anyone may see.

use serde_json::Value;

use crate::error::ApiError;

/// Rows of an odds table shown in a message; the rest are counted (Discord's messages are short).
const MAX_ROWS: usize = 24;

/// An error's messages and hints, one per line.
pub(crate) fn api_error(error: &ApiError) -> String {
    let lines: Vec<String> = error
        .errors
        .iter()
        .map(|problem| match &problem.help {
            Some(help) => format!("{} ({help})", problem.message),
            None => problem.message.clone(),
        })
        .collect();
    format!("Refused: {}", lines.join("\n"))
}

/// Text from stored data shown inside inline code: a backtick would end it early.
pub(crate) fn code(text: &str) -> String {
    format!("`{}`", text.replace('`', "'"))
}

/// One log entry as its viewer may see it, in a line: number, character, summary; a hidden one's
/// visibility and commitment.
pub(crate) fn entry_line(entry: &Value) -> String {
    let sequence = entry["sequence"].as_u64().unwrap_or_default();
    let mut line = format!("**#{sequence}**");
    if let Some(character) = entry["character"].as_str() {
        line.push_str(&format!(" {}", code(character)));
    }
    let summary = entry["summary"].as_str().unwrap_or_default();
    line.push_str(&format!(" · {}", code(summary)));
    // Every face, as the viewer may see them: a sum alone would hide how it came about.
    let faces: Vec<String> = entry["dice"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|die| {
            Some(format!(
                "{}={}",
                die["die"].as_str()?,
                die["face"].as_i64()?
            ))
        })
        .collect();
    if !faces.is_empty() {
        line.push_str(&format!(" · dice {}", faces.join(" ")));
    }
    if entry["dice_given"] == true {
        line.push_str(" (given at the table)");
    }
    // Whose entropy the draw took, where the viewer may see the draw: the roller's means the
    // server, which knows the secret, did not choose the roll (`/verify entry:N` shows the rest).
    if entry["draw"]["entropy_from"] == "caller" {
        line.push_str(" · the roller's entropy");
    }
    let hidden = entry["redacted"] == true && entry["inputs"]["kind"] == "hidden";
    if let (true, Some(commitment)) = (hidden, entry["commitment"].as_str()) {
        let visibility = entry["visibility"].as_str().unwrap_or("hidden");
        line.push_str(&format!(" · {visibility}, commitment `{commitment}`"));
    }
    line
}

/// The exact distribution of an expression as a compact table: outcome, P(=) and P(≥) as
/// fractions in lowest terms, then the exact mean.
pub(crate) fn odds_table(odds: &Value) -> String {
    let rows = odds["outcomes"].as_array().map_or(&[][..], Vec::as_slice);
    let reading = odds["reading"].as_str().unwrap_or_default();
    let mut lines = vec![format!("{:>8}  {:>14}  {:>14}", "outcome", "P(=)", "P(≥)")];
    for row in rows.iter().take(MAX_ROWS) {
        let outcome = match &row["outcome"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        lines.push(format!(
            "{:>8}  {:>14}  {:>14}",
            outcome,
            row["probability"].as_str().unwrap_or_default(),
            row["at_least"].as_str().unwrap_or("")
        ));
    }
    if rows.len() > MAX_ROWS {
        lines.push(format!("… {} more outcomes", rows.len() - MAX_ROWS));
    }
    let mut text = format!(
        "Exact odds of {}\n```\n{}\n```",
        code(reading),
        lines.join("\n")
    );
    if let Some(mean) = odds["mean"].as_str() {
        text.push_str(&format!("\nmean {mean}"));
        if let Some(variance) = odds["variance"].as_str() {
            text.push_str(&format!(", variance {variance}"));
        }
    }
    text
}

/// A verification report in a few lines, with the receipt to keep.
pub(crate) fn verification(report: &Value) -> String {
    let problems = report["problems"].as_array().map_or(0, Vec::len);
    let entries = report["entries"].as_u64().unwrap_or_default();
    let head = &report["head"];
    let receipt = match (head["sequence"].as_u64(), head["hash"].as_str()) {
        (Some(sequence), Some(hash)) => format!("{sequence}:{}", &hash[..hash.len().min(32)]),
        _ => "none (an empty log)".to_string(),
    };
    let verdict = match problems {
        0 => "the log verifies: every hash, link, signature, draw and seed checks".to_string(),
        n => format!("{n} problems found (the API's `GET …/verify` lists them)"),
    };
    format!(
        "{entries} entries: {verdict}. Receipt to keep: `{receipt}` (public key fingerprint `{}`).",
        report["fingerprint"].as_str().unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_hidden_entry_shows_its_commitment_and_no_content() {
        let line = entry_line(&json!({
            "sequence": 4, "character": null, "summary": "a blind roll",
            "inputs": { "kind": "hidden" }, "redacted": true, "visibility": "blind",
            "commitment": "ab12",
        }));
        assert_eq!(line, "**#4** · `a blind roll` · blind, commitment `ab12`");
    }

    #[test]
    fn a_rolls_faces_follow_its_summary() {
        let line = entry_line(&json!({
            "sequence": 2, "character": "Cato", "summary": "2d6 = 9",
            "dice": [{ "die": "d6", "sides": 6, "face": 4 }, { "die": "d6", "sides": 6, "face": 5 }],
        }));
        assert_eq!(line, "**#2** `Cato` · `2d6 = 9` · dice d6=4 d6=5");
    }

    #[test]
    fn a_draw_with_the_rollers_entropy_says_so_and_the_servers_is_not_named() {
        let mut entry = json!({
            "sequence": 3, "character": null, "summary": "1d20 = 7",
            "draw": { "secret": "s", "entropy": "dice-for-ayla", "entropy_from": "caller" },
        });
        assert_eq!(
            entry_line(&entry),
            "**#3** · `1d20 = 7` · the roller's entropy"
        );
        entry["draw"]["entropy_from"] = json!("server");
        assert_eq!(entry_line(&entry), "**#3** · `1d20 = 7`");
    }

    #[test]
    fn a_backtick_in_stored_text_cannot_end_the_code_span() {
        assert_eq!(code("a`b"), "`a'b`");
    }

    #[test]
    fn the_odds_of_2d4_fill_a_table_of_exact_fractions() {
        // 2d4: totals 2..8 with 1, 2, 3, 4, 3, 2, 1 ways of 16.
        let odds = json!({
            "reading": "2d4", "mean": "5", "variance": "5/2",
            "outcomes": [
                { "outcome": 2, "probability": "1/16", "at_least": "1" },
                { "outcome": 5, "probability": "1/4", "at_least": "5/8" },
            ],
        });
        let table = odds_table(&odds);
        assert!(
            table.contains("       5             1/4             5/8"),
            "{table}"
        );
        assert!(table.ends_with("mean 5, variance 5/2"), "{table}");
    }
}

//! Odds as the rule sets give them (JSON of `{fraction, percent}` probabilities and distributions),
//! drawn for people: aligned lines, tables and the most likely outcome.

use serde_json::Value;

/// The odds as text: every line indented under a heading the caller writes.
pub fn odds_text(odds: &Value) -> String {
    let mut text = String::from("\n");
    render_odds(odds, "  ", &mut text);
    text
}

/// A probability as the rule sets give it, `{fraction, percent}`.
fn probability(value: &Value) -> Option<(&str, f64)> {
    let map = value.as_object()?;
    let fraction = map.get("fraction")?.as_str()?;
    Some((fraction, map.get("percent")?.as_f64()?))
}

/// A distribution as the rule sets give it: a list of `{outcome, fraction, percent}`.
fn distribution(value: &Value) -> Option<Vec<(String, &str, f64)>> {
    let items = value.as_array()?;
    if items.is_empty() {
        return None;
    }
    items
        .iter()
        .map(|item| {
            let (fraction, percent) = probability(item)?;
            Some((outcome_label(item.get("outcome")?), fraction, percent))
        })
        .collect()
}

/// Odds JSON for people: plain values as aligned `name  value` lines (absent ones left out), each
/// distribution as a table with aligned fraction and percent columns and a sentence naming its most
/// likely outcome, nested objects indented under their name.
fn render_odds(value: &Value, indent: &str, out: &mut String) {
    let Some(map) = value.as_object() else {
        out.push_str(&format!("{indent}{}\n", plain(value)));
        return;
    };
    let width = map
        .iter()
        .filter(|(_, v)| is_plain(v))
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    for (key, item) in map.iter().filter(|(_, v)| is_plain(v)) {
        out.push_str(&format!("{indent}{key:<width$}  {}\n", plain(item)));
    }
    for (key, item) in map.iter().filter(|(_, v)| !is_plain(v) && !v.is_null()) {
        if let Some(rows) = distribution(item) {
            out.push('\n');
            render_distribution(key, &rows, indent, out);
        } else if item.is_object() {
            out.push_str(&format!("{indent}{key}:\n"));
            render_odds(item, &format!("{indent}  "), out);
        } else if let Some(items) = item.as_array() {
            out.push_str(&format!("{indent}{key}:\n"));
            for element in items {
                render_odds(element, &format!("{indent}  "), out);
            }
        }
    }
}

/// A value printed on one line: a probability as `fraction ≈ percent`, anything else as JSON.
fn plain(value: &Value) -> String {
    match probability(value) {
        Some((fraction, percent)) => {
            format!("{fraction} ≈ {}", crate::float::percent(fraction, percent))
        }
        None => match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        },
    }
}

/// Whether a value is shown on one line rather than as a table or a nested block.
fn is_plain(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Object(_) => probability(value).is_some(),
        Value::Array(items) => items.iter().all(|i| !i.is_object() && !i.is_array()),
        _ => true,
    }
}

fn render_distribution(name: &str, rows: &[(String, &str, f64)], indent: &str, out: &mut String) {
    let label = rows
        .iter()
        .map(|r| r.0.chars().count())
        .max()
        .unwrap_or(0)
        .max(name.chars().count());
    let fraction = rows
        .iter()
        .map(|r| r.1.chars().count())
        .max()
        .unwrap_or(0)
        .max(1);
    out.push_str(&format!(
        "{indent}{name:<label$}  {:>fraction$}  {:>7}\n",
        "P", "%"
    ));
    for (outcome, p, percent) in rows {
        let percent = crate::float::percent(p, *percent);
        out.push_str(&format!(
            "{indent}{outcome:<label$}  {p:>fraction$}  {percent:>7}\n"
        ));
    }
    // The first of the most likely outcomes, in the order the rule set lists them.
    let mut likeliest = &rows[0];
    for row in rows {
        if row.2 > likeliest.2 {
            likeliest = row;
        }
    }
    out.push_str(&format!(
        "{indent}most likely: {} ({:.2}%)\n",
        likeliest.0, likeliest.2
    ));
}

/// An outcome as a table row's label: `good`, `3`, `success marginal`, `reached 15`.
fn outcome_label(outcome: &Value) -> String {
    match outcome {
        Value::String(text) => text.clone(),
        Value::Object(map) => map
            .iter()
            .map(|(key, value)| format!("{key} {}", outcome_label(value)))
            .collect::<Vec<_>>()
            .join(", "),
        Value::Array(items) => items
            .iter()
            .map(outcome_label)
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    }
}

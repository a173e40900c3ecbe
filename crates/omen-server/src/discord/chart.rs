//! `/odds`'s chart: the exact distribution the API answered, drawn by `omen-chart` as a PNG of its
//! fixed size and attached to the message, shown in an embed as `attachment://odds.png`. Outcomes
//! that are not numbers or true/false (labels, tuples) have no axis to sit on: their odds go as the
//! table alone.

use omen_chart::{Chart, Series};
use omen_core::Probability;
use serde_json::{Value, json};

use super::face::Face;
use super::multipart::Attachment;

/// The attachment's name, which the embed refers to.
pub(crate) const FILENAME: &str = "odds.png";

/// The chart of an odds answer (the API's `Odds` as JSON): P(= outcome) over the outcomes, one
/// series named by the reading. `None` when an outcome is not a number or true/false.
pub(crate) fn chart_of(odds: &Value) -> Option<Chart> {
    let rows = odds["outcomes"].as_array()?;
    let mut outcomes = Vec::with_capacity(rows.len());
    let mut probabilities = Vec::with_capacity(rows.len());
    for row in rows {
        outcomes.push(match &row["outcome"] {
            Value::Bool(b) => i64::from(*b),
            other => other.as_i64()?,
        });
        probabilities.push(row["probability"].as_str()?.parse::<Probability>().ok()?);
    }
    let reading = odds["reading"].as_str().unwrap_or_default();
    let series = Series::new(reading, probabilities);
    Chart::new("P(X = outcome)", outcomes, vec![series]).ok()
}

/// `message` showing the chart of `odds` in an embed, and the PNG to attach; the message alone
/// when there is no chart to draw. The drawing runs on the computation pool, as the Discord user's
/// share of it, like the odds themselves.
pub(crate) async fn with_chart(
    face: &Face,
    odds: &Value,
    mut message: Value,
) -> (Value, Vec<Attachment>) {
    let Some(chart) = chart_of(odds) else {
        return (message, Vec::new());
    };
    let drawn = face
        .app
        .inner
        .compute
        .run(move || omen_chart::png(&chart))
        .await;
    let bytes = match drawn {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(error)) => {
            tracing::warn!("discord: the odds chart was not drawn: {error}");
            return (message, Vec::new());
        }
        // Busy or out of time: the table says it all, exactly.
        Err(_) => return (message, Vec::new()),
    };
    let reading = odds["reading"].as_str().unwrap_or_default();
    let description: String = format!("P(X = outcome) of {reading}")
        .chars()
        .take(1000)
        .collect();
    message["embeds"] = json!([{ "image": { "url": format!("attachment://{FILENAME}") } }]);
    let file = Attachment {
        filename: FILENAME,
        content_type: "image/png",
        description,
        bytes,
    };
    (message, vec![file])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_truth_values_chart_and_labels_do_not() {
        let odds = json!({ "reading": "2d4", "outcomes": [
            { "outcome": 2, "probability": "1/16" },
            { "outcome": 5, "probability": "1/4" },
        ] });
        let chart = chart_of(&odds).unwrap();
        assert_eq!(chart.outcomes(), [2, 5]);
        let quarter = Probability::new(1u32.into(), 4u32.into());
        assert_eq!(chart.series()[0].probabilities[1], quarter);
        let truth = json!({ "reading": "d2 = 1", "outcomes": [
            { "outcome": false, "probability": "1/2" },
            { "outcome": true, "probability": "1/2" },
        ] });
        assert_eq!(chart_of(&truth).unwrap().outcomes(), [0, 1]);
        let labels = json!({ "reading": "x", "outcomes": [
            { "outcome": "hit", "probability": "1" },
        ] });
        assert!(chart_of(&labels).is_none());
    }
}

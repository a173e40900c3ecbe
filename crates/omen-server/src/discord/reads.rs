//! What a member reads in Discord, through the API's own handlers as that member: one entry, the
//! last entries, the exact odds of an expression (a table and a chart), the verification and the
//! fairness report.

use axum::Json;
use axum::extract::State;
use http_body_util::BodyExt;
use omen_store::Member;
use serde_json::Value;

use super::deferred::Delivery;
use super::draw::draw_check;
use super::face::Face;
use super::interaction::message;
use super::render::{api_error, entry_line, odds_table, verification};
use super::seat::Seat;
use crate::auth::Caller;
use crate::error::{ApiError, Body, PathParams, QueryParams};
use crate::listing::LogQuery;

/// The entries after `after` (at most `limit`), as `member` may see them: the log route's answer.
async fn entries_as(face: &Face, member: &Member, query: LogQuery) -> Result<Vec<Value>, ApiError> {
    let response = crate::listing::log(
        State(face.app.clone()),
        Caller(member.clone()),
        PathParams(member.campaign.clone()),
        QueryParams(query),
    )
    .await?;
    let bytes = response
        .into_body()
        .collect()
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .to_bytes();
    serde_json::from_slice(&bytes).map_err(|e| ApiError::internal(e.to_string()))
}

/// Entry `sequence` as `member` may see it.
pub(crate) async fn entry_as(
    face: &Face,
    member: &Member,
    sequence: u64,
) -> Result<Value, ApiError> {
    let query = LogQuery {
        after: Some(sequence.saturating_sub(1)),
        limit: Some(1),
        ..LogQuery::default()
    };
    entries_as(face, member, query)
        .await?
        .into_iter()
        .find(|entry| entry["sequence"].as_u64() == Some(sequence))
        .ok_or_else(|| ApiError::not_found(format!("the log has no entry {sequence}")))
}

pub(crate) async fn log(face: &Face, seat: &Seat, last: u64) -> Delivery {
    let query = LogQuery {
        last: Some(last as usize),
        ..LogQuery::default()
    };
    let mut text = match entries_as(face, &seat.member, query).await {
        Ok(entries) if entries.is_empty() => "The log is empty.".to_string(),
        Ok(entries) => entries
            .iter()
            .map(entry_line)
            .collect::<Vec<_>>()
            .join("\n"),
        Err(error) => return Delivery::one(message(&api_error(&error), true, &[])),
    };
    if let Some(next) = next_draw(face, seat).await {
        text.push_str(&format!(
            "\nNext draw: commitment `{next}` (give it as `commitment`, with your own `entropy`, to be sure your roll takes it)"
        ));
    }
    Delivery::one(message(&text, true, &[]))
}

/// The commitment of the draw the next entry will take, as the head route publishes it.
async fn next_draw(face: &Face, seat: &Seat) -> Option<String> {
    let head = crate::campaigns::campaign::head(
        State(face.app.clone()),
        Caller(seat.member.clone()),
        PathParams(seat.campaign.clone()),
    )
    .await
    .ok()?;
    head.0["next_draw_commitment"].as_str().map(str::to_string)
}

pub(crate) async fn odds(face: &Face, seat: &Seat, expression: String) -> Delivery {
    let campaign = seat.campaign.clone();
    let dialect = face
        .app
        .inner
        .db
        .with(move |store| store.campaign(&campaign))
        .await
        .map(|c| c.dialect);
    let request = crate::prob::ProbRequest {
        expressions: vec![expression],
        dialect: dialect.ok(),
        params: Default::default(),
        expression_params: Vec::new(),
        explode_depth: None,
        approximate: None,
    };
    let odds = match crate::prob::prob(State(face.app.clone()), Body(request)).await {
        Ok((_, Json(answer))) => serde_json::to_value(&answer.results[0]).unwrap_or_default(),
        Err(error) => return Delivery::one(message(&api_error(&error), true, &[])),
    };
    let table = message(&odds_table(&odds), true, &[]);
    let (original, files) = super::chart::with_chart(face, &odds, table).await;
    Delivery {
        files,
        ..Delivery::one(original)
    }
}

/// The verification, and a receipt's check when one is given: the log verified as a whole still
/// holds the receipt's entry with the receipt's hash, so it was not cut back or rewritten at or
/// before it (as `omen log verify --since`); and one entry's draw when one is named.
pub(crate) async fn verify(
    face: &Face,
    seat: &Seat,
    receipt: Option<String>,
    entry: Option<u64>,
) -> Delivery {
    let report = crate::campaigns::campaign::verify(
        State(face.app.clone()),
        Caller(seat.member.clone()),
        PathParams(seat.campaign.clone()),
    )
    .await;
    let (mut text, report) = match report {
        Ok(Json(report)) => (verification(&report), report),
        Err(error) => return Delivery::one(message(&api_error(&error), false, &[])),
    };
    if let Some(sequence) = entry {
        text.push('\n');
        text.push_str(&check_draw(face, seat, sequence, &report).await);
    }
    if let Some(receipt) = receipt {
        text.push('\n');
        text.push_str(&check_receipt(face, seat, &receipt).await);
    }
    Delivery::one(message(&text, false, &[]))
}

/// Entry `sequence`'s draw as the channel may see it (what is posted is the channel's), with the
/// entry before it, and whether the verification named it.
async fn check_draw(face: &Face, seat: &Seat, sequence: u64, report: &Value) -> String {
    let entry = match entry_as(face, &seat.channel(), sequence).await {
        Ok(entry) => entry,
        Err(error) => return api_error(&error),
    };
    let before = match sequence {
        0 | 1 => None,
        _ => entry_as(face, &seat.channel(), sequence - 1).await.ok(),
    };
    let verifies = !report["problems"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|p| p["sequence"].as_u64() == Some(sequence));
    draw_check(&entry, before.as_ref(), verifies)
}

async fn check_receipt(face: &Face, seat: &Seat, receipt: &str) -> String {
    let parsed = receipt.trim().split_once(':').and_then(|(sequence, hash)| {
        let fits = (8..=64).contains(&hash.len()) && hash.bytes().all(|b| b.is_ascii_hexdigit());
        Some((sequence.parse::<u64>().ok()?, hash.to_ascii_lowercase())).filter(|_| fits)
    });
    let Some((sequence, hash)) = parsed else {
        return "The receipt is not `SEQUENCE:HASH` (8 to 64 hex digits of the hash).".to_string();
    };
    let shown = super::render::code(receipt.trim());
    match entry_as(face, &seat.member, sequence).await {
        Ok(entry) if entry["hash"].as_str().is_some_and(|h| h.starts_with(&hash)) => {
            format!("Receipt {shown} holds: entry {sequence} is still the one it names.")
        }
        Ok(_) => format!(
            "Receipt {shown} FAILS: entry {sequence} has another hash now; the log was rewritten at or before it."
        ),
        Err(_) => {
            format!("Receipt {shown} FAILS: the log has no entry {sequence} now; it was cut back.")
        }
    }
}

pub(crate) async fn fairness(face: &Face, seat: &Seat) -> Delivery {
    let report = crate::fairness::fairness(
        State(face.app.clone()),
        Caller(seat.member.clone()),
        PathParams(seat.campaign.clone()),
        QueryParams(Default::default()),
    )
    .await;
    let text = match report {
        Ok(Json(report)) => verdicts(&report),
        Err(error) => api_error(&error),
    };
    Delivery::one(message(&text, true, &[]))
}

/// The whole campaign's verdicts of a fairness report (each die, then each expression and
/// action), one line each, with what the test can see (its power against the first stated bias).
fn verdicts(report: &Value) -> String {
    let whole = &report["whole"];
    let tests = ["dice", "mechanics"]
        .iter()
        .flat_map(|part| whole[*part].as_array().into_iter().flatten());
    let lines: Vec<String> = tests
        .filter_map(|test| {
            let name = test["die"].as_str().or(test["mechanic"].as_str())?;
            let summary = test["summary"].as_str()?;
            let power = test["power"][0]["text"].as_str();
            Some(match power {
                Some(power) => format!("{}: {summary}; {power}", super::render::code(name)),
                None => format!("{}: {summary}", super::render::code(name)),
            })
        })
        .take(30)
        .collect();
    if lines.is_empty() {
        return "No dice to test yet.".to_string();
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_reports_whole_campaign_verdicts_are_listed() {
        let report = json!({ "whole": {
            "dice": [{ "die": "d6", "summary": "consistent with fair dice (p = 0.361)",
                       "verdict": { "verdict": "consistent" },
                       "power": [{ "text": "tells a fair die from one that never shows 6 40 % of the time" }] }],
            "mechanics": [{ "mechanic": "1d20", "summary": "too few rolls to tell", "power": [] }],
        }, "sessions": [{ "dice": [{ "die": "d6", "summary": "a session's" }] }] });
        assert_eq!(
            verdicts(&report),
            "`d6`: consistent with fair dice (p = 0.361); tells a fair die from one that never shows 6 40 % of the time\n`1d20`: too few rolls to tell"
        );
    }
}

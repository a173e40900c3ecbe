//! Each roll's visibility through the API, the game master's reveal, and the fairness report.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::campaigns::{invite, with_ayla};
use crate::{get, post};

fn entry_in(log: &Value, sequence: &Value) -> Value {
    log.as_array()
        .unwrap()
        .iter()
        .find(|e| e["sequence"] == *sequence)
        .cloned()
        .unwrap_or_else(|| panic!("no entry {sequence} in {log}"))
}

#[tokio::test]
async fn a_blind_roll_is_hidden_from_its_roller_and_the_table_until_the_game_master_reveals_it() {
    let (app, gm) = with_ayla().await;
    let player = invite(&app, &gm, "player", Some("Ayla")).await;
    let observer = invite(&app, &gm, "observer", None).await;
    let rolled = post(
        &app,
        "/api/v1/campaigns/Tak/rolls",
        Some(&player),
        json!({ "expression": "3d6", "character": "Ayla", "visibility": "blind" }),
    )
    .await;
    assert_eq!(rolled.status, StatusCode::OK, "{}", rolled.json());
    let answer = rolled.json();
    // The roller learns that it happened, and nothing of how it went.
    assert_eq!(answer["entry"]["result"], Value::Null);
    assert_eq!(answer["entry"]["dice"], json!([]));
    assert!(answer.get("roll").is_none(), "{answer}");
    let sequence = answer["entry"]["sequence"].clone();
    let gm_entry = entry_in(
        &get(&app, "/api/v1/campaigns/Tak/log", Some(&gm))
            .await
            .json(),
        &sequence,
    );
    assert!(gm_entry["result"].is_i64(), "{gm_entry}");
    assert_eq!(gm_entry["dice"].as_array().unwrap().len(), 3);
    let table = entry_in(
        &get(&app, "/api/v1/campaigns/Tak/log", Some(&observer))
            .await
            .json(),
        &sequence,
    );
    assert_eq!(table["result"], Value::Null);
    assert!(
        table["commitment"].is_string(),
        "the table sees the commitment: {table}"
    );
    assert_eq!(table["hash"], gm_entry["hash"]);
    // Only the game master reveals a blind roll: to its roller it is as if there were none.
    let uri = format!("/api/v1/campaigns/Tak/log/{sequence}/reveal");
    assert_eq!(
        post(&app, &uri, Some(&player), json!({})).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        post(&app, &uri, Some(&observer), json!({})).await.status,
        StatusCode::FORBIDDEN
    );
    let revealed = post(&app, &uri, Some(&gm), json!({})).await;
    assert_eq!(revealed.status, StatusCode::OK, "{}", revealed.json());
    let after = entry_in(
        &get(&app, "/api/v1/campaigns/Tak/log", Some(&observer))
            .await
            .json(),
        &sequence,
    );
    assert_eq!(after["result"], gm_entry["result"]);
    assert_eq!(after["dice"], gm_entry["dice"]);
    // Revealed already: a conflict with the entry's state, not a malformed request.
    let twice = post(&app, &uri, Some(&gm), json!({})).await;
    assert_eq!(twice.status, StatusCode::CONFLICT);
    assert_eq!(twice.kind(), "conflict");
    let verified = get(&app, "/api/v1/campaigns/Tak/verify", Some(&observer))
        .await
        .json();
    assert_eq!(verified["ok"], true, "{verified}");
}

#[tokio::test]
async fn a_private_roll_is_the_rollers_and_the_game_masters_and_a_self_roll_the_rollers_only() {
    let (app, gm) = with_ayla().await;
    let player = invite(&app, &gm, "player", Some("Ayla")).await;
    let observer = invite(&app, &gm, "observer", None).await;
    let mut sequences = Vec::new();
    for visibility in ["private", "self"] {
        let rolled = post(
            &app,
            "/api/v1/campaigns/Tak/characters/Ayla/actions",
            Some(&player),
            json!({ "action": { "action": "roll" }, "visibility": visibility }),
        )
        .await;
        assert_eq!(rolled.status, StatusCode::OK, "{}", rolled.json());
        // The roller sees their own roll either way.
        assert!(
            rolled.json()["entry"]["result"]["outcome"].is_string(),
            "{}",
            rolled.json()
        );
        sequences.push(rolled.json()["entry"]["sequence"].clone());
    }
    let seen = |token: String| {
        let app = app.clone();
        async move {
            get(&app, "/api/v1/campaigns/Tak/log", Some(&token))
                .await
                .json()
        }
    };
    let (gm_log, observer_log) = (seen(gm.clone()).await, seen(observer.clone()).await);
    assert!(entry_in(&gm_log, &sequences[0])["result"].is_object());
    assert_eq!(entry_in(&gm_log, &sequences[1])["result"], Value::Null);
    for sequence in &sequences {
        assert_eq!(entry_in(&observer_log, sequence)["result"], Value::Null);
    }
    let bad = post(
        &app,
        "/api/v1/campaigns/Tak/rolls",
        Some(&player),
        json!({ "expression": "d6", "visibility": "secret" }),
    )
    .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn the_fairness_report_is_served_to_every_member() {
    let (app, gm) = with_ayla().await;
    let observer = invite(&app, &gm, "observer", None).await;
    for _ in 0..5 {
        let rolled = post(
            &app,
            "/api/v1/campaigns/Tak/rolls",
            Some(&gm),
            json!({ "expression": "2d6" }),
        )
        .await;
        assert_eq!(rolled.status, StatusCode::OK);
    }
    for _ in 0..3 {
        let acted = post(
            &app,
            "/api/v1/campaigns/Tak/characters/Ayla/actions",
            Some(&gm),
            json!({ "action": { "action": "roll" } }),
        )
        .await;
        assert_eq!(acted.status, StatusCode::OK);
    }
    let report = get(&app, "/api/v1/campaigns/Tak/fairness", Some(&gm)).await;
    assert_eq!(report.status, StatusCode::OK);
    // The luck rolls are tested against the odds each had; the game master's report has them, an
    // observer's does not (the odds of a luck roll would give the hidden modifiers away).
    let text = String::from_utf8_lossy(&report.bytes).to_string();
    assert!(text.contains("\"luck roll: outcome\""), "{text}");
    let observers = get(&app, "/api/v1/campaigns/Tak/fairness", Some(&observer)).await;
    assert_eq!(observers.status, StatusCode::OK);
    assert!(!String::from_utf8_lossy(&observers.bytes).contains("luck roll"));
    assert!(report.json().is_object());
    assert!(
        report.bytes.windows(3).any(|w| w == b"d6\""),
        "{}",
        report.json()
    );
    let theirs = get(
        &app,
        "/api/v1/campaigns/Tak/fairness?last=2",
        Some(&observer),
    )
    .await;
    assert_eq!(theirs.status, StatusCode::OK);
    let bad = get(&app, "/api/v1/campaigns/Tak/fairness?since=soon", Some(&gm)).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
}

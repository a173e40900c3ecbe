//! Revealing a `self` roll over the API: its roller may, and no one else, the game master
//! included; everyone else is refused without learning whose the entry is or what it holds.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::campaigns::{invite, with_ayla};
use crate::{Answer, get, post};

fn reveal_uri(sequence: u64) -> String {
    format!("/api/v1/campaigns/Tak/log/{sequence}/reveal")
}

async fn head(app: &axum::Router, gm: &str) -> Value {
    get(app, "/api/v1/campaigns/Tak/head", Some(gm))
        .await
        .json()
}

/// The answer's status and body, with the entry number it names written as `N`.
fn refusal_of(answer: &Answer, sequence: u64) -> (StatusCode, String) {
    let text = String::from_utf8_lossy(&answer.bytes).replace(&sequence.to_string(), "N");
    (answer.status, text)
}

#[tokio::test]
async fn a_player_reveals_their_own_self_roll_and_no_one_else_can() {
    let (app, gm) = with_ayla().await;
    let made = post(
        &app,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        json!({ "name": "Bren", "rule_set": "luck", "sheet": { "intrinsic": [] } }),
    )
    .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    let ayla = invite(&app, &gm, "player", Some("Ayla")).await;
    let bren = invite(&app, &gm, "player", Some("Bren")).await;
    let observer = invite(&app, &gm, "observer", None).await;
    let rolled = post(
        &app,
        "/api/v1/campaigns/Tak/rolls",
        Some(&ayla),
        json!({ "expression": "3d6", "character": "Ayla", "visibility": "self" }),
    )
    .await;
    assert_eq!(rolled.status, StatusCode::OK, "{}", rolled.json());
    let sequence = rolled.json()["entry"]["sequence"].as_u64().unwrap();
    let result = rolled.json()["entry"]["result"].clone();
    assert!(
        result.is_i64(),
        "the roller sees their roll: {}",
        rolled.json()
    );
    let public = post(
        &app,
        "/api/v1/campaigns/Tak/rolls",
        Some(&bren),
        json!({ "expression": "d6", "character": "Bren" }),
    )
    .await;
    let public = public.json()["entry"]["sequence"].as_u64().unwrap();
    let before = head(&app, &gm).await;

    // Another player: refused exactly as for an entry that does not exist.
    let nowhere = 999;
    let absent = post(&app, &reveal_uri(nowhere), Some(&bren), json!({})).await;
    assert_eq!(absent.status, StatusCode::NOT_FOUND);
    let theirs = post(&app, &reveal_uri(sequence), Some(&bren), json!({})).await;
    assert_eq!(refusal_of(&theirs, sequence), refusal_of(&absent, nowhere));
    // An observer reveals nothing, whichever entry it names.
    let watched = post(&app, &reveal_uri(sequence), Some(&observer), json!({})).await;
    let unwatched = post(&app, &reveal_uri(nowhere), Some(&observer), json!({})).await;
    assert_eq!(watched.status, StatusCode::FORBIDDEN);
    assert_eq!(
        refusal_of(&watched, sequence),
        refusal_of(&unwatched, nowhere)
    );
    // The game master never saw it, so cannot publish it either.
    let by_gm = post(&app, &reveal_uri(sequence), Some(&gm), json!({})).await;
    assert_eq!(by_gm.status, StatusCode::FORBIDDEN, "{}", by_gm.json());
    // None of the refusals wrote anything, or said anything of the roll.
    assert_eq!(head(&app, &gm).await, before);
    for refused in [&theirs, &watched, &by_gm] {
        let text = String::from_utf8_lossy(&refused.bytes);
        assert!(!text.contains("3d6"), "{text}");
    }

    // Its roller reveals it; then everyone sees it, and the log verifies.
    let revealed = post(&app, &reveal_uri(sequence), Some(&ayla), json!({})).await;
    assert_eq!(revealed.status, StatusCode::OK, "{}", revealed.json());
    assert_eq!(revealed.json()["action"], "reveal");
    assert_eq!(revealed.json()["inputs"]["sequence"], sequence);
    let log = get(&app, "/api/v1/campaigns/Tak/log", Some(&observer))
        .await
        .json();
    let entry = log
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["sequence"] == sequence)
        .unwrap();
    assert_eq!(entry["result"], result);
    let verified = get(&app, "/api/v1/campaigns/Tak/verify", Some(&observer))
        .await
        .json();
    assert_eq!(verified["ok"], true, "{verified}");

    // What everyone sees is a conflict, told as it is: revealed already, or never hidden.
    let again = post(&app, &reveal_uri(sequence), Some(&ayla), json!({})).await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert!(
        again.json()["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("revealed already"),
        "{}",
        again.json()
    );
    for token in [&ayla, &gm] {
        let open = post(&app, &reveal_uri(public), Some(token), json!({})).await;
        assert_eq!(open.status, StatusCode::CONFLICT, "{}", open.json());
        assert_eq!(open.kind(), "conflict");
    }
}

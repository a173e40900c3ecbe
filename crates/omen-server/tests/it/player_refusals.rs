//! What a player reads of a refused action, in a rule set with hidden fields (seed 002 keeps Luck
//! modifiers with the game master): a refusal that does not depend on the hidden state is shown in
//! full; one that does is still withheld.

use axum::Router;
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::{app, post};

const WITHHELD: &str = "refused for a reason that only the game master sees";
const HIDDEN: &str = "xyzzy-curse";

/// A campaign with Ayla (luck, a hidden modifier of +7) and tokens for its game master and her
/// player.
async fn table() -> (Router, String, String) {
    let app = app();
    let sheet = json!({ "intrinsic": [{ "source": HIDDEN, "value": 7 }] });
    let (gm, player) = crate::luck_table(&app, &["Ayla"], &sheet).await;
    (app, gm, player)
}

/// The first problem's message of a refused action, and of its odds.
async fn refusals(app: &Router, token: &str, action: Value) -> Vec<String> {
    let mut messages = Vec::new();
    for route in ["actions", "odds"] {
        let answer = post(
            app,
            &format!("/api/v1/campaigns/Tak/characters/Ayla/{route}"),
            Some(token),
            json!({ "action": action }),
        )
        .await;
        assert_eq!(
            answer.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{route} {action}: {}",
            answer.json()
        );
        let text = answer.json().to_string();
        assert!(!text.contains(HIDDEN), "{text}");
        messages.push(
            answer.json()["errors"][0]["message"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    messages
}

#[tokio::test]
async fn a_player_reads_in_full_a_refusal_that_depends_on_nothing_hidden() {
    let (app, _gm, player) = table().await;
    // A misspelt action: the rule set's actions are listed.
    for message in refusals(&app, &player, json!({ "action": "rol" })).await {
        assert_ne!(message, WITHHELD);
        assert!(message.contains("`rol`"), "{message}");
        assert!(message.contains("roll"), "{message}");
    }
    // Words where a number belongs.
    let words = json!({ "action": "roll", "event_modifier": "minus five" });
    for message in refusals(&app, &player, words).await {
        assert_ne!(message, WITHHELD);
        assert!(message.contains("invalid action"), "{message}");
    }
    // An event modifier past the seed's ±50: refused whatever the hidden modifiers are.
    let far = json!({ "action": "roll", "event_modifier": 99 });
    for message in refusals(&app, &player, far).await {
        assert_ne!(message, WITHHELD);
        assert!(message.contains("99"), "{message}");
    }
}

#[tokio::test]
async fn a_refusal_that_depends_on_a_hidden_modifier_stays_withheld_from_the_player() {
    let (app, gm, player) = table().await;
    // The game master adds a modifier so large that the total of a +50 event overflows: 7 and
    // i64::MAX − 10 add up (to i64::MAX − 3), but adding 50 does not fit.
    let huge = i64::MAX - 10;
    let added = post(
        &app,
        "/api/v1/campaigns/Tak/characters/Ayla/actions",
        Some(&gm),
        json!({ "action": { "action": "add-modifier", "source": "curse", "value": huge } }),
    )
    .await;
    assert_eq!(added.status, StatusCode::OK, "{}", added.json());
    let roll = json!({ "action": "roll", "event_modifier": 50 });
    for message in refusals(&app, &player, roll.clone()).await {
        assert_eq!(message, WITHHELD);
    }
    // The game master reads why.
    for message in refusals(&app, &gm, roll).await {
        assert_ne!(message, WITHHELD);
    }
    // Without the hidden modifier the same roll goes through for the player: the refusal above
    // was the hidden state's.
    let (fresh, _, fresh_player) = table().await;
    let rolled = post(
        &fresh,
        "/api/v1/campaigns/Tak/characters/Ayla/odds",
        Some(&fresh_player),
        json!({ "action": { "action": "roll", "event_modifier": 50 } }),
    )
    .await;
    assert_eq!(rolled.status, StatusCode::OK, "{}", rolled.json());
}

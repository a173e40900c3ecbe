//! Written from the player's and the observer's side: what they may do, and that no answer, event
//! or error they receive holds a value the rule set keeps for the game master. Recognisable hidden
//! values are planted (a luck character's intrinsic modifiers, by source names no other field could
//! hold), then every byte of every answer is searched.

use axum::Router;
use axum::http::{Method, StatusCode};
use serde_json::json;

use crate::campaigns::invite;
use crate::live::{Events, http, start};
use crate::{call, get, post};

/// What must never reach a player or an observer: the planted sources, and the luck rule set's
/// game-master-only field names (their presence alone would show the modifiers).
const HIDDEN: &[&str] = &[
    "zq-secret-amulet",
    "zq-secret-curse",
    "zq-secret-bo-charm",
    "\"intrinsic\"",
    "\"karmic_modifier\"",
    "\"modifier\"",
];

fn assert_clean(who: &str, what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for hidden in HIDDEN {
        assert!(
            !text.contains(hidden),
            "{who} received {hidden} in {what}: {text}"
        );
    }
}

/// Tak with Ayla (a player's) and Bo (no one's), both with hidden modifiers, a hidden one added by
/// an action, and rolls by the game master.
async fn table(app: &Router) -> (String, String, String) {
    let gm = campaign_token(app).await;
    for (name, source) in [("Ayla", "zq-secret-amulet"), ("Bo", "zq-secret-bo-charm")] {
        let made = post(
            app,
            "/api/v1/campaigns/Tak/characters",
            Some(&gm),
            json!({ "name": name, "rule_set": "luck",
                    "sheet": { "intrinsic": [{ "source": source, "value": 3 }] } }),
        )
        .await;
        assert_eq!(made.status, StatusCode::CREATED);
    }
    let cursed = post(
        app,
        "/api/v1/campaigns/Tak/characters/Ayla/actions",
        Some(&gm),
        json!({ "action": { "action": "add-modifier", "source": "zq-secret-curse", "value": -4 } }),
    )
    .await;
    assert_eq!(cursed.status, StatusCode::OK, "{}", cursed.json());
    for character in ["Ayla", "Bo"] {
        let rolled = post(
            app,
            &format!("/api/v1/campaigns/Tak/characters/{character}/actions"),
            Some(&gm),
            json!({ "action": { "action": "roll", "event_modifier": 4 }, "odds": true }),
        )
        .await;
        assert_eq!(rolled.status, StatusCode::OK);
        // The game master does see them: the search below can fail.
        assert!(String::from_utf8_lossy(&rolled.bytes).contains("\"modifier\""));
    }
    let gm_view = get(app, "/api/v1/campaigns/Tak/log", Some(&gm)).await;
    assert!(String::from_utf8_lossy(&gm_view.bytes).contains("zq-secret-curse"));
    let player = invite(app, &gm, "player", Some("Ayla")).await;
    let observer = invite(app, &gm, "observer", None).await;
    (gm, player, observer)
}

async fn campaign_token(app: &Router) -> String {
    let made = post(app, "/api/v1/campaigns", None, json!({ "name": "Tak" })).await;
    made.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Every route a member can call, as `who`; every answer searched.
async fn every_route(app: &Router, who: &str, token: &str) -> Vec<(String, StatusCode)> {
    let t = Some(token);
    let mut answers = Vec::new();
    let requests: Vec<(Method, &str, Option<serde_json::Value>)> = vec![
        (Method::GET, "/api/v1/campaigns", None),
        (Method::GET, "/api/v1/campaigns/Tak", None),
        (Method::GET, "/api/v1/campaigns/Tak/characters", None),
        (Method::GET, "/api/v1/campaigns/Tak/characters/Ayla", None),
        (Method::GET, "/api/v1/campaigns/Tak/characters/Bo", None),
        (Method::GET, "/api/v1/campaigns/Tak/log", None),
        (
            Method::GET,
            "/api/v1/campaigns/Tak/log?character=Ayla&last=3",
            None,
        ),
        (Method::GET, "/api/v1/campaigns/Tak/verify", None),
        (Method::GET, "/api/v1/campaigns/Tak/fairness", None),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/log/5/reveal",
            Some(json!({})),
        ),
        (Method::GET, "/api/v1/campaigns/Tak/head", None),
        (Method::GET, "/api/v1/campaigns/Tak/saved", None),
        (Method::GET, "/api/v1/campaigns/Tak/export", None),
        (Method::GET, "/api/v1/campaigns/Tak/invites", None),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/invites",
            Some(json!({ "role": "gm" })),
        ),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/characters/Ayla/odds",
            Some(json!({ "action": { "action": "roll" } })),
        ),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/characters/Bo/odds",
            Some(json!({ "action": { "action": "roll" } })),
        ),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/characters/Ayla/actions",
            Some(json!({ "action": { "action": "roll", "event_modifier": 2 }, "odds": true })),
        ),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/characters/Ayla/actions",
            Some(json!({ "action": { "action": "roll" }, "dice": [50] })),
        ),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/characters/Ayla/actions",
            Some(json!({ "action": { "action": "add-modifier", "source": "x", "value": 1 } })),
        ),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/characters/Bo/actions",
            Some(json!({ "action": { "action": "roll" } })),
        ),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/characters/Ayla/actions",
            Some(json!({ "action": { "action": "dance" } })),
        ),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/rolls",
            Some(json!({ "expression": "d20", "character": "Ayla" })),
        ),
        (
            Method::PATCH,
            "/api/v1/campaigns/Tak/characters/Ayla",
            Some(json!({ "state": { "intrinsic": [] } })),
        ),
        // Refusals: each error body is searched like any answer.
        (
            Method::POST,
            "/api/v1/campaigns/Tak/characters/Ayla/actions",
            Some(json!({ "action": { "action": "roll", "event_modifier": 99 } })),
        ),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/characters/Ayla/actions",
            Some(json!({ "action": { "action": "remove-modifier" } })),
        ),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/characters/Ayla/odds",
            Some(json!({ "action": { "action": "add-modifier" } })),
        ),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/characters/Bo/odds",
            Some(json!({ "action": { "action": "roll", "event_modifier": -99 } })),
        ),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/rolls",
            Some(json!({ "expression": "d20 +", "character": "Ayla" })),
        ),
        (Method::GET, "/api/v1/campaigns/Tak/log?since=soon", None),
        (Method::GET, "/api/v1/campaigns/Tak/characters/Nobody", None),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/log/999/reveal",
            Some(json!({})),
        ),
        (Method::DELETE, "/api/v1/campaigns/Tak/characters/Bo", None),
        (
            Method::POST,
            "/api/v1/campaigns/Tak/characters",
            Some(json!({ "name": "Cy", "rule_set": "none" })),
        ),
    ];
    for (method, uri, body) in requests {
        let answer = call(app, method.clone(), uri, t, body).await;
        assert!(!answer.status.is_server_error(), "{who}: {method} {uri}");
        assert_clean(who, &format!("{method} {uri}"), &answer.bytes);
        answers.push((format!("{method} {uri}"), answer.status));
    }
    answers
}

fn status_of(answers: &[(String, StatusCode)], request: &str) -> StatusCode {
    answers
        .iter()
        .find(|(r, _)| r == request)
        .unwrap_or_else(|| panic!("{request}"))
        .1
}

#[tokio::test]
async fn a_player_reads_and_acts_for_their_character_and_never_sees_the_hidden_modifiers() {
    let app = crate::app();
    let (_, player, _) = table(&app).await;
    let answers = every_route(&app, "the player", &player).await;
    let ok = |r: &str| assert_eq!(status_of(&answers, r), StatusCode::OK, "{r}");
    let forbidden = |r: &str| assert_eq!(status_of(&answers, r), StatusCode::FORBIDDEN, "{r}");
    ok("GET /api/v1/campaigns/Tak/log");
    ok("GET /api/v1/campaigns/Tak/characters/Bo");
    ok("POST /api/v1/campaigns/Tak/characters/Ayla/odds");
    ok("POST /api/v1/campaigns/Tak/rolls");
    // Their own copy of the campaign, which every byte check above found clean, marked as such.
    ok("GET /api/v1/campaigns/Tak/export");
    let export = call(
        &app,
        Method::GET,
        "/api/v1/campaigns/Tak/export",
        Some(&player),
        None,
    )
    .await;
    assert_eq!(export.json()["redacted_for"], "player");
    forbidden("GET /api/v1/campaigns/Tak/invites");
    forbidden("POST /api/v1/campaigns/Tak/invites");
    forbidden("POST /api/v1/campaigns/Tak/characters/Bo/actions");
    forbidden("PATCH /api/v1/campaigns/Tak/characters/Ayla");
    forbidden("DELETE /api/v1/campaigns/Tak/characters/Bo");
    forbidden("POST /api/v1/campaigns/Tak/characters");
    let acted = answers
        .iter()
        .filter(|(r, _)| r == "POST /api/v1/campaigns/Tak/characters/Ayla/actions")
        .map(|(_, s)| *s)
        .collect::<Vec<_>>();
    // Their own roll; given dice (a chosen roll) refused; an action that sets a field the rule set
    // keeps for the game master (a hidden modifier) refused.
    assert_eq!(acted[0], StatusCode::OK);
    assert_eq!(acted[1], StatusCode::FORBIDDEN);
    assert_eq!(acted[2], StatusCode::FORBIDDEN);
    // An action the player's character may not take from its state is refused without the reason,
    // which could quote the state.
    assert_eq!(acted[3], StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn an_observer_only_reads_and_never_sees_the_hidden_modifiers() {
    let app = crate::app();
    let (_, _, observer) = table(&app).await;
    let answers = every_route(&app, "the observer", &observer).await;
    for (request, status) in &answers {
        if request.starts_with("GET") {
            let gm_only = request.ends_with("/invites");
            let expected = if gm_only {
                StatusCode::FORBIDDEN
            } else if request.ends_with("since=soon") {
                StatusCode::BAD_REQUEST
            } else if request.ends_with("/Nobody") {
                StatusCode::NOT_FOUND
            } else {
                StatusCode::OK
            };
            assert_eq!(*status, expected, "{request}");
        } else if !request.ends_with("/odds") {
            assert_eq!(*status, StatusCode::FORBIDDEN, "{request}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_stream_of_a_player_and_an_observer_holds_no_hidden_value() {
    let state = crate::state_with(crate::config());
    let app = omen_server::app(state.clone());
    let (gm, player, observer) = table(&app).await;
    let live = start(state).await;
    for (who, token) in [("the player", &player), ("the observer", &observer)] {
        // The whole log from the first entry, then a live one.
        let mut events = Events::open(
            live.address,
            "/api/v1/campaigns/Tak/events?after=0",
            token,
            None,
        )
        .await;
        assert_eq!(events.status, 200);
        let rolled = http(
            live.address,
            "POST",
            "/api/v1/campaigns/Tak/characters/Bo/actions",
            Some(&gm),
            Some(json!({ "action": { "action": "roll", "event_modifier": 1 } })),
        )
        .await;
        let last = rolled.json()["entry"]["sequence"].as_u64().unwrap();
        let mut count = 0;
        while let Some((id, _)) = events.next().await {
            count += 1;
            if id == last {
                break;
            }
        }
        assert_eq!(count, last, "{who} got every entry");
        assert_clean(who, "the event stream", &events.seen);
    }
}

#[tokio::test]
async fn a_player_adds_saved_rolls_but_replacing_one_is_the_game_masters() {
    let app = crate::app();
    let (gm, player, _) = table(&app).await;
    let uri = "/api/v1/campaigns/Tak/saved/smite";
    let body = json!({ "expression": "2d8" });
    let added = call(&app, Method::PUT, uri, Some(&player), Some(body.clone())).await;
    assert_eq!(added.status, StatusCode::NO_CONTENT);
    let replaced = call(
        &app,
        Method::PUT,
        uri,
        Some(&player),
        Some(json!({ "expression": "1" })),
    )
    .await;
    assert_eq!(replaced.status, StatusCode::CONFLICT);
    let by_gm = call(
        &app,
        Method::PUT,
        uri,
        Some(&gm),
        Some(json!({ "expression": "3d8" })),
    )
    .await;
    assert_eq!(by_gm.status, StatusCode::NO_CONTENT);
}

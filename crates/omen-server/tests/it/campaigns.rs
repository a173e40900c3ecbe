//! Campaigns, characters, actions, saved rolls, the log, verify, head, export and import, invites:
//! each route through `oneshot`, as the game master, with its errors.

use axum::Router;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::{app, call, get, post};

/// A campaign `Tak` made over the API: the app and the game master's token.
pub async fn campaign() -> (Router, String) {
    let app = app();
    let made = post(&app, "/api/v1/campaigns", None, json!({ "name": "Tak" })).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    let token = made.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    (app, token)
}

/// An invite's token.
pub async fn invite(app: &Router, gm: &str, role: &str, character: Option<&str>) -> String {
    let body = match character {
        Some(c) => json!({ "role": role, "character": c }),
        None => json!({ "role": role }),
    };
    let made = post(app, "/api/v1/campaigns/Tak/invites", Some(gm), body).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    made.json()["token"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_campaign_made_over_the_api_gives_its_game_master_a_token() {
    let (app, gm) = campaign().await;
    let again = post(&app, "/api/v1/campaigns", None, json!({ "name": "Tak" })).await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert_eq!(again.kind(), "already-exists");
    let empty = post(&app, "/api/v1/campaigns", None, json!({ "name": "" })).await;
    assert_eq!(empty.status, StatusCode::BAD_REQUEST);
    let listed = get(&app, "/api/v1/campaigns", Some(&gm)).await;
    assert_eq!(listed.status, StatusCode::OK);
    assert_eq!(listed.json()[0]["name"], "Tak");
    let shown = get(&app, "/api/v1/campaigns/Tak", Some(&gm)).await;
    assert_eq!(shown.json()["name"], "Tak");
    // No token, a made-up token, a token of another campaign.
    assert_eq!(
        get(&app, "/api/v1/campaigns", None).await.status,
        StatusCode::UNAUTHORIZED
    );
    let made_up = get(&app, "/api/v1/campaigns", Some("omen_0123")).await;
    assert_eq!(made_up.status, StatusCode::UNAUTHORIZED);
    assert_eq!(made_up.kind(), "unauthorized");
    let other = get(&app, "/api/v1/campaigns/Other", Some(&gm)).await;
    assert_eq!(other.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_server_closed_to_new_campaigns_refuses_them_with_403() {
    let mut config = crate::config();
    config.open_campaigns = false;
    let app = omen_server::app(crate::state_with(config));
    let refused = post(&app, "/api/v1/campaigns", None, json!({ "name": "Tak" })).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert!(
        refused.json()["errors"][0]["help"]
            .as_str()
            .unwrap()
            .contains("omen campaign new")
    );
}

#[tokio::test]
async fn characters_are_made_shown_edited_renamed_and_deleted() {
    let (app, gm) = campaign().await;
    let sheet = json!({ "intrinsic": [{ "source": "halfling", "value": 2 }] });
    let made = post(
        &app,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        json!({ "name": "Ayla", "rule_set": "luck", "sheet": sheet }),
    )
    .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    assert_eq!(made.json()["state"]["intrinsic"][0]["value"], 2);
    let plain = post(
        &app,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        json!({ "name": "Cato", "rule_set": "none" }),
    )
    .await;
    assert_eq!(plain.status, StatusCode::CREATED, "{}", plain.json());
    let twice = post(
        &app,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        json!({ "name": "Ayla", "rule_set": "luck", "sheet": sheet }),
    )
    .await;
    assert_eq!(twice.status, StatusCode::CONFLICT);
    let bad_sheet = post(
        &app,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        json!({ "name": "Bo", "rule_set": "luck", "sheet": { "intrinsic": 3 } }),
    )
    .await;
    assert_eq!(bad_sheet.status, StatusCode::UNPROCESSABLE_ENTITY);
    let no_game = post(
        &app,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        json!({ "name": "Bo", "rule_set": "chess" }),
    )
    .await;
    assert_eq!(no_game.status, StatusCode::NOT_FOUND);
    let listed = get(&app, "/api/v1/campaigns/Tak/characters", Some(&gm)).await;
    assert_eq!(listed.json().as_array().unwrap().len(), 2);
    let shown = get(&app, "/api/v1/campaigns/Tak/characters/Ayla", Some(&gm)).await;
    assert_eq!(shown.json()["rule_set"], "luck");
    let missing = get(&app, "/api/v1/campaigns/Tak/characters/Nobody", Some(&gm)).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    let edited = call(
        &app,
        Method::PATCH,
        "/api/v1/campaigns/Tak/characters/Ayla",
        Some(&gm),
        Some(json!({ "state": { "intrinsic": [] }, "name": "Ayla2" })),
    )
    .await;
    assert_eq!(edited.status, StatusCode::OK, "{}", edited.json());
    assert_eq!(edited.json()["name"], "Ayla2");
    assert_eq!(edited.json()["state"]["intrinsic"], json!([]));
    let deleted = call(
        &app,
        Method::DELETE,
        "/api/v1/campaigns/Tak/characters/Cato",
        Some(&gm),
        None,
    )
    .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    // create, create, edit, rename, delete: five entries after the campaign's own.
    let log = get(&app, "/api/v1/campaigns/Tak/log?action=edit", Some(&gm)).await;
    assert_eq!(log.json().as_array().unwrap().len(), 1);
}

/// Ayla (luck, +2 halfling) in Tak.
pub async fn with_ayla() -> (Router, String) {
    let (app, gm) = campaign().await;
    let made = post(
        &app,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        json!({ "name": "Ayla", "rule_set": "luck",
                "sheet": { "intrinsic": [{ "source": "halfling", "value": 2 }] } }),
    )
    .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    (app, gm)
}

#[tokio::test]
async fn an_action_is_applied_logged_and_answered_with_its_odds() {
    let (app, gm) = with_ayla().await;
    let acted = post(
        &app,
        "/api/v1/campaigns/Tak/characters/Ayla/actions",
        Some(&gm),
        json!({ "action": { "action": "roll", "event_modifier": -5 }, "odds": true, "dice": [50] }),
    )
    .await;
    assert_eq!(acted.status, StatusCode::OK, "{}", acted.json());
    let answer = acted.json();
    assert_eq!(answer["entry"]["result"]["outcome"], "good");
    assert_eq!(answer["entry"]["dice_given"], true);
    // The odds are from the state before the roll: modifier +2 - 5 = -3, as the store computes them.
    assert_eq!(answer["odds"]["modifier"], -3);
    let odds = post(
        &app,
        "/api/v1/campaigns/Tak/characters/Ayla/odds",
        Some(&gm),
        json!({ "action": { "action": "roll", "event_modifier": -5 } }),
    )
    .await;
    assert_eq!(odds.status, StatusCode::OK);
    // After a good roll the karmic modifier changed the odds: they are from the current state.
    let mut store = omen_store::Store::open_in_memory().unwrap();
    store.create_campaign("X").unwrap();
    store
        .create_character(
            "X",
            "A",
            "luck",
            &json!({ "intrinsic": [{ "source": "halfling", "value": 2 }] }),
        )
        .unwrap();
    let roll = json!({ "action": "roll", "event_modifier": -5 });
    store
        .act(
            "X",
            "A",
            &roll,
            omen_store::Dice::Given(vec![50]),
            &omen_core::Limits::default(),
        )
        .unwrap();
    assert_eq!(
        odds.json(),
        store
            .odds("X", "A", &roll, &omen_core::Limits::default())
            .unwrap()
    );
    // Refusals.
    let unknown = post(
        &app,
        "/api/v1/campaigns/Tak/characters/Ayla/actions",
        Some(&gm),
        json!({ "action": { "action": "dance" } }),
    )
    .await;
    assert_eq!(unknown.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        unknown.json()["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("dance")
    );
    let missing = post(
        &app,
        "/api/v1/campaigns/Tak/characters/Nobody/actions",
        Some(&gm),
        json!({ "action": { "action": "roll" } }),
    )
    .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn rolls_and_saved_rolls_are_logged() {
    let (app, gm) = with_ayla().await;
    let rolled = post(
        &app,
        "/api/v1/campaigns/Tak/rolls",
        Some(&gm),
        json!({ "expression": "2d6+1", "character": "Ayla" }),
    )
    .await;
    assert_eq!(rolled.status, StatusCode::OK, "{}", rolled.json());
    let total = rolled.json()["roll"]["result"].as_i64().unwrap();
    assert!((3..=13).contains(&total));
    assert_eq!(rolled.json()["entry"]["action"], "expression");
    let bad = post(
        &app,
        "/api/v1/campaigns/Tak/rolls",
        Some(&gm),
        json!({ "expression": "2d" }),
    )
    .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.json()["errors"][0]["span"].is_object());
    let saved = call(
        &app,
        Method::PUT,
        "/api/v1/campaigns/Tak/saved/fireball",
        Some(&gm),
        Some(json!({ "expression": "param n = 8; (n)d6", "params": { "n": 8 } })),
    )
    .await;
    assert_eq!(
        saved.status,
        StatusCode::NO_CONTENT,
        "{:?}",
        String::from_utf8_lossy(&saved.bytes)
    );
    let listed = get(&app, "/api/v1/campaigns/Tak/saved", Some(&gm)).await;
    assert_eq!(listed.json()[0]["name"], "fireball");
    let cast = post(
        &app,
        "/api/v1/campaigns/Tak/saved/fireball/roll",
        Some(&gm),
        json!({ "params": { "n": 1 } }),
    )
    .await;
    assert_eq!(cast.status, StatusCode::OK, "{}", cast.json());
    let one_die = cast.json()["roll"]["result"].as_i64().unwrap();
    assert!((1..=6).contains(&one_die));
    let gone = call(
        &app,
        Method::DELETE,
        "/api/v1/campaigns/Tak/saved/fireball",
        Some(&gm),
        None,
    )
    .await;
    assert_eq!(gone.status, StatusCode::NO_CONTENT);
    let again = post(
        &app,
        "/api/v1/campaigns/Tak/saved/fireball/roll",
        Some(&gm),
        json!({}),
    )
    .await;
    assert_eq!(again.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_log_filters_verifies_and_exports_into_an_import() {
    let (app, gm) = with_ayla().await;
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
    let all = get(&app, "/api/v1/campaigns/Tak/log", Some(&gm))
        .await
        .json();
    let rolls = get(&app, "/api/v1/campaigns/Tak/log?action=roll", Some(&gm))
        .await
        .json();
    assert_eq!(rolls.as_array().unwrap().len(), 3);
    let last = get(&app, "/api/v1/campaigns/Tak/log?last=1", Some(&gm))
        .await
        .json();
    assert_eq!(last[0], *all.as_array().unwrap().last().unwrap());
    let by_name = get(&app, "/api/v1/campaigns/Tak/log?character=Ayla", Some(&gm))
        .await
        .json();
    assert_eq!(by_name.as_array().unwrap().len(), 4);
    let bad_time = get(&app, "/api/v1/campaigns/Tak/log?since=yesterday", Some(&gm)).await;
    assert_eq!(bad_time.status, StatusCode::BAD_REQUEST);
    let bad_query = get(&app, "/api/v1/campaigns/Tak/log?last=many", Some(&gm)).await;
    assert_eq!(bad_query.status, StatusCode::BAD_REQUEST);
    let verified = get(&app, "/api/v1/campaigns/Tak/verify", Some(&gm))
        .await
        .json();
    assert_eq!(verified["ok"], true, "{verified}");
    let head = get(&app, "/api/v1/campaigns/Tak/head", Some(&gm))
        .await
        .json();
    let sequence = all.as_array().unwrap().last().unwrap()["sequence"].clone();
    assert_eq!(head["head"]["sequence"], sequence);
    assert!(
        head["receipt"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{sequence}:"))
    );
    let export = get(&app, "/api/v1/campaigns/Tak/export", Some(&gm)).await;
    assert_eq!(export.status, StatusCode::OK);
    let imported = post(
        &app,
        "/api/v1/campaigns/import",
        None,
        json!({ "export": export.json(), "name": "Tak copy" }),
    )
    .await;
    assert_eq!(imported.status, StatusCode::CREATED, "{}", imported.json());
    let copy_gm = imported.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let copy = get(&app, "/api/v1/campaigns/Tak%20copy/verify", Some(&copy_gm))
        .await
        .json();
    assert_eq!(copy["ok"], true, "{copy}");
    let taken = post(
        &app,
        "/api/v1/campaigns/import",
        None,
        json!({ "export": export.json() }),
    )
    .await;
    assert_eq!(taken.status, StatusCode::CONFLICT);
    // Well-formed requests whose export cannot be imported: 422, not 400 (no schema can check a
    // signature).
    let junk = post(
        &app,
        "/api/v1/campaigns/import",
        None,
        json!({ "export": { "format": 1 } }),
    )
    .await;
    assert_eq!(junk.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(junk.kind(), "bad-export");
    let mut forged = export.json();
    forged["log"][0]["summary"] = json!("rewritten");
    let unverified = post(
        &app,
        "/api/v1/campaigns/import",
        None,
        json!({ "export": forged, "name": "Forged" }),
    )
    .await;
    assert_eq!(unverified.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(unverified.kind(), "bad-export");
    assert!(
        unverified.json()["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("its log does not verify"),
        "{}",
        unverified.json()
    );
}

#[tokio::test]
async fn invites_are_made_listed_and_revoked() {
    let (app, gm) = with_ayla().await;
    let player = invite(&app, &gm, "player", Some("Ayla")).await;
    let listed = get(&app, "/api/v1/campaigns/Tak/invites", Some(&gm))
        .await
        .json();
    let ids: Vec<i64> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "{listed}");
    assert!(
        !listed.to_string().contains(&player),
        "a token is shown once"
    );
    let me = get(&app, "/api/v1/campaigns", Some(&player)).await;
    assert_eq!(me.status, StatusCode::OK);
    let id = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["role"] == "player")
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    let revoked = call(
        &app,
        Method::DELETE,
        &format!("/api/v1/campaigns/Tak/invites/{id}"),
        Some(&gm),
        None,
    )
    .await;
    assert_eq!(revoked.status, StatusCode::NO_CONTENT);
    // Again: the invite's state refuses it (409), the request is well-formed.
    let again = call(
        &app,
        Method::DELETE,
        &format!("/api/v1/campaigns/Tak/invites/{id}"),
        Some(&gm),
        None,
    )
    .await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert_eq!(
        get(&app, "/api/v1/campaigns", Some(&player)).await.status,
        StatusCode::UNAUTHORIZED
    );
    let bad_role = post(
        &app,
        "/api/v1/campaigns/Tak/invites",
        Some(&gm),
        json!({ "role": "king" }),
    )
    .await;
    assert_eq!(bad_role.status, StatusCode::UNPROCESSABLE_ENTITY);
    let _: Value = Value::Null;
}

/// A player's invite names its character and no other role's does: the document says so, and a
/// body that breaks it is refused as the document refuses it (422), not as a 400 it does not list.
#[tokio::test]
async fn an_invite_that_pairs_its_role_and_character_wrongly_is_the_documented_422() {
    let (app, gm) = with_ayla().await;
    let document = serde_json::to_value(omen_server::openapi()).unwrap();
    let mut schema = document["components"]["schemas"]["NewInvite"].clone();
    schema["components"] = document["components"].clone();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let cases = [
        (json!({ "role": "player" }), false),
        (json!({ "role": "player", "character": null }), false),
        (json!({ "role": "gm", "character": "Ayla" }), false),
        (json!({ "role": "observer", "character": "Ayla" }), false),
        (json!({ "role": "player", "character": "Ayla" }), true),
        (json!({ "role": "observer" }), true),
        (json!({ "role": "gm", "character": null }), true),
    ];
    for (body, valid) in cases {
        assert_eq!(validator.is_valid(&body), valid, "the schema on {body}");
        let answer = post(
            &app,
            "/api/v1/campaigns/Tak/invites",
            Some(&gm),
            body.clone(),
        )
        .await;
        let expected = match valid {
            true => StatusCode::CREATED,
            false => StatusCode::UNPROCESSABLE_ENTITY,
        };
        assert_eq!(answer.status, expected, "{body}: {}", answer.json());
        let documented = &document["paths"]["/api/v1/campaigns/{campaign}/invites"]["post"]["responses"]
            [answer.status.as_str()];
        assert!(
            documented.is_object(),
            "{} is not documented",
            answer.status
        );
    }
}

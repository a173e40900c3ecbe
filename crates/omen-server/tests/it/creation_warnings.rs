//! What the rules allow but find unusual in a sheet (seed 003's dots left unspent, provisional bonus
//! counts, ratings above the advancement cap) reaches the API as the CLI prints it: in the answer
//! to a sheet check and in every character response, documented in the OpenAPI document.

use axum::Router;
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::campaigns::{campaign, invite};
use crate::{app, get, post};

/// The hprpg example sheet with one free archetype dot spent of the three (003-A9): allowed, with
/// 3 − 1 = 2 dots left unspent.
async fn sheet_with_unspent_dots(app: &Router) -> Value {
    let rules = get(app, "/api/v1/rules/hprpg", None).await.json();
    let mut sheet = rules["schemas"]["sheet"]["examples"][0].clone();
    sheet["create"]["archetype_abilities"] = json!({ "TACTICS": 1 });
    sheet
}

const UNSPENT: &str = "2 of 3 free archetype ability dots unspent";

#[tokio::test]
async fn a_sheet_check_answers_with_the_warnings_of_creation() {
    let app = app();
    let sheet = sheet_with_unspent_dots(&app).await;
    let answer = post(
        &app,
        "/api/v1/rules/hprpg/sheets",
        None,
        json!({ "sheet": sheet }),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    assert_eq!(answer.json()["warnings"], json!([UNSPENT]));
    // A sheet with nothing unusual has an empty list, not a missing one: luck has no warnings.
    let luck = post(
        &app,
        "/api/v1/rules/luck/sheets",
        None,
        json!({ "sheet": {} }),
    )
    .await;
    assert_eq!(luck.status, StatusCode::OK, "{}", luck.json());
    assert_eq!(luck.json()["warnings"], json!([]));
}

#[tokio::test]
async fn every_character_response_carries_the_warnings_of_its_sheet() {
    let (app, gm) = campaign().await;
    let sheet = sheet_with_unspent_dots(&app).await;
    let made = post(
        &app,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        json!({ "name": "Rook", "rule_set": "hprpg", "sheet": sheet }),
    )
    .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    assert_eq!(made.json()["warnings"], json!([UNSPENT]));
    // hprpg keeps nothing for the game master: its player reads them too, alone and in the list.
    let player = invite(&app, &gm, "player", Some("Rook")).await;
    for token in [&gm, &player] {
        let shown = get(&app, "/api/v1/campaigns/Tak/characters/Rook", Some(token)).await;
        assert_eq!(shown.status, StatusCode::OK);
        assert_eq!(shown.json()["warnings"], json!([UNSPENT]));
        let listed = get(&app, "/api/v1/campaigns/Tak/characters", Some(token))
            .await
            .json();
        assert_eq!(listed[0]["warnings"], json!([UNSPENT]), "{listed}");
    }
}

#[tokio::test]
async fn the_openapi_document_describes_the_warnings_fields() {
    let document = get(&app(), "/api/v1/openapi.json", None).await.json();
    for body in ["SheetBody", "CharacterBody"] {
        let schema = &document["components"]["schemas"][body];
        let warnings = &schema["properties"]["warnings"];
        assert_eq!(warnings["type"], "array", "{body}: {schema}");
        assert_eq!(warnings["items"]["type"], "string", "{body}: {schema}");
        assert!(
            warnings["description"]
                .as_str()
                .is_some_and(|d| d.contains("unusual")),
            "{body}: {warnings}"
        );
        assert!(
            schema["required"]
                .as_array()
                .is_some_and(|r| r.contains(&json!("warnings"))),
            "{body}: always sent, so required: {schema}"
        );
    }
}

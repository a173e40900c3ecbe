//! An analysis's warnings (what the rules allow but find unusual in its inputs) reach the API as the
//! command line says them beside its answer: a `warnings` list in every analysis answer, documented
//! in the OpenAPI document; and a character's creation warnings ride on every route that answers
//! with the character, its edit included.

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::campaigns::campaign;
use crate::{app, call, get, post};

/// The example inputs of hprpg's `create` analysis, as the rule set serves them.
async fn create_example(app: &axum::Router) -> Value {
    let rules = get(app, "/api/v1/rules/hprpg", None).await.json();
    let create = rules["analyses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "create")
        .expect("hprpg has a create analysis")
        .clone();
    let example = create["inputs"]["examples"][0].clone();
    assert!(example["choices"].is_object(), "{create}");
    example
}

/// The inputs of hprpg's `create` analysis, from its own example, with one free archetype dot spent
/// of the three (003-A9): allowed, with 3 − 1 = 2 dots left unspent.
async fn choices_with_unspent_dots(app: &axum::Router) -> Value {
    let mut inputs = create_example(app).await;
    inputs["choices"]["archetype_abilities"] = json!({ "TACTICS": 1 });
    inputs
}

const UNSPENT: &str = "2 of 3 free archetype ability dots unspent";

#[tokio::test]
async fn an_analysis_answer_carries_the_warnings_the_command_line_prints() {
    let app = app();
    let inputs = choices_with_unspent_dots(&app).await;
    let answer = post(&app, "/api/v1/rules/hprpg/analyses/create", None, inputs).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    assert_eq!(answer.json()["warnings"], json!([UNSPENT]));
    // The finished sheet is still the answer: a warning never replaces it.
    assert!(
        !answer.json()["tables"].as_array().unwrap().is_empty(),
        "{}",
        answer.json()
    );
}

#[tokio::test]
async fn every_analysis_answers_with_a_list_of_warnings_empty_when_nothing_is_unusual() {
    let app = app();
    let rules = get(&app, "/api/v1/rules", None).await.json();
    let mut answered = 0;
    for rule_set in rules.as_array().unwrap() {
        for analysis in rule_set["analyses"].as_array().unwrap() {
            let path = format!(
                "/api/v1/rules/{}/analyses/{}",
                rule_set["name"].as_str().unwrap(),
                analysis["name"].as_str().unwrap()
            );
            // Each analysis's own example, else its defaults (an empty object).
            let inputs = analysis["inputs"]["examples"]
                .get(0)
                .cloned()
                .unwrap_or_else(|| json!({}));
            let answer = post(&app, &path, None, inputs).await;
            if answer.status != StatusCode::OK {
                continue;
            }
            answered += 1;
            let warnings = &answer.json()["warnings"];
            assert!(
                warnings
                    .as_array()
                    .is_some_and(|w| w.iter().all(Value::is_string)),
                "{path}: {warnings}"
            );
        }
    }
    // Most analyses run on their examples or defaults; the check means something only if they do.
    assert!(answered >= 10, "only {answered} analyses answered");
    // The creation example spends every dot: nothing to warn about.
    let example = create_example(&app).await;
    let answer = post(&app, "/api/v1/rules/hprpg/analyses/create", None, example).await;
    assert_eq!(answer.json()["warnings"], json!([]), "{}", answer.json());
}

#[tokio::test]
async fn the_openapi_document_describes_the_analysis_warnings() {
    let document = get(&app(), "/api/v1/openapi.json", None).await.json();
    let schema = &document["components"]["schemas"]["AnalysisBody"];
    let warnings = &schema["properties"]["warnings"];
    assert_eq!(warnings["type"], "array", "{schema}");
    assert_eq!(warnings["items"]["type"], "string", "{schema}");
    assert!(
        warnings["description"]
            .as_str()
            .is_some_and(|d| d.contains("unusual")),
        "{warnings}"
    );
    assert!(
        schema["required"]
            .as_array()
            .is_some_and(|r| r.contains(&json!("warnings"))),
        "always sent, so required: {schema}"
    );
}

#[tokio::test]
async fn a_character_edit_answers_with_the_warnings_of_its_sheet() {
    let (app, gm) = campaign().await;
    let rules = get(&app, "/api/v1/rules/hprpg", None).await.json();
    let mut sheet = rules["schemas"]["sheet"]["examples"][0].clone();
    sheet["create"]["archetype_abilities"] = json!({ "TACTICS": 1 });
    let made = post(
        &app,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        json!({ "name": "Rook", "rule_set": "hprpg", "sheet": sheet }),
    )
    .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    // A rename keeps the sheet the character was made from, and its warnings with it.
    let renamed = call(
        &app,
        Method::PATCH,
        "/api/v1/campaigns/Tak/characters/Rook",
        Some(&gm),
        Some(json!({ "name": "Raven" })),
    )
    .await;
    assert_eq!(renamed.status, StatusCode::OK, "{}", renamed.json());
    assert_eq!(renamed.json()["name"], "Raven");
    assert_eq!(renamed.json()["warnings"], json!([UNSPENT]));
    // An edit of the state (here the same state sent back) leaves the sheet, and so the warnings.
    let state = renamed.json()["state"].clone();
    assert!(state.is_object(), "{state}");
    let edited = call(
        &app,
        Method::PATCH,
        "/api/v1/campaigns/Tak/characters/Raven",
        Some(&gm),
        Some(json!({ "state": state })),
    )
    .await;
    assert_eq!(edited.status, StatusCode::OK, "{}", edited.json());
    assert_eq!(edited.json()["warnings"], json!([UNSPENT]));
}

#[tokio::test]
async fn the_creation_answer_carries_the_notes_the_command_line_prints_beside_it() {
    // The notes name each rating (003-D1) and the personality's Asset and Flaw (003-D6): the
    // example is a REBEL, whose asset the seed names DISTINCTIVENESS and whose flaw LACK OF RESPECT;
    // a rating of 2 dots is Novice.
    let app = app();
    let example = create_example(&app).await;
    assert_eq!(example["choices"]["personality"], "REBEL", "{example}");
    let answer = post(&app, "/api/v1/rules/hprpg/analyses/create", None, example).await;
    let notes = answer.json()["notes"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(notes.contains("asset DISTINCTIVENESS"), "{notes}");
    assert!(notes.contains("flaw LACK OF RESPECT"), "{notes}");
    assert!(notes.contains("2 (Novice)"), "{notes}");
    // An analysis with nothing to say beside its tables sends no notes at all.
    let chances = post(
        &app,
        "/api/v1/rules/hprpg/analyses/table",
        None,
        json!({"difficulty": 8}),
    )
    .await;
    assert!(chances.json().get("notes").is_none(), "{}", chances.json());
}

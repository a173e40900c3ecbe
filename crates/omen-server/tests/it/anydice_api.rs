//! `"dialect": "anydice"` over the API: `/prob` runs the program; `/roll` and a campaign's rolls
//! refuse it with a hint; and the OpenAPI document says the same (anydice is a `/prob` dialect only),
//! each body judged by the document's own schema and then sent to the server.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::{app, post};

/// The request schema of `POST path`, with the document's components so its `$ref`s resolve.
fn request_schema(document: &Value, path: &str) -> Value {
    let schema =
        &document["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"];
    assert!(schema.is_object(), "POST {path} documents no JSON body");
    let mut schema = schema.clone();
    schema["components"] = document["components"].clone();
    schema
}

#[tokio::test]
async fn anydice_is_a_dialect_of_prob_only_in_the_document_and_the_server() {
    let app = app();
    let document = serde_json::to_value(omen_server::openapi()).unwrap();
    let created = post(&app, "/api/v1/campaigns", None, json!({"name": "Tak"})).await;
    assert_eq!(created.status, StatusCode::CREATED);
    let token = created.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let program = "output 2d4 named \"two\"";
    // (documented path, sent path, body, does the document accept it)
    let cases = [
        (
            "/api/v1/prob",
            "/api/v1/prob",
            json!({"expressions": [program], "dialect": "anydice"}),
            true,
        ),
        (
            "/api/v1/roll",
            "/api/v1/roll",
            json!({"expression": program, "dialect": "anydice"}),
            false,
        ),
        // The notations are still every route's.
        (
            "/api/v1/roll",
            "/api/v1/roll",
            json!({"expression": "d6", "dialect": "roll20"}),
            true,
        ),
        (
            "/api/v1/campaigns/{campaign}/rolls",
            "/api/v1/campaigns/Tak/rolls",
            json!({"expression": program, "dialect": "anydice"}),
            false,
        ),
    ];
    for (path, uri, body, valid) in cases {
        let validator = jsonschema::validator_for(&request_schema(&document, path)).unwrap();
        assert_eq!(
            validator.is_valid(&body),
            valid,
            "the schema of {path} on {body}"
        );
        let answer = post(&app, uri, Some(&token), body.clone()).await;
        let text = String::from_utf8_lossy(&answer.bytes).to_string();
        if valid {
            assert_eq!(answer.status, StatusCode::OK, "{uri} on {body}: {text}");
        } else {
            // Refused as malformed, as the strictness test requires of a body the document
            // refuses: /roll with `unsupported-dialect`, a campaign's roll (read in the campaign's
            // dialect, never AnyDice) as a body with an unknown field `dialect`.
            let kind = answer.kind();
            assert!(
                (answer.status, kind.as_str()) == (StatusCode::BAD_REQUEST, "unsupported-dialect")
                    || (answer.status, kind.as_str())
                        == (StatusCode::UNPROCESSABLE_ENTITY, "bad-json"),
                "{uri} on {body}: {text}"
            );
            assert!(
                text.contains("dialect"),
                "{uri}: the refusal names no dialect: {text}"
            );
        }
    }
    // The /prob answer is the program's: P(2d4 = 2) = 1/16 by hand, labelled as AnyDice labels it.
    let answer = post(
        &app,
        "/api/v1/prob",
        None,
        json!({"expressions": [program], "dialect": "anydice"}),
    )
    .await;
    let result = &answer.json()["results"][0];
    assert_eq!(result["reading"], "two");
    assert_eq!(result["outcomes"][0]["probability"], "1/16");
}

#[tokio::test]
async fn roll_refuses_an_anydice_program_with_a_hint_in_any_case() {
    let app = app();
    for name in ["anydice", " AnyDice "] {
        let answer = post(
            &app,
            "/api/v1/roll",
            None,
            json!({"expression": "output d6", "dialect": name, "seed": 1}),
        )
        .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{name:?}");
        assert_eq!(answer.kind(), "unsupported-dialect", "{name:?}");
        let error = &answer.json()["errors"][0];
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("only POST /api/v1/prob runs"),
            "{error}"
        );
        assert!(
            error["help"]
                .as_str()
                .unwrap()
                .contains("omen translate --from anydice"),
            "{error}"
        );
    }
    // And /prob takes the name as the other dialects are taken: in any case, with spaces.
    let answer = post(
        &app,
        "/api/v1/prob",
        None,
        json!({"expressions": ["output d4"], "dialect": " AnyDice "}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json()["results"][0]["reading"], "output 1");
}

//! The OpenAPI document is exactly as strict as the server: a body its request schema accepts is
//! never refused as malformed (400, or 422 `bad-json`), and one it refuses is refused. Each case is
//! a boundary written by hand from the server's rules (the store's name and entropy checks, the
//! limit of 20 expressions, the fixed words), then judged by the document's own schema.

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::{Answer, app, call, post};

/// The request schema of `method path`, with the document's components so its `$ref`s resolve.
fn request_schema(document: &Value, method: &str, path: &str) -> Value {
    let operation = &document["paths"][path][method];
    let schema = &operation["requestBody"]["content"]["application/json"]["schema"];
    assert!(schema.is_object(), "{method} {path} documents no JSON body");
    let mut schema = schema.clone();
    schema["components"] = document["components"].clone();
    schema
}

/// Refused as malformed: what a schema-valid body must never get.
fn malformed(answer: &Answer) -> bool {
    answer.status == StatusCode::BAD_REQUEST
        || (answer.status == StatusCode::UNPROCESSABLE_ENTITY && answer.kind() == "bad-json")
}

struct Case {
    method: &'static str,
    /// The documented path, and the one sent.
    path: &'static str,
    uri: String,
    body: Value,
    /// What the schema is expected to say, checked first, so a case means what it claims.
    valid: bool,
}

fn case(method: &'static str, path: &'static str, uri: &str, body: Value, valid: bool) -> Case {
    Case {
        method,
        path,
        uri: uri.to_string(),
        body,
        valid,
    }
}

fn cases() -> Vec<Case> {
    let campaigns = "/api/v1/campaigns";
    let mut cases = vec![
        // Names: the store's `check_name` (1 to 200 characters, no control characters, no white
        // space at either end).
        case("post", campaigns, campaigns, json!({"name": "a"}), true),
        case(
            "post",
            campaigns,
            campaigns,
            json!({"name": "x".repeat(200)}),
            true,
        ),
        case("post", campaigns, campaigns, json!({"name": "é b"}), true),
        case("post", campaigns, campaigns, json!({"name": ""}), false),
        case("post", campaigns, campaigns, json!({"name": " a"}), false),
        case(
            "post",
            campaigns,
            campaigns,
            json!({"name": "a\u{3000}"}),
            false,
        ),
        case(
            "post",
            campaigns,
            campaigns,
            json!({"name": "a\u{7}b"}),
            false,
        ),
        case(
            "post",
            campaigns,
            campaigns,
            json!({"name": "y".repeat(201)}),
            false,
        ),
        case(
            "post",
            campaigns,
            campaigns,
            json!({"name": "a", "x": 1}),
            false,
        ),
        // Regression: serde reads a struct from an array too, and `["a"]` made a campaign `a`
        // (Schemathesis found an edit `[null, null]` accepted).
        case("post", campaigns, campaigns, json!(["a"]), false),
    ];
    let prob = "/api/v1/prob";
    let twenty: Vec<&str> = vec!["d6"; 20];
    let twenty_one: Vec<&str> = vec!["d6"; 21];
    cases.extend([
        case("post", prob, prob, json!({"expressions": ["d6"]}), true),
        case("post", prob, prob, json!({"expressions": twenty}), true),
        case("post", prob, prob, json!({"expressions": []}), false),
        case(
            "post",
            prob,
            prob,
            json!({"expressions": twenty_one}),
            false,
        ),
        case(
            "post",
            prob,
            prob,
            json!({"expressions": ["d6"], "dialect": "roll20"}),
            true,
        ),
        case(
            "post",
            prob,
            prob,
            json!({"expressions": ["d6"], "dialect": null}),
            true,
        ),
        case(
            "post",
            prob,
            prob,
            json!({"expressions": ["d6"], "dialect": "klingon"}),
            false,
        ),
        case(
            "post",
            prob,
            prob,
            json!({"expressions": ["d6"], "params": {"n": null}}),
            false,
        ),
        case(
            "post",
            prob,
            prob,
            json!({"expressions": ["d6"], "params": {"n": {}}}),
            false,
        ),
        case(
            "post",
            prob,
            prob,
            json!({"expressions": ["d6"], "params": {"n": [1, true, "a", []]}}),
            true,
        ),
    ]);
    let roll = "/api/v1/roll";
    cases.extend([
        case(
            "post",
            roll,
            roll,
            json!({"expression": "d6", "seed": 0}),
            true,
        ),
        case(
            "post",
            roll,
            roll,
            json!({"expression": "d6", "seed": -1}),
            false,
        ),
        case(
            "post",
            roll,
            roll,
            json!({"expression": "d6", "params": {"n": [null]}}),
            false,
        ),
        // Regression: a whole number written `4.0` is JSON Schema's `integer`, and the server
        // refused it.
        case(
            "post",
            roll,
            roll,
            json!({"expression": "param n = 1; n", "params": {"n": 4.0}}),
            true,
        ),
    ]);
    cases
}

fn roll_cases(rolls: &str) -> Vec<Case> {
    let path = "/api/v1/campaigns/{campaign}/rolls";
    let hex = "0123456789abcdef".repeat(4);
    vec![
        case(
            "post",
            path,
            rolls,
            json!({"expression": "d6", "entropy": "!".repeat(8)}),
            true,
        ),
        case(
            "post",
            path,
            rolls,
            json!({"expression": "d6", "entropy": "~".repeat(128)}),
            true,
        ),
        case(
            "post",
            path,
            rolls,
            json!({"expression": "d6", "entropy": "a".repeat(7)}),
            false,
        ),
        case(
            "post",
            path,
            rolls,
            json!({"expression": "d6", "entropy": "a".repeat(129)}),
            false,
        ),
        case(
            "post",
            path,
            rolls,
            json!({"expression": "d6", "entropy": "abcd efgh"}),
            false,
        ),
        case(
            "post",
            path,
            rolls,
            json!({"expression": "d6", "visibility": "blind"}),
            true,
        ),
        case(
            "post",
            path,
            rolls,
            json!({"expression": "d6", "visibility": "secret"}),
            false,
        ),
        case(
            "post",
            path,
            rolls,
            json!({"expression": "d6", "commitment": hex.to_uppercase()}),
            false,
        ),
        case(
            "post",
            path,
            rolls,
            json!({"expression": "d6", "params": {"n": 1.5}}),
            false,
        ),
    ]
}

#[tokio::test]
async fn a_body_the_document_accepts_is_not_refused_as_malformed_and_one_it_refuses_is_refused() {
    let app = app();
    let document = serde_json::to_value(omen_server::openapi()).unwrap();
    let created = post(&app, "/api/v1/campaigns", None, json!({"name": "Tak"})).await;
    assert_eq!(created.status, StatusCode::CREATED);
    let token = created.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let mut all = cases();
    all.extend(roll_cases("/api/v1/campaigns/Tak/rolls"));
    // A character's rule set: the registry's names, exactly, or `none`.
    let characters = "/api/v1/campaigns/{campaign}/characters";
    let uri = "/api/v1/campaigns/Tak/characters";
    all.extend([
        case(
            "post",
            characters,
            uri,
            json!({"name": "C1", "rule_set": "luck", "sheet": {"intrinsic": []}}),
            true,
        ),
        case(
            "post",
            characters,
            uri,
            json!({"name": "C2", "rule_set": "none"}),
            true,
        ),
        case(
            "post",
            characters,
            uri,
            json!({"name": "C3", "rule_set": "LUCK"}),
            false,
        ),
        // Regression: a plain character with a sheet was refused with a 400 the document did
        // not list (Schemathesis, once `none` was in the document).
        case(
            "post",
            characters,
            uri,
            json!({"name": "C4", "rule_set": "none", "sheet": {"x": 1}}),
            false,
        ),
        case(
            "post",
            characters,
            uri,
            json!({"name": "C5", "rule_set": "none", "sheet": {}}),
            true,
        ),
        // Regression: a rule set reads its sheet from an array too, and `[]` was a sheet
        // (Schemathesis, seed 2, on `POST /api/v1/rules/luck/sheets`).
        case(
            "post",
            characters,
            uri,
            json!({"name": "C6", "rule_set": "luck", "sheet": []}),
            false,
        ),
        case(
            "post",
            "/api/v1/rules/{game}/sheets",
            "/api/v1/rules/luck/sheets",
            json!({"sheet": []}),
            false,
        ),
        case(
            "post",
            "/api/v1/rules/{game}/sheets",
            "/api/v1/rules/luck/sheets",
            json!({"sheet": {"intrinsic": []}}),
            true,
        ),
    ]);
    for case in all {
        let schema = request_schema(&document, case.method, case.path);
        let validator = jsonschema::validator_for(&schema).unwrap();
        assert_eq!(
            validator.is_valid(&case.body),
            case.valid,
            "the schema of {} {} on {}",
            case.method,
            case.path,
            case.body
        );
        let method = Method::from_bytes(case.method.to_uppercase().as_bytes()).unwrap();
        let answer = call(
            &app,
            method,
            &case.uri,
            Some(&token),
            Some(case.body.clone()),
        )
        .await;
        if case.valid {
            assert!(
                !malformed(&answer),
                "{} {} refused a schema-valid {}: {} {}",
                case.method,
                case.uri,
                case.body,
                answer.status,
                String::from_utf8_lossy(&answer.bytes)
            );
        } else {
            assert!(
                answer.status.is_client_error(),
                "{} {} accepted a schema-invalid {}: {}",
                case.method,
                case.uri,
                case.body,
                answer.status
            );
        }
    }
}

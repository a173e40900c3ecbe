//! A property-based fuzz of the API against its own OpenAPI document: requests for every documented
//! operation, with path parameters, queries, bodies and tokens drawn at random (valid, nearly valid
//! and junk), must never get a 5xx, and must get one of the statuses the document lists for that
//! operation, with a JSON body that the document's schema for that status accepts (validated by the
//! `jsonschema` crate, JSON Schema 2020-12 as OpenAPI 3.1 uses it, with the document's components
//! for its references).

use std::collections::{BTreeMap, BTreeSet};

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use proptest::prelude::*;
use serde_json::{Value, json};
use tower::ServiceExt;

struct Operation {
    method: Method,
    path: String,
    statuses: BTreeSet<String>,
    /// The schema of each status's JSON body, where the document gives one.
    schemas: BTreeMap<String, jsonschema::Validator>,
}

/// A validator of `schema` whose `#/components/...` references resolve in `document`.
fn validator(schema: &Value, document: &Value) -> jsonschema::Validator {
    let mut root = schema.clone();
    root["components"] = document["components"].clone();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&root)
        .unwrap_or_else(|error| panic!("the document's schema {schema} does not compile: {error}"))
}

fn operations() -> Vec<Operation> {
    let document = serde_json::to_value(omen_server::openapi()).unwrap();
    let mut operations = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let Ok(method) = Method::from_bytes(method.to_uppercase().as_bytes()) else {
                continue;
            };
            let responses = operation["responses"].as_object().unwrap();
            operations.push(Operation {
                method,
                path: path.clone(),
                statuses: responses.keys().cloned().collect(),
                schemas: responses
                    .iter()
                    .filter_map(|(status, response)| {
                        let schema = response.pointer("/content/application~1json/schema")?;
                        Some((status.clone(), validator(schema, &document)))
                    })
                    .collect(),
            });
        }
    }
    operations
}

/// Words that route and field names use, so that random requests often get past the first check.
const WORDS: &[&str] = &[
    "Tak",
    "Ayla",
    "Bo",
    "fireball",
    "luck",
    "hprpg",
    "t13",
    "ritual",
    "spelldice",
    "none",
    "gm",
    "player",
    "observer",
    "roll",
    "add-modifier",
    "2d6",
    "4d6kh3",
    "d",
    "(",
    "1",
    "-1",
    "0",
    "",
    "x y",
    "%E2%9C%93",
    "%00",
    "..",
    "a%2Fb",
    "ünï",
    "param n = 2; (n)d6",
];

const FIELDS: &[&str] = &[
    "expressions",
    "expression",
    "dialect",
    "params",
    "explode_depth",
    "seed",
    "dice",
    "name",
    "rule_set",
    "sheet",
    "state",
    "action",
    "odds",
    "role",
    "character",
    "export",
    "event_modifier",
    "source",
    "value",
    "intrinsic",
    "description",
];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(WORDS).prop_map(str::to_string),
        1 => "[a-zA-Z0-9 _.-]{0,12}",
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-60i64..60).prop_map(Value::from),
        word().prop_map(Value::from),
        Just(json!(1.5)),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
            proptest::collection::btree_map(
                proptest::sample::select(FIELDS).prop_map(str::to_string),
                inner,
                0..5
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

#[derive(Debug, Clone)]
struct Case {
    operation: usize,
    parameters: Vec<String>,
    query: Option<(String, String)>,
    token: usize,
    body: Option<Value>,
    last_event_id: Option<String>,
}

fn case(count: usize) -> impl Strategy<Value = Case> {
    (
        0..count,
        proptest::collection::vec(word(), 3),
        proptest::option::of((
            proptest::sample::select(
                &[
                    "character",
                    "action",
                    "since",
                    "until",
                    "last",
                    "after",
                    "x",
                ][..],
            )
            .prop_map(str::to_string),
            word(),
        )),
        0usize..5,
        proptest::option::weighted(0.9, json_value()),
        proptest::option::weighted(0.2, word()),
    )
        .prop_map(
            |(operation, parameters, query, token, body, last_event_id)| Case {
                operation,
                parameters,
                query,
                token,
                body,
                last_event_id,
            },
        )
}

fn uri(template: &str, parameters: &[String], query: &Option<(String, String)>) -> String {
    let mut uri = String::new();
    let mut next = parameters.iter();
    for (i, piece) in template.split('{').enumerate() {
        if i == 0 {
            uri.push_str(piece);
            continue;
        }
        let (_, rest) = piece.split_once('}').unwrap();
        let value = next.next().map_or("x", String::as_str);
        // Spaces and the like are escaped as a client would; `%` sequences go as they are.
        uri.push_str(&value.replace(' ', "%20").replace('/', "%2F"));
        uri.push_str(rest);
    }
    if let Some((name, value)) = query {
        uri.push_str(&format!(
            "?{name}={}",
            value
                .replace(' ', "%20")
                .replace('&', "%26")
                .replace('#', "%23")
        ));
    }
    uri
}

#[test]
fn random_requests_to_every_documented_operation_get_documented_json_answers() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let operations = operations();
    assert!(operations.len() >= 25, "{} operations", operations.len());
    // Every JSON answer the document describes has a schema to check against.
    let described: usize = operations.iter().map(|o| o.schemas.len()).sum();
    assert!(described > 200, "{described} schemas");
    let (app, tokens) = runtime.block_on(async {
        let app = crate::app();
        let made = crate::post(&app, "/api/v1/campaigns", None, json!({ "name": "Tak" })).await;
        let gm = made.json()["game_master"]["token"]
            .as_str()
            .unwrap()
            .to_string();
        crate::post(
            &app,
            "/api/v1/campaigns/Tak/characters",
            Some(&gm),
            json!({ "name": "Ayla", "rule_set": "luck" }),
        )
        .await;
        let player = crate::campaigns::invite(&app, &gm, "player", Some("Ayla")).await;
        let observer = crate::campaigns::invite(&app, &gm, "observer", None).await;
        (
            app,
            vec![
                Some(gm),
                Some(player),
                Some(observer),
                None,
                Some("omen_junk".to_string()),
            ],
        )
    });
    let config = ProptestConfig {
        cases: 1000,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |(case in case(operations.len()))| {
        let operation = &operations[case.operation];
        let uri = uri(&operation.path, &case.parameters, &case.query);
        let mut request = Request::builder().method(operation.method.clone()).uri(&uri);
        if let Some(token) = &tokens[case.token] {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        if let Some(id) = &case.last_event_id {
            request = request.header("last-event-id", id.as_str());
        }
        let body = match &case.body {
            Some(body) => {
                request = request.header("content-type", "application/json");
                Body::from(body.to_string())
            }
            None => Body::empty(),
        };
        let Ok(request) = request.body(body) else {
            // A URI the HTTP library itself refuses never reaches a server.
            return Ok(());
        };
        let (status, streaming, bytes) = runtime.block_on(async {
            let response = app.clone().oneshot(request).await.unwrap();
            let status = response.status();
            let streaming = response
                .headers()
                .get("content-type")
                .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
            // An event stream never ends: its head is the answer.
            let bytes = if streaming {
                Vec::new()
            } else {
                response.into_body().collect().await.unwrap().to_bytes().to_vec()
            };
            (status, streaming, bytes)
        });
        let what = format!("{} {uri} {:?} -> {status}: {}", operation.method, case.body, String::from_utf8_lossy(&bytes));
        prop_assert!(!status.is_server_error() || status == StatusCode::SERVICE_UNAVAILABLE, "{}", what);
        prop_assert!(operation.statuses.contains(status.as_str()), "undocumented status: {}", what);
        if status == StatusCode::NO_CONTENT || streaming {
            return Ok(());
        }
        let parsed: Result<Value, _> = serde_json::from_slice(&bytes);
        prop_assert!(parsed.is_ok(), "not JSON: {}", what);
        let parsed = parsed.unwrap();
        if !status.is_success() {
            prop_assert!(parsed["errors"][0]["message"].is_string(), "{}", what);
        }
        if let Some(schema) = operation.schemas.get(status.as_str()) {
            let problems: Vec<String> = schema
                .iter_errors(&parsed)
                .map(|error| format!("{} at {}", error, error.instance_path()))
                .collect();
            prop_assert!(problems.is_empty(), "the body does not match the document ({:?}): {}", problems, what);
        }
    });
}

#[test]
fn the_schema_check_refuses_a_body_of_the_wrong_shape() {
    let operations = operations();
    let prob = operations
        .iter()
        .find(|o| o.path == "/api/v1/prob" && o.method == Method::POST)
        .unwrap();
    let error = &prob.schemas["422"];
    assert!(error.is_valid(&json!({ "errors": [{ "kind": "x", "message": "y" }] })));
    assert!(!error.is_valid(&json!({ "errors": "y" })));
    assert!(!error.is_valid(&json!({ "errors": [{ "kind": 1, "message": "y" }] })));
    assert!(!prob.schemas["200"].is_valid(&json!("not an answer")));
}

/// The document's schemas accept the answers for values of every kind the language has: an integer,
/// a fraction as text, true/false, a label and a tuple, as outcomes, medians, parameters and a roll's
/// result. (The fuzz once found a roll of `2d6` whose result, 7, the document called an object.)
#[test]
fn the_documented_schemas_accept_values_of_every_kind() {
    let operations = operations();
    let schema = |path: &str| {
        &operations
            .iter()
            .find(|o| o.path == path && o.method == Method::POST)
            .unwrap()
            .schemas["200"]
    };
    let check = |schema: &jsonschema::Validator, answer: &Value| {
        let problems: Vec<String> = schema.iter_errors(answer).map(|e| e.to_string()).collect();
        assert!(problems.is_empty(), "{problems:?}: {answer}");
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let app = crate::app();
        let kinds = [
            "2d6",
            "div(d4, 2)",
            "d6 > 3",
            "param who = \"Ayla\"; who",
            "(d2, d2)",
        ];
        let prob = crate::post(&app, "/api/v1/prob", None, json!({ "expressions": kinds })).await;
        assert_eq!(prob.status, StatusCode::OK, "{}", prob.json());
        check(schema("/api/v1/prob"), &prob.json());
        for expression in kinds {
            let roll = crate::post(
                &app,
                "/api/v1/roll",
                None,
                json!({ "expression": expression, "seed": 1 }),
            )
            .await;
            assert_eq!(roll.status, StatusCode::OK, "{expression}: {}", roll.json());
            check(schema("/api/v1/roll"), &roll.json());
        }
    });
}

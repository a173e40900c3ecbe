//! A property-based fuzz of the API against its own OpenAPI document: requests for every documented
//! operation, with path parameters, queries, bodies and tokens drawn at random (valid, nearly valid
//! and junk), must never get a 5xx, and must get one of the statuses the document lists for that
//! operation, with a JSON body (an error with a message for 4xx).

use std::collections::BTreeSet;

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
}

fn operations() -> Vec<Operation> {
    let document = serde_json::to_value(omen_server::openapi()).unwrap();
    let mut operations = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let Ok(method) = Method::from_bytes(method.to_uppercase().as_bytes()) else {
                continue;
            };
            operations.push(Operation {
                method,
                path: path.clone(),
                statuses: operation["responses"]
                    .as_object()
                    .unwrap()
                    .keys()
                    .cloned()
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
    "view",
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
        if !status.is_success() {
            prop_assert!(parsed.unwrap()["errors"][0]["message"].is_string(), "{}", what);
        }
    });
}

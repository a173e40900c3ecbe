//! The OpenAPI document: served, 3.1, and listing every route the server answers.

use axum::http::{Method, StatusCode};

use crate::{app, call, get};

/// Every route the server serves, by method and path template. A route added to the router without
/// its annotation is missing from the document and fails here; one documented but not served fails
/// too.
pub const ROUTES: &[(&str, &str)] = &[
    ("post", "/api/v1/prob"),
    ("post", "/api/v1/roll"),
    ("get", "/api/v1/rules"),
    ("get", "/api/v1/rules/{game}"),
    ("get", "/api/v1/session"),
    ("post", "/api/v1/session"),
    ("delete", "/api/v1/session"),
    ("get", "/api/v1/rules/{game}/tables/{table}"),
    ("post", "/api/v1/rules/{game}/analyses/{analysis}"),
    ("post", "/api/v1/rules/{game}/odds"),
    ("post", "/api/v1/rules/{game}/sheets"),
    ("get", "/api/v1/campaigns"),
    ("post", "/api/v1/campaigns"),
    ("get", "/api/v1/campaigns/{campaign}"),
    ("post", "/api/v1/campaigns/import"),
    ("get", "/api/v1/campaigns/{campaign}/invites"),
    ("post", "/api/v1/campaigns/{campaign}/invites"),
    ("delete", "/api/v1/campaigns/{campaign}/invites/{id}"),
    ("get", "/api/v1/campaigns/{campaign}/characters"),
    ("post", "/api/v1/campaigns/{campaign}/characters"),
    ("get", "/api/v1/campaigns/{campaign}/characters/{character}"),
    (
        "patch",
        "/api/v1/campaigns/{campaign}/characters/{character}",
    ),
    (
        "delete",
        "/api/v1/campaigns/{campaign}/characters/{character}",
    ),
    (
        "post",
        "/api/v1/campaigns/{campaign}/characters/{character}/actions",
    ),
    (
        "post",
        "/api/v1/campaigns/{campaign}/characters/{character}/odds",
    ),
    ("post", "/api/v1/campaigns/{campaign}/rolls"),
    ("get", "/api/v1/campaigns/{campaign}/saved"),
    ("put", "/api/v1/campaigns/{campaign}/saved/{name}"),
    ("delete", "/api/v1/campaigns/{campaign}/saved/{name}"),
    ("post", "/api/v1/campaigns/{campaign}/saved/{name}/roll"),
    ("get", "/api/v1/campaigns/{campaign}/log"),
    ("post", "/api/v1/campaigns/{campaign}/log/{sequence}/reveal"),
    ("get", "/api/v1/campaigns/{campaign}/fairness"),
    ("get", "/api/v1/campaigns/{campaign}/verify"),
    ("get", "/api/v1/campaigns/{campaign}/head"),
    ("get", "/api/v1/campaigns/{campaign}/export"),
    ("get", "/api/v1/campaigns/{campaign}/events"),
];

#[tokio::test]
async fn the_document_is_openapi_3_1_and_lists_every_route() {
    let app = app();
    let answer = get(&app, "/api/v1/openapi.json", None).await;
    assert_eq!(answer.status, StatusCode::OK);
    let document = answer.json();
    assert!(document["openapi"].as_str().unwrap().starts_with("3.1"));
    assert_eq!(
        document,
        serde_json::to_value(omen_server::openapi()).unwrap()
    );
    let paths = document["paths"].as_object().unwrap();
    let mut documented: Vec<(String, String)> = paths
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .unwrap()
                .keys()
                .filter(|k| k.as_str() != "parameters")
                .map(move |method| (method.clone(), path.clone()))
        })
        .collect();
    documented.sort();
    let mut expected: Vec<(String, String)> = ROUTES
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    expected.sort();
    assert_eq!(documented, expected);
    // Every documented route is served: no 404 "no such route", no 405.
    for (method, path) in &expected {
        let uri = path
            .replace("{game}", "luck")
            .replace("{campaign}", "c")
            .replace("{character}", "x")
            .replace("{name}", "n")
            .replace("{id}", "1")
            .replace("{sequence}", "1");
        let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
        let answer = call(&app, method.clone(), &uri, None, None).await;
        assert_ne!(
            answer.status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {uri}"
        );
        if answer.status == StatusCode::NOT_FOUND {
            assert_ne!(
                answer.json()["errors"][0]["message"]
                    .as_str()
                    .unwrap()
                    .split(';')
                    .next(),
                Some("no such route"),
                "{method} {uri}"
            );
        }
    }
}

//! The web page's session: an invite's token traded for a cookie, the cookie's attributes, CSRF on
//! cookie-authenticated writes, logging out, and a revoked invite's sessions.

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::Answer;
use crate::campaigns::{invite, with_ayla};
use crate::{get, post};

/// One request with the session cookie `session` and, when given, the CSRF header.
async fn with_cookie(
    app: &Router,
    method: Method,
    uri: &str,
    session: &str,
    csrf: Option<&str>,
    body: Option<Value>,
) -> Answer {
    let mut request = Request::builder()
        .method(method)
        .uri(uri)
        .header("cookie", format!("theme=dark; omen_session={session}"));
    if let Some(csrf) = csrf {
        request = request.header("x-omen-csrf", csrf);
    }
    let body = match body {
        Some(body) => {
            request = request.header("content-type", "application/json");
            Body::from(body.to_string())
        }
        None => Body::empty(),
    };
    let response = app
        .clone()
        .oneshot(request.body(body).unwrap())
        .await
        .unwrap();
    Answer {
        status: response.status(),
        headers: response.headers().clone(),
        bytes: response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec(),
    }
}

/// The session cookie's value and its attributes, from a `Set-Cookie` header.
fn set_cookie(answer: &Answer) -> (String, Vec<String>) {
    let header = answer
        .headers
        .get("set-cookie")
        .expect("a Set-Cookie header")
        .to_str()
        .unwrap()
        .to_string();
    let mut parts = header.split(';').map(|p| p.trim().to_string());
    let first = parts.next().unwrap();
    let value = first
        .strip_prefix("omen_session=")
        .unwrap_or_else(|| panic!("not the session cookie: {header}"))
        .to_string();
    (value, parts.collect())
}

/// Opens a session with `token`: the cookie's value and the answer's CSRF token.
async fn open(app: &Router, token: &str) -> (String, String) {
    let opened = post(app, "/api/v1/session", None, json!({ "token": token })).await;
    assert_eq!(opened.status, StatusCode::CREATED, "{}", opened.json());
    let (session, _) = set_cookie(&opened);
    let csrf = opened.json()["csrf"].as_str().unwrap().to_string();
    (session, csrf)
}

#[tokio::test]
async fn an_invite_token_is_traded_for_an_http_only_strict_cookie() {
    let (app, gm) = with_ayla().await;
    let player = invite(&app, &gm, "player", Some("Ayla")).await;
    let opened = post(&app, "/api/v1/session", None, json!({ "token": player })).await;
    assert_eq!(opened.status, StatusCode::CREATED, "{}", opened.json());
    let body = opened.json();
    assert_eq!(body["campaign"], "Tak");
    assert_eq!(body["role"], "player");
    assert_eq!(body["characters"], json!(["Ayla"]));
    assert!(body["expires"].is_string(), "{body}");
    let (session, attributes) = set_cookie(&opened);
    assert_eq!(session.len(), player.len(), "as random as a token");
    assert_ne!(session, player, "the cookie is not the invite's token");
    for wanted in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"] {
        assert!(
            attributes.iter().any(|a| a == wanted),
            "{wanted} missing from {attributes:?}"
        );
    }
    assert!(
        !attributes.iter().any(|a| a == "Secure"),
        "plain HTTP on a LAN cannot keep a Secure cookie: {attributes:?}"
    );
    assert_eq!(body["csrf"], omen_server::auth::csrf_token(&session));

    // Behind a TLS proxy, the cookie is Secure.
    let request = Request::post("/api/v1/session")
        .header("content-type", "application/json")
        .header("x-forwarded-proto", "https")
        .body(Body::from(json!({ "token": player }).to_string()))
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let header = response.headers()["set-cookie"].to_str().unwrap();
    assert!(header.split("; ").any(|a| a == "Secure"), "{header}");

    // The cookie says who it is, with the same CSRF token, without a CSRF token of its own (a read).
    let shown = with_cookie(&app, Method::GET, "/api/v1/session", &session, None, None).await;
    assert_eq!(shown.status, StatusCode::OK);
    assert_eq!(shown.json()["role"], "player");
    assert_eq!(shown.json()["csrf"], body["csrf"]);
    // A bearer token says who it is, with no CSRF token (it needs none).
    let bearer = get(&app, "/api/v1/session", Some(&player)).await;
    assert_eq!(bearer.json()["role"], "player");
    assert_eq!(bearer.json()["csrf"], Value::Null);
}

#[tokio::test]
async fn a_made_up_or_missing_token_opens_no_session() {
    let (app, _) = with_ayla().await;
    let made_up = post(
        &app,
        "/api/v1/session",
        None,
        json!({ "token": "omen_0000" }),
    )
    .await;
    assert_eq!(made_up.status, StatusCode::UNAUTHORIZED);
    assert!(made_up.headers.get("set-cookie").is_none());
    let unknown_cookie = with_cookie(
        &app,
        Method::GET,
        "/api/v1/campaigns/Tak/log",
        "omen_0000",
        None,
        None,
    )
    .await;
    assert_eq!(unknown_cookie.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        get(&app, "/api/v1/session", None).await.status,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn a_write_with_the_cookie_needs_the_csrf_token_and_a_read_does_not() {
    let (app, gm) = with_ayla().await;
    let player = invite(&app, &gm, "player", Some("Ayla")).await;
    let (session, csrf) = open(&app, &player).await;
    let uri = "/api/v1/campaigns/Tak/rolls";
    let roll = json!({ "expression": "2d6", "character": "Ayla" });
    let without = with_cookie(&app, Method::POST, uri, &session, None, Some(roll.clone())).await;
    assert_eq!(without.status, StatusCode::FORBIDDEN);
    assert_eq!(without.kind(), "csrf");
    // Another session's token, or the session id itself, is not this session's CSRF token.
    let (_, other_csrf) = open(&app, &player).await;
    for wrong in [other_csrf.as_str(), session.as_str(), ""] {
        let refused = with_cookie(
            &app,
            Method::POST,
            uri,
            &session,
            Some(wrong),
            Some(roll.clone()),
        )
        .await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{wrong}");
    }
    let log = get(&app, "/api/v1/campaigns/Tak/log", Some(&gm))
        .await
        .json();
    assert!(
        !log.as_array()
            .unwrap()
            .iter()
            .any(|e| e["action"] == "expression"),
        "a refused write wrote nothing: {log}"
    );
    let with = with_cookie(&app, Method::POST, uri, &session, Some(&csrf), Some(roll)).await;
    assert_eq!(with.status, StatusCode::OK, "{}", with.json());
    assert_eq!(with.json()["entry"]["action"], "expression");
    // Reads need no CSRF token.
    let read = with_cookie(
        &app,
        Method::GET,
        "/api/v1/campaigns/Tak/log",
        &session,
        None,
        None,
    )
    .await;
    assert_eq!(read.status, StatusCode::OK);
    // A bearer token's writes need none either.
    let bearer = post(
        &app,
        uri,
        Some(&player),
        json!({ "expression": "1d6", "character": "Ayla" }),
    )
    .await;
    assert_eq!(bearer.status, StatusCode::OK);
}

#[tokio::test]
async fn a_session_ends_when_its_invite_is_revoked() {
    let (app, gm) = with_ayla().await;
    let player = invite(&app, &gm, "player", Some("Ayla")).await;
    let (session, csrf) = open(&app, &player).await;
    let log = "/api/v1/campaigns/Tak/log";
    let before = with_cookie(&app, Method::GET, log, &session, None, None).await;
    assert_eq!(before.status, StatusCode::OK);
    let invites = get(&app, "/api/v1/campaigns/Tak/invites", Some(&gm))
        .await
        .json();
    let id = invites
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["role"] == "player")
        .unwrap()["id"]
        .clone();
    let revoked = crate::call(
        &app,
        Method::DELETE,
        &format!("/api/v1/campaigns/Tak/invites/{id}"),
        Some(&gm),
        None,
    )
    .await;
    assert_eq!(revoked.status, StatusCode::NO_CONTENT);
    let after = with_cookie(&app, Method::GET, log, &session, None, None).await;
    assert_eq!(after.status, StatusCode::UNAUTHORIZED);
    let write = with_cookie(
        &app,
        Method::POST,
        "/api/v1/campaigns/Tak/rolls",
        &session,
        Some(&csrf),
        Some(json!({ "expression": "1d6", "character": "Ayla" })),
    )
    .await;
    assert_eq!(write.status, StatusCode::UNAUTHORIZED);
    let reopened = post(&app, "/api/v1/session", None, json!({ "token": player })).await;
    assert_eq!(reopened.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn logging_out_needs_the_csrf_token_ends_the_session_and_clears_the_cookie() {
    let (app, gm) = with_ayla().await;
    let (session, csrf) = open(&app, &gm).await;
    let uri = "/api/v1/session";
    let refused = with_cookie(&app, Method::DELETE, uri, &session, None, None).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let ended = with_cookie(&app, Method::DELETE, uri, &session, Some(&csrf), None).await;
    assert_eq!(ended.status, StatusCode::NO_CONTENT);
    let (value, attributes) = set_cookie(&ended);
    assert_eq!(value, "");
    assert!(
        attributes.iter().any(|a| a == "Max-Age=0"),
        "{attributes:?}"
    );
    let after = with_cookie(&app, Method::GET, uri, &session, None, None).await;
    assert_eq!(after.status, StatusCode::UNAUTHORIZED);
    // The invite itself still works: logging out ends a session, not a membership.
    assert_eq!(get(&app, uri, Some(&gm)).await.status, StatusCode::OK);
}

#[tokio::test]
async fn the_document_describes_the_cookie_and_the_csrf_refusal() {
    let document = serde_json::to_value(omen_server::openapi()).unwrap();
    let scheme = &document["components"]["securitySchemes"]["cookie"];
    assert_eq!(scheme["type"], "apiKey");
    assert_eq!(scheme["in"], "cookie");
    assert_eq!(scheme["name"], "omen_session");
    let act = &document["paths"]["/api/v1/campaigns/{campaign}/rolls"]["post"];
    assert!(
        act["security"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s.get("cookie").is_some()),
        "{act}"
    );
    assert!(act["responses"]["403"].is_object());
    assert!(document["paths"]["/api/v1/session"]["post"].is_object());
}

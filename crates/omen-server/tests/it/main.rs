//! The server through `tower::ServiceExt::oneshot` (no socket), and against a real socket where
//! streams and concurrency need one.

mod analysis_warnings;
mod anydice_api;
mod anydice_approximate_api;
mod blind;
mod browser;
mod calculator_api;
mod calculator_page;
mod campaigns;
mod character_summary;
mod connections;
mod creation_warnings;
mod discord;
mod discord_autocomplete;
mod discord_bounds;
mod discord_draws;
mod discord_gm;
mod discord_odds;
mod draws;
mod fuzz;
mod games_forms;
mod live;
mod openapi;
mod openapi_strictness;
mod player_refusals;
mod pool_api;
mod pool_page;
mod readme;
mod reveal;
mod roles;
mod rule_routes;
mod seed_calculators;
mod seed_calculators_page;
mod session;
mod shares;
mod starvation;
mod stateless;
mod table_dice;
mod table_forms;
mod table_page;
mod table_reveal;
mod table_tabs;
mod visibility;
mod warnings_pages;
mod worked_examples;
mod worked_examples_api;
mod worked_examples_odds_page;
mod worked_examples_page;
mod worked_examples_table_page;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::BodyExt;
use omen_server::{AppState, Config};
use serde_json::Value;
use tower::ServiceExt;

/// A configuration for tests: no rate limit (tests share one client address).
pub fn config() -> Config {
    Config {
        rate_limit: None,
        ..Config::default()
    }
}

pub fn state_with(config: Config) -> AppState {
    AppState::new(
        omen_store::Store::open_in_memory().expect("in memory"),
        config,
    )
}

pub fn app() -> Router {
    omen_server::app(state_with(config()))
}

/// One answer: status, headers and the whole body.
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub bytes: Vec<u8>,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.bytes).unwrap_or_else(|error| {
            panic!(
                "not JSON ({error}): {}",
                String::from_utf8_lossy(&self.bytes)
            )
        })
    }

    /// The first error's kind, for an error answer.
    pub fn kind(&self) -> String {
        self.json()["errors"][0]["kind"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

/// Sends one request through the router.
pub async fn call(
    app: &Router,
    method: Method,
    uri: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> Answer {
    let mut request = Request::builder().method(method).uri(uri);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
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
        .oneshot(request.body(body).expect("request"))
        .await
        .expect("infallible");
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes()
        .to_vec();
    Answer {
        status,
        headers,
        bytes,
    }
}

pub async fn post(app: &Router, uri: &str, token: Option<&str>, body: Value) -> Answer {
    call(app, Method::POST, uri, token, Some(body)).await
}

pub async fn get(app: &Router, uri: &str, token: Option<&str>) -> Answer {
    call(app, Method::GET, uri, token, None).await
}

/// The first value under `key` anywhere in `value` (itself included), depth first.
pub fn find_key<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    match value {
        Value::Object(map) => map
            .get(key)
            .or_else(|| map.values().find_map(|v| find_key(v, key))),
        Value::Array(items) => items.iter().find_map(|v| find_key(v, key)),
        _ => None,
    }
}

/// Campaign `Tak` with the luck characters `characters`, each from `sheet`, and an invite for the
/// player of the first: the game master's token and that player's.
pub async fn luck_table(app: &Router, characters: &[&str], sheet: &Value) -> (String, String) {
    let made = post(
        app,
        "/api/v1/campaigns",
        None,
        serde_json::json!({ "name": "Tak" }),
    )
    .await;
    let gm = made.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    for name in characters {
        let character = post(
            app,
            "/api/v1/campaigns/Tak/characters",
            Some(&gm),
            serde_json::json!({ "name": name, "rule_set": "luck", "sheet": sheet }),
        )
        .await;
        assert_eq!(
            character.status,
            StatusCode::CREATED,
            "{}",
            character.json()
        );
    }
    let invited = post(
        app,
        "/api/v1/campaigns/Tak/invites",
        Some(&gm),
        serde_json::json!({ "role": "player", "character": characters[0] }),
    )
    .await;
    let player = invited.json()["token"].as_str().unwrap().to_string();
    (gm, player)
}

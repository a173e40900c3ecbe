//! `prob`, `roll` and `rules`: exact answers, errors with spans, the cache, the limits.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::{app, call, config, get, post, state_with};

/// P(2d6 = total), counted over the 36 rolls.
fn two_d6(total: i64) -> String {
    let count = (1..=6)
        .flat_map(|a| (1..=6).map(move |b| a + b))
        .filter(|&t| t == total)
        .count() as i64;
    let g = gcd(count, 36);
    format!("{}/{}", count / g, 36 / g)
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[tokio::test]
async fn prob_gives_exact_fractions_that_match_counting_the_rolls() {
    let app = app();
    let answer = post(
        &app,
        "/api/v1/prob",
        None,
        json!({ "expressions": ["2d6"] }),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    let odds = &answer.json()["results"][0];
    assert_eq!(odds["reading"], "2d6");
    assert_eq!(odds["mean"], "7");
    let rows = odds["outcomes"].as_array().unwrap();
    assert_eq!(rows.len(), 11);
    for row in rows {
        let total = row["outcome"].as_i64().unwrap();
        assert_eq!(row["probability"], two_d6(total), "{total}");
    }
}

#[tokio::test]
async fn prob_compares_several_expressions_with_parameters() {
    let app = app();
    let body = json!({
        "expressions": ["param n = 1; (n)d4", "param n = 1; (n)d6"],
        "params": { "n": 2 },
    });
    let answer = post(&app, "/api/v1/prob", None, body).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    let results = answer.json()["results"].clone();
    assert_eq!(results.as_array().unwrap().len(), 2);
    // n = 2: P(2d4 >= 2) = 1, P(2d4 >= 3) = 1 - 1/16.
    assert_eq!(results[0]["outcomes"][0]["at_least"], "1");
    assert_eq!(results[0]["outcomes"][1]["at_least"], "15/16");
    // n = 2: P(2d6 >= 12) = 1/36, the last row.
    let rows = results[1]["outcomes"].as_array().unwrap();
    assert_eq!(rows.last().unwrap()["outcome"], 12);
    assert_eq!(rows.last().unwrap()["at_least"], "1/36");
}

#[tokio::test]
async fn prob_reads_another_dialect() {
    let app = app();
    let body = json!({ "expressions": ["4d6k3"], "dialect": "roll20" });
    let answer = post(&app, "/api/v1/prob", None, body).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    let odds = &answer.json()["results"][0];
    let top = odds["outcomes"].as_array().unwrap().last().unwrap().clone();
    // P(4d6 keep highest 3 = 18) = 21/1296 = 7/432.
    assert_eq!(top["probability"], "7/432");
    let unknown = post(
        &app,
        "/api/v1/prob",
        None,
        json!({ "expressions": ["d6"], "dialect": "icepool" }),
    )
    .await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST);
    assert_eq!(unknown.kind(), "unknown-dialect");
}

#[tokio::test]
async fn a_bad_expression_is_422_with_its_span_help_and_index() {
    let app = app();
    let answer = post(
        &app,
        "/api/v1/prob",
        None,
        json!({ "expressions": ["2d6", "3d6 +"] }),
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    let error = &answer.json()["errors"][0];
    assert_eq!(error["expression"], 1);
    assert!(error["span"]["start"].as_u64().unwrap() >= 4, "{error}");
    assert!(error["message"].as_str().is_some());
}

#[tokio::test]
async fn malformed_requests_are_json_errors() {
    let app = app();
    let cases = [
        (json!({ "expressions": [] }), StatusCode::BAD_REQUEST),
        (
            json!({ "expressions": "2d6" }),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({ "expressions": ["d6"], "extra": 1 }),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({ "expressions": vec!["d6"; omen_server::prob::MAX_EXPRESSIONS + 1] }),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({ "expressions": ["param n = 1; n d6"], "params": { "n": 1.5 } }),
            StatusCode::BAD_REQUEST,
        ),
    ];
    for (body, status) in cases {
        let answer = post(&app, "/api/v1/prob", None, body.clone()).await;
        assert_eq!(answer.status, status, "{body}");
        assert!(answer.json()["errors"][0]["message"].is_string(), "{body}");
    }
    // Not JSON at all.
    let request = axum::http::Request::post("/api/v1/prob")
        .header("content-type", "application/json")
        .body(axum::body::Body::from("{not json"))
        .unwrap();
    let response = tower::ServiceExt::oneshot(app.clone(), request)
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    // An unknown route.
    let answer = get(&app, "/api/v1/nothing", None).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.kind(), "not-found");
    // A known route with the wrong method: JSON too.
    let answer = get(&app, "/api/v1/prob", None).await;
    assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(answer.kind(), "method-not-allowed");
}

#[tokio::test]
async fn the_same_program_is_answered_from_the_cache() {
    let app = app();
    let first = post(
        &app,
        "/api/v1/prob",
        None,
        json!({ "expressions": ["3d6"] }),
    )
    .await;
    assert_eq!(first.headers["x-omen-cache"], "miss");
    let again = post(
        &app,
        "/api/v1/prob",
        None,
        json!({ "expressions": ["3d6"] }),
    )
    .await;
    assert_eq!(again.headers["x-omen-cache"], "hit");
    assert_eq!(first.bytes, again.bytes);
    // Another text of the same program: its reading is the same, so it is a hit too, with its own
    // expression text.
    let spaced = post(
        &app,
        "/api/v1/prob",
        None,
        json!({ "expressions": ["3d6  "] }),
    )
    .await;
    assert_eq!(spaced.headers["x-omen-cache"], "hit");
    assert_eq!(spaced.json()["results"][0]["expression"], "3d6  ");
    assert_eq!(
        spaced.json()["results"][0]["outcomes"],
        first.json()["results"][0]["outcomes"]
    );
    // Another explosion depth is another answer.
    let other = post(
        &app,
        "/api/v1/prob",
        None,
        json!({ "expressions": ["3d6"], "explode_depth": 3 }),
    )
    .await;
    assert_eq!(other.headers["x-omen-cache"], "miss");
}

#[tokio::test]
async fn work_past_the_servers_budget_is_refused_as_a_limit() {
    let mut config = config();
    config.limits.work_budget = 1_000;
    let app = omen_server::app(state_with(config));
    let answer = post(
        &app,
        "/api/v1/prob",
        None,
        json!({ "expressions": ["100d100"] }),
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(answer.kind(), "work-budget", "{}", answer.json());
}

#[tokio::test]
async fn roll_replays_from_its_seed_and_from_given_dice() {
    let app = app();
    let first = post(&app, "/api/v1/roll", None, json!({ "expression": "3d6" })).await;
    assert_eq!(first.status, StatusCode::OK);
    let seed = first.json()["seed"].as_u64().expect("a seed is returned");
    let again = post(
        &app,
        "/api/v1/roll",
        None,
        json!({ "expression": "3d6", "seed": seed }),
    )
    .await;
    assert_eq!(first.json()["result"], again.json()["result"]);
    assert_eq!(first.json()["tree"], again.json()["tree"]);
    let given = post(
        &app,
        "/api/v1/roll",
        None,
        json!({ "expression": "3d6", "dice": [6, 5, 1, 2] }),
    )
    .await;
    assert_eq!(given.status, StatusCode::OK);
    assert_eq!(given.json()["result"], 12);
    assert_eq!(given.json()["seed"], Value::Null);
    assert_eq!(given.json()["warnings"][0]["kind"], "unused-dice");
    let both = post(
        &app,
        "/api/v1/roll",
        None,
        json!({ "expression": "3d6", "dice": [1, 2, 3], "seed": 4 }),
    )
    .await;
    // Well-formed, but its parts disagree: refused for its meaning (422), as the document says.
    assert_eq!(both.status, StatusCode::UNPROCESSABLE_ENTITY);
    let short = post(
        &app,
        "/api/v1/roll",
        None,
        json!({ "expression": "3d6", "dice": [1] }),
    )
    .await;
    assert_eq!(short.status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn rules_lists_every_registered_game_with_its_schemas() {
    let app = app();
    let answer = get(&app, "/api/v1/rules", None).await;
    assert_eq!(answer.status, StatusCode::OK);
    let listed: Vec<String> = answer
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect();
    let registered: Vec<String> = omen_rules::registry()
        .iter()
        .map(|r| r.name().to_string())
        .collect();
    assert_eq!(listed, registered);
    for game in omen_rules::stateful::games() {
        let one = get(&app, &format!("/api/v1/rules/{}", game.name()), None).await;
        assert_eq!(one.status, StatusCode::OK);
        assert_eq!(one.json()["schemas"], game.schemas());
    }
    let none = get(&app, "/api/v1/rules/chess", None).await;
    assert_eq!(none.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_body_past_the_limit_is_413() {
    let mut config = config();
    config.max_body = 100;
    let app = omen_server::app(state_with(config));
    let long = "1+".repeat(100) + "1";
    let answer = post(&app, "/api/v1/prob", None, json!({ "expressions": [long] })).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(answer.json()["errors"][0]["message"].is_string());
}

#[tokio::test]
async fn a_client_past_its_rate_is_429_with_retry_after() {
    let mut config = config();
    config.rate_limit = Some(1);
    let app = omen_server::app(state_with(config));
    let mut statuses = Vec::new();
    for _ in 0..4 {
        let answer = get(&app, "/api/v1/rules/luck", None).await;
        if answer.status == StatusCode::TOO_MANY_REQUESTS {
            assert!(answer.headers.contains_key("retry-after"));
            assert_eq!(answer.kind(), "rate-limited");
        }
        statuses.push(answer.status);
    }
    // A burst of two, then refused.
    assert_eq!(statuses[..2], [StatusCode::OK, StatusCode::OK]);
    assert_eq!(statuses[3], StatusCode::TOO_MANY_REQUESTS);
    let _ = call;
}

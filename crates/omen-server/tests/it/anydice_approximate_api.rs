//! `"approximate": DIGITS` on `POST /api/v1/prob` with `"dialect": "anydice"`: a program whose
//! exact weights run away (a die mixed with itself each round, so its total's digits double) is
//! refused exactly with the command line's words, answered approximately when asked, and every
//! result computed after a rounding says so; bounded as the document says.

use axum::http::StatusCode;
use omen_core::Limits;
use omen_lang::anydice;
use serde_json::{Value, json};

use crate::{config, post, state_with};

/// `D` after `rounds` rounds of keeping the higher of two copies of itself: the highest of
/// 2^rounds d6, whose exact total is 6^(2^rounds).
fn doubling(rounds: u32) -> String {
    format!("D: d6\nloop I over {{1..{rounds}}} {{ D: [highest of D and D] }}\noutput D")
}

/// A smaller work budget than the server's default, so the exact refusal comes quickly.
fn limits() -> Limits {
    Limits {
        work_budget: 20_000_000,
        ..config().limits
    }
}

fn app() -> axum::Router {
    let mut config = config();
    config.limits = limits();
    omen_server::app(state_with(config))
}

async fn prob(app: &axum::Router, body: Value) -> crate::Answer {
    post(app, "/api/v1/prob", None, body).await
}

fn approximate_warnings(result: &Value) -> usize {
    result["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "approximate")
        .count()
}

#[tokio::test]
async fn exact_runaway_weights_are_refused_with_the_command_lines_words() {
    let program = doubling(40);
    let answer = prob(
        &app(),
        json!({"expressions": [program], "dialect": "anydice"}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    let error = &answer.json()["errors"][0];
    // The library's diagnostic under the same limits, as `omen prob` and `omen roll` render it.
    let source = program.clone();
    let expected = std::thread::Builder::new()
        .stack_size(omen_lang::STACK_BYTES)
        .spawn(move || anydice::run_with(&source, &limits(), anydice::Precision::Exact))
        .unwrap()
        .join()
        .unwrap()
        .expect_err("too large exactly")
        .remove(0);
    assert_eq!(error["kind"], "exact-too-large", "{error}");
    assert_eq!(error["message"], expected.message.as_str(), "{error}");
    assert_eq!(error["help"], expected.help.unwrap().as_str(), "{error}");
    let help = error["help"].as_str().unwrap();
    assert!(help.contains("\"approximate\": DIGITS"), "{help}");
}

#[tokio::test]
async fn approximate_answers_and_marks_each_result_computed_after_a_rounding() {
    // The first output comes before any rounding: exact, unmarked. The second is the highest of
    // 2^40 d6: P(D < 6) = (5/6)^(2^40), far below 10^-20, so to 20 digits D is 6 with
    // probability 1.
    let program = format!("output d6\n{}", doubling(40));
    let answer = prob(
        &app(),
        json!({"expressions": [program], "dialect": "anydice", "approximate": 20}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    let results = answer.json()["results"].clone();
    assert_eq!(results[0]["outcomes"][0]["probability"], "1/6");
    assert_eq!(approximate_warnings(&results[0]), 0, "{}", results[0]);
    let rows = results[1]["outcomes"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{}", results[1]);
    assert_eq!(
        (&rows[0]["outcome"], &rows[0]["probability"]),
        (&json!(6), &json!("1"))
    );
    assert_eq!(approximate_warnings(&results[1]), 1, "{}", results[1]);
    let warning = results[1]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "approximate")
        .unwrap();
    let message = warning["message"].as_str().unwrap();
    assert!(message.contains("about 20 significant digits"), "{message}");

    // A program that stays small is exact with `approximate` too, and unmarked.
    let small = prob(
        &app(),
        json!({"expressions": ["output 2d6"], "dialect": "anydice", "approximate": 20}),
    )
    .await;
    let result = &small.json()["results"][0];
    assert_eq!(result["outcomes"][5]["probability"], "1/6", "{result}");
    assert_eq!(approximate_warnings(result), 0);
}

#[tokio::test]
async fn approximate_is_bounded_and_for_anydice_only() {
    let app = app();
    for digits in [0, anydice::MAX_DIGITS + 1] {
        let answer = prob(
            &app,
            json!({"expressions": ["output d6"], "dialect": "anydice", "approximate": digits}),
        )
        .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{digits}");
    }
    let answer = prob(
        &app,
        json!({"expressions": ["output d6"], "dialect": "anydice", "approximate": anydice::MAX_DIGITS}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    // Omen's notation is always exact, as on the command line.
    // The request fits the document (the field is optional for every dialect): 422, not 400.
    let answer = prob(&app, json!({"expressions": ["2d6"], "approximate": 20})).await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    let message = answer.json()["errors"][0]["message"].clone();
    assert!(
        message
            .as_str()
            .unwrap()
            .contains("`approximate` is for AnyDice programs"),
        "{message}"
    );
    // The document states the same bounds.
    let document = serde_json::to_value(omen_server::openapi()).unwrap();
    let field = &document["components"]["schemas"]["ProbRequest"]["properties"]["approximate"];
    assert_eq!(field["minimum"], json!(1), "{field}");
    assert_eq!(field["maximum"], json!(anydice::MAX_DIGITS), "{field}");
}

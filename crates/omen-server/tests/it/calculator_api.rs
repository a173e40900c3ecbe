//! The calculator's API as a web user meets it: the CLI's JSON shape with exact fractions, every
//! problem of the README's performance table answered, limit refusals worded for the web, a wrong
//! token told apart from a missing one, and the icon browsers ask for.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::{app, get, post};

async fn odds(expression: &str) -> Value {
    let answer = post(
        &app(),
        "/api/v1/prob",
        None,
        json!({ "expressions": [expression] }),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    answer.json()["results"][0].clone()
}

/// The row of `outcome` in `odds`.
fn row<'a>(odds: &'a Value, outcome: &Value) -> &'a Value {
    odds["outcomes"]
        .as_array()
        .expect("outcomes")
        .iter()
        .find(|row| &row["outcome"] == outcome)
        .unwrap_or_else(|| panic!("no row {outcome} in {odds}"))
}

#[tokio::test]
async fn prob_answers_in_the_clis_json_shape_with_exact_fractions() {
    // 3d6: 27 of the 216 rolls total 10 (by the count of compositions of 10 into three parts of
    // 1 to 6), 81 total at most 9 and 108 at least 11; so P(=10) = 1/8, P(>=10) = 135/216 = 5/8,
    // P(<=10) = 108/216 = 1/2. Mean 3 × 7/2, variance 3 × 35/12, median 10 (P(<=9) = 3/8 < 1/2),
    // modes 10 and 11 (27 rolls each).
    let three_d6 = odds("3d6").await;
    let ten = row(&three_d6, &json!(10));
    let mut fields: Vec<&str> = ten
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    fields.sort_unstable();
    assert_eq!(fields, ["at_least", "at_most", "outcome", "probability"]);
    assert_eq!(ten["probability"], "1/8");
    assert_eq!(ten["at_least"], "5/8");
    assert_eq!(ten["at_most"], "1/2");
    assert_eq!(row(&three_d6, &json!(3))["at_least"], "1");
    assert_eq!(row(&three_d6, &json!(18))["probability"], "1/216");
    assert_eq!(three_d6["mean"], "21/2");
    assert_eq!(three_d6["variance"], "35/4");
    assert_eq!(three_d6["median"], 10);
    assert_eq!(three_d6["mode"], json!([10, 11]));
    assert_eq!(three_d6["depth_limit_probability"], "0");
    assert_eq!(three_d6["expression"], "3d6");
    assert!(three_d6["standard_deviation"].is_f64());
    // No float beside a fraction: the old `percent` and `fraction` fields are gone.
    let text = three_d6.to_string();
    assert!(
        !text.contains("percent") && !text.contains("\"fraction\""),
        "{text}"
    );

    // True/false counts 1/0 for the statistics, as the CLI counts it: P(d6 >= 5) = 2/6.
    let chance = odds("d6 >= 5").await;
    assert_eq!(row(&chance, &json!(true))["probability"], "1/3");
    assert_eq!(row(&chance, &json!(false))["at_most"], "2/3");
    assert_eq!(chance["mean"], "1/3");
    assert_eq!(chance["median"], false);
    assert_eq!(chance["mode"], json!([false]));

    // Labels have no statistics: null, as in the CLI's JSON.
    let labels = odds("if d2 == 1 then \"heads\" else \"tails\"").await;
    assert_eq!(labels["mean"], Value::Null);
    assert_eq!(labels["median"], Value::Null);
    assert_eq!(row(&labels, &json!("heads"))["probability"], "1/2");
}

#[tokio::test]
async fn labels_come_in_the_order_the_expression_writes_them_without_cumulative_columns() {
    // A d6: 1–2 a miss (2/6), 6 a crit (1/6), 3–5 a hit (3/6). Alphabetical order would be crit,
    // hit, miss, and P(≥ hit) over it would mean nothing.
    let hits =
        odds("let r = d6; if r <= 2 then \"miss\" else (if r = 6 then \"crit\" else \"hit\")")
            .await;
    let rows = hits["outcomes"].as_array().unwrap();
    let listed: Vec<&Value> = rows.iter().map(|row| &row["outcome"]).collect();
    assert_eq!(listed, [&json!("miss"), &json!("crit"), &json!("hit")]);
    let probabilities: Vec<&Value> = rows.iter().map(|row| &row["probability"]).collect();
    assert_eq!(probabilities, [&json!("1/3"), &json!("1/6"), &json!("1/2")]);
    for row in rows {
        assert!(
            row.get("at_least").is_none() && row.get("at_most").is_none(),
            "{row}"
        );
    }
    // Numbers keep theirs: d2 + d2 is 2, 3, 4 with weights 1, 2, 1, so P(>= 3) = 3/4.
    assert_eq!(row(&odds("d2 + d2").await, &json!(3))["at_least"], "3/4");
}

/// The README's performance table: each problem's Omen input and its explosion depth.
fn performance_problems() -> Vec<(String, Option<u64>)> {
    let readme = include_str!("../../../../README.md");
    let section = readme
        .split("\n## Performance")
        .nth(1)
        .expect("the README has a performance section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut problems = Vec::new();
    // The first table of the section is the suite; the calibration table after it is not.
    let table = section
        .lines()
        .skip_while(|l| !l.starts_with("| "))
        .take_while(|l| l.starts_with('|'));
    for line in table {
        let cells: Vec<&str> = line.split(" | ").collect();
        let Some(omen) = cells.get(1) else { continue };
        if !omen.starts_with('`') {
            continue;
        }
        // `EXPR` alone, or `EXPR` `--explode-depth N`.
        let quoted: Vec<&str> = omen.split('`').collect();
        let expression = quoted[1].to_string();
        let depth = quoted
            .iter()
            .find_map(|part| part.strip_prefix("--explode-depth "))
            .map(|n| n.trim().parse().expect("a depth"));
        problems.push((expression, depth));
    }
    problems
}

#[tokio::test]
async fn every_problem_of_the_readmes_performance_table_is_answered_by_the_calculator_api() {
    let problems = performance_problems();
    assert_eq!(problems.len(), 24, "{problems:?}");
    let app = app();
    for (expression, depth) in problems {
        let mut body = json!({ "expressions": [expression] });
        if let Some(depth) = depth {
            body["explode_depth"] = json!(depth);
        }
        let started = std::time::Instant::now();
        let answer = post(&app, "/api/v1/prob", None, body).await;
        assert_eq!(
            answer.status,
            StatusCode::OK,
            "{expression}: {}",
            String::from_utf8_lossy(&answer.bytes[..answer.bytes.len().min(600)])
        );
        let result = &answer.json()["results"][0];
        // The rows' P(=) add up to 1 and the first row's P(>=) is 1: a whole distribution.
        assert_eq!(result["outcomes"][0]["at_least"], "1", "{expression}");
        let last = result["outcomes"].as_array().unwrap().last().unwrap();
        assert_eq!(last["at_most"], "1", "{expression}");
        eprintln!("{expression}: {:?}", started.elapsed());
    }
}

#[tokio::test]
async fn a_computation_past_the_servers_limits_is_refused_in_words_for_the_web() {
    // Rerolling every repeated face of 10,000 d6 until all differ cannot settle cheaply: the README's
    // calibration table has it spending the CLI's whole budget.
    let answer = post(
        &app(),
        "/api/v1/prob",
        None,
        json!({ "expressions": ["10000d6u"] }),
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    let problem = &answer.json()["errors"][0];
    let words = format!("{} {}", problem["message"], problem["help"]);
    assert!(words.contains("too large for this server"), "{words}");
    assert!(words.contains("command-line"), "{words}");
    assert!(
        !words.contains("--"),
        "a web answer names no CLI flag: {words}"
    );

    // An explosion depth past the server's ceiling is refused before any work, naming the field.
    let deep = post(
        &app(),
        "/api/v1/prob",
        None,
        json!({ "expressions": ["d6!"], "explode_depth": 1_000_000 }),
    )
    .await;
    assert_eq!(deep.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        deep.json()["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("explode_depth")
    );
}

#[tokio::test]
async fn a_wrong_token_is_told_apart_from_a_missing_one() {
    let app = app();
    let missing = get(&app, "/api/v1/campaigns", None).await;
    assert_eq!(missing.status, StatusCode::UNAUTHORIZED);
    assert!(
        missing.json()["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("needs a bearer token")
    );

    let made = post(&app, "/api/v1/campaigns", None, json!({ "name": "Tak" })).await;
    let token = made.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    // A made-up token and a real one with a letter changed get the same words: which tokens exist
    // is not told.
    let mut changed = token.clone();
    let last = changed.pop().unwrap();
    changed.push(if last == 'a' { 'b' } else { 'a' });
    let mut said = Vec::new();
    for wrong in ["omen_0123", changed.as_str()] {
        let answer = get(&app, "/api/v1/campaigns", Some(wrong)).await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
        assert_eq!(answer.kind(), "unauthorized");
        let message = answer.json()["errors"][0]["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(message.contains("not valid"), "{message}");
        assert!(message.contains("unknown, revoked or expired"), "{message}");
        assert!(!message.contains("needs a bearer token"), "{message}");
        said.push(message);
    }
    assert_eq!(said[0], said[1]);
}

#[tokio::test]
async fn the_icon_browsers_ask_for_is_served() {
    let app = app();
    for path in ["/favicon.ico", "/favicon.svg"] {
        let answer = get(&app, path, None).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        assert_eq!(answer.headers["content-type"], "image/svg+xml");
        assert!(String::from_utf8_lossy(&answer.bytes).starts_with("<svg"));
    }
    for page in ["/", "/games", "/table"] {
        let html = get(&app, page, None).await;
        assert!(
            String::from_utf8_lossy(&html.bytes)
                .contains("<link rel=\"icon\" href=\"/favicon.svg\""),
            "{page}"
        );
    }
}

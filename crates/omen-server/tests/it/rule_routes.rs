//! The routes behind the web pages' calculators: a script's parameters in `prob`, and the rule
//! sets' tables, analyses, odds and sheet checks without a campaign.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::{app, get, post};

#[tokio::test]
async fn prob_names_each_scripts_parameters_and_gives_each_only_its_own() {
    let app = app();
    let answer = post(
        &app,
        "/api/v1/prob",
        None,
        json!({
            "expressions": ["param n = 2; (n)d6", "param dv = 4; d6 >= dv", "d4"],
            "expression_params": [{"n": 3}, {"dv": 6}],
        }),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    let results = answer.json()["results"].clone();
    assert_eq!(results[0]["params"], json!([{"name": "n", "value": 3}]));
    // 3d6: 216 rolls, mean 21/2.
    assert_eq!(results[0]["mean"], "21/2");
    assert_eq!(results[1]["params"], json!([{"name": "dv", "value": 6}]));
    let sixes: Vec<&Value> = results[1]["outcomes"]
        .as_array()
        .expect("outcomes")
        .iter()
        .filter(|row| row["outcome"] == json!(true))
        .collect();
    assert_eq!(sixes[0]["probability"], "1/6");
    assert_eq!(results[2]["params"], json!([]));

    // A default stays a default when nothing is given.
    let defaults = post(
        &app,
        "/api/v1/prob",
        None,
        json!({"expressions": ["param n = 2; (n)d6"]}),
    )
    .await
    .json();
    assert_eq!(defaults["results"][0]["params"][0]["value"], 2);

    let too_many = post(
        &app,
        "/api/v1/prob",
        None,
        json!({"expressions": ["d6"], "expression_params": [{}, {}]}),
    )
    .await;
    // Well-formed, but its parts disagree: refused for its meaning (422), as the document says.
    assert_eq!(too_many.status, StatusCode::UNPROCESSABLE_ENTITY);
    // A value for a parameter the script does not declare is still an error naming it.
    let unknown = post(
        &app,
        "/api/v1/prob",
        None,
        json!({"expressions": ["d6", "param n = 1; (n)d6"], "expression_params": [{"n": 2}]}),
    )
    .await;
    assert_eq!(unknown.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(unknown.json()["errors"][0]["expression"], 0);
    assert_eq!(unknown.kind(), "unknown-parameter");
}

#[tokio::test]
async fn every_rule_sets_tables_and_analyses_are_served_by_name() {
    let app = app();
    for rules in omen_rules::registry() {
        let listed = get(&app, &format!("/api/v1/rules/{}", rules.name()), None)
            .await
            .json();
        assert_eq!(
            listed["tables"].as_array().expect("tables").len(),
            rules.tables().len()
        );
        for table in rules.tables() {
            let answer = get(
                &app,
                &format!("/api/v1/rules/{}/tables/{}", rules.name(), table.name),
                None,
            )
            .await;
            assert_eq!(answer.status, StatusCode::OK, "{}", table.name);
            assert_eq!(answer.json()["text"], (table.render)());
        }
        for analysis in rules.analyses() {
            let schema = &listed["analyses"]
                .as_array()
                .expect("analyses")
                .iter()
                .find(|a| a["name"] == analysis.name)
                .expect("listed")["inputs"];
            assert_eq!(schema["type"], "object", "{schema}");
            // An analysis whose inputs all have defaults takes an empty object; one with required
            // inputs (a check needs its Lore and difficulty) takes its schema's first example,
            // which the document therefore must carry.
            let required = schema["required"].as_array().is_some_and(|r| !r.is_empty());
            let request = if required {
                schema["examples"][0].clone()
            } else {
                json!({})
            };
            assert!(request.is_object(), "{}: {schema}", analysis.name);
            let answer = post(
                &app,
                &format!("/api/v1/rules/{}/analyses/{}", rules.name(), analysis.name),
                None,
                request,
            )
            .await;
            assert_eq!(answer.status, StatusCode::OK, "{}", analysis.name);
            assert!(
                !answer.json()["tables"]
                    .as_array()
                    .expect("tables")
                    .is_empty()
            );
        }
    }
    let missing = get(&app, "/api/v1/rules/ritual/tables/nope", None).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(
        missing.json()["errors"][0]["help"]
            .as_str()
            .unwrap_or_default()
            .contains("lore"),
        "the hint lists the tables"
    );
    let refused = post(
        &app,
        "/api/v1/rules/luck/analyses/calculator",
        None,
        json!({"modifier": 5000}),
    )
    .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    let none = post(&app, "/api/v1/rules/t13/analyses/anything", None, json!({})).await;
    assert_eq!(none.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn odds_and_sheets_need_no_campaign_and_list_every_problem() {
    let app = app();
    // Luck: a halfling (+2) rolling for an event at −5: combined −3, so bad is 1..13 and good
    // 44..50: 13/50 and 7/50.
    let odds = post(
        &app,
        "/api/v1/rules/luck/odds",
        None,
        json!({
            "sheet": {"intrinsic": [{"source": "halfling", "value": 2}]},
            "action": {"action": "roll", "event_modifier": -5},
        }),
    )
    .await;
    assert_eq!(odds.status, StatusCode::OK, "{}", odds.json());
    let odds = odds.json();
    assert_eq!(odds["modifier"], -3);
    let fraction = |outcome: &str| {
        odds["outcomes"]
            .as_array()
            .expect("outcomes")
            .iter()
            .find(|row| row["outcome"] == outcome)
            .map(|row| row["fraction"].clone())
    };
    assert_eq!(fraction("bad"), Some(json!("13/50")));
    assert_eq!(fraction("good"), Some(json!("7/50")));

    // Two problems with one sheet: both listed, one entry each.
    let sheet = post(
        &app,
        "/api/v1/rules/luck/sheets",
        None,
        json!({"sheet": {"intrinsic": [
            {"source": " ", "value": 1},
            {"source": "a", "value": i64::MAX},
            {"source": "b", "value": i64::MAX},
        ]}}),
    )
    .await;
    assert_eq!(sheet.status, StatusCode::UNPROCESSABLE_ENTITY);
    let problems = sheet.json()["errors"].as_array().expect("errors").clone();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems.iter().all(|p| p["kind"] == "invalid"));

    let valid = post(
        &app,
        "/api/v1/rules/t13/sheets",
        None,
        json!({"sheet": {"character_type": "solo", "sway": 3}}),
    )
    .await;
    assert_eq!(valid.status, StatusCode::OK, "{}", valid.json());
    assert_eq!(valid.json()["state"]["sway"], 3);

    let unknown = post(
        &app,
        "/api/v1/rules/nope/odds",
        None,
        json!({"sheet": {}, "action": {}}),
    )
    .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
}

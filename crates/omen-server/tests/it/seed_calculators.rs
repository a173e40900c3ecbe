//! The seeds' calculators that once lived only in the CLI, over the HTTP API: seed 003's contest,
//! working together and passive perception replay the seed's worked examples with the dice rolled
//! at the table, and seed 001's exhaustion answers for every strategy. The expected figures are the
//! seed's own (counted by hand from its dice) and the errata's exact values.

use axum::Router;
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::{app, post};

async fn analysis(app: &Router, game: &str, name: &str, inputs: Value) -> Vec<Value> {
    let answer = post(
        app,
        &format!("/api/v1/rules/{game}/analyses/{name}"),
        None,
        inputs,
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    answer.json()["tables"].as_array().expect("tables").clone()
}

/// The cells of the row of `table` whose first cell is `first`.
fn row(table: &Value, first: &str) -> Vec<String> {
    table["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r[0] == first)
        .unwrap_or_else(|| panic!("no row {first} in {table}"))
        .as_array()
        .expect("cells")
        .iter()
        .map(|c| c.as_str().expect("text").to_string())
        .collect()
}

/// The exact fraction of a cell, without its decimal reading.
fn exact(cell: &str) -> &str {
    cell.split(' ').next().unwrap_or_default()
}

#[tokio::test]
async fn bruce_shoves_the_death_eater_over_the_api_with_a_margin_of_two() {
    // Seed 003, Contests: Bruce's 5 successes against the Death Eater's 3, an OKAY success. At DV 8
    // the faces 8..12 are successes and nothing here is a 1.
    let tables = analysis(
        &app(),
        "hprpg",
        "contest",
        json!({ "pool": 5, "resistor_pool": 3, "difficulty": 8,
                "dice": [8, 9, 10, 11, 12, 8, 9, 10] }),
    )
    .await;
    let rolled = tables.last().expect("the roll");
    assert_eq!(
        row(rolled, "instigator")[1..5],
        ["8, 9, 10, 11, 12", "5", "0", "5"]
    );
    assert_eq!(row(rolled, "resistor")[2..5], ["3", "0", "3"]);
    assert_eq!(row(rolled, "margin")[4..], ["2", "success, OKAY"]);
}

#[tokio::test]
async fn a_contest_of_one_die_each_at_dv_12_is_the_status_quo_61_times_in_72() {
    // Floored nets: each side has net 1 with 1/12, else 0. Margin ±1 each 1/12 × 11/12 = 11/144;
    // status quo 1 − 22/144 = 61/72.
    let tables = analysis(
        &app(),
        "hprpg",
        "contest",
        json!({ "pool": 1, "resistor_pool": 1, "difficulty": 12 }),
    )
    .await;
    assert_eq!(exact(&row(&tables[0], "status quo")[2]), "61/72");
    assert_eq!(exact(&row(&tables[0], "the action fails")[2]), "11/144");
    assert_eq!(exact(&row(&tables[0], "success, MARGINAL")[2]), "11/144");
}

#[tokio::test]
async fn bruce_and_jane_search_the_dungeons_over_the_api_for_a_net_of_three() {
    // Seed 003, Working Together, errata E003-13: Bruce 1,1,3,10 (1 success, 2 catastrophes), Jane
    // 3,7,10,10,11 (4 successes) at DV 6: pooled 5 − 2 = 3, GOOD (the seed's text says 2).
    let tables = analysis(
        &app(),
        "hprpg",
        "teamwork",
        json!({ "pools": [4, 5], "difficulty": 6, "dice": [1, 1, 3, 10, 3, 7, 10, 10, 11] }),
    )
    .await;
    let rolled = tables.last().expect("the roll");
    assert_eq!(row(rolled, "helper 1")[2..5], ["1", "2", "-1"]);
    assert_eq!(row(rolled, "helper 2")[2..5], ["4", "0", "4"]);
    assert_eq!(row(rolled, "pooled")[2..], ["5", "2", "3", "GOOD"]);
}

#[tokio::test]
async fn jane_notices_the_acromantula_over_the_api_as_an_okay_sneak() {
    // Seed 003, Passive Perception: PERCEPTION 3 + ALERTNESS 4 = 7; the Acromantula's 2-3-5-6-8-10
    // scores two successes (8, 10), OKAY, so it is not revealed.
    let app = app();
    let tables = analysis(
        &app,
        "hprpg",
        "perception",
        json!({ "perception": 3, "alertness": 4, "sneak_pool": 6, "dice": [2, 3, 5, 6, 8, 10] }),
    )
    .await;
    assert_eq!(row(&tables[0], "PERCEPTION 3 + ALERTNESS 4")[1], "7");
    let rolled = tables.last().expect("the roll");
    assert_eq!(row(rolled, "sneaker")[2..], ["2", "0", "2", "OKAY"]);
    assert_eq!(row(rolled, "verdict")[5], "unnoticed");
    // Two dice against 7: unnoticed needs two successes (1/4) or one beside a blank
    // (2 × 6/12 × 5/12), 2/3; revealed 1/3.
    let two = analysis(
        &app,
        "hprpg",
        "perception",
        json!({ "perception": 3, "alertness": 4, "sneak_pool": 2 }),
    )
    .await;
    assert_eq!(exact(&row(&two[1], "revealed")[1]), "1/3");
}

#[tokio::test]
async fn dice_that_do_not_fit_the_pools_are_refused_with_the_count_wanted() {
    let app = app();
    let answer = post(
        &app,
        "/api/v1/rules/hprpg/analyses/teamwork",
        None,
        json!({ "pools": [4, 5], "dice": [1, 2, 3] }),
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    let message = answer.json()["errors"][0]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(message.contains("give all 9"), "{message}");
}

#[tokio::test]
async fn the_exhaustion_analysis_answers_every_strategy_over_the_api() {
    // Errata E001-5: level 1, target 8, base rule: commit-all 185/1188, commit-minimum 128/363;
    // the author's fix: 13/194 and 1/16.
    let app = app();
    let base = analysis(&app, "spelldice", "exhaust", json!({ "level": 1 })).await;
    assert_eq!(
        exact(base[0]["rows"][0][1].as_str().expect("cell")),
        "185/1188"
    );
    assert_eq!(exact(&row(&base[2], "minimum")[1]), "128/363");
    let fixed = analysis(
        &app,
        "spelldice",
        "exhaust",
        json!({ "level": 1, "strategy": "fixed", "fixed_dice": 2,
                "removal_timing": "success-or-catastrophe" }),
    )
    .await;
    assert_eq!(
        exact(fixed[0]["rows"][0][1].as_str().expect("cell")),
        "1/16"
    );
    assert_eq!(exact(&row(&fixed[2], "all")[1]), "13/194");
    assert!(
        fixed[2]["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .any(|r| r[0] == "most-casts"),
        "{}",
        fixed[2]
    );
}

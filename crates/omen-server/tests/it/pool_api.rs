//! Pools through the API (issue 26): the joint distribution of several readings of one roll as
//! tuples with exact fractions, a roll's tree with the dice and each reading, the pool constructs
//! (mixed pools, raises, symbols, folds, rerolls), and their refusals worded for the web.
//!
//! Every expected table is counted here by walking every roll of the dice, never taken from the
//! server.

use std::collections::BTreeMap;

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::{app, post};

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// `n/d` in lowest terms, as the API writes it ("1" and "0" whole).
fn fraction(n: u128, d: u128) -> String {
    let g = gcd(n, d).max(1);
    if d / g == 1 {
        format!("{}", n / g)
    } else {
        format!("{}/{}", n / g, d / g)
    }
}

/// Every roll of dice with `sides[i]` faces (1..=sides), each listed once.
fn rolls(sides: &[u64]) -> Vec<Vec<i64>> {
    let mut all = vec![Vec::new()];
    for &s in sides {
        all = all
            .into_iter()
            .flat_map(|roll| {
                (1..=s as i64).map(move |face| {
                    let mut next = roll.clone();
                    next.push(face);
                    next
                })
            })
            .collect();
    }
    all
}

/// Weighted outcomes, as JSON values, to their total weight.
type Table = BTreeMap<String, (Value, u128)>;

fn tally(table: &mut Table, outcome: Value, weight: u128) {
    table.entry(outcome.to_string()).or_insert((outcome, 0)).1 += weight;
}

/// The rows the API must answer for `table` (the weights over `total`): each outcome with its
/// probability in lowest terms. Compared as a map, so the order the API lists them in is checked
/// apart.
fn expected(table: &Table, total: u128) -> BTreeMap<String, String> {
    table
        .values()
        .map(|(outcome, w)| (outcome.to_string(), fraction(*w, total)))
        .collect()
}

fn answered(result: &Value) -> BTreeMap<String, String> {
    result["outcomes"]
        .as_array()
        .expect("outcomes")
        .iter()
        .map(|row| {
            (
                row["outcome"].to_string(),
                row["probability"].as_str().expect("a fraction").to_string(),
            )
        })
        .collect()
}

async fn prob(expressions: &[&str]) -> Vec<Value> {
    let answer = post(
        &app(),
        "/api/v1/prob",
        None,
        json!({ "expressions": expressions }),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    answer.json()["results"]
        .as_array()
        .expect("results")
        .clone()
}

async fn odds(expression: &str) -> Value {
    prob(&[expression]).await.remove(0)
}

async fn roll(expression: &str, dice: &[i64]) -> Value {
    let answer = post(
        &app(),
        "/api/v1/roll",
        None,
        json!({ "expression": expression, "dice": dice }),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    answer.json()
}

fn count(roll: &[i64], meets: impl Fn(i64) -> bool) -> i64 {
    roll.iter().filter(|&&face| meets(face)).count() as i64
}

#[tokio::test]
async fn a_tuple_of_readings_of_one_pool_answers_their_joint_distribution_with_exact_fractions() {
    // Six d6: the hits (5 or 6) and the ones of the same roll, over all 6^6 = 46,656 rolls.
    let script = "let p = pool 6d6; (count(p, >=5), count(p, 1))";
    let mut table = Table::new();
    for roll in rolls(&[6; 6]) {
        let outcome = json!([count(&roll, |f| f >= 5), count(&roll, |f| f == 1)]);
        tally(&mut table, outcome, 1);
    }
    let result = odds(script).await;
    assert_eq!(answered(&result), expected(&table, 46_656));
    // (3, 3) is six dice split into three hits and three ones: C(6, 3) · 2³ of the rolls.
    assert_eq!(answered(&result)["[3,3]"], fraction(20 * 8, 46_656));
    // A hit and a one cannot share a die, so no outcome counts more than six dice.
    for row in result["outcomes"].as_array().unwrap() {
        let members = row["outcome"].as_array().expect("a tuple as an array");
        assert_eq!(members.len(), 2, "{row}");
        assert!(members.iter().map(|m| m.as_i64().unwrap()).sum::<i64>() <= 6);
    }
    // A tuple has no mean: the statistics of numbers are null, as in the CLI's JSON.
    assert_eq!(result["mean"], Value::Null);
    assert_eq!(result["depth_limit_probability"], "0");
    assert_eq!(
        result["reading"],
        "let p = pool {6d6}; (count(p, >=5), count(p, 1))"
    );

    // The readings are of one roll: of two d6, the highest 6 with a total of 2 is impossible, and
    // the tuples ascend member by member, with P(<=) running up to 1.
    let joint = odds("let p = pool 2d6; (highest(p), sum(p))").await;
    let mut pairs = Table::new();
    for roll in rolls(&[6, 6]) {
        let outcome = json!([roll.iter().max(), roll.iter().sum::<i64>()]);
        tally(&mut pairs, outcome, 1);
    }
    assert_eq!(answered(&joint), expected(&pairs, 36));
    assert!(!answered(&joint).contains_key("[6,2]"));
    let listed: Vec<(i64, i64)> = joint["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let o = &row["outcome"];
            (o[0].as_i64().unwrap(), o[1].as_i64().unwrap())
        })
        .collect();
    let mut sorted = listed.clone();
    sorted.sort_unstable();
    assert_eq!(listed, sorted);
    let last = joint["outcomes"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["outcome"], json!([6, 12]));
    assert_eq!(last["at_most"], "1");
    assert_eq!(last["at_least"], "1/36");
}

#[tokio::test]
async fn pools_compare_side_by_side_with_the_plain_notation() {
    // Two expressions in one request: a pool read as its sum is 2d6, row for row.
    let results = prob(&[
        "sum(pool 2d6)",
        "2d6",
        "let p = pool 3d4; (lowest(p), highest(p))",
    ])
    .await;
    assert_eq!(answered(&results[0]), answered(&results[1]));
    assert_eq!(results[0]["mean"], "7");
    let mut ends = Table::new();
    for roll in rolls(&[4, 4, 4]) {
        tally(&mut ends, json!([roll.iter().min(), roll.iter().max()]), 1);
    }
    assert_eq!(answered(&results[2]), expected(&ends, 64));
}

/// The dice nodes of a roll's tree, in the order they appear.
fn dice_nodes<'a>(node: &'a Value, into: &mut Vec<&'a Value>) {
    match node {
        Value::Object(map) => {
            if map.get("node").and_then(Value::as_str) == Some("dice") {
                into.push(node);
            }
            map.values().for_each(|v| dice_nodes(v, into));
        }
        Value::Array(items) => items.iter().for_each(|v| dice_nodes(v, into)),
        _ => {}
    }
}

/// The value of the label node `label` in a roll's tree (a reading's line).
fn reading<'a>(node: &'a Value, label: &str) -> Option<&'a Value> {
    match node {
        Value::Object(map) => {
            if map.get("node").and_then(Value::as_str) == Some("label")
                && map.get("label").and_then(Value::as_str) == Some(label)
            {
                return map.get("value");
            }
            map.values().find_map(|v| reading(v, label))
        }
        Value::Array(items) => items.iter().find_map(|v| reading(v, label)),
        _ => None,
    }
}

fn faces(dice: &Value) -> Vec<i64> {
    dice["dice"]
        .as_array()
        .expect("dice")
        .iter()
        .map(|d| d["value"].as_i64().expect("a face"))
        .collect()
}

#[tokio::test]
async fn a_pools_roll_shows_its_dice_once_and_each_reading_of_them() {
    let script = "let p = pool 6d6; (count(p, >=5), count(p, 1))";
    for dice in [[1, 5, 6, 1, 3, 1], [2, 2, 4, 3, 4, 2], [6, 6, 6, 5, 5, 1]] {
        let answer = roll(script, &dice).await;
        let tree = &answer["tree"];
        let mut shown = Vec::new();
        dice_nodes(tree, &mut shown);
        assert_eq!(shown.len(), 1, "the dice are shown once: {tree}");
        assert_eq!(shown[0]["notation"], "6d6");
        assert_eq!(faces(shown[0]), dice);
        let hits = count(&dice, |f| f >= 5);
        let ones = count(&dice, |f| f == 1);
        assert_eq!(reading(tree, "count(p, >=5)"), Some(&json!(hits)), "{tree}");
        assert_eq!(reading(tree, "count(p, 1)"), Some(&json!(ones)), "{tree}");
        assert_eq!(answer["result"], json!([hits, ones]));
    }

    // A seeded roll: whatever the dice, the readings are of those dice.
    for seed in 0..20u64 {
        let answer = post(
            &app(),
            "/api/v1/roll",
            None,
            json!({ "expression": script, "seed": seed }),
        )
        .await;
        let tree = &answer.json()["tree"];
        let mut shown = Vec::new();
        dice_nodes(tree, &mut shown);
        let dice = faces(shown[0]);
        assert_eq!(dice.len(), 6);
        assert_eq!(
            answer.json()["result"],
            json!([count(&dice, |f| f >= 5), count(&dice, |f| f == 1)])
        );
    }
}

#[tokio::test]
async fn a_mixed_pools_middle_die_is_exact_and_its_roll_shows_each_kind() {
    // The second highest of d10, d8, d6 over all 480 rolls; the docs give its mean as 173/40.
    let mut table = Table::new();
    for roll in rolls(&[10, 8, 6]) {
        let mut sorted = roll.clone();
        sorted.sort_unstable();
        tally(&mut table, json!(sorted[1]), 1);
    }
    let result = odds("nth(pool {d10, d8, d6}, 2)").await;
    assert_eq!(answered(&result), expected(&table, 480));
    let mean: u128 = table
        .values()
        .map(|(o, w)| o.as_u64().unwrap() as u128 * w)
        .sum();
    assert_eq!(fraction(mean, 480), "173/40");
    assert_eq!(result["mean"], "173/40");

    let answer = roll("nth(pool {d10, d8, d6}, 2)", &[3, 7, 2]).await;
    let mut shown = Vec::new();
    dice_nodes(&answer["tree"], &mut shown);
    let kinds: Vec<(&str, Vec<i64>)> = shown
        .iter()
        .map(|d| (d["die"].as_str().unwrap(), faces(d)))
        .collect();
    assert_eq!(kinds, [("d10", vec![3]), ("d8", vec![7]), ("d6", vec![2])]);
    assert_eq!(answer["result"], 3);
}

/// The most groups of `dice` that each sum to `target` or more, by trying every way of giving each
/// die to a group or to none.
fn raises(dice: &[i64], target: i64) -> i64 {
    let n = dice.len();
    let mut best = 0;
    let ways = (n as u32 + 1).pow(n as u32);
    for code in 0..ways {
        let mut sums = vec![0i64; n];
        let mut rest = code;
        for &die in dice {
            let group = (rest % (n as u32 + 1)) as usize;
            rest /= n as u32 + 1;
            if group < n {
                sums[group] += die;
            }
        }
        best = best.max(sums.iter().filter(|&&s| s >= target).count() as i64);
    }
    best
}

#[tokio::test]
async fn raises_symbols_folds_and_rerolls_answer_their_exact_tables() {
    // 7th Sea's raises of 4d6 for 7, every grouping of every roll tried.
    let mut table = Table::new();
    for roll in rolls(&[6; 4]) {
        tally(&mut table, json!(raises(&roll, 7)), 1);
    }
    assert_eq!(
        answered(&odds("raises(pool 4d6, 7)").await),
        expected(&table, 1296)
    );
    assert_eq!(
        roll("raises(pool 4d6, 7)", &[6, 1, 4, 3]).await["result"],
        2
    );

    // Genesys: two ability dice and a difficulty die, their symbols as the printed dice show them
    // (s success, a advantage, f failure, t threat).
    let ability = ["", "s", "s", "ss", "a", "a", "sa", "aa"];
    let difficulty = ["", "f", "ff", "t", "t", "t", "tt", "ft"];
    let mut symbols = Table::new();
    for roll in rolls(&[8, 8, 8]) {
        let faces = [
            ability[roll[0] as usize - 1],
            ability[roll[1] as usize - 1],
            difficulty[roll[2] as usize - 1],
        ]
        .concat();
        let n = |c: char| faces.chars().filter(|&x| x == c).count() as i64;
        tally(
            &mut symbols,
            json!([n('s') - n('f'), n('a') - n('t'), 0, 0]),
            1,
        );
    }
    let net_success: u128 = symbols
        .values()
        .filter(|(o, _)| o[0].as_i64().unwrap() >= 1)
        .map(|(_, w)| w)
        .sum();
    // The docs' figure for P(net successes >= 1), from the same faces.
    assert_eq!(fraction(net_success, 512), "295/512");
    assert_eq!(
        answered(&odds("symbols(pool {2 ability, difficulty})").await),
        expected(&symbols, 512)
    );

    // A fold (pairs or better) beside another reading of the same roll.
    let fold = "fn pairs(s, x, n) = if n >= 2 then s + 1 else s; \
                let p = pool 4d6; (fold(p, pairs, 0), highest(p))";
    let mut folded = Table::new();
    for roll in rolls(&[6; 4]) {
        let pairs = (1..=6).filter(|&f| count(&roll, |x| x == f) >= 2).count();
        tally(&mut folded, json!([pairs, roll.iter().max()]), 1);
    }
    assert_eq!(answered(&odds(fold).await), expected(&folded, 1296));

    // A reroll of the ones of 2d6: each die is a first face (1/6), and a one is rolled again
    // (1/6 more), so over 36 per die a kept face weighs 6 and a one rerolled to b weighs 1.
    let push = "fn f(x) = x = 1; let p = pool 2d6; let q = reroll(p, f); (count(p, 1), sum(q))";
    let mut pushed = Table::new();
    for first in rolls(&[6, 6]) {
        for second in rolls(&[6, 6]) {
            let ones = count(&first, |f| f == 1);
            let after: Vec<i64> = first
                .iter()
                .zip(&second)
                .map(|(&a, &b)| if a == 1 { b } else { a })
                .collect();
            // A die not rerolled takes each second face alike: its weight 6 is spread as 6 × 1.
            tally(&mut pushed, json!([ones, after.iter().sum::<i64>()]), 1);
        }
    }
    assert_eq!(answered(&odds(push).await), expected(&pushed, 1296));
    let rolled = roll(push, &[1, 4, 3]).await;
    assert_eq!(rolled["result"], json!([1, 7]));
}

#[tokio::test]
async fn pool_refusals_are_422_with_their_span_and_a_hint_for_the_web() {
    // A pool on its own has no value: its span and the hint that shows how to read it, from both
    // routes.
    for route in ["/api/v1/prob", "/api/v1/roll"] {
        let body = if route.ends_with("prob") {
            json!({ "expressions": ["pool 3d6"] })
        } else {
            json!({ "expression": "pool 3d6" })
        };
        let answer = post(&app(), route, None, body).await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{route}");
        let problem = &answer.json()["errors"][0];
        assert_eq!(problem["kind"], "pool-not-read");
        assert_eq!(problem["span"], json!({ "start": 0, "end": 8 }));
        let help = problem["help"].as_str().unwrap();
        assert!(help.contains("let p = pool"), "{help}");
    }
    // A pool used as a number: the span is the name.
    let answer = post(
        &app(),
        "/api/v1/prob",
        None,
        json!({ "expressions": ["let p = pool 3d6; p + 1"] }),
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(answer.kind(), "pool-not-read");
    assert_eq!(
        answer.json()["errors"][0]["span"],
        json!({ "start": 18, "end": 19 })
    );
}

/// A refusal past the server's limits, as the web gets it: the problem's words.
async fn refused_for_the_web(script: &str) -> Value {
    let answer = post(
        &app(),
        "/api/v1/prob",
        None,
        json!({ "expressions": [script] }),
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{script}");
    let problem = answer.json()["errors"][0].clone();
    let words = format!("{} {}", problem["message"], problem["help"]);
    assert!(words.contains("too large for this server"), "{words}");
    assert!(words.contains("command-line"), "{words}");
    assert!(
        !words.contains("--"),
        "a web answer names no CLI flag: {words}"
    );
    assert!(problem["span"].is_object(), "{problem}");
    problem
}

#[tokio::test]
async fn a_pool_past_the_work_budget_is_refused_in_words_for_the_web() {
    // 40d10's groupings hold more states than the server allows.
    refused_for_the_web("raises(pool 40d10, 10)").await;
}

#[tokio::test]
async fn the_web_refusal_of_a_fold_that_holds_too_many_states_keeps_the_folds_own_hint() {
    // A fold that remembers every face: the command line's hint says which fold held how many
    // states and what to keep in it; the web's used to replace it with the generic advice alone.
    let problem = refused_for_the_web("fn f(s, x, n) = (s, x, n); fold(pool 30d10, f, 0)").await;
    let help = problem["help"].as_str().unwrap();
    assert!(help.starts_with("the fold `f` held "), "{help}");
    assert!(
        help.contains("keep in its state only what its result needs"),
        "{help}"
    );
    assert!(!help.contains("raise the limit"), "{help}");
}

/// The schema the OpenAPI document gives for `status` answers of POST `path`, with the document's
/// components beside it so its references resolve.
fn response_schema(document: &Value, path: &str, status: &str) -> Value {
    let schema = &document["paths"][path]["post"]["responses"][status]["content"]["application/json"]
        ["schema"];
    assert!(schema.is_object(), "POST {path} documents no {status} JSON");
    let mut schema = schema.clone();
    schema["components"] = document["components"].clone();
    schema
}

#[tokio::test]
async fn pool_answers_and_refusals_are_what_the_openapi_document_says() {
    let document = serde_json::to_value(omen_server::openapi()).unwrap();
    let scripts = [
        "let p = pool 4d6; (count(p, >=5), count(p, 1))",
        "symbols(pool {2 ability, difficulty})",
        "fn f(x) = x = 1; let p = pool 2d6; let q = reroll(p, f); (count(p, 1), sum(q))",
        "pool 3d6",
    ];
    for script in scripts {
        for (path, body) in [
            ("/api/v1/prob", json!({ "expressions": [script] })),
            ("/api/v1/roll", json!({ "expression": script, "seed": 3 })),
        ] {
            let answer = post(&app(), path, None, body).await;
            let status = answer.status.as_u16().to_string();
            let schema = response_schema(&document, path, &status);
            let validator = jsonschema::validator_for(&schema).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&answer.json())
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{path} {script} ({status}): {errors:?}");
            // The check has teeth: a probability as a float is not what the document says.
            if status == "200" && path.ends_with("prob") {
                let mut wrong = answer.json();
                wrong["results"][0]["outcomes"][0]["probability"] = json!(0.5);
                assert!(!validator.is_valid(&wrong), "{script}");
            }
        }
    }
}

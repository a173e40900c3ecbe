//! The calculator page on the API's JSON shape: P(>) and P(<) derived exactly from the rows' P(=),
//! P(>=) and P(<=), and an error that leaves no earlier result under it.

use std::time::Duration;

use fantoccini::Client;
use serde_json::{Value, json};

use crate::browser::{driver, session, wait_for};

async fn script(client: &Client, body: &str) -> Value {
    client.execute(body, vec![]).await.expect("the script runs")
}

/// The cells of the results table's row for `outcome`.
async fn row(client: &Client, outcome: &str) -> Value {
    script(
        client,
        &format!(
            "const row = [...document.querySelectorAll('#odds tbody tr')].find((r) => r.cells[0].textContent === '{outcome}'); \
             return row ? [...row.cells].map((c) => c.textContent) : null;"
        ),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn strict_comparisons_are_exact_and_an_error_clears_the_results_before_it() {
    let Some(driver) = driver() else { return };
    let address = crate::browser::server().await;
    let browser = session(&driver).await;
    let client = &browser.client;

    // 2d6: 15 of the 36 rolls total more than 7 (8: 5, 9: 4, 10: 3, 11: 2, 12: 1), and 15 less.
    client
        .goto(&format!("http://{address}/#e=2d6&view=gt"))
        .await
        .unwrap();
    wait_for(client, "#odds tbody tr").await;
    assert_eq!(row(client, "7").await, json!(["7", "5/12", "41.67%"]));
    assert_eq!(row(client, "12").await, json!(["12", "0", "0.00%"]));
    client
        .goto(&format!("http://{address}/#e=2d6&view=lt"))
        .await
        .unwrap();
    let mut seen = Value::Null;
    for _ in 0..100 {
        seen = row(client, "2").await;
        if seen == json!(["2", "0", "0.00%"]) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(seen, json!(["2", "0", "0.00%"]));
    assert_eq!(row(client, "7").await, json!(["7", "5/12", "41.67%"]));

    // An input that does not parse: its error, and nothing left of 2d6's answer under it.
    client
        .goto(&format!("http://{address}/#e=2d"))
        .await
        .unwrap();
    for _ in 0..100 {
        let status = script(
            client,
            "return document.getElementById('status').textContent;",
        )
        .await;
        if status.as_str().is_some_and(|s| s.starts_with("Error")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let left = script(
        client,
        "return [document.getElementById('table-area').children.length, \
                 document.getElementById('stats-area').children.length, \
                 document.getElementById('chart-area').children.length, \
                 document.getElementById('export').hidden];",
    )
    .await;
    assert_eq!(left, json!([0, 0, 0, true]));
    browser.client.close().await.expect("close");
}

//! Pools on the calculator page in a real browser (issue 26): a script reading one pool two ways
//! shows its joint table with the tuples written out, a roll shows the dice once and each reading,
//! and a pool left unread shows its error with the caret and the hint; axe-core runs on each.
//!
//! The expected table is counted here over every roll of the dice, not taken from the server.

use std::collections::BTreeMap;
use std::time::Duration;

use fantoccini::Client;
use serde_json::{Value, json};

use crate::browser::{
    assert_accessible, click, driver, save_screenshot, server, session, type_into, wait_for,
};

const SCRIPT: &str = "let p = pool 3d4; (count(p, >=3), count(p, 1))";

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The page's cells for a probability: the fraction in lowest terms and the percentage with two
/// places, rounded half up.
fn cells(n: u64, d: u64) -> [String; 2] {
    let g = gcd(n, d);
    let fraction = if d / g == 1 {
        format!("{}", n / g)
    } else {
        format!("{}/{}", n / g, d / g)
    };
    let hundredths = (n * 20_000 + d) / (2 * d);
    [
        fraction,
        format!("{}.{:02}%", hundredths / 100, hundredths % 100),
    ]
}

/// The table of [`SCRIPT`] as the page must show it: over the 64 rolls of 3d4, the dice of 3 or
/// more and the ones, each outcome written `(hits, ones)`, in ascending order.
fn expected_rows() -> Vec<Vec<String>> {
    let mut ways: BTreeMap<(u64, u64), u64> = BTreeMap::new();
    for index in 0..64u64 {
        let faces = [index % 4 + 1, index / 4 % 4 + 1, index / 16 + 1];
        let hits = faces.iter().filter(|&&f| f >= 3).count() as u64;
        let ones = faces.iter().filter(|&&f| f == 1).count() as u64;
        *ways.entry((hits, ones)).or_default() += 1;
    }
    ways.into_iter()
        .map(|((hits, ones), w)| {
            let [fraction, percent] = cells(w, 64);
            vec![format!("({hits}, {ones})"), fraction, percent]
        })
        .collect()
}

async fn script(client: &Client, body: &str) -> Value {
    client.execute(body, vec![]).await.expect("the script runs")
}

/// Evaluates `body` until `accept` takes its value, or fails saying `what`.
async fn until(client: &Client, what: &str, body: &str, accept: impl Fn(&Value) -> bool) -> Value {
    let mut last = Value::Null;
    for _ in 0..200 {
        last = script(client, body).await;
        if accept(&last) {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{what}: never; last {last}");
}

const TABLE: &str = "return [...document.querySelectorAll('#odds tbody tr')]
    .map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.innerText));";

/// The newest roll card: its heading, the faces of each dice term, and each term's value by the
/// text it was written as.
const NEWEST_CARD: &str = "const card = document.querySelector('#rolls .roll-card');
    if (!card) return null;
    const terms = [...card.querySelectorAll('li.term')];
    return {
      cards: document.querySelectorAll('#rolls .roll-card').length,
      heading: card.querySelector('h3').innerText,
      dice: terms.filter((li) => li.dataset.node === 'dice').map((li) => ({
        term: li.dataset.term,
        faces: [...li.querySelectorAll(':scope > ul.dice > li.die')].map((d) => d.innerText.trim()),
      })),
      values: Object.fromEntries(terms.map((li) => [li.dataset.term, li.dataset.value])),
    };";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn a_pool_script_without_a_mean_shows_its_joint_table_as_tuples_and_rolls_its_dice() {
    let Some(driver) = driver() else { return };
    let address = server().await;
    let browser = session(&driver).await;
    let client = &browser.client;
    client
        .goto(&format!("http://{address}/"))
        .await
        .expect("the page");
    type_into(client, "expression-1", SCRIPT).await;
    click(client, "#calculate").await;
    wait_for(client, "#odds tbody tr").await;
    let expected = expected_rows();
    let shown = until(client, "the pool's table", TABLE, |rows| {
        rows.as_array().is_some_and(|r| r.len() == expected.len())
    })
    .await;
    assert_eq!(shown, json!(expected));
    // A tuple has no mean (null in the answer): the page used to stop at it, "Cannot convert null
    // to a BigInt", and show no table; its statistics now say nothing false.
    let stats = script(
        client,
        "return document.getElementById('stats-area').innerText;",
    )
    .await;
    let stats = stats.as_str().unwrap_or_default();
    assert!(
        !stats.contains("NaN") && !stats.contains("undefined"),
        "{stats}"
    );
    assert_accessible(client, "the calculator with a pool's joint table").await;
    save_screenshot(client, "pool-joint-table.png").await;

    // Rolls: the three dice once, and the readings are of those dice.
    for rolls in 1..=5u64 {
        click(client, "#expression-list li:first-child .roll").await;
        let card = until(client, "a new roll card", NEWEST_CARD, |card| {
            card["cards"] == rolls
        })
        .await;
        let dice = card["dice"].as_array().expect("dice terms");
        assert_eq!(dice.len(), 1, "the dice are shown once: {card}");
        assert_eq!(dice[0]["term"], "3d4");
        let faces: Vec<u64> = dice[0]["faces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().parse().expect("a plain face"))
            .collect();
        assert_eq!(faces.len(), 3, "{card}");
        assert!(faces.iter().all(|f| (1..=4).contains(f)), "{card}");
        let hits = faces.iter().filter(|&&f| f >= 3).count();
        let ones = faces.iter().filter(|&&f| f == 1).count();
        assert_eq!(card["values"]["count(p, >=3)"], hits.to_string(), "{card}");
        assert_eq!(card["values"]["count(p, 1)"], ones.to_string(), "{card}");
        // The pool's own line shows no workings of its readings (it once read `((…), 2)`).
        assert_eq!(card["values"]["pool 3d4"], "", "{card}");
        let heading = card["heading"].as_str().unwrap();
        assert!(
            heading.ends_with(&format!("→ ({hits}, {ones})")),
            "{heading}"
        );
    }
    assert_accessible(client, "the calculator with a pool's rolls").await;
    browser.client.close().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn a_pool_left_unread_shows_its_caret_and_the_hint_that_reads_it() {
    let Some(driver) = driver() else { return };
    let address = server().await;
    let browser = session(&driver).await;
    let client = &browser.client;
    client
        .goto(&format!("http://{address}/"))
        .await
        .expect("the page");
    type_into(client, "expression-1", "pool 3d6").await;
    click(client, "#calculate").await;
    let error = until(
        client,
        "the pool's error",
        "const box = document.querySelector('#expression-list li:first-child .error');
         const help = box && box.querySelector('.help');
         return help ? [box.querySelector('.caret').textContent, box.querySelector('.message').innerText, help.innerText] : null;",
        |found| found.is_array(),
    )
    .await;
    // The caret under the whole pool, as the CLI draws it.
    assert_eq!(error[0], "pool 3d6\n^^^^^^^^");
    assert_eq!(error[1], "error: a pool has no value until it is read");
    let help = error[2].as_str().unwrap();
    assert!(
        help.starts_with("help: bind it and read it, e.g. `let p = pool 8d6;"),
        "{help}"
    );
    let invalid = script(
        client,
        "return document.getElementById('expression-1').getAttribute('aria-invalid');",
    )
    .await;
    assert_eq!(invalid, "true");
    assert_accessible(client, "the calculator with a pool's error").await;

    // A pool past the server's limits: the web's words and a fold's own hint.
    type_into(
        client,
        "expression-1",
        "fn f(s, x, n) = (s, x, n); fold(pool 30d10, f, 0)",
    )
    .await;
    click(client, "#calculate").await;
    let help = until(
        client,
        "the fold's refusal",
        "const help = document.querySelector('#expression-list li:first-child .error .help');
         return help ? help.innerText : null;",
        |found| found.as_str().is_some_and(|h| h.contains("fold")),
    )
    .await;
    let help = help.as_str().unwrap();
    assert!(
        help.contains("the fold `f` held") && help.contains("command-line"),
        "{help}"
    );
    assert!(!help.contains("--"), "{help}");
    assert_accessible(client, "the calculator with a pool refused").await;
    browser.client.close().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn a_labelled_result_without_a_mean_shows_its_table_beside_a_number() {
    // Labels have no mean either (null in the answer), and stopped the page the same way; beside a
    // number, the statistics row is the number's alone. A d4: "low" on 1 (1/4), else "high".
    let Some(driver) = driver() else { return };
    let address = server().await;
    let browser = session(&driver).await;
    let client = &browser.client;
    client
        .goto(&format!("http://{address}/"))
        .await
        .expect("the page");
    type_into(
        client,
        "expression-1",
        "if d4 = 1 then \"low\" else \"high\"",
    )
    .await;
    click(client, "#add-expression").await;
    type_into(client, "expression-2", "d4").await;
    click(client, "#calculate").await;
    let rows = until(client, "the labels' table", TABLE, |rows| {
        rows.as_array().is_some_and(|r| r.len() == 6)
    })
    .await;
    let first: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row[0].as_str().unwrap())
        .collect();
    // The labels in the order the script writes them, the numbers as they came.
    assert_eq!(first, ["low", "high", "1", "2", "3", "4"], "{rows}");
    assert_eq!(rows[0][1], "1/4");
    assert_eq!(rows[1][1], "3/4");
    assert_eq!(rows[2][3], "1/4");
    let statistics = script(
        client,
        "return [...document.querySelectorAll('#statistics tbody tr')].map((r) => r.cells[0].innerText + ' ' + r.cells[1].innerText);",
    )
    .await;
    assert_eq!(statistics, json!(["d4 5/2 ≈ 2.5000"]));
    assert_accessible(client, "the calculator with labels beside a number").await;
    browser.client.close().await.expect("close");
}

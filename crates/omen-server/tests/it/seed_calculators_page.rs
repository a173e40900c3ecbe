//! The seeds' calculators that once lived only in the CLI, driven on the games page in a real
//! browser: the forms the page builds from the analyses' schemas take the seed's worked examples,
//! dice rolled at the table included, and show the seed's answers. The expectations are the seed's
//! own, counted by hand from its dice, and the errata's exact values.

use std::time::Duration;

use fantoccini::{Client, Locator};
use serde_json::json;

use crate::browser::{driver, server, session, until, wait_for};

/// The section of the analysis `name`, as a CSS selector.
fn section(name: &str) -> String {
    format!("section[aria-labelledby=\"a.{name}-heading\"]")
}

/// Types `text` into the input labelled `label` in the form of the analysis `name`.
async fn fill(client: &Client, name: &str, label: &str, text: &str) {
    let path = format!("//section[h3='{name}']//label[normalize-space(text())='{label}']");
    let id = client
        .find(Locator::XPath(&path))
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .attr("for")
        .await
        .expect("for")
        .expect("a label for an input");
    let input = client.find(Locator::Id(&id)).await.expect("the input");
    input.clear().await.expect("clear");
    input.send_keys(text).await.expect("type");
}

/// Chooses `value` in the menu labelled `label` in the form of the analysis `name`.
async fn choose(client: &Client, name: &str, label: &str, value: &str) {
    let path = format!(
        "//section[h3='{name}']//label[normalize-space(text())='{label}']/following-sibling::select/option[normalize-space(text())='{value}']"
    );
    client
        .find(Locator::XPath(&path))
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .click()
        .await
        .expect("choose");
}

/// Waits until the last table the analysis `name` shows has `caption` and `rows` (each row's
/// cells joined by " / ", rows by " | "), or fails with what it showed last.
async fn shows(client: &Client, name: &str, caption: &str, rows: &str) {
    let script = format!(
        "const tables = document.querySelectorAll('{} .analysis-output table'); \
         const last = tables[tables.length - 1]; \
         const errors = document.querySelector('{} .analysis-output .problems'); \
         if (!last) return errors ? errors.innerText : ''; \
         return last.caption.textContent + ' :: ' + [...last.querySelectorAll('tbody tr')] \
             .map((r) => [...r.cells].map((c) => c.innerText.trim()).join(' / ')).join(' | ');",
        section(name),
        section(name),
    );
    let wanted = format!("{caption} :: {rows}");
    let mut seen = String::new();
    for _ in 0..200 {
        let found = client.execute(&script, vec![]).await.expect("script");
        seen = found.as_str().unwrap_or_default().to_string();
        if seen == wanted {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{name} never showed\n  {wanted}\nbut\n  {seen}");
}

/// Waits until the first table of the analysis `name` has `cell` in its first row's second column.
async fn first_cell(client: &Client, name: &str, cell: &str) {
    let script = format!(
        "const table = document.querySelector('{} .analysis-output table'); \
         return !!table && table.querySelector('tbody tr td')?.innerText === {};",
        section(name),
        json!(cell)
    );
    until(client, &format!("{name}'s first cell is {cell}"), &script).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_games_page_replays_the_seeds_contest_teamwork_and_perception_examples() {
    let Some(driver) = driver() else { return };
    let address = server().await;
    let browser = session(&driver).await;
    let client = &browser.client;
    client
        .goto(&format!("http://{address}/games#game=hprpg"))
        .await
        .expect("the games page");
    for name in ["contest", "teamwork", "perception"] {
        wait_for(client, &format!("{} .analysis-output table", section(name))).await;
    }

    // Contests: Bruce's 5 successes against the Death Eater's 3 at DV 8, an OKAY success.
    fill(client, "contest", "Pool", "5").await;
    fill(client, "contest", "Resistor pool", "3").await;
    fill(client, "contest", "Difficulty", "8").await;
    fill(client, "contest", "Dice", "8, 9, 10, 11, 12, 8, 9, 10").await;
    shows(
        client,
        "contest",
        "The dice as rolled",
        "instigator / 8, 9, 10, 11, 12 / 5 / 0 / 5 / EXCELLENT | resistor / 8, 9, 10 / 3 / 0 / 3 / GOOD \
         | margin /  /  /  / 2 / success, OKAY",
    )
    .await;

    // Working Together (E003-13): Bruce 1,1,3,10 and Jane 3,7,10,10,11 at DV 6 pool 5 successes
    // and 2 catastrophes: net 3, GOOD (the seed's text says 2).
    fill(client, "teamwork", "Pools", "4, 5").await;
    fill(client, "teamwork", "Difficulty", "6").await;
    fill(client, "teamwork", "Dice", "1, 1, 3, 10, 3, 7, 10, 10, 11").await;
    shows(
        client,
        "teamwork",
        "The dice as rolled, then pooled",
        "helper 1 / 1, 1, 3, 10 / 1 / 2 / -1 / CATASTROPHIC FAILURE | helper 2 / 3, 7, 10, 10, 11 \
         / 4 / 0 / 4 / COMPLETE | pooled /  / 5 / 2 / 3 / GOOD",
    )
    .await;

    // Passive Perception: Jane's 3 + 4 = 7 against the Acromantula's 2-3-5-6-8-10, two successes.
    fill(client, "perception", "Perception", "3").await;
    fill(client, "perception", "Alertness", "4").await;
    fill(client, "perception", "Sneak pool", "6").await;
    fill(client, "perception", "Dice", "2, 3, 5, 6, 8, 10").await;
    shows(
        client,
        "perception",
        "The sneak as rolled",
        "sneaker / 2, 3, 5, 6, 8, 10 / 2 / 0 / 2 / OKAY | verdict /  /  /  /  / unnoticed",
    )
    .await;
    first_cell(client, "perception", "7").await;

    // Seed 001's exhaustion with a fixed commitment: level 1, 2 dice a cast, the base rule:
    // 128/363 (errata E001-5), the same as commit-minimum.
    client.goto("about:blank").await.expect("a blank page");
    client
        .goto(&format!("http://{address}/games#game=spelldice"))
        .await
        .expect("the games page");
    wait_for(
        client,
        &format!("{} .analysis-output table", section("exhaust")),
    )
    .await;
    choose(client, "exhaust", "Strategy", "fixed").await;
    fill(client, "exhaust", "Fixed dice", "2").await;
    first_cell(client, "exhaust", "128/363 (35.26%)").await;
    browser.client.close().await.expect("close");
}

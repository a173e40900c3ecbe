//! The seed games' page as a player building a character reads it: labels in words, help without
//! developer markup (rustdoc links, a JSON blob), and a finished sheet that leaves the page as JSON.

use std::time::Duration;

use fantoccini::Client;
use serde_json::Value;

use crate::browser::{click, driver, session, wait_for};

async fn script(client: &Client, body: &str) -> Value {
    client.execute(body, vec![]).await.expect("the script runs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn a_character_sheet_reads_as_words_and_leaves_the_page_as_json() {
    let Some(driver) = driver() else { return };
    let address = crate::browser::server().await;
    let browser = session(&driver).await;
    let client = &browser.client;
    // Seed 003's creation choices carry rustdoc links and a JSON example in their doc comments.
    client
        .goto(&format!("http://{address}/games#game=hprpg"))
        .await
        .expect("the games page");
    wait_for(client, "#sheet-problems p").await;

    let labels: Vec<String> = serde_json::from_value(
        script(
            client,
            "return [...document.querySelectorAll('#sheet-form label, #sheet-form legend')].map((l) => l.textContent);",
        )
        .await,
    )
    .unwrap();
    assert!(labels.iter().any(|l| l == "Ability ranking"), "{labels:?}");
    assert!(
        labels.iter().all(|l| !l.contains('_')),
        "a raw key as a label: {labels:?}"
    );

    // The names the rules know are menus, not free text (003-D4, D6, D7).
    let controls = script(
        client,
        "const out = {}; \
         for (const l of document.querySelectorAll('#sheet-form label')) { \
           const c = document.getElementById(l.htmlFor); \
           if (c) out[l.textContent] = [c.tagName, [...(c.options ?? [])].map((o) => o.textContent)]; \
         } \
         return out;",
    )
    .await;
    for (label, name) in [
        ("Archetype", "WARRIOR"),
        ("Personality", "REBEL"),
        ("Species", "HALFBLOOD"),
    ] {
        assert_eq!(controls[label][0], "SELECT", "{label}: {controls}");
        let options = controls[label][1].as_array().unwrap();
        assert!(options.iter().any(|o| o == name), "{label}: {controls}");
    }

    let help: Vec<String> = serde_json::from_value(
        script(
            client,
            "return [...document.querySelectorAll('#character-section .help')].map((h) => h.textContent);",
        )
        .await,
    )
    .unwrap();
    assert!(!help.is_empty());
    for text in &help {
        for markup in ["[`", "`]", "](", "crate::", "super::"] {
            assert!(!text.contains(markup), "{markup} in help: {text}");
        }
    }

    // The copy button puts the sheet on the clipboard as JSON (the clipboard is stood in for: a
    // headless browser has none).
    script(
        client,
        "window.copied = null; \
         Object.defineProperty(navigator, 'clipboard', { value: { writeText: async (t) => { window.copied = t; } } }); \
         return true;",
    )
    .await;
    click(client, "#sheet-copy").await;
    let mut copied = Value::Null;
    for _ in 0..50 {
        copied = script(client, "return window.copied;").await;
        if copied.is_string() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let sheet: Value = serde_json::from_str(copied.as_str().expect("copied text")).unwrap();
    // Seed 003's sheet is a character's creation choices (`{"create": …}`), or a finished sheet.
    assert!(sheet["create"]["archetype"].is_string(), "{sheet}");
    // The same JSON is a sheet the rules take.
    let checked = crate::post(
        &crate::app(),
        "/api/v1/rules/hprpg/sheets",
        None,
        serde_json::json!({ "sheet": sheet }),
    )
    .await;
    assert!(checked.status.is_success(), "{}", checked.json());

    click(client, "#sheet-download").await;
    let saved = wait_for(client, "#sheet-saved").await.text().await.unwrap();
    assert!(saved.contains("hprpg-sheet.json"), "{saved}");
    browser.client.close().await.expect("close");
}

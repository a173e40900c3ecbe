//! The warnings of seed 003's character creation (what the rules allow but find unusual) reach the
//! pages as they reach the API: beside a sheet check and a creation analysis on the games page, and
//! on a character's card at the table. The warning's words are worked out here from 003-A9: three
//! free archetype ability dots, one spent, leave 3 − 1 = 2 unspent.

use fantoccini::Client;
use serde_json::{Value, json};

use crate::browser::{assert_accessible, driver, open_table, server_and_api, session, until};
use crate::{get, post};

const WARNING: &str = "Warning: 2 of 3 free archetype ability dots unspent";

/// The texts of the warning lists' items under `selector`.
async fn warnings(client: &Client, selector: &str) -> Value {
    client
        .execute(
            "return [...document.querySelectorAll(arguments[0] + ' ul.warnings li')].map((li) => li.textContent);",
            vec![json!(selector)],
        )
        .await
        .expect("the script runs")
}

async fn wait_for_warnings(client: &Client, selector: &str, what: &str) {
    until(
        client,
        what,
        &format!(
            "return document.querySelectorAll({:?}).length > 0;",
            format!("{selector} ul.warnings li")
        ),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn creation_warnings_are_shown_on_the_games_page_and_at_the_table() {
    let Some(driver) = driver() else { return };
    let (address, api) = server_and_api().await;
    let rules = get(&api, "/api/v1/rules/hprpg", None).await.json();
    let mut sheet = rules["schemas"]["sheet"]["examples"][0].clone();
    sheet["create"]["archetype_abilities"] = json!({ "TACTICS": 1 });
    let mut inputs = rules["analyses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "create")
        .map(|a| a["inputs"]["examples"][0].clone())
        .expect("hprpg's create analysis has an example");
    inputs["choices"]["archetype_abilities"] = json!({ "TACTICS": 1 });

    // The games page, with the sheet and the creation inputs in its address.
    let browser = session(&driver).await;
    let client = &browser.client;
    client
        .goto(&format!("http://{address}/games"))
        .await
        .unwrap();
    client
        .execute(
            "location.hash = new URLSearchParams({ game: 'hprpg', sheet: JSON.stringify(arguments[0]),
               'a.create': JSON.stringify(arguments[1]) }).toString(); return true;",
            vec![sheet.clone(), inputs],
        )
        .await
        .unwrap();
    wait_for_warnings(client, "#sheet-problems", "the sheet check's warning").await;
    assert_eq!(warnings(client, "#sheet-problems").await, json!([WARNING]));
    // The sheet is still valid: a warning is said beside the verdict, never instead of it.
    until(
        client,
        "the sheet is valid",
        "return document.querySelector('#sheet-problems .valid') !== null;",
    )
    .await;
    let create = "section[aria-labelledby='a.create-heading']";
    wait_for_warnings(client, create, "the create analysis's warning").await;
    assert_eq!(warnings(client, create).await, json!([WARNING]));
    // Beside the answer, its notes: the personality's Asset and Flaw (003-D6) among them.
    let notes = client
        .execute(
            "return document.querySelector(arguments[0] + ' .notes')?.textContent ?? '';",
            vec![json!(create)],
        )
        .await
        .unwrap();
    assert!(
        notes.as_str().is_some_and(|n| n.contains("asset ")),
        "{notes}"
    );
    // The other analyses of the page warn of nothing: no list at all.
    let all = warnings(client, "#analyses").await;
    assert_eq!(all, json!([WARNING]), "{all}");
    assert_accessible(client, "the games page with warnings").await;

    // At the table: the character made from that sheet shows the warning on its card.
    let gm = post_character(&api, &sheet).await;
    client.goto("about:blank").await.unwrap();
    open_table(client, address, &gm).await;
    let card = "#characters article[aria-label='Rook']";
    wait_for_warnings(client, card, "the character's warning").await;
    assert_eq!(warnings(client, card).await, json!([WARNING]));
    browser.client.close().await.expect("close");
}

/// Campaign `Tak` with the hprpg character `Rook` made from `sheet`: the game master's token.
async fn post_character(api: &axum::Router, sheet: &Value) -> String {
    let made = post(api, "/api/v1/campaigns", None, json!({ "name": "Tak" })).await;
    let gm = made.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let character = post(
        api,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        json!({ "name": "Rook", "rule_set": "hprpg", "sheet": sheet }),
    )
    .await;
    assert!(character.status.is_success(), "{}", character.json());
    gm
}

//! A player reveals their own `self` roll from the table page: the page offers Reveal exactly where
//! the server allows it (a `self` roll to its roller alone, the game master's own included), and a
//! reveal reaches the other players' pages without a reload.

use axum::Router;
use axum::http::StatusCode;
use fantoccini::{Client, Locator};
use serde_json::{Value, json};

use crate::browser::{driver, open_table, server_and_api, session, until, wait_for};
use crate::{get, post};

/// A `self` roll of `expression` by the holder of `token` for `character`: the entry as its roller
/// was answered.
async fn self_roll(api: &Router, token: &str, character: &str, expression: &str) -> Value {
    let rolled = post(
        api,
        "/api/v1/campaigns/Tak/rolls",
        Some(token),
        json!({ "expression": expression, "character": character, "visibility": "self" }),
    )
    .await;
    assert_eq!(rolled.status, StatusCode::OK, "{}", rolled.json());
    rolled.json()["entry"].clone()
}

/// The number of Reveal buttons on the log item of entry `sequence`, once that item is shown.
async fn reveal_buttons(client: &Client, sequence: u64) -> usize {
    let item = wait_for(client, &format!("#log li[data-sequence='{sequence}']")).await;
    item.find_all(Locator::Css("button.reveal"))
        .await
        .unwrap()
        .len()
}

async fn item_text(client: &Client, sequence: u64) -> String {
    wait_for(client, &format!("#log li[data-sequence='{sequence}']"))
        .await
        .text()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn a_player_sees_reveal_on_their_own_self_roll_only_and_revealing_shows_it_to_others() {
    let Some(driver) = driver() else { return };
    let (address, api) = server_and_api().await;
    let sheet = json!({ "intrinsic": [] });
    let (gm, ayla) = crate::luck_table(&api, &["Ayla", "Bram"], &sheet).await;
    let invited = post(
        &api,
        "/api/v1/campaigns/Tak/invites",
        Some(&gm),
        json!({ "role": "player", "character": "Bram" }),
    )
    .await;
    let bram = invited.json()["token"].as_str().unwrap().to_string();

    let ayla_roll = self_roll(&api, &ayla, "Ayla", "3d6").await;
    let bram_roll = self_roll(&api, &bram, "Bram", "1d20").await;
    let ayla_seq = ayla_roll["sequence"].as_u64().unwrap();
    let bram_seq = bram_roll["sequence"].as_u64().unwrap();
    // The game master's own `self` roll, for no character.
    let gm_rolled = post(
        &api,
        "/api/v1/campaigns/Tak/rolls",
        Some(&gm),
        json!({ "expression": "1d4", "visibility": "self" }),
    )
    .await;
    assert_eq!(gm_rolled.status, StatusCode::OK, "{}", gm_rolled.json());
    let gm_seq = gm_rolled.json()["entry"]["sequence"].as_u64().unwrap();
    let ayla_summary = ayla_roll["summary"].as_str().unwrap().to_string();
    assert!(ayla_summary.contains("3d6"), "{ayla_summary}");

    let ayla_page = session(&driver).await;
    let bram_page = session(&driver).await;
    open_table(&ayla_page.client, address, &ayla).await;
    open_table(&bram_page.client, address, &bram).await;

    // Each player is offered Reveal on their own `self` roll and not on the other's, which they see
    // only as "?" (the server refuses such a reveal as if the entry did not exist).
    assert_eq!(reveal_buttons(&ayla_page.client, ayla_seq).await, 1);
    assert_eq!(reveal_buttons(&ayla_page.client, bram_seq).await, 0);
    assert_eq!(reveal_buttons(&bram_page.client, bram_seq).await, 1);
    assert_eq!(reveal_buttons(&bram_page.client, ayla_seq).await, 0);
    // The game master is offered Reveal on their own `self` roll only: a player's is its roller's
    // alone (the server answers the game master 403), and the players see the game master's as "?".
    let gm_page = session(&driver).await;
    open_table(&gm_page.client, address, &gm).await;
    assert_eq!(reveal_buttons(&gm_page.client, gm_seq).await, 1);
    for sequence in [ayla_seq, bram_seq] {
        assert_eq!(reveal_buttons(&gm_page.client, sequence).await, 0);
    }
    assert_eq!(reveal_buttons(&ayla_page.client, gm_seq).await, 0);
    assert_eq!(reveal_buttons(&bram_page.client, gm_seq).await, 0);
    let unseen = item_text(&bram_page.client, ayla_seq).await;
    assert!(!unseen.contains("3d6"), "{unseen}");
    assert!(unseen.contains('?'), "{unseen}");

    // Ayla reveals hers; Bram's page shows it without a reload, and Ayla's offers it no more.
    ayla_page
        .client
        .find(Locator::Css(&format!(
            "#log li[data-sequence='{ayla_seq}'] button.reveal"
        )))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let shown = serde_json::to_string(&ayla_summary).unwrap();
    until(
        &bram_page.client,
        "the revealed roll in the other player's page",
        &format!(
            "const li = document.querySelector(\"#log li[data-sequence='{ayla_seq}']\"); \
             return !!li && li.textContent.includes({shown});"
        ),
    )
    .await;
    until(
        &ayla_page.client,
        "no Reveal on a revealed roll",
        &format!(
            "const li = document.querySelector(\"#log li[data-sequence='{ayla_seq}']\"); \
             return !!li && !li.querySelector('button.reveal');"
        ),
    )
    .await;
    // Bram's own roll is still his alone, and still his to reveal.
    assert_eq!(reveal_buttons(&bram_page.client, bram_seq).await, 1);
    assert_eq!(reveal_buttons(&ayla_page.client, bram_seq).await, 0);

    // What the page did is the server's reveal: the log lists it for anyone, with the roll's result.
    let log = get(&api, "/api/v1/campaigns/Tak/log", Some(&bram))
        .await
        .json();
    let entry = log
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["sequence"] == ayla_seq)
        .unwrap();
    assert_eq!(entry["result"], ayla_roll["result"], "{entry}");
}

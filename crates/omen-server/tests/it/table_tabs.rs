//! The table page open in many tabs of one browser. A browser keeps at most six HTTP/1.1
//! connections to one server; a page that held an event stream of its own would leave the seventh
//! page unable to load. The pages of one member share one stream instead.

use std::time::Duration;

use fantoccini::Client;
use serde_json::json;

use crate::browser::{click, driver, open_table, server_and_api, session, until, wait_for};
use crate::post;

const TABS: usize = 8;

async fn live_page(client: &Client, address: std::net::SocketAddr) {
    client
        .goto(&format!("http://{address}/table"))
        .await
        .expect("the page loads (a page waiting for a free connection never does)");
    until(
        client,
        "the page follows the log",
        "return document.body.dataset.live === 'true';",
    )
    .await;
}

async fn roll(api: &axum::Router, token: &str) -> u64 {
    let rolled = post(
        api,
        "/api/v1/campaigns/Tak/characters/Ayla/actions",
        Some(token),
        json!({ "action": { "action": "roll", "event_modifier": 0 } }),
    )
    .await;
    rolled.json()["entry"]["sequence"]
        .as_u64()
        .expect("a logged roll")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn eight_tabs_of_one_table_all_load_and_follow_the_log_on_one_stream() {
    let Some(driver) = driver() else { return };
    let (address, api) = server_and_api().await;
    let sheet = json!({ "intrinsic": [] });
    let (gm_token, _player) = crate::luck_table(&api, &["Ayla", "Bram"], &sheet).await;
    let browser = session(&driver).await;
    let client = &browser.client;
    // A page left waiting for a connection fails the test in seconds, not at the driver's 300.
    let timeouts =
        fantoccini::wd::TimeoutConfiguration::new(None, Some(Duration::from_secs(60)), None);
    client.update_timeouts(timeouts).await.unwrap();
    open_table(client, address, &gm_token).await;
    let mut tabs = vec![client.window().await.unwrap()];
    for _ in 1..TABS {
        let tab = client.new_window(true).await.unwrap().handle;
        client.switch_to_window(tab.clone()).await.unwrap();
        live_page(client, address).await;
        tabs.push(tab);
    }

    // An entry made elsewhere reaches every tab.
    let sequence = roll(&api, &gm_token).await;
    for tab in &tabs {
        client.switch_to_window(tab.clone()).await.unwrap();
        wait_for(client, &format!("#log li[data-sequence='{sequence}']")).await;
    }

    // The last tab rolls from its own form: its request is not left waiting behind streams.
    client
        .switch_to_window(tabs[TABS - 1].clone())
        .await
        .unwrap();
    click(client, "#act-button").await;
    wait_for(client, "#roll-card .roll-card").await;
    let own = sequence + 1;
    for tab in &tabs {
        client.switch_to_window(tab.clone()).await.unwrap();
        wait_for(client, &format!("#log li[data-sequence='{own}']")).await;
    }

    // The tab that followed the log closes; another takes over, and nothing is missed.
    client.switch_to_window(tabs[0].clone()).await.unwrap();
    client.close_window().await.unwrap();
    let after = roll(&api, &gm_token).await;
    for tab in &tabs[1..] {
        client.switch_to_window(tab.clone()).await.unwrap();
        wait_for(client, &format!("#log li[data-sequence='{after}']")).await;
        until(
            client,
            "the page is live",
            "return document.body.dataset.live === 'true';",
        )
        .await;
    }
}

/// A table page left for another site can be kept whole in the back-forward cache, and its stream
/// with it unless the page closes it: after tables of several campaigns opened one after another in
/// one tab (each from an invite link followed from elsewhere), the next page's requests waited for a
/// free connection, a minute in Chromium. A page come back to follows its log again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn tables_opened_one_after_another_in_one_tab_leave_the_next_its_connections() {
    let Some(driver) = driver() else { return };
    let (address, api) = server_and_api().await;
    let mut tokens = Vec::new();
    for at in 1..TABS {
        let name = format!("c{at}");
        let made = post(&api, "/api/v1/campaigns", None, json!({ "name": name })).await;
        let token = made.json()["game_master"]["token"]
            .as_str()
            .map(str::to_string);
        tokens.push(token.expect("a game master's token"));
    }
    let sheet = json!({ "intrinsic": [] });
    let (gm_token, _player) = crate::luck_table(&api, &["Ayla"], &sheet).await;
    tokens.push(gm_token.clone());
    let browser = session(&driver).await;
    let client = &browser.client;
    // A page left waiting for a connection fails the test before the minute Chromium waits, with
    // room for a loaded machine.
    let timeouts =
        fantoccini::wd::TimeoutConfiguration::new(None, Some(Duration::from_secs(30)), None);
    client.update_timeouts(timeouts).await.unwrap();
    for token in &tokens {
        // Another site in between, as when an invite link is followed from a chat.
        client.goto("about:blank").await.expect("a blank page");
        open_table(client, address, token).await;
    }
    click(client, "#act-button").await;
    until(
        client,
        "the roll is answered",
        "return document.querySelector('#roll-card .roll-card') !== null;",
    )
    .await;

    // Away and back: the table follows its log again, whether the browser kept the page whole or
    // loads it anew.
    client.goto("about:blank").await.expect("a blank page");
    client.back().await.unwrap();
    until(
        client,
        "the table is shown again, following its log",
        "return location.pathname === '/table' && document.body.dataset.live === 'true';",
    )
    .await;
    let sequence = roll(&api, &gm_token).await;
    wait_for(client, &format!("#log li[data-sequence='{sequence}']")).await;
}

//! The table page's forms in a real browser, as a game night uses them: a value typed into an action
//! form survives everyone else's rolls, a player is offered only the actions they may take, and the
//! page reads as words (labels, one copy of each sheet, one number per log entry, an error without
//! the previous roll under it, a fairness chart whose labels never overlap).

use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use fantoccini::{Client, Locator};
use serde_json::{Value, json};

use crate::browser::{
    click, driver, input_in, open_table, server_and_api, session, until, wait_for,
};
use crate::{find_key, get, post};

async fn script(client: &Client, body: &str) -> Value {
    client.execute(body, vec![]).await.expect("the script runs")
}

async fn value(client: &Client, label: &str) -> String {
    input_in(client, "Inputs", label)
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default()
}

async fn type_value(client: &Client, label: &str, text: &str) {
    let input = input_in(client, "Inputs", label).await;
    input.clear().await.unwrap();
    input.send_keys(text).await.unwrap();
}

async fn newest(api: &Router, token: &str) -> Value {
    let log = get(api, "/api/v1/campaigns/Tak/log", Some(token))
        .await
        .json();
    log.as_array()
        .unwrap()
        .iter()
        .max_by_key(|e| e["sequence"].as_u64())
        .cloned()
        .expect("an entry")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn a_live_entry_never_resets_a_form_being_filled_in() {
    let Some(driver) = driver() else { return };
    let (address, api) = server_and_api().await;
    let sheet = json!({ "intrinsic": [{ "source": "halfling", "value": 2 }] });
    let (gm_token, player_token) = crate::luck_table(&api, &["Ayla", "Bram"], &sheet).await;

    let gm = session(&driver).await;
    let player = session(&driver).await;
    for (browser, token) in [(&gm, &gm_token), (&player, &player_token)] {
        open_table(&browser.client, address, token).await;
        wait_for(&browser.client, "#act-action option[value='roll']").await;
    }

    // The player is offered the roll only: luck's modifiers are set by the game master, and the
    // server refuses a player who tries. The game master is offered all three, with words for names.
    let offered = |client: &Client| {
        let client = client.clone();
        async move {
            script(
                &client,
                "return [...document.querySelectorAll('#act-action option')].map((o) => [o.value, o.textContent]);",
            )
            .await
        }
    };
    assert_eq!(offered(&player.client).await, json!([["roll", "Roll"]]));
    assert_eq!(
        offered(&gm.client).await,
        json!([
            ["roll", "Roll"],
            ["add-modifier", "Add modifier"],
            ["remove-modifier", "Remove modifier"]
        ])
    );

    // The same rule, on shapes no seed's rule set has yet: an optional field kept for the game
    // master is left out of a player's form (inside an object reached through `$ref` too, with the
    // default written beside the `$ref` kept), and a required one keeps the action from them.
    let shaped = player
        .client
        .execute_async(
            r##"const done = arguments[arguments.length - 1];
            import("/forms.js").then(({ playerVariant }) => {
              const defs = { Offers: { type: "object", properties: { extra: { type: "integer" }, note: { type: "string" } } } };
              const variant = {
                required: ["action", "die"],
                properties: {
                  action: { const: "roll" },
                  die: { type: "integer" },
                  secret: { type: "integer" },
                  offers: { $ref: "#/$defs/Offers", default: {} },
                },
              };
              const shown = playerVariant(variant, ["secret", "offers/extra"], defs);
              done({
                top: Object.keys(shown.properties),
                inner: Object.keys(shown.properties.offers.properties),
                fallback: shown.properties.offers.default,
                needed: playerVariant(variant, ["die"], defs),
                untouched: Object.keys(playerVariant(variant, [], defs).properties).length,
              });
            });"##,
            vec![],
        )
        .await
        .expect("the script runs");
    assert_eq!(
        shaped,
        json!({
            "top": ["action", "die", "offers"],
            "inner": ["note"],
            "fallback": {},
            "needed": null,
            "untouched": 4,
        })
    );

    // Each types a modifier, labelled in words (the key is `event_modifier`).
    type_value(&player.client, "Event modifier", "-5").await;
    type_value(&gm.client, "Event modifier", "-7").await;

    // Someone else rolls twice: a roll for another character (the game master's, through the API)
    // and one for the player's own character. Both pages show the entries live.
    for (character, modifier) in [("Bram", 3), ("Ayla", 1)] {
        let rolled = post(
            &api,
            &format!("/api/v1/campaigns/Tak/characters/{character}/actions"),
            Some(&gm_token),
            json!({ "action": { "action": "roll", "event_modifier": modifier } }),
        )
        .await;
        assert_eq!(rolled.status, StatusCode::OK, "{}", rolled.json());
        let sequence = rolled.json()["entry"]["sequence"].as_u64().unwrap();
        for client in [&gm.client, &player.client] {
            wait_for(client, &format!("#log li[data-sequence='{sequence}']")).await;
            // The sheets are redrawn after an entry; give the page the moment it takes.
            until(
                client,
                "the characters are reloaded",
                "return document.querySelectorAll('#characters article').length >= 1;",
            )
            .await;
        }
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(value(&player.client, "Event modifier").await, "-5");
    assert_eq!(value(&gm.client, "Event modifier").await, "-7");

    // The player's roll goes out with the value typed, not the default.
    click(&player.client, "#act-button").await;
    wait_for(&player.client, "#roll-card .roll-card").await;
    let entry = newest(&api, &gm_token).await;
    assert_eq!(entry["character"], "Ayla");
    assert_eq!(
        find_key(&entry["inputs"], "event_modifier"),
        Some(&json!(-5)),
        "{entry}"
    );
    // And the form keeps it for the next roll.
    assert_eq!(value(&player.client, "Event modifier").await, "-5");

    // Each log entry carries one number: the list's, which is the sequence number.
    let item = wait_for(
        &player.client,
        &format!("#log li[data-sequence='{}']", entry["sequence"]),
    )
    .await;
    let text = item.text().await.unwrap();
    assert!(!text.contains('#'), "{text}");
    assert_eq!(
        script(
            &player.client,
            &format!(
                "return document.querySelector(\"#log li[data-sequence='{}']\").value;",
                entry["sequence"]
            ),
        )
        .await,
        entry["sequence"]
    );

    // Each character's facts are shown once, under readable names (luck's state repeats its sheet).
    let terms = script(
        &gm.client,
        "return [...document.querySelectorAll('#characters article[aria-label=\"Ayla\"] > dl > dt')].map((dt) => dt.textContent);",
    )
    .await;
    let terms: Vec<String> = serde_json::from_value(terms).unwrap();
    let mut unique = terms.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), terms.len(), "{terms:?}");
    assert!(terms.iter().any(|t| t == "Intrinsic"), "{terms:?}");

    // A refused roll leaves no earlier card under its error.
    type_value(&player.client, "Event modifier", "99").await;
    click(&player.client, "#act-button").await;
    until(
        &player.client,
        "the refusal is shown",
        "return document.getElementById('act-error').textContent.includes('99');",
    )
    .await;
    assert_eq!(
        script(
            &player.client,
            "return document.querySelector('#roll-card').children.length;"
        )
        .await,
        0
    );

    // The fairness chart of the d50: x labels that never overlap, and a named y axis with ticks.
    click(&gm.client, "#fairness-button").await;
    wait_for(&gm.client, "#fairness svg.chart").await;
    let overlaps = script(
        &gm.client,
        "const boxes = [...document.querySelectorAll('#fairness svg.chart')].map((svg) => \
           [...svg.querySelectorAll('text.x-label')].map((t) => t.getBBox())); \
         let count = 0; \
         for (const chart of boxes) for (let i = 1; i < chart.length; i++) \
           if (chart[i].x < chart[i - 1].x + chart[i - 1].width) count++; \
         return [count, boxes.map((b) => b.length)];",
    )
    .await;
    assert_eq!(overlaps[0], 0, "{overlaps}");
    // The d50's fifty faces are labelled, thinned, but more than a handful.
    assert!(
        overlaps[1]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| (5..50).contains(&n.as_u64().unwrap())),
        "{overlaps}"
    );
    let axis = script(
        &gm.client,
        "const svg = document.querySelector('#fairness svg.chart'); \
         return [svg.querySelector('text.y-name').textContent, svg.querySelectorAll('text.y-label').length];",
    )
    .await;
    assert_eq!(axis[0], "rolls");
    assert!(axis[1].as_u64().unwrap() >= 2, "{axis}");

    for browser in [gm, player] {
        browser.client.find(Locator::Id("logout")).await.ok();
        browser.client.close().await.expect("close");
    }
}

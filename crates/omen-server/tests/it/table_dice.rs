//! Dice rolled at the table, entered on the table page by the game master: a box beside every action
//! that rolls, on the game master's page alone, read as whole numbers separated by spaces or
//! commas, checked before anything is sent, and logged as given. A live entry never empties it.
//!
//! The expected outcomes are worked out here from seed 002's rule (002-M1, M2, M4, M5): a d50 face
//! against the combined modifier m (intrinsic + event + karmic) is bad luck on 1..=10−m, good luck on
//! 41−m..=50 and no event between; and from seed 003's (003-M1, M2): a check rolls aspect + ability
//! d12s, each at or above the DV a success, each in the catastrophe range (1) a catastrophe.

use axum::Router;
use axum::http::StatusCode;
use fantoccini::{Client, Locator};
use serde_json::{Value, json};

use crate::browser::{
    assert_accessible, click, driver, input_in, open_table, server_and_api, session, until,
    wait_for,
};
use crate::{get, post};

async fn script(client: &Client, body: &str) -> Value {
    client.execute(body, vec![]).await.expect("the script runs")
}

async fn type_dice(client: &Client, text: &str) {
    let input = wait_for(client, "#act-dice").await;
    input.clear().await.unwrap();
    input.send_keys(text).await.unwrap();
}

async fn dice_box(client: &Client) -> String {
    wait_for(client, "#act-dice")
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default()
}

async fn log(api: &Router, token: &str) -> Vec<Value> {
    get(api, "/api/v1/campaigns/Tak/log", Some(token))
        .await
        .json()
        .as_array()
        .unwrap()
        .clone()
}

async fn head(api: &Router, token: &str) -> u64 {
    log(api, token)
        .await
        .iter()
        .filter_map(|e| e["sequence"].as_u64())
        .max()
        .unwrap_or(0)
}

/// Rolls on the game master's page and waits for the entry after `before` in the log.
async fn roll_and_wait(client: &Client, api: &Router, token: &str, before: u64) -> Value {
    click(client, "#act-button").await;
    let sequence = before + 1;
    wait_for(client, &format!("#log li[data-sequence='{sequence}']")).await;
    log(api, token)
        .await
        .into_iter()
        .find(|e| e["sequence"] == sequence)
        .expect("the new entry")
}

/// The text the page shows for a log entry.
async fn entry_text(client: &Client, sequence: u64) -> String {
    wait_for(client, &format!("#log li[data-sequence='{sequence}']"))
        .await
        .text()
        .await
        .unwrap()
}

/// The server's own words for a refused action: its problems, each with its hint, as the page
/// joins them.
fn worded(answer: &Value) -> String {
    answer["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| match p["help"].as_str() {
            Some(help) => format!("{} ({help})", p["message"].as_str().unwrap()),
            None => p["message"].as_str().unwrap().to_string(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

async fn act_error(client: &Client) -> String {
    script(
        client,
        "return document.getElementById('act-error').textContent;",
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_string()
}

/// A luck table on the page: the game master's browser and the player's (of Ayla), and the API.
struct Table {
    api: Router,
    gm_token: String,
    player_token: String,
    gm: Client,
    player: Client,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_game_master_enters_dice_rolled_at_the_table_and_the_log_shows_them_as_given() {
    let Some(driver) = driver() else { return };
    let (address, api) = server_and_api().await;
    // Both characters have a permanent intrinsic modifier of +2 (002-M4).
    let sheet = json!({ "intrinsic": [{ "source": "halfling", "value": 2 }] });
    let (gm_token, player_token) = crate::luck_table(&api, &["Ayla", "Bram"], &sheet).await;
    let gm = session(&driver).await;
    let player = session(&driver).await;
    for (browser, token) in [(&gm, &gm_token), (&player, &player_token)] {
        open_table(&browser.client, address, token).await;
        wait_for(&browser.client, "#act-action option[value='roll']").await;
    }
    let t = Table {
        api,
        gm_token,
        player_token,
        gm: gm.client.clone(),
        player: player.client.clone(),
    };
    a_players_page_has_no_dice_box(&t).await;
    the_box_stands_beside_the_actions_that_roll(&t).await;
    let sequence = given_dice_are_logged_as_given(&t).await;
    a_live_entry_keeps_the_dice_typed(&t, sequence).await;
    text_that_is_no_list_of_numbers_is_never_sent(&t).await;
    refusals_are_shown_as_the_server_words_them(&t).await;
    for browser in [gm, player] {
        browser.client.close().await.expect("close");
    }
}

async fn a_players_page_has_no_dice_box(t: &Table) {
    // The player's page has no such box, nor its words: the server refuses dice from a player.
    let offered = script(
        &t.player,
        "return [document.querySelectorAll('#act-dice, #act-dice-row').length, \
                 document.getElementById('act-form').textContent.includes('rolled at the table')];",
    )
    .await;
    assert_eq!(offered, json!([0, false]));
    let refused = post(
        &t.api,
        "/api/v1/campaigns/Tak/characters/Ayla/actions",
        Some(&t.player_token),
        json!({ "action": { "action": "roll" }, "dice": [38] }),
    )
    .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.json());
    assert_eq!(
        worded(&refused.json()),
        "only the game master gives dice: given dice are a chosen roll"
    );
}

async fn the_box_stands_beside_the_actions_that_roll(t: &Table) {
    // The game master's box stands beside an action that rolls, and is hidden beside one that does
    // not (adding a modifier rolls nothing), keeping what was typed.
    type_dice(&t.gm, "9").await;
    let shown = |client: &Client| {
        let client = client.clone();
        async move {
            script(
                &client,
                "return !document.getElementById('act-dice-row').hidden;",
            )
            .await
        }
    };
    assert_eq!(shown(&t.gm).await, json!(true));
    let menu = t.gm.find(Locator::Id("act-action")).await.unwrap();
    menu.clone().select_by_value("add-modifier").await.unwrap();
    assert_eq!(shown(&t.gm).await, json!(false));
    menu.select_by_value("roll").await.unwrap();
    assert_eq!(shown(&t.gm).await, json!(true));
    assert_eq!(dice_box(&t.gm).await, "9");
}

/// A roll with a 38 given, logged and shown as given: its entry's sequence number.
async fn given_dice_are_logged_as_given(t: &Table) -> u64 {
    // A roll of 38 with an event modifier of +3: m = 2 + 3 + 0 (no history yet) = +5, and good luck
    // starts at 41 − 5 = 36, so 38 is good luck (unmodified, 38 would be no event).
    let event = input_in(&t.gm, "Inputs", "Event modifier").await;
    event.clear().await.unwrap();
    event.send_keys("3").await.unwrap();
    type_dice(&t.gm, " 38 ").await;
    let before = head(&t.api, &t.gm_token).await;
    let entry = roll_and_wait(&t.gm, &t.api, &t.gm_token, before).await;
    assert_eq!(entry["character"], "Ayla");
    assert_eq!(entry["dice_given"], true, "{entry}");
    let faces = faces(&entry);
    assert_eq!(faces, [38]);
    assert_eq!(entry["result"]["modifier"], 5, "{entry}");
    assert_eq!(entry["result"]["outcome"], "good", "{entry}");
    let summary = "d50 = 38 with modifier +5 (karmic +0): good luck";
    assert_eq!(entry["summary"], summary);
    // The page's entry says the same, shows the die, and says it was rolled at the table; the
    // player's page, following the log, shows it so too, without the modifiers (luck keeps them for
    // the game master).
    let player_summary = "d50 = 38: good luck";
    for (client, summary) in [(&t.gm, summary), (&t.player, player_summary)] {
        let sequence = before + 1;
        wait_for(client, &format!("#log li[data-sequence='{sequence}']")).await;
        let text = entry_text(client, sequence).await;
        assert!(text.contains(summary), "{text}");
        assert!(text.contains("dice rolled at the table"), "{text}");
        let dice = script(
            client,
            &format!(
                "return [...document.querySelectorAll(\"#log li[data-sequence='{sequence}'] li.die\")].map((d) => d.textContent);"
            ),
        )
        .await;
        assert_eq!(dice, json!(["38"]));
    }
    // Dice are used once: the box is empty for the next roll.
    assert_eq!(dice_box(&t.gm).await, "");
    before + 1
}

/// Dice typed for Ayla's next roll, kept through an entry for Bram, then rolled: a 7 after the
/// good luck of entry `rolled`.
async fn a_live_entry_keeps_the_dice_typed(t: &Table, rolled: u64) {
    // Dice typed for the next roll survive an entry made meanwhile (a roll for Bram, through the
    // API), as every other input of the form does.
    type_dice(&t.gm, "7").await;
    let other = post(
        &t.api,
        "/api/v1/campaigns/Tak/characters/Bram/actions",
        Some(&t.gm_token),
        json!({ "action": { "action": "roll" } }),
    )
    .await;
    assert_eq!(other.status, StatusCode::OK, "{}", other.json());
    let sequence = other.json()["entry"]["sequence"].as_u64().unwrap();
    // Nothing came between Ayla's good luck and this: her history is a run of one good outcome.
    assert_eq!(sequence, rolled + 1);
    wait_for(&t.gm, &format!("#log li[data-sequence='{sequence}']")).await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(dice_box(&t.gm).await, "7");
    // A 7 after good luck: a run of one good outcome has a karmic modifier of 0 (002-M5), so m is
    // still +5 and bad luck ends at 10 − 5 = 5: 7 is no event (unmodified, it would be bad luck).
    let entry = roll_and_wait(&t.gm, &t.api, &t.gm_token, sequence).await;
    assert_eq!(entry["dice_given"], true, "{entry}");
    assert_eq!(entry["dice"][0]["face"], 7, "{entry}");
    assert_eq!(entry["result"]["outcome"], "neutral", "{entry}");
    let summary = "d50 = 7 with modifier +5 (karmic +0): no event";
    assert_eq!(entry["summary"], summary);
    assert!(entry_text(&t.gm, sequence + 1).await.contains(summary));
}

async fn text_that_is_no_list_of_numbers_is_never_sent(t: &Table) {
    // Text that is not a list of whole numbers is said beside the box, and nothing is sent.
    let before = head(&t.api, &t.gm_token).await;
    type_dice(&t.gm, "38 x").await;
    until(
        &t.gm,
        "the box says what is wrong",
        "return document.getElementById('act-dice-error').textContent.includes('“x” is not a whole number')
           && document.getElementById('act-dice').getAttribute('aria-invalid') === 'true';",
    )
    .await;
    click(&t.gm, "#act-button").await;
    until(
        &t.gm,
        "the roll is refused before it is sent",
        "return document.getElementById('act-error').textContent.includes('Not rolled');",
    )
    .await;
    assert_eq!(head(&t.api, &t.gm_token).await, before);
    assert_eq!(dice_box(&t.gm).await, "38 x");
    // The box, its help and its error are labelled and announced as axe-core expects.
    assert_accessible(&t.gm, "the table with dice rolled at the table").await;
    // The same box reads spaces and commas alike.
    let parsed =
        t.gm.execute_async(
            r#"const done = arguments[arguments.length - 1];
            import("/forms.js").then(({ integerList }) =>
              done(["3, 5 6", " -1,0 ,+1", "", "2.5"].map(integerList)));"#,
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(parsed[0], json!({ "values": [3, 5, 6] }));
    assert_eq!(parsed[1], json!({ "values": [-1, 0, 1] }));
    assert_eq!(parsed[2], json!({ "values": [] }));
    assert!(parsed[3]["error"].is_string(), "{parsed}");
}

async fn refusals_are_shown_as_the_server_words_them(t: &Table) {
    let before = head(&t.api, &t.gm_token).await;
    // What the rules refuse is shown as the server words it: a face no d50 has, and a die more than
    // the roll uses. Each is asked of the API too, with the same inputs, for its words.
    let refusals = [
        (
            json!([51]),
            "the scripted die 1 shows 51, which is not a face of d50",
        ),
        (
            json!([38, 12]),
            "1 given dice value(s) left unused: 12; give exactly the dice the action rolls",
        ),
    ];
    for (dice, expected) in refusals {
        let text = dice
            .as_array()
            .unwrap()
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        type_dice(&t.gm, &text).await;
        click(&t.gm, "#act-button").await;
        let answer = post(
            &t.api,
            "/api/v1/campaigns/Tak/characters/Ayla/actions",
            Some(&t.gm_token),
            json!({ "action": { "action": "roll", "event_modifier": 3 }, "dice": dice }),
        )
        .await;
        assert!(answer.status.is_client_error(), "{}", answer.json());
        let words = worded(&answer.json());
        assert_eq!(words, expected);
        for _ in 0..100 {
            if act_error(&t.gm).await == words {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert_eq!(act_error(&t.gm).await, words);
        // Refused, nothing is logged, and the dice stay in the box to mend.
        assert_eq!(head(&t.api, &t.gm_token).await, before);
        assert_eq!(dice_box(&t.gm).await, text);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn an_hprpg_check_takes_the_dice_given_in_order_and_says_when_they_run_out() {
    let Some(driver) = driver() else { return };
    let (address, api) = server_and_api().await;
    let made = post(&api, "/api/v1/campaigns", None, json!({ "name": "Tak" })).await;
    let gm_token = made.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let rules = get(&api, "/api/v1/rules/hprpg", None).await.json();
    let sheet = rules["schemas"]["sheet"]["examples"][0].clone();
    let character = post(
        &api,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm_token),
        json!({ "name": "Rook", "rule_set": "hprpg", "sheet": sheet }),
    )
    .await;
    assert_eq!(
        character.status,
        StatusCode::CREATED,
        "{}",
        character.json()
    );
    // The pool of a PERCEPTION + ALERTNESS check is the two ratings' dots (003-M1).
    let ratings = &character.json()["state"]["sheet"];
    let pool = ratings["aspects"]["PERCEPTION"].as_i64().unwrap()
        + ratings["abilities"]["ALERTNESS"].as_i64().unwrap();
    assert_eq!(pool, 6, "{ratings}");

    let browser = session(&driver).await;
    let client = &browser.client;
    open_table(client, address, &gm_token).await;
    fill_check(client).await;

    // Five dice for a pool of six: the server's words say they ran out, and nothing is logged.
    let before = head(&api, &gm_token).await;
    type_dice(client, "9 1 12 5 8").await;
    click(client, "#act-button").await;
    let action = json!({ "action": "check", "aspect": "PERCEPTION", "ability": "ALERTNESS", "difficulty": 8 });
    let answer = post(
        &api,
        "/api/v1/campaigns/Tak/characters/Rook/actions",
        Some(&gm_token),
        json!({ "action": action, "dice": [9, 1, 12, 5, 8] }),
    )
    .await;
    assert!(answer.status.is_client_error(), "{}", answer.json());
    let words = worded(&answer.json());
    assert!(words.contains("ran out after 5 dice"), "{words}");
    for _ in 0..100 {
        if act_error(client).await == words {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(act_error(client).await, words);
    assert_eq!(head(&api, &gm_token).await, before);

    // Six, typed with commas and spaces mixed, used in order. Against DV 8 with catastrophes at 1
    // (the default range): 9, 12 and 8 succeed, 1 is a catastrophe, 5 and 2 are neither, so
    // 3 successes − 1 catastrophe = net 2.
    type_dice(client, "9, 1 12,5  8 2").await;
    let entry = roll_and_wait(client, &api, &gm_token, before).await;
    assert_eq!(entry["dice_given"], true, "{entry}");
    let faces = faces(&entry);
    assert_eq!(faces, [9, 1, 12, 5, 8, 2]);
    let summary = entry["summary"].as_str().unwrap();
    let expected = "6d12 vs DV 8: 9-1-12-5-8-2 → 3 successes, 1 catastrophe, net 2";
    assert!(summary.starts_with(expected), "{summary}");
    let text = entry_text(client, before + 1).await;
    assert!(text.contains(expected), "{text}");
    assert!(text.contains("dice rolled at the table"), "{text}");
    browser.client.close().await.expect("close");
}

/// The check form filled in: PERCEPTION + ALERTNESS against DV 8.
async fn fill_check(client: &Client) {
    wait_for(client, "#act-action option[value='check']").await;
    client
        .find(Locator::Id("act-action"))
        .await
        .unwrap()
        .select_by_value("check")
        .await
        .unwrap();
    input_in(client, "Inputs", "Aspect")
        .await
        .select_by_value("\"PERCEPTION\"")
        .await
        .unwrap();
    for (label, value) in [("Ability", "ALERTNESS"), ("Difficulty", "8")] {
        let input = input_in(client, "Inputs", label).await;
        input.clear().await.unwrap();
        input.send_keys(value).await.unwrap();
    }
}

/// The faces of a logged entry's dice, in the order rolled.
fn faces(entry: &Value) -> Vec<i64> {
    entry["dice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["face"].as_i64().unwrap())
        .collect()
}

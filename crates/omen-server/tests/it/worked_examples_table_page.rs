//! The seeds' worked examples that are a character's actions with dice rolled at the table, on the
//! table page in a real browser, from the same fixture omen-cli and the API replay
//! (`fixtures/worked_examples.json`). Each example gets a campaign of its own, and its characters
//! are made through the API from the example's sheets as the API replay makes them (`--state
//! {state}` one character kept from step to step, made at its first step; a step without it a
//! character of its own). The game master's page is then opened, and each step is played there as
//! a person would: the character and the action are chosen from their menus, the form the page
//! builds from the action's schema is filled with the example's inputs, the example's dice (where it
//! gives some) are typed into the box for dice rolled at the table, and the roll is made. The
//! seed's figures are checked in what the page shows of the logged entry: the roll card shows the
//! entry's result and the character's state before and after as JSON, folded under a summary (the
//! summary line alone holds few of the figures: a spell's power, a price paid, a karmic modifier).
//! A step the seed refuses is checked in the page's error, in the server's words, with nothing
//! logged.
//!
//! The page is first held to the API: the entry it shows is the log's newest, the log's entry for it
//! holds every input the command line gave and the dice as given, and what the card shows is that
//! entry's result and states.
//!
//! Not replayed here: the examples with a step that is no action (analyses, on the games page) or
//! that asks for odds without rolling (on the games page's odds form, `worked_examples_odds_page`).

use axum::Router;
use axum::http::StatusCode;
use fantoccini::{Client, Locator};
use serde_json::{Value, json};

use crate::browser::{
    assert_accessible, driver, open_table, open_with_enter, server_and_api, session, until,
    wait_for,
};
use crate::worked_examples::{
    Holder, Request, examples, expectations, meets, of_seeds, replayed_all, request, words,
};
use crate::worked_examples_odds_page::give;
use crate::{get, post};

/// One example's campaign: its name and its game master's token.
struct Campaign {
    name: String,
    token: String,
}

impl Campaign {
    async fn new(api: &Router, name: &str) -> Campaign {
        let made = post(api, "/api/v1/campaigns", None, json!({ "name": name })).await;
        assert!(made.status.is_success(), "{}", made.json());
        let token = made.json()["game_master"]["token"]
            .as_str()
            .expect("the game master's token")
            .to_string();
        Campaign {
            name: name.to_string(),
            token,
        }
    }

    /// A character of `game` made from `sheet` (the empty sheet when none is given, as the command
    /// line makes one).
    async fn character(&self, api: &Router, game: &str, name: &str, sheet: Option<&Value>) {
        let sheet = sheet.cloned().unwrap_or_else(|| json!({}));
        let path = format!("/api/v1/campaigns/{}/characters", self.name);
        let body = json!({ "name": name, "rule_set": game, "sheet": sheet });
        let made = post(api, &path, Some(&self.token), body).await;
        assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    }

    /// The log, as the game master reads it through the API.
    async fn log(&self, api: &Router) -> Vec<Value> {
        let path = format!("/api/v1/campaigns/{}/log", self.name);
        let log = get(api, &path, Some(&self.token)).await.json();
        log.as_array().expect("the log").clone()
    }

    async fn head(&self, api: &Router) -> u64 {
        let log = self.log(api).await;
        log.iter()
            .filter_map(|e| e["sequence"].as_u64())
            .max()
            .unwrap_or(0)
    }
}

/// One step of an example: the action, whose character, and how it is rolled.
struct Step {
    game: String,
    action: Value,
    holder: Holder,
    /// The character the step is for.
    character: String,
    expect: Vec<(String, String, Value)>,
    /// The words of the refusal the seed expects, for a step it refuses.
    refused: Option<String>,
}

/// The example's steps as actions that roll or change a character (none asking for odds), or
/// `None` when any step is not one.
fn action_steps(rules: &[Value], example: &Value) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    for (at, step) in example["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .enumerate()
    {
        let Request::Action {
            game,
            action,
            holder,
        } = request(rules, &words(step))
        else {
            return None;
        };
        if holder.odds {
            return None;
        }
        let character = if holder.kept {
            "state".to_string()
        } else {
            format!("one-off-{}", at + 1)
        };
        steps.push(Step {
            game,
            action,
            holder,
            character,
            expect: expectations(step),
            refused: step["stderr"].as_str().map(str::to_string),
        });
    }
    Some(steps)
}

/// Makes every character the steps use, before the page opens: the kept one from the sheet of the
/// first step that gives one, each other from its own step's.
async fn make_characters(api: &Router, campaign: &Campaign, steps: &[Step]) {
    let mut made: Vec<&str> = Vec::new();
    for step in steps {
        if made.contains(&step.character.as_str()) {
            assert!(
                step.holder.sheet.is_none(),
                "a sheet for a character that exists: the command line refuses it"
            );
            continue;
        }
        let sheet = step.holder.sheet.as_ref();
        campaign
            .character(api, &step.game, &step.character, sheet)
            .await;
        made.push(&step.character);
    }
}

/// Chooses `value` in the menu `id` (which draws the form anew when it changes).
async fn choose(client: &Client, id: &str, value: &str) {
    wait_for(client, &format!("#{id} option[value='{value}']")).await;
    client
        .find(Locator::Id(id))
        .await
        .expect("the menu")
        .select_by_value(value)
        .await
        .unwrap_or_else(|e| panic!("{id}: no {value}: {e}"));
}

/// The step's form on the page, drawn afresh (so no value of a step before is left in it) and
/// filled with the step's inputs and dice.
async fn fill(client: &Client, step: &Step) {
    choose(client, "act-character", &step.character).await;
    let tag = step.action["action"].as_str().expect("an action tag");
    choose(client, "act-action", tag).await;
    until(
        client,
        "the action's form is drawn",
        "return document.querySelector('#act-fields legend') !== null;",
    )
    .await;
    for (key, value) in step.action.as_object().expect("an action") {
        if key != "action" {
            give(client, "#act-form", vec!["Inputs".into()], key, value).await;
        }
    }
    if let Some(dice) = &step.holder.dice {
        let text = dice
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let input = wait_for(client, "#act-dice").await;
        input.clear().await.expect("clear");
        input.send_keys(&text).await.expect("type the dice");
    }
}

/// What the page shows after the roll: the roll card's entry number and JSON, or the error.
const SHOWN: &str = "const card = document.querySelector('#roll-card article.roll-card'); \
    const block = card && card.querySelector('details.entry-json > pre'); \
    return [card ? card.getAttribute('aria-label') : null, \
            block ? JSON.parse(block.textContent) : null, \
            document.getElementById('act-error').textContent];";

/// Waits a few seconds for the page to show the card of entry `sequence` (with its JSON) or an
/// error: the card's JSON, or the error's words; `None` when it shows neither yet.
async fn outcome(client: &Client, sequence: u64) -> Option<Result<Value, String>> {
    let label = format!("roll {sequence}");
    for _ in 0..200 {
        let found = client.execute(SHOWN, vec![]).await.expect("the card");
        if found[0] == label.as_str() && !found[1].is_null() {
            return Some(Ok(found[1].clone()));
        }
        if let Some(error) = found[2].as_str().filter(|e| !e.is_empty()) {
            return Some(Err(error.to_string()));
        }
        tokio::time::sleep(crate::browser::POLL).await;
    }
    None
}

/// Presses Roll and answers what the page shows.
async fn roll(
    client: &Client,
    api: &Router,
    campaign: &Campaign,
    before: u64,
) -> Result<Value, String> {
    client
        .find(Locator::Id("act-button"))
        .await
        .expect("the roll button")
        .click()
        .await
        .expect("roll");
    for _ in 0..6 {
        if let Some(shown) = outcome(client, before + 1).await {
            return shown;
        }
    }
    let head = campaign.head(api).await;
    panic!(
        "{}: the page shows no entry nor error; the log's head is {head} (was {before})",
        campaign.name
    );
}

/// `value` with every leaf of `given` in it (objects compared by the keys given).
fn holds(value: &Value, given: &Value) -> bool {
    match (value, given) {
        (Value::Object(value), Value::Object(given)) => given
            .iter()
            .all(|(key, item)| value.get(key).is_some_and(|v| holds(v, item))),
        _ => value == given,
    }
}

/// Plays one step on the game master's page and checks the seed's figures in what it shows.
async fn replay(client: &Client, api: &Router, campaign: &Campaign, step: &Step) {
    let id = &campaign.name;
    fill(client, step).await;
    let before = campaign.head(api).await;
    let shown = roll(client, api, campaign, before).await;
    if let Some(says) = &step.refused {
        let error = shown.expect_err("the seed refuses the step");
        assert!(
            error.contains(says.as_str()),
            "{id}: {error:?} says no {says:?}"
        );
        assert_eq!(
            campaign.head(api).await,
            before,
            "{id}: a refusal is logged"
        );
        return;
    }
    let shown = shown.unwrap_or_else(|e| panic!("{id}: the page refused the step: {e}"));
    // Held to the API: the log's entry holds every input given and the dice as given, and the card
    // shows its result and states.
    let log = campaign.log(api).await;
    let entry = log
        .iter()
        .find(|e| e["sequence"] == before + 1)
        .unwrap_or_else(|| panic!("{id}: no entry {}", before + 1));
    assert_eq!(entry["character"], step.character.as_str(), "{id}: {entry}");
    assert!(
        holds(&entry["inputs"]["action"], &step.action),
        "{id}: sent {entry}, given {}",
        step.action
    );
    if let Some(dice) = &step.holder.dice {
        let faces: Vec<i64> = entry["dice"]
            .as_array()
            .expect("dice")
            .iter()
            .map(|d| d["face"].as_i64().expect("a face"))
            .collect();
        assert_eq!(&faces, dice, "{id}: {entry}");
        assert_eq!(entry["dice_given"], true, "{id}: {entry}");
    }
    for part in ["result", "state_before", "state_after"] {
        assert_eq!(shown.get(part), entry.get(part), "{id}: the card's {part}");
    }
    for (pointer, op, wanted) in &step.expect {
        if let Err(why) = meets(&shown, pointer, op, wanted) {
            panic!("{id}: the page shows {why}");
        }
    }
}

/// Plays on the table page, by the game master with the seed's dice, every worked example of a
/// character's actions from the seeds `seeds` (`"003"`), and answers the examples played (`None`
/// when the browser tests are skipped on purpose); with `keyboard`, the first card's JSON is opened
/// from the keyboard and checked for accessibility. Each
/// seed's examples are a test of their own, so that the longest tests of the suite share its
/// threads rather than end it one after another.
async fn replay_seeds(seeds: &[&str], keyboard: bool) -> Option<Vec<String>> {
    let driver = driver()?;
    let (address, api) = server_and_api().await;
    let rules = get(&api, "/api/v1/rules", None).await.json();
    let rules = rules.as_array().expect("the rule sets").clone();
    // One browser for every campaign (a session costs half a second to start), each campaign's
    // table opened in the same tab after a blank page, as an invite link followed from elsewhere:
    // the page before closes its stream of the log as it is left (`table_tabs`).
    let browser = session(&driver).await;
    let client = &browser.client;
    let mut replayed = Vec::new();
    for example in examples() {
        let id = example["id"].as_str().expect("an id").to_string();
        if !of_seeds(&id, seeds) {
            continue;
        }
        let Some(steps) = action_steps(&rules, &example) else {
            continue;
        };
        let campaign = Campaign::new(&api, &id).await;
        make_characters(&api, &campaign, &steps).await;
        client.goto("about:blank").await.expect("a blank page");
        open_table(client, address, &campaign.token).await;
        for step in &steps {
            replay(client, &api, &campaign, step).await;
        }
        if keyboard && replayed.is_empty() {
            the_entry_json_opens_from_the_keyboard(client).await;
        }
        replayed.push(id);
    }
    browser.client.close().await.expect("close");
    eprintln!(
        "{} worked examples replayed on the table page: {}",
        replayed.len(),
        replayed.join(", ")
    );
    Some(replayed)
}

/// Seed 000's deciphering, 001-M2's spell-dice cast, 002-M5's thirteen steps of karma; the card's
/// JSON opened from the keyboard.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_table_page_replays_seeds_000_to_002s_worked_examples_of_a_characters_actions() {
    let Some(replayed) = replay_seeds(&["000", "001", "002"], true).await else {
        return;
    };
    let required = [
        "000-decipher-then-unknown",
        "001-third-level-caster",
        "002-thirteen-steps",
    ];
    replayed_all(&replayed, &required, 4, "table page");
}

/// Seed 003's checks, casts and resistances.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_table_page_replays_seed_003s_worked_examples_of_a_characters_actions() {
    let Some(replayed) = replay_seeds(&["003"], false).await else {
        return;
    };
    let required = [
        "003-dumbledore-dv12",
        "003-jane-fire-bolt",
        "003-whomping-willow",
    ];
    replayed_all(&replayed, &required, 8, "table page");
}

/// Seed 004's prices and spent levels.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_table_page_replays_seed_004s_worked_examples_of_a_characters_actions() {
    let Some(replayed) = replay_seeds(&["004"], false).await else {
        return;
    };
    let required = ["004-crisis-does-not-cancel", "004-artefact-price"];
    replayed_all(&replayed, &required, 4, "table page");
}

/// The roll card's JSON opens from the keyboard (Enter on its summary, which takes focus as any
/// control does), and the page with it open passes axe-core.
async fn the_entry_json_opens_from_the_keyboard(client: &Client) {
    let selector = "#roll-card details.entry-json > summary";
    let summary = wait_for(client, selector).await;
    open_with_enter(client, summary, selector, "the card's JSON").await;
    assert_accessible(client, "the table with a roll card's JSON open").await;
}

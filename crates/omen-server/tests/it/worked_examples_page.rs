//! The seeds' worked examples on the games page in a real browser, from the same fixture omen-cli
//! and the API replay (`fixtures/worked_examples.json`): each example whose steps are analyses
//! (seed 003's contest, working together and passive perception among them, seed 000's Lore and
//! Essence checks, the luck ranges) is typed into the form the page builds from the analysis's
//! schema, and the seed's figures are checked in what the page shows: the tables, and for an
//! analysis answered with JSON of its own, that JSON, which the page shows folded under "JSON"
//! beside the tables. The page is first held to the API: what it shows is the API's answer to the
//! inputs it sent, and those hold every value the command line gave.
//!
//! Not replayed here: the actions. A character's actions with dice rolled at the table are replayed
//! on the table page (`worked_examples_table_page`), the odds of a sheet's action on this page's
//! odds form (`worked_examples_odds_page`).

use fantoccini::elements::Element;
use fantoccini::{Client, Locator};
use serde_json::{Value, json};

use crate::browser::{
    assert_accessible, driver, open_with_enter, server_and_api, session, wait_for,
};
use crate::worked_examples::{
    Request, api_pointer, examples, expectations, meets, of_seeds, replayed_all, request, words,
};

/// The section of the analysis `name`, as a CSS selector.
fn section(name: &str) -> String {
    format!("section[aria-labelledby=\"a.{name}-heading\"]")
}

/// A field's label as the page writes it (forms.js `humanise`): `resistor_pool` as "Resistor
/// pool"; names from a seed (`FITNESS`) keep their case.
pub(crate) fn label(key: &str) -> String {
    let words = key
        .split(['_', '-'])
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if words == words.to_lowercase() {
        let mut chars = words.chars();
        chars.next().map_or_else(String::new, |first| {
            first.to_uppercase().collect::<String>() + chars.as_str()
        })
    } else {
        words
    }
}

/// Gives `value` to the field `key` of the analysis `name`'s form, as a person would: types into a
/// number box or a list box, picks from a menu, ticks a box.
async fn fill(client: &Client, name: &str, key: &str, value: &Value) {
    let path = format!(
        "//section[h3='{name}']//label[normalize-space(text())='{}']",
        label(key)
    );
    let id = client
        .find(Locator::XPath(&path))
        .await
        .unwrap_or_else(|e| panic!("{name}: no field {key} ({path}): {e}"))
        .attr("for")
        .await
        .expect("for")
        .expect("a label for a control");
    set_control(client, &id, value).await;
}

/// The key under which WebDriver hands a script's element back (the W3C standard's identifier).
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A form control in one look: the element, its tag and type, whether it holds JSON, and what it
/// shows now (a box's text, a menu's chosen value, a tick box's state). Each look is a round trip
/// to the browser, about 20 ms in a debug build, and the worked examples fill a few hundred fields.
const CONTROL: &str = "const c = document.getElementById(arguments[0]); \
    const type = c.getAttribute('type'); \
    return [c, c.tagName.toLowerCase(), type, c.hasAttribute('data-json'), \
            type === 'checkbox' ? c.checked : c.value];";

/// Gives `value` to the form control `id` as a person would: types into a number box, a text box
/// or a list box (numbers separated by commas, lines, or JSON where the page asks for JSON), picks
/// from a menu, ticks a box. A control that already shows the value is left alone, as a person
/// would leave it.
pub(crate) async fn set_control(client: &Client, id: &str, value: &Value) {
    let about = client
        .execute(CONTROL, vec![json!(id)])
        .await
        .expect("the control");
    let element = about[0]
        .get(ELEMENT_KEY)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{id}: no such control: {about}"));
    let control = Element::from_element_id(client.clone(), element.to_string().into());
    let tag = about[1].as_str().expect("a tag").to_string();
    let kind = about[2].as_str().map(str::to_string);
    let json = about[3].as_bool().expect("data-json");
    let shown = &about[4];
    let text = match value {
        _ if json => value.to_string(),
        Value::Array(items) if tag == "textarea" => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map_or_else(|| item.to_string(), str::to_string)
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Array(items) => items
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match (tag.as_str(), kind.as_deref(), value) {
        ("select", _, value) => {
            // A menu's values are JSON (`"INTELLIGENCE"`, `true`).
            if shown.as_str() == Some(value.to_string().as_str()) {
                return;
            }
            let option = format!("option[value='{value}']");
            control
                .find(Locator::Css(&option))
                .await
                .unwrap_or_else(|e| panic!("{id} offers no {value}: {e}"))
                .click()
                .await
                .expect("choose");
        }
        ("input", Some("checkbox"), Value::Bool(wanted)) => {
            if shown.as_bool() != Some(*wanted) {
                control.click().await.expect("tick");
            }
        }
        ("input" | "textarea", _, _) => {
            if shown.as_str() == Some(text.as_str()) {
                return;
            }
            control.clear().await.expect("clear");
            control.send_keys(&text).await.expect("type");
        }
        other => panic!("{id}: no way to give {other:?}"),
    }
}

/// What the analysis `name` shows, as the API's answer is written (`{"tables": [{caption, columns,
/// rows}], "json": …}`, the JSON read back from the block the page shows it in, left out when
/// there is none), and the inputs it last sent (the page keeps them in the address), in one script
/// so a redraw is read whole, before or after.
async fn shown(client: &Client, name: &str) -> (Value, Value, bool) {
    let script = "const output = document.querySelector(arguments[0] + ' .analysis-output'); \
        const text = (node) => node.textContent.trim(); \
        const tables = [...output.querySelectorAll('table')].map((t) => ({ \
            caption: t.caption ? text(t.caption) : '', \
            columns: [...t.querySelectorAll('thead th')].map(text), \
            rows: [...t.querySelectorAll('tbody tr')].map((r) => [...r.cells].map(text)) })); \
        const block = output.querySelector('details.answer-json > pre'); \
        const json = block === null ? null : JSON.parse(block.textContent); \
        const sent = new URLSearchParams(location.hash.slice(1)).get(arguments[1]); \
        return [{ tables, json }, sent === null ? null : JSON.parse(sent), output.hasAttribute('aria-busy')];";
    let found = client
        .execute(
            script,
            vec![json!(section(name)), json!(format!("a.{name}"))],
        )
        .await
        .expect("the analysis's output");
    let [tables, sent, busy] = found.as_array().expect("three values").as_slice() else {
        panic!("three values: {found}")
    };
    let mut page = tables.clone();
    if page["json"].is_null() {
        // No block: the answer had no JSON of its own, as the API leaves the field out.
        page.as_object_mut().expect("an object").remove("json");
    }
    (page, sent.clone(), busy == &Value::Bool(true))
}

/// Whether every value given is among the inputs the page sent.
fn sent_all(given: &Value, sent: &Value) -> bool {
    given
        .as_object()
        .expect("inputs")
        .iter()
        .all(|(key, value)| sent.get(key) == Some(value))
}

/// Replays one analysis step on the page: fills the form, waits until the page shows the API's
/// answer to what it sent (which holds every value given), and checks the seed's figures there.
async fn replay(
    client: &Client,
    api: &axum::Router,
    id: &str,
    (game, name, inputs): (&str, &str, &Value),
    step: &Value,
) {
    for (key, value) in inputs.as_object().expect("inputs") {
        fill(client, name, key, value).await;
    }
    let mut last = String::new();
    for _ in 0..1200 {
        let (page, sent, busy) = shown(client, name).await;
        if !busy && sent_all(inputs, &sent) {
            let path = format!("/api/v1/rules/{game}/analyses/{name}");
            let answer = crate::post(api, &path, None, sent.clone()).await.json();
            if page["tables"] == answer["tables"] && page.get("json") == answer.get("json") {
                let asked = Request::Analysis {
                    game: game.to_string(),
                    name: name.to_string(),
                    inputs: inputs.clone(),
                };
                for (pointer, op, wanted) in expectations(step) {
                    let at = api_pointer(&asked, &page, &pointer);
                    if let Err(why) = meets(&page, &at, &op, &wanted) {
                        panic!("{id}: the page shows {why}");
                    }
                }
                return;
            }
            last = format!("sent {sent}, shows {page}, the API answers {answer}");
        } else {
            last = format!("sent {sent} (busy: {busy}), given {inputs}");
        }
        tokio::time::sleep(crate::browser::POLL).await;
    }
    panic!("{id}: the page never showed the answer to its inputs: {last}");
}

/// Types into the games page every worked example of an analysis from the seeds `seeds` (`"003"`),
/// and answers the examples replayed (`None` when the browser tests are skipped on purpose). With
/// `keyboard`, the first analysis that shows JSON of its own has it opened from the keyboard and
/// checked for accessibility, and there must be one. Each group of seeds is a test of its
/// own, so that the longest tests of the suite share its threads rather than end it one after
/// another.
async fn replay_analyses(seeds: &[&str], keyboard: bool) -> Option<Vec<String>> {
    let driver = driver()?;
    let (address, api) = server_and_api().await;
    let rules = crate::get(&api, "/api/v1/rules", None).await.json();
    let rules = rules.as_array().expect("the rule sets").clone();
    let browser = session(&driver).await;
    let client = &browser.client;
    let mut replayed = Vec::new();
    let mut json_checked = !keyboard;
    for example in examples() {
        let id = example["id"].as_str().expect("an id").to_string();
        if !of_seeds(&id, seeds) {
            continue;
        }
        let steps = example["steps"].as_array().expect("steps");
        // Every analysis: its tables, and its JSON where it has one, are on the page.
        let on_page = steps
            .iter()
            .all(|step| matches!(request(&rules, &words(step)), Request::Analysis { .. }));
        if !on_page {
            continue;
        }
        for step in steps {
            let Request::Analysis { game, name, inputs } = request(&rules, &words(step)) else {
                unreachable!("only analyses are replayed here")
            };
            // A fresh page for each step: no value of the step before is left in a form.
            client.goto("about:blank").await.expect("a blank page");
            client
                .goto(&format!("http://{address}/games#game={game}"))
                .await
                .expect("the games page");
            // The first answer, to the form's defaults (a table, or the problems with them).
            wait_for(client, &format!("{} .analysis-output > *", section(&name))).await;
            replay(client, &api, &id, (&game, &name, &inputs), step).await;
            if !json_checked {
                json_checked = the_json_opens_from_the_keyboard(client, &name).await;
            }
        }
        replayed.push(id);
    }
    eprintln!(
        "{} worked examples replayed on the page: {}",
        replayed.len(),
        replayed.join(", ")
    );
    assert!(json_checked, "no analysis showed JSON of its own");
    browser.client.close().await.expect("close");
    Some(replayed)
}

/// 000's Lore and Essence checks and 001's extremes of spell dice, typed into the games page; an
/// analysis's JSON opened from the keyboard.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_games_page_replays_seeds_000_and_001s_worked_examples_of_its_analyses() {
    let Some(replayed) = replay_analyses(&["000", "001"], true).await else {
        return;
    };
    let required = [
        "000-lore-one-die",
        "000-lore-zero-pool",
        "000-lore-trivial",
        "000-essence-two-dice-nine",
    ];
    replayed_all(&replayed, &required, 8, "page");
}

/// 002's luck ranges, 003-M24 (contests), 003-M25 (working together) and 003-M27 (passive
/// perception), typed into the games page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_games_page_replays_seeds_002_and_003s_worked_examples_of_its_analyses() {
    let Some(replayed) = replay_analyses(&["002", "003"], false).await else {
        return;
    };
    let required = [
        "002-default-ranges",
        "002-plus-two",
        "002-minus-two",
        "002-plus-forty",
        "003-bruce-shoves",
        "003-bruce-and-jane",
        "003-jane-alert",
    ];
    replayed_all(&replayed, &required, 7, "page");
}

/// Whether the analysis `name` shows a JSON block; if so, it is opened from the keyboard (Enter on
/// its summary, which takes focus as any control does) and the page with it open passes axe-core.
async fn the_json_opens_from_the_keyboard(client: &Client, name: &str) -> bool {
    let selector = format!("{} details.answer-json > summary", section(name));
    let Ok(summary) = client.find(Locator::Css(&selector)).await else {
        return false;
    };
    open_with_enter(client, summary, &selector, &format!("{name}'s JSON")).await;
    assert_accessible(client, "the games page with an analysis's JSON open").await;
    true
}

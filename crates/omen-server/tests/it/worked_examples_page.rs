//! The seeds' worked examples on the games page in a real browser, from the same fixture omen-cli
//! and the API replay (`fixtures/worked_examples.json`): each example whose steps are analyses
//! answered in tables (seed 003's contest, working together and passive perception among them) is
//! typed into the form the page builds from the analysis's schema, and the seed's figures are
//! checked in the tables the page shows. The page is first held to the API: what it shows is the
//! API's answer to the inputs it sent, and those hold every value the command line gave.
//!
//! Not replayed here, and why:
//! * the analyses answered with JSON of their own (seed 000's Lore and Essence checks, the luck
//!   ranges): the page shows their tables, and the seed's figures are fields of the JSON;
//! * the actions (the rest): a character's actions with dice rolled at the table belong to the
//!   table page, for a campaign's characters; the API replay covers them.

use fantoccini::{Client, Locator};
use serde_json::{Value, json};

use crate::browser::{driver, server_and_api, session, wait_for};
use crate::worked_examples::{Request, examples, expectations, meets, request, words};

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

/// Gives `value` to the form control `id` as a person would: types into a number box, a text box
/// or a list box (numbers separated by commas, lines, or JSON where the page asks for JSON), picks
/// from a menu, ticks a box.
pub(crate) async fn set_control(client: &Client, id: &str, value: &Value) {
    let control = client.find(Locator::Id(id)).await.expect("the control");
    let tag = control.tag_name().await.expect("a tag");
    let kind = control.attr("type").await.expect("a type");
    let json = control
        .attr("data-json")
        .await
        .expect("data-json")
        .is_some();
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
            if control.is_selected().await.expect("checked") != *wanted {
                control.click().await.expect("tick");
            }
        }
        ("input" | "textarea", _, _) => {
            control.clear().await.expect("clear");
            control.send_keys(&text).await.expect("type");
        }
        other => panic!("{id}: no way to give {other:?}"),
    }
}

/// What the analysis `name` shows, as the API's answer is written (`{"tables": [{caption, columns,
/// rows}]}`), and the inputs it last sent (the page keeps them in the address), in one script so a
/// redraw is read whole, before or after.
async fn shown(client: &Client, name: &str) -> (Value, Value, bool) {
    let script = "const output = document.querySelector(arguments[0] + ' .analysis-output'); \
        const text = (node) => node.textContent.trim(); \
        const tables = [...output.querySelectorAll('table')].map((t) => ({ \
            caption: t.caption ? text(t.caption) : '', \
            columns: [...t.querySelectorAll('thead th')].map(text), \
            rows: [...t.querySelectorAll('tbody tr')].map((r) => [...r.cells].map(text)) })); \
        const sent = new URLSearchParams(location.hash.slice(1)).get(arguments[1]); \
        return [{ tables }, sent === null ? null : JSON.parse(sent), output.hasAttribute('aria-busy')];";
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
    (tables.clone(), sent.clone(), busy == &Value::Bool(true))
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
    for _ in 0..300 {
        let (page, sent, busy) = shown(client, name).await;
        if !busy && sent_all(inputs, &sent) {
            let path = format!("/api/v1/rules/{game}/analyses/{name}");
            let answer = crate::post(api, &path, None, sent.clone()).await.json();
            if page["tables"] == answer["tables"] {
                for (pointer, op, wanted) in expectations(step) {
                    if let Err(why) = meets(&page, &pointer, &op, &wanted) {
                        panic!("{id}: the page shows {why}");
                    }
                }
                return;
            }
            last = format!("sent {sent}, shows {page}, the API answers {answer}");
        } else {
            last = format!("sent {sent} (busy: {busy}), given {inputs}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{id}: the page never showed the answer to its inputs: {last}");
}

/// 003-M24 (contests), 003-M25 (working together), 003-M27 (passive perception) and the other
/// analyses' examples, typed into the games page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_games_page_replays_the_seeds_worked_examples_of_its_analyses() {
    let Some(driver) = driver() else { return };
    let (address, api) = server_and_api().await;
    let rules = crate::get(&api, "/api/v1/rules", None).await.json();
    let rules = rules.as_array().expect("the rule sets").clone();
    let browser = session(&driver).await;
    let client = &browser.client;
    let mut replayed = Vec::new();
    for example in examples() {
        let id = example["id"].as_str().expect("an id").to_string();
        let steps = example["steps"].as_array().expect("steps");
        // The page's analyses answer in tables: the examples whose figures are in tables.
        let on_page = steps.iter().all(|step| {
            matches!(request(&rules, &words(step)), Request::Analysis { .. })
                && expectations(step)
                    .iter()
                    .all(|(pointer, _, _)| pointer.starts_with("/tables/"))
        });
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
            wait_for(
                client,
                &format!("{} .analysis-output table", section(&name)),
            )
            .await;
            replay(client, &api, &id, (&game, &name, &inputs), step).await;
        }
        replayed.push(id);
    }
    for required in ["003-bruce-shoves", "003-bruce-and-jane", "003-jane-alert"] {
        assert!(
            replayed.iter().any(|id| id == required),
            "{required} is not replayed on the page: {replayed:?}"
        );
    }
    eprintln!(
        "{} worked examples replayed on the page: {}",
        replayed.len(),
        replayed.join(", ")
    );
    browser.client.close().await.expect("close");
}

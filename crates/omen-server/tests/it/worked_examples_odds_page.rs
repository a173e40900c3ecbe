//! The seeds' worked examples that ask for the odds of an action for a character described on the
//! spot (`omen GAME ACTION --sheet … --odds`), on the games page in a real browser: the sheet and
//! the action are typed into the forms the page builds from the game's schemas, field by field
//! (a fieldset for each object, a box or a menu for each value, JSON where the page asks for
//! JSON), and the seed's figures are checked in the odds the page shows. The page is held to the
//! API first: it sent every value given, and what it shows agrees with the API's odds for what it
//! sent.
//!
//! The page opens at its own address for the game with the kind of sheet and of action chosen
//! (`#sheet={"sheet":{}}&action={"action":"check"}`), as a link to the page does, so every field
//! starts at the schema's default rather than at the schema's example of another character.

use std::future::Future;
use std::pin::Pin;

use fantoccini::Client;
use serde_json::{Value, json};

use crate::browser::{driver, server_and_api, session, wait_for};
use crate::worked_examples::{Request, api_pointer, examples, expectations, meets, request, words};
use crate::worked_examples_page::{label, set_control};

/// Finds, in the form `root`, inside the fieldsets named by `path` (each directly in the one
/// before), the fieldset or the control labelled by one of `names`, looking only at what belongs
/// to the innermost fieldset itself.
const FIND: &str = "const [rootSelector, path, names] = arguments; \
    const root = document.querySelector(rootSelector); \
    let box = null; \
    const own = (node) => { const o = node.parentElement.closest('fieldset'); \
        return box === null ? (o === null || !root.contains(o)) : o === box; }; \
    const legend = (f) => f.querySelector(':scope > legend')?.textContent; \
    const fieldsets = () => [...(box ?? root).querySelectorAll('fieldset')].filter(own); \
    for (const name of path) { \
        const next = fieldsets().find((f) => legend(f) === name); \
        if (!next) return { missing: name }; \
        box = next; } \
    for (const name of names) { \
        const f = fieldsets().find((f) => legend(f) === name); \
        if (f) { const give = [...f.querySelectorAll('label')] \
            .find((l) => l.closest('fieldset') === f && l.textContent === `give ${name}`); \
            return { fieldset: name, toggle: give ? give.htmlFor : null }; } } \
    const inside = box ?? root; \
    for (const name of names) { \
        const l = [...inside.querySelectorAll('label')] \
            .find((l) => l.closest('fieldset') === box && l.textContent === name); \
        if (l) return { control: l.htmlFor }; } \
    return { missing: names.join(' or ') };";

/// Gives `value` to the field `key` inside the fieldsets `path` of the form `root`: an object
/// whose fieldset the page shows field by field, anything else in its control.
pub(crate) fn give<'a>(
    client: &'a Client,
    root: &'a str,
    path: Vec<String>,
    key: &'a str,
    value: &'a Value,
) -> Pin<Box<dyn Future<Output = ()> + 'a>> {
    Box::pin(async move {
        // The page labels a field by its name made readable, an external union's by the key.
        let names = json!([label(key), key]);
        let found = client
            .execute(FIND, vec![json!(root), json!(path), names])
            .await
            .expect("the field");
        if let (Some(fieldset), Value::Object(fields)) = (found["fieldset"].as_str(), value) {
            if let Some(toggle) = found["toggle"].as_str() {
                set_control(client, toggle, &Value::Bool(true)).await;
            }
            let inner = [path.clone(), vec![fieldset.to_string()]].concat();
            for (child, item) in fields {
                give(client, root, inner.clone(), child, item).await;
            }
            return;
        }
        let Some(control) = found["control"].as_str() else {
            panic!("{root} {path:?}: no field {key}: {found}")
        };
        set_control(client, control, value).await;
    })
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

/// Whether what the page shows (`page`, read back from its text) agrees with the API's `answer`:
/// each value shown is the API's, a probability by its exact fraction.
fn agrees(page: &Value, answer: &Value) -> bool {
    match (page, answer) {
        (Value::Object(page), Value::Object(answer)) => page
            .iter()
            .all(|(key, item)| answer.get(key).is_some_and(|a| agrees(item, a))),
        (Value::Array(page), Value::Array(answer)) => {
            page.len() == answer.len() && page.iter().zip(answer).all(|(p, a)| agrees(p, a))
        }
        (Value::String(text), Value::Object(probability)) => probability
            .get("fraction")
            .and_then(Value::as_str)
            .is_some_and(|fraction| text.starts_with(&format!("{fraction} ("))),
        (Value::String(text), Value::Null) => text == "—",
        // A value shown is text: `7` may be a number or the text "7".
        (page, answer) => text_of(page) == text_of(answer),
    }
}

fn text_of(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_string)
}

/// The odds the page shows, read back into JSON (a definition list's `a: b` labels as nested
/// objects, each table a list of rows with the exact fraction of its probability column), with
/// the sheet and action it last sent and whether it is still asking.
const SHOWN: &str = "const card = document.querySelector('#odds .odds-card'); \
    const hash = new URLSearchParams(location.hash.slice(1)); \
    const sent = (key) => hash.get(key) === null ? null : JSON.parse(hash.get(key)); \
    const busy = document.getElementById('odds').hasAttribute('aria-busy'); \
    if (!card) return [null, sent('sheet'), sent('action'), busy]; \
    const out = {}; \
    const put = (path, v) => { let o = out; const parts = path.split(': '); \
        for (const p of parts.slice(0, -1)) o = (o[p] ??= {}); o[parts[parts.length - 1]] = v; }; \
    const value = (t) => { try { return JSON.parse(t); } catch { return t; } }; \
    for (const dt of card.querySelectorAll('dl > dt')) \
        put(dt.textContent, value(dt.nextElementSibling.textContent)); \
    for (const t of card.querySelectorAll('table')) { \
        const columns = [...t.querySelectorAll('thead th')].map((c) => c.textContent); \
        put(t.caption.textContent, [...t.querySelectorAll('tbody tr')].map((r) => \
            Object.fromEntries([...r.cells].map((c, i) => columns[i] === 'probability' \
                ? ['fraction', c.textContent.split(' ')[0]] : [columns[i], value(c.textContent)])))); } \
    return [out, sent('sheet'), sent('action'), busy];";

/// Percent-encodes a value of the page's address.
fn encoded(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Replays one odds step on the page.
async fn replay(
    client: &Client,
    api: &axum::Router,
    (id, address): (&str, std::net::SocketAddr),
    asked: &Request,
    step: &Value,
) {
    let Request::Action {
        game,
        action,
        holder,
    } = asked
    else {
        unreachable!("only actions' odds are replayed here")
    };
    let sheet = holder.sheet.clone().unwrap_or_else(|| json!({}));
    // The kinds chosen, each field at its default.
    let kind = |value: &Value| {
        let tag = value.as_object().and_then(|o| o.iter().next());
        let (key, inner) = tag.expect("a tagged value");
        let chosen = if inner.is_object() {
            json!({})
        } else {
            inner.clone()
        };
        json!({ key: chosen }).to_string()
    };
    let tag = json!({ "action": action["action"] }).to_string();
    client.goto("about:blank").await.expect("a blank page");
    let page = format!(
        "http://{address}/games#game={game}&sheet={}&action={}",
        encoded(&kind(&sheet)),
        encoded(&tag)
    );
    client.goto(&page).await.expect("the games page");
    wait_for(client, "#sheet-form fieldset").await;
    wait_for(client, "#action-form fieldset").await;
    for (key, value) in sheet.as_object().expect("a sheet") {
        give(client, "#sheet-form", vec!["Sheet".into()], key, value).await;
    }
    for (key, value) in action.as_object().expect("an action") {
        if key != "action" {
            give(client, "#action-form", vec!["Action".into()], key, value).await;
        }
    }
    let mut last = String::new();
    for _ in 0..1200 {
        let found = client.execute(SHOWN, vec![]).await.expect("the odds");
        let [shown, sent_sheet, sent_action, busy] = found.as_array().expect("four").as_slice()
        else {
            panic!("four values: {found}")
        };
        if busy == &Value::Bool(false) && holds(sent_sheet, &sheet) && holds(sent_action, action) {
            let path = format!("/api/v1/rules/{game}/odds");
            let body = json!({ "sheet": sent_sheet, "action": sent_action });
            let answer = crate::post(api, &path, None, body).await.json();
            if agrees(shown, &answer) {
                for (pointer, op, wanted) in expectations(step) {
                    let at = api_pointer(asked, shown, &pointer);
                    if let Err(why) = meets(shown, &at, &op, &wanted) {
                        panic!("{id}: the page shows {why}");
                    }
                }
                return;
            }
            last = format!("sent {sent_sheet} and {sent_action}, shows {shown}, the API {answer}");
        } else {
            last = format!("sent {sent_sheet} and {sent_action} (busy: {busy})");
        }
        tokio::time::sleep(crate::browser::POLL).await;
    }
    panic!("{id}: the page never showed the odds of what was given: {last}");
}

/// Types into the games page every worked example of an action's odds whose steps are all checks
/// (`checks`) or whose steps are not all checks, and answers the examples replayed (`None` when the
/// browser tests are skipped on purpose). The two halves are tests of their own, so that the longest
/// tests of the suite share its threads rather than end it one after another.
async fn replay_odds(checks: bool) -> Option<Vec<String>> {
    let driver = driver()?;
    let (address, api) = server_and_api().await;
    let rules = crate::get(&api, "/api/v1/rules", None).await.json();
    let rules = rules.as_array().expect("the rule sets").clone();
    let browser = session(&driver).await;
    let client = &browser.client;
    let mut replayed = Vec::new();
    for example in examples() {
        let id = example["id"].as_str().expect("an id").to_string();
        let steps = example["steps"].as_array().expect("steps");
        // The odds for a sheet: nothing rolled, no character kept.
        let odds_of_a_sheet = |step: &Value| match request(&rules, &words(step)) {
            Request::Action { holder, .. } => holder.odds && holder.sheet.is_some(),
            Request::Analysis { .. } => false,
        };
        let a_check = |step: &Value| match request(&rules, &words(step)) {
            Request::Action { action, .. } => action["action"] == "check",
            Request::Analysis { .. } => false,
        };
        if !steps.iter().all(odds_of_a_sheet) || steps.iter().all(a_check) != checks {
            continue;
        }
        for step in steps {
            let asked = request(&rules, &words(step));
            replay(client, &api, (&id, address), &asked, step).await;
        }
        replayed.push(id);
    }
    eprintln!(
        "{} worked examples of odds replayed on the page: {}",
        replayed.len(),
        replayed.join(", ")
    );
    browser.client.close().await.expect("close");
    Some(replayed)
}

/// 003-M6's zero dots, M4's broken wand, M8's automatic success: the worked examples of a check's
/// odds, typed into the games page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_games_page_replays_the_seeds_worked_examples_of_a_checks_odds() {
    let Some(replayed) = replay_odds(true).await else {
        return;
    };
    assert!(
        replayed.len() >= 6,
        "only {} examples of a check's odds: {replayed:?}",
        replayed.len()
    );
}

/// M15–M16's spell DVs, FORTITUDE and concentration: the worked examples of the odds of the
/// actions other than a check, typed into the games page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_games_page_replays_the_seeds_worked_examples_of_other_actions_odds() {
    let Some(replayed) = replay_odds(false).await else {
        return;
    };
    assert!(
        replayed.len() >= 4,
        "only {} examples of other actions' odds: {replayed:?}",
        replayed.len()
    );
}

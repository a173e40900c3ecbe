//! The calculator's rolls, exports and cancellation in a real browser.

use super::*;

/// The terms of the newest roll card's tree, in the page's order (each term before the terms under
/// it), as JSON: text, subtotal, role, depth, the arithmetic line and the dice.
const NEWEST_TREE: &str = "const card = document.querySelector('#rolls .roll-card');
    if (!card) return '';
    const depth = (li) => { let d = 0; for (let p = li.parentElement.closest('li.term'); p; p = p.parentElement.closest('li.term')) d++; return d; };
    return JSON.stringify({
      cards: document.querySelectorAll('#rolls .roll-card').length,
      heading: card.querySelector('h3').innerText,
      seed: card.querySelector('.seed').innerText,
      terms: [...card.querySelectorAll('li.term')].map((li) => ({
        term: li.dataset.term, value: li.dataset.value, role: li.dataset.role || '', depth: depth(li),
        line: li.querySelector(':scope > .term-line').innerText,
        dice: [...li.querySelectorAll(':scope > ul.dice > li.die')].map((d) => ({ text: d.innerText, class: d.className })),
      })),
    });";

/// The terms of a roll tree the API answered, in the order the page shows them: constants and
/// names are left out (their parent's line shows their value), dice go by their notation.
fn api_terms(node: &Value, source: &str, into: &mut Vec<(String, String)>) {
    let kind = node["node"].as_str().unwrap_or_default();
    if kind == "constant" || kind == "var" {
        return;
    }
    let term = if kind == "dice" {
        node["notation"].as_str().unwrap_or_default().to_string()
    } else {
        let (start, end) = (
            node["span"]["start"].as_u64().unwrap() as usize,
            node["span"]["end"].as_u64().unwrap() as usize,
        );
        source[start..end].to_string()
    };
    into.push((term, node["value"].to_string()));
    for (key, value) in node.as_object().expect("a node") {
        match value {
            Value::Object(child) if key != "span" && child.contains_key("node") => {
                api_terms(value, source, into);
            }
            Value::Array(children) => children
                .iter()
                .filter(|c| c.get("node").is_some())
                .for_each(|c| api_terms(c, source, into)),
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn a_roll_shows_its_tree_with_every_die_and_the_subtotal_of_every_term() {
    let Some(driver) = driver() else { return };
    let address = server().await;
    let browser = session(&driver).await;
    let client = &browser.client;
    client
        .goto(&format!("http://{address}/"))
        .await
        .expect("the page");
    let expression = "(2d6+3)*2 + 1d8!";
    type_into(client, "expression-1", expression).await;
    let number = |text: &str| -> i64 { text.parse().unwrap_or_else(|_| panic!("{text:?}")) };
    let face = |die: &Value| -> i64 {
        number(
            die["text"]
                .as_str()
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap(),
        )
    };
    // Rolls until the d8 explodes (each roll has 1/8 to), checking every roll's tree on the way.
    let mut exploded = false;
    for rolls in 1..=100 {
        click(client, "#expression-list li:first-child .roll").await;
        let shown = wait_until(client, NEWEST_TREE, |t| {
            serde_json::from_str::<Value>(t).is_ok_and(|v| v["cards"] == rolls)
        })
        .await;
        let shown: Value = serde_json::from_str(&shown).unwrap();
        let terms = shown["terms"].as_array().unwrap();
        let names: Vec<(&str, u64)> = terms
            .iter()
            .map(|t| (t["term"].as_str().unwrap(), t["depth"].as_u64().unwrap()))
            .collect();
        assert_eq!(
            names,
            [
                (expression, 0),
                ("(2d6+3)*2", 1),
                ("(2d6+3)", 2),
                ("2d6", 3),
                ("1d8!", 1)
            ],
            "one line per term, nested as written: {shown}"
        );
        let value = |i: usize| number(terms[i]["value"].as_str().unwrap());
        let line = |i: usize| terms[i]["line"].as_str().unwrap().to_string();
        // 2d6: two dice and their sum.
        let two_d6: Vec<i64> = terms[3]["dice"]
            .as_array()
            .unwrap()
            .iter()
            .map(face)
            .collect();
        assert_eq!(two_d6.len(), 2);
        assert!(two_d6.iter().all(|d| (1..=6).contains(d)), "{two_d6:?}");
        let sum = two_d6.iter().sum::<i64>();
        assert_eq!(value(3), sum);
        assert_eq!(line(3), format!("2d6 = {sum}"));
        // The sum with 3, then the product, each with its operands' values put in.
        assert_eq!(value(2), sum + 3);
        assert_eq!(line(2), format!("(2d6+3) → {sum} + 3 = {}", sum + 3));
        assert_eq!(value(1), 2 * (sum + 3));
        assert_eq!(
            line(1),
            format!("(2d6+3)*2 → {} * 2 = {}", sum + 3, 2 * (sum + 3))
        );
        // The exploding d8: every 8 exploded and added a die; the chain ends below 8.
        let chain = terms[4]["dice"].as_array().unwrap();
        let (last, earlier) = chain.split_last().expect("a d8");
        for die in earlier {
            assert_eq!(face(die), 8, "{chain:?}");
            assert!(die["class"].as_str().unwrap().contains("exploded"));
            assert!(die["text"].as_str().unwrap().ends_with("exploded"));
        }
        assert!((1..=7).contains(&face(last)), "{chain:?}");
        assert!(!last["class"].as_str().unwrap().contains("exploded"));
        let d8 = chain.iter().map(face).sum::<i64>();
        assert_eq!(value(4), d8);
        let total = 2 * (sum + 3) + d8;
        assert_eq!(value(0), total);
        assert_eq!(
            line(0),
            format!("{expression} → {} + {d8} = {total}", 2 * (sum + 3))
        );
        assert!(
            shown["heading"]
                .as_str()
                .unwrap()
                .ends_with(&format!("→ {total}")),
            "{shown}"
        );
        if chain.len() > 1 {
            // The page's terms are the roller's: the seed replays the same tree.
            let seed = seed_shown(shown["seed"].as_str().unwrap());
            let replay = crate::post(
                &crate::app(),
                "/api/v1/roll",
                None,
                json!({"expression": expression, "seed": seed}),
            )
            .await
            .json();
            let mut expected = Vec::new();
            api_terms(&replay["tree"], expression, &mut expected);
            let page: Vec<(String, String)> = terms
                .iter()
                .map(|t| {
                    (
                        t["term"].as_str().unwrap().to_string(),
                        t["value"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
            assert_eq!(page, expected);
            exploded = true;
            break;
        }
    }
    assert!(exploded, "no d8 exploded in 100 rolls");
    assert_accessible(client, "the calculator with a roll tree").await;
    save_screenshot(client, "calculator-roll.png").await;
    browser.client.close().await.expect("close");
}

/// Records what the page hands the browser to download (the blob's text and the file's name), and
/// lets the download go on. The blob is kept as the page makes its URL: the page's policy lets it
/// fetch nothing but its own server, blob URLs included.
pub(crate) const RECORD_DOWNLOADS: &str = "window.downloads = [];
    const blobs = new Map();
    const create = URL.createObjectURL;
    URL.createObjectURL = (blob) => { const url = create.call(URL, blob); blobs.set(url, blob); return url; };
    const original = HTMLAnchorElement.prototype.click;
    HTMLAnchorElement.prototype.click = function () {
      const blob = blobs.get(this.href);
      if (this.download && blob) {
        const name = this.download;
        blob.text().then((text) => window.downloads.push({ name, text }));
      }
      return original.call(this);
    };
    return true;";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_calculator_exports_its_exact_table_as_csv_markdown_and_json() {
    let Some(driver) = driver() else { return };
    let address = server().await;
    let browser = session(&driver).await;
    let client = &browser.client;
    client
        .goto(&format!("http://{address}/#e=2d6&e=3d4"))
        .await
        .expect("the page");
    wait_for(client, "#odds").await;
    client
        .execute(RECORD_DOWNLOADS, vec![])
        .await
        .expect("the recorder");
    let expected = expected_table();
    let head = ["outcome", "P(=) 2d6", "%", "P(=) 3d4", "%"];
    for (button, count) in [("csv", 1), ("md", 2), ("json", 3)] {
        click(client, &format!("button[data-export={button}]")).await;
        wait_until(client, "return String(window.downloads.length);", |n| {
            n == count.to_string()
        })
        .await;
    }
    let downloads = client
        .execute("return window.downloads;", vec![])
        .await
        .expect("downloads");
    let file = |i: usize| {
        (
            downloads[i]["name"].as_str().unwrap().to_string(),
            downloads[i]["text"].as_str().unwrap().to_string(),
        )
    };

    let mut csv = head.join(",") + "\n";
    for row in &expected {
        csv += &(row.join(",") + "\n");
    }
    assert_eq!(file(0), ("omen-odds.csv".to_string(), csv));

    let line = |cells: Vec<&str>| format!("| {} |\n", cells.join(" | "));
    let mut markdown = line(head.to_vec()) + &line(vec!["---"; 5]);
    for row in &expected {
        markdown += &line(row.iter().map(String::as_str).collect());
    }
    assert_eq!(file(1), ("omen-odds.md".to_string(), markdown));

    let (name, text) = file(2);
    assert_eq!(name, "omen-odds.json");
    let exported: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(exported["expressions"], json!(["2d6", "3d4"]));
    assert_eq!(exported["view"], "eq");
    assert_eq!(exported["dialect"], "omen");
    assert_eq!(exported["transpose"], false);
    for (index, (count, sides)) in [(2, 6), (3, 4)].into_iter().enumerate() {
        let (ways, total) = enumerate(count, sides);
        let fractions: Vec<(u64, String)> = exported["results"][index]["outcomes"]
            .as_array()
            .expect("outcomes")
            .iter()
            .map(|row| {
                (
                    row["outcome"].as_u64().expect("a number"),
                    row["probability"].as_str().expect("a fraction").to_string(),
                )
            })
            .collect();
        let enumerated: Vec<(u64, String)> = ways
            .iter()
            .map(|&(outcome, w)| (outcome, fraction(w, total)))
            .collect();
        assert_eq!(fractions, enumerated, "{count}d{sides}");
    }

    // The transposed table exports as it is shown: one row per expression; a cell holding a
    // comma is quoted.
    click(client, "#transpose").await;
    click(client, "button[data-export=csv]").await;
    wait_until(client, "return String(window.downloads.length);", |n| {
        n == "4"
    })
    .await;
    let transposed = client
        .execute("return window.downloads[3].text;", vec![])
        .await
        .expect("the transposed export");
    let lines: Vec<&str> = transposed.as_str().unwrap().lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[0].starts_with("expression,= 2,= 3,"), "{}", lines[0]);
    assert!(
        lines[1].starts_with("2d6,1/36 (2.78%),1/18 (5.56%),1/12 (8.33%)"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("3d4,,1/64 (1.56%),3/64 (4.69%)"),
        "{}",
        lines[2]
    );
    browser.client.close().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn a_long_computation_can_be_cancelled_and_the_page_answers_the_next_one() {
    let Some(driver) = driver() else { return };
    // The CLI's work budget, so that one computation runs for seconds; room for two at once, since
    // the cancelled one runs on until its budget or its answer ends it.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let address = listener.local_addr().expect("address");
    let config = omen_server::Config {
        limits: omen_core::Limits::default(),
        compute_threads: 4,
        ..crate::config()
    };
    tokio::spawn(omen_server::serve(
        listener,
        crate::state_with(config),
        std::future::pending(),
    ));
    let browser = session(&driver).await;
    let client = &browser.client;
    client
        .goto(&format!("http://{address}/"))
        .await
        .expect("the page");
    type_into(client, "expression-1", "60d10!").await;
    click(client, "#calculate").await;
    // Busy: the results say so, Calculate waits, Cancel shows.
    let cancel = wait_for(client, "#cancel:not([hidden])").await;
    wait_for(client, "#results[aria-busy=true]").await;
    assert!(
        !client
            .find(Locator::Id("calculate"))
            .await
            .expect("calculate")
            .is_enabled()
            .await
            .expect("enabled")
    );
    cancel.click().await.expect("cancel");
    wait_until(
        client,
        "return document.getElementById('status').innerText;",
        |t| t == "Cancelled.",
    )
    .await;
    wait_for(client, "#results[aria-busy=false]").await;
    wait_for(client, "#cancel[hidden]").await;
    assert!(
        client.find(Locator::Css("#odds")).await.is_err(),
        "no table from the cancelled computation"
    );
    // The page answers at once: the next computation runs while the cancelled one still works.
    type_into(client, "expression-1", "2d6").await;
    click(client, "#calculate").await;
    wait_for(client, "#odds").await;
    let rows = table(client, "#odds").await;
    assert_eq!(rows, expected_sum(2, 6, 0));
    assert_eq!(
        client
            .find(Locator::Id("status"))
            .await
            .expect("status")
            .text()
            .await
            .expect("text"),
        "Calculated 1 expression."
    );
    browser.client.close().await.expect("close");
}

//! The web page in a real browser: Chromium headless, driven over WebDriver by chromedriver, against
//! a server on a loopback port. With no browser installed (outside CI) these tests are built as
//! ignored, each saying what it needs (see the crate's build script); `OMEN_SKIP_BROWSER_TESTS=1`
//! ignores them on purpose.
//!
//! The expected tables are computed here by enumerating every face of every die, not taken from the
//! server.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use tower::ServiceExt;

mod anydice;
mod keyboard;
mod rolls;
mod seed_games;

pub(crate) use rolls::RECORD_DOWNLOADS;

/// The browser: `OMEN_CHROMIUM`, else Debian's (the build script looks for the same one).
fn chromium() -> PathBuf {
    std::env::var_os("OMEN_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}
/// WebDriver's codes for the keys the keyboard tests press.
const TAB: char = '\u{E004}';
const ENTER: char = '\u{E007}';
const SPACE: char = '\u{E00D}';
const CONTROL: char = '\u{E009}';

fn chromedriver() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("chromedriver"))
        .chain([PathBuf::from("/usr/bin/chromedriver")])
        .find(|p| p.is_file())
}

/// A chromedriver process, ended when dropped.
pub(crate) struct Driver {
    process: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// Starts chromedriver, or says why not: `None` only when the tests are skipped on purpose.
pub(crate) fn driver() -> Option<Driver> {
    let found = chromedriver().filter(|_| chromium().is_file());
    let Some(program) = found else {
        let how = "no browser found: the web page's tests need /usr/bin/chromium and chromedriver \
                   (Debian: apt-get install -y chromium chromium-driver; .ci/run installs them)";
        if std::env::var_os("OMEN_SKIP_BROWSER_TESTS").is_some() {
            eprintln!("\n!!!!! SKIPPED: {how} !!!!!\n");
            return None;
        }
        panic!("{how}; set OMEN_SKIP_BROWSER_TESTS=1 to skip them knowingly");
    };
    // A driver that dies before announcing its port (seen once in CI, never reproduced) is
    // started again, up to three times, and each attempt's exit status and stderr are quoted.
    let mut failures = Vec::new();
    for _ in 0..3 {
        match start_driver(&program) {
            Ok(driver) => return Some(driver),
            Err(why) => failures.push(why),
        }
    }
    panic!(
        "chromedriver did not announce its port: {}",
        failures.join("; ")
    );
}

/// One attempt at a chromedriver on a port of its choosing.
fn start_driver(program: &Path) -> Result<Driver, String> {
    // Port 0 and the port chromedriver announces: a port picked here and handed over could be
    // taken by another test's driver in between, leaving two tests on one driver.
    let mut process = Command::new(program)
        .arg("--port=0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("chromedriver does not start: {e}"))?;
    let stdout = process
        .stdout
        .take()
        .expect("chromedriver's stdout is piped");
    let stderr = process
        .stderr
        .take()
        .expect("chromedriver's stderr is piped");
    let errors = std::thread::spawn(move || {
        // Drained whole, so chromedriver never blocks on a full pipe; kept for the failure message.
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut BufReader::new(stderr), &mut text);
        text
    });
    let (announced, port) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        // After the announcement the rest is drained, so chromedriver never blocks on a full pipe.
        let mut announced = Some(announced);
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let port = line
                .split("started successfully on port ")
                .nth(1)
                .and_then(|rest| rest.trim().trim_end_matches('.').parse::<u16>().ok());
            if let Some(port) = port
                && let Some(announced) = announced.take()
            {
                let _ = announced.send(port);
            }
        }
    });
    let mut driver = Driver { process, port: 0 };
    match port.recv_timeout(Duration::from_secs(20)) {
        Ok(port) => {
            driver.port = port;
            Ok(driver)
        }
        Err(why) => {
            let _ = driver.process.kill();
            let status = driver.process.wait().map(|s| s.to_string());
            let stderr = errors.join().unwrap_or_default();
            Err(format!(
                "{why} (exit: {status:?}; stderr: {:?})",
                stderr.trim()
            ))
        }
    }
}

/// A browser session with a fresh profile of its own (removed with the session).
pub(crate) struct Session {
    pub(crate) client: Client,
    _profile: tempfile::TempDir,
}

pub(crate) async fn session(driver: &Driver) -> Session {
    let profile = tempfile::tempdir().expect("profile directory");
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chromium(),
            "args": [
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
                "--window-size=1100,2000",
                format!("--user-data-dir={}", profile.path().display()),
            ],
        }),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let client = ClientBuilder::new(connector)
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a browser session");
    Session {
        client,
        _profile: profile,
    }
}

/// A server on a loopback port, for as long as the test's runtime lives.
pub(crate) async fn server() -> SocketAddr {
    server_and_api().await.0
}

/// [`server`], and a router on the same state, for API calls as any member.
pub(crate) async fn server_and_api() -> (SocketAddr, axum::Router) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let address = listener.local_addr().expect("address");
    // A page asks for several computations at once, and on a loaded machine (the whole suite
    // running, a debug build) they can wait past the default 2 s turn in the pool: the pages'
    // tests are about the page, so their server waits as long as a request may run.
    let defaults = super::config();
    let config = omen_server::Config {
        queue_timeout: defaults.request_timeout,
        ..defaults
    };
    let state = super::state_with(config);
    let api = omen_server::app(state.clone());
    tokio::spawn(omen_server::serve(listener, state, std::future::pending()));
    (address, api)
}

/// Waits until `script` (a function body returning a boolean) is true in the page.
pub(crate) async fn until(client: &Client, what: &str, script: &str) {
    for _ in 0..LOOKS {
        let done = client.execute(script, vec![]).await.ok();
        if done.and_then(|v| v.as_bool()).unwrap_or(false) {
            return;
        }
        tokio::time::sleep(POLL).await;
    }
    panic!("{what}: never true");
}

/// How long a test waits between two looks at the page for what it waits for. Each wait ends at the
/// first look that finds it, so a long pause is time lost at every step: with pauses of 100 ms the
/// odds page's worked examples took 32 s, with 25 ms 29.5 s.
pub(crate) const POLL: Duration = Duration::from_millis(25);
/// Looks before [`until`] gives up: twenty seconds of [`POLL`], not counting the looks themselves.
pub(crate) const LOOKS: usize = 800;

/// The seed a roll card's seed line shows (`seed 42; …`), which replays the roll through the API.
pub(crate) fn seed_shown(line: &str) -> u64 {
    line.trim_start_matches("seed ")
        .split(';')
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no seed in {line:?}"))
}

/// Opens the table page at `address` with an invite `token` and waits until it follows the log.
pub(crate) async fn open_table(client: &Client, address: SocketAddr, token: &str) {
    client
        .goto(&format!("http://{address}/table#join={token}"))
        .await
        .unwrap();
    until(
        client,
        "the page follows the log",
        "return document.body.dataset.live === 'true';",
    )
    .await;
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn fraction(n: u64, d: u64) -> String {
    let g = gcd(n, d);
    if d / g == 1 {
        format!("{}", n / g)
    } else {
        format!("{}/{}", n / g, d / g)
    }
}

/// A probability as a percentage with two places, rounded half up: what the page prints.
fn percent(n: u64, d: u64) -> String {
    let hundredths = (n * 20_000 + d) / (2 * d);
    format!("{}.{:02}%", hundredths / 100, hundredths % 100)
}

/// The sum of `count` dice of `sides` faces: how many of the equally likely rolls give each total.
fn enumerate(count: u32, sides: u64) -> (Vec<(u64, u64)>, u64) {
    let rolls = sides.pow(count);
    let mut ways = std::collections::BTreeMap::new();
    for index in 0..rolls {
        let (mut rest, mut total) = (index, 0);
        for _ in 0..count {
            total += rest % sides + 1;
            rest /= sides;
        }
        *ways.entry(total).or_insert(0u64) += 1;
    }
    (ways.into_iter().collect(), rolls)
}

/// The odds table the page must show for `2d6` and `3d4`, cell by cell, from enumeration.
fn expected_table() -> Vec<Vec<String>> {
    expected_columns(&[(2, 6), (3, 4)], 2..=12)
}

/// The odds table of `count`d`sides` columns side by side, over `outcomes`: each row the outcome,
/// then each column's fraction and percentage (empty cells where a column cannot show it).
fn expected_columns(
    columns: &[(u32, u64)],
    outcomes: std::ops::RangeInclusive<u64>,
) -> Vec<Vec<String>> {
    let enumerated: Vec<_> = columns
        .iter()
        .map(|&(count, sides)| enumerate(count, sides))
        .collect();
    outcomes
        .map(|outcome| {
            let mut row = vec![outcome.to_string()];
            for (table, total) in &enumerated {
                row.extend(
                    table
                        .iter()
                        .find(|(o, _)| *o == outcome)
                        .map_or([String::new(), String::new()], |&(_, w)| {
                            [fraction(w, *total), percent(w, *total)]
                        }),
                );
            }
            row
        })
        .collect()
}

/// The cells of a table's body, read in one script so a table the page redraws meanwhile is read
/// whole, before or after.
async fn table(client: &Client, selector: &str) -> Vec<Vec<String>> {
    let found = client
        .execute(
            "return [...document.querySelectorAll(arguments[0] + ' tbody tr')]
                 .map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.innerText));",
            vec![json!(selector)],
        )
        .await
        .expect("the table's cells");
    serde_json::from_value(found).expect("rows of text")
}

pub(crate) async fn type_into(client: &Client, id: &str, text: &str) {
    let input = client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Id(id))
        .await
        .expect("the input");
    input.clear().await.expect("clear");
    input.send_keys(text).await.expect("type");
}

pub(crate) async fn click(client: &Client, selector: &str) {
    client
        .find(Locator::Css(selector))
        .await
        .unwrap_or_else(|e| panic!("{selector}: {e}"))
        .click()
        .await
        .expect("click");
}

pub(crate) async fn wait_for(client: &Client, selector: &str) -> fantoccini::elements::Element {
    client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css(selector))
        .await
        .unwrap_or_else(|e| panic!("{selector} never appeared: {e}"))
}

pub(crate) fn screenshot_path(name: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
        PathBuf::from,
    );
    let directory = target.join("screenshots");
    std::fs::create_dir_all(&directory).expect("screenshot directory");
    directory.join(name)
}

/// Opens the `<details>` whose `<summary>` is `summary` (found at `selector`) as a keyboard user
/// would: the summary takes focus, and Enter opens it. Both are checked; `what` names the block in
/// the failures.
pub(crate) async fn open_with_enter(
    client: &Client,
    summary: fantoccini::elements::Element,
    selector: &str,
    what: &str,
) {
    let focused = client
        .execute(
            "const s = document.querySelector(arguments[0]); s.focus(); \
             return document.activeElement === s;",
            vec![json!(selector)],
        )
        .await
        .expect("focus");
    assert_eq!(
        focused,
        Value::Bool(true),
        "{what}: the summary takes focus"
    );
    summary.send_keys("\u{E007}").await.expect("Enter");
    let open = client
        .execute(
            "return document.querySelector(arguments[0]).parentElement.open;",
            vec![json!(selector)],
        )
        .await
        .expect("open");
    assert_eq!(open, Value::Bool(true), "{what}: Enter opens it");
}

/// Saves a screenshot of the page as it stands in `target/screenshots/NAME`, and, when
/// `OMEN_UPDATE_SCREENSHOTS` is set, as the README's copy in `docs/screenshots/NAME` (only when
/// asked, so a test run leaves the checkout clean).
pub(crate) async fn save_screenshot(client: &Client, name: &str) {
    let png = client.screenshot().await.expect("screenshot");
    std::fs::write(screenshot_path(name), &png).expect("save the screenshot");
    if std::env::var_os("OMEN_UPDATE_SCREENSHOTS").is_some() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/screenshots");
        std::fs::create_dir_all(&docs).expect("the docs' screenshot directory");
        std::fs::write(docs.join(name), &png).expect("save the README's screenshot");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_calculator_shows_the_exact_table_of_two_expressions_and_a_permalink_restores_it() {
    let Some(driver) = driver() else { return };
    let address = server().await;
    let expected = expected_table();

    let first = session(&driver).await;
    let client = &first.client;
    client
        .goto(&format!("http://{address}/"))
        .await
        .expect("the page");
    type_into(client, "expression-1", "2d6").await;
    click(client, "#add-expression").await;
    type_into(client, "expression-2", "3d4").await;
    click(client, "#calculate").await;
    wait_for(client, "#odds").await;
    assert_eq!(table(client, "#odds").await, expected);
    let headers = client
        .find_all(Locator::Css("#odds thead th"))
        .await
        .expect("headers");
    let mut names = Vec::new();
    for h in headers {
        names.push(h.text().await.expect("text"));
    }
    assert_eq!(names, ["outcome", "P(=) 2d6", "%", "P(=) 3d4", "%"]);

    // Mean and variance from the enumeration: 2d6 has mean 7 and variance 35/6; 3d4 15/2 and 15/4.
    let statistics = table(client, "#statistics").await;
    assert_eq!(statistics[0][..3], ["2d6", "7 ≈ 7.0000", "35/6 ≈ 5.8333"]);
    assert_eq!(
        statistics[1][..3],
        ["3d4", "15/2 ≈ 7.5000", "15/4 ≈ 3.7500"]
    );
    assert_eq!(
        client
            .find_all(Locator::Css("#chart-area svg.chart rect"))
            .await
            .expect("bars")
            .len(),
        2 * 11,
        "one bar per expression and outcome"
    );

    // A roll shows its dice: two of them, summing to the total in the card's heading.
    click(client, "#expression-list li:first-child .roll").await;
    let card = wait_for(client, ".roll-card").await;
    let heading = card
        .find(Locator::Css("h3"))
        .await
        .expect("heading")
        .text()
        .await
        .expect("text");
    let total: i64 = heading
        .rsplit(' ')
        .next()
        .and_then(|t| t.parse().ok())
        .expect("a total");
    let mut dice = Vec::new();
    for die in card.find_all(Locator::Css("li.die")).await.expect("dice") {
        dice.push(
            die.text()
                .await
                .expect("text")
                .parse::<i64>()
                .expect("a face"),
        );
    }
    assert_eq!(dice.len(), 2, "{heading}: {dice:?}");
    assert!(dice.iter().all(|d| (1..=6).contains(d)));
    assert_eq!(dice.iter().sum::<i64>(), total);

    save_screenshot(client, "calculator.png").await;

    let permalink = client.current_url().await.expect("url").to_string();
    assert!(
        permalink.ends_with("/#e=2d6&e=3d4"),
        "the permalink holds the program: {permalink}"
    );
    first.client.close().await.expect("close");

    // A new browser with a new profile: the link alone restores the calculator.
    let second = session(&driver).await;
    let client = &second.client;
    client.goto(&permalink).await.expect("the permalink");
    wait_for(client, "#odds").await;
    assert_eq!(table(client, "#odds").await, expected);
    let restored = client
        .find(Locator::Id("expression-2"))
        .await
        .expect("second input")
        .prop("value")
        .await
        .expect("value");
    assert_eq!(restored.as_deref(), Some("3d4"));

    // The view and the transpose are in the link too: at least, one row per expression.
    client
        .goto(&format!("{permalink}&view=ge&transpose=1"))
        .await
        .expect("a new fragment");
    client.refresh().await.expect("reload");
    wait_for(client, "#odds").await;
    let transposed = table(client, "#odds").await;
    assert_eq!(transposed.len(), 2);
    // P(2d6 ≥ 12) = 1/36 and P(3d4 ≥ 12) = 1/64, the last column.
    assert_eq!(
        transposed[0].last().map(String::as_str),
        Some("1/36 (2.78%)")
    );
    assert_eq!(
        transposed[1].last().map(String::as_str),
        Some("1/64 (1.56%)")
    );
    assert_eq!(transposed[0][1], "1 (100.00%)");

    // Keep the highest three of four: one die is marked dropped, in words too, and the total is
    // the sum of the others; the seed shown is the server's, digit for digit.
    type_into(client, "expression-1", "4d6kh3").await;
    click(client, "#expression-list li:first-child .roll").await;
    let card = wait_for(client, ".roll-card").await;
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for die in card.find_all(Locator::Css("li.die")).await.expect("dice") {
        let class = die.attr("class").await.expect("class").unwrap_or_default();
        let text = die.text().await.expect("text");
        let face: i64 = text
            .split_whitespace()
            .next()
            .and_then(|t| t.parse().ok())
            .expect("a face");
        if class.split(' ').any(|c| c == "dropped") {
            assert!(text.ends_with("dropped"), "{text}");
            dropped.push(face);
        } else {
            kept.push(face);
        }
    }
    assert_eq!((kept.len(), dropped.len()), (3, 1), "{kept:?} {dropped:?}");
    assert!(kept.iter().all(|&k| k >= dropped[0]));
    let heading = card
        .find(Locator::Css("h3"))
        .await
        .expect("h3")
        .text()
        .await
        .expect("text");
    assert!(
        heading.ends_with(&format!("→ {}", kept.iter().sum::<i64>())),
        "{heading}"
    );
    let seed_line = card
        .find(Locator::Css(".seed"))
        .await
        .expect("seed")
        .text()
        .await
        .expect("text");
    let seed = seed_shown(&seed_line);
    let replay = super::post(
        &super::app(),
        "/api/v1/roll",
        None,
        json!({"expression": "4d6kh3", "seed": seed}),
    )
    .await
    .json();
    assert_eq!(
        replay["result"],
        json!(kept.iter().sum::<i64>()),
        "the seed replays the roll"
    );
    second.client.close().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn an_error_shows_its_caret_message_and_hint_beside_its_input() {
    let Some(driver) = driver() else { return };
    let address = server().await;
    let bad = "3 < 2d6 < 9";
    let answer = super::post(
        &super::app(),
        "/api/v1/prob",
        None,
        json!({"expressions": ["1d4", bad]}),
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    let problem: Value = answer.json()["errors"][0].clone();
    assert_eq!(problem["expression"], 1);
    let message = problem["message"].as_str().expect("a message");
    let help = problem["help"]
        .as_str()
        .unwrap_or_else(|| panic!("a hint: {problem}"));
    let start = problem["span"]["start"].as_u64().expect("a span") as usize;

    let browser = session(&driver).await;
    let client = &browser.client;
    client
        .goto(&format!("http://{address}/"))
        .await
        .expect("the page");
    type_into(client, "expression-1", "1d4").await;
    click(client, "#add-expression").await;
    type_into(client, "expression-2", bad).await;
    click(client, "#calculate").await;
    let shown = wait_for(client, "#expression-2-error .message").await;
    assert_eq!(
        shown.text().await.expect("text"),
        format!("error: {message}")
    );
    let hint = client
        .find(Locator::Css("#expression-2-error .help"))
        .await
        .expect("the hint");
    assert_eq!(hint.text().await.expect("text"), format!("help: {help}"));
    let caret = client
        .find(Locator::Css("#expression-2-error .caret"))
        .await
        .expect("the caret")
        .prop("textContent")
        .await
        .expect("text")
        .unwrap_or_default();
    let lines: Vec<&str> = caret.lines().collect();
    assert_eq!(lines[0], bad);
    assert_eq!(lines[1].find('^'), Some(start), "{caret}");
    let invalid = client
        .find(Locator::Id("expression-2"))
        .await
        .expect("input")
        .attr("aria-invalid")
        .await
        .expect("attribute");
    assert_eq!(invalid.as_deref(), Some("true"));
    assert!(
        client
            .find(Locator::Css("#expression-1-error .message"))
            .await
            .is_err(),
        "the first expression is fine"
    );
    save_screenshot(client, "calculator-error.png").await;
    browser.client.close().await.expect("close");
}

#[tokio::test]
async fn the_page_is_served_with_its_types_a_strict_policy_and_revalidation() {
    let app = super::app();
    for (path, kind) in [
        ("/", "text/html"),
        ("/app.js", "text/javascript"),
        ("/style.css", "text/css"),
    ] {
        let answer = super::get(&app, path, None).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        let header = |name| {
            answer
                .headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string()
        };
        assert!(header(header::CONTENT_TYPE).starts_with(kind), "{path}");
        let policy = header(header::CONTENT_SECURITY_POLICY);
        assert!(policy.contains("default-src 'none'"), "{policy}");
        assert!(policy.contains("script-src 'self';"), "{policy}");
        assert!(!policy.contains("unsafe"), "{policy}");
        assert_eq!(header(header::CACHE_CONTROL), "no-cache");
        let etag = header(header::ETAG);
        assert!(etag.starts_with('"') && etag.len() > 10, "{etag}");
        let again = app
            .clone()
            .oneshot(
                Request::get(path)
                    .header(header::IF_NONE_MATCH, &etag)
                    .body(Body::empty())
                    .expect("request"),
            )
            .await
            .expect("infallible");
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{path}");
    }
    assert_eq!(
        super::get(&app, "/nothing-here.js", None).await.status,
        StatusCode::NOT_FOUND
    );
}

/// axe-core 4.14.1 (MPL-2.0, Deque Systems), vendored from the npm package `axe-core` so the check
/// runs on a machine without network access.
const AXE: &str = include_str!("../fixtures/axe.min.js");

/// Runs axe-core on the page as it stands and fails on any serious or critical violation, naming
/// each with the elements it found.
pub(crate) async fn assert_accessible(client: &Client, page: &str) {
    client
        .execute(&format!("{AXE}\n;window.axe = axe; return true;"), vec![])
        .await
        .expect("axe-core loads");
    let found = client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             window.axe.run(document, { resultTypes: ['violations'] })
               .then((r) => done(JSON.stringify(r.violations.map((v) => ({
                   id: v.id, impact: v.impact, help: v.help,
                   nodes: v.nodes.map((n) => n.target.join(' ')) })))))
               .catch((e) => done(JSON.stringify([{ id: 'axe-failed', impact: 'critical', help: String(e), nodes: [] }])));",
            vec![],
        )
        .await
        .expect("axe-core runs");
    let violations: Vec<Value> =
        serde_json::from_str(found.as_str().expect("a JSON text")).expect("violations");
    let serious: Vec<&Value> = violations
        .iter()
        .filter(|v| matches!(v["impact"].as_str(), Some("serious" | "critical")))
        .collect();
    assert!(
        serious.is_empty(),
        "{page}: axe-core finds serious violations: {serious:#?}"
    );
}

async fn value_of(client: &Client, id: &str) -> String {
    client
        .find(Locator::Id(id))
        .await
        .unwrap_or_else(|e| panic!("#{id}: {e}"))
        .prop("value")
        .await
        .expect("value")
        .unwrap_or_default()
}

/// Waits until the first column of `selector`'s table reads `outcomes`.
async fn wait_for_outcomes(client: &Client, selector: &str, outcomes: &[String]) {
    for _ in 0..100 {
        let rows = table(client, selector).await;
        let first: Vec<String> = rows.iter().filter_map(|r| r.first().cloned()).collect();
        if first == outcomes {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "{selector} never showed outcomes {outcomes:?}: {:?}",
        table(client, selector).await
    );
}

/// `count` dice of `sides` faces plus `bonus`: the outcomes and their fractions, by enumeration.
fn expected_sum(count: u32, sides: u64, bonus: u64) -> Vec<Vec<String>> {
    let (ways, total) = enumerate(count, sides);
    ways.iter()
        .map(|&(outcome, w)| {
            vec![
                (outcome + bonus).to_string(),
                fraction(w, total),
                percent(w, total),
            ]
        })
        .collect()
}

const DESIGNER_SCRIPT: &str =
    "param n = 2; # 1..=4\nparam sides = 6; # 4 | 6 | 8\nparam bonus = 0;\n(n)d(sides) + bonus";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn a_scripts_parameters_become_inputs_that_update_the_odds_and_live_in_the_permalink() {
    let Some(driver) = driver() else { return };
    let address = server().await;
    let first = session(&driver).await;
    let client = &first.client;
    client
        .goto(&format!("http://{address}/"))
        .await
        .expect("the page");
    let input = wait_for(client, "#expression-1").await;
    input.clear().await.expect("clear");
    // Typed line by line: in a script Enter starts a new line rather than calculating.
    input.send_keys(DESIGNER_SCRIPT).await.expect("type");
    assert_eq!(value_of(client, "expression-1").await, DESIGNER_SCRIPT);
    click(client, "#calculate").await;
    wait_for(client, "#odds").await;
    assert_eq!(table(client, "#odds").await, expected_sum(2, 6, 0));

    // One input per declaration, shaped by its comment: a slider, a menu, a number.
    let slider = wait_for(client, "#param-list input[data-param=n]").await;
    assert_eq!(
        slider.attr("type").await.expect("type").as_deref(),
        Some("range")
    );
    assert_eq!(slider.attr("min").await.expect("min").as_deref(), Some("1"));
    assert_eq!(slider.attr("max").await.expect("max").as_deref(), Some("4"));
    let menu = wait_for(client, "#param-list select[data-param=sides]").await;
    let mut choices = Vec::new();
    for option in menu
        .find_all(Locator::Css("option"))
        .await
        .expect("options")
    {
        choices.push(option.text().await.expect("text"));
    }
    assert_eq!(choices, ["4", "6", "8"]);
    let bonus = wait_for(client, "#param-list input[data-param=bonus]").await;
    assert_eq!(
        bonus.attr("type").await.expect("type").as_deref(),
        Some("number")
    );
    let label = client
        .find(Locator::Css("label[for=param-3]"))
        .await
        .expect("a label")
        .text()
        .await
        .expect("text");
    assert_eq!(label, "bonus");

    // Changing one updates the odds without pressing Calculate.
    menu.select_by_value("4").await.expect("choose d4");
    let outcomes = |count: u32, sides: u64, bonus: u64| -> Vec<String> {
        expected_sum(count, sides, bonus)
            .into_iter()
            .map(|r| r[0].clone())
            .collect()
    };
    wait_for_outcomes(client, "#odds", &outcomes(2, 4, 0)).await;
    assert_eq!(table(client, "#odds").await, expected_sum(2, 4, 0));
    bonus.clear().await.expect("clear");
    bonus.send_keys("1").await.expect("type");
    wait_for_outcomes(client, "#odds", &outcomes(2, 4, 1)).await;
    // The slider works from the keyboard: one step right is one die more.
    slider.send_keys("\u{E014}").await.expect("arrow right");
    wait_for_outcomes(client, "#odds", &outcomes(3, 4, 1)).await;
    assert_eq!(table(client, "#odds").await, expected_sum(3, 4, 1));
    assert_accessible(client, "the designer calculator").await;
    save_screenshot(client, "designer-calculator.png").await;

    let permalink = client.current_url().await.expect("url").to_string();
    assert!(
        permalink.contains("p.n=3")
            && permalink.contains("p.sides=4")
            && permalink.contains("p.bonus=1"),
        "the permalink holds the form: {permalink}"
    );
    first.client.close().await.expect("close");

    let second = session(&driver).await;
    let client = &second.client;
    client.goto(&permalink).await.expect("the permalink");
    wait_for(client, "#param-list select[data-param=sides]").await;
    wait_for_outcomes(client, "#odds", &outcomes(3, 4, 1)).await;
    assert_eq!(table(client, "#odds").await, expected_sum(3, 4, 1));
    assert_eq!(value_of(client, "expression-1").await, DESIGNER_SCRIPT);
    assert_eq!(value_of(client, "param-1").await, "3");
    assert_eq!(value_of(client, "param-2").await, "4");
    assert_eq!(value_of(client, "param-3").await, "1");
    second.client.close().await.expect("close");
}

/// Presses the keys of `chord` together (in order down, in reverse up) on whatever has the focus,
/// as a keyboard does, rather than sending them to a chosen element.
async fn press(client: &Client, chord: &[char]) {
    let mut keys = KeyActions::new("keyboard".to_string());
    for &key in chord {
        keys = keys.then(KeyAction::Down { value: key });
    }
    for &key in chord.iter().rev() {
        keys = keys.then(KeyAction::Up { value: key });
    }
    client.perform_actions(keys).await.expect("keys");
}

/// Types `text` on whatever has the focus, key by key.
async fn type_keys(client: &Client, text: &str) {
    let mut keys = KeyActions::new("keyboard".to_string());
    for key in text.chars() {
        keys = keys
            .then(KeyAction::Down { value: key })
            .then(KeyAction::Up { value: key });
    }
    client.perform_actions(keys).await.expect("keys");
}

/// What has the focus: its id, else its accessible label, else its tag.
async fn focused(client: &Client) -> String {
    let found = client
        .execute(
            "const e = document.activeElement;
             return e.id || e.getAttribute('aria-label') || e.textContent.trim() || e.tagName;",
            vec![],
        )
        .await
        .expect("the focus");
    found.as_str().unwrap_or_default().to_string()
}

/// The input labelled `label` inside the fieldset whose legend is `group` (anywhere for "").
pub(crate) async fn input_in(
    client: &Client,
    group: &str,
    label: &str,
) -> fantoccini::elements::Element {
    let scope = if group.is_empty() {
        String::new()
    } else {
        format!("//fieldset[legend='{group}']")
    };
    let path = format!("{scope}//label[normalize-space(text())='{label}']");
    let id = client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::XPath(&path))
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .attr("for")
        .await
        .expect("for")
        .expect("a label for an input");
    client.find(Locator::Id(&id)).await.expect("the input")
}

/// Polls `script` (which returns a string) until `accept` takes it.
async fn wait_until(client: &Client, script: &str, accept: impl Fn(&str) -> bool) -> String {
    let mut last = String::new();
    for _ in 0..100 {
        let found = client.execute(script, vec![]).await.expect("script");
        last = found.as_str().unwrap_or_default().to_string();
        if accept(&last) {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("never: {script} → {last:?}");
}

fn fragment_value(url: &str, key: &str) -> Value {
    let fragment = url.split_once('#').map_or("", |(_, f)| f);
    let raw = fragment
        .split('&')
        .find_map(|pair| pair.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("{key} in {url}"));
    let decoded = percent_decode(raw);
    serde_json::from_str(&decoded).unwrap_or_else(|e| panic!("{decoded}: {e}"))
}

/// `application/x-www-form-urlencoded` decoding, as `URLSearchParams` wrote it.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).expect("ascii");
                out.push(u8::from_str_radix(hex, 16).expect("hex"));
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).expect("UTF-8")
}

//! The table page in a real browser: a game master and a player, each in a Chromium of their own
//! (separate profiles, so separate cookies), against one server on a loopback port.
//!
//! Every byte the server sends the player's browser is recorded by a layer in front of the server
//! (by the session cookie it came with), so the test can search all of it for a game-master-only
//! value, as well as the player's DOM.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use fantoccini::{Client, Locator};
use futures_util::StreamExt;
use omen_server::AppState;
use serde_json::{Value, json};

use crate::browser::{
    assert_accessible, driver, input_in, open_table, save_screenshot, session, until, wait_for,
};
use crate::{find_key, get, post};

/// A game-master-only value planted in the player's character's sheet: the source of a hidden Luck
/// modifier (seed 002 keeps intrinsic modifiers with the game master).
const HIDDEN: &str = "xyzzy-curse";

/// One chunk the server sent: the request's cookies, whether a bearer token asked, the bytes.
type Chunk = (Option<String>, bool, Vec<u8>);

/// What the server sent, chunk by chunk.
#[derive(Clone, Default)]
struct Records(Arc<Mutex<Vec<Chunk>>>);

async fn record(records: Records, mut request: Request, next: Next) -> Response {
    // Uncompressed answers, so the recorded bytes are the bytes the page reads.
    request.headers_mut().remove(header::ACCEPT_ENCODING);
    let cookie = request
        .headers()
        .get(header::COOKIE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let bearer = request.headers().contains_key(header::AUTHORIZATION);
    let response = next.run(request).await;
    let (parts, body) = response.into_parts();
    let stream = body.into_data_stream().map(move |chunk| {
        if let Ok(bytes) = &chunk {
            records
                .0
                .lock()
                .unwrap()
                .push((cookie.clone(), bearer, bytes.to_vec()));
        }
        chunk
    });
    Response::from_parts(parts, Body::from_stream(stream))
}

/// A server on `address` over the database at `path`, until `stop` is sent.
struct Running {
    state: AppState,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

async fn start(path: &Path, address: SocketAddr, records: &Records) -> (SocketAddr, Running) {
    let store = omen_store::Store::open(path).expect("the database opens");
    let state = AppState::new(store, crate::config());
    let records = records.clone();
    let app = omen_server::app(state.clone()).layer(axum::middleware::from_fn(
        move |request: Request, next: Next| record(records.clone(), request, next),
    ));
    // The old server's port can take a moment to be free again.
    let mut listener = None;
    for _ in 0..50 {
        match tokio::net::TcpListener::bind(address).await {
            Ok(bound) => {
                listener = Some(bound);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    let listener = listener.expect("the port is free again");
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let shutdown_state = state.clone();
    let task = tokio::spawn(async move {
        let _ = axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(async move {
            let _ = stopped.await;
            shutdown_state.begin_shutdown();
        })
        .await;
    });
    (address, Running { state, stop, task })
}

impl Running {
    fn api(&self) -> Router {
        omen_server::app(self.state.clone())
    }

    async fn stop(self) {
        let _ = self.stop.send(());
        tokio::time::timeout(Duration::from_secs(20), self.task)
            .await
            .expect("the server stops")
            .expect("the server task ends");
    }
}

async fn text(client: &Client, selector: &str) -> String {
    wait_for(client, selector)
        .await
        .text()
        .await
        .unwrap_or_default()
}

/// The sequence numbers of the log entries the page shows, in its order (newest first).
async fn shown_sequences(client: &Client) -> Vec<u64> {
    let found = client
        .execute(
            "return [...document.querySelectorAll('#log li[data-sequence]')].map((li) => Number(li.dataset.sequence));",
            vec![],
        )
        .await
        .expect("the log's entries");
    serde_json::from_value(found).unwrap()
}

async fn act(client: &Client, visibility: &str) {
    client
        .find(Locator::Id("act-visibility"))
        .await
        .unwrap()
        .select_by_value(visibility)
        .await
        .unwrap();
    client
        .find(Locator::Id("act-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

fn head(log: &Value) -> u64 {
    log.as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["sequence"].as_u64())
        .max()
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn a_game_master_and_a_player_share_a_live_table_that_hides_what_it_must() {
    let Some(driver) = driver() else { return };
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("omen.db");
    let records = Records::default();
    let (address, running) = start(&path, "127.0.0.1:0".parse().unwrap(), &records).await;
    let api = running.api();

    // The game master's campaign, a luck character with a hidden modifier, and the player's invite.
    let sheet = json!({ "intrinsic": [{ "source": HIDDEN, "value": 7 }] });
    let (gm_token, player_token) = crate::luck_table(&api, &["Ayla"], &sheet).await;

    let gm = session(&driver).await;
    let player = session(&driver).await;
    for (browser, token) in [(&gm, &gm_token), (&player, &player_token)] {
        open_table(&browser.client, address, token).await;
        // The token left the address bar.
        let url = browser.client.current_url().await.unwrap();
        assert!(!url.as_str().contains(token.as_str()), "{url}");
    }
    assert!(text(&gm.client, "#who").await.contains("game master"));
    assert!(
        text(&player.client, "#who")
            .await
            .contains("player for Ayla")
    );

    // Before rolling: the odds, which the game master sees and the player's page never receives.
    wait_for(&gm.client, "#act-action option[value='roll']").await;
    wait_for(&player.client, "#act-action option[value='roll']").await;
    gm.client
        .find(Locator::Id("odds-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(&gm.client, "#odds table").await;
    player
        .client
        .find(Locator::Id("odds-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    assert!(
        text(&player.client, "#odds p")
            .await
            .contains("game master keeps")
    );

    // The player's roll appears live in the game master's log, with its dice.
    act(&player.client, "public").await;
    wait_for(&player.client, "#roll-card .roll-card").await;
    let gm_log = get(&api, "/api/v1/campaigns/Tak/log", Some(&gm_token))
        .await
        .json();
    let public = head(&gm_log);
    // The page sent fresh entropy of its own for the roll's draw: the roll was chosen by no one.
    let logged = gm_log
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["sequence"] == public)
        .unwrap();
    assert_eq!(logged["draw"]["entropy_from"], "caller", "{logged}");
    assert_eq!(logged["draw"]["entropy"].as_str().map(str::len), Some(64));
    let gm_entry = wait_for(&gm.client, &format!("#log li[data-sequence='{public}']")).await;
    assert!(gm_entry.text().await.unwrap().contains("d50 ="));

    // A blind roll: "?" to its roller, the dice to the game master, until the reveal.
    act(&player.client, "blind").await;
    until(
        &player.client,
        "the blind roll's card",
        &format!(
            "const card = document.querySelector('#roll-card .roll-card'); \
             return !!card && card.getAttribute('aria-label') === 'roll {}';",
            public + 1
        ),
    )
    .await;
    let blind = public + 1;
    let card = text(&player.client, "#roll-card .roll-card").await;
    assert!(card.contains('?'), "{card}");
    assert!(!card.contains("d50 ="), "{card}");
    let player_item = text(&player.client, &format!("#log li[data-sequence='{blind}']")).await;
    assert!(player_item.contains('?'), "{player_item}");
    let gm_item = wait_for(&gm.client, &format!("#log li[data-sequence='{blind}']")).await;
    let gm_text = gm_item.text().await.unwrap();
    assert!(gm_text.contains("d50 ="), "{gm_text}");
    let faces = gm_item.find_all(Locator::Css(".die")).await.unwrap();
    assert!(!faces.is_empty());
    for face in faces {
        let face = face.text().await.unwrap();
        assert!(
            face.parse::<i64>().is_ok(),
            "the game master sees the die: {face}"
        );
    }

    // Screenshots of the table as each sees it, while the blind roll is still hidden.
    for (browser, name) in [(&gm, "table-gm.png"), (&player, "table-player.png")] {
        save_screenshot(&browser.client, name).await;
    }
    assert_accessible(&player.client, "the table (player)").await;
    assert_accessible(&gm.client, "the table (game master)").await;

    // The game master reveals it; the player's page shows it without a reload.
    gm.client
        .find(Locator::Css(&format!(
            "#log li[data-sequence='{blind}'] .reveal"
        )))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until(
        &player.client,
        "the revealed roll",
        &format!(
            "const li = document.querySelector(\"#log li[data-sequence='{blind}']\"); \
             return !!li && li.textContent.includes('d50 =');"
        ),
    )
    .await;

    // The hidden modifier: in the game master's page, and nowhere in the player's page nor in
    // anything the server sent the player's browser.
    let gm_page: String = gm
        .client
        .execute("return document.documentElement.outerHTML;", vec![])
        .await
        .unwrap()
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        gm_page.contains(HIDDEN),
        "the game master sees the sheet whole"
    );
    let player_page: String = player
        .client
        .execute("return document.documentElement.outerHTML;", vec![])
        .await
        .unwrap()
        .as_str()
        .unwrap()
        .to_string();
    assert!(!player_page.contains(HIDDEN), "the player's DOM holds it");
    let gm_cookie = gm
        .client
        .get_named_cookie("omen_session")
        .await
        .unwrap()
        .value()
        .to_string();
    let player_cookie = player
        .client
        .get_named_cookie("omen_session")
        .await
        .unwrap()
        .value()
        .to_string();
    {
        let recorded = records.0.lock().unwrap();
        let to_player: Vec<&Vec<u8>> = recorded
            .iter()
            .filter(|(cookie, bearer, _)| {
                !bearer && !cookie.as_deref().is_some_and(|c| c.contains(&gm_cookie))
            })
            .map(|(_, _, bytes)| bytes)
            .collect();
        assert!(
            recorded.iter().any(|(cookie, _, _)| cookie
                .as_deref()
                .is_some_and(|c| c.contains(&player_cookie))),
            "the player's requests were recorded"
        );
        let bytes: Vec<u8> = to_player.into_iter().flatten().copied().collect();
        let all = String::from_utf8_lossy(&bytes);
        assert!(
            all.contains("d50 ="),
            "the recording holds the player's log"
        );
        assert!(
            !all.contains(HIDDEN),
            "a response to the player's page holds the hidden modifier"
        );
    }

    running.stop().await;
}

#[tokio::test]
async fn the_table_page_is_served_with_the_strict_policy_and_needs_no_credential_to_load() {
    let app = crate::app();
    for (path, kind) in [
        ("/table", "text/html"),
        ("/table.js", "text/javascript"),
        ("/table.css", "text/css"),
    ] {
        let answer = get(&app, path, None).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        let header = |name: header::HeaderName| {
            answer.headers[name]
                .to_str()
                .unwrap_or_default()
                .to_string()
        };
        assert!(header(header::CONTENT_TYPE).starts_with(kind), "{path}");
        let policy = header(header::CONTENT_SECURITY_POLICY);
        assert!(policy.contains("default-src 'none'"), "{policy}");
        assert!(policy.contains("connect-src 'self'"), "{policy}");
        assert!(!policy.contains("unsafe"), "{policy}");
    }
}

/// The environment variables that make [`child_server`] serve: the database and the address.
const CHILD_DATABASE: &str = "OMEN_TEST_CHILD_DATABASE";
const CHILD_ADDRESS: &str = "OMEN_TEST_CHILD_ADDRESS";

/// Not a test: the server the kill test runs as a process of its own (this test binary started
/// again with this one test selected), so that it can be killed with SIGKILL, mid-stream, with no
/// chance to close anything. Without its environment variables it does nothing.
#[test]
#[ignore = "the kill test's server process; run by that test"]
fn child_server() {
    let (Some(database), Ok(address)) = (
        std::env::var_os(CHILD_DATABASE),
        std::env::var(CHILD_ADDRESS),
    ) else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async move {
        let store = omen_store::Store::open(Path::new(&database)).expect("the database opens");
        let state = AppState::new(store, crate::config());
        // The killed server's port can take a moment to be free again.
        let mut listener = None;
        for _ in 0..100 {
            match tokio::net::TcpListener::bind(&address).await {
                Ok(bound) => {
                    listener = Some(bound);
                    break;
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
        let listener = listener.expect("the port is free again");
        println!(
            "listening on {}",
            listener.local_addr().expect("an address")
        );
        let _ = omen_server::serve(listener, state, std::future::pending()).await;
    });
}

/// A server process over the database at `database` on `address`, killed when dropped.
struct ServerProcess {
    process: std::process::Child,
    address: SocketAddr,
}

impl ServerProcess {
    fn start(database: &Path, address: &str) -> ServerProcess {
        use std::io::{BufRead, BufReader};
        let mut process = std::process::Command::new(std::env::current_exe().expect("this test"))
            .args([
                "--exact",
                "table_page::child_server",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DATABASE, database)
            .env(CHILD_ADDRESS, address)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the server process starts");
        let stdout = process.stdout.take().expect("piped");
        let (announced, port) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                // The test harness starts the line with the test's name.
                if let Some(address) = line.split("listening on ").nth(1) {
                    let _ = announced.send(address.trim().parse::<SocketAddr>());
                }
            }
        });
        let address = port
            .recv_timeout(Duration::from_secs(30))
            .expect("the server process announces its address")
            .expect("an address");
        ServerProcess { process, address }
    }

    /// SIGKILL: the process ends at once, its connections cut, nothing flushed or closed by it.
    fn kill(mut self) {
        self.process.kill().expect("kill");
        self.process.wait().expect("the process ends");
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// One request over a connection of its own: the status and the JSON answer.
async fn http(
    address: SocketAddr,
    method: &str,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("a connection");
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {address}\r\nconnection: close\r\n\
         content-type: application/json\r\ncontent-length: {}\r\n",
        body.len()
    );
    if !token.is_empty() {
        request.push_str(&format!("authorization: Bearer {token}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("receive");
    let answer = String::from_utf8(answer).expect("UTF-8");
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

async fn roll_over_http(address: SocketAddr, token: &str) -> u64 {
    let (status, answer) = http(
        address,
        "POST",
        "/api/v1/campaigns/Tak/characters/Ayla/actions",
        token,
        Some(json!({ "action": { "action": "roll" } })),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    answer["entry"]["sequence"].as_u64().expect("a sequence")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_table_resumes_its_log_without_gaps_or_duplicates_after_the_server_is_killed() {
    let Some(driver) = driver() else { return };
    let directory = tempfile::tempdir().unwrap();
    let database = directory.path().join("omen.db");
    let first = ServerProcess::start(&database, "127.0.0.1:0");
    let address = first.address;

    let (status, made) = http(
        address,
        "POST",
        "/api/v1/campaigns",
        "",
        Some(json!({ "name": "Tak" })),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    let gm = made["game_master"]["token"].as_str().unwrap().to_string();
    let (status, character) = http(
        address,
        "POST",
        "/api/v1/campaigns/Tak/characters",
        &gm,
        Some(json!({ "name": "Ayla", "rule_set": "luck" })),
    )
    .await;
    assert_eq!(status, 201, "{character}");
    // Only character actions here: the page reads the whole listing again after a table roll, which
    // would fill a gap the stream left and hide it.
    let mut written = vec![
        roll_over_http(address, &gm).await,
        roll_over_http(address, &gm).await,
    ];

    let browser = session(&driver).await;
    let client = &browser.client;
    open_table(client, address, &gm).await;
    written.push(roll_over_http(address, &gm).await);
    wait_for(client, &format!("#log li[data-sequence='{}']", written[2])).await;

    // SIGKILL, with the page's stream open.
    first.kill();
    until(
        client,
        "the page sees the connection go",
        "return document.body.dataset.live === 'false';",
    )
    .await;
    // Two actions while the server is down, written to its database directly.
    {
        let mut store = omen_store::Store::open(&database).unwrap();
        for _ in 0..2 {
            let entry = store
                .act(
                    "Tak",
                    "Ayla",
                    &json!({ "action": "roll" }),
                    omen_store::Dice::Derived,
                    &omen_core::Limits::default(),
                )
                .unwrap();
            written.push(entry.sequence);
        }
    }
    // A new process on the same database and port; two actions right after it starts, before the
    // page has necessarily reconnected.
    let second = ServerProcess::start(&database, &address.to_string());
    assert_eq!(second.address, address);
    written.push(roll_over_http(address, &gm).await);
    written.push(roll_over_http(address, &gm).await);
    until(
        client,
        "the page reconnects",
        "return document.body.dataset.live === 'true';",
    )
    .await;
    // One more once it follows again.
    written.push(roll_over_http(address, &gm).await);

    let (status, log) = http(address, "GET", "/api/v1/campaigns/Tak/log", &gm, None).await;
    assert_eq!(status, 200);
    let mut expected: Vec<u64> = log
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["sequence"].as_u64())
        .collect();
    expected.sort_unstable_by(|a, b| b.cmp(a));
    assert!(
        written.iter().all(|s| expected.contains(s)),
        "{written:?} in {expected:?}"
    );
    let mut shown = Vec::new();
    for _ in 0..200 {
        shown = shown_sequences(client).await;
        if shown.first() == expected.first() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(shown, expected, "every entry once, newest first");
    // The live region announced each entry made after the page loaded exactly once.
    let announced = client
        .execute(
            "return [...document.querySelectorAll('#announcer p')].map((p) => p.innerText);",
            vec![],
        )
        .await
        .unwrap();
    let announced: Vec<String> = serde_json::from_value(announced).unwrap();
    let numbers: Vec<u64> = announced
        .iter()
        .filter_map(|t| {
            t.strip_prefix("New entry ")?
                .split(':')
                .next()?
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(numbers, written[2..], "{announced:?}");

    // The log verifies in the page; the receipts it hands over are every entry's, in order.
    client
        .execute(crate::browser::RECORD_DOWNLOADS, vec![])
        .await
        .unwrap();
    client
        .find(Locator::Id("verify-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until(
        client,
        "the log verifies",
        "return document.getElementById('verify-result').innerText.startsWith('The log verifies');",
    )
    .await;
    client
        .find(Locator::Id("receipts-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until(
        client,
        "the receipts",
        "return window.downloads.length === 1;",
    )
    .await;
    let receipts = client
        .execute("return window.downloads[0];", vec![])
        .await
        .unwrap();
    assert_eq!(receipts["name"], "Tak-receipts.json");
    let receipts: Value = serde_json::from_str(receipts["text"].as_str().unwrap()).unwrap();
    let listed: Vec<u64> = receipts["receipts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["sequence"].as_u64().unwrap())
        .collect();
    let mut ascending = expected.clone();
    ascending.reverse();
    assert_eq!(listed, ascending);
    for receipt in receipts["receipts"].as_array().unwrap() {
        let entry = log
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["sequence"] == receipt["sequence"])
            .unwrap();
        assert_eq!(receipt["hash"], entry["hash"]);
    }
    // The fairness report: a table and a chart per die; the d50's observed faces add up to the
    // d50s in the log.
    client
        .find(Locator::Id("fairness-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(client, "#fairness svg.chart[role=img]").await;
    let observed = client
        .execute(
            "const table = [...document.querySelectorAll('#fairness table')]
                 .find((t) => t.querySelector('caption').innerText.startsWith('d50'));
             return [...table.querySelectorAll('tbody tr')]
                 .reduce((sum, row) => sum + Number(row.cells[1].innerText), 0);",
            vec![],
        )
        .await
        .unwrap();
    let d50s = log
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["dice"].as_array().cloned().unwrap_or_default())
        .filter(|d| d["die"] == "d50")
        .count();
    assert!(d50s >= written.len(), "{d50s}");
    assert_eq!(observed, json!(d50s));
    assert_accessible(client, "the table with the fairness report").await;
    save_screenshot(client, "table-fairness.png").await;
    browser.client.close().await.unwrap();
    second.kill();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn an_actions_nested_object_is_a_fieldset_of_its_own_and_reaches_the_server_whole() {
    let Some(driver) = driver() else { return };
    let directory = tempfile::tempdir().unwrap();
    let (address, running) = start(
        &directory.path().join("omen.db"),
        "127.0.0.1:0".parse().unwrap(),
        &Records::default(),
    )
    .await;
    let api = running.api();
    let made = post(&api, "/api/v1/campaigns", None, json!({ "name": "Hall" })).await;
    let gm = made.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    // A character from the rule set's own example sheet; its cast action has a nested object (how
    // the optional successes are spent) and a list drawn from fixed values (feats).
    let rules = get(&api, "/api/v1/rules/hprpg", None).await.json();
    let sheet = rules["schemas"]["sheet"]["examples"][0].clone();
    let created = post(
        &api,
        "/api/v1/campaigns/Hall/characters",
        Some(&gm),
        json!({ "name": "Mira", "rule_set": "hprpg", "sheet": sheet }),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json());

    let browser = session(&driver).await;
    let client = &browser.client;
    // Without an invite, the page asks for one.
    client
        .goto(&format!("http://{address}/table"))
        .await
        .unwrap();
    wait_for(client, "#join-section:not([hidden]) #join-token").await;
    assert_accessible(client, "the table's join form").await;
    client
        .goto(&format!("http://{address}/table#join={gm}"))
        .await
        .unwrap();
    wait_for(client, "#act-action option[value='cast']").await;
    client
        .find(Locator::Id("act-action"))
        .await
        .unwrap()
        .select_by_value("cast")
        .await
        .unwrap();
    // A menu of the disciplines and a number box for the level, the required inputs.
    let discipline = input_in(client, "Inputs", "Discipline").await;
    assert_eq!(discipline.tag_name().await.unwrap(), "select");
    discipline.select_by_value("\"HEXES\"").await.unwrap();
    let level = input_in(client, "Inputs", "Level").await;
    assert_eq!(level.attr("type").await.unwrap().as_deref(), Some("number"));
    level.send_keys("1").await.unwrap();
    // The nested object: a fieldset of its own, one number box per field, each labelled.
    for name in ["Overpower", "Defy", "Extend"] {
        let input = input_in(client, "Optional", name).await;
        assert_eq!(input.attr("type").await.unwrap().as_deref(), Some("number"));
        assert_eq!(input.prop("value").await.unwrap().as_deref(), Some("0"));
    }
    let defy = input_in(client, "Optional", "Defy").await;
    defy.clear().await.unwrap();
    defy.send_keys("1").await.unwrap();
    // Feats: the lines of a box, values from the schema's list.
    let feats = input_in(client, "Inputs", "Feats").await;
    assert_eq!(feats.tag_name().await.unwrap(), "textarea");
    // Every input of this action has a form of its own: no JSON box.
    assert!(
        client
            .find_all(Locator::Css("#act-fields [data-json]"))
            .await
            .unwrap()
            .is_empty(),
        "{}",
        text(client, "#act-fields").await
    );
    assert_accessible(client, "the table with a nested action form").await;
    save_screenshot(client, "table-nested-form.png").await;

    act(client, "public").await;
    let card = text(client, "#roll-card .roll-card").await;
    assert!(card.contains("cast"), "{card}");
    let log = get(&api, "/api/v1/campaigns/Hall/log", Some(&gm))
        .await
        .json();
    let entry = log
        .as_array()
        .unwrap()
        .iter()
        .rfind(|e| e["action"] == "cast")
        .unwrap_or_else(|| panic!("a cast in {log}"));
    let optional = find_key(&entry["inputs"], "optional").expect("the nested object");
    assert_eq!(optional["defy"], 1, "{}", entry["inputs"]);
    assert_eq!(optional["overpower"], 0);
    assert_eq!(optional["extend"], 0);
    assert_eq!(find_key(&entry["inputs"], "discipline").unwrap(), "HEXES");
    assert_eq!(find_key(&entry["inputs"], "level").unwrap(), 1);

    // A shape the generator has no form for is JSON in a box that says so: a Dice Test's bought
    // dice are a list of groups.
    let created = post(
        &api,
        "/api/v1/campaigns/Hall/characters",
        Some(&gm),
        json!({ "name": "Tove", "rule_set": "t13",
                "sheet": get(&api, "/api/v1/rules/t13", None).await.json()["schemas"]["sheet"]["examples"][0] }),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json());
    client.refresh().await.unwrap();
    wait_for(client, "#act-character option[value='Tove']").await;
    client
        .find(Locator::Id("act-character"))
        .await
        .unwrap()
        .select_by_value("Tove")
        .await
        .unwrap();
    wait_for(client, "#act-action option[value='test']").await;
    let bought = input_in(client, "Inputs", "Bought").await;
    assert_eq!(
        bought.attr("data-json").await.unwrap().as_deref(),
        Some("true")
    );
    let note = text(client, "#act-fields .json-note").await;
    assert!(note.contains("as JSON"), "{note}");
    let opponent = input_in(client, "Inputs", "Opponent dice").await;
    assert_eq!(opponent.attr("data-json").await.unwrap(), None);
    browser.client.close().await.unwrap();
    running.stop().await;
}

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

use crate::browser::{assert_accessible, driver, screenshot_path, session, wait_for};
use crate::{get, post};

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

/// Waits until `script` (a function body returning a boolean) is true in the page.
async fn until(client: &Client, what: &str, script: &str) {
    for _ in 0..200 {
        if client
            .execute(script, vec![])
            .await
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{what}: never true");
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
async fn a_game_master_and_a_player_share_a_live_table_that_hides_what_it_must_and_survives_a_restart()
 {
    let Some(driver) = driver() else { return };
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("omen.db");
    let records = Records::default();
    let (address, running) = start(&path, "127.0.0.1:0".parse().unwrap(), &records).await;
    let api = running.api();

    // The game master's campaign, a luck character with a hidden modifier, and the player's invite.
    let made = post(&api, "/api/v1/campaigns", None, json!({ "name": "Tak" })).await;
    let gm_token = made.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let character = post(
        &api,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm_token),
        json!({ "name": "Ayla", "rule_set": "luck",
                "sheet": { "intrinsic": [{ "source": HIDDEN, "value": 7 }] } }),
    )
    .await;
    assert_eq!(
        character.status,
        StatusCode::CREATED,
        "{}",
        character.json()
    );
    let invited = post(
        &api,
        "/api/v1/campaigns/Tak/invites",
        Some(&gm_token),
        json!({ "role": "player", "character": "Ayla" }),
    )
    .await;
    let player_token = invited.json()["token"].as_str().unwrap().to_string();

    let gm = session(&driver).await;
    let player = session(&driver).await;
    for (browser, token) in [(&gm, &gm_token), (&player, &player_token)] {
        browser
            .client
            .goto(&format!("http://{address}/table#join={token}"))
            .await
            .unwrap();
        until(
            &browser.client,
            "the page follows the log",
            "return document.body.dataset.live === 'true';",
        )
        .await;
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
    let public = head(
        &get(&api, "/api/v1/campaigns/Tak/log", Some(&gm_token))
            .await
            .json(),
    );
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
        let png = browser.client.screenshot().await.unwrap();
        std::fs::write(screenshot_path(name), &png).unwrap();
        // The README's copies change only when asked, so a test run leaves the checkout clean.
        if std::env::var_os("OMEN_UPDATE_SCREENSHOTS").is_some() {
            let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/screenshots");
            std::fs::create_dir_all(&docs).unwrap();
            std::fs::write(docs.join(name), &png).unwrap();
        }
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

    // The server stops; an entry is written while it is down; it starts again on the same port and
    // database. The page reconnects and shows every entry once.
    running.stop().await;
    {
        let mut store = omen_store::Store::open(&path).unwrap();
        store
            .roll(
                "Tak",
                None,
                "3d6",
                &Default::default(),
                &omen_store::Dice::Derived,
                &omen_core::Limits::default(),
            )
            .unwrap();
    }
    let (again, running) = start(&path, address, &records).await;
    assert_eq!(again, address);
    let api = running.api();
    until(
        &player.client,
        "the page reconnects",
        "return document.body.dataset.live === 'true';",
    )
    .await;
    let rolled = post(
        &api,
        "/api/v1/campaigns/Tak/rolls",
        Some(&gm_token),
        json!({ "expression": "2d6" }),
    )
    .await;
    assert_eq!(rolled.status, StatusCode::OK);
    let listing = get(&api, "/api/v1/campaigns/Tak/log", Some(&player_token))
        .await
        .json();
    let mut expected: Vec<u64> = listing
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["sequence"].as_u64())
        .collect();
    expected.sort_unstable_by(|a, b| b.cmp(a));
    for browser in [&player, &gm] {
        let mut shown = Vec::new();
        for _ in 0..200 {
            shown = shown_sequences(&browser.client).await;
            if shown.first() == expected.first() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        if std::ptr::eq(browser, &player) {
            assert_eq!(shown, expected, "no gap and no duplicate");
        } else {
            let mut distinct = shown.clone();
            distinct.dedup();
            assert_eq!(distinct, shown, "no duplicate");
            assert_eq!(shown.first(), expected.first());
        }
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

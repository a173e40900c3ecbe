//! A real server on 127.0.0.1 port 0, a minimal HTTP/1.1 client, and the event stream: resume with
//! Last-Event-ID, and many clients acting at once.

use std::net::SocketAddr;
use std::time::Duration;

use axum::http::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

use crate::Answer;

/// A server on a free port; dropping the sender shuts it down.
pub struct Live {
    pub address: SocketAddr,
    _stop: oneshot::Sender<()>,
}

pub async fn start(state: omen_server::AppState) -> Live {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(omen_server::serve(listener, state, async move {
        let _ = stopped.await;
    }));
    Live {
        address,
        _stop: stop,
    }
}

fn request_text(
    method: &str,
    path: &str,
    token: Option<&str>,
    headers: &[(&str, String)],
    body: Option<&Value>,
) -> String {
    let mut text = format!("{method} {path} HTTP/1.1\r\nhost: localhost\r\n");
    if let Some(token) = token {
        text.push_str(&format!("authorization: Bearer {token}\r\n"));
    }
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    match body {
        Some(body) => {
            let body = body.to_string();
            text.push_str(&format!(
                "content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            ));
        }
        None => text.push_str("connection: close\r\n\r\n"),
    }
    text
}

/// Decodes a chunked body as far as it is complete: the data, and the bytes not yet decodable.
fn dechunk(raw: &[u8]) -> (Vec<u8>, usize) {
    let mut out = Vec::new();
    let mut at = 0;
    loop {
        let Some(line_end) = raw[at..].windows(2).position(|w| w == b"\r\n") else {
            return (out, at);
        };
        let size_text = String::from_utf8_lossy(&raw[at..at + line_end]).to_string();
        let Ok(size) = usize::from_str_radix(size_text.trim(), 16) else {
            return (out, at);
        };
        let start = at + line_end + 2;
        if raw.len() < start + size + 2 {
            return (out, at);
        }
        out.extend_from_slice(&raw[start..start + size]);
        at = start + size + 2;
        if size == 0 {
            return (out, at);
        }
    }
}

/// One request over a fresh connection.
pub async fn http(
    address: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> Answer {
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream
        .write_all(request_text(method, path, token, &[], body.as_ref()).as_bytes())
        .await
        .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let mut headers = axum::http::HeaderMap::new();
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            headers.insert(
                axum::http::HeaderName::from_bytes(name.trim().as_bytes()).unwrap(),
                value.trim().parse().unwrap(),
            );
        }
    }
    let body = &raw[split + 4..];
    let bytes = if headers
        .get("transfer-encoding")
        .is_some_and(|v| v == "chunked")
    {
        dechunk(body).0
    } else {
        body.to_vec()
    };
    Answer {
        status: StatusCode::from_u16(status).unwrap(),
        headers,
        bytes,
    }
}

/// An open event stream.
pub struct Events {
    stream: TcpStream,
    raw: Vec<u8>,
    decoded: Vec<u8>,
    /// Every byte of the stream's body so far, for searching.
    pub seen: Vec<u8>,
    pub status: u16,
}

impl Events {
    pub async fn open(
        address: SocketAddr,
        path: &str,
        token: &str,
        last_event_id: Option<u64>,
    ) -> Events {
        let mut stream = TcpStream::connect(address).await.unwrap();
        let headers: Vec<(&str, String)> = last_event_id
            .map(|id| ("last-event-id", id.to_string()))
            .into_iter()
            .collect();
        stream
            .write_all(request_text("GET", path, Some(token), &headers, None).as_bytes())
            .await
            .unwrap();
        let mut raw = Vec::new();
        let mut buf = [0u8; 4096];
        let split = loop {
            if let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                break split;
            }
            let n = stream.read(&mut buf).await.unwrap();
            assert!(n > 0, "the stream closed before its head");
            raw.extend_from_slice(&buf[..n]);
        };
        let head = String::from_utf8_lossy(&raw[..split]).to_string();
        let status = head
            .lines()
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        Events {
            stream,
            raw: raw[split + 4..].to_vec(),
            decoded: Vec::new(),
            seen: Vec::new(),
            status,
        }
    }

    /// The next `entry` event: its id and data; `None` if none comes within two seconds.
    pub async fn next(&mut self) -> Option<(u64, Value)> {
        let mut buf = [0u8; 8192];
        loop {
            let (data, used) = dechunk(&self.raw);
            self.raw.drain(..used);
            self.seen.extend_from_slice(&data);
            self.decoded.extend_from_slice(&data);
            while let Some(end) = self.decoded.windows(2).position(|w| w == b"\n\n") {
                let block: Vec<u8> = self.decoded.drain(..end + 2).collect();
                let block = String::from_utf8(block).unwrap();
                let mut id = None;
                let mut payload = None;
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("id:") {
                        id = v.trim().parse().ok();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        payload = serde_json::from_str(v.trim()).ok();
                    }
                }
                if let (Some(id), Some(payload)) = (id, payload) {
                    return Some((id, payload));
                }
            }
            match tokio::time::timeout(Duration::from_secs(2), self.stream.read(&mut buf)).await {
                Ok(Ok(n)) if n > 0 => self.raw.extend_from_slice(&buf[..n]),
                _ => return None,
            }
        }
    }
}

async fn campaign_with_ayla(live: &Live) -> String {
    let made = http(
        live.address,
        "POST",
        "/api/v1/campaigns",
        None,
        Some(json!({ "name": "Tak" })),
    )
    .await;
    let gm = made.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let ayla = http(
        live.address,
        "POST",
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        Some(json!({ "name": "Ayla", "rule_set": "luck" })),
    )
    .await;
    assert_eq!(ayla.status, StatusCode::CREATED);
    gm
}

async fn roll(live: &Live, token: &str) -> u64 {
    let acted = http(
        live.address,
        "POST",
        "/api/v1/campaigns/Tak/characters/Ayla/actions",
        Some(token),
        Some(json!({ "action": { "action": "roll" } })),
    )
    .await;
    assert_eq!(
        acted.status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&acted.bytes)
    );
    acted.json()["entry"]["sequence"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnecting_client_resumes_exactly_after_its_last_event_id() {
    let live = start(crate::state_with(crate::config())).await;
    let gm = campaign_with_ayla(&live).await;
    let mut events = Events::open(live.address, "/api/v1/campaigns/Tak/events", &gm, None).await;
    assert_eq!(events.status, 200);
    let mut written = Vec::new();
    for _ in 0..3 {
        written.push(roll(&live, &gm).await);
    }
    let mut got = Vec::new();
    for _ in 0..3 {
        let (id, entry) = events.next().await.expect("an event");
        assert_eq!(entry["sequence"], id);
        got.push(id);
    }
    assert_eq!(
        got, written,
        "a fresh stream starts after the head it found"
    );
    drop(events);
    // Entries written while the client was away, then a reconnect after the second event it saw.
    for _ in 0..2 {
        written.push(roll(&live, &gm).await);
    }
    let mut resumed = Events::open(
        live.address,
        "/api/v1/campaigns/Tak/events",
        &gm,
        Some(got[1]),
    )
    .await;
    let mut again = Vec::new();
    while let Some((id, _)) = resumed.next().await {
        again.push(id);
        if id == *written.last().unwrap() {
            break;
        }
    }
    assert_eq!(
        again,
        written[2..].to_vec(),
        "exactly the entries after Last-Event-ID, once each"
    );
    // ?after=0 replays the whole log: campaign creation onwards.
    let mut replay = Events::open(
        live.address,
        "/api/v1/campaigns/Tak/events?after=0",
        &gm,
        None,
    )
    .await;
    let (first, _) = replay.next().await.unwrap();
    assert_eq!(first, 1);
    let malformed = http(
        live.address,
        "GET",
        "/api/v1/campaigns/Tak/events?after=x",
        Some(&gm),
        None,
    )
    .await;
    assert_eq!(malformed.status, StatusCode::BAD_REQUEST);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_streams_past_the_cap_are_refused_with_retry_after() {
    let mut config = crate::config();
    config.max_event_streams = 1;
    let live = start(crate::state_with(config)).await;
    let gm = campaign_with_ayla(&live).await;
    let first = Events::open(live.address, "/api/v1/campaigns/Tak/events", &gm, None).await;
    assert_eq!(first.status, 200);
    let second = http(
        live.address,
        "GET",
        "/api/v1/campaigns/Tak/events",
        Some(&gm),
        None,
    )
    .await;
    assert_eq!(second.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(second.headers.contains_key("retry-after"));
    assert_eq!(second.kind(), "busy");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_actions_are_all_logged_once_streamed_in_order_and_verify() {
    let live = start(crate::state_with(crate::config())).await;
    let gm = campaign_with_ayla(&live).await;
    let mut events = Events::open(live.address, "/api/v1/campaigns/Tak/events", &gm, None).await;
    let clients = 8;
    let each = 10;
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (address, token) = (live.address, gm.clone());
        tasks.push(tokio::spawn(async move {
            let live = Live {
                address,
                _stop: oneshot::channel().0,
            };
            let mut sequences = Vec::new();
            for _ in 0..each {
                sequences.push(roll(&live, &token).await);
            }
            sequences
        }));
    }
    let mut acknowledged = Vec::new();
    for task in tasks {
        acknowledged.extend(task.await.unwrap());
    }
    acknowledged.sort_unstable();
    acknowledged.dedup();
    assert_eq!(
        acknowledged.len(),
        clients * each,
        "every action has its own entry"
    );
    let mut streamed = Vec::new();
    while streamed.len() < clients * each {
        let (id, _) = events.next().await.expect("every entry is streamed");
        streamed.push(id);
    }
    assert_eq!(streamed, acknowledged, "in order, none missing, none twice");
    let log = http(
        live.address,
        "GET",
        "/api/v1/campaigns/Tak/log?action=roll",
        Some(&gm),
        None,
    )
    .await;
    assert_eq!(log.json().as_array().unwrap().len(), clients * each);
    let verified = http(
        live.address,
        "GET",
        "/api/v1/campaigns/Tak/verify",
        Some(&gm),
        None,
    )
    .await;
    assert_eq!(verified.json()["ok"], true);
}

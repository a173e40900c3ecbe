//! From an attacker's side, over real sockets: connections that send nothing or half a request,
//! idle keep-alive connections, oversized heads, many connections from one address, a page on
//! another site reaching the server through a name it controls (DNS rebinding), and answers a
//! cache could keep. Addresses 127.0.0.2 and up stand for other clients (Linux routes all of
//! 127.0.0.0/8 to the loopback). Timeouts are configured small; nothing here measures speed.

use std::net::SocketAddr;
use std::time::Duration;

use axum::http::{Method, StatusCode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::live::{Live, start};

/// How long a test waits for something that must happen; a hang, not a speed, is what it catches.
const PATIENCE: Duration = Duration::from_secs(20);

/// A connection to `address` from `source` (an address of the loopback).
pub async fn connect_from(source: &str, address: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(format!("{source}:0").parse().unwrap()).unwrap();
    socket.connect(address).await.unwrap()
}

/// A parsed answer: status, head (lower case) and body.
pub struct Raw {
    pub status: u16,
    pub head: String,
    pub body: Vec<u8>,
}

/// Reads one answer with a `content-length` (what every answer here has).
pub async fn read_answer(stream: &mut TcpStream) -> Option<Raw> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    let split = loop {
        if let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break split;
        }
        match tokio::time::timeout(PATIENCE, stream.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => raw.extend_from_slice(&buf[..n]),
            _ => return None,
        }
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_lowercase();
    let status = head.split(' ').nth(1)?.parse().ok()?;
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let mut body = raw[split + 4..].to_vec();
    while body.len() < length {
        match tokio::time::timeout(PATIENCE, stream.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => body.extend_from_slice(&buf[..n]),
            _ => return None,
        }
    }
    Some(Raw { status, head, body })
}

/// A GET with `host`, kept alive.
pub fn get_text(path: &str, host: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nhost: {host}\r\n\r\n")
}

/// Whether the server closes `stream` (end of file or reset) within [`PATIENCE`].
async fn closed_by_server(stream: &mut TcpStream) -> bool {
    let mut buf = [0u8; 1024];
    loop {
        match tokio::time::timeout(PATIENCE, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
            Err(_) => return false,
        }
    }
}

fn with(change: impl FnOnce(&mut omen_server::Config)) -> omen_server::AppState {
    let mut config = crate::config();
    change(&mut config);
    crate::state_with(config)
}

fn kind(answer: &Raw) -> String {
    let body: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
    body["errors"][0]["kind"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_half_sent_request_is_closed_after_the_header_timeout() {
    let live = start(with(|c| c.header_timeout = Duration::from_millis(200))).await;
    let mut half = connect_from("127.0.0.1", live.address).await;
    half.write_all(b"GET /api/v1/rules HTTP/1.1\r\nhost: localhost\r\nx-slow: ")
        .await
        .unwrap();
    let mut silent = connect_from("127.0.0.1", live.address).await;
    assert!(closed_by_server(&mut half).await, "half a head holds on");
    assert!(
        closed_by_server(&mut silent).await,
        "a silent socket holds on"
    );
    // A whole request on a new connection is answered as ever.
    let mut whole = connect_from("127.0.0.1", live.address).await;
    whole
        .write_all(get_text("/api/v1/rules", "localhost").as_bytes())
        .await
        .unwrap();
    assert_eq!(read_answer(&mut whole).await.unwrap().status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_keep_alive_connection_is_closed_after_the_idle_timeout() {
    let live = start(with(|c| c.idle_timeout = Duration::from_millis(200))).await;
    let mut kept = connect_from("127.0.0.1", live.address).await;
    for _ in 0..2 {
        kept.write_all(get_text("/api/v1/rules", "localhost").as_bytes())
            .await
            .unwrap();
        assert_eq!(read_answer(&mut kept).await.unwrap().status, 200);
    }
    assert!(closed_by_server(&mut kept).await, "an idle socket holds on");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_stream_outlives_the_idle_timeout() {
    let live = start(with(|c| c.idle_timeout = Duration::from_millis(100))).await;
    let made = crate::live::http(
        live.address,
        "POST",
        "/api/v1/campaigns",
        None,
        Some(serde_json::json!({ "name": "Tak" })),
    )
    .await;
    let gm = made.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let mut events =
        crate::live::Events::open(live.address, "/api/v1/campaigns/Tak/events", &gm, None).await;
    assert_eq!(events.status, 200);
    // Ten idle timeouts with nothing to stream: the stream is an answer in progress, not idle.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rolled = crate::live::http(
        live.address,
        "POST",
        "/api/v1/campaigns/Tak/rolls",
        Some(&gm),
        Some(serde_json::json!({ "expression": "d20" })),
    )
    .await;
    assert!(rolled.status.is_success(), "{:?}", rolled.json());
    assert!(events.next().await.is_some(), "the stream was closed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_headers_are_refused() {
    let live = start(crate::state_with(crate::config())).await;
    let head = |bytes: usize| {
        format!(
            "GET /api/v1/rules HTTP/1.1\r\nhost: localhost\r\nx-padding: {}\r\n\r\n",
            "a".repeat(bytes)
        )
    };
    // 12 KiB of headers: under the 16 KiB default.
    let mut fits = connect_from("127.0.0.1", live.address).await;
    fits.write_all(head(12 << 10).as_bytes()).await.unwrap();
    assert_eq!(read_answer(&mut fits).await.unwrap().status, 200);
    // 20 KiB and 390 KiB (what the server once took): refused, 431.
    for bytes in [20 << 10, 390 << 10] {
        let mut over = connect_from("127.0.0.1", live.address).await;
        // The server may close before the whole head is sent: only the answer counts.
        let _ = over.write_all(head(bytes).as_bytes()).await;
        let answer = read_answer(&mut over).await.expect("an answer");
        assert_eq!(answer.status, 431, "{bytes} bytes of headers");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sockets_cannot_lock_out_other_clients() {
    // Timeouts long enough that only the per-address cap can protect the other client.
    let live = start(with(|c| {
        c.connections_per_client = 4;
        c.header_timeout = Duration::from_secs(120);
        c.idle_timeout = Duration::from_secs(120);
    }))
    .await;
    let mut held = Vec::new();
    for _ in 0..40 {
        held.push(connect_from("127.0.0.1", live.address).await);
    }
    // Past its four, every one of the attacker's sockets is closed: answered 429 first, unless
    // the server is busy refusing many at once.
    let (mut refused, mut answered, mut open) = (0, 0, 0);
    for stream in &mut held {
        let mut buf = [0u8; 1];
        match tokio::time::timeout(Duration::from_secs(2), stream.peek(&mut buf)).await {
            Ok(_) => {
                refused += 1;
                if let Some(answer) = read_answer(stream).await {
                    assert_eq!(answer.status, 429);
                    assert!(answer.head.contains("retry-after: 1"));
                    assert_eq!(kind(&answer), "too-many-connections");
                    answered += 1;
                }
            }
            Err(_) => open += 1,
        }
    }
    assert_eq!((open, refused), (4, 36));
    assert!(answered > 0, "no refusal said why");
    // Another address is served while the attacker holds its share.
    let mut other = connect_from("127.0.0.2", live.address).await;
    other
        .write_all(get_text("/api/v1/rules", "localhost").as_bytes())
        .await
        .unwrap();
    assert_eq!(read_answer(&mut other).await.unwrap().status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_server_refuses_until_the_silent_sockets_time_out() {
    let live = start(with(|c| {
        c.max_connections = 6;
        c.connections_per_client = 3;
        c.header_timeout = Duration::from_millis(300);
    }))
    .await;
    let mut silent = Vec::new();
    for source in ["127.0.0.3", "127.0.0.4"] {
        for _ in 0..3 {
            silent.push(connect_from(source, live.address).await);
        }
    }
    // The server holds six, so the seventh, from anyone, is refused with 503, not left waiting.
    let mut turned_away = connect_from("127.0.0.2", live.address).await;
    turned_away
        .write_all(get_text("/api/v1/rules", "localhost").as_bytes())
        .await
        .unwrap();
    let answer = read_answer(&mut turned_away).await.expect("an answer");
    assert_eq!(answer.status, 503);
    assert!(answer.head.contains("retry-after"));
    for stream in &mut silent {
        assert!(closed_by_server(stream).await);
    }
    let mut served = connect_from("127.0.0.2", live.address).await;
    served
        .write_all(get_text("/api/v1/rules", "localhost").as_bytes())
        .await
        .unwrap();
    assert_eq!(read_answer(&mut served).await.unwrap().status, 200);
}

#[test]
fn the_connection_bound_stays_below_the_descriptor_limit() {
    let soft = omen_server::raise_descriptor_limit();
    let bound = omen_server::connection_limit(usize::MAX);
    if let Some(soft) = soft {
        assert!(bound as u64 + omen_server::RESERVED_DESCRIPTORS <= soft.max(144));
    }
    assert_eq!(omen_server::connection_limit(10), 10);
}

async fn get_with_host(live: &Live, host: &str) -> Raw {
    let mut stream = connect_from("127.0.0.1", live.address).await;
    stream
        .write_all(get_text("/api/v1/rules", host).as_bytes())
        .await
        .unwrap();
    read_answer(&mut stream).await.expect("an answer")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebinding_host_is_refused() {
    let live = start(with(|c| c.public_names = vec!["omen.example.org".into()])).await;
    let port = live.address.port();
    // A page on evil.example whose name now points at 127.0.0.1 sends its own name.
    for host in [
        format!("evil.example:{port}"),
        "localhost.evil.example".into(),
    ] {
        let refused = get_with_host(&live, &host).await;
        assert_eq!(refused.status, 421, "{host}");
        assert_eq!(kind(&refused), "unknown-host");
        assert!(String::from_utf8_lossy(&refused.body).contains("--public-name"));
    }
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        "omen.example.org".into(),
        "OMEN.example.org.:443".into(),
    ] {
        assert_eq!(get_with_host(&live, &host).await.status, 200, "{host}");
    }
}

#[tokio::test]
async fn api_answers_are_neither_cached_nor_sniffed() {
    let app = crate::app();
    for (path, status) in [
        ("/api/v1/rules", StatusCode::OK),
        ("/api/v1/no-such-route", StatusCode::NOT_FOUND),
        ("/api/v1/openapi.json", StatusCode::OK),
    ] {
        let answer = crate::call(&app, Method::GET, path, None, None).await;
        assert_eq!(answer.status, status, "{path}");
        assert_eq!(answer.headers["cache-control"], "no-store", "{path}");
        assert_eq!(
            answer.headers["x-content-type-options"], "nosniff",
            "{path}"
        );
    }
    let page = crate::call(&app, Method::GET, "/", None, None).await;
    assert_eq!(page.headers["x-content-type-options"], "nosniff");
    assert_ne!(page.headers["cache-control"], "no-store");
}

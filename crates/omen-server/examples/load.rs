//! A load generator for `omen serve`, on loopback, bounded in time and in requests: throughput and
//! p50/p99 latency at 64 connections for typical `prob` requests (cached and uncached), for logged
//! actions spread over 100 campaigns, and for typical `prob` requests while one address attacks:
//! 8 connections of hostile requests (each spending the whole work budget) and every other socket
//! the server lets that address hold, idle.
//!
//! ```text
//! cargo run --profile test -p omen-server --example load [-- SECONDS_PER_SCENARIO]
//! ```
//!
//! The server runs in this process on a file database in a temporary directory (or the empty
//! database `OMEN_LOAD_DB` names, e.g. a `postgres://` URL), with the default limits and no rate
//! limit. The connections come from eight loopback addresses (127.0.0.2 to 127.0.0.9), as the
//! server shares connections and computations by address; the attacker of the mix is 127.0.0.1.
//!
//! With `OMEN_LOAD_TARGETS=HOST:PORT[,HOST:PORT…]` it starts no server: it sends the logged actions
//! alone to those running `omen serve` processes (each connection to one of them in turn, the
//! campaigns made through the first, the logs read back through the last), on
//! `OMEN_LOAD_CONNECTIONS` connections (default 64, at most 1,024), and ends with a `row:` line for
//! `bench/serve-pg`'s table.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

const CONNECTIONS: usize = 64;
/// Most connections `OMEN_LOAD_CONNECTIONS` may ask for.
const MAX_CONNECTIONS: usize = 1024;
/// Most requests of one scenario, whatever the time allows.
const MAX_REQUESTS: u64 = 200_000;

/// One keep-alive connection.
struct Connection {
    stream: BufReader<TcpStream>,
    /// The server's address, sent as `Host` (a name it answers to).
    host: SocketAddr,
}

/// The client address connection `index` of a scenario comes from, on loopback: eight addresses
/// (127.0.0.2 to 127.0.0.9) in turn, since the server shares its connections and its computation
/// pool by address. The hostile connections of the mix come from 127.0.0.1.
fn source(index: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + (index % 8) as u8))
}

impl Connection {
    async fn open(address: SocketAddr) -> Connection {
        Connection::open_from(address, source(0)).await
    }

    /// A connection from `from` when `address` is on loopback (any 127.x address reaches it),
    /// else from wherever the system chooses.
    async fn open_from(address: SocketAddr, from: IpAddr) -> Connection {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        if address.ip().is_loopback() {
            socket.bind(SocketAddr::new(from, 0)).expect("bind");
        }
        let stream = socket.connect(address).await.expect("connect");
        stream.set_nodelay(true).ok();
        Connection {
            stream: BufReader::new(stream),
            host: address,
        }
    }

    /// Sends one request and reads the whole answer: its status and body.
    async fn request(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &Value,
    ) -> (u16, Vec<u8>) {
        let body = body.to_string();
        let auth = token.map_or(String::new(), |t| format!("authorization: Bearer {t}\r\n"));
        let text = format!(
            "{method} {path} HTTP/1.1\r\nhost: {}\r\n{auth}content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            self.host,
            body.len()
        );
        self.stream
            .get_mut()
            .write_all(text.as_bytes())
            .await
            .expect("write");
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let byte = self.stream.read_u8().await.expect("read");
            head.push(byte);
        }
        let head = String::from_utf8_lossy(&head).to_string();
        let status: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let header = |name: &str| {
            head.lines()
                .find_map(|l| {
                    l.split_once(':')
                        .filter(|(n, _)| n.eq_ignore_ascii_case(name))
                })
                .map(|(_, v)| v.trim().to_string())
        };
        let mut body = Vec::new();
        if let Some(length) = header("content-length").and_then(|l| l.parse::<usize>().ok()) {
            body.resize(length, 0);
            self.stream.read_exact(&mut body).await.expect("body");
        } else {
            // Chunked.
            loop {
                let mut line = Vec::new();
                while !line.ends_with(b"\r\n") {
                    line.push(self.stream.read_u8().await.expect("chunk"));
                }
                let size =
                    usize::from_str_radix(String::from_utf8_lossy(&line).trim(), 16).unwrap_or(0);
                let mut chunk = vec![0; size + 2];
                self.stream.read_exact(&mut chunk).await.expect("chunk");
                body.extend_from_slice(&chunk[..size]);
                if size == 0 {
                    break;
                }
            }
        }
        (status, body)
    }
}

/// A request for connection `index`, number `n`: its path, token and body.
type MakeRequest = dyn Fn(usize, u64) -> (String, Option<String>, Value) + Send + Sync;

struct Report {
    name: String,
    requests: u64,
    elapsed: Duration,
    latencies: Vec<Duration>,
    statuses: std::collections::BTreeMap<u16, u64>,
}

impl Report {
    /// Throughput (per second), p50 and p99 (milliseconds).
    fn figures(&mut self) -> (f64, f64, f64) {
        self.latencies.sort_unstable();
        let at = |q: f64| {
            let i = ((self.latencies.len() as f64 - 1.0) * q).round() as usize;
            self.latencies.get(i).copied().unwrap_or_default()
        };
        (
            self.requests as f64 / self.elapsed.as_secs_f64(),
            at(0.5).as_secs_f64() * 1000.0,
            at(0.99).as_secs_f64() * 1000.0,
        )
    }

    fn print(&mut self) {
        let (throughput, p50, p99) = self.figures();
        println!(
            "{:<42} {:>7} measured {:>7.0}/s  p50 {:>7.1} ms  p99 {:>7.1} ms  statuses {:?}",
            self.name, self.requests, throughput, p50, p99, self.statuses
        );
    }
}

/// Runs `make(connection index, request number)` requests on `connections` connections (each to
/// one of `targets` in turn) for `seconds`.
async fn scenario(
    name: &str,
    targets: &[SocketAddr],
    connections: usize,
    seconds: u64,
    unmeasured: usize,
    make: Arc<MakeRequest>,
) -> Report {
    let counter = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for index in 0..connections {
        let (make, counter) = (make.clone(), counter.clone());
        let address = targets[index % targets.len()];
        let from = if index < unmeasured {
            IpAddr::V4(Ipv4Addr::LOCALHOST)
        } else {
            source(index)
        };
        tasks.push(tokio::spawn(async move {
            let mut connection = Connection::open_from(address, from).await;
            let mut latencies = Vec::new();
            let mut statuses = std::collections::BTreeMap::new();
            while Instant::now() < deadline {
                let n = counter.fetch_add(1, Ordering::Relaxed);
                if n >= MAX_REQUESTS {
                    break;
                }
                let (path, token, body) = make(index, n);
                let sent = Instant::now();
                let (status, _) = connection
                    .request("POST", &path, token.as_deref(), &body)
                    .await;
                latencies.push(sent.elapsed());
                *statuses.entry(status).or_insert(0u64) += 1;
            }
            (latencies, statuses)
        }));
    }
    let mut report = Report {
        name: name.to_string(),
        requests: 0,
        elapsed: Duration::ZERO,
        latencies: Vec::new(),
        statuses: Default::default(),
    };
    for (index, task) in tasks.into_iter().enumerate() {
        let (latencies, statuses) = task.await.expect("task");
        if index < unmeasured {
            // The hostile connections: their statuses only.
            for (status, count) in statuses {
                *report.statuses.entry(status + 10_000).or_insert(0) += count;
            }
            continue;
        }
        report.requests += latencies.len() as u64;
        report.latencies.extend(latencies);
        for (status, count) in statuses {
            *report.statuses.entry(status).or_insert(0) += count;
        }
    }
    report.elapsed = start.elapsed();
    report
}

/// Idle sockets an attacker holds from 127.0.0.1: those the server kept, and how many it refused.
struct Idle {
    held: Vec<TcpStream>,
    refused: usize,
}

/// Opens `count` sockets from 127.0.0.1 that send nothing; a socket the server answers at once
/// (429: the address has its share of connections) counts as refused.
async fn hold_idle_sockets(address: SocketAddr, count: usize) -> Idle {
    let mut idle = Idle {
        held: Vec::new(),
        refused: 0,
    };
    for _ in 0..count {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket
            .bind(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0))
            .expect("bind");
        match socket.connect(address).await {
            Ok(stream) => idle.held.push(stream),
            Err(_) => idle.refused += 1,
        }
    }
    // The refused ones are answered and closed within half a second.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut kept = Vec::new();
    for stream in idle.held.drain(..) {
        let mut byte = [0u8; 1];
        match tokio::time::timeout(Duration::from_millis(1), stream.peek(&mut byte)).await {
            Err(_) => kept.push(stream),
            Ok(_) => idle.refused += 1,
        }
    }
    idle.held = kept;
    idle
}

/// What the logged actions came to: the report and the check of the logs afterwards.
struct Actions {
    report: Report,
    acknowledged: u64,
    logged: usize,
    intact: usize,
}

/// Logged actions over 100 new campaigns (a luck character in each), made through the first of
/// `targets`; afterwards every acknowledged action must be in a log, read back through the last
/// of them, and every log must verify.
async fn logged_actions(targets: &[SocketAddr], connections: usize, seconds: u64) -> Actions {
    let mut setup = Connection::open(targets[0]).await;
    let mut tokens = Vec::new();
    for i in 0..100 {
        let (_, body) = setup
            .request(
                "POST",
                "/api/v1/campaigns",
                None,
                &json!({ "name": format!("c{i}") }),
            )
            .await;
        let made: Value = serde_json::from_slice(&body).expect("json");
        let token = made["game_master"]["token"]
            .as_str()
            .expect("token")
            .to_string();
        setup
            .request(
                "POST",
                &format!("/api/v1/campaigns/c{i}/characters"),
                Some(&token),
                &json!({ "name": "Ayla", "rule_set": "luck" }),
            )
            .await;
        tokens.push(token);
    }
    let tokens_for_check = tokens.clone();
    let tokens = Arc::new(tokens);
    let actions = Arc::new(move |_: usize, n: u64| {
        let i = (n % 100) as usize;
        (
            format!("/api/v1/campaigns/c{i}/characters/Ayla/actions"),
            Some(tokens[i].clone()),
            json!({ "action": { "action": "roll", "event_modifier": (n % 11) as i64 - 5 } }),
        )
    });
    let report = scenario(
        "logged actions over 100 campaigns",
        targets,
        connections,
        seconds,
        0,
        actions,
    )
    .await;
    let acknowledged = report.statuses.get(&200).copied().unwrap_or(0);
    // Nothing acknowledged is lost: the logs hold one roll per 200, and every log verifies.
    let mut check = Connection::open(targets[targets.len() - 1]).await;
    let (mut logged, mut intact) = (0, 0);
    for (i, token) in tokens_for_check.iter().enumerate() {
        let (_, body) = check
            .request(
                "GET",
                &format!("/api/v1/campaigns/c{i}/log?action=roll"),
                Some(token),
                &json!(null),
            )
            .await;
        logged +=
            serde_json::from_slice::<Value>(&body).map_or(0, |v| v.as_array().map_or(0, Vec::len));
        let (_, body) = check
            .request(
                "GET",
                &format!("/api/v1/campaigns/c{i}/verify"),
                Some(token),
                &json!(null),
            )
            .await;
        intact +=
            usize::from(serde_json::from_slice::<Value>(&body).is_ok_and(|v| v["ok"] == true));
    }
    Actions {
        report,
        acknowledged,
        logged,
        intact,
    }
}

#[tokio::main]
async fn main() {
    let seconds: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    if let Some(targets) = std::env::var_os("OMEN_LOAD_TARGETS") {
        let targets: Vec<SocketAddr> = targets
            .to_string_lossy()
            .split(',')
            .map(|target| {
                target
                    .trim()
                    .parse()
                    .expect("OMEN_LOAD_TARGETS: HOST:PORT,…")
            })
            .collect();
        let connections = std::env::var("OMEN_LOAD_CONNECTIONS")
            .ok()
            .and_then(|n| n.parse::<usize>().ok())
            .map_or(CONNECTIONS, |n| n.clamp(1, MAX_CONNECTIONS));
        println!(
            "logged actions against {} omen serve process(es), {connections} connections, {seconds} s",
            targets.len()
        );
        let mut actions = logged_actions(&targets, connections, seconds).await;
        actions.report.print();
        println!(
            "  acknowledged actions {}, logged {}, logs that verify {}/100",
            actions.acknowledged, actions.logged, actions.intact
        );
        let (throughput, p50, p99) = actions.report.figures();
        println!(
            "row: {throughput:.0}/s | {p50:.1} ms | {p99:.1} ms | {} = {}, {}/100 | {:?}",
            actions.acknowledged, actions.logged, actions.intact, actions.report.statuses
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("omen-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    // OMEN_LOAD_DB: another database (a postgres:// URL, empty) instead of a file in the directory.
    let store = match std::env::var_os("OMEN_LOAD_DB") {
        Some(db) => {
            // PostgreSQL's synchronous client runs a runtime of its own: not on this one's thread.
            let key = dir.join("omen.key");
            std::thread::spawn(move || omen_store::Database::parse(&db).open(&key))
                .join()
                .expect("opening the database")
                .expect("database")
        }
        None => omen_store::Store::open(&dir.join("omen.db")).expect("database"),
    };
    let config = omen_server::Config {
        rate_limit: None,
        max_body: 1 << 20,
        ..omen_server::Config::default()
    };
    println!(
        "omen serve load, {CONNECTIONS} connections, {seconds} s per scenario, {} computation threads",
        config.compute_threads
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let state = omen_server::AppState::new(store, config);
    tokio::spawn(omen_server::serve(listener, state, std::future::pending()));

    // Typical questions: small pools, keep-highest, comparisons. Uncached: each request its own
    // program (a different modifier), so every one is computed.
    let typical = [
        "4d6kh3",
        "3d6",
        "2d20kh1",
        "8d6",
        "(3d6) >= 10",
        "4dF",
        "2d10 + 1d8",
    ];
    let cached = Arc::new(move |_: usize, n: u64| {
        let expression = typical[n as usize % typical.len()].to_string();
        (
            "/api/v1/prob".to_string(),
            None,
            json!({ "expressions": [expression] }),
        )
    });
    let mut report = scenario(
        "prob, typical, cached",
        &[address],
        CONNECTIONS,
        seconds,
        0,
        cached,
    )
    .await;
    report.print();
    let uncached = Arc::new(move |_: usize, n: u64| {
        let expression = format!("{} + {}", typical[n as usize % typical.len()], n + 1000);
        (
            "/api/v1/prob".to_string(),
            None,
            json!({ "expressions": [expression] }),
        )
    });
    let mut report = scenario(
        "prob, typical, uncached",
        &[address],
        CONNECTIONS,
        seconds,
        0,
        uncached,
    )
    .await;
    report.print();

    let mut actions = logged_actions(&[address], CONNECTIONS, seconds).await;
    actions.report.print();
    println!(
        "  acknowledged actions {}, logged {}, logs that verify {}/100",
        actions.acknowledged, actions.logged, actions.intact
    );

    // Typical requests on 56 connections (from seven addresses) while one address attacks: 8
    // connections send hostile requests (a fresh program each time that spends the whole work
    // budget) and the address holds as many more sockets open as it may, idle, and tries more.
    // 56 idle sockets and the 8 hostile connections are the 64 one address may hold; 16 more,
    // tried during the attack, must be refused.
    let idle = hold_idle_sockets(address, 56).await;
    let more = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(1)).await;
        hold_idle_sockets(address, 16).await
    });
    let mixed = Arc::new(move |index: usize, n: u64| {
        if index < 8 {
            // Charged as it goes until the whole budget is spent, then refused with 422 (a pool
            // such as `300d1000kh150` is refused in milliseconds, before any work).
            let expression =
                format!("fn f(n) = if n <= 0 then d6 else f(n - 1) + f(n - 1); f(40) + {n}");
            (
                "/api/v1/prob".to_string(),
                None,
                json!({ "expressions": [expression] }),
            )
        } else {
            let expression = format!("{} + {}", typical[n as usize % typical.len()], n + 500_000);
            (
                "/api/v1/prob".to_string(),
                None,
                json!({ "expressions": [expression] }),
            )
        }
    });
    let mut report = scenario(
        "mix: 1 attacking address + 7 typical",
        &[address],
        CONNECTIONS,
        seconds,
        8,
        mixed,
    )
    .await;
    report.print();
    let more = more.await.expect("idle sockets");
    println!(
        "  the attacker's idle sockets: {} held open; of 16 more during the attack, {} refused",
        idle.held.len(),
        more.refused
    );
    drop((idle, more));
    let _ = std::fs::remove_dir_all(&dir);
}

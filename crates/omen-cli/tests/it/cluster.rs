//! Several `omen serve` processes on one PostgreSQL database: the live log written through one
//! reaches the event streams of the others (PostgreSQL's LISTEN/NOTIFY), each as its viewer may see
//! it, and a stream that reconnects resumes exactly after its last event.

#![cfg(unix)]

use std::io::{BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::campaign::ScratchPostgres;
use crate::scratch_dir;

/// How long an event may take to arrive before the test fails: generous, a notification normally
/// takes milliseconds. It bounds the test, it does not measure it.
const PATIENCE: Duration = Duration::from_secs(30);

/// What must never reach a player: the planted sources of game-master-only modifiers, and the
/// luck rule set's game-master-only field names (their presence alone would show the modifiers).
const HIDDEN: &[&str] = &[
    "zq-secret-amulet",
    "zq-secret-curse",
    "\"intrinsic\"",
    "\"karmic_modifier\"",
    "\"modifier\"",
];

/// One `omen serve` process, killed when dropped.
struct Server {
    child: Child,
    address: String,
    /// Kept open: the server prints to it, and a closed pipe would fail it.
    _stdout: BufReader<std::process::ChildStdout>,
}

impl Server {
    fn start(db: &str, key: &Path) -> Server {
        // Its warnings (a lost listener) belong in the test's output.
        let (child, stdout, address) = crate::serve::spawn_server(
            &[
                "--rate-limit".as_ref(),
                "0".as_ref(),
                "--db".as_ref(),
                db.as_ref(),
                "--key".as_ref(),
                key.as_os_str(),
            ],
            Stdio::inherit(),
        );
        Server {
            child,
            address,
            _stdout: stdout,
        }
    }

    /// One request; the status and the JSON body.
    fn call(&self, method: &str, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
        let mut stream = TcpStream::connect(&self.address).unwrap();
        let body = body.to_string();
        let authorization = token
            .map(|token| format!("authorization: Bearer {token}\r\n"))
            .unwrap_or_default();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nhost: localhost\r\n{authorization}content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let status = answer
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status in {answer:?}"));
        let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
        (status, serde_json::from_str(body).unwrap_or_default())
    }

    /// A logged action or roll: its sequence number.
    fn write(&self, path: &str, token: &str, body: Value) -> u64 {
        let (status, answer) = self.call("POST", path, Some(token), &body);
        assert_eq!(status, 200, "{path}: {answer}");
        answer["entry"]["sequence"].as_u64().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An open event stream (`text/event-stream`, chunked).
struct Events {
    stream: TcpStream,
    raw: Vec<u8>,
    decoded: Vec<u8>,
    /// Every byte of the events so far, for searching.
    seen: String,
}

impl Events {
    fn open(server: &Server, token: &str, last_event_id: Option<u64>) -> Events {
        let mut stream = TcpStream::connect(&server.address).unwrap();
        let resume = last_event_id
            .map(|id| format!("last-event-id: {id}\r\n"))
            .unwrap_or_default();
        write!(
            stream,
            "GET /api/v1/campaigns/Tak/events HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer {token}\r\n{resume}\r\n"
        )
        .unwrap();
        stream
            .set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let mut events = Events {
            stream,
            raw: Vec::new(),
            decoded: Vec::new(),
            seen: String::new(),
        };
        let deadline = Instant::now() + PATIENCE;
        let split = loop {
            if let Some(split) = events.raw.windows(4).position(|w| w == b"\r\n\r\n") {
                break split;
            }
            assert!(events.read(deadline), "no answer to the event stream");
        };
        let head = String::from_utf8_lossy(&events.raw[..split]).to_string();
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        events.raw.drain(..split + 4);
        events
    }

    /// Reads what has come; false once the deadline passed or the stream ended.
    fn read(&mut self, deadline: Instant) -> bool {
        let mut buffer = [0u8; 8192];
        loop {
            if Instant::now() >= deadline {
                return false;
            }
            match self.stream.read(&mut buffer) {
                Ok(0) => return false,
                Ok(n) => {
                    self.raw.extend_from_slice(&buffer[..n]);
                    return true;
                }
                Err(error)
                    if matches!(
                        error.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(error) => panic!("the event stream failed: {error}"),
            }
        }
    }

    /// Moves the complete chunks of the body from `raw` to `decoded`.
    fn dechunk(&mut self) {
        loop {
            let Some(line) = self.raw.windows(2).position(|w| w == b"\r\n") else {
                return;
            };
            let size = String::from_utf8_lossy(&self.raw[..line]).to_string();
            let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
            if self.raw.len() < line + 2 + size + 2 {
                return;
            }
            let chunk: Vec<u8> = self.raw[line + 2..line + 2 + size].to_vec();
            self.raw.drain(..line + 2 + size + 2);
            self.seen.push_str(&String::from_utf8_lossy(&chunk));
            self.decoded.extend_from_slice(&chunk);
        }
    }

    /// The next `entry` event's id and data; a panic if none comes within [`PATIENCE`].
    fn next(&mut self) -> (u64, Value) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            self.dechunk();
            while let Some(end) = self.decoded.windows(2).position(|w| w == b"\n\n") {
                let block: Vec<u8> = self.decoded.drain(..end + 2).collect();
                let block = String::from_utf8(block).unwrap();
                let id = block
                    .lines()
                    .find_map(|line| line.strip_prefix("id:")?.trim().parse().ok());
                let data = block
                    .lines()
                    .find_map(|line| serde_json::from_str(line.strip_prefix("data:")?).ok());
                if let (Some(id), Some(data)) = (id, data) {
                    return (id, data);
                }
            }
            assert!(
                self.read(deadline),
                "no event within {PATIENCE:?}; so far: {}",
                self.seen
            );
        }
    }

    /// The ids of the next `count` events, each checked against its entry's own sequence number.
    fn ids(&mut self, count: usize) -> Vec<u64> {
        (0..count)
            .map(|_| {
                let (id, entry) = self.next();
                assert_eq!(entry["sequence"], id);
                id
            })
            .collect()
    }
}

#[test]
#[cfg_attr(
    omen_no_postgres,
    ignore = "needs PostgreSQL: set OMEN_TEST_POSTGRES_URL (.ci/run starts a throwaway cluster)"
)]
fn the_live_log_reaches_the_clients_of_every_server_on_one_postgres_database() {
    let Some(scratch) = ScratchPostgres::required("cluster_live") else {
        return;
    };
    let dir = scratch_dir("cluster_live");
    let key = dir.join("omen.key");
    let a = Server::start(&scratch.url, &key);
    // The campaign (and so the key file both servers sign with) exists before the second starts.
    let (status, made) = a.call("POST", "/api/v1/campaigns", None, &json!({ "name": "Tak" }));
    assert_eq!(status, 201, "{made}");
    let gm = made["game_master"]["token"].as_str().unwrap().to_string();
    let b = Server::start(&scratch.url, &key);
    assert_ne!(a.address, b.address);
    let (status, answer) = a.call(
        "POST",
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        &json!({ "name": "Ayla", "rule_set": "luck",
                 "sheet": { "intrinsic": [{ "source": "zq-secret-amulet", "value": 3 }] } }),
    );
    assert_eq!(status, 201, "{answer}");
    let (status, invite) = a.call(
        "POST",
        "/api/v1/campaigns/Tak/invites",
        Some(&gm),
        &json!({ "role": "player", "character": "Ayla" }),
    );
    assert_eq!(status, 201, "{invite}");
    let player = invite["token"].as_str().unwrap().to_string();

    // Streams on B (the game master's and the player's) and on A; everything written through A.
    let mut gm_on_b = Events::open(&b, &gm, None);
    let mut player_on_b = Events::open(&b, &player, None);
    let mut gm_on_a = Events::open(&a, &gm, None);
    let actions = "/api/v1/campaigns/Tak/characters/Ayla/actions";
    let mut written = vec![
        a.write(
            actions,
            &gm,
            json!({ "action": { "action": "add-modifier", "source": "zq-secret-curse", "value": -4 } }),
        ),
        a.write(
            actions,
            &gm,
            json!({ "action": { "action": "roll", "event_modifier": 4 } }),
        ),
        a.write(
            "/api/v1/campaigns/Tak/rolls",
            &gm,
            json!({ "expression": "d20" }),
        ),
    ];
    // Heard on B before B writes anything itself (its own write would wake its streams anyway).
    assert_eq!(
        gm_on_b.ids(3),
        written,
        "in order, none missing, none twice"
    );
    assert_eq!(player_on_b.ids(3), written);
    // And one through B, heard on A.
    written.push(b.write(actions, &player, json!({ "action": { "action": "roll" } })));
    assert_eq!(gm_on_a.ids(4), written);
    assert_eq!(gm_on_b.ids(1), written[3..].to_vec());
    assert_eq!(player_on_b.ids(1), written[3..].to_vec());
    // The game master sees the hidden modifier (so the search below can fail); the player, on the
    // other server, receives none of it.
    assert!(gm_on_b.seen.contains("zq-secret-curse"), "{}", gm_on_b.seen);
    for hidden in HIDDEN {
        assert!(
            !player_on_b.seen.contains(hidden),
            "the player received {hidden}: {}",
            player_on_b.seen
        );
    }

    // The player drops off B; more is written through A meanwhile; back on B with Last-Event-ID,
    // exactly the entries after the last one seen arrive, once each, and then the live ones.
    drop(player_on_b);
    written.push(a.write(actions, &player, json!({ "action": { "action": "roll" } })));
    let mut resumed = Events::open(&b, &player, Some(written[1]));
    written.push(a.write(actions, &gm, json!({ "action": { "action": "roll" } })));
    assert_eq!(resumed.ids(written.len() - 2), written[2..].to_vec());
    for hidden in HIDDEN {
        assert!(!resumed.seen.contains(hidden), "{hidden}: {}", resumed.seen);
    }
    assert_eq!(gm_on_b.ids(2), written[4..].to_vec());

    let verified = crate::omen(&[
        "log",
        "verify",
        "--db",
        &scratch.url,
        "--key",
        key.to_str().unwrap(),
    ]);
    assert_eq!(verified.code, 0, "{}{}", verified.stdout, verified.stderr);
}

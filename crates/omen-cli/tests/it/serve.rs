//! `omen serve`: starts on a fresh database with no other setup, says how to begin, answers, and
//! stops cleanly on SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use crate::scratch_dir;

/// `POST /api/v1/prob` for `2d6`, answered 200: the answer, head and body.
fn prob_2d6(address: &str) -> String {
    let answer = request(
        address,
        "POST",
        "/api/v1/prob",
        r#"{"expressions":["2d6"]}"#,
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    answer
}

/// One HTTP/1.1 request to the server at `address`; the whole answer, head and body.
pub(crate) fn request(address: &str, method: &str, path: &str, body: &str) -> String {
    request_with_headers(address, method, path, "", body)
}

/// [`request`] with more header lines, each ending in `\r\n`.
pub(crate) fn request_with_headers(
    address: &str,
    method: &str,
    path: &str,
    headers: &str,
    body: &str,
) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

/// Starts `omen serve ARGS --bind 127.0.0.1:0` with its stdout piped, and reads the address it
/// listens on from its first line; the rest of stdout is left to the caller.
#[cfg(unix)]
pub(crate) fn spawn_server(
    args: &[&std::ffi::OsStr],
    stderr: Stdio,
) -> (
    std::process::Child,
    BufReader<std::process::ChildStdout>,
    String,
) {
    let mut server = Command::new(env!("CARGO_BIN_EXE_omen"))
        .args(["serve", "--bind", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(server.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let address = first
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .to_string();
    // The first address printed is the page's: a browser opening `/api/v1/` gets a 404.
    assert!(
        first.contains(&format!("http://{address}/ ")) && !first.contains("/api/v1"),
        "{first}"
    );
    (server, stdout, address)
}

/// Sends SIGTERM to a server and waits for it to exit.
#[cfg(unix)]
pub(crate) fn terminate(server: &mut std::process::Child) -> std::process::ExitStatus {
    let status = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    server.wait().unwrap()
}

#[cfg(unix)]
#[test]
fn serve_on_a_fresh_database_answers_and_stops_on_sigterm() {
    let dir = scratch_dir("serve_fresh");
    serve_fresh(
        &dir.join("fresh.db").display().to_string(),
        &dir.join("fresh.db.key"),
    );
}

/// The same on PostgreSQL (`omen serve --db postgres://…`), when there is a server to test on.
#[cfg(unix)]
#[test]
#[cfg_attr(
    omen_no_postgres,
    ignore = "needs PostgreSQL: set OMEN_TEST_POSTGRES_URL (.ci/run starts a throwaway cluster)"
)]
fn serve_on_a_fresh_postgres_database_answers_and_stops_on_sigterm() {
    let Some(scratch) = crate::campaign::ScratchPostgres::required("serve_fresh") else {
        return;
    };
    let dir = scratch_dir("serve_fresh_postgres");
    serve_fresh(&scratch.url, &dir.join("omen.key"));
}

#[cfg(unix)]
fn serve_fresh(db: &str, key: &std::path::Path) {
    let (mut server, mut stdout, address) = spawn_server(
        &[
            "--db".as_ref(),
            db.as_ref(),
            "--key".as_ref(),
            key.as_os_str(),
        ],
        Stdio::piped(),
    );
    let mut rest = String::new();
    for _ in 0..8 {
        stdout.read_line(&mut rest).unwrap();
    }
    assert!(
        rest.contains(&format!("http://{address}/games\n")),
        "{rest}"
    );
    assert!(
        rest.contains(&format!("http://{address}/table#join=TOKEN")),
        "{rest}"
    );
    assert!(rest.contains("omen campaign new NAME"), "{rest}");
    assert!(
        rest.contains("omen campaign invite NAME --role gm"),
        "{rest}"
    );
    let answer = prob_2d6(&address);
    assert!(answer.contains(r#""probability":"1/6""#), "{answer}");
    let made = request(&address, "POST", "/api/v1/campaigns", r#"{"name":"Tak"}"#);
    assert!(made.starts_with("HTTP/1.1 201"), "{made}");
    let exit = terminate(&mut server);
    assert!(exit.success(), "{exit:?}");
    let mut tail = String::new();
    stdout.read_to_string(&mut tail).unwrap();
    assert!(tail.contains("stopped"), "{tail}");
    // The campaign made over the API is in the database, and its log verifies.
    let verified = crate::omen(&["log", "verify", "--db", db, "--key", key.to_str().unwrap()]);
    assert_eq!(verified.code, 0, "{}", verified.stderr);
}

/// A server whose stdout reader went away (a log pipe closed, a terminal gone) keeps serving and
/// still stops cleanly: its next line to stdout must not panic on the broken pipe.
#[cfg(unix)]
#[test]
fn serve_keeps_serving_and_stops_cleanly_when_its_stdout_is_closed() {
    let dir = scratch_dir("serve_closed_stdout");
    let db = dir.join("closed.db");
    let key = dir.join("closed.db.key");
    let (mut server, stdout, address) = spawn_server(
        &[
            "--db".as_ref(),
            db.as_os_str(),
            "--key".as_ref(),
            key.as_os_str(),
        ],
        Stdio::piped(),
    );
    drop(stdout);
    prob_2d6(&address);
    let exit = terminate(&mut server);
    let mut stderr = String::new();
    server
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(exit.success(), "{exit:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Sends one request; `None` once the server is gone.
fn try_request(address: &str, method: &str, path: &str, token: &str, body: &str) -> Option<String> {
    let mut stream = TcpStream::connect(address).ok()?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer {token}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    Some(answer)
}

/// The JSON body of an answer.
fn body_of(answer: &str) -> serde_json::Value {
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
    serde_json::from_str(body).unwrap_or_default()
}

#[cfg(unix)]
#[test]
fn killing_the_server_mid_load_loses_no_acknowledged_action_and_the_log_verifies() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    let dir = scratch_dir("serve_killed");
    let db = dir.join("killed.db");
    let (mut server, _stdout, address) = spawn_server(
        &[
            "--rate-limit".as_ref(),
            "0".as_ref(),
            "--db".as_ref(),
            db.as_os_str(),
        ],
        Stdio::null(),
    );
    let made = request(&address, "POST", "/api/v1/campaigns", r#"{"name":"Tak"}"#);
    let gm = body_of(&made)["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let character = try_request(
        &address,
        "POST",
        "/api/v1/campaigns/Tak/characters",
        &gm,
        r#"{"name":"Ayla","rule_set":"luck"}"#,
    )
    .unwrap();
    assert!(character.starts_with("HTTP/1.1 201"), "{character}");
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let count = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let (address, gm, acknowledged, count) = (
                address.clone(),
                gm.clone(),
                acknowledged.clone(),
                count.clone(),
            );
            std::thread::spawn(move || {
                while let Some(answer) = try_request(
                    &address,
                    "POST",
                    "/api/v1/campaigns/Tak/characters/Ayla/actions",
                    &gm,
                    r#"{"action":{"action":"roll"}}"#,
                ) {
                    if answer.starts_with("HTTP/1.1 200")
                        && let Some(sequence) = body_of(&answer)["entry"]["sequence"].as_u64()
                    {
                        acknowledged.lock().unwrap().push(sequence);
                        count.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    while count.load(Ordering::Relaxed) < 40 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    server.kill().unwrap(); // SIGKILL: no shutdown, writes cut wherever they are
    server.wait().unwrap();
    for worker in workers {
        worker.join().unwrap();
    }
    let verified = crate::omen(&["log", "verify", "--db", db.to_str().unwrap()]);
    assert_eq!(verified.code, 0, "{}{}", verified.stdout, verified.stderr);
    let log = crate::omen(&[
        "log",
        "--action",
        "roll",
        "--format",
        "json",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(log.code, 0, "{}", log.stderr);
    let logged: Vec<u64> = crate::json(&log)
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    let acknowledged = acknowledged.lock().unwrap();
    assert!(acknowledged.len() >= 40);
    for sequence in acknowledged.iter() {
        assert!(
            logged.contains(sequence),
            "acknowledged entry {sequence} is lost"
        );
    }
}

//! `omen serve`: starts on a fresh database with no other setup, says how to begin, answers, and
//! stops cleanly on SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use crate::scratch_dir;

fn request(address: &str, method: &str, path: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nhost: omen\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

#[cfg(unix)]
#[test]
fn serve_on_a_fresh_database_answers_and_stops_on_sigterm() {
    let dir = scratch_dir("serve_fresh");
    let db = dir.join("fresh.db");
    let mut server = Command::new(env!("CARGO_BIN_EXE_omen"))
        .args(["serve", "--bind", "127.0.0.1:0", "--db"])
        .arg(&db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
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
    let mut rest = String::new();
    for _ in 0..5 {
        stdout.read_line(&mut rest).unwrap();
    }
    assert!(rest.contains("omen campaign new NAME"), "{rest}");
    assert!(
        rest.contains("omen campaign invite NAME --role gm"),
        "{rest}"
    );
    let answer = request(
        &address,
        "POST",
        "/api/v1/prob",
        r#"{"expressions":["2d6"]}"#,
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(r#""fraction":"1/6""#), "{answer}");
    let made = request(&address, "POST", "/api/v1/campaigns", r#"{"name":"Tak"}"#);
    assert!(made.starts_with("HTTP/1.1 201"), "{made}");
    let status = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = server.wait().unwrap();
    assert!(exit.success(), "{exit:?}");
    let mut tail = String::new();
    stdout.read_to_string(&mut tail).unwrap();
    assert!(tail.contains("stopped"), "{tail}");
    // The campaign made over the API is in the database, and its log verifies.
    let verified = crate::omen(&["log", "verify", "--db", db.to_str().unwrap()]);
    assert_eq!(verified.code, 0, "{}", verified.stderr);
}

//! The README's `curl` examples, run as written against a fresh server on port 0.

use std::collections::HashMap;

use serde_json::Value;

use crate::live::{Events, http, start};

/// Splits a command line as a shell would for these examples (words, '…' and "…"), expanding
/// `$NAME` outside single quotes.
fn shell_words(line: &str, variables: &HashMap<&str, String>) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) if c == q => quote = None,
            Some('\'') => word.push(c),
            _ if c == '$' => {
                let mut name = String::new();
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphanumeric() || n == '_' {
                        name.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                let value = variables
                    .get(name.as_str())
                    .unwrap_or_else(|| panic!("${name} is not set"));
                word.push_str(value);
                started = true;
            }
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                started = true;
            }
            None if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            None => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

struct Curl {
    method: String,
    url: String,
    token: Option<String>,
    last_event_id: Option<u64>,
    body: Option<Value>,
    stream: bool,
}

fn curl(words: &[String]) -> Curl {
    let mut curl = Curl {
        method: String::new(),
        url: String::new(),
        token: None,
        last_event_id: None,
        body: None,
        stream: false,
    };
    let mut words = words.iter().skip(1);
    while let Some(word) = words.next() {
        match word.as_str() {
            "-s" => {}
            "-N" => curl.stream = true,
            "-X" => curl.method = words.next().unwrap().clone(),
            "-d" => {
                curl.body = Some(serde_json::from_str(words.next().unwrap()).expect("a JSON body"))
            }
            "-H" => {
                let header = words.next().unwrap();
                let (name, value) = header.split_once(':').unwrap();
                match name.to_ascii_lowercase().as_str() {
                    "authorization" => {
                        curl.token =
                            Some(value.trim().strip_prefix("Bearer ").unwrap().to_string());
                    }
                    "last-event-id" => curl.last_event_id = value.trim().parse().ok(),
                    "content-type" => assert_eq!(value.trim(), "application/json"),
                    other => panic!("a header the test does not send: {other}"),
                }
            }
            url => curl.url = url.to_string(),
        }
    }
    if curl.method.is_empty() {
        curl.method = if curl.body.is_some() { "POST" } else { "GET" }.to_string();
    }
    curl
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_curl_example_in_the_readme_runs_against_a_fresh_server() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let section = readme
        .split("## HTTP API")
        .nth(1)
        .expect("the README documents the API")
        .split("\n## ")
        .next()
        .unwrap();
    assert!(
        section.contains("/api/v1/openapi.json"),
        "the section links the OpenAPI document"
    );
    let live = start(crate::state_with(crate::config())).await;
    let base = format!("http://{}", live.address);
    let mut variables = HashMap::from([("OMEN", base.clone())]);
    let mut ran = 0;
    for block in section.split("```sh").skip(1) {
        let block = block.split("```").next().unwrap();
        for line in block
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("curl "))
        {
            let request = curl(&shell_words(line, &variables));
            let path = request
                .url
                .strip_prefix(&base)
                .unwrap_or_else(|| panic!("{line}"));
            if request.stream {
                let mut events = Events::open(
                    live.address,
                    path,
                    request.token.as_deref().unwrap(),
                    request.last_event_id,
                )
                .await;
                assert_eq!(events.status, 200, "{line}");
                let (id, _) = events
                    .next()
                    .await
                    .unwrap_or_else(|| panic!("no event: {line}"));
                assert_eq!(Some(id), request.last_event_id.map(|i| i + 1), "{line}");
            } else {
                let answer = http(
                    live.address,
                    &request.method,
                    path,
                    request.token.as_deref(),
                    request.body,
                )
                .await;
                assert!(
                    answer.status.is_success(),
                    "{line}: {} {}",
                    answer.status,
                    String::from_utf8_lossy(&answer.bytes)
                );
                let json = answer.json();
                if let Some(token) = json["game_master"]["token"].as_str() {
                    variables.insert("GM", token.to_string());
                }
                if json["invite"]["role"] == "player" {
                    variables.insert("PLAYER", json["token"].as_str().unwrap().to_string());
                }
                // The blind roll the README reveals is entry 5.
                if line.contains("\"visibility\":\"blind\"") {
                    assert_eq!(json["entry"]["sequence"], 5, "{json}");
                    assert_eq!(json["entry"]["result"], Value::Null);
                }
                if path.ends_with("/verify") {
                    assert_eq!(json["ok"], true);
                }
            }
            ran += 1;
        }
    }
    assert!(ran >= 13, "{ran} commands");
}

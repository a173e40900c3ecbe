//! The Discord face against the real router: interactions signed with a test key in the payload
//! shapes Discord documents (PING, application commands with options and subcommands, message
//! components), and a stand-in for Discord's webhook API on 127.0.0.1 that records every edit and
//! follow-up. From the attacker's side: bad signatures, stale timestamps, replays, unlinked
//! accounts, players at the game master's commands, and no game-master-only value in anything a
//! player or the channel receives.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use ed25519_dalek::{Signer, SigningKey};
use http_body_util::BodyExt;
use omen_server::discord::DiscordConfig;
use omen_store::{Role, Store};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tower::ServiceExt;

use super::{Answer, config};

/// One call the stand-in for Discord's API received: its JSON (a form's `payload_json`) and the
/// files of a form.
#[derive(Clone, Debug)]
pub(super) struct Recorded {
    pub method: String,
    pub path: String,
    pub authorization: Option<String>,
    pub body: Value,
    pub files: Vec<Part>,
    /// The body's bytes as they arrived.
    pub raw: Vec<u8>,
}

/// One part of a `multipart/form-data` body.
#[derive(Clone, Debug)]
pub(super) struct Part {
    pub name: String,
    pub filename: Option<String>,
    pub content_type: Option<String>,
    pub bytes: Vec<u8>,
}

pub(super) type Calls = Arc<Mutex<Vec<Recorded>>>;

/// The parts of a form body whose boundary is `boundary`, as RFC 7578 lays them out: each after
/// `--BOUNDARY\r\n`, its headers, a blank line and its content, up to `\r\n--BOUNDARY`.
fn parts(body: &[u8], boundary: &str) -> Vec<Part> {
    let find = |haystack: &[u8], needle: &[u8]| {
        haystack
            .windows(needle.len())
            .position(|window| window == needle)
    };
    let delimiter = format!("--{boundary}");
    let mut rest = &body[find(body, delimiter.as_bytes()).expect("a first boundary")..];
    let mut parts = Vec::new();
    loop {
        rest = &rest[delimiter.len()..];
        if rest.starts_with(b"--") {
            return parts;
        }
        rest = rest.strip_prefix(b"\r\n").expect("CRLF after a boundary");
        let blank = find(rest, b"\r\n\r\n").expect("a part's headers end");
        let headers = String::from_utf8(rest[..blank].to_vec()).unwrap();
        rest = &rest[blank + 4..];
        let end = find(rest, format!("\r\n{delimiter}").as_bytes()).expect("a part ends");
        let header = |name: &str| {
            headers
                .split("\r\n")
                .find_map(|line| line.strip_prefix(name))
                .map(str::to_string)
        };
        let disposition = header("Content-Disposition: form-data; ").expect("a disposition");
        let field = |key: &str| {
            disposition
                .split("; ")
                .find_map(|pair| pair.strip_prefix(&format!("{key}=\"")))
                .map(|value| value.trim_end_matches('"').to_string())
        };
        parts.push(Part {
            name: field("name").expect("a part's name"),
            filename: field("filename"),
            content_type: header("Content-Type: "),
            bytes: rest[..end].to_vec(),
        });
        rest = &rest[end + 2..];
    }
}

/// Discord's API on a local port: records every call (a form's `payload_json` as its body, its
/// other parts as files) and answers 200 with `{}`.
async fn stand_in() -> (String, Calls) {
    let calls: Calls = Arc::default();
    let recorder = calls.clone();
    let router = Router::new().fallback(move |request: Request<Body>| {
        let recorder = recorder.clone();
        async move {
            let method = request.method().to_string();
            let path = request.uri().path().to_string();
            let (content_type, authorization) = {
                let header = |name: &str| {
                    request
                        .headers()
                        .get(name)
                        .map(|v| v.to_str().unwrap().to_string())
                };
                (header("content-type"), header("authorization"))
            };
            let bytes = request.into_body().collect().await.unwrap().to_bytes();
            let boundary = content_type
                .as_deref()
                .and_then(|t| t.strip_prefix("multipart/form-data; boundary="));
            let (body, files) = match boundary {
                Some(boundary) => {
                    let mut files = parts(&bytes, boundary);
                    let payload = files.remove(
                        files
                            .iter()
                            .position(|p| p.name == "payload_json")
                            .expect("payload_json"),
                    );
                    (serde_json::from_slice(&payload.bytes).unwrap(), files)
                }
                None => (
                    serde_json::from_slice(&bytes).unwrap_or(Value::Null),
                    Vec::new(),
                ),
            };
            recorder.lock().unwrap().push(Recorded {
                method,
                path,
                authorization,
                body,
                files,
                raw: bytes.to_vec(),
            });
            axum::Json(json!({}))
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    (format!("http://{address}/api/v10"), calls)
}

pub(super) const CHANNEL: &str = "700000000000000001";
pub(super) const GUILD: &str = "600000000000000001";
pub(super) const GM_USER: &str = "500000000000000001";
pub(super) const AYLA_USER: &str = "500000000000000002";
pub(super) const CATO_USER: &str = "500000000000000003";
pub(super) const STRANGER: &str = "500000000000000004";
/// The channel the game master reads alone.
pub(super) const GM_CHANNEL: &str = "700000000000000009";
/// The bot's token the server posts to channels with.
pub(super) const BOT_TOKEN: &str = "bot.test-token";

/// The planted game-master-only values: Ayla's intrinsic modifier's source, and one the game
/// master adds from Discord.
pub(super) const PLANTED: [&str; 2] = ["Wyrdcurse", "Hexmark"];

pub(super) struct Table {
    pub app: Router,
    /// The same server on 127.0.0.1, as `omen serve` runs it (`omen_server::serve`), when the
    /// interactions go over a socket ([`Table::live`]); they go through the router otherwise.
    live: Option<super::live::Live>,
    state: omen_server::AppState,
    key: SigningKey,
    pub calls: Calls,
    next: AtomicU64,
    pub gm: String,
    pub ayla: String,
    pub cato: String,
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(super) fn now() -> String {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        .to_string()
}

impl Table {
    pub(super) async fn new() -> Table {
        Table::with(config()).await
    }

    /// The table on a server listening on 127.0.0.1 as `omen serve --public-name
    /// omen.example.org` listens: every interaction is sent to it over a connection of its own.
    pub(super) async fn live() -> Table {
        // Behind the README's reverse proxy, under the name Discord is given.
        let config = omen_server::Config {
            public_names: vec!["omen.example.org".to_string()],
            ..config()
        };
        let mut table = Table::with(config).await;
        table.live = Some(super::live::start(table.state.clone()).await);
        table
    }

    /// The table on a server configured as `config` says, with the Discord face on.
    pub(super) async fn with(config: omen_server::Config) -> Table {
        let key = SigningKey::from_bytes(&[9; 32]);
        let (base, calls) = stand_in().await;
        let discord = DiscordConfig::new(&hex(&key.verifying_key().to_bytes()), "4242")
            .unwrap()
            .with_api_base(&base)
            .with_bot_token(BOT_TOKEN)
            .unwrap();
        let mut store = Store::open_in_memory().unwrap();
        store.create_campaign("Tak").unwrap();
        let sheet = json!({ "intrinsic": [{ "source": PLANTED[0], "value": 3 }] });
        store
            .create_character("Tak", "Ayla", "luck", &sheet)
            .unwrap();
        store
            .create_character("Tak", "Cato", omen_store::PLAIN, &json!({}))
            .unwrap();
        let (_, gm) = store.create_invite("Tak", Role::GameMaster, None).unwrap();
        let (_, ayla) = store
            .create_invite("Tak", Role::Player, Some("Ayla"))
            .unwrap();
        let (_, cato) = store
            .create_invite("Tak", Role::Player, Some("Cato"))
            .unwrap();
        let config = omen_server::Config {
            discord: Some(discord),
            ..config
        };
        let state = omen_server::AppState::new(store, config);
        let app = omen_server::app(state.clone());
        Table {
            app,
            live: None,
            state,
            key,
            calls,
            next: AtomicU64::new(1),
            gm,
            ayla,
            cato,
        }
    }

    pub(super) fn id(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// An interaction as Discord sends one from a server's channel.
    pub(super) fn interaction(&self, kind: u8, user: &str, data: Value) -> Value {
        let id = self.id();
        json!({
            "id": format!("9{id:017}"), "application_id": "4242", "type": kind, "version": 1,
            "token": format!("tok{id}"), "guild_id": GUILD, "channel_id": CHANNEL,
            "member": { "user": { "id": user, "username": "someone" }, "roles": [] },
            "data": data,
        })
    }

    pub(super) fn command(&self, user: &str, name: &str, options: Value) -> Value {
        self.interaction(
            2,
            user,
            json!({ "id": "1", "name": name, "type": 1, "options": options }),
        )
    }

    pub(super) fn subcommand(&self, user: &str, name: &str, sub: &str, options: Value) -> Value {
        self.command(
            user,
            name,
            json!([{ "name": sub, "type": 1, "options": options }]),
        )
    }

    pub(super) fn click(&self, user: &str, custom_id: &str) -> Value {
        self.interaction(
            3,
            user,
            json!({ "custom_id": custom_id, "component_type": 2 }),
        )
    }

    pub(super) async fn raw(&self, body: &str, timestamp: &str, signature: &str) -> Answer {
        if let Some(live) = &self.live {
            return over_the_wire(live.address, body, timestamp, signature).await;
        }
        let request = Request::post("/discord/interactions")
            .header("content-type", "application/json")
            .header("x-signature-ed25519", signature)
            .header("x-signature-timestamp", timestamp)
            .body(Body::from(body.to_string()))
            .unwrap();
        let response = self.app.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec();
        Answer {
            status,
            headers,
            bytes,
        }
    }

    pub(super) fn sign(&self, timestamp: &str, body: &str) -> String {
        hex(&self
            .key
            .sign(format!("{timestamp}{body}").as_bytes())
            .to_bytes())
    }

    /// Sends `interaction` signed now; its answer.
    pub(super) async fn send(&self, interaction: &Value) -> Answer {
        let body = interaction.to_string();
        let at = now();
        self.raw(&body, &at, &self.sign(&at, &body)).await
    }

    /// The calls made to the webhook of `interaction`, once there are `count` of them.
    pub(super) async fn delivered(&self, interaction: &Value, count: usize) -> Vec<Recorded> {
        let token = interaction["token"].as_str().unwrap();
        let marker = format!("/webhooks/4242/{token}");
        for _ in 0..500 {
            let calls: Vec<Recorded> = self
                .calls
                .lock()
                .unwrap()
                .iter()
                .filter(|c| c.path.ends_with(&marker) || c.path.contains(&format!("{marker}/")))
                .cloned()
                .collect();
            if calls.len() >= count {
                return calls;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("fewer than {count} calls to {marker}");
    }

    /// Binds the channel (the game master) and links both players.
    pub(super) async fn seated(&self) {
        for (user, sub, token) in [
            (GM_USER, "bind", &self.gm),
            (AYLA_USER, "link", &self.ayla),
            (CATO_USER, "link", &self.cato),
        ] {
            let answer = self
                .send(&self.subcommand(
                    user,
                    "omen",
                    sub,
                    json!([{ "name": "token", "type": 3, "value": token }]),
                ))
                .await;
            let body = answer.json();
            assert_eq!(
                (body["type"].as_u64(), body["data"]["flags"].as_u64()),
                (Some(4), Some(64)),
                "{body}"
            );
            // The token is never repeated, not even to its holder.
            assert!(
                !answer
                    .bytes
                    .windows(token.len())
                    .any(|w| w == token.as_bytes())
            );
        }
    }
}

/// `POST /discord/interactions` to a listening server, as Discord sends it: the signature headers
/// and the JSON body, on a connection of its own; the answer's status and body (a JSON answer
/// comes with its length).
async fn over_the_wire(
    address: std::net::SocketAddr,
    body: &str,
    timestamp: &str,
    signature: &str,
) -> Answer {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let request = format!(
        "POST /discord/interactions HTTP/1.1\r\nhost: omen.example.org\r\nuser-agent: Discord-Interactions/1.0 (+https://discord.com)\r\ncontent-type: application/json\r\nx-signature-ed25519: {signature}\r\nx-signature-timestamp: {timestamp}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
    let mut headers = axum::http::HeaderMap::new();
    for line in head.lines().skip(1) {
        if let Some((name, value)) = line.split_once(':') {
            headers.insert(
                axum::http::HeaderName::from_bytes(name.trim().as_bytes()).unwrap(),
                value.trim().parse().unwrap(),
            );
        }
    }
    assert!(
        headers.get("transfer-encoding").is_none(),
        "a chunked answer: {head}"
    );
    Answer {
        status: StatusCode::from_u16(status).unwrap(),
        headers,
        bytes: raw[split + 4..].to_vec(),
    }
}

pub(super) fn text_of(message: &Value) -> &str {
    message["content"].as_str().unwrap_or_default()
}

pub(super) fn ephemeral(message: &Value) -> bool {
    message["flags"].as_u64().unwrap_or(0) & 64 != 0
}

#[tokio::test]
async fn a_ping_is_answered_with_a_pong() {
    let table = Table::new().await;
    let answer = table
        .send(
            &json!({ "id": "1", "type": 1, "application_id": "4242", "token": "t", "version": 1 }),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json(), json!({ "type": 1 }));
}

#[tokio::test]
async fn a_bad_signature_a_stale_timestamp_and_a_replay_are_refused_with_401() {
    let table = Table::new().await;
    let ping = json!({ "id": "77", "type": 1, "token": "t" }).to_string();
    let at = now();
    let good = table.sign(&at, &ping);
    // Another body under the same signature, another key's signature, none at all.
    let other = json!({ "id": "78", "type": 1, "token": "t" }).to_string();
    assert_eq!(
        table.raw(&other, &at, &good).await.status,
        StatusCode::UNAUTHORIZED
    );
    let stranger = SigningKey::from_bytes(&[1; 32]);
    let forged = hex(&stranger.sign(format!("{at}{ping}").as_bytes()).to_bytes());
    assert_eq!(
        table.raw(&ping, &at, &forged).await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        table.raw(&ping, &at, "").await.status,
        StatusCode::UNAUTHORIZED
    );
    // A correctly signed request recorded ten minutes ago.
    let old = (at.parse::<u64>().unwrap() - 600).to_string();
    let stale = table.raw(&ping, &old, &table.sign(&old, &ping)).await;
    assert_eq!(stale.status, StatusCode::UNAUTHORIZED);
    // The first delivery is answered, the same interaction again refused.
    assert_eq!(table.raw(&ping, &at, &good).await.status, StatusCode::OK);
    assert_eq!(
        table.raw(&ping, &at, &good).await.status,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn an_unbound_channel_and_an_unlinked_account_are_told_what_to_do() {
    let table = Table::new().await;
    let roll = json!([{ "name": "expression", "type": 3, "value": "1d20" }]);
    let answer = table
        .send(&table.command(AYLA_USER, "roll", roll.clone()))
        .await
        .json();
    assert!(
        text_of(&answer["data"]).contains("bound to no campaign"),
        "{answer}"
    );
    table.seated().await;
    let answer = table
        .send(&table.command(STRANGER, "roll", roll))
        .await
        .json();
    assert!(ephemeral(&answer["data"]), "{answer}");
    assert!(
        text_of(&answer["data"]).contains("linked to no invite"),
        "{answer}"
    );
    assert!(table.calls.lock().unwrap().is_empty(), "nothing was rolled");
}

#[tokio::test]
async fn a_player_cannot_bind_a_channel_nor_reveal() {
    let table = Table::new().await;
    let bind = table.subcommand(
        AYLA_USER,
        "omen",
        "bind",
        json!([{ "name": "token", "type": 3, "value": table.ayla }]),
    );
    let answer = table.send(&bind).await.json();
    assert!(
        text_of(&answer["data"]).contains("only the game master"),
        "{answer}"
    );
    table.seated().await;
    let reveal = table.command(
        CATO_USER,
        "reveal",
        json!([{ "name": "entry", "type": 4, "value": 1 }]),
    );
    let answer = table.send(&reveal).await.json();
    assert!(
        text_of(&answer["data"]).contains("Only the game master"),
        "{answer}"
    );
    assert!(ephemeral(&answer["data"]));
}

#[tokio::test]
async fn a_public_roll_is_logged_signed_and_posted_with_its_buttons() {
    let table = Table::new().await;
    table.seated().await;
    let roll = table.command(
        CATO_USER,
        "roll",
        json!([
            { "name": "expression", "type": 3, "value": "3d6" },
            { "name": "character", "type": 3, "value": "Cato" },
        ]),
    );
    let answer = table.send(&roll).await.json();
    assert_eq!(answer, json!({ "type": 5, "data": { "flags": 0 } }));
    let calls = table.delivered(&roll, 1).await;
    assert_eq!(
        (
            calls[0].method.as_str(),
            calls[0].path.ends_with("/messages/@original")
        ),
        ("PATCH", true)
    );
    let message = &calls[0].body;
    assert!(!ephemeral(message));
    let content = text_of(message);
    // `3d6 = N` with N the sum of three faces, each 1..=6.
    assert!(
        content.contains("`Cato`") && content.contains("3d6"),
        "{content}"
    );
    let buttons = message["components"][0]["components"].as_array().unwrap();
    let labels: Vec<&str> = buttons
        .iter()
        .map(|b| b["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["Again", "Odds"]);
    assert!(
        buttons
            .iter()
            .all(|b| b["custom_id"].as_str().unwrap().len() <= 100)
    );
    // Logged and signed in the campaign as Cato's player (the game master's view of the log).
    let log = super::get(
        &table.app,
        "/api/v1/campaigns/Tak/log?last=1",
        Some(&table.gm),
    )
    .await;
    let entry = &log.json()[0];
    assert_eq!(
        (entry["action"].as_str(), entry["character"].as_str()),
        (Some("expression"), Some("Cato"))
    );
    let actor = entry["actor"].as_str().unwrap();
    assert!(actor.starts_with("member:"), "{actor}");
    assert!(
        entry["signature"].as_str().is_some_and(|s| s.len() == 128),
        "{entry}"
    );
    assert!(
        content.contains(&format!("**#{}**", entry["sequence"])),
        "{content}"
    );
    // Again is a new logged roll, answered as a new message.
    let again = table.click(CATO_USER, buttons[0]["custom_id"].as_str().unwrap());
    assert_eq!(table.send(&again).await.json()["type"], 5);
    let next = table.delivered(&again, 1).await;
    let sequence = |m: &Value| {
        text_of(m)[3..]
            .split("**")
            .next()
            .unwrap()
            .parse::<u64>()
            .unwrap()
    };
    assert_eq!(sequence(&next[0].body), sequence(message) + 1);
    // Odds: 3d6 has 16 totals; 10 comes 27 ways in 216 (1/8), and 10 or more 216 − 81 = 135 ways
    // (5/8): 3 to 9 come 1, 3, 6, 10, 15, 21 and 25 ways.
    let odds = table.click(AYLA_USER, buttons[1]["custom_id"].as_str().unwrap());
    assert_eq!(table.send(&odds).await.json()["data"]["flags"], 64);
    let table_text = text_of(&table.delivered(&odds, 1).await[0].body).to_string();
    assert!(
        table_text.contains("      10             1/8             5/8"),
        "{table_text}"
    );
    assert!(table_text.contains("mean 21/2"), "{table_text}");
}

/// The game master binds, two players link, a blind roll is answered with a placeholder and its
/// commitment, revealed, and checked by hand from the channel's messages alone.
#[tokio::test]
async fn a_blind_roll_is_committed_in_the_channel_revealed_and_checked_by_hand() {
    let table = Table::new().await;
    table.seated().await;
    let roll = table.command(
        AYLA_USER,
        "roll",
        json!([
            { "name": "expression", "type": 3, "value": "1d20" },
            { "name": "visibility", "type": 3, "value": "blind" },
        ]),
    );
    assert_eq!(table.send(&roll).await.json()["data"]["flags"], 0);
    let calls = table.delivered(&roll, 2).await;
    let placeholder = &calls[0].body;
    assert!(!ephemeral(placeholder));
    let content = text_of(placeholder);
    let commitment = content.split("commitment `").nth(1).unwrap()[..64].to_string();
    assert!(
        commitment.bytes().all(|b| b.is_ascii_hexdigit()),
        "{content}"
    );
    // The roller learns that it happened, not how; the channel the same.
    let to_roller = &calls[1].body;
    assert!(
        ephemeral(to_roller) && text_of(to_roller).contains("blind"),
        "{to_roller}"
    );
    for said in [content, text_of(to_roller)] {
        assert!(!said.contains("1d20 ="), "{said}");
    }
    // A player's click on Reveal is refused; the game master's reveals it in the channel.
    let buttons = placeholder["components"][0]["components"]
        .as_array()
        .unwrap();
    let reveal_id = buttons.iter().find(|b| b["label"] == "Reveal").unwrap()["custom_id"]
        .as_str()
        .unwrap();
    let refused = table.send(&table.click(CATO_USER, reveal_id)).await.json();
    assert!(
        text_of(&refused["data"]).contains("Only the game master"),
        "{refused}"
    );
    let reveal = table.click(GM_USER, reveal_id);
    assert_eq!(table.send(&reveal).await.json()["data"]["flags"], 0);
    let revealed = text_of(&table.delivered(&reveal, 1).await[0].body).to_string();
    let preimage = revealed
        .split("```json\n")
        .nth(1)
        .unwrap()
        .split("\n```")
        .next()
        .unwrap();
    assert_eq!(hex(&Sha256::digest(preimage.as_bytes())), commitment);
    // The preimage holds the roll: one d20, its face the result.
    let opened: Value = serde_json::from_str(preimage).unwrap();
    assert_eq!(opened[0], "omen-commit-v2");
    let face = opened[2][3][0]["face"].as_u64().unwrap();
    assert!((1..=20).contains(&face));
    assert_eq!(opened[2][4], face);
    assert!(revealed.contains(&format!("1d20 = {face}")), "{revealed}");
    // And the log verifies, with a receipt posted in the channel.
    let verify = table.command(CATO_USER, "verify", json!([]));
    table.send(&verify).await;
    let verified = text_of(&table.delivered(&verify, 1).await[0].body).to_string();
    assert!(verified.contains("the log verifies"), "{verified}");
}

/// Everything a player or the channel receives, byte for byte, holds none of the game master's
/// values: the luck modifiers' sources planted in Ayla's sheet and added from Discord.
#[tokio::test]
async fn no_game_master_value_reaches_a_player_or_the_channel() {
    let table = Table::new().await;
    table.seated().await;
    let add = table.subcommand(
        GM_USER,
        "luck",
        "add-modifier",
        json!([
            { "name": "character", "type": 3, "value": "Ayla" },
            { "name": "source", "type": 3, "value": PLANTED[1] },
            { "name": "value", "type": 4, "value": 4 },
        ]),
    );
    table.send(&add).await;
    let added = table.delivered(&add, 1).await;
    let mut to_others: Vec<Vec<u8>> = added
        .iter()
        .map(|c| c.body.to_string().into_bytes())
        .collect();
    for (user, visibility) in [
        (AYLA_USER, "public"),
        (AYLA_USER, "private"),
        (CATO_USER, "public"),
    ] {
        let character = if user == AYLA_USER { "Ayla" } else { "Cato" };
        let interaction = if character == "Ayla" {
            table.subcommand(
                user,
                "luck",
                "roll",
                json!([
                    { "name": "character", "type": 3, "value": "Ayla" },
                    { "name": "event_modifier", "type": 4, "value": -5 },
                    { "name": "visibility", "type": 3, "value": visibility },
                ]),
            )
        } else {
            table.command(
                user,
                "log",
                json!([{ "name": "last", "type": 4, "value": 20 }]),
            )
        };
        to_others.push(table.send(&interaction).await.bytes);
        let count = if visibility == "private" { 2 } else { 1 };
        for call in table.delivered(&interaction, count).await {
            to_others.push(call.body.to_string().into_bytes());
        }
    }
    for bytes in &to_others {
        for planted in PLANTED {
            assert!(
                !bytes
                    .windows(planted.len())
                    .any(|w| w == planted.as_bytes()),
                "{planted} in {}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
    // The game master's own log shows it: the values were there to leak.
    let log = table.command(GM_USER, "log", json!([]));
    table.send(&log).await;
    let shown = table.delivered(&log, 1).await[0].body.to_string();
    assert!(shown.contains(PLANTED[1]), "{shown}");
}

#[tokio::test]
async fn the_command_definitions_include_one_command_per_rule_set() {
    let commands = omen_server::discord::definitions::commands();
    let names: Vec<&str> = commands
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    for game in omen_rules::stateful::games() {
        assert!(names.contains(&game.name()), "{names:?}");
    }
    for fixed in [
        "omen", "roll", "odds", "log", "verify", "reveal", "fairness",
    ] {
        assert!(names.contains(&fixed));
    }
}

/// Anyone may make a campaign on an open server and so be a game master: binding a channel that
/// plays another campaign is refused, until that campaign's game master unbinds it.
#[tokio::test]
async fn another_campaigns_game_master_cannot_take_a_bound_channel() {
    let table = Table::new().await;
    table.seated().await;
    let made = super::post(
        &table.app,
        "/api/v1/campaigns",
        None,
        json!({ "name": "Mine" }),
    )
    .await;
    let theirs = made.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let bind = |user: &str, token: &str| {
        table.subcommand(
            user,
            "omen",
            "bind",
            json!([{ "name": "token", "type": 3, "value": token }]),
        )
    };
    let refused = table.send(&bind(STRANGER, &theirs)).await.json();
    assert!(
        text_of(&refused["data"]).contains("plays another campaign"),
        "{refused}"
    );
    // The channel still plays Tak: Cato's roll is logged there.
    let unbind = table.subcommand(CATO_USER, "omen", "unbind", json!([]));
    let answer = table.send(&unbind).await.json();
    assert!(
        text_of(&answer["data"]).contains("only the game master"),
        "{answer}"
    );
    let unbind = table.subcommand(GM_USER, "omen", "unbind", json!([]));
    let answer = table.send(&unbind).await.json();
    assert!(
        text_of(&answer["data"]).contains("no longer plays `Tak`"),
        "{answer}"
    );
    let moved = table.send(&bind(STRANGER, &theirs)).await.json();
    assert!(
        text_of(&moved["data"]).contains("now plays `Mine`"),
        "{moved}"
    );
}

/// `/fairness` lists the whole campaign's verdicts, as the member may see them: here the d6 of
/// 20 rolls made through the API, enough for a verdict (at least 20 rolls, one per face).
#[tokio::test]
async fn fairness_lists_the_campaigns_verdicts() {
    let table = Table::new().await;
    table.seated().await;
    for _ in 0..20 {
        let rolled = super::post(
            &table.app,
            "/api/v1/campaigns/Tak/rolls",
            Some(&table.cato),
            json!({ "expression": "1d6", "character": "Cato" }),
        )
        .await;
        assert_eq!(rolled.status, StatusCode::OK, "{}", rolled.json());
    }
    let fairness = table.command(CATO_USER, "fairness", json!([]));
    assert_eq!(table.send(&fairness).await.json()["data"]["flags"], 64);
    let said = text_of(&table.delivered(&fairness, 1).await[0].body).to_string();
    let d6 = said
        .lines()
        .find(|l| l.starts_with("`d6`: "))
        .unwrap_or_else(|| panic!("{said}"));
    assert!(d6.contains("p = ") || d6.contains("suspicious"), "{d6}");
}

//! Written from the side of the members who may not see a hidden roll: two tables play the same
//! session except for what their hidden rolls hold (the dice the game master gives, the expression
//! a player rolls blind, so a different number of dice, the outcomes), and every answer and event a
//! player or an observer receives must be the same, byte for byte, once the fields that differ
//! between any two entries (times, hashes, signatures, keys, identities, all of fixed width) are
//! masked with as many characters. Any difference in size or content would let them tell the
//! hidden rolls apart.

use axum::Router;
use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::campaigns::invite;
use crate::live::{Events, start};
use crate::{call, post};

/// What a table's hidden rolls hold.
struct Planted {
    /// The d50 the game master gives for a blind luck roll.
    luck_die: i64,
    /// What the player rolls blind.
    expression: &'static str,
}

/// Fields whose values differ between any two entries or any two databases whatever the rolls
/// were: each must be of fixed width, which the byte-length comparison checks.
const VARYING: &[&str] = &[
    "time",
    "hash",
    "previous_hash",
    "signature",
    "commitment",
    // The published commitments of each entry's draw and the next: fresh random values, of fixed
    // width, whatever the roll.
    "draw_commitment",
    "next_draw_commitment",
    // The salted commitment of what the rule set keeps for the game master: random, fixed width.
    "gm_commitment",
    "public_key",
    "campaign_uid",
    "character_uid",
    "uid",
    "created",
    "updated",
    "seed_proof",
    "receipt",
    "exported",
    "fingerprint",
];

fn masked(value: &Value) -> Value {
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(key, field)| {
                    let field = match field {
                        Value::String(text) if VARYING.contains(&key.as_str()) => {
                            Value::String("x".repeat(text.len()))
                        }
                        other => masked(other),
                    };
                    (key.clone(), field)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(masked).collect()),
        other => other.clone(),
    }
}

/// Everything `who` received, by what they asked: (request, status, body length, masked body).
type Received = Vec<(String, StatusCode, usize, Value)>;

async fn ask(
    app: &Router,
    token: &str,
    method: Method,
    uri: &str,
    body: Option<Value>,
) -> (StatusCode, Vec<u8>) {
    let answer = call(app, method, uri, Some(token), body).await;
    (answer.status, answer.bytes)
}

fn record(received: &mut Received, what: &str, status: StatusCode, bytes: &[u8]) {
    let value: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    received.push((what.to_string(), status, bytes.len(), masked(&value)));
}

/// Plays the session on a new table with `planted` hidden rolls; returns what the player and the
/// observer received, and the game master's log.
async fn session(planted: &Planted) -> (Received, Received, Value) {
    let state = crate::state_with(crate::config());
    let app = omen_server::app(state.clone());
    let made = post(&app, "/api/v1/campaigns", None, json!({ "name": "Tak" })).await;
    let gm = made.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let ayla = post(
        &app,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        json!({ "name": "Ayla", "rule_set": "luck" }),
    )
    .await;
    assert_eq!(ayla.status, StatusCode::CREATED);
    let player = invite(&app, &gm, "player", Some("Ayla")).await;
    let observer = invite(&app, &gm, "observer", None).await;
    let mut theirs = Received::new();
    // The game master's blind luck roll for Ayla, with the planted die.
    let blind = post(
        &app,
        "/api/v1/campaigns/Tak/characters/Ayla/actions",
        Some(&gm),
        json!({ "action": { "action": "roll", "event_modifier": 5 }, "dice": [planted.luck_die],
                "visibility": "blind" }),
    )
    .await;
    assert_eq!(blind.status, StatusCode::OK, "{}", blind.json());
    // The player's own blind rolls: what the roller is answered.
    let rolled = post(
        &app,
        "/api/v1/campaigns/Tak/rolls",
        Some(&player),
        json!({ "expression": planted.expression, "character": "Ayla", "visibility": "blind" }),
    )
    .await;
    assert_eq!(rolled.status, StatusCode::OK, "{}", rolled.json());
    record(
        &mut theirs,
        "the player's blind roll",
        rolled.status,
        &rolled.bytes,
    );
    let acted = post(
        &app,
        "/api/v1/campaigns/Tak/characters/Ayla/actions",
        Some(&player),
        json!({ "action": { "action": "roll" }, "visibility": "blind", "odds": true }),
    )
    .await;
    assert_eq!(acted.status, StatusCode::OK, "{}", acted.json());
    record(
        &mut theirs,
        "the player's blind action",
        acted.status,
        &acted.bytes,
    );
    let mut received = (theirs, Received::new());
    let live = start(state).await;
    for (token, into) in [(&player, &mut received.0), (&observer, &mut received.1)] {
        for (method, uri, body) in [
            (Method::GET, "/api/v1/campaigns/Tak/log", None),
            (
                Method::GET,
                "/api/v1/campaigns/Tak/log?character=Ayla",
                None,
            ),
            (Method::GET, "/api/v1/campaigns/Tak/characters", None),
            (Method::GET, "/api/v1/campaigns/Tak/characters/Ayla", None),
            (Method::GET, "/api/v1/campaigns/Tak/fairness", None),
            (Method::GET, "/api/v1/campaigns/Tak/verify", None),
            (Method::GET, "/api/v1/campaigns/Tak/head", None),
            (Method::GET, "/api/v1/campaigns/Tak/export", None),
            (Method::GET, "/api/v1/campaigns", None),
            (
                Method::POST,
                "/api/v1/campaigns/Tak/characters/Ayla/odds",
                Some(json!({ "action": { "action": "roll" } })),
            ),
            (
                Method::POST,
                "/api/v1/campaigns/Tak/characters/Ayla/actions",
                Some(json!({ "action": { "action": "dance" } })),
            ),
            (
                Method::POST,
                "/api/v1/campaigns/Tak/log/5/reveal",
                Some(json!({})),
            ),
        ] {
            let (status, bytes) = ask(&app, token, method.clone(), uri, body).await;
            record(into, &format!("{method} {uri}"), status, &bytes);
        }
        let mut events = Events::open(
            live.address,
            "/api/v1/campaigns/Tak/events?after=0",
            token,
            None,
        )
        .await;
        assert_eq!(events.status, 200);
        while let Some((id, event)) = events.next().await {
            let bytes = serde_json::to_vec(&event).unwrap();
            record(into, &format!("event {id}"), StatusCode::OK, &bytes);
            if id == 7 {
                break;
            }
        }
    }
    let whole = call(
        &app,
        Method::GET,
        "/api/v1/campaigns/Tak/log",
        Some(&gm),
        None,
    )
    .await;
    (received.0, received.1, masked(&whole.json()))
}

fn assert_same(who: &str, one: &Received, other: &Received) {
    assert_eq!(one.len(), other.len(), "{who}");
    for (a, b) in one.iter().zip(other) {
        assert_eq!(a.0, b.0);
        assert_eq!(a.1, b.1, "{who}: {} answers differently", a.0);
        assert_eq!(a.3, b.3, "{who}: {} differs", a.0);
        assert_eq!(a.2, b.2, "{who}: {} differs in size", a.0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_answer_or_event_tells_a_player_or_an_observer_what_a_blind_roll_held() {
    let low = session(&Planted {
        luck_die: 1,
        expression: "d4",
    })
    .await;
    let high = session(&Planted {
        luck_die: 50,
        expression: "12d6!",
    })
    .await;
    // The session did reach the hidden entries and the events (seven entries: three invites, a character, three hidden rolls).
    assert!(
        low.1.iter().filter(|r| r.0.starts_with("event")).count() == 7,
        "{:?}",
        low.1
    );
    let log = &low
        .1
        .iter()
        .find(|r| r.0 == "GET /api/v1/campaigns/Tak/log")
        .unwrap()
        .3;
    assert_eq!(log.as_array().map(Vec::len), Some(7), "{log}");
    assert_eq!(log[4]["inputs"]["kind"], "hidden", "{log}");
    assert_same("the player", &low.0, &high.0);
    assert_same("the observer", &low.1, &high.1);
    // The game master's views of the two tables do differ: the comparison can fail.
    assert_ne!(low.2, high.2);
    let character = &low
        .0
        .iter()
        .find(|r| r.0 == "GET /api/v1/campaigns/Tak/characters/Ayla")
        .unwrap()
        .3;
    assert_eq!(character["state"], Value::Null, "{character}");
    assert_eq!(character["state_withheld"], true);
}

//! The roller's part in a Discord roll's draw, as the README's trust model describes it for the
//! API, with interactions signed as Discord signs them and sent (in two of the tests) over a socket
//! to the server as `omen serve` runs it: `/log` publishes the next draw's commitment, `/roll` and the rule-set commands take the
//! roller's `entropy` and the `commitment` they read, the entry records both, and `/verify entry:N`
//! shows the draw with the checks a member can repeat. Each seed is recomputed here from the
//! documented formula and its dice rolled again from it, independently of the server's code.
//!
//! From the attacker's side: a roller who names their entropy learns nothing of the draw's secret
//! before the entry is written (not from `/log`, `/verify` or a blind roll's messages), the same
//! entropy twice gives unrelated rolls, a taken draw or malformed entropy is refused before
//! anything is drawn, and a replayed interaction is not rolled again.

use axum::http::StatusCode;
use omen_core::{ChaChaDice, Die, DieSource, Limits};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::discord::{AYLA_USER, CATO_USER, GM_USER, Table, ephemeral, hex, text_of};

fn sha256_hex(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes()))
}

/// The game master's view of the whole log, from the API.
async fn gm_log(table: &Table) -> Vec<Value> {
    super::get(&table.app, "/api/v1/campaigns/Tak/log", Some(&table.gm))
        .await
        .json()
        .as_array()
        .unwrap()
        .clone()
}

/// The next draw's commitment as the head route publishes it.
async fn published(table: &Table) -> String {
    super::get(&table.app, "/api/v1/campaigns/Tak/head", Some(&table.cato))
        .await
        .json()["next_draw_commitment"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Sends `interaction` and returns the text of its first delivered message.
async fn said(table: &Table, interaction: &Value) -> String {
    table.send(interaction).await;
    text_of(&table.delivered(interaction, 1).await[0].body).to_string()
}

/// Everything Discord has carried so far: every answer's and every webhook call's bytes.
fn carried(table: &Table, answers: &[Vec<u8>]) -> Vec<u8> {
    let mut all: Vec<u8> = answers.concat();
    for call in table.calls.lock().unwrap().iter() {
        all.extend_from_slice(&call.raw);
    }
    all
}

fn holds(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

/// The seed as the README's trust model defines it: the first 8 bytes (big-endian) of the SHA-256
/// of `omen-draw-v1`, the campaign, the entry's number, the hash before it, the secret, the
/// entropy and the SHA-256 of the request `[action, character, visibility, actor, inputs]`, one a
/// line.
fn seed_of(entry: &Value) -> u64 {
    let visibility = entry["visibility"].as_str().unwrap_or("public");
    let request = json!([
        entry["action"],
        entry["character_uid"],
        visibility,
        entry["actor"],
        entry["inputs"]
    ]);
    let text = format!(
        "omen-draw-v1\n{}\n{}\n{}\n{}\n{}\n{}",
        entry["campaign_uid"].as_str().unwrap(),
        entry["sequence"],
        entry["previous_hash"].as_str().unwrap(),
        entry["draw"]["secret"].as_str().unwrap(),
        entry["draw"]["entropy"].as_str().unwrap(),
        sha256_hex(&request.to_string())
    );
    let digest = Sha256::digest(text.as_bytes());
    u64::from_be_bytes(digest[..8].try_into().unwrap())
}

fn faces(entry: &Value) -> Vec<i64> {
    entry["dice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["face"].as_i64().unwrap())
        .collect()
}

fn roll(table: &Table, user: &str, expression: &str, extra: &[(&str, &str)]) -> Value {
    let mut options = vec![json!({ "name": "expression", "type": 3, "value": expression })];
    for (name, value) in extra {
        options.push(json!({ "name": name, "type": 3, "value": value }));
    }
    table.command(user, "roll", Value::Array(options))
}

/// Cato reads the next draw from `/log`, rolls naming it with entropy of his own; the entry took
/// that draw and that entropy, its secret opens the commitment, its seed is the one the formula
/// gives and its dice are the seed's; `/verify entry:N` says all of it in the channel.
#[tokio::test]
async fn a_rollers_entropy_goes_into_the_draw_and_verify_shows_it() {
    let table = Table::live().await;
    table.seated().await;
    let log = said(&table, &table.command(CATO_USER, "log", json!([]))).await;
    let commitment = log
        .split("Next draw: commitment `")
        .nth(1)
        .unwrap_or_else(|| panic!("{log}"))[..64]
        .to_string();
    assert_eq!(commitment, published(&table).await);
    let entropy = "cato-shakes-these-words-7";
    let rolled = said(
        &table,
        &table.command(
            CATO_USER,
            "roll",
            json!([
                { "name": "expression", "type": 3, "value": "3d6" },
                { "name": "character", "type": 3, "value": "Cato" },
                { "name": "entropy", "type": 3, "value": entropy },
                { "name": "commitment", "type": 3, "value": commitment.to_uppercase() },
            ]),
        ),
    )
    .await;
    assert!(rolled.contains("the roller's entropy"), "{rolled}");
    let entry = gm_log(&table).await.pop().unwrap();
    assert_eq!(entry["draw_commitment"], commitment.as_str());
    assert_eq!(entry["draw"]["entropy"], entropy);
    assert_eq!(entry["draw"]["entropy_from"], "caller");
    let secret = entry["draw"]["secret"].as_str().unwrap();
    assert_eq!(sha256_hex(secret), commitment);
    let seed = seed_of(&entry);
    assert_eq!(entry["seed"].as_u64(), Some(seed), "{entry}");
    // The seed's first three d6 are the entry's dice, and the message shows them.
    let mut dice = ChaChaDice::from_seed(seed);
    let d6 = Die::standard(6, &Limits::default()).unwrap();
    let again: Vec<i64> = (0..3).map(|_| dice.roll(&d6).unwrap()).collect();
    assert_eq!(faces(&entry), again);
    let shown: Vec<String> = again.iter().map(|f| format!("d6={f}")).collect();
    assert!(rolled.contains(&shown.join(" ")), "{rolled}");
    // `/verify entry:N` in the channel.
    let sequence = entry["sequence"].as_u64().unwrap();
    let verify = table.command(
        AYLA_USER,
        "verify",
        json!([{ "name": "entry", "type": 4, "value": sequence }]),
    );
    let checked = said(&table, &verify).await;
    for part in [
        format!("Entry {sequence} took draw `{commitment}`"),
        format!("✓ entry {} published it", sequence - 1),
        format!("✓ its secret `{secret}` opens the commitment"),
        format!("Entropy `{entropy}` — the roller's own"),
        format!("Seed {seed}"),
        format!("recomputes entry {sequence}'s seed from its draw and finds nothing wrong"),
    ] {
        assert!(checked.contains(&part), "{part} not in {checked}");
    }
    assert!(!checked.contains('✗'), "{checked}");
}

/// A rule set's command takes the roller's entropy as `/roll` does. A luck roll is sealed (its
/// modifiers are the game master's, and its draw with them), so the game master's log shows the
/// entropy and the channel is told where the draw is. Again, which carries nothing typed, takes
/// the server's entropy and the entry says so.
#[tokio::test]
async fn a_rule_set_command_takes_entropy_and_again_takes_the_servers() {
    let table = Table::new().await;
    table.seated().await;
    let luck = table.subcommand(
        AYLA_USER,
        "luck",
        "roll",
        json!([
            { "name": "character", "type": 3, "value": "Ayla" },
            { "name": "entropy", "type": 3, "value": "ayla-rolls-her-own-luck" },
        ]),
    );
    said(&table, &luck).await;
    let entry = gm_log(&table).await.pop().unwrap();
    assert_eq!(
        (entry["action"].as_str(), entry["draw"]["entropy"].as_str()),
        (Some("roll"), Some("ayla-rolls-her-own-luck"))
    );
    assert_eq!(entry["draw"]["entropy_from"], "caller");
    assert_eq!(entry["seed"].as_u64(), Some(seed_of(&entry)));
    let verify = table.command(
        AYLA_USER,
        "verify",
        json!([{ "name": "entry", "type": 4, "value": entry["sequence"] }]),
    );
    let checked = said(&table, &verify).await;
    assert!(checked.contains("kept with the part of it"), "{checked}");
    assert!(checked.contains("finds nothing wrong"), "{checked}");
    let first = roll(
        &table,
        CATO_USER,
        "1d20",
        &[("entropy", "cato-types-12345")],
    );
    table.send(&first).await;
    let message = table.delivered(&first, 1).await[0].body.clone();
    let again_id = message["components"][0]["components"][0]["custom_id"]
        .as_str()
        .unwrap()
        .to_string();
    let again = table.click(CATO_USER, &again_id);
    let shown = said(&table, &again).await;
    assert!(!shown.contains("the roller's entropy"), "{shown}");
    let entry = gm_log(&table).await.pop().unwrap();
    assert_eq!(entry["draw"]["entropy_from"], "server");
    assert_ne!(entry["draw"]["entropy"], "cato-types-12345");
}

/// From the attacker's side: the roller chooses their entropy, never the roll. Nothing Discord
/// carries before an entry is written holds its draw's secret; the same entropy at the next draw
/// gives an unrelated seed; a draw already taken, malformed entropy and a replayed interaction are
/// refused with nothing drawn or logged.
#[tokio::test]
async fn a_roller_cannot_choose_a_roll_by_choosing_entropy() {
    let table = Table::live().await;
    table.seated().await;
    let mut answers = Vec::new();
    let entropy = "the-same-words-each-time";
    let commitment = published(&table).await;
    // What a roller may read first: the log (with the next draw), and the next entry's draw,
    // which does not exist yet.
    let log = table.command(CATO_USER, "log", json!([]));
    answers.push(table.send(&log).await.bytes);
    table.delivered(&log, 1).await;
    let next = gm_log(&table).await.len() + 1;
    let early = table.command(
        CATO_USER,
        "verify",
        json!([{ "name": "entry", "type": 4, "value": next }]),
    );
    answers.push(table.send(&early).await.bytes);
    let early = text_of(&table.delivered(&early, 1).await[0].body).to_string();
    assert!(early.contains(&format!("no entry {next}")), "{early}");
    let first = roll(
        &table,
        CATO_USER,
        "1d20",
        &[("entropy", entropy), ("commitment", &commitment)],
    );
    let before_first = carried(&table, &answers);
    answers.push(table.send(&first).await.bytes);
    table.delivered(&first, 1).await;
    let taken = gm_log(&table).await.pop().unwrap();
    let secret = taken["draw"]["secret"].as_str().unwrap().to_string();
    assert!(!holds(&before_first, &secret), "the secret was out early");
    assert!(holds(&before_first, &commitment));
    // The same commitment again: that draw is taken. Refused in words, nothing drawn.
    let count = gm_log(&table).await.len();
    let next_commitment = published(&table).await;
    let stale = roll(
        &table,
        CATO_USER,
        "1d20",
        &[("entropy", entropy), ("commitment", &commitment)],
    );
    // The API withholds the refusal's words from a player (its kind, `moved-on`, stays); the
    // face says what to do.
    let refused = said(&table, &stale).await;
    assert!(refused.contains("`/log` shows the next draw"), "{refused}");
    // Entropy Discord would not let through (its bounds are in the definitions) is refused at
    // once, in words, to the roller alone.
    let short = roll(&table, CATO_USER, "1d20", &[("entropy", "short")]);
    let refused = table.send(&short).await.json();
    assert!(ephemeral(&refused["data"]), "{refused}");
    assert!(text_of(&refused["data"]).contains("8 to 128"), "{refused}");
    assert_eq!(gm_log(&table).await.len(), count);
    assert_eq!(published(&table).await, next_commitment);
    // The same entropy and request at the next draw: another secret, so an unrelated seed.
    let second = roll(
        &table,
        CATO_USER,
        "1d20",
        &[("entropy", entropy), ("commitment", &next_commitment)],
    );
    let before_second = carried(&table, &answers);
    let body = second.to_string();
    let at = super::discord::now();
    let signature = table.sign(&at, &body);
    assert_eq!(
        table.raw(&body, &at, &signature).await.status,
        StatusCode::OK
    );
    table.delivered(&second, 1).await;
    let redrawn = gm_log(&table).await.pop().unwrap();
    let second_secret = redrawn["draw"]["secret"].as_str().unwrap();
    assert!(!holds(&before_second, second_secret));
    assert_eq!(redrawn["draw"]["entropy"], taken["draw"]["entropy"]);
    assert_eq!(redrawn["inputs"], taken["inputs"]);
    assert_ne!(redrawn["seed"], taken["seed"]);
    assert_eq!(redrawn["seed"].as_u64(), Some(seed_of(&redrawn)));
    // The same signed interaction again is not rolled again.
    let replayed = table.raw(&body, &at, &signature).await;
    assert_eq!(replayed.status, StatusCode::UNAUTHORIZED);
    assert_eq!(gm_log(&table).await.len(), count + 1);
}

/// A blind roll with the roller's own entropy: the roller knows the entropy and the request, so
/// the secret alone would give them the dice. Neither the channel nor the roller sees it, nor
/// the seed, until the game master reveals the roll; then `/verify entry:N` opens it.
#[tokio::test]
async fn a_blind_rolls_secret_stays_hidden_until_revealed() {
    let table = Table::new().await;
    table.seated().await;
    let blind = roll(
        &table,
        AYLA_USER,
        "1d20",
        &[("visibility", "blind"), ("entropy", "ayla-knows-this-part")],
    );
    let mut answers = vec![table.send(&blind).await.bytes];
    let calls = table.delivered(&blind, 2).await;
    assert!(ephemeral(&calls[1].body));
    let entry = gm_log(&table).await.pop().unwrap();
    let sequence = entry["sequence"].as_u64().unwrap();
    let verify = |user: &str| {
        table.command(
            user,
            "verify",
            json!([{ "name": "entry", "type": 4, "value": sequence }]),
        )
    };
    let asked = verify(AYLA_USER);
    answers.push(table.send(&asked).await.bytes);
    let hidden = text_of(&table.delivered(&asked, 1).await[0].body).to_string();
    assert!(hidden.contains("hidden with its content"), "{hidden}");
    let secret = entry["draw"]["secret"].as_str().unwrap();
    let seed = entry["seed"].as_u64().unwrap().to_string();
    let seen = carried(&table, &answers);
    assert!(!holds(&seen, secret), "the blind roll's secret was shown");
    assert!(!holds(&seen, &format!("Seed {seed}")));
    let reveal = table.command(
        GM_USER,
        "reveal",
        json!([{ "name": "entry", "type": 4, "value": sequence }]),
    );
    said(&table, &reveal).await;
    let opened = said(&table, &verify(AYLA_USER)).await;
    assert!(
        opened.contains(&format!("✓ its secret `{secret}` opens the commitment")),
        "{opened}"
    );
    assert!(opened.contains("the roller's own"), "{opened}");
    assert_eq!(entry["seed"].as_u64(), Some(seed_of(&entry)));
}

/// `/roll saved:NAME` takes the roller's entropy and the commitment they read as an expression
/// does.
#[tokio::test]
async fn a_saved_roll_takes_the_rollers_entropy_and_commitment() {
    let table = Table::new().await;
    table.seated().await;
    let saved = super::call(
        &table.app,
        axum::http::Method::PUT,
        "/api/v1/campaigns/Tak/saved/fireball",
        Some(&table.gm),
        Some(json!({ "expression": "8d6" })),
    )
    .await;
    assert!(saved.status.is_success(), "{}", saved.json());
    let commitment = published(&table).await;
    let fireball = table.command(
        CATO_USER,
        "roll",
        json!([
            { "name": "saved", "type": 3, "value": "fireball" },
            { "name": "entropy", "type": 3, "value": "cato-casts-with-care" },
            { "name": "commitment", "type": 3, "value": commitment },
        ]),
    );
    let shown = said(&table, &fireball).await;
    assert!(shown.contains("the roller's entropy"), "{shown}");
    let entry = gm_log(&table).await.pop().unwrap();
    assert_eq!(entry["draw_commitment"], commitment.as_str());
    assert_eq!(entry["draw"]["entropy"], "cato-casts-with-care");
    assert_eq!(entry["seed"].as_u64(), Some(seed_of(&entry)));
    // Eight d6 from the seed, in order, are the entry's dice.
    let mut dice = ChaChaDice::from_seed(seed_of(&entry));
    let d6 = Die::standard(6, &Limits::default()).unwrap();
    let again: Vec<i64> = (0..8).map(|_| dice.roll(&d6).unwrap()).collect();
    assert_eq!(faces(&entry), again);
}

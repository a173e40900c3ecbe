//! A campaign log across a rule set's state-version upgrade: a character created while hprpg wrote
//! state version 1 (its create entry records the state without a `version`, its row says version 1)
//! replays and verifies in this build, which writes version 2, since this build's upgrade of the
//! recorded state is the state it recomputes; a recorded state that differs in anything else is
//! still a problem replay names.

use std::path::{Path, PathBuf};

use ed25519_dalek::{Signer, SigningKey};
use omen_core::Limits;
use omen_store::{Dice, LogEntry, LogFilter, Store};
use rusqlite::params;
use serde_json::{Value, json};

use crate::{CAMPAIGN, raw};

const JANE: &str = "Jane";

/// The creation hprpg recorded at state version 1 (`tests/fixtures/README.md`).
fn recorded_creation() -> (Value, Value) {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hprpg-v1-create.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let fixture: Value = serde_json::from_str(&text).unwrap();
    (fixture["sheet"].clone(), fixture["state_after"].clone())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The campaign's signing key, from the key file beside the database (its second line).
fn signing_key(database: &Path) -> SigningKey {
    let text = std::fs::read_to_string(database.with_file_name("omen.db.key")).unwrap();
    let secret = text.lines().nth(1).unwrap();
    let bytes: Vec<u8> = (0..64)
        .step_by(2)
        .map(|i| u8::from_str_radix(&secret[i..i + 2], 16).unwrap())
        .collect();
    SigningKey::from_bytes(&bytes.try_into().unwrap())
}

/// Jane's create entry rewritten to record `state` and her row to hold it at `state_version`, the
/// chain re-linked and re-signed from that entry on with the campaign's key: the log as a build
/// that wrote that state would have left it (what the key's holder, that build, signed).
fn record_creation_as(path: &Path, state: &Value, state_version: u32) -> u64 {
    let mut log = Store::open_read_only(path)
        .unwrap()
        .log(&LogFilter::default())
        .unwrap();
    let at = log
        .iter()
        .position(|e| e.character.as_deref() == Some(JANE) && e.inputs["kind"] == "create")
        .expect("Jane's create entry");
    log[at].state_after = Some(state.clone());
    let key = signing_key(path);
    let conn = raw(path);
    for index in at..log.len() {
        if index > 0 {
            log[index].previous_hash = log[index - 1].hash.clone();
        }
        log[index].hash = log[index].compute_hash();
        let signature = key.sign(format!("omen-entry-v2\n{}", log[index].hash).as_bytes());
        log[index].signature = Some(hex(&signature.to_bytes()));
        let entry: &LogEntry = &log[index];
        conn.execute(
            "UPDATE roll_log SET state_after = ?2, previous_hash = ?3, hash = ?4, signature = ?5
             WHERE sequence = ?1",
            params![
                entry.sequence as i64,
                entry.state_after.as_ref().map(Value::to_string),
                entry.previous_hash,
                entry.hash,
                entry.signature,
            ],
        )
        .unwrap();
    }
    let last = log.last().unwrap();
    let uid: String = conn
        .query_row("SELECT uid FROM campaign", [], |row| row.get(0))
        .unwrap();
    let head =
        key.sign(format!("omen-head-v1\n{uid}\n{}\n{}", last.sequence, last.hash).as_bytes());
    conn.execute(
        "UPDATE chain_head SET sequence = ?1, hash = ?2, signature = ?3",
        params![last.sequence as i64, last.hash, hex(&head.to_bytes())],
    )
    .unwrap();
    conn.execute(
        "UPDATE character SET state = ?1, state_version = ?2 WHERE name = ?3",
        params![state.to_string(), state_version, JANE],
    )
    .unwrap();
    log[at].sequence
}

/// A campaign file holding Jane, created from the fixture's sheet and recorded as `state` at
/// `state_version`, then cast at by this build (seeded by the log): the create entry's number.
fn campaign_with_jane(state: &Value, state_version: u32) -> (tempfile::TempDir, PathBuf, u64) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("omen.db");
    let (sheet, _) = recorded_creation();
    {
        let mut store = Store::open(&path).unwrap();
        store.create_campaign(CAMPAIGN).unwrap();
        store
            .create_character(CAMPAIGN, JANE, "hprpg", &sheet)
            .unwrap();
    }
    let created = record_creation_as(&path, state, state_version);
    let mut store = Store::open(&path).unwrap();
    // This build reads the version-1 row upgraded, and logs the state before the cast as version 2.
    let cast = json!({ "action": "cast", "discipline": "ELEMENTAL", "level": 3,
                       "delivery": "ranged", "targets": 2 });
    let acted = store
        .act(CAMPAIGN, JANE, &cast, Dice::Derived, &Limits::default())
        .unwrap();
    assert_eq!(acted.state_before.as_ref().unwrap()["version"], 2);
    assert_eq!(store.character(CAMPAIGN, JANE).unwrap().state_version, 2);
    (dir, path, created)
}

#[test]
fn a_character_created_at_state_version_one_replays_and_verifies_after_the_upgrade() {
    let (_, recorded) = recorded_creation();
    // Version 1 wrote no `version` into the state: the fixture is that form.
    assert!(recorded.get("version").is_none(), "{recorded}");
    let (_dir, path, created) = campaign_with_jane(&recorded, 1);

    let store = Store::open_read_only(&path).unwrap();
    let log = store.log(&LogFilter::default()).unwrap();
    let create = log.iter().find(|e| e.sequence == created).unwrap();
    assert_eq!(create.state_after.as_ref(), Some(&recorded));
    // The state this build writes for the same sheet is the recorded one with its version added,
    // and nothing else changed: exactly what the upgrade does.
    let (sheet, _) = recorded_creation();
    let written = omen_rules::stateful::game("hprpg")
        .unwrap()
        .new_character(&sheet)
        .unwrap();
    let mut upgraded = recorded.clone();
    upgraded["version"] = json!(2);
    assert_eq!(written, upgraded);
    assert_ne!(written, recorded);

    let verified = store.verify(CAMPAIGN).unwrap();
    assert!(verified.is_ok(), "{:?}", verified.problems);
    let replayed = store.replay(CAMPAIGN, &Limits::default()).unwrap();
    assert!(replayed.is_ok(), "{:?}", replayed.problems);
    assert_eq!(replayed.replayed, replayed.entries);
    assert_eq!(replayed.entries, log.len() as u64);
}

#[test]
fn a_recorded_state_that_differs_in_more_than_the_upgrade_fails_replay() {
    let (_, recorded) = recorded_creation();
    let mut hurt = recorded.clone();
    hurt["sheet"]["health"]["current"] = json!(4);
    let mut richer = recorded.clone();
    richer["sheet"]["galleons"] = json!(10);
    for (wrong, what) in [
        (hurt, "a lost point of health"),
        (richer, "ten galleons more"),
    ] {
        let (_dir, path, created) = campaign_with_jane(&wrong, 1);
        let store = Store::open_read_only(&path).unwrap();
        // The chain is whole and signed: only recomputing the entry finds the state wrong.
        let verified = store.verify(CAMPAIGN).unwrap();
        assert!(
            verified
                .problems
                .iter()
                .all(|p| p.sequence != Some(created)),
            "{what}: {:?}",
            verified.problems
        );
        let replayed = store.replay(CAMPAIGN, &Limits::default()).unwrap();
        assert!(
            replayed.problems.iter().any(|p| p.sequence == Some(created)
                && p.problem.contains("recomputing it gives the state")),
            "{what}: {:?}",
            replayed.problems
        );
    }
}

/// Replay accepted a recorded state with a field left out when the loader's default filled it in
/// (`galleons`, say): the state a build wrote is whole, so one missing a field was never written.
#[test]
fn replay_refuses_a_recorded_state_missing_a_field_its_loader_would_default() {
    let (_, recorded) = recorded_creation();
    assert_eq!(recorded["sheet"]["galleons"], json!(0), "{recorded}");
    let mut old_form = recorded.clone();
    old_form["sheet"]
        .as_object_mut()
        .unwrap()
        .remove("galleons");
    let mut current_form = old_form.clone();
    current_form["version"] = json!(2);
    for (wrong, version, what) in [
        (old_form, 1, "version 1's form without its galleons"),
        (current_form, 2, "version 2's form without its galleons"),
    ] {
        let (_dir, path, created) = campaign_with_jane(&wrong, version);
        let store = Store::open_read_only(&path).unwrap();
        let replayed = store.replay(CAMPAIGN, &Limits::default()).unwrap();
        assert!(
            replayed.problems.iter().any(|p| p.sequence == Some(created)
                && p.problem.contains("recomputing it gives the state")),
            "{what}: {:?}",
            replayed.problems
        );
    }
}

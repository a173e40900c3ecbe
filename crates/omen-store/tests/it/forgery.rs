//! The forgery suite: a careful attacker with write access to the database file (and SQLite, and the
//! documented hash recipe, but not the key) edits a copy of a real campaign. Every attack must be found
//! by `verify` (or `replay`, or a receipt) and the entry or character it touched named. An attack by
//! the key's holder is caught by a receipt taken before it.

use std::path::{Path, PathBuf};

use ed25519_dalek::{Signer, SigningKey};
use omen_core::{ChaChaDice, Die, DieSource, Limits, ScriptedDice};
use omen_store::{Dice, LogEntry, LogFilter, Receipt, Store};
use rusqlite::params;
use serde_json::{Value, json};

use crate::{CAMPAIGN, HERO, halfling, luck_roll, raw};

/// A campaign as a table leaves it after an evening: three characters, luck rolls, a modifier, an edit
/// by the game master, a rename, an expression roll, dice given by hand.
struct Evening {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Evening {
    fn new() -> Evening {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("omen.db");
        let mut store = Store::open(&path).unwrap();
        let limits = Limits::default();
        store.create_campaign(CAMPAIGN).unwrap();
        store
            .create_character(CAMPAIGN, HERO, "luck", &halfling())
            .unwrap(); // 1
        store
            .create_character(CAMPAIGN, "Borin", "luck", &json!({}))
            .unwrap(); // 2
        store
            .create_character(CAMPAIGN, "Cato", "none", &json!({}))
            .unwrap(); // 3
        for _ in 0..3 {
            store
                .act(CAMPAIGN, HERO, &luck_roll(0), Dice::Derived, &limits)
                .unwrap(); // 4, 5, 6
        }
        store
            .act(
                CAMPAIGN,
                "Borin",
                &json!({ "action": "add-modifier", "source": "curse", "value": -3 }),
                Dice::Derived,
                &limits,
            )
            .unwrap(); // 7
        store
            .act(CAMPAIGN, "Borin", &luck_roll(0), Dice::Derived, &limits)
            .unwrap(); // 8
        let state = store.character(CAMPAIGN, HERO).unwrap().state;
        store.set_state(CAMPAIGN, HERO, &state).unwrap(); // 9
        store
            .roll(
                CAMPAIGN,
                Some("Cato"),
                "2d6 + 1",
                &Default::default(),
                &Dice::Derived,
                &limits,
            )
            .unwrap(); // 10
        store
            .act(
                CAMPAIGN,
                HERO,
                &luck_roll(0),
                Dice::Given(vec![25]),
                &limits,
            )
            .unwrap(); // 11
        store
            .act(CAMPAIGN, HERO, &luck_roll(0), Dice::Derived, &limits)
            .unwrap(); // 12
        drop(store);
        let evening = Evening { _dir: dir, path };
        assert!(evening.problems().is_empty(), "{:?}", evening.problems());
        evening
    }

    /// A copy of the database and its key file, for one attack.
    fn copy(&self, name: &str) -> PathBuf {
        let path = self.path.with_file_name(format!("{name}.db"));
        std::fs::copy(&self.path, &path).unwrap();
        std::fs::copy(
            self.path.with_file_name("omen.db.key"),
            path.with_file_name(format!("{name}.db.key")),
        )
        .unwrap();
        path
    }

    fn problems(&self) -> Vec<(Option<u64>, String)> {
        problems(&self.path)
    }
}

/// What verify finds, as the game master (with the key file beside the database) runs it.
fn problems(path: &Path) -> Vec<(Option<u64>, String)> {
    let store = Store::open_read_only(path).unwrap();
    store
        .verify(CAMPAIGN)
        .unwrap()
        .problems
        .into_iter()
        .map(|p| (p.sequence, p.problem))
        .collect()
}

fn entries(path: &Path) -> Vec<LogEntry> {
    Store::open_read_only(path)
        .unwrap()
        .log(&LogFilter::default())
        .unwrap()
}

/// Writes entries back over their rows (every column but the live link), then points the head at the
/// last one, keeping the head's old signature: what an attacker with SQLite can do.
fn write_back(path: &Path, rewritten: &[LogEntry]) {
    let conn = raw(path);
    for entry in rewritten {
        conn.execute(
            "UPDATE roll_log SET time = ?2, character = ?3, action = ?4, inputs = ?5, seed = ?6,
                 dice = ?7, result = ?8, state_before = ?9, state_after = ?10, summary = ?11,
                 previous_hash = ?12, hash = ?13, character_uid = ?14, dice_given = ?15,
                 seed_proof = ?16, public_key = ?17, signature = ?18
             WHERE sequence = ?1",
            params![
                entry.sequence as i64,
                entry.time,
                entry.character,
                entry.action,
                entry.inputs.to_string(),
                entry.seed.map(|s| s.to_string()),
                serde_json::to_string(&entry.dice).unwrap(),
                entry.result.to_string(),
                entry.state_before.as_ref().map(Value::to_string),
                entry.state_after.as_ref().map(Value::to_string),
                entry.summary,
                entry.previous_hash,
                entry.hash,
                entry.character_uid,
                entry.dice_given,
                entry.seed_proof,
                entry.public_key,
                entry.signature,
            ],
        )
        .unwrap();
    }
    let last = rewritten.last().unwrap();
    conn.execute(
        "UPDATE chain_head SET sequence = ?1, hash = ?2",
        params![last.sequence as i64, last.hash],
    )
    .unwrap();
}

/// Re-links every entry from `from` (1-based) on with recomputed hashes, as the documented recipe
/// says: the forger's best effort without the key.
fn rehash_from(log: &mut [LogEntry], from: u64) {
    for index in (from as usize - 1)..log.len() {
        if index > 0 {
            log[index].previous_hash = log[index - 1].hash.clone();
        }
        log[index].hash = log[index].compute_hash();
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn named(found: &[(Option<u64>, String)], sequence: u64, words: &str) -> bool {
    found
        .iter()
        .any(|(at, problem)| *at == Some(sequence) && problem.contains(words))
}

fn names_character(found: &[(Option<u64>, String)], name: &str, words: &str) -> bool {
    found
        .iter()
        .any(|(_, problem)| problem.contains(&format!("`{name}`")) && problem.contains(words))
}

/// Entry 6 was Ayla's last seeded luck roll before the edit. The forger finds a seed that gives a
/// better outcome, rolls it, recomputes the result, the state, the summary and every later hash, and
/// moves the head: the seed is not the one the log derives, and the signatures no longer verify.
#[test]
fn a_re_roll_with_a_shopped_seed_is_named() {
    let evening = Evening::new();
    let path = evening.copy("shopped");
    let mut log = entries(&path);
    let game = omen_rules::stateful::game("luck").unwrap();
    let entry = &log[5];
    assert_eq!((entry.sequence, entry.action.as_str()), (6, "roll"));
    let before = entry.state_before.clone().unwrap();
    let action = entry.inputs["action"].clone();
    let (seed, applied, face) = (0..10_000u64)
        .find_map(|seed| {
            let face = ChaChaDice::from_seed(seed)
                .roll(&Die::Standard(50))
                .unwrap();
            let applied = game
                .apply(
                    &before,
                    &action,
                    &mut ScriptedDice::new(vec![face]),
                    &Limits::default(),
                )
                .unwrap();
            (applied.result["outcome"] == "good" && Some(seed) != entry.seed)
                .then_some((seed, applied, face))
        })
        .unwrap();
    let forged = &mut log[5];
    forged.seed = Some(seed);
    forged.dice[0].face = face;
    forged.result = applied.result;
    forged.state_after = Some(applied.state);
    forged.summary = applied.summary;
    rehash_from(&mut log, 6);
    write_back(&path, &log);
    let found = problems(&path);
    assert!(named(&found, 6, "not the one its draw gives"), "{found:?}");
    // The roll is the game master's part of a luck entry: its salted commitment no longer opens.
    assert!(
        named(&found, 6, "does not match its commitment"),
        "{found:?}"
    );
}

/// The last two entries are cut and the head row moved back to the new last entry: its signature is
/// for another head. (Ayla's state is named too when the cut rolls had changed it.)
#[test]
fn a_cut_tail_with_the_head_moved_back_is_named() {
    let evening = Evening::new();
    let path = evening.copy("cut");
    let log = entries(&path);
    let conn = raw(&path);
    conn.execute("DELETE FROM roll_log WHERE sequence > 10", [])
        .unwrap();
    conn.execute(
        "UPDATE chain_head SET sequence = 10, hash = ?1",
        [&log[9].hash],
    )
    .unwrap();
    let found = problems(&path);
    assert!(named(&found, 10, "chain head's signature"), "{found:?}");
}

/// Restoring an older copy of the whole database (consistent, signed, head and all) is invisible to
/// verify alone: a player's receipt from later proves the log was cut back.
#[test]
fn a_rolled_back_database_is_caught_by_a_receipt() {
    let evening = Evening::new();
    let backup = evening.copy("backup");
    let mut store = Store::open(&evening.path).unwrap();
    store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Derived,
            &Limits::default(),
        )
        .unwrap();
    let receipt: Receipt = store
        .head(CAMPAIGN)
        .unwrap()
        .unwrap()
        .receipt()
        .parse()
        .unwrap();
    assert!(store.verify_since(CAMPAIGN, &receipt).unwrap().is_ok());
    drop(store);
    std::fs::copy(&backup, &evening.path).unwrap();
    let store = Store::open_read_only(&evening.path).unwrap();
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
    let report = store.verify_since(CAMPAIGN, &receipt).unwrap();
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert_eq!(report.problems[0].sequence, Some(13));
    assert!(report.problems[0].problem.contains("cut back"));
}

/// A receipt also catches a rewrite from its entry on, even one made with the key: here entry 12 is
/// replaced by a fresh, properly signed entry after the tail is cut (the key holder "rolls again").
#[test]
fn a_rewrite_by_the_key_holder_is_caught_by_a_receipt() {
    let evening = Evening::new();
    let store = Store::open(&evening.path).unwrap();
    let receipt: Receipt = store
        .head(CAMPAIGN)
        .unwrap()
        .unwrap()
        .receipt()
        .parse()
        .unwrap();
    drop(store);
    // The holder deletes entry 12, moves the head back with a proper signature (re-doing entry 11's
    // head by logging is not possible, so they re-open and log anew after restoring Ayla's state).
    let log = entries(&evening.path);
    let conn = raw(&evening.path);
    conn.execute("DELETE FROM roll_log WHERE sequence = 12", [])
        .unwrap();
    conn.execute(
        "UPDATE character SET state = ?1 WHERE name = ?2",
        params![log[10].state_after.as_ref().unwrap().to_string(), HERO],
    )
    .unwrap();
    let key = signing_key(&evening.path.with_file_name("omen.db.key"));
    let uid: String = conn
        .query_row("SELECT uid FROM campaign", [], |row| row.get(0))
        .unwrap();
    let head = key.sign(format!("omen-head-v1\n{uid}\n11\n{}", log[10].hash).as_bytes());
    conn.execute(
        "UPDATE chain_head SET sequence = 11, hash = ?1, signature = ?2",
        params![log[10].hash, hex(&head.to_bytes())],
    )
    .unwrap();
    drop(conn);
    let mut store = Store::open(&evening.path).unwrap();
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
    // The draw published for entry 12 went with it: the re-roll takes a new one, which entry 11 did
    // not publish, so the log itself names the rewrite, and the receipt does too.
    let again = store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Derived,
            &Limits::default(),
        )
        .unwrap();
    assert_eq!(again.sequence, 12);
    assert_ne!(again.draw_commitment, log[11].draw_commitment);
    let found = store.verify(CAMPAIGN).unwrap().problems;
    assert!(
        found.iter().any(|p| p.sequence == Some(12)
            && p.problem
                .contains("not the one the entry before it published")),
        "{found:?}"
    );
    let report = store.verify_since(CAMPAIGN, &receipt).unwrap();
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.sequence == Some(12) && p.problem.contains("rewritten")),
        "{:?}",
        report.problems
    );
}

/// Entry 8 (Borin's roll) is linked to Ayla's row instead.
#[test]
fn an_entry_re_linked_to_another_character_is_named() {
    let evening = Evening::new();
    let path = evening.copy("relinked");
    raw(&path)
        .execute(
            "UPDATE roll_log SET character_id = (SELECT id FROM character WHERE name = ?1) WHERE sequence = 8",
            [HERO],
        )
        .unwrap();
    let found = problems(&path);
    assert!(named(&found, 8, "re-linked"), "{found:?}");
}

/// Entry 8 is rewritten as Ayla's: her identity and name put in, every hash recomputed.
#[test]
fn an_entry_rewritten_for_another_character_is_named() {
    let evening = Evening::new();
    let path = evening.copy("rewritten");
    let mut log = entries(&path);
    log[7].character_uid = log[0].character_uid.clone();
    log[7].character = Some(HERO.to_string());
    rehash_from(&mut log, 8);
    write_back(&path, &log);
    let found = problems(&path);
    assert!(named(&found, 8, "signature"), "{found:?}");
    // Its row still links Borin: the identity it names now is another's.
    assert!(named(&found, 8, "re-linked"), "{found:?}");
}

/// A secret +20 Luck modifier for Ayla, written straight into her state.
#[test]
fn a_state_edited_without_an_entry_names_the_character() {
    let evening = Evening::new();
    let path = evening.copy("edited");
    let conn = raw(&path);
    let state: String = conn
        .query_row(
            "SELECT state FROM character WHERE name = ?1",
            [HERO],
            |row| row.get(0),
        )
        .unwrap();
    let mut state: Value = serde_json::from_str(&state).unwrap();
    state["intrinsic"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "source": "secret", "value": 20, "duration": "permanent" }));
    conn.execute(
        "UPDATE character SET state = ?1 WHERE name = ?2",
        params![state.to_string(), HERO],
    )
    .unwrap();
    let found = problems(&path);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        names_character(&found, HERO, "changed without a log entry"),
        "{found:?}"
    );
    // Replay names her too.
    let report = Store::open_read_only(&path)
        .unwrap()
        .replay(CAMPAIGN, &Limits::default())
        .unwrap();
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.problem.contains(&format!("`{HERO}`"))),
        "{:?}",
        report.problems
    );
}

/// Entries 4 and 5 change places (their numbers swapped).
#[test]
fn two_swapped_entries_are_named() {
    let evening = Evening::new();
    let path = evening.copy("swapped");
    raw(&path)
        .execute_batch(
            "UPDATE roll_log SET sequence = 1000 WHERE sequence = 4;
             UPDATE roll_log SET sequence = 4 WHERE sequence = 5;
             UPDATE roll_log SET sequence = 5 WHERE sequence = 1000;",
        )
        .unwrap();
    let found = problems(&path);
    assert!(named(&found, 4, "does not follow"), "{found:?}");
    assert!(named(&found, 5, "does not follow"), "{found:?}");
}

/// Swapped, and then every hash recomputed to make the chain whole again.
#[test]
fn two_swapped_entries_with_their_hashes_recomputed_are_named() {
    let evening = Evening::new();
    let path = evening.copy("swapped_rehashed");
    let mut log = entries(&path);
    log.swap(3, 4);
    log[3].sequence = 4;
    log[4].sequence = 5;
    rehash_from(&mut log, 4);
    write_back(&path, &log);
    let found = problems(&path);
    assert!(named(&found, 4, "signature"), "{found:?}");
    assert!(named(&found, 5, "signature"), "{found:?}");
}

/// One digit of entry 7's signature changed.
#[test]
fn an_altered_signature_is_named() {
    let evening = Evening::new();
    let path = evening.copy("signature");
    let log = entries(&path);
    let signature = log[6].signature.clone().unwrap();
    let flipped = if signature.starts_with('0') { "1" } else { "0" };
    raw(&path)
        .execute(
            "UPDATE roll_log SET signature = ?1 WHERE sequence = 7",
            [format!("{flipped}{}", &signature[1..])],
        )
        .unwrap();
    let found = problems(&path);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(named(&found, 7, "signature does not verify"), "{found:?}");
}

fn signing_key(path: &Path) -> SigningKey {
    let text = std::fs::read_to_string(path).unwrap();
    let secret = text.lines().nth(1).unwrap();
    let bytes: Vec<u8> = (0..64)
        .step_by(2)
        .map(|i| u8::from_str_radix(&secret[i..i + 2], 16).unwrap())
        .collect();
    SigningKey::from_bytes(&bytes.try_into().unwrap())
}

/// The campaign's public key replaced by the forger's, alone: no entry verifies under it.
#[test]
fn a_replaced_public_key_is_named() {
    let evening = Evening::new();
    let path = evening.copy("public_key");
    let forger = SigningKey::from_bytes(&[7; 32]);
    raw(&path)
        .execute(
            "UPDATE campaign SET public_key = ?1",
            [hex(forger.verifying_key().as_bytes())],
        )
        .unwrap();
    let found = problems(&path);
    assert!(
        found
            .iter()
            .any(|(_, p)| p.contains("campaign's public key") && p.contains("replaced")),
        "{found:?}"
    );
}

/// The whole log re-signed under the forger's key (entries, seeds and head), the campaign's public
/// key replaced: self-consistent, but not signed by the key in the game master's key file.
#[test]
fn a_log_re_signed_under_another_key_is_named() {
    let evening = Evening::new();
    let path = evening.copy("re_signed");
    let forger = SigningKey::from_bytes(&[9; 32]);
    let public = hex(forger.verifying_key().as_bytes());
    let mut log = entries(&path);
    for index in 0..log.len() {
        if index > 0 {
            log[index].previous_hash = log[index - 1].hash.clone();
        }
        let entry = &mut log[index];
        entry.public_key = Some(public.clone());
        if entry.seed.is_some() {
            let message = format!(
                "omen-seed-v1\n{}\n{}\n{}",
                entry.campaign_uid.as_deref().unwrap(),
                entry.sequence,
                entry.previous_hash
            );
            let proof = hex(&forger.sign(message.as_bytes()).to_bytes());
            let digest = <sha2::Sha256 as sha2::Digest>::digest(proof.as_bytes());
            entry.seed = Some(u64::from_be_bytes(digest[..8].try_into().unwrap()));
            entry.seed_proof = Some(proof);
        }
        entry.hash = entry.compute_hash();
        entry.signature = Some(hex(&forger
            .sign(format!("omen-entry-v2\n{}", entry.hash).as_bytes())
            .to_bytes()));
    }
    write_back(&path, &log);
    let last = log.last().unwrap();
    let conn = raw(&path);
    let uid = last.campaign_uid.clone().unwrap();
    let head =
        forger.sign(format!("omen-head-v1\n{uid}\n{}\n{}", last.sequence, last.hash).as_bytes());
    conn.execute(
        "UPDATE chain_head SET signature = ?1",
        [hex(&head.to_bytes())],
    )
    .unwrap();
    conn.execute("UPDATE campaign SET public_key = ?1", [&public])
        .unwrap();
    let found = problems(&path);
    assert!(
        found
            .iter()
            .any(|(_, p)| p.contains("not with the key in your key file")),
        "{found:?}"
    );
    // Without the key file, the fingerprint differs from the one the table knows, and replay finds
    // dice that the new seeds do not give.
    let report = Store::open_read_only(&path)
        .unwrap()
        .replay(CAMPAIGN, &Limits::default())
        .unwrap();
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.problem.contains("are not the ones seed")),
        "{:?}",
        report.problems
    );
}

/// Entry 11's mark that its dice were given by hand is removed.
#[test]
fn a_removed_given_dice_mark_is_named() {
    let evening = Evening::new();
    let path = evening.copy("given");
    raw(&path)
        .execute("UPDATE roll_log SET dice_given = 0 WHERE sequence = 11", [])
        .unwrap();
    let found = problems(&path);
    // Borin's roll is sealed (luck keeps his modifiers for the game master): the mark is in the
    // content the game master's salted commitment covers.
    assert!(
        named(&found, 11, "does not match its commitment"),
        "{found:?}"
    );
    assert!(named(&found, 11, "neither a draw nor a mark"), "{found:?}");
}

/// A character row added (with a made-up identity) and one deleted, both without entries.
#[test]
fn characters_added_or_removed_without_entries_are_named() {
    let evening = Evening::new();
    let path = evening.copy("characters");
    let conn = raw(&path);
    conn.execute(
        "INSERT INTO character (campaign_id, name, rule_set, sheet, state, state_version, created, updated, uid)
         SELECT campaign_id, 'Mallory', rule_set, sheet, state, state_version, created, updated, 'ffffffffffffffffffffffffffffffff'
         FROM character WHERE name = 'Borin'",
        [],
    )
    .unwrap();
    conn.execute("DELETE FROM character WHERE name = 'Cato'", [])
        .unwrap();
    let found = problems(&path);
    assert!(
        names_character(&found, "Mallory", "no log entry"),
        "{found:?}"
    );
    assert!(
        names_character(&found, "Cato", "without a delete entry"),
        "{found:?}"
    );
}

/// Every signature stripped: entries turned back into unsigned version 1 entries, hashes recomputed,
/// as if the log predated signing.
#[test]
fn a_log_stripped_of_its_signatures_is_named() {
    let evening = Evening::new();
    let path = evening.copy("stripped");
    let mut log = entries(&path);
    for entry in &mut log {
        entry.version = 1;
        entry.public_key = None;
        entry.signature = None;
        entry.seed_proof = None;
    }
    rehash_from(&mut log, 1);
    write_back(&path, &log);
    raw(&path)
        .execute("UPDATE roll_log SET version = 1", [])
        .unwrap();
    let found = problems(&path);
    assert!(
        found
            .iter()
            .any(|(_, p)| p.contains("signatures were stripped")),
        "{found:?}"
    );
}

/// An entry copied in from another campaign of the same database (same key), put at the end.
#[test]
fn an_entry_moved_from_another_campaign_is_named() {
    let evening = Evening::new();
    let mut store = Store::open(&evening.path).unwrap();
    store.create_campaign("Other").unwrap();
    store
        .create_character("Other", "Zed", "luck", &json!({}))
        .unwrap();
    drop(store);
    let conn = raw(&evening.path);
    conn.execute(
        "INSERT INTO roll_log (campaign_id, sequence, time, campaign, character, action, inputs, seed,
             dice, result, state_before, state_after, summary, previous_hash, hash, version,
             campaign_uid, character_uid, dice_given, seed_proof, public_key, signature)
         SELECT (SELECT id FROM campaign WHERE name = 'Tak'), 13, time, campaign, character, action,
             inputs, seed, dice, result, state_before, state_after, summary,
             (SELECT hash FROM chain_head WHERE campaign_id = (SELECT id FROM campaign WHERE name = 'Tak')),
             hash, version, campaign_uid, character_uid, dice_given, seed_proof, public_key, signature
         FROM roll_log WHERE campaign_id = (SELECT id FROM campaign WHERE name = 'Other')",
        [],
    )
    .unwrap();
    let found = problems(&evening.path);
    assert!(named(&found, 13, "another campaign"), "{found:?}");
}

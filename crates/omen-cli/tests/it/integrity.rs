//! What a campaign's log proves from the command line (receipts, keys, marks), state files that no
//! two processes can lose an update of, and stored text that cannot command a terminal.

use std::process::{Command, Stdio};

use crate::{json, omen, omen_at as at, omen_ok_at as ok, scratch_dir};

#[test]
fn a_receipt_from_log_head_is_verified_later_and_the_key_is_shown() {
    let db = scratch_dir("integrity_receipt").join("omen.db");
    ok(&db, &["campaign", "new", "Tak"]);
    ok(&db, &["char", "new", "Ayla", "--rules", "luck"]);
    ok(&db, &["luck", "roll", "--char", "Ayla"]);
    let receipt = ok(&db, &["log", "head"]).stdout.trim().to_string();
    assert!(receipt.starts_with("2:"), "{receipt}");
    ok(&db, &["luck", "roll", "--char", "Ayla"]);
    let verified = ok(&db, &["log", "verify", "--since", &receipt]).stdout;
    assert!(verified.contains("extends your receipt"), "{verified}");
    assert!(verified.contains("the key in your key file"), "{verified}");
    let shown = json(&ok(&db, &["campaign", "show", "--format", "json"]));
    let key = shown["public_key"].as_str().unwrap();
    assert_eq!(key.len(), 64);
    let text = ok(&db, &["campaign", "show"]).stdout;
    assert!(text.contains(&format!("public key: {key}")), "{text}");
    assert!(
        text.contains(shown["fingerprint"].as_str().unwrap()),
        "{text}"
    );
    // The key file is the database's name with .key, readable by its owner only.
    let key_file = db.with_file_name("omen.db.key");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // A receipt the log does not extend fails verify, naming the entry.
    let wrong = format!("2:{}", "0".repeat(32));
    let run = at(&db, &["log", "verify", "--since", &wrong]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stdout.contains("entry 2"), "{}", run.stdout);
    // Without the key file the log still verifies; nothing can be added.
    std::fs::rename(&key_file, db.with_file_name("backup.key")).unwrap();
    assert!(ok(&db, &["log", "verify"]).stdout.contains("intact"));
    let refused = at(&db, &["luck", "roll", "--char", "Ayla"]);
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains("restore the key file"),
        "{}",
        refused.stderr
    );
    // --key names it where it is.
    let backup = db.with_file_name("backup.key");
    ok(
        &db,
        &["char", "new", "Borin", "--key", backup.to_str().unwrap()],
    );
}

#[test]
fn a_chosen_seed_is_refused_and_given_dice_are_marked_in_the_log() {
    let db = scratch_dir("integrity_seed").join("omen.db");
    ok(&db, &["campaign", "new", "Tak"]);
    ok(&db, &["char", "new", "Ayla", "--rules", "luck"]);
    let chosen = at(&db, &["luck", "roll", "--char", "Ayla", "--seed", "7"]);
    assert_eq!(chosen.code, 2);
    assert!(
        chosen.stderr.contains("no seed can be chosen"),
        "{}",
        chosen.stderr
    );
    let chosen = at(&db, &["roll", "d20", "--campaign", "Tak", "--seed", "7"]);
    assert_eq!(chosen.code, 2, "{}", chosen.stderr);
    let given = ok(&db, &["luck", "roll", "--char", "Ayla", "--dice", "25"]);
    assert!(given.stdout.contains("given by hand"), "{}", given.stdout);
    let log = ok(&db, &["log"]).stdout;
    assert!(log.contains("[given dice]"), "{log}");
    ok(
        &db,
        &["char", "edit", "Ayla", "--state", r#"{"intrinsic": []}"#],
    );
    assert!(ok(&db, &["log"]).stdout.contains("[game-master edit]"));
    assert!(ok(&db, &["log", "verify"]).stdout.contains("intact"));
}

#[test]
fn a_plain_character_keeps_no_rule_set_and_its_rolls_are_logged() {
    let db = scratch_dir("integrity_plain").join("omen.db");
    ok(&db, &["campaign", "new", "Tak"]);
    ok(&db, &["char", "new", "Cato"]);
    ok(&db, &["char", "new", "Dara", "--rules", "none"]);
    let listed = ok(&db, &["char", "list"]).stdout;
    assert!(listed.contains("Cato (none)"), "{listed}");
    ok(&db, &["roll", "2d6", "--campaign", "Tak", "--char", "Cato"]);
    let log = json(&ok(&db, &["log", "--char", "Cato", "--format", "json"]));
    assert_eq!(log.as_array().unwrap().len(), 2);
    assert_eq!(log[1]["action"], "expression");
    let act = at(&db, &["luck", "roll", "--char", "Cato"]);
    assert_eq!(act.code, 2);
    assert!(ok(&db, &["log", "replay"]).stdout.contains("every result"));
}

#[test]
fn stored_text_is_escaped_on_a_terminal() {
    let db = scratch_dir("integrity_escape").join("omen.db");
    ok(&db, &["campaign", "new", "Tak"]);
    ok(
        &db,
        &[
            "save",
            "hit",
            "d20",
            "--description",
            "\u{1b}[2J\u{1b}]0;owned\u{7}",
        ],
    );
    let listed = ok(&db, &["saved", "list"]).stdout;
    assert!(
        !listed.contains('\u{1b}') && !listed.contains('\u{7}'),
        "{listed:?}"
    );
    assert!(listed.contains("\\u{1b}[2J"), "{listed}");
    // JSON keeps the text exact, escaped the JSON way.
    let raw = ok(&db, &["saved", "list", "--format", "json"]).stdout;
    assert!(!raw.contains('\u{1b}'));
    assert_eq!(
        json(&ok(&db, &["saved", "list", "--format", "json"]))[0]["description"],
        "\u{1b}[2J\u{1b}]0;owned\u{7}"
    );
    let error = at(&db, &["char", "show", "\u{1b}[31mX"]);
    assert_eq!(error.code, 2);
    assert!(!error.stderr.contains('\u{1b}'), "{:?}", error.stderr);
    // A script with a control character is drawn escaped.
    let drawn = omen(&["prob", "d6 +\u{1b}[2J"]);
    assert!(!drawn.stderr.contains('\u{1b}'), "{:?}", drawn.stderr);
}

/// Sixteen processes add a modifier each to one state file at once: every update is kept, and no
/// temporary file is left behind.
#[test]
fn concurrent_updates_of_a_state_file_are_all_kept() {
    let dir = scratch_dir("integrity_state_file");
    let state = dir.join("ayla.json");
    let children: Vec<_> = (0..16)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_omen"))
                .args([
                    "act",
                    "luck",
                    &format!(r#"{{"action": "add-modifier", "source": "s{i}", "value": 1}}"#),
                    "--state",
                    state.to_str().unwrap(),
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let kept: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    let intrinsic = kept["state"]["intrinsic"].as_array().unwrap();
    assert_eq!(intrinsic.len(), 16, "{kept}");
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, [".ayla.json.lock", "ayla.json"]);
}

/// A temporary file left by a process killed in the middle of a write is removed by the next update.
#[test]
fn a_killed_writers_temporary_file_is_removed_by_the_next_update() {
    let dir = scratch_dir("integrity_stale_temporary");
    let state = dir.join("ayla.json");
    let stale = dir.join(".ayla.json.999999.tmp");
    std::fs::write(&stale, "{ half a st").unwrap();
    let run = omen(&[
        "act",
        "luck",
        r#"{"action": "add-modifier", "source": "s", "value": 1}"#,
        "--state",
        state.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!stale.exists());
    // Another file's temporaries are not touched.
    let other = dir.join(".other.json.1.tmp");
    std::fs::write(&other, "").unwrap();
    omen(&[
        "act",
        "luck",
        r#"{"action": "add-modifier", "source": "t", "value": 1}"#,
        "--state",
        state.to_str().unwrap(),
    ]);
    assert!(other.exists());
}

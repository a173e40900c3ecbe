//! Members from the command line: `omen campaign invite`, `invites` and `revoke`, and the
//! visibility of rolls.

use crate::{json, omen_at as at, omen_ok_at as ok, scratch_dir};

/// A campaign `Tak` with the luck character `Ayla`.
fn table(test: &str) -> std::path::PathBuf {
    let db = scratch_dir(test).join("omen.db");
    ok(&db, &["campaign", "new", "Tak"]);
    ok(
        &db,
        &[
            "char",
            "new",
            "Ayla",
            "--rules",
            "luck",
            "--sheet",
            r#"{"intrinsic": [{"source": "halfling", "value": 2}]}"#,
        ],
    );
    db
}

#[test]
fn an_invite_prints_its_token_once_and_is_listed_and_revoked() {
    let db = table("members_invite");
    let made = ok(
        &db,
        &[
            "campaign", "invite", "Tak", "--role", "player", "--char", "Ayla",
        ],
    );
    let token = made
        .stdout
        .lines()
        .find_map(|line| line.strip_prefix("token: "))
        .expect("the token is printed")
        .to_string();
    assert!(token.len() >= 32, "{token}");
    assert!(made.stdout.contains("shown only now"), "{}", made.stdout);
    let listed = ok(&db, &["campaign", "invites", "Tak"]);
    assert!(listed.stdout.contains("player"), "{}", listed.stdout);
    assert!(listed.stdout.contains("(Ayla)"), "{}", listed.stdout);
    assert!(listed.stdout.contains("active"), "{}", listed.stdout);
    assert!(!listed.stdout.contains(&token));
    let listed = json(&ok(
        &db,
        &["campaign", "invites", "Tak", "--format", "json"],
    ));
    assert_eq!(listed[0]["role"], "player");
    assert_eq!(listed[0]["characters"][0], "Ayla");
    let id = listed[0]["id"].as_i64().unwrap().to_string();
    // The log records the invite, not the token.
    let log = ok(&db, &["log", "--format", "json"]);
    assert!(log.stdout.contains("\"invite\""), "{}", log.stdout);
    assert!(!log.stdout.contains(&token));
    ok(&db, &["campaign", "revoke", "Tak", &id]);
    assert!(
        ok(&db, &["campaign", "invites", "Tak"])
            .stdout
            .contains("revoked")
    );
    let again = at(&db, &["campaign", "revoke", "Tak", &id]);
    assert_eq!(again.code, 2);
    assert!(again.stderr.contains("already revoked"), "{}", again.stderr);
    assert!(ok(&db, &["log", "verify"]).stdout.contains("intact"));
}

#[test]
fn an_invite_with_the_wrong_characters_is_refused() {
    let db = table("members_refused");
    let player = at(&db, &["campaign", "invite", "Tak", "--role", "player"]);
    assert_eq!(player.code, 2);
    assert!(player.stderr.contains("--char"), "{}", player.stderr);
    let observer = at(
        &db,
        &[
            "campaign", "invite", "Tak", "--role", "observer", "--char", "Ayla",
        ],
    );
    assert_eq!(observer.code, 2);
    let role = at(&db, &["campaign", "invite", "Tak", "--role", "king"]);
    assert_eq!(role.code, 2);
    assert!(role.stderr.contains("gm"), "{}", role.stderr);
    let json = json(&ok(
        &db,
        &[
            "campaign", "invite", "Tak", "--role", "GM", "--format", "json",
        ],
    ));
    assert_eq!(json["invite"]["role"], "gm");
    assert!(json["token"].as_str().unwrap().starts_with("omen_"));
}

#[test]
fn a_blind_roll_is_hidden_from_the_player_view_until_revealed() {
    let db = table("members_blind");
    ok(&db, &["char", "new", "Cato"]);
    let rolled = ok(
        &db,
        &[
            "roll",
            "3d6",
            "--char",
            "Cato",
            "--dice",
            "6,6,5",
            "--visibility",
            "blind",
        ],
    );
    assert!(
        rolled.stdout.contains("only the game master sees it"),
        "{}",
        rolled.stdout
    );
    let sequence = rolled
        .stdout
        .split("logged as entry ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_string();
    // The database's own listing shows it; a player's view does not, not even its dice count.
    let full = json(&ok(&db, &["log", "--format", "json"]));
    let last = full.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["result"], 17);
    assert_eq!(last["visibility"], "blind");
    for args in [
        vec!["log", "--view", "player", "--format", "json"],
        vec![
            "log",
            "--view",
            "player",
            "--as-char",
            "Cato",
            "--format",
            "json",
        ],
    ] {
        let seen = json(&ok(&db, &args));
        let hidden = seen.as_array().unwrap().last().unwrap().clone();
        assert_eq!(hidden["result"], serde_json::Value::Null);
        assert_eq!(hidden["dice"], serde_json::json!([]));
        assert_eq!(hidden["redacted"], true);
        // Quoted: the expression as a JSON string (hashes are hex and may hold "3d6" by chance).
        assert!(!hidden.to_string().contains("\"3d6"), "{hidden}");
    }
    let text = ok(&db, &["log", "--view", "player"]);
    assert!(text.stdout.contains("[blind]"), "{}", text.stdout);
    let checked = ok(
        &db,
        &["log", "verify", "--view", "player", "--as-char", "Cato"],
    );
    assert!(checked.stdout.contains("is intact"), "{}", checked.stdout);
    assert!(
        checked.stdout.contains("luck") || checked.stdout.contains("kept for the game master"),
        "{}",
        checked.stdout
    );
    let revealed = ok(&db, &["log", "reveal", "Tak", &sequence]);
    assert!(revealed.stdout.contains("revealed"), "{}", revealed.stdout);
    let seen = json(&ok(&db, &["log", "--view", "player", "--format", "json"]));
    let opened = seen
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["sequence"].as_u64() == sequence.parse().ok())
        .unwrap()
        .clone();
    assert_eq!(opened["result"], 17);
    assert!(opened["salt"].is_string());
    assert!(ok(&db, &["log", "verify"]).stdout.contains("intact"));
    assert!(
        ok(&db, &["log", "replay"])
            .stdout
            .contains("every result and state is the same")
    );
    let again = at(&db, &["log", "reveal", "Tak", &sequence]);
    assert_eq!(again.code, 2);
    assert!(
        again.stderr.contains("revealed already"),
        "{}",
        again.stderr
    );
}

#[test]
fn a_player_view_of_a_luck_roll_keeps_the_hidden_modifiers_out() {
    let db = table("members_luck_view");
    ok(
        &db,
        &[
            "luck",
            "roll",
            "--char",
            "Ayla",
            "--dice",
            "25",
            "--visibility",
            "private",
        ],
    );
    let gm = ok(&db, &["log", "--format", "json"]);
    assert!(gm.stdout.contains("halfling"), "{}", gm.stdout);
    let player = ok(
        &db,
        &[
            "log",
            "--view",
            "player",
            "--as-char",
            "Ayla",
            "--format",
            "json",
        ],
    );
    assert!(!player.stdout.contains("halfling"), "{}", player.stdout);
    assert!(player.stdout.contains("\"die\":25"), "{}", player.stdout);
    let observer = ok(&db, &["log", "--view", "player", "--format", "json"]);
    assert!(
        !observer.stdout.contains("\"die\":25"),
        "{}",
        observer.stdout
    );
    let refused = at(&db, &["luck", "roll", "--visibility", "blind"]);
    assert_eq!(refused.code, 2);
}

#[test]
fn the_fairness_report_flags_loaded_dice_and_says_when_there_are_too_few() {
    let db = table("members_fairness");
    ok(&db, &["char", "new", "Cato"]);
    let few = ok(&db, &["log", "fairness", "Tak"]);
    assert!(few.stdout.contains("no rolls to test"), "{}", few.stdout);
    // Six rolls of 10d6 at the table: sixty d6 faces, evenly spread.
    let even = "1,2,3,4,5,6,1,2,3,4";
    let rest = "5,6,1,2,3,4,5,6,1,2";
    let more = "3,4,5,6,1,2,3,4,5,6";
    for dice in [even, rest, more, even, rest, more] {
        ok(&db, &["roll", "10d6", "--char", "Cato", "--dice", dice]);
    }
    let fair = ok(&db, &["log", "fairness", "Tak"]);
    assert!(
        fair.stdout.contains("consistent with fair dice"),
        "{}",
        fair.stdout
    );
    assert!(fair.stdout.contains("10d6"), "{}", fair.stdout);
    assert!(
        fair.stdout.contains("too few rolls to tell"),
        "{}",
        fair.stdout
    );
    // Then a d6 that loves sixes.
    for _ in 0..4 {
        ok(
            &db,
            &[
                "roll",
                "10d6",
                "--char",
                "Cato",
                "--dice",
                "6,6,6,6,6,6,6,6,6,6",
            ],
        );
    }
    let loaded = ok(&db, &["log", "fairness", "Tak", "--format", "json"]);
    let report = json(&loaded);
    assert_eq!(report["whole"]["dice"][0]["die"], "d6");
    assert_eq!(report["whole"]["dice"][0]["rolled"], 100);
    assert_eq!(report["whole"]["dice"][0]["given"], 100);
    assert_eq!(
        report["whole"]["dice"][0]["verdict"]["verdict"],
        "suspicious"
    );
    let text = ok(&db, &["log", "fairness"]);
    assert!(text.stdout.contains("suspicious: p = "), "{}", text.stdout);
    let today = report["sessions"][0]["session"]
        .as_str()
        .unwrap()
        .to_string();
    let session = ok(&db, &["log", "fairness", "--session", &today]);
    assert!(session.stdout.contains("suspicious"), "{}", session.stdout);
    let bad = at(&db, &["log", "fairness", "--session", "soon"]);
    assert_eq!(bad.code, 2);
    // A blind roll counts for the game master, not in a player's report.
    ok(
        &db,
        &[
            "roll",
            "1d6",
            "--char",
            "Cato",
            "--dice",
            "1",
            "--visibility",
            "blind",
        ],
    );
    let gm = json(&ok(&db, &["log", "fairness", "--format", "json"]));
    let player = json(&ok(
        &db,
        &["log", "fairness", "--view", "player", "--format", "json"],
    ));
    assert_eq!(gm["whole"]["dice"][0]["rolled"], 101);
    assert_eq!(player["whole"]["dice"][0]["rolled"], 100);
    let stats = at(&db, &["log", "stats", "--view", "player"]);
    assert_eq!(stats.code, 2);
    assert!(
        stats.stderr.contains("--view applies to"),
        "{}",
        stats.stderr
    );
}

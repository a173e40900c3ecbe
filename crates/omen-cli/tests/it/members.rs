//! Members from the command line: `omen campaign invite`, `invites` and `revoke`, and the
//! visibility of rolls.

use std::path::Path;

use crate::{json, omen, scratch_dir};

fn at(db: &Path, args: &[&str]) -> crate::Run {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--db", db.to_str().unwrap()]);
    omen(&all)
}

fn ok(db: &Path, args: &[&str]) -> crate::Run {
    let run = at(db, args);
    assert_eq!(run.code, 0, "omen {args:?} failed:\n{}", run.stderr);
    run
}

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
        assert!(!hidden.to_string().contains("3d6"), "{hidden}");
    }
    let text = ok(&db, &["log", "--view", "player"]);
    assert!(text.stdout.contains("[blind]"), "{}", text.stdout);
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

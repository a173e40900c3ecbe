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

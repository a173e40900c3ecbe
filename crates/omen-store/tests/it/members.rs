//! Members and invites: tokens shown once and kept as hashes, roles, owned characters, revocation,
//! and the log entries they leave.

use omen_store::{LogFilter, Role, SCHEMA_VERSION, Store, StoreError};
use serde_json::json;

use crate::{CAMPAIGN, HERO, file_store, memory_store, raw, roll_times};

#[test]
fn a_token_lets_its_member_in_until_it_is_revoked() {
    let mut store = memory_store();
    let (invite, token) = store
        .create_invite(CAMPAIGN, Role::Player, Some(HERO))
        .unwrap();
    assert_eq!(invite.role, Role::Player);
    assert_eq!(invite.characters, vec![HERO.to_string()]);
    assert!(token.len() >= 32, "at least 128 bits: {token}");
    let member = store.authenticate(&token).unwrap().expect("a member");
    assert_eq!(member.campaign, CAMPAIGN);
    assert_eq!(member.role, Role::Player);
    assert_eq!(member.characters, vec![HERO.to_string()]);
    assert_eq!(member.invite_id, invite.id);
    assert_eq!(store.authenticate("omen_not-a-token").unwrap(), None);
    assert_eq!(store.authenticate("").unwrap(), None);
    assert_eq!(store.authenticate(&"x".repeat(100_000)).unwrap(), None);

    let revoked = store.revoke_invite(CAMPAIGN, invite.id).unwrap();
    assert!(revoked.revoked.is_some());
    assert_eq!(store.authenticate(&token).unwrap(), None);
    let again = store.revoke_invite(CAMPAIGN, invite.id).unwrap_err();
    assert!(again.to_string().contains("already revoked"), "{again}");
    let missing = store.revoke_invite(CAMPAIGN, 99).unwrap_err();
    assert!(matches!(missing, StoreError::NotFound(_)), "{missing}");
    assert!(
        missing.to_string().contains("omen campaign invites"),
        "{missing}"
    );
}

#[test]
fn the_database_keeps_only_a_hash_of_the_token() {
    let (_dir, path, mut store) = file_store();
    let (_, token) = store
        .create_invite(CAMPAIGN, Role::GameMaster, None)
        .unwrap();
    drop(store);
    let bytes = std::fs::read(&path).unwrap();
    let wal = std::fs::read(path.with_extension("db-wal")).unwrap_or_default();
    let secret = token.trim_start_matches("omen_").as_bytes();
    for file in [&bytes, &wal] {
        assert!(
            !file.windows(secret.len()).any(|w| w == secret),
            "the token is in the database file"
        );
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(
        store.authenticate(&token).unwrap().unwrap().role,
        Role::GameMaster
    );
    // Nothing the store lists or exports holds the token or its hash.
    let listed = serde_json::to_string(&store.invites(CAMPAIGN).unwrap()).unwrap();
    let exported = store.export_campaign(CAMPAIGN).unwrap().to_string();
    let logged = serde_json::to_string(&store.log(&LogFilter::default()).unwrap()).unwrap();
    let hash: String = raw(&path)
        .query_row("SELECT token_hash FROM invite", [], |row| row.get(0))
        .unwrap();
    for text in [&listed, &exported, &logged] {
        assert!(!text.contains(token.as_str()));
        assert!(!text.contains(hash.as_str()));
    }
}

#[test]
fn roles_and_characters_are_checked() {
    let mut store = memory_store();
    let error = store
        .create_invite(CAMPAIGN, Role::Player, None)
        .unwrap_err();
    assert!(error.to_string().contains("--char"), "{error}");
    let error = store
        .create_invite(CAMPAIGN, Role::Observer, Some(HERO))
        .unwrap_err();
    assert!(error.to_string().contains("only a player"), "{error}");
    let error = store
        .create_invite(CAMPAIGN, Role::Player, Some("Nobody"))
        .unwrap_err();
    assert!(matches!(error, StoreError::NotFound(_)), "{error}");
    let error = store
        .create_invite("Nowhere", Role::GameMaster, None)
        .unwrap_err();
    assert!(matches!(error, StoreError::NotFound(_)), "{error}");
    // Nothing was logged or kept by the refusals.
    assert!(store.invites(CAMPAIGN).unwrap().is_empty());
    assert_eq!(store.log(&LogFilter::default()).unwrap().len(), 1);

    // A player may own several characters, and a rename keeps the ownership.
    store
        .create_character(CAMPAIGN, "Bren", "luck", &json!({}))
        .unwrap();
    let (invite, token) = store
        .create_invite_for(CAMPAIGN, Role::Player, &["Bren", HERO, "Bren"])
        .unwrap();
    assert_eq!(
        invite.characters,
        vec![HERO.to_string(), "Bren".to_string()]
    );
    store.rename_character(CAMPAIGN, "Bren", "Brenna").unwrap();
    let member = store.authenticate(&token).unwrap().unwrap();
    assert_eq!(
        member.characters,
        vec![HERO.to_string(), "Brenna".to_string()]
    );
    let (observer, _) = store.create_invite(CAMPAIGN, Role::Observer, None).unwrap();
    let listed = store.invites(CAMPAIGN).unwrap();
    assert_eq!(
        listed.iter().map(|i| i.id).collect::<Vec<_>>(),
        vec![invite.id, observer.id]
    );
}

#[test]
fn invites_and_revocations_are_logged_without_the_token_and_the_log_verifies() {
    let mut store = memory_store();
    let (invite, token) = store
        .create_invite(CAMPAIGN, Role::Player, Some(HERO))
        .unwrap();
    store.revoke_invite(CAMPAIGN, invite.id).unwrap();
    let log = store.log(&LogFilter::default()).unwrap();
    let made = &log[1];
    assert_eq!(made.action, "invite");
    assert_eq!(made.inputs["role"], "player");
    assert_eq!(made.inputs["invite"], invite.id);
    assert_eq!(made.inputs["characters"][0]["name"], HERO);
    assert_eq!(log[2].action, "revoke-invite");
    assert!(!serde_json::to_string(&log).unwrap().contains(&token));
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
    let replay = store
        .replay(CAMPAIGN, &omen_core::Limits::default())
        .unwrap();
    assert!(replay.is_ok(), "{:?}", replay.problems);
    // An export carries the log (entries included) but no members: an import has none, and its log
    // verifies.
    let export = store.export_campaign(CAMPAIGN).unwrap();
    let mut other = crate::empty_store();
    other.import_campaign(&export, None).unwrap();
    assert!(other.invites(CAMPAIGN).unwrap().is_empty());
    assert!(other.verify(CAMPAIGN).unwrap().is_ok());
    assert_eq!(other.authenticate(&token).unwrap(), None);
}

/// A database at version 3 gains members, visibilities and draws on opening. (Its entries are
/// written by this build, so the log is emptied first: a version 3 log has no draws to keep. The
/// schema's unit tests carry an older log through the upgrade.)
#[test]
fn a_version_three_database_gains_members_visibilities_and_draws() {
    let (dir, path, store) = file_store();
    drop(store);
    {
        // The database as version 3 left it: no member tables, no dialect, no visibility columns,
        // no draws.
        let conn = raw(&path);
        conn.execute_batch(
            "DROP TABLE discord_gm_channel; DROP TABLE discord_link; DROP TABLE discord_channel;
             DROP TABLE web_session; DROP TABLE invite_character; DROP TABLE invite;
             DROP TABLE draw_pending;
             DELETE FROM roll_log; DELETE FROM chain_head; DELETE FROM character;
             ALTER TABLE roll_log DROP COLUMN visibility; ALTER TABLE roll_log DROP COLUMN actor;
             ALTER TABLE roll_log DROP COLUMN commitment; ALTER TABLE roll_log DROP COLUMN salt;
             ALTER TABLE roll_log DROP COLUMN draw_commitment;
             ALTER TABLE roll_log DROP COLUMN next_draw_commitment;
             ALTER TABLE roll_log DROP COLUMN draw; ALTER TABLE roll_log DROP COLUMN gm_commitment;
             ALTER TABLE roll_log DROP COLUMN gm_salt; ALTER TABLE roll_log DROP COLUMN player_view;
             ALTER TABLE campaign DROP COLUMN dialect;
             PRAGMA user_version = 3;",
        )
        .unwrap();
    }
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
    store
        .create_character(CAMPAIGN, HERO, "luck", &serde_json::json!({}))
        .unwrap();
    roll_times(&mut store, 2);
    let (_, token) = store
        .create_invite(CAMPAIGN, Role::Player, Some(HERO))
        .unwrap();
    assert_eq!(
        store.authenticate(&token).unwrap().unwrap().characters,
        vec![HERO.to_string()]
    );
    let report = store.verify(CAMPAIGN).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    drop(dir);
}

#[test]
fn deleting_a_campaign_deletes_its_invites() {
    let mut store = memory_store();
    let (_, token) = store
        .create_invite(CAMPAIGN, Role::Player, Some(HERO))
        .unwrap();
    store.delete_campaign(CAMPAIGN).unwrap();
    assert_eq!(store.authenticate(&token).unwrap(), None);
}

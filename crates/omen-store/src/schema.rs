//! Schema migrations: plain SQL files in `migrations/`, applied in order on open, each in its own
//! transaction, the version kept in `PRAGMA user_version`.

use rusqlite::{Connection, TransactionBehavior};

use crate::db::{Conn, params};
use crate::error::StoreError;
use crate::key::Key;
use crate::log::{Chain, Draft};

/// The migrations, in order; migration `n` (1-based) brings the schema to version `n`.
const MIGRATIONS: &[(&str, &str)] = &[
    (
        "0001_campaigns.sql",
        include_str!("../migrations/0001_campaigns.sql"),
    ),
    (
        "0002_chain_heads.sql",
        include_str!("../migrations/0002_chain_heads.sql"),
    ),
    (
        "0003_signed_log.sql",
        include_str!("../migrations/0003_signed_log.sql"),
    ),
    (
        "0004_members.sql",
        include_str!("../migrations/0004_members.sql"),
    ),
    (
        "0005_campaign_dialect.sql",
        include_str!("../migrations/0005_campaign_dialect.sql"),
    ),
    (
        "0006_visibility.sql",
        include_str!("../migrations/0006_visibility.sql"),
    ),
    (
        "0007_web_sessions.sql",
        include_str!("../migrations/0007_web_sessions.sql"),
    ),
    (
        "0008_draws.sql",
        include_str!("../migrations/0008_draws.sql"),
    ),
    (
        "0009_discord.sql",
        include_str!("../migrations/0009_discord.sql"),
    ),
    (
        "0010_discord_gm_channel.sql",
        include_str!("../migrations/0010_discord_gm_channel.sql"),
    ),
];

/// The version that signs logs: upgrading to it re-anchors every campaign under the key.
const SIGNED_LOG_VERSION: u32 = 3;

/// `PRAGMA application_id` of an Omen database ("OMEN" in ASCII), so another program's SQLite file is
/// told apart before anything is written to it.
pub const APPLICATION_ID: i32 = 0x4f4d_454e;

/// Whether the file open on `conn` may be used as an Omen database: `Ok(())`, or what it is instead.
/// Only reads. A file marked with [`APPLICATION_ID`] is Omen's, one marked by another program is
/// not; an unmarked one is Omen's only when it is empty (a new database) or holds exactly what
/// Omen's migrations up to its schema version make (a database from before Omen marked its files).
/// Anything less strict would let another program's file that merely shares a table name be
/// migrated, and so changed.
pub(crate) fn check_ownership(conn: &Connection) -> Result<(), String> {
    let id: i32 = conn
        .pragma_query_value(None, "application_id", |row| row.get(0))
        .map_err(|error| {
            if error.sqlite_error_code() == Some(rusqlite::ErrorCode::NotADatabase) {
                "it is not a SQLite database".to_string()
            } else {
                error.to_string()
            }
        })?;
    if id == APPLICATION_ID {
        return Ok(());
    }
    if id != 0 {
        return Err(format!(
            "it is a SQLite database of another program (application id {id:#x})"
        ));
    }
    let found = shape(conn).map_err(|error| error.to_string())?;
    let found_version = version(conn).map_err(|error| error.to_string())?;
    if found.is_empty() && found_version == 0 {
        return Ok(());
    }
    let foreign = || {
        let tables: Vec<&str> = found
            .keys()
            .filter(|(kind, _)| kind == "table")
            .map(|(_, name)| name.as_str())
            .collect();
        let mut listed = tables[..tables.len().min(5)].join(", ");
        if tables.len() > 5 {
            listed.push_str(", …");
        }
        if tables.is_empty() {
            format!(
                "it is a SQLite database of another program, with no tables and schema version {found_version}"
            )
        } else {
            format!("it is a SQLite database of another program, with tables {listed}")
        }
    };
    if found.is_empty() || found_version == 0 || found_version > SCHEMA_VERSION {
        // Every Omen schema version from 1 on has tables, and a newer Omen marks its files.
        return Err(foreign());
    }
    let expected = expected_shape(found_version).map_err(|error| error.to_string())?;
    let named = |kind: &str, name: &str| {
        if kind == "table" {
            name.to_string()
        } else {
            format!("{kind} {name}")
        }
    };
    let unexpected: Vec<String> = found
        .keys()
        .filter(|key| !expected.contains_key(*key))
        .map(|(kind, name)| named(kind, name))
        .collect();
    if !unexpected.is_empty() {
        let mut listed = unexpected[..unexpected.len().min(5)].join(", ");
        if unexpected.len() > 5 {
            listed.push_str(", …");
        }
        return Err(format!(
            "it is a SQLite database of another program: it holds {listed}, which Omen does not make"
        ));
    }
    let mut missing: Vec<&(String, String)> = expected
        .keys()
        .filter(|key| !found.contains_key(*key))
        .collect();
    // A missing table says more than the index that went with it.
    missing.sort_by_key(|(kind, _)| kind != "table");
    if let Some((kind, name)) = missing.first() {
        return Err(format!(
            "it is a SQLite database of another program: it lacks the {} Omen makes",
            named(kind, name)
        ));
    }
    for ((kind, name), columns) in &found {
        if expected[&(kind.clone(), name.clone())] != *columns {
            let names: Vec<&str> = columns.iter().map(|column| column.0.as_str()).collect();
            return Err(format!(
                "it is a SQLite database of another program: its {kind} `{name}` has columns {}, not Omen's",
                names.join(", ")
            ));
        }
    }
    Ok(())
}

/// A column as `PRAGMA table_info` describes it: name, declared type, `NOT NULL`, place in the
/// primary key.
type Column = (String, String, bool, i64);

/// What a database holds: its tables, indexes, views and triggers by kind and name (SQLite's own,
/// `sqlite_…`, left out), each table with its columns.
type Shape = std::collections::BTreeMap<(String, String), Vec<Column>>;

fn shape(conn: &Connection) -> Result<Shape, rusqlite::Error> {
    let mut objects = conn.prepare(
        "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    )?;
    let objects = objects
        .query_map([], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut columns =
        conn.prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid")?;
    let mut shape = Shape::new();
    for (kind, name) in objects {
        let described = if kind == "table" {
            columns
                .query_map([&name], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
                })?
                .collect::<Result<Vec<Column>, _>>()?
        } else {
            Vec::new()
        };
        shape.insert((kind, name), described);
    }
    Ok(shape)
}

/// What Omen's migrations up to `version` make, in a scratch database in memory.
fn expected_shape(version: u32) -> Result<Shape, rusqlite::Error> {
    let conn = Connection::open_in_memory()?;
    for (_, sql) in MIGRATIONS.iter().take(version as usize) {
        conn.execute_batch(sql)?;
    }
    shape(&conn)
}

/// The SQLite migrations, by name (PostgreSQL has one of the same name for each).
#[cfg(test)]
pub(crate) fn migration_names() -> &'static [(&'static str, &'static str)] {
    MIGRATIONS
}

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

pub(crate) fn version(conn: &Connection) -> Result<u32, StoreError> {
    Ok(conn.pragma_query_value(None, "user_version", |row| row.get::<_, u32>(0))?)
}

/// Brings the schema up to `target`, one migration per transaction. Another process may be migrating
/// the same file at the same time: each step re-reads the version inside its write lock. Upgrading to
/// signed logs re-anchors every campaign under `key` (needed only when there are campaigns).
///
/// # Errors
/// [`StoreError::NewerSchema`] for a database from a newer build; [`StoreError::Key`] when old
/// campaigns need a key and none is given; SQLite's errors otherwise, without the migration's SQL.
pub(crate) fn migrate(
    conn: &mut Connection,
    target: u32,
    key: Option<&Key>,
) -> Result<(), StoreError> {
    let found = version(conn)?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema {
            found,
            supported: SCHEMA_VERSION,
        });
    }
    for (index, (_, sql)) in MIGRATIONS.iter().enumerate().take(target as usize) {
        let to = index as u32 + 1;
        if to <= found {
            // Already there: no write lock, so an up-to-date read-only file still opens.
            continue;
        }
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        if version(&tx)? < to {
            let name = MIGRATIONS[index].0;
            tx.execute_batch(sql).map_err(|error| {
                // SQLite's own words for what went wrong, never the script itself.
                let short = match &error {
                    rusqlite::Error::SqliteFailure(failure, Some(message)) => {
                        format!("{message} ({:?})", failure.code)
                    }
                    rusqlite::Error::SqliteFailure(failure, None) => format!("{:?}", failure.code),
                    other => other
                        .to_string()
                        .lines()
                        .next()
                        .unwrap_or_default()
                        .to_string(),
                };
                StoreError::Database(format!(
                    "upgrading the database with {name} failed: {short}"
                ))
            })?;
            if to == SIGNED_LOG_VERSION {
                reanchor(&Conn::Sqlite(&tx), key)?;
            }
            tx.pragma_update(None, "user_version", to)?;
        }
        if to == 1 {
            tx.pragma_update(None, "application_id", APPLICATION_ID)?;
        }
        tx.commit()?;
    }
    let id: i32 = conn.pragma_query_value(None, "application_id", |row| row.get(0))?;
    if id == 0 && target > 0 {
        // A database from before Omen marked its files.
        conn.pragma_update(None, "application_id", APPLICATION_ID)?;
    }
    Ok(())
}

/// Puts every campaign of a database written before logs were signed under `key`: gives campaigns
/// and characters their identities and appends to each log a signed `migrate` entry that names the
/// head it anchors and holds each character's state as it stands. This proves only that the old
/// entries were as they are now when the database was upgraded; what happened to them before that
/// rests on their unkeyed hash chain alone.
fn reanchor(conn: &Conn<'_>, key: Option<&Key>) -> Result<(), StoreError> {
    let campaigns = conn.query_map(
        "SELECT id, name FROM campaign ORDER BY id",
        params![],
        |row| Ok((row.get::<i64>(0)?, row.get::<String>(1)?)),
    )?;
    if campaigns.is_empty() {
        return Ok(());
    }
    let Some(key) = key else {
        return Err(StoreError::Key {
            path: std::path::PathBuf::new(),
            message:
                "is needed to re-anchor the campaigns of an older database, and none was given"
                    .to_string(),
        });
    };
    for (id, name) in campaigns {
        conn.execute(
            "UPDATE campaign SET uid = ?1, public_key = ?2 WHERE id = ?3",
            params![crate::key::new_uid()?, key.public(), id],
        )?;
        let characters = conn.query_map(
            "SELECT id, name, rule_set, state_version, state FROM character WHERE campaign_id = ?1 ORDER BY name",
            params![id],
            |row| {
                Ok((
                    row.get::<i64>(0)?,
                    row.get::<String>(1)?,
                    row.get::<String>(2)?,
                    row.get::<u32>(3)?,
                    row.get::<String>(4)?,
                ))
            },
        )?;
        let mut snapshot = Vec::new();
        for (character_id, character, rule_set, state_version, state) in characters {
            let uid = crate::key::new_uid()?;
            conn.execute(
                "UPDATE character SET uid = ?1 WHERE id = ?2",
                params![uid, character_id],
            )?;
            let state: serde_json::Value = serde_json::from_str(&state)?;
            snapshot.push(serde_json::json!({
                "uid": uid, "name": character, "rule_set": rule_set,
                "state_version": state_version, "state": state,
            }));
        }
        let head = crate::log::head(conn, id)?;
        let unsigned = head.as_ref().map_or(0, |h| h.sequence);
        let chain = Chain::open_undrawn(conn, &name, key)?;
        chain.append(
            conn,
            Draft::plain(
                None,
                None,
                None,
                "migrate",
                serde_json::json!({
                    "kind": "migrate",
                    "public_key": key.public(),
                    "unsigned_entries": unsigned,
                    "anchored_head": head.map(|h| serde_json::json!({ "sequence": h.sequence, "hash": h.hash })),
                    "characters": snapshot,
                }),
                format!(
                    "re-anchored {unsigned} unsigned entries under key {}",
                    crate::key::fingerprint(&key.public())
                ),
            ),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers increase down the list. A number may be skipped while a migration numbered before it
    /// lands on another branch (0005 before 0004 arrives); the list order is the version order.
    #[test]
    fn migration_files_are_numbered_in_order() {
        let mut last = 0;
        for (index, (name, sql)) in MIGRATIONS.iter().enumerate() {
            let number: usize = name[..4].parse().expect("a four-digit number");
            assert_eq!(&name[4..5], "_", "{name}");
            assert!(number > last && number > index, "{name}");
            last = number;
            assert!(name.ends_with(".sql"));
            assert!(!sql.trim().is_empty());
        }
    }

    #[test]
    fn every_version_migrates_to_the_latest() {
        for start in 0..=SCHEMA_VERSION {
            let mut conn = Connection::open_in_memory().unwrap();
            migrate(&mut conn, start, None).unwrap();
            assert_eq!(version(&conn).unwrap(), start);
            migrate(&mut conn, SCHEMA_VERSION, None).unwrap();
            assert_eq!(version(&conn).unwrap(), SCHEMA_VERSION);
            // Migrating again does nothing.
            migrate(&mut conn, SCHEMA_VERSION, None).unwrap();
        }
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        let error = migrate(&mut conn, SCHEMA_VERSION, None).unwrap_err();
        assert!(matches!(error, StoreError::NewerSchema { .. }), "{error}");
        assert!(error.to_string().contains("upgrade omen"), "{error}");
    }
}

#[cfg(test)]
mod upgrade_tests {
    use super::*;
    use crate::{Dice, LogEntry, LogFilter, Store};
    use omen_core::Limits;
    use serde_json::json;

    /// Entries as an omen before signed logs wrote them: version 1, chained by unkeyed hashes.
    fn unsigned(entries: &[LogEntry]) -> Vec<LogEntry> {
        let mut previous = crate::GENESIS_HASH.to_string();
        entries
            .iter()
            .map(|entry| {
                let mut old = LogEntry {
                    version: 1,
                    campaign_uid: None,
                    character_uid: None,
                    dice_given: false,
                    seed_proof: None,
                    public_key: None,
                    signature: None,
                    previous_hash: previous.clone(),
                    draw_commitment: None,
                    next_draw_commitment: None,
                    draw: None,
                    gm_commitment: None,
                    gm_salt: None,
                    player_view: None,
                    ..entry.clone()
                };
                old.hash = old.compute_hash();
                previous = old.hash.clone();
                old
            })
            .collect()
    }

    /// A database as omen wrote it at schema version 2: campaign Tak with Ayla (in `state`, made at
    /// `created`), a saved roll and the unsigned `entries`, under a chain head and no key.
    fn write_version_two(
        path: &std::path::Path,
        state: &serde_json::Value,
        created: &str,
        entries: &[LogEntry],
    ) {
        let mut conn = Connection::open(path).unwrap();
        migrate(&mut conn, 2, None).unwrap();
        conn.pragma_update(None, "application_id", 0).unwrap();
        conn.execute(
            "INSERT INTO campaign (id, name, created) VALUES (1, 'Tak', '2026-01-01T00:00:00.000Z')",
            [],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO character (id, campaign_id, name, rule_set, sheet, state, state_version, created, updated)
             VALUES (1, 1, 'Ayla', 'luck', '{}', ?1, 1, ?2, ?2)",
            rusqlite::params![state.to_string(), created],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO saved_roll (campaign_id, name, expression, params) VALUES (1, 'attack', 'd20 + 5', '{}')",
            [],
        )
        .unwrap();
        for entry in entries {
            conn.execute(
                "INSERT INTO roll_log (campaign_id, sequence, time, campaign, character_id, character, action,
                     inputs, seed, dice, result, state_before, state_after, summary, previous_hash, hash)
                 VALUES (1, ?1, ?2, ?3, 1, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                rusqlite::params![
                    entry.sequence as i64,
                    entry.time,
                    entry.campaign,
                    entry.character,
                    entry.action,
                    entry.inputs.to_string(),
                    entry.seed.map(|s| s.to_string()),
                    serde_json::to_string(&entry.dice).unwrap(),
                    entry.result.to_string(),
                    entry.state_before.as_ref().map(|v| v.to_string()),
                    entry.state_after.as_ref().map(|v| v.to_string()),
                    entry.summary,
                    entry.previous_hash,
                    entry.hash,
                ],
            )
            .unwrap();
        }
        let last = entries.last().unwrap();
        conn.execute(
            "INSERT INTO chain_head (campaign_id, sequence, hash) VALUES (1, ?1, ?2)",
            rusqlite::params![last.sequence as i64, last.hash],
        )
        .unwrap();
    }

    /// A database written at version 2 (chain heads, no signatures) keeps its campaigns, characters,
    /// saved rolls and log when opened by this build; its log is re-anchored under a new key by a
    /// signed migration entry that holds each character's state, verifies, replays and goes on.
    #[test]
    fn a_version_two_database_is_re_anchored_under_a_new_key() {
        // Realistic rows, made by today's store in memory, then written as the older omen did.
        let mut source = Store::open_in_memory().unwrap();
        source.create_campaign("Tak").unwrap();
        source
            .create_character("Tak", "Ayla", "luck", &json!({}))
            .unwrap();
        for _ in 1..=3 {
            source
                .act(
                    "Tak",
                    "Ayla",
                    &json!({ "action": "roll" }),
                    Dice::Derived,
                    &Limits::default(),
                )
                .unwrap();
        }
        let entries = unsigned(&source.log(&LogFilter::default()).unwrap());
        let ayla = source.character("Tak", "Ayla").unwrap();

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("omen.db");
        write_version_two(&path, &ayla.state, &ayla.created, &entries);
        assert!(!dir.path().join("omen.db.key").exists());
        let mut store = Store::open(&path).unwrap();
        assert!(
            dir.path().join("omen.db.key").exists(),
            "the upgrade makes the key"
        );
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        let application_id: i32 = store
            .sqlite()
            .unwrap()
            .pragma_query_value(None, "application_id", |row| row.get(0))
            .unwrap();
        assert_eq!(application_id, APPLICATION_ID);
        let log = store.log(&LogFilter::default()).unwrap();
        assert_eq!(&log[..entries.len()], &entries[..]);
        let anchor = &log[entries.len()];
        assert_eq!(anchor.action, "migrate");
        assert_eq!(anchor.inputs["unsigned_entries"], entries.len());
        assert_eq!(anchor.inputs["characters"][0]["state"], ayla.state);
        assert_eq!(anchor.previous_hash, entries.last().unwrap().hash);
        assert_eq!(store.character("Tak", "Ayla").unwrap().state, ayla.state);
        assert_eq!(
            store.saved_roll("Tak", "attack").unwrap().expression,
            "d20 + 5"
        );
        let report = store.verify("Tak").unwrap();
        assert!(report.is_ok(), "{:?}", report.problems);
        assert_eq!(report.unsigned_entries, entries.len() as u64);
        let next = store
            .act(
                "Tak",
                "Ayla",
                &json!({ "action": "roll" }),
                Dice::Derived,
                &Limits::default(),
            )
            .unwrap();
        assert_eq!(next.previous_hash, anchor.hash);
        let report = store.verify("Tak").unwrap();
        assert!(report.is_ok(), "{:?}", report.problems);
        let replay = store.replay("Tak", &Limits::default()).unwrap();
        assert!(replay.is_ok(), "{:?}", replay.problems);
    }
}

//! Schema migrations: plain SQL files in `migrations/`, applied in order on open, each in its own
//! transaction, the version kept in `PRAGMA user_version`.

use rusqlite::{Connection, TransactionBehavior};

use crate::error::StoreError;

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
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

pub(crate) fn version(conn: &Connection) -> Result<u32, StoreError> {
    Ok(conn.pragma_query_value(None, "user_version", |row| row.get::<_, u32>(0))?)
}

/// Brings the schema up to `target`, one migration per transaction. Another process may be migrating
/// the same file at the same time: each step re-reads the version inside its write lock.
///
/// # Errors
/// [`StoreError::NewerSchema`] for a database from a newer build; SQLite's errors otherwise.
pub(crate) fn migrate(conn: &mut Connection, target: u32) -> Result<(), StoreError> {
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
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", to)?;
        }
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migration_files_are_numbered_in_order() {
        for (index, (name, sql)) in MIGRATIONS.iter().enumerate() {
            assert!(name.starts_with(&format!("{:04}_", index + 1)), "{name}");
            assert!(name.ends_with(".sql"));
            assert!(!sql.trim().is_empty());
        }
    }

    #[test]
    fn every_version_migrates_to_the_latest() {
        for start in 0..=SCHEMA_VERSION {
            let mut conn = Connection::open_in_memory().unwrap();
            migrate(&mut conn, start).unwrap();
            assert_eq!(version(&conn).unwrap(), start);
            migrate(&mut conn, SCHEMA_VERSION).unwrap();
            assert_eq!(version(&conn).unwrap(), SCHEMA_VERSION);
            // Migrating again does nothing.
            migrate(&mut conn, SCHEMA_VERSION).unwrap();
        }
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        let error = migrate(&mut conn, SCHEMA_VERSION).unwrap_err();
        assert!(matches!(error, StoreError::NewerSchema { .. }), "{error}");
        assert!(error.to_string().contains("upgrade omen"), "{error}");
    }
}

#[cfg(test)]
mod upgrade_tests {
    use super::*;
    use crate::{Dice, LogFilter, Store};
    use omen_core::Limits;
    use serde_json::json;

    /// A database written at version 1 (no chain heads) keeps its campaigns, characters, saved rolls and
    /// log when opened by this build, and its log verifies and goes on.
    #[test]
    fn a_version_one_database_keeps_its_data() {
        // Realistic rows, made by today's store in memory.
        let mut source = Store::open_in_memory().unwrap();
        source.create_campaign("Tak").unwrap();
        source
            .create_character("Tak", "Ayla", "luck", &json!({}))
            .unwrap();
        for seed in 1..=3 {
            source
                .act(
                    "Tak",
                    "Ayla",
                    &json!({ "action": "roll" }),
                    Dice::Seed(seed),
                    &Limits::default(),
                )
                .unwrap();
        }
        let entries = source.log(&LogFilter::default()).unwrap();
        let ayla = source.character("Tak", "Ayla").unwrap();

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("omen.db");
        {
            let mut conn = Connection::open(&path).unwrap();
            migrate(&mut conn, 1).unwrap();
            assert_eq!(version(&conn).unwrap(), 1);
            conn.execute(
                "INSERT INTO campaign (id, name, created) VALUES (1, 'Tak', '2026-01-01T00:00:00.000Z')",
                [],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO character (id, campaign_id, name, rule_set, sheet, state, state_version, created, updated)
                 VALUES (1, 1, 'Ayla', 'luck', '{}', ?1, 1, ?2, ?2)",
                rusqlite::params![ayla.state.to_string(), ayla.created],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO saved_roll (campaign_id, name, expression, params) VALUES (1, 'attack', 'd20 + 5', '{}')",
                [],
            )
            .unwrap();
            for entry in &entries {
                let raw = crate::log::RawEntryRow::from(entry);
                conn.execute(
                    "INSERT INTO roll_log (campaign_id, sequence, time, campaign, character_id, character, action,
                         inputs, seed, dice, result, state_before, state_after, summary, previous_hash, hash)
                     VALUES (1, ?1, ?2, ?3, 1, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                    rusqlite::params_from_iter(raw.0),
                )
                .unwrap();
            }
        }
        let mut store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        assert_eq!(store.log(&LogFilter::default()).unwrap(), entries);
        assert_eq!(store.character("Tak", "Ayla").unwrap().state, ayla.state);
        assert_eq!(
            store.saved_roll("Tak", "attack").unwrap().expression,
            "d20 + 5"
        );
        let report = store.verify("Tak").unwrap();
        assert!(report.is_ok(), "{:?}", report.problems);
        assert_eq!(report.head.unwrap().sequence, entries.len() as u64);
        let next = store
            .act(
                "Tak",
                "Ayla",
                &json!({ "action": "roll" }),
                Dice::Seed(4),
                &Limits::default(),
            )
            .unwrap();
        assert_eq!(next.previous_hash, entries.last().unwrap().hash);
        assert!(store.verify("Tak").unwrap().is_ok());
        assert!(store.replay("Tak", &Limits::default()).unwrap().is_ok());
    }
}

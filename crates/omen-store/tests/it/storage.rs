use std::path::PathBuf;

use omen_core::Limits;
use omen_store::{Dice, LogFilter, SCHEMA_VERSION, Store, StoreError};

use crate::{CAMPAIGN, HERO, file_store, luck_roll, raw, roll_times};

#[test]
fn open_creates_the_directory_and_the_latest_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested").join("deeper").join("omen.db");
    let store = Store::open(&path).unwrap();
    assert!(path.exists());
    assert_eq!(store.path(), path);
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    drop(store);
    // Opening again keeps the data and migrates nothing.
    let mut store = Store::open(&path).unwrap();
    store.create_campaign(CAMPAIGN).unwrap();
    drop(store);
    assert_eq!(Store::open(&path).unwrap().campaigns().unwrap().len(), 1);
}

#[test]
fn the_file_uses_write_ahead_logging() {
    let (_dir, path, _store) = file_store();
    let mode: String = raw(&path)
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn a_database_from_a_newer_omen_is_refused() {
    let (_dir, path, store) = file_store();
    drop(store);
    raw(&path)
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    let error = Store::open(&path).unwrap_err();
    assert!(matches!(error, StoreError::NewerSchema { .. }), "{error}");
    assert_eq!(
        error.to_string(),
        format!(
            "the database has schema version {}, newer than this build of omen knows ({SCHEMA_VERSION}); upgrade omen",
            SCHEMA_VERSION + 1
        )
    );
    assert!(matches!(
        Store::open_read_only(&path),
        Err(StoreError::NewerSchema { .. })
    ));
}

#[test]
fn a_file_that_is_not_a_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "these are my notes, not a database; ".repeat(100)).unwrap();
    let error = Store::open(&path).unwrap_err();
    assert!(matches!(error, StoreError::Foreign { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .contains("is not an Omen database (it is not a SQLite database)"),
        "{error}"
    );
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .starts_with("these are my notes")
    );
}

#[test]
fn a_read_only_store_refuses_every_change() {
    let (_dir, path, mut store) = file_store();
    roll_times(&mut store, 2);
    let before = store.export_campaign(CAMPAIGN).unwrap();
    drop(store);
    let mut store = Store::open_read_only(&path).unwrap();
    assert_eq!(store.export_campaign(CAMPAIGN).unwrap(), before);
    let error = store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Derived,
            &Limits::default(),
        )
        .unwrap_err();
    assert!(matches!(error, StoreError::ReadOnly), "{error:?}");
    assert_eq!(
        error.to_string(),
        "the database is read-only, so nothing was changed; check the file's permissions or choose another with --db"
    );
    assert!(matches!(
        store.create_campaign("Other"),
        Err(StoreError::ReadOnly)
    ));
    assert!(matches!(
        store.delete_campaign(CAMPAIGN),
        Err(StoreError::ReadOnly)
    ));
    drop(store);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.export_campaign(CAMPAIGN).unwrap(), before);
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
}

#[cfg(unix)]
#[test]
fn a_read_only_file_refuses_every_change() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, path, mut store) = file_store();
    roll_times(&mut store, 2);
    let before = store.export_campaign(CAMPAIGN).unwrap();
    drop(store);
    let read_only = |path: &std::path::Path, mode| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    read_only(&path, 0o444);
    read_only(dir.path(), 0o555);
    // A superuser writes anyway; then there is nothing to test.
    let writable = std::fs::OpenOptions::new().append(true).open(&path).is_ok();
    if !writable {
        let outcome = Store::open(&path).and_then(|mut store| {
            store.act(
                CAMPAIGN,
                HERO,
                &luck_roll(0),
                Dice::Derived,
                &Limits::default(),
            )
        });
        let error = outcome.unwrap_err();
        assert!(
            matches!(error, StoreError::ReadOnly | StoreError::CannotOpen { .. }),
            "{error:?}"
        );
    }
    read_only(dir.path(), 0o755);
    read_only(&path, 0o644);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.export_campaign(CAMPAIGN).unwrap(), before);
}

#[test]
fn the_db_flag_comes_first() {
    let flag = PathBuf::from("/somewhere/else.db");
    assert_eq!(omen_store::resolve_path(Some(flag.clone())).unwrap(), flag);
    let default = omen_store::default_path().unwrap();
    assert!(default.ends_with("omen/omen.db"), "{}", default.display());
}

#[test]
fn the_log_survives_reopening() {
    let (_dir, path, mut store) = file_store();
    roll_times(&mut store, 3);
    let entries = store.log(&LogFilter::default()).unwrap();
    drop(store);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.log(&LogFilter::default()).unwrap(), entries);
}

#[test]
fn a_writer_waits_for_another_and_then_gives_up_busy() {
    let (_dir, path, mut store) = file_store();
    let before = store.character(CAMPAIGN, HERO).unwrap();
    let other = raw(&path);
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    store
        .set_busy_timeout(std::time::Duration::from_millis(200))
        .unwrap();
    let start = std::time::Instant::now();
    let error = store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Derived,
            &Limits::default(),
        )
        .unwrap_err();
    assert!(start.elapsed() >= std::time::Duration::from_millis(150));
    assert!(matches!(error, StoreError::Busy), "{error:?}");
    assert!(error.to_string().contains("try again"), "{error}");
    // Reading goes on while another process writes.
    assert_eq!(store.character(CAMPAIGN, HERO).unwrap(), before);
    other.execute_batch("ROLLBACK").unwrap();
    store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Derived,
            &Limits::default(),
        )
        .unwrap();
    assert_eq!(store.log(&LogFilter::default()).unwrap().len(), 2);
}

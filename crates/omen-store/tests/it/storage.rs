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

/// Another program's SQLite file given as the database: refused before anything is written (no
/// journal mode switch, no migration), by commands that write and by those that read, and left byte
/// for byte as it was.
#[test]
fn a_foreign_sqlite_file_is_refused_and_left_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    for (name, setup) in [
        (
            "plain.sqlite",
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('mine');",
        ),
        (
            "marked.sqlite",
            "PRAGMA application_id = 1234; CREATE TABLE campaign (id INTEGER);",
        ),
        (
            "lookalike.sqlite",
            "CREATE TABLE campaign (id INTEGER); CREATE TABLE photos (id INTEGER);",
        ),
    ] {
        let path = dir.path().join(name);
        {
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.execute_batch(setup).unwrap();
        }
        let before = std::fs::read(&path).unwrap();
        for error in [
            Store::open(&path).unwrap_err(),
            Store::open_read_only(&path).unwrap_err(),
        ] {
            assert!(
                matches!(error, StoreError::Foreign { .. }),
                "{name}: {error:?}"
            );
            let message = error.to_string();
            assert!(message.contains("is not an Omen database"), "{message}");
            assert!(message.contains("nothing in it was changed"), "{message}");
            assert!(!message.contains("CREATE"), "{message}");
        }
        assert_eq!(std::fs::read(&path).unwrap(), before, "{name} was changed");
        assert!(!dir.path().join(format!("{name}-wal")).exists());
        assert!(!dir.path().join(format!("{name}.key")).exists());
    }
}

/// Omen marks its own files, so a later open tells them from anyone else's.
#[test]
fn an_omen_database_is_marked_with_its_application_id() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("omen.db");
    Store::open(&path).unwrap().create_campaign("Tak").unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let id: i32 = conn
        .pragma_query_value(None, "application_id", |row| row.get(0))
        .unwrap();
    assert_eq!(id, omen_store::APPLICATION_ID);
}

/// Reading creates nothing: no directory, no database, no key.
#[test]
fn a_missing_database_is_named_and_not_created_by_a_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typo").join("omen.db");
    let error = Store::open_read_only(&path).unwrap_err();
    assert!(matches!(error, StoreError::NoDatabase { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .starts_with(&format!("no Omen database at {}", path.display())),
        "{error}"
    );
    assert!(!dir.path().join("typo").exists());
}

/// A database (in write-ahead-log mode) in a directory nobody may write to is read as it stands.
#[cfg(unix)]
#[test]
fn a_database_in_a_read_only_directory_can_be_read() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("shelf");
    std::fs::create_dir(&inner).unwrap();
    let path = inner.join("omen.db");
    {
        let mut store = Store::open(&path).unwrap();
        crate::prepare(&mut store);
        crate::roll_times(&mut store, 3);
    }
    let names = |dir: &std::path::Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let before = names(&inner);
    std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o555)).unwrap();
    let read = (|| {
        let store = Store::open_read_only(&path)?;
        let report = store.verify(crate::CAMPAIGN)?;
        let entries = store.log(&LogFilter::default())?.len();
        Ok::<_, StoreError>((report, entries))
    })();
    std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (report, entries) = read.unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(entries, 4);
    // Nothing but SQLite's own shared-memory and log files (which a reader may make where it can
    // write, as root can even here) is added.
    let after: Vec<String> = names(&inner)
        .into_iter()
        .filter(|name| !name.ends_with("-shm") && !name.ends_with("-wal"))
        .collect();
    assert_eq!(after, before);
}

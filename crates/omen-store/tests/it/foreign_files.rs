//! Files that are not Omen's: another program's SQLite database that merely shares a table name (or
//! every table name) with Omen is refused by every way of opening a database, and left byte for byte
//! as it was, its modification time included.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use omen_store::{Store, StoreError};

/// A file as it was: its bytes and its modification time.
#[derive(Debug, PartialEq, Eq)]
struct Snapshot {
    bytes: Vec<u8>,
    modified: SystemTime,
}

fn snapshot(path: &Path) -> Snapshot {
    Snapshot {
        bytes: std::fs::read(path).unwrap(),
        modified: std::fs::metadata(path).unwrap().modified().unwrap(),
    }
}

/// Sets the file's modification time a day back, so that any write, even within the same clock
/// tick as the test, moves it.
fn age(path: &Path) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(86_400))
        .unwrap();
}

/// A SQLite file made by `setup`, in rollback-journal mode as most programs leave theirs.
fn sqlite_file(dir: &Path, name: &str, setup: &str) -> PathBuf {
    let path = dir.join(name);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(setup).unwrap();
    drop(conn);
    age(&path);
    path
}

/// Omen's own file at today's schema, then changed by `change` (run with the application id
/// cleared, as a database from before Omen marked its files has none).
fn omen_file_changed(dir: &Path, name: &str, change: &str) -> PathBuf {
    let path = dir.join(name);
    Store::open_with_key(&path, &dir.join(format!("{name}.key")))
        .unwrap()
        .create_campaign("Tak")
        .unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(&format!(
        "PRAGMA journal_mode = DELETE; PRAGMA application_id = 0; {change}"
    ))
    .unwrap();
    drop(conn);
    std::fs::remove_file(dir.join(format!("{name}.key"))).unwrap();
    age(&path);
    path
}

/// Every way the library opens a database file.
fn open_every_way(path: &Path, key: &Path) -> Vec<(&'static str, StoreError)> {
    let mut refusals = Vec::new();
    let mut attempt = |how: &'static str, opened: Result<Store, StoreError>| match opened {
        Ok(_) => panic!("{how} opened {}", path.display()),
        Err(error) => refusals.push((how, error)),
    };
    attempt("open", Store::open(path));
    attempt("open_with_key", Store::open_with_key(path, key));
    attempt("open_read_only", Store::open_read_only(path));
    attempt(
        "open_read_only_with_key",
        Store::open_read_only_with_key(path, key),
    );
    refusals
}

fn assert_refused_and_unchanged(dir: &Path, path: &Path, expect: &str) {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let key = dir.join(format!("{name}.other.key"));
    let before = snapshot(path);
    for (how, error) in open_every_way(path, &key) {
        assert!(
            matches!(error, StoreError::Foreign { .. }),
            "{name}, {how}: {error:?}"
        );
        let message = error.to_string();
        assert!(message.contains("is not an Omen database"), "{message}");
        assert!(message.contains(expect), "{name}: {message}");
        assert!(message.contains("nothing in it was changed"), "{message}");
        assert!(
            message.contains("choose another file with --db"),
            "{message}"
        );
    }
    assert_eq!(snapshot(path), before, "{name} was changed");
    for suffix in ["-wal", "-shm", "-journal", ".key"] {
        assert!(
            !dir.join(format!("{name}{suffix}")).exists(),
            "{name}{suffix} was made"
        );
    }
    assert!(!key.exists(), "a key was made for {name}");
}

#[test]
fn a_foreign_database_with_a_campaign_table_is_left_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "only_campaign.sqlite",
            "CREATE TABLE campaign (id INTEGER PRIMARY KEY, title TEXT); \
             INSERT INTO campaign (title) VALUES ('Curse of Strahd');",
            "with tables campaign",
        ),
        (
            "campaign_and_more.sqlite",
            "CREATE TABLE campaign (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, created TEXT NOT NULL); \
             CREATE TABLE mailing_list (address TEXT);",
            "with tables campaign, mailing_list",
        ),
        (
            // Omen's table names, another program's columns, and a schema version Omen has.
            "lookalike_names.sqlite",
            "CREATE TABLE campaign (id INTEGER PRIMARY KEY, budget REAL); \
             CREATE TABLE character (id INTEGER PRIMARY KEY); \
             CREATE TABLE saved_roll (id INTEGER PRIMARY KEY); \
             CREATE TABLE roll_log (id INTEGER PRIMARY KEY); \
             PRAGMA user_version = 1;",
            "has columns id, budget, not Omen's",
        ),
        (
            // Version 1's tables exactly as Omen wrote them, but the schema version of another program.
            "no_version.sqlite",
            "CREATE TABLE campaign (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE CHECK (length(name) > 0), created TEXT NOT NULL);",
            "with tables campaign",
        ),
        (
            "empty_with_a_version.sqlite",
            "PRAGMA user_version = 3;",
            "no tables and schema version 3",
        ),
    ];
    for (name, setup, expect) in cases {
        let path = sqlite_file(dir.path(), name, setup);
        assert_refused_and_unchanged(dir.path(), &path, expect);
    }
}

/// An unmarked file holding Omen's schema and something more, or Omen's tables with a column
/// changed, is not Omen's either: it is refused, not migrated.
#[test]
fn an_omen_schema_with_anything_added_is_not_taken_for_omen() {
    let dir = tempfile::tempdir().unwrap();
    for (name, change, expect) in [
        (
            "extra_table.db",
            "CREATE TABLE photos (id INTEGER PRIMARY KEY, data BLOB);",
            "it holds photos, which Omen does not make",
        ),
        (
            "extra_column.db",
            "ALTER TABLE campaign ADD COLUMN budget REAL;",
            "its table `campaign` has columns",
        ),
        (
            "extra_trigger.db",
            "CREATE TRIGGER stamp AFTER INSERT ON campaign BEGIN SELECT 1; END;",
            "it holds trigger stamp, which Omen does not make",
        ),
    ] {
        let path = omen_file_changed(dir.path(), name, change);
        assert_refused_and_unchanged(dir.path(), &path, expect);
    }
}

/// The strict check still lets in what it must: a new empty file, and Omen's own schema from before
/// Omen marked its files, which is then marked.
#[test]
fn an_unmarked_omen_database_and_an_empty_file_still_open() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    Store::open(&empty).unwrap().create_campaign("Tak").unwrap();

    let path = omen_file_changed(dir.path(), "unmarked.db", "");
    let store = Store::open_read_only(&path).unwrap();
    assert_eq!(store.campaigns().unwrap().len(), 1);
    drop(store);
    Store::open(&path).unwrap();
    let id: i32 = rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_query_value(None, "application_id", |row| row.get(0))
        .unwrap();
    assert_eq!(id, omen_store::APPLICATION_ID);
}

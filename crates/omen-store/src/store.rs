//! The store: one SQLite file holding campaigns, characters, saved rolls and the roll log.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use omen_core::Limits;
use omen_rules::stateful::{self, Game};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::db::{Conn, Row, params};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::dice::Dice;
use crate::error::{Existing, Missing, StoreError};
use crate::key::Key;
use crate::log::{self, Chain, Draft, LogEntry, VerifyReport};
use crate::request::{ActionRequest, RollRequest, Rollable};
use crate::roll;
use crate::schema::{self, SCHEMA_VERSION};
use omen_lang::syntax::Dialect;

/// How long a writer waits for another process's write to finish before giving up with
/// [`StoreError::Busy`].
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The database file in the platform's data directory, e.g. `~/.local/share/omen/omen.db` on Linux.
///
/// # Errors
/// [`StoreError::NoDataDirectory`] when the platform gives this user none.
pub fn default_path() -> Result<PathBuf, StoreError> {
    directories::ProjectDirs::from("", "", "omen")
        .map(|dirs| dirs.data_dir().join("omen.db"))
        .ok_or(StoreError::NoDataDirectory)
}

/// The database to use: `flag` (`--db`) first, then the `OMEN_DB` environment variable (when set and
/// not empty), then [`default_path`].
///
/// # Errors
/// As [`default_path`], when it is needed.
pub fn resolve_path(flag: Option<PathBuf>) -> Result<PathBuf, StoreError> {
    resolve_path_with(flag, std::env::var_os("OMEN_DB").map(PathBuf::from))
}

pub(crate) fn resolve_path_with(
    flag: Option<PathBuf>,
    env: Option<PathBuf>,
) -> Result<PathBuf, StoreError> {
    match (flag, env) {
        (Some(path), _) => Ok(path),
        (None, Some(path)) if !path.as_os_str().is_empty() => Ok(path),
        _ => default_path(),
    }
}

/// The engine a database is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// One file, nothing to install: the default.
    Sqlite,
    /// A PostgreSQL server, for a hosted Omen that outgrows one machine.
    Postgres,
}

/// Where a database is: what `--db` and `OMEN_DB` name. A path or a `sqlite://PATH` URL is a SQLite
/// file; a `postgres://` or `postgresql://` URL is a PostgreSQL database.
#[derive(Clone, PartialEq, Eq)]
pub enum Database {
    Sqlite(PathBuf),
    Postgres(String),
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Database({self})")
    }
}

/// Shown without the password.
impl std::fmt::Display for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Sqlite(path) => write!(f, "{}", path.display()),
            Database::Postgres(url) => f.write_str(&crate::pg::redact(url)),
        }
    }
}

impl Database {
    /// Reads `--db`'s value: `postgres://…` and `postgresql://…` are PostgreSQL, `sqlite://PATH` and
    /// anything else a SQLite file.
    pub fn parse(text: &std::ffi::OsStr) -> Database {
        if let Some(text) = text.to_str() {
            let lower = text.get(..13).unwrap_or(text).to_ascii_lowercase();
            if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
                return Database::Postgres(text.to_string());
            }
            if lower.starts_with("sqlite://") {
                return Database::Sqlite(PathBuf::from(&text["sqlite://".len()..]));
            }
        }
        Database::Sqlite(PathBuf::from(text))
    }

    pub fn engine(&self) -> Engine {
        match self {
            Database::Sqlite(_) => Engine::Sqlite,
            Database::Postgres(_) => Engine::Postgres,
        }
    }

    /// The signing key's file: `flag` (`--key`), then `OMEN_KEY`, then beside a SQLite file (its
    /// path and `.key`), or `postgres.key` in the platform's data directory for PostgreSQL (every
    /// process that writes to one database needs the same key: give it with `--key` or `OMEN_KEY`).
    ///
    /// # Errors
    /// [`StoreError::NoDataDirectory`] when PostgreSQL's default is needed and there is none.
    pub fn key_path(&self, flag: Option<PathBuf>) -> Result<PathBuf, StoreError> {
        match self {
            Database::Sqlite(path) => Ok(crate::key::resolve_key_path(flag, path)),
            Database::Postgres(_) => {
                let env = std::env::var_os("OMEN_KEY").map(PathBuf::from);
                match (flag, env) {
                    (Some(path), _) => Ok(path),
                    (None, Some(path)) if !path.as_os_str().is_empty() => Ok(path),
                    _ => Ok(default_path()?.with_file_name("postgres.key")),
                }
            }
        }
    }

    /// Opens the database (creating a SQLite file when missing; a PostgreSQL database must exist,
    /// its tables are made), with the signing key at `key_path`.
    ///
    /// # Errors
    /// As [`Store::open_with_key`] and [`Store::open_postgres`].
    pub fn open(&self, key_path: &Path) -> Result<Store, StoreError> {
        match self {
            Database::Sqlite(path) => Store::open_with_key(path, key_path),
            Database::Postgres(url) => Store::open_postgres(url, key_path),
        }
    }

    /// Opens the database for reading: a SQLite file as [`Store::open_read_only_with_key`]; a
    /// PostgreSQL database as [`Database::open`] (its reads run in read-only transactions).
    ///
    /// # Errors
    /// As [`Database::open`].
    pub fn open_read_only(&self, key_path: &Path) -> Result<Store, StoreError> {
        match self {
            Database::Sqlite(path) => Store::open_read_only_with_key(path, key_path),
            Database::Postgres(url) => Store::open_postgres(url, key_path),
        }
    }
}

/// The database to use: `flag` (`--db`) first, then `OMEN_DB` (when set and not empty), then
/// [`default_path`].
///
/// # Errors
/// As [`default_path`], when it is needed.
pub fn resolve_database(flag: Option<PathBuf>) -> Result<Database, StoreError> {
    Ok(Database::parse(resolve_path(flag)?.as_os_str()))
}

/// A campaign, with how much it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Campaign {
    pub name: String,
    pub created: String,
    pub characters: u64,
    pub log_entries: u64,
    /// The dice notation its rolls are typed in (`omen roll` in it reads this dialect unless told
    /// another); logs and saved rolls hold Omen's notation whatever it is.
    #[serde(default = "omen_dialect")]
    pub dialect: String,
}

fn omen_dialect() -> String {
    "omen".to_string()
}

/// A character: bound to one rule set, with the sheet it was made from and its current state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Character {
    pub campaign: String,
    pub name: String,
    pub rule_set: String,
    pub sheet: Value,
    /// The state, as the rule set defines it.
    pub state: Value,
    pub state_version: u32,
    pub created: String,
    pub updated: String,
}

/// A named expression or script kept with a campaign, with default values for its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedRoll {
    pub name: String,
    /// The text, in the omen dice language.
    pub expression: String,
    /// Default values for its `param` declarations.
    #[serde(default)]
    pub params: BTreeMap<String, Value>,
    #[serde(default)]
    pub description: Option<String>,
}

impl SavedRoll {
    /// Its default parameters with `overrides` put over them: what a roll of it uses.
    pub fn params_with(&self, overrides: &BTreeMap<String, Value>) -> BTreeMap<String, Value> {
        let mut merged = self.params.clone();
        merged.extend(overrides.iter().map(|(k, v)| (k.clone(), v.clone())));
        merged
    }
}

/// Which log entries to list. Every field narrows the list; the default lists everything.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogFilter {
    pub campaign: Option<String>,
    /// A character by its current name, or by the name it had in an entry.
    pub character: Option<String>,
    pub action: Option<String>,
    /// Entries at or after this time (RFC 3339, or a date for midnight UTC).
    pub since: Option<String>,
    /// Entries before this time.
    pub until: Option<String>,
    /// Only the last this many entries (after the other filters).
    pub last: Option<usize>,
}

/// A hook run inside a write transaction just before it commits.
type Hook = Box<dyn FnMut() + Send>;

/// Campaigns in one SQLite database file or one PostgreSQL database. Every change is one
/// transaction: it happens entirely or not at all, and a writer in another process waits for it (up
/// to [`BUSY_TIMEOUT`]).
pub struct Store {
    pub(crate) backend: Backend,
    /// Shared by the SQLite handles of one process ([`Store::try_clone`]): their writers queue here,
    /// woken in turn, instead of in SQLite's busy handler, which sleeps and polls. Other processes
    /// still wait in the busy handler.
    write_gate: Arc<Mutex<()>>,
    path: PathBuf,
    before_commit: Option<Hook>,
    /// The signing key, once read (or made).
    key: Option<Key>,
    /// Where the key file is (none in memory).
    key_path: Option<PathBuf>,
    /// How [`Store::listen`] connects to PostgreSQL: a connection of its own, outside the pool.
    pub(crate) listen_config: Option<crate::pg::Connector>,
}

/// A `file:` URI that opens `path` as immutable: read without locks or a shared-memory file.
fn immutable_uri(path: &Path) -> String {
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut uri = String::from("file:");
    for byte in absolute.to_string_lossy().bytes() {
        match byte {
            b'?' | b'#' | b'%' | 0x80.. => uri.push_str(&format!("%{byte:02X}")),
            _ => uri.push(byte as char),
        }
    }
    uri.push_str("?immutable=1");
    uri
}

/// The engine a store runs on.
pub(crate) enum Backend {
    /// One connection: SQLite lets one writer in at a time anyway.
    Sqlite(Connection),
    /// A pool: each transaction takes a connection of its own, so a store can be shared by threads
    /// (see [`Store::try_clone`]) and many run at once.
    Postgres(crate::pg::Pool),
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

pub(crate) struct CharacterRow {
    pub id: i64,
    pub campaign_id: i64,
    pub name: String,
    pub rule_set: String,
    pub sheet: String,
    pub state: String,
    pub state_version: u32,
    pub created: String,
    pub updated: String,
    pub uid: Option<String>,
}

const CHARACTER_COLUMNS: &str =
    "id, campaign_id, name, rule_set, sheet, state, state_version, created, updated, uid";

fn character_row(row: &Row) -> Result<CharacterRow, StoreError> {
    Ok(CharacterRow {
        id: row.get(0)?,
        campaign_id: row.get(1)?,
        name: row.get(2)?,
        rule_set: row.get(3)?,
        sheet: row.get(4)?,
        state: row.get(5)?,
        state_version: row.get(6)?,
        created: row.get(7)?,
        updated: row.get(8)?,
        uid: row.get(9)?,
    })
}

pub(crate) fn game(rule_set: &str) -> Result<&'static dyn Game, StoreError> {
    stateful::game(rule_set).ok_or_else(|| {
        StoreError::NotFound(Missing::RuleSet {
            name: rule_set.to_string(),
        })
    })
}

/// Names are shown in lists and typed on command lines: no surrounding spaces, no control characters.
pub(crate) fn check_name(what: &str, name: &str) -> Result<(), StoreError> {
    if name.trim().is_empty() {
        return Err(StoreError::Invalid(format!(
            "a {what} needs a name; give one"
        )));
    }
    if name.trim() != name || name.chars().any(char::is_control) || name.chars().count() > 200 {
        return Err(StoreError::Invalid(format!(
            "`{name}` is not a usable {what} name; use at most 200 characters, no control characters and no surrounding spaces"
        )));
    }
    Ok(())
}

pub(crate) fn campaign_id(conn: &Conn<'_>, name: &str) -> Result<i64, StoreError> {
    conn.query_opt(
        "SELECT id FROM campaign WHERE name = ?1",
        params![name],
        |row| row.get(0),
    )?
    .ok_or_else(|| StoreError::campaign(name))
}

/// A character by its campaign's name and its own: one query (one round trip on PostgreSQL); the
/// campaign is looked up on its own only to say which of the two is missing.
fn find_character(conn: &Conn<'_>, campaign: &str, name: &str) -> Result<CharacterRow, StoreError> {
    let found = conn.query_opt(
        &format!(
            "SELECT {CHARACTER_COLUMNS} FROM character
             WHERE campaign_id = (SELECT id FROM campaign WHERE name = ?1) AND name = ?2"
        ),
        params![campaign, name],
        character_row,
    )?;
    match found {
        Some(row) => Ok(row),
        None => {
            campaign_id(conn, campaign)?;
            Err(StoreError::character(campaign, name))
        }
    }
}

/// A character of the campaign whose chain is open (its id already known: one query fewer under
/// the campaign's lock).
pub(crate) fn character_in(
    conn: &Conn<'_>,
    chain: &Chain<'_>,
    name: &str,
) -> Result<CharacterRow, StoreError> {
    conn.query_opt(
        &format!("SELECT {CHARACTER_COLUMNS} FROM character WHERE campaign_id = ?1 AND name = ?2"),
        params![chain.campaign_id, name],
        character_row,
    )?
    .ok_or_else(|| StoreError::character(&chain.campaign, name))
}

fn character_exists(conn: &Conn<'_>, campaign_id: i64, name: &str) -> Result<bool, StoreError> {
    Ok(conn
        .query_opt(
            "SELECT 1 FROM character WHERE campaign_id = ?1 AND name = ?2",
            params![campaign_id, name],
            |_| Ok(()),
        )?
        .is_some())
}

pub(crate) fn parse(column: &str, text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|error| {
        StoreError::Corrupt(format!("a stored {column} is not valid JSON ({error})"))
    })
}

impl CharacterRow {
    fn into_character(
        self,
        campaign: &str,
        state: Value,
        state_version: u32,
    ) -> Result<Character, StoreError> {
        Ok(Character {
            campaign: campaign.to_string(),
            sheet: parse("sheet", &self.sheet)?,
            name: self.name,
            rule_set: self.rule_set,
            state,
            state_version,
            created: self.created,
            updated: self.updated,
        })
    }
}

impl Store {
    /// Opens (creating it and its directory when missing) the database at `path`, with its signing key
    /// at `path` + `.key` (see [`Store::open_with_key`]).
    ///
    /// # Errors
    /// As [`Store::open_with_key`].
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_with_key(path, &crate::key::resolve_key_path_with(None, None, path))
    }

    /// Opens (creating it and its directory when missing) the database at `path`, brings its schema up
    /// to date, and turns on write-ahead logging, foreign keys and the busy timeout. The signing key
    /// is read from `key_path` when a change needs it; it is created there (readable by its owner only)
    /// only while no campaign of the database has a key yet. A file that holds another program's data
    /// is refused before anything is written to it.
    ///
    /// # Errors
    /// [`StoreError::Foreign`] for another program's file (left byte for byte as it was),
    /// [`StoreError::CannotOpen`] when the file or its directory cannot be created or opened,
    /// [`StoreError::NewerSchema`] for a database from a newer omen, [`StoreError::ReadOnly`] when a
    /// migration is needed but the file cannot be written, [`StoreError::Key`] when an older
    /// database's campaigns need re-anchoring and the key cannot be read or made.
    pub fn open_with_key(path: &Path, key_path: &Path) -> Result<Store, StoreError> {
        let cannot_open = |message: String| StoreError::CannotOpen {
            path: path.to_path_buf(),
            message,
        };
        if let Some(parent) = path.parent()
            && !parent.as_os_str().is_empty()
        {
            std::fs::create_dir_all(parent)
                .map_err(|error| cannot_open(format!("cannot create its directory: {error}")))?;
        }
        let conn = Connection::open(path).map_err(|error| cannot_open(error.to_string()))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // Before anything writes (the journal mode included): another program's file stays untouched.
        schema::check_ownership(&conn).map_err(|what| StoreError::Foreign {
            path: path.to_path_buf(),
            what,
        })?;
        conn.pragma_update(None, "foreign_keys", true)?;
        let found = schema::version(&conn)?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                found,
                supported: SCHEMA_VERSION,
            });
        }
        let mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "wal", |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") && !mode.eq_ignore_ascii_case("memory") {
            return Err(cannot_open(format!(
                "it cannot use write-ahead logging (journal mode {mode})"
            )));
        }
        let mut store = Store {
            backend: Backend::Sqlite(conn),
            write_gate: Arc::default(),
            path: path.to_path_buf(),
            before_commit: None,
            key: None,
            key_path: Some(key_path.to_path_buf()),
            listen_config: None,
        };
        if found < SCHEMA_VERSION {
            let key = if found >= 1 && store.has_campaigns()? {
                Some(store.signing_key()?)
            } else {
                None
            };
            schema::migrate(store.sqlite_mut()?, SCHEMA_VERSION, key.as_ref())?;
        } else {
            schema::migrate(store.sqlite_mut()?, SCHEMA_VERSION, None)?;
        }
        Ok(store)
    }

    /// Opens an existing database for reading only: nothing is created (no directory, no file, no
    /// key), and every change is refused with [`StoreError::ReadOnly`]. A database in a directory this
    /// user cannot write is read as it stands. A database from an older omen is upgraded first when
    /// its file can be written.
    ///
    /// # Errors
    /// [`StoreError::NoDatabase`] when there is no file at `path`, [`StoreError::Foreign`] for another
    /// program's file, [`StoreError::NewerSchema`]; [`StoreError::CannotOpen`] for an older database
    /// that cannot be upgraded.
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        Store::open_read_only_with_key(path, &crate::key::resolve_key_path_with(None, None, path))
    }

    /// As [`Store::open_read_only`], with the key file to compare the campaigns' keys with (and to
    /// upgrade an older database with).
    ///
    /// # Errors
    /// As [`Store::open_read_only`].
    pub fn open_read_only_with_key(path: &Path, key_path: &Path) -> Result<Store, StoreError> {
        if !path.is_file() {
            return Err(StoreError::NoDatabase {
                path: path.to_path_buf(),
            });
        }
        let cannot_open = |message: String| StoreError::CannotOpen {
            path: path.to_path_buf(),
            message,
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn =
            Connection::open_with_flags(path, flags).map_err(|e| cannot_open(e.to_string()))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let ownership = match schema::check_ownership(&conn) {
            Err(what) if what.contains("unable to open") || what.contains("readonly") => {
                // A write-ahead-logged file whose directory this user cannot write: SQLite cannot
                // make its shared-memory file, so read the file as it stands, nothing else writing.
                conn = Connection::open_with_flags(
                    immutable_uri(path),
                    flags | OpenFlags::SQLITE_OPEN_URI,
                )
                .map_err(|e| cannot_open(e.to_string()))?;
                schema::check_ownership(&conn)
            }
            other => other,
        };
        ownership.map_err(|what| StoreError::Foreign {
            path: path.to_path_buf(),
            what,
        })?;
        let found = schema::version(&conn)?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                found,
                supported: SCHEMA_VERSION,
            });
        }
        if found < SCHEMA_VERSION {
            drop(conn);
            return Store::open_with_key(path, key_path).map_err(|error| match error {
                StoreError::ReadOnly | StoreError::CannotOpen { .. } => cannot_open(format!(
                    "its schema version {found} needs upgrading to {SCHEMA_VERSION}, and the file cannot be written; open it once where it can be"
                )),
                other => other,
            });
        }
        Ok(Store {
            backend: Backend::Sqlite(conn),
            write_gate: Arc::default(),
            path: path.to_path_buf(),
            before_commit: None,
            key: None,
            key_path: Some(key_path.to_path_buf()),
            listen_config: None,
        })
    }

    /// Opens the PostgreSQL database at `url` (`postgres://user:password@host:port/database`) with a
    /// pool of connections, and brings its schema up to date (the tables are made in the URL's
    /// schema, `public` unless its `options` say another). The signing key is read from `key_path`
    /// when a change needs it, and made there while no campaign of the database has a key.
    ///
    /// # Errors
    /// [`StoreError::CannotOpen`] when the URL does not parse or the server cannot be reached,
    /// [`StoreError::Foreign`] for a database that holds another program's tables,
    /// [`StoreError::NewerSchema`].
    pub fn open_postgres(url: &str, key_path: &Path) -> Result<Store, StoreError> {
        let (pool, connector) = crate::pg::open(url)?;
        Ok(Store {
            backend: Backend::Postgres(pool),
            write_gate: Arc::default(),
            path: PathBuf::from(crate::pg::redact(url)),
            before_commit: None,
            key: None,
            key_path: Some(key_path.to_path_buf()),
            listen_config: Some(connector),
        })
    }

    /// A store on the PostgreSQL database at `url` with a key of its own, made in memory and
    /// never written: for tests, as [`Store::open_in_memory`] is for SQLite.
    ///
    /// # Errors
    /// As [`Store::open_postgres`].
    #[doc(hidden)]
    pub fn open_postgres_with_new_key(url: &str) -> Result<Store, StoreError> {
        let mut store = Store::open_postgres(url, Path::new(""))?;
        store.key = Some(Key::generate()?);
        store.key_path = None;
        Ok(store)
    }

    /// A store in memory, gone when dropped, with a key of its own: for tests and examples.
    ///
    /// # Errors
    /// Only if SQLite cannot allocate the database.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let mut conn = Connection::open_in_memory()?;
        conn.pragma_update(None, "foreign_keys", true)?;
        schema::migrate(&mut conn, SCHEMA_VERSION, None)?;
        Ok(Store {
            backend: Backend::Sqlite(conn),
            write_gate: Arc::default(),
            path: PathBuf::from(":memory:"),
            before_commit: None,
            key: Some(Key::generate()?),
            key_path: None,
            listen_config: None,
        })
    }

    fn has_campaigns(&self) -> Result<bool, StoreError> {
        self.read(|conn| {
            Ok(conn
                .query_opt("SELECT 1 FROM campaign LIMIT 1", params![], |_| Ok(()))?
                .is_some())
        })
    }

    /// The SQLite connection, for what only SQLite has (pragmas, its file's own checks).
    #[cfg(test)]
    pub(crate) fn sqlite(&self) -> Result<&Connection, StoreError> {
        match &self.backend {
            Backend::Sqlite(conn) => Ok(conn),
            Backend::Postgres(_) => Err(StoreError::Invalid(
                "this needs a SQLite database, and the store is on PostgreSQL".to_string(),
            )),
        }
    }

    fn sqlite_mut(&mut self) -> Result<&mut Connection, StoreError> {
        match &mut self.backend {
            Backend::Sqlite(conn) => Ok(conn),
            Backend::Postgres(_) => Err(StoreError::Invalid(
                "this needs a SQLite database, and the store is on PostgreSQL".to_string(),
            )),
        }
    }

    /// How many connections the store's pool opens at most on PostgreSQL (`OMEN_DB_POOL`, default
    /// [`crate::DEFAULT_POOL`]); none on SQLite, whose handles each hold one connection.
    pub fn pool_size(&self) -> Option<u32> {
        match &self.backend {
            Backend::Sqlite(_) => None,
            Backend::Postgres(pool) => Some(pool.max_size()),
        }
    }

    /// Which engine holds the store.
    pub fn engine(&self) -> Engine {
        match &self.backend {
            Backend::Sqlite(_) => Engine::Sqlite,
            Backend::Postgres(_) => Engine::Postgres,
        }
    }

    /// Another handle on the same database, for another thread: on PostgreSQL it shares the
    /// connection pool (and the key); on SQLite it opens the file again (a database in memory has
    /// no second handle).
    ///
    /// # Errors
    /// As [`Store::open_with_key`]; [`StoreError::Invalid`] for a database in memory.
    pub fn try_clone(&self) -> Result<Store, StoreError> {
        let backend = match &self.backend {
            Backend::Postgres(pool) => Backend::Postgres(pool.clone()),
            Backend::Sqlite(_) if self.key_path.is_none() => {
                return Err(StoreError::Invalid(
                    "a database in memory has no second handle".to_string(),
                ));
            }
            Backend::Sqlite(_) => {
                let key_path = self.key_path.clone().unwrap_or_default();
                let mut other = Store::open_with_key(&self.path, &key_path)?;
                other.key = self.key.clone();
                other.write_gate = self.write_gate.clone();
                return Ok(other);
            }
        };
        Ok(Store {
            backend,
            write_gate: self.write_gate.clone(),
            path: self.path.clone(),
            before_commit: None,
            key: self.key.clone(),
            key_path: self.key_path.clone(),
            listen_config: self.listen_config.clone(),
        })
    }

    /// The signing key: read from its file, or made there while no campaign has a key yet. Losing the
    /// key file loses the ability to add to the log, never the ability to verify it.
    pub(crate) fn signing_key(&mut self) -> Result<Key, StoreError> {
        if let Some(key) = &self.key {
            return Ok(key.clone());
        }
        let path = self.key_path.clone().unwrap_or_default();
        let key = if path.exists() {
            Key::read(&path)?
        } else {
            let keyed: Option<String> = if self.schema_version()? >= 3 {
                self.read(|conn| {
                    conn.query_opt(
                        "SELECT name FROM campaign WHERE public_key IS NOT NULL LIMIT 1",
                        params![],
                        |row| row.get(0),
                    )
                })?
            } else {
                None
            };
            if let Some(campaign) = keyed {
                return Err(StoreError::Key {
                    path,
                    message: format!(
                        "is missing, and campaign `{campaign}` is signed with a key: restore the key file from your backup (or give its place with --key or OMEN_KEY); without it the log can be verified but not added to"
                    ),
                });
            }
            Key::create(&path)?
        };
        self.key = Some(key.clone());
        Ok(key)
    }

    /// The public key (hex) of the local key file, if there is one: what verify compares a campaign's
    /// key with.
    pub(crate) fn local_public_key(&self) -> Option<String> {
        if let Some(key) = &self.key {
            return Some(key.public());
        }
        let path = self.key_path.as_ref()?;
        Key::read(path).ok().map(|key| key.public())
    }

    /// The database file (`:memory:` for [`Store::open_in_memory`]; the URL without its password
    /// on PostgreSQL).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version of the open database.
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        match &self.backend {
            Backend::Sqlite(conn) => schema::version(conn),
            Backend::Postgres(_) => self.read(crate::pg::version),
        }
    }

    /// How long a write waits for another process's write before giving up with [`StoreError::Busy`]
    /// (initially [`BUSY_TIMEOUT`]).
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn set_busy_timeout(&mut self, timeout: Duration) -> Result<(), StoreError> {
        match &mut self.backend {
            Backend::Sqlite(conn) => Ok(conn.busy_timeout(timeout)?),
            // PostgreSQL waits for a row lock as long as the server's lock_timeout says.
            Backend::Postgres(_) => Ok(()),
        }
    }

    /// Runs `hook` inside every write transaction, after its writes and just before it commits: lets
    /// fault-injection tests stop a process in the middle of a write.
    #[doc(hidden)]
    pub fn set_before_commit(&mut self, hook: Option<Box<dyn FnMut() + Send>>) {
        self.before_commit = hook;
    }

    /// One write transaction, taken at once (`BEGIN IMMEDIATE`) so a read-then-write never races another
    /// writer: everything `work` does commits, or nothing does.
    /// On PostgreSQL the transaction reads committed data, and whatever must not race locks its rows
    /// ([`crate::log::Chain::open`] locks the campaign's).
    pub(crate) fn write<T>(
        &mut self,
        work: impl FnOnce(&Conn<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let hook = &mut self.before_commit;
        match &mut self.backend {
            Backend::Sqlite(conn) => {
                // A panic while it was held left no transaction open (rusqlite rolls back on drop).
                let _turn = self
                    .write_gate
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let value = work(&Conn::Sqlite(&tx))?;
                if let Some(hook) = hook.as_mut() {
                    hook();
                }
                tx.commit()?;
                Ok(value)
            }
            Backend::Postgres(pool) => {
                let mut client = crate::pg::connection(pool)?;
                let tx = crate::pg_client::Transaction::begin(&mut client, false)?;
                let conn = Conn::Postgres(std::cell::RefCell::new(tx));
                let value = work(&conn)?;
                if let Some(hook) = hook.as_mut() {
                    hook();
                }
                if let Conn::Postgres(tx) = conn {
                    tx.into_inner().commit()?;
                }
                Ok(value)
            }
        }
    }

    /// One read transaction, so that a multi-query read sees one moment.
    pub(crate) fn read<T>(
        &self,
        work: impl FnOnce(&Conn<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match &self.backend {
            Backend::Sqlite(conn) => {
                let tx = conn.unchecked_transaction()?;
                let value = work(&Conn::Sqlite(&tx))?;
                tx.commit()?;
                Ok(value)
            }
            Backend::Postgres(pool) => {
                let mut client = crate::pg::connection(pool)?;
                let tx = crate::pg_client::Transaction::begin(&mut client, true)?;
                let conn = Conn::Postgres(std::cell::RefCell::new(tx));
                let value = work(&conn)?;
                if let Conn::Postgres(tx) = conn {
                    tx.into_inner().commit()?;
                }
                Ok(value)
            }
        }
    }

    // -----------------------------------------------------------------------------------------------
    // Campaigns.

    /// # Errors
    /// [`StoreError::Invalid`] for an unusable name, [`StoreError::AlreadyExists`] for a taken one.
    pub fn create_campaign(&mut self, name: &str) -> Result<Campaign, StoreError> {
        check_name("campaign", name)?;
        let key = self.signing_key()?;
        self.write(|conn| {
            if campaign_id(conn, name).is_ok() {
                return Err(StoreError::AlreadyExists(Existing::Campaign {
                    name: name.to_string(),
                }));
            }
            let created = crate::time::now();
            conn.execute(
                "INSERT INTO campaign (name, created, uid, public_key) VALUES (?1, ?2, ?3, ?4)",
                params![name, created, crate::key::new_uid()?, key.public()],
            )?;
            Ok(Campaign {
                name: name.to_string(),
                created,
                characters: 0,
                log_entries: 0,
                dialect: omen_dialect(),
            })
        })
    }

    const CAMPAIGN_QUERY: &str = "SELECT c.name, c.created,
            (SELECT count(*) FROM character AS h WHERE h.campaign_id = c.id),
            (SELECT count(*) FROM roll_log AS l WHERE l.campaign_id = c.id),
            c.dialect
         FROM campaign AS c";

    fn campaign_row(row: &Row) -> Result<Campaign, StoreError> {
        Ok(Campaign {
            name: row.get(0)?,
            created: row.get(1)?,
            characters: row.get::<i64>(2)? as u64,
            log_entries: row.get::<i64>(3)? as u64,
            dialect: row.get(4)?,
        })
    }

    /// Sets the dice notation `campaign`'s rolls are typed in.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a name that is no dialect, [`StoreError::NotFound`].
    pub fn set_campaign_dialect(
        &mut self,
        campaign: &str,
        dialect: &str,
    ) -> Result<(), StoreError> {
        let dialect = omen_lang::syntax::Dialect::named(dialect).ok_or_else(|| {
            let names: Vec<&str> = omen_lang::syntax::Dialect::names().collect();
            StoreError::Invalid(format!(
                "unknown dialect `{dialect}`; the dialects are {}",
                names.join(", ")
            ))
        })?;
        self.write(|conn| {
            let id = campaign_id(conn, campaign)?;
            conn.execute(
                "UPDATE campaign SET dialect = ?1 WHERE id = ?2",
                params![dialect.name, id],
            )?;
            Ok(())
        })
    }

    /// The dialect `campaign`'s rolls are typed in (Omen's own for a name this build does not know).
    fn campaign_dialect(&self, campaign: &str) -> Result<&'static Dialect, StoreError> {
        let name = self.campaign(campaign)?.dialect;
        Ok(Dialect::named(&name).unwrap_or_default())
    }

    /// Every campaign, by name.
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn campaigns(&self) -> Result<Vec<Campaign>, StoreError> {
        self.read(|conn| {
            conn.query_map(
                &format!("{} ORDER BY c.name", Self::CAMPAIGN_QUERY),
                params![],
                Self::campaign_row,
            )
        })
    }

    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn campaign(&self, name: &str) -> Result<Campaign, StoreError> {
        self.read(|conn| {
            conn.query_opt(
                &format!("{} WHERE c.name = ?1", Self::CAMPAIGN_QUERY),
                params![name],
                Self::campaign_row,
            )?
            .ok_or_else(|| StoreError::campaign(name))
        })
    }

    /// Renames a campaign. Log entries keep the name they were written under.
    ///
    /// # Errors
    /// [`StoreError::NotFound`], [`StoreError::AlreadyExists`], [`StoreError::Invalid`].
    pub fn rename_campaign(&mut self, name: &str, new_name: &str) -> Result<(), StoreError> {
        check_name("campaign", new_name)?;
        self.write(|conn| {
            let id = campaign_id(conn, name)?;
            if name != new_name && campaign_id(conn, new_name).is_ok() {
                return Err(StoreError::AlreadyExists(Existing::Campaign {
                    name: new_name.to_string(),
                }));
            }
            conn.execute(
                "UPDATE campaign SET name = ?1 WHERE id = ?2",
                params![new_name, id],
            )?;
            Ok(())
        })
    }

    /// Deletes a campaign with its characters, saved rolls and log.
    ///
    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn delete_campaign(&mut self, name: &str) -> Result<(), StoreError> {
        self.write(|conn| {
            let id = campaign_id(conn, name)?;
            conn.execute("DELETE FROM campaign WHERE id = ?1", params![id])?;
            Ok(())
        })
    }

    // -----------------------------------------------------------------------------------------------
    // Characters.

    /// Creates a character from its sheet, as `rule_set` defines it; logged as `create`. The rule set
    /// `none` makes a plain character, bound to no rule set: it keeps no state (`{}`) and takes no
    /// actions, but its ordinary rolls are logged under its name.
    ///
    /// # Errors
    /// [`StoreError::Rules`] with every problem of the sheet, [`StoreError::NotFound`] for an unknown
    /// campaign or a rule set without stateful characters, [`StoreError::AlreadyExists`].
    pub fn create_character(
        &mut self,
        campaign: &str,
        name: &str,
        rule_set: &str,
        sheet: &Value,
    ) -> Result<Character, StoreError> {
        check_name("character", name)?;
        let (state, state_version) = if rule_set == PLAIN {
            if !sheet.as_object().is_some_and(|o| o.is_empty()) {
                return Err(StoreError::Invalid(
                    "a plain character (no rule set) has no sheet; leave --sheet out, or choose a rule set with --rules".to_string(),
                ));
            }
            (json!({}), 1)
        } else {
            let game = game(rule_set)?;
            (game.new_character(sheet)?, game.state_version())
        };
        let key = self.signing_key()?;
        self.write(|conn| {
            let chain = Chain::open(conn, campaign, &key)?;
            if character_exists(conn, chain.campaign_id, name)? {
                return Err(StoreError::AlreadyExists(Existing::Character {
                    campaign: campaign.to_string(),
                    name: name.to_string(),
                }));
            }
            let now = crate::time::now();
            let uid = crate::key::new_uid()?;
            let id = conn.insert(
                "INSERT INTO character (campaign_id, name, rule_set, sheet, state, state_version, created, updated, uid)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8)",
                params![chain.campaign_id, name, rule_set, sheet.to_string(), state.to_string(), state_version, now, uid],
            )?;
            let mut draft = Draft::plain(
                Some(id),
                Some(uid),
                Some(name.to_string()),
                "create",
                json!({ "kind": "create", "rule_set": rule_set, "sheet": sheet }),
                format!("created {name} ({rule_set})"),
            );
            draft.state_after = Some(state.clone());
            chain.append(conn, draft)?;
            Ok(Character {
                campaign: campaign.to_string(),
                name: name.to_string(),
                rule_set: rule_set.to_string(),
                sheet: sheet.clone(),
                state,
                state_version,
                created: now.clone(),
                updated: now,
            })
        })
    }

    /// A campaign's characters, by name, with their state as stored (see [`Store::character`] for the
    /// state loaded by its rule set).
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown campaign.
    pub fn characters(&self, campaign: &str) -> Result<Vec<Character>, StoreError> {
        self.read(|conn| {
            character_rows(conn, campaign_id(conn, campaign)?)?
                .into_iter()
                .map(|row| {
                    let state = parse("state", &row.state)?;
                    let version = row.state_version;
                    row.into_character(campaign, state, version)
                })
                .collect()
        })
    }

    /// A character, its state loaded by its rule set (an older state version is upgraded).
    ///
    /// # Errors
    /// [`StoreError::NotFound`]; [`StoreError::Rules`] when the stored state no longer loads.
    pub fn character(&self, campaign: &str, name: &str) -> Result<Character, StoreError> {
        let row = self.read(|conn| find_character(conn, campaign, name))?;
        if row.rule_set == PLAIN {
            let (state, version) = (parse("state", &row.state)?, row.state_version);
            return row.into_character(campaign, state, version);
        }
        let game = game(&row.rule_set)?;
        let state = game.load(row.state_version, &parse("state", &row.state)?)?;
        row.into_character(campaign, state, game.state_version())
    }

    /// Replaces a character's state by hand, after its rule set has checked it; logged as `edit`.
    ///
    /// # Errors
    /// [`StoreError::Rules`] with every problem of `state`, [`StoreError::NotFound`].
    pub fn set_state(
        &mut self,
        campaign: &str,
        name: &str,
        state: &Value,
    ) -> Result<Character, StoreError> {
        let key = self.signing_key()?;
        self.write(|conn| {
            let chain = Chain::open(conn, campaign, &key)?;
            let row = find_character(conn, campaign, name)?;
            let game = game(&row.rule_set)?;
            let version = game.state_version();
            let after = game.load(version, state)?;
            // The state before is taken as stored: an edit is how a state that no longer loads is fixed.
            let before = parse("state", &row.state)?;
            let now = crate::time::now();
            conn.execute(
                "UPDATE character SET state = ?1, state_version = ?2, updated = ?3 WHERE id = ?4",
                params![after.to_string(), version, now, row.id],
            )?;
            let mut draft = Draft::plain(
                Some(row.id),
                row.uid.clone(),
                Some(row.name.clone()),
                "edit",
                json!({ "kind": "edit", "rule_set": row.rule_set, "state_version": version, "state": state }),
                format!("game-master edit of {name}'s state"),
            );
            draft.state_before = Some(before);
            draft.state_after = Some(after.clone());
            chain.append(conn, draft)?;
            let mut row = row;
            row.updated = now;
            row.into_character(campaign, after, version)
        })
    }

    /// Renames a character; logged as `rename`. Earlier log entries keep the old name.
    ///
    /// # Errors
    /// [`StoreError::NotFound`], [`StoreError::AlreadyExists`], [`StoreError::Invalid`].
    pub fn rename_character(
        &mut self,
        campaign: &str,
        name: &str,
        new_name: &str,
    ) -> Result<(), StoreError> {
        check_name("character", new_name)?;
        let key = self.signing_key()?;
        self.write(|conn| {
            let chain = Chain::open(conn, campaign, &key)?;
            let row = find_character(conn, campaign, name)?;
            if name == new_name {
                return Ok(());
            }
            if character_exists(conn, row.campaign_id, new_name)? {
                return Err(StoreError::AlreadyExists(Existing::Character {
                    campaign: campaign.to_string(),
                    name: new_name.to_string(),
                }));
            }
            conn.execute(
                "UPDATE character SET name = ?1, updated = ?2 WHERE id = ?3",
                params![new_name, crate::time::now(), row.id],
            )?;
            chain.append(
                conn,
                Draft::plain(
                    Some(row.id),
                    row.uid.clone(),
                    Some(new_name.to_string()),
                    "rename",
                    json!({ "kind": "rename", "from": name, "to": new_name }),
                    format!("renamed {name} to {new_name}"),
                ),
            )?;
            Ok(())
        })
    }

    /// Deletes a character; logged as `delete` with its last state. Its log entries stay.
    ///
    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn delete_character(&mut self, campaign: &str, name: &str) -> Result<(), StoreError> {
        let key = self.signing_key()?;
        self.write(|conn| {
            let chain = Chain::open(conn, campaign, &key)?;
            let row = find_character(conn, campaign, name)?;
            let mut draft = Draft::plain(
                Some(row.id),
                row.uid.clone(),
                Some(row.name.clone()),
                "delete",
                json!({ "kind": "delete" }),
                format!("deleted {name}"),
            );
            draft.state_before = Some(parse("state", &row.state)?);
            chain.append(conn, draft)?;
            conn.execute("DELETE FROM character WHERE id = ?1", params![row.id])?;
            Ok(())
        })
    }

    // -----------------------------------------------------------------------------------------------
    // Actions and rolls.

    /// Applies a rule-set action to a character in one transaction: reads the state, rolls, writes the
    /// new state and the log entry, or changes nothing. Concurrent writers queue; none is lost.
    ///
    /// # Errors
    /// [`StoreError::Rules`] for an action the rule set refuses (dice that do not fit included),
    /// [`StoreError::Invalid`] for given dice the action did not use, [`StoreError::NotFound`],
    /// [`StoreError::Busy`], [`StoreError::ReadOnly`], [`StoreError::DiskFull`].
    pub fn act(
        &mut self,
        campaign: &str,
        character: &str,
        action: &Value,
        dice: Dice,
        limits: &Limits,
    ) -> Result<LogEntry, StoreError> {
        self.perform(
            ActionRequest::new(campaign, character, action)
                .with_dice(dice)
                .with_limits(limits.clone()),
        )
    }

    /// The exact odds of `action` for a character as it stands, without rolling.
    ///
    /// # Errors
    /// [`StoreError::Rules`] (an action that rolls nothing has no odds), [`StoreError::NotFound`].
    pub fn odds(
        &self,
        campaign: &str,
        character: &str,
        action: &Value,
        limits: &Limits,
    ) -> Result<Value, StoreError> {
        let row = self.read(|conn| find_character(conn, campaign, character))?;
        let game = game(&row.rule_set)?;
        let state = game.load(row.state_version, &parse("state", &row.state)?)?;
        Ok(game.odds(&state, action, limits)?)
    }

    /// Rolls an expression or script and logs it in one go, optionally for a character: what
    /// `omen roll --campaign` does. `dice` is [`Dice::Derived`] (the seed the log gives) or
    /// [`Dice::Given`] (logged as given).
    ///
    /// # Errors
    /// [`StoreError::Language`] when it does not compile or cannot be rolled, [`StoreError::Invalid`]
    /// for a chosen seed, as [`Store::log_roll`] otherwise. Nothing is logged on error.
    pub fn roll(
        &mut self,
        campaign: &str,
        character: Option<&str>,
        expression: &str,
        params: &BTreeMap<String, Value>,
        dice: &Dice,
        limits: &Limits,
    ) -> Result<(LogEntry, roll::ExpressionRoll), StoreError> {
        self.submit_roll(
            RollRequest::expression(campaign, expression)
                .for_character(character)
                .with_params(params.clone())
                .with_dice(dice.clone())
                .with_limits(limits.clone()),
        )
    }

    /// [`Store::roll`] with `expression` read in `dialect`, or (`None`) in the campaign's dialect. A
    /// roll typed in another dialect than Omen's is logged in Omen's notation (its reading), so that
    /// the log replays it the same; the warnings are those of reading it as typed.
    ///
    /// # Errors
    /// As [`Store::roll`].
    #[allow(clippy::too_many_arguments)]
    pub fn roll_in_dialect(
        &mut self,
        campaign: &str,
        character: Option<&str>,
        expression: &str,
        dialect: Option<&'static Dialect>,
        params: &BTreeMap<String, Value>,
        dice: &Dice,
        limits: &Limits,
    ) -> Result<(LogEntry, roll::ExpressionRoll), StoreError> {
        self.submit_roll(
            RollRequest::expression(campaign, expression)
                .in_dialect(dialect)
                .for_character(character)
                .with_params(params.clone())
                .with_dice(dice.clone())
                .with_limits(limits.clone()),
        )
    }

    /// Rolls a saved roll, its default parameters overridden by `params`, and logs it.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown saved roll, as [`Store::roll`] otherwise.
    pub fn roll_saved(
        &mut self,
        campaign: &str,
        character: Option<&str>,
        name: &str,
        params: &BTreeMap<String, Value>,
        dice: &Dice,
        limits: &Limits,
    ) -> Result<(LogEntry, roll::ExpressionRoll), StoreError> {
        self.submit_roll(
            RollRequest::saved(campaign, name)
                .for_character(character)
                .with_params(params.clone())
                .with_dice(dice.clone())
                .with_limits(limits.clone()),
        )
    }

    /// Makes and logs the roll `request` describes: an expression (in its dialect, logged in Omen's
    /// notation) or a saved roll (its default parameters under the request's), with a visibility
    /// and an actor.
    ///
    /// # Errors
    /// [`StoreError::Language`] when it does not compile or cannot be rolled, [`StoreError::Invalid`]
    /// for a chosen seed, [`StoreError::NotFound`] for an unknown campaign, character or saved roll.
    /// Nothing is logged on error.
    pub fn submit_roll(
        &mut self,
        request: RollRequest<'_>,
    ) -> Result<(LogEntry, roll::ExpressionRoll), StoreError> {
        let RollRequest {
            campaign,
            character,
            roll,
            params,
            dice,
            limits,
            options,
        } = request;
        let (limits, options) = (&limits, &options);
        let (text, dialect) = match roll {
            Rollable::Saved(name) => {
                let saved = self.saved_roll(campaign, name)?;
                let merged = saved.params_with(&params);
                return self.roll_logged(
                    campaign,
                    character,
                    &saved.expression,
                    &merged,
                    Some(saved.name),
                    &dice,
                    limits,
                    options,
                );
            }
            Rollable::Expression { text, dialect } => (text, dialect),
        };
        let dialect = match dialect {
            Some(dialect) => dialect,
            None => self.campaign_dialect(campaign)?,
        };
        if dialect == <&Dialect>::default() {
            return self.roll_logged(
                campaign, character, text, &params, None, &dice, limits, options,
            );
        }
        let (omen, warnings) = roll::in_omen_notation(text, dialect, &params, limits)?;
        let (entry, mut rolled) = self.roll_logged(
            campaign, character, &omen, &params, None, &dice, limits, options,
        )?;
        rolled.warnings = warnings;
        Ok((entry, rolled))
    }

    // -----------------------------------------------------------------------------------------------
    // Saved rolls.

    /// Saves a named roll after checking that it compiles with its default parameters.
    ///
    /// # Errors
    /// [`StoreError::Language`] with every error of the expression, [`StoreError::AlreadyExists`] when
    /// the name is taken and `replace` is false, [`StoreError::NotFound`].
    pub fn save_roll(
        &mut self,
        campaign: &str,
        saved: &SavedRoll,
        replace: bool,
    ) -> Result<(), StoreError> {
        check_name("saved roll", &saved.name)?;
        roll::check_expression(&saved.expression, &saved.params, &Limits::default())?;
        self.write(|conn| {
            let campaign_id = campaign_id(conn, campaign)?;
            let exists = conn
                .query_opt(
                    "SELECT 1 FROM saved_roll WHERE campaign_id = ?1 AND name = ?2",
                    params![campaign_id, saved.name],
                    |_| Ok(()),
                )?
                .is_some();
            if exists && !replace {
                return Err(StoreError::AlreadyExists(Existing::SavedRoll {
                    campaign: campaign.to_string(),
                    name: saved.name.clone(),
                }));
            }
            conn.execute(
                "INSERT INTO saved_roll (campaign_id, name, expression, params, description)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (campaign_id, name) DO UPDATE SET
                     expression = excluded.expression, params = excluded.params,
                     description = excluded.description",
                params![
                    campaign_id,
                    saved.name,
                    saved.expression,
                    serde_json::to_string(&saved.params)?,
                    saved.description
                ],
            )?;
            Ok(())
        })
    }

    /// A campaign's saved rolls, by name.
    ///
    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn saved_rolls(&self, campaign: &str) -> Result<Vec<SavedRoll>, StoreError> {
        self.read(|conn| {
            let id = campaign_id(conn, campaign)?;
            saved_rolls(conn, id)
        })
    }

    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn saved_roll(&self, campaign: &str, name: &str) -> Result<SavedRoll, StoreError> {
        self.saved_rolls(campaign)?
            .into_iter()
            .find(|saved| saved.name == name)
            .ok_or_else(|| {
                StoreError::NotFound(Missing::SavedRoll {
                    campaign: campaign.to_string(),
                    name: name.to_string(),
                })
            })
    }

    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn delete_saved_roll(&mut self, campaign: &str, name: &str) -> Result<(), StoreError> {
        self.write(|conn| {
            let id = campaign_id(conn, campaign)?;
            let deleted = conn.execute(
                "DELETE FROM saved_roll WHERE campaign_id = ?1 AND name = ?2",
                params![id, name],
            )?;
            if deleted == 0 {
                return Err(StoreError::NotFound(Missing::SavedRoll {
                    campaign: campaign.to_string(),
                    name: name.to_string(),
                }));
            }
            Ok(())
        })
    }

    // -----------------------------------------------------------------------------------------------
    // The log.

    /// Log entries matching `filter`, by campaign and then in log order.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown campaign, [`StoreError::Invalid`] for a time that does not
    /// parse, [`StoreError::Corrupt`] for a row that cannot be read.
    pub fn log(&self, filter: &LogFilter) -> Result<Vec<LogEntry>, StoreError> {
        self.log_after(filter, None)
    }

    /// [`Store::log`], only entries numbered after `after` when given (read through the log's key,
    /// not filtered afterwards).
    pub(crate) fn log_after(
        &self,
        filter: &LogFilter,
        after: Option<u64>,
    ) -> Result<Vec<LogEntry>, StoreError> {
        self.log_page(filter, after, None)
    }

    /// One page of [`Store::log`]: the first `limit` entries (all when `None`) numbered after
    /// `after`, in log order. `filter.last` keeps the last entries the other filters select, and the
    /// page is taken from those. Every bound is read through the log's key (the first of the last
    /// entries is found by a query of its own), so a page costs its own entries, never the log's.
    ///
    /// # Errors
    /// As [`Store::log`].
    pub fn log_page(
        &self,
        filter: &LogFilter,
        after: Option<u64>,
        limit: Option<usize>,
    ) -> Result<Vec<LogEntry>, StoreError> {
        use crate::db::Param as Sql;
        self.read(|conn| {
            let (mut conditions, mut values) = log_conditions(conn, filter)?;
            if let Some(last) = filter.last {
                if last == 0 {
                    return Ok(Vec::new());
                }
                let sql = format!(
                    "SELECT l.campaign_id, l.sequence FROM roll_log AS l{} \
                     ORDER BY l.campaign_id DESC, l.sequence DESC LIMIT 1 OFFSET ?",
                    where_clause(&conditions)
                );
                let mut bound = values.clone();
                bound.push(Sql::Integer(i64::try_from(last - 1).unwrap_or(i64::MAX)));
                let first = conn.query_opt(&sql, &bound, |row| {
                    Ok((row.get::<i64>(0)?, row.get::<i64>(1)?))
                })?;
                // Fewer entries than `last`: every one of them.
                if let Some((campaign, sequence)) = first {
                    conditions
                        .push("(l.campaign_id > ? OR (l.campaign_id = ? AND l.sequence >= ?))");
                    values.extend([
                        Sql::Integer(campaign),
                        Sql::Integer(campaign),
                        Sql::Integer(sequence),
                    ]);
                }
            }
            if let Some(after) = after {
                values.push(Sql::Integer(i64::try_from(after).unwrap_or(i64::MAX)));
                conditions.push("l.sequence > ?");
            }
            let mut sql = format!(
                "SELECT {} FROM roll_log AS l{} ORDER BY l.campaign_id, l.sequence",
                log::ENTRY_COLUMNS,
                where_clause(&conditions)
            );
            if let Some(limit) = limit {
                sql.push_str(" LIMIT ?");
                values.push(Sql::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
            }
            let rows = conn.query_map(&sql, &values, log::RawEntry::from_row)?;
            rows.into_iter()
                .map(|raw| {
                    let sequence = raw.sequence();
                    raw.parse().map_err(|problem| {
                        StoreError::Corrupt(format!("log entry {sequence}: {problem}"))
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        })
    }

    /// [`Store::log_page`] as `viewer` may see it (see [`Store::log_for`]): what a server lists and
    /// streams a page at a time.
    ///
    /// # Errors
    /// As [`Store::log`].
    pub fn log_page_for(
        &self,
        filter: &LogFilter,
        after: Option<u64>,
        limit: usize,
        viewer: &crate::viewer::Viewer,
    ) -> Result<Vec<LogEntry>, StoreError> {
        let mut filter = filter.clone();
        if let crate::viewer::Viewer::Member(member) = viewer {
            filter.campaign = Some(member.campaign.clone());
        }
        let sight = self.sight(viewer, filter.campaign.as_deref())?;
        Ok(self
            .log_page(&filter, after, Some(limit))?
            .into_iter()
            .map(|entry| sight.see(entry))
            .collect())
    }

    /// Checks a campaign's log: every entry's hash, link, signature and key, the derivation of every
    /// seed, the signed chain head, and that every character's stored state is the state after its last
    /// entry. Finds every altered, removed, reordered, re-linked or cut-off entry and every character
    /// changed without an entry, as long as whoever changed them did not hold the key (against the key
    /// holder, see [`Store::verify_since`]). When the local key file is there, the campaign's key must
    /// be it.
    ///
    /// # Errors
    /// [`StoreError::NotFound`]; problems with the log are in the report, not errors.
    pub fn verify(&self, campaign: &str) -> Result<VerifyReport, StoreError> {
        let local = self.local_public_key();
        self.read(|conn| {
            let check = check_campaign(conn, campaign, local.as_deref())?;
            Ok(check.report)
        })
    }

    /// [`Store::verify`], and that the log still holds the entry a receipt from `omen log head`
    /// names, with the same hash: so a log cut back or rewritten from that entry on is caught even
    /// when it was done with the key.
    ///
    /// # Errors
    /// [`StoreError::NotFound`]; problems are in the report.
    pub fn verify_since(
        &self,
        campaign: &str,
        receipt: &log::Receipt,
    ) -> Result<VerifyReport, StoreError> {
        let mut report = self.verify(campaign)?;
        let entry = self.read(|conn| {
            let id = campaign_id(conn, campaign)?;
            conn.query_opt(
                "SELECT hash FROM roll_log WHERE campaign_id = ?1 AND sequence = ?2",
                params![id, receipt.sequence as i64],
                |row| row.get::<String>(0),
            )
        })?;
        let problem = match entry {
            None => Some(format!(
                "the log no longer holds entry {} that your receipt names (it ends at entry {}): it was cut back",
                receipt.sequence,
                report.head.as_ref().map_or(0, |h| h.sequence)
            )),
            Some(hash) if !hash.starts_with(&receipt.hash_prefix) => Some(format!(
                "entry {} is not the one your receipt names (its hash now starts {}, not {}): the log was rewritten from entry {} or before",
                receipt.sequence,
                &hash[..hash.len().min(16)],
                &receipt.hash_prefix[..16],
                receipt.sequence
            )),
            Some(_) => None,
        };
        if let Some(problem) = problem {
            report.problems.insert(
                0,
                log::LogProblem {
                    sequence: Some(receipt.sequence),
                    problem,
                },
            );
        }
        Ok(report)
    }

    /// The head of a campaign's log: the receipt to keep.
    ///
    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn head(&self, campaign: &str) -> Result<Option<log::ChainHead>, StoreError> {
        self.read(|conn| log::head(conn, campaign_id(conn, campaign)?))
    }

    /// A campaign's public key (hex), from which its log is verified.
    ///
    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn public_key(&self, campaign: &str) -> Result<Option<String>, StoreError> {
        self.read(|conn| {
            conn.query_opt(
                "SELECT public_key FROM campaign WHERE name = ?1",
                params![campaign],
                |row| row.get::<Option<String>>(0),
            )?
            .ok_or_else(|| StoreError::campaign(campaign))
        })
    }
}

/// A campaign's log checked, with its parsed entries for a replay.
pub(crate) struct CampaignCheck {
    pub report: VerifyReport,
    /// The problems of the characters against the log (also in the report).
    pub character_problems: Vec<log::LogProblem>,
}

pub(crate) fn check_campaign(
    conn: &Conn<'_>,
    campaign: &str,
    local_key: Option<&str>,
) -> Result<CampaignCheck, StoreError> {
    let (id, uid, public_key): (i64, Option<String>, Option<String>) =
        log::campaign_identity(conn, campaign)?;
    let head = log::head(conn, id)?;
    let raw = log::raw_entries(conn, id)?;
    let entries = raw.len() as u64;
    let rows = character_rows(conn, id)?;
    let character_uids: std::collections::HashMap<i64, String> = rows
        .iter()
        .filter_map(|row| Some((row.id, row.uid.clone()?)))
        .collect();
    let check = log::check_chain(
        raw,
        head.as_ref(),
        &log::Expected {
            campaign_uid: uid.as_deref(),
            public_key: public_key.as_deref(),
            local_key,
            character_uids: &character_uids,
        },
    );
    let live: Vec<log::LiveCharacter> = rows
        .into_iter()
        .map(|row| log::LiveCharacter {
            uid: row.uid,
            name: row.name,
            state: row.state,
        })
        .collect();
    let character_problems = log::check_characters(&check.entries, &live);
    let mut problems = check.problems;
    problems.extend(character_problems.iter().cloned());
    let key = check.public_key.or(public_key);
    Ok(CampaignCheck {
        report: VerifyReport {
            campaign: campaign.to_string(),
            entries,
            head,
            fingerprint: key.as_deref().map(crate::key::fingerprint),
            public_key: key,
            key_file_checked: local_key.is_some(),
            unsigned_entries: check.unsigned,
            problems,
        },
        character_problems,
    })
}

/// The name of the rule set of a plain character, bound to no rule set.
pub const PLAIN: &str = "none";

pub(crate) fn saved_rolls(conn: &Conn<'_>, campaign_id: i64) -> Result<Vec<SavedRoll>, StoreError> {
    let rows = conn.query_map(
        "SELECT name, expression, params, description FROM saved_roll WHERE campaign_id = ?1 ORDER BY name",
        params![campaign_id],
        |row| {
            Ok((
                row.get::<String>(0)?,
                row.get::<String>(1)?,
                row.get::<String>(2)?,
                row.get::<Option<String>>(3)?,
            ))
        },
    )?;
    rows.into_iter()
        .map(|(name, expression, params, description)| {
            Ok(SavedRoll {
                name,
                expression,
                params: serde_json::from_str(&params)?,
                description,
            })
        })
        .collect()
}

pub(crate) fn character_rows(
    conn: &Conn<'_>,
    campaign_id: i64,
) -> Result<Vec<CharacterRow>, StoreError> {
    conn.query_map(
        &format!("SELECT {CHARACTER_COLUMNS} FROM character WHERE campaign_id = ?1 ORDER BY name"),
        params![campaign_id],
        character_row,
    )
}

/// The conditions (with their values, in order) that select `filter`'s entries, but for `last`.
fn log_conditions(
    conn: &Conn,
    filter: &LogFilter,
) -> Result<(Vec<&'static str>, Vec<crate::db::Param>), StoreError> {
    use crate::db::Param as Sql;
    let mut conditions: Vec<&str> = Vec::new();
    let mut values: Vec<Sql> = Vec::new();
    if let Some(campaign) = &filter.campaign {
        values.push(Sql::Integer(campaign_id(conn, campaign)?));
        conditions.push("l.campaign_id = ?");
    }
    if let Some(character) = &filter.character {
        values.push(Sql::Text(character.clone()));
        values.push(Sql::Text(character.clone()));
        conditions.push(
            "(l.character = ? OR l.character_id IN
                (SELECT h.id FROM character AS h WHERE h.campaign_id = l.campaign_id AND h.name = ?))",
        );
    }
    if let Some(action) = &filter.action {
        values.push(Sql::Text(action.clone()));
        conditions.push("l.action = ?");
    }
    if let Some(since) = &filter.since {
        values.push(Sql::Text(crate::time::normalize_time(since)?));
        conditions.push("l.time >= ?");
    }
    if let Some(until) = &filter.until {
        values.push(Sql::Text(crate::time::normalize_time(until)?));
        conditions.push("l.time < ?");
    }
    Ok((conditions, values))
}

fn where_clause(conditions: &[&str]) -> String {
    if conditions.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", conditions.join(" AND "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_comes_from_the_flag_then_the_environment_then_the_default() {
        let flag = PathBuf::from("flag.db");
        let env = PathBuf::from("env.db");
        assert_eq!(
            resolve_path_with(Some(flag.clone()), Some(env.clone())).unwrap(),
            flag
        );
        assert_eq!(resolve_path_with(None, Some(env.clone())).unwrap(), env);
        let default = default_path().unwrap();
        assert_eq!(resolve_path_with(None, None).unwrap(), default);
        assert_eq!(
            resolve_path_with(None, Some(PathBuf::new())).unwrap(),
            default
        );
        assert!(default.ends_with("omen/omen.db"), "{}", default.display());
    }

    #[test]
    fn a_full_disk_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("omen.db")).unwrap();
        store.create_campaign("Tak").unwrap();
        let sheet = json!({ "intrinsic": [{ "source": "halfling", "value": 2 }] });
        store
            .create_character("Tak", "Ayla", "luck", &sheet)
            .unwrap();
        // The file may not grow beyond the pages it has now.
        let pages: u32 = store
            .sqlite()
            .unwrap()
            .pragma_query_value(None, "page_count", |row| row.get(0))
            .unwrap();
        store
            .sqlite()
            .unwrap()
            .pragma_update(None, "max_page_count", pages)
            .unwrap();
        let roll = json!({ "action": "roll" });
        let mut last = None;
        let error = loop {
            match store.act("Tak", "Ayla", &roll, Dice::Derived, &Limits::default()) {
                Ok(entry) => last = Some(entry),
                Err(error) => break error,
            }
            assert!(
                last.as_ref().unwrap().sequence < 10_000,
                "the disk never filled"
            );
        };
        assert!(matches!(error, StoreError::DiskFull), "{error:?}");
        assert_eq!(
            error.to_string(),
            "the disk is full, so nothing was changed; free some space and try again"
        );
        let entries = store.log(&LogFilter::default()).unwrap();
        let last_state = entries.last().unwrap().state_after.clone().unwrap();
        assert_eq!(store.character("Tak", "Ayla").unwrap().state, last_state);
        assert_eq!(entries.last(), last.as_ref().or(entries.first()));
        assert!(store.verify("Tak").unwrap().is_ok());
    }
}

//! The store: one SQLite file holding campaigns, characters, saved rolls and the roll log.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use omen_rules::stateful::{self, Game};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::db::{Conn, Row, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Missing, StoreError};
use crate::key::Key;
use crate::log::{self, Chain, VerifyReport};
use crate::schema::{self, SCHEMA_VERSION};

mod campaigns;
mod location;
mod log_reads;
mod rolls;

pub use location::{Database, default_path, resolve_database, resolve_path};

/// How long a writer waits for another process's write to finish before giving up with
/// [`StoreError::Busy`].
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The engine a database is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// One file, nothing to install: the default.
    Sqlite,
    /// A PostgreSQL server, for a hosted Omen that outgrows one machine.
    Postgres,
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
#[cfg(test)]
mod tests {
    use omen_core::Limits;
    use serde_json::json;

    use super::*;
    use crate::dice::Dice;

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

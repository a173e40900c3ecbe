//! The store: one SQLite file holding campaigns, characters, saved rolls and the roll log.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use omen_core::Limits;
use omen_rules::stateful::{self, Game};
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::dice::{Dice, Recording};
use crate::error::{Existing, Missing, StoreError};
use crate::log::{self, Draft, LogEntry, VerifyReport};
use crate::roll::{self, RollRecord};
use crate::schema::{self, SCHEMA_VERSION};

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

/// A campaign, with how much it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Campaign {
    pub name: String,
    pub created: String,
    pub characters: u64,
    pub log_entries: u64,
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

/// Campaigns in one SQLite database file. Every change is one transaction: it happens entirely or not
/// at all, and a writer in another process waits for it (up to [`BUSY_TIMEOUT`]).
pub struct Store {
    pub(crate) conn: Connection,
    path: PathBuf,
    before_commit: Option<Hook>,
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
}

const CHARACTER_COLUMNS: &str =
    "id, campaign_id, name, rule_set, sheet, state, state_version, created, updated";

fn character_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<CharacterRow> {
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

pub(crate) fn campaign_id(conn: &Connection, name: &str) -> Result<i64, StoreError> {
    conn.query_row("SELECT id FROM campaign WHERE name = ?1", [name], |row| {
        row.get(0)
    })
    .optional()?
    .ok_or_else(|| StoreError::campaign(name))
}

fn find_character(
    conn: &Connection,
    campaign: &str,
    name: &str,
) -> Result<CharacterRow, StoreError> {
    let campaign_id = campaign_id(conn, campaign)?;
    conn.query_row(
        &format!("SELECT {CHARACTER_COLUMNS} FROM character WHERE campaign_id = ?1 AND name = ?2"),
        params![campaign_id, name],
        character_row,
    )
    .optional()?
    .ok_or_else(|| StoreError::character(campaign, name))
}

fn character_exists(conn: &Connection, campaign_id: i64, name: &str) -> Result<bool, StoreError> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM character WHERE campaign_id = ?1 AND name = ?2",
            params![campaign_id, name],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

fn parse(column: &str, text: &str) -> Result<Value, StoreError> {
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
    /// Opens (creating it and its directory when missing) the database at `path`, brings its schema up
    /// to date, and turns on write-ahead logging, foreign keys and the busy timeout.
    ///
    /// # Errors
    /// [`StoreError::CannotOpen`] when the file or its directory cannot be created or opened,
    /// [`StoreError::NewerSchema`] for a database from a newer omen, [`StoreError::ReadOnly`] when a
    /// migration is needed but the file cannot be written, [`StoreError::Corrupt`] for a file that is
    /// not a database.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
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
        let mut conn = Connection::open(path).map_err(|error| cannot_open(error.to_string()))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
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
        schema::migrate(&mut conn, SCHEMA_VERSION)?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            before_commit: None,
        })
    }

    /// Opens an existing database for reading only: every change is refused with
    /// [`StoreError::ReadOnly`].
    ///
    /// # Errors
    /// As [`Store::open`]; a database whose schema is older than this build's is refused (open it once
    /// with [`Store::open`] to upgrade it).
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|error| StoreError::CannotOpen {
            path: path.to_path_buf(),
            message: error.to_string(),
        })?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "foreign_keys", true)?;
        let found = schema::version(&conn)?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                found,
                supported: SCHEMA_VERSION,
            });
        }
        if found < SCHEMA_VERSION {
            return Err(StoreError::CannotOpen {
                path: path.to_path_buf(),
                message: format!(
                    "its schema version {found} needs upgrading to {SCHEMA_VERSION}, which a read-only open cannot do; open it once for writing"
                ),
            });
        }
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            before_commit: None,
        })
    }

    /// A store in memory, gone when dropped: for tests and examples.
    ///
    /// # Errors
    /// Only if SQLite cannot allocate the database.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let mut conn = Connection::open_in_memory()?;
        conn.pragma_update(None, "foreign_keys", true)?;
        schema::migrate(&mut conn, SCHEMA_VERSION)?;
        Ok(Store {
            conn,
            path: PathBuf::from(":memory:"),
            before_commit: None,
        })
    }

    /// The database file (`:memory:` for [`Store::open_in_memory`]).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version of the open database.
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        schema::version(&self.conn)
    }

    /// How long a write waits for another process's write before giving up with [`StoreError::Busy`]
    /// (initially [`BUSY_TIMEOUT`]).
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn set_busy_timeout(&mut self, timeout: Duration) -> Result<(), StoreError> {
        Ok(self.conn.busy_timeout(timeout)?)
    }

    /// Runs `hook` inside every write transaction, after its writes and just before it commits: lets
    /// fault-injection tests stop a process in the middle of a write.
    #[doc(hidden)]
    pub fn set_before_commit(&mut self, hook: Option<Box<dyn FnMut() + Send>>) {
        self.before_commit = hook;
    }

    /// One write transaction, taken at once (`BEGIN IMMEDIATE`) so a read-then-write never races another
    /// writer: everything `work` does commits, or nothing does.
    pub(crate) fn write<T>(
        &mut self,
        work: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let value = work(&tx)?;
        if let Some(hook) = self.before_commit.as_mut() {
            hook();
        }
        tx.commit()?;
        Ok(value)
    }

    /// One read transaction, so that a multi-query read sees one moment.
    pub(crate) fn read<T>(
        &self,
        work: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let value = work(&tx)?;
        tx.commit()?;
        Ok(value)
    }

    // -----------------------------------------------------------------------------------------------
    // Campaigns.

    /// # Errors
    /// [`StoreError::Invalid`] for an unusable name, [`StoreError::AlreadyExists`] for a taken one.
    pub fn create_campaign(&mut self, name: &str) -> Result<Campaign, StoreError> {
        check_name("campaign", name)?;
        self.write(|conn| {
            if campaign_id(conn, name).is_ok() {
                return Err(StoreError::AlreadyExists(Existing::Campaign {
                    name: name.to_string(),
                }));
            }
            let created = crate::time::now();
            conn.execute(
                "INSERT INTO campaign (name, created) VALUES (?1, ?2)",
                params![name, created],
            )?;
            Ok(Campaign {
                name: name.to_string(),
                created,
                characters: 0,
                log_entries: 0,
            })
        })
    }

    const CAMPAIGN_QUERY: &str = "SELECT c.name, c.created,
            (SELECT count(*) FROM character AS h WHERE h.campaign_id = c.id),
            (SELECT count(*) FROM roll_log AS l WHERE l.campaign_id = c.id)
         FROM campaign AS c";

    fn campaign_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Campaign> {
        Ok(Campaign {
            name: row.get(0)?,
            created: row.get(1)?,
            characters: row.get::<_, i64>(2)? as u64,
            log_entries: row.get::<_, i64>(3)? as u64,
        })
    }

    /// Every campaign, by name.
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn campaigns(&self) -> Result<Vec<Campaign>, StoreError> {
        let mut statement = self
            .conn
            .prepare(&format!("{} ORDER BY c.name", Self::CAMPAIGN_QUERY))?;
        let rows = statement.query_map([], Self::campaign_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn campaign(&self, name: &str) -> Result<Campaign, StoreError> {
        self.conn
            .query_row(
                &format!("{} WHERE c.name = ?1", Self::CAMPAIGN_QUERY),
                [name],
                Self::campaign_row,
            )
            .optional()?
            .ok_or_else(|| StoreError::campaign(name))
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
            conn.execute("DELETE FROM campaign WHERE id = ?1", [id])?;
            Ok(())
        })
    }

    // -----------------------------------------------------------------------------------------------
    // Characters.

    /// Creates a character from its sheet, as `rule_set` defines it; logged as `create`.
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
        let game = game(rule_set)?;
        let state = game.new_character(sheet)?;
        self.write(|conn| {
            let campaign_id = campaign_id(conn, campaign)?;
            if character_exists(conn, campaign_id, name)? {
                return Err(StoreError::AlreadyExists(Existing::Character {
                    campaign: campaign.to_string(),
                    name: name.to_string(),
                }));
            }
            let now = crate::time::now();
            conn.execute(
                "INSERT INTO character (campaign_id, name, rule_set, sheet, state, state_version, created, updated)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
                params![campaign_id, name, rule_set, sheet.to_string(), state.to_string(), game.state_version(), now],
            )?;
            let id = conn.last_insert_rowid();
            log::append(
                conn,
                campaign_id,
                campaign,
                Draft {
                    character_id: Some(id),
                    character: Some(name.to_string()),
                    action: "create".to_string(),
                    inputs: json!({ "kind": "create", "rule_set": rule_set, "sheet": sheet }),
                    seed: None,
                    dice: Vec::new(),
                    result: Value::Null,
                    state_before: None,
                    state_after: Some(state.clone()),
                    summary: format!("created {name} ({rule_set})"),
                },
            )?;
            Ok(Character {
                campaign: campaign.to_string(),
                name: name.to_string(),
                rule_set: rule_set.to_string(),
                sheet: sheet.clone(),
                state,
                state_version: game.state_version(),
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
        let row = find_character(&self.conn, campaign, name)?;
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
        self.write(|conn| {
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
            log::append(
                conn,
                row.campaign_id,
                campaign,
                Draft {
                    character_id: Some(row.id),
                    character: Some(row.name.clone()),
                    action: "edit".to_string(),
                    inputs: json!({ "kind": "edit", "rule_set": row.rule_set, "state_version": version, "state": state }),
                    seed: None,
                    dice: Vec::new(),
                    result: Value::Null,
                    state_before: Some(before),
                    state_after: Some(after.clone()),
                    summary: format!("edited {name}'s state"),
                },
            )?;
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
        self.write(|conn| {
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
            log::append(
                conn,
                row.campaign_id,
                campaign,
                Draft {
                    character_id: Some(row.id),
                    character: Some(new_name.to_string()),
                    action: "rename".to_string(),
                    inputs: json!({ "kind": "rename", "from": name, "to": new_name }),
                    seed: None,
                    dice: Vec::new(),
                    result: Value::Null,
                    state_before: None,
                    state_after: None,
                    summary: format!("renamed {name} to {new_name}"),
                },
            )?;
            Ok(())
        })
    }

    /// Deletes a character; logged as `delete` with its last state. Its log entries stay.
    ///
    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn delete_character(&mut self, campaign: &str, name: &str) -> Result<(), StoreError> {
        self.write(|conn| {
            let row = find_character(conn, campaign, name)?;
            log::append(
                conn,
                row.campaign_id,
                campaign,
                Draft {
                    character_id: Some(row.id),
                    character: Some(row.name.clone()),
                    action: "delete".to_string(),
                    inputs: json!({ "kind": "delete" }),
                    seed: None,
                    dice: Vec::new(),
                    result: Value::Null,
                    state_before: Some(parse("state", &row.state)?),
                    state_after: None,
                    summary: format!("deleted {name}"),
                },
            )?;
            conn.execute("DELETE FROM character WHERE id = ?1", [row.id])?;
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
        self.write(|conn| {
            let row = find_character(conn, campaign, character)?;
            let game = game(&row.rule_set)?;
            let before = game.load(row.state_version, &parse("state", &row.state)?)?;
            let mut source = Recording::new(&dice);
            let applied = game.apply(&before, action, &mut source, limits)?;
            if !source.unused().is_empty() {
                let unused: Vec<String> = source.unused().iter().map(i64::to_string).collect();
                return Err(StoreError::Invalid(format!(
                    "{} given dice value(s) left unused: {}; give exactly the dice the action rolls",
                    unused.len(),
                    unused.join(", ")
                )));
            }
            let name = action
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("action")
                .to_string();
            let entry = log::append(
                conn,
                row.campaign_id,
                campaign,
                Draft {
                    character_id: Some(row.id),
                    character: Some(row.name.clone()),
                    action: name,
                    inputs: json!({ "kind": "action", "rule_set": row.rule_set, "action": action }),
                    seed: dice.seed(),
                    dice: source.rolled(),
                    result: applied.result,
                    state_before: Some(before),
                    state_after: Some(applied.state.clone()),
                    summary: applied.summary,
                },
            )?;
            conn.execute(
                "UPDATE character SET state = ?1, state_version = ?2, updated = ?3 WHERE id = ?4",
                params![applied.state.to_string(), game.state_version(), entry.time, row.id],
            )?;
            Ok(entry)
        })
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
        let row = find_character(&self.conn, campaign, character)?;
        let game = game(&row.rule_set)?;
        let state = game.load(row.state_version, &parse("state", &row.state)?)?;
        Ok(game.odds(&state, action, limits)?)
    }

    /// Rolls an expression or script with `dice` and logs it in one go, optionally for a character: what
    /// `omen roll --campaign` does.
    ///
    /// # Errors
    /// [`StoreError::Language`] when it does not compile or cannot be rolled, as [`Store::log_roll`]
    /// otherwise. Nothing is logged on error.
    pub fn roll(
        &mut self,
        campaign: &str,
        character: Option<&str>,
        expression: &str,
        params: &BTreeMap<String, Value>,
        dice: &Dice,
        limits: &Limits,
    ) -> Result<(LogEntry, roll::ExpressionRoll), StoreError> {
        let rolled = roll::roll_expression(expression, params, dice, limits)?;
        // Just rolled here: no need to roll it again to check it, as `log_roll` does.
        let entry = self.append_roll(campaign, character, rolled.record.clone())?;
        Ok((entry, rolled))
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
        let saved = self.saved_roll(campaign, name)?;
        let merged = saved.params_with(params);
        let mut rolled = roll::roll_expression(&saved.expression, &merged, dice, limits)?;
        rolled.record.saved_roll = Some(saved.name);
        // Just rolled here: no need to roll it again to check it, as `log_roll` does.
        let entry = self.append_roll(campaign, character, rolled.record.clone())?;
        Ok((entry, rolled))
    }

    /// Logs a roll of an expression or script (from [`crate::roll_expression`]), optionally for a
    /// character. The record is rolled again from its dice first: a record whose dice do not give its
    /// result is refused.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a record that does not roll to its result, [`StoreError::NotFound`].
    pub fn log_roll(
        &mut self,
        campaign: &str,
        character: Option<&str>,
        entry: RollRecord,
    ) -> Result<LogEntry, StoreError> {
        roll::recheck(&entry, &Limits::default()).map_err(|problem| {
            StoreError::Invalid(format!("the roll cannot be logged: {problem}"))
        })?;
        self.append_roll(campaign, character, entry)
    }

    /// Writes a roll record known to roll to its result into the log.
    fn append_roll(
        &mut self,
        campaign: &str,
        character: Option<&str>,
        entry: RollRecord,
    ) -> Result<LogEntry, StoreError> {
        self.write(|conn| {
            let campaign_id = campaign_id(conn, campaign)?;
            let (character_id, character) = match character {
                Some(name) => {
                    let row = find_character(conn, campaign, name)?;
                    (Some(row.id), Some(row.name))
                }
                None => (None, None),
            };
            let summary = match &entry.saved_roll {
                Some(saved) => format!("{saved}: {} = {}", entry.expression, entry.result),
                None => format!("{} = {}", entry.expression, entry.result),
            };
            log::append(
                conn,
                campaign_id,
                campaign,
                Draft {
                    character_id,
                    character,
                    action: "expression".to_string(),
                    inputs: json!({
                        "kind": "expression",
                        "expression": entry.expression,
                        "params": entry.params,
                        "saved_roll": entry.saved_roll,
                        "explode_depth": entry.explode_depth,
                    }),
                    seed: entry.seed,
                    dice: entry.dice,
                    result: entry.result,
                    state_before: None,
                    state_after: None,
                    summary,
                },
            )
        })
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
                .query_row(
                    "SELECT 1 FROM saved_roll WHERE campaign_id = ?1 AND name = ?2",
                    params![campaign_id, saved.name],
                    |_| Ok(()),
                )
                .optional()?
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
        self.read(|conn| {
            let mut conditions: Vec<&str> = Vec::new();
            let mut values: Vec<rusqlite::types::Value> = Vec::new();
            use rusqlite::types::Value as Sql;
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
            let mut sql = format!("SELECT {} FROM roll_log AS l", log::ENTRY_COLUMNS);
            if !conditions.is_empty() {
                sql.push_str(" WHERE ");
                sql.push_str(&conditions.join(" AND "));
            }
            sql.push_str(" ORDER BY l.campaign_id, l.sequence");
            let mut statement = conn.prepare(&sql)?;
            let rows = statement
                .query_map(rusqlite::params_from_iter(values), log::RawEntry::from_row)?
                .collect::<Result<Vec<_>, _>>()?;
            let mut entries = rows
                .into_iter()
                .map(|raw| {
                    let sequence = raw.sequence();
                    raw.parse().map_err(|problem| {
                        StoreError::Corrupt(format!("log entry {sequence}: {problem}"))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            if let Some(last) = filter.last {
                entries.drain(..entries.len().saturating_sub(last));
            }
            Ok(entries)
        })
    }

    /// Checks a campaign's hash chain: finds every altered, removed, reordered or cut-off entry.
    ///
    /// # Errors
    /// [`StoreError::NotFound`]; problems with the log are in the report, not errors.
    pub fn verify(&self, campaign: &str) -> Result<VerifyReport, StoreError> {
        self.read(|conn| {
            let id = campaign_id(conn, campaign)?;
            let head = log::head(conn, id)?;
            let raw = log::raw_entries(conn, id)?;
            let entries = raw.len() as u64;
            let (problems, _) = log::check_chain(raw, head.as_ref());
            Ok(VerifyReport {
                campaign: campaign.to_string(),
                entries,
                head,
                problems,
            })
        })
    }
}

pub(crate) fn saved_rolls(
    conn: &Connection,
    campaign_id: i64,
) -> Result<Vec<SavedRoll>, StoreError> {
    let mut statement = conn.prepare(
        "SELECT name, expression, params, description FROM saved_roll WHERE campaign_id = ?1 ORDER BY name",
    )?;
    let rows = statement
        .query_map([campaign_id], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, Option<String>>(3)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
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
    conn: &Connection,
    campaign_id: i64,
) -> Result<Vec<CharacterRow>, StoreError> {
    let mut statement = conn.prepare(&format!(
        "SELECT {CHARACTER_COLUMNS} FROM character WHERE campaign_id = ?1 ORDER BY name"
    ))?;
    let rows = statement.query_map([campaign_id], character_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
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
            .conn
            .pragma_query_value(None, "page_count", |row| row.get(0))
            .unwrap();
        store
            .conn
            .pragma_update(None, "max_page_count", pages)
            .unwrap();
        let roll = json!({ "action": "roll" });
        let mut last = None;
        let error = loop {
            match store.act("Tak", "Ayla", &roll, Dice::Seed(7), &Limits::default()) {
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

//! The store's one error enum: what can go wrong keeping campaigns in a database file.

use std::fmt;
use std::path::PathBuf;

use omen_lang::Diagnostic;
use omen_rules::stateful::ActionError;
use serde::Serialize;
use thiserror::Error;

/// Something the store looked for and did not find. The message names it and says how to list what
/// there is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Missing {
    Campaign { name: String },
    Character { campaign: String, name: String },
    SavedRoll { campaign: String, name: String },
    RuleSet { name: String },
    Invite { campaign: String, id: i64 },
    Entry { campaign: String, sequence: u64 },
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Missing::Campaign { name } => {
                write!(f, "no campaign `{name}`; `omen campaign list` lists them")
            }
            Missing::Character { campaign, name } => write!(
                f,
                "no character `{name}` in campaign `{campaign}`; `omen char list --campaign {campaign}` lists them"
            ),
            Missing::SavedRoll { campaign, name } => write!(
                f,
                "no saved roll `{name}` in campaign `{campaign}`; `omen saved list --campaign {campaign}` lists them"
            ),
            Missing::Invite { campaign, id } => write!(
                f,
                "no invite {id} in campaign `{campaign}`; `omen campaign invites {campaign}` lists them"
            ),
            Missing::Entry { campaign, sequence } => write!(
                f,
                "`{campaign}` has no entry {sequence}; `omen log` lists them"
            ),
            Missing::RuleSet { name } => {
                let known: Vec<&str> = omen_rules::stateful::games()
                    .iter()
                    .map(|g| g.name())
                    .collect();
                write!(
                    f,
                    "no rule set `{name}` keeps character state; the ones that do are: {}",
                    known.join(", ")
                )
            }
        }
    }
}

/// Something the store was asked to create under a name that is taken.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Existing {
    Campaign { name: String },
    Character { campaign: String, name: String },
    SavedRoll { campaign: String, name: String },
}

impl fmt::Display for Existing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Existing::Campaign { name } => write!(
                f,
                "a campaign `{name}` already exists; choose another name or rename the existing one"
            ),
            Existing::Character { campaign, name } => write!(
                f,
                "campaign `{campaign}` already has a character `{name}`; choose another name"
            ),
            Existing::SavedRoll { campaign, name } => write!(
                f,
                "campaign `{campaign}` already has a saved roll `{name}`; choose another name or replace it"
            ),
        }
    }
}

/// Why the store refused a request. Nothing was changed when one is returned.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum StoreError {
    #[error("{0}")]
    NotFound(Missing),
    #[error("{0}")]
    AlreadyExists(Existing),
    /// The rule set refused the sheet, the state or the action (every problem is listed).
    #[error(transparent)]
    Rules(#[from] ActionError),
    /// The expression or script of a roll does not compile or could not be rolled.
    #[error("{}", describe_diagnostics(.0))]
    Language(Vec<Diagnostic>),
    /// A malformed request: an empty name, a time that is not RFC 3339, an export of the wrong shape.
    #[error("{0}")]
    Invalid(String),
    /// A well-formed request that what it names is in no state for: a reveal of an entry that is
    /// not hidden, or was revealed already. Nothing was changed.
    #[error("{0}")]
    Conflict(String),
    /// A request the caller may not make of what it names (a `self` roll is its roller's alone to
    /// reveal), though the caller's role allows the kind of request.
    #[error("{0}")]
    Forbidden(String),
    /// An export that cannot be imported: not of an export's shape, or one whose log, signatures or
    /// characters do not verify. Nothing was written.
    #[error("{0}")]
    BadExport(String),
    #[error(
        "the database is read-only, so nothing was changed; check the file's permissions or choose another with --db"
    )]
    ReadOnly,
    #[error("the disk is full, so nothing was changed; free some space and try again")]
    DiskFull,
    #[error(
        "the database stayed locked by another omen for too long, so nothing was changed; try again"
    )]
    Busy,
    #[error("the database is damaged: {0}; restore it from a backup or an export")]
    Corrupt(String),
    #[error(
        "the database has schema version {found}, newer than this build of omen knows ({supported}); upgrade omen"
    )]
    NewerSchema { found: u32, supported: u32 },
    #[error("the database at `{}` cannot be opened: {message}; check the path or choose another with --db", .path.display())]
    CannotOpen { path: PathBuf, message: String },
    #[error(
        "no data directory for this user; give the database with --db or the OMEN_DB environment variable"
    )]
    NoDataDirectory,
    #[error("database error: {0}")]
    Database(String),
    /// The signing key file cannot be read, created or used.
    #[error("the signing key `{}` {message}", .path.display())]
    Key { path: PathBuf, message: String },
    /// A file that holds another program's data: refused, and left as it was.
    #[error("`{}` is not an Omen database ({what}); nothing in it was changed; choose another file with --db", .path.display())]
    Foreign { path: PathBuf, what: String },
    /// The draw commitment the caller named is no longer the next entry's: another entry was
    /// written first. Nothing was drawn.
    #[error(
        "the log moved on: the next entry's draw commitment is {current}, not {given}; read it again (`omen log head`, or GET …/head) and send the request again with fresh entropy"
    )]
    Moved { given: String, current: String },
    /// Refused after it drew dice: the attempt is logged as entry `sequence` (with `visibility`), so
    /// the dice it drew are in the log and preview nothing.
    #[error("{error} (the attempt had drawn dice, so it is logged as entry {sequence})")]
    Refused {
        sequence: u64,
        visibility: crate::audience::Visibility,
        error: Box<StoreError>,
    },
    /// A command that only reads found no database to read.
    #[error("no Omen database at {}; check --db or OMEN_DB, or create a campaign with `omen campaign new NAME`", .path.display())]
    NoDatabase { path: PathBuf },
}

fn describe_diagnostics(diagnostics: &[Diagnostic]) -> String {
    let errors: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| match &d.help {
            Some(help) => format!("{}; {help}", d.message),
            None => d.message.clone(),
        })
        .collect();
    match errors.as_slice() {
        [] => "the expression could not be rolled".to_string(),
        [one] => one.clone(),
        many => format!("{} errors:\n  - {}", many.len(), many.join("\n  - ")),
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode;
        match error.sqlite_error_code() {
            Some(ErrorCode::ReadOnly) => StoreError::ReadOnly,
            Some(ErrorCode::DiskFull) => StoreError::DiskFull,
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreError::Busy,
            Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
                StoreError::Corrupt(error.to_string().to_lowercase())
            }
            _ => StoreError::Database(error.to_string()),
        }
    }
}

impl From<postgres::Error> for StoreError {
    fn from(error: postgres::Error) -> Self {
        use postgres::error::SqlState;
        let Some(code) = error.code() else {
            return StoreError::Database(format!("PostgreSQL: {error}"));
        };
        let message = error
            .as_db_error()
            .map_or_else(|| error.to_string(), |db| db.message().to_string());
        if *code == SqlState::READ_ONLY_SQL_TRANSACTION || *code == SqlState::INSUFFICIENT_PRIVILEGE
        {
            StoreError::ReadOnly
        } else if *code == SqlState::DISK_FULL {
            StoreError::DiskFull
        } else if *code == SqlState::T_R_SERIALIZATION_FAILURE
            || *code == SqlState::T_R_DEADLOCK_DETECTED
            || *code == SqlState::LOCK_NOT_AVAILABLE
            || *code == SqlState::QUERY_CANCELED
        {
            StoreError::Busy
        } else if *code == SqlState::DATA_CORRUPTED || *code == SqlState::INDEX_CORRUPTED {
            StoreError::Corrupt(message.to_lowercase())
        } else {
            StoreError::Database(format!("PostgreSQL: {message} ({})", code.code()))
        }
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(error: serde_json::Error) -> Self {
        StoreError::Corrupt(format!("a stored JSON value does not parse: {error}"))
    }
}

impl StoreError {
    pub(crate) fn campaign(name: &str) -> Self {
        StoreError::NotFound(Missing::Campaign {
            name: name.to_string(),
        })
    }

    pub(crate) fn character(campaign: &str, name: &str) -> Self {
        StoreError::NotFound(Missing::Character {
            campaign: campaign.to_string(),
            name: name.to_string(),
        })
    }
}

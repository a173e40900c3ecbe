//! Where the campaign commands find their database: `--db`, `--key`, `--format`, and how each kind
//! of command opens it (to read, to change a campaign that exists, or to make one).

use std::path::PathBuf;

use clap::Args;
use omen_store::{Store, StoreError};

use crate::shared_args::RollFormat;

/// The database and the output format, shared by the campaign commands.
#[derive(Debug, Args)]
pub struct DbArgs {
    /// The campaign database: a SQLite file (a path or sqlite://PATH) or a PostgreSQL database
    /// (postgres://USER@HOST/DB) [default: $OMEN_DB, else omen.db in the platform data directory].
    #[arg(long, value_name = "PATH", global = true)]
    pub db: Option<PathBuf>,
    /// The signing key file [default: $OMEN_KEY, else the database's path with .key appended].
    #[arg(long, value_name = "PATH", global = true)]
    pub key: Option<PathBuf>,
    /// How to print the result.
    #[arg(long, value_enum, ignore_case = true, default_value_t = RollFormat::Text, global = true)]
    pub format: RollFormat,
}

/// The database for a command that changes a campaign already in it.
pub fn open(db: &Option<PathBuf>) -> Result<Store, StoreError> {
    open_existing(db, &None)
}

/// Opens a database that must exist: a missing SQLite file is refused before anything is made, so
/// a command that fails for want of a campaign leaves no new database (or key) behind.
pub fn open_existing(db: &Option<PathBuf>, key: &Option<PathBuf>) -> Result<Store, StoreError> {
    let database = omen_store::resolve_database(db.clone())?;
    if let omen_store::Database::Sqlite(path) = &database
        && !path.exists()
    {
        return Err(StoreError::NoDatabase { path: path.clone() });
    }
    database.open(&database.key_path(key.clone())?)
}

pub fn open_with_key(db: &Option<PathBuf>, key: &Option<PathBuf>) -> Result<Store, StoreError> {
    let database = omen_store::resolve_database(db.clone())?;
    database.open(&database.key_path(key.clone())?)
}

/// The database for a command that changes a campaign already in it.
pub fn open_write(args: &DbArgs) -> Result<Store, StoreError> {
    open_existing(&args.db, &args.key)
}

/// The database for a command that makes a campaign (created with its directory when missing).
pub fn open_to_create(args: &DbArgs) -> Result<Store, StoreError> {
    open_with_key(&args.db, &args.key)
}

/// The database for a command that only reads: nothing is created.
pub fn open_read(db: &Option<PathBuf>, key: &Option<PathBuf>) -> Result<Store, StoreError> {
    let database = omen_store::resolve_database(db.clone())?;
    database.open_read_only(&database.key_path(key.clone())?)
}

//! Where a database is: the flag, the environment or the platform's data directory, and which
//! engine the name means.

use std::path::{Path, PathBuf};

use super::{Engine, Store};
use crate::error::StoreError;

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
}

//! PostgreSQL: the connection pool, the schema's version and its migrations
//! (`migrations/postgres/`, the same versions as SQLite's, applied on open).
//!
//! The pool is r2d2's, over the synchronous `postgres` client: the store's interface is
//! synchronous (the server already calls it from blocking threads), so an async pool would need a
//! runtime and a bridge for nothing.
//!
//! Each pooled connection keeps the statements it has prepared ([`Client`]): the client's
//! `query(&str)` prepares the statement again on every call, a round trip and a parse and plan on
//! the server each time, which doubled the round trips of an action. A connection is not pinged
//! when it is taken from the pool (another round trip per transaction); one the server closed is
//! noticed by the query that fails on it, and dropped instead of going back.

use std::time::Duration;

use crate::db::{Conn, params};
use crate::error::StoreError;
use crate::pg_client::{Client, Transaction};
use crate::schema::SCHEMA_VERSION;

/// Connections to one PostgreSQL database, shared by every clone of a store.
pub(crate) type Pool = r2d2::Pool<Manager>;

/// One connection taken from the pool, given back when dropped.
pub(crate) type Connection = r2d2::PooledConnection<Manager>;

/// Opens the pool's connections (over TLS when the URL asks for it, see [`crate::tls`]) and tells
/// a broken one.
pub(crate) struct Manager {
    connector: Connector,
}

/// How to connect to one database: its settings and its TLS. The log's listener connects with it
/// too.
#[derive(Clone)]
pub(crate) struct Connector {
    config: postgres::Config,
    tls: Option<tokio_postgres_rustls::MakeRustlsConnect>,
}

impl Connector {
    /// A new connection, named `application_name` when given.
    pub(crate) fn connect(
        &self,
        application_name: Option<&str>,
    ) -> Result<postgres::Client, postgres::Error> {
        let mut config = self.config.clone();
        if let Some(name) = application_name {
            config.application_name(name);
        }
        match &self.tls {
            Some(tls) => config.connect(tls.clone()),
            None => config.connect(postgres::NoTls),
        }
    }
}

impl r2d2::ManageConnection for Manager {
    type Connection = Client;
    type Error = postgres::Error;

    fn connect(&self) -> Result<Client, postgres::Error> {
        Ok(Client::new(self.connector.connect(None)?))
    }

    fn is_valid(&self, conn: &mut Client) -> Result<(), postgres::Error> {
        conn.client.simple_query("").map(|_| ())
    }

    fn has_broken(&self, conn: &mut Client) -> bool {
        conn.client.is_closed()
    }
}

/// How many connections one store's pool opens at most (`OMEN_DB_POOL` overrides it, up to
/// [`MAX_POOL`]): a few per core serve a server's blocking threads without crowding the database,
/// whose own limit (`max_connections`, 100 by default) is shared by every process.
pub const DEFAULT_POOL: u32 = 16;
/// The ceiling of `OMEN_DB_POOL`.
pub const MAX_POOL: u32 = 256;

/// The PostgreSQL migrations, in order: one per schema version, as SQLite has.
const MIGRATIONS: &[(&str, &str)] = &[
    (
        "0001_campaigns.sql",
        include_str!("../migrations/postgres/0001_campaigns.sql"),
    ),
    (
        "0002_chain_heads.sql",
        include_str!("../migrations/postgres/0002_chain_heads.sql"),
    ),
    (
        "0003_signed_log.sql",
        include_str!("../migrations/postgres/0003_signed_log.sql"),
    ),
    (
        "0004_members.sql",
        include_str!("../migrations/postgres/0004_members.sql"),
    ),
    (
        "0005_campaign_dialect.sql",
        include_str!("../migrations/postgres/0005_campaign_dialect.sql"),
    ),
    (
        "0006_visibility.sql",
        include_str!("../migrations/postgres/0006_visibility.sql"),
    ),
    (
        "0007_web_sessions.sql",
        include_str!("../migrations/postgres/0007_web_sessions.sql"),
    ),
    (
        "0008_draws.sql",
        include_str!("../migrations/postgres/0008_draws.sql"),
    ),
    (
        "0009_discord.sql",
        include_str!("../migrations/postgres/0009_discord.sql"),
    ),
    (
        "0010_discord_gm_channel.sql",
        include_str!("../migrations/postgres/0010_discord_gm_channel.sql"),
    ),
];

/// The key every process migrating one database takes turns on (`pg_advisory_xact_lock`): "OMEN".
const MIGRATION_LOCK: i64 = 0x4f4d_454e;

/// The URL without its password, for messages.
pub(crate) fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, tail) = match rest.find('/') {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    match authority.rsplit_once('@') {
        Some((user, host)) => match user.split_once(':') {
            Some((name, _)) => format!("{scheme}://{name}:***@{host}{tail}"),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

fn pool_size() -> u32 {
    std::env::var("OMEN_DB_POOL")
        .ok()
        .and_then(|size| size.parse::<u32>().ok())
        .map_or(DEFAULT_POOL, |size| size.clamp(1, MAX_POOL))
}

/// Opens a pool on `url` and brings the schema up to date.
///
/// # Errors
/// [`StoreError::CannotOpen`] when the URL does not parse or the server cannot be reached,
/// [`StoreError::Foreign`] for a database that holds another program's tables,
/// [`StoreError::NewerSchema`].
pub(crate) fn open(url: &str) -> Result<(Pool, Connector), StoreError> {
    let cannot_open = |message: String| StoreError::CannotOpen {
        path: redact(url).into(),
        message,
    };
    let (client_url, tls) = crate::tls::split(url).map_err(cannot_open)?;
    let config: postgres::Config = client_url
        .parse()
        .map_err(|error| cannot_open(format!("the URL does not parse ({error})")))?;
    let connector = Connector {
        config,
        tls: crate::tls::connector(&tls).map_err(cannot_open)?,
    };
    let manager = Manager {
        connector: connector.clone(),
    };
    // One connection at once, for its error: the pool would retry until its timeout and then
    // report only that it timed out.
    r2d2::ManageConnection::connect(&manager)
        .map_err(|error| cannot_open(connect_error(&error, tls.mode)))?;
    let pool = r2d2::Pool::builder()
        .max_size(pool_size())
        .min_idle(Some(1))
        .test_on_check_out(false)
        .connection_timeout(Duration::from_secs(10))
        .build(manager)
        .map_err(|error| cannot_open(error.to_string()))?;
    migrate(&pool, url)?;
    Ok((pool, connector))
}

/// What a failed connection says, with a hint when TLS was what failed.
fn connect_error(error: &postgres::Error, mode: crate::tls::Mode) -> String {
    use std::error::Error;
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    if message.contains("TLS") || message.contains("certificate") {
        let hint = match mode {
            crate::tls::Mode::VerifyCa | crate::tls::Mode::VerifyFull => {
                "; the URL asks for TLS with a checked certificate (sslmode=verify-ca or verify-full): give the authority that signed the server's certificate with sslrootcert=PATH, or turn on ssl in the server's postgresql.conf if it is off"
            }
            _ => {
                "; the URL asks for TLS (sslmode=require): turn on ssl in the server's postgresql.conf, or use sslmode=disable on a network you trust"
            }
        };
        message.push_str(hint);
    }
    message
}

/// A connection from the pool.
///
/// # Errors
/// [`StoreError::Busy`] when none is free in time, [`StoreError::Database`] when the server is gone.
pub(crate) fn connection(pool: &Pool) -> Result<Connection, StoreError> {
    pool.get()
        .map_err(|error| StoreError::Database(format!("no connection to PostgreSQL: {error}")))
}

/// The schema version the database holds (0 for an empty one).
pub(crate) fn version(conn: &Conn<'_>) -> Result<u32, StoreError> {
    let exists = conn
        .query_opt(
            "SELECT 1 FROM information_schema.tables
             WHERE table_schema = current_schema() AND table_name = 'omen_schema'",
            params![],
            |_| Ok(()),
        )?
        .is_some();
    if !exists {
        return Ok(0);
    }
    Ok(conn
        .query_opt("SELECT version FROM omen_schema", params![], |row| {
            row.get::<i64>(0)
        })?
        .map_or(0, |version| u32::try_from(version).unwrap_or(u32::MAX)))
}

/// Brings the schema up to [`SCHEMA_VERSION`], one migration per transaction, with the processes
/// that open the same database at the same moment taking turns. Before the first change, the schema
/// must hold exactly Omen's tables at its version ([`crate::pg_shape::check`]).
fn migrate(pool: &Pool, url: &str) -> Result<(), StoreError> {
    let mut client = connection(pool)?;
    for (index, (name, sql)) in MIGRATIONS.iter().enumerate() {
        let to = index as u32 + 1;
        let conn = Conn::Postgres(std::cell::RefCell::new(Transaction::begin(
            &mut client,
            false,
        )?));
        conn.query_opt(
            "SELECT pg_advisory_xact_lock(?1)::text",
            params![MIGRATION_LOCK],
            |_| Ok(()),
        )?;
        let found = version(&conn)?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                found,
                supported: SCHEMA_VERSION,
            });
        }
        // Once: every later step finds what this process, or another Omen, migrated.
        if index == 0
            && let Err(what) = crate::pg_shape::check(&conn, found, MIGRATIONS)?
        {
            return Err(StoreError::Foreign {
                path: redact(url).into(),
                what,
            });
        }
        if found < to {
            let Conn::Postgres(tx) = &conn else {
                unreachable!("a PostgreSQL transaction")
            };
            let mut script = String::new();
            if found == 0 {
                script.push_str(
                    "CREATE TABLE IF NOT EXISTS omen_schema (version BIGINT NOT NULL);
                     INSERT INTO omen_schema (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM omen_schema);\n",
                );
            }
            script.push_str(sql);
            tx.borrow_mut()
                .batch_execute(&script)
                .map_err(|error| crate::pg_shape::migration_failed(name, found, &error))?;
            conn.execute("UPDATE omen_schema SET version = ?1", params![to])?;
        }
        if let Conn::Postgres(tx) = conn {
            tx.into_inner().commit()?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sqlite_migration_has_its_postgres_twin() {
        assert_eq!(MIGRATIONS.len() as u32, SCHEMA_VERSION);
        for ((name, sql), (sqlite, _)) in MIGRATIONS.iter().zip(crate::schema::migration_names()) {
            assert_eq!(name, sqlite);
            assert!(!sql.trim().is_empty());
        }
    }

    #[test]
    fn a_password_never_reaches_a_message() {
        assert_eq!(
            redact("postgres://omen:secret@db.example:5432/omen"),
            "postgres://omen:***@db.example:5432/omen"
        );
        assert_eq!(
            redact("postgres://db.example/omen"),
            "postgres://db.example/omen"
        );
        assert_eq!(
            redact("postgresql://omen@db/omen?sslmode=disable"),
            "postgresql://omen@db/omen?sslmode=disable"
        );
    }
}

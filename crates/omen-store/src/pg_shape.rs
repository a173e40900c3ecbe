//! Whether a PostgreSQL schema holds exactly Omen's tables, as SQLite's `check_ownership` asks of a
//! file: the same tables, each with the same columns (names, types and `NOT NULL`, in order), as
//! Omen's migrations up to the schema's version make. A schema that merely shares table names with
//! Omen's (another program's `campaign`, say) is refused before a migration could change it, and
//! before a migration could fail on it with PostgreSQL's own words.
//!
//! What the migrations make is measured, not written down a second time: they run on temporary
//! tables inside a savepoint that is rolled back, so the comparison follows the `.sql` files.

use std::collections::BTreeMap;

use crate::db::{Conn, params};
use crate::error::StoreError;

/// A table's columns in order, each as `name type` (with ` not null`).
type Shape = BTreeMap<String, Vec<String>>;

/// The catalogue's tables of the namespace that `namespace` (an SQL expression giving its oid)
/// names, `omen_schema` left out, with their columns. The catalogue, not `information_schema`:
/// that shows only what the role has rights on, and a role may lack rights on a table it is about
/// to be refused for.
fn shape(conn: &Conn<'_>, namespace: &str) -> Result<Shape, StoreError> {
    let rows: Vec<(String, String)> = conn.query_map(
        &format!(
            "SELECT c.relname::text,
                    a.attname::text || ' ' || format_type(a.atttypid, a.atttypmod)
                        || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
             FROM pg_catalog.pg_class AS c
             JOIN pg_catalog.pg_attribute AS a ON a.attrelid = c.oid
             WHERE c.relnamespace = ({namespace}) AND c.relkind IN ('r', 'p')
               AND c.relname <> 'omen_schema' AND a.attnum > 0 AND NOT a.attisdropped
             ORDER BY c.relname, a.attnum"
        ),
        params![],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?;
    let mut shape = Shape::new();
    for (table, column) in rows {
        shape.entry(table).or_default().push(column);
    }
    Ok(shape)
}

/// What `migrations` make, measured on temporary tables in a savepoint that is then rolled back
/// (with the search path it set): nothing of it outlives this call.
fn expected(conn: &Conn<'_>, migrations: &[(&str, &str)]) -> Result<Shape, StoreError> {
    conn.batch("SAVEPOINT omen_shape; SET LOCAL search_path = pg_temp")?;
    let mut made = Ok(());
    for (_, sql) in migrations {
        made = conn.batch(sql);
        if made.is_err() {
            break;
        }
    }
    let measured = made.and_then(|()| shape(conn, "SELECT pg_my_temp_schema()"));
    conn.batch("ROLLBACK TO SAVEPOINT omen_shape; RELEASE SAVEPOINT omen_shape")?;
    measured.map_err(|error| {
        StoreError::Database(format!(
            "cannot tell whether the database's tables are Omen's, since its migrations could not be measured on temporary tables ({error}); the role needs the TEMPORARY privilege on the database"
        ))
    })
}

/// A list of at most five names, for a message.
fn listed(names: &[&str]) -> String {
    let mut text = names[..names.len().min(5)].join(", ");
    if names.len() > 5 {
        text.push_str(", …");
    }
    text
}

/// Whether the current schema, at schema `version` (0 when it has none), holds exactly what the
/// first `version` of `migrations` make: `Ok(())`, or what it holds instead, in words that follow
/// "it is not an Omen database (…)".
pub(crate) fn check(
    conn: &Conn<'_>,
    version: u32,
    migrations: &[(&str, &str)],
) -> Result<Result<(), String>, StoreError> {
    let found = shape(
        conn,
        "SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = current_schema()",
    )?;
    if version == 0 {
        // No schema version: Omen's only when it is empty, a new database.
        let tables: Vec<&str> = found.keys().map(String::as_str).collect();
        return Ok(match tables.as_slice() {
            [] => Ok(()),
            tables => Err(format!(
                "it holds another program's tables: {}",
                listed(tables)
            )),
        });
    }
    let migrations = &migrations[..(version as usize).min(migrations.len())];
    let expected = expected(conn, migrations)?;
    let unexpected: Vec<&str> = found
        .keys()
        .filter(|table| !expected.contains_key(*table))
        .map(String::as_str)
        .collect();
    if !unexpected.is_empty() {
        return Ok(Err(format!(
            "it holds tables Omen does not make: {}",
            listed(&unexpected)
        )));
    }
    if let Some(missing) = expected.keys().find(|table| !found.contains_key(*table)) {
        return Ok(Err(format!(
            "it lacks the table `{missing}` that Omen makes at schema version {version}"
        )));
    }
    for (table, columns) in &found {
        if expected[table] != *columns {
            return Ok(Err(format!(
                "its table `{table}` has columns {}, not Omen's {}",
                columns.join(", "),
                expected[table].join(", ")
            )));
        }
    }
    Ok(Ok(()))
}

/// Why migration `name` from schema version `from` failed, in words and with the SQLSTATE, for an
/// error PostgreSQL gave.
pub(crate) fn migration_failed(name: &str, from: u32, error: &postgres::Error) -> StoreError {
    use postgres::error::SqlState;
    let code = error.code();
    let is = |states: &[&SqlState]| code.is_some_and(|code| states.contains(&code));
    let why = if is(&[&SqlState::INSUFFICIENT_PRIVILEGE]) {
        "this role may not change the database's schema (it lacks CREATE on it, or does not own its tables); open the database once as the role that made it, which upgrades it"
    } else if is(&[&SqlState::READ_ONLY_SQL_TRANSACTION]) {
        "the database is read-only here (a standby, or default_transaction_read_only); open it once on the primary"
    } else if is(&[&SqlState::DISK_FULL]) {
        "the database's disk is full; free some space and open it again"
    } else if is(&[
        &SqlState::T_R_SERIALIZATION_FAILURE,
        &SqlState::T_R_DEADLOCK_DETECTED,
        &SqlState::LOCK_NOT_AVAILABLE,
        &SqlState::QUERY_CANCELED,
    ]) {
        "the database stayed busy with other work; open it again"
    } else if is(&[
        &SqlState::DUPLICATE_TABLE,
        &SqlState::DUPLICATE_COLUMN,
        &SqlState::DUPLICATE_OBJECT,
        &SqlState::UNDEFINED_TABLE,
        &SqlState::UNDEFINED_COLUMN,
    ]) {
        "the database's tables are not the ones Omen made at that version; restore it from a backup or an export"
    } else if code.is_none() {
        "the connection to PostgreSQL failed; check that the server is up and open it again"
    } else {
        "PostgreSQL refused the change; its log says why"
    };
    let state = code.map_or(String::new(), |code| format!(" (SQLSTATE {})", code.code()));
    StoreError::Database(format!(
        "upgrading the database from schema version {from} with postgres/{name} failed, so it was left at version {from}: {why}{state}"
    ))
}

//! PostgreSQL schemas that are not Omen's are refused before anything in them changes, by their
//! tables and each table's columns (names, types, `NOT NULL`) against what Omen's migrations make at
//! the schema's version, as SQLite files are; and a migration that fails says why in words. Each
//! test makes a database of its own on `OMEN_TEST_POSTGRES_URL` ([`ScratchDatabase`]).

use omen_store::{Store, StoreError};

use crate::conformance::ScratchDatabase;

/// Omen's PostgreSQL migrations, read here rather than through the store, to build older schemas.
const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/postgres/0001_campaigns.sql"),
    include_str!("../../migrations/postgres/0002_chain_heads.sql"),
    include_str!("../../migrations/postgres/0003_signed_log.sql"),
    include_str!("../../migrations/postgres/0004_members.sql"),
    include_str!("../../migrations/postgres/0005_campaign_dialect.sql"),
    include_str!("../../migrations/postgres/0006_visibility.sql"),
    include_str!("../../migrations/postgres/0007_web_sessions.sql"),
];

/// A new schema `name` in the scratch database, made by `sql` (run with it as the search path);
/// the URL that uses it.
fn schema(scratch: &ScratchDatabase, name: &str, sql: &str) -> String {
    let mut client = postgres::Client::connect(&scratch.url, postgres::NoTls).unwrap();
    client
        .batch_execute(&format!(
            "CREATE SCHEMA {name}; SET search_path = {name}; {sql}"
        ))
        .unwrap();
    let separator = if scratch.url.contains('?') { '&' } else { '?' };
    format!("{}{separator}options=-csearch_path%3D{name}", scratch.url)
}

/// What the schema holds, table by table with its columns, to show a refusal left it as it was.
fn contents(scratch: &ScratchDatabase, name: &str) -> Vec<(String, String, String)> {
    let mut client = postgres::Client::connect(&scratch.url, postgres::NoTls).unwrap();
    client
        .query(
            "SELECT table_name::text, column_name::text, data_type::text
             FROM information_schema.columns WHERE table_schema = $1
             ORDER BY table_name, ordinal_position",
            &[&name],
        )
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get(2)))
        .collect()
}

fn refusal(url: &str) -> String {
    match Store::open_postgres_with_new_key(url) {
        Ok(_) => panic!("{url} was opened"),
        Err(error @ StoreError::Foreign { .. }) => error.to_string(),
        Err(error) => panic!("refused as {error:?}, not as foreign"),
    }
}

/// The first `version` migrations, and the schema version they leave.
fn omen_at(version: usize) -> String {
    let mut sql = MIGRATIONS[..version].join("\n");
    sql.push_str(&format!(
        "\nCREATE TABLE omen_schema (version BIGINT NOT NULL); INSERT INTO omen_schema VALUES ({version});"
    ));
    sql
}

#[test]
fn a_postgres_schema_is_omens_only_with_omens_columns_at_its_version() {
    let Some(scratch) = ScratchDatabase::new("foreign_schema") else {
        return;
    };
    // Another program's table.
    let url = schema(
        &scratch,
        "other",
        "CREATE TABLE accounts (id INT, owner TEXT)",
    );
    let said = refusal(&url);
    assert!(
        said.contains("another program's tables: accounts"),
        "{said}"
    );
    assert_eq!(
        contents(&scratch, "other"),
        [
            ("accounts".into(), "id".into(), "integer".into()),
            ("accounts".into(), "owner".into(), "text".into())
        ]
    );
    // Regression: a table that only shares Omen's name passed the check by names, and the first
    // migration then failed on it with PostgreSQL's own words.
    let url = schema(
        &scratch,
        "namesake",
        "CREATE TABLE campaign (id INT, title TEXT)",
    );
    let said = refusal(&url);
    assert!(
        said.contains("another program's tables: campaign"),
        "{said}"
    );
    assert_eq!(contents(&scratch, "namesake").len(), 2);
    // Omen's tables at version 7 but for one column of another type.
    let url = schema(
        &scratch,
        "retyped",
        &format!(
            "{}; ALTER TABLE roll_log ALTER COLUMN summary TYPE BYTEA USING summary::bytea;",
            omen_at(7)
        ),
    );
    let said = refusal(&url);
    assert!(said.contains("its table `roll_log` has columns"), "{said}");
    assert!(said.contains("summary bytea not null"), "{said}");
    assert!(said.contains("summary text not null"), "{said}");
    // A schema version that claims more than the tables hold (version 4 adds invites), or less.
    let url = schema(
        &scratch,
        "older",
        &omen_at(3).replace("VALUES (3)", "VALUES (4)"),
    );
    let said = refusal(&url);
    assert!(
        said.contains("it lacks the table `invite` that Omen makes at schema version 4"),
        "{said}"
    );
    let url = schema(
        &scratch,
        "newer",
        &omen_at(7).replace("VALUES (7)", "VALUES (3)"),
    );
    let said = refusal(&url);
    assert!(
        said.contains("it holds tables Omen does not make: invite, invite_character, web_session"),
        "{said}"
    );
    // Omen's own older schema is Omen's: it opens, and is brought up to date.
    let url = schema(&scratch, "seven", &omen_at(7));
    let store = Store::open_postgres_with_new_key(&url).unwrap();
    drop(store);
    let tables: Vec<String> = contents(&scratch, "seven")
        .into_iter()
        .map(|(table, _, _)| table)
        .collect();
    assert!(tables.iter().any(|t| t == "draw_pending"), "{tables:?}");
    // And a database Omen made opens again.
    Store::open_postgres_with_new_key(&url).unwrap();
}

/// Regression: a migration that failed gave PostgreSQL's text through "database error: …"; it says
/// now which step failed, that the database was left as it was, why in words, and the SQLSTATE.
#[test]
fn a_failed_postgres_migration_says_why_in_words() {
    let Some(scratch) = ScratchDatabase::new("worded_migration") else {
        return;
    };
    let url = schema(&scratch, "tenant", &omen_at(7));
    // A role that may read and write the tables, but neither owns them nor may create any.
    let role = format!("omen_tenant_{}", std::process::id());
    let mut admin = postgres::Client::connect(&scratch.url, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!(
            "CREATE ROLE {role} LOGIN;
             GRANT USAGE ON SCHEMA tenant TO {role};
             GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA tenant TO {role};"
        ))
        .unwrap();
    let (scheme, rest) = url.split_once("://").unwrap();
    let host = rest.split_once('@').map_or(rest, |(_, host)| host);
    let as_tenant = format!("{scheme}://{role}@{host}");
    let error = Store::open_postgres_with_new_key(&as_tenant).unwrap_err();
    let said = error.to_string();
    assert!(
        said.contains(
            "upgrading the database from schema version 7 with postgres/0008_draws.sql failed, so it was left at version 7"
        ),
        "{said}"
    );
    assert!(
        said.contains("this role may not change the database's schema"),
        "{said}"
    );
    assert!(said.contains("(SQLSTATE 42501)"), "{said}");
    assert!(
        !said.contains("permission denied"),
        "PostgreSQL's own words: {said}"
    );
    let version: i64 = admin
        .query_one("SELECT version FROM tenant.omen_schema", &[])
        .unwrap()
        .get(0);
    assert_eq!(version, 7);
    drop(admin);
    let admin_url = scratch.url.clone();
    drop(scratch);
    // The role goes once the database that held its grants has.
    if let Ok(mut client) = postgres::Client::connect(
        &admin_url.replace(&admin_url[admin_url.rfind('/').unwrap()..], "/postgres"),
        postgres::NoTls,
    ) {
        let _ = client.batch_execute(&format!("DROP ROLE IF EXISTS {role}"));
    }
}

//! The conformance suite: the store's tests that speak only through its interface run against both
//! backends. This binary runs them on SQLite; [`the_store_conforms_on_postgres`] runs this same
//! binary again, limited to those tests, with `OMEN_TEST_BACKEND=postgres`, and there every
//! [`crate::empty_store`] is a fresh schema of a database made for the run (and dropped after it).
//!
//! PostgreSQL is found through `OMEN_TEST_POSTGRES_URL` (a database the suite may connect to in
//! order to create its own; `.ci/run` starts a throwaway cluster and sets it). Without it the test
//! says so on stderr (past the test harness's capture) and, under `CI` or `OMEN_REQUIRE_POSTGRES=1`,
//! fails.

use std::io::Write;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// The modules whose tests use the interface only (files and SQLite connections of their own
/// stay SQLite in both runs).
const CONFORMANCE_MODULES: &[&str] = &[
    "actions::",
    "campaigns::",
    "characters::",
    "exchange::",
    "fairness::",
    "log::",
    "members::",
    "notify::",
    "saved::",
    "visibility::",
];

/// The database URL when this process runs the PostgreSQL half.
pub fn postgres_under_test() -> Option<String> {
    if std::env::var("OMEN_TEST_BACKEND").ok()? != "postgres" {
        return None;
    }
    std::env::var("OMEN_TEST_POSTGRES_URL").ok()
}

/// `url` with `options` added (a URL's query takes `options=-c…`).
fn with_options(url: &str, options: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}options={options}")
}

/// `url` with its database replaced by `database`.
fn with_database(url: &str, database: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let (scheme, rest) = base.split_once("://").expect("a URL");
    let host = rest.split_once('/').map_or(rest, |(host, _)| host);
    match query {
        Some(query) => format!("{scheme}://{host}/{database}?{query}"),
        None => format!("{scheme}://{host}/{database}"),
    }
}

/// A new, empty schema in the database at `url`; the URL that uses it.
pub fn fresh_schema(url: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let schema = format!("t{}", NEXT.fetch_add(1, Ordering::Relaxed));
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    client
        .batch_execute(&format!("CREATE SCHEMA {schema}"))
        .unwrap();
    with_options(url, &format!("-csearch_path%3D{schema}"))
}

/// Says loudly that PostgreSQL is not tested, past the harness's capture of `eprintln!`.
pub fn skipped(why: &str) {
    let message = format!(
        "\nSKIPPED: PostgreSQL backend not tested ({why}); set OMEN_TEST_POSTGRES_URL or run .ci/run\n"
    );
    let _ = std::io::stderr().write_all(message.as_bytes());
    let required = std::env::var_os("CI").is_some_and(|v| !v.is_empty())
        || std::env::var("OMEN_REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "PostgreSQL is required here (CI or OMEN_REQUIRE_POSTGRES=1): {why}"
    );
}

/// A database that drops itself.
pub struct ScratchDatabase {
    admin: String,
    name: String,
    /// The URL that uses it.
    pub url: String,
}

impl ScratchDatabase {
    /// A database of its own for the test `tag` on the server of `OMEN_TEST_POSTGRES_URL`; `None`
    /// (said loudly, and a failure under CI) when there is none.
    pub fn new(tag: &str) -> Option<ScratchDatabase> {
        let Ok(admin) = std::env::var("OMEN_TEST_POSTGRES_URL") else {
            skipped("OMEN_TEST_POSTGRES_URL is not set");
            return None;
        };
        let mut client = match postgres::Client::connect(&admin, postgres::NoTls) {
            Ok(client) => client,
            Err(error) => {
                skipped(&format!(
                    "cannot connect to OMEN_TEST_POSTGRES_URL: {error}"
                ));
                return None;
            }
        };
        let name = format!("omen_{tag}_{}", std::process::id());
        client
            .batch_execute(&format!(
                "CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8'"
            ))
            .unwrap();
        Some(ScratchDatabase {
            url: with_database(&admin, &name),
            admin,
            name,
        })
    }
}

impl Drop for ScratchDatabase {
    fn drop(&mut self) {
        if let Ok(mut client) = postgres::Client::connect(&self.admin, postgres::NoTls) {
            let _ = client.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

#[test]
#[cfg_attr(
    omen_no_postgres,
    ignore = "needs PostgreSQL: set OMEN_TEST_POSTGRES_URL (.ci/run starts a throwaway cluster)"
)]
fn the_store_conforms_on_postgres() {
    if postgres_under_test().is_some() {
        return; // the PostgreSQL half itself
    }
    let Ok(admin) = std::env::var("OMEN_TEST_POSTGRES_URL") else {
        skipped("OMEN_TEST_POSTGRES_URL is not set");
        return;
    };
    let mut client = match postgres::Client::connect(&admin, postgres::NoTls) {
        Ok(client) => client,
        Err(error) => {
            skipped(&format!(
                "cannot connect to OMEN_TEST_POSTGRES_URL: {error}"
            ));
            return;
        }
    };
    let name = format!("omen_conformance_{}", std::process::id());
    let scratch = ScratchDatabase {
        admin: admin.clone(),
        url: with_database(&admin, &name),
        name,
    };
    client
        .batch_execute(&format!(
            "CREATE DATABASE {} TEMPLATE template0 ENCODING 'UTF8'",
            scratch.name
        ))
        .unwrap();
    drop(client);
    let output = Command::new(std::env::current_exe().unwrap())
        .args(CONFORMANCE_MODULES)
        .args(["--test-threads", "4"])
        .env("OMEN_TEST_BACKEND", "postgres")
        .env(
            "OMEN_TEST_POSTGRES_URL",
            with_database(&admin, &scratch.name),
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the conformance suite failed on PostgreSQL:\n{stdout}\n{stderr}"
    );
    // It ran something: every module's tests, none filtered away by a renamed module.
    let passed: usize = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("test result: ok. "))
        .filter_map(|rest| rest.split(' ').next()?.parse::<usize>().ok())
        .sum();
    assert!(
        passed >= 60,
        "only {passed} tests ran on PostgreSQL:\n{stdout}"
    );
}

#[test]
fn urls_take_another_database_and_options() {
    assert_eq!(
        with_database("postgres://omen@127.0.0.1:5432/omen_test", "scratch"),
        "postgres://omen@127.0.0.1:5432/scratch"
    );
    assert_eq!(
        with_database("postgres://omen@h/x?sslmode=disable", "y"),
        "postgres://omen@h/y?sslmode=disable"
    );
    assert_eq!(
        with_options("postgres://h/x", "-csearch_path%3Dt0"),
        "postgres://h/x?options=-csearch_path%3Dt0"
    );
}

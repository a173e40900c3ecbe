//! omen-store's integration tests: one binary, one module per area.

mod actions;
mod campaigns;
mod characters;
mod conformance;
mod draws;
mod exchange;
mod fairness;
mod fairness_bounds;
mod foreign_files;
mod foreign_postgres;
mod forgery;
mod key_directory;
mod log;
mod members;
mod notify;
mod processes;
mod saved;
mod self_rolls;
mod state_versions;
mod storage;
mod visibility;

use std::path::{Path, PathBuf};

use omen_core::Limits;
use omen_store::{Dice, Store};
use serde_json::{Value, json};

pub const CAMPAIGN: &str = "Tak";
pub const HERO: &str = "Ayla";

/// A halfling's luck sheet: a permanent +2.
pub fn halfling() -> Value {
    json!({ "intrinsic": [{ "source": "halfling", "value": 2 }] })
}

pub fn luck_roll(event_modifier: i64) -> Value {
    json!({ "action": "roll", "event_modifier": event_modifier })
}

/// A store holding campaign `Tak` with the halfling `Ayla`.
pub fn prepare(store: &mut Store) {
    store.create_campaign(CAMPAIGN).unwrap();
    store
        .create_character(CAMPAIGN, HERO, "luck", &halfling())
        .unwrap();
}

/// A prepared store on the backend under test (see [`empty_store`]).
pub fn memory_store() -> Store {
    let mut store = empty_store();
    prepare(&mut store);
    store
}

/// An empty store with a key of its own on the backend under test: SQLite in memory, or, when this
/// binary runs as the PostgreSQL half of the conformance suite (see `conformance.rs`), a fresh
/// schema of the database that suite made.
pub fn empty_store() -> Store {
    try_empty_store().unwrap()
}

pub fn try_empty_store() -> Result<Store, omen_store::StoreError> {
    match conformance::postgres_under_test() {
        Some(url) => Store::open_postgres_with_new_key(&conformance::fresh_schema(&url)),
        None => Store::open_in_memory(),
    }
}

/// A store in a file of its own, prepared.
pub fn file_store() -> (tempfile::TempDir, PathBuf, Store) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("omen.db");
    let mut store = Store::open(&path).unwrap();
    prepare(&mut store);
    (dir, path, store)
}

/// `count` seeded luck rolls for `Ayla`, with seeds 1, 2, 3, …
pub fn roll_times(store: &mut Store, count: u64) {
    for _ in 1..=count {
        store
            .act(
                CAMPAIGN,
                HERO,
                &luck_roll(0),
                Dice::Derived,
                &Limits::default(),
            )
            .unwrap();
    }
}

/// A second connection to the file, for changing it behind the store's back.
pub fn raw(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}

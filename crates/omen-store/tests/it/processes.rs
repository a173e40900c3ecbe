//! Real processes on one database file: this test binary runs itself again as the writers.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use omen_core::Limits;
use omen_store::{Dice, LogFilter, Store};
use serde_json::json;

use crate::{CAMPAIGN, HERO, file_store, luck_roll};

const DB: &str = "OMEN_STORE_TEST_DB";
const WRITER: &str = "OMEN_STORE_TEST_WRITER";
const READY: &str = "OMEN_STORE_TEST_READY";

/// Starts this test binary running only the ignored test `name`, with `envs`.
fn spawn(name: &str, envs: &[(&str, String)]) -> Child {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            name,
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (key, value) in envs {
        command.env(key, value);
    }
    command.spawn().unwrap()
}

/// The path in `key`, set only when a parent test started this process.
fn env_path(key: &str) -> Option<PathBuf> {
    std::env::var_os(key).map(PathBuf::from)
}

const WRITERS: usize = 4;
const ACTIONS: usize = 12;

/// One writer: `ACTIONS` actions on Ayla, alternating a modifier of its own and a seeded roll.
#[test]
#[ignore = "run by concurrent_writers_never_lose_an_update"]
fn child_writer() {
    // Run by hand (`--ignored`) there is no parent and nothing to do.
    let Some(path) = env_path(DB) else { return };
    let writer: usize = std::env::var(WRITER).unwrap().parse().unwrap();
    let mut store = Store::open(&path).unwrap();
    for index in 0..ACTIONS {
        let action = if index % 2 == 0 {
            json!({ "action": "add-modifier", "source": format!("writer {writer} action {index}"), "value": 0 })
        } else {
            luck_roll(0)
        };
        let dice = if index % 2 == 0 {
            Dice::Given(vec![])
        } else {
            Dice::Derived
        };
        store
            .act(CAMPAIGN, HERO, &action, dice, &Limits::default())
            .unwrap();
    }
}

fn wait_success(child: Child) {
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "a writer failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn concurrent_writers_never_lose_an_update() {
    let (_dir, path, store) = file_store();
    drop(store);
    let children: Vec<Child> = (0..WRITERS)
        .map(|writer| {
            spawn(
                "processes::child_writer",
                &[
                    (DB, path.display().to_string()),
                    (WRITER, writer.to_string()),
                ],
            )
        })
        .collect();
    for child in children {
        wait_success(child);
    }
    let store = Store::open(&path).unwrap();
    let entries = store.log(&LogFilter::default()).unwrap();
    assert_eq!(entries.len(), 1 + WRITERS * ACTIONS);
    let report = store.verify(CAMPAIGN).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    // Every entry's state before is the state the entry before left: no update was lost.
    let replay = store.replay(CAMPAIGN, &Limits::default()).unwrap();
    assert!(replay.is_ok(), "{:?}", replay.problems);
    let state = store.character(CAMPAIGN, HERO).unwrap().state;
    let modifiers = state["intrinsic"].as_array().unwrap();
    // The halfling's +2 and every writer's modifiers.
    assert_eq!(modifiers.len(), 1 + WRITERS * ACTIONS / 2);
    for writer in 0..WRITERS {
        for index in (0..ACTIONS).step_by(2) {
            let source = format!("writer {writer} action {index}");
            assert!(
                modifiers.iter().any(|m| m["source"] == source.as_str()),
                "{source}"
            );
        }
    }
    assert_eq!(entries.last().unwrap().state_after.as_ref(), Some(&state));
}

/// Starts a roll, signals that its writes are made but not committed, and waits to be killed.
#[test]
#[ignore = "run by a_killed_writer_leaves_the_last_state_intact"]
fn child_stalled_writer() {
    let (Some(path), Some(ready)) = (env_path(DB), env_path(READY)) else {
        return;
    };
    let mut store = Store::open(&path).unwrap();
    store.set_before_commit(Some(Box::new(move || {
        std::fs::write(&ready, "writing").unwrap();
        std::thread::sleep(Duration::from_secs(60));
    })));
    let _ = store.act(
        CAMPAIGN,
        HERO,
        &luck_roll(0),
        Dice::Derived,
        &Limits::default(),
    );
    panic!("the writer was not killed");
}

fn wait_for(path: &Path, child: &mut Child) {
    let start = Instant::now();
    while !path.exists() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the writer ended before it was ready: {status}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the writer never got ready"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_killed_writer_leaves_the_last_state_intact() {
    let (dir, path, mut store) = file_store();
    crate::roll_times(&mut store, 3);
    let state = store.character(CAMPAIGN, HERO).unwrap().state;
    let entries = store.log(&LogFilter::default()).unwrap();
    drop(store);
    let ready = dir.path().join("ready");
    let mut child = spawn(
        "processes::child_stalled_writer",
        &[
            (DB, path.display().to_string()),
            (READY, ready.display().to_string()),
        ],
    );
    wait_for(&ready, &mut child);
    child.kill().unwrap();
    child.wait().unwrap();
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.character(CAMPAIGN, HERO).unwrap().state, state);
    assert_eq!(store.log(&LogFilter::default()).unwrap(), entries);
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
    // The lock died with the writer: the next action goes through and chains on.
    let entry = store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Derived,
            &Limits::default(),
        )
        .unwrap();
    assert_eq!(entry.sequence, entries.len() as u64 + 1);
    assert_eq!(entry.state_before.as_ref(), Some(&state));
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
}

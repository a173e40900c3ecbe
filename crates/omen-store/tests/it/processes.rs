//! Real processes on one database file: this test binary runs itself again as the writers.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use omen_core::Limits;
use omen_store::{Dice, LogFilter, Store};
use serde_json::json;

use crate::{CAMPAIGN, HERO, file_store, luck_roll, prepare};

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
        let action = if index.is_multiple_of(2) {
            json!({ "action": "add-modifier", "source": format!("writer {writer} action {index}"), "value": 0 })
        } else {
            luck_roll(0)
        };
        let dice = if index.is_multiple_of(2) {
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

// -------------------------------------------------------------------------------------------------
// Many writer processes killed with SIGKILL over and over, on both engines.

const TARGET: &str = "OMEN_STORE_TEST_TARGET";
const KEY: &str = "OMEN_STORE_TEST_KEY";

/// The campaigns the killed writers share: `Tak` (everyone acts on its one character, Ayla) and
/// these, each with a character `Hero`, which the writers spread over.
const OTHERS: &[&str] = &["North", "South", "East", "West"];
/// Writer processes alive at once.
const LIVE_WRITERS: usize = 4;
/// How long the load runs: a few seconds, the kills every [`KILL_EVERY`].
const LOAD: Duration = Duration::from_secs(2);
const KILL_EVERY: Duration = Duration::from_millis(100);

/// Opens the database a parent named: a SQLite file or a `postgres://` URL.
fn open_target(target: &str, key: &Path) -> Store {
    if target.starts_with("postgres") {
        Store::open_postgres(target, key).unwrap()
    } else {
        Store::open_with_key(Path::new(target), key).unwrap()
    }
}

/// One writer: actions until it is killed (or, should its parent be gone, for 60 s), alternating
/// Ayla of `Tak` and the hero of another campaign; one action in four adds a modifier named after
/// the writer and the action (few, so the states stay small and the checks quick), the others are
/// derived rolls. Each action is acknowledged on stdout once `act` returned,
/// with the entry's campaign, sequence number, hash and modifier: what a client would have been
/// told.
#[test]
#[ignore = "run by killed_writers_of_many_processes_lose_no_acknowledged_action"]
fn child_acknowledging_writer() {
    use std::io::Write;
    let (Ok(target), Some(key)) = (std::env::var(TARGET), env_path(KEY)) else {
        return;
    };
    let writer: usize = std::env::var(WRITER).unwrap().parse().unwrap();
    let mut store = open_target(&target, &key);
    let start = Instant::now();
    let mut index = 0usize;
    while start.elapsed() < Duration::from_secs(60) {
        let (campaign, character) = if index.is_multiple_of(2) {
            (CAMPAIGN, HERO)
        } else {
            (OTHERS[(writer + index / 2) % OTHERS.len()], "Hero")
        };
        let source = format!("writer {writer} of {} action {index}", std::process::id());
        let (action, dice) = if index.is_multiple_of(4) {
            (
                json!({ "action": "add-modifier", "source": source, "value": 0 }),
                Dice::Given(vec![]),
            )
        } else {
            (luck_roll(0), Dice::Derived)
        };
        let entry = store
            .act(campaign, character, &action, dice, &Limits::default())
            .unwrap();
        let modifier = if index.is_multiple_of(4) {
            source.as_str()
        } else {
            "-"
        };
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "ack\t{campaign}\t{}\t{}\t{modifier}",
            entry.sequence, entry.hash
        )
        .unwrap();
        out.flush().unwrap();
        index += 1;
    }
}

/// An action a writer was told was done.
#[derive(Debug)]
struct Acknowledged {
    campaign: String,
    sequence: u64,
    hash: String,
    modifier: Option<String>,
}

/// A running writer and the thread that gathers its acknowledgements.
struct Writer {
    child: Child,
    reader: std::thread::JoinHandle<Vec<Acknowledged>>,
}

fn start_writer(target: &str, key: &Path, writer: usize) -> Writer {
    use std::io::BufRead;
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "processes::child_acknowledging_writer",
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(TARGET, target)
        .env(KEY, key)
        .env(WRITER, writer.to_string())
        // A couple of connections per process: they wait on the campaign's lock anyway.
        .env("OMEN_DB_POOL", "2")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = command.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .filter_map(|line| {
                let fields: Vec<&str> = line.strip_prefix("ack\t")?.split('\t').collect();
                // A line cut by the kill is not an acknowledgement.
                let [campaign, sequence, hash, modifier] = fields[..] else {
                    return None;
                };
                Some(Acknowledged {
                    campaign: campaign.to_string(),
                    sequence: sequence.parse().ok()?,
                    hash: hash.to_string(),
                    modifier: (modifier != "-").then(|| modifier.to_string()),
                })
            })
            .collect()
    });
    Writer { child, reader }
}

/// Kills `writer` with SIGKILL, wherever it is; what it had acknowledged.
fn kill(mut writer: Writer) -> Vec<Acknowledged> {
    writer.child.kill().unwrap();
    writer.child.wait().unwrap();
    writer.reader.join().unwrap()
}

/// Writers at work on `target` for [`LOAD`], one killed every [`KILL_EVERY`] and replaced; then
/// every acknowledged action must be in the log, each campaign's numbers must run without a gap,
/// the chain and signatures verify, and each character's state is what the replay of its entries
/// gives, with every acknowledged modifier in it.
fn killed_writers_lose_nothing(target: &str, key: &Path) {
    let mut store = open_target(target, key);
    prepare(&mut store);
    for campaign in OTHERS {
        store.create_campaign(campaign).unwrap();
        store
            .create_character(campaign, "Hero", "luck", &crate::halfling())
            .unwrap();
    }
    drop(store);
    let mut next_writer = 0;
    let mut writers: Vec<Writer> = (0..LIVE_WRITERS)
        .map(|_| {
            next_writer += 1;
            start_writer(target, key, next_writer)
        })
        .collect();
    let mut acknowledged = Vec::new();
    let mut kills = 0;
    let start = Instant::now();
    while start.elapsed() < LOAD {
        std::thread::sleep(KILL_EVERY);
        let victim = writers.remove(kills % writers.len());
        acknowledged.extend(kill(victim));
        kills += 1;
        next_writer += 1;
        writers.push(start_writer(target, key, next_writer));
    }
    for writer in writers {
        acknowledged.extend(kill(writer));
    }
    assert!(
        acknowledged.len() >= 10,
        "the writers got little done ({} actions, {kills} kills): the test shows nothing",
        acknowledged.len()
    );

    let store = open_target(target, key);
    for campaign in std::iter::once(&CAMPAIGN).chain(OTHERS) {
        let filter = LogFilter {
            campaign: Some(campaign.to_string()),
            ..LogFilter::default()
        };
        let entries = store.log(&filter).unwrap();
        let numbers: Vec<u64> = entries.iter().map(|entry| entry.sequence).collect();
        assert_eq!(
            numbers,
            (1..=entries.len() as u64).collect::<Vec<_>>(),
            "{campaign}: the numbers run without a gap"
        );
        for ack in acknowledged.iter().filter(|ack| ack.campaign == *campaign) {
            let logged = entries
                .get(ack.sequence as usize - 1)
                .unwrap_or_else(|| panic!("acknowledged {ack:?} is lost"));
            assert_eq!(logged.hash, ack.hash, "acknowledged {ack:?} was replaced");
        }
        let report = store.verify(campaign).unwrap();
        assert!(report.is_ok(), "{campaign}: {:?}", report.problems);
        let replay = store.replay(campaign, &Limits::default()).unwrap();
        assert!(replay.is_ok(), "{campaign}: {:?}", replay.problems);
        let character = if *campaign == CAMPAIGN { HERO } else { "Hero" };
        let state = store.character(campaign, character).unwrap().state;
        let last = entries
            .iter()
            .rev()
            .find(|entry| entry.character.as_deref() == Some(character))
            .unwrap();
        assert_eq!(last.state_after.as_ref(), Some(&state), "{campaign}");
        let sources: Vec<&str> = state["intrinsic"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|modifier| modifier["source"].as_str())
            .collect();
        for ack in acknowledged.iter().filter(|ack| ack.campaign == *campaign) {
            if let Some(modifier) = &ack.modifier {
                assert!(sources.contains(&modifier.as_str()), "{modifier} is lost");
            }
        }
    }
}

#[test]
fn killed_writers_of_many_processes_lose_no_acknowledged_action_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("omen.db");
    killed_writers_lose_nothing(&path.display().to_string(), &dir.path().join("omen.key"));
}

#[test]
#[cfg_attr(
    omen_no_postgres,
    ignore = "needs PostgreSQL: set OMEN_TEST_POSTGRES_URL (.ci/run starts a throwaway cluster)"
)]
fn killed_writers_of_many_processes_lose_no_acknowledged_action_on_postgres() {
    let Some(scratch) = crate::conformance::ScratchDatabase::new("killed_writers") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    killed_writers_lose_nothing(&scratch.url, &dir.path().join("omen.key"));
}

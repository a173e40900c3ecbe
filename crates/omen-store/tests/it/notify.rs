//! The log's notifications ([`Store::listen`]): on PostgreSQL every committed entry is announced
//! (campaign and sequence number, once each, none for a transaction that rolled back), and a
//! listener whose connection is cut reconnects and says so; on SQLite there is nothing to listen to.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use omen_core::Limits;
use omen_store::{Dice, LogSignal, Store};

use crate::{empty_store, halfling, luck_roll};

/// A campaign name no other test of the conformance suite uses: notifications are per database,
/// and the suite's other tests write to the same one (each in a schema of its own).
const CAMPAIGN: &str = "Heard";

/// Generous: a notification normally arrives within milliseconds.
const PATIENCE: Duration = Duration::from_secs(30);

/// The next signal that is about this test (another campaign's news is skipped), or a panic after
/// [`PATIENCE`].
fn next(signals: &mpsc::Receiver<LogSignal>) -> LogSignal {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match signals.recv_timeout(left) {
            Ok(LogSignal::Appended { campaign, .. }) if campaign != CAMPAIGN => {}
            Ok(signal) => return signal,
            Err(error) => panic!("no signal from the listener within {PATIENCE:?}: {error}"),
        }
    }
}

fn appended(sequence: u64) -> LogSignal {
    LogSignal::Appended {
        campaign: CAMPAIGN.to_string(),
        sequence,
    }
}

fn roll(store: &mut Store) -> u64 {
    store
        .act(
            CAMPAIGN,
            "Ayla",
            &luck_roll(0),
            Dice::Derived,
            &Limits::default(),
        )
        .unwrap()
        .sequence
}

#[test]
fn committed_entries_are_announced_once_and_a_cut_listener_reconnects() {
    let mut store = empty_store();
    let (sender, signals) = mpsc::channel();
    let listener = store
        .listen(move |signal| {
            let _ = sender.send(signal);
        })
        .unwrap();
    let Some(_listener) = listener else {
        // SQLite: one process, which announces its own writes.
        assert!(crate::conformance::postgres_under_test().is_none());
        return;
    };
    assert_eq!(next(&signals), LogSignal::Resync, "listening begins");
    store.create_campaign(CAMPAIGN).unwrap();
    store
        .create_character(CAMPAIGN, "Ayla", "luck", &halfling())
        .unwrap();
    roll(&mut store);
    // A transaction that wrote its entry and then rolled back announces nothing: the next entry
    // takes its number, and a leaked notification would show as that number twice.
    store.set_before_commit(Some(Box::new(|| panic!("the process dies before commit"))));
    let died = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| roll(&mut store)));
    assert!(died.is_err());
    store.set_before_commit(None);
    let last = roll(&mut store);
    assert!(last >= 2);
    for sequence in 1..=last {
        assert_eq!(next(&signals), appended(sequence));
    }

    // The listener's connection is cut (a restarted database, a dropped network): it says so,
    // reconnects, says that it did (entries may have gone unannounced meanwhile), and goes on.
    let url = crate::conformance::postgres_under_test().unwrap();
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let cut = admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()
               AND application_name = 'omen-listen'",
            &[],
        )
        .unwrap();
    assert!(cut >= 1, "the listener's connection was found");
    assert!(matches!(next(&signals), LogSignal::Interrupted { .. }));
    assert_eq!(next(&signals), LogSignal::Resync);
    assert_eq!(roll(&mut store), last + 1);
    assert_eq!(next(&signals), appended(last + 1));
}

/// The listener connects as the URL says, as the pool does: asked for `sslmode=verify-full` with
/// the cluster's authority, its connection (seen from the server, in a database of its own so that
/// no other test's listener is counted) is encrypted and hears every entry; asked for
/// `sslmode=disable`, it is not encrypted.
#[test]
#[cfg_attr(
    omen_no_postgres_tls,
    ignore = "needs PostgreSQL with TLS: set OMEN_TEST_POSTGRES_URL and OMEN_TEST_POSTGRES_CA (.ci/run does)"
)]
fn the_listener_connects_over_tls_as_the_url_asks() {
    if crate::conformance::postgres_under_test().is_some() {
        return; // a test of its own database, run once
    }
    let Some(scratch) = crate::conformance::ScratchDatabase::new("tls_listen") else {
        return;
    };
    let Ok(authority) = std::env::var("OMEN_TEST_POSTGRES_CA") else {
        crate::conformance::skipped("OMEN_TEST_POSTGRES_CA is not set: no TLS for the listener");
        return;
    };
    let root =
        percent_encoding::utf8_percent_encode(&authority, percent_encoding::NON_ALPHANUMERIC);
    let database = scratch.url.rsplit('/').next().unwrap().to_string();
    // One key for both stores on the database: the campaign's log is signed with it.
    let keys = tempfile::tempdir().unwrap();
    let key = keys.path().join("omen.key");
    let mut heard = 0;
    for (mode, encrypted) in [
        (format!("sslmode=verify-full&sslrootcert={root}"), true),
        ("sslmode=disable".to_string(), false),
    ] {
        let mut store = Store::open_postgres(&format!("{}?{mode}", scratch.url), &key)
            .unwrap_or_else(|error| panic!("{mode}: {error}"));
        let (sender, signals) = mpsc::channel();
        let listener = store
            .listen(move |signal| {
                let _ = sender.send(signal);
            })
            .unwrap()
            .expect("a listener on PostgreSQL");
        assert_eq!(next(&signals), LogSignal::Resync, "{mode}");
        let mut admin = postgres::Client::connect(&scratch.url, postgres::NoTls).unwrap();
        let seen: Vec<bool> = admin
            .query(
                "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
                 WHERE a.datname = $1 AND a.application_name = $2",
                &[&database, &"omen-listen"],
            )
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect();
        assert_eq!(seen, [encrypted], "{mode}");
        if store.campaign(CAMPAIGN).is_err() {
            store.create_campaign(CAMPAIGN).unwrap();
            store
                .create_character(CAMPAIGN, "Ayla", "luck", &halfling())
                .unwrap();
        }
        let sequence = roll(&mut store);
        // Every new entry is heard in order, the character's creation among them, up to the roll.
        for earlier in heard + 1..=sequence {
            assert_eq!(next(&signals), appended(earlier), "{mode}");
        }
        heard = sequence;
        // The listener stops within a poll once dropped; wait for its connection to go, so that
        // the next mode counts its own listener alone.
        drop(listener);
        drop(store);
        let deadline = Instant::now() + PATIENCE;
        while admin
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2",
                &[&database, &"omen-listen"],
            )
            .unwrap()
            .get::<_, i64>(0)
            > 0
        {
            assert!(Instant::now() < deadline, "the listener never disconnected");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

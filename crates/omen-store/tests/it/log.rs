use omen_core::Limits;
use omen_store::{Dice, LogEntry, LogFilter, Store};
use rusqlite::params;

use crate::{CAMPAIGN, HERO, file_store, luck_roll, memory_store, raw, roll_times};

fn problems(store: &Store) -> Vec<(Option<u64>, String)> {
    store
        .verify(CAMPAIGN)
        .unwrap()
        .problems
        .into_iter()
        .map(|p| (p.sequence, p.problem))
        .collect()
}

#[test]
fn an_intact_chain_verifies() {
    let mut store = memory_store();
    roll_times(&mut store, 5);
    let report = store.verify(CAMPAIGN).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.entries, 6);
    let entries = store.log(&LogFilter::default()).unwrap();
    assert_eq!(entries[0].previous_hash, omen_store::GENESIS_HASH);
    for pair in entries.windows(2) {
        assert_eq!(pair[1].previous_hash, pair[0].hash);
        assert_eq!(pair[1].sequence, pair[0].sequence + 1);
    }
    let head = report.head.unwrap();
    assert_eq!((head.sequence, head.hash), (6, entries[5].hash.clone()));
}

#[test]
fn verify_names_an_altered_entry() {
    let (_dir, path, mut store) = file_store();
    roll_times(&mut store, 5);
    raw(&path)
        .execute(
            "UPDATE roll_log SET result = '{\"die\":50}' WHERE sequence = 3",
            [],
        )
        .unwrap();
    let found = problems(&store);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, Some(3));
    assert!(found[0].1.contains("altered"), "{found:?}");
}

#[test]
fn verify_names_a_removed_entry() {
    let (_dir, path, mut store) = file_store();
    roll_times(&mut store, 5);
    raw(&path)
        .execute("DELETE FROM roll_log WHERE sequence = 3", [])
        .unwrap();
    let found = problems(&store);
    assert_eq!(found[0].0, Some(4), "{found:?}");
    assert!(found[0].1.contains("entry 3 is missing"), "{found:?}");
}

#[test]
fn verify_names_reordered_entries() {
    let (_dir, path, mut store) = file_store();
    roll_times(&mut store, 5);
    let conn = raw(&path);
    conn.execute_batch(
        "UPDATE roll_log SET sequence = 1000 WHERE sequence = 3;
         UPDATE roll_log SET sequence = 3 WHERE sequence = 4;
         UPDATE roll_log SET sequence = 4 WHERE sequence = 1000;",
    )
    .unwrap();
    let found = problems(&store);
    let named: Vec<Option<u64>> = found.iter().map(|p| p.0).collect();
    assert!(
        named.contains(&Some(3)) && named.contains(&Some(4)),
        "{found:?}"
    );
}

#[test]
fn verify_detects_a_cut_off_tail() {
    let (_dir, path, mut store) = file_store();
    roll_times(&mut store, 5);
    raw(&path)
        .execute("DELETE FROM roll_log WHERE sequence >= 5", [])
        .unwrap();
    let found = problems(&store);
    // The head names the cut-off entry (and Ayla's state, when the cut rolls changed it).
    assert!(found.len() <= 2, "{found:?}");
    assert_eq!(found[0].0, Some(6));
    assert!(
        found[0]
            .1
            .contains("the log ends at entry 4 but its head names entry 6"),
        "{found:?}"
    );
    assert!(
        found[1..]
            .iter()
            .all(|p| p.1.contains("character `Ayla`'s state")),
        "{found:?}"
    );
}

#[test]
fn verify_detects_a_removed_head() {
    let (_dir, path, mut store) = file_store();
    roll_times(&mut store, 2);
    raw(&path).execute("DELETE FROM chain_head", []).unwrap();
    let found = problems(&store);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].1.contains("no chain head"), "{found:?}");
}

#[test]
fn replay_confirms_every_result_and_state() {
    let mut store = memory_store();
    roll_times(&mut store, 10);
    let report = store.replay(CAMPAIGN, &Limits::default()).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!((report.entries, report.replayed), (11, 11));
}

/// Rewrites entry `sequence` with `change` and every later hash, as someone who knows the hash recipe
/// but not the key would: verify finds the signatures broken, and replay finds what no dice give.
fn rewrite(path: &std::path::Path, store: &Store, sequence: u64, change: impl Fn(&mut LogEntry)) {
    let mut entries = store.log(&LogFilter::default()).unwrap();
    let conn = raw(path);
    let mut previous = entries[sequence as usize - 2].hash.clone();
    for entry in entries.iter_mut().skip(sequence as usize - 1) {
        if entry.sequence == sequence {
            change(entry);
        }
        entry.previous_hash = previous;
        entry.hash = entry.compute_hash();
        previous = entry.hash.clone();
        conn.execute(
            "UPDATE roll_log SET result = ?1, state_after = ?2, state_before = ?3, previous_hash = ?4, hash = ?5 WHERE sequence = ?6",
            params![
                entry.result.to_string(),
                entry.state_after.as_ref().map(ToString::to_string),
                entry.state_before.as_ref().map(ToString::to_string),
                entry.previous_hash,
                entry.hash,
                entry.sequence as i64
            ],
        )
        .unwrap();
    }
    conn.execute("UPDATE chain_head SET hash = ?1", [previous])
        .unwrap();
}

#[test]
fn replay_finds_a_result_the_dice_do_not_give() {
    let (_dir, path, mut store) = file_store();
    for _ in 0..3 {
        store
            .act(
                CAMPAIGN,
                HERO,
                &luck_roll(0),
                Dice::Given(vec![25]),
                &Limits::default(),
            )
            .unwrap();
    }
    // A 25 is no event; entry 3 now claims good luck, and every hash after it is made to match.
    rewrite(&path, &store, 3, |entry| {
        entry.result["outcome"] = "good".into()
    });
    assert!(
        problems(&store)
            .iter()
            .any(|(sequence, problem)| *sequence == Some(3)
                // A luck roll's result and states are partly the game master's: the salted
                // commitment of that part catches the rewrite, as the signature does elsewhere.
                && (problem.contains("signature") || problem.contains("does not match its commitment"))),
        "{:?}",
        problems(&store)
    );
    let report = store.replay(CAMPAIGN, &Limits::default()).unwrap();
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert_eq!(report.problems[0].sequence, Some(3));
    assert!(
        report.problems[0].problem.contains("the result"),
        "{:?}",
        report.problems
    );
    assert_eq!(report.replayed, 3);
}

#[test]
fn replay_finds_a_state_that_does_not_follow() {
    let (_dir, path, mut store) = file_store();
    roll_times(&mut store, 4);
    rewrite(&path, &store, 3, |entry| {
        let before = entry.state_before.as_mut().unwrap();
        before["intrinsic"] = serde_json::json!([]);
    });
    assert!(
        problems(&store)
            .iter()
            .any(|(sequence, problem)| *sequence == Some(3)
                // A luck roll's result and states are partly the game master's: the salted
                // commitment of that part catches the rewrite, as the signature does elsewhere.
                && (problem.contains("signature") || problem.contains("does not match its commitment"))),
        "{:?}",
        problems(&store)
    );
    let report = store.replay(CAMPAIGN, &Limits::default()).unwrap();
    let named: Vec<Option<u64>> = report.problems.iter().map(|p| p.sequence).collect();
    assert!(named.contains(&Some(3)), "{:?}", report.problems);
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.problem.contains("not the state entry 2 left")),
        "{:?}",
        report.problems
    );
}

#[test]
fn the_log_lists_by_character_action_and_time() {
    let (_dir, path, mut store) = file_store();
    store
        .create_character(CAMPAIGN, "Borin", "luck", &serde_json::json!({}))
        .unwrap();
    roll_times(&mut store, 3);
    store
        .act(
            CAMPAIGN,
            "Borin",
            &luck_roll(0),
            Dice::Derived,
            &Limits::default(),
        )
        .unwrap();
    let only = |filter: LogFilter| store.log(&filter).unwrap();
    let borin = only(LogFilter {
        character: Some("Borin".into()),
        ..LogFilter::default()
    });
    assert_eq!(
        borin.iter().map(|e| e.action.as_str()).collect::<Vec<_>>(),
        ["create", "roll"]
    );
    let rolls = only(LogFilter {
        action: Some("roll".into()),
        ..LogFilter::default()
    });
    assert_eq!(rolls.len(), 4);
    let ayla_rolls = only(LogFilter {
        character: Some(HERO.into()),
        action: Some("roll".into()),
        ..LogFilter::default()
    });
    assert_eq!(ayla_rolls.len(), 3);
    let last = only(LogFilter {
        last: Some(2),
        ..LogFilter::default()
    });
    assert_eq!(last.iter().map(|e| e.sequence).collect::<Vec<_>>(), [5, 6]);
    // Move the first three entries to 2026-01-01 (their hashes break, the listing does not care).
    raw(&path)
        .execute(
            "UPDATE roll_log SET time = '2026-01-01T10:00:00.000Z' WHERE sequence <= 3",
            [],
        )
        .unwrap();
    let january = only(LogFilter {
        since: Some("2026-01-01".into()),
        until: Some("2026-01-02".into()),
        ..LogFilter::default()
    });
    assert_eq!(january.len(), 3);
    let later = only(LogFilter {
        since: Some("2026-01-01T10:00:00.001Z".into()),
        ..LogFilter::default()
    });
    assert_eq!(later.len(), 3);
    let bad = store.log(&LogFilter {
        since: Some("last week".into()),
        ..LogFilter::default()
    });
    assert!(bad.unwrap_err().to_string().contains("is not a time"));
    let unknown = store.log(&LogFilter {
        campaign: Some("Nowhere".into()),
        ..LogFilter::default()
    });
    assert!(unknown.is_err());
}

#[test]
fn statistics_count_dice_per_session() {
    let (_dir, path, mut store) = file_store();
    for face in [50, 50, 1] {
        store
            .act(
                CAMPAIGN,
                HERO,
                &luck_roll(0),
                Dice::Given(vec![face]),
                &Limits::default(),
            )
            .unwrap();
    }
    let rolled = omen_store::roll_expression(
        "2d6",
        &Default::default(),
        &Dice::Given(vec![3, 6]),
        &Limits::default(),
    )
    .unwrap();
    store.log_roll(CAMPAIGN, None, rolled.record).unwrap();
    // The creation and the first roll were on another day: another session.
    raw(&path)
        .execute(
            "UPDATE roll_log SET time = '2026-01-01T20:00:00.000Z' WHERE sequence <= 2",
            [],
        )
        .unwrap();
    let sessions = store.statistics(&LogFilter::default()).unwrap();
    assert_eq!(sessions.len(), 2);
    let (first, second) = (&sessions[0], &sessions[1]);
    assert_eq!(first.session, "2026-01-01");
    assert_eq!((first.entries, first.rolls, first.dice), (2, 1, 1));
    assert_eq!((second.entries, second.rolls, second.dice), (3, 3, 4));
    let dice: Vec<(&str, u64, i64)> = second
        .by_die
        .iter()
        .map(|d| (d.die.as_str(), d.rolled, d.sum))
        .collect();
    assert_eq!(dice, [("d6", 2, 9), ("d50", 2, 51)]);
    let d50 = &second.by_die[1];
    assert_eq!(d50.mean, 25.5);
    assert_eq!(d50.expected_mean, Some(25.5));
    assert_eq!(
        d50.faces
            .iter()
            .map(|f| (f.face, f.count))
            .collect::<Vec<_>>(),
        [(1, 1), (50, 1)]
    );
    let only_rolls = store
        .statistics(&LogFilter {
            action: Some("roll".into()),
            ..LogFilter::default()
        })
        .unwrap();
    assert_eq!(only_rolls.iter().map(|s| s.dice).sum::<u64>(), 3);
}

//! What a table waits for: one stateful action (a transaction on a file database), and checking or
//! replaying a long log.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use omen_core::Limits;
use omen_store::{Dice, Store};
use serde_json::json;

fn store_with_log(dir: &std::path::Path, entries: u64) -> Store {
    let mut store = Store::open(&dir.join("omen.db")).unwrap();
    store.create_campaign("Tak").unwrap();
    store
        .create_character("Tak", "Ayla", "luck", &json!({}))
        .unwrap();
    let roll = json!({ "action": "roll", "event_modifier": -5 });
    for _ in 0..entries {
        store
            .act("Tak", "Ayla", &roll, Dice::Derived, &Limits::default())
            .unwrap();
    }
    store
}

fn actions(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = store_with_log(dir.path(), 0);
    let roll = json!({ "action": "roll", "event_modifier": -5 });
    let limits = Limits::default();
    let mut group = c.benchmark_group("store");
    group.sample_size(20);
    group.bench_function(
        "act: a luck roll, one transaction on a file database",
        |b| {
            b.iter(|| {
                black_box(
                    store
                        .act("Tak", "Ayla", &roll, Dice::Derived, &limits)
                        .unwrap(),
                )
            })
        },
    );
    let long = tempfile::tempdir().unwrap();
    let store = store_with_log(long.path(), 1000);
    group.bench_function("verify a 1000-entry log", |b| {
        b.iter(|| black_box(store.verify("Tak").unwrap()))
    });
    group.bench_function("replay a 1000-entry log", |b| {
        b.iter(|| black_box(store.replay("Tak", &limits).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, actions);
criterion_main!(benches);

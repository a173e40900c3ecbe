//! Issue 23, hole 3 from the store's side: a fairness report spends a bounded total, stops when
//! cancelled, remembers its distributions; and what its verdicts can see (their power), checked
//! against an enumeration of every count vector done here with integers.

use std::sync::Arc;

use omen_core::{Cancel, Limits};
use omen_store::{
    Dice, FairnessCache, FairnessOptions, LogFilter, RollRequest, Store, Verdict, Viewer,
};

const CAMPAIGN: &str = "Tak";

fn store() -> Store {
    let mut store = crate::empty_store();
    store.create_campaign(CAMPAIGN).unwrap();
    store
}

fn roll(store: &mut Store, expression: &str, dice: Dice) {
    store
        .submit_roll(RollRequest::expression(CAMPAIGN, expression).with_dice(dice))
        .unwrap();
}

/// The options of a server whose computations may each spend `budget`, with a total of `total`.
fn bounded(budget: u64, total: u64) -> FairnessOptions {
    FairnessOptions {
        limits: Limits {
            work_budget: budget,
            ..Limits::default()
        },
        total_budget: Some(total),
        cache: None,
    }
}

fn tally(store: &Store) -> omen_store::FairnessTally {
    store
        .fairness_tally_for(CAMPAIGN, &LogFilter::default(), &Viewer::GameMaster)
        .unwrap()
}

fn reason(verdict: &Verdict) -> &str {
    match verdict {
        Verdict::Untested { reason } => reason,
        _ => "",
    }
}

#[test]
fn the_fairness_report_spends_a_bounded_budget() {
    // Sixteen different expressions, each computable under a budget of 10^9 and refused under
    // half that (400d100's distribution costs between the two): a report may spend four budgets
    // in all and is charged what each computation spent, more than 5·10^8 for each computed one,
    // so fewer than eight get computed and the rest are reported as over the budget.
    let mut store = store();
    for k in 0..16 {
        let expression = format!("(400d100)>={}", 20000 + k);
        roll(&mut store, &expression, Dice::Given(vec![50; 400]));
    }
    let budget = 1_000_000_000;
    let report = tally(&store).report(&bounded(budget, 4 * budget));
    let mechanics = &report.whole.mechanics;
    assert_eq!(mechanics.len(), 16);
    let over: Vec<_> = mechanics
        .iter()
        .filter(|m| reason(&m.verdict).starts_with("not checked: over the budget"))
        .collect();
    // Computed: its distribution is known (too large to test exactly, as it happens: 100^400
    // outcomes' weights overflow the test's integers, which the report finds only by computing).
    let computed = mechanics
        .iter()
        .filter(|m| !reason(&m.verdict).starts_with("not checked"))
        .count();
    assert!(computed < 8, "{computed} computed: {mechanics:#?}");
    assert_eq!(over.len() + computed, 16, "{mechanics:#?}");
    // Without a total (the CLI) every one is computed: the bound is the total's.
    let mut one = store_with_one("(400d100)>=20000");
    let unbounded = tally(&one).report(&FairnessOptions {
        limits: Limits {
            work_budget: budget,
            ..Limits::default()
        },
        ..FairnessOptions::local()
    });
    assert_eq!(
        reason(&unbounded.whole.mechanics[0].verdict),
        "its distribution's weights are too large to test"
    );
    // Under the server's default budget of 5·10^8 it is over the budget of one computation, and
    // says so rather than failing the report.
    roll(&mut one, "3d6", Dice::Given(vec![1, 2, 3]));
    let report = tally(&one).report(&bounded(500_000_000, 2_000_000_000));
    let heavy = &report.whole.mechanics[0];
    assert!(
        reason(&heavy.verdict).starts_with("not checked: over the budget"),
        "{heavy:#?}"
    );
    assert!(!report.whole.mechanics[1].outcomes.is_empty());
}

fn store_with_one(expression: &str) -> Store {
    let mut store = store();
    roll(&mut store, expression, Dice::Given(vec![50; 400]));
    store
}

#[test]
fn a_cancelled_fairness_report_computes_nothing_more() {
    let mut store = store();
    for _ in 0..30 {
        roll(&mut store, "3d6", Dice::Given(vec![3, 4, 5]));
    }
    let cancel = Cancel::new();
    cancel.cancel();
    let mut options = bounded(500_000_000, 2_000_000_000);
    options.limits.cancel = cancel;
    let report = tally(&store).report(&options);
    for mechanic in &report.whole.mechanics {
        assert_eq!(
            reason(&mechanic.verdict),
            "not checked: the report was cancelled"
        );
    }
    for die in &report.whole.dice {
        assert_eq!(
            reason(&die.verdict),
            "not checked: the report was cancelled"
        );
    }
}

#[test]
fn a_repeated_fairness_report_computes_no_distribution_again() {
    let mut store = store();
    for faces in [[1, 2, 3], [6, 6, 6], [2, 2, 5]] {
        roll(&mut store, "3d6", Dice::Given(faces.to_vec()));
        roll(&mut store, "2d6+1", Dice::Given(faces[..2].to_vec()));
    }
    let cache = Arc::new(FairnessCache::new());
    let options = FairnessOptions {
        cache: Some(cache.clone()),
        ..bounded(500_000_000, 2_000_000_000)
    };
    let first = tally(&store).report(&options);
    assert_eq!(cache.computed(), 2);
    assert_eq!(cache.len(), 2);
    let second = tally(&store).report(&options);
    assert_eq!(cache.computed(), 2, "the second report computed again");
    // The same report (its p-values summed in another order by the exact test's walk may differ
    // in the last bits, so compared as read).
    let read = |report: &omen_store::FairnessReport| {
        report
            .whole
            .mechanics
            .iter()
            .map(|m| (m.outcomes.clone(), m.summary.clone(), m.power.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(read(&first), read(&second));
    // Other limits are another key: computed anew.
    let other = FairnessOptions {
        cache: Some(cache.clone()),
        ..bounded(400_000_000, 2_000_000_000)
    };
    tally(&store).report(&other);
    assert_eq!(cache.computed(), 4);
}

/// n! for small n.
fn factorial(n: u32) -> u128 {
    (1..=u128::from(n)).product()
}

/// Every count vector (a, b, c, d) of `rolls` rolls of a d4.
fn count_vectors(rolls: u32) -> Vec<[u32; 4]> {
    let mut vectors = Vec::new();
    for a in 0..=rolls {
        for b in 0..=rolls - a {
            for c in 0..=rolls - a - b {
                vectors.push([a, b, c, rolls - a - b - c]);
            }
        }
    }
    vectors
}

#[test]
fn the_power_of_twenty_d4_rolls_is_what_every_count_vector_says() {
    // Twenty rolls of a d4, five of each face.
    let mut store = store();
    for face in 1..=4 {
        for _ in 0..5 {
            roll(&mut store, "1d4", Dice::Given(vec![face]));
        }
    }
    let report = store.fairness(CAMPAIGN, &LogFilter::default()).unwrap();
    let d4 = &report.whole.dice[0];
    assert_eq!(d4.die, "d4");
    assert_eq!(d4.power.len(), 2);
    // By integers: a vector's fair probability is its multinomial coefficient M over 4^20; the
    // exact test rejects it when the vectors no more likely than it (M' ≤ M) sum to under
    // 1/1000 of 4^20.
    let rolls = 20;
    let vectors = count_vectors(rolls);
    let coefficient =
        |v: &[u32; 4]| factorial(rolls) / v.iter().map(|&k| factorial(k)).product::<u128>();
    let all: u128 = 4u128.pow(rolls);
    let rejected: Vec<&[u32; 4]> = vectors
        .iter()
        .filter(|v| {
            let m = coefficient(v);
            let no_more_likely: u128 = vectors
                .iter()
                .map(coefficient)
                .filter(|&other| other <= m)
                .sum();
            1000 * no_more_likely < all
        })
        .collect();
    assert!(!rejected.is_empty());
    // Never a 4: faces 1–3 a third each, so P = M / 3^20 for vectors without a 4.
    let never: u128 = rejected
        .iter()
        .filter(|v| v[3] == 0)
        .map(|v| coefficient(v))
        .sum();
    let never = never as f64 / 3f64.powi(20);
    // A 4 twice as often: 1/2 for the 4, 1/6 for each other face: P = M · 3^d / 6^20.
    let twice: u128 = rejected
        .iter()
        .map(|v| coefficient(v) * 3u128.pow(v[3]))
        .sum();
    let twice = twice as f64 / 6f64.powi(20);
    let by_name = |name: &str| {
        d4.power
            .iter()
            .find(|p| p.alternative == name)
            .unwrap_or_else(|| panic!("{:#?}", d4.power))
    };
    let never_shown = by_name("one that never shows 4");
    assert_eq!(never_shown.method, "exact");
    assert!(
        (never_shown.power - never).abs() < 1e-9,
        "{never_shown:?} against {never}"
    );
    let doubled = by_name("one that shows 4 twice as often");
    assert!(
        (doubled.power - twice).abs() < 1e-9,
        "{doubled:?} against {twice}"
    );
    assert!(
        never_shown.text.starts_with(
            "with 20 rolls of d4 this test tells a fair die from one that never shows 4"
        ),
        "{}",
        never_shown.text
    );
}

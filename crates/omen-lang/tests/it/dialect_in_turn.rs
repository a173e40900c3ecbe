//! Avrae's dice operations in turn, against d20's own procedure run in `d20_emulator` (written from
//! the library's documentation, never from Omen): every term of one or two operations on 3d4 with a
//! spread of selectors, and random terms of three, must be read with d20's meaning (an explosion
//! cut at the depth allowed for on both sides), and the roller must agree with the exact engine.

use num_traits::Zero;
use proptest::prelude::*;

use crate::d20_emulator::{Op, Sel, distribution, written};
use crate::dialect_support::{reading, rolled, roller_agrees};
use crate::dialects::{Fractions, Q, omen, omen_truncated, rolled_dice};
use crate::tape::{differs, one_or_two};

fn ops() -> Vec<Op> {
    use Sel::*;
    let mut out = Vec::new();
    for (word, sels) in [
        (
            "k",
            vec![High(1), Low(1), High(2), Is(2), Above(2), Below(3)],
        ),
        ("p", vec![High(1), Low(1), Is(1), Above(3), Below(2)]),
        ("rr", vec![Is(1), Below(2), Above(3)]),
        ("ro", vec![Is(1), High(1), Low(1), Above(3), Below(3)]),
        ("ra", vec![Is(4), High(1), Low(1), Above(2)]),
        ("e", vec![Is(4), Above(3), High(1), Low(1)]),
        ("mi", vec![Is(2)]),
        ("ma", vec![Is(3)]),
    ] {
        for sel in sels {
            out.push(Op { word, sel });
        }
    }
    out
}

/// Whether Omen reads the term as d20 runs it: the difference at every total is at most what the
/// two cut at the explosion depth.
fn agrees(count: usize, sides: i64, case: &[Op]) -> Result<(), String> {
    let source = written(count, sides, case);
    let (reference, cut) = distribution(count, sides, case, 10);
    let (got, truncated) = omen_truncated("avrae", &source)
        .map_err(|kinds| format!("{source}: refused, {kinds:?}"))?;
    let slack: Q = cut + truncated;
    differs(&source, &got, &reference, &slack).map_or(Ok(()), Err)
}

#[test]
fn every_term_of_one_or_two_operations_means_what_d20_runs() {
    let all = ops();
    let (cases, wrong) = one_or_two(&all, |_| true, |case| agrees(3, 4, case));
    assert_eq!(cases, 870);
    assert!(
        wrong.is_empty(),
        "{} of {cases}:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn terms_of_three_operations_mean_what_d20_runs(
        count in 1usize..=3,
        picks in prop::collection::vec(0usize..34, 3),
    ) {
        let all = ops();
        let case: Vec<Op> = picks.iter().map(|&i| all[i % all.len()]).collect();
        // An explosion after a drop re-explodes every kept die on the point, and its walk of kept
        // faces may spend the work budget (`3d4e4ph1e4`): a refusal with a limit, never another
        // reading.
        if let Err(why) = agrees(count, 4, &case)
            && !why.ends_with("refused, [\"work-budget\"]")
        {
            prop_assert!(false, "{}", why);
        }
    }
}

/// The exact engine's distribution and the roller walked along every sequence of dice agree.

#[test]
fn the_roller_runs_the_operations_as_the_exact_engine_counts_them() {
    for source in [
        "3d4ma3rr1",
        "3d4ro1ro2",
        "3d4mi2kh1ro1",
        "3d4roh1rol1",
        "3d4ph1kh1",
        "3d4kh2ra4ro1",
        "3d4rol1ral1",
        "2d4kh1kl1ro<3",
        "3d4p1rr<2",
    ] {
        roller_agrees("avrae", source);
    }
}

#[test]
fn a_term_that_needs_its_operations_in_turn_reads_so() {
    for (source, read) in [
        ("4d6kh3e6ro1", "avrae(\"4d6kh3e6ro1\")"),
        ("4d6ro1ro2", "avrae(\"4d6ro1ro2\")"),
        ("4D6MA3RR1", "avrae(\"4d6ma3rr1\")"),
        (
            "1d20+4d6mi2ro1 [fire]",
            "(1d20) + (avrae(\"4d6mi2ro1\")[fire])",
        ),
        ("3d6eh1", "avrae(\"3d6eh1\")"),
        ("d%ro<20ro>80", "avrae(\"1d%ro<20ro>80\")"),
    ] {
        assert_eq!(reading("avrae", source), read, "{source}");
    }
    // One operation, or one then keeps, keep Omen's own reading.
    assert_eq!(reading("avrae", "4d6kh3"), "4d6kh3");
    assert_eq!(reading("avrae", "4d6ro1kh3"), "4d6ro=1kh3");
}

#[test]
fn the_function_reads_in_omens_notation_and_refuses_what_d20_cannot_run() {
    let mean = |source: &str, dialect: &str| {
        let d = omen(dialect, source).expect("computed");
        d.iter().map(|(v, p)| v * p).sum::<Q>()
    };
    // d20 joins `ro1ro2` into one reroll of the dice showing 1 or 2: each die 2/3 × 9/2 + 1/3 × 7/2.
    assert_eq!(
        mean("avrae(\"4d6ro1ro2\")", "omen"),
        Q::new(50.into(), 3.into())
    );
    assert_eq!(mean("4d6ro1ro2", "avrae"), Q::new(50.into(), 3.into()));
    // The clamp is done once: the dice `rr1` rolls are not clamped (1 never stays; 2 to 6 alike).
    assert_eq!(
        mean("avrae(\"4d6ma3rr1\")", "omen"),
        Q::new(12.into(), 1.into())
    );
    for (source, kind) in [
        ("avrae(\"4d6rrh1\")", "unsupported-modifier"),
        ("avrae(\"4d6mih1\")", "unsupported-modifier"),
        ("avrae(\"4d6rr<7\")", "reroll-everything"),
        ("avrae(\"4d6kh3x\")", "bad-d20-term"),
        ("avrae(\"d\")", "bad-d20-term"),
        ("avrae(4)", "bad-d20-term"),
        ("avrae(\"200000d6ro1ro2\")", "too-many-dice"),
        ("avrae(\"4d0ro1\")", "no-sides"),
    ] {
        let kinds = omen("omen", source).expect_err(source);
        assert_eq!(kinds, vec![kind], "{source}");
    }
}

/// The transcript shows what each operation did to each die, the kept dice marked beside dropped
/// ones only.
#[test]
fn the_transcript_marks_what_each_operation_did() {
    // 1, 4, 5: the 1 is rerolled to 6, then the highest two kept.
    assert_eq!(
        rolled_dice("avrae", "avrae(\"3d6ro1kh2\")", vec![1, 4, 5, 6]),
        vec![
            (6, vec!["rerolled", "kept"]),
            (4, vec!["dropped"]),
            (5, vec!["kept"])
        ]
    );
    // 5, 2 capped at 3, then a 6 added for the die showing 3.
    assert_eq!(
        rolled_dice("avrae", "avrae(\"2d6ma3ra3\")", vec![5, 2, 6]),
        vec![(3, vec!["clamped", "exploded"]), (2, vec![]), (6, vec![])]
    );
}

/// d20's keeps and drops on a set, two and three in a row of every kind: whatever Omen's own reading
/// does not compute runs in turn, and every one gives the total d20 keeps, over every roll of the
/// members `(1d3, 2, 1d3 + 1)`.
#[test]
fn keeps_and_drops_on_a_set_mean_what_d20_runs() {
    use Sel::*;
    let ops: Vec<Op> = [
        (
            "k",
            vec![High(1), Low(1), High(2), Is(2), Above(2), Below(3)],
        ),
        ("p", vec![High(1), Low(1), Is(2), Above(2), Below(3)]),
    ]
    .into_iter()
    .flat_map(|(word, sels)| sels.into_iter().map(move |sel| Op { word, sel }))
    .collect();
    let mut wrong = Vec::new();
    let mut cases: Vec<Vec<Op>> = Vec::new();
    for a in &ops {
        for b in &ops {
            cases.push(vec![*a, *b]);
            cases.extend(ops.iter().map(|c| vec![*a, *b, *c]));
        }
    }
    for case in cases {
        {
            let source = format!(
                "(1d3, 2, 1d3 + 1){}",
                crate::d20_emulator::written_ops(&case)
            );
            let mut want = Fractions::new();
            for x in 1..=3 {
                for y in 1..=3 {
                    let total = crate::d20_emulator::set_total(&[x, 2, y + 1], &case);
                    *want
                        .entry(Q::from_integer(total.into()))
                        .or_insert_with(Q::zero) += Q::new(1.into(), 9.into());
                }
            }
            match omen("avrae", &source) {
                Ok(got) if got == want => {}
                other => wrong.push(format!("{source}: {other:?}, d20 {want:?}")),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(
        reading("avrae", "(1, 2, 3)k1kh1"),
        "avrae_set((1, 2, 3), \"k1kh1\")"
    );
    assert_eq!(
        rolled("avrae", "(1d3, 2, 1d4)k>1pl1", 1_000),
        omen("avrae", "(1d3, 2, 1d4)k>1pl1").expect("computed")
    );
    for (source, kind) in [
        ("avrae_set((1, 2), \"ro1\")", "bad-d20-term"),
        ("avrae_set((1, 2), \"k1x\")", "bad-d20-term"),
        ("avrae_set(3, \"k1\")", "bad-d20-term"),
        ("avrae_set((1, true), \"k1\")", "type-mismatch"),
    ] {
        assert_eq!(
            omen("omen", source).expect_err(source),
            vec![kind],
            "{source}"
        );
    }
}

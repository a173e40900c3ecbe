//! Foundry's dice modifiers in turn, against Foundry's own procedure run in `foundry_emulator`
//! (written from Foundry's `Die` class, never from Omen): every term of one or two modifiers on
//! 3d4 with a spread of points, caps and counts, and random terms of three, must be read with
//! Foundry's meaning (a chain cut at the depth allowed for on both sides), whether Omen's own
//! notation reads the term or it runs as `foundry("…")`; and the roller must agree with the exact
//! engine.

use proptest::prelude::*;

use crate::dialect_support::{reading, roller_agrees};
use crate::dialects::{Fractions, Q, omen, omen_truncated};
use crate::foundry_emulator::{
    Kind, Op, Pt, distribution, distribution_of, splits_as_written, written,
};
use crate::tape::{differs, one_or_two};

fn ops() -> Vec<Op> {
    use Kind::*;
    let op = |text, kind| Op { text, kind };
    vec![
        op("r", Reroll(None, Pt("=", 1), false)),
        op("r<3", Reroll(None, Pt("<", 3), false)),
        op("rr1", Reroll(None, Pt("=", 1), true)),
        op("rr>=4", Reroll(None, Pt(">=", 4), true)),
        op("r1=1", Reroll(Some(1), Pt("=", 1), false)),
        op("r2<3", Reroll(Some(2), Pt("<", 3), false)),
        op("rr1<3", Reroll(Some(1), Pt("<", 3), true)),
        op("x", Explode(None, Pt("=", 4), true)),
        op("x>=3", Explode(None, Pt(">=", 3), true)),
        op("xo", Explode(None, Pt("=", 4), false)),
        op("xo>=3", Explode(None, Pt(">=", 3), false)),
        op("x1>=3", Explode(Some(1), Pt(">=", 3), true)),
        op("x2=4", Explode(Some(2), Pt("=", 4), true)),
        op("xo1>=3", Explode(Some(1), Pt(">=", 3), false)),
        op("kh2", Keep(2, true)),
        op("kl", Keep(1, false)),
        op("k", Keep(1, true)),
        op("dl", Drop(1, false)),
        op("dh2", Drop(2, true)),
        op("d", Drop(1, false)),
        op("min2", Min(2)),
        op("max3", Max(3)),
        op("min4", Min(4)),
        op("cs>=3", CountSuccess(Pt(">=", 3))),
        op("cs", CountSuccess(Pt("=", 4))),
        op("cf<2", CountFailure(Pt("<", 2))),
        op("cf", CountFailure(Pt("=", 1))),
        op("df=1", Deduct(Some(Pt("=", 1)))),
        op("df", Deduct(None)),
        op("sf<3", Subtract(Some(Pt("<", 3)))),
        op("sf", Subtract(None)),
        op("even", Even),
        op("odd", Odd),
        op("ms>=5", MarginSuccess(5)),
        op("ms<=6", MarginFailure(6)),
    ]
}

/// Whether Omen reads the term as Foundry runs it: the difference at every total is at most what
/// the two cut at the depth.
fn agrees(count: usize, sides: i64, case: &[Op]) -> Result<(), String> {
    let source = written(count, sides, case);
    let (reference, cut) = distribution(count, sides, case, 8);
    let (got, truncated) = omen_truncated("foundry", &source)
        .map_err(|kinds| format!("{source}: refused, {kinds:?}"))?;
    let slack: Q = cut + truncated;
    differs(&source, &got, &reference, &slack).map_or(Ok(()), Err)
}

#[test]
fn every_term_of_one_or_two_modifiers_means_what_foundry_runs() {
    let all = ops();
    let (cases, wrong) = one_or_two(&all, splits_as_written, |case| agrees(3, 4, case));
    assert_eq!(cases, 1252);
    assert!(
        wrong.is_empty(),
        "{} of {cases}:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn terms_of_three_modifiers_mean_what_foundry_runs(
        count in 1usize..=3,
        picks in prop::collection::vec(0usize..35, 3),
    ) {
        let all = ops();
        let case: Vec<Op> = picks.iter().map(|&i| all[i]).collect();
        prop_assume!(splits_as_written(&case));
        // Several explosions, each walking every result so far, may spend the work budget: a
        // refusal with a limit, never another reading.
        if let Err(why) = agrees(count, 4, &case)
            && !why.ends_with("refused, [\"work-budget\"]")
        {
            prop_assert!(false, "{}", why);
        }
    }
}

/// The exact engine's distribution and the roller walked along every sequence of dice agree.
#[test]
fn the_roller_runs_the_modifiers_as_the_exact_engine_counts_them() {
    for source in [
        "3d4max3x4kh2",
        "3d4kh2r1=1",
        "3d4r<3r1=1",
        "3d4cs>=3rdf",
        "3d4dlkh1",
        "2d4min3max2",
        "3d4kh2rr1<3",
        "2d4x1>=3r1=1",
        "2d3xo3x2r1",
        "2d3rr1x3x2",
        "2d3cs>=2x",
    ] {
        roller_agrees("foundry", source);
    }
}

#[test]
fn a_term_omens_notation_cannot_order_runs_as_foundry_runs_it() {
    for (source, read) in [
        ("3d6max5xkh2", "foundry(\"3d6max5x=6kh2\")"),
        ("6d6cs>3df", "foundry(\"6d6cs>3df\")"),
        ("4d6dlkh2 + 1", "foundry(\"4d6dl1kh2\") + 1"),
        ("3d6min5max3kh2", "foundry(\"3d6min5max3kh2\")"),
    ] {
        assert_eq!(reading("foundry", source), read, "{source}");
    }
    // What Omen's notation reads as Foundry does stays in it.
    assert_eq!(reading("foundry", "3d6kh2"), "3d6kh2");
    // Six dice, two counts: Foundry's second count sets every count again.
    assert_eq!(omen("foundry", "6d6cs>=5cf=1"), omen("omen", "6d6=1"),);
}

#[test]
fn the_function_refuses_what_is_not_a_foundry_term() {
    for (source, kind) in [
        ("foundry(\"3d6zz\")", "bad-foundry-term"),
        ("foundry(\"3d6r<>3\")", "bad-foundry-term"),
        ("foundry(3)", "bad-foundry-term"),
        ("foundry(\"3d6rr<7\")", "reroll-everything"),
    ] {
        assert_eq!(omen("omen", source), Err(vec![kind]), "{source}");
    }
}

/// A term Omen's notation cannot order, read as `foundry("…")` with Foundry's meaning: against the
/// emulator, which cuts a sequence at `cap` dice (the difference at each total at most what the two
/// cut).
pub(crate) fn runs_as_foundry(source: &str, cap: usize) {
    let read = reading("foundry", source);
    assert!(read.starts_with("foundry(\""), "{source} reads {read}");
    let (reference, cut) = distribution_of(source, cap);
    let (got, truncated) = omen_truncated("foundry", source).expect("computed");
    let slack: Q = cut + truncated;
    if let Some(why) = differs(source, &got, &reference, &slack) {
        panic!("{why}");
    }
}

/// Without a keep, a drop or a cap, each die meets the modifiers on its own, and the exact engine
/// sums alike dice: twenty dice take the time of one. Against the emulator's one die, summed here.
#[test]
fn many_dice_without_keeps_or_caps_sum_what_one_die_runs() {
    for (source, one, count) in [
        ("20d20r1r2", "1d20r1r2", 20),
        ("12d6cs>=5df=1r", "1d6cs>=5df=1r", 12),
        ("10d8rr1x", "1d8rr1x", 10),
    ] {
        let (die, cut) = distribution_of(one, 8);
        let mut sum = Fractions::from([(Q::from_integer(0.into()), Q::from_integer(1.into()))]);
        for _ in 0..count {
            let mut next = Fractions::new();
            for (a, p) in &sum {
                for (b, q) in &die {
                    *next
                        .entry(a + b)
                        .or_insert_with(|| Q::from_integer(0.into())) += p * q;
                }
            }
            sum = next;
        }
        let (got, truncated) = omen_truncated("foundry", source).expect("computed");
        let slack: Q = cut * Q::from_integer(count.into()) + truncated;
        if let Some(why) = differs(source, &got, &sum, &slack) {
            panic!("{why}");
        }
        assert!(
            reading("foundry", source).starts_with("foundry(\""),
            "{source}"
        );
    }
}

/// Several explosions that explode one another's dice again, with a reroll or a count that keeps
/// them in turn: each die and the dice it rolls followed alone, against Foundry's procedure.
#[test]
fn several_explosions_exploding_one_anothers_dice_mean_what_foundry_runs() {
    for source in ["2d4rr1x4x3", "2d4x3xo4r1", "1d4cs>=3x4x3x4", "1d3r1x3x2"] {
        runs_as_foundry(source, 10);
        // The emulator's cut leaves the comparison its meaning.
        let (_, cut) = distribution_of(source, 10);
        assert!(cut < Q::new(1.into(), 100.into()), "{source}: {cut}");
    }
}

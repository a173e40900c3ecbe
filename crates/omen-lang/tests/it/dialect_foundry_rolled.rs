//! Foundry's terms whose count or sides are rolled first (`(1d3)d4r1=1r2=1`, `2d(1d2+3)xkh1`): the
//! count and sides are rolled, then the modifiers run in turn on that many dice of that many sides.
//! Checked against `foundry_emulator` (Foundry's procedure, written from its `Die` class) mixed by
//! hand over every count and sides, and the roller against the exact engine.

use num_bigint::BigInt;
use num_traits::Zero;

use crate::dialect_support::{reading, roller_agrees};
use crate::dialects::{Fractions, Q, omen, omen_truncated, q};
use crate::foundry_emulator::distribution_of;
use crate::tape::differs;

/// Modifier runs that Omen's notation cannot order, and some it can, with a bare `x` and `cs`
/// whose point is the highest face of whatever die is rolled.
const MODIFIERS: [&str; 9] = [
    "r1=1r2=1",
    "xkh1",
    "kh1x",
    "rr1x",
    "x",
    "cs",
    "cs>=3df",
    "min2max3kh1",
    "r1=1kh1",
];

/// The emulator's distribution of `mods` on each count and sides, mixed by their chances
/// (`(count, sides, chance)`), and the chance the emulator's cut at 8 dice left out.
fn mixed(cases: &[(usize, i64, Q)], mods: &str) -> (Fractions, Q) {
    let mut out = Fractions::new();
    let mut cut = Q::zero();
    for (count, sides, chance) in cases {
        let (dist, left) = distribution_of(&format!("{count}d{sides}{mods}"), 8);
        cut += chance * left;
        for (total, p) in dist {
            *out.entry(total).or_insert_with(Q::zero) += chance * p;
        }
    }
    out.retain(|_, p| !p.is_zero());
    (out, cut)
}

fn agrees(source: &str, cases: &[(usize, i64, Q)], mods: &str) {
    let (reference, cut) = mixed(cases, mods);
    let (got, truncated) = omen_truncated("foundry", source).expect("computed");
    if let Some(why) = differs(source, &got, &reference, &(cut + truncated)) {
        panic!("{why}");
    }
}

#[test]
fn a_rolled_count_runs_the_modifiers_on_each_count_it_shows() {
    let counts: Vec<(usize, i64, Q)> = (1..=3).map(|k| (k, 4, q(1, 3))).collect();
    for mods in MODIFIERS {
        agrees(&format!("(1d3)d4{mods}"), &counts, mods);
    }
}

#[test]
fn rolled_sides_give_each_die_its_own_highest_face() {
    let sides: Vec<(usize, i64, Q)> = (4..=5).map(|s| (2, s, q(1, 2))).collect();
    for mods in MODIFIERS {
        agrees(&format!("2d(1d2+3){mods}"), &sides, mods);
    }
    // Both rolled: the count first, then the sides, each once for the term.
    let both: Vec<(usize, i64, Q)> = [(1, 3), (1, 4), (2, 3), (2, 4)]
        .into_iter()
        .map(|(k, s)| (k, s, q(1, 4)))
        .collect();
    agrees("(1d2)d(1d2+2)rr1x", &both, "rr1x");
}

#[test]
fn a_rolled_term_reads_as_the_function_only_where_its_modifiers_need_it() {
    for (source, read) in [
        ("(1d3)d6r1=1r2=1", "foundry(1d3, 6, \"r1=1r2=1\")"),
        ("2d(1d4+2)r1=1kh1", "foundry(2, (1d4) + 2, \"r1=1kh1\")"),
        ("d(1d4+2)rr1x + 1", "foundry(1, (1d4) + 2, \"rr1x\") + 1"),
        ("(1d4)d6xkh2", "(1d4)d6!kh2"),
    ] {
        assert_eq!(reading("foundry", source), read, "{source}");
    }
    // Other dialects keep their own reading of the same text.
    assert_eq!(
        omen("roll20", "(1d3)d6r1=1r2=1"),
        omen("omen", "(1d3)d6r1=1r2=1")
    );
    // The three-argument function, written out, means the same as the term.
    assert_eq!(
        omen("omen", "foundry(1d3, 4, \"rr1x\")"),
        omen("foundry", "(1d3)d4rr1x")
    );
}

#[test]
fn the_roller_runs_a_rolled_term_as_the_exact_engine_counts_it() {
    for source in [
        "(1d2)d3r1=1r2=1",
        "2d(1d2+2)kh1x1>=3",
        "(1d2)d(1d2+1)cs>=2df",
    ] {
        roller_agrees("foundry", source);
    }
}

#[test]
fn what_a_rolled_term_cannot_be_is_refused() {
    for (source, kind) in [
        ("foundry(1d4, 6, \"zz\")", "bad-foundry-term"),
        ("foundry(1d4, 6, 3)", "bad-foundry-term"),
        ("foundry(1d4, 6, \"x>3 kh1\")", "bad-foundry-term"),
        ("foundry(1d4, \"x\")", "wrong-arguments"),
        ("foundry(1d4, 6, \"x\", 1)", "wrong-arguments"),
        ("foundry(1d4, true, \"x\")", "type-mismatch"),
        ("foundry(1d4 - 2, 6, \"rr1x\")", "negative-dice"),
        ("foundry(2, 1d2 - 1, \"rr1x\")", "no-sides"),
        ("foundry(1d2, 1, \"rr1\")", "reroll-everything"),
    ] {
        assert_eq!(omen("omen", source), Err(vec![kind]), "{source}");
    }
}

/// Foundry's Fate die rolls a d3 and takes 2 off, so a Fate term is the d3 term with every point 2
/// higher, its total less 2 for each die kept: the emulator runs the d3 term.
#[test]
fn fate_dice_run_their_modifiers_as_foundry_runs_them() {
    for (fate, d3, kept) in [
        // A bare reroll's point is 1, Foundry's default for any die: the +1s.
        ("4dFr", "4d3r=3", 4),
        ("4dFr<1r=1", "4d3r<3r=3", 4),
        ("3dFrr0kh2", "3d3rr2kh2", 2),
        ("4dFr1=1kh2", "4d3r1=3kh2", 2),
        ("4dFdlkh2", "4d3dlkh2", 2),
    ] {
        let (dist, cut) = distribution_of(d3, 8);
        let reference: Fractions = (dist.into_iter())
            .map(|(total, p)| (total - Q::from_integer(BigInt::from(2 * kept)), p))
            .collect();
        let (got, truncated) = omen_truncated("foundry", fate).expect("computed");
        if let Some(why) = differs(fate, &got, &reference, &(cut + truncated)) {
            panic!("{why}");
        }
    }
    assert_eq!(reading("foundry", "4dFr"), "foundry(\"4dFr=1\")");
    assert_eq!(reading("foundry", "(1d2)dFr"), "foundry(1d2, \"F\", \"r\")");
    // Keeps alone mean the same in Omen's notation.
    assert_eq!(reading("foundry", "4dFkh2"), "4dFkh2");
    roller_agrees("foundry", "(1d2)dFr<1");
}

/// Foundry's Fate die ignores every modifier but rerolls, keeps and drops; Omen's notation would
/// read them, so they are refused rather than read otherwise.
#[test]
fn modifiers_fate_dice_ignore_are_refused() {
    for source in ["4dFx", "4dFcs=1", "2dFkh1min0", "(1d2)dFx"] {
        let refused = omen("foundry", source).expect_err(source);
        assert!(
            refused == vec!["unknown-modifier"] || refused == vec!["bad-foundry-term"],
            "{source}: {refused:?}"
        );
    }
    assert_eq!(
        omen("omen", "foundry(2, \"F\", \"x\")"),
        Err(vec!["bad-foundry-term"])
    );
}

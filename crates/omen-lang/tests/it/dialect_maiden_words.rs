//! Dice Maiden's words on a dice term, against its dice library's procedure run in
//! `dice_bag_emulator` (written from Dice-Bag, never from Omen): every term of one or two words on
//! 3d4 must be read with the bot's meaning (a chain cut at the depth allowed for on both sides),
//! or refused as not computed yet, never read as something else.

use crate::dialect_support::{reading, roller_agrees};
use crate::dialects::{Q, omen, omen_truncated};
use crate::dice_bag_emulator::distribution;
use crate::tape::{differs, one_or_two};

const WORDS: [&str; 20] = [
    "e", "e3", "ie", "ie3", "r1", "r2", "ir1", "ir2", "k1", "k2", "kl1", "kl2", "d1", "d2", "t3",
    "t4", "f1", "f2", "b1", "b2",
];

/// Whether Omen reads the term as the bot runs it: `Ok(true)` when it agrees, `Ok(false)` when it
/// refuses the term as not computed yet.
fn agrees(count: usize, sides: i64, case: &[&str]) -> Result<bool, String> {
    let source = format!("{count}d{sides} {}", case.join(" "));
    let (reference, cut) = distribution(count, sides, case, 8);
    match omen_truncated("dice-maiden", &source) {
        Ok((got, truncated)) => {
            let slack: Q = cut + truncated;
            differs(&source, &got, &reference, &slack).map_or(Ok(true), Err)
        }
        Err(kinds) if kinds == ["unsupported-modifier"] => Ok(false),
        Err(kinds) => Err(format!("{source}: refused, {kinds:?}")),
    }
}

#[test]
fn every_term_of_one_or_two_words_means_what_the_bot_runs() {
    let refused = std::cell::RefCell::new(Vec::new());
    let (cases, wrong) = one_or_two(
        &WORDS,
        |_| true,
        |case| {
            if !agrees(3, 4, case)? {
                refused.borrow_mut().push(case.join(" "));
            }
            Ok(())
        },
    );
    assert_eq!(cases, 420);
    assert!(
        wrong.is_empty(),
        "{} of {cases}:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // Two explosion points, or a once-reroll above the reroll-while number, are not computed yet.
    assert_eq!(refused.into_inner(), ["e3 ie", "ie e3", "r2 ir1", "ir1 r2"]);
}

/// Terms of three words, where targets gather (`t3 t4`), a failure number counts against each
/// target, a botch keeps the highest dice, and the steps run in the library's order whatever the
/// order written; and a drop that reaches every die first rolled, with or without a keep, reset.
#[test]
fn terms_of_three_words_mean_what_the_bot_runs() {
    let cases: [&[&str]; 15] = [
        &["d3"],
        &["d3", "kl2"],
        &["d2", "k1", "t3"],
        &["k3", "e"],
        &["d2", "kl1"],
        &["t3", "t4", "f1"],
        &["t2", "t4", "e"],
        &["t3", "t4", "k2"],
        &["t4", "ie", "t2"],
        &["b1", "k2", "t3"],
        &["d1", "b2", "e"],
        &["f1", "e", "k2"],
        &["e", "r1", "t3"],
        &["ir1", "e3", "d1"],
        &["t2", "t3", "t4"],
    ];
    for case in cases {
        assert_eq!(agrees(3, 4, case), Ok(true), "{case:?}");
    }
    // A drop then a lowest keep of exploding dice is a middle run of them: not computed yet.
    assert_eq!(agrees(3, 4, &["d2", "kl1", "e"]), Ok(false));
}

/// The README's examples of the words this file checks: `b1` counts botches (and keeps the
/// highest die, as the library runs it, with a warning), `t7 t10` counts a 10 twice (Exalted's
/// `ex5`), `f1` alone subtracts the 1s.
#[test]
fn botches_targets_and_failures_read_as_the_bot_runs_them() {
    assert_eq!(reading("dice-maiden", "4d6 b1"), "4d6kh1cf<=1");
    let checked = omen_lang::compile("4d6 b1", &crate::dialects::options("dice-maiden")).unwrap();
    assert!(
        checked
            .warnings
            .iter()
            .any(|w| w.kind == "botch-keeps-highest"),
        "{:?}",
        checked.warnings
    );
    assert_eq!(
        omen("dice-maiden", "5d10 t7 t10"),
        omen("dice-maiden", "ex5")
    );
    assert_eq!(reading("dice-maiden", "4d6 f1"), "-(4d6<=1)");
    for (source, count, sides, words) in [
        ("4d6 b1", 4, 6, &["b1"][..]),
        ("5d10 t7 t10", 5, 10, &["t7", "t10"][..]),
        ("4d10 t8 t10 f1", 4, 10, &["t8", "t10", "f1"][..]),
        ("4d6 f1", 4, 6, &["f1"][..]),
    ] {
        let (want, _) = distribution(count, sides, words, 12);
        assert_eq!(omen("dice-maiden", source), Ok(want), "{source}");
    }
    roller_agrees("dice-maiden", "3d4 t2 t4 e");
    roller_agrees("dice-maiden", "3d4 b2 d1");
    roller_agrees("dice-maiden", "3d4 f1 k2");
}

/// The words that end a roll, each standing apart, are written by the bot after every dice term of
/// it: `2d4 + 3d4 t3` is `(2d4 t3) + (3d4 t3)`, each term run by the library with its own words
/// and those. Glued to the last term (`3d4t3`) they stay its own.
#[test]
fn words_ending_a_roll_apply_to_every_dice_term() {
    let sum = |a: &crate::dialects::Fractions, b: &crate::dialects::Fractions| {
        let mut out = crate::dialects::Fractions::new();
        for (x, p) in a {
            for (y, r) in b {
                *out.entry(x + y).or_insert_with(num_traits::Zero::zero) += p * r;
            }
        }
        out
    };
    for (source, first, second) in [
        ("2d4 + 3d4 t3", (2, &["t3"][..]), (3, &["t3"][..])),
        ("2d4 k1 + 3d4 k2", (2, &["k1", "k2"][..]), (3, &["k2"][..])),
        (
            "2d4 + 3d4 t3 f1",
            (2, &["t3", "f1"][..]),
            (3, &["t3", "f1"][..]),
        ),
        ("2d4 e + 2d4 r1", (2, &["e", "r1"][..]), (2, &["r1"][..])),
    ] {
        let (a, _) = distribution(first.0, 4, first.1, 10);
        let (b, _) = distribution(second.0, 4, second.1, 10);
        assert_eq!(omen("dice-maiden", source), Ok(sum(&a, &b)), "{source}");
        let checked = omen_lang::compile(source, &crate::dialects::options("dice-maiden")).unwrap();
        assert!(
            checked
                .warnings
                .iter()
                .any(|w| w.kind == "modifiers-for-every-term"),
            "{source}"
        );
    }
    assert_eq!(reading("dice-maiden", "2d6 + 3d6t4"), "(2d6) + (3d6>=4)");
    assert_eq!(reading("dice-maiden", "2d6 t4 + 3d6"), "(2d6>=4) + (3d6)");
    assert_eq!(
        reading("dice-maiden", "2d6 + 3d6 t4; 1d6 + 1d4"),
        "((2d6>=4) + (3d6>=4), (1d6) + (1d4))"
    );
    roller_agrees("dice-maiden", "1d4 + 2d4 t3");
}

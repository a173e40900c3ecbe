//! Dice Maiden's keeps and drops in the bot's order, whatever order they are written in: its dice
//! library (Dice-Bag) sorts the dice from highest to lowest, drops the lowest `d`, then keeps the
//! lowest `kl` of the rest or, without `kl`, the highest `k`; of a word written twice the last counts;
//! a drop and a (highest) keep that together reach every die first rolled are both reset to 0.
//! Every expected distribution is that procedure run here over every roll of the dice, never read off
//! Omen.

use num_traits::Zero;
use omen_lang::compile;

use crate::dialects::{Fractions, Q, omen, options, q};

/// The words' numbers, as Dice-Bag's options hold them (0 when not given).
#[derive(Clone, Copy)]
struct Words {
    drop: usize,
    keep: usize,
    lowest: usize,
}

/// Dice-Bag's total of `roll` (faces in the order rolled, added dice last) from `n` dice first rolled.
fn dice_bag(roll: &[i64], n: usize, words: Words) -> i64 {
    kept_by_dice_bag(roll, n, words).iter().sum()
}

/// The dice Dice-Bag keeps of `roll`, from `n` dice first rolled.
fn kept_by_dice_bag(roll: &[i64], n: usize, mut words: Words) -> Vec<i64> {
    if words.drop + words.keep >= n {
        words.drop = 0;
        words.keep = 0;
    }
    let mut dice = roll.to_vec();
    dice.sort_unstable_by(|a, b| b.cmp(a));
    // `slice(0...-drop)`: the lowest `drop` leave, all of them when there are no more.
    if words.drop > 0 {
        dice.truncate(dice.len().saturating_sub(words.drop));
    }
    if words.lowest > 0 {
        dice.reverse();
        dice.truncate(words.lowest);
    } else if words.keep > 0 {
        dice.truncate(words.keep);
    }
    dice
}

/// Every roll of `n` dice of `sides` faces, each die showing its top face followed by one more die
/// when `explode` (Dice Maiden's `e`: one added die, which does not explode), with its probability.
fn rolls(n: usize, sides: i64, explode: bool) -> Vec<(Vec<i64>, Q)> {
    let mut out = vec![(Vec::new(), q(1, 1))];
    for _ in 0..n {
        let mut next = Vec::new();
        for (roll, p) in out {
            for face in 1..=sides {
                let each = &p * q(1, sides);
                if explode && face == sides {
                    for added in 1..=sides {
                        let mut r = roll.clone();
                        r.extend([face, added]);
                        next.push((r, &each * q(1, sides)));
                    }
                } else {
                    let mut r = roll.clone();
                    r.push(face);
                    next.push((r, each));
                }
            }
        }
        out = next;
    }
    out
}

fn expected(n: usize, sides: i64, explode: bool, words: Words) -> Fractions {
    let mut want = Fractions::new();
    for (roll, p) in rolls(n, sides, explode) {
        *want
            .entry(q(dice_bag(&roll, n, words), 1))
            .or_insert_with(Q::zero) += p;
    }
    want
}

/// Dice-Bag's double successes after its keeps: each kept die scores 1 from the target and 1 more
/// from the double, `at_most` turning both the other way (`tl`).
fn expected_scored(
    (n, sides, explode): (usize, i64, bool),
    words: Words,
    (target, double, at_most): (i64, i64, bool),
) -> Fractions {
    let meets = |face: i64, point: i64| {
        if at_most {
            face <= point
        } else {
            face >= point
        }
    };
    let mut want = Fractions::new();
    for (roll, p) in rolls(n, sides, explode) {
        let score: i64 = kept_by_dice_bag(&roll, n, words)
            .iter()
            .map(|&f| i64::from(meets(f, target)) + i64::from(meets(f, double)))
            .sum();
        *want.entry(q(score, 1)).or_insert_with(Q::zero) += p;
    }
    want
}

/// Double successes with keeps and drops: the bot keeps by the faces, then scores the dice kept.
/// Omen keeps by the scores, which rise with the face (fall, for `tl`), so the same dice count.
#[test]
fn dice_maiden_double_successes_score_the_dice_it_keeps() {
    let words = |drop, keep, lowest| Words { drop, keep, lowest };
    let cases = [
        ("4d6 t4ds6 k2", (4, 6, false), words(0, 2, 0), (4, 6, false)),
        (
            "4d6 t4 ds6 kl2",
            (4, 6, false),
            words(0, 0, 2),
            (4, 6, false),
        ),
        ("4d6 t5ds6 d1", (4, 6, false), words(1, 0, 0), (5, 6, false)),
        (
            "4d6 tl3 ds1 k2",
            (4, 6, false),
            words(0, 2, 0),
            (3, 1, true),
        ),
        (
            "5d4 tl2 ds1 d1 kl3",
            (5, 4, false),
            words(1, 0, 3),
            (2, 1, true),
        ),
        (
            "3d4 e t3 ds4 k2",
            (3, 4, true),
            words(0, 2, 0),
            (3, 4, false),
        ),
    ];
    for (source, dice, words, scoring) in cases {
        assert_eq!(
            omen("dice-maiden", source),
            Ok(expected_scored(dice, words, scoring)),
            "{source}"
        );
    }
}

fn reading(source: &str) -> String {
    let checked = compile(source, &options("dice-maiden")).expect("reads");
    checked.reading
}

/// `5d6 k3 d1` keeps the highest 3 of the 4 left after the drop, as `5d6 d1 k3` does; `4d6 k3 d1`
/// keeps every die, the drop and keep reaching all four; with `kl` the lowest of the dice left, `k`
/// then unread; the last of a word written twice counts.
#[test]
fn dice_maiden_drops_before_it_keeps_whatever_the_order_written() {
    let words = |drop, keep, lowest| Words { drop, keep, lowest };
    let cases = [
        ("5d6 k3 d1", 5, 6, words(1, 3, 0), "5d6kh3"),
        ("5d6 d1 k3", 5, 6, words(1, 3, 0), "5d6kh3"),
        ("4d6 k3 d1", 4, 6, words(1, 3, 0), "4d6"),
        ("3d6 d1 k3", 3, 6, words(1, 3, 0), "3d6"),
        ("5d4 d2 k2", 5, 4, words(2, 2, 0), "5d4kh2"),
        ("5d6 d1 kl2", 5, 6, words(1, 0, 2), "5d6kl3dl1"),
        ("5d6 kl2 d1", 5, 6, words(1, 0, 2), "5d6kl3dl1"),
        ("4d4 d1 kl9", 4, 4, words(1, 0, 9), "4d4kl4dl1"),
        ("4d6 k2 k3", 4, 6, words(0, 3, 0), "4d6kh3"),
        ("4d6 k3 k2", 4, 6, words(0, 2, 0), "4d6kh2"),
        ("4d6 kl2 k3", 4, 6, words(0, 3, 2), "4d6kl2"),
    ];
    for (source, n, sides, words, read) in cases {
        assert_eq!(reading(source), read, "{source}");
        assert_eq!(
            omen("dice-maiden", source),
            Ok(expected(n, sides, false, words)),
            "{source}"
        );
    }
}

/// An explosion's dice are dropped and kept with the others. A drop and a highest keep reach no
/// further than the dice first rolled (the library resets them when they would: `2d6 e d1 k2` is
/// `2d6 e`), so the keep reads the same whatever was added. A drop and a lowest keep that reach
/// past them (`2d6 e kl2 d1`) are refused, never read as something else, and so is a rolled count
/// with a drop and a keep.
#[test]
fn dice_maiden_keeps_after_an_explosion_and_refuses_what_it_cannot_know() {
    let words = Words {
        drop: 1,
        keep: 2,
        lowest: 0,
    };
    assert_eq!(
        omen("dice-maiden", "4d4 e k2 d1"),
        Ok(expected(4, 4, true, words))
    );
    assert_eq!(
        omen("dice-maiden", "2d6 e d1 k2"),
        Ok(expected(2, 6, true, words))
    );
    assert_eq!(reading("2d6 e d1 k2"), "2d6!o");
    let lowest = Words {
        drop: 0,
        keep: 3,
        lowest: 2,
    };
    assert_eq!(
        omen("dice-maiden", "3d4 e kl2 k3"),
        Ok(expected(3, 4, true, lowest))
    );
    // `3d4 e d1 kl2` is the lowest dice but one of every die rolled: a middle run of exploding
    // dice, which Omen's engine does not compute yet.
    for refused in ["(1d4)d6 d1 k2", "2d6 e kl2 d1", "3d4 e d1 kl2"] {
        let kinds = omen("dice-maiden", refused).expect_err(refused);
        assert!(
            kinds.contains(&"unsupported-modifier"),
            "{refused}: {kinds:?}"
        );
    }
}

//! AnyDice's 2025 library functions `[highest N of A and B]` and `[lowest N of A and B]`: the dice of
//! both arguments make one pool, and the N highest (lowest) of them are summed. Expectations are
//! worked by hand or by enumerating every roll here.

use omen_lang::anydice::Output;

use crate::anydice::{enumerate, only, p, run, table};

/// Every roll of a pool made of dice with different faces: a roll per combination, equally likely
/// (each die's faces listed once).
fn every_mixed_roll(dice: &[&[i64]]) -> Vec<Vec<i64>> {
    let mut rolls = vec![Vec::new()];
    for faces in dice {
        rolls = rolls
            .into_iter()
            .flat_map(|r: Vec<i64>| {
                faces.iter().map(move |f| {
                    let mut next = r.clone();
                    next.push(*f);
                    next
                })
            })
            .collect();
    }
    rolls
}

/// The sum of the `n` highest (or lowest) of every roll of `dice`, counted.
fn kept(
    dice: &[&[i64]],
    n: usize,
    highest: bool,
) -> std::collections::BTreeMap<i64, omen_core::Probability> {
    let rolls = every_mixed_roll(dice);
    let total = rolls.len() as u64;
    let mut counts = std::collections::BTreeMap::<i64, u64>::new();
    for mut roll in rolls {
        roll.sort_unstable();
        if highest {
            roll.reverse();
        }
        *counts.entry(roll.iter().take(n).sum()).or_default() += 1;
    }
    counts.into_iter().map(|(v, c)| (v, p(c, total))).collect()
}

#[test]
fn the_highest_of_a_d4_and_a_d6_worked_by_hand() {
    // P(max ≤ k) = k/4 · k/6 up to 4, then k/6: so P(max = k) = (2k − 1)/24 up to 4, and 4/24 for
    // 5 and 6.
    let t = only("output [highest 1 of d4 and d6]");
    let expected = [(1, 1), (2, 3), (3, 5), (4, 7), (5, 4), (6, 4)];
    assert_eq!(t.len(), expected.len(), "{t:?}");
    for (k, n) in expected {
        assert_eq!(t[&k], p(n, 24), "P(highest = {k})");
    }
}

#[test]
fn the_lowest_of_a_d4_and_a_d6_worked_by_hand() {
    // P(min ≥ k) = (5 − k)/4 · (7 − k)/6: 24, 15, 8, 3 and 0 twenty-fourths from k = 1 to 5.
    let t = only("output [lowest 1 of d4 and d6]");
    let expected = [(1, 9), (2, 7), (3, 5), (4, 3)];
    assert_eq!(t.len(), expected.len(), "{t:?}");
    for (k, n) in expected {
        assert_eq!(t[&k], p(n, 24), "P(lowest = {k})");
    }
}

#[test]
fn collections_on_either_side_pool_their_dice() {
    let d4: Vec<i64> = (1..=4).collect();
    let d6: Vec<i64> = (1..=6).collect();
    assert_eq!(
        only("output [highest 2 of 2d6 and d4]"),
        kept(&[&d6, &d6, &d4], 2, true)
    );
    assert_eq!(
        only("output [lowest 2 of 3d4 and 2d6]"),
        kept(&[&d4, &d4, &d4, &d6, &d6], 2, false)
    );
    // The arguments' order does not matter: it is one pool.
    assert_eq!(
        only("output [highest 3 of d4 and 3d6]"),
        only("output [highest 3 of 3d6 and d4]")
    );
    // Listed faces and negative faces too.
    let odd = [-1, 0, 2];
    assert_eq!(
        only("output [lowest 1 of d{-1,0,2} and 2d4]"),
        kept(&[&odd, &d4, &d4], 1, false)
    );
}

#[test]
fn a_number_is_a_die_of_one_face() {
    // max(3, d6): 3 on 1, 2 or 3, else the d6.
    let t = only("output [highest 1 of 3 and d6]");
    assert_eq!(t[&3], p(1, 2));
    for k in 4..=6 {
        assert_eq!(t[&k], p(1, 6));
    }
    assert_eq!(t.len(), 4);
    // A sequence is summed, as `:d` sums it: {1,2} is the number 3.
    assert_eq!(only("output [highest 1 of {1,2} and d6]"), t);
}

#[test]
fn more_than_all_the_dice_keeps_them_all_and_none_is_zero() {
    let d4: Vec<i64> = (1..=4).collect();
    let d6: Vec<i64> = (1..=6).collect();
    let sum = kept(&[&d4, &d6], 2, true);
    assert_eq!(only("output [highest 5 of d4 and d6]"), sum);
    assert_eq!(only("output [lowest 5 of d4 and d6]"), sum);
    assert_eq!(
        only("output [highest 0 of d4 and d6]"),
        [(0, p(1, 1))].into()
    );
    // A negative count keeps nothing, like [highest N of D].
    assert_eq!(
        only("output [lowest -1 of d4 and d6]"),
        [(0, p(1, 1))].into()
    );
}

#[test]
fn the_empty_die_empties_the_answer() {
    let run = run("output [highest 1 of d{} and d6]");
    assert_eq!(
        run.outputs,
        [Output {
            label: "output 1".into(),
            distribution: None,
            span: run.outputs[0].span,
            approximate: false,
        }]
    );
}

#[test]
fn a_die_for_n_expands_the_call_over_its_outcomes() {
    // N is `:n`: [highest d2 of d4 and d4] is the highest 1 or the highest 2 (the sum), half each.
    let d4: Vec<i64> = (1..=4).collect();
    let t = only("output [highest d2 of d4 and d4]");
    let one = enumerate(2, &d4, |r| r.iter().max().copied());
    let two = enumerate(2, &d4, |r| Some(r.iter().sum()));
    for k in 1..=8 {
        let expected = (one.get(&k).cloned().unwrap_or(p(0, 1))
            + two.get(&k).cloned().unwrap_or(p(0, 1)))
            * p(1, 2);
        assert_eq!(t.get(&k).cloned().unwrap_or(p(0, 1)), expected, "P({k})");
    }
}

#[test]
fn a_programs_own_definition_replaces_the_librarys() {
    let t = only("function: highest N of A and B { result: 42 }\noutput [highest 1 of d4 and d6]");
    assert_eq!(t, [(42, p(1, 1))].into());
    // And [highest N of D] is still the one-argument function.
    let d6: Vec<i64> = (1..=6).collect();
    assert_eq!(
        table(&run("output [highest 1 of 2d6]").outputs[0]),
        enumerate(2, &d6, |r| r.iter().max().copied())
    );
}

//! Foundry's several explosions on one term (`5d10x9x10`): each runs in turn over every die so far,
//! its new dice checked by it (`x`, not `xo`) and by the explosions after it. The expected
//! distributions come from a walk of Foundry's dice code written here, enumerated along every
//! sequence of dice up to a total: every face is at least 1, so a total is reached by finitely many
//! sequences, and below the totals where `--explode-depth` (3 in these tests) could cut a chain,
//! Omen's probabilities must be Foundry's exactly. The roller, run along every sequence of dice,
//! must agree with the exact engine.

use num_traits::Zero;

use crate::dialect_foundry_in_turn::runs_as_foundry;
use crate::dialect_support;
use crate::dialects::{Fractions, Q, omen, q};

/// One explosion: whether its new dice are checked by it too, and its point.
type Explosion = (bool, fn(i64) -> bool);

/// Foundry's walk: explosion `j` checks the results from the first, in order, the new dice appended
/// (and checked when recursive: otherwise only the dice there when it started); then explosion
/// `j + 1` does the same over all of them. Totals above `bound` are left out.
fn walk(
    sides: i64,
    explosions: &[Explosion],
    bound: i64,
    state: (Vec<i64>, usize, usize, usize),
    p: Q,
    out: &mut Fractions,
) {
    let (results, j, checked, initial) = state;
    let total: i64 = results.iter().sum();
    if total > bound {
        return;
    }
    let Some(&(recursive, meets)) = explosions.get(j) else {
        *out.entry(q(total, 1)).or_insert_with(Q::zero) += p;
        return;
    };
    if checked >= results.len() || (!recursive && checked >= initial) {
        let len = results.len();
        walk(sides, explosions, bound, (results, j + 1, 0, len), p, out);
        return;
    }
    if !meets(results[checked]) {
        let next = (results, j, checked + 1, initial);
        walk(sides, explosions, bound, next, p, out);
        return;
    }
    for face in 1..=sides {
        let mut more = results.clone();
        more.push(face);
        let next = (more, j, checked + 1, initial);
        walk(sides, explosions, bound, next, &p * q(1, sides), out);
    }
}

/// The probability of each total up to `bound` of `n` dice under Foundry's explosions.
fn foundry(n: u32, sides: i64, explosions: &[Explosion], bound: i64) -> Fractions {
    let mut out = Fractions::new();
    let mut rolls = vec![Vec::new()];
    for _ in 0..n {
        rolls = rolls
            .into_iter()
            .flat_map(|r: Vec<i64>| {
                (1..=sides).map(move |f| {
                    let mut r = r.clone();
                    r.push(f);
                    r
                })
            })
            .collect();
    }
    let first = q(1, sides.pow(n));
    for roll in rolls {
        let state = (roll, 0, 0, n as usize);
        walk(sides, explosions, bound, state, first.clone(), &mut out);
    }
    out
}

/// Omen's distribution up to `bound`.
fn omen_up_to(source: &str, bound: i64) -> Fractions {
    dialect_support::up_to("foundry", source, bound)
}

/// What the roller gives along every sequence of dice.
fn rolled(source: &str) -> Fractions {
    dialect_support::rolled("foundry", source, 400_000)
}

#[test]
fn foundry_explosions_one_after_another_check_every_die_so_far() {
    // `2d4x3x4`: the 3s explode first, their new dice checked for 3s; then every die showing 4,
    // new ones included, explodes, its new dice checked for 4s only. A chain cut at the depth of 3
    // has at least four new dice meeting its point: a total of 15 or more.
    let both: [Explosion; 2] = [(true, |f| f == 3), (true, |f| f == 4)];
    assert_eq!(omen_up_to("2d4x3x4", 14), foundry(2, 4, &both, 14));
    // Points that overlap: a 4 explodes under `x>=3` and again under `x4`.
    let overlap: [Explosion; 2] = [(true, |f| f >= 3), (true, |f| f == 4)];
    assert_eq!(omen_up_to("2d4x>=3x4", 14), foundry(2, 4, &overlap, 14));
    // `xo` checks only the dice there when it starts (new dice from the explosion before it too);
    // its own new dice are checked by the explosions after it.
    let once: [Explosion; 3] = [(false, |f| f == 4), (true, |f| f == 3), (false, |f| f >= 3)];
    assert_eq!(omen_up_to("2d4xo4x3xo>=3", 14), foundry(2, 4, &once, 14));
    // A rolled count, rolled once.
    let mut counted = Fractions::new();
    for n in 1..=2 {
        for (total, p) in foundry(n, 4, &both, 12) {
            *counted.entry(total).or_insert_with(Q::zero) += p * q(1, 2);
        }
    }
    assert_eq!(omen_up_to("(1d2)d4x3x4", 12), counted);
    // The roller agrees with the exact engine over the whole distribution.
    for source in ["1d4x3x4", "1d4x>=3xo4"] {
        assert_eq!(Ok(rolled(source)), omen("foundry", source), "{source}");
    }
}

/// The mean of `5d10x9x10` worked out by Wald's identity: a die's chain of 9s has 10/9 dice on
/// average, each a d10 (mean 11/2), and 1/9 of a 10 among them, each starting a chain of 10s of the
/// same mean, 55/9: 550/81 a die. Omen's chains stop at the depth of 3, which the exact engine
/// reports as mass cut; its mean is below Foundry's by less than that mass times a bound.
#[test]
fn foundry_explosions_one_after_another_mean_matches_walds_identity() {
    let got = omen("foundry", "5d10x9x10").expect("computes");
    let mean: Q = got.iter().map(|(v, p)| v * p).sum();
    let want = q(5 * 550, 81);
    assert!(mean < want);
    assert!(&want - &mean < q(1, 100), "{mean} against {want}");
}

#[test]
fn foundry_explosions_one_after_another_with_other_modifiers_run_in_turn() {
    for source in ["2d4x4kh1x3", "1d4x4x3x2x1x4", "2d4x1>=3x4"] {
        runs_as_foundry(source, 9);
    }
}

//! Avrae's both ends of a set with counts other than one (`(1, 5, 3)kh2kl1`, `(…)pl1ph2`): d20 keeps
//! (drops) the members any selector picks, each selector taking members in order of value, the
//! earlier of equal members first. The expected distributions pick the members that way, sorting
//! every roll of the members here, never read off Omen; the roller must agree.

use std::collections::BTreeMap;

use num_traits::Zero;

use crate::dialect_support;
use crate::dialects::{Fractions, Q, omen, q};

/// The members d20's `kh{a}kl{b}` picks: the `a` highest and the `b` lowest, each in order of value
/// with the earlier of equal members first.
fn picked(values: &[i64], a: usize, b: usize) -> Vec<bool> {
    let mut by_high: Vec<usize> = (0..values.len()).collect();
    by_high.sort_by_key(|&i| (std::cmp::Reverse(values[i]), i));
    let mut by_low: Vec<usize> = (0..values.len()).collect();
    by_low.sort_by_key(|&i| (values[i], i));
    let mut picked = vec![false; values.len()];
    for &i in by_high.iter().take(a).chain(by_low.iter().take(b)) {
        picked[i] = true;
    }
    picked
}

/// The distribution over every roll of members with the given sides (a side of 1 is a constant
/// `constants[k]`), of the kept (or the dropped-from) total.
fn ends(members: &[Result<i64, i64>], a: usize, b: usize, drop: bool) -> Fractions {
    let mut rolls: Vec<(Vec<i64>, Q)> = vec![(Vec::new(), q(1, 1))];
    for member in members {
        let faces: Vec<i64> = match member {
            Ok(sides) => (1..=*sides).collect(),
            Err(constant) => vec![*constant],
        };
        let p = q(1, faces.len() as i64);
        rolls = rolls
            .into_iter()
            .flat_map(|(r, w)| {
                let p = p.clone();
                faces.clone().into_iter().map(move |f| {
                    let mut r = r.clone();
                    r.push(f);
                    (r, &w * &p)
                })
            })
            .collect();
    }
    let mut out = Fractions::new();
    for (roll, w) in rolls {
        let picks = picked(&roll, a, b);
        let total: i64 = roll
            .iter()
            .zip(&picks)
            .filter(|&(_, &p)| p != drop)
            .map(|(v, _)| v)
            .sum();
        *out.entry(q(total, 1)).or_insert_with(Q::zero) += w;
    }
    out
}

/// What the roller gives along every sequence of dice.
fn rolled(source: &str) -> Fractions {
    dialect_support::rolled("avrae", source, 200_000)
}

#[test]
fn avrae_set_keeps_both_ends_with_any_counts_as_d20_picks_them() {
    let constants = [Err(1), Err(5), Err(3)];
    assert_eq!(
        omen("avrae", "(1, 5, 3)kh2kl1"),
        Ok(ends(&constants, 2, 1, false))
    );
    // Ties: both selectors take the earliest equal members, so four 3s keep two of them.
    let threes = [Err(3), Err(3), Err(3), Err(3)];
    assert_eq!(
        omen("avrae", "(3, 3, 3, 3)kh2kl1"),
        Ok(ends(&threes, 2, 1, false))
    );
    assert_eq!(
        ends(&threes, 2, 1, false),
        BTreeMap::from([(q(6, 1), q(1, 1))])
    );
    // Dice as members, kept and dropped.
    let dice = [Ok(6), Ok(6), Ok(6)];
    assert_eq!(
        omen("avrae", "(1d6, 1d6, 1d6)kh2kl1"),
        Ok(ends(&dice, 2, 1, false))
    );
    assert_eq!(rolled("(1d6, 1d6, 1d6)kh2kl1"), ends(&dice, 2, 1, false));
    let mixed = [Ok(4), Err(2), Ok(4), Ok(3)];
    assert_eq!(
        omen("avrae", "(1d4, 2, 1d4, 1d3)pl1ph2"),
        Ok(ends(&mixed, 2, 1, true))
    );
    assert_eq!(
        omen("avrae", "(1d4, 2, 1d4, 1d3)kh0kl2"),
        Ok(ends(&mixed, 0, 2, false))
    );
}

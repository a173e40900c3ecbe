//! d20's reroll or explosion after a keep or drop that leaves several dice (`4d6kh3ro1`): the step
//! touches the kept dice only, as d20 applies its operations in the order written. The expected
//! distributions keep the dice as d20 does over every roll, then reroll or explode the kept dice
//! meeting the point, enumerated here; never read off Omen. The roller must agree.

use num_traits::Zero;

use crate::dialect_support::{self, every_roll};
use crate::dialects::{Fractions, Q, omen, q};

/// The dice d20 keeps: `kh`/`kl` the highest/lowest `c`, `ph`/`pl` all but those.
fn kept(roll: &[i64], which: &str, c: usize) -> Vec<i64> {
    let mut sorted = roll.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let n = sorted.len();
    match which {
        "kh" => sorted[..c.min(n)].to_vec(),
        "kl" => sorted[n - c.min(n)..].to_vec(),
        "ph" => sorted[c.min(n)..].to_vec(),
        _ => sorted[..n - c.min(n)].to_vec(),
    }
}

/// `NdS` with a keep, then each kept die meeting `meets` replaced by a new die over `new_faces`.
fn rerolled(
    n: u32,
    sides: i64,
    (which, c): (&str, usize),
    meets: fn(i64) -> bool,
    new_faces: &[i64],
) -> Fractions {
    stepped(n, sides, (which, c), meets, new_faces, false)
}

/// As [`rerolled`], the kept dice meeting `meets` staying beside their new die when `added`.
fn stepped(
    n: u32,
    sides: i64,
    (which, c): (&str, usize),
    meets: fn(i64) -> bool,
    new_faces: &[i64],
    added: bool,
) -> Fractions {
    let mut out = Fractions::new();
    let first = q(1, sides.pow(n));
    for roll in every_roll(n, sides) {
        let dice = kept(&roll, which, c);
        let stays: i64 = dice.iter().filter(|&&f| added || !meets(f)).sum();
        let k = dice.iter().filter(|&&f| meets(f)).count() as u32;
        let mut totals = vec![(stays, first.clone())];
        for _ in 0..k {
            let p = q(1, new_faces.len() as i64);
            totals = totals
                .into_iter()
                .flat_map(|(t, w)| {
                    let p = p.clone();
                    new_faces.iter().map(move |&f| (t + f, &w * &p))
                })
                .collect();
        }
        for (t, w) in totals {
            *out.entry(q(t, 1)).or_insert_with(Q::zero) += w;
        }
    }
    out
}

/// What the roller gives along every sequence of dice.
fn rolled(source: &str) -> Fractions {
    dialect_support::rolled("avrae", source, 400_000)
}

#[test]
fn avrae_reroll_after_a_keep_rerolls_the_kept_dice_only() {
    let d6: Vec<i64> = (1..=6).collect();
    // `ro1`: each kept 1 rolled once more, the new roll kept.
    let want = rerolled(4, 6, ("kh", 3), |f| f == 1, &d6);
    assert_eq!(omen("avrae", "4d6kh3ro1"), Ok(want));
    let small = rerolled(3, 4, ("kh", 2), |f| f == 1, &[1, 2, 3, 4]);
    assert_eq!(rolled("3d4kh2ro1"), small);
    // `rr<3`: rerolled until it shows 3 or more, so the new die is over 3 to 6.
    let want = rerolled(3, 6, ("kh", 2), |f| f < 3, &[3, 4, 5, 6]);
    assert_eq!(omen("avrae", "3d6kh2rr<3"), Ok(want));
    // Drops and keeps from the low end.
    let want = rerolled(4, 6, ("pl", 1), |f| f <= 2, &d6);
    assert_eq!(omen("avrae", "4d6pl1ro<=2"), Ok(want));
    let want = rerolled(4, 6, ("ph", 2), |f| f >= 5, &d6);
    assert_eq!(omen("avrae", "4d6ph2ro>4"), Ok(want));
    let want = rerolled(3, 6, ("kl", 2), |f| f == 6, &d6);
    assert_eq!(omen("avrae", "3d6kl2ro6"), Ok(want));
}

/// `dice` d4s, `keep` applied, then each kept 4 starting a chain of new d4s that goes on while they
/// show 4: every total up to `bound`, which a chain cut at the depth (3 in these tests) cannot reach.
fn kept_then_exploded(dice: u32, keep: (&str, usize), bound: i64) -> Fractions {
    let mut want = Fractions::new();
    let first = q(1, 4i64.pow(dice));
    for roll in every_roll(dice, 4) {
        let kept_dice = kept(&roll, keep.0, keep.1);
        let k = kept_dice.iter().filter(|&&f| f == 4).count();
        let mut totals = vec![(kept_dice.iter().sum::<i64>(), first.clone(), k)];
        while let Some((t, w, chains)) = totals.pop() {
            if t > bound {
                continue;
            }
            if chains == 0 {
                *want.entry(q(t, 1)).or_insert_with(Q::zero) += w;
                continue;
            }
            for f in 1..=4 {
                let more = if f == 4 { chains } else { chains - 1 };
                totals.push((t + f, &w * q(1, 4), more));
            }
        }
    }
    want
}

/// `e` after a keep: each kept die meeting the point adds a new die, which explodes the same way.
/// Up to the totals a chain cut at the depth (3 in these tests) cannot reach, the walk's
/// probabilities are exact: a cut chain shows four 4s beyond its die.
#[test]
fn avrae_explosion_after_a_keep_explodes_the_kept_dice_only() {
    let bound = 16;
    let got = dialect_support::up_to("avrae", "3d4kh2e4", bound);
    assert_eq!(got, kept_then_exploded(3, ("kh", 2), bound));
    assert_eq!(Ok(rolled("2d4kh1e4")), omen("avrae", "2d4kh1e4"));
    assert_eq!(Ok(rolled("3d3kh2e3")), omen("avrae", "3d3kh2e3"));
}

/// Dice Maiden's `adv`/`dis` drop dice first, then explode or reroll the dice kept (`3d6 adv1 ie`
/// rolls 4d6, drops the lowest, then explodes the three kept).
#[test]
fn dice_maiden_advantage_on_several_dice_then_a_step_touches_the_kept_dice() {
    let d6: Vec<i64> = (1..=6).collect();
    // `dis1 r1`: 4d6, the highest dropped, each kept 1 rolled once more.
    let want = rerolled(4, 6, ("ph", 1), |f| f <= 1, &d6);
    assert_eq!(omen("dice-maiden", "3d6 dis1 r1"), Ok(want));
    // `adv1 e`: 3d6, the lowest dropped, each kept 6 adds one die (exploding once).
    let want = stepped(3, 6, ("pl", 1), |f| f >= 6, &d6, true);
    assert_eq!(omen("dice-maiden", "2d6 adv1 e"), Ok(want));
    // `adv1 ie`: the new dice explode too; up to the totals a cut chain cannot reach.
    let bound = 14;
    let got = dialect_support::up_to("dice-maiden", "2d4 adv1 ie", bound);
    assert_eq!(got, kept_then_exploded(3, ("pl", 1), bound));
}

/// `ra` after a keep (`4d6kh3ra6`): d20 adds one die for the first kept die meeting the point, one
/// die for the whole roll however many meet it. Enumerated: the kept total, plus a new die when any
/// kept die meets the point. By hand, 4d6kh3's mean 15869/1296 plus 7/2 times the chance that some
/// die shows 6 (every 6 is among the highest 3), 671/1296: 36435/2592.
#[test]
fn avrae_reroll_and_add_after_a_keep_adds_one_die_for_the_kept_dice() {
    let added_once = |n: u32, sides: i64, (which, c): (&str, usize), meets: fn(i64) -> bool| {
        let mut want = Fractions::new();
        let first = q(1, sides.pow(n));
        for roll in every_roll(n, sides) {
            let dice = kept(&roll, which, c);
            let total: i64 = dice.iter().sum();
            if dice.iter().any(|&f| meets(f)) {
                for extra in 1..=sides {
                    *want.entry(q(total + extra, 1)).or_insert_with(Q::zero) +=
                        &first * q(1, sides);
                }
            } else {
                *want.entry(q(total, 1)).or_insert_with(Q::zero) += first.clone();
            }
        }
        want
    };
    let want = added_once(4, 6, ("kh", 3), |f| f == 6);
    let mean: Q = want.iter().map(|(v, p)| v * p).sum();
    assert_eq!(mean, q(36435, 2592));
    assert_eq!(omen("avrae", "4d6kh3ra6"), Ok(want));
    let dropped = added_once(4, 6, ("pl", 1), |f| f > 4);
    assert_eq!(omen("avrae", "4d6pl1ra>4"), Ok(dropped));
    assert_eq!(rolled("3d4kh2ra4"), added_once(3, 4, ("kh", 2), |f| f == 4));
}

/// Adds to `out` the totals up to `bound` of `pending` chains of new dice over `1..=sides`, each
/// going on while its die meets `meets`, from `total` at probability `p`.
fn chains(
    (total, pending): (i64, usize),
    (sides, meets, bound): (i64, fn(i64) -> bool, i64),
    p: Q,
    out: &mut Fractions,
) {
    if total > bound {
        return;
    }
    if pending == 0 {
        *out.entry(q(total, 1)).or_insert_with(Q::zero) += p;
        return;
    }
    for face in 1..=sides {
        let left = if meets(face) { pending } else { pending - 1 };
        let each = &p * q(1, sides);
        chains((total + face, left), (sides, meets, bound), each, out);
    }
}

/// d20's `kh` then a reroll then an explosion, walked over every roll: the kept dice meeting the
/// reroll's point replaced by a new die over `new_faces`, then every kept die meeting the
/// explosion's point (the new ones too) starting a chain. Totals up to `bound`.
fn reroll_then_explode(
    (n, sides, c): (u32, i64, usize),
    reroll: fn(i64) -> bool,
    new_faces: &[i64],
    explode: fn(i64) -> bool,
    bound: i64,
) -> Fractions {
    let mut out = Fractions::new();
    for roll in every_roll(n, sides) {
        let dice = kept(&roll, "kh", c);
        let mut outcomes = vec![(Vec::new(), q(1, sides.pow(n)))];
        for &die in &dice {
            let faces: Vec<i64> = if reroll(die) {
                new_faces.to_vec()
            } else {
                vec![die]
            };
            let each = q(1, faces.len() as i64);
            outcomes = outcomes
                .into_iter()
                .flat_map(|(kept, p): (Vec<i64>, Q)| {
                    let each = each.clone();
                    faces.iter().map(move |&f| {
                        let mut kept = kept.clone();
                        kept.push(f);
                        (kept, &p * &each)
                    })
                })
                .collect();
        }
        for (kept, p) in outcomes {
            let total = kept.iter().sum();
            let pending = kept.iter().filter(|&&f| explode(f)).count();
            chains((total, pending), (sides, explode, bound), p, &mut out);
        }
    }
    out
}

/// `4d6kh3ro1e6`: the reroll and then the explosion touch the kept dice only, the explosion the
/// rerolled dice too. A chain cut at the depth (3 here) shows four new dice meeting the point.
#[test]
fn avrae_reroll_then_explosion_after_a_keep_touch_the_kept_dice_in_turn() {
    let d4: Vec<i64> = (1..=4).collect();
    // Run in turn (two steps after the keep): a cut chain is a kept 4, three new 4s and two more
    // kept dice, 18 or more.
    let want = reroll_then_explode((4, 4, 3), |f| f == 1, &d4, |f| f == 4, 17);
    let got: Fractions = omen("avrae", "4d4kh3ro1e4")
        .expect("computes")
        .into_iter()
        .filter(|(t, _)| *t <= q(17, 1))
        .collect();
    assert_eq!(got, want);
    // `rr` before `e>=5`: the new dice over 2 to 6; a cut chain: a kept 5, four new dice of 5 or
    // more and another kept die: 26 or more.
    let want = reroll_then_explode((3, 6, 2), |f| f == 1, &[2, 3, 4, 5, 6], |f| f >= 5, 24);
    let got: Fractions = omen("avrae", "3d6kh2rr1e>=5")
        .expect("computes")
        .into_iter()
        .filter(|(t, _)| *t <= q(24, 1))
        .collect();
    assert_eq!(got, want);
    // Overlapping points: a kept 3 is rerolled (`ro<4`), so it does not explode on `e>=3`.
    let want = reroll_then_explode((3, 4, 2), |f| f < 4, &d4, |f| f >= 3, 14);
    let got: Fractions = omen("avrae", "3d4kh2ro<4e>=3")
        .expect("computes")
        .into_iter()
        .filter(|(t, _)| *t <= q(14, 1))
        .collect();
    assert_eq!(got, want);
    assert_eq!(Ok(rolled("3d3kh2ro1e3")), omen("avrae", "3d3kh2ro1e3"));
    // `ra` after a reroll runs in turn, as the terms checked against d20's procedure in
    // dialect_in_turn.rs; the roller agrees.
    assert_eq!(Ok(rolled("3d3kh2ro1ra3")), omen("avrae", "3d3kh2ro1ra3"));
}

//! Issue 24's third round: Dice Maiden's roll sets (`6 4d6`) and roll modes (`wng`, `dh`, `gb`),
//! Roll20's group of one member divided (`{3d6/2}kh1`). Every expected distribution is enumerated
//! here from the source's documented rule (Dice Maiden's README and bot code, Roll20's Dice
//! Reference), never read off Omen; the roller, run along every sequence of dice, must agree.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_traits::Zero;
use omen_lang::{Value, compile, exact};

use crate::dialect_foundry_in_turn::runs_as_foundry;
use crate::dialects::{Fractions, Q, omen, options, q};
use crate::support;

/// Every roll of dice with the given sides, one die each, with its probability.
fn rolls(sides: &[i64]) -> (Vec<Vec<i64>>, Q) {
    let mut out = vec![Vec::new()];
    for &s in sides {
        out = out
            .into_iter()
            .flat_map(|r: Vec<i64>| {
                (1..=s).map(move |f| {
                    let mut r = r.clone();
                    r.push(f);
                    r
                })
            })
            .collect();
    }
    let p = q(1, out.len() as i64);
    (out, p)
}

/// The distribution of `score` over every roll of the dice.
fn enumerate(sides: &[i64], score: impl Fn(&[i64]) -> Q) -> Fractions {
    let (all, p) = rolls(sides);
    let mut out = Fractions::new();
    for roll in &all {
        *out.entry(score(roll)).or_insert_with(Q::zero) += &p;
    }
    out
}

fn whole(n: i64) -> Q {
    q(n, 1)
}

/// The distribution of the sum of two independent distributions.
fn plus(a: &Fractions, b: &Fractions) -> Fractions {
    let mut out = Fractions::new();
    for (x, p) in a {
        for (y, r) in b {
            *out.entry(x + y).or_insert_with(Q::zero) += p * r;
        }
    }
    out
}

/// What the roller gives along every sequence of dice (true counts 1).
fn rolled(dialect: &str, source: &str) -> Fractions {
    let options = options(dialect);
    let program = compile(source, &options).expect("compiles").program;
    let sampled = support::brute_force(&program, &options.limits, 200_000).expect("small");
    let mut out: BTreeMap<Q, Q> = BTreeMap::new();
    for (v, p) in sampled {
        let v = match v {
            Value::Int(n) => whole(n),
            Value::Bool(b) => whole(i64::from(b)),
            Value::Ratio(r) => q(*r.numer(), *r.denom()),
            other => panic!("{source}: {other:?}"),
        };
        let p = Q::new(
            BigInt::from(p.numer().clone()),
            BigInt::from(p.denom().clone()),
        );
        *out.entry(v).or_insert_with(Q::zero) += p;
    }
    out
}

/// The exact distribution, checked against `want` and against the roller.
fn check(dialect: &str, source: &str, want: &Fractions) {
    assert_eq!(omen(dialect, source).as_ref(), Ok(want), "{source}");
    assert_eq!(&rolled(dialect, source), want, "{source}: the roller");
}

fn reading(dialect: &str, source: &str) -> String {
    match compile(source, &options(dialect)) {
        Ok(checked) => checked.reading,
        Err(errors) => panic!("{source} in {dialect}: {errors:?}"),
    }
}

fn errors(dialect: &str, source: &str) -> Vec<&'static str> {
    match compile(source, &options(dialect)) {
        Ok(checked) => panic!("{source} in {dialect} reads {}", checked.reading),
        Err(errors) => errors.iter().map(|e| e.kind).collect(),
    }
}

/// Dice Maiden's README: "`/roll 6 4d6` (roll 6 sets of 4d6)", sets of 2 to 20; the bot adds the
/// sets' results up ("Results Total").
#[test]
fn dice_maiden_sets_roll_the_roll_that_many_times_and_add_them_up() {
    // Six sets of 4d6 are 24 d6 in all: the convolution of 24 d6, worked out here.
    let d6: Fractions = (1..=6).map(|f| (whole(f), q(1, 6))).collect();
    let mut want = Fractions::from([(whole(0), q(1, 1))]);
    for _ in 0..24 {
        want = plus(&want, &d6);
    }
    assert_eq!(omen("dice-maiden", "6 4d6"), Ok(want));
    assert_eq!(reading("dice-maiden", "6 4d6"), "sum(pool {6 x (4d6)})");
    // Each set is the whole roll, keep and arithmetic included: two sets of `2d4 k1 + 1`.
    let set = enumerate(&[4, 4], |r| whole(r[0].max(r[1]) + 1));
    check("dice-maiden", "2 2d4 k1 + 1", &plus(&set, &set));
    // Display flags may stand first, as the README's `p` and `s` do.
    assert_eq!(reading("dice-maiden", "p 3 1d6"), "sum(pool {3 x (1d6)})");
    // `4 d6` is four sets of one d6, as the bot reads a bare die.
    let three = enumerate(&[6, 6, 6, 6], |r| whole(r.iter().sum()));
    check("dice-maiden", "4 d6", &three);
    // Out of the bot's range: an error, never one roll.
    assert_eq!(errors("dice-maiden", "1 4d6"), ["sets-out-of-range"]);
    assert_eq!(errors("dice-maiden", "21 4d6"), ["sets-out-of-range"]);
    assert_eq!(reading("dice-maiden", "20 1d4"), "sum(pool {20 x (1d4)})");
    // A number followed by an operator is arithmetic, not sets.
    assert_eq!(
        omen("dice-maiden", "1 + 2"),
        Ok(Fractions::from([(whole(3), q(1, 1))]))
    );
}

/// Wrath & Glory's icon for one d6: 4 and 5 are icons, 6 an exalted icon worth 2 (the bot's
/// `check_icons`, the wrath die counted alike).
fn icon(face: i64) -> i64 {
    match face {
        6 => 2,
        4 | 5 => 1,
        _ => 0,
    }
}

/// Dice Maiden's README: "`/roll wng 4d6` Roll with wrath dice", "`/roll wng dn2 4d6` Difficulty
/// test (DN 2)". The bot rolls three d6 and a wrath d6 and adds up icons; with a DN, the test passes
/// when the icons (exalted ones counting 2) reach it.
#[test]
fn dice_maiden_wrath_and_glory_counts_icons() {
    let icons = enumerate(&[6, 6, 6, 6], |r| whole(r.iter().map(|&f| icon(f)).sum()));
    assert_eq!(omen("dice-maiden", "wng 4d6"), Ok(icons));
    assert_eq!(reading("dice-maiden", "wng 4d6"), "4d{0,0,0,1,1,2}");
    let passed = enumerate(&[6, 6, 6], |r| {
        whole(i64::from(r.iter().map(|&f| icon(f)).sum::<i64>() >= 2))
    });
    check("dice-maiden", "wng dn2 3d6", &passed);
    assert_eq!(
        reading("dice-maiden", "wng dn2 4d6"),
        "(4d{0,0,0,1,1,2}) >= 2"
    );
    // A comment such as `!soak` drops the wrath die; it scored as the others, so the total is the same.
    assert_eq!(
        omen("dice-maiden", "wng 4d6 !soak"),
        omen("dice-maiden", "wng 4d6")
    );
    // `wng 1d6` is the wrath die alone, whose face the bot shows.
    check("dice-maiden", "wng 1d6", &enumerate(&[6], |r| whole(r[0])));
    // The bot replaces the whole roll by the pool: anything else is refused, never read otherwise.
    assert_eq!(errors("dice-maiden", "wng 4d6+1"), ["unsupported-modifier"]);
    assert_eq!(errors("dice-maiden", "wng 4d10"), ["unsupported-modifier"]);
    assert_eq!(errors("dice-maiden", "wng 2 4d6"), ["unsupported-modifier"]);
}

/// Dice Maiden's README: "`/roll dh 4d10` Includes righteous fury notifications" (a d10 showing 10):
/// the roll is unchanged, and the 10s are marked, so P(Righteous Fury) = 1 − (9/10)⁴.
#[test]
fn dice_maiden_dark_heresy_marks_righteous_fury() {
    let sum = enumerate(&[10, 10, 10, 10], |r| whole(r.iter().sum()));
    assert_eq!(omen("dice-maiden", "dh 4d10"), Ok(sum));
    assert_eq!(reading("dice-maiden", "dh 4d10"), "4d10cs=10");
    let options = options("dice-maiden");
    let checked = compile("dh 4d10", &options).expect("compiles");
    let fury = exact(&checked.program, &options.limits)
        .expect("computes")
        .criticals
        .success
        .map(|p| p.to_string());
    // 1 − 6561/10000.
    assert_eq!(fury.as_deref(), Some("3439/10000"));
    // Other dice are not marked.
    assert_eq!(reading("dice-maiden", "dh 1d10+1d6"), "(1d10cs=10) + (1d6)");
}

/// Godbound's damage chart as Dice Maiden's `godbound_logic.rb` applies it: 1 or less → 0, 2–5 → 1,
/// 6–9 → 2, 10 or more → 4.
fn chart(value: i64) -> i64 {
    match value {
        i64::MIN..=1 => 0,
        2..=5 => 1,
        6..=9 => 2,
        _ => 4,
    }
}

/// Dice Maiden's README: "`/roll gb 1d12+4` Single die vs damage chart", "`/roll gb 8d8` Multiple
/// dice vs damage chart". A roll of several dice counts each die by the chart; a single die's total
/// (the arithmetic included) is looked up once.
#[test]
fn dice_maiden_godbound_reads_the_damage_chart() {
    check(
        "dice-maiden",
        "gb 1d12+4",
        &enumerate(&[12], |r| whole(chart(r[0] + 4))),
    );
    check(
        "dice-maiden",
        "gb 3d8",
        &enumerate(&[8, 8, 8], |r| whole(r.iter().map(|&f| chart(f)).sum())),
    );
    assert_eq!(reading("dice-maiden", "gb 8d8"), "8d{0,1,1,1,1,2,2,2}");
    // Eight d8 each score 0 once, 1 four times, 2 three times: a mean of 10/8 each, 10 in all.
    let got = omen("dice-maiden", "gb 8d8").expect("computes");
    let mean: Q = got.iter().map(|(v, p)| v * p).sum();
    assert_eq!(mean, whole(10));
    // The first term of several dice is charted die by die and the rest added as written, as the bot
    // does (it stops charting after that term).
    check(
        "dice-maiden",
        "gb 1d4+2d6",
        &enumerate(&[4, 6, 6], |r| whole(r[0] + chart(r[1]) + chart(r[2]))),
    );
    assert_eq!(errors("dice-maiden", "gb 2d6 k1"), ["unsupported-modifier"]);
}

/// Roll20's Dice Reference reads a group of one member die by die ("for each roll add 5"); with a
/// division each die is divided, the fraction kept: `{3d6/2}kh1` is the highest of three half dice.
#[test]
fn roll20_group_of_one_divided_keeps_each_die_divided() {
    let highest = enumerate(&[6, 6, 6], |r| q(*r.iter().max().expect("dice"), 2));
    check("roll20", "{3d6/2}kh1", &highest);
    assert_eq!(
        reading("roll20", "{3d6/2}kh1"),
        "{div(d6, 2), div(d6, 2), div(d6, 2)}kh1"
    );
    // Counted: each half die at 2 or more (Roll20's `>` includes the value), that is a die of 4 or more.
    let counted = enumerate(&[6, 6, 6], |r| {
        whole(r.iter().filter(|&&f| f >= 4).count() as i64)
    });
    check("roll20", "{3d6/2}>2", &counted);
    // Division then addition, inside out: `{2d6/2+1}kl1` is the lower of two `d6/2 + 1`.
    let lowest = enumerate(&[6, 6], |r| q(r[0].min(r[1]), 2) + whole(1));
    check("roll20", "{2d6/2+1}kl1", &lowest);
}

/// Foundry's capped recursive step done as its dice code does it: the results walked in order, new
/// dice appended at the end; a die meeting the point, while the cap lasts, explodes (a new die, its
/// own roll kept) or is rerolled (its roll dropped for a new die); once the cap is spent the walk
/// stops and the dice not yet checked count as rolled. Worked out die by die over (dice waiting,
/// cap left, total), with no reference to generations.
fn foundry_capped(
    n: usize,
    sides: i64,
    cap: usize,
    explode: bool,
    meets: fn(i64) -> bool,
) -> Fractions {
    let die = q(1, sides);
    // Keyed first by dice waiting plus cap left, which every step lowers by one: taking the highest
    // first, every way into a state is added before the state is taken.
    let mut states: BTreeMap<(usize, usize, usize, i64), Q> =
        BTreeMap::from([((n + cap, n, cap, 0), q(1, 1))]);
    let mut out = Fractions::new();
    while let Some(((_, waiting, left, total), p)) = states.pop_last() {
        if waiting == 0 {
            *out.entry(whole(total)).or_insert_with(Q::zero) += p;
            continue;
        }
        if left == 0 {
            // Unchecked dice: each uniform.
            let mut rest = BTreeMap::from([(total, p)]);
            for _ in 0..waiting {
                let mut next = BTreeMap::new();
                for (t, r) in rest {
                    for f in 1..=sides {
                        *next.entry(t + f).or_insert_with(Q::zero) += &r * &die;
                    }
                }
                rest = next;
            }
            for (t, r) in rest {
                *out.entry(whole(t)).or_insert_with(Q::zero) += r;
            }
            continue;
        }
        for f in 1..=sides {
            let next = if meets(f) {
                let kept = if explode { total + f } else { total };
                (waiting + left - 1, waiting, left - 1, kept)
            } else {
                (waiting + left - 1, waiting - 1, left, total + f)
            };
            *states.entry(next).or_insert_with(Q::zero) += &p * &die;
        }
    }
    out
}

/// Foundry's API reference: `5d10x5>=8` explodes dice of 8 or more, at most 5 times for the whole
/// roll, the new dice checked too; `2d20rr1=1` rerolls a 1, the new roll checked too, at most once.
#[test]
fn foundry_capped_recursive_explosions_and_rerolls_spend_one_cap_for_the_roll() {
    let want = foundry_capped(5, 10, 5, true, |f| f >= 8);
    assert_eq!(omen("foundry", "5d10x5>=8"), Ok(want));
    assert_eq!(
        omen("foundry", "2d20rr1=1"),
        Ok(foundry_capped(2, 20, 1, false, |f| f == 1))
    );
    assert_eq!(
        omen("foundry", "4d6rr3<=2"),
        Ok(foundry_capped(4, 6, 3, false, |f| f <= 2))
    );
    // The roller, run along every sequence of dice, agrees.
    check(
        "foundry",
        "2d4x2>=3",
        &foundry_capped(2, 4, 2, true, |f| f >= 3),
    );
    check(
        "foundry",
        "3d4rr2<=2",
        &foundry_capped(3, 4, 2, false, |f| f <= 2),
    );
    // Without a point after it the number is the point, as in Foundry: `x5` explodes on 5.
    assert_eq!(reading("foundry", "2d6x5"), "2d6!=5");
    // Beyond the caps Omen's notation writes out, run as Foundry runs it.
    runs_as_foundry("2d4x21>=3", 9);
}

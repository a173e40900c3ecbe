//! A reroll of the first roll only, before an explosion (issue 26, item 6): `!a` marks the dice an
//! explosion adds as plain, so the steps written before `!` shape each die's first roll alone, and
//! Foundry's `r…x` reads the same way. Held to a die-by-die enumeration at capped depths, to the
//! script the warning used to be the only spelling of, to the sampler along every sequence of dice
//! and, at the default depth, to the roller by a chi-square.

use std::collections::BTreeMap;

use num_bigint::BigUint;
use omen_core::Probability;
use omen_lang::syntax::Dialect;
use omen_lang::{Options, Value, compile, exact};

use crate::support::{
    brute_force, chi_square, chi_square_critical, exact_map, options_with_depth, program,
};

/// One roll: the face the explosion is decided on, the value it counts, and its probability.
type Roll = Vec<(i64, i64, Probability)>;
type Dist = BTreeMap<i64, Probability>;

fn p(n: u64, d: u64) -> Probability {
    Probability::new(BigUint::from(n), BigUint::from(d))
}

fn plain(sides: i64) -> Roll {
    (1..=sides).map(|a| (a, a, p(1, sides as u64))).collect()
}

/// A roll rerolled once on `c` (the new face stands), or until `c` misses (`until`); the explosion
/// sees the face after the reroll.
fn rerolled(sides: i64, c: fn(i64) -> bool, until: bool) -> Roll {
    let s = sides as u64;
    let kept: Vec<i64> = (1..=sides).filter(|&b| !until || !c(b)).collect();
    let n = kept.len() as u64;
    let mut roll = Roll::new();
    for a in 1..=sides {
        if !c(a) {
            roll.push((a, a, p(1, s)));
            continue;
        }
        for &b in &kept {
            roll.push((b, b, p(1, s * n)));
        }
    }
    roll
}

/// Every roll of `roll` counting `shift` less (the decided face unchanged).
fn shifted(roll: &Roll, shift: i64) -> Roll {
    roll.iter()
        .map(|(d, v, q)| (*d, v - shift, q.clone()))
        .collect()
}

/// One die's chain: its first roll, then while the decided face meets `explodes` a roll of
/// `later`, at most `depth` added; the last counts as rolled. Also the probability of the chain
/// still meeting the condition on its last allowed roll.
fn chain(first: &Roll, later: &Roll, explodes: fn(i64) -> bool, depth: u32) -> (Dist, Probability) {
    let mut out = Dist::new();
    let mut cut = p(0, 1);
    for (decided, value, q) in first {
        if !explodes(*decided) {
            *out.entry(*value).or_insert_with(|| p(0, 1)) += q.clone();
        } else if depth == 0 {
            *out.entry(*value).or_insert_with(|| p(0, 1)) += q.clone();
            cut += q.clone();
        } else {
            let (rest, rest_cut) = chain(later, later, explodes, depth - 1);
            for (v, r) in rest {
                *out.entry(value + v).or_insert_with(|| p(0, 1)) += q * &r;
            }
            cut += q * &rest_cut;
        }
    }
    (out, cut)
}

fn sum(a: &Dist, b: &Dist) -> Dist {
    let mut out = Dist::new();
    for (x, px) in a {
        for (y, py) in b {
            *out.entry(x + y).or_insert_with(|| p(0, 1)) += px * py;
        }
    }
    out
}

fn as_values(d: &Dist) -> BTreeMap<Value, Probability> {
    d.iter()
        .filter(|(_, q)| **q != p(0, 1))
        .map(|(v, q)| (Value::Int(*v), q.clone()))
        .collect()
}

fn options(depth: u64, dialect: &'static Dialect) -> Options {
    Options {
        dialect,
        ..options_with_depth(depth)
    }
}

fn omen() -> &'static Dialect {
    &omen_lang::syntax::dialect::OMEN
}

fn foundry() -> &'static Dialect {
    Dialect::named("foundry").expect("foundry")
}

/// The exact distribution and the mass the depth cut, at `depth`.
fn exact_at(
    source: &str,
    depth: u64,
    dialect: &'static Dialect,
) -> (BTreeMap<Value, Probability>, Probability) {
    let options = options(depth, dialect);
    let program = program(source, &options);
    let cut = exact(&program, &options.limits).expect("exact").truncated;
    (exact_map(&program, &options), cut)
}

fn is_one(x: i64) -> bool {
    x == 1
}

#[test]
fn the_first_roll_alone_is_rerolled_and_the_added_dice_are_plain() {
    for depth in 0..=3u32 {
        let at = u64::from(depth);
        // d3ro1!a: a 1 first rolled is rerolled once, and a 3 (after it) adds plain d3s.
        let (die, cut) = chain(&rerolled(3, is_one, false), &plain(3), |x| x == 3, depth);
        assert_eq!(
            exact_at("d3ro1!a", at, omen()),
            (as_values(&die), cut.clone()),
            "depth {depth}"
        );
        // Two dice: the sum, and the cut mass of either die.
        let either = &cut + &cut - &cut * &cut;
        assert_eq!(
            exact_at("2d3ro1!a", at, omen()),
            (as_values(&sum(&die, &die)), either)
        );
        // Rerolled until not 1 on a d4 exploding on 3 or more.
        let (die, cut) = chain(&rerolled(4, is_one, true), &plain(4), |x| x >= 3, depth);
        assert_eq!(exact_at("d4rr1!a>=3", at, omen()), (as_values(&die), cut));
        // Penetrating: each added roll counts one less, decided on what it shows.
        let (die, cut) = chain(
            &rerolled(3, is_one, false),
            &shifted(&plain(3), 1),
            |x| x == 3,
            depth,
        );
        assert_eq!(exact_at("d3ro1!pa", at, omen()), (as_values(&die), cut));
    }
    // By hand, depth 1: d3ro1 shows 3 with 1/3 + 1/3 · 1/3 = 4/9, and then adds a d3 (mean 2):
    // mean 7/3 + 4/9 · 2 = 29/9; the cut is 4/9 · 1/3 = 4/27.
    let (d, cut) = exact_at("d3ro1!a", 1, omen());
    let mean: Probability = d
        .iter()
        .map(|(v, q)| match v {
            Value::Int(v) => q * Probability::from_integer((*v).try_into().expect("positive")),
            _ => unreachable!(),
        })
        .sum();
    assert_eq!((mean, cut), (p(29, 9), p(4, 27)));
    // `!oa`: one plain die at most, and stopping there is no cut.
    let (die, _) = chain(&rerolled(3, is_one, false), &plain(3), |x| x == 3, 1);
    assert_eq!(exact_at("d3ro1!oa", 20, omen()), (as_values(&die), p(0, 1)));
}

#[test]
fn the_script_reading_is_the_marked_explosion_one_depth_down() {
    // The script's plain `d6!` has a depth of its own: at depth D the term's chain at D + 1.
    for depth in 0..=2u64 {
        let script = "fn die() = let f = d3ro1 in if f = 3 then f + d3! else f; die() + die()";
        assert_eq!(
            exact_at(script, depth, omen()).0,
            exact_at("2d3ro1!a", depth + 1, omen()).0
        );
        let script = "fn die() = let f = d4min2rr2 in if f >= 4 then f + d4!>=4 else f; die()";
        assert_eq!(
            exact_at(script, depth, omen()).0,
            exact_at("d4min2rr2!a>=4", depth + 1, omen()).0
        );
    }
    // The script the warning writes for `3d6ro1!`, word for word.
    let script = "fn die() = let f = d6ro1 in if f = 6 then f + d6! else f; die() + die() + die()";
    assert_eq!(
        exact_at(script, 1, omen()).0,
        exact_at("3d6ro1!a", 2, omen()).0
    );
    let script = "fn die() = let f = d6ro1 in if f = 6 then f + d6 else f; die() + die() + die()";
    assert_eq!(
        exact_at(script, 20, omen()).0,
        exact_at("3d6ro1!oa", 20, omen()).0
    );
}

#[test]
fn foundry_reads_a_reroll_before_x_as_the_first_roll_only_and_after_x_as_every_die() {
    for depth in 0..=2u32 {
        let at = u64::from(depth);
        // `r` before `x` has run before any die is added: the first rolls only.
        let (die, cut) = chain(&rerolled(3, is_one, false), &plain(3), |x| x == 3, depth);
        assert_eq!(
            exact_at("2d3r1x", at, foundry()).0,
            as_values(&sum(&die, &die))
        );
        assert_eq!(exact_at("d3r1x", at, foundry()), (as_values(&die), cut));
        let (die, _) = chain(&rerolled(4, is_one, true), &plain(4), |x| x == 4, depth);
        assert_eq!(exact_at("d4rr1x", at, foundry()).0, as_values(&die));
        // `x` first: every die, the added ones too, is rerolled once on a 1, the explosion decided
        // on the face before the reroll (a rerolled die does not explode again).
        let every: Roll = (1..=3i64)
            .flat_map(|a| {
                let faces: Vec<i64> = if a == 1 { (1..=3).collect() } else { vec![a] };
                let n = faces.len() as u64;
                faces.into_iter().map(move |b| (a, b, p(1, 3 * n)))
            })
            .collect();
        let (die, _) = chain(&every, &every, |x| x == 3, depth);
        assert_eq!(exact_at("d3xr1", at, foundry()).0, as_values(&die));
    }
    // The reading line: Omen's `!a` for `r…x`, the reroll after `!` for `x…r`.
    for (source, reading) in [
        ("3d6r1x", "3d6ro=1!a"),
        ("3d6xr1", "3d6!ro=1"),
        ("3d6min2x", "3d6min2!a"),
    ] {
        let options = options(20, foundry());
        let compiled = compile(source, &options).unwrap_or_else(|e| panic!("{source}: {e:?}"));
        assert_eq!(compiled.reading, reading, "{source}");
    }
}

#[test]
fn the_sampler_along_every_sequence_of_dice_agrees_with_the_exact_engine() {
    for (source, depth, dialect) in [
        ("d3ro1!a", 2, omen()),
        ("2d3ro1!a", 1, omen()),
        ("d3ro1!pa", 2, omen()),
        ("2d3r1x", 1, foundry()),
    ] {
        let options = options(depth, dialect);
        let program = program(source, &options);
        let walked = brute_force(&program, &options.limits, 200_000)
            .unwrap_or_else(|| panic!("{source}: too many sequences"));
        assert_eq!(walked, exact_map(&program, &options), "{source}");
    }
}

#[test]
fn the_roller_agrees_with_the_exact_engine_on_the_first_roll_only() {
    for (i, source) in ["3d6ro1!a", "d10rr1!a", "2d6ro1!pa>=5"].iter().enumerate() {
        let (stat, df) = chi_square(source, 2700 + i as u64, 20_000);
        let critical = chi_square_critical(df);
        assert!(
            stat < critical,
            "{source}: chi-square {stat:.1} with {df} degrees of freedom"
        );
    }
}

#[test]
fn the_warning_names_the_marked_explosion_and_a_marked_one_does_not_warn() {
    let help = |source: &str| -> String {
        let compiled = compile(source, &Options::default()).unwrap_or_else(|e| panic!("{e:?}"));
        compiled
            .warnings
            .iter()
            .filter(|w| w.kind == "reroll-before-explosion")
            .map(|w| w.help.clone().unwrap_or_default())
            .collect()
    };
    assert!(
        help("3d6ro1!").contains("`3d6ro1!a`"),
        "{}",
        help("3d6ro1!")
    );
    assert!(help("d10rr1!>=9").contains("`d10rr1!a>=9`"));
    assert!(help("2d6ro1!o").contains("`2d6ro1!oa`"));
    for source in ["3d6ro1!a", "d3ro1!oa", "2d6ro1!pa>=5"] {
        assert_eq!(help(source), "", "{source}");
    }
    // Keep or drop and compounding are refused with `!a`, and its warning does not offer it.
    assert!(!help("4d6ro1!kh3").contains("!a"));
    for source in ["4d6ro1!akh3", "d6ro1!!a"] {
        assert!(compile(source, &Options::default()).is_err(), "{source}");
    }
}

//! A reroll and an explosion on one term (issue 26, item 6): what each order does, held to a
//! die-by-die enumeration on small dice at a capped depth; the first-roll-only reading, written as
//! the script the warning gives, held to the same enumeration; the sampler along every sequence of
//! dice and, at the default depth, a chi-square of the roller against the exact engine.

use std::collections::BTreeMap;

use num_bigint::BigUint;
use omen_core::Probability;
use omen_lang::syntax::Dialect;
use omen_lang::{Options, Value, compile};

use crate::support::{
    brute_force, chi_square, chi_square_critical, exact_map, options_with_depth, program,
};

/// One roll of a chain: the face the explosion is decided on, the value the roll counts, and its
/// probability.
type Roll = Vec<(i64, i64, Probability)>;

fn p(n: u64, d: u64) -> Probability {
    Probability::new(BigUint::from(n), BigUint::from(d))
}

/// A plain roll of a die with faces 1..=sides.
fn plain(sides: i64) -> Roll {
    (1..=sides).map(|a| (a, a, p(1, sides as u64))).collect()
}

/// A roll rerolled once on `c`: the new face stands. `decide_on_first`: the explosion is decided
/// on the face before the reroll (the reroll written after `!`), else on the face after it.
fn reroll_once(sides: i64, c: fn(i64) -> bool, decide_on_first: bool) -> Roll {
    let s = sides as u64;
    let mut roll = Roll::new();
    for a in 1..=sides {
        if !c(a) {
            roll.push((a, a, p(1, s)));
            continue;
        }
        for b in 1..=sides {
            roll.push((if decide_on_first { a } else { b }, b, p(1, s * s)));
        }
    }
    roll
}

/// A roll rerolled until `c` no longer holds: the faces that miss `c`, equally likely, decided on
/// the first face or on the last.
fn reroll_until(sides: i64, c: fn(i64) -> bool, decide_on_first: bool) -> Roll {
    let s = sides as u64;
    let kept: Vec<i64> = (1..=sides).filter(|&b| !c(b)).collect();
    let n = kept.len() as u64;
    let mut roll = Roll::new();
    for a in 1..=sides {
        if !c(a) {
            roll.push((a, a, p(1, s)));
            continue;
        }
        for &b in &kept {
            roll.push((if decide_on_first { a } else { b }, b, p(1, s * n)));
        }
    }
    roll
}

/// One die's chain: `first` is its first roll, `later` each roll the explosion adds; a roll whose
/// decided face meets `explodes` adds another, at most `depth` in all.
fn chain(
    first: &Roll,
    later: &Roll,
    explodes: fn(i64) -> bool,
    depth: u32,
) -> BTreeMap<i64, Probability> {
    let mut out = BTreeMap::new();
    for (decided, value, q) in first {
        if explodes(*decided) && depth > 0 {
            for (rest, r) in chain(later, later, explodes, depth - 1) {
                *out.entry(value + rest).or_insert_with(|| p(0, 1)) += q * r;
            }
        } else {
            *out.entry(*value).or_insert_with(|| p(0, 1)) += q.clone();
        }
    }
    out
}

fn sum(
    a: &BTreeMap<i64, Probability>,
    b: &BTreeMap<i64, Probability>,
) -> BTreeMap<i64, Probability> {
    let mut out = BTreeMap::new();
    for (x, px) in a {
        for (y, py) in b {
            *out.entry(x + y).or_insert_with(|| p(0, 1)) += px * py;
        }
    }
    out
}

fn as_values(d: BTreeMap<i64, Probability>) -> BTreeMap<Value, Probability> {
    d.into_iter()
        .filter(|(_, q)| *q != p(0, 1))
        .map(|(v, q)| (Value::Int(v), q))
        .collect()
}

fn exact_at(source: &str, depth: u64) -> BTreeMap<Value, Probability> {
    let options = options_with_depth(depth);
    exact_map(&program(source, &options), &options)
}

fn is_one(x: i64) -> bool {
    x == 1
}

/// The first-roll-only script for one die, as the warning writes it: `die` with `steps` on its
/// first roll, then a plain exploding die when that roll meets `condition`.
fn first_only(die: &str, steps: &str, condition: &str, tail: &str, calls: usize) -> String {
    format!(
        "fn die() = let f = {die}{steps} in if f {condition} then f + {tail} else f; {}",
        vec!["die()"; calls].join(" + ")
    )
}

#[test]
fn a_reroll_before_the_explosion_rerolls_every_roll_of_the_chain_decided_after_the_reroll() {
    for depth in 0..=3u32 {
        let at = u64::from(depth);
        // d3ro1!: every roll, the added ones too, is rerolled once on a 1, and a 1 rerolled to a
        // 3 explodes.
        let every = reroll_once(3, is_one, false);
        let expected = chain(&every, &every, |x| x == 3, depth);
        assert_eq!(
            exact_at("d3ro1!", at),
            as_values(expected.clone()),
            "depth {depth}"
        );
        assert_eq!(
            exact_at("2d3ro1!", at),
            as_values(sum(&expected, &expected)),
            "depth {depth}"
        );
        // d4rr1! (and d4r1!): every roll is one of 2..4.
        let until = reroll_until(4, is_one, false);
        let expected = chain(&until, &until, |x| x == 4, depth);
        assert_eq!(exact_at("d4rr1!", at), as_values(expected.clone()));
        assert_eq!(exact_at("d4r1!", at), as_values(expected));
        // An explosion on a point: d4ro1!>=3.
        let every = reroll_once(4, is_one, false);
        let expected = chain(&every, &every, |x| x >= 3, depth);
        assert_eq!(exact_at("d4ro1!>=3", at), as_values(expected));
    }
}

#[test]
fn a_reroll_after_the_explosion_rerolls_every_roll_of_the_chain_decided_before_the_reroll() {
    for depth in 0..=3u32 {
        let at = u64::from(depth);
        // d3!ro1: a 3 explodes; a 1 rerolled to a 3 counts 3 but adds no die; the added dice are
        // rerolled on a 1 as well.
        let after = reroll_once(3, is_one, true);
        let expected = chain(&after, &after, |x| x == 3, depth);
        assert_eq!(
            exact_at("d3!ro1", at),
            as_values(expected.clone()),
            "depth {depth}"
        );
        assert_eq!(
            exact_at("2d3!ro1", at),
            as_values(sum(&expected, &expected))
        );
        let until = reroll_until(4, is_one, true);
        let expected = chain(&until, &until, |x| x == 4, depth);
        assert_eq!(exact_at("d4!rr1", at), as_values(expected));
    }
}

#[test]
fn the_first_roll_only_reading_is_the_script_the_warning_writes() {
    // The script's plain exploding die has a depth of its own: at depth D it may add D + 1 dice in
    // all, as the chain at depth D + 1 does.
    for depth in 1..=3u32 {
        let at = u64::from(depth - 1);
        let once = reroll_once(3, is_one, false);
        let expected = chain(&once, &plain(3), |x| x == 3, depth);
        let one = first_only("d3", "ro1", "= 3", "d3!", 1);
        assert_eq!(exact_at(&one, at), as_values(expected.clone()), "{one}");
        let two = first_only("d3", "ro1", "= 3", "d3!", 2);
        assert_eq!(exact_at(&two, at), as_values(sum(&expected, &expected)));
        let until = reroll_until(4, is_one, false);
        let expected = chain(&until, &plain(4), |x| x >= 3, depth);
        let script = first_only("d4", "rr1", ">= 3", "d4!>=3", 1);
        assert_eq!(exact_at(&script, at), as_values(expected), "{script}");
    }
    // The readings differ: of d3 at depth 1, the first-only reading adds a plain d3 after a 3.
    assert_ne!(
        exact_at("d3ro1!", 1),
        exact_at(&first_only("d3", "ro1", "= 3", "d3!", 1), 0)
    );
    // With `!o` the extra die is one plain die: exact at any depth.
    let once = reroll_once(3, is_one, false);
    let expected = chain(&once, &plain(3), |x| x == 3, 1);
    assert_eq!(
        exact_at(&first_only("d3", "ro1", "= 3", "d3", 1), 20),
        as_values(expected)
    );
}

#[test]
fn the_sampler_along_every_sequence_of_dice_agrees_with_the_exact_engine() {
    // Rerolls once only: a walk that always takes the first face never ends a reroll until `rr1`
    // settles (the roller's chi-square below covers those).
    for (source, depth) in [
        ("d3ro1!", 2),
        ("2d3ro1!", 1),
        ("d3!ro1", 2),
        (
            "fn die() = let f = d3ro1 in if f = 3 then f + d3! else f; die() + die()",
            1,
        ),
    ] {
        let options = options_with_depth(depth);
        let program = program(source, &options);
        let walked = brute_force(&program, &options.limits, 200_000)
            .unwrap_or_else(|| panic!("{source}: too many sequences"));
        assert_eq!(walked, exact_map(&program, &options), "{source}");
    }
}

#[test]
fn the_roller_agrees_with_the_exact_engine_on_both_orders_and_the_first_roll_only_script() {
    for (i, source) in [
        "3d6ro1!",
        "3d6r1!",
        "3d6!ro1",
        "d10rr1!",
        "d10!rr1",
        "fn die() = let f = d6ro1 in if f = 6 then f + d6! else f; die() + die() + die()",
    ]
    .iter()
    .enumerate()
    {
        let (stat, df) = chi_square(source, 2600 + i as u64, 20_000);
        let critical = chi_square_critical(df);
        assert!(
            stat < critical,
            "{source}: chi-square {stat:.1} with {df} degrees of freedom"
        );
    }
}

fn warnings(source: &str, dialect: &'static Dialect) -> Vec<(&'static str, String)> {
    let options = Options {
        dialect,
        ..Options::default()
    };
    let compiled = compile(source, &options).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    compiled
        .warnings
        .iter()
        .map(|w| (w.kind, w.help.clone().unwrap_or_default()))
        .collect()
}

#[test]
fn a_reroll_before_an_explosion_warns_naming_the_first_roll_only_reading() {
    let omen = &omen_lang::syntax::dialect::OMEN;
    let found = warnings("3d6ro1!", omen);
    let (_, help) = found
        .iter()
        .find(|(kind, _)| *kind == "reroll-before-explosion")
        .unwrap_or_else(|| panic!("{found:?}"));
    let script = "fn die() = let f = d6ro1 in if f = 6 then f + d6! else f; die() + die() + die()";
    assert!(help.contains(&format!("`{script}`")), "{help}");
    assert!(help.contains("`3d6!ro1`"), "{help}");
    // The script the help gives is the first-roll-only reading of three dice (one depth down).
    let once = reroll_once(6, is_one, false);
    let die = chain(&once, &plain(6), |x| x == 6, 2);
    assert_eq!(exact_at(script, 1), as_values(sum(&sum(&die, &die), &die)));

    for (source, written) in [
        (
            "d10rr1!",
            "fn die() = let f = d10rr1 in if f = 10 then f + d10! else f; die()",
        ),
        (
            "2d6ro1!o",
            "fn die() = let f = d6ro1 in if f = 6 then f + d6 else f; die() + die()",
        ),
        (
            "d6min2r1!!",
            "fn die() = let f = d6min2r1 in if f = 6 then f + d6!! else f; die()",
        ),
        (
            "d8ro{1,2}!>=7",
            "fn die() = let f = d8ro{1,2} in if f >= 7 then f + d8!>=7 else f; die()",
        ),
    ] {
        let found = warnings(source, omen);
        assert!(
            found
                .iter()
                .any(|(kind, help)| *kind == "reroll-before-explosion"
                    && help.contains(&format!("`{written}`"))),
            "{source}: {found:?}"
        );
        // Each script it writes compiles.
        compile(written, &Options::default()).unwrap_or_else(|e| panic!("{written}: {e:?}"));
    }
    // More after the explosion than a sum: the help says what to do without a script.
    let kept = warnings("4d6ro1!kh3", omen);
    assert!(
        kept.iter()
            .any(|(kind, _)| *kind == "reroll-before-explosion"),
        "{kept:?}"
    );
    // The reroll after the explosion, a clamp alone, and a dialect's own reading: no warning.
    for source in ["3d6!ro1", "3d6min2!", "3d6ro1"] {
        let found = warnings(source, omen);
        assert!(
            found
                .iter()
                .all(|(kind, _)| *kind != "reroll-before-explosion"),
            "{source}: {found:?}"
        );
    }
    let foundry = Dialect::named("foundry").expect("foundry");
    assert!(
        warnings("3d6r1x", foundry)
            .iter()
            .all(|(kind, _)| *kind != "reroll-before-explosion")
    );
}

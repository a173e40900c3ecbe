//! AnyDice programs as designers write them (the documentation's patterns: success pools, rerolls,
//! explosions, loops over pool sizes), each against an expectation worked out here by hand, by a
//! formula, or from AnyDice's printed percentages to their printed precision.

use std::collections::BTreeMap;

use omen_core::Probability;

use super::anydice::{only, p, run, table};

/// C(n, k).
fn choose(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// The binomial distribution of successes in `n` trials of chance `hit`/`of`.
fn binomial(n: u64, hit: u64, of: u64) -> BTreeMap<i64, Probability> {
    (0..=n)
        .map(|k| {
            let ways = choose(n, k) * hit.pow(k as u32) * (of - hit).pow((n - k) as u32);
            (k as i64, p(ways, of.pow(n as u32)))
        })
        .collect()
}

fn convolve(
    a: &BTreeMap<i64, Probability>,
    b: &BTreeMap<i64, Probability>,
) -> BTreeMap<i64, Probability> {
    let mut out: BTreeMap<i64, Probability> = BTreeMap::new();
    for (x, px) in a {
        for (y, py) in b {
            *out.entry(x + y).or_insert_with(|| p(0, 1)) += px * py;
        }
    }
    out
}

fn percent(q: &Probability) -> f64 {
    omen_core::probability_to_f64(q) * 100.0
}

#[test]
fn a_success_pool_counts_dice_at_or_over_the_target() {
    let program = "function: successes in ROLL:s at least TARGET:n { result: ROLL >= TARGET }\noutput [successes in 5d10 at least 8]";
    assert_eq!(only(program), binomial(5, 3, 10));
    // The library's count over a collection's rolls: fives and sixes on 3d6.
    assert_eq!(only("output [count {5,6} in 3d6]"), binomial(3, 1, 3));
}

#[test]
fn reroll_a_one_once() {
    let t = only("function: reroll R:n { if R = 1 { result: d6 } result: R }\noutput [reroll d6]");
    // A 1 needs two ones; any other face shows first time (1/6) or after a 1 (1/36).
    let mut want = BTreeMap::from([(1, p(1, 36))]);
    for face in 2..=6 {
        want.insert(face, p(7, 36));
    }
    assert_eq!(t, want);
}

#[test]
fn great_weapon_fighting_rerolls_ones_and_twos_on_each_die() {
    let t = only("function: gwf D:n { if D <= 2 { result: d6 } result: D }\noutput 2d[gwf d6]");
    // One die: 1 and 2 only after a 1 or 2 (2/36 each); 3..6 first time or after (8/36 each).
    let mut die = BTreeMap::new();
    for face in 1..=6 {
        die.insert(face, if face <= 2 { p(2, 36) } else { p(8, 36) });
    }
    assert_eq!(t, convolve(&die, &die));
}

#[test]
fn a_loop_shows_the_best_die_of_each_pool_size() {
    let r = run("loop N over {1..3} { output [highest 1 of Nd6] named \"best of [N]\" }");
    for (n, output) in (1..=3u32).zip(&r.outputs) {
        assert_eq!(output.label, format!("best of {n}"));
        // A 6 shows unless every die misses it: 1 - (5/6)^n.
        let miss = p(5u64.pow(n), 6u64.pow(n));
        assert_eq!(table(output)[&6], p(1, 1) - miss);
    }
}

#[test]
fn opposed_d20s() {
    // 190 of the 400 pairs have the first die higher.
    assert_eq!(only("output d20 > d20")[&1], p(19, 40));
}

#[test]
fn four_d6_drop_the_lowest_matches_anydices_printed_figures() {
    // AnyDice prints 1.62% for 18, 0.08% for 3 and a mean of 12.24 for [highest 3 of 4d6].
    let t = only("output [highest 3 of 4d6]");
    assert_eq!(format!("{:.2}", percent(&t[&18])), "1.62");
    assert_eq!(format!("{:.2}", percent(&t[&3])), "0.08");
    let mean: Probability = t
        .iter()
        .map(|(o, q)| q * Probability::from_integer((*o as u64).into()))
        .sum();
    assert_eq!(
        format!("{:.2}", omen_core::probability_to_f64(&mean)),
        "12.24"
    );
}

#[test]
fn an_exploding_d6_as_anydice_prints_it() {
    // AnyDice prints 16.67% for 1..5, 2.78% for 7..11, 0.46% for 13..18, and a mean of 4.17.
    let t = only("output [explode d6]");
    assert_eq!(format!("{:.2}", percent(&t[&3])), "16.67");
    assert_eq!(format!("{:.2}", percent(&t[&9])), "2.78");
    assert_eq!(format!("{:.2}", percent(&t[&18])), "0.46");
    assert!(!t.contains_key(&6) && !t.contains_key(&12));
}

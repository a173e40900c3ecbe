//! The notation warnings and dialect constructs of issue 24. Every expected distribution is worked out
//! here by enumerating the dice (or by a closed form derived in the comment), never read off Omen.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_traits::{One, Zero};
use omen_lang::{Value, compile};

use crate::support;

// The exact distribution and the options (explosion depth 3) are those of the dialect examples.
use crate::dialects::{Q, omen, options, q};

fn reading(dialect: &str, source: &str) -> String {
    match compile(source, &options(dialect)) {
        Ok(checked) => checked.reading,
        Err(errors) => panic!("{source} in {dialect}: {errors:?}"),
    }
}

/// The kinds and messages (with help) of the warnings.
fn warnings(dialect: &str, source: &str) -> Vec<(&'static str, String)> {
    let checked = compile(source, &options(dialect)).expect("compiles");
    checked
        .warnings
        .iter()
        .map(|w| {
            let help = w.help.clone().unwrap_or_default();
            (w.kind, format!("{} | {help}", w.message))
        })
        .collect()
}

fn errors(dialect: &str, source: &str) -> Vec<&'static str> {
    match compile(source, &options(dialect)) {
        Ok(checked) => panic!("{source} in {dialect} reads {}", checked.reading),
        Err(errors) => errors.iter().map(|e| e.kind).collect(),
    }
}

/// Every sequence of `n` faces of a `sides`-sided die, each with probability 1/sidesⁿ.
fn rolls(n: u32, sides: i64) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new()];
    for _ in 0..n {
        out = out
            .into_iter()
            .flat_map(|r| {
                (1..=sides).map(move |f| {
                    let mut r = r.clone();
                    r.push(f);
                    r
                })
            })
            .collect();
    }
    out
}

#[test]
fn a_keep_without_its_count_warns_that_it_keeps_one() {
    let found = warnings("omen", "4d6kh");
    assert!(
        found
            .iter()
            .any(|(k, m)| *k == "keep-count-left-out" && m.contains("`kh1`")),
        "{found:?}"
    );
    for written in ["4d6kh1", "4d6kh3"] {
        assert!(
            warnings("omen", written)
                .iter()
                .all(|(k, _)| *k != "keep-count-left-out")
        );
    }
    // Foundry documents `2d20kh` as keep 1: no warning there.
    assert!(warnings("foundry", "2d20kh").is_empty());
    // The highest of four d6: P(max ≤ k) = (k/6)⁴, so P(max = k) = (k⁴ − (k−1)⁴)/1296.
    let want: BTreeMap<Q, Q> = (1..=6)
        .map(|k| (q(k, 1), q(k.pow(4) - (k - 1).pow(4), 1296)))
        .collect();
    assert_eq!(omen("omen", "4d6kh"), Ok(want));
}

#[test]
fn several_reroll_once_points_compound_and_warn() {
    let found = warnings("omen", "8d6ro2ro3ro4ro5");
    assert!(
        found
            .iter()
            .any(|(k, m)| *k == "rerolls-compound" && m.contains("`ro{2, 3, 4, 5}`")),
        "{found:?}"
    );
    assert!(warnings("omen", "8d6ro{2..5}").is_empty());
    assert!(warnings("omen", "8d6ro1").is_empty());
    // In steps, as language.md defines them: each step rerolls its face once, drawing the die as
    // the steps before it left it. D'(x) = D(x)·[x ≠ s] + D(s)·D(x).
    let mut die: BTreeMap<i64, Q> = (1..=6).map(|f| (f, q(1, 6))).collect();
    for step in 2..=5 {
        let hit = die[&step].clone();
        die = die
            .iter()
            .map(|(f, p)| {
                let stays = if *f == step { Q::zero() } else { p.clone() };
                (*f, stays + &hit * p)
            })
            .collect();
    }
    let six = die[&6].clone();
    let none = (Q::one() - &six).pow(8);
    let got = omen("omen", "8d6ro2ro3ro4ro5>=6").expect("computes");
    assert_eq!(got.get(&Q::zero()), Some(&none));
    // The figures: about 97.46 % for the steps, where the push is 92.60 %.
    let percent = |p: &Q| (p * q(10_000, 1)).round();
    assert_eq!(percent(&(Q::one() - &none)), q(9746, 1));
    assert_eq!(percent(&(Q::one() - q(13, 18).pow(8))), q(9260, 1));
}

#[test]
fn a_reroll_over_a_set_of_faces_rerolls_each_die_once() {
    assert_eq!(reading("omen", "8d6ro{2..5}"), "8d6ro{2..5}");
    assert_eq!(reading("omen", "2d6ro{5,1,3,1}"), "2d6ro{1, 3, 5}");
    assert_eq!(reading("omen", "2d6rr{1..2,4}"), "2d6rr{1, 2, 4}");
    assert_eq!(reading("roll20", "8d6ro{2..5}"), "8d6ro{2..5}");
    // The push of Year Zero: a die not showing 1 or 6 is rolled once more. A die ends on 6 with
    // probability 1/6 + 4/6 · 1/6 = 5/18, so the sixes are binomial(8, 5/18).
    let p = q(5, 18);
    let binomial: BTreeMap<Q, Q> = (0..=8u32)
        .map(|k| {
            let choose = (0..k).fold(Q::one(), |c, i| c * q(8 - i64::from(i), i64::from(i) + 1));
            let k_i = i64::from(k);
            (
                q(k_i, 1),
                choose * p.pow(k as i32) * (Q::one() - &p).pow(8 - k as i32),
            )
        })
        .collect();
    let got = omen("omen", "8d6ro{2..5}>=6").expect("computes");
    assert_eq!(got, binomial);
    // 1 − (13/18)⁸ ≈ 92.60 %, the push; the compounded steps give more.
    assert_eq!(Q::one() - &got[&Q::zero()], Q::one() - q(13, 18).pow(8));
    // Brute force over every first roll of three dice and every reroll.
    let mut want: BTreeMap<Q, Q> = BTreeMap::new();
    for first in rolls(3, 6) {
        let again: Vec<usize> = (0..3).filter(|i| (2..=5).contains(&first[*i])).collect();
        for second in rolls(again.len() as u32, 6) {
            let mut faces = first.clone();
            for (slot, face) in again.iter().zip(&second) {
                faces[*slot] = *face;
            }
            let weight = q(1, 6i64.pow(3 + again.len() as u32));
            *want.entry(q(faces.iter().sum(), 1)).or_insert_with(Q::zero) += weight;
        }
    }
    assert_eq!(omen("omen", "3d6ro{2..5}"), Ok(want.clone()));
    // The roller, run along every sequence of dice, agrees.
    let options = options("omen");
    let program = support::program("3d6ro{2..5}", &options);
    let sampled = support::brute_force(&program, &options.limits, 100_000).expect("small");
    let sampled: BTreeMap<Q, Q> = sampled
        .into_iter()
        .map(|(v, p)| {
            let Value::Int(v) = v else { panic!("{v:?}") };
            let (n, d) = (
                BigInt::from(p.numer().clone()),
                BigInt::from(p.denom().clone()),
            );
            (q(v, 1), Q::new(n, d))
        })
        .collect();
    assert_eq!(sampled, want);
    // Recursive over a set: the die is conditioned on the faces left, here 3, 5 and 6.
    let got = omen("omen", "1d6rr{1, 2, 4}").expect("computes");
    assert_eq!(
        got,
        BTreeMap::from([(q(3, 1), q(1, 3)), (q(5, 1), q(1, 3)), (q(6, 1), q(1, 3))])
    );
}

#[test]
fn a_reroll_set_too_wide_or_empty_is_an_error() {
    assert!(errors("omen", "1d100ro{1..70}").contains(&"bad-face-range"));
    assert!(errors("omen", "1d6ro{}").contains(&"empty-faces"));
    assert!(
        errors("omen", "1d6ro{-9223372036854775807..9223372036854775807}")
            .contains(&"bad-face-range")
    );
}

/// The sum of `n` independent dice, each scoring `score(face)` on a fair die with faces `1..=sides`.
fn sum_of_scores(n: usize, sides: i64, score: impl Fn(i64) -> i64) -> BTreeMap<Q, Q> {
    let mut out: BTreeMap<i64, Q> = BTreeMap::from([(0, Q::one())]);
    for _ in 0..n {
        let mut next = BTreeMap::new();
        for (total, p) in &out {
            for face in 1..=sides {
                *next.entry(total + score(face)).or_insert_with(Q::zero) += p * q(1, sides);
            }
        }
        out = next;
    }
    out.into_iter().map(|(v, p)| (q(v, 1), p)).collect()
}

#[test]
fn foundrys_bare_count_words_count_the_highest_or_lowest_face() {
    assert_eq!(reading("foundry", "10d6cs"), "10d6=6");
    assert_eq!(reading("foundry", "10d6cf"), "10d6=1");
    assert_eq!(
        omen("foundry", "10d6cs"),
        Ok(sum_of_scores(10, 6, |f| i64::from(f == 6)))
    );
    assert_eq!(
        omen("foundry", "4d8cf"),
        Ok(sum_of_scores(4, 8, |f| i64::from(f == 1)))
    );
    // Successes of 6 or more, less a failure for each die the count did not mark a success
    // (Foundry's own example, `6d6cs>3df`, reads so).
    assert_eq!(
        omen("foundry", "5d10cs>=6df"),
        Ok(sum_of_scores(5, 10, |f| if f >= 6 { 1 } else { -1 }))
    );
    // With rolled sides, each die rolled counts its own highest face: a d2 or a d3, one or two of
    // them, each as likely.
    assert_eq!(
        reading("foundry", "(1d2)d(1d2+1)cs"),
        "foundry(1d2, (1d2) + 1, \"cs\")"
    );
    let expected: BTreeMap<Q, Q> = [(0, q(67, 144)), (1, q(64, 144)), (2, q(13, 144))]
        .into_iter()
        .map(|(total, p)| (q(total, 1), p))
        .collect();
    assert_eq!(omen("foundry", "(1d2)d(1d2+1)cs"), Ok(expected));
}

/// Constructs the sources document whose meaning the engine does not compute. Each was read
/// another way before (`4d6rrl1` as a reroll of the 1s); Foundry's now run as Foundry runs them
/// (`5d10x21>=8`, `5d10x9x10x8x7x6`: see dialect_foundry_in_turn.rs).
#[test]
fn dialect_constructs_read_another_way_are_refused_as_unsupported() {
    assert!(reading("foundry", "5d10x9x10x8x7x6").starts_with("foundry(\""));
    let kinds = errors("avrae", "4d6rrl1");
    assert!(kinds.contains(&"unsupported-modifier"), "{kinds:?}");
    // Without the cap the same words read as before.
    assert_eq!(reading("foundry", "20d20r1"), "20d20ro=1");
    assert_eq!(reading("avrae", "1d6ra6"), "1d6!o=6");
}

#[test]
fn sorting_a_group_shows_it_sorted_and_leaves_the_total() {
    // rpg-dice-roller sorts group results for display; the total is 4d6 + 2d8.
    let mut want: BTreeMap<Q, Q> = BTreeMap::new();
    for (a, p) in sum_of_scores(4, 6, |f| f) {
        for (b, r) in sum_of_scores(2, 8, |f| f) {
            *want.entry(&a + &b).or_insert_with(Q::zero) += &p * &r;
        }
    }
    assert_eq!(omen("rpg-dice-roller", "{4d6, 2d8}sd"), Ok(want.clone()));
    assert_eq!(omen("roll20", "{4d6, 2d8}s"), Ok(want));
    assert!(errors("omen", "{4d6, 2d8}sa").contains(&"bad-group-modifier"));
}

#[test]
fn rpg_dice_roller_block_comments_are_whitespace() {
    assert_eq!(
        reading("rpg-dice-roller", "2d6 /* fire\ndamage */ + 1"),
        "(2d6) + 1"
    );
    assert_eq!(
        omen("rpg-dice-roller", "1d6/*x*/+1"),
        Ok(sum_of_scores(1, 6, |f| f + 1))
    );
    // Unclosed, it runs to the end.
    assert_eq!(reading("rpg-dice-roller", "1d6 /* note"), "1d6");
    // Elsewhere `/*` is a division followed by a stray `*`.
    assert!(!errors("omen", "2d6 /* x */ + 1").is_empty());
}

#[test]
fn roll20_inline_rolls_stand_for_their_total() {
    assert_eq!(reading("roll20", "[[2d6]]d5"), "(2d6)d5");
    assert_eq!(reading("roll20", "[[1d4+1]] + 2"), "((1d4) + 1) + 2");
    // (1d2)d2: one d2 (1/2) or the sum of two (1/2 · 2d2).
    let want = BTreeMap::from([
        (q(1, 1), q(1, 4)),
        (q(2, 1), q(1, 4) + q(1, 8)),
        (q(3, 1), q(2, 8)),
        (q(4, 1), q(1, 8)),
    ]);
    assert_eq!(omen("roll20", "[[1d2]]d2"), Ok(want));
    // A rolled point is rolled once before the dice (a number made of numbers is that number).
    assert_eq!(
        reading("roll20", "3d6>[[1d4]]"),
        "let inline_4 = (1d4) in (3d6>=inline_4)"
    );
    // Labels still read as labels.
    assert_eq!(reading("roll20", "2d6[fire]"), "(2d6)[fire]");
}

/// The uniform distribution over `values`, each 1/len.
fn uniform(values: impl IntoIterator<Item = Q>) -> BTreeMap<Q, Q> {
    let values: Vec<Q> = values.into_iter().collect();
    let n = i64::try_from(values.len()).expect("few values");
    let mut out = BTreeMap::new();
    for v in values {
        *out.entry(v).or_insert_with(Q::zero) += q(1, n);
    }
    out
}

fn point(v: Q) -> BTreeMap<Q, Q> {
    BTreeMap::from([(v, Q::one())])
}

#[test]
fn avrae_unary_plus_does_nothing() {
    assert_eq!(omen("avrae", "+3"), Ok(point(q(3, 1))));
    // 1d20 + 2: 3 to 22, each 1/20.
    assert_eq!(
        omen("avrae", "1d20 + +2"),
        Ok(uniform((3..=22).map(|v| q(v, 1))))
    );
    assert_eq!(reading("avrae", "1d20 + +2"), "(1d20) + 2");
    assert_eq!(omen("avrae", "-+3"), Ok(point(q(-3, 1))));
    // Omen's own notation has no unary plus.
    assert!(omen("omen", "+3").is_err());
}

#[test]
fn avrae_decimals_without_a_leading_digit_are_exact_fractions() {
    assert_eq!(omen("avrae", ".5"), Ok(point(q(1, 2))));
    assert_eq!(reading("avrae", ".25"), "div(1, 4)");
    // 1d4 + 1/2: 3/2, 5/2, 7/2, 9/2.
    assert_eq!(
        omen("avrae", "1d4 + .5"),
        Ok(uniform((1..=4).map(|v| q(2 * v + 1, 2))))
    );
    assert_eq!(omen("avrae", "1d4*.5"), omen("avrae", "1d4*0.5"));
    assert!(omen("roll20", ".5").is_err());
}

#[test]
fn avrae_sets_without_operations_are_their_total() {
    assert_eq!(omen("avrae", "(1,)"), Ok(point(q(1, 1))));
    assert_eq!(reading("avrae", "(1,)"), "{1}");
    assert_eq!(omen("avrae", "(1, 2, 3)"), Ok(point(q(6, 1))));
    assert_eq!(
        omen("avrae", "(1d4,) + 1"),
        Ok(uniform((2..=5).map(|v| q(v, 1))))
    );
    // A set of one with an operation: `(1d6,)kh1` is the one member.
    assert_eq!(
        omen("avrae", "(1d6,)kh1"),
        Ok(uniform((1..=6).map(|v| q(v, 1))))
    );
}

#[test]
fn avrae_comparisons_count_one_or_zero_in_arithmetic() {
    assert_eq!(omen("avrae", "1 + (2 == 2)"), Ok(point(q(2, 1))));
    assert_eq!(omen("avrae", "1 + (2 == 3)"), Ok(point(q(1, 1))));
    assert_eq!(omen("avrae", "-(1 < 2)"), Ok(point(q(-1, 1))));
    // 1d6 + (1d6 > 3): enumerate the 36 rolls.
    let mut want = BTreeMap::new();
    for r in rolls(2, 6) {
        let v = r[0] + i64::from(r[1] > 3);
        *want.entry(q(v, 1)).or_insert_with(Q::zero) += q(1, 36);
    }
    assert_eq!(omen("avrae", "1d6 + (1d6 > 3)"), Ok(want));
    // Standing alone a comparison stays true/false (1 or 0 in the helper).
    assert_eq!(reading("avrae", "1d20>10"), "(1d20) > 10");
}

#[test]
fn avrae_percent_die_is_the_tens_die() {
    // d20 rolls `randrange(10) * 10`: 0, 10, …, 90.
    assert_eq!(
        omen("avrae", "d%"),
        Ok(uniform((0..10).map(|v| q(10 * v, 1))))
    );
    let mut want = BTreeMap::new();
    for r in rolls(2, 10) {
        *want
            .entry(q(10 * (r[0] - 1) + 10 * (r[1] - 1), 1))
            .or_insert_with(Q::zero) += q(1, 100);
    }
    assert_eq!(omen("avrae", "2d%"), Ok(want));
    // Elsewhere d% is still 1 to 100.
    assert_eq!(omen("omen", "d%"), Ok(uniform((1..=100).map(|v| q(v, 1)))));
}

#[test]
fn avrae_value_selectors_on_a_set_keep_or_drop_members_by_value() {
    // (1, 2, 3)k1 keeps the 1; p3 drops the 3; k>1 keeps 2 and 3.
    assert_eq!(omen("avrae", "(1, 2, 3)k1"), Ok(point(q(1, 1))));
    assert_eq!(omen("avrae", "(1,2,3,4,5)p3"), Ok(point(q(12, 1))));
    assert_eq!(omen("avrae", "(1, 2, 3)k>1"), Ok(point(q(5, 1))));
    // (1d4, 3)k3: the d4 counts when it shows 3, the 3 always.
    let want = BTreeMap::from([(q(3, 1), q(3, 4)), (q(6, 1), q(1, 4))]);
    assert_eq!(omen("avrae", "(1d4, 3)k3"), Ok(want));
    // (1d4 + 1, 2)p<3: 1d4 + 1 is dropped when it shows 2, the 2 always.
    let want = uniform([0, 3, 4, 5].map(|v| q(v, 1)));
    assert_eq!(omen("avrae", "(1d4 + 1, 2)p<3"), Ok(want));
}

/// The distribution of the number of successes among `n` dice, each a success with probability `p`.
fn binomial(n: u32, p: Q) -> BTreeMap<Q, Q> {
    let mut out = BTreeMap::from([(Q::zero(), Q::one())]);
    for _ in 0..n {
        let mut next = BTreeMap::new();
        for (k, w) in out {
            *next.entry(k.clone()).or_insert_with(Q::zero) += w.clone() * (Q::one() - p.clone());
            *next.entry(k + Q::one()).or_insert_with(Q::zero) += w * p.clone();
        }
        out = next;
    }
    out
}

#[test]
fn dice_maiden_display_flags_leave_the_roll() {
    for written in ["4d6 p", "p 4d6", "s 4d6", "4d6 nr", "4d6 ul", "p s 4d6"] {
        assert_eq!(reading("dice-maiden", written), "4d6", "{written}");
    }
    assert_eq!(
        omen("dice-maiden", "s 4d6 k3"),
        omen("dice-maiden", "4d6 k3")
    );
}

#[test]
fn dice_maiden_bare_ie_explodes_on_the_highest_face_indefinitely() {
    assert_eq!(reading("dice-maiden", "2d6 ie"), "2d6!");
    assert_eq!(reading("dice-maiden", "2d6 e"), "2d6!o");
}

#[test]
fn dice_maiden_warhammer_alias_counts_the_dice_at_the_target() {
    // 3wh4+ is 3d6 t4: each die succeeds on 4, 5, 6, probability 1/2.
    assert_eq!(omen("dice-maiden", "3wh4+"), Ok(binomial(3, q(1, 2))));
    assert_eq!(reading("dice-maiden", "3wh4+"), "3d6>=4");
    assert_eq!(
        reading("dice-maiden", "3wh4+ + 1"),
        reading("dice-maiden", "3d6 t4 + 1")
    );
}

#[test]
fn dice_maiden_chronicles_of_darkness_aliases() {
    assert_eq!(
        reading("dice-maiden", "4cod"),
        reading("dice-maiden", "4d10 ie10 t8")
    );
    assert_eq!(
        reading("dice-maiden", "4cod8"),
        reading("dice-maiden", "4d10 ie8 t8")
    );
    assert_eq!(
        omen("dice-maiden", "4cod"),
        omen("dice-maiden", "4d10 ie10 t8")
    );
    // No success at all: every first roll shows 1 to 7 (a 10 explodes but is a success itself).
    let none = omen("dice-maiden", "4cod").expect("computes");
    assert_eq!(none[&Q::zero()], q(7, 10).pow(4));
    // Rote quality rerolls each failure (7 or less) once: success 3/10 + 7/10 · 3/10 = 51/100.
    assert_eq!(omen("dice-maiden", "4codr"), Ok(binomial(4, q(51, 100))));
}

/// Adds to `out` the success totals up to `bound` of `pending` d10s, each scored by `score`, a 10
/// adding a new die (checked again when `again`), as Dice Maiden explodes its dice before scoring them.
fn exploded_scores(
    (pending, total): (usize, i64),
    (score, again, bound): (fn(i64) -> i64, bool, i64),
    p: Q,
    out: &mut BTreeMap<Q, Q>,
) {
    if total > bound {
        return;
    }
    if pending == 0 {
        *out.entry(q(total, 1)).or_insert_with(Q::zero) += p;
        return;
    }
    for face in 1..=10 {
        let each = &p * q(1, 10);
        if face == 10 {
            // One die more: checked again under `ie`, scored only under `e`.
            let extra = if again { pending } else { pending - 1 };
            if !again {
                for added in 1..=10 {
                    let both = &each * q(1, 10);
                    let next = (extra, total + score(face) + score(added));
                    exploded_scores(next, (score, again, bound), both, out);
                }
                continue;
            }
            exploded_scores(
                (extra, total + score(face)),
                (score, again, bound),
                each,
                out,
            );
        } else {
            let next = (pending - 1, total + score(face));
            exploded_scores(next, (score, again, bound), each, out);
        }
    }
}

/// `4d10 t7 ds10 ie`: the bot explodes the 10s first, then scores every die, the added ones too.
/// A chain cut at the depth (3 here) scores four 2s: totals of 8 or more are left out. The mean
/// of the whole roll by Wald's identity: a die's chain has 10/9 dice of mean score 1/2, so 20/9
/// for four dice; under `e` a 10 adds one die, 11/20 a die, 11/5 for four.
#[test]
fn dice_maiden_double_successes_with_an_explosion_score_every_die() {
    let score: fn(i64) -> i64 = |f| i64::from(f >= 7) + i64::from(f >= 10);
    let mut want = BTreeMap::new();
    exploded_scores((2, 0), (score, true, 7), q(1, 1), &mut want);
    let got: BTreeMap<Q, Q> = omen("dice-maiden", "2d10 t7 ds10 ie")
        .expect("computes")
        .into_iter()
        .filter(|(t, _)| *t <= q(7, 1))
        .collect();
    assert_eq!(got, want);
    let mut once = BTreeMap::new();
    exploded_scores((3, 0), (score, false, 100), q(1, 1), &mut once);
    assert_eq!(omen("dice-maiden", "3d10 t7 ds10 e"), Ok(once));
    let mean = |d: &BTreeMap<Q, Q>| d.iter().map(|(v, p)| v * p).sum::<Q>();
    let four = omen("dice-maiden", "4d10 t7 ds10 e").expect("computes");
    assert_eq!(mean(&four), q(11, 5));
    let four = omen("dice-maiden", "4d10 ie t7 ds10").expect("computes");
    assert!(mean(&four) < q(20, 9) && q(20, 9) - mean(&four) < q(1, 1000));
}

#[test]
fn dice_maiden_double_successes_count_twice() {
    // t7ds10 on a d10 scores 0 (1–6), 1 (7–9) or 2 (10); enumerate two dice.
    let score = |f: i64| i64::from(f >= 7) + i64::from(f >= 10);
    let mut want = BTreeMap::new();
    for r in rolls(2, 10) {
        *want
            .entry(q(score(r[0]) + score(r[1]), 1))
            .or_insert_with(Q::zero) += q(1, 100);
    }
    assert_eq!(omen("dice-maiden", "2d10 t7ds10"), Ok(want));
    // tl2ds1 on a d6 looks down: a 1 scores 2, a 2 scores 1.
    let score = |f: i64| i64::from(f <= 2) + i64::from(f <= 1);
    let mut want = BTreeMap::new();
    for r in rolls(3, 6) {
        let v = r.iter().map(|&f| score(f)).sum::<i64>();
        *want.entry(q(v, 1)).or_insert_with(Q::zero) += q(1, 216);
    }
    assert_eq!(omen("dice-maiden", "3d6 tl2ds1"), Ok(want));
    // With an explosion whose faces the scores cannot tell apart (a 9 scores 1 as a 7 does, or 2 as
    // a 10 does), or without a target: refused. (With keeps: dialect_maiden_keeps.rs.)
    for refused in ["4d10 ds10", "4d10 t7ds10 ie9", "4d10 t7ds9 ie"] {
        assert!(
            errors("dice-maiden", refused).contains(&"unsupported-modifier"),
            "{refused}"
        );
    }
}

#[test]
fn roll20_inline_roll_as_a_point_stands_for_its_value() {
    // 3d6>[[1+3]] is 3d6>4, inclusive in Roll20: each die succeeds on 4, 5, 6.
    assert_eq!(omen("roll20", "3d6>[[1+3]]"), Ok(binomial(3, q(1, 2))));
    assert_eq!(reading("roll20", "3d6>[[1+3]]"), "3d6>=4");
    assert_eq!(reading("roll20", "4d6r<[[2*1]]"), "4d6rr<=2");
    // A rolled point: P(die ≥ t) = (7 − t)/6 for t = 1..4, each 1/4, so each die succeeds with
    // probability (6 + 5 + 4 + 3)/24 = 3/4 on average: the mean of 3 dice is 9/4.
    let got = omen("roll20", "3d6>[[1d4]]").expect("computes");
    let mean: Q = got.iter().map(|(v, p)| v * p).sum();
    assert_eq!(mean, q(9, 4));
}

#[test]
fn roll20_group_of_one_with_arithmetic_checks_each_die_with_it_added() {
    // {3d6+1}<3: each d6 + 1 at most 3, so each die at most 2: probability 1/3.
    assert_eq!(omen("roll20", "{3d6+1}<3"), Ok(binomial(3, q(1, 3))));
    assert_eq!(
        reading("roll20", "{3d6+1}<3"),
        "{(d6) + 1, (d6) + 1, (d6) + 1}<=3"
    );
    // {3d20+5}>21f<10: a die of 16 or more is +1 (1/4), one of 5 or less is −1 (1/4).
    let mut want = BTreeMap::new();
    for r in rolls(3, 20) {
        let v: i64 = r
            .iter()
            .map(|&f| i64::from(f + 5 >= 21) - i64::from(f + 5 <= 10))
            .sum();
        *want.entry(q(v, 1)).or_insert_with(Q::zero) += q(1, 8000);
    }
    assert_eq!(omen("roll20", "{3d20+5}>21f<10"), Ok(want));
    // {2d6*2}>8: each die doubled at least 8, so each die 4 or more.
    assert_eq!(omen("roll20", "{2d6*2}>8"), Ok(binomial(2, q(1, 2))));
    // Arithmetic with a roll after the dice is left to the general rule, which refuses it (division by a
    // whole number is read: dialect_modes.rs).
    assert!(errors("roll20", "{3d6/1d4}kh1").contains(&"group-of-one-dice"));
}

#[test]
fn rpg_dice_roller_fractions_are_group_members() {
    // {1d4/2, 1d2}kh1: the larger of d4/2 (1/2, 1, 3/2, 2) and d2 (1, 2); enumerate the 8 pairs.
    let mut want = BTreeMap::new();
    for a in 1..=4 {
        for b in 1..=2 {
            let v = std::cmp::max(q(a, 2), q(b, 1));
            *want.entry(v).or_insert_with(Q::zero) += q(1, 8);
        }
    }
    assert_eq!(omen("rpg-dice-roller", "{1d4/2, 1d2}kh1"), Ok(want));
    // {4d6/2, 3d4+3}: the sum of both, mean 14/2 + 15/2 + 3 = 35/2.
    let found = omen("rpg-dice-roller", "{4d6/2, 3d4+3}").expect("computes");
    let mean: Q = found.iter().map(|(v, p)| v * p).sum();
    assert_eq!(mean, q(35, 2));
    // The smallest total, 4/2 + 3 + 3 = 8, needs four 1s on the d6 (1/1296) and three on the d4 (1/64).
    assert_eq!(found[&q(8, 1)], q(1, 1296 * 64));
    // The roller keeps the same member as the exact engine, on every roll.
    let options = options("rpg-dice-roller");
    let program = support::program("{1d4/2, 1d2}kh1", &options);
    let rolled = support::brute_force(&program, &options.limits, 100).expect("8 rolls");
    assert_eq!(rolled, support::exact_map(&program, &options));
    // Counting successes with a fraction among the members: see dialect_more_constructs.rs.
}

#[test]
fn rpg_dice_roller_decimals_in_arithmetic_are_exact() {
    // 1d20 + 1.45 = k + 29/20; 1d20 * 0.20 = k/5.
    assert_eq!(
        omen("rpg-dice-roller", "1d20+1.45"),
        Ok(uniform((1..=20).map(|k| q(20 * k + 29, 20))))
    );
    assert_eq!(
        omen("rpg-dice-roller", "1d20*0.20"),
        Ok(uniform((1..=20).map(|k| q(k, 5))))
    );
}

/// The readings of the constructs above are Omen's notation: each compiles there and reads the same.
#[test]
fn new_dialect_readings_parse_back_in_omen() {
    for (dialect, source) in [
        ("avrae", "1d20 + +2"),
        ("avrae", "1d4 + .5"),
        ("avrae", "1 + (2 == 2)"),
        ("avrae", "2d%"),
        ("avrae", "(1d4, 3)k3"),
        ("avrae", "(1d4 + 1, 2)p<3"),
        ("avrae", "(1,)"),
        ("dice-maiden", "4cod"),
        ("dice-maiden", "dndstats"),
        ("avrae", "3d4ra>2"),
        ("avrae", "(1d4, 2, 1d6)ph1pl1"),
        ("dice-maiden", "4codr"),
        ("dice-maiden", "3wh4+"),
        ("dice-maiden", "6d10 t7ds10"),
        ("roll20", "3d6>[[1+3]]"),
        ("roll20", "{3d20+5}>21f<10"),
        ("roll20", "{3d6+1}kh1"),
        ("foundry", "3d6r1=1"),
        ("rpg-dice-roller", "{1d4/2, 1d2}>1f<1"),
        ("rpg-dice-roller", "{4d6/2, 3d4+3}kh1"),
    ] {
        let theirs = reading(dialect, source);
        assert_eq!(reading("omen", &theirs), theirs, "{dialect} {source}");
        assert_eq!(
            omen("omen", &theirs),
            omen(dialect, source),
            "{dialect} {source}"
        );
    }
}

#[test]
fn avrae_two_value_selectors_keep_what_either_selects() {
    // d20 merges `k1k2` into one keep whose selectors unite: the members showing 1 or 2.
    assert_eq!(omen("avrae", "(1, 2, 3)k1k2"), Ok(point(q(3, 1))));
    assert_eq!(omen("avrae", "(1, 2, 3, 4)p1p>3"), Ok(point(q(5, 1))));
    // On dice, each die scores its value when it shows 1 or 6, else 0: 4d6k1k6.
    let score = |f: i64| if f == 1 || f == 6 { f } else { 0 };
    let mut want = BTreeMap::new();
    for r in rolls(4, 6) {
        let v = r.iter().map(|&f| score(f)).sum::<i64>();
        *want.entry(q(v, 1)).or_insert_with(Q::zero) += q(1, 1296);
    }
    assert_eq!(omen("avrae", "4d6k1k6"), Ok(want));
    // (1d4, 2)k1k4: the d4 counts on 1 or 4; the 2 never.
    let want = BTreeMap::from([(q(0, 1), q(1, 2)), (q(1, 1), q(1, 4)), (q(4, 1), q(1, 4))]);
    assert_eq!(omen("avrae", "(1d4, 2)k1k4"), Ok(want));
    // A keep then a drop apply in turn; three selectors of one keep unite.
    assert_eq!(omen("avrae", "(1, 2, 3)k1p2"), Ok(point(q(1, 1))));
    assert_eq!(omen("avrae", "(1, 2, 3)k1k2k3"), Ok(point(q(6, 1))));
}

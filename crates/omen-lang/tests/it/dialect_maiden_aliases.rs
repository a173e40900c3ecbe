//! Dice Maiden's Exalted and Hero System aliases (`ex5`, `ex5t8`, `2hsn`, `5hsk1`, `3hsh`), read as
//! the bot's alias table rewrites them and as it reports them (Body and Stun, the Stun Multiplier).
//! Every expected distribution is enumerated here from that rule over every roll of the dice, never
//! read off Omen; the roller, run along every sequence of dice, must agree.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_traits::Zero;
use omen_lang::{Value, compile, exact};

use crate::dialects::{Q, options, q};
use crate::support;

/// Outcomes as lists of whole numbers (a number is a list of one).
type Outcomes = BTreeMap<Vec<i64>, Q>;

fn whole(value: &Value) -> Vec<i64> {
    match value {
        Value::Int(n) => vec![*n],
        Value::Tuple(items) => items.iter().flat_map(whole).collect(),
        other => panic!("not whole: {other:?}"),
    }
}

fn omen(source: &str) -> Outcomes {
    let options = options("dice-maiden");
    let checked = compile(source, &options).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    let result = exact(&checked.program, &options.limits).expect("computes");
    let values = result.distribution.values();
    let total = BigInt::from(values.total().clone());
    values
        .entries()
        .iter()
        .map(|(v, w)| (whole(v), Q::new(BigInt::from(w.clone()), total.clone())))
        .collect()
}

fn rolled(source: &str) -> Outcomes {
    let options = options("dice-maiden");
    let program = compile(source, &options).expect("compiles").program;
    let sampled = support::brute_force(&program, &options.limits, 200_000).expect("small");
    let mut out = Outcomes::new();
    for (v, p) in sampled {
        let p = Q::new(
            BigInt::from(p.numer().clone()),
            BigInt::from(p.denom().clone()),
        );
        *out.entry(whole(&v)).or_insert_with(Q::zero) += p;
    }
    out
}

fn reading(source: &str) -> String {
    match compile(source, &options("dice-maiden")) {
        Ok(checked) => checked.reading,
        Err(errors) => panic!("{source}: {errors:?}"),
    }
}

fn errors(source: &str) -> Vec<&'static str> {
    match compile(source, &options("dice-maiden")) {
        Ok(checked) => panic!("{source} reads {}", checked.reading),
        Err(errors) => errors.iter().map(|e| e.kind).collect(),
    }
}

/// The distribution of `score` over every roll of dice with the given sides.
fn enumerate(sides: &[i64], score: impl Fn(&[i64]) -> Vec<i64>) -> Outcomes {
    let mut rolls = vec![Vec::new()];
    for &s in sides {
        rolls = rolls
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
    let p = q(1, rolls.len() as i64);
    let mut out = Outcomes::new();
    for roll in &rolls {
        *out.entry(score(roll)).or_insert_with(Q::zero) += &p;
    }
    out
}

#[test]
fn dice_maiden_exalted_counts_a_success_for_each_target_a_die_meets() {
    // `ex3` is `3d10 t7 t10`: 7 to 9 one success, 10 two.
    let successes = |target: i64| {
        move |r: &[i64]| {
            vec![
                r.iter()
                    .map(|&f| i64::from(f >= target) + i64::from(f >= 10))
                    .sum(),
            ]
        }
    };
    assert_eq!(omen("ex3"), enumerate(&[10; 3], successes(7)));
    assert_eq!(omen("ex3t8"), enumerate(&[10; 3], successes(8)));
    assert_eq!(rolled("ex2t9"), enumerate(&[10; 2], successes(9)));
    assert_eq!(reading("ex5"), "5d{0,0,0,0,0,0,1,1,1,2}");
    assert_eq!(reading("ex5t8"), "5d{0,0,0,0,0,0,0,1,1,2}");
}

#[test]
fn dice_maiden_hero_system_normal_damage_is_body_and_stun() {
    // Body: a 1 counts 0, 2 to 5 count 1, a 6 counts 2; Stun: the total.
    let want = enumerate(&[6, 6, 6], |r| {
        let body = r
            .iter()
            .map(|&f| match f {
                1 => 0,
                6 => 2,
                _ => 1,
            })
            .sum();
        vec![body, r.iter().sum()]
    });
    assert_eq!(omen("3hsn"), want);
    assert_eq!(rolled("2hsn"), omen("2hsn"));
    assert_eq!(
        reading("2hsn"),
        "let hero_0 = pool {2d6} in (count(hero_0, >=2) + count(hero_0, =6), sum(hero_0))"
    );
}

#[test]
fn dice_maiden_hero_system_killing_damage_multiplies_the_body() {
    // Body: the total; Stun Multiplier: a d6 less 1 plus the number after `hsk`, 1 when that is 0.
    let killing = |m: i64| {
        move |r: &[i64]| {
            let (dice, stun_die) = r.split_at(r.len() - 1);
            let body: i64 = dice.iter().sum();
            let multiplier = match stun_die[0] - 1 + m {
                0 => 1,
                x => x,
            };
            vec![body, multiplier, body * multiplier]
        }
    };
    assert_eq!(omen("2hsk"), enumerate(&[6, 6, 6], killing(0)));
    assert_eq!(omen("2hsk1"), enumerate(&[6, 6, 6], killing(1)));
    // What follows the alias is added to the Body (the README's `5hsk1 +1d3`).
    assert_eq!(omen("2hsk1 +1d3"), enumerate(&[6, 6, 3, 6], killing(1)));
    assert_eq!(rolled("1hsk"), omen("1hsk"));
}

#[test]
fn dice_maiden_hero_system_to_hit_is_eleven_plus_the_level_less_three_dice() {
    let want = enumerate(&[6, 6, 6], |r| vec![11 + 3 - r.iter().sum::<i64>()]);
    assert_eq!(omen("3hsh"), want);
    let plus = enumerate(&[6, 6, 6], |r| vec![11 + 3 - r.iter().sum::<i64>() + 2]);
    assert_eq!(omen("3hsh + 2"), plus);
    assert_eq!(reading("3hsh"), "(11 + 3) - (3d6)");
}

/// The flags apply to the whole message: an alias inside a roll, or normal damage with more after
/// it (its Body counts every die of the roll), is refused rather than read otherwise.
#[test]
fn dice_maiden_hero_system_aliases_refused_inside_a_roll() {
    for source in ["1d4 + 2hsn", "2hsn + 1", "1 + 3hsh", "2hsk1 4d6"] {
        assert!(errors(source).contains(&"unsupported-modifier"), "{source}");
    }
}

/// Earthdawn's steps are the rolls of the bot's step table: the step's dice, each exploding, with
/// 2 and 1 taken off at steps 1 and 2. The fourth edition's table, as the bot writes it, leaves
/// some dice without `ie` (or puts it where the bot's tokenizer skips it), which then do not
/// explode; a warning says so. Steps past the tables are errors, as in the bot.
#[test]
fn dice_maiden_earthdawn_steps_roll_the_bots_table() {
    let cases = [
        ("ed1", "1d4 ie - 2"),
        ("ed2", "1d4 ie - 1"),
        ("ed8", "2d6 ie"),
        ("ed19", "1d20 ie + 2d6 ie"),
        ("ed30", "1d20 ie + 1d12 ie + 1d10 ie + 1d8 ie"),
        ("ed36", "2d20 ie + 1d10 ie + 1d8 ie + 1d4 ie"),
        ("ed4e1", "1d4 - 2"),
        ("ed4e14", "2d12 ie"),
        ("ed4e15", "1d12 + 2d6 ie"),
        ("ed4e20", "1d20 + 1d8 + 1d6 ie"),
        ("ed4e38", "2d20 + 1d12 ie + 1d8 ie + 1d6"),
    ];
    for (step, roll) in cases {
        assert_eq!(omen(step), omen(roll), "{step}");
        let warned = compile(step, &options("dice-maiden"))
            .expect("reads")
            .warnings
            .iter()
            .any(|w| w.kind == "alias-differs-from-table");
        let plain_dice = step.starts_with("ed4e") && step != "ed4e14";
        assert_eq!(warned, plain_dice, "{step}");
    }
    assert_eq!(reading("ed19 + 2"), "((1d20!) + (2d6!)) + 2");
    // Steps 29 and 30 are the same roll in the bot's table.
    assert_eq!(reading("ed29"), reading("ed30"));
    for step in 1..=50 {
        assert!(reading(&format!("ed{step}")).contains('!'), "ed{step}");
    }
    for step in 1..=40 {
        let _ = reading(&format!("ed4e{step}"));
    }
    for refused in ["ed0", "ed51", "ed4e0", "ed4e41"] {
        assert_eq!(errors(refused), ["unknown-step"], "{refused}");
    }
}

/// Several rolls in one message, separated by `;`, are a tuple of independent results: the joint
/// distribution is the product of each roll's own. At most four, as the bot takes.
#[test]
fn dice_maiden_rolls_separated_by_semicolons_are_independent_results() {
    assert_eq!(reading("2d6 ; 3d4 k2"), "(2d6, 3d4kh2)");
    assert_eq!(reading("p 2d4; 3 1d4;"), "(2d4, sum(pool {3 x (1d4)}))");
    let (a, b) = (omen("2d4"), omen("3d4 k2"));
    let mut want = Outcomes::new();
    for (x, p) in &a {
        for (y, r) in &b {
            want.insert(vec![x[0], y[0]], p * r);
        }
    }
    assert_eq!(omen("2d4 ; 3d4 k2"), want);
    assert_eq!(rolled("2d4 ; 3d4 k2"), want);
    assert_eq!(errors("1d4;1d6;1d8;1d10;1d12"), ["too-many-rolls"]);
}

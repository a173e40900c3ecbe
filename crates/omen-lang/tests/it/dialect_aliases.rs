//! Dice Maiden's aliases (its alias table, rewritten into rolls before they are read), against the
//! rolls the table writes. Every expected distribution is worked out here by enumerating the dice.

use num_traits::Zero;
use omen_lang::compile;

use crate::dialects::{Fractions, Q, omen, options, q};

/// The distribution of `score` over every roll of dice with the given sides, one die each.
fn enumerate(sides: &[i64], score: impl Fn(&[i64]) -> i64) -> Fractions {
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
    let mut out = Fractions::new();
    for roll in &rolls {
        *out.entry(q(score(roll), 1)).or_insert_with(Q::zero) += &p;
    }
    out
}

fn reading(source: &str) -> (String, Vec<&'static str>) {
    match compile(source, &options("dice-maiden")) {
        Ok(checked) => (
            checked.reading,
            checked.warnings.iter().map(|w| w.kind).collect(),
        ),
        Err(errors) => panic!("{source}: {errors:?}"),
    }
}

fn count(roll: &[i64], meets: impl Fn(i64) -> bool) -> i64 {
    roll.iter().filter(|&&f| meets(f)).count() as i64
}

#[test]
fn a_sign_glued_to_a_bare_die_is_advantage_or_disadvantage() {
    // `+d20` is `2d20 d1`: the higher of two; `-d20` is `2d20 kl1`: the lower.
    let higher = enumerate(&[20, 20], |r| r[0].max(r[1]));
    assert_eq!(omen("dice-maiden", "+d20"), Ok(higher));
    let lower = enumerate(&[20, 20], |r| r[0].min(r[1]));
    assert_eq!(omen("dice-maiden", "-d20"), Ok(lower.clone()));
    assert_eq!(
        omen("dice-maiden", "3 + -d20"),
        Ok(lower.into_iter().map(|(v, p)| (v + q(3, 1), p)).collect())
    );
    // The percentile forms roll the tens twice for roll-under systems: advantage keeps the lower.
    let advantage = enumerate(&[10, 10, 10], |r| (r[0].min(r[1]) - 1) * 10 + r[2]);
    assert_eq!(omen("dice-maiden", "+d%"), Ok(advantage));
    let disadvantage = enumerate(&[10, 10, 10], |r| (r[0].max(r[1]) - 1) * 10 + r[2]);
    assert_eq!(omen("dice-maiden", "-d%"), Ok(disadvantage));
    // After a space in the middle of a roll it reads as minus a die, with a warning naming the alias.
    let (read, warnings) = reading("1d20 -d4");
    assert_eq!(read, "(1d20) - (d4)");
    assert_eq!(warnings, ["sign-before-die-is-advantage"]);
    assert!(reading("1d20-d4").1.is_empty());
    // A warning names the other reading; Omen's own notation keeps minus a die.
    let (read, warnings) = reading("-d20");
    assert_eq!(read, "2d20kl1");
    assert_eq!(warnings, ["sign-before-die-is-advantage"]);
    assert_eq!(
        compile("-d20", &options("omen")).expect("compiles").reading,
        "-(d20)"
    );
}

#[test]
fn game_aliases_roll_what_the_alias_table_writes() {
    // Shadowrun `sr6`: 6d6, successes on 5 or 6.
    assert_eq!(
        omen("dice-maiden", "sr6"),
        Ok(enumerate(&[6; 6], |r| count(r, |f| f >= 5)))
    );
    // Year Zero `4yz`: 4d6, successes on 6.
    assert_eq!(
        omen("dice-maiden", "4yz"),
        Ok(enumerate(&[6; 4], |r| count(r, |f| f == 6)))
    );
    // World of Darkness `4wod8`: 4d10 t8 f1, as the bot rolls it (its README adds `ie10`).
    let wod = enumerate(&[10; 4], |r| count(r, |f| f >= 8) - count(r, |f| f == 1));
    assert_eq!(omen("dice-maiden", "4wod8"), Ok(wod));
    assert_eq!(reading("4wod8").1, ["alias-differs-from-readme"]);
    // `dd34`: one die per digit, (1d3 * 10) + 1d4.
    assert_eq!(
        omen("dice-maiden", "dd34"),
        Ok(enumerate(&[3, 4], |r| r[0] * 10 + r[1]))
    );
    // AGE `age`: 2d6 + 1d6; D&D quick rolls are a d20.
    assert_eq!(
        omen("dice-maiden", "age"),
        Ok(enumerate(&[6; 3], |r| r.iter().sum()))
    );
    assert_eq!(
        omen("dice-maiden", "attack +5"),
        Ok(enumerate(&[20], |r| r[0] + 5))
    );
    assert_eq!(
        omen("dice-maiden", "skill -2"),
        Ok(enumerate(&[20], |r| r[0] - 2))
    );
    // The exploding ones, by their reading.
    assert_eq!(reading("snm5").0, "5d6!>=6>=4");
    assert_eq!(reading("sp4").0, "4d10!>=10>=8");
    assert_eq!(reading("d6s4").0, "(4d6) + (1d6!)");
    assert_eq!(reading("d6s").0, "1d6!");
    // Glued to more, an alias is not one (Dice Maiden's aliases end at a word boundary).
    assert!(compile("sr6x", &options("dice-maiden")).is_err());
}

#[test]
fn a_chat_command_before_the_roll_is_dropped() {
    for (dialect, source) in [
        ("roll20", "/roll 1d20+5"),
        ("roll20", "/gmroll 1d20+5"),
        ("roll20", "/r 1d20 + 5"),
        ("foundry", "/r 1d20+5"),
        ("foundry", "/gmr 1d20+5"),
        ("avrae", "!r 1d20+5"),
        ("dice-maiden", "/roll 1d20 +5"),
    ] {
        let checked = compile(source, &options(dialect)).expect("compiles");
        assert_eq!(checked.reading, "(1d20) + 5", "{dialect} {source}");
    }
    // Only at the start and only the source's own commands; Omen's notation has none.
    assert!(compile("/roll 1d20", &options("omen")).is_err());
    assert!(compile("1d20 /r 2", &options("roll20")).is_err());
}

//! Dice Maiden's dice terms run the way its dice library, Dice-Bag, runs them, written here from
//! that library's procedure and never from Omen: the words read into one number each (the last
//! written counts; targets gather into a list), the library's corrections applied (a reroll at or
//! above the sides, and a drop and keep that together reach every die first rolled, are reset to
//! 0; a target or failure number past the sides is removed), then each die rolled with its reroll
//! once on the larger of `r` and `ir` and rerolls while at or below `ir`, each die exploding once
//! on `e` or `ie` and the added dice again while at or above `ie`, every die added going through
//! the same rerolls; the dice sorted from highest, the lowest `d` dropped, then the lowest `kl`
//! kept or, without `kl`, the highest `k` and the highest `b`; the total the sum or, with targets
//! or a failure number, for each target the dice meeting it less the dice at or below the failure
//! number.

use crate::dialects::{Fractions, Q};
use crate::tape::{Stop, Tape, every_sequence};

/// A term's words as the library holds them: 0 where a word is not given.
#[derive(Clone, Debug, Default)]
pub struct Words {
    explode: i64,
    explode_indefinite: i64,
    drop: usize,
    keep: usize,
    lowest: usize,
    reroll: i64,
    reroll_indefinite: i64,
    targets: Vec<i64>,
    failure: i64,
    botch: usize,
}

/// The words written after `count`d`sides` (`["e", "k2", "t3"]`), read and corrected as the
/// library reads and corrects them.
pub fn words(count: usize, sides: i64, written: &[&str]) -> Words {
    let mut w = Words::default();
    for word in written {
        let split = word
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(word.len());
        let (name, number) = word.split_at(split);
        let n: Option<i64> = number.parse().ok();
        let at = |n: Option<i64>| n.expect("a number") as usize;
        match name {
            "e" => w.explode = n.unwrap_or(sides),
            "ie" => w.explode_indefinite = n.unwrap_or(sides),
            "d" => w.drop = at(n),
            "k" => w.keep = at(n),
            "kl" => w.lowest = at(n),
            "r" => w.reroll = n.expect("a number"),
            "ir" => w.reroll_indefinite = n.expect("a number"),
            "t" => w.targets.push(n.expect("a number")),
            "f" => w.failure = n.expect("a number"),
            "b" => w.botch = at(n),
            other => panic!("not a Dice-Bag word: {other}"),
        }
    }
    if w.reroll >= sides {
        w.reroll = 0;
    }
    if w.drop + w.keep >= count {
        w.drop = 0;
        w.keep = 0;
    }
    w.targets.retain(|&t| (0..=sides).contains(&t));
    if !(0..=sides).contains(&w.failure) {
        w.failure = 0;
    }
    w
}

/// One die: the library's reroll once, then its rerolls while at or below `ir` (at most 100).
fn roll_die(w: &Words, tape: &mut Tape) -> Result<i64, Stop> {
    let mut face = tape.roll()?;
    if face <= w.reroll || face <= w.reroll_indefinite {
        face = tape.roll()?;
    }
    for _ in 0..100 {
        if face > w.reroll_indefinite {
            break;
        }
        face = tape.roll()?;
    }
    Ok(face)
}

fn run(count: usize, w: &Words, tape: &mut Tape) -> Result<i64, Stop> {
    let mut dice = Vec::new();
    for _ in 0..count {
        let mut face = roll_die(w, tape)?;
        dice.push(face);
        let meets = |face: i64, point: i64| point != 0 && face >= point;
        if meets(face, w.explode) || meets(face, w.explode_indefinite) {
            face = roll_die(w, tape)?;
            dice.push(face);
        }
        if w.explode_indefinite != 0 {
            let mut series = 0;
            while face >= w.explode_indefinite {
                series += 1;
                face = roll_die(w, tape)?;
                dice.push(face);
                if series >= 100 {
                    break;
                }
            }
        }
    }
    dice.sort_unstable_by(|a, b| b.cmp(a));
    dice.truncate(dice.len().saturating_sub(w.drop));
    if w.lowest > 0 {
        dice.reverse();
        dice.truncate(w.lowest);
    } else {
        for n in [w.keep, w.botch] {
            if n > 0 {
                dice.truncate(n);
            }
        }
    }
    let at_most = |point: i64| dice.iter().filter(|&&f| f <= point).count() as i64;
    Ok(if !w.targets.is_empty() {
        w.targets
            .iter()
            .map(|&t| dice.iter().filter(|&&f| f >= t).count() as i64 - at_most(w.failure))
            .sum()
    } else if w.failure > 0 {
        -at_most(w.failure)
    } else {
        dice.iter().sum()
    })
}

/// The distribution of `count`d`sides` with the words `written`, over every sequence of faces that
/// rolls at most `cap` dice, and the mass cut there.
pub fn distribution(count: usize, sides: i64, written: &[&str], cap: usize) -> (Fractions, Q) {
    let w = words(count, sides, written);
    every_sequence(sides, cap, |tape| run(count, &w, tape))
}

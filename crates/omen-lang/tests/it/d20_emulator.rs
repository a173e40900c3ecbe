//! Avrae's dice operations run the way its d20 library runs them, written here from the library's
//! documented procedure and never from Omen: a list of dice, each with its last face and whether it
//! is kept; operations applied in the order written, consecutive operations of one kind (other than
//! `mi`, `ma`) joined into one with all their selectors; every selector picking from the kept dice
//! only, rank selectors sorting them by face with the earlier of equal dice first. The walk tries
//! every sequence of faces, each weighted by 1/sides per die rolled, and cuts a sequence that rolls
//! more than a set number of dice (an explosion or a reroll that keeps going), reporting the mass it
//! cut so that a comparison can allow for it.

use crate::dialects::{Fractions, Q};
use crate::tape::{Stop, Tape, every_sequence};

/// A d20 selector.
#[derive(Clone, Copy, Debug)]
pub enum Sel {
    /// `X`: the dice showing X.
    Is(i64),
    /// `hX`: the X highest.
    High(usize),
    /// `lX`: the X lowest.
    Low(usize),
    /// `>X`: the dice above X.
    Above(i64),
    /// `<X`: the dice below X.
    Below(i64),
}

impl Sel {
    fn written(self) -> String {
        match self {
            Sel::Is(x) => x.to_string(),
            Sel::High(n) => format!("h{n}"),
            Sel::Low(n) => format!("l{n}"),
            Sel::Above(x) => format!(">{x}"),
            Sel::Below(x) => format!("<{x}"),
        }
    }
}

/// One operation as written: its word (`k`, `p`, `rr`, `ro`, `ra`, `e`, `mi`, `ma`) and selector.
#[derive(Clone, Copy, Debug)]
pub struct Op {
    pub word: &'static str,
    pub sel: Sel,
}

/// The term written in d20's notation.
pub fn written(count: usize, sides: i64, ops: &[Op]) -> String {
    let mut out = format!("{count}d{sides}");
    for op in ops {
        out.push_str(op.word);
        out.push_str(&op.sel.written());
    }
    out
}

#[derive(Clone, Debug)]
struct Die {
    face: i64,
    kept: bool,
}

/// The kept dice a selector picks, by their place in the list, at most `max` of them.
fn select(dice: &[Die], sel: Sel, max: Option<usize>) -> Vec<usize> {
    let kept: Vec<usize> = (0..dice.len()).filter(|&i| dice[i].kept).collect();
    let mut picked: Vec<usize> = match sel {
        Sel::Is(x) => kept.into_iter().filter(|&i| dice[i].face == x).collect(),
        Sel::Above(x) => kept.into_iter().filter(|&i| dice[i].face > x).collect(),
        Sel::Below(x) => kept.into_iter().filter(|&i| dice[i].face < x).collect(),
        Sel::High(n) => {
            let mut by = kept;
            // A stable sort in reverse keeps the earlier of equal dice first, as Python's does.
            by.sort_by_key(|&i| std::cmp::Reverse(dice[i].face));
            by.truncate(n);
            by
        }
        Sel::Low(n) => {
            let mut by = kept;
            by.sort_by_key(|&i| dice[i].face);
            by.truncate(n);
            by
        }
    };
    if let Some(max) = max {
        picked.truncate(max);
    }
    picked
}

/// The union of what each selector picks; with `max`, the selectors fill it in order.
fn select_all(dice: &[Die], sels: &[Sel], max: Option<usize>) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for &sel in sels {
        let room = max.map(|m| m - out.len());
        if room == Some(0) {
            break;
        }
        for i in select(dice, sel, room) {
            if !out.contains(&i) {
                out.push(i);
            }
        }
    }
    out.sort_unstable();
    out
}

fn apply(
    dice: &mut Vec<Die>,
    word: &str,
    sels: &[Sel],
    sides: i64,
    tape: &mut Tape,
) -> Result<(), Stop> {
    match word {
        "k" => {
            let before: Vec<usize> = (0..dice.len()).filter(|&i| dice[i].kept).collect();
            for i in before {
                if !select_all(dice, sels, None).contains(&i) {
                    dice[i].kept = false;
                }
            }
        }
        "p" => {
            for i in select_all(dice, sels, None) {
                dice[i].kept = false;
            }
        }
        "ro" => {
            for i in select_all(dice, sels, None) {
                dice[i].face = tape.roll()?;
            }
        }
        "rr" => loop {
            let picked = select_all(dice, sels, None);
            if picked.is_empty() {
                break;
            }
            for i in picked {
                dice[i].face = tape.roll()?;
            }
        },
        "ra" => {
            for _ in select_all(dice, sels, Some(1)) {
                let face = tape.roll()?;
                dice.push(Die { face, kept: true });
            }
        }
        "e" => {
            let mut done: Vec<usize> = Vec::new();
            loop {
                let picked: Vec<usize> = select_all(dice, sels, None)
                    .into_iter()
                    .filter(|i| !done.contains(i))
                    .collect();
                if picked.is_empty() {
                    break;
                }
                for i in picked {
                    done.push(i);
                    let face = tape.roll()?;
                    dice.push(Die { face, kept: true });
                }
            }
        }
        "mi" | "ma" => {
            let Some(&Sel::Is(bound)) = sels.last() else {
                panic!("d20 refuses a minimum or maximum with a selector category")
            };
            for die in dice.iter_mut().filter(|d| d.kept) {
                if (word == "mi" && die.face < bound) || (word == "ma" && die.face > bound) {
                    die.face = bound;
                }
            }
        }
        other => panic!("not a d20 operation: {other}"),
    }
    let _ = sides;
    Ok(())
}

/// d20's joining of consecutive operations of one kind, `mi` and `ma` excepted.
fn joined(ops: &[Op]) -> Vec<(&'static str, Vec<Sel>)> {
    let mut out: Vec<(&'static str, Vec<Sel>)> = Vec::new();
    for op in ops {
        match out.last_mut() {
            Some((word, sels)) if *word == op.word && !matches!(op.word, "mi" | "ma") => {
                sels.push(op.sel);
            }
            _ => out.push((op.word, vec![op.sel])),
        }
    }
    out
}

fn run(count: usize, sides: i64, ops: &[Op], tape: &mut Tape) -> Result<i64, Stop> {
    let mut dice = Vec::new();
    for _ in 0..count {
        dice.push(Die {
            face: tape.roll()?,
            kept: true,
        });
    }
    for (word, sels) in joined(ops) {
        apply(&mut dice, word, &sels, sides, tape)?;
    }
    Ok(dice.iter().filter(|d| d.kept).map(|d| d.face).sum())
}

/// The distribution of the term's total over every sequence of faces that rolls at most `cap` dice,
/// and the mass of the sequences cut there.
pub fn distribution(count: usize, sides: i64, ops: &[Op], cap: usize) -> (Fractions, Q) {
    every_sequence(sides, cap, |tape| run(count, sides, ops, tape))
}

/// The total d20 keeps of a set whose members show `values`, its keeps and drops run as for dice.
pub fn set_total(values: &[i64], ops: &[Op]) -> i64 {
    let mut members: Vec<Die> = values
        .iter()
        .map(|&face| Die { face, kept: true })
        .collect();
    let mut tape = Tape::empty();
    for (word, sels) in joined(ops) {
        assert!(
            matches!(word, "k" | "p"),
            "a set takes keeps and drops only"
        );
        if apply(&mut members, word, &sels, 0, &mut tape).is_err() {
            unreachable!("keeps and drops roll nothing");
        }
    }
    members.iter().filter(|m| m.kept).map(|m| m.face).sum()
}

/// The operations written after a set, in d20's notation.
pub fn written_ops(ops: &[Op]) -> String {
    ops.iter()
        .map(|op| format!("{}{}", op.word, op.sel.written()))
        .collect()
}

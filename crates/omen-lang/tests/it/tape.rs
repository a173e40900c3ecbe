//! What the emulators of other rollers share: a tape of faces that a procedure reads one die at a
//! time, and the walk over every sequence of faces, each weighted by 1/sides per die rolled, that
//! cuts a sequence rolling more than a set number of dice and reports the mass it cut.

use std::collections::BTreeMap;

use num_traits::Zero;

use crate::dialects::{Fractions, Q, q};

/// The faces of one walk: read from `tape`, and past its end the walk stops and asks for more.
pub struct Tape<'a> {
    tape: &'a [i64],
    used: usize,
    cap: usize,
}

/// Why a procedure stopped before its total.
pub enum Stop {
    /// The walk needs the next face.
    More,
    /// The walk rolled more dice than the cap.
    Cut,
}

impl Tape<'_> {
    /// The next die's face.
    pub fn roll(&mut self) -> Result<i64, Stop> {
        if self.used == self.cap {
            return Err(Stop::Cut);
        }
        let face = *self.tape.get(self.used).ok_or(Stop::More)?;
        self.used += 1;
        Ok(face)
    }

    /// A tape that rolls nothing.
    pub fn empty() -> Tape<'static> {
        Tape {
            tape: &[],
            used: 0,
            cap: 0,
        }
    }
}

/// The distribution of what `run` totals over every sequence of faces 1 to `sides` that rolls at
/// most `cap` dice, and the mass of the sequences cut there.
pub fn every_sequence(
    sides: i64,
    cap: usize,
    run: impl Fn(&mut Tape) -> Result<i64, Stop>,
) -> (Fractions, Q) {
    let mut out: BTreeMap<Q, Q> = BTreeMap::new();
    let mut cut = Q::zero();
    let mut stack: Vec<Vec<i64>> = vec![Vec::new()];
    while let Some(prefix) = stack.pop() {
        let mut tape = Tape {
            tape: &prefix,
            used: 0,
            cap,
        };
        let weight = q(1, sides).pow(prefix.len() as i32);
        match run(&mut tape) {
            Ok(total) => *out.entry(q(total, 1)).or_insert_with(Q::zero) += weight,
            Err(Stop::Cut) => cut += weight,
            Err(Stop::More) => {
                for face in 1..=sides {
                    let mut next = prefix.clone();
                    next.push(face);
                    stack.push(next);
                }
            }
        }
    }
    (out, cut)
}

/// Where two distributions differ by more than `slack` (what the two sides cut), said for `source`.
pub fn differs(source: &str, got: &Fractions, reference: &Fractions, slack: &Q) -> Option<String> {
    use num_traits::Signed;
    for total in got.keys().chain(reference.keys()) {
        let a = got.get(total).cloned().unwrap_or_else(Q::zero);
        let b = reference.get(total).cloned().unwrap_or_else(Q::zero);
        if (&a - &b).abs() > *slack {
            return Some(format!(
                "{source}: P({total}) is {a} in Omen, {b} in its source"
            ));
        }
    }
    None
}

/// Every term of one or two of `all` that `keep` admits, checked by `check`: how many were checked
/// and why each that failed did.
pub fn one_or_two<T: Copy>(
    all: &[T],
    keep: impl Fn(&[T]) -> bool,
    check: impl Fn(&[T]) -> Result<(), String>,
) -> (usize, Vec<String>) {
    let mut wrong = Vec::new();
    let mut cases = 0;
    for a in all {
        for case in std::iter::once(vec![*a]).chain(all.iter().map(|b| vec![*a, *b])) {
            if !keep(&case) {
                continue;
            }
            cases += 1;
            if let Err(why) = check(&case) {
                wrong.push(why);
            }
        }
    }
    (cases, wrong)
}

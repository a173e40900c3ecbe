//! Where a logged roll's dice come from, and the record of every die it rolled.

use omen_core::{ChaChaDice, CoreError, Die, DieSource, RecordingDice, ScriptedDice};
use serde::{Deserialize, Serialize};

/// The dice for one roll: a seed for the portable seeded roller, the values of dice rolled at the
/// table (used in order), or, in a campaign, a seed the store derives from its key and the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dice {
    /// A chosen seed: for rolls outside a campaign. A campaign refuses it, since a chosen seed is a
    /// chosen roll.
    Seed(u64),
    /// Dice rolled elsewhere; a campaign logs them marked as given.
    Given(Vec<i64>),
    /// The seed the campaign's log gives the next entry (see [`crate::Store::act`]).
    Derived,
}

impl Dice {
    /// The seed to record, when there is one.
    pub fn seed(&self) -> Option<u64> {
        match self {
            Dice::Seed(seed) => Some(*seed),
            Dice::Given(_) | Dice::Derived => None,
        }
    }
}

/// One die as rolled: which die (`d50`, `dF`, `d{1,1,2}`), its number of faces, and the face shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolledDie {
    pub die: String,
    pub sides: u64,
    pub face: i64,
}

/// A die source that remembers every face it gave, so the log holds the exact dice even of a seeded
/// roll and a replay needs no roller at all.
pub(crate) struct Recording {
    recorder: RecordingDice<Source>,
}

enum Source {
    // Boxed: the seeded roller's state is ten times the size of a script.
    Seeded(Box<ChaChaDice>),
    Given(ScriptedDice),
}

impl DieSource for Source {
    fn roll(&mut self, die: &Die) -> Result<i64, CoreError> {
        match self {
            Source::Seeded(dice) => dice.roll(die),
            Source::Given(dice) => dice.roll(die),
        }
    }
}

impl Recording {
    pub(crate) fn new(dice: &Dice) -> Self {
        let source = match dice {
            Dice::Seed(seed) => Source::Seeded(Box::new(ChaChaDice::from_seed(*seed))),
            Dice::Given(values) => Source::Given(ScriptedDice::new(values.clone())),
            // Resolved to a seed by the store before anything rolls; rolling with none is a bug
            // caught here as no dice at all.
            Dice::Derived => Source::Given(ScriptedDice::new(Vec::new())),
        };
        Recording {
            recorder: RecordingDice::new(source),
        }
    }

    /// Replays recorded dice.
    pub(crate) fn replay(rolled: &[RolledDie]) -> Self {
        Recording::new(&Dice::Given(rolled.iter().map(|d| d.face).collect()))
    }

    /// Given values the roll did not use.
    pub(crate) fn unused(&self) -> &[i64] {
        match self.recorder.inner() {
            Source::Seeded(_) => &[],
            Source::Given(scripted) => scripted.remaining(),
        }
    }

    /// Every die rolled so far, as the log records it.
    pub(crate) fn rolled(&self) -> Vec<RolledDie> {
        self.recorder
            .rolled()
            .iter()
            .map(|r| RolledDie {
                die: r.die.clone(),
                sides: r.sides,
                face: r.face,
            })
            .collect()
    }
}

impl DieSource for Recording {
    fn roll(&mut self, die: &Die) -> Result<i64, CoreError> {
        self.recorder.roll(die)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_seeded_faces_and_replays_them() {
        let mut seeded = Recording::new(&Dice::Seed(42));
        let faces: Vec<i64> = (0..5)
            .map(|_| seeded.roll(&Die::Standard(50)).unwrap())
            .collect();
        assert_eq!(seeded.rolled().len(), 5);
        assert!(
            seeded
                .rolled()
                .iter()
                .all(|d| d.die == "d50" && d.sides == 50)
        );
        let mut replay = Recording::replay(&seeded.rolled());
        let again: Vec<i64> = (0..5)
            .map(|_| replay.roll(&Die::Standard(50)).unwrap())
            .collect();
        assert_eq!(faces, again);
        assert!(replay.roll(&Die::Standard(50)).is_err());
    }

    #[test]
    fn given_dice_report_what_was_left() {
        let mut given = Recording::new(&Dice::Given(vec![3, 4, 5]));
        given.roll(&Die::Standard(6)).unwrap();
        assert_eq!(given.unused(), &[4, 5]);
        assert!(given.roll(&Die::Fudge).is_err());
        assert_eq!(given.rolled().len(), 1);
    }
}

//! What a term run in turn is: its dice and its operations, each with the selectors that pick the
//! dice it acts on; shared by the walk over multisets and the walk die by die.

use crate::dice::Die;
use crate::error::CoreError;

/// What an operation picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selector {
    /// The dice showing this face.
    Is(i64),
    /// The dice above this face.
    Above(i64),
    /// The dice below this face.
    Below(i64),
    /// The highest this many dice.
    Highest(u64),
    /// The lowest this many dice.
    Lowest(u64),
}

impl Selector {
    /// Whether the selector picks by the face alone (not by rank).
    pub fn by_value(self) -> bool {
        !matches!(self, Selector::Highest(_) | Selector::Lowest(_))
    }

    pub(super) fn meets(self, face: i64) -> bool {
        match self {
            Selector::Is(x) => face == x,
            Selector::Above(x) => face > x,
            Selector::Below(x) => face < x,
            Selector::Highest(_) | Selector::Lowest(_) => false,
        }
    }
}

/// The operation's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    Keep,
    Drop,
    Reroll,
    RerollOnce,
    RerollAndAdd,
    Explode,
    Minimum,
    Maximum,
}

/// One operation with its selectors (several when d20 joins consecutive operations of one kind).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub word: Word,
    pub selectors: Vec<Selector>,
}

/// `count` dice of `die`, then `steps` in turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InTurn {
    pub count: u64,
    pub die: Die,
    pub steps: Vec<Step>,
}

impl InTurn {
    /// Refuses what never ends (a reroll by rank until none is picked, a reroll until that every
    /// face meets) and what no selector can mean (`mi`, `ma` by rank).
    ///
    /// # Errors
    /// `Unsupported` or `RerollEverything`.
    pub fn check(&self) -> Result<(), CoreError> {
        for step in &self.steps {
            if let Some(refused) = step.refusal() {
                return Err(refused);
            }
            if step.word == Word::Reroll && self.settled_faces(&step.selectors).is_empty() {
                return Err(CoreError::RerollEverything);
            }
        }
        Ok(())
    }

    pub(super) fn faces(&self) -> Vec<i64> {
        (0..self.die.face_count())
            .map(|i| self.die.face(i))
            .collect()
    }

    /// The faces a reroll until none is picked can settle on.
    pub(super) fn settled_faces(&self, selectors: &[Selector]) -> Vec<i64> {
        self.faces()
            .into_iter()
            .filter(|&f| !selectors.iter().any(|s| s.meets(f)))
            .collect()
    }
}

impl Step {
    /// Why d20 cannot run this operation on any die: a reroll by rank until none is picked never
    /// ends, and a minimum or maximum is a face, not a rank.
    pub fn refusal(&self) -> Option<CoreError> {
        match self.word {
            Word::Reroll if self.selectors.iter().any(|s| !s.by_value()) => Some(
                CoreError::Unsupported("rerolls by rank until none is picked, which never end,"),
            ),
            Word::Minimum | Word::Maximum
                if !matches!(self.selectors.last(), Some(Selector::Is(_))) =>
            {
                Some(CoreError::Unsupported("minimums and maximums by rank"))
            }
            _ => None,
        }
    }

    /// The face a `mi` or `ma` leaves of `face` (its bound is checked to be a face, the last
    /// selector written as d20 takes it).
    pub(super) fn clamp(&self, face: i64) -> i64 {
        match (self.word, self.selectors.last()) {
            (Word::Minimum, Some(Selector::Is(bound))) => face.max(*bound),
            (Word::Maximum, Some(Selector::Is(bound))) => face.min(*bound),
            _ => face,
        }
    }
}

/// What one state of a walk costs per face it is crossed with, besides its limbs.
pub(super) const STATE_COST: u64 = 64;

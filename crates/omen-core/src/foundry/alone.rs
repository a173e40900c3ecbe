//! A term whose dice meet the modifiers each on its own: with no keep or drop (which compare the
//! results) and no cap (which the earliest results spend), a reroll, explosion, clamp or count
//! checks each result by its own face and marks, and a result rolled by a modifier meets that
//! modifier again (when it walks new results) and the ones after it, whatever the others do.
//!
//! So one result and the results it rolls are followed alone, from the modifier that rolled it:
//! their total is a tree's, each new result's subtree independent of the rest. A result is known by
//! its face and marks, the modifier it is at and its generation, so the trees of alike results are
//! computed once. This takes several explosions (`1d6x6x5x6x5x6`), each of which walks every result
//! so far, in time linear in the depth, where walking every list of results grows with it.

use std::collections::BTreeMap;

use num_traits::{One, Zero};

use super::step::STATE_COST;
use super::{FoundryTerm, Modifier, Rolled};
use crate::distribution::{Distribution, Probability};
use crate::error::CoreError;
use crate::limits::{Budget, Limits};
use crate::part::{self, Part};

/// Where a result is: its face and marks, the next modifier it meets, its generation.
type At = (Rolled, usize, u64);

pub(super) struct Alone<'a> {
    modifiers: Vec<Modifier>,
    faces: Vec<i64>,
    limits: &'a Limits,
    budget: &'a mut Budget,
    memo: BTreeMap<At, Part>,
}

impl<'a> Alone<'a> {
    /// The term's modifiers but its margins, which apply to the sum of all the dice.
    pub fn new(term: &FoundryTerm, limits: &'a Limits, budget: &'a mut Budget) -> Self {
        let margin =
            |m: &Modifier| matches!(m, Modifier::MarginSuccess(_) | Modifier::MarginFailure(_));
        Alone {
            modifiers: term
                .modifiers
                .iter()
                .copied()
                .filter(|m| !margin(m))
                .collect(),
            faces: term.faces(),
            limits,
            budget,
            memo: BTreeMap::new(),
        }
    }

    /// One die: each face alike, followed through every modifier.
    pub fn die(&mut self) -> Result<Part, CoreError> {
        let faces = self.faces.clone();
        self.rolled(&faces, 0, 0)
    }

    /// A new result showing each of `faces` alike, meeting the modifiers from `from`.
    fn rolled(&mut self, faces: &[i64], from: usize, generation: u64) -> Result<Part, CoreError> {
        let parts = (faces.iter())
            .map(|&f| self.follow((Rolled::new(f), from, generation)))
            .collect::<Result<Vec<Part>, _>>()?;
        part::alike(parts, self.budget)
    }

    /// The total of the result at `at` and of every result it rolls from there.
    fn follow(&mut self, at: At) -> Result<Part, CoreError> {
        if let Some(known) = self.memo.get(&at) {
            return Ok(known.clone());
        }
        self.budget.spend(STATE_COST)?;
        let part = self.walk(at)?;
        self.memo.insert(at, part.clone());
        Ok(part)
    }

    /// `generation` counts the results rolled by the step at `from` before this one, as the walks
    /// count generations: within each step, the results there when it starts being the first.
    fn walk(&mut self, (mut r, from, generation): At) -> Result<Part, CoreError> {
        for i in from..self.modifiers.len() {
            let m = self.modifiers[i];
            let Some(step) = m.step() else {
                r.mark(&m);
                continue;
            };
            if !step.point.meets(r.face) {
                continue;
            }
            let g = if i == from { generation } else { 0 };
            // Only explosions run on without end: a reroll until no face meets the point is
            // rolled among the others at once, and other rerolls each roll one result.
            if step.explode && g >= self.limits.explode_depth {
                // Left as rolled, as the roller leaves it; the branch is cut.
                let (d, _) = self.follow((r, i + 1, 0))?;
                return Ok((d, Probability::one()));
            }
            // The new result meets this step again when it walks new results, one generation on;
            // one rerolled until no face meets the point is rolled among the faces that do not.
            let faces = step.new_faces(&self.faces);
            let child = if step.recursive && step.explode {
                self.rolled(&faces, i, g + 1)?
            } else {
                self.rolled(&faces, i + 1, 0)?
            };
            if !step.explode {
                return Ok(child);
            }
            let rest = self.follow((r, i + 1, 0))?;
            return part::add(&rest, &child, self.limits, self.budget);
        }
        Ok((Distribution::constant(r.counted()), Probability::zero()))
    }
}

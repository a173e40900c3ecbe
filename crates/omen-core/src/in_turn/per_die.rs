//! The terms whose every selector picks by the face (`4d6ro1e6ro2`, `8d6e5e6`): no operation looks at
//! more than one die, so each die rolled first, with the dice its explosions add, gives its own
//! total independently of the others, and the term is the sum of `count` such totals. This walks one
//! die through the operations, whatever its face, instead of every multiset of faces.

use std::collections::BTreeMap;

use num_traits::{One, Zero};

use super::term::{InTurn, STATE_COST, Word};
use crate::distribution::{Distribution, Probability};
use crate::error::CoreError;
use crate::limits::{Budget, Limits};
use crate::part::{self, Part};

struct Walk<'a> {
    term: &'a InTurn,
    faces: Vec<i64>,
    limits: &'a Limits,
    budget: &'a mut Budget,
    met: BTreeMap<(usize, i64), Part>,
    chain: BTreeMap<(usize, u64), Part>,
}

/// Whether the term can be walked die by die.
pub(super) fn applies(term: &InTurn) -> bool {
    term.steps
        .iter()
        .all(|s| s.word != Word::RerollAndAdd && s.selectors.iter().all(|x| x.by_value()))
}

/// The term's distribution, die by die (see the module).
pub(super) fn distribution(
    term: &InTurn,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Part, CoreError> {
    let faces: Vec<i64> = (0..term.die.face_count())
        .map(|i| term.die.face(i))
        .collect();
    let mut walk = Walk {
        term,
        faces: faces.clone(),
        limits,
        budget,
        met: BTreeMap::new(),
        chain: BTreeMap::new(),
    };
    let one = walk.mix(&faces, |w, f| w.meet(0, f))?;
    part::sum_of(&one, term.count, limits, walk.budget)
}

impl Walk<'_> {
    /// Each face alike, then `then` of it.
    fn mix(
        &mut self,
        faces: &[i64],
        mut then: impl FnMut(&mut Self, i64) -> Result<Part, CoreError>,
    ) -> Result<Part, CoreError> {
        let parts = (faces.iter())
            .map(|&f| then(self, f))
            .collect::<Result<Vec<Part>, _>>()?;
        part::alike(parts, self.budget)
    }

    fn add(&mut self, a: Part, b: Part) -> Result<Part, CoreError> {
        part::add(&a, &b, self.limits, self.budget)
    }

    /// A die showing `face` as operation `i` meets it.
    fn meet(&mut self, i: usize, face: i64) -> Result<Part, CoreError> {
        if let Some(done) = self.met.get(&(i, face)) {
            return Ok(done.clone());
        }
        let part = self.meet_uncached(i, face)?;
        self.met.insert((i, face), part.clone());
        Ok(part)
    }

    fn meet_uncached(&mut self, i: usize, face: i64) -> Result<Part, CoreError> {
        let Some(step) = self.term.steps.get(i) else {
            return Ok((Distribution::constant(face), Probability::zero()));
        };
        self.budget.spend(STATE_COST)?;
        let picked = step.selectors.iter().any(|s| s.meets(face));
        let nothing = || (Distribution::constant(0), Probability::zero());
        match step.word {
            Word::Keep if picked => self.meet(i + 1, face),
            Word::Drop if !picked => self.meet(i + 1, face),
            Word::Keep | Word::Drop => Ok(nothing()),
            Word::RerollOnce if picked => {
                let faces = self.faces.clone();
                self.mix(&faces, |w, g| w.meet(i + 1, g))
            }
            Word::Reroll if picked => {
                let settled = self.term.settled_faces(&step.selectors);
                self.mix(&settled, |w, g| w.meet(i + 1, g))
            }
            Word::Explode if picked => {
                let rest = self.meet(i + 1, face)?;
                if self.limits.explode_depth == 0 {
                    return Ok((rest.0, Probability::one()));
                }
                let more = self.chain(i, 1)?;
                self.add(rest, more)
            }
            Word::Minimum | Word::Maximum => self.meet(i + 1, step.clamp(face)),
            _ => self.meet(i + 1, face),
        }
    }

    /// A die an explosion at operation `i` adds, in generation `generation` of it.
    fn chain(&mut self, i: usize, generation: u64) -> Result<Part, CoreError> {
        if let Some(done) = self.chain.get(&(i, generation)) {
            return Ok(done.clone());
        }
        let faces = self.faces.clone();
        let selectors = self.term.steps[i].selectors.clone();
        let depth = self.limits.explode_depth;
        let part = self.mix(&faces, |w, g| {
            let rest = w.meet(i + 1, g)?;
            if !selectors.iter().any(|s| s.meets(g)) {
                return Ok(rest);
            }
            if generation >= depth {
                return Ok((rest.0, Probability::one()));
            }
            let more = w.chain(i, generation + 1)?;
            w.add(rest, more)
        })?;
        self.chain.insert((i, generation), part.clone());
        Ok(part)
    }
}

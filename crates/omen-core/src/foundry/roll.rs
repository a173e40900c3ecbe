//! One roll of a Foundry term, its results walked as Foundry walks them.

use super::step::Step;
use super::{FoundryTerm, Modifier, Rolled, discarded};
use crate::dice::Die;
use crate::error::CoreError;
use crate::limits::Limits;
use crate::roller::DieSource;
use crate::spec::{Mark, RolledDie};

/// A result with what the transcript shows of it.
struct Rolling {
    result: Rolled,
    active: bool,
    generation: u64,
    shown: RolledDie,
}

impl Rolling {
    fn new(face: i64, generation: u64) -> Self {
        Rolling {
            result: Rolled::new(face),
            active: true,
            generation,
            shown: RolledDie::new(face),
        }
    }

    fn mark(&mut self, mark: Mark) {
        if !self.shown.has(mark) {
            self.shown.marks.push(mark);
        }
    }
}

/// One roll of the term: the total, and each result with its marks (the value it counts).
///
/// # Errors
/// As [`FoundryTerm::check`], and what the source gives.
pub fn roll(
    term: &FoundryTerm,
    limits: &Limits,
    source: &mut dyn DieSource,
) -> Result<(i64, Vec<RolledDie>), CoreError> {
    term.check()?;
    let mut results: Vec<Rolling> = Vec::new();
    for _ in 0..term.count {
        results.push(Rolling::new(source.roll(&term.die)?, 0));
    }
    for m in &term.modifiers {
        if let Some(step) = m.step() {
            walk(step, term, &mut results, limits, source)?;
            continue;
        }
        match *m {
            Modifier::Keep { count, highest } | Modifier::Drop { count, highest } => {
                let active: Vec<usize> =
                    (0..results.len()).filter(|&i| results[i].active).collect();
                let faces: Vec<i64> = active.iter().map(|&i| results[i].result.face).collect();
                let keep = matches!(m, Modifier::Keep { .. });
                for (i, gone) in active
                    .into_iter()
                    .zip(discarded(&faces, count, keep, highest))
                {
                    if gone {
                        results[i].active = false;
                        results[i].mark(Mark::Dropped);
                    }
                }
            }
            _ => {
                for r in results.iter_mut().filter(|r| r.active) {
                    let before = r.result.count;
                    r.result.mark(m);
                    let clamp = matches!(m, Modifier::Minimum(_) | Modifier::Maximum(_));
                    if clamp && r.result.count != before {
                        r.mark(Mark::Clamped);
                    }
                }
            }
        }
    }
    finish(term, results)
}

/// The total of the active results, and the transcript.
fn finish(term: &FoundryTerm, results: Vec<Rolling>) -> Result<(i64, Vec<RolledDie>), CoreError> {
    let sum = results
        .iter()
        .filter(|r| r.active)
        .try_fold(0i64, |t, r| t.checked_add(r.result.counted()))
        .ok_or(CoreError::Overflow)?;
    let total = term.with_margin(sum)?;
    let any_dropped = results.iter().any(|r| r.shown.has(Mark::Dropped));
    let mut shown = Vec::with_capacity(results.len());
    for mut r in results {
        r.shown.value = r.result.counted();
        if r.result.success == Some(true) {
            r.mark(Mark::Success);
        }
        if r.result.failure == Some(true) {
            r.mark(Mark::Failure);
        }
        // As for the other terms, the kept results are marked only beside dropped ones.
        if any_dropped && r.active {
            r.mark(Mark::Kept);
        }
        shown.push(r.shown);
    }
    Ok((total, shown))
}

/// A reroll or explosion, walking the results in order.
fn walk(
    step: Step,
    term: &FoundryTerm,
    results: &mut Vec<Rolling>,
    limits: &Limits,
    source: &mut dyn DieSource,
) -> Result<(), CoreError> {
    // Generations count within each step, as the exact walks count them: the results there when
    // it starts are its first.
    for r in results.iter_mut() {
        r.generation = 0;
    }
    let initial = results.len();
    let mut left = step.cap;
    let mut checked = 0;
    // An uncapped reroll until no face meets the point: one roll among the faces that do not,
    // as the exact walk counts it, so that no source can keep it rolling.
    let die = Die::Custom(step.new_faces(&term.faces()));
    loop {
        let end = if step.recursive {
            results.len()
        } else {
            initial
        };
        if checked >= end || left == Some(0) {
            return Ok(());
        }
        let r = &mut results[checked];
        checked += 1;
        if !r.active || !step.point.meets(r.result.face) {
            continue;
        }
        // The exact walks stop explosions and capped steps at the depth; an uncapped reroll
        // rolls one result, or settles at once.
        if r.generation >= limits.explode_depth && (step.explode || step.cap.is_some()) {
            r.mark(Mark::DepthLimit);
            continue;
        }
        if let Some(left) = &mut left {
            *left -= 1;
        }
        // An uncapped reroll replaces the result in its generation, as the exact walks count it.
        let generation = r.generation + u64::from(step.explode || step.cap.is_some());
        if step.explode {
            r.mark(Mark::Exploded);
        } else {
            r.active = false;
            r.mark(Mark::Rerolled);
        }
        results.push(Rolling::new(source.roll(&die)?, generation));
    }
}

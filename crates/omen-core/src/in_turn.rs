//! Dice operations applied in turn, each to the dice kept so far, as Avrae's d20 library applies
//! them: keep and drop (`k`, `p`), reroll until (`rr`), reroll once (`ro`), reroll one die and add
//! (`ra`), explode (`e`), minimum and maximum (`mi`, `ma`), each with selectors that pick from the
//! dice kept at that moment (a face, above or below a face, the highest or lowest few).
//!
//! Omen's own dice terms put their modifiers in one fixed order, and a die's rerolls, clamps and
//! explosions form one chain; here a later operation sees exactly what the earlier ones left: a
//! reroll after a clamp rolls an unclamped die, an explosion's new dice meet only the operations
//! after it, a reroll by rank picks among the dice still kept.
//!
//! The exact walk carries the multiset of kept faces, which is all a later operation can tell apart:
//! among dice showing one face, which is which matters only inside an explosion by rank, where d20
//! picks the earlier of equal dice first and the dice that already exploded are always the earlier
//! ones (they were picked first), so a flag per die is enough there: a die is `(face, pending)`,
//! `pending` while it has not exploded, and in the tuples' own order the exploded dice of a face
//! come first.

use std::collections::BTreeMap;

use num_traits::{One, Zero};

use crate::dice::Die;
use crate::distribution::{Distribution, Probability, Weight, from_probabilities};
use crate::error::CoreError;
use crate::limits::{Budget, Limits};
use crate::spec::{Mark, RolledDie};

mod per_die;
mod term;

use term::STATE_COST;
pub use term::{InTurn, Selector, Step, Word};

/// The places in `faces` (sorted ascending) that `selectors` pick: their union. d20's rank
/// selectors take the earlier of equal dice first, so of dice showing one face the highest and the
/// lowest picks take the same ones, never two apart.
fn picked(faces: &[i64], selectors: &[Selector]) -> Vec<bool> {
    let dice: Vec<(i64, bool)> = faces.iter().map(|&f| (f, true)).collect();
    picked_exploding(&dice, selectors)
}

/// Each multiset of dice, sorted, with its probability.
type Walk<T> = BTreeMap<Vec<T>, Probability>;
type States = Walk<i64>;

impl InTurn {
    /// The exact distribution of the total of the dice kept at the end, and the probability that an
    /// explosion was stopped at `limits.explode_depth` rounds while dice still met it.
    ///
    /// # Errors
    /// As [`InTurn::check`]; `TooManyStates`, `WorkBudget`, `Cancelled`, `Overflow`.
    pub fn distribution(
        &self,
        limits: &Limits,
        budget: &mut Budget,
    ) -> Result<(Distribution<i64>, Probability), CoreError> {
        self.check()?;
        if per_die::applies(self) {
            return per_die::distribution(self, limits, budget);
        }
        let faces = self.faces();
        let mut states: States = BTreeMap::from([(Vec::new(), Probability::one())]);
        for _ in 0..self.count {
            states = with_fresh(&states, &faces, limits, budget)?;
        }
        let mut truncated = Probability::zero();
        for step in &self.steps {
            states = match step.word {
                Word::Explode => {
                    let (next, cut) = explode(&states, &faces, &step.selectors, limits, budget)?;
                    truncated += cut;
                    next
                }
                _ => self.apply(step, &states, &faces, limits, budget)?,
            };
        }
        let mut totals: BTreeMap<i64, Probability> = BTreeMap::new();
        for (kept, p) in states {
            let total = kept
                .iter()
                .try_fold(0i64, |t, &f| t.checked_add(f))
                .ok_or(CoreError::Overflow)?;
            *totals.entry(total).or_insert_with(Probability::zero) += p;
        }
        Ok((from_probabilities(totals, budget)?, truncated))
    }

    /// One operation other than an explosion, on every state.
    fn apply(
        &self,
        step: &Step,
        states: &States,
        faces: &[i64],
        limits: &Limits,
        budget: &mut Budget,
    ) -> Result<States, CoreError> {
        let mut out: States = BTreeMap::new();
        for (kept, p) in states {
            let pick = picked(kept, &step.selectors);
            let chosen = pick.iter().filter(|&&b| b).count();
            // The dice picked (or not), still sorted.
            let picking = |wanted: bool| -> Vec<i64> {
                kept.iter()
                    .zip(&pick)
                    .filter(|(_, b)| **b == wanted)
                    .map(|(f, _)| *f)
                    .collect()
            };
            let alone = |dice: Vec<i64>| BTreeMap::from([(dice, p.clone())]);
            let next: States = match step.word {
                Word::Keep => alone(picking(true)),
                Word::Drop => alone(picking(false)),
                Word::RerollOnce => (0..chosen).try_fold(alone(picking(false)), |s, _| {
                    with_fresh(&s, faces, limits, budget)
                })?,
                Word::Reroll => {
                    let settled = self.settled_faces(&step.selectors);
                    (0..chosen).try_fold(alone(picking(false)), |s, _| {
                        with_fresh(&s, &settled, limits, budget)
                    })?
                }
                Word::RerollAndAdd if chosen > 0 => {
                    with_fresh(&alone(kept.clone()), faces, limits, budget)?
                }
                Word::RerollAndAdd => alone(kept.clone()),
                Word::Minimum | Word::Maximum => {
                    let mut clamped: Vec<i64> = kept.iter().map(|&f| step.clamp(f)).collect();
                    clamped.sort_unstable();
                    alone(clamped)
                }
                Word::Explode => unreachable!("explosions are walked apart"),
            };
            for (k, q) in next {
                *out.entry(k).or_insert_with(Probability::zero) += q;
            }
        }
        limits.check_states(out.len() as u128)?;
        Ok(out)
    }
}

/// Every state with one more die, showing each of `faces` alike, each state kept sorted.
fn with_fresh<T: Ord + Clone>(
    states: &Walk<T>,
    faces: &[T],
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Walk<T>, CoreError> {
    with_fresh_after(states, faces, |x, f| x <= f, limits, budget)
}

/// Every state with one more die, showing each of `faces` alike, put after the dice of the state
/// that `after(die, new)` says go before it (the dice sorted by what `after` compares).
pub(crate) fn with_fresh_after<T: Ord + Clone>(
    states: &Walk<T>,
    faces: &[T],
    after: impl Fn(&T, &T) -> bool,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Walk<T>, CoreError> {
    let share = Probability::new(Weight::one(), Weight::from(faces.len()));
    let mut out: Walk<T> = BTreeMap::new();
    for (kept, p) in states {
        budget.spend(STATE_COST * faces.len() as u64 * (kept.len() as u64 + 1))?;
        let q = p * &share;
        for f in faces {
            let mut next = kept.clone();
            let at = next.partition_point(|x| after(x, f));
            next.insert(at, f.clone());
            *out.entry(next).or_insert_with(Probability::zero) += &q;
        }
    }
    limits.check_states(out.len() as u128)?;
    Ok(out)
}

/// A die in an explosion: its face, and whether it is still to explode in this operation.
type Exploding = Walk<(i64, bool)>;

/// The places an explosion's selectors pick among dice sorted by face, the dice that exploded first
/// among equal faces (they are the earlier dice, which d20's rank selectors prefer).
fn picked_exploding(dice: &[(i64, bool)], selectors: &[Selector]) -> Vec<bool> {
    let n = dice.len();
    let mut out = vec![false; n];
    for &s in selectors {
        match s {
            Selector::Highest(k) => {
                // Highest first; among equal faces, the exploded (earlier) dice first.
                let mut order: Vec<usize> = (0..n).collect();
                order.sort_by_key(|&i| (std::cmp::Reverse(dice[i].0), dice[i].1));
                for &i in order.iter().take(k as usize) {
                    out[i] = true;
                }
            }
            Selector::Lowest(k) => {
                let mut order: Vec<usize> = (0..n).collect();
                order.sort_by_key(|&i| dice[i]);
                for &i in order.iter().take(k as usize) {
                    out[i] = true;
                }
            }
            _ => {
                for (o, d) in out.iter_mut().zip(dice) {
                    *o |= s.meets(d.0);
                }
            }
        }
    }
    out
}

/// `e`: the picked dice that have not exploded yet each add a die, round after round, until none
/// is picked or `explode_depth` rounds have been rolled; the mass still exploding then is returned.
fn explode(
    states: &States,
    faces: &[i64],
    selectors: &[Selector],
    limits: &Limits,
    budget: &mut Budget,
) -> Result<(States, Probability), CoreError> {
    let mut live: Exploding = states
        .iter()
        .map(|(k, p)| (k.iter().map(|&f| (f, true)).collect(), p.clone()))
        .collect();
    let new_dice: Vec<(i64, bool)> = faces.iter().map(|&f| (f, true)).collect();
    let mut done: States = BTreeMap::new();
    let mut cut = Probability::zero();
    for round in 0..=limits.explode_depth {
        let mut next: Exploding = BTreeMap::new();
        for (dice, p) in live {
            let pick = picked_exploding(&dice, selectors);
            let fresh = dice.iter().zip(&pick).filter(|(d, b)| **b && d.1).count();
            if fresh == 0 || round == limits.explode_depth {
                if fresh > 0 {
                    cut += &p;
                }
                let mut kept: Vec<i64> = dice.iter().map(|d| d.0).collect();
                kept.sort_unstable();
                *done.entry(kept).or_insert_with(Probability::zero) += p;
                continue;
            }
            let mut marked: Vec<(i64, bool)> = dice
                .iter()
                .zip(&pick)
                .map(|(d, b)| (d.0, d.1 && !*b))
                .collect();
            marked.sort_unstable();
            let mut grown: Exploding = BTreeMap::from([(marked, p)]);
            for _ in 0..fresh {
                grown = with_fresh(&grown, &new_dice, limits, budget)?;
            }
            for (d, q) in grown {
                *next.entry(d).or_insert_with(Probability::zero) += q;
            }
        }
        limits.check_states(next.len() as u128)?;
        live = next;
        if live.is_empty() {
            break;
        }
    }
    Ok((done, cut))
}

/// One roll of the term, d20's way: each die with its rolls and marks, and the total kept.
///
/// # Errors
/// As [`InTurn::check`], and what the source gives.
pub fn roll(
    term: &InTurn,
    limits: &Limits,
    source: &mut dyn crate::roller::DieSource,
) -> Result<(i64, Vec<RolledDie>), CoreError> {
    term.check()?;
    let mut dice: Vec<RolledDie> = Vec::new();
    for _ in 0..term.count {
        dice.push(RolledDie::new(source.roll(&term.die)?));
    }
    for step in &term.steps {
        run_step(term, step, &mut dice, limits, source)?;
    }
    let total = kept(&dice)
        .iter()
        .try_fold(0i64, |t, &i| t.checked_add(dice[i].value))
        .ok_or(CoreError::Overflow)?;
    // As for the other terms, the kept dice are marked only beside dropped ones.
    if dice.iter().any(|d| d.has(Mark::Dropped)) {
        for d in dice.iter_mut().filter(|d| !d.has(Mark::Dropped)) {
            d.marks.push(Mark::Kept);
        }
    }
    Ok((total, dice))
}

fn kept(dice: &[RolledDie]) -> Vec<usize> {
    (0..dice.len())
        .filter(|&i| !dice[i].has(Mark::Dropped))
        .collect()
}

/// The kept dice the selectors pick, in the list's order; with `max`, the selectors fill it in
/// turn, each by its own order (rank selectors take the earlier of equal dice first).
fn select(dice: &[RolledDie], selectors: &[Selector], max: Option<usize>) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for &s in selectors {
        let room = max.map_or(usize::MAX, |m| m.saturating_sub(out.len()));
        if room == 0 {
            break;
        }
        let mut these: Vec<usize> = kept(dice);
        match s {
            Selector::Highest(k) => {
                these.sort_by_key(|&i| std::cmp::Reverse(dice[i].value));
                these.truncate(k as usize);
            }
            Selector::Lowest(k) => {
                these.sort_by_key(|&i| dice[i].value);
                these.truncate(k as usize);
            }
            _ => these.retain(|&i| s.meets(dice[i].value)),
        }
        these.truncate(room);
        for i in these {
            if !out.contains(&i) {
                out.push(i);
            }
        }
    }
    out.sort_unstable();
    out
}

/// `k` or `p`: the dice the selectors pick kept (the others dropped), or dropped.
fn keep_or_drop(step: &Step, dice: &mut [RolledDie]) {
    let picked = select(dice, &step.selectors, None);
    let dropped: Vec<usize> = match step.word {
        Word::Keep => kept(dice)
            .into_iter()
            .filter(|i| !picked.contains(i))
            .collect(),
        _ => picked,
    };
    for i in dropped {
        dice[i].marks.push(Mark::Dropped);
    }
}

/// The total of the members of a d20 set, showing `values`, that its keeps and drops
/// (`(1, 2, 3)k1kh1`) leave, applied in turn as for dice, and which those are; other operations are
/// for dice only and leave them all.
///
/// # Errors
/// `Overflow`.
pub fn kept_total(values: &[i64], steps: &[Step]) -> Result<(i64, Vec<bool>), CoreError> {
    let mut members: Vec<RolledDie> = values.iter().map(|&v| RolledDie::new(v)).collect();
    for step in steps {
        if matches!(step.word, Word::Keep | Word::Drop) {
            keep_or_drop(step, &mut members);
        }
    }
    let kept: Vec<bool> = members.iter().map(|m| !m.has(Mark::Dropped)).collect();
    let total = values
        .iter()
        .zip(&kept)
        .filter(|(_, k)| **k)
        .try_fold(0i64, |t, (v, _)| t.checked_add(*v))
        .ok_or(CoreError::Overflow)?;
    Ok((total, kept))
}

fn reroll_die(d: &mut RolledDie, face: i64) {
    if !d.marks.contains(&Mark::Rerolled) {
        d.marks.push(Mark::Rerolled);
    }
    d.rolls.push(face);
    d.value = face;
}

fn run_step(
    term: &InTurn,
    step: &Step,
    dice: &mut Vec<RolledDie>,
    limits: &Limits,
    source: &mut dyn crate::roller::DieSource,
) -> Result<(), CoreError> {
    let sels = &step.selectors;
    match step.word {
        Word::Keep | Word::Drop => keep_or_drop(step, dice),
        Word::RerollOnce => {
            for i in select(dice, sels, None) {
                let face = source.roll(&term.die)?;
                reroll_die(&mut dice[i], face);
            }
        }
        Word::Reroll => {
            // By the face (checked), each picked die is rolled until it shows a face no selector
            // picks: one roll among those faces, so that no source can keep it rolling.
            let settled = Die::Custom(term.settled_faces(sels));
            for i in select(dice, sels, None) {
                let face = source.roll(&settled)?;
                reroll_die(&mut dice[i], face);
            }
        }
        Word::RerollAndAdd => {
            for i in select(dice, sels, Some(1)) {
                dice[i].marks.push(Mark::Exploded);
                dice.push(RolledDie::new(source.roll(&term.die)?));
            }
        }
        Word::Explode => {
            let mut exploded: Vec<usize> = Vec::new();
            for round in 0..=limits.explode_depth {
                let chosen: Vec<usize> = select(dice, sels, None)
                    .into_iter()
                    .filter(|i| !exploded.contains(i))
                    .collect();
                if chosen.is_empty() {
                    break;
                }
                for i in chosen {
                    if round == limits.explode_depth {
                        dice[i].marks.push(Mark::DepthLimit);
                        continue;
                    }
                    exploded.push(i);
                    dice[i].marks.push(Mark::Exploded);
                    dice.push(RolledDie::new(source.roll(&term.die)?));
                }
            }
        }
        Word::Minimum | Word::Maximum => {
            for i in kept(dice) {
                let d = &mut dice[i];
                let clamped = step.clamp(d.value);
                if clamped != d.value {
                    d.value = clamped;
                    d.marks.push(Mark::Clamped);
                }
            }
        }
    }
    Ok(())
}

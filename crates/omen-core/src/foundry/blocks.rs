//! The walk up to a term's last capped reroll or explosion, where the order of the results matters.
//!
//! Writing each list out in order would count every order of the same faces apart. The list is
//! kept instead as blocks in order, each a multiset of results whose order within the block is any
//! of them alike: the dice first rolled are one block, and each generation of new results another
//! (fresh dice, rolled alike, at the end of the list, whatever their parents). Modifiers on each
//! result alone, keeps and drops treat the results of a block alike, so a block stays a block.
//! A capped step walks the list in order: from the front block, the next result is any of it, each
//! as likely as its share of the block, and the results walked go on in the order walked (or, past
//! the last capped step, sorted by face, the order of equal faces kept).

use std::collections::BTreeMap;

use super::step::{STATE_COST, Step, Walk};
use super::{Modifier, Rolled, discarded};
use num_traits::One;

use crate::distribution::{Probability, Weight};
use crate::error::CoreError;
use crate::in_turn::with_fresh_after;
use crate::limits::{Budget, Limits};

/// The results in blocks, in list order; each block sorted, its order within immaterial.
pub(super) type Blocks = Vec<Vec<Rolled>>;
pub(super) type BlockStates = Walk<Blocks>;

fn add(out: &mut BlockStates, blocks: Blocks, p: Probability) {
    *out.entry(blocks).or_default() += p;
}

/// A keep, a drop or a modifier on each result alone, on every state.
///
/// A keep or drop that takes some of a block's equal results and leaves others takes the earliest:
/// the ones left are then more often late in the block, which is no longer a block. Such a block
/// is written out first in each of its orders, alike, each result its own block.
pub(super) fn each_state(
    states: &BlockStates,
    m: &Modifier,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<BlockStates, CoreError> {
    let mut out = BlockStates::new();
    let mut todo: Vec<(Blocks, Probability)> =
        states.iter().map(|(b, p)| (b.clone(), p.clone())).collect();
    while let Some((blocks, p)) = todo.pop() {
        let flat: Vec<Rolled> = blocks.iter().flatten().copied().collect();
        budget.spend(STATE_COST + flat.len() as u64)?;
        let gone = match *m {
            Modifier::Keep { count, highest } | Modifier::Drop { count, highest } => {
                let faces: Vec<i64> = flat.iter().map(|r| r.face).collect();
                discarded(&faces, count, matches!(m, Modifier::Keep { .. }), highest)
            }
            _ => vec![false; flat.len()],
        };
        if let Some(split) = split_block(&blocks, &gone) {
            for (order, q) in orderings(&blocks[split], budget)? {
                let mut written = blocks[..split].to_vec();
                written.extend(order.into_iter().map(|r| vec![r]));
                written.extend(blocks[split + 1..].iter().cloned());
                todo.push((written, &p * &q));
            }
            limits.check_states(todo.len() as u128)?;
            continue;
        }
        let mut at = 0;
        let mut next: Blocks = Vec::with_capacity(blocks.len());
        for block in &blocks {
            let mut kept: Vec<Rolled> = Vec::with_capacity(block.len());
            for r in block {
                if !gone[at] {
                    let mut r = *r;
                    r.mark(m);
                    kept.push(r);
                }
                at += 1;
            }
            kept.sort_unstable();
            if !kept.is_empty() {
                next.push(kept);
            }
        }
        add(&mut out, next, p);
    }
    Ok(out)
}

/// The first block of which `gone` takes some equal results and leaves others.
fn split_block(blocks: &Blocks, gone: &[bool]) -> Option<usize> {
    let mut at = 0;
    for (i, block) in blocks.iter().enumerate() {
        let marks = &gone[at..at + block.len()];
        let split = (1..block.len()).any(|j| block[j] == block[j - 1] && marks[j] != marks[j - 1]);
        if split {
            return Some(i);
        }
        at += block.len();
    }
    None
}

/// Every distinct order of a block's results, each as likely.
fn orderings(
    block: &[Rolled],
    budget: &mut Budget,
) -> Result<Vec<(Vec<Rolled>, Probability)>, CoreError> {
    // The block is sorted: its distinct results, each with how many there are.
    let mut kinds: Vec<(Rolled, usize)> = Vec::new();
    for r in block {
        match kinds.last_mut() {
            Some((last, n)) if last == r => *n += 1,
            _ => kinds.push((*r, 1)),
        }
    }
    // Each order begun, and how many of each kind it has still to place.
    let mut begun: Vec<(Vec<Rolled>, Vec<usize>)> =
        vec![(Vec::new(), kinds.iter().map(|k| k.1).collect())];
    for _ in 0..block.len() {
        let mut next = Vec::new();
        for (order, left) in &begun {
            budget.spend(STATE_COST + order.len() as u64)?;
            for (i, _) in left.iter().enumerate().filter(|(_, n)| **n > 0) {
                let mut order = order.clone();
                order.push(kinds[i].0);
                let mut left = left.clone();
                left[i] -= 1;
                next.push((order, left));
            }
        }
        begun = next;
    }
    let share = Probability::new(Weight::from(1u32), Weight::from(begun.len()));
    Ok(begun
        .into_iter()
        .map(|(order, _)| (order, share.clone()))
        .collect())
}

/// Every multiset of `n` results showing `faces`, alike, with its probability.
fn fresh_block(
    n: usize,
    faces: &[i64],
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Walk<Vec<Rolled>>, CoreError> {
    let new: Vec<Rolled> = faces.iter().map(|&f| Rolled::new(f)).collect();
    let mut out: Walk<Vec<Rolled>> = BTreeMap::from([(Vec::new(), Probability::one())]);
    for _ in 0..n {
        out = with_fresh_after(&out, &new, |x, r| x <= r, limits, budget)?;
    }
    Ok(out)
}

/// An uncapped reroll or explosion by generations: every result meeting the point rolls a new
/// one (a reroll makes it inactive), the new ones a block at the end, checked in the next
/// generation when the step is recursive. Explosions stop at `explode_depth` generations.
pub(super) fn by_rounds(
    states: &BlockStates,
    faces: &[i64],
    step: Step,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<(BlockStates, Probability), CoreError> {
    let new_faces = step.new_faces(faces);
    // Each state, and how many blocks at its end are still to be checked.
    let mut live: Walk<(Blocks, usize)> = states
        .iter()
        .map(|(b, p)| ((b.clone(), b.len()), p.clone()))
        .collect();
    let mut done = BlockStates::new();
    let mut cut = Probability::default();
    for round in 0..=limits.explode_depth {
        let mut next: Walk<(Blocks, usize)> = BTreeMap::new();
        for ((mut blocks, pending), p) in live {
            let from = blocks.len() - pending;
            let mut meeting = 0;
            for block in &mut blocks[from..] {
                let met = block.iter().filter(|r| step.point.meets(r.face)).count();
                meeting += met;
                if !step.explode {
                    block.retain(|r| !step.point.meets(r.face));
                }
            }
            blocks.retain(|b| !b.is_empty());
            if meeting == 0 || (step.explode && round == limits.explode_depth) {
                if meeting > 0 {
                    cut += &p;
                }
                add(&mut done, blocks, p);
                continue;
            }
            let again = usize::from(step.explode && step.recursive);
            for (block, q) in fresh_block(meeting, &new_faces, limits, budget)? {
                let mut grown = blocks.clone();
                grown.push(block);
                *next.entry((grown, again)).or_default() += &p * &q;
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

/// What is ahead of a capped step's walk: a block of results, or new results not yet looked at
/// (fresh dice rolled alike: what each shows is rolled when the walk reaches it).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Ahead {
    Block(Vec<Rolled>),
    Fresh(usize),
}

/// A capped step's walk: the results walked so far, what is still to walk (each with its
/// generation), how many new results are not walked, the cap left, and whether a chain was cut.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Drawing {
    walked: Vec<Rolled>,
    ahead: Vec<(Ahead, u64)>,
    unwalked: usize,
    left: Option<u64>,
    stopped: bool,
}

impl Drawing {
    /// The blocks once the walk ends, with their probabilities: each result walked its own block in
    /// the order walked, or, when no capped step follows, one block sorted by face (equal faces in
    /// the order walked); then the blocks not walked; then the new results not looked at, rolled
    /// as one block (they are at the end of the list, fresh dice alike).
    fn finish(
        self,
        in_order: bool,
        faces: &[i64],
        limits: &Limits,
        budget: &mut Budget,
    ) -> Result<Vec<(Blocks, Probability)>, CoreError> {
        let mut out: Blocks = if in_order {
            self.walked.into_iter().map(|r| vec![r]).collect()
        } else {
            vec![self.walked]
        };
        let mut fresh = self.unwalked;
        for (a, _) in self.ahead {
            match a {
                Ahead::Block(b) => out.push(b),
                Ahead::Fresh(n) => fresh += n,
            }
        }
        out.retain(|b| !b.is_empty());
        if fresh == 0 {
            return Ok(vec![(out, Probability::one())]);
        }
        let rolled = fresh_block(fresh, faces, limits, budget)?;
        Ok(rolled
            .into_iter()
            .map(|(block, q)| {
                let mut blocks = out.clone();
                blocks.push(block);
                (blocks, q)
            })
            .collect())
    }

    fn walk(&mut self, r: Rolled, in_order: bool) {
        let at = if in_order {
            self.walked.len()
        } else {
            self.walked.partition_point(|x| x.face <= r.face)
        };
        self.walked.insert(at, r);
    }

    /// The front of what is ahead, each result it may give with its probability, and the walk
    /// without it.
    fn fronts(&self, faces: &[i64]) -> Vec<(Rolled, Probability, Drawing)> {
        let mut out = Vec::new();
        match &self.ahead[0].0 {
            Ahead::Block(front) => {
                let size = front.len();
                let mut i = 0;
                while i < size {
                    let r = front[i];
                    let same = front[i..].iter().take_while(|x| **x == r).count();
                    let mut taken = self.clone();
                    if let Ahead::Block(b) = &mut taken.ahead[0].0 {
                        b.remove(i);
                    }
                    let q = Probability::new(Weight::from(same), Weight::from(size));
                    out.push((r, q, taken));
                    i += same;
                }
            }
            Ahead::Fresh(n) => {
                let mut taken = self.clone();
                taken.ahead[0].0 = Ahead::Fresh(n - 1);
                let q = Probability::new(Weight::from(1u32), Weight::from(faces.len()));
                for &f in faces {
                    out.push((Rolled::new(f), q.clone(), taken.clone()));
                }
            }
        }
        out
    }
}

/// A capped reroll or explosion walking the list in order; `in_order` when another capped step
/// follows, so that the order walked must be kept.
pub(super) fn drawing(
    states: &BlockStates,
    faces: &[i64],
    step: Step,
    in_order: bool,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<(BlockStates, Probability), CoreError> {
    let new_faces = step.new_faces(faces);
    let mut live: Walk<Drawing> = states
        .iter()
        .map(|(blocks, p)| {
            let d = Drawing {
                walked: Vec::new(),
                ahead: blocks
                    .iter()
                    .map(|b| (Ahead::Block(b.clone()), 0))
                    .collect(),
                unwalked: 0,
                left: step.cap,
                stopped: false,
            };
            (d, p.clone())
        })
        .collect();
    let mut done = BlockStates::new();
    let mut cut = Probability::default();
    while !live.is_empty() {
        let mut next: Walk<Drawing> = BTreeMap::new();
        for (mut d, p) in live {
            d.ahead
                .retain(|(a, _)| !matches!(a, Ahead::Fresh(0)) && *a != Ahead::Block(Vec::new()));
            budget.spend(STATE_COST * (d.walked.len() + d.ahead.len()) as u64 + STATE_COST)?;
            if d.ahead.is_empty() || d.left == Some(0) {
                if d.stopped {
                    cut += &p;
                }
                for (blocks, q) in d.finish(in_order, &new_faces, limits, budget)? {
                    add(&mut done, blocks, &p * &q);
                }
                continue;
            }
            let generation = d.ahead[0].1;
            for (r, q, taken) in d.fronts(&new_faces) {
                draw(
                    taken,
                    r,
                    generation,
                    &p * &q,
                    step,
                    in_order,
                    limits,
                    &mut next,
                );
            }
        }
        limits.check_states(next.len() as u128)?;
        live = next;
    }
    Ok((done, cut))
}

/// The walk meeting `r`, drawn with probability `p`: walked on, or rerolled or exploded, the new
/// result put at the end of what is ahead (or, for a step that does not walk new results, counted
/// as not walked).
#[allow(clippy::too_many_arguments)]
fn draw(
    mut d: Drawing,
    r: Rolled,
    generation: u64,
    p: Probability,
    step: Step,
    in_order: bool,
    limits: &Limits,
    next: &mut Walk<Drawing>,
) {
    if !step.point.meets(r.face) || generation >= limits.explode_depth {
        d.stopped |= step.point.meets(r.face);
        d.walk(r, in_order);
        *next.entry(d).or_default() += p;
        return;
    }
    if let Some(left) = &mut d.left {
        *left -= 1;
    }
    if step.explode {
        d.walk(r, in_order);
    }
    if !step.recursive {
        d.unwalked += 1;
    } else if let Some((Ahead::Fresh(n), g)) = d.ahead.last_mut()
        && *g == generation + 1
    {
        *n += 1;
    } else {
        d.ahead.push((Ahead::Fresh(1), generation + 1));
    }
    *next.entry(d).or_default() += p;
}
